"""``dynamic``: a concrete-execution race and barrier-divergence checker.

Why a second oracle: the bundled ``sdv`` verifier is a symbolic two-thread reduction; a bug in
its encoding silently turns into a wrong ``autosync fix``.  This oracle runs the kernel
*concretely* under the same semantics -- synchronous, delayed visibility (SDV, [AutoSync] Sec. III-A,
predicated form of Fig. 9) -- for EVERY thread of one or two blocks, and reports
exactly the races and divergent barriers of that one run.  It is therefore never a proof
(one input, one or two blocks), but every race it reports is real for that launch and input,
which is what the differential test (``tests/test_differential.py``) exploits: whatever
``dynamic`` finds, a sound ``sdv`` must report at the same label pair.

Execution model ([AutoSync] Fig. 9; [LockStep] for predicated control flow):

* All threads of a block execute each statement in lock step; each thread has a predicate.
  A statement executed with every predicate false has no effect, so the interpreter skips it.
  Expressions are evaluated *vectorised*: one Python evaluation of an expression node yields
  the values of all enabled threads (reads of one lock-step instruction happen before its
  writes, as on the hardware).
* ``if``: the then-block runs with the threads whose guard holds, the else-block with the
  others.  A loop iterates while its guard holds for ANY thread; ``break``/``continue``/
  ``return`` remove threads from the enabled set (per-thread masks); threads that executed
  ``continue`` are re-enabled before :attr:`kpl.ast.Loop.latch`, threads that executed
  ``break`` after the loop.  A ``Switch`` is a loop that runs once; an ``Inline`` block is a
  ``__device__`` function whose ``Return`` stores ``result`` and leaves the block.  ``&&``,
  ``||`` and ``?:`` short-circuit per thread (only the chosen operand's reads happen).
* Blocks are independent: block 0 runs to completion, then block 1 (one legal schedule).

Race detection (BARRACUDA-style shadow memory, [BARRACUDA] Sec. 3.3 and 4.3.3, simplified by
lock-step execution): a block-wide *epoch* counter advances at every barrier that is executed
by at least one thread.  Per memory cell the shadow keeps the accesses of the current epoch
as ``kind -> (label, iteration vector) -> {warp: thread}``.  A new access by thread ``t``
races with a recorded access by another thread when at least one writes, not both are atomic
([WarpsAtomics] Def. 2.2; :func:`oracle.base.conflicts`), and no barrier separates them (same epoch).  Global memory additionally
keeps, per cell and block, every ``(label, kind)`` ever seen: accesses of two different blocks
always race (a barrier orders neither).  Compressing the thread set per key to two entries of
distinct warps is lossless for *which label pairs race*; the iteration vector (one fresh id per
loop iteration, outermost first) gives the optional ``loop_depth`` fact: 0 when the two
accesses lie in the same iteration of every shared loop, ``j`` when they first differ at the
``j``-th shared loop (outermost = 1), as used by Alg. 1's P^j variables.

Warp-synchronous mode (``launch.warp_sync = N``, [WarpsAtomics] Sec. 3): threads of one warp are
ordered by every instruction, so pairs within one warp never race across statements, and
within one statement instance only two *writes* of the same cell race (the "re-sync" method).

Barrier divergence ([AutoSync] Sec. III-A; [BARRACUDA] Sec. 3.3.2, the BAR rule): a
barrier executed while some but not all threads of the block are enabled -- including threads
that returned early.  A barrier with no enabled thread is not executed at all (it neither
diverges nor synchronizes, as on the hardware).  A divergent barrier still advances the epoch
(the enabled threads synchronise), unless ``stop_at_divergence=True``, which ends the block's
run at the first divergence so that every reported race precedes it.

Inputs: scalar parameters are drawn (seeded) from small values, values derived from the launch
and random ones, until ``kernel.requires`` holds; failing that, the ``==`` conjuncts of the
requirements are solved by substitution.  Never-written memory cells and uninitialised
locals read as deterministic pseudo-random values (memory) or 0 (locals).  A run whose signed
arithmetic overflows is no defined execution (undefined behaviour; ``sdv`` assumes it away,
:mod:`oracle.dynamic.evaluator`): it is cut there, and while some scalar input is free the
run is repeated with other inputs (data that grows with ``n`` iterations overflows for a
large ``n`` only); the last cut run says "unknown", never "verified".

Stages (one module each): :mod:`kpl.ctypes` (C arithmetic), :mod:`oracle.dynamic.values`
(defaults, opaque calls), :mod:`oracle.dynamic.evaluator` (expressions, memory),
:mod:`oracle.dynamic.executor` (statements), :mod:`oracle.dynamic.races` (shadow memory); this
module chooses the inputs and turns one run into a :class:`~oracle.base.Verdict`.
"""

from __future__ import annotations

import dataclasses
import random
import time
from dataclasses import dataclass, replace
from typing import Any

from kpl.ast import Binary, Cast, CType, Expr, Kernel, NamedBarrier, Var, walk_stmts
from kpl.ctypes import convert
from kpl.labels import LabelTree
from kpl.launch import representative
from oracle.base import (
    OracleBase,
    Race,
    Unknown,
    Verdict,
    Witness,
    assertion_finding,
    dim3_id,
    replayable,
    too_big_to_execute,
)
from oracle.dynamic.evaluator import SignedOverflow
from oracle.dynamic.executor import AssumeFailed, StepLimit, Unsupported, _Run
from oracle.dynamic.values import det_hash, truthy

__all__ = ["DynamicOracle"]


# --------------------------------------------------------------------------- verdict

#: runs tried with other scalar inputs after one whose signed arithmetic overflowed
_INPUT_TRIES = 8


def _classify_blocks(races: list[Race]) -> list[Race]:
    """Races between blocks are their own class (no barrier orders them), decided as in
    ``sdv``: a label pair the run saw race inside one block is an intra-block race, and its
    records from two different blocks are dropped (a barrier may order the first; the second
    shows again once it does); a pair seen only between blocks is marked ``cross_block``."""
    inside = {r.key for r in races if r.witness is None or not r.witness.inter_block}
    out = []
    for r in races:
        if r.witness is not None and r.witness.inter_block:
            if r.key in inside:
                continue
            r = dataclasses.replace(r, cross_block=True)
        out.append(r)
    return out



# --------------------------------------------------------------------------- inputs


def _conjuncts(e: Expr) -> list[Expr]:
    if isinstance(e, Binary) and e.op == "&&":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


@dataclass
class _InputChoice:
    params: dict[str, Any]
    ok: bool


class DynamicOracle(OracleBase):
    """Concrete lock-step execution of one launch; see the module docstring.

    ``blocks``: how many blocks to run (1 or 2; fewer if the grid is smaller).  ``seed``:
    drives inputs and never-written memory.  ``inputs``: scalar parameter values by name, and
    initial contents (list or ``{index: value}``) of global arrays by parameter name.
    ``max_steps``: bound on executed statement instances plus loop iterations; exceeding it
    yields ``Unknown("step limit", loop label)``.  Options: ``stop_at_divergence`` (bool).
    """

    name = "dynamic"

    def __init__(self, blocks: int = 2, seed: int = 0, inputs: dict[str, Any] | None = None,
                 max_steps: int = 2_000_000, **options: Any) -> None:
        self.blocks = max(1, blocks)
        self.seed = seed
        self.inputs = dict(inputs or {})
        self.max_steps = max_steps
        self.stop_at_divergence = bool(options.get("stop_at_divergence", False))
        #: two writes of one value are no race (GPUVerify's default; False: --no-benign)
        self.benign = bool(options.get("benign", True))
        #: whether the last run had a racy read (a value written by another thread in the
        #: same interval): ``sdv`` promises every race of a run only up to the first one
        self.last_racy_read = False
        self.options = options
        #: the scalar inputs and final global memory of the last run (for tests and reports)
        self.last_params: dict[str, Any] = {}
        #: the concrete launches the last check ran (several for a symbolic launch)
        self.last_launches: list[Any] = []
        self.last_globals: dict[str, dict[int, Any]] = {}

    # ------------------------------------------------------------------ inputs

    def _candidates(self, kernel: Kernel, ptype: CType, rng: random.Random) -> Any:
        bx = kernel.launch.concrete_block()[0]
        n = kernel.launch.threads_per_block
        total = n * kernel.launch.blocks
        if ptype.kind == "float":
            return convert(rng.choice([0.0, 0.5, 1.0, 2.0, rng.random(), rng.uniform(-4, 4)]), ptype)
        if ptype.kind == "bool":
            return rng.randint(0, 1)
        r = rng.random()
        if r < 0.45:
            v = rng.randint(1, 8)
        elif r < 0.6:
            v = rng.choice([0, 1, 2, 4, 16, 32])
        elif r < 0.8:
            v = rng.choice([bx, n, total, 2 * n, n // 2 or 1])
        elif r < 0.9:
            v = rng.randint(0, 4 * max(n, 1))
        else:
            v = rng.randint(-8, 1 << 12)
        return convert(v, ptype)

    def _requires_hold(self, kernel: Kernel, params: dict[str, Any]) -> bool:
        if not kernel.requires:
            return True
        run = _Run(kernel, LabelTree(kernel), params, {}, self.seed, 10_000, False)
        try:
            for req in kernel.requires:
                if not all(truthy(v) for v in run.ev(req, [0])):
                    return False
        except Exception:  # noqa: BLE001 - an unevaluable requirement is simply not met
            return False
        return True

    def _solve_equalities(self, kernel: Kernel, params: dict[str, Any],
                          scalars: dict[str, CType]) -> dict[str, Any]:
        """Fallback: satisfy ``p == e`` conjuncts of the requirements by substitution."""
        out = dict(params)
        run = _Run(kernel, LabelTree(kernel), out, {}, self.seed, 10_000, False)
        for _ in range(3):
            for req in kernel.requires:
                for conj in _conjuncts(req):
                    if not (isinstance(conj, Binary) and conj.op == "=="):
                        continue
                    for var, other in ((conj.left, conj.right), (conj.right, conj.left)):
                        while isinstance(var, Cast):
                            var = var.operand
                        if isinstance(var, Var) and var.name in scalars and var.name not in self.inputs:
                            run.params = out
                            run._reset_block(0)
                            try:
                                value = run.ev(other, [0])[0]
                            except Exception:  # noqa: BLE001
                                continue
                            out[var.name] = convert(value, scalars[var.name])
                            break
        return out

    def choose_inputs(self, kernel: Kernel, attempt: int = 0) -> _InputChoice:
        """Scalar inputs satisfying ``__requires``; ``attempt`` > 0 draws another choice (after
        a run whose signed arithmetic overflowed, see :meth:`check`)."""
        scalars = {p.name: p.type for p in kernel.params if p.var is not None and p.mem is None}
        given = {k: convert(v, scalars[k]) for k, v in self.inputs.items() if k in scalars}
        rng = random.Random(det_hash(self.seed, kernel.name, *([attempt] if attempt else [])))
        free = [n for n in scalars if n not in given]
        if not kernel.requires:
            return _InputChoice(given | {n: self._candidates(kernel, scalars[n], rng) for n in free}, True)
        for _ in range(300):
            params = given | {n: self._candidates(kernel, scalars[n], rng) for n in free}
            if self._requires_hold(kernel, params):
                return _InputChoice(params, True)
        for _ in range(50):
            params = given | {n: self._candidates(kernel, scalars[n], rng) for n in free}
            params = self._solve_equalities(kernel, params, scalars)
            if self._requires_hold(kernel, params):
                return _InputChoice(params, True)
        return _InputChoice(params, False)

    # ------------------------------------------------------------------ check

    def check(self, kernel: Kernel) -> Verdict:
        """Run ``kernel`` under its launch; a symbolic launch (:mod:`kpl.launch`) under each of
        its representative concrete launches (:attr:`last_launches` names them), with the
        launch's relations among the conditions on the inputs."""
        launches = representative(kernel.launch)
        self.last_launches = launches
        if len(launches) == 1 and not kernel.launch.symbolic and not kernel.launch.assumptions:
            return self._check_one(kernel)
        total = Verdict()
        seen: set[object] = set()
        for launch in launches:
            v = self._check_one(replace(kernel, launch=launch,
                                                    requires=[*kernel.requires, *launch.assumptions]))
            for race in v.races:
                if race.key not in seen:
                    seen.add(race.key)
                    total.races.append(race)
            total.divergences += [d for d in v.divergences if d.label not in {e.label for e in total.divergences}]
            total.unknowns += [u for u in v.unknowns if u not in total.unknowns]
            total.findings += [f for f in v.findings if f not in total.findings]
            total.queries += v.queries
            total.seconds += v.seconds
        return total

    def _check_one(self, kernel: Kernel) -> Verdict:
        start = time.perf_counter()
        verdict = Verdict(queries=1)
        big = too_big_to_execute(kernel, self.name)
        if big is not None:
            verdict.unknowns.append(big)
            return verdict
        named = [s for s in walk_stmts(kernel.body) if isinstance(s, NamedBarrier)]
        if named or kernel.uses_named_barriers:
            label = named[0].label if named else None
            line = named[0].span.line if named and named[0].span else None
            verdict.unknowns.append(Unknown(
                "named barriers (bar.sync/bar.arrive) are not modelled by the dynamic oracle; "
                "use --oracle named", label, line))
            verdict.seconds = time.perf_counter() - start
            return verdict
        tree = LabelTree(kernel)
        free = any(p.var is not None and p.mem is None and p.name not in self.inputs
                   for p in kernel.params)
        for attempt in range(_INPUT_TRIES if free else 1):
            choice = self.choose_inputs(kernel, attempt)
            if not choice.ok and attempt:
                break  # keep the last run: its inputs satisfied __requires
            self.last_params = dict(choice.params)
            if not choice.ok:
                verdict.unknowns.append(Unknown("no scalar inputs satisfying __requires were found"))
                verdict.seconds = time.perf_counter() - start
                return verdict
            run, stop = self._run(kernel, tree, choice)
            used = choice
            # inputs under which signed arithmetic overflows make no defined execution (data
            # that grows with ``n`` iterations): other inputs, as long as some are free
            if not isinstance(stop, SignedOverflow):
                break
        if stop is not None:
            verdict.unknowns.append(self._stopped(stop, kernel, tree, used))
        self.last_globals = run.glob
        self.last_racy_read = run.racy_read
        races = [dataclasses.replace(r, witness=replayable(r.witness, kernel, used.params))
                 for r in _classify_blocks(list(run.races.values()))]
        verdict.races = sorted(races, key=lambda r: (
            tree.order(r.first), tree.order(r.second), r.array, r.kinds,
            -1 if r.loop_depth is None else r.loop_depth))
        verdict.divergences = sorted(
            (dataclasses.replace(d, witness=replayable(d.witness, kernel, used.params))
             for d in run.divergences.values()), key=lambda d: tree.order(d.label))
        for label in sorted(run.failed_asserts, key=tree.order):
            kind, witness = run.failed_asserts[label]
            verdict.findings.append(assertion_finding(kind, label, witness))
        verdict.seconds = time.perf_counter() - start
        return verdict

    def _run(self, kernel: Kernel, tree: LabelTree,
             choice: _InputChoice) -> tuple[_Run, Exception | None]:
        """One concrete run under ``choice``, and the exception that cut it (None: none)."""
        memory_inputs = {k: v for k, v in self.inputs.items()
                         if isinstance(v, (list, tuple, dict))}
        run = _Run(kernel, tree, choice.params, memory_inputs, self.seed, self.max_steps,
                   self.stop_at_divergence)
        run.benign = self.benign
        try:
            for b in range(min(self.blocks, kernel.launch.blocks)):
                run.run_block(b)
        except (StepLimit, SignedOverflow, AssumeFailed, Unsupported) as exc:
            return run, exc
        return run, None

    def _stopped(self, exc: Exception, kernel: Kernel, tree: LabelTree,
                 choice: _InputChoice) -> Unknown:
        """The "unknown" of a run cut by ``exc``."""
        label = getattr(exc, "label", None)
        line = self._line(tree, label)
        if isinstance(exc, StepLimit):
            return Unknown("step limit", label, line)
        if isinstance(exc, SignedOverflow):
            item, group = ("work-item", "group") if kernel.language == "opencl" else ("thread", "block")
            return Unknown(
                f"{exc.what} in this run, for {item} "
                f"{dim3_id(exc.thread)} of {group} {dim3_id(exc.block)}; "
                f"{replayable(Witness(exc.thread, exc.thread), kernel, choice.params).conditions(kernel.language)}; "
                "the run was cut there", label, line)
        if isinstance(exc, AssumeFailed):
            return Unknown("an assumption is false in this run; the run was cut there", label, line)
        return Unknown(str(exc), label, line)

    @staticmethod
    def _line(tree: LabelTree, label: int | None) -> int | None:
        if label is None or label not in tree.nodes:
            return None
        return tree.line(label)
