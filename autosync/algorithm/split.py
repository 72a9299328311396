"""Split a statement that races with itself, so that a barrier can go between its read and write.

``A[tid] = A[tid + 1] + 1;`` reads a cell that another thread writes *in the same statement*:
the race location is ⟨ℓ, ℓ⟩ and no barrier between statements can separate it ([AutoSync]
Sec. III-D, case (1) of an UNSAT system: "a race ⟨ℓ, ℓ⟩").  Evaluating the right-hand side into
a fresh local first makes a new position between the read and the write::

    A[tid] = A[tid + 1] + 1;      ->      int A_next = A[tid + 1] + 1; A[tid] = A_next;
    s[i] += s[i - off];           ->      float s_next = s[i - off]; s[i] += s_next;

after which synthesis places the barrier there like any other.  The rewrite keeps the meaning
of the statement: the right-hand side has no side effects (checked), the local has the type
the front end gave the right-hand side (:mod:`kpl.ctypes`' conversions, so ``lhs op= t``
computes what ``lhs op= rhs`` did), and the left-hand side is written once as before.  Both new
statements stay on the statement's own line, so every line number of the file is unchanged
(reports, diagnostics and the user's diff all still point at the same lines); a body without
braces gets braces around the pair, like the renderer's unbraced bodies.  Refused, with the
reason: a template (the right-hand side has a type per instance and the front end has no
``auto``), a statement from a macro body, a right-hand side with side effects or an atomic.

Only a statement whose self-race makes the constraints UNSAT is split, and the split file goes
through the whole pipeline again (synthesis, rendering, re-parse, re-verification, nvcc): a
split statement inside thread-dependent control flow is then reported as unfixable, with the
reason, by the synthesis itself (a barrier there would diverge, [AutoSync] Alg. 1, line 25).

This module plans the split (:func:`plan_splits`: which statements, and the text that replaces
each) and hands it back as data; applying it and fixing the split text again is the pipeline's
step :mod:`autosync.pipeline.split_fix`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kpl.ast import Assign, Atomic, Block, Kernel, MemElem, Stmt, child_blocks, walk_expr, walk_stmts

if TYPE_CHECKING:
    from autosync.algorithm.synthesis import SynthesisResult

_IDENT = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class Split:
    """One statement rewritten: ``text[start:end]`` (LF offsets into the kernel's source text)
    becomes ``replacement``; ``name`` is the fresh local and ``ctype`` its spelled type."""

    label: int
    line: int
    col: int
    start: int
    end: int
    replacement: str
    name: str
    ctype: str

    def note(self, file: str) -> str:
        return (f"{file}:{self.line}:{self.col}: note: the statement races with itself; split into "
                f"'{self.ctype} {self.name} = ...;' and the assignment, so that a barrier can go "
                "between the read and the write")


class NoSplit(Exception):
    """Why a statement is not split (a clear reason, for the unfixable report)."""


# --------------------------------------------------------------------------- the text


def assignment_operator(text: str) -> tuple[int, str] | None:
    """(offset, operator) of the top-level assignment in the statement ``text`` (``=`` or a
    compound ``op=``), skipping ``==``/``<=``/``>=``/``!=`` and anything in brackets."""
    depth = 0
    i = 0
    while i < len(text):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c in "\"'":
            end = text.find(c, i + 1)
            i = len(text) if end < 0 else end
        elif c == "=" and depth == 0:
            if text[i + 1:i + 2] == "=":
                i += 2
                continue  # ==
            prev = text[i - 1] if i > 0 else ""
            if prev in ("<", ">"):
                if i >= 2 and text[i - 2] == prev:
                    return i - 2, prev * 2 + "="  # <<= >>=
                i += 1
                continue  # <= >=
            if prev == "!":
                i += 1
                continue  # !=
            if prev and prev in "+-*/%&|^":
                return i - 1, prev + "="
            return i, "="
        i += 1
    return None


def _has_side_effect(text: str) -> bool:
    """Whether the right-hand side text may write anything (``++``, ``--``, an assignment)."""
    if "++" in text or "--" in text:
        return True
    stripped = re.sub(r"[=!<>]=|<<|>>", "  ", text)
    return "=" in stripped


def fresh_name(base: str, taken: set[str]) -> str:
    """``<base>_next``, or ``<base>_next2``, … -- an identifier used nowhere in the file."""
    name = f"{base}_next"
    n = 2
    while name in taken:
        name = f"{base}_next{n}"
        n += 1
    taken.add(name)
    return name


def _parent_block(kernel: Kernel, stmt: Stmt) -> Block | None:
    def search(block: Block) -> Block | None:
        if any(s is stmt for s in block.stmts):
            return block
        for s in block.stmts:
            for sub in child_blocks(s):
                found = search(sub)
                if found is not None:
                    return found
        return None

    return search(kernel.body)


def plan_split(kernel: Kernel, label: int, taken: set[str], file: str) -> Split:
    """The split of the statement labelled ``label``; :class:`NoSplit` with the reason when
    it cannot be split safely."""
    from autosync.algorithm.macro_sites import macro_site

    stmt = next((s for s in walk_stmts(kernel.body) if s.label == label), None)
    span = stmt.span if stmt is not None else None
    if stmt is None or span is None or span.start < 0 or stmt.synthetic:
        raise NoSplit("the statement has no text of its own (a loop header or a generated statement)")
    if not isinstance(stmt, Assign) or not isinstance(stmt.target, MemElem):
        raise NoSplit("only an assignment to an array element can be split")
    if any(isinstance(e, Atomic) for e in walk_expr(stmt.value)):
        raise NoSplit("the statement contains an atomic operation")
    if macro_site(kernel, [label], file) is not None:
        raise NoSplit("the statement comes from a macro expansion")
    text = kernel.source_text[span.start:span.end]
    if not text.endswith(";"):
        raise NoSplit("the statement's text does not end with ';'")
    found = assignment_operator(text)
    if found is None:
        raise NoSplit("no assignment operator found in the statement's text")
    at, op = found
    lhs, rhs = text[:at], text[at + len(op):-1]
    if "//" in lhs or "/*" in lhs or _has_side_effect(rhs) or not rhs.strip():
        raise NoSplit("the right-hand side has side effects, or the left-hand side holds a comment")
    value = stmt.value
    if op != "=":  # lowered as lhs op rhs: the local takes the right operand's type
        from kpl.ast import Binary

        if not isinstance(value, Binary):
            raise NoSplit(f"unexpected lowering of '{op}'")
        value = value.right
    ctype = getattr(value, "type", None)
    spelled = str(ctype) if ctype is not None and ctype.kind in ("int", "float", "bool", "vec") else ""
    if "<" in kernel.name:
        raise NoSplit("it is in a template, whose right-hand side has a type per instance")
    if not spelled or not _IDENT.fullmatch(spelled.replace(" ", "_")):
        raise NoSplit(f"the right-hand side's type ({ctype}) has no name to declare a local with")
    base = _IDENT.match(lhs.strip())
    name = fresh_name(base.group(0) if base else "t", taken)
    replacement = f"{spelled} {name} = {rhs.lstrip(' ')}; {lhs.rstrip()} {op} {name};"
    block = _parent_block(kernel, stmt)
    if block is not None and block is not kernel.body and block.source.open_brace < 0:
        replacement = "{ " + replacement + " }"  # a body without braces: keep both statements in it
    return Split(label, span.line, span.col, span.start, span.end, replacement, name, spelled)


# --------------------------------------------------------------------------- the plan


def self_race_labels(res: SynthesisResult) -> list[int]:
    """Statements whose read-write race with themselves made the constraints UNSAT."""
    keys = [k for k in res.conflicts if k[0] == k[1]]
    readwrite = {r.first for r in res.races_initial
                 if r.first == r.second and {str(k) for k in r.kinds} == {"read", "write"}}
    return sorted({a for a, _ in keys if a in readwrite})


def plan_splits(unfixed: list[tuple[Kernel, SynthesisResult]], text: str, file: str) -> list[Split]:
    """The splits of every self-racing statement of the ``unfixed`` kernels of the file whose
    (LF) text is ``text``; :class:`NoSplit` naming the line when one cannot be split."""
    taken = set(_IDENT.findall(text))
    splits: dict[tuple[int, int], Split] = {}
    for kernel, res in unfixed:
        for label in self_race_labels(res):
            line = res.tree.line(label) if res.tree is not None else None
            if kernel.source_text != text:  # a kernel of an included file: not ours to rewrite
                raise NoSplit(f"the statement at line {line} is not in this file's text")
            try:
                sp = plan_split(kernel, label, taken, file)
            except NoSplit as why:
                raise NoSplit(f"the statement at line {line} cannot be split: {why}") from None
            splits.setdefault((sp.start, sp.end), sp)  # template instances share one text
    return sorted(splits.values(), key=lambda sp: sp.start)


__all__ = ["Split", "NoSplit", "assignment_operator", "fresh_name", "plan_split", "plan_splits", "self_race_labels"]
