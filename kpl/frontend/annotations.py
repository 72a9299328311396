"""GPUVerify's annotation language: what each annotation call translates to.

Why a module of its own: annotations are specifications, not code -- nvcc compiles them to
nothing (``annotations.h``) -- so their translation follows other rules than calls do.  The
functions are declared by the user's ``annotations.h``, not by our headers; :mod:`kpl.frontend.calls`
routes every name in :data:`ANNOTATIONS` here wherever it is declared.  What each name means:

* ``__assert(e)`` / ``__global_assert(e)`` -> :class:`kpl.ast.Assert` (kind ``assert``);
* ``__requires(e)`` in the kernel -> an assumption on its inputs (``Assume``, and the kernel's
  ``requires`` when it is an ordinary expression); inside an inlined ``__device__``
  function -> an :class:`~kpl.ast.Assert` of kind ``requires`` at the call: the caller must
  establish it (GPUVerify's modular reading, made concrete by inlining);
* ``__ensures(e)`` -> an ``Assert`` of kind ``ensures`` before every ``return`` of the
  function and at its end (``__return_val_int()`` & co. name the returned value);
* ``__invariant(e)`` / ``__global_invariant(e)`` in a loop header -> an ``Assert`` of kind
  ``invariant`` at loop entry and at the end of every iteration (the latch), plus a
  *candidate* for the loop abstraction (``Annotation`` with ``args``), which the verifier
  uses only after proving it (Houdini), never unchecked; ``__candidate_invariant(e)`` is only
  the candidate; ``__function_wide_invariant(e)`` is an ``__invariant(e)`` of every loop of
  its function (one written after a loop of the function: "unknown");
* inside those: ``__implies(a, b)`` is ``!a || b``; ``__other_int(e)``, ``__uniform_int(e)``,
  ``__distinct_int(e)``, ``__all(e)`` (both threads), ``__at_most_one(e)`` (not both),
  ``__ptr_offset_bytes(p)`` (the byte offset ``p`` points at in its array; ``__ptr_base``
  is not modelled: "unknown"), ``__same_group`` (a macro for ``__same_group_impl()``),
  ``__read(A)``, ``__write(A)``, ``__no_read(A)``, ``__no_write(A)``,
  ``__read_offset_bytes(A)``, ``__write_offset_bytes(A)``, ``__read_implies(A, e)``,
  ``__write_implies(A, e)`` are :class:`kpl.ast.Spec` nodes (their meaning is in that
  class's docstring); ``__enabled()`` is true where it is evaluated.  An annotation this
  module does not model becomes a ``Spec`` named ``unsupported ...``, which every oracle
  answers with "unknown" -- never a silent true.

A store to ``__constant__`` memory is refused where stores are built
(:meth:`kpl.frontend.access.AccessTranslation.check_writable`).
"""

from __future__ import annotations

from kpl import ast as K
from kpl.ctypes import sizeof
from kpl.frontend import tree
from kpl.frontend.access import peel
from kpl.frontend.decls import DeclsTranslation
from kpl.frontend.state import PointerBinding, Scope
from kpl.frontend.tree import Node

#: every GPUVerify annotation function (a call to one is never inlined nor modelled)
ANNOTATIONS = {"__ensures", "__invariant", "__global_invariant", "__assert", "__global_assert",
               "__implies", "__write_implies", "__read_implies", "__write_offset_bytes",
               "__read_offset_bytes", "__same_group", "__same_group_impl", "__no_read",
               "__no_write", "__enabled", "__other_int", "__other_bool", "__uniform_int",
               "__uniform_bool", "__distinct_int", "__distinct_bool", "__at_most_one",
               "__read", "__write", "__assert_decl", "__function_wide_invariant",
               "__candidate_invariant", "__candidate_global_invariant", "__non_temporal",
               "__global_requires", "__return_val_int", "__return_val_bool",
               "__return_val_float", "__return_val_ptr", "__requires", "__assume",
               "__ptr_base", "__ptr_offset_bytes"}
#: statement-position annotations that are checked: name -> Assert kind
CHECKS = {"__assert": "assert", "__global_assert": "assert", "__invariant": "invariant",
          "__global_invariant": "invariant"}
#: loop-header annotations: name -> checked (False: a candidate only)
LOOP_INVARIANTS = {"__invariant": True, "__global_invariant": True,
                   "__candidate_invariant": False, "__candidate_global_invariant": False}
#: access predicates: name -> (Spec name, negated)
ACCESS_SPECS = {"__read": ("read", False), "__write": ("write", False),
                "__no_read": ("read", True), "__no_write": ("write", True),
                "__read_offset_bytes": ("read_offset", False),
                "__write_offset_bytes": ("write_offset", False),
                "__read_implies": ("read_implies", False),
                "__write_implies": ("write_implies", False)}
#: two-thread annotations on a value: name -> comparison with the other thread's value
PAIR_SPECS = {"__uniform_int": "==", "__uniform_bool": "==", "__distinct_int": "!=",
              "__distinct_bool": "!="}
#: annotations on a condition over both threads: name -> True for "both", False for "not both"
BOTH_SPECS = {"__all": True, "__at_most_one": False}
_CALLS = {"CallExpr", "CXXMemberCallExpr", "CXXOperatorCallExpr"}


def _candidates_only(options: frozenset[str]) -> bool:
    """GPUVerify's header asks that loop invariants be tried, not checked (a false one is
    dropped by Houdini, as GPUVerify drops a candidate; sound: only a proved one is used)."""
    return bool(options & {"--invariants-as-candidates", "--no-annotations", "--only-requires"})


def _skipped(options: frozenset[str]) -> set[str]:
    """The annotations GPUVerify's header asks to ignore (``--no-annotations``: all;
    ``--only-requires``: all but ``__requires``); checked invariants become candidates.
    Ignoring a ``__requires`` widens the inputs checked: sound."""
    ignored = {"__assert", "__global_assert", "__ensures"}
    if "--no-annotations" in options:
        return ignored | {"__requires", "__global_requires"}
    return ignored if "--only-requires" in options else set()


def has_spec(e: K.Expr) -> bool:
    """``e`` uses a specification function (meaningful only where annotations are checked)."""
    return any(isinstance(x, K.Spec) for x in K.walk_expr(e))


def _usable(cond: K.Expr) -> bool:
    """A candidate invariant the loop abstraction can evaluate in a havocked state: about
    the thread's own variables only (no memory, no access log, no other thread)."""
    return not any(isinstance(x, (K.Spec, K.Load, K.Atomic)) for x in K.walk_expr(cond))


class AnnotationsTranslation(DeclsTranslation):
    """Annotation calls, in statement position and as values (see the module docstring)."""

    # ------------------------------------------------------------------ values

    def annotation_value(self, node: Node, name: str, args: list[Node], scope: Scope,
                         pre: list[K.Stmt]) -> K.Expr:
        """The value of an annotation call inside an expression (an assertion's condition)."""
        if name == "__implies" and len(args) == 2:
            a = self.expr(args[0], scope, pre)
            b = self.expr(args[1], scope, pre)
            return K.Binary("||", K.Unary("!", a, K.INT), b, K.INT)
        if name.startswith("__other_") and len(args) == 1:
            e = self.expr(args[0], scope, pre)
            return K.Spec("other", (e,), None, e.type)
        if name in PAIR_SPECS and len(args) == 1:
            e = self.expr(args[0], scope, pre)
            return K.Binary(PAIR_SPECS[name], e, K.Spec("other", (e,), None, e.type), K.INT)
        if name in BOTH_SPECS and len(args) == 1:
            # ``__all(e)``: e holds for both threads; ``__at_most_one(e)``: not for both
            e = K.Binary("!=", self.expr(args[0], scope, pre), K.Const(0), K.INT)
            both = K.Binary("&&", e, K.Spec("other", (e,), None, e.type), K.INT)
            return both if BOTH_SPECS[name] else K.Unary("!", both, K.INT)
        if name == "__ptr_offset_bytes" and len(args) == 1:
            binding = self.pointer(args[0], scope)
            if binding is None:
                raise self.error(f"'{name}' needs a pointer into an array", node)
            base = self._base_bytes(binding)
            return K.Cast(K.UINT, base) if base is not None else K.Const(0, K.UINT)
        if name in ("__same_group", "__same_group_impl"):
            return K.Spec("same_group")
        if name in ("__enabled",):
            return K.Const(1, K.INT)
        if name.startswith("__return_val"):
            result = self.result_vars[-1] if self.result_vars else None
            if result is None:
                raise self.error(f"'{name}()' outside a __device__ function that returns a "
                                 "value", node)
            return result
        if name in ACCESS_SPECS and args:
            return self._access_spec(node, name, args, scope, pre)
        if name in ("__requires", "__assume", "__assert", "__ensures", "__invariant",
                    "__global_invariant", "__global_assert", "__global_requires"):
            raise self.error(f"'{name}' must be a statement of its own", node)
        return K.Spec(f"unsupported annotation '{name}'")

    def _access_spec(self, node: Node, name: str, args: list[Node], scope: Scope,
                     pre: list[K.Stmt]) -> K.Expr:
        spec, negated = ACCESS_SPECS[name]
        binding = self.pointer(args[0], scope)
        if binding is None:
            raise self.error(f"'{name}' needs an array", node)
        mem = binding.mem
        if spec.endswith("_offset"):
            out: K.Expr = K.Spec(spec, (), mem, K.UINT)
            base = self._base_bytes(binding)
            if base is not None:  # relative to what the argument points at
                out = K.Binary("-", out, K.Cast(K.UINT, base), K.UINT)
            return out
        # ``__write_implies(p, e)`` with ``p`` pointing into an array (``tile + 64``): the
        # pointer names the array only -- GPUVerify's "a write to p's base array happened
        # implies e" -- and offsets inside ``e`` are written with ``__write_offset_bytes(p)``,
        # which is relative to what ``p`` points at (above)
        extra = tuple(self.expr(a, scope, pre) for a in args[1:2]) if spec.endswith("_implies") \
            else ()
        out = K.Spec(spec, extra, mem, K.BOOL)
        return K.Unary("!", out, K.INT) if negated else out

    def _base_bytes(self, binding: PointerBinding) -> K.Expr | None:
        """The byte offset a pointer binding starts at (None: the array's first byte)."""
        off = binding.offset
        if isinstance(off, K.Const) and off.value == 0:
            return None
        if binding.view is not None:
            return off
        size = sizeof(binding.mem.elem) or 1
        return K.Binary("*", off, K.Const(size, K.ULONG), K.ULONG)

    # ------------------------------------------------------------------ statements

    def annotation_stmt(self, node: Node, name: str, args: list[Node],
                        scope: Scope) -> list[K.Stmt] | None:
        """An annotation call as a statement; None when ``name`` is not one that does
        something (the caller keeps it as a no-op :class:`K.Annotation`)."""
        pre: list[K.Stmt] = []
        if name in _skipped(self.unit.options):
            return []
        if name in ("__requires", "__global_requires", "__assume"):
            cond = self.expr(args[0], scope, pre) if args else K.Const(1)
            if name != "__assume" and self.inline_depth > 0:
                return pre + [K.Assert(cond, kind="requires", label=self.label())]
            kind = "assume" if name == "__assume" else "requires"
            if kind == "requires" and not has_spec(cond):
                self.requires.append(cond)
            return pre + [K.Assume(cond, kind=kind, label=self.label())]
        if name == "__ensures":
            cond = self.expr(args[0], scope, pre) if args else K.Const(1)
            if pre:
                raise self.error("'__ensures' condition with side effects", node)
            self.ensures_stack[-1].append((cond, self.span_of(node)))
            return []
        if name == "__function_wide_invariant":
            # an invariant of every loop of the function (GPUVerify): checked at each loop's
            # entry and latch and a candidate for its abstraction, like ``__invariant``
            # (:meth:`function_wide`); a loop translated before it would go unchecked
            cond = self.expr(args[0], scope, pre) if args else K.Const(1)
            if pre:
                raise self.error(f"'{name}' condition with side effects", node)
            conds, loops = self.wide_stack[-1]
            if loops[0] and _candidates_only(self.unit.options):
                return []  # a candidate the loops before it never try: dropped, as Houdini may
            if loops[0]:
                return [K.Assert(K.Spec(f"unsupported annotation '{name}' after a loop of "
                                        "its function"), kind="invariant", label=self.label())]
            conds.append(cond)
            return []
        if name in CHECKS:
            cond = self.expr(args[0], scope, pre) if args else K.Const(1)
            check = K.Assert(cond, kind=CHECKS[name], label=self.label())
            if CHECKS[name] != "invariant":
                return pre + [check]
            # an invariant written as a statement: checked where it stands, and (at the top
            # of a loop body) a candidate for the loop abstraction too
            cand = K.Annotation(name, (cond,) if _usable(cond) else (), label=self.label(),
                                placeable=False, synthetic=True)
            return pre + [cand] + ([] if _candidates_only(self.unit.options) else [check])
        return None

    def ensures_checks(self) -> list[K.Stmt]:
        """``Assert``s of the current function's ``__ensures``: before each ``return`` (after
        its value is stored) and at the end of its body."""
        return [K.Assert(c, kind="ensures", label=self.label(), span=span, placeable=False,
                         synthetic=True) for c, span in self.ensures_stack[-1]]

    def enter_function(self) -> None:
        """A function body starts being translated (inlined): its own ``__ensures`` and
        ``__function_wide_invariant`` lists."""
        self.ensures_stack.append([])
        self.wide_stack.append(([], [0]))

    def leave_function(self, body: K.Block) -> None:
        """Its body is translated: check its ``__ensures`` where it falls off the end."""
        body.stmts.extend(self.ensures_checks())
        self.ensures_stack.pop()
        self.wide_stack.pop()

    def function_wide(self) -> tuple[list[K.Stmt], list[K.Expr]]:
        """A loop of the current function is translated: the candidates (top of its body)
        and the conditions to check (entry, latch) of the function's wide invariants."""
        conds, loops = self.wide_stack[-1]
        loops[0] += 1
        cands: list[K.Stmt] = [K.Annotation("__invariant", (c,) if _usable(c) else (),
                                            label=self.label()) for c in conds]
        return cands, ([] if _candidates_only(self.unit.options) else list(conds))

    def loop_invariant(self, part: Node, scope: Scope) -> tuple[K.Stmt, list[K.Expr]] | None:
        """An annotation in a loop header (``for (...; __invariant(e), cond; ...)``): the
        :class:`K.Annotation` for the top of the body (for ``__invariant``: a candidate for
        the loop abstraction) and the conditions to check at entry and in the latch; None
        when ``part`` is no annotation."""
        call = peel(part)
        while tree.kind(call) == "ImplicitCastExpr" and call.get("castKind") == "ToVoid" \
                and tree.children(call):
            call = peel(tree.children(call)[0])
        if tree.kind(call) not in _CALLS:
            return None
        func, obj = self.callee(call)
        if func is None or obj is not None:
            return None
        name = self.function_name(func)
        if name not in LOOP_INVARIANTS:
            return (K.Annotation(name, label=self.label()), []) if name in ANNOTATIONS else None
        args = self.arguments(call, func)
        pre: list[K.Stmt] = []
        cond = self.expr(args[0], scope, pre) if args else K.Const(1)
        if pre:
            raise self.error(f"'{name}' condition with side effects", call)
        cand = K.Annotation(name, (cond,) if _usable(cond) else (), label=self.label())
        return cand, ([cond] if LOOP_INVARIANTS[name] and not _candidates_only(self.unit.options) else [])

    def check_invariants(self, conds: list[K.Expr], entry: list[K.Stmt],
                         latch: list[K.Stmt]) -> None:
        """Loop invariants are checked when the loop is entered and after every iteration."""
        for where in (entry, latch):
            where.extend(K.Assert(c, kind="invariant", label=self.label()) for c in conds)

    # ------------------------------------------------------------------ defined in kpl.frontend.calls

    def callee(self, node: Node) -> tuple[Node | None, Node | None]:
        """(function declaration, object of a method call): :mod:`kpl.frontend.calls`."""
        raise NotImplementedError

    def arguments(self, node: Node, func: Node | None) -> list[Node]:
        """A call's argument nodes: :mod:`kpl.frontend.calls`."""
        raise NotImplementedError

    def function_name(self, func: Node) -> str:
        """A function declaration's name: :mod:`kpl.frontend.calls`."""
        raise NotImplementedError
