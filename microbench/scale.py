"""Scaling benchmark: does verification cost follow the kernel's sizes?

Usage::

    python microbench/scale.py [--quick] [--only NAME] [--limit 120] [--json OUT]

Generates kernels of our own (none copied from any suite) into a temp folder, in families
whose one size parameter doubles or quadruples:

* ``matmul``   tiled matrix multiply with shared tiles ``As``/``Bs``; ``BLOCK_SIZE`` 8..64 and
  the matrix widths ``wA``/``wB`` = BLOCK_SIZE x 1/4/16/64 (the tile loop's trip count);
* ``reduce``   shared-memory tree reduction, block 64..1024;
* ``stencil``  2-D five-point stencil on a shared tile with a one-cell halo, tile 8..64;
* ``straight`` straight-line kernels of 25..1000 statements: groups of five statements
  (write own cell, private arithmetic, read a neighbour's cell) whose reads race with the
  writes unless a barrier separates them.

Each family comes race-free (barriers in place) for ``autosync check`` and barrier-stripped for
``autosync fix --diff``.  Every run is a subprocess with a wall-clock limit; one that runs out
is reported as ``> limit`` rather than waited for.  Times are CPU seconds of the whole
command (interpreter start-up included), so a loaded machine does not change them.  The printed ratio "per doubling" for the
straight-line series is t(2n)/t(n), geometric mean over the measured doublings: about 2 means
linear cost, 4 quadratic.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import signal
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BARRIER = "__syncthreads();"


@dataclass(frozen=True)
class Case:
    """One generated kernel: its family, its size label and both versions of its text."""

    family: str
    size: str
    text: str       # race-free, with barriers (for check)

    @property
    def name(self) -> str:
        return f"{self.family}-{self.size}"

    @property
    def stripped(self) -> str:
        """The same kernel with every barrier line removed (for fix)."""
        return "\n".join(ln for ln in self.text.splitlines() if ln.strip() != BARRIER) + "\n"


@dataclass
class Row:
    """Measured figures of one case; ``None`` where the run hit the limit or failed."""

    kernel: str
    size: str
    check_s: float | None
    check_rc: int | None
    check_queries: int | None
    fix_s: float | None
    fix_rc: int | None
    oracle_calls: int | None
    barriers: int | None
    expected_barriers: int


# ---- generators ------------------------------------------------------------------------------

def matmul(block: int, scale: int) -> Case:
    wa = block * scale          # A's width: the tile loop runs ``scale`` times
    wb = 4 * block * scale      # B's and C's width: one block column per tile of C
    text = f"""//--blockDim=[{block},{block}] --gridDim=[{4 * scale},4]
// Tiled matrix multiply C = A * B, tiles of BLOCK_SIZE x BLOCK_SIZE in shared memory.
#define BLOCK_SIZE {block}
#define WA {wa}
#define WB {wb}
__global__ void matmul(float *C, const float *A, const float *B) {{
  __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  int row = blockIdx.y * BLOCK_SIZE + ty;
  int col = blockIdx.x * BLOCK_SIZE + tx;
  float acc = 0.0f;
  for (int t = 0; t < WA / BLOCK_SIZE; t++) {{
    As[ty][tx] = A[row * WA + t * BLOCK_SIZE + tx];
    Bs[ty][tx] = B[(t * BLOCK_SIZE + ty) * WB + col];
    {BARRIER}
    for (int k = 0; k < BLOCK_SIZE; k++) {{
      acc += As[ty][k] * Bs[k][tx];
    }}
    {BARRIER}
  }}
  C[row * WB + col] = acc;
}}
"""
    return Case("matmul", f"b{block}-w{scale}x", text)


def reduce(block: int) -> Case:
    text = f"""//--blockDim={block} --gridDim=16
// Tree reduction of one block's {block} values in shared memory.
#define N {block}
__global__ void reduce(const float *in, float *out) {{
  __shared__ float s[N];
  unsigned int tid = threadIdx.x;
  s[tid] = in[blockIdx.x * N + tid];
  {BARRIER}
  for (unsigned int stride = N / 2; stride > 0; stride >>= 1) {{
    if (tid < stride) {{
      s[tid] += s[tid + stride];
    }}
    {BARRIER}
  }}
  if (tid == 0) {{
    out[blockIdx.x] = s[0];
  }}
}}
"""
    return Case("reduce", f"b{block}", text)


def stencil(tile: int) -> Case:
    text = f"""//--blockDim=[{tile},{tile}] --gridDim=[8,8]
// Five-point stencil on a shared {tile}x{tile} tile with a one-cell halo.
#define T {tile}
#define WIDTH (8 * T)
__global__ void stencil(const float *in, float *out) {{
  __shared__ float tile[T + 2][T + 2];
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  int gx = blockIdx.x * T + tx;
  int gy = blockIdx.y * T + ty;
  int left = gx > 0 ? gx - 1 : gx;
  int right = gx < WIDTH - 1 ? gx + 1 : gx;
  int up = gy > 0 ? gy - 1 : gy;
  int down = gy < WIDTH - 1 ? gy + 1 : gy;
  tile[ty + 1][tx + 1] = in[gy * WIDTH + gx];
  if (tx == 0) {{
    tile[ty + 1][0] = in[gy * WIDTH + left];
  }}
  if (tx == T - 1) {{
    tile[ty + 1][T + 1] = in[gy * WIDTH + right];
  }}
  if (ty == 0) {{
    tile[0][tx + 1] = in[up * WIDTH + gx];
  }}
  if (ty == T - 1) {{
    tile[T + 1][tx + 1] = in[down * WIDTH + gx];
  }}
  {BARRIER}
  out[gy * WIDTH + gx] = 0.2f * (tile[ty + 1][tx + 1] + tile[ty][tx + 1] + tile[ty + 2][tx + 1]
                                 + tile[ty + 1][tx] + tile[ty + 1][tx + 2]);
}}
"""
    return Case("stencil", f"t{tile}", text)


def straight(n: int) -> Case:
    """``n`` statements in groups of five; group g uses array a (g even) or b (g odd).

    In each group the write of the thread's own cell and the read of a neighbour's cell race
    unless a barrier lies between them (three places to choose from); alternating arrays means
    the read of group g and the write of group g+2 are already separated by group g+1's barrier.
    """
    body: list[str] = []
    for i in range(n):
        g, k = divmod(i, 5)
        arr = "a" if g % 2 == 0 else "b"
        off = 1 + (g * 7) % 31
        if k == 0:
            body.append(f"  {arr}[tid] = x;")
        elif k == 1:
            body.append(f"  x = x * 3 + {i};")
        elif k == 2:
            body.append(f"  x = x ^ {i};")
        elif k == 3:
            body.append(f"  {BARRIER}")
            body.append(f"  y = {arr}[(tid + {off}) % 64];")
        else:
            body.append("  x = x + y;")
    text = ("//--blockDim=64 --gridDim=4\n"
            f"// {n} straight-line statements; shared cells written then read by a neighbour.\n"
            "__global__ void straight(int *out) {\n"
            "  __shared__ int a[64];\n  __shared__ int b[64];\n"
            "  int tid = threadIdx.x;\n  int x = tid;\n  int y = 0;\n"
            + "\n".join(body) + "\n  out[blockIdx.x * 64 + tid] = x;\n}\n")
    return Case("straight", f"n{n}", text)


def cases(quick: bool) -> list[Case]:
    if quick:
        return ([matmul(b, 1) for b in (8, 16)] + [matmul(16, 4)]
                + [reduce(b) for b in (64, 256)] + [stencil(t) for t in (8, 16)]
                + [straight(n) for n in (25, 50, 100)])
    return ([matmul(b, 1) for b in (8, 16, 32, 64)] + [matmul(16, s) for s in (4, 16, 64)]
            + [reduce(b) for b in (64, 128, 256, 512, 1024)] + [stencil(t) for t in (8, 16, 32, 64)]
            + [straight(n) for n in (25, 50, 100, 200, 400, 1000)])


# ---- running ---------------------------------------------------------------------------------

def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run_cli(args: list[str], cwd: Path, limit: float) -> tuple[int | None, float, dict[str, object] | None, str]:
    """``autosync ARGS`` in ``cwd``; (rc or None at the limit, CPU seconds, parsed JSON, stderr).

    CPU time (user + system of the finished child), not wall-clock: the figures must not
    depend on what else the machine runs.  The limit is still wall-clock."""
    pypath = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    env = dict(os.environ, PYTHONPATH=pypath)
    c0 = _children_cpu()
    proc = subprocess.Popen([sys.executable, "-m", "autosync", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return None, _children_cpu() - c0, None, ""
    secs = _children_cpu() - c0
    try:
        doc = json.loads(out)
    except ValueError:
        doc = None
    return proc.returncode, secs, doc if isinstance(doc, dict) else None, err.decode(errors="replace")


def _int(doc: dict[str, object] | None, key: str) -> int | None:
    v = doc.get(key) if doc else None
    return v if isinstance(v, int) else None


def measure(case: Case, work: Path, limit: float) -> Row:
    good = work / f"{case.name}.cu"
    bad = work / f"{case.name}-stripped.cu"
    good.write_text(case.text)
    bad.write_text(case.stripped)
    c_rc, c_s, c_doc, c_err = run_cli(["check", good.name, "--format", "json"], work, limit)
    f_rc, f_s, f_doc, f_err = run_cli(["fix", bad.name, "--diff", "--format", "json"], work, limit)
    for rc, err, what in ((c_rc, c_err, "check"), (f_rc, f_err, "fix")):
        if rc not in (None, 0, 1) or (what == "check" and rc == 1):
            last = err.strip().splitlines()[-1:] or ["(no stderr)"]
            print(f"  note: {case.name} {what} exit {rc}: {last[0]}", file=sys.stderr)
    barriers = f_doc.get("barriers") if f_doc else None
    return Row(case.family, case.size,
               None if c_rc is None else round(c_s, 2), c_rc, _int(c_doc, "queries"),
               None if f_rc is None else round(f_s, 2), f_rc, _int(f_doc, "oracle_calls"),
               len(barriers) if isinstance(barriers, list) else None,
               case.text.count(BARRIER))


def _fmt(v: object, limit: float) -> str:
    if v is None:
        return "-"
    return f"{v:.2f}" if isinstance(v, float) else str(v)


def print_table(rows: list[Row], limit: float) -> None:
    hdr = ("kernel", "size", "check cpu s", "rc", "queries", "fix cpu s", "rc", "oracle calls", "barriers", "expected")
    lines = [hdr]
    for r in rows:
        lines.append((r.kernel, r.size,
                      f"> {limit:.0f}" if r.check_rc is None else _fmt(r.check_s, limit), _fmt(r.check_rc, limit),
                      _fmt(r.check_queries, limit),
                      f"> {limit:.0f}" if r.fix_rc is None else _fmt(r.fix_s, limit), _fmt(r.fix_rc, limit),
                      _fmt(r.oracle_calls, limit), _fmt(r.barriers, limit), str(r.expected_barriers)))
    widths = [max(len(str(ln[i])) for ln in lines) for i in range(len(hdr))]
    for ln in lines:
        print("  ".join(str(c).rjust(w) for c, w in zip(ln, widths, strict=True)))


def doubling_ratios(rows: list[Row], attr: str) -> list[tuple[int, int, float]]:
    """(n, n', t(n')/t(n) scaled to one doubling) for consecutive measured straight-line sizes."""
    pts = sorted((int(r.size[1:]), getattr(r, attr)) for r in rows
                 if r.kernel == "straight" and getattr(r, attr) is not None)
    return [(n1, n2, math.exp(math.log(t2 / t1) / math.log2(n2 / n1)))
            for (n1, t1), (n2, t2) in zip(pts, pts[1:], strict=False) if t1 > 0 and n2 > n1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="the smaller set")
    ap.add_argument("--only", action="append", help="family (matmul, reduce, stencil, straight) or kernel name")
    ap.add_argument("--limit", type=float, default=120.0, help="wall-clock limit per run (s)")
    ap.add_argument("--json", type=Path, help="write the rows here")
    ap.add_argument("--keep", type=Path, help="write the generated kernels into this folder and keep them")
    a = ap.parse_args(argv)
    todo = [c for c in cases(a.quick) if not a.only or c.family in a.only or c.name in a.only]
    work = a.keep or Path(tempfile.mkdtemp(prefix="autosync-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    rows: list[Row] = []
    for c in todo:
        print(f"... {c.name}", file=sys.stderr, flush=True)
        rows.append(measure(c, work, a.limit))
    print_table(rows, a.limit)
    for attr, what in (("check_s", "check"), ("fix_s", "fix")):
        steps = doubling_ratios(rows, attr)
        if steps:
            mean = math.exp(sum(math.log(r) for _, _, r in steps) / len(steps))
            each = ", ".join(f"{n1}->{n2} x{r:.2f}" for n1, n2, r in steps)
            print(f"straight-line {what}: x{mean:.2f} time per doubling of statements ({each})")
    if a.json:
        a.json.write_text(json.dumps([asdict(r) for r in rows], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
