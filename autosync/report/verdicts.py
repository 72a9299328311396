"""Formatting of oracle verdicts and label trees: compiler-style text and JSON.

SARIF is in :mod:`autosync.report.sarif`, a fix's report in :mod:`autosync.report.fix`.

The CLI (``autosync check`` / ``autosync fix``) and the other front ends (language server,
``compare``) all describe the same facts -- race locations ⟨ℓ, ℓ'⟩ with their witnesses,
divergent barriers, oracle "unknown"s and findings (the oracle interface of [AutoSync] Sec. V, ``oracle.base``),
inserted barriers with their cost C(ℓ) ([AutoSync] Sec. III-C) -- so the
conversion from labels to ``file:line:col`` and to data lives here, once.

Text messages follow the compiler convention so editors can jump to them::

    reduce.cu:21:9: error: possible write-read race on 'sdata' with reduce.cu:18:5 (threads 3 and 4 of block 0, index 4)

A race is reported at its *second* label in text order (where the conflicting access
happens), naming the first; ``kind`` is ``<first>-<second>`` access kinds (``Race.kind``).
Races between blocks (``Race.cross_block``: no barrier orders them) are their own class:
listed after the races inside blocks, worded ``race between blocks``, with ``"class":
"inter-block"`` in JSON.  A witness names the launch and the scalar parameter values that
replay it (``Witness.describe``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from kpl.ast import Kernel
from kpl.labels import START, LabelTree
from kpl.locations import LabelLocator, Location
from oracle.base import Divergence, Finding, Race, Unknown, Verdict, Witness

# --------------------------------------------------------------------------- messages


def race_message(loc: LabelLocator, race: Race) -> tuple[Location | None, str]:
    """(where, message) of a race: reported at the second access, naming the first."""
    first, second = loc.location(race.first), loc.location(race.second)
    where = second or first
    between = " between blocks" if race.cross_block else ""
    text = f"possible {race.kind} race{between} on '{race.array}'"
    if race.first == race.second:
        text += " (the statement races with itself)"
    elif first is not None:
        text += f" with {first}"
    if race.space.value != "shared":
        text += f" [{race.space.value} memory]"
    loops = loc.tree.shared_loops(race.first, race.second) if (
        race.first in loc.tree.nodes and race.second in loc.tree.nodes) else ()
    if race.loop_depth is not None and loops:
        if race.loop_depth == 0:
            text += " in the same loop iteration"
        elif race.loop_depth <= len(loops):
            text += f" across iterations of the loop {loc.name(loops[race.loop_depth - 1])}"
    if race.witness is not None:
        text += f" ({race.witness.describe(loc.kernel.language)})"
    return where, text


DIVERGENCE_MESSAGE = "barrier may be reached by non-uniform control flow"


def divergence_message(div: Divergence, language: str) -> str:
    """A divergent barrier's message, with its witness (threads, launch, parameter values)
    in the terms of the kernel's ``language``."""
    return DIVERGENCE_MESSAGE + (f" ({div.witness.describe(language)})" if div.witness is not None else "")


def unknown_location(loc: LabelLocator, unknown: Unknown) -> Location | None:
    return loc.location(unknown.label) or loc.at_line(unknown.line)


def finding_location(loc: LabelLocator, finding: Finding) -> Location | None:
    for label in finding.labels:
        where = loc.location(label)
        if where is not None:
            return where
    return None


def check_lines(loc: LabelLocator, verdict: Verdict) -> list[str]:
    """Compiler-style ``file:line:col: error: …`` lines for everything in ``verdict``."""
    lines: list[str] = []
    for race in verdict.intra_block + verdict.inter_block:  # races between blocks apart, last
        where, text = race_message(loc, race)
        lines.append(f"{loc.prefix(where)}error: {text}")
    for div in verdict.divergences:
        lines.append(f"{loc.prefix(loc.location(div.label))}error: {divergence_message(div, loc.kernel.language)}")
    for unknown in verdict.unknowns:
        lines.append(f"{loc.prefix(unknown_location(loc, unknown))}error: cannot verify: {unknown.reason}")
    for finding in verdict.findings:
        lines.append(f"{loc.prefix(finding_location(loc, finding))}error: {finding.message} [{finding.kind}]")
    return lines


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def summary_line(path: str, kernel: str, verdict: Verdict, oracle: str, launch: str | None = None) -> str:
    """The last line of a kernel's text report; ``launch`` (e.g. ``launch <<<4, 32>>> at
    k.cu:12``) tells apart the lines of a kernel checked under several launches."""
    head = f"{path}: kernel '{kernel}'" + (f" ({launch})" if launch else "")
    stats = f"(oracle {oracle}, {plural(verdict.queries, 'query', 'queries')}, {verdict.seconds:.2f} s)"
    if verdict.verified:
        return f"{head}: verified {stats}"
    races = plural(len(verdict.races), "race")
    if verdict.inter_block:
        races += f" ({len(verdict.inter_block)} between blocks)"
    parts = [races, plural(len(verdict.divergences), "divergent barrier")]
    if verdict.unknowns:
        parts.append(plural(len(verdict.unknowns), "unknown"))
    if verdict.findings:
        parts.append(plural(len(verdict.findings), "finding"))
    return f"{head}: " + ", ".join(parts) + f" {stats}"


# --------------------------------------------------------------------------- JSON


def witness_json(w: Witness | None, language: str) -> dict[str, Any] | None:
    """A witness as JSON; its ``description`` in the terms of the kernel's ``language``."""
    if w is None:
        return None
    return {"thread1": list(w.thread1), "thread2": list(w.thread2), "block1": list(w.block1),
            "block2": list(w.block2), "index": w.index,
            "launch": ({"blockDim": list(w.block_dim), "gridDim": list(w.grid_dim)}
                       if w.block_dim is not None and w.grid_dim is not None else None),
            "params": {name: value for name, value in w.params},
            "description": w.describe(language)}


def race_class(race: Race) -> str:
    """``intra-block`` (a barrier may order it) or ``inter-block`` (two blocks: none can)."""
    return "inter-block" if race.cross_block else "intra-block"


def _pos(loc: Location | None, label: int | None, main: str | None = None) -> dict[str, Any]:
    """Line and column (and ``file`` when it is not the kernel's file ``main``: a statement
    of a function inlined from a header)."""
    out: dict[str, Any] = {"line": loc.line if loc else None, "column": loc.column if loc else None}
    if loc is not None and main is not None and loc.file != main:
        out["file"] = loc.file
    if loc is not None and loc.end_line:
        out["end_line"], out["end_column"] = loc.end_line, loc.end_column
    if label is not None:
        out["label"] = label
    return out


def race_json(loc: LabelLocator, race: Race) -> dict[str, Any]:
    first, second = loc.location(race.first), loc.location(race.second)
    return {
        "kernel": loc.kernel.name,
        "first": _pos(first, race.first, loc.path) | {"name": loc.name(race.first)},
        "second": _pos(second, race.second, loc.path) | {"name": loc.name(race.second)},
        "array": race.array,
        "kind": race.kind,
        "kinds": list(race.kinds),
        "space": race.space.value,
        "class": race_class(race),
        "loop_depth": race.loop_depth,
        "witness": witness_json(race.witness, loc.kernel.language),
        "message": race_message(loc, race)[1],
    }


def divergence_json(loc: LabelLocator, div: Divergence) -> dict[str, Any]:
    return {"kernel": loc.kernel.name, **_pos(loc.location(div.label), div.label),
            "witness": witness_json(div.witness, loc.kernel.language),
            "message": divergence_message(div, loc.kernel.language)}


def unknown_json(loc: LabelLocator, unknown: Unknown) -> dict[str, Any]:
    where = unknown_location(loc, unknown)
    return {"kernel": loc.kernel.name, "reason": unknown.reason, **_pos(where, unknown.label)}


def finding_json(loc: LabelLocator, finding: Finding) -> dict[str, Any]:
    where = finding_location(loc, finding)
    return {"kernel": loc.kernel.name, "kind": finding.kind, "message": finding.message,
            "labels": list(finding.labels), "barrier_id": finding.barrier_id, **_pos(where, None)}


def verdict_json(loc: LabelLocator, verdict: Verdict, oracle: str) -> dict[str, Any]:
    """One kernel's ``check`` result as data (schema in README.md)."""
    return {
        "kernel": loc.kernel.name,
        "oracle": oracle,
        "verified": verdict.verified,
        "races": [race_json(loc, r) for r in verdict.races],
        "inter_block_races": len(verdict.inter_block),
        "divergences": [divergence_json(loc, d) for d in verdict.divergences],
        "unknowns": [unknown_json(loc, u) for u in verdict.unknowns],
        "findings": [finding_json(loc, f) for f in verdict.findings],
        "queries": verdict.queries,
        "seconds": round(verdict.seconds, 4),
    }


def check_json(file: str, results: Sequence[tuple[LabelLocator, Verdict, str]], seconds: float) -> dict[str, Any]:
    """``check --format json``: every kernel's verdict, and their union at the top level."""
    per = [verdict_json(loc, v, name) for loc, v, name in results]
    return {
        "file": file,
        "kernel": per[0]["kernel"] if len(per) == 1 else None,
        "kernels": per,
        "oracle": ",".join(sorted({name for _, _, name in results})),
        "verified": all(v.verified for _, v, _ in results),
        "races": [r for p in per for r in p["races"]],
        "inter_block_races": sum(p["inter_block_races"] for p in per),
        "divergences": [d for p in per for d in p["divergences"]],
        "unknowns": [u for p in per for u in p["unknowns"]],
        "findings": [f for p in per for f in p["findings"]],
        "queries": sum(v.queries for _, v, _ in results),
        "seconds": round(seconds, 4),
    }


def number(value: Fraction | float | int) -> float | int:
    """A cost as a JSON number: an int when integral (100), else a float (0.5)."""
    f = Fraction(value) if not isinstance(value, float) else Fraction(value).limit_denominator(10**9)
    return int(f) if f.denominator == 1 else float(f)


def dumps(doc: Any) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False)


# --------------------------------------------------------------------------- parse (the label tree)


def tree_json(kernel: Kernel, path: str) -> dict[str, Any]:
    """``parse --format json``: every label of the tree of [AutoSync] Sec. III-A, in preorder,
    with its paper-style name, kind, source line and the facts the cost model uses."""
    tree = LabelTree(kernel)
    lines = kernel.source_text.splitlines()
    main_line = None
    if kernel.body.span is not None and kernel.body.span.line > 0:
        main_line = kernel.body.span.line
    elif kernel.body.source.open_brace >= 0:
        main_line = kernel.source_text.count("\n", 0, kernel.body.source.open_brace) + 1
    labels = []
    for lab in _preorder(tree):
        node = tree.nodes[lab]
        stmt = node.stmt
        if node.kind == START and node.parent is not None:
            stmt = tree.nodes[node.parent].stmt
        span = stmt.span if stmt is not None else None
        if node.kind == "else" and node.block is not None and node.block.span is not None:
            span = node.block.span
        line = span.line if span is not None and span.line > 0 else (main_line if lab == tree.root or (
            node.kind == START and node.parent == tree.root) else None)
        column = span.col if span is not None and span.line > 0 else None
        text = lines[line - 1].strip() if line is not None and 0 < line <= len(lines) else ""
        labels.append({
            "label": lab, "name": tree.name(lab), "kind": node.kind, "line": line, "column": column,
            "parent": node.parent, "children": list(node.children), "loops": list(tree.loops(lab)),
            "conds": list(tree.conds(lab)), "placeable": tree.placeable(lab), "order": tree.order(lab),
            "depth": tree.depth(lab), "synthetic": bool(node.stmt.synthetic) if node.stmt is not None else False,
            "text": text,
        })
    launch = kernel.launch
    return {"name": kernel.name, "file": path, "root": tree.root,
            "launch": {"block_dim": list(launch.block_dim), "grid_dim": list(launch.grid_dim),
                       "warp_sync": launch.warp_sync},
            "labels": labels}


def _preorder(tree: LabelTree) -> list[int]:
    out: list[int] = []
    stack = [tree.root]
    while stack:
        lab = stack.pop()
        out.append(lab)
        stack.extend(reversed(tree.children(lab)))
    return out


def tree_text(kdata: dict[str, Any]) -> str:
    """``parse``'s text: the label tree indented by depth, one label per line."""
    launch = kdata["launch"]
    dims = "blockDim=[{}] gridDim=[{}]".format(",".join("*" if d is None else str(d) for d in launch["block_dim"]),
                                              ",".join("*" if d is None else str(d) for d in launch["grid_dim"]))
    if launch["warp_sync"]:
        dims += f" warp-sync={launch['warp_sync']}"
    out = [f"kernel {kdata['name']} ({kdata['file']}, {dims})"]
    rows = []
    for lab in kdata["labels"]:
        left = "  " * lab["depth"] + lab["name"]
        kind = lab["kind"] + ("" if lab["placeable"] else "*")
        where = f"{lab['line']}: {lab['text']}" if lab["line"] is not None else "(synthetic)"
        rows.append((left, kind, where))
    width = max(len(r[0]) for r in rows) + 2
    for left, kind, where in rows:
        out.append(f"{left:<{width}}{kind:<8}{where}")
    out.append("(* = no barrier can be placed after this label)")
    return "\n".join(out)
