"""Type stubs of ``earlyexit._native``, the compiled core. Import from ``earlyexit``.

Conventions shared by every class here:

* Keyword options and mapping keys are snake_case (``high_confidence_threshold``,
  ``pass_rate``); a mapping key may also be spelled as ``to_dict()`` and the JSON formats
  spell it (``passRate``), but not both ways at once. A key whose value is ``None`` is
  absent. An unknown keyword raises :class:`~earlyexit.EarlyExitTypeError` with code
  ``unknown_option`` naming the closest one.
* Results are immutable: attributes are read-only, ``==`` compares values, and
  ``to_dict()`` returns a new dict holding exactly the JSON the JS API returns (the original
  modules' keys, camelCase where they have them; whole numbers as ``int``).
* Bad input raises :class:`~earlyexit.EarlyExitError` (a bad value) or
  :class:`~earlyexit.EarlyExitTypeError` (a wrong type), with ``.code`` and ``.field``,
  and leaves the engine exactly as it was.
* Engines (:class:`EarlyStopping`, :class:`IterationAnalytics`, :class:`PyramidRun`) are
  safe to share between threads, pickle, and round-trip through ``to_json()`` /
  ``from_json()`` (the portable snapshot, the same JSON in every language).
"""

import os
import datetime as _datetime
import pathlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Callable, ClassVar, Generic, Literal, Protocol, Union, final, overload, type_check_only

from typing_extensions import TypeVar, Unpack

from earlyexit._analytics import (
    AnalyticsConfigDict,
    AnalyticsConfigOptions,
    AnalyticsOptions,
    AnalyticsRecordDict,
    AnalyticsSummaryDict,
    DiminishingReturnsDict,
    IterationAnalyticsOptions,
    IterationSelectionDict,
    ReportOptions,
    SelectionCriteria,
    Trajectory,
)
from earlyexit._decision import BudgetStatusDict, StoppingDecisionDict, StoppingDetails, StoppingSummaryDict
from earlyexit._loops import (
    EarlyStoppingConfigDict,
    EarlyStoppingOptions,
    IterationRecordDict,
    PlateauDeltaSource,
    PlateauMode,
    Trigger,
    VerificationStatus,
)
from earlyexit._pyramid import (
    ActionKind,
    ExitConfigDict,
    ExitDecisionDict,
    ExitOptions,
    ExitReason,
    FailingLayerDict,
    LayerResultDict,
    Outcome,
    PolicyReportDict,
    PyramidActionDict,
    QualitySignalDict,
    RunMode,
    RunPolicy,
    SpeculationDict,
    TestPyramidResultDict,
    Verdict,
)
from earlyexit._replay import LoopPolicyDict, LoopPresetName, ReplayRunOutcomeDict, ReplaySummaryDict
from earlyexit._literals import LearnMode, PyramidPolicyName, ReturnPolicy
from earlyexit._behavior import (
    DetectionDict,
    DetectionType,
    History,
    InterventionCallback,
    InterventionDict,
    InterventionLevel,
    InterventionStateDict,
    InterventionSummaryDict,
    LogLevel,
    PauseStatusDict,
    Severity,
    ThresholdsOptions,
)

__version__: str
"""The version of the compiled core."""
__all__ = [
    "AnalyticsConfig",
    "AnalyticsRecord",
    "AnalyticsSummary",
    "BehaviorDetector",
    "BehaviorThresholds",
    "Detection",
    "INTERVENTION_LEVELS",
    "Intervention",
    "InterventionSummary",
    "InterventionSystem",
    "THRESHOLDS",
    "CoherenceEarlyExit",
    "DiminishingReturnsReport",
    "EarlyExitConfig",
    "EarlyStopping",
    "EarlyStoppingConfig",
    "ExitDecision",
    "FailingLayer",
    "IterationAnalytics",
    "IterationRecord",
    "IterationSelection",
    "LIMITS",
    "LOOP_PRESETS",
    "LayerResult",
    "LoopCalibration",
    "LoopReplay",
    "OutcomeModel",
    "PyramidAction",
    "PyramidRun",
    "QualitySignal",
    "Speculation",
    "SpeculativeExecutor",
    "StoppingDecision",
    "StoppingSummary",
    "TestPyramidResult",
    "__version__",
    "_conversion_visits",
    "_layer_runners",
    "_restore",
    "_restore_loop_calibration",
    "_restore_loop_policy",
    "_restore_loop_replay",
    "_restore_result",
    "_restore_signal",
    "_run_options",
    "calculate_quality_signal",
    "count_quality_partitions",
    "read_junit",
    "calibrate_pyramid_policy",
    "pyramid_policy_decide",
    "pyramid_policy_update",
    "replay_pyramids",
    "shadow_pyramids",
    "verify_receipts",
    "check_pyramid_drift",
    "promote_pyramid_policy",
    "check_loop_drift",
    "promote_loop_policy",
    "append_receipts",
    "replay_loops",
    "output_fingerprint",
    "_Loop",
    "calibrate_loop_policy",
    "calibration_plan",
    "_Store",
    "_DEFAULT_LOOP_RECEIPT_LOG",
    "_DEFAULT_PYRAMID_RECEIPT_LOG",
    "_check_store_name",
]

@type_check_only
class _DiminishingReturnsSource(Protocol):
    """Any object with ``detect_diminishing_returns()`` returning
    ``{"detected": bool, "iteration": int | None, "reason": str}`` (or a
    :class:`DiminishingReturnsReport`)."""

    def detect_diminishing_returns(self) -> Mapping[str, object] | DiminishingReturnsReport: ...

# ---------------------------------------------------------------------------------------
# Loop stopping
# ---------------------------------------------------------------------------------------

@final
class EarlyStoppingConfig:
    """The loop-stopping options, immutable: ``early-stopping.mjs``'s seven (with its defaults) and the
    opt-in ones (``None`` when not set, which keeps ``early-stopping.mjs``'s behaviour).

    ``EarlyStoppingConfig(**options)`` merges the options over the defaults;
    ``EarlyStoppingConfig(mapping_or_config, **options)`` merges both, the keywords last.
    """

    def __new__(
        cls,
        config: Mapping[str, object] | EarlyStoppingConfig | None = None,
        /,
        **options: Unpack[EarlyStoppingOptions],
    ) -> EarlyStoppingConfig: ...
    def replace(self, **changes: Unpack[EarlyStoppingOptions]) -> EarlyStoppingConfig:
        """A copy with some options changed (validated like the constructor)."""

    # generated by make generate from core CONFIG_SCHEMA: edit the core
    @property
    def high_confidence_threshold(self) -> float:
        """Confidence at or above which a (verified) record stops the loop; 0..=1, default 0.95."""

    @property
    def plateau_consecutive_count(self) -> int:
        """How many most recent records form a plateau; integer >= 2, default 3."""

    @property
    def plateau_improvement_threshold(self) -> float:
        """Improvement below which a step counts as flat; 0..=1 (0..=100 points in absolute plateau mode), default 0.02."""

    @property
    def min_quality_threshold(self) -> float:
        """Quality a high-confidence stop needs; 0..=100, default 70."""

    @property
    def require_verification(self) -> bool:
        """Whether a high-confidence stop needs a passed verification; default true."""

    @property
    def enable_plateau_detection(self) -> bool:
        """Whether the plateau check runs; default true."""

    @property
    def enable_diminishing_returns(self) -> bool:
        """Whether an attached diminishing-returns source is asked; default true."""

    @property
    def plateau_delta_source(self) -> PlateauDeltaSource | None:
        """Opt-in: where plateau deltas come from, 'reported' (the default) or 'computed'."""

    @property
    def plateau_mode(self) -> PlateauMode | None:
        """Opt-in: 'relative' (the default) or 'absolute' plateau threshold."""

    @property
    def min_iterations(self) -> int | None:
        """Opt-in warm-up: no quality trigger stops while fewer iterations are recorded; >= 1."""

    @property
    def max_iterations(self) -> int | None:
        """Opt-in hard limit: stop once this many iterations are recorded; >= 1."""

    @property
    def max_total_tokens(self) -> float | None:
        """Opt-in budget over the sum of tokens used; finite >= 0."""

    @property
    def max_total_cost_usd(self) -> float | None:
        """Opt-in budget over the sum of token costs in USD; finite >= 0."""

    @property
    def max_wall_clock_ms(self) -> float | None:
        """Opt-in budget over the sum of execution times in ms; finite >= 0."""

    @property
    def regression_tolerance(self) -> float | None:
        """Opt-in regression guard: points below the best that count as a regression; 0..=100."""

    @property
    def regression_patience(self) -> int | None:
        """Iterations a regression must last to stop (needs the tolerance); >= 1, default 2."""

    @property
    def plateau_min_quality(self) -> float | None:
        """Opt-in: the quality every record of a plateau window must reach; 0..=100."""

    @property
    def no_improvement_patience(self) -> int | None:
        """Opt-in give-up rule: records in a row without a new best quality that stop; >= 1."""

    @property
    def strict_iterations(self) -> bool | None:
        """Opt-in resume safety: iteration numbers must increase; a repeated last record is accepted."""

    @property
    def floor_patience(self) -> int | None:
        """Opt-in: the no-improvement patience while the best quality is at or below the floor; >= 1."""

    @property
    def floor_quality(self) -> float | None:
        """The floor of the floor patience (needs it); 0..=100, default 0."""
    # end of generated lines

    @staticmethod
    def from_preset(name: LoopPresetName, /, **overrides: Unpack[EarlyStoppingOptions]) -> EarlyStoppingConfig:
        """A named preset (``"seed"``, the default, or ``"recommended"``) with overrides merged."""

    def to_dict(self) -> EarlyStoppingConfigDict:
        """``getConfig()`` as the JS API returns it (camelCase; opt-in options only when set)."""

    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class IterationRecord:
    """One entry of :attr:`EarlyStopping.history` (``early-stopping.mjs``'s six fields plus the usage given)."""

    @property
    def iteration_number(self) -> int:
        """The iteration number recorded."""

    @property
    def quality_score(self) -> float:
        """0..=100."""

    @property
    def confidence(self) -> float:
        """0..=1."""

    @property
    def verification_status(self) -> VerificationStatus:
        """``"passed"``, ``"failed"`` or ``"skipped"``."""

    @property
    def quality_delta(self) -> float:
        """The caller's reported change from the previous iteration."""

    @property
    def timestamp(self) -> str:
        """RFC 3339, verbatim (the recording time when none was given)."""

    @property
    def tokens_used(self) -> float | None:
        """Tokens the iteration used, if reported."""

    @property
    def token_cost_usd(self) -> float | None:
        """Cost in US dollars, if reported."""

    @property
    def execution_time_ms(self) -> float | None:
        """Wall-clock time in milliseconds, if reported."""

    def to_dict(self) -> IterationRecordDict:
        """The record as ``getIterationHistory()`` lists it."""

    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class StoppingDecision:
    """What :meth:`EarlyStopping.should_stop` answers. ``bool(decision)`` is ``decision.stop``."""

    @property
    def stop(self) -> bool:
        """Whether to stop."""

    @property
    def reason(self) -> str:
        """Why, worded exactly as ``early-stopping.mjs`` words it."""

    @property
    def confidence(self) -> float:
        """Confidence in the decision."""

    @property
    def trigger(self) -> Trigger:
        """Which criterion fired (``"none"`` when the loop goes on)."""

    @property
    def details(self) -> StoppingDetails | None:
        """``early-stopping.mjs``'s ``details`` of a stop as a new dict (keys per trigger); ``None`` when going on."""

    @property
    def best_iteration(self) -> int | None:
        """The best iteration so far (highest quality among verified records reaching the
        quality bar, else highest overall, earliest on ties); ``None`` with no records."""

    @property
    def best_quality_score(self) -> float | None:
        """That iteration's quality."""

    @property
    def budgets(self) -> list[BudgetStatusDict]:
        """Where each configured budget stands (``budget``, ``limit``, ``observed``,
        ``records_without_value``, ``exhausted``); empty when no budget is configured."""
    @property
    def fired(self) -> list[dict[str, object]] | None:
        """Under a stop policy, the conditions that fired (``condition``, ``path``, ``reason``,
        ``details``; empty when it goes on); ``None`` without a policy."""
    @property
    def interventions(self) -> list[dict[str, object]]:
        """Under a policy with behaviour detector conditions, each detection evaluation
        reached, with its intervention (``condition``, ``path``, ``level``, ``stop``,
        ``reason``, ``detection`` and the level's ``action`` / ``warning`` /
        ``strategy_override`` / ``requires_approval`` / ``abort_reason``); empty otherwise."""
    @property
    def would_stop(self) -> dict[str, object] | None:
        """In shadow mode, where the candidate first fired (``iteration``, ``trigger``,
        ``reason``, ``returned_iteration``, ``returned_quality``); ``None`` until it has."""

    def to_dict(self) -> StoppingDecisionDict:
        """The decision as the JS API returns it."""

    def __bool__(self) -> bool: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class StoppingSummary:
    """What :meth:`EarlyStopping.summary` answers (``early-stopping.mjs``'s ``generateSummary()``). On an
    empty history only ``total_iterations`` (0), ``stopped_early`` (False) and ``reason`` are
    set; otherwise ``reason`` is ``None`` and the ``stopping_*`` and ``final_*`` fields are set."""

    @property
    def total_iterations(self) -> int:
        """How many iterations were recorded."""

    @property
    def stopped_early(self) -> bool:
        """Whether the summary's decision says stop."""

    @property
    def reason(self) -> str | None:
        """``"No iterations completed"`` on an empty history, else ``None``."""

    @property
    def stopping_trigger(self) -> Trigger | None:
        """The summary decision's trigger."""

    @property
    def stopping_reason(self) -> str | None:
        """The summary decision's reason."""

    @property
    def stopping_confidence(self) -> float | None:
        """The summary decision's confidence."""

    @property
    def final_quality(self) -> float | None:
        """The last record's quality."""

    @property
    def final_confidence(self) -> float | None:
        """The last record's confidence."""

    @property
    def final_verification(self) -> VerificationStatus | None:
        """The last record's verification status."""

    @property
    def config(self) -> EarlyStoppingConfig | None:
        """The config at the time."""

    @property
    def details(self) -> StoppingDetails | None:
        """The summary decision's details, when it stops."""

    def to_dict(self) -> StoppingSummaryDict:
        """The summary as the JS API returns it (``config`` with camelCase keys)."""

    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class EarlyStopping:
    """``early-stopping.mjs``'s ``EarlyStopping``: should an agent's refinement loop stop?

    ``EarlyStopping(**options, analytics=None)`` (or a mapping / :class:`EarlyStoppingConfig`
    as the first argument). ``analytics`` is an :class:`IterationAnalytics` (asked directly,
    no Python round trip) or any object with ``detect_diminishing_returns()``, whose answer
    the core validates (code ``invalid_analytics``); an exception it raises propagates
    unchanged and leaves the engine as it was. It is asked only when high confidence and the
    plateau did not stop, as in ``early-stopping.mjs``.

    Safe to share between threads; ``len(engine)`` is the number of recorded iterations.
    """

    def __new__(
        cls,
        config: Mapping[str, object] | EarlyStoppingConfig | None = None,
        /,
        *,
        analytics: IterationAnalytics | _DiminishingReturnsSource | None = None,
        policy: Mapping[str, object] | str | None = None,
        shadow: object = None,
        **options: Unpack[EarlyStoppingOptions],
    ) -> EarlyStopping: ...
    @property
    def policy(self) -> dict[str, object] | None:
        """The stop policy decisions are made under (``policy=``, see :mod:`earlyexit.policy`),
        in its JSON form, or ``None``: the config decides."""
    def record(
        self,
        iteration: int,
        quality_score: float,
        confidence: float,
        verification_status: VerificationStatus,
        quality_delta: float | None = None,
        timestamp: str | None = None,
        tokens_used: float | None = None,
        token_cost_usd: float | None = None,
        execution_time_ms: float | None = None,
    ) -> bool:
        """Records one iteration (the fast, positional form of :meth:`record_result`). A
        missing ``quality_delta`` is this score minus the previous record's (0 for the
        first). A missing timestamp is filled with the current time as
        ``new Date().toISOString()`` prints it. Returns ``True`` when the call re-recorded the last iteration with the
        same result under ``strict_iterations`` (accepted, nothing changed), else ``False``."""

    def record_result(self, iteration: int, result: Mapping[str, object] = ...) -> bool:
        """``early-stopping.mjs``'s ``recordIterationResult(iteration, result)``: ``result`` holds
        ``quality_score``, ``confidence``, ``verification_status``, ``quality_delta`` and
        optionally ``timestamp``, ``tokens_used``, ``token_cost_usd``, ``execution_time_ms``,
        ``iteration_number`` (see :class:`~earlyexit.IterationResultDict`). A missing result
        raises ``EarlyExitTypeError`` (code ``invalid_result``), as in JS. Returns ``True``
        when the call re-recorded the last iteration with the same result under
        ``strict_iterations`` (accepted, nothing changed), else ``False``; any other iteration
        that does not follow the last one raises ``EarlyExitError`` (``invalid_iteration``)."""

    def should_stop(self, iteration: int | None = None) -> StoppingDecision:
        """``early-stopping.mjs``'s ``shouldStop()`` (the argument is accepted and ignored, as there).
        A stop sets :attr:`stopping_reason` and :attr:`stopping_details`."""

    def summary(self) -> StoppingSummary:
        """``early-stopping.mjs``'s ``generateSummary()`` (it decides, so it may set the stopping reason)."""

    @property
    def stopping_reason(self) -> str | None:
        """The reason of the last stop (a later non-stop does not clear it, as in ``early-stopping.mjs``)."""

    @property
    def stopping_details(self) -> StoppingDetails | None:
        """The details of the last stop, as a new dict."""

    @property
    def shadow_reason(self) -> str | None:
        """Why the shadow candidate runs in shadow rather than enforced, when the engine put it
        there itself: :meth:`from_calibration` of an artifact not promoted or expired enforces
        its calibration's most conservative policy and shadows the calibrated one. ``None``
        otherwise; kept by :meth:`to_json`."""

    @property
    def history(self) -> tuple[IterationRecord, ...]:
        """Every recorded iteration, oldest first."""

    @property
    def config(self) -> EarlyStoppingConfig:
        """The current config."""

    @property
    def analytics(self) -> IterationAnalytics | _DiminishingReturnsSource | None:
        """The diminishing-returns source given at construction."""

    def configure(
        self,
        options: Mapping[str, object] | EarlyStoppingConfig | None = None,
        /,
        **changes: Unpack[EarlyStoppingOptions],
    ) -> None:
        """``early-stopping.mjs``'s ``configure(options)``: merges options into the config; one bad key
        changes nothing at all."""

    def reset(self) -> None:
        """Clears history and stopping state; keeps the config."""

    def to_json(self) -> str:
        """The portable snapshot (``{"version": 1, "engine": "EarlyStopping", ...}``) as JSON text."""

    @staticmethod
    def from_preset(
        name: LoopPresetName,
        /,
        *,
        analytics: IterationAnalytics | _DiminishingReturnsSource | None = None,
        **overrides: Unpack[EarlyStoppingOptions],
    ) -> EarlyStopping:
        """An engine with a named preset's config (``"seed"`` or ``"recommended"``), overrides merged."""

    @staticmethod
    def from_calibration(
        artifact: LoopCalibration | Mapping[str, object] | str | os.PathLike[str] | os.PathLike[bytes],
        /,
        *,
        analytics: IterationAnalytics | _DiminishingReturnsSource | None = None,
    ) -> EarlyStopping:
        """An engine running a calibrated loop policy (a :class:`LoopCalibration`, its artifact
        dict or JSON text, or the path of a file holding that text as an ``os.PathLike`` such
        as ``pathlib.Path``; a ``str`` is always JSON text): its config, and its condition tree
        as the engine's ``policy`` when the chosen candidate was a composed policy. Only a
        promoted artifact that has not expired enforces its calibrated policy; one not promoted
        (or demoted by a drift check) or expired enforces its calibration's most conservative
        policy and runs the calibrated one in shadow (:attr:`shadow_reason` says why). One of
        another kind raises ``EarlyExitError`` with code ``invalid_artifact``; an uncertified
        one runs and warns :class:`UncertifiedCalibrationWarning`."""

    @staticmethod
    def from_json(
        snapshot: str | bytes | Mapping[str, object],
        *,
        analytics: IterationAnalytics | _DiminishingReturnsSource | None = None,
        policy: Mapping[str, object] | str | None = None,
    ) -> EarlyStopping:
        """Restores a snapshot (text or parsed), validating everything (code
        ``invalid_snapshot``, ``field`` = the path inside the snapshot, ``policy.any[1].patience``
        for its stop policy). The analytics source is not part of a snapshot; give it again.
        The stop policy is the snapshot's when it holds one (a ``policy`` given too must be the
        same, else ``EarlyExitError`` ``invalid_config`` on ``policy``), else ``policy``."""

    def __len__(self) -> int: ...
    def __copy__(self) -> EarlyStopping: ...
    def __reduce__(self) -> tuple[Callable[..., EarlyStopping], tuple[str, str, object]]: ...

# ---------------------------------------------------------------------------------------
# Iteration analytics
# ---------------------------------------------------------------------------------------

@final
class AnalyticsConfig:
    """:class:`IterationAnalytics` options (upstream's ``AnalyticsConfig``), immutable; keyword
    construction merges over the defaults (``storage_path`` ``".aiwg/ralph/analytics"``,
    ``diminishing_returns_threshold`` 0.05, ``consecutive_count_threshold`` 2,
    ``quality_threshold`` 70, ``selection_criteria`` ``"highest_quality_verified"``)."""

    def __new__(
        cls,
        config: Mapping[str, object] | AnalyticsConfig | None = None,
        /,
        **options: Unpack[AnalyticsConfigOptions],
    ) -> AnalyticsConfig: ...
    def replace(self, **changes: Unpack[AnalyticsConfigOptions]) -> AnalyticsConfig:
        """A copy with some options changed."""

    @property
    def storage_path(self) -> str:
        """The folder upstream's form saves into."""

    @property
    def diminishing_returns_threshold(self) -> float:
        """Relative change below which a step counts towards diminishing returns."""

    @property
    def consecutive_count_threshold(self) -> int:
        """Consecutive small steps that make a detection."""

    @property
    def quality_threshold(self) -> float:
        """Quality a record needs to be a candidate for selection."""

    @property
    def selection_criteria(self) -> SelectionCriteria:
        """How :meth:`IterationAnalytics.select_best_iteration` chooses."""

    def to_dict(self) -> AnalyticsConfigDict:
        """The config as the JS API shows it (camelCase)."""

    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class AnalyticsRecord:
    """One analytics record; ``quality_delta`` is this score minus the previous one when it
    was recorded (a record loaded from a saved summary keeps the delta the file gives)."""

    @property
    def iteration_number(self) -> int:
        """The iteration number."""

    @property
    def quality_score(self) -> float:
        """0..=100."""

    @property
    def verification_status(self) -> VerificationStatus:
        """``"passed"``, ``"failed"`` or ``"skipped"``."""

    @property
    def quality_delta(self) -> float:
        """This score minus the previous one when recorded (0 for the first), or as loaded."""

    @property
    def tokens_used(self) -> float | None:
        """Tokens used, if reported."""

    @property
    def token_cost_usd(self) -> float | None:
        """Cost in US dollars, if reported."""

    @property
    def execution_time_ms(self) -> float | None:
        """Time in milliseconds, if reported."""

    @property
    def timestamp(self) -> str:
        """When it was recorded (RFC 3339): the one given, else the clock's."""

    @property
    def output_snapshot_path(self) -> str | None:
        """Where the iteration's output was saved, if given."""

    @property
    def reflections(self) -> tuple[str, ...]:
        """Reflection notes (empty when none were given)."""

    def to_dict(self) -> AnalyticsRecordDict:
        """The record as ``recordIteration()`` returns it (upstream's keys and order)."""

    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class DiminishingReturnsReport:
    """``{detected, iteration, reason}``. ``bool(report)`` is ``report.detected``."""

    @property
    def detected(self) -> bool:
        """Whether diminishing returns were detected (it stays detected)."""

    @property
    def iteration(self) -> int | None:
        """The iteration at which they were detected."""

    @property
    def reason(self) -> str:
        """Why, as the JS API words it."""

    def to_dict(self) -> DiminishingReturnsDict:
        """The report as the JS API returns it."""

    def __bool__(self) -> bool: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class IterationSelection:
    """``{selected, reason}``: what :meth:`IterationAnalytics.select_best_iteration` answers."""

    @property
    def selected(self) -> AnalyticsRecord | None:
        """The chosen record (``None`` with no records)."""

    @property
    def reason(self) -> str:
        """Why it was chosen."""

    def to_dict(self) -> IterationSelectionDict:
        """The selection as the JS API returns it."""

    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class AnalyticsSummary:
    """What :meth:`IterationAnalytics.summary` answers: upstream's ``AnalyticsSummary``
    (iteration numbers, not records, but for ``iterations``; totals over the records that
    report the field, 0 when none does)."""

    @property
    def loop_id(self) -> str | None:
        """upstream's ``loopId`` (``None``: the config-object form)."""

    @property
    def task_description(self) -> str | None:
        """upstream's ``taskDescription``."""

    @property
    def start_time(self) -> str | None:
        """When the analytics started."""

    @property
    def end_time(self) -> str | None:
        """When the first summary was made (or the time given)."""

    @property
    def iterations(self) -> tuple[AnalyticsRecord, ...]:
        """Every record, oldest first."""

    @property
    def total_iterations(self) -> int:
        """How many records."""

    @property
    def optimal_iteration(self) -> int | None:
        """``optimal_iteration(False)``'s iteration number (the best overall)."""

    @property
    def final_iteration(self) -> int:
        """The last record's iteration number (0 with none, as upstream writes it)."""

    @property
    def selected_iteration(self) -> int | None:
        """``select_best_iteration()``'s iteration number."""

    @property
    def selection_reason(self) -> str:
        """``select_best_iteration()``'s reason."""

    @property
    def total_tokens(self) -> float:
        """Sum of ``tokens_used``."""

    @property
    def total_cost_usd(self) -> float:
        """Sum of ``token_cost_usd``."""

    @property
    def total_time_ms(self) -> float:
        """Sum of ``execution_time_ms``."""

    @property
    def diminishing_returns_detected(self) -> bool:
        """``detect_diminishing_returns().detected``."""

    @property
    def diminishing_returns_iteration(self) -> int | None:
        """``detect_diminishing_returns().iteration``."""

    @property
    def quality_trajectory(self) -> Trajectory:
        """``trajectory()``."""

    def to_dict(self) -> AnalyticsSummaryDict:
        """The summary as the JS API returns it (upstream's keys, in its order)."""

    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class IterationAnalytics:
    """The built-in diminishing-returns source, a drop-in for aiwg's
    ``iteration-analytics.mjs``: records quality per iteration, detects diminishing returns,
    classifies the trajectory, picks the best iteration, sums usage, and writes upstream's
    summary file, quality chart and report. Every call per record is O(1) (nothing rescans
    the history). Pass it as ``analytics=`` of :class:`EarlyStopping`; record into both (they
    stay separate objects, as in ``early-stopping.mjs``). Safe to share between threads;
    ``len(analytics)`` is the number of records.

    Two forms: ``IterationAnalytics(**options)`` (or a config mapping first), which never
    writes by itself, and upstream's ``IterationAnalytics(loop_id, task_description,
    config=None, **options)``, which creates ``storage_path`` and saves its summary after
    every record, as upstream does, unless ``persist=False``."""

    @overload
    def __new__(
        cls,
        config: Mapping[str, object] | AnalyticsConfig | None = None,
        /,
        **options: Unpack[IterationAnalyticsOptions],
    ) -> IterationAnalytics: ...
    @overload
    def __new__(
        cls,
        loop_id: str,
        task_description: str,
        config: Mapping[str, object] | AnalyticsConfig | None = None,
        /,
        **options: Unpack[IterationAnalyticsOptions],
    ) -> IterationAnalytics: ...
    @overload
    def __new__(
        cls,
        *,
        loop_id: str,
        task_description: str,
        **options: Unpack[IterationAnalyticsOptions],
    ) -> IterationAnalytics: ...
    def record(
        self,
        iteration_number: int,
        quality_score: float,
        verification_status: VerificationStatus,
        tokens_used: float | None = None,
        token_cost_usd: float | None = None,
        execution_time_ms: float | None = None,
        *,
        output_snapshot_path: str | None = None,
        reflections: Sequence[str] | None = None,
        timestamp: str | None = None,
    ) -> AnalyticsRecord:
        """Records one iteration; returns the stored record (with its computed delta; its
        ``timestamp`` is the one given, else the clock's). Saves the summary when this object
        persists."""

    def record_iteration(self, record: Mapping[str, object]) -> AnalyticsRecord:
        """upstream's ``recordIteration(metrics)``: ``record`` holds ``iteration_number``,
        ``quality_score``, ``verification_status`` and optionally ``tokens_used``,
        ``token_cost_usd``, ``execution_time_ms``, ``output_snapshot_path``, ``reflections``,
        ``timestamp`` and ``quality_delta`` (recomputed, as upstream does)."""

    def detect_diminishing_returns(self) -> DiminishingReturnsReport:
        """``{detected, iteration, reason}``."""

    def trajectory(self) -> Trajectory:
        """``"insufficient_data"`` (< 3 records), ``"improving"``, ``"declining"``,
        ``"stable"`` or ``"fluctuating"``."""

    def optimal_iteration(self, verified_only: bool = ...) -> AnalyticsRecord | None:
        """The highest-quality record reaching the quality threshold (passed ones only when
        ``verified_only``, the default), else the highest overall; ``None`` with no records."""

    def select_best_iteration(self) -> IterationSelection:
        """``{selected, reason}`` under the configured selection criteria."""

    def summary(self) -> AnalyticsSummary:
        """upstream's ``generateSummary()``; the first one sets ``end_time`` (to now, unless
        it was given)."""

    def quality_chart(self) -> str:
        """upstream's ``generateQualityChart()``: the scores as an ASCII chart."""

    def report(self, **options: Unpack[ReportOptions]) -> str:
        """upstream's ``generateReport()``: the markdown report."""

    def save_analytics(self, filename: str | os.PathLike[str] | None = None) -> pathlib.Path:
        """upstream's ``saveAnalytics``: writes the summary (upstream's JSON, byte for byte) to
        ``filename`` or ``<storage_path>/<loop_id>.json``; answers the path."""

    def save_report(self, filename: str | os.PathLike[str] | None = None) -> pathlib.Path:
        """upstream's ``saveReport``: writes the report to ``filename`` or
        ``<storage_path>/<loop_id>-report.md``; answers the path."""

    def export(self) -> dict[str, pathlib.Path]:
        """upstream's ``export()``: both files, ``{"json": path, "markdown": path}``."""

    def ensure_storage_dir(self) -> None:
        """Creates ``storage_path`` (what upstream's constructor does)."""

    @staticmethod
    def load(filepath: str | os.PathLike[str], **config: Unpack[IterationAnalyticsOptions]) -> IterationAnalytics:
        """upstream's ``IterationAnalytics.load``: an analytics object from a saved summary
        file (its folder is the storage path); ``FileNotFoundError`` when it is missing."""

    @staticmethod
    def from_summary(
        summary: str | Mapping[str, object], **config: Unpack[IterationAnalyticsOptions]
    ) -> IterationAnalytics:
        """An analytics object from a saved summary (its JSON text or the parsed mapping)."""

    @staticmethod
    def format_duration(ms: float) -> str:
        """upstream's ``formatDuration(ms)``: ``"1h 2m 3s"``, ``"2m 3s"`` or ``"3s"``."""

    @property
    def records(self) -> tuple[AnalyticsRecord, ...]:
        """Every record, oldest first."""

    @property
    def iterations(self) -> tuple[AnalyticsRecord, ...]:
        """upstream's name for :attr:`records`. upstream's fields are read-only here (an
        assignment raises ``AttributeError``) and answer immutable values (frozen records
        and config, tuples); upstream's JS users write to them, which the JS package honours."""

    @property
    def config(self) -> AnalyticsConfig:
        """The config."""

    @property
    def loop_id(self) -> str | None:
        """upstream's ``loopId`` (``None``: the config-object form)."""

    @property
    def task_description(self) -> str | None:
        """upstream's ``taskDescription``."""

    @property
    def start_time(self) -> str | None:
        """When the analytics started."""

    @property
    def end_time(self) -> str | None:
        """Set by the first summary or report (or given); ``None`` before."""

    @property
    def persist(self) -> bool:
        """Whether the summary is saved after every record."""

    def reset(self) -> None:
        """Clears every record; keeps the config, the names and the times."""

    def to_json(self) -> str:
        """The portable snapshot as JSON text."""

    @staticmethod
    def from_json(snapshot: str | bytes | Mapping[str, object]) -> IterationAnalytics:
        """Restores a snapshot (text or parsed); code ``invalid_snapshot`` when it is wrong. A
        restored object never saves by itself."""

    def __len__(self) -> int: ...
    def __reduce__(self) -> tuple[Callable[..., IterationAnalytics], tuple[str, str, None]]: ...

# ---------------------------------------------------------------------------------------
# Test pyramid
# ---------------------------------------------------------------------------------------

@final
class LayerResult:
    """A test layer's outcome: ``pass_rate``, ``coverage``, ``flaky_ratio`` (each 0..=1) and
    optional ``previous_lambda`` (0..=100), ``name``, ``duration_ms`` and counts
    (``passed + failed <= total``). ``extra`` keys are kept as given, as the original
    controller keeps whatever a runner returns. Runners may return this or a mapping with
    the same snake_case keys."""

    def __new__(
        cls,
        pass_rate: float,
        coverage: float,
        flaky_ratio: float,
        *,
        previous_lambda: float | None = None,
        name: str | None = None,
        duration_ms: float | None = None,
        total: int | None = None,
        passed: int | None = None,
        failed: int | None = None,
        flaky: int | None = None,
        extra: Mapping[str, object] | None = None,
    ) -> LayerResult: ...
    @staticmethod
    def from_dict(data: Mapping[str, object]) -> LayerResult:
        """A layer result from a mapping with snake_case keys (unknown keys are kept as extras)."""

    @property
    def pass_rate(self) -> float:
        """Share of tests passing."""

    @property
    def coverage(self) -> float:
        """Coverage."""

    @property
    def flaky_ratio(self) -> float:
        """Share of flaky tests."""

    @property
    def previous_lambda(self) -> float | None:
        """The previous layer's lambda (stamped by the controller from layer 1 on)."""

    @property
    def name(self) -> str | None:
        """Layer name."""

    @property
    def duration_ms(self) -> float | None:
        """What running the layer cost."""

    @property
    def total(self) -> int | None:
        """Tests run."""

    @property
    def passed(self) -> int | None:
        """Tests passed."""

    @property
    def failed(self) -> int | None:
        """Tests failed."""

    @property
    def flaky(self) -> int | None:
        """Flaky tests."""

    @property
    def extra(self) -> dict[str, object]:
        """The keys the core does not read, as a new dict."""

    def to_dict(self) -> LayerResultDict:
        """The result as the JS API shows it (camelCase, the runner's key order)."""

    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class QualitySignal:
    """The quality signal of one layer. Construct one by hand (keywords only) to ask
    :meth:`CoherenceEarlyExit.should_exit` directly; ``lambda`` is spelled ``lambda_``."""

    def __new__(
        cls,
        *,
        lambda_: float,
        lambda_prev: float,
        boundary_concentration: float,
        boundary_edges: int | None = None,
        partition_count: int | None = None,
        flags: int | None = None,
    ) -> QualitySignal: ...
    @property
    def lambda_(self) -> float:
        """min(pass rate, coverage, 1 - flaky ratio) in percent."""

    @property
    def lambda_prev(self) -> float:
        """The previous layer's lambda (``previous_lambda or lambda``, as the original has it)."""

    @property
    def boundary_edges(self) -> int:
        """How many of the three lambdas lie within 60..=80."""

    @property
    def boundary_concentration(self) -> float:
        """Mean of the shortfalls above 0.1."""

    @property
    def partition_count(self) -> int:
        """(pass rate < 0.9) + (coverage < 0.7) + (flaky ratio > 0.05)."""

    @property
    def flags(self) -> int:
        """Always 0 (as in the original)."""

    def to_dict(self) -> QualitySignalDict:
        """The signal as the JS API returns it (camelCase)."""

    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

def calculate_quality_signal(layer_result: LayerResult | Mapping[str, object]) -> QualitySignal:
    """``calculateQualitySignal``, bit-identical to the JS reference. Code
    ``invalid_layer_result`` for a bad result."""

def read_junit(
    source: str | bytes | os.PathLike[str], coverage_xml: str | bytes | os.PathLike[str] | None = None
) -> LayerResult:
    """A JUnit / xUnit XML report read into a ``LayerResult`` with the command's rules and
    limits (``str``: XML text; ``bytes``: UTF-8; ``os.PathLike``: a file); ``coverage_xml``
    is a Cobertura file giving ``coverage`` (else 1). Code ``invalid_layer_result`` naming
    ``source`` or ``coverage_xml`` for a report the reader refuses."""

def count_quality_partitions(layer_result: LayerResult | Mapping[str, object]) -> int:
    """``countQualityPartitions`` (0..3: pass rate < 0.9, coverage < 0.7, flaky
    ratio > 0.05; the signal's ``partition_count``). Code ``invalid_layer_result`` for a bad
    result."""

@final
class EarlyExitConfig:
    """``EarlyExitConfig``, immutable. ``EarlyExitConfig(**options)`` merges over
    :attr:`DEFAULT`; ``EarlyExitConfig(EarlyExitConfig.AGGRESSIVE, verification_layers=2)``
    over a preset; :meth:`replace` over this one."""

    DEFAULT: ClassVar[EarlyExitConfig]
    """``DEFAULT_EXIT_CONFIG``: exit layer 1, lambda >= 80, stability >= 0.85, ..."""
    AGGRESSIVE: ClassVar[EarlyExitConfig]
    """``AGGRESSIVE_EXIT_CONFIG``: exit layer 0, lambda >= 60, ..."""
    CONSERVATIVE: ClassVar[EarlyExitConfig]
    """``CONSERVATIVE_EXIT_CONFIG``: exit layer 2, lambda >= 95, fixed exit layer, ..."""

    def __new__(
        cls,
        config: Mapping[str, object] | EarlyExitConfig | None = None,
        /,
        **options: Unpack[ExitOptions],
    ) -> EarlyExitConfig: ...
    def replace(self, **changes: Unpack[ExitOptions]) -> EarlyExitConfig:
        """A copy with some options changed."""

    @property
    def exit_layer(self) -> int:
        """The earliest layer an exit is considered at (fixed, or the adaptive base)."""

    @property
    def min_lambda_for_exit(self) -> float:
        """Lambda an exit needs (0..=100)."""

    @property
    def min_lambda_stability(self) -> float:
        """Stability an exit needs (0..=1)."""

    @property
    def max_boundary_concentration(self) -> float:
        """Boundary concentration above which no exit happens (0..=1)."""

    @property
    def speculative_tests(self) -> int:
        """Speculation is on when > 0."""

    @property
    def verification_layers(self) -> int:
        """How many skipped layers verification runs."""

    @property
    def adaptive_exit_layer(self) -> bool:
        """Whether the exit layer adapts to the signal's stability."""

    @property
    def min_confidence(self) -> float:
        """Confidence an exit needs (0..=1)."""

    def to_dict(self) -> ExitConfigDict:
        """The config as the JS API shows it (camelCase)."""

    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class ExitDecision:
    """``EarlyExitDecision``. ``bool(decision)`` is ``decision.can_exit``."""

    @property
    def can_exit(self) -> bool:
        """Whether the remaining layers may be skipped."""

    @property
    def confidence(self) -> float:
        """Confidence of the decision."""

    @property
    def exit_layer(self) -> int:
        """The target exit layer (forced continue) or this layer."""

    @property
    def reason(self) -> ExitReason:
        """Why."""

    @property
    def enable_speculation(self) -> bool:
        """Whether skipped layers get predictions."""

    @property
    def explanation(self) -> str:
        """A sentence, worded exactly as the original words it."""

    def to_dict(self) -> ExitDecisionDict:
        """The decision as the JS API returns it (camelCase)."""

    def __bool__(self) -> bool: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class CoherenceEarlyExit:
    """``CoherenceEarlyExit(config, total_layers)``: may the pyramid stop after
    this layer? ``config``: an :class:`EarlyExitConfig`, a mapping merged over the default,
    or ``None``; ``total_layers`` >= 1 (it only bounds the adaptive exit layer)."""

    def __new__(
        cls, config: EarlyExitConfig | Mapping[str, object] | None, total_layers: int
    ) -> CoherenceEarlyExit: ...
    def should_exit(self, signal: QualitySignal | Mapping[str, object], layer: int) -> ExitDecision:
        """``shouldExit(signal, layer)``; a mapping signal has the snake_case keys
        (``lambda``, ``lambda_prev``, ``boundary_concentration``, ...). Code ``invalid_signal``."""

    def adaptive_exit_layer(self, signal: QualitySignal | Mapping[str, object]) -> int:
        """``calculateAdaptiveExitLayer(signal)``."""

    @property
    def config(self) -> EarlyExitConfig:
        """The merged config."""

    @property
    def total_layers(self) -> int:
        """``total_layers``."""

@final
class Speculation:
    """One prediction for a skipped layer, and what verification found if it ran."""

    @property
    def predicted(self) -> Outcome:
        """The predicted outcome."""

    @property
    def confidence(self) -> float:
        """Confidence in the prediction."""

    @property
    def verified(self) -> bool:
        """Whether verification ran this layer."""

    @property
    def actual(self) -> Outcome | None:
        """The observed outcome, once verified."""

    @property
    def correct(self) -> bool | None:
        """``predicted == actual``, once verified."""

    @property
    def layer(self) -> int | None:
        """In a run's result: the index of the skipped layer the prediction is about."""

    @property
    def name(self) -> str | None:
        """In a run's result: that layer's name."""

    def to_dict(self) -> SpeculationDict:
        """The speculation as the JS API returns it."""

    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class SpeculativeExecutor:
    """``SpeculativeExecutor(config)``."""

    def __new__(cls, config: EarlyExitConfig | Mapping[str, object] | None = None) -> SpeculativeExecutor: ...
    def speculate(
        self, decision: ExitDecision | Mapping[str, object], skipped: Sequence[object] | int
    ) -> tuple[Speculation, ...]:
        """One prediction per skipped layer (>= 0.85 pass, >= 0.7 flaky, else fail with
        1 - confidence); only ``decision.confidence`` and the number of skipped layers are read."""

    def verify(
        self,
        speculations: Iterable[Speculation | Mapping[str, object]],
        layers: Iterable[object],
    ) -> tuple[Speculation, ...]:
        """Runs the first ``verification_layers`` of the skipped ``layers`` (each
        ``(name, runner)``, a mapping with ``run``, or an object with ``run()``) and records
        each outcome (pass rate >= 0.99 pass, flaky ratio > 0.1 flaky, else fail); the other
        predictions are returned unchanged. A runner's exception propagates unchanged."""

    @property
    def config(self) -> EarlyExitConfig:
        """The merged config."""

@final
class TestPyramidResult:
    """``TestPyramidResult`` plus the honest-accounting fields."""

    __test__: ClassVar[bool]
    """False: not a test class for pytest."""

    @property
    def layers(self) -> tuple[LayerResult, ...]:
        """The results of the layers run before the exit (copies; ``previous_lambda`` stamped)."""

    @property
    def exited_early(self) -> bool:
        """Whether the run exited early."""

    @property
    def exit_layer(self) -> int:
        """The exit layer (the last layer when no exit; -1 for no layers)."""

    @property
    def exit_reason(self) -> ExitReason:
        """The exit decision's reason (``"forced_continue"`` when no exit)."""

    @property
    def confidence(self) -> float:
        """The exit decision's confidence (1.0 when no exit)."""

    @property
    def speculations(self) -> tuple[Speculation, ...]:
        """One prediction per skipped layer when speculation ran."""

    @property
    def skipped_layers(self) -> int:
        """Layers after the exit, including those verification then ran."""

    @property
    def layers_executed(self) -> tuple[int, ...]:
        """Indices actually run, in run order, verification included."""

    @property
    def verified_layers(self) -> int:
        """How many predictions verification checked."""

    @property
    def mispredictions(self) -> int:
        """How many verified predictions were wrong."""

    @property
    def compute_saved_ms(self) -> float | None:
        """Summed ``cost_ms`` of the layers never run (``None`` when one of them has none)."""

    @property
    def verdict(self) -> Verdict:
        """``"failed"`` (a layer that ran or was verified is failing: ``pass_rate < 1``),
        ``"passed"`` (every layer ran or was verified, none failing) or ``"unverified"`` (no
        failure seen, but some layers were skipped without running)."""

    @property
    def failing_layers(self) -> tuple[FailingLayer, ...]:
        """The failing layers that ran or were verified, in the order they ran."""

    @property
    def layers_before_exit(self) -> tuple[int, ...]:
        """Indices run before the exit decision (every layer run when there was no exit)."""

    @property
    def layers_verified(self) -> tuple[int, ...]:
        """Indices of skipped layers that verification ran, in order."""

    @property
    def layers_not_run(self) -> tuple[int, ...]:
        """Indices of the layers never run, ascending (what ``compute_saved_ms`` sums)."""

    @property
    def note(self) -> str | None:
        """Why an early exit saved nothing (verification ran every skipped layer); ``None``
        otherwise."""

    @property
    def policy(self) -> PolicyReportDict | None:
        """Why a ``fail_fast`` / ``risk_bounded`` run did what it did (the bound, the budget
        in ``config["risk_budget"]``, the model's counts; docs/test-exit.md); ``None`` for the
        ADR's runs."""

    @property
    def shadow(self) -> dict[str, Any] | None:
        """A shadow-mode run's ``{receipts, labels, computeSavedMs}`` (receipts keep their
        camelCase keys, which their hashes are over); ``None`` in enforced mode."""

    def to_dict(self) -> TestPyramidResultDict:
        """The result as the JS API returns it (camelCase keys)."""

    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

_Action = TypeVar("_Action", bound=ActionKind, default=ActionKind, covariant=True)
_Layer = TypeVar("_Layer", bound=Union[int, None], default=Union[int, None], covariant=True)

@final
class FailingLayer:
    """A failing layer of a pyramid run (:attr:`TestPyramidResult.failing_layers`)."""

    @property
    def layer(self) -> int:
        """The layer's index in the pyramid."""

    @property
    def name(self) -> str:
        """The layer's name."""

    def to_dict(self) -> FailingLayerDict:
        """``{"layer": index, "name": name}``."""

    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class PyramidAction(Generic[_Action, _Layer]):
    """What :meth:`PyramidRun.next` asks for. Generic for type checkers only:
    :meth:`PyramidRun.next` returns ``PyramidAction[Literal["run", "verify"], int]`` or
    ``PyramidAction[Literal["done"], None]``, so testing ``action`` narrows ``layer``
    (plain ``PyramidAction`` is ``PyramidAction[ActionKind, int | None]``)."""

    @property
    def action(self) -> _Action:
        """``"run"``, ``"verify"`` or ``"done"``."""

    @property
    def layer(self) -> _Layer:
        """The layer index to run or verify; ``None`` when done."""

    def to_dict(self) -> PyramidActionDict:
        """``{"action": ..., "layer": ...}`` as the JS API returns it."""

    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class PyramidRun:
    """One pyramid run driven step by step (the core's sans-IO state machine), for callers
    that run layers themselves (a dashboard, CI stages in separate jobs):
    ``next()`` says what to do, ``submit(layer, result)`` feeds the outcome, ``result()``
    assembles the :class:`TestPyramidResult`. Safe to share between threads."""

    @staticmethod
    def start(
        config: EarlyExitConfig | Mapping[str, object] | None,
        total_layers: int,
        layers: Iterable[object],
        *,
        policy: RunPolicy | Mapping[str, object] | str | None = None,
        mode: RunMode | None = None,
        model: OutcomeModel | Mapping[str, object] | str | None = None,
        policy_config: Mapping[str, object] | None = None,
        run_id: str | None = None,
        label: str | None = None,
        now: int | str | _datetime.datetime | None = None,
    ) -> PyramidRun:
        """``layers`` lists each layer as ``(name, runner)``, a mapping with ``name`` and
        optional ``cost_ms``, or an object with those attributes (runners are not called).
        ``policy`` ``'fail_fast'`` / ``'risk_bounded'`` lets the policy decide (its ``model``
        and a partial ``policy_config``; docs/test-exit.md); ``None`` keywords: the defaults
        (the ADR, enforced). ``label`` slices the run (its receipt's ``runLabel``); ``now``
        is when an artifact policy's expiry is checked (the clock when ``None``)."""

    def next(self) -> PyramidAction[Literal["run", "verify"], int] | PyramidAction[Literal["done"], None]:
        """What to do next (does not advance anything); ``step.action != "done"`` narrows
        ``step.layer`` to ``int``."""

    def submit(self, layer: int, result: LayerResult | Mapping[str, object]) -> ExitDecision | None:
        """Feeds the pending layer's result (code ``invalid_step`` for any other layer);
        returns the exit decision for a run layer, ``None`` for a verified one."""

    def result(self) -> TestPyramidResult:
        """The assembled result (code ``invalid_step`` before the run is done)."""

    @property
    def is_done(self) -> bool:
        """Whether the run is finished."""

    def to_json(self) -> str:
        """The portable snapshot (the run's inputs, replayed on restore) as JSON text."""

    @staticmethod
    def from_json(snapshot: str | bytes | Mapping[str, object]) -> PyramidRun:
        """Restores a snapshot (text or parsed); code ``invalid_snapshot`` when it is wrong."""

    def __reduce__(self) -> tuple[Callable[..., PyramidRun], tuple[str, str, None]]: ...

def _conversion_visits(obj: object, /) -> int:
    """Test hook: the values converting ``obj`` visits (at most ``LIMITS["values"] + 1``)."""

def _layer_runners(layers: Iterable[object]) -> list[Callable[[], object]]:
    """The runner of each layer, in order (code ``invalid_config``, field
    ``layers[i].run`` when one is not callable)."""

def _restore(
    engine: str, snapshot: str | Mapping[str, object], analytics: object = None
) -> EarlyStopping | IterationAnalytics | PyramidRun:
    """Restores a pickled engine from its snapshot."""

def _restore_loop_policy(
    snapshot: str | Mapping[str, object], analytics: object, policy: str | Mapping[str, object]
) -> EarlyStopping:
    """Restores a pickled ``EarlyStopping`` that decided under a stop policy."""

def _restore_signal(data: Mapping[str, object]) -> QualitySignal:
    """Restores a pickled :class:`QualitySignal`."""

def _run_options(
    *,
    policy: RunPolicy | None = None,
    mode: RunMode | None = None,
    model: OutcomeModel | Mapping[str, object] | str | None = None,
    policy_config: Mapping[str, object] | None = None,
    run_id: str | None = None,
    label: str | None = None,
    now: int | str | _datetime.datetime | None = None,
) -> dict[str, object] | None:
    """Checks a live run's policy keywords: the options normalized, or ``None`` when they
    leave the ADR deciding."""

def _restore_result(class_name: str, value: Mapping[str, object], /) -> object:
    """Restores a pickled result (``StoppingDecision``, ``TestPyramidResult``, ...) from its
    snake_case dict; a tampered dict raises ``EarlyExitError`` naming the field."""

# ---- Pyramid replay and the risk-bounded policy (batch; plain dicts, snake_case keys;
# ---- the model document keeps the JS spelling so it moves between languages) ----


def replay_pyramids(
    runs: str | Sequence[Mapping[str, object]],
    *,
    policy: PyramidPolicyName | None = None,
    config: Mapping[str, object] | None = None,
    model: OutcomeModel | str | Mapping[str, object] | None = None,
    learn: LearnMode | None = None,
) -> dict[str, object]:
    """Replays a pyramid policy over recorded runs (a list of run dicts or JSONL text):
    ``{policy, runs, summary, model}``. Code ``invalid_replay`` naming the path
    (``runs[3].layers[1].duration_ms``) for malformed runs."""

def shadow_pyramids(
    runs: str | Sequence[Mapping[str, object]],
    *,
    policy: Literal["fail_fast", "risk_bounded"] | None = None,
    config: Mapping[str, object] | None = None,
    model: OutcomeModel | str | Mapping[str, object] | None = None,
) -> dict[str, object]:
    """Shadow mode over fully recorded runs: what the policy would have run and missed;
    the model learns every full run."""

def verify_receipts(jsonl_text: str) -> dict[str, Any]:
    """Recomputes a JSONL receipt log's hash chain (SHA-256 over RFC 8785 canonical JSON):
    ``{valid, receipts, repeated, head, brokenAt, labels, rates, slices, labelSlices}``
    (``receipts`` counts each run once; ``repeated``, the lines that repeat an earlier
    receipt); nothing from ``brokenAt["line"]`` on is trusted. Code ``invalid_receipt`` when
    the argument is not text."""

def append_receipts(log: str | None, receipts: Sequence[Mapping[str, object]]) -> str:
    """The JSONL lines that append ``receipts`` (a shadow-mode result's
    ``shadow["receipts"]``) to the log ``log`` (its text; ``""`` or ``None`` for a new
    one), each chained to the one before; ``""`` when there is nothing to append. A log
    that does not verify is refused (``invalid_receipt``); a receipt whose run (``kind``,
    ``policy``, ``runId``) is already in the log is left out when equal and refused
    (``receipts[i].runId``) when it differs."""

def check_pyramid_drift(
    artifact: Mapping[str, object] | str, runs: str | Sequence[Mapping[str, object]], now: object = None
) -> dict[str, Any]:
    """Whether a calibration artifact still holds for recent runs: ``{status: 'fresh' |
    'expired' | 'drifted', fresh, reasons, ...}``; ``now`` (ms, RFC 3339 text or a
    ``datetime``) defaults to the host clock."""

def promote_pyramid_policy(
    artifact: Mapping[str, object] | str, audit_runs: str | Sequence[Mapping[str, object]], now: object = None
) -> dict[str, Any]:
    """Promotes an artifact on audit runs disjoint from its calibration corpus (exact
    Clopper-Pearson bound of the false-pass rate at the artifact's delta):
    ``{promoted, reason, audit, artifact}``."""

def check_loop_drift(artifact: object, runs: str | Sequence[Mapping[str, object]], now: object = None) -> dict[str, Any]:
    """Whether a loop calibration artifact (a ``LoopCalibration``, its artifact dict or JSON
    text) still holds for recent runs: ``{status: 'fresh' | 'expired' | 'drifted', fresh,
    reasons, artifact, ...}``; ``artifact`` is demoted unless fresh."""

def promote_loop_policy(
    artifact: object, audit_runs: str | Sequence[Mapping[str, object]], now: object = None
) -> dict[str, Any]:
    """Promotes a loop artifact on audit runs that share no task with its calibration (exact
    Clopper-Pearson bound of the premature-stop rate at the artifact's delta):
    ``{promoted, reason, audit, artifact}``."""

def calibrate_pyramid_policy(
    runs: str | Sequence[Mapping[str, object]],
    risk: float,
    delta: float,
    *,
    policy: Literal["fail_fast", "risk_bounded"] | None = None,
    config: Mapping[str, object] | None = None,
    model: OutcomeModel | str | Mapping[str, object] | None = None,
    grid: Sequence[float] | None = None,
    warmup: float | None = None,
    created_at: str | None = None,
    expires_at: str | None = None,
) -> dict[str, object]:
    """Learn-then-Test calibration: the most aggressive certified ``risk_budget``, the
    config, the tested steps and the trained model, then the artifact's keys (the package's
    ``calibrate_pyramid_policy`` wraps it in a ``CalibrationArtifact`` with ``to_json()``)."""

def pyramid_policy_decide(
    model: OutcomeModel | str | Mapping[str, object] | None,
    layers: Sequence[Mapping[str, object]],
    outcomes: Sequence[Mapping[str, object]],
    *,
    policy: Literal["fail_fast", "risk_bounded"] | None = None,
    config: Mapping[str, object] | None = None,
) -> dict[str, object]:
    """The next step: ``{action: "run", layer, risk}`` or ``{action: "stop", reason, risk}``."""

def pyramid_policy_update(
    model: OutcomeModel | str | Mapping[str, object] | None,
    ran: Sequence[Mapping[str, object]],
    *,
    policy: Literal["fail_fast", "risk_bounded"] | None = None,
    config: Mapping[str, object] | None = None,
    build: Mapping[str, object] | None = None,
) -> dict[str, object]:
    """Learns one finished run (``ran`` in run order); returns the new model document:
    version 1, or version 2 with ``build={"id": ..., "seq": ...}`` (the build's key; a
    version 1 model is converted first)."""

@final
class OutcomeModel:
    """The outcome model that merges (document version 2): a window of per-build outcomes
    keyed by the caller's build id and sequence number. Immutable: :meth:`learn` and
    :meth:`merge` answer a new model. Accepted wherever ``model=`` is."""

    def __new__(
        cls, model: OutcomeModel | str | Mapping[str, object] | None = None, *, window: int | None = None
    ) -> OutcomeModel:
        """A new empty model, or ``model`` read (a version 1 one converted: its counts become
        the base, with a note); ``window`` (1 to 100,000 builds) only for a new or converted one."""

    @property
    def window(self) -> int:
        """The most builds it keeps (those of highest key)."""

    @property
    def note(self) -> str | None:
        """Why it has a base (it was converted from a version 1 model), or ``None``."""

    @property
    def base(self) -> dict[str, object] | None:
        """The version 1 counts it was converted from (``None`` when it has no base)."""

    def merge(self, other: OutcomeModel | str | Mapping[str, object]) -> OutcomeModel:
        """The union of both models' builds: commutative, associative and idempotent."""

    def learn(self, ran: Sequence[Mapping[str, object]], *, build_id: str, seq: int) -> OutcomeModel:
        """Learns one build (``ran``: the layers that ran, in run order) under its key."""

    def statistics(self, config: Mapping[str, object] | None = None) -> dict[str, object]:
        """The version 1 statistics the policy decides from."""

    def to_dict(self) -> dict[str, object]:
        """The version 2 document (JS spelling, the same in every language)."""

    def to_json(self) -> str:
        """The document as JSON text."""

    @staticmethod
    def from_json(text: str | Mapping[str, object] | OutcomeModel) -> OutcomeModel:
        """Reads ``to_json()`` text (or any model argument)."""

    def __len__(self) -> int:
        """How many builds it holds."""

    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]
    def __reduce__(self) -> tuple[type[OutcomeModel], tuple[dict[str, object]]]: ...
# ---------------------------------------------------------------------------------------
# Loop replay (docs/replay.md)
# ---------------------------------------------------------------------------------------

#: The named loop presets (each one a valid ``from_preset`` name).
LOOP_PRESETS: list[LoopPresetName]

#: The size limits (docs/limits.md): ``value_depth``, ``document_depth``, ``values``,
#: ``object_keys``, ``string_bytes``, ``document_bytes``, ``layers``.
LIMITS: dict[str, int]

@final
class LoopReplay:
    """What :func:`replay_loops` returns; ``to_dict()`` is the JS ``replayLoops`` answer."""

    @property
    def policy(self) -> dict[str, object]:
        """``{config, returns, analytics}``: the replayed policy (config keys snake_case)."""

    @property
    def summary(self) -> ReplaySummaryDict:
        """The aggregates over all runs."""

    @property
    def runs(self) -> list[ReplayRunOutcomeDict]:
        """One dict per run, in input order."""

    def to_dict(self) -> dict[str, object]:
        """``{policy, summary, runs}``."""

    def __reduce__(self) -> tuple[Callable[[str], LoopReplay], tuple[str]]: ...
    def __len__(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

def _restore_loop_replay(text: str) -> LoopReplay: ...

def output_fingerprint(output: object) -> str | None:
    """SHA-256 (hex) of an output: ``str`` as UTF-8, ``bytes`` as they are, a JSON value as
    its RFC 8785 canonical JSON; ``None`` for anything else."""

@final
class _Loop:
    """The core's refine loop over Python outputs (the package's ``Loop`` wraps it)."""

    def __new__(cls, policy: object, options: dict[str, object], shadow: object = None) -> _Loop: ...
    @staticmethod
    def from_artifact(artifact: object, options: dict[str, object], shadow: object = None) -> _Loop: ...
    def receipt(self, id: str) -> dict[str, Any] | None: ...
    @property
    def shadow_reason(self) -> str | None: ...
    def step(
        self,
        output: object,
        quality: object,
        confidence: object,
        verified: object,
        done: object,
        good: object,
        tokens: object,
        cost_usd: object,
        time_ms: object,
        error: object,
        files: object,
        fingerprint: object,
        /,
    ) -> StoppingDecision: ...
    def step_fields(self, output: object, quality: object, fingerprint: object, /) -> tuple[bool, str, str, Any]: ...
    def step_update(self, output: object, quality: object, records: list[Any], iteration: object, /) -> dict[str, Any]: ...
    def step_usage(self, output: object, quality: object, tokens: object, error: object, /) -> StoppingDecision: ...
    @property
    def scale(self) -> float: ...
    @property
    def run_label(self) -> str | None: ...
    @property
    def best(self) -> tuple[int, Any, float] | None: ...
    @property
    def last(self) -> tuple[int, Any, float] | None: ...
    @property
    def completed(self) -> tuple[int, Any, float] | None: ...
    @property
    def output(self) -> tuple[int, Any, float] | None: ...
    @property
    def decision(self) -> StoppingDecision | None: ...
    @property
    def history(self) -> tuple[IterationRecord, ...]: ...
    def run(self, id: str) -> dict[str, Any]: ...
    def finish(self, good: bool | None, id: str) -> dict[str, Any]: ...
    def to_json(self, outputs: bool) -> str: ...
    @staticmethod
    def from_json(text: str, outputs: dict[str, Any] | None = None) -> _Loop: ...

def replay_loops(
    runs: Sequence[Mapping[str, object]] | str | bytes,
    policy: LoopPresetName | LoopPolicyDict | Mapping[str, object] | None = None,
    /,
    *,
    preset: LoopPresetName | None = None,
    config: EarlyStoppingOptions | Mapping[str, object] | EarlyStoppingConfig | None = None,
    returns: ReturnPolicy | None = None,
    analytics: bool | Mapping[str, object] | None = None,
) -> LoopReplay:
    """Replays a loop policy over recorded runs (run dicts or JSONL text) in one call.
    Bad input raises :class:`~earlyexit.EarlyExitError` / ``EarlyExitTypeError`` with code
    ``invalid_replay`` and the path (``runs[3].iterations[2].quality_score``)."""

@final
class LoopCalibration:
    """What :func:`calibrate_loop_policy` returns: the calibration artifact and its parts."""

    @property
    def policy(self) -> dict[str, object]:
        """The chosen policy ``{config, returns, analytics}`` (config keys snake_case); taken by
        :func:`replay_loops` and :meth:`EarlyStopping.from_calibration`."""

    @property
    def certified(self) -> bool:
        """Whether the chosen policy's premature-stop rate is certified."""

    @property
    def status(self) -> Literal["certified", "not_certified", "too_few_runs"]: ...
    @property
    def message(self) -> str:
        """The conclusion in words (why nothing is certified, when nothing is)."""

    @property
    def frontier(self) -> list[dict[str, object]]:
        """Every candidate of the path: policy, iterations used, quality gap, premature rate, p-value."""

    @property
    def warnings(self) -> list[str]: ...
    @property
    def artifact(self) -> dict[str, object]:
        """The portable calibration artifact (kind ``loop``; camelCase keys, as every binding writes it)."""

    def to_dict(self) -> dict[str, object]: ...
    def to_json(self) -> str:
        """The artifact as JSON text."""

    def __reduce__(self) -> tuple[Callable[[str], LoopCalibration], tuple[str]]: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

def _restore_loop_calibration(text: str) -> LoopCalibration: ...

def calibration_plan(risk: float | None = None, delta: float | None = None) -> dict[str, Any]:
    """How many tasks a loop calibration needs to certify ``risk`` (default 0.025) at
    ``delta`` (default 0.1), before any run is recorded: ``{"risk", "delta",
    "minimum_to_certify", "tasks_needed": [{"premature_stops", "tasks"}, ...]}`` for 0 to 3
    premature stops (91, 155, 212 and 266 tasks at the defaults;
    ``minimum_to_certify`` is an artifact's ``minimumToCertify``). A risk or delta outside
    0 < x < 1, or a risk no count up to 2**53 certifies, raises ``EarlyExitError``
    (``invalid_config``) naming it."""

def calibrate_loop_policy(
    runs: Sequence[Mapping[str, object]] | str | bytes,
    risk: float | Mapping[str, object] | None = None,
    delta: float | None = None,
    options: Mapping[str, object] | None = None,
    *,
    steps: int | None = None,
    candidates: Sequence[LoopPresetName | LoopPolicyDict | Mapping[str, object]] | None = None,
    valid_days: int | None = None,
) -> LoopCalibration:
    """Calibrates a loop policy on recorded runs of one task family (Learn-then-Test): the
    cheapest policy on the family's path whose premature-stop rate is at most ``risk``
    (default 0.025) with probability at least ``1 - delta`` (default 0.1)."""

# ---------------------------------------------------------------------------------------
# Behaviour detectors and graded interventions (docs/behavior.md): upstream's
# behavior-detector.mjs and intervention-system.mjs
# ---------------------------------------------------------------------------------------

@final
class BehaviorThresholds:
    """A detector's thresholds, upstream's five groups, each a dict of the fields it has (a
    group given in part lacks the others, which switches their rule off)."""

    @property
    def stuck(self) -> dict[str, int]:
        """``same_error_count`` (3), ``no_progress_iterations`` (5: the window; absent: the whole history)."""

    @property
    def oscillation(self) -> dict[str, float]:
        """``undo_redo_cycles`` (2), ``file_churn_threshold`` (0.8)."""

    @property
    def deviation(self) -> dict[str, float]:
        """``objective_similarity`` (0.5), ``scope_creep_ratio`` (1.5, read by no rule)."""

    @property
    def resource(self) -> dict[str, float]:
        """``cost_multiplier`` (2, read by no rule), ``iteration_multiplier`` (2)."""

    @property
    def regression(self) -> dict[str, float | bool]:
        """``test_pass_to_fail`` (True, read by no rule), ``coverage_drop_percent`` (10)."""

    def to_dict(self) -> dict[str, dict[str, float | bool]]:
        """upstream's ``getThresholds()`` (camelCase keys)."""

    def __reduce__(self) -> tuple[object, tuple[str, dict[str, object]]]: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

THRESHOLDS: BehaviorThresholds
"""upstream's ``THRESHOLDS``."""

INTERVENTION_LEVELS: dict[str, InterventionLevel]
"""upstream's ``INTERVENTION_LEVELS``: ``{"LOG": "log", "WARN": "warn", ...}``."""

@final
class Detection:
    """What a detector found; ``to_dict()`` is upstream's ``Detection``."""

    @property
    def type(self) -> str:
        """A detector's: ``"stuck"``, ``"oscillation"``, ``"deviation"``, ``"resource_burn"`` or
        ``"regression"`` (a :data:`DetectionType`); one given by hand may carry any text."""

    @property
    def severity(self) -> str | None:
        """A detector's: ``"medium"``, ``"high"`` or ``"critical"`` (a :data:`Severity`; ``"low"``
        only by hand); one given by hand may carry any text or none (then it is logged)."""

    @property
    def message(self) -> str | None:
        """upstream's sentence (every detector writes one; by hand it may be left out)."""

    @property
    def evidence(self) -> dict[str, object] | None:
        """The supporting data (snake_case keys here; ``to_dict()`` has upstream's)."""

    @property
    def recommendations(self) -> tuple[str, ...] | None:
        """Suggested actions."""

    def to_dict(self) -> DetectionDict:
        """upstream's object."""

    def __reduce__(self) -> tuple[object, tuple[str, dict[str, object]]]: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class BehaviorDetector:
    """upstream's ``BehaviorDetector``: five detectors over a loop's history (a list of
    upstream's iteration dicts: ``number``, ``analysis``, ``context``; other keys ignored)."""

    def __new__(
        cls,
        thresholds: ThresholdsOptions | Mapping[str, object] | BehaviorThresholds | None = None,
        **options: object,
    ) -> BehaviorDetector:
        """Groups of ``thresholds`` replace upstream's whole groups."""

    @property
    def thresholds(self) -> BehaviorThresholds: ...
    def update_thresholds(
        self, thresholds: ThresholdsOptions | Mapping[str, object] | BehaviorThresholds | None = None
    ) -> None:
        """Groups given replace this detector's whole groups (nothing changes on an error)."""

    def detect(self, history: History | None) -> list[Detection]:
        """Every detector's detection, in upstream's order."""

    def detect_stuck(self, history: History | None) -> Detection | None: ...
    def detect_oscillation(self, history: History | None) -> Detection | None: ...
    def detect_deviation(self, history: History | None) -> Detection | None: ...
    def detect_resource_burn(self, history: History | None) -> Detection | None: ...
    def detect_regression(self, history: History | None) -> Detection | None: ...
    def __reduce__(self) -> tuple[type[BehaviorDetector], tuple[dict[str, object]]]: ...

@final
class Intervention:
    """One log entry: an intervention at ``level`` (with its detection and the level's own
    field) or a resumption (``level == "resume"``); ``to_dict()`` is upstream's object."""

    @property
    def level(self) -> LogLevel: ...
    @property
    def reason(self) -> str | None:
        """The detection's message (a resumption's approval reason, if given)."""

    @property
    def detection(self) -> Detection | None:
        """The detection intervened on (``None`` for a resumption)."""

    @property
    def timestamp(self) -> str:
        """When (RFC 3339)."""

    @property
    def action(self) -> str | None:
        """``log``: what was done."""

    @property
    def warning(self) -> str | None:
        """``warn``: the warning to inject into the next prompt."""

    @property
    def strategy_override(self) -> str | None:
        """``redirect``: the strategy to force."""

    @property
    def requires_approval(self) -> bool | None:
        """``pause`` and ``abort``: ``True``."""

    @property
    def abort_reason(self) -> str | None:
        """``abort``: why."""

    @property
    def previous_pause_reason(self) -> str | None:
        """A resumption: the pause reason it ended."""

    def to_dict(self) -> InterventionDict: ...
    def __reduce__(self) -> tuple[object, tuple[str, dict[str, object]]]: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class InterventionSummary:
    """``InterventionSystem.summary()``."""

    @property
    def total(self) -> int: ...
    @property
    def by_level(self) -> dict[str, int]:
        """Entries per level (``resume`` included), in the order levels first occur."""

    @property
    def by_type(self) -> dict[str, int]:
        """Interventions per detection type, in the order types first occur."""

    @property
    def is_paused(self) -> bool: ...
    @property
    def pause_reason(self) -> str | None: ...
    def to_dict(self) -> InterventionSummaryDict: ...
    def __reduce__(self) -> tuple[object, tuple[str, dict[str, object]]]: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class InterventionSystem:
    """upstream's ``InterventionSystem``: detections turned into graded interventions, the
    log (the last 100 interventions), the pause, and callbacks called with each
    :class:`Intervention` in upstream's order (``on_pause`` / ``on_abort``, then the log, then
    ``on_intervention``)."""

    def __new__(
        cls,
        *,
        on_intervention: InterventionCallback | None = None,
        on_pause: InterventionCallback | None = None,
        on_abort: InterventionCallback | None = None,
        clock: Callable[[], str] | None = None,
        **options: object,
    ) -> InterventionSystem:
        """``clock`` answers the time as RFC 3339 text (default: now)."""

    def intervene(self, detection: Detection | DetectionDict | Mapping[str, object]) -> Intervention: ...
    def determine_level(self, detection: Detection | DetectionDict | Mapping[str, object]) -> InterventionLevel: ...
    def build_warning(self, detection: Detection | DetectionDict | Mapping[str, object]) -> str: ...
    def build_strategy_override(self, detection: Detection | DetectionDict | Mapping[str, object]) -> str: ...
    def inject_warning(self, prompt: str, warning: str) -> str: ...
    def resume(self, approval_reason: str | None = None) -> bool:
        """Ends a pause, logging why; ``False`` when not paused."""

    @property
    def is_paused(self) -> bool: ...
    @property
    def pause_reason(self) -> str | None: ...
    def pause_status(self) -> PauseStatusDict: ...
    def log(self, limit: int | None = None) -> list[Intervention]:
        """The last ``limit`` entries (everything for ``None`` or 0, as upstream)."""

    def summary(self) -> InterventionSummary: ...
    def clear_log(self) -> None: ...
    def reset(self) -> None: ...
    def export_state(self) -> InterventionStateDict:
        """The JS ``exportState()`` JSON (camelCase keys)."""

    def import_state(self, state: InterventionStateDict | Mapping[str, object]) -> None:
        """Takes over the log, ``is_paused``, and a non-empty pause reason."""

# ---------------------------------------------------------------------------------------
# The run store (wrapped by earlyexit.Store)
# ---------------------------------------------------------------------------------------

_DEFAULT_LOOP_RECEIPT_LOG: str
_DEFAULT_PYRAMID_RECEIPT_LOG: str

def _check_store_name(field: str, name: object) -> None: ...

@final
class _Store:
    """One open store; every call runs without the GIL, under the store's lock."""

    def __new__(cls, url: str) -> _Store: ...
    @property
    def url(self) -> str: ...
    @property
    def closed(self) -> bool: ...
    def close(self) -> None: ...
    def add_run(
        self, run: object, run_label: str | None = None, dataset: str | None = None, run_id: str | None = None
    ) -> bool: ...
    def _runs_page(
        self,
        after_seq: int,
        page: int,
        run_label: str | None = None,
        dataset: str | None = None,
        since: str | _datetime.datetime | None = None,
    ) -> list[tuple[int, str, str | None, int, str]]: ...
    def _check_filter(
        self,
        run_label: str | None = None,
        dataset: str | None = None,
        since: str | _datetime.datetime | None = None,
        limit: int | None = None,
    ) -> int | None: ...
    def run_count(self) -> int: ...
    def append_receipts(self, log: str, receipts: object) -> int: ...
    def receipts(self, log: str) -> str: ...
    def receipt_logs(self) -> list[tuple[str, int]]: ...
    def verify_receipts(self, log: str) -> dict[str, Any]: ...
    def put_artifact(self, name: str, artifact: object) -> Any: ...
    def artifact(self, name: str) -> Any: ...
    def merge_model(self, name: str, model: object) -> dict[str, Any]: ...
    def model(self, name: str) -> dict[str, Any] | None: ...
    def _import_path(self, path: str | os.PathLike[str], run_label: str | None = None) -> tuple[int, int]: ...
    def _import_text(self, text: bytes, run_label: str | None = None) -> tuple[int, int]: ...
    def check(self) -> Any: ...
