// Vectors for the risk-bounded pyramid policy and its replay:
//   node tests/vectors/gen_pyramid_policy.mjs   ->  tests/vectors/policy/pyramid_policy.json
//
// Every expected value comes from the small model below, written from the rules in
// docs/replay-pyramids.md, not from the Rust code: its special functions use other
// algorithms (Stirling-series log-gamma, the power series of the incomplete beta) so an
// error in either implementation shows up as a mismatch. Deterministic (seeded PRNG).
// The file sits in a subdirectory because its shape is not the engine-vector format.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

// ---- special functions -------------------------------------------------------------
function lnGamma(x) {
  // Shift up to x >= 10, then Stirling's series.
  let shift = 0;
  while (x < 10) { shift += Math.log(x); x += 1; }
  const inv = 1 / x, inv2 = inv * inv;
  const series = inv * (1 / 12 - inv2 * (1 / 360 - inv2 * (1 / 1260 - inv2 * (1 / 1680 - inv2 / 1188))));
  return (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + series - shift;
}
function betaCdf(a, b, x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  if (x > a / (a + b)) return 1 - betaCdf(b, a, 1 - x);
  // I_x(a,b) = x^a (1-x)^b / (a B(a,b)) * sum_n (a+b)_n / (a+1)_n x^n
  const front = Math.exp(a * Math.log(x) + b * Math.log1p(-x) + lnGamma(a + b) - lnGamma(a) - lnGamma(b)) / a;
  let term = 1, sum = 1;
  for (let n = 0; n < 200000; n++) {
    term *= ((a + b + n) / (a + 1 + n)) * x;
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return front * sum;
}
function betaQuantile(a, b, level) {
  let lo = 0, hi = 1;
  for (let i = 0; i < 64; i++) {
    const mid = (lo + hi) / 2;
    if (betaCdf(a, b, mid) < level) lo = mid; else hi = mid;
  }
  return hi;
}
function wilson(k, n) {
  if (n === 0) return null;
  const z = 1.959963984540054, p = k / n, z2 = z * z;
  const d = 1 + z2 / n, c = (p + z2 / (2 * n)) / d;
  const h = (z * Math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))) / d;
  return [Math.max(0, c - h), Math.min(1, c + h)];
}

// ---- the policy --------------------------------------------------------------------
const PRESETS = {
  fail_fast: { riskBudget: 0, confidence: 0.95, priorFailures: 0.5, priorPasses: 0.5, reorder: false, skipOnSuccess: false, forgetting: 0.998 },
  risk_bounded: { riskBudget: 0.01, confidence: 0.95, priorFailures: 0.5, priorPasses: 0.5, reorder: true, skipOnSuccess: true, forgetting: 0.998 },
};
const stats = (model, name) => model.layers.find((l) => l.name === name);

function decide(model, cfg, layers, outcomes) {
  if (outcomes.some((o) => o.failed)) return { action: 'stop', reason: 'layer_failed', risk: null };
  const done = new Set(outcomes.map((o) => o.layer));
  const remaining = layers.map((_, i) => i).filter((i) => !done.has(i));
  if (remaining.length === 0) return { action: 'stop', reason: 'completed', risk: null };
  let risk = null;
  if (cfg.skipOnSuccess && outcomes.length > 0 && cfg.riskBudget > 0) {
    const level = 1 - (1 - cfg.confidence) / remaining.length;
    let none = 1;
    for (const i of remaining) {
      const s = stats(model, layers[i].name) || { trials: 0, failures: 0 };
      none *= 1 - betaQuantile(cfg.priorFailures + s.failures, cfg.priorPasses + Math.max(0, s.trials - s.failures), level);
    }
    risk = Math.min(1, Math.max(0, 1 - none));
    if (risk <= cfg.riskBudget) return { action: 'stop', reason: 'risk_bounded', risk };
  }
  let next = remaining[0];
  if (cfg.reorder) {
    const key = (i) => {
      const s = stats(model, layers[i].name);
      const p = (cfg.priorFailures + (s ? s.failures : 0)) / (cfg.priorFailures + cfg.priorPasses + (s ? s.trials : 0));
      const c = s && s.costMs !== null ? s.costMs : layers[i].costMs ?? 1;
      return [p, c];
    };
    let [bp, bc] = key(next);
    for (const i of remaining.slice(1)) {
      const [p, c] = key(i);
      if (p * bc > bp * c) { next = i; bp = p; bc = c; }
    }
  }
  return { action: 'run', layer: next, risk };
}

function update(model, cfg, ran) {
  const out = { version: 1, engine: 'PyramidOutcomeModel', layers: model.layers.map((l) => ({ ...l })) };
  const g = cfg.forgetting;
  let green = true;
  for (const r of ran) {
    let s = stats(out, r.name);
    if (!s) { s = { name: r.name, trials: 0, failures: 0, costMs: null, costWeight: 0 }; out.layers.push(s); }
    if (green) { s.trials = s.trials * g + 1; s.failures = s.failures * g + (r.failed ? 1 : 0); }
    if (r.durationMs !== undefined) {
      const w = s.costWeight * g;
      s.costMs = ((s.costMs ?? 0) * w + r.durationMs) / (w + 1);
      s.costWeight = w + 1;
    }
    green = green && !r.failed;
  }
  return out;
}

function replay(runs, cfg) {
  let model = { version: 1, engine: 'PyramidOutcomeModel', layers: [] };
  const per = [];
  for (const run of runs) {
    const layers = run.layers.map((l) => ({ name: l.name, costMs: l.durationMs }));
    const outcomes = [];
    for (;;) {
      const d = decide(model, cfg, layers, outcomes);
      if (d.action === 'stop') break;
      outcomes.push({ layer: d.layer, failed: run.layers[d.layer].failed });
    }
    const executed = outcomes.map((o) => o.layer);
    model = update(model, cfg, executed.map((i) => run.layers[i]));
    const cost = run.layers.reduce((a, l) => a + l.durationMs, 0);
    const saved = run.layers.reduce((a, l, i) => a + (executed.includes(i) ? 0 : l.durationMs), 0);
    const failed = run.layers.some((l) => l.failed);
    const caught = outcomes.some((o) => o.failed);
    per.push({ executed, cost, saved, failed, caught, riskBounded: executed.length < run.layers.length && !caught });
  }
  const failingRuns = per.filter((r) => r.failed).length;
  const caught = per.filter((r) => r.failed && r.caught).length;
  const declaredGreen = per.filter((r) => !r.caught).length;
  const total = per.reduce((a, r) => a + r.cost, 0);
  const saved = per.reduce((a, r) => a + r.saved, 0);
  return {
    executed: per.map((r) => r.executed),
    expected: {
      runs: runs.length, failingRuns, caught, missed: failingRuns - caught,
      recall: failingRuns ? caught / failingRuns : null,
      declaredGreen,
      falsePassRate: declaredGreen ? (failingRuns - caught) / declaredGreen : null,
      falsePassCi: wilson(failingRuns - caught, declaredGreen),
      savedActual: total ? saved / total : null,
      savedNominal: total ? saved / total : null,
      riskBoundedStops: per.filter((r) => r.riskBounded).length,
    },
  };
}

// ---- cases -------------------------------------------------------------------------
let seed = 20261129;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const NAMES = ['lint', 'unit', 'integration', 'e2e', 'perf'];

const decideCases = [];
for (let c = 0; c < 40; c++) {
  const n = 1 + Math.floor(rand() * 4);
  const names = NAMES.slice(0, n + 1).sort(() => rand() - 0.5).slice(0, n);
  const model = { version: 1, engine: 'PyramidOutcomeModel', layers: [] };
  for (const name of names) {
    if (rand() < 0.15) continue; // unknown layer
    const trials = Math.floor(rand() * (rand() < 0.5 ? 50 : 3000));
    const failures = Math.floor(trials * rand() * rand() * 0.1);
    model.layers.push({ name, trials, failures, costMs: rand() < 0.2 ? null : 1 + Math.floor(rand() * 1000), costWeight: trials });
  }
  const layers = names.map((name, i) => ({ name, costMs: 10 + 37 * i + Math.floor(rand() * 5) }));
  const order = layers.map((_, i) => i).sort(() => rand() - 0.5);
  const k = Math.floor(rand() * (n + 1));
  const outcomes = order.slice(0, k).map((layer) => ({ layer, failed: rand() < 0.1 }));
  const config = { ...PRESETS.risk_bounded, riskBudget: [0, 0.005, 0.01, 0.02, 0.05, 0.2][Math.floor(rand() * 6)] };
  if (rand() < 0.2) config.reorder = false;
  if (rand() < 0.1) config.confidence = 0.9;
  const expected = decide(model, config, layers, outcomes);
  if (expected.risk !== null && Math.abs(expected.risk - config.riskBudget) < 1e-6) continue; // too close to call
  decideCases.push({ name: `decide-${c}`, model, config, layers, outcomes, expected });
}

function randomRuns(count, profile) {
  const runs = [];
  for (let r = 0; r < count; r++) {
    const layers = profile.map(([name, ms, p]) => ({ name, durationMs: ms + (r % 7), failed: rand() < p }));
    runs.push({ id: `run-${r}`, layers });
  }
  return runs;
}
const replayCases = [];
const profiles = [
  [['unit', 10, 0.2], ['integration', 50, 0.002], ['e2e', 300, 0.001]],
  [['cheap', 3, 0.0], ['gpu', 900, 0.3], ['cpu', 400, 0.05]],
  [['a', 5, 0.5], ['b', 5, 0.5]],
  [['only', 7, 0.1]],
  [['fast', 1, 0.3], ['slow', 20, 0.02]],
];
profiles.forEach((profile, i) => {
  for (const [policy, overrides] of [['fail_fast', null], ['risk_bounded', null], ['risk_bounded', { forgetting: 1, riskBudget: i === 4 ? 0.2 : 0.03 }]]) {
    const runs = randomRuns(i === 0 ? 700 : 120, profile);
    const cfg = { ...PRESETS[policy], ...(overrides || {}) };
    const { executed, expected } = replay(runs, cfg);
    replayCases.push({ name: `replay-${i}-${policy}${overrides ? '-tuned' : ''}`, policy, config: overrides, runs, executed, expected });
  }
});

// Live runs (EarlyExitController / PyramidRun with a policy): each run of a sequence through
// the step API, the model learning what ran; what the result says about each.
function live(runs, cfg) {
  let model = { version: 1, engine: 'PyramidOutcomeModel', layers: [] };
  const expected = [];
  for (const run of runs) {
    const layers = run.layers.map((l) => ({ name: l.name, costMs: l.durationMs }));
    const outcomes = [];
    const steps = [];
    let stop;
    for (;;) {
      const d = decide(model, cfg, layers, outcomes);
      if (d.action === 'stop') { stop = d; break; }
      steps.push(d.risk);
      outcomes.push({ layer: d.layer, failed: run.layers[d.layer].failed });
    }
    const executed = outcomes.map((o) => o.layer);
    const skipped = layers.map((_, i) => i).filter((i) => !executed.includes(i));
    const caught = outcomes.some((o) => o.failed);
    let speculations = [];
    if (stop.reason === 'risk_bounded') {
      const level = 1 - (1 - cfg.confidence) / skipped.length;
      speculations = skipped.map((i) => {
        const st = stats(model, layers[i].name) || { trials: 0, failures: 0 };
        return 1 - betaQuantile(cfg.priorFailures + st.failures, cfg.priorPasses + Math.max(0, st.trials - st.failures), level);
      });
    }
    expected.push({
      layersExecuted: executed,
      exitReason: stop.reason,
      exitLayer: executed.length ? executed[executed.length - 1] : -1,
      exitedEarly: skipped.length > 0,
      skippedLayers: skipped.length,
      verdict: caught ? 'failed' : skipped.length ? 'unverified' : 'passed',
      risk: stop.risk,
      confidence: stop.risk === null ? 1 : 1 - stop.risk,
      computeSavedMs: skipped.reduce((a, i) => a + layers[i].costMs, 0),
      speculations,
      steps,
    });
    model = update(model, cfg, executed.map((i) => run.layers[i]));
  }
  return { expected, model };
}
const liveCases = [];
[
  [[['lint', 2, 0.05], ['unit', 10, 0.1], ['e2e', 60, 0.02]], 'fail_fast', null],
  [[['lint', 2, 0.05], ['unit', 10, 0.1], ['e2e', 60, 0.02]], 'risk_bounded', null],
  [[['unit', 10, 0.01], ['integration', 50, 0.002], ['e2e', 300, 0.001]], 'risk_bounded', { forgetting: 1, riskBudget: 0.05 }],
  [[['cheap', 3, 0.0], ['gpu', 900, 0.3], ['cpu', 400, 0.05]], 'risk_bounded', { forgetting: 1, riskBudget: 0.2 }],
].forEach(([profile, policy, overrides], i) => {
  const runs = randomRuns(160, profile);
  const cfg = { ...PRESETS[policy], ...(overrides || {}) };
  const { expected, model } = live(runs, cfg);
  liveCases.push({ name: `live-${i}-${policy}${overrides ? '-tuned' : ''}`, policy, config: overrides, runs, expected, model });
});

// Models that merge (version 2): each runner learns its builds under their keys into a
// model of the case's window; the models merge into one. Expected: the merged document and
// its statistics (version 1's fold of the kept builds in key order, after a converted base).
const keyLess = (a, b) => a.seq < b.seq || (a.seq === b.seq && a.id < b.id);
const CONVERTED = 'converted from a version 1 model: its counts are the base of every statistic (the builds behind them are not known), so it merges only with models of the same base or of none';
function learnBuild(model, build) {
  const builds = model.builds.filter((b) => b.id !== build.id || b.seq !== build.seq);
  if (builds.length !== model.builds.length) return model; // the vectors never conflict
  builds.push(build);
  builds.sort((a, b) => (keyLess(a, b) ? -1 : keyLess(b, a) ? 1 : 0));
  return { ...model, builds: builds.slice(Math.max(0, builds.length - model.window)) };
}
function mergeModels(a, b) {
  const window = Math.min(a.window, b.window);
  let out = { ...a, window, base: a.base ?? b.base, builds: a.builds.slice(Math.max(0, a.builds.length - window)) };
  for (const build of b.builds) out = learnBuild(out, build);
  return out;
}
function docOf(model) {
  const doc = { version: 2, engine: 'PyramidOutcomeModel', window: model.window };
  if (model.base) { doc.base = model.base; doc.note = CONVERTED; }
  doc.builds = model.builds.map((b) => ({ id: b.id, seq: b.seq, layers: b.layers }));
  return doc;
}
function statsOf(model, cfg) {
  let stats = model.base ?? { version: 1, engine: 'PyramidOutcomeModel', layers: [] };
  for (const b of model.builds) stats = update(stats, cfg, b.layers);
  return stats;
}
const modelCases = [];
[[4, 3, 30, null], [1000, 2, 60, null], [10, 4, 40, 'v1'], [25, 1, 80, null]].forEach(([window, runners, count, start], i) => {
  const names = ['lint', 'unit', 'e2e'];
  const builds = [];
  for (let k = 0; k < count; k++) {
    const layers = [];
    for (const name of names) {
      if (rand() < 0.2) continue;
      const layer = { name, failed: rand() < 0.15 };
      if (rand() < 0.8) layer.durationMs = 1 + Math.floor(rand() * 400) / 4;
      layers.push(layer);
    }
    builds.push({ id: ['pr-1#', 'pr-2#', 'main#'][Math.floor(rand() * 3)] + Math.floor(rand() * 5), seq: Math.floor(rand() * 50), layers });
  }
  const unique = builds.filter((b, j) => builds.findIndex((c) => c.id === b.id && c.seq === b.seq) === j);
  const base = start === 'v1' ? update({ version: 1, engine: 'PyramidOutcomeModel', layers: [] }, PRESETS.risk_bounded, [{ name: 'unit', failed: true, durationMs: 9 }]) : undefined;
  const parts = Array.from({ length: runners }, () => []);
  for (const b of unique) {
    parts[Math.floor(rand() * runners)].push(b);
    if (rand() < 0.2) parts[Math.floor(rand() * runners)].push(b); // seen by two runners: counts once
  }
  const models = parts.map((part) => part.reduce((m, b) => learnBuild(m, b), { window, base, builds: [] }));
  const merged = models.reduce((a, b) => mergeModels(a, b));
  const cfg = { ...PRESETS.risk_bounded, forgetting: 0.99 };
  modelCases.push({
    name: `models-${i}`, window, start: base ?? null, runners: parts.map((part) => part.map(({ id, seq, layers }) => ({ id, seq, ran: layers }))),
    config: { forgetting: 0.99 }, expected: { merged: docOf(merged), statistics: statsOf(merged, cfg) },
  });
});

const out = path.join(here, 'policy');
fs.mkdirSync(out, { recursive: true });
fs.writeFileSync(path.join(out, 'pyramid_policy.json'), JSON.stringify({ decide: decideCases, replay: replayCases, live: liveCases, models: modelCases }) + '\n');
console.log(`policy/pyramid_policy.json: ${decideCases.length} decide, ${replayCases.length} replay, ${liveCases.length} live, ${modelCases.length} models vectors`);
