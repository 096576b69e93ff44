"""pytest-earlyexit on real example projects, run by pytester."""

from __future__ import annotations

import json
import textwrap

import pytest

import earlyexit

INI = """
[pytest]
earlyexit_layers =
    unit = tests/unit 200
    integration = tests/integration 3000
    e2e = tests/e2e 60000
"""


def project(pytester: pytest.Pytester, unit: str = "", integration: str = "", e2e: str = "",
            ini: str = INI) -> None:
    pytester.makeini(ini)
    for layer, body in (("unit", unit), ("integration", integration), ("e2e", e2e)):
        directory = pytester.path / "tests" / layer
        directory.mkdir(parents=True, exist_ok=True)
        (directory / f"test_{layer}.py").write_text(textwrap.dedent(body or "def test_ok():\n    pass\n"))


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("-p", "no:cacheprovider", "-rs", *args)


GREEN_UNIT = """
import pytest

def test_a():
    pass

def test_b():
    pass

@pytest.mark.skip(reason="not here")
def test_skipped():
    pass
"""
BROKEN_E2E = """
def test_checkout():
    assert False, "the checkout page is broken"
"""


def test_inactive_without_the_option(pytester: pytest.Pytester) -> None:
    project(pytester, e2e=BROKEN_E2E)
    result = run(pytester)
    assert result.ret == 1
    assert "earlyexit (" not in result.stdout.str()


def test_inactive_does_not_import_the_engine(pytester: pytest.Pytester) -> None:
    # A project with the plugin installed loads it in every session; without --earlyexit the
    # engine (about 60 ms to import) stays unloaded. In a fresh process, so sys.modules is its own.
    project(pytester)
    pytester.makeconftest(
        "import sys\n\ndef pytest_sessionfinish(session):\n"
        "    open('engine.txt', 'w').write(str('earlyexit' in sys.modules))\n"
    )
    assert pytester.runpytest_subprocess("-p", "no:cacheprovider").ret == 0
    assert (pytester.path / "engine.txt").read_text() == "False"
    assert pytester.runpytest_subprocess("-p", "no:cacheprovider", "--earlyexit").ret == 0
    assert (pytester.path / "engine.txt").read_text() == "True"


def test_shadow_by_default_runs_every_layer(pytester: pytest.Pytester) -> None:
    project(pytester, unit=GREEN_UNIT)
    result = run(pytester, "--earlyexit")
    result.assert_outcomes(passed=4, skipped=1)
    out = result.stdout.str()
    assert "earlyexit (shadow, policy adr)" in out  # the ADR's exit decision, shadowed
    assert "unit: ran 2 test(s), 2 passed, 0 failed" in out  # the skipped test is excluded
    assert "e2e: ran 1 test(s)" in out
    assert "verdict: passed" in out
    assert result.ret == 0


def test_shadow_with_adr_runs_every_layer_and_records_its_would_be_exit(pytester: pytest.Pytester) -> None:
    project(pytester, unit=GREEN_UNIT, e2e=BROKEN_E2E)
    result = run(pytester, "--earlyexit", "--earlyexit-policy", "adr", "--earlyexit-preset", "aggressive",
                 "--earlyexit-receipts", "receipts.jsonl")
    out = result.stdout.str()
    assert "earlyexit (shadow, policy adr)" in out
    assert "e2e: ran 1 test(s), 0 passed, 1 failed" in out  # every layer runs
    assert ("shadow: the policy would have exited after 'unit' (confident_exit), skipping e2e "
            "(verifying integration)") in out
    assert "'falsePass': 1" in out and "would have saved " in out
    assert result.ret == 1
    log = (pytester.path / "receipts.jsonl").read_text()
    check = earlyexit.verify_receipts(log)
    assert check["valid"] and check["receipts"] == 1, check
    receipt = json.loads(log.splitlines()[0])
    assert (receipt["policy"], receipt["label"], receipt["firstMissedFailure"]["name"]) == ("adr", "false_pass", "e2e")
    assert [s["layer"] for s in receipt["speculations"]] == [1, 2]
    bad = run(pytester, "--earlyexit", "--earlyexit-policy", "adr", "--earlyexit-risk-budget", "0.1")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    assert "--earlyexit-risk-budget: only the risk_bounded policy reads a budget" in bad.stderr.str()


def test_red_unit_layer_fails_the_session(pytester: pytest.Pytester) -> None:
    project(pytester, unit="def test_red():\n    assert 1 == 2\n")
    result = run(pytester, "--earlyexit", "--earlyexit-mode", "enforced", "--earlyexit-policy", "fail_fast")
    out = result.stdout.str()
    assert result.ret == 1
    assert "unit: ran 1 test(s), 0 passed, 1 failed" in out
    assert "integration: skipped (1 test(s)): layer_failed after layer 'unit'" in out
    assert "verdict: failed" in out
    result.assert_outcomes(failed=1, skipped=2)


def test_confident_exit_skips_e2e_and_is_unverified(pytester: pytest.Pytester) -> None:
    project(pytester, unit=GREEN_UNIT, e2e=BROKEN_E2E)
    args = ("--earlyexit", "--earlyexit-mode", "enforced", "--earlyexit-policy", "adr",
            "--earlyexit-preset", "aggressive", "--junitxml", "report.xml")
    result = run(pytester, *args)
    out = result.stdout.str()
    assert result.ret == 13, out  # unverified: the broken e2e was skipped, not passed
    assert "e2e: skipped (1 test(s)): confident_exit after layer 'unit'" in out
    assert "verdict: unverified" in out and "compute saved: 60000 ms" in out
    assert "skipped by earlyexit: confident_exit" in (pytester.path / "report.xml").read_text()
    allowed = run(pytester, *args, "--earlyexit-allow-unverified")
    assert allowed.ret == 0


def test_broken_e2e_caught_by_verification(pytester: pytest.Pytester) -> None:
    project(pytester, unit=GREEN_UNIT, e2e=BROKEN_E2E)
    result = run(pytester, "--earlyexit", "--earlyexit-mode", "enforced", "--earlyexit-policy", "adr")
    out = result.stdout.str()
    assert result.ret == 1
    assert "decision: exit" in out  # the exit was confident ...
    assert "e2e: verified 1 test(s), 0 passed, 1 failed" in out  # ... and verification caught it
    assert "verdict: failed (exit reason confident_exit)" in out


def test_flaky_integration_counts_once(pytester: pytest.Pytester) -> None:
    pytest.importorskip("pytest_rerunfailures")
    flaky = """
    import pathlib

    def test_flaky(tmp_path_factory):
        marker = pathlib.Path(__file__).with_name("ran-once")
        if not marker.exists():
            marker.write_text("")
            assert False, "first attempt fails"

    def test_steady():
        pass
    """
    project(pytester, integration=flaky)
    result = run(pytester, "--earlyexit", "--reruns", "1")
    out = result.stdout.str()
    assert "integration: ran 2 test(s), 2 passed, 0 failed, 1 flaky" in out
    assert result.ret == 0


def test_shadow_receipts_verify(pytester: pytest.Pytester) -> None:
    project(pytester, unit="def test_red():\n    assert False\n")
    log = pytester.path / "receipts.jsonl"
    for _ in range(2):
        result = run(pytester, "--earlyexit", "--earlyexit-policy", "fail_fast", "--earlyexit-receipts", str(log))
        assert result.ret == 1
        result.assert_outcomes(failed=1, passed=2)  # shadow: every layer ran
        assert "shadow: the policy would have exited after 'unit' (layer_failed)" in result.stdout.str()
    report = earlyexit.verify_receipts(log.read_text())
    assert report["valid"] is True and report["receipts"] == 2


def test_unlayered_tests_refused_with_a_listing(pytester: pytest.Pytester) -> None:
    project(pytester)
    pytester.makepyfile(test_loose="def test_loose():\n    pass\n")
    result = run(pytester, "--earlyexit")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "1 test(s) in no layer" in result.stderr.str()
    assert "test_loose.py::test_loose" in result.stderr.str()
    first = run(pytester, "--earlyexit", "--earlyexit-unlayered=first")
    assert first.ret == 0
    assert "unlayered: ran 1 test(s)" in first.stdout.str()


def test_layers_from_the_command_line_and_not_selected(pytester: pytest.Pytester) -> None:
    project(pytester, ini="[pytest]\n")
    result = run(pytester, "--earlyexit", "--earlyexit-layers", "unit,integration,e2e", "-k", "not e2e and not integration")
    out = result.stdout.str()
    assert "integration: not selected" in out and "e2e: not selected" in out
    assert result.ret == 0
    none = run(pytester, "--earlyexit", "--earlyexit-layers", "unit,integration,e2e", "-k", "nothing_matches")
    assert none.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_marker_layers(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nmarkers =\n    slow: slow tests\nearlyexit_layers =\n    fast = tests\n    slow = marker:slow\n")
    pytester.mkdir("tests")
    pytester.makepyfile(**{"tests/test_x": "def test_fast():\n    pass\n"})
    pytester.makepyfile(**{"other/test_y": "import pytest\n@pytest.mark.slow\ndef test_slow():\n    pass\n"})
    result = run(pytester, "--earlyexit")
    assert "fast: ran 1 test(s)" in result.stdout.str() and "slow: ran 1 test(s)" in result.stdout.str()


@pytest.mark.parametrize(
    ("ini", "args", "message"),
    [
        ("[pytest]\nearlyexit_layers =\n    unit = tests/nowhere\n", (), "layer 'unit': tests/nowhere does not exist"),
        ("[pytest]\nearlyexit_layers =\n    unit = marker:nosuch\n", (), "marker 'nosuch' is not registered"),
        ("[pytest]\nearlyexit_layers =\n    unit = tests/unit fast\n", (), "cost_ms 'fast' is not a number"),
        ("[pytest]\nearlyexit_layers =\n    all = tests\n    unit = tests/unit\n", (), "is claimed by all and unit"),
        (INI, ("--earlyexit-model", "missing-dir/model.json", "--earlyexit-learn", "--earlyexit-model", "model.json"),
         "--earlyexit-model"),
        (INI, ("--earlyexit-policy", "no-such-artifact.json"), "--earlyexit-policy: cannot read"),
        (INI, ("--earlyexit-risk-budget", "lots"), "--earlyexit-risk-budget: 'lots' is not a number"),
        (INI, ("--earlyexit-risk-budget", "7"), "--earlyexit-risk-budget"),
        (INI, ("--earlyexit-preset", "reckless"), "--earlyexit-preset: 'reckless'"),
        (INI, ("-n", "2"), "not supported with pytest-xdist"),
    ],
)
def test_bad_input_is_a_usage_error_before_any_test(pytester: pytest.Pytester, ini: str, args: tuple, message: str) -> None:
    project(pytester, ini=ini)
    (pytester.path / "model.json").write_text("{not json")
    if args[:1] == ("-n",):
        pytest.importorskip("xdist")
    result = run(pytester, "--earlyexit", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str() + result.stderr.str()
    assert message in result.stderr.str()
    assert "passed" not in result.stdout.str()


def test_model_learns_under_the_lock(pytester: pytest.Pytester) -> None:
    project(pytester)
    model = pytester.path / "model.json"
    # The default policy (the ADR's decision) reads no model: refused before any test runs.
    refused = run(pytester, "--earlyexit", "--earlyexit-model", str(model), "--earlyexit-learn")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    assert "--earlyexit-model: only the fail_fast and risk_bounded policies" in refused.stderr.str()
    assert not model.exists()
    for _ in range(2):
        result = run(pytester, "--earlyexit", "--earlyexit-policy", "risk_bounded", "--earlyexit-model", str(model),
                     "--earlyexit-learn")
        assert result.ret == 0
    learned = earlyexit.OutcomeModel.from_json(model.read_text())
    assert len(learned) == 2
    assert json.loads(model.read_text())["version"] == 2


def test_one_job_per_layer_through_the_state_file(pytester: pytest.Pytester) -> None:
    project(pytester, unit=GREEN_UNIT, e2e=BROKEN_E2E)
    state = pytester.path / "state.json"
    args = ("--earlyexit", "--earlyexit-state", str(state), "--earlyexit-mode", "enforced",
            "--earlyexit-policy", "adr", "--earlyexit-preset", "aggressive")
    first = run(pytester, *args)  # job 1: the unit layer only
    first.assert_outcomes(passed=2, skipped=1, deselected=2)
    assert "next: verify layer 'integration'" in first.stdout.str()
    assert first.ret == 0
    snapshot = json.loads(state.read_text())
    assert [layer["name"] for layer in snapshot["layers"]] == ["unit", "integration", "e2e"]
    second = run(pytester, *args)  # job 2: verification of integration; the run is then done
    second.assert_outcomes(passed=1, deselected=4)
    out = second.stdout.str()
    assert "integration: verified 1 test(s)" in out
    assert "e2e: skipped (1 test(s)): confident_exit after layer 'unit'" in out
    assert second.ret == 13  # unverified, as `earlyexit pyramid result` exits
    third = run(pytester, *args)  # a job after the end: the verdict again, no test run
    assert third.ret == 13 and "verdict: unverified" in third.stdout.str()
    assert earlyexit.PyramidRun.from_json(state.read_text()).result().verdict == "unverified"


def test_state_file_of_other_layers_is_refused(pytester: pytest.Pytester) -> None:
    project(pytester)
    state = pytester.path / "state.json"
    state.write_text(earlyexit.PyramidRun.start(None, 1, [{"name": "smoke"}]).to_json())
    result = run(pytester, "--earlyexit", "--earlyexit-state", str(state))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--earlyexit-state" in result.stderr.str() and "'smoke'" in result.stderr.str()


def test_coverage_from_pytest_cov_is_cumulative(pytester: pytest.Pytester) -> None:
    pytest.importorskip("pytest_cov")
    imports = "import sys, pathlib\nsys.path.insert(0, str(pathlib.Path(__file__).parents[2] / 'src'))\nimport mod\n"
    project(pytester, unit=imports + "def test_a():\n    assert mod.f(1) == 1\n",
            integration=imports + "def test_b():\n    assert mod.f(0) == 2\n")
    (pytester.path / "src").mkdir()
    (pytester.path / "src" / "mod.py").write_text("def f(x):\n    if x:\n        return 1\n    return 2\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--earlyexit", "--cov=src")
    out = result.stdout.str()
    assert "unit: ran 1 test(s), 1 passed, 0 failed, coverage 75%" in out
    assert "integration: ran 1 test(s), 1 passed, 0 failed, coverage 100%" in out
    assert result.ret == 0


def test_enabled_from_the_ini_and_stopped_by_x(pytester: pytest.Pytester) -> None:
    project(pytester, unit="def test_red():\n    assert False\n\ndef test_green():\n    pass\n",
            ini=INI + "earlyexit = true\n")
    result = run(pytester, "-x")
    out = result.stdout.str()
    assert "earlyexit (shadow, policy adr)" in out  # the ADR's exit decision, shadowed
    assert "the run stopped before the pyramid was done: no verdict" in out
    result.assert_outcomes(failed=1)
    assert result.ret == 1


def test_xfail_is_not_counted_as_executed(pytester: pytest.Pytester) -> None:
    unit = """
    import pytest

    @pytest.mark.xfail
    def test_known_bug():
        assert False

    def test_ok():
        pass
    """
    project(pytester, unit=unit)
    result = run(pytester, "--earlyexit")
    assert "unit: ran 1 test(s), 1 passed, 0 failed" in result.stdout.str()
    assert result.ret == 0


def test_the_store_records_receipts_and_learned_outcomes(pytester: pytest.Pytester) -> None:
    project(pytester, unit="def test_red():\n    assert False\n")
    url = f"sqlite:{pytester.path / 'store.db'}"
    for _ in range(2):
        result = run(pytester, "--earlyexit", "--earlyexit-policy", "fail_fast", "--earlyexit-store", url)
        assert result.ret == 1
        result.assert_outcomes(failed=1, passed=2)
    with earlyexit.Store.open(url) as store:
        assert store.receipt_logs() == {"pyramids": 2}  # the default log
        assert earlyexit.verify_receipts(store, "pyramids")["valid"] is True
    # A named log, and outcomes learned into the store's model (read back by the next session).
    for _ in range(2):
        result = run(pytester, "--earlyexit", "--earlyexit-policy", "risk_bounded", "--earlyexit-store", url,
                     "--earlyexit-receipts", "nightly", "--earlyexit-model", "main", "--earlyexit-learn")
        assert result.ret == 1
    with earlyexit.Store.open(url) as store:
        logs = store.receipt_logs()
        assert logs["pyramids"] == 2 and set(logs) <= {"pyramids", "nightly"}
        model = store.model("main")
        assert model is not None and len(model["builds"]) == 2
        assert store.check()["models"] == 1
    assert not (pytester.path / "main").exists() and not (pytester.path / "nightly").exists()  # no files


def test_the_store_from_the_ini(pytester: pytest.Pytester) -> None:
    url = f"sqlite:{pytester.path / 'ini.db'}"
    project(pytester, ini=INI + f"earlyexit_store = {url}\n")
    assert run(pytester, "--earlyexit").ret == 0
    with earlyexit.Store.open(url) as store:
        assert store.receipt_logs() == {"pyramids": 1}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--earlyexit-store", "postgresql://u:secret@h/db"), "--earlyexit-store: store: a PostgreSQL store"),
        (("--earlyexit-store", "mysql://h"), "--earlyexit-store: store ('mysql://h'): unknown scheme"),
        (("--earlyexit-store", "sqlite:nowhere/s.db"), "the folder of the path does not exist"),
        (("--earlyexit-store", "sqlite:notdb.txt"), "not a SQLite database"),
        (("--earlyexit-store", "sqlite:s.db", "--earlyexit-receipts", "x" * 300), "--earlyexit-receipts: log must"),
    ],
)
def test_a_bad_store_is_a_usage_error_before_any_test(pytester: pytest.Pytester, args: tuple, message: str) -> None:
    project(pytester)
    (pytester.path / "notdb.txt").write_text("text")
    result = run(pytester, "--earlyexit", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str() + result.stderr.str()
    assert message in result.stderr.str() and "secret" not in result.stderr.str()
    assert "passed" not in result.stdout.str()
    assert (pytester.path / "notdb.txt").read_text() == "text"
