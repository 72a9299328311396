"""Barrier synthesis: [AutoSync] Alg. 1 (SYNTHESIZE / REFINE), Sec. III-D.

:class:`Synthesizer` reads like the algorithm: ``run`` is the loop, each step a named method
(add races, solve, check candidate, on divergence, on races); :class:`FactsSynthesizer` is the
oracle-facts shortcut below; :func:`synthesize` is the entry point other modules call.

SYNTHESIZE asks the oracle for the race locations of the input kernel, turns each into
placement constraints (lines 6–12, :mod:`autosync.algorithm.constraints`) on top of the soft
constraints ¬L_ℓ weighted by C(ℓ) (line 3, :mod:`autosync.algorithm.cost`), and hands over to REFINE,
which alternates between the MaxSAT solver (least-cost placement 𝓛, line 19) and the oracle
(is kernel' = INSERTBARRIERS(kernel, 𝓛) correctly synchronized?, lines 20–29):

* divergent barriers -> exclude the children of the innermost enclosing block of the
  barrier *in kernel'* (line 25);
* remaining races -> for a race location already known, block the current P-assignment
  (line 29); for a location not seen before (oracles may report only some races at first),
  add its lines 6–12 constraints now;
* no races, no divergence -> kernel' is the answer.

Races between blocks (``Race.cross_block``) are their own class: no ``__syncthreads()``
orders two blocks.  Without grid barriers (``grid_cost`` None) they never become constraints;
a candidate whose only races are between blocks is accepted, and the result lists them
(``SynthesisResult.inter_block``).  With grid barriers (``grid_cost``: a cooperative launch,
issue 37) they are constraints only a grid barrier G_ℓ satisfies; a race first seen inside a
block whose part between blocks a candidate shows is restricted to G_ℓ (``forbid_block``).

UNSAT (line 18) is explained race by race (:meth:`ConstraintSystem.explain`): a self-race
⟨ℓ, ℓ⟩, a race inside a thread-dependent block, or a race whose every option was refuted.

Beyond the paper (:class:`FactsSynthesizer`, on by default; ``use_facts=False`` /
``--oracle-facts off`` for the paper-faithful loop): when the oracle says at which loop depth a race happens
(``Race.loop_depth``), the matching P^j is asserted directly, skipping the enumeration of
P-assignments.  These are hints, asserted as retractable clauses: if the candidate still races
on that location (or the hints make the system UNSAT), they are withdrawn and the normal
P-blocking refinement takes over, so the result is as correct as with an oracle that gives no
facts at all.

Two barrier kinds (``warp_cost``, on by default, off under ``--warp-sync``): a race the
oracle says is between lanes of one warp (``Race.same_warp``) may be fixed by a
``__syncwarp()`` costing WC·C(ℓ) (:mod:`autosync.algorithm.constraints`); if a candidate shows
it also crosses warps, it is restricted to ``__syncthreads()`` (not a blocked P-assignment).

Every ``oracle.check`` call counts in ``oracle_calls`` (Tables I/II), including the initial
one on the input; a candidate placement the solver proposes twice is answered from a cache
instead of a second oracle call (its verdict cannot change: the oracle is a function of the
kernel).

One module (about 600 lines): the result types, the loop and its steps are one stage; split
apart, the algorithm would be harder to read, not easier.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction

from autosync.algorithm.constraints import Clause, ConstraintSystem, RaceKey
from autosync.algorithm.cost import DEFAULT_WARP_COST
from kpl.ast import Barrier, Kernel, Space, walk_stmts
from kpl.labels import LabelTree
from kpl.placement import EMPTY, BarrierKind, Placement
from kpl.transform import insert_barriers
from oracle.base import Oracle, Race, Verdict, inter_block_message

VERIFIED = "verified"
FIXED = "fixed"
UNFIXABLE = "unfixable"
UNKNOWN = "unknown"

DEFAULT_MAX_ITERATIONS = 1000


@dataclass
class IterationRecord:
    """One REFINE iteration (lines 17–29), for ``on_iteration`` callbacks, logs and tests."""

    index: int
    placement: Placement
    p_assignments: dict[RaceKey, tuple[bool, ...]]
    outcome: str  # "verified" | "divergent" | "races" | "unknown" | "findings"
    races: list[RaceKey] = field(default_factory=list)
    divergences: list[int] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    cached: bool = False
    oracle_calls: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def labels(self) -> list[int]:
        return list(self.placement.labels)

    @property
    def cost(self) -> Fraction:
        return self.placement.cost


@dataclass
class SynthesisResult:
    """What SYNTHESIZE returns.

    ``status``: ``verified`` (the input already verifies; nothing inserted), ``fixed``
    (``kernel`` is a verified candidate with the barriers of ``placement``), ``unfixable``
    (constraints UNSAT, or a problem barriers cannot fix: ``reason`` names the labels),
    ``unknown`` (the oracle could not decide, or the iteration limit was hit); for the last
    two, ``placement`` is the last candidate tried, if any.  ``barrier_map`` maps the labels
    of the inserted ``Barrier`` statements in ``kernel`` to their anchors (for the renderer).
    ``labels``, ``cost`` and ``barriers`` are views of ``placement``.
    """

    status: str
    kernel: Kernel | None
    races_initial: list[Race]
    iterations: int
    oracle_calls: int
    reason: str | None = None
    seconds: float = 0.0
    solver: str = "rc2"
    method: str = "autosync"
    barrier_map: dict[int, int] = field(default_factory=dict)
    divergences_initial: list[int] = field(default_factory=list)
    conflicts: list[RaceKey] = field(default_factory=list)
    trace: list[IterationRecord] = field(default_factory=list)
    verdict: Verdict | None = None
    #: OpenCL C: the spaces each anchor's inserted barrier orders (autosync.algorithm.fences)
    fences: dict[int, frozenset[Space]] = field(default_factory=dict)
    #: OpenCL C: the user's barriers (by label) whose fences ``fix`` widens instead of
    #: inserting a barrier (autosync.algorithm.fences.widen_user_barriers)
    widened: dict[int, frozenset[Space]] = field(default_factory=dict)
    tree: LabelTree | None = None
    placement: Placement = EMPTY

    @property
    def labels(self) -> list[int]:
        return list(self.placement.labels)

    @property
    def cost(self) -> Fraction:
        return self.placement.cost

    @property
    def barriers(self) -> list[tuple[int, Fraction]]:
        """Each anchor label with its C(ℓ)."""
        return [(a.label, a.cost) for a in self.placement]

    @property
    def ok(self) -> bool:
        return self.status in (VERIFIED, FIXED)

    @property
    def inter_block(self) -> list[Race]:
        """The races between blocks left in the result (of the final candidate when
        ``fixed``, of the input otherwise): left without grid barriers, ``fix`` exits 1."""
        return self.verdict.inter_block if self.verdict is not None else []

    @property
    def cost_float(self) -> float:
        return float(self.cost)


def _race_key(tree: LabelTree, race: Race) -> RaceKey:
    a, b = race.first, race.second
    for lab in (a, b):
        if lab not in tree.nodes:
            raise ValueError(f"oracle reported a race on label {lab}, which is not in the kernel")
    return (b, a) if tree.precedes(b, a) else (a, b)


def _by_key(tree: LabelTree, races: list[Race]) -> dict[RaceKey, list[Race]]:
    """The races grouped by location, locations in first-seen order."""
    groups: dict[RaceKey, list[Race]] = {}
    for race in races:
        groups.setdefault(_race_key(tree, race), []).append(race)
    return groups


def _implied(tree: LabelTree, new: list[RaceKey], known: Iterable[RaceKey]) -> set[RaceKey]:
    """The new race locations whose lines 6–12 constraints another location's imply, so
    that adding them would change no solution.

    Only locations outside every loop with both labels in one block are considered: their
    only option is P^0 (line 12 forces it), i.e. the clause ∨ L_ℓ over [ℓ, ℓ') (line 7),
    where [ℓ, ℓ') is the block's children between them in text order.  If another such
    location of the same block spans a sub-interval [ℓ2, ℓ2') ⊆ [ℓ, ℓ'), its clause implies
    this one.  A barrier-free straight-line kernel has ~n² racing pairs but only ~n
    minimal intervals; without this the constraints alone grew with n³.  A skipped location
    that a candidate still races on is simply added then (it is new), as for any oracle that
    reports races late."""
    by_block: dict[tuple[int, ...], list[tuple[int, int, RaceKey, bool]]] = {}
    for keys, fresh in ((new, True), (known, False)):
        for key in keys:
            a, b = key
            blk = tree.blk(a)
            if blk != tree.blk(b) or tree.loops(a):
                continue
            by_block.setdefault(blk, []).append((tree.order(a), tree.order(b), key, fresh))
    out: set[RaceKey] = set()
    for items in by_block.values():
        items.sort(key=lambda it: (-it[0], it[1]))
        min_end: int | None = None
        for _, end, key, fresh in items:
            if min_end is not None and min_end <= end:
                if fresh:
                    out.add(key)
            else:
                min_end = end
    return out


def _set_aside_pending_benign(races: list[Race]) -> list[Race]:
    """Write-write races of a statement with itself in one iteration, set aside while other
    races remain: no barrier separates them, but under the benign-write default they may be
    benign once the others are fixed (the values stored come from reads that race today, and
    the oracle's equality abstraction promises races only up to the first racy read,
    oracle.sdv.memfacts).  Never dropped: when they are all that is left they are added
    (and explained as unfixable), and the answer is verified by the oracle in any case."""
    def pending(r: Race) -> bool:
        return (r.first == r.second and tuple(map(str, r.kinds)) == ("write", "write")
                and not r.cross_block and r.loop_depth in (0, None))

    rest = [r for r in races if not pending(r)]
    return rest if rest else races


def _unique_keys(tree: LabelTree, races: list[Race]) -> list[RaceKey]:
    return list(_by_key(tree, races))


def _describe_label(tree: LabelTree, label: int) -> str:
    """A label as the user sees it: ``file:line:col`` of its statement (never a label number)."""
    from kpl.locations import LabelLocator

    where = LabelLocator(tree.kernel).location(label) if label in tree.nodes else None
    return str(where) if where is not None else tree.name(label)


def inter_block_reason(tree: LabelTree, races: list[Race]) -> str:
    """Why races between blocks stay: ``k.cu:5:5: race between blocks 0 and 1 on 'A': …
    (with k.cu:4:5)`` for each (issue 27, item 3; the words: :func:`inter_block_message`)."""
    lines: list[str] = []
    for r in races:
        other = f" (with {_describe_label(tree, r.first)})" if r.first != r.second else ""
        line = f"{_describe_label(tree, r.second)}: {inter_block_message(r, tree.kernel.language)}{other}"
        if line not in lines:
            lines.append(line)
    return "; ".join(lines)


def _unknown_reason(tree: LabelTree | None, verdict: Verdict) -> str:
    parts = []
    for u in verdict.unknowns:
        where = f" at line {u.line}" if u.line is not None else (
            f" at {tree.name(u.label)}" if tree is not None and u.label is not None and u.label in tree.nodes
            else "")
        parts.append(f"{u.reason}{where}")
    return "the oracle could not decide: " + "; ".join(parts)


def _findings_reason(verdict: Verdict) -> str:
    return "the oracle reports errors that barriers cannot fix: " + "; ".join(
        f"{f.kind}: {f.message}" for f in verdict.findings)


@dataclass
class Candidate:
    """kernel' = INSERTBARRIERS(kernel, 𝓛) of one placement, with the oracle's verdict on it."""

    kernel: Kernel
    mapping: dict[int, int]  # label of each inserted Barrier -> its anchor
    verdict: Verdict


@dataclass
class Step:
    """One REFINE iteration in progress: the model, its placement and candidate, the record
    being filled in and the hard clauses this iteration adds."""

    model: set[int]
    placement: Placement
    candidate: Candidate
    record: IterationRecord
    added: list[Clause] = field(default_factory=list)


class Synthesizer:
    """SYNTHESIZE / REFINE of [AutoSync] Alg. 1, the paper-faithful loop.

    :meth:`run` is the algorithm; each named step cites the lines it implements.  Subclasses
    change a step, never the loop (:class:`FactsSynthesizer`)."""

    def __init__(self, kernel: Kernel, oracle: Oracle, *, solver: str = "rc2",
                 lc: int | float | str | Fraction = 100, ic: int | float | str | Fraction = 0.5,
                 tie_break: bool = True, max_iterations: int = DEFAULT_MAX_ITERATIONS,
                 on_iteration: Callable[[IterationRecord], None] | None = None,
                 warp_cost: int | float | str | Fraction | None = DEFAULT_WARP_COST,
                 grid_cost: int | float | str | Fraction | None = None,
                 prefer: Iterable[tuple[int, BarrierKind]] = ()) -> None:
        self.t0 = time.perf_counter()  # start time, for ``SynthesisResult.seconds``
        self.kernel = kernel  # the input as given; never mutated
        self.oracle = oracle  # GETRACES: the only source of races and divergences
        self.solver = solver  # MaxSAT back end name, reported in the result
        self.tree = LabelTree(kernel)  # labels of the input; race keys and anchors refer to it
        # __syncwarp() only with independent thread scheduling: under --warp-sync lanes of a
        # warp never race across statements, so a warp barrier would fix nothing
        if kernel.launch.warp_sync:
            warp_cost = None
        # the solver state S with the soft constraints ¬L_ℓ weighted by C(ℓ) (lines 2–3)
        self.cs = ConstraintSystem(self.tree, solver=solver, lc=lc, ic=ic, tie_break=tie_break,
                                   warp_cost=warp_cost, grid_cost=grid_cost, prefer=list(prefer))
        # to rebuild S with the oracle's input facts (FactsSynthesizer.input_facts)
        self.cs_options = dict(solver=solver, lc=lc, ic=ic, tie_break=tie_break, warp_cost=warp_cost,
                               grid_cost=grid_cost, prefer=self.cs.prefer)
        self.grid = grid_cost is not None  # grid barriers may fix races between blocks
        self.max_iterations = max_iterations  # give up ("unknown") after this many iterations
        self.on_iteration = on_iteration  # called once per finished iteration
        self.calls = 0  # oracle calls so far, the initial one on the input included
        self.trace: list[IterationRecord] = []  # one record per REFINE iteration
        self.cache: dict[Placement, Candidate] = {}  # a placement proposed twice is not re-checked
        self.notes: list[str] = []  # notes for the next iteration's record
        self.verdict0 = Verdict()  # the oracle's verdict on the input (line 4)

    # ------------------------------------------------------------------ the algorithm

    def run(self) -> SynthesisResult:
        self.verdict0 = self.get_races(self.kernel)  # line 4: GETRACES(kernel)
        self.input_facts(self.verdict0)
        outcome = self.refuse_input()
        if outcome is None:
            self.add_races(self.fixable(self.verdict0))  # lines 5–12
        while outcome is None and len(self.trace) < self.max_iterations:  # line 16
            model = self.solve()  # line 17
            if model is None:  # line 18: "No solution"
                return self.result(UNFIXABLE, reason=self.cs.explain(),
                                   conflicts=[r.key for r in self.cs.conflicting_races()])
            step = self.check_candidate(model)  # lines 19–21
            verdict = step.candidate.verdict
            if verdict.unknowns:
                outcome = self.undecided(step)
            elif verdict.divergences:  # lines 22–25
                outcome = self.on_divergence(step)
            elif verdict.findings:
                outcome = self.undecided(step)
            elif self.fixable(verdict):  # lines 27–29
                self.on_races(step)
            else:  # races = ∅ (but, without grid barriers, those between blocks): kernel'
                outcome = self.accepted(step)
        return outcome or self.result(UNKNOWN, reason=f"iteration limit ({self.max_iterations}) "
                                      "reached")

    # ------------------------------------------------------------------ named steps

    def fixable(self, verdict: Verdict) -> list[Race]:
        """The races of ``verdict`` a barrier of the kinds in use can order: those inside
        blocks, and those between blocks too when grid barriers are on."""
        return list(verdict.races) if self.grid else verdict.intra_block

    def get_races(self, kernel: Kernel) -> Verdict:
        """One oracle call (GETRACES, lines 4, 21, 27): races and divergences together."""
        self.calls += 1
        return self.oracle.check(kernel)

    def input_facts(self, verdict: Verdict) -> None:
        """Hook: optional facts of the input's verdict that change S before any constraint
        (the paper uses none)."""

    def refuse_input(self) -> SynthesisResult | None:
        """The input verifies, or has a problem no inserted barrier can fix."""
        v0, tree = self.verdict0, self.tree
        if v0.verified:
            return self.result(VERIFIED, kernel=self.kernel)
        if v0.unknowns:
            return self.result(UNKNOWN, reason=_unknown_reason(tree, v0))
        if v0.divergences:
            names = ", ".join(_describe_label(tree, d.label) for d in v0.divergences
                              if d.label in tree.nodes)
            return self.result(UNFIXABLE, reason=f"barrier(s) already in the input diverge: "
                               f"{names}; inserting barriers cannot remove that")
        if v0.findings:
            return self.result(UNFIXABLE, reason=_findings_reason(v0))
        if not self.fixable(v0):  # races between blocks only: nothing for a block barrier to do
            return self.result(UNFIXABLE, reason=inter_block_reason(tree, v0.inter_block))
        return None

    def add_races(self, races: list[Race]) -> list[Clause]:
        """Lines 5–12 for every race location of ``races`` not constrained yet.  The races are
        grouped by location in one pass: a barrier-free kernel of a few hundred statements
        has thousands of racing pairs, and rescanning them per location was quadratic."""
        added: list[Clause] = []
        races = _set_aside_pending_benign(races)
        groups = _by_key(self.tree, races)
        implied = _implied(self.tree, [k for k in groups if k not in self.cs.races],
                           self.cs.races)
        for key, group in groups.items():
            if key in self.cs.races or key in implied:
                continue
            added += self.cs.add_race(*key, warp_ok=all(r.same_warp for r in group),
                                      cross=any(r.cross_block for r in group))[1]
            added += self.race_added(key, group)
        return added

    def race_added(self, key: RaceKey, races: list[Race]) -> list[Clause]:
        """Hook after lines 6–12 of a new location, given the races AT that location (the
        paper adds nothing more)."""
        return []

    def solve(self) -> set[int] | None:
        """Lines 17–18: S.CHECK; ``None`` is "No solution"."""
        return self.cs.solve()

    def check_candidate(self, model: set[int]) -> Step:
        """Lines 19–21: 𝓛 from the model, kernel' = INSERTBARRIERS(kernel, 𝓛) and the oracle
        on it -- the only oracle call of the loop, skipped for a placement already checked."""
        placement = self.cs.placement(model)  # line 19
        cached = placement in self.cache
        if not cached:
            cand, mapping = insert_barriers(self.kernel, placement)  # line 20
            self.cache[placement] = Candidate(cand, mapping, self.get_races(cand))  # line 21
        p_assign = {key: self.cs.p_assignment(key, model) for key in self.cs.races}
        record = IterationRecord(len(self.trace) + 1, placement, p_assign, "", cached=cached,
                                 oracle_calls=self.calls, notes=self.notes)
        self.notes = []
        self.trace.append(record)
        return Step(model, placement, self.cache[placement], record)

    def on_divergence(self, step: Step) -> SynthesisResult | None:
        """Lines 22–25: exclude the children [ℓ_s^d, ℓ^d) of the innermost block of each
        divergent barrier *in kernel'*; stop when a divergent barrier is the input's own or
        nothing new could be excluded."""
        cand = step.candidate
        step.record.divergences = [d.label for d in cand.verdict.divergences]
        ctree = LabelTree(cand.kernel)
        kinds = {s.label: s.kind for s in walk_stmts(cand.kernel.body) if isinstance(s, Barrier)}
        for div in cand.verdict.divergences:
            if div.label not in cand.mapping:
                name = (_describe_label(self.tree, div.label) if div.label in self.tree.nodes
                        else str(div.label))
                return self.finish(step, "divergent", self.result(
                    UNFIXABLE, reason=f"barrier {name} of the input diverges in the candidate; "
                    "inserting barriers cannot remove that", placement=step.placement))
            block = ctree.innermost_block(div.label)  # line 24: ℓ^d in kernel'
            children = ctree.interval(ctree.start(block), block)  # [ℓ_s^d, ℓ^d)
            step.added += self.cs.exclude_block(children, cand.mapping[div.label], block,
                                                kinds.get(div.label, BarrierKind.SYNCTHREADS))
        self.finish(step, "divergent")
        if not step.added:
            return self.result(UNKNOWN, reason="divergence reported again at an excluded "
                               "position (no progress possible)", placement=step.placement)
        return None

    def on_races(self, step: Step) -> None:
        """Lines 27–29: block the refuted P-assignment of each known race location (line 29);
        a location not seen before (an oracle may report only some races at first) gets its
        lines 6–12 constraints now."""
        races = self.fixable(step.candidate.verdict)
        groups = _by_key(self.tree, races)
        keys = list(groups)
        step.record.races = keys
        for key in keys:
            if key in self.cs.races:
                if any(r.cross_block for r in groups[key]) and not self.cs.races[key].grid_only:
                    # the part between blocks of a race fixed inside blocks: not a refuted
                    # P-assignment, only a grid barrier orders it -- from now on only G counts
                    step.added += self.cs.forbid_block(key)
                    continue
                across = not all(r.same_warp for r in groups[key])
                if across and self.cs.races[key].warp_ok:
                    # not a refuted P-assignment: the race also crosses warps, which a
                    # __syncwarp() cannot order -- from now on only __syncthreads() counts
                    step.added += self.cs.forbid_warp(key)
                    continue
                self.refuted(key, step.record)
                step.added.append(self.cs.block_assignment(key, step.model))  # line 29
        step.added += self.add_races(races)
        self.finish(step, "races")

    def refuted(self, key: RaceKey, record: IterationRecord) -> None:
        """Hook: the candidate still races on the known location ``key``."""

    # ------------------------------------------------------------------ results

    def accepted(self, step: Step) -> SynthesisResult:
        """Line 16 with races = ∅: kernel' is the answer."""
        cand = step.candidate
        return self.finish(step, "verified", self.result(
            FIXED, kernel=cand.kernel, placement=step.placement, barrier_map=dict(cand.mapping),
            verdict=cand.verdict))

    def undecided(self, step: Step) -> SynthesisResult:
        """The oracle could not decide the candidate, or reports errors barriers cannot fix."""
        verdict = step.candidate.verdict
        if verdict.unknowns:
            return self.finish(step, "unknown", self.result(
                UNKNOWN, reason=_unknown_reason(self.tree, verdict), placement=step.placement))
        return self.finish(step, "findings", self.result(
            UNFIXABLE, reason=_findings_reason(verdict), placement=step.placement))

    def finish(self, step: Step, outcome: str,
               result: SynthesisResult | None = None) -> SynthesisResult:
        """Close the iteration's record (outcome, clauses added) and report it."""
        step.record.outcome = outcome
        step.record.added = [f"{cl.tag}: {self.cs.describe(cl)}" for cl in step.added]
        if self.on_iteration is not None:
            self.on_iteration(step.record)
        return result  # type: ignore[return-value]

    def result(self, status: str, **kw: object) -> SynthesisResult:
        base: dict[str, object] = dict(
            status=status, kernel=None, races_initial=list(self.verdict0.races),
            iterations=len(self.trace), oracle_calls=self.calls,
            seconds=time.perf_counter() - self.t0, solver=self.solver, trace=self.trace,
            tree=self.tree, divergences_initial=[d.label for d in self.verdict0.divergences],
            verdict=self.verdict0)
        base.update(kw)
        return SynthesisResult(**base)  # type: ignore[arg-type]


class FactsSynthesizer(Synthesizer):
    """Beyond the paper (``--oracle-facts on``, the default): when the oracle says at which
    loop depth a race happens (``Race.loop_depth``), assert the matching P^j directly, skipping
    the enumeration of P-assignments.  The hints are retractable clauses: withdrawn when the
    candidate still races on that location or when they make the system UNSAT, after which
    the paper's P-blocking takes over -- so the result is as correct as without facts."""

    def input_facts(self, verdict: Verdict) -> None:
        """Guards the oracle proved true for every thread (``Verdict.uniform_guards``) are no
        condition for the cost model: S is rebuilt with them before any constraint is added.
        Only costs change, so the result is verified exactly as without the fact."""
        if verdict.uniform_guards:
            self.cs = ConstraintSystem(self.tree, uniform=verdict.uniform_guards,
                                       **self.cs_options)  # type: ignore[arg-type]

    def race_added(self, key: RaceKey, races: list[Race]) -> list[Clause]:
        depths = sorted({d for r in races
                         for d in (r.loop_depths or ((r.loop_depth,)
                                                     if r.loop_depth is not None else ()))})
        return self.cs.add_facts(key, [d for d in depths if d is not None])

    def solve(self) -> set[int] | None:
        model = self.cs.solve()
        if model is None and self.cs.has_facts():
            self.cs.retract_facts()  # the hints were wrong: fall back to the paper's loop
            self.notes.append("oracle facts made the constraints UNSAT: all withdrawn")
            model = self.cs.solve()
        return model

    def refuted(self, key: RaceKey, record: IterationRecord) -> None:
        if self.cs.has_facts(key):
            self.cs.retract_facts(key)  # a refuted hint: back to the paper's enumeration
            record.notes.append(f"oracle facts for {self.cs.race_name(key)} refuted: withdrawn")


def synthesize(kernel: Kernel, oracle: Oracle, *, solver: str = "rc2",
               lc: int | float | str | Fraction = 100, ic: int | float | str | Fraction = 0.5,
               use_facts: bool = True, tie_break: bool = True,
               max_iterations: int = DEFAULT_MAX_ITERATIONS,
               on_iteration: Callable[[IterationRecord], None] | None = None,
               warp_cost: int | float | str | Fraction | None = DEFAULT_WARP_COST,
               grid_cost: int | float | str | Fraction | None = None,
               prefer: Iterable[tuple[int, BarrierKind]] = ()) -> SynthesisResult:
    """SYNTHESIZE(kernel) of Algorithm 1, starting from ``kernel`` AS GIVEN (callers strip
    the developer's barriers first when they want a from-scratch placement).

    ``tie_break`` only orders equal-cost optima (see ``ConstraintSystem._tie_broken``);
    ``use_facts`` enables the oracle-fact shortcut (:class:`FactsSynthesizer`);
    ``warp_cost`` is WC, the price of a ``__syncwarp()`` relative to a ``__syncthreads()``
    at the same position (None: synthesize ``__syncthreads()`` only, as the paper);
    ``grid_cost`` is GC, the price of a grid barrier (None, the default: none is synthesized;
    the caller passes one only when the launch is cooperative, :data:`autosync.algorithm.cost.DEFAULT_GRID_COST`).
    An OpenCL C kernel gets work-group barriers only: a sub-group's width is the device's, so
    no pair of work-items is known to share one (:mod:`kpl.frontend.opencl`), and OpenCL C
    has no barrier across work-groups.  ``prefer``: (label, kind) pairs equal-cost optima keep."""
    cls, prefer = (FactsSynthesizer if use_facts else Synthesizer), list(prefer)
    if kernel.language == "opencl":
        warp_cost = grid_cost = None

    def run(wc: int | float | str | Fraction | None) -> SynthesisResult:
        return cls(kernel, oracle, solver=solver, lc=lc, ic=ic, tie_break=tie_break,
                   max_iterations=max_iterations, on_iteration=on_iteration, warp_cost=wc,
                   grid_cost=grid_cost, prefer=prefer).run()

    result = run(warp_cost)
    tried = [result.placement] + [it.placement for it in result.trace]  # every candidate
    if result.status != "unfixable" or warp_cost is None or not any(
            a.kind.warp for p in tried for a in p):
        return result
    # A warp barrier also changes what the oracle may assume about values: with one, reads
    # of written shared data are no longer consistent across the block (oracle.sdv.memfacts),
    # so a benign store can show up as an unfixable self-race.  Then __syncthreads() only.
    retry = run(None)
    if retry.status != "fixed":
        return result
    return dataclasses.replace(retry, oracle_calls=result.oracle_calls + retry.oracle_calls,
                               iterations=result.iterations + retry.iterations,
                               seconds=result.seconds + retry.seconds)


def count_barriers(kernel: Kernel) -> int:
    return sum(1 for s in walk_stmts(kernel.body) if isinstance(s, Barrier))
