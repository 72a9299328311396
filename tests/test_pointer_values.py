"""Pointers as values (issue 26, kpl.frontend.pointers): a pointer that is not one array on
every path is a pair (base number, offset), and every access through it a guarded choice
over its bases.  Both oracles judge the construct kernels ``21_ptr_*`` (race-free and racy
twins of each pattern) on the KPL the front end builds; ``fix`` puts the barrier of the
ping-pong stencil back; a null base is a finding; a base that cannot be bounded is an error
naming why; a pointer with one array keeps its plain KPL."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from autosync.commands.cli import app
from kpl import ast as K
from kpl.errors import KplError
from kpl.frontend import load_kernel, parse_kernel_text
from oracle.base import Verdict
from oracle.dynamic import DynamicOracle
from oracle.sdv import SDVOracle

KERNELS = Path(__file__).parent / "kernels" / "constructs"
POINTER_KERNELS = sorted(KERNELS.glob("21_ptr_*.cu"))


def _expected(path: Path) -> tuple[set[tuple[int, int]], int | None]:
    """(racy line pairs, line of a failing assertion) from the header."""
    text = path.read_text()
    races: set[tuple[int, int]] = set()
    m = re.search(r"// autosync: races=(\S+)", text)
    if m:
        for pair in m.group(1).split(","):
            a, b = pair.split("-")
            races.add((int(a), int(b)))
    m = re.search(r"// autosync: assert_fails=(\d+)", text)
    return races, int(m.group(1)) if m else None


def _lines(kernel: K.Kernel, verdict: Verdict) -> tuple[set[tuple[int, int]], set[int]]:
    spans = {s.label: s.span for s in K.walk_stmts(kernel.body)}

    def line(label: int) -> int:
        span = spans.get(label)
        assert span is not None
        return span.line

    pairs = {tuple(sorted((line(r.first), line(r.second)))) for r in verdict.races}
    fails = {line(f.labels[0]) for f in verdict.findings if f.kind == "assertion"}
    return pairs, fails  # type: ignore[return-value]


def test_every_pattern_has_both_twins() -> None:
    names = {p.name for p in POINTER_KERNELS}
    for pattern in ("pingpong", "pingpong_global", "select", "carve", "struct", "funcptr",
                    "nulltest", "compare", "ptrptr", "structparam", "addrlocal", "member", "ptrarray"):
        assert f"21_ptr_ok_{pattern}.cu" in names and f"21_ptr_racy_{pattern}.cu" in names


@pytest.mark.parametrize("oracle", ["sdv", "dynamic"])
@pytest.mark.parametrize("path", POINTER_KERNELS, ids=lambda p: p.stem)
def test_pointer_kernel_verdict(path: Path, oracle: str) -> None:
    """Both oracles: race-free twins verified, racy twins report exactly the racy lines, a
    null dereference is an assertion finding at its line."""
    kernel = load_kernel(str(path))
    checker = SDVOracle() if oracle == "sdv" else DynamicOracle(blocks=2)
    verdict = checker.check(kernel)
    assert not verdict.unknowns, verdict.unknowns
    races, fails = _expected(path)
    got_races, got_fails = _lines(kernel, verdict)
    assert got_races == races
    assert got_fails == ({fails} if fails is not None else set())
    assert verdict.verified == (not races and fails is None)


def test_swapped_buffers_are_a_choice_over_both_arrays() -> None:
    """The accesses through the swapped pointers reach both shared arrays, each guarded by
    the pointer's base number (and both oracles see the same KPL)."""
    kernel = load_kernel(str(KERNELS / "21_ptr_ok_pingpong.cu"))
    loads = [e for s in K.walk_stmts(kernel.body) if isinstance(s, K.Assign)
             for e in K.walk_expr(s.value) if isinstance(e, K.Load)]
    assert {ld.mem.name for ld in loads} >= {"a", "b"}
    names = {s.var.name for s in K.walk_stmts(kernel.body) if isinstance(s, K.Decl)}
    assert {"in.base", "in.off", "out.base", "out.off"} <= names


def test_fix_puts_back_the_barrier_between_iterations(tmp_path: Path) -> None:
    src = tmp_path / "pingpong.cu"
    shutil.copy(KERNELS / "21_ptr_racy_pingpong.cu", src)
    res = CliRunner().invoke(app, ["fix", str(src)])
    assert res.exit_code == 0, res.output
    assert "total cost 100, 1 barrier inserted" in res.stdout
    fixed = src.read_text()
    body = fixed[fixed.index("for (int s"):fixed.index("dst[threadIdx.x]")]
    assert body.count("__syncthreads();") == 1  # inside the loop: between the iterations
    assert CliRunner().invoke(app, ["check", str(src)]).exit_code == 0


def test_one_array_pointer_keeps_its_plain_kpl() -> None:
    """A pointer bound to one array on every path is no value: no base variable, the
    access is the array's own."""
    kernel = parse_kernel_text("""//--blockDim=32 --gridDim=1
__global__ void k(float *a) {
  float *p = a + 4;
  p += 1;
  p[threadIdx.x] = 1.0f;
}""", "plain.cu")
    assert not any(isinstance(s, K.Decl) and s.var.name.endswith(".base")
                   for s in K.walk_stmts(kernel.body))
    stores = [s for s in K.walk_stmts(kernel.body) if isinstance(s, K.Assign)
              and isinstance(s.target, K.MemElem)]
    assert len(stores) == 1 and stores[0].target.mem.name == "a"  # type: ignore[union-attr]


@pytest.mark.parametrize("oracle", ["sdv", "dynamic"])
def test_null_argument_dereferenced_is_a_finding(oracle: str) -> None:
    kernel = parse_kernel_text("""//--blockDim=32 --gridDim=1
__device__ void put(float *p, int t) { p[t] = 1.0f; }
__global__ void k(float *out) {
  put(nullptr, threadIdx.x);
  out[threadIdx.x] = 0.0f;
}""", "null.cu")
    checker = SDVOracle() if oracle == "sdv" else DynamicOracle()
    verdict = checker.check(kernel)
    assert not verdict.verified
    assert [f.kind for f in verdict.findings] == ["assertion"]
    assert "null dereference" in verdict.findings[0].message


@pytest.mark.parametrize("oracle", ["sdv", "dynamic"])
def test_null_tested_before_use_is_no_finding(oracle: str) -> None:
    kernel = parse_kernel_text("""//--blockDim=32 --gridDim=1
__device__ void put(float *p, int t) { if (p != nullptr) p[t] = 1.0f; }
__global__ void k(float *out) {
  put(nullptr, threadIdx.x);
  put(out, threadIdx.x);
}""", "nulltest.cu")
    checker = SDVOracle() if oracle == "sdv" else DynamicOracle()
    assert checker.check(kernel).verified


@pytest.mark.parametrize("init, why", [
    ("tables[1]", "it is read from memory"),
    ("(float *)addr", "it is made from an integer"),
])
def test_unbounded_base_is_an_error_naming_why(init: str, why: str) -> None:
    text = f"""//--blockDim=32 --gridDim=1
__global__ void k(float **tables, unsigned long long addr, float *out) {{
  float *p = {init};
  out[threadIdx.x] = p[threadIdx.x];
}}"""
    with pytest.raises(KplError) as info:
        parse_kernel_text(text, "unbounded.cu")
    assert f"pointer 'p' cannot be bounded to known arrays: {why}" in str(info.value)


def test_unbounded_base_exits_2(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_text("""//--blockDim=32 --gridDim=1
__global__ void k(float *a, float *b, float **t) {
  float *p = a;
  if (threadIdx.x > 3) p = t[0];
  p[threadIdx.x] = 1.0f;
}""")
    res = CliRunner().invoke(app, ["check", str(src)])
    assert res.exit_code == 2
    assert "cannot be bounded to known arrays: it is read from memory" in res.output


def test_pointer_set_in_a_branch_reaches_both_arrays() -> None:
    """``T *q; if (c) q = a; else q = b;``: the store through q may hit either array, so
    the racing read of b[t + 1] is found (not only a[t + 1])."""
    kernel = parse_kernel_text("""//--blockDim=32 --gridDim=1
__global__ void k(float *out) {
  __shared__ float a[64];
  __shared__ float b[64];
  float *q;
  if (threadIdx.x % 2) q = a; else q = b;
  q[threadIdx.x] = 1.0f;
  out[threadIdx.x] = b[threadIdx.x + 1];
}""", "branch.cu")
    for checker in (SDVOracle(), DynamicOracle()):
        verdict = checker.check(kernel)
        assert {r.array for r in verdict.races} == {"b"}


_SWAP = """//--blockDim=32 --gridDim=1
__device__ void swap(int *a, int *b) {{ int t = *a; *a = *b; *b = t; }}
__global__ void k(float *out) {{
  __shared__ float s[33];
  int x = threadIdx.x, y = threadIdx.x + 1;
  swap(&x, &y);
  s[{index}] = 1.0f;
  out[threadIdx.x] = s[threadIdx.x];
}}"""


@pytest.mark.parametrize("oracle", ["sdv", "dynamic"])
@pytest.mark.parametrize("index, racy", [("y", False), ("x", True)])
def test_pointers_to_locals_are_the_locals(oracle: str, index: str, racy: bool) -> None:
    """``swap(&x, &y)`` swaps the two locals: after it y is the thread's own index (no race)
    and x its neighbour's (the store races with the neighbour's read)."""
    kernel = parse_kernel_text(_SWAP.format(index=index), "swap.cu")
    checker = SDVOracle() if oracle == "sdv" else DynamicOracle()
    verdict = checker.check(kernel)
    assert bool(verdict.races) == racy and verdict.verified == (not racy)


@pytest.mark.parametrize("oracle", ["sdv", "dynamic"])
def test_address_test_explores_both_outcomes(oracle: str) -> None:
    """``(size_t)p & 15``: the address is unknown, so the race under the alignment test is
    found (it is not decided as "never aligned")."""
    kernel = parse_kernel_text("""//--blockDim=32 --gridDim=1
__global__ void k(const float *in, float *out) {
  __shared__ float s[32];
  if (((unsigned long long)in & 15) == 0)
    s[0] = in[threadIdx.x];
  else
    s[threadIdx.x] = in[threadIdx.x];
  out[threadIdx.x] = s[threadIdx.x];
}""", "align.cu")
    checker = SDVOracle() if oracle == "sdv" else DynamicOracle()
    verdict = checker.check(kernel)
    if oracle == "sdv":
        assert verdict.races  # one concrete run may take either branch; sdv must see both
    else:
        assert not verdict.unknowns


@pytest.mark.parametrize("body, message", [
    # a pointer member set in a branch would name a different array on each path
    ("Hold h = {a};\n  if (threadIdx.x > 3) h.p = b;\n  h.p[threadIdx.x] = 1.0f;",
     "pointer member 'p' of 'Hold' set inside a branch or loop"),
    # a pointer held in memory (here a __shared__ pointer) has no known array
    ("__shared__ float *q;\n  q = a;\n  q[threadIdx.x] = 1.0f;",
     "'q' is not an array or a pointer into one"),
])
def test_pointers_in_memory_that_cannot_be_bounded_are_errors(body: str, message: str) -> None:
    text = f"""//--blockDim=32 --gridDim=1
struct Hold {{ float *p; }};
__global__ void k(float *a, float *b) {{
  {body}
}}"""
    with pytest.raises(KplError) as info:
        parse_kernel_text(text, "held.cu")
    assert message in str(info.value)


_THROUGH_REF = """//--blockDim=64 --gridDim=1
__device__ void put(float **slot, float v) {{
  slot[0][{index}] = v;
  *&v = 0.0f;
}}
__global__ void k(float *a, float *b, int c) {{
  float *p = c ? a : b;
  put(&p, 1.0f * threadIdx.x);
}}"""


@pytest.mark.parametrize("oracle", ["sdv", "dynamic"])
@pytest.mark.parametrize("index, racy", [("threadIdx.x", False), ("threadIdx.x / 2", True)])
def test_subscript_zero_of_a_pointer_to_a_pointer_is_the_pointer(oracle: str, index: str, racy: bool) -> None:
    """``slot[0]`` of ``float **slot = &p`` is ``p`` itself (a value over a and b), as
    ``*slot`` is; ``*&v`` is ``v``."""
    kernel = parse_kernel_text(_THROUGH_REF.format(index=index), "through.cu")
    checker = SDVOracle() if oracle == "sdv" else DynamicOracle()
    verdict = checker.check(kernel)
    assert not verdict.unknowns
    assert bool(verdict.races) == racy and verdict.verified == (not racy)


_UNKNOWN = """//--blockDim=32 --gridDim=1
__device__ float *same(float *p) {{ return p; }}
__device__ void keep(float **slots, float *p, int i) {{ slots[i] = p; }}
__global__ void k(float **tables, float **slots, float *out) {{
  float *t = tables[threadIdx.x];
  same(t);
  keep(slots, t, {slot});
  out[threadIdx.x] = {read};
}}"""


@pytest.mark.parametrize("slot, racy", [("threadIdx.x", False), ("0", True)])
def test_unknown_pointer_passed_on_and_stored_is_no_access(slot: str, racy: bool) -> None:
    """A pointer read from memory may be passed, returned and stored (its bytes, arbitrary:
    two threads storing theirs into one slot race); only an access through it is refused."""
    kernel = parse_kernel_text(_UNKNOWN.format(slot=slot, read="1.0f"), "unknown.cu")
    verdict = SDVOracle().check(kernel)
    assert not verdict.unknowns
    assert bool(verdict.races) == racy and verdict.verified == (not racy)


def test_access_through_an_unknown_pointer_is_refused_where_it_is_used() -> None:
    with pytest.raises(KplError) as info:
        parse_kernel_text(_UNKNOWN.format(slot="threadIdx.x", read="t[0]"), "unknown.cu")
    assert "pointer 't' cannot be bounded to known arrays: it is read from memory" in str(info.value)
    assert info.value.line == 8


_SLOTS = """//--blockDim=64 --gridDim=1
__global__ void k(float *a, float *c) {{
  float *slots[3];
  int t = threadIdx.x;
  slots[0] = a;
  for (int i = 0; i < 2; i++)
    slots[i + 1] = c + 64 * i;
  slots[t % 3][{index}] = t;
}}"""


@pytest.mark.parametrize("oracle", ["sdv", "dynamic"])
@pytest.mark.parametrize("index, racy", [("t", False), ("0", True)])
def test_pointer_array_set_in_a_loop_by_a_variable_index(oracle: str, index: str, racy: bool) -> None:
    """Elements of a local array of pointers set in a loop (``slots[i + 1] = …``) and chosen
    by the thread: the store reaches ``a`` and both rows of ``c``."""
    kernel = parse_kernel_text(_SLOTS.format(index=index), "slots.cu")
    checker = SDVOracle() if oracle == "sdv" else DynamicOracle()
    verdict = checker.check(kernel)
    assert not verdict.unknowns
    assert bool(verdict.races) == racy and verdict.verified == (not racy)


@pytest.mark.parametrize("test", ["__requires(p == q);", "if (p != q) return;"])
def test_equality_of_two_pointer_parameters_is_unknown(test: str) -> None:
    """The host may pass overlapping arrays: ``p == q`` of two parameters is neither true
    nor false, so neither assumption empties the kernel (the race on p stays)."""
    kernel = parse_kernel_text(f"""//--blockDim=64 --gridDim=1
__global__ void k(int *p, int *q) {{
  {test}
  p[0] = threadIdx.x;
}}""", "alias.cu")
    verdict = SDVOracle().check(kernel)
    assert verdict.races and not verdict.verified


@pytest.mark.parametrize("decl, holds", [("int *x = 0;", True), ("int *x;", False)])
def test_a_pointer_compared_with_null_as_a_value(decl: str, holds: bool) -> None:
    """``x == 0`` outside a condition reads as in one: null when declared null, unknown when
    never set (GPUVerify's uninitialised pointer: the assertion may fail)."""
    src = (f"//--blockDim=32 --gridDim=1\n__global__ void k(int *A) {{\n  {decl}\n"
           "  bool b = (x == 0);\n  __assert(b);\n}\n")
    verdict = SDVOracle().check(parse_kernel_text(src, "k.cu"))
    assert verdict.verified == holds
    assert holds or [f.kind for f in verdict.findings] == ["assertion"]
