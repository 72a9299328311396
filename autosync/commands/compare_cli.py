"""The ``autosync compare`` command (registered lazily through ``cli.LAZY_COMMANDS``).

No ``from __future__ import annotations`` here: typer reads the annotations at run time.
"""

import typer

from autosync.commands.cli_common import (
    DEFAULT_TIMEOUT,
    DEFAULT_WARP_BARRIER_COST,
    EXIT_FAIL,
    EXIT_OK,
    STATE,
    FileArg,
    Format,
    FormatOpt,
    IcOpt,
    KernelFlags,
    LcOpt,
    OnOff,
    OracleFactsOpt,
    OracleOpt,
    Solver,
    SolverOpt,
    TimeoutOpt,
    WarpCostOpt,
    check_timeout,
    emit,
    error_json,
    guard,
    kernel_flags,
    progress_line,
    warp_cost_arg,
)
from autosync.pipeline import core as pipeline


def register(app: typer.Typer) -> None:
    """Add ``autosync compare FILE`` to the CLI (found through ``cli.LAZY_COMMANDS``)."""
    @app.command("compare")
    @kernel_flags
    def compare_command(
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
    ) -> None:
        """Developer's barriers vs synthesized ones: count, cost, lines, verdict and a diff."""
        import json

        from autosync.commands.compare import Comparison, compare_kernel, comparison_json, comparison_text

        document = error_json({"file": file, "kernels": []}) if fmt is Format.json else None
        with guard(file, document):
            if fmt is Format.sarif:
                raise pipeline.BadInput("compare supports --format text or json", file)
            opts = flags.options()
            check_timeout(timeout, file)

            def work() -> list[Comparison]:
                results = []
                kernels = pipeline.load(opts)
                for i, k in enumerate(kernels):
                    pipeline.note_kernel(k.name, i + 1, len(kernels))
                    _, orc = pipeline.pick_oracle(oracle, k, timeout, file, benign=opts.benign)
                    results.append(compare_kernel(
                        k, orc, solver=solver.value, lc=pipeline.lc_ic(lc), ic=pipeline.lc_ic(ic),
                        use_facts=oracle_facts is OnOff.on, warp_cost=warp_cost,
                        parse_options=opts.frontend_kwargs(), on_iteration=pipeline.note_iteration))
                return results

            warp_cost = warp_cost_arg(warp_barrier_cost, file)  # validated here, one error line
            # the one guarded worker of every command: Ctrl-C -> exit 130, --timeout -> exit 3
            results = pipeline.run_guarded(work, timeout=timeout, file=file, progress=progress_line,
                                           abandon=STATE.hard_exit)
            ok = all(c.synthesized is not None and c.developer_verified for c in results)
            if fmt is Format.json:
                docs = [comparison_json(c) for c in results]
                doc: dict[str, object] = dict(docs[0]) if len(docs) == 1 else {"kernels": docs}
                doc["file"] = file
                emit(json.dumps(doc, indent=2))
            else:
                for c in results:
                    emit(comparison_text(c, file).rstrip("\n"))
        raise typer.Exit(EXIT_OK if ok else EXIT_FAIL)
