// BehaviorDetector and InterventionSystem through the JS API (native and wasm, by
// EARLYEXIT_IMPL): every vector of tests/vectors/behavior/behavior.json (expected values from
// aiwg's behavior-detector.mjs and intervention-system.mjs; run by the shared vector runner,
// tests/browser/vector-runner.mjs, which the browser page runs them with too), a live differential run against
// those files over fresh random histories, and what makes them drop-ins: upstream's public
// fields, the caller's own objects kept, callbacks in upstream's order, typed errors.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ee, { IMPL, ROOT, REFERENCE_DIR, NO_REFERENCE } from './impl.mjs';
import { rng } from './support.mjs';
import { compare } from '../vectors/common.mjs';
import { appliesToJs, runVector } from '../browser/vector-runner.mjs';
import { PROFILES, history, thresholds } from '../vectors/behavior/random_history.mjs';

const { BehaviorDetector, InterventionSystem, THRESHOLDS, INTERVENTION_LEVELS } = ee;
const doc = JSON.parse(readFileSync(path.join(ROOT, 'tests', 'vectors', 'behavior', 'behavior.json'), 'utf8'));
const referenceFiles = ['behavior-detector.mjs', 'intervention-system.mjs'].map((f) => path.join(REFERENCE_DIR, f));
const haveReference = referenceFiles.every(existsSync);

const kindOf = (e) => (e instanceof TypeError ? 'type' : e instanceof RangeError ? 'range' : 'other');
const thrown = (fn) => {
  try {
    fn();
  } catch (e) {
    return { code: e.code, field: e.field, kind: kindOf(e) };
  }
  return null;
};

const types = new Map();
const levels = new Map();
const bump = (map, key) => map.set(key, (map.get(key) ?? 0) + 1);
after(() => {
  const line = (map) => [...map].sort().map(([k, n]) => `${k} ${n}`).join(', ');
  console.log(`behavior (${IMPL}): detections by type: ${line(types)}`);
  console.log(`behavior (${IMPL}): intervention levels: ${line(levels)}`);
});

describe(`behaviour detectors and interventions (${IMPL})`, () => {
  test('every vector matches the references', async () => {
    const failures = [];
    let ran = 0;
    for (const v of doc.vectors) {
      if (!appliesToJs(v)) continue;
      ran++;
      const errs = await runVector(ee, v);
      for (const f of errs) failures.push(`${v.name}: ${f}`);
      if (errs.length > 0) continue;
      // What the vector exercised (its answers are the references').
      for (const c of v.calls) {
        if (c.call.startsWith('detect')) for (const d of [c.returns].flat()) if (d) bump(types, d.type);
        if (c.call === 'intervene' && c.returns) bump(levels, `${c.returns.level} (${c.from ?? 'direct'})`);
      }
    }
    assert.deepEqual(failures.slice(0, 20), []);
    assert.ok(ran > 300, `${ran} vectors`);
    for (const t of ['stuck', 'oscillation', 'deviation', 'resource_burn', 'regression']) assert.ok(types.get(t), `no ${t}`);
    for (const l of ['warn', 'redirect', 'pause', 'abort']) assert.ok(levels.get(`${l} (detector)`), `no ${l} from a detection`);
    assert.ok(levels.get('log (direct)'), 'no log level');
  });

  test('live differential against the references over fresh random histories', { skip: haveReference ? false : NO_REFERENCE }, async () => {
    const [bd, is] = await Promise.all(referenceFiles.map((f) => import(pathToFileURL(f).href)));
    const r = rng(7_2026);
    const RealDate = globalThis.Date;
    const at = (when, fn) => {
      globalThis.Date = class extends RealDate {
        constructor(...args) {
          if (args.length > 0) super(...args);
          else super(when);
        }
      };
      try {
        return fn();
      } finally {
        globalThis.Date = RealDate;
      }
    };
    let clock = Date.UTC(2026, 1, 1);
    let compared = 0;
    const system = new InterventionSystem({ clock: () => new RealDate(clock).toISOString() });
    const upstream = new is.InterventionSystem();
    for (let i = 0; i < 300; i++) {
      const options = thresholds(r);
      const h = history(r, PROFILES[i % PROFILES.length]);
      const ours = new BehaviorDetector(options && structuredClone(options));
      const theirs = new bd.BehaviorDetector(options && structuredClone(options));
      for (const method of ['detect', 'detectStuck', 'detectOscillation', 'detectDeviation', 'detectResourceBurn', 'detectRegression']) {
        const expected = JSON.parse(JSON.stringify(theirs[method](structuredClone(h))));
        const actual = ours[method](structuredClone(h));
        assert.deepEqual(compare(expected, actual ?? null), [], `${method} on history ${i}: ${JSON.stringify(h)}`);
        compared++;
      }
      for (const detection of ours.detect(h)) {
        clock += 1000;
        const expected = at(new RealDate(clock).toISOString(), () => upstream.intervene(structuredClone(detection)));
        assert.deepEqual(compare(JSON.parse(JSON.stringify(expected)), system.intervene(detection)), []);
        compared++;
      }
    }
    assert.deepEqual(compare(JSON.parse(JSON.stringify(upstream.getSummary())), system.getSummary()), []);
    assert.deepEqual(compare(JSON.parse(JSON.stringify(upstream.getLog())), system.getLog()), []);
    console.log(`behavior live differential (${IMPL}): ${compared} answers compared`);
  });

  test('upstream\'s public fields: THRESHOLDS read at construction, groups shared, writes honoured', () => {
    const detector = new BehaviorDetector();
    assert.equal(detector.thresholds.stuck, THRESHOLDS.stuck, 'upstream shares THRESHOLDS\' groups');
    assert.deepEqual(detector.getThresholds(), JSON.parse(JSON.stringify(THRESHOLDS)));
    const saved = THRESHOLDS.stuck;
    try {
      THRESHOLDS.stuck = { sameErrorCount: 2 };
      const history = [1, 2, 3, 4, 5, 6, 7].map((n) => ({ analysis: { error: n < 3 ? 'E' : `F${n}` } }));
      assert.equal(new BehaviorDetector().detectStuck(history)?.evidence.occurrences, 2, 'no window: the whole history');
    } finally {
      THRESHOLDS.stuck = saved;
    }
    detector.thresholds.regression = { coverageDropPercent: 1 };
    const dropped = detector.detectRegression([{ analysis: { coveragePercent: 50 } }, { analysis: { coveragePercent: 48.5 } }]);
    assert.equal(dropped.evidence.regressions[0].message, 'Coverage dropped 1.5%');
    detector.thresholds = null;
    assert.deepEqual(thrown(() => detector.detect([])), { code: 'invalid_config', field: 'thresholds', kind: 'type' });
    assert.equal(Object.isFrozen(INTERVENTION_LEVELS), true);
  });

  test('interventions hold the caller\'s detection; callbacks run in upstream\'s order', () => {
    const seen = [];
    const system = new InterventionSystem({
      onPause: (i) => seen.push(['pause', i.level, system.interventionLog.length]),
      onIntervention: (i) => seen.push(['intervention', i.level, system.interventionLog.length]),
      clock: () => '2026-03-01T00:00:00.000Z',
    });
    const detection = { type: 'oscillation', severity: 'critical', message: 'back and forth', evidence: {}, recommendations: [] };
    const intervention = system.intervene(detection);
    assert.equal(intervention.detection, detection);
    assert.deepEqual(Object.keys(intervention), ['level', 'reason', 'detection', 'timestamp', 'requiresApproval']);
    assert.deepEqual(seen, [['pause', 'pause', 0], ['intervention', 'pause', 1]], 'onPause before the log entry, onIntervention after');
    assert.deepEqual(system.getPauseStatus(), { isPaused: true, reason: 'back and forth' });
    const state = system.exportState();
    assert.equal(state.interventionLog, system.interventionLog);
    const other = new InterventionSystem();
    other.importState(state);
    assert.equal(other.interventionLog, state.interventionLog, 'importState takes the array itself, as upstream');
    system.isPaused = false;
    assert.equal(system.resume('no'), false, 'the field written from outside counts');
    // The log is the caller's array: the summary reads each entry's level and its
    // detection's type, as upstream's, and refuses only an entry it cannot count.
    system.interventionLog.push({ level: 'shout' });
    assert.deepEqual(system.getSummary().byLevel, { pause: 1, shout: 1 });
    system.interventionLog.push({ level: 5 });
    assert.deepEqual(thrown(() => system.getSummary()), { code: 'invalid_snapshot', field: 'interventionLog[2].level', kind: 'type' });
    assert.equal(system.getLog(0).length, 3, 'getLog(0): everything, as upstream');
  });

  test('bad input: typed errors naming the field, nothing changed', () => {
    const system = new InterventionSystem({ clock: () => 'soon' });
    const detection = { type: 'regression', severity: 'low', message: 'm' };
    assert.deepEqual(thrown(() => system.intervene(detection)), { code: 'invalid_config', field: 'clock', kind: 'range' });
    assert.equal(system.interventionLog.length, 0);
    const cyclic = { analysis: {} };
    cyclic.analysis.self = cyclic;
    assert.deepEqual(thrown(() => new BehaviorDetector().detect([cyclic])), { code: 'invalid_result', field: 'history[0].analysis.self', kind: 'type' });
    assert.deepEqual(thrown(() => new InterventionSystem({ onAbort: 5 })), { code: 'invalid_config', field: 'onAbort', kind: 'type' });
    const e = (() => { try { new BehaviorDetector({ thresholds: { stuck: { sameErrorCount: -2 } } }); } catch (error) { return error; } })();
    assert.ok(ee.isEarlyExitError(e) && e instanceof RangeError && /sameErrorCount/.test(e.message), String(e));
  });
});
