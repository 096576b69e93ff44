// Property tests of the JS binding layer (fast-check), for the napi addon and the wasm build:
//   - runWithEarlyExit's numeric fast path, its JSON path (PyramidRun over the wire) and the
//     step API driven by hand (PyramidRun.submit) agree on every input: the same result, or
//     the same typed error (class, code, field);
//   - the encoder writes what a plain recursive encoder writes (JSON.stringify's text, plus
//     the wire's tags), visits each distinct object once (a DAG's visits are its edges plus
//     one), and refuses a cycle naming the path of the edge that closes it.
// `make test` runs a bounded number of cases with a fixed seed; `make fuzz` (scripts/fuzz.sh)
// runs many more with a fresh seed: FC_RUNS=<cases per property>, FC_SEED=<seed> to reproduce.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { IMPL, ROOT } from './impl.mjs';

const RUNS = Number(process.env.FC_RUNS ?? 150);
const SEED = Number(process.env.FC_SEED ?? 20261201);
const settings = { numRuns: RUNS, seed: SEED, endOnFailure: true };
if (process.env.FC_RUNS) console.log(`properties: ${RUNS} cases per property, seed ${SEED} (FC_SEED=${SEED} reproduces)`);

// The layer over the package's native module, with its test hooks (the encoder's visit
// count, the switch that sends runs to the JSON path).
const require = createRequire(import.meta.url);
const dir = path.join(ROOT, 'bindings', IMPL === 'wasm' ? 'wasm' : 'node');
const native = require(path.join(dir, IMPL === 'wasm' ? 'pkg/nodejs/earlyexit_wasm.js' : 'native.cjs'));
const { api: ee, ready, testing } = require(path.join(dir, 'api.cjs'))(native);
ready();

// --- inputs ---------------------------------------------------------------------------

const edgy = (min, max) => fc.oneof(
  { weight: 12, arbitrary: fc.double({ min, max, noNaN: true }) },
  { weight: 6, arbitrary: fc.constantFrom(min, max, (min + max) / 2, 0.99, 0.85, 0.1, -0) },
  { weight: 1, arbitrary: fc.constantFrom(NaN, Infinity, -Infinity, min - 1, max + 0.5, '1', null, undefined, true) },
);
// Mostly valid layer results (so runs reach exits, speculation and verification), sometimes
// not, sometimes with a previousLambda or extra keys the run keeps.
const layerResult = fc.record({
  passRate: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(1, 0.999, 0.995, 0.99, 0.98) }, { weight: 3, arbitrary: edgy(0, 1) }),
  coverage: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(0.95, 0.9, 0.8) }, { weight: 2, arbitrary: edgy(0, 1) }),
  flakyRatio: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(0, 0.01, 0.2) }, { weight: 2, arbitrary: edgy(0, 1) }),
  previousLambda: edgy(0, 100),
  note: fc.oneof(fc.string({ maxLength: 4 }), fc.array(fc.integer(), { maxLength: 2 })),
  durationMs: edgy(0, 1e6),
}, { requiredKeys: ['passRate', 'coverage', 'flakyRatio'] });
const layer = fc.record({
  name: fc.oneof({ weight: 30, arbitrary: fc.string({ maxLength: 6 }) }, { weight: 1, arbitrary: fc.constantFrom(5, null) }),
  costMs: fc.oneof({ weight: 20, arbitrary: fc.integer({ min: 0, max: 100_000 }) }, { weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(-1, NaN, '5') }),
  // What its runner answers on each call (verification may run a layer a second time).
  results: fc.array(layerResult, { minLength: 2, maxLength: 2 }),
});
const config = fc.oneof(
  fc.constantFrom(null, ee.DEFAULT_EXIT_CONFIG, ee.AGGRESSIVE_EXIT_CONFIG, ee.CONSERVATIVE_EXIT_CONFIG),
  fc.record({
    exitLayer: fc.integer({ min: 0, max: 4 }),
    minLambdaForExit: fc.double({ min: 0, max: 100, noNaN: true }),
    minLambdaStability: fc.double({ min: 0, max: 1, noNaN: true }),
    speculativeTests: fc.integer({ min: 0, max: 5 }),
    verificationLayers: fc.integer({ min: 0, max: 5 }),
    adaptiveExitLayer: fc.boolean(),
    minConfidence: fc.double({ min: 0, max: 1, noNaN: true }),
  }, { requiredKeys: [] }),
);
const scenario = fc.record({ config, totalLayers: fc.integer({ min: 1, max: 8 }), layers: fc.array(layer, { minLength: 1, maxLength: 6 }) });

// --- the three paths --------------------------------------------------------------------

const runners = (layers) => layers.map((l) => {
  let calls = 0;
  const spec = { name: l.name, run: () => ({ ...l.results[Math.min(calls++, l.results.length - 1)] }) };
  if (l.costMs !== undefined) spec.costMs = l.costMs;
  return spec;
});
const outcome = async (run) => {
  try {
    return { result: await run() };
  } catch (e) {
    return { error: { type: e.constructor.name, code: e.code, field: e.field } };
  }
};
const controller = (s) => new ee.EarlyExitController(s.config, s.totalLayers);

async function fastPath(s) {
  return outcome(() => controller(s).runWithEarlyExit(runners(s.layers)));
}
async function jsonPath(s) {
  testing.setFastRuns(false);
  try {
    return await outcome(() => controller(s).runWithEarlyExit(runners(s.layers)));
  } finally {
    testing.setFastRuns(true);
  }
}
// The step API, driven by hand: what the runner answers goes to submit() as it is.
async function stepApi(s) {
  return outcome(async () => {
    const live = runners(s.layers);
    const merged = controller(s).earlyExit.config; // the controller's validation of the config
    const run = ee.PyramidRun.start(merged, s.totalLayers, live.map(({ name, costMs }) => (costMs === undefined ? { name } : { name, costMs })));
    for (let next = run.next(); next.action !== 'done'; next = run.next()) run.submit(next.layer, live[next.layer].run());
    return run.result();
  });
}

describe(`properties: the fast path, the JSON path and PyramidRun.submit agree (${IMPL})`, () => {
  test('same result or same typed error on the same inputs', async () => {
    let results = 0;
    let errors = 0;
    await fc.assert(fc.asyncProperty(scenario, async (s) => {
      const fast = await fastPath(s);
      const json = await jsonPath(s);
      const steps = await stepApi(s);
      assert.deepEqual(json, fast, 'JSON path vs fast path');
      assert.deepEqual(steps, fast, 'PyramidRun.submit vs fast path');
      if (fast.error) errors++;
      else results++;
    }), settings);
    console.log(`properties (${IMPL}): ${results} runs agreed on a result, ${errors} on an error`);
    assert.ok(results > RUNS / 10 && errors > RUNS / 10, `both outcomes are exercised (${results} results, ${errors} errors)`);
  });
});

// --- the encoder ----------------------------------------------------------------------

// A plain recursive encoder of the wire format (bindings/js/interface/src/wire.rs): JSON.stringify's
// text for what JSON holds, tags for the rest. Exponential on shared objects, fine here.
const tag = (what) => '{"\\u0000":' + JSON.stringify(what) + '}';
function reference(value) {
  switch (typeof value) {
    case 'number':
      if (Object.is(value, -0)) return '-0';
      if (Number.isFinite(value)) return String(value);
      return tag(Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity');
    case 'string': return JSON.stringify(value);
    case 'boolean': return String(value);
    case 'undefined': return tag('undefined');
    case 'object':
      if (value === null) return 'null';
      if (Array.isArray(value)) return '[' + value.map(reference).join(',') + ']';
      return '{' + Object.keys(value).filter((k) => value[k] !== undefined)
        .map((k) => JSON.stringify(k.startsWith('\u0000') ? '\u0000' + k : k) + ':' + reference(value[k])).join(',') + '}';
    default: return tag(typeof value);
  }
}

const leaf = fc.oneof(fc.double(), fc.constantFrom(-0, NaN, Infinity, undefined, null, true, () => 0, 10n), fc.string({ maxLength: 5 }),
  fc.constantFrom('\u0000x', '__proto__', 'a"b\\c\n'));
// A DAG: node i holds leaves and references to nodes before it (each may be shared).
const dag = fc.array(fc.array(fc.oneof({ weight: 2, arbitrary: fc.record({ ref: fc.nat() }) }, { weight: 3, arbitrary: fc.record({ leaf }) }),
  { maxLength: 4 }), { minLength: 1, maxLength: 12 }).chain((shape) =>
  fc.tuple(fc.constant(shape), fc.array(fc.boolean(), { minLength: shape.length, maxLength: shape.length }), fc.array(fc.string({ maxLength: 3 }), { minLength: 64, maxLength: 64 })));
function build([shape, asArray, names]) {
  const nodes = [];
  let edges = 0;
  shape.forEach((items, i) => {
    const node = asArray[i] ? [] : {};
    items.forEach((item, j) => {
      const child = item.ref !== undefined && i > 0 ? nodes[item.ref % i] : item.leaf;
      if (asArray[i]) node.push(child);
      else node[names[(i * 5 + j) % names.length] + j] = child;
    });
    nodes.push(node);
  });
  const top = nodes[nodes.length - 1];
  // Visits: the top, then one per entry of each distinct object reachable from it (an
  // undefined object entry is skipped without a visit).
  const seen = new Set();
  const walk = (v) => {
    if (typeof v !== 'object' || v === null || seen.has(v)) return;
    seen.add(v);
    for (const key of Object.keys(v)) {
      if (Array.isArray(v) || v[key] !== undefined) edges++;
      walk(v[key]);
    }
  };
  walk(top);
  return { top, nodes, visits: 1 + edges };
}

describe(`properties: the encoder (${IMPL})`, () => {
  test('writes what a plain encoder writes, visiting each distinct object once', () => {
    fc.assert(fc.property(dag, (spec) => {
      const { top, visits } = build(spec);
      const expected = reference(top);
      if (expected.length > 1 << 20) return; // the plain encoder's text grows exponentially
      const got = testing.encode(top);
      assert.equal(got.text, expected);
      assert.equal(got.visits, visits);
    }), settings);
  });

  test('refuses a cycle with a typed error naming the path of the edge that closes it', () => {
    // The path the encoder takes to `target` first (depth first, in key order), or null.
    const pathTo = (from, target, at = '') => {
      if (from === target) return at;
      if (typeof from !== 'object' || from === null) return null;
      for (const key of Object.keys(from)) {
        if (!Array.isArray(from) && from[key] === undefined) continue;
        const found = pathTo(from[key], target, Array.isArray(from) ? `${at}[${key}]` : at === '' ? key : `${at}.${key}`);
        if (found !== null) return found;
      }
      return null;
    };
    let cycles = 0;
    fc.assert(fc.property(dag, fc.nat(), (spec, pick) => {
      const { top, nodes } = build(spec);
      // An edge from node `pick` back to the top: a cycle when that node is reachable.
      const from = nodes[pick % nodes.length];
      const where = pathTo(top, from);
      let edge;
      if (Array.isArray(from)) {
        from.push(top);
        edge = `[${from.length - 1}]`;
      } else {
        from.back = top;
        edge = 'back';
      }
      if (where === null) {
        assert.equal(testing.encode(top).text, reference(top)); // unreachable: no cycle
        return;
      }
      cycles++;
      const expected = Array.isArray(from) || where === '' ? where + (Array.isArray(from) ? edge : edge) : `${where}.${edge}`;
      assert.throws(() => testing.encode(top), (e) => e instanceof TypeError && e.code === 'invalid_config' && e.field === expected,
        `expected a cycle at ${expected}`);
    }), settings);
    assert.ok(cycles > RUNS / 4, `${cycles} cycles`);
  });
});
