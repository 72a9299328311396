"""CPU seconds of synthesis per kernel, from the kernel stripped of its barriers.

Usage::

    python microbench/synth_cpu.py sdk_kernels        # Table II
    python microbench/synth_cpu.py microbench         # Table I

``autosync bench`` reports wall-clock time, which a loaded machine inflates; this script
measures the process CPU time of ``synthesize(strip_barriers(k), SDVOracle())`` in-process
(best of two runs), with the oracle calls and z3 queries, so that figures taken on a busy
machine still compare.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from autosync.algorithm.synthesis import synthesize  # noqa: E402
from kpl.ast import Kernel  # noqa: E402
from kpl.frontend import load_kernels  # noqa: E402
from kpl.transform import strip_barriers  # noqa: E402
from oracle.base import Verdict  # noqa: E402
from oracle.sdv import SDVOracle  # noqa: E402


class CountingOracle(SDVOracle):
    """The sdv oracle, summing the z3 queries of every check."""

    def __init__(self) -> None:
        super().__init__()
        self.queries = 0

    def check(self, kernel: Kernel) -> Verdict:
        verdict = super().check(kernel)
        self.queries += verdict.queries
        return verdict


def measure(path: Path) -> tuple[float, int, int, int, str]:
    """(CPU s, oracle calls, z3 queries, barriers, status) of one synthesis of ``path``."""
    kernel = strip_barriers(load_kernels(str(path))[0])[0]
    oracle = CountingOracle()
    start = time.process_time()
    result = synthesize(kernel, oracle)
    return (time.process_time() - start, result.oracle_calls, oracle.queries,
            len(result.labels), result.status)


def main(args: list[str]) -> None:
    paths: list[Path] = []
    for arg in args:
        p = Path(arg)
        paths += sorted(p.glob("*.cu")) if p.is_dir() else [p]
    total = [0.0, 0, 0]
    for path in paths:
        cpu, calls, queries, barriers, status = min(measure(path), measure(path))
        total = [total[0] + cpu, total[1] + calls, total[2] + queries]
        print(f"{path.stem:30s} {cpu:7.2f} s  calls {calls:3d}  queries {queries:5d}  "
              f"barriers {barriers}  {status}", flush=True)
    print(f"total: {total[0]:.2f} s CPU, {total[1]} oracle calls, {total[2]} z3 queries "
          f"({len(paths)} kernels)")


if __name__ == "__main__":
    main(sys.argv[1:] or ["sdk_kernels"])
