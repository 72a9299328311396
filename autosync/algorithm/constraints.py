"""Placement constraints of Sec. III-B / Algorithm 1, kept as data.

:class:`ConstraintSystem` owns the propositional variables (L_ℓ for every placeable label,
P^0..P^d per race location), the soft constraints of line 3 and every hard constraint
Algorithm 1 asserts, each tagged with the line it comes from.  It feeds them to a
:class:`~autosync.algorithm.maxsat.MaxSatSolver` incrementally, and keeps them so that it can

* rebuild the solver without the *retractable* clauses (the oracle-fact shortcuts, which are
  hints and must be withdrawn when the oracle refutes them), and
* explain an UNSAT result: race constraints only mention L's positively and the other hard
  constraints (divergence exclusions) only negatively, so the system is UNSAT exactly when
  some single race has no admissible P-assignment left; :meth:`explain` finds those races and
  says why (self-race, divergence, all options refuted).

Variables exist only for placeable labels (``LabelTree.placeable``): a label after which no
barrier can be written simply drops out of every disjunction ("unplaceable -> no variable").

Beyond the paper, two barrier kinds (``warp_cost`` given): every placeable ℓ also gets W_ℓ,
"a ``__syncwarp()`` after ℓ", soft ¬W_ℓ weighted WC·C(ℓ) and hard ¬L_ℓ ∨ ¬W_ℓ (one barrier
per position).  A race whose every racing pair is two lanes of one warp (the oracle's
``Race.same_warp``) may be fixed by either kind, so its lines 7/9 disjunctions list L_ℓ and
W_ℓ; any other race lists only L_ℓ.  When a candidate shows that a race thought warp-local
also crosses warps, :meth:`ConstraintSystem.forbid_warp` adds the L-only disjunctions (they
subsume the old ones, so nothing needs retracting).  A divergent ``__syncthreads()``
excludes L_ℓ in its block (line 25), a divergent ``__syncwarp()`` both kinds: a block that
is not uniform within a warp is not uniform within the block either.

A third kind (``grid_cost`` given: the launch is cooperative, issue 37): G_ℓ, "a grid barrier
(``this_grid().sync()``) after ℓ", soft ¬G_ℓ weighted GC·C(ℓ), at most one kind per position.
A grid barrier orders everything a block barrier does and also threads of different blocks,
so G_ℓ joins the lines 7/9 disjunctions of every race; a race between blocks
(``Race.cross_block``) lists ONLY G_ℓ (``RaceVars.grid_only``), and so does a race first seen
inside a block whose part between blocks a candidate shows (:meth:`forbid_block`).  GC > 1
makes a race inside a block take L_ℓ, never G_ℓ at the same position.  A divergent
``__syncthreads()`` or ``__syncwarp()`` excludes G_ℓ too (a grid barrier there diverges as
well); a divergent grid barrier only G_ℓ: it may diverge between blocks only, where a block
barrier does not.

One piece (under 500 lines): the variables, every clause kind and the UNSAT
explanation share one bookkeeping (which clause came from which line, which race); splitting
the explanation from the clauses it reads would spread that one state over two modules.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

from autosync.algorithm.cost import CostModel, integer_weights
from autosync.algorithm.maxsat import MaxSatSolver, make_solver
from kpl.labels import START, LabelTree
from kpl.placement import BarrierKind, Placement

SYNC, WARP, GRID = BarrierKind.SYNCTHREADS, BarrierKind.SYNCWARP, BarrierKind.GRID

RaceKey = tuple[int, int]


@dataclass
class Clause:
    """One hard clause with the Alg. 1 line it implements (``tag``) and the race it belongs
    to (``None`` for divergence exclusions).  ``retractable`` marks oracle-fact hints."""

    lits: list[int]
    tag: str
    race: RaceKey | None = None
    retractable: bool = False
    active: bool = True


@dataclass
class RaceVars:
    """The variables and options of one race location ⟨ℓ, ℓ'⟩ (Alg. 1, lines 6–12).

    ``loops`` are ℓ^1..ℓ^d (outermost first); ``p[j]`` is P^j; ``options[j]`` are the labels
    of the disjunction guarded by P^j *before* removing unplaceable labels: [ℓ, ℓ') for j = 0
    (line 7), [ℓ_s^j, ℓ) ∪ [ℓ', ℓ^j) for j ≥ 1 (line 9)."""

    first: int
    second: int
    loops: tuple[int, ...]
    p: list[int]
    options: list[tuple[int, ...]]
    blocked: list[tuple[bool, ...]] = field(default_factory=list)
    facts: list[int] = field(default_factory=list)
    warp_ok: bool = False  # every racing pair is in one warp: a __syncwarp() may fix it
    grid_only: bool = False  # some racing pair is in two blocks: only a grid barrier fixes it

    @property
    def depth(self) -> int:
        return len(self.loops)

    @property
    def key(self) -> RaceKey:
        return (self.first, self.second)


class ConstraintSystem:
    """The solver state ``S`` of Algorithm 1 for one input kernel."""

    def __init__(self, tree: LabelTree, *, solver: str = "rc2",
                 lc: int | float | str | Fraction = 100,
                 ic: int | float | str | Fraction = 0.5, tie_break: bool = True,
                 warp_cost: int | float | str | Fraction | None = None,
                 grid_cost: int | float | str | Fraction | None = None,
                 uniform: Iterable[int] = (), prefer: Iterable[tuple[int, BarrierKind]] = ()) -> None:
        self.tree = tree
        self.solver_name = solver
        # uniform: guards the oracle proved always true (not discounted by IC)
        self.costs = CostModel(tree, lc, ic, *([] if warp_cost is None else [warp_cost]),
                               **({} if grid_cost is None else {"grid": grid_cost}),
                               uniform=uniform)
        # the kinds synthesis may use
        self.kinds = (SYNC,) + ((WARP,) if warp_cost is not None else ()) + \
            ((GRID,) if grid_cost is not None else ())
        self.placeable = [lab for lab in tree.labels() if tree.placeable(lab)]
        self.prefer = list(prefer)  # (label, kind) ties go to first: the developer's (fix --minimize)
        self.label_cost: dict[int, Fraction] = {lab: self.costs.cost(lab) for lab in self.placeable}
        kind_cost = {(lab, kind): self.costs.cost(lab, kind)
                     for kind in self.kinds for lab in self.placeable}
        weights, self.scale = integer_weights(kind_cost)
        if tie_break:
            weights = self._tie_broken(weights)
        self.weights = {lab: weights[(lab, SYNC)] for lab in self.placeable}  # of ¬L_ℓ
        self.warp_weights = {lab: weights[(lab, WARP)] for lab in self.placeable
                             if (lab, WARP) in weights}  # of ¬W_ℓ
        self.grid_weights = {lab: weights[(lab, GRID)] for lab in self.placeable
                             if (lab, GRID) in weights}  # of ¬G_ℓ
        self.var_names: list[str] = []
        self.L: dict[int, int] = {}  # L_ℓ: a __syncthreads() after ℓ
        self.W: dict[int, int] = {}  # W_ℓ: a __syncwarp() after ℓ (only with warp_cost)
        self.G: dict[int, int] = {}  # G_ℓ: a grid barrier after ℓ (only with grid_cost)
        self.races: dict[RaceKey, RaceVars] = {}
        self.clauses: list[Clause] = []
        self.excluded: dict[int, tuple[int, int]] = {}  # label -> (divergent barrier anchor, block)
        self.excluded_w: set[int] = set()  # labels whose W_ℓ a divergent __syncwarp() excluded
        self.excluded_g: dict[int, tuple[int, int]] = {}  # the same for G_ℓ (any divergent barrier)
        self.solver: MaxSatSolver = make_solver(solver)
        self.rebuilds = 0
        # line 3: S.ASSERTSOFT(¬L_ℓ, C(ℓ)) for every (placeable) label (and ¬W_ℓ, WC·C(ℓ))
        for lab in self.placeable:
            self.L[lab] = self._new_var(f"L_{tree.name(lab)}")
        if WARP in self.kinds:
            for lab in self.placeable:
                self.W[lab] = self._new_var(f"W_{tree.name(lab)}")
        if GRID in self.kinds:
            for lab in self.placeable:
                self.G[lab] = self._new_var(f"G_{tree.name(lab)}")
        self._add_softs(self.solver)
        for lab in self.placeable:  # at most one barrier per position
            here = [v[lab] for v in (self.L, self.W, self.G) if lab in v]
            for a, b in itertools.combinations(here, 2):
                self._add(Clause([-a, -b], "one kind"))

    def _add_softs(self, solver: MaxSatSolver) -> None:
        for lab in self.placeable:
            solver.add_soft(-self.L[lab], self.weights[lab])
        for lab in self.W:
            solver.add_soft(-self.W[lab], self.warp_weights[lab])
        for lab in self.G:
            solver.add_soft(-self.G[lab], self.grid_weights[lab])

    def _tie_broken(self, primary: dict[tuple[int, BarrierKind], int]) -> dict[tuple[int, BarrierKind], int]:
        """Lexicographic weights: C(ℓ) first, then a deterministic preference among EQUAL-cost
        optima, so both back ends return the same placement and it looks like a developer's:
        a block start ℓ_s first (an inter-iteration barrier at the top of the loop body), then
        later positions over earlier ones (a barrier right before the second racing access);
        before all of them the ``prefer``red (label, kind) pairs (``fix --minimize`` keeps the
        developer's barriers among equal-cost optima).

        weight(ℓ) = k·C(ℓ)·M + t(ℓ) with t(ℓ) ∈ [1, N] distinct and M > Σ t: any two placements
        whose exact costs differ keep their order (the primary terms differ by ≥ M), so the
        MaxSAT optimum is still a least-cost placement of Sec. III-C."""
        starts = [lab for lab in self.placeable if self.tree.kind(lab) == START]
        others = [lab for lab in reversed(self.placeable) if self.tree.kind(lab) != START]
        order = [key for key in self.prefer if key in primary]
        order += [(lab, kind) for kind in self.kinds for lab in starts + others
                  if (lab, kind) not in order]
        rank = {key: i + 1 for i, key in enumerate(order)}
        n = len(rank)
        m = n * (n + 1) // 2 + 1
        return {key: w * m + rank[key] for key, w in primary.items()}

    # ------------------------------------------------------------------ plumbing

    def _new_var(self, name: str) -> int:
        var = self.solver.new_var(name)
        self.var_names.append(name)
        assert var == len(self.var_names), "solver must number variables 1, 2, 3, …"
        return var

    def _add(self, clause: Clause) -> Clause:
        self.clauses.append(clause)
        self.solver.add_hard(list(clause.lits))
        return clause

    def rebuild(self) -> None:
        """A fresh solver with every variable, soft clause and ACTIVE hard clause (used after
        retracting oracle-fact hints, which no incremental MaxSAT back end can delete)."""
        solver = make_solver(self.solver_name)
        for name in self.var_names:
            solver.new_var(name)
        self._add_softs(solver)
        for cl in self.clauses:
            if cl.active:
                solver.add_hard(list(cl.lits))
        self.solver = solver
        self.rebuilds += 1

    def vars_of(self, kind: BarrierKind) -> dict[int, int]:
        """The variables of one barrier kind, by label (L, W or G)."""
        return self.W if kind is WARP else self.G if kind is GRID else self.L

    def race_kinds(self, race: RaceVars) -> tuple[BarrierKind, ...]:
        """The barrier kinds that may fix ``race``: only G for a race between blocks; else L,
        W when every racing pair is in one warp, and G (a grid barrier orders a block too)."""
        if race.grid_only:
            return (GRID,)
        return tuple(k for k in self.kinds if k is not WARP or race.warp_ok)

    def lvars(self, labels: Iterable[int], kinds: Iterable[BarrierKind] = (SYNC,)) -> list[int]:
        """The variables of ``kinds`` (default: L only) of the placeable labels among
        ``labels``: a barrier of any of those kinds after one of them."""
        labels = list(labels)
        return [v[lab] for kind in kinds for v in [self.vars_of(kind)] for lab in labels
                if lab in v]

    def describe_lit(self, lit: int) -> str:
        name = self.var_names[abs(lit) - 1]
        return name if lit > 0 else "¬" + name

    def describe(self, clause: Clause | list[int]) -> str:
        lits = clause.lits if isinstance(clause, Clause) else clause
        if not lits:
            return "⊥"
        if isinstance(clause, Clause) and clause.tag == "line 29":
            # ∨_j (P^j ≠ v_j) is the negation of the refuted assignment
            return "¬(" + " ∧ ".join(self.describe_lit(-lit) for lit in lits) + ")"
        neg = [lit for lit in lits if lit < 0]
        pos = [lit for lit in lits if lit > 0]
        if len(neg) == 1 and pos and self.var_names[-neg[0] - 1].startswith("P"):
            return f"{self.describe_lit(-neg[0])} ⇒ " + " ∨ ".join(map(self.describe_lit, pos))
        if len(neg) == 1 and not pos:
            return self.describe_lit(neg[0])
        return " ∨ ".join(map(self.describe_lit, lits))

    def race_name(self, key: RaceKey) -> str:
        return f"⟨{self.tree.name(key[0])}, {self.tree.name(key[1])}⟩"

    def where(self, label: int) -> str:
        """``file:line:col`` of a label's statement: what messages show instead of labels."""
        from kpl.locations import LabelLocator

        loc = LabelLocator(self.tree.kernel).location(label)
        return str(loc) if loc is not None else f"line {self.tree.name(label)}"

    def race_where(self, key: RaceKey) -> str:
        first, second = key
        if first == second:
            return f"at {self.where(first)}"
        return f"between {self.where(first)} and {self.where(second)}"

    # ------------------------------------------------------------------ Alg. 1, lines 6–12

    def add_race(self, first: int, second: int, warp_ok: bool = False,
                 cross: bool = False) -> tuple[RaceVars, list[Clause]]:
        """Lines 6–12 for race location ⟨first, second⟩ (first ⪯ second); idempotent.
        ``warp_ok``: every racing pair is in one warp, so W_ℓ counts too (with warp_cost);
        ``cross``: some racing pair is in two blocks, so only G_ℓ counts (with grid_cost)."""
        key = (first, second)
        if key in self.races:
            return self.races[key], []
        tree = self.tree
        loops = tree.shared_loops(first, second)  # line 6: ℓ^1..ℓ^d
        name = f"<{tree.name(first)},{tree.name(second)}>"
        p = [self._new_var(f"P{j}{name}") for j in range(len(loops) + 1)]
        options: list[tuple[int, ...]] = [tree.interval(first, second)]  # line 7: [ℓ, ℓ')
        for lp in loops:  # line 9: [ℓ_s^j, ℓ) ∪ [ℓ', ℓ^j)
            options.append(tree.interval(tree.start(lp), first) + tree.interval(second, lp))
        race = RaceVars(first, second, loops, p, options,
                        warp_ok=warp_ok and bool(self.W) and not cross,
                        grid_only=cross and bool(self.G))
        self.races[key] = race
        added: list[Clause] = []
        for j, opt in enumerate(options):  # lines 7 and 9
            added.append(self._add(Clause([-p[j]] + self.lvars(opt, self.race_kinds(race)),
                                          f"line {7 if j == 0 else 9}", key)))
        for j, k in itertools.combinations(range(1, len(loops) + 1), 2):  # line 11
            added.append(self._add(Clause([-p[j], -p[k]], "line 11", key)))
        added.append(self._add(Clause(list(p), "line 12", key)))  # line 12
        return race, added

    def forbid_warp(self, key: RaceKey) -> list[Clause]:
        """The race at ``key`` also crosses warps: only L_ℓ can fix it from now on.  Adds the
        lines 7/9 disjunctions without W (they subsume the old ones); [] if nothing changes."""
        race = self.races[key]
        if not race.warp_ok:
            return []
        race.warp_ok = False
        return [self._add(Clause([-race.p[j]] + self.lvars(opt, self.race_kinds(race)),
                                 f"line {7 if j == 0 else 9} (across warps)", key))
                for j, opt in enumerate(race.options)]

    def forbid_block(self, key: RaceKey) -> list[Clause]:
        """The race at ``key`` also crosses blocks: only G_ℓ can fix it from now on (the
        lines 7/9 disjunctions with G only, which subsume the old ones); [] if nothing
        changes or there are no grid barriers."""
        race = self.races[key]
        if race.grid_only or not self.G:
            return []
        race.grid_only, race.warp_ok = True, False
        return [self._add(Clause([-race.p[j]] + self.lvars(opt, (GRID,)),
                                 f"line {7 if j == 0 else 9} (across blocks)", key))
                for j, opt in enumerate(race.options)]

    def add_facts(self, key: RaceKey, depths: Iterable[int]) -> list[Clause]:
        """Beyond the paper: the oracle said at which loop depth(s) the race happens (0 =
        intra-iteration).  Assert P^0 for an intra fact and P^j for the deepest inter fact j
        (an inner inter-iteration barrier subsumes outer ones, Sec. III-B), as RETRACTABLE
        clauses: they skip the P-enumeration but are withdrawn if the oracle refutes them."""
        race = self.races[key]
        ds = {d for d in depths if 0 <= d <= race.depth}
        if not ds or race.facts:
            return []
        want = [0] if 0 in ds else []
        inter = [d for d in ds if d >= 1]
        if inter:
            want.append(max(inter))
        added = []
        for j in want:
            race.facts.append(j)
            added.append(self._add(Clause([race.p[j]], f"fact depth {j}", key, retractable=True)))
        return added

    def retract_facts(self, key: RaceKey | None = None) -> bool:
        """Withdraw the fact hints of one race (or all); rebuilds the solver if any."""
        changed = False
        for cl in self.clauses:
            if cl.retractable and cl.active and (key is None or cl.race == key):
                cl.active = False
                changed = True
        for race in self.races.values():
            if key is None or race.key == key:
                race.facts.clear()
        if changed:
            self.rebuild()
        return changed

    def has_facts(self, key: RaceKey | None = None) -> bool:
        return any(cl.retractable and cl.active and (key is None or cl.race == key)
                   for cl in self.clauses)

    # ------------------------------------------------------------------ lines 25, 29

    def exclude_block(self, children: Iterable[int], barrier: int, block: int,
                      kind: BarrierKind = SYNC) -> list[Clause]:
        """Line 25: ∧ ¬L_i for i ∈ [ℓ_s^d, ℓ^d), the children of the innermost block of a
        divergent barrier (and ∧ ¬W_i when the divergent barrier is a ``__syncwarp()``; ∧ ¬G_i
        always: a grid barrier diverges wherever a block barrier does; a divergent grid
        barrier excludes only G_i, as it may diverge only between blocks).  Only labels not
        excluded yet are added (returns what is new)."""
        added = []
        for lab in children:
            if kind is not GRID and lab in self.L and lab not in self.excluded:
                self.excluded[lab] = (barrier, block)
                added.append(self._add(Clause([-self.L[lab]], "line 25")))
            if kind.warp and lab in self.W and lab not in self.excluded_w:
                self.excluded_w.add(lab)
                added.append(self._add(Clause([-self.W[lab]], "line 25 (warp)")))
            if lab in self.G and lab not in self.excluded_g:
                self.excluded_g[lab] = (barrier, block)
                added.append(self._add(Clause([-self.G[lab]], "line 25 (grid)")))
        return added

    def p_assignment(self, key: RaceKey, model: set[int]) -> tuple[bool, ...]:
        return tuple(v in model for v in self.races[key].p)

    def block_assignment(self, key: RaceKey, model: set[int]) -> Clause:
        """Line 29: ∨_j (P^j ≠ model[P^j]) -- the oracle refuted this P-assignment."""
        race = self.races[key]
        assignment = self.p_assignment(key, model)
        race.blocked.append(assignment)
        lits = [-v if val else v for v, val in zip(race.p, assignment, strict=True)]
        return self._add(Clause(lits, "line 29", key))

    # ------------------------------------------------------------------ solving

    def solve(self) -> set[int] | None:
        return self.solver.solve()

    def chosen(self, model: set[int]) -> list[tuple[int, BarrierKind]]:
        """The barriers of a model, (label, kind) in text order."""
        return [(lab, kind) for lab in self.placeable for kind in self.kinds
                if lab in (v := self.vars_of(kind)) and v[lab] in model]

    def chosen_labels(self, model: set[int]) -> list[int]:
        """The placement 𝓛 of a model, in text order (either kind)."""
        return [lab for lab, _ in self.chosen(model)]

    def placement(self, model: set[int]) -> Placement:
        """The placement 𝓛 of a model (line 19), in text order, priced by C(ℓ) (× WC for a
        ``__syncwarp()``, × GC for a grid barrier)."""
        return self.costs.mixed(self.chosen(model))

    def warp_only(self, key: RaceKey, model: set[int]) -> bool:
        """Does the model satisfy the chosen options of race ``key`` only through W's?"""
        race = self.races[key]
        chosen = [j for j, v in enumerate(race.p) if v in model]
        return bool(chosen) and all(not any(self.L[lab] in model for lab in race.options[j]
                                            if lab in self.L) for j in chosen)

    def cost(self, labels: Iterable[int]) -> Fraction:
        return self.costs.total(labels)

    # ------------------------------------------------------------------ UNSAT explanation

    def _admissible(self, race: RaceVars, *, exclusions: bool = True) -> list[tuple[bool, ...]]:
        """P-assignments of ``race`` still allowed by lines 7–12, 25 (unless
        ``exclusions=False``), 29 and the active facts."""
        out = []
        facts = {j for cl in self.clauses if cl.active and cl.retractable and cl.race == race.key
                 for j in [race.p.index(cl.lits[0])]}
        for bits in itertools.product((False, True), repeat=race.depth + 1):
            if not any(bits) or sum(bits[1:]) > 1 or bits in race.blocked:
                continue
            if any(not bits[j] for j in facts):
                continue
            if all(self._live(race, race.options[j], exclusions) for j, on in enumerate(bits) if on):
                out.append(bits)
        return out

    def _live(self, race: RaceVars, labels: Iterable[int], exclusions: bool = True) -> list[int]:
        """The labels among ``labels`` where a barrier of a kind that may fix ``race`` can go."""
        excluded = {SYNC: self.excluded.keys(), WARP: self.excluded_w, GRID: self.excluded_g.keys()}
        kinds = self.race_kinds(race)
        return [lab for lab in labels
                if any(lab in self.vars_of(k) and not (exclusions and lab in excluded[k])
                       for k in kinds)]

    def conflicting_races(self) -> list[RaceVars]:
        """The races that have no admissible P-assignment left (the UNSAT core, race-wise)."""
        return [race for race in self.races.values() if not self._admissible(race)]

    def explain(self) -> str:
        """Why the placement constraints are UNSAT (Sec. III-D: "(1) a race ⟨ℓ, ℓ⟩ … (2) a race
        inside a block with a thread-dependent guard"), naming labels and lines."""
        tree = self.tree
        reasons = []
        for race in self.conflicting_races():
            name = f"{self.race_name(race.key)} {self.race_where(race.key)}"
            placeable_any = any(self._live(race, opt, exclusions=False) for opt in race.options)
            gone = self.excluded_g if race.grid_only else self.excluded
            excluded_blocks = sorted({gone[lab][1] for opt in race.options
                                      for lab in opt if lab in gone})
            if race.first == race.second and race.depth == 0:
                reasons.append(f"self-race {name}: the statement at line {tree.line(race.first)} "
                               "races with itself (two threads execute it with no statement in "
                               "between), which no barrier can separate")
            elif not placeable_any:
                reasons.append(f"race {name}: no position between the racing statements "
                               "where a barrier can be written")
            elif excluded_blocks and self._admissible(race, exclusions=False):
                blocks = ", ".join(f"{tree.name(b)} ({self.where(b)})" for b in excluded_blocks)
                reasons.append(f"race {name} lies inside thread-dependent block(s) {blocks}: every "
                               "barrier that separates it would be divergent (Alg. 1, line 25)")
            else:
                kind = "self-race" if race.first == race.second else "race"
                blocked = "; ".join("{" + ", ".join(f"P{j}" for j, on in enumerate(b) if on) + "}"
                                    for b in race.blocked)
                extra = ""
                if race.first == race.second:
                    extra = (" (the statement races with itself within one loop iteration, "
                             "which no barrier can separate)")
                if excluded_blocks:
                    extra += " (positions in thread-dependent block(s) " + ", ".join(
                        f"{tree.name(b)} ({self.where(b)})" for b in excluded_blocks) + " are excluded as divergent)"
                reasons.append(f"{kind} {name}: every placement option was refuted by the "
                               f"oracle (blocked P-assignments: {blocked or 'none'}){extra}")
        if not reasons:
            return "the placement constraints are unsatisfiable"
        return "; ".join(reasons)
