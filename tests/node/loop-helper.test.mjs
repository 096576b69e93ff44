// Loop, the refine-loop helper (docs/loop-helper.md), on both builds: the shared vectors
// (tests/vectors/loop_helper/vectors.json, which the Python suite runs too), then the
// helper's own rules: outputs kept, completion, scale, fingerprints, runs, snapshots, errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ee, { IMPL, ROOT } from './impl.mjs';

const { Loop, policy, isEarlyExitError } = ee;
const { vectors } = JSON.parse(readFileSync(path.join(ROOT, 'tests', 'vectors', 'loop_helper', 'vectors.json'), 'utf8'));
const sha256 = (data) => createHash('sha256').update(data).digest('hex');

for (const v of vectors) {
  test(`loop vector (${IMPL}): ${v.name}`, () => {
    const loop = new Loop(v.options);
    const triggers = v.steps.map((s) => loop.step(s.output, s.args).trigger);
    assert.deepEqual(triggers, v.expect.triggers);
    const best = loop.best;
    assert.deepEqual({ iteration: best.iteration, quality: best.quality }, v.expect.best);
    assert.deepEqual(loop.output, v.expect.output);
    assert.deepEqual(loop.history.map((r) => r.fingerprint ?? null), v.expect.fingerprints);
    if (v.finish !== undefined) {
      const run = loop.finish(v.finish);
      assert.equal(run.id, v.expect.run.id);
      assert.equal(run.dataset, v.expect.run.dataset);
      assert.deepEqual(run.iterations.map((i) => i.good ?? null), v.expect.run.good);
    }
  });
}

test('best, last and output; only the kept outputs are held', () => {
  const loop = new Loop({ scale: 1 });
  assert.equal(loop.best, null);
  assert.equal(loop.output, null);
  assert.equal(loop.decision, null);
  const outputs = [];
  for (let i = 0; i < 50; i++) {
    const output = { draft: i };
    outputs.push(output);
    loop.step(output, { quality: i === 3 ? 0.99 : 0.1, fingerprint: String(i) });
    if (loop.decision.stop) break;
  }
  assert.equal(loop.best.iteration, 4);
  assert.equal(loop.best.output, outputs[3]); // the very object, not a copy
  assert.equal(loop.best.quality, 0.99);
  assert.equal(loop.output, outputs[3]);
  assert.equal(outputs.length, 9);
  assert.equal(loop.last.output, outputs.at(-1));
  assert.equal(loop.decision.trigger, 'no_improvement');
});

test('done stops with completed, over a cap on the same step, and hands back that output', () => {
  const loop = new Loop({ preset: 'recommended', maxIterations: 2 });
  assert.equal(loop.step('good', { quality: 95 }).stop, false);
  const d = loop.step('finished', { quality: 60, done: true });
  assert.equal(d.trigger, 'completed');
  assert.deepEqual(d.details, { completed_iteration: 2 });
  assert.equal(loop.output, 'finished');
  assert.equal(loop.best.output, 'good');
  assert.equal(loop.history[1].completed, true);
});

test('scale: 1 maps to 0..100; a score off the scale is refused and changes nothing', () => {
  const loop = new Loop({ scale: 1 });
  loop.step('a', { quality: 0.5 });
  assert.equal(loop.history[0].quality_score, 50);
  assert.throws(() => loop.step('b', { quality: 1.5 }), (e) => e instanceof RangeError && e.code === 'invalid_result' && e.field === 'quality');
  assert.equal(loop.history.length, 1);
  assert.equal(loop.step('b', { quality: 0.75 }).best_quality_score, 75);
  assert.equal(loop.history[1].quality_delta, 25);
});

test('errors name the argument: scale, quality, fingerprint, task, dataset, and more', () => {
  const cases = [
    [() => new Loop({ scale: 10 }), 'invalid_config', 'scale', RangeError],
    [() => new Loop({ scale: '1' }), 'invalid_config', 'scale', TypeError],
    [() => new Loop({ task: 17 }), 'invalid_config', 'task', TypeError],
    [() => new Loop({ dataset: ['d'] }), 'invalid_config', 'dataset', TypeError],
    [() => new Loop({ runLabel: 1 }), 'invalid_config', 'runLabel', TypeError],
    [() => new Loop({ maxIterations: 0 }), 'invalid_config', 'maxIterations', RangeError],
    [() => new Loop({ fingerprintOf: 'sha' }), 'invalid_config', 'fingerprintOf', TypeError],
    [() => new Loop({ maxIteration: 3 }), 'unknown_option', 'maxIteration', TypeError],
    [() => new Loop({ preset: 'fastest' }), 'invalid_config', 'policy', RangeError],
    [() => Loop.fromJSON('{"engine":'), 'invalid_snapshot', 'snapshot', null],
  ];
  for (const [make, code, field, kind] of cases) {
    assert.throws(make, (e) => isEarlyExitError(e) && e.code === code && e.field.startsWith(field) && (kind === null || e instanceof kind), `${code} ${field}`);
  }
  const loop = new Loop();
  const steps = [
    [{ quality: 101 }, 'quality'],
    [{ quality: 'high' }, 'quality'],
    [{}, 'quality'],
    [{ quality: 50, fingerprint: 7 }, 'fingerprint'],
    [{ quality: 50, fingerprint: 'x'.repeat(257) }, 'fingerprint'],
    [{ quality: 50, confidence: 2 }, 'confidence'],
    [{ quality: 50, verified: 'green' }, 'verified'],
    [{ quality: 50, tokens: -1 }, 'tokens'],
    [{ quality: 50, costUsd: Infinity }, 'costUsd'],
    [{ quality: 50, timeMs: NaN }, 'timeMs'],
    [{ quality: 50, files: 'a.py' }, 'files'],
    [{ quality: 50, done: 'yes' }, 'done'],
    [{ quality: 50, cost_usd: 1 }, 'cost_usd'],
  ];
  for (const [args, field] of steps) {
    assert.throws(() => loop.step('x', args), (e) => isEarlyExitError(e) && e.field === field, field);
  }
  assert.equal(loop.history.length, 0);
  assert.throws(() => loop.finish('yes'), (e) => isEarlyExitError(e) && e.field === 'good');
  assert.throws(() => new Loop({ fingerprintOf: (o) => 5 }).step('x', { quality: 1 }), (e) => isEarlyExitError(e) && e.field === 'fingerprint');
});

test('the scale notice is printed once when 0..1 scores meet scale 100', async () => {
  const seen = [];
  const listener = (w) => seen.push(w);
  process.on('warning', listener);
  try {
    for (let n = 0; n < 2; n++) {
      const loop = new Loop();
      for (const q of [0.2, 0.5, 0.7, 0.8]) loop.step('x', { quality: q });
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  } finally {
    process.off('warning', listener);
  }
  const ours = seen.filter((w) => /scale=1/.test(w.message));
  assert.equal(ours.length, 1); // once per process (each test file runs in its own)
});

test('automatic fingerprints: strings, bytes, canonical JSON; none for other objects', () => {
  const loop = new Loop({ policy: policy.stopPolicy(policy.anyOf(policy.maxIterations(100))) });
  const bytes = new Uint8Array([0, 255, 16]);
  const outputs = ['héllo', bytes, { b: 1, a: [true, null, 'x'] }, [1.5, -0, 1e21], 42, null, new Date(0), new Map(), () => 1, { nested: new Date(0) }, undefined];
  for (const o of outputs) loop.step(o, { quality: 50 });
  const fps = loop.history.map((r) => r.fingerprint ?? null);
  assert.equal(fps[0], sha256(Buffer.from('héllo', 'utf8')));
  assert.equal(fps[1], sha256(Buffer.from(bytes)));
  assert.equal(fps[2], sha256('{"a":[true,null,"x"],"b":1}'));
  assert.equal(fps[3], sha256('[1.5,0,1e+21]'));
  assert.equal(fps[4], sha256('42'));
  assert.equal(fps[5], sha256('null'));
  assert.deepEqual(fps.slice(6), [null, null, null, null, null]);
  // A Buffer is a Uint8Array: its bytes.
  const other = new Loop();
  other.step(Buffer.from('héllo'), { quality: 50 });
  assert.equal(other.history[0].fingerprint, fps[0]);
  // fingerprintOf replaces it (null: none), and a given fingerprint wins over both.
  const custom = new Loop({ fingerprintOf: (o) => (o === 'skip' ? null : 'fp:' + o) });
  custom.step('a', { quality: 1 });
  custom.step('skip', { quality: 1 });
  custom.step('b', { quality: 1, fingerprint: 'given' });
  assert.deepEqual(custom.history.map((r) => r.fingerprint ?? null), ['fp:a', null, 'given']);
});

test('unchanged and revisit fire from repeated outputs', () => {
  const unchanged = new Loop({ policy: { any: [policy.unchanged(2)] } });
  const triggers = ['same', 'same', 'same'].map((o) => unchanged.step(o, { quality: 50 }).trigger);
  assert.deepEqual(triggers, ['none', 'none', 'unchanged']);
  const revisit = new Loop({ policy: policy.stopPolicy(policy.revisit(3)) });
  const seen = [{ v: 'A' }, { v: 'B' }, { v: 'C' }, { v: 'A' }].map((o) => revisit.step(o, { quality: 50 }).trigger);
  assert.deepEqual(seen, ['none', 'none', 'none', 'revisit']);
  assert.deepEqual(revisit.decision.details.fingerprint, revisit.history[0].fingerprint);
  const done = new Loop({ policy: policy.stopPolicy(policy.completed()) });
  assert.equal(done.step('x', { quality: 1, done: true }).trigger, 'completed');
});

test('run() and finish(): the replay form, one id per loop', () => {
  const loop = new Loop({ scale: 1, dataset: 'd' });
  loop.step('a', { quality: 0.3, files: ['a.py'], error: 'E1', tokens: 10 });
  loop.step('b', { quality: 0.6, good: true });
  const run = loop.run();
  assert.match(run.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(loop.run().id, run.id);
  assert.equal(run.dataset, 'd');
  assert.equal(run.iterations.length, 2);
  assert.deepEqual(run.iterations[0].artifacts_modified, ['a.py']);
  assert.equal(run.iterations[0].error, 'E1');
  assert.equal(run.iterations[0].iteration_number, undefined);
  assert.equal(run.iterations[1].good, true);
  const finished = loop.finish(false);
  assert.equal(finished.id, run.id);
  assert.equal(finished.iterations[1].good, false); // the output's iteration (the best)
  assert.deepEqual(ee.replayLoops([finished], 'recommended').summary.runs, 1);
});

test('toJSON / fromJSON round trip, with and without outputs', () => {
  const loop = new Loop({ scale: 1, maxIterations: 5, task: 't', runLabel: 'r' });
  loop.step({ text: 'a' }, { quality: 0.4, good: true });
  loop.step({ text: 'b' }, { quality: 0.9 });
  loop.step({ text: 'c' }, { quality: 0.5, done: true });
  const text = JSON.stringify(loop);
  const back = Loop.fromJSON(text);
  assert.deepEqual(back.best, loop.best);
  assert.deepEqual(back.last, loop.last);
  assert.deepEqual(back.output, { text: 'c' });
  assert.deepEqual(back.decision, loop.decision);
  assert.deepEqual(back.history, loop.history);
  assert.deepEqual(back.run(), loop.run());
  assert.deepEqual(JSON.stringify(back), text);
  // It goes on where it was: the next step is iteration 4.
  const more = Loop.fromJSON(loop.toJSON());
  more.step({ text: 'd' }, { quality: 0.95 });
  assert.equal(more.history.length, 4);
  assert.equal(more.best.iteration, 4);
  // Outputs that are not JSON values.
  const odd = new Loop();
  odd.step(new Map([[1, 2]]), { quality: 50 });
  assert.throws(() => odd.toJSON(), (e) => isEarlyExitError(e) && e.code === 'invalid_snapshot' && e.field === 'best.output');
  const bare = odd.toJSON({ outputs: false });
  assert.equal(bare.best.output, undefined);
  assert.equal(Loop.fromJSON(bare).best.output, null);
  assert.throws(() => odd.toJSON({ outputs: 'no' }), (e) => isEarlyExitError(e) && e.field === 'outputs');
});

test('calibration artifacts and policies are accepted; free() ends the loop', () => {
  const runs = [];
  for (let r = 0; r < 30; r++) {
    runs.push({ id: 'r' + r, iterations: [10, 40, 70, 75, 76].map((q) => ({ quality_score: q, confidence: 0.5, verification_status: 'skipped' })) });
  }
  let calibration;
  try {
    calibration = ee.calibrateLoopPolicy(runs, 0.2, 0.2);
  } catch {
    calibration = null;
  }
  if (calibration !== null && calibration.certified) {
    const loop = new Loop({ policy: calibration });
    assert.equal(loop.step('x', { quality: 10 }).stop, false);
    const fromArtifact = new Loop({ artifact: calibration.artifact });
    assert.equal(fromArtifact.step('x', { quality: 10 }).stop, false);
  }
  assert.throws(() => new Loop({ artifact: { kind: 'loop' } }), (e) => isEarlyExitError(e) && e.code === 'invalid_artifact');
  const loop = new Loop({ policy: 'seed' });
  loop.free();
  assert.throws(() => loop.step('x', { quality: 1 }), /freed/);
});
