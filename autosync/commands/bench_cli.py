"""The ``autosync bench`` command (registered lazily through ``cli.LAZY_COMMANDS``).

No ``from __future__ import annotations`` here: typer reads the annotations at run time.
"""

import os
from typing import Annotated

import typer

from autosync.commands.cli_common import (
    DEFAULT_WARP_BARRIER_COST,
    EXIT_FAIL,
    EXIT_OK,
    STATE,
    Format,
    FormatOpt,
    OnOff,
    OracleFactsOpt,
    Solver,
    SolverOpt,
    WarpCostOpt,
    check_timeout,
    emit,
    error_json,
    guard,
    progress_line,
    warp_cost_arg,
)
from autosync.pipeline.core import BadInput, run_guarded


def register(app: typer.Typer) -> None:
    """Add ``autosync bench DIR`` to the CLI (found through ``cli.LAZY_COMMANDS``)."""
    @app.command("bench")
    def bench_command(
        folder: Annotated[str, typer.Argument(help="Folder of .cu or .cl kernels (e.g. microbench/).")],
        table: Annotated[str, typer.Option(
            "--table", help="I (barrier-free inputs), II (developer barriers) or auto.")] = "auto",
        # not the shared --oracle: bench counts the calls of ONE oracle on every kernel
        oracle: Annotated[str, typer.Option("--oracle", help="Oracle to count calls of.")] = "sdv",
        solver: SolverOpt = Solver.rc2,
        naive: Annotated[bool, typer.Option("--naive/--no-naive", help="Also run the naive baseline.")] = True,
        oracle_facts: OracleFactsOpt = OnOff.on,
        warp_barrier_cost: WarpCostOpt = DEFAULT_WARP_BARRIER_COST,
        repeat: Annotated[int, typer.Option("--repeat", help="Runs per kernel; the median is shown.")] = 1,
        fmt: FormatOpt = Format.text,
        timeout: Annotated[float | None, typer.Option(
            "--timeout", metavar="SECONDS",
            help="Give up on the whole folder after SECONDS (exit 3); no limit by default, as a folder "
                 "of kernels legitimately runs for minutes.")] = None,
    ) -> None:
        """Reproduce Table I (micro-benchmarks) or Table II (SDK kernels) of the paper."""
        import json

        from autosync.commands.bench import bench_folder, format_table, machine

        document = error_json({"folder": folder, "rows": []}) if fmt is Format.json else None
        with guard(folder, document):
            if table not in ("auto", "I", "II"):
                raise BadInput(f"bad --table '{table}': expected I, II or auto", folder)
            if not os.path.isdir(folder):
                raise BadInput("not a folder", folder)
            if repeat < 1:
                raise BadInput("--repeat must be at least 1", folder)
            if fmt is Format.sarif:
                raise BadInput("bench supports --format text or json", folder)
            check_timeout(timeout, folder)
            warp_cost = warp_cost_arg(warp_barrier_cost, folder)
            # the one guarded worker of every command: Ctrl-C -> exit 130, --timeout -> exit 3
            chosen, rows = run_guarded(
                lambda: bench_folder(folder, table=None if table == "auto" else table, oracle_name=oracle,
                                     solver=solver.value, naive=naive, use_facts=oracle_facts is OnOff.on,
                                     repeat=repeat, timeout=timeout, warp_cost=warp_cost),
                timeout=timeout, file=folder, progress=progress_line, abandon=STATE.hard_exit)
            if fmt is Format.json:
                emit(json.dumps({
                    "folder": folder, "table": chosen, "oracle": oracle, "solver": solver.value,
                    "machine": machine(), "rows": [r.as_json() for r in rows],
                    "total_seconds": round(sum(r.as_time for r in rows), 4),
                    "naive_total_seconds": round(sum(r.n_time or 0 for r in rows), 4),
                    "ok": all(r.ok for r in rows)}, indent=2))
            else:
                emit(format_table(chosen, rows, oracle=oracle, solver=solver.value).rstrip("\n"))
        raise typer.Exit(EXIT_OK if all(r.ok for r in rows) else EXIT_FAIL)
