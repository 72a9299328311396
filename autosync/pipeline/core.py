"""The fix/check pipeline shared by every front end (``autosync`` commands, the language server).

One place decides how a file becomes kernels (:class:`KernelOptions`, :func:`load`), which
oracle judges a kernel (:func:`pick_oracle`: ``--oracle``, else ``named`` for kernels with
named barriers when that checker is installed, else ``sdv``), how an oracle failure reads
(:func:`run_oracle`: an "unknown", never a pass) and how a file is fixed (:func:`fix_kernels`:
synthesis, rendering, end-to-end re-verification, nvcc).  The command line and the editor call
these, so ``autosync check`` and the editor's diagnostics use the same oracle, and the editor's
quick-fix is exactly the text ``autosync fix`` writes.

Nothing here prints or exits: failures are exceptions (:mod:`autosync.pipeline.errors`: :class:`BadInput`
for a usage problem, :class:`Timeout`, :class:`Interrupted`, :class:`Unsupported`,
:class:`InternalError`, plus the front end's ``KplError`` and the oracle's ``OracleError``) that
each front end turns into its own kind of message.  How a command runs (worker thread, Ctrl-C,
``--timeout``) is :mod:`autosync.pipeline.guard`; reading and writing the user's file is
:mod:`autosync.pipeline.files`.

Why one module of ~500 lines: loading, oracle choice and the fix with its end-to-end check are
the one sequence every front end runs; the parts that are not that sequence (the guard, the
file I/O, the errors, macro sites) already live in their own modules.
"""

from __future__ import annotations

import dataclasses
import gc
import importlib
import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from autosync.pipeline.errors import BadInput, InternalError, Interrupted, Timeout, Unsupported
from autosync.pipeline.files import (
    check_writable,
    keep_line_endings,
    line_ending_at,
    read_source,
    temp_name,
    to_lf,
    write_file,
)
from autosync.pipeline.guard import (
    CHECK_SHARE,
    PROGRESS_AFTER_S,
    RECHECK_SHARE,
    SYNTHESIS_SHARE,
    CancelToken,
    current_timings,
    current_token,
    is_budget_unknown,
    nesting_depth,
    note_iteration,
    note_kernel,
    oracle_deadline,
    run_guarded,
    stage,
    watch,
)
from autosync.pipeline.options import KernelOptions, check_launch
from autosync.pipeline.outcome import FixOutcome, KernelFix
from autosync.pipeline.patching import render_fixes, widenable
from autosync.pipeline.timings import clang_timed

if TYPE_CHECKING:
    from collections.abc import Callable

    from kpl.ast import Kernel
    from oracle.base import Oracle, Verdict

# --------------------------------------------------------------------------- kernels and oracles


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector paused for one phase: loading a file, one oracle call.  Both
    build millions of objects that form no cycles and live to the phase's end -- clang's JSON
    AST (~13 KB a statement), the KPL and the z3 terms of every access -- and each full
    collection walks all of them again: a quarter of the CPU time of a 20,000-statement
    kernel's check (issue 28, item 4).  Nothing is kept from the collector: it runs again
    after the phase, on whatever cycles the phase left."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def load(opts: KernelOptions, text: str | None = None, *, what: str = "") -> list[Kernel]:
    """The kernels of ``opts.file`` (or of ``text`` parsed as that file): all of them, in file
    order, or the one named by ``--kernel`` (unknown name -> KplError listing the names).
    ``what`` qualifies the stages' names in ``--timings`` (`` (re-parse)``)."""
    from autosync.pipeline import project  # the launch of each kernel: flags, header, config, host code

    timings = current_timings()
    t0 = time.perf_counter()
    try:
        with collector_paused(), clang_timed(timings):
            kernels = project.load(opts, text)
    finally:
        if timings is not None:
            clang = timings.take_clang()
            timings.add(f"clang{what}", clang)
            timings.add(f"translation to KPL{what}", time.perf_counter() - t0 - clang)
    source = kernels[0].source_text if kernels else (text or "")
    for k in kernels:
        check_launch(k, opts, source)
    return kernels


def pick_oracle(name: str | None, kernel: Kernel, timeout: float | None, file: str | None, *,
                benign: bool = True, synthesis: bool = True) -> tuple[str, Oracle]:
    """``--oracle NAME``, or ``named`` for kernels with named barriers, else ``sdv``;
    ``benign=False`` (``--no-benign``) makes two writes of one value a race;
    ``synthesis=False``: a verdict only, without the facts that guide synthesis (sdv's
    ``same_warp`` and uniform-guard queries).  In a guarded run with a ``--timeout``, every
    call of the oracle ends by the run's deadline (:func:`autosync.pipeline.guard.oracle_deadline`)
    with an "unknown" past it."""
    from oracle import registry

    chosen = name or ("named" if kernel.uses_named_barriers else "sdv")
    if chosen not in registry.available():
        raise BadInput(f"unknown oracle '{chosen}' (known: {', '.join(registry.available())})", file)
    if name is None and chosen == "named":
        try:
            importlib.import_module("oracle.named")
        except ImportError:
            chosen = "sdv"
    options: dict[str, Any] = {}
    deadline = oracle_deadline()
    if timeout:
        options["timeout"] = timeout if deadline is None else max(0.1, deadline - time.monotonic())
    if deadline is not None and chosen == "sdv":
        options["deadline"] = deadline
    if not benign or "--no-benign-tolerance" in kernel.options:  # the flag, or GPUVerify's header
        options["benign"] = False
    if not synthesis and chosen == "sdv":
        options.update(warp_facts=False, uniform_guards=False)
    try:
        orc = registry.get_oracle(chosen, **options)
    except TypeError as exc:
        if not (options and "timeout" in str(exc)):
            raise
        orc = registry.get_oracle(chosen)  # this oracle has no time limit of its own
    if kernel.options & _SCOPES:
        orc = _Scoped(orc)  # type: ignore[assignment]
    return chosen, watch(orc)


#: GPUVerify's header options that narrow what is checked (kpl.header.HONOURED)
_SCOPES = frozenset({"--only-intra-group", "--only-divergence"})


class _Scoped:
    """An oracle whose verdicts keep only what GPUVerify's header asks to check (the
    kernel's options): ``--only-intra-group`` drops races only between groups (blocks),
    ``--only-divergence`` every race; divergence, findings and unknowns stay.  The one
    place for both, under ``check`` and ``fix`` alike."""

    def __init__(self, inner: Oracle) -> None:
        self._inner = inner

    def check(self, kernel: Kernel) -> Verdict:
        verdict = self._inner.check(kernel)
        if "--only-divergence" in kernel.options:
            return dataclasses.replace(verdict, races=[])
        return dataclasses.replace(verdict, races=[r for r in verdict.races if not r.cross_block])

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def run_oracle(oracle: Oracle, kernel: Kernel) -> Verdict:
    """One oracle call; an oracle that cannot analyse the kernel yields an "unknown"."""
    from oracle.base import OracleError, Unknown, Verdict

    try:
        with collector_paused():
            return oracle.check(kernel)
    except OracleError as exc:
        if exc.timeout:
            raise Timeout(str(exc)) from None
        return Verdict(unknowns=[Unknown(str(exc), line=exc.line)])


# --------------------------------------------------------------------------- fix


def lc_ic(value: float) -> Fraction | int:
    frac = Fraction(value).limit_denominator(10**6)
    return int(frac) if frac.denominator == 1 else frac


def fix_kernels(opts: KernelOptions, *, oracle: str | None, timeout: float | None, solver: str, lc: float,
         ic: float, use_facts: bool, naive: bool, target: str, text: str | None = None,
         warp_cost: Fraction | int | None = Fraction(1, 4), split: bool = True,
         grid_sync: bool = False, minimize: bool = False) -> FixOutcome:
    """:func:`fix_once`; when that is unfixable because a statement races with itself, the
    statement is split into a read and a write and the split text fixed again
    (:func:`autosync.pipeline.split_fix.split_and_fix`; ``split=False`` keeps the paper's behaviour)."""
    def once(source: str | None) -> FixOutcome:
        return fix_once(opts, oracle=oracle, timeout=timeout, solver=solver, lc=lc, ic=ic,
                        use_facts=use_facts, naive=naive, target=target, text=source,
                        warp_cost=warp_cost, grid_sync=grid_sync, minimize=minimize)

    outcome = once(text)
    if not split or outcome.status != "unfixable":
        return outcome
    from autosync.pipeline.named_fix import named_and_fix
    from autosync.pipeline.split_fix import split_and_fix

    outcome = split_and_fix(outcome, once)
    if outcome.status != "unfixable":
        return outcome
    return named_and_fix(outcome, once, lambda patched: nvcc_check(opts, to_lf(outcome.original), patched),
                         lc=lc_ic(lc), ic=lc_ic(ic))


def fix_once(opts: KernelOptions, *, oracle: str | None, timeout: float | None, solver: str, lc: float,
             ic: float, use_facts: bool, naive: bool, target: str, text: str | None = None,
             warp_cost: Fraction | int | None = Fraction(1, 4), grid_sync: bool = False,
             minimize: bool = False) -> FixOutcome:
    """``autosync fix`` minus the writing, for the file or for ``text`` given as that file
    (the language server passes an unsaved buffer): the one fix pipeline of the project --
    SYNTHESIZE ([AutoSync] Alg. 1) per kernel, the placement rendered into the ORIGINAL text,
    then the end-to-end check (re-parse the patched text, verify it with the same oracle, and
    ``nvcc --ptx`` when installed).  Raises :class:`InternalError` when that check fails, so no
    caller ever receives an unverified patch.  Grid barriers (issue 37) are synthesized for a
    kernel :func:`autosync.pipeline.launch.grid_permit` allows (``grid_sync``: ``--grid-sync``);
    ``minimize``: the developer's barriers are candidates too (:mod:`autosync.pipeline.minimize`).
    Its oracle calls end by :data:`~autosync.pipeline.guard.SYNTHESIS_SHARE` of ``--timeout``, the
    re-check's by :data:`~autosync.pipeline.guard.RECHECK_SHARE`."""
    from autosync.algorithm.cost import DEFAULT_GRID_COST
    from autosync.pipeline.launch import grid_permit

    token = current_token()
    if token is not None and token.deadline is not None:  # a run with a time budget (check, fix)
        token.budget(SYNTHESIS_SHARE)
    raw = text if text is not None else read_source(opts.file)
    original = to_lf(raw)
    kernels, launches = _by_name(load(opts, original), opts.file, naive)
    opencl = any(k.language == "opencl" for k in kernels)
    if opencl:
        # OpenCL C has no __syncthreads(): the work-group barrier, with the cheapest fence
        # that suffices (autosync.algorithm.fences)
        target = "opencl"
    fixes: list[KernelFix] = []
    outcome_notes: list[str] = []
    timings = current_timings()
    for i, k in enumerate(kernels):
        note_kernel(k.name, i + 1, len(kernels))
        mini = None
        if timings is not None:
            timings.phase = "synthesis"
            timings.take_oracle()
            t0 = time.perf_counter()
        name, orc = pick_oracle(oracle, k, timeout, opts.file, benign=opts.benign)
        if launches[k.name]:  # one placement verified under every launch of the kernel
            from autosync.algorithm.all_launches import AllLaunches

            orc = AllLaunches(orc, k, launches[k.name])  # type: ignore[assignment]
        if naive:
            from autosync.algorithm.naive import naive_synthesize

            res = naive_synthesize(k, orc, lc=lc_ic(lc), ic=lc_ic(ic))
        else:
            from autosync.algorithm.synthesis import synthesize
            from autosync.pipeline.minimize import minimize as minimized

            grid_cost = DEFAULT_GRID_COST if target == "cuda" and grid_permit(k, grid_sync) else None

            def synth(kern: Kernel, prefer: list[Any], orc: Oracle = orc, gc: Any = grid_cost) -> Any:
                return synthesize(kern, orc, solver=solver, lc=lc_ic(lc), ic=lc_ic(ic), use_facts=use_facts,
                                  warp_cost=warp_cost, grid_cost=gc, on_iteration=note_iteration, prefer=prefer)
            mini = minimized(k, synth) if minimize and not launches[k.name] else None
            if minimize and launches[k.name]:
                outcome_notes.append(f"kernel '{k.name}': --minimize skipped: it is launched with several "
                                     "configurations; its barriers are kept")
            res = mini.result if mini is not None else synth(k, [])
        fixes.append(KernelFix(k, name, res) if naive or mini is None
                     else KernelFix(k, name, res, insert=mini.insert, removed=mini.removed))
        if timings is not None:  # the synthesis less its oracle calls: MaxSAT, constraints, candidates
            timings.add(f"MaxSAT and constraints ({k.name})", time.perf_counter() - t0 - timings.take_oracle())
            timings.phase = "fences"
        if opencl and res.status == "fixed" and res.kernel is not None:
            from autosync.algorithm.fences import narrow_fences, widen_user_barriers

            res.fences, calls = narrow_fences(res.kernel, res.barrier_map, orc)
            res.oracle_calls += calls
            widen_user_barriers(res, orc, lc_ic(lc), lc_ic(ic), widenable(res.kernel))
    outcome = FixOutcome(opts.file, raw, "verified", fixes, solver="none" if naive else solver,
                         target="opencl" if opencl else None, notes=outcome_notes)
    for k in kernels:
        if launches[k.name]:
            from kpl.launch import launch_text

            dims = "; ".join(launch_text(g.launch, g.language) for g in [k, *launches[k.name]])
            outcome.notes.append(f"kernel '{k.name}': one placement for its {len(launches[k.name]) + 1} launch "
                                 f"configurations ({dims}), verified under each")
    bad = [f for f in fixes if f.result.status not in ("verified", "fixed")]
    if bad:
        outcome.status = "unfixable"
        outcome.reason = "; ".join(f"kernel '{f.kernel.name}': {f.result.reason or f.result.status}" for f in bad)
        from autosync.algorithm.macro_sites import macro_note

        for f in bad:
            races = list(f.result.races_initial) or (list(f.result.verdict.races) if f.result.verdict else [])
            note = macro_note(f.kernel, [lab for r in races for lab in (r.first, r.second)], opts.file)
            if note is not None:
                outcome.notes.append(note)
                outcome.reason += f"; {note}"  # JSON's reason and ``fix --check`` name the macro too
        return outcome
    todo = [f for f in fixes if f.result.status == "fixed"]
    if not todo:
        return outcome
    with stage("rendering"):
        rendered = render_fixes(todo, raw, original, opts.file, target, opencl, outcome)
    if rendered is None:
        return outcome
    outcome.original = raw
    outcome.rendered = rendered
    outcome.patched = rendered.text
    # ---- end-to-end check: re-parse the patched TEXT and verify it with the same oracle, while
    # nvcc compiles it (a process of its own: the two overlap)
    compiling = _Beside(lambda: nvcc_check(opts, original, rendered.text)) if target == "cuda" else None
    try:
        if not _recheck(opts, fixes, todo, rendered.text, timeout, outcome):
            return outcome
    finally:
        if compiling is not None:
            compiling.thread.join()
    outcome.reparsed_verified = True
    if compiling is not None:
        ok, note = compiling.result()
        if timings is not None:
            timings.add("nvcc (beside the re-parse and re-check)", compiling.seconds)
        outcome.nvcc = "ok" if ok else ("skipped" if ok is None else "failed")
        outcome.notes.append(note)
        if ok is False:
            raise InternalError(f"the patched file does not compile: {note}")
    else:
        outcome.notes.append(f"compile check skipped for target {target}")
    outcome.status = "fixed"
    return outcome


def _recheck(opts: KernelOptions, fixes: list[KernelFix], todo: list[KernelFix], text: str, timeout: float | None,
             outcome: FixOutcome) -> bool:
    """The patched ``text`` re-parsed and its fixed kernels verified again with their oracle:
    True when they verify; False with ``outcome`` unfixable (a shared template's union that
    fails, a re-check out of time); :class:`InternalError` when the patch is wrong."""
    said = len(opts.notes)  # the patched text's notes are the original's, lines shifted: not said again
    try:
        again: dict[str, list[Kernel]] = {}
        for k in load(opts, to_lf(text), what=" (re-parse)"):
            again.setdefault(k.name, []).append(k)  # the kernel under each of its launches
    except Exception as exc:
        raise InternalError(f"the patched text does not parse: {exc}") from exc
    finally:
        del opts.notes[said:]
    token, timings = current_token(), current_timings()
    if token is not None and token.deadline is not None:  # the re-check may use the part of the budget kept for it
        token.budget(RECHECK_SHARE)
    if timings is not None:
        timings.phase = "re-check"
    for f in (g for g in fixes if g in todo or shared_template(g.kernel.name, [h.kernel.name for h in todo])):
        if not again.get(f.kernel.name):
            raise InternalError(f"kernel '{f.kernel.name}' is missing from the patched text")
        verdict = _verify_all(again[f.kernel.name], f.oracle, timeout, opts.file, benign=opts.benign)
        why = shared_template(f.kernel.name, [g.kernel.name for g in todo if g is not f])
        # races between blocks stay (no barrier orders them): they are reported, not fixed
        if not verdict.verified_within_blocks and why:  # one template text: the union fails
            outcome.status, outcome.patched, outcome.rendered, outcome.reason = "unfixable", None, None, why
            return False
        if verdict.unknowns and all(is_budget_unknown(u.reason) for u in verdict.unknowns) \
                and not (verdict.intra_block or verdict.divergences or verdict.findings):
            # out of time, not a wrong patch: nothing unverified is written (exit 1)
            outcome.status, outcome.patched, outcome.rendered = "unfixable", None, None
            outcome.reason = (f"kernel '{f.kernel.name}': the patched kernel was not re-verified: "
                              f"{verdict.unknowns[0].reason}")
            return False
        if not verdict.verified_within_blocks:
            raise InternalError(f"the patched kernel '{f.kernel.name}' does not verify with {f.oracle} "
                                f"({len(verdict.races)} races, {len(verdict.divergences)} divergences, "
                                f"{len(verdict.unknowns)} unknowns)")
    return True


class _Beside:
    """``fn()`` in a thread of its own, beside the run: ``nvcc`` compiles the patched text
    while it is re-parsed and re-checked (a subprocess: the two do not share the GIL)."""

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.box: dict[str, Any] = {}
        self.seconds = 0.0

        def run() -> None:
            t0 = time.perf_counter()
            try:
                self.box["value"] = fn()
            except BaseException as exc:  # noqa: BLE001 - handed to the caller by result()
                self.box["error"] = exc
            self.seconds = time.perf_counter() - t0

        self.thread = threading.Thread(target=run, name="autosync-nvcc", daemon=True)
        self.thread.start()

    def result(self) -> Any:
        self.thread.join()
        if "error" in self.box:
            raise self.box["error"]
        return self.box["value"]


def _by_name(kernels: list[Kernel], file: str, naive: bool) -> tuple[list[Kernel], dict[str, list[Kernel]]]:
    """The kernels to fix (the first lowering of each name) and, per name, its lowerings under
    the OTHER launches of the file (:mod:`autosync.algorithm.all_launches` verifies under all of them)."""
    from autosync.algorithm.all_launches import same_shape

    first: dict[str, Kernel] = {}
    others: dict[str, list[Kernel]] = {}
    for k in kernels:
        if k.name in first:
            others[k.name].append(k)
        else:
            first[k.name], others[k.name] = k, []
    for name, more in others.items():
        if more and naive:
            raise BadInput(f"kernel '{name}' is launched with {len(more) + 1} different configurations in this "
                           "file; --naive fixes one: pick it with --blockDim/--gridDim", file)
        if more and not same_shape([first[name], *more]):
            raise BadInput(f"kernel '{name}' is launched with {len(more) + 1} configurations that lower to "
                           "different statements; fix it for one with --blockDim/--gridDim", file)
    return list(first.values()), others


def _verify_all(kernels: list[Kernel], oracle: str, timeout: float | None, file: str, *,
                benign: bool = True) -> Verdict:
    """The patched kernel's verdict under each of its launches: the first with a problem
    inside a block, else the first with races between blocks (which no barrier orders)."""
    from oracle.base import Verdict

    between = Verdict()
    for k in kernels:
        _, orc = pick_oracle(oracle, k, timeout, file, benign=benign, synthesis=False)
        verdict = run_oracle(orc, k)
        if not verdict.verified_within_blocks:
            return verdict
        if verdict.races and not between.races:
            between = verdict
    return between


def nvcc_check(opts: KernelOptions, original: str, patched: str) -> tuple[bool | None, str]:
    """Compile ``patched`` with ``nvcc --ptx`` (from a scratch folder, see :func:`_nvcc_compile`).  (True, note) compiled; (None, note) skipped -- no nvcc, or the ORIGINAL does not
    compile either; (False, note) the patch broke compilation."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        return None, "nvcc not found: compile check skipped"
    ok, msg = _nvcc_compile(nvcc, opts, patched)
    if ok:
        return True, "nvcc --ptx: ok"
    ok_orig, _ = _nvcc_compile(nvcc, opts, original)
    if not ok_orig:
        return None, "nvcc: the original file does not compile either: compile check skipped"
    return False, msg


def _nvcc_compile(nvcc: str, opts: KernelOptions, text: str) -> tuple[bool, str]:
    """One ``nvcc --ptx`` of ``text`` from a scratch folder OUTSIDE the user's folder (so a
    ``kill -9`` during the compile leaves nothing there); the user's folder comes first in the
    ``-I`` path, so ``#include "local.h"`` resolves as it would next to the file."""
    from kpl.header import parse_header

    folder = os.path.dirname(os.path.abspath(opts.file))
    try:
        defines = {**opts.build_defines, **parse_header(to_lf(text), opts.file).defines, **opts.defines}
    except Exception:  # a header problem was already reported by the front end
        defines = {**opts.build_defines, **opts.defines}
    with tempfile.TemporaryDirectory(prefix="autosync-nvcc-") as scratch:
        src = os.path.join(scratch, os.path.basename(opts.file) or "kernel.cu")
        with open(src, "w", encoding="utf-8", errors="surrogateescape", newline="") as fh:
            fh.write(text)
        cmd = [nvcc, "--ptx", "-x", "cu", "-I", folder]
        for inc in opts.include_dirs:
            cmd += ["-I", inc]
        for forced in opts.forced_includes:
            cmd += ["-include", os.path.abspath(forced)]
        for name, value in defines.items():
            cmd.append(f"-D{name}={value}")
        cmd += ["-o", os.path.join(scratch, "out.ptx"), src]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return False, f"nvcc failed to run: {exc}"
        if proc.returncode == 0:
            return True, ""
        first = next((ln for ln in proc.stderr.splitlines() if "error" in ln), proc.stderr.strip()[:300])
        return False, first.replace(src, opts.file)


__all__ = [
    # errors (.errors), the guarded worker (.guard), file I/O (.files), the options (.options) and
    # the outcome (.outcome): re-exported, this module is the front ends' one import
    "BadInput", "Timeout", "InternalError", "Interrupted", "Unsupported", "CancelToken", "run_guarded",
    "current_token", "note_kernel", "nesting_depth", "PROGRESS_AFTER_S", "read_source", "to_lf",
    "keep_line_endings", "line_ending_at", "write_file", "check_writable", "temp_name", "KernelOptions",
    "KernelFix", "FixOutcome", "CHECK_SHARE", "SYNTHESIS_SHARE",
    # this module
    "load", "pick_oracle", "run_oracle", "lc_ic", "fix_kernels", "fix_once", "nvcc_check",
]


def shared_template(kernel: str, others: list[str]) -> str | None:
    """Why a patch cannot serve instantiation ``kernel`` (``k<32>``) when its placement is the
    union of those of the other instantiations of the same template in ``others`` (``fix``
    renders one barrier set into the one template text); None when no other shares it."""
    base = kernel.split("<", 1)[0]
    twins = [o for o in others if "<" in kernel and o.split("<", 1)[0] == base]
    if not twins:
        return None
    return (f"kernel '{kernel}': its template text is shared with {', '.join(twins)}; the union of "
            f"their barrier placements does not verify for '{kernel}'")
