"""Which of clang's errors stop a kernel, and where they are shown.

clang reads the whole file, host code included, and reports every error; only some of them
concern a kernel.  An error stops a kernel when it lies inside the kernel or inside a
function or class the kernel reaches (in the kernel's file or a user header); braces that
do not balance and explicit instantiations clang cannot make stop every kernel; an error in
host code, or in a function no kernel reaches, stops none.  clang counts columns in bytes;
they are shown in characters, as everywhere else.
"""

from __future__ import annotations

import os
import re

from kpl.errors import KplError
from kpl.frontend import tree
from kpl.frontend.clang import ClangResult
from kpl.frontend.overrides import tolerated_overload
from kpl.frontend.state import Unit
from kpl.frontend.tree import Node
from kpl.textio import decode_source, encode_source


def check_errors(result: ClangResult, unit: Unit, func: Node, path: str) -> None:
    """Stop this kernel at clang's first error inside it or a function it reaches."""
    if not result.errors:
        return
    ranges = _reached_ranges(unit, func)
    main_dir = os.path.dirname(os.path.abspath(path))
    for err in result.errors:
        if err.file == result.main_file:
            data, shown = _bytes_of(unit.text), path
        elif os.path.realpath(err.file) in unit.files:  # a user header the kernel's file includes
            data = _bytes_of(unit.files[os.path.realpath(err.file)])
            shown = os.path.normpath(os.path.join(os.path.dirname(path), os.path.relpath(err.file, main_dir)))
        else:
            continue
        offset = _byte_offset(data, err.line, err.col)
        own = tolerated_overload(unit, err.message, err.file, err.line)
        if own is not None:
            where = (err.line, _char_column(data, offset, err.col)) if shown == path else (None, None)
            unit.note(f"'{own.get('name')}' {'defined' if tree.body_of(own) else 'declared'} here has "
                      "the signature of a CUDA built-in: nvcc accepts it, and its calls use "
                      f"{'this definition' if tree.body_of(own) else 'the built-in'}", *where)
            continue
        if err.message == _DEVICE_SHARED_LOCAL and _shared_local_at(unit, err.file, offset):
            where = (err.line, _char_column(data, offset, err.col)) if shown == path else (None, None)
            unit.note("'__device__ __shared__' on a local variable is read as '__shared__', as "
                      "nvcc reads it", *where)
            continue
        if unit.gpuverify_style and _KERNEL_PARAM.search(err.message):
            # OpenCL C's rule against size_t & co. as kernel parameters is the host ABI's, not
            # the kernel's meaning: GPUVerify reads such a kernel, and so do we (said once)
            unit.note(f"{err.message}: read as GPUVerify does, a value of that type", err.line,
                      _char_column(data, offset, err.col))
            continue
        # braces that do not balance decide which text is the kernel: they stop every kernel
        if offset < 0 or err.message in _UNBALANCED or err.message.startswith(_INSTANTIATION) or any(
                f == err.file and lo <= offset <= hi for f, lo, hi in ranges):
            message = err.message
            host = _HOST_VARIABLE.match(message)
            if host and host.group(1) in unit.host_globals:  # GPUVerify's global memory
                decl = unit.host_globals[host.group(1)]
                loc = tree.location(decl.get("loc")) or {}
                unit.note(f"file-scope variable '{host.group(1)}' has no memory space: global memory, "
                          "as GPUVerify reads it", *_decl_line_col(unit, loc))
                continue
            if result.missing and message.startswith(_UNDECLARED):
                # the declaration may live in a header that resolved nowhere (an empty stand-in)
                names = ", ".join(f"'{m}'" for m in sorted(result.missing))
                message += f" (included header not found: {names})"
            raise KplError(message, shown, err.line, _char_column(data, offset, err.col))


#: clang's error for a file-scope variable with no memory space used in device code
_HOST_VARIABLE = re.compile(r"reference to __host__ variable '([^']+)' in __(?:global|device)__ function")


def _decl_line_col(unit: Unit, loc: dict[str, object]) -> tuple[int | None, int | None]:
    """Line and column of a declaration in the kernel's file (None elsewhere)."""
    if loc.get("file") not in (None, "", unit.clang_main) or "offset" not in loc:
        return None, None
    return unit.source.line_col(unit.position.char(int(str(loc["offset"]))))


#: OpenCL C's error for a kernel parameter of a type the host cannot pass (size_t, bool, …)
_KERNEL_PARAM = re.compile(r"cannot be used as the type of a kernel parameter")


#: clang's error for ``__device__ __shared__`` on a variable inside a function: nvcc takes it as
#: ``__shared__``, and so does clang's AST (the variable keeps its ``__shared__`` only)
_DEVICE_SHARED_LOCAL = "__constant__, __device__, and __managed__ are not allowed on non-static local variables"


def _shared_local_at(unit: Unit, file: str, offset: int) -> bool:
    """Whether a ``__shared__`` variable's declaration begins at byte ``offset`` of ``file``."""
    for n in tree.walk(unit.tu):
        if tree.kind(n) == "VarDecl" and tree.has_attr(n, "CUDASharedAttr"):
            begin = tree.location(n.get("range", {}).get("begin")) or {}
            if begin.get("file") == file and begin.get("offset") == offset:
                return True
    return False


#: an explicit instantiation clang cannot make: the kernel instance it asks for would go unchecked
_INSTANTIATION = "explicit instantiation"
#: clang's errors for braces that do not balance (a stray ``}`` at file scope, one missing)
_UNBALANCED = ("extraneous closing brace ('}')", "expected '}'")


def _char_column(data: bytes, offset: int, col: int) -> int:
    """clang counts columns in bytes; the user's editor (and every other message of ours) in
    characters: a UTF-8 ``é`` before the error is one column, not two."""
    if offset < 0:
        return col
    line_start = data.rfind(b"\n", 0, offset) + 1
    return len(decode_source(data[line_start:offset])) + 1


def _bytes_of(text: str) -> bytes:
    return encode_source(text)


def _byte_offset(data: bytes, line: int, col: int) -> int:
    """Byte offset of clang's 1-based ``line``/``col`` (col counts bytes) in ``data``; -1 past
    its end (the text appended to the user's: ``--kernel 'k<32>'`` instantiations)."""
    start = 0
    for _ in range(line - 1):
        start = data.find(b"\n", start) + 1
        if start == 0:
            return -1
    return start + col - 1


#: clang's errors about a name it has no declaration for
_UNDECLARED = ("use of undeclared", "unknown type name", "no template named", "no member named")


def _reached_ranges(unit: Unit, func: Node) -> list[tuple[str, int, int]]:
    """(clang's file name, first byte, last byte) of ``func``, of every function it reaches
    through calls and of the classes those use (their bases and fields' classes too), in the
    kernel's file or a header."""
    seen: set[str] = set()
    out: list[tuple[str, int, int]] = []
    stack = [func]
    types: set[str] = set()  # type names met, for the classes
    while stack or types:
        if not stack:  # the classes of the types met: their ranges, then what they use in turn
            for text in sorted(types):
                for name in re.findall(r"[A-Za-z_][\w:]*", text):
                    rec = unit.types.records.get(name)
                    if rec is not None and str(rec.get("id")) not in seen:
                        stack.append(rec)
            types.clear()
            continue
        f = stack.pop()
        fid = str(f.get("id"))
        if fid in seen:
            continue
        seen.add(fid)
        rng = f.get("range", {})
        lo, hi = tree.location(rng.get("begin")), tree.location(rng.get("end"))
        if lo and hi and lo.get("file") == hi.get("file"):
            out.append((str(lo.get("file")), int(lo["offset"]), int(hi["offset"]) + int(hi.get("tokLen", 1))))
        for n in tree.walk(f):
            typ = n.get("type")
            if isinstance(typ, dict) and typ.get("qualType"):
                types.add(str(typ["qualType"]))
            for base in n.get("bases", ()):
                types.add(str((base.get("type") or {}).get("qualType", "")))
            if tree.kind(n) in ("CXXRecordDecl", "RecordDecl", "ClassTemplateSpecializationDecl"):
                continue  # a class met inside is reached through its type, above
            for key in ("referencedDecl", "referencedMemberDecl"):
                ref = n.get(key)
                rid = ref.get("id") if isinstance(ref, dict) else ref
                callee = unit.index.function(rid) if rid else None
                if callee is not None and tree.kind(callee) in (
                        "FunctionDecl", "CXXMethodDecl", "CXXConstructorDecl"):
                    stack.append(callee)
    return out
