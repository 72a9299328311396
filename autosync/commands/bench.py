"""``autosync bench``: reproduce Tables I and II of the AutoSync paper on a folder of kernels.

Table I (micro-benchmarks, barrier-free inputs): LoC, N-V, AS-V, N-B, AS-B, N-Time, AS-Time.
Table II (kernels WITH the developer's barriers): LoC, V, O-B, AS-B, Time, plus the naive
method's V and time and the ``compare`` verdict.  A folder is a Table II folder when its
kernels contain barriers.

Counting follows the paper: one oracle call = one verification of one candidate kernel (races
and divergences together), as one GPUVerify run was; the initial call on the input counts.
Every figure printed is measured on this machine in this run; the paper's own figures are
shown beside ours for reference, labelled as such.
"""

from __future__ import annotations

import glob
import os
import platform
import re
import statistics
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from autosync.algorithm.cost import DEFAULT_WARP_COST
from autosync.algorithm.naive import naive_synthesize
from autosync.algorithm.synthesis import count_barriers, synthesize
from autosync.commands.compare import compare_kernel
from autosync.pipeline.core import note_iteration, note_kernel, pick_oracle
from autosync.pipeline.named_fix import named_synthesize
from autosync.pipeline.split_fix import split_synthesize
from kpl.ast import Kernel
from kpl.frontend import load_kernels
from kpl.textio import read_source
from kpl.transform import strip_barriers
from oracle.base import Oracle

#: Table I of the paper: name -> (LoC, N-V, AS-V, N-B, AS-B, N-Time, AS-Time)
PAPER_TABLE_I: dict[str, tuple[int, int, int, int, int, float, float]] = {
    "1-1-if": (11, 6, 4, 1, 1, 7.1, 3.6),
    "1-1-loop-inter": (10, 10, 2, 1, 1, 11.5, 1.1),
    "1-1-loop-intra": (7, 6, 3, 1, 1, 9.5, 3.1),
    "1-1-main": (5, 6, 2, 1, 1, 6.6, 1.1),
    "2-1-main": (6, 7, 2, 1, 1, 8.0, 1.1),
    "2-1-loop-d2-intra": (9, 8, 5, 1, 1, 12.8, 6.4),
    "2-2-loop-d2-both": (18, 15, 5, 2, 2, 25.2, 6.6),
    "2-2-loop-both": (7, 7, 4, 2, 2, 8.9, 4.0),
}

#: Table II of the paper: name -> (LoC, V, O-B, AS-B, Time)
PAPER_TABLE_II: dict[str, tuple[int, int, int, int, float]] = {
    "convolutionColumnsKernel": (55, 2, 1, 1, 13.1),
    "convolutionRowsKernel": (57, 2, 1, 1, 8.4),
    "d_transpose": (26, 2, 1, 1, 1.1),
    "imageDenoising_nlm2_kernel": (88, 2, 1, 1, 1.9),
    "matrixMul": (72, 4, 2, 2, 15.5),
    "mergeHistogram256Kernel": (25, 3, 1, 1, 3.2),
    "mergeHistogram64Kernel": (26, 3, 1, 1, 3.3),
    "reduce0": (26, 3, 2, 1, 3.3),
    "reduce1": (28, 4, 2, 2, 6.1),
    "reduce2": (30, 4, 2, 1, 5.6),
    "reduce3": (32, 3, 2, 1, 3.2),
    "reduce5": (94, 3, 4, 3, 10.1),
    "reduce6": (104, 4, 4, 3, 15.8),
    "sobol": (93, 3, 1, 1, 19.9),
    "sum0": (25, 3, 2, 2, 4.7),
    "sum1": (22, 3, 2, 2, 4.6),
    "uniformUpdate": (17, 3, 1, 1, 2.6),
    "uniform_add": (17, 3, 1, 1, 2.4),
}


def lines_of_code(text: str) -> int:
    """Non-blank lines that are not only a comment (the header lines are comments)."""
    count = 0
    in_block = False
    for raw in text.splitlines():
        line = raw.strip()
        if in_block:
            if "*/" in line:
                in_block = False
                line = line.split("*/", 1)[1].strip()
            else:
                continue
        if line.startswith("/*"):
            if "*/" not in line:
                in_block = True
            continue
        if not line or line.startswith("//"):
            continue
        count += 1
    return count


@dataclass
class Row:
    name: str
    path: str
    loc: int
    expected_min: int | None
    as_v: int = 0
    as_b: int = 0
    as_w: int = 0  # how many of the AS-B barriers are __syncwarp()
    as_cost: float = 0.0
    as_time: float = 0.0
    as_iterations: int = 0
    as_status: str = ""
    n_v: int | None = None
    n_b: int | None = None
    n_time: float | None = None
    n_status: str = ""
    o_b: int | None = None
    o_cost: float | None = None
    verdict: str | None = None
    compare_time: float | None = None
    ok: bool = True
    split: bool = False  # a self-racing statement was split (autosync.algorithm.split) before synthesis
    named: bool = False  # fixed with a bar.arrive/bar.sync pair (autosync.algorithm.named_synthesis)
    named_v: int = 0  # of AS-V, the calls of the named-barrier oracle choosing that pair
    oracle: str = ""  # the oracle of Algorithm 1 on this kernel
    problems: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items()}


def _stem(path: str) -> str:
    return os.path.splitext(os.path.basename(path))[0]


def _oracle(name: str, kernel: Kernel, timeout: float | None, path: str) -> Oracle:
    """A fresh oracle, as the guarded run (Ctrl-C, ``--timeout``, progress) must see it; with
    ``timeout``, no single oracle call outlives the run's time limit (the command's own)."""
    return pick_oracle(name, kernel, timeout, path)[1]


def bench_file(path: str, *, table: str, oracle_name: str = "sdv", solver: str = "rc2",
               naive: bool = True, use_facts: bool = True, repeat: int = 1,
               lc: int | float | str | Fraction = 100,
               ic: int | float | str | Fraction = 0.5, timeout: float | None = None,
               warp_cost: int | float | str | Fraction | None = DEFAULT_WARP_COST) -> Row:
    """Measure one kernel file (the first kernel in it) for Table I or II (``timeout``: the
    command's ``--timeout``, also given to every oracle so that no call outlives it)."""
    text = read_source(path)  # as every command reads a kernel (non-UTF-8 bytes, BOM, CRLF)
    kernel = load_kernels(path, text)[0]
    if oracle_name == "sdv" and kernel.uses_named_barriers:
        oracle_name = "named"  # sdv does not model named barriers; `check` and `fix` pick this one too
    expected = kernel.expected.get("min_barriers")
    row = Row(_stem(path), path, lines_of_code(text), int(expected) if expected else None, oracle=oracle_name)
    times: list[float] = []
    if table == "II":
        # Time = the synthesis from the stripped kernel (as the paper's Table II); the rest of
        # `compare` (checking the developer's kernel, naming redundant barriers, re-parsing
        # the rendered text) is reported separately as compare_time.
        row.o_b = count_barriers(kernel)
        compare_times: list[float] = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            cmp = compare_kernel(kernel, _oracle(oracle_name, kernel, timeout, path), solver=solver, lc=lc, ic=ic,
                                 use_facts=use_facts, warp_cost=warp_cost, on_iteration=note_iteration)
            compare_times.append(time.perf_counter() - t0)
            times.append(cmp.synthesis.seconds)
        row.compare_time = statistics.median(compare_times)
        res = cmp.synthesis
        row.o_cost = float(cmp.developer.cost)
        row.verdict = cmp.verdict
        if not cmp.developer_verified:
            row.problems.append("developer placement does not verify")
        start_kernel = strip_barriers(kernel)[0]
    else:
        start_kernel = kernel
        for _ in range(repeat):
            t0 = time.perf_counter()
            res = synthesize(kernel, _oracle(oracle_name, kernel, timeout, path), solver=solver, lc=lc, ic=ic,
                             use_facts=use_facts, warp_cost=warp_cost, on_iteration=note_iteration)
            # a statement that races with itself is split, as `fix` does (autosync.algorithm.split); the
            # naive baseline then starts from the split kernel too
            split = split_synthesize(kernel, res, path, lambda k: synthesize(
                k, _oracle(oracle_name, k, timeout, path), solver=solver, lc=lc, ic=ic,
                use_facts=use_facts, warp_cost=warp_cost, on_iteration=note_iteration))
            if split is not None:
                start_kernel, res = split
                row.split = True
            # a producer/consumer race between warp-specialised arms: the least costly named
            # pair, as `fix` inserts it (autosync.algorithm.named_synthesis); its calls counted in
            named = named_synthesize(kernel, res, lc=lc, ic=ic) if split is None else None
            if named is not None:
                row.named, row.named_v = True, named.oracle_calls - res.oracle_calls
                res = named
            times.append(time.perf_counter() - t0)
    row.as_time = statistics.median(times)
    row.as_status = res.status
    row.as_v = res.oracle_calls
    row.as_b = len(res.labels)
    row.as_w = sum(1 for a in res.placement if a.kind.warp)
    row.as_cost = float(res.cost)
    row.as_iterations = res.iterations
    if not res.ok:
        row.problems.append(f"synthesis {res.status}: {res.reason}")
    if naive and not row.named:  # the naive baseline inserts __syncthreads() only: nothing to compare
        t0 = time.perf_counter()
        nres = naive_synthesize(start_kernel, _oracle(oracle_name, kernel, timeout, path), lc=lc, ic=ic)
        row.n_time = time.perf_counter() - t0
        row.n_v = nres.oracle_calls
        row.n_b = len(nres.labels)
        row.n_status = nres.status
    if row.expected_min is not None and row.as_b != row.expected_min:
        row.problems.append(f"AS-B {row.as_b} != min_barriers {row.expected_min}")
    paper_v = (PAPER_TABLE_I.get(row.name, (0, 0, 0))[2] if table == "I"
               else PAPER_TABLE_II.get(row.name, (0, 0))[1])
    if paper_v and row.as_v > paper_v:
        row.problems.append(f"AS-V {row.as_v} > paper's {paper_v}")
    if table == "II" and row.o_b is not None and row.as_b > row.o_b:
        row.problems.append(f"AS-B {row.as_b} > O-B {row.o_b}")
    if table == "I" and row.n_v is not None and row.as_v >= row.n_v:
        row.problems.append(f"AS-V {row.as_v} not < N-V {row.n_v}")
    row.ok = not row.problems
    return row


def bench_folder(folder: str, *, table: str | None = None, **options: Any) -> tuple[str, list[Row]]:
    files = sorted(glob.glob(os.path.join(folder, "*.cu")) + glob.glob(os.path.join(folder, "*.cl")))
    if not files:
        raise FileNotFoundError(f"no .cu or .cl files in {folder}")
    if table is None:
        table = "I"
        for f in files:
            text = read_source(f)
            if "__syncthreads" in text or "__syncwarp" in text \
                    or f.endswith(".cl") and re.search(r"\b(?:work_group_)?barrier\s*\(", text):
                table = "II"
                break
    rows = []
    for i, f in enumerate(files):
        note_kernel(_stem(f), i + 1, len(files))
        rows.append(bench_file(f, table=table, **options))
    return table, rows


def machine() -> str:
    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def _as_b(r: Row) -> str:
    """AS-B, with how many of them are ``__syncwarp()``: ``3`` or ``3/1w``; ``2n`` for a
    named-barrier pair."""
    if r.named:
        return f"{r.as_b}n"
    return f"{r.as_b}/{r.as_w}w" if r.as_w else str(r.as_b)


def format_table(table: str, rows: list[Row], *, oracle: str, solver: str) -> str:
    def f(x: float | None) -> str:
        return "-" if x is None else f"{x:.2f}"

    out = []
    if table == "I":
        head = (f"{'Benchmark':<22}{'LoC':>5}{'N-V':>5}{'AS-V':>6}{'N-B':>5}{'AS-B':>6}"
                f"{'N-Time':>8}{'AS-Time':>9}   paper: AS-V N-V  ok")
        out.append(head)
        for r in rows:
            p1 = PAPER_TABLE_I.get(r.name)
            paper = f"{p1[2]:>4} {p1[1]:>3}" if p1 else "   -   -"
            out.append(f"{r.name:<22}{r.loc:>5}{(r.n_v if r.n_v is not None else '-'):>5}{r.as_v:>6}"
                       f"{(r.n_b if r.n_b is not None else '-'):>5}{_as_b(r):>6}{f(r.n_time):>8}"
                       f"{f(r.as_time):>9}   {paper}  {'yes' if r.ok else 'NO'}")
    else:
        head = (f"{'Benchmark':<28}{'LoC':>5}{'V':>4}{'O-B':>5}{'AS-B':>6}{'Time':>7}"
                f"{'N-V':>5}{'N-Time':>8}  {'verdict':<8} paper: V O-B AS-B  ok")
        out.append(head)
        for r in rows:
            p2 = PAPER_TABLE_II.get(r.name)
            paper = f"{p2[1]:>2} {p2[2]:>3} {p2[3]:>4}" if p2 else " -   -    -"
            out.append(f"{r.name:<28}{r.loc:>5}{r.as_v:>4}{(r.o_b if r.o_b is not None else '-'):>5}"
                       f"{_as_b(r):>6}{f(r.as_time):>7}{(r.n_v if r.n_v is not None else '-'):>5}"
                       f"{f(r.n_time):>8}  {(r.verdict or '-'):<8} {paper}  {'yes' if r.ok else 'NO'}")
    total_as = sum(r.as_time for r in rows)
    total_n = sum(r.n_time or 0 for r in rows)
    out.append(f"total: AutoSync {total_as:.2f} s, naive {total_n:.2f} s over {len(rows)} kernels "
               f"(oracle {oracle}, solver {solver}; {machine()})")
    if table == "II":
        total_cmp = sum(r.compare_time or 0 for r in rows)
        out.append(f"Time is synthesis alone; the whole compare (developer check, redundancy, "
                   f"re-parse) took {total_cmp:.2f} s")
    for r in rows:
        if r.named:
            out.append(f"{r.path}: AS-B is one bar.arrive/bar.sync pair, cost {Fraction(r.as_cost).limit_denominator()}; "
                       f"AS-V = {r.as_v - r.named_v} by {r.oracle} (Algorithm 1) + {r.named_v} by named (the pair); "
                       f"no naive baseline (it has no named barriers)")
    for r in rows:
        for problem in r.problems:
            out.append(f"{r.path}: problem: {problem}")
    return "\n".join(out) + "\n"

