// Models that merge (OutcomeModel, document version 2), on both builds: the merge laws and
// "the merge of the parts is the model learned from the whole" as fast-check properties, the
// vectors of the independent model, version 1 models converted, the class wherever a model
// goes, and bad input. `make fuzz` raises FC_RUNS (cases per property) and varies FC_SEED.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import ee, { ROOT } from './impl.mjs';

const RUNS = Number(process.env.FC_RUNS ?? 100);
const SEED = Number(process.env.FC_SEED ?? 20261202);
const settings = { numRuns: RUNS, seed: SEED, endOnFailure: true };
const { OutcomeModel } = ee;

const NAMES = ['lint', 'unit', 'e2e', 'perf'];
const IDS = ['pr-1#7', 'pr-2#7', 'main#7'];

// The layers of build (seq, id): a function of its key, so builds drawn twice agree.
function record(seq, id) {
  const h = seq * 31 + id.length * 7 + id.charCodeAt(0);
  const layers = [];
  NAMES.forEach((name, i) => {
    if ((h >> i) % 3 === 0) return;
    const layer = { name, failed: (h + i) % 5 === 0 };
    if ((h + i) % 4) layer.durationMs = ((h * (i + 3)) % 997 + 1) / 8;
    layers.push(layer);
  });
  return layers.length ? layers : [{ name: 'lint', failed: false }];
}

const learned = (window, keys) => keys.reduce((m, [seq, id]) => m.learn(record(seq, id), { id, seq }), new OutcomeModel(null, { window }));
const key = fc.tuple(fc.integer({ min: 0, max: 40 }), fc.constantFrom(...IDS));
const windows = fc.constantFrom(3, 8, 25, 1000);
const model = fc.tuple(windows, fc.array(key, { maxLength: 25 })).map(([w, keys]) => learned(w, keys));
const same = (a, b) => assert.deepEqual(a.toJSON(), b.toJSON());

test('merge is commutative, associative and idempotent', () => {
  fc.assert(fc.property(model, model, model, (a, b, c) => {
    same(a.merge(b), b.merge(a));
    same(a.merge(b).merge(c), a.merge(b.merge(c)));
    same(a.merge(a), a);
    same(a.merge(b).merge(a), a.merge(b));
  }), settings);
});

test('the merge of the parts is the model learned from the whole', () => {
  const parts = fc.tuple(windows, fc.uniqueArray(key, { maxLength: 40, selector: ([s, i]) => `${s} ${i}` }), fc.integer({ min: 1, max: 5 }))
    .chain(([window, keys, count]) => fc.tuple(
      fc.constant(window),
      fc.constant(keys),
      fc.array(fc.integer({ min: 0, max: count - 1 }), { minLength: keys.length, maxLength: keys.length }),
      fc.array(fc.boolean(), { minLength: keys.length, maxLength: keys.length }),
      fc.constant(count),
    ));
  fc.assert(fc.property(parts, ([window, keys, owners, twice, count]) => {
    const whole = learned(window, keys);
    const buckets = Array.from({ length: count }, () => []);
    keys.forEach((k, i) => {
      buckets[owners[i]].push(k);
      if (twice[i]) buckets[(owners[i] + 1) % count].push(k); // a second runner saw it: it counts once
    });
    const merged = buckets.map((b) => learned(window, b.reverse())).reduce((a, b) => a.merge(b));
    same(merged, whole);
    assert.deepEqual(merged.statistics(), whole.statistics());
  }), settings);
});

test('one key is one build; version 1 models convert with a note', () => {
  const a = learned(10, [[1, 'x'], [2, 'x']]);
  const other = new OutcomeModel(null, { window: 10 }).learn([{ name: 'lint', failed: true }], { id: 'x', seq: 2 });
  for (const [l, r] of [[a, other], [other, a]]) {
    assert.throws(() => l.merge(r), (e) => e instanceof RangeError && e.code === 'invalid_snapshot' && e.field === 'builds' && /build 'x' \(seq 2\)/.test(e.message));
  }
  same(a.learn(record(2, 'x'), { id: 'x', seq: 2 }), a);
  const v1 = ee.pyramidPolicyUpdate(null, [{ name: 'unit', failed: true, durationMs: 9 }]);
  const converted = new OutcomeModel(v1);
  assert.match(converted.note, /converted from a version 1 model/);
  assert.deepEqual(converted.toJSON().base, v1);
  const after = converted.learn([{ name: 'unit', failed: false }], { id: 'b', seq: 1 });
  assert.deepEqual(after.statistics(), ee.pyramidPolicyUpdate(v1, [{ name: 'unit', failed: false }]));
  assert.deepEqual(ee.pyramidPolicyUpdate(v1, [{ name: 'unit', failed: false }], { build: { id: 'b', seq: 1 } }), after.toJSON());
  const otherBase = new OutcomeModel(ee.pyramidPolicyUpdate(v1, [{ name: 'e2e', failed: false }]));
  assert.throws(() => after.merge(otherBase), (e) => e.field === 'base');
});

test('the class goes wherever a model does', async () => {
  const m = learned(1000, Array.from({ length: 300 }, (_, seq) => [seq, 'main#7']));
  assert.deepEqual([m.size, m.window, m.note], [300, 1000, null]);
  same(OutcomeModel.fromJSON(JSON.stringify(m.toJSON())), m);
  same(new OutcomeModel(m), m);
  const runs = [{ layers: NAMES.map((name) => ({ name, durationMs: 1, failed: false })) }];
  assert.deepEqual(ee.replayPyramids(runs, { policy: 'risk_bounded', model: m }), ee.replayPyramids(runs, { policy: 'risk_bounded', model: m.toJSON() }));
  const layers = NAMES.map((name) => ({ name, run: () => ({ passRate: 1, coverage: 1, flakyRatio: 0 }) }));
  const byClass = await new ee.EarlyExitController(null, 4, { policy: 'risk_bounded', model: m }).runWithEarlyExit(layers);
  const byDoc = await new ee.EarlyExitController(null, 4).runWithEarlyExit(layers, { policy: 'risk_bounded', model: m.toJSON() });
  assert.deepEqual(byClass, byDoc);
  const stats = Object.fromEntries(m.statistics().layers.map((l) => [l.name, l.trials]));
  assert.deepEqual(Object.fromEntries(byClass.policy.counts.map((c) => [c.name, c.trials])), stats);
  const decided = ee.pyramidPolicyDecide(m, NAMES.map((name) => ({ name })), []);
  assert.deepEqual(decided, ee.pyramidPolicyDecide(m.toJSON(), NAMES.map((name) => ({ name })), []));
});

test('bad input is a typed error naming the field', () => {
  assert.throws(() => new OutcomeModel(null, { window: 0 }), (e) => e instanceof RangeError && e.code === 'invalid_config' && e.field === 'window');
  assert.throws(() => new OutcomeModel(null, { windw: 3 }), (e) => e.code === 'unknown_option' && e.field === 'windw');
  const m = learned(5, [[1, 'a']]);
  assert.throws(() => new OutcomeModel(m, { window: 6 }), (e) => e.field === 'window');
  assert.throws(() => m.learn([{ name: 'a', failed: false }, { name: 'a', failed: true }], { id: 'b', seq: 2 }), (e) => e.field === 'ran[1].name');
  assert.throws(() => m.learn([], { id: 'b', seq: -1 }), (e) => e.field === 'build.seq');
  assert.throws(() => m.learn([], { id: 3, seq: 1 }), (e) => e instanceof TypeError && e.field === 'build.id');
  assert.throws(() => ee.pyramidPolicyUpdate(m, [{ name: 'a', failed: false }]), (e) => e.field === 'build');
  assert.throws(() => new OutcomeModel({ ...m.toJSON(), version: 3 }), (e) => e.field === 'model.version' && /reads versions 1 and 2/.test(e.message));
  assert.throws(() => new OutcomeModel({ ...m.toJSON(), builds: [...m.toJSON().builds, ...m.toJSON().builds] }), (e) => e.field === 'model.builds[1]');
});

test('model vectors (independent JS model)', () => {
  const doc = JSON.parse(readFileSync(path.join(ROOT, 'tests', 'vectors', 'policy', 'pyramid_policy.json'), 'utf8'));
  assert.ok(doc.models.length >= 4);
  for (const c of doc.models) {
    const merged = c.runners
      .map((runner) => runner.reduce((m, b) => m.learn(b.ran, { id: b.id, seq: b.seq }), new OutcomeModel(c.start, { window: c.window })))
      .reduce((a, b) => a.merge(b));
    assert.deepEqual(merged.toJSON(), c.expected.merged, c.name);
    const got = merged.statistics(c.config);
    const want = c.expected.statistics;
    assert.deepEqual(got.layers.map((l) => l.name), want.layers.map((l) => l.name), c.name);
    got.layers.forEach((g, i) => {
      for (const k of ['trials', 'failures', 'costMs', 'costWeight']) {
        const w = want.layers[i][k];
        assert.ok(w === null ? g[k] === null : Math.abs(g[k] - w) <= 1e-12 * Math.max(1, Math.abs(w)), `${c.name} ${k}: ${g[k]} vs ${w}`);
      }
    });
  }
});
