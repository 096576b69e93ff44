// The JS layer under a hostile or careless caller (docs/internals/reliability.md, "The JS layer"):
// concurrent and nested runs share no state, host values are read once, the encoder is
// linear and refuses cycles, caches are bounded, every refusal is typed, and an abort
// reaches the runner. Each test here failed before the fix it guards.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import ee, { IMPL } from './impl.mjs';

const GREEN = { passRate: 1, coverage: 0.95, flakyRatio: 0 };
const tick = () => new Promise((resolve) => setImmediate(resolve));

// A run's layers: runner results and costs vary with `seed`, so two runs with different
// seeds have different answers (costs differ on every layer).
function layersFor(seed, count, delay) {
  return Array.from({ length: count }, (_, i) => {
    const k = (seed * 7 + i * 13) % 11;
    const result = { passRate: k < 3 ? 0.9 + k * 0.01 : 1, coverage: 0.7 + (k % 4) * 0.08, flakyRatio: k === 5 ? 0.2 : 0 };
    const layer = { name: `s${seed}l${i}`, run: delay ? async () => { await delay(seed, i); return result; } : () => result };
    if ((seed + i) % 5 !== 4 || i === 0) layer.costMs = (seed + 1) * 1000 + i * 10;
    return layer;
  });
}
const PRESETS = [ee.DEFAULT_EXIT_CONFIG, ee.AGGRESSIVE_EXIT_CONFIG, ee.CONSERVATIVE_EXIT_CONFIG];

describe(`concurrent and nested runs (${IMPL})`, () => {
  test('200 concurrent runs with different layers, costs and presets equal the same runs done one at a time', async () => {
    const specs = Array.from({ length: 200 }, (_, seed) => ({ seed, count: 2 + (seed % 5), preset: seed % 3 }));
    const alone = [];
    for (const { seed, count, preset } of specs) {
      alone.push(await new ee.EarlyExitController(PRESETS[preset], count).runWithEarlyExit(layersFor(seed, count)));
    }
    // Each runner yields a varying number of turns, so the runs interleave at every layer.
    const delay = async (seed, i) => {
      for (let k = 0; k < (seed * 3 + i) % 4; k++) await tick();
    };
    const together = await Promise.all(specs.map(({ seed, count, preset }) =>
      new ee.EarlyExitController(PRESETS[preset], count).runWithEarlyExit(layersFor(seed, count, delay))));
    const differing = together.filter((result, i) => JSON.stringify(result) !== JSON.stringify(alone[i])).length;
    console.log(`concurrent-run agreement: ${200 - differing} of 200 runs equal to the same runs done one at a time`);
    assert.equal(differing, 0);
    assert.ok(new Set(alone.map((r) => r.computeSavedMs)).size > 20, 'the runs differ in what they save');
  });

  test('a run started inside a runner of another run (nested) leaves the outer run intact', async () => {
    const outerLayers = layersFor(3, 4);
    const expected = await new ee.EarlyExitController(ee.AGGRESSIVE_EXIT_CONFIG, 4).runWithEarlyExit(layersFor(3, 4));
    const innerExpected = await new ee.EarlyExitController(ee.CONSERVATIVE_EXIT_CONFIG, 5).runWithEarlyExit(layersFor(8, 5));
    const inner = [];
    const nested = outerLayers.map((layer) => ({
      ...layer,
      run: async () => {
        inner.push(await new ee.EarlyExitController(ee.CONSERVATIVE_EXIT_CONFIG, 5).runWithEarlyExit(layersFor(8, 5)));
        return layer.run();
      },
    }));
    const got = await new ee.EarlyExitController(ee.AGGRESSIVE_EXIT_CONFIG, 4).runWithEarlyExit(nested);
    assert.deepEqual(got, expected);
    assert.ok(inner.length >= 1);
    for (const result of inner) assert.deepEqual(result, innerExpected);
  });

  test('one run\'s computeSavedMs while another run with other costs starts meanwhile', async () => {
    const controller = new ee.EarlyExitController(ee.AGGRESSIVE_EXIT_CONFIG, 3);
    let release;
    const gate = new Promise((resolve) => (release = resolve));
    const slow = [
      { name: 'unit', costMs: 1, run: async () => { await gate; return GREEN; } },
      { name: 'integration', costMs: 1000, run: () => GREEN },
      { name: 'e2e', costMs: 1000, run: () => GREEN },
    ];
    const first = controller.runWithEarlyExit(slow);
    await tick();
    const cheap = [0, 1, 2].map((i) => ({ name: `c${i}`, costMs: 1, run: () => GREEN }));
    const second = await controller.runWithEarlyExit(cheap);
    release();
    const result = await first;
    assert.deepEqual(second, await controller.runWithEarlyExit(cheap));
    const alone = await controller.runWithEarlyExit(slow);
    assert.equal(result.computeSavedMs, alone.computeSavedMs);
  });
});

// The layer over the same native module again (as test runners may load a package twice),
// for its test hooks: the encoder's visit count, the caches' sizes, the fast-path switch.
import path from 'node:path';
import { createRequire } from 'node:module';
import { spawn, spawnSync } from 'node:child_process';
import { ROOT } from './impl.mjs';

const require = createRequire(import.meta.url);
const PACKAGE_DIR = path.join(ROOT, 'bindings', IMPL === 'wasm' ? 'wasm' : 'node');
const NATIVE = require(path.join(PACKAGE_DIR, IMPL === 'wasm' ? 'pkg/nodejs/earlyexit_wasm.js' : 'native.cjs'));
function secondLayer() {
  const { api, ready, testing } = require(path.join(PACKAGE_DIR, 'api.cjs'))(NATIVE);
  ready();
  return { api, testing };
}

describe(`host values are read once (${IMPL})`, () => {
  // An object whose every read is counted; `values[key]` is a list of answers, one per read.
  function counted(values) {
    const reads = {};
    const object = {};
    for (const [key, answers] of Object.entries(values)) {
      reads[key] = 0;
      Object.defineProperty(object, key, { enumerable: true, get: () => answers[Math.min(reads[key]++, answers.length - 1)] });
    }
    return { object, reads };
  }

  test('a runner result: each getter once, and what it answered first is what is decided and returned', async () => {
    for (const extra of [{}, { note: ['x'] }]) { // plain, and with a key the fast path checks over JSON
      const { object, reads } = counted({ passRate: [1, 'garbage'], coverage: [0.95, NaN], flakyRatio: [0, -1], ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, [v, 'later']])) });
      const result = await new ee.EarlyExitController(ee.CONSERVATIVE_EXIT_CONFIG, 1).runWithEarlyExit([{ name: 'unit', run: () => object }]);
      assert.deepEqual(result.layers, [{ passRate: 1, coverage: 0.95, flakyRatio: 0, ...extra }]);
      for (const key of Object.keys(reads)) assert.equal(reads[key], 1, `${key} read ${reads[key]} times`);
    }
    // The JSON path (more layers than the fast path takes) reads once too.
    const { object, reads } = counted({ passRate: [1, 'garbage'], coverage: [0.95], flakyRatio: [0] });
    const layers = Array.from({ length: 45 }, (_, i) => ({ name: `l${i}`, run: () => (i === 0 ? object : GREEN) }));
    const result = await new ee.EarlyExitController(ee.CONSERVATIVE_EXIT_CONFIG, 45).runWithEarlyExit(layers);
    assert.equal(result.layers[0].passRate, 1);
    assert.deepEqual(reads, { passRate: 1, coverage: 1, flakyRatio: 1 });
  });

  test('a layer\'s name, cost and runner are read once per run', async () => {
    const reads = { name: 0, costMs: 0, run: 0 };
    const layer = {
      get name() { reads.name++; return 'unit'; },
      get costMs() { reads.costMs++; return reads.costMs === 1 ? 5 : -1; },
      get run() { reads.run++; return () => GREEN; },
    };
    const result = await new ee.EarlyExitController(ee.CONSERVATIVE_EXIT_CONFIG, 1).runWithEarlyExit([layer]);
    assert.equal(result.layersExecuted.length, 1);
    assert.deepEqual(reads, { name: 1, costMs: 1, run: 1 });
  });

  test('previousLambda: NaN is refused by the fast path as by submit() and the JSON path', async () => {
    const bad = { passRate: 1, coverage: 0.9, flakyRatio: 0, previousLambda: NaN };
    const check = (e) => e instanceof RangeError && e.code === 'invalid_layer_result' && e.field === 'layers[0].previousLambda';
    await assert.rejects(new ee.EarlyExitController(null, 1).runWithEarlyExit([{ name: 'unit', run: () => bad }]), check);
    assert.throws(() => ee.PyramidRun.start(null, 1, [{ name: 'unit' }]).submit(0, bad), check);
    const many = Array.from({ length: 45 }, (_, i) => ({ name: `l${i}`, run: () => bad }));
    await assert.rejects(new ee.EarlyExitController(null, 45).runWithEarlyExit(many), check);
  });

  test('a result key whose value is undefined is an absent key on every path (found by the properties)', async () => {
    const result = { passRate: 0.995, coverage: 0.9, flakyRatio: 0.2, previousLambda: undefined, note: 'x' };
    const got = await new ee.EarlyExitController(null, 3).runWithEarlyExit([{ name: 'unit', costMs: 5, run: () => result }]);
    const run = ee.PyramidRun.start(null, 3, [{ name: 'unit', costMs: 5 }]);
    run.submit(0, result);
    assert.deepEqual(got, run.result());
    assert.deepEqual(Object.keys(got.layers[0]), ['passRate', 'coverage', 'flakyRatio', 'note']);
  });

  test('a getter that uses the API (and grows wasm memory) does not spoil a valid result', async () => {
    const history = Array.from({ length: 30_000 }, (_, i) => ({ iteration_number: i + 1, quality_score: 50, confidence: 0.5, verification_status: 'failed', quality_delta: 0, timestamp: '2026-01-01T00:00:00.000Z' }));
    const snapshot = JSON.stringify({ ...new ee.EarlyStopping({ maxIterations: 100_000 }).toJSON(), history });
    const result = {
      get passRate() {
        ee.EarlyStopping.fromJSON(snapshot); // megabytes through the native side
        return 1;
      },
      coverage: 0.95,
      flakyRatio: 0,
    };
    const got = await new ee.EarlyExitController(ee.CONSERVATIVE_EXIT_CONFIG, 2).runWithEarlyExit([{ name: 'unit', run: () => result }, { name: 'e2e', run: () => GREEN }]);
    const expected = await new ee.EarlyExitController(ee.CONSERVATIVE_EXIT_CONFIG, 2).runWithEarlyExit([{ name: 'unit', run: () => GREEN }, { name: 'e2e', run: () => GREEN }]);
    assert.deepEqual(got, expected);
  });

  test('a loop result and a source\'s report: each getter once, also when the JSON path answers', () => {
    // The fast path refuses NaN and the JSON path words the error: over the value read, not a
    // second read (which would answer 50 and be accepted).
    const nan = counted({ quality_score: [NaN, 50], confidence: [0.5], verification_status: ['failed'], quality_delta: [0] });
    const es = new ee.EarlyStopping();
    assert.throws(() => es.recordIterationResult(1, nan.object), (e) => e instanceof RangeError && e.field === 'quality_score');
    assert.deepEqual(nan.reads, { quality_score: 1, confidence: 1, verification_status: 1, quality_delta: 1 });
    assert.deepEqual(es.getIterationHistory(), []);
    // A key the fast path does not know: the JSON path gets the values read.
    const extra = counted({ quality_score: [50, 'x'], confidence: [0.5, 'x'], verification_status: ['failed', 'x'], quality_delta: [0, 'x'], tokens_used: [3, -1], extra: [1] });
    assert.throws(() => es.recordIterationResult(1, extra.object), (e) => e.code === 'unknown_option' && e.field === 'extra');
    assert.deepEqual(Object.values(extra.reads), [1, 1, 1, 1, 1, 1]);
    const { object: report, reads } = counted({ detected: [true, 'yes'], iteration: [2, 'x'], reason: ['words', 5] });
    const asked = new ee.EarlyStopping(undefined, { detectDiminishingReturns: () => report });
    asked.recordIterationResult(1, { quality_score: 10, confidence: 0.1, verification_status: 'failed', quality_delta: 1 });
    const decision = asked.shouldStop();
    assert.equal(decision.trigger, 'diminishing_returns');
    assert.deepEqual(decision.details, { detected_at_iteration: 2, analytics_reason: 'words' });
    assert.equal(decision.reason, 'Diminishing returns detected: words');
    assert.deepEqual(reads, { detected: 1, iteration: 1, reason: 1 });
  });
});

describe(`the encoder (${IMPL})`, () => {
  let layer = null; // loaded by the first test that needs its hooks
  const testing = new Proxy({}, { get: (_, name) => (layer ??= secondLayer()).testing[name] });
  // n objects, each holding the next one twice: 2^n occurrences, n + 1 distinct values.
  const dag = (n) => {
    let node = { leaf: 1 };
    for (let i = 0; i < n; i++) node = { a: node, b: node };
    return node;
  };

  test('work is linear in the input: visits counted as shared sub-objects double', () => {
    const rows = [];
    for (const n of [5, 10, 15, 20]) {
      const { text, visits } = testing.encode(dag(n));
      rows.push(`n=${n}: ${visits} visits, ${text.length} chars`);
      assert.equal(visits, 2 * n + 2); // each object's two edges, the leaf's value, the top
      assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(dag(n)))); // once per occurrence, as JSON.stringify
    }
    // A tree without sharing: one visit per value.
    for (const size of [100, 1000, 10000]) {
      const tree = Array.from({ length: size }, (_, i) => ({ i }));
      assert.equal(testing.encode(tree).visits, 1 + 2 * size);
    }
    console.log(`encoder visits: ${rows.join('; ')}`);
  });

  test('a 48-object graph of shared children is refused at the size limit, at once', () => {
    const { api } = secondLayer();
    const run = api.PyramidRun.start(null, 1, [{ name: 'unit' }]);
    assert.throws(() => run.submit(0, { passRate: 1, coverage: 1, flakyRatio: 0, extra: dag(48) }),
      (e) => e instanceof RangeError && e.code === 'invalid_layer_result' && e.field === 'layers[0]' && /bytes/.test(e.message));
    assert.deepEqual(run.next(), { action: 'run', layer: 0 }); // nothing changed
    assert.throws(() => testing.encode(dag(48)), (e) => e instanceof RangeError && e.field === 'value');
  });

  test('cycles are typed errors naming the path; so is nesting past the depth limit', async () => {
    const three = { quality_score: 1 };
    three.a = three;
    three.b = three;
    three.c = three;
    assert.throws(() => new ee.EarlyStopping().recordIterationResult(1, three), (e) => e instanceof TypeError && e.code === 'invalid_result' && e.field === 'a');
    const run = { id: 'r', iterations: [{ quality_score: 0.5, confidence: 0.5, verification_status: 'failed' }], meta: {} };
    run.meta.self = run;
    assert.throws(() => ee.replayLoops([run]), (e) => e instanceof TypeError && e.code === 'invalid_replay' && e.field === 'runs[0].meta.self');
    assert.throws(() => ee.replayPyramids([{ id: 'x', layers: [run] }]), (e) => e instanceof TypeError && e.code === 'invalid_replay' && e.field === 'runs[0].layers[0].meta.self');
    const snapshot = new ee.EarlyStopping().toJSON();
    snapshot.config.self = snapshot;
    assert.throws(() => ee.EarlyStopping.fromJSON(snapshot), (e) => e instanceof TypeError && e.code === 'invalid_snapshot' && e.field === 'config.self');
    const wrap = (value, levels) => {
      for (let i = 0; i < levels; i++) value = [value];
      return value;
    };
    const nested = (levels) => wrap(1, levels);
    assert.equal(testing.encode(nested(200)).visits, 201);
    assert.throws(() => testing.encode(nested(201)), (e) => e instanceof RangeError && e.field === '[0]'.repeat(200));
    // A shared sub-object met first near the top, then again deeper than the limit allows:
    // refused where it is met the second time (its text is reused, its height is known).
    const deep = nested(150);
    assert.throws(() => testing.encode({ a: deep, b: wrap(deep, 60) }), (e) => e instanceof RangeError && e.field === 'b' + '[0]'.repeat(60));
    await assert.rejects(new ee.EarlyExitController(null, 1).runWithEarlyExit([{ name: 'u', run: () => ({ ...GREEN, deep: nested(300) }) }]),
      (e) => e instanceof RangeError && e.code === 'invalid_layer_result' && e.field.startsWith('layers[0].deep[0]'));
  });

  test('replays are bounded per run (or per JSONL line), never as a whole batch', () => {
    const limit = ee.LIMITS.documentBytes;
    const big = 'x'.repeat(Math.ceil(limit * 0.6));
    const runs = [{ id: 'a', note: big }, { id: 'b', note: big }]; // 1.2 times the limit in all
    assert.ok(testing.encode(runs, 'runs').text.length > limit);
    assert.ok(testing.encode(big + '\n' + big, 'runs').text.length > limit); // JSONL text: the core bounds each line
    runs.push({ id: 'c', note: big + big });
    assert.throws(() => testing.encode(runs, 'runs'), (e) => e instanceof RangeError && e.code === 'invalid_replay' && e.field === 'runs[2]');
    assert.throws(() => testing.encode(runs), (e) => e instanceof RangeError && e.field === 'value'); // elsewhere: the whole value
  });

  test('a string over the size limit is refused before it is copied', () => {
    const huge = 'x'.repeat(ee.LIMITS.documentBytes + 1);
    assert.throws(() => ee.EarlyStopping.fromJSON(huge), (e) => e instanceof RangeError && e.code === 'invalid_snapshot' && e.field === 'snapshot' &&
      /over the limits/.test(e.message) && e.message.includes(`${ee.LIMITS.documentBytes} bytes`));
  });
});

describe(`caches are bounded (${IMPL})`, () => {
  test('reasons from an outside source: entries and characters kept stay bounded', () => {
    const { api, testing } = secondLayer();
    const before = testing.caches();
    for (let i = 0; i < 300; i++) {
      const reason = String(i).padEnd(i % 2 ? 100_000 : 50, '.');
      const es = new api.EarlyStopping(undefined, { detectDiminishingReturns: () => ({ detected: true, iteration: 1, reason }) });
      es.recordIterationResult(1, { quality_score: 10, confidence: 0.1, verification_status: 'failed', quality_delta: 1 });
      assert.equal(es.shouldStop().reason, 'Diminishing returns detected: ' + reason);
      es.free();
    }
    const after = testing.caches();
    console.log(`caches after 300 engines with distinct reasons: ${after.entries} entries, ${after.chars} characters`);
    assert.ok(after.entries - before.entries <= 64, `${after.entries} entries`);
    assert.ok(after.chars - before.chars <= 64 * 600, `${after.chars} characters`);
  });

  test('retained heap after GC, for engines stopped with long reasons and freed', () => {
    // A child with --expose-gc: 200 engines, each stopped by a 1 MB reason, then freed.
    const script = `
      const ee = require(${JSON.stringify(path.join(PACKAGE_DIR, 'index.cjs'))});
      const used = () => { global.gc(); global.gc(); return process.memoryUsage().heapUsed; };
      const start = used();
      for (let i = 0; i < 200; i++) {
        const reason = String(i).padEnd(1 << 20, '.');
        const es = new ee.EarlyStopping(undefined, { detectDiminishingReturns: () => ({ detected: true, iteration: 1, reason }) });
        es.recordIterationResult(1, { quality_score: 10, confidence: 0.1, verification_status: 'failed', quality_delta: 1 });
        es.shouldStop();
        es.free();
      }
      console.log(used() - start);`;
    const child = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8' });
    assert.equal(child.status, 0, child.stderr);
    const retained = Number(child.stdout.trim());
    console.log(`retained heap after GC: ${(retained / 1048576).toFixed(1)} MB after 200 engines with 1 MB reasons`);
    assert.ok(retained < 16 * 1048576, `${retained} bytes retained`);
  });
});

describe(`every refusal is typed (${IMPL})`, () => {
  const typed = (kind, code, field) => (e) => e instanceof kind && e.code === code && e.field === field && e.message.length > 0;
  const layers = [{ name: 'unit', run: () => GREEN }, { name: 'e2e', run: () => GREEN }];

  test('runWithEarlyExit options: only `signal`, an AbortSignal', async () => {
    const controller = new ee.EarlyExitController(null, 2);
    for (const signal of [5, 'abort', {}, { aborted: false }, () => 0]) {
      await assert.rejects(controller.runWithEarlyExit(layers, { signal }), typed(TypeError, 'invalid_config', 'signal'));
    }
    await assert.rejects(controller.runWithEarlyExit(layers, { signl: new AbortController().signal }), (e) =>
      typed(TypeError, 'unknown_option', 'signl')(e) && /did you mean 'signal'/.test(e.message));
    await assert.rejects(controller.runWithEarlyExit(layers, { signal: new AbortController().signal, timeout: 5 }), typed(TypeError, 'unknown_option', 'timeout'));
    await assert.rejects(controller.runWithEarlyExit(layers, 5), typed(TypeError, 'invalid_config', 'options'));
    for (const options of [undefined, null, {}, { signal: undefined }, { signal: null }, { signal: new AbortController().signal }]) {
      assert.equal((await controller.runWithEarlyExit(layers, options)).layersExecuted.length > 0, true);
    }
  });

  test('a layers array changed while a runner is awaited', async () => {
    const controller = new ee.EarlyExitController(ee.CONSERVATIVE_EXIT_CONFIG, 3);
    const changes = [
      (list) => list.push({ name: 'late', run: () => GREEN }),
      (list) => { list.length = 1; },
      (list) => { list[2] = { name: 'other', run: () => GREEN }; },
    ];
    for (const fast of [true, false]) {
      for (const change of changes) {
        const list = [];
        const extra = fast ? 0 : 45; // more layers than the fast path takes: the JSON path
        list.push({ name: 'unit', run: async () => { await tick(); change(list); return GREEN; } });
        for (let i = 1; i < 3 + extra; i++) list.push({ name: `l${i}`, run: () => GREEN });
        await assert.rejects(controller.runWithEarlyExit(list), typed(RangeError, 'invalid_config', 'layers'));
      }
    }
  });

  test('speculate takes a count (as in Python), refuses anything else with its field', async () => {
    const executor = new ee.SpeculativeExecutor();
    const decision = { confidence: 0.9 };
    assert.deepEqual(await executor.speculate(decision, 3), await executor.speculate(decision, [1, 2, 3]));
    assert.deepEqual(await executor.speculate(decision, new Set([1, 2])), await executor.speculate(decision, 2));
    assert.equal((await executor.speculate(decision, 0)).length, 0);
    for (const bad of [-1, 2.5, NaN, Infinity, 2 ** 63]) {
      await assert.rejects(executor.speculate(decision, bad), typed(RangeError, 'invalid_config', 'skippedLayers'));
    }
    for (const bad of [{}, null, undefined, true, 'abc']) {
      await assert.rejects(executor.speculate(decision, bad), typed(TypeError, 'invalid_config', 'skippedLayers'));
    }
    await assert.rejects(executor.speculate(decision, new Array(3e7)), typed(RangeError, 'invalid_config', 'skippedLayers'));
  });

  test('verify with fewer layers than the speculations it verifies, or not a list', async () => {
    const executor = new ee.SpeculativeExecutor({ verificationLayers: 3 });
    const speculations = await executor.speculate({ confidence: 0.9 }, 4);
    let ran = 0;
    const layer = { name: 'x', run: () => { ran++; return GREEN; } };
    await assert.rejects(executor.verify(speculations, [layer]), typed(TypeError, 'invalid_config', 'layers[1]'));
    assert.equal(ran, 1);
    await assert.rejects(executor.verify(speculations, 5), typed(TypeError, 'invalid_config', 'layers'));
    await assert.rejects(executor.verify(speculations, [layer, null]), typed(TypeError, 'invalid_config', 'layers[1].run'));
    assert.equal((await executor.verify(speculations, [layer, layer, layer])).filter((s) => s.verified).length, 3);
    assert.deepEqual(await executor.verify([], 'anything'), []); // nothing to verify: the layers are not read, as in the seed
  });
});

describe(`cancellation reaches the runner (${IMPL})`, () => {
  test('runners get { signal } when the run has one, no argument otherwise', async () => {
    const seen = [];
    const layer = { name: 'unit', run(...args) { seen.push(args); return GREEN; } };
    const controller = new ee.EarlyExitController(ee.CONSERVATIVE_EXIT_CONFIG, 1);
    await controller.runWithEarlyExit([layer]);
    const { signal } = new AbortController();
    await controller.runWithEarlyExit([layer], { signal });
    assert.equal(seen[0].length, 0);
    assert.equal(seen[1].length, 1);
    assert.equal(seen[1][0].signal, signal);
  });

  test('an aborted run\'s child process is gone', async () => {
    const controller = new ee.EarlyExitController(ee.CONSERVATIVE_EXIT_CONFIG, 2);
    const abort = new AbortController();
    let child = null;
    const exited = { code: undefined, signal: undefined };
    let started;
    const spawned = new Promise((resolve) => (started = resolve));
    // The usual runner: a test command in a subprocess, killed by the run's signal.
    const run = ({ signal } = {}) => new Promise((resolve, reject) => {
      child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { signal, stdio: 'ignore' });
      child.on('spawn', started);
      child.on('error', () => {}); // the AbortError; the run rejects with the signal's reason
      child.on('exit', (code, killed) => {
        Object.assign(exited, { code, signal: killed });
        if (code === 0) resolve(GREEN);
        else reject(new Error(`exited ${code ?? killed}`));
      });
    });
    const pending = controller.runWithEarlyExit([{ name: 'unit', run }, { name: 'e2e', run }], { signal: abort.signal });
    await spawned;
    abort.abort();
    await assert.rejects(pending, (e) => e.name === 'AbortError');
    if (exited.signal === undefined) await new Promise((resolve) => child.on('exit', resolve));
    assert.equal(child.killed, true);
    assert.throws(() => process.kill(child.pid, 0), (e) => e.code === 'ESRCH');
  });
});
