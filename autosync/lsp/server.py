"""``autosync lsp``: a language server with race diagnostics and barrier quick-fixes (issue 7).

Every editor with an LSP client gets, for ``.cu``/``.cuh`` (and OpenCL C ``.cl``) documents:

* diagnostics -- races (on one access, ``relatedInformation`` on the other, the oracle's
  witness threads in the message), divergent barriers, named-barrier findings, "unknown"
  verdicts and parse errors -- published on open and save, and on change after a debounce;
* code actions of kind ``quickfix``: "Insert optimal barriers (AutoSync)", whose edit is the
  text :func:`autosync.lsp.analysis.fix_text` computes ([AutoSync] Alg. 1 plus the end-to-end
  re-verification of the patched text, the same code path as ``autosync fix``), and "Remove
  redundant barrier" on developer barriers that ``compare`` ([AutoSync] Sec. IV-B) drops.

The editor must never wait for an analysis (one keystroke may cost seconds of SMT), so
analyses run through :class:`autosync.lsp.runner.Runner`, in a child process
(``isolation="process"``, the default) that the server kills when a newer version of the
document arrives or the time limit passes (``initializationOptions.timeout``, default 20 s);
with ``isolation="thread"`` a stale or timed-out result is discarded instead.  Bad input becomes a diagnostic; any other failure
-- of a feature handler or of a background analysis -- goes to ONE error hook
(:meth:`AutoSyncServer.report_server_error`, pygls's own), which logs it with
``window/logMessage``: never a dead server, and no try/except in every handler.

Entry point: ``autosync lsp [--tcp HOST:PORT]`` (:func:`register` adds it to the CLI's typer
app); ``python -m autosync.lsp`` runs the same command.

Why one module of ~500 lines: it is the protocol layer only -- per-document state, the
two-phase scheduling (diagnostics, then the quick-fix text), the LSP conversions and the
feature handlers -- and these share :class:`DocState` and the version checks that keep a
stale result from reaching the editor; the analysis itself is :mod:`autosync.lsp.analysis`,
the process machinery :mod:`autosync.lsp.runner`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import traceback
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types
from pygls import uris
from pygls.exceptions import FeatureNotificationError
from pygls.lsp.server import LanguageServer

from autosync.commands.cli_common import version
from autosync.lsp.analysis import (
    ERROR,
    HINT,
    INFORMATION,
    WARNING,
    Analysis,
    Improvement,
    LineIndex,
    Options,
    Problem,
    analyze,
    improve,
)
from autosync.lsp.runner import JobFailed, JobTimeout, Runner

SERVER_NAME = "autosync"
SOURCE = "autosync"
KERNEL_SUFFIXES = (".cu", ".cuh", ".cl")  # CUDA, and OpenCL C (kpl.frontend.opencl)
KERNEL_LANGUAGES = ("cuda", "cuda-cpp", "cu", "opencl")
FIX_TITLE = "Insert optimal barriers (AutoSync)"
REMOVE_TITLE = "Remove redundant barrier"

SEVERITY = {
    ERROR: types.DiagnosticSeverity.Error,
    WARNING: types.DiagnosticSeverity.Warning,
    INFORMATION: types.DiagnosticSeverity.Information,
    HINT: types.DiagnosticSeverity.Hint,
}

log = logging.getLogger("autosync.lsp")


# --------------------------------------------------------------------------- server


@dataclass
class DocState:
    """The server's view of one open CUDA document."""

    uri: str
    version: int | None = None
    pending: asyncio.Task[None] | None = None
    improving: asyncio.Task[None] | None = None
    analysed_version: int | None = None
    base: list[types.Diagnostic] = field(default_factory=list)
    analysis: Analysis | None = None
    improvement: Improvement | None = None
    improved_version: int | None = None
    text: str = ""

    def cancel(self) -> None:
        for task in (self.pending, self.improving):
            if task is not None and not task.done():
                task.cancel()


class AutoSyncServer(LanguageServer):
    """pygls server plus the per-document job bookkeeping."""

    def __init__(self) -> None:
        super().__init__(SERVER_NAME, version())
        self.options = Options()
        self.docs: dict[str, DocState] = {}
        self._runner: Runner | None = None

    @property
    def runner(self) -> Runner:
        if self._runner is None or self._runner.isolation != self.options.isolation:
            if self._runner is not None:
                self._runner.close()
            self._runner = Runner(self.options.isolation)
        return self._runner

    # -- messages -----------------------------------------------------------------------

    def log_message(self, message: str, kind: types.MessageType = types.MessageType.Log) -> None:
        try:
            self.window_log_message(types.LogMessageParams(type=kind, message=message))
        except Exception:  # the client may be gone; logging must never raise
            log.exception("cannot send log message")

    def log_error(self, what: str, exc: BaseException) -> None:
        detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        self.log_message(f"autosync: {what}: {exc}\n{detail}", types.MessageType.Error)

    def report_server_error(self, error: Exception, source: Any) -> None:
        """The one error hook: pygls calls it when a feature handler raises (a request then
        also gets an error response), :meth:`spawn` when a background analysis does.  The
        failure is logged for the user (``window/logMessage``); the server carries on."""
        self.log_error(f"{getattr(source, '__name__', source)}", error)

    def spawn(self, job: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run ``job`` in the background; a failure goes to :meth:`report_server_error`."""
        task = asyncio.get_running_loop().create_task(job)

        def done(task: asyncio.Task[None]) -> None:
            if not task.cancelled() and task.exception() is not None:
                error = task.exception()
                if isinstance(error, Exception):
                    self.report_server_error(error, FeatureNotificationError)

        task.add_done_callback(done)
        return task

    def publish(self, state: DocState, diagnostics: list[types.Diagnostic], version: int | None) -> None:
        try:
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                uri=state.uri, diagnostics=diagnostics, version=version))
        except Exception as exc:
            self.log_error("publishing diagnostics failed", exc)

    # -- conversion ---------------------------------------------------------------------

    def _path_of(self, uri: str) -> str:
        path = uris.to_fs_path(uri)
        return path if path else "untitled.cu"

    def to_diagnostic(self, problem: Problem, uri: str, path: str, version: int | None) -> types.Diagnostic:
        related = []
        for rel in problem.related:
            rel_uri = uri if os.path.abspath(rel.path) == os.path.abspath(path) else (
                uris.from_fs_path(rel.path) or uri)
            related.append(types.DiagnosticRelatedInformation(
                location=types.Location(uri=rel_uri, range=_range(rel.start, rel.end)),
                message=rel.message))
        data: dict[str, Any] = {"kind": problem.kind, "version": version, "fixable": problem.fixable}
        if problem.edit is not None:
            start, end, text = problem.edit
            data["edit"] = {"start": list(start), "end": list(end), "text": text}
        return types.Diagnostic(
            range=_range(problem.start, problem.end),
            severity=SEVERITY.get(problem.severity, types.DiagnosticSeverity.Error),
            code=problem.kind,
            source=SOURCE,
            message=problem.message,
            related_information=related or None,
            tags=[types.DiagnosticTag.Unnecessary] if problem.kind == "redundant-barrier" else None,
            data=data,
        )

    def _notice(self, message: str, severity: str = INFORMATION) -> types.Diagnostic:
        return types.Diagnostic(range=_range((0, 0), (0, 1)), message=message, source=SOURCE,
                                severity=SEVERITY[severity], code="analysis",
                                data={"kind": "analysis"})

    # -- scheduling ---------------------------------------------------------------------

    def schedule(self, uri: str, delay: float) -> None:
        """(Re)start the analysis of ``uri``'s current version after ``delay`` seconds; any
        analysis of an older version is cancelled (its process killed)."""
        state = self.docs.get(uri)
        if state is None:
            return
        state.cancel()
        state.version = self.workspace.get_text_document(uri).version
        state.pending = self.spawn(self._analyse(state, state.version, delay))

    def _current(self, state: DocState, version: int | None) -> bool:
        return self.docs.get(state.uri) is state and state.version == version

    async def _analyse(self, state: DocState, version: int | None, delay: float) -> None:
        """Phase one: the diagnostics of ``version`` (after ``delay``), then phase two if
        there is something to fix or to simplify."""
        if delay > 0:
            await asyncio.sleep(delay)
        doc = self.workspace.get_text_document(state.uri)
        if doc.version != version:
            return
        text = doc.source
        path = self._path_of(state.uri)
        options = self.options
        try:
            analysis: Analysis = await self.runner.run(analyze, (path, text, options), options.timeout)
        except JobTimeout as exc:
            if self._current(state, version):
                state.base = [self._notice(f"AutoSync: {exc}; raise 'timeout' in the server's "
                                           "initializationOptions to analyse this file")]
                self.publish(state, state.base, version)
            return
        except JobFailed as exc:
            if self._current(state, version):
                self.log_message(f"autosync: analysis of {state.uri} failed: {exc}", types.MessageType.Error)
                first = str(exc).splitlines()[0] if str(exc) else "internal error"
                state.base = [self._notice(f"AutoSync could not analyse this file: {first}", WARNING)]
                self.publish(state, state.base, version)
            return
        if not self._current(state, version):
            return
        state.analysis = analysis
        state.analysed_version = version
        state.text = text
        state.base = [self.to_diagnostic(p, state.uri, path, version) for p in analysis.problems]
        state.improvement = None
        state.improved_version = None
        self.publish(state, state.base, version)
        self.log_message(f"autosync: {os.path.basename(path)} v{version}: {len(analysis.problems)} "
                         f"problem(s) in {analysis.seconds:.2f} s")
        want_fix = analysis.fixable
        want_redundant = (self.options.redundant and analysis.has_barriers and analysis.all_verified)
        if want_fix or want_redundant:
            state.improving = self.spawn(self._improve(state, version, path, text, want_fix, want_redundant))

    async def _improve(self, state: DocState, version: int | None, path: str, text: str,
                       want_fix: bool, want_redundant: bool) -> None:
        """Phase two: the quick-fix text (synthesis + end-to-end check) and the redundant
        barrier hints; computed eagerly so that a code action answers at once."""
        options = self.options
        try:
            result: Improvement = await self.runner.run(
                improve, (path, text, options, want_fix, want_redundant), options.timeout)
        except JobTimeout as exc:
            result = Improvement(fix=None, errors=[f"synthesis: {exc}"])
        except JobFailed as exc:
            result = Improvement(fix=None, errors=[f"synthesis failed: {exc}"])
        if not self._current(state, version):
            return
        state.improvement = result
        state.improved_version = version
        for err in result.errors:
            self.log_message(f"autosync: {err}", types.MessageType.Warning)
        if result.fix is not None and result.fix.text is None:
            self.log_message(f"autosync: no quick-fix for {os.path.basename(path)}: {result.fix.reason}",
                             types.MessageType.Info)
        if result.redundant:
            extra = [self.to_diagnostic(p, state.uri, path, version) for p in result.redundant]
            self.publish(state, state.base + extra, version)

    async def settled(self, state: DocState, timeout: float) -> bool:
        """Wait (without blocking the loop) for the analysis and phase two of the current
        version; False when they did not finish in time."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        for attr in ("pending", "improving"):
            task = getattr(state, attr)
            if task is None or task.done():
                continue
            remaining = deadline - loop.time()
            if remaining <= 0:
                return False
            await asyncio.wait({task}, timeout=remaining)
            if not task.done():
                return False
        return True

    # -- code actions -------------------------------------------------------------------

    async def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        state = self.docs.get(uri)
        if state is None:
            return []
        only = params.context.only
        if only and not any(str(k).startswith(types.CodeActionKind.QuickFix.value) for k in only):
            return []
        # a code action right after a keystroke waits for that version's analysis
        if not await self.settled(state, self.options.timeout * 2 + self.options.debounce + 1):
            return []
        doc = self.workspace.get_text_document(uri)
        version = doc.version
        if state.analysed_version != version:
            return []
        ours = [d for d in params.context.diagnostics if d.source == SOURCE]
        stored = [d for d in state.base if _overlaps(d.range, params.range)]
        actions: list[types.CodeAction] = []
        fixable = [d for d in ours + stored if isinstance(d.data, dict) and d.data.get("fixable")]
        improvement = state.improvement if state.improved_version == version else None
        if fixable and improvement is not None and improvement.fix is not None:
            fix = improvement.fix
            if fix.text is not None and fix.text != doc.source:
                edit = types.TextEdit(range=_range((0, 0), LineIndex(doc.source).end()), new_text=fix.text)
                actions.append(types.CodeAction(
                    title=FIX_TITLE, kind=types.CodeActionKind.QuickFix,
                    diagnostics=_unique(fixable), is_preferred=True,
                    edit=self._workspace_edit(uri, version, [edit])))
            elif fix.text is None:
                actions.append(types.CodeAction(
                    title=FIX_TITLE, kind=types.CodeActionKind.QuickFix, diagnostics=_unique(fixable),
                    disabled=types.CodeActionDisabled(reason=fix.reason or "no verified placement")))
        seen: set[tuple[Any, ...]] = set()
        for diag in ours + self._hints(state, improvement, params.range):
            data = diag.data if isinstance(diag.data, dict) else {}
            if data.get("kind") != "redundant-barrier" or not isinstance(data.get("edit"), dict):
                continue
            if data.get("version") != version:
                continue
            raw = data["edit"]
            key = (tuple(raw["start"]), tuple(raw["end"]))
            if key in seen:
                continue
            seen.add(key)
            edit = types.TextEdit(range=_range(tuple(raw["start"]), tuple(raw["end"])), new_text=raw["text"])
            actions.append(types.CodeAction(
                title=REMOVE_TITLE, kind=types.CodeActionKind.QuickFix, diagnostics=[diag],
                edit=self._workspace_edit(uri, version, [edit])))
        return actions

    def _hints(self, state: DocState, improvement: Improvement | None,
               rng: types.Range) -> list[types.Diagnostic]:
        if improvement is None:
            return []
        path = self._path_of(state.uri)
        diags = [self.to_diagnostic(p, state.uri, path, state.improved_version) for p in improvement.redundant]
        return [d for d in diags if _overlaps(d.range, rng)]

    def _workspace_edit(self, uri: str, version: int | None, edits: list[types.TextEdit]) -> types.WorkspaceEdit:
        """Versioned ``documentChanges`` when the client supports them (a stale edit is then
        rejected by the editor), plain ``changes`` otherwise."""
        caps = self.client_capabilities
        ws = caps.workspace if caps is not None else None
        edit_caps = ws.workspace_edit if ws is not None else None
        if edit_caps is not None and edit_caps.document_changes:
            return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                edits=list(edits))])
        return types.WorkspaceEdit(changes={uri: list(edits)})


def _range(start: tuple[int, ...] | list[int], end: tuple[int, ...] | list[int]) -> types.Range:
    return types.Range(start=types.Position(line=int(start[0]), character=int(start[1])),
                       end=types.Position(line=int(end[0]), character=int(end[1])))


def _overlaps(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> tuple[int, int]:
        return (p.line, p.character)

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def _unique(diags: list[types.Diagnostic]) -> list[types.Diagnostic]:
    out: list[types.Diagnostic] = []
    keys: set[tuple[Any, ...]] = set()
    for d in diags:
        k = (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character, d.message)
        if k not in keys:
            keys.add(k)
            out.append(d)
    return out


def _is_kernel_file(uri: str, language_id: str | None) -> bool:
    path = uri.split("?", 1)[0].split("#", 1)[0].lower()
    return path.endswith(KERNEL_SUFFIXES) or (language_id or "").lower() in KERNEL_LANGUAGES


# --------------------------------------------------------------------------- features


def create_server() -> AutoSyncServer:
    """A fresh server with all features registered (tests may build several).  No handler
    catches its own errors: :meth:`AutoSyncServer.report_server_error` gets them all."""
    server = AutoSyncServer()

    @server.feature(types.INITIALIZE)
    def on_initialize(ls: AutoSyncServer, params: types.InitializeParams) -> None:
        ls.options, problems = Options.from_dict(params.initialization_options)
        for problem in problems:
            ls.log_message(f"autosync: {problem}", types.MessageType.Warning)
        ls.log_message(f"autosync {version()}: {ls.options}", types.MessageType.Info)

    @server.feature(types.INITIALIZED)
    async def on_initialized(ls: AutoSyncServer, params: types.InitializedParams) -> None:
        await ls.runner.warm_up()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def on_configuration(ls: AutoSyncServer, params: types.DidChangeConfigurationParams) -> None:
        settings = params.settings
        if isinstance(settings, dict) and isinstance(settings.get("autosync"), dict):
            ls.options, problems = Options.from_dict(settings["autosync"])
            for problem in problems:
                ls.log_message(f"autosync: {problem}", types.MessageType.Warning)
            for uri in list(ls.docs):
                ls.schedule(uri, 0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def on_open(ls: AutoSyncServer, params: types.DidOpenTextDocumentParams) -> None:
        doc = params.text_document
        if not _is_kernel_file(doc.uri, doc.language_id):
            return
        ls.docs.setdefault(doc.uri, DocState(doc.uri))
        ls.schedule(doc.uri, 0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def on_change(ls: AutoSyncServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, ls.options.debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def on_save(ls: AutoSyncServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def on_close(ls: AutoSyncServer, params: types.DidCloseTextDocumentParams) -> None:
        state = ls.docs.pop(params.text_document.uri, None)
        if state is not None:
            state.cancel()
            ls.publish(state, [], None)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    async def on_code_action(ls: AutoSyncServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        return await ls.code_actions(params)

    @server.feature(types.SHUTDOWN)
    def on_shutdown(ls: AutoSyncServer, params: Any) -> None:
        for state in ls.docs.values():
            state.cancel()
        if ls._runner is not None:
            ls._runner.close()

    return server


# --------------------------------------------------------------------------- entry points


def serve(tcp: str | None = None, log_file: str | None = None) -> None:
    """Run the server on stdio, or on ``HOST:PORT`` with ``tcp``.

    On stdio the JSON-RPC streams are moved to private file descriptors and fds 0/1 are
    pointed at /dev/null and stderr, so nothing a library (or a child analysis process, which
    inherits them) prints can corrupt the protocol."""
    if log_file:
        logging.basicConfig(filename=log_file, level=logging.INFO)
    else:
        logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    server = create_server()
    if tcp:
        host, _, port = tcp.rpartition(":")
        if not port.isdigit():
            raise SystemExit(f"--tcp expects HOST:PORT, got {tcp!r}")
        server.start_tcp(host or "127.0.0.1", int(port))
        return
    lsp_in = os.fdopen(os.dup(0), "rb")
    lsp_out = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    server.start_io(lsp_in, lsp_out)


def register(app: Any) -> None:
    """Add the ``lsp`` command to the CLI's typer app (``autosync lsp [--tcp HOST:PORT]``)."""
    import typer

    @app.command("lsp")
    def lsp_command(
        tcp: str = typer.Option(None, "--tcp", metavar="HOST:PORT",
                                help="Listen on a TCP socket instead of stdio."),
        log_file: str = typer.Option(None, "--log-file", help="Write the server's own log here."),
        stdio: bool = typer.Option(False, "--stdio", help="Use stdio (the default; editors often pass it)."),
    ) -> None:
        """Language server: race diagnostics and barrier quick-fixes for .cu/.cuh/.cl files."""
        serve(tcp=tcp, log_file=log_file)


if __name__ == "__main__":
    from autosync.commands.cli import main

    main(["lsp", *sys.argv[1:]])
