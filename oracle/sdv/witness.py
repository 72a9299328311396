"""Witnesses a person can check: a satisfying model of a race or divergence query, read back.

Stage: the verifier (it reads the executor's symbolic ids, launch and parameters).  Issue 27,
item 4: every race and divergence names its threads and blocks, the element, the launch and
the values of the kernel's scalar parameters (``when n = 3, pitch = 0``), so that the report
can be replayed by hand; the model holds them all (the parameters are the constants
:meth:`oracle.sdv.executor.Executor.run` made, recorded in ``Machine.params``).

A satisfiable race query's model is an execution (``Machine.check_witness`` adds the facts kept
out of the solver), and is made small before it is read back: z3 picks parameter
values and symbolic sizes such as ``n = 536870912`` or ``<<<7325827, 256>>>``, which are
correct but hard to replay; the query is asked again with every scalar parameter and symbolic
size bounded by 64, then 1024, each in a short time bound, and the first model found replaces
the old one (:func:`small_model`).  The bounds only choose among the models: a query
unsatisfiable under them keeps the model it had.
"""

from __future__ import annotations

import time
from typing import Any

import z3

from oracle.base import ParamValue, Witness
from oracle.sdv.executor import Executor

#: the bounds :func:`small_model` tries, smallest first, the time bound of each query, and
#: the time one run may spend on it in all: a kernel with many races keeps the solver's own
#: models for the rest (a mutant with 30 races took 30 s more without it)
SMALL_BOUNDS = (64, 1024)
SMALL_MS = 500
SMALL_BUDGET_S = 2.0


def small_model(ex: Executor, query: list[z3.BoolRef], m: z3.ModelRef) -> z3.ModelRef:
    """A model of ``query`` whose scalar parameters and symbolic launch sizes are small where
    one is found quickly, else ``m`` (module docstring)."""
    types = {p.name: p.var.type for p in ex.kernel.params if p.var is not None}
    ints = [(x, types[n].signed) for n, x in ex.params.items()
            if isinstance(x, z3.BitVecRef) and n in types]
    sizes = [x for x in (*ex.bdim, *ex.gdim) if not z3.is_bv_value(x)]
    if not ints and not sizes or ex.small_witness_s >= SMALL_BUDGET_S:
        return m
    start = time.perf_counter()
    try:
        for bound in SMALL_BOUNDS:
            bounds = [z3.And(x >= -bound, x <= bound) if signed else z3.ULE(x, bound)
                      for x, signed in ints] + [z3.ULE(x, bound) for x in sizes]
            r, m2 = ex.q.check(*query, *bounds, limit_ms=SMALL_MS)
            if r == z3.sat and m2 is not None:
                return m2
        return m
    finally:
        ex.small_witness_s += time.perf_counter() - start


def witness(ex: Executor, m: z3.ModelRef, idx: z3.BitVecRef | None) -> Witness:
    """The model ``m`` of a query about run ``ex`` as a witness: threads, blocks, the element
    ``idx`` (signed), the launch (constants, or the model's values of symbolic sizes) and
    the scalar parameters' values, read as signed or unsigned as their C types are."""
    def val(x: Any, signed: bool = False) -> int:
        if isinstance(x, int):
            return x
        v = m.eval(x, model_completion=True)
        return int(v.as_signed_long() if signed else v.as_long())  # type: ignore[attr-defined]

    def ids(xs: Any) -> tuple[int, int, int]:
        v = [val(x) for x in xs]
        return (v[0], v[1], v[2])

    index = None
    if idx is not None:
        v = m.eval(idx, model_completion=True)
        if z3.is_bv_value(v):
            index = v.as_signed_long()  # type: ignore[attr-defined]
    params: list[tuple[str, ParamValue]] = []
    types = {p.name: p.var.type for p in ex.kernel.params if p.var is not None}
    for name, x in ex.params.items():
        if isinstance(x, z3.BoolRef):
            params.append((name, z3.is_true(m.eval(x, model_completion=True))))
        elif isinstance(x, z3.BitVecRef):
            params.append((name, val(x, types[name].signed)))
    return Witness(ids(ex.tid[0]), ids(ex.tid[1]), ids(ex.bid[0]), ids(ex.bid[1]), index,
                   ids(ex.bdim), ids(ex.gdim), tuple(params))
