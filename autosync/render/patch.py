"""Source-preserving patch rendering: barriers in and out of the ORIGINAL kernel text.

Algorithm 1 of the AutoSync paper ends with a placement L: "insert a barrier after every
ℓ ∈ L" (INSERTBARRIERS, Alg. 1 line 20).  On the KPL AST that is a tree edit
(:func:`kpl.transform.insert_barriers`); for the *user* it must be a minimal edit of the file
they wrote.  This module turns a placement into a list of text edits on
``kernel.source_text`` and applies them, so that every byte outside the inserted or removed
barriers stays as it was -- comments, macros, blank lines, odd formatting (CONTRIBUTING.md, "Rendering").

Where "a barrier after ℓ" goes (CONTRIBUTING.md, "Labels"; label kinds from :mod:`kpl.labels`):

* ℓ a statement (leaf or compound): a new line right after the line on which ℓ's text ends,
  when the rest of that line is blank or a comment; otherwise inline, right after ℓ's ``;`` or
  ``}``.  The new line takes the indentation of ℓ's first line.
* ℓ = ℓ_s, the start node of a block: the block's new first statement, on a new line after the
  line holding the block's ``{`` (Sec. III-A: "a barrier after ℓ_s is at the beginning of the
  block").  Indentation: the block's first statement's, or the ``{`` line's + 4 spaces.
* ℓ an ``else`` block: after the whole ``if``/``else`` (the else block is the right sibling of
  the ``if`` in the label tree, so that is where INSERTBARRIERS puts it).
* A body without braces (``if (c) x = 1;``, ``for (…)\\n    s += A[i];``): braces are added
  around the single statement and the barrier(s), keeping the statement's text.

Edits are plain ``(start, end, text)`` replacements on the original text with a *rank* that
orders several insertions at one offset (inner closing before outer closing, outer opening
before inner opening), so any number of edits -- from several kernels of one file -- compose.
The barrier text itself comes from a jinja2 template per target (``templates/<target>.j2``),
given the anchor's barrier kind (``kind``: ``block``, ``warp``, i.e. ``__syncwarp();``, or
``grid``, cooperative groups' grid barrier through the alias ``grid_ns``, whose include and
alias lines are :mod:`autosync.render.grid`).
One more edit changes a barrier the user wrote: :func:`widen_edit` ORs a fence flag into an
OpenCL ``barrier(...)``'s first argument where ``fix`` widens it instead of adding a barrier
(:mod:`autosync.algorithm.fences`).

Why one module of ~470 lines: finding where "after ℓ" lies in the text, adding braces around
an unbraced body and ranking several insertions at one offset are one computation over the
same statement extents; split apart, each half would need the other's offsets.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import jinja2

from kpl.ast import Barrier, Block, If, Kernel, Loop, Stmt
from kpl.labels import ELSE, START, LabelTree
from kpl.lineindex import LineIndex
from kpl.placement import BarrierKind, Placement, as_placement

TEMPLATE_DIR = Path(__file__).parent / "templates"

#: indentation added below a ``{`` when a block has no statement to copy it from and the file
#: shows no step of its own (:meth:`_Text.indent_unit`)
INDENT_STEP = "    "


# --------------------------------------------------------------------------- templates


def available_targets() -> list[str]:
    """Targets with a template (``cuda``, ``opencl``, …): ``templates/<target>.j2``."""
    return sorted(p.stem for p in TEMPLATE_DIR.glob("*.j2"))


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATE_DIR)),
        autoescape=False,
        keep_trailing_newline=False,
        undefined=jinja2.StrictUndefined,
    )


def barrier_text(target: str = "cuda", **context: object) -> str:
    """The barrier statement for ``target`` (``cuda`` → ``__syncthreads();``), one line,
    without indentation.  Unknown targets raise ``ValueError`` naming the known ones."""
    if target not in available_targets():
        raise ValueError(f"unknown target '{target}' (known: {', '.join(available_targets())})")
    context.setdefault("anchor", None)
    context.setdefault("name", "")
    context.setdefault("kind", "block")
    context.setdefault("grid_ns", "cooperative_groups")
    text = _environment().get_template(f"{target}.j2").render(**context).strip()
    if not text or "\n" in text:
        raise ValueError(f"template for target '{target}' must render one non-empty line")
    return text


# --------------------------------------------------------------------------- edits


@dataclass(frozen=True)
class Edit:
    """Replace ``text[start:end]`` by ``replacement`` (``start == end``: an insertion).

    ``rank`` orders insertions at the same offset; ``anchor`` is the label a barrier is
    inserted after (None for braces and removals); ``barrier_at`` is the index of the barrier
    text inside ``replacement`` (-1 when the edit inserts no barrier), so the renderer can
    report the line the barrier ends up on.
    """

    start: int
    end: int
    replacement: str
    rank: tuple[int, ...] = ()
    anchor: int | None = None
    barrier_at: int = -1
    barrier_len: int = 0
    tag: str | None = None

    @property
    def is_insertion(self) -> bool:
        return self.start == self.end


@dataclass(frozen=True)
class InsertedBarrier:
    """A barrier as it appears in the patched text (1-based line/column)."""

    anchor: int
    line: int
    column: int
    offset: int
    text: str
    original_offset: int
    tag: str | None = None


@dataclass
class Rendered:
    """The patched text plus where each inserted barrier landed."""

    text: str
    inserted: list[InsertedBarrier] = field(default_factory=list)
    edits: list[Edit] = field(default_factory=list)


class _Text(LineIndex):
    """Line helpers over the original text, for placing and indenting barriers."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.newline = "\r\n" if "\r\n" in text else "\n"

    def line_end(self, offset: int) -> int:
        """Offset of the end of ``offset``'s line, before ``\\r\\n``/``\\n`` (or EOF)."""
        end = self.text.find("\n", offset)
        if end < 0:
            return len(self.text)
        if end > 0 and self.text[end - 1] == "\r" and end - 1 >= offset:
            return end - 1
        return end

    def indent_of(self, offset: int) -> str:
        start = self.line_start(offset)
        pos = start
        while pos < len(self.text) and self.text[pos] in " \t":
            pos += 1
        return self.text[start:pos]

    def indent_unit(self) -> str:
        """The file's own indentation step: a tab, or the smallest number of spaces by which
        a line is indented more than the line before it (:data:`INDENT_STEP` if none is)."""
        steps: list[str] = []
        before = ""
        for line in self.text.splitlines():
            if not line.strip() or line.lstrip().startswith("*"):  # blank, or inside a /* */ block
                continue
            indent = line[:len(line) - len(line.lstrip(" \t"))]
            if len(indent) > len(before) and indent.startswith(before):
                steps.append(indent[len(before):])
            before = indent
        if any("\t" in st for st in steps):
            return "\t"
        spaces = [st for st in steps if st.strip(" ") == ""]
        return min(spaces, key=len) if spaces else INDENT_STEP

    def rest_is_blank(self, offset: int) -> bool:
        """Is the rest of the line from ``offset`` blank or a comment?"""
        rest = self.text[offset:self.line_end(offset)].strip()
        if not rest or rest.startswith("//"):
            return True
        return rest.startswith("/*") and rest.endswith("*/") and rest.find("*/") == len(rest) - 2


def apply_edits(text: str, edits: Iterable[Edit]) -> Rendered:
    """Apply ``edits`` (from any number of kernels of one file) to ``text`` at once.

    Edits are sorted by offset (insertions before a removal starting at the same offset, then
    by rank) and applied left to right, which is the same as applying them from the end of the
    file backwards; overlapping edits are a ``ValueError``.
    """
    # Identical edits are made once: the instantiations of one template
    # (``f<int>``, ``f<double>``) are separate kernels over the same source text.
    unique: dict[tuple[int, int, str, tuple[int, ...]], Edit] = {}
    for edit in edits:
        unique.setdefault((edit.start, edit.end, edit.replacement, edit.rank), edit)
    ordered = sorted(unique.values(), key=lambda e: (e.start, 0 if e.is_insertion else 1, e.rank))
    out: list[str] = []
    length = 0
    pos = 0
    inserted: list[InsertedBarrier] = []
    for edit in ordered:
        if edit.start < pos or edit.end < edit.start or edit.end > len(text):
            raise ValueError(f"overlapping or out-of-range edits at offset {edit.start}")
        chunk = text[pos:edit.start]
        out.append(chunk)
        length += len(chunk)
        if edit.barrier_at >= 0 and edit.anchor is not None:
            inserted.append(InsertedBarrier(edit.anchor, 0, 0, length + edit.barrier_at,
                                            edit.replacement[edit.barrier_at:edit.barrier_at + edit.barrier_len],
                                            edit.start, edit.tag))
        out.append(edit.replacement)
        length += len(edit.replacement)
        pos = edit.end
    out.append(text[pos:])
    result = "".join(out)
    lines = LineIndex(result)
    located = []
    for bar in inserted:
        line, col = lines.line_col(bar.offset)
        located.append(InsertedBarrier(bar.anchor, line, col, bar.offset, bar.text, bar.original_offset,
                                       bar.tag))
    return Rendered(result, located, ordered)


# --------------------------------------------------------------------------- planning


def _span_range(stmt: Stmt | None, tree: LabelTree, label: int) -> tuple[int, int]:
    span = stmt.span if stmt is not None else None
    if span is None or span.start < 0 or span.end < 0:
        raise ValueError(f"cannot render a barrier after label {tree.name(label)} (#{label}): "
                         "its source position is unknown (macro expansion or synthetic code)")
    return span.start, span.end


def _wrappable(tree: LabelTree, block: Block) -> bool:
    """A block without braces that needs ``{ }`` added to hold a second statement: the body
    of a real ``if``/``else``/``for``/``while``/``do`` (not the synthetic blocks of a lowered
    ``switch`` or an inlined call, whose statements already sit in a statement list)."""
    if block.source.open_brace >= 0 or block.label == tree.root:
        return False
    owner = tree.stmt(block.label)
    return isinstance(owner, (If, Loop)) and not owner.synthetic


def _body_range(tree: LabelTree, block: Block) -> tuple[int, int]:
    starts, ends = [], []
    for stmt in block.stmts:
        if stmt.synthetic or stmt.span is None or stmt.span.start < 0 or stmt.span.end < 0:
            continue
        starts.append(stmt.span.start)
        ends.append(stmt.span.end)
    if not starts:
        if block.span is not None and block.span.start >= 0 and block.span.end >= 0:
            return block.span.start, block.span.end
        raise ValueError(f"cannot render into the body of {tree.name(block.label)}: "
                         "it has no statement in the source text")
    return min(starts), max(ends)


class _Planner:
    """Computes the edits of one kernel."""

    def __init__(self, kernel: Kernel, target: str, texts: Mapping[int, str] | None,
                 tag: str | None = None, grid_ns: str = "cooperative_groups") -> None:
        self.kernel = kernel
        self.tag = tag
        self.grid_ns = grid_ns  # the namespace a grid barrier's this_grid() is named through
        self.tree = LabelTree(kernel)
        self.src = _Text(kernel.source_text)
        self.target = target
        self.texts = dict(texts or {})
        self.edits: list[Edit] = []
        self.kinds: dict[int, list[BarrierKind]] = {}  # anchor -> kinds of its barriers

    # -- helpers -------------------------------------------------------------------------

    def barrier(self, label: int, i: int = 0) -> str:
        """The text of the ``i``-th barrier after ``label``, in its kind's spelling."""
        if label in self.texts:
            return self.texts[label]
        kinds = self.kinds.get(label, [])
        kind = kinds[i] if i < len(kinds) else BarrierKind.SYNCTHREADS
        return barrier_text(self.target, anchor=label, name=self.tree.name(label),
                            kind="grid" if kind is BarrierKind.GRID else "warp" if kind.warp else "block",
                            grid_ns=self.grid_ns)

    def depth(self, block_label: int) -> int:
        return self.tree.depth(block_label)

    def add(self, offset: int, replacement: str, rank: tuple[int, ...], anchor: int | None = None,
            barrier: str | None = None) -> None:
        at = -1 if barrier is None else replacement.rindex(barrier)
        self.edits.append(Edit(offset, offset, replacement, rank, anchor, at,
                               0 if barrier is None else len(barrier), self.tag))

    def after_point(self, end: int, start: int) -> tuple[int, bool]:
        """Where text goes "after" a statement spanning [start, end): (offset, on a new line)."""
        if self.src.rest_is_blank(end):
            return self.src.line_end(end), True
        return end, False

    def insert_after_stmt(self, label: int, start: int, end: int, depth: int, count: int,
                          inline: bool = False) -> None:
        offset, new_line = (end, False) if inline else self.after_point(end, start)
        nl = self.src.newline
        for i in range(count):
            bar = self.barrier(label, i)
            text = (nl + self.src.indent_of(start) + bar) if new_line else (" " + bar)
            self.add(offset, text, (0, -depth, 0, i), label, bar)

    def block_indent(self, block: Block, brace: int) -> str:
        brace_line = self.src.line_start(brace)
        for stmt in block.stmts:
            span = stmt.span
            if span is None or span.start <= brace or stmt.synthetic:
                continue
            if self.src.line_start(span.start) != brace_line:
                return self.src.indent_of(span.start)
            break
        return self.src.indent_of(brace) + self.src.indent_unit()

    # -- the three placements ------------------------------------------------------------

    def at_block_start(self, label: int, block: Block, count: int) -> None:
        depth = self.depth(block.label)
        brace = block.source.open_brace
        nl = self.src.newline
        if brace >= 0:
            indent = self.block_indent(block, brace)
            new_line = self.src.rest_is_blank(brace + 1)
            offset = self.src.line_end(brace + 1) if new_line else brace + 1
            for i in range(count):
                bar = self.barrier(label, i)
                text = (nl + indent + bar) if new_line else (" " + bar)
                self.add(offset, text, (1, depth, 1, i), label, bar)
            return
        # a statement list without braces (lowered switch case): before its first statement
        start, _ = _body_range(self.tree, block)
        line_start = self.src.line_start(start)
        own_line = self.kernel.source_text[line_start:start].strip() == ""
        for i in range(count):
            bar = self.barrier(label, i)
            if own_line:
                self.add(line_start, self.src.indent_of(start) + bar + nl, (1, depth, 1, i), label, bar)
            else:
                self.add(start, bar + " ", (1, depth, 1, i), label, bar)

    def wrap(self, block: Block, starts: Counter[int], afters: list[tuple[int, int]]) -> None:
        """Add braces around an unbraced body and put its barriers inside them.

        ``starts``: ℓ_s barriers (label -> count); ``afters``: (label, count) after statements.
        """
        text = self.kernel.source_text
        body_start, body_end = _body_range(self.tree, block)
        depth = self.depth(block.label)
        nl = self.src.newline
        header_end = body_start
        while header_end > 0 and text[header_end - 1] in " \t\r\n":
            header_end -= 1
        multi_line = "\n" in text[header_end:body_start]
        owner = self.tree.stmt(block.label)
        if self.tree.kind(block.label) == ELSE or owner is None or owner.span is None or owner.span.start < 0:
            owner_indent = self.src.indent_of(header_end - 1 if header_end > 0 else 0)
        else:
            owner_indent = self.src.indent_of(owner.span.start)
        inner_indent = self.src.indent_of(body_start)
        # opening brace (+ ℓ_s barriers)
        if multi_line:
            line_start = self.src.line_start(header_end - 1 if header_end > 0 else 0)
            segment = text[line_start:header_end]
            if "//" in segment:
                self.add(line_start + segment.index("//"), "{ ", (1, depth, 0))
                open_at = self.src.line_end(header_end)
            else:
                self.add(header_end, " {", (1, depth, 0))
                open_at = header_end
            for label, count in starts.items():
                for i in range(count):
                    bar = self.barrier(label, i)
                    offset = self.src.line_end(open_at)
                    self.add(offset, nl + inner_indent + bar, (1, depth, 1, i), label, bar)
        else:
            self.add(body_start, "{ ", (1, depth, 0))
            for label, count in starts.items():
                for i in range(count):
                    bar = self.barrier(label, i)
                    self.add(body_start, bar + " ", (1, depth, 1, i), label, bar)
        # barriers after the body's statement (nested statements belong to deeper blocks);
        # a one-line `if (c) x = 1;` stays on one line
        body_multi_line = "\n" in text[body_start:body_end]
        for label, count in afters:
            start, end = _span_range(self.tree.stmt(label), self.tree, label)
            self.insert_after_stmt(label, start, end, depth, count,
                                   inline=not (multi_line or body_multi_line))
        # closing brace
        if (multi_line or body_multi_line) and self.src.rest_is_blank(body_end):
            self.add(self.src.line_end(body_end), nl + owner_indent + "}", (0, -depth, 1))
        else:
            self.add(body_end, " }", (0, -depth, 1))

    # -- driver --------------------------------------------------------------------------

    def plan(self, insert_after: Placement | Iterable[int], remove: Iterable[Barrier]) -> list[Edit]:
        placement = as_placement(insert_after)
        wanted: Counter[int] = Counter(placement.labels)
        for anchor in placement:
            self.kinds.setdefault(anchor.label, []).append(anchor.kind)
        tree = self.tree
        # group by the block that will hold the new barrier
        plain_starts: list[tuple[int, Block, int]] = []
        wraps: dict[int, tuple[Block, Counter[int], list[tuple[int, int]]]] = {}
        for label, count in wanted.items():
            if label not in tree.nodes:
                raise ValueError(f"label #{label} is not a label of kernel {self.kernel.name}")
            if not tree.placeable(label):
                raise ValueError(f"a barrier cannot be placed after label {tree.name(label)} (#{label}) "
                                 f"of kernel {self.kernel.name}")
            node = tree.nodes[label]
            if node.kind == START:
                assert node.block is not None
                block = node.block
                if _wrappable(tree, block):
                    wraps.setdefault(block.label, (block, Counter(), []))[1][label] += count
                else:
                    plain_starts.append((label, block, count))
                continue
            parent = node.parent
            assert parent is not None
            container = tree.nodes[parent].block
            assert container is not None
            start, end = _span_range(node.stmt, tree, label)
            if _wrappable(tree, container):
                wraps.setdefault(container.label, (container, Counter(), []))[2].append((label, count))
            else:
                self.insert_after_stmt(label, start, end, self.depth(container.label), count)
        for label, block, count in plain_starts:
            self.at_block_start(label, block, count)
        for block, starts, afters in wraps.values():
            self.wrap(block, starts, afters)
        for bar in remove:
            self.remove(bar)
        return self.edits

    def remove(self, bar: Barrier) -> None:
        """Delete a barrier statement's text; the whole line when nothing else is on it."""
        span = bar.span
        if span is None or span.start < 0 or span.end < 0:
            raise ValueError(f"cannot remove the barrier #{bar.label}: its source position is unknown")
        text = self.kernel.source_text
        start, end = span.start, span.end
        line_start = self.src.line_start(start)
        line_end = self.src.line_end(end)
        if text[line_start:start].strip() == "" and text[end:line_end].strip() == "":
            newline_end = text.find("\n", end)
            if newline_end >= 0:
                self.edits.append(Edit(line_start, newline_end + 1, ""))
            elif line_start > 0:  # last line without a newline: take the previous newline
                prev = line_start - 1
                if prev > 0 and text[prev - 1] == "\r":
                    prev -= 1
                self.edits.append(Edit(prev, len(text), ""))
            else:
                self.edits.append(Edit(0, len(text), ""))
            return
        if text[line_start:start].strip() != "":
            while start > line_start and text[start - 1] in " \t":
                start -= 1
        else:
            while end < line_end and text[end] in " \t":
                end += 1
        self.edits.append(Edit(start, end, ""))


def plan_edits(kernel: Kernel, insert_after: Placement | Iterable[int], *, remove: Iterable[Barrier] = (),
               target: str = "cuda", texts: Mapping[int, str] | None = None,
               tag: str | None = None, grid_ns: str = "cooperative_groups") -> list[Edit]:
    """The text edits that insert a barrier after each anchor of ``insert_after`` (a
    :class:`~kpl.placement.Placement`, or plain labels; an anchor listed twice gets two
    barriers) and delete each barrier statement of ``remove``.

    ``texts`` overrides the barrier text per anchor label (e.g. the original spelling
    ``syncthreads();`` when re-inserting a developer's barriers); ``tag`` (e.g. the kernel's
    name) is copied to the edits so callers rendering several kernels into one text can tell
    their barriers apart; ``grid_ns`` names ``cooperative_groups`` in a grid barrier's text
    (:func:`autosync.render.grid.grid_alias`).  Raises ``ValueError`` for a
    label that is not placeable (:meth:`LabelTree.placeable`), whose source offsets are
    unknown, or for an unknown ``target``.
    """
    barrier_text(target)  # validate the target even when nothing is inserted
    return _Planner(kernel, target, texts, tag, grid_ns).plan(insert_after, remove)


def widen_edit(kernel: Kernel, bar: Barrier, added: str, tag: str | None = None) -> Edit:
    """The edit that ORs ``added`` (``CLK_GLOBAL_MEM_FENCE``) into the first argument of the
    barrier call ``bar`` where the user wrote it: ``barrier(CLK_LOCAL_MEM_FENCE)`` becomes
    ``barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)``, every other byte kept (an
    argument that is more than names and ``|`` is parenthesised first).  ``ValueError`` where
    the call is not spelled out in the kernel's text (a macro, a header)."""
    span = bar.span
    text = kernel.source_text
    if span is None or span.start < 0 or span.end < 0 or span.file not in ("", kernel.source_path):
        raise ValueError(f"the barrier #{bar.label} is not written in the kernel's text")
    m = re.match(r"(?:work_group_)?barrier\s*\(", text[span.start:span.end])
    if m is None:
        raise ValueError(f"the barrier #{bar.label} is not a call written in the kernel's text")
    depth, end, begin = 0, span.start + m.end(), span.start + m.end()
    while end < span.end and (depth or text[end] not in ",)"):
        depth += text[end] in "([{"
        depth -= text[end] in ")]}"
        end += 1
    arg = text[begin:end].rstrip()
    end = begin + len(arg)
    if re.fullmatch(r"[\w\s|]+", arg):
        return Edit(end, end, f" | {added}", tag=tag)
    return Edit(begin, end, f"({arg.strip()}) | {added}", tag=tag)


def render(kernel: Kernel, insert_after: Placement | Iterable[int], *, remove: Iterable[Barrier] = (),
           target: str = "cuda", texts: Mapping[int, str] | None = None) -> Rendered:
    """Like :func:`render_patch`, also returning where each inserted barrier landed."""
    edits = plan_edits(kernel, insert_after, remove=remove, target=target, texts=texts)
    return apply_edits(kernel.source_text, edits)


def render_patch(kernel: Kernel, insert_after: Placement | Iterable[int], *, remove: Iterable[Barrier] = (),
                 target: str = "cuda") -> str:
    """The ORIGINAL text of ``kernel`` with a barrier inserted after each label of
    ``insert_after`` and each barrier of ``remove`` deleted; every other byte unchanged."""
    return render(kernel, insert_after, remove=remove, target=target).text
