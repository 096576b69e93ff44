// IterationAnalytics's public fields as upstream's users write them: `iterations` (push,
// splice, assignment by index, `length`, a record's fields, a record's `reflections`, an
// assigned array changed afterwards), `config` (a key, an assigned object changed
// afterwards), and the records upstream hands out (recordIteration's, getOptimalIteration's,
// selectBestIteration's, the summary's `iterations`), which are its stored objects. Every such
// write takes effect as in ../shared/reference/iteration-analytics.mjs, checked by the core (a
// typed error naming the field, nothing changed; never a silent no-op).
//
// Differential: random sequences of writes and calls on both sides, every answer compared over
// the reference's keys, the saved summary compared byte for byte after every record of an
// object that saves, and on export and load. Then the bad writes (the typed error, the object
// unchanged), and the normal loop's cost: one native call per record and per detection, none
// for reading the fields (counted).
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import ee, { IMPL, HAVE_REFERENCE, NO_REFERENCE, REFERENCE_DIR, ROOT } from './impl.mjs';
import { compare, rng } from './support.mjs';
import { OP, REPLAY_OPS } from '../../bindings/js/api/contract.generated.mjs';

const SEQUENCES = 400;
const referenceFile = path.join(REFERENCE_DIR, 'iteration-analytics.mjs');
const available = HAVE_REFERENCE && fs.existsSync(referenceFile);
const ref = available ? await import(pathToFileURL(referenceFile).href) : null;
const driver = available ? await import('../vectors/driver.mjs') : null;
const Project = available ? driver.projectClass(ref.IterationAnalytics) : null;

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'earlyexit-analytics-writes-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let folders = 0;
const folder = () => path.join(root, `f${++folders}`);

const STATUSES = ['passed', 'passed', 'failed', 'skipped'];
const CRITERIA = ['highest_quality_verified', 'highest_quality', 'most_recent_above_threshold'];
const T0 = '2026-01-01T00:00:00.000Z';
const at = (i) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();

function clockOf(r) {
  let ms = Date.UTC(2026, 0, 1) + r.int(0, 1e9);
  return () => {
    ms += r.int(1, 5000);
    return new Date(ms).toISOString();
  };
}

// A valid value for one of a record's fields.
function fieldValue(r, key) {
  switch (key) {
    case 'iteration_number': return r.int(1, 30);
    case 'quality_score': return r.pick([0, 100, 70, r.round(r.next() * 100, r.int(0, 2))]);
    case 'quality_delta': return r.pick([0, 0.5, -3, 12.25, r.round(r.next() * 40 - 20, 2)]);
    case 'verification_status': return r.pick(STATUSES);
    case 'tokens_used': return r.int(0, 50_000);
    case 'token_cost_usd': return r.round(r.next(), 4);
    case 'execution_time_ms': return r.int(0, 600_000);
    case 'output_snapshot_path': return r.pick([null, `/snapshots/${r.int(1, 9)}.md`]);
    case 'timestamp': return at(r.int(0, 5000));
    default: return Array.from({ length: r.int(0, 2) }, (_, k) => `written ${k}`);
  }
}
const RECORD_KEYS = ['iteration_number', 'quality_score', 'quality_delta', 'verification_status', 'tokens_used', 'token_cost_usd',
  'execution_time_ms', 'output_snapshot_path', 'timestamp', 'reflections'];
const OPTIONAL_KEYS = ['tokens_used', 'token_cost_usd', 'execution_time_ms', 'output_snapshot_path'];
const CONFIG_KEYS = ['diminishingReturnsThreshold', 'consecutiveCountThreshold', 'qualityThreshold', 'selectionCriteria'];

function configValue(r, key) {
  switch (key) {
    case 'diminishingReturnsThreshold': return r.pick([0.05, 0.1, 0.01, 0, 0.2]);
    case 'consecutiveCountThreshold': return r.int(1, 4);
    case 'qualityThreshold': return r.pick([70, 50, 80, 90, r.round(r.next() * 100, 1)]);
    default: return r.pick(CRITERIA);
  }
}

// A record as upstream's summary lists it (its keys in upstream's order), for pushing by hand.
function storedRecord(r, state) {
  state.iteration += 1;
  const q = fieldValue(r, 'quality_score');
  const record = { iteration_number: state.iteration, timestamp: at(state.iteration), quality_score: q, quality_delta: r.round(q - state.quality, 3) };
  state.quality = q;
  if (r.chance(0.8)) record.tokens_used = fieldValue(r, 'tokens_used');
  if (r.chance(0.8)) record.token_cost_usd = fieldValue(r, 'token_cost_usd');
  if (r.chance(0.8)) record.execution_time_ms = fieldValue(r, 'execution_time_ms');
  record.verification_status = r.pick(STATUSES);
  if (r.chance(0.3)) record.output_snapshot_path = fieldValue(r, 'output_snapshot_path');
  record.reflections = r.chance(0.5) ? [] : ['pushed by hand'];
  return record;
}

function randomMetrics(r, state) {
  state.iteration += 1;
  const q = r.chance(0.4) ? Math.min(100, state.quality + r.pick([0, 0.5, 1, 2])) : fieldValue(r, 'quality_score');
  state.quality = q;
  const m = { iteration_number: state.iteration, quality_score: q, verification_status: r.pick(STATUSES) };
  if (r.chance(0.9)) m.tokens_used = fieldValue(r, 'tokens_used');
  if (r.chance(0.9)) m.token_cost_usd = fieldValue(r, 'token_cost_usd');
  if (r.chance(0.9)) m.execution_time_ms = fieldValue(r, 'execution_time_ms');
  if (r.chance(0.3)) m.output_snapshot_path = fieldValue(r, 'output_snapshot_path');
  if (r.chance(0.4)) m.reflections = [`note ${state.iteration}`];
  return m;
}

function runWrites(seed, problems, counts) {
  const r = rng(seed);
  const clock = clockOf(r);
  const persist = r.chance(0.4);
  const ours = path.join(root, `${seed}-ours`);
  const theirs = path.join(root, `${seed}-ref`);
  const config = {};
  for (const key of CONFIG_KEYS) if (r.chance(0.4)) config[key] = configValue(r, key);
  const loopId = `loop-${seed}`;
  const where = (what) => `sequence ${seed} (${persist ? 'saving' : 'not saving'}, config ${JSON.stringify(config)}): ${what}`;
  let now = clock();
  let a = driver.referenceCall(now, () => new ee.IterationAnalytics(loopId, 'task', { ...config, storagePath: ours, persist }));
  let b = driver.referenceCall(now, () => new Project(loopId, 'task', { ...config, storagePath: theirs }));
  const check = (what, expected, actual) => {
    const diffs = compare(structuredClone(expected), actual);
    if (diffs.length) problems.push(`${where(what)}: ${diffs.slice(0, 3).join('; ')}`);
    return diffs.length === 0;
  };
  const sameFile = (what, name) => {
    const [x, y] = [fs.readFileSync(path.join(ours, name), 'utf8'), fs.readFileSync(path.join(theirs, name), 'utf8')];
    if (x !== y) problems.push(`${where(what)}: ${name} differs:\n--- ours\n${x.slice(0, 800)}\n--- reference\n${y.slice(0, 800)}`);
    return x === y;
  };
  const both = (what, call) => {
    now = clock();
    const got = driver.referenceCall(now, () => call(a));
    const want = driver.referenceCall(now, () => call(b));
    counts[what] = (counts[what] ?? 0) + 1;
    return check(what, want, got);
  };
  // Objects both sides hold (pushed records, an assigned array, an assigned config): [theirs, ours].
  const pushed = [];
  let assignedArray = null;
  let assignedConfig = null;
  const handedOut = []; // records the methods returned: [theirs, ours]
  const state = { iteration: 0, quality: r.round(r.next() * 80, 1) };
  const steps = r.int(3, 22);
  for (let step = 0; step < steps; step++) {
    const action = r.next();
    const n = b.iterations.length;
    let what;
    if (action < 0.22) {
      what = 'recordIteration';
      const m = randomMetrics(r, state);
      now = clock();
      const endBefore = b.endTime;
      const got = driver.referenceCall(now, () => a.recordIteration(structuredClone(m)));
      const want = driver.referenceCall(now, () => b.recordIteration(structuredClone(m)));
      if (!persist) b.endTime = endBefore; // (a listed difference: only a saving object's first record sets it)
      if (!check('recordIteration', want, got)) return;
      if (got !== a.iterations[a.iterations.length - 1]) problems.push(where('recordIteration answered another object than iterations holds'));
      handedOut.push([want, got]);
      if (persist && !sameFile('the summary saved after a record', `${loopId}.json`)) return;
    } else if (action < 0.3) {
      what = 'iterations.push(record)';
      const record = storedRecord(r, state);
      const pair = [record, structuredClone(record)];
      b.iterations.push(pair[0]);
      a.iterations.push(pair[1]);
      pushed.push(pair);
    } else if (action < 0.35 && pushed.length > 0) {
      what = 'a pushed record changed in place';
      const [x, y] = r.pick(pushed);
      const key = r.pick(RECORD_KEYS);
      const value = fieldValue(r, key);
      x[key] = structuredClone(value);
      y[key] = structuredClone(value);
    } else if (action < 0.47 && n > 0) {
      const i = r.int(0, n - 1);
      const key = r.pick(RECORD_KEYS);
      const value = fieldValue(r, key);
      what = `iterations[i].${key} = v`;
      b.iterations[i][key] = structuredClone(value);
      a.iterations[i][key] = structuredClone(value);
    } else if (action < 0.5 && n > 0) {
      const i = r.int(0, n - 1);
      const key = r.pick(OPTIONAL_KEYS);
      what = `delete iterations[i].${key}`;
      delete b.iterations[i][key];
      delete a.iterations[i][key];
    } else if (action < 0.55 && n > 0) {
      const i = r.int(0, n - 1);
      const how = r.pick(['push', 'pop', 'set', 'splice']);
      what = `iterations[i].reflections.${how}`;
      for (const side of [b, a]) {
        const list = side.iterations[i].reflections;
        if (how === 'push') list.push(`more ${step}`);
        else if (how === 'pop') list.pop();
        else if (how === 'set') list[0] = `first ${step}`;
        else list.splice(0, 1, 'spliced', 'in');
      }
    } else if (action < 0.61 && n > 0) {
      const how = r.pick(['pop', 'shift', 'splice', 'length', 'reverse', 'sort', 'index', 'duplicate']);
      what = `iterations.${how}`;
      const j = r.int(0, n - 1);
      const record = storedRecord(r, state);
      for (const side of [b, a]) {
        const h = side.iterations;
        if (how === 'pop') h.pop();
        else if (how === 'shift') h.shift();
        else if (how === 'splice') h.splice(j, 1);
        else if (how === 'length') h.length = Math.floor(h.length / 2);
        else if (how === 'reverse') h.reverse();
        else if (how === 'sort') h.sort((p, q) => p.quality_score - q.quality_score);
        else if (how === 'index') h[j] = structuredClone(record);
        else h.push(h[j]); // the same record twice, as upstream holds it
      }
    } else if (action < 0.65) {
      what = 'iterations = [...]';
      const records = Array.from({ length: r.int(0, 4) }, () => storedRecord(r, state));
      assignedArray = [records, structuredClone(records)];
      b.iterations = assignedArray[0];
      a.iterations = assignedArray[1];
      if (a.iterations !== assignedArray[1]) problems.push(where('the assigned array is not the history'));
      records.forEach((record, k) => pushed.push([record, assignedArray[1][k]]));
    } else if (action < 0.68 && assignedArray !== null) {
      what = 'the assigned array changed';
      const record = storedRecord(r, state);
      const how = r.pick(['push', 'pop', 'index']);
      for (const [k, list] of assignedArray.entries()) {
        if (how === 'push') list.push(k === 0 ? record : structuredClone(record));
        else if (how === 'pop') list.pop();
        else if (list.length > 0) list[0] = k === 0 ? record : structuredClone(record);
      }
    } else if (action < 0.75) {
      const key = r.pick(CONFIG_KEYS);
      const value = configValue(r, key);
      what = `config.${key} = v`;
      b.config[key] = value;
      a.config[key] = value;
    } else if (action < 0.78) {
      what = 'config = {...}';
      const value = Object.fromEntries(CONFIG_KEYS.map((key) => [key, configValue(r, key)]));
      assignedConfig = [{ storagePath: theirs, ...value }, { storagePath: ours, ...value }];
      b.config = assignedConfig[0];
      a.config = assignedConfig[1];
    } else if (action < 0.81 && assignedConfig !== null) {
      const key = r.pick(CONFIG_KEYS);
      const value = configValue(r, key);
      what = 'the assigned config changed';
      assignedConfig[0][key] = value;
      assignedConfig[1][key] = value;
    } else if (action < 0.84 && handedOut.length > 0) {
      const [x, y] = r.pick(handedOut);
      const key = r.pick(['quality_score', 'verification_status', 'quality_delta', 'tokens_used']);
      const value = fieldValue(r, key);
      what = 'a returned record changed';
      x[key] = value;
      y[key] = value;
    } else if (action < 0.86 && n > 0) {
      what = 'the summary\'s iterations changed';
      const i = r.int(0, n - 1);
      const value = fieldValue(r, 'quality_score');
      now = clock();
      driver.referenceCall(now, () => b.generateSummary()).iterations[i].quality_score = value;
      driver.referenceCall(now, () => a.generateSummary()).iterations[i].quality_score = value;
    } else {
      // A query on both sides, compared.
      let ok = true;
      const query = r.next();
      if (query < 0.15) ok = both('detectDiminishingReturns', (x) => x.detectDiminishingReturns());
      else if (query < 0.25) ok = both('getTrajectory', (x) => x.getTrajectory());
      else if (query < 0.4) {
        const v = r.chance(0.5);
        now = clock();
        const got = a.getOptimalIteration(v);
        const want = b.getOptimalIteration(v);
        ok = check('getOptimalIteration', want, got);
        if (want !== null) handedOut.push([want, got]);
        counts.getOptimalIteration = (counts.getOptimalIteration ?? 0) + 1;
      } else if (query < 0.5) {
        const got = a.selectBestIteration();
        const want = b.selectBestIteration();
        ok = check('selectBestIteration', want, got);
        if (want.selected !== null) handedOut.push([want.selected, got.selected]);
        counts.selectBestIteration = (counts.selectBestIteration ?? 0) + 1;
      } else if (query < 0.65) ok = both('generateSummary', (x) => x.generateSummary());
      else if (query < 0.72) ok = both('generateQualityChart', (x) => x.generateQualityChart());
      else if (query < 0.8) ok = both('generateReport', (x) => x.generateReport());
      else if (query < 0.86) {
        ok = both('fields', (x) => ({ iterations: x.iterations, config: { ...x.config, storagePath: null } }));
      } else if (query < 0.94) {
        ok = both('export', (x) => path.basename(x.export().json)) &&
          sameFile('export: the summary', `${loopId}.json`) && sameFile('export: the report', `${loopId}-report.md`);
      } else {
        // upstream's load of each side's own file, then more records into the loaded objects.
        now = clock();
        driver.referenceCall(now, () => a.saveAnalytics());
        driver.referenceCall(now, () => b.saveAnalytics());
        const x = driver.referenceCall(now, () => ee.IterationAnalytics.load(path.join(ours, `${loopId}.json`), { persist }));
        const y = Object.setPrototypeOf(driver.referenceCall(now, () => ref.IterationAnalytics.load(path.join(theirs, `${loopId}.json`))), Project.prototype);
        ok = check('load', { iterations: y.iterations, start: y.startTime, end: y.endTime }, { iterations: x.iterations, start: x.startTime, end: x.endTime });
        counts.load = (counts.load ?? 0) + 1;
        a.free();
        [a, b] = [x, y];
        pushed.length = 0;
        handedOut.length = 0;
        assignedArray = null;
        assignedConfig = null;
      }
      if (!ok) return;
      continue;
    }
    counts[what] = (counts[what] ?? 0) + 1;
    // After every write: the next use sees it.
    if (!both(`detectDiminishingReturns after ${what}`, (x) => x.detectDiminishingReturns())) return;
  }
  if (!both('final summary', (x) => x.generateSummary())) return;
  if (!both('final report', (x) => x.generateReport())) return;
  if (persist) {
    now = clock();
    const m = randomMetrics(r, state);
    driver.referenceCall(now, () => a.recordIteration(structuredClone(m)));
    driver.referenceCall(now, () => b.recordIteration(structuredClone(m)));
    sameFile('the summary saved after the last record', `${loopId}.json`);
  }
  a.free();
}

describe(`IterationAnalytics: writes to upstream's public fields against iteration-analytics.mjs (${IMPL})`, { skip: available ? false : NO_REFERENCE }, () => {
  test(`${SEQUENCES} random sequences of writes to iterations, its records and config, and to the records upstream hands out`, () => {
    const problems = [];
    const counts = {};
    for (let seed = 1; seed <= SEQUENCES; seed++) {
      runWrites(seed, problems, counts);
      if (problems.length >= 5) break;
    }
    console.log(`# analytics writes (${IMPL}): ${JSON.stringify(counts)}`);
    assert.deepEqual(problems, []);
    for (const what of ['iterations.push(record)', 'a pushed record changed in place', 'iterations = [...]', 'the assigned array changed',
      'config = {...}', 'the assigned config changed', 'a returned record changed', 'the summary\'s iterations changed', 'export', 'load']) {
      assert.ok((counts[what] ?? 0) >= 20, `${what} ran ${counts[what] ?? 0} times`);
    }
    for (const prefix of ['iterations[i].', 'delete iterations[i].', 'iterations.', 'config.']) {
      assert.ok(Object.keys(counts).filter((k) => k.startsWith(prefix)).length >= 4, `too few kinds of ${prefix} writes: ${JSON.stringify(counts)}`);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The writes, one by one.

const metrics = (i, q, extra = {}) => ({ iteration_number: i, quality_score: q, verification_status: 'passed', timestamp: at(i), tokens_used: 10 * i, ...extra });
const record = (i, q, delta, extra = {}) =>
  ({ iteration_number: i, timestamp: at(i), quality_score: q, quality_delta: delta, verification_status: 'passed', reflections: [], ...extra });
function analytics(options = {}) {
  const a = new ee.IterationAnalytics('loop', 'task', { persist: false, startTime: T0, endTime: T0, ...options });
  a.recordIteration(metrics(1, 60));
  a.recordIteration(metrics(2, 62, { reflections: ['a'] }));
  a.recordIteration(metrics(3, 63));
  return a;
}
const state = (a) => JSON.stringify([a.toJSON(), a.getRecords(), a.detectDiminishingReturns(), a.selectBestIteration(), a.getTrajectory()]);
const fields = (e) => [e.constructor, e.code, e.field];

describe(`IterationAnalytics: upstream's public fields are live (${IMPL})`, () => {
  test('iterations.push(record) counts: detection, selection, the summary and the snapshot see it', () => {
    const a = analytics();
    assert.equal(a.detectDiminishingReturns().detected, true);
    a.iterations.push(record(4, 90, 27));
    assert.equal(a.iterations.length, 4);
    assert.deepEqual(a.detectDiminishingReturns(), { detected: true, iteration: 3, reason: '2 consecutive iterations with <5% improvement' });
    assert.equal(a.selectBestIteration().selected.iteration_number, 4);
    assert.equal(a.generateSummary().total_iterations, 4);
    assert.equal(a.toJSON().records[3].quality_score, 90);
    // The next record's delta is taken from the pushed record's score, as upstream's is.
    assert.equal(a.recordIteration(metrics(5, 91)).quality_delta, 1);
    a.free();
  });

  test('a record\'s field written through iterations[i] counts, and its stored delta stays as upstream leaves it', () => {
    const a = analytics();
    a.iterations[1].quality_score = 95;
    assert.equal(a.getOptimalIteration(false).iteration_number, 2);
    // upstream recomputes nothing: record 2's delta is still +2, record 3's still +1.
    assert.deepEqual(a.getRecords().map((r) => r.quality_delta), [0, 2, 1]);
    a.iterations[2].quality_delta = -40;
    assert.equal(a.getTrajectory(), 'fluctuating');
    a.iterations[0].verification_status = 'failed';
    a.iterations[0].reflections.push('noted later');
    assert.deepEqual(a.getRecords()[0].reflections, ['noted later']);
    delete a.iterations[0].tokens_used;
    assert.equal(a.generateSummary().total_tokens, 50);
    a.free();
  });

  test('config.qualityThreshold = v changes the next answers; an assigned object is merged over the defaults and its later writes count', () => {
    const a = analytics();
    assert.equal(a.getOptimalIteration().iteration_number, 3);
    a.config.qualityThreshold = 99;
    assert.equal(a.config.qualityThreshold, 99);
    assert.equal(a.getConfig().qualityThreshold, 99);
    assert.equal(a.selectBestIteration().reason, 'No verified iterations above threshold, selected highest quality overall');
    a.config.consecutiveCountThreshold = 3;
    assert.equal(a.detectDiminishingReturns().detected, false);
    const mine = { qualityThreshold: 61 };
    a.config = mine;
    assert.equal(a.config.diminishingReturnsThreshold, 0.05, 'merged over the defaults');
    mine.qualityThreshold = 62.5;
    assert.equal(a.getOptimalIteration().iteration_number, 3);
    assert.equal(a.config.qualityThreshold, 62.5);
    a.config.selectionCriteria = 'most_recent_above_threshold';
    assert.equal(mine.selectionCriteria, 'most_recent_above_threshold', 'the assigned object is the config: it takes the write too');
    assert.equal(a.selectBestIteration().reason, 'Most recent iteration above threshold (63)');
    a.free();
  });

  test('iterations = array: the array is the history, and its later changes count', () => {
    const a = analytics();
    const mine = [record(1, 10, 0), record(2, 80, 70)];
    a.iterations = mine;
    assert.equal(a.iterations, mine);
    mine.push(record(3, 81, 1));
    mine[0].quality_score = 85;
    assert.equal(a.getOptimalIteration(false).iteration_number, 1);
    const added = a.recordIteration(metrics(4, 82));
    assert.equal(mine[3], added, 'the caller\'s array gets the new record');
    assert.equal(added.quality_delta, 1);
    a.free();
  });

  test('the records upstream hands out are its stored objects: writes to them count', () => {
    const a = analytics();
    const returned = a.recordIteration(metrics(4, 64));
    assert.equal(returned, a.iterations[3]);
    assert.equal(a.getOptimalIteration(), a.iterations[3]);
    assert.equal(a.selectBestIteration().selected, a.iterations[3]);
    const summary = a.generateSummary();
    assert.equal(summary.iterations, a.iterations);
    returned.quality_score = 10;
    assert.equal(a.getOptimalIteration().iteration_number, 3);
    summary.iterations.pop();
    assert.equal(a.getRecords().length, 3);
    // Plain copies where a copy is wanted: getRecords(), toJSON(), JSON.
    assert.deepEqual(structuredClone(a.getRecords()), a.getRecords());
    assert.equal(JSON.stringify(a.iterations), JSON.stringify(a.getRecords()));
    a.free();
  });

  test('an object that saves writes what upstream writes after such writes, and load reads it back', () => {
    const dir = folder();
    const a = new ee.IterationAnalytics('loop', 'task', { storagePath: dir, startTime: T0, endTime: T0 });
    a.recordIteration(metrics(1, 60));
    a.recordIteration(metrics(2, 70));
    a.iterations[0].quality_score = 65; // record 2's delta stays +10, as in upstream's file
    a.iterations[1].output_snapshot_path = '/out/2.md'; // upstream's record has the key (undefined): in its place
    delete a.iterations[1].token_cost_usd;
    a.iterations[1].token_cost_usd = 0.5; // a key the record lacked: after the others, as upstream's JSON has it
    a.recordIteration(metrics(3, 72));
    const file = path.join(dir, 'loop.json');
    const text = fs.readFileSync(file, 'utf8');
    assert.equal(text, JSON.stringify(a.generateSummary(), null, 2));
    const saved = JSON.parse(text).iterations;
    assert.deepEqual(saved.map((r) => [r.quality_score, r.quality_delta]), [[65, 0], [70, 10], [72, 2]]);
    assert.deepEqual(Object.keys(saved[1]).slice(-3), ['output_snapshot_path', 'reflections', 'token_cost_usd']);
    const loaded = ee.IterationAnalytics.load(file);
    assert.deepEqual(loaded.getRecords(), a.getRecords());
    loaded.recordIteration(metrics(4, 73));
    assert.deepEqual(Object.keys(JSON.parse(fs.readFileSync(file, 'utf8')).iterations[1]).slice(-3), ['output_snapshot_path', 'reflections', 'token_cost_usd']);
    a.free();
    loaded.free();
  });

  test('reset() starts a new array (the old one is the caller\'s alone) and the next save writes the file whole', () => {
    const dir = folder();
    const a = new ee.IterationAnalytics('loop', 'task', { storagePath: dir, startTime: T0, endTime: T0 });
    a.recordIteration(metrics(1, 60));
    const old = a.iterations;
    a.reset();
    old.push(record(9, 1, 0));
    a.recordIteration(metrics(2, 70));
    assert.deepEqual(a.getRecords().map((r) => r.iteration_number), [2]);
    assert.equal(fs.readFileSync(path.join(dir, 'loop.json'), 'utf8'), JSON.stringify(a.generateSummary(), null, 2));
    a.free();
  });
});

describe(`IterationAnalytics: bad writes throw the core's typed error and change nothing (${IMPL})`, () => {
  for (const [what, write, kind, code, field] of [
    ['a score out of range', (a) => { a.iterations[0].quality_score = 300; }, RangeError, 'invalid_result', 'iterations[0].quality_score'],
    ['an unknown status', (a) => { a.iterations[1].verification_status = 'PASSED'; }, RangeError, 'invalid_result', 'iterations[1].verification_status'],
    ['an unknown key', (a) => { a.iterations[2].confidence = 0.9; }, TypeError, 'unknown_option', 'iterations[2].confidence'],
    ['a deleted required field', (a) => { delete a.iterations[1].quality_score; }, TypeError, 'invalid_result', 'iterations[1].quality_score'],
    ['a timestamp that is not a date-time', (a) => { a.iterations[0].timestamp = 'noon'; }, RangeError, 'invalid_result', 'iterations[0].timestamp'],
    ['a reflection that is not a string', (a) => { a.iterations[1].reflections = ['a', 2]; }, TypeError, 'invalid_result', 'iterations[1].reflections[1]'],
    ['an iteration number of 0', (a) => { a.iterations[0].iteration_number = 0; }, RangeError, 'invalid_result', 'iterations[0].iteration_number'],
    ['a NaN delta', (a) => { a.iterations[2].quality_delta = NaN; }, RangeError, 'invalid_result', 'iterations[2].quality_delta'],
    ['a returned record', (a) => { a.getOptimalIteration().quality_score = -1; }, RangeError, 'invalid_result', 'iterations[2].quality_score'],
    ['config: out of range', (a) => { a.config.qualityThreshold = 101; }, RangeError, 'invalid_config', 'config.qualityThreshold'],
    ['config: an unknown key', (a) => { a.config.qualityThreshhold = 50; }, TypeError, 'unknown_option', 'config.qualityThreshhold'],
    ['config: undefined', (a) => { a.config.consecutiveCountThreshold = undefined; }, TypeError, 'invalid_config', 'config.consecutiveCountThreshold'],
    ['config: a deleted key', (a) => { delete a.config.selectionCriteria; }, TypeError, 'invalid_config', 'config.selectionCriteria'],
    ['config: persist is not a config key', (a) => { a.config.persist = false; }, TypeError, 'unknown_option', 'config.persist'],
    ['iterations = a string', (a) => { a.iterations = 'none'; }, TypeError, 'invalid_result', 'iterations'],
    ['iterations = an array with a bad record', (a) => { a.iterations = [record(1, 50, 0, { quality_score: 'high' })]; }, TypeError, 'invalid_result', 'iterations[0].quality_score'],
  ]) {
    test(`${what}: throws at the write`, () => {
      const a = analytics();
      const before = state(a);
      const config = JSON.stringify(a.config);
      const iterations = JSON.stringify(a.iterations);
      assert.throws(() => write(a), (e) => assert.deepEqual(fields(e), [kind, code, field]) ?? true);
      assert.equal(state(a), before);
      assert.equal(JSON.stringify(a.config), config);
      assert.equal(JSON.stringify(a.iterations), iterations);
      a.free();
    });
  }

  const uses = {
    recordIteration: (a) => a.recordIteration(metrics(9, 70)), detectDiminishingReturns: (a) => a.detectDiminishingReturns(),
    getTrajectory: (a) => a.getTrajectory(), getOptimalIteration: (a) => a.getOptimalIteration(), selectBestIteration: (a) => a.selectBestIteration(),
    generateSummary: (a) => a.generateSummary(), generateQualityChart: (a) => a.generateQualityChart(), generateReport: (a) => a.generateReport(),
    saveAnalytics: (a) => a.saveAnalytics(path.join(root, 'never.json')), getRecords: (a) => a.getRecords(), toJSON: (a) => a.toJSON(),
  };
  for (const [what, put, kind, code, field] of [
    ['out of range', (a) => a.iterations.push(record(4, 101, 38)), RangeError, 'invalid_result', 'iterations[3].quality_score'],
    ['without quality_delta', (a) => a.iterations.push({ ...record(4, 70, 7), quality_delta: undefined }), TypeError, 'invalid_result', 'iterations[3].quality_delta'],
    ['an unknown key', (a) => a.iterations.push(record(4, 70, 7, { confidence: 0.9 })), TypeError, 'unknown_option', 'iterations[3].confidence'],
    ['not an object', (a) => a.iterations.push(42), TypeError, 'invalid_result', 'iterations[3]'],
    ['put at an index', (a) => { a.iterations[1] = { ...record(2, 62, 2), verification_status: 'ok' }; }, RangeError, 'invalid_result', 'iterations[1].verification_status'],
    ['a reflection pushed that is not a string', (a) => a.iterations[1].reflections.push(5), TypeError, 'invalid_result', 'iterations[1].reflections[1]'],
  ]) {
    test(`a record put in from outside, ${what}: every use throws, nothing changed; removing it restores the object`, () => {
      const a = analytics();
      const before = state(a);
      put(a);
      for (const [name, use] of Object.entries(uses)) {
        assert.throws(() => use(a), (e) => assert.deepEqual(fields(e), [kind, code, field]) ?? true, name);
      }
      if (what.startsWith('a reflection')) a.iterations[1].reflections.pop();
      else if (what === 'put at an index') a.iterations[1] = record(2, 62, 2, { tokens_used: 20, reflections: ['a'] });
      else a.iterations.pop();
      assert.equal(state(a), before);
      a.free();
    });
  }

  test('an object put in and made bad afterwards, an assigned array or config made bad: the next use throws', () => {
    const a = analytics();
    const mine = record(4, 70, 7);
    a.iterations.push(mine);
    a.detectDiminishingReturns();
    const before = state(a);
    mine.verification_status = 'PASSED';
    assert.throws(() => a.detectDiminishingReturns(), (e) => assert.deepEqual(fields(e), [RangeError, 'invalid_result', 'iterations[3].verification_status']) ?? true);
    mine.verification_status = 'passed';
    assert.equal(state(a), before);
    const list = [record(1, 50, 0)];
    a.iterations = list;
    list.push('x');
    assert.throws(() => a.getTrajectory(), (e) => assert.deepEqual(fields(e), [TypeError, 'invalid_result', 'iterations[1]']) ?? true);
    list.pop();
    const config = { qualityThreshold: 50 };
    a.config = config;
    config.qualityThreshold = -5;
    assert.throws(() => a.getOptimalIteration(), (e) => assert.deepEqual(fields(e), [RangeError, 'invalid_config', 'config.qualityThreshold']) ?? true);
    config.qualityThreshold = 50;
    assert.equal(a.getOptimalIteration().iteration_number, 1);
    a.free();
  });
});

// ---------------------------------------------------------------------------------------------
// The normal loop's cost: a package copy over a native module that counts its calls.

describe(`IterationAnalytics: the normal loop pays nothing for the live fields (${IMPL})`, () => {
  const require = createRequire(import.meta.url);
  const dir = path.join(ROOT, 'bindings', IMPL === 'wasm' ? 'wasm' : 'node');
  const native = require(path.join(dir, IMPL === 'wasm' ? 'pkg/nodejs/earlyexit_wasm.js' : 'native.cjs'));
  const replay = IMPL === 'wasm' ? require(path.join(dir, 'pkg/nodejs/earlyexit_replay.js')) : null;
  const isReplayOp = (op) => REPLAY_OPS[op] !== undefined;
  const ops = [];
  class CountingEngine extends native.NativeEngine {
    call(op, args) {
      ops.push(op);
      return super.call(op, args);
    }
  }
  const exec = (op, args) => (ops.push(op), replay !== null && isReplayOp(op) ? replay.exec(op, args) : native.exec(op, args));
  const counting = Object.assign(Object.create(null), native, { exec, NativeEngine: CountingEngine });
  const { api, ready } = require(path.join(dir, 'api.cjs'))(counting, null);
  ready();
  const IA = { RECORD: OP.IA_RECORD, DETECT: OP.IA_DETECT, TEXT_ASSIGN: OP.IA_TEXT_ASSIGN, TEXT_RECORD_CHECK: OP.IA_TEXT_RECORD_CHECK };

  test('one native call per record and per detection; reading iterations and config costs none', () => {
    const a = new api.IterationAnalytics({ startTime: T0 });
    ops.length = 0;
    for (let i = 1; i <= 100; i++) {
      a.recordIteration(metrics(i, 50 + (i % 7)));
      a.detectDiminishingReturns();
      void a.iterations[i - 1].quality_score;
      void a.iterations.length;
      void a.config.qualityThreshold;
    }
    // (reading config the first time asks the core for it once)
    assert.deepEqual(ops.filter((op) => op !== OP.IA_CONFIG), Array.from({ length: 100 }, () => [IA.RECORD, IA.DETECT]).flat());
    a.free();
  });

  test('a write is checked once: records pushed by hand are not checked again at every use', () => {
    const a = new api.IterationAnalytics({ startTime: T0 });
    for (let i = 1; i <= 20; i++) a.recordIteration(metrics(i, 50 + i));
    ops.length = 0;
    a.iterations[3].quality_score = 10;
    assert.deepEqual(ops, [IA.TEXT_RECORD_CHECK]);
    a.iterations.push(record(21, 90, 19));
    ops.length = 0;
    a.detectDiminishingReturns();
    assert.ok(ops.includes(IA.TEXT_ASSIGN), `the first use takes the history whole: ${ops}`);
    for (let k = 0; k < 10; k++) {
      ops.length = 0;
      a.detectDiminishingReturns();
      assert.deepEqual(ops, [IA.DETECT], 'later uses check nothing again');
    }
    a.free();
  });
});
