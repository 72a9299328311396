"""Where a kernel's launch configuration comes from, when the file is real CUDA code.

A GPUVerify-style kernel file states its launch in a ``//--blockDim=… --gridDim=…`` header; a
file of a CUDA code base does not, but often launches its kernel itself
(``k<<<grid, block>>>(…)``).  The lowering needs concrete ``blockDim``/``gridDim`` (they are
constants of the KPL program), so this module decides them BEFORE the front end lowers a
kernel, in this order, per dimension:

1. the command line (``--blockDim`` / ``--gridDim``);
2. the GPUVerify header of the file;
3. the project configuration (``[tool.autosync]`` in ``pyproject.toml`` or ``.autosync.toml``,
   found upward from the file, see :mod:`autosync.pipeline.project`), per kernel or for all kernels;
4. host-side launches of the kernel in the same translation unit whose arguments are
   constants (integer expressions, ``dim3(…)`` of constants, variables assigned constants,
   ``#define``/``const int`` names) -- every distinct configuration is checked;
5. ``__launch_bounds__(N)``: ``blockDim = N`` (the largest block the kernel accepts);
6. the default :data:`DEFAULT_BLOCK` / :data:`DEFAULT_GRID`, with a note on stderr.

The host code is read on the raw text with :mod:`kpl.tokens` (the front end ignores host
code).  Where each kernel's launch came from is kept in :data:`SOURCES` for the reports.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from kpl.ast import Kernel
from kpl.tokens import Tok, eval_int, match_brackets, split_commas, tokenize

Dim3 = tuple[int, int, int]

#: the launch assumed when nothing states one (documented in the README, "Launch configuration")
DEFAULT_BLOCK: Dim3 = (256, 1, 1)
DEFAULT_GRID: Dim3 = (64, 1, 1)


@dataclass(frozen=True)
class HostLaunch:
    """One ``k<<<grid, block, …>>>(…)`` whose dimensions are constants."""

    kernel: str
    grid_dim: Dim3
    block_dim: Dim3
    line: int
    col: int


@dataclass(frozen=True)
class LaunchChoice:
    """The launch a kernel is checked under, and where each dimension came from."""

    block_dim: Dim3
    grid_dim: Dim3
    block_source: str
    grid_source: str
    defines: tuple[tuple[str, str], ...] = ()

    @property
    def source(self) -> str:
        if self.block_source == self.grid_source:
            return self.block_source
        return f"blockDim: {self.block_source}; gridDim: {self.grid_source}"

    def as_json(self) -> dict[str, object]:
        return {"blockDim": list(self.block_dim), "gridDim": list(self.grid_dim), "source": self.source}


#: kernel -> the launch it was lowered under (filled by :func:`autosync.pipeline.project.load`)
SOURCES: weakref.WeakKeyDictionary[Kernel, LaunchChoice] = weakref.WeakKeyDictionary()


def launch_json(kernel: Kernel) -> dict[str, object]:
    """The ``"launch"`` member of a kernel's JSON result."""
    choice = SOURCES.get(kernel)
    if choice is not None:
        return choice.as_json()
    return {"blockDim": list(kernel.launch.block_dim), "gridDim": list(kernel.launch.grid_dim),
            "source": "unknown"}


def _dims(dim: Dim3) -> str:
    """A launch argument as CUDA code writes it: ``4``, ``dim3(16, 8)``, ``dim3(8, 4, 2)``."""
    x, y, z = dim
    return str(x) if (y, z) == (1, 1) else f"dim3({x}, {y})" if z == 1 else f"dim3({x}, {y}, {z})"


def launch_text(kernel: Kernel) -> str:
    """The launch ``kernel`` was checked under, for a text report that must tell several
    launches of one kernel apart: ``launch <<<4, 32>>> at k.cu:12`` (a host launch) or
    ``launch <<<4, 32>>> from command line`` (any other source)."""
    choice = SOURCES.get(kernel)
    block, grid = (choice.block_dim, choice.grid_dim) if choice else (kernel.launch.block_dim,
                                                                      kernel.launch.grid_dim)
    source = choice.source if choice else "unknown"
    where = source.removeprefix("host launch ")
    return f"launch <<<{_dims(grid)}, {_dims(block)}>>> " + (where if where != source else f"from {source}")


# --------------------------------------------------------------------------- constants of the host code

_DEFINE_RE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+([^\n]*?)[ \t]*(?://[^\n]*)?$", re.M)
_SCALAR_TYPES = {"int", "unsigned", "long", "short", "size_t", "const", "constexpr", "static", "auto",
                 "uint32_t", "int32_t", "int64_t", "uint64_t", "char", "signed"}


def _line_col(text: str, pos: int) -> tuple[int, int]:
    from kpl.lineindex import LineIndex

    return LineIndex(text).line_col(pos)


class _Consts:
    """Integer and ``dim3`` constants of the translation unit (a name assigned two different
    values is dropped: we only trust what is the same everywhere)."""

    def __init__(self, text: str, toks: list[Tok], match: dict[int, int], defines: dict[str, str]) -> None:
        self.text = text
        self.toks = toks
        self.match = match
        self.ints: dict[str, int | None] = {}
        self.dims: dict[str, Dim3 | None] = {}
        raw: dict[str, str] = {m.group(1): m.group(2) for m in _DEFINE_RE.finditer(text)}
        raw.update(defines)
        for _ in range(3):  # defines that use other defines
            for name, body in raw.items():
                value = self.eval(body)
                if value is not None:
                    self.ints[name] = value
        self._scan()

    def _set(self, table: dict, name: str, value: object) -> None:  # type: ignore[type-arg]
        if name in table and table[name] != value:
            table[name] = None
        else:
            table[name] = value

    def _scan(self) -> None:
        toks = self.toks
        for i, t in enumerate(toks):
            if t.kind != "id" or i + 2 >= len(toks):
                continue
            prev = toks[i - 1].v if i else ""
            nxt = toks[i + 1].v
            if prev == "dim3" and nxt in ("(", "{") and i + 1 in self.match:
                close = self.match[i + 1]
                self._set(self.dims, t.v, self.dim_args(i + 2, close))
            elif prev == "dim3" and nxt == "=":
                end = self._stmt_end(i + 2)
                self._set(self.dims, t.v, self.dim(i + 2, end))
            elif nxt == "=" and (prev in _SCALAR_TYPES or prev in (",",)):
                end = self._stmt_end(i + 2)
                self._set(self.ints, t.v, self.eval(self._span(i + 2, end)))

    def _stmt_end(self, k: int) -> int:
        toks = self.toks
        while k < len(toks) and toks[k].v not in (";", ",", ")", "}"):
            if toks[k].v in "([{" and k in self.match:
                k = self.match[k]
            k += 1
        return k

    def _span(self, a: int, b: int) -> str:
        if a >= b:
            return ""
        return self.text[self.toks[a].start:self.toks[b - 1].end]

    def eval(self, expr: str) -> int | None:
        """An integer constant expression over known names (C integer division)."""
        def sub(m: re.Match[str]) -> str:
            name = m.group(0)
            value = self.ints.get(name)
            return f"({value})" if value is not None else name
        body = re.sub(r"\b[A-Za-z_]\w*\b", sub, expr)
        body = re.sub(r"(?<![/])/(?![/])", "//", body)
        value = eval_int(body)
        return value if value is not None and value > 0 else None

    def dim_args(self, a: int, b: int) -> Dim3 | None:
        vals = []
        for s, e in split_commas(self.toks, a, b, self.match):
            v = self.eval(self._span(s, e))
            if v is None:
                return None
            vals.append(v)
        if not 1 <= len(vals) <= 3:
            return None
        vals += [1, 1]
        return (vals[0], vals[1], vals[2])

    def dim(self, a: int, b: int) -> Dim3 | None:
        """A launch argument: ``dim3(…)``, ``dim3 name``, or an integer expression."""
        toks = self.toks
        if a >= b:
            return None
        if toks[a].v == "dim3" and a + 1 < b and toks[a + 1].v in ("(", "{") and self.match.get(a + 1) == b - 1:
            return self.dim_args(a + 2, b - 1)
        if b == a + 1 and toks[a].kind == "id" and toks[a].v in self.dims:
            return self.dims[toks[a].v]
        value = self.eval(self._span(a, b))
        return (value, 1, 1) if value is not None else None


def host_launches(text: str, defines: dict[str, str] | None = None) -> tuple[dict[str, list[HostLaunch]],
                                                                            dict[str, tuple[int, int]]]:
    """Constant host launches per kernel name, and the position of the first launch of each
    kernel whose configuration is NOT constant (reported, never guessed)."""
    toks = tokenize(text)
    match = match_brackets(toks)
    consts = _Consts(text, toks, match, defines or {})
    found: dict[str, list[HostLaunch]] = {}
    unknown: dict[str, tuple[int, int]] = {}
    for i in range(1, len(toks) - 1):
        if not (toks[i].v == "<<" and toks[i + 1].v == "<" and toks[i].end == toks[i + 1].start):
            continue
        k = i - 1
        if toks[k].v == ">":  # k<T><<<…>>>: skip the template arguments
            depth = 0
            while k > 0:
                depth += toks[k].v == ">"
                depth -= toks[k].v == "<"
                if depth == 0:
                    break
                k -= 1
            k -= 1
        if k < 0 or toks[k].kind != "id":
            continue
        name = toks[k].v
        end = i + 2
        while end + 1 < len(toks) and not (toks[end].v == ">>" and toks[end + 1].v == ">"):
            if toks[end].v == ";":
                break
            end += 1
        line, col = _line_col(text, toks[k].start)
        args = split_commas(toks, i + 2, end, match)
        grid = consts.dim(*args[0]) if len(args) >= 2 else None
        block = consts.dim(*args[1]) if len(args) >= 2 else None
        if grid is None or block is None:
            unknown.setdefault(name, (line, col))
            continue
        found.setdefault(name, []).append(HostLaunch(name, grid, block, line, col))
    from autosync.pipeline.opencl_launch import opencl_launches  # OpenCL's clEnqueueNDRangeKernel

    cl_found, cl_unknown = opencl_launches(text, defines)
    for name, grid, block, pos in cl_found:
        found.setdefault(name, []).append(HostLaunch(name, grid, block, *_line_col(text, pos)))
    for name, pos in cl_unknown.items():
        unknown.setdefault(name, _line_col(text, pos))
    return found, unknown


def distinct(launches: list[HostLaunch]) -> list[HostLaunch]:
    """One launch per distinct (gridDim, blockDim), first occurrence kept."""
    seen: set[tuple[Dim3, Dim3]] = set()
    out = []
    for launch in launches:
        key = (launch.grid_dim, launch.block_dim)
        if key not in seen:
            seen.add(key)
            out.append(launch)
    return out


def with_launch(choice: LaunchChoice, block: Dim3 | None = None, grid: Dim3 | None = None) -> LaunchChoice:
    return replace(choice, block_dim=block or choice.block_dim, grid_dim=grid or choice.grid_dim)


__all__ = ["DEFAULT_BLOCK", "DEFAULT_GRID", "HostLaunch", "LaunchChoice", "SOURCES", "launch_json", "launch_text",
           "host_launches", "distinct"]


def add_launches(doc: dict[str, Any], results: Sequence[tuple[Any, Any, str]]) -> dict[str, Any]:
    """Name the launch each kernel was checked under in a ``check --format json`` document
    (``results`` are the (LabelLocator, Verdict, oracle) triples the document was made from)."""
    launches = [launch_json(loc.kernel) for loc, _, _ in results]
    for entry, launch in zip(doc.get("kernels", []), launches, strict=True):
        entry["launch"] = launch
    if len(launches) == 1:
        doc["launch"] = launches[0]
    return doc
