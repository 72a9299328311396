"""``sdv``: the symbolic verifier -- two arbitrary threads in predicated lock step on z3.

Owns the symbolic oracle (GPUVerify's two-thread reduction, [WarpsAtomics] Sec. 2.3; SDV
semantics, [AutoSync] Sec. III-A; [LockStep]): the z3 encoding of KPL values, the executor,
the loop abstraction with Houdini, the race-pair queries and the optional facts of a verdict.

May import: :mod:`oracle.base`, :mod:`kpl` and z3 -- never :mod:`oracle.dynamic`,
:mod:`oracle.named` or :mod:`autosync`.  Inside, the layers go one way, each module importing
only its own layer or those above it in this list (``tests/test_layout.py`` checks it):

1. state and encoding -- ``encode`` (values as z3 terms), ``state`` (machine state, access
   log, solver, predicates, visitor dispatch);
2. expressions -- ``defined`` (signed overflow is undefined: the assumption and its lemmas),
   ``expr``;
3. memory -- ``memfacts`` (what may be assumed about values), ``memory`` (locations,
   ``Load``/``Atomic``);
4. statements -- ``stmt``;
5. loops and invariants -- ``slice``, ``candidate`` (the record of a candidate invariant),
   ``scaling`` (power-of-two counters' candidates), ``strides`` (stepped counters' candidates:
   the grid-stride loop's congruence), ``loopinfo``, ``invariants``, ``loops``;
6. the verifier -- ``executor``, ``facts``, ``pairs``, ``shapes`` (cache keys of a kernel's
   shape), ``verifier``, ``witness`` (a model read back as a witness with the launch and the
   parameter values).

Statements and loops recurse into each other through one dispatch on the node class: the
loop layer adds ``visit_Loop`` to the statement visitor it extends, and hands itself to
invariant inference as a ``LoopRunner``; no module imports a higher one, not even for types.

Public entry point: :class:`SDVOracle` (registered as ``sdv`` in :mod:`oracle.registry`).
"""

from oracle.sdv.verifier import SDVOracle

__all__ = ["SDVOracle"]
