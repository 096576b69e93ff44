// Generates tests/vectors/replay/loop_replay.json: loop replay and loop preset vectors.
//
//   node tests/vectors/replay/gen_loop_replay.mjs
//
// Every expected value comes from the small model below, written from docs/replay.md and
// the design page's rules (loop-stopping.md), not from the Rust core's output: a plain
// per-iteration rescan of the rules in the documented order. The Rust, Python, Node and
// wasm suites replay the same inputs through the core and must agree bit for bit.
//
// Format: {"runSets": {name: [runs]}, "vectors": [{"name", "runSet" (a name) | "runs" (array) |
//   "jsonl" (text), "policy",
//   "returns": {"summary", "runs"}} | {..., "throws": {"code", "field", "kind"}}]}.
// Config keys are JS spelled (camelCase); Python maps them to snake_case.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

// ---------------------------------------------------------------------------
// Policies (docs/replay.md "Presets")

const SEED_CONFIG = {
  highConfidenceThreshold: 0.95, plateauConsecutiveCount: 3, plateauImprovementThreshold: 0.02,
  minQualityThreshold: 70, requireVerification: true, enablePlateauDetection: true, enableDiminishingReturns: true,
};
const RECOMMENDED_CONFIG = {
  ...SEED_CONFIG, plateauConsecutiveCount: 5, plateauImprovementThreshold: 1, enableDiminishingReturns: false,
  plateauDeltaSource: 'computed', plateauMode: 'absolute', plateauMinQuality: 70, noImprovementPatience: 5,
};
const SEED_ANALYTICS = { diminishingReturnsThreshold: 0.05, consecutiveCountThreshold: 2 };
const PRESETS = {
  seed: { config: SEED_CONFIG, returns: 'last', analytics: SEED_ANALYTICS },
  recommended: { config: RECOMMENDED_CONFIG, returns: 'best', analytics: null },
};

function policyOf(spec) {
  if (spec === null || spec === undefined) return PRESETS.seed;
  if (typeof spec === 'string') return PRESETS[spec];
  const base = PRESETS[spec.preset ?? 'seed'];
  const analytics = spec.analytics === undefined ? base.analytics
    : spec.analytics === false ? null
    : spec.analytics === true ? SEED_ANALYTICS
    : { ...SEED_ANALYTICS, ...spec.analytics };
  return { config: { ...base.config, ...(spec.config ?? {}) }, returns: spec.returns ?? base.returns, analytics };
}

// ---------------------------------------------------------------------------
// The rules, rescanned from scratch at every iteration (the core folds them in).

function bestOf(items, minQuality) {
  let verified = null;
  let overall = null;
  items.forEach((it, i) => {
    if (overall === null || it.quality_score > items[overall].quality_score) overall = i;
    if (it.verification_status === 'passed' && it.quality_score >= minQuality
      && (verified === null || it.quality_score > items[verified].quality_score)) verified = i;
  });
  return verified ?? overall;
}

function diminishing(items, a) {
  if (items.length < 2) return null;
  let run = 0;
  for (let i = 1; i < items.length; i++) {
    const prev = items[i - 1].quality_score;
    const delta = items[i].quality_score - prev;
    const pct = prev > 0 ? Math.abs(delta) / prev : 0; // upstream: a step from 0 counts as no change
    run = pct < a.diminishingReturnsThreshold ? run + 1 : 0;
    if (run >= a.consecutiveCountThreshold) {
      return `Diminishing returns detected: ${a.consecutiveCountThreshold} consecutive iterations with <${a.diminishingReturnsThreshold * 100}% improvement`;
    }
  }
  return null;
}

function decide(items, c, analytics) {
  const n = items.length;
  const last = items[n - 1];
  if (c.maxIterations !== undefined && n >= c.maxIterations) {
    return ['max_iterations', `Maximum iterations reached (${n}/${c.maxIterations})`];
  }
  if (c.minIterations !== undefined && n < c.minIterations) return null;
  if (last.confidence >= c.highConfidenceThreshold && last.quality_score >= c.minQualityThreshold
    && (!c.requireVerification || last.verification_status === 'passed')) {
    const tail = c.requireVerification ? 'AND verification passed' : 'reached';
    return ['high_confidence', `High confidence (${(last.confidence * 100).toFixed(1)}%) ${tail}`];
  }
  if (c.enablePlateauDetection && n >= c.plateauConsecutiveCount) {
    const recent = items.slice(n - c.plateauConsecutiveCount);
    let flat = c.plateauMinQuality === undefined || recent.every((r) => r.quality_score >= c.plateauMinQuality);
    for (let i = 1; flat && i < recent.length; i++) {
      const prev = recent[i - 1];
      const delta = c.plateauDeltaSource === 'computed' ? recent[i].quality_score - prev.quality_score : recent[i].quality_delta;
      const improvement = c.plateauMode === 'absolute' ? Math.abs(delta) : (prev.quality_score > 0 ? Math.abs(delta) / prev.quality_score : 0);
      if (improvement >= c.plateauImprovementThreshold) flat = false;
    }
    if (flat) {
      const words = c.plateauMode === 'absolute'
        ? `<${c.plateauImprovementThreshold} points improvement`
        : `<${(c.plateauImprovementThreshold * 100).toFixed(0)}% improvement`;
      return ['quality_plateau', `Quality plateau detected: ${c.plateauConsecutiveCount} consecutive iterations with ${words}`];
    }
  }
  if (c.noImprovementPatience !== undefined) {
    let peak = 0;
    for (let i = 1; i < n; i++) if (items[i].quality_score > items[peak].quality_score) peak = i;
    const since = n - 1 - peak;
    if (since >= c.noImprovementPatience) {
      return ['no_improvement', `No improvement: ${since} consecutive iterations without a new best (${items[peak].quality_score} at iteration ${peak + 1})`];
    }
  }
  if (c.enableDiminishingReturns && analytics) {
    const reason = diminishing(items, analytics);
    if (reason) return ['diminishing_returns', reason];
  }
  return null;
}

const isGood = (it) => (it.good ?? null) !== null ? it.good : it.verification_status === 'passed';

function withDeltas(run) {
  return run.iterations.map((it, i) => ({
    ...it,
    quality_delta: it.quality_delta ?? (i === 0 ? 0 : it.quality_score - run.iterations[i - 1].quality_score),
  }));
}

const TRIGGERS = ['high_confidence', 'quality_plateau', 'diminishing_returns', 'max_iterations', 'budget_exhausted',
  'quality_regression', 'no_improvement'];

export function replay(runs, spec) {
  const p = policyOf(spec);
  const outcomes = [];
  const s = { runs: 0, available: 0, used: 0, ret: 0, best: 0, premature: 0, wasted: 0, good: 0, reachable: 0, falsePasses: 0, ended: 0 };
  const triggers = Object.fromEntries(TRIGGERS.map((t) => [t, 0]));
  for (const run of runs) {
    const items = withDeltas(run);
    let stop = null;
    for (let i = 0; i < items.length && !stop; i++) {
      const d = decide(items.slice(0, i + 1), p.config, p.analytics);
      if (d) stop = { at: i, trigger: d[0], reason: d[1] };
    }
    const stopAt = stop ? stop.at : items.length - 1;
    const returned = p.returns === 'best' ? bestOf(items.slice(0, stopAt + 1), p.config.minQualityThreshold) : stopAt;
    let bestIndex = 0;
    items.forEach((it, i) => { if (it.quality_score > items[bestIndex].quality_score) bestIndex = i; });
    const ran = items.slice(0, stopAt + 1);
    const rest = items.slice(stopAt + 1);
    const o = {
      id: String(run.id),
      ...(run.dataset !== undefined ? { dataset: run.dataset } : {}),
      iterations_available: items.length,
      iterations_run: stopAt + 1,
      stopped: stop !== null,
      trigger: stop ? stop.trigger : 'end_of_run',
      reason: stop ? stop.reason : null,
      returned_iteration: returned + 1,
      returned_quality: items[returned].quality_score,
      best_iteration: bestIndex + 1,
      best_quality: items[bestIndex].quality_score,
      quality_gap: items[bestIndex].quality_score - items[returned].quality_score,
      premature: !ran.some(isGood) && rest.some(isGood),
      wasted_iterations: Math.max(0, stopAt - bestIndex),
      returned_good: isGood(items[returned]),
      false_pass: items[returned].verification_status === 'passed' && items[returned].good === false,
    };
    outcomes.push(o);
    s.runs += 1; s.available += o.iterations_available; s.used += o.iterations_run;
    s.ret += o.returned_quality; s.best += o.best_quality; s.premature += o.premature ? 1 : 0;
    s.wasted += o.wasted_iterations; s.good += o.returned_good ? 1 : 0; s.reachable += items.some(isGood) ? 1 : 0;
    s.falsePasses += o.false_pass ? 1 : 0;
    if (stop) triggers[stop.trigger] += 1; else s.ended += 1;
  }
  const mean = (x) => (s.runs === 0 ? 0 : x / s.runs);
  const summary = {
    runs: s.runs, iterations_available: s.available, iterations_used: s.used,
    mean_iterations: mean(s.used), share_of_available: s.available === 0 ? 0 : s.used / s.available,
    mean_returned_quality: mean(s.ret), mean_best_quality: mean(s.best), mean_quality_gap: mean(s.best - s.ret),
    premature_stops: s.premature, premature_rate: mean(s.premature), wasted_iterations: s.wasted,
    mean_wasted_iterations: mean(s.wasted), returned_good: s.good, reachable_good: s.reachable,
    false_passes: s.falsePasses, ended_without_stop: s.ended, triggers,
  };
  return { summary, runs: outcomes };
}

// ---------------------------------------------------------------------------
// Inputs

const it = (quality_score, verification_status = 'failed', extra = {}) => ({
  quality_score, confidence: Math.min(1, quality_score / 100), verification_status, ...extra,
});

// Hand runs: one per behaviour worth pinning.
const HAND = [
  { id: 'passes-at-3', dataset: 'hand', iterations: [it(20), it(60), it(100, 'passed')] },
  { id: 'stuck-at-zero-then-passes', dataset: 'hand', iterations: [it(0), it(0), it(0), it(0), it(100, 'passed', { good: true })] },
  { id: 'good-plateau', dataset: 'hand', iterations: [it(50), it(80), it(80.5), it(80.5), it(80.2), it(80.2), it(80.2), it(81)] },
  { id: 'rise-and-fall', dataset: 'hand', iterations: [it(40), it(90), it(60), it(55), it(50), it(45), it(40), it(35)] },
  { id: 'verified-but-wrong', dataset: 'hand', iterations: [it(30), it(100, 'passed', { good: false })] },
  { id: 7, iterations: [it(10, 'skipped'), it(30, 'skipped'), it(31, 'skipped')] },
  { id: 'reported-deltas', dataset: 'hand', iterations: [it(50, 'failed', { quality_delta: 5 }), it(70, 'failed', { quality_delta: 0.5 }), it(72, 'failed', { quality_delta: 0.1 }), it(95, 'failed', { quality_delta: 0 })] },
  { id: 'single', dataset: 'hand', iterations: [it(66.66666666666667, 'failed', { tokens_used: 120, good: null })] },
];

function prng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomRuns(seed, count) {
  const rnd = prng(seed);
  const runs = [];
  for (let r = 0; r < count; r++) {
    const length = 1 + Math.floor(rnd() * 12);
    const items = [];
    let q = [0, 0, 33.333333333333336, 50, 70][Math.floor(rnd() * 5)];
    for (let i = 0; i < length; i++) {
      const move = rnd();
      if (move < 0.35) q = q; // flat: plateaus and stuck runs
      else if (move < 0.75) q = Math.min(100, q + [0.5, 3, 12.5, 25, 66.66666666666667][Math.floor(rnd() * 5)]);
      else q = Math.max(0, q - [0.25, 5, 20][Math.floor(rnd() * 3)]);
      const passed = q >= 100 || rnd() < 0.08;
      const extra = {};
      if (rnd() < 0.3) extra.good = passed ? rnd() < 0.8 : rnd() < 0.1;
      if (rnd() < 0.2) extra.quality_delta = Math.round((rnd() * 10 - 5) * 4) / 4;
      items.push({ quality_score: q, confidence: Math.round(rnd() * 100) / 100, verification_status: passed ? 'passed' : (rnd() < 0.2 ? 'skipped' : 'failed'), ...extra });
    }
    runs.push({ id: `random-${seed}-${r}`, dataset: `random-${seed % 2}`, iterations: items });
  }
  return runs;
}

const simple = (k) => ({
  config: { highConfidenceThreshold: 0, minQualityThreshold: 0, enablePlateauDetection: false, enableDiminishingReturns: false, noImprovementPatience: k },
  returns: 'best',
  analytics: false,
});

const POLICIES = [
  ['default (null)', null],
  ['seed', 'seed'],
  ['recommended', 'recommended'],
  ['simple k=2', simple(2)],
  ['simple k=5', simple(5)],
  ['recommended returning last', { preset: 'recommended', returns: 'last' }],
  ['seed without analytics', { preset: 'seed', analytics: false }],
  ['recommended capped at 3', { preset: 'recommended', config: { maxIterations: 3 } }],
  ['recommended with warm-up 2', { preset: 'recommended', config: { minIterations: 2 } }],
  ['seed, gated absolute computed plateau', { preset: 'seed', config: { plateauDeltaSource: 'computed', plateauMode: 'absolute', plateauImprovementThreshold: 2, plateauMinQuality: 50 } }],
  ['seed, analytics needing 3 flat steps', { analytics: { consecutiveCountThreshold: 3 } }],
  ['recommended, patience 1, no verification needed', { preset: 'recommended', config: { noImprovementPatience: 1, requireVerification: false } }],
];

const vectors = [];
const runSets = { hand: HAND };
for (const [name, policy] of POLICIES) {
  vectors.push({ name: `hand runs, ${name}`, runSet: 'hand', policy, returns: replay(HAND, policy) });
}
for (const seed of [11, 12]) {
  const runs = randomRuns(seed, 25);
  runSets[`random-${seed}`] = runs;
  for (const [name, policy] of POLICIES) {
    vectors.push({ name: `random runs ${seed}, ${name}`, runSet: `random-${seed}`, policy, returns: replay(runs, policy) });
  }
}
const jsonl = `${HAND.map((r) => JSON.stringify(r)).join('\n')}\n\n`;
vectors.push({ name: 'JSONL text, blank lines skipped, recommended', jsonl, policy: 'recommended', returns: replay(HAND, 'recommended') });
vectors.push({ name: 'no runs', runs: [], policy: 'recommended', returns: replay([], 'recommended') });

// Malformed input: every problem is invalid_replay and names its path (hand expectations).
const good = HAND[0];
const bad = (name, runs, policy, code, field, kind) => vectors.push({ name: `error: ${name}`, runs, policy, throws: { code, field, kind } });
const withIteration = (patch) => [good, { id: 'x', iterations: [it(10), it(20), { ...it(30), ...patch }] }];
bad('quality out of range', withIteration({ quality_score: 120 }), null, 'invalid_replay', 'runs[1].iterations[2].quality_score', 'range');
bad('quality as a string', withIteration({ quality_score: '75' }), null, 'invalid_replay', 'runs[1].iterations[2].quality_score', 'type');
bad('confidence out of range', withIteration({ confidence: 1.5 }), null, 'invalid_replay', 'runs[1].iterations[2].confidence', 'range');
bad('unknown status', withIteration({ verification_status: 'maybe' }), null, 'invalid_replay', 'runs[1].iterations[2].verification_status', 'range');
bad('good not a boolean', withIteration({ good: 'yes' }), null, 'invalid_replay', 'runs[1].iterations[2].good', 'type');
bad('unknown iteration key', withIteration({ qualityScore: 1 }), null, 'invalid_replay', 'runs[1].iterations[2].qualityScore', 'type');
bad('missing iterations', [{ id: 'x' }], null, 'invalid_replay', 'runs[0].iterations', 'type');
bad('empty iterations', [{ id: 'x', iterations: [] }], null, 'invalid_replay', 'runs[0].iterations', 'range');
bad('missing id', [{ iterations: [it(1)] }], null, 'invalid_replay', 'runs[0].id', 'type');
bad('run not an object', [good, 5], null, 'invalid_replay', 'runs[1]', 'type');
bad('unknown run key', [{ id: 'x', iterations: [it(1)], task: 1 }], null, 'invalid_replay', 'runs[0].task', 'type');
bad('runs not an array', 42, null, 'invalid_replay', 'runs', 'type');
vectors.push({ name: 'error: JSONL line not JSON', jsonl: `${JSON.stringify(good)}\n{"id": "x", "iterations": [\n`, policy: null, throws: { code: 'invalid_replay', field: 'runs[1]', kind: 'range' } });
vectors.push({ name: 'error: JSONL bad value on line 3', jsonl: `${JSON.stringify(good)}\n\n${JSON.stringify({ id: 'y', iterations: [it(10), { ...it(5), confidence: -1 }] })}\n`, policy: null, throws: { code: 'invalid_replay', field: 'runs[1].iterations[1].confidence', kind: 'range' } });
bad('unknown preset name', [good], 'fast', 'invalid_replay', 'policy', 'range');
bad('preset not a string', [good], 5, 'invalid_replay', 'policy', 'type');
bad('unknown preset in object', [good], { preset: 'fast' }, 'invalid_replay', 'preset', 'range');
bad('bad plateau mode', [good], { config: { plateauMode: 'weird' } }, 'invalid_replay', 'config.plateauMode', 'range');
bad('patience 0', [good], { config: { noImprovementPatience: 0 } }, 'invalid_replay', 'config.noImprovementPatience', 'range');
bad('patience not an integer', [good], { config: { noImprovementPatience: 2.5 } }, 'invalid_replay', 'config.noImprovementPatience', 'range');
bad('plateau quality gate above 100', [good], { config: { plateauMinQuality: 101 } }, 'invalid_replay', 'config.plateauMinQuality', 'range');
bad('plateau quality gate a string', [good], { config: { plateauMinQuality: '70' } }, 'invalid_replay', 'config.plateauMinQuality', 'type');
bad('unknown config key', [good], { config: { patience: 3 } }, 'invalid_replay', 'config.patience', 'type');
bad('bad returns', [good], { returns: 'first' }, 'invalid_replay', 'returns', 'range');
bad('unknown policy key', [good], { preset: 'seed', retruns: 'best' }, 'invalid_replay', 'retruns', 'type');
bad('analytics not a boolean or object', [good], { analytics: 'yes' }, 'invalid_replay', 'analytics', 'type');
bad('bad analytics value', [good], { analytics: { consecutiveCountThreshold: 0 } }, 'invalid_replay', 'analytics.consecutiveCountThreshold', 'range');

const out = path.join(here, 'loop_replay.json');
// One vector per line keeps diffs readable; run sets are shared by name (`runSet`).
const lines = vectors.map((v) => `  ${JSON.stringify(v)}`).join(',\n');
const sets = Object.entries(runSets).map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(',\n');
fs.writeFileSync(out, `{"runSets": {\n${sets}\n}, "vectors": [\n${lines}\n]}\n`);
console.log(`wrote ${vectors.length} vectors to ${path.relative(process.cwd(), out)}`);
