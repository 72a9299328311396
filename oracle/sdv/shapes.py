"""Keys of a kernel's shape for the verifier's caches: what the cross-block part of a check
reads from a kernel, with plain barriers left out, so that the candidates of one synthesis run
(the same kernel with barriers added or moved, Alg. 1) share one cross-block answer.

Stage: the verifier layer (:mod:`oracle.sdv.verifier` keys its cache with these).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from kpl import ast as K
from kpl.ast import BarrierKind, Kernel


def shape_of(x: Any) -> Any:
    """A hashable description of a statement/block tree with plain barriers left out."""
    if isinstance(x, (K.Stmt, K.Block)):
        parts: list[Any] = [type(x).__name__]
        for f in dataclasses.fields(x):
            parts.append(shape_of(getattr(x, f.name)))
        return tuple(parts)
    if isinstance(x, list):
        return tuple(shape_of(y) for y in x
                     if not isinstance(y, K.Barrier) or y.kind is BarrierKind.GRID)
    return repr(x)


def has_grid_barrier(kernel: Kernel) -> bool:
    """Does ``kernel`` run a grid-wide barrier (cooperative groups' ``grid_group::sync``)?"""
    return any(isinstance(s, K.Barrier) and s.kind is BarrierKind.GRID
               for s in K.walk_stmts(kernel.body))


def barrier_free_key(kernel: Kernel, max_unroll: int, unroll_budget: int) -> tuple[Any, ...]:
    """Cache key of the cross-block part: everything the executor reads from the kernel,
    except plain barriers (and ``next_label``, which inserting barriers bumps)."""
    return (kernel.name, repr(kernel.params), repr(kernel.launch), repr(kernel.requires),
            repr(sorted(kernel.memories.items())), kernel.uses_named_barriers,
            shape_of(kernel.body), max_unroll, unroll_budget)
