"""Inline PTX: ``asm("bar.sync 1, 64;")`` and ``bar.arrive`` are named barriers ([WEFT]).

clang keeps an ``asm`` statement's operands as expressions but not its template string, so
the template and the operand names are read from the statement's own text; ``%0`` and
``%[name]`` are the clang operand expressions in order (outputs, then inputs).  Any other
instruction has effects the verifier cannot see (it may read or write memory, or
synchronise), so it is refused, never skipped.
"""

from __future__ import annotations

import re

from kpl import ast as K
from kpl.frontend import tree
from kpl.frontend.objects import ObjectsTranslation
from kpl.frontend.state import Scope
from kpl.frontend.tree import Node
from kpl.spans import SourceText

_BARRIER = re.compile(r"(?:bar|barrier)(?:\.cta)?\.(sync|arrive)(?:\.aligned)?\s+(.*)$")
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _split_top(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` outside brackets and string literals."""
    parts, depth, cur, in_str, esc = [], 0, [], False, False
    for ch in text:
        if in_str:
            cur.append(ch)
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"':
            in_str = True
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return parts


def _unescape(body: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


class AsmTranslation(ObjectsTranslation):
    """``stmt_GCCAsmStmt``: named barriers in inline PTX (module docstring)."""

    def stmt_GCCAsmStmt(self, node: Node, scope: Scope) -> list[K.Stmt]:
        template, names, n_out = self._asm_parts(node)
        operands = tree.children(node)
        out: list[K.Stmt] = []
        for instr in re.split(r"[;\n]", template):
            ins = instr.strip().strip("{}").strip()
            if not ins:
                continue
            m = _BARRIER.match(ins)
            if m is None or n_out:
                raise self.error(f"unsupported: inline assembly '{ins}' (only bar.sync and "
                                 "bar.arrive are modelled)", node)
            pre: list[K.Stmt] = []
            args = [self._asm_operand(o.strip(), operands, names, scope, pre, node)
                    for o in m.group(2).split(",")]
            self.uses_named = True
            out.extend(pre)
            out.append(K.NamedBarrier(m.group(1), args[0], args[1] if len(args) > 1 else None,
                                      label=self.label()))
        return out

    def _asm_parts(self, node: Node) -> tuple[str, list[str | None], int]:
        """The template string, the operand names (``[id]``, None when unnamed) and the
        number of outputs of an ``asm`` statement, read from its text."""
        begin = tree.location(node.get("range", {}).get("begin")) or {}
        text = self.text_of(str(begin.get("file", "")))
        if text is None or tree.in_macro(node.get("range", {}).get("begin")):
            raise self.error("unsupported: inline assembly written through a macro", node)
        source = self.source if text is self.source.text else SourceText(text)
        start = self._char(str(begin.get("file", "")), int(begin.get("offset", 0)))
        paren = text.find("(", start)
        close = source.match_bracket(paren) if paren >= 0 else -1
        if close < 0:
            raise self.error("malformed asm statement", node)
        sections = _split_top(text[paren + 1:close - 1], ":")
        template = "".join(_unescape(s) for s in _STRING.findall(sections[0]))
        names: list[str | None] = []
        n_out = 0
        for k, sec in enumerate(sections[1:3]):
            ops = [o for o in _split_top(sec, ",") if o.strip()]
            if k == 0:
                n_out = len(ops)
            for op in ops:
                m = re.match(r"\s*\[(\w+)\]", op)
                names.append(m.group(1) if m else None)
        return template, names, n_out

    def _asm_operand(self, op: str, operands: list[Node], names: list[str | None], scope: Scope,
                     pre: list[K.Stmt], node: Node) -> K.Expr:
        m = re.fullmatch(r"%(\d+)|%\[(\w+)\]", op)
        if m is None:
            try:
                return K.Const(int(op, 0))
            except ValueError:
                raise self.error(f"unsupported: asm operand '{op}'", node) from None
        index = int(m.group(1)) if m.group(1) is not None else (
            names.index(m.group(2)) if m.group(2) in names else -1)
        if not 0 <= index < len(operands):
            raise self.error(f"asm operand '{op}' does not exist", node)
        return self.expr(operands[index], scope, pre)
