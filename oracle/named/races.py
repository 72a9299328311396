"""Named-barrier oracle, race intervals: happens-before windows and the race tests
([WEFT] Sec. 5.2; steps 3 and 5 of :mod:`oracle.named.checker`).

Each completed barrier generation (:class:`Generation`) is a node of the barrier dependence
graph; for every node and scheduling unit we keep the latest op that happens before it (LHB)
and the earliest op that happens after it (EHA).  An access in segment ``s`` of a unit can run
in parallel exactly with the accesses of another thread whose segment lies in ``(LHB, EHA]``
for that thread's unit, so each race test is one binary search.  Two accesses race under the
one conflict rule of every oracle, :func:`oracle.base.conflicts`.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

from kpl.ast import Kernel, Space
from kpl.labels import LabelTree
from oracle.base import AccessKind, OracleError, Race, Witness, conflicts
from oracle.named.emulate import Programs

__all__ = ["INF", "Generation", "RaceIntervals"]

#: "no op happens after": larger than any op index
INF = 1 << 60


@dataclass
class Generation:
    """One generation of a named barrier in the simulated trace."""

    barrier: int
    number: int  # 1-based generation number of this barrier
    count: int
    registered: int = 0
    members: list[tuple[int, int]] = field(default_factory=list)  # (unit, op position)
    syncers: list[tuple[int, int]] = field(default_factory=list)
    mismatch: list[tuple[int, int, int]] = field(default_factory=list)  # (unit, pos, count)
    twice: list[tuple[int, int]] = field(default_factory=list)  # units registering again


class RaceIntervals:
    """Steps 3 and 5 of :mod:`oracle.named.checker` (a base class of its analysis, which owns the
    state declared here): the happens-before windows of the barrier dependence graph and
    the race tests that search them."""

    kernel: Kernel
    prog: Programs
    tree: LabelTree
    warp: int
    lockstep: bool
    max_race_pairs: int
    races: list[Race]
    shared_addresses: int
    race_tests: int

    # ------------------------------------------------------------------ happens-before

    def _happens_before(self, units: list[list[int]], nodes: list[Generation],
                        node_of: list[list[int]]) -> None:
        """LHB/EHA per dynamic barrier and unit (Sec. 5.2), O(D * U) memory.

        Edges: a unit's last *sync* node before an op -> the op's node (its completion is
        after everything the unit did after that sync).  Arrives add no incoming order.
        The trace's completion order is topological for these edges."""
        ops = self.prog.ops
        progs = [self.prog.thread_ops[u[0]] for u in units]
        U = len(units)
        D = len(nodes)
        self.is_sync = [[ops[e].kind == "sync" for e in p] for p in progs]
        preds: list[set[int]] = [set() for _ in range(D)]
        for u in range(U):
            last = -1
            nu = node_of[u]
            syn = self.is_sync[u]
            for j in range(len(nu)):
                nid = nu[j]
                if nid < 0:  # an arrive whose generation never completes: it orders nothing
                    continue
                if last >= 0 and last != nid:
                    preds[nid].add(last)
                if syn[j]:
                    last = nid
        succs: list[list[int]] = [[] for _ in range(D)]
        for nid in range(D):
            for p in preds[nid]:
                succs[p].append(nid)
        order = _topological(preds, succs)
        lhb: list[list[int]] = [[]] * D
        for nid in order:
            vec = [-1] * U
            for p in preds[nid]:
                vec = list(map(max, vec, lhb[p]))
            for u, j in nodes[nid].members:
                if j > vec[u]:
                    vec[u] = j
            lhb[nid] = vec
        eha: list[list[int]] = [[]] * D
        for nid in reversed(order):
            vec = [INF] * U
            for s in succs[nid]:
                vec = list(map(min, vec, eha[s]))
            for u, j in nodes[nid].syncers:
                if j < vec[u]:
                    vec[u] = j
            eha[nid] = vec
        self.lhb, self.eha, self.node_of = lhb, eha, node_of
        self._seg_cache: dict[tuple[int, int], tuple[list[int] | None, list[int] | None]] = {}

    def _window(self, u: int, s: int) -> tuple[list[int] | None, list[int] | None]:
        """(LHB, EHA) op indices, per unit, for an access in segment ``s`` of unit ``u``."""
        key = (u, s)
        hit = self._seg_cache.get(key)
        if hit is not None:
            return hit
        syn = self.is_sync[u]
        nodes = self.node_of[u]
        before: list[int] | None = None
        for j in range(s - 1, -1, -1):
            if syn[j] and nodes[j] >= 0:
                before = self.lhb[nodes[j]]
                break
        after: list[int] | None = None
        for j in range(s, len(nodes)):
            if nodes[j] < 0:  # an arrive of a generation that never completes: no order after
                continue
            vec = self.eha[nodes[j]]
            after = vec if after is None else list(map(min, after, vec))
            if syn[j]:
                break
        self._seg_cache[key] = (before, after)
        return before, after

    def _after_generation(self, units: list[list[int]], g: Generation, u2: int, j2: int) -> bool:
        """Does the point just before op ``j2`` of unit ``u2`` happen after ``g`` completes?"""
        if g.syncers:
            # every sync of g executes at g's completion: one is enough (Fig. 4, line 19)
            nid = self.node_of[g.syncers[0][0]][g.syncers[0][1]]
            return self.eha[nid][u2] < j2
        for u1, j1 in g.members:
            if u1 == u2 and len(units[u1]) == 1 and j1 < j2:
                continue  # program order of one thread
            _, after = self._window(u1, j1)
            if after is None or not after[u2] < j2:
                return False
        return True

    # ------------------------------------------------------------------ races

    def _races(self, units: list[list[int]], unit_of: list[int]) -> None:
        """Sec. 5.2's constant-time race tests, one binary search per (write, unit)."""
        accesses = self.prog.accesses
        written: dict[str, set[int]] = {}
        for ev in accesses:
            if ev.kind is not AccessKind.READ:
                w = written.setdefault(ev.mem.name, set())
                if isinstance(ev.addrs, list):
                    w.update(ev.addrs)
                else:
                    w.add(ev.addrs)
        if not written:
            return
        # (mem, addr) -> unit -> (segs, tids, event ids); segments ascend per unit because a
        # unit's threads share their op counts at every point of the emulation
        index: dict[tuple[str, int], dict[int, tuple[list[int], list[int], list[int]]]] = {}
        for eid, ev in enumerate(accesses):
            wr = written.get(ev.mem.name)
            if not wr:
                continue
            name = ev.mem.name
            addrs = ev.addrs if isinstance(ev.addrs, list) else [ev.addrs] * len(ev.tids)
            for t, a, s in zip(ev.tids, addrs, ev.segs, strict=True):
                if a not in wr:
                    continue
                per = index.get((name, a))
                if per is None:
                    per = index[(name, a)] = {}
                u = unit_of[t]
                lists = per.get(u)
                if lists is None:
                    lists = per[u] = ([], [], [])
                lists[0].append(s)
                lists[1].append(t)
                lists[2].append(eid)
        self.shared_addresses = len(index)
        found: dict[tuple[int, int, str], Race] = {}
        tests = 0
        lockstep = self.lockstep
        warp = self.warp
        for eid, ev in enumerate(accesses):
            if ev.kind is AccessKind.READ:
                continue
            name = ev.mem.name
            addrs = ev.addrs if isinstance(ev.addrs, list) else [ev.addrs] * len(ev.tids)
            for p, a, s in zip(ev.tids, addrs, ev.segs, strict=True):
                per = index[(name, a)]
                before, after = self._window(unit_of[p], s)
                for uq, (segs, tids, eids) in per.items():
                    tests += 1
                    lo = before[uq] if before is not None else -1
                    hi = after[uq] if after is not None else INF
                    i = bisect_right(segs, lo)
                    j = bisect_right(segs, hi)
                    for k in range(i, j):
                        q = tids[k]
                        if q == p:
                            continue
                        other = accesses[eids[k]]
                        if not conflicts(ev.kind, other.kind):
                            continue
                        if lockstep and p // warp == q // warp and not (
                                eids[k] == eid and other.kind is AccessKind.WRITE and ev.kind is AccessKind.WRITE):
                            continue
                        self._record(found, ev, p, other, q, a)
                        if len(found) >= self.max_race_pairs:
                            break
        self.race_tests = tests
        self.races = sorted(found.values(), key=lambda r: (self.tree.order(r.first),
                                                           self.tree.order(r.second), r.array))

    def _record(self, found: dict[tuple[int, int, str], Race], a: Any, ta: int, b: Any,
                tb: int, addr: int) -> None:
        if self.tree.order(a.label) > self.tree.order(b.label):
            a, ta, b, tb = b, tb, a, ta
        key = (a.label, b.label, a.mem.name)
        if key in found:
            return
        bx, by, _ = self.kernel.launch.concrete_block()

        def tid3(t: int) -> tuple[int, int, int]:
            return (t % bx, (t // bx) % by, t // (bx * by))

        found[key] = Race(a.label, b.label, a.mem.name, (a.kind, b.kind), Space.SHARED,
                          Witness(tid3(ta), tid3(tb), self.prog.block, self.prog.block, addr))


def _topological(preds: list[set[int]], succs: list[list[int]]) -> list[int]:
    """The barrier nodes in an order where every node follows its predecessors.  Usually the
    trace's completion order already is one; when the unit orders disagree (a cycle), the
    happens-before windows are undefined and the checker must not guess."""
    indegree = [len(p) for p in preds]
    ready = [n for n, d in enumerate(indegree) if d == 0]
    order: list[int] = []
    while ready:
        node = ready.pop()
        order.append(node)
        for nxt in succs[node]:
            indegree[nxt] -= 1
            if indegree[nxt] == 0:
                ready.append(nxt)
    if len(order) != len(preds):
        raise OracleError("cannot analyze: the named-barrier generations are ordered "
                          "inconsistently by different warps (a cycle in happens-before)")
    return order
