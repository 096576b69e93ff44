// Composed stop policies through the JS API (native and wasm, by EARLYEXIT_IMPL): the tree a
// preset stands for decides exactly as the engine's fast path (same objects but `fired`, the
// source asked at the same calls), the builders, replay, and bad trees naming their path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import ee from './impl.mjs';

const { EarlyStopping, policy: p, replayLoops } = ee;

function rng(seed) {
  let s = seed >>> 0;
  return (n) => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s % n;
  };
}

const CONFIGS = [
  null,
  { minIterations: 3, maxIterations: 9, maxTotalTokens: 900, regressionTolerance: 5, noImprovementPatience: 4, plateauMinQuality: 50 },
  { requireVerification: false, enablePlateauDetection: false, maxTotalCostUsd: 0.5, regressionTolerance: 1 },
  { plateauConsecutiveCount: 5, plateauImprovementThreshold: 2, plateauMode: 'absolute', plateauDeltaSource: 'computed', minIterations: 2 },
  // The floor patience rule (its own patience while the best is at or below the floor).
  { noImprovementPatience: 2, floorPatience: 5, floorQuality: 45 },
  { noImprovementPatience: 6, floorPatience: 2, floorQuality: 40, enablePlateauDetection: false },
  { floorPatience: 3, floorQuality: 50 },
];

test('the tree of a config decides as the config, source calls included', () => {
  const next = rng(7);
  for (const config of CONFIGS) {
    for (let run = 0; run < 25; run++) {
      const calls = [0, 0];
      let detected = false;
      const source = (k) => ({ detectDiminishingReturns: () => { calls[k]++; return { detected, iteration: 2, reason: 'flat' }; } });
      const plain = new EarlyStopping(config, source(0));
      const composed = new EarlyStopping(config, source(1), { preset: 'seed', config: config ?? {} });
      let previous = next(60);
      for (let i = 1; i <= 14; i++) {
        const q = Math.min(100, Math.max(0, previous + next(21) - 8));
        const result = { quality_score: q, confidence: next(101) / 100, verification_status: ['passed', 'failed', 'skipped'][next(3)], quality_delta: q - previous };
        if (next(4) !== 0) result.tokens_used = next(200);
        if (next(3) !== 0) { result.token_cost_usd = next(10) / 100; result.execution_time_ms = next(900); }
        previous = q;
        plain.recordIterationResult(i, result);
        composed.recordIterationResult(i, result);
        detected = next(5) === 0;
        const a = plain.shouldStop();
        const { fired, ...b } = composed.shouldStop();
        assert.deepStrictEqual(b, a, `${JSON.stringify(config)} at ${i}`);
        assert.equal(fired.length, a.stop ? 1 : 0);
        assert.deepStrictEqual(calls[1], calls[0]);
        assert.equal(composed.getStoppingReason(), plain.getStoppingReason());
      }
      assert.deepStrictEqual(composed.getConfig(), plain.getConfig());
    }
  }
});

test('floorPatience builds the floor patience condition', () => {
  assert.deepStrictEqual(p.floorPatience(3, { floor: 40, above_patience: 1 }), { condition: 'floor_patience', patience: 3, floor: 40, above_patience: 1 });
  const engine = new EarlyStopping(null, null, p.stopPolicy(p.floorPatience(2, { floor: 40 })));
  const decisions = [30, 20, 25].map((q, i) => {
    engine.recordIterationResult(i + 1, { quality_score: q, confidence: 0.5, verification_status: 'failed', quality_delta: 0 });
    return engine.shouldStop();
  });
  assert.deepStrictEqual(decisions.map((d) => [d.stop, d.trigger]), [[false, 'none'], [false, 'none'], [true, 'no_improvement']]);
  assert.deepStrictEqual(decisions[2].fired.map((f) => [f.condition, f.path]), [['floor_patience', 'any[0]']]);
});

test('the builders compose and a decision lists what fired', () => {
  const when = p.anyOf(p.maxIterations(9), p.notBefore(2, p.anyOf(p.highConfidence(), p.allOf(p.qualityPlateau({ count: 3 }), p.noImprovement(3)))));
  assert.deepStrictEqual(when.any[1].then.any[1], { all: [{ condition: 'quality_plateau', count: 3 }, { condition: 'no_improvement', patience: 3 }] });
  const engine = new EarlyStopping(null, null, p.stopPolicy(when, { returns: 'best' }));
  const decisions = [80, 80, 80, 80].map((q, i) => {
    engine.recordIterationResult(i + 1, { quality_score: q, confidence: 0.5, verification_status: 'failed', quality_delta: i === 0 ? q : 0 });
    return engine.shouldStop();
  });
  assert.equal(decisions[0].reason, 'Warm-up: iteration 1 of 2');
  assert.deepStrictEqual(decisions.map((d) => d.stop), [false, false, false, true]);
  assert.deepStrictEqual(decisions[3].fired.map((f) => [f.condition, f.path]), [
    ['quality_plateau', 'any[1].then.any[1].all[0]'],
    ['no_improvement', 'any[1].then.any[1].all[1]'],
  ]);
  assert.equal(engine.policy.returns, 'best');
  // reset() and configure() fold the state again from the history.
  engine.reset();
  assert.equal(engine.shouldStop().reason, 'No iterations completed yet');
  const plain = new EarlyStopping();
  plain.recordIterationResult(1, { quality_score: 50, confidence: 0.5, verification_status: 'failed', quality_delta: 0 });
  assert.equal('fired' in plain.shouldStop(), false);
});

test('writes from outside and configure are seen by the policy', () => {
  const engine = new EarlyStopping(null, null, p.stopPolicy(p.maxIterations(3)));
  for (let i = 1; i <= 2; i++) engine.recordIterationResult(i, { quality_score: 50, confidence: 0.5, verification_status: 'failed', quality_delta: 0 });
  assert.equal(engine.shouldStop().stop, false);
  engine.iterationHistory.push({ iteration_number: 3, quality_score: 50, confidence: 0.5, verification_status: 'failed', quality_delta: 0, timestamp: '2026-01-01T00:00:00.000Z' });
  assert.equal(engine.shouldStop().trigger, 'max_iterations');
  engine.iterationHistory.length = 1;
  assert.equal(engine.shouldStop().stop, false);
});

test('replayLoops takes the same form', () => {
  const runs = [{ id: 'a', iterations: [50, 60, 55, 70].map((q) => ({ quality_score: q, confidence: 0.5, verification_status: 'failed' })) }];
  const replay = replayLoops(runs, p.stopPolicy(p.anyOf(p.maxIterations(2), p.noImprovement(1)), { returns: 'best' }));
  assert.deepStrictEqual([replay.runs[0].trigger, replay.runs[0].iterations_run, replay.runs[0].returned_iteration], ['max_iterations', 2, 2]);
  assert.deepStrictEqual(replay.policy.any, [{ condition: 'max_iterations', limit: 2 }, { condition: 'no_improvement', patience: 1 }]);
});

test('bad policies throw typed errors naming the path', () => {
  const cases = [
    [{ any: [p.highConfidence(), { condition: 'no_improvement', patience: 0 }] }, RangeError, 'policy.any[1].patience'],
    [{ any: [p.highConfidence(), { condition: 'no_improvement' }] }, TypeError, 'policy.any[1].patience'],
    [p.kOf(3, p.highConfidence()), RangeError, 'policy.k_of'],
    [{ any: [p.highConfidence()], analytics: true }, RangeError, 'policy.analytics'],
    [p.allOf(), RangeError, 'policy.all'],
    [{ any: [() => 1] }, TypeError, 'policy.any[0]'],
  ];
  for (const [policy, type, field] of cases) {
    assert.throws(() => new EarlyStopping(null, null, policy), (e) => e instanceof type && e.field === field && e.code === 'invalid_config', JSON.stringify(policy));
  }
});

test('a snapshot carries the policy, and a contradicting one is refused', () => {
  const policy = p.stopPolicy(p.anyOf(p.maxIterations(3), p.noImprovement(5)), { returns: 'best' });
  const engine = new EarlyStopping(null, null, policy);
  for (let i = 1; i <= 2; i++) engine.recordIterationResult(i, { quality_score: 50 + i, confidence: 0.5, verification_status: 'failed', quality_delta: 1, timestamp: '2026-01-01T00:00:00.000Z' });
  const snapshot = engine.toJSON();
  assert.deepStrictEqual(snapshot.policy, engine.policy);
  assert.deepStrictEqual(Object.keys(snapshot).slice(-2), ['stoppingDetails', 'policy']);
  // Restored from the object or its text, the policy decides without being given again.
  for (const given of [snapshot, JSON.stringify(snapshot)]) {
    const restored = EarlyStopping.fromJSON(given);
    assert.deepStrictEqual(restored.policy, engine.policy);
    restored.recordIterationResult(3, { quality_score: 40, confidence: 0.5, verification_status: 'failed', quality_delta: -13 });
    const decision = restored.shouldStop();
    assert.equal(decision.trigger, 'max_iterations');
    assert.deepStrictEqual(decision.fired.map((f) => f.path), ['any[0]']);
  }
  // The same policy given again is accepted; another one is an error and no engine.
  assert.deepStrictEqual(EarlyStopping.fromJSON(snapshot, null, policy).policy, engine.policy);
  assert.throws(() => EarlyStopping.fromJSON(snapshot, null, p.stopPolicy(p.maxIterations(4))),
    (e) => e instanceof RangeError && e.code === 'invalid_config' && e.field === 'policy');
  // A snapshot without one takes the given policy; a default snapshot has no policy key.
  const plain = new EarlyStopping();
  assert.equal('policy' in plain.toJSON(), false);
  assert.deepStrictEqual(EarlyStopping.fromJSON(plain.toJSON(), null, policy).policy, engine.policy);
  // A bad policy in a snapshot names its path under invalid_snapshot.
  const bad = { ...snapshot, policy: { any: [p.highConfidence(), { condition: 'no_improvement', patience: 0 }] } };
  assert.throws(() => EarlyStopping.fromJSON(bad), (e) => e instanceof RangeError && e.code === 'invalid_snapshot' && e.field === 'policy.any[1].patience');
  assert.throws(() => EarlyStopping.fromJSON({ ...snapshot, policyArtifact: 'abc' }), (e) => e.code === 'invalid_snapshot' && e.field === 'policyArtifact');
  const digest = 'a'.repeat(64);
  assert.equal(EarlyStopping.fromJSON({ ...snapshot, policyArtifact: digest }).toJSON().policyArtifact, digest);
});

test('a snapshot whose policy keys are null has no policy', () => {
  const plain = new EarlyStopping().toJSON();
  const restored = EarlyStopping.fromJSON({ ...plain, policy: null, policyArtifact: null });
  assert.equal(restored.policy, null);
  assert.deepStrictEqual(restored.toJSON(), plain);
});
