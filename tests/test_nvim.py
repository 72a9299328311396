"""The Neovim 0.7–0.9 setup of docs/editors.md, in a real headless ``nvim``: open a racy
kernel, wait for the diagnostics, apply the AutoSync quick-fix, write, and ``autosync check``
the written file.  Skipped where ``nvim`` is not installed (Debian: ``apt-get install
neovim`` gives 0.7.2)."""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NVIM = shutil.which("nvim")

RACY = """\
//pass
//--blockDim=64 --gridDim=1
__global__ void shift(int *A) {
    __shared__ int s[64];
    s[threadIdx.x] = A[threadIdx.x];
    A[threadIdx.x] = s[(threadIdx.x + 1) % 64];
}
"""


def _doc_snippet() -> str:
    """The Lua block under the docs' "Neovim 0.7–0.9" heading."""
    text = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
    section = text.split("### Neovim 0.7–0.9", 1)[1].split("\n### ", 1)[0]
    m = re.search(r"```lua\n(.*?)```", section, re.S)
    assert m, "no Lua block in the Neovim 0.7–0.9 section of docs/editors.md"
    return m.group(1)


def test_snippet_uses_only_apis_of_neovim_07() -> None:
    snippet = _doc_snippet()
    assert "vim.lsp.start_client" in snippet and "vim.lsp.buf_attach_client" in snippet
    assert "vim.fs" not in snippet and "vim.lsp.start(" not in snippet


@pytest.mark.skipif(NVIM is None, reason="nvim is not installed (apt-get install neovim)")
def test_quickfix_in_headless_neovim(tmp_path: Path) -> None:
    assert NVIM is not None
    kernel = tmp_path / "shift.cu"
    kernel.write_text(RACY)
    setup = tmp_path / "setup.lua"
    setup.write_text(_doc_snippet())
    # the snippet runs `autosync lsp` from PATH: this checkout's, whatever is installed
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shim = bindir / "autosync"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m autosync "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
    log = tmp_path / "nvim.log"
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}", "PYTHONPATH": str(ROOT),
           "AUTOSYNC_NVIM_SETUP": str(setup), "AUTOSYNC_NVIM_FILE": str(kernel), "AUTOSYNC_NVIM_LOG": str(log),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = subprocess.run([NVIM, "--headless", "-u", "NONE", "-i", "NONE", "-n",
                           "-c", f"luafile {ROOT / 'tests' / 'nvim' / 'quickfix.lua'}"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    trace = log.read_text() if log.exists() else ""
    assert proc.returncode == 0, f"nvim exit {proc.returncode}\n{trace}\n{proc.stdout}\n{proc.stderr}"
    assert "filetype cuda" in trace and "race" in trace and "written" in trace, trace
    patched = kernel.read_text()
    assert patched.count("__syncthreads();") == 1 and patched.replace("    __syncthreads();\n", "") == RACY
    check = subprocess.run([sys.executable, "-m", "autosync", "check", str(kernel)], env=env,
                           capture_output=True, text=True, timeout=300)
    assert check.returncode == 0, check.stdout + check.stderr
