"""Running clang: which binary, which flags, and the sandbox around what it may read.

WHY clang: CUDA as written today is C++ (templates instantiated from host code, classes with
methods defined out of line, namespaces, lambdas, ``auto``, ``if constexpr``, CUB-style block
templates).  Only a C++ compiler resolves that; clang parses CUDA, instantiates every template
the file uses, and prints the result as a JSON AST with exact source offsets.  We translate
that AST into KPL (:mod:`kpl.frontend.translate`); we never re-implement C++.

Which clang: the one of the pinned ``ziglang`` wheel (a dependency, so ``pip install`` brings
it), or another named by ``--clang PATH`` / ``AUTOSYNC_CLANG``; it is checked once for its
version (>= :data:`MIN_VERSION`) and for CUDA support, with a one-line error when unusable.
No CUDA toolkit is used: ``-nocudainc -nocudalib -nostdinc``, and our own declaration headers
(:data:`INCLUDE_DIR`) stand for the CUDA ones.

The sandbox: clang reads the kernel (a private copy, so an unsaved or patched text is parsed
as if it were the file), the headers it includes from the project's tree (:func:`project_root`:
the nearest folder above the kernel holding ``.git``, else the current folder when it holds
the kernel, else the kernel's folder) and the ``-I`` folders, and our headers.  Before clang runs, :func:`plan_includes` follows every
``#include`` of the kernel and of the user headers it reaches: an include that resolves
outside those folders (``..``, an absolute path, a symlink out) is refused unread; one that
resolves nowhere gets an empty stand-in, so that a host-only header (``<iostream>``,
``"helper_cuda.h"``) never stops the kernels.  Should a declaration from a missing header be
needed in device code, clang's own error says which name is missing.

Why one piece (over 400 lines): which clang, what it may read and how it runs are one
contract -- the include plan is what the run's private folder is built from, and the
language (CUDA or OpenCL C, :mod:`kpl.frontend.opencl`) picks the flags and the prelude.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

from kpl.errors import KplError
from kpl.frontend.tree import decode
from kpl.textio import encode_source, read_source

INCLUDE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "include")
#: the declarations every kernel sees (CUDA's built-ins), read before the kernel's text
PRELUDE = "__autosync_cuda.h"
MIN_VERSION = 17
#: the GPU clang compiles device code for: named barriers, ``__syncwarp``, cluster-free
ARCH = "sm_80"
#: macros of nvcc's device pass, plus ``__AUTOSYNC__`` so a header can tell us from nvcc
PREDEFINED: dict[str, str] = {"__CUDA_ARCH__": "800", "__NVCC__": "1", "__AUTOSYNC__": "1",
                              "__CUDACC_VER_MAJOR__": "12", "__CUDACC_VER_MINOR__": "0"}
CLANG_ENV = "AUTOSYNC_CLANG"
#: clang's own bound on nested brackets (``-fbracket-depth``; clang's default is 256): past it,
#: clang's one-line error "bracket nesting level exceeded maximum of N" at the bracket.  Deep
#: enough for any real kernel, and well under the depth where clang's own 8 MB stack overflows
#: (a crash, not a message: near 7,000 nested parentheses)
BRACKET_DEPTH = 4096
_MAX_INCLUDE_DEPTH = 64
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include(?:_next)?[ \t]*(?:"([^"\n]*)"|<([^>\n]*)>|(\S[^\n]*))',
                      re.M)


class ClangUnusable(KplError):
    """The clang binary cannot be used (missing, too old, no CUDA)."""


@dataclass(frozen=True)
class Clang:
    """A checked clang: the command that runs it and its major version."""

    command: tuple[str, ...]
    version: int


def _bundled_command() -> tuple[str, ...] | None:
    try:
        import ziglang  # type: ignore[import-untyped]
    except ImportError:
        return None
    zig = os.path.join(os.path.dirname(os.path.abspath(ziglang.__file__)), "zig")
    return (zig, "clang") if os.path.isfile(zig) else None


@lru_cache(maxsize=8)
def find_clang(explicit: str | None = None) -> Clang:
    """The clang to use: ``explicit`` (``--clang``), else ``$AUTOSYNC_CLANG``, else the pinned
    one of the ``ziglang`` wheel.  Checked for version and CUDA support."""
    choice = explicit or os.environ.get(CLANG_ENV) or None
    if choice:
        path = shutil.which(choice) or choice
        if not os.path.isfile(path):
            raise ClangUnusable(f"clang not found: {choice} (from {'--clang' if explicit else CLANG_ENV})")
        command: tuple[str, ...] = (path,)
    else:
        bundled = _bundled_command()
        if bundled is None:
            raise ClangUnusable("the bundled clang (PyPI package 'ziglang') is not installed: "
                                "reinstall autosync, or name a clang with --clang or " + CLANG_ENV)
        command = bundled
    try:
        proc = subprocess.run([*command, "--version"], capture_output=True, text=True, timeout=60)
    except OSError as exc:
        raise ClangUnusable(f"cannot run clang {' '.join(command)}: {exc.strerror}") from None
    match = re.search(r"clang version (\d+)", proc.stdout)
    if proc.returncode != 0 or match is None:
        raise ClangUnusable(f"{' '.join(command)} is not clang (its --version says no clang version)")
    version = int(match.group(1))
    if version < MIN_VERSION:
        raise ClangUnusable(f"{' '.join(command)} is clang {version}; AutoSync needs clang "
                            f"{MIN_VERSION} or newer")
    probe = subprocess.run([*command, "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
                            f"--cuda-gpu-arch={ARCH}", "-fsyntax-only", "-w", "-"],
                           input="__attribute__((global)) void k() {}\n", capture_output=True,
                           text=True, timeout=60)
    if proc.returncode != 0 or probe.returncode != 0:
        first = (probe.stderr.strip().splitlines() or ["no message"])[0]
        raise ClangUnusable(f"{' '.join(command)} cannot compile CUDA: {first}")
    return Clang(command, version)


# --------------------------------------------------------------------------- includes


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


@dataclass
class IncludePlan:
    """What :func:`plan_includes` found: the user files clang will read (real path -> text),
    and the include names that resolve nowhere (each gets an empty stand-in)."""

    files: dict[str, str] = field(default_factory=dict)
    missing: set[str] = field(default_factory=set)
    bundled: dict[str, str] = field(default_factory=dict)  # our headers it includes -> text


@cache
def _bundled_text(path: str) -> str:
    with open(path, encoding="utf-8") as fh:
        return fh.read()


#: parts of the prelude read only by files that name something they declare: most kernels use
#: a few built-ins, and every declaration read is AST that clang prints and we parse.  <math.h>'s
#: and <limits.h>'s constants (INFINITY, M_PI, INT_MAX) and assert() are among them: nvcc's implicit
#: includes make them visible to a .cu file that includes nothing
PRELUDE_PARTS = ("__autosync_atomics.h", "__autosync_warp.h", "__autosync_math.h",
                 "__autosync_textures.h", "__autosync_runtime.h", "__autosync_gpuverify.h",
                 "__autosync_opencl.h", "math.h", "limits.h", "assert.h")
#: what GPUVerify's own prelude gives a CUDA file without an include, read only by files written
#: for it (its flags line ``//--blockDim=…``: ``run_clang(gpuverify=True)``) that name something
#: a part declares: curand's states and functions, cooperative groups (its files say ``using
#: namespace cooperative_groups;`` and nothing else), element-wise operators on vector types.
#: nvcc gives none of them without an include, so other files do not see them.
GPUVERIFY_PARTS = ("curand_kernel.h", "cooperative_groups.h", "__autosync_gpuverify_vectors.h")
#: names that select a part beyond those it declares: the vector operators are used through
#: the types' names (``float3 a, b; a + b``), and declare only operators
_TRIGGERS = {"__autosync_gpuverify_vectors.h": frozenset(
    f"{t}{n}" for t in ("float", "double", "int", "uint") for n in (2, 3, 4))}
#: OpenCL C's prelude (``-x cl``, our own declarations instead of clang's ``opencl-c.h``) and
#: its parts read by files that name something they declare
OPENCL_PRELUDE = "__autosync_opencl_c.h"
OPENCL_PRELUDE_PARTS = ("__autosync_opencl_c_atomics.h", "__autosync_opencl_c_math.h",
                        "__autosync_opencl_c_workgroup.h",
                        "__autosync_opencl_c_async.h", "__autosync_opencl_c_gpuverify.h",
                        "__autosync_opencl_c_images.h", "__autosync_opencl_c_image_writes.h")
#: the prelude of OpenCL host code parsed as C (``language="c"``, :mod:`kpl.frontend.opencl_host`)
HOST_C_PRELUDE = "CL/cl.h"
#: the OpenCL C versions ``--cl-std`` accepts (clang's ``-cl-std=CL…``)
OPENCL_VERSIONS = ("1.2", "2.0", "3.0")
_NOT_NAMES = {"__attribute__", "__align__", "sizeof", "if", "return", "while", "for", "operator",
              "template", "decltype", "noexcept", "alignas", "static_assert", "defined", "extern",
              "__launch_bounds__", "typename", "const", "struct"}


_C_WORDS = {"int", "unsigned", "signed", "char", "short", "long", "float", "double", "void", "bool",
            "enum", "union", "class", "typedef", "static", "inline", "volatile", "auto"}


@cache
def _declared(part: str) -> frozenset[str]:
    """The names prelude part ``part`` declares (a superset: functions, types, enumerators,
    macros, and the functions its ``__AS_…(name)`` macros generate, with their ``f`` twins),
    with those of the bundled headers it includes."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", _bundled_text(os.path.join(INCLUDE_DIR, part)), flags=re.S)
    names = {n for n in re.findall(r"\b([A-Za-z_]\w*)\s*\(", text)
             if n not in _NOT_NAMES and not n.startswith("__AS_")}
    for m in re.finditer(r"(?<!define )\b__AS_\w+\(([^)]*)\)", text):
        for w in re.findall(r"[A-Za-z_]\w*", m.group(1)):
            names.update((w, w + "f"))
    names.update(re.findall(r"\b(?:struct|enum|class|union|namespace)\s+([A-Za-z_]\w*)", text))
    names.update(re.findall(r"\btypedef\b[^;]*?\b([A-Za-z_]\w*)\s*;", text))
    names.update(re.findall(r"#\s*define\s+([A-Za-z_]\w*)", text))
    for body in re.findall(r"\benum\b[^{;]*\{([^}]*)\}", text):
        names.update(re.findall(r"[A-Za-z_]\w*", body))
    for shared in re.findall(r'#\s*include\s+"(__autosync_\w+\.h)"', text):  # a piece two parts share
        names.update(_declared(shared))
    return frozenset(n for n in names if len(n) > 1 and n not in _NOT_NAMES | _C_WORDS)


def prelude_parts(texts: list[str], parts: tuple[str, ...] = PRELUDE_PARTS) -> list[str]:
    """The prelude parts the code in ``texts`` may use: those declaring a name it mentions."""
    used: set[str] = set()
    for text in texts:
        used.update(re.findall(r"[A-Za-z_]\w*", text))
    return [part for part in parts if (_declared(part) | _TRIGGERS.get(part, frozenset())) & used]


def _climb(name: str) -> int:
    """How many folders an include name may climb (its ``..`` parts)."""
    return name.replace("\\", "/").split("/").count("..")


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def project_root(folder: str) -> str:
    """The project's tree around a kernel's ``folder``, which its includes may read (issue 34:
    ``#include "../common.h"`` is the project's own): the nearest folder at or above it that
    holds ``.git``; else the current working folder when it contains ``folder``; else
    ``folder`` itself."""
    real = os.path.realpath(folder)
    here = real
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        up = os.path.dirname(here)
        if up == here:
            break
        here = up
    cwd = os.path.realpath(os.getcwd())
    return cwd if _within(real, cwd) else real


def plan_includes(main_path: str, main_text: str, include_dirs: list[str],
                  forced: list[str], forced_dirs: list[str]) -> IncludePlan:
    """Follow every ``#include`` clang could open, as clang searches (the including file's
    folder for ``"..."``, then ``-I`` folders, then our headers), and refuse one that resolves
    outside the allowed folders before anything is read there."""
    main_dir = os.path.dirname(os.path.abspath(main_path))
    dirs = [os.path.abspath(d) for d in include_dirs]
    roots = [os.path.realpath(d) for d in [project_root(main_dir), *dirs, INCLUDE_DIR]]
    plan = IncludePlan()

    def resolve(name: str, quoted: bool, here: str) -> str | None:
        # clang's order: for "..." the including file's folder and -iquote (the kernel's
        # folder), then -I folders, then ours; the first FILE wins.  Not normalised on paper:
        # "sym/../x.h" is where the file system takes it when sym is a symlinked folder.
        if os.path.isabs(name):
            return name if os.path.isfile(name) else None
        candidates = ([here, main_dir] if quoted else []) + dirs + [INCLUDE_DIR]
        for folder in candidates:
            full = os.path.join(folder, name)
            if os.path.isfile(full):
                return full
        return None

    def visit(display: str, text: str, here: str, depth: int) -> None:
        if depth > _MAX_INCLUDE_DEPTH:
            raise KplError(f"#include nested more than {_MAX_INCLUDE_DEPTH} deep", display)
        for m in _INCLUDE.finditer(text):
            quoted_name, angle_name, other = m.groups()
            if other is not None:
                if other.startswith("//") or other.startswith("/*"):
                    continue
                line, col = _line_col(text, m.start(3))
                raise KplError(f"unsupported: #include through a macro ({other.strip()})",
                               display, line, col)
            name = quoted_name if quoted_name is not None else angle_name
            full = resolve(name, quoted_name is not None, here)
            if full is None:
                plan.missing.add(name)
                continue
            real = os.path.realpath(full)
            if _within(real, os.path.realpath(INCLUDE_DIR)):
                if real not in plan.bundled and os.path.isfile(real):
                    plan.bundled[real] = _bundled_text(real)
                    visit(real, plan.bundled[real], os.path.dirname(real), depth + 1)
                continue
            if not any(_within(real, r) for r in roots):
                line, col = _line_col(text, m.start(1) if quoted_name is not None else m.start(2))
                raise KplError(f"include outside the allowed folders: {name}", display, line, col - 1)
            if real in plan.files or not os.path.isfile(real):
                continue
            sub = read_source(real)
            plan.files[real] = sub
            visit(os.path.normpath(os.path.join(os.path.dirname(display), os.path.relpath(full, here))),
                  sub, os.path.dirname(full), depth + 1)

    for path in forced:
        full = os.path.abspath(path)
        real = os.path.realpath(full)
        if not any(_within(real, r) for r in roots + [os.path.realpath(d) for d in forced_dirs]):
            raise KplError(f"include outside the allowed folders: {path} (forced include)", main_path)
        if not os.path.isfile(real):
            raise KplError(f"forced include not found: {path}", main_path)
        sub = read_source(real)
        plan.files[real] = sub
        visit(path, sub, os.path.dirname(full), 1)
    visit(main_path, main_text, main_dir, 0)
    return plan


# --------------------------------------------------------------------------- running


@dataclass
class Diagnostic:
    """One clang error: where (the file as clang named it, 1-based line and column)."""

    file: str
    line: int
    col: int
    message: str


@dataclass
class ClangResult:
    """clang's JSON AST of one file (``ast``), its errors, and how to map clang's names for
    the kernel's file back to the user's."""

    ast: dict[str, Any]
    errors: list[Diagnostic]
    main_file: str  # the name clang used for the kernel's text
    missing: set[str]
    files: dict[str, str]  # user headers read: real path -> text
    macro_values: dict[str, str] = field(default_factory=dict)  # ambiguous macros' final bodies
    gpuverify_parts: list[str] = field(default_factory=list)  # GPUVERIFY_PARTS read for the file


_DIAG = re.compile(r"^(.*?):(\d+):(\d+): (?:fatal )?error: (.*)$")
_DIRECTIVE = re.compile(r"^[ \t\ufeff]*#(?![ \t]*pragma\b)")


def _stop_at_directive_error(errors: list[Diagnostic], path: str, text: str, main: str,
                             main_dir: str, files: dict[str, str]) -> None:
    """A preprocessor error (``#error``, an include cycle, an unterminated ``#if``, a malformed
    directive) decides which text every kernel of the file is made of, so it stops the file
    wherever it is, in the kernel's file or a user header: the first one, at clang's place.
    (A misplaced ``#pragma unroll`` is the parser's error, and stops only a kernel it is in.)"""
    for err in errors:
        src = text if err.file == main else files.get(os.path.realpath(err.file))
        lines = src.splitlines() if src is not None else []
        if not 0 < err.line <= len(lines) or not _DIRECTIVE.match(lines[err.line - 1]):
            continue
        shown = path if err.file == main else os.path.normpath(
            os.path.join(os.path.dirname(path), os.path.relpath(err.file, main_dir)))
        raise KplError(err.message, shown, err.line, err.col)


def run_clang(path: str, text: str, *, defines: dict[str, str] | None = None,
              include_dirs: list[str] | None = None, forced_includes: list[str] | None = None,
              forced_dirs: list[str] | None = None, extra_text: str = "",
              clang: str | None = None, language: str = "cuda", cl_std: str = "2.0",
              gpuverify: bool = False) -> ClangResult:
    """Parse ``text`` as the file ``path`` with clang and return its JSON AST.  ``extra_text``
    is appended after the user's text (explicit template instantiations asked for by
    ``--kernel 'k<32>'``), so that every offset into the user's text stays as it is.
    ``language`` is ``cuda``, ``opencl`` (OpenCL C of version ``cl_std``) or ``c`` (the
    OpenCL host code of a file, with our ``<CL/cl.h>``: :mod:`kpl.frontend.opencl_host`).
    ``gpuverify``: the file is written for GPUVerify, and a CUDA one sees what GPUVerify's
    prelude declares (:data:`GPUVERIFY_PARTS`); ``ClangResult.gpuverify_parts`` says which
    were read for it (not those the file includes itself)."""
    tool = find_clang(clang)
    include_dirs = list(include_dirs or [])
    forced = list(forced_includes or [])
    plan = plan_includes(path, text, include_dirs, forced, list(forced_dirs or []))
    main_dir = os.path.dirname(os.path.abspath(path))
    with tempfile.TemporaryDirectory(prefix="autosync-clang-") as tmp:
        # clang looks for "..." next to the kernel's copy first, and for every missing name
        # in the stand-ins' folder: each sits as deep in this folder as any name climbs
        # ("../x.h"), so that no lookup leaves it for the system's temporary folder
        nest = ["d"] * max([_climb(m.group(1) or "") for m in _INCLUDE.finditer(text)]
                           + [_climb(name) for name in plan.missing] + [0])
        main = os.path.join(tmp, "src", *nest, os.path.basename(path) or "input.cu")
        os.makedirs(os.path.dirname(main))
        with open(main, "wb") as fh:
            fh.write(encode_source(text + extra_text))
        stubs = os.path.join(tmp, "missing", *nest)
        os.makedirs(stubs)
        for name in plan.missing:
            stub = os.path.normpath(os.path.join(stubs, name))
            if not _within(stub, os.path.join(tmp, "missing")) or os.path.isdir(stub):
                continue  # no stand-in: clang's own "file not found" then names it
            try:
                os.makedirs(os.path.dirname(stub), exist_ok=True)
                with open(stub, "w", encoding="utf-8") as fh:
                    fh.write("")
            except OSError:  # a name that is a folder of another stand-in's path
                continue
        opencl = language == "opencl"
        host_c = language == "c"
        args = [*tool.command, "-x", "cl" if opencl else "c" if host_c else "cuda"]
        if opencl:
            args += [f"-cl-std=CL{cl_std}", "-cl-no-stdinc"]
        elif host_c:
            args += ["-std=gnu11"]
        else:
            args += ["--cuda-device-only", "-nocudainc", "-nocudalib", f"--cuda-gpu-arch={ARCH}",
                     "-std=c++17", "-nostdinc++"]
        args += ["-nostdinc", "-fsyntax-only", "-w", "-ferror-limit=0", "-fno-color-diagnostics",
                 "-fno-caret-diagnostics", "-fno-diagnostics-show-option", f"-fbracket-depth={BRACKET_DEPTH}",
                 "-Wno-unknown-cuda-version", "-iquote", main_dir]
        for d in include_dirs:
            args += ["-I", os.path.abspath(d)]
        prelude = os.path.join(tmp, "__autosync_prelude.h")
        texts = [text, extra_text, *plan.files.values(), *plan.bundled.values()]
        parts = [] if host_c else prelude_parts(texts, OPENCL_PRELUDE_PARTS if opencl else PRELUDE_PARTS)
        included = {os.path.basename(real) for real in plan.bundled}
        forced_parts = [part for part in prelude_parts(texts, GPUVERIFY_PARTS) if part not in included] \
            if gpuverify and language == "cuda" else []
        parts += forced_parts
        with open(prelude, "w", encoding="utf-8") as fh:
            fh.write("".join(f'#include "{name}"\n'
                             for name in [OPENCL_PRELUDE if opencl else HOST_C_PRELUDE if host_c else PRELUDE,
                                          *parts]))
        args += ["-isystem", INCLUDE_DIR, "-idirafter", stubs, "-include", prelude]
        for f in forced:
            args += ["-include", os.path.abspath(f)]
        predefined = {"__AUTOSYNC__": "1"} if opencl or host_c else PREDEFINED
        for name, value in {**predefined, **(defines or {})}.items():
            args.append(f"-D{name}={value}")
        # the AST comes through a pipe, not a file: a file is written on by a clang that outlives
        # a killed check (Ctrl-C, a test's time-out), and a pathological input's AST filled the
        # disk that way (19 GB each); a pipe stops clang when its reader goes (0.6 s slower at
        # 20,000 statements)
        proc = subprocess.run([*args, "-Xclang", "-ast-dump=json", main], capture_output=True, timeout=300)
        stdout = proc.stdout
        values = _final_macros(args, main, _ambiguous_macros([text, *plan.files.values()]))
    errors = []
    for line in proc.stderr.decode("utf-8", "replace").splitlines():
        m = _DIAG.match(line)
        if m:
            errors.append(Diagnostic(m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)))
    _stop_at_directive_error(errors, path, text, main, main_dir, plan.files)
    if not stdout.strip():
        first = errors[0] if errors else None
        if first is not None:
            raise KplError(first.message, path if first.file == main else first.file, first.line, first.col)
        raise KplError("clang produced no AST: " + proc.stderr.decode("utf-8", "replace").strip()[:200], path)
    ast = decode(stdout)
    return ClangResult(ast, errors, main, plan.missing, plan.files, values, forced_parts)


def _ambiguous_macros(texts: list[str]) -> set[str]:
    """Object-like macros the user's files define more than once (``#ifdef BIG`` … ``#else``):
    which definition holds is the preprocessor's to say."""
    seen: dict[str, int] = {}
    for text in texts:
        for name in re.findall(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?!\()", text, re.M):
            seen[name] = seen.get(name, 0) + 1
    return {name for name, n in seen.items() if n > 1}


def _final_macros(args: list[str], main: str, names: set[str]) -> dict[str, str]:
    """The bodies ``names`` have at the end of the file, as clang's preprocessor left them
    (one more run, preprocessing only, when there are such names)."""
    if not names:
        return {}
    proc = subprocess.run([*[a for a in args if a != "-fsyntax-only"], "-E", "-dM", main],
                          capture_output=True, text=True, timeout=300)
    out: dict[str, str] = {}
    for m in re.finditer(r"^#define ([A-Za-z_]\w*) (.*)$", proc.stdout, re.M):
        if m.group(1) in names:
            out[m.group(1)] = m.group(2).strip()
    return out
