// Differential test: random valid call sequences, with random configs and scripted
// diminishing-returns sources, through the package AND the reference files
// ../shared/reference/early-stopping.mjs and early-exit-adr.mjs side by side. Every
// returned object is compared over the reference's keys ("Exact to the seed": numbers bit
// for bit, strings byte for byte, the same key order; extra keys only the listed ones),
// and so are how often each source and each runner was called. Prints how often each
// trigger and each exit reason occurred; each must be at least 5% of its kind.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ee, { IMPL, HAVE_REFERENCE, NO_REFERENCE, REFERENCE_DIR } from './impl.mjs';
import { compare, rng, LISTED_EXTRAS } from './support.mjs';

const SEQUENCES = { loop: 1500, exit: 500, pyramid: 700 };
const ref = HAVE_REFERENCE
  ? {
      es: await import(pathToFileURL(path.join(REFERENCE_DIR, 'early-stopping.mjs')).href),
      adr: await import(pathToFileURL(path.join(REFERENCE_DIR, 'early-exit-adr.mjs')).href),
    }
  : null;

const triggers = new Map();
const exitReasons = new Map();
const count = (map, key) => map.set(key, (map.get(key) ?? 0) + 1);

// --------------------------------------------------------------------------------------
// Engine 1: EarlyStopping

const STATUSES = ['passed', 'failed', 'skipped'];

function randomLoopConfig(r) {
  const config = {};
  if (r.chance(0.6)) config.highConfidenceThreshold = r.pick([0.9, 0.95, 0.8, r.round(0.5 + r.next() / 2, 3), 1, 0]);
  if (r.chance(0.6)) config.plateauConsecutiveCount = r.int(2, 5);
  if (r.chance(0.6)) config.plateauImprovementThreshold = r.pick([0.02, 0.05, 0.001, 0.1, r.round(r.next() * 0.2, 4), 0, 0.125]);
  if (r.chance(0.6)) config.minQualityThreshold = r.pick([70, 80, 50, r.round(r.next() * 100, 2), 0, 100]);
  if (r.chance(0.4)) config.requireVerification = r.chance(0.7);
  if (r.chance(0.3)) config.enablePlateauDetection = r.chance(0.7);
  if (r.chance(0.3)) config.enableDiminishingReturns = r.chance(0.8);
  return config;
}

// A scripted outside source: both sides get their own copy of the same answers.
function randomScript(r) {
  return Array.from({ length: 40 }, (_, i) => {
    const answer = { detected: r.chance(0.35), reason: r.pick(['flat', `${r.int(2, 4)} consecutive iterations with <5% improvement`, 'cost too high', '']) };
    const shape = r.int(0, 3);
    if (shape === 0) answer.iteration = r.int(1, 30);
    else if (shape === 1) answer.iteration = null;
    // shape 2, 3: no iteration key (the seed copies undefined through)
    return i % 7 === 6 ? { ...answer } : answer;
  });
}

function scripted(script) {
  const source = {
    calls: 0,
    detectDiminishingReturns() {
      return structuredClone(script[source.calls++ % script.length]);
    },
  };
  return source;
}

function randomResult(r, state) {
  const style = state.style;
  let quality;
  if (style === 'plateau') quality = Math.min(100, Math.max(0, state.quality + r.pick([0, 0.1, -0.2, 0.5, 1, 2, r.round(r.next() * 3 - 1, 2)])));
  else if (style === 'climb') quality = Math.min(100, state.quality + r.round(r.next() * 15, 1));
  else quality = r.round(r.next() * 100, r.int(0, 3));
  const result = {
    quality_score: quality,
    confidence: r.pick([r.round(r.next(), 3), 0.95, 0.96, 0.99, 1, 0.5, r.round(0.85 + r.next() * 0.15, 4), 0.123456789]),
    verification_status: r.pick(STATUSES),
    quality_delta: r.chance(0.85) ? quality - state.quality : r.round(r.next() * 10 - 5, 2),
    timestamp: new Date(Date.UTC(2026, 0, 1) + state.iteration * 1000).toISOString(),
  };
  state.quality = quality;
  return result;
}

function runLoopSequence(seed, problems) {
  const r = rng(seed);
  const config = randomLoopConfig(r);
  const sourceKind = r.pick(['none', 'script', 'script', 'analytics']);
  let oursSource = null;
  let refSource = null;
  let analytics = null;
  if (sourceKind === 'script') {
    const script = randomScript(r);
    oursSource = scripted(script);
    refSource = scripted(script);
  } else if (sourceKind === 'analytics') {
    // The package's own IterationAnalytics, behind two counting wrappers.
    analytics = new ee.IterationAnalytics(r.chance(0.5) ? { diminishingReturnsThreshold: r.pick([0.05, 0.1, 0.01]), consecutiveCountThreshold: r.int(1, 3) } : undefined);
    const wrap = () => {
      const w = { calls: 0, detectDiminishingReturns: () => (w.calls++, analytics.detectDiminishingReturns()) };
      return w;
    };
    oursSource = wrap();
    refSource = wrap();
  }
  const ours = new ee.EarlyStopping(config, oursSource);
  const reference = new ref.es.EarlyStopping(config, refSource);
  const state = { quality: r.round(r.next() * 80, 1), iteration: 0, style: r.pick(['plateau', 'plateau', 'climb', 'random']) };
  const steps = r.int(1, 18);
  const where = `loop sequence ${seed} (config ${JSON.stringify(config)}, source ${sourceKind})`;
  const check = (what, expected, actual, extrasAllowed) => {
    const diffs = compare(expected, actual);
    if (!extrasAllowed) {
      for (const key of Object.keys(actual ?? {})) if (LISTED_EXTRAS.has(key) && !(key in (expected ?? {}))) diffs.push(`$.${key}: extra key on ${what}`);
    }
    if (diffs.length) problems.push(`${where}, ${what}: ${diffs.slice(0, 3).join('; ')}`);
    return diffs.length === 0;
  };
  for (let step = 0; step < steps; step++) {
    const action = r.next();
    if (action < 0.5) {
      state.iteration += 1;
      const result = randomResult(r, state);
      reference.recordIterationResult(state.iteration, { ...result });
      ours.recordIterationResult(state.iteration, result);
      if (analytics) analytics.recordIteration({ iteration_number: state.iteration, quality_score: result.quality_score, verification_status: result.verification_status });
      continue;
    }
    if (action < 0.8) {
      const expected = structuredClone(reference.shouldStop(state.iteration));
      const actual = ours.shouldStop(state.iteration);
      count(triggers, actual.trigger);
      if (!check('shouldStop', expected, actual, true)) return;
    } else if (action < 0.84) {
      if (!check('getStoppingReason', reference.getStoppingReason(), ours.getStoppingReason())) return;
      if (!check('getStoppingDetails', structuredClone(reference.getStoppingDetails()), ours.getStoppingDetails())) return;
    } else if (action < 0.88) {
      const expected = structuredClone(reference.generateSummary());
      const actual = ours.generateSummary();
      if (actual.stopping_trigger) count(triggers, actual.stopping_trigger);
      if (!check('generateSummary', expected, actual)) return;
    } else if (action < 0.92) {
      const options = randomLoopConfig(r);
      reference.configure(options);
      ours.configure(options);
      if (!check('getConfig', reference.getConfig(), ours.getConfig())) return;
    } else if (action < 0.96) {
      if (!check('getIterationHistory', structuredClone(reference.getIterationHistory()), ours.getIterationHistory())) return;
    } else if (action < 0.98) {
      reference.reset();
      ours.reset();
      if (analytics) analytics.reset();
      state.iteration = 0;
    } else {
      // A snapshot round trip changes nothing.
      const restored = ee.EarlyStopping.fromJSON(JSON.stringify(ours.toJSON()), oursSource);
      if (JSON.stringify(restored.toJSON()) !== JSON.stringify(ours.toJSON())) {
        problems.push(`${where}: snapshot round trip differs`);
        return;
      }
    }
    if (oursSource && oursSource.calls !== refSource.calls) {
      problems.push(`${where}: the source was asked ${oursSource.calls} times, the reference asked ${refSource.calls}`);
      return;
    }
  }
  if (!check('final history', structuredClone(reference.getIterationHistory()), ours.getIterationHistory())) return;
  ours.free();
  analytics?.free();
}

// --------------------------------------------------------------------------------------
// Engine 2: exit decisions and the pyramid

function randomExitConfig(r) {
  const preset = r.pick(['DEFAULT', 'AGGRESSIVE', 'CONSERVATIVE', 'random', 'random']);
  if (preset !== 'random') {
    // The package's own preset constant, or (for the default) no config at all.
    const partial = preset === 'DEFAULT' && r.chance(0.5) ? null : { ...ee[`${preset}_EXIT_CONFIG`] };
    return { partial, full: { ...ref.adr[`${preset}_EXIT_CONFIG`] }, preset };
  }
  const partial = {};
  if (r.chance(0.7)) partial.exitLayer = r.int(0, 4);
  if (r.chance(0.7)) partial.minLambdaForExit = r.pick([60, 80, 95, r.round(r.next() * 100, 1), 0]);
  if (r.chance(0.7)) partial.minLambdaStability = r.pick([0.75, 0.85, 0.92, r.round(r.next(), 3)]);
  if (r.chance(0.7)) partial.maxBoundaryConcentration = r.pick([0.35, 0.5, 0.6, r.round(r.next() * 0.4, 3), 0.05]);
  if (r.chance(0.5)) partial.speculativeTests = r.int(0, 8);
  if (r.chance(0.5)) partial.verificationLayers = r.int(0, 4);
  if (r.chance(0.5)) partial.adaptiveExitLayer = r.chance(0.5);
  if (r.chance(0.7)) partial.minConfidence = r.pick([0.7, 0.8, 0.9, r.round(r.next(), 3), 0.95, 0.97, 0.99]);
  return { partial, full: { ...ref.adr.DEFAULT_EXIT_CONFIG, ...partial }, preset };
}

function randomLayerResult(r, mood) {
  const pick = {
    good: () => ({ passRate: r.pick([1, 0.99, 0.995, r.round(0.95 + r.next() * 0.05, 4)]), coverage: r.pick([0.9, 0.95, r.round(0.85 + r.next() * 0.15, 3)]), flakyRatio: r.pick([0, 0.01, r.round(r.next() * 0.05, 3)]) }),
    fair: () => ({ passRate: r.round(0.8 + r.next() * 0.2, 3), coverage: r.round(0.6 + r.next() * 0.4, 3), flakyRatio: r.round(r.next() * 0.15, 3) }),
    bad: () => ({ passRate: r.round(r.next(), 3), coverage: r.round(r.next(), 3), flakyRatio: r.round(r.next() * 0.5, 3) }),
    edge: () => ({ passRate: r.pick([0.6, 0.7, 0.8, 0.9]), coverage: r.pick([0.6, 0.7, 0.8]), flakyRatio: r.pick([0.2, 0.3, 0.4, 0.05, 0.1]) }),
  }[mood]();
  if (r.chance(0.15)) pick.name = `layer-${r.int(0, 9)}`;
  if (r.chance(0.1)) pick.durationMs = r.int(0, 5000);
  if (r.chance(0.1)) pick.extra = { tag: r.pick(['a', 'b']) };
  return pick;
}

function randomSignal(r, config) {
  const kind = r.next();
  if (kind < 0.4) {
    // Just past this config's lambda and stability bars, fairly concentrated: the
    // confidence is marginal (insufficient_confidence or a confident exit).
    const lambda = Math.min(100, config.minLambdaForExit + r.pick([0, 0.5, 1, 2, 5]));
    const stability = Math.min(1, config.minLambdaStability + r.pick([0, 0.01, 0.02, 0.05]));
    const lambdaPrev = r.round(lambda / (2 - stability), 6);
    const boundaryConcentration = r.round(config.maxBoundaryConcentration * r.pick([0.5, 0.8, 0.95, 1]), 4);
    return { lambda, lambdaPrev, boundaryEdges: 1, boundaryConcentration, partitionCount: 1, flags: 0 };
  }
  if (kind < 0.5) {
    // Strong but jumpy: unstable.
    const lambda = r.pick([85, 90, 95, 100, r.round(80 + r.next() * 20, 2)]);
    return { lambda, lambdaPrev: r.round(lambda * r.pick([0.5, 0.6, 0.7, 0.8]), 2), boundaryEdges: 0, boundaryConcentration: r.pick([0, 0.1, 0.2]), partitionCount: 0, flags: 0 };
  }
  if (kind < 0.65) {
    // Strong and stable: the decision comes down to concentration and confidence.
    const lambda = r.pick([90, 95, 98, 100, r.round(85 + r.next() * 15, 2)]);
    return { lambda, lambdaPrev: lambda, boundaryEdges: 0, boundaryConcentration: r.pick([0, 0.1, 0.2, 0.3, 0.4, 0.55, 0.65, 0.75, 0.8, 0.9]), partitionCount: 0, flags: 0 };
  }
  const lambda = r.pick([r.round(r.next() * 100, 2), 85, 90, 95, 100, 50, 70]);
  return {
    lambda,
    lambdaPrev: r.pick([lambda, r.round(r.next() * 100, 2), Math.min(100, lambda + r.int(0, 10)), 0]),
    boundaryEdges: r.int(0, 3),
    boundaryConcentration: r.pick([0, r.round(r.next(), 3), 0.1, 0.3, 0.55, 0.7]),
    partitionCount: r.int(0, 3),
    flags: 0,
  };
}

function runExitSequence(seed, problems) {
  const r = rng(seed);
  const { partial, full } = randomExitConfig(r);
  const totalLayers = r.int(1, 6);
  const ours = new ee.CoherenceEarlyExit(partial, totalLayers);
  const reference = new ref.adr.CoherenceEarlyExit(full, totalLayers);
  for (let i = 0, n = r.int(4, 10); i < n; i++) {
    const signal = r.chance(0.4) ? ee.calculateQualitySignal(randomLayerResult(r, r.pick(['good', 'fair', 'bad', 'edge']))) : randomSignal(r, full);
    const layer = r.chance(0.75) ? r.int(2, 6) : r.int(0, 2);
    const expected = structuredClone(reference.shouldExit(signal, layer));
    const actual = ours.shouldExit(signal, layer);
    count(exitReasons, actual.reason);
    const diffs = compare(expected, actual);
    if (diffs.length) {
      problems.push(`exit sequence ${seed} (config ${JSON.stringify(full)}, signal ${JSON.stringify(signal)}, layer ${layer}): ${diffs.join('; ')}`);
      return;
    }
  }
  // The quality signal itself, on valid layer results.
  const result = randomLayerResult(r, r.pick(['good', 'fair', 'bad', 'edge']));
  if (r.chance(0.5)) result.previousLambda = r.round(r.next() * 100, 2);
  const diffs = compare(ref.adr.calculateQualitySignal({ ...result }), ee.calculateQualitySignal(result));
  if (diffs.length) problems.push(`exit sequence ${seed} calculateQualitySignal(${JSON.stringify(result)}): ${diffs.join('; ')}`);
  ours.free();
}

// Runners that answer from one shared script, counting calls per side; some sync, some async.
function scriptedRunners(specs, results, counts) {
  return specs.map((spec, i) => ({
    ...spec,
    run() {
      const k = counts[i]++;
      const result = structuredClone(results[i][k % results[i].length]);
      return i % 3 === 1 ? Promise.resolve(result) : i % 3 === 2 ? new Promise((resolve) => setImmediate(() => resolve(result))) : result;
    },
  }));
}

async function runPyramidSequence(seed, problems) {
  const r = rng(seed);
  const { partial, full } = randomExitConfig(r);
  const layerCount = r.int(1, 6);
  const totalLayers = r.chance(0.8) ? layerCount : r.int(1, 8);
  const ours = new ee.EarlyExitController(partial, totalLayers);
  const reference = new ref.adr.EarlyExitController(full, totalLayers);
  for (let run = 0, runs = r.int(1, 2); run < runs; run++) {
    const mood = r.pick(['good', 'good', 'fair', 'bad', 'edge']);
    const specs = Array.from({ length: layerCount }, (_, i) => {
      const spec = { name: ['unit', 'integration', 'contract', 'e2e', 'performance', 'chaos'][i] };
      if (r.chance(0.7)) spec.costMs = r.pick([100, 1000, r.int(0, 60000), 0.5]);
      return spec;
    });
    // Each layer answers its own sequence (a verification run may differ from a first run).
    const results = specs.map(() => [randomLayerResult(r, r.chance(0.7) ? mood : r.pick(['good', 'fair', 'bad', 'edge'])), randomLayerResult(r, 'good')]);
    const oursCounts = specs.map(() => 0);
    const refCounts = specs.map(() => 0);
    const order = [];
    const oursLayers = scriptedRunners(specs, results, oursCounts).map((layer, i) => ({ ...layer, run: () => (order.push(i), layer.run()) }));
    const expected = structuredClone(await reference.runWithEarlyExit(scriptedRunners(specs, results, refCounts)));
    const actual = await ours.runWithEarlyExit(oursLayers);
    count(exitReasons, actual.exitReason);
    const where = `pyramid sequence ${seed} run ${run} (config ${JSON.stringify(full)}, totalLayers ${totalLayers}, results ${JSON.stringify(results)})`;
    const diffs = compare(expected, actual);
    if (JSON.stringify(oursCounts) !== JSON.stringify(refCounts)) diffs.push(`runner calls ${JSON.stringify(oursCounts)}, reference ${JSON.stringify(refCounts)}`);
    // The honest-accounting extras, from what actually happened.
    const ran = new Set(order);
    let saved = 0;
    for (let i = 0; i < specs.length && saved !== null; i++) if (!ran.has(i)) saved = specs[i].costMs === undefined ? null : saved + specs[i].costMs;
    const verified = actual.speculations.filter((s) => s.verified);
    diffs.push(...compare({
      layersExecuted: order,
      verifiedLayers: verified.length,
      mispredictions: verified.filter((s) => !s.correct).length,
      computeSavedMs: saved,
    }, {
      layersExecuted: actual.layersExecuted, verifiedLayers: actual.verifiedLayers, mispredictions: actual.mispredictions, computeSavedMs: actual.computeSavedMs,
    }));
    if (diffs.length) {
      problems.push(`${where}: ${diffs.slice(0, 4).join('; ')}`);
      return;
    }
  }
  ours.free();
}

// --------------------------------------------------------------------------------------

const problems = { loop: [], exit: [], pyramid: [] };

test(`differential: ${SEQUENCES.loop} EarlyStopping sequences against early-stopping.mjs (${IMPL})`, { skip: HAVE_REFERENCE ? false : NO_REFERENCE }, () => {
  for (let seed = 1; seed <= SEQUENCES.loop; seed++) runLoopSequence(seed, problems.loop);
  assert.equal(problems.loop.length, 0, problems.loop.slice(0, 10).join('\n'));
});

test(`differential: ${SEQUENCES.exit} CoherenceEarlyExit / calculateQualitySignal sequences against early-exit-adr.mjs (${IMPL})`, { skip: HAVE_REFERENCE ? false : NO_REFERENCE }, () => {
  for (let seed = 1; seed <= SEQUENCES.exit; seed++) runExitSequence(100_000 + seed, problems.exit);
  assert.equal(problems.exit.length, 0, problems.exit.slice(0, 10).join('\n'));
});

test(`differential: ${SEQUENCES.pyramid} EarlyExitController runs against early-exit-adr.mjs, runner calls included (${IMPL})`, { skip: HAVE_REFERENCE ? false : NO_REFERENCE }, async () => {
  for (let seed = 1; seed <= SEQUENCES.pyramid; seed++) await runPyramidSequence(200_000 + seed, problems.pyramid);
  assert.equal(problems.pyramid.length, 0, problems.pyramid.slice(0, 10).join('\n'));
});

function distribution(title, map, expectedKeys) {
  const total = [...map.values()].reduce((a, b) => a + b, 0);
  const lines = [`${title} (${total} decisions):`];
  const short = [];
  for (const key of expectedKeys) {
    const n = map.get(key) ?? 0;
    const pct = total ? (100 * n) / total : 0;
    lines.push(`  ${key.padEnd(24)} ${String(n).padStart(6)}  ${pct.toFixed(1).padStart(5)}%`);
    if (pct < 5) short.push(`${key} ${pct.toFixed(1)}%`);
  }
  return { lines, short };
}

test(`differential: every trigger and exit reason is at least 5% of its kind (${IMPL})`, { skip: HAVE_REFERENCE ? false : NO_REFERENCE }, () => {
  const t = distribution('triggers', triggers, ['none', 'high_confidence', 'quality_plateau', 'diminishing_returns']);
  const x = distribution('exit reasons', exitReasons, ['forced_continue', 'lambda_too_low', 'lambda_unstable', 'boundaries_concentrated', 'insufficient_confidence', 'confident_exit']);
  console.log([`differential (${IMPL}): ${SEQUENCES.loop + SEQUENCES.exit + SEQUENCES.pyramid} sequences`, ...t.lines, ...x.lines].join('\n'));
  assert.deepEqual([...t.short, ...x.short], [], 'rare outcomes');
});

after(() => {
  if (!HAVE_REFERENCE) console.log(`differential: ${NO_REFERENCE}`);
});
