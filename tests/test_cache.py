"""The ``check`` result cache: a hit replays the output; any input change misses; single-file
and batch runs share it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from autosync.commands.cli import app

KERNEL = ('//pass\n//--blockDim=32 --gridDim=1\n#include "size.h"\n'
          "__global__ void k(int *A) {\n    A[threadIdx.x % SIZE] = threadIdx.x;\n}\n")


def _run(*args: str) -> dict:
    res = CliRunner().invoke(app, ["check", *args, "--format", "json", "-j", "1"])
    return json.loads(res.stdout)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AUTOSYNC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("AUTOSYNC_NO_CACHE", raising=False)  # tests/conftest.py turns it off
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text(KERNEL)
    (src / "size.h").write_text("#define SIZE 32\n")
    return src


def test_second_run_is_cached_and_identical(folder: Path) -> None:
    first = _run(str(folder))
    second = _run(str(folder))
    assert first["summary"]["cached"] == 0 and second["summary"]["cached"] == 1
    for doc in (first, second):
        del doc["summary"]["cached"]
    assert first == second
    assert _run(str(folder), "--no-cache")["summary"]["cached"] == 0


def test_changed_include_or_option_misses(folder: Path) -> None:
    assert _run(str(folder))["files"][0]["verified"] is True
    (folder / "size.h").write_text("#define SIZE 16\n")  # now threads t and t+16 collide
    doc = _run(str(folder))
    assert doc["summary"]["cached"] == 0 and doc["files"][0]["verified"] is False
    assert _run(str(folder), "--blockDim", "8")["summary"]["cached"] == 0


def _single(*args: str) -> tuple[str, str, int]:
    res = CliRunner().invoke(app, ["check", *args, "--format", "json"])
    return res.stdout, res.stderr, res.exit_code


def _entries(folder: Path) -> list[Path]:
    return sorted((folder.parent / "cache").glob("*/*.json"))


def _no_analysis(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on a check that really runs fails (exit 3): only a cache hit can succeed."""
    import autosync.pipeline.core

    def refuse(*_: object, **__: object) -> None:
        raise RuntimeError("analysis ran")

    monkeypatch.setattr(autosync.pipeline.core, "load", refuse)


def test_single_file_check_is_served_from_the_cache(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kernel = str(folder / "k.cu")
    first = _single(kernel)
    assert first[2] == 0 and json.loads(first[0])["verified"] is True
    assert len(_entries(folder)) == 1  # the miss stored its output
    with monkeypatch.context() as m:
        _no_analysis(m)
        assert _single(kernel) == first  # identical output and exit code, no analysis
        assert _single(kernel, "--no-cache")[2] == 3  # --no-cache really runs (and fails here)
        assert _single(kernel, "--blockDim", "16")[2] == 3  # other options: a miss
    # editing the included header invalidates the entry: a real run, and a new verdict
    (folder / "size.h").write_text("#define SIZE 16\n")
    edited = _single(kernel)
    assert edited[2] == 1 and json.loads(edited[0])["verified"] is False
    with monkeypatch.context() as m:
        _no_analysis(m)
        assert _single(kernel) == edited


def test_single_file_and_batch_share_entries(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kernel = str(folder / "k.cu")
    assert _run(kernel, str(folder / "size.h"), "--exclude", "*.h")["summary"]["cached"] == 0
    with monkeypatch.context() as m:
        _no_analysis(m)
        out, _, code = _single(kernel)
    assert code == 0 and json.loads(out)["verified"] is True


def test_the_code_fingerprint_covers_every_package_and_the_bundled_headers() -> None:
    """A verdict cached by an older AutoSync must not be served: the fingerprint reads the
    files of kpl, oracle and autosync, the front end's extension-less headers included."""
    from pathlib import Path

    from autosync.commands.cache import code_files

    root = Path(__file__).resolve().parent.parent
    files = {Path(p).resolve().relative_to(root).as_posix() for p in code_files()}
    for needed in ("kpl/ast.py", "oracle/sdv/verifier.py", "autosync/commands/cache.py",
                   "kpl/frontend/include/cmath", "kpl/frontend/include/__autosync_cuda.h",
                   "autosync/render/templates/cuda.j2"):
        assert needed in files
