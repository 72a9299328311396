"""Values of the concrete interpreters (``dynamic``): deterministic defaults and opaque calls.

The C arithmetic itself (conversions, operators, shifts) is :mod:`kpl.ctypes`, shared with
the front end and the other oracles; this module adds what only a *concrete* run needs: a
value for memory nobody wrote, truthiness of vector values, and the value of an opaque call
(real math for the common math functions, a deterministic hash otherwise).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from typing import Any

from kpl.ast import FLOAT, CType
from kpl.ctypes import convert, to_int

__all__ = ["COMPARE", "Dim3", "Iters", "call_value", "default_value", "det_hash",
           "linear_to_dim3", "truthy"]

#: a thread or block index (x, y, z)
Dim3 = tuple[int, int, int]
#: the loop-iteration vector of an access: ((loop label, fresh iteration id), ...), outermost first
Iters = tuple[tuple[int, int], ...]


def linear_to_dim3(i: int, dims: tuple[int, int, int]) -> Dim3:
    """The (x, y, z) index of the ``i``-th thread (or block) in x-fastest order."""
    x, y, _ = dims
    return (i % x, (i // x) % y, i // (x * y))


def det_hash(*parts: object) -> int:
    """A deterministic 64-bit hash (Python's ``hash`` of strings is salted per process)."""
    return int.from_bytes(hashlib.blake2b(repr(parts).encode(), digest_size=8).digest(), "little")


def default_value(t: CType, *key: object) -> Any:
    """A deterministic pseudo-random value of type ``t`` (never-written memory, opaque calls).
    Integers are kept small (0..255) so that values used as indices or loop bounds stay sane."""
    h = det_hash(*key)
    if t.kind == "int":
        return convert(h % 256, t)
    if t.kind == "bool":
        return h & 1
    if t.kind == "float":
        return convert((h % 1_000_000) / 1_000_000.0, t)
    if t.kind == "vec":
        elem = t.elem or FLOAT
        return tuple(default_value(elem, *key, f) for f in (t.fields or ("x",)))
    if t.kind == "ptr":
        return 0
    return 0


def truthy(v: Any) -> bool:
    """C truth of a concrete value (a vector is true when any component is)."""
    if isinstance(v, tuple):
        return any(truthy(p) for p in v)
    return bool(v)


# --------------------------------------------------------------------------- comparisons, calls


COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}

_MATH1: dict[str, Callable[[float], float]] = {
    "sqrt": math.sqrt, "exp": math.exp, "exp2": lambda x: 2.0 ** x, "exp10": lambda x: 10.0 ** x,
    "log": math.log, "log2": math.log2, "log10": math.log10, "log1p": math.log1p,
    "expm1": math.expm1, "sin": math.sin, "cos": math.cos, "tan": math.tan, "asin": math.asin,
    "acos": math.acos, "atan": math.atan, "sinh": math.sinh, "cosh": math.cosh,
    "tanh": math.tanh, "fabs": abs, "floor": math.floor, "ceil": math.ceil,
    "trunc": math.trunc, "round": lambda x: math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5),
    "rint": round, "nearbyint": round, "rsqrt": lambda x: 1.0 / math.sqrt(x),
    "cbrt": lambda x: math.copysign(abs(x) ** (1.0 / 3.0), x), "erf": math.erf,
    "erfc": math.erfc, "saturate": lambda x: min(max(x, 0.0), 1.0),
}
_MATH2: dict[str, Callable[[float, float], float]] = {
    "pow": math.pow, "fmin": min, "fmax": max, "fmod": math.fmod, "atan2": math.atan2,
    "fdividef": lambda a, b: a / b, "hypot": math.hypot, "fdim": lambda a, b: max(a - b, 0.0),
    "copysign": math.copysign,
}


def _math_name(name: str) -> str:
    base = name.lstrip("_")
    for suffix in ("_rn", "_rz", "_ru", "_rd"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    if base.endswith("f") and base[:-1] in _MATH1.keys() | _MATH2.keys():
        base = base[:-1]
    return base


def call_value(name: str, args: Sequence[Any], t: CType) -> Any:
    """The value of an opaque call: real math for the common math functions, otherwise a
    deterministic hash of the name and arguments (a pure function, as Call's contract says)."""
    if t.kind == "vec" and name.startswith("make_"):
        return convert(tuple(args), t)
    base = _math_name(name)
    try:
        if base in ("min", "max", "umin", "umax", "llmin", "llmax") and len(args) == 2:
            r: Any = min(args[0], args[1]) if "min" in base else max(args[0], args[1])
            return convert(r, t)
        if base in ("abs", "llabs", "labs") and len(args) == 1:
            return convert(abs(args[0]), t)
        if base in _MATH1 and len(args) == 1 and not isinstance(args[0], tuple):
            return convert(_MATH1[base](float(args[0])), t)
        if base in _MATH2 and len(args) == 2 and not isinstance(args[0], tuple):
            return convert(_MATH2[base](float(args[0]), float(args[1])), t)
        if base in ("mul24", "umul24") and len(args) == 2:
            return convert(to_int(args[0]) * to_int(args[1]), t)
        if base == "popc" and len(args) == 1:
            return convert(bin(to_int(args[0]) & 0xFFFFFFFF).count("1"), t)
        if base == "popcll" and len(args) == 1:
            return convert(bin(to_int(args[0]) & (2**64 - 1)).count("1"), t)
        if base == "clz" and len(args) == 1:
            return convert(32 - (to_int(args[0]) & 0xFFFFFFFF).bit_length(), t)
        if base == "ffs" and len(args) == 1:
            v = to_int(args[0]) & 0xFFFFFFFF
            return convert((v & -v).bit_length(), t)
        if base == "fmaf" or base == "fma":
            return convert(float(args[0]) * float(args[1]) + float(args[2]), t)
    except (ValueError, OverflowError, ZeroDivisionError, TypeError, IndexError):
        return convert(math.nan, t) if t.kind == "float" else convert(0, t)
    return default_value(t, "call", name, tuple(args))
