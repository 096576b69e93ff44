// Reliability in the JS packages (run against the native addon and the wasm build, see
// impl.mjs): the bad-input matrix (tests/vectors/bad_input.json), the native boundary (every
// op of the string interface with garbage, napi exports behind catch_unwind), runner errors
// (the caller's own object, the controller reusable), concurrent async use, a
// 1,000,000-iteration loop with bounded memory growth, and 100,000-record snapshots.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import { setImmediate as tick } from 'node:timers/promises';
import path from 'node:path';
import ee, { IMPL, ROOT } from './impl.mjs';
import { matrixVectors, runVector, appliesToJs } from '../browser/vector-runner.mjs';
import { decode } from '../vectors/common.mjs';

const VECTOR_DIR = path.join(ROOT, 'tests', 'vectors');
const require = createRequire(import.meta.url);
const summary = [];
after(() => console.log(summary.join('\n')));

// ---------------------------------------------------------------------------------------------
describe(`bad-input matrix (${IMPL})`, () => {
  test('every row: the typed error, the engine unchanged, later calls as if it never happened', async () => {
    const files = readdirSync(VECTOR_DIR)
      .filter((f) => f.endsWith('.json') && f !== 'bad_input.json')
      .concat(['behavior/behavior.json']) // a subfolder: the behaviour vectors, which matrix rows name too
      .map((name) => ({ name, vectors: JSON.parse(readFileSync(path.join(VECTOR_DIR, name), 'utf8')).vectors }));
    const doc = JSON.parse(readFileSync(path.join(VECTOR_DIR, 'bad_input.json'), 'utf8'));
    const vectors = matrixVectors(doc, files);
    const failures = [];
    const byInput = new Map();
    let passed = 0;
    let skipped = 0;
    let noStore = 0;
    for (const [i, vector] of vectors.entries()) {
      if (vector.engine === 'Store') {
        // The run store's rows ("node": the napi addon). The wasm build has no SQLite and
        // exports no Store: its rows are not run there (checked: there is no Store to call).
        if (IMPL === 'wasm' || !vector.only?.includes('node')) {
          if (IMPL === 'wasm') assert.equal(ee.Store, undefined);
          noStore += IMPL === 'wasm' ? 1 : 0;
          skipped += 1;
          continue;
        }
        const errs = await runStoreVector(doc.cases[i], vector);
        if (errs.length) failures.push(`${vector.name}: ${errs.join('; ')}`);
        else {
          passed += 1;
          byInput.set(doc.cases[i].input, (byInput.get(doc.cases[i].input) ?? 0) + 1);
        }
        continue;
      }
      if (!appliesToJs(vector)) {
        skipped += 1;
        continue;
      }
      const errs = await runVector(ee, vector);
      if (errs.length) failures.push(`${vector.name}: ${errs.join('; ')}`);
      else {
        passed += 1;
        byInput.set(doc.cases[i].input, (byInput.get(doc.cases[i].input) ?? 0) + 1);
      }
    }
    summary.push(`bad-input matrix (${IMPL}): ${passed} cases passed, ${failures.length} failed, ${skipped} not for js`
      + (noStore ? ` (${noStore} of them the run store's: this build has no Store)` : ''));
    for (const [input, n] of [...byInput].sort()) summary.push(`    ${String(n).padStart(5)}  ${input}`);
    assert.equal(failures.length, 0, `${failures.length} matrix cases failed:\n  ${failures.slice(0, 30).join('\n  ')}`);
    assert.ok(passed >= 1000, `only ${passed} matrix cases ran`);
  });
});

// The run store's rows (engine `Store`): a fresh store in a temporary folder with the seed
// runs, the bad call (the typed error; the store's check() counts unchanged), then its good
// twin, answering as the row writes it. "$dir" in an `open` URL is the folder, "$store" a
// Loop's store, "$seedId" the seed run's id.
async function storeCall(store, dir, seedId, name, args) {
  const value = (v) => (v === '$seedId' ? seedId : v === '$store' ? store : v);
  const resolved = args.map((a) => {
    const v = decode(a);
    return v !== null && typeof v === 'object' && !Array.isArray(v) && name !== 'addRun' && name !== 'appendReceipts'
      && name !== 'putArtifact' && name !== 'mergeModel'
      ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, value(x)]))
      : value(v);
  });
  if (name === 'addRun' && resolved[1] && typeof resolved[1] === 'object' && !Array.isArray(resolved[1])) {
    resolved[1] = Object.fromEntries(Object.entries(resolved[1]).map(([k, x]) => [k, value(x)]));
  }
  switch (name) {
    case 'open': {
      const url = typeof resolved[0] === 'string' ? resolved[0].replace('$dir', dir) : resolved[0];
      const other = await (resolved.length ? ee.Store.open(url) : ee.Store.open());
      await other.check();
      await other.close();
      return { opened: true };
    }
    case 'addRun': return store.addRun(...resolved);
    case 'runs': {
      let count = 0;
      for await (const _ of store.runs(...resolved)) count++; // eslint-disable-line no-unused-vars
      return { count };
    }
    case 'appendReceipts': return store.appendReceipts(...resolved);
    case 'verifyReceipts': {
      const { valid, receipts } = await store.verifyReceipts(...resolved);
      return { valid, receipts };
    }
    case 'receiptLog': return { lines: (await store.receiptLog(...resolved)).split('\n').filter((l) => l !== '').length };
    case 'putArtifact': return { kind: (await store.putArtifact(...resolved)).kind };
    case 'artifact': return { found: (await store.artifact(...resolved)) !== null };
    case 'mergeModel': return { builds: (await store.mergeModel(...resolved)).builds.length };
    case 'model': return { found: (await store.model(...resolved)) !== null };
    case 'newLoop': new ee.Loop(...resolved); return { made: true }; // eslint-disable-line no-new
    default: throw new Error(`unknown Store call ${name}`);
  }
}

async function runStoreVector(row, vector) {
  const errs = [];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ee-store-matrix-'));
  const store = await ee.Store.open(`sqlite:${path.join(dir, 'runs.db')}`);
  try {
    for (const seed of vector.construct.runs) await store.addRun(seed.run, { runLabel: seed.runLabel });
    let seedId = null;
    for await (const { runId } of store.runs()) seedId ??= runId;
    for (const [i, c] of vector.calls.entries()) {
      const where = `call ${i} (${c.call})`;
      if (c.throws) {
        const before = JSON.stringify(await store.check());
        try {
          const got = await storeCall(store, dir, seedId, c.call, c.args);
          errs.push(`${where}: expected ${JSON.stringify(c.throws)}, answered ${JSON.stringify(got)}`);
          continue;
        } catch (e) {
          const { code, field, kind } = c.throws;
          const cls = kind === 'type' ? TypeError : RangeError;
          if (e?.code !== code || e?.field !== field || !(e instanceof cls)) {
            errs.push(`${where}: ${e?.constructor?.name} ${e?.code}/${e?.field} != ${kind} ${code}/${field} (${e?.message})`);
          }
        }
        const after = JSON.stringify(await store.check());
        if (after !== before) errs.push(`${where}: the store changed: ${before} -> ${after}`);
      } else {
        try {
          const got = await storeCall(store, dir, seedId, c.call, c.args);
          if ('returns' in c && JSON.stringify(got) !== JSON.stringify(c.returns)) {
            errs.push(`${where}: answered ${JSON.stringify(got)}, expected ${JSON.stringify(c.returns)}`);
          }
        } catch (e) {
          errs.push(`${where}: ${e?.constructor?.name}: ${e?.message}`);
        }
      }
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return errs;
}

// ---------------------------------------------------------------------------------------------
// The native boundary: the string interface (bindings/js/interface) that both packages export.

// The module the package loaded (same path, so the same instance).
function nativeModule() {
  const pkg = path.dirname(require.resolve(IMPL === 'wasm' ? 'earlyexit-wasm' : 'earlyexit'));
  return require(IMPL === 'wasm' ? path.join(pkg, 'pkg', 'nodejs', 'earlyexit_wasm.js') : path.join(pkg, 'native.cjs'));
}

// Answers of a fixed scenario over the public API; abuse of the interface must not change them.
async function scenario() {
  const es = new ee.EarlyStopping({ plateauConsecutiveCount: 3, maxIterations: 10 });
  for (const [i, q] of [70, 75, 75.5, 75.6].entries()) {
    es.recordIterationResult(i + 1, { quality_score: q, confidence: 0.7, verification_status: 'passed', quality_delta: i === 0 ? 0 : 0.1, timestamp: '2026-01-01T00:00:00Z' });
  }
  const analytics = new ee.IterationAnalytics({ startTime: '2026-01-01T00:00:00.000Z', endTime: '2026-01-01T01:00:00.000Z' });
  analytics.recordIteration({ iteration_number: 1, quality_score: 60, verification_status: 'failed', timestamp: '2026-01-01T00:00:01.000Z' });
  analytics.recordIteration({ iteration_number: 2, quality_score: 61, verification_status: 'passed', timestamp: '2026-01-01T00:00:02.000Z' });
  const signal = ee.calculateQualitySignal({ passRate: 0.97, coverage: 0.9, flakyRatio: 0.01, total: 100, passed: 97 });
  const run = ee.PyramidRun.start(null, 2, [{ name: 'a', costMs: 1 }, { name: 'b', costMs: 2 }]);
  run.submit(0, { passRate: 1, coverage: 0.95, flakyRatio: 0 });
  const result = await new ee.EarlyExitController(null, 3).runWithEarlyExit([0, 1, 2].map((i) => ({ name: `l${i}`, costMs: i, run: () => ({ passRate: 1, coverage: 0.9, flakyRatio: 0 }) })));
  return JSON.stringify([es.shouldStop(), es.generateSummary(), es.toJSON(), analytics.generateSummary(), analytics.toJSON(),
    new ee.CoherenceEarlyExit(null, 3).shouldExit(signal, 1), signal, run.next(), run.toJSON(), result,
    new ee.SpeculativeExecutor().speculate({ confidence: 0.9 }, [1, 2])]);
}

const GARBAGE = ['', '[', ']', '{}', 'null', '[null]', '[1e999]', '["\\ud800"]', '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]',
  '[-1,-1,-1]', '["x",{"a":[1,{"b":null}]}]', '\u0000', '[{"$num":"NaN"}]', '[9007199254740993]', '[true,false]', 'x'.repeat(10_000), '[0,0,0,0,0,0]'];

describe(`native boundary (${IMPL})`, () => {
  test('10,000+ garbage calls on every op of every export answer strings, then the instance answers as before', async () => {
    const native = nativeModule();
    const before = await scenario();
    let calls = 0;
    // Ops 0..=99 cover every op the interface defines (0..=75) and unknown ones.
    for (let round = 0; round < 7; round++) {
      for (let op = 0; op < 100; op++) {
        for (const args of GARBAGE) {
          assert.equal(typeof native.exec(op, args), 'string');
          const engine = new native.NativeEngine();
          try {
            assert.equal(typeof engine.call(op, args), 'string');
            // A second op on an engine the first op may or may not have filled.
            assert.equal(typeof engine.call((op * 7 + round) % 100, args), 'string');
          } finally {
            engine.free?.();
          }
          calls += 3;
        }
      }
    }
    assert.ok(calls >= 10_000, `${calls} calls`);
    assert.equal(await scenario(), before);
    summary.push(`native boundary (${IMPL}): ${calls} garbage calls over ops 0..99 of exec, NativeEngine and NativeEngine.call; answers unchanged`);
  });

  test('every napi export is behind catch_unwind', { skip: IMPL !== 'native' && 'a source check, run once' }, () => {
    const source = readFileSync(path.join(ROOT, 'bindings', 'node', 'src', 'lib.rs'), 'utf8');
    // Each #[napi...] attribute that precedes a function (or a constructor/method).
    const exports = [...source.matchAll(/#\[napi(\([^)]*\))?\]\s*(?:#\[[^\]]*\]\s*)*(?:\/\/\/[^\n]*\n\s*)*pub (fn|struct|enum) (\w+)/g)];
    const functions = exports.filter((m) => m[2] === 'fn');
    assert.ok(functions.length >= 3, `found ${functions.length} napi functions`);
    for (const m of functions) assert.match(m[1] ?? '', /catch_unwind/, `napi export ${m[3]} lacks catch_unwind`);
    // Methods inside `#[napi] impl` blocks carry their own attribute: none may be bare.
    const bareMethods = [...source.matchAll(/#\[napi\]\s*(?:#\[[^\]]*\]\s*)*pub fn (\w+)/g)].map((m) => m[1]);
    assert.deepEqual(bareMethods, []);
  });
});

// ---------------------------------------------------------------------------------------------
// Runner errors: the caller's own object, and the controller (or executor) still works.

const PASS = { passRate: 1, coverage: 0.95, flakyRatio: 0 };
const layerList = (runners) => runners.map((run, i) => ({ name: `layer${i}`, costMs: 10 * (i + 1), run }));
const passing = (n) => layerList(Array.from({ length: n }, () => () => ({ ...PASS })));

describe(`runner errors (${IMPL})`, () => {
  for (const [how, fail] of [
    ['a sync throw', (err) => () => { throw err; }],
    ['an async rejection', (err) => async () => { await tick(); throw err; }],
    ['a returned rejected Promise', (err) => () => Promise.reject(err)],
  ]) {
    test(`${how} in layer 0 and during verification: the same object, the controller reusable`, async () => {
      const controller = new ee.EarlyExitController(null, 4);
      const expected = await new ee.EarlyExitController(null, 4).runWithEarlyExit(passing(4));
      for (const at of [0, 1, 2]) { // 0: a run; 1, 2: verification of skipped layers
        const mine = new Error(`runner ${at} failed`);
        mine.extra = { at };
        const runners = passing(4).map((l) => l.run);
        runners[at] = fail(mine);
        await assert.rejects(controller.runWithEarlyExit(layerList(runners)), (e) => e === mine);
        assert.deepEqual(await controller.runWithEarlyExit(passing(4)), expected);
      }
      // A thrown non-Error is passed through as itself too.
      const token = { token: true };
      await assert.rejects(controller.runWithEarlyExit(layerList([fail(token)])), (e) => e === token);
      assert.deepEqual(await controller.runWithEarlyExit(passing(4)), expected);
    });
  }

  test('SpeculativeExecutor.verify: a runner error is the caller\'s object, the executor reusable', async () => {
    const executor = new ee.SpeculativeExecutor();
    const speculations = await executor.speculate({ confidence: 0.9 }, [1, 2]);
    const good = passing(2);
    const expected = await executor.verify(speculations, good);
    const mine = new RangeError('mine');
    await assert.rejects(executor.verify(speculations, layerList([async () => { throw mine; }, good[1].run])), (e) => e === mine);
    assert.deepEqual(await executor.verify(speculations, passing(2)), expected);
  });

  test('an outside diminishing-returns source that throws: the same object, the engine unchanged', () => {
    const mine = new Error('source down');
    let fail = true;
    const es = new ee.EarlyStopping(null, { detectDiminishingReturns() { if (fail) throw mine; return { detected: false, iteration: null, reason: 'no' }; } });
    es.recordIterationResult(1, { quality_score: 50, confidence: 0.5, verification_status: 'failed', quality_delta: 0, timestamp: '2026-01-01T00:00:00Z' });
    const before = JSON.stringify(es.toJSON());
    assert.throws(() => es.shouldStop(1), (e) => e === mine);
    assert.throws(() => es.generateSummary(), (e) => e === mine);
    assert.equal(JSON.stringify(es.toJSON()), before);
    fail = false;
    assert.equal(es.shouldStop(1).trigger, 'none');
  });
});

// ---------------------------------------------------------------------------------------------
// Load: concurrency, long loops, large snapshots. No timing assertions; figures are printed.

// The native build carries the full sizes; the wasm build (the same JS layer and core, about
// three times slower per call) runs the same code on fewer records to keep the suite short.
const LOOP_ITERATIONS = IMPL === 'native' ? 1_000_000 : 200_000;
const SNAPSHOT_RECORDS = IMPL === 'native' ? 100_000 : 25_000;
const record = (i, q) => ({ quality_score: q, confidence: 0.5, verification_status: i % 3 === 0 ? 'passed' : 'failed', quality_delta: 0, timestamp: '2026-01-01T00:00:00Z' });
const quality = (task, i) => 40 + ((task * 7 + i * 13) % 60);

describe(`load (${IMPL})`, () => {
  test('one controller, 200 concurrent async pyramid runs: each result is what it is alone', async () => {
    const controller = new ee.EarlyExitController(null, 4);
    // Four kinds of pyramid; runners yield to the event loop so the runs interleave.
    const kinds = [
      [PASS, PASS, PASS, PASS],
      [{ passRate: 0.7, coverage: 0.6, flakyRatio: 0.2 }, PASS, PASS, PASS],
      [PASS, { passRate: 0.8, coverage: 0.9, flakyRatio: 0.02 }, PASS, PASS],
      [{ passRate: 0.95, coverage: 0.8, flakyRatio: 0.01 }, PASS, { passRate: 0.5, coverage: 0.5, flakyRatio: 0.3 }, PASS],
    ];
    const asLayers = (results, delay) => results.map((r, i) => ({ name: `l${i}`, costMs: i + 1, run: async () => { for (let k = 0; k < delay; k++) await tick(); return { ...r }; } }));
    const alone = [];
    for (const k of kinds) alone.push(await new ee.EarlyExitController(null, 4).runWithEarlyExit(asLayers(k, 0)));
    const runs = Array.from({ length: 200 }, (_, i) => controller.runWithEarlyExit(asLayers(kinds[i % 4], i % 5)));
    const results = await Promise.all(runs);
    results.forEach((r, i) => assert.deepEqual(r, alone[i % 4], `run ${i}`));
    summary.push(`load (${IMPL}): 200 concurrent pyramid runs on one controller, all equal to their run alone`);
  });

  test('50 interleaved async loops, each with its own engine, and one engine shared by all: nothing lost or corrupted', async () => {
    const shared = new ee.EarlyStopping({ enablePlateauDetection: false });
    const log = [];
    let next = 1;
    const loop = async (task) => {
      const es = new ee.EarlyStopping({ enablePlateauDetection: false, maxIterations: 1000 });
      for (let i = 1; i <= 40; i++) {
        await tick();
        es.recordIterationResult(i, record(i, quality(task, i)));
        es.shouldStop(i);
        const n = next++;
        shared.recordIterationResult(n, { ...record(n, quality(task, i)), tokens_used: task });
        log.push([n, task, i]);
        if (i % 10 === 0) shared.shouldStop(n);
      }
      return es.getIterationHistory();
    };
    const histories = await Promise.all(Array.from({ length: 50 }, (_, t) => loop(t)));
    histories.forEach((h, t) => {
      assert.equal(h.length, 40);
      h.forEach((r, k) => assert.deepEqual(r, { iteration_number: k + 1, ...record(k + 1, quality(t, k + 1)) }));
    });
    const all = shared.getIterationHistory();
    assert.equal(all.length, 2000);
    all.forEach((r, k) => {
      const [n, task, i] = log[k];
      assert.deepEqual(r, { iteration_number: n, ...record(n, quality(task, i)), tokens_used: task });
    });
  });

  test(`a ${LOOP_ITERATIONS.toLocaleString('en')}-iteration loop: memory grows by a bounded amount per record`, () => {
    const es = new ee.EarlyStopping({ enablePlateauDetection: false });
    const N = LOOP_ITERATIONS;
    globalThis.gc?.();
    const m0 = process.memoryUsage();
    const t0 = performance.now();
    let stops = 0;
    for (let i = 1; i <= N; i++) {
      es.recordIterationResult(i, record(i, 50 + (i % 40)));
      if (i % 1000 === 0 && es.shouldStop(i).stop) stops += 1;
    }
    const ms = performance.now() - t0;
    const m1 = process.memoryUsage();
    const perRecord = (m1.rss - m0.rss) / N;
    const decision = es.shouldStop(N);
    assert.equal(decision.best_quality_score, 89);
    assert.equal(stops, 0);
    const summaryOf = es.generateSummary();
    assert.equal(summaryOf.total_iterations, N);
    // A history record is six fields; 2 KB each would mean a leak, not a layout choice.
    assert.ok(perRecord < 2048, `rss grew ${perRecord.toFixed(0)} bytes per record`);
    summary.push(`load (${IMPL}): ${N.toLocaleString('en')} iterations in ${(ms / 1000).toFixed(1)} s, rss +${((m1.rss - m0.rss) / 2 ** 20).toFixed(0)} MiB (${perRecord.toFixed(0)} B/record), heap +${((m1.heapUsed - m0.heapUsed) / 2 ** 20).toFixed(0)} MiB`);
    es.free?.();
  });

  test(`a ${SNAPSHOT_RECORDS.toLocaleString('en')}-record history: the snapshot round-trips exactly through its JSON text`, () => {
    const es = new ee.EarlyStopping({ plateauConsecutiveCount: 5, maxIterations: 200_000, maxTotalTokens: 1e12 });
    const N = SNAPSHOT_RECORDS;
    for (let i = 1; i <= N; i++) es.recordIterationResult(i, { ...record(i, quality(1, i)), tokens_used: i, timestamp: `2026-01-01T00:00:00.${String(i % 1000).padStart(3, '0')}Z` });
    es.shouldStop(N);
    const t0 = performance.now();
    const snapshot = es.toJSON();
    const text = JSON.stringify(snapshot);
    const fromText = ee.EarlyStopping.fromJSON(text);
    const ms = performance.now() - t0;
    assert.equal(snapshot.history.length, N);
    // The restored engine saves the very same document, and decides as the original does.
    assert.equal(JSON.stringify(fromText.toJSON()), text);
    assert.deepEqual(fromText.shouldStop(N), es.shouldStop(N));
    // The object form (not the text) restores too: checked on a slice, the path is the same.
    const slice = { ...snapshot, history: snapshot.history.slice(0, 1000) };
    assert.deepEqual(ee.EarlyStopping.fromJSON(slice).toJSON(), slice);
    summary.push(`load (${IMPL}): ${N.toLocaleString('en')}-record snapshot, ${(text.length / 2 ** 20).toFixed(1)} MiB of JSON, saved and restored in ${(ms / 1000).toFixed(2)} s`);
  });
});
