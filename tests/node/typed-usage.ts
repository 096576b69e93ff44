// Type-checked with `tsc --noEmit --strict -p tests/node/tsconfig.json` (scripts/test-node.sh):
// every public name of both packages, used the way the README shows, as an ES module.
import EarlyStoppingDefault, {
  EarlyStopping,
  Loop,
  type LoopOutput,
  type LoopRun,
  type LoopDocument,
  IterationAnalytics,
  calculateQualitySignal,
  CoherenceEarlyExit,
  SpeculativeExecutor,
  EarlyExitController,
  PyramidRun,
  OutcomeModel,
  DEFAULT_EXIT_CONFIG,
  AGGRESSIVE_EXIT_CONFIG,
  CONSERVATIVE_EXIT_CONFIG,
  init,
  type StoppingDecision,
  type WouldStop,
  type ShadowCandidateSnapshot,
  type StoppingSummary,
  type IterationRecord,
  type EarlyStoppingConfig,
  type EarlyExitError,
  type ErrorCode,
  type TestPyramidResult,
  type PolicyRunOptions,
  type PolicyRunReport,
  type PyramidOutcomeModelV2,
  type Verdict,
  type FailingLayer,
  type DuplicateRecord,
  type LayerResult,
  type Layer,
  type LayerRunOptions,
  type Speculation,
  type StepAction,
  type Trigger,
  type ExitReason,
  type DiminishingReturnsSource,
  type EarlyStoppingOptions,
  type BudgetStatus,
  type Budget,
  type StopTrigger,
  type StopDecision,
  type StoppingDetails,
  type BudgetExhaustedDetails,
  type QualityRegressionDetails,
  type MaxIterationsDetails,
  type PlateauMode,
  type PlateauDeltaSource,
} from 'earlyexit';
import { replayLoops, calibrateLoopPolicy, calibrationPlan, CalibrationPlan, LoopCalibration, promoteLoopPolicy, checkLoopDrift, type LoopPromotionResult, type LoopDriftReport, loopPreset, LOOP_PRESETS, isEarlyExitError, countQualityPartitions, replayPyramids } from 'earlyexit';
import type { LoopReplay, ReplayRun, ReplayRunOutcome, LoopReplaySummary, PyramidReplaySummary, ReplaySummary, RecordedRun, AnalyticsRecord, AnalyticsSummary, StopCondition } from 'earlyexit';
import type { EarlyExitLoadError, InitOptions, LoadErrorCode } from 'earlyexit-wasm';
import * as wasm from 'earlyexit-wasm';

async function loop(): Promise<number | null> {
  await init();
  const analytics = new IterationAnalytics({ consecutiveCountThreshold: 2, selectionCriteria: 'highest_quality' });
  const es: EarlyStopping = new EarlyStoppingDefault({ plateauConsecutiveCount: 3, maxIterations: 10 }, analytics);
  es.recordIterationResult(1, { quality_score: 72, confidence: 0.8, verification_status: 'passed', quality_delta: 0, tokens_used: 120 });
  analytics.recordIteration({ iteration_number: 1, quality_score: 72, verification_status: 'passed' });
  const decision: StoppingDecision = es.shouldStop(1);
  const trigger: Trigger = decision.trigger;
  const reason: string = decision.reason;
  const best: number | null = decision.best_iteration;
  if (decision.details && 'average_quality' in decision.details) {
    const average: number = decision.details.average_quality;
    void average;
  }
  const summary: StoppingSummary = es.generateSummary();
  if (summary.total_iterations > 0 && 'stopping_trigger' in summary) void summary.stopping_trigger;
  const history: IterationRecord[] = es.getIterationHistory();
  const config: EarlyStoppingConfig = es.getConfig();
  es.configure({ minQualityThreshold: 80 });
  const stoppingReason: string | null = es.getStoppingReason();
  const restored = EarlyStopping.fromJSON(JSON.stringify(es.toJSON()), analytics);
  restored.free();
  const source: DiminishingReturnsSource = { detectDiminishingReturns: () => ({ detected: false, iteration: null, reason: 'n/a' }) };
  {
    using scoped = new EarlyStopping(null, source);
    scoped.reset();
  }
  const optimal = analytics.getOptimalIteration(false);
  void [trigger, reason, history, config, stoppingReason, optimal?.quality_delta, analytics.generateSummary().quality_trajectory];
  // upstream's iteration-analytics.mjs form, its record fields, summary, report and files.
  const upstream = new IterationAnalytics('loop-1', 'Fix the flaky tests', { storagePath: '/tmp/earlyexit-typed', persist: false });
  const record: AnalyticsRecord = upstream.recordIteration({
    iteration_number: 1, quality_score: 70, verification_status: 'passed', output_snapshot_path: null, reflections: ['terse'],
  });
  const upstreamSummary: AnalyticsSummary = upstream.generateSummary();
  const loopId: string | null = upstream.loopId;
  upstream.endTime = '2026-01-01T00:00:00Z';
  const text: string = upstream.generateReport({ generatedAt: '2026-01-02T00:00:00Z' }) + upstream.generateQualityChart();
  const paths: { json: string; markdown: string } | null = null;
  void [record.reflections, upstreamSummary.diminishing_returns_iteration, loopId, text, paths, IterationAnalytics.formatDuration(1000)];
  upstream.free();
  try {
    es.recordIterationResult(2, { quality_score: Number.NaN, confidence: 1, verification_status: 'passed', quality_delta: 0 });
  } catch (error) {
    const e = error as EarlyExitError;
    const code: ErrorCode = e.code;
    const field: string = e.field;
    if (e instanceof RangeError) void [code, field];
  }
  return best;
}

// The opt-in options ("Beyond the seed"): camelCase keys, typed config, the trigger union
// narrowing `details`, the budgets list.
function options(): [Trigger, number | null, BudgetStatus[]] {
  const mode: PlateauMode = 'absolute';
  const source: PlateauDeltaSource = 'computed';
  const opts: EarlyStoppingOptions = {
    plateauDeltaSource: source, plateauMode: mode, plateauImprovementThreshold: 1, minIterations: 2, maxIterations: 20,
    maxTotalTokens: 1000, maxTotalCostUsd: 0.5, maxWallClockMs: 60_000, regressionTolerance: 5, regressionPatience: 2,
  };
  const es = new EarlyStopping(opts);
  es.configure({ maxTotalTokens: 150, minIterations: 1 });
  const config: EarlyStoppingConfig = es.getConfig();
  const max: number | undefined = config.maxIterations;
  const tolerance: number | undefined = config.regressionTolerance;
  es.recordIterationResult(1, { quality_score: 70, confidence: 0.5, verification_status: 'failed', quality_delta: 0, tokens_used: 100 });
  es.recordIterationResult(2, { quality_score: 72, confidence: 0.5, verification_status: 'failed', quality_delta: 2, tokens_used: 100 });
  const d: StoppingDecision = es.shouldStop();
  const budgets: BudgetStatus[] = d.budgets ?? [];
  const which: Budget | undefined = budgets[0]?.budget;
  if (d.trigger === 'budget_exhausted') {
    const spent: BudgetExhaustedDetails = d.details; // narrowed by the trigger
    const over: number = spent.observed - spent.limit;
    const unknown: number = d.details.records_without_value;
    void [over, unknown];
  } else if (d.trigger === 'quality_regression') {
    const fell: QualityRegressionDetails = d.details;
    void fell.best_quality_score;
  } else if (d.trigger === 'max_iterations') {
    const capped: MaxIterationsDetails = d.details;
    void capped.max_iterations;
  } else if (d.trigger === 'none') {
    const none: undefined = d.details;
    void none;
  }
  if (d.stop) {
    const stopped: StopDecision = d;
    const t: StopTrigger = stopped.trigger;
    const details: StoppingDetails = stopped.details;
    void [t, details];
  }
  const only: StopDecision<'budget_exhausted'> | null = d.trigger === 'budget_exhausted' ? d : null;
  void [max, tolerance, which, only?.details.budget];
  return [d.trigger, d.best_iteration, budgets];
}

async function pyramid(): Promise<TestPyramidResult> {
  const signal = calculateQualitySignal({ passRate: 0.98, coverage: 0.9, flakyRatio: 0.01 });
  const exit = new CoherenceEarlyExit(AGGRESSIVE_EXIT_CONFIG, 4);
  const reasonOf: ExitReason = exit.shouldExit(signal, 1).reason;
  const speculator = new SpeculativeExecutor({ ...CONSERVATIVE_EXIT_CONFIG, verificationLayers: 1 });
  const predictions = await speculator.speculate({ confidence: 0.9 }, [1, 2]);
  const run = (passRate: number) => (): LayerResult => ({ passRate, coverage: 0.95, flakyRatio: 0 });
  const layers: Layer[] = [
    { name: 'unit', costMs: 1_000, run: run(1) },
    { name: 'integration', costMs: 5_000, run: async () => run(0.99)() },
  ];
  const verified = await speculator.verify(predictions, layers);
  const controller = new EarlyExitController({ exitLayer: 0 }, layers.length);
  const result = await controller.runWithEarlyExit(layers, { signal: new AbortController().signal });
  // A runner that takes the run's signal (to stop its own work on abort), and a count for speculate.
  const cancellable: Layer = { name: 'e2e', run: async ({ signal }: LayerRunOptions = { signal: new AbortController().signal }) => (signal.aborted ? run(0)() : run(1)()) };
  await controller.runWithEarlyExit([cancellable], { signal: null });
  const counted: Speculation[] = await speculator.speculate({ confidence: 0.9 }, 3);
  const saved: number | null = result.computeSavedMs;
  const verdict: Verdict = result.verdict;
  const failing: FailingLayer[] = result.failingLayers;
  if (verdict === 'failed') void failing.map((f) => `${f.layer}:${f.name}`);
  const steps = PyramidRun.start(DEFAULT_EXIT_CONFIG, 2, [{ name: 'unit', costMs: 10 }, { name: 'e2e' }]);
  for (let action: StepAction = steps.next(); action.action !== 'done'; action = steps.next()) {
    steps.submit(action.layer, { passRate: 1, coverage: 0.9, flakyRatio: 0 });
  }
  const resumed = PyramidRun.fromJSON(steps.toJSON());
  void [reasonOf, verified[0]?.actual, saved, resumed.result().layersExecuted];
  // A policy decides (docs/test-exit.md): the controller's options, a run's own, the report.
  const options: PolicyRunOptions = { policy: 'risk_bounded', model: null, policyConfig: { riskBudget: 0.005 } };
  const policed = new EarlyExitController(null, layers.length, options);
  const decided = await policed.runWithEarlyExit(layers, { policy: 'fail_fast', signal: null });
  const report: PolicyRunReport | undefined = decided.policy;
  if (report !== undefined) void [report.risk, report.config.riskBudget, report.counts[0]?.trials, report.ran];
  const byPolicy = PyramidRun.start(null, 2, [{ name: 'unit' }, { name: 'e2e' }], { policy: 'fail_fast' });
  void PyramidRun.fromJSON(byPolicy.toJSON());
  // Models that merge: learn under a build key, merge, pass wherever a model goes.
  const mine = new OutcomeModel(null, { window: 500 }).learn([{ name: 'unit', failed: false, durationMs: 3 }], { id: 'pr-1#4', seq: 4 });
  const fleet: OutcomeModel = mine.merge(new OutcomeModel()).merge(mine.toJSON());
  const doc: PyramidOutcomeModelV2 = fleet.toJSON();
  void [doc.builds.length, fleet.size, fleet.window, fleet.note, fleet.statistics({ forgetting: 1 }).layers];
  await new EarlyExitController(null, 2, { policy: 'risk_bounded', model: fleet }).runWithEarlyExit(layers);
  // The ADR's exit decision in shadow mode: its receipt narrows on `policy`.
  const adrShadow = await new EarlyExitController(null, 2, { mode: 'shadow' }).runWithEarlyExit(layers, { runId: 'b1' });
  for (const receipt of adrShadow.shadow?.receipts ?? []) {
    if (receipt.policy === 'adr') void [receipt.decision.confidence, receipt.speculations[0]?.layer, receipt.verification.length];
    else void receipt.thresholds.riskBudget;
  }
  return steps.result();
}

async function browserShaped(): Promise<void> {
  await wasm.init();
  const es = new wasm.EarlyStopping();
  es.recordIterationResult(1, { quality_score: 90, confidence: 0.99, verification_status: 'passed', quality_delta: 0 });
  const decision: StoppingDecision = es.shouldStop();
  es.free();
  const result: TestPyramidResult = await new wasm.EarlyExitController(null, 1).runWithEarlyExit([
    { name: 'unit', run: () => ({ passRate: 1, coverage: 1, flakyRatio: 0 }) },
  ]);
  void [decision, result, wasm.default];
}

// The browser build's replay module: loaded only on request (bindings/wasm/README.md "Two modules").
async function browserReplay(replayUrl: string): Promise<LoopReplay | null> {
  await wasm.init();
  const runs: ReplayRun[] = [{ id: 'a', iterations: [{ quality_score: 40, confidence: 0.4, verification_status: 'failed' }] }];
  try {
    wasm.replayLoops(runs);
  } catch (err) {
    const loadError = err as EarlyExitLoadError;
    const code: LoadErrorCode = loadError.code; // 'replay_not_loaded', field 'replayLoops'
    void [code, loadError.field];
  }
  const recovery: LoadErrorCode[] = ['instance_trapped', 'instance_reset']; // after a WebAssembly trap
  void recovery;
  const options: InitOptions = { replay: true };
  await wasm.init(options);
  await wasm.init({ replay: new URL(replayUrl) });
  await wasm.init({ module: 'earlyexit_wasm_bg.wasm', replay: replayUrl });
  await wasm.init(undefined, replayUrl); // the two-argument form: replay too
  await init({ replay: true }); // the Node package accepts (and ignores) it too
  return wasm.replayLoops(runs, 'recommended');
}

// Loop replay and presets (docs/replay.md).
function loopReplay(): number {
  const runs: ReplayRun[] = [{ id: 'a', iterations: [{ quality_score: 40, confidence: 0.4, verification_status: 'failed' }] }];
  const replay: LoopReplay = replayLoops(runs, 'recommended');
  const custom = replayLoops(runs, { preset: 'seed', config: { noImprovementPatience: 2 }, returns: 'best', analytics: false });
  const engine = EarlyStopping.fromPreset('recommended', { maxIterations: 10 });
  const strict: boolean | undefined = engine.getConfig().strictIterations;
  const again: DuplicateRecord | undefined = engine.recordIterationResult(1, { quality_score: 40, confidence: 0.4, verification_status: 'failed', quality_delta: 0 });
  if (again?.duplicate) void strict;
  const trigger: ReplayRunOutcome['trigger'] = replay.runs[0].trigger;
  const config: EarlyStoppingConfig = loopPreset('seed');
  void [custom, engine, trigger, config, LOOP_PRESETS, wasm.replayLoops];
  // Calibration (docs/replay.md "Calibrated policies"): both call styles, the artifact live.
  const passed: ReplayRun[] = [{ id: 'b', iterations: [{ quality_score: 100, confidence: 1, verification_status: 'passed' }] }];
  const cal: LoopCalibration = calibrateLoopPolicy(passed, { risk: 0.1, delta: 0.1, steps: 20 });
  const again2 = calibrateLoopPolicy(JSON.stringify(passed[0]), 0.1, 0.1, { validDays: 30 });
  const live = EarlyStopping.fromCalibration(cal);
  const fromText = EarlyStopping.fromCalibration(JSON.stringify(again2));
  const status: 'certified' | 'not_certified' | 'too_few_runs' = cal.status;
  const gap: number = cal.frontier[0].meanQualityGap + cal.artifact.certificate.hypotheses.length;
  void [live, fromText, status, gap, cal.certified, cal.policy.config.noImprovementPatience];
  // A chosen composed candidate: the artifact's policy carries its tree beside the config.
  const tree: StopCondition[] | undefined = 'any' in cal.artifact.policy ? cal.artifact.policy.any : undefined;
  const expires: string = cal.artifact.expiresAt;
  void [tree, expires];
  // The tasks a certificate needs, and an artifact named by a file: URL.
  const plan: CalibrationPlan = calibrationPlan(0.025, 0.1);
  const needed: number | null = calibrationPlan({ risk: 0.05 }).tasksNeeded[0].tasks;
  const fromFile = (url: URL): EarlyStopping => EarlyStopping.fromCalibration(url);
  // Shadow mode (docs/lifecycle.md): the third argument's `shadow`, never a config or policy key.
  const shadowed = new EarlyStopping({ maxIterations: 5 }, null, { shadow: { preset: 'recommended' } });
  const withPolicy = new EarlyStopping(null, null, { policy: { any: [{ condition: 'max_iterations', limit: 4 }] }, shadow: cal });
  const would: WouldStop | undefined = shadowed.shouldStop().would_stop;
  const shadowIteration: number | undefined = would?.iteration;
  const shadowReason: string | null = live.shadowReason;
  const kept: ShadowCandidateSnapshot | undefined = shadowed.toJSON().shadow;
  void [withPolicy, shadowIteration, shadowReason, kept?.name];
  void [plan.minimumToCertify, needed, fromFile];
  // Promotion and drift (docs/lifecycle.md): an artifact, its text or a file: URL.
  const promotion: LoopPromotionResult = promoteLoopPolicy(cal, passed, new Date());
  const drift: LoopDriftReport = checkLoopDrift(promotion.artifact, JSON.stringify(passed[0]), '2026-01-01T00:00:00Z');
  const upper: number = promotion.audit.upperBound;
  const premature: [number, number | null] = [promotion.audit.prematureTasks, promotion.audit.prematureRate];
  // @ts-expect-error a loop's audit counts tasks, not the pyramid's false passes
  void promotion.audit.falsePasses;
  const kind: 'expired' | 'dataset' | 'premature_rate' | 'premature_stop' | undefined = drift.reasons[0]?.kind;
  void [drift.status, kind, upper, premature, (url: URL) => checkLoopDrift(url, passed)];
  return replay.summary.mean_quality_gap;
}

// What strict users hit: a caught error narrowed by the guard (no cast), readonly arrays,
// and the loop replay's summary as its own type (it once merged with the pyramid one's).
function strictUsers(): [number, number, number] {
  try {
    new EarlyStopping({ plateauConsecutiveCount: 1 });
  } catch (error) {
    if (!isEarlyExitError(error)) throw error;
    const code: ErrorCode = error.code;
    const field: string = error.field;
    const kind: 'type' | 'range' = error instanceof TypeError ? 'type' : 'range';
    void [code, field, kind];
  }
  const layers: readonly Layer[] = [{ name: 'unit', costMs: 1, run: () => ({ passRate: 1, coverage: 1, flakyRatio: 0 }) }];
  const specs = [{ name: 'unit', costMs: 1 }] as const;
  void new EarlyExitController(null, 1).runWithEarlyExit(layers);
  PyramidRun.start(null, 1, specs).free();
  const runs: readonly RecordedRun[] = [{ layers: [{ name: 'unit', durationMs: 1, failed: false }] as const }];
  const pyramidSummary: PyramidReplaySummary = replayPyramids(runs).summary;
  const loopRuns: readonly ReplayRun[] = [{ id: 'a', iterations: [{ quality_score: 40, confidence: 0.4, verification_status: 'failed' }] }];
  const fromFile: LoopReplay['summary'] = {
    runs: 1, iterations_available: 1, iterations_used: 1, mean_iterations: 1, share_of_available: 1,
    mean_returned_quality: 40, mean_best_quality: 40, mean_quality_gap: 0, premature_stops: 0, premature_rate: 0,
    wasted_iterations: 0, mean_wasted_iterations: 0, returned_good: 0, reachable_good: 0, false_passes: 0,
    ended_without_stop: 1,
    triggers: { high_confidence: 0, quality_plateau: 0, diminishing_returns: 0, max_iterations: 0, budget_exhausted: 0, quality_regression: 0, no_improvement: 0 },
  };
  const loopSummary: LoopReplaySummary = replayLoops(loopRuns).summary;
  const either: ReplaySummary[] = [pyramidSummary, loopSummary, fromFile];
  for (const name of LOOP_PRESETS) EarlyStopping.fromPreset(name).free();
  return [countQualityPartitions({ passRate: 0.5, coverage: 1, flakyRatio: 0 }), either.length, pyramidSummary.failingRuns];
}

void loop();
void strictUsers();
void options();
void loopReplay();
void pyramid();
void browserShaped();
void browserReplay('earlyexit_replay_bg.wasm');

// Behaviour detectors and interventions (docs/behavior.md), as upstream's overseer uses them.
import {
  BehaviorDetector,
  InterventionSystem,
  THRESHOLDS,
  INTERVENTION_LEVELS,
  type BehaviorIteration,
  type BehaviorThresholds,
  type Detection,
  type DetectionInput,
  type DetectionType,
  type Severity,
  type Intervention,
  type InterventionLevel,
  type InterventionLogEntry,
  type InterventionSummary,
  type InterventionState,
  type StuckDetection,
} from 'earlyexit';

function overseer(): [number, string] {
  const history: BehaviorIteration[] = [
    { number: 1, analysis: { error: 'E1', completionPercentage: 0.2, artifactsModified: ['a.ts'] }, context: { objective: 'fix the parser', maxIterations: 4 } },
    { number: 2, analysis: { error: 'E1', completionPercentage: 0.2, testsPassing: true, coveragePercent: 80 }, output: 'ignored' },
  ];
  const thresholds: BehaviorThresholds = { ...THRESHOLDS, stuck: { sameErrorCount: 2 } };
  const detector = new BehaviorDetector({ thresholds });
  detector.updateThresholds({ regression: { coverageDropPercent: 5 } });
  const stuck: StuckDetection | null = detector.detectStuck(history);
  const found: Detection[] = detector.detect(history);
  const system = new InterventionSystem({
    onPause: (i: Intervention) => console.log(i.reason),
    clock: () => '2026-01-01T00:00:00.000Z',
  });
  let text = '';
  for (const detection of found) {
    const intervention: Intervention<Detection> = system.intervene(detection);
    if (intervention.level === 'warn') text = system.injectWarning('task', intervention.warning);
    if (intervention.level === 'redirect') text = intervention.strategyOverride;
    const type: DetectionType = intervention.detection.type;
    void type;
  }
  const byHand: DetectionInput = { type: 'deviation', severity: 'low' satisfies Severity, message: 'drift' };
  const level: InterventionLevel = system.determineLevel(byHand);
  const log: InterventionLogEntry[] = system.getLog(0);
  const summary: InterventionSummary = system.getSummary();
  const state: InterventionState = system.exportState();
  system.importState(state);
  system.resume('approved');
  void [stuck?.evidence.repeatedError, level === INTERVENTION_LEVELS.LOG, log.length];
  return [summary.total, text];
}
void overseer();

// Loop, the refine-loop helper: typed options, steps, kept outputs, runs and snapshots.
import { policy as stopPolicies } from 'earlyexit';
function refine(): string | null {
  const loop = new Loop<{ text: string }>({
    preset: 'recommended', scale: 1, maxIterations: 20, task: 't-17', dataset: 'demo', runLabel: 'r1',
    fingerprintOf: (o) => o.text,
  });
  const decision: StoppingDecision = loop.step({ text: 'v1' }, { quality: 0.8, tokens: 1200, verified: true, done: false, files: ['a.py'] });
  if (decision.stop && decision.trigger === 'completed') void decision.details.completed_iteration;
  const best: LoopOutput<{ text: string }> | null = loop.best;
  const run: LoopRun = loop.finish(true);
  const doc: LoopDocument = loop.toJSON({ outputs: false });
  const back = Loop.fromJSON<{ text: string }>(JSON.stringify(doc));
  const p = stopPolicies;
  const when = p.stopPolicy(p.anyOf(p.completed(), p.unchanged(3), p.revisit(4)));
  const other = new Loop<string>({ policy: when });
  other.step('draft', { quality: 70, fingerprint: 'abc', costUsd: 0.01, timeMs: 5 });
  other.free();
  // Shadow mode: a candidate beside the policy; finish() carries the receipt.
  const shadowed = new Loop<string>({ preset: 'recommended', maxIterations: 5, shadow: 'seed' });
  shadowed.step('draft', { quality: 70 });
  const { run: shadowRun, receipt } = shadowed.finish(true);
  const reason: string | null = shadowed.shadowReason;
  void [shadowRun.id, receipt?.label, reason, shadowed.receipt()];
  void [run.id, back.history.length, loop.run().iterations.length, loop.decision?.stop, loop.last?.quality];
  return best === null ? null : best.output.text;
}
void refine();

// readJunit: a report's text into a layer result with its counts.
import { readJunit } from 'earlyexit';
import type { JunitLayerResult } from 'earlyexit';
const fromReport: JunitLayerResult = readJunit('<testsuite name="s"><testcase name="a"/></testsuite>', {});
void [fromReport.passRate, fromReport.skipped];

// The run store (docs/store.md), the native package only.
import { Store, type StoredRun, type StoreCheck, verifyReceipts as verifyStoreReceipts } from 'earlyexit';
async function storeUsage(): Promise<void> {
  const store: Store = await Store.open('sqlite:runs.db');
  const loop = new Loop<string>({ store, runLabel: 'nightly', receiptLog: 'nightly-receipts', maxIterations: 3 });
  loop.step('a', { quality: 50 });
  const finished: LoopRun = await loop.finish(true);
  const added: boolean = await store.addRun(finished, { runLabel: 'nightly', dataset: 'tickets' });
  for await (const stored of store.runs({ runLabel: 'nightly', since: new Date(0), limit: 10 })) {
    const one: StoredRun = stored;
    const id: string = one.run.id;
    void id;
  }
  const checked: StoreCheck = await store.check();
  const valid: boolean = (await verifyStoreReceipts(store, Store.defaultLoopReceiptLog)).valid;
  const n: number = await store.exportRuns('out.jsonl', { dataset: 'd' });
  const imported: { read: number; added: number } = await store.importRuns('out.jsonl');
  void [added, checked, valid, n, imported];
  await store.close();
}
void storeUsage;
