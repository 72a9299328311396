"""The language server's job runner: one analysis off the event loop, bounded and killable.

Why a module of its own: verification is a search over an oracle (one SMT problem per
candidate of [AutoSync] Alg. 1), so one keystroke may cost seconds, and the only way to stop a
running SMT/MaxSAT search in Python is to kill the process it runs in.  This is that
machinery -- processes, pipes, time limits -- kept apart from the LSP features of
:mod:`autosync.lsp`, which only ask it to run a function and handle :class:`JobTimeout` /
:class:`JobFailed`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any

log = logging.getLogger("autosync.lsp")

#: imported once in the fork server so that each analysis process starts warm
PRELOAD = ["autosync.lsp.analysis", "kpl.frontend", "kpl.labels", "kpl.transform",
           "oracle.registry", "oracle.sdv", "oracle.named", "oracle.dynamic", "autosync.algorithm.synthesis",
           "autosync.render.patch", "autosync.algorithm.constraints", "autosync.algorithm.maxsat", "pysat.examples.rc2", "z3"]


# --------------------------------------------------------------------------- jobs


class JobTimeout(Exception):
    """The analysis ran past ``Options.timeout``."""


class JobFailed(Exception):
    """The analysis raised, or its process died; the message carries the traceback."""


def _child_main(conn: Any, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    """Body of an analysis process.  fd 1 is pointed at stderr first: a stray ``print`` in a
    library must never reach the client's JSON-RPC stream."""
    try:
        os.dup2(2, 1)
        sys.stdout = sys.stderr
    except OSError:
        pass
    try:
        conn.send((True, fn(*args)))
    except BaseException as exc:  # noqa: BLE001 - everything goes back to the server
        try:
            conn.send((False, f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"))
        except Exception:
            pass
    finally:
        conn.close()


_TIMEOUT = object()
_DIED = object()


class Runner:
    """Runs ``fn(*args)`` off the event loop, bounded by a timeout and cancellable.

    ``process`` isolation: one child process per job (forked from a preloaded fork server, so
    starting one costs milliseconds), killed on cancellation or time-out -- the only way to stop
    a running SMT/MaxSAT search in Python.  ``thread`` isolation: a worker thread whose result
    is dropped when stale (for platforms where processes are unavailable)."""

    def __init__(self, isolation: str = "process", max_jobs: int | None = None) -> None:
        self.isolation = isolation
        self._threads = concurrent.futures.ThreadPoolExecutor(max_workers=32, thread_name_prefix="autosync")
        self._ctx: Any = None
        self._limit = asyncio.Semaphore(max_jobs or max(2, min(4, os.cpu_count() or 2)))
        self._procs: set[Any] = set()

    def _context(self) -> Any:
        if self._ctx is None:
            methods = multiprocessing.get_all_start_methods()
            method = "forkserver" if "forkserver" in methods else "spawn"
            ctx = multiprocessing.get_context(method)
            if method == "forkserver":
                ctx.set_forkserver_preload(PRELOAD)
            self._ctx = ctx
        return self._ctx

    async def warm_up(self) -> None:
        """Start the fork server now (it imports z3 & co. once) rather than on the first
        keystroke."""
        if self.isolation == "process":
            try:
                await self.run(len, ((),), 60.0)
            except Exception as exc:  # a failed warm-up is retried by the first real job
                log.warning("warm-up failed: %s", exc)

    async def run(self, fn: Callable[..., Any], args: tuple[Any, ...], timeout: float) -> Any:
        async with self._limit:
            if self.isolation == "thread":
                return await self._run_thread(fn, args, timeout)
            return await self._run_process(fn, args, timeout)

    async def _run_thread(self, fn: Callable[..., Any], args: tuple[Any, ...], timeout: float) -> Any:
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._threads, lambda: fn(*args))
        try:
            return await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError:
            raise JobTimeout(f"analysis did not finish within {timeout:g} s") from None
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise JobFailed(f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}") from exc

    async def _run_process(self, fn: Callable[..., Any], args: tuple[Any, ...], timeout: float) -> Any:
        loop = asyncio.get_running_loop()
        ctx = self._context()
        parent, child = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_child_main, args=(child, fn, args), daemon=True)
        try:
            await loop.run_in_executor(self._threads, proc.start)
        except BaseException:
            parent.close()
            child.close()
            raise
        child.close()
        self._procs.add(proc)

        def wait() -> Any:
            if not parent.poll(timeout):
                return _TIMEOUT
            try:
                return parent.recv()
            except (EOFError, OSError):
                return _DIED

        def cleanup(_: Any = None) -> None:
            # runs once the waiting thread is done: only then may the pipe be closed
            try:
                parent.close()
            finally:
                proc.join(5)
                self._procs.discard(proc)

        waiting = self._threads.submit(wait)
        try:
            outcome = await asyncio.wrap_future(waiting)
        finally:
            if proc.is_alive():
                proc.kill()
            waiting.add_done_callback(cleanup)
        if outcome is _TIMEOUT:
            raise JobTimeout(f"analysis did not finish within {timeout:g} s")
        if outcome is _DIED:
            raise JobFailed(f"the analysis process died (exit code {proc.exitcode})")
        ok, payload = outcome
        if not ok:
            raise JobFailed(payload)
        return payload

    def close(self) -> None:
        for proc in list(self._procs):
            try:
                proc.kill()
            except Exception:
                pass
        self._threads.shutdown(wait=False, cancel_futures=True)
