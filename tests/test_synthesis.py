"""Algorithm 1 replayed on the paper's own examples with a SCRIPTED oracle.

The scripted oracle knows, for each example, which barrier positions (anchors) fix which race
and which positions are divergent -- the facts the paper states in Sec. II -- so these tests
exercise SYNTHESIZE/REFINE and the placement constraints without depending on a real verifier.
End-to-end tests over ``microbench/`` with the real oracle are at the bottom.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import EVEN, barrier, by_name, fig6, if_, leaf, lt, paper_kernel, v, while_

from autosync.algorithm.naive import naive_synthesize
from autosync.algorithm.synthesis import FIXED, UNFIXABLE, UNKNOWN, VERIFIED, IterationRecord, synthesize
from kpl.ast import Barrier, Kernel, walk_stmts
from kpl.labels import LabelTree
from kpl.transform import barrier_anchors, strip_barriers
from oracle.base import Divergence, OracleBase, Race, Unknown, Verdict

ROOT = Path(__file__).resolve().parent.parent
SOLVERS = ["rc2", "nuz"]


@dataclass
class Rule:
    """Race ⟨first, second⟩ is reported while ``fixed(anchors)`` is False (and ``when``)."""

    first: int
    second: int
    fixed: Callable[[set[int]], bool]
    depth: int | None = None
    when: Callable[[set[int]], bool] = lambda anchors: True
    array: str = "A"


@dataclass
class ScriptedOracle(OracleBase):
    rules: list[Rule]
    divergent: set[int] = field(default_factory=set)
    unknown: bool = False
    log: list[set[int]] = field(default_factory=list)
    name: str = "scripted"

    def check(self, kernel: Kernel) -> Verdict:
        pairs = barrier_anchors(kernel)
        anchors = {a for a, _ in pairs}
        self.log.append(anchors)
        races = [Race(r.first, r.second, r.array, ("read", "write"), loop_depth=r.depth)
                 for r in self.rules if r.when(anchors) and not r.fixed(anchors)]
        divs = [Divergence(b.label) for a, b in pairs if a in self.divergent]
        unknowns = [Unknown("scripted unknown")] if self.unknown else []
        return Verdict(races=races, divergences=divs, unknowns=unknowns)


def any_of(*labels: int) -> Callable[[set[int]], bool]:
    wanted = set(labels)
    return lambda anchors: bool(anchors & wanted)


def named(tree: LabelTree, labels: Iterable[int]) -> set[str]:
    return {tree.name(lab) for lab in labels}


# --------------------------------------------------------------------------- Fig. 2


def fig2() -> tuple[Kernel, ScriptedOracle]:
    """1 x = A[tid+1]; 2 x = x+11; 3 A[tid] += x;  race ⟨1, 3⟩, fixed by a barrier in [1, 3)."""
    k = paper_kernel("fig2", [leaf(1, read=True), leaf(2), leaf(3, write=True)])
    t = LabelTree(k)
    l1, l2, l3 = (by_name(t, s) for s in "123")
    return k, ScriptedOracle([Rule(l1, l3, any_of(l1, l2))])


@pytest.mark.parametrize("solver", SOLVERS)
def test_fig2_gives_L2(solver: str) -> None:
    k, oracle = fig2()
    res = synthesize(k, oracle, solver=solver)
    tree = LabelTree(k)
    assert res.status == FIXED
    assert named(tree, res.labels) == {"2"}  # Sec. II-A: the solution {L2}
    assert res.cost == 1 and res.barriers == [(by_name(tree, "2"), Fraction(1))]
    assert res.iterations == 1 and res.oracle_calls == 2
    assert res.kernel is not None
    assert [s.label for s in walk_stmts(res.kernel.body) if isinstance(s, Barrier)] == list(res.barrier_map)
    assert res.solver == solver and res.seconds >= 0
    assert [(r.first, r.second) for r in res.races_initial] == [(by_name(tree, "1"), by_name(tree, "3"))]


def test_fig2_without_tie_break_still_cost_one() -> None:
    k, oracle = fig2()
    res = synthesize(k, oracle, tie_break=False)
    assert res.status == FIXED and res.cost == 1
    assert named(LabelTree(k), res.labels) <= {"1", "2"} and len(res.labels) == 1


# --------------------------------------------------------------------------- Fig. 4


def fig4(facts: str = "none") -> tuple[Kernel, ScriptedOracle, LabelTree]:
    """Fig. 4: ``for`` 1:5 { 2 x = A[tid+1]; 3 x = x+i; 4 A[tid] += x; }.  The race ⟨2, 4⟩ has
    an intra-iteration part (fixed by a barrier in [2, 4) = {2, 3}) and an inter-iteration
    part (fixed by one in [1:5_s, 2) ∪ [4, 1:5) = {1:5_s, 4}).  ``facts``: what the oracle
    says about the loop depth: none | true | lie (always says inter, depth 1)."""
    k = paper_kernel("fig4", [
        while_(lt(v("i"), 4), [leaf(2, read=True), leaf(3), leaf(4, write=True)], line=1, end=5)])
    t = LabelTree(k)
    l2, l3, l4, lp = (by_name(t, s) for s in ("2", "3", "4", "1:5"))
    intra = any_of(l2, l3)
    inter = any_of(t.start(lp), l4)
    d0 = {"none": None, "true": 0, "lie": 1}[facts]
    d1 = {"none": None, "true": 1, "lie": 1}[facts]
    return k, ScriptedOracle([Rule(l2, l4, intra, d0), Rule(l2, l4, inter, d1)]), t


@pytest.mark.parametrize("solver", SOLVERS)
def test_fig4_three_iterations_paper_faithful(solver: str) -> None:
    """Sec. II-B: {P⁰, L3} and {P¹, L1} are refuted (in a solver-dependent order: they cost
    the same), their P-assignments blocked (¬(P⁰ ∧ ¬P¹), ¬(¬P⁰ ∧ P¹)); the third iteration
    gives {P⁰, P¹, L1, L3}, cost 200."""
    k, oracle, t = fig4()
    records: list[IterationRecord] = []
    res = synthesize(k, oracle, solver=solver, use_facts=False, on_iteration=records.append)
    assert res.status == FIXED
    assert res.iterations == 3 and res.oracle_calls == 4  # initial + 3 refinement calls
    assert res.cost == 200
    key = (by_name(t, "2"), by_name(t, "4"))
    first_two = {records[0].p_assignments[key], records[1].p_assignments[key]}
    assert first_two == {(True, False), (False, True)}
    assert records[2].p_assignments[key] == (True, True)
    assert [r.outcome for r in records] == ["races", "races", "verified"]
    assert all(r.cost == 100 for r in records[:2])
    blocks = {a for r in records[:2] for a in r.added if a.startswith("line 29")}
    assert blocks == {"line 29: ¬(P0<2,4> ∧ ¬P1<2,4>)", "line 29: ¬(¬P0<2,4> ∧ P1<2,4>)"}
    lp = by_name(t, "1:5")
    chosen = set(res.labels)
    assert len(chosen) == 2
    assert chosen & {by_name(t, "2"), by_name(t, "3")}
    assert chosen & {t.start(lp), by_name(t, "4")}
    # with the developer-style tie-break: exactly the paper's {L1, L3} (L1 = 1:5_s)
    assert named(t, res.labels) == {"1:5_s", "3"}
    # three candidates, each checked once
    assert len(oracle.log) == 4 and oracle.log[0] == set()


def test_fig4_without_tie_break_same_trace_shape() -> None:
    k, oracle, t = fig4()
    res = synthesize(k, oracle, use_facts=False, tie_break=False)
    assert res.status == FIXED and res.cost == 200 and res.oracle_calls == 4
    assert set(res.labels) & {by_name(t, "2"), by_name(t, "3")}
    assert set(res.labels) & {t.start(by_name(t, "1:5")), by_name(t, "4")}


@pytest.mark.parametrize("solver", SOLVERS)
def test_fig4_with_true_facts_skips_enumeration(solver: str) -> None:
    k, oracle, t = fig4("true")
    res = synthesize(k, oracle, solver=solver)
    assert res.status == FIXED and res.cost == 200
    assert res.iterations == 1 and res.oracle_calls == 2
    assert named(t, res.labels) == {"1:5_s", "3"}


def test_fig4_facts_off_ignores_true_facts() -> None:
    k, oracle, _ = fig4("true")
    res = synthesize(k, oracle, use_facts=False)
    assert res.status == FIXED and res.oracle_calls == 4


@pytest.mark.parametrize("solver", SOLVERS)
def test_fig4_lying_facts_fall_back_to_refinement(solver: str) -> None:
    """The oracle claims the race is inter-iteration only: the hint is tried, refuted,
    withdrawn, and the P-blocking refinement still reaches the correct placement."""
    k, oracle, t = fig4("lie")
    records: list[IterationRecord] = []
    res = synthesize(k, oracle, solver=solver, on_iteration=records.append)
    assert res.status == FIXED and res.cost == 200
    key = (by_name(t, "2"), by_name(t, "4"))
    assert records[0].p_assignments[key] == (False, True)  # the hint: P¹ only
    assert records[-1].p_assignments[key] == (True, True)
    assert any("withdrawn" in n for n in records[0].notes)
    assert res.oracle_calls == 4


def test_fig4_silent_oracle_same_as_paper() -> None:
    k, oracle, _ = fig4("none")
    res = synthesize(k, oracle, use_facts=True)
    assert res.status == FIXED and res.oracle_calls == 4


# --------------------------------------------------------------------------- Fig. 7


@pytest.mark.parametrize("solver", SOLVERS)
def test_fig7_one_barrier_one_iteration(solver: str) -> None:
    """Sec. II-D: races ⟨1,3⟩ and ⟨2,4⟩; {L2} is the least-cost model of [L1 ∨ L2, L2 ∨ L3]."""
    k = paper_kernel("fig7", [leaf(1, read=True), leaf(2, read=True), leaf(3, write=True),
                              leaf(4, write=True)])
    t = LabelTree(k)
    l1, l2, l3, l4 = (by_name(t, s) for s in "1234")
    oracle = ScriptedOracle([Rule(l1, l3, any_of(l1, l2)), Rule(l2, l4, any_of(l2, l3), array="B")])
    for tb in (True, False):
        res = synthesize(k, oracle, solver=solver, tie_break=tb)
        assert res.status == FIXED and res.labels == [l2] and res.cost == 1
        assert res.iterations == 1 and res.oracle_calls == 2


# --------------------------------------------------------------------------- Fig. 6 (divergence)


@pytest.mark.parametrize("solver", SOLVERS)
def test_fig6_divergence_exclusion(solver: str) -> None:
    """Sec. II-C: barriers inside either ``if`` diverge; line 25 excludes the children of the
    innermost block of the divergent barrier, until the barrier lands between the ifs."""
    k = fig6()
    t = LabelTree(k)
    l3, l6, b24, b57 = (by_name(t, s) for s in ("3", "6", "2:4", "5:7"))
    inside = {t.start(b24), l3, t.start(b57), l6}
    oracle = ScriptedOracle([Rule(l3, l6, any_of(l3, b24, t.start(b57)))], divergent=inside)
    records: list[IterationRecord] = []
    res = synthesize(k, oracle, solver=solver, on_iteration=records.append)
    assert res.status == FIXED
    assert named(t, res.labels) == {"2:4"} and res.cost == 1
    # the cheaper (0.5) positions 3 and 5:7_s were tried first, each divergent
    assert [r.outcome for r in records] == ["divergent", "divergent", "verified"]
    assert {records[0].cost, records[1].cost} == {Fraction(1, 2)}
    tried = {tuple(r.labels) for r in records[:2]}
    assert tried == {(l3,), (t.start(b57),)}
    assert all(any("line 25" in a for a in r.added) for r in records[:2])
    assert res.oracle_calls == 4


@pytest.mark.parametrize("solver", SOLVERS)
def test_race_inside_thread_dependent_block_is_unfixable(solver: str) -> None:
    """1 if (tid%2==0) { 2 x = A[tid+1]; 3 A[tid] = x; 4 }: every separating barrier would
    be divergent -> the divergence constraint conflicts with the race (Sec. III-D, (2))."""
    k = paper_kernel("divblock", [
        if_(EVEN, [leaf(2, read=True), leaf(3, write=True)], line=1, end=4)])
    t = LabelTree(k)
    l2, l3, b = by_name(t, "2"), by_name(t, "3"), by_name(t, "1:4")
    oracle = ScriptedOracle([Rule(l2, l3, any_of(l2))], divergent={t.start(b), l2, l3})
    res = synthesize(k, oracle, solver=solver)
    assert res.status == UNFIXABLE
    assert res.reason is not None and "⟨2, 3⟩" in res.reason and "1:4" in res.reason
    assert "thread-dependent" in res.reason
    assert res.conflicts == [(l2, l3)]
    assert res.kernel is None


# --------------------------------------------------------------------------- unfixable / unknown


@pytest.mark.parametrize("solver", SOLVERS)
def test_self_race_outside_loops_is_unfixable(solver: str) -> None:
    k = paper_kernel("self", [leaf(1), leaf(2, write=True)])
    t = LabelTree(k)
    l2 = by_name(t, "2")
    oracle = ScriptedOracle([Rule(l2, l2, lambda a: False)])
    res = synthesize(k, oracle, solver=solver)
    assert res.status == UNFIXABLE
    assert res.reason is not None and "self-race ⟨2, 2⟩" in res.reason and "line 2" in res.reason
    assert res.iterations == 0 and res.oracle_calls == 1


def test_self_race_inside_loop_exhausts_options() -> None:
    k = paper_kernel("selfloop", [while_(lt(v("i"), 4), [leaf(2, write=True)], line=1, end=3)])
    t = LabelTree(k)
    l2 = by_name(t, "2")
    oracle = ScriptedOracle([Rule(l2, l2, lambda a: False)])
    res = synthesize(k, oracle, use_facts=False)
    assert res.status == UNFIXABLE and res.reason is not None
    assert "self-race ⟨2, 2⟩" in res.reason and "refuted" in res.reason
    assert res.iterations == 1 and res.oracle_calls == 2  # only P¹ was ever possible


def test_no_placeable_position_is_explained() -> None:
    """Both statements unplaceable (e.g. code inlined from a __device__ function): [1, 2) has
    no variable, line 7 becomes ¬P⁰, and UNSAT names the race."""
    k = paper_kernel("inl", [leaf(1, read=True, placeable=False), leaf(2, write=True, placeable=False)])
    t = LabelTree(k)
    l1, l2 = by_name(t, "1"), by_name(t, "2")
    res = synthesize(k, ScriptedOracle([Rule(l1, l2, lambda a: False)]))
    assert res.status == UNFIXABLE and res.reason is not None
    assert "⟨1, 2⟩" in res.reason and "no position" in res.reason


def test_divergent_barrier_in_input_is_unfixable() -> None:
    bar = barrier(line=3)
    k = paper_kernel("inputdiv", [leaf(1, read=True), if_(EVEN, [bar], line=2, end=4),
                                  leaf(5, write=True)])
    t = LabelTree(k)
    l1, l5 = by_name(t, "1"), by_name(t, "5")

    @dataclass
    class DivOracle(ScriptedOracle):
        def check(self, kernel: Kernel) -> Verdict:
            v = super().check(kernel)
            v.divergences.append(Divergence(bar.label))
            return v

    res = synthesize(k, DivOracle([Rule(l1, l5, any_of(l1))]))
    assert res.status == UNFIXABLE and res.reason is not None and "3" in res.reason
    assert "diverge" in res.reason


def test_verified_input_and_oracle_unknown() -> None:
    k, _ = fig2()
    res = synthesize(k, ScriptedOracle([]))
    assert res.status == VERIFIED and res.oracle_calls == 1 and res.kernel is k and res.cost == 0
    res = synthesize(k, ScriptedOracle([], unknown=True))
    assert res.status == UNKNOWN and res.reason is not None and "scripted unknown" in res.reason


def test_race_first_reported_in_a_later_iteration_gets_its_constraints() -> None:
    """An oracle that reports only the first race: ⟨4, 6⟩ shows up once ⟨1, 3⟩ is fixed and
    must get lines 6–12 then (not a P-blocking clause)."""
    k = paper_kernel("later", [leaf(i, read=i in (1, 4), write=i in (3, 6)) for i in range(1, 7)])
    t = LabelTree(k)
    lab = {i: by_name(t, str(i)) for i in range(1, 7)}
    first = any_of(lab[1], lab[2])
    oracle = ScriptedOracle([Rule(lab[1], lab[3], first),
                             Rule(lab[4], lab[6], any_of(lab[4], lab[5]), when=first)])
    records: list[IterationRecord] = []
    res = synthesize(k, oracle, on_iteration=records.append)
    assert res.status == FIXED and named(t, res.labels) == {"2", "5"} and res.cost == 2
    assert res.iterations == 2 and res.oracle_calls == 3
    assert not any("line 29" in a for a in records[0].added)
    assert any("line 12" in a for a in records[0].added)


def test_max_iterations_gives_unknown() -> None:
    k, oracle, _ = fig4()
    res = synthesize(k, oracle, use_facts=False, max_iterations=1)
    assert res.status == UNKNOWN and "iteration limit" in (res.reason or "")


def test_custom_costs() -> None:
    """LC/IC flags: with IC = 1 an ``if`` costs as much as straight-line code."""
    k = fig6()
    t = LabelTree(k)
    l3, l6, b24 = by_name(t, "3"), by_name(t, "6"), by_name(t, "2:4")
    oracle = ScriptedOracle([Rule(l3, l6, any_of(l3, b24, t.start(by_name(t, "5:7"))))])
    res = synthesize(k, oracle, ic=1)
    assert res.status == FIXED and res.cost == 1
    res = synthesize(k, oracle, ic="1/4")
    assert res.status == FIXED and res.cost == Fraction(1, 4)


# --------------------------------------------------------------------------- naive baseline


def test_naive_on_fig2_and_fig6() -> None:
    k, oracle = fig2()
    res = naive_synthesize(k, oracle)
    t = LabelTree(k)
    assert res.status == FIXED and res.method == "naive" and named(t, res.labels) == {"2"}
    # initial + all barriers + one call per barrier (main_s, 1, 2, 3)
    assert res.oracle_calls == 1 + 1 + 4
    k = fig6()
    t = LabelTree(k)
    l3, l6, b24, b57 = (by_name(t, s) for s in ("3", "6", "2:4", "5:7"))
    inside = {t.start(b24), l3, t.start(b57), l6}
    oracle6 = ScriptedOracle([Rule(l3, l6, any_of(l3, b24, t.start(b57)))], divergent=inside)
    res = naive_synthesize(k, oracle6)
    assert res.status == FIXED and named(t, res.labels) == {"2:4"}
    assert res.oracle_calls == 1 + 2 + 4  # initial, all, all-minus-divergent, 4 removals
    assert synthesize(k, oracle6).oracle_calls < res.oracle_calls


def test_naive_on_fig4_keeps_two() -> None:
    k, oracle, t = fig4()
    res = naive_synthesize(k, oracle)
    assert res.status == FIXED and len(res.labels) == 2 and res.cost == 200
    auto = synthesize(k, fig4()[1], use_facts=False)
    assert auto.oracle_calls <= res.oracle_calls


# --------------------------------------------------------------------------- end to end

E2E_ORACLES = ["sdv", "dynamic"]
MICRO = sorted(p.name for p in (ROOT / "microbench").glob("*.cu"))


@pytest.mark.parametrize("oracle_name", E2E_ORACLES)
@pytest.mark.parametrize("name", MICRO)
def test_microbench_end_to_end(name: str, oracle_name: str) -> None:
    """AS-B = the file's min_barriers with both back ends and both fact modes; the result
    verifies; the naive baseline verifies too, with at least as many oracle calls (Table I).
    ``dynamic`` (concrete execution) is a realistic but unsound oracle; ``sdv`` proves."""
    from kpl.frontend import load_kernel
    from oracle.registry import get_oracle

    kernel = load_kernel(str(ROOT / "microbench" / name))
    kernel, _ = strip_barriers(kernel)
    oracle = get_oracle(oracle_name)
    want = int(kernel.expected["min_barriers"])
    results = {}
    for solver in SOLVERS:
        for facts in (True, False):
            res = synthesize(kernel, oracle, solver=solver, use_facts=facts)
            assert res.status == FIXED, res.reason
            assert len(res.labels) == want
            assert res.kernel is not None and oracle.check(res.kernel).verified
            results[(solver, facts)] = res
    assert len({r.cost for r in results.values()}) == 1  # both back ends: same optimum
    assert len({tuple(r.labels) for r in results.values()}) == 1  # and, tie-broken, same placement
    naive = naive_synthesize(kernel, oracle)
    assert naive.status == FIXED and naive.kernel is not None
    assert oracle.check(naive.kernel).verified
    assert naive.oracle_calls > results[("rc2", False)].oracle_calls
    assert results[("rc2", True)].oracle_calls <= results[("rc2", False)].oracle_calls


@pytest.mark.parametrize("name", MICRO)
def test_microbench_placement_matches_developer(name: str) -> None:
    """With the developer-style tie-break the synthesized kernel has its barriers exactly
    where microbench/expected/X.cu has them (compared as statement sequences by source text)."""
    from kpl.frontend import load_kernel
    from oracle.registry import get_oracle

    kernel, _ = strip_barriers(load_kernel(str(ROOT / "microbench" / name)))
    expected = load_kernel(str(ROOT / "microbench" / "expected" / name))
    res = synthesize(kernel, get_oracle(E2E_ORACLES[0]))
    assert res.kernel is not None

    def seq(k: Kernel) -> list[str]:
        out = []
        for s in walk_stmts(k.body):
            if isinstance(s, Barrier):
                out.append("__syncthreads()")
            elif s.span is not None and s.span.start >= 0 and not s.synthetic:
                out.append(k.source_text[s.span.start:s.span.end].split("\n")[0])
        return out

    assert seq(res.kernel) == seq(expected)
