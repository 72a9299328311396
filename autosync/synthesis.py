"""Barrier synthesis: Algorithm 1 (SYNTHESIZE / REFINE) of the AutoSync paper, Sec. III-D.

SYNTHESIZE asks the oracle for the race locations of the input kernel, turns each into
placement constraints (lines 6–12, :mod:`autosync.constraints`) on top of the soft
constraints ¬L_ℓ weighted by C(ℓ) (line 3, :mod:`autosync.cost`), and hands over to REFINE,
which alternates between the MaxSAT solver (least-cost placement 𝓛, line 19) and the oracle
(is kernel' = INSERTBARRIERS(kernel, 𝓛) correctly synchronized?, lines 20–29):

* divergent barriers -> exclude the children of the innermost enclosing block of the
  barrier *in kernel'* (line 25);
* remaining races -> for a race location already known, block the current P-assignment
  (line 29); for a location not seen before (oracles may report only some races at first),
  add its lines 6–12 constraints now;
* no races, no divergence -> kernel' is the answer.

UNSAT (line 18) is explained race by race (:meth:`ConstraintSystem.explain`): a self-race
⟨ℓ, ℓ⟩, a race inside a thread-dependent block, or a race whose every option was refuted.

Beyond the paper (on by default, ``use_facts=False`` / ``--oracle-facts off`` for the
paper-faithful loop): when the oracle says at which loop depth a race happens
(``Race.loop_depth``), the matching P^j is asserted directly, skipping the enumeration of
P-assignments.  These are hints, asserted as retractable clauses: if the candidate still races
on that location (or the hints make the system UNSAT), they are withdrawn and the normal
P-blocking refinement takes over, so the result is as correct as with an oracle that gives no
facts at all.

Every ``oracle.check`` call counts in ``oracle_calls`` (Tables I/II), including the initial
one on the input; a candidate placement the solver proposes twice is answered from a cache
instead of a second oracle call (its verdict cannot change: the oracle is a function of the
kernel).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

from autosync.constraints import Clause, ConstraintSystem, RaceKey
from kpl.ast import Barrier, Kernel
from kpl.labels import LabelTree
from kpl.transform import insert_barriers
from oracle.base import Oracle, Race, Verdict

VERIFIED = "verified"
FIXED = "fixed"
UNFIXABLE = "unfixable"
UNKNOWN = "unknown"

DEFAULT_MAX_ITERATIONS = 1000


@dataclass
class IterationRecord:
    """One REFINE iteration (lines 17–29), for ``on_iteration`` callbacks, logs and tests."""

    index: int
    labels: list[int]
    cost: Fraction
    p_assignments: dict[RaceKey, tuple[bool, ...]]
    outcome: str  # "verified" | "divergent" | "races" | "unknown" | "findings"
    races: list[RaceKey] = field(default_factory=list)
    divergences: list[int] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    cached: bool = False
    oracle_calls: int = 0
    notes: list[str] = field(default_factory=list)


@dataclass
class SynthesisResult:
    """What SYNTHESIZE returns.

    ``status``: ``verified`` (the input already verifies; nothing inserted), ``fixed``
    (``kernel`` is a verified candidate with barriers after ``labels``), ``unfixable``
    (constraints UNSAT, or a problem barriers cannot fix: ``reason`` names the labels),
    ``unknown`` (the oracle could not decide, or the iteration limit was hit).
    ``barriers`` pairs each anchor label with C(ℓ); ``barrier_map`` maps the labels of the
    inserted ``Barrier`` statements in ``kernel`` to their anchors (for the renderer).
    """

    status: str
    kernel: Kernel | None
    labels: list[int]
    cost: Fraction
    barriers: list[tuple[int, Fraction]]
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
    tree: LabelTree | None = None

    @property
    def ok(self) -> bool:
        return self.status in (VERIFIED, FIXED)

    @property
    def cost_float(self) -> float:
        return float(self.cost)


def _race_key(tree: LabelTree, race: Race) -> RaceKey:
    a, b = race.first, race.second
    for lab in (a, b):
        if lab not in tree.nodes:
            raise ValueError(f"oracle reported a race on label {lab}, which is not in the kernel")
    return (b, a) if tree.precedes(b, a) else (a, b)


def _unique_keys(tree: LabelTree, races: list[Race]) -> list[RaceKey]:
    keys: list[RaceKey] = []
    for race in races:
        key = _race_key(tree, race)
        if key not in keys:
            keys.append(key)
    return keys


def _describe_label(tree: LabelTree, label: int) -> str:
    line = tree.line(label)
    return f"{tree.name(label)}" + (f" (line {line})" if line is not None and str(line) != tree.name(label) else "")


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


def synthesize(kernel: Kernel, oracle: Oracle, *, solver: str = "rc2",
               lc: int | float | str | Fraction = 100, ic: int | float | str | Fraction = 0.5,
               use_facts: bool = True, tie_break: bool = True,
               max_iterations: int = DEFAULT_MAX_ITERATIONS,
               on_iteration: Callable[[IterationRecord], None] | None = None) -> SynthesisResult:
    """SYNTHESIZE(kernel) of Algorithm 1, starting from ``kernel`` AS GIVEN (callers strip
    the developer's barriers first when they want a from-scratch placement).

    ``tie_break`` only orders equal-cost optima (see ``ConstraintSystem._tie_broken``);
    ``use_facts`` enables the oracle-fact shortcut (module docstring)."""
    t0 = time.perf_counter()
    tree = LabelTree(kernel)
    cs = ConstraintSystem(tree, solver=solver, lc=lc, ic=ic, tie_break=tie_break)  # lines 2–3
    calls = 0
    trace: list[IterationRecord] = []

    def result(status: str, **kw: object) -> SynthesisResult:
        base: dict[str, object] = dict(
            status=status, kernel=None, labels=[], cost=Fraction(0), barriers=[],
            races_initial=races0, iterations=len(trace), oracle_calls=calls,
            seconds=time.perf_counter() - t0, solver=solver, trace=trace, tree=tree,
            divergences_initial=[d.label for d in verdict0.divergences], verdict=verdict0)
        base.update(kw)
        return SynthesisResult(**base)  # type: ignore[arg-type]

    verdict0 = oracle.check(kernel)  # line 4: GETRACES(kernel)
    calls += 1
    races0 = list(verdict0.races)
    if verdict0.verified:
        return result(VERIFIED, kernel=kernel)
    if verdict0.unknowns:
        return result(UNKNOWN, reason=_unknown_reason(tree, verdict0))
    if verdict0.divergences:
        names = ", ".join(_describe_label(tree, d.label) for d in verdict0.divergences
                          if d.label in tree.nodes)
        return result(UNFIXABLE, reason=f"barrier(s) already in the input diverge: {names}; "
                      "inserting barriers cannot remove that")
    if verdict0.findings:
        return result(UNFIXABLE, reason=_findings_reason(verdict0))
    across = [r for r in races0 if r.cross_block]
    if across:
        return result(UNFIXABLE, reason="; ".join(
            f"race {_describe_label(tree, r.first)} / {_describe_label(tree, r.second)} on global "
            f"array '{r.array}' is between threads of different blocks: barriers order only the "
            "threads of one block" for r in across))

    def add_races(races: list[Race], keys: list[RaceKey]) -> list[Clause]:
        """Lines 5–12 for the new locations among ``keys`` (+ the fact hints)."""
        added: list[Clause] = []
        by_key: dict[RaceKey, list[Race]] = {}  # one pass: linear in the number of races
        for r in races:
            by_key.setdefault(_race_key(tree, r), []).append(r)
        for key in keys:
            if key in cs.races:
                continue
            _, clauses = cs.add_race(*key)
            added += clauses
            if use_facts:
                depths = sorted({d for r in by_key.get(key, [])
                                 for d in (r.loop_depths or ((r.loop_depth,)
                                                             if r.loop_depth is not None else ()))})
                added += cs.add_facts(key, [d for d in depths if d is not None])
        return added

    add_races(races0, _unique_keys(tree, races0))

    cache: dict[frozenset[int], tuple[Kernel, dict[int, int], Verdict]] = {}
    pending_notes: list[str] = []
    while True:  # line 16: while races ≠ ∅
        if len(trace) >= max_iterations:
            return result(UNKNOWN, reason=f"iteration limit ({max_iterations}) reached")
        model = cs.solve()  # line 17
        if model is None and cs.has_facts():
            cs.retract_facts()  # the hints were wrong: fall back to the paper's loop
            pending_notes.append("oracle facts made the constraints UNSAT: all withdrawn")
            model = cs.solve()
        if model is None:  # line 18: "No solution"
            conflicts = [r.key for r in cs.conflicting_races()]
            return result(UNFIXABLE, reason=cs.explain(), conflicts=conflicts)
        labels = cs.chosen_labels(model)  # line 19
        cost = cs.cost(labels)
        p_assign = {key: cs.p_assignment(key, model) for key in cs.races}
        frozen = frozenset(labels)
        cached = frozen in cache
        if cached:
            cand, mapping, verdict = cache[frozen]
        else:
            cand, mapping = insert_barriers(kernel, labels)  # line 20
            verdict = oracle.check(cand)  # lines 21, 27: one oracle call
            calls += 1
            cache[frozen] = (cand, mapping, verdict)
        record = IterationRecord(len(trace) + 1, labels, cost, p_assign, "", cached=cached,
                                 oracle_calls=calls, notes=pending_notes)
        pending_notes = []
        trace.append(record)
        added: list[Clause] = []

        def done(rec: IterationRecord, clauses: list[Clause]) -> None:
            rec.added = [f"{cl.tag}: {cs.describe(cl)}" for cl in clauses]
            if on_iteration is not None:
                on_iteration(rec)

        if verdict.unknowns:
            record.outcome = "unknown"
            done(record, added)
            return result(UNKNOWN, reason=_unknown_reason(tree, verdict), labels=labels, cost=cost)
        if verdict.divergences:  # lines 22–25
            record.outcome = "divergent"
            record.divergences = [d.label for d in verdict.divergences]
            ctree = LabelTree(cand)
            for div in verdict.divergences:
                if div.label not in mapping:
                    done(record, added)
                    name = _describe_label(tree, div.label) if div.label in tree.nodes else str(div.label)
                    return result(UNFIXABLE, reason=f"barrier {name} of the input diverges in the "
                                  "candidate; inserting barriers cannot remove that", labels=labels)
                block = ctree.innermost_block(div.label)  # line 24: ℓ^d in kernel'
                children = ctree.interval(ctree.start(block), block)  # [ℓ_s^d, ℓ^d)
                added += cs.exclude_block(children, mapping[div.label], block)
            done(record, added)
            if not added:
                return result(UNKNOWN, reason="divergence reported again at an excluded position "
                              "(no progress possible)", labels=labels)
            continue
        if verdict.findings:
            record.outcome = "findings"
            done(record, added)
            return result(UNFIXABLE, reason=_findings_reason(verdict), labels=labels)
        if not verdict.races:  # line 16: races = ∅ -> return kernel'
            record.outcome = "verified"
            done(record, added)
            return result(FIXED, kernel=cand, labels=labels, cost=cost,
                          barriers=[(lab, cs.label_cost[lab]) for lab in labels],
                          barrier_map=dict(mapping), verdict=verdict)
        record.outcome = "races"  # lines 27–29
        keys = _unique_keys(tree, verdict.races)
        record.races = keys
        for key in keys:
            if key in cs.races:
                if cs.has_facts(key):
                    cs.retract_facts(key)  # a refuted hint: back to the paper's enumeration
                    record.notes.append(f"oracle facts for {cs.race_name(key)} refuted: withdrawn")
                added.append(cs.block_assignment(key, model))  # line 29
        added += add_races(verdict.races, keys)  # a location not seen before: lines 6–12
        done(record, added)


def placement_cost(kernel: Kernel, labels: list[int], lc: int | float | str | Fraction = 100,
                   ic: int | float | str | Fraction = 0.5) -> Fraction:
    """C(𝓛) of a placement on ``kernel`` (for ``compare``: the developer's barriers' anchors)."""
    from autosync.cost import CostModel

    return CostModel(LabelTree(kernel), lc, ic).total(labels)


def count_barriers(kernel: Kernel) -> int:
    from kpl.ast import walk_stmts

    return sum(1 for s in walk_stmts(kernel.body) if isinstance(s, Barrier))
