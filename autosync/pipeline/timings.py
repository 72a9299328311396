"""Where a run's time went, stage by stage (``check --timings``, ``fix --timings``; issue 35).

A run asked for its timings carries one :class:`Timings` on its guard's token
(:class:`autosync.pipeline.guard.CancelToken`, whose module finds it: ``current_timings``,
``stage``); the pipeline records each stage into it with
``time.perf_counter``: Python imports, clang (with the reading of its JSON AST), translation
to KPL, each oracle call with its query count, MaxSAT (the synthesis less its oracle calls),
rendering, the re-parse and re-check of the patched text, ``nvcc``.  Nothing is recorded
when no one asked (``current_timings()`` is None), so a plain run pays one attribute look-up per
stage.

clang is timed by wrapping the front end's ``run_clang`` for the one load (:func:`clang_timed`)
rather than by a hook in :mod:`kpl.frontend`: the front end knows nothing of timings, and the
wrapper is only installed for a run that asked for them.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from autosync import STARTED


@dataclass
class Stage:
    """One row of the table: what ran, for how long, and the oracle's queries when it is an
    oracle call."""

    name: str
    seconds: float
    queries: int | None = None


@dataclass
class Timings:
    """The stages of one run, in the order they ended; ``phase`` names the part of the
    pipeline the next oracle calls belong to (``check``, ``synthesis``, ``re-check``)."""

    stages: list[Stage] = field(default_factory=list)
    phase: str = "check"
    #: where ``total`` counts from: the package's first import in a command-line process,
    #: else (in-process: tests, a batch worker) the table's creation
    origin: float = field(default_factory=time.perf_counter)
    #: seconds spent in clang since the last :meth:`take_clang`
    clang: float = 0.0
    #: oracle calls so far, and their seconds since the last :meth:`take_oracle`
    calls: int = 0
    oracle: float = 0.0

    def add(self, name: str, seconds: float, queries: int | None = None) -> None:
        self.stages.append(Stage(name, seconds, queries))

    def add_oracle_call(self, seconds: float, queries: int | None) -> None:
        self.calls += 1
        self.oracle += seconds
        self.add(f"oracle call {self.calls} ({self.phase})", seconds, queries)

    def take_clang(self) -> float:
        seconds, self.clang = self.clang, 0.0
        return seconds

    def take_oracle(self) -> float:
        seconds, self.oracle = self.oracle, 0.0
        return seconds

    @property
    def total(self) -> float:
        """Seconds since ``origin`` (stages ``beside`` others overlap them: the sum of the rows
        is not the total)."""
        return time.perf_counter() - self.origin

    def lines(self) -> list[str]:
        """The table as text (stderr of ``--timings``)."""
        width = max([len(s.name) for s in self.stages] + [5])
        out = ["timings:"]
        for s in self.stages:
            extra = f"  {s.queries} queries" if s.queries is not None else ""
            out.append(f"  {s.name:<{width}}  {s.seconds:8.3f} s{extra}")
        out.append(f"  {'total':<{width}}  {self.total:8.3f} s")
        return out

    def json(self) -> dict[str, Any]:
        """The ``timings`` object of ``--format json``."""
        return {"stages": [{"stage": s.name, "seconds": round(s.seconds, 4),
                            **({"queries": s.queries} if s.queries is not None else {})}
                           for s in self.stages],
                "total": round(self.total, 4)}


def imports(timings: Timings, modules: list[str], process: bool) -> None:
    """Record the command line's own imports (``process``: this process runs one command;
    from the package's first import until now) and import ``modules`` -- those the command
    imports anyway, later -- as a stage of their own, so that no later stage carries an import."""
    if process:
        timings.origin = STARTED
        timings.add("imports (command line)", time.perf_counter() - STARTED)
    t0 = time.perf_counter()
    for name in modules:
        importlib.import_module(name)
    timings.add("imports (the command's modules)", time.perf_counter() - t0)


@contextmanager
def clang_timed(timings: Timings | None) -> Iterator[None]:
    """While loading: every ``run_clang`` of the front end adds its seconds to
    ``timings.clang`` (see the module docstring)."""
    if timings is None:
        yield
        return
    from kpl.frontend import clang, kernels, opencl_host

    def timed(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return clang.run_clang(*args, **kwargs)
        finally:
            timings.clang += time.perf_counter() - t0

    patched: list[tuple[Any, Callable[..., Any]]] = [(kernels, kernels.run_clang), (opencl_host, opencl_host.run_clang)]
    for module, _ in patched:
        module.run_clang = timed  # type: ignore[attr-defined]
    try:
        yield
    finally:
        for module, original in patched:
            module.run_clang = original  # type: ignore[attr-defined]


__all__ = ["Stage", "Timings", "imports", "clang_timed"]
