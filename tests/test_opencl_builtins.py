"""OpenCL C built-ins and forms met in GPUVerify's OpenCL suite (issue 34): barrier flags known
only at run time, math and vector built-ins of our declaration headers
(``kpl/frontend/include/__autosync_opencl_c*.h``).  Each kernel is our own."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from autosync.commands.cli import app

KERNELS = Path(__file__).resolve().parent / "kernels" / "opencl"


def test_barrier_flags_known_at_run_time_fence_nothing() -> None:
    """``barrier(fence)`` with a parameter: it synchronises but orders no memory for certain
    (a note says so); the racy twin's race is reported, the twin with a local-fence barrier
    verifies."""
    racy = CliRunner().invoke(app, ["check", str(KERNELS / "barrier_flags_param_racy.cl")])
    assert racy.exit_code == 1
    assert "note: the flags of 'barrier' are not a constant" in racy.output
    assert "race on 'row'" in racy.output
    ok = CliRunner().invoke(app, ["check", str(KERNELS / "barrier_flags_param.cl")])
    assert ok.exit_code == 0, ok.output
