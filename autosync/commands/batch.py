"""``autosync check`` / ``fix`` over many files: folders, ``--exclude``, ``-j`` processes,
``--shard``, one summary line, the worst exit code, one JSON / SARIF document, and the result
cache (``check`` only: ``fix`` writes files).

Each file is handled by the ordinary single-file command, run in a worker process
(``concurrent.futures``) with its output captured, so a file's report in a batch is exactly
what ``autosync check FILE`` prints, and a cache hit (:mod:`autosync.commands.cache`) replays it.
"""

from __future__ import annotations

import fnmatch
import io
import json
import os
import sys
from collections.abc import Callable, Sequence
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from typing import Any

from autosync.commands import cache
from autosync.pipeline.errors import BadInput

SUFFIXES = (".cu", ".cuh", ".cl")
#: the CLI run on an argument list without exiting (:func:`autosync.commands.cli.invoke`)
Invoke = Callable[[list[str]], Any]

#: True inside a worker: the ``check`` command then checks its one file directly
IN_WORKER = False


@dataclass(frozen=True)
class FileResult:
    file: str
    code: int
    stdout: str
    stderr: str
    cached: bool = False
    #: ``fix`` wrote a different text into the file
    changed: bool = False


def expand(paths: Sequence[str], excludes: Sequence[str] = ()) -> list[str]:
    """Files named and ``*.cu``/``*.cuh``/``*.cl`` under folders named (and the files the compilation
    database compiles as CUDA there), minus ``--exclude`` globs (matched against the path and
    against each path component), sorted, without duplicates."""
    out: set[str] = set()

    def excluded(path: str) -> bool:
        norm = os.path.normpath(path)
        parts = norm.split(os.sep)
        return any(fnmatch.fnmatch(norm, g) or any(fnmatch.fnmatch(p, g) for p in parts) for g in excludes)

    for path in paths:
        if os.path.isdir(path):
            from autosync.pipeline import compdb

            try:  # files the compilation database compiles as CUDA (``-x cuda``), any suffix
                out.update(os.path.relpath(f) if not os.path.isabs(path) else f
                           for f in compdb.cuda_files(path) if not excluded(f))
            except BadInput:
                pass  # an unreadable database is reported by the check of each file
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not excluded(os.path.join(root, d)))
                for name in files:
                    full = os.path.join(root, name)
                    if name.endswith(SUFFIXES) and not excluded(full):
                        out.add(os.path.normpath(full))
        elif not excluded(path):
            out.add(path)
    return sorted(out)


def shard(files: list[str], spec: str | None) -> list[str]:
    """``--shard K/N``: the K-th (1-based) of N round-robin slices of the sorted files."""
    if spec is None:
        return files
    k_text, _, n_text = spec.partition("/")
    try:
        k, n = int(k_text), int(n_text)
    except ValueError:
        k = n = 0
    if n <= 0 or not 1 <= k <= n:
        raise BadInput(f"bad --shard value '{spec}': expected K/N with 1 <= K <= N")
    return files[k - 1::n]


def _read_bytes(file: str) -> bytes | None:
    try:
        with open(file, "rb") as fh:
            return fh.read()
    except OSError:
        return None


def cache_slot(file: str, args: list[str], include_dirs: list[str], version: str) -> tuple[str, str | None]:
    """(cache folder, key) of ``check FILE ARGS`` (key None: not cacheable); one function for
    batch and single-file runs, so they share entries.  The project configuration, the
    compilation database (its text, its ``-I`` folders) and the forced includes (``--include``,
    ``-include``) are part of the key."""
    from autosync.pipeline import compdb
    from autosync.pipeline.project import find_config

    try:
        config = find_config(file)
    except Exception:  # noqa: BLE001 - the check itself reports a bad configuration
        config = None
    build_dir = args[args.index("-p") + 1] if "-p" in args[:-1] else None
    try:
        flags = compdb.flags_for(file, build_dir)
    except BadInput:
        flags = None  # the check itself reports it
    forced = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "--include"]
    extra = ([flags.database, *flags.pre_includes] if flags else []) + forced  # hashed with their includes
    if flags is not None:  # the other files a kernel of this one may be launched from
        extra += compdb.launching_files(flags.database, file)
    dirs = include_dirs + list(flags.include_dirs if flags else ())
    folder = cache.cache_dir(config.root if config and config.path else None)
    return folder, cache.key(file, args, dirs, config.path if config else None, version, extra)


def _run_one(invoke: Invoke, file: str, args: list[str], use_cache: bool, include_dirs: list[str], version: str,
             command: str = "check") -> FileResult:
    """Run ``command`` on one file with the ordinary command (``invoke``, in this process),
    through the cache for ``check``."""
    global IN_WORKER
    folder, digest = "", None
    before = _read_bytes(file) if command == "fix" else None
    if use_cache and command == "check":
        folder, digest = cache_slot(file, args, include_dirs, version)
        if digest is not None:
            hit = cache.get(folder, digest)
            if hit is not None:
                return FileResult(file, hit.code, hit.stdout, hit.stderr, cached=True)
    out, err = io.StringIO(), io.StringIO()
    IN_WORKER = True
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = invoke([command, file, *args])
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 3
            except Exception as exc:  # noqa: BLE001 - click usage errors and the like
                err.write(f"{file}: error: {exc}\n")
                code = 2
    finally:
        IN_WORKER = False
    changed = before is not None and _read_bytes(file) != before
    result = FileResult(file, int(code or 0), out.getvalue(), err.getvalue(), changed=changed)
    if digest is not None and result.code in (0, 1, 2):  # not timeouts, crashes
        cache.put(folder, digest, cache.Entry(result.code, result.stdout, result.stderr))
    return result


def run(invoke: Invoke, files: list[str], args: list[str], *, jobs: int | None, use_cache: bool,
        include_dirs: list[str], version: str, command: str = "check") -> list[FileResult]:
    """Run ``command`` on every file (in order of ``files``), ``jobs`` processes at a time;
    ``invoke`` is the CLI itself (a module-level function, so a worker process finds it by
    name), given by the caller: the batch sits below the CLI and does not import it."""
    if len(files) <= 1 or jobs == 1:
        return [_run_one(invoke, f, args, use_cache, include_dirs, version, command) for f in files]
    from concurrent.futures import ProcessPoolExecutor  # a many-file run only: start-up time

    with ProcessPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        futures = [pool.submit(_run_one, invoke, f, args, use_cache, include_dirs, version, command)
                   for f in files]
        return [fut.result() for fut in futures]


def worst(codes: Sequence[int]) -> int:
    """The exit code of the run: 3 > 2 > 1 > 0."""
    return max(codes, default=0)


def summary(results: Sequence[FileResult]) -> dict[str, int]:
    return {"files": len(results), "verified": sum(r.code == 0 for r in results),
            "races": sum(r.code == 1 for r in results), "errors": sum(r.code >= 2 for r in results),
            "cached": sum(r.cached for r in results)}


def summary_line(results: Sequence[FileResult]) -> str:
    s = summary(results)
    errors = f"{s['errors']} error" + ("s" if s["errors"] != 1 else "")
    return (f"checked {s['files']} file{'s' if s['files'] != 1 else ''}: {s['verified']} verified, "
            f"{s['races']} with races, {errors}")


def fix_summary_line(results: Sequence[FileResult]) -> str:
    """The last line of ``fix`` over many files."""
    n = len(results)
    changed = sum(r.changed for r in results)
    unchanged = sum(r.code == 0 and not r.changed for r in results)
    unfixable = sum(r.code == 1 and not r.changed for r in results)
    errors = sum(r.code >= 2 for r in results)
    return (f"fixed {n} file{'s' if n != 1 else ''}: {changed} changed, {unchanged} unchanged, "
            f"{unfixable} not fixed, {errors} error{'s' if errors != 1 else ''}")


def json_document(results: Sequence[FileResult]) -> dict[str, Any]:
    """ONE document for the run: each file's ``check --format json`` document (or its error)."""
    files = []
    for r in results:
        try:
            doc = json.loads(r.stdout) if r.stdout.strip() else None
        except ValueError:
            doc = None
        if not isinstance(doc, dict):
            doc = {"file": r.file, "error": r.stderr.strip() or None}
        doc["exit_code"] = r.code
        files.append(doc)
    return {"files": files, "summary": summary(results)}


def sarif_document(results: Sequence[FileResult]) -> dict[str, Any] | None:
    """ONE SARIF run holding every file's results and artifacts (the first file's run is the
    frame); its invocation has the run's worst exit code and every file's tool notifications
    (the bad-input errors), and it is made ready for code scanning again after the merge."""
    from autosync.report.sarif import for_code_scanning

    merged: dict[str, Any] | None = None
    invocations: list[dict[str, Any]] = []
    for r in results:
        try:
            doc = json.loads(r.stdout)
        except ValueError:
            continue
        if not isinstance(doc, dict) or not doc.get("runs"):
            continue
        invocations += doc["runs"][0].get("invocations", [])
        if merged is None:
            merged = doc
            continue
        run0, run1 = merged["runs"][0], doc["runs"][0]
        run0.setdefault("results", []).extend(run1.get("results", []))
        arts = run0.setdefault("artifacts", [])
        known = {json.dumps(a, sort_keys=True) for a in arts}
        arts.extend(a for a in run1.get("artifacts", []) if json.dumps(a, sort_keys=True) not in known)
    if merged is not None:
        run = merged["runs"][0]
        notes = [n for inv in invocations for n in inv.get("toolExecutionNotifications", [])]
        invocation: dict[str, Any] = {
            "executionSuccessful": all(inv.get("executionSuccessful", True) for inv in invocations),
            "exitCode": worst([r.code for r in results]),
            "commandLine": " ".join(["autosync", *sys.argv[1:]])}
        if notes:
            invocation["toolExecutionNotifications"] = notes
        run["invocations"] = [invocation]
        for_code_scanning(run)
    return merged


__all__ = ["SUFFIXES", "IN_WORKER", "FileResult", "expand", "shard", "cache_slot", "run", "worst", "summary",
           "summary_line", "fix_summary_line", "json_document", "sarif_document"]
