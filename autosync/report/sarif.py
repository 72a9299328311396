"""SARIF 2.1.0 output of ``check`` and ``fix``: the same facts as :mod:`autosync.report`, in
the static-analysis interchange format code hosts and editors read.

A race's SARIF result sits at its second access with the first one as a related location;
a fix is an ``artifactChange`` of empty ``deletedRegion`` + ``insertedContent`` pairs in the
ORIGINAL file, so a SARIF viewer can apply it.

Every document is valid against the OASIS SARIF 2.1.0 schema (tests/test_sarif_schema.py) and
carries what GitHub code scanning needs on top (:func:`for_code_scanning`): artifact URIs
relative to ``%SRCROOT%`` and a ``partialFingerprints`` per result.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from autosync.report.verdicts import (
    divergence_message,
    finding_location,
    race_class,
    race_message,
    unknown_location,
    witness_json,
)
from kpl.locations import LabelLocator, Location
from oracle.base import Verdict

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
TOOL_URI = "https://github.com/autosync/autosync"

#: SARIF rules: one per kind of problem AutoSync reports
RULES: dict[str, str] = {
    "race": "Possible data race between two threads (no barrier orders the two accesses).",
    "race-between-blocks": "Possible data race between threads of two different blocks (global "
                           "memory); no block barrier can order it, only a grid barrier under a "
                           "cooperative launch (fix --grid-sync).",
    "divergence": "Barrier may be reached by non-uniform control flow (barrier divergence).",
    "redundant-barrier": "A barrier the least-cost verified placement does not need (fix --minimize "
                         "deletes it).",
    "unknown": "The oracle could not verify this kernel; an unknown is never a pass.",
    "finding": "Named-barrier or other error reported by the oracle.",
    "assertion": "A GPUVerify annotation (__assert, __requires of a called function, __ensures, "
                 "a loop invariant) might not hold; barriers cannot fix it.",
    "unfixable": "No placement of __syncthreads() can remove this problem.",
}


@dataclass
class SarifResult:
    rule: str
    message: str
    location: Location | None
    related: list[tuple[Location, str]] = field(default_factory=list)
    fixes: list[dict[str, Any]] = field(default_factory=list)
    properties: dict[str, Any] = field(default_factory=dict)


def _physical(loc: Location) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": loc.line, "startColumn": loc.column}
    if loc.end_line:
        region["endLine"] = loc.end_line
        region["endColumn"] = loc.end_column
    return {"artifactLocation": {"uri": loc.file}, "region": region}


def sarif_results_for_verdict(loc: LabelLocator, verdict: Verdict) -> list[SarifResult]:
    out: list[SarifResult] = []
    for race in verdict.races:
        where, text = race_message(loc, race)
        first = loc.location(race.first)
        # the result's own location is the second access; the first one is related
        related = [(first, f"first access ({race.kinds[0]} of '{race.array}')")] if first else []
        out.append(SarifResult("race-between-blocks" if race.cross_block else "race", text, where, related,
                               properties={"kernel": loc.kernel.name, "array": race.array, "kind": race.kind,
                                           "class": race_class(race), "witness": witness_json(race.witness, loc.kernel.language)}))
    for div in verdict.divergences:
        out.append(SarifResult("divergence", divergence_message(div, loc.kernel.language), loc.location(div.label),
                               properties={"kernel": loc.kernel.name, "witness": witness_json(div.witness, loc.kernel.language)}))
    for unknown in verdict.unknowns:
        out.append(SarifResult("unknown", f"cannot verify: {unknown.reason}", unknown_location(loc, unknown),
                               properties={"kernel": loc.kernel.name}))
    for finding in verdict.findings:
        rule = "assertion" if finding.kind == "assertion" else "finding"
        out.append(SarifResult(rule, f"{finding.message} [{finding.kind}]", finding_location(loc, finding),
                               properties={"kernel": loc.kernel.name, "kind": finding.kind}))
    from autosync.pipeline.launch import launch_json

    launch = launch_json(loc.kernel)  # the launch (and where it came from) each result is for
    for res in out:
        res.properties["launch"] = launch
    return out


def sarif_document(results: Iterable[SarifResult], *, version: str, artifacts: Sequence[str] = (),
                   invocation: dict[str, Any] | None = None) -> dict[str, Any]:
    """A SARIF 2.1.0 log with one run of the ``autosync`` driver."""
    rule_ids = list(RULES)
    sarif_results = []
    for res in results:
        item: dict[str, Any] = {
            "ruleId": res.rule,
            "ruleIndex": rule_ids.index(res.rule),
            "level": "error",
            "message": {"text": res.message},
            "locations": [{"physicalLocation": _physical(res.location)}] if res.location else [],
        }
        if res.related:
            item["relatedLocations"] = [
                {"id": i, "physicalLocation": _physical(where), "message": {"text": text}}
                for i, (where, text) in enumerate(res.related)]
        if res.fixes:
            item["fixes"] = res.fixes
        if res.properties:
            item["properties"] = res.properties
        sarif_results.append(item)
    run: dict[str, Any] = {
        "tool": {"driver": {
            "name": "autosync",
            "version": version,
            "informationUri": TOOL_URI,
            "rules": [{"id": rid, "shortDescription": {"text": text}} for rid, text in RULES.items()],
        }},
        "artifacts": [{"location": {"uri": a}} for a in artifacts],
        "results": sarif_results,
    }
    if invocation is not None:
        run["invocations"] = [invocation]
    for_code_scanning(run)
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


# --------------------------------------------------------------------------- GitHub code scanning

SRCROOT = "%SRCROOT%"


def _relative(path: str) -> str:
    """A file path as a URI reference relative to the current folder (``%SRCROOT%``)."""
    from urllib.parse import quote

    return quote(os.path.relpath(os.path.abspath(path)).replace(os.sep, "/"))


def _artifact(loc: dict[str, Any]) -> str:
    """Rewrite one ``artifactLocation`` in place; returns the file path it names (for reading)."""
    from urllib.parse import unquote

    path = unquote(loc["uri"]) if loc.get("uriBaseId") == SRCROOT else loc["uri"]
    loc["uri"] = _relative(path)
    loc["uriBaseId"] = SRCROOT
    return path


def for_code_scanning(run: dict[str, Any]) -> None:
    """What GitHub code scanning needs beyond the schema, in place (idempotent, so a batch can
    merge runs that already went through it): artifact URIs relative to ``%SRCROOT%`` (the
    current folder) and a ``partialFingerprints`` per result that survives unrelated edits
    (rule, file and the text of the flagged line, not its number)."""
    run["originalUriBaseIds"] = {SRCROOT: {"uri": _folder_uri(os.getcwd())}}
    for art in run.get("artifacts", []):
        _artifact(art["location"])
    for note in (n for inv in run.get("invocations", []) for n in inv.get("toolExecutionNotifications", [])):
        for loc in note.get("locations", []):
            if "artifactLocation" in loc.get("physicalLocation", {}):
                _artifact(loc["physicalLocation"]["artifactLocation"])
    for res in run.get("results", []):
        first_line = where = ""
        for loc in res.get("locations", []) + res.get("relatedLocations", []):
            physical = loc.get("physicalLocation", {})
            if "artifactLocation" in physical:
                path = _artifact(physical["artifactLocation"])
                if not where:
                    where = physical["artifactLocation"]["uri"]
                    first_line = _line_text(path, physical.get("region", {}).get("startLine", 0))
        for fix in res.get("fixes", []):
            for change in fix.get("artifactChanges", []):
                _artifact(change["artifactLocation"])
        digest = hashlib.sha256(f"{res.get('ruleId')}\0{where}\0{first_line.strip()}".encode()).hexdigest()
        res["partialFingerprints"] = {"primaryLocationLineHash": digest[:32]}


def _folder_uri(folder: str) -> str:
    """``file:///…/`` of a folder (the trailing slash makes it a base for relative URIs)."""
    from pathlib import Path

    return Path(folder).as_uri().rstrip("/") + "/"


def _line_text(path: str, line: int) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for i, text in enumerate(fh, start=1):
                if i == line:
                    return text
    except OSError:
        pass
    return ""


def sarif_fix(path: str, description: str, insertions: Iterable[tuple[int, int, int, str]],
              deletions: Iterable[tuple[int, int, int, int, int, int]] = ()) -> dict[str, Any]:
    """A SARIF ``fix``: each insertion is (offset, line, column, text) in the ORIGINAL file,
    an empty ``deletedRegion`` at that point plus ``insertedContent``; each deletion (offset,
    length, line, column, end line, end column) a ``deletedRegion`` alone (``fix --minimize``)."""
    replacements: list[dict[str, Any]] = [{
        "deletedRegion": {"startLine": line, "startColumn": col, "endLine": line, "endColumn": col,
                          "charOffset": offset, "charLength": 0},
        "insertedContent": {"text": text},
    } for offset, line, col, text in insertions]
    replacements += [{
        "deletedRegion": {"startLine": line, "startColumn": col, "endLine": end_line, "endColumn": end_col,
                          "charOffset": offset, "charLength": length},
    } for offset, length, line, col, end_line, end_col in deletions]
    replacements.sort(key=lambda r: r["deletedRegion"]["charOffset"])
    return {"description": {"text": description},
            "artifactChanges": [{"artifactLocation": {"uri": path}, "replacements": replacements}]}


def invocation(ok: bool) -> dict[str, Any]:
    """The SARIF ``invocation`` of this run (exit 0 when ``ok``, else 1)."""
    return {"executionSuccessful": True, "exitCode": 0 if ok else 1,
            "commandLine": " ".join(["autosync", *sys.argv[1:]])}


def check_sarif(results: Sequence[tuple[LabelLocator, Verdict, str]], file: str, *, version: str) -> dict[str, Any]:
    """``check --format sarif``."""
    sarif = [r for loc, v, _ in results for r in sarif_results_for_verdict(loc, v)]
    return sarif_document(sarif, version=version, artifacts=[file],
                          invocation=invocation(all(v.verified for _, v, _ in results)))
