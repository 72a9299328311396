"""The pipeline's named-barrier step: a verified ``bar.arrive``/``bar.sync`` pair in the user's text ([WEFT]).

After an unfixable outcome whose races run from the producer arm of an ``if`` to the consumer
arm (warp specialisation), :mod:`autosync.algorithm.named_synthesis` chooses the least-cost
pair.  This step writes it into the text (the id is the least of 1..15 the kernel does not use,
the spelling the file's own), where :mod:`autosync.render` puts any barrier after a label;
parses the patched text and has the ``named`` oracle check it again (:func:`synthesize_named`);
then runs the whole ``fix`` pipeline on it, line endings kept (:func:`named_and_fix`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from autosync.algorithm.cost import DEFAULT_IC, DEFAULT_LC
from autosync.algorithm.named_search import Search
from autosync.algorithm.named_synthesis import NoNamedFix, choose_pair
from kpl.ast import Kernel, Space
from kpl.placement import Placement
from oracle.base import Oracle, Verdict

if TYPE_CHECKING:
    from autosync.algorithm.synthesis import SynthesisResult
    from autosync.pipeline.outcome import FixOutcome
    from autosync.render.patch import Edit


@dataclass(frozen=True)
class NamedFix:
    """The verified patch: ``text`` (LF) with ``arrive``/``sync`` on ``barrier`` for ``count``
    threads after the labels ``anchors`` (arrive, sync), at ``cost`` = C(arrive) + C(sync);
    ``edits`` of the ORIGINAL (LF) text; ``oracle_calls`` counts every check of the named
    oracle (the search's candidates and the re-parsed text)."""

    text: str
    edits: tuple[Edit, ...]
    barrier: int
    count: int
    arrive: str
    sync: str
    arrive_line: int
    sync_line: int
    anchors: tuple[int, int]
    placement: Placement
    oracle_calls: int
    search: Search

    @property
    def cost(self) -> Fraction:
        return self.placement.cost


def synthesize_named(kernel: Kernel, verdict: Verdict, oracle: Oracle, *,
                     lc: int | float | str | Fraction = DEFAULT_LC,
                     ic: int | float | str | Fraction = DEFAULT_IC) -> NamedFix:
    """The pair of :func:`~autosync.algorithm.named_synthesis.choose_pair` written into the
    kernel's text where :mod:`autosync.render` puts any barrier after a label, the text parsed
    again and checked by ``oracle`` (the ``named`` checker) once more: only a verified text is
    returned.  :class:`NoNamedFix` says why there is none."""
    from autosync.render.patch import apply_edits, plan_edits
    from kpl.frontend import parse_kernel_text

    pair = choose_pair(kernel, verdict, oracle, lc=lc, ic=ic)
    barrier, count, arrive, sync, anchors, placement = (pair.barrier, pair.count, pair.arrive, pair.sync,
                                                        pair.anchors, pair.placement)
    try:
        edits = plan_edits(kernel, placement, texts=dict(zip(anchors, (arrive, sync), strict=True)),
                           tag=kernel.name)
    except ValueError as exc:
        raise NoNamedFix(f"the pair cannot be written into the text: {exc}") from exc
    rendered = apply_edits(kernel.source_text, edits)
    again = parse_kernel_text(rendered.text, kernel.source_path, kernel=kernel.name,
                              block_dim=kernel.launch.block_dim, grid_dim=kernel.launch.grid_dim)
    again.launch = kernel.launch  # with its relations to the parameters, as checked before
    checked = oracle.check(again)
    if not checked.verified:
        raise NoNamedFix(f"the named-barrier checker rejects the patched text (bar.arrive/bar.sync {barrier}, "
                         f"{count}): {len(checked.races)} races, {len(checked.findings)} findings")
    line = {b.anchor: b.line for b in rendered.inserted}
    return NamedFix(rendered.text, tuple(edits), barrier, count, arrive, sync, line[anchors[0]], line[anchors[1]],
                    anchors, placement, pair.search.oracle_calls + 1, pair.search)


def named_synthesize(kernel: Kernel, res: SynthesisResult, *, lc: int | float | str | Fraction = DEFAULT_LC,
                     ic: int | float | str | Fraction = DEFAULT_IC) -> SynthesisResult | None:
    """For a kernel-level caller (``bench``): the named pair after an unfixable ``res`` of a
    producer/consumer race in shared memory, as a fixed result (its oracle calls counted in,
    ``placement`` the two anchors with their C(ℓ)); None when there is no such pair."""
    import dataclasses

    from autosync.algorithm.synthesis import FIXED
    from oracle.registry import get_oracle

    verdict = res.verdict
    if res.ok or verdict is None or any(r.space is not Space.SHARED or r.cross_block for r in verdict.races):
        return None
    t0 = time.perf_counter()
    try:
        found = synthesize_named(kernel, verdict, get_oracle("named"), lc=lc, ic=ic)
    except NoNamedFix:
        return None
    return dataclasses.replace(res, status=FIXED, method="named", reason=None, placement=found.placement,
                               oracle_calls=res.oracle_calls + found.oracle_calls,
                               seconds=res.seconds + time.perf_counter() - t0)


def named_and_fix(outcome: FixOutcome, rerun: Callable[[str], FixOutcome],
                  compile_check: Callable[[str], tuple[bool | None, str]], *,
                  lc: int | float | str | Fraction = DEFAULT_LC,
                  ic: int | float | str | Fraction = DEFAULT_IC) -> FixOutcome:
    """After an unfixable ``outcome`` whose one unfixed kernel has only shared-memory races
    (found by the ``named`` checker, or by ``sdv``, which reports every racing pair): insert the
    pair of :func:`synthesize_named` into the user's text (line endings kept) and run the whole
    pipeline on it again, which must find the kernel verified; then ``nvcc --ptx``.  Returns
    ``outcome`` with the reason extended when no pair is proposed."""
    import dataclasses

    from autosync.algorithm.synthesis import FIXED
    from autosync.pipeline.errors import InternalError
    from autosync.pipeline.files import keep_line_endings, to_lf
    from autosync.pipeline.split_fix import explain_unfixed
    from autosync.render.patch import apply_edits
    from oracle.registry import get_oracle

    bad = [f for f in outcome.fixes if not f.result.ok]
    verdict = bad[0].result.verdict if len(bad) == 1 else None
    if verdict is None or bad[0].oracle not in ("named", "sdv") or verdict.divergences or not verdict.races:
        return outcome
    if any(r.space is not Space.SHARED or r.cross_block for r in verdict.races):
        return outcome  # the named checker models shared memory of one CTA only ([WEFT] Sec. 3)
    fix, raw = bad[0], outcome.original
    if fix.kernel.source_text != to_lf(raw):
        return outcome
    try:
        found = synthesize_named(fix.kernel, verdict, get_oracle("named"), lc=lc, ic=ic)
    except NoNamedFix as why:
        return explain_unfixed(outcome, f"no named-barrier pair either: {why}")
    rendered = apply_edits(raw, [keep_line_endings(raw, e) for e in found.edits])
    again = rerun(rendered.text)
    if again.status != "verified":
        raise InternalError(f"the named-barrier patch does not verify end to end ({again.status})")
    ok, note = compile_check(rendered.text)
    if ok is False:
        raise InternalError(f"the patched file does not compile: {note}")
    for f in again.fixes:
        if f.kernel.name == fix.kernel.name:  # reported against the user's kernel and its races
            f.kernel = fix.kernel
            f.result = dataclasses.replace(fix.result, status=FIXED, method="named", reason=None,
                                           placement=found.placement,
                                           oracle_calls=f.result.oracle_calls + fix.result.oracle_calls
                                           + found.oracle_calls)
    again.status, again.original, again.patched, again.rendered = "fixed", raw, rendered.text, rendered
    again.reparsed_verified, again.nvcc = True, "ok" if ok else "skipped"
    again.notes.append(note)
    a_cost, s_cost = (found.placement.cost_at(lab) for lab in found.anchors)
    again.rewrites = [f"{outcome.file}:{found.arrive_line}: {found.arrive} after the producer's last write "
                      f"(cost {a_cost}); {outcome.file}:{found.sync_line}: {found.sync} before the consumer's first "
                      f"read (cost {s_cost}) -- named barrier {found.barrier}, {found.count} threads, total cost "
                      f"{found.cost}, the least of {found.search.candidates} candidate pairs "
                      f"({found.oracle_calls} named-oracle calls)"]
    return again


__all__ = ["NamedFix", "named_and_fix", "named_synthesize", "synthesize_named"]
