// Differential test of IterationAnalytics: random valid call sequences through the package
// AND ../shared/reference/iteration-analytics.mjs side by side, both reading the same clock
// (each call runs with `Date` answering one scripted time, so the clock paths are compared
// too). Every answer is compared over the reference's keys (numbers bit for bit, strings byte
// for byte); upstream-form objects that persist write their summary into one folder each,
// and the files are compared byte for byte after every record, as are the saved reports and
// a load of each side's file.
//
// The reference runs with the listed deliberate differences applied (driver.mjs
// `projectClass`: totals over the records that have the field, the highest_quality_verified
// fallback's reason, N/A in the report for a missing tokens_used or token_cost_usd; the
// vectors mark which answers they change). How often each kind of call ran is printed.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ee, { IMPL, HAVE_REFERENCE, NO_REFERENCE, REFERENCE_DIR } from './impl.mjs';
import { compare, rng } from './support.mjs';

const SEQUENCES = 400;
const referenceFile = path.join(REFERENCE_DIR, 'iteration-analytics.mjs');
const available = HAVE_REFERENCE && fs.existsSync(referenceFile);
const ref = available ? await import(pathToFileURL(referenceFile).href) : null;
const driver = available ? await import('../vectors/driver.mjs') : null;
const Project = available ? driver.projectClass(ref.IterationAnalytics) : null;

const stats = new Map();
const count = (key) => stats.set(key, (stats.get(key) ?? 0) + 1);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'earlyexit-analytics-diff-'));
after(() => {
  fs.rmSync(root, { recursive: true, force: true });
  console.log(`analytics differential (${IMPL}): ${[...stats].sort().map(([k, n]) => `${k} ${n}`).join(', ')}`);
});

const STATUSES = ['passed', 'passed', 'failed', 'skipped'];
const CRITERIA = ['highest_quality_verified', 'highest_quality', 'most_recent_above_threshold'];

// One clock for both sides: every call advances it by a random step.
function clockOf(r) {
  let ms = Date.UTC(2026, 0, 1) + r.int(0, 1e9);
  return () => {
    ms += r.int(1, 5000);
    return new Date(ms).toISOString();
  };
}

function randomConfig(r, folder) {
  const config = { storagePath: folder };
  if (r.chance(0.5)) config.diminishingReturnsThreshold = r.pick([0.05, 0.1, 0.01, 0.07, 0.2, 0]);
  if (r.chance(0.5)) config.consecutiveCountThreshold = r.int(1, 4);
  if (r.chance(0.5)) config.qualityThreshold = r.pick([70, 50, 80, 90, r.round(r.next() * 100, 1)]);
  if (r.chance(0.5)) config.selectionCriteria = r.pick(CRITERIA);
  return config;
}

function randomMetrics(r, state) {
  state.iteration += r.chance(0.9) ? 1 : r.int(-2, 5);
  if (state.iteration < 1) state.iteration = 1;
  const style = r.pick(['flat', 'climb', 'random', 'zero']);
  let q = state.quality;
  if (style === 'flat') q += r.pick([0, 0.1, -0.2, 0.5, 1, r.round(r.next() * 2, 2)]);
  else if (style === 'climb') q += r.round(r.next() * 15, 1);
  else if (style === 'zero') q = r.chance(0.5) ? 0 : q;
  else q = r.round(r.next() * 100, r.int(0, 3));
  q = Math.max(0, Math.min(100, q));
  state.quality = q;
  const m = { iteration_number: state.iteration, quality_score: q, verification_status: r.pick(STATUSES) };
  // Mostly full usage (then the totals are upstream's own); sometimes a field is missing.
  if (r.chance(0.9)) m.tokens_used = r.pick([r.int(0, 50_000), r.round(r.next() * 1e6, 3), 1234567]);
  if (r.chance(0.9)) m.token_cost_usd = r.pick([r.round(r.next(), 4), 0.1, 0.2, r.round(r.next() * 50, 6)]);
  if (r.chance(0.9)) m.execution_time_ms = r.int(0, 600_000);
  if (r.chance(0.4)) m.output_snapshot_path = r.pick([`/snapshots/${state.iteration}.md`, null]);
  if (r.chance(0.4)) m.reflections = Array.from({ length: r.int(0, 3) }, (_, k) => `note ${k} "quoted" é`);
  if (r.chance(0.2)) m.quality_delta = r.round(r.next() * 10 - 5, 2); // ignored by both sides
  return m;
}

function runSequence(seed, problems) {
  const r = rng(seed);
  const clock = clockOf(r);
  const persist = r.chance(0.35);
  const ours = { folder: path.join(root, `${seed}-ours`) };
  const theirs = { folder: path.join(root, `${seed}-ref`) };
  const config = randomConfig(r, ours.folder);
  const refConfig = { ...config, storagePath: theirs.folder };
  const loopId = `loop-${seed}`;
  const task = r.pick(['Fix the flaky tests', 'Implement "auth" with JWT', 'é ü — ✓']);
  const where = `sequence ${seed} (${persist ? 'persisting' : 'not saving'}, config ${JSON.stringify(config)})`;
  let now = clock();
  const a = driver.referenceCall(now, () => new ee.IterationAnalytics(loopId, task, { ...config, persist }));
  const b = driver.referenceCall(now, () => new Project(loopId, task, refConfig));
  const check = (what, expected, actual) => {
    const diffs = compare(expected, actual);
    if (diffs.length) problems.push(`${where}, ${what}: ${diffs.slice(0, 3).join('; ')}`);
    return diffs.length === 0;
  };
  const files = (name) => [path.join(ours.folder, name), path.join(theirs.folder, name)];
  const sameFile = (what, name) => {
    const [x, y] = files(name);
    const [tx, ty] = [fs.readFileSync(x, 'utf8'), fs.readFileSync(y, 'utf8')];
    if (tx !== ty) problems.push(`${where}, ${what}: ${name} differs:\n--- ours\n${tx.slice(0, 600)}\n--- reference\n${ty.slice(0, 600)}`);
    return tx === ty;
  };
  // Both sides under the same clock reading; the raw reference's answer is counted when it differs.
  const both = (what, call) => {
    now = clock();
    const got = driver.referenceCall(now, () => call(a));
    const want = driver.referenceCall(now, () => call(b));
    count(what);
    return check(what, structuredClone(want), got);
  };
  const state = { iteration: 0, quality: r.round(r.next() * 80, 1) };
  const steps = r.int(1, 16);
  for (let step = 0; step < steps; step++) {
    const action = r.next();
    if (action < 0.45) {
      const m = randomMetrics(r, state);
      now = r.chance(0.3) ? clock() : undefined;
      if (now !== undefined) m.timestamp = now; // given: the project uses it, the reference reads the same clock
      else now = clock();
      const endBefore = b.endTime;
      const got = driver.referenceCall(now, () => a.recordIteration(structuredClone(m)));
      const want = structuredClone(driver.referenceCall(now, () => b.recordIteration(structuredClone(m))));
      // The reference saves after every record, so its first record sets endTime; an object
      // that does not save leaves it to the first summary (a listed difference).
      if (!persist) b.endTime = endBefore;
      count('recordIteration');
      if (!check('recordIteration', want, got)) return;
      if (persist && !sameFile('the summary saved after a record', `${loopId}.json`)) return;
      continue;
    }
    let ok = true;
    if (action < 0.52) ok = both('detectDiminishingReturns', (x) => x.detectDiminishingReturns());
    else if (action < 0.57) ok = both('getTrajectory', (x) => x.getTrajectory());
    else if (action < 0.62) {
      const v = r.chance(0.5);
      ok = both('getOptimalIteration', (x) => x.getOptimalIteration(v));
    } else if (action < 0.67) ok = both('selectBestIteration', (x) => x.selectBestIteration());
    else if (action < 0.73) ok = both('generateSummary', (x) => x.generateSummary());
    else if (action < 0.77) ok = both('generateQualityChart', (x) => x.generateQualityChart());
    else if (action < 0.82) ok = both('generateReport', (x) => x.generateReport());
    else if (action < 0.86) {
      ok = both('fields', (x) => ({
        loopId: x.loopId, taskDescription: x.taskDescription, startTime: x.startTime, endTime: x.endTime, iterations: x.iterations,
      }));
    } else if (action < 0.89) {
      const ms = r.pick([r.int(0, 1e8), r.round(r.next() * 1e7, 3), -r.int(0, 1e6)]);
      count('formatDuration');
      ok = check('formatDuration', ref.IterationAnalytics.formatDuration(ms), ee.IterationAnalytics.formatDuration(ms));
    } else if (action < 0.94) {
      // Both files, in their folders (upstream's paths), then compared byte for byte.
      ok = both('export', (x) => {
        const out = x.export();
        return { json: path.basename(out.json), markdown: path.basename(out.markdown) };
      }) && sameFile('export: the summary', `${loopId}.json`) && sameFile('export: the report', `${loopId}-report.md`);
    } else if (action < 0.97) {
      // upstream's load of each side's own file: the same analytics, saving into the file's folder.
      now = clock();
      const [x, y] = files(`${loopId}.json`);
      driver.referenceCall(now, () => a.saveAnalytics());
      driver.referenceCall(now, () => b.saveAnalytics());
      const loadedOurs = driver.referenceCall(now, () => ee.IterationAnalytics.load(x, { persist }));
      // upstream's load builds a plain reference object: give it the listed differences too.
      const loadedRef = Object.setPrototypeOf(driver.referenceCall(now, () => ref.IterationAnalytics.load(y)), Project.prototype);
      count('load');
      ok = check('load', { config: { ...loadedRef.config, storagePath: ours.folder }, iterations: loadedRef.iterations, start: loadedRef.startTime, end: loadedRef.endTime },
        { config: loadedOurs.getConfig(), iterations: loadedOurs.iterations, start: loadedOurs.startTime, end: loadedOurs.endTime });
      a.free(); // the loaded objects carry on
      return ok ? continueWith(loadedOurs, loadedRef) : undefined;
    } else {
      // A snapshot round trip changes nothing.
      const restored = ee.IterationAnalytics.fromJSON(JSON.stringify(a.toJSON()));
      count('toJSON/fromJSON');
      ok = JSON.stringify(restored.toJSON()) === JSON.stringify(a.toJSON());
      if (!ok) problems.push(`${where}: snapshot round trip differs`);
      restored.free();
    }
    if (!ok) return;
  }
  a.free();

  // After a load: a few more records into the loaded objects, files compared again.
  function continueWith(x, y) {
    for (let k = 0; k < 3; k++) {
      const m = randomMetrics(r, state);
      now = clock();
      const endBefore = y.endTime;
      const got = driver.referenceCall(now, () => x.recordIteration(structuredClone(m)));
      const want = structuredClone(driver.referenceCall(now, () => y.recordIteration(structuredClone(m))));
      if (!persist) y.endTime = endBefore;
      count('recordIteration after load');
      if (!check('recordIteration after load', want, got)) return;
      if (persist && !sameFile('the summary saved after a record, after load', `${loopId}.json`)) return;
    }
    if (check('generateSummary after load', structuredClone(driver.referenceCall(now, () => y.generateSummary())),
      driver.referenceCall(now, () => x.generateSummary()))) count('generateSummary after load');
    x.free();
  }
}

test(`IterationAnalytics against iteration-analytics.mjs: ${SEQUENCES} random sequences (${IMPL})`, { skip: available ? false : NO_REFERENCE }, () => {
  const problems = [];
  for (let seed = 1; seed <= SEQUENCES; seed++) {
    runSequence(seed, problems);
    if (problems.length >= 5) break;
  }
  assert.deepEqual(problems, []);
  // Every kind of call ran, and the files were compared.
  for (const what of ['recordIteration', 'generateReport', 'generateSummary', 'export', 'load', 'generateQualityChart', 'fields']) {
    assert.ok((stats.get(what) ?? 0) >= 20, `${what} ran ${stats.get(what) ?? 0} times`);
  }
});
