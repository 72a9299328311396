"""A fix's placements as edits of the user's text: the barriers inserted (or removed, with
``--minimize``), the fences of OpenCL barriers, the user's barriers widened in place, and the
include and alias a grid barrier needs.  The edits themselves are :mod:`autosync.render.patch`'s;
this module decides which to make for each fixed kernel (:func:`render_fixes`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from autosync.pipeline.files import keep_line_endings
from autosync.pipeline.outcome import FixOutcome, KernelFix

if TYPE_CHECKING:
    from collections.abc import Callable

    from autosync.render.patch import Edit
    from kpl.ast import Barrier, Kernel, Space


def render_fixes(todo: list[KernelFix], raw: str, original: str, file: str, target: str,
            opencl: bool, outcome: FixOutcome) -> Any:
    """The placements of ``todo`` as edits of the user's text (``raw``, its line endings kept);
    None, with ``outcome`` unfixable, when the text cannot express one (a macro expansion)."""
    from autosync.algorithm.macro_sites import macro_conflict
    from autosync.render.grid import grid_alias
    from autosync.render.patch import apply_edits, plan_edits

    edits = []
    alias = grid_alias(original)
    for f in todo:
        # a placement the user's text cannot express: say so (exit 1), never a broken patch
        problem = macro_conflict(f.kernel, list(f.result.labels), file)
        if problem is None:
            try:
                f.edits = plan_edits(f.kernel, f.result.placement if f.insert is None else f.insert,
                                     remove=f.removed, target=target, tag=f.kernel.name,
                                     texts=fence_texts(f.result.fences) if opencl else None, grid_ns=alias)
                f.edits += widen_edits(f, file, outcome.notes)
            except ValueError as exc:
                problem = f"{file}: error: cannot patch kernel '{f.kernel.name}': {exc}"
        if problem is not None:
            outcome.status, outcome.reason = "unfixable", problem
            return None
        edits += f.edits
    edits += grid_edits(todo, original, alias, outcome.notes)
    return apply_edits(raw, [keep_line_endings(raw, e) for e in apply_edits(original, edits).edits])


def grid_edits(todo: list[KernelFix], original: str, alias: str, notes: list[str]) -> list[Edit]:
    """The include and alias lines a grid barrier needs (:mod:`autosync.render.grid`), once
    for the file, before the first kernel that gets one, with the note that its launch must
    be cooperative and its grid co-resident; [] when no kernel gets a grid barrier."""
    from autosync.pipeline.launch import GRID_REQUIREMENT
    from autosync.render.grid import grid_prelude
    from kpl.placement import BarrierKind

    gridded = [f for f in todo if any(a.kind is BarrierKind.GRID for a in (
        f.result.placement if f.insert is None else f.insert))]
    if not gridded:
        return []
    starts = [f.kernel.body.span.start for f in gridded if f.kernel.body.span is not None
              and f.kernel.body.span.start >= 0]
    names = ", ".join(f"'{f.kernel.name}'" for f in gridded)
    notes.append(f"grid barrier inserted in kernel {names}: {GRID_REQUIREMENT}")
    return [grid_prelude(original, alias, min(starts, default=len(original)))]


def widen_edits(f: KernelFix, file: str, notes: list[str]) -> list[Edit]:
    """The in-place edits of the user's barriers whose fences ``fix`` widened (the flags they
    lack ORed into their first argument), with a note for each."""
    from autosync.algorithm.fences import FLAG_NAMES
    from autosync.render.patch import widen_edit
    from kpl.ast import Barrier, walk_stmts

    res = f.result
    out = []
    for bar in walk_stmts(res.kernel.body if res.kernel else f.kernel.body):
        if isinstance(bar, Barrier) and bar.label in res.widened:
            old = next(b.fences for b in walk_stmts(f.kernel.body) if isinstance(b, Barrier) and b.label == bar.label)
            added = " | ".join(FLAG_NAMES[s] for s in sorted(res.widened[bar.label] - old, key=lambda s: s.value))
            out.append(widen_edit(f.kernel, bar, added, tag=f.kernel.name))
            where = f"{file}:{bar.span.line}:{bar.span.col}" if bar.span else file
            notes.append(f"{where}: note: kernel '{f.kernel.name}': this barrier now also orders "
                         f"{added} (cheaper than a second barrier)")
    return out


def widenable(kernel: Kernel) -> Callable[[Barrier], bool]:
    """Whether the renderer can widen a barrier of ``kernel`` in place (its call is in the text)."""
    from autosync.render.patch import widen_edit

    def can(bar: Barrier) -> bool:
        try:
            widen_edit(kernel, bar, "")
        except ValueError:
            return False
        return True
    return can


def fence_texts(fences: dict[int, frozenset[Space]]) -> dict[int, str]:
    """The OpenCL barrier text after each anchor, with the fences chosen for it."""
    from autosync.algorithm.fences import fence_name
    from autosync.render.patch import barrier_text

    return {anchor: barrier_text("opencl", fences=fence_name(f)) for anchor, f in fences.items()}
