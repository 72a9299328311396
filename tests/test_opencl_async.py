"""OpenCL's async work-group copies (``async_work_group_copy`` & co., :mod:`kpl.frontend.opencl`)
in both oracles: the copy is the group's, so its work-items' parts never race with each
other; it lasts until a ``wait_group_events`` (a barrier alone completes nothing); it is a
work-group function.  The twins under ``tests/kernels/opencl/async_*.cl`` carry their verdicts
in their headers (``test_opencl.test_kernel_verdicts_follow_headers``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kpl import ast as K
from kpl.frontend.kernels import parse_kernel_text
from oracle.dynamic import DynamicOracle
from oracle.sdv import SDVOracle

KERNELS = Path(__file__).resolve().parent / "kernels" / "opencl"


def _check(text: str, name: str, oracle: str = "sdv"):  # type: ignore[no-untyped-def]
    kernel = parse_kernel_text(text, name)
    return kernel, (SDVOracle() if oracle == "sdv" else DynamicOracle()).check(kernel)


@pytest.mark.parametrize("oracle", ["sdv", "dynamic"])
def test_a_copy_reached_by_part_of_the_group_diverges(oracle: str) -> None:
    text = """//--local_size=32 --num_groups=2
__kernel void some_copy(__global const int *in, __global int *out) {
  __local int tile[32];
  event_t ev = 0;
  if (get_local_id(0) < 16)
    ev = async_work_group_copy(tile, in, 32, 0);
  wait_group_events(1, &ev);
  out[get_global_id(0)] = 1;
}
"""
    kernel, verdict = _check(text, "some_copy.cl", oracle)
    copies = [s.label for s in K.walk_stmts(kernel.body) if isinstance(s, K.Assign) and s.async_copy]
    assert copies and {d.label for d in verdict.divergences} >= set(copies)


@pytest.mark.parametrize("racy", [False, True])
def test_copies_in_an_abstracted_loop(racy: bool) -> None:
    """``sdv`` with a trip count it cannot unroll: a copy waited for in its own iteration is
    complete before the next iteration's copy (wait counts are monotone across iterations);
    copies waited for only after the loop race with each other."""
    wait = "" if racy else "    wait_group_events(1, &ev);\n"
    text = f"""//--local_size=32 --num_groups=4
__kernel void rounds(__global const int *src, __global int *out, int n) {{
  __local int tile[32];
  event_t ev = 0;
  for (int r = 0; r < n; r++) {{
    ev = async_work_group_copy(tile, src + 32 * r, 32, 0);
{wait}  }}
  wait_group_events(1, &ev);
  out[get_global_id(0)] = tile[get_local_id(0)];
}}
"""
    _, verdict = _check(text, "rounds.cl")
    assert not verdict.unknowns
    assert bool(verdict.races) == racy, verdict.races


def test_fix_cannot_order_an_unwaited_copy_with_a_barrier() -> None:
    """The twin read after a barrier but before any wait: no barrier placement removes the
    race (only a wait would), so ``fix`` reports it unfixable rather than a barrier."""
    from autosync.pipeline.core import fix_kernels
    from autosync.pipeline.options import KernelOptions

    res = fix_kernels(KernelOptions.build(str(KERNELS / "async_barrier_no_wait_racy.cl")),
                      oracle="sdv", timeout=120, solver="rc2", lc=100, ic=0.5, use_facts=True,
                      naive=False, target="cuda")
    assert res.status != "fixed" and res.patched is None


@pytest.mark.parametrize(("name", "completes"), [("async_two_events.cl", [True]),
                                                 ("async_two_events_racy.cl", [False]),
                                                 ("async_two_fills.cl", [True, True]),
                                                 ("async_refill.cl", [True, True])])
def test_a_wait_completes_copies_only_when_it_names_every_one_in_flight(
        name: str, completes: list[bool]) -> None:
    """The events are followed through the kernel's statements: ``wait_group_events(1, ev)``
    after two copies into ``ev[0]`` and ``ev[1]`` completes nothing (the second copy stays in
    flight); a wait naming the only copy in flight completes it."""
    from kpl.frontend import load_kernels

    kernel = load_kernels(str(KERNELS / name))[0]
    waits = [s.completes for s in K.walk_stmts(kernel.body) if isinstance(s, K.WaitEvents)]
    assert waits == completes


def test_events_not_followed_keep_every_wait_completing() -> None:
    """A copy inside a branch: the events are not followed, and every wait completes every
    earlier copy (the known limit the README states)."""
    text = """//--local_size=32 --num_groups=2
__kernel void maybe(__global const int *in, __global int *out, int twice) {
  __local int t[32];
  __local int u[32];
  event_t ev = async_work_group_copy(t, in, 32, 0);
  if (twice)
    ev = async_work_group_copy(u, in + 32, 32, 0);
  wait_group_events(1, &ev);
  out[get_global_id(0)] = t[get_local_id(0)];
}
"""
    kernel = parse_kernel_text(text, "maybe.cl")
    assert [s.completes for s in K.walk_stmts(kernel.body) if isinstance(s, K.WaitEvents)] == [True]
