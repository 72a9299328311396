"""The naive enumerative baseline of Sec. IV-B (``--naive``; the N-* columns of Table I).

    "The naive version first inserts a barrier after each statement in the input kernel,
    then removes all barriers that lead to divergence, and finally, iterates over the
    remaining barriers, removing each barrier unless that causes a data race."

"After each statement" is after every placeable label (statements, compound statements and
block starts ℓ_s), i.e. the same candidate positions Algorithm 1 chooses from, so the two
methods are compared on the same search space.  Divergent barriers are dropped in rounds until
the oracle reports none (an oracle may report only some of them per call).  Then each barrier,
in text order, is tentatively removed: one oracle call each; the removal is kept when the
candidate verifies.  The result is verified (every accepted state was), not necessarily
optimal: it depends on the removal order and ignores the cost model.  Races between blocks
(``Race.cross_block``) are left as they are, as in Algorithm 1: no barrier orders them, so
"verifies" means "nothing is left inside blocks" and the result lists them.

Every ``oracle.check`` call counts, including the initial one on the input (as for
:func:`autosync.algorithm.synthesis.synthesize`).
"""

from __future__ import annotations

import time
from fractions import Fraction

from autosync.algorithm.cost import CostModel
from autosync.algorithm.synthesis import (
    FIXED,
    UNFIXABLE,
    UNKNOWN,
    VERIFIED,
    SynthesisResult,
    _unknown_reason,
    inter_block_reason,
)
from kpl.ast import Kernel
from kpl.labels import LabelTree
from kpl.placement import Placement
from kpl.transform import insert_barriers
from oracle.base import Oracle


def naive_synthesize(kernel: Kernel, oracle: Oracle, *, lc: int | float | str | Fraction = 100,
                     ic: int | float | str | Fraction = 0.5) -> SynthesisResult:
    """The Sec. IV-B baseline; same result shape as :func:`synthesize` (``method='naive'``)."""
    t0 = time.perf_counter()
    tree = LabelTree(kernel)
    costs = CostModel(tree, lc, ic)
    calls = 0
    checks = 0

    verdict0 = oracle.check(kernel)
    calls += 1
    races0 = list(verdict0.races)

    def result(status: str, **kw: object) -> SynthesisResult:
        base: dict[str, object] = dict(
            status=status, kernel=None, races_initial=races0, iterations=checks, oracle_calls=calls,
            seconds=time.perf_counter() - t0, solver="none", method="naive", tree=tree,
            divergences_initial=[d.label for d in verdict0.divergences], verdict=verdict0)
        base.update(kw)
        return SynthesisResult(**base)  # type: ignore[arg-type]

    if verdict0.verified:
        return result(VERIFIED, kernel=kernel)
    if verdict0.unknowns:
        return result(UNKNOWN, reason=_unknown_reason(tree, verdict0))
    if verdict0.divergences or verdict0.findings:
        return result(UNFIXABLE, reason="the input has errors that barriers cannot fix "
                      "(divergent barriers or oracle findings)")
    if not verdict0.intra_block:  # races between blocks only: no barrier orders them
        return result(UNFIXABLE, reason=inter_block_reason(tree, verdict0.inter_block))

    current = costs.placement(lab for lab in tree.labels() if tree.placeable(lab))
    # step 1+2: a barrier after every statement, minus the divergent ones (repeat until none)
    while True:
        cand, mapping = insert_barriers(kernel, current)
        verdict = oracle.check(cand)
        calls += 1
        checks += 1
        if not verdict.divergences:
            break
        divergent = {mapping[d.label] for d in verdict.divergences if d.label in mapping}
        if not divergent:
            return result(UNFIXABLE, reason="a barrier of the input diverges")
        current = Placement(tuple(a for a in current if a.label not in divergent))
    if verdict.unknowns:
        return result(UNKNOWN, reason=_unknown_reason(None, verdict))
    if not verdict.verified_within_blocks:  # races between blocks stay whatever the barriers
        keys = ", ".join(f"⟨{tree.name(r.first)}, {tree.name(r.second)}⟩" for r in verdict.intra_block)
        return result(UNFIXABLE, reason="races remain with a barrier at every non-divergent "
                      f"position: {keys or 'oracle findings'}")
    best = (cand, mapping, verdict)
    # step 3: drop each barrier unless that makes a race (one oracle call each)
    for anchor in current.anchors:
        trial = Placement(tuple(a for a in current if a != anchor))
        cand, mapping = insert_barriers(kernel, trial)
        verdict = oracle.check(cand)
        calls += 1
        checks += 1
        if verdict.verified_within_blocks:
            current = trial
            best = (cand, mapping, verdict)
    cand, mapping, verdict = best
    return result(FIXED, kernel=cand, placement=current, barrier_map=dict(mapping), verdict=verdict)
