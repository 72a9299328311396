"""Templates as nvcc sees them (issue "Real CUDA as written", section 3): kernel templates
instantiated explicitly, by ``--kernel 'k<32>'``, or by deduction at a host launch; class
templates; explicit specialisations; overloads; deduced ``__device__`` calls; the
"never instantiated" error; a fix rendered once into the template text.

The construct kernels ``tests/kernels/constructs/03_tpl_*`` are judged here through the CLI
(their verdict and race lines from their headers); the rest are small texts.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from autosync.commands.cli import app
from kpl.cuda import parse_cuda
from kpl.errors import KplError

ROOT = Path(__file__).resolve().parent.parent
CONSTRUCTS = ROOT / "tests" / "kernels" / "constructs"


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args])


def header_races(path: Path) -> set[tuple[int, int]]:
    m = re.search(r"^// autosync: races=(\S+)", path.read_text(), re.M)
    if m is None:
        return set()
    return {tuple(sorted(int(x) for x in p.split("-"))) for p in m.group(1).split(",")}  # type: ignore[misc]


@pytest.mark.parametrize("name", sorted(p.name for p in CONSTRUCTS.glob("03_tpl_*.cu")))
def test_template_construct_kernels(name: str) -> None:
    path = CONSTRUCTS / name
    res = invoke("check", "--format", "json", path)
    doc = json.loads(res.stdout)
    racy = path.read_text().startswith("//xfail")
    assert res.exit_code == (1 if racy else 0), res.output
    assert len(doc["kernels"]) >= 1
    if racy:
        for k in doc["kernels"]:  # every instantiation is flagged at the named lines
            found = {tuple(sorted((r["first"]["line"], r["second"]["line"]))) for r in k["races"]}
            assert header_races(path) <= found, (k["kernel"], found)
    else:
        assert all(k["verified"] for k in doc["kernels"])


def test_two_explicit_instantiations_are_two_kernels() -> None:
    res = invoke("check", "--format", "json", CONSTRUCTS / "03_tpl_explicit_racy.cu")
    names = [k["kernel"] for k in json.loads(res.stdout)["kernels"]]
    assert names == ["shift<1>", "shift<4>"]


TPL = """template <int B>
__global__ void rev(float *x) {
  __shared__ float s[B];
  int t = threadIdx.x;
  s[t] = x[blockIdx.x * B + t];
  x[blockIdx.x * B + t] = s[B - 1 - t];
}
"""


def test_never_instantiated_kernel_template(tmp_path: Path) -> None:
    f = tmp_path / "n.cu"
    f.write_text(TPL)
    res = invoke("check", "--blockDim", "32", f)
    assert res.exit_code == 2
    assert res.output.strip() == (f"{f}:2:17: error: unsupported: kernel template 'rev' is never instantiated "
                                  "(add an explicit instantiation or --kernel 'rev<...>')")


def test_kernel_option_instantiates(tmp_path: Path) -> None:
    f = tmp_path / "n.cu"
    f.write_text(TPL)
    res = invoke("check", "--blockDim", "32", "--gridDim", "2", "--kernel", "rev<32>", "--format", "json", f)
    assert res.exit_code == 1, res.output
    doc = json.loads(res.stdout)
    assert [k["kernel"] for k in doc["kernels"]] == ["rev<32>"]
    assert {(r["first"]["line"], r["second"]["line"]) for r in doc["kernels"][0]["races"]} == {(5, 6)}
    # the fix goes into the template text, once
    out = tmp_path / "fixed.cu"
    res = invoke("fix", "--blockDim", "32", "--gridDim", "2", "--kernel", "rev<32>", "-o", out, f)
    assert res.exit_code == 0, res.output
    fixed = out.read_text()
    # B = 32 threads, one warp: the cheaper warp barrier suffices (autosync.algorithm.cost, WC)
    assert fixed.count("__syncwarp()") == 1 and fixed.startswith("template <int B>")
    for bad, msg in (("rev<32", "bad --kernel value"), ("foo<32>", "'foo' is not a kernel template")):
        res = invoke("check", "--blockDim", "32", "--kernel", bad, f)
        assert res.exit_code == 2 and msg in res.output and "Traceback" not in res.output


def test_fix_of_two_instantiations_is_rendered_once(tmp_path: Path) -> None:
    f = tmp_path / "e.cu"
    f.write_text((CONSTRUCTS / "03_tpl_explicit_racy.cu").read_text())
    out = tmp_path / "fixed.cu"
    res = invoke("fix", "-o", out, f)
    assert res.exit_code == 0, res.output
    assert out.read_text().count("__syncthreads()") == 1
    res = invoke("check", "--format", "json", out)
    assert res.exit_code == 0 and all(k["verified"] for k in json.loads(res.stdout)["kernels"])


def test_deduction_from_a_host_launch() -> None:
    src = """template <typename T>
__global__ void k(T *x, T a) { x[threadIdx.x] = x[threadIdx.x] * a; }
void host(float *d_x, int n) {
  float a = 2.0f;
  k<<<n / 256, 256>>>(d_x, a);
}
"""
    p = parse_cuda("h.cu", src)
    assert p.functions["k__float"].display_name == "k<float>"
    # non-type parameters are not deduced: an int N needs <...>
    with pytest.raises(KplError) as ei:
        parse_cuda("h.cu", src.replace("typename T", "typename T, int N"))
    assert "cannot deduce the template arguments of 'k'" in ei.value.message
    assert (ei.value.line, ei.value.col) == (5, 3)


def test_specialisation_overloads_and_deduced_device_calls() -> None:
    src = """template <class T> __device__ T op(T a) { return a + 1; }
template <> __device__ float op<float>(float a) { return a * 3.0f; }
template <class T> __device__ T ld(const T *p, int i) { return p[i]; }
template <class T> __device__ T ld(const T *p, int i, int s) { return p[i * s]; }
template <class T> __device__ T max_of(T a, T b) { return a > b ? a : b; }
__global__ void k(const float *in, float *out, int *o2) {
  float a = ld(in, 1), b = ld(in, 2, 4);
  float m = max_of(a, b);
  out[threadIdx.x] = op(m) + op<float>(a);
  o2[threadIdx.x] = op<int>(3);
}
"""
    p = parse_cuda("s.cu", src)
    assert {"op__float", "op__int", "ld__float", "ld__float_o2", "max_of__float"} <= set(p.functions)
    low = p.lowered
    assert "a * 3.0f" in low and "return a + 1" in low  # the specialisation for float, the primary for int
    assert low.count("float op__float(") == 1


def test_class_templates() -> None:
    src = """template <class T> struct Buf;
template <> struct Buf<float> {
  __device__ float *get() { extern __shared__ float bf[]; return bf; }
};
template <typename T, int N = 4> struct Vec {
  static const int SIZE = N * 2;
  T v[N];
};
template <class T>
__global__ void k(T *out) {
  Buf<T> b;
  T *s = b.get();
  Vec<T> r;
  s[threadIdx.x] = Vec<T>::SIZE;
  out[threadIdx.x] = s[threadIdx.x];
}
template __global__ void k<float>(float *);
"""
    p = parse_cuda("c.cu", src)
    low = p.lowered
    assert "typedef struct Vec__float_4 { float v[4]; } Vec__float_4;" in low
    assert "Vec__float_4 r;" in low and "= (4 * 2);" in low
    assert "float *s = bf;" in low
    # no definition for the argument: a one-line error at the use
    with pytest.raises(KplError) as ei:
        parse_cuda("c.cu", src.replace("k<float>(float *)", "k<int>(int *)"))
    assert "class template 'Buf' has no definition for <int>" in ei.value.message
    assert ei.value.line == 11


def test_shared_template_names_the_other_instantiations() -> None:
    from kpl.templates import shared_template

    why = shared_template("k<1>", ["k<4>", "other", "kk<1>"])
    assert why is not None and "shared with k<4>;" in why and "'k<1>'" in why
    assert shared_template("k<1>", ["kk<1>", "other"]) is None
    assert shared_template("plain", ["plain"]) is None


def test_member_types_and_typename() -> None:
    src = """template <class T> struct Traits {
  typedef T value_type;
  using acc_type = double;
  static const int LANES = 4;
};
template <class T>
__global__ void k(T *out) {
  typename Traits<T>::value_type v = out[threadIdx.x];
  typename Traits<T>::acc_type a = v * Traits<T>::LANES;
  out[threadIdx.x] = a;
}
template __global__ void k<float>(float *);
"""
    low = parse_cuda("t.cu", src).lowered
    assert "float v = out[threadIdx.x];" in low
    assert "double a = v * (4);" in low
    assert "typename" not in low


def test_class_template_temporary_method_call() -> None:
    src = """template <class T> __device__ T conv(int v) { return v; }
template <class T> struct SharedMemory {
  __device__ T *getPointer() { extern __shared__ T sm[]; return sm; }
  __device__ T zero() { return conv<T>(0); }
};
template <class T>
__global__ void k(T *out) {
  T *s = SharedMemory<T>().getPointer();
  s[threadIdx.x] = SharedMemory<T>().zero();
  out[threadIdx.x] = s[threadIdx.x];
}
template __global__ void k<int>(int *);
"""
    low = parse_cuda("m.cu", src).lowered
    assert "int *s = sm;" in low
    assert "s[threadIdx.x] = SharedMemory__int__zero();" in low
    assert "return conv__int(0);" in low  # a method's own template calls are instantiated


MIRROR = """template <int S>
__global__ void mirror(float *d) {
  __shared__ float s[64];
  int t = threadIdx.x;
  if (t < S) {
    s[t] = d[t];
    d[t] = s[S - 1 - t];
  }
}

template __global__ void mirror<64>(float *);
template __global__ void mirror<1>(float *);
"""


def test_fix_whose_template_union_fails_an_instantiation(tmp_path: Path) -> None:
    """mirror<64> needs a barrier inside `if (t < S)`; rendered once in the template text it is
    also mirror<1>'s, where only thread 0 reaches it (a divergent barrier): exit 1, say why."""
    f = tmp_path / "m.cu"
    f.write_text(MIRROR)
    out = tmp_path / "fixed.cu"
    res = invoke("fix", "--blockDim", "64", "--gridDim", "1", "-o", out, f)
    assert res.exit_code == 1, res.output
    assert (f"{f}: error: cannot fix: kernel 'mirror<1>': its template text is shared with mirror<64>; "
            "the union of their barrier placements does not verify for 'mirror<1>'") in res.output
    assert not out.exists() and f.read_text() == MIRROR
