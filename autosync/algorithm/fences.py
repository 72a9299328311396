"""The cheapest fence for each barrier ``fix`` inserts into an OpenCL C kernel (issue 29).

OpenCL's ``barrier(flags)`` orders only the memory its flags name
(:attr:`kpl.ast.Barrier.fences`), and a local fence is cheaper than a global one
(:data:`autosync.algorithm.cost.FENCE_COST`).  Algorithm 1 ([AutoSync] Sec. III) places
barriers as for CUDA, each ordering both spaces; this pass then narrows them one by one, in
text order: a barrier gets the cheapest fence under which the kernel still verifies with the
same oracle, else keeps both.  Why after synthesis and not inside it: where barriers go does
not depend on what they order (a barrier ordering both spaces cuts every race any fence
could), so the placement stays Algorithm 1's optimum and only each barrier's price drops.
Greedy in text order is sound (every accepted choice is verified with all earlier choices
in place, and ``fix`` verifies the patched text again end to end) though not always the
cheapest combination.

Without any write to global memory (plain or atomic) in the kernel, no race on global memory
can exist: every inserted barrier gets the local fence with no oracle call.
"""

from __future__ import annotations

from autosync.algorithm.cost import FENCE_COST
from kpl import ast as K
from kpl.ast import ALL_FENCES, Space
from oracle.base import Oracle
from oracle.sdv.state import stmt_exprs


def _writes_global(kernel: K.Kernel) -> bool:
    for s in K.walk_stmts(kernel.body):
        if isinstance(s, K.Assign) and isinstance(s.target, K.MemElem) \
                and s.target.mem.space == Space.GLOBAL:
            return True
        for e in stmt_exprs(s):
            if any(isinstance(x, K.Atomic) and x.mem.space == Space.GLOBAL for x in K.walk_expr(e)):
                return True
    return False


def narrow_fences(kernel: K.Kernel, inserted: dict[int, int], oracle: Oracle) -> tuple[dict[int, frozenset[Space]], int]:
    """For the candidate ``kernel`` (verified, with the barriers ``inserted``: barrier label ->
    anchor label), the fences each anchor's barrier needs, and the oracle calls spent.
    Mutates the fences of those barriers in ``kernel`` to the choice."""
    cheaper = sorted((f for f, c in FENCE_COST.items() if c < FENCE_COST[ALL_FENCES]),
                     key=lambda f: (FENCE_COST[f], -len(f)))
    barriers = [s for s in K.walk_stmts(kernel.body)
                if isinstance(s, K.Barrier) and s.label in inserted and not s.kind.warp]
    calls = 0
    free = not _writes_global(kernel)
    for b in barriers:
        for fences in cheaper:
            b.fences = fences
            if free and fences == frozenset({Space.SHARED}):
                break
            calls += 1
            if oracle.check(kernel).verified:
                break
            b.fences = ALL_FENCES
    out: dict[int, frozenset[Space]] = {}
    for b in barriers:
        anchor = inserted[b.label]
        out[anchor] = out.get(anchor, frozenset()) | b.fences
    return out, calls


def fence_name(fences: frozenset[Space]) -> str:
    """The ``fences`` context of the OpenCL barrier template (``render/templates/opencl.j2``)."""
    if fences == frozenset({Space.SHARED}):
        return "local"
    if fences == frozenset({Space.GLOBAL}):
        return "global"
    return "both"
