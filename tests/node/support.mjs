// Helpers shared by the node:test files. The vectors' `$num` decoder and the seeded PRNG
// (mulberry32) are tests/vectors/common.mjs, re-exported here.

export { decode, prng as rng } from '../vectors/common.mjs';

/** Keys the project adds to the seeds' objects (architecture.md, "Exact to the seed"). */
export const LISTED_EXTRAS = new Set([
  'best_iteration', 'best_quality_score', 'budgets', 'layersExecuted', 'verifiedLayers', 'mispredictions', 'computeSavedMs',
  'verdict', 'failingLayers', 'layersBeforeExit', 'layersVerified', 'layersNotRun', 'note',
]);

/** Keys the project adds to the entries of a seed's list: a run's `speculations[i]` name their layer. */
const LISTED_ENTRY_EXTRAS = [[/\.speculations\[\d+\]$/, new Set(['layer', 'name'])]];
const entryExtra = (where, key) => LISTED_ENTRY_EXTRAS.some(([at, keys]) => at.test(where) && keys.has(key));

const show = (v) => (typeof v === 'number' && Object.is(v, -0) ? '-0' : typeof v === 'number' ? String(v) : JSON.stringify(v));

/**
 * "Exact to the seed": every key of `expected` present in `actual` with an equal value
 * (numbers with Object.is, so -0 and NaN count; strings byte for byte; arrays of the same
 * length and order), the shared keys in the same order, and any extra key of `actual` one
 * of the listed extras (at the top level, or in a listed entry). A key the reference leaves `undefined` is absent.
 * Returns a list of differences.
 */
export function compare(expected, actual, where = '$', top = true) {
  if (typeof expected === 'number' || typeof actual === 'number') {
    return Object.is(expected, actual) ? [] : [`${where}: expected ${show(expected)}, got ${show(actual)}`];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${where}: expected an array, got ${show(actual)}`];
    const out = [];
    if (expected.length !== actual.length) out.push(`${where}: ${actual.length} items, expected ${expected.length}`);
    for (let i = 0; i < Math.min(expected.length, actual.length); i++) out.push(...compare(expected[i], actual[i], `${where}[${i}]`, false));
    return out;
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return [`${where}: expected an object, got ${show(actual)}`];
    const out = [];
    const expectedKeys = Object.keys(expected).filter((k) => expected[k] !== undefined);
    for (const key of expectedKeys) {
      if (!(key in actual) || actual[key] === undefined) out.push(`${where}.${key}: missing`);
      else out.push(...compare(expected[key], actual[key], `${where}.${key}`, false));
    }
    const actualKeys = Object.keys(actual).filter((k) => actual[k] !== undefined);
    for (const key of actualKeys) {
      if (!expectedKeys.includes(key) && !(top && LISTED_EXTRAS.has(key)) && !entryExtra(where, key)) out.push(`${where}.${key}: unexpected key`);
    }
    const order = actualKeys.filter((k) => expectedKeys.includes(k)).join();
    const want = expectedKeys.filter((k) => actualKeys.includes(k)).join();
    if (order !== want) out.push(`${where}: key order ${order}, expected ${want}`);
    return out;
  }
  return expected === actual ? [] : [`${where}: expected ${show(expected)}, got ${show(actual)}`];
}

/** A string with its numbers replaced by `<n>`: the template it came from. */
export function templateOf(s) {
  return s.replace(/-?\d+(\.\d+)?(e[+-]?\d+)?/g, '<n>');
}
