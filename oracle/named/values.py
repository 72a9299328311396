"""Values of the named-barrier emulator: concrete where known, :class:`RT` where not.

The emulator (:mod:`oracle.named.emulate`) knows thread ids and launch sizes but not the
kernel's data; an unknown value is :class:`RT`, which absorbs arithmetic and refuses to be
branched on.  The operators below are the C operators of :mod:`kpl.ctypes` (one definition:
division toward zero, unsigned wrap, the shift-count rule) lifted to let :class:`RT` through.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from kpl.ast import CType
from kpl.ctypes import int_div, shift, wrap_int

Value = Any  # int | float | bool | tuple | RT, or a list of those (one per active thread)


class RT:
    """A runtime value the emulator cannot know (WEFT "dynamic parameters to the CTA").

    Arithmetic and comparisons on it give it back, so data that never steers control flow or
    an address costs nothing; ``bool()`` on it raises :class:`RuntimeDependence`.
    """

    __slots__ = ("why",)

    def __init__(self, why: str) -> None:
        self.why = why

    def _same(self, *_: object) -> RT:
        return self

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _same
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _same
    __lshift__ = __rlshift__ = __rshift__ = __rrshift__ = _same
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = _same
    __lt__ = __le__ = __gt__ = __ge__ = _same
    __neg__ = __invert__ = __pos__ = __abs__ = _same
    __hash__ = object.__hash__

    def __eq__(self, other: object) -> RT:  # type: ignore[override]
        return self

    def __ne__(self, other: object) -> RT:  # type: ignore[override]
        return self

    def __bool__(self) -> bool:
        raise RuntimeDependence(self.why)

    def __repr__(self) -> str:
        return f"RT({self.why})"


class RuntimeDependence(Exception):
    """Control flow (or a barrier operand) depends on data the emulator cannot know."""


class EmulationAbort(Exception):
    """The kernel cannot be turned into thread programs; carries the Unknown's fields."""

    def __init__(self, reason: str, label: int | None, line: int | None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.label = label
        self.line = line


# ----------------------------------------------------------------------------- scalar ops


def cdiv(a: Any, b: Any) -> Any:
    """C division: truncation toward zero for integers."""
    if a.__class__ is RT:
        return a
    if b.__class__ is RT:
        return b
    if isinstance(a, float) or isinstance(b, float):
        return a / b if b else RT("division by zero")
    if b == 0:
        return RT("integer division by zero")
    return int_div(a, b)


def cmod(a: Any, b: Any) -> Any:
    q = cdiv(a, b)
    if q.__class__ is RT:
        return q
    return a - b * q


def land(a: Any, b: Any) -> Any:
    if a.__class__ is RT:
        return a
    if not a:
        return 0
    if b.__class__ is RT:
        return b
    return 1 if b else 0


def lor(a: Any, b: Any) -> Any:
    if a.__class__ is RT:
        return a
    if a:
        return 1
    if b.__class__ is RT:
        return b
    return 1 if b else 0


def truth(a: Any) -> Any:
    if a.__class__ is RT:
        return a
    return 1 if a else 0


def lnot(a: Any) -> Any:
    if a.__class__ is RT:
        return a
    return 0 if a else 1


BINOPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul,
    "/": cdiv, "%": cmod,
    "<<": operator.lshift, ">>": operator.rshift,
    "&": operator.and_, "|": operator.or_, "^": operator.xor,
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
    "==": operator.eq, "!=": operator.ne,
}

def binop(op: str, ty: CType) -> Callable[[Any, Any], Any]:
    """The function computing ``a op b`` in type ``ty`` (the promoted left type for a
    shift) that lets :class:`RT` through.  Shifts follow :func:`kpl.ctypes.shift` (a count
    at or above the width shifts every bit out, as in ``dynamic`` and ``sdv``)."""
    if ty.kind == "float" and op == "/":
        return fdiv
    if op in ("<<", ">>") and ty.kind == "int":
        bits, signed = ty.bits, ty.signed

        def shifted(a: Any, b: Any) -> Any:
            if a.__class__ is RT:
                return a
            if b.__class__ is RT:
                return b
            return shift(op, int(a), int(b), bits, signed)
        return shifted
    return BINOPS[op]


PURE_CALLS: dict[str, Callable[..., Any]] = {
    "min": min, "max": max, "umin": min, "umax": max, "llmin": min, "llmax": max,
    "abs": abs, "__mul24": operator.mul, "__umul24": operator.mul,
}


def wrap(v: Any, ty: CType) -> Any:
    """Integer conversion to ``ty`` (unsigned wrap-around, signed narrowing)."""
    if v.__class__ is RT or ty.kind != "int":
        return v
    if isinstance(v, float):
        v = int(v)
    if ty.signed:  # fast path: most values are in range
        if -(1 << (ty.bits - 1)) <= v < (1 << (ty.bits - 1)):
            return v
    elif 0 <= v < (1 << ty.bits):
        return v
    return wrap_int(v, ty.bits, ty.signed)


def convert_value(v: Any, ty: CType) -> Any:
    if v.__class__ is RT:
        return v
    if ty.kind == "int":
        return wrap(int(v) if isinstance(v, (float, bool)) else v, ty)
    if ty.kind == "float":
        return float(v) if isinstance(v, (int, float)) else RT("non-numeric cast")
    if ty.kind == "bool":
        return 1 if v else 0
    return v


class Uniform:
    """A variable with the same value in every thread of the CTA."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def fdiv(a: Any, b: Any) -> Any:
    if a.__class__ is RT:
        return a
    if b.__class__ is RT:
        return b
    return a / b if b else RT("division by zero")


def call_pure(fn: Callable[..., Any], args: Any) -> Any:
    for a in args:
        if a.__class__ is RT:
            return a
    try:
        return fn(*args)
    except (TypeError, ValueError):
        return RT("call")


def convert_vec(value: Value, ty: CType) -> Value:
    """Assignment converts to the variable's type (``int x = 3.7`` stores 3)."""
    if ty.kind not in ("int", "bool"):
        return value
    if isinstance(value, list):
        if ty.kind == "int" and ty.signed and ty.bits == 32 and all(
                v.__class__ is int and -2147483648 <= v <= 2147483647 for v in value):
            return value
        return [convert_value(v, ty) for v in value]
    return convert_value(value, ty)
