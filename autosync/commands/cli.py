"""The ``autosync`` command line (typer): ``parse``, ``check``, ``fix``, plus ``compare``,
``bench`` and ``lsp`` loaded on demand.

What the user does (the README's "What the user does"):

    autosync parse kernel.cu     # the label tree of [AutoSync] Sec. III-A, one label per line
    autosync check kernel.cu     # races / barrier divergence, compiler-style messages
    autosync fix kernel.cu       # [AutoSync] Alg. 1: least-cost verified __syncthreads() placement

The wording is :mod:`autosync.report` / :mod:`autosync.report.fix` / :mod:`autosync.report.sarif`,
the flags, exit codes and the one-line error guard :mod:`autosync.commands.cli_common` (shared
with the lazily loaded commands).

Heavy modules (the front end, z3, the MaxSAT back ends) are imported inside the commands, so
``autosync --version`` and ``--help`` stay fast.  A command module that defines
``register(app)`` is listed in :data:`LAZY_COMMANDS`: it is imported only when its command is
run (or ``--help`` lists the commands), so e.g. pygls is not loaded for ``autosync check``.

Why one module of ~600 lines: it is the typer front door of parse, check and fix -- option
declarations, the hand-off to the pipeline and the choice of report; the work itself lives in
:mod:`autosync.pipeline` and the report modules.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import time
import traceback
from typing import TYPE_CHECKING, Annotated, Any

import typer
import typer.main
from typer.core import TyperGroup

from autosync.commands.cli_common import (
    DEFAULT_TIMEOUT,
    DEFAULT_WARP_BARRIER_COST,
    EXIT_BAD_INPUT,
    EXIT_FAIL,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    STATE,
    ErrorDocument,
    ExcludeOpt,
    ExplainOpt,
    FileArg,
    Format,
    FormatOpt,
    IcOpt,
    JobsOpt,
    KernelFlags,
    LcOpt,
    MorePathsArg,
    NoCacheOpt,
    OnOff,
    OracleFactsOpt,
    OracleOpt,
    ShardOpt,
    Solver,
    SolverOpt,
    TimeoutOpt,
    TimingsOpt,
    WarpCostOpt,
    check_timeout,
    emit,
    err,
    error_json,
    error_sarif,
    guard,
    kernel_flags,
    progress_line,
    version,
    warp_cost_arg,
)
from autosync.pipeline import core as pipeline
from autosync.pipeline.core import BadInput, FixOutcome, KernelOptions, write_file

# --------------------------------------------------------------------------- app

if TYPE_CHECKING:  # imported lazily at run time: start-up time
    from autosync.commands.batch import FileResult
    from autosync.pipeline.timings import Timings

#: what ``--timings`` imports as a stage of its own (each command imports them anyway, later)
CHECK_IMPORTS = ["kpl.frontend.kernels", "oracle.sdv", "autosync.report.verdicts"]
FIX_IMPORTS = [*CHECK_IMPORTS, "autosync.algorithm.synthesis", "autosync.algorithm.maxsat", "autosync.render.patch",
               "autosync.report.fix"]


#: command name -> module defining ``register(app)``; imported on first use (see docstring)
LAZY_COMMANDS: dict[str, str] = {
    "compare": "autosync.commands.compare_cli",
    "bench": "autosync.commands.bench_cli",
    "lsp": "autosync.lsp.server",
}


class _LazyGroup(TyperGroup):
    """The app's click group: also finds the commands of :data:`LAZY_COMMANDS`."""

    def list_commands(self, ctx: Any) -> list[str]:
        names = list(super().list_commands(ctx))
        for name, module in LAZY_COMMANDS.items():
            if name not in names and importlib.util.find_spec(module) is not None:
                names.append(name)
        return names

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is None and cmd_name in LAZY_COMMANDS:
            command = _load_lazy(cmd_name)
        return command


def _load_lazy(name: str) -> Any:
    try:
        module = importlib.import_module(LAZY_COMMANDS[name])
    except ImportError:
        if STATE.debug:
            traceback.print_exc()
        return None
    register = getattr(module, "register", None)
    if register is None:
        return None
    holder = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    register(holder)
    group = typer.main.get_group(holder)
    return group.commands.get(name)


app = typer.Typer(
    cls=_LazyGroup,
    name="autosync",
    help="AutoSync: find data races and barrier divergence in CUDA kernels, and insert the "
         "least costly set of __syncthreads() that provably removes them.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"autosync {version()}")
        raise typer.Exit(0)


@app.callback()
def _root(
    debug: Annotated[bool, typer.Option("--debug", help="Show Python tracebacks on errors.")] = False,
    show_version: Annotated[bool, typer.Option(
        "--version", callback=_version_callback, is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    STATE.debug = debug


# --------------------------------------------------------------------------- parse


def _error_document(fmt: Format, base: dict[str, Any] | None = None) -> ErrorDocument | None:
    """How a failure reads in ``fmt``: ONE JSON/SARIF document (None: the text line only)."""
    if fmt is Format.json:
        return error_json(base)
    if fmt is Format.sarif:
        return error_sarif
    return None


@app.command()
@kernel_flags
def parse(file: FileArg, flags: KernelFlags, fmt: FormatOpt = Format.text) -> None:
    """Print the label tree (Sec. III-A): each label's paper-style name, kind and source line."""
    from autosync.report import verdicts as report

    with guard(file, _error_document(fmt, {"file": file, "kernels": []})):
        opts = flags.options()
        if fmt is Format.sarif:
            raise BadInput("--format sarif is not available for parse (use text or json)", file)
        # the label trees are built in the worker too (its stack bounds every recursive walk)
        data = pipeline.run_guarded(lambda: [report.tree_json(k, file) for k in pipeline.load(opts)], timeout=None,
                                    file=file, progress=progress_line, abandon=STATE.hard_exit)
        if fmt is Format.json:
            doc: dict[str, Any] = {"file": file, "kernels": data}
            if len(data) == 1:
                doc["kernel"] = data[0]["name"]
                doc["labels"] = data[0]["labels"]
            emit(report.dumps(doc))
            return
        for i, kdata in enumerate(data):
            if i:
                emit("")
            emit(report.tree_text(kdata))


# --------------------------------------------------------------------------- check


@app.command()
@kernel_flags
def check(file: FileArg, flags: KernelFlags, oracle: OracleOpt = None, timeout: TimeoutOpt = DEFAULT_TIMEOUT,
          fmt: FormatOpt = Format.text, more: MorePathsArg = None, jobs: JobsOpt = None,
          exclude: ExcludeOpt = None, shard: ShardOpt = None, no_cache: NoCacheOpt = False,
          explain: ExplainOpt = False, timings: TimingsOpt = False) -> None:
    """Report data races, barrier divergence and oracle unknowns (exit 0 verified, 1 not).
    Several files or folders: one summary line, the worst exit code (see autosync.commands.batch).
    Results are cached (autosync.commands.cache) unless --no-cache."""
    from autosync.commands import batch, cache

    if not batch.IN_WORKER and (more or os.path.isdir(file) or shard or exclude):
        with guard(None):
            if timings:
                raise BadInput("--timings takes one file")
            code = batch_check([file, *(more or [])], flags, oracle, timeout, fmt, jobs, exclude, shard, no_cache,
                               explain)
        raise typer.Exit(code)
    if not batch.IN_WORKER and not no_cache and not STATE.debug and not timings and not cache.disabled():
        raise typer.Exit(_cached_check(file, flags, oracle, timeout, fmt, explain))
    _check_file(file, flags, oracle, timeout, fmt, explain, timings)


def _check_args(flags: KernelFlags, oracle: str | None, timeout: float | None, fmt: Format,
                explain: bool = False) -> list[str]:
    """The options of a ``check`` as command-line arguments (a batch worker's, the cache key's)."""
    return flags.argv() + (["--oracle", oracle] if oracle else []) + \
        (["--timeout", str(timeout)] if timeout else []) + ["--format", fmt.value] + (["--explain"] if explain else [])


def _cached_check(file: str, flags: KernelFlags, oracle: str | None, timeout: float | None, fmt: Format,
                  explain: bool = False) -> int:
    """``check FILE`` through the result cache (:mod:`autosync.commands.cache`, the entries batch runs
    use): a hit prints the stored output; a miss runs the check, keeping what it prints."""
    from autosync.commands import batch, cache

    folder, digest = batch.cache_slot(file, _check_args(flags, oracle, timeout, fmt, explain), flags.include_dir or [],
                                      version())
    hit = cache.get(folder, digest) if digest is not None else None
    if hit is not None:
        typer.echo(hit.stdout, nl=False)
        typer.echo(hit.stderr, nl=False, err=True)
        return hit.code
    STATE.record = []
    try:
        _check_file(file, flags, oracle, timeout, fmt, explain)
        code = EXIT_OK
    except typer.Exit as exc:
        code = exc.exit_code
    finally:
        kept, STATE.record = STATE.record, None
    if digest is not None and code in (EXIT_OK, EXIT_FAIL, EXIT_BAD_INPUT):  # not timeouts, crashes, Ctrl-C
        cache.put(folder, digest, cache.Entry(code, "".join(t for s, t in kept if s == "stdout"),
                                              "".join(t for s, t in kept if s == "stderr")))
    return code


def _check_file(file: str, flags: KernelFlags, oracle: str | None, timeout: float | None, fmt: Format,
                explain: bool = False, timings: bool = False) -> None:
    """``check`` of one file; raises ``typer.Exit`` with the exit code (``timings``: ``--timings``)."""
    from autosync.report import sarif as report_sarif
    from autosync.report import verdicts as report
    from kpl.locations import LabelLocator

    base: dict[str, Any] = {"file": file, "kernel": None, "kernels": [], "verified": False, "races": [], "divergences": [],
            "unknowns": [], "findings": []}
    with guard(file, _error_document(fmt, base)):
        opts = flags.options()
        check_timeout(timeout, file)
        t0 = time.perf_counter()
        table = _timings(timings, CHECK_IMPORTS)

        def work() -> list[tuple[LabelLocator, Any, str]]:
            results = []
            kernels = pipeline.load(opts)
            for i, k in enumerate(kernels):
                pipeline.note_kernel(k.name, i + 1, len(kernels))
                name, orc = pipeline.pick_oracle(oracle, k, timeout, file, benign=opts.benign,
                                                 synthesis=False)
                results.append((LabelLocator(k, file), pipeline.run_oracle(orc, k), name))
                if k.launch.symbolic and name == "dynamic":  # it ran numbers, not every launch: say which
                    from kpl.launch import launch_text as sizes
                    from kpl.launch import representative

                    opts.notes.append(f"{file}: note: kernel '{k.name}': the dynamic oracle ran only the launches "
                                      + " and ".join(sizes(r, k.language) for r in representative(k.launch)))
            return results

        try:
            results = pipeline.run_guarded(work, timeout=timeout, file=file, progress=progress_line,
                                           abandon=STATE.hard_exit, timings=table, share=pipeline.CHECK_SHARE)
        except BaseException:
            _say_timings(table, finished=False)  # where the time went until it failed: the more useful then
            raise
        seconds = time.perf_counter() - t0
        verified = all(v.verified for _, v, _ in results)
        for note in opts.notes:
            err(note)
        from autosync.pipeline.launch import add_launches, assumptions, launch_text

        if fmt is Format.json:
            doc = add_launches(report.check_json(file, results, seconds), results)
            if explain:
                for entry, (loc, _, _) in zip(doc.get("kernels", []), results, strict=True):
                    entry["assumptions"] = assumptions(loc.kernel)
            if table is not None:
                doc["timings"] = table.json()
            emit(report.dumps(doc))
        elif fmt is Format.sarif:
            emit(report.dumps(report_sarif.check_sarif(results, file, version=version())))
        else:
            names = [loc.kernel.name for loc, _, _ in results]
            for loc, v, name in results:
                several = names.count(loc.kernel.name) > 1  # one line per launch: say which
                if explain:
                    emit(f"{file}: kernel '{loc.kernel.name}'" + (f" ({launch_text(loc.kernel)})" if several else "")
                         + " assumes:")
                    for line in assumptions(loc.kernel):
                        emit(f"  {line}")
                for line in report.check_lines(loc, v):
                    emit(line)
                emit(report.summary_line(file, loc.kernel.name, v, name, launch_text(loc.kernel) if several else None))
        _say_timings(table)
    raise typer.Exit(EXIT_OK if verified else EXIT_FAIL)


def _timings(asked: bool, modules: list[str]) -> Timings | None:
    """``--timings``: the table of the run, its imports already recorded (None: not asked)."""
    if not asked:
        return None
    from autosync.pipeline import timings as timing

    table = timing.Timings()
    timing.imports(table, modules, process=STATE.hard_exit)
    return table


def _say_timings(table: Timings | None, finished: bool = True) -> None:
    """The ``--timings`` table on stderr (``finished=False``: the stages before a failure)."""
    if table is not None:
        for line in table.lines() if finished else [*table.lines(), "  (the run did not finish)"]:
            err(line)


def batch_check(paths: list[str], flags: KernelFlags, oracle: str | None, timeout: float | None, fmt: Format,
                jobs: int | None, exclude: list[str] | None, shard: str | None, no_cache: bool,
                explain: bool = False) -> int:
    """``check`` over many files (:mod:`autosync.commands.batch`); returns the worst exit code."""
    from autosync.commands import batch, cache

    args = _check_args(flags, oracle, timeout, fmt, explain)
    files = batch.shard(batch.expand(paths, exclude or []), shard)
    results = batch.run(invoke, files, args, jobs=jobs, use_cache=not (no_cache or cache.disabled()), include_dirs=flags.include_dir or [],
                        version=version())
    _emit_batch(results, fmt, batch.summary_line(results))
    return batch.worst([r.code for r in results])


def _emit_batch(results: list[FileResult], fmt: Format, summary: str,
                json_summary: dict[str, int] | None = None) -> None:
    """A many-file run's output: one JSON/SARIF document, or each file's report; then the
    summary line (on stderr when stdout carries a document)."""
    from autosync.commands import batch
    from autosync.report import verdicts as report

    if fmt is Format.json:
        doc = batch.json_document(results)
        doc["summary"].update(json_summary or {})
        emit(report.dumps(doc))
    elif fmt is Format.sarif:
        emit(report.dumps(batch.sarif_document(results)))
    for r in results:
        if fmt is Format.text and r.stdout:
            emit(r.stdout.rstrip("\n"))
        if r.stderr:
            err(r.stderr.rstrip("\n"))
    err(summary) if fmt is not Format.text else emit(summary)


# --------------------------------------------------------------------------- fix


@app.command()
@kernel_flags
def fix(
    file: FileArg,
    flags: KernelFlags,
    oracle: OracleOpt = None,
    timeout: TimeoutOpt = DEFAULT_TIMEOUT,
    fmt: FormatOpt = Format.text,
    solver: SolverOpt = Solver.rc2,
    lc: LcOpt = 100,
    ic: IcOpt = 0.5,
    warp_barrier_cost: WarpCostOpt = DEFAULT_WARP_BARRIER_COST,
    oracle_facts: OracleFactsOpt = OnOff.on,
    grid_sync: Annotated[bool, typer.Option(
        "--grid-sync", help="The kernel is launched cooperatively (grid co-resident): fix may insert a grid "
        "barrier (this_grid().sync()) for a race between blocks.  Implied by a cooperative launch in the "
        "host code or a grid barrier already in the kernel.")] = False,
    minimize: Annotated[bool, typer.Option(
        "--minimize", help="The kernel's own barriers are candidates too: the least-cost verified placement over "
        "all positions, deleting the barriers it does not need (ties keep yours).")] = False,
    naive: Annotated[bool, typer.Option("--naive", help="The naive enumerative baseline (Sec. IV-B).")] = False,
    target: Annotated[str, typer.Option("--target", help="Barrier spelling: cuda or opencl.")] = "cuda",
    output: Annotated[str | None, typer.Option(
        "-o", "--output", help="Write the result here, not in place ('-': the patched text to stdout).")]
        = None,
    diff: Annotated[bool, typer.Option(
        "--diff", help="Print a unified diff; write nothing (exit 1 when the file would change).")] = False,
    check_only: Annotated[bool, typer.Option(
        "--check", help="For CI: print only the summary line, write nothing (exit 1 when the file would change).")]
        = False,
    exit_non_zero_on_fix: Annotated[bool, typer.Option(
        "--exit-non-zero-on-fix", help="Exit 1 when a file was changed (for pre-commit, as ruff).")] = False,
    more: MorePathsArg = None, jobs: JobsOpt = None, exclude: ExcludeOpt = None, shard: ShardOpt = None,
    timings: TimingsOpt = False,
) -> None:
    """Insert the least costly verified set of barriers (Algorithm 1); write after an end-to-end check.
    Several files or folders: each fixed in place, one summary line, the worst exit code."""
    from autosync.commands import batch
    from autosync.report import fix as report_fix

    if not batch.IN_WORKER and (more or os.path.isdir(file) or shard or exclude):
        args = ["--oracle", oracle] if oracle else []
        args += ["--timeout", str(timeout)] if timeout else []
        args += ["--format", fmt.value, "--solver", solver.value, "--lc", str(lc), "--ic", str(ic),
                 "--oracle-facts", oracle_facts.value, "--target", target]
        args += (["--naive"] if naive else []) + (["--diff"] if diff else []) + (["--check"] if check_only else [])
        args += (["--grid-sync"] if grid_sync else []) + (["--minimize"] if minimize else [])
        with guard(None):
            if output is not None or timings:
                raise BadInput(f"{'-o/--output' if output is not None else '--timings'} takes one file")
            code = batch_fix([file, *(more or [])], flags, args, fmt, jobs, exclude, shard, exit_non_zero_on_fix)
        raise typer.Exit(code)
    STATE.last_error = None
    base = report_fix.fix_error_json(file, None, solver.value, oracle)
    with guard(file, _error_document(fmt, base)):
        opts = flags.options()
        check_timeout(timeout, file)
        if lc <= 0 or ic <= 0:
            raise BadInput("--lc and --ic must be positive", file)
        warp_cost = warp_cost_arg(warp_barrier_cost, file) if target == "cuda" else None
        from autosync.render.patch import available_targets

        if target not in available_targets():
            raise BadInput(f"unknown target '{target}' (known: {', '.join(available_targets())})", file)
        if sum([output is not None, diff, check_only]) > 1:
            raise BadInput("--diff, --check and -o/--output exclude each other", file)
        if output == "-" and fmt is not Format.text:
            raise BadInput("-o - prints the patched text on stdout: it needs --format text", file)
        if not (diff or check_only or output == "-"):
            pipeline.check_writable(output or file)  # refuse now, not after minutes of work
        t0 = time.perf_counter()
        table = _timings(timings, FIX_IMPORTS)
        try:
            outcome = pipeline.run_guarded(
                lambda: pipeline.fix_kernels(opts, oracle=oracle, timeout=timeout, solver=solver.value, lc=lc, ic=ic,
                                             use_facts=oracle_facts is OnOff.on, naive=naive, target=target,
                                             warp_cost=warp_cost, grid_sync=grid_sync, minimize=minimize),
                timeout=timeout, file=file, progress=progress_line, abandon=STATE.hard_exit, timings=table,
                share=pipeline.SYNTHESIS_SHARE)
        except BaseException:
            _say_timings(table, finished=False)
            raise
        outcome.seconds = time.perf_counter() - t0
        outcome.timings = table
        code = _finish_fix(outcome, opts, output=output, diff=diff, check_only=check_only, fmt=fmt, target=target)
        _say_timings(table)
        changed = outcome.status == "fixed" and not (diff or check_only) and outcome.patched != outcome.original
    raise typer.Exit(EXIT_FAIL if exit_non_zero_on_fix and code == EXIT_OK and changed else code)


def batch_fix(paths: list[str], flags: KernelFlags, args: list[str], fmt: Format, jobs: int | None,
              exclude: list[str] | None, shard: str | None, exit_non_zero_on_fix: bool) -> int:
    """``fix`` over many files (:mod:`autosync.commands.batch`, no cache: it writes); returns the worst
    exit code (1 instead of 0 when a file was rewritten and ``exit_non_zero_on_fix``)."""
    from autosync.commands import batch

    files = batch.shard(batch.expand(paths, exclude or []), shard)
    results = batch.run(invoke, files, flags.argv() + args, jobs=jobs, use_cache=False,
                        include_dirs=flags.include_dir or [], version=version(), command="fix")
    _emit_batch(results, fmt, batch.fix_summary_line(results),
                {"changed": sum(r.changed for r in results)})
    code = batch.worst([r.code for r in results])
    return EXIT_FAIL if exit_non_zero_on_fix and code == EXIT_OK and any(r.changed for r in results) else code


def _finish_fix(outcome: FixOutcome, opts: KernelOptions, *, output: str | None, diff: bool, check_only: bool,
                fmt: Format, target: str) -> int:
    """Write (or diff) and report; returns the exit code: 0 verified/fixed (written), 1 not
    fixable -- or, with ``--diff``/``--check``, 1 when the file would change (as ``ruff``)."""
    from autosync.report import fix as report_fix
    from autosync.report import sarif as report_sarif
    from autosync.report import verdicts as report

    written: str | None = None
    diff_text: str | None = None
    to_stdout = output == "-"  # the patched text is the output; the report goes to stderr
    stdout_text: str | None = None
    dry = diff or check_only
    changes = outcome.status == "fixed" and outcome.patched is not None and outcome.patched != outcome.original
    if outcome.status == "fixed" and outcome.patched is not None:
        if diff:
            diff_text = report_fix.unified_diff(opts.file, outcome.original, outcome.patched)
        elif to_stdout:
            stdout_text = outcome.patched
        elif not check_only:
            written = output or opts.file
            write_file(written, outcome.patched)
    elif outcome.status == "verified" and to_stdout:
        stdout_text = outcome.original
    elif outcome.status == "verified" and output is not None:
        written = output
        write_file(output, outcome.original)
    code = {"verified": EXIT_OK, "fixed": EXIT_OK, "unfixable": EXIT_FAIL}.get(outcome.status, EXIT_INTERNAL)
    if code == EXIT_OK and outcome.races_remain:  # races between blocks: no barrier orders them
        code = EXIT_FAIL
    if dry and changes:
        code = EXIT_FAIL
    if not check_only:
        for note in opts.notes:  # what the front end assumed (conventions, launches): before the report
            err(note)
    locs = report_fix.locators(outcome, opts.file)
    rows = report_fix.barrier_rows(outcome, locs, "<stdout>" if to_stdout else (output or opts.file))
    if fmt is Format.json:
        doc = report_fix.fix_json(outcome, locs, rows, written, diff_text, target)
        if outcome.timings is not None:
            doc["timings"] = outcome.timings.json()
        emit(report.dumps(doc))
        return code
    if fmt is Format.sarif:
        ok = outcome.status in ("verified", "fixed") and not outcome.races_remain
        emit(report.dumps(report_fix.fix_sarif(outcome, locs, rows, target, version=version(),
                                               invocation=report_sarif.invocation(ok))))
        return code
    if check_only:
        emit(report_fix.check_summary(outcome, rows, opts.file))
        return code
    # text: with --diff the diff is the output and the report goes to stderr
    say = err if diff or to_stdout else emit
    report_fix.fix_text(outcome, locs, rows, opts.file, say)
    if diff_text is not None:
        emit(diff_text.rstrip("\n"))
    if stdout_text is not None:
        sys.stdout.write(stdout_text)  # byte for byte: no newline added, line endings kept
        sys.stdout.flush()
    if written:
        say(f"wrote {written}")
    elif outcome.status == "fixed" and diff:
        say("--diff: nothing written")
    elif outcome.status == "unfixable":
        say(f"{opts.file}: file left unchanged")
    say(f"{outcome.seconds:.2f} s")
    return code


# --------------------------------------------------------------------------- entry point


def invoke(args: list[str]) -> Any:
    """The app on ``args`` as a library call (click's ``standalone_mode=False``: no exit): how a
    batch runs each file, in this process or a worker (:func:`autosync.commands.batch.run`)."""
    return app(args=args, prog_name="autosync", standalone_mode=False)


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point (``autosync = autosync.commands.cli:main``)."""
    STATE.hard_exit = True
    try:
        app(args=argv, prog_name="autosync")
    except SystemExit as exc:
        _leave(exc.code)
        raise
    except KeyboardInterrupt:  # outside a command's guard (e.g. while loading it)
        err("autosync: interrupted")
        _leave(EXIT_INTERRUPTED)
        raise SystemExit(EXIT_INTERRUPTED) from None
    except Exception as exc:  # noqa: BLE001 - e.g. a command that fails to load
        if STATE.debug:
            traceback.print_exc()
        err(f"autosync: internal error: {type(exc).__name__}: {exc} (rerun with --debug for a traceback)")
        raise SystemExit(EXIT_INTERNAL) from None


def _leave(code: object) -> None:
    """Exit NOW when a cancelled worker is still inside a native solver call: the interpreter
    would otherwise wait for it at shutdown (nothing it computes is used)."""
    import os
    import sys
    import threading

    if any(t.name == "autosync-worker" and t.is_alive() for t in threading.enumerate()):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code if isinstance(code, int) else EXIT_INTERNAL)


__all__ = ["app", "main", "LAZY_COMMANDS"]
