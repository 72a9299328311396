"""``named``: the named-barrier checker -- WEFT ([WEFT]) on one CTA, from CUDA source.

Owns the oracle for ``bar.sync``/``bar.arrive`` kernels: the concrete emulation of every
thread to a straight-line program of barrier and memory commands, the barrier schedule, the
happens-before intervals between generations and the races and deadlocks found from them.

May import: :mod:`oracle.base` and :mod:`kpl` -- never :mod:`oracle.sdv`,
:mod:`oracle.dynamic` or :mod:`autosync`.  Inside, one way: ``values`` (runtime values,
dependence) → ``evaluator`` (expressions) → ``emulate`` (threads to programs, WEFT Sec. 5.1)
→ ``races`` (generations and intervals, Sec. 5.2) → ``checker`` (schedule, diagnostics, the
oracle).

Public entry points: :class:`NamedBarrierOracle` (registered as ``named`` in
:mod:`oracle.registry`), :func:`uses_named_barriers`, :func:`describe_threads`, and
:class:`Emulator` (the emulation alone, used by the named-barrier synthesis).
"""

from oracle.named.checker import NamedBarrierOracle, describe_threads, uses_named_barriers
from oracle.named.emulate import Emulator

__all__ = ["Emulator", "NamedBarrierOracle", "describe_threads", "uses_named_barriers"]
