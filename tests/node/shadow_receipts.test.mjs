// Shadow mode, live, and its receipt log: every layer runs, the point where the policy would
// have exited is a receipt, and appendReceipts / verifyReceipts keep and check the hash chain
// (SHA-256 over RFC 8785 canonical JSON, the same digest in every binding).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ee, { ROOT } from './impl.mjs';

const NAMES = ['unit', 'integration', 'e2e'];
const COSTS = [10, 40, 90];
const result = (failed, durationMs) => ({ passRate: failed ? 0.5 : 1, coverage: 1, flakyRatio: 0, durationMs });

function greenModel(n) {
  let model = null;
  const ran = NAMES.map((name, i) => ({ name, failed: false, durationMs: COSTS[i] }));
  for (let i = 0; i < n; i++) model = ee.pyramidPolicyUpdate(model, ran, { config: { forgetting: 1 } });
  return model;
}
const MODEL = greenModel(400);

async function shadowRun(fails, options = {}) {
  let ran = 0;
  const layers = NAMES.map((name, i) => ({ name, costMs: COSTS[i], run: () => { ran++; return result(fails[i], COSTS[i]); } }));
  const controller = new ee.EarlyExitController(undefined, 3, {
    policy: 'risk_bounded', mode: 'shadow', model: MODEL, policyConfig: { reorder: false }, ...options,
  });
  const r = await controller.runWithEarlyExit(layers);
  assert.equal(ran, 3, 'shadow mode runs every layer');
  return r;
}

test('a shadow run runs every layer and its receipt says what the exit would have done', async () => {
  const r = await shadowRun([false, false, false], { runId: 'build-7' });
  assert.deepEqual([r.exitedEarly, r.layersExecuted, r.verdict, r.policy.mode], [false, [0, 1, 2], 'passed', 'shadow']);
  assert.equal(r.shadow.receipts.length, 1);
  const receipt = r.shadow.receipts[0];
  assert.deepEqual([receipt.label, receipt.exitReason, receipt.runId, receipt.firstMissedFailure], ['correct_skip', 'risk_bounded', 'build-7', null]);
  assert.ok(receipt.signal.risk <= receipt.thresholds.riskBudget);
  assert.equal(receipt.computeSavedMs, receipt.skipped.reduce((s, l) => s + l.costMs, 0));
  assert.deepEqual(r.shadow.labels, { correctSkip: 1, falsePass: 0, needlessRun: 0 });

  const missed = await shadowRun([false, false, true]);
  assert.equal(missed.shadow.receipts[0].label, 'false_pass');
  assert.deepEqual(missed.shadow.receipts[0].firstMissedFailure, { layer: 2, name: 'e2e' });
  assert.equal(missed.verdict, 'failed');
});

test('PyramidRun.start takes mode shadow', () => {
  const run = ee.PyramidRun.start(undefined, 3, NAMES.map((name, i) => ({ name, costMs: COSTS[i] })),
    { policy: 'fail_fast', mode: 'shadow' });
  for (let step = run.next(); step.action === 'run'; step = run.next()) run.submit(step.layer, result(step.layer === 0, 1));
  const r = run.result();
  assert.deepEqual([r.layersExecuted.length, r.shadow.receipts[0].label], [3, 'needless_run']);
});

// The ADR's exit decision (the default policy) in shadow mode over five layers.
const ADR_NAMES = ['unit', 'integration', 'e2e', 'perf', 'smoke'];
async function adrShadow(rates, options = {}) {
  const calls = [];
  const layers = ADR_NAMES.map((name, i) => ({
    name, costMs: 10 * (i + 1), run: () => { calls.push(i); return { passRate: rates[i], coverage: 0.95, flakyRatio: 0 }; },
  }));
  const r = await new ee.EarlyExitController(undefined, 5, { mode: 'shadow' }).runWithEarlyExit(layers, options);
  assert.deepEqual(calls, [0, 1, 2, 3, 4], 'shadow mode runs every layer');
  return r;
}

test("the ADR's exit decision runs in shadow mode and labels its would-be exit", async () => {
  const r = await adrShadow([1, 1, 1, 1, 1], { runId: 'b1', label: 'main' });
  assert.deepEqual([r.exitedEarly, r.exitReason, r.verdict], [false, 'forced_continue', 'passed']);
  const receipt = r.shadow.receipts[0];
  assert.deepEqual([receipt.policy, receipt.layer, receipt.label, receipt.runLabel, receipt.exitReason],
    ['adr', 0, 'correct_skip', 'main', 'confident_exit']);
  assert.equal(receipt.decision.canExit, true);
  assert.deepEqual(receipt.speculations.map((s) => [s.layer, s.name]), [[1, 'integration'], [2, 'e2e'], [3, 'perf'], [4, 'smoke']]);
  assert.deepEqual(receipt.verification.map((v) => [v.layer, v.outcome, v.correct]), [[1, 'pass', true], [2, 'pass', true]]);
  assert.equal(receipt.computeSavedMs, 90); // perf and smoke: verification runs integration and e2e
  assert.deepEqual(r.shadow.labels, { correctSkip: 1, falsePass: 0, needlessRun: 0 });
  const missed = await adrShadow([1, 1, 1, 1, 0.5], { runId: 'b2' });
  assert.deepEqual([missed.shadow.receipts[0].label, missed.shadow.receipts[0].firstMissedFailure], ['false_pass', { layer: 4, name: 'smoke' }]);
  const red = await adrShadow([1, 0.5, 1, 1, 1], { runId: 'b3' });
  assert.equal(red.shadow.receipts[0].label, 'needless_run');
  let log = '';
  for (const run of [r, missed, red]) log += ee.appendReceipts(log, run.shadow.receipts);
  const check = ee.verifyReceipts(log);
  assert.deepEqual([check.valid, check.receipts, check.labels], [true, 3, { correct_skip: 1, false_pass: 1, needless_run: 1 }]);
  // A receipt that contradicts itself is refused, naming the field.
  const edited = { ...receipt, computeSavedMs: 1 };
  assert.throws(() => ee.appendReceipts('', [edited]), (e) => e.code === 'invalid_receipt' && e.field === 'receipts[0].computeSavedMs');
});

test("the ADR's shadow run steps, snapshots and writes no receipt without a would-be exit", () => {
  const run = ee.PyramidRun.start(undefined, 2, [{ name: 'unit' }, { name: 'e2e' }], { mode: 'shadow' });
  const first = run.next();
  run.submit(first.layer, { passRate: 1, coverage: 0.5, flakyRatio: 0 });
  const back = ee.PyramidRun.fromJSON(run.toJSON());
  for (const r of [run, back]) {
    for (let step = r.next(); step.action === 'run'; step = r.next()) r.submit(step.layer, { passRate: 1, coverage: 0.5, flakyRatio: 0 });
  }
  const r = run.result();
  assert.deepEqual([r.layersExecuted, r.shadow.receipts, r.shadow.reason], [[0, 1], [], 'requested']);
  assert.deepEqual(back.result(), r);
});

test('appendReceipts chains a log that verifyReceipts checks, and finds tampering', async () => {
  let log = '';
  for (const fails of [[false, false, false], [false, false, true], [false, false, false]]) {
    const r = await shadowRun(fails);
    log += ee.appendReceipts(log, r.shadow.receipts);
  }
  const check = ee.verifyReceipts(log);
  assert.deepEqual([check.valid, check.receipts, check.brokenAt], [true, 3, null]);
  assert.deepEqual(check.labels, { correct_skip: 2, false_pass: 1 });
  const lines = log.trimEnd().split('\n');
  assert.equal(check.head, JSON.parse(lines[2]).sha256);
  assert.match(check.head, /^[0-9a-f]{64}$/);
  assert.equal(JSON.parse(lines[0]).prevHash, null);
  assert.equal(JSON.parse(lines[1]).prevHash, JSON.parse(lines[0]).sha256);
  const broken = (text) => ee.verifyReceipts(text).brokenAt;
  assert.deepEqual(broken([lines[0], lines[2]].join('\n')).line, 2);
  assert.equal(broken([lines[1], lines[0], lines[2]].join('\n')).field, 'prevHash');
  const edited = lines[1].replace('"false_pass"', '"correct_skip"');
  assert.deepEqual([broken([lines[0], edited, lines[2]].join('\n')).line, broken([lines[0], edited].join('\n')).field], [2, 'sha256']);
  // Nothing is appended to a broken log; bad arguments are typed errors.
  assert.throws(() => ee.appendReceipts(lines[1], []), (e) => e.code === 'invalid_receipt' && e.field === 'log.line 1');
  assert.throws(() => ee.verifyReceipts(7), (e) => e instanceof TypeError && e.code === 'invalid_receipt' && e.field === 'text');
  assert.throws(() => ee.appendReceipts('', [{ sha256: 'x' }]), (e) => e.field === 'receipts[0].sha256');
});

test('the digest is SHA-256 over RFC 8785 canonical JSON (a vector every binding checks)', () => {
  // A fixed receipt: its line's sha256 is pinned here and in tests/python.
  const line = ee.appendReceipts('', [DIGEST_RECEIPT]).trimEnd();
  assert.deepEqual(JSON.parse(line), { ...DIGEST_RECEIPT, signal: { risk: 0 }, prevHash: null, sha256: RECEIPT_VECTOR_SHA256 });
  assert.equal(JSON.parse(line).sha256, RECEIPT_VECTOR_SHA256);
});

// A receipt as the core writes it, with numbers whose canonical forms differ from their
// source text (1.50, 1e21, -0, 0.1).
const DIGEST_RECEIPT = {
  kind: 'pyramid', receiptVersion: 1, runId: 'vector', layer: 0, layerName: 'unit', layersRun: 1, policy: 'risk_bounded',
  config: { riskBudget: 0.1, confidence: 0.95, priorFailures: 1.50, priorPasses: 0.5, reorder: true, skipOnSuccess: true, forgetting: 1 },
  exitReason: 'risk_bounded', signal: { risk: -0 }, thresholds: { riskBudget: 0.1, confidence: 0.95 },
  skipped: [{ layer: 1, name: 'e2e', predicted: 'pass', confidence: 0.9, actual: 'pass', costMs: 1e21 }],
  firstMissedFailure: null, label: 'correct_skip', computeSavedMs: 1e21,
};
// sha256 of its canonical text with "prevHash":null, computed independently (Python's hashlib
// over the text tests/python/test_shadow_receipts.py spells out).
const RECEIPT_VECTOR_SHA256 = '11caa2080cbed4000c5988c11e62325c8c2f7288b5ad8b52529b89a38f5a3178';

const lrtsLike = (n, unitEvery, offset) => Array.from({ length: n }, (_, j) => {
  const i = j + offset;
  return { layers: [
    { name: 'unit', durationMs: 10, failed: i % unitEvery === 0 },
    { name: 'integration', durationMs: 40, failed: false },
    { name: 'e2e', durationMs: 90, failed: i % 97 === 3 },
  ] };
});

test('calibration artifact, drift, promotion and the lifecycle of a live run', async () => {
  const cal = ee.calibratePyramidPolicy(lrtsLike(600, 5, 0), 0.2, 0.1, { createdAt: '2026-01-01T00:00:00Z' });
  assert.deepEqual([cal.kind, cal.schemaVersion, cal.expiresAt], ['pyramid', 2, '2026-01-31T00:00:00.000Z']);
  assert.equal(cal.policy.config.riskBudget, cal.riskBudget);
  assert.match(cal.corpusSha256, /^[0-9a-f]{64}$/);
  const layers = NAMES.map((name, i) => ({ name, costMs: COSTS[i], run: () => result(false, 1) }));
  const r = await new ee.EarlyExitController(undefined, 3, { policy: cal, now: '2026-01-02T00:00:00Z' }).runWithEarlyExit(layers);
  assert.match(r.shadow.reason, /not promoted/);
  assert.equal(r.layersExecuted.length, 3);
  assert.equal(ee.checkPyramidDrift(cal, lrtsLike(100, 5, 600), '2026-01-02T00:00:00Z').status, 'fresh');
  assert.equal(ee.checkPyramidDrift(JSON.stringify(cal), lrtsLike(100, 5, 600), new Date('2026-03-01')).status, 'expired');
  const drifted = ee.checkPyramidDrift(cal, lrtsLike(100, 2, 600), Date.parse('2026-01-02'));
  assert.deepEqual([drifted.status, drifted.reasons[0].kind, drifted.reasons[0].stage], ['drifted', 'failure_rate', 'unit']);
  const out = ee.promotePyramidPolicy(cal, lrtsLike(400, 5, 600), '2026-01-02T00:00:00Z');
  assert.equal(out.promoted, true, out.reason);
  assert.equal(out.artifact.promotion.method, 'clopper-pearson');
  // Enforced while fresh (`now` fixed: the artifact expires 2026-01-31).
  const enforced = await new ee.EarlyExitController(undefined, 3, { policy: out.artifact, now: '2026-01-02T00:00:00Z' })
    .runWithEarlyExit(layers);
  assert.equal(enforced.shadow, undefined);
  assert.throws(() => ee.promotePyramidPolicy(cal, lrtsLike(600, 5, 0), '2026-01-02T00:00:00Z'), (e) => e.field === 'auditRuns');
  assert.throws(() => ee.checkPyramidDrift({ ...cal, schemaVersion: 9 }, lrtsLike(1, 5, 0)),
    (e) => e.code === 'invalid_artifact' && e.field === 'schemaVersion' && /reads versions 1 and 2/.test(e.message));
  assert.throws(() => ee.checkPyramidDrift(cal, lrtsLike(1, 5, 0), {}), (e) => e instanceof TypeError && e.field === 'now');
});

test('an expired enforced artifact runs in shadow mode, saying when it expired (now fixed, or the clock)', async () => {
  const cal = ee.calibratePyramidPolicy(lrtsLike(600, 5, 0), 0.2, 0.1, { createdAt: '2026-01-01T00:00:00Z' });
  const { artifact } = ee.promotePyramidPolicy(cal, lrtsLike(400, 5, 600), '2026-01-02T00:00:00Z');
  const layers = NAMES.map((name, i) => ({ name, costMs: COSTS[i], run: () => result(false, 1) }));
  const reason = async (options, runOptions) =>
    (await new ee.EarlyExitController(undefined, 3, { policy: artifact, ...options }).runWithEarlyExit(layers, runOptions)).shadow?.reason;
  assert.equal(await reason({ now: Date.parse('2026-01-30T00:00:00Z') }), undefined);
  const expired = 'the artifact expired at 2026-01-31T00:00:00.000Z (now 2026-02-02T00:00:00.000Z): running in shadow mode (calibrate again)';
  assert.equal(await reason({ now: new Date('2026-02-02T00:00:00Z') }), expired);
  assert.equal(await reason({ now: '2026-01-30T00:00:00Z' }, { now: '2026-02-02T00:00:00Z' }), expired, "a run's own now replaces the controller's");
  // Without `now` the host clock decides: the expiry is checked against it (the clock is past 2026-01-31).
  if (Date.now() > Date.parse('2026-01-31T00:00:00Z')) assert.match(await reason({}), /^the artifact expired at 2026-01-31T00:00:00.000Z \(now /);
  // The step API: kept in the snapshot.
  const run = ee.PyramidRun.start(undefined, 3, NAMES.map((name, i) => ({ name, costMs: COSTS[i] })), { policy: artifact, now: '2026-02-02T00:00:00Z' });
  for (let step = run.next(); step.action === 'run'; step = run.next()) run.submit(step.layer, result(false, 1));
  const restored = ee.PyramidRun.fromJSON(run.toJSON());
  assert.equal(restored.result().shadow.reason, expired);
  // `now` is read with an artifact only; a bad one is a typed error naming it.
  assert.throws(() => new ee.EarlyExitController(undefined, 3, { policy: 'fail_fast', now: 1 }),
    (e) => e instanceof RangeError && e.code === 'invalid_config' && e.field === 'now');
  assert.throws(() => ee.PyramidRun.start(undefined, 3, NAMES, { policy: artifact, now: true }),
    (e) => e instanceof TypeError && e.code === 'invalid_config' && e.field === 'now');
});

test('a run label goes into the receipt, verifyReceipts and drift slice by it', async () => {
  let log = '';
  for (const [fails, label] of [[[false, false, false], 'main'], [[false, false, true], 'main'], [[false, false, false], 'release/2'], [[false, false, false], undefined]]) {
    const r = await shadowRun(fails, { label });
    assert.equal(r.shadow.receipts[0].runLabel, label);
    log += ee.appendReceipts(log, r.shadow.receipts);
  }
  const check = ee.verifyReceipts(log);
  assert.deepEqual(check.labelSlices.map((s) => [s.runLabel, s.receipts, s.rates.falsePass.count, s.rates.falsePass.of]),
    [['main', 2, 1, 2], ['release/2', 1, 0, 1]]);
  assert.equal(check.labelSlices[0].rates.falsePass.wilson.length, 2);
  assert.throws(() => new ee.EarlyExitController(undefined, 3, { policy: 'fail_fast', label: '' }),
    (e) => e instanceof RangeError && e.code === 'invalid_config' && e.field === 'label');
  assert.throws(() => ee.PyramidRun.start(undefined, 3, NAMES, { policy: 'fail_fast', label: 7 }),
    (e) => e instanceof TypeError && e.code === 'invalid_config' && e.field === 'label');
  // Calibration keeps one slice per label; drift names a label it never saw.
  const labelled = (runs, label) => runs.map((r, i) => ({ ...r, label: label(i) }));
  const cal = ee.calibratePyramidPolicy(labelled(lrtsLike(600, 5, 0), (i) => (i % 2 ? 'main' : 'release')), 0.2, 0.1, { createdAt: '2026-01-01T00:00:00Z' });
  assert.deepEqual(cal.body.slices.filter((s) => 'label' in s).map((s) => [s.label, s.runs]), [['release', 300], ['main', 300]]);
  const drift = ee.checkPyramidDrift(cal, labelled(lrtsLike(50, 5, 600), () => 'feature/x'), '2026-01-02T00:00:00Z');
  assert.deepEqual([drift.status, drift.reasons[0].kind, drift.reasons[0].label], ['drifted', 'label', 'feature/x']);
  assert.throws(() => ee.calibratePyramidPolicy(labelled(lrtsLike(10, 5, 0), () => 'a\tb'), 0.2, 0.1),
    (e) => e instanceof RangeError && e.code === 'invalid_replay' && e.field === 'runs[0].label');
});

test('label-slice vectors: calibration slices, drift label reasons, verifyReceipts labelSlices', () => {
  // tests/vectors/policy/pyramid_slices.json (tests/vectors/gen_pyramid_slices.mjs).
  const doc = JSON.parse(readFileSync(path.join(ROOT, 'tests', 'vectors', 'policy', 'pyramid_slices.json'), 'utf8'));
  const calibrate = (runs, o) => ee.calibratePyramidPolicy(runs, o.risk, o.delta, { createdAt: o.createdAt });
  for (const v of doc.slices) {
    assert.deepEqual(calibrate(v.runs, v.options).body.slices.filter((s) => 'label' in s), v.labelSlices, v.name);
  }
  const artifact = calibrate(doc.drift.calibration, doc.drift.options);
  for (const v of doc.drift.cases) {
    const reasons = ee.checkPyramidDrift(artifact, v.recent, doc.drift.now).reasons
      .filter((r) => 'label' in r).map(({ kind, label, message }) => ({ kind, label, message }));
    assert.deepEqual(reasons, v.labelReasons, v.name);
  }
  for (const v of doc.receipts) {
    const check = ee.verifyReceipts(v.log);
    assert.equal(check.valid, true, v.name);
    assert.deepEqual(check.labelSlices, v.labelSlices, v.name);
  }
});
