"""Composable stop policies (docs/loop-policies.md): build a condition tree with ``|`` (any)
and ``&`` (all), then pass it as ``policy=`` to :class:`~earlyexit.EarlyStopping`, or to
:func:`~earlyexit.replay_loops`::

    from earlyexit import EarlyStopping
    from earlyexit.policy import high_confidence, max_iterations, no_improvement, not_before, quality_plateau

    when = max_iterations(20) | not_before(3, high_confidence() | (quality_plateau(count=4) & no_improvement(3)))
    engine = EarlyStopping(policy=when)

A condition is a plain ``dict`` in the policy's JSON form (the same in every language); the
core validates it and names the path of a bad value (``policy.any[1].patience``). Only
the settings given are written; the others take their defaults in the core.
"""

from __future__ import annotations

from typing import Optional

from ._literals import InterventionLevel as InterventionLevel
from ._literals import PlateauDeltaSource, PlateauMode, ReturnPolicy

__all__ = [
    "StopCondition",
    "high_confidence",
    "quality_plateau",
    "diminishing_returns",
    "max_total_tokens",
    "max_total_cost_usd",
    "max_wall_clock_ms",
    "max_iterations",
    "quality_regression",
    "no_improvement",
    "floor_patience",
    "stuck",
    "oscillation",
    "deviation",
    "resource_burn",
    "test_regression",
    "completed",
    "unchanged",
    "revisit",
    "any_of",
    "all_of",
    "k_of",
    "not_before",
    "stop_policy",
]


class StopCondition(dict):  # type: ignore[type-arg]
    """A stop condition in the policy's JSON form. ``a | b`` fires when either fires
    (``any``), ``a & b`` when both fire (``all``). A combination is itself a policy; a
    single condition becomes one with :func:`stop_policy` (or ``any_of(condition)``)."""

    def __or__(self, other: object) -> "StopCondition":  # type: ignore[override]
        if not isinstance(other, StopCondition):
            return NotImplemented
        return any_of(*_flatten("any", self), *_flatten("any", other))

    def __and__(self, other: object) -> "StopCondition":
        if not isinstance(other, StopCondition):
            return NotImplemented
        return all_of(*_flatten("all", self), *_flatten("all", other))

    def __ror__(self, other: object) -> "StopCondition":  # type: ignore[override]
        return NotImplemented

    def __ior__(self, other: object) -> "StopCondition":  # type: ignore[override,misc]
        return self.__or__(other)


def _flatten(key: str, condition: StopCondition) -> list:
    if set(condition) == {key}:
        return list(condition[key])
    return [condition]


def _leaf(name: str, **settings: object) -> StopCondition:
    leaf = StopCondition(condition=name)
    leaf.update({k: v for k, v in settings.items() if v is not None})
    return leaf


def high_confidence(
    threshold: Optional[float] = None,
    min_quality: Optional[float] = None,
    require_verification: Optional[bool] = None,
) -> StopCondition:
    """Confidence >= ``threshold`` (0.95) and quality >= ``min_quality`` (70) on the last
    record, with a passed verification when ``require_verification`` (True)."""
    return _leaf(
        "high_confidence", threshold=threshold, min_quality=min_quality, require_verification=require_verification
    )


def quality_plateau(
    count: Optional[int] = None,
    threshold: Optional[float] = None,
    delta_source: Optional[PlateauDeltaSource] = None,
    mode: Optional[PlateauMode] = None,
    min_quality: Optional[float] = None,
) -> StopCondition:
    """Every step over the last ``count`` (3) records moved by less than ``threshold``
    (0.02 relative, or points in ``mode="absolute"``)."""
    return _leaf(
        "quality_plateau", count=count, threshold=threshold, delta_source=delta_source, mode=mode, min_quality=min_quality
    )


def completed() -> StopCondition:
    """The last record reports the loop's completion (``completed: True``)."""
    return _leaf("completed")


def unchanged(k: int) -> StopCondition:
    """Records t-k..t all carry the same ``fingerprint`` (``k`` >= 1)."""
    return _leaf("unchanged", k=k)


def revisit(window: int) -> StopCondition:
    """Record t's ``fingerprint`` equals that of a record among t-window..t-2, a run of
    equal fingerprints aside (``window`` >= 2)."""
    return _leaf("revisit", window=window)


def diminishing_returns() -> StopCondition:
    """The engine's diminishing-returns source reports a detection."""
    return _leaf("diminishing_returns")


def max_total_tokens(limit: float) -> StopCondition:
    """The sum of ``tokens_used`` exceeds ``limit``."""
    return _leaf("max_total_tokens", limit=limit)


def max_total_cost_usd(limit: float) -> StopCondition:
    """The sum of ``token_cost_usd`` exceeds ``limit``."""
    return _leaf("max_total_cost_usd", limit=limit)


def max_wall_clock_ms(limit: float) -> StopCondition:
    """The sum of ``execution_time_ms`` exceeds ``limit``."""
    return _leaf("max_wall_clock_ms", limit=limit)


def max_iterations(limit: int) -> StopCondition:
    """``limit`` iterations are recorded."""
    return _leaf("max_iterations", limit=limit)


def quality_regression(tolerance: float, patience: Optional[int] = None) -> StopCondition:
    """Quality stayed more than ``tolerance`` points below the best for ``patience`` (2) records."""
    return _leaf("quality_regression", tolerance=tolerance, patience=patience)


def no_improvement(patience: int) -> StopCondition:
    """``patience`` records in a row brought no new best quality."""
    return _leaf("no_improvement", patience=patience)


def floor_patience(patience: int, floor: Optional[float] = None, above_patience: Optional[int] = None) -> StopCondition:
    """``patience`` records in a row brought no new best quality while the best is at or
    below ``floor`` (0); above it ``above_patience`` records (never when not given)."""
    return _leaf("floor_patience", patience=patience, floor=floor, above_patience=above_patience)


def stuck(
    no_progress_iterations: int,
    same_error_count: Optional[int] = None,
    stop_at: Optional[InterventionLevel] = None,
) -> StopCondition:
    """The stuck-loop detector over the last ``no_progress_iterations`` records (required: a
    bounded window): the same ``error`` (or ``failure_class``) ``same_error_count`` (3)
    times with flat ``completion_percentage``. Stops from level ``stop_at`` ("pause") on;
    below it the decision reports the intervention without stopping."""
    return _leaf(
        "stuck", no_progress_iterations=no_progress_iterations, same_error_count=same_error_count, stop_at=stop_at
    )


def oscillation(
    undo_redo_cycles: Optional[int] = None,
    file_churn_threshold: Optional[float] = None,
    stop_at: Optional[InterventionLevel] = None,
) -> StopCondition:
    """The oscillation detector over the last six records' ``artifacts_modified``
    (``undo_redo_cycles`` 2, ``file_churn_threshold`` 0.8)."""
    return _leaf(
        "oscillation", undo_redo_cycles=undo_redo_cycles, file_churn_threshold=file_churn_threshold, stop_at=stop_at
    )


def deviation(
    objective: Optional[str] = None,
    objective_similarity: Optional[float] = None,
    scope_creep_ratio: Optional[float] = None,
    stop_at: Optional[InterventionLevel] = None,
) -> StopCondition:
    """The deviation detector: the last three records' ``learnings`` against ``objective``
    (``objective_similarity`` 0.5)."""
    return _leaf(
        "deviation",
        objective=objective,
        objective_similarity=objective_similarity,
        scope_creep_ratio=scope_creep_ratio,
        stop_at=stop_at,
    )


def resource_burn(
    max_iterations: Optional[int] = None,
    iteration_multiplier: Optional[float] = None,
    cost_multiplier: Optional[float] = None,
    stop_at: Optional[InterventionLevel] = None,
) -> StopCondition:
    """The resource-burn detector: records against the expected ``max_iterations`` (10),
    reported from ``iteration_multiplier`` (2.0) times it."""
    return _leaf(
        "resource_burn",
        max_iterations=max_iterations,
        iteration_multiplier=iteration_multiplier,
        cost_multiplier=cost_multiplier,
        stop_at=stop_at,
    )


def test_regression(
    coverage_drop_percent: Optional[float] = None,
    test_pass_to_fail: Optional[bool] = None,
    stop_at: Optional[InterventionLevel] = None,
) -> StopCondition:
    """The regression detector over the last five records: ``tests_passing`` going from
    true to false, ``coverage_percent`` dropping by ``coverage_drop_percent`` (10) points."""
    return _leaf(
        "test_regression",
        coverage_drop_percent=coverage_drop_percent,
        test_pass_to_fail=test_pass_to_fail,
        stop_at=stop_at,
    )


# Not a test for pytest to collect.
test_regression.__test__ = False  # type: ignore[attr-defined]


def any_of(*conditions: StopCondition) -> StopCondition:
    """Fires when one of ``conditions`` fires (evaluated in order, the first that fires ends it)."""
    return StopCondition(any=list(conditions))


def all_of(*conditions: StopCondition) -> StopCondition:
    """Fires when every one of ``conditions`` fires."""
    return StopCondition(all=list(conditions))


def k_of(k: int, *conditions: StopCondition) -> StopCondition:
    """Fires when ``k`` of ``conditions`` fire."""
    return StopCondition(k_of=k, of=list(conditions))


def not_before(iterations: int, condition: StopCondition) -> StopCondition:
    """``condition``, not evaluated before ``iterations`` records (a warm-up gate)."""
    return StopCondition(not_before=iterations, then=condition)


def stop_policy(
    when: StopCondition,
    *,
    returns: Optional[ReturnPolicy] = None,
    preset: Optional[str] = None,
    config: Optional[dict] = None,  # type: ignore[type-arg]
    analytics: object = None,
) -> dict:  # type: ignore[type-arg]
    """The full policy object: ``when``'s tree (a single condition as ``any`` of one) with
    ``returns``, and for a replay ``preset``, ``config`` and ``analytics``."""
    policy: dict = dict(when if set(when) & {"any", "all", "k_of", "not_before"} else any_of(when))  # type: ignore[type-arg]
    for key, value in (("returns", returns), ("preset", preset), ("config", config), ("analytics", analytics)):
        if value is not None:
            policy[key] = value
    return policy
