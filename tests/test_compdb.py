"""``compile_commands.json``: the ``-D``, ``-I``, ``-include`` and ``-x cuda`` flags of each
file's compile command, found upward from the file like clang-tidy, or given with ``-p``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from autosync.cli import app
from autosync.compdb import parse_command

KERNEL = """\
#include "tile.h"
__global__ void k(int *A) {
    __shared__ int s[TILE];
    s[threadIdx.x % TILE] = A[threadIdx.x];
    A[threadIdx.x * STRIDE] = threadIdx.x;
}
int main() { int *d; k<<<1, 32>>>(d); }
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()  # the project root
    (tmp_path / "src").mkdir()
    (tmp_path / "inc").mkdir()
    (tmp_path / "build").mkdir()
    (tmp_path / "src" / "k.cu").write_text(KERNEL)
    (tmp_path / "src" / "host.cpp").write_text(KERNEL)  # compiled as CUDA with -x cuda
    (tmp_path / "inc" / "tile.h").write_text("#define TILE 32\n")
    _database(tmp_path, "-DSTRIDE=1")
    return tmp_path


def _database(root: Path, define: str) -> None:
    entries = [
        {"directory": str(root / "build"), "file": "../src/k.cu",
         "command": f"/usr/local/cuda/bin/nvcc {define} -I../inc -O2 -c ../src/k.cu -o k.o"},
        {"directory": str(root / "build"), "file": str(root / "src" / "host.cpp"),
         "arguments": ["clang++", "-x", "cuda", define, "-I", "../inc", "-c", "../src/host.cpp"]},
    ]
    (root / "build" / "compile_commands.json").write_text(json.dumps(entries))


def _check(*args: str) -> tuple[dict, str, int]:
    res = CliRunner().invoke(app, ["check", *args, "--format", "json"])
    return json.loads(res.stdout), res.stderr, res.exit_code


def test_parse_command() -> None:
    flags = parse_command(["g++", "-DA", "-D", "B=2", "-DC", "-UC", "-I", "inc", "-Iinc2", "-isystem", "/sys",
                           "--define-macro=D=4", "-include", "pre.h", "-x", "cuda", "-c", "k.cu"], "/w", "db")
    assert flags.defines == {"A": "1", "B": "2", "D": "4"}
    assert flags.include_dirs == ("/w/inc", "/w/inc2", "/sys")
    assert flags.pre_includes == ("/w/pre.h",) and flags.cuda
    assert not parse_command(["g++", "-x", "c++", "k.cpp"], "/w", "db").cuda
    assert parse_command(["/opt/nvcc", "k.cu"], "/w", "db").cuda


def test_flags_of_the_compile_command_are_used(project: Path) -> None:
    kernel = str(project / "src" / "k.cu")
    doc, stderr, code = _check(kernel)
    assert code == 0, stderr  # TILE from -I ../inc, STRIDE=1 from -D, the launch from main()
    assert doc["launch"]["blockDim"] == [32, 1, 1]
    _, _, code = _check(kernel, "-D", "STRIDE=0")  # the command line wins: every thread writes A[0]
    assert code == 1
    _database(project, "-DSTRIDE=0")
    _, _, code = _check(kernel)
    assert code == 1


def test_without_the_database_the_file_does_not_build(project: Path) -> None:
    (project / "build" / "compile_commands.json").unlink()
    res = CliRunner().invoke(app, ["check", str(project / "src" / "k.cu")])
    assert res.exit_code == 2 and "tile.h" in res.stderr


def test_build_dir_flag(project: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    elsewhere = tmp_path_factory.mktemp("out")
    (project / "build" / "compile_commands.json").rename(elsewhere / "compile_commands.json")
    _, stderr, code = _check(str(project / "src" / "k.cu"), "-p", str(elsewhere))
    assert code == 0, stderr
    res = CliRunner().invoke(app, ["check", str(project / "src" / "k.cu"), "-p", str(project / "nowhere")])
    assert res.exit_code == 2 and "no compile_commands.json there" in res.stderr and "Traceback" not in res.stderr


def test_folder_includes_files_compiled_as_cuda(project: Path) -> None:
    res = CliRunner().invoke(app, ["check", str(project / "src"), "--format", "json", "-j", "1"])
    doc = json.loads(res.stdout)
    assert sorted(Path(f["file"]).name for f in doc["files"]) == ["host.cpp", "k.cu"]
    assert res.exit_code == 0, res.stdout


def test_forced_includes_are_named_in_a_note(project: Path) -> None:
    entries = json.loads((project / "build" / "compile_commands.json").read_text())
    entries[0]["command"] += " -include ../inc/tile.h"
    (project / "build" / "compile_commands.json").write_text(json.dumps(entries))
    _, stderr, code = _check(str(project / "src" / "k.cu"))
    assert code == 0 and "forced includes" in stderr and "tile.h" in stderr


def test_database_is_part_of_the_cache_key(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AUTOSYNC_NO_CACHE", raising=False)
    monkeypatch.setenv("AUTOSYNC_CACHE_DIR", str(project / "cache"))
    kernel = str(project / "src" / "k.cu")
    assert _check(kernel)[2] == 0
    _database(project, "-DSTRIDE=0")
    assert _check(kernel)[2] == 1
