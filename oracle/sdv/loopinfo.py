"""The static facts of one loop that the loop abstraction and invariant inference share.

Layer: loops and invariants of :mod:`oracle.sdv`, its lowest module.  :class:`LoopInfo` is
what :mod:`oracle.sdv.invariants` guesses candidates from and what :mod:`oracle.sdv.loops`
havocs and steps; it is read off the KPL alone (no solver, no machine state), so both can
import it and neither has to import the other for it.  The facts that slicing needs as well
(assigned variables, barriers) come from :class:`oracle.sdv.slice.LoopFacts`.
"""

from __future__ import annotations

from dataclasses import dataclass

from kpl import ast as K
from kpl.ast import CType
from kpl.placement import BarrierKind
from oracle.sdv.scaling import ghost_name, scaling_counters
from oracle.sdv.slice import LoopFacts
from oracle.sdv.state import expr_pure, expr_vars, strip_casts


@dataclass
class LoopInfo:
    """Static facts about one loop, computed once."""

    modified: dict[str, CType]            # variables (``@name``: local arrays) it assigns
    has_barrier: bool                     # it contains a barrier
    has_break: bool                       # a ``break`` leaves it
    has_return: bool                      # a ``return`` leaves the kernel from it
    steps: dict[str, tuple[str, K.Expr]]  # counters: only ever ``v = v ± e``, e invariant
    invariants: list[K.Expr]              # user ``__invariant``s at the top of its body
    scales: dict[str, str]                # power-of-two counters: ``grow``/``shrink`` by 2
    ghost: str | None                     # its iteration counter, for two or more of them
    has_grid_barrier: bool = False        # it contains a grid barrier (BarrierKind.GRID)

    def lockstep(self, same: bool) -> bool:
        """Is the loop abstracted with the two threads in the same iteration (A), another
        iteration B apart, relational invariants and barrier epochs?  Always in ``same``
        mode; in ``cross`` mode (two blocks) when the loop holds a grid barrier, whose epoch
        orders the blocks' iterations as a block barrier orders one block's (a grid barrier
        that one block runs and another does not is divergence, checked, so every block
        runs as many).  A relational invariant is about the two threads after the same
        number of iterations, whatever the schedule: Houdini proves it in the mode at hand."""
        return same or self.has_grid_barrier

    @staticmethod
    def of(loop: K.Loop) -> LoopInfo:
        facts = LoopFacts.of(loop)
        scales = scaling_counters(facts.assigns, facts.modified)
        invariants = [a for s in loop.body.stmts if isinstance(s, K.Annotation)
                      and s.name.strip("_") in ("invariant", "candidate_invariant")
                      for a in s.args[:1]]
        return LoopInfo(facts.modified, facts.has_barrier, _has_jump(loop.body, K.Break),
                        _has_jump(loop.body, K.Return), _steps(facts.modified, facts.assigns),
                        invariants, scales,
                        ghost_name(loop.label) if len(scales) >= 2 else None,
                        any(isinstance(s, K.Barrier) and s.kind is BarrierKind.GRID
                            for s in [*K.walk_stmts(loop.body), *loop.latch]))


class _Jumps(K.NodeVisitor):
    """Finds a ``kind`` statement that leaves the enclosing loop (``Break``: not inside a
    nested loop or switch) or the kernel (``Return``: not inside an Inline)."""

    def __init__(self, kind: type) -> None:
        self.kind = kind
        self.found = False

    def visit_Break(self, s: K.Break) -> None:
        self.found = self.found or self.kind is K.Break

    def visit_Return(self, s: K.Return) -> None:
        self.found = self.found or self.kind is K.Return

    def visit_Loop(self, s: K.Loop) -> None:
        if self.kind is not K.Break:
            self.visit(s.body)

    def visit_Switch(self, s: K.Switch) -> None:
        if self.kind is not K.Break:
            self.visit(s.body)

    def visit_Inline(self, s: K.Inline) -> None:
        if self.kind is not K.Return:
            self.visit(s.body)


def _has_jump(block: K.Block, kind: type) -> bool:
    finder = _Jumps(kind)
    finder.visit(block)
    return finder.found


def _steps(modified: dict[str, CType],
           assigns: dict[str, list[K.Expr | None]]) -> dict[str, tuple[str, K.Expr]]:
    """The counters among the assigned variables: every assignment is ``v = v ± e`` with one
    loop-invariant, pure ``e``."""
    steps: dict[str, tuple[str, K.Expr]] = {}
    for name, vals in assigns.items():
        forms = set()
        step: tuple[str, K.Expr] | None = None
        good = True
        for v in vals:
            if v is None:
                good = False
                break
            b = strip_casts(v)
            if (isinstance(b, K.Binary) and b.op in ("+", "-")
                    and isinstance(strip_casts(b.left), K.Var)
                    and strip_casts(b.left).name == name  # type: ignore[union-attr]
                    and not (expr_vars(b.right) & set(modified)) and expr_pure(b.right)):
                forms.add((b.op, b.right))
                step = (b.op, b.right)
            else:
                good = False
                break
        if good and len(forms) == 1 and step is not None:
            steps[name] = step
    return steps
