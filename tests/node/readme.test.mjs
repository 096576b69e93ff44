// Runs every ```js block of README.md's Node quick start (between the quickstart-node
// markers) and of its options section (between the options markers) as an ES module in a
// fresh Node process, against the package chosen by EARLYEXIT_IMPL (for wasm, `from
// 'earlyexit'` becomes `from 'earlyexit-wasm'`). The package READMEs' ```js blocks run too
// (but one marked `<!-- skip-test: why -->` on the line before): npm `earlyexit`'s
// (bindings/node/README.md) the same way, and `earlyexit-wasm`'s (bindings/wasm/README.md,
// which imports 'earlyexit-wasm' itself) with EARLYEXIT_IMPL=wasm.
//
// Each block is also type-checked as a TypeScript module with `tsc --strict` against the
// package's own types (and Node's, @types/node), so the examples are what a strict
// TypeScript user can write.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { IMPL, PACKAGE, ROOT } from './impl.mjs';

const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const section = readme.split('<!-- quickstart-node:start -->')[1]?.split('<!-- quickstart-node:end -->')[0] ?? '';
// The options section has its own runnable example, between the options markers.
const options = readme.split('<!-- options:start -->')[1]?.split('<!-- options:end -->')[0] ?? '';
const jsBlocks = (text) => [...text.matchAll(/(<!-- skip-test:[^>]*-->\n)?```js\n([\s\S]*?)```/g)].filter((m) => !m[1]).map((m) => m[2]);
const blocks = jsBlocks(section + options);
const nodeReadme = readFileSync(path.join(ROOT, 'bindings', 'node', 'README.md'), 'utf8');
const wasmReadme = readFileSync(path.join(ROOT, 'bindings', 'wasm', 'README.md'), 'utf8');
const forPackage = (code) => code.replaceAll("from 'earlyexit'", `from '${PACKAGE}'`);
// Documentation pages whose ```js blocks run too (as the npm page's do).
const DOC_PAGES = ['docs/test-exit.md', 'docs/loop-policies.md', 'docs/loop-helper.md', 'docs/lifecycle.md'];
// [where, code as run] for every block these tests run.
const examples = [
  ...blocks.map((b, i) => [`README example ${i + 1}`, forPackage(b)]),
  ...jsBlocks(nodeReadme).map((b, i) => [`bindings/node/README.md example ${i + 1}`, forPackage(b)]),
  ...(IMPL === 'wasm' ? jsBlocks(wasmReadme).map((b, i) => [`bindings/wasm/README.md example ${i + 1}`, b]) : []),
  ...DOC_PAGES.flatMap((page) => jsBlocks(readFileSync(path.join(ROOT, page), 'utf8')).map((b, i) => [`${page} example ${i + 1}`, forPackage(b)])),
];

test(`README: the Node quick start has the migration line and a runnable example of each engine (${IMPL})`, () => {
  assert.match(section, /- import \{ EarlyStopping \} from '\.\/early-stopping\.mjs';\n\+ import \{ EarlyStopping \} from 'earlyexit';/);
  assert.ok(blocks.some((b) => b.includes('new EarlyStopping')), 'an EarlyStopping example');
  assert.ok(blocks.some((b) => b.includes('runWithEarlyExit')), 'an EarlyExitController example');
  assert.ok(blocks.some((b) => b.includes('p.maxTotalTokens') && b.includes('new EarlyStopping(null, null, when)')), 'the options section has a JS example');
});

test(`package READMEs: each has runnable examples (${IMPL})`, () => {
  assert.match(nodeReadme, /- import EarlyStopping from '\.\/early-stopping\.mjs';\n- import IterationAnalytics from '\.\/iteration-analytics\.mjs';\n\+ import EarlyStopping from 'earlyexit\/early-stopping';/);
  const node = jsBlocks(nodeReadme);
  assert.ok(node.some((b) => b.includes('PyramidRun.start')) && node.some((b) => b.includes('isEarlyExitError')), 'the npm page shows the step API and the errors');
  assert.ok(jsBlocks(wasmReadme).some((b) => b.includes("await init({ replay: true })")), 'the earlyexit-wasm page runs init and replay');
});

for (const [where, code] of examples) {
  const title = code.split('\n').find((line) => line.includes('new ') || line.includes('init(')) ?? '';
  test(`${where} runs (${IMPL}): ${title.trim().slice(0, 60)}`, () => {
    const out = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(out.status, 0, `${where} failed:\n${out.stderr}`);
  });
}

test(`README and package README examples pass tsc --strict (${PACKAGE})`, () => {
  const dir = path.join(ROOT, 'test-output', 'readme-types', IMPL);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const files = examples.map(([, code], i) => {
    const name = `example-${i + 1}.mts`;
    writeFileSync(path.join(dir, name), code);
    return name;
  });
  const compilerOptions = {
    target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true,
    lib: ['es2022'], types: ['node'], typeRoots: [path.join(ROOT, 'node_modules', '@types')],
  };
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files }, null, 2));
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const out = spawnSync(process.execPath, [tsc, '-p', dir], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(out.status, 0, `tsc --strict on the READMEs' examples (${dir}):\n${out.stdout}${out.stderr}`);
});

test('README: three sentences, install, the two commands, a quick start per language, the design', () => {
  const intro = readme.split('\n## ')[0].split('<!-- install:start -->')[0];
  const paragraph = intro.split('\n').filter((line) => line && !line.startsWith('#')).join(' ');
  assert.equal(paragraph.split(/(?<=\.) (?=[A-Z])/).length, 3, `the opening paragraph: ${paragraph}`);
  const order = ['<!-- install:start -->', 'make demo   #', 'make test   #', '<!-- quickstart-python:start -->',
    '<!-- quickstart-node:start -->', '<!-- quickstart-browser:start -->', '<!-- quickstart-rust:start -->',
    '<!-- design:start -->'].map((mark) => readme.indexOf(mark));
  assert.ok(order.every((at, i) => at > 0 && (i === 0 || at > order[i - 1])), `sections out of order: ${order}`);
  // What each install route needs, as the sources of truth state it.
  const install = readme.split('<!-- install:start -->')[1].split('<!-- install:end -->')[0];
  const rust = /rust-version = "([\d.]+)"/.exec(readFileSync(path.join(ROOT, 'Cargo.toml'), 'utf8'))[1];
  const python = /requires-python = ">=([\d.]+)"/.exec(readFileSync(path.join(ROOT, 'pyproject.toml'), 'utf8'))[1];
  const node = /^>=(\d+)$/.exec(JSON.parse(readFileSync(path.join(ROOT, 'bindings', 'node', 'package.json'), 'utf8')).engines.node)[1];
  const bindgen = /^wasm-bindgen = \{ version = "=([\d.]+)"/m.exec(readFileSync(path.join(ROOT, 'bindings', 'wasm', 'Cargo.toml'), 'utf8'))[1];
  const flat = install.replace(/\s+/g, ' ');
  for (const needle of [`Rust ${rust} or later`, `wasm-bindgen-cli\` ${bindgen}`, `CPython ${python} or later`, `Node ${node} or later`, 'pip install ./', 'maturin build --release',
    'npm pack ./bindings/node', 'npm pack ./bindings/wasm', 'path = "/path/to/clone/core"']) {
    assert.ok(flat.includes(needle), `the install section names ${JSON.stringify(needle)}`);
  }
});

test('README: no table is cut in two by a blank line', () => {
  const lines = readme.split('\n');
  for (let i = 1; i + 1 < lines.length; i++) {
    if (lines[i] !== '' || !lines[i - 1].startsWith('|') || !lines[i + 1].startsWith('|')) continue;
    const header = /^\|[-| :]+\|$/.test(lines[i + 2] ?? '');
    assert.ok(header, `README.md line ${i + 1}: a blank line inside a table (before ${JSON.stringify(lines[i + 1].slice(0, 40))})`);
  }
});
