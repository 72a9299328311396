"""The ``autosync-check`` pre-commit hook, run by pre-commit itself on a temporary repository.

The hook is taken from the repository's ``.pre-commit-hooks.yaml`` and run as a local
``language: system`` hook (the published ``language: python`` one would install AutoSync from
the network), so what is tested is its entry and file pattern."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PRE_COMMIT = shutil.which("pre-commit")


def _hook_lines() -> list[str]:
    lines = (ROOT / ".pre-commit-hooks.yaml").read_text().splitlines()
    return [ln.replace("language: python", "language: system") for ln in lines]


@pytest.mark.skipif(PRE_COMMIT is None, reason="the pre-commit executable is not installed")
def test_autosync_check_hook(tmp_path: Path) -> None:
    assert PRE_COMMIT is not None
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    hooks = "\n".join("    " + ln for ln in _hook_lines())
    (tmp_path / ".pre-commit-config.yaml").write_text(f"repos:\n  - repo: local\n    hooks:\n{hooks}\n")
    (tmp_path / "ok.cu").write_text("//pass\n//--blockDim=32 --gridDim=1\n__global__ void k(int *A) { A[threadIdx.x] = 1; }\n")
    subprocess.run([*git, "add", "."], check=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "AUTOSYNC_CACHE_DIR": str(tmp_path / ".cache")}
    ok = subprocess.run([PRE_COMMIT, "run", "--all-files"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    (tmp_path / "racy.cu").write_text("//pass\n//--blockDim=32 --gridDim=1\n__global__ void r(int *A) { A[0] = threadIdx.x; }\n")
    subprocess.run([*git, "add", "."], check=True)
    bad = subprocess.run([PRE_COMMIT, "run", "--all-files"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert bad.returncode == 1 and "race" in bad.stdout
