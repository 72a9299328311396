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


class Interrupted(BaseException):
    """Ctrl-C: the command stops with exit 130 and writes nothing.  A BaseException, like
    :class:`Timeout`, so no ``except Exception`` on the way can swallow it."""


class Unsupported(Exception):
    """A well-formed input beyond what we analyse (e.g. nesting too deep): exit 2, one line."""

    def __init__(self, message: str, file: str, line: int = 0, col: int = 0) -> None:
        super().__init__(message)
        self.message, self.file, self.line, self.col = message, file, line, col

    def format(self) -> str:
        where = f"{self.file}:{self.line}:{self.col}" if self.line else self.file
        return f"{where}: error: unsupported: {self.message}"


# --------------------------------------------------------------------------- the guarded worker
#
# The front end and the oracle run in ONE worker thread per command (:func:`run_guarded`), for
# three reasons: (1) a big stack and recursion limit, so a deeply nested kernel is analysed (or
# refused with one line) instead of dying with RecursionError; (2) the main thread stays free
# to react to Ctrl-C and ``--timeout`` at once even while z3 is inside a native query (Python
# runs signal handlers only on the main thread, and only between bytecodes); (3) a cancelled
# run is stopped by ``z3`` ``interrupt()`` plus a flag checked after every oracle call
# (:class:`_WatchedOracle`), so an interrupted query's "unknown" never becomes a verdict.

#: stack of the worker thread, and the recursion limit that goes with it
WORKER_STACK = 512 * 1024 * 1024
WORKER_RECURSION = 60_000
#: how long a cancelled worker is given to stop before the command returns without it
GRACE_S = 1.0
#: a progress line appears on a terminal for runs longer than this
PROGRESS_AFTER_S = 2.0


@dataclass
class CancelToken:
    """One guarded run's shared state (the worker writes progress, the main thread cancels)."""

    #: None while running; "interrupt" (Ctrl-C) or "timeout" once cancelled
    reason: str | None = None
    #: the kernel being worked on, its 1-based index and the file's kernel count
    kernel: str = ""
    index: int = 0
    total: int = 0
    #: oracle calls made so far in this run
    oracle_calls: int = 0

    def check(self) -> None:
        """Raise in the worker once the run is cancelled (called after every oracle call)."""
        if self.reason == "interrupt":
            raise Interrupted()
        if self.reason == "timeout":
            raise Timeout("cancelled")


_LOCAL = threading.local()


def current_token() -> CancelToken | None:
    """The token of the guarded run this thread works for (None outside :func:`run_guarded`)."""
    return getattr(_LOCAL, "token", None)


def note_kernel(name: str, index: int, total: int) -> None:
    token = current_token()
    if token is not None:
        token.kernel, token.index, token.total = name, index, total


class _WatchedOracle:
    """An oracle whose every ``check`` counts for the progress line and is followed by the
    cancellation check; everything else is the wrapped oracle's."""

    def __init__(self, inner: Oracle, token: CancelToken) -> None:
        self._inner = inner
        self._token = token

    def check(self, *args: Any, **kwargs: Any) -> Any:
        self._token.check()
        try:
            return self._inner.check(*args, **kwargs)
        finally:
            self._token.oracle_calls += 1
            self._token.check()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _z3_leaves_sigint_alone() -> None:
    """z3 installs its own SIGINT handler around every query (``ctrl_c``), which turns Ctrl-C
    into a silent "unknown" answer; switch it off so Ctrl-C reaches Python (the main thread of
    :func:`run_guarded`), which stops the query with ``interrupt()`` itself."""
    z3 = sys.modules.get("z3")
    if z3 is not None:
        try:
            z3.set_param("ctrl_c", False)
        except Exception:  # noqa: BLE001 - an old z3 without the parameter
            pass


def _interrupt_z3() -> None:
    """Stop the z3 query in progress (if z3 is loaded at all): it returns "unknown" at once."""
    z3 = sys.modules.get("z3")
    if z3 is not None:
        try:
            z3.main_ctx().interrupt()
        except Exception:  # noqa: BLE001 - best effort; the token check stops the run anyway
            pass


def nesting_depth(text: str) -> tuple[int, int, int]:
    """(deepest bracket nesting, its 1-based line, col) of ``text`` -- where a RecursionError
    most likely came from (comments and strings are not skipped: a hint, not a parser)."""
    depth = best = 0
    line, col, at = 1, 1, (1, 1)
    for ch in text:
        if ch in "({[":
            depth += 1
            if depth > best:
                best, at = depth, (line, col)
        elif ch in ")}]":
            depth = max(depth - 1, 0)
        if ch == "\n":
            line, col = line + 1, 1
        else:
            col += 1
    return best, at[0], at[1]


def run_guarded(fn: Any, *, timeout: float | None, file: str | None = None,
                progress: Any = None, text: str | None = None) -> Any:
    """``fn()`` in the worker thread (see above); returns its value or re-raises its exception.
    ``--timeout`` -> :class:`Timeout`, Ctrl-C -> :class:`Interrupted`, both within
    :data:`GRACE_S` even when the worker is stuck in native code (it is a daemon thread, and
    is abandoned: nothing it computes after the cancellation is used).  ``progress(token,
    seconds)`` is called about 10 times a second from the main thread (the caller decides
    whether to show anything).  ``text`` is the source when it is not ``file``'s (an editor
    buffer): it locates an :class:`Unsupported` nesting error."""
    import time

    token = CancelToken()
    box: dict[str, Any] = {}

    def work() -> None:
        _LOCAL.token = token
        try:
            box["value"] = fn()
        except RecursionError:
            box["error"] = RecursionError()
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread
            box["error"] = exc

    if sys.getrecursionlimit() < WORKER_RECURSION:
        sys.setrecursionlimit(WORKER_RECURSION)
    old = threading.stack_size()
    try:
        threading.stack_size(WORKER_STACK)
        worker = threading.Thread(target=work, name="autosync-worker", daemon=True)
        worker.start()
    finally:
        threading.stack_size(old)
    start = time.monotonic()
    end = start + timeout if timeout else None
    try:
        while worker.is_alive():
            worker.join(0.1)
            now = time.monotonic()
            if progress is not None and worker.is_alive():
                progress(token, now - start)
            if end is not None and now >= end and worker.is_alive():
                token.reason = "timeout"
                _interrupt_z3()
                worker.join(GRACE_S)
                raise Timeout(f"no result within {timeout:g} s")
    except KeyboardInterrupt:
        token.reason = "interrupt"
        _interrupt_z3()
        worker.join(GRACE_S)
        raise Interrupted() from None
    finally:
        if progress is not None:
            progress(None, time.monotonic() - start)
    if token.reason == "interrupt":
        raise Interrupted()
    error = box.get("error")
    if isinstance(error, Timeout) and timeout:
        raise Timeout(f"no result within {timeout:g} s") from None
    if isinstance(error, RecursionError):
        if text is None and file is not None:
            try:
                text = read_source(file)
            except Exception:  # noqa: BLE001 - the location is only a hint
                text = None
        depth, line, col = nesting_depth(text or "")
        raise Unsupported(f"nesting deeper than the analyser supports ({depth} levels of brackets here)"
                          if depth else "nesting deeper than the analyser supports", file or "<input>",
                          line if depth else 0, col if depth else 0)
    if error is not None:
        raise error
    return box.get("value")


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
    from kpl import frontend

    kernels = frontend.load_kernels(opts.file, text, **opts.frontend_kwargs())
    source = kernels[0].source_text if kernels else (text or "")
    check_unique_names(kernels, source, opts.file)
    for k in kernels:
        check_launch(k, opts, source)
    if opts.kernel is not None:
        return [frontend.select_kernel(kernels, opts.kernel, opts.file)]
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
    return source.count("\n", 0, start) + 1, start - (source.rfind("\n", 0, start) + 1) + 1


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
        orc = registry.get_oracle(chosen, **options)
    except TypeError as exc:
        if not (options and "timeout" in str(exc)):
            raise
        orc = registry.get_oracle(chosen)  # this oracle has no time limit of its own
    token = current_token()
    if token is not None:
        _z3_leaves_sigint_alone()
    return chosen, (_WatchedOracle(orc, token) if token is not None else orc)  # type: ignore[return-value]


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


def read_source(path: str) -> str:
    """The file's text with its line endings as they are (``newline=""``): ``fix`` keeps every
    byte it does not edit, so a CRLF file stays CRLF."""
    from kpl.errors import KplError

    try:
        with open(path, encoding="utf-8", newline="") as fh:
            return fh.read()
    except OSError as exc:
        raise KplError(f"cannot read file: {exc.strerror}", path) from None
    except UnicodeDecodeError:
        raise KplError("file is not UTF-8 text", path) from None


def to_lf(text: str) -> str:
    """``text`` with CRLF line endings as LF: what the front end sees (as when it opens a file
    with universal newlines); offsets map back with :func:`keep_line_endings`."""
    return text.replace("\r\n", "\n") if "\r" in text else text


def _raw_offset(raw: str, offset: int) -> int:
    """The offset in ``raw`` of offset ``offset`` of ``to_lf(raw)``: every CRLF before it adds
    one (an offset AT a line's end lands before its ``\r``)."""
    if "\r\n" not in raw:
        return offset
    pos = lf = 0
    while True:
        nl = raw.find("\r\n", pos)
        if nl < 0 or lf + (nl - pos) >= offset:
            return pos + (offset - lf)
        lf += nl - pos + 1  # the chars up to the CR, then the LF
        pos = nl + 2


def line_ending_at(raw: str, offset: int) -> str:
    """The ending of the line holding the character before ``offset`` (the line an insertion
    at ``offset`` follows); the file's first ending when there is none before."""
    nl = raw.find("\n", max(offset - 1, 0))
    if nl < 0:
        nl = raw.rfind("\n")
    return "\r\n" if nl > 0 and raw[nl - 1] == "\r" else "\n"


def keep_line_endings(raw: str, edit: Edit) -> Edit:
    """``edit`` (planned on ``to_lf(raw)``) as an edit of ``raw``: offsets mapped, and every
    new line it writes ended like the line it follows."""
    import dataclasses

    if "\r\n" not in raw:
        return edit
    start, end = _raw_offset(raw, edit.start), _raw_offset(raw, edit.end)
    eol = line_ending_at(raw, start)
    replacement = edit.replacement.replace("\n", eol)
    barrier_at = edit.barrier_at
    if barrier_at >= 0:
        barrier_at = len(edit.replacement[:barrier_at].replace("\n", eol))
    return dataclasses.replace(edit, start=start, end=end, replacement=replacement, barrier_at=barrier_at)


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

    raw = text if text is not None else read_source(opts.file)
    original = to_lf(raw)
    kernels = load(opts, original)
    fixes: list[KernelFix] = []
    for i, k in enumerate(kernels):
        note_kernel(k.name, i + 1, len(kernels))
        name, orc = pick_oracle(oracle, k, timeout, opts.file)
        if naive:
            from autosync.naive import naive_synthesize

            res = naive_synthesize(k, orc, lc=lc_ic(lc), ic=lc_ic(ic))
        else:
            from autosync.synthesis import synthesize

            res = synthesize(k, orc, solver=solver, lc=lc_ic(lc), ic=lc_ic(ic), use_facts=use_facts)
        fixes.append(KernelFix(k, name, res))
    outcome = FixOutcome(opts.file, raw, "verified", fixes, solver="none" if naive else solver)
    bad = [f for f in fixes if f.result.status not in ("verified", "fixed")]
    if bad:
        outcome.status = "unfixable"
        outcome.reason = "; ".join(f"kernel '{f.kernel.name}': {f.result.reason or f.result.status}" for f in bad)
        from autosync.macro_sites import macro_note

        for f in bad:
            races = list(f.result.races_initial) or (list(f.result.verdict.races) if f.result.verdict else [])
            note = macro_note(f.kernel, [lab for r in races for lab in (r.first, r.second)], opts.file)
            if note is not None:
                outcome.notes.append(note)
        return outcome
    todo = [f for f in fixes if f.result.status == "fixed"]
    if not todo:
        return outcome
    from autosync.macro_sites import macro_conflict

    edits = []
    for f in todo:
        # a placement the user's text cannot express: say so (exit 1), never a broken patch
        problem = macro_conflict(f.kernel, list(f.result.labels), opts.file)
        if problem is None:
            try:
                f.edits = plan_edits(f.kernel, f.result.labels, target=target, tag=f.kernel.name)
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
        again = {k.name: k for k in load(opts, to_lf(rendered.text))}
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
        defines = {**parse_header(to_lf(text), opts.file).defines, **opts.defines}
    except Exception:  # a header problem was already reported by the front end
        defines = dict(opts.defines)
    with tempfile.TemporaryDirectory(prefix="autosync-nvcc-") as scratch:
        src = os.path.join(scratch, os.path.basename(opts.file) or "kernel.cu")
        with open(src, "w", encoding="utf-8", newline="") as fh:
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


def temp_name(path: str) -> str:
    """The one temporary file :func:`write_file` may leave next to ``path`` (``.NAME.autosync-tmp``)."""
    folder, name = os.path.split(path)
    return os.path.join(folder, f".{name}.autosync-tmp")


def check_writable(path: str) -> int | None:
    """The mode bits of ``path`` (None: it does not exist yet); :class:`BadInput` when it is
    read-only -- no write bit at all counts, even for root, who may write anything."""
    try:
        mode = stat.S_IMODE(os.stat(os.path.realpath(path)).st_mode)
    except OSError:
        return None
    if not mode & 0o222 or not os.access(os.path.realpath(path), os.W_OK):
        raise BadInput("cannot write: file is read-only", path)
    return mode


def write_file(path: str, text: str) -> None:
    """Write ``text`` (exact characters, line endings included) to ``path`` atomically.

    * A symlink is written THROUGH: its target is replaced, the link stays a link.
    * The file's mode bits are kept; a new file gets ``0o666 & ~umask``.
    * A read-only file is refused (:class:`BadInput` ``cannot write: file is read-only``),
      untouched.
    * The new text goes to ``.NAME.autosync-tmp`` in the target's folder (``os.replace`` is
      atomic only within one file system), then replaces the file.  That temp file exists
      only for the few milliseconds of this function: an exception removes it, and a stale
      one -- left by a ``kill -9`` inside that window -- is removed by the next run.
    """
    target = os.path.realpath(path)
    mode = check_writable(path)
    tmp = temp_name(target)
    try:
        os.unlink(tmp)  # a stale one from a killed run
    except OSError:
        pass
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise BadInput(f"cannot write: {exc.strerror}", path) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise



__all__ = ["BadInput", "Timeout", "InternalError", "Interrupted", "Unsupported", "CancelToken", "run_guarded",
           "current_token", "note_kernel", "check_unique_names", "check_launch", "nesting_depth", "deadline", "parse_dim", "parse_defines",
           "KernelOptions", "load", "pick_oracle", "run_oracle", "KernelFix", "FixOutcome", "lc_ic",
           "fix_kernels", "nvcc_check", "write_file", "check_writable", "temp_name", "read_source", "to_lf",
           "keep_line_endings",
           "line_ending_at"]
