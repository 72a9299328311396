"""GPUVerify's annotation language (STUB: to be ported from kpl/fe/annotations.py)."""

from __future__ import annotations

from kpl import ast as K
from kpl.cfe.decls import DeclsTranslation
from kpl.cfe.state import Scope
from kpl.cfe.tree import Node

ANNOTATIONS = {"__ensures", "__invariant", "__global_invariant", "__assert", "__global_assert",
               "__implies", "__write_implies", "__read_implies", "__write_offset_bytes",
               "__read_offset_bytes", "__same_group", "__same_group_impl", "__no_read",
               "__no_write", "__enabled", "__other_int", "__other_bool", "__uniform_int",
               "__uniform_bool", "__distinct_int", "__distinct_bool", "__at_most_one",
               "__read", "__write", "__assert_decl", "__function_wide_invariant",
               "__candidate_invariant", "__candidate_global_invariant", "__non_temporal",
               "__global_requires", "__return_val_int", "__return_val_bool",
               "__return_val_float", "__return_val_ptr", "__requires", "__assume"}


class AnnotationsTranslation(DeclsTranslation):
    """Annotation calls, in statement position and as values."""

    def annotation_value(self, node: Node, name: str, args: list[Node], scope: Scope,
                         pre: list[K.Stmt]) -> K.Expr:
        raise self.error(f"unsupported: annotation '{name}' (not yet translated)", node)

    def annotation_stmt(self, node: Node, name: str, args: list[Node],
                        scope: Scope) -> list[K.Stmt] | None:
        raise self.error(f"unsupported: annotation '{name}' (not yet translated)", node)

    def ensures_checks(self) -> list[K.Stmt]:
        return []

    def enter_function(self) -> None:
        self.ensures_stack.append([])

    def leave_function(self, body: K.Block) -> None:
        body.stmts.extend(self.ensures_checks())
        self.ensures_stack.pop()

    def loop_invariant(self, part: Node, scope: Scope) -> tuple[K.Stmt, list[K.Expr]] | None:
        return None

    def check_invariants(self, conds: list[K.Expr], entry: list[K.Stmt],
                         latch: list[K.Stmt]) -> None:
        for where in (entry, latch):
            where.extend(K.Assert(c, kind="invariant", label=self.label()) for c in conds)
