// The JS Loop in shadow mode (native and wasm, by EARLYEXIT_IMPL; docs/lifecycle.md): a
// candidate decides beside the loop's policy without stopping it, finish() gives the receipt,
// and an artifact not promoted runs its conservative policy with the calibrated one in shadow.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ee, { ROOT } from './impl.mjs';

const { Loop } = ee;
const AT_TWO = { any: [{ condition: 'max_iterations', limit: 2 }] };

test('a shadow candidate decides beside the loop; finish() gives its receipt', () => {
  const loop = new Loop({ preset: 'recommended', maxIterations: 5, task: 't-1', shadow: AT_TWO });
  assert.equal(loop.shadowReason, null);
  const decisions = [40, 50, 60].map((q) => loop.step(`draft ${q}`, { quality: q }));
  assert.deepEqual(decisions.map((d) => d.stop), [false, false, false]);
  assert.equal(decisions[0].would_stop ?? null, null);
  assert.equal(decisions[1].would_stop.iteration, 2);
  assert.equal(decisions[2].would_stop.iteration, 2, 'kept after it first fires');
  const finished = loop.finish(true);
  const { run, receipt } = finished;
  assert.equal(run, finished);
  assert.equal(run.id, 't-1');
  assert.equal(receipt.kind, 'loop');
  assert.equal(receipt.label, 'premature_stop');
  assert.deepEqual(loop.receipt(), receipt);
  // The run alone in JSON and spreads.
  assert.equal(JSON.parse(JSON.stringify(finished)).receipt, undefined);
  assert.equal({ ...finished }.receipt, undefined);
  // Without a shadow: no receipt.
  const plain = new Loop({ preset: 'recommended', maxIterations: 3 });
  plain.step('a', { quality: 50 });
  assert.equal(plain.finish(true).receipt, null);
});

test('bad input: a shadow beside a policy without a cap, a bad candidate', () => {
  const uncapped = { any: [{ condition: 'no_improvement', patience: 3 }] };
  assert.throws(() => new Loop({ policy: uncapped, shadow: 'recommended' }), (e) => e.code === 'invalid_config' && e.field === 'shadow');
  assert.throws(() => new Loop({ preset: 'recommended', maxIterations: 3, shadow: 'nope' }), (e) => e.field.startsWith('shadow'));
  assert.throws(() => new Loop({ preset: 'recommended', maxIterations: 3, shadow: 5 }), (e) => e.field.startsWith('shadow'));
});

test('an unpromoted artifact: its conservative policy acts, the calibrated one in shadow', () => {
  const good = () => ({ quality_score: 95, confidence: 0.95, verification_status: 'passed', good: true });
  const runs = (from, n) => Array.from({ length: n }, (_, i) => ({ id: `t${from + i}`, dataset: 'd', iterations: [good(), good()] }));
  const cal = ee.calibrateLoopPolicy(runs(0, 150), { risk: 0.1, delta: 0.1 });
  const loop = new Loop({ artifact: cal, maxIterations: 4, task: 'x' });
  assert.match(loop.shadowReason, /not promoted/);
  const d = loop.step('draft', { quality: 95, confidence: 0.99, verified: true });
  assert.equal(d.stop, false);
  assert.equal(d.would_stop.iteration, 1);
  const { receipt } = loop.finish(true);
  assert.equal(receipt.policy, 'calibrated');
  assert.equal(receipt.label, 'correct_stop');
  // Its shadow is taken.
  assert.throws(() => new Loop({ artifact: cal, maxIterations: 4, shadow: 'recommended' }), (e) => e.code === 'invalid_config' && e.field === 'shadow');
  // Promoted: the calibrated policy acts, and a shadow given runs.
  const promoted = ee.promoteLoopPolicy(cal, runs(150, 100)).artifact;
  const enforced = new Loop({ artifact: promoted, maxIterations: 4, shadow: 'recommended' });
  assert.equal(enforced.shadowReason, null);
  assert.equal(enforced.step('draft', { quality: 95, confidence: 0.99, verified: true }).stop, true);
});

// tests/vectors/lifecycle/loop_receipts.json: the vectors the Rust and Python suites read too.
const RECEIPTS = JSON.parse(readFileSync(path.join(ROOT, 'tests', 'vectors', 'lifecycle', 'loop_receipts.json'), 'utf8'));
for (const c of RECEIPTS.cases) {
  test(`receipt label vector: ${c.name}`, () => {
    const loop = new Loop({ preset: 'recommended', maxIterations: c.maxIterations, task: 't-1', shadow: c.shadow });
    c.steps.forEach((s, i) => {
      const args = s.verified === undefined ? { quality: s.quality } : { quality: s.quality, verified: s.verified };
      assert.equal(loop.step(`out ${i}`, args).stop, false);
    });
    const { receipt } = c.good === null ? loop.finish() : loop.finish(c.good);
    assert.equal(receipt.label, c.label);
    assert.equal(receipt.stoppedAt, c.wouldStop);
  });
}

test('hostile shadows: deep, huge, of the wrong type; each a typed error naming shadow', () => {
  let deep = { condition: 'max_iterations', limit: 2 };
  for (let i = 0; i < 5000; i++) deep = { any: [deep] };
  for (const shadow of [deep, 'x'.repeat(5_000_000), [1, 2], 5, true]) {
    assert.throws(
      () => new Loop({ preset: 'recommended', maxIterations: 3, shadow }),
      (e) => ee.isEarlyExitError(e) && e.code === 'invalid_config' && e.field.startsWith('shadow') && e.message.length < 4096,
    );
  }
});
