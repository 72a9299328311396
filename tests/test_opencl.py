"""OpenCL C kernels through the pipeline (issue 29): the front end (``-x cl`` with our own
declarations, :mod:`kpl.frontend.opencl`), fence semantics of ``barrier(flags)`` in the
oracles, ``fix`` choosing the cheapest fence, GPUVerify's OpenCL header forms, the command
line / JSON / SARIF / folders / language server on ``.cl`` files.  The OpenCL twins of the
micro-benchmarks and SDK kernels are compared with their CUDA kernels in
``test_opencl_twins.py``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from autosync.commands.batch import expand
from autosync.commands.cli import app
from autosync.lsp.analysis import Options, analyze, fix_text
from autosync.lsp.server import _is_kernel_file
from autosync.pipeline.core import fix_kernels
from autosync.pipeline.options import KernelOptions
from autosync.pipeline.outcome import FixOutcome
from kpl import ast as K
from kpl.errors import KplError
from kpl.frontend import load_kernels
from kpl.frontend.kernels import parse_kernel_text
from kpl.frontend.opencl_host import opencl_launches
from kpl.header import parse_header
from kpl.transform import strip_barriers
from oracle.dynamic import DynamicOracle
from oracle.sdv import SDVOracle

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "tests" / "kernels" / "opencl"
SDK = ROOT / "sdk_kernels"


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args])


def kernel_of(path: Path) -> K.Kernel:
    return load_kernels(str(path))[0]


def barriers(kernel: K.Kernel) -> list[K.Barrier]:
    return [s for s in K.walk_stmts(kernel.body) if isinstance(s, K.Barrier)]


# --------------------------------------------------------------------------- our kernels


CASES = sorted(p.name for p in KERNELS.glob("*.cl"))


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("oracle", ["sdv", "dynamic"])
def test_kernel_verdicts_follow_headers(name: str, oracle: str) -> None:
    """Each race-free kernel verifies; each racy twin (``//xfail``) has a race, with both
    oracles (the fence twins among them: a global race across a local-only barrier)."""
    kernel = kernel_of(KERNELS / name)
    verdict = (SDVOracle() if oracle == "sdv" else DynamicOracle()).check(kernel)
    if (KERNELS / name).read_text().startswith("//pass"):
        assert verdict.verified, (verdict.races, verdict.unknowns)
    else:
        assert verdict.races and not verdict.unknowns


def test_front_end_maps_opencl_onto_kpl() -> None:
    kernel = kernel_of(KERNELS / "features.cl")
    assert kernel.language == "opencl"
    assert kernel.launch.block_dim == (16, 4, 1) and kernel.launch.grid_dim == (4, 4, 1)
    spaces = {m.name: m.space for m in kernel.memories.values()}
    assert spaces["tile"] == K.Space.SHARED and spaces["hits"] == K.Space.SHARED
    assert spaces["v"] == K.Space.GLOBAL and spaces["coef"] == K.Space.CONSTANT
    fences = [b.fences for b in barriers(kernel)]  # barrier, work_group_barrier
    assert fences == [frozenset({K.Space.SHARED})] * 2
    assert sum(isinstance(s, K.WaitEvents) for s in K.walk_stmts(kernel.body)) == 1
    atomics = [x.op for s in K.walk_stmts(kernel.body) for e in _exprs(s) for x in K.walk_expr(e)
               if isinstance(x, K.Atomic)]
    assert atomics == ["atomicAdd", "atomicAdd"]  # atomic_add, atom_inc
    builtins = {(x.name, x.dim) for s in K.walk_stmts(kernel.body) for e in _exprs(s)
                for x in K.walk_expr(e) if isinstance(x, K.Builtin)}
    assert {("threadIdx", "x"), ("threadIdx", "y"), ("blockDim", "x"), ("blockIdx", "y"),
            ("gridDim", "x")} <= builtins


def test_wait_group_events_completes_only_the_copies() -> None:
    """The async copy is the one statement marked as the copy's, and the wait is no barrier
    (``fix`` must not take it for one); what it orders is in the verdicts of the twins
    ``async_wait_plain_racy.cl`` (plain accesses around it race) and ``async_refill*.cl``."""
    kernel = kernel_of(KERNELS / "async_copy.cl")
    stmts = list(K.walk_stmts(kernel.body))
    assert not barriers(kernel)
    assert sum(isinstance(s, K.WaitEvents) for s in stmts) == 1
    copies = [s for s in stmts if isinstance(s, K.Assign) and s.async_copy]
    assert len(copies) == 1 and isinstance(copies[0].target, K.MemElem)
    assert copies[0].target.mem.name == "tile"
    assert strip_barriers(kernel)[1] == []  # nothing to strip: the wait stays


@pytest.mark.parametrize("oracle", ["sdv", "dynamic"])
def test_wait_group_events_reached_by_part_of_the_group_diverges(oracle: str) -> None:
    """``wait_group_events`` is a work-group function: every work-item must reach it."""
    text = """//--local_size=64 --num_groups=2
__kernel void half_waits(__global const int *in, __global int *out) {
  __local int tile[64];
  size_t l = get_local_id(0);
  event_t e = async_work_group_copy(tile, in, 64, 0);
  if (l < 32)
    wait_group_events(1, &e);
  out[get_global_id(0)] = l;
}
"""
    kernel = parse_kernel_text(text, "half_waits.cl")
    verdict = (SDVOracle() if oracle == "sdv" else DynamicOracle()).check(kernel)
    waits = [s.label for s in K.walk_stmts(kernel.body) if isinstance(s, K.WaitEvents)]
    assert [d.label for d in verdict.divergences] == waits


@pytest.mark.parametrize("racy", [False, True])
def test_wait_group_events_in_an_abstracted_loop(racy: bool) -> None:
    """``sdv`` with a trip count it cannot unroll (the loop abstraction): each iteration's
    wait completes its own copy; without the barrier the next copy races with the reads."""
    path = KERNELS / ("async_tiles_loop_racy.cl" if racy else "async_tiles_loop.cl")
    text = path.read_text().replace(") {", ", int n) {", 1).replace("i < 4", "i < n")
    verdict = SDVOracle().check(parse_kernel_text(text, path.name))
    assert not verdict.unknowns
    if racy:
        assert verdict.races
    else:
        assert verdict.verified, verdict.races


def _exprs(s: K.Stmt) -> list[K.Expr]:
    from oracle.sdv.state import stmt_exprs

    return stmt_exprs(s)


def test_local_pointer_parameter_is_local_memory() -> None:
    kernel = kernel_of(SDK / "opencl" / "reduce0.cl")
    assert kernel.memories["sdata"].space == K.Space.SHARED
    assert kernel.memories["g_idata"].space == K.Space.GLOBAL


def test_swizzles_and_vector_literals() -> None:
    """``.lo``, ``.zw``, ``.s3`` and ``(float4)(lo, a.zw)`` read the components they name: the
    kernel below is race-free only if ``b.y`` is ``a.y`` (the twin swaps the index)."""
    text = ("//--local_size=64 --num_groups=1\n"
            "__kernel void k(__global int *o, __local int *s) {\n"
            "  int4 a = (int4)((int)get_local_id(0), 1, 2, 3);\n"
            "  int4 b = (int4)(a.lo, a.zw);\n"
            "  s[b.s0] = b.w;\n"
            "  s[%s] = 7;\n}\n")
    ok = parse_kernel_text(text % "b.x + 64", "v.cl")
    assert SDVOracle().check(ok).verified
    racy = parse_kernel_text(text % "a.y", "v.cl")  # thread 1 writes s[1]: a race with s[b.x]
    assert SDVOracle().check(racy).races


@pytest.mark.parametrize(("index", "racy"), [("l", False), ("clamp(l, 0, 31)", True)])
def test_math_functions_are_values(index: str, racy: bool) -> None:
    """The functions of our OpenCL math header (``sqrt``, ``clamp``, ``clz`` …) are pure
    values, as CUDA's math functions: a kernel using them is analysed, and an index made by
    one still races (the twin: work-items 31 to 63 all write ``s[31]``)."""
    text = ("//--local_size=64 --num_groups=1\n"
            "__kernel void k(__global float *a, __local float *s) {\n"
            "  int l = get_local_id(0);\n"
            "  float v = sqrt(a[l]) + (float)clz((uint)l);\n"
            f"  s[{index}] = v;\n}}\n")
    verdict = SDVOracle().check(parse_kernel_text(text, "m.cl"))
    assert bool(verdict.races) == racy and not verdict.unknowns


def test_unsupported_constructs_are_errors() -> None:
    with pytest.raises(KplError, match="no __kernel function"):
        parse_kernel_text("void f(void) {}", "f.cl")
    with pytest.raises(KplError, match=r"image 'i' written with colours of two types"):
        parse_kernel_text("__kernel void k(write_only image2d_t i) { write_imagef(i, (int2)(0, 0), "
                          "(float4)(1.0f)); write_imagei(i, (int2)(1, 0), (int4)(1)); }", "w.cl")
    with pytest.raises(KplError, match="unsupported: compiler built-in '__builtin_nanf'"):
        parse_kernel_text("__kernel void k(__global float *a) { a[0] = __builtin_nanf(\"\"); }", "h.cl")


def test_language_option_reads_any_file_as_opencl() -> None:
    text = (KERNELS / "local_reverse.cl").read_text()
    kernel = parse_kernel_text(text, "kernel.txt", language="opencl")
    assert kernel.language == "opencl" and len(barriers(kernel)) == 1
    with pytest.raises(KplError):
        parse_kernel_text(text, "kernel.cu")  # read as CUDA: __kernel means nothing there


def test_cl_std_versions() -> None:
    text = (KERNELS / "local_reverse.cl").read_text()
    for std in ("1.2", "2.0", "3.0"):
        assert parse_kernel_text(text, "k.cl", cl_std=std).name == "reverse"


# --------------------------------------------------------------------------- fences


def test_fix_chooses_the_cheapest_fence(tmp_path: Path) -> None:
    """A local race gets ``barrier(CLK_LOCAL_MEM_FENCE)``; a global one both flags."""
    local = _fix(KERNELS / "local_reverse_racy.cl")
    added = _added_lines(local.original, local.patched)
    assert added == ["barrier(CLK_LOCAL_MEM_FENCE);"]
    glob = _fix(KERNELS / "global_fence_racy_fresh.cl")
    assert _added_lines(glob.original, glob.patched) == [
        "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"]


def _fix(path: Path) -> FixOutcome:
    res = fix_kernels(KernelOptions.build(str(path)), oracle="sdv", timeout=120, solver="rc2", lc=100,
                      ic=0.5, use_facts=True, naive=False, target="cuda")
    assert res.status == "fixed" and res.patched is not None
    return res


def test_fix_widens_the_users_local_barrier() -> None:
    """A global race across the user's ``barrier(CLK_LOCAL_MEM_FENCE)``: widening its flags
    costs half a barrier, a second barrier a whole one, so ``fix`` widens it in place (every
    other byte kept) and inserts nothing."""
    path = KERNELS / "global_fence_racy.cl"
    res = _fix(path)
    text = path.read_text()
    assert res.patched == text.replace("barrier(CLK_LOCAL_MEM_FENCE);",
                                       "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);")
    (fix,) = res.fixes
    assert not fix.result.placement.anchors and list(fix.result.widened.values()) == [K.ALL_FENCES]
    out = invoke("fix", "--check", path).output
    assert "would widen the fences of 1 barrier (run " in out
    doc = json.loads(invoke("fix", "--diff", "--format", "json", path).stdout)
    assert doc["widened"] == [{"kernel": "neighbour", "line": 8, "column": 3, "fences": ["global", "local"]}]
    assert doc["barriers"] == []


def test_fix_does_not_widen_a_barrier_the_race_does_not_cross() -> None:
    """The racy twin: the global race lies before the user's local barrier, so widening it
    does not verify (one oracle call, undone): a new barrier with both fences goes between
    the accesses and the user's barrier keeps its flags."""
    path = KERNELS / "global_fence_racy_fresh.cl"
    res = _fix(path)
    assert "  barrier(CLK_LOCAL_MEM_FENCE);\n" in res.patched
    assert _added_lines(res.original, res.patched) == ["barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"]
    assert not res.fixes[0].result.widened


def test_fix_does_not_widen_where_a_new_barrier_is_cheaper(tmp_path: Path) -> None:
    """The user's local barriers are in a loop: a global fence there costs LC/2 = 50, a new
    barrier after the loop 1, so the new barrier it is; the loop's barriers are kept as written."""
    text = ("//xfail:data-race\n//--local_size=64 --num_groups=4\n"
            "__kernel void k(__global int *data, __global int *out, __local int *t) {\n"
            "  size_t g = get_global_id(0), l = get_local_id(0);\n"
            "  data[g] = (int)l;\n"
            "  for (int i = 0; i < 4; i++) {\n"
            "    t[l] = i;\n    barrier(CLK_LOCAL_MEM_FENCE);\n"
            "    out[g] += t[l ^ 1];\n    barrier(CLK_LOCAL_MEM_FENCE);\n  }\n"
            "  out[g] += data[g ^ 1];\n}\n")
    path = tmp_path / "loop.cl"
    path.write_text(text)
    res = _fix(path)
    assert res.patched.count("    barrier(CLK_LOCAL_MEM_FENCE);\n") == 2
    assert _added_lines(res.original, res.patched) == ["barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"]
    assert not res.fixes[0].result.widened


def test_fix_leaves_a_barrier_without_fences_as_written(tmp_path: Path) -> None:
    """``barrier(0)`` orders no memory and has no fence price: ``fix`` adds a barrier after it
    rather than widening it (and does not fail)."""
    path = tmp_path / "b0.cl"
    path.write_text("//xfail:data-race\n//--local_size=64 --num_groups=2\n"
                    "__kernel void k(__global int *data, __global int *out) {\n"
                    "  size_t g = get_global_id(0);\n  data[g] = 1;\n  barrier(0);\n"
                    "  out[g] = data[g ^ 1];\n}\n")
    res = _fix(path)
    assert "  barrier(0);\n" in res.patched and not res.fixes[0].result.widened
    assert _added_lines(res.original, res.patched) == ["barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"]


@pytest.mark.parametrize(("call", "widened"), [
    ("barrier(CLK_LOCAL_MEM_FENCE);", "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"),
    ("work_group_barrier( FLAGS , memory_scope_work_group);",
     "work_group_barrier( FLAGS | CLK_GLOBAL_MEM_FENCE , memory_scope_work_group);"),
    ("barrier(1 ? CLK_LOCAL_MEM_FENCE : 0);", "barrier((1 ? CLK_LOCAL_MEM_FENCE : 0) | CLK_GLOBAL_MEM_FENCE);"),
    ("SYNC;", None),  # written by a macro: not widened in place
])
def test_widen_edit_keeps_the_users_bytes(call: str, widened: str | None) -> None:
    from autosync.render.patch import apply_edits, widen_edit

    text = ("//--local_size=64 --num_groups=1\n#define FLAGS CLK_LOCAL_MEM_FENCE\n"
            "#define SYNC barrier(CLK_LOCAL_MEM_FENCE)\n"
            f"__kernel void k(__local int *t) {{\n  t[get_local_id(0)] = 1;\n  {call}\n}}\n")
    kernel = parse_kernel_text(text, "w.cl")
    (bar,) = barriers(kernel)
    if widened is None:
        with pytest.raises(ValueError):
            widen_edit(kernel, bar, "CLK_GLOBAL_MEM_FENCE")
        return
    out = apply_edits(text, [widen_edit(kernel, bar, "CLK_GLOBAL_MEM_FENCE")]).text
    assert out == text.replace(call, widened)


def test_fix_adds_a_barrier_next_to_the_wait() -> None:
    """``fix`` does not take ``wait_group_events`` for a barrier: the plain race across it
    gets one, after the wait, and the wait stays."""
    res = fix_kernels(KernelOptions.build(str(KERNELS / "async_wait_plain_racy.cl")),
                      oracle="sdv", timeout=120, solver="rc2", lc=100, ic=0.5, use_facts=True,
                      naive=False, target="cuda")
    assert res.status == "fixed" and res.patched is not None
    assert _added_lines(res.original, res.patched) == ["barrier(CLK_LOCAL_MEM_FENCE);"]
    assert "wait_group_events(1, &e);" in res.patched


def _added_lines(before: str, after: str) -> list[str]:
    old = before.splitlines()
    return [ln.strip() for ln in after.splitlines() if ln not in old]


def test_fence_cost_model_orders_local_below_global() -> None:
    from autosync.algorithm.cost import fence_cost

    local, glob = frozenset({K.Space.SHARED}), frozenset({K.Space.GLOBAL})
    assert fence_cost(local) < fence_cost(glob) <= fence_cost(K.ALL_FENCES)


# --------------------------------------------------------------------------- headers


@pytest.mark.parametrize(("line", "block", "grid"), [
    ("//--local_size=64 --num_groups=128", (64, 1, 1), (128, 1, 1)),
    ("//--local_size=[16,16] --num_groups=[4,2]", (16, 16, 1), (4, 2, 1)),
    ("//--local_size=[8,4,2] --global_size=[64,8,4]", (8, 4, 2), (8, 2, 2)),
    ("//--global_size=256 --local_size=32", (32, 1, 1), (8, 1, 1)),
])
def test_opencl_header_forms(line: str, block: tuple[int, ...], grid: tuple[int, ...]) -> None:
    header = parse_header(f"//pass\n{line}\n", "h.cl")
    assert header.verdict == "pass" and header.block_dim == block and header.grid_dim == grid


@pytest.mark.parametrize(("line", "message"), [
    ("//--global_size=100 --local_size=32", "not a multiple"),
    ("//--global_size=64", "needs --local_size"),
    ("//--local_size=8 --num_groups=4 --global_size=64", "disagree"),
])
def test_bad_global_size(line: str, message: str) -> None:
    with pytest.raises(KplError, match=message):
        parse_header(f"//pass\n{line}\n", "h.cl")


_REQD = """__kernel __attribute__((reqd_work_group_size(%s)))
void slots(__global int *out, __local int *s) {
  size_t l = get_local_id(0);
  s[l %% 32] = (int)l;
  out[get_global_id(0)] = (int)l;
}
"""


@pytest.mark.parametrize(("size", "code"), [("32, 1, 1", 0), ("64, 1, 1", 1)])  # 64: l and l + 32 share a slot
def test_reqd_work_group_size_is_the_block(tmp_path: Path, size: str, code: int) -> None:
    """``reqd_work_group_size`` gives the local size (no header needed): 32 work-items write
    32 distinct slots; its racy twin requires 64, and work-items l and l + 32 collide."""
    path = tmp_path / "slots.cl"
    path.write_text(_REQD % size)
    res = invoke("check", path, "--format", "json")
    assert res.exit_code == code, res.output
    launch = json.loads(res.stdout)["kernels"][0]["launch"]
    assert launch["blockDim"] == [int(size.split(",")[0]), 1, 1]
    assert launch["source"].startswith(f"blockDim: reqd_work_group_size at {path}:1")
    kernel = parse_kernel_text(_REQD % size, "slots.cl")
    assert kernel.launch.block_dim == (int(size.split(",")[0]), 1, 1)
    assert bool(SDVOracle().check(kernel).races) == bool(code)


def test_reqd_work_group_size_agrees_with_the_header() -> None:
    text = "//pass\n//--local_size=[16,4] --num_groups=[2,2]\n" + _REQD % "16, 4, 1"
    kernel = parse_kernel_text(text, "slots.cl")
    assert kernel.launch.block_dim == (16, 4, 1) and kernel.launch.grid_dim == (2, 2, 1)
    assert kernel.required_size is not None and kernel.required_size.dims == (16, 4, 1)


@pytest.mark.parametrize(("header", "flags", "host", "stated"), [
    ("//pass\n//--local_size=64 --num_groups=4\n", [], "", "[64,1,1] of the header"),
    ("", ["--blockDim", "16"], "", "[16,1,1] of the command line"),
    ("", [], "64", "[64,1,1] of the host launch at "),
])
def test_reqd_work_group_size_conflicts_are_bad_input(tmp_path: Path, header: str, flags: list[str],
                                                      host: str, stated: str) -> None:
    """Another local size from the header, the command line or a host launch is bad input
    (that launch does not run): one line at the attribute, exit 2."""
    text = header + _REQD % "32, 1, 1"
    if host:
        text += _HOST % ("slots", f"  size_t global[1] = {{N}};\n  size_t local[1] = {{{host}}};\n",
                         "1", "local")
    path = tmp_path / "conflict.cl"
    path.write_text(text)
    res = invoke("check", path, *flags)
    assert res.exit_code == 2
    line = 1 + header.count("\n")
    assert res.output.strip().splitlines()[-1].startswith(
        f"{path}:{line}:25: error: reqd_work_group_size(32, 1, 1) conflicts with the local size {stated}")
    assert "Traceback" not in res.output


# --------------------------------------------------------------------------- command line


def test_cli_parse_check_fix_exit_codes(tmp_path: Path) -> None:
    assert invoke("parse", KERNELS / "local_reverse.cl").exit_code == 0
    assert invoke("check", KERNELS / "local_reverse.cl").exit_code == 0
    racy = tmp_path / "racy.cl"
    racy.write_text((KERNELS / "local_reverse_racy.cl").read_text())
    assert invoke("check", racy).exit_code == 1
    res = invoke("fix", racy)
    assert res.exit_code == 0, res.output
    assert "barrier(CLK_LOCAL_MEM_FENCE);" in racy.read_text()
    assert invoke("check", racy).exit_code == 0
    bad = tmp_path / "bad.cl"
    bad.write_text("__kernel void k(__global int *a) { a[0] = ; }\n")
    res = invoke("check", bad)
    assert res.exit_code == 2 and re.search(r"bad\.cl:1:\d+: error: ", res.output)
    assert invoke("check", KERNELS / "local_reverse.cl", "--language", "fortran").exit_code == 2
    assert invoke("check", KERNELS / "local_reverse.cl", "--cl-std", "9.9").exit_code == 2


def test_cli_language_flag_on_another_extension(tmp_path: Path) -> None:
    other = tmp_path / "kernel.ocl"
    other.write_text((KERNELS / "global_fence_racy.cl").read_text())
    assert invoke("check", other, "--language", "opencl").exit_code == 1
    assert invoke("check", other).exit_code == 2  # read as CUDA


def test_json_and_sarif_name_the_cl_file() -> None:
    res = invoke("check", KERNELS / "global_fence_racy.cl", "--format", "json")
    assert res.exit_code == 1
    doc = json.loads(res.stdout)
    assert "global_fence_racy.cl" in json.dumps(doc)
    res = invoke("check", KERNELS / "global_fence_racy.cl", "--format", "sarif")
    sarif = json.loads(res.stdout)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in sarif["runs"][0]["results"]}
    assert uris and all(u.endswith("global_fence_racy.cl") for u in uris)


def test_folders_include_cl_files() -> None:
    files = expand([str(KERNELS)])
    assert sorted(Path(f).name for f in files) == CASES


@pytest.mark.parametrize("oracle", ["sdv", "dynamic"])
def test_witness_in_opencl_terms(oracle: str) -> None:
    """A witness of a ``.cl`` kernel names work-items and groups and its launch in the
    header's words (no CUDA ``<<<…>>>``), in text, JSON and the language server alike."""
    path = KERNELS / "global_fence_racy.cl"  # --local_size=128 --num_groups=8
    res = invoke("check", path, "--oracle", oracle)
    assert res.exit_code == 1
    line = next(ln for ln in res.output.splitlines() if ": error: " in ln)
    assert re.search(r"\(work-items \d+ and \d+ of group \d+, index \d+; "
                     r"launch local_size=128 num_groups=8\)$", line), line
    doc = json.loads(invoke("check", path, "--oracle", oracle, "--format", "json").stdout)
    (race,) = [r for k in doc["kernels"] for r in k["races"]]
    assert race["witness"]["description"].endswith("launch local_size=128 num_groups=8")
    result = analyze(str(path), path.read_text(), Options(oracle=oracle))
    messages = [p.message for p in result.problems if p.kind == "race"]
    assert messages and all("work-items" in m and "<<<" not in m for m in messages)


def test_launch_line_in_opencl_terms(tmp_path: Path) -> None:
    """The report tells a kernel's launches apart by their sizes in OpenCL's words: two
    enqueues of one kernel with different local sizes, each checked on its own line."""
    kernel = (KERNELS / "local_reverse.cl").read_text().split("\n", 2)[2]  # no header
    host = ("\n#ifndef __OPENCL_C_VERSION__\n#include <CL/cl.h>\n"
            "void host(cl_command_queue q, cl_program p) {\n  cl_int err;\n"
            "  cl_kernel k = clCreateKernel(p, \"reverse\", &err);\n"
            "  size_t global[1] = {1024};\n  size_t a[1] = {64};\n  size_t b[1] = {32};\n"
            "  clEnqueueNDRangeKernel(q, k, 1, NULL, global, a, 0, NULL, NULL);\n"
            "  clEnqueueNDRangeKernel(q, k, 1, NULL, global, b, 0, NULL, NULL);\n}\n#endif\n")
    path = tmp_path / "two.cl"
    path.write_text(kernel + host)
    res = invoke("check", path)
    summaries = [ln for ln in res.output.splitlines() if ": kernel 'reverse' (" in ln]
    assert len(summaries) == 2 and "<<<" not in res.output, res.output
    sizes = sorted(re.sub(r".*\(launch (.*) at .*", r"\1", ln) for ln in summaries)
    assert sizes == ["local_size=32 num_groups=32", "local_size=64 num_groups=16"]


# --------------------------------------------------------------------------- language server


def test_language_server_takes_cl_files() -> None:
    assert _is_kernel_file("file:///x/k.cl", None) and _is_kernel_file("file:///x/k.txt", "opencl")
    text = (KERNELS / "local_reverse_racy.cl").read_text()
    path = str(KERNELS / "local_reverse_racy.cl")
    result = analyze(path, text, Options(oracle="sdv"))
    assert result.kernels == ["reverse"] and any(p.kind == "race" for p in result.problems)
    fixed = fix_text(path, text, Options(oracle="sdv"))
    assert fixed is not None and "barrier(CLK_LOCAL_MEM_FENCE);" in fixed


# --------------------------------------------------------------------------- host launches


_HOST = ("\n#ifndef __OPENCL_C_VERSION__\n#include <CL/cl.h>\n#define N 4096\n"
         "void host(cl_command_queue q, cl_program p) {\n"
         "  cl_int err;\n  cl_kernel k = clCreateKernel(p, \"%s\", &err);\n%s"
         "  clEnqueueNDRangeKernel(q, k, %s, NULL, global, %s, 0, NULL, NULL);\n}\n#endif\n")


def test_host_launch_from_clEnqueueNDRangeKernel(tmp_path: Path) -> None:
    """Constant sizes of a ``clEnqueueNDRangeKernel`` in the same file give the launch: local
    size 64 work-items, 4096 / 64 groups.  Its NULL-local twin states no size (symbolic)."""
    kernel = (KERNELS / "local_reverse.cl").read_text().split("\n", 2)[2]  # no header
    sizes = "  size_t global[1] = {N};\n  size_t local[1] = {64};\n"
    path = tmp_path / "host.cl"
    path.write_text(kernel + _HOST % ("reverse", sizes, "1", "local"))
    res = invoke("check", path, "--format", "json")
    assert res.exit_code == 0, res.output
    launch = json.loads(res.stdout)["kernels"][0]["launch"]
    assert launch["blockDim"] == [64, 1, 1] and launch["gridDim"] == [64, 1, 1]
    assert launch["source"] == f"host launch at {path}:{kernel.count(chr(10)) + 10}"
    path.write_text(kernel + _HOST % ("reverse", sizes, "1", "NULL"))
    launch = json.loads(invoke("check", path, "--format", "json").stdout)["kernels"][0]["launch"]
    assert launch["blockDim"][0] is None and launch["gridDim"][0] is None


_TILE = """__kernel void tile2d(__global float *out, __global const float *in) {
  __local float tile[16][16];
  size_t x = get_local_id(0), y = get_local_id(1);
  size_t g = get_global_id(1) * get_global_size(0) + get_global_id(0);
  tile[y][x % 16] = in[g];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[g] = tile[x % 16][y % 16];
}
"""


@pytest.mark.parametrize(("local", "code", "block", "grid"), [
    ("{16, 16}", 0, [16, 16, 1], [64, 48, 1]),
    ("{32, 8}", 1, [32, 8, 1], [32, 96, 1]),  # racy twin: work-items x and x + 16 share a slot
])  # a NULL local size states no size (test_host_launch_sizes): checked for every size
def test_host_launch_2d(tmp_path: Path, local: str | None, code: int, block: list[int] | None,
                        grid: list[int] | None) -> None:
    """A 2-D launch: ``local`` work-items per group, ``global / local`` groups per dimension,
    checked under exactly that launch."""
    sizes = "  size_t global[2] = {1024, 768};\n" + (f"  size_t local[2] = {local};\n" if local else "")
    path = tmp_path / "tile.cl"
    path.write_text(_TILE + _HOST % ("tile2d", sizes, "2", "local" if local else "NULL"))
    res = invoke("check", path, "--format", "json")
    assert res.exit_code == code, res.output
    launch = json.loads(res.stdout)["kernels"][0]["launch"]
    if block is None:
        assert launch["blockDim"][:2] == [None, None]
    else:
        assert launch["blockDim"] == block and launch["gridDim"] == grid


@pytest.mark.parametrize(("body", "dims", "size_arg", "want"), [
    ("  size_t global[1] = {N};\n  size_t n = 128;\n", "1", "&n", ((32, 1, 1), (128, 1, 1))),
    ("  size_t global[1] = {N};\n  const size_t n = N / 32;\n", "1", "&n", ((32, 1, 1), (128, 1, 1))),
    ("  size_t global[1] = {N};\n  size_t n = 128;\n  n *= 2;\n", "1", "&n", None),  # written
    ("  size_t global[1] = {N};\n  size_t local[1] = {64};\n  local[0] = 32;\n", "1", "local", None),
    ("  size_t global[1] = {N + 1};\n  size_t local[1] = {64};\n", "1", "local", None),  # not a multiple
    ("  size_t global[2] = {N, 4};\n  size_t local[1] = {64};\n", "2", "local", None),  # too short
    ("  size_t global[1] = {N};\n", "1", "NULL", None),  # the implementation chooses the local size
])
def test_host_launch_sizes(body: str, dims: str, size_arg: str,
                           want: tuple[tuple[int, ...], tuple[int, ...]] | None) -> None:
    """Only sizes that are constant at the call give a launch; the others are symbolic."""
    text = "__kernel void reverse(__global float *a) { a[0] = 1; }\n" + _HOST % ("reverse", body, dims, size_arg)
    got = opencl_launches("h.cl", text)["reverse"]
    assert len(got) == 1
    assert (got[0].grid, got[0].block) == (want if want else ((None,) * 3, (None,) * 3))


def test_host_launch_of_an_unknown_kernel_object_counts_for_every_kernel() -> None:
    """An enqueue of a kernel object we cannot name may launch any kernel: a kernel launched
    with constants elsewhere is checked for it too (symbolic), never only for the constants."""
    text = ("__kernel void reverse(__global float *a) { a[0] = 1; }\n"
            + _HOST % ("reverse", "  size_t global[1] = {N};\n  size_t local[1] = {64};\n", "1", "local")
            + "#ifndef __OPENCL_C_VERSION__\nvoid other(cl_command_queue q, cl_kernel k) {\n"
              "  size_t g = 64;\n  clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &g, 0, NULL, NULL);\n}\n#endif\n")
    got = opencl_launches("h.cl", text)["reverse"]
    assert [(h.grid, h.block) for h in got] == [((64, 1, 1), (64, 1, 1)), ((None,) * 3, (None,) * 3)]


@pytest.mark.parametrize(("store_at", "racy"), [("g", False), ("g / 2", True)])
def test_vload_vstore_are_element_accesses(store_at: str, racy: bool) -> None:
    """``vstore4(v, i, p)`` writes ``p[4i .. 4i+3]``: two work-items storing at ``g / 2``
    overlap (the racy twin)."""
    text = ("//--local_size=64 --num_groups=4\n"
            "__kernel void k(__global const float *in, __global float *out) {\n"
            "  size_t g = get_global_id(0);\n  float4 v = vload4(g, in);\n"
            f"  vstore4(v * 2.0f, {store_at}, out);\n}}\n")
    verdict = SDVOracle().check(parse_kernel_text(text, "v.cl"))
    assert bool(verdict.races) == racy and not verdict.unknowns


WORK_GROUP = """//--local_size=64 --num_groups=2
__kernel void k(__global int *out, __local int *s) {
  int l = get_local_id(0);
  s[l] = l;
  barrier(CLK_LOCAL_MEM_FENCE);
  int total = work_group_reduce_add(s[(l + 1) % 64]);
  int any = work_group_any(l > 3);
  int pre = work_group_scan_exclusive_add(1);
  if (total > 3) barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = total + any + pre + work_group_broadcast(l, 0) + sub_group_reduce_add(l);
}
"""


def test_work_group_functions() -> None:
    """OpenCL 2.0's work-group collectives: the operand is read before them, all work-items
    must reach them, a reduction's result is the same everywhere (the barrier it guards is
    uniform) but a scan's is not, and they order no memory."""
    from oracle.sdv import SDVOracle

    def check(text: str) -> tuple[int, int]:
        verdict = SDVOracle().check(parse_kernel_text(text, "wg.cl"))
        return len(verdict.races), len(verdict.divergences)

    assert check(WORK_GROUP) == (0, 0)
    assert check(WORK_GROUP.replace("  barrier(CLK_LOCAL_MEM_FENCE);\n  int total", "  int total")) == (1, 0)
    assert check(WORK_GROUP.replace("if (total > 3)", "if (pre > 3)")) == (0, 1)
    assert check(WORK_GROUP.replace("int any = work_group_any(l > 3);",
                                    "int any = 0; if (l < 8) any = work_group_any(l > 3);")) == (0, 1)
    ordered = WORK_GROUP.replace("  barrier(CLK_LOCAL_MEM_FENCE);\n  int total", "  int total")
    assert check(ordered.replace("  int any", "  s[l] = 0;\n  int any")) == (2, 0)  # no fence
