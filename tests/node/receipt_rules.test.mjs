// The receipt log's rules beyond the hash chain (docs/test-exit.md "Receipts"): one receipt
// per run, no blank lines, nothing written when there is nothing to write, and receipts that
// contradict themselves refused; and pyramid cost sums that never overflow
// (docs/limits.md). Native and wasm alike (EARLYEXIT_IMPL).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import ee from './impl.mjs';
import { chained, chainLog, receipt } from '../vectors/receipt_doc.mjs';

const refused = (field, kind = RangeError) => (e) => e instanceof kind && e.code === 'invalid_receipt' && e.field === field;

test('a retried step appends its receipt once; another receipt for the run is refused', () => {
  const r = receipt('correct_skip', { runId: 'build-41' });
  let log = '';
  for (let i = 0; i < 3; i++) log += ee.appendReceipts(log, [r]);
  assert.equal(log.split('\n').filter(Boolean).length, 1);
  assert.ok(!log.includes('\n\n') && log.endsWith('\n'));
  assert.deepEqual([ee.verifyReceipts(log).receipts, ee.verifyReceipts(log).repeated], [1, 0]);
  assert.equal(ee.appendReceipts(log, []), '');
  assert.equal(ee.appendReceipts(null, []), '');
  assert.equal(ee.appendReceipts('', [r, r]).split('\n').filter(Boolean).length, 1);
  assert.throws(() => ee.appendReceipts(log, [receipt('false_pass', { runId: 'build-41' })]), refused('receipts[0].runId'));
  // A log written before the rule (the same line three times): counted once.
  const old = chainLog([r, r, r]);
  const check = ee.verifyReceipts(old);
  assert.deepEqual([check.valid, check.receipts, check.repeated, check.labels], [true, 1, 2, { correct_skip: 1 }]);
  const conflicting = chainLog([r, receipt('needless_run', { runId: 'build-41' })]);
  assert.deepEqual(ee.verifyReceipts(conflicting).brokenAt.field, 'runId');
});

test('receipts that contradict themselves are refused and break the log', () => {
  const edit = (label, change) => { const r = receipt(label, { runId: 'b' }); change(r); return r; };
  const cases = [
    ['receipts[0].label', edit('correct_skip', (r) => { r.skipped[0].actual = 'fail'; r.firstMissedFailure = { layer: 1, name: 'e2e' }; })],
    ['receipts[0].layer', edit('correct_skip', (r) => { r.layer = 50; })],
    ['receipts[0].computeSavedMs', edit('correct_skip', (r) => { r.computeSavedMs = 1e308; })],
    ['receipts[0].signal.risk', edit('correct_skip', (r) => { r.signal.risk = -0.1; })],
  ];
  for (const [field, bad] of cases) {
    assert.throws(() => ee.appendReceipts('', [bad]), refused(field), field);
    const broken = ee.verifyReceipts(JSON.stringify(chained(bad, null)) + '\n').brokenAt;
    assert.deepEqual([broken.line, broken.field], [1, field.slice('receipts[0].'.length)]);
  }
  // A key stated twice: the hash covers the last, JSON.parse's reading.
  const honest = JSON.stringify(chained(receipt('false_pass'), null));
  const forged = honest.replace('"label":"false_pass"', '"label":"correct_skip","label":"false_pass"');
  assert.equal(ee.verifyReceipts(honest).valid, true);
  const broken = ee.verifyReceipts(forged).brokenAt;
  assert.equal(broken.line, 1);
  assert.match(broken.reason, /'label' repeated/);
});

test('pyramid costs whose sum would overflow are refused, typed', () => {
  const huge = ['a', 'b', 'c', 'd'].map((name) => ({ name, costMs: 1e308 }));
  assert.throws(() => ee.PyramidRun.start(undefined, 4, huge),
    (e) => e instanceof RangeError && e.code === 'invalid_config' && e.field === 'layers[1].costMs' && /running total/.test(e.message));
  const run = (durations) => ({ layers: durations.map((durationMs, i) => ({ name: `l${i}`, durationMs, failed: false })) });
  assert.throws(() => ee.replayPyramids([run([1e308, 1e308])]),
    (e) => e instanceof RangeError && e.code === 'invalid_replay' && e.field === 'runs[0].layers[1].durationMs');
  assert.throws(() => ee.replayPyramids([run([1e308]), run([1e308])]),
    (e) => e.code === 'invalid_replay' && e.field === 'runs[1].layers');
  assert.equal(ee.replayPyramids([run([1e308])]).summary.totalMs, 1e308);
  const ran = [{ name: 'e2e', failed: false, durationMs: 1e308 }];
  const model = ee.pyramidPolicyUpdate(null, ran, { config: { forgetting: 1 } });
  assert.throws(() => ee.pyramidPolicyUpdate(model, ran, { config: { forgetting: 1 } }),
    (e) => e instanceof RangeError && e.code === 'invalid_config' && e.field === 'ran[0].durationMs');
  // A live run: a duration that would overflow the receipt's savings.
  const live = ee.PyramidRun.start(undefined, 2, [{ name: 'unit', costMs: 1 }, { name: 'e2e', costMs: 1e308 }],
    { policy: 'fail_fast', mode: 'shadow' });
  assert.throws(() => live.submit(0, { passRate: 1, coverage: 1, flakyRatio: 0, durationMs: 1e308 }),
    (e) => e instanceof RangeError && e.code === 'invalid_layer_result' && e.field === 'layers[0].durationMs');
  assert.deepEqual(live.next(), { action: 'run', layer: 0 });
});
