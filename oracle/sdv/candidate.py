"""A candidate loop invariant: the one shape every family of guesses hands to Houdini.

Stage: invariants of the loop abstraction.  Its own module because the families live apart
(:mod:`oracle.sdv.invariants` for most, :mod:`oracle.sdv.strides` for counters stepped by a
loop-invariant amount) and :mod:`oracle.sdv.invariants` imports them: the record they share
sits below both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import z3

from oracle.sdv.encode import Val

#: a candidate's formulas for the two threads' head states ``vs``, loop-activity flags
#: ``la`` and entry predicates ``pe``
CandFn = Callable[[list[dict[str, Val]], list[z3.BoolRef], list[z3.BoolRef]], list[z3.BoolRef]]


@dataclass
class Candidate:
    """A candidate loop invariant (Houdini-lite).  ``fn(vars, la, pe)`` gives its formulas for
    the two threads' states ``vars``, loop-activity flags ``la`` and entry predicates ``pe``;
    ``pair`` marks a relational fact between the two threads."""

    name: str
    pair: bool
    fn: CandFn
    by_rlimit: bool = False  # its inductiveness query is bounded by COUNTER_RLIMIT
    #: theorems of bit-vector arithmetic about a head state and the state one iteration later
    #: that its inductiveness query may use (they remove no execution, only a search)
    step_lemmas: Callable[[list[dict[str, Val]], list[dict[str, Val]]], list[z3.BoolRef]] | None = None
    #: a theorem about thread 0 in one loop-head state and thread 1 in another where the
    #: candidate holds in both, which the race queries may use (:func:`pair_lemmas`)
    pair_lemma: Callable[[dict[str, Val], dict[str, Val]], z3.BoolRef] | None = None
    #: the formulas of ``fn`` with an operator that ``fn`` states by an uninterpreted
    #: stand-in, exactly (:mod:`oracle.sdv.strides`: ``%``).  ``fn`` is what Houdini checks
    #: and the loop abstraction asserts: a query unsatisfiable for every interpretation of
    #: the stand-in is unsatisfiable for the operator, so its proofs hold; these are not
    #: asserted (the operator's circuits slow every query, even one they do not decide) but
    #: kept for the queries whose model is a witness (``Machine.exact_facts``).
    exact_fn: CandFn | None = None
