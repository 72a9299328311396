"""The pipeline's split step: after an unfixable outcome, split the self-racing statements and fix again.

A statement that races with itself (``A[tid] = A[tid + 1] + 1;``, race location ⟨ℓ, ℓ⟩) cannot
be separated by a barrier between statements ([AutoSync] Sec. III-D); the split that makes room
for one is planned by :mod:`autosync.algorithm.split`.  This step applies that plan to the
user's text (line endings kept), runs the whole fix pipeline on the split text, and composes
the split's text edits with the barrier edits, so that the outcome's edits (SARIF fixes, the
language server's quick-fix) are edits of the ORIGINAL file.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

from autosync.algorithm.split import NoSplit, plan_splits, self_race_labels

if TYPE_CHECKING:
    from autosync.algorithm.synthesis import SynthesisResult
    from autosync.pipeline.outcome import FixOutcome
    from autosync.render.patch import Edit
    from kpl.ast import Kernel


def split_synthesize(kernel: Kernel, res: SynthesisResult, file: str,
                     synth: Callable[[Kernel], SynthesisResult]) -> tuple[Kernel, SynthesisResult] | None:
    """For a kernel-level caller (``bench``): ``synth`` on ``kernel`` with its self-racing
    statements split (the oracle calls of the failed ``res`` counted in), or None when
    ``res`` is not unfixable because of a splittable self-race."""
    from autosync.render.patch import apply_edits
    from kpl.frontend import load_kernels

    if res.ok or not self_race_labels(res):
        return None
    try:
        splits = plan_splits([(kernel, res)], kernel.source_text, file)
    except NoSplit:
        return None
    text = apply_edits(kernel.source_text, [_edit(s.start, s.end, s.replacement) for s in splits]).text
    split = next(k for k in load_kernels(kernel.source_path, text, language=kernel.language) if k.name == kernel.name)
    again = synth(split)
    again.oracle_calls += res.oracle_calls
    return split, again


def _edit(start: int, end: int, text: str) -> Edit:
    from autosync.render.patch import Edit

    return Edit(start, end, text)


def compose(splits: list[Edit], later: list[Edit]) -> list[Edit]:
    """``later`` (edits of the text ``splits`` produced) as edits of the text before the
    splits: an edit inside a split region is folded into that split's replacement."""
    out: list[Edit] = []
    regions = []
    shift = 0
    for e in sorted(splits, key=lambda e: e.start):
        regions.append((e, e.start + shift, e.start + shift + len(e.replacement)))
        shift += len(e.replacement) - (e.end - e.start)
    inside: dict[int, list[Edit]] = {i: [] for i in range(len(regions))}
    for e in later:
        region = next((i for i, (_, lo, hi) in enumerate(regions) if lo < e.start < hi), None)
        if region is not None:
            if e.end > regions[region][2]:
                raise ValueError("an edit overlaps a split statement")
            inside[region].append(e)
            continue
        before = sum(len(s.replacement) - (s.end - s.start) for s, _, hi in regions if hi <= e.start)
        out.append(dataclasses.replace(e, start=e.start - before, end=e.end - before))
    for i, (s, lo, _) in enumerate(regions):
        # the split text up to the first inner edit replaces the statement; the inner edits and
        # the pieces between them follow as insertions at its end, in order (rank), ahead of
        # anything the later edits insert at that offset themselves
        cuts, pos = [], lo
        for e in sorted(inside[i], key=lambda e: (e.start, e.rank)):
            cuts.append((s.replacement[pos - lo:e.start - lo], e))
            pos = e.end
        tail = s.replacement[pos - lo:]
        if not cuts:
            out.append(s)
            continue
        out.append(dataclasses.replace(s, replacement=cuts[0][0]))
        pieces: list[Edit] = []
        for j, (text, e) in enumerate(cuts):
            if j:
                pieces.append(_edit(s.end, s.end, text))
            pieces.append(dataclasses.replace(e, start=s.end, end=s.end))
        pieces.append(_edit(s.end, s.end, tail))
        out += [dataclasses.replace(p, rank=(-(2**31), n)) for n, p in enumerate(pieces) if p.replacement]
    return out


def explain_unfixed(outcome: FixOutcome, why: str) -> FixOutcome:
    """``outcome`` with ``why`` added to the reason of the file and of each unfixed kernel."""
    outcome.reason = f"{outcome.reason}; {why}"
    for f in outcome.fixes:
        if not f.result.ok:
            f.result.reason = f"{f.result.reason or f.result.status}; {why}"
    return outcome


def split_and_fix(outcome: FixOutcome, rerun: Callable[[str], FixOutcome]) -> FixOutcome:
    """After an unfixable ``outcome``: split every statement whose self-race made it so and run
    the whole fix pipeline (``rerun``) on the split text.  Returns the new outcome, its edits
    and ``original`` those of the user's file; or ``outcome`` with the reason extended when
    nothing can be split or the split text still cannot be fixed."""
    from autosync.pipeline.errors import InternalError
    from autosync.pipeline.files import keep_line_endings, to_lf
    from autosync.render.patch import apply_edits
    from kpl.errors import KplError

    bad = [f for f in outcome.fixes if not f.result.ok]
    if not bad or not all(self_race_labels(f.result) for f in bad):
        return outcome
    raw = outcome.original
    try:
        splits = plan_splits([(f.kernel, f.result) for f in bad], to_lf(raw), outcome.file)
    except NoSplit as why:
        return explain_unfixed(outcome, str(why))
    raw_splits = [keep_line_endings(raw, _edit(s.start, s.end, s.replacement)) for s in splits]
    split_raw = apply_edits(raw, raw_splits).text
    try:
        again = rerun(split_raw)
    except KplError as exc:
        raise InternalError(f"the split statement does not parse: {exc}") from exc
    where = ", ".join(str(s.line) for s in splits)
    if again.status != "fixed":
        still = [f.result.reason or f.result.status for f in again.fixes if not f.result.ok]
        return explain_unfixed(outcome, f"after splitting the statement(s) at line(s) {where} into a read and a "
                          f"write: {'; '.join(still) or again.reason or again.status}")
    assert again.rendered is not None and again.patched is not None
    edits = compose(raw_splits, again.rendered.edits)
    rendered = apply_edits(raw, edits)
    if rendered.text != again.patched:
        raise InternalError("the split and the barriers do not compose into the verified text")
    first = {f.kernel.name: f.result.oracle_calls for f in outcome.fixes}
    for f in again.fixes:  # the calls of the failed first attempt count too
        f.result.oracle_calls += first.get(f.kernel.name, 0)
    again.original, again.rendered = raw, rendered
    again.rewrites = [s.note(outcome.file) for s in splits]
    return again


__all__ = ["compose", "explain_unfixed", "split_and_fix", "split_synthesize"]
