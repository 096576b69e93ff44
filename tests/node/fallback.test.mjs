// `earlyexit` on a platform without a native addon: the package as npm installs it there
// (its JS files, no .node file, no earlyexit-<platform> package) beside earlyexit-wasm, its
// dependency. It must load earlyexit-wasm after one notice line on stderr, answer as the
// addon does, and with EARLYEXIT_NO_FALLBACK=1 fail instead. Runs once, with the native suite
// (the release artifacts get the same check from an npm install: scripts/verify-npm.sh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { IMPL, ROOT } from './impl.mjs';

const skip = IMPL !== 'native' && 'runs with the native suite (EARLYEXIT_IMPL=native)';

function installWithoutAddon() {
  const dir = mkdtempSync(path.join(tmpdir(), 'earlyexit-fallback-'));
  const modules = path.join(dir, 'node_modules');
  const pkg = path.join(modules, 'earlyexit');
  mkdirSync(pkg, { recursive: true });
  const source = path.join(ROOT, 'bindings', 'node');
  for (const file of readdirSync(source)) {
    if (/\.(cjs|mjs|ts|mts)$/.test(file) || file === 'package.json') cpSync(path.join(source, file), path.join(pkg, file));
  }
  symlinkSync(path.join(ROOT, 'bindings', 'wasm'), path.join(modules, 'earlyexit-wasm'), 'dir');
  return dir;
}

const SCRIPT = `
  const ee = require('earlyexit');
  const stopper = new ee.EarlyStopping();
  stopper.recordIterationResult(1, { quality_score: 91, confidence: 0.97, verification_status: 'passed',
                                     quality_delta: 0, timestamp: '2026-01-01T00:00:00.000Z' });
  const wasm = require('earlyexit-wasm');
  console.log(JSON.stringify({ reason: stopper.shouldStop(1).reason, same: ee.EarlyStopping === wasm.EarlyStopping,
                               addons: Object.keys(require.cache).filter((f) => f.endsWith('.node')).length }));`;

test('earlyexit without an addon falls back to earlyexit-wasm after one notice line', { skip }, () => {
  const dir = installWithoutAddon();
  try {
    const env = { ...process.env };
    delete env.EARLYEXIT_NO_FALLBACK;
    const run = spawnSync(process.execPath, ['-e', SCRIPT], { cwd: dir, env, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const out = JSON.parse(run.stdout);
    assert.deepEqual(out, { reason: 'High confidence (97.0%) AND verification passed', same: true, addons: 0 });
    const lines = run.stderr.split('\n').filter(Boolean);
    assert.equal(lines.length, 1, run.stderr);
    assert.match(lines[0], new RegExp(`^earlyexit: no native addon for ${process.platform}-${process.arch} \\(.+\\); using earlyexit-wasm`));

    const strict = spawnSync(process.execPath, ['-e', SCRIPT], { cwd: dir, env: { ...env, EARLYEXIT_NO_FALLBACK: '1' }, encoding: 'utf8' });
    assert.notEqual(strict.status, 0, 'EARLYEXIT_NO_FALLBACK=1 must make the missing addon an error');
    assert.match(strict.stderr, /Cannot find native binding/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
