"""The ``check`` result cache: a hit replays the output; any input change misses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from autosync.cli import app

KERNEL = ('//pass\n//--blockDim=32 --gridDim=1\n#include "size.h"\n'
          "__global__ void k(int *A) {\n    A[threadIdx.x % SIZE] = threadIdx.x;\n}\n")


def _run(*args: str) -> dict:
    res = CliRunner().invoke(app, ["check", *args, "--format", "json", "-j", "1"])
    return json.loads(res.stdout)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AUTOSYNC_CACHE_DIR", str(tmp_path / "cache"))
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
