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

Then :func:`widen_instead`: a barrier the user wrote with fewer fences (``barrier(
CLK_LOCAL_MEM_FENCE)`` where a race on global memory crosses it) may do an inserted barrier's
work once its flags are widened (``CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE``, edited in
place by the renderer).  By the cost model that is the fence's extra price at the user's
barrier, C(ℓ_u) × (FENCE_COST[wider] − FENCE_COST[narrower]), against the inserted barrier's
C(ℓ) × FENCE_COST[its fences]; where it is cheaper, it is tried (one oracle call) and kept
when the kernel still verifies.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from fractions import Fraction

from autosync.algorithm.cost import FENCE_COST, CostModel
from autosync.algorithm.synthesis import SynthesisResult
from kpl import ast as K
from kpl.ast import ALL_FENCES, Space
from kpl.labels import LabelTree
from kpl.placement import Placement
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


def widen_instead(kernel: K.Kernel, inserted: dict[int, int], oracle: Oracle, costs: CostModel,
                  widenable: Callable[[K.Barrier], bool]) -> tuple[dict[int, frozenset[Space]], set[int], int]:
    """For the verified candidate ``kernel`` (after :func:`narrow_fences`; ``inserted``: barrier
    label -> anchor label), replace inserted barriers by wider fences on the user's own
    barriers where the cost model prices that lower and the kernel still verifies (module
    docstring).  ``widenable``: whether the renderer can edit a user's barrier in place (not
    one from a macro).  Returns the user barriers' new fences (by label), the labels of the
    inserted barriers taken out of ``kernel``, and the oracle calls spent.  Mutates ``kernel``."""
    widened: dict[int, frozenset[Space]] = {}
    removed: set[int] = set()
    calls = 0
    stmts = list(K.walk_stmts(kernel.body))
    # a barrier ordering no memory (``barrier(0)``, an image fence) has no price in FENCE_COST:
    # it is left as written
    user = [s for s in stmts if isinstance(s, K.Barrier) and s.label not in inserted and not s.kind.warp
            and s.fences in FENCE_COST and s.fences != ALL_FENCES and widenable(s)]
    for new in [s for s in stmts if isinstance(s, K.Barrier) and s.label in inserted and not s.kind.warp]:
        price = costs.cost(inserted[new.label]) * FENCE_COST[new.fences]
        options = sorted((costs.cost(u.label) * (FENCE_COST[u.fences | new.fences] - FENCE_COST[u.fences]), i)
                         for i, u in enumerate(user) if not new.fences <= u.fences or u.label in widened)
        for extra, i in options:
            if extra >= price:
                break
            u, old = user[i], user[i].fences
            block, at = _position(kernel, new)
            del block.stmts[at]
            u.fences = old | new.fences
            calls += 1
            if oracle.check(kernel).verified:
                widened[u.label] = u.fences
                removed.add(new.label)
                break
            block.stmts.insert(at, new)
            u.fences = old
    return widened, removed, calls


def _position(kernel: K.Kernel, stmt: K.Stmt) -> tuple[K.Block, int]:
    """The block holding ``stmt`` and its index there."""
    todo = [kernel.body]
    while todo:
        block = todo.pop()
        for i, s in enumerate(block.stmts):
            if s is stmt:
                return block, i
            todo.extend(K.child_blocks(s))
    raise ValueError(f"statement #{stmt.label} is not in kernel '{kernel.name}'")


def widen_user_barriers(res: SynthesisResult, oracle: Oracle, lc: int | Fraction, ic: int | Fraction,
                        widenable: Callable[[K.Barrier], bool]) -> None:
    """:func:`widen_instead` on a fixed result of ``fix`` (after :func:`narrow_fences`): the
    inserted barriers it takes out leave the placement, their fences and the barrier map;
    ``res.widened`` says which of the user's barriers order what now."""
    if res.kernel is None or not res.barrier_map:
        return
    costs = CostModel(LabelTree(res.kernel), lc, ic)
    widened, removed, calls = widen_instead(res.kernel, res.barrier_map, oracle, costs, widenable)
    res.oracle_calls += calls
    if not removed:
        return
    res.widened = widened
    gone = Counter(res.barrier_map[b] for b in removed)
    res.barrier_map = {b: a for b, a in res.barrier_map.items() if b not in removed}
    kept = []
    for anchor in res.placement.anchors:
        if gone[anchor.label]:
            gone[anchor.label] -= 1
        else:
            kept.append(anchor)
    res.placement = Placement(tuple(kept))
    left = set(res.barrier_map.values())
    res.fences = {a: f for a, f in res.fences.items() if a in left}


#: the OpenCL flag that names each space a barrier may order
FLAG_NAMES = {Space.SHARED: "CLK_LOCAL_MEM_FENCE", Space.GLOBAL: "CLK_GLOBAL_MEM_FENCE"}


def fence_name(fences: frozenset[Space]) -> str:
    """The ``fences`` context of the OpenCL barrier template (``render/templates/opencl.j2``)."""
    if fences == frozenset({Space.SHARED}):
        return "local"
    if fences == frozenset({Space.GLOBAL}):
        return "global"
    return "both"
