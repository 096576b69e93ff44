// The subpath entries `<package>/early-stopping`, `<package>/iteration-analytics`,
// `<package>/behavior-detector` and `<package>/intervention-system`: code written against
// aiwg's modules default-imports each one (and imports the last two's constants by name), so
// each entry's default export is the package's own class and its named exports are the
// package's own objects, through import and require. The wasm package's browser variant
// re-exports the web build's.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ee, { IMPL, PACKAGE, ROOT } from './impl.mjs';

const require = createRequire(import.meta.url);
// Each entry's exports, the default first (as in bindings/js/build.mjs SUBPATHS).
const SUBPATHS = {
  'early-stopping': ['EarlyStopping'],
  'iteration-analytics': ['IterationAnalytics'],
  'behavior-detector': ['BehaviorDetector', 'THRESHOLDS'],
  'intervention-system': ['InterventionSystem', 'INTERVENTION_LEVELS'],
};

describe(`subpath entries (${IMPL})`, () => {
  for (const [sub, names] of Object.entries(SUBPATHS)) {
    const [name] = names;
    test(`import ${PACKAGE}/${sub}: the default export is ${name}`, async () => {
      const module = await import(`${PACKAGE}/${sub}`);
      assert.equal(module.default, ee[name]);
      for (const n of names) assert.equal(module[n], ee[n], n);
      assert.deepEqual(Object.keys(module).sort(), [...names, 'default'].sort());
    });

    test(`require('${PACKAGE}/${sub}'): default and named are the package's`, () => {
      const module = require(`${PACKAGE}/${sub}`);
      assert.equal(module.default, ee[name]);
      for (const n of names) assert.equal(module[n], ee[n], n);
      assert.equal(module.__esModule, true); // so `import X from` compiled to require() gets the class
    });
  }

  test('aiwg-style code over the subpaths: a detector and an intervention system', async () => {
    const { default: BehaviorDetector, THRESHOLDS } = await import(`${PACKAGE}/behavior-detector`);
    const { default: InterventionSystem, INTERVENTION_LEVELS } = await import(`${PACKAGE}/intervention-system`);
    assert.equal(THRESHOLDS.stuck.sameErrorCount, 3);
    const history = [1, 2, 3, 4, 5].map((n) => ({ number: n, analysis: { error: 'E1', completionPercentage: 0.3 } }));
    const [stuck] = new BehaviorDetector().detect(history);
    const overseer = new InterventionSystem();
    const intervention = overseer.intervene(stuck);
    assert.equal(intervention.level, INTERVENTION_LEVELS.PAUSE, 'five repeats are critical: a pause');
    assert.equal(overseer.getPauseStatus().isPaused, true);
  });

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
    for (const [sub, names] of Object.entries(SUBPATHS)) {
      const module = await import(pathToFileURL(path.join(ROOT, 'bindings', 'wasm', `${sub}.web.mjs`)).href);
      assert.equal(module.default, web[names[0]]);
      for (const n of names) assert.equal(module[n], web[n], n);
    }
  });
});
