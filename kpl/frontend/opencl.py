"""OpenCL C kernels: the language, its address spaces, and how its AST differs from CUDA's.

WHY one more language is this small: clang parses OpenCL C (``-x cl``) into the same JSON AST
as CUDA, with our own declarations (``include/__autosync_opencl_c*.h``) in place of clang's
``opencl-c.h``.  What differs is said here, mapped onto the KPL the CUDA path produces:

* a kernel is a function with clang's ``DeviceKernelAttr`` (``__kernel``; older clangs:
  ``OpenCLKernelAttr``);
* address spaces are part of the type (``__local float[64]``, ``__global float *__private``):
  ``__local`` is KPL's ``SHARED``, ``__global`` ``GLOBAL``, ``__constant`` ``CONSTANT``,
  ``__private`` a thread's own (:func:`own_space`, :func:`pointee_space`);
* the work-item functions are expressions of the built-in dimensions
  (``get_local_id(d)`` → ``threadIdx``, ``get_group_id`` → ``blockIdx``, ``get_local_size`` →
  ``blockDim``, ``get_num_groups`` → ``gridDim``, ``get_global_id(d)`` →
  ``blockIdx*blockDim + threadIdx``: the global offset is taken to be 0, as GPUVerify does);
* ``barrier(flags)`` / ``work_group_barrier(flags[, scope])`` are barriers that order the
  spaces their flags name (:func:`fence_spaces`; flags known only at run time fence nothing
  for certain); ``sub_group_barrier`` is a warp-level
  barrier that orders nothing (a sub-group's size is the device's: no pair of work-items
  is known to share one); ``mem_fence`` & co. order nothing between work-items;
* the atomics ``atomic_*``, ``atom_*`` and OpenCL 2.0's ``atomic_fetch_*`` are the CUDA
  atomics' model (``atomic_inc(p)`` is ``atomicAdd(p, 1)``, not CUDA's wrapping increment);
* ``async_work_group_copy(dst, src, n, e)`` is the group's copy: each work-item reads one
  element of ``src`` and writes it to ``dst`` at an index it does not know in advance
  (any index below ``n``: so every element may be written by any work-item, and a plain
  access of the destination by another work-item before the wait is a race); that read and
  write are the copy's (``Assign.async_copy``): the parts of one execution of a copy by two
  work-items never conflict (each element is copied once), the copy's accesses last until
  a wait completes them (a barrier does not: the copy is asynchronous), and a copy reached
  by part of the group is divergence, as a barrier.  ``wait_group_events`` is NOT a barrier
  (:class:`~kpl.ast.WaitEvents`): OpenCL C 1.2 §6.12.10 promises only that the copies are
  complete for the whole group when it returns, so the copies' accesses before it race with
  nothing after it, while plain accesses of different work-items around it still race
  (their barrier interval goes on).  It is a work-group function: reached by part of the
  group, it is reported as barrier divergence.  Strided copies: the same with the stride.
  Known limits: a wait that does not name every copy in flight completes none of them
  (:mod:`kpl.frontend.opencl_events`, which follows the events through the kernel's
  top-level statements); where the events cannot be followed (a copy or a wait in a branch
  or a loop) a wait is taken to complete every copy issued before it, whichever events it
  names (unsound for a kernel that waits for one copy and reads the destination of
  another, not yet waited for, there).
* vector components (clang's ``ExtVectorElementExpr``: ``v.x``, ``v.s1``, ``v.xy``,
  ``v.lo``) and vector literals (``(float4)(a, b, c, d)``, a splat ``(float4)(x)``) are
  rewritten by :func:`normalize` into the member accesses and initialiser lists the CUDA
  path reads (a swizzle of several components is a value; a store to one is a store per
  component, :meth:`~kpl.frontend.access.AccessTranslation.assignment`);
* ``__attribute__((reqd_work_group_size(X, Y, Z)))`` is the kernel's local size
  (:func:`required_size`); a launch stating another is bad input (:func:`check_required_size`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from kpl import ast as K
from kpl.errors import KplError
from kpl.frontend import tree
from kpl.frontend.consteval import ConstEval
from kpl.frontend.tree import Node
from kpl.frontend.types import ext_vector, vector_type

#: the languages the front end reads
LANGUAGES = ("cuda", "opencl")
#: file name endings read as OpenCL C
OPENCL_SUFFIXES = (".cl",)
#: the kernel attribute clang gives ``__kernel`` (clang >= 21; before: ``OpenCLKernelAttr``)
KERNEL_ATTRS = ("DeviceKernelAttr", "OpenCLKernelAttr")
#: ``CLK_LOCAL_MEM_FENCE`` and ``CLK_GLOBAL_MEM_FENCE`` (our header's values)
LOCAL_FENCE, GLOBAL_FENCE = 1, 2
_SPACES = {"__local": K.Space.SHARED, "__global": K.Space.GLOBAL, "__constant": K.Space.CONSTANT,
           "__private": K.Space.LOCAL}
_SPACE_WORD = re.compile(r"\b(__local|__global|__constant|__private|__generic)\b")


def language_of(path: str, language: str | None = None) -> str:
    """The language of ``path``: ``language`` when given (``--language``), else OpenCL C for
    a ``.cl`` file and CUDA for any other."""
    if language:
        return language
    return "opencl" if path.lower().endswith(OPENCL_SUFFIXES) else "cuda"


def is_kernel(func: Node) -> bool:
    return any(tree.has_attr(func, a) for a in KERNEL_ATTRS)


def own_space(type_text: str) -> K.Space | None:
    """Where a variable of type ``type_text`` lives (its outermost address space): ``__local
    float[64]`` → SHARED; ``__local float *__private`` → LOCAL (a private pointer)."""
    level = type_text.rsplit("*", 1)[-1] if "*" in type_text else type_text
    m = _SPACE_WORD.search(level)
    return _SPACES.get(m.group(1)) if m else None


def pointee_space(type_text: str) -> K.Space | None:
    """The address space a pointer type points into (``__local float *`` → SHARED)."""
    if "*" not in type_text:
        return None
    m = _SPACE_WORD.search(type_text.rsplit("*", 1)[0])
    return _SPACES.get(m.group(1)) if m else None


def fence_spaces(flags: int) -> frozenset[K.Space]:
    """The spaces ``barrier(flags)`` orders: local memory for ``CLK_LOCAL_MEM_FENCE``, global
    memory for ``CLK_GLOBAL_MEM_FENCE`` (an image fence orders no array we model)."""
    out = set()
    if flags & LOCAL_FENCE:
        out.add(K.Space.SHARED)
    if flags & GLOBAL_FENCE:
        out.add(K.Space.GLOBAL)
    return frozenset(out)


def required_size(func: Node, index: tree.DeclIndex) -> tuple[tuple[int, int, int], Node] | None:
    """X, Y, Z of OpenCL C's ``__attribute__((reqd_work_group_size(X, Y, Z)))`` (constant
    expressions) and the attribute's node, or None."""
    for attr in tree.children(func):
        if tree.kind(attr) == "ReqdWorkGroupSizeAttr" and len(tree.children(attr)) == 3:
            x, y, z = (ConstEval(index).value(c) for c in tree.children(attr))
            if x is None or y is None or z is None:
                return None  # clang rejects a size that is not constant: not reached
            return (x, y, z), attr
    return None


def check_required_size(required: K.RequiredSize, stated: Any, source: str) -> None:
    """Bad input where ``source`` (the command line, the header, the configuration, a host
    launch) states a local size other than the one ``reqd_work_group_size`` requires: such a
    launch does not run (``CL_INVALID_WORK_GROUP_SIZE``), so no verdict for it means anything.
    A dimension ``stated`` leaves open (None, an expression) is no conflict."""
    if stated is None:
        return
    given = (stated, 1, 1) if isinstance(stated, int) else tuple(v if isinstance(v, int) else None for v in stated)
    if all(g is None or g == r for g, r in zip(given, required.dims, strict=False)):
        return
    x, y, z = required.dims
    shown = "[" + ",".join("*" if g is None else str(g) for g in given) + "]"
    raise KplError(f"reqd_work_group_size({x}, {y}, {z}) conflicts with the local size {shown} of "
                   f"{source}", required.file, required.line, required.col)


# --------------------------------------------------------------------------- the AST rewrite


def _vector_of(node: Node) -> K.CType | None:
    text = tree.qual_type(node)
    vec = ext_vector(text) if "ext_vector_type" in text else None
    if vec is None:
        name = _SPACE_WORD.sub("", tree.written_type(node)).replace("const", "").strip()
        vec = vector_type(name) if name else None
    return vec


def _components(accessor: str, width: int) -> list[int] | None:
    """The component indices of a vector accessor (``xy``, ``s01``, ``lo``, ``even`` …)."""
    half = (width + 1) // 2 if width != 3 else 2
    named = {"lo": list(range(half)), "hi": list(range(half, 2 * half)),
             "even": list(range(0, 2 * half, 2)), "odd": list(range(1, 2 * half, 2))}
    if accessor in named:
        return named[accessor]
    if accessor[:1] in ("s", "S"):
        try:
            return [int(c, 16) for c in accessor[1:]]
        except ValueError:
            return None
    letters = "xyzw" if accessor[0] in "xyzw" else "rgba"
    if any(c not in letters for c in accessor):
        return None
    return [letters.index(c) for c in accessor]


def _member(base: Node, field: str, elem_type: dict[str, Any], like: Node) -> Node:
    return {"id": f"{like.get('id')}.{field}", "kind": "MemberExpr", "name": field,
            "isArrow": False, "range": like.get("range"), "type": elem_type,
            "valueCategory": like.get("valueCategory", "prvalue"), "inner": [base]}


def normalize(node: Node, token: Callable[[dict[str, Any]], str]) -> None:
    """Rewrite, in place and bottom-up, the vector forms of OpenCL C into those the CUDA path
    reads (module docstring).  clang's JSON does not print a vector accessor: it is the last
    token of the node, ``token(location)`` reads it.  A component beyond a vector's width, or
    an accessor we do not know, stays an ``ExtVectorElementExpr`` (an error where used)."""
    for child in tree.children(node):
        normalize(child, token)
    k = tree.kind(node)
    if k == "ExtVectorElementExpr" and tree.children(node):
        base = tree.children(node)[0]
        vec = _vector_of(base)
        accessor = token((node.get("range") or {}).get("end") or {})
        picks = _components(accessor, len(vec.fields)) if vec and accessor else None
        if vec is None or picks is None or any(i >= len(vec.fields) for i in picks):
            return
        if len(picks) == 1:
            node.update(kind="MemberExpr", name=vec.fields[picks[0]], isArrow=False)
            return
        elem = {"qualType": vec.elem.name if vec.elem else "float"}
        node["kind"] = "InitListExpr"
        node["valueCategory"] = "prvalue"
        node["inner"] = [_member(base, vec.fields[i], elem, node) for i in picks]
        return
    if k in ("CStyleCastExpr", "ImplicitCastExpr") and node.get("castKind") == "VectorSplat":
        vec = _vector_of(node)
        if vec is not None and tree.children(node):
            value = tree.children(node)[0]
            node.update(kind="InitListExpr", inner=[value] * len(vec.fields))
            node.pop("castKind", None)
        return
    if k == "CompoundLiteralExpr" and _vector_of(node) is not None:
        inner = tree.children(node)
        if len(inner) == 1 and tree.kind(inner[0]) == "InitListExpr":  # (float4)(a, b, c, d)
            node.update(kind="InitListExpr", inner=tree.children(inner[0]))
        return
    if k == "InitListExpr":
        vec = _vector_of(node)
        if vec is None:
            return
        flat: list[Node] = []
        for part in tree.children(node):
            sub = _vector_of(part)
            if sub is None:
                flat.append(part)
                continue
            elem = {"qualType": sub.elem.name if sub.elem else "float"}
            flat.extend(_member(part, f, elem, part) for f in sub.fields)
        node["inner"] = flat


__all__ = ["KERNEL_ATTRS", "LANGUAGES", "OPENCL_SUFFIXES", "check_required_size", "fence_spaces",
           "is_kernel", "language_of", "normalize", "own_space", "pointee_space", "required_size"]
