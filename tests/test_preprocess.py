"""Tests for the CUDA front end's first half: kpl.preprocess + kpl.cuda (text -> FileAST)."""

from __future__ import annotations

import builtins
import os
from pathlib import Path
from typing import Any

import pytest
from pycparser import c_ast

from kpl.cuda import STUB_FILE, parse_cuda
from kpl.errors import KplError
from kpl.source import ParsedSource


def funcdefs(p: ParsedSource) -> dict[str, c_ast.FuncDef]:
    return {e.decl.name: e for e in p.ast.ext if isinstance(e, c_ast.FuncDef)}


def find(node: c_ast.Node, cls: type, pred: Any = None) -> list[Any]:
    out: list[Any] = []

    class V(c_ast.NodeVisitor):
        def generic_visit(self, n: c_ast.Node) -> None:
            if isinstance(n, cls) and (pred is None or pred(n)):
                out.append(n)
            for _, c in n.children():
                self.visit(c)

    V().visit(node)
    return out


def calls(node: c_ast.Node, name: str) -> list[c_ast.FuncCall]:
    return find(node, c_ast.FuncCall, lambda n: isinstance(n.name, c_ast.ID) and n.name.name == name)


def user_decls(p: ParsedSource) -> list[Any]:
    return [e for e in p.ast.ext if e.coord is None or e.coord.file != STUB_FILE]


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


def test_basic_kernel_functions_and_spaces() -> None:
    p = parse_cuda("k.cu", BASIC)
    assert p.text == BASIC
    assert p.header.block_dim == (64, 1, 1)
    fk = p.functions["k"]
    assert (fk.kind, fk.display_name, fk.base_name, fk.has_body) == ("global", "k", "k", True)
    assert (fk.file, fk.line, fk.col) == ("k.cu", 7, 17)
    fh = p.functions["helper"]
    assert fh.kind == "device" and (fh.line, fh.col) == (5, 32)
    assert p.var_spaces[("k", "sdata")] == "shared"
    assert p.extern_shared == set()
    assert set(funcdefs(p)) == {"k", "helper"}
    assert p.files == {"k.cu": BASIC}


def test_coords_are_original_line_and_column() -> None:
    p = parse_cuda("k.cu", BASIC)
    body = funcdefs(p)["k"].body
    decl_tid = body.block_items[1]
    assert (decl_tid.coord.file, decl_tid.coord.line, decl_tid.coord.column) == ("k.cu", 9, 18)
    assign = body.block_items[2]
    assert (assign.coord.line, assign.coord.column) == (10, 5)
    sync = body.block_items[3]
    assert isinstance(sync, c_ast.FuncCall) and sync.name.name == "__syncthreads"
    assert (sync.coord.line, sync.coord.column) == (11, 5)
    # the helper's code after a block comment keeps its columns
    helper = funcdefs(p)["helper"]
    assert helper.decl.coord.line == 5
    assert p.original_line("k.cu", 10) == "    sdata[tid] = A[tid];"
    assert p.lowered_line("k.cu", 10) == "    sdata[tid] = A[tid];"
    assert p.lowered_line("k.cu", 7).startswith("           void k(int *A) {")
    assert p.original_line("k.cu", 99) == "" and p.lowered_line("nope.cu", 1) == ""


def test_function_like_macro_and_defines() -> None:
    src = """#define syncthreads __syncthreads
#define IDX(a, b) ((a) * W + (b))
__global__ void k(float *A) {
    A[IDX(threadIdx.y, threadIdx.x)] = 0;
    syncthreads();
    A[M] = 1;
}
"""
    p = parse_cuda("m.cu", src, defines={"W": "32", "M": "7"})
    fd = funcdefs(p)["k"]
    assert len(calls(fd, "__syncthreads")) == 1
    consts = {c.value for c in find(fd, c_ast.Constant)}
    assert {"32", "7"} <= consts
    # line mapping survives the macro definitions
    assert fd.body.block_items[1].coord.line == 5


def test_header_define_flag_is_used() -> None:
    src = "//pass\n//--blockDim=4 -DSIZE=12\n__global__ void k(int *a) { __shared__ int s[SIZE]; a[0] = s[0]; }\n"
    p = parse_cuda("h.cu", src)
    assert "12" in {c.value for c in find(p.ast, c_ast.Constant)}
    # an explicit define wins over the header's
    p2 = parse_cuda("h.cu", src, defines={"SIZE": "5"})
    assert "5" in {c.value for c in find(funcdefs(p2)["k"], c_ast.Constant)}


def test_pragma_dropped_and_lines_kept() -> None:
    src = """__global__ void k(int *a) {
#pragma unroll
    for (int i = 0; i < 4; i++) a[i] = i;
#pragma unroll 4
    a[0] = 1;
}
"""
    p = parse_cuda("p.cu", src)
    items = funcdefs(p)["k"].body.block_items
    assert [it.coord.line for it in items] == [3, 5]
    assert items[0].coord.column == 5


def test_local_include_and_include_dirs(tmp_path: Path) -> None:
    (tmp_path / "common.h").write_text("#define BS 32\n__device__ int twice(int x) { return 2 * x; }\n")
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "extra.h").write_text("#define EXTRA 3\n")
    src = '#include "common.h"\n#include "extra.h"\n__global__ void k(int *a) {\n  a[BS] = twice(EXTRA);\n}\n'
    main = tmp_path / "main.cu"
    main.write_text(src)
    p = parse_cuda(str(main), include_dirs=[str(inc)])
    assert p.text == src
    fd = funcdefs(p)
    assert set(fd) == {"twice", "k"}
    twice = fd["twice"]
    assert twice.decl.coord.file == os.path.join(str(tmp_path), "common.h")
    assert twice.decl.coord.line == 2
    assert fd["k"].decl.coord.file == str(main) and fd["k"].body.block_items[0].coord.line == 4
    assert p.functions["twice"].file.endswith("common.h")
    assert set(p.files) == {str(main), os.path.join(str(tmp_path), "common.h"),
                            os.path.join(str(inc), "extra.h")}


def test_missing_include_names_it_and_its_line(tmp_path: Path) -> None:
    src = '//pass\n\n#include "nothere.h"\n__global__ void k() {}\n'
    with pytest.raises(KplError) as ei:
        parse_cuda(str(tmp_path / "k.cu"), src)
    e = ei.value
    assert "nothere.h" in e.message
    assert e.line == 3 and e.file == str(tmp_path / "k.cu")


def test_system_includes_never_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    decoys = tmp_path / "decoys"
    decoys.mkdir()
    for d in (decoys, tmp_path):
        (d / "stdio.h").write_text('#error "decoy header was read"\n')
        (d / "helper_cuda.h").write_text('#error "decoy header was read"\n')
    src = ("#include <stdio.h>\n#include <helper_cuda.h>\n#include <cooperative_groups.h>\n"
           "#include <math.h>\n__global__ void k(float4 *a) { a[0] = make_float4(1, 2, 3, 4); }\n")
    kernel = tmp_path / "k.cu"
    kernel.write_text(src)
    opened: list[str] = []
    real_open = builtins.open

    def spy(file: Any, *args: Any, **kwargs: Any) -> Any:
        opened.append(os.path.abspath(str(file)))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy)
    p = parse_cuda(str(kernel), include_dirs=[str(decoys)])
    assert "k" in funcdefs(p)
    stubs = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "kpl", "stubs"))
    for f in opened:
        assert f == str(kernel) or f.startswith(stubs + os.sep), f
    assert not any(f.endswith("stdio.h") for f in opened)


def test_syntax_error_maps_to_original_line_and_column() -> None:
    src = """//pass
#define N 4
#pragma unroll

__global__ void k(int *a) {
    int x = 1;
    a[0] = x +* ;
}
"""
    with pytest.raises(KplError) as ei:
        parse_cuda("bad.cu", src)
    e = ei.value
    assert (e.file, e.line) == ("bad.cu", 7)
    assert e.col == 17  # the token where the expression broke: ";"
    assert "syntax error" in e.message
    assert e.format().startswith("bad.cu:7:17: error:")


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
    out[0] = a[0] + b[0] + coeffs[0] + dyn[0] + counter + flag + v[0] + fileShared[0];
}
"""
    p = parse_cuda("s.cu", src)
    vs = p.var_spaces
    assert vs[(None, "coeffs")] == "constant"
    assert vs[(None, "counter")] == "device"
    assert vs[(None, "fileShared")] == "shared"
    assert vs[(None, "managed")] == "device"
    assert vs[("k", "a")] == vs[("k", "b")] == vs[("k", "flag")] == vs[("k", "dyn")] == "shared"
    assert vs[("k", "v")] == "shared"
    assert p.extern_shared == {("k", "dyn")}
    dyn = find(funcdefs(p)["k"], c_ast.Decl, lambda d: d.name == "dyn")[0]
    assert "extern" in dyn.storage
    assert "static" not in find(p.ast, c_ast.Decl, lambda d: d.name == "fileShared")[0].storage


def test_qualifiers_removed_with_columns_kept() -> None:
    src = ("__device__ __forceinline__ static inline float f(float x) { return x; }\n"
           "__host__ __device__ int hd(int x) { return x; }\n"
           "__noinline__ __device__ int g(const int * __restrict__ p) { return p[0]; }\n"
           "__global__ void __launch_bounds__(128) k1(float * __restrict__ a) { a[0] = f(1.0f); }\n"
           "__global__ void __launch_bounds__(256, 4) k2(int *a) { __align__(16) int x[4]; x[0] = hd(1); "
           "a[0] = g(x) + x[0]; }\n"
           "__global__ __attribute__((noinline)) void k3(int *a) { a[0] = 0; }\n"
           "__device__ int proto(int);\n"
           "__global__ void k4(int *a) { a[0] = proto(1); }\n")
    p = parse_cuda("q.cu", src)
    fs = p.functions
    assert fs["f"].kind == "device" and fs["hd"].kind == "device" and fs["g"].kind == "device"
    assert fs["k1"].launch_bounds == (128,) and fs["k2"].launch_bounds == (256, 4)
    assert fs["k3"].kind == "global" and fs["k3"].launch_bounds is None
    assert fs["proto"].has_body is False and fs["proto"].kind == "device"
    fd = funcdefs(p)
    assert set(fd) == {"f", "hd", "g", "k1", "k2", "k3", "k4"}
    # columns of the name are the original ones even though qualifiers were blanked
    assert fd["f"].decl.coord.column == src.index(" f(") + 2
    assert fs["k1"].col == src.splitlines()[3].index("k1(") + 1
    assert fd["k1"].decl.coord.column == fs["k1"].col
    assert "extern" not in str(fd["f"].decl.storage)


def test_host_functions_recorded_but_blanked() -> None:
    src = """__global__ void k(int *a) { a[threadIdx.x] = 0; }
int main(int argc, char **argv) {
    int *d; cudaMalloc(&d, 4);
    k<<<1, 32>>>(d);
    std::cout << "done";
    return 0;
}
"""
    p = parse_cuda("h.cu", src)
    assert p.functions["main"].kind == "host" and p.functions["main"].has_body
    assert set(funcdefs(p)) == {"k"}


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
template void reduce<float, 128, true>(float *, float *, unsigned int);

__global__ void after(int *a) {
    a[0] = 1;
}
"""
    p = parse_cuda("t.cu", src)
    fi = p.functions["reduce__int_256_false"]
    assert (fi.display_name, fi.base_name, fi.kind) == ("reduce<int, 256, false>", "reduce", "global")
    assert (fi.line, fi.col) == (2, 17)
    assert p.functions["reduce__float_128_true"].display_name == "reduce<float, 128, true>"
    assert "reduce" not in p.functions
    fd = funcdefs(p)
    assert set(fd) == {"reduce__int_256_false", "reduce__float_128_true", "after"}
    r = fd["reduce__int_256_false"]
    consts = {c.value for c in find(r, c_ast.Constant)}
    assert "256" in consts and "128" not in consts
    assert {i.name for i in find(r, c_ast.ID)} >= {"false"}
    sdata = find(r, c_ast.Decl, lambda d: d.name == "sdata")[0]
    assert sdata.type.type.type.names == ["int"]
    assert p.var_spaces[("reduce__int_256_false", "sdata")] == "shared"
    assert p.var_spaces[("reduce__float_128_true", "sdata")] == "shared"
    # the instantiated body keeps the template's original line numbers
    assert r.body.block_items[1].coord.line == 5
    assert r.body.block_items[1].coord.column == 18  # Decl coords point at the declared name
    assert r.body.block_items[4].coord.column == 5
    # code after the template is still on its own lines
    assert fd["after"].decl.coord.line == 16
    assert fd["after"].body.block_items[0].coord.line == 17


def test_template_bound_from_defines_and_missing_value() -> None:
    src = """template <unsigned int blockSize, int K = 2>
__global__ void r(int *a) { __shared__ int s[blockSize * K]; a[0] = s[0]; }
"""
    p = parse_cuda("d.cu", src, defines={"blockSize": "64"})
    name = "r__64_2"
    assert p.functions[name].display_name == "r<64, 2>"
    consts = {c.value for c in find(funcdefs(p)[name], c_ast.Constant)}
    assert {"64", "2"} <= consts
    with pytest.raises(KplError) as ei:
        parse_cuda("d.cu", src)
    # nvcc's rule: a kernel template nothing instantiates is no kernel (issue "Real CUDA as
    # written"); the message says how to instantiate it
    assert ei.value.message == ("unsupported: kernel template 'r' is never instantiated (add an explicit "
                                "instantiation or --kernel 'r<...>')")
    assert ei.value.line == 2


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
    p = parse_cuda("w.cu", src)
    fd = funcdefs(p)
    assert {"warpReduce__128", "warpReduce__64", "twice__float", "twice__int", "k__128", "plain"} == set(fd)
    k = fd["k__128"]
    assert len(calls(k, "warpReduce__128")) == 1
    assert len(calls(k, "twice__float")) == 1 and len(calls(k, "twice__int")) == 1
    assert len(calls(fd["plain"], "warpReduce__64")) == 1
    assert p.functions["warpReduce__128"].display_name == "warpReduce<128>"
    assert p.functions["warpReduce__128"].kind == "device"
    ret = find(fd["twice__float"].decl, c_ast.IdentifierType)[0]
    assert ret.names == ["float"]


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
    p = parse_cuda("sm.cu", src)
    for ty in ("float", "double"):
        name = f"__kpl_dynsmem_{ty}"
        assert p.var_spaces[(None, name)] == "shared"
        assert (None, name) in p.extern_shared
        decl = find(p.ast, c_ast.Decl, lambda d, n=name: d.name == n)[0]
        assert "extern" in decl.storage and isinstance(decl.type, c_ast.ArrayDecl)
    k = funcdefs(p)["k__float"]
    init = k.body.block_items[0].init
    assert isinstance(init, c_ast.ID) and init.name == "__kpl_dynsmem_float"
    assert not find(p.ast, c_ast.Struct, lambda s: s.name == "SharedMemory")


def test_textures() -> None:
    src = """texture<uchar4, 2, cudaReadModeElementType> tex;
static texture<float, 1> t1;
texture<float> tdefault;
__global__ void k(uchar4 *out, float *f, int w) {
    out[threadIdx.x] = tex2D(tex, threadIdx.x, 0);
    f[0] = tex1Dfetch(t1, 3) + tex1D(tdefault, 0.5f);
}
"""
    p = parse_cuda("tx.cu", src)
    assert p.textures == {"tex": ("uchar4", 2), "t1": ("float", 1), "tdefault": ("float", 1)}
    k = funcdefs(p)["k"]
    assert len(calls(k, "tex2D")) == 1 and len(calls(k, "tex1Dfetch")) == 1
    assert find(p.ast, c_ast.Decl, lambda d: d.name == "tex")


def test_inline_ptx_barriers() -> None:
    src = """__global__ void k(int *a, int id, int n) {
    asm volatile("bar.sync 1, 64;");
    asm("bar.arrive 2, 128;");
    asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(n));
    asm volatile("bar.sync 0;");
    asm volatile("barrier.sync 3, 32;");
    __asm__ __volatile__("bar.arrive %0, %1;" : : "r"(id + 1), "r"(n * 2));
    asm volatile("membar.cta;");
    a[0] = 1;
}
"""
    p = parse_cuda("ptx.cu", src)
    items = funcdefs(p)["k"].body.block_items
    rendered = []
    for it in items[:7]:
        assert isinstance(it, c_ast.FuncCall)
        args = [a.value if isinstance(a, c_ast.Constant) else type(a).__name__ for a in it.args.exprs]
        rendered.append((it.name.name, args))
    assert rendered[0] == ("__kpl_bar_sync", ["1", "64"])
    assert rendered[1] == ("__kpl_bar_arrive", ["2", "128"])
    assert rendered[2][0] == "__kpl_bar_sync"
    assert [a.name for a in items[2].args.exprs] == ["id", "n"]
    assert rendered[3] == ("__kpl_bar_sync", ["0"])
    assert rendered[4] == ("__kpl_bar_sync", ["3", "32"])
    assert rendered[5] == ("__kpl_bar_arrive", ["BinaryOp", "BinaryOp"])
    assert rendered[6] == ("__kpl_asm", ['"membar.cta;"'])
    assert [it.coord.line for it in items] == list(range(2, 10))


def test_cpp_casts_bool_nullptr() -> None:
    src = """__device__ bool isPos(int x) { return x > 0 ? true : false; }
__global__ void k(float *a, int *b) {
    int *p = nullptr;
    a[0] = static_cast<float>(b[0]) + reinterpret_cast<float *>(b)[1];
    bool ok = isPos(b[0]);
    if (p == nullptr && ok) a[1] = 0;
}
"""
    p = parse_cuda("c.cu", src)
    k = funcdefs(p)["k"]
    casts = find(k, c_ast.Cast)
    assert len(casts) == 2
    assert casts[0].to_type.type.type.names == ["float"]
    assert isinstance(casts[1].to_type.type, c_ast.PtrDecl)
    assert k.body.block_items[1].coord.line == 4


def test_gpuverify_annotations_parse() -> None:
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
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}
"""
    p = parse_cuda("a.cu", src)
    k = funcdefs(p)["k"]
    assert len(calls(k, "__requires")) == 2
    loop = find(k, c_ast.For)[0]
    assert isinstance(loop.cond, c_ast.ExprList) and len(loop.cond.exprs) == 4
    assert len(calls(k, "barrier")) == 1


def test_several_kernels_and_extern_c() -> None:
    src = """extern "C" __global__ void a(int *x) { x[0] = 1; }
extern "C" {
__global__ void b(int *x) { x[0] = 2; }
}
__global__ void c(int *x) { x[0] = 3; }
"""
    p = parse_cuda("m.cu", src)
    assert [n for n, f in p.functions.items() if f.kind == "global"] == ["a", "b", "c"]
    assert set(funcdefs(p)) == {"a", "b", "c"}
    assert funcdefs(p)["b"].decl.coord.line == 3


def test_vector_types_and_builtins() -> None:
    src = """__global__ void k(float4 *a, uchar4 *b, int2 *c, double2 *d, dim3 *e) {
    float4 v = make_float4(1.0f, 2.0f, 3.0f, 4.0f);
    a[0] = v; b[0].w = 1; c[0].y = warpSize; d[0].x = 0.5;
    uint u = blockDim.x * gridDim.y + blockIdx.z; size_t s = u;
    a[1].x = __fdividef(__expf(1.0f), rsqrtf(s)) + fminf(fmaxf(1, 2), 3) + __saturatef(0.5f);
    atomicAdd(&c[0].x, __popc(__ballot_sync(0xffffffff, 1)) + __shfl_down_sync(0xffffffff, u, 1));
}
"""
    p = parse_cuda("v.cu", src)
    assert "k" in funcdefs(p)


def test_unsupported_class_and_lexer_errors() -> None:
    with pytest.raises(KplError) as ei:
        parse_cuda("cls.cu", "class Foo { int x; };\n__global__ void k() {}\n")
    assert "unsupported construct: C++ class" in ei.value.message and ei.value.line == 1
    with pytest.raises(KplError) as ei:
        parse_cuda("ns.cu", "__global__ void k(int *a) {\n  a[0] = cg::this_thread_block();\n}\n")
    assert "'::'" in ei.value.message and ei.value.line == 2
    with pytest.raises(KplError) as ei:
        parse_cuda("e.cu", "#error boom\n")
    assert "boom" in ei.value.message and ei.value.line == 1


def test_read_from_disk_and_missing_file(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    f.write_text(BASIC)
    p = parse_cuda(str(f))
    assert p.text == BASIC and p.path == str(f)
    with pytest.raises(KplError):
        parse_cuda(str(tmp_path / "absent.cu"))


def test_lowered_text_is_line_aligned_for_untouched_lines() -> None:
    p = parse_cuda("k.cu", BASIC)
    for ln in (9, 10, 11, 13):  # line 12 uses the macro N
        orig = p.original_line("k.cu", ln)
        code = orig.split("//")[0].rstrip()
        assert p.lowered_line("k.cu", ln).rstrip() == code
    assert user_decls(p)


def test_call_without_template_arguments_needs_them() -> None:
    # an argument whose type the deduction does not compute (an arithmetic expression)
    src = "template <class T> __device__ T sq(T x) { return x * x; }\n" \
          "__global__ void k(float *a) {\n    a[0] = sq(a[0] * 2);\n}\n"
    with pytest.raises(KplError) as ei:
        parse_cuda("x.cu", src)
    assert "cannot deduce the template arguments of 'sq'" in ei.value.message
    assert (ei.value.line, ei.value.col) == (3, 12)
    p = parse_cuda("x.cu", src.replace("sq(a[0] * 2)", "sq<float>(a[0] * 2)"))
    assert "sq__float" in funcdefs(p)
    # an element of a float array: T = float, as nvcc deduces it
    p = parse_cuda("x.cu", src.replace("sq(a[0] * 2)", "sq(a[0])"))
    assert "sq__float" in funcdefs(p)


def test_unsupported_class_template() -> None:
    with pytest.raises(KplError) as ei:
        # data-only and methods-only class templates are lowered (tests/test_templates.py); a
        # method that reads a data member would need `this`
        parse_cuda("ct.cu", "template <class T> class Vec { T x; __device__ T get() { return x; } };\n")
    assert "C++ class template 'Vec'" in ei.value.message


def test_text_stages_run_one_by_one_with_typed_outputs() -> None:
    """preprocess -> templates -> CUDA lowering, each a module with a dataclass output."""
    from kpl.lower_cuda import CudaLowerer, Lowered
    from kpl.preprocess import Preprocessed, preprocess
    from kpl.templates import Expanded, TemplateExpander

    text = ("template<int N> __global__ void k(int *a) { __shared__ int s[N]; s[threadIdx.x] = a[0]; }\n"
            "template __global__ void k<64>(int*);\n")
    pre = preprocess("k.cu", text)
    assert isinstance(pre, Preprocessed) and pre.files == {"k.cu": text}
    expanded = TemplateExpander(pre.text, "k.cu", {}).run()
    assert isinstance(expanded, Expanded)
    assert [(m, i.display, i.line, i.col) for m, i in expanded.instances.items()] == [("k__64", "k<64>", 1, 33)]
    low = CudaLowerer(expanded.text, "k.cu", expanded.instances).run()
    assert isinstance(low, Lowered)
    assert low.functions["k__64"].kind == "global"
    assert low.var_spaces == {("k__64", "s"): "shared"}
    assert "int s[64];" in low.text and "__shared__" not in low.text


def test_preprocess_stage_does_not_import_later_stages() -> None:
    """The stages import forwards only (the old kpl.cuda <-> kpl.preprocess cycle is gone)."""
    import subprocess
    import sys

    code = ("import sys, kpl.preprocess; "
            "assert not {'kpl.cuda', 'kpl.templates', 'kpl.lower_cuda', 'kpl.frontend'} & set(sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True)
