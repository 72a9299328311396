"""How many of the construct kernels (tests/kernels/constructs/) AutoSync parses and judges
right: one row per construct, plus totals.

WHY: the construct kernels are acceptance tests for the front end and the memory model
(real third-party CUDA: references, templates, structs, byte views, cooperative groups,
curand, ...).  This table is the before/after figure of that work; tests/test_constructs.py
asserts the same expectations kernel by kernel.  The expectation of a kernel is read from
its header (line 1 ``//pass`` or ``//xfail:...``; ``// autosync: races=A-B,...`` names
the racy line pairs; ``assert_fails=L`` an assertion that fails at line L;
``constant_write=L`` a store to ``__constant__`` memory at line L), and judged here, once,
for both users.

Usage::

    python microbench/constructs.py            # table of every construct kernel
    python microbench/constructs.py --verbose  # also one line per kernel
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "tests" / "kernels" / "constructs"
TIMEOUT_S = 60

#: exit codes of ``autosync check`` (autosync/commands/cli.py)
EXIT_OK, EXIT_FAIL, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3


@dataclass(frozen=True)
class Expectation:
    """What ``autosync check`` must say about one kernel, read from its header."""

    racy: bool  # line 1 is //xfail:...
    races: frozenset[tuple[int, int]] = frozenset()  # (first line, second line), sorted
    assert_fails: int | None = None  # line of an assertion that fails
    constant_write: int | None = None  # line of a store to __constant__ memory


@dataclass
class Outcome:
    """One run of ``autosync check --format json`` on one kernel."""

    code: int | None  # exit code; None when the run timed out
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    timed_out: bool = False


@dataclass
class Judgement:
    """The outcome sorted into the table's columns, with the reason when not as expected."""

    column: str  # "parsed", "rejected", "internal" or "timeout"
    as_expected: bool
    why: str = ""


def read_text(path: Path) -> str:
    """Kernel text as the header checks see it: a UTF-8 byte-order mark dropped, bytes that
    are not UTF-8 (Latin-1 comments) kept as replacement characters."""
    return path.read_bytes().decode("utf-8-sig", errors="replace")


def kernel_files() -> list[Path]:
    return sorted(KERNELS.glob("*.cu"))


#: construct number (file name prefix) -> short name, in the order of the issues' lists
CONSTRUCTS = {
    "01": "includes", "02": "references", "03": "templates", "04": "structs", "05": "casts",
    "06": "memcpy", "07": "function pointers", "08": "cooperative groups", "09": "curand",
    "10": "goto", "11": "textures, misc, encodings", "12": "byte views", "13": "benign writes",
    "14": "consistent reads", "15": "atomics", "16": "loop invariants",
    "17": "__device__ __shared__", "18": "annotations", "19": "__syncwarp",
    "20": "modern CUDA C++", "21": "pointers as values", "22": "library calls and statements",
}


def construct_of(path: Path) -> str:
    """``12_bytes_racy_pack.cu`` -> ``12 byte views``."""
    num = path.stem.split("_", 1)[0]
    return f"{num} {CONSTRUCTS.get(num, '?')}"


def expectation(path: Path) -> Expectation:
    lines = read_text(path).splitlines()
    keys: dict[str, str] = {}
    for line in lines[:6]:
        m = re.match(r"^// autosync:\s*(.*)$", line)
        if m:
            for pair in m.group(1).split():
                k, _, v = pair.partition("=")
                keys[k] = v
    races: set[tuple[int, int]] = set()
    for pair in keys.get("races", "").split(","):
        if pair:
            a, b = sorted(int(x) for x in pair.split("-"))
            races.add((a, b))
    assert_line = keys.get("assert_fails")
    const_line = keys.get("constant_write")
    return Expectation(
        racy=lines[0].startswith("//xfail"),
        races=frozenset(races),
        assert_fails=int(assert_line) if assert_line else None,
        constant_write=int(const_line) if const_line else None,
    )


def check_args(path: Path, timeout: int = TIMEOUT_S - 10) -> list[str]:
    """Arguments of ``autosync`` for one kernel (launch sizes come from the header); the
    tool's own ``--timeout`` fires before the runner's, so a slow kernel reports exit 3."""
    return ["check", "--format", "json", "--timeout", str(timeout), str(path)]


def run_subprocess(path: Path) -> Outcome:
    start = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, "-m", "autosync", *check_args(path)],
                              capture_output=True, text=True, timeout=TIMEOUT_S, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return Outcome(None, seconds=time.monotonic() - start, timed_out=True)
    return Outcome(proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start)


def _doc(out: Outcome) -> dict[str, Any]:
    try:
        doc = json.loads(out.stdout)
    except ValueError:
        return {}
    return doc if isinstance(doc, dict) else {}


def _race_pairs(doc: dict[str, Any]) -> set[tuple[int, int]]:
    pairs: set[tuple[int, int]] = set()
    for race in doc.get("races", []) or []:
        a, b = race["first"]["line"], race["second"]["line"]
        pairs.add((min(a, b), max(a, b)))
    return pairs


def _error_lines(doc: dict[str, Any], stderr: str) -> set[int]:
    """Lines that a finding, an unknown or a one-line ``file:line:col: error:`` points at."""
    found = {int(m.group(1)) for m in re.finditer(r"^\S+?:(\d+):\d+: error:", stderr, re.M)}
    for key in ("findings", "unknowns"):
        for item in doc.get(key, []) or []:
            if isinstance(item, dict) and isinstance(item.get("line"), int):
                found.add(item["line"])
    return found


def judge(exp: Expectation, out: Outcome) -> Judgement:
    """Sort an outcome into a column and say whether it is the verdict the header expects."""
    if out.timed_out:
        return Judgement("timeout", False, f"no answer in {TIMEOUT_S} s")
    if out.code == EXIT_INTERNAL:
        column = "timeout" if re.search(r"time(d)? ?out", out.stderr, re.I) else "internal"
        return Judgement(column, False, out.stderr.strip()[:200])
    doc = _doc(out)
    if exp.constant_write is not None:
        # an error either way: a finding (exit 1) or refused input (exit 2), at that line
        column = "rejected" if out.code == EXIT_BAD_INPUT else "parsed"
        hit = out.code in (EXIT_FAIL, EXIT_BAD_INPUT) and exp.constant_write in _error_lines(doc, out.stderr)
        return Judgement(column, hit, "" if hit else f"exit {out.code}, no error at line {exp.constant_write}")
    if out.code == EXIT_BAD_INPUT:
        return Judgement("rejected", False, out.stderr.strip()[:200])
    if out.code not in (EXIT_OK, EXIT_FAIL):
        return Judgement("internal", False, f"exit {out.code}")
    if not exp.racy:
        ok = out.code == EXIT_OK
        return Judgement("parsed", ok, "" if ok else _summary(doc))
    if out.code != EXIT_FAIL:
        return Judgement("parsed", False, "verified, but the kernel is racy / fails an assertion")
    if exp.assert_fails is not None:
        findings = [f for f in doc.get("findings", []) or []
                    if "assert" in str(f.get("kind", "")) and f.get("line") == exp.assert_fails]
        ok = bool(findings) and not doc.get("races")
        return Judgement("parsed", ok, "" if ok else f"no assertion failure at line {exp.assert_fails}: "
                         + _summary(doc))
    missing = exp.races - _race_pairs(doc)
    return Judgement("parsed", not missing,
                     "" if not missing else f"races {sorted(missing)} not reported; got {_summary(doc)}")


def _summary(doc: dict[str, Any]) -> str:
    races = sorted(_race_pairs(doc))
    unknowns = [u.get("reason", "") for u in doc.get("unknowns", []) or []]
    findings = [f.get("kind", "") for f in doc.get("findings", []) or []]
    return f"races {races}, unknowns {unknowns[:2]}, findings {findings[:2]}"


@dataclass
class Row:
    """One construct's counts (the table's columns)."""

    kernels: int = 0
    parsed: int = 0  # exit 0 or 1: the front end accepted it and the oracle answered
    expected: int = 0  # the verdict the header asks for
    rejected: int = 0  # exit 2
    internal: int = 0  # exit 3 (other than a time-out)
    timeout: int = 0
    failures: list[str] = field(default_factory=list)

    def add(self, j: Judgement, name: str) -> None:
        self.kernels += 1
        setattr(self, j.column, getattr(self, j.column) + 1)
        self.expected += j.as_expected
        if not j.as_expected:
            self.failures.append(f"{name}: {j.column}: {j.why}")


COLUMNS = ("kernels", "parsed", "expected", "rejected", "internal", "timeout")


def table(rows: dict[str, Row]) -> str:
    total = Row()
    for r in rows.values():
        for c in COLUMNS:
            setattr(total, c, getattr(total, c) + getattr(r, c))
    width = max(len(k) for k in [*rows, "total"])
    head = f"{'construct':<{width}}  " + "  ".join(f"{c:>8}" for c in COLUMNS)
    out = [head, "-" * len(head)]
    for name, r in [*rows.items(), ("total", total)]:
        if name == "total":
            out.append("-" * len(head))
        out.append(f"{name:<{width}}  " + "  ".join(f"{getattr(r, c):>8}" for c in COLUMNS))
    return "\n".join(out)


def run_all(run: Callable[[Path], Outcome] = run_subprocess, verbose: bool = False) -> dict[str, Row]:
    rows: dict[str, Row] = {}
    for path in kernel_files():
        out = run(path)
        j = judge(expectation(path), out)
        rows.setdefault(construct_of(path), Row()).add(j, path.name)
        if verbose:
            mark = "ok  " if j.as_expected else "FAIL"
            print(f"{mark} {path.name:<34} {j.column:<9} {out.seconds:5.1f}s {j.why}", flush=True)
    return rows


def main(argv: list[str]) -> int:
    rows = run_all(verbose="--verbose" in argv)
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
