"""Formatting of a fix (:class:`autosync.pipeline.outcome.FixOutcome`): text, JSON and SARIF reports.

Kept apart from :mod:`autosync.report` (which words the oracle's verdicts) because a fix
adds its own facts -- the inserted barriers with their cost C(ℓ) ([AutoSync] Sec. III-C), their
place in the patched AND the original text, the end-to-end check -- that only ``autosync fix``
reports.  The barrier rows are computed once (:func:`barrier_rows`) and shared by the three
formats, so text, JSON and SARIF can never disagree on where a barrier went.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from autosync.pipeline.outcome import FixOutcome, KernelFix
from autosync.report import sarif as report_sarif
from autosync.report import verdicts as report
from kpl.lineindex import LineIndex
from kpl.locations import LabelLocator
from oracle.base import Divergence, Verdict, inter_block_message

if TYPE_CHECKING:
    from autosync.algorithm.synthesis import SynthesisResult

Locators = dict[str, LabelLocator]


def locators(outcome: FixOutcome, display_path: str) -> Locators:
    """kernel name -> its label locator, shown with the user's path."""
    return {f.kernel.name: LabelLocator(f.kernel, display_path) for f in outcome.fixes}


def unified_diff(path: str, before: str, after: str) -> str:
    rel = path.lstrip("/")
    return "".join(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        fromfile=f"a/{rel}", tofile=f"b/{rel}"))


def initial_verdict(res: SynthesisResult) -> Verdict:
    """What the oracle said about the INPUT (a fixed result's ``verdict`` is the final one)."""
    if res.status != "fixed" and res.verdict is not None:
        return res.verdict
    return Verdict(races=list(res.races_initial),
                   divergences=[Divergence(lab) for lab in res.divergences_initial])


def fmt_cost(value: float | int) -> str:
    return str(value) if isinstance(value, int) else f"{value:g}"


def barrier_rows(outcome: FixOutcome, locs: Locators, shown_file: str) -> list[dict[str, Any]]:
    """One row per inserted barrier: where it is in the patched text and in the original,
    after which label, at what cost."""
    rows: list[dict[str, Any]] = []
    if outcome.rendered is None:
        return rows
    src_lines = LineIndex(outcome.original)
    seen: set[tuple[int, str]] = set()
    for f in outcome.fixes:
        if f.result.status != "fixed":
            continue
        for bar in outcome.rendered.inserted:
            if bar.tag != f.kernel.name:
                continue
            if (bar.offset, f.kernel.name) in seen:
                continue
            seen.add((bar.offset, f.kernel.name))
            oline, ocol = src_lines.line_col(bar.original_offset)
            rows.append({
                "kernel": f.kernel.name, "file": shown_file, "line": bar.line, "column": bar.column,
                "anchor": bar.anchor, "after": locs[f.kernel.name].name(bar.anchor),
                "cost": report.number(f.result.placement.cost_at(bar.anchor)), "text": bar.text,
                "original_offset": bar.original_offset, "original_line": oline, "original_column": ocol,
            })
    rows.sort(key=lambda r: (r["line"], r["column"]))
    return rows


def removed_rows(outcome: FixOutcome, shown_file: str) -> list[dict[str, Any]]:
    """One row per barrier of the user's that ``fix --minimize`` deletes: where it was in the
    original text and how it was written."""
    rows: list[dict[str, Any]] = []
    if outcome.rendered is None:
        return rows
    for f in outcome.fixes:
        for bar in f.removed:
            span = bar.span
            assert span is not None  # only barriers written in the file are removable
            rows.append({"kernel": f.kernel.name, "file": shown_file, "line": span.line, "column": span.col,
                         "text": f.kernel.source_text[span.start:span.end], "offset": span.start,
                         "length": span.end - span.start})
    rows.sort(key=lambda r: (r["line"], r["column"]))
    return rows


def fix_text(outcome: FixOutcome, locs: Locators, rows: list[dict[str, Any]], file: str,
             say: Callable[[str], None]) -> None:
    """The text report of each kernel (found problems, inserted barriers, cost), through
    ``say`` (stdout, or stderr when ``--diff`` makes the diff the output)."""
    for f in outcome.fixes:
        loc, res = locs[f.kernel.name], f.result
        verdict = initial_verdict(res)
        head = f"{file}: kernel '{f.kernel.name}'"
        if res.status == "verified":
            say(f"{head}: already verified (oracle {f.oracle}, {report.plural(res.oracle_calls, 'oracle call')})")
            continue
        found = [report.plural(len(verdict.races), "race")]
        if verdict.divergences:
            found.append(report.plural(len(verdict.divergences), "divergent barrier"))
        if verdict.unknowns:
            found.append(report.plural(len(verdict.unknowns), "unknown"))
        mini = " without its own barriers (--minimize)" if f.insert is not None else ""
        say(f"{head}: {', '.join(found)} found{mini}")
        for line in report.check_lines(loc, verdict):
            say("  " + line)
        if res.status != "fixed":
            say(f"{head}: error: cannot fix: {res.reason or res.status}")
            for note in outcome.notes:
                say(f"  note: {note}")
            continue
        if outcome.status == "unfixable":  # a placement was found but the text cannot hold it (below)
            continue
        if res.method == "named":  # autosync.algorithm.named_synthesis: the pair is listed with the rewrites
            say(f"{head}: fixed with a named-barrier pair, {report.plural(res.oracle_calls, 'oracle call')} "
                f"(oracle {f.oracle})")
            continue
        say(f"{head}: fixed in {report.plural(res.iterations, 'iteration')}, "
            f"{report.plural(res.oracle_calls, 'oracle call')} "
            f"(solver {outcome.solver}, oracle {f.oracle}{', naive' if res.method == 'naive' else ''})")
        mine = [row for row in rows if row["kernel"] == f.kernel.name]
        for row in mine:
            say(f"{row['file']}:{row['line']}: {row['text'].rstrip(';')} (cost {fmt_cost(row['cost'])})")
        gone = [r for r in removed_rows(outcome, file) if r["kernel"] == f.kernel.name]
        for row in gone:
            say(f"{row['file']}:{row['line']}:{row['column']}: removed {row['text']} (not needed)")
        # the count is of the barriers WRITTEN (rows), not of the labels the synthesizer chose
        widened = f", {report.plural(len(res.widened), 'barrier')} widened" if res.widened else ""
        widened += f", {report.plural(len(gone), 'barrier')} removed" if gone else ""
        say(f"{head}: total cost {fmt_cost(report.number(res.cost))}, "
            f"{report.plural(len(mine), 'barrier')} inserted{widened}")
        for line in inter_block_lines(loc, res):
            say(line)
    if outcome.status == "unfixable" and all(f.result.status in ("verified", "fixed") for f in outcome.fixes):
        say(outcome.reason or "error: cannot patch the file")  # found, but the text cannot hold it
    for note in outcome.rewrites:
        say(note)
    if outcome.status == "fixed":
        inside = " inside blocks" if outcome.races_remain else ""
        say(f"end-to-end check: patched text re-parsed and verified{inside}; {'; '.join(outcome.notes)}")
    elif outcome.status == "unfixable" and all(f.result.status in ("verified", "fixed") for f in outcome.fixes):
        say(f"{file}: error: cannot fix: {outcome.reason}")  # e.g. a template text shared by instantiations


def inter_block_lines(loc: LabelLocator, res: SynthesisResult) -> list[str]:
    """The races between blocks a fixed kernel keeps, one error each: ``k.cu:5:5: error: race
    between blocks 0 and 1 on 'A': no block barrier can order it; …``."""
    lines: list[str] = []
    for r in res.inter_block:
        first = loc.location(r.first)
        other = f" (with {first})" if r.first != r.second and first is not None else ""
        line = f"{loc.prefix(loc.location(r.second) or first)}error: {inter_block_message(r, loc.kernel.language)}{other}"
        if line not in lines:
            lines.append(line)
    return lines


def widened_json(f: KernelFix, loc: LabelLocator) -> list[dict[str, Any]]:
    """The user's barriers whose fences ``fix`` widened (OpenCL C), where they are in the
    input and the spaces they order now (``local``, ``global``)."""
    out = []
    for label, fences in sorted(f.result.widened.items()):
        where = loc.location(label)
        out.append({"kernel": f.kernel.name, "line": where.line if where else None,
                    "column": where.column if where else None,
                    "fences": sorted("local" if s.value == "shared" else s.value for s in fences)})
    return out


def check_summary(outcome: FixOutcome, rows: list[dict[str, Any]], file: str) -> str:
    """``fix --check``'s one line: would the file change, and how."""
    between = sum(len(f.result.inter_block) for f in outcome.fixes)
    left = f"; {report.plural(between, 'race')} between blocks would remain" if between else ""
    if outcome.status == "fixed" and outcome.patched != outcome.original:
        written = len({(r["line"], r["column"]) for r in rows})  # template instances share their text
        widened = sum(len(f.result.widened) for f in outcome.fixes)
        removed = sum(len(f.removed) for f in outcome.fixes)
        changes = [f"insert {report.plural(written, 'barrier')}"] if written or not (widened or removed) else []
        changes += [f"widen the fences of {report.plural(widened, 'barrier')}"] if widened else []
        changes += [f"remove {report.plural(removed, 'barrier')}"] if removed else []
        return f"{file}: would {' and '.join(changes)} (run 'autosync fix {file}'){left}"
    if outcome.status == "verified":
        return f"{file}: verified, nothing to change"
    return f"{file}: error: cannot fix: {outcome.reason or outcome.status}"


def fix_json(outcome: FixOutcome, locs: Locators, rows: list[dict[str, Any]], written: str | None,
             diff_text: str | None, target: str) -> dict[str, Any]:
    """``fix --format json`` (schema in README.md)."""
    per: list[dict[str, Any]] = []
    for f in outcome.fixes:
        res, loc = f.result, locs[f.kernel.name]
        verdict = initial_verdict(res)
        per.append({
            "kernel": f.kernel.name, "status": res.status if res.status != "unknown" else "unfixable",
            "reason": res.reason, "oracle": f.oracle,
            "races": [report.race_json(loc, r) for r in verdict.races],
            "divergences": [report.divergence_json(loc, d) for d in verdict.divergences],
            "unknowns": [report.unknown_json(loc, u) for u in verdict.unknowns],
            "barriers": [r for r in rows if r["kernel"] == f.kernel.name],
            "widened": widened_json(f, loc),
            "removed": [r for r in removed_rows(outcome, outcome.file) if r["kernel"] == f.kernel.name],
            "inter_block": [report.race_json(loc, r) | {"message": inter_block_message(r, f.kernel.language)}
                            for r in (res.inter_block if res.status == "fixed" else [])],
            "cost": report.number(res.cost), "oracle_calls": res.oracle_calls, "iterations": res.iterations,
            "seconds": round(res.seconds, 4), "method": res.method,
        })
    return {
        "file": outcome.file,
        "kernel": per[0]["kernel"] if len(per) == 1 else None,
        "status": outcome.status,
        "reason": outcome.reason,
        "races": [r for p in per for r in p["races"]],
        "divergences": [d for p in per for d in p["divergences"]],
        "unknowns": [u for p in per for u in p["unknowns"]],
        "barriers": rows,
        "widened": [w for p in per for w in p["widened"]],
        "removed": [r for p in per for r in p["removed"]],
        "races_remain": outcome.races_remain,
        "cost": report.number(_total_cost(outcome)),
        "oracle_calls": sum(f.result.oracle_calls for f in outcome.fixes),
        "iterations": sum(f.result.iterations for f in outcome.fixes),
        "seconds": round(outcome.seconds, 4),
        "solver": outcome.solver,
        "oracle": ",".join(sorted({f.oracle for f in outcome.fixes})),
        "target": outcome.target or target,
        "check": {"reparsed_verified": outcome.reparsed_verified, "nvcc": outcome.nvcc, "notes": outcome.notes},
        "rewrites": outcome.rewrites,
        "written": written,
        "diff": diff_text,
        "kernels": per,
    }


def fix_error_json(file: str, reason: str | None, solver: str, oracle: str | None) -> dict[str, Any]:
    """The document a machine reader gets when ``fix`` fails with exit 3 (the one-line error
    is on stderr too)."""
    return {"file": file, "status": "error", "reason": reason, "races": [], "divergences": [], "barriers": [],
            "cost": 0, "oracle_calls": 0, "iterations": 0, "seconds": 0.0, "solver": solver, "oracle": oracle}


def _total_cost(outcome: FixOutcome) -> Fraction:
    return sum((Fraction(f.result.cost) for f in outcome.fixes), Fraction(0))


def fix_sarif(outcome: FixOutcome, locs: Locators, rows: list[dict[str, Any]], target: str, *,
              version: str, invocation: dict[str, Any]) -> dict[str, Any]:
    """``fix --format sarif``: the input's problems, each carrying the fix that inserts the
    barriers into the ORIGINAL file."""
    fixes: list[dict[str, Any]] = []
    if outcome.status == "fixed" and outcome.rendered is not None:
        starts = LineIndex(outcome.original)
        grouped: dict[int, str] = {}
        deletions = []
        for edit in outcome.rendered.edits:  # sorted; merge insertions at one offset in order
            if edit.is_insertion:
                grouped[edit.start] = grouped.get(edit.start, "") + edit.replacement
            else:  # fix --minimize: a barrier of the user's deleted
                deletions.append((edit.start, edit.end - edit.start, *starts.line_col(edit.start),
                                  *starts.line_col(edit.end)))
        insertions = [(off, *starts.line_col(off), text) for off, text in sorted(grouped.items())]
        gone = f" and remove {report.plural(len(deletions), 'barrier')}" if deletions else ""
        fixes = [report_sarif.sarif_fix(outcome.file, f"insert {report.plural(len(rows), 'barrier')}{gone} "
                                        f"(AutoSync, total cost {fmt_cost(report.number(_total_cost(outcome)))})",
                                        insertions, deletions)]
    results: list[report_sarif.SarifResult] = []
    for f in outcome.fixes:
        loc = locs[f.kernel.name]
        verdict = initial_verdict(f.result)
        if f.result.status == "fixed":  # races between blocks: those the fixed kernel keeps
            verdict = dataclasses.replace(verdict, races=verdict.intra_block + f.result.inter_block)
        for res in report_sarif.sarif_results_for_verdict(loc, verdict):
            if f.result.status == "fixed" and res.rule != "race-between-blocks":
                res.fixes = fixes  # no barrier orders two blocks: nothing to apply there
            results.append(res)
        for bar in f.removed if f.result.status == "fixed" else []:
            results.append(report_sarif.SarifResult(
                "redundant-barrier", "barrier not needed: the least-cost verified placement does without it",
                loc.location(bar.label),
                properties={"kernel": f.kernel.name}, fixes=fixes))
        if f.result.status not in ("verified", "fixed"):
            results.append(report_sarif.SarifResult(
                "unfixable", f"cannot fix: {f.result.reason or f.result.status}", None,
                properties={"kernel": f.kernel.name}))
    doc = report_sarif.sarif_document(results, version=version, artifacts=[outcome.file], invocation=invocation)
    doc["runs"][0]["properties"] = {"status": outcome.status, "target": outcome.target or target,
                                    "barriers": rows, "solver": outcome.solver}
    return doc
