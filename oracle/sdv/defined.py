"""Signed overflow is undefined behaviour: the no-overflow assumption (and its sibling for an
unsigned sum converted to a signed type) and the lemmas that let the solver use them.

Stage: expressions (below :mod:`oracle.sdv.expr`, which subclasses
:class:`DefinedArithmetic`).  C and C++ leave a signed ``+``, ``-``, ``*``, ``/`` or unary ``-``
whose exact result does not fit undefined (C11 6.5p5), so an execution that overflows is no
execution of the program and a race that needs one is no race (issue 27, item 2; the
condition itself is :func:`oracle.sdv.encode.no_signed_overflow`).  Every such operation a
thread evaluates adds "pred ⇒ no overflow" to the path facts, exactly as an ``__assume`` would
(:meth:`DefinedArithmetic.assume_no_overflow`).  A run whose every execution overflows is
not proved vacuously: :meth:`DefinedArithmetic.vacuous` finds it and the verifier answers
"unknown".  A conversion to a signed type keeps the low bits (implementation-defined in C,
modular in nvcc), with one stated assumption (``oracle.base.ASSUMPTIONS``) added the same way:
an unsigned sum of two values that each fit in the signed type fits too when converted to it
(:meth:`DefinedArithmetic.assume_sum_fits`, ``int i; i += blockDim.x * gridDim.x``).  Unsigned
arithmetic wraps and adds nothing, so a race that needs unsigned wrap-around is still found,
also when the wrapped value is converted to ``int`` in range afterwards.

Held facts: the facts about the values of a stored value's own adversarial reads (``A[tid] =
A[tid] + k``, ``A[tid] * 3 + k``: fresh per read), and about sums and products of them whose
facts all hold where the reads are 0, constrain nothing but that value, so they travel with it
(``Access.value_facts``) into the one query that compares stored values, instead of into the
solver -- where 40,000 of them made every later query and the vacuity check pay for them
(:meth:`DefinedArithmetic._holdable`; issue 28, item 4).

Why lemmas: bit-blasting proves ``t * s != t' * s`` (``t != t'``, ``s > 0``, no overflow) or
``row * w + col != row' * w + col'`` (``0 <= col < w``) only by a search through multiplier
circuits that takes tens of seconds -- the very index arithmetic the assumption is for.  For
the same expression node evaluated by the two threads we add the arithmetic facts that make
those proofs propagation: cancellation and strict monotonicity of a product in a common
factor (:meth:`DefinedArithmetic.product_lemmas`) and distinctness of row-major indices, of two rows
or of two columns of one row (:meth:`DefinedArithmetic.row_major_lemma`).  Each lemma is a theorem of bit-vector
arithmetic -- its premise contains the no-overflow conditions it needs -- so it holds in every
solver scope and removes no execution; it only saves the solver the search.
"""

from __future__ import annotations

from collections.abc import Callable

import z3

from kpl import ast as K
from oracle.sdv.encode import (
    DEFINED,
    Val,
    bv_size,
    conv,
    converted_sum_fits,
    fits_exact,
    is_true,
    no_signed_overflow,
)
from oracle.sdv.state import Machine


class DefinedArithmetic(Machine):
    """Stage: the no-overflow assumption of signed arithmetic and its lemmas."""

    def assume_no_overflow(self, pred: z3.BoolRef, op: str, x: z3.BitVecRef,
                           y: z3.BitVecRef | None = None) -> int | None:
        """Signed ``x op y`` (``y`` None: unary) evaluated by a thread under ``pred``: its
        overflow would be undefined behaviour, so the defined executions are those where
        ``pred`` implies it does not overflow (a path fact, like ``__assume``).  Not in a
        hypothetical evaluation (``assume_defined`` off, :meth:`ExprEvaluator.eval_in`).
        Returns the result's value where the reads are 0 when the fact is held back
        (:meth:`_holdable`), else None."""
        if self.assume_defined:
            key = (op, x.get_id(), -1 if y is None else y.get_id(), pred.get_id())
            at_zero = self._holdable(op, x, y) if key not in self.assumed else None
            if at_zero is not None:
                self.assumed.add(key)
                self.value_ops.append((op, x, y))
                self.q.held(lambda: self._fact(pred, no_signed_overflow(op, x, y)))
                return at_zero
            # constants and ranges come out decided or minimal
            self._assume(key, pred, lambda: no_signed_overflow(op, x, y))
        return None

    def _holdable(self, op: str, x: z3.BitVecRef, y: z3.BitVecRef | None) -> int | None:
        """Can the fact of ``x op y`` be held back from the solver (``QueryEngine.hold``)?
        The result's value where the reads are 0 if so, else None.  While a stored value is
        evaluated, the fresh values of its adversarial reads (``value_reads``) appear
        nowhere else: not in the solver, in no logged index or predicate
        (``oracle.sdv.memory.holds_value``); the stored value is the only term that carries
        them on.  Facts on such values, held sums and products of them (``value_reads``
        too, with their values at 0: :meth:`note_held`) and constants alone, all true where
        the reads are 0, therefore constrain nothing else -- for every assignment to the
        rest of the run, the zeros satisfy them -- and need to be asserted only with the
        stored value, in the benign-write query that compares it (``Access.value_facts``).
        Anything else the solver sees first asserts them (``QueryEngine.add``).  A
        barrier-free run of 20,000 ``A[tid] = A[tid] + k`` then keeps 40,000 facts out of
        the solver (issue 28, item 4)."""
        reads = self.value_reads
        if reads is None or not self.q.holding() or op not in ("+", "-", "*", "/"):
            return None
        zeros: list[int] = [] if y is not None else [0]  # unary minus: 0 - x
        some_read = False
        for v in (x,) if y is None else (x, y):
            held = reads.get(v.get_id())
            if held is not None:
                zeros.append(held[1])
                some_read = True
            elif z3.is_bv_value(v):
                zeros.append(v.as_signed_long())  # type: ignore[attr-defined]
            else:
                return None
        if not some_read:
            return None
        a, b = zeros
        n = bv_size(x)
        if not fits_exact("-" if y is None else op, a, b, n):
            return None
        if op == "/" and y is not None:  # z3 divides by 0 otherwise than C: no value known
            return None if b == 0 else abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
        return a + b if op == "+" else a - b if op == "-" else a * b

    def note_held(self, result: z3.ExprRef, at_zero: int) -> None:
        """``result`` is a held sum/product (:meth:`_holdable`) of value ``at_zero`` where
        the reads are 0: a later operation on it can be held as well."""
        if self.value_reads is not None:
            self.value_reads[result.get_id()] = (result, at_zero)

    def _fact(self, pred: z3.BoolRef, c: z3.BoolRef | None) -> z3.BoolRef:
        """"pred ⇒ c" under :data:`DEFINED`, counted as a no-overflow fact."""
        if c is None or is_true(c):
            return z3.BoolVal(True)
        self.ub_facts += 1
        return z3.Implies(DEFINED if is_true(pred) else z3.And(DEFINED, pred), c)

    def assume_sum_fits(self, pred: z3.BoolRef, x: z3.BitVecRef, y: z3.BitVecRef,
                        src: K.CType, dst: K.CType) -> None:
        """The unsigned sum ``x + y`` converted to the signed type ``dst`` by a thread under
        ``pred``: where ``x`` and ``y`` each fit in ``dst``, so does the sum (a stated
        assumption, like no signed overflow: :func:`oracle.sdv.encode.converted_sum_fits`),
        so ``int i`` of a grid-stride loop is the exact sum ``i + blockDim.x * gridDim.x``.
        Other unsigned arithmetic, and the conversion of a value already above the
        maximum, keep wrapping."""
        if self.assume_defined:
            key = (f"sum{dst.bits}", x.get_id(), y.get_id(), pred.get_id())
            self._assume(key, pred, lambda: converted_sum_fits(x, y, src, dst))

    def _assume(self, key: tuple[str, int, int, int], pred: z3.BoolRef,
                cond: Callable[[], z3.BoolRef | None]) -> None:
        """Add "pred ⇒ cond" under :data:`DEFINED`, once per key (the same terms again: an
        unrolled loop); ``cond`` None or true adds nothing."""
        if key in self.assumed:
            return
        self.assumed.add(key)
        c = cond()
        if c is not None and not is_true(c):
            self.q.add(self._fact(pred, c))

    def vacuous(self) -> bool:
        """Every execution of the run needs a signed overflow: its path facts are
        satisfiable, but not with the no-overflow facts.  Proving anything about such a
        run would be vacuous (an ``int`` hash that always overflows decides an index), so
        the verifier says "unknown" instead (a solver that gives up claims nothing)."""
        if not self.ub_facts:
            return False
        r, _ = self.q.check()
        return r == z3.unsat and self.q.check(defined=False)[0] == z3.sat

    def product_lemmas(self, node: tuple[int, int], x: z3.BitVecRef, y: z3.BitVecRef) -> None:
        """The signed product ``x * y`` of expression node ``node`` = (id, thread): recorded,
        and for the second thread paired with the first thread's product of the same node:
        with a common factor ``b != 0``, equal products have equal other factors; with
        ``b > 0``, a smaller other factor gives a product at least ``b`` smaller.  Products
        with a constant factor are left to the solver (shifts and adders suffice there)."""
        if not self.assume_defined or z3.is_bv_value(x) or z3.is_bv_value(y):
            return
        self.q.release()  # its terms are kept for later lemmas: no fact held back any more
        ok = no_signed_overflow("*", x, y)
        assert ok is not None
        self.products[node] = (x, y, ok)
        key, t = node
        first = self.products.get((key, 0)) if t == 1 else None
        if first is None:
            return
        x0, y0, ok0 = first
        r0, r1 = x0 * y0, x * y
        zero = z3.BitVecVal(0, x.size())
        for a0, b0, a1, b1 in ((x0, y0, x, y), (y0, x0, y, x)):
            base = [ok0, ok, b0 == b1]
            self.q.add(z3.Implies(z3.And(base + [b0 != zero, r0 == r1]), a0 == a1))
            for lo, hi, alo, ahi in ((r0, r1, a0, a1), (r1, r0, a1, a0)):
                # lo + b cannot overflow either: lo + b <= hi <= INT_MAX
                fits = no_signed_overflow("+", lo, b0)
                assert fits is not None
                self.q.add(z3.Implies(z3.And(base + [b0 > zero, alo < ahi]),
                                      z3.And(fits, lo + b0 <= hi)))

    def row_major_lemma(self, e: K.Binary, t: int, left: Val, right: Val, s: Val) -> None:
        """The signed sum ``s = a * b + c`` of node ``e`` (a product operand that
        :meth:`product_lemmas` recorded): for the two threads' sums, ``b`` common, ``a``
        different and ``0 <= c < b`` in both, the sums differ -- the row-major index
        ``row * width + col`` of two different rows never meets; with ``a`` and ``b`` both
        common and ``c`` different they differ too -- nor that of two columns of one row."""
        ct = e.type
        if not self.assume_defined or ct.kind != "int" or not ct.signed \
                or not isinstance(s, z3.BitVecRef):
            return
        for prod, other, val in ((e.left, e.right, right), (e.right, e.left, left)):
            if not (isinstance(prod, K.Binary) and prod.op == "*"):
                continue
            rec = self.products.get((id(prod), t))
            c = conv(val, other.type, ct)
            if rec is None or not isinstance(c, z3.BitVecRef) or c.size() != s.size():
                continue
            x, y, ok_mul = rec
            if x.size() != s.size():
                continue
            self.q.release()  # its terms are kept for later lemmas: no fact held back any more
            ok_add = no_signed_overflow("+", x * y, c)
            self.sums[(id(e), t)] = (x, y, c, s, z3.And(ok_mul, ok_add))
            first = self.sums.get((id(e), 0)) if t == 1 else None
            if first is None:
                return
            x0, y0, c0, s0, ok0 = first
            ok1 = self.sums[(id(e), 1)][4]
            zero = z3.BitVecVal(0, s.size())
            for a0, b0, a1, b1 in ((x0, y0, x, y), (y0, x0, y, x)):
                premise = z3.And(ok0, ok1, b0 == b1, a0 != a1, zero <= c0, c0 < b0,
                                 zero <= c, c < b0)
                self.q.add(z3.Implies(premise, s0 != s))
            # the same row: equal products, different columns (two multiplier circuits of
            # equal inputs are equal to the solver only after a search -- 20 s for the
            # stencil's out[y * w + x] of two blocks)
            self.q.add(z3.Implies(z3.And(ok0, ok1, x0 == x, y0 == y, c0 != c), s0 != s))
            return
