"""The ``autosync compare`` command (registered lazily through ``cli.LAZY_COMMANDS``).

No ``from __future__ import annotations`` here: typer reads the annotations at run time.
"""

import typer

from autosync import pipeline
from autosync.cli_common import (
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
    emit,
    guard,
    kernel_flags,
)


def register(app: typer.Typer) -> None:
    """Add ``autosync compare FILE`` to the CLI (found through ``cli.LAZY_COMMANDS``)."""
    @app.command("compare")
    @kernel_flags
    def compare_command(
        file: FileArg,
        flags: KernelFlags,
        oracle: OracleOpt = None,
        timeout: TimeoutOpt = None,
        fmt: FormatOpt = Format.text,
        solver: SolverOpt = Solver.rc2,
        lc: LcOpt = 100,
        ic: IcOpt = 0.5,
        oracle_facts: OracleFactsOpt = OnOff.on,
    ) -> None:
        """Developer's barriers vs synthesized ones: count, cost, lines, verdict and a diff."""
        import json

        from autosync.compare import compare_kernel, comparison_json, comparison_text

        with guard(file):
            if fmt is Format.sarif:
                raise pipeline.BadInput("compare supports --format text or json", file)
            opts = flags.options()
            results = []
            with pipeline.deadline(timeout, hard_exit=STATE.hard_exit):
                for k in pipeline.load(opts):
                    _, orc = pipeline.pick_oracle(oracle, k, timeout, file, benign=opts.benign)
                    results.append(compare_kernel(
                        k, orc, solver=solver.value, lc=pipeline.lc_ic(lc), ic=pipeline.lc_ic(ic),
                        use_facts=oracle_facts is OnOff.on,
                        parse_options=opts.frontend_kwargs()))
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
