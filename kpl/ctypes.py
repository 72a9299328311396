"""C value semantics shared by the front end and every interpreter (one definition).

Three parts of AutoSync compute with C values: the front end types every expression
(:mod:`kpl.frontend`), the symbolic verifier encodes it in bit-vectors (``oracle.sdv``) and
the concrete checkers run it (``oracle.dynamic``, the named-barrier emulator).  When each of
them carried its own conversion rules they disagreed (``float4 * float`` was ``float`` in the
front end and ``float4`` in the oracles; a shift by 40 gave different answers in ``dynamic``
and ``sdv``), and an oracle that disagrees with the front end about a value can disagree about
an index -- a race found or missed for the wrong reason.  This module is the single place that
says what a C operator does to types and values.

Type rules (C11 6.3.1): :func:`promote` (integer promotion), :func:`common_type` (the usual
arithmetic conversions, extended to CUDA vector types, where a vector operand makes the
result a vector: ``float4 * float`` is ``float4``) and :func:`binary_type` / :func:`unary_type`
(the result type of an operator).

Concrete values (used by the concrete interpreters; the symbolic encoding follows the same
rules with z3 bit-vectors): :func:`convert` (wrap to width and signedness, round to single
precision, normalise ``bool``), :func:`arith` (one binary operator in a given type) and
:func:`int_div` (C division truncates toward zero).

Shift counts.  C leaves ``x << n`` undefined for ``n`` outside ``[0, width)``; the GPU does
not: nvcc emits PTX ``shl``/``shr``, which *clamp* the count, so a count at or above the width
shifts every bit out (``0``, or all sign bits for a signed ``>>``).  That is also SMT-LIB's
``bvshl``/``bvlshr``/``bvashr``, so :func:`shift` and the symbolic encoding agree by
construction.  A negative count is read as its unsigned bit pattern (a huge count).

Why one piece over 400 lines: this is the one definition of C's integer and float
semantics (conversion, promotion, wrap, shifts, division, signed overflow) that both concrete
interpreters and the tests share; split, two halves would have to agree on every rule.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable
from typing import Any

from kpl.ast import DOUBLE, FLOAT, INT, LONG, CType

__all__ = [
    "COMPARISONS", "LOGICAL", "SHIFTS", "alignof", "arith", "leaf_paths", "member", "sizeof", "binary_type", "common_type", "convert",
    "f32", "int_div", "invalid_operands", "INTEGER_ONLY", "promote", "shift", "converted_sum_overflows", "signed_overflows", "to_int", "unary_type", "wrap_int",
]

#: operators whose result is ``int`` 0/1 whatever the operand types
COMPARISONS = frozenset({"<", "<=", ">", ">=", "==", "!="})
LOGICAL = frozenset({"&&", "||"})
#: operators whose result type is the promoted LEFT operand's (C11 6.5.7)
SHIFTS = frozenset({"<<", ">>"})
#: operators defined on integer operands only (C11 6.5.5p2, 6.5.7p2, 6.5.10-12, 6.5.3.3p1)
INTEGER_ONLY = frozenset({"%", "&", "|", "^", "<<", ">>", "~"})


# --------------------------------------------------------------------------- type rules


def promote(t: CType) -> CType:
    """Integer promotion (C11 6.3.1.1): ``bool`` and integers narrower than ``int`` become
    ``int``; everything else is unchanged (a pointer stays a pointer)."""
    if t.kind == "bool" or (t.kind == "int" and t.bits < 32):
        return INT
    return t


def common_type(a: CType, b: CType) -> CType:
    """The usual arithmetic conversions (C11 6.3.1.8) on two operand types.

    Extended as CUDA's vector operators are: a vector operand makes the result that vector
    type (``float4 * float`` → ``float4``); pointer arithmetic keeps the pointer type.
    """
    if a.kind == "vec":
        return a
    if b.kind == "vec":
        return b
    if a.kind == "ptr":
        return a
    if b.kind == "ptr":
        return b
    if a.kind == "float" or b.kind == "float":
        bits = max(t.bits for t in (a, b) if t.kind == "float")
        return DOUBLE if bits == 64 else FLOAT
    a, b = promote(a), promote(b)
    if a.kind != "int" or b.kind != "int":  # void / unknown operands: model as int
        return INT if a.kind != "int" else a
    if a.signed == b.signed:
        return a if a.bits >= b.bits else b
    uns, sig = (a, b) if not a.signed else (b, a)
    if uns.bits >= sig.bits:
        return uns
    # the signed type is wider and can hold every value of the unsigned one (C11 6.3.1.8)
    return sig


def binary_type(op: str, a: CType, b: CType) -> CType:
    """The type of ``a op b``: ``int`` for comparisons and ``&&``/``||`` (a vector
    comparison gives a vector, as CUDA's helper operators do), the promoted left operand for
    shifts, the common type otherwise."""
    if op in LOGICAL:
        return INT
    if op in COMPARISONS:
        return a if a.kind == "vec" else (b if b.kind == "vec" else INT)
    if op in SHIFTS:
        return promote(a)
    return common_type(a, b)


def invalid_operands(op: str, *operands: CType) -> str | None:
    """Why ``op`` cannot take these operands (a floating operand of ``%``, ``&``, ``|``, ``^``,
    a shift or ``~``), or ``None``.  nvcc rejects such a kernel; accepting it would leave the
    interpreters to compute ``int & float``, which C does not define."""
    if op not in INTEGER_ONLY:
        return None
    if any(t.kind == "float" or (t.kind == "vec" and t.elem is not None and t.elem.kind == "float")
           for t in operands):
        have = " and ".join(f"'{t}'" for t in operands)
        return f"invalid operand{'s' if len(operands) > 1 else ''} to '{op}' (have {have})"
    return None


def unary_type(op: str, t: CType) -> CType:
    """The type of ``op t`` for ``-``, ``+``, ``~`` and ``!``."""
    if op == "!":
        return INT
    return promote(t)


# --------------------------------------------------------------------------- concrete values


def f32(v: float) -> float:
    """Round a Python float to IEEE single precision (overflow goes to ±inf)."""
    try:
        return float(struct.unpack("f", struct.pack("f", v))[0])
    except OverflowError:
        return math.copysign(math.inf, v)


def wrap_int(v: int, bits: int, signed: bool) -> int:
    """``v`` reduced modulo 2**bits, read as signed or unsigned."""
    v &= (1 << bits) - 1
    if signed and v >> (bits - 1):
        v -= 1 << bits
    return v


def to_int(v: Any) -> int:
    """A concrete value as a Python int: floats truncate toward zero (NaN/inf → 0), a
    vector gives its first component, a missing value 0."""
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return 0
        return int(v)
    if isinstance(v, tuple):
        return to_int(v[0]) if v else 0
    if v is None:
        return 0
    return int(v)


def convert(v: Any, t: CType) -> Any:
    """C conversion of ``v`` to type ``t``: integers wrap to their width and signedness,
    ``float`` rounds to single precision, ``bool`` normalises to 0/1, a scalar converted to a
    vector type is broadcast."""
    kind = t.kind
    if kind == "int":
        return wrap_int(to_int(v), t.bits or 32, t.signed)
    if kind == "bool":
        if isinstance(v, tuple):
            v = v[0] if v else 0
        return 1 if v else 0
    if kind == "float":
        if isinstance(v, tuple):
            v = v[0] if v else 0.0
        f = float(v) if v is not None else 0.0
        return f32(f) if t.bits == 32 else f
    if kind == "ptr":
        return wrap_int(to_int(v), 64, True)
    if kind == "vec":
        elem = t.elem or FLOAT
        n = len(t.fields) or 1
        parts = list(v[:n]) + [0] * (n - len(v)) if isinstance(v, tuple) else [v] * n
        return tuple(convert(p, elem) for p in parts)
    return v


def converted_sum_overflows(a: Any, b: Any, src: CType, dst: CType) -> bool:
    """Would the unsigned sum ``a + b`` (type ``src``), converted to the signed type ``dst``
    of the same width, exceed ``dst``'s maximum although each of ``a`` and ``b`` fits in it?
    That is ``int i; i += blockDim.x * gridDim.x`` past INT_MAX: C makes the sum unsigned
    and the conversion implementation-defined (modular in nvcc); AutoSync assumes it does
    not happen, as if the signed sum of the two non-negative values did not overflow
    (``oracle.base.ASSUMPTIONS``; ``oracle.sdv.encode.converted_sum_fits`` is the same rule
    on bit-vectors).  Every other conversion to a signed type keeps the low bits: an operand
    above the maximum (``(blockIdx.y * 8 - 1) * 8 + threadIdx.y``, meant negative) or an
    operator other than ``+`` (``__ffs(~x)``, ``int i = t * s``) is not assumed about."""
    if not (src.kind == "int" and not src.signed and dst.kind == "int" and dst.signed
            and (src.bits or 32) == (dst.bits or 32)) or isinstance(a, tuple) or isinstance(b, tuple):
        return False
    n = src.bits or 32
    x, y = convert(a, src), convert(b, src)
    return x < (1 << (n - 1)) and y < (1 << (n - 1)) and (x + y) >= (1 << (n - 1))


def signed_overflows(op: str, a: Any, b: Any, t: CType) -> bool:
    """Would ``a op b`` (``b`` None: unary ``op a``) overflow in the signed integer type
    ``t``?  Signed overflow is undefined behaviour (C11 6.5p5): the symbolic verifier assumes
    it does not happen and the concrete interpreters treat a run where it happens as no
    defined execution (``oracle.sdv.encode.no_signed_overflow`` is the same rule on
    bit-vectors).  ``+``, ``-``, ``*``, ``/`` (``INT_MIN / -1``) and unary ``-``; unsigned
    types and every other operator never overflow (they wrap or cannot)."""
    if t.kind != "int" or not t.signed or op not in ("+", "-", "*", "/"):
        return False
    if isinstance(a, tuple) or isinstance(b, tuple):
        return False
    bits = t.bits or 32
    ia = wrap_int(to_int(a), bits, True)
    r = (-ia if op == "-" else ia) if b is None else _exact(op, ia, wrap_int(to_int(b), bits, True))
    return not -(1 << (bits - 1)) <= r < (1 << (bits - 1))


_EXACT: dict[str, Callable[[int, int], int]] = {
    "+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
    "/": lambda x, y: int_div(x, y), "%": lambda x, y: x - y * int_div(x, y) if y != 0 else 0,
    "&": lambda x, y: x & y, "|": lambda x, y: x | y, "^": lambda x, y: x ^ y,
}


def _exact(op: str, a: int, b: int) -> int:
    """``a op b`` on unbounded integers, C's truncating division (the one table of integer
    operators for :func:`arith`, which then wraps, and :func:`signed_overflows`)."""
    if op not in _EXACT:
        raise ValueError(f"unknown operator {op!r}")
    return _EXACT[op](a, b)


def int_div(a: int, b: int) -> int:
    """C integer division: truncates toward zero.  Division by zero is undefined in C; the
    concrete interpreters give 0 (the symbolic one leaves the value unconstrained)."""
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def shift(op: str, a: int, count: int, bits: int, signed: bool) -> int:
    """``a << count`` / ``a >> count`` in a ``bits``-wide type, with PTX's clamping of the
    count (module docstring): a count outside ``[0, bits)`` shifts every bit out."""
    count &= (1 << bits) - 1  # the count's bit pattern, as the hardware reads it
    a = wrap_int(a, bits, signed)
    if op == "<<":
        return wrap_int(a << min(count, bits), bits, signed)
    if count >= bits:
        return -1 if (signed and a < 0) else 0
    return a >> count if signed else (a & ((1 << bits) - 1)) >> count


def arith(op: str, a: Any, b: Any, t: CType) -> Any:
    """``a op b`` computed in type ``t`` (operands already converted to ``t``; for a shift,
    ``t`` is the promoted left type).  Vectors are computed component-wise."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        at = a if isinstance(a, tuple) else (a,) * len(b)
        bt = b if isinstance(b, tuple) else (b,) * len(a)
        elem = t.elem if t.kind == "vec" and t.elem is not None else FLOAT
        return tuple(arith(op, x, y, elem) for x, y in zip(at, bt, strict=False))
    if t.kind == "float":
        return _float_arith(op, float(a), float(b), t)
    ia, ib = int(a), int(b)
    bits = t.bits or 32
    if op in SHIFTS:
        return shift(op, ia, ib, bits, t.signed)
    r = _exact(op, ia, ib)
    return wrap_int(r, bits, t.signed)


def _float_arith(op: str, fa: float, fb: float, t: CType) -> float:
    try:
        if op == "+":
            r = fa + fb
        elif op == "-":
            r = fa - fb
        elif op == "*":
            r = fa * fb
        elif op == "/":
            if fb == 0.0:
                r = math.nan if fa == 0.0 or math.isnan(fa) else (
                    math.copysign(math.inf, fa) * math.copysign(1.0, fb))
            else:
                r = fa / fb
        elif op == "%":
            r = math.fmod(fa, fb) if fb != 0.0 else math.nan
        else:  # bit operators on floats do not type-check in C; keep the old behaviour
            r = float(arith(op, to_int(fa), to_int(fb), LONG))
    except (OverflowError, ValueError):
        r = math.nan
    return convert(r, t)  # type: ignore[no-any-return]



#: names of CUDA's vector types (a user struct named ``Point2`` is not one of them)
_CUDA_VECTOR = re.compile(r"(u?char|u?short|u?int|u?long|u?longlong|float|double)[1-4]")
#: OpenCL C's 8- and 16-component vectors: their size and alignment are the components' total
_WIDE_VECTOR = re.compile(r"(u?char|u?short|u?int|u?long|float|double)(8|16)")


def sizeof(t: CType) -> int | None:
    """``sizeof(t)`` in bytes under the CUDA ABI, or None where the layout is not modelled.
    Used by the byte-range memory model: a pointer cast rescales later indexing by the new
    pointee's size, and a struct member is the bytes at its offset (:func:`member`)."""
    if t.parts:
        ends = [off + (sizeof(m) or 0) for off, m in _offsets(t)]
        if any(sizeof(m) is None for _, m in t.parts):
            return None
        size = max(ends, default=0)
        align = alignof(t) or 1
        return max(align, -(-size // align) * align)
    if t.kind == "bool":
        return 1
    if t.kind in ("int", "float"):
        return max(1, t.bits // 8)
    if t.kind == "ptr":
        return 8
    if t.kind == "vec" and t.elem is not None and (_CUDA_VECTOR.fullmatch(t.name)
                                                   or _WIDE_VECTOR.fullmatch(t.name)):
        comp = sizeof(t.elem)
        return None if comp is None else comp * len(t.fields)
    return None


def alignof(t: CType) -> int | None:
    """The alignment of ``t`` under the CUDA ABI: a scalar its size; a CUDA vector of 2 or 4
    components their total size (at most 16), of 3 its component's; a struct the largest of
    its members' and its ``__align__``."""
    if t.parts:
        aligns = [alignof(m) for _, m in t.parts]
        if any(a is None for a in aligns):
            return None
        return max([t.align] + [a for a in aligns if a is not None] + [1])
    size = sizeof(t)
    if size is None:
        return None
    if t.kind == "vec" and t.elem is not None:
        comp = sizeof(t.elem) or 1
        n = len(t.fields)
        if n in (8, 16):
            return comp * n
        return min(16, comp * n) if n in (2, 4) else comp
    return size


def _offsets(t: CType) -> list[tuple[int, CType]]:
    """(byte offset, type) of each of ``t.parts``: a union's all at 0, a struct's in order,
    each rounded up to its alignment (C11 6.7.2.1)."""
    out: list[tuple[int, CType]] = []
    off = 0
    for _, m in t.parts:
        if t.union:
            out.append((0, m))
            continue
        a = alignof(m) or 1
        off = -(-off // a) * a
        out.append((off, m))
        off += sizeof(m) or 0
    return out


def _members(t: CType) -> list[tuple[str, int, CType]]:
    """(name, offset, type) of the members of struct ``t``; an anonymous member (a base
    class, an anonymous struct/union) contributes its own members, shifted."""
    out: list[tuple[str, int, CType]] = []
    for (name, m), (off, _) in zip(t.parts, _offsets(t), strict=True):
        if name:
            out.append((name, off, m))
        else:
            out.extend((n, off + o, mt) for n, o, mt in _members(m))
    return out


def member(t: CType, path: str) -> tuple[int, CType] | None:
    """Byte offset and type of member ``path`` (``clamp.lo``; a vector component ``pos.x``)
    of struct ``t``; None if it has none."""
    off = 0
    cur = t
    for name in path.split("."):
        if cur.parts:
            hit = next(((o, m) for n, o, m in _members(cur) if n == name), None)
            if hit is None:
                return None
            off, cur = off + hit[0], hit[1]
        elif cur.kind == "vec" and cur.elem is not None and name in cur.fields:
            off += cur.fields.index(name) * (sizeof(cur.elem) or 0)
            cur = cur.elem
        else:
            return None
    return off, cur


def leaf_paths(parts: tuple[tuple[str, CType], ...]) -> tuple[str, ...]:
    """The scalar leaves of a struct with members ``parts``, as dotted paths: the components
    of a struct value (``pos.x``, ``pos.y``, ``mass``)."""
    out: list[str] = []
    for name, m in parts:
        prefix = f"{name}." if name else ""
        if m.parts:
            out.extend(prefix + p for p in leaf_paths(m.parts))
        elif m.kind == "vec":
            out.extend(prefix + f for f in m.fields)
        else:
            out.append(name)
    return tuple(out)
