// The size limits (docs/limits.md) at their boundaries, native and wasm: the limit accepted,
// one more refused with a typed error (code and field). The counts a caller supplies
// (speculate, layer lists), JSON documents (snapshot text), JSONL lines, and the one replay
// reader and encoder. The values a call is given are bounded by the JS layer's encoder
// before they cross (its own suite); here the documents and counts the core bounds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import ee, { IMPL } from './impl.mjs';

const { LIMITS } = ee;

const over = (code, field, kind = RangeError, words = /over the limits/) => (e) => {
  assert.ok(e instanceof kind, `${e?.constructor?.name}: ${e?.message}`);
  assert.deepEqual([e.code, e.field], [code, field], e.message);
  assert.match(e.message, words);
  return true;
};

test(`LIMITS come from the core (${IMPL})`, () => {
  assert.deepEqual({ ...LIMITS }, {
    valueDepth: 200, documentDepth: 256, values: 16_777_216, objectKeys: 1_048_576,
    stringBytes: 16_777_216, documentBytes: 268_435_456, layers: 10_000,
  });
  assert.ok(Object.isFrozen(LIMITS));
});

// Before: native aborted the process on new Array(2 ** 32 - 1) (exit 134) and was killed
// for memory on new Array(1e8); wasm trapped.
test('speculate counts are bounded before anything is allocated', async () => {
  const executor = new ee.SpeculativeExecutor();
  const decision = { confidence: 0.9 };
  assert.equal((await executor.speculate(decision, new Array(LIMITS.layers))).length, LIMITS.layers);
  for (const skipped of [new Array(LIMITS.layers + 1), new Array(1e8), new Array(2 ** 32 - 1)]) {
    await assert.rejects(executor.speculate(decision, skipped), over('invalid_config', 'skippedLayers', RangeError, /between 0 and 10000/));
  }
  assert.equal((await executor.speculate(decision, [1, 2])).length, 2); // the instance still answers
  // verify reads one speculation per skipped layer: at most as many.
  const speculations = await executor.speculate(decision, new Array(LIMITS.layers));
  await assert.rejects(executor.verify([...speculations, speculations[0]], []), over('invalid_config', 'speculations', RangeError, /more than 10000 layers/));
  executor.free();
});

test('layer lists are bounded', () => {
  const layers = (n) => Array.from({ length: n }, (_, i) => ({ name: `l${i}` }));
  const run = ee.PyramidRun.start(undefined, 4, layers(LIMITS.layers));
  assert.deepEqual(run.next(), { action: 'run', layer: 0 });
  run.free();
  assert.throws(() => ee.PyramidRun.start(undefined, 4, layers(LIMITS.layers + 1)), over('invalid_config', 'layers', RangeError, /more than 10000 layers/));
});

// --- documents -------------------------------------------------------------------------

const padded = (bytes) => {
  const text = JSON.stringify(new ee.EarlyStopping().toJSON());
  return text + ' '.repeat(bytes - text.length);
};

test('document bytes at the boundary (snapshot text)', () => {
  assert.equal(ee.EarlyStopping.fromJSON(padded(LIMITS.documentBytes)).getIterationHistory().length, 0);
  assert.throws(() => ee.EarlyStopping.fromJSON(padded(LIMITS.documentBytes + 1)), over('invalid_snapshot', 'snapshot'));
});

test('document depth at the boundary (a run snapshot around a stored value)', () => {
  const run = ee.PyramidRun.start(undefined, 2, [{ name: 'a' }, { name: 'b' }]);
  run.submit(0, { passRate: 0.5, coverage: 1, flakyRatio: 0, deep: [] });
  const text = JSON.stringify(run.toJSON());
  run.free();
  const levels = LIMITS.documentDepth - 4; // root, submitted, its entry, the result
  const deep = text.replace('"deep":[]', `"deep":${'['.repeat(levels)}${']'.repeat(levels)}`);
  const restored = ee.PyramidRun.fromJSON(deep);
  assert.equal(JSON.stringify(restored.toJSON()), deep);
  restored.free();
  const deeper = text.replace('"deep":[]', `"deep":${'['.repeat(levels + 1)}${']'.repeat(levels + 1)}`);
  assert.throws(() => ee.PyramidRun.fromJSON(deeper), over('invalid_snapshot', 'snapshot', RangeError, /nested deeper than 256 levels/));
});

test('values at the boundary (read, then refused for what it is; one more is over)', () => {
  const array = (values) => '[' + '0,'.repeat(values - 2) + '0]';
  assert.throws(() => ee.EarlyStopping.fromJSON(array(LIMITS.values)), (e) => e.code === 'invalid_snapshot' && !/over the limits/.test(e.message));
  assert.throws(() => ee.EarlyStopping.fromJSON(array(LIMITS.values + 1)), over('invalid_snapshot', 'snapshot', RangeError, /more than 16777216 values/));
});

test('keys per object at the boundary', () => {
  const object = (keys) => '{' + Array.from({ length: keys }, (_, i) => `"k${i}":0`).join(',') + '}';
  assert.throws(() => ee.EarlyStopping.fromJSON(object(LIMITS.objectKeys)), (e) => e.code === 'invalid_snapshot' && e.field === 'k0');
  assert.throws(() => ee.EarlyStopping.fromJSON(object(LIMITS.objectKeys + 1)), over('invalid_snapshot', 'snapshot', RangeError, /more than 1048576 keys/));
});

test('string bytes at the boundary (inside a document)', () => {
  const snapshot = (bytes) => JSON.stringify({ ...new ee.EarlyStopping().toJSON(), stoppingReason: 'x'.repeat(bytes) });
  assert.equal(ee.EarlyStopping.fromJSON(snapshot(LIMITS.stringBytes)).getStoppingReason().length, LIMITS.stringBytes);
  assert.throws(() => ee.EarlyStopping.fromJSON(snapshot(LIMITS.stringBytes + 1)), over('invalid_snapshot', 'snapshot', RangeError, /more than 16777216 bytes/));
});

// --- replay ----------------------------------------------------------------------------

const loopLine = JSON.stringify({ id: 'r', iterations: [{ quality_score: 50, confidence: 0.5, verification_status: 'failed' }] });
const pyramidLine = JSON.stringify({ id: 'r', layers: [{ name: 'unit', durationMs: 5, failed: false }] });

test('a JSONL line over a limit is refused with its line (the stream is not: core/tests/limits.rs)', () => {
  const long = JSON.stringify({ id: 'x'.repeat(LIMITS.stringBytes + 1), iterations: [] });
  assert.throws(() => ee.replayLoops(`${loopLine}\n${long}\n`), over('invalid_replay', 'runs[1]', RangeError, /^runs\[1\] \(line 2\): over the limits/));
});

// Before: replayPyramids refused the byte-order mark replayLoops skipped and called a JSON
// syntax error a TypeError where replayLoops called it a RangeError.
test('loop and pyramid replay read JSONL text alike', () => {
  for (const [replay, line] of [[ee.replayLoops, loopLine], [ee.replayPyramids, pyramidLine]]) {
    assert.deepEqual(replay(`\ufeff${line}\n\n${line}\r\n`), replay(`${line}\n${line}\n`));
    assert.throws(() => replay(`${line}\n\n{"id": 1,`), over('invalid_replay', 'runs[1]', RangeError, /^runs\[1\] \(line 3\): invalid JSON/));
  }
});

// Before: replayLoops encoded an array of runs with JSON.stringify unless a run held NaN,
// then with the general encoder: a Date id alone became its ISO string (accepted), beside
// a run holding NaN an empty object (refused); a cyclic run threw an untyped TypeError.
test('replayLoops reads every array through the one encoder: one verdict', () => {
  const iterations = [{ quality_score: 50, confidence: 0.5, verification_status: 'failed' }];
  const dated = { id: new Date(0), iterations };
  const withNaN = { id: 'b', iterations: [{ ...iterations[0], quality_score: NaN }] };
  assert.throws(() => ee.replayLoops([dated]), over('invalid_replay', 'runs[0].id', TypeError, /must be a string/));
  assert.throws(() => ee.replayLoops([dated, withNaN]), over('invalid_replay', 'runs[0].id', TypeError, /must be a string/));
  const cyclic = { id: 'c', iterations };
  cyclic.self = cyclic;
  assert.throws(() => ee.replayLoops([cyclic]), (e) => e.code === 'invalid_replay' && e.field.startsWith('runs[0]'));
  assert.equal(ee.replayLoops([{ id: 'ok', iterations }]).summary.runs, 1);
});
