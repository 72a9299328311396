"""Sanity checks on the kernel files used as test data (micro-benchmarks, SDK kernels,
small test kernels).

WHY: every other part of AutoSync (bench, compare, the oracle tests) trusts the headers of
these files -- the GPUVerify-style ``//pass`` / ``//xfail`` and ``//--blockDim`` lines and
our ``// autosync: key=value`` lines (README.md, "Kernel files").  A typo
there would silently turn into a wrong expected result, so it is checked here once.
The micro-benchmark naming rule "n-m-description: n races, at least m barriers" is from
Sec. IV-C / Table I of the paper; the SDK barrier counts are Table II's O-B and AS-B.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import slow

ROOT = Path(__file__).resolve().parent.parent
MICRO = ROOT / "microbench"
SDK = ROOT / "sdk_kernels"
TESTK = ROOT / "tests" / "kernels"

MICRO_NAMES = [
    "1-1-if.cu",
    "1-1-loop-inter.cu",
    "1-1-loop-intra.cu",
    "1-1-main.cu",
    "2-1-main.cu",
    "2-1-loop-d2-intra.cu",
    "2-2-loop-d2-both.cu",
    "2-2-loop-both.cu",
]

SDK_NAMES = [
    "convolutionColumnsKernel.cu",
    "convolutionRowsKernel.cu",
    "d_transpose.cu",
    "imageDenoising_nlm2_kernel.cu",
    "matrixMul.cu",
    "mergeHistogram256Kernel.cu",
    "mergeHistogram64Kernel.cu",
    "reduce0.cu",
    "reduce1.cu",
    "reduce2.cu",
    "reduce3.cu",
    "reduce5.cu",
    "reduce6.cu",
    "sobol.cu",
    "sum0.cu",
    "sum1.cu",
    "uniformUpdate.cu",
    "uniform_add.cu",
]

DIM = r"(\d+|\[\d+(,\d+){0,2}\])"
#: the flags line; blockDim may be left out where ``__launch_bounds__(N)`` gives it (N threads)
LAUNCH_RE = re.compile(rf"^//(--blockDim={DIM} )?--gridDim={DIM}( --warp-sync=\d+)?$")
BARRIER_RE = re.compile(r"\b__syncthreads\s*\(\s*\)\s*;")


def _read(path: Path) -> str:
    """Kernel text: a UTF-8 byte-order mark dropped and non-UTF-8 bytes (Latin-1 comments)
    replaced -- tests/kernels/constructs/11_encoding_* are saved that way on purpose."""
    return path.read_bytes().decode("utf-8-sig", errors="replace")


def _kernel_files() -> list[Path]:
    files = sorted(MICRO.rglob("*.cu")) + sorted(SDK.glob("*.cu"))
    files += sorted(p for p in TESTK.rglob("*.cu") if "bad" not in p.relative_to(TESTK).parts)
    return files


def _autosync_keys(text: str) -> dict[str, str]:
    """Collect ``// autosync: k=v k2=v2`` pairs from the header comment lines."""
    keys: dict[str, str] = {}
    for line in text.splitlines():
        m = re.match(r"^// autosync:\s*(.*)$", line)
        if m:
            for pair in m.group(1).split():
                k, _, v = pair.partition("=")
                keys[k] = v
    return keys


def _barriers(text: str) -> int:
    return len(BARRIER_RE.findall(text))


ALL_FILES = _kernel_files()


def test_enough_test_kernels() -> None:
    proper = [p for p in TESTK.rglob("*.cu") if "bad" not in p.relative_to(TESTK).parts]
    assert len(proper) >= 30
    assert len(list((TESTK / "bad").glob("*.cu"))) >= 4


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_header_well_formed(path: Path) -> None:
    lines = _read(path).splitlines()
    assert lines[0] == "//pass" or re.fullmatch(r"//xfail:[A-Z_]+", lines[0]), lines[0]
    if path.parent == TESTK / "launch":  # their launch is their host code's (README, "Launch configuration")
        assert not lines[1].startswith("//--") and "<<<" in _read(path), "a launch kernel states no launch"
        return
    assert LAUNCH_RE.match(lines[1]), lines[1]
    if "--blockDim=" not in lines[1]:  # as kpl.header and the front end read it
        assert re.search(r"\b__launch_bounds__\s*\(", _read(path)), \
            "no --blockDim and no __launch_bounds__ to give the block size"
    keys = _autosync_keys(_read(path))
    for k in ("races", "divergent", "deadlock"):
        if k in keys:
            assert lines[0].startswith("//xfail"), f"{k}= on a //pass file"
    if "races" in keys:
        n = len(lines)
        for pair in keys["races"].split(","):
            a, b = (int(x) for x in pair.split("-"))
            assert 1 <= a <= b <= n


@pytest.mark.parametrize("name", MICRO_NAMES)
def test_microbench_pair(name: str) -> None:
    src = (MICRO / name).read_text()
    exp = (MICRO / "expected" / name).read_text()
    assert src.splitlines()[0] == "//xfail:NOT_ALL_VERIFIED"
    assert exp.splitlines()[0] == "//pass"
    m = int(_autosync_keys(src)["min_barriers"])
    assert int(_autosync_keys(exp)["min_barriers"]) == m
    assert m == int(name.split("-")[1])  # naming rule n-m-description
    assert _barriers(src) == 0
    assert _barriers(exp) == m
    # the reference is the input plus barrier lines, nothing else
    kept = [ln for ln in exp.splitlines()[1:] if ln.strip() != "__syncthreads();"]
    assert kept == src.splitlines()[1:]


@pytest.mark.parametrize("name", SDK_NAMES)
def test_sdk_kernel_counts(name: str) -> None:
    text = (SDK / name).read_text()
    keys = _autosync_keys(text)
    o = int(keys["original_barriers"])
    assert _barriers(text) == o
    assert 1 <= int(keys["min_barriers"]) <= o


def test_barriers_alone_on_their_line() -> None:
    """The round-trip test strips and re-inserts barriers byte for byte: each must be
    alone on its line, directly after a non-blank, non-comment line."""
    for path in ALL_FILES:
        lines = _read(path).splitlines()
        for i, ln in enumerate(lines):
            if BARRIER_RE.search(ln):
                assert ln.strip() == "__syncthreads();", f"{path}:{i + 1}"
                prev = lines[i - 1].strip()
                assert prev and not prev.startswith("//"), f"{path}:{i + 1}"


def _nvcc_check(path: Path, nvcc: str, tmp: str) -> tuple[Path, int, str]:
    defines = [f"-D{d}" for d in _autosync_keys(_read(path)).get("defines", "").split(",") if d]
    out = Path(tmp) / (path.stem + str(abs(hash(path))) + ".ptx")
    proc = subprocess.run(
        [nvcc, "-ptx", "-o", str(out), *defines, "-x", "cu", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return path, proc.returncode, proc.stderr


def _needs(path: Path) -> str:
    """``// autosync: nvcc_needs=curand_kernel.h``: a header outside the core toolkit."""
    return _autosync_keys(_read(path)).get("nvcc_needs", "")


def _refused(path: Path) -> bool:
    """``// autosync: nvcc=refuses``: a file written for GPUVerify that nvcc refuses by design
    (a file-scope variable with no memory space used in a kernel, static __shared__ over 48 KB)."""
    return _autosync_keys(_read(path)).get("nvcc") == "refuses"


def _nvcc_finds(nvcc: str, header: str, tmp: str) -> bool:
    probe = Path(tmp) / "probe_header.cu"
    probe.write_text(f"#include <{header}>\n")
    return subprocess.run([nvcc, "-E", "-o", os.devnull, str(probe)], capture_output=True,
                          timeout=120).returncode == 0


def _compile_all(files: list[Path]) -> None:
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc not on PATH")
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda p: _nvcc_check(p, nvcc, tmp), [p for p in files if not _needs(p)
                                                                       and not _refused(p)]))
    failed = [f"{p.relative_to(ROOT)}:\n{err}" for p, rc, err in results if rc != 0]
    assert not failed, "\n".join(failed)


def test_benchmark_kernels_compile_with_nvcc() -> None:
    """The micro-benchmarks and SDK-style kernels, every run (seconds)."""
    _compile_all([p for p in ALL_FILES if p.is_relative_to(MICRO) or p.is_relative_to(SDK)])


@slow
def test_all_kernels_compile_with_nvcc() -> None:
    """Every kernel of the repository (about 400 files, two minutes on two cores)."""
    _compile_all(ALL_FILES)


@pytest.mark.parametrize("path", [p for p in ALL_FILES if _needs(p)], ids=lambda p: str(p.relative_to(ROOT)))
def test_kernels_needing_optional_headers_compile(path: Path) -> None:
    """Kernels that include a header some toolkits lack (curand ships separately): compiled
    when nvcc finds it (e.g. through CPATH), else skipped with the reason."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc not on PATH")
    with tempfile.TemporaryDirectory() as tmp:
        if not _nvcc_finds(nvcc, _needs(path), tmp):
            pytest.skip(f"nvcc does not find <{_needs(path)}>")
        _, rc, err = _nvcc_check(path, nvcc, tmp)
    assert rc == 0, err
