"""Tests of the named-barrier oracle ([WEFT] Sec. 3-5).

Three layers: the kernel files under ``tests/kernels/named`` through the CUDA front end
(each declares its expected outcome), hand-built KPL for the emulation corner cases, and a
randomised cross-check of the Sec. 5.2 interval race test against the plain transitive
closure of Fig. 4's relation R on small programs.
"""

from __future__ import annotations

import random
import time
from collections import deque
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    TID,
    arrive,
    barrier,
    bop,
    brk,
    c,
    decl,
    for_,
    if_,
    kernel,
    lane_id,
    read,
    ret,
    shared,
    store,
    sync,
    v,
    warp_id,
)

from kpl import frontend
from kpl.ast import INT, Binary, Builtin, Const, If, Param, Var
from kpl.labels import LabelTree
from oracle.base import Verdict
from oracle.named import NamedBarrierOracle, describe_threads, uses_named_barriers
from oracle.named.emulate import Emulator
from oracle.registry import get_oracle

KDIR = Path(__file__).parent / "kernels" / "named"
FILES = sorted(KDIR.glob("*.cu"))

def load(name: str):  # type: ignore[no-untyped-def]
    return frontend.load_kernel(str(KDIR / name))


def check(k, **opts) -> Verdict:  # type: ignore[no-untyped-def]
    return NamedBarrierOracle(**opts).check(k)


def kinds(verdict: Verdict) -> set[str]:
    return {f.kind for f in verdict.findings}


def race_lines(k, verdict: Verdict) -> set[tuple[int | None, int | None]]:  # type: ignore[no-untyped-def]
    tree = LabelTree(k)
    return {(tree.line(r.first), tree.line(r.second)) for r in verdict.races}


# ----------------------------------------------------------------------------- kernel files


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_kernel_file_expectation(path: Path) -> None:
    """Every kernel file's header says what the checker must find."""
    k = frontend.load_kernel(str(path))
    verdict = check(k)
    exp = k.expected
    assert not verdict.unknowns, verdict.unknowns
    assert verdict.verified == (exp["verdict"] == "pass"), (verdict.findings, verdict.races)
    expect = exp.get("expect")
    if expect == "ok":
        assert verdict.verified
    elif expect == "race":
        assert verdict.races and not verdict.findings
    elif expect is not None:
        assert expect in kinds(verdict), verdict.findings
    tree = LabelTree(k)
    if "deadlock" in exp:
        lines = {tree.line(lab) for f in verdict.findings if f.kind == "deadlock"
                 for lab in f.labels}
        assert int(exp["deadlock"]) in lines
    if "races" in exp:
        first, second = (int(x) for x in exp["races"].split("-"))
        assert (first, second) in race_lines(k, verdict)


def test_listing1_deadlock_names_both_warps_barriers_and_lines() -> None:
    k = load("listing1_deadlock.cu")
    verdict = check(k)
    dead = [f for f in verdict.findings if f.kind == "deadlock"]
    assert {f.barrier_id for f in dead} == {0, 1}
    tree = LabelTree(k)
    assert {tree.line(lab) for f in dead for lab in f.labels} == {11, 14}
    text = dead[0].message
    assert "warp 0 (threads 0-31)" in text and "warp 1 (threads 32-63)" in text
    assert not verdict.races  # no complete trace: no race analysis


def test_listing2_is_well_synchronized_with_four_dynamic_barriers() -> None:
    oracle = NamedBarrierOracle()
    verdict = oracle.check(load("listing2_working.cu"))
    assert verdict.verified
    assert oracle.stats.dynamic_barriers == 4  # Fig. 3: n1..n4
    assert oracle.stats.units == 2


def test_cudadma_war_bug_reports_read_then_dma_write_with_threads() -> None:
    k = load("cudadma_war_bug.cu")
    verdict = check(k)
    assert race_lines(k, verdict) == {(27, 35), (27, 36)}
    for race in verdict.races:
        assert race.kinds == ("read", "write")
        assert race.array == "buf"
        assert race.witness is not None
        assert race.witness.thread1[0] < 64 <= race.witness.thread2[0]  # compute vs DMA


def test_recycling_bug_names_the_unordered_producer() -> None:
    k = load("recycling_bug.cu")
    f = [f for f in check(k).findings if f.kind == "unsafe-recycling"]
    assert len(f) == 1 and f[0].barrier_id == 1
    assert "warp 2 (threads 64-95)" in f[0].message


def test_count_mismatch_lists_both_counts() -> None:
    f = [f for f in check(load("count_mismatch.cu")).findings if f.kind == "count-mismatch"]
    assert len(f) == 1 and "say 96" in f[0].message and "say 64" in f[0].message


def test_an_arrive_that_never_completes_orders_nothing(tmp_path: Path) -> None:
    """A fuzzer mutant (10,000-mutant run, id 8414): count_mismatch.cu launched with ONE
    thread.  Its ``bar.arrive 3, 96`` never completes; the happens-before pass read the
    missing generation as node -1 (the LAST generation, or an IndexError when there is none).
    Now the left-over arrival is reported and orders nothing."""
    src = (KDIR / "count_mismatch.cu").read_text().replace("--blockDim=96", "--blockDim=1")
    (tmp_path / "k.cu").write_text(src)
    verdict = check(frontend.load_kernel(str(tmp_path / "k.cu")))
    assert {"over-arrival", "invalid-barrier"} <= kinds(verdict)


def test_a_two_billion_iteration_loop_is_unknown_within_seconds(tmp_path: Path) -> None:
    """A fuzzer mutant (10,000-mutant run, id 697): cudadma_war_bug.cu's loop starting at
    INT_MIN.  Emulation stops at the command budget and says so, a sound "unknown"; the
    budget used to be 50 million commands, which took 63 s and 2 GB to reach."""
    src = (KDIR / "cudadma_war_bug.cu").read_text()
    assert "int it = 0;" in src
    (tmp_path / "k.cu").write_text(src.replace("int it = 0;", "int it = -2147483648;"))
    start = time.perf_counter()
    verdict = check(frontend.load_kernel(str(tmp_path / "k.cu")))
    assert time.perf_counter() - start < 20
    assert not verdict.verified
    assert verdict.unknowns and "more than" in verdict.unknowns[0].reason


def test_registry_and_named_barrier_detection() -> None:
    assert isinstance(get_oracle("named"), NamedBarrierOracle)
    assert uses_named_barriers(load("listing2_working.cu"))


# ----------------------------------------------------------------------------- hand-built


G = shared("g", 64)


def test_listing2_with_arrive_before_write_races() -> None:
    lane = lane_id()
    body = [decl("warp", warp_id(shift=True)),
            sync(0, 64),
            if_(bop("==", v("warp"), 0), [arrive(1, 64), store(G, lane)],
                [sync(1, 64), read("x", G, lane)])]
    k = kernel(body, 64)
    verdict = check(k)
    assert not verdict.findings
    assert len(verdict.races) == 1
    race = verdict.races[0]
    assert race.kinds == ("write", "read") and race.witness is not None
    assert race.witness.thread1[0] % 32 == race.witness.thread2[0] % 32


def test_syncthreads_is_sync_zero_over_the_cta() -> None:
    ok = kernel([store(G, TID), barrier(), read("x", G, bop("-", 63, TID))], 64)
    assert check(ok).verified
    racy = kernel([store(G, TID), read("x", G, bop("-", 63, TID))], 64)
    assert len(check(racy).races) == 1


def test_divergent_syncthreads_deadlocks_and_is_a_divergence() -> None:
    bar = barrier()
    k = kernel([if_(bop("<", TID, 32), [bar])], 64)
    verdict = check(k)
    assert kinds(verdict) == {"deadlock"}
    assert [d.label for d in verdict.divergences] == [bar.label]


def test_left_over_arrivals_are_an_over_arrival() -> None:
    k = kernel([if_(bop("==", warp_id(), 0), [arrive(1, 64), arrive(1, 64)],
                    [sync(1, 64)])], 64)
    verdict = check(k)
    over = [f for f in verdict.findings if f.kind == "over-arrival"]
    assert over and "second time" in over[0].message


def test_invalid_barrier_id_and_count() -> None:
    k = kernel([sync(16, 64), sync(1, 48)], 64)
    msgs = [f.message for f in check(k).findings if f.kind == "invalid-barrier"]
    assert len(msgs) == 2 and "0..15" in msgs[0] and "multiple of the warp size" in msgs[1]


def test_branch_on_loaded_value_is_unknown_with_line() -> None:
    cond_if = if_(bop(">", v("x", INT), 0), [sync(1, 32)], line=42)
    k = kernel([read("x", shared("s", 64, INT), TID), cond_if], 64)
    verdict = check(k)
    assert not verdict.verified
    assert len(verdict.unknowns) == 1
    u = verdict.unknowns[0]
    assert u.line == 42 and "cannot analyze: line 42 depends on runtime data" in u.reason


def test_unfixed_parameter_is_unknown_and_requires_equality_fixes_it() -> None:
    n = Var("n", INT)
    stmts = [if_(bop("<", TID, n), [arrive(1, 64)], [sync(1, 64)], line=7)]
    k = kernel(stmts, 64, params=[Param("n", INT, var=n)])
    verdict = check(k)
    assert verdict.unknowns and "parameter 'n'" in verdict.unknowns[0].reason
    k.requires = [Binary("==", n, Const(32))]
    assert check(k).verified


def test_runtime_barrier_operand_is_unknown() -> None:
    k = kernel([read("x", shared("s", 64, INT), TID),
                sync(v("x"), 64, line=9)], 64)
    u = check(k).unknowns
    assert len(u) == 1 and u[0].line == 9


def test_runtime_shared_address_is_unknown_but_sync_checks_continue() -> None:
    idx = shared("idx", 64, INT)
    k = kernel([read("i", idx, TID), store(G, v("i"), line=5),
                if_(bop("==", warp_id(), 0), [sync(1, 64)])], 64)
    verdict = check(k)
    assert [u.line for u in verdict.unknowns] == [5]
    assert "deadlock" in kinds(verdict)


def test_warp_sync_orders_lanes_of_one_warp() -> None:
    """A warp-synchronous exchange: lane i writes, lane 31-i reads, no barrier."""
    lane = lane_id()
    k = kernel([store(G, TID), read("x", G, bop("-", bop("+", bop("-", TID, lane), 31), lane))],
               64)
    assert len(check(k).races) == 1
    assert check(k, warp_sync=True).verified
    k_ws = kernel([store(G, TID), read("x", G, bop("-", bop("+", bop("-", TID, lane), 31), lane))],
                  64, warp_sync=32)
    assert check(k_ws).verified
    # lock-step does not help across warps
    cross = kernel([store(G, TID), read("x", G, bop("-", 63, TID))], 64, warp_sync=32)
    assert len(check(cross).races) == 1


def test_warp_sync_still_reports_same_statement_write_write() -> None:
    k = kernel([store(G, 0)], 64, warp_sync=32)
    races = check(k).races
    assert len(races) == 1 and races[0].first == races[0].second


def test_block_dependent_shared_address_emulates_every_cta() -> None:
    bid = Builtin("blockIdx", "x")
    # CTA 1 writes g[0] from every thread (write-write race); CTA 0 is fine
    k = kernel([store(G, bop("*", TID, bop("-", 1, bid)))], 64, grid_dim=2)
    oracle = NamedBarrierOracle()
    verdict = oracle.check(k)
    assert oracle.stats.blocks == 2
    assert len(verdict.races) == 1 and verdict.races[0].witness is not None
    assert verdict.races[0].witness.block1 == (1, 0, 0)
    big = kernel([store(G, bop("*", TID, bop("-", 1, bid)))], 64, grid_dim=1000)
    u = check(big).unknowns
    assert u and "blockIdx" in u[0].reason


def test_thread_dependent_loops_break_and_early_return() -> None:
    """Programs follow each thread's own trip count, break and return."""
    loop = for_("i", 0, bop("+", warp_id(), 1), [
        if_(bop("==", v("i"), 2), [sync(3, 32)]),  # never reached: break first
        if_(bop("==", v("i"), 1), [brk()]),
        sync(1, 64)])
    early = if_(bop(">=", TID, 64), [ret()])
    k = kernel([early, *loop, sync(2, 64)], 96)
    prog = Emulator(k).run()
    ops = prog.ops
    per = [[(ops[e].kind, ops[e].barrier) for e in prog.thread_ops[t]] for t in (0, 32, 64)]
    assert per[0] == [("sync", 1), ("sync", 2)]
    assert per[1] == [("sync", 1), ("sync", 2)]
    assert per[2] == []
    assert check(k).verified


def test_describe_threads() -> None:
    assert describe_threads(range(32, 96)) == "warps 1-2 (threads 32-95)"
    assert describe_threads([0, 1, 2, 5]) == "threads 0-2, 5"


def test_each_label_pair_reported_once_in_text_order() -> None:
    w = store(G, TID)
    r = read("x", G, bop("%", bop("+", TID, 1), 64))
    k = kernel([w, r], 64)
    races = check(k).races
    assert len(races) == 1
    assert (races[0].first, races[0].second, races[0].kinds) == (w.label, r.label,
                                                                 ("write", "read"))


# ----------------------------------------------------------------------------- cross-check


def _random_kernel(rng: random.Random):  # type: ignore[no-untyped-def]
    """A warp-specialised program built from globally ordered steps: CTA-wide syncs,
    point-to-point signals (arrive in one warp, sync in another) and shared accesses."""
    warps = rng.choice([2, 3])
    per_warp: list[list] = [[] for _ in range(warps)]
    mem = shared("m", 8, INT)
    for _ in range(rng.randint(3, 9)):
        step = rng.random()
        if step < 0.15:
            for w in range(warps):
                per_warp[w].append(sync(0, 32 * warps))
        elif step < 0.5:
            src, dst = rng.sample(range(warps), 2)
            bar = rng.choice([1, 2])
            per_warp[src].append(arrive(bar, 64))
            per_warp[dst].append(sync(bar, 64))
        else:
            w = rng.randrange(warps)
            idx = bop("%", lane_id(), rng.choice([2, 4, 8])) if rng.random() < 0.7 else c(
                rng.randrange(8))
            if rng.random() < 0.5:
                per_warp[w].append(store(mem, idx))
            else:
                per_warp[w].append(read("x", mem, idx))
    chain: If | None = None
    for w in reversed(range(warps)):
        cond = bop("==", warp_id(), w)
        chain = if_(cond, per_warp[w], [chain] if chain is not None else None)
    assert chain is not None
    return kernel([chain], 32 * warps)


def _closure_races(k) -> set[tuple[int, int]]:  # type: ignore[no-untyped-def]
    """Races by Fig. 4's relation R and plain reachability (generations from a naive
    per-thread schedule), without any of the Sec. 5.2 machinery."""
    prog = Emulator(k).run()
    n = prog.threads
    # per-thread command lists: ('op', eid) / ('acc', eid) in program order
    cmds: list[list[tuple[str, int]]] = [[] for _ in range(n)]
    per_seg: dict[tuple[int, int], list[int]] = {}
    for eid, ev in enumerate(prog.accesses):
        for t, s in zip(ev.tids, ev.segs, strict=True):
            per_seg.setdefault((t, s), []).append(eid)
    for t in range(n):
        ops = prog.thread_ops[t]
        for s in range(len(ops) + 1):
            cmds[t] += [("acc", e) for e in per_seg.get((t, s), [])]
            if s < len(ops):
                cmds[t].append(("op", ops[s]))
    # naive schedule, thread by thread
    pos = [0] * n
    cur: dict[int, tuple[int, list[tuple[int, int]]]] = {}
    gen_of: dict[tuple[int, int], int] = {}
    gens = 0
    progress = True
    while progress:
        progress = False
        for t in range(n):
            while pos[t] < len(cmds[t]):
                kind, e = cmds[t][pos[t]]
                if kind == "acc":
                    pos[t] += 1
                    continue
                op = prog.ops[e]
                if (t, pos[t]) in gen_of:  # blocked sync that completed
                    pos[t] += 1
                    progress = True
                    continue
                if any(m == (t, pos[t]) for m in cur.get(op.barrier, (0, []))[1]):
                    break  # still blocked
                g, members = cur.setdefault(op.barrier, (gens, []))
                if g == gens:
                    gens += 1
                members.append((t, pos[t]))
                progress = True
                if len(members) == op.count:
                    for m in members:
                        gen_of[m] = g
                    del cur[op.barrier]
                if op.kind == "arrive":
                    pos[t] += 1
                elif (t, pos[t]) not in gen_of:
                    break
    assert all(pos[t] == len(cmds[t]) for t in range(n))
    # graph with one hub per generation (sync<->sync and arrive->sync edges)
    node: dict[tuple[int, int], int] = {}
    for t in range(n):
        for i in range(len(cmds[t])):
            node[(t, i)] = len(node)
    hub0 = len(node)
    adj: list[list[int]] = [[] for _ in range(hub0 + gens)]
    for t in range(n):
        for i in range(len(cmds[t])):
            me = node[(t, i)]
            if i + 1 < len(cmds[t]):
                adj[me].append(node[(t, i + 1)])
            if cmds[t][i][0] == "op":
                hub = hub0 + gen_of[(t, i)]
                adj[me].append(hub)
                if prog.ops[cmds[t][i][1]].kind == "sync":
                    adj[hub].append(me)

    def reach(src: int) -> set[int]:
        seen = {src}
        todo = deque([src])
        while todo:
            x = todo.popleft()
            for y in adj[x]:
                if y not in seen:
                    seen.add(y)
                    todo.append(y)
        return seen

    accs = [(t, i, prog.accesses[e]) for t in range(n) for i, (kd, e) in enumerate(cmds[t])
            if kd == "acc"]
    addr = {}
    for t, i, ev in accs:
        j = ev.tids.index(t)
        addr[(t, i)] = ev.addrs[j] if isinstance(ev.addrs, list) else ev.addrs
    reach_of = {(t, i): reach(node[(t, i)]) for t, i, _ in accs}
    tree = LabelTree(k)
    out: set[tuple[int, int]] = set()
    for t1, i1, e1 in accs:
        for t2, i2, e2 in accs:
            if t1 >= t2 or addr[(t1, i1)] != addr[(t2, i2)]:
                continue
            if e1.kind == "read" and e2.kind == "read":
                continue
            if node[(t2, i2)] in reach_of[(t1, i1)] or node[(t1, i1)] in reach_of[(t2, i2)]:
                continue
            a, bb = sorted((e1.label, e2.label), key=tree.order)
            out.add((a, bb))
    return out


def test_interval_race_test_matches_transitive_closure() -> None:
    """Sec. 5.2's LHB/EHA race test equals Fig. 4's closure on well-synchronized programs."""
    rng = random.Random(20240607)
    compared = racy = 0
    for _ in range(150):
        k = _random_kernel(rng)
        verdict = check(k)
        if verdict.findings or verdict.unknowns:
            continue
        compared += 1
        mine = {(r.first, r.second) for r in verdict.races}
        racy += bool(mine)
        assert mine == _closure_races(k)
    assert compared >= 40 and racy >= 10, (compared, racy)


def _all_schedules(k):  # type: ignore[no-untyped-def]
    """Every warp-granular schedule of the sync/arrive commands (Sec. 3.3 semantics):
    returns (set of generation assignments of completed runs, whether one deadlocks)."""
    prog = Emulator(k).run()
    warps = prog.threads // 32
    progs = [[prog.ops[e] for e in prog.thread_ops[32 * w]] for w in range(warps)]
    outcomes: set[frozenset] = set()
    deadlock = False
    seen: set = set()
    start: tuple[Any, ...] = (tuple([0] * warps), frozenset(), frozenset(), ())
    stack = [start]
    while stack:
        state = stack.pop()
        if state in seen:
            continue
        seen.add(state)
        ip, pending, assigned, gens = state
        pend: dict[int, Any] = dict(pending)  # barrier -> (count, members)
        gen_no: dict[int, int] = dict(gens)
        moved = False
        for w in range(warps):
            if ip[w] >= len(progs[w]):
                continue
            ev = progs[w][ip[w]]
            cnt, members = pend.get(ev.barrier, (ev.count, frozenset()))
            if (w, ip[w], "sync") in members:
                continue  # blocked on its sync in this generation
            members = members | {(w, ip[w], ev.kind)}
            new_pend = dict(pend)
            new_assigned = assigned
            new_gens = dict(gen_no)
            new_ip = list(ip)
            if 32 * len(members) >= cnt:
                g = new_gens.get(ev.barrier, 0) + 1
                new_gens[ev.barrier] = g
                new_assigned = assigned | {(m[0], m[1], g) for m in members}
                new_pend.pop(ev.barrier, None)
                for m in members:
                    if m[2] == "sync":
                        new_ip[m[0]] = m[1] + 1
                new_ip[w] = ip[w] + 1
            else:
                new_pend[ev.barrier] = (cnt, members)
                if ev.kind == "arrive":
                    new_ip[w] = ip[w] + 1
            moved = True
            stack.append((tuple(new_ip), frozenset(new_pend.items()), new_assigned,
                          tuple(sorted(new_gens.items()))))
        if not moved:
            if all(ip[w] >= len(progs[w]) for w in range(warps)) and not pend:
                outcomes.add(assigned)
            elif any(ip[w] < len(progs[w]) for w in range(warps)):
                deadlock = True
            else:
                outcomes.add(assigned | {("left-over",)})
    return outcomes, deadlock


def test_well_synchronization_matches_exhaustive_schedules() -> None:
    """Def. 6: well-synchronized iff every schedule yields the same generations and none
    deadlocks -- checked against all warp-granular schedules of small random programs."""
    rng = random.Random(7)
    sync_kinds = {"deadlock", "unsafe-recycling", "arrivals-only", "over-arrival",
                  "count-mismatch"}
    good = bad = 0
    for _ in range(120):
        k = _random_kernel(rng)
        found = kinds(check(k)) & sync_kinds
        outcomes, deadlock = _all_schedules(k)
        deterministic = len(outcomes) == 1 and not deadlock
        if not found:
            good += 1
            assert deterministic
        elif found & {"deadlock", "unsafe-recycling"}:
            bad += 1
            assert not deterministic, found
    assert good >= 30 and bad >= 20, (good, bad)
