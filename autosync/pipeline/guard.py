"""The guarded worker of every command: Ctrl-C, ``--timeout``, deep recursion, progress.

Kept apart from :mod:`autosync.pipeline` (what is computed) because this is HOW any of it is
run: in a worker thread with a big stack, watched by the main thread (see below).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from autosync.pipeline.errors import Interrupted, Timeout, Unsupported
from autosync.pipeline.files import read_source
from autosync.pipeline.timings import Timings

if TYPE_CHECKING:
    from oracle.base import Oracle

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
#: in-process (tests, the language server), how long a cancelled worker is waited for: it
#: must end before another run uses z3 (one z3 context is not safe for two threads); the
#: oracle's own ``timeout`` ends it soon after ours
IN_PROCESS_WAIT_S = 120.0
#: a progress line appears on a terminal for runs longer than this
PROGRESS_AFTER_S = 2.0
#: the share of ``--timeout`` the oracle calls of a ``check`` may use, and those of a fix's
#: synthesis (the rest is for rendering, the re-parse and re-check of the patched text,
#: nvcc and the report); the re-check may run to :data:`RECHECK_SHARE`
CHECK_SHARE = 0.8
SYNTHESIS_SHARE = 0.7
RECHECK_SHARE = 0.85
#: the reason of the "unknown" of an oracle call stopped by the run's time budget
BUDGET_REASON = "not decided within the time budget"


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
    #: CEGIS iterations of the kernel being fixed ([AutoSync] Alg. 1), 0 for ``check``
    iteration: int = 0
    #: ``time.monotonic()`` when the run started, its ``--timeout`` (None: no limit), and the
    #: moment by which an oracle call must have returned (an "unknown" after it:
    #: :func:`oracle_deadline`, :class:`_WatchedOracle`)
    start: float = 0.0
    timeout: float | None = None
    deadline: float | None = None
    #: where the time went, when the run was asked for it (``--timings``)
    timings: Timings | None = None

    def budget(self, share: float) -> None:
        """From now on, oracle calls end by ``share`` of the run's ``--timeout``."""
        if self.timeout:
            self.deadline = self.start + share * self.timeout

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


def current_timings() -> Timings | None:
    """The ``--timings`` table of the guarded run this thread works for (None when not asked)."""
    token = current_token()
    return token.timings if token is not None else None


@contextmanager
def stage(name: str) -> Iterator[None]:
    """Time the block as one stage of the current run (nothing when no timings were asked)."""
    timings = current_timings()
    if timings is None:
        yield
        return
    t0 = time.perf_counter()
    try:
        yield
    finally:
        timings.add(name, time.perf_counter() - t0)


def note_kernel(name: str, index: int, total: int) -> None:
    token = current_token()
    if token is not None:
        token.kernel, token.index, token.total, token.iteration = name, index, total, 0


def note_iteration(_record: object = None) -> None:
    """One more CEGIS iteration (the synthesizer's ``on_iteration`` hook)."""
    token = current_token()
    if token is not None:
        token.iteration += 1


def oracle_deadline() -> float | None:
    """The moment the current run's oracle calls must end by (None: no time limit)."""
    token = current_token()
    return token.deadline if token is not None else None


def is_budget_unknown(reason: str) -> bool:
    """Whether an unknown's reason is the time budget's (:data:`BUDGET_REASON`)."""
    return BUDGET_REASON in reason


class _WatchedOracle:
    """An oracle whose every ``check`` counts for the progress line and is followed by the
    cancellation check; everything else is the wrapped oracle's.  A call the oracle gives up
    on at the run's deadline (``OracleError`` with ``timeout``) is an "unknown" with the
    reason (:data:`BUDGET_REASON`), so a run ends within its ``--timeout`` with an answer
    (issue 35, item 3) -- never a pass: an unknown is not verified."""

    def __init__(self, inner: Oracle, token: CancelToken) -> None:
        self._inner = inner
        self._token = token

    def check(self, *args: Any, **kwargs: Any) -> Any:
        from oracle.base import OracleError, Unknown, Verdict

        self._token.check()
        t0 = time.perf_counter()
        verdict = None
        try:
            verdict = self._inner.check(*args, **kwargs)
        except OracleError as exc:
            if not (exc.timeout and self._token.deadline is not None):
                raise
            self._token.check()  # the run itself was cancelled: that, not an unknown
            budget = self._token.deadline - self._token.start
            verdict = Verdict(unknowns=[Unknown(f"{getattr(self._inner, 'name', 'oracle')}: {BUDGET_REASON} "
                                                f"({budget:.1f} s of --timeout {self._token.timeout:g} s)",
                                                line=exc.line)],
                              queries=exc.queries or 0, seconds=time.perf_counter() - t0)
        finally:
            self._token.oracle_calls += 1
            if self._token.timings is not None:
                self._token.timings.add_oracle_call(time.perf_counter() - t0, getattr(verdict, "queries", None))
            self._token.check()
        return verdict

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


def watch(oracle: Oracle) -> Oracle:
    """``oracle`` as the current guarded run must see it (counted, cancellable); unchanged
    outside :func:`run_guarded`."""
    token = current_token()
    if token is None:
        return oracle
    _z3_leaves_sigint_alone()
    return _WatchedOracle(oracle, token)  # type: ignore[return-value]


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


def _stop(worker: threading.Thread, abandon: bool) -> None:
    """Stop a cancelled worker: in a process about to exit (``abandon``), interrupt z3 and give
    it :data:`GRACE_S`; in-process, wait for it (no z3 interrupt: it would leave the shared
    context cancelled for the next run)."""
    if abandon:
        _interrupt_z3()
        worker.join(GRACE_S)
    else:
        worker.join(IN_PROCESS_WAIT_S)


def run_guarded(fn: Any, *, timeout: float | None, file: str | None = None,
                progress: Any = None, text: str | None = None, abandon: bool = False,
                timings: Timings | None = None, share: float | None = None) -> Any:
    """``fn()`` in the worker thread (see above); returns its value or re-raises its exception.
    ``--timeout`` -> :class:`Timeout`, Ctrl-C -> :class:`Interrupted`, both within
    :data:`GRACE_S` even when the worker is stuck in native code (with ``abandon``, for a
    process that exits right after: the CLI; it is a daemon thread, and
    is abandoned: nothing it computes after the cancellation is used).  ``progress(token,
    seconds)`` is called about 10 times a second from the main thread (the caller decides
    whether to show anything).  ``text`` is the source when it is not ``file``'s (an editor
    buffer): it locates an :class:`Unsupported` nesting error.  ``timings``: the table the
    run's stages are recorded in (``--timings``); ``share``: the part of ``timeout`` its oracle
    calls may use (:meth:`CancelToken.budget`; ``check`` and ``fix`` give one, so that they
    answer "unknown" within ``timeout``; None: none, the run only stops at ``timeout``)."""
    token = CancelToken(start=time.monotonic(), timeout=timeout, timings=timings)
    if share is not None:
        token.budget(share)
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
    start = token.start
    end = start + timeout if timeout else None
    try:
        while worker.is_alive():
            worker.join(0.1)
            now = time.monotonic()
            if progress is not None and worker.is_alive():
                progress(token, now - start)
            if end is not None and now >= end and worker.is_alive():
                token.reason = "timeout"
                _stop(worker, abandon)
                raise Timeout(f"no result within {timeout:g} s")
    except KeyboardInterrupt:
        token.reason = "interrupt"
        _stop(worker, abandon)
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


__all__ = ["CancelToken", "run_guarded", "current_token", "note_kernel", "note_iteration", "nesting_depth", "watch",
           "oracle_deadline", "is_budget_unknown", "current_timings", "stage", "WORKER_STACK", "WORKER_RECURSION", "GRACE_S", "PROGRESS_AFTER_S",
           "CHECK_SHARE", "SYNTHESIS_SHARE", "RECHECK_SHARE", "BUDGET_REASON"]
