"""Reliability fuzzer: run ``autosync check MUTANT --format json`` on mutants and classify.

Usage::

    python tests/fuzz/run.py --mutants 10000 --seed 1 --timeout 20 -j 2 [--budget 1500] [--out DIR]
    python tests/fuzz/run.py --corpus      # the hostile corpus (make_corpus.py), check and fix --diff

The contract under test (README, "Bad input"): exit 0/1/2 only, one line
``file:line:col: error: ...`` on exit 2, never a traceback, one JSON document on stdout with
``--format json``, never a hang, never a change to the input file, and never a read of a file
outside the input's folder (checked with planted canary files, see :func:`plant_canary`).
Each mutant gets a fresh temp folder holding the mutant as ``mutant.cu`` and copies of the
headers next to its seed kernel, so that mutants get past ``#include "annotations.h"``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_corpus import write_corpus  # noqa: E402
from mutate import REPO, Canary, Mutant, make_mutant, seed_files  # noqa: E402

ENV_SENTINEL_VAR = "AUTOSYNC_FUZZ_ENV_CANARY"
# an error located INSIDE one of these files proves the file was opened and read
# a corpus file may state the exit code `check` must give (e.g. 2 for blockDim over 1,024)
EXPECT_RE = re.compile(rb"fuzz-expect-exit: (\d)")
READ_PROOF_RE = re.compile(r"(/etc/passwd|/proc/self/environ|secret\.h|/dev/\w+):\d+")


@dataclass
class Result:
    """The outcome of one mutant run and its classification."""

    mutant_id: int
    seed_file: str
    ops: list[str]
    command: str                   # "check" or "fix"
    rc: int | None                 # None: killed at the time limit
    seconds: float
    stdout: str = field(repr=False)
    stderr: str = field(repr=False)
    findings: list[str]            # classes: timeout, crash, internal, traceback, multiline-error,
    #                                bad-json, leak, modified (empty = fine)

    @property
    def first_line(self) -> str:
        for ln in self.stderr.splitlines():
            if ln.strip():
                return ln.strip()
        return "(no stderr)"


def plant_canary(root: Path, mutant_depth: int = 2) -> Canary:
    """A file outside every mutant folder (``root/canary/secret.h``) that says its secret."""
    sentinel = "AUTOSYNC_CANARY_" + hashlib.sha1(str(root).encode()).hexdigest()[:12]
    d = root / "canary"
    d.mkdir(parents=True, exist_ok=True)
    (d / "secret.h").write_text(f"#error {sentinel}\nint {sentinel} = 1;\n")
    return Canary(relative="../" * mutant_depth + "canary/secret.h",
                  absolute=str(d / "secret.h"), sentinel=sentinel)


def classify(rc: int | None, stdout: str, stderr: str, sentinels: list[str], modified: bool) -> list[str]:
    """Finding classes for one run (see module docstring); empty when the run was fine."""
    out: list[str] = []
    if rc is None:
        out.append("timeout")
    elif rc not in (0, 1, 2, 3):
        out.append(f"crash(rc={rc})")
    elif rc == 3:
        out.append("internal")
    if "Traceback" in stderr or "Traceback" in stdout:
        out.append("traceback")
    if rc == 2 and len([ln for ln in stderr.splitlines() if ln.strip()]) != 1:
        out.append("multiline-error")
    if rc is not None and rc in (0, 1):   # a verdict must come as exactly one JSON document
        try:
            json.loads(stdout)
        except ValueError:
            out.append("bad-json")
    elif rc is not None and stdout.strip():
        try:
            json.loads(stdout)
        except ValueError:
            out.append("bad-json")
    both = stdout + stderr
    if any(s and s in both for s in sentinels) or READ_PROOF_RE.search(both):
        out.append("leak")
    if modified:
        out.append("modified")
    return out


def run_one(m: Mutant, root: Path, canary: Canary, timeout: float, keep: bool = False,
            command: str = "check") -> Result:
    """Write ``m`` into a fresh folder under ``root/m``, run ``autosync COMMAND`` on it, classify.

    ``command`` is ``check`` (``--format json``) or ``fix`` (``--diff --format json``: must
    write nothing, which the byte-identity check verifies).
    """
    work = Path(tempfile.mkdtemp(prefix=f"{m.mutant_id}-", dir=root / "m"))
    seed_dir = REPO / Path(m.seed_file).parent
    for h in seed_dir.glob("*.h"):
        shutil.copy(h, work / h.name)
    path = work / m.file_name
    path.write_bytes(m.data)
    env_sentinel = canary.sentinel + "_ENV"
    pypath = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    env = dict(os.environ, PYTHONPATH=pypath, **{ENV_SENTINEL_VAR: env_sentinel})
    cmd = [sys.executable, "-m", "autosync", command, m.file_name, "--format", "json"]
    if command == "fix":
        cmd.append("--diff")
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        out_b, err_b = proc.communicate(timeout=timeout)
        rc: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out_b, err_b = proc.communicate()
        rc = None
    secs = time.monotonic() - t0
    stdout = out_b.decode("utf-8", errors="replace")
    stderr = err_b.decode("utf-8", errors="replace")
    modified = not path.exists() or path.read_bytes() != m.data
    findings = classify(rc, stdout, stderr, [canary.sentinel, env_sentinel], modified)
    want = EXPECT_RE.search(m.data)
    if want and rc is not None and rc != int(want.group(1)) and command == "check":
        findings.append(f"unexpected-exit(want {int(want.group(1))}, got {rc})")
    if not keep:
        shutil.rmtree(work, ignore_errors=True)
    return Result(m.mutant_id, m.seed_file, list(m.ops), command, rc, secs, stdout, stderr, findings)


def dedup_key(r: Result) -> str:
    """Findings group by class and first error line with numbers and temp paths blurred."""
    msg = re.sub(r"AUTOSYNC_CANARY_\w+", "AUTOSYNC_CANARY", r.first_line)
    msg = re.sub(r"\d+", "N", msg)
    msg = re.sub(r"/tmp/\S+?/m/N-\w+/", "", msg)
    return f"{r.command}: {'+'.join(r.findings)} | {msg[:160]}"


def save_finding(out: Path, n: int, r: Result, m: Mutant, seed: int) -> None:
    d = out / f"{n:03d}-{r.findings[0].split('(')[0]}-id{r.mutant_id}-{r.command}"
    d.mkdir(parents=True, exist_ok=True)
    (d / m.file_name).write_bytes(m.data)
    (d / "stderr.txt").write_text(r.stderr)
    (d / "stdout.txt").write_text(r.stdout)
    info = {k: v for k, v in asdict(r).items() if k not in ("stdout", "stderr")}
    info.update(seed=seed, key=dedup_key(r),
                reproduce=(f"python tests/fuzz/run.py --corpus --only {r.mutant_id}" if r.ops == ["corpus"]
                          else f"python tests/fuzz/run.py --seed {seed} --only {r.mutant_id} --keep"))
    (d / "info.json").write_text(json.dumps(info, indent=2))


def corpus_mutants(tmp: Path) -> list[Mutant]:
    """The hostile corpus (generated + hand-made) as unmutated inputs keeping their names."""
    out = []
    for k, p in enumerate(write_corpus(tmp)):
        out.append(Mutant(mutant_id=k, seed_file=f"tests/fuzz/corpus/{p.name}", ops=("corpus",),
                          data=p.read_bytes(), file_name=p.name))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mutants", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=20.0, help="wall-clock limit per mutant (s)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--budget", type=float, default=0.0, help="stop starting mutants after this many s")
    ap.add_argument("--out", type=Path, default=None, help="findings folder (default: a new temp one)")
    ap.add_argument("--only", type=int, action="append", help="run only this mutant id (repeatable)")
    ap.add_argument("--keep", action="store_true", help="keep each mutant's temp folder")
    ap.add_argument("--corpus", action="store_true",
                    help="run the hostile corpus (check and fix --diff) instead of mutants")
    a = ap.parse_args(argv)

    seeds = seed_files()
    root = Path(tempfile.mkdtemp(prefix="autosync-fuzz-"))
    (root / "m").mkdir()
    canary = plant_canary(root)
    out = a.out or Path(tempfile.mkdtemp(prefix="autosync-fuzz-findings-"))
    out.mkdir(parents=True, exist_ok=True)
    corpus = corpus_mutants(root / "corpus") if a.corpus else []
    ids = a.only or list(range(2 * len(corpus) if a.corpus else a.mutants))
    t_start = time.monotonic()
    print(f"fuzz: {len(seeds)} seed files, {len(ids)} mutants, seed {a.seed}, timeout {a.timeout}s, "
          f"-j {a.jobs}; work {root}; findings {out}", flush=True)

    def job(i: int) -> tuple[Mutant, Result] | None:
        if a.budget and time.monotonic() - t_start > a.budget:
            return None
        if a.corpus:   # id 2k: check corpus file k; id 2k+1: fix --diff it
            m = corpus[i // 2]
            r = run_one(m, root, canary, a.timeout, keep=a.keep, command=("check", "fix")[i % 2])
            r.mutant_id = i
            return m, r
        m = make_mutant(seeds, a.seed, i, canary)
        return m, run_one(m, root, canary, a.timeout, keep=a.keep)

    results: list[Result] = []
    groups: dict[str, list[Result]] = defaultdict(list)
    saved = 0
    with ThreadPoolExecutor(max_workers=a.jobs) as ex:
        for done, item in enumerate(ex.map(job, ids), 1):
            if item is None:
                continue
            m, r = item
            results.append(r)
            if r.findings:
                key = dedup_key(r)
                if key not in groups:
                    saved += 1
                    save_finding(out, saved, r, m, a.seed)
                groups[key].append(r)
            if done % 50 == 0:
                print(f"  {done}/{len(ids)} run, {sum(1 for x in results if x.findings)} findings, "
                      f"{time.monotonic() - t_start:.0f}s", flush=True)

    rc_count = Counter("timeout" if r.rc is None else str(r.rc) for r in results)
    cls_count = Counter(c for r in results for c in r.findings)
    print(f"\n{len(results)} mutants in {time.monotonic() - t_start:.0f}s "
          f"({len(ids) - len(results)} not started: budget)")
    print("exit codes: " + ", ".join(f"{k}: {v}" for k, v in sorted(rc_count.items())))
    print("finding classes: " + (", ".join(f"{k}: {v}" for k, v in cls_count.most_common()) or "none"))
    print(f"mutants with a finding: {sum(1 for r in results if r.findings)}; distinct: {len(groups)}")
    for key, rs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(rs):5d}  {key}   (e.g. id {rs[0].mutant_id}, {rs[0].seed_file}, ops {','.join(rs[0].ops)})")
    print("slowest mutants:")
    for r in sorted(results, key=lambda r: -r.seconds)[:8]:
        print(f"  id {r.mutant_id:5d} {r.seconds:6.1f}s {r.command} rc={r.rc} {r.seed_file} {','.join(r.ops)}")
    summary = {"seed": a.seed, "mutants": len(results), "exit_codes": dict(rc_count),
               "classes": dict(cls_count),
               "groups": {k: [r.mutant_id for r in rs] for k, rs in groups.items()}}
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    shutil.rmtree(root, ignore_errors=True)
    return 1 if groups else 0


if __name__ == "__main__":
    sys.exit(main())
