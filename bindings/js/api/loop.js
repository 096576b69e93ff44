// EarlyStopping, the seed's loop engine, on the numeric fast path.

import {
  BEHAVIOR_RECORD_FIELDS, BUDGETS, CHECK_DIMINISHING_RETURNS, CHECK_HIGH_CONFIDENCE, CHECK_QUALITY_PLATEAU, CODE_DELEGATE,
  CODE_INVALID_REPORT, CODE_NEED_SOURCE, HOST_CODES, CODE_TRIGGER, COUNTERS, DELEGATED_HIGH_CONFIDENCE, DELEGATED_QUALITY_PLATEAU,
  DELEGATE_NONE, DELEGATE_RESUME, DIMINISHING_RETURNS_ANSWER, ERROR_CODE, FLAG_ACCEPTED, FLAG_COST,
  FLAG_ITERATION_NUMBER, FLAG_TIME, FLAG_TIMESTAMP, FLAG_TOKENS, FOLD_OK, HIGH_CONFIDENCE_ANSWER, IMPROVEMENT_SLOTS,
  IN_CONFIDENCE, IN_COST, IN_DELEGATE, IN_DELTA, IN_DETECTED, IN_FLAGS, IN_ITERATION, IN_ITERATION_NUMBER, IN_QUALITY,
  IN_REPORT_ITERATION, IN_REPORT_ITERATION_KIND, IN_SOURCE, IN_STATUS, IN_TIME, IN_TIMESTAMP, IN_TIMESTAMP_LEN,
  IN_TOKENS, MAX_FAST_TIMESTAMP, MESSAGES, OBSERVATION_SLOTS, OP, OUT_CODE, OUT_CONFIDENCE, OUT_DELEGATE_CHECK,
  OUT_DELEGATE_RESUME, PLATEAU_ANSWER, REASON_CONTINUE, REASON_NO_ITERATIONS, RECORD_FIELDS, REPORT_ITERATION_NUMBER,
  REPORT_KEYS, SOURCE_ATTACHED, SOURCE_NONE, SOURCE_REPORT, STATE, STATUSES, USAGE_SUMS, WINDOW, WINDOW_LEN, WIRE_TAG, answerOf,
  decisionOf, detailsOf, recordOf, snapshotOf, summaryOf,
} from './contract.generated.mjs';
import {
  AS_CONFIG, AS_OPTIONS, AS_POLICY, AS_REPORT, AS_RESULT, AS_SNAPSHOT, RESTORE, args1, args2, arrayIndex, copyData, enc, encConfig,
  encEntry, entriesOf, freedError, release, sameEntries, scalar, unwrap,
} from './codec.js';
import { fast, growScratch, scratchView } from './scratch.js';

// ------------------------------------------------------------------------
// Engine 1: the seed's EarlyStopping, on the numeric fast path
//
// No native object per engine and no JSON per call (docs/internals/performance-notes.md). Each
// engine keeps its history (the seed's record objects) and its compact decision state
// (config, counters, the last plateauConsecutiveCount observations: a Float64Array)
// here; the core's stateless functions (bindings/js/fast/src/fast.rs over
// core/src/loops/) validate and fold a record in, and decide, over that state in
// a scratch buffer shared with the native side. The most recently used engine's state
// stays in the scratch buffer, so a loop over one engine copies nothing. Calls answer a
// number code; this layer builds the returned object in one step. Reason strings come
// from the core, cached per distinct value. Anything the fast path does not take (an
// unusual argument, an invalid value) goes to the JSON path, which gives the core's
// full typed error.

let decidedBy = null; // the engine whose decision (over its current state) is in the output slots

// After the scratch slots were replaced (a trapped wasm instance): no decision is in them.
export function forgetDecision() {
  decidedBy = null;
}

// The outside diminishing-returns source: absent, or any object with the method.
const AS_SOURCE = { code: ERROR_CODE.INVALID_CONFIG, root: 'iterationAnalytics', name: 'iterationAnalytics' };
function sourceOf(analytics) {
  if (analytics === null || analytics === undefined) return null;
  if ((typeof analytics === 'object' || typeof analytics === 'function') && typeof analytics.detectDiminishingReturns === 'function') {
    return analytics;
  }
  return unwrap(native.exec(OP.ANALYTICS_SOURCE_ERROR, args1(enc(analytics, AS_SOURCE))));
}

// The timestamp's bytes in scratch buffer `s` (slots IN_TIMESTAMP on), viewed again
// whenever the scratch view is another (grown, or wasm memory grown).
function timestampBytes(s) {
  if (fast.timestampFor === s) return fast.timestampBytes;
  fast.timestampFor = s;
  return (fast.timestampBytes = new Uint8Array(s.buffer, s.byteOffset + s.BYTES_PER_ELEMENT * IN_TIMESTAMP, MAX_FAST_TIMESTAMP));
}

// Slots needed to fold one more observation into a window of `len` (state, then the
// plateau's improvements after it).
const slotsFor = (len) => WINDOW + (OBSERVATION_SLOTS + IMPROVEMENT_SLOTS) * (len + 2);

// A validated config: its object (as getConfig() returns it), its slots, and reason
// strings cached per value. Shared by every engine with the same config.
const configs = new Map();
const CACHE_ENTRIES = 64; // per cache (configs, and each config's reason caches)
const CACHE_TEXT = 256; // longer reasons are not cached
function configEntry(key, answer) {
  const [value, slots] = answer;
  return { key, value, slots: Float64Array.from(slots), highConfidence: new Map(), maxIterations: new Map(), plateau: null };
}
function configFor(config) {
  const key = config === undefined || config === null ? 'null' : enc(config, AS_CONFIG);
  let entry = configs.get(key);
  if (entry === undefined) {
    entry = configEntry(key, unwrap(native.exec(OP.ES_CONFIG_CHECK, '[null,' + key + ',"config"]')));
    if (configs.size >= CACHE_ENTRIES) configs.clear();
    configs.set(key, entry);
  }
  return entry;
}

// A stop policy checked and normalized by the core (its wire text), cached per given policy's
// text as configs are: engines made in a loop under one policy check it once.
const policies = new Map();
const CACHE_POLICY_TEXT = 16_384; // a larger policy is checked per engine
function checkedPolicy(given) {
  let text = policies.get(given);
  if (text === undefined) {
    const answer = native.exec(OP.LOOP_POLICY_CHECK, args1(given));
    text = answer.charCodeAt(0) === 123 ? answer : enc(unwrap(answer)); // '{': plain JSON as it is
    if (given.length + text.length > CACHE_POLICY_TEXT) return text;
    if (policies.size >= CACHE_ENTRIES) policies.clear();
    policies.set(given, text);
  }
  return text;
}

// Reason strings are cached per value (per config, and module-wide for an outside source's
// reasons), so a repeated decision costs no native call. Bounded in entries and in length:
// a source's reason can be any size, and the caches outlive the engines that filled them.
const drReasons = new Map();
function cached(map, key, make) {
  let text = map.get(key);
  if (text === undefined) {
    text = make();
    if (text.length > CACHE_TEXT) return text;
    if (map.size >= CACHE_ENTRIES) map.clear();
    map.set(key, text);
  }
  return text;
}
const fetchReason = () => native.fastReason();

// The fields of a loop result the fast path reads, in the order readBack() takes them.
// (The core's RECORD_FIELDS: the variables recordIterationResult reads are in its order.)
const RESULT_FIELDS = RECORD_FIELDS;
const AS_ITERATION = { code: ERROR_CODE.INVALID_ITERATION, root: '', name: 'iteration' };

// A result object as the values already read from it (`known` by RESULT_FIELDS, `others`
// by key), in its key order: what the JSON path encodes instead of reading it again.
function readBack(keys, others, known) {
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
function readReport(report) {
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
const NO_KEYS = Object.freeze({}); // for-in over nothing
function inheritsNothing(object) {
  const proto = Object.getPrototypeOf(object);
  if (proto === null) return true;
  if (proto !== Object.prototype) return false;
  for (const key in proto) return false; // (the loop runs only if something is enumerable)
  return true;
}

// A history record as the seed stores it: a timestamp the clock gave is formatted on
// first read (kept as the time in ms until then).
function copyRecord(record) {
  if (typeof record.timestamp === 'number') record.timestamp = new Date(record.timestamp).toISOString();
  return { ...record };
}

// The seed's public fields are plain data its users write to (`stopper.config.x = v`,
// `stopper.iterationHistory.push(r)`), and the seed honours the writes. Here the history
// and the config are handed out as live views (Proxies) whose writes the engine sees:
// a config write and a write to a recorded record are checked by the core at the write
// (a typed error, nothing written); records put into the history from outside are checked
// by the core when the engine next uses its history (a typed error naming
// `iterationHistory[i]`). The state is then folded again lazily, so the normal loop
// (recordIterationResult + shouldStop) keeps its fast path: one flag test per call.

// Record views (any engine's) -> { engine, record }.
const RECORD_OF = new WeakMap();
// History views -> the array they show.
const HISTORY_OF = new WeakMap();

// What a record the caller gave held when the core checked it (every field a record may
// have): a later change to the object is seen by comparing.
const CHECKED_FIELDS = [...RECORD_FIELDS, ...BEHAVIOR_RECORD_FIELDS];
const recordValues = (object) => CHECKED_FIELDS.map((field) => object[field]);
// A record the caller gave, read once (own keys), so that what the core checks, what the
// state folds and what is compared later are the same values; non-records as they are.
function readRecord(entry) {
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
function storedRecord(plain, timestamp) {
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
function sameValues(object, values) {
  const fields = CHECKED_FIELDS;
  for (let i = 0; i < fields.length; i++) if (!Object.is(object[fields[i]], values[i])) return false;
  return true;
}
// A stored record as a stop policy's object folds it: the wire text of its fields but the
// timestamp (no policy condition reads it). Plain fields written directly; anything else
// (behaviour fields' lists and objects) through the encoder.
function policyRecord(record) {
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
const WIRE_TAG_CODE = WIRE_TAG.charCodeAt(0);

// What crossed to stop policies' objects (for the tests: the work per decision is counted
// here, not timed): objects opened (a policy parsed and a state made), steps, the records
// they folded, and the characters of their arguments.
const policyTraffic = { opens: 0, steps: 0, records: 0, chars: 0 };
export function policyCounts() {
  return { ...policyTraffic };
}
function stepPolicy(engine, args, records) {
  policyTraffic.steps++;
  policyTraffic.records += records;
  policyTraffic.chars += args.length + 2;
  return engine.call(OP.LOOP_POLICY_STEP, '[' + args + ']');
}
function newPolicyEngine() {
  return new native.PolicyEngine();
}

// Where strict checking began in a snapshot's history (the core's `strict_iterations_from`,
// the rule a strict engine applies to each new record): the smallest index from which on
// each iteration number is greater than the one before it, 0 when the whole history is.
// A loop that turned `strictIterations` on after records that do not increase writes it as
// `strictIterationsFrom`, so its snapshot restores; no other snapshot has the key.
function strictIterationsFrom(history) {
  for (let i = history.length - 1; i >= 1; i--) {
    if (!(history[i].iteration_number > history[i - 1].iteration_number)) return i + 1;
  }
  return 0;
}

export class EarlyStopping {
  #config = null;
  #state = null; // this engine's slots from COUNTERS on while another engine is active; null = fresh
  #history = [];
  #source = null;
  #reason = null;
  #details = null;
  // Writes from outside (the seed's public fields; see RECORD_OF above):
  #outside = false; // something may have changed from outside: catch up before the next use
  #stale = false; // a change other than appended records: fold the whole history again
  #folded = 0; // how many history entries the state holds (kept while #outside)
  #given = null; // WeakSet of objects put into the history through its view
  #foreign = null; // Map: such an object -> { values, record } as the core checked it
  #adopted = null; // an array assigned to iterationHistory: its entries as last folded
  #configGiven = null; // an object assigned to config: { object, keys, values }
  #historyView = null;
  #configView = null;
  #configTarget = null; // what the config view shows (replaced by configure, as in the seed)
  #views = null; // WeakMap: this engine's record -> its view
  // Opt-in stop policy (docs/loop-policies.md): its normalized JSON, and the native object
  // holding it parsed, the config it was opened with and its state, which holds the first
  // #policyFolded history entries (opened again when the config changed or the history was
  // rewritten: #policyConfig is then null).
  #policy = null;
  #policyEngine = null;
  #policyConfig = null;
  #policyFolded = 0;
  #policyArtifact = null; // the calibration artifact's digest a snapshot named, kept in toJSON

  /**
   * @param {object} [config] partial config merged over the seed's defaults
   * @param {{detectDiminishingReturns(): object}} [iterationAnalytics]
   * @param {object} [policy] a stop policy (its JSON form): decisions are made by its condition tree
   */
  constructor(config = undefined, iterationAnalytics = null, policy = undefined) {
    if (config === RESTORE) return;
    this.#config = configFor(config);
    this.#source = sourceOf(iterationAnalytics);
    this.#setPolicy(policy);
  }

  // `restored`: a snapshot's policy key (fromJSON); the core decides which one holds.
  #setPolicy(policy, restored = undefined) {
    const given = policy === undefined || policy === null ? 'null' : enc(policy, AS_POLICY);
    if (restored === undefined || restored === null) {
      if (given === 'null') return;
      this.#policy = checkedPolicy(given);
      return;
    }
    const chosen = unwrap(native.exec(OP.LOOP_POLICY_CHECK, args2(given, enc(restored))));
    this.#policy = chosen === null ? null : enc(chosen);
  }

  /** The stop policy decisions are made under (normalized), or null. */
  get policy() {
    if (this.#config === null) throw freedError();
    return this.#policy === null ? null : JSON.parse(this.#policy);
  }

  // Puts this engine's state into the scratch buffer (saving the previous engine's).
  #load() {
    if (fast.owner === this) return scratchView(); // (a wasm call may have grown the memory since)
    const config = this.#config;
    if (config === null) throw freedError();
    if (fast.evict !== null) fast.evict(); // saves the previous engine's state with it
    decidedBy = null; // the outputs (the plateau's improvements above all) were another engine's
    const state = this.#state;
    let s = scratchView();
    const need = slotsFor(state === null ? 0 : (state.length - (WINDOW - COUNTERS)) / OBSERVATION_SLOTS);
    if (s.length < need) s = growScratch(need);
    s.set(config.slots, STATE);
    if (state === null) {
      s.fill(0, COUNTERS, WINDOW);
    } else {
      for (let i = 0; i < state.length; i++) s[COUNTERS + i] = state[i];
    }
    fast.owner = this;
    fast.evict = () => this.#save();
    return s;
  }

  // Saves the counters and the window (the config slots are the config entry's) into a
  // plain array: a Float64Array per save costs several times more (its backing store is
  // allocated off the heap), and every fresh engine is saved once when the next one loads.
  #save() {
    const s = scratchView();
    const length = WINDOW - COUNTERS + OBSERVATION_SLOTS * s[WINDOW_LEN];
    const state = new Array(length);
    for (let i = 0; i < length; i++) state[i] = s[COUNTERS + i];
    this.#state = state;
  }

  #unload() {
    this.#policyConfig = null; // opened again and folded from the history at the next decision
    this.#policyFolded = 0;
    if (fast.owner === this) {
      fast.owner = null;
      fast.evict = null;
    }
    if (decidedBy === this) decidedBy = null;
    this.#state = null;
  }

  recordIterationResult(iteration, result) {
    if (this.#outside) this.#catchUp();
    // Unpacks the seed's object into numbers. Only a conversion: a key, type or status
    // this does not recognise sends the call to the JSON path, where the core decides.
    let fastPath = typeof iteration === 'number' && typeof result === 'object' && result !== null && !Array.isArray(result);
    let quality, confidence, statusName, delta, timestamp, tokens, cost, time, iterationNumber;
    let status = -1;
    let flags = 0;
    let read = false; // whether the result's values were read into the variables above
    let others = null; // the values of keys the fast path does not take
    if (fastPath) {
      // for-in rather than Object.keys (no array per call, and V8 reads each value by its
      // slot): the same keys when nothing enumerable is inherited, which it checks first.
      // Otherwise nothing is read here: the JSON path reads the result, once.
      fastPath = inheritsNothing(result);
      read = fastPath;
      for (const key in (fastPath ? result : NO_KEYS)) {
        const value = result[key];
        if (value === undefined) continue; // an undefined key is an absent key
        switch (key) {
          case 'quality_score': quality = value; break;
          case 'confidence': confidence = value; break;
          case 'verification_status': statusName = value; status = STATUSES.indexOf(value); break;
          case 'quality_delta': delta = value; break;
          case 'timestamp': timestamp = value; break;
          case 'tokens_used': tokens = value; flags |= FLAG_TOKENS; break;
          case 'token_cost_usd': cost = value; flags |= FLAG_COST; break;
          case 'execution_time_ms': time = value; flags |= FLAG_TIME; break;
          case 'iteration_number': iterationNumber = value; flags |= FLAG_ITERATION_NUMBER; break;
          default:
            fastPath = false;
            (others === null ? (others = new Map()) : others).set(key, value);
        }
      }
      fastPath = fastPath && typeof quality === 'number' && typeof confidence === 'number' && status >= 0 && typeof delta === 'number' &&
        (flags === 0 || ((!(flags & FLAG_TOKENS) || typeof tokens === 'number') && (!(flags & FLAG_COST) || typeof cost === 'number') &&
          (!(flags & FLAG_TIME) || typeof time === 'number') && (!(flags & FLAG_ITERATION_NUMBER) || typeof iterationNumber === 'number'))) &&
        (timestamp === undefined || (typeof timestamp === 'string' && timestamp.length <= MAX_FAST_TIMESTAMP));
    }
    if (fastPath) {
      let s = this.#load();
      if (s.length < slotsFor(s[WINDOW_LEN])) s = growScratch(slotsFor(s[WINDOW_LEN]));
      s[IN_ITERATION] = iteration;
      s[IN_QUALITY] = quality;
      s[IN_CONFIDENCE] = confidence;
      s[IN_STATUS] = status;
      s[IN_DELTA] = delta;
      s[IN_SOURCE] = this.#source === null ? SOURCE_NONE : SOURCE_ATTACHED;
      if (timestamp !== undefined) {
        // The string crosses as bytes (the slots' own, through a byte view); the core
        // checks it. One that does not fit bytes is sent as too long: the JSON path decides.
        const bytes = timestampBytes(s);
        const length = timestamp.length;
        let units = 0;
        for (let i = 0; i < length; i++) {
          const unit = timestamp.charCodeAt(i);
          units |= unit;
          bytes[i] = unit;
        }
        s[IN_TIMESTAMP_LEN] = units < 256 ? length : MAX_FAST_TIMESTAMP + 1;
        flags |= FLAG_TIMESTAMP;
      }
      s[IN_FLAGS] = flags;
      if (flags !== 0) {
        s[IN_TOKENS] = tokens;
        s[IN_COST] = cost;
        s[IN_TIME] = time;
        s[IN_ITERATION_NUMBER] = iterationNumber;
      }
      const folded = native.fastFold() === FOLD_OK;
      // The fold also decided (for the shouldStop() that usually follows).
      decidedBy = folded ? this : null;
      if (folded) {
        // Without a timestamp, the clock is read now and formatted only when the history
        // is read (the same string; formatting costs more than the rest of the call).
        const record = recordOf(iteration, quality, confidence, STATUSES[status], delta,
          timestamp === undefined ? Date.now() : timestamp, flags, tokens, cost, time);
        if (this.#outside) this.#append(record);
        else this.#history.push(record);
        return;
      }
    } else if (this.#config === null) {
      throw freedError();
    }
    // The JSON path: throws the core's typed error, or answers the stored record.
    // With the engine's usage totals, so a record that would overflow one is refused too,
    // and (strictIterations) the last record, which a re-record must repeat. A result read
    // above goes over as the values read (each host value is read once).
    const given = read ? readBack(Object.keys(result), others, [quality, confidence, statusName, delta, timestamp, tokens, cost, time, iterationNumber]) : result;
    const encoded = enc(given, AS_RESULT, result);
    const totals = this.#totals();
    const strict = this.#config.value.strictIterations === true;
    const history = this.#history;
    const last = strict && history.length > 0 ? enc(copyRecord(history[history.length - 1])) : 'null';
    const record = unwrap(native.exec(OP.ES_RECORD_CHECK, '[' + enc(iteration, AS_ITERATION) + ',' + encoded + ',' + totals + ',' + strict + ',' + last + ']'));
    if (record.duplicate === true) return record; // an accepted re-record, as the core answers it: nothing changes
    if (record.timestamp === '') record.timestamp = Date.now(); // none given: the clock's, as above
    this.#fold(record);
    if (this.#outside) this.#append(record);
    else this.#history.push(record);
  }

  // A recorded record joins a history that was written to from outside.
  #append(record) {
    const adopted = this.#adopted;
    // The caller holds an assigned array: it gets the record's view, never the record.
    const entry = adopted === null ? record : this.#viewOf(record);
    this.#history.push(entry);
    if (adopted !== null) adopted.push(entry);
    this.#folded++;
  }

  // Folds a record the core already accepted (the JSON path, fromJSON, configure).
  #fold(record) {
    if (!this.#tryFold(record)) throw new Error(MESSAGES.INTERNAL_RECORD_REFUSED);
  }

  // Folds a valid record; false (nothing changed) when a usage total would overflow.
  #tryFold(record) {
    let s = this.#load();
    if (s.length < slotsFor(s[WINDOW_LEN])) s = growScratch(slotsFor(s[WINDOW_LEN]));
    s[IN_ITERATION] = record.iteration_number;
    s[IN_QUALITY] = record.quality_score;
    s[IN_CONFIDENCE] = record.confidence;
    s[IN_STATUS] = STATUSES.indexOf(record.verification_status);
    s[IN_DELTA] = record.quality_delta;
    let flags = 0;
    if (record.tokens_used !== undefined) { flags |= FLAG_TOKENS; s[IN_TOKENS] = record.tokens_used; }
    if (record.token_cost_usd !== undefined) { flags |= FLAG_COST; s[IN_COST] = record.token_cost_usd; }
    if (record.execution_time_ms !== undefined) { flags |= FLAG_TIME; s[IN_TIME] = record.execution_time_ms; }
    s[IN_FLAGS] = flags | FLAG_ACCEPTED; // accepted already: its iteration order was judged when recorded
    s[IN_SOURCE] = this.#source === null ? SOURCE_NONE : SOURCE_ATTACHED;
    const folded = native.fastFold() === FOLD_OK;
    decidedBy = folded ? this : null;
    return folded;
  }

  // Usage totals so far, in the wire format (the core refuses a record that overflows one).
  #totals() {
    const t = this.#load();
    let text = '[';
    for (let i = 0; i < BUDGETS.length; i++) text += (i > 0 ? ',' : '') + scalar(t[USAGE_SUMS + i]);
    return text + ']';
  }

  // Brings the state up to date with what changed from outside: the object assigned to
  // config, the array assigned to iterationHistory, the objects put into the history.
  // Appended entries are checked and folded in; anything else folds the whole history
  // again. A bad entry throws the core's typed error and is checked again at the next use.
  #catchUp() {
    if (this.#config === null) throw freedError();
    const given = this.#configGiven;
    if (given !== null && !sameEntries(given.object, given)) {
      this.#config = configFor(given.object);
      Object.assign(given, entriesOf(given.object));
      this.#refreshConfigView();
      this.#stale = true;
    }
    const history = this.#history;
    const adopted = this.#adopted;
    if (adopted !== null && !this.#stale) {
      if (history.length < this.#folded) this.#stale = true;
      else for (let i = 0; i < this.#folded; i++) if (history[i] !== adopted[i]) { this.#stale = true; break; }
    }
    if (!this.#stale && this.#foreign !== null) {
      for (const [object, seen] of this.#foreign) {
        if (!sameValues(object, seen.values)) {
          this.#stale = true;
          break;
        }
      }
    }
    if (this.#stale) {
      this.#unload();
      this.#folded = 0;
      this.#foreign = null;
    } else if (history.length < this.#folded) {
      this.#stale = true; // cannot happen through the view (a shorter length marks it stale)
      return this.#catchUp();
    }
    for (let i = this.#folded; i < history.length; i++) {
      this.#foldEntry(history[i], i);
      this.#folded = i + 1;
    }
    if (adopted !== null) this.#adopted = history.slice();
    this.#stale = false;
    this.#outside = given !== null || adopted !== null || (this.#foreign !== null && this.#foreign.size !== 0);
  }

  // The record behind a history entry: this engine's own (possibly through its view), or
  // null for an entry given from outside.
  #ownRecord(entry) {
    const viewed = RECORD_OF.get(entry);
    if (viewed !== undefined) return viewed.engine === this ? viewed.record : null;
    if (this.#adopted !== null || entry === null || typeof entry !== 'object') return null;
    return this.#given !== null && this.#given.has(entry) ? null : entry;
  }

  // Folds history entry `i`: a record of this engine's as it is (its fields were checked
  // when they were written), anything else checked by the core first.
  #foldEntry(entry, i) {
    let record = this.#ownRecord(entry);
    if (record === null) {
      const plain = readRecord(entry);
      unwrap(native.exec(OP.ES_HISTORY_CHECK, '[[' + enc(plain) + '],' + i + ',' + this.#totals() + ']'));
      // No timestamp given: the clock's when first seen (in copies; the object is the caller's).
      record = storedRecord(plain, this.#foreign?.get(entry)?.record.timestamp ?? Date.now());
      (this.#foreign ??= new Map()).set(entry, { values: recordValues(plain), record });
    }
    if (!this.#tryFold(record)) {
      unwrap(native.exec(OP.ES_HISTORY_CHECK, '[[' + enc(copyRecord(record)) + '],' + i + ',' + this.#totals() + ']'));
      throw new Error(MESSAGES.INTERNAL_RECORD_REFUSED);
    }
  }

  // The record to read for history entry `i` (after #catchUp): its fields as checked.
  #recordAt(i) {
    const entry = this.#history[i];
    return this.#ownRecord(entry) ?? this.#foreign.get(entry).record;
  }

  // A view of one of this engine's records: writes are checked at the write and fold the
  // history again; a record no longer in the history is the caller's alone, as in the seed.
  #viewOf(record) {
    const views = (this.#views ??= new WeakMap());
    let view = views.get(record);
    if (view === undefined) {
      if (typeof record.timestamp === 'number') record.timestamp = new Date(record.timestamp).toISOString();
      const engine = this;
      const write = (key, value, present) => {
        if (typeof key === 'symbol') return present ? Reflect.set(record, key, value) : Reflect.deleteProperty(record, key);
        const at = engine.#history.indexOf(engine.#adopted === null ? record : view);
        if (at >= 0) {
          const candidate = { ...record };
          if (present) candidate[key] = value;
          else delete candidate[key];
          unwrap(native.exec(OP.ES_HISTORY_CHECK, '[[' + enc(candidate) + '],' + at + ',null]'));
          engine.#changed(true);
        }
        if (present) record[key] = value;
        else delete record[key];
        return true;
      };
      view = new Proxy(record, {
        set: (target, key, value) => write(key, value, true),
        deleteProperty: (target, key) => write(key, undefined, false),
        defineProperty: (target, key, descriptor) => write(key, 'value' in descriptor ? descriptor.value : descriptor.get ?? descriptor.set, true),
      });
      views.set(record, view);
      RECORD_OF.set(view, { engine: this, record });
    }
    return view;
  }

  // Notes a write from outside; `whole`: not an append, so fold everything again.
  #changed(whole) {
    if (!this.#outside) {
      this.#folded = this.#history.length; // up to now, the state held every entry
      this.#outside = true;
    }
    if (whole) this.#stale = true;
  }

  // The seed's `iterationHistory`, live: the history array behind a Proxy that sees writes.
  #historyProxy() {
    const target = this.#history;
    if (this.#adopted !== null) return target; // the caller's own array, as in the seed
    let view = this.#historyView;
    if (view !== null && HISTORY_OF.get(view) === target) return view;
    const engine = this;
    const live = () => engine.#history === target; // after reset() it is the caller's alone
    const shown = (value) => (value !== null && typeof value === 'object' && live() ? engine.#shown(value) : value);
    const written = (key, value) => {
      if (!live()) return value;
      const index = arrayIndex(key);
      const folded = engine.#outside ? engine.#folded : target.length; // entries the state holds
      if (key === 'length') engine.#changed(!(value >= folded)); // shorter: not an append
      else if (index >= 0) engine.#changed(index < folded);
      else return value;
      // This engine's own record (through its view) goes back in as itself.
      const viewed = RECORD_OF.get(value);
      if (viewed !== undefined && viewed.engine === engine) return viewed.record;
      if (value !== null && typeof value === 'object') (engine.#given ??= new WeakSet()).add(value);
      return value;
    };
    view = new Proxy(target, {
      get: (t, key) => shown(t[key]),
      getOwnPropertyDescriptor: (t, key) => {
        const descriptor = Reflect.getOwnPropertyDescriptor(t, key);
        if (descriptor !== undefined && 'value' in descriptor) descriptor.value = shown(descriptor.value);
        return descriptor;
      },
      set: (t, key, value) => Reflect.set(t, key, written(key, value)),
      defineProperty: (t, key, descriptor) =>
        Reflect.defineProperty(t, key, 'value' in descriptor ? { ...descriptor, value: written(key, descriptor.value) } : (written(key, undefined), descriptor)),
      deleteProperty: (t, key) => {
        if (live() && arrayIndex(key) >= 0) engine.#changed(true);
        return Reflect.deleteProperty(t, key);
      },
    });
    HISTORY_OF.set(view, target);
    this.#historyView = view;
    return view;
  }

  // How a history entry is shown: this engine's records through their views.
  #shown(entry) {
    if (RECORD_OF.has(entry) || (this.#given !== null && this.#given.has(entry))) return entry;
    return this.#viewOf(entry);
  }

  // The seed's `config`, live: its writes are checked by the core at the write.
  #configProxy() {
    if (this.#configView !== null) return this.#configView;
    const target = { ...this.#config.value };
    const engine = this;
    const write = (key, value, apply) => {
      if (engine.#configTarget !== target || typeof key === 'symbol') return apply();
      engine.#writeConfig(key, value);
      return true;
    };
    this.#configTarget = target;
    this.#configView = new Proxy(target, {
      set: (t, key, value) => write(key, value, () => Reflect.set(t, key, value)),
      deleteProperty: (t, key) => write(key, undefined, () => Reflect.deleteProperty(t, key)),
      defineProperty: (t, key, descriptor) =>
        write(key, 'value' in descriptor ? descriptor.value : descriptor.get ?? descriptor.set, () => Reflect.defineProperty(t, key, descriptor)),
    });
    return this.#configView;
  }

  // One config key written from outside: checked over the current config by the core
  // (undefined or a deleted key is refused: the seed would read undefined).
  #writeConfig(key, value) {
    if (this.#config === null) throw freedError();
    const answer = unwrap(native.exec(OP.ES_CONFIG_CHECK, '[' + enc(this.#config.value) + ',' + encEntry(key, value) + ',"config"]'));
    this.#config = configFor(answer[0]);
    const given = this.#configGiven;
    if (given !== null) {
      // The object assigned to config is the config, as in the seed: it takes the write too.
      given.object[key] = value;
      Object.assign(given, entriesOf(given.object));
    }
    this.#refreshConfigView();
    if (decidedBy === this) decidedBy = null;
    this.#changed(true);
  }

  // The config view shows the config as it now is.
  #refreshConfigView() {
    const target = this.#configTarget;
    if (target === null) return;
    for (const key of Object.keys(target)) delete target[key];
    Object.assign(target, this.#config.value);
  }

  // The iteration argument is accepted and ignored, as in the seed.
  shouldStop(iteration) {
    return this.#decide();
  }

  #decide() {
    if (this.#outside) this.#catchUp();
    if (this.#policy !== null) return this.#decidePolicy();
    // The seed's shouldStop calls its check methods, which a subclass may override.
    const overridden = (this.checkHighConfidence === SEED_CHECKS.highConfidence ? 0 : CHECK_HIGH_CONFIDENCE) |
      (this.checkQualityPlateau === SEED_CHECKS.qualityPlateau ? 0 : CHECK_QUALITY_PLATEAU) |
      (this.checkDiminishingReturns === SEED_CHECKS.diminishingReturns ? 0 : CHECK_DIMINISHING_RETURNS);
    if (overridden !== 0) return this.#decideOverridden(overridden);
    let s = this.#load();
    let code;
    if (decidedBy === this) {
      code = s[OUT_CODE]; // decided by the last fold, over the same state
    } else {
      s[IN_SOURCE] = this.#source === null ? SOURCE_NONE : SOURCE_ATTACHED;
      code = native.fastDecide();
      decidedBy = this;
    }
    let report = null;
    if (code === CODE_NEED_SOURCE) {
      // The core decided that the source must be asked, exactly when the seed asks it
      // (and it is asked again on every call, so this decision is not kept).
      const answer = this.#source.detectDiminishingReturns();
      report = readReport(answer);
      code = this.#decideWith(report, 0, answer);
      decidedBy = null;
    }
    return this.#decision(code, report);
  }

  // A decision under the stop policy: the native object holds the policy, the config and the
  // state, so only the records not folded yet cross (O(the new records)); the source is
  // asked when the core says so.
  #decidePolicy() {
    if (this.#config === null) throw freedError();
    const engine = this.#policyConfig === this.#config ? this.#policyEngine : this.#openPolicy();
    const history = this.#history;
    let records = '[';
    for (let i = this.#policyFolded; i < history.length; i++) {
      records += (i > this.#policyFolded ? ',' : '') + policyRecord(this.#outside ? this.#recordAt(i) : history[i]);
    }
    const source = this.#source !== null;
    let answer;
    try {
      answer = unwrap(stepPolicy(engine, records + '],null,' + source, history.length - this.#policyFolded));
    } catch (error) {
      if (error.code !== HOST_CODES.INSTANCE_RESET) throw error;
      // Its wasm instance trapped since: made again from the history (kept here).
      this.#policyEngine = null;
      this.#policyConfig = null;
      return this.#decidePolicy();
    }
    this.#policyFolded = history.length;
    if (answer.need_source === true) {
      const raw = this.#source.detectDiminishingReturns();
      const report = enc(readReport(raw), AS_REPORT, raw);
      answer = unwrap(stepPolicy(engine, '[],' + report + ',true', 0));
    }
    if (answer.stop) {
      this.#reason = answer.reason;
      this.#details = answer.details;
    }
    return answer;
  }

  // The native policy object, filled (again) with the policy and the current config: a
  // fresh state, nothing folded.
  #openPolicy() {
    let engine = this.#policyEngine;
    if (engine === null) engine = this.#policyEngine = newPolicyEngine();
    this.#policyConfig = null;
    unwrap(engine.call(OP.LOOP_POLICY_OPEN, '[' + this.#policy + ',' + enc(this.#config.value) + ']'));
    policyTraffic.opens++;
    this.#policyConfig = this.#config;
    this.#policyFolded = 0;
    return engine;
  }

  // The seed's order with overridden check methods called in their places: the core hands
  // each overridden check back (CODE_DELEGATE) with where to resume; an answer that stops is
  // the decision, as the seed returns it.
  #decideOverridden(overridden) {
    let resume = 0;
    for (;;) {
      if (this.#outside) this.#catchUp(); // an override may have written to the history
      const delegate = overridden + DELEGATE_RESUME * resume;
      let s = this.#load();
      s[IN_SOURCE] = this.#source === null ? SOURCE_NONE : SOURCE_ATTACHED;
      s[IN_DELEGATE] = delegate;
      decidedBy = null;
      let code = native.fastDecide();
      s = scratchView();
      s[IN_DELEGATE] = DELEGATE_NONE; // never left set while other code runs (a fold decides too)
      if (code === CODE_DELEGATE) {
        const check = s[OUT_DELEGATE_CHECK];
        resume = s[OUT_DELEGATE_RESUME];
        const history = this.iterationHistory;
        const answer = check === DELEGATED_HIGH_CONFIDENCE ? this.checkHighConfidence(history[history.length - 1])
          : check === DELEGATED_QUALITY_PLATEAU ? this.checkQualityPlateau() : this.checkDiminishingReturns();
        if (answer.stop) {
          this.#reason = answer.reason;
          this.#details = answer.details;
          return answer;
        }
        continue;
      }
      let report = null;
      if (code === CODE_NEED_SOURCE) {
        const answer = this.#source.detectDiminishingReturns();
        report = readReport(answer);
        code = this.#decideWith(report, delegate, answer);
      }
      scratchView()[IN_DELEGATE] = delegate; // a reason text is made again over the same slots
      try {
        return this.#decision(code, report);
      } finally {
        scratchView()[IN_DELEGATE] = DELEGATE_NONE;
        decidedBy = null;
      }
    }
  }

  // The decision object for the code the core answered (its numbers in the output slots);
  // `answer`: a check method's answer (no extras, and the stopping reason is not set).
  #decision(code, report, answer = false) {
    const s = scratchView();
    const confidence = s[OUT_CONFIDENCE];
    const config = this.#config;
    let stop = true;
    let reason;
    let details; // the stop's, from the detail slots (detailsOf, generated from the core's keys)
    switch (code) {
      case CODE_NO_ITERATIONS:
        stop = false;
        reason = REASON_NO_ITERATIONS;
        break;
      case CODE_CONTINUE:
        stop = false;
        reason = REASON_CONTINUE;
        break;
      case CODE_WARM_UP:
      case CODE_GO_ON:
        stop = false;
        reason = fetchReason();
        break;
      case CODE_HIGH_CONFIDENCE:
        details = detailsOf(code, s, report);
        reason = cached(config.highConfidence, details.confidence, fetchReason);
        break;
      case CODE_PLATEAU:
        details = detailsOf(code, s, report);
        reason = config.plateau === null ? (config.plateau = fetchReason()) : config.plateau;
        break;
      case CODE_DIMINISHING:
        // The source's own values, as the seed copies them (validated by the core).
        details = detailsOf(code, s, report);
        reason = cached(drReasons, report.reason, () => native.fastDiminishingReason(report.reason));
        break;
      case CODE_MAX_ITERATIONS:
        details = detailsOf(code, s, report);
        reason = cached(config.maxIterations, details.iterations, fetchReason);
        break;
      case CODE_BUDGET:
      case CODE_REGRESSION:
      case CODE_NO_IMPROVEMENT:
        details = detailsOf(code, s, report);
        reason = fetchReason();
        break;
      default:
        throw new Error(MESSAGES.INTERNAL_DECISION_CODE(code));
    }
    const trigger = CODE_TRIGGER[code];
    if (answer) return answerOf(stop, reason, confidence, trigger, details);
    const decision = decisionOf(stop, reason, confidence, trigger, details, s);
    if (stop) {
      this.#reason = reason;
      this.#details = details;
    }
    return decision;
  }

  // Decides again with the source's report (validated by the core; anything the fast
  // path does not take goes to the JSON path for the typed error); `delegate`: IN_DELEGATE.
  // `report` is what readReport() made of the source's `answer`.
  #decideWith(report, delegate, answer) {
    let fastPath = typeof report === 'object' && report !== null && !Array.isArray(report);
    const { detected, reason, iteration: given } = fastPath ? report : {};
    const kind = given === undefined ? REPORT_ITERATION_ABSENT : given === null ? REPORT_ITERATION_NULL : REPORT_ITERATION_NUMBER;
    fastPath = fastPath && typeof detected === 'boolean' && typeof reason === 'string' && (kind !== REPORT_ITERATION_NUMBER || typeof given === 'number');
    if (fastPath) {
      // The source may have used another engine meanwhile.
      const s = this.#load();
      s[IN_SOURCE] = SOURCE_REPORT;
      s[IN_DETECTED] = detected ? 1 : 0;
      s[IN_REPORT_ITERATION_KIND] = kind;
      s[IN_REPORT_ITERATION] = kind === REPORT_ITERATION_NUMBER ? given : 0;
      s[IN_DELEGATE] = delegate;
      decidedBy = null;
      const code = native.fastDecide();
      scratchView()[IN_DELEGATE] = DELEGATE_NONE;
      if (code !== CODE_INVALID_REPORT) return code;
    }
    unwrap(native.exec(OP.ES_REPORT_CHECK, args1(enc(report, AS_REPORT, answer))));
    throw new Error(MESSAGES.INTERNAL_REPORT_ACCEPTED);
  }

  getStoppingReason() {
    if (this.#config === null) throw freedError();
    return this.#reason;
  }

  getStoppingDetails() {
    if (this.#config === null) throw freedError();
    return this.#details === null || this.#details === undefined ? null : copyData(this.#details);
  }

  configure(options) {
    const config = this.#config;
    if (config === null) throw freedError();
    if (this.#outside) this.#catchUp(); // a bad record from outside throws before any change
    const key = enc(this.#config.value);
    const answer = unwrap(native.exec(OP.ES_CONFIG_CHECK, '[' + key + ',' + encConfig(options, AS_OPTIONS) + ',"options"]'));
    this.#config = configFor(answer[0]);
    // A new config object, as the seed's configure makes: an object assigned to `config`
    // before, and the old view of it, are the caller's alone from now on.
    this.#configGiven = null;
    this.#configView = null;
    this.#configTarget = null;
    // The window's length, the quality bar and the regression tolerance shape the
    // state, so it is folded again from the history, as the Rust engine does.
    this.#changed(true);
    this.#catchUp();
  }

  getConfig() {
    if (this.#config === null) throw freedError();
    if (this.#configGiven !== null) this.#catchUp();
    return { ...this.#config.value };
  }

  getIterationHistory() {
    if (this.#config === null) throw freedError();
    if (this.#outside) this.#catchUp();
    const history = this.#history;
    const copies = new Array(history.length);
    for (let i = 0; i < history.length; i++) copies[i] = copyRecord(this.#outside ? this.#recordAt(i) : history[i]);
    return copies;
  }

  reset() {
    if (this.#config === null) throw freedError();
    this.#unload();
    this.#history = []; // a new array, as in the seed: the old one is the caller's alone
    this.#given = null;
    this.#foreign = null;
    this.#adopted = null;
    this.#stale = false;
    this.#outside = this.#configGiven !== null;
    this.#reason = null;
    this.#details = null;
  }

  generateSummary() {
    if (this.#config === null) throw freedError();
    if (this.#outside) this.#catchUp();
    const history = this.#history;
    if (history.length === 0) return { ...EMPTY_SUMMARY };
    const last = this.#outside ? this.#recordAt(history.length - 1) : history[history.length - 1];
    // As the seed: through shouldStop, which a subclass may override.
    const decision = this.shouldStop(last.iteration_number);
    return summaryOf(this.#history.length, decision, last, { ...this.#config.value });
  }

  /** The portable snapshot (the same JSON document in Python and wasm). */
  toJSON() {
    const history = this.getIterationHistory();
    const details = this.#details === null || this.#details === undefined ? null : copyData(this.#details);
    const config = { ...this.#config.value };
    const from = config.strictIterations === true ? strictIterationsFrom(history) : 0;
    const snapshot = snapshotOf(config, history, this.#reason, details, from);
    // Only when set, so a snapshot without them stays the seed's document.
    if (this.#policy !== null) snapshot.policy = JSON.parse(this.#policy);
    if (this.#policyArtifact !== null) snapshot.policyArtifact = this.#policyArtifact;
    return snapshot;
  }

  /**
   * Restores a snapshot (object or JSON text); the analytics source is not part of it. The
   * stop policy is: the snapshot's, if it holds one (a `policy` given too must be the same),
   * else `policy`.
   */
  static fromJSON(snapshot, iterationAnalytics = null, policy = undefined) {
    const checked = unwrap(native.exec(OP.ES_SNAPSHOT_CHECK, args1(enc(snapshot, AS_SNAPSHOT))));
    const restored = new EarlyStopping(RESTORE);
    restored.#config = configFor(checked.config);
    restored.#source = sourceOf(iterationAnalytics);
    restored.#setPolicy(policy, checked.policy);
    restored.#policyArtifact = checked.policyArtifact ?? null;
    for (const record of checked.history) restored.#fold(record);
    restored.#history = checked.history;
    restored.#reason = checked.stoppingReason;
    restored.#details = checked.stoppingDetails;
    return restored;
  }

  /** Releases the stop policy's native object, if any; the object cannot be used afterwards. */
  free() {
    this.#unload();
    if (this.#policyEngine !== null) release(this.#policyEngine);
    this.#policyEngine = null;
    this.#config = null;
    this.#history = [];
    this.#given = null;
    this.#foreign = null;
    this.#adopted = null;
    this.#configGiven = null;
    this.#outside = false;
    this.#stale = false;
  }

  // ----------------------------------------------------------------------
  // The seed's check methods: public, and a subclass may override them (shouldStop then
  // calls the override in its place in the order, as the seed's shouldStop does).

  /** The seed's `checkHighConfidence(iteration)` on a history record, answered whole. */
  checkHighConfidence(iteration) {
    if (this.#config === null) throw freedError();
    // This engine's records were checked when written; anything else is checked by the core.
    const viewed = RECORD_OF.get(iteration);
    let record;
    if (viewed !== undefined && viewed.engine === this) record = viewed.record;
    else {
      record = readRecord(iteration);
      unwrap(native.exec(OP.ES_HISTORY_CHECK, '[[' + enc(record) + '],"iteration",null]'));
    }
    const s = this.#load();
    s[IN_QUALITY] = record.quality_score;
    s[IN_CONFIDENCE] = record.confidence;
    s[IN_STATUS] = STATUSES.indexOf(record.verification_status);
    return this.#answer(HIGH_CONFIDENCE_ANSWER, null);
  }

  /** The seed's `checkQualityPlateau()` over the history, answered whole. */
  checkQualityPlateau() {
    if (this.#config === null) throw freedError();
    if (this.#outside) this.#catchUp();
    this.#load();
    return this.#answer(PLATEAU_ANSWER, null);
  }

  /** The seed's `checkDiminishingReturns()`: asks the source, answered whole. */
  checkDiminishingReturns() {
    if (this.#config === null) throw freedError();
    const source = this.#source;
    if (source === null) {
      this.#load()[IN_SOURCE] = SOURCE_NONE;
      return this.#answer(DIMINISHING_RETURNS_ANSWER, null);
    }
    const answer = source.detectDiminishingReturns();
    return this.#answer(DIMINISHING_RETURNS_ANSWER, readReport(answer), answer);
  }

  // Asks the core for a check method's answer over the state and the input slots.
  #answer(mode, report, answer) {
    decidedBy = null;
    try {
      const code = report === null ? ((scratchView()[IN_DELEGATE] = mode), native.fastDecide()) : this.#decideWith(report, mode, answer);
      scratchView()[IN_DELEGATE] = mode; // a reason text is made again over the same slots
      return this.#decision(code, report, true);
    } finally {
      scratchView()[IN_DELEGATE] = DELEGATE_NONE;
      decidedBy = null;
    }
  }

  // ----------------------------------------------------------------------
  // The seed's public fields. Writes do what they do in the seed, checked by the core.

  /** The config, live: `stopper.config.x = v` is checked by the core and takes effect. */
  get config() {
    if (this.#config === null) throw freedError();
    if (this.#configGiven !== null) this.#catchUp();
    return this.#configProxy();
  }

  /** A new config, merged over the defaults as the constructor's (later writes to it count too). */
  set config(value) {
    if (this.#config === null) throw freedError();
    this.#config = configFor(value);
    this.#configGiven = value !== null && typeof value === 'object' ? { object: value, ...entriesOf(value) } : null;
    this.#configView = null;
    this.#configTarget = null;
    if (decidedBy === this) decidedBy = null;
    this.#changed(true);
  }

  /** The history array, live: entries pushed or changed are checked when next used. */
  get iterationHistory() {
    if (this.#config === null) throw freedError();
    return this.#historyProxy();
  }

  /** Another history: the array itself becomes the engine's, as in the seed. */
  set iterationHistory(value) {
    if (this.#config === null) throw freedError();
    const array = HISTORY_OF.get(value) ?? value;
    if (array === this.#history) return;
    if (!Array.isArray(array)) unwrap(native.exec(OP.ES_HISTORY_CHECK, '[' + enc(value) + ',0,null]'));
    this.#history = array === value ? value : [...value]; // another engine's view: its entries
    this.#adopted = [];
    this.#given = null;
    this.#foreign = null;
    this.#historyView = null;
    this.#changed(true);
    this.#folded = 0;
  }

  get iterationAnalytics() {
    return this.#source;
  }

  /** Another diminishing-returns source (null: none); checked as the constructor's. */
  set iterationAnalytics(value) {
    if (this.#config === null) throw freedError();
    this.#source = sourceOf(value);
    if (decidedBy === this) decidedBy = null;
  }

  get stoppingReason() {
    if (this.#config === null) throw freedError();
    return this.#reason;
  }

  set stoppingReason(value) {
    if (this.#config === null) throw freedError();
    this.#reason = value;
  }

  get stoppingDetails() {
    if (this.#config === null) throw freedError();
    return this.#details;
  }

  set stoppingDetails(value) {
    if (this.#config === null) throw freedError();
    this.#details = value;
  }
}

// What shouldStop compares against to see that a check method is overridden.
const SEED_CHECKS = {
  highConfidence: EarlyStopping.prototype.checkHighConfidence,
  qualityPlateau: EarlyStopping.prototype.checkQualityPlateau,
  diminishingReturns: EarlyStopping.prototype.checkDiminishingReturns,
};


// For the tests: how many entries and characters the config, policy and reason caches hold.
export function cacheSizes() {
  const maps = [drReasons];
  for (const entry of configs.values()) maps.push(entry.highConfidence, entry.maxIterations);
  let entries = configs.size;
  let chars = 0;
  for (const map of maps) {
    entries += map.size;
    for (const [key, text] of map) chars += text.length + (typeof key === 'string' ? key.length : 0);
  }
  for (const entry of configs.values()) chars += entry.key.length + (entry.plateau === null ? 0 : entry.plateau.length);
  entries += policies.size;
  for (const [given, text] of policies) chars += given.length + text.length;
  return { entries, chars };
}
