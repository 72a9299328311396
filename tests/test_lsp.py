"""``autosync lsp`` driven over stdio by a real LSP client (pytest-lsp), plus unit tests of
the job runner (time-out, cancellation) and of the editor-neutral pipeline.

The quick-fix test checks the issue's promise end to end: the WorkspaceEdit of "Insert optimal
barriers" applied to the buffer gives exactly :func:`autosync.lsp.analysis.fix_text` (the
``autosync fix`` code path) and a kernel the oracle verifies after a fresh parse.
"""

from __future__ import annotations

import asyncio
import importlib.util
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from conftest import slow
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from autosync.lsp.analysis import LineIndex, Options, analyze, fix_text, utf16_len
from autosync.lsp.runner import JobTimeout, Runner
from autosync.lsp.server import FIX_TITLE, REMOVE_TITLE

ROOT = Path(__file__).resolve().parent.parent
#: the sound ``sdv`` oracle when it has landed; ``dynamic`` (exact for these one-block
#: kernels without inputs) until then
ORACLE = "sdv" if importlib.util.find_spec("oracle.sdv") is not None else "dynamic"
OPTIONS = Options(oracle=ORACLE)

RACY = (ROOT / "microbench" / "1-1-main.cu").read_text()

MALFORMED = """//--blockDim=64 --gridDim=1
__global__ void broken(int *g) {
  int x = ;
  g[threadIdx.x] = x;
}
"""

REDUNDANT = """//--blockDim=64 --gridDim=1
__global__ void twice(int *g) {
  __shared__ int A[64];
  int tid = threadIdx.x;
  A[tid] = tid;
  __syncthreads();
  int x = A[63 - tid];
  __syncthreads();
  g[tid] = x;
}
"""

VERIFIED = """//--blockDim=64 --gridDim=1
__global__ void fine(int *g) {
  __shared__ int A[64];
  A[threadIdx.x] = threadIdx.x;
  g[threadIdx.x] = A[threadIdx.x];
}
"""


def _uri(path: Path) -> str:
    return path.as_uri()


def apply_edits(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP text edits (UTF-16 positions) to ``text``, last edit first."""
    index = LineIndex(text)

    def offset(pos: types.Position) -> int:
        line_start = index.starts[pos.line]
        line_end = index.starts[pos.line + 1] if pos.line + 1 < len(index.starts) else len(text)
        units = 0
        for i in range(line_start, line_end + 1):
            if units >= pos.character or i == line_end:
                return i
            units += utf16_len(text[i])
        return line_end

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


def edits_of(action: types.CodeAction, uri: str) -> list[types.TextEdit]:
    assert action.edit is not None
    if action.edit.document_changes:
        out: list[types.TextEdit] = []
        for change in action.edit.document_changes:
            assert isinstance(change, types.TextDocumentEdit)
            assert change.text_document.uri == uri
            out += [e for e in change.edits if isinstance(e, types.TextEdit)]
        return out
    assert action.edit.changes is not None
    return list(action.edit.changes[uri])


async def wait_diagnostics(client: LanguageClient, uri: str, predicate: Any, timeout: float = 30.0
                           ) -> list[types.Diagnostic]:
    """The first diagnostics for ``uri`` satisfying ``predicate`` (already received or not)."""
    deadline = time.monotonic() + timeout
    while True:
        diags = list(client.diagnostics.get(uri, []))
        if uri in client.diagnostics and predicate(diags):
            return diags
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AssertionError(f"no matching diagnostics for {uri}; last: {diags}")
        try:
            await asyncio.wait_for(
                client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), remaining)
        except asyncio.TimeoutError:
            pass


def open_doc(client: LanguageClient, path: Path, text: str, version: int = 1) -> str:
    path.write_text(text)
    uri = _uri(path)
    client.diagnostics.pop(uri, None)
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="cuda", version=version, text=text)))
    return uri


async def code_actions(client: LanguageClient, uri: str, diag: types.Diagnostic) -> list[types.CodeAction]:
    result = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=diag.range,
        context=types.CodeActionContext(diagnostics=[diag])))
    return [a for a in (result or []) if isinstance(a, types.CodeAction)]


@pytest_lsp.fixture(
    scope="module",
    config=ClientServerConfig(server_command=[sys.executable, "-m", "autosync", "lsp"]),
)
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(
            workspace=types.WorkspaceClientCapabilities(
                workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True))),
        initialization_options={"oracle": ORACLE, "debounce": 0.1, "timeout": 30}))
    # the initializationOptions were taken (the server logs the options it runs with)
    assert any("debounce=0.1" in m.message and "timeout=30.0" in m.message
               for m in lsp_client.log_messages)
    yield
    await lsp_client.shutdown_session()


# --------------------------------------------------------------------------- over stdio


@pytest.mark.asyncio(loop_scope="module")
async def test_race_diagnostic_and_quick_fix_verifies(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "racy.cu"
    uri = open_doc(client, path, RACY)
    diags = await wait_diagnostics(client, uri, lambda ds: any(d.code == "race" for d in ds))
    race = next(d for d in diags if d.code == "race")
    # the write A[tid] += x (line 10, 0-based 9) races with the read x = A[tid+1] (line 8)
    assert race.severity == types.DiagnosticSeverity.Error and race.source == "autosync"
    assert race.range.start.line == 9 and race.range.start.character == 2
    assert race.range.end.line == 9 and race.range.end.character == len("  A[tid] += x;")
    assert "race on 'A' with line 8" in race.message and "threads" in race.message
    assert race.related_information and race.related_information[0].location.uri == uri
    assert race.related_information[0].location.range.start.line == 7

    actions = await code_actions(client, uri, race)
    fix = next(a for a in actions if a.title == FIX_TITLE)
    assert fix.kind == types.CodeActionKind.QuickFix and fix.disabled is None
    patched = apply_edits(RACY, edits_of(fix, uri))
    # exactly what `autosync fix` writes (same pipeline, same options) ...
    assert patched == fix_text(str(path), RACY, OPTIONS)
    assert patched.count("__syncthreads()") == 1
    # ... byte for byte what the real `autosync fix` command writes ...
    written = tmp_path / "fixed_by_cli.cu"
    cli = subprocess.run([sys.executable, "-m", "autosync", "fix", str(path), "--oracle", ORACLE,
                          "-o", str(written)], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert cli.returncode == 0, cli.stderr
    assert written.read_text() == patched
    # ... and a kernel that `autosync check` verifies, parsed afresh from the text
    checked = tmp_path / "patched.cu"
    checked.write_text(patched)
    cli = subprocess.run([sys.executable, "-m", "autosync", "check", str(checked), "--oracle", ORACLE],
                         capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert cli.returncode == 0, cli.stdout + cli.stderr
    again = analyze(str(path), patched, OPTIONS)
    assert again.kernels == ["main_kernel"] and again.all_verified and again.problems == []

    # the editor applies the edit: the server re-analyses and clears the race
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=patched)]))
    await wait_diagnostics(client, uri, lambda ds: ds == [])


@pytest.mark.asyncio(loop_scope="module")
async def test_parse_error_then_keeps_serving(client: LanguageClient, tmp_path: Path) -> None:
    bad = open_doc(client, tmp_path / "bad.cu", MALFORMED)
    diags = await wait_diagnostics(client, bad, lambda ds: any(d.code == "parse-error" for d in ds))
    err = next(d for d in diags if d.code == "parse-error")
    assert err.severity == types.DiagnosticSeverity.Error
    assert (err.range.start.line, err.range.start.character) == (2, 10)  # the ';' of "int x = ;"
    assert err.message == "expected expression"  # clang's words
    assert await code_actions(client, bad, err) == []

    # the server survived: the next requests on another document are answered
    good = open_doc(client, tmp_path / "next.cu", RACY)
    diags = await wait_diagnostics(client, good, lambda ds: any(d.code == "race" for d in ds))
    actions = await code_actions(client, good, next(d for d in diags if d.code == "race"))
    assert [a.title for a in actions] == [FIX_TITLE]

    # garbage that is not even C, and an empty buffer: diagnostics, no crash
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=bad, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text="\x00}}{{ \u00e9 __global__")]))
    await wait_diagnostics(client, bad, lambda ds: len(ds) == 1 and ds[0].code == "parse-error")
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=bad, version=3),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=VERIFIED)]))
    await wait_diagnostics(client, bad, lambda ds: ds == [])


@pytest.mark.asyncio(loop_scope="module")
async def test_debounced_changes_report_only_the_latest_version(client: LanguageClient,
                                                                tmp_path: Path) -> None:
    uri = open_doc(client, tmp_path / "edit.cu", VERIFIED)
    await wait_diagnostics(client, uri, lambda ds: ds == [])
    # a burst of keystrokes: racy, broken, then racy again -- only the last one may be reported
    texts = [RACY, MALFORMED, RACY.replace("x = x+11;", "x = x+12;")]
    for version, text in enumerate(texts, start=2):
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
    diags = await wait_diagnostics(client, uri, lambda ds: ds != [])
    assert [d.code for d in diags] == ["race"]
    assert all(isinstance(d.data, dict) and d.data["version"] == 4 for d in diags)


@pytest.mark.asyncio(loop_scope="module")
async def test_redundant_barrier_hint_and_removal(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "twice.cu"
    uri = open_doc(client, path, REDUNDANT)
    diags = await wait_diagnostics(client, uri, lambda ds: any(d.code == "redundant-barrier" for d in ds))
    assert [d.code for d in diags] == ["redundant-barrier"]
    hint = diags[0]
    assert hint.severity == types.DiagnosticSeverity.Hint
    assert hint.range.start.line == 7  # the second __syncthreads(): nothing after it races
    actions = await code_actions(client, uri, hint)
    remove = next(a for a in actions if a.title == REMOVE_TITLE)
    patched = apply_edits(REDUNDANT, edits_of(remove, uri))
    assert patched == REDUNDANT.replace("  __syncthreads();\n  g[tid]", "  g[tid]")
    result = analyze(str(path), patched, OPTIONS)
    assert result.all_verified and result.problems == []


# --------------------------------------------------------------------------- runner


@pytest.mark.asyncio
async def test_runner_times_out_and_kills_the_job() -> None:
    runner = Runner("process")
    try:
        t0 = time.monotonic()
        with pytest.raises(JobTimeout):
            await runner.run(time.sleep, (30,), 0.5)
        assert time.monotonic() - t0 < 10
        await asyncio.sleep(0.3)
        assert not any(p.is_alive() for p in runner._procs)
        assert await runner.run(sum, ([1, 2, 3],), 10) == 6
    finally:
        runner.close()


@pytest.mark.asyncio
async def test_runner_cancellation_kills_the_job() -> None:
    runner = Runner("process")
    try:
        task = asyncio.ensure_future(runner.run(time.sleep, (30,), 60))
        await asyncio.sleep(1.0)
        procs = list(runner._procs)
        assert procs and procs[0].is_alive()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        procs[0].join(5)
        assert not procs[0].is_alive()
    finally:
        runner.close()


# --------------------------------------------------------------------------- pipeline units


def test_options_from_initialization_options() -> None:
    opts, problems = Options.from_dict({"autosync": {
        "timeout": 5, "blockDim": "[16,8]", "oracleFacts": "off", "defines": {"N": 4},
        "warpSync": 32, "bogus": 1, "lc": [1]}})
    assert opts.timeout == 5.0 and opts.block_dim == (16, 8, 1) and opts.use_facts is False
    assert opts.defines == (("N", "4"),) and opts.warp_sync == 32 and opts.lc == 100
    assert any("bogus" in p for p in problems) and any("'lc'" in p for p in problems)
    assert Options.from_dict(None) == (Options(), [])


def test_positions_count_utf16_units() -> None:
    index = LineIndex("a\n\u00e9\U0001d11ex = 1;\r\nlast")
    assert index.from_line_col(2, 3) == (1, 3)  # é is one unit, the musical G clef two
    assert index.position(len("a\n\u00e9\U0001d11e")) == (1, 3)
    assert index.end() == (2, 4)
    assert index.line_range(2) == ((1, 0), (1, 9))


@pytest.mark.asyncio
async def test_thread_runner_discards_a_late_result() -> None:
    runner = Runner("thread")
    try:
        with pytest.raises(JobTimeout):
            await runner.run(time.sleep, (1.0,), 0.1)
        assert await runner.run(max, (3, 7), 5) == 7
    finally:
        runner.close()


def test_register_adds_the_lsp_command() -> None:
    import typer
    from typer.testing import CliRunner

    from autosync.lsp.server import register

    app = typer.Typer()

    @app.callback()
    def root() -> None:
        """A stand-in for the CLI's app."""

    register(app)
    result = CliRunner().invoke(app, ["lsp", "--help"])
    assert result.exit_code == 0, result.output
    assert "--tcp" in result.output


# --------------------------------------------------------------------------- the worst of the corpus


def _nested_ifs(depth: int) -> str:
    body = "".join(f"  if (t > {i % 7}) {{\n" for i in range(depth))
    return ("//--blockDim=64 --gridDim=1\n__global__ void deep(int *out) {\n  __shared__ int s[64];\n"
            "  int t = threadIdx.x;\n" + body + "  s[t] = t;\n" + "  }\n" * depth + "  out[t] = s[t];\n}\n")


def _many_lines(lines: int) -> str:
    body = "".join(f"  x = x + {i % 13};\n" for i in range(lines))
    return ("//--blockDim=64 --gridDim=1\n__global__ void big(int *out) {\n  int x = 0;\n" + body
            + "  out[threadIdx.x] = x;\n}\n")


@pytest.mark.asyncio(loop_scope="module")
async def test_server_survives_the_worst_inputs(client: LanguageClient, tmp_path: Path) -> None:
    """Deep nesting, a 20,000-line kernel, hostile includes, binary garbage: each gets
    diagnostics (or one clean "cannot analyse"/time-out notice), and the server keeps serving."""
    deep = open_doc(client, tmp_path / "deep.cu", _nested_ifs(500))
    await wait_diagnostics(client, deep, lambda ds: ds == [], timeout=90)  # analysed: verified

    hostile = {
        "passwd.cu": '#include "/etc/passwd"\n' + VERIFIED,
        "cycle.cu": '#include "cycle.cu"\n' + VERIFIED,
        "garbage.cu": bytes(range(256)).decode("latin-1") * 4,
        "parens.cu": "//--blockDim=64 --gridDim=1\n__global__ void p(int *g) { g[0] = "
                     + "(" * 3000 + "1" + ")" * 3000 + "; }\n",
    }
    for name, text in hostile.items():
        uri = open_doc(client, tmp_path / name, text)
        diags = await wait_diagnostics(client, uri, lambda ds: True, timeout=90)
        for d in diags:
            assert d.message and "Traceback" not in d.message, (name, d.message)

    big = open_doc(client, tmp_path / "big.cu", _many_lines(20_000))
    diags = await wait_diagnostics(client, big, lambda ds: True, timeout=120)
    assert all("Traceback" not in d.message for d in diags)

    # still answering: a fresh document is analysed, and a code action request is answered
    good = open_doc(client, tmp_path / "after.cu", RACY)
    diags = await wait_diagnostics(client, good, lambda ds: any(d.code == "race" for d in ds), timeout=90)
    actions = await code_actions(client, good, next(d for d in diags if d.code == "race"))
    assert [a.title for a in actions] == [FIX_TITLE]


def _make_corpus(out: Path) -> list[Path]:
    """The fuzzer's hostile corpus (tests/fuzz/make_corpus.py: generated and hand-made files)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("autosync_fuzz_make_corpus",
                                                  ROOT / "tests" / "fuzz" / "make_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    files: list[Path] = module.write_corpus(out)
    return files


@slow  # a minute: each corpus file once more, through the server (test_fuzz runs them in the CLI)
@pytest.mark.asyncio(loop_scope="module")
async def test_server_survives_the_whole_hostile_corpus(client: LanguageClient, tmp_path: Path) -> None:
    """Every file of the fuzzer's hostile corpus, opened in the server as an editor would (bytes
    decoded as UTF-8 with replacement): each gets diagnostics -- an error for the files the CLI
    refuses (``fuzz-expect-exit: 2``), none for those it verifies (``0``; the biggest may get
    the server's clean time-out notice instead) -- never a traceback or an internal error, and
    afterwards the server still answers."""
    import re

    # the canary that include_canary.cu reaches for ("../../canary/secret.h"), planted as the
    # fuzzer plants it: outside the file's folder, so the include must be refused unread (a
    # name that resolves nowhere is a missing header instead, with an empty stand-in)
    (tmp_path / "canary").mkdir()
    (tmp_path / "canary" / "secret.h").write_text("#error AUTOSYNC_CANARY\n")
    files = _make_corpus(tmp_path / "m" / "corpus")
    assert len(files) >= 20, files
    expected = {}
    for path in files:
        data = path.read_bytes()
        text = data.decode("utf-8", errors="replace")
        want = re.search(rb"fuzz-expect-exit: (\d)", data)
        expected[_uri(path)] = (path.name, int(want.group(1)) if want else None)
        client.diagnostics.pop(_uri(path), None)
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=_uri(path), language_id="cuda", version=1, text=text)))
    for uri, (name, want) in expected.items():
        diags = await wait_diagnostics(client, uri, lambda ds: True, timeout=180)
        for d in diags:
            assert d.message and "Traceback" not in d.message and "internal error" not in d.message, (name, d)
        if want == 0:  # verified -- or, for the biggest inputs on a slow machine, the time-out notice
            assert all(d.message.startswith("AutoSync: analysis did not finish") for d in diags), (name, diags)
        elif want == 2:
            assert any(d.severity == types.DiagnosticSeverity.Error for d in diags), (name, diags)
    # still answering: a fresh document is analysed, and a code action request is answered
    good = open_doc(client, tmp_path / "after.cu", RACY)
    diags = await wait_diagnostics(client, good, lambda ds: any(d.code == "race" for d in ds), timeout=90)
    actions = await code_actions(client, good, next(d for d in diags if d.code == "race"))
    assert [a.title for a in actions] == [FIX_TITLE]
