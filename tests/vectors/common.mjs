// What the vector tooling and the JS suites share, written once: the `$num` codec
// of the vector files, the vectors' comparison rule, and a seeded PRNG.
//
// Plain ESM with no imports (no Node built-ins, no packages), so that the same
// file is loaded by the generators (generate.mjs, driver.mjs, gen_util.mjs),
// by the node:test suites (tests/node/support.mjs) and by the browser page
// (tests/browser/vector-runner.mjs, served from the repository root).

// ---------------------------------------------------------------------------
// Codec: numbers JSON cannot hold travel as {"$num": ...}; undefined = absent.

const SPECIAL = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity, '-0': -0 };

export const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Decodes the vectors' `{"$num": "NaN" | "Infinity" | "-Infinity" | "-0"}`. */
export function decode(v) {
  if (Array.isArray(v)) return v.map(decode);
  if (isPlainObject(v)) {
    const keys = Object.keys(v);
    if (keys.length === 1 && keys[0] === '$num') {
      if (!(v.$num in SPECIAL)) throw new Error(`unknown $num ${v.$num}`);
      return SPECIAL[v.$num];
    }
    const out = {};
    for (const k of keys) out[k] = decode(v[k]);
    return out;
  }
  return v;
}

// `v` as JSON keeps it (keys set to undefined dropped, undefined array items as
// null), with every other value passed through `leaf`.
function jsonShape(v, leaf) {
  if (Array.isArray(v)) return v.map((x) => (x === undefined ? null : jsonShape(x, leaf)));
  if (isPlainObject(v)) {
    const out = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = jsonShape(x, leaf);
    return out;
  }
  return leaf(v);
}

function encodeNumber(v) {
  if (typeof v !== 'number') return v;
  if (Number.isNaN(v)) return { $num: 'NaN' };
  if (v === Infinity) return { $num: 'Infinity' };
  if (v === -Infinity) return { $num: '-Infinity' };
  if (Object.is(v, -0)) return { $num: '-0' };
  return v;
}

/** The JSON-ready form of `v`: NaN, ±Infinity and -0 as `{"$num": ...}`, undefined keys dropped. */
export const encode = (v) => jsonShape(v, encodeNumber);

/** What `v` looks like once keys set to undefined are dropped (a key the reference leaves undefined counts as absent). */
export const normalize = (v) => jsonShape(v, (x) => x);

/** `v` as text for a message: JSON with the `$num` spellings, and undefined and functions named. */
export function show(v) {
  return JSON.stringify(v, (k, x) => {
    if (typeof x === 'number' && !Number.isFinite(x)) return { $num: String(x) };
    if (typeof x === 'number' && Object.is(x, -0)) return { $num: '-0' };
    if (x === undefined) return '<undefined>';
    if (typeof x === 'function') return '<function>';
    return x;
  });
}

// ---------------------------------------------------------------------------
// Comparison with the vectors' rule: every listed key equal (numbers with
// Object.is, so -0 and NaN count), listed keys in the actual order, and any
// key not listed must be one of the allowed extras.

export const NO_EXTRAS = new Set();

/** The differences between a vector's `expected` and `actual` (empty = equal). */
export function compare(expected, actual, extras = NO_EXTRAS, where = '$') {
  const out = [];
  if (typeof expected === 'number' || typeof actual === 'number') {
    if (!Object.is(expected, actual)) out.push(`${where}: expected ${show(expected)}, got ${show(actual)}`);
    return out;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${where}: expected an array, got ${show(actual)}`];
    if (expected.length !== actual.length) out.push(`${where}: length ${expected.length} != ${actual.length}`);
    for (let i = 0; i < Math.min(expected.length, actual.length); i++) out.push(...compare(expected[i], actual[i], extras, `${where}[${i}]`));
    return out;
  }
  if (isPlainObject(expected)) {
    if (!isPlainObject(actual)) return [`${where}: expected an object, got ${show(actual)}`];
    const ek = Object.keys(expected);
    for (const k of ek) {
      if (!(k in actual)) out.push(`${where}.${k}: missing`);
      else out.push(...compare(expected[k], actual[k], extras, `${where}.${k}`));
    }
    for (const k of Object.keys(actual)) if (!ek.includes(k) && !extras.has(k)) out.push(`${where}.${k}: unexpected key`);
    const order = Object.keys(actual).filter((k) => ek.includes(k));
    const want = ek.filter((k) => k in actual);
    if (order.join() !== want.join()) out.push(`${where}: key order ${want.join()} vs ${order.join()}`);
    return out;
  }
  if (expected !== actual) out.push(`${where}: expected ${show(expected)}, got ${show(actual)}`);
  return out;
}

// ---------------------------------------------------------------------------

/** A seeded PRNG (mulberry32: small, deterministic, good enough for test data). */
export function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (items) => items[Math.floor(next() * items.length)],
    chance: (p) => next() < p,
    round: (x, digits) => Number(x.toFixed(digits)),
  };
}
