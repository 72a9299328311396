"""``dynamic``: the concrete checker -- every thread of one or two blocks, one input, one run.

Owns the concrete-execution oracle ([BARRACUDA]-style shadow memory under SDV semantics,
[AutoSync] Sec. III-A): values of C arithmetic on concrete inputs, the vectorised evaluator,
the statement interpreter, the annotation checks and the race log.  Its races are real for
that launch and input; it never proves anything.

May import: :mod:`oracle.base` and :mod:`kpl` -- never :mod:`oracle.sdv`, :mod:`oracle.named`
or :mod:`autosync`.  Inside, one way: ``values`` (defaults, opaque calls) → ``races``
(shadow memory) → ``evaluator`` (expressions, memory) → ``annot`` (annotation checks) →
``executor`` (statements) → ``checker`` (inputs, the oracle).

Public entry point: :class:`DynamicOracle` (registered as ``dynamic`` in
:mod:`oracle.registry`).
"""

from oracle.dynamic.checker import DynamicOracle

__all__ = ["DynamicOracle"]
