"""The placement constraints of [AutoSync] Alg. 1 on their own (``autosync.algorithm.constraints``).

Each clause family is checked against the paper's definitions on small hand-built label trees
(the shared builder of ``tests/conftest.py``, paper naming ``3``, ``2:4``, ``2:4_s``):

* line 3: one soft ¬L_ℓ per placeable label, weighted by C(ℓ) (Sec. III-C);
* lines 6–12 for a race ⟨ℓ, ℓ'⟩ with shared loops ℓ^1..ℓ^d: P^0 ⇒ ∨ L over [ℓ, ℓ') (line 7),
  P^j ⇒ ∨ L over [ℓ_s^j, ℓ) ∪ [ℓ', ℓ^j) (line 9), at most one P^j with j ≥ 1 (line 11), some P
  (line 12);
* line 25: ¬L_i for the children [ℓ_s^d, ℓ^d) of a divergent barrier's block;
* line 29: the refuted P-assignment blocked;
* the oracle-fact hints (retractable) and the UNSAT explanation.

Beyond the clause shapes, :func:`admits` checks the meaning: with L fixed, the hard clauses
are satisfiable exactly when the placement separates the race as the paper defines it.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from conftest import EVEN, by_name, fig6, if_, leaf, lt, paper_kernel, v, while_

from autosync.algorithm.constraints import Clause, ConstraintSystem
from autosync.algorithm.maxsat import RC2Solver
from kpl.ast import Kernel
from kpl.labels import LabelTree


def fig2() -> Kernel:
    """1 x = A[tid+1]; 2 x = x+11; 3 A[tid] += x."""
    return paper_kernel("fig2", [leaf(1, read=True), leaf(2), leaf(3, write=True)])


def fig4() -> Kernel:
    """for 1:5 { 2 x = A[tid+1]; 3 x = x+i; 4 A[tid] += x; }"""
    return paper_kernel("fig4", [
        while_(lt(v("i"), 4), [leaf(2, read=True), leaf(3), leaf(4, write=True)], line=1, end=5)])


def nested() -> Kernel:
    """for 1:8 { 2 x = x+1; for 3:7 { 4 x = A[tid+1]; 5 x = x+1; 6 A[tid] = x; } }"""
    return paper_kernel("nested", [while_(lt(v("i"), 4), [leaf(2), while_(lt(v("j"), 4), [
        leaf(4, read=True), leaf(5), leaf(6, write=True)], line=3, end=7)], line=1, end=8)])


def system(kernel: Kernel, **kw: object) -> tuple[ConstraintSystem, LabelTree]:
    tree = LabelTree(kernel)
    return ConstraintSystem(tree, **kw), tree  # type: ignore[arg-type]


def lits_named(cs: ConstraintSystem, clause: Clause) -> list[str]:
    return [cs.describe_lit(lit) for lit in clause.lits]


def L(cs: ConstraintSystem, tree: LabelTree, *names: str) -> list[int]:
    return [cs.L[by_name(tree, n)] for n in names]


def admits(cs: ConstraintSystem, chosen: set[int]) -> bool:
    """Are the ACTIVE hard clauses satisfiable with exactly the L's of ``chosen`` true?
    (Brute force over the P variables: the systems here have at most three.)"""
    lvars = set(cs.L.values())
    others = [v for v in range(1, len(cs.var_names) + 1) if v not in lvars]
    fixed = {cs.L[lab] for lab in chosen}
    clauses = [cl.lits for cl in cs.clauses if cl.active]
    for bits in itertools.product((False, True), repeat=len(others)):
        true = fixed | {v for v, on in zip(others, bits, strict=True) if on}
        if all(any((lit > 0) == (abs(lit) in true) for lit in cl) for cl in clauses):
            return True
    return False


# --------------------------------------------------------------------------- line 3


def test_line3_one_soft_per_placeable_label_weighted_by_cost() -> None:
    cs, tree = system(fig4(), tie_break=False)
    assert isinstance(cs.solver, RC2Solver)
    placeable = [lab for lab in tree.labels() if tree.placeable(lab)]
    assert set(cs.L) == set(placeable) and tree.root not in cs.L  # never after `main`
    # C(ℓ) = LC^|loops| · IC^|conds|: 100 inside the loop, 1 outside (Sec. III-C)
    assert cs.label_cost[by_name(tree, "3")] == 100
    assert cs.label_cost[by_name(tree, "1:5")] == 1
    softs = dict(cs.solver.softs)
    assert softs == {-cs.L[lab]: int(cs.label_cost[lab] * cs.scale) for lab in placeable}


def test_line3_fractional_costs_scaled_exactly_and_tie_break_keeps_order() -> None:
    cs, tree = system(fig6(), tie_break=False)  # IC = 1/2: the leaves under an `if` cost 1/2
    assert cs.label_cost[by_name(tree, "3")] == Fraction(1, 2) and cs.scale == 2
    tied, _ = system(fig6())
    # the tie-break refines the order but never swaps two labels of different cost
    for a, b in itertools.permutations(cs.placeable, 2):
        if cs.label_cost[a] < cs.label_cost[b]:
            assert tied.weights[a] < tied.weights[b]


def test_unplaceable_label_has_no_variable_and_drops_out_of_disjunctions() -> None:
    k = paper_kernel("u", [leaf(1, read=True), leaf(2, placeable=False), leaf(3, write=True)])
    cs, tree = system(k)
    l1, l2, l3 = (by_name(tree, n) for n in "123")
    assert l2 not in cs.L
    race, added = cs.add_race(l1, l3)
    assert race.options[0] == (l1, l2)  # the option itself is [1, 3) ...
    assert lits_named(cs, added[0]) == ["¬P0<1,3>", "L_1"]  # ... but only L_1 can be chosen


# --------------------------------------------------------------------------- lines 6–12


def test_race_without_loops_line7_and_line12() -> None:
    cs, tree = system(fig2())
    l1, l3 = by_name(tree, "1"), by_name(tree, "3")
    race, added = cs.add_race(l1, l3)
    assert race.loops == () and len(race.p) == 1
    assert [cl.tag for cl in added] == ["line 7", "line 12"]
    assert lits_named(cs, added[0]) == ["¬P0<1,3>", "L_1", "L_2"]  # P⁰ ⇒ ∨ L over [1, 3)
    assert lits_named(cs, added[1]) == ["P0<1,3>"]
    assert all(cl.race == (l1, l3) and not cl.retractable for cl in added)
    # meaning: a barrier after 1 or 2 separates the race, after 3 does not
    assert admits(cs, {l1}) and admits(cs, {by_name(tree, "2")})
    assert not admits(cs, {l3}) and not admits(cs, set())


def test_add_race_is_idempotent() -> None:
    cs, tree = system(fig2())
    key = (by_name(tree, "1"), by_name(tree, "3"))
    first, added = cs.add_race(*key)
    again, more = cs.add_race(*key)
    assert again is first and more == [] and len(cs.clauses) == len(added)


def test_fig6_line7_uses_the_label_interval_across_blocks() -> None:
    """Sec. III-A: [3, 6) = {3, 2:4, 5:7_s}."""
    cs, tree = system(fig6())
    race, added = cs.add_race(by_name(tree, "3"), by_name(tree, "6"))
    assert [tree.name(lab) for lab in race.options[0]] == ["3", "2:4", "5:7_s"]
    assert lits_named(cs, added[0]) == ["¬P0<3,6>", "L_3", "L_2:4", "L_5:7_s"]


def test_fig4_line9_inter_iteration_option() -> None:
    """One shared loop: P¹ ⇒ ∨ L over [1:5_s, 2) ∪ [4, 1:5) = {1:5_s, 4}; no line 11."""
    cs, tree = system(fig4())
    race, added = cs.add_race(by_name(tree, "2"), by_name(tree, "4"))
    assert [tree.name(lp) for lp in race.loops] == ["1:5"]
    assert [cl.tag for cl in added] == ["line 7", "line 9", "line 12"]
    assert lits_named(cs, added[1]) == ["¬P1<2,4>", "L_1:5_s", "L_4"]
    assert lits_named(cs, added[2]) == ["P0<2,4>", "P1<2,4>"]
    # meaning: the race has an intra- and an inter-iteration part, and Alg. 1 admits a
    # placement that separates either (the oracle refutes the insufficient ones, line 29)
    l2, l3, l4, s = (by_name(tree, n) for n in ("2", "3", "4", "1:5_s"))
    for chosen in ({l3}, {l2}, {s}, {l4}, {l3, s}):
        assert admits(cs, chosen)
    assert not admits(cs, {by_name(tree, "1:5")}) and not admits(cs, set())


def test_nested_loops_line9_per_loop_and_line11_pairwise() -> None:
    cs, tree = system(nested())
    race, added = cs.add_race(by_name(tree, "4"), by_name(tree, "6"))
    assert [tree.name(lp) for lp in race.loops] == ["1:8", "3:7"]  # outermost first
    assert [[tree.name(lab) for lab in opt] for opt in race.options] == [
        ["4", "5"],                             # [4, 6)
        ["1:8_s", "2", "3:7_s", "6", "3:7"],    # [1:8_s, 4) ∪ [6, 1:8)
        ["3:7_s", "6"],                         # [3:7_s, 4) ∪ [6, 3:7)
    ]
    assert [cl.tag for cl in added] == ["line 7", "line 9", "line 9", "line 11", "line 12"]
    assert lits_named(cs, added[3]) == ["¬P1<4,6>", "¬P2<4,6>"]
    assert lits_named(cs, added[4]) == ["P0<4,6>", "P1<4,6>", "P2<4,6>"]
    # the outer loop's option holds the inner loop's label 3:7 (after the inner loop)
    assert admits(cs, {by_name(tree, "3:7")}) and admits(cs, {by_name(tree, "2")})
    assert not admits(cs, {by_name(tree, "1:8")})


# --------------------------------------------------------------------------- line 25


def test_line25_excludes_the_children_of_the_divergent_block_once() -> None:
    cs, tree = system(fig6())
    block = by_name(tree, "2:4")
    children = tree.interval(tree.start(block), block)  # [2:4_s, 2:4)
    assert [tree.name(c) for c in children] == ["2:4_s", "3"]
    added = cs.exclude_block(children, barrier=999, block=block)
    assert [cl.tag for cl in added] == ["line 25", "line 25"]
    assert [cl.lits for cl in added] == [[-v] for v in L(cs, tree, "2:4_s", "3")]
    assert all(cl.race is None for cl in added)
    assert cs.excluded[by_name(tree, "3")] == (999, block)
    assert cs.exclude_block(children, barrier=999, block=block) == []  # nothing new
    # the race ⟨3, 6⟩ still has 2:4 and 5:7_s, outside the excluded block
    cs.add_race(by_name(tree, "3"), by_name(tree, "6"))
    assert not admits(cs, {by_name(tree, "3")}) and admits(cs, {by_name(tree, "2:4")})


# --------------------------------------------------------------------------- line 29


def test_line29_blocks_exactly_the_refuted_p_assignment() -> None:
    cs, tree = system(fig4())
    key = (by_name(tree, "2"), by_name(tree, "4"))
    race, _ = cs.add_race(*key)
    model = cs.solve()
    assert model is not None
    refuted = cs.p_assignment(key, model)
    clause = cs.block_assignment(key, model)
    assert clause.tag == "line 29" and race.blocked == [refuted]
    assert clause.lits == [-v if on else v for v, on in zip(race.p, refuted, strict=True)]
    again = cs.solve()
    assert again is not None and cs.p_assignment(key, again) != refuted
    # after refuting P⁰-only and P¹-only, only {P⁰, P¹} is left: one barrier per part
    cs.block_assignment(key, again)
    last = cs.solve()
    assert last is not None and cs.p_assignment(key, last) == (True, True)
    assert cs.cost(cs.chosen_labels(last)) == 200


# --------------------------------------------------------------------------- facts


def test_facts_assert_intra_and_deepest_inter_and_are_retractable() -> None:
    cs, tree = system(nested())
    key = (by_name(tree, "4"), by_name(tree, "6"))
    race, _ = cs.add_race(*key)
    facts = cs.add_facts(key, [0, 1, 2, 7])  # 7: deeper than the race, ignored
    assert [cl.lits for cl in facts] == [[race.p[0]], [race.p[2]]]
    assert all(cl.retractable and cl.tag.startswith("fact depth") for cl in facts)
    assert cs.has_facts(key) and cs.add_facts(key, [1]) == []  # once per race
    rebuilds = cs.rebuilds
    assert cs.retract_facts(key)
    assert not cs.has_facts() and cs.rebuilds == rebuilds + 1
    assert not any(cl.active for cl in facts) and race.facts == []
    assert not cs.retract_facts(key)  # nothing left: no rebuild
    assert cs.rebuilds == rebuilds + 1


# --------------------------------------------------------------------------- UNSAT


def test_self_race_without_loop_is_unsat_and_explained() -> None:
    cs, tree = system(fig2())
    l3 = by_name(tree, "3")
    race, added = cs.add_race(l3, l3)
    assert race.options == [()] and lits_named(cs, added[0]) == ["¬P0<3,3>"]
    assert cs.solve() is None
    assert [r.key for r in cs.conflicting_races()] == [(l3, l3)]
    assert "self-race ⟨3, 3⟩" in cs.explain()


def test_race_inside_thread_dependent_block_is_explained() -> None:
    k = paper_kernel("div", [if_(EVEN, [leaf(2, read=True), leaf(3), leaf(4, write=True)], line=1, end=5)])
    cs, tree = system(k)
    block = by_name(tree, "1:5")
    cs.add_race(by_name(tree, "2"), by_name(tree, "4"))
    cs.exclude_block(tree.interval(tree.start(block), block), barrier=999, block=block)
    assert cs.solve() is None
    assert "thread-dependent block(s) 1:5" in cs.explain()


@pytest.mark.parametrize("solver", ["rc2", "nuz"])
def test_solver_picks_least_cost_option(solver: str) -> None:
    """Fig. 6: [3, 6) = {3, 2:4, 5:7_s}; 2:4 is outside both ifs (C = 1), the others cost 1/2:
    the optimum is one barrier of cost 1/2, and the tie-break prefers the block start."""
    cs, tree = system(fig6(), solver=solver)
    cs.add_race(by_name(tree, "3"), by_name(tree, "6"))
    model = cs.solve()
    assert model is not None
    placement = cs.placement(model)
    assert placement.cost == Fraction(1, 2)
    assert [tree.name(a.label) for a in placement] == ["5:7_s"]
