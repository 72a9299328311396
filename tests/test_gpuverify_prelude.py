"""What a file written for GPUVerify may use that nvcc's would not, and what nvcc accepts that a
strict reading would refuse (issue 34): our own kernels in tests/kernels/prelude/, each
race-free one beside a racy twin, checked through the CLI as a user runs it.

* ``bodiless_*``: a function with no body, in a file with GPUVerify's flags line, is an
  arbitrary value per call and per thread with no effect on memory (its arguments are still
  read); without the flags line it stays an error.
* ``names_*``, ``vectors_*``: such a file sees GPUVerify's prelude without an include (curand,
  cooperative groups, element-wise vector operators); other files need the include.
* ``nvcc_*``: what nvcc accepts in any file: ``__device__ __shared__`` on a local array, a
  file's own function of a built-in's signature (its definition wins), ``tex2D`` of a
  normalized-float texture returning floats, a method called on a by-value object parameter.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from autosync.commands.cli import app
from kpl.errors import KplError
from kpl.frontend import load_kernels

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "tests" / "kernels" / "prelude"
sys.path.insert(0, str(ROOT / "microbench"))

import constructs  # noqa: E402  (the header's expectations, read and judged as for constructs/)

FILES = sorted([*KERNELS.glob("*.cu"), *KERNELS.glob("*.cl")])


def _check(path: Path) -> tuple[constructs.Outcome, dict]:
    res = CliRunner().invoke(app, constructs.check_args(path, 20))
    out = constructs.Outcome(res.exit_code, res.stdout, res.stderr)
    return out, json.loads(res.stdout) if res.stdout.strip().startswith("{") else {}


def test_every_class_has_a_race_free_kernel_and_a_racy_twin() -> None:
    kinds: dict[str, set[bool]] = {}
    for p in FILES:
        kinds.setdefault(p.stem.split("_", 1)[0] + p.suffix, set()).add(constructs.expectation(p).racy)
    assert kinds and all(k == {True, False} for k in kinds.values()), kinds


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_kernel_gets_its_verdict(path: Path) -> None:
    out, _ = _check(path)
    judgement = constructs.judge(constructs.expectation(path), out)
    assert judgement.as_expected, f"{judgement.column}: {judgement.why}"


def test_bodiless_calls_are_noted_once_per_function() -> None:
    path = KERNELS / "bodiless_ok.cu"
    out, _ = _check(path)
    notes = [line for line in out.stderr.splitlines() if ": note: " in line]
    assert notes == [
        f"{path}:8:1: note: call to 'pick', which has no body: an arbitrary value with no effect "
        "on memory, as GPUVerify assumes",
        f"{path}:9:1: note: call to 'observe', which has no body: no effect on memory, as "
        "GPUVerify assumes",
        f"{path}:10:1: note: call to 'blend', which has no body: an arbitrary value with no effect "
        "on memory, as GPUVerify assumes; it does not write through its pointer arguments",
    ]


def test_a_bodiless_value_may_differ_between_threads() -> None:
    """Not one value for the whole block: a barrier under it diverges."""
    out, doc = _check(KERNELS / "bodiless_divergent.cu")
    assert out.code == 1 and [d["line"] for d in doc["divergences"]] == [13]


@pytest.mark.parametrize("name, text", [
    ("k.cu", "__device__ int pick(void);\n__global__ void k(int *a) { a[threadIdx.x] = pick(); }\n"),
    ("k.cl", "int pick(void);\n__kernel void k(__global int *a) { a[get_local_id(0)] = pick(); }\n"),
])
def test_without_the_flags_line_a_bodiless_call_stays_an_error(name: str, text: str) -> None:
    with pytest.raises(KplError, match="call to 'pick', which has no body here and no model"):
        load_kernels(name, text)
    load_kernels(name, "//--local_size=8 --num_groups=1\n" + text if name.endswith(".cl")
                 else "//--blockDim=8 --gridDim=1\n" + text)


def test_prelude_parts_are_noted_at_their_first_use() -> None:
    path = KERNELS / "names_ok.cu"
    out, _ = _check(path)
    assert [line for line in out.stderr.splitlines() if ": note: " in line] == [
        f"{path}:11:23: note: cooperative groups (namespace cooperative_groups) are declared "
        "without an include, as in GPUVerify's prelude",
        f"{path}:13:3: note: curand's generator states and functions are declared without an "
        "include, as in GPUVerify's prelude",
    ]


@pytest.mark.parametrize("text, error", [
    ("__global__ void k(curandState *g, float *a) { a[threadIdx.x] = curand_uniform(&g[threadIdx.x]); }\n",
     "unknown type name 'curandState'"),
    ("using namespace cooperative_groups;\n__global__ void k(int *a) {\n"
     "  thread_block b = this_thread_block(); a[b.thread_rank()] = 0; }\n", "'thread_block'"),
    ("__global__ void k(float3 *a) { a[threadIdx.x] = a[threadIdx.x] + a[threadIdx.x]; }\n",
     "invalid operands to binary expression"),
])
def test_without_the_flags_line_the_prelude_names_need_their_include(text: str, error: str) -> None:
    """nvcc declares none of them without an include: neither do we, in a file not written
    for GPUVerify."""
    with pytest.raises(KplError, match=error):
        load_kernels("k.cu", text)
    load_kernels("k.cu", "//--blockDim=32 --gridDim=1\n" + text)


def test_a_files_own_vector_operator_wins_over_the_prelude() -> None:
    """GPUVerify's element-wise operators are templates: the file's own (non-template) one of
    the same signature is chosen, never ambiguous."""
    kernel = load_kernels("k.cu", "//--blockDim=32 --gridDim=1\n"
                          "__device__ float3 operator+(float3 a, float3 b) { return make_float3(a.x, b.y, 0); }\n"
                          "__global__ void k(float3 *a) { a[threadIdx.x] = a[threadIdx.x] + a[threadIdx.x]; }\n")[0]
    from kpl import ast as K
    inlined = [s for s in K.walk_stmts(kernel.body) if isinstance(s, K.Inline)]
    assert [s.function for s in inlined] == ["operator+"]
    assert all(s.span is None or s.span.line == 3 for s in inlined)
    assert not kernel.notes


def test_nvcc_leniencies_are_noted() -> None:
    shared, builtin = KERNELS / "nvcc_shared_ok.cu", KERNELS / "nvcc_builtin_ok.cu"
    assert f"{shared}:8:3: note: '__device__ __shared__' on a local variable is read as " \
        "'__shared__', as nvcc reads it" in _check(shared)[0].stderr
    assert f"{builtin}:7:16: note: 'max' defined here has the signature of a CUDA built-in: nvcc " \
        "accepts it, and its calls use this definition" in _check(builtin)[0].stderr


def test_a_declaration_of_a_builtins_signature_is_the_builtin() -> None:
    """Only declared (no body), the file's ``max`` is CUDA's: its model stays, and the kernel
    is not stopped by clang's refusal of the pair."""
    kernel = load_kernels("k.cu", "__device__ float max(float, float);\n"
                          "__global__ void k(float *a) { a[threadIdx.x] = max(a[threadIdx.x], 1.0f); }\n")[0]
    assert kernel.notes == ["k.cu:1:18: note: 'max' declared here has the signature of a CUDA built-in: "
                            "nvcc accepts it, and its calls use the built-in"]
