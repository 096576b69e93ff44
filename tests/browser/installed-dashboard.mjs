#!/usr/bin/env node
// The dashboard as an installed `earlyexit-wasm` package ships it, in headless Chromium:
//
//   node tests/browser/installed-dashboard.mjs DIR [SCREENSHOT_PREFIX]
//
// DIR is a folder where the package's tarball was installed (DIR/node_modules/earlyexit-wasm);
// scripts/test-packaging.sh makes one outside the repository. Serves DIR on 127.0.0.1 and
// opens /node_modules/earlyexit-wasm/dashboard/: every request must stay inside the package,
// the engine must load, the bundled examples must render with their data (a loop's stop
// point, a pyramid's exit, both charts), nothing may overflow at 390 and 1280 px, and no
// page error may occur. Screenshots: SCREENSHOT_PREFIX-390.png and -1280.png.
// Exit status 0 when every check passes; the failed check otherwise.
// Environment: CHROMIUM (default /usr/bin/chromium).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer } from './serve.mjs';
import { launchChromium } from './chromium.mjs';
import { measureLayout, assertFits } from './layout.mjs';

const [dir, shots] = process.argv.slice(2);
if (!dir || !fs.existsSync(path.join(dir, 'node_modules', 'earlyexit-wasm', 'dashboard', 'index.html'))) {
  console.error(`installed-dashboard: ${dir ?? '(no DIR)'}/node_modules/earlyexit-wasm/dashboard/index.html does not exist`);
  process.exit(2);
}
const PREFIX = '/node_modules/earlyexit-wasm/';
const server = await startServer({ root: dir });
const browser = await launchChromium({ viewport: { width: 1280, height: 900 } });
const errors = [];
const outside = [];
let status = 0;
try {
  for (const width of [390, 1280]) {
    const page = await browser.context.newPage();
    page.on('pageerror', (err) => errors.push(`${width} px: ${err.message}`));
    page.on('console', (msg) => { if (msg.type() === 'error') errors.push(`${width} px: console error: ${msg.text()}`); });
    page.on('request', (req) => {
      const u = new URL(req.url());
      if (u.protocol !== 'data:' && !u.pathname.startsWith(PREFIX)) outside.push(u.pathname);
    });
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${server.url}${PREFIX}dashboard/`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
    assert.equal(await page.getAttribute('#engine-status', 'data-state'), 'ready', 'the engine did not load');
    const select = async (value) => {
      const before = await page.evaluate(() => document.body.dataset.evaluated ?? '0');
      await page.selectOption('#example-select', value);
      await page.waitForFunction((b) => (document.body.dataset.evaluated ?? '0') !== b, before, { timeout: 10_000 });
      assert.ok(await page.isHidden('#error'), `${value}: an error is shown: ${await page.textContent('#error')}`);
    };
    await select('loops.jsonl:synthetic/quality-plateau');
    assert.equal((await page.textContent('#stop-iteration')).trim(), '4', 'the loop example does not stop where its data says');
    assert.ok(await page.$('#loop-chart canvas'), 'the quality chart (uPlot) did not render');
    assert.ok((await page.$$('#loop-table tbody tr')).length >= 4, 'the loop table has no rows');
    assertFits(assert, await measureLayout(page), `installed, ${width} px, loop view`);
    await select('pyramids.jsonl:default/regression-caught');
    assert.equal((await page.textContent('#exit-decision')).trim(), 'exit after unit (layer 0)');
    assert.equal((await page.textContent('#verdict')).trim(), 'failed');
    assert.equal((await page.$$('#pyramid-table tbody tr')).length, 4, 'the layers table does not show the 4 layers');
    assert.ok(await page.$('#pyramid-chart canvas'), 'the lambda chart (uPlot) did not render');
    const layout = await measureLayout(page);
    assertFits(assert, layout, `installed, ${width} px, pyramid view`);
    if (shots) await page.screenshot({ path: `${shots}-${width}.png`, fullPage: true });
    console.log(`installed dashboard at ${width} px: page ${layout.scrollWidth} px wide, loop stops at 4, pyramid exits after unit (layer 0)`);
    await page.close();
  }
  assert.deepEqual([...new Set(outside)], [], `the page requested files outside ${PREFIX}`);
  assert.deepEqual(errors, [], 'page errors');
} catch (err) {
  console.error(`installed-dashboard: ${err.message}`);
  status = 1;
} finally {
  await browser.close();
  await server.close();
}
process.exit(status);
