"""Pins the shared C-semantics layer (kpl.ctypes) and the one conflict rule (oracle.base)."""

from __future__ import annotations

import pytest

from kpl.ast import BOOL, DOUBLE, FLOAT, INT, LONG, UINT, ULONG, CType
from kpl.ctypes import (
    arith,
    binary_type,
    common_type,
    convert,
    int_div,
    promote,
    shift,
    unary_type,
)
from oracle.base import AccessKind, Race, conflicts

SHORT = CType("int", 16, True, "short")
UCHAR = CType("int", 8, False, "unsigned char")
FLOAT4 = CType("vec", 32, True, "float4", FLOAT, ("x", "y", "z", "w"))


def test_integer_promotion() -> None:
    assert promote(SHORT) == INT and promote(UCHAR) == INT and promote(BOOL) == INT
    assert promote(UINT) == UINT and promote(LONG) == LONG and promote(FLOAT) == FLOAT


def test_usual_arithmetic_conversions() -> None:
    assert common_type(INT, UINT) == UINT
    assert common_type(UINT, LONG) == LONG  # the wider signed type holds every uint
    assert common_type(LONG, ULONG) == ULONG
    assert common_type(SHORT, UCHAR) == INT
    assert common_type(INT, FLOAT) == FLOAT and common_type(FLOAT, DOUBLE) == DOUBLE


def test_vector_operand_makes_a_vector() -> None:
    assert common_type(FLOAT4, FLOAT) == FLOAT4
    assert binary_type("*", FLOAT4, FLOAT) == FLOAT4
    assert binary_type("*", FLOAT, FLOAT4) == FLOAT4
    assert arith("*", (1.0, 2.0, 3.0, 4.0), 2.0, FLOAT4) == (2.0, 4.0, 6.0, 8.0)


def test_operator_result_types() -> None:
    assert binary_type("<", UINT, DOUBLE) == INT
    assert binary_type("&&", FLOAT, LONG) == INT
    assert binary_type("<<", SHORT, LONG) == INT  # the promoted LEFT type
    assert binary_type(">>", UINT, LONG) == UINT
    assert unary_type("!", DOUBLE) == INT and unary_type("-", UCHAR) == INT


def test_unsigned_wrap_and_conversion() -> None:
    assert convert(-1, UINT) == 2**32 - 1
    assert convert(2**31, INT) == -(2**31)
    assert arith("-", 0, 1, UINT) == 2**32 - 1
    assert arith("*", 2**31, 2, UINT) == 0
    assert convert(3.9, INT) == 3 and convert(-3.9, INT) == -3
    assert convert(5, BOOL) == 1 and convert(0.0, BOOL) == 0
    assert convert(0.1, FLOAT) != 0.1 and convert(0.1, DOUBLE) == 0.1  # float32 rounding


def test_division_truncates_toward_zero() -> None:
    assert int_div(-7, 2) == -3 and int_div(7, -2) == -3 and int_div(-7, -2) == 3
    assert arith("/", -7, 2, INT) == -3
    assert arith("%", -7, 2, INT) == -1 and arith("%", 7, -2, INT) == 1


@pytest.mark.parametrize("count", [32, 33, 40, 64, -1])
def test_shift_count_at_or_above_width_shifts_everything_out(count: int) -> None:
    """The one rule of every oracle (PTX clamps; SMT-LIB bvshl/bvlshr/bvashr agree)."""
    assert shift("<<", 1, count, 32, True) == 0
    assert shift(">>", 2**31 - 1, count, 32, True) == 0
    assert shift(">>", -8, count, 32, True) == -1  # arithmetic shift keeps the sign bits
    assert shift(">>", 2**32 - 1, count, 32, False) == 0
    assert arith("<<", 1, count, INT) == 0


def test_shift_in_range() -> None:
    assert shift("<<", 1, 31, 32, True) == -(2**31)
    assert shift(">>", -8, 1, 32, True) == -4
    assert shift(">>", 2**32 - 8, 1, 32, False) == 2**31 - 4


def test_conflict_rule() -> None:
    r, w, a = AccessKind.READ, AccessKind.WRITE, AccessKind.ATOMIC
    assert not conflicts(r, r) and not conflicts(a, a)
    assert conflicts(r, w) and conflicts(w, r) and conflicts(w, w)
    assert conflicts(a, r) and conflicts(w, a)
    assert conflicts("read", "write") and not conflicts("atomic", "atomic")


def test_access_kind_reads_as_its_text() -> None:
    race = Race(1, 2, "s", ("read", "write"))
    assert race.kinds == (AccessKind.READ, AccessKind.WRITE)
    assert race.kind == "read-write" and str(AccessKind.ATOMIC) == "atomic"
    assert {("read", "write")} == {race.kinds}  # hashes like the text
