// EarlyStopping, the seed's loop engine, on the numeric fast path.

import {
  BUDGETS, CHECK_DIMINISHING_RETURNS, CHECK_HIGH_CONFIDENCE, CHECK_QUALITY_PLATEAU, CODE_DELEGATE, CODE_NEED_SOURCE,
  COUNTERS, DELEGATED_HIGH_CONFIDENCE, DELEGATED_QUALITY_PLATEAU, DELEGATE_NONE, DELEGATE_RESUME,
  DIMINISHING_RETURNS_ANSWER, EMPTY_SUMMARY, FLAG_ACCEPTED, FLAG_COST, FLAG_ITERATION_NUMBER, FLAG_TIME,
  FLAG_TIMESTAMP, FLAG_TOKENS, FOLD_OK, HIGH_CONFIDENCE_ANSWER, IN_CONFIDENCE, IN_COST, IN_DELEGATE, IN_DELTA,
  IN_FLAGS, IN_ITERATION, IN_ITERATION_NUMBER, IN_QUALITY, IN_SOURCE, IN_STATUS, IN_TIME,
  IN_TOKENS, MAX_FAST_TIMESTAMP, MESSAGES, OBSERVATION_SLOTS, OUT_CODE, OUT_DELEGATE_CHECK, OUT_DELEGATE_RESUME,
  PLATEAU_ANSWER, SOURCE_ATTACHED, SOURCE_NONE, STATE, STATUSES, USAGE_SUMS, WINDOW, WINDOW_LEN, recordOf,
  snapshotOf, summaryOf,
} from './contract.generated.mjs';
import {
  AS_OPTIONS, AS_POLICY, AS_RESULT, RESTORE, copyData, enc, encConfig, encEntry, freedError,
  listOf, scalar, unwrap,
} from './codec.js';
import { fast, growScratch, scratchView } from './scratch.js';
import { configFor, decideWithReport, slotDecision, slotsFor, sourceOf, writeTimestamp } from './loop-slots.js';
import {
  NO_KEYS, copyRecord, inheritsNothing, readBack, readRecord, readReport, recordValues, sameValues, storedRecord,
  strictIterationsFrom,
} from './loop-records.js';
import { HISTORY_OF, HistoryViews, LiveConfig, RECORD_OF } from './loop-live.js';
import { PolicyPath, ShadowPath, checkedPolicy } from './loop-policy.js';
import {
  ES_CONFIG_CHECK, ES_HISTORY_CHECK, ES_RECORD_CHECK, ES_SNAPSHOT_CHECK, LOOP_POLICY_CHECK,
} from './calls.generated.mjs';

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

// For EarlyStopping.fromCalibration (replay.js): puts a candidate as snapshots keep it in
// shadow beside an engine (set by the class's static block).
let withShadow = null;
export const shadowed = (engine, candidate) => withShadow(engine, candidate);
// A candidate as the core takes it (replay.js makes a LoopCalibration its artifact).
export const candidates = { of: (candidate) => candidate };

// After the scratch slots were replaced (a trapped wasm instance): no decision is in them.
export function forgetDecision() {
  decidedBy = null;
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
  #foreign = null; // Map: an object put into the history from outside -> { values, record } as the core checked it
  #adopted = null; // an array assigned to iterationHistory: its entries as last folded
  #live = new LiveConfig(); // the live config's collaborator (loop-live.js)
  #views = null; // the history views' collaborator (loop-live.js), made when first needed
  #policy = null; // the opt-in stop policy (docs/loop-policies.md): its PolicyPath (loop-policy.js)
  #policyArtifact = null; // the calibration artifact's digest a snapshot named, kept in toJSON
  #shadow = null; // the shadow candidate beside the engine's decisions (docs/lifecycle.md): its ShadowPath

  /**
   * @param {object} [config] partial config merged over the seed's defaults
   * @param {{detectDiminishingReturns(): object}} [iterationAnalytics]
   * @param {object} [policy] a stop policy (its JSON form): decisions are made by its condition
   *   tree; or `{ shadow, policy }`: a candidate deciding beside the engine without stopping it
   */
  constructor(config = undefined, iterationAnalytics = null, policy = undefined) {
    if (config === RESTORE) return;
    let shadow = null;
    if (policy !== null && typeof policy === 'object' && !Array.isArray(policy) && Object.hasOwn(policy, 'shadow')) {
      // `{ shadow, policy }`: any other key is checked (and refused) as the policy's.
      const { shadow: candidate, policy: given, ...rest } = policy;
      shadow = candidates.of(candidate ?? null);
      policy = Object.keys(rest).length > 0 ? rest : given;
    }
    this.#config = configFor(config);
    this.#source = sourceOf(iterationAnalytics);
    this.#setPolicy(policy);
    if (shadow !== null) this.#openShadow(shadow, false);
  }

  // Runs `shadow` (as given; `restored`: as a snapshot keeps it) beside this engine's
  // decisions; the engine's policy (or its config's checks) must hold a hard cap.
  #openShadow(shadow, restored) {
    const policy = this.#policy === null ? 'null' : this.#policy.text;
    this.#shadow = ShadowPath.open(shadow, restored, policy, this.#config.value);
  }

  static {
    // For EarlyStopping.fromCalibration (replay.js): the calibrated policy in shadow.
    withShadow = (engine, candidate) => {
      engine.#openShadow(candidate, true);
      return engine;
    };
  }

  /**
   * Why the shadow candidate runs in shadow rather than enforced, when the engine put it
   * there itself (`fromCalibration` with an artifact not promoted, demoted or expired); null
   * otherwise.
   */
  get shadowReason() {
    if (this.#config === null) throw freedError();
    return this.#shadow === null ? null : (this.#shadow.candidate.reason ?? null);
  }

  // `restored`: a snapshot's policy key (fromJSON); the core decides which one holds.
  #setPolicy(policy, restored = undefined) {
    const given = policy === undefined || policy === null ? 'null' : enc(policy, AS_POLICY);
    if (restored === undefined || restored === null) {
      if (given === 'null') return;
      this.#policy = new PolicyPath(checkedPolicy(given));
      return;
    }
    const chosen = unwrap(LOOP_POLICY_CHECK(given, restored));
    this.#policy = chosen === null ? null : new PolicyPath(enc(chosen));
  }

  /** The stop policy decisions are made under (normalized), or null. */
  get policy() {
    if (this.#config === null) throw freedError();
    return this.#policy === null ? null : JSON.parse(this.#policy.text);
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
    if (this.#policy !== null) this.#policy.forget(); // opened again and folded from the history at the next decision
    if (this.#shadow !== null) this.#shadow.forget();
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
        writeTimestamp(s, timestamp); // as bytes, which the core checks (loop-slots.js)
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
    const record = ES_RECORD_CHECK(iteration, encoded, totals, strict, last);
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
    const entry = adopted === null ? record : this.#historyViews().viewOf(record);
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
    const assigned = this.#live.changed();
    if (assigned !== null) {
      this.#config = configFor(assigned);
      this.#live.seen();
      this.#live.refresh(this.#config.value);
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
    this.#outside = this.#live.given !== null || adopted !== null || (this.#foreign !== null && this.#foreign.size !== 0);
  }

  // The record behind a history entry: this engine's own (possibly through its view), or
  // null for an entry given from outside.
  #ownRecord(entry) {
    const viewed = RECORD_OF.get(entry);
    if (viewed !== undefined) return viewed.engine === this ? viewed.record : null;
    if (this.#adopted !== null || entry === null || typeof entry !== 'object') return null;
    return this.#views !== null && this.#views.gave(entry) ? null : entry;
  }

  // Folds history entry `i`: a record of this engine's as it is (its fields were checked
  // when they were written), anything else checked by the core first.
  #foldEntry(entry, i) {
    let record = this.#ownRecord(entry);
    if (record === null) {
      const plain = readRecord(entry);
      ES_HISTORY_CHECK(listOf(enc(plain)), i, this.#totals());
      // No timestamp given: the clock's when first seen (in copies; the object is the caller's).
      record = storedRecord(plain, this.#foreign?.get(entry)?.record.timestamp ?? Date.now());
      (this.#foreign ??= new Map()).set(entry, { values: recordValues(plain), record });
    }
    if (!this.#tryFold(record)) {
      ES_HISTORY_CHECK(listOf(enc(copyRecord(record))), i, this.#totals());
      throw new Error(MESSAGES.INTERNAL_RECORD_REFUSED);
    }
  }

  // The record to read for history entry `i` (after #catchUp): its fields as checked.
  #recordAt(i) {
    const entry = this.#history[i];
    return this.#ownRecord(entry) ?? this.#foreign.get(entry).record;
  }

  // The history views (loop-live.js): made at the first read of a public field.
  #historyViews() {
    return (this.#views ??= new HistoryViews(this, {
      history: () => this.#history,
      adopted: () => this.#adopted,
      folded: () => (this.#outside ? this.#folded : this.#history.length),
      changed: (whole) => this.#changed(whole),
    }));
  }

  // Notes a write from outside; `whole`: not an append, so fold everything again.
  #changed(whole) {
    if (!this.#outside) {
      this.#folded = this.#history.length; // up to now, the state held every entry
      this.#outside = true;
    }
    if (whole) this.#stale = true;
  }

  // One config key written from outside: checked over the current config by the core
  // (undefined or a deleted key is refused: the seed would read undefined).
  #writeConfig(key, value) {
    if (this.#config === null) throw freedError();
    const answer = ES_CONFIG_CHECK(enc(this.#config.value), encEntry(key, value), 'config');
    this.#config = configFor(answer[0]);
    this.#live.written(key, value, this.#config.value);
    if (decidedBy === this) decidedBy = null;
    this.#changed(true);
  }

  // The iteration argument is accepted and ignored, as in the seed.
  shouldStop(iteration) {
    const decision = this.#decide();
    if (this.#shadow !== null) {
      // The candidate decides over the same history; it never changes `stop`.
      const wouldStop = this.#shadow.observe(this.#history, this.#outside ? (i) => this.#recordAt(i) : null);
      // A copy: the decision may be a subclass check method's own answer.
      if (wouldStop !== null) return { ...decision, would_stop: { ...wouldStop } };
    }
    return decision;
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

  // A decision under the stop policy (the policy path, loop-policy.js).
  #decidePolicy() {
    if (this.#config === null) throw freedError();
    const answer = this.#policy.decide(this.#config, this.#history, this.#outside ? (i) => this.#recordAt(i) : null, this.#source);
    if (answer.stop) {
      this.#reason = answer.reason;
      this.#details = answer.details;
    }
    return answer;
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
    const decision = slotDecision(code, report, answer, this.#config);
    if (!answer && decision.stop) {
      this.#reason = decision.reason;
      this.#details = decision.details;
    }
    return decision;
  }

  // Decides again with the source's report (loop-slots.js); `delegate`: IN_DELEGATE.
  #decideWith(report, delegate, answer) {
    decidedBy = null;
    return decideWithReport(report, delegate, answer, () => this.#load());
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
    const answer = ES_CONFIG_CHECK(key, encConfig(options, AS_OPTIONS), 'options');
    this.#config = configFor(answer[0]);
    // A new config object, as the seed's configure makes: an object assigned to `config`
    // before, and the old view of it, are the caller's alone from now on.
    this.#live.assign(null);
    // The window's length, the quality bar and the regression tolerance shape the
    // state, so it is folded again from the history, as the Rust engine does.
    this.#changed(true);
    this.#catchUp();
  }

  getConfig() {
    if (this.#config === null) throw freedError();
    if (this.#live.given !== null) this.#catchUp();
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
    if (this.#views !== null) this.#views.given = null;
    this.#foreign = null;
    this.#adopted = null;
    this.#stale = false;
    this.#outside = this.#live.given !== null;
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
    if (this.#policy !== null) snapshot.policy = JSON.parse(this.#policy.text);
    if (this.#policyArtifact !== null) snapshot.policyArtifact = this.#policyArtifact;
    if (this.#shadow !== null) snapshot.shadow = copyData(this.#shadow.candidate);
    return snapshot;
  }

  /**
   * Restores a snapshot (object or JSON text); the analytics source is not part of it. The
   * stop policy is: the snapshot's, if it holds one (a `policy` given too must be the same),
   * else `policy`.
   */
  static fromJSON(snapshot, iterationAnalytics = null, policy = undefined) {
    const checked = ES_SNAPSHOT_CHECK(snapshot);
    const restored = new EarlyStopping(RESTORE);
    restored.#config = configFor(checked.config);
    restored.#source = sourceOf(iterationAnalytics);
    restored.#setPolicy(policy, checked.policy);
    restored.#policyArtifact = checked.policyArtifact ?? null;
    for (const record of checked.history) restored.#fold(record);
    restored.#history = checked.history;
    restored.#reason = checked.stoppingReason;
    restored.#details = checked.stoppingDetails;
    if (checked.shadow !== undefined && checked.shadow !== null) {
      try {
        restored.#openShadow(checked.shadow, true);
      } catch (error) {
        restored.free();
        throw error;
      }
    }
    return restored;
  }

  /** Releases the stop policy's native object, if any; the object cannot be used afterwards. */
  free() {
    this.#unload();
    if (this.#policy !== null) this.#policy.free();
    if (this.#shadow !== null) this.#shadow.free();
    this.#shadow = null;
    this.#config = null;
    this.#history = [];
    this.#views = null;
    this.#foreign = null;
    this.#adopted = null;
    this.#live.assign(null);
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
      ES_HISTORY_CHECK(listOf(enc(record)), 'iteration', 'null');
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
    if (this.#live.given !== null) this.#catchUp();
    return this.#live.viewOf(this.#config.value, (key, value) => this.#writeConfig(key, value));
  }

  /** A new config, merged over the defaults as the constructor's (later writes to it count too). */
  set config(value) {
    if (this.#config === null) throw freedError();
    this.#config = configFor(value);
    this.#live.assign(value);
    if (decidedBy === this) decidedBy = null;
    this.#changed(true);
  }

  /** The history array, live: entries pushed or changed are checked when next used. */
  get iterationHistory() {
    if (this.#config === null) throw freedError();
    return this.#historyViews().history();
  }

  /** Another history: the array itself becomes the engine's, as in the seed. */
  set iterationHistory(value) {
    if (this.#config === null) throw freedError();
    const array = HISTORY_OF.get(value) ?? value;
    if (array === this.#history) return;
    if (!Array.isArray(array)) ES_HISTORY_CHECK(enc(value), 0, 'null');
    this.#history = array === value ? value : [...value]; // another engine's view: its entries
    this.#adopted = [];
    if (this.#views !== null) this.#views.forget();
    this.#foreign = null;
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
