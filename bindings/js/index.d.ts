/// <reference lib="esnext.disposable" />
// Types of the public API of `earlyexit` (napi-rs) and `earlyexit-wasm` (WebAssembly):
// the same file in both packages. The API is a drop-in for aiwg's `early-stopping.mjs` and
// `iteration-analytics.mjs`, and the test-pyramid engine follows agentic-qe's early-exit design.

// ------------------------------------------------------------------------------------
// Errors

/** Stable error codes (`error.code`). */
export type ErrorCode =
  | 'invalid_config'
  | 'unknown_option'
  | 'invalid_result'
  | 'invalid_iteration'
  | 'invalid_layer_result'
  | 'invalid_signal'
  | 'invalid_analytics'
  | 'invalid_snapshot'
  | 'invalid_step'
  | 'invalid_replay'
  | 'invalid_detection'
  | 'invalid_artifact'
  | 'invalid_receipt';

/** What every error this package throws for bad input carries besides its message. */
export interface EarlyExitErrorFields {
  /** Stable machine-readable code. */
  code: ErrorCode;
  /** The offending field as you spelled it, with a path where nested (`layers[2].passRate`). */
  field: string;
}

/** Thrown for a value of the wrong type, a missing required key or an unknown key. */
export type EarlyExitTypeError = TypeError & EarlyExitErrorFields;
/** Thrown for a value of the right type that is not allowed (NaN, out of range, unknown enum value, bad timestamp). */
export type EarlyExitRangeError = RangeError & EarlyExitErrorFields;
/** Either kind. A call that throws one changed nothing. */
export type EarlyExitError = EarlyExitTypeError | EarlyExitRangeError;

/**
 * Narrows a caught value (`catch (error)`, `unknown` under `strict`) to this package's
 * bad-input error: a TypeError or RangeError with string `code` and `field`, thrown by
 * either package or build.
 */
export declare function isEarlyExitError(error: unknown): error is EarlyExitError;

// ------------------------------------------------------------------------------------
// Engine 1: should an agent's loop stop? (aiwg's early-stopping.mjs)

export type VerificationStatus = 'passed' | 'failed' | 'skipped';

/** Which criterion stopped the loop; `'none'` when it goes on. The last three need opt-in options. */
export type Trigger =
  | 'none'
  | 'high_confidence'
  | 'quality_plateau'
  | 'diminishing_returns'
  | 'max_iterations'
  | 'budget_exhausted'
  | 'quality_regression'
  | 'no_improvement'
  | 'behavior_pause'
  | 'behavior_abort'
  | 'completed'
  | 'unchanged'
  | 'revisit';

/** Opt-in `plateauDeltaSource`: the caller's `quality_delta` (the default) or this score minus the previous one. */
export type PlateauDeltaSource = 'reported' | 'computed';
/** Opt-in `plateauMode`: threshold as a fraction of the previous score (the default) or in quality points. */
export type PlateauMode = 'relative' | 'absolute';

/** The full config as `getConfig()` returns it: `early-stopping.mjs`'s seven keys, then the opt-in options that are set. */
export interface EarlyStoppingConfig {
  /** Confidence at or above which a (verified) record stops the loop; 0..1, default 0.95. */
  highConfidenceThreshold: number;
  /** How many most recent records form a plateau; integer >= 2, default 3. */
  plateauConsecutiveCount: number;
  /** Relative improvement below which a step counts as flat; 0..1, default 0.02 (in points with `plateauMode: 'absolute'`). */
  plateauImprovementThreshold: number;
  /** Quality a high-confidence stop needs; 0..100, default 70. */
  minQualityThreshold: number;
  /** Whether a high-confidence stop needs `verification_status === 'passed'`; default true. */
  requireVerification: boolean;
  /** Whether the plateau check runs; default true. */
  enablePlateauDetection: boolean;
  /** Whether an attached diminishing-returns source is asked; default true. */
  enableDiminishingReturns: boolean;
  /** Opt-in: where plateau steps come from: the reported `quality_delta` (default) or the score difference. */
  plateauDeltaSource?: PlateauDeltaSource;
  /** Opt-in: plateau threshold as a fraction of the previous quality (default) or in quality points (0..100). */
  plateauMode?: PlateauMode;
  /** Opt-in warm-up (integer >= 1): before this many iterations no quality trigger stops; hard limits still do. Not above `maxIterations`. */
  minIterations?: number;
  /** Opt-in hard limit (integer >= 1): stop once this many iterations are recorded (trigger `max_iterations`). */
  maxIterations?: number;
  /** Opt-in budget over the sum of `tokens_used` (trigger `budget_exhausted`). */
  maxTotalTokens?: number;
  /** Opt-in budget over the sum of `token_cost_usd`. */
  maxTotalCostUsd?: number;
  /** Opt-in budget over the sum of `execution_time_ms`. */
  maxWallClockMs?: number;
  /** Opt-in regression guard: points (0..100) below the highest quality so far that count as a regression. */
  regressionTolerance?: number;
  /** Opt-in regression guard (integer >= 1, default 2, needs `regressionTolerance`): iterations in a row below it that stop the loop (trigger `quality_regression`). */
  regressionPatience?: number;
  /** Opt-in: a plateau counts only when every record of its window reaches this quality (0..100). */
  plateauMinQuality?: number;
  /** Opt-in give-up rule: stop after this many records without a new best (trigger `no_improvement`). */
  noImprovementPatience?: number;
  /**
   * Opt-in resume safety (on in the `recommended` preset): iteration numbers must increase;
   * re-recording the last iteration with the same result is accepted, changes nothing and
   * returns `{ duplicate: true }`; anything else throws `invalid_iteration`.
   */
  strictIterations?: boolean;
  /** Opt-in: the no-improvement patience while the best quality so far is at or below `floorQuality` (a run stuck at 0). */
  floorPatience?: number;
  /** Opt-in: the floor of `floorPatience` (0..100, default 0; needs `floorPatience`). */
  floorQuality?: number;
}

/** What `recordIterationResult` returns for an accepted re-record of the last iteration (`strictIterations`). */
export interface DuplicateRecord {
  duplicate: true;
}

/** A partial config: merged over the defaults (constructor) or the current config (`configure`). Unknown keys throw. */
export type EarlyStoppingOptions = Partial<EarlyStoppingConfig>;

/** What an agent reports after one iteration (with optional behaviour fields). */
export interface IterationResult extends BehaviorFields {
  // generated by make generate from core RESULT_TYPES: edit the core
  /** 0..100. */
  quality_score: number;
  /** 0..1. */
  confidence: number;
  /** Whether the iteration's output was verified: passed, failed or skipped. */
  verification_status: VerificationStatus;
  /** The change from the previous iteration (any finite number; the plateau rule reads it). */
  quality_delta: number;
  /** RFC 3339 date-time; the current time when absent. */
  timestamp?: string;
  /** Finite, >= 0 (budgets and analytics). */
  tokens_used?: number;
  /** Finite, >= 0. */
  token_cost_usd?: number;
  /** Finite, >= 0. */
  execution_time_ms?: number;
  /** If given, must equal the iteration argument. */
  iteration_number?: number;
  // end of generated lines
}

/** What behaviour detector conditions read of an iteration (docs/loop-policies.md); each
 * optional, absent = unknown; snake_case like every result key. */
export interface BehaviorFields {
  // generated by make generate from core BehaviorIteration::RESULT_TYPES: edit the core
  /** The failure's class, when it failed. */
  failure_class?: string | null;
  /** The error message, when it failed. */
  error?: string | null;
  /** What blocks progress. */
  blockers?: string[] | null;
  /** 0..100. */
  completion_percentage?: number;
  /** The files the iteration changed. */
  artifacts_modified?: string[] | null;
  /** What the iteration learned. */
  learnings?: string | null;
  /** Whether the tests pass. */
  tests_passing?: boolean;
  /** 0..100 (0 reads as unknown, as upstream). */
  coverage_percent?: number | null;
  /** At most 256 characters: what the `unchanged` and `revisit` conditions compare. */
  fingerprint?: string | null;
  /** The loop's own completion signal (the `completed` condition). */
  completed?: boolean | null;
  // end of generated lines
}

/** One entry of `getIterationHistory()` (the behaviour fields given, after the others). */
export interface IterationRecord extends BehaviorFields {
  // generated by make generate from core IterationRecord::TYPES: edit the core
  /** The iteration recorded, from 1. */
  iteration_number: number;
  /** 0..100. */
  quality_score: number;
  /** 0..1. */
  confidence: number;
  /** The result's verification status. */
  verification_status: VerificationStatus;
  /** The result's change from the previous iteration. */
  quality_delta: number;
  /** RFC 3339: the result's, or the clock's when it gave none. */
  timestamp: string;
  /** As the result gave it. */
  tokens_used?: number;
  /** As the result gave it. */
  token_cost_usd?: number;
  /** As the result gave it. */
  execution_time_ms?: number;
  // end of generated lines
}

export interface HighConfidenceDetails {
  confidence: number;
  quality_score: number;
  /** Present when verification was required. */
  verification_status?: VerificationStatus;
}

export interface PlateauStep {
  iteration: number;
  improvement: number;
  delta: number;
}

export interface QualityPlateauDetails {
  consecutive_count: number;
  improvements: PlateauStep[];
  average_quality: number;
  threshold: number;
}

export interface DiminishingReturnsDetails {
  /** The source's `iteration`, copied as it was (absent when the source left it out). */
  detected_at_iteration?: number | null;
  analytics_reason: string;
}

export interface MaxIterationsDetails {
  iterations: number;
  max_iterations: number;
}

/** The loop's own completion signal (a record with `completed: true`; `Loop.step`'s `done`). */
export interface CompletedDetails {
  completed_iteration: number;
}

/** The last k + 1 records carry the same fingerprint: the run's first record. */
export interface UnchangedDetails {
  fingerprint: string;
  since_iteration: number;
  k: number;
}

/** The last record's fingerprint was seen within the window: the latest earlier record carrying it. */
export interface RevisitDetails {
  fingerprint: string;
  first_seen_iteration: number;
  window: number;
}

export interface BudgetExhaustedDetails {
  budget: 'tokens' | 'cost_usd' | 'wall_clock_ms';
  limit: number;
  observed: number;
  /** Records that did not report the field (unknown, not counted as zero). */
  records_without_value: number;
}

export interface QualityRegressionDetails {
  best_iteration: number;
  best_quality_score: number;
  tolerance: number;
  patience: number;
}

export interface NoImprovementDetails {
  best_iteration: number;
  best_quality_score: number;
  iterations_without_improvement: number;
  patience: number;
}

export type StoppingDetails =
  | NoImprovementDetails
  | HighConfidenceDetails
  | QualityPlateauDetails
  | DiminishingReturnsDetails
  | MaxIterationsDetails
  | BudgetExhaustedDetails
  | QualityRegressionDetails
  | BehaviorDetails
  | CompletedDetails
  | UnchangedDetails
  | RevisitDetails;

/** A detector condition's stop (`behavior_pause`, `behavior_abort`): the level and the detection (snake_case keys). */
export interface BehaviorDetails {
  level: InterventionLevel;
  detection: Record<string, unknown>;
}

/** Each stopping trigger and the `details` its decision carries. */
export interface StoppingDetailsByTrigger {
  high_confidence: HighConfidenceDetails;
  quality_plateau: QualityPlateauDetails;
  diminishing_returns: DiminishingReturnsDetails;
  max_iterations: MaxIterationsDetails;
  budget_exhausted: BudgetExhaustedDetails;
  quality_regression: QualityRegressionDetails;
  behavior_pause: BehaviorDetails;
  behavior_abort: BehaviorDetails;
  completed: CompletedDetails;
  unchanged: UnchangedDetails;
  revisit: RevisitDetails;
}

/** A trigger that stops the loop (every `Trigger` but `'none'`). */
export type StopTrigger = keyof StoppingDetailsByTrigger;

/** Which opt-in budget a `budget_exhausted` stop or a `budgets` entry names. */
export type Budget = BudgetExhaustedDetails['budget'];

/** Where one configured budget stands; listed on every decision once a budget is set. */
export interface BudgetStatus {
  budget: Budget;
  limit: number;
  /** The sum over the records that report the field. */
  observed: number;
  /** Records without the field: their use is unknown, not zero, so `observed` is a lower bound. */
  records_without_value: number;
  /** `observed > limit`. */
  exhausted: boolean;
}

/** What every decision carries besides its trigger. */
export interface StoppingDecisionBase {
  stop: boolean;
  reason: string;
  confidence: number;
  /** Highest quality among passed records reaching `minQualityThreshold`, else highest overall; null with no records. */
  best_iteration: number | null;
  best_quality_score: number | null;
  /** Present once a budget option (`maxTotalTokens`, `maxTotalCostUsd`, `maxWallClockMs`) is set: tokens, cost, wall clock. */
  budgets?: BudgetStatus[];
  /** Only under a stop policy: the conditions that fired (empty when it goes on). */
  fired?: FiredCondition[];
  /** Only under a stop policy whose detector conditions detected something: each detection
   * with its intervention, stopping or not. */
  interventions?: ConditionIntervention[];
  /** In shadow mode only, once the candidate fired: where it first would have stopped (kept after). */
  would_stop?: WouldStop;
}

/** Where a shadow candidate would have stopped the loop (its first firing). */
export interface WouldStop {
  iteration: number;
  trigger: StopTrigger;
  reason: string;
  /** The iteration it would have returned, and its quality (0..100). */
  returned_iteration: number;
  returned_quality: number;
}

/** The candidate a shadow runs: a preset name, a policy, a `LoopCalibration` or a loop artifact. */
export type ShadowCandidate = LoopPresetName | LoopPolicy | StopPolicy | LoopCalibration | LoopCalibrationArtifact;

/** `EarlyStopping`'s third argument in shadow mode: `{ shadow, policy? }` (never a config or policy key). */
export interface EarlyStoppingShadowOptions {
  /**
   * A candidate deciding beside the engine at every iteration without stopping it: decisions
   * carry `would_stop`. The engine's policy (or its config: `maxIterations`, a budget) must
   * hold a hard cap, else `invalid_config` naming `shadow`. In the wasm package's web build,
   * after `init({ replay: true })` (the candidate runs in the replay module).
   */
  shadow: ShadowCandidate;
  /** The engine's own stop policy, as the third argument otherwise. */
  policy?: StopPolicy | null;
}

/** A snapshot's shadow candidate (`EarlyStoppingSnapshot.shadow`). */
export interface ShadowCandidateSnapshot {
  /** The name receipts count it under: its preset's, `calibrated` for an artifact's, `custom` otherwise. */
  name: string;
  policy: Record<string, unknown>;
  artifactSha256: string | null;
  /** Why it runs in shadow when the engine put it there (an artifact not promoted or expired). */
  reason?: string;
}

/** A detector condition's detection in a decision and the intervention it calls for. */
export interface ConditionIntervention {
  condition: StopConditionKind;
  path: string;
  level: InterventionLevel;
  /** Whether the level reached the condition's `stop_at` (the condition fired). */
  stop: boolean;
  /** The detection's message. */
  reason: string;
  /** The detection, snake_case keys. */
  detection: Record<string, unknown>;
  /** `log`. */
  action?: string;
  /** `warn`: the text to put before the next prompt. */
  warning?: string;
  /** `redirect`. */
  strategy_override?: string;
  /** `pause`, `abort`. */
  requires_approval?: boolean;
  /** `abort`. */
  abort_reason?: string;
}

/** One condition of a stop policy that fired in a decision. */
export interface FiredCondition {
  condition: StopConditionKind;
  /** Where it sits in the policy's tree (`any[1]`, `all[0]`, `of[2]`, `then`). */
  path: string;
  reason: string;
  details: StoppingDetails;
}

/** The kinds of leaf stop condition (the codes `fired` reports). */
export type StopConditionKind =
  | 'high_confidence'
  | 'quality_plateau'
  | 'diminishing_returns'
  | 'max_total_tokens'
  | 'max_total_cost_usd'
  | 'max_wall_clock_ms'
  | 'max_iterations'
  | 'quality_regression'
  | 'no_improvement'
  | 'floor_patience'
  | 'stuck'
  | 'oscillation'
  | 'deviation'
  | 'resource_burn'
  | 'test_regression'
  | 'completed'
  | 'unchanged'
  | 'revisit';

/** A stop condition in the policy's JSON form (snake_case keys in every language; docs/loop-policies.md). */
export type StopCondition =
  | StopConditionKind
  | ({ condition: StopConditionKind } & Record<string, unknown>)
  | { any: StopCondition[] }
  | { all: StopCondition[] }
  | { k_of: number; of: StopCondition[] }
  | { not_before: number; then: StopCondition };

/** A stop policy: a tree under one of its combinator keys, plus `returns` (and for a replay `preset`, `config`, `analytics`). */
export type StopPolicy = LoopPolicy | (Exclude<LoopPolicy, string> & Exclude<StopCondition, string | { condition: StopConditionKind }>);

/** Builders of stop conditions (plain objects in the JSON form; the core checks them where used). */
export declare const policy: {
  highConfidence(settings?: { threshold?: number; min_quality?: number; require_verification?: boolean }): StopCondition;
  qualityPlateau(settings?: {
    count?: number;
    threshold?: number;
    delta_source?: 'reported' | 'computed';
    mode?: 'relative' | 'absolute';
    min_quality?: number;
  }): StopCondition;
  diminishingReturns(): StopCondition;
  maxTotalTokens(limit: number): StopCondition;
  maxTotalCostUsd(limit: number): StopCondition;
  maxWallClockMs(limit: number): StopCondition;
  maxIterations(limit: number): StopCondition;
  qualityRegression(tolerance: number, patience?: number): StopCondition;
  noImprovement(patience: number): StopCondition;
  floorPatience(patience: number, settings?: { floor?: number; above_patience?: number }): StopCondition;
  stuck(noProgressIterations: number, settings?: { same_error_count?: number; stop_at?: InterventionLevel }): StopCondition;
  oscillation(settings?: { undo_redo_cycles?: number; file_churn_threshold?: number; stop_at?: InterventionLevel }): StopCondition;
  deviation(settings?: { objective?: string; objective_similarity?: number; scope_creep_ratio?: number; stop_at?: InterventionLevel }): StopCondition;
  resourceBurn(settings?: { max_iterations?: number; iteration_multiplier?: number; cost_multiplier?: number; stop_at?: InterventionLevel }): StopCondition;
  testRegression(settings?: { coverage_drop_percent?: number; test_pass_to_fail?: boolean; stop_at?: InterventionLevel }): StopCondition;
  /** The last record reports the loop's completion (`completed: true`). */
  completed(): StopCondition;
  /** Records t-k..t all carry the same `fingerprint` (`k` >= 1). */
  unchanged(k: number): StopCondition;
  /** Record t's `fingerprint` equals that of a record among t-window..t-2 (`window` >= 2). */
  revisit(window: number): StopCondition;
  anyOf(...conditions: StopCondition[]): { any: StopCondition[] };
  allOf(...conditions: StopCondition[]): { all: StopCondition[] };
  kOf(k: number, ...conditions: StopCondition[]): { k_of: number; of: StopCondition[] };
  notBefore(iterations: number, condition: StopCondition): { not_before: number; then: StopCondition };
  stopPolicy(when: StopCondition, extra?: Exclude<LoopPolicy, string>): StopPolicy;
};

/** A decision to go on (also the warm-up's, whose reason is `'Warm-up: iteration N of M'`). */
export interface ContinueDecision extends StoppingDecisionBase {
  stop: false;
  trigger: 'none';
  details?: undefined;
}

/** A decision to stop on trigger `T`, with that trigger's details. */
export type StopDecision<T extends StopTrigger = StopTrigger> = {
  [K in T]: StoppingDecisionBase & { stop: true; trigger: K; details: StoppingDetailsByTrigger[K] };
}[T];

/** `shouldStop()`'s answer: `early-stopping.mjs`'s keys, then the best record so far (and the budgets once one is set).
 * Testing `trigger` narrows `details`: `if (d.trigger === 'budget_exhausted') d.details.observed`. */
export type StoppingDecision = ContinueDecision | StopDecision;

/** `generateSummary()` with no iterations. */
export interface EmptyStoppingSummary {
  total_iterations: 0;
  stopped_early: false;
  reason: 'No iterations completed';
}

/** `generateSummary()` over a non-empty history (it calls `shouldStop()`). */
export interface FullStoppingSummary {
  total_iterations: number;
  stopped_early: boolean;
  stopping_trigger: Trigger;
  stopping_reason: string;
  stopping_confidence: number;
  final_quality: number;
  final_confidence: number;
  final_verification: VerificationStatus;
  config: EarlyStoppingConfig;
  details?: StoppingDetails;
}

export type StoppingSummary = EmptyStoppingSummary | FullStoppingSummary;

/** What a diminishing-returns source reports. */
export interface DiminishingReturnsReport {
  detected: boolean;
  /** Integer >= 1, or null, or absent. */
  iteration?: number | null;
  reason: string;
}

/** Any object with this method can be the diminishing-returns source (the package's IterationAnalytics is one). */
export interface DiminishingReturnsSource {
  detectDiminishingReturns(): DiminishingReturnsReport;
}

/** `toJSON()` of an EarlyStopping: the portable snapshot (the same JSON in Python and wasm). */
export interface EarlyStoppingSnapshot {
  version: 1;
  engine: 'EarlyStopping';
  config: EarlyStoppingConfig;
  history: IterationRecord[];
  stoppingReason: string | null;
  stoppingDetails: StoppingDetails | null;
  /**
   * Where `strictIterations` checking begins in `history`, only when the option was turned on
   * after records whose iteration numbers do not increase: from this index on each iteration
   * number is greater than the one before it (checked on restore; without the key, the whole
   * history is checked).
   */
  strictIterationsFrom?: number;
  /** The stop policy (normalized), only when the engine decides under one. */
  policy?: StopPolicy;
  /** The SHA-256 digest of the calibration artifact the loop runs, when one was recorded (the CLI's state file). */
  policyArtifact?: string;
  /** The shadow candidate, only in shadow mode (restoring replays the history through it). */
  shadow?: ShadowCandidateSnapshot;
}

/**
 * What one of `early-stopping.mjs`'s check methods answers (`checkHighConfidence`, `checkQualityPlateau`,
 * `checkDiminishingReturns`): `early-stopping.mjs`'s keys, no extras; a stop carries its details. A
 * subclass's override may answer with a trigger and details of its own; when it stops,
 * `shouldStop()` returns that very object, as `early-stopping.mjs` does.
 */
export interface CheckAnswer {
  stop: boolean;
  reason: string;
  confidence: number;
  trigger: Trigger | (string & {});
  details?: StoppingDetails | Record<string, unknown> | null;
}

/** Every stateful class: `free()` releases native memory at once (wasm); also `using` / `Symbol.dispose`. */
export interface Freeable extends Disposable {
  /** Releases the native memory now; the object cannot be used afterwards. */
  free(): void;
}

/** `early-stopping.mjs`'s `EarlyStopping`, drop-in. */
export declare class EarlyStopping implements Freeable {
  /**
   * @param config partial config merged over the defaults (`null`/`undefined`: defaults)
   * @param iterationAnalytics asked for diminishing returns only when high confidence and
   *   the plateau did not stop and `enableDiminishingReturns` is on, exactly as `early-stopping.mjs` asks
   */
  constructor(config?: EarlyStoppingOptions | null, iterationAnalytics?: DiminishingReturnsSource | null, policy?: StopPolicy | EarlyStoppingShadowOptions | null);
  /** The stop policy decisions are made under (normalized: `{returns, any | all | k_of | not_before}`), or null. */
  readonly policy: StopPolicy | null;
  /**
   * Why the shadow candidate runs in shadow rather than enforced, when the engine put it there
   * itself (`fromCalibration` with an artifact not promoted, demoted or expired); null otherwise.
   */
  readonly shadowReason: string | null;
  /**
   * Records one iteration. Returns nothing (`early-stopping.mjs`'s `undefined`), except for an accepted
   * re-record of the last iteration under `strictIterations`: `{ duplicate: true }`, nothing changed.
   */
  recordIterationResult(iteration: number, result: IterationResult): DuplicateRecord | undefined;
  /** The argument is accepted and ignored, as in `early-stopping.mjs`. */
  shouldStop(iteration?: number): StoppingDecision;
  getStoppingReason(): string | null;
  getStoppingDetails(): StoppingDetails | null;
  configure(options?: EarlyStoppingOptions | null): void;
  getConfig(): EarlyStoppingConfig;
  getIterationHistory(): IterationRecord[];
  reset(): void;
  generateSummary(): StoppingSummary;
  toJSON(): EarlyStoppingSnapshot;
  /**
   * Restores a snapshot (the object or its JSON text); the source is not part of a snapshot. The
   * snapshot's stop policy, if it holds one, is restored (a `policy` given too must be the same:
   * `invalid_config` on `policy` otherwise); else `policy` is used.
   */
  static fromJSON(snapshot: EarlyStoppingSnapshot | string, iterationAnalytics?: DiminishingReturnsSource | null, policy?: StopPolicy | null): EarlyStopping;
  /** An engine with a named preset's config (`'seed'` = `early-stopping.mjs`'s defaults, `'recommended'`), overrides merged. */
  static fromPreset(name: LoopPresetName, overrides?: EarlyStoppingOptions | null, iterationAnalytics?: DiminishingReturnsSource | null): EarlyStopping;
  /**
   * An engine running a calibrated loop policy: a `LoopCalibration`, its artifact, or the
   * artifact's JSON text; a chosen composed policy becomes the engine's `policy`. Refuses an
   * expired artifact or one of another kind (`invalid_artifact`).
   * In the wasm package's web build, after `init({ replay: true })`.
   */
  /**
   * An engine running a calibrated loop policy: a `LoopCalibration`, its artifact, the
   * artifact's JSON text (a string is always text), or a `file:` `URL` naming a file of that
   * text (Node: `new URL('./artifact.json', import.meta.url)`, `pathToFileURL(path)`). An
   * artifact that certifies nothing runs, and a one-line notice is printed once per process.
   * Only a promoted artifact that has not expired runs its calibrated policy; one not promoted
   * (or demoted by a drift check) or expired runs its calibration's most conservative policy
   * with the calibrated one in shadow (decisions carry `would_stop`; `shadowReason` says why,
   * and a one-line notice saying so is printed once per process).
   */
  static fromCalibration(artifact: LoopCalibration | LoopCalibrationArtifact | string | URL, iterationAnalytics?: DiminishingReturnsSource | null): EarlyStopping;
  free(): void;
  [Symbol.dispose](): void;
  /**
   * `early-stopping.mjs`'s check methods, answered whole (also when they do not stop). `shouldStop()` calls
   * each in `early-stopping.mjs`'s order; a subclass may override them, and `shouldStop()` then calls the
   * override in its place (without overrides the decision takes the fast path).
   * `checkHighConfidence` takes a history record (as `iterationHistory` holds them).
   */
  checkHighConfidence(iteration: IterationRecord): CheckAnswer;
  checkQualityPlateau(): CheckAnswer;
  /** Asks the source (`iterationAnalytics`) if there is one. */
  checkDiminishingReturns(): CheckAnswer;
  /**
   * `early-stopping.mjs`'s public fields, live as there. `config`: a write to a key is checked by the
   * core at the write (TypeError/RangeError with `.code` and `.field`, nothing changed) and
   * takes effect; assigning an object replaces the config, merged over the defaults as the
   * constructor's, and later writes to that object count too.
   */
  get config(): EarlyStoppingConfig;
  set config(value: EarlyStoppingOptions | null | undefined);
  /**
   * The history array: records pushed, changed or removed count from the next call; a record
   * put in from outside is checked then (a typed error naming `iterationHistory[i]`, nothing
   * changed until it is fixed or removed). Assigning an array makes it the history.
   */
  get iterationHistory(): IterationRecord[];
  set iterationHistory(value: IterationRecord[]);
  get iterationAnalytics(): DiminishingReturnsSource | null;
  /** Another source (checked as the constructor's), or null for none. */
  set iterationAnalytics(value: DiminishingReturnsSource | null | undefined);
  stoppingReason: string | null;
  stoppingDetails: StoppingDetails | null;
}

// ------------------------------------------------------------------------------------
// The built-in diminishing-returns source

export type SelectionCriteria = 'highest_quality_verified' | 'highest_quality' | 'most_recent_above_threshold';

/** The rules (what a loop replay's `analytics` policy takes). */
export interface AnalyticsRules {
  /** Relative change below which a step counts; finite >= 0, default 0.05. */
  diminishingReturnsThreshold: number;
  /** Consecutive small steps that make a detection; integer >= 1, default 2. */
  consecutiveCountThreshold: number;
  /** 0..100, default 70. */
  qualityThreshold: number;
  /** Default `'highest_quality_verified'`. */
  selectionCriteria: SelectionCriteria;
}

/** upstream's `AnalyticsConfig` (`getConfig()`, `config`). */
export interface IterationAnalyticsConfig extends AnalyticsRules {
  /** The folder upstream's form saves into; default `'.aiwg/ralph/analytics'`. */
  storagePath: string;
}

/** The constructor's config: upstream's keys, then whether to save and the times. */
export interface IterationAnalyticsOptions extends Partial<IterationAnalyticsConfig> {
  /**
   * Save the summary after every record (upstream's form only; default true there, which is
   * what upstream does; false in a browser, which has no files). The config-object form never
   * saves by itself.
   */
  persist?: boolean;
  /** RFC 3339; default: now. */
  startTime?: string;
  /** RFC 3339; default: set by the first summary (upstream's behaviour). */
  endTime?: string | null;
}

/** What `recordIteration` takes: upstream's `IterationMetrics`. */
export interface AnalyticsInput {
  iteration_number: number;
  quality_score: number;
  verification_status: VerificationStatus;
  tokens_used?: number;
  token_cost_usd?: number;
  execution_time_ms?: number;
  output_snapshot_path?: string | null;
  reflections?: readonly string[];
  /** Recomputed, as upstream does (this score minus the previous one). */
  quality_delta?: number;
  /** RFC 3339; default: now (upstream always reads the clock). */
  timestamp?: string;
}

/** upstream's record, keys in its order. */
export interface AnalyticsRecord {
  iteration_number: number;
  timestamp: string;
  quality_score: number;
  /** This score minus the previous one when recorded (0 for the first); kept as written. */
  quality_delta: number;
  tokens_used?: number;
  token_cost_usd?: number;
  execution_time_ms?: number;
  verification_status: VerificationStatus;
  output_snapshot_path?: string | null;
  reflections: string[];
}

export type Trajectory = 'insufficient_data' | 'improving' | 'declining' | 'stable' | 'fluctuating';

export interface IterationSelection {
  selected: AnalyticsRecord | null;
  reason: string;
}

/** upstream's `AnalyticsSummary`, keys in its order. */
export interface AnalyticsSummary {
  loop_id: string | null;
  task_description: string | null;
  start_time: string | null;
  end_time: string | null;
  iterations: AnalyticsRecord[];
  total_iterations: number;
  /** `getOptimalIteration(false)`'s iteration number. */
  optimal_iteration: number | null;
  /** 0 with no records, as upstream writes it. */
  final_iteration: number;
  selected_iteration: number | null;
  selection_reason: string;
  /** Totals over the records that have the field. */
  total_tokens: number;
  total_cost_usd: number;
  total_time_ms: number;
  diminishing_returns_detected: boolean;
  diminishing_returns_iteration: number | null;
  quality_trajectory: Trajectory;
}

export interface IterationAnalyticsSnapshot {
  version: 1;
  engine: 'IterationAnalytics';
  config: IterationAnalyticsConfig;
  loopId: string | null;
  taskDescription: string | null;
  startTime: string | null;
  endTime: string | null;
  records: AnalyticsRecord[];
}

/**
 * The built-in diminishing-returns source, a drop-in for aiwg's iteration-analytics.mjs.
 * `new IterationAnalytics(loopId, taskDescription, config)` is upstream's form (it creates
 * `storagePath` and saves its summary after every record unless `persist: false`);
 * `new IterationAnalytics(config)` never writes by itself.
 */
export declare class IterationAnalytics implements DiminishingReturnsSource, Freeable {
  constructor(config?: IterationAnalyticsOptions | null);
  constructor(loopId: string, taskDescription: string, config?: IterationAnalyticsOptions | null);
  /** The stored record itself, as `iterations` holds it (a write to it counts, checked). */
  recordIteration(metrics: AnalyticsInput): AnalyticsRecord;
  detectDiminishingReturns(): { detected: boolean; iteration: number | null; reason: string };
  getTrajectory(): Trajectory;
  getOptimalIteration(verifiedOnly?: boolean): AnalyticsRecord | null;
  selectBestIteration(): IterationSelection;
  /** The first summary sets `endTime` (to now, unless it was given); its `iterations` is `this.iterations`. */
  generateSummary(): AnalyticsSummary;
  generateQualityChart(): string;
  generateReport(options?: { generatedAt?: string } | null): string;
  /** Node: writes the summary, answers its path. Browser: answers the JSON text. */
  saveAnalytics(filename?: string | null): string;
  /** Node: writes the report, answers its path. Browser: answers the markdown. */
  saveReport(filename?: string | null): string;
  export(): { json: string; markdown: string };
  ensureStorageDir(): void;
  getConfig(): IterationAnalyticsConfig;
  getRecords(): AnalyticsRecord[];
  reset(): void;
  toJSON(): IterationAnalyticsSnapshot;
  static fromJSON(snapshot: IterationAnalyticsSnapshot | string): IterationAnalytics;
  /** upstream's load (Node): an analytics object from a saved summary file. */
  static load(filepath: string, config?: IterationAnalyticsOptions | null): IterationAnalytics;
  /** An analytics object from a saved summary (the object or its JSON text). */
  static fromSummary(summary: AnalyticsSummary | string, config?: IterationAnalyticsOptions | null): IterationAnalytics;
  static formatDuration(ms: number): string;
  free(): void;
  [Symbol.dispose](): void;
  // upstream's public fields: assignments are validated (a bad one throws and changes nothing).
  loopId: string | null;
  taskDescription: string | null;
  startTime: string | null;
  endTime: string | null;
  /**
   * The records, live (as upstream's array): `push`, `splice`, assignment by index and writes
   * to a record's fields count, checked by the core (a field of a recorded record at the
   * write; anything put in from outside at the next use). Assigning an array makes it the
   * history. Proxies: `getRecords()` answers plain copies.
   */
  iterations: AnalyticsRecord[];
  /**
   * The config, live: `analytics.config.qualityThreshold = 60` is checked by the core and
   * takes effect. An assigned object is merged over the defaults; later writes to it count.
   */
  config: IterationAnalyticsConfig;
}

// ------------------------------------------------------------------------------------
// Engine 2: test-pyramid early exit

/** What a layer's runner returns. Other keys are kept as given (the original spreads the object). */
export interface LayerResult {
  /** 0..1. */
  passRate: number;
  /** 0..1. */
  coverage: number;
  /** 0..1. */
  flakyRatio: number;
  /** 0..100; stamped by the controller from layer 1 on. */
  previousLambda?: number;
  name?: string;
  /** What running the layer cost, ms. */
  durationMs?: number;
  total?: number;
  passed?: number;
  failed?: number;
  flaky?: number;
  [extra: string]: unknown;
}

export interface QualitySignal {
  lambda: number;
  lambdaPrev: number;
  boundaryEdges: number;
  boundaryConcentration: number;
  partitionCount: number;
  flags: number;
}

/** A hand-made signal for `shouldExit`: the counts are optional (the decision does not read them). */
export interface QualitySignalInput {
  lambda: number;
  lambdaPrev: number;
  boundaryConcentration: number;
  boundaryEdges?: number;
  partitionCount?: number;
  flags?: number;
}

export interface ExitConfig {
  exitLayer: number;
  minLambdaForExit: number;
  minLambdaStability: number;
  maxBoundaryConcentration: number;
  speculativeTests: number;
  verificationLayers: number;
  adaptiveExitLayer: boolean;
  minConfidence: number;
}

/** A partial exit config, merged over DEFAULT_EXIT_CONFIG. */
export type ExitOptions = Partial<ExitConfig>;

export type ExitReason =
  | 'forced_continue'
  | 'lambda_too_low'
  | 'lambda_unstable'
  | 'boundaries_concentrated'
  | 'insufficient_confidence'
  | 'confident_exit'
  | 'layer_failed'
  | 'risk_bounded'
  | 'completed';

export interface EarlyExitDecision {
  canExit: boolean;
  confidence: number;
  exitLayer: number;
  reason: ExitReason;
  enableSpeculation: boolean;
  explanation: string;
}

export type Outcome = 'pass' | 'flaky' | 'fail';

export interface Speculation {
  predicted: Outcome;
  confidence: number;
  verified: boolean;
  /** Present once verification ran the layer. */
  actual?: Outcome;
  correct?: boolean;
  /** In a run's result: the index of the skipped layer the prediction is about (absent from `speculate()`'s). */
  layer?: number;
  /** In a run's result: that layer's name. */
  name?: string;
}

/**
 * A pyramid run's verdict: `failed` (a layer that ran or was verified is failing: `passRate < 1`),
 * `passed` (every layer ran or was verified, none failing) or `unverified` (no failure seen, but
 * some layers were skipped without running). The same rule for every policy.
 */
export type Verdict = 'failed' | 'passed' | 'unverified';

/** A failing layer that ran or was verified: its index and name. */
export interface FailingLayer {
  layer: number;
  name: string;
}

export interface TestPyramidResult {
  layers: LayerResult[];
  exitedEarly: boolean;
  exitLayer: number;
  exitReason: ExitReason;
  confidence: number;
  speculations: Speculation[];
  /** Every layer after the exit, including those verification then ran. */
  skippedLayers: number;
  /** Indices actually run, in run order, verification included. */
  layersExecuted: number[];
  /** How many predictions verification checked. */
  verifiedLayers: number;
  /** How many verified predictions were wrong. */
  mispredictions: number;
  /** Summed `costMs` of the layers never run; null when one of them has no `costMs`. */
  computeSavedMs: number | null;
  /** Whether the build is red, green or not known to be either (docs/pyramid-verdict.md). */
  verdict: Verdict;
  /** The failing layers that ran or were verified, in the order they ran. */
  failingLayers: FailingLayer[];
  /** Indices run before the exit decision (every layer run when there was no exit): the first part of `layersExecuted`. */
  layersBeforeExit: number[];
  /** Indices of skipped layers that verification ran, in order: the rest of `layersExecuted`. */
  layersVerified: number[];
  /** Indices of the layers never run, ascending (what `computeSavedMs` sums). */
  layersNotRun: number[];
  /** Present when the run exited early but verification ran every skipped layer, so it saved nothing. */
  note?: string;
  /**
   * Why a `fail_fast` / `risk_bounded` run did what it did (docs/test-exit.md); absent from
   * the ADR's results.
   */
  policy?: PolicyRunReport;
  /** A shadow-mode run's receipt (at most one: where the policy would have exited) and counts. */
  shadow?: ShadowReport;
}

/** What a would-be exit turned out to be (`docs/test-exit.md` defines the rates). */
export type ReceiptLabel = 'correct_skip' | 'false_pass' | 'needless_run';

/** A shadow-mode receipt (camelCase in every language; hashed when appended to a log). */
export interface ShadowReceipt {
  kind: 'pyramid';
  receiptVersion: 1;
  runId: string | null;
  /** The run's user label (`PolicyRunOptions.label`), present only when the run has one. */
  runLabel?: string;
  /** The last layer run before the would-be exit. */
  layer: number | null;
  layerName: string | null;
  layersRun: number;
  policy: 'fail_fast' | 'risk_bounded';
  config: PyramidPolicyConfig;
  exitReason: 'risk_bounded' | 'layer_failed';
  signal: { risk: number | null };
  thresholds: { riskBudget: number; confidence: number };
  skipped: { layer: number; name: string; predicted: 'pass' | 'fail'; confidence: number | null; actual: 'pass' | 'fail'; costMs: number | null }[];
  firstMissedFailure: { layer: number; name: string } | null;
  label: ReceiptLabel;
  computeSavedMs: number | null;
  /** Added by `appendReceipts`. */
  prevHash?: string | null;
  sha256?: string;
}

/**
 * The receipt of the ADR's exit decision in shadow mode (policy `'adr'`, mode `'shadow'`):
 * the layer after which it would have exited, the signal and decision there, its predictions
 * and the verification it would have run, and what the skipped layers really did.
 */
export interface AdrShadowReceipt {
  kind: 'pyramid';
  receiptVersion: 1;
  runId: string | null;
  /** The run's user label (`PolicyRunOptions.label`), present only when the run has one. */
  runLabel?: string;
  /** The layer after which the exit decision would have exited. */
  layer: number;
  layerName: string;
  layersRun: number;
  policy: 'adr';
  config: ExitConfig;
  totalLayers: number;
  exitReason: ExitReason;
  signal: QualitySignal;
  decision: EarlyExitDecision;
  /** The layers run up to the exit that failed. */
  failingLayers: { layer: number; name: string }[];
  /** One prediction per skipped layer when the decision enables speculation. */
  speculations: { layer: number; name: string; predicted: Outcome; confidence: number }[];
  /** The skipped layers its verification would have run, graded. */
  verification: { layer: number; name: string; outcome: Outcome; correct: boolean }[];
  skipped: { layer: number; name: string; verified: boolean; actual: 'pass' | 'fail'; costMs: number | null }[];
  firstMissedFailure: { layer: number; name: string } | null;
  label: ReceiptLabel;
  /** The summed cost of the skipped layers verification would not have run. */
  computeSavedMs: number | null;
  /** Added by `appendReceipts`. */
  prevHash?: string | null;
  sha256?: string;
}

/** A shadow-mode result's `shadow` key. */
export interface ShadowReport {
  /** `'requested'`, or why an enforced run is in shadow mode (an artifact not promoted). */
  reason: string;
  receipts: (ShadowReceipt | AdrShadowReceipt)[];
  labels: { correctSkip: number; falsePass: number; needlessRun: number };
  computeSavedMs: number | null;
}

/** What `verifyReceipts` found: nothing from `brokenAt.line` on is trusted. */
export interface ReceiptCheck {
  valid: boolean;
  /** Receipts counted: each run once. */
  receipts: number;
  /** Lines that repeat an earlier receipt of the same run, body and all (a retried step): verified, not counted. */
  repeated: number;
  /** The last verified receipt's sha256 (compare it with one kept elsewhere to detect a cut tail). */
  head: string | null;
  brokenAt: { line: number; field: string; reason: string } | null;
  labels: Partial<Record<ReceiptLabel, number>>;
  /** False passes among green exits; needless runs among receipts (Wilson 95% intervals). */
  rates: ReceiptRates;
  /** The same per slice (the receipts' policy). */
  slices: { slice: string; receipts: number; labels: Partial<Record<ReceiptLabel, number>>; rates: ReceiptRates }[];
  /** Per user label (the receipts' `runLabel`), in first-seen order; unlabelled receipts are in none. */
  labelSlices: { runLabel: string; receipts: number; labels: Partial<Record<ReceiptLabel, number>>; rates: ReceiptRates }[];
}

/** A rate of `verifyReceipts`: `count` of `of`, null rate and interval without cases. */
export interface ReceiptRate {
  count: number;
  of: number;
  rate: number | null;
  wilson: [number, number] | null;
}

/** The receipt rates (docs/test-exit.md defines their denominators). */
export interface ReceiptRates {
  falsePass: ReceiptRate;
  needlessRun: ReceiptRate;
}

/** What `readJunit` answers: a layer result with the report's counts. */
export interface JunitLayerResult extends LayerResult {
  durationMs: number;
  total: number;
  passed: number;
  failed: number;
  flaky: number;
  /** Skipped tests: left out of `total`. */
  skipped: number;
}

/**
 * A JUnit / xUnit report's XML text read into a layer result by the command's reader (its
 * rules, limits and errors: `invalid_layer_result` naming `text` or `coverageXml`);
 * `coverageXml` is a Cobertura file's text (its line-rate is `coverage`, else 1). In
 * `earlyexit-wasm` it runs in the replay module.
 */
export declare function readJunit(text: string, options?: { coverageXml?: string }): JunitLayerResult;

/** Recomputes a JSONL receipt log's hash chain (SHA-256 over RFC 8785 canonical JSON). */
export declare function verifyReceipts(text: string): ReceiptCheck;
// @napi-only begin (bindings/js/build.mjs leaves this out of the wasm package's types)
/** A store's receipt log `log` checked (`store.verifyReceipts(log)`). */
export declare function verifyReceipts(store: Store, log: string): Promise<ReceiptCheck>;

/** Which runs `Store.runs` and `Store.exportRuns` select. */
export interface StoreRunFilter {
  /** Only runs with this label. */
  runLabel?: string | null;
  /** Only runs of this dataset. */
  dataset?: string | null;
  /** Only runs recorded at or after this time: RFC 3339, a Date or milliseconds since the epoch. */
  since?: string | Date | number | null;
  /** At most this many runs, the oldest first. */
  limit?: number | null;
}

/** One stored run, as `Store.runs` yields it. */
export interface StoredRun {
  /** The run's id in the store (the SHA-256 of the run unless one was given). */
  runId: string;
  runLabel: string | null;
  /** When it was recorded (milliseconds since the epoch). */
  recordedMs: number;
  /** The run in the replay JSONL form. */
  run: LoopRun;
}

/** A stored artifact's lifecycle; `state` is 'expired' past `expiresAt`, else 'promoted' or 'shadow'. */
export interface StoredArtifactInfo {
  name: string;
  kind: 'loop' | 'pyramid';
  expiresAt: string;
  promoted: boolean;
  sha256: string;
  state: 'promoted' | 'shadow' | 'expired';
}

/** What `Store.check` counted in a store that passed. */
export interface StoreCheck {
  valid: true;
  schemaVersion: number;
  runs: number;
  receiptLogs: number;
  receipts: number;
  artifacts: number;
  models: number;
}

/**
 * The run store (docs/store.md), `earlyexit` package only (earlyexit-wasm has no SQLite: it
 * reads and writes the JSONL form). Every method returns a Promise whose SQLite work runs off
 * the event loop; bad input rejects with an `EarlyExitError` naming the field.
 */
export declare class Store {
  private constructor();
  /** Opens (creating when missing) `sqlite:PATH`; `postgresql://` is refused (`store`): the `earlyexit` command reads those. */
  static open(url: string): Promise<Store>;
  /** The receipt log a `Loop` given a store writes its shadow receipt to (`'loops'`). */
  static readonly defaultLoopReceiptLog: string;
  readonly url: string;
  /**
   * Adds a run (an object or its JSON text): `true` when new, `false` when the same run was
   * there. `dataset` is set on a run without one (a run with another is refused).
   */
  addRun(run: LoopRun | string, options?: { runLabel?: string | null; runId?: string | null; recordedMs?: number | null; dataset?: string | null } | null): Promise<boolean>;
  /** The selected runs, oldest first, fetched a page at a time. */
  runs(options?: StoreRunFilter | null): AsyncGenerator<StoredRun, void, undefined>;
  /** Appends receipts to log `log`'s chain: how many lines were appended. */
  appendReceipts(log: string, receipts: ReadonlyArray<Record<string, unknown>>): Promise<number>;
  verifyReceipts(log: string): Promise<ReceiptCheck>;
  /** The log's JSONL text ('' when there is none). */
  receiptLog(log: string): Promise<string>;
  putArtifact(name: string, artifact: LoopCalibration | LoopCalibrationArtifact | Record<string, unknown> | string): Promise<StoredArtifactInfo>;
  artifact(name: string): Promise<(StoredArtifactInfo & { artifact: Record<string, unknown> }) | null>;
  mergeModel(name: string, model: OutcomeModel | Record<string, unknown> | string): Promise<Record<string, unknown>>;
  model(name: string): Promise<Record<string, unknown> | null>;
  /** Writes the selected runs to `path` as JSONL (what `earlyexit runs export` writes): how many. */
  exportRuns(path: string, options?: StoreRunFilter | null): Promise<number>;
  /** Adds a JSONL file's runs in one transaction, all or none. */
  importRuns(path: string, options?: { runLabel?: string | null } | null): Promise<{ read: number; added: number }>;
  check(): Promise<StoreCheck>;
  close(): Promise<void>;
}
// @napi-only end
/**
 * The JSONL lines that append `receipts` to the log `log` (its text, '' or null for a new one);
 * '' when there is nothing to append. A receipt whose run (`kind`, `policy`, `runId`) is already
 * in the log is left out when equal and refused (`receipts[i].runId`) when it differs.
 */
export declare function appendReceipts(log: string | null, receipts: readonly (ShadowReceipt | AdrShadowReceipt)[]): string;

/** The envelope every calibration artifact shares, pyramid and loop alike. */
export interface ArtifactEnvelope {
  kind: 'pyramid' | 'loop';
  schemaVersion: number;
  risk: number;
  delta: number;
  certificate: {
    method: string;
    hypotheses: { parameter: number; trials: number; events: number; pValue: number; rejected: boolean }[];
    sampleSizes: Record<string, number>;
  };
  corpusSha256: string;
  createdAt: string;
  expiresAt: string;
}

/** A calibration artifact (`calibratePyramidPolicy`'s answer is one, with its figures). */
export interface CalibrationArtifact extends ArtifactEnvelope {
  policy: { policy: 'fail_fast' | 'risk_bounded'; config: PyramidPolicyConfig };
  promotion: {
    promotedAt: string; auditCorpusSha256: string; auditRuns: number; trials: number; events: number;
    upperBound: number; method: string;
    /** SHA-256 of the artifact it promotes, with `promotion` null (schema version 2). */
    artifactSha256: string;
  } | null;
  body: Record<string, unknown>;
}

/** What `checkPyramidDrift` found. */
export interface DriftReport {
  status: 'fresh' | 'expired' | 'drifted';
  fresh: boolean;
  reasons: { kind: 'expired' | 'stage_set' | 'failure_rate' | 'false_pass'; stage: string | null; message: string }[];
  /** The artifact to run with now: unchanged when fresh, else demoted (`promotion: null`). */
  artifact: CalibrationArtifact;
  runs: number;
  expiresAt: string;
  now: string;
}

/**
 * What a promotion decided, alike for both kinds of artifact (one promotion rule): the audit
 * has the runs, the kind's own trials, events and rate (`Counts`), then the exact upper bound
 * and the terms it was judged by; `artifact` records the promotion when promoted.
 */
export interface PromotionOf<Counts, Artifact> {
  promoted: boolean;
  reason: string;
  audit: { runs: number } & Counts & {
    upperBound: number; wilson: [number, number] | null; risk: number; delta: number; corpusSha256: string;
  };
  artifact: Artifact;
}

/** What `promotePyramidPolicy` decided: failing runs are the trials, false passes the events. */
export interface PromotionResult
  extends PromotionOf<{ failingRuns: number; falsePasses: number; falsePassRate: number | null }, CalibrationArtifact> {}

/** Whether an artifact still holds for recent runs (`now`: ms, a Date or RFC 3339; the clock when absent). */
export declare function checkPyramidDrift(
  artifact: CalibrationArtifact | string,
  runs: readonly RecordedRun[] | string,
  now?: number | Date | string | null,
): DriftReport;
/** Promotes an artifact on audit runs disjoint from calibration (exact Clopper-Pearson bound). */
export declare function promotePyramidPolicy(
  artifact: CalibrationArtifact | string,
  auditRuns: readonly RecordedRun[] | string,
  now?: number | Date | string | null,
): PromotionResult;

/** Which policy decides a live run: the ADR's exit decision (the default), or the policy's. */
export type RunPolicyName = 'adr' | 'fail_fast' | 'risk_bounded';

/**
 * The policy options of a live run (`EarlyExitController`, `runWithEarlyExit`, `PyramidRun`):
 * `null` or absent keys take the defaults (a run's own options replace the controller's key by key).
 */
export interface PolicyRunOptions {
  /**
   * `'adr'` (default: the exit config decides), `'fail_fast'` or `'risk_bounded'`, or a
   * calibration artifact (object or JSON text): its policy, config and model; enforced only
   * once promoted, else the run is in shadow mode and `result.shadow.reason` says why.
   */
  policy?: RunPolicyName | CalibrationArtifact | string | null;
  /**
   * `'enforced'` (default), or `'shadow'`: every layer runs, and where the policy would have
   * exited is a receipt in the result's `shadow` (with the ADR's policy, where its exit
   * decision would have exited: `AdrShadowReceipt`).
   */
  mode?: 'enforced' | 'shadow' | null;
  /** The outcome model the policy decides from (empty when absent). */
  model?: ModelArgument;
  /** A partial config over the policy's preset (`riskBudget`: the certified budget). */
  policyConfig?: Partial<PyramidPolicyConfig> | null;
  /** The run's id (a CI build number), written into its shadow-mode receipt. */
  runId?: string | null;
  /**
   * The run's user label (a branch, a runner pool: 1 to 128 characters, not blank, no control
   * characters), written into its receipt as `runLabel`; reports slice by it.
   */
  label?: string | null;
  /**
   * With a calibration artifact as the policy: the time its expiry is checked at (ms since the
   * epoch, a Date or RFC 3339 text; the clock when absent). An expired artifact in enforced mode
   * runs in shadow mode and `result.shadow.reason` says when it expired.
   */
  now?: number | Date | string | null;
}

/** A policy run's `policy` report: the bound, the budget (`config.riskBudget`), the model's counts. */
export interface PolicyRunReport {
  policy: 'fail_fast' | 'risk_bounded';
  mode: 'enforced' | 'shadow';
  config: PyramidPolicyConfig;
  /** The bound that allowed a `risk_bounded` stop; null for any other stop. */
  risk: number | null;
  /** One per layer run, in run order: the bound it was chosen under (null: skipping not considered). */
  steps: { layer: number; risk: number | null }[];
  /** The layers never run, in pyramid order. */
  skipped: number[];
  /** The model's counts for every layer, as the run started. */
  counts: { layer: number; name: string; trials: number; failures: number; costMs: number | null }[];
  /** What the run teaches the model: `pyramidPolicyUpdate(model, report.ran)`. */
  ran: { name: string; failed: boolean; durationMs?: number }[];
}

/** A layer for the step API: what the core needs to know before running it. */
export interface LayerSpec {
  name: string;
  /** Expected cost in ms (what makes savings computable for layers that never run). */
  costMs?: number;
}

/**
 * A layer for `runWithEarlyExit`: `run()` returns a result or a Promise of one. When the run
 * was given a `signal`, each runner is called as `run({ signal })` with that same signal, so
 * it can stop its own work (a subprocess, a request) on abort; otherwise as `run()`.
 */
export interface Layer extends LayerSpec {
  run(options?: LayerRunOptions): LayerResult | PromiseLike<LayerResult>;
}

/** What a runner is called with when its run has a signal. */
export interface LayerRunOptions {
  /** The run's `signal` (the object given in `RunOptions`). */
  signal: AbortSignalLike;
}

/** The structural part of an `AbortSignal` that `runWithEarlyExit` uses. */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** The options of `runWithEarlyExit`: any other key is an `unknown_option` error. */
export interface RunOptions extends PolicyRunOptions {
  /**
   * Aborting rejects the run with the signal's reason; no further layer starts, and the
   * runner in progress gets the signal (`run({ signal })`). Anything but an AbortSignal,
   * `null` or `undefined` is an `invalid_config` error.
   */
  signal?: AbortSignalLike | null;
}

export type StepAction = { action: 'run'; layer: number } | { action: 'verify'; layer: number } | { action: 'done' };

export interface PyramidRunSnapshot {
  version: 1;
  engine: 'PyramidRun';
  config: ExitConfig;
  totalLayers: number;
  layers: LayerSpec[];
  submitted: { layer: number; result: LayerResult }[];
}

/** A policy run's snapshot (`PyramidRun.toJSON()` with a `fail_fast` / `risk_bounded` policy). */
export interface PyramidPolicyRunSnapshot {
  version: 1;
  engine: 'PyramidPolicyRun';
  options: Required<Omit<PolicyRunOptions, 'policy'>> & { policy: 'fail_fast' | 'risk_bounded' };
  layers: LayerSpec[];
  submitted: { layer: number; result: LayerResult }[];
}

export declare function calculateQualitySignal(layerResult: LayerResult): QualitySignal;
/** `countQualityPartitions`: pass rate < 0.9, coverage < 0.7, flaky ratio > 0.05, counted (the signal's `partitionCount`). */
export declare function countQualityPartitions(layerResult: LayerResult): number;

export declare class CoherenceEarlyExit implements Freeable {
  constructor(config: ExitOptions | null | undefined, totalLayers: number);
  shouldExit(signal: QualitySignalInput, layer: number): EarlyExitDecision;
  calculateAdaptiveExitLayer(signal: QualitySignalInput): number;
  /** The config merged over DEFAULT_EXIT_CONFIG. */
  readonly config: ExitConfig;
  readonly totalLayers: number;
  free(): void;
  [Symbol.dispose](): void;
}

export declare class SpeculativeExecutor implements Freeable {
  constructor(config?: ExitOptions | null);
  /**
   * One prediction per skipped layer (only `decision.confidence` and the layers' count are
   * read); the count may be given as a number (an integer from 0 to 1,000,000).
   */
  speculate(exitDecision: { confidence: number }, skippedLayers: Iterable<unknown> | number): Promise<Speculation[]>;
  predictLayerOutcome(layer: unknown, decision: { confidence: number }): Promise<Speculation>;
  /**
   * Runs the first `verificationLayers` skipped layers in order and records their outcomes
   * (an array with at least one layer per verified speculation: else an `invalid_config` error).
   */
  verify(speculations: readonly Speculation[], skippedLayers: ArrayLike<Layer>): Promise<Speculation[]>;
  readonly config: ExitConfig;
  free(): void;
  [Symbol.dispose](): void;
}

export declare class EarlyExitController implements Freeable {
  /**
   * With `options.policy` `'fail_fast'` or `'risk_bounded'` the policy decides every run
   * (docs/test-exit.md); in a browser, `await init({ replay: true })` first.
   */
  constructor(config: ExitOptions | null | undefined, totalLayers: number, options?: PolicyRunOptions | null);
  /**
   * Runs the layers in order until the exit decision lets the rest be skipped, then
   * verifies the first skipped ones. A runner that throws or rejects makes this reject
   * with that same error. The list and each layer's name, cost and runner are read once,
   * when the run starts (a list changed while a runner is awaited is an `invalid_config`
   * error on `layers`).
   */
  runWithEarlyExit(layers: readonly Layer[], options?: RunOptions | null): Promise<TestPyramidResult>;
  readonly earlyExit: CoherenceEarlyExit;
  readonly speculator: SpeculativeExecutor;
  free(): void;
  [Symbol.dispose](): void;
}

/** The core's step API, for callers that run the layers themselves (CI jobs, live dashboards). */
export declare class PyramidRun implements Freeable {
  constructor(
    config: ExitOptions | null | undefined,
    totalLayers: number,
    layers: readonly LayerSpec[],
    options?: PolicyRunOptions | null,
  );
  static start(
    config: ExitOptions | null | undefined,
    totalLayers: number,
    layers: readonly LayerSpec[],
    options?: PolicyRunOptions | null,
  ): PyramidRun;
  /** What to do next; advances nothing. */
  next(): StepAction;
  /** Feeds the pending action's result (an `invalid_step` error for any other layer). */
  submit(layer: number, result: LayerResult): void;
  /** The result once `next()` says done (an `invalid_step` error before). */
  result(): TestPyramidResult;
  toJSON(): PyramidRunSnapshot | PyramidPolicyRunSnapshot;
  static fromJSON(snapshot: PyramidRunSnapshot | PyramidPolicyRunSnapshot | string): PyramidRun;
  free(): void;
  [Symbol.dispose](): void;
}

export declare const DEFAULT_EXIT_CONFIG: ExitConfig;
export declare const AGGRESSIVE_EXIT_CONFIG: ExitConfig;
export declare const CONSERVATIVE_EXIT_CONFIG: ExitConfig;

/** The size limits every call is checked against (docs/limits.md), from the core. */
export interface Limits {
  /** Containers nested in one value passed to a call (200). */
  readonly valueDepth: number;
  /** Containers nested in one JSON document or JSONL line (256). */
  readonly documentDepth: number;
  /** Values in one argument, JSON document or JSONL line (16,777,216). */
  readonly values: number;
  /** Keys of one object (1,048,576). */
  readonly objectKeys: number;
  /** UTF-8 bytes of one string inside a value or document (16 MiB). */
  readonly stringBytes: number;
  /** UTF-8 bytes of one JSON document or JSONL line (256 MiB). */
  readonly documentBytes: number;
  /** Layers of one pyramid, and skipped layers one `speculate` call predicts (10,000). */
  readonly layers: number;
}
export declare const LIMITS: Limits;

// ---- Pyramid replay and the risk-bounded policy (docs/replay-pyramids.md) ----

/** One layer of a recorded run (JSONL: one run per line, these keys). */
export interface RecordedLayer {
  name?: string;
  durationMs: number;
  failed: boolean;
  total?: number;
  passed?: number;
  flakyRatio?: number;
  coverage?: number;
}
export interface RecordedRun {
  id?: string | number | null;
  timestamp?: number;
  layers: readonly RecordedLayer[];
}
export type PyramidPolicyName = 'default' | 'aggressive' | 'conservative' | 'fail_fast' | 'risk_bounded';
export interface PyramidPolicyConfig {
  riskBudget: number;
  confidence: number;
  priorFailures: number;
  priorPasses: number;
  reorder: boolean;
  skipOnSuccess: boolean;
  forgetting: number;
}
export interface PyramidOutcomeModel {
  version: 1;
  engine: 'PyramidOutcomeModel';
  layers: { name: string; trials: number; failures: number; costMs: number | null; costWeight: number }[];
}
/**
 * The outcome model that merges (version 2): a window of per-build outcomes keyed by the
 * caller's build id and sequence number (docs/test-exit.md, "Models that merge").
 */
export interface PyramidOutcomeModelV2 {
  version: 2;
  engine: 'PyramidOutcomeModel';
  window: number;
  /** The counts of the version 1 model it was converted from (with `note`). */
  base?: PyramidOutcomeModel;
  note?: string;
  builds: { id: string; seq: number; layers: { name: string; failed: boolean; durationMs?: number }[] }[];
}
/** Any model argument: a document of either version, its JSON text, an OutcomeModel, or null (empty). */
export type ModelArgument = PyramidOutcomeModel | PyramidOutcomeModelV2 | OutcomeModel | string | null;
/** A build's key: the caller's id and a sequence number ordering builds by recency. */
export interface BuildKey {
  id: string;
  seq: number;
}
/**
 * The mergeable outcome model (immutable: `learn` and `merge` answer a new one). In a browser,
 * `await init({ replay: true })` first.
 */
export declare class OutcomeModel {
  /** A new empty model, or `model` read (a version 1 one converted, its counts the base). */
  constructor(model?: ModelArgument, options?: { window?: number } | null);
  /** The union of both models' builds: commutative, associative, idempotent. */
  merge(other: ModelArgument): OutcomeModel;
  /** Learns one build (`ran`: the layers that ran, in run order) under its key. */
  learn(ran: readonly { name: string; failed: boolean; durationMs?: number }[], build: BuildKey): OutcomeModel;
  /** The version 1 statistics the policy decides from. */
  statistics(config?: Partial<PyramidPolicyConfig> | null): PyramidOutcomeModel;
  /** The most builds kept. */
  readonly window: number;
  /** How many builds it holds. */
  readonly size: number;
  /** Why it has a base (converted from a version 1 model), or null. */
  readonly note: string | null;
  toJSON(): PyramidOutcomeModelV2;
  static fromJSON(doc: PyramidOutcomeModelV2 | PyramidOutcomeModel | string): OutcomeModel;
}
export interface ReplayOptions {
  policy?: PyramidPolicyName;
  /** A partial config over the preset: an ExitConfig, or a PyramidPolicyConfig. */
  config?: ExitOptions | Partial<PyramidPolicyConfig> | null;
  model?: ModelArgument;
  learn?: 'ran' | 'all' | 'none';
}
export interface RunReplay {
  id: string | null;
  layers: number;
  layersRun: number;
  executed: number[];
  exitLayer: number;
  reason: string;
  verifiedLayers: number;
  failed: boolean;
  caught: boolean;
  missed: boolean;
  risk: number | null;
  costMs: number;
  savedNominalMs: number;
  savedActualMs: number;
}
/** `replayPyramids` / `shadowPyramids`: the aggregates over the replayed runs. */
export interface PyramidReplaySummary {
  runs: number;
  failingRuns: number;
  caught: number;
  missed: number;
  recall: number | null;
  declaredGreen: number;
  falsePassRate: number | null;
  falsePassCi: [number, number] | null;
  totalMs: number;
  savedNominalMs: number;
  savedActualMs: number;
  savedNominal: number | null;
  savedActual: number | null;
  layersTotal: number;
  layersRun: number;
  verifiedLayers: number;
  riskBoundedStops: number;
}
export interface ReplayReport {
  policy: PyramidPolicyName;
  runs: RunReplay[];
  summary: PyramidReplaySummary;
  model: PyramidOutcomeModel | null;
}
export interface CalibrationOptions {
  policy?: 'fail_fast' | 'risk_bounded';
  config?: Partial<PyramidPolicyConfig> | null;
  model?: ModelArgument;
  grid?: readonly number[];
  warmup?: number;
  /** The artifact's creation time (RFC 3339; default now). */
  createdAt?: string | null;
  /** Its expiry (RFC 3339; default 30 days after createdAt). */
  expiresAt?: string | null;
}
/** The calibration's figures, and the artifact's keys (`JSON.stringify` it to keep it). */
export interface Calibration extends CalibrationArtifact {
  riskBudget: number;
  config: PyramidPolicyConfig;
  steps: { riskBudget: number; failingRuns: number; missed: number; pValue: number; certified: boolean }[];
  model: PyramidOutcomeModel;
}
export type PolicyDecision =
  | { action: 'run'; layer: number; risk: number | null }
  | { action: 'stop'; reason: 'layer_failed' | 'risk_bounded' | 'completed'; risk: number | null };
export interface PolicyOptions {
  policy?: 'fail_fast' | 'risk_bounded';
  config?: Partial<PyramidPolicyConfig> | null;
}

/** Replays a policy over recorded runs (an array, or JSONL text); `invalid_replay` names the path. */
export declare function replayPyramids(runs: readonly RecordedRun[] | string, options?: ReplayOptions | null): ReplayReport;
/** Shadow mode over fully recorded runs: what the policy would have run and missed. */
export declare function shadowPyramids(
  runs: readonly RecordedRun[] | string,
  options?: Omit<ReplayOptions, 'learn'> | null,
): ReplayReport;
/** Learn-then-Test: the most aggressive risk budget whose miss rate is <= risk with probability 1 - delta. */
export declare function calibratePyramidPolicy(
  runs: readonly RecordedRun[] | string,
  risk: number,
  delta: number,
  options?: CalibrationOptions | null,
): Calibration;
/** The next step of a live run given the outcomes so far (in run order). */
export declare function pyramidPolicyDecide(
  model: ModelArgument,
  layers: readonly { name: string; costMs?: number }[],
  outcomes: readonly { layer: number; failed: boolean }[],
  options?: PolicyOptions | null,
): PolicyDecision;
/**
 * Learns one finished run (`ran` in run order); returns the new model document: version 1
 * without `build`, version 2 (a version 1 model converted) with `build`, its key.
 */
export declare function pyramidPolicyUpdate(
  model: PyramidOutcomeModel | null,
  ran: readonly { name: string; failed: boolean; durationMs?: number }[],
  options?: PolicyOptions | null,
): PyramidOutcomeModel;
export declare function pyramidPolicyUpdate(
  model: ModelArgument,
  ran: readonly { name: string; failed: boolean; durationMs?: number }[],
  options: PolicyOptions & { build: BuildKey },
): PyramidOutcomeModelV2;

/**
 * Where a wasm module comes from, as wasm-bindgen's init takes it: a URL or string, a
 * `Response` or a promise of one, bytes, or a `WebAssembly.Module` (`unknown`, so that these
 * types need no DOM library).
 */
export type WasmSource = unknown;

/** What `init` takes in the options form (earlyexit-wasm's web build). */
export interface InitOptions {
  /** Where the engines module is; default: `earlyexit_wasm_bg.wasm` next to the glue. */
  module?: WasmSource;
  /**
   * Also load the replay module (`replayLoops`, `replayPyramids`, `shadowPyramids`,
   * `calibratePyramidPolicy`, `pyramidPolicyDecide`, `pyramidPolicyUpdate`, `BehaviorDetector`,
   * `InterventionSystem`): `true` for
   * `earlyexit_replay_bg.wasm` next to the glue, or its source; `false`/absent: not loaded.
   */
  replay?: boolean | WasmSource;
}

/**
 * Browsers (earlyexit-wasm's web build): fetches and instantiates the engines module; await
 * it once before anything else. The replay functions need the replay module, which only
 * `init({ replay: true })` (or the two-argument form) loads: before that they throw an
 * `EarlyExitLoadError` with code `replay_not_loaded`; a failed replay load rejects with code
 * `replay_load_failed` and may be retried, the engines unaffected. Every form may be called
 * again: what is loaded stays loaded. In Node both packages are ready at load (replay loads
 * itself on first use) and this resolves at once.
 */
export declare function init(options?: InitOptions): Promise<void>;
/** The engines from `input`, and with `replayInput` the replay module from there too. */
export declare function init(input?: WasmSource, replayInput?: WasmSource): Promise<void>;

/**
 * Codes of earlyexit-wasm's errors that are not about a value passed to a call: loading in the
 * browser (`engines_load_failed`, `replay_*`), and recovery after a WebAssembly trap
 * (`instance_*`, both builds).
 */
export type LoadErrorCode = 'engines_load_failed' | 'replay_not_loaded' | 'replay_load_failed' | 'instance_trapped' | 'instance_reset';
/**
 * earlyexit-wasm's web build, loading: a plain `Error`. `engines_load_failed`: `init()` could not
 * fetch or instantiate the engines module (a bundler that did not emit the `.wasm` file: pass its
 * URL or bytes as `init({ module })`), `field` is `'module'`, `cause` the underlying error; a
 * later `init()` tries again. `replay_not_loaded`: a replay function
 * called before `init({ replay: true })` resolved, `field` is its name (`'replayLoops'`).
 * `replay_load_failed`: `init({ replay })` could not fetch or instantiate the replay module,
 * `field` is `'replay'`, `cause` the underlying error. `instance_trapped`: the call trapped in
 * the WebAssembly instance (out of memory, say) and changed nothing; a fresh instance answers
 * later calls; `field` is `'instance'`, `cause` the trap. `instance_reset`: the object was made
 * on an instance that trapped since (make it again); `field` is `'this'`.
 */
export interface EarlyExitLoadError extends Error {
  code: LoadErrorCode;
  field: string;
  cause?: unknown;
}

export default EarlyStopping;

// ---------------------------------------------------------------------------
// Loop replay and loop presets (docs/replay.md)

/** The named loop presets; `'seed'` is the default everywhere. */
export type LoopPresetName = 'seed' | 'recommended';
export declare const LOOP_PRESETS: readonly LoopPresetName[];
/** A named preset's full config, with `overrides` merged (validated). */
export declare function loopPreset(name: LoopPresetName, overrides?: EarlyStoppingOptions | null): EarlyStoppingConfig;

/** One recorded iteration of a replay run. */
export interface ReplayIteration {
  quality_score: number;
  confidence: number;
  verification_status: VerificationStatus;
  /** Absent: this score minus the previous one. */
  quality_delta?: number;
  tokens_used?: number;
  token_cost_usd?: number;
  execution_time_ms?: number;
  /** Ground truth: was the output really good? Absent or null: a passed verification counts as good. */
  good?: boolean | null;
}

/** One recorded run (one JSONL line). */
export interface ReplayRun {
  id: string | number;
  dataset?: string;
  split?: string;
  iterations: readonly ReplayIteration[];
}

/** What to replay: a preset name, or a preset with a config merged over it. */
export type LoopPolicy =
  | LoopPresetName
  | {
      preset?: LoopPresetName;
      config?: EarlyStoppingOptions;
      /** Which output the policy hands back: the last run or the decision's best (default: the preset's). */
      returns?: 'last' | 'best';
      /** Attach the built-in IterationAnalytics (true, or its config), or not (false). */
      analytics?: boolean | Partial<AnalyticsRules>;
    };

/** What the policy did on one run. */
export interface ReplayRunOutcome {
  id: string;
  dataset?: string;
  iterations_available: number;
  iterations_run: number;
  stopped: boolean;
  trigger: Exclude<Trigger, 'none'> | 'end_of_run';
  reason: string | null;
  returned_iteration: number;
  returned_quality: number;
  best_iteration: number;
  best_quality: number;
  quality_gap: number;
  premature: boolean;
  wasted_iterations: number;
  returned_good: boolean;
  false_pass: boolean;
}

/** `replayLoops`: the aggregates over the replayed runs. */
/** Triggers a replay summary lists only once one of them stopped a run. */
export type OnceFiredTrigger = 'behavior_pause' | 'behavior_abort' | 'completed' | 'unchanged' | 'revisit';

export interface LoopReplaySummary {
  runs: number;
  iterations_available: number;
  iterations_used: number;
  mean_iterations: number;
  share_of_available: number;
  mean_returned_quality: number;
  mean_best_quality: number;
  mean_quality_gap: number;
  premature_stops: number;
  premature_rate: number;
  wasted_iterations: number;
  mean_wasted_iterations: number;
  returned_good: number;
  reachable_good: number;
  false_passes: number;
  ended_without_stop: number;
  /** Stops per trigger; the behaviour and progress triggers only once one stopped a run. */
  triggers: Record<Exclude<Trigger, 'none' | OnceFiredTrigger>, number> & Partial<Record<OnceFiredTrigger, number>>;
}

export interface LoopReplay {
  policy: { config: EarlyStoppingConfig; returns: 'last' | 'best'; analytics: AnalyticsRules | false };
  summary: LoopReplaySummary;
  runs: ReplayRunOutcome[];
}

/** Replays a loop policy over recorded runs (objects, or JSONL text) in one native call. */
export declare function replayLoops(runs: readonly ReplayRun[] | string, policy?: StopPolicy | null): LoopReplay;

/** `calibrateLoopPolicy`'s options (docs/replay.md "Calibrated policies"). */
export interface LoopCalibrationOptions {
  /** The premature-stop rate to certify, 0 < risk < 1; default 0.025. */
  risk?: number;
  /** The probability the certificate may be wrong, 0 < delta < 1; default 0.1. */
  delta?: number;
  /** Points of the built-in family's path (default 100). */
  steps?: number;
  /** A path of your own, most conservative first (instead of the family). */
  candidates?: readonly LoopPolicy[];
  /** Days the artifact is trusted (default 90). */
  validDays?: number;
}

/** One candidate of a calibration's path with its figures on the calibration runs. */
export interface LoopFrontierRow {
  index: number;
  aggressiveness: number;
  policy: { config: EarlyStoppingConfig; returns: 'last' | 'best'; analytics: AnalyticsRules | false };
  iterationsUsed: number;
  meanIterations: number;
  shareOfAvailable: number;
  meanQualityGap: number;
  prematureRuns: number;
  prematureRate: number;
  prematureTasks: number;
  returnedGood: number;
  pValue: number;
  tested: boolean;
  rejected: boolean;
}

/** The calibration artifact of a loop policy (the envelope both engines share, kind `loop`). */
export interface LoopCalibrationArtifact extends ArtifactEnvelope {
  kind: 'loop';
  /** The chosen policy; with a composed candidate chosen, also its tree (`any`, `all`, ...). */
  policy: { config: EarlyStoppingConfig; returns: 'last' | 'best'; analytics: AnalyticsRules | false }
    & Partial<Exclude<StopCondition, string | { condition: StopConditionKind }>>;
  promotion: object | null;
  body: {
    certified: boolean;
    status: 'certified' | 'not_certified' | 'too_few_runs';
    message: string;
    policy: LoopCalibrationArtifact['policy'];
    risk: number;
    delta: number;
    certificate: object;
    frontier: LoopFrontierRow[];
    warnings: string[];
  };
}

/** `calibrateLoopPolicy`'s answer; `JSON.stringify` writes its artifact. */
export declare class LoopCalibration {
  readonly artifact: LoopCalibrationArtifact;
  readonly policy: LoopCalibrationArtifact['policy'];
  readonly certified: boolean;
  readonly status: 'certified' | 'not_certified' | 'too_few_runs';
  readonly message: string;
  readonly frontier: LoopFrontierRow[];
  readonly warnings: string[];
  toJSON(): LoopCalibrationArtifact;
}

// ---------------------------------------------------------------------------
// Loop: the refine loop an agent is written with (docs/loop-helper.md).

/** `new Loop(options)`: the policy (a preset, a stop policy, a calibration) and the loop's settings. */
export interface LoopOptions<T = unknown> {
  /** A preset name (default `recommended`); `policy` wins when both are given. */
  preset?: LoopPresetName | null;
  /** Any policy the engines take: a preset name, a stop policy, a `LoopPolicy`, or a `LoopCalibration`. */
  policy?: LoopPolicy | StopPolicy | LoopCalibration | null;
  /**
   * A calibration artifact (or the `LoopCalibration`) the loop runs with: its calibrated policy
   * once promoted and current, else its calibration's most conservative policy with the
   * calibrated one in shadow (`shadowReason`; `shadow` is then refused).
   */
  artifact?: LoopCalibration | LoopCalibrationArtifact | null;
  /**
   * A candidate run beside the policy without stopping the loop (a preset name, a policy, a
   * `LoopCalibration` or a loop artifact): decisions carry `would_stop`, `finish()` the receipt.
   * The loop's policy or `maxIterations` must hold a hard cap (`invalid_config` naming `shadow`).
   */
  shadow?: LoopPresetName | LoopPolicy | StopPolicy | LoopCalibration | LoopCalibrationArtifact | null;
  /** The scale of `quality`: 100 (the engines', default) or 1. */
  scale?: 1 | 100;
  /** A cap on the iterations (>= 1), checked after the policy and after `done`. */
  maxIterations?: number | null;
  /** The task's id: the run's `id` (repeated runs of one task pass the same). */
  task?: string | null;
  /** The run's `dataset`. */
  dataset?: string | null;
  /** The caller's label for this run (kept in the snapshot; the run's label in a `store`). */
  runLabel?: string | null;
  // @napi-only begin
  /**
   * A run store (`await Store.open(url)`, the `earlyexit` package only): `finish()` then returns
   * a Promise, resolved once the run (under the loop's run id, its receipt's `runId`) and its
   * shadow receipt (log `receiptLog`) are stored; finishing again stores nothing more.
   * `await loop.finish()` types either way.
   */
  store?: Store | null;
  /**
   * The store's receipt log the shadow receipt goes to (1 to 256 characters, checked here),
   * `Store.defaultLoopReceiptLog` when absent; refused without `store` (`invalid_config`).
   */
  receiptLog?: string | null;
  // @napi-only end
  /** Replaces the automatic fingerprint (SHA-256 of a string, bytes or plain JSON value); null/undefined: none. */
  fingerprintOf?: ((output: T) => string | null | undefined) | null;
}

/** One step's arguments: `quality` on the loop's scale, the rest optional. */
export interface LoopStepArgs {
  quality: number;
  /** 0..1; absent records 0, so `high_confidence` cannot fire without one. */
  confidence?: number | null;
  /** true: passed, false: failed, absent: skipped; or a status. */
  verified?: boolean | VerificationStatus | null;
  /** The loop's own completion signal: stops with trigger `completed` whatever the policy. */
  done?: boolean | null;
  /** The iteration's ground truth, when known (a run's per-iteration `good`). */
  good?: boolean | null;
  tokens?: number | null;
  costUsd?: number | null;
  timeMs?: number | null;
  error?: string | null;
  /** Recorded as `artifacts_modified`. */
  files?: readonly string[] | null;
  /** At most 256 characters; given, it replaces the automatic fingerprint. */
  fingerprint?: string | null;
}

/** An output the loop kept, its quality on the loop's scale. */
export interface LoopOutput<T = unknown> {
  iteration: number;
  output: T;
  quality: number;
}

/** `loop.run()` / `finish()`: the run in the replay and calibration JSONL form. */
export interface LoopRun {
  id: string;
  dataset?: string;
  iterations: Array<Omit<IterationRecord, 'iteration_number' | 'timestamp'> & { good?: boolean }>;
}

/** `loop.toJSON()`: the engine's snapshot, the settings and the kept outputs. */
export interface LoopDocument {
  engine: EarlyStoppingSnapshot;
  scale: 1 | 100;
  max_iterations?: number;
  task?: string;
  dataset?: string;
  run_label?: string;
  goods: Array<[number, boolean]>;
  decision?: StoppingDecision;
  best?: { iteration: number; quality: number; output?: unknown };
  last?: { iteration: number; quality: number; output?: unknown };
  completed?: { iteration: number; quality: number; output?: unknown };
}

/** The refine loop: counts iterations, maps scores, keeps the best, last and completed outputs, stops on `done`. */
export declare class Loop<T = unknown> implements Freeable {
  constructor(options?: LoopOptions<T>);
  /** Records one iteration (numbered for you) and returns the engine's decision. */
  step(output: T, args: LoopStepArgs): StoppingDecision;
  /** The best output so far (the engine's best-iteration rule); null before the first step. */
  readonly best: LoopOutput<T> | null;
  /** The last output; null before the first step. */
  readonly last: LoopOutput<T> | null;
  /** What to hand back: the completed output on a `completed` stop, else the policy's `returns`. */
  readonly output: T | null;
  /** The last decision; null before the first step. */
  readonly decision: StoppingDecision | null;
  /** The recorded iterations (copies). */
  readonly history: IterationRecord[];
  /** The run (`id`: `task`, else a random UUID, the same for this loop). */
  run(): LoopRun;
  /**
   * Closes the run; `good` (when given) is set on the iteration `output` came from. The run also
   * carries (not enumerable) `run` and `receipt` (null without a shadow).
   */
  finish(good?: boolean | null): LoopRun & { readonly run: LoopRun; readonly receipt: Record<string, unknown> | null };
  /** The run's shadow receipt so far (null without a shadow). */
  receipt(): Record<string, unknown> | null;
  /** Why the shadow runs in shadow when the loop put it there itself (an artifact not promoted or expired). */
  readonly shadowReason: string | null;
  /** The document `Loop.fromJSON` reads; `{ outputs: false }` leaves the outputs out. */
  toJSON(options?: { outputs?: boolean } | string): LoopDocument;
  static fromJSON<T = unknown>(snapshot: LoopDocument | string, options?: { fingerprintOf?: ((output: T) => string | null | undefined) | null }): Loop<T>;
  free(): void;
  [Symbol.dispose](): void;
}

/** Calibrates a loop policy (Learn-then-Test) on recorded runs of one task family. */
/** `calibrationPlan`'s answer: the tasks a loop calibration needs to certify `risk` at `delta`. */
export interface CalibrationPlan {
  risk: number;
  delta: number;
  /** The fewest tasks that certify with no premature stop (an artifact's `minimumToCertify`). */
  minimumToCertify: number;
  /** With 0, 1, 2 and 3 premature stops. */
  tasksNeeded: { prematureStops: number; tasks: number | null }[];
}
/** How many tasks a loop calibration needs (defaults: risk 0.025, delta 0.1; 91 tasks with no premature stop). */
export declare function calibrationPlan(risk?: number, delta?: number): CalibrationPlan;
export declare function calibrationPlan(options: { risk?: number; delta?: number }): CalibrationPlan;
export declare function calibrateLoopPolicy(runs: readonly ReplayRun[] | string, options?: LoopCalibrationOptions | null): LoopCalibration;
export declare function calibrateLoopPolicy(runs: readonly ReplayRun[] | string, risk: number, delta?: number, options?: LoopCalibrationOptions | null): LoopCalibration;

/**
 * What `promoteLoopPolicy` decided (docs/lifecycle.md): tasks are the trials, tasks stopped
 * prematurely the events.
 */
export interface LoopPromotionResult
  extends PromotionOf<{ tasks: number; prematureTasks: number; prematureRate: number | null }, LoopCalibrationArtifact> {}

/** What `checkLoopDrift` found (docs/lifecycle.md). */
export interface LoopDriftReport {
  status: 'fresh' | 'expired' | 'drifted';
  fresh: boolean;
  reasons: { kind: 'expired' | 'dataset' | 'premature_rate' | 'premature_stop'; message: string }[];
  /** The artifact to run with now: unchanged when fresh, else demoted (`promotion: null`). */
  artifact: LoopCalibrationArtifact;
  runs: number;
  tasks: number;
  prematureTasks: number;
  expiresAt: string;
  now: string;
}

/**
 * Promotes a loop calibration artifact on audit runs that share no task with its calibration
 * (exact Clopper-Pearson bound of the premature-stop rate within its risk at its delta). Until
 * then an engine given the artifact enforces the calibration's most conservative policy.
 * `now`: ms, a Date or RFC 3339; the clock when absent. In the wasm package's web build,
 * after `init({ replay: true })`.
 */
export declare function promoteLoopPolicy(
  artifact: LoopCalibration | LoopCalibrationArtifact | string | URL,
  auditRuns: readonly ReplayRun[] | string,
  now?: number | Date | string | null,
): LoopPromotionResult;
/** Whether a loop artifact still holds for recent runs; its `artifact` is demoted unless fresh. */
export declare function checkLoopDrift(
  artifact: LoopCalibration | LoopCalibrationArtifact | string | URL,
  runs: readonly ReplayRun[] | string,
  now?: number | Date | string | null,
): LoopDriftReport;

/**
 * @deprecated The two replays' summaries differ: `PyramidReplaySummary` (`replayPyramids`,
 * `shadowPyramids`) and `LoopReplaySummary` (`replayLoops`). This name (once both merged into
 * one impossible type) stays for code that names it.
 */
export type ReplaySummary = PyramidReplaySummary | LoopReplaySummary;

// ---------------------------------------------------------------------------
// Behaviour detectors and graded interventions (docs/behavior.md): drop-ins for aiwg's
// behavior-detector.mjs and intervention-system.mjs. In earlyexit-wasm's web build they need
// the replay module: `await init({ replay: true })` first.

/** What a detector finds. */
export type DetectionType = 'stuck' | 'oscillation' | 'deviation' | 'resource_burn' | 'regression';
/** How serious a detection is, mildest first. */
export type Severity = 'low' | 'medium' | 'high' | 'critical';
/** How hard an intervention steps in, mildest first. */
export type InterventionLevel = 'log' | 'warn' | 'redirect' | 'pause' | 'abort';

/**
 * upstream's thresholds. A group given to the constructor or `updateThresholds` replaces the
 * whole group: a field it leaves out is absent, which switches its rule off (an absent
 * `noProgressIterations` makes the stuck window the whole history).
 */
export interface BehaviorThresholds {
  /** Same error `sameErrorCount` times (integer >= 1, default 3) in the last `noProgressIterations` (integer >= 1, default 5). */
  stuck: { sameErrorCount?: number; noProgressIterations?: number };
  /** `undoRedoCycles` (integer >= 1, default 2) reverts of at least `fileChurnThreshold` of the files (0..1, default 0.8). */
  oscillation: { undoRedoCycles?: number; fileChurnThreshold?: number };
  /** Learnings sharing less than `objectiveSimilarity` (0..1, default 0.5) of the objective's words; `scopeCreepRatio` is read by no rule. */
  deviation: { objectiveSimilarity?: number; scopeCreepRatio?: number };
  /** Iterations used at `iterationMultiplier` times the estimate (finite >= 0, default 2); `costMultiplier` is read by no rule. */
  resource: { costMultiplier?: number; iterationMultiplier?: number };
  /** Coverage drops of `coverageDropPercent` points (0..100, default 10); `testPassToFail` is read by no rule (tests are always checked). */
  regression: { testPassToFail?: boolean; coverageDropPercent?: number };
}
/** upstream's `THRESHOLDS`: a plain object, read when a detector is made. */
export declare const THRESHOLDS: BehaviorThresholds;

export interface BehaviorDetectorOptions {
  thresholds?: Partial<BehaviorThresholds> | null;
}

/**
 * One iteration of a loop's history, as upstream's loop records it: the detectors read these
 * fields (absent or null: unknown) and ignore every other key.
 */
export interface BehaviorIteration {
  /** The iteration's number (integer >= 0). */
  number?: number | null;
  analysis?: {
    failureClass?: string | null;
    error?: string | null;
    blockers?: readonly string[] | null;
    /** 0..100; the rules read it as a fraction (0.02 of progress per iteration, 0.5 done). Not null. */
    completionPercentage?: number;
    artifactsModified?: readonly string[] | null;
    learnings?: string | null;
    /** Not null. */
    testsPassing?: boolean;
    /** 0..100; 0 reads as unknown. */
    coveragePercent?: number | null;
    [key: string]: unknown;
  } | null;
  context?: {
    objective?: string | null;
    /** Integer >= 1; default 10. */
    maxIterations?: number | null;
    [key: string]: unknown;
  } | null;
  [key: string]: unknown;
}

export interface StuckEvidence {
  repeatedError: string;
  occurrences: number;
  avgProgressRate: number;
  recentBlockers: string[];
}
export interface OscillationEvidence {
  undoRedoCycles: number;
  recentFileChanges: string[][];
}
export interface DeviationEvidence {
  originalObjective: string;
  deviationExamples: { iteration: number; similarity: number; artifacts: string[] }[];
  averageSimilarity: number;
}
export interface ResourceBurnEvidence {
  estimatedIterations: number;
  actualIterations: number;
  iterationRatio: number;
  completionPercent: number;
  efficiency: number;
}
export interface RegressionEvidence {
  regressions: ({ iteration: number; message: string } | { iteration: number; message: string; from: number; to: number })[];
}

interface DetectionOf<T extends DetectionType, S extends Severity, E> {
  type: T;
  severity: S;
  message: string;
  evidence: E;
  recommendations: string[];
}
export type StuckDetection = DetectionOf<'stuck', 'high' | 'critical', StuckEvidence>;
export type OscillationDetection = DetectionOf<'oscillation', 'high', OscillationEvidence>;
export type DeviationDetection = DetectionOf<'deviation', 'medium', DeviationEvidence>;
export type ResourceBurnDetection = DetectionOf<'resource_burn', 'high' | 'critical', ResourceBurnEvidence>;
export type RegressionDetection = DetectionOf<'regression', 'high' | 'critical', RegressionEvidence>;
/** What the detectors answer (upstream's `Detection`). */
export type Detection = StuckDetection | OscillationDetection | DeviationDetection | ResourceBurnDetection | RegressionDetection;

/**
 * What an intervention takes: a detection, or one built by hand, read as upstream reads it
 * (docs/behavior.md): any text as the type (one upstream does not know takes its default
 * branch) or the severity (none, or one it does not know: logged); a message wherever
 * nothing quotes it may be left out (a warning quotes it); other keys are kept.
 */
export interface DetectionInput {
  type: DetectionType | (string & {});
  severity?: Severity | (string & {}) | null;
  message?: string;
  /** Read for a redirect: `repeatedError` (string or null) with `occurrences`, `originalObjective`. */
  evidence?: object | null;
  recommendations?: readonly string[] | null;
}

export declare class BehaviorDetector {
  constructor(options?: BehaviorDetectorOptions | null);
  /** The thresholds (upstream's public field; checked when a method reads it). */
  thresholds: BehaviorThresholds;
  /** Every detector's detection, in upstream's order; none for an empty (or null) history. */
  detect(history: readonly BehaviorIteration[] | null | undefined): Detection[];
  detectStuck(history: readonly BehaviorIteration[]): StuckDetection | null;
  detectOscillation(history: readonly BehaviorIteration[]): OscillationDetection | null;
  detectDeviation(history: readonly BehaviorIteration[]): DeviationDetection | null;
  detectResourceBurn(history: readonly BehaviorIteration[]): ResourceBurnDetection | null;
  detectRegression(history: readonly BehaviorIteration[]): RegressionDetection | null;
  updateThresholds(thresholds?: Partial<BehaviorThresholds> | null): void;
  getThresholds(): BehaviorThresholds;
}

interface InterventionOf<L extends InterventionLevel, D> {
  level: L;
  /** The detection's message (undefined when it has none, as upstream's). */
  reason?: string;
  /** The caller's own detection object. */
  detection: D;
  timestamp: string;
}
/** upstream's `Intervention`: the level's keys after the common ones. */
export type Intervention<D extends DetectionInput = DetectionInput> =
  | (InterventionOf<'log', D> & { action: string })
  | (InterventionOf<'warn', D> & { warning: string })
  | (InterventionOf<'redirect', D> & { strategyOverride: string })
  | (InterventionOf<'pause', D> & { requiresApproval: true })
  | (InterventionOf<'abort', D> & { requiresApproval: true; abortReason?: string });
/** What `resume()` logs. */
export interface Resumption {
  level: 'resume';
  reason?: string;
  timestamp: string;
  previousPauseReason: string | null;
}
export type InterventionLogEntry = Intervention | Resumption;

export interface InterventionSummary {
  total: number;
  byLevel: Partial<Record<InterventionLevel | 'resume', number>>;
  byType: Partial<Record<DetectionType, number>>;
  isPaused: boolean;
  pauseReason: string | null;
}

export interface InterventionState {
  interventionLog: InterventionLogEntry[];
  isPaused: boolean;
  pauseReason: string | null;
}

export interface InterventionSystemOptions {
  onIntervention?: ((intervention: Intervention) => void) | null;
  onPause?: ((intervention: Intervention) => void) | null;
  onAbort?: ((intervention: Intervention) => void) | null;
  /** The time of each intervention and resumption as RFC 3339 text; default: now. */
  clock?: (() => string) | null;
}

export declare class InterventionSystem {
  constructor(options?: InterventionSystemOptions | null);
  onIntervention: (intervention: Intervention) => void;
  onPause: (intervention: Intervention) => void;
  onAbort: (intervention: Intervention) => void;
  /** upstream's log (the last 100 interventions, and resumptions). */
  interventionLog: InterventionLogEntry[];
  isPaused: boolean;
  pauseReason: string | null;
  intervene<D extends DetectionInput>(detection: D): Intervention<D>;
  determineLevel(detection: DetectionInput): InterventionLevel;
  buildWarning(detection: DetectionInput): string;
  buildStrategyOverride(detection: DetectionInput): string;
  injectWarning(prompt: string, warning: string): string;
  resume(approvalReason?: string): boolean;
  getPauseStatus(): { isPaused: boolean; reason: string | null };
  /** The last `limit` entries; everything for 0, null or none (as upstream). */
  getLog(limit?: number | null): InterventionLogEntry[];
  getSummary(): InterventionSummary;
  clearLog(): void;
  reset(): void;
  exportState(): InterventionState;
  importState(state: Partial<InterventionState>): void;
}
/** upstream's `INTERVENTION_LEVELS` (frozen). */
export declare const INTERVENTION_LEVELS: Readonly<{
  LOG: 'log';
  WARN: 'warn';
  REDIRECT: 'redirect';
  PAUSE: 'pause';
  ABORT: 'abort';
}>;
