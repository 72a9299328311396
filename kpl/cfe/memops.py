"""``memcpy`` / ``memset`` in device code (STUB: to be ported from kpl/fe/memops.py)."""

from __future__ import annotations

from kpl import ast as K
from kpl.cfe.annotations import AnnotationsTranslation
from kpl.cfe.state import Scope
from kpl.cfe.tree import Node

MEMORY_FUNCTIONS = {"memcpy": "copy", "__builtin_memcpy": "copy", "memmove": "copy",
                    "__builtin_memmove": "copy", "memset": "set", "__builtin_memset": "set"}


class MemOpsTranslation(AnnotationsTranslation):
    """``memcpy``/``memset`` as ranges of accesses."""

    def memory_function(self, node: Node, name: str, args: list[Node], scope: Scope,
                        pre: list[K.Stmt]) -> K.Expr:
        raise self.error(f"unsupported: '{name}' (not yet translated)", node)
