"""OpenCL host launches: ``clEnqueueNDRangeKernel`` calls whose sizes are constants (issue 29).

The OpenCL twin of the ``k<<<grid, block>>>`` launches :mod:`autosync.pipeline.launch` reads:
in a file that holds host code next to its kernels, a kernel object made by
``clCreateKernel(program, "name", …)`` and enqueued by
``clEnqueueNDRangeKernel(queue, kernel, dims, offset, global, local, …)`` runs with
``local`` work-items per group and ``global / local`` groups per dimension.  ``global`` and
``local`` are read when they are arrays initialised with constants (``size_t g[2] = {1024,
768};``) or the address of a constant scalar (``&n``); a ``NULL`` local size (the
implementation's choice), a size that is not a multiple of the local size, or anything
else not constant is not a launch we can state (never guessed: the next source of the
launch order applies).  Read on the raw text with :mod:`kpl.tokens`, as the CUDA launches.
"""

from __future__ import annotations

import re

from kpl.tokens import eval_int, match_brackets, split_commas, tokenize

Dim3 = tuple[int, int, int]

_KERNEL = re.compile(r"\b([A-Za-z_]\w*)\s*=\s*clCreateKernel\s*\(\s*[^,]+,\s*\"([A-Za-z_]\w*)\"")
_ARRAY = re.compile(r"\b([A-Za-z_]\w*)\s*\[\s*\w*\s*\]\s*=\s*\{([^{}]*)\}")
_SCALAR = re.compile(r"\b(?:size_t|int|unsigned|long|const\s+\w+)\s+([A-Za-z_]\w*)\s*=\s*([^;,{}]+);")
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+([^\n]+)$", re.M)


def _constants(text: str, defines: dict[str, str]) -> dict[str, int]:
    raw = {m.group(1): m.group(2).strip() for m in _DEFINE.finditer(text)}
    raw.update(defines)
    for m in _SCALAR.finditer(text):
        raw.setdefault(m.group(1), m.group(2).strip())
    values: dict[str, int] = {}
    for _ in range(3):  # names defined by other names
        for name, body in raw.items():
            value = _eval(body, values)
            if value is not None:
                values[name] = value
    return values


def _eval(expr: str, values: dict[str, int]) -> int | None:
    body = re.sub(r"\b[A-Za-z_]\w*\b",
                  lambda m: f"({values[m.group(0)]})" if m.group(0) in values else m.group(0), expr)
    body = re.sub(r"(?<![/])/(?![/])", "//", body)
    value = eval_int(body)
    return value if value is not None and value > 0 else None


def _sizes(arg: str, dims: int, arrays: dict[str, list[int]], values: dict[str, int]) -> Dim3 | None:
    arg = arg.strip()
    if arg.startswith("&"):
        value = values.get(arg[1:].strip())
        got = [value] if value is not None else None
    else:
        got = arrays.get(arg)
    if got is None or len(got) < dims:
        return None
    out = list(got[:dims]) + [1, 1, 1]
    return (out[0], out[1], out[2])


def opencl_launches(text: str, defines: dict[str, str] | None = None) -> tuple[
        list[tuple[str, Dim3, Dim3, int]], dict[str, int]]:
    """``(kernel name, groups, local size, offset of the call)`` of each constant
    ``clEnqueueNDRangeKernel`` of ``text``, and the offset of the first non-constant one per
    kernel name (reported by the caller, never guessed)."""
    if "clEnqueueNDRangeKernel" not in text:
        return [], {}
    values = _constants(text, defines or {})
    kernels = {m.group(1): m.group(2) for m in _KERNEL.finditer(text)}
    arrays: dict[str, list[int]] = {}
    for m in _ARRAY.finditer(text):
        items = [_eval(x, values) for x in m.group(2).split(",") if x.strip()]
        if items and all(v is not None for v in items):
            arrays[m.group(1)] = [v for v in items if v is not None]
    toks = tokenize(text)
    match = match_brackets(toks)
    found: list[tuple[str, Dim3, Dim3, int]] = []
    unknown: dict[str, int] = {}
    for i, tok in enumerate(toks):
        if tok.v != "clEnqueueNDRangeKernel" or i + 1 >= len(toks) or toks[i + 1].v != "(" \
                or i + 1 not in match:
            continue
        args = [text[toks[a].start:toks[b - 1].end] if b > a else ""
                for a, b in split_commas(toks, i + 2, match[i + 1], match)]
        if len(args) < 6 or args[1].strip() not in kernels:
            continue
        name = kernels[args[1].strip()]
        dims = _eval(args[2], values)
        glob = _sizes(args[4], dims, arrays, values) if dims in (1, 2, 3) else None
        local = _sizes(args[5], dims, arrays, values) if dims in (1, 2, 3) else None
        if glob is None or local is None or any(g % s for g, s in zip(glob, local, strict=True)):
            unknown.setdefault(name, tok.start)
            continue
        groups = (glob[0] // local[0], glob[1] // local[1], glob[2] // local[2])
        found.append((name, groups, local, tok.start))
    return found, unknown


__all__ = ["opencl_launches"]
