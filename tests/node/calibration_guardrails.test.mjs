// Guardrails on loop calibration through the JS API (native and wasm, by EARLYEXIT_IMPL):
// calibrationPlan is the core's plan, fromCalibration takes a file: URL, and an artifact
// that certifies nothing loads with a one-line notice, printed once per process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ee, { PACKAGE, ROOT } from './impl.mjs';

const doc = JSON.parse(readFileSync(path.join(ROOT, 'tests', 'vectors', 'replay', 'loop_calibration.json'), 'utf8'));

test('calibrationPlan: 91 tasks with no premature stop at the defaults, both call styles', () => {
  const plan = ee.calibrationPlan();
  assert.deepEqual(plan, ee.calibrationPlan(0.025, 0.1));
  assert.deepEqual(plan, ee.calibrationPlan({ risk: 0.025, delta: 0.1 }));
  assert.equal(plan.minimumToCertify, 91);
  assert.deepEqual(plan.tasksNeeded.map((r) => [r.prematureStops, r.tasks]), [[0, 91], [1, 155], [2, 212], [3, 266]]);
  // The artifact records the same minimum.
  const cal = ee.calibrateLoopPolicy(doc.runs.slice(0, 50));
  assert.equal(cal.artifact.certificate.sampleSizes.minimumToCertify, 91);
  for (const [args, field, kind] of [
    [[0], 'risk', RangeError], [[1], 'risk', RangeError], [[0.1, 1.5], 'delta', RangeError], [[NaN], 'risk', RangeError],
    [[1e-17], 'risk', RangeError], [['x'], 'risk', TypeError], [[{ steps: 3 }], 'steps', TypeError],
  ]) {
    assert.throws(() => ee.calibrationPlan(...args), (e) => e instanceof kind && e.field === field, JSON.stringify(args));
  }
});

test('fromCalibration takes a file: URL; a string stays JSON text', () => {
  const cal = ee.calibrateLoopPolicy(doc.runs, doc.cases[0].options);
  const dir = mkdtempSync(path.join(tmpdir(), 'earlyexit-'));
  const file = path.join(dir, 'artifact.json');
  writeFileSync(file, JSON.stringify(cal));
  // Not promoted: the calibration's most conservative candidate (patience 4) is enforced.
  assert.equal(ee.EarlyStopping.fromCalibration(pathToFileURL(file)).getConfig().noImprovementPatience, 4);
  assert.throws(() => ee.EarlyStopping.fromCalibration(file), (e) => e.code === 'invalid_artifact');
  assert.throws(() => ee.EarlyStopping.fromCalibration(pathToFileURL(path.join(dir, 'missing.json'))), (e) => e.code === 'ENOENT');
  assert.throws(() => ee.EarlyStopping.fromCalibration(new URL('https://example.invalid/a.json')), (e) => e.code === 'invalid_artifact');
});

test('an uncertified artifact loads with one notice per process', () => {
  const uncertified = ee.calibrateLoopPolicy(doc.runs.slice(0, 50));
  const certified = ee.calibrateLoopPolicy(doc.runs, doc.cases[0].options);
  assert.equal(uncertified.certified, false);
  const dir = mkdtempSync(path.join(tmpdir(), 'earlyexit-'));
  writeFileSync(path.join(dir, 'u.json'), JSON.stringify(uncertified));
  writeFileSync(path.join(dir, 'c.json'), JSON.stringify(certified));
  const run = (files) => spawnSync(process.execPath, ['--input-type=module', '-e', `
    import { readFileSync } from 'node:fs';
    import { EarlyStopping } from '${PACKAGE}';
    for (const f of ${JSON.stringify(files)}) EarlyStopping.fromCalibration(readFileSync(f, 'utf8'));`],
  { cwd: ROOT, encoding: 'utf8' });
  const twice = run([path.join(dir, 'u.json'), path.join(dir, 'u.json'), path.join(dir, 'c.json')]);
  assert.equal(twice.status, 0, twice.stderr);
  const lines = twice.stderr.trim().split('\n');
  // The notice, then (once too) why the artifact, not promoted, runs its most conservative policy.
  assert.equal(lines.length, 2, twice.stderr);
  assert.match(lines[0], /^earlyexit: loading an uncertified loop calibration \(too_few_runs; 50 tasks, 91 needed/);
  assert.match(lines[1], /^earlyexit: the artifact is not promoted: its calibration's most conservative policy is enforced/);
  const quiet = run([path.join(dir, 'c.json')]);
  assert.equal(quiet.status, 0, quiet.stderr);
  assert.equal(quiet.stderr.trim().split('\n').length, 1, quiet.stderr);
  assert.match(quiet.stderr, /^earlyexit: the artifact is not promoted/);
});
