"""Named-barrier synthesis for warp-specialised producer/consumer races (issue 16, item 2;
:mod:`autosync.algorithm.named_synthesis`).  Patched texts are pinned byte for byte."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from autosync.algorithm.named_synthesis import NoNamedFix, spelling
from autosync.commands.bench import bench_file
from autosync.commands.cli import app
from autosync.pipeline.named_fix import synthesize_named
from kpl.frontend import load_kernels, parse_kernel_text
from oracle.registry import get_oracle

NAMED = Path(__file__).resolve().parent / "kernels" / "named"


def test_ws_stage_racy_gets_a_pair_in_the_default_spelling(tmp_path: Path) -> None:
    text = (NAMED / "ws_stage_racy.cu").read_text()
    path = tmp_path / "ws.cu"
    path.write_text(text)
    res = CliRunner().invoke(app, ["fix", str(path)])
    assert res.exit_code == 0, res.output
    assert "named-barrier pair" in res.stdout and "128 threads" in res.stdout
    assert path.read_text() == text.replace(
        "    tile[tid] = in[blockIdx.x * 64 + tid];\n",
        '    tile[tid] = in[blockIdx.x * 64 + tid];\n    asm volatile("bar.arrive 1, 128;");\n').replace(
        "    v = tile[63 - i] * scale;\n", '    asm volatile("bar.sync 1, 128;");\n    v = tile[63 - i] * scale;\n')


def test_racy_consumer_gets_a_free_id_in_the_files_spelling() -> None:
    kernel = load_kernels(str(NAMED / "racy_consumer.cu"))[0]
    oracle = get_oracle("named")
    found = synthesize_named(kernel, oracle.check(kernel), oracle)
    assert (found.barrier, found.count) == (2, 64)  # id 1 is the kernel's own
    assert found.text == kernel.source_text.replace(
        '    buf[tid] = in[blockIdx.x * 32 + tid];\n',
        '    buf[tid] = in[blockIdx.x * 32 + tid];\n    asm volatile("bar.arrive 2, 64;");\n').replace(
        "    float v = buf[tid - 32];\n", '    asm volatile("bar.sync 2, 64;");\n    float v = buf[tid - 32];\n')
    assert oracle.check(parse_kernel_text(found.text, kernel.source_path)).verified


def test_twins() -> None:
    assert get_oracle("named").check(load_kernels(str(NAMED / "ws_stage_ok.cu"))[0]).verified
    assert get_oracle("sdv").check(load_kernels(str(NAMED / "ws_stage_racy.cu"))[0]).races


def test_spelling_copies_the_kernels_own_form() -> None:
    src = ('//pass\n//--blockDim=64 --gridDim=1\n__global__ void k() {\n'
           '  asm __volatile__ ("barrier.sync.aligned 3, 64;");\n}\n')
    kernel = parse_kernel_text(src, "s.cu")
    assert spelling(kernel, "arrive", 4, 96) == 'asm __volatile__ ("barrier.arrive.aligned 4, 96;");'


MIXED = """\
//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
__global__ void k(float *out) {
  __shared__ float s[64];
  int tid = threadIdx.x;
  if (tid % 2 == 0) {
    s[tid] = 1.0f;
  } else {
    out[tid] = s[tid - 1];
  }
}
"""


def test_producers_and_consumers_in_one_warp_are_refused(tmp_path: Path) -> None:
    kernel = parse_kernel_text(MIXED, "m.cu")
    with pytest.raises(NoNamedFix, match="warp"):
        synthesize_named(kernel, get_oracle("sdv").check(kernel), get_oracle("named"))
    path = tmp_path / "m.cu"
    path.write_text(MIXED)
    res = CliRunner().invoke(app, ["fix", str(path)])
    assert res.exit_code == 1 and "no named-barrier pair either" in res.stdout
    assert path.read_text() == MIXED


# --------------------------------------------------------------------------- least cost, loops, refusals

ROOT = NAMED.parents[2]
MICRO = ROOT / "microbench" / "named"


@pytest.mark.parametrize("name", sorted(p.name for p in MICRO.glob("*.cu")))
def test_fix_writes_the_expected_twin(tmp_path: Path, name: str) -> None:
    """``fix`` on microbench/named/X.cu writes exactly microbench/named/expected/X.cu (but for
    the verdict line), and says the pair's cost."""
    path = tmp_path / name
    path.write_text((MICRO / name).read_text())
    res = CliRunner().invoke(app, ["fix", str(path)])
    assert res.exit_code == 0, res.output
    assert "named-barrier pair" in res.stdout and "total cost" in res.stdout
    expected = (MICRO / "expected" / name).read_text().splitlines(keepends=True)
    assert expected[0] == "//pass\n"
    assert path.read_text().splitlines(keepends=True)[1:] == expected[1:]


def test_loops_cost_decides_inside_or_outside() -> None:
    """stage_fill's pair is outside both loops (C = 1/2 + 1/2); handoff's must be inside
    them (50 + 50): every cheaper pair deadlocks or races, and the search says how many it tried."""
    oracle = get_oracle("named")
    fill = load_kernels(str(MICRO / "stage_fill.cu"))[0]
    found = synthesize_named(fill, oracle.check(fill), oracle)
    assert found.cost == 1 and found.search.oracle_calls == 1
    hand = load_kernels(str(MICRO / "handoff.cu"))[0]
    found = synthesize_named(hand, oracle.check(hand), oracle)
    assert found.cost == 100 and (found.barrier, found.count) == (1, 96)  # 3 is the kernel's own
    assert found.search.oracle_calls > 1 and found.oracle_calls == found.search.oracle_calls + 1
    assert found.search.rejected  # the cheaper pairs, each with the checker's reason
    # LC changes the price of the loop positions, not the choice
    dear = synthesize_named(hand, oracle.check(hand), oracle, lc=10)
    assert dear.cost == 10 and dear.anchors == found.anchors


def test_tile_loop_pair_goes_after_the_inner_loop(tmp_path: Path) -> None:
    text = (NAMED / "tile_loop_racy.cu").read_text()
    path = tmp_path / "t.cu"
    path.write_text(text)
    res = CliRunner().invoke(app, ["fix", str(path)])
    assert res.exit_code == 0, res.output
    assert "total cost 100" in res.stdout
    assert path.read_text() == text.replace(
        "        tile[r * 32 + lane] = in[(t * 2 + r) * 32 + lane];\n      }\n",
        "        tile[r * 32 + lane] = in[(t * 2 + r) * 32 + lane];\n      }\n"
        '      asm volatile("bar.arrive 1, 64;");\n').replace(
        "    } else {\n      acc +=", '    } else {\n      asm volatile("bar.sync 1, 64;");\n      acc +=')


@pytest.mark.parametrize(("name", "why"), [
    ("ring_racy.cu", "needs a second barrier the other way (double buffering)"),
    ("both_ways_racy.cu", "data flows both ways"),
])
def test_what_one_pair_cannot_fix_is_said(tmp_path: Path, name: str, why: str) -> None:
    text = (NAMED / name).read_text()
    path = tmp_path / name
    path.write_text(text)
    res = CliRunner().invoke(app, ["fix", str(path)])
    assert res.exit_code == 1, res.output
    assert "no named-barrier pair either" in res.stdout and why in res.stdout
    assert path.read_text() == text


WAW = MIXED.replace("out[tid] = s[tid - 1];", "s[tid - 1] = 2.0f;").replace("tid % 2 == 0", "tid < 32")


def test_write_write_race_has_no_direction() -> None:
    kernel = parse_kernel_text(WAW, "w.cu")
    with pytest.raises(NoNamedFix, match="write-write race"):
        synthesize_named(kernel, get_oracle("named").check(kernel), get_oracle("named"))


NESTED = """\
//xfail:NOT_ALL_VERIFIED
//--blockDim=96 --gridDim=1
__global__ void k(float *out) {
  __shared__ float s[32];
  int warp = threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  if (warp == 0) {
    s[lane] = 1.0f;
  } else {
    float v = 0.0f;
    if (warp == 1) {
      v = s[31 - lane];
    }
    out[threadIdx.x] = v;
  }
}
"""


def test_a_nested_block_is_cheaper_and_counts_only_its_warps() -> None:
    """Only warp 1 reads: the sync inside its ``if`` costs 1/4 (two guards) and the barrier
    counts warps 0 and 1 (64 threads), not the 96 of the whole else arm."""
    kernel = parse_kernel_text(NESTED, "n.cu")
    oracle = get_oracle("named")
    found = synthesize_named(kernel, oracle.check(kernel), oracle)
    assert (found.cost, found.count) == (Fraction(3, 4), 64)
    assert found.text == NESTED.replace("    s[lane] = 1.0f;\n", '    s[lane] = 1.0f;\n    asm volatile("bar.arrive 1, 64;");\n'
                                        ).replace("      v = s[", '      asm volatile("bar.sync 1, 64;");\n      v = s[')


def test_crlf_file_keeps_its_line_endings(tmp_path: Path) -> None:
    path = tmp_path / "g.cu"
    path.write_bytes((MICRO / "ws_gather.cu").read_text().replace("\n", "\r\n").encode())
    res = CliRunner().invoke(app, ["fix", str(path)])
    assert res.exit_code == 0, res.output
    want = (MICRO / "expected" / "ws_gather.cu").read_text().replace("\n", "\r\n").split("\r\n", 1)[1]
    assert path.read_bytes().decode().split("\r\n", 1)[1] == want


def test_bench_row_for_a_named_pair() -> None:
    row = bench_file(str(MICRO / "handoff.cu"), table="I")
    assert row.named and row.ok and row.as_status == "fixed", row.problems
    assert (row.as_b, row.as_cost, row.oracle) == (2, 100.0, "named")
    assert 1 < row.named_v < row.as_v and row.n_v is None
