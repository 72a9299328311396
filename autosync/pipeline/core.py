"""The fix/check pipeline shared by every front end (``autosync`` commands, the language server).

One place decides how a file becomes kernels (:class:`KernelOptions`, :func:`load`), which
oracle judges a kernel (:func:`pick_oracle`: ``--oracle``, else ``named`` for kernels with
named barriers when that checker is installed, else ``sdv``), how an oracle failure reads
(:func:`run_oracle`: an "unknown", never a pass) and how a file is fixed (:func:`fix_kernels`:
synthesis, rendering, end-to-end re-verification, nvcc).  The command line and the editor call
these, so ``autosync check`` and the editor's diagnostics use the same oracle, and the editor's
quick-fix is exactly the text ``autosync fix`` writes.

Nothing here prints or exits: failures are exceptions (:mod:`autosync.errors`: :class:`BadInput`
for a usage problem, :class:`Timeout`, :class:`Interrupted`, :class:`Unsupported`,
:class:`InternalError`, plus the front end's ``KplError`` and the oracle's ``OracleError``) that
each front end turns into its own kind of message.  How a command runs (worker thread, Ctrl-C,
``--timeout``) is :mod:`autosync.pipeline_guard`; reading and writing the user's file is
:mod:`autosync.pipeline_io`.

Why one module of ~400 lines: loading, oracle choice and the fix with its end-to-end check are
the one sequence every front end runs; the parts that are not that sequence (the guard, the
file I/O, the errors, macro sites) already live in their own modules.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
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
    PROGRESS_AFTER_S,
    CancelToken,
    current_token,
    nesting_depth,
    note_iteration,
    note_kernel,
    run_guarded,
    watch,
)

if TYPE_CHECKING:
    from autosync.algorithm.synthesis import SynthesisResult
    from autosync.render.patch import Edit
    from kpl.ast import Kernel
    from oracle.base import Oracle, Verdict

# --------------------------------------------------------------------------- kernels and oracles


def parse_dim(value: str | None, flag: str, file: str | None) -> tuple[int, int, int] | None:
    """``256`` / ``[16,8]`` / ``16,8`` / ``16x8`` -> (x, y, z) with missing dims 1."""
    if value is None:
        return None
    text = value.strip()
    inner = text[1:-1] if text.startswith("[") and text.endswith("]") else text
    parts = [p.strip() for p in inner.replace("x", ",").split(",")]
    try:
        dims = [int(p, 0) for p in parts]
    except ValueError:
        dims = []
    if not 1 <= len(dims) <= 3 or any(d <= 0 for d in dims):
        raise BadInput(f"bad {flag} value '{value}': expected N, [X,Y,Z] or X,Y[,Z] with positive integers", file)
    while len(dims) < 3:
        dims.append(1)
    return (dims[0], dims[1], dims[2])


def parse_defines(items: list[str] | None, file: str | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items or []:
        name, eq, value = item.partition("=")
        if not name or not (name[0].isalpha() or name[0] == "_") or not all(c.isalnum() or c == "_" for c in name):
            raise BadInput(f"bad -D value '{item}': expected NAME or NAME=VALUE", file)
        out[name] = value if eq else "1"
    return out


@dataclass
class KernelOptions:
    """How to turn a file into kernels: the options shared by every command."""

    file: str
    kernel: str | None = None
    defines: dict[str, str] = field(default_factory=dict)
    include_dirs: list[str] = field(default_factory=list)
    block_dim: tuple[int, int, int] | None = None
    grid_dim: tuple[int, int, int] | None = None
    warp_sync: int | None = None
    #: two writes of the same value are no race (GPUVerify's default); False: ``--no-benign``
    benign: bool = True
    #: notes for the user found while loading (e.g. the launch assumed), printed by the front end
    notes: list[str] = field(default_factory=list)
    #: ``-p``: the folder of ``compile_commands.json`` (None: searched upward, :mod:`autosync.compdb`)
    build_dir: str | None = None
    #: the ``-D`` flags of the file's compile command (filled by :func:`autosync.project.load`;
    #: ``defines`` and the project configuration win over them)
    build_defines: dict[str, str] = field(default_factory=dict)
    #: the compile command was read (its ``-I`` folders are appended to ``include_dirs``)
    build_read: bool = False
    #: files read before the kernel file, as ``-include FILE`` (``--include``, then the compile
    #: command's), and the folders they may lie in besides the sandbox's (the command's directory)
    forced_includes: list[str] = field(default_factory=list)
    forced_dirs: list[str] = field(default_factory=list)

    @classmethod
    def build(cls, file: str, kernel: str | None = None, defines: list[str] | None = None,
              include_dirs: list[str] | None = None, block_dim: str | None = None,
              grid_dim: str | None = None, warp_sync: int | None = None,
              build_dir: str | None = None, forced_includes: list[str] | None = None, *,
              benign: bool = True) -> KernelOptions:
        if warp_sync is not None and warp_sync <= 0:
            raise BadInput(f"bad --warp-sync value '{warp_sync}': expected a positive warp size", file)
        return cls(file, kernel, parse_defines(defines, file), list(include_dirs or []),
                   parse_dim(block_dim, "--blockDim", file), parse_dim(grid_dim, "--gridDim", file), warp_sync,
                   build_dir=build_dir, forced_includes=list(forced_includes or []), benign=benign)

    def frontend_kwargs(self) -> dict[str, Any]:
        inst = [self.kernel] if self.kernel and "<" in self.kernel else None  # --kernel 'k<32>' instantiates
        return {"defines": self.defines or None, "include_dirs": self.include_dirs or None, "instances": inst,
                "block_dim": self.block_dim, "grid_dim": self.grid_dim, "warp_sync": self.warp_sync,
                "forced_includes": self.forced_includes or None, "forced_dirs": self.forced_dirs or None}


def load(opts: KernelOptions, text: str | None = None) -> list[Kernel]:
    """The kernels of ``opts.file`` (or of ``text`` parsed as that file): all of them, in file
    order, or the one named by ``--kernel`` (unknown name -> KplError listing the names)."""
    from autosync.pipeline import project  # the launch of each kernel: flags, header, config, host code

    kernels = project.load(opts, text)
    source = kernels[0].source_text if kernels else (text or "")
    for k in kernels:
        check_launch(k, opts, source)
    return kernels


#: CUDA's limits on a launch (compute capability 2.0 and later)
MAX_THREADS_PER_BLOCK = 1024
MAX_BLOCK_DIM = (1024, 1024, 64)
MAX_GRID_DIM = (2**31 - 1, 65535, 65535)


def _where(source: str, pattern: str, nth: int = 0) -> tuple[int, int] | None:
    """1-based (line, col) of the ``nth`` match of ``pattern`` (its group 1) in ``source``."""
    import re

    matches = list(re.finditer(pattern, source))
    if len(matches) <= nth:
        return None
    start = matches[nth].start(1)
    from kpl.lineindex import LineIndex

    return LineIndex(source).line_col(start)


def check_unique_names(kernels: list[Kernel], source: str, file: str) -> None:
    """Two ``__global__`` functions of one name (an overload, a copy-paste) would make every
    report ambiguous: refused, at the second definition."""
    import re

    from kpl.errors import KplError

    seen: set[str] = set()
    for k in kernels:
        if k.name in seen:
            at = _where(source, rf"__global__[^;{{}}]*?\b({re.escape(k.name)})\s*\(", 1)
            line, col = at if at else (k.body.span.line if k.body.span else None, 1)
            raise KplError(f"kernel '{k.name}' defined twice", file, line, col)
        seen.add(k.name)


def check_launch(kernel: Kernel, opts: KernelOptions, source: str) -> None:
    """A launch CUDA would refuse (over 1,024 threads per block, a dimension over its limit) is
    bad input, at the flag or the header line that asked for it."""
    from kpl.errors import KplError

    block, grid = kernel.launch.block_dim, kernel.launch.grid_dim
    problem = None
    flag = "--blockDim"
    threads = block[0] * block[1] * block[2]
    if threads > MAX_THREADS_PER_BLOCK:
        problem = f"blockDim {list(block)} has {threads} threads; CUDA allows at most {MAX_THREADS_PER_BLOCK}"
    elif any(d > m for d, m in zip(block, MAX_BLOCK_DIM, strict=True)):
        problem = f"blockDim {list(block)} exceeds CUDA's limits (x, y <= 1024, z <= 64)"
    elif any(d > m for d, m in zip(grid, MAX_GRID_DIM, strict=True)):
        flag = "--gridDim"
        problem = f"gridDim {list(grid)} exceeds CUDA's limits (x < 2^31, y, z <= 65535)"
    if problem is None:
        return
    given = opts.block_dim if flag == "--blockDim" else opts.grid_dim
    if given is not None:
        raise BadInput(f"bad {flag} value: {problem}", opts.file)
    at = _where(source, rf"({flag[2:]})\s*=")
    raise KplError(problem, opts.file, *(at if at else (None, None)))


def pick_oracle(name: str | None, kernel: Kernel, timeout: float | None, file: str | None, *,
                benign: bool = True, synthesis: bool = True) -> tuple[str, Oracle]:
    """``--oracle NAME``, or ``named`` for kernels with named barriers, else ``sdv``;
    ``benign=False`` (``--no-benign``) makes two writes of one value a race;
    ``synthesis=False``: a verdict only, without the facts that guide synthesis (sdv's
    ``same_warp`` and uniform-guard queries)."""
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
    if timeout:
        options["timeout"] = timeout
    if not benign:
        options["benign"] = False
    if not synthesis and chosen == "sdv":
        options.update(warp_facts=False, uniform_guards=False)
    try:
        orc = registry.get_oracle(chosen, **options)
    except TypeError as exc:
        if not (options and "timeout" in str(exc)):
            raise
        orc = registry.get_oracle(chosen)  # this oracle has no time limit of its own
    return chosen, watch(orc)


def run_oracle(oracle: Oracle, kernel: Kernel) -> Verdict:
    """One oracle call; an oracle that cannot analyse the kernel yields an "unknown"."""
    from oracle.base import OracleError, Unknown, Verdict

    try:
        return oracle.check(kernel)
    except OracleError as exc:
        if exc.timeout:
            raise Timeout(str(exc)) from None
        return Verdict(unknowns=[Unknown(str(exc), line=exc.line)])


# --------------------------------------------------------------------------- fix


@dataclass
class KernelFix:
    """The outcome of ``fix`` for one kernel of the file."""

    kernel: Kernel
    oracle: str
    result: SynthesisResult
    edits: list[Edit] = field(default_factory=list)


@dataclass
class FixOutcome:
    """What :func:`fix_kernels` found for one file: ``status`` is ``verified`` (nothing to
    insert), ``fixed`` (``patched`` is the re-parsed, re-verified text) or ``unfixable``
    (``reason`` says why); ``seconds`` and the writing are the caller's."""

    file: str
    original: str
    status: str  # verified | fixed | unfixable | error
    fixes: list[KernelFix]
    patched: str | None = None
    rendered: Any = None
    reason: str | None = None
    notes: list[str] = field(default_factory=list)
    #: rewrites beyond inserted barriers, as notes: statements split so that a barrier could go
    #: inside them (:mod:`autosync.split`), a named-barrier pair (:mod:`autosync.named_synthesis`)
    rewrites: list[str] = field(default_factory=list)
    reparsed_verified: bool | None = None
    nvcc: str = "skipped"
    seconds: float = 0.0
    solver: str = "rc2"


def lc_ic(value: float) -> Fraction | int:
    frac = Fraction(value).limit_denominator(10**6)
    return int(frac) if frac.denominator == 1 else frac


def fix_kernels(opts: KernelOptions, *, oracle: str | None, timeout: float | None, solver: str, lc: float,
         ic: float, use_facts: bool, naive: bool, target: str, text: str | None = None,
         warp_cost: Fraction | int | None = Fraction(1, 4), split: bool = True) -> FixOutcome:
    """:func:`fix_once`; when that is unfixable because a statement races with itself, the
    statement is split into a read and a write and the split text fixed again
    (:func:`autosync.split.split_and_fix`; ``split=False`` keeps the paper's behaviour)."""
    def once(source: str | None) -> FixOutcome:
        return fix_once(opts, oracle=oracle, timeout=timeout, solver=solver, lc=lc, ic=ic,
                        use_facts=use_facts, naive=naive, target=target, text=source,
                        warp_cost=warp_cost)

    outcome = once(text)
    if not split or outcome.status != "unfixable":
        return outcome
    from autosync.algorithm.named_synthesis import named_and_fix
    from autosync.algorithm.split import split_and_fix

    outcome = split_and_fix(outcome, once)
    if outcome.status != "unfixable":
        return outcome
    return named_and_fix(outcome, once, lambda patched: nvcc_check(opts, to_lf(outcome.original), patched),
                         lc=lc_ic(lc), ic=lc_ic(ic))


def fix_once(opts: KernelOptions, *, oracle: str | None, timeout: float | None, solver: str, lc: float,
             ic: float, use_facts: bool, naive: bool, target: str, text: str | None = None,
             warp_cost: Fraction | int | None = Fraction(1, 4)) -> FixOutcome:
    """``autosync fix`` minus the writing, for the file or for ``text`` given as that file
    (the language server passes an unsaved buffer): the one fix pipeline of the project --
    SYNTHESIZE ([AutoSync] Alg. 1) per kernel, the placement rendered into the ORIGINAL text,
    then the end-to-end check (re-parse the patched text, verify it with the same oracle, and
    ``nvcc --ptx`` when installed).  Raises :class:`InternalError` when that check fails, so no
    caller ever receives an unverified patch."""
    from autosync.render.patch import apply_edits, plan_edits
    from kpl.templates import shared_template

    raw = text if text is not None else read_source(opts.file)
    original = to_lf(raw)
    kernels, launches = _by_name(load(opts, original), opts.file, naive)
    fixes: list[KernelFix] = []
    for i, k in enumerate(kernels):
        note_kernel(k.name, i + 1, len(kernels))
        name, orc = pick_oracle(oracle, k, timeout, opts.file, benign=opts.benign)
        if launches[k.name]:  # one placement verified under every launch of the kernel
            from autosync.algorithm.all_launches import AllLaunches

            orc = AllLaunches(orc, k, launches[k.name])  # type: ignore[assignment]
        if naive:
            from autosync.algorithm.naive import naive_synthesize

            res = naive_synthesize(k, orc, lc=lc_ic(lc), ic=lc_ic(ic))
        else:
            from autosync.algorithm.synthesis import synthesize

            res = synthesize(k, orc, solver=solver, lc=lc_ic(lc), ic=lc_ic(ic), use_facts=use_facts,
                             warp_cost=warp_cost,
                             on_iteration=note_iteration)
        fixes.append(KernelFix(k, name, res))
    outcome = FixOutcome(opts.file, raw, "verified", fixes, solver="none" if naive else solver)
    for k in kernels:
        if launches[k.name]:
            dims = "; ".join(f"blockDim {list(g.launch.block_dim)} gridDim {list(g.launch.grid_dim)}"
                             for g in [k, *launches[k.name]])
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
        return outcome
    todo = [f for f in fixes if f.result.status == "fixed"]
    if not todo:
        return outcome
    from autosync.algorithm.macro_sites import macro_conflict

    edits = []
    for f in todo:
        # a placement the user's text cannot express: say so (exit 1), never a broken patch
        problem = macro_conflict(f.kernel, list(f.result.labels), opts.file)
        if problem is None:
            try:
                f.edits = plan_edits(f.kernel, f.result.placement, target=target, tag=f.kernel.name)
            except ValueError as exc:
                problem = f"{opts.file}: error: cannot patch kernel '{f.kernel.name}': {exc}"
        if problem is not None:
            outcome.status, outcome.reason = "unfixable", problem
            return outcome
        edits += f.edits
    rendered = apply_edits(raw, [keep_line_endings(raw, e) for e in apply_edits(original, edits).edits])
    outcome.original = raw
    outcome.rendered = rendered
    outcome.patched = rendered.text
    # ---- end-to-end check: re-parse the patched TEXT and verify it with the same oracle
    try:
        again: dict[str, list[Kernel]] = {}
        for k in load(opts, to_lf(rendered.text)):
            again.setdefault(k.name, []).append(k)  # the kernel under each of its launches
    except Exception as exc:
        raise InternalError(f"the patched text does not parse: {exc}") from exc
    for f in (g for g in fixes if g in todo or shared_template(g.kernel.name, [h.kernel.name for h in todo])):
        if not again.get(f.kernel.name):
            raise InternalError(f"kernel '{f.kernel.name}' is missing from the patched text")
        verdict = _verify_all(again[f.kernel.name], f.oracle, timeout, opts.file, benign=opts.benign)
        why = shared_template(f.kernel.name, [g.kernel.name for g in todo if g is not f])
        if not verdict.verified and why:  # one template text: the union of the placements fails
            outcome.status, outcome.patched, outcome.rendered, outcome.reason = "unfixable", None, None, why
            return outcome
        if not verdict.verified:
            raise InternalError(f"the patched kernel '{f.kernel.name}' does not verify with {f.oracle} "
                                f"({len(verdict.races)} races, {len(verdict.divergences)} divergences, "
                                f"{len(verdict.unknowns)} unknowns)")
    outcome.reparsed_verified = True
    if target == "cuda":
        ok, note = nvcc_check(opts, original, rendered.text)
        outcome.nvcc = "ok" if ok else ("skipped" if ok is None else "failed")
        outcome.notes.append(note)
        if ok is False:
            raise InternalError(f"the patched file does not compile: {note}")
    else:
        outcome.notes.append(f"compile check skipped for target {target}")
    outcome.status = "fixed"
    return outcome


def _by_name(kernels: list[Kernel], file: str, naive: bool) -> tuple[list[Kernel], dict[str, list[Kernel]]]:
    """The kernels to fix (the first lowering of each name) and, per name, its lowerings under
    the OTHER launches of the file (:mod:`autosync.all_launches` verifies under all of them)."""
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
    """The patched kernel's verdict under each of its launches: the first that does not verify."""
    from oracle.base import Verdict

    for k in kernels:
        _, orc = pick_oracle(oracle, k, timeout, file, benign=benign, synthesis=False)
        verdict = run_oracle(orc, k)
        if not verdict.verified:
            return verdict
    return Verdict()


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
    # errors (autosync.errors), the guarded worker (autosync.pipeline_guard), file I/O
    # (autosync.pipeline_io): re-exported, the pipeline is the front ends' one import
    "BadInput", "Timeout", "InternalError", "Interrupted", "Unsupported", "CancelToken", "run_guarded",
    "current_token", "note_kernel", "nesting_depth", "PROGRESS_AFTER_S", "read_source", "to_lf",
    "keep_line_endings", "line_ending_at", "write_file", "check_writable", "temp_name",
    # this module
    "parse_dim", "parse_defines", "KernelOptions", "load", "check_unique_names", "check_launch", "pick_oracle",
    "run_oracle", "KernelFix", "FixOutcome", "lc_ic", "fix_kernels", "fix_once", "nvcc_check",
]
