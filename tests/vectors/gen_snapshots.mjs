// snapshots.json (round trips and malformed snapshots, all `hand`) and
// jsnum.json (Number.prototype.toFixed / toString as Node prints them).
import { prng, rec, stop, call, ts } from './gen_util.mjs';
import { GOOD, BAD, MID, FLAKY } from './gen_pyramid.mjs';

const N = (s) => ({ $num: s });
const JS = ['js', 'rust'];
const T = (field, kind) => ({ throws: { code: 'invalid_snapshot', field, kind } });
const saved = (patch = [], as) => ({ $saved: 's', ...(patch.length ? { patch } : {}), ...(as ? { as } : {}) });
const set = (path, value) => ({ path, value });
const del = (path) => ({ path, delete: true });

function loopSnapshots() {
  const v = [];
  const H = (name, calls, config = null, extra = {}) => ({ name, engine: 'EarlyStopping', source: 'hand', construct: { config, analytics: null }, calls, ...extra });
  const setup = [rec(1, 70, 0.5, 'failed', 0, { tokens_used: 10 }), rec(2, 70.5, 0.6, 'skipped', 0.5), rec(3, 71, 0.7, 'passed', 0.5, { timestamp: '2026-06-30T23:59:60+02:00' }), stop(3), { ...call('toJSON'), saveAs: 's' }];
  const after = [call('getConfig'), call('getIterationHistory'), call('getStoppingReason'), call('getStoppingDetails'), stop(3), call('toJSON')];
  v.push(H('EarlyStopping round trip through the snapshot object', [...setup, call('reset'), call('fromJSON', saved()), ...after], { plateauConsecutiveCount: 3, minQualityThreshold: 60 }));
  v.push(H('EarlyStopping round trip through the snapshot JSON text', [...setup, call('reset'), call('fromJSON', saved([], 'string')), ...after]));
  v.push(H('EarlyStopping empty snapshot round trip', [{ ...call('toJSON'), saveAs: 's' }, rec(1, 50, 0.5, 'failed', 0), call('fromJSON', saved()), call('getIterationHistory'), stop(1), call('toJSON')]));
  v.push(H('EarlyStopping restore continues recording after the snapshot', [...setup, call('fromJSON', saved()), rec(4, 71.2, 0.99, 'passed', 0.2), stop(4), call('toJSON')]));
  v.push(H('EarlyStopping snapshot with lowercase t/z timestamp restores', [...setup, call('fromJSON', saved([set('history[0].timestamp', '2026-01-01t00:00:00z')])), call('getIterationHistory')]));
  v.push(H('EarlyStopping snapshot with a null stopping reason restores', [...setup, call('fromJSON', saved([set('stoppingReason', null), set('stoppingDetails', null)])), call('getStoppingReason')]));
  const bad = [
    ['version 2', [set('version', 2)], 'version', 'range'], ['version as a string', [set('version', '1')], 'version', 'type'],
    ['missing version', [del('version')], 'version', 'type'], ['wrong engine', [set('engine', 'IterationAnalytics')], 'engine', 'range'],
    ['engine not a string', [set('engine', 5)], 'engine', 'type'], ['unknown top-level key', [set('extra', 1)], 'extra', 'type'],
    ['config not an object', [set('config', 5)], 'config', 'type'], ['config value out of range', [set('config.plateauConsecutiveCount', 1)], 'config.plateauConsecutiveCount', 'range'],
    ['unknown config key', [set('config.plateauCount', 3)], 'config.plateauCount', 'type'], ['config value wrong type', [set('config.requireVerification', 'yes')], 'config.requireVerification', 'type'],
    ['history not an array', [set('history', {})], 'history', 'type'], ['history record NaN quality', [set('history[1].quality_score', N('NaN'))], 'history[1].quality_score', 'range'],
    ['history record bad status', [set('history[2].verification_status', 'ok')], 'history[2].verification_status', 'range'],
    ['history record missing timestamp', [del('history[0].timestamp')], 'history[0].timestamp', 'type'],
    ['history record bad timestamp', [set('history[0].timestamp', '')], 'history[0].timestamp', 'range'],
    ['history record missing iteration_number', [del('history[1].iteration_number')], 'history[1].iteration_number', 'type'],
    ['history record iteration_number 0', [set('history[1].iteration_number', 0)], 'history[1].iteration_number', 'range'],
    ['history record unknown key', [set('history[0].note', 'x')], 'history[0].note', 'type'], ['history record not an object', [set('history[1]', 5)], 'history[1]', 'type'],
    ['history record negative tokens', [set('history[0].tokens_used', -1)], 'history[0].tokens_used', 'range'],
    ['stoppingReason not a string', [set('stoppingReason', 5)], 'stoppingReason', 'type'], ['stoppingDetails not an object', [set('stoppingDetails', 'x')], 'stoppingDetails', 'type'],
  ];
  for (const [name, patch, field, kind] of bad) {
    v.push(H(`EarlyStopping fromJSON rejects ${name}`, [...setup, { ...call('fromJSON', saved(patch)), expect: T(field, kind) }, call('getIterationHistory'), stop(3)]));
  }
  for (const [name, arg, field, kind] of [['a number', 5, 'snapshot', 'type'], ['null', null, 'snapshot', 'type'], ['an array', [], 'snapshot', 'type'], ['text that is not JSON', '{"version": 1,', 'snapshot', 'range']]) {
    v.push(H(`EarlyStopping fromJSON rejects ${name}`, [rec(1, 50, 0.5, 'failed', 0), { ...call('fromJSON', arg), expect: T(field, kind) }, call('getIterationHistory')]));
  }
  return v;
}

function analyticsSnapshots() {
  const v = [];
  // The times a vector gives (the project takes them as values where the reference reads the clock).
  const times = { startTime: '2026-01-01T00:00:00.000Z', endTime: '2026-01-01T06:00:00.000Z' };
  const H = (name, calls, config = null) => ({ name, engine: 'IterationAnalytics', source: 'hand', construct: { config: { ...times, ...config } }, calls });
  const ri = (n, q, st = 'passed', extra = {}) =>
    call('recordIteration', { iteration_number: n, quality_score: q, verification_status: st, timestamp: ts(n), ...extra });
  const setup = [ri(1, 50, 'passed', { tokens_used: 5 }), ri(2, 51, 'failed'), ri(3, 51.5), { ...call('toJSON'), saveAs: 's' }];
  const after = [call('getRecords'), call('detectDiminishingReturns'), call('generateSummary'), call('toJSON')];
  v.push(H('IterationAnalytics round trip', [...setup, call('reset'), call('fromJSON', saved()), ...after], { qualityThreshold: 50 }));
  v.push(H('IterationAnalytics round trip through JSON text', [...setup, call('reset'), call('fromJSON', saved([], 'string')), ...after]));
  const bad = [['version 0', [set('version', 0)], 'version', 'range'], ['wrong engine', [set('engine', 'EarlyStopping')], 'engine', 'range'],
    ['unknown top-level key', [set('history', [])], 'history', 'type'], ['records missing', [del('records')], 'records', 'type'],
    ['record bad quality', [set('records[0].quality_score', 120)], 'records[0].quality_score', 'range'], ['record unknown key', [set('records[2].conf', 1)], 'records[2].conf', 'type'],
    ['record bad iteration', [set('records[1].iteration_number', -2)], 'records[1].iteration_number', 'range'],
    ['a missing quality_delta', [del('records[2].quality_delta')], 'records[2].quality_delta', 'type'],
    ['a quality_delta given as a string', [set('records[1].quality_delta', '1')], 'records[1].quality_delta', 'type'],
    ['config bad criteria', [set('config.selectionCriteria', 'newest')], 'config.selectionCriteria', 'range'], ['unknown config key', [set('config.threshold', 1)], 'config.threshold', 'type'],
    ['config persist (not part of a snapshot)', [set('config.persist', false)], 'config.persist', 'type'],
    ['a record without its timestamp', [del('records[0].timestamp')], 'records[0].timestamp', 'type'],
    ['a record timestamp that is not a date-time', [set('records[1].timestamp', 'noon')], 'records[1].timestamp', 'range'],
    ['a record without reflections', [del('records[2].reflections')], 'records[2].reflections', 'type'],
    ['a reflection that is not a string', [set('records[2].reflections', [1])], 'records[2].reflections[0]', 'type'],
    ['a loopId that is not a string', [set('loopId', 5)], 'loopId', 'type'],
    ['a startTime that is not a date-time', [set('startTime', 'dawn')], 'startTime', 'range']];
  for (const [name, patch, field, kind] of bad) {
    v.push(H(`IterationAnalytics fromJSON rejects ${name}`, [...setup, { ...call('fromJSON', saved(patch)), expect: T(field, kind) }, call('getRecords')]));
  }
  // A stored quality_delta is the record's own (upstream's records are data its users change):
  // kept as saved, and what detection and the trajectory read.
  v.push(H('IterationAnalytics fromJSON keeps a quality_delta that is not the score difference',
    [...setup, call('fromJSON', saved([set('records[1].quality_delta', 99), set('records[2].quality_delta', -0.2)])), ...after]));
  return v;
}

function pyramidSnapshots() {
  const v = [];
  const specs = [{ name: 'unit', costMs: 1 }, { name: 'integration', costMs: 2 }, { name: 'e2e', costMs: 3 }, { name: 'perf' }];
  const H = (name, calls) => ({ name, engine: 'PyramidRun', source: 'hand', construct: { config: null, totalLayers: 4, layers: specs }, calls });
  const setup = [call('next'), { call: 'submit', args: [0, MID] }, call('next'), { ...call('toJSON'), saveAs: 's' }];
  const finish = [call('next'), { call: 'submit', args: [1, GOOD] }, call('next'), { call: 'submit', args: [2, FLAKY] }, call('next'), { call: 'submit', args: [3, BAD] }, call('next'), call('result')];
  v.push(H('PyramidRun snapshot mid-run restores and finishes the same way', [...setup, { call: 'submit', args: [1, GOOD] }, call('fromJSON', saved()), call('toJSON'), ...finish]));
  v.push(H('PyramidRun snapshot through JSON text', [...setup, call('fromJSON', saved([], 'string')), ...finish]));
  const bad = [['version 3', [set('version', 3)], 'version', 'range'], ['wrong engine', [set('engine', 'EarlyStopping')], 'engine', 'range'],
    ['unknown key', [set('pending', 1)], 'pending', 'type'], ['submission for the wrong layer', [set('submitted[0].layer', 2)], 'submitted[0].layer', 'range'],
    ['totalLayers 0', [set('totalLayers', 0)], 'totalLayers', 'range'], ['config value out of range', [set('config.minConfidence', 2)], 'config.minConfidence', 'range']];
  for (const [name, patch, field, kind] of bad) {
    v.push(H(`PyramidRun fromJSON rejects ${name}`, [...setup, { ...call('fromJSON', saved(patch)), expect: T(field, kind) }, ...finish]));
  }
  return v;
}

export function snapshots() {
  return [...loopSnapshots(), ...analyticsSnapshots(), ...pyramidSnapshots()];
}

export function jsnum() {
  const fixed = [0, N('-0'), 0.25, 0.35, -0.25, 1.005, 2.5, -2.5, 0.5, 1.5, -0.5, -0.01, -0.04, 0.05, 0.15, 0.45, 1e21, -1e21, 1e20, 123456789012345680000,
    1e-7, 5e-324, 1.7976931348623157e308, 123.456, 0.1 + 0.2, 1 / 3, 2 / 3, 95.49999, 95.45, 95.55, 9.995, 99.95, 99.995, 0.0625, 6.25, 7.000000000000001,
    0.07 * 100, 0.145 * 100, 84.75, 1e-6, 1.5e-7, 123e-20, 4.35, 1.45, 8.345, 1.0000000000000002, 0.9999999999999999, 100, -100, 42, 1e15, 1e16, 2 ** 53,
    -(2 ** 53) - 2, 0.000001, 0.0000001, 1.23e-10, 12345.6789, N('NaN'), N('Infinity'), N('-Infinity'), 95.49999999999999, 0.9549999 * 100, 81.25, 3.14159];
  const r = prng(0x7f1d);
  const values = [...fixed];
  while (values.length < 200) {
    const k = r.int(0, 4);
    if (k === 0) values.push(r.round(r.next() * 100, r.int(0, 4)));
    else if (k === 1) values.push((r.next() - 0.5) * 10 ** r.int(-8, 22));
    else if (k === 2) values.push(r.int(0, 1000) / 8 + r.pick([0, 0.005, 0.0005]));
    else if (k === 3) values.push(r.next());
    else values.push(-r.round(r.next() * 10, r.int(1, 3)) / 100);
  }
  return values.map((x, i) => ({
    name: `jsnum ${String(i).padStart(3, '0')}: ${typeof x === 'object' ? x.$num : String(x)}`,
    engine: 'jsnum', source: 'hand', only: ['rust'], construct: {},
    calls: [call('toString', x), ...[0, 1, 2, 3].map((d) => call('toFixed', x, d)), call('toFixed', x, r.int(4, 20))],
  }));
}
