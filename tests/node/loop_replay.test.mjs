// Loop replay and loop presets through the JS API (native and wasm, by EARLYEXIT_IMPL):
// every vector of tests/vectors/replay/loop_replay.json (expected values from the JS model in
// gen_loop_replay.mjs), EarlyStopping.fromPreset, and the errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ee, { ROOT } from './impl.mjs';

const doc = JSON.parse(readFileSync(path.join(ROOT, 'tests', 'vectors', 'replay', 'loop_replay.json'), 'utf8'));

test('every loop replay vector matches the model', () => {
  const failures = [];
  let replays = 0;
  let errors = 0;
  for (const v of doc.vectors) {
    const runs = v.runSet !== undefined ? doc.runSets[v.runSet] : v.runs !== undefined ? v.runs : v.jsonl;
    try {
      const got = ee.replayLoops(runs, v.policy);
      if (v.throws) {
        failures.push(`${v.name}: expected ${v.throws.code} at ${v.throws.field}, got a result`);
        continue;
      }
      assert.deepStrictEqual(got.summary, v.returns.summary, `${v.name}: summary`);
      assert.deepStrictEqual(got.runs, v.returns.runs, `${v.name}: runs`);
      replays += 1;
    } catch (e) {
      if (!v.throws) {
        failures.push(`${v.name}: ${e.message}`);
        continue;
      }
      const kind = e instanceof TypeError ? 'type' : e instanceof RangeError ? 'range' : 'other';
      const got = { code: e.code, field: e.field, kind };
      if (JSON.stringify(got) !== JSON.stringify(v.throws)) failures.push(`${v.name}: ${JSON.stringify(got)} != ${JSON.stringify(v.throws)}`);
      else errors += 1;
    }
  }
  assert.deepEqual(failures, []);
  assert.ok(replays > 30 && errors > 20, `${replays} replays, ${errors} errors`);
});

test('fromPreset builds an engine with the preset config and validates overrides', () => {
  assert.deepEqual(ee.LOOP_PRESETS, ['seed', 'recommended']);
  const seed = ee.EarlyStopping.fromPreset('seed');
  assert.deepEqual(seed.getConfig(), new ee.EarlyStopping().getConfig());
  const recommended = ee.EarlyStopping.fromPreset('recommended', { noImprovementPatience: 2 });
  const config = recommended.getConfig();
  assert.equal(config.plateauMinQuality, 70);
  assert.equal(config.noImprovementPatience, 2);
  assert.equal(config.plateauDeltaSource, 'computed');
  for (const [i, q] of [[1, 0], [2, 0], [3, 0]]) {
    recommended.recordIterationResult(i, { quality_score: q, confidence: 0, verification_status: 'failed', quality_delta: 0, timestamp: '2026-01-01T00:00:00Z' });
  }
  const decision = recommended.shouldStop();
  assert.equal(decision.trigger, 'no_improvement', 'three zeros are no plateau, but two records without a new best give up');
  assert.equal(decision.details.iterations_without_improvement, 2);
  const restored = ee.EarlyStopping.fromJSON(JSON.stringify(recommended.toJSON()));
  assert.deepEqual(restored.toJSON(), recommended.toJSON());
  assert.throws(() => ee.EarlyStopping.fromPreset('fast'), (e) => e instanceof RangeError && e.code === 'invalid_config' && e.field === 'name');
  assert.throws(() => ee.EarlyStopping.fromPreset('recommended', { noImprovementPatience: 0 }),
    (e) => e instanceof RangeError && e.code === 'invalid_config' && e.field === 'noImprovementPatience');
  assert.deepEqual(ee.loopPreset('recommended'), config.noImprovementPatience === 2 ? { ...config, noImprovementPatience: 5 } : config);
});

test('replayLoops takes JSONL text and reports the failing line', () => {
  const line = JSON.stringify({ id: 'a', iterations: [{ quality_score: 50, confidence: 0.5, verification_status: 'failed' }] });
  const replay = ee.replayLoops(`${line}\n${line}\n`, 'recommended');
  assert.equal(replay.summary.runs, 2);
  assert.equal(replay.policy.returns, 'best');
  assert.throws(() => ee.replayLoops(`${line}\n\n{"id": "b", "iterations": [{"quality_score": 500}]}\n`),
    (e) => e instanceof RangeError && e.code === 'invalid_replay' && e.field === 'runs[1].iterations[0].quality_score' && /line 3/.test(e.message));
});

test('a batch of 100,000 iterations replays in one call (figure printed, not asserted)', () => {
  const runs = [];
  for (let r = 0; r < 10000; r++) {
    const iterations = [];
    for (let i = 0; i < 10; i++) iterations.push({ quality_score: (r * 7 + i * 13) % 101, confidence: 0.5, verification_status: 'failed' });
    runs.push({ id: String(r), iterations });
  }
  const t0 = performance.now();
  const replay = ee.replayLoops(runs, 'recommended');
  const ms = performance.now() - t0;
  console.log(`replayLoops: ${replay.summary.iterations_available} iterations in ${ms.toFixed(1)} ms`);
  assert.equal(replay.summary.runs, 10000);
});

test('values JSON cannot hold still reach the core and fail with their path', () => {
  const run = (q) => [{ id: 'a', iterations: [{ quality_score: 50, confidence: 0.5, verification_status: 'failed' }, { quality_score: q, confidence: 0.5, verification_status: 'failed' }] }];
  for (const bad of [NaN, Infinity, -Infinity]) {
    assert.throws(() => ee.replayLoops(run(bad)),
      (e) => e instanceof RangeError && e.code === 'invalid_replay' && e.field === 'runs[0].iterations[1].quality_score');
  }
  assert.throws(() => ee.replayLoops(run(() => 1)),
    (e) => e instanceof TypeError && e.code === 'invalid_replay' && e.field === 'runs[0].iterations[1].quality_score' && /function/.test(e.message));
  assert.throws(() => ee.replayLoops(42), (e) => e instanceof TypeError && e.field === 'runs');
});

test('an array of runs and the same runs as JSONL give the same replay; array errors name no line', () => {
  const runs = doc.runSets['random-11'];
  const jsonl = runs.map((r) => JSON.stringify(r)).join('\n');
  assert.deepStrictEqual(ee.replayLoops(runs, 'recommended'), ee.replayLoops(jsonl, 'recommended'));
  assert.deepStrictEqual(ee.replayLoops([], 'seed').summary.runs, 0);
  const bad = [runs[0], { ...runs[1], iterations: [{ quality_score: 5, confidence: 0.5, verification_status: 'failed', good: 'yes' }] }];
  assert.throws(() => ee.replayLoops(bad), (e) => e instanceof TypeError && e.code === 'invalid_replay'
    && e.field === 'runs[1].iterations[0].good' && !/line/.test(e.message));
  assert.throws(() => ee.replayLoops([runs[0], undefined]), (e) => e instanceof TypeError && e.field === 'runs[1]');
  assert.throws(() => ee.replayLoops([runs[0], 5]), (e) => e instanceof TypeError && e.field === 'runs[1]' && !/line/.test(e.message));
});
