"""The pytest plugin: inactive unless ``--earlyexit`` (or ``earlyexit = true`` in the ini).

It holds no rule of its own: it maps pytest's outcomes to layer results and lets the
``earlyexit`` engine (``PyramidRun``) decide at each layer boundary.
"""

from __future__ import annotations

import importlib
import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

import pytest

if TYPE_CHECKING:
    import earlyexit
# Otherwise `earlyexit` is imported by pytest_configure, only when the plugin is enabled: every
# session of a project that has the plugin installed loads this module, and importing the engine
# costs about 60 ms of CPU (make bench, section 3c), which a session without --earlyexit must
# not pay.

#: `earlyexit pyramid result`'s exit code for an unverified verdict.
EXIT_UNVERIFIED = 13
SKIP_PREFIX = "skipped by earlyexit: "
MODES = ("shadow", "enforced")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("earlyexit", "test-pyramid early exit (earlyexit)")
    group.addoption("--earlyexit", action="store_true", default=None,
                    help="run the tests layer by layer, with an exit decision at each layer boundary")
    group.addoption("--earlyexit-layers", default=None, metavar="NAMES",
                    help="comma-separated layer names, each the directory tests/NAME (else the ini's earlyexit_layers)")
    group.addoption("--earlyexit-unlayered", choices=("refuse", "first"), default="refuse",
                    help="tests in no layer: refuse the run (default) or run them first as their own layer")
    group.addoption("--earlyexit-mode", default="shadow", metavar="shadow|enforced",
                    help="shadow (default): every layer runs, the would-be exit is reported; enforced: layers are skipped")
    group.addoption("--earlyexit-policy", default=None, metavar="adr|fail_fast|risk_bounded|PATH",
                    help="who decides (default: adr, the ADR's exit decision), or a calibration artifact")
    group.addoption("--earlyexit-preset", default=None, metavar="NAME",
                    help="the ADR's exit configuration preset (default, aggressive, conservative)")
    group.addoption("--earlyexit-risk-budget", default=None, metavar="B",
                    help="the risk_bounded policy's budget (0..1)")
    group.addoption("--earlyexit-receipts", default=None, metavar="FILE",
                    help="append the run's shadow receipts to this hash-chained JSONL log (with --earlyexit-store: "
                         "the store's receipt log of this name, default pyramids)")
    group.addoption("--earlyexit-model", default=None, metavar="FILE",
                    help="the outcome model the policy decides from (read; a missing file is an empty model; with "
                         "--earlyexit-store: the store's model of this name)")
    group.addoption("--earlyexit-store", default=None, metavar="URL",
                    help="record the run's shadow receipts and learned outcomes in this run store (sqlite:PATH, "
                         "the earlyexit command's store) instead of files (else the ini's earlyexit_store)")
    group.addoption("--earlyexit-learn", action="store_true", default=False,
                    help="learn this session's outcomes into --earlyexit-model (under a lock)")
    group.addoption("--earlyexit-state", default=None, metavar="FILE",
                    help="one CI job per layer: run the pending layer of the run in FILE (the earlyexit command's "
                         "state file; started from the layers when missing) and record its result there")
    group.addoption("--earlyexit-allow-unverified", action="store_true", default=False,
                    help="exit 0 instead of 13 when layers were skipped without running")
    parser.addini("earlyexit", "enable the earlyexit plugin", type="bool", default=False)
    parser.addini("earlyexit_store", "the run store to record into (sqlite:PATH), as --earlyexit-store", default=None)
    parser.addini("earlyexit_layers", "layers, one a line: name = PATH-OR-marker:NAME [cost_ms]", type="linelist")


def pytest_configure(config: pytest.Config) -> None:
    enabled = config.getoption("earlyexit") or config.getini("earlyexit")
    if not enabled:
        return
    if getattr(config.option, "numprocesses", None):
        raise pytest.UsageError(
            "--earlyexit: not supported with pytest-xdist's -n (layers run in order in one process); drop -n"
        )
    if hasattr(config, "workerinput"):
        return
    globals()["earlyexit"] = importlib.import_module("earlyexit")
    config.pluginmanager.register(EarlyExitPlugin(config), "earlyexit-session")


class Layer:
    __slots__ = ("name", "path", "marker", "cost_ms", "items")

    def __init__(self, name: str, path: Optional[Path], marker: Optional[str], cost_ms: Optional[float]) -> None:
        self.name = name
        self.path = path
        self.marker = marker
        self.cost_ms = cost_ms
        self.items: List[pytest.Item] = []

    def claims(self, item: pytest.Item) -> bool:
        if self.marker is not None:
            return item.get_closest_marker(self.marker) is not None
        assert self.path is not None
        return item.path == self.path or self.path in item.path.parents

    def spec(self) -> Dict[str, Any]:
        spec: Dict[str, Any] = {"name": self.name}
        if self.cost_ms is not None:
            spec["cost_ms"] = self.cost_ms
        return spec


def _parse_layers(config: pytest.Config) -> List[Layer]:
    root = config.rootpath
    given = config.getoption("earlyexit_layers")
    if given is not None:
        names = [name.strip() for name in given.split(",")]
        if not all(names):
            raise pytest.UsageError(f"--earlyexit-layers: an empty layer name in {given!r}")
        rows = [(name, f"tests/{name}", None, "--earlyexit-layers") for name in names]
    else:
        rows = []
        for line in config.getini("earlyexit_layers"):
            name, sep, rest = line.partition("=")
            words = rest.split()
            if not sep or not name.strip() or not 1 <= len(words) <= 2:
                raise pytest.UsageError(
                    f"earlyexit_layers: {line!r} is not 'name = PATH-OR-marker:NAME [cost_ms]'"
                )
            rows.append((name.strip(), words[0], words[1] if len(words) == 2 else None, "earlyexit_layers"))
        if not rows:
            raise pytest.UsageError(
                "--earlyexit: no layers (give --earlyexit-layers unit,integration,e2e or earlyexit_layers lines in the ini)"
            )
    known_markers = {line.split(":")[0].split("(")[0].strip() for line in config.getini("markers")}
    layers: List[Layer] = []
    seen = set()
    for name, target, cost, option in rows:
        if name in seen:
            raise pytest.UsageError(f"{option}: layer {name!r} is given twice")
        seen.add(name)
        cost_ms: Optional[float] = None
        if cost is not None:
            try:
                cost_ms = float(cost)
            except ValueError:
                raise pytest.UsageError(f"{option}: layer {name!r}: cost_ms {cost!r} is not a number") from None
            if not (cost_ms >= 0 and cost_ms != float("inf")):
                raise pytest.UsageError(f"{option}: layer {name!r}: cost_ms {cost!r} is not a finite number >= 0")
        if target.startswith("marker:"):
            marker = target[len("marker:"):]
            if marker not in known_markers:
                raise pytest.UsageError(
                    f"{option}: layer {name!r}: marker {marker!r} is not registered (add it to the ini's markers)"
                )
            layers.append(Layer(name, None, marker, cost_ms))
        else:
            path = (root / target).resolve()
            if not path.exists():
                raise pytest.UsageError(f"{option}: layer {name!r}: {target} does not exist (under {root})")
            layers.append(Layer(name, path, None, cost_ms))
    return layers


def _read_text(option: str, path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise pytest.UsageError(f"{option}: cannot read {path}: {error}") from None


class _Outcome:
    """One test's outcome over its attempts (pytest-rerunfailures reports the failed ones as ``rerun``)."""

    __slots__ = ("failed", "skipped", "reran", "duration")

    def __init__(self) -> None:
        self.failed = False
        self.skipped = False
        self.reran = False
        self.duration = 0.0


class EarlyExitPlugin:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        opt = config.getoption
        self.layers = _parse_layers(config)
        self.unlayered_first = opt("earlyexit_unlayered") == "first"
        self.mode = opt("earlyexit_mode")
        if self.mode not in MODES:
            raise pytest.UsageError(f"--earlyexit-mode: {self.mode!r} is not shadow or enforced")
        policy_arg = opt("earlyexit_policy")
        self.policy_name = policy_arg or "adr"
        self.policy: Any = self.policy_name
        if policy_arg is not None and policy_arg not in ("adr", "fail_fast", "risk_bounded"):
            text = _read_text("--earlyexit-policy", policy_arg)
            try:
                self.policy = json.loads(text)
            except ValueError as error:
                raise pytest.UsageError(f"--earlyexit-policy: {policy_arg} is not a JSON artifact: {error}") from None
            self.policy_name = "artifact"
        self.exit_config: Any = None
        preset = opt("earlyexit_preset")
        if preset is not None:
            presets = {n.lower(): getattr(earlyexit.EarlyExitConfig, n) for n in dir(earlyexit.EarlyExitConfig)
                       if isinstance(getattr(earlyexit.EarlyExitConfig, n, None), earlyexit.EarlyExitConfig)}
            if preset not in presets:
                raise pytest.UsageError(f"--earlyexit-preset: {preset!r} is not one of {', '.join(sorted(presets))}")
            self.exit_config = presets[preset]
        self.policy_config: Optional[Dict[str, Any]] = None
        budget = opt("earlyexit_risk_budget")
        if budget is not None:
            try:
                self.policy_config = {"risk_budget": float(budget)}
            except ValueError:
                raise pytest.UsageError(f"--earlyexit-risk-budget: {budget!r} is not a number") from None
        self.model_path = opt("earlyexit_model")
        self.learn = opt("earlyexit_learn")
        if self.learn and self.model_path is None:
            raise pytest.UsageError("--earlyexit-learn: needs --earlyexit-model FILE")
        self.model: Any = None
        self.store: Any = None
        store_url = opt("earlyexit_store") or config.getini("earlyexit_store") or None
        if store_url is not None:
            try:
                self.store = earlyexit.Store.open(store_url)
            except (earlyexit.EarlyExitError, earlyexit.EarlyExitTypeError) as error:
                raise pytest.UsageError(f"--earlyexit-store: {error}") from None
        if self.store is not None and self.model_path is not None:
            try:
                stored = self.store.model(self.model_path)
                if stored is not None:
                    self.model = earlyexit.OutcomeModel.from_json(json.dumps(stored))
            except (earlyexit.EarlyExitError, earlyexit.EarlyExitTypeError) as error:
                raise pytest.UsageError(f"--earlyexit-model: {self.model_path} (in {store_url}): {error}") from None
        elif self.model_path is not None and os.path.exists(self.model_path):
            text = _read_text("--earlyexit-model", self.model_path)
            try:
                self.model = earlyexit.OutcomeModel.from_json(text)
            except (earlyexit.EarlyExitError, earlyexit.EarlyExitTypeError, ValueError) as error:
                raise pytest.UsageError(f"--earlyexit-model: {self.model_path}: {error}") from None
        self.state = opt("earlyexit_state")
        self.state_text: Optional[str] = None
        self.pending: Optional[Tuple[str, int]] = None
        self.state_layers: List[Layer] = []
        self.coverage_measured = False
        self.receipts = opt("earlyexit_receipts")
        if self.store is not None and self.receipts is None:
            self.receipts = earlyexit.Store.DEFAULT_PYRAMID_LOG
        if self.store is not None:
            try:  # the log name is checked now, before any test runs
                self.store.receipts(self.receipts)
            except (earlyexit.EarlyExitError, earlyexit.EarlyExitTypeError) as error:
                raise pytest.UsageError(f"--earlyexit-receipts: {error}") from None
        self.allow_unverified = opt("earlyexit_allow_unverified")
        # Everything the engine validates (policy, artifact, budget, preset) is checked now,
        # before any test runs, on the layers as configured.
        self._start([layer.spec() for layer in self.layers])
        self.outcomes: Dict[str, _Outcome] = {}
        self.selected: List[Layer] = []
        self.not_selected: List[Layer] = []
        self.run: Any = None
        self.result: Any = None
        self.steps: List[Tuple[str, Layer, Dict[str, Any], Any, float]] = []
        self.skip_reason: Optional[str] = None

    def _start(self, specs: List[Dict[str, Any]]) -> Any:
        kwargs: Dict[str, Any] = {"policy": self.policy, "mode": self.mode}
        if self.policy_name != "adr":
            kwargs["model"] = self.model
            kwargs["policy_config"] = self.policy_config
        elif self.policy_config is not None:
            raise pytest.UsageError("--earlyexit-risk-budget: only the risk_bounded policy reads a budget")
        elif self.model_path is not None:
            # The ADR's decision reads no model: learning into one under it would do nothing.
            raise pytest.UsageError("--earlyexit-model: only the fail_fast and risk_bounded policies read an "
                                    "outcome model, and the policy is adr (give --earlyexit-policy risk_bounded)")
        try:
            return earlyexit.PyramidRun.start(self.exit_config, max(len(specs), 1), specs, **kwargs)
        except (earlyexit.EarlyExitError, earlyexit.EarlyExitTypeError) as error:
            field = getattr(error, "field", "") or ""
            option = {"policy": "--earlyexit-policy", "mode": "--earlyexit-mode", "model": "--earlyexit-model",
                      "policy_config": "--earlyexit-risk-budget", "policyConfig": "--earlyexit-risk-budget"}
            name = next((o for k, o in option.items() if field.split(".")[0].split("[")[0] == k), "--earlyexit")
            raise pytest.UsageError(f"{name}: {error}") from None

    # --- collection ---------------------------------------------------------------------
    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session: pytest.Session, config: pytest.Config,
                                      items: List[pytest.Item]) -> None:
        for layer in self.layers:
            layer.items = []
        unlayered: List[pytest.Item] = []
        for item in items:
            claimed = [layer for layer in self.layers if layer.claims(item)]
            if len(claimed) > 1:
                raise pytest.UsageError(
                    f"earlyexit layers: {item.nodeid} is claimed by {' and '.join(l.name for l in claimed)}"
                )
            if claimed:
                claimed[0].items.append(item)
            else:
                unlayered.append(item)
        layers = list(self.layers)
        if unlayered:
            if not self.unlayered_first:
                listing = "\n  ".join(item.nodeid for item in unlayered[:50])
                more = f"\n  ... and {len(unlayered) - 50} more" if len(unlayered) > 50 else ""
                raise pytest.UsageError(
                    f"--earlyexit-unlayered: {len(unlayered)} test(s) in no layer (put them in one, or run them "
                    f"first with --earlyexit-unlayered=first):\n  {listing}{more}"
                )
            first = Layer("unlayered", None, None, None)
            first.items = unlayered
            layers.insert(0, first)
        if self.state is not None:
            self._collect_for_state(config, layers, items)
            return
        self.selected = [layer for layer in layers if layer.items]
        self.not_selected = [layer for layer in layers if not layer.items]
        items[:] = [item for layer in self.selected for item in layer.items]

    def _collect_for_state(self, config: pytest.Config, layers: List[Layer], items: List[pytest.Item]) -> None:
        """One CI job per layer: keep only the pending layer's tests."""
        path = Path(self.state)
        with _Locked(path):
            if path.exists():
                self.state_text = _read_text("--earlyexit-state", self.state)
            else:
                self.state_text = self._start([layer.spec() for layer in layers]).to_json()
                _write_atomically(path, self.state_text)
        try:
            run = earlyexit.PyramidRun.from_json(self.state_text)
            names = [layer["name"] for layer in json.loads(self.state_text)["layers"]]
        except (earlyexit.EarlyExitError, earlyexit.EarlyExitTypeError, ValueError, KeyError, TypeError) as error:
            raise pytest.UsageError(f"--earlyexit-state: {self.state}: {error}") from None
        configured = [layer.name for layer in layers]
        if names != configured:
            raise pytest.UsageError(
                f"--earlyexit-state: {self.state} runs the layers {names}, not the configured {configured}"
            )
        self.run = run
        self.state_layers = layers
        step = run.next()
        keep: List[pytest.Item] = []
        if step.action != "done":
            layer = layers[step.layer]
            if not layer.items:
                raise pytest.UsageError(
                    f"--earlyexit-state: the pending layer {layer.name!r} has no selected test"
                )
            self.pending = (step.action, step.layer)
            self.selected = [layer]
            keep = layer.items
        else:
            self.result = self.run.result()
            self.selected = layers
        self.state_layers = layers
        kept = set(keep)
        dropped = [item for item in items if item not in kept]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        items[:] = keep

    # --- running --------------------------------------------------------------------------
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Optional[bool]:
        if session.testsfailed and not session.config.option.continue_on_collection_errors:
            raise session.Interrupted(f"{session.testsfailed} error(s) during collection")
        if session.config.option.collectonly or not self.selected:
            return True
        if self.state is not None:
            if self.pending is not None:
                self._run_pending(session)
            return True
        self.run = self._start([layer.spec() for layer in self.selected])
        while True:
            step = self.run.next()
            if step.action == "done":
                break
            layer = self.selected[step.layer]
            self._run_items(session, layer.items)
            if session.shouldfail or session.shouldstop:
                break
            result = self._layer_result(layer)
            started = time.perf_counter()
            decision = self.run.submit(step.layer, result)
            self.steps.append((step.action, layer, result, decision, time.perf_counter() - started))
        if self.run.is_done:
            self.result = self.run.result()
            ran = set(self.result.layers_executed)
            reason = self._skip_reason()
            for index, layer in enumerate(self.selected):
                if index not in ran:
                    for item in layer.items:
                        item.add_marker(pytest.mark.skip(reason=SKIP_PREFIX + reason))
                    self._run_items(session, layer.items)
        return True

    def _run_pending(self, session: pytest.Session) -> None:
        action, index = self.pending  # type: ignore[misc]
        layer = self.selected[0]
        self._run_items(session, layer.items)
        result = self._layer_result(layer)
        path = Path(self.state)
        with _Locked(path):
            if _read_text("--earlyexit-state", self.state) != self.state_text:
                raise pytest.UsageError(f"--earlyexit-state: {self.state} changed while layer {layer.name!r} ran")
            started = time.perf_counter()
            decision = self.run.submit(index, result)
            self.steps.append((action, layer, result, decision, time.perf_counter() - started))
            _write_atomically(path, self.run.to_json())
        if self.run.is_done:
            self.result = self.run.result()
            self.selected = self.state_layers

    def _skip_reason(self) -> str:
        result = self.result
        return f"{result.exit_reason} after layer {self.selected[result.exit_layer].name!r} " \
               f"(confidence {result.confidence:.2f})"

    def _run_items(self, session: pytest.Session, items: List[pytest.Item]) -> None:
        hook = session.config.hook
        for i, item in enumerate(items):
            nextitem = items[i + 1] if i + 1 < len(items) else None
            hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
            if session.shouldfail:
                raise session.Failed(session.shouldfail)
            if session.shouldstop:
                raise session.Interrupted(session.shouldstop)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        outcome = self.outcomes.setdefault(report.nodeid, _Outcome())
        outcome.duration += report.duration
        if report.outcome == "rerun":
            outcome.reran = True
            outcome.failed = False
        elif report.failed:
            outcome.failed = True
        elif report.skipped and report.when in ("setup", "call"):
            outcome.skipped = True

    def _layer_result(self, layer: Layer) -> Dict[str, Any]:
        passed = failed = flaky = 0
        duration = 0.0
        for item in layer.items:
            outcome = self.outcomes.get(item.nodeid)
            if outcome is None:
                continue
            duration += outcome.duration
            if outcome.failed:
                failed += 1
            elif not outcome.skipped:
                passed += 1
                flaky += outcome.reran
        total = passed + failed
        return {
            "name": layer.name,
            # A layer whose every test was skipped executed nothing and failed nothing.
            "pass_rate": passed / total if total else 1.0,
            "coverage": self._coverage(),
            "flaky_ratio": flaky / total if total else 0.0,
            "duration_ms": duration * 1000.0,
            "total": total,
            "passed": passed,
            "failed": failed,
            "flaky": flaky,
        }

    def _coverage(self) -> float:
        """The cumulative line rate from pytest-cov's running Coverage object, else 1 (not
        measured: it does not lower the quality signal, as the command's rule is)."""
        plugin = self.config.pluginmanager.get_plugin("_cov")
        cov = getattr(getattr(plugin, "cov_controller", None), "cov", None)
        if cov is None:
            return 1.0
        import io

        # coverage.py before 7.11 (7.10.7 is the last for Python 3.9) caches one file's
        # analysis across reports (an lru_cache on Coverage._analyze): with one measured file,
        # every layer would report the first layer's rate. Clearing it costs one re-analysis.
        clear = getattr(getattr(type(cov), "_analyze", None), "cache_clear", None)
        if clear is not None:
            clear()
        try:
            rate = max(0.0, min(1.0, cov.report(file=io.StringIO()) / 100.0))
        except Exception:  # coverage.py's NoDataError and friends: nothing measured yet
            return 1.0
        self.coverage_measured = True
        return rate

    # --- the end --------------------------------------------------------------------------
    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.result is None:
            if self.state is not None:
                return  # one layer of a run in a state file: pytest's own status for its tests
            if not self.selected and not session.config.option.collectonly and exitstatus == 0:
                session.exitstatus = pytest.ExitCode.NO_TESTS_COLLECTED
            return
        if self.receipts and self.result.shadow is not None:
            self._append_receipts()
        if self.learn:
            self._learn()
        verdict = self.result.verdict
        if verdict == "failed":
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        elif verdict == "unverified" and not self.allow_unverified:
            session.exitstatus = EXIT_UNVERIFIED
        elif exitstatus == pytest.ExitCode.TESTS_FAILED:
            pass  # a test failed outside what the verdict counts (teardown): pytest's status stands
        else:
            session.exitstatus = pytest.ExitCode.OK

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self.store is not None:
            self.store.close()

    def _append_receipts(self) -> None:
        if self.store is not None:  # one transaction; a retried session appends nothing
            self.store.append_receipts(self.receipts, self.result.shadow["receipts"])
            return
        path = Path(self.receipts)
        with _Locked(path):
            log = path.read_text(encoding="utf-8") if path.exists() else ""
            lines = earlyexit.append_receipts(log, self.result.shadow["receipts"])
            with path.open("a", encoding="utf-8") as out:
                out.write(lines)

    def _learn(self) -> None:
        policy = self.result.policy
        if policy is None:
            return
        seq = time.time_ns() // 1_000_000
        build_id = f"pytest-{seq}-{os.getpid()}"
        if self.store is not None:  # read, merge (a set union of builds) and write: one transaction
            learned = earlyexit.OutcomeModel().learn(policy["ran"], build_id=build_id, seq=seq)
            self.store.merge_model(self.model_path, learned)
            return
        path = Path(self.model_path)
        with _Locked(path):
            current = earlyexit.OutcomeModel.from_json(path.read_text(encoding="utf-8")) if path.exists() \
                else earlyexit.OutcomeModel()
            learned = current.learn(policy["ran"], build_id=build_id, seq=seq)
            _write_atomically(path, learned.to_json())

    def _step_line(self, action: str, layer: Layer, lr: Dict[str, Any], decision: Any) -> str:
        what = "ran" if action == "run" else "verified"
        line = f"{layer.name}: {what} {lr['total']} test(s), {lr['passed']} passed, {lr['failed']} failed"
        if lr["flaky"]:
            line += f", {lr['flaky']} flaky"
        if self.coverage_measured:
            line += f", coverage {lr['coverage']:.0%}"
        if decision is not None:
            line += f"; decision: {'exit' if decision.can_exit else 'continue'} ({decision.explanation})"
        return line

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        tr = terminalreporter
        if self.state is not None:  # the run's options are those it was started with
            tr.section(f"earlyexit (the run in {self.state})")
        else:
            tr.section(f"earlyexit ({self.mode}, policy {self.policy_name})")
        for layer in self.not_selected:
            tr.write_line(f"{layer.name}: not selected (no test of it was selected): no result")
        if self.result is None:
            if self.state is not None and self.run is not None:
                for action, layer, lr, decision, _ in self.steps:
                    tr.write_line(self._step_line(action, layer, lr, decision))
                step = self.run.next()
                if step.action != "done":
                    tr.write_line(f"next: {step.action} layer {self.state_layers[step.layer].name!r} "
                                  f"(the next job with --earlyexit-state {self.state})")
                return
            if self.selected:
                tr.write_line("the run stopped before the pyramid was done: no verdict")
            return
        result = self.result
        for action, layer, lr, decision, _ in self.steps:
            tr.write_line(self._step_line(action, layer, lr, decision))
        ran = set(result.layers_executed)
        for index, layer in enumerate(self.selected):
            if index not in ran:
                tr.write_line(f"{layer.name}: skipped ({len(layer.items)} test(s)): {self._skip_reason()}")
        shadow = result.shadow
        if shadow is not None:
            receipts = shadow.get("receipts") or []
            if receipts:
                first = receipts[0]
                # The ADR's receipt marks the skipped layers its verification would have run.
                never = ", ".join(s["name"] for s in first["skipped"] if not s.get("verified")) or "nothing"
                verified = ", ".join(s["name"] for s in first["skipped"] if s.get("verified"))
                skipped = f"{never} (verifying {verified})" if verified else never
                tr.write_line(
                    f"shadow: the policy would have exited after {first['layerName']!r} ({first['exitReason']}), "
                    f"skipping {skipped}; labels {shadow['labels']}; would have saved {_ms(shadow['computeSavedMs'])}"
                )
            else:
                tr.write_line("shadow: the policy would not have skipped any layer")
        saved = result.compute_saved_ms
        tr.write_line(
            f"verdict: {result.verdict} (exit reason {result.exit_reason}); compute saved: "
            f"{'unknown (a skipped layer has no cost_ms)' if saved is None else f'{saved:g} ms'}"
        )
        decide = [s[4] for s in self.steps]
        if decide:
            tr.write_line(f"decision overhead: {1000 * max(decide):.3f} ms at most per layer")


def _write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _ms(value: Optional[float]) -> str:
    return "an unknown time (a layer has no cost)" if value is None else f"{value:.1f} ms"


class _Locked:
    """An exclusive lock on ``PATH.lock`` (fcntl where there is one)."""

    def __init__(self, path: Path) -> None:
        self.path = path.with_name(path.name + ".lock")
        self.handle: Any = None

    def __enter__(self) -> "_Locked":
        self.handle = open(self.path, "a+")
        try:
            import fcntl

            fcntl.flock(self.handle, fcntl.LOCK_EX)
        except ImportError:  # Windows: msvcrt
            import msvcrt

            msvcrt.locking(self.handle.fileno(), msvcrt.LK_LOCK, 1)
        return self

    def __exit__(self, *exc: object) -> None:
        self.handle.close()
