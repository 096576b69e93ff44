// Every conformance vector in tests/vectors/*.json (format: tests/vectors/README.md),
// run against the package chosen by EARLYEXIT_IMPL. One test per vector file; a failing
// test lists the failing vectors. Prints a coverage table: vectors per trigger, per exit
// reason, per string template and per bad-input row (code + field).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ee, { IMPL, ROOT } from './impl.mjs';
import { compare, decode, templateOf } from './support.mjs';

const VECTOR_DIR = path.join(ROOT, 'tests', 'vectors');
// bad_input.json is the bad-input matrix, a table run by bad-input.test.mjs.
const files = readdirSync(VECTOR_DIR).filter((f) => f.endsWith('.json') && f !== 'bad_input.json').sort();

const coverage = { trigger: new Map(), 'exit reason': new Map(), 'string template': new Map(), 'bad-input row': new Map() };
const totals = { passed: 0, failed: 0, skipped: 0 };

function note(kind, key, seen) {
  const tagged = kind + '\u0000' + key;
  if (seen.has(tagged)) return;
  seen.add(tagged);
  coverage[kind].set(key, (coverage[kind].get(key) ?? 0) + 1);
}

function observe(value, seen) {
  if (Array.isArray(value)) {
    for (const item of value) observe(item, seen);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (typeof value.trigger === 'string') note('trigger', value.trigger, seen);
  if (typeof value.exitReason === 'string') note('exit reason', value.exitReason, seen);
  if (typeof value.reason === 'string' && 'canExit' in value) note('exit reason', value.reason, seen);
  for (const key of ['reason', 'explanation', 'stopping_reason', 'selection_reason']) {
    if (typeof value[key] === 'string') note('string template', templateOf(value[key]), seen);
  }
  for (const item of Object.values(value)) observe(item, seen);
}

// A scripted outside diminishing-returns source: one answer per call, null past the end.
function scriptedSource(script) {
  const source = {
    calls: 0,
    detectDiminishingReturns() {
      const answer = source.calls < script.length ? structuredClone(script[source.calls]) : null;
      source.calls += 1;
      return answer;
    },
  };
  return source;
}

class RunnerError extends Error {}

// Scripted runners: layer i answers its `results` in order; {"$throw": m} throws.
function scriptedLayers(layers, counts, thrown) {
  return layers.map((spec, i) => {
    const layer = { name: spec.name };
    if (spec.costMs !== undefined) layer.costMs = spec.costMs;
    // Alternate sync and async runners: both must work.
    layer.run = function run() {
      const k = counts[i]++;
      const element = (spec.results ?? [])[k];
      if (element === undefined) throw new Error(`runner script of layer ${i} exhausted`);
      if (element !== null && typeof element === 'object' && typeof element.$throw === 'string') {
        const error = new RunnerError(element.$throw);
        thrown.push(error);
        throw error;
      }
      const result = structuredClone(element);
      return i % 2 === 0 ? result : Promise.resolve(result);
    };
    return layer;
  });
}

function construct(engine, c) {
  switch (engine) {
    case 'EarlyStopping': {
      let source = null;
      if (c.analytics !== null && c.analytics !== undefined) {
        source = c.analytics !== null && typeof c.analytics === 'object' && Array.isArray(c.analytics.script)
          ? scriptedSource(c.analytics.script)
          : c.analytics;
      }
      // A shadow candidate is the third argument's `shadow`, beside the policy it does not replace.
      const third = 'shadow' in c ? { shadow: c.shadow, ...(c.policy == null ? {} : { policy: c.policy }) } : c.policy ?? undefined;
      const instance = new ee.EarlyStopping(c.config, source, third);
      return { instance, source };
    }
    case 'IterationAnalytics':
      // upstream's form `(loopId, taskDescription, config)` when the vector gives `loopId`.
      if ('loopId' in c) return { instance: new ee.IterationAnalytics(c.loopId, c.taskDescription, c.config) };
      return { instance: new ee.IterationAnalytics(c.config) };
    case 'calculateQualitySignal':
      return { instance: null };
    case 'CoherenceEarlyExit':
      return { instance: new ee.CoherenceEarlyExit(c.config, c.totalLayers) };
    case 'SpeculativeExecutor':
      return { instance: new ee.SpeculativeExecutor(c.config) };
    case 'EarlyExitController':
      return { instance: new ee.EarlyExitController(c.config, c.totalLayers, c.options) };
    case 'PyramidRun':
      return { instance: ee.PyramidRun.start(c.config, c.totalLayers, c.layers, c.options) };
    default:
      throw new Error(`unknown engine ${engine}`);
  }
}

const STATEFUL = new Set(['EarlyStopping', 'IterationAnalytics', 'PyramidRun']);
const RESTORABLE = { EarlyStopping: ee.EarlyStopping, IterationAnalytics: ee.IterationAnalytics, PyramidRun: ee.PyramidRun };

function checkError(expected, error) {
  const problems = [];
  if (!(error instanceof Error)) return [`threw a non-Error ${String(error)}`];
  const kindOk = expected.kind === undefined
    || (expected.kind === 'type' ? error instanceof TypeError : error instanceof RangeError);
  if (error.code !== expected.code || error.field !== expected.field || !kindOk) {
    problems.push(`expected ${expected.code}/${expected.field}/${expected.kind}, got ${error.code}/${error.field}/${error.constructor.name}: ${error.message}`);
  }
  return problems;
}

async function runVector(vector, seen) {
  const c = decode(vector.construct ?? {});
  let state;
  try {
    state = construct(vector.engine, c);
  } catch (error) {
    if (!vector.throws) return [`constructor threw ${error.message}`];
    if (error.code) note('bad-input row', `${error.code} ${error.field}`, seen);
    return checkError(vector.throws, error);
  }
  if (vector.throws) return ['the constructor was expected to throw'];
  const problems = [];
  for (const [index, call] of (vector.calls ?? []).entries()) {
    const at = `call #${index} ${call.call}`;
    const args = (call.args ?? []).map(decode);
    const engine = state.instance;
    const before = STATEFUL.has(vector.engine) && engine ? JSON.stringify(engine.toJSON()) : null;
    const counts = (call.layers ?? []).map(() => 0);
    const thrown = [];
    let outcome;
    try {
      let value;
      if (call.call === 'fromJSON') {
        const restored = RESTORABLE[vector.engine].fromJSON(args[0], state.source ?? null);
        state = { ...state, instance: restored };
        value = undefined;
      } else if (call.call === 'fromSummary') {
        state = { ...state, instance: ee.IterationAnalytics.fromSummary(...args) };
        value = undefined;
      } else if (call.call === 'formatDuration') {
        value = ee.IterationAnalytics.formatDuration(...args);
      } else if (vector.engine === 'calculateQualitySignal') {
        value = ee[call.call](...args); // calculateQualitySignal, countQualityPartitions
      } else if (call.call === 'runWithEarlyExit') {
        value = await engine.runWithEarlyExit(scriptedLayers(decode(call.layers), counts, thrown));
      } else if (call.call === 'verify') {
        value = await engine.verify(args[0], scriptedLayers(decode(call.layers), counts, thrown));
      } else if (call.call === 'toFixed' || call.call === 'toString') {
        return ['jsnum vectors are for the Rust suite'];
      } else {
        value = await engine[call.call](...args);
      }
      outcome = { value };
    } catch (error) {
      outcome = { error };
    }
    if ('error' in outcome) {
      const { error } = outcome;
      if (!call.throws) {
        problems.push(`${at}: unexpected ${error?.constructor?.name} ${error?.code ?? ''} ${error?.field ?? ''}: ${error?.message}`);
        break;
      }
      if (typeof call.throws.message === 'string') {
        // A runner's own error, propagated unchanged: the very object the runner threw.
        if (!thrown.includes(error) || error.message !== call.throws.message) {
          problems.push(`${at}: expected the runner's error "${call.throws.message}", got ${error?.message}`);
        }
      } else {
        if (error?.code) note('bad-input row', `${error.code} ${error.field}`, seen);
        problems.push(...checkError(call.throws, error).map((p) => `${at}: ${p}`));
        if (before !== null && JSON.stringify(state.instance.toJSON()) !== before) {
          problems.push(`${at}: the rejected call changed the engine`);
        }
      }
    } else if (call.throws) {
      problems.push(`${at}: expected a throw ${JSON.stringify(call.throws)}, got ${JSON.stringify(outcome.value)}`);
    } else {
      observe(outcome.value, seen);
      if ('returns' in call) problems.push(...compare(decode(call.returns), outcome.value).map((p) => `${at}: ${p}`));
      else if (outcome.value !== undefined) problems.push(`${at}: expected undefined, got ${JSON.stringify(outcome.value)}`);
    }
    if (call.runnerCalls && JSON.stringify(counts) !== JSON.stringify(call.runnerCalls)) {
      problems.push(`${at}: runner calls ${JSON.stringify(counts)}, expected ${JSON.stringify(call.runnerCalls)}`);
    }
    if (call.analyticsCalls !== undefined && state.source?.calls !== call.analyticsCalls) {
      problems.push(`${at}: analytics asked ${state.source?.calls} times, expected ${call.analyticsCalls}`);
    }
    if (problems.length > 0) break;
  }
  if (vector.analyticsCalls !== undefined && state.source?.calls !== vector.analyticsCalls) {
    problems.push(`analytics asked ${state.source?.calls} times in all, expected ${vector.analyticsCalls}`);
  }
  return problems;
}

for (const file of files) {
  test(`vectors: ${file} (${IMPL})`, async (t) => {
    const { vectors } = JSON.parse(readFileSync(path.join(VECTOR_DIR, file), 'utf8'));
    const failures = [];
    let ran = 0;
    for (const vector of vectors) {
      if (Array.isArray(vector.only) && !vector.only.includes('js')) {
        totals.skipped += 1;
        continue;
      }
      ran += 1;
      const problems = await runVector(vector, new Set());
      if (problems.length === 0) totals.passed += 1;
      else {
        totals.failed += 1;
        failures.push(`${vector.name}: ${problems.join('; ')}`);
      }
    }
    t.diagnostic(`${file}: ${ran - failures.length} of ${ran} vectors passed`);
    assert.equal(failures.length, 0, `${failures.length} vectors failed:\n  ${failures.slice(0, 30).join('\n  ')}`);
  });
}

after(() => {
  const lines = [`conformance vectors (${IMPL}): ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} not for js`];
  for (const [title, map] of Object.entries(coverage)) {
    lines.push(`  ${title}:`);
    for (const [key, n] of [...map.entries()].sort()) lines.push(`    ${String(n).padStart(5)}  ${key}`);
  }
  console.log(lines.join('\n'));
});
