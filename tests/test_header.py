"""Tests for kpl.header (GPUVerify-style header comments) and kpl.errors."""

from __future__ import annotations

import pytest

from kpl.errors import KplError
from kpl.header import parse_header


def test_pass_and_scalar_dims() -> None:
    h = parse_header("//pass\n//--blockDim=256 --gridDim=64\n__global__ void k() {}\n", "k.cu")
    assert h.verdict == "pass"
    assert h.block_dim == (256, 1, 1)
    assert h.grid_dim == (64, 1, 1)
    assert h.warp_sync is None
    assert h.flags == []


def test_vector_dims_warp_sync_flags_and_expected() -> None:
    text = (
        "//xfail:NOT_ALL_VERIFIED\n"
        "//--blockDim=[16,8] --gridDim=[2, 3, 4] --warp-sync=32 --no-inline -DN=4 -DFLAG\n"
        "// autosync: min_barriers=2 races=1\n"
        "// autosync: note=x\n"
        "int x;\n"
    )
    h = parse_header(text, "k.cu")
    assert h.verdict == "xfail:NOT_ALL_VERIFIED"
    assert h.block_dim == (16, 8, 1)
    assert h.grid_dim == (2, 3, 4)
    assert h.warp_sync == 32
    assert h.flags == ["--no-inline", "-DN=4", "-DFLAG"]
    assert h.expected == {"min_barriers": "2", "races": "1", "note": "x"}
    assert h.defines == {"N": "4", "FLAG": "1"}


def test_no_header() -> None:
    h = parse_header("__global__ void k() {}\n", "k.cu")
    assert h.verdict is None and h.block_dim is None and h.grid_dim is None
    assert h.expected == {}


def test_flags_after_code_are_ignored() -> None:
    h = parse_header("//pass\nint x;\n//--blockDim=8\n// autosync: not a key value line\n", "k.cu")
    assert h.block_dim is None and h.expected == {}


def test_malformed_dim_points_at_value() -> None:
    with pytest.raises(KplError) as ei:
        parse_header("//pass\n//--blockDim=[16,x]\n", "k.cu")
    e = ei.value
    assert (e.file, e.line) == ("k.cu", 2)
    assert e.col == len("//--blockDim=") + 1
    assert "blockDim" in e.message


def test_malformed_zero_and_too_many_dims() -> None:
    with pytest.raises(KplError):
        parse_header("//pass\n//--gridDim=0\n", "k.cu")
    with pytest.raises(KplError):
        parse_header("//pass\n//--gridDim=[1,2,3,4]\n", "k.cu")
    with pytest.raises(KplError):
        parse_header("//pass\n//--warp-sync=abc\n", "k.cu")


def test_malformed_autosync_line() -> None:
    with pytest.raises(KplError) as ei:
        parse_header("//pass\n// autosync: min_barriers\n", "k.cu")
    assert ei.value.line == 2


def test_kplerror_format() -> None:
    assert KplError("bad", "a.cu", 3, 7).format() == "a.cu:3:7: error: bad"
    assert KplError("bad", "a.cu", 3).format() == "a.cu:3: error: bad"
    assert KplError("bad", "a.cu").format() == "a.cu: error: bad"
    assert KplError("bad").format() == "error: bad"
    e = KplError("bad", "a.cu", 1, 2)
    assert (e.message, e.file, e.line, e.col) == ("bad", "a.cu", 1, 2)
    assert str(e) == "a.cu:1:2: error: bad"


def test_only_line_two_is_the_flags_line() -> None:
    text = ("//pass\n//--blockDim=64 --gridDim=4\n"
            "//ALTERNATIVELY: --blockDim=16 --gridDim=2\n"
            "//--blockDim=8 -DN=3\n"
            "__global__ void k() {}\n")
    h = parse_header(text, "k.cu")
    assert (h.block_dim, h.grid_dim) == ((64, 1, 1), (4, 1, 1))
    assert h.flags == [] and h.defines == {}


def test_flags_on_line_one_without_verdict_and_not_on_line_three() -> None:
    assert parse_header("//--blockDim=32\n", "k.cu").block_dim == (32, 1, 1)
    h = parse_header("//pass\n// a remark\n//--blockDim=32\n", "k.cu")
    assert h.verdict == "pass" and h.block_dim is None


def test_unknown_gpuverify_flags_ignored_and_d_is_a_define() -> None:
    text = ("//xfail:NOT_ALL_VERIFIED\n"
            "//--blockDim=[8,8] --gridDim=2 --no-inline --only-intra-group --equality-abstraction"
            " --check-array-bounds --boogie-file=${KERNEL_DIR}/axioms.bpl -DWIDTH=8 -DFAST\n")
    h = parse_header(text, "k.cu")
    assert (h.block_dim, h.grid_dim) == ((8, 8, 1), (2, 1, 1))
    assert h.defines == {"WIDTH": "8", "FAST": "1"}
    assert "--boogie-file=${KERNEL_DIR}/axioms.bpl" in h.flags


def test_header_after_bom_and_with_crlf() -> None:
    h = parse_header("\ufeff//pass\r\n//--blockDim=128 --gridDim=8\r\nint x;\r\n", "k.cu")
    assert (h.verdict, h.block_dim, h.grid_dim) == ("pass", (128, 1, 1), (8, 1, 1))


def test_header_define_reaches_the_kernel(tmp_path: object) -> None:
    """The header's -D reaches the preprocessor (clang's -D), not the ALTERNATIVELY line's."""
    from kpl import ast as K
    from kpl.frontend.kernels import parse_kernel_text

    text = ("//pass\n//--blockDim=64 --gridDim=1 --no-inline -DWIDTH=8\n"
            "//ALTERNATIVELY: -DWIDTH=16\n__global__ void k(int *a) { a[0] = WIDTH; }\n")
    kernel = parse_kernel_text(text, "k.cu")
    stores = [s for s in kernel.body.stmts if isinstance(s, K.Assign) and isinstance(s.target, K.MemElem)]
    assert len(stores) == 1 and isinstance(stores[0].value, K.Const) and stores[0].value.value == 8


def test_verdict_in_capitals_still_leaves_line_two_the_flags_line() -> None:
    h = parse_header("//PASS\n//--local_size=64 --num_groups=2\n__kernel void k() {}\n", "k.cl")
    assert h.verdict == "pass" and h.block_dim == (64, 1, 1) and h.grid_dim == (2, 1, 1)
    assert parse_header("//XFAIL:NOT_ALL_VERIFIED\n//--blockDim=32\n", "k.cu").verdict == "xfail:NOT_ALL_VERIFIED"
