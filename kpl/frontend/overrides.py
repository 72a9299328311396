"""A user's function of the same name and signature as one of our headers' built-ins.

nvcc lets a file define its own ``__device__ float max(float, float)`` (or ``min``, ``abs``…)
beside CUDA's, and the file's own is the one its calls mean.  clang refuses the pair
("``__device__`` function 'max' cannot overload ``__host__ __device__`` function 'max'"), marks
the user's declaration invalid and resolves every call to ours.  We follow nvcc:

* a user's definition (with a body) of a built-in's exact signature replaces the built-in:
  :func:`user_override` hands it to the call, which inlines it like any other function;
* a user's declaration without a body of that signature is a redeclaration of the built-in,
  whose model stays;
* clang's error for either does not stop the kernel (:func:`tolerated_overload`).
"""

from __future__ import annotations

import re

from kpl.frontend import tree
from kpl.frontend.state import Unit
from kpl.frontend.tree import Node

_OVERLOAD = re.compile(r"^__device__ function '(\w+)' cannot overload __host__ __device__ function '\1'$")


def _overrides(unit: Unit) -> dict[tuple[str, str], Node]:
    """(name, type) -> the user's definition, for the file-scope functions clang found invalid
    next to a built-in of ours (computed once per file)."""
    if unit.overrides is None:
        found: dict[tuple[str, str], Node] = {}
        for node in tree.children(unit.tu):
            if tree.kind(node) == "FunctionDecl" and node.get("isInvalid") and tree.body_of(node) is not None:
                loc = tree.location(node.get("loc")) or {}
                if not str(loc.get("file", "")).startswith(unit.bundled_dir):
                    found[(str(node.get("name")), tree.written_type(node))] = node
        unit.overrides = found
    return unit.overrides


def user_override(unit: Unit, func: Node) -> Node | None:
    """The user's definition that replaces ``func``, a function of our headers, or None."""
    loc = tree.location(func.get("loc")) or {}
    if not str(loc.get("file", "")).startswith(unit.bundled_dir):
        return None
    return _overrides(unit).get((str(func.get("name")), tree.written_type(func)))


def tolerated_overload(unit: Unit, message: str, file: str, line: int) -> Node | None:
    """The user's declaration at ``file:line`` that clang refused (``message``) for standing
    beside a built-in of ours of the same signature; None for any other error."""
    m = _OVERLOAD.match(message)
    if m is None:
        return None
    builtin = user = None
    for node in tree.children(unit.tu):
        if tree.kind(node) == "FunctionDecl" and node.get("name") == m.group(1):
            loc = tree.location(node.get("loc")) or {}
            if str(loc.get("file", "")).startswith(unit.bundled_dir):
                builtin = node
            elif loc.get("file") == file and loc.get("line") == line:
                user = node
    return user if builtin is not None else None
