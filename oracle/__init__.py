"""``oracle``: verifiers behind one interface (CONTRIBUTING.md, "Layout").

:mod:`oracle.base` is the interface and its data, :mod:`oracle.registry` finds an oracle by
name; each oracle is a package behind them -- :mod:`oracle.sdv` (symbolic, two threads),
:mod:`oracle.dynamic` (concrete, every thread), :mod:`oracle.named` (named barriers, WEFT) --
whose ``__init__`` names its entry points and whose docstring says what it may import.  The
packages import :mod:`oracle.base` and :mod:`kpl`, never each other; nothing here imports
:mod:`autosync`.
"""
