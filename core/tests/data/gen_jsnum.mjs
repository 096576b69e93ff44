// Generates jsnum_node.json: reference outputs of Number.prototype.toString() and
// Number.prototype.toFixed() from Node, for core/tests/jsnum_node.rs; and of
// Number.prototype.toLocaleString('en-US') in locale_node.json.
//
// Usage (from the workspace root): node core/tests/data/gen_jsnum.mjs
//
// Each case is {"bits": "<16 hex digits of the f64>", "digits": <n | null>, "expected": "..."};
// digits null means String(x), otherwise x.toFixed(digits). The PRNG is seeded, so the output
// is reproducible byte for byte.

import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const OUT = join(dirname(fileURLToPath(import.meta.url)), "jsnum_node.json");

// ---- bit helpers -------------------------------------------------------------------------
const view = new DataView(new ArrayBuffer(8));
function toBits(x) {
  view.setFloat64(0, x);
  return view.getBigUint64(0);
}
function fromBits(b) {
  view.setBigUint64(0, BigInt.asUintN(64, b));
  return view.getFloat64(0);
}
function hex(b) {
  return b.toString(16).padStart(16, "0");
}
function nextUp(x) {
  if (Number.isNaN(x) || x === Infinity) return x;
  if (x === 0) return 5e-324;
  const b = toBits(x);
  return fromBits(x > 0 ? b + 1n : b - 1n);
}
function nextDown(x) {
  return -nextUp(-x);
}

// ---- seeded PRNG (xorshift64 over BigInt) ------------------------------------------------
const MASK = (1n << 64n) - 1n;
let state = 0x9e3779b97f4a7c15n;
function next64() {
  let x = state;
  x ^= (x << 13n) & MASK;
  x ^= x >> 7n;
  x ^= (x << 17n) & MASK;
  state = x;
  return x;
}
function randUnit() {
  // uniform double in [0, 1) with 53 random bits
  return Number(next64() >> 11n) / 2 ** 53;
}
function randInt(n) {
  // uniform integer in [0, n) for n < 2^53
  return Math.floor(randUnit() * n);
}
function pick(arr) {
  return arr[randInt(arr.length)];
}

// ---- case collection ---------------------------------------------------------------------
const cases = [];
const seen = new Set();
function add(x, digits) {
  const bits = hex(toBits(x));
  const key = bits + ":" + digits;
  if (seen.has(key)) return;
  seen.add(key);
  const expected = digits === null ? String(x) : x.toFixed(digits);
  cases.push({ bits, digits, expected });
}
const COMMON_DIGITS = [0, 1, 2, 3, 5, 10, 20];
const ALL_DIGITS = [0, 1, 2, 3, 5, 10, 20, 100];
function randDigits() {
  // toFixed(100) strings are long; keep them to ~4% of the toFixed cases
  return randInt(25) === 0 ? 100 : pick(COMMON_DIGITS);
}
function addAll(x) {
  add(x, null);
  for (const d of ALL_DIGITS) add(x, d);
}
function addWithNeighbours(x) {
  addAll(x);
  addAll(-x);
  for (const y of [nextUp(x), nextDown(x)]) {
    add(y, null);
    add(-y, null);
    add(y, pick(ALL_DIGITS));
    add(-y, pick(COMMON_DIGITS));
  }
}

// 1. Named edge values, their negations and neighbours, at every digit count.
const named = [
  0, 0.1, 0.2, 0.3, 0.25, 2.5, 0.125, 1.005, 1.5, 0.5, 10.5, 0.0625, 0.375, 1.45, 8.345,
  0.045, 1.255, 0.07 * 100, 0.1 + 0.2, 99.99, 99.995, 99.5, 999.5, 0.95, 0.05, 0.005,
  0.01, 0.04, 0.0001, 1, 10, 100, 123.456, 1234.5678, 1 / 3, 2 / 3, Math.PI, Math.E,
  5e-324, 1e-323, 2.2250738585072014e-308, 2.225073858507201e-308, 4.9406564584124654e-324,
  1e-300, 1e-100, 1e-20, 1e-10, 1e-7, 1.5e-7, 9.99e-7, 1e-6, 1.5e-6, 9.999999e-7, 1e-5,
  1e20, 1e21, 1e22, 999999999999999900000, 999999999999999999999, 1e21 - 65536,
  1e21 * (1 + Number.EPSILON), 123456789012345680000, 1.5e300, 1e300, 1.7976931348623157e308,
  2 ** 52, 2 ** 53, 2 ** 53 + 2, 2 ** 54, 2 ** 60, 2 ** 63, 2 ** 64, 2 ** 70, 2 ** 100,
  9007199254740993, Number.MAX_SAFE_INTEGER, Number.EPSILON, 0.1 * 3, 4.35, 4.345, 1.0049999999999999,
];
for (const x of named) addWithNeighbours(x);
add(NaN, null);
add(Infinity, null);
add(-Infinity, null);
for (const d of ALL_DIGITS) {
  add(NaN, d);
  add(Infinity, d);
  add(-Infinity, d);
}

// 2. Exact ties: (2j+1)/2^t has t binary = t decimal fraction digits, so toFixed(t-1) is a tie.
for (let i = 0; i < 600; i++) {
  const t = 1 + randInt(12);
  const j = randInt(i < 300 ? 200 : 2 ** 20);
  const x = (2 * j + 1) / 2 ** t;
  const s = randInt(2) === 0 ? 1 : -1;
  add(s * x, t - 1);
  add(s * x, Math.max(0, t - 2));
  add(s * x, t);
  add(s * x, null);
}

// 3. Powers of ten (exponent-notation boundaries) and neighbours.
for (let e = -323; e <= 308; e++) {
  const x = Number(`1e${e}`);
  add(x, null);
  add(nextUp(x), null);
  add(nextDown(x), null);
  if (e % 3 === 0) {
    add(Number(`1.5e${e}`), null);
    add(Number(`9.5e${e}`), null);
  }
  if (e >= -25 && e <= 22) {
    for (const d of [0, 2, 5, 20]) {
      add(x, d);
      add(nextDown(x), d);
    }
  }
}

// 4. Powers of two and integers around 2^53 and beyond.
for (let e = -1074; e <= 1023; e += e < -30 || e > 80 ? 7 : 1) {
  const x = 2 ** e;
  add(x, null);
  if (e >= -40 && e <= 75) add(x, pick(ALL_DIGITS));
}
for (let i = 0; i < 500; i++) {
  const bitsLen = 1 + randInt(75);
  const x = Math.floor(randUnit() * 2 ** bitsLen);
  add(x, null);
  add(-x, null);
  add(x, pick([0, 1, 2]));
}

// 5. Random bit patterns (any double, including NaN payloads, subnormals, huge values).
for (let i = 0; i < 1600; i++) {
  const x = fromBits(next64());
  add(x, null);
  if (i % 3 === 0) add(x, randDigits());
}
// Subnormals specifically.
for (let i = 0; i < 200; i++) {
  const x = fromBits(next64() & ((1n << 52n) - 1n));
  add(x, null);
  if (i % 4 === 0) add(x, pick(ALL_DIGITS));
}

// 6. Random doubles with moderate magnitude (1e-12 .. 1e22), where toFixed rounding matters.
for (let i = 0; i < 2000; i++) {
  const exp = BigInt(1023 - 40 + randInt(113));
  const mant = next64() & ((1n << 52n) - 1n);
  const sign = randInt(4) === 0 ? 1n << 63n : 0n;
  const x = fromBits(sign | (exp << 52n) | mant);
  add(x, null);
  add(x, randDigits());
  if (i % 2 === 0) add(x, pick(COMMON_DIGITS));
}

// 7. "Human" values and the products the engines compute.
for (let i = 0; i < 1200; i++) {
  const k = randInt(100001);
  const vals = [
    k / 100,
    k / 1000,
    (k % 1001) / 1000,
    ((k % 1001) / 1000) * 100,
    (1 - (k % 1001) / 1000) * 100,
    (k % 101) / 100 * 100,
    randUnit() * 100,
    (1 - randUnit()) * 100,
    Math.round(randUnit() * 1e4) / 1e4 * 100,
    (k % 37) / (1 + (k % 13)),
  ];
  const x = vals[i % vals.length];
  add(x, null);
  add(x, pick([0, 1, 2, 3]));
  if (i % 3 === 0) add(-x, pick([0, 1, 2]));
  if (i % 5 === 0) add(x, pick([5, 10, 20]));
}
// Confidences and ratios as engines compute them.
for (let i = 0; i < 400; i++) {
  const passed = randInt(1000);
  const total = passed + 1 + randInt(1000);
  const c = passed / total;
  add(c, null);
  add(c * 100, null);
  add(c * 100, pick([0, 1, 2]));
  add((1 - c) * 100, pick([0, 1, 2]));
}

// 8. Negative values that round to zero.
for (const x of [-0, -0.01, -0.04, -0.049, -0.05, -0.4, -0.5, -0.0001, -1e-10, -5e-324, -1e-300]) {
  for (const d of [0, 1, 2, 3, 5, 10]) add(x, d);
}

writeFileSync(OUT, JSON.stringify(cases, null, 0).replace(/\},\{/g, "},\n{") + "\n");
console.log(`wrote ${cases.length} cases to ${OUT}`);

// ---- toLocaleString('en-US') (the analytics report's token total), in locale_node.json ----
// Drawn after every case above, so adding it changed none of them.
const LOCALE_OUT = join(dirname(fileURLToPath(import.meta.url)), "locale_node.json");
const locale = [];
const seenLocale = new Set();
function addLocale(x) {
  const bits = hex(toBits(x));
  if (seenLocale.has(bits)) return;
  seenLocale.add(bits);
  locale.push({ bits, expected: x.toLocaleString("en-US") });
}
for (const x of named) {
  for (const y of [x, -x, nextUp(x), nextDown(x)]) addLocale(y);
}
for (const x of [NaN, Infinity, -Infinity, -0, 0.0005, 0.00049999, 999.9995, 999.9994999, 123.4565, 0.0015, 1.0005,
  2.0005, 9.9995, 99999.9995, 0.9995, 0.9994, 1e-4, 5e-4, 4.9e-4, 1234, 12345, 123456, 1234567, 2 ** 60]) addLocale(x);
for (let i = 0; i < 500; i++) {
  const k = randInt(2 ** 40);
  addLocale(k);
  addLocale(k / 1000);
  addLocale(k / 10000);
  addLocale(randUnit() * 10 ** randInt(25));
}
for (let i = 0; i < 150; i++) addLocale(fromBits(next64()));
writeFileSync(LOCALE_OUT, JSON.stringify(locale, null, 0).replace(/\},\{/g, "},\n{") + "\n");
console.log(`wrote ${locale.length} cases to ${LOCALE_OUT}`);
