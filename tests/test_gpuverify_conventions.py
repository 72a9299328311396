"""GPUVerify's conventions in files written for it (issue 34): launches and static __shared__
memory past CUDA's limits analysed as written, file-scope variables with no memory space as
global memory, the header's size formats, its options honoured or named, and the include
sandbox of a project's tree.  Each convention is said once as a ``note:``; outside such a
file a launch past the limits is a ``warning:`` and a host variable in a kernel an error.
Kernels: tests/kernels/gpuverify/ (a race-free one and its racy twin per class)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from autosync.commands.cli import app
from kpl.header import parse_header

ROOT = Path(__file__).resolve().parent.parent
GV = ROOT / "tests" / "kernels" / "gpuverify"


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args])


def notes(res: Result) -> list[str]:
    return [ln for ln in res.stderr.splitlines() if ": note: " in ln or ": warning: " in ln]


@pytest.mark.parametrize("name, code, said", [
    ("big_block.cu", 0, ":2:5: note: blockDim [2048, 1, 1] has 2048 threads, past CUDA's limit of 1024 "
                        "threads a block: analysed as written, as GPUVerify does"),
    ("big_block_racy.cu", 1, "past CUDA's limit of 1024 threads a block"),
    ("wide_group.cl", 0, ":2:5: note: local_size [64, 32, 1] has 2048 work-items, past the 1024 "
                         "work-items a work-group commonly allows"),
    ("wide_group_racy.cl", 1, "2048 work-items"),
    ("big_shared.cu", 0, ":6:3: note: 65536 bytes of static __shared__ memory, past CUDA's limit of "
                         "49152 (48 KB) a block: analysed as written, as GPUVerify does"),
    ("big_shared_racy.cu", 1, "65536 bytes of static __shared__ memory"),
    ("host_global.cu", 0, ":6:5: note: file-scope variable 'tally' has no memory space: global memory, "
                          "as GPUVerify reads it"),
    ("host_global_racy.cu", 1, "file-scope variable 'tally'"),
    ("any_size.cl", 0, None),
    ("any_size_racy.cl", 1, None),
    ("same_value.cl", 0, None),
    ("same_value_nobenign.cl", 1, ":2:3: note: GPUVerify's options honoured: --no-benign-tolerance: "
                                  "two writes of one value are a race"),
    ("across_groups.cl", 0, "--only-intra-group: races between groups are not reported"),
    ("across_groups_racy.cl", 1, None),
    ("in_bounds.cl", 0, "--check-array-bounds: an access out of an array of known size is an error"),
    ("out_of_bounds.cl", 1, "--check-array-bounds"),
    ("given_args.cl", 0, "--kernel-args: the kernel's integer arguments take the values given"),
    ("given_args_racy.cl", 1, "--kernel-args"),
    ("work_dim.cl", 0, None),
    ("work_dim_racy.cl", 1, None),
])
def test_gpuverify_file_verdicts(name: str, code: int, said: str | None) -> None:
    """Each class's twins get their real verdict; the convention is said once, as a note."""
    res = invoke("check", GV / name)
    assert res.exit_code == code, res.output
    said_lines = notes(res)
    if said is None:
        assert said_lines == [], said_lines
    else:
        assert len(said_lines) == 1 and said in said_lines[0] and ": note: " in said_lines[0], said_lines


def test_race_and_bounds_messages() -> None:
    res = invoke("check", GV / "big_block_racy.cu")
    assert "race on 'vals'" in res.stdout and "<<<2, 2048>>>" in res.stdout
    res = invoke("check", GV / "out_of_bounds.cl")
    assert ":6:3: error: array-bounds check (--check-array-bounds) might not hold: it fails for thread 15" \
        in res.stdout
    res = invoke("check", GV / "host_global_racy.cu")
    assert "write-write race on 'tally'" in res.stdout


def test_without_the_flags_line_a_launch_past_the_limit_is_a_warning(tmp_path: Path) -> None:
    """No flags line, or a --blockDim on the command line: a warning, and still analysed."""
    src = tmp_path / "k.cu"
    src.write_text("\n".join((GV / "big_block_racy.cu").read_text().splitlines()[2:]) + "\n")
    res = invoke("check", src, "--blockDim", "2048", "--gridDim", "2")
    assert res.exit_code == 1, res.output
    assert notes(res) == [f"{src}: warning: blockDim [2048, 1, 1] has 2048 threads, past CUDA's limit of "
                          "1024 threads a block: analysed as written"]
    res = invoke("check", GV / "big_block.cu", "--blockDim", "4096")
    assert res.exit_code == 0, res.output
    assert [ln for ln in notes(res) if "4096" in ln and ": warning: " in ln], res.output
    res = invoke("check", GV / "big_block.cu", "--blockDim", str(2**32))
    assert res.exit_code == 2 and "does not fit in 32 bits" in res.output


def test_without_the_flags_line_static_shared_past_48k_is_a_warning(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_text("\n".join((GV / "big_shared.cu").read_text().splitlines()[3:]) + "\n")
    res = invoke("check", src, "--blockDim", "256", "--gridDim", "1")
    assert res.exit_code == 0, res.output
    (line,) = notes(res)
    assert line.startswith(f"{src}:3:3: warning: 65536 bytes of static __shared__ memory") and \
        "use extern __shared__ for more" in line


def test_without_the_flags_line_a_host_variable_stays_an_error(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_text("\n".join((GV / "host_global.cu").read_text().splitlines()[2:]) + "\n")
    res = invoke("check", src, "--blockDim", "64", "--gridDim", "4")
    assert res.exit_code == 2, res.output
    assert "error: reference to __host__ variable 'tally' in __global__ function" in res.output


def test_executing_oracles_say_a_block_is_too_big(tmp_path: Path) -> None:
    """The dynamic oracle runs every thread: a block past its bound is an "unknown" that says
    so (never a hang, never a pass); sdv is symbolic and takes any size."""
    src = tmp_path / "huge.cu"
    src.write_text("//pass\n//--blockDim=[64,64,64] --gridDim=2\n"
                   "__global__ void cube(int *cells) {\n"
                   "  unsigned me = threadIdx.x + 64 * (threadIdx.y + 64 * threadIdx.z);\n"
                   "  cells[blockIdx.x * 262144 + me] = 1;\n}\n")
    res = invoke("check", src, "--oracle", "dynamic")
    assert res.exit_code == 1, res.output
    assert "the launch has 262144 threads a block; the dynamic oracle runs every one and stops at 16384" \
        in res.output
    res = invoke("check", src)
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize("flags, block, grid", [
    ("--local_size=1,10 --num_groups=2,3", (1, 10, 1), (2, 3, 1)),
    ("--local_size=512,512,512 --num_groups=[2,2,2]", (512, 512, 512), (2, 2, 2)),
    ("--local_size=* --global_size=1024", (None, None, None), (None, None, None)),
    ("--local_size=64 --global_size=*", (64, 1, 1), (None, None, None)),
    ("--local_size=[*,8] --num_groups=*", (None, 8, 1), (None, None, None)),
    ("--blockDim=[32,*] --gridDim=4", (32, None, 1), (4, 1, 1)),
])
def test_header_size_formats(flags: str, block: tuple[int | None, ...], grid: tuple[int | None, ...]) -> None:
    h = parse_header(f"//pass\n//{flags}\n", "k.cl")
    assert h.block_dim == block and h.grid_dim == grid


def test_header_options_named_once(tmp_path: Path) -> None:
    """Options about GPUVerify's proof search are said nowhere; the others are honoured or
    named, each file once."""
    src = tmp_path / "k.cl"
    src.write_text((GV / "same_value.cl").read_text().replace(
        "--num_groups=1", "--num_groups=1 --no-inline --no-infer --boogie-file=x.bpl --asymmetric-asserts "
        "--clang-opt=-Wno-uninitialized --made-up-flag"))
    res = invoke("check", src)
    assert res.exit_code == 0, res.output
    assert notes(res) == [f"{src}:2:3: note: GPUVerify's options not honoured: --boogie-file (Boogie files are "
                          "not read), --asymmetric-asserts (assertions are checked for both threads), "
                          "--made-up-flag (not known to AutoSync)"]


def test_work_dim_is_the_headers_only() -> None:
    """get_work_dim() is the number of sizes the header writes; a --blockDim flag's launch
    says nothing of it (any value: the race of the other branch is found)."""
    res = invoke("check", GV / "work_dim.cl", "--blockDim", "8", "--gridDim", "2")
    assert res.exit_code == 1, res.output


def test_kernel_args_that_do_not_match_are_named(tmp_path: Path) -> None:
    src = tmp_path / "k.cl"
    src.write_text((GV / "given_args_racy.cl").read_text().replace("pick,2", "pick,2,3"))
    res = invoke("check", src)
    assert res.exit_code == 1, res.output
    assert f"{src}:2:3: note: --kernel-args for kernel 'pick' not honoured (its values do not match its " \
        "integer arguments): every value is checked" in notes(res)


@pytest.mark.parametrize("flag, code", [("", 1), (" --only-divergence", 0)])
def test_only_divergence_drops_races_keeps_divergence(tmp_path: Path, flag: str, code: int) -> None:
    src = tmp_path / "k.cl"
    src.write_text(f"//pass\n//--local_size=32 --num_groups=1{flag}\n"
                   "__kernel void k(__local int *a) {\n  a[0] = (int)get_local_id(0);\n}\n")
    res = invoke("check", src)
    assert res.exit_code == code, res.output
    src.write_text(f"//pass\n//--local_size=32 --num_groups=1{flag}\n"
                   "__kernel void k(__local int *a) {\n  if (get_local_id(0) < 4) {\n"
                   "    barrier(CLK_LOCAL_MEM_FENCE);\n  }\n}\n")
    res = invoke("check", src)
    assert res.exit_code == 1 and "barrier may be reached by non-uniform control flow" in res.output


@pytest.mark.parametrize("flag, code", [("", 1), (" --invariants-as-candidates", 0), (" --no-annotations", 0),
                                        (" --only-requires", 0)])
def test_annotation_options(tmp_path: Path, flag: str, code: int) -> None:
    """A false loop invariant is an error; as a candidate (GPUVerify's options) it is dropped."""
    src = tmp_path / "k.cl"
    src.write_text(f"//pass\n//--local_size=32 --num_groups=1{flag}\n"
                   "__kernel void k(__global int *a) {\n"
                   "  for (int i = 0; __invariant(i > 100), i < 4; i++) {\n"
                   "    a[get_global_id(0)] += i;\n  }\n}\n")
    res = invoke("check", src)
    assert res.exit_code == code, res.output


def _project(root: Path, with_git: bool) -> Path:
    (root / "src").mkdir(parents=True)
    if with_git:
        (root / ".git").mkdir()
    (root / "common.h").write_text("#define SLOTS 32\n")
    kernel = root / "src" / "k.cu"
    kernel.write_text('#include "../common.h"\n'
                      "__global__ void k(int *a) { a[threadIdx.x % SLOTS] = 1; }\n")
    return kernel


def test_include_sandbox_is_the_projects_tree(tmp_path: Path) -> None:
    """``#include "../common.h"`` inside a tree holding ``.git`` is read; one that leaves the
    tree (no ``.git`` above, the current folder elsewhere) is refused unread."""
    inside = _project(tmp_path / "proj", with_git=True)
    res = invoke("check", inside, "--blockDim", "32", "--gridDim", "1")
    assert res.exit_code == 0, res.output
    outside = _project(tmp_path / "loose", with_git=False)
    res = invoke("check", outside, "--blockDim", "32", "--gridDim", "1")
    assert res.exit_code == 2, res.output
    assert res.stderr.strip() == f"{outside}:1:10: error: include outside the allowed folders: ../common.h"
    here = os.getcwd()
    os.chdir(tmp_path / "loose")
    try:  # the current folder holds the kernel: its tree
        res = invoke("check", outside, "--blockDim", "32", "--gridDim", "1")
        assert res.exit_code == 0, res.output
    finally:
        os.chdir(here)
    shutil.rmtree(tmp_path / "proj")
