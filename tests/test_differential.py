"""Differential test: the concrete ``dynamic`` oracle against the symbolic ``sdv`` verifier.

Both implement the SDV semantics of [AutoSync] (Sec. III-A, Fig. 9).  ``dynamic`` reports the
races and divergences of ONE concrete run (every thread of one or two blocks), so each of them
is real; a sound ``sdv`` must therefore report every one of them at the same label pair, and
where ``sdv`` proves a kernel correctly synchronized, the run must be clean.  Kernels come from
:func:`kernelgen.kernels` (small random KPL ASTs: thread-dependent indices, loops with
constant and parameter bounds, nested thread-dependent/uniform ``if``s, barriers at random --
also divergent -- positions, ``break``/``continue``/``return``, atomics, global memory over
two blocks, warp-sync).

``dynamic`` runs with ``stop_at_divergence=True``: after a divergent barrier an execution is
undefined ([BARRACUDA] Sec. 3.3.2), and a verifier in the style of GPUVerify does not explore
past a failed divergence check, so only the races before the first divergence are compared.

A second property needs no ``sdv``: the shadow-memory race detector of ``dynamic`` (per cell
and epoch, thread sets compressed to two warps) finds exactly the label pairs, kinds and loop
depths that a brute-force pairwise comparison of every logged access finds.
"""

from __future__ import annotations

import os
from itertools import combinations
from typing import Any

from hypothesis import HealthCheck, given, settings
from kernelgen import kernels, render

from kpl.ast import Kernel, Memory, Space
from kpl.ctypes import sizeof
from kpl.labels import LabelTree
from oracle.base import Verdict
from oracle.dynamic import DynamicOracle
from oracle.dynamic import executor as dyn
from oracle.dynamic.races import UNKNOWN, value_key
from oracle.sdv import SDVOracle


def disagreements(kernel: Kernel, dynamic: Verdict, sdv: Verdict,
                  racy_read: bool = False) -> list[str]:
    """Why ``sdv`` contradicts the concrete run, or [] when it does not.  ``racy_read``: the
    run read a value another thread wrote in the same interval; ``sdv``'s equality
    abstraction promises the races of a run only up to such a read (oracle.sdv.memfacts),
    so then only "some race" is required of it."""
    problems: list[str] = []
    if sdv.unknowns:
        return problems  # sdv declined (e.g. a loop it cannot treat exactly): nothing claimed
    sdv_pairs = {(r.first, r.second, r.array) for r in sdv.races}
    for race in [] if racy_read else dynamic.races:
        if (race.first, race.second, race.array) not in sdv_pairs:
            problems.append(f"dynamic race <{race.first}, {race.second}> on {race.array} "
                            f"({race.kind}, depth {race.loop_depth}, "
                            f"{race.witness.describe(kernel.language) if race.witness else '?'}) missed by sdv")
    sdv_divs = {d.label for d in sdv.divergences}
    for div in dynamic.divergences:
        if div.label not in sdv_divs:
            problems.append(f"dynamic divergence at {div.label} missed by sdv")
    if sdv.verified and (dynamic.races or dynamic.divergences):
        problems.append("sdv verified a kernel whose run races or diverges")
    return problems


# --------------------------------------------------------------------------- dynamic vs sdv


def _sdv_oracle() -> Any:
    return SDVOracle()


@settings(max_examples=int(os.environ.get("AUTOSYNC_DIFF_EXAMPLES", "300")), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(kernels())
def test_dynamic_races_are_reported_by_sdv(kernel: Kernel) -> None:
    sdv = _sdv_oracle()
    dynamic = DynamicOracle(blocks=2, stop_at_divergence=True)
    run = dynamic.check(kernel)
    assert not run.unknowns, run.unknowns
    verdict = sdv.check(kernel)
    problems = disagreements(kernel, run, verdict, dynamic.last_racy_read)
    assert not problems, "\n".join(problems) + "\n" + render(kernel)


@settings(max_examples=int(os.environ.get("AUTOSYNC_DIFF_POINTER_EXAMPLES", "40")), deadline=None,
          derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(kernels(pointers=True))
def test_pointer_values_agree(kernel: Kernel) -> None:
    """Every kernel with pointer values (swaps, conditional bases, pointers passed to calls;
    issue 26): the same property.  Offline: ``AUTOSYNC_DIFF_POINTER_EXAMPLES=1000``."""
    test_dynamic_races_are_reported_by_sdv.hypothesis.inner_test(kernel)  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- shadow memory vs brute force


class _LoggingRun(dyn._Run):
    """The same interpreter, additionally logging every shared/global access."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.log: list[tuple[int, int, str, tuple[int, int], str, int, int, dyn.Iters, int, int, Any]] = []
        super().__init__(*args, **kwargs)

    def _access(self, mem: Memory, idx: int, t: int, kind: Any, view: Any = None,
                fld: Any = None, value: Any = UNKNOWN) -> None:
        self.log.append((self.block, self.epoch, mem.name, _bytes(mem, idx, view, fld), kind, t,
                         self.label, self.iters, self.seq, int(mem.space == Space.GLOBAL),
                         value_key(value) if kind == "write" else None))
        super()._access(mem, idx, t, kind, view, fld, value)


def _bytes(mem: Memory, idx: int, view: Any, fld: Any) -> tuple[int, int]:
    """The access as a byte range [start, end) of ``mem``: ``idx`` is a byte offset through a
    byte view, else an element index (a vector component: ``fld``)."""
    if view is not None:
        return idx, idx + (sizeof(view) or 1)
    if sizeof(mem.elem) is None and mem.elem.fields:  # no byte layout: one unit per field
        count = len(mem.elem.fields)
        if fld is None:
            return idx * count, (idx + 1) * count
        start = idx * count + mem.elem.fields.index(fld)
        return start, start + 1
    size = sizeof(mem.elem) or 1
    start = idx * size
    if fld is not None and fld in mem.elem.fields and mem.elem.elem is not None:
        part = sizeof(mem.elem.elem) or 1
        start += mem.elem.fields.index(fld) * part
        return start, start + part
    return start, start + size


def _brute_force(run: _LoggingRun, tree: LabelTree) -> set[tuple[Any, ...]]:
    """Every pair of logged accesses, checked against the definition directly."""
    warp = run.warp_sync
    found: set[tuple[Any, ...]] = set()
    for a, b in combinations(run.log, 2):
        ba, ea, ma, ia, ka, ta, la, ita, sa, ga, va = a
        bb, eb, mb, ib, kb, tb, lb, itb, sb, _, vb = b
        if ma != mb or ia[1] <= ib[0] or ib[1] <= ia[0] or (ka == "read" and kb == "read"):
            continue  # different arrays, byte ranges that do not overlap, or two reads
        if ka == "write" and kb == "write" and va is not UNKNOWN and va == vb and ia == ib:
            continue  # two writes of one value to the same bytes: benign
        if ka == "atomic" and kb == "atomic":
            continue
        same_block = ba == bb
        if same_block:
            if ta == tb or ea != eb:
                continue
            if warp and ta // warp == tb // warp:
                # lock-step within a warp: only two updates in one instruction instance race
                if not (sa == sb and ka != "read" and kb != "read"):
                    continue
        elif not ga:
            continue
        first, second = (a, b) if tree.order(la) <= tree.order(lb) else (b, a)
        depth: int | None = None
        if same_block:
            depth = 0
            for k, (p, q) in enumerate(zip(ita, itb, strict=False)):
                if p[0] != q[0]:
                    break
                if p[1] != q[1]:
                    depth = k + 1
                    break
        space = Space.GLOBAL if ga else Space.SHARED
        found.add((first[6], second[6], ma, (first[4], second[4]), depth, space))
    return found


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(kernels(max_threads=8))
def test_shadow_memory_matches_brute_force(kernel: Kernel) -> None:
    oracle = DynamicOracle()
    choice = oracle.choose_inputs(kernel)
    assert choice.ok
    tree = LabelTree(kernel)
    run = _LoggingRun(kernel, tree, choice.params, {}, 0, 100_000, False)
    for b in range(min(2, kernel.launch.blocks)):
        run.run_block(b)
    got = {(r.first, r.second, r.array, r.kinds, r.loop_depth, r.space) for r in run.races.values()}
    # kinds of a same-label pair may be listed in either order by the two methods
    def norm(s: set[tuple[Any, ...]]) -> set[tuple[Any, ...]]:
        return {(f, s_, m, tuple(sorted(k)) if f == s_ else k, d, sp) for f, s_, m, k, d, sp in s}
    assert norm(got) == norm(_brute_force(run, tree)), render(kernel)
    for race in run.races.values():
        assert tree.kind(race.first) == "leaf" and tree.kind(race.second) == "leaf"
        assert tree.order(race.first) <= tree.order(race.second)
