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


def test_size_t_kernel_parameter_is_read_in_gpuverify_files(tmp_path: Path) -> None:
    """OpenCL C forbids ``size_t`` as a kernel parameter type (the host cannot pass it);
    GPUVerify reads such a kernel.  A file with GPUVerify's flags line is read, with a note;
    any other keeps clang's error (exit 2)."""
    body = ("__kernel void part(__global int *a, size_t n) {\n"
            "  if (get_global_id(0) < n) a[get_global_id(0)] = 1;\n}\n")
    gv = tmp_path / "gv.cl"
    gv.write_text("//pass\n//--local_size=32 --num_groups=2\n" + body)
    res = CliRunner().invoke(app, ["check", str(gv)])
    assert res.exit_code == 0, res.output
    assert "note: '__private size_t'" in res.output and "read as GPUVerify does" in res.output
    plain = tmp_path / "plain.cl"
    plain.write_text(body)
    res = CliRunner().invoke(app, ["check", str(plain)])
    assert res.exit_code == 2
    assert "cannot be used as the type of a kernel parameter" in res.output


def test_image_writes_are_global_writes() -> None:
    """``write_image*`` is a write of the pixel, in memory named after the image parameter:
    each work-item's own pixel verifies, a row's shared pixel races (``image_write*.cl``)."""
    from kpl import ast as K
    from kpl.frontend import load_kernels

    kernel = load_kernels(str(KERNELS / "image_write.cl"))[0]
    assert kernel.memories["dst"].space == K.Space.GLOBAL
    stores = [s for s in K.walk_stmts(kernel.body)
              if isinstance(s, K.Assign) and isinstance(s.target, K.MemElem)]
    assert [s.target.mem.name for s in stores] == ["dst"]  # type: ignore[union-attr]
