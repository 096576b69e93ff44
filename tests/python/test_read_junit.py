"""``earlyexit.read_junit``: the command's JUnit / Cobertura reader, over the report vectors
every suite shares (tests/vectors/junit/junit.json), and its argument types."""

from __future__ import annotations

import json
import pathlib

import pytest

import earlyexit as ee

DIR = pathlib.Path(__file__).resolve().parents[1] / "vectors" / "junit"
CASES = json.loads((DIR / "junit.json").read_text())["cases"]
# How this binding spells the argument a vector's error is about.
FIELD = {"report": "source", "coverage": "coverage_xml"}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
@pytest.mark.parametrize("given", ["path", "bytes", "str"])
def test_report_vectors(case: dict, given: str) -> None:
    def arg(name: str) -> object:
        path = DIR / name
        # Every refusal of a file names it, but "no executed test", which is about the reports together.
        if given == "path" and "none ran" not in case["id"]:
            return path
        if given == "bytes":
            return path.read_bytes()
        return path.read_bytes().decode("utf-8", errors="surrogateescape")

    report = arg(case["report"])
    coverage = arg(case["coverageXml"]) if "coverageXml" in case else None
    if given == "str" and case["report"] == "latin1.xml":
        # A str is text already: the bytes that are not UTF-8 cannot be given as one.
        pytest.skip("not UTF-8: only as bytes or a file")
    if "error" in case:
        with pytest.raises(ee.EarlyExitError) as info:
            ee.read_junit(report, coverage_xml=coverage)
        assert (info.value.code, info.value.field) == (case["error"]["code"], FIELD[case["error"]["on"]])
        # Every refusal of a file names it, but "no executed test", which is about the reports together.
        if given == "path" and "none ran" not in case["id"]:
            name = case["coverageXml"] if case["error"]["on"] == "coverage" else case["report"]
            assert name in str(info.value), "the message names the file"
        return
    result = ee.read_junit(report, coverage_xml=coverage)
    assert isinstance(result, ee.LayerResult)
    want = case["returns"]
    assert result.to_dict() == want
    assert (result.pass_rate, result.total, result.extra) == (want["passRate"], want["total"], {"skipped": want["skipped"]})


def test_wrong_types_and_missing_files() -> None:
    with pytest.raises(ee.EarlyExitTypeError) as info:
        ee.read_junit(42)  # type: ignore[arg-type]
    assert (info.value.code, info.value.field) == ("invalid_layer_result", "source")
    with pytest.raises(ee.EarlyExitTypeError) as info:
        ee.read_junit(DIR / "pytest.xml", coverage_xml=0.5)  # type: ignore[arg-type]
    assert (info.value.code, info.value.field) == ("invalid_layer_result", "coverage_xml")
    with pytest.raises(FileNotFoundError):
        ee.read_junit(DIR / "no-such-report.xml")
    # A result goes straight into a pyramid run.
    run = ee.PyramidRun.start(None, 1, [{"name": "unit"}])
    run.submit(0, ee.read_junit(DIR / "pytest.xml", coverage_xml=DIR / "cobertura.xml"))
    assert run.result().verdict == "failed"
