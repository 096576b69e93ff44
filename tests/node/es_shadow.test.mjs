// EarlyStopping in shadow mode (native and wasm, by EARLYEXIT_IMPL; docs/lifecycle.md): a
// candidate given as the third argument's `shadow` decides beside the engine without
// stopping it; decisions carry `would_stop`; snapshots keep it; fromCalibration with an
// artifact not promoted enforces the conservative policy and shadows the calibrated one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ee, { ROOT } from './impl.mjs';

const { EarlyStopping } = ee;
const AT_TWO = { any: [{ condition: 'max_iterations', limit: 2 }] };
const result = (quality, status = 'failed') => ({ quality_score: quality, confidence: 0.5, verification_status: status, quality_delta: 1 });

test('would_stop appears where the candidate fires and is kept; stop stays the engine\'s', () => {
  const es = new EarlyStopping({ maxIterations: 4 }, null, { shadow: AT_TWO });
  const decisions = [];
  for (let i = 1; i <= 4; i++) {
    es.recordIterationResult(i, result(40 + i));
    decisions.push(es.shouldStop(i));
  }
  assert.deepEqual(decisions.map((d) => d.stop), [false, false, false, true]);
  assert.equal(decisions[3].trigger, 'max_iterations');
  assert.equal(decisions[0].would_stop, undefined, 'no key before it fires');
  const expected = { iteration: 2, trigger: 'max_iterations', reason: 'Maximum iterations reached (2/2)', returned_iteration: 2, returned_quality: 42 };
  for (const d of decisions.slice(1)) assert.deepEqual(d.would_stop, expected);
  // The same engine without a shadow decides the same, without the key.
  const plain = new EarlyStopping({ maxIterations: 4 });
  for (let i = 1; i <= 4; i++) plain.recordIterationResult(i, result(40 + i));
  const { would_stop: _, ...rest } = decisions[3];
  assert.deepEqual(plain.shouldStop(), rest);
  // Neither the config nor the policy carries it.
  assert.deepEqual(es.getConfig(), plain.getConfig());
  assert.equal(es.policy, null);
  assert.equal(es.shadowReason, null);
  es.free();
  plain.free();
});

test('a preset as candidate, beside a policy; summary and reset', () => {
  const policy = { any: [{ condition: 'max_iterations', limit: 6 }, { condition: 'no_improvement', patience: 9 }] };
  const es = new EarlyStopping(null, null, { policy, shadow: { preset: 'recommended' } });
  assert.notEqual(es.policy, null);
  for (let i = 1; i <= 3; i++) es.recordIterationResult(i, { ...result(96, 'passed'), confidence: 0.99 });
  const d = es.shouldStop();
  assert.equal(d.stop, false);
  assert.equal(d.would_stop.iteration, 1);
  assert.equal(es.generateSummary().total_iterations, 3);
  es.reset();
  assert.equal(es.shouldStop().would_stop, undefined, 'a reset starts the candidate over');
  es.recordIterationResult(1, result(10));
  assert.equal(es.shouldStop().would_stop, undefined);
  es.free();
});

test('snapshots keep the shadow; a restored engine decides as the live one', () => {
  const es = new EarlyStopping({ maxIterations: 5 }, null, { shadow: AT_TWO });
  for (let i = 1; i <= 3; i++) es.recordIterationResult(i, result(40 + i));
  const live = es.shouldStop();
  const snapshot = es.toJSON();
  assert.equal(snapshot.shadow.name, 'custom');
  assert.deepEqual(snapshot.shadow.policy.any, AT_TWO.any);
  const restored = EarlyStopping.fromJSON(JSON.stringify(snapshot));
  assert.deepEqual(restored.shouldStop(), live);
  assert.deepEqual(restored.toJSON(), snapshot);
  // A snapshot without a shadow stays the seed's document.
  assert.equal('shadow' in new EarlyStopping({ maxIterations: 5 }).toJSON(), false);
});

test('bad input: no hard cap, bad candidates, hostile values: typed errors naming shadow', () => {
  assert.throws(() => new EarlyStopping(null, null, { shadow: AT_TWO }), (e) => e.code === 'invalid_config' && e.field === 'shadow');
  const uncapped = { any: [{ condition: 'no_improvement', patience: 3 }] };
  assert.throws(() => new EarlyStopping({ maxIterations: 3 }, null, { policy: uncapped, shadow: 'recommended' }), (e) => e.code === 'invalid_config' && e.field === 'shadow');
  let deep = { condition: 'max_iterations', limit: 2 };
  for (let i = 0; i < 5000; i++) deep = { any: [deep] };
  for (const shadow of [deep, 'x'.repeat(5_000_000), '{"preset":', [1, 2], 5, true, 'nope', { preset: 'nope' }, { kind: 'pyramid' }]) {
    assert.throws(
      () => new EarlyStopping({ maxIterations: 3 }, null, { shadow }),
      (e) => ee.isEarlyExitError(e) && ['invalid_config', 'invalid_artifact', 'unknown_option'].includes(e.code) && e.field.startsWith('shadow') && e.message.length < 4096,
      String(shadow).slice(0, 40),
    );
  }
  // An engine made after the refusals decides as always.
  const es = new EarlyStopping({ maxIterations: 2 });
  es.recordIterationResult(1, result(50));
  assert.equal(es.shouldStop().stop, false);
  // A snapshot's shadow is checked as a snapshot's (invalid_snapshot), nothing restored.
  const doc = new EarlyStopping({ maxIterations: 3 }, null, { shadow: AT_TWO }).toJSON();
  for (const shadow of [{ ...doc.shadow, name: 5 }, { ...doc.shadow, extra: 1 }, 'x']) {
    assert.throws(() => EarlyStopping.fromJSON({ ...doc, shadow }), (e) => ee.isEarlyExitError(e) && e.field.startsWith('shadow'));
  }
});

test('fromCalibration: an unpromoted artifact enforces its conservative policy, shadows the calibrated one', () => {
  const good = () => ({ quality_score: 95, confidence: 0.95, verification_status: 'passed', good: true });
  const runs = (from, n) => Array.from({ length: n }, (_, i) => ({ id: `t${from + i}`, dataset: 'd', iterations: [good(), good()] }));
  const cal = ee.calibrateLoopPolicy(runs(0, 150), { risk: 0.1, delta: 0.1 });
  const warn = console.warn;
  console.warn = () => {};
  let es;
  try {
    es = EarlyStopping.fromCalibration(cal);
  } finally {
    console.warn = warn;
  }
  assert.match(es.shadowReason, /not promoted/);
  es.recordIterationResult(1, { quality_score: 95, confidence: 0.99, verification_status: 'passed', quality_delta: 95 });
  const d = es.shouldStop();
  assert.equal(d.stop, false);
  assert.equal(d.would_stop.iteration, 1);
  const snapshot = es.toJSON();
  assert.equal(snapshot.shadow.name, 'calibrated');
  assert.match(snapshot.shadow.reason, /not promoted/);
  const restored = EarlyStopping.fromJSON(snapshot);
  assert.equal(restored.shadowReason, es.shadowReason);
  assert.deepEqual(restored.shouldStop(), d);
  // Promoted: the calibrated policy acts, no shadow.
  const promoted = ee.promoteLoopPolicy(cal, runs(150, 100)).artifact;
  const enforced = EarlyStopping.fromCalibration(promoted);
  assert.equal(enforced.shadowReason, null);
  enforced.recordIterationResult(1, { quality_score: 95, confidence: 0.99, verification_status: 'passed', quality_delta: 95 });
  const e = enforced.shouldStop();
  assert.equal(e.stop, true);
  assert.equal(e.would_stop, undefined);
});

// tests/vectors/lifecycle/loop_receipts.json (shared with the Rust, Python and Loop suites):
// the candidate's would-stop iteration, through EarlyStopping's records.
const RECEIPTS = JSON.parse(readFileSync(path.join(ROOT, 'tests', 'vectors', 'lifecycle', 'loop_receipts.json'), 'utf8'));
for (const c of RECEIPTS.cases) {
  test(`would-stop vector through EarlyStopping: ${c.name}`, () => {
    const es = new EarlyStopping({ maxIterations: c.maxIterations }, null, { shadow: c.shadow });
    let d = null;
    let last = 0;
    c.steps.forEach((s, i) => {
      const status = s.verified === undefined ? 'skipped' : s.verified ? 'passed' : 'failed';
      es.recordIterationResult(i + 1, { quality_score: s.quality, confidence: 0.5, verification_status: status, quality_delta: s.quality - last });
      last = s.quality;
      d = es.shouldStop();
      assert.equal(d.stop, false);
    });
    assert.equal(d.would_stop?.iteration ?? null, c.wouldStop);
  });
}

test('a subclass check method\'s answer is not written to; its stop stands', () => {
  const mine = { stop: true, reason: 'mine', confidence: 1, trigger: 'high_confidence', details: {} };
  class Mine extends EarlyStopping {
    checkHighConfidence() {
      return mine;
    }
  }
  const es = new Mine({ maxIterations: 5 }, null, { shadow: { any: [{ condition: 'max_iterations', limit: 1 }] } });
  es.recordIterationResult(1, result(50));
  const d = es.shouldStop();
  assert.equal(d.stop, true);
  assert.equal(d.reason, 'mine');
  assert.equal(d.would_stop.iteration, 1);
  assert.equal('would_stop' in mine, false);
});

test('repeated: engines with a shadow made, used and freed many times stay exact', () => {
  let first = null;
  for (let n = 0; n < 2000; n++) {
    const es = new EarlyStopping({ maxIterations: 3 }, null, { shadow: AT_TWO });
    for (let i = 1; i <= 3; i++) es.recordIterationResult(i, result(40 + i));
    const d = es.shouldStop();
    if (first === null) first = d;
    else assert.deepEqual(d, first);
    es.free();
    assert.throws(() => es.shouldStop(), /freed/);
  }
  assert.equal(first.stop, true);
  assert.equal(first.would_stop.iteration, 2);
});
