"""Candidate invariants for counters stepped by a loop-invariant amount: ``v += c``, ``v -= c``.

Stage: candidate guessing of the loop abstraction (:func:`oracle.sdv.invariants.candidates`
collects these with its other families; Houdini keeps the inductive ones).  The grid-stride
loop ``for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x *
gridDim.x)`` is race-free because every thread's ``i`` stays congruent to its first value
modulo the stride, and the first values are distinct and below the stride -- GPUVerify's
stride invariants, which its users write by hand ([WarpsAtomics] Sec. 2.3; papers/001).

The families, per counter ``v`` with entry value ``v0`` and step ``c`` (:func:`stride_candidates`):

* ``stride(v)``: up-counting, ``v % c == v0 % c`` (unsigned remainders); down-counting, the
  distance ``(v0 - v) % c == 0`` (a counter that leaves the loop by stepping below zero wraps
  as an unsigned value, which breaks the congruence but not the distance);
* ``monotone(v)``: ``v >= v0`` (up) or ``v <= v0`` (down), signed or unsigned as ``v``; its
  step lemma orders ``v`` and ``v + c`` where neither wraps (top bits clear), which the solver
  otherwise finds by a search through the adder (past ``HOUDINI_QUERY_MS`` in the cross-block
  run under a symbolic block size, whose multipliers share the search); its queries are
  bounded by resources, not time, so what is kept does not depend on the load.

Why the solver sees the remainder as an uninterpreted function (:func:`rem_function`):
with a symbolic stride (``blockDim.x * gridDim.x`` under a symbolic grid) z3 bit-blasts a
32-bit divider for each ``%``, and Houdini's step query then ran past 20 s in the incremental
solver even with the step lemma below, which decides it by propagation; with the remainder
uninterpreted, constrained only by that lemma (a theorem about ``%``), congruence closure
decides it in milliseconds.  Sound for the reason ``Candidate.proof_fn`` gives: ``%`` is one
interpretation of the function, so a query unsatisfiable for every interpretation is
unsatisfiable for ``%``.  Houdini checks that form and the loop abstraction asserts it; what
the race queries prove with it, the pair lemma below lets them prove, fast.  A model may pick
remainders ``%`` does not give, so the exact formulas (``Candidate.exact_fn``) are kept aside,
and a satisfiable race query is asked again with them for a witness that is an execution
(:meth:`oracle.sdv.state.Machine.check_witness`); asserted with the others, their dividers
slowed every query, the unsatisfiable ones included (20 s on the grid-stride loop).

The step lemma (a theorem of unsigned arithmetic) says when one step keeps the remainder:
``v + c`` does not wrap -- given cheaply by the sign bits of ``v`` and ``c`` (both below
``2^(n-1)``: ``monotone(v)`` with ``v0 >= 0`` gives ``v``'s, the launch gives the grid-stride
loop's ``c``: fewer than 2^31 threads, :meth:`oracle.sdv.state.Machine.launch_constraints`) or
exactly (``v <= v + c``) -- or ``c`` is a power of two (a wrap by ``2^n`` keeps the remainder).
The pair lemma, for the race queries: two threads with equal strides, first values below the
stride and ``stride`` kept meet at one ``v`` only if their first values are equal -- no two
threads of a grid-stride loop touch one element (a divider search for the solver otherwise).
"""

from __future__ import annotations

from collections.abc import Callable

import z3

from kpl.ast import CType
from oracle.sdv.candidate import CandFn, Candidate
from oracle.sdv.encode import Val

#: an unsigned remainder: ``z3.URem`` or its uninterpreted stand-in (:func:`rem_function`)
Rem = Callable[[z3.BitVecRef, z3.BitVecRef], z3.BitVecRef]

_REM: dict[int, z3.FuncDeclRef] = {}


def rem_function(bits: int) -> Rem:
    """The uninterpreted remainder of ``bits``-bit values that Houdini's queries use in place
    of ``z3.URem`` (module docstring); no C name has a ``#``."""
    if bits not in _REM:
        s = z3.BitVecSort(bits)
        _REM[bits] = z3.Function(f"#urem{bits}", s, s, s)
    f = _REM[bits]
    return lambda x, y: f(x, y)  # type: ignore[no-any-return]


def _urem(x: z3.BitVecRef, y: z3.BitVecRef) -> z3.BitVecRef:
    return z3.URem(x, y)


def _rems(v: Val) -> tuple[Rem, Rem]:
    """The exact remainder and Houdini's stand-in at ``v``'s width."""
    assert isinstance(v, z3.BitVecRef)
    return _urem, rem_function(v.size())


def _below_half(x: z3.BitVecRef) -> z3.BoolRef:
    """``x < 2^(n-1)``: its top bit is clear (a literal, where a comparison is a circuit)."""
    n = x.size()
    return z3.Extract(n - 1, n - 1, x) == 0  # type: ignore[no-any-return]


def _pow2(c: z3.BitVecRef) -> z3.BoolRef:
    return c & (c - 1) == 0  # type: ignore[no-any-return]


def stride_candidates(name: str, ct: CType, op: str, e0: list[z3.BitVecRef],
                      steps: list[z3.BitVecRef]) -> list[Candidate]:
    """``stride(name)`` and ``monotone(name)`` (module docstring) for the counter ``name``
    of type ``ct`` stepped by ``op`` (``"+"``, ``"-"``) and ``steps[t]`` from ``e0[t]``."""
    exact, stub = _rems(e0[0])
    if op == "+":
        def up(r: Rem) -> CandFn:
            def fn(vs: list[dict[str, Val]], la: list[z3.BoolRef],
                   p: list[z3.BoolRef]) -> list[z3.BoolRef]:
                return [r(vs[t][name], steps[t]) == r(e0[t], steps[t])  # type: ignore[arg-type]
                        for t in range(2)]
            return fn

        def up_step(vs: list[dict[str, Val]], post: list[dict[str, Val]]) -> list[z3.BoolRef]:
            out = []
            for t in range(2):
                v, v2, c = vs[t][name], post[t][name], steps[t]
                assert isinstance(v, z3.BitVecRef) and isinstance(v2, z3.BitVecRef)
                no_wrap = z3.Or(z3.And(_below_half(v), _below_half(c)), z3.ULE(v, v + c), _pow2(c))
                out.append(z3.Implies(z3.And(v2 == v + c, no_wrap), stub(v2, c) == stub(v, c)))
            return out

        def apart(v0: dict[str, Val], v1: dict[str, Val]) -> z3.BoolRef:
            i0, i1, c = v0[name], v1[name], steps[0]
            assert isinstance(i0, z3.BitVecRef) and isinstance(i1, z3.BitVecRef)
            premise = z3.And(c == steps[1], z3.ULT(e0[0], c), z3.ULT(e0[1], c),
                             stub(i0, c) == stub(e0[0], c), stub(i1, c) == stub(e0[1], c),
                             i0 == i1)
            return z3.Implies(premise, e0[0] == e0[1])  # type: ignore[no-any-return]
        stride = Candidate(f"stride({name})", False, up(stub), by_rlimit=True,
                           step_lemmas=up_step, pair_lemma=apart, exact_fn=up(exact))
    else:
        def dist(vs: list[dict[str, Val]], t: int) -> z3.BitVecRef:
            return e0[t] - vs[t][name]  # type: ignore[no-any-return,operator]

        def down(r: Rem) -> CandFn:
            def fn(vs: list[dict[str, Val]], la: list[z3.BoolRef],
                   p: list[z3.BoolRef]) -> list[z3.BoolRef]:
                # ``x == 0 or``: what ``0 % c == 0`` gives the exact form, the stand-in needs
                # stated (the entry state's distance ``v0 - v0``)
                return [z3.Or(dist(vs, t) == 0, r(dist(vs, t), steps[t]) == 0) for t in range(2)]
            return fn

        def down_step(vs: list[dict[str, Val]], post: list[dict[str, Val]]) -> list[z3.BoolRef]:
            out = []
            for t in range(2):
                x, x2, c = dist(vs, t), dist(post, t), steps[t]
                no_wrap = z3.Or(z3.ULE(x, x2), _pow2(c))
                keeps = z3.Or(x2 == x, z3.And(x2 == x + c, no_wrap))
                out.append(z3.Implies(z3.And(keeps, z3.Or(x == 0, stub(x, c) == 0)),
                                      z3.Or(x2 == 0, stub(x2, c) == 0)))
            return out
        stride = Candidate(f"stride({name})", False, down(stub), by_rlimit=True,
                           step_lemmas=down_step, exact_fn=down(exact))

    def mono(vs: list[dict[str, Val]], la: list[z3.BoolRef],
             p: list[z3.BoolRef]) -> list[z3.BoolRef]:
        out = []
        for t in range(2):
            a, b = (vs[t][name], e0[t]) if op == "+" else (e0[t], vs[t][name])
            out.append(a >= b if ct.signed else z3.UGE(a, b))  # type: ignore[operator,arg-type]
        return out

    def mono_step(vs: list[dict[str, Val]], post: list[dict[str, Val]]) -> list[z3.BoolRef]:
        # one step up from below 2^(n-1) by less than 2^(n-1), landing below 2^(n-1), goes
        # up (down likewise, from at least c): the order of the sum without the adder search
        out = []
        for t in range(2):
            v, v2, c = vs[t][name], post[t][name], steps[t]
            assert isinstance(v, z3.BitVecRef) and isinstance(v2, z3.BitVecRef)
            if op == "+":
                fits = z3.And(v2 == v + c, _below_half(v), _below_half(c), _below_half(v2))
                out.append(z3.Implies(fits, z3.And(v2 >= v, z3.UGE(v2, v))))
            else:
                fits = z3.And(v2 == v - c, _below_half(v), _below_half(c), z3.UGE(v, c))
                out.append(z3.Implies(fits, z3.And(v2 <= v, z3.ULE(v2, v))))
        return out
    return [stride, Candidate(f"monotone({name})", False, mono, by_rlimit=True,
                              step_lemmas=mono_step)]
