// Drop-in fidelity for the seed's `early-stopping.mjs` beyond its method calls: writes to its
// public fields (`config`, `iterationHistory`, `iterationAnalytics`, `stoppingReason`,
// `stoppingDetails`) take effect as in the seed, checked by the core (a typed error, never a
// silent no-op); its check methods (`checkHighConfidence`, `checkQualityPlateau`,
// `checkDiminishingReturns`) are public and a subclass may override them, `shouldStop` calling
// each override in its place and `generateSummary` calling an overridden `shouldStop`.
// Differential against ../shared/reference/early-stopping.mjs: random sequences of writes and
// random subclasses, run on both sides, compared over the reference's keys. And the normal loop
// keeps its fast path: no JSON call into the core per record or decision (counted).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import ee, { IMPL, HAVE_REFERENCE, NO_REFERENCE, REFERENCE_DIR, ROOT } from './impl.mjs';
import { compare, rng } from './support.mjs';
import { OP } from '../../bindings/js/api/contract.generated.mjs';

const seed = HAVE_REFERENCE ? await import(pathToFileURL(path.join(REFERENCE_DIR, 'early-stopping.mjs')).href) : null;
const skip = HAVE_REFERENCE ? false : NO_REFERENCE;
const SEQUENCES = { writes: 500, subclasses: 500, checks: 300 };

const STATUSES = ['passed', 'failed', 'skipped'];
const SEED_KEYS = ['highConfidenceThreshold', 'plateauConsecutiveCount', 'plateauImprovementThreshold', 'minQualityThreshold',
  'requireVerification', 'enablePlateauDetection', 'enableDiminishingReturns'];
const ts = (i) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
// A history record in the order recordIterationResult stores its keys.
const record = (iteration_number, quality_score, confidence, verification_status, quality_delta) =>
  ({ iteration_number, quality_score, confidence, verification_status, quality_delta, timestamp: ts(iteration_number) });
const result = (quality_score, confidence, verification_status, quality_delta, i) =>
  ({ quality_score, confidence, verification_status, quality_delta, timestamp: ts(i) });

function randomValue(r, key) {
  switch (key) {
    case 'highConfidenceThreshold': return r.pick([0.9, 0.95, 0.5, 0.8, 1, 0, r.round(r.next(), 3)]);
    case 'plateauConsecutiveCount': return r.int(2, 5);
    case 'plateauImprovementThreshold': return r.pick([0.02, 0.05, 0.001, 0.1, 0, r.round(r.next() * 0.2, 4)]);
    case 'minQualityThreshold': return r.pick([70, 50, 80, 0, 100, r.round(r.next() * 100, 1)]);
    default: return r.chance(0.6);
  }
}
// Every seed key in the seed's order (a partial object would leave the seed's keys undefined).
const fullConfig = (r) => Object.fromEntries(SEED_KEYS.map((key) => [key, randomValue(r, key)]));

function randomQuality(r, previous) {
  return r.pick([previous, previous, Math.min(100, previous + r.round(r.next() * 2, 1)), r.round(r.next() * 100, 1), Math.min(100, previous + 10), 96]);
}

function scripted(script) {
  const source = { calls: 0, detectDiminishingReturns: () => structuredClone(script[source.calls++ % script.length]) };
  return source;
}
const randomScript = (r) => Array.from({ length: 9 }, () => ({ detected: r.chance(0.4), reason: r.pick(['flat', 'cost too high', '2 consecutive iterations with <5% improvement']), iteration: r.pick([null, r.int(1, 20)]) }));

// Compares over the reference's keys (our decisions add the listed extras); problems go to `out`.
function check(out, where, expected, actual) {
  const diffs = compare(structuredClone(expected), actual);
  if (diffs.length) out.push(`${where}: ${diffs.slice(0, 3).join('; ')}`);
  return diffs.length === 0;
}

// ---------------------------------------------------------------------------------------------
// Writes to the seed's public fields, on both sides.

function runWrites(n, problems, counts) {
  const r = rng(9100 + n);
  const config = r.chance(0.5) ? fullConfig(r) : {};
  const theirs = new seed.EarlyStopping(config);
  const ours = new ee.EarlyStopping(config);
  let iteration = 0;
  let quality = r.round(r.next() * 80, 1);
  const given = []; // [their object, our object] pushed by hand or assigned, for later mutation
  let assigned = null; // [their config object, our config object] after `config = {...}`
  const where = (what) => `writes ${n}: ${what}`;
  const steps = r.int(4, 24);
  for (let step = 0; step < steps; step++) {
    const action = r.next();
    const nextRecord = () => {
      iteration += 1;
      const q = randomQuality(r, quality);
      const entry = record(iteration, q, r.pick([0.5, 0.96, 0.99, r.round(r.next(), 3)]), r.pick(STATUSES), r.chance(0.8) ? r.round(q - quality, 3) : r.pick([0, 0.1, -1]));
      quality = q;
      return entry;
    };
    let what;
    if (action < 0.2) {
      what = 'recordIterationResult';
      const e = nextRecord();
      const res = result(e.quality_score, e.confidence, e.verification_status, e.quality_delta, e.iteration_number);
      theirs.recordIterationResult(e.iteration_number, { ...res });
      ours.recordIterationResult(e.iteration_number, res);
    } else if (action < 0.35) {
      what = 'iterationHistory.push(record)';
      const e = nextRecord();
      const pair = [e, { ...e }];
      theirs.iterationHistory.push(pair[0]);
      ours.iterationHistory.push(pair[1]);
      given.push(pair);
    } else if (action < 0.43 && given.length > 0) {
      what = 'a pushed record changed in place';
      const [a, b] = r.pick(given);
      const key = r.pick(['quality_score', 'confidence', 'verification_status']);
      const value = key === 'quality_score' ? r.round(r.next() * 100, 1) : key === 'confidence' ? r.pick([0.99, 0.2]) : r.pick(STATUSES);
      a[key] = value;
      b[key] = value;
    } else if (action < 0.5) {
      const key = r.pick(SEED_KEYS);
      const value = randomValue(r, key);
      what = `config.${key} = ${value}`;
      theirs.config[key] = value;
      ours.config[key] = value;
    } else if (action < 0.54) {
      what = 'config = {...}';
      const value = fullConfig(r);
      assigned = [value, { ...value }];
      theirs.config = assigned[0];
      ours.config = assigned[1];
    } else if (action < 0.58 && assigned !== null) {
      const key = r.pick(SEED_KEYS);
      const value = randomValue(r, key);
      what = `the assigned config object's ${key} = ${value}`;
      assigned[0][key] = value;
      assigned[1][key] = value;
    } else if (action < 0.64 && theirs.iterationHistory.length > 0) {
      const at = r.int(0, theirs.iterationHistory.length - 1);
      const key = r.pick(['quality_score', 'confidence', 'verification_status', 'quality_delta']);
      const value = key === 'quality_score' ? r.round(r.next() * 100, 1) : key === 'confidence' ? r.pick([0.99, 0.3])
        : key === 'verification_status' ? r.pick(STATUSES) : r.pick([0, 0.5, -2]);
      what = `iterationHistory[${at}].${key} = ${value}`;
      theirs.iterationHistory[at][key] = value;
      ours.iterationHistory[at][key] = value;
    } else if (action < 0.69 && theirs.iterationHistory.length > 0) {
      const how = r.pick(['pop', 'shift', 'splice', 'length']);
      what = `iterationHistory ${how}`;
      for (const side of [theirs, ours]) {
        const h = side.iterationHistory;
        if (how === 'pop') h.pop();
        else if (how === 'shift') h.shift();
        else if (how === 'splice') h.splice(Math.floor(h.length / 2), 1);
        else h.length = Math.floor(h.length / 2);
      }
    } else if (action < 0.72) {
      what = 'iterationHistory = [...]';
      const entries = Array.from({ length: r.int(0, 4) }, () => nextRecord());
      const copies = entries.map((e) => ({ ...e }));
      theirs.iterationHistory = entries;
      ours.iterationHistory = copies;
      entries.forEach((e, i) => given.push([e, copies[i]]));
    } else if (action < 0.76) {
      what = 'iterationAnalytics = source';
      const script = r.chance(0.8) ? randomScript(r) : null;
      theirs.iterationAnalytics = script && scripted(script);
      ours.iterationAnalytics = script && scripted(script);
    } else if (action < 0.78) {
      what = 'configure';
      const options = { [r.pick(SEED_KEYS)]: null };
      const key = Object.keys(options)[0];
      options[key] = randomValue(r, key);
      theirs.configure(options);
      ours.configure(options);
    } else if (action < 0.8) {
      what = 'reset';
      theirs.reset();
      ours.reset();
      given.length = 0;
    } else if (action < 0.82) {
      what = 'stoppingReason = null';
      theirs.stoppingReason = null;
      ours.stoppingReason = null;
    } else {
      what = r.chance(0.8) ? 'shouldStop' : 'generateSummary';
      counts.decisions += 1;
      const expected = what === 'shouldStop' ? theirs.shouldStop(iteration) : theirs.generateSummary();
      const actual = what === 'shouldStop' ? ours.shouldStop(iteration) : ours.generateSummary();
      if (!check(problems, where(`${what} after ${step} steps`), expected, actual)) return;
      continue;
    }
    counts[what.split(/[ =.[(]/)[0]] = (counts[what.split(/[ =.[(]/)[0]] ?? 0) + 1;
    if (!check(problems, where(`shouldStop after ${what}`), theirs.shouldStop(iteration), ours.shouldStop(iteration))) return;
  }
  if (!check(problems, where('getConfig'), theirs.getConfig(), ours.getConfig())) return;
  if (!check(problems, where('config'), { ...theirs.config }, { ...ours.config })) return;
  if (!check(problems, where('getIterationHistory'), theirs.getIterationHistory(), ours.getIterationHistory())) return;
  if (!check(problems, where('iterationHistory'), [...theirs.iterationHistory].map((e) => ({ ...e })), [...ours.iterationHistory].map((e) => ({ ...e })))) return;
  if (!check(problems, where('generateSummary'), theirs.generateSummary(), ours.generateSummary())) return;
  check(problems, where('stoppingReason'), theirs.stoppingReason, ours.stoppingReason);
  check(problems, where('stoppingDetails'), theirs.stoppingDetails ?? null, ours.stoppingDetails ?? null);
}

// ---------------------------------------------------------------------------------------------
// Subclasses that override the check methods (and shouldStop), built the same way over both
// classes. Each override is deterministic given what it reads (its call count, the history).

function randomSubclass(r) {
  const hc = r.pick(['none', 'super', 'custom stop', 'never', 'negate']);
  const plateau = r.pick(['none', 'super', 'custom stop', 'never', 'reads history']);
  const dr = r.pick(['none', 'super', 'every third', 'never']);
  const decide = r.pick(['none', 'none', 'none', 'wrap']);
  const label = `hc ${hc}, plateau ${plateau}, dr ${dr}, shouldStop ${decide}`;
  const make = (Base) => {
    class Sub extends Base {
      constructor(...args) {
        super(...args);
        this.calls = { hc: 0, plateau: 0, dr: 0 };
      }
    }
    const proto = Sub.prototype;
    if (hc !== 'none') {
      proto.checkHighConfidence = function checkHighConfidence(iteration) {
        this.calls.hc += 1;
        if (hc === 'super') return Base.prototype.checkHighConfidence.call(this, iteration);
        if (hc === 'never') return { stop: false, reason: 'hc never', confidence: 0, trigger: 'none' };
        if (hc === 'negate') {
          const answer = Base.prototype.checkHighConfidence.call(this, iteration);
          return answer.stop ? { stop: false, reason: 'vetoed', confidence: 0.1, trigger: 'none' } : answer;
        }
        return iteration.confidence > 0.6
          ? { stop: true, reason: `custom hc ${iteration.confidence}`, confidence: iteration.confidence, trigger: 'custom_hc', details: { at: iteration.iteration_number } }
          : { stop: false, reason: 'no', confidence: 0.2, trigger: 'none' };
      };
    }
    if (plateau !== 'none') {
      proto.checkQualityPlateau = function checkQualityPlateau() {
        this.calls.plateau += 1;
        if (plateau === 'super') return Base.prototype.checkQualityPlateau.call(this);
        if (plateau === 'never') return { stop: false, reason: 'plateau never', confidence: 0.3, trigger: 'none' };
        const h = this.iterationHistory;
        if (plateau === 'reads history') {
          const flat = h.length >= 2 && h[h.length - 1].quality_score === h[h.length - 2].quality_score;
          return flat ? { stop: true, reason: 'two equal scores', confidence: 0.9, trigger: 'flat', details: { n: h.length } } : { stop: false, reason: 'moving', confidence: 0.4, trigger: 'none' };
        }
        return h.length >= 4 ? { stop: true, reason: `custom plateau at ${h.length}`, confidence: 0.6, trigger: 'custom_plateau' } : { stop: false, reason: 'short', confidence: 0.5, trigger: 'none' };
      };
    }
    if (dr !== 'none') {
      proto.checkDiminishingReturns = function checkDiminishingReturns() {
        this.calls.dr += 1;
        if (dr === 'super') return Base.prototype.checkDiminishingReturns.call(this);
        if (dr === 'never') return { stop: false, reason: 'dr never', confidence: 0.7, trigger: 'none' };
        return this.calls.dr % 3 === 0 ? { stop: true, reason: 'third time', confidence: 0.8, trigger: 'diminishing_returns', details: null } : { stop: false, reason: 'not yet', confidence: 0.7, trigger: 'none' };
      };
    }
    if (decide === 'wrap') {
      proto.shouldStop = function shouldStop(iteration) {
        const decision = Base.prototype.shouldStop.call(this, iteration);
        return { ...decision, reason: `wrapped (${iteration}): ${decision.reason}` };
      };
    }
    return Sub;
  };
  return { make, label };
}

function runSubclass(n, problems, triggers) {
  const r = rng(7300 + n);
  const { make, label } = randomSubclass(r);
  const config = r.chance(0.5) ? fullConfig(r) : {};
  const script = r.chance(0.7) ? randomScript(r) : null;
  const theirSource = script && scripted(script);
  const ourSource = script && scripted(script);
  const theirs = new (make(seed.EarlyStopping))(config, theirSource);
  const ours = new (make(ee.EarlyStopping))(config, ourSource);
  const where = (what) => `subclass ${n} (${label}, config ${JSON.stringify(config)}): ${what}`;
  let quality = r.round(r.next() * 90, 1);
  const steps = r.int(1, 14);
  for (let i = 1; i <= steps; i++) {
    const q = randomQuality(r, quality);
    const res = result(q, r.pick([0.5, 0.96, 0.99, 0.7, r.round(r.next(), 3)]), r.pick(STATUSES), r.chance(0.8) ? r.round(q - quality, 3) : 0, i);
    quality = q;
    theirs.recordIterationResult(i, { ...res });
    ours.recordIterationResult(i, res);
    const summary = r.chance(0.2);
    const expected = summary ? theirs.generateSummary() : theirs.shouldStop(i);
    const actual = summary ? ours.generateSummary() : ours.shouldStop(i);
    triggers.set(actual.trigger ?? actual.stopping_trigger, (triggers.get(actual.trigger ?? actual.stopping_trigger) ?? 0) + 1);
    if (!check(problems, where(`${summary ? 'generateSummary' : 'shouldStop'} at ${i}`), expected, actual)) return;
    if (!check(problems, where(`check calls at ${i}`), theirs.calls, ours.calls)) return;
    if (script && theirSource.calls !== ourSource.calls) {
      problems.push(where(`the source was asked ${ourSource.calls} times, the reference asked ${theirSource.calls}`));
      return;
    }
    if (!check(problems, where(`getStoppingReason at ${i}`), theirs.getStoppingReason(), ours.getStoppingReason())) return;
    if (!check(problems, where(`getStoppingDetails at ${i}`), theirs.getStoppingDetails() ?? null, ours.getStoppingDetails())) return;
  }
}

// ---------------------------------------------------------------------------------------------
// The check methods called directly, as code written against the seed may call them.

function runChecks(n, problems) {
  const r = rng(5200 + n);
  const config = r.chance(0.6) ? fullConfig(r) : {};
  const script = r.chance(0.6) ? randomScript(r) : null;
  const theirs = new seed.EarlyStopping(config, script && scripted(script));
  const ours = new ee.EarlyStopping(config, script && scripted(script));
  let quality = r.round(r.next() * 90, 1);
  const steps = r.int(0, 8);
  for (let i = 1; i <= steps; i++) {
    const q = randomQuality(r, quality);
    const res = result(q, r.pick([0.5, 0.96, 0.99, r.round(r.next(), 3)]), r.pick(STATUSES), r.chance(0.8) ? r.round(q - quality, 3) : 0, i);
    quality = q;
    theirs.recordIterationResult(i, { ...res });
    ours.recordIterationResult(i, res);
  }
  const where = (what) => `checks ${n} (config ${JSON.stringify(config)}, ${steps} records): ${what}`;
  const last = (side) => side.iterationHistory[side.iterationHistory.length - 1];
  const probe = record(1, r.round(r.next() * 100, 1), r.pick([0.99, 0.95, 0.5]), r.pick(STATUSES), 0);
  check(problems, where('checkHighConfidence(a record)'), theirs.checkHighConfidence(probe), ours.checkHighConfidence(probe));
  if (steps > 0) check(problems, where('checkHighConfidence(last)'), theirs.checkHighConfidence(last(theirs)), ours.checkHighConfidence(last(ours)));
  check(problems, where('checkQualityPlateau()'), theirs.checkQualityPlateau(), ours.checkQualityPlateau());
  check(problems, where('checkDiminishingReturns()'), theirs.checkDiminishingReturns(), ours.checkDiminishingReturns());
}

describe(`drop-in: the seed's public fields and check methods against the reference (${IMPL})`, { skip }, () => {
  test(`${SEQUENCES.writes} random sequences of writes to config, iterationHistory, iterationAnalytics`, () => {
    const problems = [];
    const counts = { decisions: 0 };
    for (let n = 0; n < SEQUENCES.writes; n++) runWrites(n, problems, counts);
    console.log(`# writes: ${JSON.stringify(counts)}`);
    assert.deepEqual(problems.slice(0, 10), []);
    for (const what of ['iterationHistory', 'config', 'a', 'the', 'iterationAnalytics']) assert.ok(counts[what] > 20, `too few ${what} writes: ${JSON.stringify(counts)}`);
  });

  test(`${SEQUENCES.subclasses} random subclasses overriding the check methods and shouldStop`, () => {
    const problems = [];
    const triggers = new Map();
    for (let n = 0; n < SEQUENCES.subclasses; n++) runSubclass(n, problems, triggers);
    console.log(`# subclass triggers: ${JSON.stringify(Object.fromEntries(triggers))}`);
    assert.deepEqual(problems.slice(0, 10), []);
    for (const trigger of ['custom_hc', 'custom_plateau', 'flat', 'high_confidence', 'quality_plateau', 'diminishing_returns', 'none']) {
      assert.ok(triggers.get(trigger) > 5, `too few ${trigger}: ${JSON.stringify(Object.fromEntries(triggers))}`);
    }
  });

  test(`${SEQUENCES.checks} states: checkHighConfidence, checkQualityPlateau, checkDiminishingReturns called directly`, () => {
    const problems = [];
    for (let n = 0; n < SEQUENCES.checks; n++) runChecks(n, problems);
    assert.deepEqual(problems.slice(0, 10), []);
  });
});

// ---------------------------------------------------------------------------------------------
// Each write the seed honours, one by one (these failed before: the writes changed nothing).

const valid = (i, extra = {}) => ({ ...record(i, 75, 0.5, 'failed', 0), ...extra });
const fields = (e) => [e.constructor, e.code, e.field];

describe(`drop-in: writes take effect (${IMPL})`, () => {
  test('stopper.config.highConfidenceThreshold = 0.5 changes the next decision', () => {
    const stopper = new ee.EarlyStopping();
    stopper.recordIterationResult(1, result(80, 0.6, 'passed', 0, 1));
    assert.equal(stopper.shouldStop().trigger, 'none');
    stopper.config.highConfidenceThreshold = 0.5;
    assert.equal(stopper.config.highConfidenceThreshold, 0.5);
    assert.equal(stopper.getConfig().highConfidenceThreshold, 0.5);
    assert.equal(stopper.shouldStop().reason, 'High confidence (60.0%) AND verification passed');
    const view = stopper.config;
    view.plateauConsecutiveCount = 2; // the same object keeps working
    assert.equal(stopper.getConfig().plateauConsecutiveCount, 2);
  });

  test('stopper.iterationHistory.push(record) is seen by shouldStop, generateSummary and the snapshot', () => {
    const stopper = new ee.EarlyStopping();
    stopper.iterationHistory.push(record(1, 96, 0.97, 'passed', 0));
    assert.equal(stopper.iterationHistory.length, 1);
    assert.equal(stopper.shouldStop(1).trigger, 'high_confidence');
    assert.equal(stopper.generateSummary().total_iterations, 1);
    assert.deepEqual(stopper.toJSON().history, [record(1, 96, 0.97, 'passed', 0)]);
    stopper.recordIterationResult(2, result(50, 0.2, 'failed', -46, 2));
    assert.deepEqual(stopper.getIterationHistory().map((e) => e.iteration_number), [1, 2]);
  });

  test('a pushed object changed afterwards, and a recorded record changed through the view, count', () => {
    const stopper = new ee.EarlyStopping();
    const mine = record(1, 50, 0.1, 'passed', 0);
    stopper.iterationHistory.push(mine);
    assert.equal(stopper.shouldStop().trigger, 'none');
    mine.confidence = 0.99;
    mine.quality_score = 99;
    assert.equal(stopper.shouldStop().trigger, 'high_confidence');
    stopper.recordIterationResult(2, result(50, 0.1, 'passed', 0, 2));
    assert.equal(stopper.shouldStop().trigger, 'none');
    stopper.iterationHistory[1].confidence = 0.99;
    stopper.iterationHistory[1].quality_score = 90;
    assert.equal(stopper.shouldStop().reason, 'High confidence (99.0%) AND verification passed');
    assert.equal(stopper.getIterationHistory()[1].confidence, 0.99);
  });

  test('stopper.iterationHistory = array: the array is the history, as in the seed', () => {
    const stopper = new ee.EarlyStopping();
    const history = [record(1, 70, 0.5, 'failed', 0)];
    stopper.iterationHistory = history;
    assert.equal(stopper.iterationHistory, history);
    assert.equal(stopper.shouldStop().trigger, 'none');
    history.push(record(2, 99, 0.99, 'passed', 29));
    assert.equal(stopper.shouldStop().trigger, 'high_confidence');
    stopper.recordIterationResult(3, result(99, 0.1, 'failed', 0, 3));
    assert.equal(history.length, 3);
    history.length = 1;
    assert.equal(stopper.generateSummary().total_iterations, 1);
  });

  test('stopper.config = object: merged over the defaults, later writes to it count', () => {
    const stopper = new ee.EarlyStopping();
    stopper.recordIterationResult(1, result(80, 0.6, 'passed', 0, 1));
    const config = { highConfidenceThreshold: 0.9 };
    stopper.config = config;
    assert.equal(stopper.getConfig().plateauConsecutiveCount, 3);
    assert.equal(stopper.shouldStop().trigger, 'none');
    config.highConfidenceThreshold = 0.5;
    assert.equal(stopper.shouldStop().trigger, 'high_confidence');
    stopper.configure({ minQualityThreshold: 90 }); // a new config object, as in the seed
    config.highConfidenceThreshold = 0.99;
    assert.equal(stopper.getConfig().highConfidenceThreshold, 0.5);
  });

  test('stopper.iterationAnalytics = source is asked; null detaches it', () => {
    const stopper = new ee.EarlyStopping({ enablePlateauDetection: false });
    stopper.recordIterationResult(1, result(60, 0.5, 'failed', 0, 1));
    assert.equal(stopper.shouldStop().trigger, 'none'); // the fold decided without a source
    const source = { detectDiminishingReturns: () => ({ detected: true, iteration: 1, reason: 'flat' }) };
    stopper.iterationAnalytics = source;
    assert.equal(stopper.iterationAnalytics, source);
    assert.equal(stopper.shouldStop().reason, 'Diminishing returns detected: flat');
    stopper.iterationAnalytics = null;
    assert.equal(stopper.shouldStop().trigger, 'none');
  });

  test('stoppingReason and stoppingDetails are writable, as in the seed', () => {
    const stopper = new ee.EarlyStopping();
    stopper.recordIterationResult(1, result(96, 0.97, 'passed', 0, 1));
    stopper.shouldStop();
    assert.match(stopper.stoppingReason, /^High confidence/);
    stopper.stoppingReason = null;
    stopper.stoppingDetails = null;
    assert.equal(stopper.getStoppingReason(), null);
    assert.equal(stopper.getStoppingDetails(), null);
  });

  test('generateSummary calls an overridden shouldStop; the check methods exist and may be overridden', () => {
    class Vetoing extends ee.EarlyStopping {
      shouldStop(iteration) {
        return { stop: false, reason: `vetoed at ${iteration}`, confidence: 0, trigger: 'none' };
      }
    }
    const stopper = new Vetoing();
    stopper.recordIterationResult(3, result(96, 0.97, 'passed', 0, 3));
    const summary = stopper.generateSummary();
    assert.equal(summary.stopped_early, false);
    assert.equal(summary.stopping_reason, 'vetoed at 3');
    for (const name of ['checkHighConfidence', 'checkQualityPlateau', 'checkDiminishingReturns']) assert.equal(typeof ee.EarlyStopping.prototype[name], 'function');
    class Strict extends ee.EarlyStopping {
      checkHighConfidence(iteration) {
        return { stop: iteration.quality_score === 100, reason: 'perfect only', confidence: 1, trigger: 'perfect' };
      }
    }
    const strict = new Strict();
    strict.recordIterationResult(1, result(96, 0.97, 'passed', 0, 1));
    assert.equal(strict.shouldStop().trigger, 'none');
    strict.recordIterationResult(2, result(100, 0.5, 'failed', 4, 2));
    const decision = strict.shouldStop();
    assert.deepEqual(decision, { stop: true, reason: 'perfect only', confidence: 1, trigger: 'perfect' });
    assert.equal(strict.getStoppingReason(), 'perfect only');
  });
});

// ---------------------------------------------------------------------------------------------
// Bad writes: the core's typed error, and nothing changed.

describe(`drop-in: bad writes are typed errors and change nothing (${IMPL})`, () => {
  const engine = () => {
    const stopper = new ee.EarlyStopping({ plateauConsecutiveCount: 2 });
    stopper.recordIterationResult(1, valid(1));
    stopper.recordIterationResult(2, valid(2));
    stopper.shouldStop();
    return stopper;
  };
  const snapshot = (stopper) => JSON.stringify([stopper.toJSON(), stopper.shouldStop()]);

  for (const [what, write, kind, code, field] of [
    ['config: out of range', (s) => { s.config.highConfidenceThreshold = 2; }, RangeError, 'invalid_config', 'highConfidenceThreshold'],
    ['config: a string for a number', (s) => { s.config.minQualityThreshold = '70'; }, TypeError, 'invalid_config', 'minQualityThreshold'],
    ['config: undefined', (s) => { s.config.minQualityThreshold = undefined; }, TypeError, 'invalid_config', 'minQualityThreshold'],
    ['config: a deleted key', (s) => { delete s.config.requireVerification; }, TypeError, 'invalid_config', 'requireVerification'],
    ['config: an unknown key', (s) => { s.config.plateauConsecutivCount = 3; }, TypeError, 'unknown_option', 'plateauConsecutivCount'],
    ['config: a cross-field rule', (s) => { s.config.plateauImprovementThreshold = 5; }, RangeError, 'invalid_config', 'plateauImprovementThreshold'],
    ['config = a bad object', (s) => { s.config = { plateauConsecutiveCount: 1 }; }, RangeError, 'invalid_config', 'plateauConsecutiveCount'],
    ['config = a number', (s) => { s.config = 5; }, TypeError, 'invalid_config', 'config'],
    ['a recorded record: out of range', (s) => { s.iterationHistory[0].confidence = 1.5; }, RangeError, 'invalid_result', 'iterationHistory[0].confidence'],
    ['a recorded record: a deleted field', (s) => { delete s.iterationHistory[1].quality_score; }, TypeError, 'invalid_result', 'iterationHistory[1].quality_score'],
    ['a recorded record: an unknown key', (s) => { s.iterationHistory[1].notes = 'x'; }, TypeError, 'unknown_option', 'iterationHistory[1].notes'],
    ['iterationHistory = a number', (s) => { s.iterationHistory = 5; }, TypeError, 'invalid_result', 'iterationHistory'],
    ['iterationAnalytics = an object without the method', (s) => { s.iterationAnalytics = { detect() {} }; }, TypeError, 'invalid_config', 'iterationAnalytics'],
  ]) {
    test(`${what}: throws at the write`, () => {
      const stopper = engine();
      const before = snapshot(stopper);
      const config = JSON.stringify(stopper.config);
      assert.throws(() => write(stopper), (e) => assert.deepEqual(fields(e), [kind, code, field]) ?? true);
      assert.equal(snapshot(stopper), before);
      assert.equal(JSON.stringify(stopper.config), config);
      assert.equal(stopper.iterationAnalytics, null);
    });
  }

  for (const [what, entry, kind, code, field] of [
    ['out of range', valid(3, { confidence: 1.5 }), RangeError, 'invalid_result', 'iterationHistory[2].confidence'],
    ['without iteration_number', { ...valid(3), iteration_number: undefined }, TypeError, 'invalid_result', 'iterationHistory[2].iteration_number'],
    ['an unknown key', valid(3, { note: 'x' }), TypeError, 'unknown_option', 'iterationHistory[2].note'],
    ['a bad timestamp', valid(3, { timestamp: 'yesterday' }), RangeError, 'invalid_result', 'iterationHistory[2].timestamp'],
    ['not an object', 42, TypeError, 'invalid_result', 'iterationHistory[2]'],
    ['a usage total that overflows', valid(3, { tokens_used: Number.MAX_VALUE }), RangeError, 'invalid_result', 'iterationHistory[2].tokens_used'],
  ]) {
    test(`a record pushed by hand, ${what}: the next use throws, nothing changed; removing it restores the engine`, () => {
      const stopper = engine();
      if (what.includes('overflows')) stopper.iterationHistory[1].tokens_used = Number.MAX_VALUE;
      const before = snapshot(stopper);
      stopper.iterationHistory.push(entry);
      for (const use of [(s) => s.shouldStop(), (s) => s.generateSummary(), (s) => s.getIterationHistory(), (s) => s.toJSON(), (s) => s.recordIterationResult(4, valid(4)), (s) => s.configure({ minQualityThreshold: 10 })]) {
        assert.throws(() => use(stopper), (e) => assert.deepEqual(fields(e), [kind, code, field]) ?? true);
      }
      stopper.iterationHistory.pop();
      assert.equal(snapshot(stopper), before);
    });
  }

  test('a pushed record made bad afterwards: the next use throws', () => {
    const stopper = engine();
    const mine = valid(3);
    stopper.iterationHistory.push(mine);
    stopper.shouldStop();
    const before = snapshot(stopper);
    mine.verification_status = 'PASSED';
    assert.throws(() => stopper.shouldStop(), (e) => assert.deepEqual(fields(e), [RangeError, 'invalid_result', 'iterationHistory[2].verification_status']) ?? true);
    mine.verification_status = 'failed';
    assert.equal(snapshot(stopper), before);
  });

  test('the check methods check their input', () => {
    const stopper = engine();
    assert.throws(() => stopper.checkHighConfidence(null), (e) => assert.deepEqual(fields(e), [TypeError, 'invalid_result', 'iteration']) ?? true);
    assert.throws(() => stopper.checkHighConfidence(valid(1, { confidence: 2 })),
      (e) => assert.deepEqual(fields(e), [RangeError, 'invalid_result', 'iteration.confidence']) ?? true);
    // A history record, as shouldStop passes it (the seed reads three of its fields).
    assert.throws(() => stopper.checkHighConfidence({ quality_score: 90, confidence: 0.9, verification_status: 'passed' }),
      (e) => assert.deepEqual(fields(e), [TypeError, 'invalid_result', 'iteration.iteration_number']) ?? true);
    stopper.iterationAnalytics = { detectDiminishingReturns: () => ({ detected: 'yes', reason: 'x' }) };
    assert.throws(() => stopper.checkDiminishingReturns(), (e) => assert.deepEqual(fields(e), [TypeError, 'invalid_analytics', 'detected']) ?? true);
  });
});

// ---------------------------------------------------------------------------------------------
// The fast path stays: a package copy over a native module that counts its JSON calls.

describe(`drop-in: the normal loop keeps the fast path (${IMPL})`, () => {
  const require = createRequire(import.meta.url);
  const dir = path.join(ROOT, 'bindings', IMPL === 'wasm' ? 'wasm' : 'node');
  const native = require(path.join(dir, IMPL === 'wasm' ? 'pkg/nodejs/earlyexit_wasm.js' : 'native.cjs'));
  const ops = [];
  const counting = Object.assign(Object.create(null), native, { exec: (op, args) => (ops.push(op), native.exec(op, args)) });
  const { api, ready } = require(path.join(dir, 'api.cjs'))(counting);
  ready();

  const loop = (stopper, n, offset = 0) => {
    for (let i = 1; i <= n; i++) {
      stopper.recordIterationResult(i + offset, result(50 + (i % 7), 0.5, i % 2 ? 'failed' : 'passed', i % 3, i));
      stopper.shouldStop(i);
    }
  };

  test('no JSON call per record or decision, with or without a subclass that overrides no check', () => {
    class Logged extends api.EarlyStopping {
      describe() {
        return 'logged';
      }
    }
    for (const stopper of [new api.EarlyStopping(), new Logged()]) {
      ops.length = 0;
      loop(stopper, 200);
      assert.deepEqual(ops, []);
      void stopper.iterationHistory.length; // reading changes nothing
      void stopper.config.minQualityThreshold;
      loop(stopper, 50, 200);
      assert.deepEqual(ops, []);
    }
  });

  test('records pushed by hand are checked once each, not at every decision', () => {
    const stopper = new api.EarlyStopping();
    ops.length = 0;
    for (let i = 1; i <= 50; i++) {
      stopper.iterationHistory.push(record(i, 50 + (i % 7), 0.5, 'failed', i % 3));
      stopper.shouldStop();
      stopper.shouldStop();
    }
    assert.equal(ops.length, 50);
    assert.ok(ops.every((op) => op === OP.ES_HISTORY_CHECK), `ops ${[...new Set(ops)]}`);
  });
});
