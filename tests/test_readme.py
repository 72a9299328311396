"""The README's examples are what the tool prints today.

Every fenced block of README.md whose lines start with ``$ autosync`` is a transcript: each
command is run from the repository root (stdout and stderr interleaved, as on a terminal) and
its output compared with the lines shown under it.  Only what honestly varies between runs and
machines is normalised (:func:`normalise`): timings and the solver's query counts (speed
figures), the witness threads of a race and its parameter values (any the solver's model
picks), the machine
description, whether ``nvcc`` is installed.  A line ``…`` in the README stands for any number of lines (an elided table).
``$ echo $?`` shows the previous command's exit code.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


@dataclass
class Example:
    """One ``$ autosync …`` command of the README and the output shown under it."""

    command: str
    line: int  # 1-based line of the command in README.md
    output: list[str] = field(default_factory=list)
    exit_code: int | None = None  # from a following ``$ echo $?``


def examples(text: str) -> list[Example]:
    found: list[Example] = []
    in_block = False
    current: Example | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            in_block, current = not in_block, None
            continue
        if not in_block:
            continue
        if line.startswith("$ autosync "):
            current = Example(line[2:], number)
            found.append(current)
        elif line == "$ echo $?" and current is not None:
            current = None
            found[-1].exit_code = -1  # the next line is the code
        elif found and found[-1].exit_code == -1 and current is None:
            found[-1].exit_code = int(line)
        elif current is not None:
            current.output.append(line)
    return found


#: (pattern, replacement): what may differ between two runs of one command
NORMALISE = [
    (re.compile(r"\b\d+\.\d+ s\b"), "<T> s"),  # timings
    (re.compile(r"\b\d+ queries\b"), "<N> queries"),  # z3 queries inside the oracle: a speed figure
    # the witness of a race: any pair of threads the solver's model picks
    (re.compile(r"threads \d+ and \d+ of block \d+, index \d+"), "threads <W>"),
    # ... and the scalar parameter values of that model (``when n = 3``)
    (re.compile(r"(?<= when )[^()]*(?=\))"), "<P>"),
    (re.compile(r"(?<=\s)\d+\.\d\d(?=\s|$)"), "<T>"),  # the bench table's time columns
    (re.compile(r"nvcc --ptx: ok|nvcc not found: compile check skipped"), "<nvcc>"),
    (re.compile(r"; [^;()]*, \d+ cores, Python [\d.]+\)"), "; <machine>)"),  # bench's machine
]


def normalise(line: str) -> str:
    for pattern, replacement in NORMALISE:
        line = pattern.sub(replacement, line)
    return line.rstrip()


def matches(shown: list[str], printed: list[str]) -> bool:
    """``printed`` equals ``shown`` line by line, a shown ``…`` matching any lines."""
    if not shown:
        return not printed
    if shown[0] == "…":
        return any(matches(shown[1:], printed[i:]) for i in range(len(printed) + 1))
    return bool(printed) and shown[0] == printed[0] and matches(shown[1:], printed[1:])


EXAMPLES = examples(README.read_text(encoding="utf-8"))


def test_the_readme_has_examples() -> None:
    commands = {e.command.split()[1] for e in EXAMPLES}
    assert {"parse", "check", "fix", "compare", "bench"} <= commands, commands


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"line{e.line}" for e in EXAMPLES])
def test_readme_example_prints_what_is_shown(example: Example) -> None:
    argv = shlex.split(example.command)
    proc = subprocess.run([sys.executable, "-m", "autosync", *argv[1:]], cwd=ROOT, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1",
                               "PYTHONWARNINGS": "ignore"})
    printed = [normalise(line) for line in proc.stdout.rstrip("\n").splitlines()]
    shown = [normalise(line) for line in example.output]
    assert matches(shown, printed), (
        f"README.md:{example.line}: `{example.command}` now prints:\n" + proc.stdout)
    if example.exit_code is not None:
        assert proc.returncode == example.exit_code
