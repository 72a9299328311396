"""Messages name source positions (``file:line:col``), never internal label numbers."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from autosync.commands.cli import app


def test_fix_refusal_names_source_lines(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    f.write_text("//pass\n//--blockDim=32 --gridDim=4\n"
                 "__global__ void k(int *A) {\n"
                 "    int x = A[threadIdx.x];\n"
                 "    A[threadIdx.x] = x + 1;\n"
                 "}\n")
    res = CliRunner().invoke(app, ["fix", str(f)])
    assert res.exit_code == 1
    # a race between blocks: said as such, never given a barrier (issue 27, item 3)
    assert f"{f}:5:5: race between blocks " in res.stdout
    assert "on 'A': no block barrier can order it; a grid barrier can" in res.stdout
    assert f"--grid-sync (with {f}:4:5)" in res.stdout
    assert "__syncthreads" not in res.stdout and "file left unchanged" in res.stdout
    assert res.stdout.endswith("\n")


def test_missing_semicolon_is_reported_at_the_end_of_the_previous_line(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    f.write_text("//pass\n//--blockDim=32\n__global__ void k(int *A) {\n"
                 "    int x = A[threadIdx.x]  // read\n\n    A[threadIdx.x] = x;\n}\n")
    res = CliRunner().invoke(app, ["check", str(f)])
    assert res.exit_code == 2
    assert res.stderr == f"{f}:4:27: error: expected ';' at end of declaration\n"  # clang's words


def test_other_syntax_errors_stay_at_the_token(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    f.write_text("__global__ void k(int *A) {\n    A[0] = ;\n}\n")
    res = CliRunner().invoke(app, ["check", str(f)])
    assert res.exit_code == 2
    assert res.stderr == f"{f}:2:12: error: expected expression\n"  # clang's words, at the ';'


def test_struct_without_semicolon_is_a_located_syntax_error(tmp_path: Path) -> None:
    """pycparser's declaration builder crashed (AttributeError) on a struct definition with no
    ``;`` followed by another declaration; found by the fuzzer (10,000-mutant run, id 4181).
    clang recovers, but the struct is one the kernel uses (B's base), so its error stops it."""
    f = tmp_path / "k.cu"
    f.write_text("struct A {\n  float x;\n}\n\nstruct B : A {\n  float y;\n};\n"
                 "__global__ void k(B *b) { b[threadIdx.x].y = 1.0f; }\n")
    res = CliRunner().invoke(app, ["check", str(f)])
    assert res.exit_code == 2
    assert res.stderr == f"{f}:3:2: error: expected ';' after struct\n"
