"""Value encoding for the SDV verifier: C values of KPL types as z3 terms.

Integers are bit-vectors of their declared width; the signedness lives in the KPL
:class:`~kpl.ast.CType` and selects the operation (``bvsdiv`` vs ``bvudiv``, arithmetic vs
logical ``>>``, signed vs unsigned comparison), so index arithmetic is exact, including
unsigned wrap-around (issue 3, item 2: "exact `>>`, `/`, `%`").

Signed overflow is undefined behaviour (C11 6.5p5, C++ [expr.pre]p4): ``+``, ``-``, ``*``, ``/``
and unary ``-`` in a signed type have no defined result when the exact one does not fit, so
an execution that overflows is no execution of the program, and a race that needs one is no
race.  :func:`no_signed_overflow` is the condition that the operation is defined; the
expression stage assumes it on the path that evaluates the operation (as ``__assume``),
which is what lets ``int i = t * s`` with ``s > 0`` give distinct threads distinct indices.
A conversion to a signed type of a value that does not fit is implementation-defined in C
(modular in C++20 and nvcc) and keeps the low bits, with one stated assumption: an unsigned
sum of two values that each fit in the signed type is assumed to fit as well when converted
to it (:func:`converted_sum_fits`), so ``int i; i += blockDim.x * gridDim.x`` stays in range.
Unsigned arithmetic wraps (defined) and is not assumed away, so a race that needs unsigned
wrap-around is still found, also when the wrapped value is converted to ``int`` in range.
Which type an operation
is done in (promotion, the usual arithmetic conversions, shift counts) is decided by
:mod:`kpl.ctypes`, the one definition shared with the front end and the concrete oracles.

Floats are *uninterpreted*: a float is a term of the uninterpreted sort ``Float`` and every
float operation, comparison and conversion is an uninterpreted function.  This is sound for
race checking -- a float never decides anything the verifier relies on except through an
unconstrained value -- while keeping determinism: the same operation on the same arguments
gives the same value in both threads, so a float loop counter that is uniform stays uniform
(GPUVerify also models floating point with uninterpreted functions, [WarpsAtomics] Sec. 5).

Vector values (``float4``) are dicts from component name to value.

Why one piece over 400 lines: the encoding of every C value and operation as z3 terms, the
no-overflow conditions next to the operations they guard; the other layers build on it.
"""

from __future__ import annotations

from typing import Any, TypeAlias

import z3
import z3.z3core as _C

from kpl.ast import BOOL, FLOAT, LONG, CType

FLOAT_SORT = z3.DeclareSort("Float")
PTR_SORT = z3.DeclareSort("Ptr")

Val: TypeAlias = "z3.ExprRef | dict[str, Any] | None"

_FUNCS: dict[tuple[str, tuple[str, ...], str], z3.FuncDeclRef] = {}
#: the same functions keyed by the z3 ids of the argument and result sorts: printing a sort
#: (the key of ``_FUNCS``) costs more than the whole application, and ``apply_uf`` is the
#: hottest constructor of float-heavy kernels.  Sort ids are stable because every sort in a
#: key is kept alive by the function declaration stored with it.
_FUNCS_BY_ID: dict[tuple[str, tuple[int, ...], int], z3.FuncDeclRef] = {}
_FCONST: dict[str, z3.ExprRef] = {}


def _sort_id(e: z3.ExprRef) -> int:
    """The ast id of the sort of ``e`` without building a Python ``SortRef`` (hot path)."""
    ctx = e.ctx_ref()
    return _C.Z3_get_ast_id(ctx, _C.Z3_sort_to_ast(ctx, _C.Z3_get_sort(ctx, e.as_ast())))


def bv_size(v: z3.BitVecRef) -> int:
    """``v.size()`` without building a Python ``SortRef`` (hot path of ``resize``)."""
    ctx = v.ctx_ref()
    return int(_C.Z3_get_bv_sort_size(ctx, _C.Z3_get_sort(ctx, v.as_ast())))


_TRUE = z3.BoolVal(True)
_FALSE = z3.BoolVal(False)


def is_true(x: object) -> bool:
    """``z3.is_true(x)``: the constant ``true`` is hash-consed, so one pointer comparison in
    z3 decides it (``z3.is_true`` builds a ``FuncDeclRef`` per call; it is called on every
    predicate the executor combines)."""
    return isinstance(x, z3.ExprRef) and x.ctx is _TRUE.ctx and bool(
        _C.Z3_is_eq_ast(x.ctx.ref(), x.as_ast(), _TRUE.as_ast()))


def is_false(x: object) -> bool:
    """``z3.is_false(x)``, see :func:`is_true`."""
    return isinstance(x, z3.ExprRef) and x.ctx is _FALSE.ctx and bool(
        _C.Z3_is_eq_ast(x.ctx.ref(), x.as_ast(), _FALSE.as_ast()))


def same_sort(a: z3.ExprRef, b: z3.ExprRef) -> bool:
    """``a.sort() == b.sort()`` (sorts are hash-consed: equal sorts have equal ids)."""
    return _sort_id(a) == _sort_id(b)


def sort_of(ct: CType) -> z3.SortRef | None:
    """The z3 sort of a scalar KPL type (None for vectors and void)."""
    if ct.kind == "int":
        return z3.BitVecSort(ct.bits or 32)
    if ct.kind == "bool":
        return z3.BoolSort()
    if ct.kind == "float":
        return FLOAT_SORT
    if ct.kind == "ptr":
        return PTR_SORT
    return None


def z3_sort(ct: CType) -> z3.SortRef:
    """The z3 sort of a scalar type (32-bit bit-vectors where there is none)."""
    s = sort_of(ct)
    return s if s is not None else z3.BitVecSort(32)


def vec_fields(ct: CType) -> tuple[str, ...]:
    return ct.fields or ("x", "y", "z", "w")


def vec_elem(ct: CType) -> CType:
    return ct.elem if ct.elem is not None else FLOAT


def func(name: str, args: list[z3.SortRef], ret: z3.SortRef) -> z3.FuncDeclRef:
    """An uninterpreted function, shared by signature so equal calls give equal values."""
    key = (name, tuple(str(a) for a in args), str(ret))
    f = _FUNCS.get(key)
    if f is None:
        f = z3.Function(f"{name}|{len(_FUNCS)}", *args, ret)
        _FUNCS[key] = f
    return f


def apply_uf(name: str, args: list[z3.ExprRef], ret: z3.SortRef) -> z3.ExprRef:
    if not args:
        return z3.Const(f"{name}|0", ret)
    key = (name, tuple(_sort_id(a) for a in args), ret.get_id())
    f = _FUNCS_BY_ID.get(key)
    if f is None:
        f = func(name, [a.sort() for a in args], ret)
        _FUNCS_BY_ID[key] = f
    return f(*args)


def fconst(value: float) -> z3.ExprRef:
    key = repr(float(value))
    c = _FCONST.get(key)
    if c is None:
        c = z3.Const(f"float[{key}]", FLOAT_SORT)
        _FCONST[key] = c
    return c


_INT_CONST: dict[int, tuple[z3.ExprRef, int | None]] = {}


def int_const(e: z3.ExprRef) -> int | None:
    """The value of an integer numeral (an epoch, an iteration number), None for any other
    term.  Cached by z3 id (the term is kept, so its id stays its own): asked per logged
    access and per race side, where ``z3.is_int_value`` cost a fifth of a long kernel's
    check."""
    key = e.get_id()
    hit = _INT_CONST.get(key)
    if hit is not None:
        return hit[1]
    value = e.as_long() if z3.is_int_value(e) else None  # type: ignore[attr-defined]
    if len(_INT_CONST) > 100_000:
        _INT_CONST.clear()
    _INT_CONST[key] = (e, value)
    return value


def is_bv(v: object) -> bool:
    return isinstance(v, z3.BitVecRef)


def is_boolv(v: object) -> bool:
    return isinstance(v, z3.BoolRef)


def resize(v: z3.BitVecRef, signed: bool, bits: int) -> z3.BitVecRef:
    n = bv_size(v)
    if n == bits:
        return v
    if n < bits:
        return z3.SignExt(bits - n, v) if signed else z3.ZeroExt(bits - n, v)
    return z3.Extract(bits - 1, 0, v)


def to_bool(v: Val) -> z3.BoolRef:
    """C truth value of ``v``."""
    if isinstance(v, z3.BoolRef):
        return v
    if isinstance(v, z3.BitVecRef):
        # undo the bool->int conversion of comparisons: If(c, 1, 0) != 0  ==  c
        c = _bool_of_ite(v)
        if c is not None:
            return c
        n = bv_size(v)
        zero = _ZERO.get(n)
        if zero is None:
            zero = _ZERO[n] = z3.BitVecVal(0, n)
        return v != zero
    if isinstance(v, dict):
        return z3.BoolVal(True)
    if v is None:
        return z3.BoolVal(True)
    return apply_uf("nonzero", [v], z3.BoolSort())  # type: ignore[return-value]


_ZERO: dict[int, z3.BitVecRef] = {}


def _bool_of_ite(v: z3.BitVecRef) -> z3.BoolRef | None:
    """``c`` when ``v`` is ``If(c, 1, 0)`` (a comparison converted to int), else None;
    through the C API (hot path: every loop and ``if`` condition)."""
    ctx = v.ctx_ref()
    a = v.as_ast()
    if not (_C.Z3_get_ast_kind(ctx, a) == z3.Z3_APP_AST
            and _C.Z3_get_decl_kind(ctx, _C.Z3_get_app_decl(ctx, a)) == z3.Z3_OP_ITE):
        return None
    one, zero = _C.Z3_get_app_arg(ctx, a, 1), _C.Z3_get_app_arg(ctx, a, 2)
    if not (_C.Z3_get_ast_kind(ctx, one) == z3.Z3_NUMERAL_AST
            and _C.Z3_get_ast_kind(ctx, zero) == z3.Z3_NUMERAL_AST
            and _C.Z3_get_numeral_string(ctx, one) == "1"
            and _C.Z3_get_numeral_string(ctx, zero) == "0"):
        return None
    return z3.BoolRef(_C.Z3_get_app_arg(ctx, a, 0), v.ctx)


def conv(v: Val, src: CType, dst: CType) -> Val:
    """Convert value ``v`` of type ``src`` to type ``dst`` (C casts, implicit conversions)."""
    if v is None or dst.kind == "void":
        return v
    if dst.kind == "vec":
        if isinstance(v, dict):
            elem = vec_elem(dst)
            sel = vec_elem(src) if src.kind == "vec" else elem
            return {f: conv(v.get(f, v.get(next(iter(v)))) if v else None, sel, elem)
                    for f in vec_fields(dst)}
        # a scalar broadcast (rare: make_float4(s) spelled as a cast)
        return {f: conv(v, src, vec_elem(dst)) for f in vec_fields(dst)}
    if isinstance(v, dict):
        # vector to scalar: take the first component (only reached on odd front-end typing)
        first = next(iter(v.values()), None)
        return conv(first, vec_elem(src) if src.kind == "vec" else FLOAT, dst)
    if dst.kind == "bool":
        return to_bool(v)
    if dst.kind == "int":
        bits = dst.bits or 32
        if isinstance(v, z3.BoolRef):
            return z3.If(v, z3.BitVecVal(1, bits), z3.BitVecVal(0, bits))
        if isinstance(v, z3.BitVecRef):
            signed = src.signed if src.kind == "int" else True
            return resize(v, signed, bits)
        if v.sort() == FLOAT_SORT:
            return apply_uf(f"f2i{bits}{'s' if dst.signed else 'u'}", [v], z3.BitVecSort(bits))
        return apply_uf(f"p2i{bits}", [v], z3.BitVecSort(bits))
    if dst.kind == "float":
        if isinstance(v, z3.BoolRef):
            return z3.If(v, fconst(1.0), fconst(0.0))
        if isinstance(v, z3.BitVecRef):
            signed = src.signed if src.kind == "int" else True
            return apply_uf(f"i2f{'s' if signed else 'u'}", [v], FLOAT_SORT)
        if v.sort() == FLOAT_SORT:
            return v
        return apply_uf("p2f", [v], FLOAT_SORT)
    if dst.kind == "ptr":
        if isinstance(v, z3.ExprRef) and v.sort() == PTR_SORT:
            return v
        return apply_uf("to_ptr", [v], PTR_SORT)  # type: ignore[list-item]
    return v


def ite(c: z3.BoolRef, a: Val, b: Val) -> Val:
    """``c ? a : b`` on values, component-wise for vectors."""
    if is_true(c):
        return a
    if is_false(c):
        return b
    if isinstance(a, dict) or isinstance(b, dict):
        da = a if isinstance(a, dict) else {}
        db = b if isinstance(b, dict) else {}
        keys = list(da) or list(db)
        return {k: ite(c, da.get(k, db.get(k)), db.get(k, da.get(k))) for k in keys}
    if a is None or b is None:
        return a if b is None else b
    if a.eq(b):
        return a
    if not same_sort(a, b):  # defensive: odd front-end typing; keep the new value
        return a
    return z3.If(c, a, b)


def values_equal(a: Val, b: Val) -> z3.BoolRef:
    """Equality of two values of one variable (component-wise for vectors)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return z3.And([values_equal(a[k], b[k]) for k in a if k in b])
    if a is None or b is None or isinstance(a, dict) or isinstance(b, dict):
        return z3.BoolVal(True)
    if not same_sort(a, b):
        return z3.BoolVal(True)
    return a == b


def fresh(ct: CType, name: str) -> Val:
    """A fresh unconstrained value of type ``ct``."""
    if ct.kind == "vec":
        return {f: fresh(vec_elem(ct), f"{name}.{f}") for f in vec_fields(ct)}
    s = sort_of(ct)
    if s is None:
        return None
    return z3.FreshConst(s, name)


#: the literal every no-overflow fact is conditioned on (``DEFINED ⇒ fact``) and every query
#: assumes (:meth:`oracle.sdv.state.QueryEngine.check`): asking without it tells whether the
#: run's paths are feasible only through an overflow -- then no execution is defined, and
#: the verifier says so instead of proving the kernel vacuously
DEFINED = z3.Bool("no-signed-overflow")


def no_signed_overflow(op: str, x: z3.BitVecRef, y: z3.BitVecRef | None = None) -> z3.BoolRef | None:
    """The condition under which the signed operation ``x op y`` (``y`` None: unary ``op x``)
    has a defined result -- the exact result fits in the operands' width -- or None for an
    operation that cannot overflow (``%``, bitwise operators).  ``INT_MIN / -1`` and
    ``-INT_MIN`` overflow; shifts are not covered (nvcc clamps their counts, see
    :mod:`kpl.ctypes`)."""
    if y is None:
        return z3.BVSNegNoOverflow(x) if op == "-" else None
    if z3.is_bv_value(x) and z3.is_bv_value(y):  # two constants: decided here, no term
        return z3.BoolVal(fits_exact(op, x.as_signed_long(), y.as_signed_long(),  # type: ignore[attr-defined]
                                     bv_size(x)))
    if op in ("+", "*") and z3.is_bv_value(x):
        x, y = y, x
    if op in ("+", "-", "*") and z3.is_bv_value(y):
        return _fits_with_constant(op, x, y.as_signed_long())  # type: ignore[attr-defined]
    if op == "+":
        return z3.And(z3.BVAddNoOverflow(x, y, True), z3.BVAddNoUnderflow(x, y))
    if op == "-":
        return z3.And(z3.BVSubNoOverflow(x, y), z3.BVSubNoUnderflow(x, y, True))
    if op == "*":
        return z3.And(z3.BVMulNoOverflow(x, y, True), z3.BVMulNoUnderflow(x, y))
    if op == "/":
        return z3.BVSDivNoOverflow(x, y)
    return None


def fits_exact(op: str, a: int, b: int, n: int) -> bool:
    """:func:`no_signed_overflow` of two ``n``-bit constants ``a op b``: the exact result
    fits (a division by 0 is not an overflow)."""
    if op == "/":
        exact = 0 if b == 0 else abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
    else:
        exact = a + b if op == "+" else a - b if op == "-" else a * b if op == "*" else 0
    return -(1 << (n - 1)) <= exact < (1 << (n - 1))


def converted_sum_fits(x: z3.BitVecRef, y: z3.BitVecRef, src: CType, dst: CType) -> z3.BoolRef | None:
    """The condition that the unsigned sum ``x + y`` of type ``src``, converted to the signed
    type ``dst`` of the same width, fits when ``x`` and ``y`` each do (``int i; i +=
    blockDim.x * gridDim.x``), or None where no such assumption is made.  Assumed, like no
    signed overflow (``oracle.base.ASSUMPTIONS``); the same rule as
    :func:`kpl.ctypes.converted_sum_overflows` on concrete values."""
    n = bv_size(x)
    if not (src.kind == "int" and not src.signed and dst.kind == "int" and dst.signed
            and n == (dst.bits or 32) and bv_size(y) == n):
        return None

    def fits(v: z3.BitVecRef) -> z3.BoolRef:
        return z3.Extract(n - 1, n - 1, v) == 0  # type: ignore[no-any-return]
    if z3.is_bv_value(x) and not z3.is_bv_value(y):
        x, y = y, x
    if z3.is_bv_value(y) and not z3.is_bv_value(x):  # a constant step: a range of x (cheap)
        half, k = 1 << (n - 1), y.as_long()  # type: ignore[attr-defined]
        if k >= half:
            return None
        return z3.Or(z3.UGE(x, half), z3.ULE(x, half - 1 - k))
    c = z3.Implies(z3.And(fits(x), fits(y)), fits(x + y))
    return z3.simplify(c) if z3.is_bv_value(x) and z3.is_bv_value(y) else c  # type: ignore[return-value]


def _fits_with_constant(op: str, x: z3.BitVecRef, c: int) -> z3.BoolRef:
    """:func:`no_signed_overflow` of ``x op c`` for a constant ``c``, as a range of ``x``: two
    comparisons instead of the double-width multiplier z3 builds for ``BVMulNoOverflow``
    (``row * 16``, ``i + 1``: most signed index arithmetic has a constant operand, and the
    general condition made every query of a matrix kernel slower)."""
    half = 1 << (bv_size(x) - 1)     # |MIN|; MAX = half - 1
    if op == "-":
        op, c = "+", -c
    if op == "+":
        lo, hi = max(-half, -half - c), min(half - 1, half - 1 - c)
    elif c == 0:
        return z3.BoolVal(True)
    elif c > 0:
        lo, hi = -(half // c), (half - 1) // c
    else:
        lo, hi = -((half - 1) // -c), half // -c
    if lo > hi:
        return z3.BoolVal(False)
    parts = ([x >= lo] if lo > -half else []) + ([x <= hi] if hi < half - 1 else [])
    return z3.And(parts) if len(parts) > 1 else (parts[0] if parts else z3.BoolVal(True))


def index64(v: Val, ct: CType) -> z3.BitVecRef:
    """An array index as a 64-bit bit-vector (sign- or zero-extended per its C type)."""
    if isinstance(v, z3.BitVecRef):
        return resize(v, ct.signed if ct.kind == "int" else True, 64)
    c = conv(v, ct, LONG)
    assert isinstance(c, z3.BitVecRef)
    return c


__all__ = ["BOOL", "DEFINED", "FLOAT_SORT", "PTR_SORT", "Val", "apply_uf", "bv_size", "conv", "fconst",
           "converted_sum_fits", "fits_exact", "fresh", "index64", "is_boolv", "is_bv", "is_false", "is_true", "ite", "no_signed_overflow",
           "resize", "same_sort", "sort_of", "to_bool", "values_equal"]
