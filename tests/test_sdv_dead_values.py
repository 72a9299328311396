"""sdv: values nothing can read again are not kept -- those of a thread that has left the
kernel (``oracle.sdv.state.ThreadState.value_guard``) and a variable's value before its
declaration (``visit_Decl``).

After ``if (t >= n) return;`` every later assignment used to become ``ite(t < n, new, old)``,
so loop counters went symbolic and terms grew with every iteration (an MD5-style round loop:
14 s).  Dropping the "has not returned" conjunct from assignments is sound only because
nothing observes a returned thread again; these kernels pin that the verdicts are unchanged,
racy and race-free, when the race depends on values computed after the early return.
"""

from __future__ import annotations

import pytest

from kpl.frontend import parse_kernel_text
from oracle.sdv import SDVOracle

HEAD = "//--blockDim=64 --gridDim=2\n"


def _kernel(iterations: int, exit_stmt: str = "if (t >= n) return;") -> str:
    """Each live thread writes ``s[t + 16 * iterations]`` and then reads ``s[(t + 1) % 64]``:
    racy exactly when 16 * iterations < 64 (the written cells reach the read ones)."""
    return (HEAD + "__global__ void k(int *out, int n) {\n  __shared__ int s[128];\n"
            f"  int t = threadIdx.x;\n  {exit_stmt}\n  int j = 0;\n"
            f"  for (int i = 0; i < {iterations}; i++) j += 16;\n"
            "  s[t + j] = t;\n  int x = s[(t + 1) % 64];\n  out[blockIdx.x * 64 + t] = x;\n}\n")


@pytest.mark.parametrize("exit_stmt", ["if (t >= n) return;", "if (n <= t) { out[0] = 0; return; }",
                                       "if (t < n) {} else return;"])
@pytest.mark.parametrize("iterations,racy", [(4, False), (5, False), (3, True), (1, True)])
def test_values_after_an_early_return(exit_stmt: str, iterations: int, racy: bool) -> None:
    v = SDVOracle().check(parse_kernel_text(_kernel(iterations, exit_stmt)))
    assert not v.unknowns
    races = {r.array for r in v.races}
    assert ("s" in races) == racy, v.races


def test_a_returned_thread_observes_nothing() -> None:
    """A thread that returned takes no part in a later barrier or access: the barrier after a
    thread-dependent return is divergent, whatever the returned thread's variables hold."""
    text = (HEAD + "__global__ void k(int *out) {\n  __shared__ int s[64];\n  int t = threadIdx.x;\n"
            "  if (t >= 32) return;\n  int j = 0;\n  for (int i = 0; i < 4; i++) j += 1;\n"
            "  s[t] = j;\n  __syncthreads();\n  out[t] = s[(t + j) % 32];\n}\n")
    v = SDVOracle().check(parse_kernel_text(text))
    assert [d.label for d in v.divergences]  # t < 32 reaches the barrier, t >= 32 does not


def test_round_loop_after_an_early_return_stays_concrete() -> None:
    """64 rounds of mixing after ``if (t >= n) return;``: the loop counter stays a constant, so
    the check is quick and its queries few (before: 207 queries, ~14 s)."""
    rounds = "\n".join([
        "  for (int i = 0; i < 64; i++) {",
        "    unsigned int f; int g;",
        "    if (i < 16) { f = (b & c) | (~b & d); g = i; }",
        "    else if (i < 32) { f = (d & b) | (~d & c); g = (5 * i + 1) % 16; }",
        "    else { f = b ^ c ^ d; g = (3 * i + 5) % 16; }",
        "    f = f + a + m[g];",
        "    a = d; d = c; c = b; b = b + ((f << 7) | (f >> 25));",
        "  }"])
    text = ("//--blockDim=256 --gridDim=64\n__global__ void k(const unsigned int *in, unsigned int *dg, int n) {\n"
            "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n  if (t >= n) return;\n  unsigned int m[16];\n"
            "  for (int j = 0; j < 16; j++) m[j] = in[t * 16 + j];\n"
            "  unsigned int a = 1, b = 2, c = 3, d = 4;\n" + rounds + "\n"
            "  dg[t * 4] = a; dg[t * 4 + 1] = b; dg[t * 4 + 2] = c; dg[t * 4 + 3] = d;\n}\n")
    v = SDVOracle().check(parse_kernel_text(text))
    assert v.verified and v.queries < 60, v.queries
    racy = SDVOracle().check(parse_kernel_text(text.replace("dg[t * 4 + 3] = d;", "dg[t * 4 + 4] = d;")))
    assert {r.array for r in racy.races} == {"dg"}


def test_an_inlined_result_is_relevant_only_where_it_flows() -> None:
    """``__device__`` calls are inlined with a result variable; the call itself is no use of
    it.  A result that only reaches stored data is sliced away; one that reaches an index is
    kept, and the race through it is found."""
    from oracle.sdv.slice import relevant_vars

    text = ("//--blockDim=64 --gridDim=1\n__device__ unsigned mix(unsigned x) { return x * 7u + 3u; }\n"
            "__global__ void k(unsigned *out) {\n  __shared__ unsigned s[64];\n  unsigned t = threadIdx.x;\n"
            "  unsigned h = mix(t);\n  s[t] = h;\n  __syncthreads();\n  out[t] = s[(t + 1) % 64];\n}\n")
    kernel = parse_kernel_text(text)
    assert not {"h", "mix.ret"} & relevant_vars(kernel)
    assert SDVOracle().check(kernel).verified
    racy = parse_kernel_text(text.replace("s[t] = h;", "s[h % 32] = t;"))  # two writers a cell
    assert {"h", "mix.ret"} <= relevant_vars(racy)
    assert {r.array for r in SDVOracle().check(racy).races} == {"s"}


def _dot_many() -> str:
    """``microbench/heavy/dot_many.cu`` at small sizes (8 threads, 16 partial sums): the
    same loop structure, checked in a few seconds instead of twenty."""
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "microbench" / "heavy" / "dot_many.cu").read_text()
    small = text.replace("//--blockDim=256 --gridDim=128", "//--blockDim=8 --gridDim=4")
    small = small.replace("#define ACC 1024", "#define ACC 16")
    assert small.count("ACC 16") == 1 and "blockDim=8 " in small
    return small


DOT = _dot_many()


@pytest.mark.parametrize("change,racy", [
    (None, False),
    (("part[half + a];", "part[half + a - 1];"), True),
])
def test_loop_variables_declared_in_an_abstracted_loop(change: tuple[str, str] | None, racy: bool) -> None:
    """A block-wide dot product: the grid-stride loop over vectors is abstracted (its trip
    count is a parameter), and ``for (int a = threadIdx.x; ...)`` in its body starts from
    ``threadIdx.x`` in every iteration.  Before, ``a`` kept its havocked value where the
    outer loop's predicate was false, the inner loops were abstracted too, and the tree
    reduction got a false race at a negative index.  The racy twin reads one cell too low."""
    text = DOT if change is None else DOT.replace(*change)
    assert text != DOT or change is None
    v = SDVOracle(warp_facts=False, uniform_guards=False).check(parse_kernel_text(text))
    assert not v.unknowns
    assert bool(v.races) == racy, v.races
    assert {r.array for r in v.races} <= {"part"}


@pytest.mark.parametrize("racy", [False, True])
def test_counter_of_a_loop_inside_an_abstracted_loop_stays_constant(racy: bool) -> None:
    """matrixMul's ``for (int k = 0; k < BLOCK_SIZE; ++k)`` inside the tile loop, whose trip
    count is a parameter: ``++k`` drops the tile loop's predicate (the pred at ``k``'s
    declaration), so k stays a constant and the k-loop is unrolled without growing terms
    (before: 185 queries, 3.6 s).  Racy twin: the barrier that ends each tile is gone."""
    from pathlib import Path

    from kpl.frontend import load_kernels

    path = Path(__file__).resolve().parent.parent / "sdk_kernels" / "matrixMul.cu"
    text = path.read_text()
    if racy:
        text = text.replace("    }\n    __syncthreads();\n    // (everyone", "    }\n    // (everyone")
    v = SDVOracle(warp_facts=False, uniform_guards=False).check(load_kernels(str(path), text)[0])
    assert not v.unknowns
    assert v.queries < 60, v.queries
    assert {r.array for r in v.races} == ({"As", "Bs"} if racy else set()), v.races
