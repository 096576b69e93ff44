// BehaviorDetector and InterventionSystem: aiwg's behavior-detector.mjs and
// intervention-system.mjs as drop-ins (docs/behavior.md).
//
// Both are upstream's plain objects: their public fields (`thresholds`; `interventionLog`,
// `isPaused`, `pauseReason`, `onIntervention`, `onPause`, `onAbort`) live here, as upstream
// keeps them, and code written against upstream reads and writes them. The core holds no
// state for them: each method hands the core what it reads (stateless ops BD_* and IS_*,
// bindings/js/interface/src/behavior_ops.rs), which checks it there and words every answer,
// detection, level and text. This layer reads the clock (where upstream does; or the `clock`
// option), keeps the pause state and the log, and calls the callbacks, in upstream's order.
// In the wasm package these ops are the replay module's: loaded on first use in Node, by
// `init({ replay: true })` in a browser.

import { DEFAULT_THRESHOLDS, LEVELS_BY_NAME, LOG_LIMIT } from './contract.generated.mjs';
import { AS_THRESHOLDS, copyData, enc } from './codec.js';
import {
  BD_DETECT, BD_NEW, BD_UPDATE, IS_IMPORT, IS_INJECT, IS_INTERVENE, IS_LEVEL, IS_LOG_START, IS_NEW, IS_RESUME,
  IS_STRATEGY, IS_SUMMARY, IS_WARNING,
} from './calls.generated.mjs';

const noop = () => {};
const isoNow = () => new Date().toISOString();

/** upstream's `THRESHOLDS`: a plain object, read when a detector is made (as upstream's is). */
export const THRESHOLDS = copyData(DEFAULT_THRESHOLDS);

// `{ ...base, ...partial }`, a key set to undefined counting as absent (the core read the
// partial so: it never sees such a key).
function merged(base, partial) {
  const out = { ...base };
  if (partial !== null && partial !== undefined) {
    for (const key of Object.keys(partial)) if (partial[key] !== undefined) out[key] = partial[key];
  }
  return out;
}

export class BehaviorDetector {
  /** `new BehaviorDetector({thresholds})`: groups given replace `THRESHOLDS`' whole groups. */
  constructor(options = {}) {
    BD_NEW(enc(THRESHOLDS, { ...AS_THRESHOLDS, root: 'THRESHOLDS', name: 'THRESHOLDS' }), options);
    this.thresholds = merged(THRESHOLDS, options === null || options === undefined ? undefined : options.thresholds);
  }

  #detect(history, detector) {
    return BD_DETECT(this.thresholds, history, detector);
  }

  /** Every detector's detection, in upstream's order (none for an empty history). */
  detect(history) {
    return this.#detect(history, 0);
  }

  detectStuck(history) {
    return this.#detect(history, 1);
  }

  detectOscillation(history) {
    return this.#detect(history, 2);
  }

  detectDeviation(history) {
    return this.#detect(history, 3);
  }

  detectResourceBurn(history) {
    return this.#detect(history, 4);
  }

  detectRegression(history) {
    return this.#detect(history, 5);
  }

  /** Groups given replace this detector's whole groups (nothing changes on an error). */
  updateThresholds(thresholds) {
    BD_UPDATE(this.thresholds, thresholds);
    this.thresholds = merged(this.thresholds, thresholds);
  }

  getThresholds() {
    return { ...this.thresholds };
  }
}

/** upstream's `INTERVENTION_LEVELS` (frozen: the levels are the core's). */
export const INTERVENTION_LEVELS = LEVELS_BY_NAME;

export class InterventionSystem {
  #clock;

  /**
   * `new InterventionSystem({onIntervention, onPause, onAbort})`, upstream's callbacks, and
   * `clock`: a function answering the time as RFC 3339 text (default: now).
   */
  constructor(options = {}) {
    IS_NEW(options);
    const given = options ?? {};
    this.onIntervention = given.onIntervention || noop;
    this.onPause = given.onPause || noop;
    this.onAbort = given.onAbort || noop;
    this.#clock = given.clock || isoNow;
    this.interventionLog = [];
    this.isPaused = false;
    this.pauseReason = null;
  }

  /** Turns a detection into an intervention at its level; logs it and calls the callbacks. */
  intervene(detection) {
    const answer = IS_INTERVENE(detection, this.#clock());
    // upstream's object, holding the caller's own detection.
    const intervention = { level: answer.level, reason: answer.reason, detection, timestamp: answer.timestamp };
    for (const key of Object.keys(answer)) if (!(key in intervention)) intervention[key] = answer[key];
    if (answer.level === LEVELS_BY_NAME.PAUSE) {
      this.isPaused = true;
      this.pauseReason = answer.reason;
      this.onPause(intervention);
    } else if (answer.level === LEVELS_BY_NAME.ABORT) {
      this.onAbort(intervention);
    }
    this.interventionLog.push(intervention);
    if (this.interventionLog.length > LOG_LIMIT) this.interventionLog = this.interventionLog.slice(-LOG_LIMIT);
    this.onIntervention(intervention);
    return intervention;
  }

  determineLevel(detection) {
    return IS_LEVEL(detection);
  }

  buildWarning(detection) {
    return IS_WARNING(detection);
  }

  buildStrategyOverride(detection) {
    return IS_STRATEGY(detection);
  }

  injectWarning(prompt, warning) {
    return IS_INJECT(prompt, warning);
  }

  /** Ends a pause (logging why); false when not paused. */
  resume(approvalReason) {
    const now = this.isPaused ? this.#clock() : undefined;
    const answer = IS_RESUME(approvalReason, now, this.isPaused, this.pauseReason);
    if (answer === false) return false;
    this.interventionLog.push(answer);
    this.isPaused = false;
    this.pauseReason = null;
    return true;
  }

  getPauseStatus() {
    return { isPaused: this.isPaused, reason: this.pauseReason };
  }

  /** The last `limit` entries (everything for 0, null or none, as upstream). */
  getLog(limit = null) {
    return this.interventionLog.slice(IS_LOG_START(this.interventionLog.length, limit));
  }

  getSummary() {
    return IS_SUMMARY(this.interventionLog, this.isPaused, this.pauseReason);
  }

  clearLog() {
    this.interventionLog = [];
  }

  reset() {
    this.interventionLog = [];
    this.isPaused = false;
    this.pauseReason = null;
  }

  exportState() {
    return { interventionLog: this.interventionLog, isPaused: this.isPaused, pauseReason: this.pauseReason };
  }

  /** Takes over what `state` gives, as upstream does (the log array itself). */
  importState(state) {
    const [takeLog, isPaused, pauseReason] = IS_IMPORT(state);
    if (takeLog) this.interventionLog = state.interventionLog;
    if (isPaused !== null) this.isPaused = isPaused;
    if (pauseReason !== null) this.pauseReason = pauseReason;
  }
}
