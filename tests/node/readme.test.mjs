// Runs every ```js block of README.md's Node quick start (between the quickstart-node
// markers) as an ES module in a fresh Node process, against the package chosen by
// EARLYEXIT_IMPL (for wasm, `from 'earlyexit'` becomes `from 'earlyexit-wasm'`).
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
// "Beyond the seed: options" has its own runnable example, between the options markers.
const options = readme.split('<!-- options:start -->')[1]?.split('<!-- options:end -->')[0] ?? '';
const blocks = [...(section + options).matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);

test(`README: the Node quick start has the migration line and a runnable example of each engine (${IMPL})`, () => {
  assert.match(section, /- import \{ EarlyStopping \} from '\.\/early-stopping\.mjs';\n\+ import \{ EarlyStopping \} from 'earlyexit';/);
  assert.ok(blocks.some((b) => b.includes('new EarlyStopping')), 'an EarlyStopping example');
  assert.ok(blocks.some((b) => b.includes('runWithEarlyExit')), 'an EarlyExitController example');
  assert.ok(blocks.some((b) => b.includes('maxTotalTokens')), 'the options section has a JS example');
});

for (const [i, block] of blocks.entries()) {
  const title = block.split('\n').find((line) => line.includes('new ')) ?? `block ${i + 1}`;
  test(`README example ${i + 1} runs (${IMPL}): ${title.trim().slice(0, 60)}`, () => {
    const code = block.replaceAll("from 'earlyexit'", `from '${PACKAGE}'`);
    const out = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(out.status, 0, `example ${i + 1} failed:\n${out.stderr}`);
  });
}

test(`README examples pass tsc --strict (${PACKAGE})`, () => {
  const dir = path.join(ROOT, 'test-output', 'readme-types', IMPL);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const files = blocks.map((block, i) => {
    const name = `example-${i + 1}.mts`;
    writeFileSync(path.join(dir, name), block.replaceAll("from 'earlyexit'", `from '${PACKAGE}'`));
    return name;
  });
  const compilerOptions = {
    target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true,
    lib: ['es2022'], types: ['node'], typeRoots: [path.join(ROOT, 'node_modules', '@types')],
  };
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files }, null, 2));
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const out = spawnSync(process.execPath, [tsc, '-p', dir], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(out.status, 0, `tsc --strict on the README's examples (${dir}):\n${out.stdout}${out.stderr}`);
});

test('README: three sentences, install, the two commands, then a quick start per language', () => {
  const intro = readme.split('\n## ')[0].split('<!-- install:start -->')[0];
  const paragraph = intro.split('\n').filter((line) => line && !line.startsWith('#')).join(' ');
  assert.equal(paragraph.split(/(?<=\.) (?=[A-Z])/).length, 3, `the opening paragraph: ${paragraph}`);
  const order = ['<!-- install:start -->', 'make demo   #', 'make test   #', '<!-- quickstart-python:start -->',
    '<!-- quickstart-node:start -->', '<!-- quickstart-browser:start -->'].map((mark) => readme.indexOf(mark));
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
