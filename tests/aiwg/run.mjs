// Runs upstream's own test files for the four modules the npm packages replace (aiwg's
// early-stopping, iteration-analytics, behavior-detector and intervention-system tests)
// against both packages, `earlyexit` (napi) and `earlyexit-wasm`: a drop-in passes them.
//
// The files are read by path from the reference directory (EARLYEXIT_REFERENCE_DIR, default
// ../shared/reference beside the repository: aiwg-tests/), never copied into the project. At
// test time each is written into a temporary folder under test-output/aiwg/ with only its
// import lines of upstream's modules rewritten to the package; two run under vitest, two
// under their own runner (plain node: one `✓ name` line per passing test, the first failure
// throws). Prints one line per package and file, then `aiwg: N passed, M failed` (the
// suite's closing format, which scripts/test-all.sh reads); without the reference folder,
// a message saying so and no count.
//
// usage: node tests/aiwg/run.mjs [native|wasm ...]   (default: both)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const REFERENCE = path.resolve(process.env.EARLYEXIT_REFERENCE_DIR ?? path.join(ROOT, '..', 'shared', 'reference'));
const TESTS = path.join(REFERENCE, 'aiwg-tests');

// Each file, the upstream module each of its import lines names (by its file name), the
// package export that replaces it, and how the file runs.
const SUITES = [
  { file: 'early-stopping.test.mjs', runner: 'node', modules: ['early-stopping.mjs', 'iteration-analytics.mjs'] },
  { file: 'iteration-analytics.test.mjs', runner: 'node', modules: ['iteration-analytics.mjs'] },
  { file: 'behavior-detector.test.mjs', runner: 'vitest', modules: ['behavior-detector.mjs'] },
  { file: 'intervention-system.test.mjs', runner: 'vitest', modules: ['intervention-system.mjs'] },
];
const PACKAGES = { native: 'earlyexit', wasm: 'earlyexit-wasm' };

/** `text` with each `import ... from '.../<module>'` line's specifier replaced by `pkg`. */
export function rewriteImports(text, modules, pkg) {
  let rewritten = 0;
  const lines = text.split('\n').map((line) => {
    const match = /^(import\s.*\sfrom\s+)(['"])([^'"]+)\2(;?\s*)$/.exec(line);
    if (!match || !modules.includes(path.posix.basename(match[3]))) return line;
    rewritten += 1;
    return `${match[1]}${match[2]}${pkg}${match[2]}${match[4]}`;
  });
  if (rewritten !== modules.length) {
    throw new Error(`expected ${modules.length} import line(s) of ${modules.join(', ')}, found ${rewritten}`);
  }
  return lines.join('\n');
}

function runNode(dir, file, impl) {
  const env = { ...process.env, EARLYEXIT_IMPL: impl };
  if (impl === 'native') env.EARLYEXIT_NO_FALLBACK ??= '1';
  const run = spawnSync(process.execPath, [file], { cwd: dir, env, encoding: 'utf8' });
  const out = `${run.stdout}${run.stderr}`;
  const passed = (run.stdout.match(/^✓ /gmu) ?? []).length;
  const failed = (out.match(/^✗ /gmu) ?? []).length || (run.status === 0 ? 0 : 1);
  return { passed, failed, out };
}

function runVitest(dir, file, impl) {
  const report = path.join(dir, 'report.json');
  const env = { ...process.env, EARLYEXIT_IMPL: impl };
  if (impl === 'native') env.EARLYEXIT_NO_FALLBACK ??= '1';
  const vitest = path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
  const run = spawnSync(process.execPath,
    [vitest, 'run', '--root', dir, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, file],
    { cwd: dir, env, encoding: 'utf8' });
  const out = `${run.stdout}${run.stderr}`;
  if (!existsSync(report)) return { passed: 0, failed: 1, out };
  const r = JSON.parse(readFileSync(report, 'utf8'));
  return { passed: r.numPassedTests, failed: r.numFailedTests + (r.success || r.numFailedTests ? 0 : 1), out };
}

function main() {
  if (!existsSync(TESTS)) {
    console.log(`aiwg: skipped: ${TESTS} is absent (upstream's test files; clone the repository beside shared/ or set EARLYEXIT_REFERENCE_DIR)`);
    return 0;
  }
  const impls = process.argv.length > 2 ? process.argv.slice(2) : ['native', 'wasm'];
  const base = path.join(ROOT, 'test-output', 'aiwg');
  mkdirSync(base, { recursive: true });
  let passed = 0;
  let failed = 0;
  for (const impl of impls) {
    const pkg = PACKAGES[impl];
    if (!pkg) throw new Error(`unknown package ${impl}: native or wasm`);
    for (const suite of SUITES) {
      // Inside the repository, so `vitest` and the package resolve from its node_modules.
      const dir = mkdtempSync(path.join(base, `${impl}-`));
      let result;
      try {
        const text = rewriteImports(readFileSync(path.join(TESTS, suite.file), 'utf8'), suite.modules, pkg);
        writeFileSync(path.join(dir, suite.file), text);
        result = suite.runner === 'vitest' ? runVitest(dir, suite.file, impl) : runNode(dir, suite.file, impl);
      } catch (error) {
        result = { passed: 0, failed: 1, out: String(error && error.stack) };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      passed += result.passed;
      failed += result.failed;
      console.log(`${pkg} ${suite.file}: ${result.passed} passed, ${result.failed} failed`);
      if (result.failed) console.log(result.out.split('\n').map((l) => `    ${l}`).join('\n'));
    }
  }
  console.log(`aiwg: ${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main();
