// Generates tests/vectors/behavior/behavior.json: BehaviorDetector and InterventionSystem
// vectors, every expected value from aiwg's behavior-detector.mjs and intervention-system.mjs
// themselves (source "reference"), except expected errors and the documented differences
// (source "hand", from docs/behavior.md).
//
//   node tests/vectors/behavior/gen_behavior.mjs <reference-dir>   (make vectors runs it)
//
// Deterministic: every random choice comes from the seeded PRNG of ../common.mjs, and the
// reference's clock answers the time each call gives (`now`). It prints how often each
// detection type and each intervention level occurred, and fails when a type, a severity of a
// type, or a level that a detection can reach never occurs from a detection (the log level,
// which no detector reaches, must occur through direct `intervene()` calls).
//
// Format: {"about", "vectors": [{"name", "engine": "BehaviorDetector" | "InterventionSystem",
//   "source": "reference" | "hand", "only"?, "construct": {"options"?},
//   "calls": [{"call", "args", "now"?, "from"?, "returns"? | "throws"?}], "callbacks"?}]}.
// - `now`: the time the host's clock answers during the call (intervene, resume).
// - `from: "detector"` on an `intervene` call: its detection came from a detector's answer in
//   the same file (the suites count levels reached from detections apart from direct calls).
// - `callbacks`: how often onIntervention, onPause, onAbort must have been called in all.
// - A call with no `returns` returns undefined (Python: None). `throws` = {code, field, kind},
//   field in JS spelling. Keys are JS spelled; the Python suite maps them (test_behavior.py).

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { prng } from '../common.mjs';
import { PROFILES, history, thresholds } from './random_history.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const dir = process.argv[2];
if (!dir) {
  console.error('usage: node tests/vectors/behavior/gen_behavior.mjs <reference-dir>   (e.g. ../shared/reference)');
  process.exit(2);
}
const bd = await import(pathToFileURL(path.resolve(dir, 'behavior-detector.mjs')).href);
const is = await import(pathToFileURL(path.resolve(dir, 'intervention-system.mjs')).href);

const json = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

// The reference's clock answers `now` while `fn` runs.
function atTime(now, fn) {
  const RealDate = globalThis.Date;
  class VectorClock extends RealDate {
    constructor(...args) {
      if (args.length > 0) super(...args);
      else if (now === undefined) throw new Error('the reference read the clock where the vector gives no time');
      else super(now);
    }
  }
  globalThis.Date = VectorClock;
  try {
    return fn();
  } finally {
    globalThis.Date = RealDate;
  }
}

let clockSeconds = 0;
const nextNow = () => new Date(Date.UTC(2026, 0, 1) + 1000 * ++clockSeconds + (clockSeconds % 7) * 13).toISOString();

// ---------------------------------------------------------------------------
// Running the references

const tally = { types: {}, severities: {}, levelsFromDetections: {}, levelsDirect: {} };
const bump = (table, key) => { table[key] = (table[key] ?? 0) + 1; };

function countDetections(value) {
  for (const d of Array.isArray(value) ? value : value ? [value] : []) {
    bump(tally.types, d.type);
    bump(tally.severities, `${d.type}/${d.severity}`);
  }
}

// A BehaviorDetector vector: `steps` are [call, ...args]; every answer is the reference's.
function detectorVector(name, options, steps) {
  const ref = options === undefined ? new bd.BehaviorDetector() : new bd.BehaviorDetector(structuredClone(options));
  const calls = [];
  for (const step of steps) {
    if (!Array.isArray(step)) { // an expected error: not run on the reference
      calls.push(step);
      continue;
    }
    const [call, ...args] = step;
    const returns = json(ref[call](...structuredClone(args)));
    if (call.startsWith('detect')) countDetections(returns);
    calls.push(returns === undefined ? { call, args } : { call, args, returns });
  }
  return { name, engine: 'BehaviorDetector', source: 'reference', construct: options === undefined ? {} : { options }, calls };
}

// An InterventionSystem vector: steps are [call, ...args] or {call, args, from}; intervene and
// resume get a time.
function interventionVector(name, steps) {
  const counts = { onIntervention: 0, onPause: 0, onAbort: 0 };
  const ref = new is.InterventionSystem({
    onIntervention: () => counts.onIntervention++,
    onPause: () => counts.onPause++,
    onAbort: () => counts.onAbort++,
  });
  const calls = [];
  for (const step of steps) {
    if (step.throws) { // an expected error: not run on the reference
      calls.push(step);
      continue;
    }
    const { call, args, from } = Array.isArray(step) ? { call: step[0], args: step.slice(1) } : step;
    const entry = { call, args };
    let returns;
    if (call === 'intervene' || call === 'resume') {
      entry.now = nextNow();
      returns = atTime(entry.now, () => ref[call](...structuredClone(args)));
    } else {
      returns = ref[call](...structuredClone(args));
    }
    if (call === 'intervene') {
      bump(from === 'detector' ? tally.levelsFromDetections : tally.levelsDirect, returns.level);
      if (from !== undefined) entry.from = from;
    }
    if (returns !== undefined) entry.returns = json(returns);
    calls.push(entry);
  }
  return { name, engine: 'InterventionSystem', source: 'reference', construct: {}, calls, callbacks: counts };
}

const DETECTORS = ['detectStuck', 'detectOscillation', 'detectDeviation', 'detectResourceBurn', 'detectRegression'];

const vectors = [];

// Upstream's defaults, and groups given in part.
vectors.push(detectorVector('getThresholds: upstream\'s THRESHOLDS', undefined, [['getThresholds']]));
vectors.push(detectorVector('a partial group replaces the whole group (stuck window: the whole history)',
  { thresholds: { stuck: { sameErrorCount: 3 } } },
  [['getThresholds'], ['detectStuck', [1, 2, 3, 4, 5, 6, 7].map((n) => ({ number: n, analysis: { error: n <= 3 ? 'E' : 'F', completionPercentage: 0.5 } }))]]));
vectors.push(detectorVector('updateThresholds merges whole groups', undefined,
  [['updateThresholds', { oscillation: { undoRedoCycles: 1 } }], ['getThresholds'], ['updateThresholds', undefined], ['getThresholds'],
    ['updateThresholds', { regression: {} }], ['getThresholds'], ['detect', [], ], ['detect', null]]));

// Object.entries order decides ties: array-index strings first.
vectors.push(detectorVector('tie between errors: the array-index string wins', { thresholds: { stuck: { sameErrorCount: 3, noProgressIterations: 6 } } },
  [['detectStuck', ['timeout', '404', 'timeout', '404', 'timeout', '404'].map((e) => ({ analysis: { error: e } }))],
    ['detectStuck', ['b', 'a', 'b', 'a', '70', 'b', 'a', '70', '70'].map((e) => ({ analysis: { failureClass: e } }))],
    ['detectStuck', ['b', 'a', 'b', 'a', 'b', 'a'].map((e) => ({ analysis: { failureClass: e } }))]]));
for (const v of vectors.slice(-1)) {
  const winners = v.calls.map((c) => c.returns?.evidence.repeatedError);
  if (winners.join() !== '404,70,b') throw new Error(`the tie vectors no longer tie: ${winners}`);
}

const r = prng(20260201);
for (let i = 0; i < 200; i++) {
  const profile = PROFILES[i % PROFILES.length];
  const options = thresholds(r);
  const h = history(r, profile);
  // Every detector alone on a quarter of the histories (detect runs all five on each).
  const steps = i % 4 === 0 ? [['detect', h], ...DETECTORS.map((d) => [d, h])] : [['detect', h]];
  if (r.chance(0.2)) steps.push(['detect', h.slice(0, r.int(0, h.length))]);
  vectors.push(detectorVector(`random ${profile} history ${i}`, options, steps));
}

// Interventions on what the detectors found, with the log, pauses and summaries.
const found = vectors.flatMap((v) => v.calls.filter((c) => c.call === 'detect').flatMap((c) => c.returns));
const r2 = prng(20260202);
for (let i = 0; i < 40; i++) {
  const steps = [];
  for (let k = 0; k < r2.int(1, 8); k++) {
    steps.push({ call: 'intervene', args: [r2.pick(found)], from: 'detector' });
    const roll = r2.next();
    if (roll < 0.2) steps.push(r2.chance(0.8) ? ['resume', 'approved by reviewer'] : ['resume']);
    else if (roll < 0.3) steps.push(['getPauseStatus']);
    else if (roll < 0.4) steps.push(['getLog', r2.pick([null, 0, 1, 2, 50])]);
  }
  steps.push(['getSummary'], ['getLog'], ['getPauseStatus']);
  if (r2.chance(0.3)) steps.push(['exportState']);
  vectors.push(interventionVector(`interventions on detections ${i}`, steps));
}

// Every type at every severity, directly (low is the only way to the log level).
const direct = [];
for (const type of ['stuck', 'oscillation', 'deviation', 'resource_burn', 'regression']) {
  for (const severity of ['low', 'medium', 'high', 'critical']) {
    const detection = {
      type, severity, message: `${type} at ${severity}`,
      evidence: type === 'deviation' ? { originalObjective: 'Ship the parser' } : { repeatedError: 'E42', occurrences: 4 },
      recommendations: ['one', 'two'],
    };
    direct.push(['intervene', detection], ['determineLevel', detection], ['buildWarning', detection], ['buildStrategyOverride', detection]);
  }
}
vectors.push(interventionVector('every type at every severity', [...direct, ['getSummary'], ['getLog', 0], ['getLog', 3]]));
const bare = { type: 'stuck', severity: 'high', message: 'bare' };
vectors.push(interventionVector('detections without recommendations or a named error', [
  ['intervene', { ...bare, evidence: {} }],
  ['intervene', { ...bare, evidence: { repeatedError: '' } }],
  ['intervene', { type: 'regression', severity: 'medium', message: 'no recommendations' }],
  ['intervene', { type: 'deviation', severity: 'low', message: 'empty list', recommendations: [] }],
  ['buildStrategyOverride', { type: 'deviation', severity: 'high', message: 'd', evidence: {} }],
  ['buildWarning', { type: 'oscillation', severity: 'high', message: 'o', recommendations: [] }],
  ['injectWarning', 'Write the parser.', '⚠️ OVERSEER WARNING: x\n\n'],
  ['injectWarning', '', ''],
]));
const pause = { type: 'stuck', severity: 'critical', message: 'stuck for good', evidence: { repeatedError: 'E', occurrences: 6 }, recommendations: ['r'] };
const abort = { type: 'regression', severity: 'critical', message: 'tests broke twice', evidence: { regressions: [] }, recommendations: [] };
vectors.push(interventionVector('pause, resume, abort and the state', [
  ['resume', 'nothing to resume'], ['getPauseStatus'], ['intervene', pause], ['getPauseStatus'], ['intervene', abort],
  ['resume', 'approved'], ['getPauseStatus'], ['intervene', pause], ['resume'], ['exportState'], ['getSummary'],
  ['clearLog'], ['getSummary'], ['intervene', pause], ['reset'], ['exportState'],
]));
// The log keeps the last 100 interventions; a resumption is appended untrimmed.
const many = [];
for (let i = 0; i < 104; i++) many.push(['intervene', { type: 'stuck', severity: i % 2 ? 'low' : 'critical', message: `m${i}`, evidence: {} }]);
vectors.push(interventionVector('the log keeps the last 100', [...many, ['resume', 'ok'], ['getSummary'], ['getLog', 2],
  ['intervene', { type: 'deviation', severity: 'medium', message: 'after' }], ['getSummary'], ['getLog', 1]]));
// State taken over: upstream's rules for each field.
const exported = interventionVector('state to import', [['intervene', pause], ['exportState']]).calls.at(-1).returns;
vectors.push(interventionVector('importState takes what is given', [
  ['importState', exported], ['getPauseStatus'], ['getSummary'], ['resume', 'go'],
  ['importState', { isPaused: true, pauseReason: '' }], ['getPauseStatus'],
  ['importState', { isPaused: false, pauseReason: null }], ['getPauseStatus'],
  ['importState', { pauseReason: 'kept' }], ['getPauseStatus'],
  ['importState', { interventionLog: [] }], ['getSummary'], ['importState', {}], ['exportState'],
]));

// ---------------------------------------------------------------------------
// Expected errors and the documented differences (hand)

const hand = (v) => vectors.push({ source: 'hand', ...v });
const err = (code, field, kind) => ({ code, field, kind });
const okHistory = [{ analysis: { error: 'E', completionPercentage: 0.1 } }];
const badHistories = [
  ['history not an array', { a: 1 }, err('invalid_result', 'history', 'type')],
  ['entry not an object', [5], err('invalid_result', 'history[0]', 'type')],
  ['analysis not an object', [{ analysis: 'x' }], err('invalid_result', 'history[0].analysis', 'type')],
  ['context not an object', [{}, { context: [] }], err('invalid_result', 'history[1].context', 'type')],
  ['number not an integer', [{ number: 1.5 }], err('invalid_result', 'history[0].number', 'range')],
  ['number negative', [{ number: -1 }], err('invalid_result', 'history[0].number', 'range')],
  ['failureClass not a string', [{ analysis: { failureClass: 404 } }], err('invalid_result', 'history[0].analysis.failureClass', 'type')],
  ['error not a string', [{ analysis: { error: true } }], err('invalid_result', 'history[0].analysis.error', 'type')],
  ['blockers not an array', [{ analysis: { blockers: 'b' } }], err('invalid_result', 'history[0].analysis.blockers', 'type')],
  ['a blocker not a string', [{ analysis: { blockers: ['b', 2] } }], err('invalid_result', 'history[0].analysis.blockers[1]', 'type')],
  ['completion NaN', [{ analysis: { completionPercentage: { $num: 'NaN' } } }], err('invalid_result', 'history[0].analysis.completionPercentage', 'range')],
  ['completion over 100', [{ analysis: { completionPercentage: 100.5 } }], err('invalid_result', 'history[0].analysis.completionPercentage', 'range')],
  ['completion negative', [{ analysis: { completionPercentage: -0.1 } }], err('invalid_result', 'history[0].analysis.completionPercentage', 'range')],
  ['completion a string', [{ analysis: { completionPercentage: '0.5' } }], err('invalid_result', 'history[0].analysis.completionPercentage', 'type')],
  ['artifacts not an array', [{ analysis: { artifactsModified: {} } }], err('invalid_result', 'history[0].analysis.artifactsModified', 'type')],
  ['a file not a string', [{ analysis: { artifactsModified: [null] } }], err('invalid_result', 'history[0].analysis.artifactsModified[0]', 'type')],
  ['learnings not a string', [{ analysis: { learnings: ['a'] } }], err('invalid_result', 'history[0].analysis.learnings', 'type')],
  ['testsPassing not a boolean', [{ analysis: { testsPassing: 1 } }], err('invalid_result', 'history[0].analysis.testsPassing', 'type')],
  ['coverage Infinity', [{ analysis: { coveragePercent: { $num: 'Infinity' } } }], err('invalid_result', 'history[0].analysis.coveragePercent', 'range')],
  ['coverage over 100', [{}, { analysis: { coveragePercent: 120 } }], err('invalid_result', 'history[1].analysis.coveragePercent', 'range')],
  ['objective not a string', [{ context: { objective: 7 } }], err('invalid_result', 'history[0].context.objective', 'type')],
  ['maxIterations 0', [{ context: { maxIterations: 0 } }], err('invalid_result', 'history[0].context.maxIterations', 'range')],
  ['maxIterations not an integer', [{ context: { maxIterations: 2.5 } }], err('invalid_result', 'history[0].context.maxIterations', 'range')],
];
for (const [what, h, throws] of badHistories) {
  hand({ name: `error: ${what}`, engine: 'BehaviorDetector', construct: {}, calls: [
    { call: 'detect', args: [h], throws }, { call: 'detectRegression', args: [h], throws },
    { call: 'getThresholds', args: [], returns: json(new bd.BehaviorDetector().getThresholds()) },
  ] });
}
// JS null where upstream computes with it (JS only: Python's None is "absent").
for (const [field, value] of [['completionPercentage', null], ['testsPassing', null]]) {
  hand({ name: `error: ${field} null`, engine: 'BehaviorDetector', only: ['js', 'rust'], construct: {}, calls: [
    { call: 'detect', args: [[{ analysis: { [field]: value } }]], throws: err('invalid_result', `history[0].analysis.${field}`, 'type') },
  ] });
}
// null where upstream reads it as missing is missing (reference answers).
vectors.push(detectorVector('null reads as missing where upstream reads it so', undefined, [
  ['detect', [{ analysis: null, context: null, number: null }, { analysis: { failureClass: null, error: null, blockers: null, artifactsModified: null, learnings: null, coveragePercent: null }, context: { objective: null, maxIterations: null } }]],
]));
hand({ name: 'error: detectStuck(null)', engine: 'BehaviorDetector', construct: {}, only: ['js', 'rust'], calls: [
  { call: 'detectStuck', args: [null], throws: err('invalid_result', 'history', 'type') },
] });

const badThresholds = [
  ['options not an object', 5, err('invalid_config', 'options', 'type')],
  ['unknown option', { threshold: {} }, err('unknown_option', 'threshold', 'type')],
  ['thresholds not an object', { thresholds: 'x' }, err('invalid_config', 'thresholds', 'type')],
  ['unknown group', { thresholds: { stuk: {} } }, err('unknown_option', 'thresholds.stuk', 'type')],
  ['unknown field', { thresholds: { stuck: { sameErrors: 2 } } }, err('unknown_option', 'thresholds.stuck.sameErrors', 'type')],
  ['group not an object', { thresholds: { regression: true } }, err('invalid_config', 'thresholds.regression', 'type')],
  ['count 0', { thresholds: { stuck: { sameErrorCount: 0 } } }, err('invalid_config', 'thresholds.stuck.sameErrorCount', 'range')],
  ['window not an integer', { thresholds: { stuck: { noProgressIterations: 2.5 } } }, err('invalid_config', 'thresholds.stuck.noProgressIterations', 'range')],
  ['cycles a string', { thresholds: { oscillation: { undoRedoCycles: '2' } } }, err('invalid_config', 'thresholds.oscillation.undoRedoCycles', 'type')],
  ['churn over 1', { thresholds: { oscillation: { fileChurnThreshold: 1.2 } } }, err('invalid_config', 'thresholds.oscillation.fileChurnThreshold', 'range')],
  ['similarity NaN', { thresholds: { deviation: { objectiveSimilarity: { $num: 'NaN' } } } }, err('invalid_config', 'thresholds.deviation.objectiveSimilarity', 'range')],
  ['scope creep negative', { thresholds: { deviation: { scopeCreepRatio: -1 } } }, err('invalid_config', 'thresholds.deviation.scopeCreepRatio', 'range')],
  ['multiplier Infinity', { thresholds: { resource: { iterationMultiplier: { $num: 'Infinity' } } } }, err('invalid_config', 'thresholds.resource.iterationMultiplier', 'range')],
  ['testPassToFail not a boolean', { thresholds: { regression: { testPassToFail: 'yes' } } }, err('invalid_config', 'thresholds.regression.testPassToFail', 'type')],
  ['coverage drop over 100', { thresholds: { regression: { coverageDropPercent: 101 } } }, err('invalid_config', 'thresholds.regression.coverageDropPercent', 'range')],
];
const defaults = json(new bd.BehaviorDetector().getThresholds());
for (const [what, options, throws] of badThresholds) {
  const only = typeof options === 'object' ? {} : { only: ['js', 'rust'] };
  hand({ name: `error: constructor ${what}`, engine: 'BehaviorDetector', ...only, construct: { options }, throws, calls: [] });
  if (options !== null && typeof options === 'object' && 'thresholds' in options) {
    hand({ name: `error: updateThresholds ${what}`, engine: 'BehaviorDetector', construct: {}, calls: [
      { call: 'updateThresholds', args: [options.thresholds], throws },
      { call: 'getThresholds', args: [], returns: defaults },
    ] });
  }
}

// The documented difference: errors named like Object.prototype's properties count.
const protoNames = ['constructor', 'toString', '__proto__'];
hand({ name: 'errors named like Object.prototype properties count (upstream never counts them)', engine: 'BehaviorDetector', construct: {}, calls: protoNames.map((name) => ({
  call: 'detectStuck', args: [[0, 1, 2].map(() => ({ analysis: { error: name, completionPercentage: 0.2 } }))],
  returns: {
    type: 'stuck', severity: 'high', message: 'Loop stuck: Same error repeated 3 times with minimal progress',
    evidence: { repeatedError: name, occurrences: 3, avgProgressRate: 0, recentBlockers: [] },
    recommendations: ['Change approach or strategy', 'Break task into smaller sub-tasks', 'Request human intervention', 'Review and address root cause of repeated error'],
  },
})) });
for (const name of protoNames) {
  const answer = new bd.BehaviorDetector().detectStuck([0, 1, 2].map(() => ({ analysis: { error: name, completionPercentage: 0.2 } })));
  if (answer !== null) throw new Error(`the reference now counts ${name}: drop the documented difference`);
}

const detection = { type: 'stuck', severity: 'high', message: 'm', evidence: { repeatedError: 'E', occurrences: 3 }, recommendations: ['r'] };
// Refused where upstream breaks on them (docs/behavior.md); the fourth item is what
// determineLevel answers when only the intervention's texts break.
const badDetections = [
  ['not an object', 'stuck', err('invalid_detection', 'detection', 'type')],
  ['type missing', { severity: 'high', message: 'm' }, err('invalid_detection', 'detection.type', 'type')],
  ['type not a string', { ...detection, type: 5 }, err('invalid_detection', 'detection.type', 'type')],
  ['severity not a string', { ...detection, severity: 3 }, err('invalid_detection', 'detection.severity', 'type')],
  ['message not a string', { ...detection, message: 5 }, err('invalid_detection', 'detection.message', 'type')],
  ['evidence not an object', { ...detection, evidence: [] }, err('invalid_detection', 'detection.evidence', 'type')],
  ['repeatedError a number', { ...detection, evidence: { repeatedError: 404, occurrences: 3 } }, err('invalid_detection', 'detection.evidence.repeatedError', 'type')],
  ['occurrences negative', { ...detection, evidence: { repeatedError: 'E', occurrences: -1 } }, err('invalid_detection', 'detection.evidence.occurrences', 'range')],
  ['originalObjective not a string', { ...detection, type: 'deviation', evidence: { originalObjective: 1 } }, err('invalid_detection', 'detection.evidence.originalObjective', 'type')],
  ['recommendations not an array', { ...detection, recommendations: 'r' }, err('invalid_detection', 'detection.recommendations', 'type')],
  ['a recommendation not a string', { ...detection, recommendations: ['r', 1] }, err('invalid_detection', 'detection.recommendations[1]', 'type')],
  ['redirected without evidence', { type: 'stuck', severity: 'high', message: 'm' }, err('invalid_detection', 'detection.evidence', 'type'), 'redirect'],
  ['named error without occurrences', { ...detection, evidence: { repeatedError: 'E' } }, err('invalid_detection', 'detection.evidence.occurrences', 'type'), 'redirect'],
  ['warned without a message', { type: 'deviation', severity: 'medium' }, err('invalid_detection', 'detection.message', 'type'), 'warn'],
];
for (const [what, d, throws, level] of badDetections) {
  hand({ name: `error: intervene, detection ${what}`, engine: 'InterventionSystem', construct: {}, calls: [
    { call: 'intervene', args: [d], now: nextNow(), throws },
    // determineLevel reads only the type and the severity.
    level ? { call: 'determineLevel', args: [d], returns: level } : { call: 'determineLevel', args: [d], throws },
    { call: 'getSummary', args: [], returns: { total: 0, byLevel: {}, byType: {}, isPaused: false, pauseReason: null } },
  ] });
}
// One bad call per vector (the bad-input matrix runs each as one row), then a probe.
const emptyState = { interventionLog: [], isPaused: false, pauseReason: null };
const badCalls = [
  ['getLog(-1)', 'getLog', [-1], err('invalid_config', 'limit', 'range')],
  ['getLog(1.5)', 'getLog', [1.5], err('invalid_config', 'limit', 'range')],
  ["getLog('3')", 'getLog', ['3'], err('invalid_config', 'limit', 'type')],
  ['resume(5)', 'resume', [5], err('invalid_config', 'approvalReason', 'type')],
  ['injectWarning, prompt a number', 'injectWarning', [5, 'w'], err('invalid_config', 'prompt', 'type')],
  ['injectWarning, warning null', 'injectWarning', ['p', null], err('invalid_config', 'warning', 'type')],
  ['importState, state a number', 'importState', [5], err('invalid_snapshot', 'state', 'type')],
  ['importState, isPaused a string', 'importState', [{ isPaused: 'yes' }], err('invalid_snapshot', 'isPaused', 'type')],
  ['importState, an unknown key', 'importState', [{ paused: true }], err('invalid_snapshot', 'paused', 'type')],
  ['importState, the log not an array', 'importState', [{ interventionLog: {} }], err('invalid_snapshot', 'interventionLog', 'type')],
  ['importState, an unknown level', 'importState', [{ interventionLog: [{ level: 'shout' }] }], err('invalid_snapshot', 'interventionLog[0].level', 'range')],
  ['importState, a bad timestamp', 'importState', [{ interventionLog: [{ level: 'resume', timestamp: 'yesterday', previousPauseReason: null }] }], err('invalid_snapshot', 'interventionLog[0].timestamp', 'range')],
  ['importState, no detection', 'importState', [{ interventionLog: [{ level: 'log', reason: 'r', timestamp: '2026-01-01T00:00:00.000Z', action: 'a' }] }], err('invalid_snapshot', 'interventionLog[0].detection', 'type')],
  ['importState, a warning without its text', 'importState', [{ interventionLog: [{ level: 'warn', reason: 'r', detection: { ...detection, severity: 'medium' }, timestamp: '2026-01-01T00:00:00.000Z' }] }], err('invalid_snapshot', 'interventionLog[0].warning', 'type')],
];
// The log's entries: the JS drop-in keeps the caller's array, as upstream does, and reads
// only what its summary reads; Rust and Python hold typed entries and read each whole.
const typedLog = ['importState, an unknown level', 'importState, a bad timestamp', 'importState, no detection',
  'importState, a warning without its text'];
for (const [what, call, args, throws] of badCalls) {
  const now = call === 'resume' ? { now: nextNow() } : {};
  const steps = [['intervene', { ...detection, severity: 'low' }], { call, args, ...now, throws }, ['getSummary'], ['exportState']];
  const only = typedLog.includes(what) ? { only: ['rust', 'python'] } : {};
  vectors.push({ ...interventionVector(`error: ${what}`, steps), source: 'hand', ...only });
}
// ... which upstream's tests fill by hand: the summary reads each entry's level and its
// detection's type; an entry it cannot count is refused there.
vectors.push({ ...interventionVector('a log filled by hand (the JS drop-in keeps it as given)', [
  ['importState', { interventionLog: [{ level: 'warn' }], isPaused: true, pauseReason: 'Imported' }], ['exportState'], ['getLog'],
  ['importState', { interventionLog: [{ level: 'log', detection: { type: 'stuck' } }, { level: 'warn', detection: { type: 'oscillation' } }, { level: 'warn', detection: null }] }],
  ['getSummary'], ['getLog', 2],
]), only: ['js'] });
const looseLog = [
  ['an entry not an object', [5], err('invalid_snapshot', 'interventionLog[0]', 'type')],
  ['an entry without a level', [{ detection: { type: 'stuck' } }], err('invalid_snapshot', 'interventionLog[0].level', 'type')],
  ['a detection without a type', [{ level: 'log', detection: { severity: 'low' } }], err('invalid_snapshot', 'interventionLog[0].detection.type', 'type')],
  ['a detection not an object', [{ level: 'log', detection: 'stuck' }], err('invalid_snapshot', 'interventionLog[0].detection', 'type')],
];
for (const [what, log, throws] of looseLog) {
  hand({ name: `error: getSummary, ${what}`, engine: 'InterventionSystem', construct: {}, only: ['js'], calls: [
    { call: 'importState', args: [{ interventionLog: log }] },
    { call: 'getSummary', args: [], throws },
    { call: 'getLog', args: [], returns: log },
  ] });
}
hand({ name: 'error: options', engine: 'InterventionSystem', construct: { options: { onPause: 'later' } }, throws: err('invalid_config', 'onPause', 'type'), calls: [] });
hand({ name: 'error: unknown option', engine: 'InterventionSystem', construct: { options: { onResume: 1 } }, throws: err('unknown_option', 'onResume', 'type'), calls: [] });

// Detections as upstream's own tests hand them over: any text as the type or the severity
// (upstream takes its default branch), no severity (logged), no message where nothing quotes
// it (the intervention has no reason), keys upstream never reads (kept, in the caller's
// order after upstream's). The pause without a message comes last: upstream's pause reason
// is then undefined, which a host keeping typed state reports as null.
const loose = [
  { type: 'info', severity: 'low', message: 'Minor observation' },
  { type: 'test', severity: 'low', message: 'Test', owner: 'ci', seen: [1, 2] },
  { type: 'any', severity: 'medium', message: 'Objective drift detected', recommendations: ['Realign with objective'] },
  { type: 'any', severity: 'high', message: 'high, not stuck' },
  { type: 'stuck', severity: 'warning', message: 'a severity upstream does not know' },
  { type: 'stuck', message: 'no severity' },
  { type: 'resource_burn', severity: 'critical' },
  { type: 'oscillation', severity: 'high', evidence: {} },
];
// (Last, so the times of the vectors before it stay as they were.)
vectors.push(interventionVector('detections as upstream\'s tests give them', [
  ...loose.flatMap((d) => [['intervene', d], ['determineLevel', d]]),
  ['determineLevel', { type: 'any' }],
  ['buildWarning', { type: 'stuck', message: 'Loop stuck', recommendations: ['Change approach'] }],
  ['buildWarning', { type: 'info', message: 'm' }],
  ['buildStrategyOverride', { type: 'stuck', evidence: { repeatedError: 'NullPointerException', occurrences: 5 } }],
  ['buildStrategyOverride', { type: 'oscillation', evidence: {} }],
  ['buildStrategyOverride', { type: 'deviation', evidence: { originalObjective: 'Fix authentication bug' } }],
  ['buildStrategyOverride', { type: 'test' }],
  ['getSummary'], ['getLog', 4],
  ['intervene', { type: 'critical_issue', severity: 'critical' }],
]));

// ---------------------------------------------------------------------------
// Coverage, printed and required

const line = (table) => Object.entries(table).sort().map(([k, n]) => `${k} ${n}`).join(', ');
console.log(`detections by type: ${line(tally.types)}`);
console.log(`detections by type/severity: ${line(tally.severities)}`);
console.log(`intervention levels from detections: ${line(tally.levelsFromDetections)}`);
console.log(`intervention levels from direct intervene(): ${line(tally.levelsDirect)}`);
const reachable = ['stuck/high', 'stuck/critical', 'oscillation/high', 'deviation/medium', 'resource_burn/high',
  'resource_burn/critical', 'regression/high', 'regression/critical'];
const missing = [
  ...reachable.filter((k) => !tally.severities[k]),
  ...['warn', 'redirect', 'pause', 'abort'].filter((l) => !tally.levelsFromDetections[l]),
  ...['log', 'warn', 'redirect', 'pause', 'abort'].filter((l) => !tally.levelsDirect[l]),
];
if (missing.length > 0) throw new Error(`never occurred: ${missing.join(', ')}`);

const out = path.join(here, 'behavior.json');
const about = 'BehaviorDetector and InterventionSystem vectors (gen_behavior.mjs; format there and in tests/vectors/README.md)';
fs.writeFileSync(out, `{"about": ${JSON.stringify(about)}, "vectors": [\n${vectors.map((v) => `  ${JSON.stringify(v)}`).join(',\n')}\n]}\n`);
console.log(`behavior.json: ${vectors.length} vectors (${vectors.filter((v) => v.source === 'reference').length} reference, ${vectors.filter((v) => v.source === 'hand').length} hand)`);
