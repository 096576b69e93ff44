"""The pyramid run loops: sync and async runners, every layer form, a runner that raises
(propagated unchanged, controller reusable), invalid runner results, and cancellation."""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any, Dict, List, Optional

import pytest

import earlyexit as ee
from earlyexit import EarlyExitConfig, EarlyExitController

GREEN = {"pass_rate": 1.0, "coverage": 0.95, "flaky_ratio": 0.0}
SHAKY = {"pass_rate": 0.7, "coverage": 0.6, "flaky_ratio": 0.2}


class Layer:
    """A layer as an object with ``name``, ``run()`` and ``cost_ms``."""

    def __init__(self, name: str, result: Dict[str, Any], cost_ms: float, log: List[str]) -> None:
        self.name, self.result, self.cost_ms, self.log = name, result, cost_ms, log

    def run(self) -> Dict[str, Any]:
        self.log.append(self.name)
        return self.result


def test_sync_run_with_every_layer_form() -> None:
    log: List[str] = []
    layers: List[object] = [
        ("unit", lambda: (log.append("unit"), ee.LayerResult(1.0, 0.95, 0.0))[1]),
        {"name": "integration", "run": lambda: (log.append("integration"), GREEN)[1], "cost_ms": 20},
        Layer("contract", GREEN, 30, log),
        Layer("e2e", GREEN, 40, log),
    ]
    result = EarlyExitController(EarlyExitConfig.DEFAULT, 4).run(layers)
    assert log == ["unit", "integration", "contract"]  # exit after layer 0, two layers verified
    assert (result.exited_early, result.exit_layer, result.skipped_layers) == (True, 0, 3)
    assert (result.layers_executed, result.verified_layers, result.compute_saved_ms) == ((0, 1, 2), 2, 40)


def test_no_exit_runs_everything_and_stamps_previous_lambda() -> None:
    controller = EarlyExitController(EarlyExitConfig.CONSERVATIVE, 3)
    result = controller.run([(n, lambda: dict(SHAKY)) for n in ("a", "b", "c")])
    assert not result.exited_early and result.exit_reason == "forced_continue"
    assert [layer.previous_lambda for layer in result.layers] == [None, 60.0, 60.0]
    assert result.to_dict()["layers"][1] == {"passRate": 0.7, "coverage": 0.6, "flakyRatio": 0.2, "previousLambda": 60}


def test_a_raising_runner_propagates_unchanged_and_the_controller_is_reusable() -> None:
    boom = ConnectionError("integration cluster unreachable")
    calls: List[str] = []

    def unit() -> Dict[str, Any]:
        calls.append("unit")
        return dict(SHAKY)

    def integration() -> Dict[str, Any]:
        calls.append("integration")
        raise boom

    def e2e() -> Dict[str, Any]:
        calls.append("e2e")
        return GREEN

    controller = EarlyExitController(None, 3)
    with pytest.raises(ConnectionError) as info:
        controller.run([("unit", unit), ("integration", integration), ("e2e", e2e)])
    assert info.value is boom and calls == ["unit", "integration"]
    assert controller.run([("unit", lambda: GREEN)] * 3).exited_early


def test_invalid_runner_result_and_runner() -> None:
    controller = EarlyExitController(None, 2)
    with pytest.raises(ee.EarlyExitError) as info:
        controller.run(
            [("unit", lambda: dict(SHAKY)), ("e2e", lambda: {"pass_rate": 2, "coverage": 1, "flaky_ratio": 0})]
        )
    assert (info.value.code, info.value.field) == ("invalid_layer_result", "layers[1].pass_rate")
    with pytest.raises(ee.EarlyExitTypeError) as info2:
        controller.run([("unit", 5)])
    assert (info2.value.code, info2.value.field) == ("invalid_config", "layers[0].run")
    with pytest.raises(ee.EarlyExitTypeError) as info3:
        controller.run([{"name": 7, "run": lambda: GREEN}])
    assert (info3.value.code, info3.value.field) == ("invalid_config", "layers[0].name")


def test_layers_from_a_generator() -> None:
    result = EarlyExitController(None, 3).run((name, lambda: GREEN) for name in ("a", "b", "c"))
    assert result.exited_early and result.layers_executed == (0, 1, 2)


def test_run_async_with_async_and_plain_runners() -> None:
    order: List[str] = []

    async def unit() -> Dict[str, Any]:
        await asyncio.sleep(0)
        order.append("unit")
        return dict(SHAKY)

    async def integration() -> ee.LayerResult:
        await asyncio.sleep(0)
        order.append("integration")
        return ee.LayerResult(1.0, 0.95, 0.0)

    def e2e() -> Dict[str, Any]:
        order.append("e2e")
        return GREEN

    controller = EarlyExitController(EarlyExitConfig.DEFAULT, 3)
    result = asyncio.run(controller.run_async([("unit", unit), ("integration", integration), ("e2e", e2e)]))
    sync = controller.run([("unit", lambda: dict(SHAKY)), ("integration", lambda: GREEN), ("e2e", lambda: GREEN)])
    assert result == sync
    assert order == ["unit", "integration", "e2e"]


def test_run_async_raising_runner() -> None:
    class Flaky(Exception):
        pass

    async def bad() -> Dict[str, Any]:
        raise Flaky("layer crashed")

    controller = EarlyExitController(None, 2)
    with pytest.raises(Flaky, match="layer crashed"):
        asyncio.run(controller.run_async([("unit", lambda: dict(SHAKY)), ("e2e", bad)]))


def test_cancelling_run_async_stops_the_run() -> None:
    started: List[str] = []
    finished: List[str] = []

    async def main() -> None:
        gate = asyncio.Event()

        async def slow(name: str) -> Dict[str, Any]:
            started.append(name)
            gate.set()
            try:
                await asyncio.sleep(3600)
            finally:
                finished.append(name)
            return GREEN

        async def never() -> Dict[str, Any]:
            started.append("never")
            return GREEN

        controller = EarlyExitController(EarlyExitConfig.CONSERVATIVE, 3)
        task = asyncio.ensure_future(
            controller.run_async(
                [("unit", lambda: dict(SHAKY)), ("integration", lambda: slow("integration")), ("e2e", never)]
            )
        )
        await gate.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.sleep(0)
        # The controller is unchanged and runs again.
        result = await controller.run_async([("unit", lambda: GREEN)] * 3)
        assert result.layers_executed == (0, 1, 2)  # conservative: fixed exit layer 2

    asyncio.run(main())
    assert started == ["integration"] and finished == ["integration"]


def test_cancelling_run_async_cancels_the_awaited_runner_and_its_subprocess() -> None:
    """The awaited runner gets the CancelledError where it awaits, so a runner that runs a
    test command in a subprocess kills it: after the cancellation the child is gone."""
    child: Optional[asyncio.subprocess.Process] = None
    cancelled: List[str] = []

    async def main() -> None:
        nonlocal child
        started = asyncio.Event()

        async def tests_in_a_subprocess() -> Dict[str, Any]:
            nonlocal child
            child = await asyncio.create_subprocess_exec(sys.executable, "-c", "import time; time.sleep(3600)")
            started.set()
            try:
                await child.wait()
            except asyncio.CancelledError:
                cancelled.append("e2e")
                child.kill()
                await child.wait()
                raise
            return GREEN

        controller = EarlyExitController(EarlyExitConfig.CONSERVATIVE, 2)
        task = asyncio.ensure_future(controller.run_async([("unit", lambda: dict(SHAKY)), ("e2e", tests_in_a_subprocess)]))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # By the time the cancelled run is done, not at the loop's shutdown.
        assert cancelled == ["e2e"]
        assert child is not None and child.returncode is not None  # reaped: it exited
        with pytest.raises(ProcessLookupError):
            os.kill(child.pid, 0)

    asyncio.run(main())


def test_step_api_driven_by_hand_matches_run() -> None:
    controller = EarlyExitController(EarlyExitConfig.AGGRESSIVE, 3)
    results = [dict(SHAKY), GREEN, GREEN]
    run = controller.start([{"name": "a", "cost_ms": 1}, {"name": "b", "cost_ms": 2}, {"name": "c", "cost_ms": 3}])
    while (step := run.next()).layer is not None:
        run.submit(step.layer, results[step.layer])
    expected = controller.run(
        [{"name": n, "cost_ms": c, "run": (lambda r=r: r)} for n, c, r in zip("abc", (1, 2, 3), results)]
    )
    assert run.result() == expected


def _cancel_a_swallowing_runner(fallback: bool, monkeypatch: pytest.MonkeyPatch) -> List[str]:
    """Cancels ``run_async`` while its second layer's runner awaits; that runner catches the
    ``CancelledError`` and returns a result. Answers the layers that started."""
    from earlyexit import _controller

    if fallback:  # the Python 3.9 / 3.10 path, on any version
        monkeypatch.setattr(_controller, "_HAS_CANCELLING", False)
    started: List[str] = []

    async def main() -> None:
        gate = asyncio.Event()

        async def swallowing() -> Dict[str, Any]:
            started.append("integration")
            gate.set()
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                pass  # swallowed: the runner returns as if it had finished
            return dict(SHAKY)

        async def later() -> Dict[str, Any]:
            started.append("e2e")
            return GREEN

        layers = [("unit", lambda: dict(SHAKY)), ("integration", swallowing), ("e2e", later)]
        task = asyncio.ensure_future(EarlyExitController(EarlyExitConfig.CONSERVATIVE, 3).run_async(layers))
        await gate.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    return started


@pytest.mark.skipif(sys.version_info < (3, 11), reason="Task.cancelling() is Python 3.11+")
def test_cancelled_run_async_starts_nothing_after_a_runner_that_swallows_the_cancellation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert _cancel_a_swallowing_runner(False, monkeypatch) == ["integration"]


def test_cancelled_run_async_starts_nothing_more_without_task_cancelling(monkeypatch: pytest.MonkeyPatch) -> None:
    """The path for Python 3.9 / 3.10, which keep no count of cancellations."""
    assert _cancel_a_swallowing_runner(True, monkeypatch) == ["integration"]


def test_run_async_in_a_task_that_handled_an_earlier_cancellation_runs_on() -> None:
    """A cancellation requested of the task before the run began, and handled there, does not
    stop the run (only one requested while a runner is awaited does)."""

    async def green() -> Dict[str, Any]:
        await asyncio.sleep(0)
        return GREEN

    async def main() -> Any:
        async def handled_then_run() -> Any:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                pass  # handled by the caller's own code
            layers = [("a", green), ("b", green), ("c", green)]
            return await EarlyExitController(EarlyExitConfig.CONSERVATIVE, 3).run_async(layers)

        task = asyncio.ensure_future(handled_then_run())
        await asyncio.sleep(0)
        task.cancel()
        return await task

    assert asyncio.run(main()).layers_executed == (0, 1, 2)
