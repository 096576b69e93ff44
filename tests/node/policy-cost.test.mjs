// What a decision under a stop policy costs, counted, not timed (native and wasm, by
// EARLYEXIT_IMPL): the policy is parsed and its state made once per engine (a native object
// holds them), and each decision sends only the records not folded yet. The state follows
// writes from outside (config, history, reset), and a policy object lost with a trapped wasm
// instance is made again from the history.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createRequire } from 'node:module';
import { IMPL, ROOT } from './impl.mjs';

// The layer over the package's native module, with its test hooks (the policy counters); in
// wasm with a `resetInstance` the tests drive (a trap of the replay instance, simulated).
const require = createRequire(import.meta.url);
const dir = path.join(ROOT, 'bindings', IMPL === 'wasm' ? 'wasm' : 'node');
let trapNext = false; // the next PolicyEngine call traps
function nativeModule() {
  let base;
  if (IMPL === 'wasm') {
    const engines = require(path.join(dir, 'pkg/nodejs/earlyexit_wasm.js'));
    const replay = require(path.join(dir, 'pkg/nodejs/earlyexit_replay.js'));
    const { REPLAY_OPS } = require(path.join(dir, 'contract.cjs'));
    base = { ...engines, exec: (op, args) => (REPLAY_OPS[op] === undefined ? engines.exec : replay.exec)(op, args), PolicyEngine: replay.PolicyEngine };
  } else {
    base = { ...require(path.join(dir, 'native.cjs')) };
  }
  const Inner = base.PolicyEngine;
  base.PolicyEngine = function PolicyEngine() {
    const inner = new Inner();
    return {
      call(op, args) {
        if (trapNext) {
          trapNext = false;
          throw new WebAssembly.RuntimeError('unreachable (simulated)');
        }
        return inner.call(op, args);
      },
      free() {},
    };
  };
  // (wasm) Nothing is really reset: the guard only learns that the replay instance went away.
  if (IMPL === 'wasm') base.resetInstance = (op) => op === undefined;
  return base;
}
const { api: ee, ready, testing } = require(path.join(dir, 'api.cjs'))(nativeModule());
ready();
const { EarlyStopping, policy: p } = ee;

const record = (i) => ({ quality_score: 40 + ((i * 7) % 23), confidence: 0.5 + (i % 5) / 10, verification_status: i % 4 ? 'failed' : 'passed', quality_delta: (i % 3) - 1, tokens_used: 100 });
const counts = () => testing.policy();
const since = (before) => {
  const now = counts();
  return { opens: now.opens - before.opens, steps: now.steps - before.steps, records: now.records - before.records, chars: now.chars - before.chars };
};
// A large composed policy: its JSON is far longer than one record.
const BIG = p.stopPolicy(p.anyOf(
  p.notBefore(3, p.allOf(p.highConfidence({ threshold: 0.9 }), p.noImprovement(50))),
  p.kOf(2, p.qualityPlateau({ count: 4 }), p.qualityRegression(30, 3), p.maxTotalTokens(1e9), p.floorPatience(80, { floor: 1 })),
  p.maxIterations(10_000), p.maxTotalCostUsd(1e6), p.maxWallClockMs(1e12), p.noImprovement(400),
), { returns: 'best' });

test('a decision sends the new records only: the policy is parsed once per engine', () => {
  const loop = new EarlyStopping({ maxIterations: 100_000 }, null, BIG);
  const policyText = JSON.stringify(loop.policy).length;
  assert.ok(policyText > 600, `policy text ${policyText}`);
  const before = counts();
  const N = 300;
  for (let i = 1; i <= N; i++) {
    loop.recordIterationResult(i, record(i));
    assert.equal(loop.shouldStop().stop, false);
  }
  const work = since(before);
  assert.equal(work.opens, 1); // one parse of the policy and the config, one fresh state
  assert.equal(work.steps, N);
  assert.equal(work.records, N); // each record crossed once
  // What crosses per decision is one record, whatever the policy's or the history's size.
  assert.ok(work.chars / N < 200, `chars per decision: ${work.chars / N}`);
  // Several records at once (recorded without deciding) cross in one step.
  for (let i = N + 1; i <= N + 5; i++) loop.recordIterationResult(i, record(i));
  const more = counts();
  loop.shouldStop();
  assert.deepEqual({ ...since(more), chars: 0 }, { opens: 0, steps: 1, records: 5, chars: 0 });
});

test('the state follows writes from outside, reset() and restores, and decides as a fresh engine', () => {
  const policy = { preset: 'recommended' };
  const fresh = (config, history) => {
    const e = new EarlyStopping(config, null, policy);
    for (const r of history) e.recordIterationResult(r.iteration_number, r);
    return e.shouldStop();
  };
  const loop = new EarlyStopping({ noImprovementPatience: 6 }, null, policy);
  for (let i = 1; i <= 8; i++) {
    loop.recordIterationResult(i, record(i));
    loop.shouldStop();
  }
  // An appended record through the history view: folded in, no new state.
  let before = counts();
  loop.iterationHistory.push({ iteration_number: 9, ...record(9) });
  loop.shouldStop();
  assert.deepEqual([since(before).opens, since(before).records], [0, 1]);
  // A config write: the state is made again over the new config, from the whole history.
  before = counts();
  loop.config.noImprovementPatience = 2;
  let decided = loop.shouldStop();
  assert.deepEqual([since(before).opens, since(before).records], [1, 9]);
  assert.deepEqual(decided, fresh({ noImprovementPatience: 2 }, loop.getIterationHistory()));
  // A record rewritten in place: made again too.
  loop.iterationHistory[0] = { ...loop.getIterationHistory()[0], quality_score: 99 };
  before = counts();
  decided = loop.shouldStop();
  assert.deepEqual([since(before).opens, since(before).records], [1, 9]);
  assert.deepEqual(decided, fresh({ noImprovementPatience: 2 }, loop.getIterationHistory()));
  // reset(): a fresh state at the next decision, nothing to fold.
  loop.reset();
  before = counts();
  decided = loop.shouldStop();
  assert.deepEqual([since(before).opens, since(before).records], [1, 0]);
  assert.deepEqual(decided, fresh({ noImprovementPatience: 2 }, []));
  // A restored engine has its own object.
  for (let i = 1; i <= 4; i++) loop.recordIterationResult(i, record(i));
  const copy = EarlyStopping.fromJSON(loop.toJSON());
  assert.deepEqual(copy.policy, loop.policy);
  assert.deepEqual(copy.shouldStop(), loop.shouldStop());
  copy.recordIterationResult(5, record(5));
  assert.notDeepEqual(copy.getIterationHistory().length, loop.getIterationHistory().length);
  assert.deepEqual(copy.shouldStop(), fresh({ noImprovementPatience: 2 }, copy.getIterationHistory()));
  copy.free(); // releases its policy object; a use after that is the freed error
  assert.throws(() => copy.shouldStop(), (e) => e.constructor === Error && /free/.test(e.message));
});

test('a bad report from the source changes nothing; the source is asked as before', () => {
  let answer = { detected: 'yes' };
  let asked = 0;
  const source = { detectDiminishingReturns: () => (asked++, answer) };
  const policy = p.stopPolicy(p.anyOf(p.diminishingReturns(), p.maxIterations(50)));
  const loop = new EarlyStopping(null, source, policy);
  loop.recordIterationResult(1, record(1));
  assert.throws(() => loop.shouldStop(), (e) => e.code === 'invalid_analytics');
  assert.equal(asked, 1);
  answer = { detected: true, reason: 'flat', iteration: 1 };
  const decided = loop.shouldStop();
  assert.equal(asked, 2);
  assert.equal(decided.stop, true);
  const control = new EarlyStopping(null, source, policy);
  control.recordIterationResult(1, record(1));
  assert.deepEqual(control.shouldStop(), decided);
});

const WASM_ONLY = IMPL !== 'wasm' && 'a wasm instance only (EARLYEXIT_IMPL=wasm)';
test('a policy object lost with a trapped instance is made again from the history', { skip: WASM_ONLY }, () => {
  const policy = { preset: 'recommended' };
  const loop = new EarlyStopping(null, null, policy);
  const control = new EarlyStopping(null, null, policy);
  for (let i = 1; i <= 5; i++) {
    loop.recordIterationResult(i, record(i));
    control.recordIterationResult(i, record(i));
    assert.deepEqual(loop.shouldStop(), control.shouldStop());
  }
  loop.recordIterationResult(6, record(6));
  control.recordIterationResult(6, record(6));
  trapNext = true;
  assert.throws(() => loop.shouldStop(), (e) => e.code === 'instance_trapped' && e.field === 'instance');
  // Every policy object of that instance is gone: each engine makes its own again, once.
  const before = counts();
  const decided = loop.shouldStop();
  const work = since(before);
  assert.equal(work.opens, 1);
  assert.equal(work.records, 1 + 6); // the call refused by the dead object, then the whole history
  assert.deepEqual(decided, control.shouldStop());
  for (let i = 7; i <= 9; i++) {
    loop.recordIterationResult(i, record(i));
    control.recordIterationResult(i, record(i));
    assert.deepEqual(loop.shouldStop(), control.shouldStop());
  }
});
