"""Named-barrier synthesis for warp-specialised producer/consumer races (issue 16, item 2;
:mod:`autosync.named_synthesis`).  Patched texts are pinned byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from autosync.cli import app
from autosync.named_synthesis import NoNamedFix, spelling, synthesize_named
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
