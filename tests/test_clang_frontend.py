"""The CUDA front end as the user sees it: clang reads the file (kpl.frontend.clang), its AST
becomes KPL kernels (kpl.frontend.kernels).  Which clang, which errors stop a kernel (those
inside it or a function it calls; a preprocessor error stops the file), where errors are
located (clang's line and column in the ORIGINAL text), and the constructs of CUDA as written
(memory spaces, qualifiers, templates, textures, inline PTX barriers, C++ casts, GPUVerify's
annotations, several kernels, vector types and built-ins)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from autosync.commands.cli import app
from kpl import ast as K
from kpl.errors import KplError
from kpl.frontend import load_kernels, parse_kernel_text
from kpl.frontend.clang import ClangUnusable, find_clang


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args])


def one_line_error(res: Result) -> str:
    out = res.output.strip()
    assert res.exit_code == 2, res.output
    assert "\n" not in out and "Traceback" not in out, out
    return out


def stmts(where: K.Kernel | K.Block, kind: type) -> list:
    block = where.body if isinstance(where, K.Kernel) else where
    return [s for s in K.walk_stmts(block) if isinstance(s, kind)]


def stored(kernel: K.Kernel, mem: str) -> list[K.Expr]:
    return [s.value for s in stmts(kernel, K.Assign)
            if isinstance(s.target, K.MemElem) and s.target.mem.name == mem]


def spaces(kernel: K.Kernel) -> dict[str, K.Space]:
    return {name: m.space for name, m in kernel.memories.items()}


# --------------------------------------------------------------------------- which clang


def test_clang_that_does_not_exist_is_one_line(tmp_path: Path) -> None:
    kernel = tmp_path / "k.cu"
    kernel.write_text("__global__ void k(int *a) { a[0] = 1; }\n")
    out = one_line_error(invoke("check", "--clang", "/nonexistent", kernel))
    assert out == "error: clang not found: /nonexistent (from --clang)"
    with pytest.raises(ClangUnusable):
        load_kernels(str(kernel), clang="/nonexistent")


def test_clang_from_the_environment_that_is_not_clang(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kernel = tmp_path / "k.cu"
    kernel.write_text("__global__ void k(int *a) { a[0] = 1; }\n")
    monkeypatch.setenv("AUTOSYNC_CLANG", "/bin/true")
    find_clang.cache_clear()  # the choice is made once a process; this test changes it
    out = one_line_error(invoke("check", kernel))
    assert out == "error: /bin/true is not clang (its --version says no clang version)"
    monkeypatch.setenv("AUTOSYNC_CLANG", "/nonexistent-clang")
    assert one_line_error(invoke("check", kernel)) == \
        "error: clang not found: /nonexistent-clang (from AUTOSYNC_CLANG)"


def test_the_bundled_clang_is_used_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AUTOSYNC_CLANG", raising=False)
    clang = find_clang(None)
    assert clang.version >= 17 and clang.command[-1] == "clang"


# --------------------------------------------------------------------------- which errors stop


def test_an_error_in_host_code_does_not_stop_the_kernel(tmp_path: Path) -> None:
    kernel = tmp_path / "k.cu"
    kernel.write_text("//pass\n//--blockDim=64 --gridDim=1\n__global__ void k(int *a) { a[threadIdx.x] = 1; }\n"
                      "void host(int *d) {\n  undeclared_host_fn(3);\n  k<<<1, 64>>>(d);\n"
                      '  std::cout << "done";\n}\n')
    [k] = load_kernels(str(kernel))
    assert k.name == "k"
    res = invoke("check", kernel)
    assert res.exit_code == 0 and "verified" in res.output, res.output


def test_an_error_inside_the_kernel_is_one_line_at_clangs_place(tmp_path: Path) -> None:
    kernel = tmp_path / "k.cu"
    kernel.write_text("__global__ void k(int *a) {\n  a[0] = undeclared_dev_fn(3);\n}\n"
                      "__global__ void k2(int *a) { a[0] = 1; }\n")
    with pytest.raises(KplError) as ei:
        load_kernels(str(kernel))
    assert (ei.value.file, ei.value.line, ei.value.col) == (str(kernel), 2, 10)
    assert ei.value.message == "use of undeclared identifier 'undeclared_dev_fn'"
    assert one_line_error(invoke("check", kernel)) == \
        f"{kernel}:2:10: error: use of undeclared identifier 'undeclared_dev_fn'"


def test_an_error_in_a_device_function_the_kernel_calls_stops_it() -> None:
    src = "__device__ int f(int x) { return x + undefined_y; }\n" \
          "__global__ void k(int *a) { a[threadIdx.x] = f(1); }\n"
    with pytest.raises(KplError) as ei:
        parse_kernel_text(src, "d.cu")
    assert (ei.value.line, ei.value.col, ei.value.message) == (1, 38, "use of undeclared identifier 'undefined_y'")


def test_an_error_in_a_header_function_the_kernel_calls_stops_it(tmp_path: Path) -> None:
    (tmp_path / "h.h").write_text("__device__ int f(int x) { return x + undefined_y; }\n")
    kernel = tmp_path / "k.cu"
    kernel.write_text('#include "h.h"\n__global__ void k(int *a) { a[threadIdx.x] = f(1); }\n')
    with pytest.raises(KplError) as ei:
        load_kernels(str(kernel))
    assert (ei.value.file, ei.value.line, ei.value.col) == (str(tmp_path / "h.h"), 1, 38)
    assert ei.value.message == "use of undeclared identifier 'undefined_y'"


def test_headers_found_nowhere_do_not_stop_a_kernel_that_does_not_use_them(tmp_path: Path) -> None:
    """Real projects include host-only headers we do not ship; their host code uses them."""
    kernel = tmp_path / "k.cu"
    kernel.write_text("//pass\n//--blockDim=64 --gridDim=1\n#include <iostream>\n#include \"helper_cuda.h\"\n"
                      "__global__ void k(int *a) { a[threadIdx.x] = 1; }\n"
                      "int main() {\n  int *d;\n  checkCudaErrors(cudaMalloc(&d, 256));\n"
                      "  k<<<1, 64>>>(d);\n  std::cout << \"done\" << std::endl;\n}\n")
    res = invoke("check", kernel)
    assert res.exit_code == 0 and "verified" in res.output, res.output


def test_syntax_error_is_at_the_original_line_and_column() -> None:
    src = """//pass
#define N 4
#pragma once

__global__ void k(int *a) {
    int x = 1;
    a[0] = x +* ;
}
"""
    with pytest.raises(KplError) as ei:
        parse_kernel_text(src, "bad.cu")
    e = ei.value
    assert (e.file, e.line, e.col, e.message) == ("bad.cu", 7, 17, "expected expression")
    assert e.format() == "bad.cu:7:17: error: expected expression"


def test_read_from_disk_and_missing_file(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    f.write_text(BASIC)
    [k] = load_kernels(str(f))
    assert k.source_text == BASIC and k.source_path == str(f)
    with pytest.raises(KplError) as ei:
        load_kernels(str(tmp_path / "absent.cu"))
    assert ei.value.format() == f"{tmp_path / 'absent.cu'}: error: cannot read file: No such file or directory"


# --------------------------------------------------------------------------- basics

BASIC = """//pass
//--blockDim=64 --gridDim=1
#include <cuda.h>
#define N 64
/* a comment */ __device__ int helper(int x) { return x + 1; }

__global__ void k(int *A) {
    __shared__ int sdata[N];
    unsigned int tid = threadIdx.x;   // trailing comment
    sdata[tid] = A[tid];
    __syncthreads();
    A[tid] = helper(sdata[(tid + 1) % N]);
}
"""


def test_basic_kernel_spaces_and_spans() -> None:
    k = parse_kernel_text(BASIC, "k.cu")
    assert k.source_text == BASIC and k.name == "k"
    assert k.launch.block_dim == (64, 1, 1) and k.launch.grid_dim == (1, 1, 1)
    assert k.memories["sdata"].space == K.Space.SHARED and k.memories["sdata"].dims == (64,)
    assert k.memories["A"].space == K.Space.GLOBAL
    where = [(type(s).__name__, s.span.line, s.span.col) for s in k.body.stmts]  # type: ignore[union-attr]
    assert where == [("Decl", 9, 5), ("Assign", 10, 5), ("Barrier", 11, 5), ("Inline", 12, 5), ("Assign", 12, 5)]
    [call] = stmts(k, K.Inline)
    assert call.function == "helper"
    # the helper's statement after a block comment keeps its place
    assert [(s.span.line, s.span.col) for s in stmts(call.body, K.Assign)] == [(5, 48)]  # type: ignore[arg-type]


def test_function_like_macro_and_defines() -> None:
    src = """#define syncthreads __syncthreads
#define IDX(a, b) ((a) * W + (b))
__global__ void k(float *A) {
    A[IDX(threadIdx.y, threadIdx.x)] = 0;
    syncthreads();
    A[M] = 1;
}
"""
    k = parse_kernel_text(src, "m.cu", defines={"W": "32", "M": "7"})
    [bar] = stmts(k, K.Barrier)
    assert bar.span is not None and bar.span.line == 5
    first, last = stmts(k, K.Assign)
    assert isinstance(first.target, K.MemElem)
    assert 32 in [e.value for e in K.walk_expr(first.target.index) if isinstance(e, K.Const)]
    assert isinstance(last.target, K.MemElem) and last.target.index == K.Const(7)


def test_header_define_flag_is_used() -> None:
    src = "//pass\n//--blockDim=4 -DSIZE=12\n__global__ void k(int *a) { __shared__ int s[SIZE]; a[0] = s[0]; }\n"
    assert parse_kernel_text(src, "h.cu").memories["s"].dims == (12,)
    # an explicit define wins over the header's
    assert parse_kernel_text(src, "h.cu", defines={"SIZE": "5"}).memories["s"].dims == (5,)


def test_pragma_unroll_keeps_lines() -> None:
    src = """__global__ void k(int *a) {
#pragma unroll
    for (int i = 0; i < 4; i++) a[i] = i;
#pragma unroll 4
    for (int j = 0; j < 8; j++) a[j] = j;
    a[0] = 1;
}
"""
    k = parse_kernel_text(src, "p.cu")
    assert [(type(s).__name__, s.span.line, s.span.col) for s in k.body.stmts] == [  # type: ignore[union-attr]
        ("Decl", 3, 5), ("Loop", 3, 5), ("Decl", 5, 5), ("Loop", 5, 5), ("Assign", 6, 5)]


def test_local_include_and_include_dirs(tmp_path: Path) -> None:
    (tmp_path / "common.h").write_text("#define BS 32\n__device__ int twice(int x) { return 2 * x; }\n")
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "extra.h").write_text("#define EXTRA 3\n")
    src = '#include "common.h"\n#include "extra.h"\n__global__ void k(int *a) {\n  a[BS] = twice(EXTRA);\n}\n'
    main = tmp_path / "main.cu"
    main.write_text(src)
    [k] = load_kernels(str(main), include_dirs=[str(inc)])
    assert k.source_text == src
    [call] = stmts(k, K.Inline)
    assert call.function == "twice"
    [ret] = stmts(call.body, K.Assign)
    assert ret.span is not None and (ret.span.file, ret.span.line) == (str(tmp_path / "common.h"), 2)
    [store] = [s for s in stmts(k, K.Assign) if isinstance(s.target, K.MemElem)]
    assert store.target.index == K.Const(32) and store.span is not None  # type: ignore[union-attr]
    assert (store.span.file, store.span.line) == (str(main), 4)
    assert {d.file for d in k.macros.values()} == {str(tmp_path / "common.h"), str(inc / "extra.h")}


def test_angled_includes_never_read_the_kernels_folder(tmp_path: Path) -> None:
    """<...> is looked up in the -I folders and our headers, never next to the kernel; a
    -I folder's header of the same name wins over ours, as with nvcc."""
    decoys = tmp_path / "decoys"
    decoys.mkdir()
    (tmp_path / "stdio.h").write_text('#error "decoy header was read"\n')
    (tmp_path / "helper_math.h").write_text('#error "decoy header was read"\n')
    src = ("#include <stdio.h>\n#include <helper_math.h>\n#include <cooperative_groups.h>\n"
           "#include <math.h>\n__global__ void k(float4 *a) { a[0] = make_float4(1, 2, 3, 4); }\n")
    kernel = tmp_path / "k.cu"
    kernel.write_text(src)
    assert [k.name for k in load_kernels(str(kernel), include_dirs=[str(decoys)])] == ["k"]
    (decoys / "stdio.h").write_text('#error "decoy header was read"\n')
    with pytest.raises(KplError) as ei:
        load_kernels(str(kernel), include_dirs=[str(decoys)])
    assert (ei.value.file, ei.value.line, ei.value.message) == (str(decoys / "stdio.h"), 1, '"decoy header was read"')


# --------------------------------------------------------------------------- memory spaces, qualifiers


def test_memory_spaces_all_kinds() -> None:
    src = """__constant__ float coeffs[16];
__device__ int counter;
static __shared__ float fileShared[8];
__device__ __managed__ int managed;
__global__ void k(float *out) {
    __shared__ float a[32], b[32];
    __shared__ unsigned int flag;
    extern __shared__ float dyn[];
    volatile __shared__ int v[4];
    out[0] = a[0] + b[0] + coeffs[0] + dyn[0] + counter + flag + v[0] + fileShared[0] + managed;
}
"""
    k = parse_kernel_text(src, "s.cu")
    assert spaces(k) == {"coeffs": K.Space.CONSTANT, "counter": K.Space.GLOBAL, "fileShared": K.Space.SHARED,
                         "managed": K.Space.GLOBAL, "out": K.Space.GLOBAL, "a": K.Space.SHARED,
                         "b": K.Space.SHARED, "flag": K.Space.SHARED, "dyn": K.Space.SHARED, "v": K.Space.SHARED}
    assert k.memories["dyn"].dims == (None,) and k.memories["fileShared"].dims == (8,)
    assert k.memories["a"].dims == k.memories["b"].dims == (32,)


def test_qualifiers_and_launch_bounds() -> None:
    src = ("__device__ __forceinline__ static inline float f(float x) { return x; }\n"
           "__host__ __device__ int hd(int x) { return x; }\n"
           "__noinline__ __device__ int g(const int * __restrict__ p) { return p[0]; }\n"
           "__global__ void __launch_bounds__(128) k1(float * __restrict__ a) { a[0] = f(1.0f); }\n"
           "__global__ void __launch_bounds__(256, 4) k2(int *a) { __align__(16) int x[4]; x[0] = hd(1); "
           "a[0] = g(x) + x[0]; }\n"
           "__global__ __attribute__((noinline)) void k3(int *a) { a[0] = 0; }\n")
    k1, k2, k3 = load_kernels("q.cu", src)
    assert [k.name for k in (k1, k2, k3)] == ["k1", "k2", "k3"]
    assert (k1.launch_bounds, k2.launch_bounds, k3.launch_bounds) == (128, 256, None)
    # no launch given: a symbolic block (x: k1 reads no thread index, yet runs many threads)
    # of at most __launch_bounds__ threads
    assert k1.launch.block_dim == (None, 1, 1) and k1.launch.max_threads == 128
    assert [c.function for c in stmts(k1, K.Inline)] == ["f"]
    assert [c.function for c in stmts(k2, K.Inline)] == ["hd", "g"]
    assert k2.memories["x"].space == K.Space.LOCAL and k2.memories["x"].dims == (4,)
    # a call to a function declared without a body: the kernel stops, at the call
    with pytest.raises(KplError) as ei:
        load_kernels("q.cu", "__device__ int proto(int);\n__global__ void k4(int *a) { a[0] = proto(1); }\n")
    assert (ei.value.line, ei.value.col) == (2, 37)
    assert ei.value.message == ("call to 'proto', which has no body here and no model: AutoSync cannot tell "
                                "what it does (define it in a file the kernel includes)")


def test_host_functions_are_not_kernels() -> None:
    src = """__global__ void k(int *a) { a[threadIdx.x] = 0; }
int main(int argc, char **argv) {
    int *d; cudaMalloc(&d, 4);
    k<<<1, 32>>>(d);
    return 0;
}
"""
    assert [k.name for k in load_kernels("h.cu", src)] == ["k"]


def test_several_kernels_and_extern_c() -> None:
    src = """extern "C" __global__ void a(int *x) { x[0] = 1; }
extern "C" {
__global__ void b(int *x) { x[0] = 2; }
}
__global__ void c(int *x) { x[0] = 3; }
"""
    ks = load_kernels("m.cu", src)
    assert [k.name for k in ks] == ["a", "b", "c"]
    assert [stored(k, "x") for k in ks] == [[K.Const(1)], [K.Const(2)], [K.Const(3)]]
    assert ks[1].body.stmts[0].span.line == 3  # type: ignore[union-attr]


# --------------------------------------------------------------------------- templates


def test_template_explicit_instantiations() -> None:
    src = """template <typename T, unsigned int blockSize, bool nIsPow2>
__global__ void reduce(T *g_idata, T *g_odata, unsigned int n)
{
    __shared__ T sdata[blockSize];
    unsigned int tid = threadIdx.x;
    T v = 0;
    if (nIsPow2) v = g_idata[tid];
    sdata[tid] = v;
    __syncthreads();
    if (blockSize >= 512) { g_odata[0] = sdata[0]; }
}

template __global__ void reduce<int, 256, false>(int *, int *, unsigned int);
template __global__ void reduce<float, 128, true>(float *, float *, unsigned int);

__global__ void after(int *a) {
    a[0] = 1;
}
"""
    r1, r2, after = load_kernels("t.cu", src)
    assert [r1.name, r2.name, after.name] == ["reduce<int, 256, false>", "reduce<float, 128, true>", "after"]
    assert (r1.memories["sdata"].dims, r1.memories["sdata"].elem.name) == ((256,), "int")
    assert (r2.memories["sdata"].dims, r2.memories["sdata"].elem.name) == ((128,), "float")
    assert r1.memories["sdata"].space == r2.memories["sdata"].space == K.Space.SHARED
    # the instantiated body keeps the template's lines and columns
    assert [(s.span.line, s.span.col) for s in r1.body.stmts] == [  # type: ignore[union-attr]
        (5, 5), (6, 5), (7, 5), (8, 5), (9, 5), (10, 5)]
    first_if = r1.body.stmts[2]
    assert isinstance(first_if, K.If) and first_if.cond == K.Const(0, first_if.cond.type)  # type: ignore[attr-defined]
    assert [(s.span.line, s.span.col) for s in after.body.stmts] == [(17, 5)]  # type: ignore[union-attr]


def test_explicit_instantiation_without_global_is_clangs_error() -> None:
    """nvcc accepts ``template void k<float>(...)`` for a kernel template; clang wants the
    ``__global__`` repeated, and says so at the instantiation."""
    src = "template <typename T>\n__global__ void r(T *a) { a[threadIdx.x] = 0; }\ntemplate void r<float>(float *);\n"
    with pytest.raises(KplError) as ei:
        load_kernels("t.cu", src)
    assert (ei.value.line, ei.value.col) == (3, 15)
    assert ei.value.message.startswith("explicit instantiation of 'r' does not refer to a function template")


def test_explicit_instantiation_without_global_next_to_another_kernel() -> None:
    """``template void r<float>(float *);`` (no ``__global__``; nvcc accepts it, clang does
    not) would leave ``r<float>`` unchecked: the file is refused at it, never partly checked."""
    src = ("template <typename T>\n__global__ void r(T *a) { a[threadIdx.x] = 0; }\n"
           "template __global__ void r<int>(int *);\ntemplate void r<float>(float *);\n")
    with pytest.raises(KplError) as ei:
        load_kernels("t.cu", src)
    assert (ei.value.line, ei.value.col) == (4, 15)
    assert ei.value.message.startswith("explicit instantiation of 'r'")


def test_template_parameter_named_by_a_define_is_clangs_error() -> None:
    """The old front end bound a template parameter from a -D of the same name; to clang the
    macro replaces the parameter's name: a syntax error at the template head."""
    src = ("template <unsigned int blockSize, int K = 2>\n"
           "__global__ void r(int *a) { __shared__ int s[blockSize * K]; a[0] = s[0]; }\n")
    with pytest.raises(KplError) as ei:
        load_kernels("d.cu", src, defines={"blockSize": "64"})
    assert (ei.value.line, ei.value.col, ei.value.message) == (1, 24, "expected ',' or '>' in template-parameter-list")
    assert [k.name for k in load_kernels("d.cu", src, instances=["r<64>"])] == ["r<64, 2>"]


def test_templated_device_function_called_with_explicit_args() -> None:
    src = """template <unsigned int blockSize>
__device__ void warpReduce(volatile int *sdata, unsigned int tid) {
    if (blockSize >= 64) sdata[tid] += sdata[tid + 32];
}
template <class T> __device__ T twice(T x) { return x + x; }
template <unsigned int blockSize>
__global__ void k(int *g) {
    __shared__ int sdata[blockSize];
    warpReduce<blockSize>(sdata, threadIdx.x);
    g[0] = twice<float>(1.0f) + twice<int>(2);
}
template __global__ void k<128>(int *g);
__global__ void plain(int *g) { __shared__ int s[64]; warpReduce<64>(s, 0); }
"""
    k, plain = load_kernels("w.cu", src)
    assert (k.name, plain.name) == ("k<128>", "plain")
    assert [c.function for c in stmts(k, K.Inline)] == ["warpReduce", "twice", "twice"]
    bound = [s.cond for s in stmts(k, K.If)]  # blockSize >= 64, with blockSize = 128
    assert [[e.value for e in K.walk_expr(c) if isinstance(e, K.Const)] for c in bound] == [[128, 64]]
    rets = [s.var.type.name for s in stmts(k, K.Decl) if s.var.name.startswith("twice.ret")]
    assert rets == ["float", "int"]
    assert [[e.value for e in K.walk_expr(s.cond) if isinstance(e, K.Const)] for s in stmts(plain, K.If)] == [[64, 64]]


def test_shared_memory_idiom() -> None:
    src = """template<class T>
struct SharedMemory
{
    __device__ inline operator       T *()
    {
        extern __shared__ int __smem[];
        return (T *)__smem;
    }
    __device__ inline operator const T *() const
    {
        extern __shared__ int __smem[];
        return (T *)__smem;
    }
};
template<>
struct SharedMemory<double>
{
    __device__ inline operator       double *()
    {
        extern __shared__ double __smem_d[];
        return (double *)__smem_d;
    }
};
template <class T>
__global__ void k(T *g) {
    T *sdata = SharedMemory<T>();
    sdata[threadIdx.x] = g[threadIdx.x];
}
template __global__ void k<float>(float *g);
template __global__ void k<double>(double *g);
"""
    kf, kd = load_kernels("sm.cu", src)
    assert (kf.name, kd.name) == ("k<float>", "k<double>")
    for k, name in ((kf, "__smem"), (kd, "__smem_d")):
        mem = k.memories[name]
        assert mem.space == K.Space.SHARED and mem.dims == (None,)
        [store] = [s for s in stmts(k, K.Assign) if isinstance(s.target, K.MemElem)]
        assert store.target.mem.name == name  # type: ignore[union-attr]
    assert kd.memories["__smem_d"].elem.name == "double"


# --------------------------------------------------------------------------- textures, PTX, C++


def test_textures() -> None:
    src = """texture<uchar4, 2, cudaReadModeElementType> tex;
static texture<float, 1> t1;
texture<float> tdefault;
__global__ void k(uchar4 *out, float *f, int w) {
    out[threadIdx.x] = tex2D(tex, threadIdx.x, 0);
    f[0] = tex1Dfetch(t1, 3) + tex1D(tdefault, 0.5f);
}
"""
    k = parse_kernel_text(src, "tx.cu")
    assert k.memories["tex"].space == K.Space.TEXTURE and k.memories["tex"].elem.name == "uchar4"
    [texel] = stored(k, "out")
    assert isinstance(texel, K.Load) and texel.mem.name == "tex"
    # 1-D fetches read no memory that can race
    [value] = stored(k, "f")
    assert not [e for e in K.walk_expr(value) if isinstance(e, K.Load) and e.mem.can_race]


def test_inline_ptx_barriers() -> None:
    src = """__global__ void k(int *a, int id, int n) {
    asm volatile("bar.sync 1, 64;");
    asm("bar.arrive 2, 128;");
    asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(n));
    asm volatile("bar.sync 0;");
    asm volatile("barrier.sync 3, 32;");
    __asm__ __volatile__("bar.arrive %0, %1;" : : "r"(id + 1), "r"(n * 2));
    a[0] = 1;
}
"""
    k = parse_kernel_text(src, "ptx.cu")
    assert k.uses_named_barriers
    bars = stmts(k, K.NamedBarrier)
    assert [(b.op, b.barrier, b.count) for b in bars[:2]] == [("sync", K.Const(1), K.Const(64)),
                                                             ("arrive", K.Const(2), K.Const(128))]
    assert (bars[2].op, bars[2].barrier.name, bars[2].count.name) == ("sync", "id", "n")  # type: ignore[union-attr]
    assert (bars[3].op, bars[3].barrier, bars[3].count) == ("sync", K.Const(0), None)
    assert (bars[4].op, bars[4].barrier, bars[4].count) == ("sync", K.Const(3), K.Const(32))
    assert bars[5].op == "arrive" and isinstance(bars[5].barrier, K.Binary) and isinstance(bars[5].count, K.Binary)
    assert [s.span.line for s in k.body.stmts] == list(range(2, 9))  # type: ignore[union-attr]
    # any other asm is refused, at the statement
    with pytest.raises(KplError) as ei:
        parse_kernel_text('__global__ void k(int *a) {\n    asm volatile("membar.cta;");\n    a[0] = 1;\n}\n', "m.cu")
    assert (ei.value.line, ei.value.col) == (2, 5)
    assert ei.value.message == "unsupported: inline assembly 'membar.cta' (only bar.sync and bar.arrive are modelled)"


def test_cpp_casts_and_bool() -> None:
    src = """__device__ bool isPos(int x) { return x > 0 ? true : false; }
__global__ void k(float *a, int *b) {
    a[0] = static_cast<float>(b[0]) + reinterpret_cast<float *>(b)[1];
    bool ok = isPos(b[0]);
    if (ok) a[1] = 0;
}
"""
    k = parse_kernel_text(src, "c.cu")
    first = stored(k, "a")[0]
    assert isinstance(first, K.Binary)
    assert isinstance(first.left, K.Cast) and first.left.type.name == "float"
    # reinterpret_cast<float *>(b)[1]: b's second element read as a float
    assert isinstance(first.right, K.Load) and first.right.mem.name == "b"
    assert [s.var.type.name for s in stmts(k, K.Decl) if s.var.name == "ok"] == ["bool"]
    assert k.body.stmts[0].span.line == 3  # type: ignore[union-attr]


def test_null_pointer_local() -> None:
    """``T *p = nullptr;`` is null until it is set: ``p == nullptr`` holds, and the pointer
    set later (straight-line) points where it is set; a store through it races (twin)."""
    from oracle.registry import get_oracle

    src = ("//--blockDim=64 --gridDim=1\n__global__ void k(int *a) {\n  int *p = nullptr;\n"
           "  if (p == nullptr) a[threadIdx.x] = 0;\n  p = a;\n  p[BODY] = 1;\n}\n")
    ok = parse_kernel_text(src.replace("BODY", "threadIdx.x"), "n.cu")
    racy = parse_kernel_text(src.replace("BODY", "0"), "n.cu")
    assert not get_oracle("sdv", timeout=30.0).check(ok).races
    assert get_oracle("sdv", timeout=30.0).check(racy).races


def test_class_is_cpp_and_namespaces_need_declaring() -> None:
    k = parse_kernel_text("class Foo { public: int x; };\n"
                          "__global__ void k(int *a) { Foo f; f.x = 1; a[0] = f.x; }\n", "cls.cu")
    assert k.name == "k"
    with pytest.raises(KplError) as ei:
        parse_kernel_text("__global__ void k(int *a) {\n  a[0] = cg::this_thread_block().size();\n}\n", "ns.cu")
    assert (ei.value.line, ei.value.col, ei.value.message) == (2, 10, "use of undeclared identifier 'cg'")
    with pytest.raises(KplError) as ei:
        parse_kernel_text("#error boom\n__global__ void k() {}\n", "e.cu")
    assert (ei.value.line, ei.value.col, ei.value.message) == (1, 2, "boom")


def test_class_template_with_a_method_reading_a_member() -> None:
    src = ("template <class T> class Vec { T x; public: __device__ Vec(T v) : x(v) {} "
           "__device__ T get() { return x; } };\n"
           "__global__ void k(float *a) { Vec<float> v(a[0]); a[threadIdx.x] = v.get(); }\n")
    k = parse_kernel_text(src, "ct.cu")
    assert [c.function for c in stmts(k, K.Inline)][-1] == "get"
    assert len(stored(k, "a")) == 1


# --------------------------------------------------------------------------- annotations, vectors


def test_gpuverify_annotations() -> None:
    src = """__global__ void k(int *A, int n) {
    __requires(n == 64);
    __requires(__is_pow2(n));
    __ensures(__implies(__enabled(), A[0] == 0));
    for (int i = 0; __invariant(i >= 0), __invariant(__no_read(A)), __global_invariant(__write_implies(A, \
__write_offset_bytes(A) / sizeof(int) == threadIdx.x)), i < n; i++) {
        __assert(__implies(__same_group, __other_int(i) == i));
        __assume(__uniform_int(n) && __distinct_int(threadIdx.x));
        __assert(__all(i >= 0) && __at_most_one(i == 0) && !__read(A) && !__write(A));
        __assert(__read_implies(A, __read_offset_bytes(A) >= 0));
        A[i] = 0;
    }
}
"""
    k = parse_kernel_text(src, "a.cu")
    assert len(k.requires) == 2
    assumes = stmts(k, K.Assume)
    assert [a.span.line for a in assumes] == [2, 3, 7]  # type: ignore[union-attr]
    [loop] = stmts(k, K.Loop)
    assert loop.span is not None and loop.span.line == 5
    asserts = [(a.kind, a.span.line) for a in stmts(k, K.Assert)]  # type: ignore[union-attr]
    assert ("assert", 6) in asserts and ("assert", 8) in asserts and ("assert", 9) in asserts
    assert any(kind == "invariant" for kind, _ in asserts) and any(kind == "ensures" for kind, _ in asserts)


def test_opencl_barrier_as_fix_writes_it_is_a_barrier() -> None:
    """``fix --target opencl`` writes ``barrier(CLK_LOCAL_MEM_FENCE)``; the patched text is
    read again, so the front end knows it as a barrier (as the old front end did)."""
    from kpl import ast as K

    k = parse_kernel_text("__global__ void k(int *a) {\n  a[0] = 1;\n  barrier(CLK_LOCAL_MEM_FENCE);\n}\n", "o.cu")
    barriers = [s for s in K.walk_stmts(k.body) if isinstance(s, K.Barrier)]
    assert [b.spelling for b in barriers] == ["barrier(CLK_LOCAL_MEM_FENCE)"]


def test_vector_types_and_builtins() -> None:
    src = """__global__ void k(float4 *a, uchar4 *b, int2 *c, double2 *d, dim3 *e, int *f) {
    float4 v = make_float4(1.0f, 2.0f, 3.0f, 4.0f);
    a[0] = v; b[0].w = 1; c[0].y = warpSize; d[0].x = 0.5;
    uint u = blockDim.x * gridDim.y + blockIdx.z; size_t s = u;
    a[1].x = __fdividef(__expf(1.0f), rsqrtf(s)) + fminf(fmaxf(1, 2), 3) + __saturatef(0.5f);
    atomicAdd(&f[0], __popc(__ballot_sync(0xffffffff, 1)) + __shfl_down_sync(0xffffffff, u, 1));
}
"""
    k = parse_kernel_text(src, "v.cu")
    assert {n: m.elem.name for n, m in k.memories.items() if m.space == K.Space.GLOBAL} == {
        "a": "float4", "b": "uchar4", "c": "int2", "d": "double2", "e": "dim3", "f": "int"}
    assert [s.target.field for s in stmts(k, K.Assign) if isinstance(s.target, K.MemElem)] == [
        None, "w", "y", "x", "x"]
    assert [s.target.mem.name for s in stmts(k, K.Assign) if isinstance(s.target, K.MemElem)] == [
        "a", "b", "c", "d", "a"]
    assert len([e for s in stmts(k, K.ExprStmt) for e in K.walk_expr(s.expr) if isinstance(e, K.Atomic)]) == 1


def test_atomic_on_a_vector_field() -> None:
    """``&c[0].x`` of a vector element is the component's bytes: atomics there do not race,
    a plain store to the same component does (racy twin), one to the other component not."""
    from oracle.registry import get_oracle

    def races(body: str) -> int:
        k = parse_kernel_text("//--blockDim=64 --gridDim=1\n__global__ void k(int2 *c) { " + body + " }\n",
                              "v.cu")
        return len(get_oracle("sdv", timeout=30.0).check(k).races)

    assert races("atomicAdd(&c[0].x, 1);") == 0
    assert races("atomicAdd(&c[0].x, 1); if (threadIdx.x == 0) c[0].y = 2;") == 0
    assert races("atomicAdd(&c[0].x, 1); if (threadIdx.x == 0) c[0].x = 2;") > 0


def test_error_columns_count_characters_as_spans_do() -> None:
    """clang counts bytes; a UTF-8 ``é`` before the error is one column for the user."""
    with pytest.raises(KplError) as ei:
        parse_kernel_text("__global__ void k(int *a) {\n  /*\u00e9\u00e9*/ a[0] = 1 +* ;\n}\n", "u.cu")
    assert (ei.value.line, ei.value.col, ei.value.message) == (2, 22, "expected expression")


def test_json_names_the_header_of_a_race_end_inlined_from_it(tmp_path: Path) -> None:
    """A race inside a device function of an included header: its JSON end carries the
    header's file (as the user names it, next to the kernel), the kernel's own end none."""
    import json

    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "put.h").write_text("__device__ void put(float *s, int i) {\n  s[i] = 1.0f;\n}\n")
    kernel = tmp_path / "k.cu"
    kernel.write_text('//--blockDim=64 --gridDim=1\n#include "inc/put.h"\n__global__ void k(float *a) {\n'
                      "  __shared__ float s[64];\n  put(s, threadIdx.x);\n  a[threadIdx.x] = s[63 - threadIdx.x];\n}\n")
    res = subprocess.run([sys.executable, "-m", "autosync", "check", "--no-cache", "--format", "json", "k.cu"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert res.returncode == 1, res.stderr
    [race] = json.loads(res.stdout)["races"]
    ends = {race["first"].get("file"), race["second"].get("file")}
    assert ends == {None, os.path.join("inc", "put.h")}
