"""Tests of the ``autosync`` command line: in-process (typer's CliRunner) and through the
installed console script (subprocess), as a user runs it.

Commands that need the oracle run with ``sdv`` (the default, the bundled static verifier);
the basic check/fix cases also with ``dynamic`` (the concrete-execution checker), since the
CLI must work with any oracle.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from autosync.commands import cli_common
from autosync.commands.cli import app
from autosync.pipeline import core as pipeline

ROOT = Path(__file__).resolve().parent.parent
RACY = ROOT / "microbench" / "2-2-loop-both.cu"
CLEAN = ROOT / "microbench" / "expected" / "2-2-loop-both.cu"
TWO_KERNELS = ROOT / "tests" / "kernels" / "two_kernels.cu"
SYNTAX_ERROR = ROOT / "tests" / "kernels" / "bad" / "syntax_error.cu"

ERROR_LINE = re.compile(r"^\S+:\d+:\d+: error: .+$")

SELF_RACE = """\
//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
__global__ void self_race(int *out) {
  __shared__ int s[64];
  s[0] = threadIdx.x;
  out[threadIdx.x] = s[0];
}
"""

# the cheapest barrier (C = IC = 0.5) is inside the unbraced `if` body: braces must be added
UNBRACED = """\
//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
__global__ void unbraced(int *out) {
  __shared__ int s[64];
  int tid = threadIdx.x;
  if (tid < 64)
    s[tid] = out[tid];   // load
  out[tid] = s[63 - tid];
}
"""

TWO_RACY = """\
//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
/* two kernels, each missing one barrier */
__global__ void first(int *out) {
  __shared__ int s[64];
  s[threadIdx.x] = out[threadIdx.x];
  out[threadIdx.x] = s[63 - threadIdx.x];
}

__global__ void second(int *out) {
  __shared__ int t[64];
  t[threadIdx.x] = 2 * out[threadIdx.x];

  out[threadIdx.x] = t[(threadIdx.x + 1) % 64];
}
"""

SYNTAX_ERROR_TEXT = """\
//pass
//--blockDim=64 --gridDim=1
__global__ void broken(int *data) {
  __shared__ int s[64];
  s[threadIdx.x] = data[threadIdx.x;
}
"""

ORACLES = ["sdv", "dynamic"]


def need_oracle(name: str) -> list[str]:
    """The CLI arguments selecting oracle ``name``."""
    return [] if name == "sdv" else ["--oracle", name]


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args])


def copy(tmp_path: Path, src: Path | str, name: str = "kernel.cu") -> Path:
    dst = tmp_path / name
    if isinstance(src, Path):
        shutil.copyfile(src, dst)
    else:
        dst.write_text(src)
    return dst


def syntax_error_file(tmp_path: Path) -> Path:
    return SYNTAX_ERROR if SYNTAX_ERROR.exists() else copy(tmp_path, SYNTAX_ERROR_TEXT, "bad.cu")


# --------------------------------------------------------------------------- basics, parse


def test_version_and_help() -> None:
    res = invoke("--version")
    assert res.exit_code == 0
    assert res.stdout.strip() == f"autosync {cli_common.version()}"
    res = invoke("--help")
    assert res.exit_code == 0
    for command in ("parse", "check", "fix"):
        assert command in res.stdout


def test_parse_prints_label_tree_with_names_kinds_and_source_lines() -> None:
    res = invoke("parse", RACY)
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0].startswith("kernel loop_both_kernel")
    assert re.match(r"^main\s+main\*?\s+4: __global__ void loop_both_kernel", lines[1])
    loop = next(ln for ln in lines if re.match(r"^  8:12\s", ln))
    assert "loop" in loop and "for (int i = 0; i < n; i++) {" in loop
    # statements of the loop body are indented one level deeper than the loop
    body = next(ln for ln in lines if "x = A[tid+1];" in ln)
    assert re.match(r"^    9\s+leaf\s+9: x = A\[tid\+1\];$", body)
    assert any(re.match(r"^    8:12_s\s+start", ln) for ln in lines)


def test_parse_json_has_the_tree_as_data() -> None:
    res = invoke("parse", RACY, "--format", "json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["file"] == str(RACY) and doc["kernel"] == "loop_both_kernel"
    labels = {lab["name"]: lab for lab in doc["labels"] if lab["kind"] != "leaf" or lab["placeable"]}
    for key in ("label", "name", "kind", "line", "parent", "children", "loops", "conds", "placeable", "order"):
        assert key in doc["labels"][0]
    loop, read = labels["8:12"], labels["9"]
    assert loop["kind"] == "loop" and read["loops"] == [loop["label"]]
    assert read["parent"] == loop["label"] and read["label"] in loop["children"]
    assert labels["8:12_s"]["label"] == loop["children"][0]
    main = labels["main"]
    assert main["parent"] is None and not main["placeable"]
    assert main["order"] == max(lab["order"] for lab in doc["labels"])  # post-order: root last
    assert read["order"] < loop["order"]


def test_parse_several_kernels_and_kernel_selection() -> None:
    res = invoke("parse", TWO_KERNELS)
    assert res.exit_code == 0, res.output
    assert "kernel scale" in res.stdout and "kernel offset" in res.stdout
    res = invoke("parse", TWO_KERNELS, "--kernel", "offset", "--format", "json")
    assert res.exit_code == 0
    doc = json.loads(res.stdout)
    assert [k["name"] for k in doc["kernels"]] == ["offset"]
    res = invoke("parse", TWO_KERNELS, "--kernel", "nope")
    assert res.exit_code == 2
    err = res.stderr.strip().splitlines()
    assert len(err) == 1 and "error:" in err[0] and "scale" in err[0] and "offset" in err[0]


def test_launch_overrides_are_applied_and_bad_ones_rejected() -> None:
    res = invoke("parse", RACY, "--format", "json", "--blockDim", "[16,8]", "--gridDim", "4,2",
                 "--warp-sync", "32")
    assert res.exit_code == 0, res.output
    launch = json.loads(res.stdout)["kernels"][0]["launch"]
    assert launch == {"block_dim": [16, 8, 1], "grid_dim": [4, 2, 1], "warp_sync": 32}
    res = invoke("parse", RACY, "--format", "json", "--blockDim", "128")
    assert json.loads(res.stdout)["kernels"][0]["launch"]["block_dim"] == [128, 1, 1]
    for bad in (["--blockDim", "abc"], ["--gridDim", "[0,1]"], ["-D", "1X=2"]):
        res = invoke("parse", RACY, *bad)
        assert res.exit_code == 2, bad
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and "error:" in lines[0] and "Traceback" not in res.output


def test_bad_input_is_one_located_line_and_exit_2(tmp_path: Path) -> None:
    bad = syntax_error_file(tmp_path)
    for command in ("parse", "check", "fix"):
        res = invoke(command, bad)
        assert res.exit_code == 2, (command, res.output)
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and ERROR_LINE.match(lines[0]), lines
        assert lines[0].startswith(f"{bad}:")
        assert "Traceback" not in res.output
    res = invoke("check", tmp_path / "missing.cu")
    assert res.exit_code == 2 and len(res.stderr.strip().splitlines()) == 1
    assert "error:" in res.stderr


def test_unknown_oracle_and_target_are_usage_errors() -> None:
    res = invoke("check", CLEAN, "--oracle", "nosuch")
    assert res.exit_code == 2
    assert res.stderr.strip().splitlines() == [res.stderr.strip()] and "unknown oracle 'nosuch'" in res.stderr
    res = invoke("fix", CLEAN, "--target", "metal")
    assert res.exit_code == 2 and "unknown target" in res.stderr
    res = invoke("check", CLEAN, "--format", "xml")  # typer's own usage error
    assert res.exit_code == 2


def test_internal_error_is_one_line_exit_3_and_debug_shows_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("synthetic failure")

    monkeypatch.setattr(pipeline, "load", boom)
    res = invoke("check", CLEAN)
    assert res.exit_code == 3
    assert res.stderr.strip().splitlines() == [
        f"{CLEAN}: internal error: RuntimeError: synthetic failure (rerun with --debug for a traceback)"]
    res = invoke("--debug", "check", CLEAN)
    assert res.exit_code == 3 and "Traceback" in res.stderr


def test_deadline_raises_timeout_and_guard_maps_it_to_exit_3() -> None:
    import typer

    start = time.perf_counter()
    def slow() -> None:  # a worker that stops at its next check once cancelled, as the oracle's
        token = pipeline.current_token()
        assert token is not None
        for _ in range(200):
            token.check()
            time.sleep(0.01)

    with pytest.raises(pipeline.Timeout):
        pipeline.run_guarded(slow, timeout=0.05)  # the one guard of every command
    assert time.perf_counter() - start < 1.5
    with pytest.raises(typer.Exit) as info:
        with cli_common.guard("k.cu"):
            raise pipeline.Timeout("no result within 1 s")
    assert info.value.exit_code == 3


# --------------------------------------------------------------------------- check


@pytest.mark.parametrize("oracle", ORACLES)
def test_check_racy_and_clean_microbench(oracle: str) -> None:
    args = need_oracle(oracle)
    res = invoke("check", RACY, *args)
    assert res.exit_code == 1, res.output
    pattern = (rf"^{re.escape(str(RACY))}:11:5: error: possible read-write race on 'A' with "
               rf"{re.escape(str(RACY))}:9:5\b.*\(threads \d+ and \d+ of block 0, index \d+; "
               r"launch <<<1, 64>>> when n = -?\d+\)$")  # the witness replays (issue 27, item 4)
    assert any(re.match(pattern, ln) for ln in res.stdout.splitlines()), res.stdout
    assert "verified" not in res.stdout.splitlines()[-1]
    res = invoke("check", CLEAN, *args)
    assert res.exit_code == 0, res.output
    assert res.stdout.strip().splitlines()[-1].startswith(f"{CLEAN}: kernel 'loop_both_kernel': verified")


@pytest.mark.parametrize("oracle", ORACLES)
def test_check_json_and_sarif(oracle: str) -> None:
    args = need_oracle(oracle)
    res = invoke("check", RACY, "--format", "json", *args)
    assert res.exit_code == 1
    doc = json.loads(res.stdout)
    for key in ("file", "kernel", "kernels", "oracle", "verified", "races", "divergences", "unknowns",
                "findings", "queries", "seconds"):
        assert key in doc, key
    assert doc["verified"] is False and doc["oracle"] == oracle and doc["races"]
    race = doc["races"][0]
    assert (race["first"]["line"], race["first"]["column"]) == (9, 5)
    assert (race["second"]["line"], race["second"]["column"]) == (11, 5)
    assert race["array"] == "A" and race["kind"] == "read-write" and race["space"] == "shared"
    assert race["witness"] is None or set(race["witness"]) >= {"thread1", "thread2", "index"}
    res = invoke("check", RACY, "--format", "sarif", *args)
    assert res.exit_code == 1
    sarif = json.loads(res.stdout)
    assert sarif["version"] == "2.1.0" and "$schema" in sarif
    run = sarif["runs"][0]
    assert run["tool"]["driver"]["name"] == "autosync"
    assert {r["id"] for r in run["tool"]["driver"]["rules"]} >= {"race", "divergence"}
    result = run["results"][0]
    assert result["ruleId"] == "race" and result["level"] == "error"
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 11
    assert result["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == 9
    clean = json.loads(invoke("check", CLEAN, "--format", "json", *args).stdout)
    assert clean["verified"] is True and clean["races"] == []


@pytest.mark.parametrize("oracle", ORACLES)
def test_check_divergent_barrier(oracle: str, tmp_path: Path) -> None:
    args = need_oracle(oracle)
    src = copy(tmp_path, """\
//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
__global__ void diverge(int *out) {
  __shared__ int s[64];
  s[threadIdx.x] = out[threadIdx.x];
  if (threadIdx.x < 32) {
    __syncthreads();
  }
  out[threadIdx.x] = s[threadIdx.x];
}
""")
    res = invoke("check", src, *args)
    assert res.exit_code == 1
    assert f"{src}:7:5: error: barrier may be reached by non-uniform control flow" in res.stdout


# --------------------------------------------------------------------------- fix


@pytest.mark.parametrize("oracle", ["sdv"])
def test_fix_diff_writes_nothing(oracle: str, tmp_path: Path) -> None:
    args = need_oracle(oracle)
    src = copy(tmp_path, RACY)
    before = src.read_bytes()
    res = invoke("fix", "--diff", src, *args)
    assert res.exit_code == 1, res.output  # the file would change (as ruff --diff)
    assert src.read_bytes() == before
    assert res.stdout.count("+    __syncthreads();") == 2
    assert res.stdout.startswith("--- a/")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kernel.cu"]  # no temp files left


@pytest.mark.parametrize("oracle", ORACLES)
def test_fix_in_place_then_check_verifies(oracle: str, tmp_path: Path) -> None:
    args = need_oracle(oracle)
    src = copy(tmp_path, RACY)
    os.chmod(src, 0o640)
    res = invoke("fix", src, *args)
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert re.search(r"\d+ races? found", out)
    assert re.search(r"fixed in \d+ iterations?, \d+ oracle calls?", out)
    assert f"{src}:9: __syncthreads() (cost 100)" in out
    assert f"{src}:12: __syncthreads() (cost 100)" in out
    assert "total cost 200" in out and f"wrote {src}" in out
    # the patched file is the reference solution, header line aside
    expected = CLEAN.read_text().splitlines(keepends=True)[1:]
    assert src.read_text().splitlines(keepends=True)[1:] == expected
    assert stat.S_IMODE(os.stat(src).st_mode) == 0o640
    res = invoke("check", src, *args)
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize("oracle", ["sdv"])
def test_fix_already_verified_leaves_bytes_identical(oracle: str, tmp_path: Path) -> None:
    args = need_oracle(oracle)
    src = copy(tmp_path, CLEAN)
    before, mtime = src.read_bytes(), os.stat(src).st_mtime_ns
    res = invoke("fix", src, *args)
    assert res.exit_code == 0, res.output
    assert "already verified" in res.stdout
    assert src.read_bytes() == before and os.stat(src).st_mtime_ns == mtime


@pytest.mark.parametrize("oracle", ORACLES)
def test_fix_unfixable_self_race_exits_1_untouched(oracle: str, tmp_path: Path) -> None:
    args = need_oracle(oracle)
    src = copy(tmp_path, SELF_RACE)
    res = invoke("fix", src, *args)
    assert res.exit_code == 1, res.output
    assert src.read_text() == SELF_RACE
    assert "cannot fix" in res.stdout and "self-race" in res.stdout and "line 5" in res.stdout
    doc = json.loads(invoke("fix", src, "--format", "json", *args).stdout)
    assert doc["status"] == "unfixable" and "line 5" in doc["reason"]
    assert src.read_text() == SELF_RACE


@pytest.mark.parametrize("oracle", ["sdv"])
def test_fix_json_and_sarif(oracle: str, tmp_path: Path) -> None:
    args = need_oracle(oracle)
    src = copy(tmp_path, RACY)
    res = invoke("fix", src, "--format", "json", "--diff", *args)
    assert res.exit_code == 1, res.output  # --diff: the file would change
    doc = json.loads(res.stdout)
    for key in ("status", "races", "divergences", "barriers", "cost", "oracle_calls", "iterations",
                "seconds", "solver", "oracle"):
        assert key in doc, key
    assert doc["status"] == "fixed" and doc["solver"] == "rc2" and doc["oracle"] == oracle
    assert doc["cost"] == 200 and doc["oracle_calls"] >= 2
    assert [(b["line"], b["cost"]) for b in doc["barriers"]] == [(9, 100), (12, 100)]
    race = doc["races"][0]
    assert {"line", "column"} <= set(race["first"]) and race["array"] == "A" and race["kind"]
    assert doc["written"] is None and "+    __syncthreads();" in doc["diff"]
    assert src.read_bytes() == RACY.read_bytes()
    res = invoke("fix", src, "--format", "sarif", "--diff", *args)
    sarif = json.loads(res.stdout)
    assert sarif["version"] == "2.1.0"
    result = sarif["runs"][0]["results"][0]
    assert result["ruleId"] == "race"
    replacements = result["fixes"][0]["artifactChanges"][0]["replacements"]
    assert [r["insertedContent"]["text"].strip() for r in replacements] == ["__syncthreads();"] * 2
    # applying the SARIF replacements to the original gives the patched text
    text = RACY.read_text()
    for rep in sorted(replacements, key=lambda r: -r["deletedRegion"]["charOffset"]):
        off = rep["deletedRegion"]["charOffset"]
        text = text[:off] + rep["insertedContent"]["text"] + text[off + rep["deletedRegion"]["charLength"]:]
    assert text.splitlines()[1:] == CLEAN.read_text().splitlines()[1:]
    verified = json.loads(invoke("fix", CLEAN, "--format", "json", *args).stdout)
    assert verified["status"] == "verified" and verified["barriers"] == []


@pytest.mark.parametrize("oracle", ["sdv"])
def test_fix_output_file_and_opencl_target(oracle: str, tmp_path: Path) -> None:
    args = need_oracle(oracle)
    src = copy(tmp_path, RACY)
    out = tmp_path / "fixed.cu"
    res = invoke("fix", src, "-o", out, *args)
    assert res.exit_code == 0, res.output
    assert src.read_bytes() == RACY.read_bytes()
    assert out.read_text().count("__syncthreads();") == 2
    res = invoke("fix", src, "--target", "opencl", "--diff", *args)
    assert res.exit_code == 1, res.output  # --diff: the file would change
    assert res.stdout.count("+    barrier(CLK_LOCAL_MEM_FENCE);") == 2


@pytest.mark.parametrize("oracle", ORACLES)
def test_fix_adds_braces_to_unbraced_body(oracle: str, tmp_path: Path) -> None:
    args = need_oracle(oracle)
    src = copy(tmp_path, UNBRACED)
    # the paper's cost model (facts off): with the uniform-guard fact, `tid < 64` is proved true
    # for all 64 threads and the barrier inside costs as much as one after the `if`
    res = invoke("fix", src, "--oracle-facts", "off", *args)
    assert res.exit_code == 0, res.output
    text = src.read_text()
    assert "  if (tid < 64) {\n    s[tid] = out[tid];   // load\n    __syncthreads();\n  }\n" in text
    assert "(cost 0.5)" in res.stdout
    assert invoke("check", src, *args).exit_code == 0


@pytest.mark.parametrize("oracle", ["sdv"])
def test_fix_several_kernels_in_one_text(oracle: str, tmp_path: Path) -> None:
    args = need_oracle(oracle)
    src = copy(tmp_path, TWO_RACY)
    res = invoke("fix", src, "--kernel", "second", "--diff", *args)
    assert res.exit_code == 1, res.output  # --diff: the file would change
    assert res.stdout.count("+  __syncthreads();") == 1 and "first" not in res.stderr.replace("'first", "")
    res = invoke("fix", src, *args)
    assert res.exit_code == 0, res.output
    text = src.read_text()
    assert text.count("__syncthreads();") == 2
    assert "/* two kernels, each missing one barrier */" in text
    assert invoke("check", src, *args).exit_code == 0


def test_fix_that_breaks_compilation_writes_nothing_and_reports_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    need_oracle("sdv")
    monkeypatch.setattr(pipeline, "nvcc_check", lambda *a, **k: (False, "k.cu(9): error: expected a ';'"))
    src = copy(tmp_path, RACY)
    res = invoke("fix", src)
    assert res.exit_code == 3
    assert src.read_bytes() == RACY.read_bytes()
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "does not compile" in lines[0] and "internal error" in lines[0]
    res = invoke("fix", src, "--format", "json")
    assert res.exit_code == 3
    doc = json.loads(res.stdout)
    assert doc["status"] == "error" and "does not compile" in doc["reason"]
    assert src.read_bytes() == RACY.read_bytes()


def test_nvcc_check_compiles_or_says_it_was_skipped(tmp_path: Path) -> None:
    opts = pipeline.KernelOptions(str(tmp_path / "k.cu"))
    good = CLEAN.read_text()
    if shutil.which("nvcc") is None:
        assert pipeline.nvcc_check(opts, good, good) == (None, "nvcc not found: compile check skipped")
        return
    assert pipeline.nvcc_check(opts, good, good)[0] is True
    broken = good.replace("x = x+i;", "x = x+i")
    ok, note = pipeline.nvcc_check(opts, good, broken)
    assert ok is False and "error" in note
    ok, note = pipeline.nvcc_check(opts, broken, broken)
    assert ok is None and "original file does not compile either" in note
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # temp copies removed


def test_fix_reaches_min_barriers_on_every_microbench(tmp_path: Path) -> None:
    from kpl.header import parse_header

    files = sorted((ROOT / "microbench").glob("*.cu"))
    assert len(files) == 8
    for path in files:
        want = int(parse_header(path.read_text(), str(path)).expected["min_barriers"])
        src = copy(tmp_path, path, path.name)
        res = invoke("fix", src, "--format", "json")
        assert res.exit_code == 0, (path.name, res.output)
        doc = json.loads(res.stdout)
        assert doc["status"] == "fixed" and len(doc["barriers"]) == want, path.name
        assert invoke("check", src).exit_code == 0, path.name


# --------------------------------------------------------------------------- the installed executable


def exe() -> str:
    path = shutil.which("autosync")
    assert path is not None, "the console script `autosync` is not installed (pip install -e .)"
    return path


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([exe(), *map(str, args)], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, env={**os.environ, "PYTHONWARNINGS": "ignore"})


def test_executable_version_and_bad_input(tmp_path: Path) -> None:
    proc = run("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"autosync {cli_common.version()}"
    bad = syntax_error_file(tmp_path)
    proc = run("check", bad)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and ERROR_LINE.match(lines[0]) and "Traceback" not in proc.stderr
    proc = run("check", RACY, "--blockDim", "[1,x]")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    proc = run("frobnicate")
    assert proc.returncode == 2


def test_python_dash_m_runs_the_same_app() -> None:
    proc = subprocess.run([sys.executable, "-m", "autosync", "--version"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == f"autosync {cli_common.version()}"


@pytest.mark.parametrize("oracle", ["sdv"])
def test_executable_check_fix_round(oracle: str, tmp_path: Path) -> None:
    args = need_oracle(oracle)
    proc = run("check", RACY, *args)
    assert proc.returncode == 1 and f"{RACY}:11:5: error: possible read-write race on 'A'" in proc.stdout
    assert run("check", CLEAN, *args).returncode == 0
    src = copy(tmp_path, RACY)
    proc = run("fix", "--diff", src, *args)
    assert proc.returncode == 1 and src.read_bytes() == RACY.read_bytes()
    assert "+    __syncthreads();" in proc.stdout
    proc = run("fix", src, *args)
    assert proc.returncode == 0, proc.stderr
    assert run("check", src, *args).returncode == 0
    again = src.read_bytes()
    proc = run("fix", src, *args)
    assert proc.returncode == 0 and "already verified" in proc.stdout and src.read_bytes() == again
    unfixable = copy(tmp_path, SELF_RACE, "self.cu")
    proc = run("fix", unfixable, *args)
    assert proc.returncode == 1 and unfixable.read_text() == SELF_RACE
    doc = json.loads(run("check", RACY, "--format", "json", *args).stdout)
    assert doc["verified"] is False and doc["races"]
    doc = json.loads(run("check", RACY, "--format", "sarif", *args).stdout)
    assert doc["version"] == "2.1.0" and doc["runs"][0]["results"]


def test_fix_output_dash_prints_the_patched_text_and_writes_nothing(tmp_path: Path) -> None:
    """``-o -`` is the shell convention for stdout: the patched kernel goes to stdout, byte for
    byte, the report to stderr, and no file named '-' (or anything else) is written."""
    src = tmp_path / "k.cu"
    src.write_bytes(RACY.read_bytes())
    proc = subprocess.run([exe(), "fix", str(src), "-o", "-"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert src.read_bytes() == RACY.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.cu"]
    assert proc.stdout.count("__syncthreads();") == 2
    assert proc.stdout.replace("    __syncthreads();\n", "") == RACY.read_text()
    assert "2 barriers inserted" in proc.stderr
    bad = run("fix", RACY, "-o", "-", "--format", "json")
    assert bad.returncode == 2
