"""Candidate invariants for power-of-two counters: strides that double or halve.

Stage: candidate guessing of the loop abstraction (:mod:`oracle.sdv.invariants` collects
these with its other families; Houdini keeps the inductive ones).  GPUVerify infers, for a
variable updated only by ``v = v * 2``, ``v <<= 1``, ``v = v / 2`` or ``v >>= 1``, that it
is a power of two (its ``__is_pow2``) and keeps whatever of that Houdini proves
([WarpsAtomics] Sec. 2.3 and Sec. 5: the scans, bitonic and odd-even sorts of its suites are
proved with inferred invariants; papers/001).  Those kernels index with the stride --
``pos = 2*tid - (tid & (stride - 1))``, ``offset * (2*tid + 1) - 1`` -- and two threads'
indices only stay apart when the stride is a power of two and does not wrap.

The families, per counter ``v`` with value ``v0`` at loop entry (:func:`scaling_candidates`):

* ``pow2(v)``: ``v & (v - 1) == 0`` (zero included, as GPUVerify's ``__is_pow2``);
* ``nonzero(v)``: ``v != 0`` for a doubling counter (GPUVerify's ``pow2NotZero``);
* ``bounded(v)``: ``v >= v0`` (doubling) or ``v <= v0`` (halving), unsigned or signed as
  the counter's type;
* ``track(v)``: ``v == v0 << j`` (doubling) or ``v == v0 >> j`` (halving), where ``j`` is
  the loop's ghost iteration counter (:func:`ghost_name`: the number of iterations this
  thread has started, 0 at entry, saturating at ``2**32 - 1``; :mod:`oracle.sdv.loops`
  havocs and steps it).  Two counters of one loop -- a scan's ``d >>= 1`` with
  ``offset *= 2`` -- are thereby related through ``j`` with shifts only (a product ``offset * d == n / 2`` states the same, but a
  Houdini query over a product of two unknowns ran out of ``HOUDINI_QUERY_MS``; a barrel
  shifter is cheaper to bit-blast, though still 0.2-1 s per step query).  Only for loops
  with two or more such counters (:attr:`oracle.sdv.loopinfo.LoopInfo.ghost`): relating
  them is its purpose, and a lone halving stride (a tree reduction) needs only ``pow2``
  and the guard;
* ``prev-guard(v)``: ``j == 0`` or the loop guard held for the previous value of ``v``
  (``v0 << (j - 1)``, ``v0 >> (j - 1)``), for a loop whose guard reads no other modified
  variable: the loop stopped at its first chance.  With the negated guard at the exit it
  pins ``j``, so the exit value of ``offset`` after an up-sweep is exactly ``n`` -- what the
  down-sweep needs to keep ``offset >> 1`` above 0.

Why only guesses: every candidate is checked by Houdini (entry and one iteration from a
havocked head), so a wrong or useless guess costs a query, never soundness.  Their queries
are bounded by z3's resource count (``invariants.COUNTER_RLIMIT``), not by time, so what
is kept does not depend on the machine's load.
"""

from __future__ import annotations

from collections.abc import Callable

import z3

from kpl import ast as K
from kpl.ast import CType
from oracle.sdv.encode import Val, to_bool
from oracle.sdv.state import expr_pure, expr_vars, strip_casts

#: a candidate's formulas for the two threads' head states ``vs``, loop-activity flags
#: ``la`` and entry predicates ``pe`` (the signature of ``candidate.Candidate.fn``)
CandFn = Callable[[list[dict[str, Val]], list[z3.BoolRef], list[z3.BoolRef]], list[z3.BoolRef]]


def scaling_kind(name: str, value: K.Expr | None) -> str | None:
    """``"grow"`` for ``name * 2``, ``name << 1``, ``2 * name``; ``"shrink"`` for
    ``name / 2`` and ``name >> 1``; None for anything else (``value`` None: not a plain
    value, e.g. a declaration without initializer)."""
    if value is None:
        return None
    b = strip_casts(value)
    if not isinstance(b, K.Binary):
        return None
    left, right = strip_casts(b.left), strip_casts(b.right)

    def is_var(x: K.Expr) -> bool:
        return isinstance(x, K.Var) and x.name == name

    def is_const(x: K.Expr, c: int) -> bool:
        return isinstance(x, K.Const) and x.value == c

    if b.op == "*" and ((is_var(left) and is_const(right, 2)) or
                        (is_var(right) and is_const(left, 2))):
        return "grow"
    if b.op == "<<" and is_var(left) and is_const(right, 1):
        return "grow"
    if b.op in ("/", ">>") and is_var(left) and is_const(right, 2 if b.op == "/" else 1):
        return "shrink"
    return None


def scaling_counters(assigns: dict[str, list[K.Expr | None]],
                     types: dict[str, CType]) -> dict[str, str]:
    """The integer variables of a loop all of whose assignments double them (``"grow"``) or
    all halve them (``"shrink"``): the power-of-two counters."""
    out: dict[str, str] = {}
    for name, vals in assigns.items():
        ct = types.get(name)
        if ct is None or ct.kind != "int" or not vals:
            continue
        kinds = {scaling_kind(name, v) for v in vals}
        if len(kinds) == 1 and None not in kinds:
            out[name] = kinds.pop()  # type: ignore[assignment]
    return out


#: the sort of the ghost iteration counters, and where they saturate: a wrapping counter
#: would break ``track`` (``v0 << 0`` after ``2**32`` iterations), a saturated one keeps it,
#: since shifting by 32 or more already gives the fixed point of doubling or halving
GHOST_SORT = z3.BitVecSort(32)
GHOST_MAX = z3.BitVecVal(2**32 - 1, 32)

#: evaluates a KPL expression for thread ``t`` in a variable state (``LoopRunner.eval_in``)
Evaluator = Callable[[K.Expr, int, dict[str, Val]], Val]


def ghost_name(label: int) -> str:
    """The variable that counts the iterations of loop ``label`` (no C name has a ``#``)."""
    return f"#iter{label}"


def _ghost(vs: dict[str, Val], ghost: str, bits: int) -> z3.BitVecRef:
    """The ghost counter in state ``vs`` at width ``bits`` (0 at loop entry, where the
    state does not hold it yet)."""
    j = vs.get(ghost)
    if not isinstance(j, z3.BitVecRef):
        return z3.BitVecVal(0, bits)
    if bits > 32:
        return z3.ZeroExt(bits - 32, j)
    if bits < 32:  # shifting by ``bits`` or more is all the same: clamp, do not wrap
        return z3.Extract(bits - 1, 0, z3.If(z3.UGE(j, bits), z3.BitVecVal(bits, 32), j))
    return j


def _scaled(v0: z3.BitVecRef, j: z3.BitVecRef, kind: str, signed: bool) -> z3.BitVecRef:
    """``v0`` doubled (``kind == "grow"``) or halved ``j`` times."""
    if kind == "grow":
        return v0 << j
    return v0 >> j if signed else z3.LShR(v0, j)


def _ghost_candidates(name: str, kind: str, ct: CType, ghost: str,
                      entry: list[dict[str, Val]],
                      guard: tuple[K.Expr, Evaluator] | None) -> list[tuple[str, CandFn]]:
    """``track(name)`` and ``prev-guard(name)`` (module docstring)."""
    e0 = [entry[t][name] for t in range(2)]

    def track(vs: list[dict[str, Val]], la: list[z3.BoolRef], p: list[z3.BoolRef],
              e: list[Val] = e0) -> list[z3.BoolRef]:
        forms = []
        for t in range(2):
            v0 = e[t]
            assert isinstance(v0, z3.BitVecRef)
            forms.append(vs[t][name] == _scaled(v0, _ghost(vs[t], ghost, v0.size()), kind,
                                                ct.signed))
        return forms
    out: list[tuple[str, CandFn]] = [(f"track({name})", track)]
    if guard is None:
        return out
    cond, ev = guard

    def prev_guard(vs: list[dict[str, Val]], la: list[z3.BoolRef], p: list[z3.BoolRef],
                   e: list[Val] = e0) -> list[z3.BoolRef]:
        forms = []
        for t in range(2):
            v0 = e[t]
            assert isinstance(v0, z3.BitVecRef)
            j = _ghost(vs[t], ghost, v0.size())
            before = dict(vs[t])
            before[name] = _scaled(v0, j - 1, kind, ct.signed)
            forms.append(z3.Or(j == 0, to_bool(ev(cond, t, before))))
        return forms
    out.append((f"prev-guard({name})", prev_guard))
    return out


def guard_of(loop: K.Loop, name: str, modified: dict[str, CType]) -> K.Expr | None:
    """The loop's guard when it can be re-evaluated for an earlier value of ``name``: a
    pure guard, checked before each iteration, reading no other modified variable."""
    if not loop.test_first or not expr_pure(loop.cond):
        return None
    if (expr_vars(loop.cond) & set(modified)) != {name}:
        return None
    return loop.cond


def scaling_candidates(scales: dict[str, str], types: dict[str, CType],
                       entry: list[dict[str, Val]], relevant: set[str],
                       ghost: str | None = None, loop: K.Loop | None = None,
                       ev: Evaluator | None = None) -> list[tuple[str, CandFn]]:
    """The candidate families of the module docstring for the counters ``scales`` (kind by
    name) of one loop whose entry state is ``entry``; only counters in ``relevant`` (those
    that can decide a verdict, :func:`oracle.sdv.slice.relevant_vars`).  ``ghost``: the
    loop's iteration counter (None: no ``track``/``prev-guard``); ``loop`` and ``ev`` give
    its guard and how to evaluate it.  Returns (name, formulas) pairs, all per-thread
    facts."""
    out: list[tuple[str, CandFn]] = []
    names = [n for n in sorted(scales) if n in relevant
             and all(isinstance(entry[t].get(n), z3.BitVecRef) for t in range(2))]
    for name in names:
        ct = types[name]
        e0 = [entry[t][name] for t in range(2)]

        def pow2(vs: list[dict[str, Val]], la: list[z3.BoolRef], p: list[z3.BoolRef],
                 n: str = name) -> list[z3.BoolRef]:
            return [vs[t][n] & (vs[t][n] - 1) == 0 for t in range(2)]  # type: ignore[operator]
        out.append((f"pow2({name})", pow2))
        grow = scales[name] == "grow"
        if grow:
            def nonzero(vs: list[dict[str, Val]], la: list[z3.BoolRef], p: list[z3.BoolRef],
                        n: str = name) -> list[z3.BoolRef]:
                return [vs[t][n] != 0 for t in range(2)]  # type: ignore[comparison-overlap]
            out.append((f"nonzero({name})", nonzero))

        def bounded(vs: list[dict[str, Val]], la: list[z3.BoolRef], p: list[z3.BoolRef],
                    n: str = name, e: list[Val] = e0, up: bool = grow,
                    signed: bool = ct.signed) -> list[z3.BoolRef]:
            out_: list[z3.BoolRef] = []
            for t in range(2):
                a, b = (vs[t][n], e[t]) if up else (e[t], vs[t][n])
                out_.append(a >= b if signed else z3.UGE(a, b))  # type: ignore[operator,arg-type]
            return out_
        out.append((f"bounded({name})", bounded))
    if ghost is not None:
        for name in names:
            cond = guard_of(loop, name, types) if loop is not None else None
            guard = (cond, ev) if cond is not None and ev is not None else None
            out += _ghost_candidates(name, scales[name], types[name], ghost, entry, guard)
    return out
