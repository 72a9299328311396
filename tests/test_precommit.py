"""The ``autosync-check`` and ``autosync-fix`` pre-commit hooks, run by pre-commit itself on a
temporary repository.

The hook is taken from the repository's ``.pre-commit-hooks.yaml`` and run as a local
``language: system`` hook (the published ``language: python`` one would install AutoSync from
the network), so what is tested is its entry and file pattern."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PRE_COMMIT = shutil.which("pre-commit")


def _hook_lines(hook_id: str = "autosync-check") -> list[str]:
    """The lines of hook ``hook_id`` in the repository's ``.pre-commit-hooks.yaml``."""
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text().split("\n- id: ")
    ours = [h for h in hooks if h.removeprefix("- id: ").split("\n", 1)[0].strip() == hook_id]
    assert len(ours) == 1, f"hook {hook_id} not found"
    lines = ("- id: " + ours[0].removeprefix("- id: ")).rstrip("\n").splitlines()
    return [ln.replace("language: python", "language: system") for ln in lines]


def _repo(tmp_path: Path, hook_id: str) -> tuple[list[str], dict[str, str]]:
    """A git repository in ``tmp_path`` whose pre-commit configuration runs ``hook_id``."""
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    hooks = "\n".join("    " + ln for ln in _hook_lines(hook_id))
    (tmp_path / ".pre-commit-config.yaml").write_text(f"repos:\n  - repo: local\n    hooks:\n{hooks}\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "AUTOSYNC_CACHE_DIR": str(tmp_path / ".cache")}
    return git, env


@pytest.mark.skipif(PRE_COMMIT is None, reason="the pre-commit executable is not installed")
def test_autosync_check_hook(tmp_path: Path) -> None:
    assert PRE_COMMIT is not None
    git, env = _repo(tmp_path, "autosync-check")
    (tmp_path / "ok.cu").write_text("//pass\n//--blockDim=32 --gridDim=1\n__global__ void k(int *A) { A[threadIdx.x] = 1; }\n")
    subprocess.run([*git, "add", "."], check=True)
    ok = subprocess.run([PRE_COMMIT, "run", "--all-files"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    (tmp_path / "racy.cu").write_text("//pass\n//--blockDim=32 --gridDim=1\n__global__ void r(int *A) { A[0] = threadIdx.x; }\n")
    subprocess.run([*git, "add", "."], check=True)
    bad = subprocess.run([PRE_COMMIT, "run", "--all-files"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert bad.returncode == 1 and "race" in bad.stdout


# the race crosses warps (thread t reads what thread t+32 wrote): only __syncthreads() fixes it
FIXABLE = ("//pass\n//--blockDim=64 --gridDim=1\n__global__ void f(int *A) {\n    __shared__ int s[64];\n"
           "    s[threadIdx.x] = A[threadIdx.x];\n    A[threadIdx.x] = s[(threadIdx.x + 32) % 64];\n}\n")


@pytest.mark.skipif(PRE_COMMIT is None, reason="the pre-commit executable is not installed")
def test_autosync_fix_hook(tmp_path: Path) -> None:
    """The fixer fixes in place and fails the commit when it changed a file (as ruff's fixer
    hooks); once the fix is staged, the hook passes and ``autosync check`` verifies."""
    assert PRE_COMMIT is not None
    git, env = _repo(tmp_path, "autosync-fix")
    ok_text = "//pass\n//--blockDim=32 --gridDim=1\n__global__ void k(int *A) { A[threadIdx.x] = 1; }\n"
    (tmp_path / "ok.cu").write_text(ok_text)
    (tmp_path / "racy.cu").write_text(FIXABLE)
    subprocess.run([*git, "add", "."], check=True)
    first = subprocess.run([PRE_COMMIT, "run", "--all-files"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert first.returncode == 1, first.stdout + first.stderr
    assert "files were modified by this hook" in first.stdout and "1 changed" in first.stdout
    fixed = (tmp_path / "racy.cu").read_text()
    assert fixed.count("__syncthreads();") == 1 and fixed.replace("    __syncthreads();\n", "") == FIXABLE
    assert (tmp_path / "ok.cu").read_text() == ok_text
    subprocess.run([*git, "add", "."], check=True)
    again = subprocess.run([PRE_COMMIT, "run", "--all-files"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert again.returncode == 0, again.stdout + again.stderr
    check = subprocess.run([sys.executable, "-m", "autosync", "check", "racy.cu"], cwd=tmp_path, env=env,
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
