"""A short, fixed-seed run of the reliability fuzzer (tests/fuzz/run.py) in the test suite.

Each of the first ``N_MUTANTS`` mutants of seed ``SEED`` runs ``autosync check MUTANT
--format json`` in a fresh temp folder; a mutant passes when the run is "fine" by
:func:`classify` (exit 0/1/2, one-line error, one JSON document, no traceback, no hang, input
unchanged, no canary read).  The mutants that fail TODAY are listed in ``KNOWN_FAILURES`` --
the one place to edit -- as strict xfails: fixing the bug turns the case into an XPASS, which
fails the suite until the id is removed from the list.
"""

from __future__ import annotations

import importlib.util
import random
import sys
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

FUZZ_DIR = Path(__file__).resolve().parent / "fuzz"
SEED = 1
N_MUTANTS = 40
TIMEOUT_S = 30.0


def _load(name: str) -> ModuleType:
    if str(FUZZ_DIR) not in sys.path:
        sys.path.insert(0, str(FUZZ_DIR))   # run.py imports its siblings by plain name
    spec = importlib.util.spec_from_file_location(f"autosync_fuzz_{name}", FUZZ_DIR / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod                # dataclasses look their module up here
    spec.loader.exec_module(mod)
    return mod


mutate = _load("mutate")
fuzz = _load("run")

# mutant id (seed SEED) -> the finding it shows today.  ONE list; remove an id when it XPASSes.
KNOWN_FAILURES: dict[int, str] = {
    11: "internal AttributeError 'ID'.type: K&R parameter list (kpl/frontend.py _params)",
    23: "leak: #include of ../../canary/secret.h outside the kernel's folder is read",
    27: "internal AttributeError 'ID'.type: K&R parameter list (kpl/frontend.py _params)",
    32: "internal RecursionError: deeply nested if (pycparser recursion, kpl/cuda.py parse_cuda)",
}


@pytest.fixture(scope="module")
def results() -> Iterator[dict[int, Any]]:
    with tempfile.TemporaryDirectory(prefix="autosync-fuzz-test-") as tmp:
        root = Path(tmp)
        (root / "m").mkdir()
        canary = fuzz.plant_canary(root)
        seeds = mutate.seed_files()

        def one(i: int) -> Any:
            return fuzz.run_one(mutate.make_mutant(seeds, SEED, i, canary), root, canary, TIMEOUT_S)

        with ThreadPoolExecutor(max_workers=2) as ex:
            yield dict(zip(range(N_MUTANTS), ex.map(one, range(N_MUTANTS)), strict=True))


@pytest.mark.parametrize("mutant_id", [
    pytest.param(i, marks=pytest.mark.xfail(strict=True, reason=KNOWN_FAILURES[i])) if i in KNOWN_FAILURES else i
    for i in range(N_MUTANTS)
])
def test_mutant_is_handled(results: dict[int, Any], mutant_id: int) -> None:
    r = results[mutant_id]
    assert not r.findings, (f"mutant {mutant_id} of {r.seed_file} ({','.join(r.ops)}): {r.findings}, "
                            f"rc={r.rc}: {r.first_line}")


def test_mutants_are_deterministic() -> None:
    seeds = mutate.seed_files()
    a = [mutate.make_mutant(seeds, SEED, i) for i in range(20)]
    b = [mutate.make_mutant(seeds, SEED, i) for i in range(20)]
    assert [m.data for m in a] == [m.data for m in b]
    assert len({m.data for m in a}) > 15            # and they differ from one another
    assert len(seeds) >= 90                          # every kernel file of the repository seeds it


def test_every_mutation_changes_something() -> None:
    text = (FUZZ_DIR / "corpus" / "anonymous_struct.cu").read_text()
    ctx = mutate._Ctx(idents=["a", "b"], numbers=["1"], canary=mutate.Canary("../x.h", "/x.h", "S"))
    for op in mutate.LINE_OPS:
        changed = 0
        for k in range(10):
            lines = text.splitlines()
            op(random.Random(k), lines, ctx)
            changed += lines != text.splitlines()
        assert changed, op.__name__
    for bop in mutate.BYTE_OPS:
        assert bop(random.Random(0), text.encode()) != text.encode(), bop.__name__


@pytest.mark.parametrize(("rc", "stdout", "stderr", "expected"), [
    (0, '{"verified": true}', "", []),
    (1, '{"verified": false}', "", []),
    (2, "", "f.cu:1:2: error: syntax error\n", []),
    (2, "", "f.cu:1:2: error: a\nmore\n", ["multiline-error"]),
    (3, "", "f.cu: internal error: boom\n", ["internal"]),
    (None, "", "", ["timeout"]),
    (-11, "", "", ["crash(rc=-11)"]),
    (2, "", "Traceback (most recent call last):\n", ["traceback"]),
    (0, '{"a": 1}{"b": 2}', "", ["bad-json"]),
    (2, "", "/etc/passwd:17:16: error: unsupported construct\n", ["leak"]),
    (2, "", "x.cu:1:1: error: #error SENTINEL_X\n", ["leak"]),
])
def test_classify(rc: int | None, stdout: str, stderr: str, expected: list[str]) -> None:
    assert fuzz.classify(rc, stdout, stderr, ["SENTINEL_X"], modified=False) == expected


def test_classify_flags_a_modified_input() -> None:
    assert fuzz.classify(0, "{}", "", [], modified=True) == ["modified"]
