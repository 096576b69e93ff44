// pyramid_reference.json (runWithEarlyExit), pyramid_steps.json (PyramidRun), pyramid_errors.json.
import { prng, call } from './gen_util.mjs';
import { evaluate } from './driver.mjs';
import { PRESETS } from './gen_exit.mjs';

const N = (s) => ({ $num: s });
const JS = ['js', 'rust'];
const T = (code, field, kind) => ({ throws: { code, field, kind } });
const NAMES = ['unit', 'integration', 'contract', 'e2e', 'perf', 'chaos'];
const lr = (passRate, coverage, flakyRatio, extra = {}) => ({ passRate, coverage, flakyRatio, ...extra });
const GOOD = lr(1, 0.95, 0), OK = lr(0.99, 0.9, 0.01), MID = lr(0.9, 0.85, 0.05), BAD = lr(0.6, 0.5, 0.2), FLAKY = lr(0.97, 0.9, 0.15);

const layersOf = (results, costs = []) => results.map((r, i) => {
  const l = { name: NAMES[i % 6] + (i >= 6 ? i : '') };
  if (costs[i] !== undefined && costs[i] !== null) l.costMs = costs[i];
  l.results = r === undefined ? [] : [r];
  return l;
});
const run = (layers) => ({ call: 'runWithEarlyExit', args: [], layers });
const C = (name, config, totalLayers, calls, source = 'reference', extra = {}) =>
  ({ name, engine: 'EarlyExitController', source, construct: { config, totalLayers }, calls, ...extra });

function randomResult(r) {
  const kind = r.pick(['good', 'good', 'ok', 'mid', 'bad', 'flaky', 'random']);
  if (kind === 'random') return lr(r.round(r.next(), 3), r.round(r.next(), 3), r.round(r.next() * 0.3, 3));
  const base = { good: GOOD, ok: OK, mid: MID, bad: BAD, flaky: FLAKY }[kind];
  return { ...base, passRate: Math.min(1, r.round(base.passRate + (r.next() - 0.5) * 0.02, 3)) };
}

export function pyramidReference() {
  const v = [];
  for (const [pname, cfg] of Object.entries(PRESETS)) {
    for (let n = 1; n <= 6; n++) {
      v.push(C(`${pname} preset: ${n} perfect layers`, cfg, n, [run(layersOf(Array(n).fill(GOOD), [100, 1000, 5000, 20000, 60000, 90000]))]));
      v.push(C(`${pname} preset: ${n} failing layers`, cfg, n, [run(layersOf(Array(n).fill(BAD), [10, 20, 30, 40, 50, 60]))]));
      v.push(C(`${pname} preset: ${n} layers, good then flaky`, cfg, n, [run(layersOf(Array.from({ length: n }, (_, i) => (i < 2 ? GOOD : FLAKY))))]));
    }
  }
  v.push(C('empty layers: exitLayer -1, nothing run', null, 4, [run([])]));
  v.push(C('empty layers with the aggressive preset', PRESETS.aggressive, 1, [run([])]));
  v.push(C('lambda 0 on layer 0 makes layer 1 count as stable', PRESETS.aggressive, 4, [run(layersOf([lr(0, 0, 1), GOOD, GOOD, GOOD], [1, 2, 3, 4]))]));
  v.push(C('layer 0 keeps the previousLambda its runner returned', null, 4, [run(layersOf([{ ...GOOD, previousLambda: 50 }, GOOD, GOOD, GOOD]))]));
  v.push(C('a later runner previousLambda is overwritten', null, 3, [run(layersOf([GOOD, { ...GOOD, previousLambda: 5 }, GOOD]))]));
  v.push(C('layers.length greater than totalLayers', null, 2, [run(layersOf([GOOD, MID, GOOD, GOOD, GOOD], [1, 1, 1, 1, 1]))]));
  v.push(C('layers.length smaller than totalLayers', null, 6, [run(layersOf([MID, BAD], [5, 5]))]));
  v.push(C('extra runner keys are kept in layers', null, 3, [run(layersOf([{ ...GOOD, owner: 'team-a', shards: [1, 2] }, { ...GOOD, note: null }, GOOD]))]));
  v.push(C('mispredictions: predicted pass, verified fail and flaky', PRESETS.aggressive, 4, [run(layersOf([GOOD, BAD, FLAKY, GOOD], [10, 20, 30, 40]))]));
  v.push(C('speculativeTests 0: exit without speculations or verification', { speculativeTests: 0 }, 4, [run(layersOf([GOOD, GOOD, GOOD, GOOD], [1, 2, 3, 4]))]));
  v.push(C('verificationLayers 0: exit with unverified speculations', { verificationLayers: 0, exitLayer: 0 }, 4, [run(layersOf([GOOD, GOOD, GOOD, GOOD], [1, 2, 3, 4]))]));
  v.push(C('costMs absent on a never-run layer gives computeSavedMs null', { verificationLayers: 1, exitLayer: 0 }, 4, [run(layersOf([GOOD, GOOD, GOOD, GOOD], [1, 2, 3]))]));
  v.push(C('costMs absent only on run layers still sums savings', { verificationLayers: 1, exitLayer: 0 }, 4, [run(layersOf([GOOD, GOOD, GOOD, GOOD], [null, null, 3, 4]))]));
  v.push(C('costMs 0 and fractional costs', { verificationLayers: 1, exitLayer: 0 }, 4, [run(layersOf([GOOD, GOOD, GOOD, GOOD], [0, 0.5, 0.25, 0.1]))]));
  v.push(C('every layer run: computeSavedMs 0 even without costs', PRESETS.conservative, 3, [run(layersOf([BAD, BAD, BAD]))]));
  v.push(C('exit at the last layer: nothing skipped, no speculation', { exitLayer: 2, adaptiveExitLayer: false }, 3, [run(layersOf([GOOD, GOOD, GOOD], [1, 2, 3]))]));
  v.push(C('confidence low band predicts flaky', { minConfidence: 0.5, minLambdaForExit: 70, exitLayer: 0 }, 4, [run(layersOf([lr(0.75, 0.75, 0), GOOD, GOOD, GOOD], [1, 2, 3, 4]))]));
  v.push(C('counts and names are carried in layer results', null, 3, [run(layersOf([{ ...GOOD, name: 'u', total: 10, passed: 10, failed: 0, flaky: 0, durationMs: 12 }, GOOD, GOOD]))]));
  const r = prng(0x9e7a);
  for (let i = 0; i < 60; i++) {
    const cfg = r.pick(Object.values(PRESETS));
    const n = r.int(0, 6);
    const results = Array.from({ length: n }, () => randomResult(r));
    const costs = results.map(() => (r.chance(0.85) ? r.int(0, 100000) : null));
    v.push(C(`random pyramid ${String(i).padStart(2, '0')} (${n} layers)`, cfg, r.chance(0.8) ? Math.max(1, n) : r.int(1, 8), [run(layersOf(results, costs))]));
  }
  return v;
}

export function pyramidErrors() {
  const v = [];
  const H = (name, config, n, layers, field, kind, code = 'invalid_config', only) =>
    C(name, config, n, [{ ...run(layers), expect: T(code, field, kind) }], 'hand', only ? { only } : {});
  v.push(H('layer spec without a name', null, 2, [{ costMs: 1, results: [] }, { name: 'b', results: [] }], 'layers[0].name', 'type'));
  v.push(H('layer spec name not a string', null, 2, [{ name: 'a', results: [] }, { name: 7, results: [] }], 'layers[1].name', 'type'));
  v.push(H('layer spec costMs negative', null, 3, layersOf([GOOD, GOOD, GOOD], [1, 2, -3]), 'layers[2].costMs', 'range'));
  v.push(H('layer spec costMs NaN', null, 3, layersOf([GOOD, GOOD, GOOD], [N('NaN')]), 'layers[0].costMs', 'range'));
  v.push(H('layer spec costMs string', null, 3, layersOf([GOOD, GOOD, GOOD], [1, '2']), 'layers[1].costMs', 'type'));
  v.push(H('layer spec costMs null (JS null is a value)', null, 3, layersOf([GOOD, GOOD, GOOD], [1, 2, 3]).map((l, i) => (i === 1 ? { ...l, costMs: null } : l)), 'layers[1].costMs', 'type', 'invalid_config', JS));
  v.push(H('runner result passRate out of range', null, 3, layersOf([MID, lr(1.5, 1, 0), GOOD]), 'layers[1].passRate', 'range', 'invalid_layer_result'));
  v.push(H('runner result missing coverage', null, 3, layersOf([{ passRate: 1, flakyRatio: 0 }, GOOD, GOOD]), 'layers[0].coverage', 'type', 'invalid_layer_result'));
  v.push(H('runner result not an object', null, 3, layersOf([MID, 'ok', GOOD]), 'layers[1]', 'type', 'invalid_layer_result'));
  v.push(H('runner result flakyRatio NaN', null, 2, layersOf([MID, lr(1, 1, N('NaN'))]), 'layers[1].flakyRatio', 'range', 'invalid_layer_result'));
  v.push(H('runner result counts inconsistent', null, 2, layersOf([lr(1, 1, 0, { total: 5, passed: 5, failed: 1 }), GOOD]), 'layers[0].passed', 'range', 'invalid_layer_result'));
  v.push(H('invalid result during verification', PRESETS.aggressive, 4, layersOf([GOOD, lr(1, 2, 0), GOOD, GOOD]), 'layers[1].coverage', 'range', 'invalid_layer_result'));
  v.push(C('a runner that throws propagates its error', null, 3, [{ ...run(layersOf([MID, { $throw: 'integration runner crashed' }, GOOD])), expect: { throws: { message: 'integration runner crashed' } } }], 'hand'));
  v.push(C('a runner that throws during verification propagates', PRESETS.aggressive, 3, [{ ...run(layersOf([GOOD, { $throw: 'verify crashed' }, GOOD])), expect: { throws: { message: 'verify crashed' } } }], 'hand'));
  v.push({ ...C('controller rejects totalLayers 0', null, 0, [], 'hand'), expectThrows: { code: 'invalid_config', field: 'totalLayers', kind: 'range' } });
  v.push({ ...C('controller rejects an unknown config key', { verifyLayers: 1 }, 3, [], 'hand'), expectThrows: { code: 'unknown_option', field: 'verifyLayers', kind: 'type' } });
  v.push({ ...C('controller rejects minLambdaForExit 150', { minLambdaForExit: 150 }, 3, [], 'hand'), expectThrows: { code: 'invalid_config', field: 'minLambdaForExit', kind: 'range' } });
  return v;
}

// Step API: the action sequence comes from the model (driver.mjs replays the
// reference controller), so `autoDrive` (results by layer index) is expanded to
// next/submit calls until done, then result() and a final next().
async function expand(spec, ref) {
  if (!spec.autoDrive) return spec;
  const { autoDrive, snapshotEvery, ...rest } = spec;
  const calls = [];
  for (let guard = 0; guard < 50; guard++) {
    calls.push(call('next'));
    const ev = await evaluate({ ...rest, calls }, ref);
    const action = ev.calls[ev.calls.length - 1].ref;
    if (action.action === 'done') break;
    calls.push({ call: 'submit', args: [action.layer, autoDrive[action.layer]] });
    if (snapshotEvery && calls.length % snapshotEvery === 0) calls.push(call('toJSON'));
  }
  calls.push(call('result'), call('next'), call('toJSON'));
  return { ...rest, calls };
}

export async function pyramidSteps(ref) {
  const v = [];
  const P = (name, config, totalLayers, specs, calls, source = 'hand', extra = {}) =>
    ({ name, engine: 'PyramidRun', source, construct: { config, totalLayers, layers: specs }, calls, ...extra });
  const drive = (results) => ({ autoDrive: results, snapshotEvery: 4 });
  const specs = (n, costs = []) => Array.from({ length: n }, (_, i) => (costs[i] !== undefined ? { name: NAMES[i], costMs: costs[i] } : { name: NAMES[i] }));
  // default preset, 4 layers: layer 0 (forced continue), layer 1 exits, verify 2 and 3
  v.push(P('steps: default preset exits at layer 0 and verifies layers 1 and 2 (one misprediction)', null, 4, specs(4, [1, 2, 3, 4]), [], 'hand', drive([GOOD, GOOD, FLAKY, GOOD])));
  v.push(P('steps: next() does not advance', null, 2, specs(2), [call('next'), call('next'), { call: 'submit', args: [0, BAD] }, call('next'), call('next'), { call: 'submit', args: [1, BAD] }, call('next'), call('result')]));
  v.push(P('steps: result() before done is invalid_step', null, 2, specs(2), [{ ...call('result'), expect: T('invalid_step', 'result', 'range') }, call('next'), { call: 'submit', args: [0, BAD] }, { ...call('result'), expect: T('invalid_step', 'result', 'range') }, call('next')]));
  v.push(P('steps: submit for the wrong layer is invalid_step', null, 3, specs(3), [call('next'), { call: 'submit', args: [1, GOOD], expect: T('invalid_step', 'layer', 'range') }, call('next'), { call: 'submit', args: [0, BAD] }, call('next')]));
  v.push(P('steps: submit after done is invalid_step', null, 1, specs(1), [call('next'), { call: 'submit', args: [0, BAD] }, call('next'), { call: 'submit', args: [0, BAD], expect: T('invalid_step', 'layer', 'range') }, call('result')]));
  v.push(P('steps: submit of an invalid result is invalid_layer_result', null, 2, specs(2), [call('next'), { call: 'submit', args: [0, lr(1, 1, 1.5)], expect: T('invalid_layer_result', 'layers[0].flakyRatio', 'range') }, call('next'), { call: 'submit', args: [0, BAD] }, call('next')]));
  v.push(P('steps: empty pyramid is done at once', null, 3, [], [call('next'), call('result')]));
  v.push(P('steps: aggressive preset exits at layer 0 and verifies one layer', PRESETS.aggressive, 3, specs(3, [5, 6, 7]), [], 'hand', drive([GOOD, BAD, GOOD])));
  v.push(P('steps: conservative preset runs every layer', PRESETS.conservative, 3, specs(3), [], 'hand', drive([BAD, MID, GOOD])));
  v.push(P('steps: speculativeTests 0 exit has no verification', { speculativeTests: 0 }, 4, specs(4, [1, 2, 3, 4]), [], 'hand', drive([GOOD, GOOD, GOOD, GOOD])));
  v.push(P('steps: default preset with a middling layer 0 continues to layer 1', null, 4, specs(4, [1, 2, 3, 4]), [], 'hand', drive([MID, GOOD, GOOD, BAD])));
  v.push({ ...P('steps: start rejects a bad layer spec', null, 2, [{ name: 'a' }, { name: 'b', costMs: -1 }], []), expectThrows: { code: 'invalid_config', field: 'layers[1].costMs', kind: 'range' } });
  v.push({ ...P('steps: start rejects totalLayers 0', null, 0, specs(1), []), expectThrows: { code: 'invalid_config', field: 'totalLayers', kind: 'range' } });
  v.push({ ...P('steps: start rejects layers that are not an array', null, 2, { name: 'a' }, []), expectThrows: { code: 'invalid_config', field: 'layers', kind: 'type' } });
  const r = prng(0x57e9);
  for (let i = 0; i < 12; i++) {
    const cfg = r.pick(Object.values(PRESETS));
    const n = r.int(1, 5);
    v.push(P(`steps: random pyramid ${i} driven to the end`, cfg, n, specs(n, Array.from({ length: n }, () => r.int(0, 1000))), [], 'hand', { autoDrive: Array.from({ length: n }, () => randomResult(r)) }));
  }
  const out = [];
  for (const spec of v) out.push(await expand(spec, ref));
  return out;
}
export { layersOf, GOOD, BAD, MID, FLAKY };
