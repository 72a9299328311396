"""Named-barrier synthesis for a warp-specialised producer/consumer race ([WEFT]).

In a warp-specialised kernel the producer warps and the consumer warps take the two arms of one
``if``; a ``__syncthreads()`` between them would be divergent, so Algorithm 1 ([AutoSync])
reports such a race as unfixable.  PTX named barriers are made for it: the producer signals
with the non-blocking ``bar.arrive id, n`` after its last write, the consumer waits with
``bar.sync id, n`` before its first read, and ``n`` counts the threads of both groups
([WEFT] Sec. 3.3).  This module proposes that pair and has the named-barrier checker verify it:

* the race(s) must all be write (producer arm) -> read (consumer arm) of one ``if``/``else``,
  each racing statement directly in its arm (not in a loop or a nested block of it);
* ``n`` is the number of threads of the two groups, found by running the CTA concretely
  (:class:`oracle.named_emulate.Emulator`); a warp with threads in both groups, or a group
  that is not whole warps, is refused (``bar`` counts whole warps);
* the id is the least of 1..15 that the kernel does not use (0 is ``__syncthreads()``);
* the spelling is the file's own: an existing ``asm volatile("bar.sync 1, 64;")`` of the
  kernel is copied with the new operation, id and count (default that same form);
* the arrive goes on a new line after the last producer statement, the sync on a new line
  before the first consumer statement, and the patched text is parsed and checked by the
  ``named`` oracle again: only a verified text is returned.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kpl.ast import Block, If, Kernel, NamedBarrier, Space, Stmt, walk_stmts
from kpl.lineindex import LineIndex
from oracle.base import AccessKind, Oracle, Verdict

if TYPE_CHECKING:
    from autosync.pipeline import FixOutcome

#: PTX has 16 named barriers per CTA; 0 is the one ``__syncthreads()`` uses
NUM_BARRIERS = 16
WARP = 32
_PTX = re.compile(r"\b(bar|barrier)((?:\.cta)?)\.(sync|arrive)((?:\.aligned)?)\s+[^;\"]*")


class NoNamedFix(Exception):
    """Why no named-barrier pair is proposed (said to the user)."""


@dataclass(frozen=True)
class NamedFix:
    """The verified patch: ``text`` (LF) with ``arrive``/``sync`` on ``barrier`` for ``count``
    threads, inserted at the given 1-based lines of the ORIGINAL text."""

    text: str
    insertions: tuple[tuple[int, str], ...]  # (offset in the LF text, inserted text)
    barrier: int
    count: int
    arrive: str
    sync: str
    arrive_after_line: int
    sync_before_line: int


def _arm(stmt: If, label: int) -> Block | None:
    for arm in (stmt.then, stmt.els):
        if arm is not None and any(s.label == label for s in arm.stmts):
            return arm
    return None


def _split_if(kernel: Kernel, producers: set[int], consumers: set[int]) -> tuple[If, Block, Block]:
    """The ``if`` whose one arm holds every producer statement and the other every consumer."""
    for s in walk_stmts(kernel.body):
        if not isinstance(s, If) or s.els is None:
            continue
        arms = {_arm(s, lab) is not None and id(_arm(s, lab)) for lab in producers | consumers}
        p_arms = {id(_arm(s, lab)) for lab in producers if _arm(s, lab) is not None}
        c_arms = {id(_arm(s, lab)) for lab in consumers if _arm(s, lab) is not None}
        if False in arms or len(p_arms) != 1 or len(c_arms) != 1 or p_arms == c_arms:
            continue
        by_id = {id(s.then): s.then, id(s.els): s.els}
        return s, by_id[p_arms.pop()], by_id[c_arms.pop()]
    raise NoNamedFix("the racing statements are not the two arms of one if/else, each directly in its arm")


def _threads(kernel: Kernel, labels: set[int]) -> set[int]:
    from oracle.named_emulate import Emulator

    progs = Emulator(kernel).run()
    return {t for acc in progs.accesses if acc.label in labels for t in acc.tids}


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


def _line_of(kernel: Kernel, stmt: Stmt) -> tuple[int, int, str]:
    """(start of the line, end of the line, indentation) of ``stmt``'s first line."""
    assert stmt.span is not None
    text = kernel.source_text
    start = text.rfind("\n", 0, stmt.span.start) + 1
    end_at = stmt.span.end if stmt.span.end >= 0 else stmt.span.start
    end = text.find("\n", end_at)
    indent = text[start:stmt.span.start]
    if indent.strip():
        raise NoNamedFix(f"the statement at line {stmt.span.line} shares its line with other code")
    return start, len(text) if end < 0 else end, indent


def synthesize_named(kernel: Kernel, verdict: Verdict, oracle: Oracle) -> NamedFix:
    """The named-barrier pair that removes the producer/consumer races of ``verdict``, checked
    by ``oracle`` (the ``named`` checker) on the re-parsed text; :class:`NoNamedFix` says why not."""
    from kpl.frontend import parse_kernel_text

    if not verdict.races or verdict.divergences or verdict.unknowns or verdict.findings:
        raise NoNamedFix("only races are fixed with named barriers")
    producers: set[int] = set()
    consumers: set[int] = set()
    for race in verdict.races:
        kinds = tuple(AccessKind(k) for k in race.kinds)
        if kinds == (AccessKind.WRITE, AccessKind.READ):
            producers.add(race.first)
            consumers.add(race.second)
        elif kinds == (AccessKind.READ, AccessKind.WRITE):
            producers.add(race.second)
            consumers.add(race.first)
        else:
            raise NoNamedFix(f"a {race.kind} race is not a producer/consumer race")
    _, p_arm, c_arm = _split_if(kernel, producers, consumers)
    p_threads, c_threads = _threads(kernel, producers), _threads(kernel, consumers)
    p_warps, c_warps = {t // WARP for t in p_threads}, {t // WARP for t in c_threads}
    if p_warps & c_warps:
        raise NoNamedFix("a warp has both producer and consumer threads")
    count = len(p_threads) + len(c_threads)
    if count % WARP or len(p_threads) != WARP * len(p_warps) or len(c_threads) != WARP * len(c_warps):
        raise NoNamedFix("the producer and consumer groups are not whole warps")
    free = [b for b in range(1, NUM_BARRIERS) if b not in _used_ids(kernel)]
    if not free:
        raise NoNamedFix("all 16 named barriers are in use")
    barrier = free[0]
    last_p = max((s for s in p_arm.stmts if s.label in producers), key=lambda s: s.span.start if s.span else -1)
    first_c = min((s for s in c_arm.stmts if s.label in consumers), key=lambda s: s.span.start if s.span else -1)
    _, p_end, p_indent = _line_of(kernel, last_p)
    c_start, _, c_indent = _line_of(kernel, first_c)
    arrive, sync = spelling(kernel, "arrive", barrier, count), spelling(kernel, "sync", barrier, count)
    text = kernel.source_text
    if not p_end < c_start:
        raise NoNamedFix("the consumer arm does not follow the producer arm in the text")
    insertions = ((p_end, "\n" + p_indent + arrive), (c_start, c_indent + sync + "\n"))
    patched = text[:p_end] + insertions[0][1] + text[p_end:c_start] + insertions[1][1] + text[c_start:]
    again = parse_kernel_text(patched, kernel.source_path, kernel=kernel.name,
                              block_dim=kernel.launch.block_dim, grid_dim=kernel.launch.grid_dim)
    checked = oracle.check(again)
    if not checked.verified:
        raise NoNamedFix(f"the named-barrier checker rejects bar.arrive/bar.sync {barrier}, {count}: "
                         f"{len(checked.races)} races, {len(checked.findings)} findings")
    lines = LineIndex(text)
    return NamedFix(patched, insertions, barrier, count, arrive, sync, lines.line_col(p_end)[0],
                    lines.line_col(c_start)[0])


def named_and_fix(outcome: FixOutcome, rerun: Callable[[str], FixOutcome],
                  compile_check: Callable[[str], tuple[bool | None, str]]) -> FixOutcome:
    """After an unfixable ``outcome`` whose one unfixed kernel has only shared-memory races
    (found by the ``named`` checker, or by ``sdv``, which reports every racing pair): insert the named-barrier pair of :func:`synthesize_named` into the user's text
    (line endings kept) and run the whole pipeline on it again, which must find the kernel
    verified; then ``nvcc --ptx``.  Returns ``outcome`` with the reason extended when no pair
    is proposed."""
    import dataclasses

    from autosync.errors import InternalError
    from autosync.pipeline_io import keep_line_endings, to_lf
    from autosync.render import Edit, apply_edits
    from autosync.split import explain_unfixed
    from autosync.synthesis import FIXED
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
        found = synthesize_named(fix.kernel, verdict, get_oracle("named"))
    except NoNamedFix as why:
        return explain_unfixed(outcome, f"no named-barrier pair either: {why}")
    edits = [keep_line_endings(raw, Edit(at, at, text, anchor=-1, barrier_at=text.index(stmt),
                                         barrier_len=len(stmt)))
             for (at, text), stmt in zip(found.insertions, (found.arrive, found.sync), strict=True)]
    rendered = apply_edits(raw, edits)
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
                                           oracle_calls=f.result.oracle_calls + fix.result.oracle_calls + 1)
    again.status, again.original, again.patched, again.rendered = "fixed", raw, rendered.text, rendered
    again.reparsed_verified, again.nvcc = True, "ok" if ok else "skipped"
    again.notes.append(note)
    again.rewrites = [f"{outcome.file}:{found.arrive_after_line}: {found.arrive} after the producer's last write; "
                      f"{outcome.file}:{found.sync_before_line}: {found.sync} before the consumer's first read "
                      f"(named barrier {found.barrier}, {found.count} threads, checked by the named-barrier oracle)"]
    return again


__all__ = ["NoNamedFix", "NamedFix", "spelling", "synthesize_named", "named_and_fix"]
