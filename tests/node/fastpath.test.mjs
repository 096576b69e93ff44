// The numeric fast paths of the JS layer (bindings/js/api/ over bindings/js/fast/src/fast.rs and
// fast_pyramid.rs): each engine's state lives in JS and only the most recently used one sits
// in the shared scratch buffer, decisions made by a fold are reused, timestamps cross as
// bytes, and runs keep their progress between layers. These tests drive exactly the
// situations that design could get wrong, against the seed where it has an answer.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import ee, { IMPL, HAVE_REFERENCE, NO_REFERENCE, REFERENCE_DIR, ROOT } from './impl.mjs';
import { compare } from './support.mjs';

const seed = HAVE_REFERENCE ? await import(pathToFileURL(path.join(REFERENCE_DIR, 'early-stopping.mjs')).href) : null;
const adr = HAVE_REFERENCE ? await import(pathToFileURL(path.join(REFERENCE_DIR, 'early-exit-adr.mjs')).href) : null;
const skip = HAVE_REFERENCE ? false : NO_REFERENCE;

const TS = '2026-01-01T00:00:00.000Z';
const result = (quality_score, confidence, verification_status, quality_delta) => ({ quality_score, confidence, verification_status, quality_delta, timestamp: TS });
const same = (expected, actual, where) => assert.deepEqual(compare(expected, actual), [], where);

describe(`loop fast path (${IMPL})`, { skip }, () => {
  test('interleaved engines keep their own state (the scratch buffer holds one at a time)', () => {
    const ours = [new ee.EarlyStopping(), new ee.EarlyStopping({ plateauConsecutiveCount: 2 }), new ee.EarlyStopping()];
    const theirs = [new seed.EarlyStopping(), new seed.EarlyStopping({ plateauConsecutiveCount: 2 }), new seed.EarlyStopping()];
    for (let i = 1; i <= 12; i++) {
      for (let e = 0; e < 3; e++) {
        const r = result(40 + ((i * (e + 3)) % 7) * 5, 0.5 + (i % 5) * 0.12, i % 3 ? 'failed' : 'passed', (i * (e + 1)) % 3);
        ours[e].recordIterationResult(i, r);
        theirs[e].recordIterationResult(i, r);
      }
      // Decide in another order than the records, so each decision follows another engine's fold.
      for (const e of [2, 0, 1]) same(theirs[e].shouldStop(i), ours[e].shouldStop(i), `engine ${e} at ${i}`);
    }
    for (let e = 0; e < 3; e++) same(theirs[e].generateSummary(), ours[e].generateSummary(), `summary ${e}`);
  });

  test('two copies of the JS layer over one native module (as test runners load packages) share the buffer', () => {
    const require = createRequire(import.meta.url);
    const dir = path.join(ROOT, 'bindings', IMPL === 'wasm' ? 'wasm' : 'node');
    const native = require(path.join(dir, IMPL === 'wasm' ? 'pkg/nodejs/earlyexit_wasm.js' : 'native.cjs'));
    const { api: second, ready } = require(path.join(dir, 'api.cjs'))(native);
    ready();
    const ours = [new ee.EarlyStopping(), new second.EarlyStopping(), new ee.EarlyStopping({ plateauConsecutiveCount: 2 })];
    const theirs = [new seed.EarlyStopping(), new seed.EarlyStopping(), new seed.EarlyStopping({ plateauConsecutiveCount: 2 })];
    for (let i = 1; i <= 8; i++) {
      for (let e = 0; e < 3; e++) {
        const r = result(60 + ((i * (e + 2)) % 5) * 4, 0.6 + (i % 4) * 0.1, i % 4 ? 'failed' : 'passed', (i + e) % 2);
        ours[e].recordIterationResult(i, r);
        theirs[e].recordIterationResult(i, r);
      }
      for (const e of [1, 2, 0]) same(theirs[e].shouldStop(), ours[e].shouldStop(), `engine ${e} at ${i}`);
    }
  });

  test('a source that uses other engines while it is asked', () => {
    const other = new ee.EarlyStopping();
    let asked = 0;
    const source = {
      detectDiminishingReturns() {
        asked++;
        other.recordIterationResult(asked, result(90, 0.99, 'passed', 3)); // moves the scratch buffer
        other.shouldStop();
        return { detected: asked % 2 === 0, iteration: asked, reason: `asked ${asked}` };
      },
    };
    let seedAsked = 0;
    const seedSource = { detectDiminishingReturns: () => ({ detected: ++seedAsked % 2 === 0, iteration: seedAsked, reason: `asked ${seedAsked}` }) };
    const ours = new ee.EarlyStopping(undefined, source);
    const theirs = new seed.EarlyStopping(undefined, seedSource);
    for (let i = 1; i <= 6; i++) {
      ours.recordIterationResult(i, result(30 + i * 10, 0.5, 'failed', 10));
      theirs.recordIterationResult(i, result(30 + i * 10, 0.5, 'failed', 10));
      same(theirs.shouldStop(), ours.shouldStop(), `decision ${i}`);
      same(theirs.shouldStop(), ours.shouldStop(), `repeated decision ${i}`); // asked again, as the seed does
    }
    same(theirs.generateSummary(), ours.generateSummary(), 'summary');
    assert.equal(asked, seedAsked);
  });

  test('a window longer than the scratch buffer holds, and configure() widening it', () => {
    const config = { plateauConsecutiveCount: 1200, plateauImprovementThreshold: 0.5 };
    const ours = new ee.EarlyStopping(config);
    const theirs = new seed.EarlyStopping(config);
    for (let i = 1; i <= 1500; i++) {
      const r = result(50 + (i % 2) * 0.01, 0.5, 'failed', 0.01);
      ours.recordIterationResult(i, r);
      theirs.recordIterationResult(i, r);
      if (i % 250 === 0 || i === 1199 || i === 1200) same(theirs.shouldStop(), ours.shouldStop(), `at ${i}`);
    }
    ours.configure({ plateauConsecutiveCount: 1400 });
    theirs.configure({ plateauConsecutiveCount: 1400 });
    same(theirs.shouldStop(), ours.shouldStop(), 'after widening');
    ours.configure({ plateauConsecutiveCount: 2 });
    theirs.configure({ plateauConsecutiveCount: 2 });
    same(theirs.shouldStop(), ours.shouldStop(), 'after narrowing');
  });

  test('timestamps: given ones cross as bytes, clock ones are formatted on read', () => {
    const es = new ee.EarlyStopping();
    const bad = ['2026-01-01T00:00:00Z\u00e9', '2026-01-01T00:00:00\u2009Z', '', 'x'.repeat(80)];
    for (const timestamp of bad) {
      assert.throws(() => es.recordIterationResult(1, { ...result(50, 0.5, 'failed', 0), timestamp }), (e) => e instanceof RangeError && e.code === 'invalid_result' && e.field === 'timestamp');
    }
    assert.deepEqual(es.getIterationHistory(), []);
    const long = '2026-01-01T00:00:00.' + '1'.repeat(70) + 'Z'; // longer than the fast path takes
    es.recordIterationResult(1, { ...result(50, 0.5, 'failed', 0), timestamp: long });
    const before = Date.now();
    es.recordIterationResult(2, { quality_score: 50, confidence: 0.5, verification_status: 'failed', quality_delta: 0 });
    const [first, second] = es.getIterationHistory();
    assert.equal(first.timestamp, long);
    assert.match(second.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(Math.abs(Date.parse(second.timestamp) - before) < 5000);
    assert.equal(es.getIterationHistory()[1].timestamp, second.timestamp);
    assert.equal(es.toJSON().history[1].timestamp, second.timestamp);
  });

  test('unusual arguments take the JSON path: same answers, same errors', () => {
    const es = new ee.EarlyStopping();
    const proto = Object.create({ quality_score: 50 }); // inherited keys are not the result's own
    Object.assign(proto, { confidence: 0.5, verification_status: 'failed', quality_delta: 0, timestamp: TS });
    assert.throws(() => es.recordIterationResult(1, proto), (e) => e instanceof TypeError && e.field === 'quality_score');
    assert.throws(() => es.recordIterationResult(1, { ...result(50, 0.5, 'failed', 0), extra: 1 }), (e) => e.code === 'unknown_option');
    assert.throws(() => es.recordIterationResult('1', result(50, 0.5, 'failed', 0)), (e) => e.code === 'invalid_iteration');
    assert.throws(() => es.recordIterationResult(1, { ...result(50, 0.5, 'failed', 0), tokens_used: -1 }), (e) => e.field === 'tokens_used');
    es.recordIterationResult(1, { ...result(50, 0.5, 'failed', 0), quality_delta: undefined, tokens_used: undefined, ...{ quality_delta: 2 } });
    assert.equal(es.getIterationHistory().length, 1);
    const typed = new ee.EarlyStopping(undefined, { detectDiminishingReturns: () => ({ detected: 'yes', reason: 'x' }) });
    typed.recordIterationResult(1, result(10, 0.1, 'failed', 1));
    assert.throws(() => typed.shouldStop(), (e) => e instanceof TypeError && e.code === 'invalid_analytics' && e.field === 'detected');
    const asked = new ee.EarlyStopping(undefined, { detectDiminishingReturns: () => ({ detected: true, iteration: 1.5, reason: 'x' }) });
    asked.recordIterationResult(1, result(10, 0.1, 'failed', 1));
    assert.throws(() => asked.shouldStop(), (e) => e instanceof RangeError && e.code === 'invalid_analytics' && e.field === 'iteration');
  });
});

describe(`runWithEarlyExit fast path (${IMPL})`, { skip }, () => {
  const layer = (name, passRate, coverage, flakyRatio, costMs, extra = {}) => ({ name, costMs, run: () => ({ passRate, coverage, flakyRatio, ...extra }) });
  const sets = [
    [layer('unit', 1, 0.95, 0, 100), layer('integration', 0.99, 0.9, 0.01, 1000), layer('e2e', 0.97, 0.8, 0.02, 5000), layer('system', 0.95, 0.7, 0.12, 20000)],
    [layer('unit', 0.7, 0.6, 0.1, 100), layer('integration', 0.75, 0.65, 0.08), layer('e2e', 0.8, 0.7, 0.05, 5000)],
    [layer('unit', 0.99, 0.9, 0, 100, { previousLambda: 50, name: 'u', durationMs: 3 }), layer('integration', 0.98, 0.92, 0.01, 1000, { note: 'x' }), layer('e2e', 0.6, 0.5, 0.3, 5000)],
    Array.from({ length: 45 }, (_, i) => layer(`l${i}`, 0.5 + (i % 5) * 0.1, 0.9, 0.01, i)), // more layers than the fast path takes
  ];

  test('results equal the reference, for sync and async runners, run one after another or interleaved', async () => {
    for (const config of [adr.DEFAULT_EXIT_CONFIG, adr.AGGRESSIVE_EXIT_CONFIG, adr.CONSERVATIVE_EXIT_CONFIG]) {
      const ours = new ee.EarlyExitController(config, 4);
      const theirs = new adr.EarlyExitController(config, 4);
      for (const layers of sets) same(await theirs.runWithEarlyExit(layers), await ours.runWithEarlyExit(layers), `sync ${layers.length}`);
      const delayed = (layers) => layers.map((l, i) => ({ ...l, run: () => new Promise((resolve) => setTimeout(() => resolve(l.run()), (i * 7) % 5)) }));
      const expected = [];
      for (const layers of sets) expected.push(await new adr.EarlyExitController(config, 4).runWithEarlyExit(layers));
      const got = await Promise.all(sets.map((layers) => ours.runWithEarlyExit(delayed(layers))));
      got.forEach((g, i) => same(expected[i], g, `interleaved ${i}`));
    }
  });

  test('a bad layer result is the core\'s typed error, with its path', async () => {
    const controller = new ee.EarlyExitController(undefined, 3);
    const bad = [layer('a', 1, 1, 0), layer('b', 1, 1, 0)];
    bad[1].run = () => ({ passRate: 1.5, coverage: 1, flakyRatio: 0 });
    await assert.rejects(controller.runWithEarlyExit(bad), (e) => e instanceof RangeError && e.field === 'layers[1].passRate');
    bad[1].run = () => ({ passRate: 1, coverage: 1, flakyRatio: 0, durationMs: -1 });
    await assert.rejects(controller.runWithEarlyExit(bad), (e) => e.field === 'layers[1].durationMs');
    await assert.rejects(controller.runWithEarlyExit([{ name: 'a', costMs: -1, run: () => ({}) }]), (e) => e instanceof RangeError);
  });
});

// Main's opt-in options (plateauMinQuality, noImprovementPatience) and presets on the fast
// path: the decision comes from the slots, so each option must cross in the config slots and
// its counter in the state slots. The replay runs the same core order over the same run.
describe(`loop fast path: options and presets (${IMPL})`, () => {
  const stuck = (n, q = 0) => Array.from({ length: n }, (_, i) => result(q, 0.5, 'failed', 0));

  test('fromPreset("recommended") gives up with no_improvement, as the replay does', () => {
    const engine = ee.EarlyStopping.fromPreset('recommended');
    const other = new ee.EarlyStopping(); // interleaved: the state must survive eviction
    const decisions = [];
    stuck(6).forEach((r, i) => {
      engine.recordIterationResult(i + 1, r);
      other.recordIterationResult(i + 1, r);
      other.shouldStop(i + 1);
      decisions.push(engine.shouldStop(i + 1));
    });
    assert.deepEqual(decisions.map((d) => d.stop), [false, false, false, false, false, true]);
    const last = decisions[5];
    assert.equal(last.trigger, 'no_improvement');
    assert.equal(last.reason, 'No improvement: 5 consecutive iterations without a new best (0 at iteration 1)');
    assert.deepEqual(last.details, { best_iteration: 1, best_quality_score: 0, iterations_without_improvement: 5, patience: 5 });
    assert.deepEqual(engine.getStoppingDetails(), last.details);
    assert.equal(engine.generateSummary().stopping_trigger, 'no_improvement');
    const iterations = stuck(8).map((r) => ({ quality_score: r.quality_score, confidence: r.confidence, verification_status: r.verification_status }));
    const replay = ee.replayLoops([{ id: 'stuck', iterations }], 'recommended');
    assert.equal(replay.runs[0].trigger, 'no_improvement');
    assert.equal(replay.runs[0].iterations_run, 6);
    assert.equal(replay.runs[0].reason, last.reason);
    // A snapshot restores onto the fast path with the same counters.
    const restored = ee.EarlyStopping.fromJSON(JSON.stringify(engine));
    assert.deepEqual(restored.shouldStop(6), last);
  });

  test('plateauMinQuality gates the plateau; configure() refolds the no-improvement counter', () => {
    const gated = new ee.EarlyStopping({ plateauMinQuality: 70 });
    const plain = new ee.EarlyStopping();
    stuck(3, 50).forEach((r, i) => {
      gated.recordIterationResult(i + 1, r);
      plain.recordIterationResult(i + 1, r);
    });
    assert.equal(plain.shouldStop(3).trigger, 'quality_plateau');
    assert.equal(gated.shouldStop(3).stop, false);
    gated.configure({ plateauMinQuality: 50 });
    assert.equal(gated.shouldStop(3).trigger, 'quality_plateau');
    gated.configure({ enablePlateauDetection: false, noImprovementPatience: 2 });
    const d = gated.shouldStop(3);
    assert.equal(d.trigger, 'no_improvement');
    assert.equal(d.details.iterations_without_improvement, 2);
    assert.equal(gated.getConfig().noImprovementPatience, 2);
  });
});

describe(`usage totals that would overflow (${IMPL})`, () => {
  // Each value is finite but their sum is not: the engine could not restore its own snapshot.
  test('a record that would make a total overflow is refused, with nothing recorded', () => {
    const engine = new ee.EarlyStopping({ maxTotalTokens: 1e300 });
    const big = (i) => ({ ...result(50, 0.5, 'failed', 0), tokens_used: 1.5e308 });
    engine.recordIterationResult(1, big(1));
    const before = JSON.stringify(engine.toJSON());
    assert.throws(
      () => engine.recordIterationResult(2, big(2)),
      (e) => e instanceof RangeError && e.code === 'invalid_result' && e.field === 'tokens_used',
    );
    assert.equal(JSON.stringify(engine.toJSON()), before);
    const restored = ee.EarlyStopping.fromJSON(engine.toJSON());
    assert.equal(restored.getIterationHistory().length, 1);
    assert.deepEqual(restored.shouldStop(), engine.shouldStop());
  });
});
