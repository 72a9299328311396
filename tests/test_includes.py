"""What clang reads before a kernel is translated (kpl.frontend.clang): headers (the bundled
CUDA headers, the kernel's own, missing ones), the include sandbox, include cycles,
preprocessor errors, predefined CUDA macros, forced includes and source encodings.

Kernel pairs under tests/kernels/text/ (a race-free ``_ok`` and a racy ``_racy`` twin per
header) are checked end to end with ``autosync check``: a header that the front end
dropped or misread turns the racy twin into a false "verified"."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from autosync.commands.cli import app
from kpl import ast as K
from kpl.errors import KplError
from kpl.frontend import load_kernels, parse_kernel_text
from kpl.textio import decode_source, encode_source

TEXT = Path(__file__).resolve().parent / "kernels" / "text"
KERNELS = sorted(TEXT.rglob("*.cu"))
RACE_RE = re.compile(r"^(\S+?):(\d+):\d+: error: possible \S+ race on '\w+' with (\S+?):(\d+):\d+", re.M)


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args])


def race_pairs(output: str, path: Path) -> set[tuple[int, int]]:
    """(line, line) of every reported race whose two ends are both in ``path``."""
    out = set()
    for f1, l1, f2, l2 in RACE_RE.findall(output):
        if f1 == str(path) and f2 == str(path):
            out.add((min(int(l1), int(l2)), max(int(l1), int(l2))))
    return out


def stored(kernel: K.Kernel, mem: str) -> list[K.Expr]:
    """The values stored into ``mem`` (``mem[i] = value``), in program order."""
    return [s.value for s in K.walk_stmts(kernel.body)
            if isinstance(s, K.Assign) and isinstance(s.target, K.MemElem) and s.target.mem.name == mem]


def const_values(kernel: K.Kernel, mem: str) -> list[Any]:
    values = stored(kernel, mem)
    assert all(isinstance(v, K.Const) for v in values), values
    return [v.value for v in values]  # type: ignore[union-attr]


def one_line_error(res: Result) -> str:
    """The CLI's whole output for a refused file: exactly one ``error:`` line, exit 2."""
    out = res.output.strip()
    assert res.exit_code == 2, res.output
    assert "\n" not in out and "Traceback" not in out, out
    return out


def test_enough_text_kernels() -> None:
    assert len([k for k in KERNELS if k.stem.endswith("_ok")]) >= 11
    assert len([k for k in KERNELS if k.stem.endswith("_racy")]) >= 11


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: str(p.relative_to(TEXT)))
def test_text_kernel_verdict(path: Path) -> None:
    res = invoke("check", path)
    if path.stem.endswith("_ok"):
        assert res.exit_code == 0, res.output
        assert "verified" in res.output
        return
    assert res.exit_code == 1, res.output
    m = re.search(r"// autosync: races=(\S+)", path.read_text())
    if m:
        want = {tuple(int(x) for x in pair.split("-")) for pair in m.group(1).split(",")}
        assert race_pairs(res.output, path) == want, res.output


# --------------------------------------------------------------------------- which header


def test_own_helper_math_is_used_not_the_bundled_one() -> None:
    """The folder's helper_math.h is read: the race is in ITS scale3 (lines 10-12)."""
    path = TEXT / "own_helper" / "own_racy.cu"
    res = invoke("check", path)
    assert res.exit_code == 1
    header = str(TEXT / "own_helper" / "helper_math.h")
    lines = {int(l2) for _, _, f2, l2 in RACE_RE.findall(res.output) if f2 == header}
    assert lines and lines <= {10, 11, 12}, res.output


def test_vec_ops_races_are_inside_the_folders_operators() -> None:
    """The folder's helper_math.h operators are ordinary functions: the accesses of
    ``f[t] += p + p`` (a ``float3 &``) are the writes of its operator+= (lines 17-19), the read
    of ``f[(t + 1) % 128] - f[t]`` (``const float3 &``) that of its operator- (line 10)."""
    path = TEXT / "vec_ops" / "vec_ops_racy.cu"
    res = invoke("check", path)
    assert res.exit_code == 1, res.output
    header = str(TEXT / "vec_ops" / "helper_math.h")
    ends = {frozenset({(os.path.basename(f1), int(l1)), (os.path.basename(f2), int(l2))})
            for f1, l1, f2, l2 in RACE_RE.findall(res.output)}
    assert ends == {frozenset({("helper_math.h", 10), ("vec_ops_racy.cu", 12)})} | {
        frozenset({("helper_math.h", 10), ("helper_math.h", line)}) for line in (17, 18, 19)}, res.output
    assert f"{header}:10:3: error: possible write-read race on 'f'" in res.output


def test_quoted_include_prefers_the_folder_over_the_bundled_header(tmp_path: Path) -> None:
    (tmp_path / "math_constants.h").write_text("#define CUDART_PI_F 3\n")
    src = '#include "math_constants.h"\n__global__ void k(int *a) { a[threadIdx.x] = CUDART_PI_F; }\n'
    assert const_values(load_kernels(str(tmp_path / "k.cu"), src)[0], "a") == [3]
    # <...> never reads the kernel's folder: our math_constants.h
    angled = src.replace('"math_constants.h"', "<math_constants.h>").replace("int *a", "float *a")
    [pi] = const_values(load_kernels(str(tmp_path / "sub.cu"), angled)[0], "a")
    assert pi == pytest.approx(3.141592654)


# A kernel pair whose folder has NO helper_math.h: our bundled one stands for it.  Kept
# here rather than under tests/kernels/ because nvcc (tests/test_kernel_files.py) cannot
# compile them without the header, which is the point.
HELPER_MATH_STUB_OK = """//pass
//--blockDim=256 --gridDim=16
// "helper_math.h" is NOT in this folder: the bundled one stands for it (vector operators,
// dot/length/normalize).  Each thread stages one point in shared memory; after the barrier
// it reads its neighbour's.  Race-free.
#include "cuda_runtime.h"
#include "helper_math.h"

__global__ void segments(const float3 *pts, float *len, float3 *dir) {
  __shared__ float3 p[256];
  unsigned t = threadIdx.x;
  unsigned g = blockIdx.x * blockDim.x + t;
  p[t] = pts[g] * 2.0f;
  __syncthreads();
  float3 d = p[(t + 1) % 256] - p[t];
  len[g] = length(d) + dot(d, d);
  dir[g] = normalize(d);
}
"""
HELPER_MATH_STUB_RACY = """//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=16
// autosync: races=12-13
// helper_math_stub_ok.cu without the barrier.
#include "cuda_runtime.h"
#include "helper_math.h"

__global__ void segments(const float3 *pts, float *len, float3 *dir) {
  __shared__ float3 p[256];
  unsigned t = threadIdx.x;
  unsigned g = blockIdx.x * blockDim.x + t;
  p[t] = pts[g] * 2.0f;
  float3 d = p[(t + 1) % 256] - p[t];
  len[g] = length(d) + dot(d, d);
  dir[g] = normalize(d);
}
"""


@pytest.mark.parametrize("racy", [False, True])
def test_missing_helper_math_falls_back_to_the_bundled_one(tmp_path: Path, racy: bool) -> None:
    kernel = tmp_path / "k.cu"
    kernel.write_text(HELPER_MATH_STUB_RACY if racy else HELPER_MATH_STUB_OK)
    res = invoke("check", kernel)
    if racy:
        assert res.exit_code == 1 and race_pairs(res.output, kernel) == {(12, 13)}, res.output
    else:
        assert res.exit_code == 0, res.output


# --------------------------------------------------------------------------- missing headers

MISSING = """//pass
//--blockDim=64 --gridDim=1
  #include "mine.h"
#include <iostream>
#include "helper_cuda.h"
__global__ void k(int *a) {
  a[threadIdx.x] = 1;
}
"""


def test_missing_headers_do_not_stop_a_kernel_that_needs_nothing_from_them(tmp_path: Path) -> None:
    """A header found nowhere gets an empty stand-in (host-only headers of real projects:
    <iostream>, helper_cuda.h); the kernel verifies."""
    kernel = tmp_path / "k.cu"
    kernel.write_text(MISSING)
    [k] = load_kernels(str(kernel))
    assert k.name == "k" and const_values(k, "a") == [1]
    res = invoke("check", kernel)
    assert res.exit_code == 0 and "verified" in res.output, res.output


def test_a_kernel_that_needs_a_missing_header_is_one_line_at_the_use(tmp_path: Path) -> None:
    kernel = tmp_path / "k.cu"
    kernel.write_text(MISSING.replace("= 1;", "= MINE_N;"))
    with pytest.raises(KplError) as ei:
        load_kernels(str(kernel))
    assert (ei.value.file, ei.value.line, ei.value.col) == (str(kernel), 7, 20)
    why = "use of undeclared identifier 'MINE_N' (included header not found: 'helper_cuda.h', 'iostream', 'mine.h')"
    assert ei.value.message == why
    assert one_line_error(invoke("check", kernel)) == f"{kernel}:7:20: error: {why}"


def test_missing_header_found_nowhere_else_is_never_looked_up_outside(tmp_path: Path) -> None:
    """A missing header's name that climbs out of the folder gets no stand-in outside the
    temporary folder, and is not an error when nothing needs it."""
    folder = tmp_path / "kernel"
    folder.mkdir()
    kernel = folder / "k.cu"
    kernel.write_text('#include "../nowhere/gone.h"\n__global__ void k(int *a) { a[0] = 1; }\n')
    assert [k.name for k in load_kernels(str(kernel))] == ["k"]
    assert not (tmp_path / "nowhere").exists()


# --------------------------------------------------------------------------- predefined macros


def test_cuda_arch_cudacc_nvcc_defined_and_overridable(tmp_path: Path) -> None:
    src = "__global__ void k(int *a) { a[0] = __CUDA_ARCH__; a[1] = __CUDACC__; a[2] = __NVCC__; }\n"
    assert const_values(parse_kernel_text(src, "k.cu"), "a") == [800, 1, 1]
    assert const_values(parse_kernel_text(src, "k.cu", defines={"__CUDA_ARCH__": "700"}), "a") == [700, 1, 1]
    # and from the command line: sm_70 code takes the other branch
    kernel = tmp_path / "k.cu"
    kernel.write_text("//--blockDim=64 --gridDim=1\n__global__ void k(int *a) {\n  __shared__ int s[64];\n"
                      "  s[threadIdx.x] = a[threadIdx.x];\n#if __CUDA_ARCH__ >= 800\n  __syncthreads();\n#endif\n"
                      "  a[threadIdx.x] = s[63 - threadIdx.x];\n}\n")
    assert invoke("check", kernel).exit_code == 0
    res = invoke("check", "-D", "__CUDA_ARCH__=700", kernel)
    assert res.exit_code == 1 and race_pairs(res.output, kernel) == {(4, 8)}, res.output


# --------------------------------------------------------------------------- forced includes


def test_forced_includes(tmp_path: Path) -> None:
    """A forced include is read as if #include'd before line 1: its macros reach the kernel
    (and the macro table), the file's own lines keep their numbers."""
    (tmp_path / "pre.h").write_text("#define A 3\n#define F(x) x\n")
    main = tmp_path / "k.cu"
    text = ("#define B (A + 1)\n#define C 1\n#undef C\n#define C 2\n"
            "__global__ void k(int *a) {\n  a[0] = F(B);\n  a[1] = 1 +* ;\n}\n")
    with pytest.raises(KplError) as ei:
        load_kernels(str(main), text, forced_includes=[str(tmp_path / "pre.h")])
    assert (ei.value.file, ei.value.line, ei.value.col) == (str(main), 7, 15)
    [k] = load_kernels(str(main), text.replace("  a[1] = 1 +* ;\n", ""), forced_includes=[str(tmp_path / "pre.h")])
    [value] = stored(k, "a")
    assert isinstance(value, K.Binary) and value.op == "+"
    assert (value.left, value.right) == (K.Const(3), K.Const(1))
    bodies = {name: d.body for name, d in k.macros.items()}
    assert bodies["A"] == "3" and bodies["B"] == "(A + 1)"
    # C is defined twice (#undef between): its body is the one the preprocessor kept
    assert bodies["F"] is None and k.macros["F"].function_like and bodies["C"] == "2"
    assert (k.macros["B"].line, k.macros["A"].line) == (1, 1)
    with pytest.raises(KplError) as ei:
        load_kernels(str(main), text, forced_includes=[str(tmp_path / "nope.h")])
    assert ei.value.message == f"forced include not found: {tmp_path / 'nope.h'}"


def test_forced_include_from_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "pre.h").write_text("#define SYNC __syncthreads()\n")
    kernel = tmp_path / "k.cu"
    kernel.write_text("//--blockDim=64 --gridDim=1\n__global__ void k(int *a) {\n  __shared__ int s[64];\n"
                      "  s[threadIdx.x] = a[threadIdx.x];\n  SYNC;\n  a[threadIdx.x] = s[63 - threadIdx.x];\n}\n")
    res = invoke("check", "--include", tmp_path / "pre.h", kernel)
    assert res.exit_code == 0, res.output
    assert "SYNC" in one_line_error(invoke("check", kernel))  # without it: clang's undeclared SYNC


# --------------------------------------------------------------------------- encodings

SHIFT = ("//pass\n//--blockDim=64 --gridDim=1\n// {comment}\n"
         "__global__ void k(float *a) {{\n  __shared__ float s[65];\n  int t = threadIdx.x;\n"
         "  s[t] = a[t];\n  if (t == 0) s[64] = 0.0f;\n{barrier}  a[t] = s[t + 1];  // \"{comment}\"\n}}\n")


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("racy", [False, True])
def test_latin1_bom_crlf_kernels_check(tmp_path: Path, racy: bool) -> None:
    barrier = "" if racy else "  __syncthreads();\n"
    text = SHIFT.format(comment="Décalage © « voisin »", barrier=barrier)
    variants = {
        "latin1.cu": text.encode("latin-1"),
        "bom.cu": b"\xef\xbb\xbf" + text.encode("utf-8"),
        "crlf.cu": text.replace("\n", "\r\n").encode("utf-8"),
        "bom_crlf_latin1.cu": b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode("latin-1"),
    }
    for name, data in variants.items():
        path = _write(tmp_path, name, data)
        res = invoke("check", path)
        if racy:
            assert res.exit_code == 1, (name, res.output)
            assert race_pairs(res.output, path) == {(7, 9), (8, 9)}, (name, res.output)
        else:
            assert res.exit_code == 0, (name, res.output)


def test_crlf_columns_and_bom_columns(tmp_path: Path) -> None:
    text = "\ufeff//pass\r\n__global__ void k(int *a) {\r\n  a[0] = 1 +* ;\r\n}\r\n"
    with pytest.raises(KplError) as ei:
        load_kernels(str(_write(tmp_path, "k.cu", encode_source(text))))
    assert (ei.value.line, ei.value.col) == (3, 15)
    assert ei.value.message == "expected expression"


def test_decode_is_lossless() -> None:
    data = "é".encode("latin-1") + "é ©".encode() + b"\xef\xbb\xbf\r\n\xff"
    assert encode_source(decode_source(data)) == data


def test_fix_keeps_latin1_bytes(tmp_path: Path) -> None:
    text = SHIFT.format(comment="Décalage ©", barrier="")
    path = _write(tmp_path, "k.cu", text.encode("latin-1"))
    fixed = tmp_path / "fixed.cu"
    res = invoke("fix", path, "-o", fixed)
    assert res.exit_code == 0, res.output
    out = fixed.read_bytes()
    assert b"__syncthreads();" in out
    assert out.replace(b"__syncthreads();", b"").replace(b" ", b"").replace(b"\n", b"") == \
        path.read_bytes().replace(b" ", b"").replace(b"\n", b"")


# --------------------------------------------------------------------------- sandbox

CANARY = "CANARY_SECRET_9f3a"


def _sandbox(tmp_path: Path) -> tuple[Path, Path]:
    """``tmp_path/kernel/`` holds the kernel; ``tmp_path/secret.h`` is outside it."""
    folder = tmp_path / "kernel"
    folder.mkdir()
    secret = tmp_path / "secret.h"
    secret.write_text(f"#define LEAK {CANARY}\nint {CANARY};\n")
    return folder, secret


def _refused(path: Path, include: str, monkeypatch: pytest.MonkeyPatch) -> KplError:
    """Load ``path``, which must be refused before anything outside is read: neither by us
    (``open``) nor by clang (which must not run at all)."""
    opened: list[str] = []
    commands: list[list[str]] = []
    real_open = open
    real_run = subprocess.run

    def spy_open(file: object, *args: object, **kwargs: object) -> object:
        opened.append(os.path.realpath(str(file)))
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    def spy_run(cmd: Any, *args: Any, **kwargs: Any) -> Any:
        commands.append([str(c) for c in cmd])
        return real_run(cmd, *args, **kwargs)

    monkeypatch.setattr("builtins.open", spy_open)
    monkeypatch.setattr("kpl.frontend.clang.subprocess.run", spy_run)
    with pytest.raises(KplError) as ei:
        load_kernels(str(path))
    monkeypatch.undo()
    assert not any(f.endswith("secret.h") for f in opened), opened
    assert not any("-ast-dump=json" in c for c in commands), commands
    assert CANARY not in ei.value.format()
    assert ei.value.message == f"include outside the allowed folders: {include}"
    return ei.value


@pytest.mark.parametrize("how", ["dotdot", "absolute", "symlink", "nested"])
def test_include_outside_the_folders_is_refused(tmp_path: Path, how: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    folder, secret = _sandbox(tmp_path)
    include = {"dotdot": "../secret.h", "absolute": str(secret), "symlink": "link.h",
               "nested": "inner.h"}[how]
    if how == "symlink":
        (folder / "link.h").symlink_to(secret)
    kernel = folder / "k.cu"
    if how == "nested":
        (folder / "inner.h").write_text('// inner\n#include "../secret.h"\n')
        kernel.write_text('//pass\n#include "inner.h"\n__global__ void k(int *a) { a[0] = LEAK; }\n')
        err = _refused(kernel, "../secret.h", monkeypatch)
        assert (err.file, err.line, err.col) == (str(folder / "inner.h"), 2, 10)
        return
    kernel.write_text(f'//pass\n\n#include "{include}"\n__global__ void k(int *a) {{ a[0] = LEAK; }}\n')
    err = _refused(kernel, include, monkeypatch)
    assert (err.file, err.line, err.col) == (str(kernel), 3, 10)
    res = invoke("check", kernel)
    assert CANARY not in res.output
    assert one_line_error(res) == f"{kernel}:3:10: error: include outside the allowed folders: {include}"


def test_a_missing_name_climbing_out_never_reaches_the_system_temporary_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """clang looks for "..." next to its private copy of the kernel first: "../x.h", found
    nowhere the kernel may read, must not be found next to that copy's folder either."""
    folder, _ = _sandbox(tmp_path)
    systmp = tmp_path / "systmp"
    systmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(systmp))
    (systmp / "canary.h").write_text(f"#define LEAK {CANARY}\n")
    kernel = folder / "k.cu"
    kernel.write_text('#include "../canary.h"\n#include "../../systmp/canary.h"\n'
                      "__global__ void k(int *a) {\n#ifdef LEAK\n  a[0] = 1;\n#else\n  a[0] = 2;\n#endif\n}\n")
    [k] = load_kernels(str(kernel))
    assert const_values(k, "a") == [2]


def test_a_quoted_include_of_a_header_elsewhere_is_vetted_against_the_kernels_folder(tmp_path: Path) -> None:
    """clang looks for a header's "..." in the kernel's folder too (-iquote): a name missing
    next to the header but found from the kernel's folder is vetted there."""
    (tmp_path / "a" / "kernel").mkdir(parents=True)
    inc = tmp_path / "b" / "c" / "inc"
    inc.mkdir(parents=True)
    (tmp_path / "s.h").write_text(f"#define LEAK {CANARY}\n")
    (inc / "h.h").write_text('#include "../../s.h"\n')
    kernel = tmp_path / "a" / "kernel" / "k.cu"
    kernel.write_text('#include "h.h"\n__global__ void k(int *a) { a[0] = LEAK; }\n')
    with pytest.raises(KplError) as ei:
        load_kernels(str(kernel), include_dirs=[str(inc)])
    assert ei.value.message == "include outside the allowed folders: ../../s.h"
    assert (ei.value.file, ei.value.line, ei.value.col) == (str(inc / "h.h"), 1, 10)


def test_dotdot_after_a_symlinked_folder_goes_where_the_file_system_goes(tmp_path: Path) -> None:
    folder, _ = _sandbox(tmp_path)
    deep = tmp_path / "deep" / "a" / "b"
    deep.mkdir(parents=True)
    (tmp_path / "deep" / "secret.h").write_text(f"#define LEAK {CANARY}\n")
    (folder / "x").symlink_to(deep)
    kernel = folder / "k.cu"
    kernel.write_text('#include "x/../../secret.h"\n__global__ void k(int *a) { a[0] = LEAK; }\n')
    with pytest.raises(KplError) as ei:
        load_kernels(str(kernel))
    assert ei.value.message == "include outside the allowed folders: x/../../secret.h"
    assert CANARY not in ei.value.format()


def test_include_dir_and_subfolders_are_allowed(tmp_path: Path) -> None:
    folder, secret = _sandbox(tmp_path)
    (folder / "sub").mkdir()
    (folder / "sub" / "a.h").write_text('#include "../b.h"\n')
    (folder / "b.h").write_text("#define B 2\n")
    kernel = folder / "k.cu"
    kernel.write_text('#include "sub/a.h"\n#include "secret.h"\n__global__ void k(int *a) { a[0] = B; }\n')
    [k] = load_kernels(str(kernel), include_dirs=[str(tmp_path)])  # -I the parent: allowed
    assert const_values(k, "a") == [2]
    res = invoke("check", "-I", tmp_path, kernel)
    assert res.exit_code == 0, res.output


# --------------------------------------------------------------------------- cycles


def test_self_include_is_a_cycle(tmp_path: Path) -> None:
    (tmp_path / "a.h").write_text('#include "a.h"\n')
    kernel = tmp_path / "k.cu"
    kernel.write_text('#include "a.h"\n__global__ void k() {}\n')
    out = one_line_error(invoke("check", kernel))
    assert out == f"{tmp_path / 'a.h'}:1:10: error: #include nested too deeply"


def test_mutual_include_is_a_cycle(tmp_path: Path) -> None:
    (tmp_path / "a.h").write_text('#include "b.h"\n')
    (tmp_path / "b.h").write_text('int x;\n#include "a.h"\n')
    kernel = tmp_path / "k.cu"
    kernel.write_text('#include "a.h"\n__global__ void k() {}\n')
    with pytest.raises(KplError) as ei:
        load_kernels(str(kernel))
    assert ei.value.message == "#include nested too deeply"
    assert (ei.value.file, ei.value.line, ei.value.col) == (str(tmp_path / "a.h"), 1, 10)
    # shown as the kernel was named: relative to a relative kernel path
    with pytest.raises(KplError) as ei:
        load_kernels(os.path.relpath(kernel), kernel.read_text())
    assert ei.value.file == os.path.relpath(tmp_path / "a.h")
    assert one_line_error(invoke("check", kernel)).startswith(f"{tmp_path / 'a.h'}:1:10: error: ")


@pytest.mark.parametrize("guard", ["pragma", "ifndef"])
def test_guarded_mutual_includes_are_fine(tmp_path: Path, guard: str) -> None:
    def header(name: str, other: str) -> str:
        body = f'#include "{other}"\n#define {name.upper()}_X 1\n'
        if guard == "pragma":
            return "#pragma once\n" + body
        return f"#ifndef {name.upper()}_H\n#define {name.upper()}_H\n{body}#endif\n"

    (tmp_path / "a.h").write_text(header("a", "b.h"))
    (tmp_path / "b.h").write_text(header("b", "a.h"))
    kernel = tmp_path / "k.cu"
    kernel.write_text('#include "a.h"\n#include "b.h"\n#include "a.h"\n'
                      "__global__ void k(int *a) { a[0] = A_X + B_X; }\n")
    [value] = stored(load_kernels(str(kernel))[0], "a")
    assert value == K.Binary("+", K.Const(1), K.Const(1), K.INT)


# --------------------------------------------------------------------------- preprocessor errors


@pytest.mark.parametrize("src, line, col, msg", [
    ("//pass\n#if 1\nint x;\n", 2, 2, "unterminated conditional directive"),
    ("//pass\n\n  #error stop here\n", 3, 4, "stop here"),
    ("//pass\n#if\nint x;\n#endif\n", 2, 4, "expected value in expression"),
    ("//pass\n#include\n", 2, 9, 'expected "FILENAME" or <FILENAME>'),
    ("//pass\n#endif\n", 2, 2, "#endif without #if"),
])
def test_preprocessor_errors_are_one_line(tmp_path: Path, src: str, line: int, col: int, msg: str) -> None:
    """An error of a directive decides which text the kernels are made of: it stops the file
    even outside every kernel, one line at clang's place."""
    kernel = tmp_path / "k.cu"
    kernel.write_text(src + "__global__ void k() {}\n")
    assert one_line_error(invoke("check", kernel)) == f"{kernel}:{line}:{col}: error: {msg}"


def test_preprocessor_error_in_a_header(tmp_path: Path) -> None:
    (tmp_path / "h.h").write_text("// h\n#error not for the device\n")
    kernel = tmp_path / "k.cu"
    kernel.write_text('#include "h.h"\n__global__ void k(int *a) { a[0] = 1; }\n')
    assert one_line_error(invoke("check", kernel)) == f"{tmp_path / 'h.h'}:2:2: error: not for the device"
    # an inactive branch is no error
    (tmp_path / "h.h").write_text("#ifndef __CUDA_ARCH__\n#error host only\n#endif\n")
    assert invoke("check", kernel).exit_code == 0


# --------------------------------------------------------------------------- operators, printf


def test_user_operators_are_modelled_as_written() -> None:
    """helper_math-style operators are ordinary functions to clang: a ``*`` that is a dot
    product stays one, and a side effect hidden in an operator is a write like any other."""
    src = """//--blockDim=64 --gridDim=1
__device__ int g[4];
__device__ float operator*(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
__device__ void operator+=(float3 &a, float3 b) { a.x += b.x; a.y += b.y; a.z += b.z; g[0] = 1; }
__global__ void k(float3 *a, float *d) {
  float3 v = a[threadIdx.x];
  d[threadIdx.x] = v * v;
  v += v;
  a[threadIdx.x] = v;
}
"""
    k = parse_kernel_text(src, "ops.cu")
    assert len(stored(k, "d")) == 1 and len(stored(k, "g")) == 1
    assert [v for v in stored(k, "g")] == [K.Const(1)]


def test_user_operator_side_effect_races(tmp_path: Path) -> None:
    kernel = tmp_path / "k.cu"
    kernel.write_text("//--blockDim=64 --gridDim=1\n__device__ int g[4];\n"
                      "__device__ void operator+=(float3 &a, float3 b) { a.x += b.x; g[0] = (int)a.x; }\n"
                      "__global__ void k(float3 *a) {\n  float3 v = a[threadIdx.x];\n  v += v;\n"
                      "  a[threadIdx.x] = v;\n}\n")
    res = invoke("check", kernel)
    assert res.exit_code == 1 and "race on 'g'" in res.output, res.output


def test_printf_argument_reads_are_modelled(tmp_path: Path) -> None:
    kernel = tmp_path / "k.cu"
    kernel.write_text("//xfail:NOT_ALL_VERIFIED\n//--blockDim=64 --gridDim=1\n#include <cstdio>\n"
                      "__global__ void k(int *a) {\n  __shared__ int s[64];\n  int t = threadIdx.x;\n"
                      "  s[t] = a[t];\n  printf(\"%d\\n\", s[(t + 1) % 64]);\n}\n")
    res = invoke("check", kernel)
    assert res.exit_code == 1 and race_pairs(res.output, kernel) == {(7, 8)}, res.output


def test_assert_argument_reads_are_modelled(tmp_path: Path) -> None:
    kernel = tmp_path / "k.cu"
    kernel.write_text("//xfail:NOT_ALL_VERIFIED\n//--blockDim=64 --gridDim=1\n#include <cassert>\n"
                      "__global__ void k(int *a) {\n  __shared__ int s[64];\n  int t = threadIdx.x;\n"
                      "  s[t] = a[t];\n  assert(s[(t + 1) % 64] >= 0);\n}\n")
    res = invoke("check", kernel)
    assert res.exit_code == 1 and race_pairs(res.output, kernel) == {(7, 8)}, res.output


def test_printf_and_assert_of_own_data_verify(tmp_path: Path) -> None:
    """The race-free twin: printf/assert reading the thread's own cell is no race, and their
    format strings are not memory."""
    kernel = tmp_path / "k.cu"
    kernel.write_text("//pass\n//--blockDim=64 --gridDim=1\n#include <cstdio>\n#include <assert.h>\n"
                      "__global__ void k(int *a) {\n  __shared__ int s[64];\n  int t = threadIdx.x;\n"
                      "  s[t] = a[t];\n  printf(\"%d\\n\", s[t]);\n  assert(s[t] == a[t]);\n}\n")
    res = invoke("check", kernel)
    assert res.exit_code == 0, res.output
