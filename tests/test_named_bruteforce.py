"""Brute force against the least-cost named-barrier pair (issue 16, item 2;
:mod:`autosync.algorithm.named_search`).

For small warp-specialised kernels, EVERY pair of positions (arrive in the producer arm, sync
in the consumer arm, inside loops and nested blocks too) whose groups are whole, disjoint warps
is inserted and checked by the named-barrier oracle, the pruned ones included.  The least cost
among the accepted pairs (verified, no lost stage) must be exactly the cost of the pair that
synthesis returns, and every pair the search skips by its execution-count rule must be one the
oracle rejects: the two halves of the optimality proof in the module docstring, checked.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from autosync.algorithm.cost import CostModel
from autosync.algorithm.named_search import (
    arm_positions,
    candidates,
    executions_match,
    lost_stage,
    positions,
    probe,
    with_named,
)
from autosync.algorithm.named_synthesis import NoNamedFix, arms_of
from autosync.pipeline.named_fix import synthesize_named
from kpl.frontend import load_kernels
from kpl.labels import LabelTree
from oracle.registry import get_oracle

ROOT = Path(__file__).resolve().parents[1]
KERNELS = {
    "ws_stage_racy": ROOT / "tests" / "kernels" / "named" / "ws_stage_racy.cu",
    "tile_loop_racy": ROOT / "tests" / "kernels" / "named" / "tile_loop_racy.cu",
    "ring_racy": ROOT / "tests" / "kernels" / "named" / "ring_racy.cu",
    "ws_gather": ROOT / "microbench" / "named" / "ws_gather.cu",
    "stage_fill": ROOT / "microbench" / "named" / "stage_fill.cu",
    "handoff": ROOT / "microbench" / "named" / "handoff.cu",
}
#: the hand-derived optimum (kernel comments): None = no single pair
BEST: dict[str, Fraction | None] = {
    "ws_stage_racy": Fraction(1), "tile_loop_racy": Fraction(100), "ring_racy": None,
    "ws_gather": Fraction(1), "stage_fill": Fraction(1), "handoff": Fraction(100),
}


def _brute_force(name: str) -> tuple[Fraction | None, int, int]:
    """(least accepted cost, pairs checked, pruned pairs that the oracle verified)."""
    kernel = load_kernels(str(KERNELS[name]))[0]
    oracle = get_oracle("named")
    tree = LabelTree(kernel)
    arms = arms_of(kernel, tree, oracle.check(kernel))
    executed = probe(kernel, arm_positions(tree, arms.producer) + arm_positions(tree, arms.consumer))
    costs = CostModel(tree)
    pivot_w, pivot_r = max(arms.producers, key=tree.order), min(arms.consumers, key=tree.order)
    pairs = candidates(positions(tree, costs, arms.producer, executed, pivot_w, before=False),
                       positions(tree, costs, arms.consumer, executed, pivot_r, before=True))
    best: Fraction | None = None
    pruned_but_verified = 0
    for pair in pairs:
        candidate, _ = with_named(kernel, [(pair.arrive.label, "arrive", 15, pair.count),
                                           (pair.sync.label, "sync", 15, pair.count)])
        verdict = oracle.check(candidate)
        assert not verdict.unknowns, verdict.unknowns
        if not executions_match(pair):
            pruned_but_verified += verdict.verified
            continue
        if verdict.verified and lost_stage(kernel, tree, pair, set(arms.producers), set(arms.consumers)) is None:
            best = pair.cost if best is None else min(best, pair.cost)
    return best, len(pairs), pruned_but_verified


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_synthesized_cost_is_the_brute_force_minimum(name: str) -> None:
    best, checked, pruned_but_verified = _brute_force(name)
    assert checked > 1
    assert pruned_but_verified == 0  # the pruning rule skips only pairs the oracle rejects
    assert best == BEST[name]
    kernel = load_kernels(str(KERNELS[name]))[0]
    oracle = get_oracle("named")
    if best is None:
        with pytest.raises(NoNamedFix):
            synthesize_named(kernel, oracle.check(kernel), oracle)
        return
    found = synthesize_named(kernel, oracle.check(kernel), oracle)
    assert found.cost == best
    assert found.search.oracle_calls <= checked  # never more calls than the brute force


def test_without_the_lost_stage_rule_the_ring_would_be_serialized() -> None:
    """The ring buffer has an oracle-verified pair (outside both loops): race-free only
    because every chunk but the last two is overwritten before the arrive; the lost-stage
    rule is what refuses it, naming the overwritten slot."""
    kernel = load_kernels(str(KERNELS["ring_racy"]))[0]
    oracle = get_oracle("named")
    tree = LabelTree(kernel)
    arms = arms_of(kernel, tree, oracle.check(kernel))
    executed = probe(kernel, arm_positions(tree, arms.producer) + arm_positions(tree, arms.consumer))
    costs = CostModel(tree)
    pairs = candidates(positions(tree, costs, arms.producer, executed, max(arms.producers, key=tree.order), False),
                       positions(tree, costs, arms.consumer, executed, min(arms.consumers, key=tree.order), True))
    verified = [p for p in pairs if executions_match(p) and oracle.check(with_named(kernel, [
        (p.arrive.label, "arrive", 1, p.count), (p.sync.label, "sync", 1, p.count)])[0]).verified]
    assert verified and all(not tree.loops(p.arrive.label) and not tree.loops(p.sync.label) for p in verified)
    for p in verified:
        why = lost_stage(kernel, tree, p, set(arms.producers), set(arms.consumers))
        assert why is not None and "ring[" in why and "double buffering" in why
