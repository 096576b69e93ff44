// The subpath entries `<package>/early-stopping` and `<package>/iteration-analytics`: code
// written against aiwg's two modules default-imports each one, so each entry's default
// export (and its named export) is the package's own class, through import and require. The
// wasm package's browser variant re-exports the web build's classes.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ee, { IMPL, PACKAGE, ROOT } from './impl.mjs';

const require = createRequire(import.meta.url);
const SUBPATHS = { 'early-stopping': 'EarlyStopping', 'iteration-analytics': 'IterationAnalytics' };

describe(`subpath entries (${IMPL})`, () => {
  for (const [sub, name] of Object.entries(SUBPATHS)) {
    test(`import ${PACKAGE}/${sub}: the default export is ${name}`, async () => {
      const module = await import(`${PACKAGE}/${sub}`);
      assert.equal(module.default, ee[name]);
      assert.equal(module[name], ee[name]);
      assert.deepEqual(Object.keys(module).sort(), [name, 'default'].sort());
    });

    test(`require('${PACKAGE}/${sub}'): default and named are ${name}`, () => {
      const module = require(`${PACKAGE}/${sub}`);
      assert.equal(module.default, ee[name]);
      assert.equal(module[name], ee[name]);
      assert.equal(module.__esModule, true); // so `import X from` compiled to require() gets the class
    });
  }

  test('aiwg-style code over the subpaths: a default-imported EarlyStopping with IterationAnalytics', async () => {
    const { default: EarlyStopping } = await import(`${PACKAGE}/early-stopping`);
    const { default: IterationAnalytics } = await import(`${PACKAGE}/iteration-analytics`);
    const analytics = new IterationAnalytics();
    const stopper = new EarlyStopping({ enablePlateauDetection: false }, analytics);
    stopper.recordIterationResult(1, { quality_score: 91, confidence: 0.97, verification_status: 'passed', quality_delta: 0, timestamp: '2026-01-01T00:00:00.000Z' });
    assert.equal(stopper.shouldStop(1).reason, 'High confidence (97.0%) AND verification passed');
  });

  test('the browser variants re-export the web build', { skip: IMPL === 'wasm' ? false : 'earlyexit-wasm only' }, async () => {
    const web = await import(pathToFileURL(path.join(ROOT, 'bindings', 'wasm', 'web.mjs')).href);
    for (const [sub, name] of Object.entries(SUBPATHS)) {
      const module = await import(pathToFileURL(path.join(ROOT, 'bindings', 'wasm', `${sub}.web.mjs`)).href);
      assert.equal(module.default, web[name]);
      assert.equal(module[name], web[name]);
    }
  });
});
