"""``autosync check PATH...``: folders, --exclude, -j, --shard, the summary line, the worst
exit code, one JSON document and one SARIF run for the whole batch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from autosync.commands.batch import expand, shard
from autosync.commands.cli import app

OK = "//pass\n//--blockDim=32 --gridDim=1\n__global__ void ok(int *A) { A[threadIdx.x] = 1; }\n"
RACY = "//pass\n//--blockDim=32 --gridDim=1\n__global__ void racy(int *A) {\n    A[0] = threadIdx.x;\n}\n"
BAD = "__global__ void bad(int *A) { A[0] = }\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AUTOSYNC_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "ok.cu").write_text(OK)
    (tmp_path / "a" / "racy.cuh").write_text(RACY)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "bad.cu").write_text(BAD)
    (tmp_path / "b" / "notes.txt").write_text("not a kernel")
    return tmp_path


def test_expand_exclude_and_shard(project: Path) -> None:
    files = expand([str(project)])
    assert [Path(f).name for f in files] == ["ok.cu", "racy.cuh", "bad.cu"]
    assert [Path(f).name for f in expand([str(project)], ["b"])] == ["ok.cu", "racy.cuh"]
    assert [Path(f).name for f in expand([str(project)], ["*.cuh"])] == ["ok.cu", "bad.cu"]
    assert shard(files, "1/2") == [files[0], files[2]] and shard(files, "2/2") == [files[1]]


def test_text_summary_and_worst_exit_code(project: Path) -> None:
    res = CliRunner().invoke(app, ["check", str(project / "a"), str(project / "b"), "-j", "2"])
    assert res.exit_code == 2  # the error (2) is worse than the race (1)
    assert res.stdout.endswith("checked 3 files: 1 verified, 1 with races, 1 error\n")
    assert "kernel 'racy'" in res.stdout and "error:" in res.stderr
    res = CliRunner().invoke(app, ["check", str(project / "a")])
    assert res.exit_code == 1
    res = CliRunner().invoke(app, ["check", str(project), "--exclude", "b", "--shard", "1/2"])
    assert res.exit_code == 0 and "checked 1 file: 1 verified, 0 with races, 0 errors" in res.stdout


def test_one_json_document(project: Path) -> None:
    res = CliRunner().invoke(app, ["check", str(project), "--format", "json", "-j", "2"])
    doc = json.loads(res.stdout)
    assert doc["summary"] == {"files": 3, "verified": 1, "races": 1, "errors": 1, "cached": 0}
    assert [f["exit_code"] for f in doc["files"]] == [0, 1, 2]
    error = doc["files"][2]["error"]  # the file's own error document (check --format json, exit 2)
    assert doc["files"][1]["races"] and error["file"] == str(project / "b" / "bad.cu") and error["exit"] == 2


def test_one_sarif_run(project: Path) -> None:
    res = CliRunner().invoke(app, ["check", str(project / "a"), "--format", "sarif"])
    doc = json.loads(res.stdout)
    assert doc["version"] == "2.1.0" and len(doc["runs"]) == 1
    run = doc["runs"][0]
    uris = {a["location"]["uri"] for a in run["artifacts"]}
    assert len(uris) == 2
    assert run["results"] and all(r["ruleId"] == "race" for r in run["results"])
    # what GitHub code scanning needs (the schema itself: tests/test_sarif_schema.py)
    for res in run["results"]:
        assert set(res["partialFingerprints"]) == {"primaryLocationLineHash"}
        art = res["locations"][0]["physicalLocation"]["artifactLocation"]
        assert art["uriBaseId"] == "%SRCROOT%" and not art["uri"].startswith("/")
    assert "%SRCROOT%" in run["originalUriBaseIds"]


# the race crosses warps (thread t reads what thread t+32 wrote): only __syncthreads() fixes it
FIXABLE = ("//pass\n//--blockDim=64 --gridDim=1\n__global__ void f(int *A) {\n    __shared__ int s[64];\n"
           "    s[threadIdx.x] = A[threadIdx.x];\n    A[threadIdx.x] = s[(threadIdx.x + 32) % 64];\n}\n")


def test_fix_many_files_and_exit_non_zero_on_fix(tmp_path: Path) -> None:
    (tmp_path / "a.cu").write_text(FIXABLE)
    (tmp_path / "ok.cu").write_text(OK)
    dry = CliRunner().invoke(app, ["fix", str(tmp_path), "--check", "-j", "1"])
    assert dry.exit_code == 1 and (tmp_path / "a.cu").read_text() == FIXABLE
    res = CliRunner().invoke(app, ["fix", str(tmp_path), "-j", "1", "--format", "json"])
    assert res.exit_code == 0, res.stdout + res.stderr
    doc = json.loads(res.stdout)
    assert doc["summary"]["changed"] == 1 and [f["status"] for f in doc["files"]] == ["fixed", "verified"]
    assert "__syncthreads();" in (tmp_path / "a.cu").read_text() and (tmp_path / "ok.cu").read_text() == OK
    (tmp_path / "a.cu").write_text(FIXABLE)
    res = CliRunner().invoke(app, ["fix", str(tmp_path / "a.cu"), str(tmp_path / "ok.cu"), "-j", "1",
                                   "--exit-non-zero-on-fix"])
    assert res.exit_code == 1 and res.stdout.endswith("fixed 2 files: 1 changed, 1 unchanged, 0 not fixed, 0 errors\n")
    again = CliRunner().invoke(app, ["fix", str(tmp_path / "a.cu"), "--exit-non-zero-on-fix"])
    assert again.exit_code == 0, again.stdout
    (tmp_path / "a.cu").write_text(FIXABLE)
    once = CliRunner().invoke(app, ["fix", str(tmp_path / "a.cu"), "--exit-non-zero-on-fix"])
    assert once.exit_code == 1 and "__syncthreads();" in (tmp_path / "a.cu").read_text()
