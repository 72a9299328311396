"""CUDA's device libraries beyond the prelude (STUB): cooperative groups, curand, half."""

from __future__ import annotations

from kpl import ast as K
from kpl.cfe.memops import MemOpsTranslation
from kpl.cfe.state import Scope
from kpl.cfe.tree import Node


class LibraryTranslation(MemOpsTranslation):
    """Models of library functions declared without a body in our headers."""

    def library_statement(self, node: Node, func: Node, name: str, args: list[Node],
                          scope: Scope) -> list[K.Stmt] | None:
        """A library call that is a statement of its own kind (a group's ``sync()``), or None."""
        return None

    def library_value(self, node: Node, func: Node, name: str, args: list[Node], scope: Scope,
                      pre: list[K.Stmt]) -> K.Expr | None:
        """The value of a library call with a model of its own (curand draws), or None."""
        return None
