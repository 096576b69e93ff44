// IterationAnalytics as a drop-in for aiwg's iteration-analytics.mjs, beyond the vectors and
// the differential test: the two constructor forms and when they write, the cost of the
// save after every record (bytes written per record, counted), a file changed behind the
// object's back, upstream's public fields (read and assigned), load, and the errors of the
// file methods.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ee, { IMPL } from './impl.mjs';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'earlyexit-analytics-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let folders = 0;
const folder = () => path.join(root, `f${++folders}`);
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T06:00:00.000Z';
const at = (i) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
const metrics = (i, q = 50 + (i % 40), extra = {}) => ({
  iteration_number: i, quality_score: q, verification_status: i % 3 ? 'passed' : 'failed', tokens_used: 100 * i, token_cost_usd: 0.01 * i,
  execution_time_ms: 1000 + i, timestamp: at(i), reflections: [`note ${i}`], ...extra,
});

// Counts the bytes the package writes through node:fs (the package's `fs` is this object).
function countWrites() {
  const saved = { writeSync: fs.writeSync, writeFileSync: fs.writeFileSync };
  const counter = { bytes: 0, calls: 0 };
  fs.writeSync = function writeSync(fd, data, ...rest) {
    counter.bytes += Buffer.byteLength(data);
    counter.calls += 1;
    return saved.writeSync.call(this, fd, data, ...rest);
  };
  fs.writeFileSync = function writeFileSync(file, data, ...rest) {
    counter.bytes += Buffer.byteLength(data);
    counter.calls += 1;
    return saved.writeFileSync.call(this, file, data, ...rest);
  };
  counter.restore = () => Object.assign(fs, saved);
  return counter;
}

describe(`IterationAnalytics files (${IMPL})`, () => {
  test('upstream\'s form creates its folder and saves after every record; persist: false and the config-object form write nothing', () => {
    const dir = folder();
    const a = new ee.IterationAnalytics('loop-1', 'task', { storagePath: dir, startTime: T0 });
    assert.equal(fs.existsSync(dir), true, 'the folder exists after the constructor, as upstream makes it');
    assert.deepEqual(fs.readdirSync(dir), []);
    a.recordIteration(metrics(1));
    const file = path.join(dir, 'loop-1.json');
    assert.equal(fs.readFileSync(file, 'utf8'), JSON.stringify(a.generateSummary(), null, 2));
    assert.equal(a.endTime !== null, true, 'the first save set endTime, as upstream\'s does');

    const quiet = folder();
    const b = new ee.IterationAnalytics('loop-2', 'task', { storagePath: quiet, persist: false });
    b.recordIteration(metrics(1));
    b.generateSummary();
    assert.equal(fs.existsSync(quiet), false, 'persist: false creates nothing');
    const c = new ee.IterationAnalytics({ storagePath: quiet });
    c.recordIteration(metrics(1));
    assert.equal(fs.existsSync(quiet), false, 'the config-object form creates nothing');
    // An explicit save writes (the default file needs a loopId, so the config form names one).
    const mine = path.join(root, 'mine.json');
    assert.equal(c.saveAnalytics(mine), mine);
    assert.equal(fs.readFileSync(mine, 'utf8'), JSON.stringify(c.generateSummary(), null, 2));
    assert.throws(() => c.saveAnalytics(), (e) => e instanceof TypeError && e.code === 'invalid_config' && e.field === 'filename');
    assert.throws(() => c.saveAnalytics(''), (e) => e instanceof RangeError && e.field === 'filename');
    assert.throws(() => new ee.IterationAnalytics({ persist: true }), (e) => e instanceof RangeError && e.field === 'persist');
    for (const x of [a, b, c]) x.free();
  });

  test('saving after every record costs the record, not the history: bytes written per record stay flat', () => {
    const dir = folder();
    const a = new ee.IterationAnalytics('long', 'a long loop', { storagePath: dir, startTime: T0 });
    const file = path.join(dir, 'long.json');
    const perRecord = [];
    const counter = countWrites();
    try {
      for (let i = 1; i <= 2000; i++) {
        const before = counter.bytes;
        a.recordIteration(metrics(i));
        perRecord.push(counter.bytes - before);
      }
    } finally {
      counter.restore();
    }
    const size = fs.statSync(file).size;
    const late = Math.max(...perRecord.slice(1000));
    console.log(`analytics autosave (${IMPL}): 2000 records, file ${size} bytes; bytes written for record 1000+: at most ${late}; all records ${counter.bytes} bytes (a rewrite each time would be ~${Math.round(size * 1000)})`);
    assert.ok(late < 2000, `record 1000+ wrote ${late} bytes`);
    assert.ok(counter.bytes < 4 * size, `${counter.bytes} bytes written for a ${size}-byte file`);
    // The file is upstream's JSON.stringify(summary, null, 2), byte for byte.
    assert.equal(fs.readFileSync(file, 'utf8'), JSON.stringify(a.generateSummary(), null, 2));
    a.free();
  });

  test('a file changed or removed behind the object\'s back is written whole, and right', () => {
    const dir = folder();
    const a = new ee.IterationAnalytics('loop', 'task', { storagePath: dir, startTime: T0, endTime: T1 });
    const file = path.join(dir, 'loop.json');
    a.recordIteration(metrics(1));
    fs.appendFileSync(file, '\n// edited');
    a.recordIteration(metrics(2));
    assert.equal(fs.readFileSync(file, 'utf8'), JSON.stringify(a.generateSummary(), null, 2));
    fs.rmSync(file);
    a.recordIteration(metrics(3));
    assert.equal(fs.readFileSync(file, 'utf8'), JSON.stringify(a.generateSummary(), null, 2));
    // Another object on the same file (same loopId): each save is still a whole, valid summary.
    const b = new ee.IterationAnalytics('loop', 'task', { storagePath: dir, startTime: T0, endTime: T1 });
    b.recordIteration(metrics(1, 99));
    a.recordIteration(metrics(4));
    assert.equal(fs.readFileSync(file, 'utf8'), JSON.stringify(a.generateSummary(), null, 2));
    a.reset();
    a.recordIteration(metrics(5));
    assert.equal(fs.readFileSync(file, 'utf8'), JSON.stringify(a.generateSummary(), null, 2));
    a.free();
    b.free();
  });

  test('load reads upstream\'s file back: the same records and times, the default config, saving into the file\'s folder', () => {
    const dir = folder();
    const a = new ee.IterationAnalytics('loop', 'task', { storagePath: dir, qualityThreshold: 90, startTime: T0, endTime: T1 });
    for (let i = 1; i <= 4; i++) a.recordIteration(metrics(i));
    const file = a.saveAnalytics();
    const loaded = ee.IterationAnalytics.load(file);
    assert.equal(loaded.loopId, 'loop');
    assert.equal(loaded.taskDescription, 'task');
    assert.equal(loaded.startTime, T0);
    assert.equal(loaded.endTime, T1);
    // (as upstream's: a recorded record holds every key, an absent field as undefined; a
    // loaded one holds what the file lists)
    assert.equal(JSON.stringify(loaded.iterations), JSON.stringify(a.iterations));
    assert.deepEqual(loaded.getRecords(), a.getRecords());
    assert.equal(loaded.getConfig().qualityThreshold, 70, 'upstream\'s file holds no config: the default');
    assert.equal(loaded.getConfig().storagePath, dir);
    loaded.recordIteration(metrics(5));
    assert.equal(fs.readFileSync(file, 'utf8'), JSON.stringify(loaded.generateSummary(), null, 2));
    const quiet = ee.IterationAnalytics.load(file, { persist: false, qualityThreshold: 90 });
    assert.equal(quiet.getConfig().qualityThreshold, 90);
    assert.throws(() => ee.IterationAnalytics.load(path.join(dir, 'nope.json')),
      (e) => e.message === `Analytics file not found: ${path.join(dir, 'nope.json')}` && e.code === 'ENOENT');
    assert.throws(() => ee.IterationAnalytics.load(5), (e) => e instanceof TypeError && e.code === 'invalid_config' && e.field === 'filepath');
    fs.writeFileSync(path.join(dir, 'bad.json'), '{"loop_id":');
    assert.throws(() => ee.IterationAnalytics.load(path.join(dir, 'bad.json')), (e) => e instanceof RangeError && e.code === 'invalid_snapshot' && e.field === 'summary');
    for (const x of [a, loaded, quiet]) x.free();
  });

  test('saveReport and export write upstream\'s files at upstream\'s paths', () => {
    const dir = folder();
    const a = new ee.IterationAnalytics('loop', 'task', { storagePath: dir, persist: false, startTime: T0, endTime: T1 });
    a.recordIteration(metrics(1));
    const paths = a.export();
    assert.deepEqual(paths, { json: path.join(dir, 'loop.json'), markdown: path.join(dir, 'loop-report.md') });
    const report = fs.readFileSync(paths.markdown, 'utf8');
    assert.ok(report.startsWith('# Ralph Loop Analytics: loop\n\n**Task:** task\n'), report);
    const own = path.join(root, 'own-report.md');
    assert.equal(a.saveReport(own), own);
    assert.throws(() => a.saveReport(7), (e) => e instanceof TypeError && e.field === 'filename');
    a.free();
  });
});

describe(`IterationAnalytics: upstream's public fields (${IMPL})`, () => {
  test('read, and assigned through the core (validated; a bad value throws and changes nothing)', () => {
    const a = new ee.IterationAnalytics('loop', 'task', { persist: false, startTime: T0 });
    a.recordIteration(metrics(1));
    a.recordIteration(metrics(2));
    assert.equal(a.loopId, 'loop');
    assert.equal(a.endTime, null);
    a.endTime = T1;
    assert.equal(a.generateSummary().end_time, T1);
    a.loopId = 'renamed';
    assert.equal(a.generateSummary().loop_id, 'renamed');
    const before = JSON.stringify(a.toJSON());
    for (const [field, value, kind, errorField] of [
      ['endTime', 'noon', RangeError, 'endTime'], ['startTime', 5, TypeError, 'startTime'], ['loopId', null, TypeError, 'loopId'],
      ['iterations', [{ ...a.iterations[0], quality_score: 300 }], RangeError, 'iterations[0].quality_score'],
      ['iterations', 'none', TypeError, 'iterations'], ['config', { qualityThreshhold: 5 }, TypeError, 'config.qualityThreshhold'],
    ]) {
      assert.throws(() => { a[field] = value; }, (e) => e instanceof kind && e.field === errorField, `${field} = ${JSON.stringify(value)}`);
      assert.equal(JSON.stringify(a.toJSON()), before);
    }
    // upstream's load assigns iterations: records as a summary lists them, quality_delta checked.
    const records = a.iterations;
    a.iterations = records.slice(0, 1);
    assert.equal(a.getRecords().length, 1);
    a.config = { qualityThreshold: 40 };
    assert.equal(a.getConfig().qualityThreshold, 40);
    assert.equal(a.getConfig().diminishingReturnsThreshold, 0.05, 'merged over the defaults');
    a.free();
  });

  test('a restored snapshot never saves by itself', () => {
    const dir = folder();
    const a = new ee.IterationAnalytics('loop', 'task', { storagePath: dir });
    const restored = ee.IterationAnalytics.fromJSON(a.toJSON());
    fs.rmSync(dir, { recursive: true });
    restored.recordIteration(metrics(1));
    assert.equal(fs.existsSync(dir), false);
    a.free();
    restored.free();
  });

  test('formatDuration is upstream\'s', () => {
    assert.equal(ee.IterationAnalytics.formatDuration(3_723_000), '1h 2m 3s');
    assert.equal(ee.IterationAnalytics.formatDuration(61_500), '1m 1s');
    assert.throws(() => ee.IterationAnalytics.formatDuration(NaN), (e) => e instanceof RangeError && e.field === 'ms');
  });
});
