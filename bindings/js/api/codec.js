// The wire format and the native objects: how a JS value becomes the one string a native call
// takes (bindings/js/interface/src/wire.rs: JSON plus a tag for NaN, the infinities, functions
// and `undefined`), how an answer becomes a value or a typed error, the argument descriptions
// the encoder's errors use, and the helpers every class shares (native objects, freed objects,
// plain-data copies).

import {
  ANSWER_ERROR, ANSWER_TAGGED, ERROR_CODE, LIMITS, MESSAGES, OP, PROBLEM, WIRE_TAG,
} from './contract.generated.mjs';

// ------------------------------------------------------------------------
// Wire format (see bindings/js/interface/src/wire.rs).

const tag = (what) => '{' + JSON.stringify(WIRE_TAG) + ':' + JSON.stringify(what) + '}';
const TAG_CODE = WIRE_TAG.charCodeAt(0); // a key that starts with it is escaped by one more
const TAG_NAN = tag('NaN');
const TAG_INFINITY = tag('Infinity');
const TAG_NEG_INFINITY = tag('-Infinity');
const TAG_UNDEFINED = tag('undefined');

// The core's size limits (docs/limits.md, `LIMITS` of the generated module), exported as
// `LIMITS`. The encoder checks nesting (valueDepth) and text size (documentBytes) before
// anything reaches native memory; the core checks the rest.

// What an argument is, for the encoder's errors: the code the core gives that argument's
// problems, the root of paths inside it, and its name when the whole of it is at fault.
const AS_VALUE = { code: ERROR_CODE.INVALID_CONFIG, root: '', name: 'value' };
export const AS_CONFIG = { code: ERROR_CODE.INVALID_CONFIG, root: '', name: 'config' };
export const AS_OPTIONS = { code: ERROR_CODE.INVALID_CONFIG, root: '', name: 'options' };
export const AS_SNAPSHOT = { code: ERROR_CODE.INVALID_SNAPSHOT, root: '', name: 'snapshot' };
export const AS_RESULT = { code: ERROR_CODE.INVALID_RESULT, root: '', name: 'result' };
export const AS_POLICY = { code: ERROR_CODE.INVALID_CONFIG, root: 'policy', name: 'policy' };
export const AS_SHADOW = { code: ERROR_CODE.INVALID_CONFIG, root: 'shadow', name: 'shadow' };
export const AS_REPORT = { code: ERROR_CODE.INVALID_ANALYTICS, root: '', name: 'detectDiminishingReturns()' };
export const AS_LAYER_RESULT = { code: ERROR_CODE.INVALID_LAYER_RESULT, root: '', name: 'layerResult' };
export const AS_SIGNAL = { code: ERROR_CODE.INVALID_SIGNAL, root: '', name: 'signal' };
export const AS_DECISION = { code: ERROR_CODE.INVALID_SIGNAL, root: 'decision', name: 'decision' };
export const AS_LAYERS = { code: ERROR_CODE.INVALID_CONFIG, root: 'layers', name: 'layers' };
export const AS_SPECULATIONS = { code: ERROR_CODE.INVALID_SIGNAL, root: 'speculations', name: 'speculations' };
// Runs (replay): the size limit applies to each run, or each line of JSONL text, which the
// core reads one at a time, never to the whole batch, so large replays stay possible.
export const AS_RUNS = { code: ERROR_CODE.INVALID_REPLAY, root: 'runs', name: 'runs', lines: true };
// A Loop's step arguments (`Loop.step(output, args)`, `finish(good)`): a result's.
export const AS_STEP = AS_RESULT;
export const AS_ITERATION = { code: ERROR_CODE.INVALID_ITERATION, root: '', name: 'iteration' };
// The outside diminishing-returns source: absent, or any object with the method.
export const AS_SOURCE = { code: ERROR_CODE.INVALID_CONFIG, root: 'iterationAnalytics', name: 'iterationAnalytics' };
// The behaviour detector's and intervention system's arguments.
export const AS_HISTORY = { code: ERROR_CODE.INVALID_RESULT, root: 'history', name: 'history' };
export const AS_THRESHOLDS = { code: ERROR_CODE.INVALID_CONFIG, root: 'thresholds', name: 'thresholds' };
export const AS_DETECTION = { code: ERROR_CODE.INVALID_DETECTION, root: 'detection', name: 'detection' };
export const AS_LOG = { code: ERROR_CODE.INVALID_SNAPSHOT, root: 'interventionLog', name: 'interventionLog' };
export const AS_STATE = { code: ERROR_CODE.INVALID_SNAPSHOT, root: '', name: 'state' };
export const asLayerResult = (index) => {
  const root = 'layers[' + index + ']';
  return { code: ERROR_CODE.INVALID_LAYER_RESULT, root, name: root };
};

export function scalar(value) {
  switch (typeof value) {
    case 'number':
      if (value === 0) return 1 / value < 0 ? '-0' : '0';
      if (value - value === 0) return '' + value; // finite
      return value !== value ? TAG_NAN : value > 0 ? TAG_INFINITY : TAG_NEG_INFINITY;
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
      return TAG_UNDEFINED;
    default: // function, symbol, bigint
      return tag(typeof value);
  }
}

// The encoder. Each object and array is read once (its keys, then each value once) and
// encoded once, however often it occurs: a shared sub-object's text is reused, so the work
// is linear in the input (tests/node/reliability.test.mjs counts the visits). Shared
// sub-objects are valid JS values (one result object given for two layers, say), so the
// text holds them once per occurrence, as JSON.stringify writes them, within the size limit.
// A cycle, nesting deeper than the limit, or text over the size limit is the core's typed
// error (op HOST_ERROR) with the argument's code and the path where it was found.
const ENCODING = {}; // the memo's mark of an object whose text is being written
export const ABORT_SIGNAL = {}; // stands for an AbortSignal: encoded as that host type's tag
const TAG_ABORT_SIGNAL = tag('AbortSignal');
let lastVisits = 0; // values visited by the last top-level encode (for the tests)

// `copied`: the host object `value` is a copy of (the values read from it once), so that a
// cycle back to it is found where it is in the caller's object.
export function encode(value, where = AS_VALUE, copied = undefined) {
  if (typeof value !== 'object' || value === null) {
    lastVisits = 1;
    if (typeof value !== 'string') return value === null ? 'null' : scalar(value);
    if (where.lines === true) return JSON.stringify(value); // JSONL: the core bounds each line
    // A whole argument given as text (a snapshot's JSON, say) is a document: its length in
    // code units is at most its UTF-8 bytes, so a longer one is over the core's limit.
    if (value.length > LIMITS.documentBytes) throw hostError(PROBLEM.SIZE, where.code, where.name);
    return JSON.stringify(value);
  }
  const walk = { where, memo: new Map(), keys: [], height: 0, visits: 1 };
  if (copied !== undefined && copied !== value) walk.memo.set(copied, ENCODING);
  const text = encodeObject(value, 1, walk);
  lastVisits = walk.visits;
  return text;
}

function encodeItem(value, depth, walk) {
  walk.visits++;
  if (typeof value === 'object' && value !== null) return encodeObject(value, depth, walk);
  walk.height = 0;
  if (typeof value === 'string' && value.length > LIMITS.documentBytes) throw hostError(PROBLEM.SIZE, walk.where.code, sizeField(walk));
  return value === null ? 'null' : scalar(value);
}

// `depth`: the nesting level of `value` (1 at the top). `walk.height` is set to the levels
// of `value` itself (1 for an object holding no object).
function encodeObject(value, depth, walk) {
  if (value === ABORT_SIGNAL) {
    walk.height = 1;
    return TAG_ABORT_SIGNAL;
  }
  const known = walk.memo.get(value);
  if (known !== undefined) {
    if (known === ENCODING) throw hostError(PROBLEM.CYCLE, walk.where.code, pathOf(walk));
    if (depth - 1 + known.height > LIMITS.valueDepth) throw hostError(PROBLEM.DEPTH, walk.where.code, pathOf(walk));
    walk.height = known.height;
    return known.text;
  }
  if (depth > LIMITS.valueDepth) throw hostError(PROBLEM.DEPTH, walk.where.code, pathOf(walk));
  walk.memo.set(value, ENCODING);
  const limit = LIMITS.documentBytes;
  let height = 0;
  let out;
  if (Array.isArray(value)) {
    out = '[';
    const length = value.length;
    for (let i = 0; i < length; i++) {
      walk.keys.push(i);
      const text = encodeItem(value[i], depth + 1, walk);
      walk.keys.pop();
      if (walk.height > height) height = walk.height;
      if (depth === 1 && walk.where.lines === true) { // a batch of runs: each run is bounded
        if (text.length >= limit) throw hostError(PROBLEM.SIZE, walk.where.code, walk.where.root + '[' + i + ']');
      } else if (out.length + text.length >= limit) {
        throw hostError(PROBLEM.SIZE, walk.where.code, sizeField(walk));
      }
      out += i > 0 ? ',' + text : text;
    }
    out += ']';
  } else {
    out = '{';
    const keys = Object.keys(value);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      walk.keys.push(key);
      const item = value[key];
      if (item === undefined) { // an undefined key is an absent key
        walk.keys.pop();
        continue;
      }
      const text = encodeItem(item, depth + 1, walk);
      walk.keys.pop();
      if (walk.height > height) height = walk.height;
      const entry = JSON.stringify(key.charCodeAt(0) === TAG_CODE ? WIRE_TAG + key : key) + ':' + text;
      if (out.length + entry.length >= limit) throw hostError(PROBLEM.SIZE, walk.where.code, sizeField(walk));
      out += out.length > 1 ? ',' + entry : entry;
    }
    out += '}';
  }
  height += 1;
  walk.memo.set(value, { text: out, height });
  walk.height = height;
  return out;
}

// What a size error names: the argument, or in a batch of runs the run (`runs[3]`).
function sizeField(walk) {
  return walk.where.lines === true && walk.keys.length > 0 ? walk.where.root + '[' + walk.keys[0] + ']' : walk.where.name;
}

// Where the encoder is: `root.key[2]...`. A key is cut to 64 characters, so that what
// crosses to the core for the message stays small whatever the keys are.
function pathOf(walk) {
  let path = walk.where.root;
  for (const key of walk.keys) {
    if (typeof key === 'number') path += '[' + key + ']';
    else path += (path === '' ? '' : '.') + (key.length > 64 ? key.slice(0, 64) + '...' : key);
  }
  return path;
}

// The core's error for what this layer found itself (`PROBLEM`, by number), in an
// argument whose errors have `code`, at `path`; `got` is an encoded value. The one op called
// by hand (declared `codec` in contract.rs): the generated calls import this encoder.
export function hostError(problem, code, path, got = 'null') {
  return makeError(native.exec(OP.HOST_ERROR, '[' + problem + ',' + JSON.stringify(code) + ',' + JSON.stringify(path) + ',' + got + ']'));
}

export const enc = (value, where, copied) => encode(value, where, copied);
// A config or options argument: `undefined` means "none", as the seed's default parameters do.
export const encConfig = (value, where = AS_CONFIG) => (value === undefined ? 'null' : encode(value, where));
// An optional argument: `undefined` and `null` both mean "none".
export const encOpt = (value, where = AS_OPTIONS) => (value === undefined || value === null ? 'null' : encode(value, where));

const SPECIAL = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity };

function untag(value) {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = untag(value[i]);
    return value;
  }
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === WIRE_TAG) return SPECIAL[value[WIRE_TAG]]; // else undefined
  const out = {};
  for (const key of keys) {
    const item = untag(value[key]);
    if (item === undefined) continue;
    const name = key.charCodeAt(0) === TAG_CODE ? key.slice(1) : key;
    if (name === '__proto__') Object.defineProperty(out, name, { value: item, enumerable: true, writable: true, configurable: true });
    else out[name] = item;
  }
  return out;
}

// For `catch (error)`: whether `error` is one of this package's bad-input errors, a
// TypeError or RangeError carrying string `.code` and `.field` (whichever package or build
// threw it, so the shape is checked, not a class).
export function isEarlyExitError(error) {
  return (error instanceof TypeError || error instanceof RangeError) && typeof error.code === 'string' && typeof error.field === 'string';
}

export function makeError(answer) {
  const e = JSON.parse(answer.slice(1));
  const error = e.kind === 'type' ? new TypeError(e.message) : new RangeError(e.message);
  error.code = e.code;
  error.field = e.field;
  return error;
}

// Reads an answer: '' is undefined, '!' an error, '~' JSON with tags, else JSON.
export function unwrap(answer) {
  const first = answer.charCodeAt(0);
  if (first === 123 || first === 91 || first === 34) return JSON.parse(answer); // { [ "
  if (answer === '') return undefined;
  if (first === ANSWER_ERROR) throw makeError(answer);
  if (first === ANSWER_TAGGED) return untag(JSON.parse(answer.slice(1)));
  return JSON.parse(answer);
}

// A one-item list of an encoded value (a records argument of one record).
export const listOf = (text) => '[' + text + ']';

// ------------------------------------------------------------------------
// Native objects

// Every stateful class holds one native object. After free() it holds this one,
// so a use after free is a clear error rather than a crash.
export const FREED = {
  call() {
    throw new Error(MESSAGES.FREED);
  },
};
// A private token: the static fromJSON methods build an object without running
// the constructor's validation.
export const RESTORE = Symbol('restore');

export function newNative() {
  return new native.NativeEngine();
}

export function release(engine) {
  if (engine !== FREED && typeof engine.free === 'function') engine.free(); // wasm; napi objects are GC'd
}

// Fills a fresh native object with `op`; frees it and rethrows if the core refuses.
export function filled(op, args) {
  const engine = newNative();
  const answer = engine.call(op, args);
  if (answer.charCodeAt(0) === ANSWER_ERROR) {
    release(engine);
    throw makeError(answer);
  }
  return engine;
}

export function addDispose(cls) {
  if (typeof Symbol.dispose === 'symbol') {
    Object.defineProperty(cls.prototype, Symbol.dispose, {
      value: function dispose() {
        this.free();
      },
      writable: true,
      configurable: true,
    });
  }
}

export function freedError() {
  return new Error(MESSAGES.FREED);
}

// Plain data (details objects): a deep copy, so callers cannot reach the engine's own.
export function copyData(value) {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copyData);
  const out = {};
  for (const key of Object.keys(value)) out[key] = copyData(value[key]);
  return out;
}
// The array index a property key names, or -1.
export function arrayIndex(key) {
  if (typeof key !== 'string') return -1;
  const n = Number(key);
  return Number.isInteger(n) && n >= 0 && n < 4294967295 && String(n) === key ? n : -1;
}

// An object's own keys and values (the object assigned to `config`).
export function entriesOf(object) {
  const keys = Object.keys(object);
  return { keys, values: keys.map((key) => object[key]) };
}
export function sameEntries(object, seen) {
  const keys = Object.keys(object);
  if (keys.length !== seen.keys.length) return false;
  for (let i = 0; i < keys.length; i++) if (keys[i] !== seen.keys[i] || !Object.is(object[keys[i]], seen.values[i])) return false;
  return true;
}
// `{"key":value}` in the wire format, `undefined` kept (an object literal would drop it).
export const encEntry = (key, value) => '{' + JSON.stringify(key.charCodeAt(0) === TAG_CODE ? WIRE_TAG + key : key) + ':' + encode(value, AS_CONFIG) + '}';


// For the tests: the encoder's text and how many values it visited.
export function encodeCounted(value, as = undefined) {
  const text = encode(value, as === 'runs' ? AS_RUNS : AS_VALUE);
  return { text, visits: lastVisits };
}
