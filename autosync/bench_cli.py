"""The ``autosync bench`` command (registered lazily through ``cli.LAZY_COMMANDS``).

No ``from __future__ import annotations`` here: typer reads the annotations at run time.
"""

import os
from typing import Annotated

import typer

from autosync import cli
from autosync.bench import bench_folder, format_table, machine


def register(app: typer.Typer) -> None:
    """Add ``autosync bench DIR`` to the CLI (found through ``cli.LAZY_COMMANDS``)."""
    @app.command("bench")
    def bench_command(
        folder: Annotated[str, typer.Argument(help="Folder of .cu kernels (e.g. microbench/).")],
        table: Annotated[str, typer.Option(
            "--table", help="I (barrier-free inputs), II (developer barriers) or auto.")] = "auto",
        oracle: Annotated[str, typer.Option("--oracle", help="Oracle to count calls of.")] = "sdv",
        solver: Annotated[cli.Solver, typer.Option("--solver", help="MaxSAT back end.")] = cli.Solver.rc2,
        naive: Annotated[bool, typer.Option("--naive/--no-naive", help="Also run the naive baseline.")] = True,
        oracle_facts: Annotated[cli.OnOff, typer.Option(
            "--oracle-facts", help="Use the oracle's intra/inter-iteration facts.")] = cli.OnOff.on,
        repeat: Annotated[int, typer.Option("--repeat", help="Runs per kernel; the median is shown.")] = 1,
        fmt: cli.FormatOpt = cli.Format.text,
    ) -> None:
        """Reproduce Table I (micro-benchmarks) or Table II (SDK kernels) of the paper."""
        import json

        with cli.guard(folder):
            if table not in ("auto", "I", "II"):
                raise cli.BadInput(f"bad --table '{table}': expected I, II or auto", folder)
            if not os.path.isdir(folder):
                raise cli.BadInput("not a folder", folder)
            if repeat < 1:
                raise cli.BadInput("--repeat must be at least 1", folder)
            if fmt is cli.Format.sarif:
                raise cli.BadInput("bench supports --format text or json", folder)
            chosen, rows = bench_folder(folder, table=None if table == "auto" else table,
                                        oracle_name=oracle, solver=solver.value, naive=naive,
                                        use_facts=oracle_facts is cli.OnOff.on, repeat=repeat)
            if fmt is cli.Format.json:
                cli.emit(json.dumps({
                    "folder": folder, "table": chosen, "oracle": oracle, "solver": solver.value,
                    "machine": machine(), "rows": [r.as_json() for r in rows],
                    "total_seconds": round(sum(r.as_time for r in rows), 4),
                    "naive_total_seconds": round(sum(r.n_time or 0 for r in rows), 4),
                    "ok": all(r.ok for r in rows)}, indent=2))
            else:
                cli.emit(format_table(chosen, rows, oracle=oracle, solver=solver.value).rstrip("\n"))
        raise typer.Exit(cli.EXIT_OK if all(r.ok for r in rows) else cli.EXIT_FAIL)
