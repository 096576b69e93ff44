// What the cheap paths of the JS layer must not change (the figures are in `make bench`,
// workloads pyramid-new and loop-ts; work is counted here, never timed):
// - EarlyExitController construction: a controller per CI run over a preset pays no native
//   object and no validation each time (bindings/js/api/pyramid.js, `exitSetup`), and the cache that avoids
//   it still honours a config object changed between constructions, as the seed does (it
//   reads its config at each use);
// - recordIterationResult reads a result's keys with for-in: only when that sees exactly the
//   own keys (what the core sees through the wire encoder).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import ee, { IMPL, HAVE_REFERENCE, NO_REFERENCE, REFERENCE_DIR, ROOT } from './impl.mjs';
import { compare } from './support.mjs';

const adr = HAVE_REFERENCE ? await import(pathToFileURL(path.join(REFERENCE_DIR, 'early-exit-adr.mjs')).href) : null;
const same = (expected, actual, where) => assert.deepEqual(compare(expected, actual), [], where);

const layer = (name, passRate, coverage, flakyRatio, costMs) => ({ name, costMs, run: () => ({ passRate, coverage, flakyRatio }) });
// Exits at layer 0 with the defaults (lambda 95), runs on when minLambdaForExit is above 95.
const layers = [layer('unit', 0.99, 0.95, 0, 100), layer('integration', 0.99, 0.96, 0.01, 1000), layer('e2e', 0.99, 0.97, 0, 5000)];

// A second copy of the JS layer over the package's own native module (as the fast-path
// tests make one), whose native calls are counted.
function countedApi() {
  const require = createRequire(import.meta.url);
  const dir = path.join(ROOT, 'bindings', IMPL === 'wasm' ? 'wasm' : 'node');
  const native = require(path.join(dir, IMPL === 'wasm' ? 'pkg/nodejs/earlyexit_wasm.js' : 'native.cjs'));
  const counts = { exec: 0, objects: 0 };
  const counted = Object.assign({}, native, {
    exec(op, args) {
      counts.exec++;
      return native.exec(op, args);
    },
    NativeEngine: function NativeEngine() {
      counts.objects++;
      return new native.NativeEngine();
    },
  });
  const { api, ready } = require(path.join(dir, 'api.cjs'))(counted);
  ready();
  counts.exec = 0;
  return { api, counts };
}

describe(`EarlyExitController construction (${IMPL})`, () => {
  test('a controller per run over one config object: validated once, no native object', async () => {
    const { api, counts } = countedApi();
    let exits = 0;
    for (let i = 0; i < 50; i++) {
      const result = await new api.EarlyExitController(api.DEFAULT_EXIT_CONFIG, 4).runWithEarlyExit(layers);
      if (result.exitedEarly) exits++;
    }
    assert.equal(exits, 50);
    assert.deepEqual(counts, { exec: 1, objects: 0 });
    // The default config (undefined) and another object with the same values: once each.
    for (let i = 0; i < 10; i++) new api.EarlyExitController(undefined, 4);
    const copy = { ...api.DEFAULT_EXIT_CONFIG };
    for (let i = 0; i < 10; i++) new api.EarlyExitController(copy, 4);
    assert.deepEqual(counts, { exec: 3, objects: 0 });
    // earlyExit and speculator are made on first use only.
    const controller = new api.EarlyExitController(copy, 4);
    assert.equal(counts.objects, 0);
    assert.equal(controller.earlyExit.totalLayers, 4);
    assert.equal(controller.earlyExit, controller.earlyExit);
    assert.equal(controller.speculator.config.verificationLayers, 2);
    assert.equal(counts.objects, 2);
    controller.free();
  });

  test('a config object changed between constructions is read again, as the seed reads it', { skip: HAVE_REFERENCE ? false : NO_REFERENCE }, async () => {
    const config = { ...adr.DEFAULT_EXIT_CONFIG };
    const run = async () => {
      const expected = await new adr.EarlyExitController(config, 4).runWithEarlyExit(layers);
      const got = await new ee.EarlyExitController(config, 4).runWithEarlyExit(layers);
      same(expected, got, JSON.stringify(config));
      return got;
    };
    assert.equal((await run()).exitedEarly, true);
    config.minLambdaForExit = 99; // no layer reaches it now
    assert.equal((await run()).exitedEarly, false);
    config.minLambdaForExit = 80;
    assert.equal((await run()).exitedEarly, true);
    config.minConfidence = 2;
    assert.throws(() => new ee.EarlyExitController(config, 4), (e) => e instanceof RangeError && e.code === 'invalid_config' && e.field === 'minConfidence');
    delete config.minConfidence; // the default again
    assert.equal((await run()).exitedEarly, true);
    config.minLambda = 1;
    assert.throws(() => new ee.EarlyExitController(config, 4), (e) => e instanceof TypeError && e.code === 'unknown_option' && e.field === 'minLambda');
    delete config.minLambda;
    config.verificationLayers = 0; // the same keys, one value changed
    assert.equal((await run()).speculations.filter((s) => s.verified).length, 0);
    // The same object with another totalLayers is checked again.
    assert.equal(new ee.EarlyExitController(config, 2).earlyExit.totalLayers, 2);
    assert.throws(() => new ee.EarlyExitController(config, 0), (e) => e instanceof RangeError && e.field === 'totalLayers');
  });

  test('the package\'s own preset objects may be changed, and are honoured', { skip: HAVE_REFERENCE ? false : NO_REFERENCE }, async () => {
    const preset = ee.DEFAULT_EXIT_CONFIG;
    const saved = { ...preset };
    try {
      assert.equal((await new ee.EarlyExitController(preset, 4).runWithEarlyExit(layers)).exitedEarly, true);
      preset.minLambdaForExit = 99;
      const expected = await new adr.EarlyExitController({ ...adr.DEFAULT_EXIT_CONFIG, minLambdaForExit: 99 }, 4).runWithEarlyExit(layers);
      same(expected, await new ee.EarlyExitController(preset, 4).runWithEarlyExit(layers), 'minLambdaForExit 99');
      preset.adaptiveExitLayer = 'yes';
      assert.throws(() => new ee.EarlyExitController(preset, 4), (e) => e instanceof TypeError && e.field === 'adaptiveExitLayer');
    } finally {
      for (const key of Object.keys(preset)) delete preset[key];
      Object.assign(preset, saved);
    }
    assert.equal((await new ee.EarlyExitController(preset, 4).runWithEarlyExit(layers)).exitedEarly, true);
  });

  test('a getter is read once per construction; what it answered is what is validated', () => {
    let reads = 0;
    const values = [80, 150, 90];
    const config = {
      get minLambdaForExit() {
        return values[reads++];
      },
    };
    assert.equal(new ee.EarlyExitController(config, 4).earlyExit.config.minLambdaForExit, 80);
    assert.throws(() => new ee.EarlyExitController(config, 4), (e) => e instanceof RangeError && e.field === 'minLambdaForExit');
    assert.equal(new ee.EarlyExitController(config, 4).earlyExit.config.minLambdaForExit, 90);
    assert.equal(reads, 3);
  });

  test('a freed controller: its earlyExit and speculator cannot be used', () => {
    const made = new ee.EarlyExitController(undefined, 3);
    made.free();
    assert.throws(() => made.earlyExit.shouldExit({ lambda: 1, lambdaPrev: 1, boundaryConcentration: 0 }, 0), /was freed/);
    assert.throws(() => made.speculator, /was freed/);
    const used = new ee.EarlyExitController(undefined, 3);
    const exit = used.earlyExit;
    used.free();
    assert.throws(() => exit.shouldExit({ lambda: 1, lambdaPrev: 1, boundaryConcentration: 0 }, 0), /was freed/);
    used.free(); // twice is harmless
  });
});

describe(`recordIterationResult: which keys are the result's (${IMPL})`, () => {
  const TS = '2026-01-01T00:00:00.000Z';
  const fields = { quality_score: 60, confidence: 0.5, verification_status: 'failed', quality_delta: 1 };

  test('an inherited timestamp is not the result\'s: the clock\'s time is recorded', () => {
    const es = new ee.EarlyStopping();
    const before = Date.now();
    es.recordIterationResult(1, Object.assign(Object.create({ timestamp: TS }), fields));
    const noProto = Object.assign(Object.create(null), fields, { timestamp: TS });
    es.recordIterationResult(2, noProto);
    const [inherited, own] = es.getIterationHistory();
    assert.notEqual(inherited.timestamp, TS);
    assert.ok(Math.abs(Date.parse(inherited.timestamp) - before) < 5000);
    assert.equal(own.timestamp, TS);
  });

  test('an enumerable key added to Object.prototype is not the result\'s either', () => {
    const es = new ee.EarlyStopping();
    Object.prototype.timestamp = TS;
    try {
      es.recordIterationResult(1, { ...fields });
      es.recordIterationResult(2, { ...fields, timestamp: '2026-01-02T00:00:00Z' });
    } finally {
      delete Object.prototype.timestamp;
    }
    const [first, second] = es.getIterationHistory();
    assert.notEqual(first.timestamp, TS);
    assert.equal(second.timestamp, '2026-01-02T00:00:00Z');
    assert.equal(es.shouldStop().trigger, 'none');
  });
});
