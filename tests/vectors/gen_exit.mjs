// signal.json, exit_decision.json, speculation.json.
import { prng, call } from './gen_util.mjs';

const N = (s) => ({ $num: s });
const JS = ['js', 'rust'];
const T = (code, field, kind) => ({ throws: { code, field, kind } });
const PRESETS = {
  default: null,
  aggressive: { exitLayer: 0, minLambdaForExit: 60, minLambdaStability: 0.75, maxBoundaryConcentration: 0.6, speculativeTests: 8, verificationLayers: 1, adaptiveExitLayer: true, minConfidence: 0.70 },
  conservative: { exitLayer: 2, minLambdaForExit: 95, minLambdaStability: 0.92, maxBoundaryConcentration: 0.35, speculativeTests: 2, verificationLayers: 4, adaptiveExitLayer: false, minConfidence: 0.90 },
};
export { PRESETS };
const lr = (passRate, coverage, flakyRatio, extra = {}) => ({ passRate, coverage, flakyRatio, ...extra });

export function signal() {
  const v = [];
  const S = (name, r, source = 'reference', extra = {}) => ({ name, engine: 'calculateQualitySignal', source, construct: {}, calls: [call('calculateQualitySignal', r)], ...extra });
  const fixed = [
    ['perfect layer', lr(1, 1, 0)], ['all zero rates', lr(0, 0, 0)], ['everything flaky', lr(0, 0, 1)],
    ['boundary edges: all three exactly at 60', lr(0.6, 0.6, 0.4)], ['boundary edges: all three exactly at 80', lr(0.8, 0.8, 0.2)],
    ['boundary edge just outside 80', lr(0.81, 0.9, 0)], ['issues exactly 0.1 are not issues', lr(0.9, 0.9, 0.1)],
    ['partition count: passRate exactly 0.9 not counted', lr(0.9, 0.7, 0.05)], ['partition count 3', lr(0.89, 0.69, 0.051)],
    ['previousLambda 0 falls back to lambda', lr(0.95, 0.9, 0, { previousLambda: 0 })], ['previousLambda 100 kept', lr(0.95, 0.9, 0, { previousLambda: 100 })],
    ['previousLambda fractional kept', lr(0.95, 0.9, 0, { previousLambda: 42.5 })], ['floating point lambda 0.57*100', lr(0.57, 0.58, 0.01)],
    ['floating point (1-0.07)*100', lr(1, 1, 0.07)], ['extra keys and counts accepted', lr(0.97, 0.85, 0.02, { name: 'unit', durationMs: 1200, total: 100, passed: 97, failed: 3, flaky: 2, owner: 'x' })],
    ['negative zero flaky ratio', lr(1, 1, N('-0'))],
  ];
  for (const [name, r] of fixed) v.push(S(`signal: ${name}`, r));
  const r = prng(0x519);
  for (let i = 0; i < 30; i++) {
    const x = lr(r.round(r.next(), r.int(1, 4)), r.round(r.next(), r.int(1, 4)), r.round(r.next() * 0.3, r.int(1, 4)));
    if (r.chance(0.3)) x.previousLambda = r.round(r.next() * 100, 2);
    v.push(S(`signal: random layer result ${i}`, x));
  }
  const BAD = [
    [lr(1.1, 1, 0), 'passRate', 'range'], [lr(N('NaN'), 1, 0), 'passRate', 'range'], [{ coverage: 1, flakyRatio: 0 }, 'passRate', 'type'],
    [lr('1', 1, 0), 'passRate', 'type'], [lr(1, -0.1, 0), 'coverage', 'range'], [lr(1, N('Infinity'), 0), 'coverage', 'range'],
    [lr(1, 1, 2), 'flakyRatio', 'range'], [lr(1, 1, null), 'flakyRatio', 'type'], [lr(1, 1, 0, { previousLambda: 101 }), 'previousLambda', 'range'],
    [lr(1, 1, 0, { previousLambda: -1 }), 'previousLambda', 'range'], [lr(1, 1, 0, { previousLambda: null }), 'previousLambda', 'type', JS],
    [lr(1, 1, 0, { name: 5 }), 'name', 'type'], [lr(1, 1, 0, { durationMs: -1 }), 'durationMs', 'range'], [lr(1, 1, 0, { total: 1.5 }), 'total', 'range'],
    [lr(1, 1, 0, { total: 10, passed: 8, failed: 3 }), 'passed', 'range'], [lr(1, 1, 0, { total: 10, flaky: 11 }), 'flaky', 'range'],
    [lr(1, 1, 0, { failed: -1 }), 'failed', 'range'], [5, 'layerResult', 'type'], [null, 'layerResult', 'type'], [[1, 1, 0], 'layerResult', 'type'],
  ];
  for (const [x, field, kind, only] of BAD) {
    v.push({ name: `signal rejects ${JSON.stringify(x)}`, engine: 'calculateQualitySignal', source: 'hand', construct: {},
      calls: [{ ...call('calculateQualitySignal', x), expect: T('invalid_layer_result', field, kind) }], ...(only ? { only } : {}) });
  }
  // countQualityPartitions, the ADR's function the signal's partitionCount comes from: each
  // threshold at and beside its boundary, then the fixed cases; it validates as the signal does.
  const P = (name, r) => ({ name: `partitions: ${name}`, engine: 'calculateQualitySignal', source: 'reference', construct: {}, calls: [call('countQualityPartitions', r)] });
  for (const [name, r] of [
    ['none', lr(1, 1, 0)], ['passRate just below 0.9', lr(0.8999, 1, 0)], ['coverage just below 0.7', lr(1, 0.6999, 0)],
    ['flakyRatio just above 0.05', lr(1, 1, 0.0501)], ['all three at their thresholds count nothing', lr(0.9, 0.7, 0.05)],
    ['two', lr(0.5, 0.5, 0)], ['three', lr(0, 0, 1)], ...fixed,
  ]) v.push(P(name, r));
  for (const [x, field, kind] of [[lr(N('NaN'), 1, 0), 'passRate', 'range'], [{ passRate: 1, coverage: 1 }, 'flakyRatio', 'type'], [null, 'layerResult', 'type']]) {
    v.push({ name: `partitions reject ${JSON.stringify(x)}`, engine: 'calculateQualitySignal', source: 'hand', construct: {},
      calls: [{ ...call('countQualityPartitions', x), expect: T('invalid_layer_result', field, kind) }] });
  }
  return v;
}

const sig = (lambda, lambdaPrev, boundaryConcentration = 0, extra = {}) =>
  ({ lambda, lambdaPrev, boundaryEdges: 0, boundaryConcentration, partitionCount: 0, flags: 0, ...extra });

export function exitDecision() {
  const v = [];
  const E = (name, config, totalLayers, calls, source = 'reference') => ({ name, engine: 'CoherenceEarlyExit', source, construct: { config, totalLayers }, calls });
  for (const [pname, cfg] of Object.entries(PRESETS)) {
    const cases = [
      ['confident exit', sig(98, 98), 2], ['lambda too low', sig(50, 50), 3], ['lambda exactly at minimum', sig(cfg ? cfg.minLambdaForExit : 80, cfg ? cfg.minLambdaForExit : 80), 3],
      ['lambda unstable', sig(90, 60), 3], ['boundaries concentrated', sig(99, 99, 0.9), 3], ['boundary concentration exactly at max', sig(99, 99, cfg ? cfg.maxBoundaryConcentration : 0.5), 3],
      ['insufficient confidence', { default: sig(80, 94, 0.5), aggressive: sig(60, 80, 0.6), conservative: sig(95, 100, 0.35) }[pname], 3], ['high lambda but stable enough for confident exit', sig(96, 88, 0.3), 3], ['forced continue at layer 0', sig(90, 60), 0], ['lambdaPrev 0 means stability 0', sig(90, 0), 3],
      ['lambda 0 and lambdaPrev 0', sig(0, 0), 3], ['stability exactly 0.92 with high lambda', sig(92, 100), 1], ['stability exactly 0.75', sig(75, 100), 1],
      ['stability just below 0.75', sig(74.99, 100), 1], ['stability exactly at minLambdaStability', sig(85, 100), 4], ['huge layer index', sig(99, 99), 1000],
    ];
    for (const [name, s, layer] of cases) v.push(E(`${pname} preset: ${name} (layer ${layer})`, cfg, 4, [call('shouldExit', s, layer)]));
    for (let layer = 0; layer < 4; layer++) {
      v.push(E(`${pname} preset: adaptive exit layer at layer ${layer} of 4, stable and strong`, cfg, 4, [call('shouldExit', sig(97, 97), layer), call('shouldExit', sig(97, 70), layer)]));
    }
  }
  v.push(E('adaptive exit layer clamps at 0 from below', { exitLayer: 0 }, 3, [call('shouldExit', sig(99, 99), 0)]));
  v.push(E('adaptive exit layer clamps at totalLayers-1 from above', { exitLayer: 3 }, 4, [call('shouldExit', sig(50, 100), 3), call('shouldExit', sig(50, 100), 2)]));
  v.push(E('adaptive exit layer with totalLayers 1 and exitLayer 0 unstable', { exitLayer: 0 }, 1, [call('shouldExit', sig(40, 100), 0)]));
  v.push(E('exitLayer past the last layer with fixed exit layer forces continue', { exitLayer: 9, adaptiveExitLayer: false }, 4, [call('shouldExit', sig(99, 99), 3)]));
  v.push(E('adaptive exit layer minus one when stable and strong', { exitLayer: 2 }, 5, [call('shouldExit', sig(99, 99), 1), call('shouldExit', sig(99, 80), 1)]));
  v.push(E('speculativeTests 0 disables speculation on a confident exit', { speculativeTests: 0 }, 4, [call('shouldExit', sig(99, 99), 2)]));
  v.push(E('toFixed in explanations: stability 0.8475', { minLambdaStability: 0.9 }, 4, [call('shouldExit', sig(84.75, 100), 3)]));
  v.push(E('toFixed in explanations: concentration 0.0625 over max 0.06', { maxBoundaryConcentration: 0.06 }, 4, [call('shouldExit', sig(99, 99, 0.0625), 3)]));
  v.push(E('lambda printed with toString in lambda_too_low', null, 4, [call('shouldExit', sig(79.99999999999999, 80), 3), call('shouldExit', sig(0.1 + 0.2, 50), 3)]));
  v.push(E('confidence with minConfidence 1 is insufficient', { minConfidence: 1 }, 4, [call('shouldExit', sig(99, 99, 0.01), 3)]));
  v.push(E('boundaries concentrated with a hand-made signal and edges', null, 4, [call('shouldExit', sig(85, 85, 0.75, { boundaryEdges: 3, partitionCount: 3, flags: 7 }), 3)]));
  const r = prng(0xe817);
  for (let i = 0; i < 40; i++) {
    const cfg = r.pick(Object.values(PRESETS));
    const lam = r.round(r.next() * 100, r.int(0, 3));
    const prev = r.chance(0.2) ? 0 : r.round(Math.min(100, lam + (r.next() - 0.5) * 30), 2);
    const s = sig(lam, Math.max(0, prev), r.round(r.next() * 0.8, 3), { boundaryEdges: r.int(0, 3), partitionCount: r.int(0, 3) });
    v.push(E(`random exit decision ${i}`, cfg, r.int(1, 6), [call('shouldExit', s, r.int(0, 5))]));
  }
  // bad input (hand)
  const BAD = [[{ ...sig(99, 99), lambda: 101 }, 1, 'lambda', 'range'], [{ ...sig(99, 99), lambda: N('NaN') }, 1, 'lambda', 'range'],
    [{ ...sig(99, 99), lambdaPrev: '99' }, 1, 'lambdaPrev', 'type'], [{ ...sig(99, 99), boundaryEdges: 4 }, 1, 'boundaryEdges', 'range'],
    [{ ...sig(99, 99), boundaryEdges: 1.5 }, 1, 'boundaryEdges', 'range'], [{ ...sig(99, 99), boundaryConcentration: 1.1 }, 1, 'boundaryConcentration', 'range'],
    [{ ...sig(99, 99), partitionCount: -1 }, 1, 'partitionCount', 'range'], [{ ...sig(99, 99), flags: 0.5 }, 1, 'flags', 'range'],
    [{ lambda: 99 }, 1, 'lambdaPrev', 'type'], [sig(99, 99), -1, 'layer', 'range'], [sig(99, 99), 1.5, 'layer', 'range'], [sig(99, 99), '1', 'layer', 'type'],
    [null, 1, 'signal', 'type'], [7, 1, 'signal', 'type']];
  for (const [s, layer, field, kind] of BAD) {
    v.push(E(`shouldExit rejects ${field} in ${JSON.stringify(s)} at layer ${JSON.stringify(layer)}`, null, 4,
      [{ ...call('shouldExit', s, layer), expect: T('invalid_signal', field, kind) }, call('shouldExit', sig(99, 99), 3)], 'hand'));
  }
  const CBAD = [[{ exitLayer: -1 }, 4, 'exitLayer', 'range'], [{ exitLayer: 1.5 }, 4, 'exitLayer', 'range'], [{ minLambdaForExit: 101 }, 4, 'minLambdaForExit', 'range'],
    [{ minLambdaStability: N('NaN') }, 4, 'minLambdaStability', 'range'], [{ maxBoundaryConcentration: -0.1 }, 4, 'maxBoundaryConcentration', 'range'],
    [{ speculativeTests: -1 }, 4, 'speculativeTests', 'range'], [{ verificationLayers: 2.5 }, 4, 'verificationLayers', 'range'],
    [{ adaptiveExitLayer: 'yes' }, 4, 'adaptiveExitLayer', 'type'], [{ minConfidence: 1.5 }, 4, 'minConfidence', 'range'],
    [{ minConfidence: null }, 4, 'minConfidence', 'type', JS], [{ exitLayr: 1 }, 4, 'exitLayr', 'type', null, 'unknown_option'],
    [null, 0, 'totalLayers', 'range'], [null, 1.5, 'totalLayers', 'range'], [null, '4', 'totalLayers', 'type'], [null, null, 'totalLayers', 'type'],
    ['fast', 4, 'config', 'type']];
  for (const [cfg, n, field, kind, only, code] of CBAD) {
    v.push({ ...E(`CoherenceEarlyExit rejects ${JSON.stringify(cfg)} with totalLayers ${JSON.stringify(n)}`, cfg, n, [], 'hand'),
      expectThrows: { code: code ?? 'invalid_config', field, kind }, ...(only ? { only } : {}) });
  }
  return v;
}

export function speculation() {
  const v = [];
  const SP = (name, config, calls, source = 'reference') => ({ name, engine: 'SpeculativeExecutor', source, construct: { config }, calls });
  const skipped = (n) => Array.from({ length: n }, (_, i) => ({ name: `layer${i}` }));
  for (const c of [1, 0.99, 0.85, 0.8499999999999999, 0.8, 0.7, 0.6999999999999999, 0.5, 0.3, 0]) {
    v.push(SP(`speculate: confidence ${c} band`, null, [call('speculate', { confidence: c }, skipped(3))]));
  }
  v.push(SP('speculate: no skipped layers gives no speculations', null, [call('speculate', { confidence: 0.9 }, [])]));
  v.push(SP('speculate reads only confidence from the decision', null, [call('speculate', { canExit: true, confidence: 0.9, reason: 'confident_exit' }, skipped(2))]));
  const verifyCase = (name, cfg, specs, results, source = 'reference') => {
    const layers = results.map((r, i) => ({ name: `layer${i}`, results: r === undefined ? [] : [r] }));
    v.push(SP(name, cfg, [{ call: 'verify', args: [specs, layers.map(({ name }) => ({ name }))], layers }], source));
  };
  const P = (p, c = 0.9) => ({ predicted: p, confidence: c, verified: false });
  const pass = lr(1, 0.9, 0), flaky = lr(0.95, 0.9, 0.2), fail = lr(0.5, 0.9, 0.05), almost = lr(0.99, 0.5, 0.5);
  verifyCase('verify: pass predicted and passed', null, [P('pass'), P('pass')], [pass, pass]);
  verifyCase('verify: pass predicted, flaky and fail actual are mispredictions', null, [P('pass'), P('pass')], [flaky, fail]);
  verifyCase('verify: passRate exactly 0.99 passes even when flaky', null, [P('flaky', 0.75)], [almost]);
  verifyCase('verify: flakyRatio exactly 0.1 is fail, not flaky', null, [P('flaky', 0.75)], [lr(0.9, 1, 0.1)]);
  verifyCase('verify: only verificationLayers are run (default 2)', null, [P('pass'), P('pass'), P('pass'), P('pass')], [pass, fail, undefined, undefined]);
  verifyCase('verify: verificationLayers 0 runs nothing', { verificationLayers: 0 }, [P('fail', 0.6), P('fail', 0.6)], [undefined, undefined]);
  verifyCase('verify: verificationLayers larger than the list', { verificationLayers: 5 }, [P('fail', 0.6)], [fail]);
  verifyCase('verify: fail predicted and failed is correct', { verificationLayers: 1 }, [P('fail', 0.6), P('fail', 0.6)], [fail, undefined]);
  verifyCase('verify: empty speculations', null, [], []);
  verifyCase('verify: runner throwing propagates', null, [P('pass')], [{ $throw: 'runner exploded' }], 'hand');
  verifyCase('verify: runner returning an invalid result is a typed error', null, [P('pass'), P('pass')], [pass, lr(2, 1, 0)], 'hand');
  for (const [d, field, kind] of [[{ confidence: 1.5 }, 'decision.confidence', 'range'], [{ confidence: N('NaN') }, 'decision.confidence', 'range'],
    [{ confidence: '0.9' }, 'decision.confidence', 'type'], [{}, 'decision.confidence', 'type']]) {
    v.push(SP(`speculate rejects ${JSON.stringify(d)}`, null, [{ ...call('speculate', d, skipped(1)), expect: T('invalid_signal', field, kind) }], 'hand'));
  }
  return v;
}
