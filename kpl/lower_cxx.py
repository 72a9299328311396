"""C++ declarations at token level (a part of the CUDA -> C lowering, :mod:`kpl.lower_cuda`,
split out for size): a C++ struct head (``struct B : A``, ``__align__``, the name usable
without ``struct``), ``auto`` function pointers, and lambdas, which are refused with their
position rather than left to a syntax error.
"""

from __future__ import annotations

from typing import Any

from kpl.errors import KplError
from kpl.tokens import ATTR_FUNCS, Edits, Tok, eval_int


class CxxDeclsLowering:
    """Mixin of :class:`kpl.lower_cuda.CudaLowerer`: the C++ declaration rewrites."""

    text: str
    toks: list[Tok]
    match: dict[int, int]
    edits: Edits
    out: Any  # kpl.lower_cuda.Lowered (not imported: lower_cuda imports this module)
    type_names: set[str]

    def kill(self, a: int, b: int) -> None:
        raise NotImplementedError

    def err(self, msg: str, i: int) -> KplError:
        raise NotImplementedError

    def _struct_head(self, a: int, lbrace: int, semi: int) -> None:
        """``struct [__align__(n)] NAME [: [public] BASE, ...] {...} ...;`` at file scope, as C++
        has it: ``NAME`` alone names the type (a ``typedef struct NAME NAME;`` is appended
        after the ``;``, on the same line), the base list is blanked (its fields come first,
        kpl.fe.types) and the alignment is recorded."""
        toks = self.toks
        kw = toks[a].v
        align = 0
        name = ""
        bases: list[str] = []
        k = a + 1
        while k < lbrace:
            v = toks[k].v
            if v in ("__align__", "alignas") and k + 1 < lbrace and toks[k + 1].v == "(":
                close = self.match.get(k + 1, k + 1)
                align = eval_int(self.text[toks[k + 2].start:toks[close - 1].end]) or 0 \
                    if close > k + 2 else 0
                self.kill(k, close)
                k = close + 1
                continue
            if v == ":" and name:
                self.kill(k, lbrace - 1)
                bases = [t.v for t in toks[k + 1:lbrace]
                         if t.kind == "id" and t.v not in ("public", "private", "protected",
                                                           "virtual")]
                break
            if toks[k].kind == "id" and v not in ATTR_FUNCS:
                name = v
            k += 1
        if not name:
            return
        self.out.structs[name] = (tuple(bases), align)
        self.type_names.add(name)
        end = toks[semi].end
        self.edits.replace(end, end, f" typedef {kw} {name} {name};")

    def _auto_function(self, i: int) -> bool:
        """``auto op = f;`` / ``auto op = &f;`` with ``f`` a ``__device__`` function: a
        function pointer, which the front end keeps as an int holding the function's number
        (kpl.fe.calls: a call through it is a guarded chain of the possible targets)."""
        toks = self.toks
        k = i + 3 + (i + 3 < len(toks) and toks[i + 3].v == "&")
        if k + 1 >= len(toks) or toks[i + 1].kind != "id" or toks[i + 2].v != "=" \
                or toks[k + 1].v != ";":
            return False
        info = self.out.functions.get(toks[k].v)
        if info is None or info.kind != "device":
            return False
        self.edits.replace(toks[i].start, toks[i].end, "int ")
        return True

    def _lambda(self, i: int) -> bool:
        """A lambda expression ``[captures](params) {...}``: not supported yet, refused with
        its position rather than left to a syntax error."""
        toks = self.toks
        close = self.match.get(i, -1)
        prev = toks[i - 1].v if i > 0 else ""
        if close < 0 or close + 1 >= len(toks) or toks[close + 1].v not in ("(", "{") \
                or prev not in ("=", "(", ",", "return", "{", ";", "}"):
            return False
        raise self.err("unsupported: lambda expression (write it as a __device__ function; "
                       "its captures would be the function's parameters)", i)
