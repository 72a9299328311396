"""Inline PTX at token level (a part of the CUDA -> C lowering, :mod:`kpl.lower_cuda`, split
out for size): ``asm("bar.sync 1, 64;")`` and ``bar.arrive`` become ``__kpl_bar_sync`` /
``__kpl_bar_arrive`` calls (named barriers, [WEFT]), with ``%0`` / ``%[name]`` operands
substituted; any other instruction becomes an opaque ``__kpl_asm("…")`` with no memory effect
the verifier could miss (the front end refuses what it cannot model).
"""

from __future__ import annotations

import re

from kpl.errors import KplError
from kpl.tokens import Edits, Tok, norm, split_commas


class AsmLowering:
    """Mixin of :class:`kpl.lower_cuda.CudaLowerer`: the inline-PTX rewrite."""

    text: str
    toks: list[Tok]
    match: dict[int, int]
    edits: Edits
    dead: list[bool]

    def err(self, msg: str, i: int) -> KplError:
        raise NotImplementedError

    def _asm(self, i: int) -> int:
        toks = self.toks
        k = i + 1
        while k < len(toks) and toks[k].v in ("volatile", "__volatile__", "__volatile", "goto", "inline"):
            k += 1
        if k >= len(toks) or toks[k].v != "(" or k not in self.match:
            raise self.err("malformed asm statement", i)
        close = self.match[k]
        # sections split at top-level ':' (a '::' token counts as two)
        sections: list[list[int]] = [[]]
        x = k + 1
        while x < close:
            v = toks[x].v
            if v in "([" and x in self.match:
                sections[-1].extend(range(x, self.match[x] + 1))
                x = self.match[x] + 1
                continue
            if v == ":":
                sections.append([])
            elif v == "::":
                sections.append([])
                sections.append([])
            else:
                sections[-1].append(x)
            x += 1
        template = "".join(_unescape(toks[x].v) for x in sections[0] if toks[x].kind == "str")
        operands: list[str] = []
        names: dict[str, str] = {}
        for sec in sections[1:3]:
            if not sec:
                continue
            for s, e in split_commas(toks, sec[0], sec[-1] + 1, self.match):
                par = next((y for y in range(s, e) if toks[y].v == "(" and y in self.match), None)
                expr = norm(self.text[toks[par + 1].start:toks[self.match[par] - 1].end]) \
                    if par is not None and self.match[par] > par + 1 else ""
                if toks[s].v == "[" and s + 1 < e:
                    names[toks[s + 1].v] = expr
                operands.append(expr)
        n_out = 0
        if len(sections) > 1 and sections[1]:
            n_out = len(split_commas(toks, sections[1][0], sections[1][-1] + 1, self.match))
        calls: list[str] = []
        others: list[str] = []
        for instr in re.split(r"[;\n]", template):
            ins = instr.strip().strip("{}").strip()
            if not ins:
                continue
            m = re.match(r"(?:bar|barrier)(?:\.cta)?\.(sync|arrive)(?:\.aligned)?\s+(.*)$", ins)
            if m and not n_out:
                ops = [self._asm_operand(o.strip(), operands, names) for o in m.group(2).split(",")]
                calls.append(f"__kpl_bar_{m.group(1)}({', '.join(ops)})")
            else:
                others.append(ins)
        if others:
            calls = [f"__kpl_asm({_c_string(template)})"]
        rep = "; ".join(calls) if calls else "__kpl_asm(\"\")"
        span = self.text[toks[i].start:toks[close].end]
        rep += "\n" * span.count("\n")
        self.edits.replace(toks[i].start, toks[close].end, rep)
        for y in range(i, close + 1):
            self.dead[y] = True
        return close + 1

    @staticmethod
    def _asm_operand(op: str, operands: list[str], names: dict[str, str]) -> str:
        def sub(m: re.Match[str]) -> str:
            if m.group(1) is not None:
                idx = int(m.group(1))
                return operands[idx] if idx < len(operands) else m.group(0)
            return names.get(m.group(2), m.group(0))

        return re.sub(r"%(\d+)|%\[(\w+)\]", sub, op)


def _unescape(lit: str) -> str:
    body = lit[1:-1] if lit.startswith('"') else lit[2:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "\\": "\\", '"': '"'}.get(m.group(1), m.group(1)),
                  body)


def _c_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'
