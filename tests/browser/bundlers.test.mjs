// earlyexit-wasm through bundlers, in Chromium: the recipes of bindings/wasm/README.md
// ("Bundlers"), each building one small page from the packed package (npm pack, unpacked
// into a scratch node_modules as an install would), served on 127.0.0.1:
// - esbuild --bundle --loader:.wasm=file, importing the .wasm files and passing their URLs to
//   init({ module, replay }): esbuild does not follow `new URL('...wasm', import.meta.url)`,
//   so without this it emits no .wasm;
// - esbuild without that recipe: init() rejects with code engines_load_failed, and the message
//   names the fix (before, wasm-bindgen's bare "HTTP status code is not ok");
// - vite build with a plain init(): Vite follows wasm-bindgen's `new URL` and emits both modules;
//   the vite dev server too, with the package excluded from optimizeDeps (its config file).
// Each page makes a decision, replays a run, and default-imports earlyexit-wasm/early-stopping.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, REPO_ROOT } from './serve.mjs';
import { CHROMIUM, launchChromium } from './chromium.mjs';

const BIN = path.join(REPO_ROOT, 'node_modules', '.bin');
const REASON = 'High confidence (97.0%) AND verification passed';

let scratch;
let server;
let browser;

function run(command, args, cwd) {
  const out = spawnSync(command, args, { cwd, encoding: 'utf8' });
  assert.equal(out.status, 0, `${command} ${args.join(' ')} failed:\n${out.stdout}\n${out.stderr}`);
  return out.stdout;
}

// The page: `setup` (imports and the init call) then one decision, one replay, the subpath.
function page(setup) {
  return `${setup}
import { EarlyStopping, replayLoops } from 'earlyexit-wasm';
import EarlyStoppingDefault from 'earlyexit-wasm/early-stopping';

const show = (state, value) => {
  document.querySelector('#result').textContent = JSON.stringify(value);
  document.body.dataset.done = state;
};
try {
  await ready;
  const stopper = new EarlyStopping();
  stopper.recordIterationResult(1, { quality_score: 91, confidence: 0.97, verification_status: 'passed', quality_delta: 0 });
  const replay = replayLoops([{ id: 'a', iterations: [{ quality_score: 0.5, confidence: 0.5, verification_status: 'failed' }] }], 'recommended');
  show('ok', { reason: stopper.shouldStop(1).reason, replayed: replay.runs[0].trigger, subpath: EarlyStoppingDefault === EarlyStopping });
} catch (e) {
  show('error', { code: e.code, field: e.field, message: e.message });
}
`;
}

const html = (script) => `<!doctype html>\n<meta charset="utf-8">\n<title>bundled</title>\n<pre id="result"></pre>\n<script type="module" src="${script}"></script>\n`;

function write(file, text) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

before(async () => {
  assert.ok(fs.existsSync(CHROMIUM), `Chromium not found at ${CHROMIUM}: install Debian's chromium (scripts/setup.sh) or set CHROMIUM`);
  for (const tool of ['esbuild', 'vite']) assert.ok(fs.existsSync(path.join(BIN, tool)), `node_modules/.bin/${tool} is missing: run npm ci`);
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'earlyexit-bundlers-'));
  // The package as an install has it: only its published files.
  const tarball = run('npm', ['pack', '--silent', '--pack-destination', scratch], path.join(REPO_ROOT, 'bindings', 'wasm')).trim().split('\n').pop();
  const into = path.join(scratch, 'node_modules', 'earlyexit-wasm');
  fs.mkdirSync(into, { recursive: true });
  run('tar', ['xzf', path.join(scratch, tarball), '-C', into, '--strip-components=1'], scratch);

  // esbuild, the recipe: the .wasm files imported with the file loader, their URLs to init().
  write(path.join(scratch, 'esbuild', 'src', 'page.js'), page(`import { init } from 'earlyexit-wasm';
import engines from 'earlyexit-wasm/earlyexit_wasm_bg.wasm';
import replay from 'earlyexit-wasm/earlyexit_replay_bg.wasm';

const ready = init({ module: new URL(engines, import.meta.url), replay: new URL(replay, import.meta.url) });`));
  run(path.join(BIN, 'esbuild'), ['src/page.js', '--bundle', '--format=esm', '--loader:.wasm=file', '--outdir=assets', '--log-level=warning'], path.join(scratch, 'esbuild'));
  write(path.join(scratch, 'esbuild', 'index.html'), html('./assets/page.js'));

  // esbuild without the recipe: a plain init().
  write(path.join(scratch, 'esbuild-plain', 'src', 'page.js'), page(`import { init } from 'earlyexit-wasm';

const ready = init();`));
  run(path.join(BIN, 'esbuild'), ['src/page.js', '--bundle', '--format=esm', '--outdir=assets', '--log-level=error'], path.join(scratch, 'esbuild-plain'));
  write(path.join(scratch, 'esbuild-plain', 'index.html'), html('./assets/page.js'));

  // Vite: a plain init(); vite build emits the modules wasm-bindgen's glue points at. The dev
  // server needs the package left out of its dependency pre-bundling (the config file), which
  // would otherwise move the glue away from the .wasm files. The project is the scratch root.
  write(path.join(scratch, 'main.js'), page(`import { init } from 'earlyexit-wasm';

const ready = init({ replay: true });`));
  write(path.join(scratch, 'index.html'), html('./main.js'));
  write(path.join(scratch, 'vite.config.mjs'), "export default { optimizeDeps: { exclude: ['earlyexit-wasm'] } };\n");
  run(path.join(BIN, 'vite'), ['build', '--logLevel', 'warn', '--outDir', 'vite-dist', '--base', './'], scratch);

  server = await startServer({ root: scratch, port: 0 });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

// Opens a built page; its result, the .wasm files it fetched, and what went wrong on the way.
async function open(url) {
  const tab = await browser.context.newPage();
  const fetched = [];
  const errors = [];
  tab.on('response', (r) => {
    if (r.url().endsWith('.wasm')) fetched.push(`${r.status()} ${new URL(r.url()).pathname}`);
  });
  tab.on('pageerror', (e) => errors.push(e.message));
  await tab.goto(`${server.url}${url}`);
  await tab.waitForSelector('body[data-done]', { timeout: 30_000 });
  const result = { state: await tab.getAttribute('body', 'data-done'), ...JSON.parse(await tab.textContent('#result')), fetched, errors };
  await tab.close();
  return result;
}

function assertWorks(result, where) {
  assert.equal(result.state, 'ok', `${where}: ${JSON.stringify(result)}`);
  assert.equal(result.reason, REASON);
  assert.equal(result.replayed, 'end_of_run');
  assert.equal(result.subpath, true, 'earlyexit-wasm/early-stopping is the same class');
  assert.deepEqual(result.errors, []);
  const ok = result.fetched.filter((f) => f.startsWith('200 '));
  assert.equal(ok.length, 2, `both modules fetched from where the bundler put them: ${result.fetched.join(', ')}`);
  assert.ok(ok.some((f) => /earlyexit_wasm_bg[^/]*\.wasm$/.test(f)) && ok.some((f) => /earlyexit_replay_bg[^/]*\.wasm$/.test(f)), result.fetched.join(', '));
}

test('esbuild --bundle --loader:.wasm=file with init({ module, replay }) runs in Chromium', async () => {
  const emitted = fs.readdirSync(path.join(scratch, 'esbuild', 'assets')).filter((f) => f.endsWith('.wasm'));
  assert.equal(emitted.length, 2, `esbuild emitted ${emitted.join(', ')}`);
  assertWorks(await open('/esbuild/'), 'esbuild');
});

test('esbuild without the recipe: init() rejects with engines_load_failed and names the fix', async () => {
  assert.deepEqual(fs.readdirSync(path.join(scratch, 'esbuild-plain', 'assets')).filter((f) => f.endsWith('.wasm')), [], 'esbuild emitted a .wasm after all');
  const result = await open('/esbuild-plain/');
  assert.equal(result.state, 'error', JSON.stringify(result));
  assert.equal(result.code, 'engines_load_failed');
  assert.equal(result.field, 'module');
  assert.match(result.message, /could not load the engines module \(earlyexit_wasm_bg\.wasm, next to the script that loaded it\)/);
  assert.match(result.message, /init\(\{ module: url \}\)/);
  assert.deepEqual(result.fetched, ['404 /esbuild-plain/assets/earlyexit_wasm_bg.wasm']);
});

test('vite build with a plain init() runs in Chromium (Vite emits the modules)', async () => {
  const emitted = fs.readdirSync(path.join(scratch, 'vite-dist', 'assets')).filter((f) => f.endsWith('.wasm'));
  assert.equal(emitted.length, 2, `vite emitted ${emitted.join(', ')}`);
  assertWorks(await open('/vite-dist/'), 'vite');
});

test('vite dev server with optimizeDeps.exclude runs the same page in Chromium', async () => {
  const { createServer } = await import('vite');
  const dev = await createServer({ root: scratch, logLevel: 'error', server: { host: '127.0.0.1', port: 0, strictPort: false } });
  try {
    await dev.listen();
    const url = new URL(dev.resolvedUrls.local[0]);
    const tab = await browser.context.newPage();
    await tab.goto(url.href);
    await tab.waitForSelector('body[data-done]', { timeout: 30_000 });
    const result = JSON.parse(await tab.textContent('#result'));
    await tab.close();
    assert.deepEqual(result, { reason: REASON, replayed: 'end_of_run', subpath: true });
  } finally {
    await dev.close();
  }
});
