"""Tests of the ``dynamic`` oracle (concrete lock-step execution, [AutoSync] Fig. 9).

Hand-built KPL kernels for the paper's Fig. 2, 4, 6 and 7 (races at the stated label pairs,
the fixed versions clean), barrier divergence, atomics, cross-block global races,
warp-synchronous mode, control-flow masks, integer semantics and the front-end kernels of
``microbench/``.
"""

from __future__ import annotations

import glob
import os
from typing import Any

import pytest
from conftest import (
    BDIM_X,
    BID_X,
    TID_X,
    KernelBuilder,
    add,
    assign,
    atomic_add,
    barrier,
    bop,
    brk,
    c,
    cont,
    decl,
    eq,
    for_,
    ge,
    if_,
    land,
    load,
    lt,
    mod,
    mul,
    ret,
    slow,
    store,
    sub,
    while_,
)

from kpl import frontend
from kpl.ast import (
    INT,
    UINT,
    Atomic,
    Binary,
    Block,
    Cast,
    Cond,
    Const,
    ExprStmt,
    Inline,
    Kernel,
    NamedBarrier,
    Return,
    Space,
    Switch,
    Var,
)
from kpl.ctypes import common_type, convert
from kpl.labels import LabelTree
from oracle.base import Race, Verdict
from oracle.dynamic import DynamicOracle
from oracle.registry import get_oracle

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
tid, x, y, i, j = Var("tid"), Var("x"), Var("y"), Var("i"), Var("j")


def pairs(races: list[Race]) -> set[tuple[int, int]]:
    return {(r.first, r.second) for r in races}


def check(kernel: Kernel, **opts: Any) -> tuple[DynamicOracle, Verdict]:
    oracle = DynamicOracle(**opts)
    return oracle, oracle.check(kernel)


# --------------------------------------------------------------------------- Fig. 2


def fig2(fixed: bool) -> tuple[Kernel, list]:
    kb = KernelBuilder("fig2", 64)
    A = kb.shared("A", 65)
    s1 = assign(x, load(A, add(tid, 1)))
    s2 = assign(x, add(x, 11))
    s3 = store(A, tid, add(load(A, tid), x))
    body = [s1, s2] + ([barrier()] if fixed else []) + [s3]
    return kb.build(decl(tid, Cast(INT, TID_X)), decl(x), body), [s1, s2, s3]


def test_fig2_race_read_write_between_lines_1_and_3() -> None:
    kernel, (s1, _, s3) = fig2(False)
    _, v = check(kernel)
    assert [(r.first, r.second, r.array, r.kinds) for r in v.races] == [
        (s1.label, s3.label, "A", ("read", "write"))]
    race = v.races[0]
    assert race.space == Space.SHARED and race.loop_depth == 0
    w = race.witness
    assert w is not None and w.index is not None
    # thread t1 reads A[t1+1], thread t2 writes A[t2]: the witness must be consistent
    assert w.thread1[0] + 1 == w.index == w.thread2[0]
    assert not v.divergences and not v.unknowns


def test_fig2_fixed_is_clean() -> None:
    kernel, _ = fig2(True)
    _, v = check(kernel)
    assert v.verified


def test_registry_finds_dynamic() -> None:
    oracle = get_oracle("dynamic", seed=3)
    assert isinstance(oracle, DynamicOracle) and oracle.seed == 3
    kernel, (s1, _, s3) = fig2(False)
    assert pairs(oracle.races(kernel)) == {(s1.label, s3.label)}
    assert oracle.divergences(kernel) == []


# --------------------------------------------------------------------------- Fig. 4


def fig4(intra: bool, inter: bool) -> tuple[Kernel, list]:
    kb = KernelBuilder("fig4", 64)
    A = kb.shared("A", 65)
    n = kb.scalar("n")
    kb.require(land(ge(n, 2), bop("<=", n, 4)))
    s2 = assign(x, load(A, add(tid, 1)))
    s3 = assign(x, add(x, i))
    s4 = store(A, tid, add(load(A, tid), x))
    body = ([barrier()] if inter else []) + [s2, s3] + ([barrier()] if intra else []) + [s4]
    return kb.build(decl(tid, Cast(INT, TID_X)), decl(x), for_(i, 0, n, body)), [s2, s3, s4]


def test_fig4_loop_race_is_both_intra_and_inter_iteration() -> None:
    kernel, (s2, _, s4) = fig4(False, False)
    _, v = check(kernel)
    assert pairs(v.races) == {(s2.label, s4.label)}
    assert {r.loop_depth for r in v.races} == {0, 1}


def test_fig4_red_barrier_alone_leaves_the_inter_iteration_race() -> None:
    kernel, (s2, _, s4) = fig4(True, False)
    _, v = check(kernel)
    assert [(r.first, r.second, r.loop_depth) for r in v.races] == [(s2.label, s4.label, 1)]


def test_fig4_green_barrier_alone_leaves_the_intra_iteration_race() -> None:
    kernel, (s2, _, s4) = fig4(False, True)
    _, v = check(kernel)
    assert [(r.first, r.second, r.loop_depth) for r in v.races] == [(s2.label, s4.label, 0)]


def test_fig4_fixed_is_clean() -> None:
    kernel, _ = fig4(True, True)
    _, v = check(kernel)
    assert v.verified


def test_fig4_given_input_single_iteration_has_no_inter_race() -> None:
    kernel, (s2, _, s4) = fig4(False, False)
    kernel.requires.clear()
    kernel.body.stmts = kernel.body.stmts[1:]  # drop the Assume
    oracle, v = check(kernel, inputs={"n": 1})
    assert oracle.last_params == {"n": 1}
    assert [(r.first, r.second, r.loop_depth) for r in v.races] == [(s2.label, s4.label, 0)]


def test_nested_loop_depths() -> None:
    """2-2-loop-d2-both: B and A are both carried by the outer loop (depth 1; A rows depend on
    j only), A also races within one iteration (depth 0)."""
    kb = KernelBuilder("d2", 16)
    A = kb.shared("A", 4 * 17)
    B = kb.shared("B", 5 * 16)
    s_b = assign(y, load(B, add(mul(i, 16), mod(add(tid, 1), 16))))
    s_a = assign(x, load(A, add(mul(j, 17), add(tid, 1))))
    w_a = store(A, add(mul(j, 17), tid), add(x, y))
    w_b = store(B, add(mul(add(i, 1), 16), tid), y)
    kernel = kb.build(decl(tid, Cast(INT, TID_X)), decl(x), decl(y),
                      for_(i, 0, 4, [s_b, for_(j, 0, 4, [s_a, w_a]), w_b]))
    _, v = check(kernel)
    got = {(r.first, r.second, r.array, r.loop_depth) for r in v.races}
    assert got == {(s_b.label, w_b.label, "B", 1), (s_a.label, w_a.label, "A", 0),
                   (s_a.label, w_a.label, "A", 1)}


# --------------------------------------------------------------------------- Fig. 6


def fig6(where: str) -> tuple[Kernel, list]:
    kb = KernelBuilder("fig6", 64)
    A = kb.shared("A", 66)
    s1 = assign(x, 0)
    s3 = assign(x, load(A, add(tid, 2)))
    s6 = store(A, tid, add(load(A, tid), x))
    bar = barrier()
    then1 = [s3] + ([bar] if where == "in_first" else [])
    then2 = ([bar] if where == "in_second" else []) + [s6]
    body = [s1, if_(eq(mod(tid, 2), 0), then1)] + ([bar] if where == "between" else []) + [
        if_(eq(mod(tid, 6), 0), then2)]
    return kb.build(decl(tid, Cast(INT, TID_X)), decl(x), body), [s3, s6, bar]


def test_fig6_race_between_the_two_ifs() -> None:
    kernel, (s3, s6, _) = fig6("none")
    _, v = check(kernel)
    assert [(r.first, r.second, r.kinds) for r in v.races] == [(s3.label, s6.label, ("read", "write"))]
    w = v.races[0].witness
    assert w is not None and w.thread1[0] % 2 == 0 and w.thread2[0] % 6 == 0


@pytest.mark.parametrize("where", ["in_first", "in_second"])
def test_fig6_barrier_inside_either_if_diverges(where: str) -> None:
    kernel, (_, _, bar) = fig6(where)
    _, v = check(kernel)
    assert [d.label for d in v.divergences] == [bar.label]
    w = v.divergences[0].witness
    assert w is not None and w.thread1 != w.thread2


def test_fig6_fixed_is_clean() -> None:
    kernel, _ = fig6("between")
    _, v = check(kernel)
    assert v.verified


# --------------------------------------------------------------------------- Fig. 7


def fig7(fixed: bool) -> tuple[Kernel, list]:
    kb = KernelBuilder("fig7", 64)
    A = kb.shared("A", 65)
    B = kb.shared("B", 65)
    s1 = assign(x, load(A, add(tid, 1)))
    s2 = assign(y, load(B, add(tid, 1)))
    s3 = store(A, tid, add(x, y))
    s4 = store(B, tid, sub(x, y))
    body = [s1, s2] + ([barrier()] if fixed else []) + [s3, s4]
    return kb.build(decl(tid, Cast(INT, TID_X)), decl(x), decl(y), body), [s1, s2, s3, s4]


def test_fig7_two_races() -> None:
    kernel, (s1, s2, s3, s4) = fig7(False)
    _, v = check(kernel)
    assert {(r.first, r.second, r.array) for r in v.races} == {
        (s1.label, s3.label, "A"), (s2.label, s4.label, "B")}


def test_fig7_one_barrier_fixes_both() -> None:
    kernel, _ = fig7(True)
    _, v = check(kernel)
    assert v.verified


# --------------------------------------------------------------------------- divergence


def test_divergence_under_thread_dependent_if() -> None:
    kb = KernelBuilder("div", 16)
    bar = barrier()
    kernel = kb.build(decl(tid, Cast(INT, TID_X)), if_(lt(tid, 4), [bar]))
    _, v = check(kernel)
    assert [d.label for d in v.divergences] == [bar.label]
    assert not v.races


def test_barrier_under_guard_true_for_every_thread_is_not_divergent() -> None:
    """Divergence is semantic: ``if (tid < blockDim.x)`` holds for all threads."""
    kb = KernelBuilder("nodiv", 16)
    n = kb.scalar("n")
    kb.require(eq(n, 16))
    kernel = kb.build(decl(tid, Cast(INT, TID_X)),
                      if_(lt(tid, Cast(INT, BDIM_X)), [barrier()]),
                      if_(lt(tid, n), [barrier()]))
    _, v = check(kernel)
    assert v.verified


def test_early_return_then_barrier_diverges() -> None:
    kb = KernelBuilder("early", 16)
    bar = barrier()
    kernel = kb.build(decl(tid, Cast(INT, TID_X)), if_(ge(tid, 12), [ret()]), bar)
    _, v = check(kernel)
    assert [d.label for d in v.divergences] == [bar.label]


def test_uniform_early_return_does_not_diverge() -> None:
    kb = KernelBuilder("early_uniform", 16, grid_dim=2)
    kernel = kb.build(if_(ge(Cast(INT, BID_X), 1), [ret()]), barrier())
    _, v = check(kernel)
    assert v.verified


def test_barrier_after_thread_dependent_break_diverges() -> None:
    kb = KernelBuilder("brk", 8)
    bar = barrier()
    kernel = kb.build(decl(tid, Cast(INT, TID_X)),
                      for_(i, 0, 3, [if_(lt(tid, 2), [brk()]), bar]))
    _, v = check(kernel)
    assert [d.label for d in v.divergences] == [bar.label]


def test_barrier_in_loop_with_thread_dependent_trip_count_diverges() -> None:
    kb = KernelBuilder("trip", 8)
    bar = barrier()
    kernel = kb.build(decl(tid, Cast(INT, TID_X)), for_(i, 0, tid, [bar]))
    _, v = check(kernel)
    assert [d.label for d in v.divergences] == [bar.label]


def test_stop_at_divergence_cuts_the_run() -> None:
    kb = KernelBuilder("stop", 8)
    A = kb.shared("A", 16)
    rd = assign(x, load(A, add(tid, 1)))
    wr = store(A, tid, 1)
    kernel = kb.build(decl(tid, Cast(INT, TID_X)), decl(x), if_(lt(tid, 2), [barrier()]), rd, wr)
    _, full = check(kernel)
    assert pairs(full.races) == {(rd.label, wr.label)} and full.divergences
    _, cut = check(kernel, stop_at_divergence=True)
    assert cut.divergences and not cut.races


def test_barrier_nobody_reaches_does_not_synchronise() -> None:
    """``if (n > 100) __syncthreads();`` with n <= 3: no thread executes the barrier."""
    kb = KernelBuilder("unreached", 8)
    A = kb.shared("A", 16)
    n = kb.scalar("n")
    kb.require(land(ge(n, 1), bop("<=", n, 3)))
    wr = store(A, tid, 1)
    rd = assign(x, load(A, add(tid, 1)))
    kernel = kb.build(decl(tid, Cast(INT, TID_X)), decl(x), wr,
                      if_(bop(">", n, 100), [barrier()]), rd)
    _, v = check(kernel)
    assert pairs(v.races) == {(wr.label, rd.label)}
    assert not v.divergences


# --------------------------------------------------------------------------- atomics, global memory


def test_atomics_do_not_race_with_atomics_but_do_with_plain_accesses() -> None:
    kb = KernelBuilder("atom", 16)
    A = kb.shared("A", 4)
    a1 = atomic_add(A, 0, 1)
    a2 = atomic_add(A, mod(tid, 2), 1)
    kernel = kb.build(decl(tid, Cast(INT, TID_X)), a1, a2)
    _, v = check(kernel)
    assert v.verified
    rd = assign(x, load(A, 1))
    kernel = kb.build(decl(tid, Cast(INT, TID_X)), decl(x), atomic_add(A, mod(tid, 2), 1), rd)
    _, v = check(kernel)
    a = kernel.body.stmts[2]
    assert [(r.first, r.second, r.kinds) for r in v.races] == [(a.label, rd.label, ("atomic", "read"))]


def test_atomic_results_are_serialised() -> None:
    kb = KernelBuilder("count", 16, grid_dim=2)
    G = kb.global_array("G")
    kernel = kb.build(atomic_add(G, 0, 1))
    oracle, v = check(kernel, inputs={"G": [0]})
    assert v.verified
    assert oracle.last_globals["G"][0] == 32


def test_cross_block_global_race() -> None:
    kb = KernelBuilder("xblock", 8, grid_dim=4)
    G = kb.global_array("G")
    wr = store(G, tid, 1)
    kernel = kb.build(decl(tid, Cast(INT, TID_X)), wr)
    _, benign = check(kernel)
    assert benign.verified  # every block stores the same 1: benign by default
    _, v = check(kernel, benign=False)  # --no-benign
    assert len(v.races) == 1
    race = v.races[0]
    assert (race.first, race.second, race.kinds, race.space) == (
        wr.label, wr.label, ("write", "write"), Space.GLOBAL)
    assert race.loop_depth is None
    w = race.witness
    assert w is not None and w.block1 != w.block2 and w.thread1 == w.thread2
    # one block only: no race; block-partitioned indices: no race
    _, v1 = check(kernel, blocks=1)
    assert v1.verified
    kb2 = KernelBuilder("xblock_ok", 8, grid_dim=4)
    G2 = kb2.global_array("G")
    ok = kb2.build(decl(tid, Cast(INT, TID_X)),
                   store(G2, add(mul(Cast(INT, BID_X), 8), tid), 1))
    _, v2 = check(ok)
    assert v2.verified


def test_barrier_does_not_order_blocks() -> None:
    kb = KernelBuilder("xblock_bar", 8, grid_dim=2)
    G = kb.global_array("G")
    wr = store(G, tid, 1)
    rd = assign(x, load(G, add(tid, 1)))
    kernel = kb.build(decl(tid, Cast(INT, TID_X)), decl(x), wr, barrier(), rd)
    _, v = check(kernel, benign=False)  # every block stores the same 1: --no-benign
    assert all(r.witness is not None and r.witness.block1 != r.witness.block2 for r in v.races)
    assert pairs(v.races) == {(wr.label, rd.label), (wr.label, wr.label)}


# --------------------------------------------------------------------------- warp-sync


def warp_tail(warp_sync: int | None) -> tuple[Kernel, list]:
    kb = KernelBuilder("tail", 64, warp_sync=warp_sync)
    s = kb.shared("s", 64)
    init = store(s, tid, tid)
    s1 = store(s, tid, add(load(s, tid), load(s, add(tid, 32))))
    s2 = store(s, tid, add(load(s, tid), load(s, add(tid, 16))))
    kernel = kb.build(decl(tid, Cast(INT, TID_X)), init, barrier(), if_(lt(tid, 32), [s1, s2]))
    return kernel, [s1, s2]


def test_warp_sync_tail_is_clean_only_under_warp_sync() -> None:
    kernel, (s1, s2) = warp_tail(32)
    _, v = check(kernel)
    assert v.verified
    kernel, (s1, s2) = warp_tail(None)
    _, v = check(kernel)
    assert pairs(v.races) == {(s1.label, s2.label), (s2.label, s2.label)}


def test_warp_sync_same_instruction_writes_still_race() -> None:
    kb = KernelBuilder("ww", 32, warp_sync=32)
    A = kb.shared("A", 4)
    wr = store(A, 0, tid)
    kernel = kb.build(decl(tid, Cast(INT, TID_X)), wr)
    _, v = check(kernel)
    assert [(r.first, r.second, r.kinds) for r in v.races] == [(wr.label, wr.label, ("write", "write"))]


def test_warp_sync_does_not_order_different_warps() -> None:
    kb = KernelBuilder("warps", 8, warp_sync=4)
    A = kb.shared("A", 16)
    rd = assign(x, load(A, mod(add(tid, 1), 8)))
    wr = store(A, tid, x)
    kernel = kb.build(decl(tid, Cast(INT, TID_X)), decl(x), rd, wr)
    _, v = check(kernel)
    assert pairs(v.races) == {(rd.label, wr.label)}
    w = v.races[0].witness
    assert w is not None and w.thread1[0] // 4 != w.thread2[0] // 4


# --------------------------------------------------------------------------- control flow


def test_continue_reenables_threads_before_the_latch() -> None:
    """Odd threads ``continue``; the latch (i++) still runs for them, so every thread does
    the same 4 iterations and even threads store 4 times."""
    kb = KernelBuilder("cont", 8)
    G = kb.global_array("G")
    body = [if_(eq(mod(tid, 2), 1), [cont()]), store(G, tid, add(load(G, tid), 1))]
    kernel = kb.build(decl(tid, Cast(INT, TID_X)), for_(i, 0, 4, body),
                      store(G, add(tid, 8), i))
    oracle, v = check(kernel, inputs={"G": [0] * 16}, blocks=1)
    assert v.verified
    g = oracle.last_globals["G"]
    assert [g[t] for t in range(8)] == [4, 0] * 4
    assert [g[8 + t] for t in range(8)] == [4] * 8


def test_break_leaves_only_the_breaking_threads() -> None:
    kb = KernelBuilder("brk_count", 4)
    G = kb.global_array("G")
    body = [if_(eq(i, tid), [brk()]), store(G, tid, add(load(G, tid), 1))]
    kernel = kb.build(decl(tid, Cast(INT, TID_X)), for_(i, 0, 10, body))
    oracle, v = check(kernel, inputs={"G": [0] * 4}, blocks=1)
    assert v.verified
    assert [oracle.last_globals["G"][t] for t in range(4)] == [0, 1, 2, 3]


def test_loop_runs_while_any_thread_holds_the_guard() -> None:
    """A barrier in a loop whose trip count is uniform is fine; threads finishing early make
    it divergent (checked above); here a do-while runs its body once even if the guard fails."""
    kb = KernelBuilder("dowhile", 4)
    G = kb.global_array("G")
    from kpl.ast import Loop
    loop = Loop(c(0), Block([store(G, tid, 7)]), kind="do", test_first=False)
    kernel = kb.build(decl(tid, Cast(INT, TID_X)), loop)
    oracle, v = check(kernel, inputs={"G": [0] * 4}, blocks=1)
    assert v.verified and [oracle.last_globals["G"][t] for t in range(4)] == [7] * 4


def test_short_circuit_and_conditional_skip_reads() -> None:
    kb = KernelBuilder("sc", 8)
    A = kb.shared("A", 16)
    cond_and = land(lt(tid, 0), bop(">", load(A, add(tid, 1)), 0))
    cond_or = bop("||", ge(tid, 0), bop(">", load(A, add(tid, 1)), 0))
    sel = Cond(lt(tid, 0), load(A, add(tid, 1)), c(0))
    wr = store(A, tid, 1)
    kernel = kb.build(decl(tid, Cast(INT, TID_X)), decl(x), assign(x, cond_and),
                      assign(x, cond_or), assign(x, sel), wr)
    _, v = check(kernel)
    assert v.verified
    # evaluated operand: reads happen and race
    rd = assign(x, bop("&&", ge(tid, 0), bop(">", load(A, add(tid, 1)), 0)))
    kernel = kb.build(decl(tid, Cast(INT, TID_X)), decl(x), rd, store(A, tid, 1))
    _, v = check(kernel)
    assert len(v.races) == 1 and v.races[0].first == rd.label


def test_inline_return_leaves_only_the_function() -> None:
    kb = KernelBuilder("inline", 8)
    r = Var("r")
    body = Block([if_(lt(tid, 4), [Return(c(1))]), Return(c(2))])
    inl = Inline("f", body, result=r)
    G = kb.global_array("G")
    kernel = kb.build(decl(tid, Cast(INT, TID_X)), decl(r), inl, barrier(), store(G, tid, r))
    oracle, v = check(kernel, inputs={"G": [0] * 8}, blocks=1)
    assert v.verified  # the barrier after the call is reached by every thread
    assert [oracle.last_globals["G"][t] for t in range(8)] == [1] * 4 + [2] * 4


def test_switch_break_leaves_the_switch_not_the_loop() -> None:
    kb = KernelBuilder("switch", 4)
    G = kb.global_array("G")
    sw = Switch(Block([if_(eq(tid, 0), [brk()]), store(G, tid, add(load(G, tid), 10))]))
    kernel = kb.build(decl(tid, Cast(INT, TID_X)),
                      for_(i, 0, 2, [sw, store(G, add(tid, 4), add(load(G, add(tid, 4)), 1))]))
    oracle, v = check(kernel, inputs={"G": [0] * 8}, blocks=1)
    assert v.verified
    g = oracle.last_globals["G"]
    assert [g[t] for t in range(8)] == [0, 20, 20, 20, 2, 2, 2, 2]


def test_block_scope_shadowing_is_restored() -> None:
    kb = KernelBuilder("shadow", 4)
    G = kb.global_array("G")
    kernel = kb.build(decl(x, 5), if_(eq(c(1), 1), [decl(x, 9), store(G, 0, x)]), store(G, 1, x))
    oracle, _ = check(kernel, blocks=1)
    assert (oracle.last_globals["G"][0], oracle.last_globals["G"][1]) == (9, 5)


# --------------------------------------------------------------------------- values


def test_integer_semantics() -> None:
    assert convert(-1, UINT) == 2**32 - 1
    assert convert(2**31, INT) == -(2**31)
    assert convert(3.9, INT) == 3 and convert(-3.9, INT) == -3
    assert common_type(INT, UINT) == UINT
    kb = KernelBuilder("ints", 1)
    G = kb.global_array("G")
    u = Var("u", UINT)
    exprs = [
        Binary("/", c(-7), c(2), INT),                      # C truncation: -3
        Binary("%", c(-7), c(2), INT),                      # -1
        Binary(">>", c(-8), c(1), INT),                     # arithmetic shift: -4
        Binary(">>", u, c(28), UINT),                       # logical shift of 0xFFFFFFFF: 15
        Binary("+", u, c(2), UINT),                         # wraps to 1
        Binary("<", c(-1), Const(1, UINT), INT),            # -1 converts to UINT_MAX: 0
        Binary("<<", c(1), c(31), INT),                     # INT_MIN
    ]
    stmts = [decl(u, Const(2**32 - 1, UINT))] + [store(G, k, e) for k, e in enumerate(exprs)]
    kernel = kb.build(stmts)
    oracle, v = check(kernel, blocks=1)
    assert v.verified
    g = oracle.last_globals["G"]
    assert [g[k] for k in range(len(exprs))] == [-3, -1, -4, 15, 1, 0, -(2**31)]


def test_never_written_memory_is_deterministic() -> None:
    kb = KernelBuilder("rand", 4)
    G = kb.global_array("G")
    H = kb.global_array("H")
    kernel = kb.build(decl(tid, Cast(INT, TID_X)), store(H, tid, load(G, tid)))
    o1, _ = check(kernel, blocks=1)
    o2, _ = check(kernel, blocks=1)
    assert o1.last_globals["H"] == o2.last_globals["H"]
    assert len(set(o1.last_globals["H"].values())) > 1


def test_requires_equalities_are_solved() -> None:
    kb = KernelBuilder("req", 4)
    n = kb.scalar("n")
    m = kb.scalar("m")
    kb.require(land(eq(n, 12345), eq(m, mul(n, 2))))
    kernel = kb.build(barrier())
    oracle, v = check(kernel)
    assert v.verified
    assert oracle.last_params == {"n": 12345, "m": 24690}


def test_unsatisfiable_requires_is_unknown() -> None:
    kb = KernelBuilder("unsat", 4)
    n = kb.scalar("n")
    kb.require(land(lt(n, 0), bop(">", n, 0)))
    _, v = check(kb.build(barrier()))
    assert v.unknowns and not v.verified


def test_step_limit_is_unknown_at_the_loop() -> None:
    kb = KernelBuilder("spin", 4)
    loop = while_(c(1), [assign(x, add(x, 1))])
    kernel = kb.build(decl(x), loop)
    _, v = check(kernel, max_steps=5000)
    assert [(u.reason, u.label) for u in v.unknowns] == [("step limit", loop.label)]


def test_named_barriers_point_to_the_named_oracle() -> None:
    kb = KernelBuilder("named", 64)
    nb = NamedBarrier("sync", c(1), c(64))
    kernel = kb.build(nb)
    _, v = check(kernel)
    assert len(v.unknowns) == 1 and "--oracle named" in v.unknowns[0].reason
    assert v.unknowns[0].label == nb.label


def test_opaque_calls_and_math() -> None:
    from kpl.ast import FLOAT, Call
    kb = KernelBuilder("calls", 1)
    F = kb.global_array("F", FLOAT)
    G = kb.global_array("G")
    kernel = kb.build(store(F, 0, Call("sqrtf", (Const(16.0, FLOAT),), FLOAT)),
                      store(G, 0, Call("min", (c(3), c(-2)), INT)),
                      store(G, 1, Call("__shfl_down_sync", (c(1), c(2)), INT)),
                      store(G, 2, Call("__shfl_down_sync", (c(1), c(2)), INT)))
    oracle, v = check(kernel, blocks=1)
    assert v.verified
    assert oracle.last_globals["F"][0] == 4.0 and oracle.last_globals["G"][0] == -2
    assert oracle.last_globals["G"][1] == oracle.last_globals["G"][2]


def test_atomic_exchange_and_cas() -> None:
    kb = KernelBuilder("cas", 8)
    G = kb.global_array("G")
    cas = ExprStmt(Atomic("atomicCAS", G, c(0), (c(-1), Cast(INT, TID_X)), INT))
    kernel = kb.build(cas)
    oracle, v = check(kernel, inputs={"G": [-1]}, blocks=1)
    assert v.verified and oracle.last_globals["G"][0] == 0  # the first thread in order wins


# --------------------------------------------------------------------------- front-end kernels

#: expected race label pairs of the barrier-free micro-benchmarks, by source line
RACY = {
    "1-1-main.cu": {("8", "10", 0)},
    "1-1-if.cu": {("10", "13", 0)},
    "1-1-loop-intra.cu": {("9", "10", 0)},
    "1-1-loop-inter.cu": {("9", "11", 1)},
    "2-1-main.cu": {("9", "11", 0), ("10", "12", 0)},
    "2-1-loop-d2-intra.cu": {("11", "13", 0), ("12", "14", 0)},
    "2-2-loop-both.cu": {("9", "11", 0), ("9", "11", 1)},
    "2-2-loop-d2-both.cu": {("10", "17", 1), ("12", "14", 0), ("12", "14", 1)},
}


@pytest.mark.parametrize("name", sorted(RACY))
def test_microbench_racy(name: str) -> None:
    kernel = frontend.load_kernel(os.path.join(ROOT, "microbench", name))
    tree = LabelTree(kernel)
    v = DynamicOracle(inputs={"n": 3}).check(kernel)
    got = {(tree.name(r.first), tree.name(r.second), r.loop_depth) for r in v.races}
    assert got == RACY[name]
    assert not v.divergences and not v.unknowns


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(ROOT, "microbench", "expected", "*.cu"))),
                         ids=os.path.basename)
def test_microbench_expected_clean(path: str) -> None:
    kernel = frontend.load_kernel(path)
    for seed in (0, 1):
        v = DynamicOracle(seed=seed).check(kernel)
        assert v.verified, (seed, v)


def _kernel_files() -> list[str]:
    files = sorted(glob.glob(os.path.join(ROOT, "tests", "kernels", "*.cu")))
    files += sorted(glob.glob(os.path.join(ROOT, "sdk_kernels", "*.cu")))
    return files


#: the two longest concrete runs (half a minute each): their verdicts are pinned by sdv's tests
_SLOW_RUNS = {"matrixMul.cu", "reduce6.cu"}


@pytest.mark.parametrize("path", [pytest.param(p, marks=slow) if os.path.basename(p) in _SLOW_RUNS else p
                                  for p in _kernel_files()], ids=lambda p: os.path.relpath(p, ROOT))
def test_kernel_files_match_their_expected_verdict(path: str) -> None:
    """``//pass`` files run clean; ``// autosync: races=a-b,…`` / ``divergent=l`` files show
    exactly those line pairs / barrier lines (every kernel of a multi-kernel file)."""
    for kernel in frontend.load_kernels(path):
        tree = LabelTree(kernel)
        v = DynamicOracle().check(kernel)
        assert not v.unknowns, (kernel.name, v.unknowns)
        expected = kernel.expected
        if expected.get("verdict") == "pass":
            assert v.verified, (kernel.name, [(tree.line(r.first), tree.line(r.second), r.kind)
                                              for r in v.races])
            continue
        want = {tuple(int(n) for n in p.split("-")) for p in expected.get("races", "").split(",") if p}
        assert {(tree.line(r.first), tree.line(r.second)) for r in v.races} == want, kernel.name
        want_divs = {int(n) for n in expected.get("divergent", "").split(",") if n}
        assert {tree.line(d.label) for d in v.divergences} == want_divs, kernel.name


# --------------------------------------------------------------------------- inlined calls in loops

_CALL_IN_LOOP = """//--blockDim=64 --gridDim=1
__device__ int pick(int i) { return i; }
__global__ void k(int *A) {
  __shared__ int s[64];
  for (int i = 0; i < 2; i++) {
    int j = pick(i);
    if (j == 1) s[0] = threadIdx.x;
    else s[threadIdx.x] = 1;
  }
}
"""


def test_inlined_call_in_loop_returns_this_iterations_value(tmp_path: Any) -> None:
    """The call's result is declared in the inlined body; leaving the body must not put back
    the previous iteration's value (it did: the write at j == 1 never ran, race missed)."""
    path = tmp_path / "call_loop.cu"
    path.write_text(_CALL_IN_LOOP)
    _, verdict = check(frontend.load_kernel(str(path)))
    # s[0] = threadIdx.x runs only when j == 1 (the second iteration): a write-write race
    assert any(r.kinds == ("write", "write") and r.first == r.second for r in verdict.races)


_DEVICE_SHARED = """//--blockDim=64 --gridDim=2
__device__ __shared__ int s[64];
__global__ void k(int *A) {
  s[threadIdx.x] = 1;
  s[WHERE] = threadIdx.x;
}
"""


@pytest.mark.parametrize("where,racy", [("threadIdx.x", False), ("0", True)])
def test_device_shared_is_shared_memory(tmp_path: Any, where: str, racy: bool) -> None:
    """``__device__ __shared__`` is per block: no cross-block race (the first qualifier,
    ``__device__``, made it global memory); the racy twin still races within a block."""
    path = tmp_path / "dev_shared.cu"
    path.write_text(_DEVICE_SHARED.replace("WHERE", where))
    _, verdict = check(frontend.load_kernel(str(path)))
    assert bool(verdict.races) == racy
    assert not any(r.cross_block for r in verdict.races)
