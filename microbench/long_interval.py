"""Long barrier intervals (issue 28, item 4): one straight-line interval of N statements.

Usage::

    python microbench/long_interval.py [--sizes 1000,2000,4000,20000] [--space global|shared]
                                       [--racy read|write] [--limit 300] [--write DIR]
                                       [--repo DIR]

Each kernel is our own: N statements ``A[tid] = A[tid] + k;`` (``k`` a distinct constant per
line, ``tid = threadIdx.x``, no barrier), ``A`` a global parameter or a ``__shared__`` array.
Every thread touches only its own cell, so the kernel is race-free.  ``--racy read``: the
middle line reads ``A[tid + 1]`` instead, which races with every write of the neighbour's
cell; ``--racy write``: the middle line writes ``A[tid + 1]``, which races with every access of
it -- in both, exactly the N statement pairs with that line race
(``tests/test_long_interval.py``).

Every size runs ``autosync check FILE --no-cache --format json`` in a subprocess and prints
its wall-clock seconds, its CPU seconds (the loaded machine changes wall-clock only), the
oracle's own seconds and its solver queries.  ``--write DIR`` only writes the kernels;
``--repo DIR`` measures another checkout (a baseline).
The goal of the issue: 20,000 statements in < 20 s; the number of queries must not grow
with N (one class of labels, ``oracle.sdv.pairs``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def kernel(n: int, space: str = "global", racy: str | None = None) -> str:
    """The kernel text: ``n`` statements ``A[tid] = A[tid] + k`` in one barrier interval;
    ``racy`` ``read``/``write``: statement ``n // 2`` reads/writes the neighbour's cell
    ``A[tid + 1]``."""
    lines = []
    for k in range(n):
        read = write = "A[tid]"
        if k == n // 2 and racy == "read":
            read = "A[tid + 1]"
        elif k == n // 2 and racy == "write":
            write = "A[tid + 1]"
        lines.append(f"  {write} = {read} + {k};")
    body = "\n".join(lines)
    if space == "shared":
        return ("//--blockDim=64 --gridDim=1\n__global__ void k(int *out) {\n"
                "  __shared__ int A[65];\n  int tid = threadIdx.x;\n" + body
                + "\n  out[tid] = A[tid];\n}\n")
    return ("//--blockDim=64 --gridDim=1\n__global__ void k(int *A) {\n"
            "  int tid = threadIdx.x;\n" + body + "\n}\n")


def measure(path: str, limit: float, repo: Path = REPO) -> dict[str, object]:
    """One ``autosync check --no-cache`` of ``path``: wall/CPU seconds, exit code, and the
    oracle's seconds, queries and races from its JSON report."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    env = dict(os.environ, PYTHONPATH=str(repo))
    try:
        proc = subprocess.run([sys.executable, "-m", "autosync", "check", path, "--no-cache",
                               "--format", "json"], capture_output=True, text=True,
                              timeout=limit, env=env, cwd=repo)
    except subprocess.TimeoutExpired:
        return {"wall_s": None, "rc": None}
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    row: dict[str, object] = {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "rc": proc.returncode}
    try:
        doc = json.loads(proc.stdout)
        k = doc["kernels"][0]
        row.update(oracle_s=k["seconds"], queries=k["queries"], races=len(k["races"]))
    except (ValueError, KeyError, IndexError):
        row["stderr"] = proc.stderr.strip()[-300:]
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,2000,4000,20000")
    ap.add_argument("--space", choices=("global", "shared"), default="global")
    ap.add_argument("--racy", choices=("read", "write"))
    ap.add_argument("--limit", type=float, default=300.0)
    ap.add_argument("--write", metavar="DIR")
    ap.add_argument("--repo", metavar="DIR", type=Path, default=REPO)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    folder = args.write or tempfile.mkdtemp(prefix="autosync-long-")
    os.makedirs(folder, exist_ok=True)
    for n in sizes:
        name = f"long_{args.space}_{n}{'_racy_' + args.racy if args.racy else ''}.cu"
        path = os.path.join(folder, name)
        Path(path).write_text(kernel(n, args.space, args.racy), encoding="utf-8")
        if args.write:
            print(path)
            continue
        print(json.dumps({"kernel": name, **measure(path, args.limit, args.repo)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
