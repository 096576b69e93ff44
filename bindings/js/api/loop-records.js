// The records of EarlyStopping (loop.js): a result or a source's report as the values read
// from it, a history record as the seed stores it, and as a stop policy folds it.

import {
  BEHAVIOR_RECORD_FIELDS, FLAG_COST, FLAG_TIME, FLAG_TOKENS, RECORD_FIELDS, REPORT_KEYS, WIRE_TAG, recordOf,
} from './contract.generated.mjs';
import { enc, scalar } from './codec.js';

// The fields of a loop result the fast path reads, in the order readBack() takes them.
// (The core's RECORD_FIELDS: the variables recordIterationResult reads are in its order.)
export const RESULT_FIELDS = RECORD_FIELDS;

// A result object as the values already read from it (`known` by RESULT_FIELDS, `others`
// by key), in its key order: what the JSON path encodes instead of reading it again.
export function readBack(keys, others, known) {
  const given = {};
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const at = RESULT_FIELDS.indexOf(key);
    const value = at >= 0 ? known[at] : others === null ? undefined : others.get(key);
    if (value !== undefined) Object.defineProperty(given, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return given;
}

// A source's report as the values read from it, each once: `{detected, iteration, reason}`
// (the only keys the core reads; `iteration` only when given). Anything but an object is
// passed on as it is, for the core's error.
export function readReport(report) {
  if (typeof report !== 'object' || report === null || Array.isArray(report)) return report;
  const read = {};
  const keys = Object.keys(report);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (REPORT_KEYS.includes(key)) {
      const value = report[key];
      if (value !== undefined) read[key] = value;
    }
  }
  return read;
}

// Whether for-in over `object` sees exactly its own enumerable keys (what Object.keys,
// the wire encoder and so the core see): its prototype is Object.prototype with nothing
// enumerable on it, or null. Anything else takes the general path.
export const NO_KEYS = Object.freeze({}); // for-in over nothing
export function inheritsNothing(object) {
  const proto = Object.getPrototypeOf(object);
  if (proto === null) return true;
  if (proto !== Object.prototype) return false;
  for (const key in proto) return false; // (the loop runs only if something is enumerable)
  return true;
}

// A history record as the seed stores it: a timestamp the clock gave is formatted on
// first read (kept as the time in ms until then).
export function copyRecord(record) {
  if (typeof record.timestamp === 'number') record.timestamp = new Date(record.timestamp).toISOString();
  return { ...record };
}

// What a record the caller gave held when the core checked it (every field a record may
// have): a later change to the object is seen by comparing.
const CHECKED_FIELDS = [...RECORD_FIELDS, ...BEHAVIOR_RECORD_FIELDS];
export const recordValues = (object) => CHECKED_FIELDS.map((field) => object[field]);
// A record the caller gave, read once (own keys), so that what the core checks, what the
// state folds and what is compared later are the same values; non-records as they are.
export function readRecord(entry) {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return entry;
  const plain = {};
  for (const key of Object.keys(entry)) {
    const value = entry[key];
    if (key === '__proto__') Object.defineProperty(plain, key, { value, enumerable: true, writable: true, configurable: true });
    else plain[key] = value;
  }
  return plain;
}
// A checked record (readRecord's) in the shape recordIterationResult stores.
export function storedRecord(plain, timestamp) {
  const flags = (plain.tokens_used === undefined ? 0 : FLAG_TOKENS) | (plain.token_cost_usd === undefined ? 0 : FLAG_COST) |
    (plain.execution_time_ms === undefined ? 0 : FLAG_TIME);
  const record = recordOf(plain.iteration_number, plain.quality_score, plain.confidence, plain.verification_status,
    plain.quality_delta, plain.timestamp === undefined ? timestamp : plain.timestamp, flags, plain.tokens_used,
    plain.token_cost_usd, plain.execution_time_ms);
  // The behaviour fields the core checked, kept after the others as a recorded result keeps
  // them (null is unknown: not kept); lists copied, as the caller's object stays theirs.
  for (const field of BEHAVIOR_RECORD_FIELDS) {
    const value = plain[field];
    if (value !== undefined && value !== null) record[field] = Array.isArray(value) ? value.slice() : value;
  }
  return record;
}
export function sameValues(object, values) {
  const fields = CHECKED_FIELDS;
  for (let i = 0; i < fields.length; i++) if (!Object.is(object[fields[i]], values[i])) return false;
  return true;
}
// A stored record as a stop policy's object folds it: the wire text of its fields but the
// timestamp (no policy condition reads it). Plain fields written directly; anything else
// (behaviour fields' lists and objects) through the encoder.
export function policyRecord(record) {
  let text = '{';
  for (const key in record) {
    const value = record[key];
    if (key === 'timestamp' || value === undefined) continue;
    const type = typeof value;
    if ((type !== 'number' && type !== 'string' && type !== 'boolean') || key.charCodeAt(0) === WIRE_TAG_CODE) {
      const { timestamp, ...fields } = record;
      return enc(fields);
    }
    text += (text.length > 1 ? ',' : '') + JSON.stringify(key) + ':' + scalar(value);
  }
  return text + '}';
}
export const WIRE_TAG_CODE = WIRE_TAG.charCodeAt(0);

// Where strict checking began in a snapshot's history (the core's `strict_iterations_from`,
// the rule a strict engine applies to each new record): the smallest index from which on
// each iteration number is greater than the one before it, 0 when the whole history is.
// A loop that turned `strictIterations` on after records that do not increase writes it as
// `strictIterationsFrom`, so its snapshot restores; no other snapshot has the key.
export function strictIterationsFrom(history) {
  for (let i = history.length - 1; i >= 1; i--) {
    if (!(history[i].iteration_number > history[i - 1].iteration_number)) return i + 1;
  }
  return 0;
}
