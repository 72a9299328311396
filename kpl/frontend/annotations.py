"""GPUVerify's annotation language: what each annotation call translates to.

Why a module of its own: annotations are specifications, not code -- nvcc compiles them to
nothing (``annotations.h``) -- so their translation follows other rules than calls do; and one
piece (over 400 lines): every annotation reads the same per-function contract state (its
``__ensures``, ``__old_*`` snapshots, function-wide invariants), which only this layer holds.  Our
headers ``__autosync_gpuverify.h`` / ``__autosync_opencl_c_gpuverify.h`` declare them (a
kernel's own ``annotations.h`` may too; ``__ite``, ``__mod_pow2``, ``__barrier_invariant_N``,
``__read_permission`` and ``DECLARE_UF_*`` are macros there); :mod:`kpl.frontend.calls` routes
every name :func:`is_annotation` accepts here.  What each name means:

* ``__assert(e)`` -> :class:`kpl.ast.Assert` (kind ``assert``); ``__global_assert(e)`` -> kind
  ``global_assert``: checked for every thread, enabled or not (GPUVerify's "global"; there
  ``__enabled()`` is each thread's predicate);
* ``__requires(e)`` in the kernel -> an assumption on its inputs (``Assume``, and the kernel's
  ``requires`` when it is an ordinary expression); inside an inlined ``__device__``
  function -> an :class:`~kpl.ast.Assert` of kind ``requires`` at the call: the caller must
  establish it (GPUVerify's modular reading, made concrete by inlining; ``__global_requires``
  there: kind ``global_requires``, for every thread, calling or not);
  ``__requires_fresh_array(p)``: what AutoSync assumes of every array already (no aliasing);
* ``__ensures(e)`` -> an ``Assert`` of kind ``ensures`` before every ``return`` of the
  function and at its end (``__return_val_int()``, ``__return_val_int4()`` & co. name the
  returned value; ``__old_int(x)`` in the function's contract is ``x`` on entry);
  ``__global_ensures(e)``: kind ``global_ensures``, for every thread;
* ``__invariant(e)`` / ``__global_invariant(e)`` in a loop header -> an ``Assert`` of kind
  ``invariant`` at loop entry and at the end of every iteration (the latch), plus a
  *candidate* for the loop abstraction (``Annotation`` with ``args``), which the verifier
  uses only after proving it (Houdini), never unchecked; ``__candidate_invariant(e)`` is only
  the candidate; ``__assert(e)`` in a loop header is evaluated with the loop's condition:
  an ``__invariant(e)`` (another annotation there: "unknown");
  ``__function_wide_invariant(e)``, a statement of its function's body
  (GPUVerify: at its end), is an ``__invariant(e)`` of every loop of that function
  (``__function_wide_candidate_invariant(e)`` its ``__candidate_invariant(e)``);
* ``__barrier_invariant(e)`` (``__barrier_invariant_N(e, instantiations...)``) -> an
  ``Assert`` of kind ``barrier_invariant`` where it stands, before its barrier, for every
  thread (``_binary``: for two threads of a group).  GPUVerify then assumes ``e`` for the
  instantiations; we do not, so what needs it is still reported (sound, less precise);
* inside those: ``__implies(a, b)`` is ``!a || b``; ``__other_int(e)``, ``__uniform_int(e)``,
  ``__distinct_int(e)``, ``__all(e)`` (both threads), ``__at_most_one(e)`` / ``__exclusive(e)``
  (not both), ``__ptr_offset_bytes(p)`` (the byte offset ``p`` points at in its array;
  ``__ptr_base`` is not modelled: "unknown"), ``__same_group`` (a macro for
  ``__same_group_impl()``), ``__read(A)``, ``__write(A)``, ``__no_read(A)``, ``__no_write(A)``,
  ``__read_offset_bytes(A)``, ``__write_offset_bytes(A)`` (from the first byte of the
  object ``A`` points into, as GPUVerify defines them), ``__read_implies(A, e)``,
  ``__write_implies(A, e)`` are :class:`kpl.ast.Spec` nodes (their meaning is in that
  class's docstring); ``__enabled()`` is true where it is evaluated, and inside
  ``__other_int`` & co. the other thread's predicate (``Spec`` ``enabled``);
* values: ``__add_noovfl_T(a, b)`` is ``a + b`` with the assumption that it does not overflow,
  ``__add_noovfl(a, b, ...)`` the predicate "the sum does not overflow";
  ``__uninterpreted_function_f(...)`` a :class:`kpl.ast.Call` (a pure function: same
  arguments, same value, in every thread).

An annotation this module does not model (``__writes_to``, ``__reads_from`` of GPUVerify's
specification functions, ``__atomic_has_taken_value``) becomes a ``Spec`` named
``unsupported ...``, which every oracle answers with "unknown" -- never a silent true.
Why more than 400 lines: one vocabulary, one dispatch over the names; split, the value and
statement halves would each re-derive which names exist.

A store to ``__constant__`` memory is refused where stores are built
(:meth:`kpl.frontend.access.AccessTranslation.check_writable`).
"""

from __future__ import annotations

from dataclasses import replace

from kpl import ast as K
from kpl.ctypes import sizeof
from kpl.errors import KplError
from kpl.frontend import tree
from kpl.frontend.access import peel
from kpl.frontend.decls import DeclsTranslation
from kpl.frontend.state import AnnotationFrame, PointerBinding, Scope
from kpl.frontend.tree import Node

#: every GPUVerify annotation function (a call to one is never inlined nor modelled)
ANNOTATIONS = {"__ensures", "__invariant", "__global_invariant", "__assert", "__global_assert",
               "__implies", "__write_implies", "__read_implies", "__write_offset_bytes",
               "__read_offset_bytes", "__same_group", "__same_group_impl", "__no_read",
               "__no_write", "__enabled", "__other_int", "__other_bool", "__uniform_int",
               "__uniform_bool", "__distinct_int", "__distinct_bool", "__at_most_one",
               "__exclusive", "__read", "__write", "__assert_decl", "__function_wide_invariant",
               "__candidate_invariant", "__candidate_global_invariant", "__non_temporal",
               "__global_requires", "__global_ensures", "__function_wide_candidate_invariant", "__requires", "__assume",
               "__ptr_base", "__ptr_offset_bytes", "__requires_fresh_array", "__writes_to",
               "__reads_from", "__atomic_has_taken_value", "__barrier_invariant",
               "__barrier_invariant_binary"}
#: families of annotation functions, by prefix: ``__return_val_int4``, ``__add_noovfl_int``,
#: ``__old_int``, ``__uninterpreted_function_f`` (what ``DECLARE_UF_BINARY(f, ...)`` declares)
ANNOTATION_PREFIXES = ("__return_val_", "__add_noovfl", "__old_", "__uninterpreted_function_")
#: statement-position annotations that are checked: name -> Assert kind
CHECKS = {"__assert": "assert", "__global_assert": "global_assert", "__invariant": "invariant",
          "__global_invariant": "invariant"}
#: loop-header annotations: name -> checked (False: a candidate only)
LOOP_INVARIANTS = {"__invariant": True, "__global_invariant": True,
                   "__candidate_invariant": False, "__candidate_global_invariant": False}
#: function-wide invariants: name -> checked (False: a candidate only)
WIDE = {"__function_wide_invariant": True, "__function_wide_candidate_invariant": False}
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
BOTH_SPECS = {"__all": True, "__at_most_one": False, "__exclusive": False}
#: the headers that declare GPUVerify's annotations (their ``__all`` is GPUVerify's)
ANNOTATION_HEADERS = ("__autosync_gpuverify.h", "__autosync_opencl_c_gpuverify.h")
_CALLS = {"CallExpr", "CXXMemberCallExpr", "CXXOperatorCallExpr"}


def _candidates_only(options: frozenset[str]) -> bool:
    """GPUVerify's header asks that loop invariants be tried, not checked (a false one is
    dropped by Houdini, as GPUVerify drops a candidate; sound: only a proved one is used)."""
    return bool(options & {"--invariants-as-candidates", "--no-annotations", "--only-requires"})


def _skipped(options: frozenset[str]) -> set[str]:
    """The annotations GPUVerify's header asks to ignore (``--no-annotations``: all;
    ``--only-requires``: all but ``__requires``); checked invariants become candidates.
    Ignoring a ``__requires`` widens the inputs checked: sound."""
    ignored = {"__assert", "__global_assert", "__ensures", "__global_ensures", "__barrier_invariant",
               "__barrier_invariant_binary"}
    if "--no-annotations" in options:
        return ignored | {"__requires", "__global_requires"}
    return ignored if "--only-requires" in options else set()


def is_annotation(name: str) -> bool:
    """``name`` is one of GPUVerify's annotation functions (``__all`` aside: it may be the
    warp vote, :meth:`AnnotationsTranslation.is_annotation_call`)."""
    return name in ANNOTATIONS or name.startswith(ANNOTATION_PREFIXES)


def has_spec(e: K.Expr) -> bool:
    """``e`` uses a specification function (meaningful only where annotations are checked)."""
    return any(isinstance(x, K.Spec) for x in K.walk_expr(e))


def _pure(e: K.Expr) -> bool:
    """``e`` reads no memory and calls nothing: evaluating it again changes nothing."""
    return not any(isinstance(x, (K.Load, K.Atomic, K.Call)) for x in K.walk_expr(e))


def _usable(cond: K.Expr) -> bool:
    """A candidate invariant the loop abstraction can evaluate in a havocked state: about
    the thread's own variables only (no memory, no access log, no other thread)."""
    return not any(isinstance(x, (K.Spec, K.Load, K.Atomic)) for x in K.walk_expr(cond))


class AnnotationsTranslation(DeclsTranslation):
    """Annotation calls, in statement position and as values (see the module docstring)."""

    # ------------------------------------------------------------------ values

    def is_annotation_call(self, func: Node, name: str) -> bool:
        """A call of ``func`` is one of GPUVerify's annotations.  ``__all`` is GPUVerify's
        when a GPUVerify header declares it (OpenCL's, or the kernel's own), or in a file
        written for GPUVerify (its flags line: GPUVerify reads ``__all`` so there); otherwise
        it is CUDA's warp vote of our headers."""
        if name != "__all":
            return is_annotation(name)
        header = self.bundled_header(func) if self.is_bundled(func) else None
        if header is None or header in ANNOTATION_HEADERS:
            return True
        if self.unit.gpuverify_style:
            self.note_once("'__all(e)' is GPUVerify's annotation here (e holds for every "
                           "thread), as in a file written for GPUVerify, not the warp vote")
            return True
        return False

    def note_once(self, message: str) -> None:
        """Say ``message`` once for the file (no position: it is a rule of the file)."""
        self.unit.note(message)

    def annotation_value(self, node: Node, name: str, args: list[Node], scope: Scope,
                         pre: list[K.Stmt]) -> K.Expr:
        """The value of an annotation call inside an expression (an assertion's condition)."""
        if name.startswith("__add_noovfl"):
            return self._add_noovfl(node, name, args, scope, pre)
        if name.startswith("__old_") and len(args) == 1:
            return self._old_value(args[0], scope, pre)
        if name.startswith("__uninterpreted_function_"):
            values = tuple(self.expr(a, scope, pre) for a in args)
            if any(v.type.kind == "ptr" for v in values):
                raise self.error(f"unsupported: '{name}' with a pointer argument", node)
            return K.Call(name, values, self.type_of(node))
        if name == "__implies" and len(args) == 2:
            a = self.expr(args[0], scope, pre)
            b = self.expr(args[1], scope, pre)
            return K.Binary("||", K.Unary("!", a, K.INT), b, K.INT)
        if name.startswith("__other_") and len(args) == 1:
            e = self._partner(args[0], scope, pre)
            return K.Spec("other", (e,), None, e.type)
        if name in PAIR_SPECS and len(args) == 1:
            e = self.expr(args[0], scope, pre)
            other = self._partner(args[0], scope, pre)
            return K.Binary(PAIR_SPECS[name], e, K.Spec("other", (other,), None, e.type), K.INT)
        if name in BOTH_SPECS and len(args) == 1:
            # ``__all(e)``: e holds for both threads; ``__at_most_one(e)``: not for both
            e = K.Binary("!=", self.expr(args[0], scope, pre), K.Const(0), K.INT)
            other = K.Binary("!=", self._partner(args[0], scope, pre), K.Const(0), K.INT)
            both = K.Binary("&&", e, K.Spec("other", (other,), None, e.type), K.INT)
            return both if BOTH_SPECS[name] else K.Unary("!", both, K.INT)
        if name == "__ptr_offset_bytes" and len(args) == 1:
            binding = self.pointer(args[0], scope)
            if binding is None:
                raise self.error(f"'{name}' needs a pointer into an array", node)
            base = self._base_bytes(binding)
            return K.Cast(K.UINT, base) if base is not None else K.Const(0, K.UINT)
        if name in ("__same_group", "__same_group_impl"):
            return K.Spec("same_group")
        if name == "__enabled":
            # true where a thread evaluates it; of the other thread (:meth:`_partner`): its
            # own predicate, which may be false (it left the loop, took the other branch)
            return K.Spec("enabled", type=K.BOOL) if self.partner_depth else K.Const(1, K.INT)
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

    def _partner(self, arg: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        """``arg`` as the other thread of the pair evaluates it (in ``__other_int(arg)`` &
        co.): ``__enabled()`` there is that thread's predicate."""
        self.partner_depth += 1
        try:
            return self.expr(arg, scope, pre)
        finally:
            self.partner_depth -= 1

    def _condition(self, name: str, args: list[Node], scope: Scope,
                   pre: list[K.Stmt]) -> K.Expr:
        """The condition of a checked annotation.  A global one (``__global_assert``,
        ``__global_ensures``, ``__global_requires`` of a called function) is GPUVerify's "for every thread, running this code or not"
        (kinds ``global_*``): checked for threads whose predicate is false too, where
        ``__enabled()`` is each thread's predicate."""
        if not name.startswith("__global_"):
            return self.expr(args[0], scope, pre) if args else K.Const(1)
        return self._partner(args[0], scope, pre) if args else K.Const(1)

    def _add_noovfl(self, node: Node, name: str, args: list[Node], scope: Scope,
                    pre: list[K.Stmt]) -> K.Expr:
        """GPUVerify's additions that do not overflow.  ``__add_noovfl_T(a, b)``: ``a + b``,
        with the assumption (a statement before) that the exact sum fits in ``T``;
        ``__add_noovfl(a, b, ...)``: the predicate "the exact sum fits in the arguments'
        type".  Exact sums are computed in 64 bits: 64-bit types are "unknown"."""
        values = [self.expr(a, scope, pre) for a in args]
        typ = values[0].type if values else K.INT
        if len(values) < 2 or typ.kind != "int" or typ.bits > 32 or any(
                (v.type.kind, v.type.bits, v.type.signed) != (typ.kind, typ.bits, typ.signed)
                for v in values):
            return K.Spec(f"unsupported annotation '{name}' (on these argument types)",
                          type=self.type_of(node))
        total: K.Expr = K.Cast(K.LONG, values[0])
        for v in values[1:]:
            total = K.Binary("+", total, K.Cast(K.LONG, v), K.LONG)
        low = -(1 << (typ.bits - 1)) if typ.signed else 0
        high = (1 << (typ.bits - 1)) - 1 if typ.signed else (1 << typ.bits) - 1
        fits = K.Binary("&&", K.Binary(">=", total, K.Const(low, K.LONG), K.INT),
                        K.Binary("<=", total, K.Const(high, K.LONG), K.INT), K.INT)
        if name == "__add_noovfl":
            return fits
        pre.append(K.Assume(fits, kind="assume", label=self.label()))
        return K.Cast(typ, total)

    def _old_value(self, arg: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        """``__old_int(e)`` in an ``__ensures`` of the function's contract: ``e`` when the
        function was entered, read into a variable where the contract stands (nothing of
        the function has run before it).  Elsewhere, or of memory: "unknown"."""
        if self.old_snapshots is None:
            return K.Spec("unsupported annotation '__old_' outside an __ensures of the "
                          "function's contract (the annotations it starts with)")
        reads: list[K.Stmt] = []
        value = self.expr(arg, scope, reads)
        if reads or not _pure(value):  # its read would be an access the kernel never makes
            return K.Spec("unsupported annotation '__old_' of a value in memory", type=value.type)
        snap = self.temp(value.type, "old")
        self.old_snapshots.append(K.Decl(snap, value, label=self.label(), placeable=False,
                                         synthetic=True))
        return snap

    def _access_spec(self, node: Node, name: str, args: list[Node], scope: Scope,
                     pre: list[K.Stmt]) -> K.Expr:
        spec, negated = ACCESS_SPECS[name]
        binding = self.pointer(args[0], scope)
        if binding is None:
            raise self.error(f"'{name}' needs an array", node)
        mem = binding.mem
        if spec.endswith("_offset"):
            # GPUVerify's: the offset in the object ``p`` points into (after ``p += base``
            # still from the object's first byte, not from where ``p`` points)
            return K.Spec(spec, (), mem, K.UINT)
        # ``__write_implies(p, e)`` with ``p`` pointing into an array (``tile + 64``): the
        # pointer names the array only -- GPUVerify's "a write to p's base array happened
        # implies e"
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
            if name != "__assume" and self.inline_depth > 0:  # the caller's obligation
                cond = self._condition(name, args, scope, pre)
                kind = "global_requires" if name == "__global_requires" else "requires"
                return pre + [K.Assert(cond, kind=kind, label=self.label())]
            cond = self.expr(args[0], scope, pre) if args else K.Const(1)
            kind = "assume" if name == "__assume" else "requires"
            if kind == "requires" and not has_spec(cond):
                self.requires.append(cond)
            return pre + [K.Assume(cond, kind=kind, label=self.label())]
        if name in ("__ensures", "__global_ensures"):
            return self._ensures(node, name, args, scope)
        if name in WIDE:
            # checked at every loop of its function (:meth:`function_wide`), not here
            if any(n.get("id") == node.get("id") for n, _ in self._wide_calls()):
                return []
            return [K.Assert(K.Spec(f"unsupported annotation '{name}' inside a block (GPUVerify "
                                    "reads it at the end of its function)"), kind="invariant",
                             label=self.label())]
        if name in ("__barrier_invariant", "__barrier_invariant_binary"):
            # checked where it stands (before its barrier) for every thread; GPUVerify then
            # assumes it for the instantiations after the barrier: AutoSync does not, so a
            # race or an assertion that needs it is still reported (sound)
            cond = self.expr(args[0], scope, pre) if args else K.Const(1)
            if name.endswith("binary"):  # two threads of one group
                cond = K.Binary("||", K.Unary("!", K.Spec("same_group"), K.INT), cond, K.INT)
            return pre + [K.Assert(cond, kind="barrier_invariant", label=self.label())]
        if name in ("__writes_to", "__reads_from"):
            return [K.Assert(K.Spec(f"unsupported annotation '{name}' (the frame of one of "
                                    "GPUVerify's specification functions)"), label=self.label())]
        if name in CHECKS:
            cond = self._condition(name, args, scope, pre)
            check = K.Assert(cond, kind=CHECKS[name], label=self.label())
            if CHECKS[name] != "invariant":  # (also a global assertion: every thread's)
                return pre + [check]
            # an invariant written as a statement: checked where it stands, and (at the top
            # of a loop body) a candidate for the loop abstraction too
            cand = K.Annotation(name, (cond,) if _usable(cond) else (), label=self.label(),
                                placeable=False, synthetic=True)
            return pre + [cand] + ([] if _candidates_only(self.unit.options) else [check])
        return None

    def _ensures(self, node: Node, name: str, args: list[Node], scope: Scope) -> list[K.Stmt]:
        """``__ensures(e)``: checked at each ``return`` and at the end (:meth:`ensures_checks`);
        the values ``__old_int(...)`` reads in it are read where it stands, allowed in the
        function's contract only.  ``__global_ensures`` is checked for the threads that run
        the function, as ``__global_assert``."""
        frame = self.frames[-1]
        if frame.contract is None:
            frame.contract = self._contract_ids(frame.func)
        self.old_snapshots = [] if str(node.get("id")) in frame.contract else None
        pre: list[K.Stmt] = []
        try:
            cond = self._condition(name, args, scope, pre)
            snapshots = self.old_snapshots or []
        finally:
            self.old_snapshots = None
        if not all(isinstance(st, K.Decl) and st.init is not None and _pure(st.init)
                   for st in pre):
            raise self.error(f"'{name}' condition with side effects", node)
        # temporaries it reads (``__return_val_int4().x``) are set again at each check
        kind = "global_ensures" if name == "__global_ensures" else "ensures"
        frame.ensures.append((pre, cond, self.span_of(node), kind))
        return snapshots

    def _statement_calls(self, func: Node) -> list[tuple[Node, str]]:
        """(call node, annotation name or "") of each statement of ``func``'s body, in order."""
        body = tree.body_of(func)
        out: list[tuple[Node, str]] = []
        for stmt in tree.children(body) if body is not None else []:
            call = peel(stmt)
            name = ""
            if tree.kind(call) in _CALLS:
                callee, obj = self.callee(call)
                if callee is not None and obj is None and is_annotation(self.function_name(callee)):
                    name = self.function_name(callee)
            out.append((call, name))
        return out

    def _contract_ids(self, func: Node) -> set[str]:
        """The ids of the annotation calls ``func``'s body starts with."""
        ids: set[str] = set()
        for call, name in self._statement_calls(func):
            if not name:
                break
            ids.add(str(call.get("id")))
        return ids

    def _wide_calls(self) -> list[tuple[Node, bool]]:
        """The ``__function_wide_invariant`` calls that are statements of the current
        function's body (GPUVerify's place for them: its end), each with whether it is
        checked (``__function_wide_candidate_invariant``: a candidate only)."""
        frame = self.frames[-1]
        if frame.wide is None:
            frame.wide = [(call, WIDE[name]) for call, name in self._statement_calls(frame.func)
                          if name in WIDE]
        return frame.wide

    def ensures_checks(self) -> list[K.Stmt]:
        """``Assert``s of the current function's ``__ensures``: before each ``return`` (after
        its value is stored) and at the end of its body."""
        out: list[K.Stmt] = []
        for pre, cond, span, kind in self.frames[-1].ensures:
            out.extend(replace(st, label=self.label(), span=span) for st in pre)
            out.append(K.Assert(cond, kind=kind, label=self.label(), span=span,
                                placeable=False, synthetic=True))
        return out

    def enter_function(self, func: Node) -> None:
        """A function body starts being translated (inlined): its own annotations."""
        self.frames.append(AnnotationFrame(func))

    def leave_function(self, body: K.Block) -> None:
        """Its body is translated: check its ``__ensures`` where it falls off the end."""
        body.stmts.extend(self.ensures_checks())
        self.frames.pop()

    def function_wide(self, scope: Scope) -> tuple[list[K.Stmt], list[K.Expr]]:
        """A loop of the current function is translated: the candidates (top of its body)
        and the conditions to check (entry, latch) of the function's wide invariants, read
        in the loop's scope (one naming a variable declared after the loop: "unknown")."""
        conds: list[K.Expr] = []
        checked: list[K.Expr] = []
        for call, check in self._wide_calls():
            func, _obj = self.callee(call)
            args = self.arguments(call, func)
            pre: list[K.Stmt] = []
            try:
                cond = self.expr(args[0], scope, pre) if args else K.Const(1)
            except KplError as err:
                cond = K.Spec(f"unsupported annotation '__function_wide_invariant' at this "
                              f"loop: {err.message}")
            if pre:
                raise self.error("'__function_wide_invariant' condition with side effects", call)
            conds.append(cond)
            if check:
                checked.append(cond)
        cands: list[K.Stmt] = [K.Annotation("__invariant", (c,) if _usable(c) else (),
                                            label=self.label()) for c in conds]
        return cands, ([] if _candidates_only(self.unit.options) else checked)

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
        if not is_annotation(name):
            return None
        if name not in LOOP_INVARIANTS and name not in CHECKS:
            # (a contract, a barrier invariant... where the loop condition is evaluated)
            return K.Annotation(name, label=self.label()), [
                K.Spec(f"unsupported annotation '{name}' in a loop header")]
        # ``__assert(e)`` there is evaluated with the condition, at the loop head of every
        # iteration: an invariant
        args = self.arguments(call, func)
        pre: list[K.Stmt] = []
        cond = self.expr(args[0], scope, pre) if args else K.Const(1)
        if pre:
            raise self.error(f"'{name}' condition with side effects", call)
        cand = K.Annotation(name, (cond,) if _usable(cond) else (), label=self.label())
        return cand, ([cond] if LOOP_INVARIANTS.get(name, True) and not _candidates_only(self.unit.options)
                      else [])

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
