"""The ``autosync compare`` command (registered lazily through ``cli.LAZY_COMMANDS``).

No ``from __future__ import annotations`` here: typer reads the annotations at run time.
"""

from typing import Annotated

import typer

from autosync import cli
from autosync.compare import compare_kernel, comparison_json, comparison_text


def register(app: typer.Typer) -> None:
    """Add ``autosync compare FILE`` to the CLI (found through ``cli.LAZY_COMMANDS``)."""
    @app.command("compare")
    def compare_command(
        file: cli.FileArg,
        kernel: cli.KernelOpt = None,
        define: cli.DefineOpt = None,
        include_dir: cli.IncludeOpt = None,
        block_dim: cli.BlockDimOpt = None,
        grid_dim: cli.GridDimOpt = None,
        warp_sync: cli.WarpSyncOpt = None,
        oracle: cli.OracleOpt = None,
        timeout: cli.TimeoutOpt = None,
        fmt: cli.FormatOpt = cli.Format.text,
        solver: Annotated[cli.Solver, typer.Option("--solver", help="MaxSAT back end.")] = cli.Solver.rc2,
        lc: Annotated[float, typer.Option("--lc", help="Loop cost factor LC (Sec. III-C).")] = 100,
        ic: Annotated[float, typer.Option("--ic", help="Conditional cost factor IC.")] = 0.5,
        oracle_facts: Annotated[cli.OnOff, typer.Option(
            "--oracle-facts", help="Use the oracle's intra/inter-iteration facts.")] = cli.OnOff.on,
    ) -> None:
        """Developer's barriers vs synthesized ones: count, cost, lines, verdict and a diff."""
        import json

        with cli.guard(file):
            if fmt is cli.Format.sarif:
                raise cli.BadInput("compare supports --format text or json", file)
            opts = cli.KernelOptions.build(file, kernel, define, include_dir, block_dim, grid_dim,
                                           warp_sync)
            results = []
            with cli.deadline(timeout):
                for k in cli.load(opts):
                    _, orc = cli.pick_oracle(oracle, k, timeout, file)
                    results.append(compare_kernel(
                        k, orc, solver=solver.value, lc=cli._lc_ic(lc), ic=cli._lc_ic(ic),
                        use_facts=oracle_facts is cli.OnOff.on,
                        parse_options=opts.frontend_kwargs()))
            ok = all(c.synthesized is not None and c.developer_verified for c in results)
            if fmt is cli.Format.json:
                docs = [comparison_json(c) for c in results]
                doc: dict[str, object] = dict(docs[0]) if len(docs) == 1 else {"kernels": docs}
                doc["file"] = file
                cli.emit(json.dumps(doc, indent=2))
            else:
                for c in results:
                    cli.emit(comparison_text(c, file).rstrip("\n"))
        raise typer.Exit(cli.EXIT_OK if ok else cli.EXIT_FAIL)
