"""The named-barrier oracle: WEFT ([WEFT]) from CUDA source.

Warp-specialised kernels synchronise with PTX named barriers -- ``bar.sync b, n`` blocks,
``bar.arrive b, n`` does not -- and can fail in ways ``__syncthreads()`` code cannot.  This
oracle checks one CTA the way WEFT does:

1. **Emulation** (Sec. 5.1, :mod:`oracle.named.emulate`): every thread of the CTA is run
   concretely to a straight-line program of ``read``/``write``/``sync``/``arrive`` commands;
   ``__syncthreads()`` is ``sync 0 N`` (Sec. 3.1).  Runtime-dependent control flow, barrier
   operands or shared addresses give ``Unknown("cannot analyze: ...")``.
2. **One trace** (Sec. 4.2): the sync/arrive commands alone are scheduled under the
   semantics of Sec. 3.3 (a thread runs until it blocks; a generation completes, wakes its
   syncers and recycles the barrier once ``count`` threads registered).  Threads with the
   same sequence of barrier statement instances are scheduled as one *unit* (usually a warp
   or a warp group), which keeps the simulation independent of the thread count.  Stuck
   syncs are a ``deadlock`` (Listing 1); counts that differ within a generation a
   ``count-mismatch``; registrations that cannot fit a generation an ``over-arrival``.
3. **Barrier dependence graph** (Sec. 5.2): each completed generation is a node; the trace's
   completion order is a topological order.  For every node and unit we compute the latest
   op that happens before it (LHB) and the earliest op that happens after it (EHA).
4. **Well-synchronisation** (Fig. 4, lines 18-22): every command of generation k+1 of a
   barrier must be preceded, in its thread, by a point that happens after generation k
   completed; otherwise a different schedule matches its registration with generation k
   (``unsafe-recycling``).  A generation completed by arrivals alone has no sync that marks
   its completion (``arrivals-only``) -- Fig. 4 only looks at syncs, so we check that every
   one of its arrivals happens before the next generation instead.
5. **Races** (Sec. 5.2): an access in segment ``s`` of a unit (between its ops ``s-1`` and
   ``s``) can run in parallel exactly with the accesses of another thread whose segment lies
   in ``(LHB, EHA]`` for that thread's unit, so each race test is a binary search.

Scope as in WEFT (Sec. 3): shared memory only, one CTA (more when the code depends on
``blockIdx``), no reasoning about atomics-based synchronisation.

Modules: step 1 is :mod:`oracle.named.emulate`, steps 3 and 5 :mod:`oracle.named.races`;
this one holds the oracle, the barrier schedule (step 2) and the diagnostics of steps 2 and 4.
It is one piece (over 400 lines) because every diagnostic is phrased from the simulated
schedule's own state (units, generations, pending registrations).
"""

from __future__ import annotations

import dataclasses
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kpl.ast import Barrier, Kernel, NamedBarrier, walk_stmts
from kpl.labels import LabelTree
from oracle.base import (
    Divergence,
    Finding,
    OracleBase,
    OracleError,
    Race,
    Unknown,
    Verdict,
    replayable,
    too_big_to_execute,
)
from oracle.named.emulate import (
    NUM_BARRIERS,
    EmulationAbort,
    Emulator,
    OpEvent,
    Programs,
    requires_equalities,
)
from oracle.named.races import Generation, RaceIntervals

#: the finding kinds this oracle reports (for CLI/SARIF rule tables)
FINDING_KINDS = ("deadlock", "over-arrival", "count-mismatch", "arrivals-only",
                 "unsafe-recycling", "invalid-barrier")


def uses_named_barriers(kernel: Kernel) -> bool:
    """Does ``kernel`` use PTX named barriers?  (``autosync check`` picks this oracle then.)"""
    return kernel.uses_named_barriers or any(
        isinstance(s, NamedBarrier) for s in walk_stmts(kernel.body))


@dataclass
class NamedStats:
    """Figures WEFT reports per kernel (Figs. 9-10)."""

    threads: int = 0
    units: int = 0
    commands: int = 0
    dynamic_barriers: int = 0
    shared_addresses: int = 0
    race_tests: int = 0
    blocks: int = 0
    seconds: float = 0.0


class _Overflow(Exception):
    """A unit of several threads does not fit the current generation: reschedule per thread."""

    def __init__(self, unit: int, pos: int, gen: Generation) -> None:
        super().__init__()
        self.unit, self.pos, self.gen = unit, pos, gen


# ----------------------------------------------------------------------------- helpers


def _ranges(tids: Iterable[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for t in sorted(set(tids)):
        if out and out[-1][1] == t - 1:
            out[-1] = (out[-1][0], t)
        else:
            out.append((t, t))
    return out


def describe_threads(tids: Iterable[int], warp: int = 32) -> str:
    """``warps 0-1 (threads 0-63)`` when whole warps, else ``threads 0-5, 9``."""
    rs = _ranges(tids)
    if not rs:
        return "no threads"

    def fmt(a: int, b: int) -> str:
        return str(a) if a == b else f"{a}-{b}"

    text = ", ".join(fmt(a, b) for a, b in rs)
    n = sum(b - a + 1 for a, b in rs)
    noun = "thread" if n == 1 else "threads"
    if all(a % warp == 0 and (b + 1) % warp == 0 for a, b in rs):
        ws = ", ".join(fmt(a // warp, b // warp) for a, b in rs)
        wn = "warp" if n == warp else "warps"
        return f"{wn} {ws} ({noun} {text})"
    return f"{noun} {text}"


# ----------------------------------------------------------------------------- the oracle


class NamedBarrierOracle(OracleBase):
    """WEFT's checks ([WEFT] Sec. 3-5) on one CTA of a KPL kernel.

    Options: ``warp_sync`` (None: follow ``kernel.launch.warp_sync``) -- lanes of one warp
    run in lock-step, so their accesses in different statements are ordered (Sec. 5.1's
    warp-synchronous mode); ``params`` fixes scalar parameters; ``max_blocks`` bounds how
    many CTAs are emulated when the code depends on ``blockIdx``.
    """

    name = "named"

    def __init__(self, warp_sync: bool | None = None, *, params: dict[str, int | float] | None = None,
                 max_blocks: int = 16, max_commands: int = 4_000_000,
                 max_race_pairs: int = 10_000, **options: Any) -> None:
        self.warp_sync = warp_sync
        self.params = params
        self.max_blocks = max_blocks
        self.max_commands = max_commands
        self.max_race_pairs = max_race_pairs
        timeout = options.pop("timeout", None)
        self.timeout: float | None = float(timeout) if timeout else None
        self.options = options
        self.stats = NamedStats()

    # ------------------------------------------------------------------ entry

    def check(self, kernel: Kernel) -> Verdict:
        start = time.perf_counter()
        verdict = Verdict(queries=1)
        if kernel.launch.symbolic:  # it emulates every thread: it needs numbers (kpl.launch)
            verdict.unknowns.append(Unknown(
                "the named-barrier oracle needs a concrete launch, and none is known for this kernel: "
                "give one with --blockDim/--gridDim, a //--blockDim header or [tool.autosync]"))
            return verdict
        big = too_big_to_execute(kernel, self.name)
        if big is not None:
            verdict.unknowns.append(big)
            return verdict
        self.stats = NamedStats(threads=kernel.launch.threads_per_block)
        warp = kernel.launch.warp_sync or 32
        lockstep = self.warp_sync if self.warp_sync is not None else (
            kernel.launch.warp_sync is not None)
        blocks = [(0, 0, 0)]
        done = 0
        tree: LabelTree | None = None
        race_keys: set[tuple[int, int, str]] = set()
        other_keys: set[tuple[str, tuple[int, ...], int | None]] = set()
        while done < len(blocks):
            block = blocks[done]
            done += 1
            deadline = start + self.timeout if self.timeout else None
            try:
                prog = Emulator(kernel, block, self.params, self.max_commands,
                                deadline=deadline).run()
            except EmulationAbort as exc:
                verdict.unknowns.append(Unknown(exc.reason, exc.label, exc.line))
                break
            self.stats.blocks += 1
            if done == 1 and prog.block_dependent_line is not None and kernel.launch.blocks > 1:
                gx, gy, gz = kernel.launch.concrete_grid()
                if kernel.launch.blocks > self.max_blocks:
                    line = prog.block_dependent_line
                    verdict.unknowns.append(Unknown(
                        f"cannot analyze: line {line} depends on blockIdx and the grid has "
                        f"{kernel.launch.blocks} CTAs (more than {self.max_blocks} to emulate)",
                        None, line or None))
                else:
                    blocks += [(x, y, z) for z in range(gz) for y in range(gy)
                               for x in range(gx) if (x, y, z) != (0, 0, 0)]
            if tree is None:
                tree = LabelTree(kernel)
            sub = _Analysis(kernel, prog, tree, warp, lockstep, self.max_race_pairs).run()
            if deadline is not None and time.perf_counter() > deadline:
                raise OracleError(f"named-barrier check timed out after {self.timeout:g} s",
                                  timeout=True)
            self.stats.units = max(self.stats.units, sub.units)
            self.stats.commands += prog.commands
            self.stats.dynamic_barriers += sub.dynamic_barriers
            self.stats.shared_addresses = max(self.stats.shared_addresses, sub.shared_addresses)
            self.stats.race_tests += sub.race_tests
            where = "" if block == (0, 0, 0) else f" [CTA {block}]"
            for race in sub.races:
                if race.key not in race_keys:
                    race_keys.add(race.key)
                    verdict.races.append(race)
            for f in sub.findings:
                key = (f.kind, f.labels, f.barrier_id)
                if key not in other_keys:
                    other_keys.add(key)
                    verdict.findings.append(Finding(f.kind, f.message + where, f.labels,
                                                    f.barrier_id))
            for u in sub.unknowns:
                if u not in verdict.unknowns:
                    verdict.unknowns.append(u)
            for d in sub.divergences:
                if all(d.label != x.label for x in verdict.divergences):
                    verdict.divergences.append(d)
        # witnesses a person can replay: the launch and the parameters the emulation fixed
        fixed = dict(self.params or {}) | requires_equalities(kernel)
        verdict.races = [dataclasses.replace(r, witness=replayable(r.witness, kernel, fixed))
                         for r in verdict.races]
        verdict.divergences = [dataclasses.replace(d, witness=replayable(d.witness, kernel, fixed))
                               for d in verdict.divergences]
        verdict.seconds = time.perf_counter() - start
        self.stats.seconds = verdict.seconds
        return verdict


# ----------------------------------------------------------------------------- analysis


class _Analysis(RaceIntervals):
    """Steps 2-5 of the module docstring on one emulated CTA."""

    def __init__(self, kernel: Kernel, prog: Programs, tree: LabelTree, warp: int,
                 lockstep: bool, max_race_pairs: int) -> None:
        self.kernel = kernel
        self.prog = prog
        self.tree = tree
        self.warp = warp
        self.lockstep = lockstep
        self.max_race_pairs = max_race_pairs
        self.n = prog.threads
        self.findings: list[Finding] = []
        self.races: list[Race] = []
        self.unknowns: list[Unknown] = [Unknown(r, lab, line)
                                        for r, lab, line in prog.unknown_accesses]
        self.divergences: list[Divergence] = []
        self.dynamic_barriers = 0
        self.shared_addresses = 0
        self.race_tests = 0
        self.units = 0

    # ------------------------------------------------------------------ driver

    def run(self) -> _Analysis:
        self._static_checks()
        units, unit_of = self._units(per_thread=False)
        try:
            sim = self._simulate(units)
        except _Overflow as ov:
            self._report_overflow(units, ov)
            units, unit_of = self._units(per_thread=True)
            sim = self._simulate(units)
        self.units = len(units)
        self.unit_of = unit_of
        self.unit_threads = units
        nodes, node_of, pending, ip = sim
        self._pending = pending
        self.dynamic_barriers = len(nodes)
        deadlocked = self._report_pending(units, pending, ip)
        self._report_mismatch(units, nodes)
        if deadlocked:
            return self  # no complete trace: the happens-before relation is undefined
        self._happens_before(units, nodes, node_of)
        self._well_synchronized(units, nodes)
        self._races(units, unit_of)
        return self

    # ------------------------------------------------------------------ units

    def _units(self, per_thread: bool) -> tuple[list[list[int]], list[int]]:
        """Threads with the same sequence of barrier statement instances register together
        in every schedule we simulate, so they form one scheduling unit."""
        thread_ops = self.prog.thread_ops
        unit_of = [0] * self.n
        if per_thread:
            return [[t] for t in range(self.n)], list(range(self.n))
        index: dict[tuple[int, ...], int] = {}
        units: list[list[int]] = []
        for t in range(self.n):
            key = tuple(thread_ops[t])
            u = index.get(key)
            if u is None:
                u = index[key] = len(units)
                units.append([])
            units[u].append(t)
            unit_of[t] = u
        return units, unit_of

    # ------------------------------------------------------------------ static checks

    def _static_checks(self) -> None:
        seen: set[tuple[int, str]] = set()
        for ev in self.prog.ops:
            key_bad = None
            if not 0 <= ev.barrier < NUM_BARRIERS:
                key_bad = f"barrier id {ev.barrier} is outside 0..{NUM_BARRIERS - 1}"
            elif ev.count <= 0 or ev.count > self.n:
                key_bad = f"thread count {ev.count} is not in 1..{self.n} (the CTA size)"
            elif ev.count % self.warp and ev.count != self.n:
                key_bad = f"thread count {ev.count} is not a multiple of the warp size {self.warp}"
            if key_bad and (ev.label, key_bad) not in seen:
                seen.add((ev.label, key_bad))
                self.findings.append(Finding(
                    "invalid-barrier", f"line {ev.line}: {ev.spelling} {ev.barrier}, {ev.count}: "
                    f"{key_bad}", (ev.label,), ev.barrier))
            if len(ev.tids) > ev.count and ev.count > 0 and (ev.label, "over") not in seen:
                seen.add((ev.label, "over"))
                self.findings.append(Finding(
                    "over-arrival",
                    f"line {ev.line}: {len(ev.tids)} threads ({describe_threads(ev.tids, self.warp)})"
                    f" execute {ev.spelling} {ev.barrier}, {ev.count} together: more arrivals "
                    f"than one generation of barrier {ev.barrier} takes", (ev.label,), ev.barrier))

    # ------------------------------------------------------------------ simulation

    def _simulate(self, units: list[list[int]]) -> tuple[
            list[Generation], list[list[int]], dict[int, Generation], list[int]]:
        """One trace of the sync/arrive commands under the semantics of Sec. 3.3.

        A unit runs until it blocks on a sync (WEFT: "continue emulating an individual
        thread until it blocks on a named barrier").  A generation completes as soon as
        ``count`` threads registered; its syncers wake and the barrier is recycled."""
        ops = self.prog.ops
        thread_ops = self.prog.thread_ops
        progs = [thread_ops[u[0]] for u in units]
        weight = [len(u) for u in units]
        node_of = [[-1] * len(p) for p in progs]
        ip = [0] * len(units)
        cur: dict[int, Generation] = {}
        gens: dict[int, int] = {}
        nodes: list[Generation] = []
        ready = deque(range(len(units)))
        while ready:
            u = ready.popleft()
            prog = progs[u]
            i = ip[u]
            w = weight[u]
            end = len(prog)
            while i < end:
                ev = ops[prog[i]]
                b = ev.barrier
                g = cur.get(b)
                if g is None:
                    gens[b] = gens.get(b, 0) + 1
                    g = cur[b] = Generation(b, gens[b], max(ev.count, 1))
                elif ev.count != g.count:
                    g.mismatch.append((u, i, ev.count))
                if g.registered + w > g.count:
                    ip[u] = i
                    raise _Overflow(u, i, g)
                if any(mu == u for mu, _ in g.members):
                    g.twice.append((u, i))
                g.registered += w
                g.members.append((u, i))
                is_sync = ev.kind == "sync"
                if is_sync:
                    g.syncers.append((u, i))
                if g.registered == g.count:
                    nid = len(nodes)
                    nodes.append(g)
                    del cur[b]
                    for mu, mi in g.members:
                        node_of[mu][mi] = nid
                    for su, _si in g.syncers:
                        if su != u:
                            ip[su] += 1
                            ready.append(su)
                    i += 1
                    continue
                if is_sync:
                    break
                i += 1
            ip[u] = i
        return nodes, node_of, cur, ip

    def _report_overflow(self, units: list[list[int]], ov: _Overflow) -> None:
        g = ov.gen
        ev = self.prog.ops[self.prog.thread_ops[units[ov.unit][0]][ov.pos]]
        if any(f.kind == "over-arrival" and ev.label in f.labels for f in self.findings):
            return
        already = [t for mu, _ in g.members for t in units[mu]]
        labels = sorted({self._op_at(units, mu, mi).label for mu, mi in g.members} | {ev.label})
        self.findings.append(Finding(
            "over-arrival",
            f"barrier {g.barrier} generation {g.number} (count {g.count}) already has "
            f"{g.registered} threads ({describe_threads(already, self.warp)}) when "
            f"{len(units[ov.unit])} more ({describe_threads(units[ov.unit], self.warp)}, line "
            f"{ev.line}) arrive: more arrivals than its count", tuple(labels), g.barrier))

    def _op_at(self, units: list[list[int]], u: int, i: int) -> OpEvent:
        return self.prog.ops[self.prog.thread_ops[units[u][0]][i]]

    def _lines(self, labels: Iterable[int]) -> str:
        lines = sorted({ln for ln in (self.tree.line(lab) if lab in self.tree.nodes else None
                                      for lab in labels) if ln is not None})
        return ", ".join(map(str, lines)) if lines else "?"

    def _report_pending(self, units: list[list[int]], pending: dict[int, Generation],
                        ip: list[int]) -> bool:
        """Generations that never complete: blocked syncs are a deadlock (Listing 1);
        arrivals that no generation absorbs are an over-arrival."""
        progs = [self.prog.thread_ops[u[0]] for u in units]
        blocked_at: dict[int, list[int]] = {}  # barrier -> blocked units
        for u, prog in enumerate(progs):
            if ip[u] < len(prog):
                blocked_at.setdefault(self.prog.ops[prog[ip[u]]].barrier, []).append(u)
        deadlocked = bool(blocked_at)
        stuck_desc = []
        for b in sorted(blocked_at):
            tids = [t for u in blocked_at[b] for t in units[u]]
            lines = sorted({self._op_at(units, u, ip[u]).line or 0 for u in blocked_at[b]})
            stuck_desc.append(f"{describe_threads(tids, self.warp)} wait on barrier {b} "
                              f"(line {', '.join(map(str, lines))})")
        finished = [t for u, prog in enumerate(progs) if ip[u] >= len(prog) for t in units[u]]
        for b, g in sorted(pending.items()):
            labels = tuple(sorted({self._op_at(units, u, i).label for u, i in g.members}))
            regs = [t for u, _ in g.members for t in units[u]]
            if g.syncers:
                others = "; ".join(stuck_desc)
                fin = f"; {describe_threads(finished, self.warp)} finished" if finished else ""
                msg = (f"deadlock: barrier {b} generation {g.number} waits for {g.count} threads "
                       f"but only {g.registered} ever register ({describe_threads(regs, self.warp)}"
                       f", line {self._lines(labels)}); blocked: {others}{fin}")
                self.findings.append(Finding("deadlock", msg, labels, b))
                for u, i in g.syncers:
                    stmt = self.tree.stmt(self._op_at(units, u, i).label) if self._op_at(
                        units, u, i).label in self.tree.nodes else None
                    if isinstance(stmt, Barrier):
                        self.divergences.append(Divergence(stmt.label, None))
            else:
                msg = (f"barrier {b}: {g.registered} arrivals ({describe_threads(regs, self.warp)},"
                       f" line {self._lines(labels)}) are left over: generation {g.number} "
                       f"(count {g.count}) never completes -- more arrivals than the "
                       f"generations of barrier {b} absorb")
                self.findings.append(Finding("over-arrival", msg, labels, b))
        # blocked on a barrier whose generation is not pending cannot happen: a unit blocks
        # only on a registered sync of the current generation.
        return deadlocked

    def _report_mismatch(self, units: list[list[int]], nodes: list[Generation]) -> None:
        for g in nodes + list(self._pending.values()):
            for u, i in g.twice:
                ev = self._op_at(units, u, i)
                self.findings.append(Finding(
                    "over-arrival",
                    f"barrier {g.barrier} generation {g.number}: "
                    f"{describe_threads(units[u], self.warp)} register a second time (line "
                    f"{ev.line}) before the generation completes: more arrivals than "
                    f"participants", (ev.label,), g.barrier))
            if not g.mismatch:
                continue
            first_u, first_i = g.members[0]
            first = self._op_at(units, first_u, first_i)
            parts = [f"{describe_threads(units[first_u], self.warp)} at line {first.line} "
                     f"say {g.count}"]
            labels = {first.label}
            for u, i, cnt in g.mismatch:
                ev = self._op_at(units, u, i)
                labels.add(ev.label)
                parts.append(f"{describe_threads(units[u], self.warp)} at line {ev.line} say {cnt}")
            self.findings.append(Finding(
                "count-mismatch",
                f"barrier {g.barrier} generation {g.number}: participants disagree on the "
                f"thread count: {'; '.join(parts)}", tuple(sorted(labels)), g.barrier))

    # ------------------------------------------------------------------ Fig. 4

    def _well_synchronized(self, units: list[list[int]], nodes: list[Generation]) -> None:
        """Fig. 4, lines 18-22, generalised to arrivals-only generations."""
        by_barrier: dict[int, list[int]] = {}
        for nid, g in enumerate(nodes):
            by_barrier.setdefault(g.barrier, []).append(nid)
        for b, seq in sorted(by_barrier.items()):
            for k, nid in enumerate(seq):
                g = nodes[nid]
                labels = tuple(sorted({self._op_at(units, u, i).label for u, i in g.members}))
                if not g.syncers:
                    regs = [t for u, _ in g.members for t in units[u]]
                    self.findings.append(Finding(
                        "arrivals-only",
                        f"barrier {b} generation {g.number} (count {g.count}) is completed by "
                        f"bar.arrive alone ({describe_threads(regs, self.warp)}, line "
                        f"{self._lines(labels)}): no thread waits on it, so it orders nothing",
                        labels, b))
                if k + 1 >= len(seq):
                    continue
                nxt = nodes[seq[k + 1]]
                bad: list[tuple[int, int]] = []
                for u2, j2 in nxt.members:
                    if not self._after_generation(units, g, u2, j2):
                        bad.append((u2, j2))
                if bad:
                    tids = [t for u, _ in bad for t in units[u]]
                    lab2 = sorted({self._op_at(units, u, j).label for u, j in bad})
                    self.findings.append(Finding(
                        "unsafe-recycling",
                        f"barrier {b} is recycled unsafely: generation {nxt.number} "
                        f"({describe_threads(tids, self.warp)}, line {self._lines(lab2)}) is "
                        f"not ordered after generation {g.number} completes (line "
                        f"{self._lines(labels)}), so another schedule can match its "
                        f"registrations with generation {g.number}",
                        tuple(sorted(set(labels) | set(lab2))), b))
