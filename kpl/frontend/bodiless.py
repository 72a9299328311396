"""A call to a user's function that has no body, in a file written for GPUVerify.

GPUVerify reads a function declared without a body as one it may not see: the call returns an
arbitrary value and has no effect on memory (its test suites write ``int nondet();``,
``void bar(int x);`` and rely on exactly that).  In a GPUVerify-style file (its flags line
``//--blockDim=…`` or ``//--local_size=…``, :attr:`kpl.frontend.state.Unit.gpuverify_style`)
we read the call the same way, and say so once per function as a note:

* the value is a fresh arbitrary one per call and per thread (a :class:`kpl.ast.Call` whose
  name starts with :data:`kpl.ast.ARBITRARY`; the oracles never take two such values to be
  equal, so a branch on one is not uniform);
* the arguments are still evaluated, so what they read is read (those reads are accesses
  that may race); a pointer argument is not written through, nor read through;
* a function returning ``void`` has no effect at all beyond its arguments' evaluation.

Elsewhere (no flags line) the call stays the error of :mod:`kpl.frontend.calls`: in a
program as shipped, a function with no body is one AutoSync cannot see, and guessing what it
does could hide a race or a barrier.

The same files see without an include what GPUVerify's prelude declares (curand, cooperative
groups, element-wise vector operators: :data:`kpl.frontend.clang.GPUVERIFY_PARTS`); the first
call of each such part is said once as a note (:meth:`BodilessTranslation.prelude_note`).
"""

from __future__ import annotations

from kpl import ast as K
from kpl.frontend import tree
from kpl.frontend.access import decl_id, peel
from kpl.frontend.library import LibraryTranslation
from kpl.frontend.state import PointerBinding, Scope
from kpl.frontend.tree import Node

#: what each part of GPUVerify's prelude gives (for its note)
_PRELUDE_NOTES = {
    "curand_kernel.h": "curand's generator states and functions are declared without an include",
    "cooperative_groups.h": "cooperative groups (namespace cooperative_groups) are declared "
                            "without an include",
    "__autosync_gpuverify_vectors.h": "arithmetic on vector types (float3 + float3, float4 * s, "
                                      "...) is element by element",
}


class BodilessTranslation(LibraryTranslation):
    """Calls to bodiless user functions under GPUVerify's rule, and calls of its prelude
    (module docstring)."""

    def prelude_note(self, func: Node, node: Node) -> None:
        """Say once per file, at the first call, that ``func`` comes from a part of GPUVerify's
        prelude read without an include."""
        part = self.bundled_header(func)
        if part is None or part not in self.unit.gpuverify_parts or part in self.unit.noted_parts:
            return
        self.unit.noted_parts.add(part)
        file, line, col = self.where(node)
        at = (line, col) if file == self.path else (None, None)
        self.unit.note(f"{_PRELUDE_NOTES[part]}, as in GPUVerify's prelude", *at)

    def arbitrary_call(self, node: Node, func: Node, name: str, scope: Scope,
                       pre: list[K.Stmt]) -> K.Expr:
        """The call's value: arbitrary, per call and per thread, after its arguments."""
        result = self.type_of(node)
        if result.kind == "ptr":
            raise self.error(f"unsupported: call to '{name}', which has no body and returns "
                             f"'{tree.qual_type(node)}' (GPUVerify's rule gives an arbitrary "
                             "value, and a pointer needs the array it points into)", node)
        values: list[K.Expr] = []
        pointers = False
        for arg in self.arguments(node, func):
            if tree.kind(arg) == "CXXDefaultArgExpr":
                continue
            if self._is_pointerish(arg):
                pointers = True
                values.extend(self._pointer_argument(arg, scope, pre))
            else:  # a scalar, vector or struct by value: what it reads is read
                values.append(self.expr(arg, scope, pre))
        self._note_bodiless(func, name, pointers)
        typ = K.INT if result.kind == "void" else result
        return K.Call(K.ARBITRARY + name, tuple(values), typ)

    def _pointer_argument(self, arg: Node, scope: Scope, pre: list[K.Stmt]) -> list[K.Expr]:
        """What a pointer argument's evaluation reads: the offset into its array (``&a[b[i]]``
        reads ``b[i]``), never the memory it points to (the function does not touch it)."""
        inner = peel(arg)
        if tree.kind(inner) == "UnaryOperator" and inner.get("opcode") == "&":
            target = peel(tree.children(inner)[0])
            if tree.kind(target) == "DeclRefExpr" and isinstance(scope.lookup(decl_id(target) or ""), K.Var):
                return []  # the address of a local variable: nothing is read
        binding = self.pointer(arg, scope)
        if isinstance(binding, PointerBinding):
            return [] if isinstance(binding.offset, K.Const) else [binding.offset]
        return [self.expr(arg, scope, pre)]

    def _note_bodiless(self, func: Node, name: str, pointers: bool) -> None:
        file, line, col = self.where(func)
        at = (line, col) if file == self.path else (None, None)
        what = "no effect" if tree.qual_type(func).startswith("void") else \
            "an arbitrary value with no effect"
        tail = "; it does not write through its pointer arguments" if pointers else ""
        self.unit.note(f"call to '{name}', which has no body: {what} on memory, as GPUVerify "
                       f"assumes{tail}", *at)
