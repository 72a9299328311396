"""Named-barrier synthesis for a warp-specialised producer/consumer race ([WEFT]).

In a warp-specialised kernel the producer warps and the consumer warps take the two arms of one
``if``; a ``__syncthreads()`` between them would be divergent, so Algorithm 1 ([AutoSync])
reports such a race as unfixable.  PTX named barriers are made for it: the producer signals
with the non-blocking ``bar.arrive id, n`` after its last write, the consumer waits with
``bar.sync id, n`` before its first read, and ``n`` counts the threads of both groups
([WEFT] Sec. 3.3).  Stages:

1. **Races to arms** (:func:`arms_of`): every race must be a write in one arm and a read in
   the other arm of one ``if``/``else`` (at any depth inside the arms: loops, nested blocks);
   the writing arm is the producer.  A write/write race, data flowing both ways (which needs
   two pairs) or a race inside one arm are refused with that reason.
2. **The least-cost pair** (:func:`autosync.named_search.search`): positions anywhere in the
   arms, priced by the cost model of Algorithm 1, tried cheapest first and verified by the
   ``named`` oracle; ``n`` and the groups come from running the CTA concretely.
3. **The text** (:func:`synthesize_named`): the id is the least of 1..15 that the kernel does
   not use (0 is ``__syncthreads()``); the spelling is the file's own (an existing
   ``asm volatile("bar.sync 1, 64;")`` is copied with the new operation, id and count); the
   pair is rendered where :mod:`autosync.render` puts any barrier after a label, and the
   patched text is parsed and checked by the ``named`` oracle again: only a verified text is
   returned.  :func:`named_and_fix` then runs the whole ``fix`` pipeline on it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from autosync.algorithm.cost import DEFAULT_IC, DEFAULT_LC, CostModel
from autosync.algorithm.named_search import Search, search
from kpl.ast import If, Kernel, NamedBarrier, Space, walk_stmts
from kpl.labels import LabelTree
from kpl.placement import Anchor, Placement
from oracle.base import AccessKind, Oracle, Verdict

if TYPE_CHECKING:
    from autosync.algorithm.synthesis import SynthesisResult
    from autosync.pipeline.core import FixOutcome
    from autosync.render.patch import Edit

#: PTX has 16 named barriers per CTA; 0 is the one ``__syncthreads()`` uses
NUM_BARRIERS = 16
_PTX = re.compile(r"\b(bar|barrier)((?:\.cta)?)\.(sync|arrive)((?:\.aligned)?)\s+[^;\"]*")


class NoNamedFix(Exception):
    """Why no named-barrier pair is proposed (said to the user)."""


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


@dataclass(frozen=True)
class Arms:
    """Stage 1: the separating ``if``'s producer and consumer arm (block labels) and the
    racing statements of each."""

    producer: int
    consumer: int
    producers: frozenset[int]
    consumers: frozenset[int]


def _side(tree: LabelTree, stmt: If, label: int) -> int | None:
    assert stmt.els is not None
    for arm in (stmt.then.label, stmt.els.label):
        if arm in tree.blk(label):
            return arm
    return None


def arms_of(kernel: Kernel, tree: LabelTree, verdict: Verdict) -> Arms:
    """Stage 1 (module docstring): the innermost ``if``/``else`` whose arms hold the two ends
    of every race, the writing arm being the producer; :class:`NoNamedFix` says why not."""
    ends: list[tuple[int, int]] = []  # (write, read) of each race
    for race in verdict.races:
        kinds = tuple(AccessKind(k) for k in race.kinds)
        if kinds == (AccessKind.WRITE, AccessKind.READ):
            ends.append((race.first, race.second))
        elif kinds == (AccessKind.READ, AccessKind.WRITE):
            ends.append((race.second, race.first))
        else:
            raise NoNamedFix(f"a {race.kind} race (lines {tree.line(race.first)} and {tree.line(race.second)}) "
                             f"has no producer and consumer")
    ifs = sorted((s for s in walk_stmts(kernel.body) if isinstance(s, If) and s.els is not None),
                 key=lambda s: -tree.depth(s.label))
    for s in ifs:
        sides = [(_side(tree, s, w), _side(tree, s, r)) for w, r in ends]
        if any(a is None or b is None or a == b for a, b in sides):
            continue
        writers = {a for a, _ in sides}
        if len(writers) > 1:
            raise NoNamedFix("data flows both ways between the arms of the if/else at line "
                             f"{tree.line(s.label)}: one arrive/sync pair orders one direction only (it needs "
                             "two barriers)")
        producer = writers.pop()
        assert producer is not None and s.els is not None
        consumer = s.els.label if producer == s.then.label else s.then.label
        return Arms(producer, consumer, frozenset(w for w, _ in ends), frozenset(r for _, r in ends))
    raise NoNamedFix("the racing statements are not a write in one arm and a read in the other arm of one if/else")


def _used_ids(kernel: Kernel) -> set[int]:
    from oracle.named_emulate import Emulator

    return {op.barrier for op in Emulator(kernel).run().ops} | {0}


def spelling(kernel: Kernel, op: str, barrier: int, count: int) -> str:
    """``op`` (``sync``/``arrive``) on ``barrier`` for ``count`` threads, written like the
    kernel's own first named barrier (``asm volatile("bar.sync 1, 64;");`` otherwise)."""
    for s in walk_stmts(kernel.body):
        if isinstance(s, NamedBarrier) and s.span is not None and s.span.start >= 0:
            text = kernel.source_text[s.span.start:s.span.end]
            m = _PTX.search(text)
            if m and "%" not in m.group(0):
                new = f"{m.group(1)}{m.group(2)}.{op}{m.group(4)} {barrier}, {count}"
                return text[:m.start()] + new + text[m.end():]
    return f'asm volatile("bar.{op} {barrier}, {count};");'


def _why_not(found: Search) -> str:
    """The search's failure, in words."""
    if not found.candidates:
        return ("no position pair has whole, disjoint warps on each side: a warp has both producer and "
                "consumer threads, or a group is not whole warps")
    parts = [f"{n} {why}" for why, n in found.rejected.most_common()]
    if found.pruned:
        parts.append(f"{found.pruned} skipped (the two groups would execute them a different number of times)")
    why = (f"none of the {found.candidates} candidate arrive/sync pairs is verified ({found.oracle_calls} checked by "
           f"the named-barrier oracle: {'; '.join(parts)})")
    return f"{why}; {found.lost}" if found.lost else why


def synthesize_named(kernel: Kernel, verdict: Verdict, oracle: Oracle, *,
                     lc: int | float | str | Fraction = DEFAULT_LC,
                     ic: int | float | str | Fraction = DEFAULT_IC) -> NamedFix:
    """The least-cost named-barrier pair that removes the producer/consumer races of
    ``verdict``, checked by ``oracle`` (the ``named`` checker) on the candidate kernel and
    again on the re-parsed text; C(ℓ) with ``lc``/``ic`` as for Algorithm 1.
    :class:`NoNamedFix` says why there is none."""
    from autosync.render.patch import apply_edits, plan_edits
    from kpl.frontend import parse_kernel_text

    if not verdict.races or verdict.divergences or verdict.unknowns or verdict.findings:
        raise NoNamedFix("only races are fixed with named barriers")
    tree = LabelTree(kernel)
    arms = arms_of(kernel, tree, verdict)
    free = [b for b in range(1, NUM_BARRIERS) if b not in _used_ids(kernel)]
    if not free:
        raise NoNamedFix("all 16 named barriers are in use")
    barrier = free[0]
    found = search(kernel, tree, CostModel(tree, lc, ic), (arms.producer, arms.consumer), set(arms.producers),
                   set(arms.consumers), barrier, oracle)
    if found.pair is None:
        raise NoNamedFix(_why_not(found))
    pair, count = found.pair, found.pair.count
    arrive, sync = spelling(kernel, "arrive", barrier, count), spelling(kernel, "sync", barrier, count)
    anchors = (pair.arrive.label, pair.sync.label)
    placement = Placement((Anchor(pair.arrive.label, pair.arrive.cost), Anchor(pair.sync.label, pair.sync.cost)))
    try:
        edits = plan_edits(kernel, placement, texts=dict(zip(anchors, (arrive, sync), strict=True)),
                           tag=kernel.name)
    except ValueError as exc:
        raise NoNamedFix(f"the pair cannot be written into the text: {exc}") from exc
    rendered = apply_edits(kernel.source_text, edits)
    again = parse_kernel_text(rendered.text, kernel.source_path, kernel=kernel.name,
                              block_dim=kernel.launch.block_dim, grid_dim=kernel.launch.grid_dim)
    checked = oracle.check(again)
    if not checked.verified:
        raise NoNamedFix(f"the named-barrier checker rejects the patched text (bar.arrive/bar.sync {barrier}, "
                         f"{count}): {len(checked.races)} races, {len(checked.findings)} findings")
    line = {b.anchor: b.line for b in rendered.inserted}
    return NamedFix(rendered.text, tuple(edits), barrier, count, arrive, sync, line[anchors[0]], line[anchors[1]],
                    anchors, placement, found.oracle_calls + 1, found)


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

    from autosync.algorithm.split import explain_unfixed
    from autosync.algorithm.synthesis import FIXED
    from autosync.pipeline.errors import InternalError
    from autosync.pipeline.files import keep_line_endings, to_lf
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


__all__ = ["Arms", "NoNamedFix", "NamedFix", "arms_of", "named_and_fix", "named_synthesize", "spelling",
           "synthesize_named"]
