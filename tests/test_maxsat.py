"""The MaxSAT back ends (RC2, νZ) behind one interface, and the exact integer cost scaling."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest

from autosync.algorithm.cost import as_fraction, integer_weights, scale_factor
from autosync.algorithm.maxsat import MaxSatSolver, NuZSolver, RC2Solver, make_solver

BACKENDS = ["rc2", "nuz"]


def brute_force(nvars: int, hard: list[list[int]], soft: list[tuple[int, int]]) -> int | None:
    best: int | None = None
    for bits in itertools.product((False, True), repeat=nvars):
        def val(lit: int, bits: tuple[bool, ...] = bits) -> bool:
            return bits[abs(lit) - 1] == (lit > 0)
        if all(any(val(lit) for lit in cl) for cl in hard):
            cost = sum(w for lit, w in soft if not val(lit))
            best = cost if best is None else min(best, cost)
    return best


@pytest.mark.parametrize("name", BACKENDS)
def test_protocol_and_factory(name: str) -> None:
    s = make_solver(name)
    assert isinstance(s, MaxSatSolver)
    assert isinstance(s, RC2Solver if name == "rc2" else NuZSolver)
    assert s.name == name
    with pytest.raises(ValueError):
        make_solver("minisat")


@pytest.mark.parametrize("name", BACKENDS)
def test_large_weight_ratio_is_not_rounded(name: str) -> None:
    """10000 vs 1: a barrier inside a loop (LC=100, two loops) vs one outside."""
    s = make_solver(name)
    inner, outer = s.new_var("inner"), s.new_var("outer")
    s.add_hard([inner, outer])
    s.add_soft(-inner, 10000)
    s.add_soft(-outer, 1)
    assert s.solve() == {outer} and s.cost() == 1
    s.add_hard([-outer])  # incremental: a later REFINE iteration excludes it
    assert s.solve() == {inner} and s.cost() == 10000
    s.add_hard([-inner])
    assert s.solve() is None


@pytest.mark.parametrize("name", BACKENDS)
def test_fractional_costs_scaled_exactly(name: str) -> None:
    """Costs 0.5 (one if) and 0.25 (two ifs) and 1: scaled by 4, never merged."""
    costs = {1: Fraction(1, 2), 2: Fraction(1, 4), 3: Fraction(1), 4: Fraction(1, 4)}
    weights, k = integer_weights(costs)
    assert k == 4 and weights == {1: 2, 2: 1, 3: 4, 4: 1}
    s = make_solver(name)
    v = {lab: s.new_var(f"L{lab}") for lab in costs}
    for lab, w in weights.items():
        s.add_soft(-v[lab], w)
    s.add_hard([v[1], v[3]])  # 0.5 beats 1
    s.add_hard([v[2], v[3]])  # 0.25 beats 1
    s.add_hard([v[2], v[4]])
    model = s.solve()
    assert model is not None and v[1] in model and v[3] not in model
    assert s.cost() in (3,)  # 0.5 + 0.25 = 3/4 -> 3


def test_scaling_is_injective_and_uses_repr_of_floats() -> None:
    assert as_fraction(0.1) == Fraction(1, 10)
    assert as_fraction(0.5) == Fraction(1, 2)
    costs = {i: Fraction(1, 3) ** i * 100 for i in range(6)}
    weights, k = integer_weights(costs)
    assert k == scale_factor(costs.values()) == 3 ** 5
    assert len(set(weights.values())) == len(costs)
    assert all(Fraction(weights[i], k) == costs[i] for i in costs)
    # two costs that differ by less than any float rounding would notice stay distinct
    close = {1: Fraction(10 ** 12), 2: Fraction(10 ** 12) + Fraction(1, 7)}
    w, _ = integer_weights(close)
    assert w[1] != w[2]


@pytest.mark.parametrize("name", BACKENDS)
def test_empty_clause_and_no_constraints(name: str) -> None:
    s = make_solver(name)
    a = s.new_var("a")
    s.add_soft(-a, 3)
    assert s.solve() == set() and s.cost() == 0
    s.add_hard([])
    assert s.solve() is None
    with pytest.raises(ValueError):
        s.add_hard([5])
    with pytest.raises(ValueError):
        s.add_soft(-a, 0)


def test_backends_agree_with_brute_force_on_random_instances() -> None:
    rng = random.Random(20240)
    for _ in range(40):
        n = rng.randint(2, 7)
        hard = [[rng.choice([1, -1]) * rng.randint(1, n) for _ in range(rng.randint(1, 3))]
                for _ in range(rng.randint(1, 8))]
        soft = [(rng.choice([1, -1]) * v, rng.choice([1, 2, 50, 100, 10000])) for v in range(1, n + 1)]
        expect = brute_force(n, hard, soft)
        for name in BACKENDS:
            s = make_solver(name)
            for i in range(n):
                s.new_var(f"x{i}")
            for cl in hard:
                s.add_hard(cl)
            for lit, w in soft:
                s.add_soft(lit, w)
            model = s.solve()
            if expect is None:
                assert model is None
            else:
                assert model is not None and s.cost() == expect
                # the model satisfies every hard clause
                assert all(any((lit > 0) == (abs(lit) in model) for lit in cl) for cl in hard)


@pytest.mark.parametrize("name", BACKENDS)
def test_incremental_blocking_enumerates_in_cost_order(name: str) -> None:
    """REFINE adds hard clauses between solves; costs must be non-decreasing."""
    s = make_solver(name)
    xs = [s.new_var(f"x{i}") for i in range(4)]
    for i, x in enumerate(xs):
        s.add_soft(-x, i + 1)
    s.add_hard(list(xs))
    costs = []
    while (model := s.solve()) is not None:
        costs.append(s.cost())
        s.add_hard([-x if x in model else x for x in xs])  # block this exact model
    assert costs == sorted(costs) and len(costs) == 15 and costs[0] == 1
