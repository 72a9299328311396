"""Expression evaluation of the SDV executor: KPL expressions as z3 terms, per thread.

Stage: expressions.  :meth:`ExprEvaluator.ev` is a visitor over the expression classes of
:mod:`kpl.ast` (``ev_<ClassName>``, see :func:`oracle.sdv.state.method_for`); the memory
nodes ``Load``/``Atomic`` are visited by :mod:`oracle.sdv.memory` (the layer above: it extends
:class:`ExprEvaluator`, and the dispatch finds its ``ev_Load``).  Integers are exact
bit-vectors with C's conversions, floats and opaque calls uninterpreted functions
(:mod:`oracle.sdv.encode`).  ``&&``, ``||`` and ``?:`` evaluate their right operand/arms under
the predicate that they are evaluated (short-circuit reads, [LockStep]).

Signed overflow is undefined behaviour: every signed ``+``, ``-``, ``*``, ``/`` and unary ``-``
a thread evaluates adds "pred ⇒ the operation does not overflow" to the path facts, as an
``__assume`` would, so the verdict is about the defined executions only
(:mod:`oracle.sdv.defined`); an unsigned ``+`` converted (``Cast``) to a signed type adds
"pred ⇒ the sum of two values that fit fits", a stated assumption of the same kind.  Unsigned operations wrap and add nothing.
"""

from __future__ import annotations

import z3

from kpl import ast as K
from kpl.ast import CType
from kpl.ctypes import binary_type, common_type, promote
from oracle.sdv.defined import DefinedArithmetic
from oracle.sdv.encode import (
    FLOAT_SORT,
    Val,
    apply_uf,
    conv,
    fconst,
    fresh,
    is_false,
    is_true,
    ite,
    resize,
    sort_of,
    to_bool,
    vec_elem,
    vec_fields,
    z3_sort,
)
from oracle.sdv.state import (
    IMPURE_PREFIXES,
    Unsupported,
    method_for,
    mk_and,
    mk_not,
    mk_or,
    simp,
)


class ExprEvaluator(DefinedArithmetic):
    """Stage: the value of an expression for one thread, reads logged under a predicate."""

    def ev(self, e: K.Expr, t: int, pred: z3.BoolRef) -> Val:
        """Value of ``e`` for thread ``t``; memory reads are logged under ``pred``."""
        return method_for(type(self), "ev_", e, "ev_unsupported")(  # type: ignore[no-any-return]
            self, e, t, pred)

    def ev_unsupported(self, e: K.Expr, t: int, pred: z3.BoolRef) -> Val:
        raise Unsupported(f"expression {type(e).__name__}")

    def eval_in(self, e: K.Expr, t: int, vars_: dict[str, Val], pred: z3.BoolRef) -> Val:
        """Evaluate the memory-free ``e`` in the given state of thread ``t`` (no logging)."""
        saved, defined = self.th[t].vars, self.assume_defined
        na = len(self.accesses)
        self.th[t].vars = dict(vars_)
        self.assume_defined = False  # a hypothetical state: its overflow is no UB of the run
        try:
            return self.ev(e, t, pred)
        finally:
            self.th[t].vars = saved
            self.assume_defined = defined
            del self.accesses[na:]

    # ------------------------------------------------------------------ leaves

    def ev_Const(self, e: K.Const, t: int, pred: z3.BoolRef) -> Val:
        return self.const(e.value, e.type)

    def ev_Var(self, e: K.Var, t: int, pred: z3.BoolRef) -> Val:
        vs = self.th[t].vars
        if e.name not in vs:
            vs[e.name] = fresh(e.type, f"undef.{e.name}")
        return vs[e.name]

    def ev_Builtin(self, e: K.Builtin, t: int, pred: z3.BoolRef) -> Val:
        return conv(self.builtin(e, t), K.UINT, e.type)

    def const(self, value: object, ct: CType) -> Val:
        if ct.kind == "float" or isinstance(value, float):
            return fconst(float(value))  # type: ignore[arg-type]
        if ct.kind == "bool":
            return z3.BoolVal(bool(value))
        if ct.kind == "int":
            return z3.BitVecVal(int(value), ct.bits or 32)  # type: ignore[call-overload]
        if ct.kind == "ptr":
            return apply_uf(f"ptrconst{value}", [], sort_of(ct))  # type: ignore[arg-type]
        return z3.BitVecVal(int(value), 32)  # type: ignore[call-overload]

    def builtin(self, e: K.Builtin, t: int) -> z3.BitVecRef:
        i = "xyz".index(e.dim) if e.dim in "xyz" and e.dim else 0
        if e.name == "threadIdx":
            return self.tid[t][i]
        if e.name == "blockIdx":
            return self.bid[t][i]
        if e.name == "blockDim":
            return self.bdim[i]
        if e.name == "gridDim":
            return self.gdim[i]
        if e.name == "warpSize":
            return z3.BitVecVal(32, 32)
        raise Unsupported(f"builtin {e.name}")

    # ------------------------------------------------------------------ composite values

    def ev_Cast(self, e: K.Cast, t: int, pred: z3.BoolRef) -> Val:
        """A conversion, explicit or one the front end made explicit (clang's
        ``ImplicitCastExpr``).  Of an unsigned ``+`` to a signed type: the sum of two values
        that fit is assumed to fit (:meth:`DefinedArithmetic.assume_sum_fits`)."""
        src = e.operand.type if hasattr(e.operand, "type") else e.type
        op = e.operand
        if isinstance(op, K.Binary) and op.op == "+" and src.kind == "int" and not src.signed \
                and e.type.kind == "int" and e.type.signed:
            a = self.ev(op.left, t, pred)
            b = self.ev(op.right, t, pred)
            r = self._binary_scalar("+", a, b, op.left.type, op.right.type, src, pred, (id(op), t))
            x, y = conv(a, op.left.type, src), conv(b, op.right.type, src)
            if isinstance(x, z3.BitVecRef) and isinstance(y, z3.BitVecRef):
                self.assume_sum_fits(pred, x, y, src, e.type)
            return conv(r, src, e.type)
        return conv(self.ev(op, t, pred), src, e.type)

    def ev_Cond(self, e: K.Cond, t: int, pred: z3.BoolRef) -> Val:
        c = to_bool(self.ev(e.cond, t, pred))
        a = conv(self.ev(e.then, t, mk_and(pred, c)), e.then.type, e.type)
        b = conv(self.ev(e.els, t, mk_and(pred, mk_not(c))), e.els.type, e.type)
        return ite(c, a, b)

    def ev_Field(self, e: K.Field, t: int, pred: z3.BoolRef) -> Val:
        base = self.ev(e.base, t, pred)
        if isinstance(base, dict) and e.name in base:
            return base[e.name]
        return fresh(e.type, f"field.{e.name}")

    def ev_VecInit(self, e: K.VecInit, t: int, pred: z3.BoolRef) -> Val:
        fields = vec_fields(e.type)
        elem = vec_elem(e.type)
        out: dict[str, Val] = {}
        for i, f in enumerate(fields):
            if i < len(e.parts):
                p = e.parts[i]
                out[f] = conv(self.ev(p, t, pred), p.type, elem)
            else:
                out[f] = fresh(elem, "vecinit")
        return out

    # ------------------------------------------------------------------ operators

    def ev_Unary(self, e: K.Unary, t: int, pred: z3.BoolRef) -> Val:
        src = e.operand.type
        v = self.ev(e.operand, t, pred)
        if e.op == "!":
            return conv(mk_not(to_bool(v)), K.BOOL, e.type)
        if isinstance(v, dict):
            return {k: self._unary_scalar(e.op, x, vec_elem(src), vec_elem(e.type), pred)
                    for k, x in v.items()}
        return self._unary_scalar(e.op, v, src, e.type, pred)

    def _unary_scalar(self, op: str, v: Val, src: CType, dst: CType, pred: z3.BoolRef) -> Val:
        if dst.kind == "float" or (src.kind == "float"):
            x = conv(v, src, K.FLOAT if dst.kind != "float" else dst)
            if op == "+":
                return conv(x, K.FLOAT, dst)
            return conv(apply_uf(f"f{op}", [x], FLOAT_SORT), K.FLOAT, dst)  # type: ignore[list-item]
        ct = dst if dst.kind == "int" else promote(src)
        x = conv(v, src, ct)
        if not isinstance(x, z3.BitVecRef):
            return fresh(dst, "unary")
        if op == "-":
            if ct.signed:
                self.assume_no_overflow(pred, op, x)
            r: z3.ExprRef = -x
        elif op == "~":
            r = ~x
        elif op == "+":
            r = x
        else:
            raise Unsupported(f"unary operator {op}")
        return conv(r, ct, dst)

    def ev_Binary(self, e: K.Binary, t: int, pred: z3.BoolRef) -> Val:
        op = e.op
        if op in ("&&", "||"):
            a = to_bool(self.ev(e.left, t, pred))
            rp = mk_and(pred, a) if op == "&&" else mk_and(pred, mk_not(a))
            b = to_bool(self.ev(e.right, t, rp))
            r = mk_and(a, b) if op == "&&" else mk_or(a, b)
            return conv(r, K.BOOL, e.type)
        lt, rt = e.left.type, e.right.type
        a = self.ev(e.left, t, pred)
        b = self.ev(e.right, t, pred)
        if op == ",":
            return b
        if isinstance(a, dict) or isinstance(b, dict):
            da = a if isinstance(a, dict) else None
            db = b if isinstance(b, dict) else None
            keys = list((da or db or {}).keys())
            out = {}
            for k in keys:
                out[k] = self._binary_scalar(op, da[k] if da else a, db[k] if db else b,
                                             vec_elem(lt) if da else lt,
                                             vec_elem(rt) if db else rt,
                                             vec_elem(e.type) if e.type.kind == "vec" else e.type,
                                             pred)
            if op in ("<", "<=", ">", ">=", "==", "!="):
                return fresh(e.type, "veccmp")
            return out
        r = self._binary_scalar(op, a, b, lt, rt, e.type, pred, (id(e), t))
        if op == "+":
            self.row_major_lemma(e, t, a, b, r)
        return r

    def _binary_scalar(self, op: str, a: Val, b: Val, lt: CType, rt: CType, dst: CType,
                       pred: z3.BoolRef, node: tuple[int, int] | None = None) -> Val:
        cmp = op in ("<", "<=", ">", ">=", "==", "!=")
        if op in ("<<", ">>"):
            # shift counts as kpl.ctypes.shift: the count's bit pattern in the promoted left
            # type's width, clamped (a count >= the width shifts every bit out); z3's
            # bvshl/bvashr/bvlshr clamp in exactly this way
            ct = binary_type(op, lt, rt)
            if ct.kind != "int":
                return fresh(dst, "shift")
            x = conv(a, lt, ct)
            y = conv(b, rt, K.CType("int", ct.bits, False))
            assert isinstance(x, z3.BitVecRef) and isinstance(y, z3.BitVecRef)
            if op == "<<":
                r: z3.ExprRef = x << y
            else:
                r = (x >> y) if ct.signed else z3.LShR(x, y)
            return conv(r, ct, dst)
        ct = common_type(lt, rt)
        if ct.kind == "float":
            x = conv(a, lt, ct)
            y = conv(b, rt, ct)
            if cmp:
                return conv(apply_uf(f"f{op}", [x, y], z3.BoolSort()),  # type: ignore[list-item]
                            K.BOOL, dst)
            return conv(apply_uf(f"f{op}", [x, y], FLOAT_SORT), ct, dst)  # type: ignore[list-item]
        if ct.kind == "ptr":
            x = conv(a, lt, ct)
            y = conv(b, rt, ct) if rt.kind == "ptr" else b
            if op == "==" and rt.kind == "ptr":
                return conv(x == y, K.BOOL, dst)
            if op == "!=" and rt.kind == "ptr":
                return conv(x != y, K.BOOL, dst)
            ret = z3.BoolSort() if cmp else z3_sort(dst)
            return conv(apply_uf(f"p{op}", [x, y], ret), K.BOOL if cmp else dst,  # type: ignore[list-item,arg-type]
                        dst)
        if ct.kind != "int":
            return fresh(dst, "binop")
        x = conv(a, lt, ct)
        y = conv(b, rt, ct)
        if not (isinstance(x, z3.BitVecRef) and isinstance(y, z3.BitVecRef)):
            return fresh(dst, "binop")
        s = ct.signed
        if cmp:
            if op == "==":
                c: z3.BoolRef = x == y
            elif op == "!=":
                c = x != y
            elif op == "<":
                c = x < y if s else z3.ULT(x, y)
            elif op == "<=":
                c = x <= y if s else z3.ULE(x, y)
            elif op == ">":
                c = x > y if s else z3.UGT(x, y)
            else:
                c = x >= y if s else z3.UGE(x, y)
            r = simp(c)
            if not (is_true(r) or is_false(r)) and (_ite_near_top(x) or _ite_near_top(y)):
                # z3's simplifier pushes a comparison into a chain of conditionals, a new term
                # as deep as the chain for each comparison, shared with nothing: an index that
                # rotates (``i++; if (i == N) i = 0;``) unrolled 40 times made its queries 28 s
                # instead of 0.3 s (issue 35).  Kept as written unless it folds to a constant.
                r = c
            return conv(r, K.BOOL, dst)
        held = None
        if s:
            held = self.assume_no_overflow(pred, op, x, y)
            if op == "*" and node is not None:
                self.product_lemmas(node, x, y)
        if op == "+":
            r = x + y
        elif op == "-":
            r = x - y
        elif op == "*":
            r = x * y
        elif op == "/":
            r = x / y if s else z3.UDiv(x, y)
        elif op == "%":
            r = z3.SRem(x, y) if s else z3.URem(x, y)
        elif op == "&":
            r = x & y
        elif op == "|":
            r = x | y
        elif op == "^":
            r = x ^ y
        else:
            raise Unsupported(f"binary operator {op}")
        out = conv(simp(r), ct, dst)
        if held is not None and ct == dst and isinstance(out, z3.BitVecRef):
            self.note_held(out, held)  # a sum/product of held reads: its facts are held too
        return out

    # ------------------------------------------------------------------ calls

    def ev_Call(self, e: K.Call, t: int, pred: z3.BoolRef) -> Val:
        name = e.name
        args = [self.ev(a, t, pred) for a in e.args]
        if name.startswith("__syncthreads"):
            raise Unsupported(f"barrier intrinsic {name}")
        if name.startswith(IMPURE_PREFIXES):
            return fresh(e.type, f"call.{name}")
        types = [a.type for a in e.args]
        if e.type.kind == "int" and args:
            ct = e.type
            xs = [conv(a, ty, ct) for a, ty in zip(args, types, strict=False)]
            if all(isinstance(x, z3.BitVecRef) for x in xs):
                if name in ("min", "max", "umin", "umax", "llmin", "llmax", "ullmin", "ullmax",
                            "imin", "imax") and len(xs) == 2:
                    x, y = xs
                    lt = (x < y) if ct.signed else z3.ULT(x, y)  # type: ignore[operator]
                    return simp(z3.If(lt, x, y) if "min" in name else z3.If(lt, y, x))
                if name in ("abs", "llabs", "labs") and len(xs) == 1:
                    x = xs[0]
                    return simp(z3.If(x < 0, -x, x))  # type: ignore[operator]
            if name in ("__mul24", "__umul24") and len(args) == 2:
                a0 = conv(args[0], types[0], K.INT)
                a1 = conv(args[1], types[1], K.INT)
                if isinstance(a0, z3.BitVecRef) and isinstance(a1, z3.BitVecRef):
                    sgn = name == "__mul24"
                    lo0 = resize(z3.Extract(23, 0, a0), sgn, 32)
                    lo1 = resize(z3.Extract(23, 0, a1), sgn, 32)
                    return conv(simp(lo0 * lo1), K.INT, e.type)
        flat: list[z3.ExprRef] = []
        for a in args:
            if isinstance(a, dict):
                flat.extend(x for x in a.values() if isinstance(x, z3.ExprRef))
            elif isinstance(a, z3.ExprRef):
                flat.append(a)
        if e.type.kind == "vec":
            s = z3_sort(vec_elem(e.type))
            return {f: apply_uf(f"call.{name}.{f}", flat, s) for f in vec_fields(e.type)}
        s = sort_of(e.type)
        if s is None:
            return None
        return apply_uf(f"call.{name}", flat, s)

    # ------------------------------------------------------------------ statements


def _ite_near_top(e: z3.ExprRef) -> bool:
    """``e`` is a conditional, or an operation on one (``1 + ite(c, 0, i)``)."""
    return z3.is_app_of(e, z3.Z3_OP_ITE) or (
        z3.is_app(e) and 0 < e.num_args() <= 3 and any(z3.is_app_of(a, z3.Z3_OP_ITE) for a in e.children()))
