"""``compile_commands.json``: the ``-D``, ``-I``, ``-include`` and ``-x cuda`` flags of each
file's compile command, found upward from the file like clang-tidy, or given with ``-p``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from autosync.commands.cli import app
from autosync.pipeline.compdb import parse_command

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


def _force(project: Path, flag: str) -> Path:
    """The kernel without its ``#include "tile.h"``: TILE must come from ``-include``."""
    kernel = project / "src" / "k.cu"
    kernel.write_text(KERNEL.replace('#include "tile.h"\n', ""))
    entries = json.loads((project / "build" / "compile_commands.json").read_text())
    entries[0]["command"] += f" {flag}"
    (project / "build" / "compile_commands.json").write_text(json.dumps(entries))
    return kernel


def test_forced_includes_are_applied(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``-include tile.h`` of the command (a header in the command's directory, outside the
    kernel's folder and the -I folders): TILE 32 for 32 threads is race-free, TILE 16 races
    (threads 0 and 16 write s[0]); with the cache on, the header's text is part of the key."""
    monkeypatch.delenv("AUTOSYNC_NO_CACHE", raising=False)
    monkeypatch.setenv("AUTOSYNC_CACHE_DIR", str(project / "cache"))
    (project / "build" / "tile.h").write_text("#define TILE 32\n")
    kernel = _force(project, "-include tile.h")
    doc, stderr, code = _check(str(kernel))
    assert code == 0, stderr
    assert "note" not in stderr
    (project / "build" / "tile.h").write_text("#define TILE 16\n")
    doc, stderr, code = _check(str(kernel))
    assert code == 1 and doc["races"], stderr


def test_forced_include_outside_the_sandbox_is_refused(project: Path,
                                                       tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("elsewhere") / "tile.h"
    outside.write_text("#define TILE 32\n")
    kernel = _force(project, f"-include {outside}")
    res = CliRunner().invoke(app, ["check", str(kernel)])
    assert res.exit_code == 2 and "Traceback" not in res.stderr
    assert res.stderr == f"{kernel}: error: include outside the allowed folders: {outside} (forced include)\n"


def test_include_flag_forces_a_header(project: Path) -> None:
    (project / "build" / "compile_commands.json").unlink()
    kernel = project / "src" / "k.cu"
    kernel.write_text(KERNEL.replace('#include "tile.h"\n', ""))
    inc = str(project / "inc")
    _, stderr, code = _check(str(kernel), "-D", "STRIDE=1", "-I", inc, "--include", f"{inc}/tile.h")
    assert code == 0, stderr
    # inc/ lies in the project's tree (the folder holding .git): allowed without -I (issue 34)
    _, stderr, code = _check(str(kernel), "-D", "STRIDE=1", "--include", f"{inc}/tile.h")
    assert code == 0, stderr
    shutil.rmtree(project / ".git")  # no project tree: the kernel's folder and the -I folders only
    _, stderr, code = _check(str(kernel), "-D", "STRIDE=1", "--include", f"{inc}/tile.h")
    assert code == 2 and "include outside the allowed folders" in stderr


def test_database_is_part_of_the_cache_key(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AUTOSYNC_NO_CACHE", raising=False)
    monkeypatch.setenv("AUTOSYNC_CACHE_DIR", str(project / "cache"))
    kernel = str(project / "src" / "k.cu")
    assert _check(kernel)[2] == 0
    _database(project, "-DSTRIDE=0")
    assert _check(kernel)[2] == 1
