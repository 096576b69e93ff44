// Runs every ```js block of README.md's Node quick start (between the quickstart-node
// markers) as an ES module in a fresh Node process, against the package chosen by
// EARLYEXIT_IMPL (for wasm, `from 'earlyexit'` becomes `from 'earlyexit-wasm'`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
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
