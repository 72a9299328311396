"""The text stages before pycparser: includes (stub fallback, sandbox, cycles), predefined
CUDA macros, source encodings and preprocessor errors (kpl.preprocess, kpl.textio).

Kernel pairs under tests/kernels/text/ (a race-free ``_ok`` and a racy ``_racy`` twin per
header) are checked end to end with ``autosync check``: a header that the front end
dropped or misread turns the racy twin into a false "verified"."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from autosync.commands.cli import app
from kpl.cuda import parse_cuda
from kpl.errors import KplError
from kpl.frontend import load_kernels
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


def test_own_helper_math_is_used_not_the_stub() -> None:
    """The folder's helper_math.h is read: the race is in ITS scale3 (lines 10-12)."""
    path = TEXT / "own_helper" / "own_racy.cu"
    res = invoke("check", path)
    assert res.exit_code == 1
    header = str(TEXT / "own_helper" / "helper_math.h")
    lines = {int(l2) for _, _, f2, l2 in RACE_RE.findall(res.output) if f2 == header}
    assert lines and lines <= {10, 11, 12}, res.output


def test_quoted_include_prefers_the_folder_over_the_stub(tmp_path: Path) -> None:
    (tmp_path / "math_constants.h").write_text("#define CUDART_PI_F 3\n")
    src = '#include "math_constants.h"\n__global__ void k(int *a) { a[threadIdx.x] = CUDART_PI_F; }\n'
    p = parse_cuda(str(tmp_path / "k.cu"), src)
    assert "= 3;" in p.lowered
    q = parse_cuda(str(tmp_path / "sub.cu"), src.replace('"math_constants.h"', "<math_constants.h>"))
    assert "3.141592654f" in q.lowered  # <...> never reads the folder: the stub


def test_unknown_quoted_header_is_still_an_error(tmp_path: Path) -> None:
    with pytest.raises(KplError) as ei:
        parse_cuda(str(tmp_path / "k.cu"), '//pass\n  #include "mine.h"\n__global__ void k() {}\n')
    assert (ei.value.line, ei.value.col) == (2, 13)
    assert "'mine.h' not found" in ei.value.message


# A kernel pair whose folder has NO helper_math.h: the bundled stub stands for it.  Kept
# here rather than under tests/kernels/ because nvcc (tests/test_kernel_files.py) cannot
# compile them without the header, which is the point.
HELPER_MATH_STUB_OK = """//pass
//--blockDim=256 --gridDim=16
// "helper_math.h" is NOT in this folder: the bundled stub stands for it (vector operators
// modelled natively, dot/length/normalize declared).  Each thread stages one point in
// shared memory; after the barrier it reads its neighbour's.  Race-free.
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
def test_missing_helper_math_falls_back_to_the_stub(tmp_path: Path, racy: bool) -> None:
    kernel = tmp_path / "k.cu"
    kernel.write_text(HELPER_MATH_STUB_RACY if racy else HELPER_MATH_STUB_OK)
    res = invoke("check", kernel)
    if racy:
        assert res.exit_code == 1 and race_pairs(res.output, kernel) == {(12, 13)}, res.output
    else:
        assert res.exit_code == 0, res.output


# --------------------------------------------------------------------------- predefined macros


def test_cuda_arch_cudacc_nvcc_defined_and_overridable() -> None:
    src = ("__global__ void k(int *a) { a[0] = __CUDA_ARCH__; a[1] = __CUDACC__; a[2] = __NVCC__; }\n")
    p = parse_cuda("k.cu", src)
    assert "a[0] = 700; a[1] = 1; a[2] = 1;" in p.lowered
    q = parse_cuda("k.cu", src, defines={"__CUDA_ARCH__": "800"})
    assert "a[0] = 800;" in q.lowered


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
        assert "Illegal character" not in res.output
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
    opened: list[str] = []
    real_open = open

    def spy(file: object, *args: object, **kwargs: object) -> object:
        opened.append(os.path.realpath(str(file)))
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr("builtins.open", spy)
    with pytest.raises(KplError) as ei:
        load_kernels(str(path))
    monkeypatch.undo()
    assert not any(f.endswith("secret.h") for f in opened), opened
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
    assert res.exit_code == 2 and CANARY not in res.output
    assert res.output.strip() == f"{kernel}:3:10: error: include outside the allowed folders: {include}"


def test_include_dir_and_subfolders_are_allowed(tmp_path: Path) -> None:
    folder, secret = _sandbox(tmp_path)
    (folder / "sub").mkdir()
    (folder / "sub" / "a.h").write_text('#include "../b.h"\n')
    (folder / "b.h").write_text("#define B 2\n")
    kernel = folder / "k.cu"
    kernel.write_text('#include "sub/a.h"\n#include "secret.h"\n__global__ void k(int *a) { a[0] = B; }\n')
    p = parse_cuda(str(kernel), include_dirs=[str(tmp_path)])  # -I the parent: allowed
    assert "a[0] = 2;" in p.lowered


# --------------------------------------------------------------------------- cycles


def test_self_include_is_a_cycle(tmp_path: Path) -> None:
    (tmp_path / "a.h").write_text('#include "a.h"\n')
    kernel = tmp_path / "k.cu"
    kernel.write_text('#include "a.h"\n__global__ void k() {}\n')
    res = invoke("check", kernel)
    assert res.exit_code == 2
    assert res.output.strip() == f"{tmp_path / 'a.h'}:1:1: error: include cycle: a.h -> a.h"


def test_mutual_include_is_a_cycle(tmp_path: Path) -> None:
    (tmp_path / "a.h").write_text('#include "b.h"\n')
    (tmp_path / "b.h").write_text('int x;\n#include "a.h"\n')
    kernel = tmp_path / "k.cu"
    kernel.write_text('#include "a.h"\n__global__ void k() {}\n')
    with pytest.raises(KplError) as ei:
        parse_cuda(str(kernel))
    assert ei.value.message == "include cycle: a.h -> b.h -> a.h"
    assert (ei.value.file, ei.value.line) == (str(tmp_path / "b.h"), 2)


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
    assert "a[0] = 1 + 1;" in parse_cuda(str(kernel)).lowered


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("src, line, col, msg", [
    ("//pass\n#if 1\nint x;\n", 2, 1, "Unterminated #if"),
    ("//pass\n\n  #error stop here\n", 3, 3, "#error stop here"),
    ('//pass\n#include "gone.h"\n', 2, 11, "include file 'gone.h' not found"),
    ("//pass\n#if\nint x;\n#endif\n", 2, 1, "malformed #if directive"),
    ("//pass\n#include\n", 2, 1, '#include expects "FILE" or <FILE>'),
    ("//pass\n#endif\n", 2, 1, "Misplaced #endif"),
])
def test_preprocessor_errors_are_one_line(tmp_path: Path, src: str, line: int, col: int, msg: str) -> None:
    kernel = tmp_path / "k.cu"
    kernel.write_text(src + "__global__ void k() {}\n")
    res = invoke("check", kernel)
    assert res.exit_code == 2
    out = res.output.strip()
    assert "\n" not in out and "Traceback" not in out
    assert out.startswith(f"{kernel}:{line}:{col}: error: {msg}"), out


# --------------------------------------------------------------------------- helper_math operators


@pytest.mark.parametrize("definition", [
    # a "*" that is a dot product, not elementwise
    "__device__ float operator*(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }",
    # the right shape, the wrong operator inside
    "__device__ float3 operator+(float3 a, float3 b) { return make_float3(a.x - b.x, a.y - b.y, a.z - b.z); }",
    # a side effect hidden in an operator
    "__device__ void operator+=(float3 &a, float3 b) { a.x += b.x; a.y += b.y; a.z += b.z; g[0] = 1; }",
])
def test_operators_other_than_elementwise_are_refused(definition: str) -> None:
    src = f"__device__ int g[4];\n{definition}\n__global__ void k(float3 *a) {{ a[0] = a[1]; }}\n"
    with pytest.raises(KplError) as ei:
        parse_cuda("k.cu", src)
    assert "C++ operator overloading" in ei.value.message and ei.value.line == 2


def test_printf_argument_reads_are_modelled(tmp_path: Path) -> None:
    kernel = tmp_path / "k.cu"
    kernel.write_text("//xfail:NOT_ALL_VERIFIED\n//--blockDim=64 --gridDim=1\n#include <cstdio>\n"
                      "__global__ void k(int *a) {\n  __shared__ int s[64];\n  int t = threadIdx.x;\n"
                      "  s[t] = a[t];\n  printf(\"%d\\n\", s[(t + 1) % 64]);\n}\n")
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


def test_preprocessor_macros_and_forced_includes(tmp_path: Path) -> None:
    """The object-like macros' bodies (none for a name given two bodies), and a forced
    include read as if #include'd on line 0: the file's own lines keep their numbers."""
    from kpl.preprocess import preprocess

    (tmp_path / "pre.h").write_text("#define A 3\n#define F(x) x\n")
    main = tmp_path / "k.cu"
    text = "#define B (A + 1)\n#define C 1\n#undef C\n#define C 2\nint v = B;\n"
    pre = preprocess(str(main), text, forced_includes=[str(tmp_path / "pre.h")])
    bodies = {name: d.body for name, d in pre.macros.items()}
    assert bodies["A"] == "3" and bodies["B"] == "(A + 1)"
    assert bodies["F"] is None and pre.macros["F"].function_like and bodies["C"] is None
    assert (pre.macros["B"].line, pre.macros["A"].line) == (1, 1)
    assert f'#line 5 "{main}"\nint v = (3 + 1);' in pre.text
    with pytest.raises(KplError, match="forced include not found"):
        preprocess(str(main), text, forced_includes=[str(tmp_path / "nope.h")])
