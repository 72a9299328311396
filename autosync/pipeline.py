"""The fix/check pipeline shared by every front end (``autosync`` commands, the language server).

One place decides how a file becomes kernels (:class:`KernelOptions`, :func:`load`), which
oracle judges a kernel (:func:`pick_oracle`: ``--oracle``, else ``named`` for kernels with
named barriers when that checker is installed, else ``sdv``), how an oracle failure reads
(:func:`run_oracle`: an "unknown", never a pass) and how a file is fixed (:func:`fix_kernels`:
synthesis, rendering, end-to-end re-verification, nvcc).  The command line and the editor call
these, so ``autosync check`` and the editor's diagnostics use the same oracle, and the editor's
quick-fix is exactly the text ``autosync fix`` writes.

Nothing here prints or exits: failures are exceptions (:class:`BadInput` for a usage problem,
:class:`Timeout`, :class:`InternalError`, plus the front end's ``KplError`` and the oracle's
``OracleError``) that each front end turns into its own kind of message.
"""

from __future__ import annotations

import importlib
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from autosync.render import Edit
    from autosync.synthesis import SynthesisResult
    from kpl.ast import Kernel
    from oracle.base import Oracle, Verdict

# --------------------------------------------------------------------------- errors


class BadInput(Exception):
    """A usage problem found by us (bad ``--blockDim``, unknown oracle): exit 2, one line."""

    def __init__(self, message: str, file: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.file = file

    def format(self) -> str:
        return f"{self.file}: error: {self.message}" if self.file else f"autosync: error: {self.message}"


class Timeout(BaseException):
    """``--timeout`` reached.  A BaseException so no ``except Exception`` inside the oracle or
    the synthesizer can swallow it."""


class InternalError(Exception):
    """A failure of AutoSync itself (e.g. the patched text does not verify): exit 3."""


@contextmanager
def deadline(seconds: float | None, *, hard_exit: bool = False) -> Iterator[None]:
    """Raise :class:`Timeout` after ``seconds`` of wall-clock time (SIGALRM, main thread), and
    -- in a real process -- hard-exit with code 3 a little later if a native solver call does
    not give control back to Python (``hard_exit``: only in a real process, never in tests or
    the language server)."""
    if not seconds or seconds <= 0:
        yield
        return
    use_signal = threading.current_thread() is threading.main_thread() and hasattr(signal, "SIGALRM")
    previous: Any = None
    watchdog: threading.Timer | None = None

    def on_alarm(signum: int, frame: object) -> None:
        raise Timeout(f"no result within {seconds:g} s")

    if use_signal:
        previous = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    if hard_exit:
        def hard() -> None:
            print(f"error: timeout: no result within {seconds:g} s", file=sys.stderr, flush=True)
            os._exit(3)  # the documented exit code of a timeout

        watchdog = threading.Timer(seconds + 2.0, hard)
        watchdog.daemon = True
        watchdog.start()
    try:
        yield
    finally:
        if use_signal:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        if watchdog is not None:
            watchdog.cancel()


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
    #: notes for the user found while loading (e.g. the launch assumed), printed by the front end
    notes: list[str] = field(default_factory=list)

    @classmethod
    def build(cls, file: str, kernel: str | None = None, defines: list[str] | None = None,
              include_dirs: list[str] | None = None, block_dim: str | None = None,
              grid_dim: str | None = None, warp_sync: int | None = None) -> KernelOptions:
        if warp_sync is not None and warp_sync <= 0:
            raise BadInput(f"bad --warp-sync value '{warp_sync}': expected a positive warp size", file)
        return cls(file, kernel, parse_defines(defines, file), list(include_dirs or []),
                   parse_dim(block_dim, "--blockDim", file), parse_dim(grid_dim, "--gridDim", file), warp_sync)

    def frontend_kwargs(self) -> dict[str, Any]:
        return {"defines": self.defines or None, "include_dirs": self.include_dirs or None,
                "block_dim": self.block_dim, "grid_dim": self.grid_dim, "warp_sync": self.warp_sync}


def load(opts: KernelOptions, text: str | None = None) -> list[Kernel]:
    """The kernels of ``opts.file`` (or of ``text`` parsed as that file): all of them, in file
    order, or the one named by ``--kernel`` (unknown name -> KplError listing the names)."""
    from autosync import project  # the launch of each kernel: flags, header, config, host code

    return project.load(opts, text)


def pick_oracle(name: str | None, kernel: Kernel, timeout: float | None, file: str | None) -> tuple[str, Oracle]:
    """``--oracle NAME``, or ``named`` for kernels with named barriers, else ``sdv``."""
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
    try:
        return chosen, registry.get_oracle(chosen, **options)
    except TypeError as exc:
        if options and "timeout" in str(exc):  # this oracle has no time limit of its own
            return chosen, registry.get_oracle(chosen)
        raise


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
    reparsed_verified: bool | None = None
    nvcc: str = "skipped"
    seconds: float = 0.0
    solver: str = "rc2"


def lc_ic(value: float) -> Fraction | int:
    frac = Fraction(value).limit_denominator(10**6)
    return int(frac) if frac.denominator == 1 else frac


def fix_kernels(opts: KernelOptions, *, oracle: str | None, timeout: float | None, solver: str, lc: float,
         ic: float, use_facts: bool, naive: bool, target: str, text: str | None = None) -> FixOutcome:
    """``autosync fix`` minus the writing, for the file or for ``text`` given as that file
    (the language server passes an unsaved buffer): the one fix pipeline of the project --
    SYNTHESIZE ([AutoSync] Alg. 1) per kernel, the placement rendered into the ORIGINAL text,
    then the end-to-end check (re-parse the patched text, verify it with the same oracle, and
    ``nvcc --ptx`` when installed).  Raises :class:`InternalError` when that check fails, so no
    caller ever receives an unverified patch."""
    from autosync.render import apply_edits, plan_edits

    kernels = load(opts, text)
    names = [k.name for k in kernels]
    several = sorted({n for n in names if names.count(n) > 1})
    if several:  # one placement must be verified under every launch: not done yet, so refuse
        raise BadInput(f"kernel '{several[0]}' is launched with {names.count(several[0])} different "
                       "configurations in this file; fix it for one with --blockDim/--gridDim", opts.file)
    original = text if text is not None else kernels[0].source_text
    fixes: list[KernelFix] = []
    for k in kernels:
        name, orc = pick_oracle(oracle, k, timeout, opts.file)
        if naive:
            from autosync.naive import naive_synthesize

            res = naive_synthesize(k, orc, lc=lc_ic(lc), ic=lc_ic(ic))
        else:
            from autosync.synthesis import synthesize

            res = synthesize(k, orc, solver=solver, lc=lc_ic(lc), ic=lc_ic(ic), use_facts=use_facts)
        fixes.append(KernelFix(k, name, res))
    outcome = FixOutcome(opts.file, original, "verified", fixes, solver="none" if naive else solver)
    bad = [f for f in fixes if f.result.status not in ("verified", "fixed")]
    if bad:
        outcome.status = "unfixable"
        outcome.reason = "; ".join(f"kernel '{f.kernel.name}': {f.result.reason or f.result.status}" for f in bad)
        return outcome
    todo = [f for f in fixes if f.result.status == "fixed"]
    if not todo:
        return outcome
    edits = []
    for f in todo:
        f.edits = plan_edits(f.kernel, f.result.placement, target=target, tag=f.kernel.name)
        edits += f.edits
    rendered = apply_edits(original, edits)
    outcome.rendered = rendered
    outcome.patched = rendered.text
    # ---- end-to-end check: re-parse the patched TEXT and verify it with the same oracle
    try:
        again = {k.name: k for k in load(opts, rendered.text)}
    except Exception as exc:
        raise InternalError(f"the patched text does not parse: {exc}") from exc
    for f in todo:
        patched_kernel = again.get(f.kernel.name)
        if patched_kernel is None:
            raise InternalError(f"kernel '{f.kernel.name}' is missing from the patched text")
        _, orc = pick_oracle(f.oracle, patched_kernel, timeout, opts.file)
        verdict = run_oracle(orc, patched_kernel)
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


def nvcc_check(opts: KernelOptions, original: str, patched: str) -> tuple[bool | None, str]:
    """Compile ``patched`` with ``nvcc --ptx`` (a temp copy next to the file, so local includes
    resolve).  (True, note) compiled; (None, note) skipped -- no nvcc, or the ORIGINAL does not
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
    from kpl.header import parse_header

    folder = os.path.dirname(os.path.abspath(opts.file))
    try:
        defines = {**parse_header(text, opts.file).defines, **opts.defines}
    except Exception:  # a header problem was already reported by the front end
        defines = dict(opts.defines)
    with tempfile.TemporaryDirectory(prefix="autosync-nvcc-") as scratch:
        try:
            fd, src = tempfile.mkstemp(prefix=".autosync-", suffix=".cu", dir=folder)
        except OSError:
            fd, src = tempfile.mkstemp(prefix="autosync-", suffix=".cu", dir=scratch)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
            cmd = [nvcc, "--ptx", "-x", "cu", "-I", folder]
            for inc in opts.include_dirs:
                cmd += ["-I", inc]
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
        finally:
            try:
                os.unlink(src)
            except OSError:
                pass


def write_atomically(path: str, text: str) -> None:
    """Write ``text`` to ``path`` via a temp file in the same folder + ``os.replace``, keeping
    the permissions of an existing file: a crash never leaves a half-written kernel."""
    folder = os.path.dirname(os.path.abspath(path))
    mode = None
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        pass
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


__all__ = ["BadInput", "Timeout", "InternalError", "deadline", "parse_dim", "parse_defines",
           "KernelOptions", "load", "pick_oracle", "run_oracle", "KernelFix", "FixOutcome", "lc_ic",
           "fix_kernels", "nvcc_check", "write_atomically"]
