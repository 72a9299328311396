"""Speed-ups of the ``sdv`` oracle must not change what it says (count-based, no timings).

* the cross-block cache (:meth:`oracle.sdv.SDVOracle._cross_part`) answers the candidate
  kernels of a synthesis run -- which differ only by barriers -- with the same verdict as a
  fresh oracle, and with fewer z3 queries;
* the kinds of a race on a statement that both reads and writes the array are decided by
  sat/unsat only, so they no longer depend on what the solver did before;
* the sort-id keyed function cache of :func:`oracle.sdv_encode.apply_uf` gives the very same
  z3 function as the string-keyed one.
"""

from __future__ import annotations

import os

import z3

from kpl.frontend import load_kernel
from kpl.transform import insert_barriers, strip_barriers
from oracle.base import Verdict
from oracle.sdv import SDVOracle
from oracle.sdv_encode import FLOAT_SORT, apply_uf, bv_size, func, is_false, is_true

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _facts(v: Verdict) -> tuple[object, ...]:
    races = tuple((r.first, r.second, r.array, r.kinds, r.loop_depth,
                   getattr(r, "loop_depths", ()), getattr(r, "cross_block", False))
                  for r in v.races)
    return (races, tuple(d.label for d in v.divergences),
            tuple((u.reason, u.label) for u in v.unknowns))


def test_cross_cache_same_verdicts_fewer_queries() -> None:
    k = load_kernel(os.path.join(ROOT, "sdk_kernels", "convolutionRowsKernel.cu"))
    stripped, anchors = strip_barriers(k)
    assert anchors and k.launch.blocks > 1
    candidates = [stripped] + [insert_barriers(stripped, anchors[:i], check_placeable=False)[0]
                               for i in range(1, len(anchors) + 1)]
    cached = SDVOracle()
    for i, cand in enumerate(candidates):
        fresh = SDVOracle(cross_cache=False).check(cand)
        v = cached.check(cand)
        assert _facts(v) == _facts(fresh)
        if i > 0:  # the cross-block half came from the cache
            assert v.queries < fresh.queries


def test_cross_cache_key_ignores_only_barriers() -> None:
    k = load_kernel(os.path.join(ROOT, "sdk_kernels", "matrixMul.cu"))
    stripped, anchors = strip_barriers(k)
    o = SDVOracle()
    o.check(stripped)
    o.check(insert_barriers(stripped, anchors, check_placeable=False)[0])
    assert len(o._cross) == 1
    other = load_kernel(os.path.join(ROOT, "sdk_kernels", "d_transpose.cu"))
    o.check(other)
    assert len(o._cross) == 2


def test_mixed_kinds_do_not_depend_on_solver_history() -> None:
    """reduce0 without barriers: ``s[tid] += s[tid + s]`` races with itself; both (read,
    write) and (write, read) are feasible, the most severe first is reported every time."""
    k, _ = strip_barriers(load_kernel(os.path.join(ROOT, "sdk_kernels", "reduce0.cu")))
    alone = SDVOracle().check(k)
    o = SDVOracle()
    o.check(load_kernel(os.path.join(ROOT, "sdk_kernels", "sobol.cu")))  # perturb z3 state
    after = o.check(k)
    assert _facts(alone) == _facts(after)
    self_races = [r for r in alone.races if r.first == r.second]
    assert self_races and all(r.kinds == ("write", "read") for r in self_races)


def test_apply_uf_id_cache_matches_string_key() -> None:
    x = z3.BitVec("spd_x", 16)
    f = z3.Const("spd_f", FLOAT_SORT)
    app = apply_uf("spd_g", [x, f], FLOAT_SORT)
    assert app.decl().eq(func("spd_g", [x.sort(), f.sort()], FLOAT_SORT))
    assert apply_uf("spd_g", [x, f], FLOAT_SORT).eq(app)
    assert not apply_uf("spd_g", [z3.BitVec("spd_y", 32), f], FLOAT_SORT).decl().eq(app.decl())
    assert bv_size(x) == 16
    assert is_true(z3.BoolVal(True)) and not is_true(z3.Bool("spd_b")) and not is_true(1)
    assert is_false(z3.simplify(z3.And(z3.Bool("spd_b"), z3.Not(z3.Bool("spd_b")))))


# --------------------------------------------------------------------------- slicing

_CAST_INDEX = """//--blockDim=64 --gridDim=1
__global__ void k(int *out, int n) {{
  __shared__ int s[256];
  int tid = threadIdx.x;
  float f = 0.0f;
  float acc = 0.0f;
  for (int i = 0; i < n; i++) {{
    f = f + 1.0f;
    acc = acc * 2.0f + f;
    s[{index}] = tid;
    __syncthreads();
  }}
  out[tid] = (int)acc;
}}
"""


def test_slicing_keeps_a_float_that_reaches_an_index() -> None:
    """``f`` is a float, but cast to int it indexes ``s``: it must keep its invariants
    (uniform(f) proves the race-free twin) and the racy twin must still race; ``acc`` only
    flows into stored data and is sliced away."""
    from kpl.frontend import parse_kernel_text
    from oracle.sdv_invariants import relevant_vars

    ok = parse_kernel_text(_CAST_INDEX.format(index="tid + (int)f"))
    rel = relevant_vars(ok)
    assert "f" in rel and "i" in rel and "acc" not in rel
    assert SDVOracle().check(ok).verified
    racy = SDVOracle().check(parse_kernel_text(_CAST_INDEX.format(index="(int)f")))
    assert [r.array for r in racy.races] == ["s"]
    # the accumulator made racy through a cast stays racy
    racy2 = SDVOracle().check(parse_kernel_text(_CAST_INDEX.format(index="(int)acc")))
    assert [r.array for r in racy2.races] == ["s"]


def test_slicing_drops_the_matrix_accumulator() -> None:
    """matrixMul's ``Csub`` only flows into ``C``'s stored data; the tile counters decide
    addresses and guards.  Reads of never-written ``A``/``B`` decide nothing."""
    from oracle.sdv_invariants import relevant_vars

    k = load_kernel(os.path.join(ROOT, "sdk_kernels", "matrixMul.cu"))
    rel = relevant_vars(k)
    assert "Csub" not in rel
    assert {"a", "k", "tx", "ty"} <= rel
    assert "b" not in rel  # only indexes B, which nobody writes
    assert SDVOracle().check(k).verified
