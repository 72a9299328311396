"""Long barrier intervals (issue 28, item 4): N statements ``A[tid] = A[tid] + k`` and no
barrier (the kernels of ``microbench/long_interval.py``).

Structural, not wall-clock: what the oracle does must not grow with N beyond its one pass
over the statements -- one class of labels and one race query (``oracle.sdv.pairs``), and
none of the 2N no-overflow facts about the reads' values in the solver: nothing but the
stored value mentions those values, so the facts stay with it
(``oracle.sdv.defined.DefinedArithmetic._holdable``) and the solver holds as many facts for
20,000 statements as for 10.  The racy twin -- one line reads the neighbour's cell --
reports exactly that line's pairs.  Where a value escapes (into another fact, a product
lemma), its facts go to the solver as before.  End to end, 20,000 statements are the
``slow`` test.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import z3
from conftest import slow

from kpl.frontend import parse_kernel_text
from kpl.labels import LabelTree
from oracle.base import AccessKind
from oracle.sdv import SDVOracle
from oracle.sdv.executor import Executor
from oracle.sdv.state import QueryEngine

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "microbench"))

from long_interval import kernel  # noqa: E402


def _run(text: str) -> tuple[Executor, QueryEngine]:
    """The ``same`` run of the kernel, as ``SDVOracle.check`` starts it."""
    engine = QueryEngine(None, 20000, None)
    ex = Executor(parse_kernel_text(text), "same", engine)
    ex.run()
    return ex, engine


@pytest.mark.parametrize("space", ["global", "shared"])
def test_work_does_not_grow_with_the_interval(space: str) -> None:
    """10 and 2,000 statements: the same solver content, the same queries, no fact of the
    reads' values asserted (so no vacuity query either), each write carrying its own."""
    sizes = (10, 2000)
    asserted, queries = [], []
    for n in sizes:
        ex, engine = _run(kernel(n, space))
        asserted.append(len(engine.solver.assertions()))
        assert ex.ub_facts == 0
        writes = [a for a in ex.accesses if a.kind is AccessKind.WRITE and a.mem.name == "A"]
        # ``A[tid] + 0`` cannot overflow: no fact
        assert len(writes) == 2 * n and [len(a.value_facts) for a in writes] == [0] * 2 + [1] * (2 * n - 2)
        v = SDVOracle().check(parse_kernel_text(kernel(n, space)))
        assert v.verified and not v.unknowns
        queries.append(v.queries)
    assert asserted[0] == asserted[1]
    assert queries[0] == queries[1] == (1 if space == "global" else queries[0])


def test_held_fact_is_the_no_overflow_fact() -> None:
    """What a write carries is exactly the fact the solver used to get: "the read value
    plus k does not overflow" (``rd <= INT_MAX - k``), and it excludes the overflow."""
    ex, engine = _run(kernel(3, "global"))
    last = [a for a in ex.accesses if a.kind is AccessKind.WRITE][-1]
    (make,) = last.value_facts
    fact = make()
    reads = z3.z3util.get_vars(last.value)
    assert len(reads) == 1 and last.value.eq(z3.simplify(reads[0] + 2))

    def ok(read: int) -> z3.CheckSatResult:
        s = z3.Solver()
        s.add(fact, z3.Bool("no-signed-overflow"), reads[0] == read)
        return s.check()

    assert ok(0) == z3.sat and ok(2 ** 31 - 3) == z3.sat
    assert ok(2 ** 31 - 2) == z3.unsat  # INT_MAX - 2 + 2 is the last sum that fits


@pytest.mark.parametrize("value, held", [
    ("A[tid] + 5", True),
    ("A[tid] - A[tid + 1]", True),    # the fact of tid + 1 goes beside the held one
    ("A[tid] + tid", False),          # the fact mentions tid: asserted
    ("A[tid] + 1 + 2", True),         # (rd + 1) + 2: a held sum of the read, held too
    ("A[tid] * 3 + 7", True),
    ("A[tid] + 2147483647 + 1", False),  # where the read is 0 the second sum overflows
    ("(A[tid] + 1) * tid", False),    # the fact mentions tid: asserted, with the first
    ("A[tid] * A[tid + 1]", False),   # the product is kept for the lemmas
    ("A[A[tid]] + 1", False),         # a read in an index: its value reaches a logged index
    ("tid > 3 ? A[tid] + 1 : 0", False),
])
def test_facts_escape_with_their_values(value: str, held: bool) -> None:
    """Facts are held back only while the read values reach nothing but the stored value;
    otherwise every one of them is in the solver, as before."""
    # after the thread's own write, its reads of A are adversarial (fresh values)
    text = ("//--blockDim=64 --gridDim=1\n__global__ void k(int *A) {\n"
            f"  int tid = threadIdx.x;\n  A[tid] = 1;\n  A[tid] = {value};\n}}\n")
    ex, _ = _run(text)
    writes = [a for a in ex.accesses if a.kind is AccessKind.WRITE][2:]
    assert len(writes) == 2
    if held:
        assert all(a.value_facts for a in writes)
    else:
        assert ex.ub_facts > 0 and not any(a.value_facts for a in writes)


@pytest.mark.parametrize("value, free", [
    ("A[tid] + 5", True),
    ("A[tid] - 5", True),
    ("A[tid + 1]", True),
    ("A[tid] * 3", False),            # 3r: not every value (the solver decides)
    ("5 - A[tid]", False),
    ("A[tid] - A[tid + 1]", False),
    ("A[tid] + tid", False),
])
def test_free_values(value: str, free: bool) -> None:
    """A stored value that can differ from anything (``r + c`` of a fresh read ``r``) makes
    a benign-write check moot; any other shape is left to the solver."""
    text = ("//--blockDim=64 --gridDim=1\n__global__ void k(int *A) {\n"
            f"  int tid = threadIdx.x;\n  A[tid] = 1;\n  A[tid] = {value};\n}}\n")
    ex, _ = _run(text)
    writes = [a for a in ex.accesses if a.kind is AccessKind.WRITE][2:]
    assert [a.free_value for a in writes] == [free, free]


def test_equal_values_stay_benign() -> None:
    """The precision the values buy is kept: two threads storing one value into one cell
    do not race (the value is the same read of a read-only array); storing a fresh read's
    value plus a constant, they do."""
    head = "//--blockDim=64 --gridDim=1\n__global__ void k(int *A, const int *B) {\n"
    same = head + "  A[0] = B[0] + 1;\n}\n"
    assert SDVOracle().check(parse_kernel_text(same)).verified
    differ = head + "  A[threadIdx.x] = 1;\n  A[0] = A[threadIdx.x] + 1;\n}\n"
    races = SDVOracle().check(parse_kernel_text(differ)).races
    assert [(r.array, r.kinds) for r in races if r.first == r.second] == \
        [("A", (AccessKind.WRITE, AccessKind.WRITE))]


@pytest.mark.parametrize("space, racy", [("global", "read"), ("shared", "read"),
                                         ("global", "write"), ("shared", "write")])
def test_racy_line_races_with_every_line(space: str, racy: str) -> None:
    """The racy twins: line ``m`` reads (writes) ``A[tid + 1]``, the cell the neighbour
    writes (reads and writes) on every line -- exactly the n pairs with line ``m`` race, on
    ``A``; the written values can always differ, so write-write pairs race too."""
    n = 2000
    text = kernel(n, space, racy)
    k = parse_kernel_text(text)
    v = SDVOracle(warp_facts=False).check(k)
    tree = LabelTree(k)
    first = 1 + next(i for i, ln in enumerate(text.splitlines()) if "A[tid] = A[tid] + 0;" in ln)
    m = first + n // 2
    pairs = {(tree.line(r.first), tree.line(r.second)) for r in v.races}
    expected = {(min(line, m), max(line, m)) for line in range(first, first + n)}
    if racy == "write" and space == "shared":
        expected.add((m, first + n))  # the final read of A races with the write too
    assert pairs == expected
    assert {r.array for r in v.races} == {"A"}
    kinds = [r.kinds for r in v.races]
    both = (AccessKind.WRITE, AccessKind.WRITE)
    if racy == "write":  # the most severe kinds: two writes, but line m with itself
        assert kinds.count(both) == n - 1
        assert all(k == both or k == (AccessKind.WRITE, AccessKind.READ) for k in kinds)
    else:
        assert all(AccessKind.READ in k and AccessKind.WRITE in k for k in kinds)
    # per class pair (a few kind and depth queries each), not per racing label pair
    assert v.queries < 40


@slow
def test_twenty_thousand_statements_end_to_end() -> None:
    """The issue's goal, end to end: ``autosync check --no-cache`` of 20,000 statements in
    less than 20 s of CPU time (CPU: the shared machine changes wall-clock only), verified
    with one query; the racy twin finds its 20,000 pairs."""
    with tempfile.TemporaryDirectory() as tmp:
        for racy in (False, True):
            path = os.path.join(tmp, f"long{int(racy)}.cu")
            Path(path).write_text(kernel(20000, "global", "write" if racy else None),
                                  encoding="utf-8")
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            proc = subprocess.run([sys.executable, "-m", "autosync", "check", path, "--no-cache",
                                   "--format", "json"],
                                  capture_output=True, text=True, timeout=300, cwd=ROOT)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            doc = json.loads(proc.stdout)["kernels"][0]
            if racy:
                assert proc.returncode == 1 and len(doc["races"]) == 20000
            else:
                assert proc.returncode == 0 and doc["verified"] and doc["queries"] == 1
                assert cpu < 20, cpu
