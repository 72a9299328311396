"""Never crash, never hang, read nothing it should not: the command line under hostile
conditions -- CRLF files, Ctrl-C, ``--timeout``, symlinks, read-only files, ``kill -9``,
machine-readable errors, deep nesting and big files, duplicate kernels, impossible launch
sizes, barriers written inside macros.

Slow cases run the console script in a subprocess (signals, kills); the rest go through
typer's CliRunner in this process.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from autosync.commands.cli import app
from autosync.pipeline import core as pipeline
from autosync.pipeline import files as pipeline_io

ROOT = Path(__file__).resolve().parent.parent
RACY = ROOT / "microbench" / "2-2-loop-both.cu"
#: the placement of RACY, fixed by hand (the microbench's expected output)
FIXED = ROOT / "microbench" / "expected" / "2-2-loop-both.cu"
CLEAN = FIXED
SYNTAX_ERROR = ROOT / "tests" / "kernels" / "bad" / "syntax_error.cu"


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args])


def script(*args: str | Path, env: dict[str, str] | None = None) -> list[str]:
    return [sys.executable, "-m", "autosync", *map(str, args)]


def child_env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONWARNINGS": "ignore", **extra}


def expected_fixed_text() -> str:
    """FIXED with RACY's header line (the header says what the INPUT is)."""
    racy, fixed = RACY.read_text().split("\n"), FIXED.read_text().split("\n")
    return "\n".join([racy[0], *fixed[1:]])


def slow_kernel(depth: int) -> str:
    """A race-free-looking kernel whose ``depth`` nested loops (each abstracted by the oracle)
    make one check take tens of seconds."""
    lines = ["//pass", "//--blockDim=64 --gridDim=1", "__global__ void slow(int *out, int n) {",
             "  __shared__ int s[64];", "  int acc = 0;"]
    for i in range(depth):
        lines.append("  " * (i + 1) + f"for (int i{i} = 0; i{i} < n; i{i}++) {{")
    lines.append("  " * (depth + 1) + "s[threadIdx.x] = acc; acc += s[(threadIdx.x + 1) % 64];")
    lines += ["  " * (i + 1) + "}" for i in reversed(range(depth))]
    lines += ["  out[threadIdx.x] = acc;", "}"]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- 1. line endings


def test_fix_keeps_crlf_line_endings_byte_for_byte(tmp_path: Path) -> None:
    src = tmp_path / "kernel.cu"
    src.write_bytes(RACY.read_bytes().replace(b"\n", b"\r\n"))
    res = invoke("fix", src)
    assert res.exit_code == 0, res.output
    assert src.read_bytes() == expected_fixed_text().encode().replace(b"\n", b"\r\n")


def test_fix_mixed_line_endings_inserted_line_follows_its_predecessor(tmp_path: Path) -> None:
    racy = RACY.read_text().split("\n")[:-1]  # lines, the file ends with a newline
    # odd lines CRLF, even lines LF
    endings = {i: ("\r\n" if i % 2 else "\n") for i in range(len(racy))}
    src = tmp_path / "kernel.cu"
    src.write_bytes("".join(line + endings[i] for i, line in enumerate(racy)).encode())
    expected: list[str] = []
    i = 0
    for line in expected_fixed_text().split("\n")[:-1]:
        if i < len(racy) and line == racy[i]:
            expected.append(line + endings[i])
            i += 1
        else:  # an inserted line: the ending of the line before it
            assert "__syncthreads" in line
            expected.append(line + ("\r\n" if expected[-1].endswith("\r\n") else "\n"))
    assert i == len(racy)
    res = invoke("fix", src)
    assert res.exit_code == 0, res.output
    assert src.read_bytes() == "".join(expected).encode()


def test_keep_line_endings_maps_offsets() -> None:
    raw = "a\r\nbb\r\nc\n"
    lf = pipeline.to_lf(raw)
    assert lf == "a\nbb\nc\n"
    assert [pipeline_io._raw_offset(raw, o) for o in range(len(lf) + 1)] == [0, 1, 3, 4, 5, 7, 8, 9]
    assert pipeline.line_ending_at(raw, 3) == "\r\n" and pipeline.line_ending_at(raw, 8) == "\n"


# --------------------------------------------------------------------------- 2. Ctrl-C and --timeout


def sigint_at_default() -> None:
    """Run in the child before ``exec``: SIGINT at its default disposition, as a terminal's
    Ctrl-C finds a foreground command.  Launched from a background shell (``cmd &``) the tests
    inherit SIGINT *ignored*, an ignored signal stays ignored across ``exec``, and Python then
    installs no KeyboardInterrupt handler: the child would never see the Ctrl-C sent to it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupt_while_running(cmd: list[str]) -> None:
    """Start ``cmd``, send SIGINT well into its first oracle call, and check the promise:
    exit 130 within 5 s, the one line ``autosync: interrupted``, nothing on stdout."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=child_env(), preexec_fn=sigint_at_default)
    try:
        time.sleep(6)  # imports, parse, and well into the first (tens of seconds) oracle call
        assert proc.poll() is None, "the slow kernel finished before the interrupt"
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, (out, err)
    assert time.monotonic() - sent < 5
    assert err.strip().splitlines() == ["autosync: interrupted"], err
    assert out == ""


def test_ctrl_c_during_a_slow_check_exits_130_and_writes_nothing(tmp_path: Path) -> None:
    src = tmp_path / "slow.cu"
    src.write_text(slow_kernel(4))
    before = src.read_bytes()
    interrupt_while_running(script("fix", src))
    assert src.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["slow.cu"]


def test_timeout_of_check_is_an_unknown_within_it(tmp_path: Path) -> None:
    """Issue 35: the oracle's calls end by a share of ``--timeout`` with an "unknown" and its
    reason (exit 1, never a pass), not with the time-out (exit 3: a stuck front end still
    gets it, see the big inputs below, as do ``compare`` and ``bench``)."""
    src = tmp_path / "slow.cu"
    src.write_text(slow_kernel(4))
    start = time.monotonic()
    proc = subprocess.run(script("check", "--timeout", "1", src), capture_output=True, text=True,
                          timeout=120, env=child_env())
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == ""
    assert f"{src}: error: cannot verify: sdv: not decided within the time budget (0.8 s of --timeout 1 s)" \
        in proc.stdout.splitlines()
    assert time.monotonic() - start < 30


@pytest.mark.parametrize("command", ["compare", "bench"])
def test_ctrl_c_stops_compare_and_bench_promptly(command: str, tmp_path: Path) -> None:
    """``compare`` and ``bench`` run in the same guarded worker as ``check``/``fix`` (they
    used a SIGALRM deadline, which z3's native code could swallow)."""
    folder = tmp_path / "kernels"
    folder.mkdir()
    src = folder / "slow.cu"
    src.write_text(slow_kernel(4))
    before = src.read_bytes()
    target = src if command == "compare" else folder
    interrupt_while_running(script(command, target))
    assert src.read_bytes() == before
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["kernels", "slow.cu"]


@pytest.mark.parametrize("command", ["compare", "bench"])
def test_timeout_of_compare_and_bench_is_the_one_stable_line(command: str, tmp_path: Path) -> None:
    folder = tmp_path / "kernels"
    folder.mkdir()
    src = folder / "slow.cu"
    src.write_text(slow_kernel(4))
    target = src if command == "compare" else folder
    start = time.monotonic()
    proc = subprocess.run(script(command, "--timeout", "1", target), capture_output=True, text=True,
                          timeout=120, env=child_env())
    assert proc.returncode == 3, proc.stderr
    assert proc.stderr.strip().splitlines() == [f"{target}: error: timeout: no result within 1 s"]
    assert proc.stdout == ""
    assert time.monotonic() - start < 30
    # --format json: still one document, with the error in it
    res = invoke(command, "--timeout", "1", "--format", "json", target)
    assert res.exit_code == 3, res.output
    assert json.loads(res.stdout)["error"]["message"] == "timeout: no result within 1 s"


@pytest.mark.parametrize("value", ["0", "-1", "abc"])
def test_bad_timeout_is_bad_input(value: str) -> None:
    res = invoke("check", "--timeout", value, CLEAN)
    assert res.exit_code == 2, res.output
    assert invoke("compare", "--timeout", value, CLEAN).exit_code == 2
    assert invoke("bench", "--timeout", value, str(CLEAN.parent)).exit_code == 2


def test_default_timeout_is_shown_in_help() -> None:
    for command in ("check", "fix", "compare"):
        res = invoke(command, "--help")
        assert res.exit_code == 0
        assert "--timeout" in res.stdout and "300" in res.stdout


def test_guarded_run_maps_recursion_to_unsupported(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_text("int x = ((((1))));\n")

    def explode() -> None:
        raise RecursionError

    with pytest.raises(pipeline.Unsupported) as info:
        pipeline.run_guarded(explode, timeout=None, file=str(src))
    assert info.value.format() == (f"{src}:1:12: error: unsupported: nesting deeper than the analyser "
                                   "supports (4 levels of brackets here)")


# --------------------------------------------------------------------------- 3. writing the file


def test_fix_writes_through_a_symlink_and_keeps_the_mode(tmp_path: Path) -> None:
    real = tmp_path / "real.cu"
    shutil.copyfile(RACY, real)
    os.chmod(real, 0o640)
    link = tmp_path / "link.cu"
    link.symlink_to(real)
    res = invoke("fix", link)
    assert res.exit_code == 0, res.output
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text() == expected_fixed_text()
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.cu", "real.cu"]


def test_fix_refuses_a_read_only_file(tmp_path: Path) -> None:
    src = tmp_path / "kernel.cu"
    shutil.copyfile(RACY, src)
    os.chmod(src, 0o444)
    res = invoke("fix", src)
    assert res.exit_code == 2, res.output
    assert res.stderr.strip().splitlines() == [f"{src}: error: cannot write: file is read-only"]
    assert src.read_bytes() == RACY.read_bytes()
    assert stat.S_IMODE(src.stat().st_mode) == 0o444


def test_stale_temp_file_of_a_killed_run_is_removed(tmp_path: Path) -> None:
    src = tmp_path / "kernel.cu"
    shutil.copyfile(RACY, src)
    Path(pipeline.temp_name(str(src))).write_text("half a kernel")
    pipeline.write_file(str(src), "new text\r\n")
    assert src.read_bytes() == b"new text\r\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kernel.cu"]


def test_kill_9_during_nvcc_leaves_the_folder_as_it_was(tmp_path: Path) -> None:
    user = tmp_path / "user"
    user.mkdir()
    src = user / "kernel.cu"
    shutil.copyfile(RACY, src)
    fake = tmp_path / "bin"
    fake.mkdir()
    marker = tmp_path / "nvcc.pid"
    (fake / "nvcc").write_text(f"#!/bin/sh\necho $$ > {marker}\nexec sleep 60\n")
    os.chmod(fake / "nvcc", 0o755)
    env = child_env(PATH=f"{fake}{os.pathsep}{os.environ.get('PATH', '')}")
    proc = subprocess.Popen(script("fix", src), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    nvcc_pid = None
    try:
        deadline = time.monotonic() + 120
        while not marker.exists() or not marker.read_text().strip():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "fix never reached the nvcc step"
            time.sleep(0.1)
        nvcc_pid = int(marker.read_text())
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if nvcc_pid is not None:
            try:
                os.kill(nvcc_pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    assert src.read_bytes() == RACY.read_bytes()
    assert sorted(p.name for p in user.iterdir()) == ["kernel.cu"]


# --------------------------------------------------------------------------- 4. machine-readable errors


def test_json_bad_input_is_one_document_with_the_error(tmp_path: Path) -> None:
    for command in ("check", "fix", "parse"):
        res = invoke(command, SYNTAX_ERROR, "--format", "json")
        assert res.exit_code == 2, res.output
        doc = json.loads(res.stdout)  # exactly one document
        error = doc["error"]
        assert error["exit"] == 2 and error["file"] == str(SYNTAX_ERROR)
        assert isinstance(error["line"], int) and error["line"] > 0 and error["message"]
        assert len(res.stderr.strip().splitlines()) == 1
    res = invoke("check", CLEAN, "--blockDim", "zero", "--format", "json")
    assert res.exit_code == 2
    doc = json.loads(res.stdout)
    assert "bad --blockDim" in doc["error"]["message"] and doc["verified"] is False


def test_sarif_bad_input_is_a_tool_execution_notification() -> None:
    for command in ("check", "fix"):
        res = invoke(command, SYNTAX_ERROR, "--format", "sarif")
        assert res.exit_code == 2, res.output
        doc = json.loads(res.stdout)
        assert doc["version"] == "2.1.0"
        run = doc["runs"][0]
        assert run["results"] == []
        invocation = run["invocations"][0]
        assert invocation["executionSuccessful"] is False and invocation["exitCode"] == 2
        (note,) = invocation["toolExecutionNotifications"]
        assert note["level"] == "error" and note["message"]["text"]
        region = note["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] > 0


# --------------------------------------------------------------------------- 5. --diff / --check


def test_fix_check_for_ci(tmp_path: Path) -> None:
    src = tmp_path / "kernel.cu"
    shutil.copyfile(RACY, src)
    res = invoke("fix", "--check", src)
    assert res.exit_code == 1, res.output
    assert res.stdout.strip().splitlines() == [f"{src}: would insert 2 barriers (run 'autosync fix {src}')"]
    assert src.read_bytes() == RACY.read_bytes()
    clean = tmp_path / "clean.cu"
    shutil.copyfile(CLEAN, clean)
    res = invoke("fix", "--check", clean)
    assert res.exit_code == 0 and res.stdout.strip() == f"{clean}: verified, nothing to change"
    res = invoke("fix", "--diff", clean)
    assert res.exit_code == 0 and res.stdout == ""
    res = invoke("fix", "--diff", "--check", clean)
    assert res.exit_code == 2


# --------------------------------------------------------------------------- 6. depth, size, progress

HEADER = "//pass\n//--blockDim=64 --gridDim=1\n"


def nested_ifs(depth: int) -> str:
    body = "".join(f"  if (t > {i % 7}) {{\n" for i in range(depth))
    return (HEADER + "__global__ void k(int *out) {\n  __shared__ int s[64];\n  int t = threadIdx.x;\n"
            + body + "  s[t] = t;\n" + "  }\n" * depth + "  out[t] = s[t];\n}\n")


def deep_parens(depth: int) -> str:
    return (HEADER + "__global__ void k(int *out) {\n  int t = threadIdx.x;\n  out[t] = "
            + "(" * depth + "t" + ")" * depth + ";\n}\n")


def long_line(chars: int) -> str:
    terms = " + ".join(f"out[{i % 50}]" for i in range(chars // 12))
    return HEADER + "__global__ void k(int *out) {\n  int t = threadIdx.x;\n  int x = " + terms + ";\n  out[t] = x;\n}\n"


def many_lines(lines: int) -> str:
    body = "".join(f"  x = x + {i % 13};\n" for i in range(lines))
    return (HEADER + "__global__ void k(int *out) {\n  __shared__ int s[64];\n  int t = threadIdx.x;\n  int x = 0;\n"
            + body + "  s[t] = x;\n  out[t] = s[t];\n}\n")


@pytest.mark.parametrize("name,text", [("if200", nested_ifs(200)), ("if500", nested_ifs(500)),
                                       ("paren3000", deep_parens(3000))], ids=["if200", "if500", "paren3000"])
def test_deep_nesting_is_analysed(name: str, text: str, tmp_path: Path) -> None:
    """These died with RecursionError (exit 3, internal error) before the guarded worker."""
    src = tmp_path / f"{name}.cu"
    src.write_text(text)
    res = invoke("check", src)
    assert res.exit_code == 0, res.output
    assert res.stdout.strip().splitlines() == [res.stdout.strip()] and "verified" in res.stdout


@pytest.mark.parametrize("command", ["check", "compare", "parse"])
def test_nesting_beyond_the_bound_is_one_line_refusal(command: str, tmp_path: Path) -> None:
    """The explicit bound: past clang's bracket depth (``-fbracket-depth``, set by
    :data:`kpl.frontend.clang.BRACKET_DEPTH`, far below the depth where clang's own stack
    overflows), every command refuses with clang's one line (exit 2) at the first bracket too
    deep -- never a crash of clang, a RecursionError or an internal error (``compare`` ran
    outside the worker before).  A RecursionError left in the translator still becomes the
    ``nesting deeper than the analyser supports`` line (test_guarded_run_maps_recursion_to_unsupported)."""
    from kpl.frontend.clang import BRACKET_DEPTH

    src = tmp_path / "parens.cu"
    src.write_text(deep_parens(20_000))
    res = invoke(command, src)
    assert res.exit_code == 2, res.output
    # line 5 is "  out[t] = (((...": the first '(' is column 12, the one too deep BRACKET_DEPTH further
    assert res.stderr.strip().splitlines() == [
        f"{src}:5:{12 + BRACKET_DEPTH}: error: bracket nesting level exceeded maximum of {BRACKET_DEPTH}"]
    assert res.stdout == ""


@pytest.mark.parametrize("name,text", [("long_line", long_line(100_000)), ("lines20k", many_lines(20_000))],
                         ids=["long_line", "lines20k"])
def test_big_inputs_are_analysed_or_time_out_cleanly(name: str, text: str, tmp_path: Path) -> None:
    """The console script, as a user runs it: it stops at ``--timeout`` even inside the front
    end (in-process, a cancelled front end is waited for: 90 s for the 20,000 lines here)."""
    src = tmp_path / f"{name}.cu"
    src.write_text(text)
    start = time.monotonic()
    res = subprocess.run(script("check", "--timeout", "5", src), capture_output=True, text=True, timeout=120,
                         env=child_env())
    assert res.returncode in (0, 1, 3), (res.stdout, res.stderr)
    if res.returncode == 3:
        assert res.stderr.strip().splitlines() == [f"{src}: error: timeout: no result within 5 s"]
    else:
        assert res.stderr == "" and "kernel 'k'" in res.stdout
    assert time.monotonic() - start < 30


def test_progress_line_on_a_terminal_only(tmp_path: Path) -> None:
    import pty

    src = tmp_path / "slow.cu"
    src.write_text(slow_kernel(4))
    master, slave = pty.openpty()
    try:
        proc = subprocess.run(script("check", "--timeout", "5", src), stdout=subprocess.PIPE, stderr=slave,
                              timeout=120, env=child_env())
        os.close(slave)
        chunks = []
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(master)
    tty = b"".join(chunks).decode()
    assert proc.returncode == 1  # the time budget's "unknown" (issue 35)
    assert "\r\x1b[Kautosync: slow (1/1): 0 oracle calls, 2." in tty  # overwritten in place
    # cleared at the end (the verdict is on stdout)
    assert tty.endswith("\r\x1b[K")
    # not a terminal: no progress line at all
    piped = subprocess.run(script("check", "--timeout", "5", src), capture_output=True, text=True, timeout=120,
                           env=child_env())
    assert piped.returncode == 1 and "oracle calls" not in piped.stderr and "\r" not in piped.stderr


def test_progress_line_names_kernel_iteration_and_oracle_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the terminal shows during a ``fix`` (the pty test above shows it appears at all):
    the kernel and its place in the file, the CEGIS iteration under way once one has ended,
    the oracle calls so far; nothing in the first 2 s; cleared at the end."""
    import io

    from autosync.commands import cli_common

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    token = pipeline.CancelToken(kernel="reduce", index=2, total=3, oracle_calls=7, iteration=1)
    cli_common.progress_line(token, 1.5)
    assert screen.getvalue() == ""
    cli_common.progress_line(token, 2.25)
    assert screen.getvalue() == "\r\x1b[Kautosync: reduce (2/3): iteration 2, 7 oracle calls, 2.2 s"
    cli_common.progress_line(None, 3.0)
    assert screen.getvalue().endswith("2.2 s\r\x1b[K")
    screen.truncate(0)
    screen.seek(0)
    monkeypatch.setattr(Terminal, "isatty", lambda self: False)
    cli_common.progress_line(token, 5.0)
    assert screen.getvalue() == ""


# --------------------------------------------------------------------------- 7. duplicates, launch limits, counts

TWICE = """\
//pass
//--blockDim=64 --gridDim=1
__global__ void k(int *out) { out[threadIdx.x] = 1; }

__global__ void k(float *out) { out[threadIdx.x] = 2.0f; }
"""


def test_two_kernels_of_one_name_are_an_error(tmp_path: Path) -> None:
    src = tmp_path / "twice.cu"
    src.write_text(TWICE)
    for command in ("parse", "check", "fix"):
        res = invoke(command, src)
        assert res.exit_code == 2, res.output
        assert res.stderr.strip().splitlines() == [f"{src}:5:17: error: kernel 'k' defined twice"]


@pytest.mark.parametrize("header,flags,message", [
    # a 2-D or 3-D block races in this kernel, which reads threadIdx.x only: exit 1 then
    ("//--blockDim=[64,32] --gridDim=1", [], ":2:5: note: blockDim [64, 32, 1] has 2048 threads, past CUDA's "
                                            "limit of 1024 threads a block: analysed as written, as GPUVerify does"),
    ("//--blockDim=[1,1,128] --gridDim=1", [], ":2:5: note: blockDim [1, 1, 128] exceeds CUDA's limits "
                                              "(x, y <= 1024, z <= 64)"),
    ("//--blockDim=64 --gridDim=[1,70000]", [], ":2:19: note: gridDim [1, 70000, 1] exceeds"),
    ("//--blockDim=64 --gridDim=1", ["--blockDim", "2048"], ": warning: blockDim [2048, 1, 1] has 2048 threads"),
])
def test_launch_over_cuda_limits_is_analysed_as_written(header: str, flags: list[str], message: str,
                                                        tmp_path: Path) -> None:
    """A launch past CUDA's limits is analysed as written (issue 34; it was refused before):
    a note in a file with GPUVerify's flags line, a warning for a command-line flag."""
    src = tmp_path / "k.cu"
    lines = CLEAN.read_text().split("\n")
    assert lines[1].startswith("//--blockDim=")
    src.write_text("\n".join([lines[0], header, *lines[2:]]))
    res = invoke("check", src, *flags)
    assert res.exit_code == (1 if "[64,32]" in header or "128]" in header else 0), res.output
    (line,) = res.stderr.strip().splitlines()
    assert line.startswith(f"{src}{message}"), line


def test_fix_report_counts_the_barriers_written(tmp_path: Path) -> None:
    src = tmp_path / "kernel.cu"
    shutil.copyfile(RACY, src)
    res = invoke("fix", src)
    assert res.exit_code == 0, res.output
    written = src.read_text().count("__syncthreads()") - RACY.read_text().count("__syncthreads()")
    assert f"{written} barriers inserted" in res.stdout
    assert res.stdout.count(": __syncthreads() (cost") == written


# --------------------------------------------------------------------------- 8. barriers in macros

#: the placement needs a barrier between two statements of the macro's body
MACRO_INSIDE = """\
//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
#define EXCHANGE(a, b) { s[tid] = a; __syncthreads(); b = s[63 - tid]; s[tid] = b + 1; }

__global__ void exch(int *out) {
  __shared__ int s[64];
  int tid = threadIdx.x;
  int x = out[tid], y = 0;
  EXCHANGE(x, y);
  out[tid] = x + y;
}
"""

#: the brief's macro: the barrier in its body is kept, the one missing goes in the user's text
MACRO_SWAP = """\
//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
#define SYNC_AND_SWAP(a, b) { __syncthreads(); t = a; a = b; b = t; }

__global__ void swapper(int *out) {
  __shared__ int s[64];
  int tid = threadIdx.x;
  int x = out[tid], y = 0, t;
  for (int i = 0; i < 4; i++) {
    s[tid] = x;
    y = s[63 - tid];
    SYNC_AND_SWAP(x, y);
  }
  out[tid] = x;
}
"""


def test_fix_refuses_to_patch_inside_a_macro_expansion(tmp_path: Path) -> None:
    """Before: exit 3 "the patched kernel does not verify" (the barrier landed after the use)."""
    src = tmp_path / "macro.cu"
    src.write_text(MACRO_INSIDE)
    res = invoke("fix", src)
    assert res.exit_code == 1, res.output
    # the statements of the expansion have no place of their own in the text, so synthesis
    # finds no position for the barrier and the refusal names the macro's use and definition
    assert (f"{src}:9:3: the race is inside the expansion of macro 'EXCHANGE' (defined at {src}:3), "
            "where no barrier can be inserted" in res.stdout)
    assert src.read_text() == MACRO_INSIDE
    doc = json.loads(invoke("fix", src, "--format", "json").stdout)
    assert doc["status"] == "unfixable" and "macro 'EXCHANGE'" in doc["reason"]


def test_fix_names_a_macro_defined_in_an_included_header(tmp_path: Path) -> None:
    """The same macro, defined in a header: the refusal names the use in the kernel and the
    header's line of the definition (before: exit 3 "the patched kernel does not verify")."""
    header = tmp_path / "inc" / "exchange.h"
    header.parent.mkdir()
    definition = MACRO_INSIDE.splitlines()[2]
    header.write_text("// exchange helpers\n\n" + definition + "\n")
    src = tmp_path / "macro.cu"
    text = MACRO_INSIDE.replace(definition, '#include "inc/exchange.h"')
    src.write_text(text)
    res = invoke("fix", src)
    assert res.exit_code == 1, res.output
    assert (f"{src}:9:3: the race is inside the expansion of macro 'EXCHANGE' "
            f"(defined at {tmp_path / 'inc' / 'exchange.h'}:3)") in res.stdout
    assert src.read_text() == text and header.read_text().endswith(definition + "\n")
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["exchange.h", "inc", "macro.cu"]
    doc = json.loads(invoke("fix", src, "--format", "json").stdout)
    assert doc["status"] == "unfixable" and "exchange.h:3" in doc["reason"]


def test_fix_around_a_macro_with_a_barrier(tmp_path: Path) -> None:
    src = tmp_path / "swap.cu"
    src.write_text(MACRO_SWAP)
    res = invoke("fix", src)
    assert res.exit_code == 0, res.output
    assert src.read_text() == MACRO_SWAP.replace("    s[tid] = x;\n", "    s[tid] = x;\n    __syncthreads();\n")
    assert "1 barrier inserted" in res.stdout


# --------------------------------------------------------------------------- fuzzer findings

KR_PARAMS = """//pass
//--blockDim=32 --gridDim=1
__global__ void k(out, n)
  int *out; int n;
{
  out[threadIdx.x] = n;
}
"""

UNBALANCED = """//pass
//--blockDim=32 --gridDim=1
__global__ void k(int *out) {
  if (threadIdx.x < 4) {
    out[threadIdx.x] = 1;
  }}
  }
}
"""


FLOAT_BITWISE = """//pass
//--blockDim=32 --gridDim=1
__global__ void k(int *out) {
  int it = threadIdx.x;
  out[it] = EXPR;
}
"""


SHARED_ARRAY = """//pass
//--blockDim=32 --gridDim=1
__global__ void k(float *out) {
  __shared__ float s[SIZE];
  s[threadIdx.x] = 1;
  __syncthreads();
  out[threadIdx.x] = s[31 - threadIdx.x];
}
"""


@pytest.mark.parametrize("text, message", [
    # at the declaration of the biggest array (its first column); the file has GPUVerify's
    # flags line: its convention, a note (issue 34; these were refusals before)
    (SHARED_ARRAY.replace("SIZE", "2147483647"),
     ":4:3: note: 8589934588 bytes of static __shared__ memory, past CUDA's limit of 49152"),
    (SHARED_ARRAY.replace("SIZE", "12289"), ":4:3: note: 49156 bytes of static __shared__ memory"),
    (SHARED_ARRAY.replace("SIZE", "4096").replace("s[threadIdx.x] = 1;", "s[threadIdx.x] = g[0];")
     .replace("__global__", "__shared__ float g[8193];\n__global__"),
     ":3:1: note: 49156 bytes of static __shared__ memory"),
], ids=["int_max_size", "over_48k", "over_48k_with_file_scope"])
def test_static_shared_memory_over_48_kb_is_analysed_as_written(tmp_path: Path, text: str,
                                                                message: str) -> None:
    """Past nvcc's 48 KB, a fuzzer's mutant included (2^31 floats), static __shared__ memory
    is analysed as written and said once; the verdict is the kernel's own."""
    src = tmp_path / "k.cu"
    src.write_text(text)
    res = invoke("check", src)
    assert res.exit_code == 0, res.output
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"{src}{message}"), res.output


def test_static_shared_memory_up_to_48_kb_is_accepted(tmp_path: Path) -> None:
    """The limit counts the arrays a kernel uses: 48 KB exactly passes, an unused array does
    not count (ptxas drops it), and dynamic ``extern __shared__`` memory is not static."""
    src = tmp_path / "k.cu"
    for text in (SHARED_ARRAY.replace("SIZE", "12288"),
                 SHARED_ARRAY.replace("SIZE", "64").replace(
                     "__global__", "__shared__ float unused[65536];\n__global__"),
                 SHARED_ARRAY.replace("__shared__ float s[SIZE];", "extern __shared__ float s[];")):
        src.write_text(text)
        res = invoke("check", src)
        assert res.exit_code == 0, res.output


@pytest.mark.parametrize("text, message", [
    # clang's messages, at clang's places (C++ has no K&R lists: 'out' is read as a type name)
    (KR_PARAMS, ":3:19: error: unknown type name 'out'"),
    (UNBALANCED, ":7:3: error: extraneous closing brace ('}')"),
    (FLOAT_BITWISE.replace("EXPR", "it & 1e30"), ":5:16: error: invalid operands to binary expression ('int' and 'double')"),
    (FLOAT_BITWISE.replace("EXPR", "2.5f % it"), ":5:18: error: invalid operands to binary expression ('float' and 'int')"),
    (FLOAT_BITWISE.replace("EXPR", "it << 1.0"), ":5:16: error: invalid operands to binary expression ('int' and 'double')"),
    (FLOAT_BITWISE.replace("EXPR", "~1.0f"), ":5:13: error: invalid argument type 'float' to unary expression"),
    (FLOAT_BITWISE.replace("out[it] = EXPR", "out[it] ^= 0.5"),
     ":5:11: error: invalid operands to binary expression ('int' and 'double')"),
    (SHARED_ARRAY.replace("SIZE", "-4"), ":4:22: error: 's' declared as an array with a negative size"),
], ids=["k_and_r", "unbalanced_braces", "float_and", "float_mod", "float_shift", "float_not",
        "float_xor_assign", "negative_size"])
def test_fuzzer_findings_are_one_line_bad_input(tmp_path: Path, text: str, message: str) -> None:
    """Mutants the fuzzer found crashing the old front end (exit 3: AttributeError on K&R
    parameter lists, pycparser's AssertionError on unbalanced braces) are bad input: one line
    ``file:line:col: error: …``, exit 2, the file untouched.  A stray ``}`` after the kernel is
    at file scope, not in host code: braces that do not balance stop the file."""
    src = tmp_path / "k.cu"
    src.write_text(text)
    res = invoke("check", src)
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"{src}{message}"), res.output
    assert src.read_text() == text


LATIN1_LAUNCH = b"""//--blockDim=64 --gridDim=1
__global__ void k(int *v) {
  __shared__ int s[64];
  s[threadIdx.x] = v[threadIdx.x];
  v[threadIdx.x] = s[63 - threadIdx.x];
}

void run(int *d) { k<<<1, 6\xe94>>>(d); }
"""


def test_a_byte_that_is_not_utf8_in_a_launch_is_not_an_internal_error(tmp_path: Path) -> None:
    """A fuzzer finding: a Latin-1 byte inside a host launch's ``<<<...>>>`` reached Python's
    expression parser as a lone surrogate (UnicodeEncodeError, exit 3).  The launch is not a
    constant, so the header's sizes are used and the race is found."""
    src = tmp_path / "k.cu"
    src.write_bytes(LATIN1_LAUNCH)
    res = invoke("check", src)
    assert res.exit_code == 1, res.output
    assert "race on 's'" in res.output and "internal error" not in res.output


def test_output_into_a_named_pipe_writes_into_it_and_leaves_it_a_pipe(tmp_path: Path) -> None:
    """``-o /dev/null`` (or a pipe) is written into: replacing it atomically, as a regular
    file is, would put a plain file where the device was."""
    import threading

    fifo = tmp_path / "out.pipe"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    pipeline_io.write_file(str(fifo), "patched\n")
    reader.join(timeout=10)
    assert got == ["patched\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert not list(tmp_path.glob(".*autosync-tmp"))
