// Replay and presets: pyramid replay and the risk-bounded policy, loop replay, loop presets.
// Stateless: one native call per batch (in the wasm package, the replay module's ops).

import { calibrateOptionsOf } from './contract.generated.mjs';
import { RESTORE, copyData } from './codec.js';
import { EarlyStopping, candidates, shadowed } from './loop.js';
import {
  ARTIFACT_DRIFT, ARTIFACT_PROMOTE, JUNIT_READ, LOOP_CALIBRATE, LOOP_DRIFT, LOOP_PROMOTE, LOOP_CALIBRATION_PLAN, LOOP_FROM_CALIBRATION, LOOP_PRESET,
  LOOP_REPLAY, PYRAMID_CALIBRATE, PYRAMID_DECIDE, PYRAMID_MODEL_LEARN, PYRAMID_MODEL_LOAD, PYRAMID_MODEL_MERGE,
  PYRAMID_MODEL_STATS, PYRAMID_REPLAY, PYRAMID_SHADOW, PYRAMID_UPDATE, RECEIPTS_APPEND, RECEIPTS_VERIFY,
} from './calls.generated.mjs';

// ------------------------------------------------------------------------
// Pyramid replay and the risk-bounded policy (batch, stateless: ops PYRAMID_*,
// bindings/js/interface/src/pyramid_replay_ops.rs). Begin.

/**
 * The outcome model that merges (document version 2: a window of per-build outcomes keyed by
 * the caller's build id and sequence number; docs/test-exit.md "Models that merge"). Immutable:
 * `learn` and `merge` answer a new model. Accepted wherever a `model` is, as documents are.
 */
export class OutcomeModel {
  #doc;

  constructor(model = undefined, options = undefined) {
    if (model === RESTORE) return;
    this.#doc = PYRAMID_MODEL_LOAD(modelOf(model), options);
  }

  static #of(doc) {
    const model = new OutcomeModel(RESTORE);
    model.#doc = doc;
    return model;
  }

  /** The union of both models' builds (commutative, associative, idempotent). */
  merge(other) {
    return OutcomeModel.#of(PYRAMID_MODEL_MERGE(this.#doc, modelOf(other)));
  }

  /** Learns one build: `ran` the layers that ran, in run order; `build` its key `{id, seq}`. */
  learn(ran, build) {
    return OutcomeModel.#of(PYRAMID_MODEL_LEARN(this.#doc, ran, build));
  }

  /** The version 1 statistics the policy decides from (`config`: a partial policy config). */
  statistics(config = undefined) {
    return PYRAMID_MODEL_STATS(this.#doc, config);
  }

  /** The most builds kept. */
  get window() {
    return this.#doc.window;
  }

  /** How many builds it holds. */
  get size() {
    return this.#doc.builds.length;
  }

  /** Why it has a base (converted from a version 1 model), or null. */
  get note() {
    return this.#doc.note ?? null;
  }

  /** The version 2 document (a copy). */
  toJSON() {
    return copyData(this.#doc);
  }

  static fromJSON(doc) {
    return new OutcomeModel(doc);
  }
}

// A model argument as the core reads it: an OutcomeModel's document, anything else as given.
export const modelOf = (model) => (model instanceof OutcomeModel ? model.toJSON() : model);

// Options whose `model` is an OutcomeModel (or `now` a Date), with its document (its
// milliseconds) instead: a shallow copy.
export function withModel(options) {
  if (options === null || typeof options !== 'object') return options;
  const model = options.model instanceof OutcomeModel;
  const date = options.now instanceof Date; // a live run's `now`: as its milliseconds
  if (!model && !date) return options;
  const out = { ...options };
  if (model) out.model = options.model.toJSON();
  if (date) out.now = options.now.getTime();
  return out;
}

export function replayPyramids(runs, options) {
  return PYRAMID_REPLAY(runs, withModel(options));
}

export function shadowPyramids(runs, options) {
  return PYRAMID_SHADOW(runs, withModel(options));
}

export function calibratePyramidPolicy(runs, risk, delta, options) {
  const base = options === undefined || options === null ? {} : withModel(options);
  const all = typeof base === 'object' && !Array.isArray(base) ? Object.assign({}, base, calibrateOptionsOf(risk, delta)) : base;
  return PYRAMID_CALIBRATE(runs, all, Date.now());
}

export function pyramidPolicyDecide(model, layers, outcomes, options) {
  return PYRAMID_DECIDE(modelOf(model), layers, outcomes, options);
}

export function pyramidPolicyUpdate(model, ran, options) {
  return PYRAMID_UPDATE(modelOf(model), ran, options);
}

// ------------------------------------------------------------------------
// Shadow-mode receipts (docs/test-exit.md "Shadow mode"). Ops RECEIPTS_*: artifact_ops in
// bindings/js/interface/src/artifact_ops.rs, SHA-256 over RFC 8785 canonical JSON.

/**
 * Recomputes a receipt log's hash chain.
 * @param {string} text the JSONL log
 * @returns {{valid: boolean, receipts: number, head: string|null, brokenAt: object|null, labels: object}}
 */
export function verifyReceipts(text) {
  return RECEIPTS_VERIFY(text);
}

/**
 * A JUnit / xUnit report's XML text read into a layer result by the command's reader (its
 * rules, limits and errors): `{passRate, coverage, flakyRatio, durationMs, total, passed,
 * failed, flaky, skipped}`; `options.coverageXml` is a Cobertura file's text (its line-rate
 * is `coverage`, else 1). In the wasm package it runs in the replay module.
 */
export function readJunit(text, options = undefined) {
  return JUNIT_READ(text, options);
}

/**
 * The JSONL lines that append `receipts` (a shadow-mode result's `shadow.receipts`) to the
 * log `log` (its text; '' or null for a new log), each chained to the one before.
 */
export function appendReceipts(log, receipts) {
  return RECEIPTS_APPEND(log, receipts);
}

// A `now` argument: the host clock when absent; a Date as its milliseconds.
const nowOf = (now) => (now === undefined || now === null ? Date.now() : now instanceof Date ? now.getTime() : now);

/**
 * Whether a calibration artifact still holds for recent runs: `{status: 'fresh' | 'expired' |
 * 'drifted', fresh, reasons, ...}` (`now`: ms, a Date or an RFC 3339 string; the clock when absent).
 */
export function checkPyramidDrift(artifact, runs, now) {
  return ARTIFACT_DRIFT(artifact, runs, nowOf(now));
}

/**
 * Promotes a calibration artifact from shadow to enforced on audit runs disjoint from its
 * calibration corpus: `{promoted, reason, audit, artifact}` (the artifact records the promotion).
 */
export function promotePyramidPolicy(artifact, auditRuns, now) {
  return ARTIFACT_PROMOTE(artifact, auditRuns, nowOf(now));
}

// ------------------------------------------------------------------------
// Loop replay and loop presets (docs/replay.md). Ops LOOP_REPLAY and LOOP_PRESET:
// `loop_replay` in bindings/js/interface/src/loop_replay.rs. One native call per batch of runs.

/**
 * Replays a loop policy over recorded runs.
 * @param {object[]|string} runs run objects, or JSONL text (one run per line)
 * @param {string|object} [policy] a preset name or `{preset, config, returns, analytics}`
 */
export function replayLoops(runs, policy = undefined) {
  // One encoder for every argument of every call: the same runs get the same verdict
  // whatever else the batch holds (the core reads an array of runs run by run; the size
  // limit applies to each run).
  return LOOP_REPLAY(runs, policy);
}

/** A named preset's config (`'seed'`, the default, or `'recommended'`), with overrides merged. */
export function loopPreset(name, overrides = undefined) {
  return LOOP_PRESET(name, overrides);
}

/**
 * A loop calibration (docs/replay.md "Calibrated policies"): `artifact` is the portable
 * calibration artifact (kind `loop`), `policy` the chosen policy (`replayLoops` and
 * `EarlyStopping.fromCalibration` take it), `certified`, `status`, `message`, `frontier`
 * (every candidate's figures), `warnings`. `JSON.stringify` writes the artifact.
 */
export class LoopCalibration {
  constructor(artifact) {
    this.artifact = artifact;
    this.policy = artifact.policy;
    this.certified = artifact.body.certified;
    this.status = artifact.body.status;
    this.message = artifact.body.message;
    this.frontier = artifact.body.frontier;
    this.warnings = artifact.body.warnings;
  }

  toJSON() {
    return this.artifact;
  }
}

/**
 * Calibrates a loop policy on recorded runs: `calibrateLoopPolicy(runs, {risk, delta, ...})`
 * or `calibrateLoopPolicy(runs, risk, delta, options)` (the call style of
 * `calibratePyramidPolicy`). Defaults: risk 0.025, delta 0.1.
 */
export function calibrateLoopPolicy(runs, risk = undefined, delta = undefined, options = undefined) {
  let all;
  if (typeof risk === 'number' || typeof delta === 'number') {
    const base = options === undefined || options === null ? {} : options;
    all = typeof base === 'object' && !Array.isArray(base) ? Object.assign({}, base, calibrateOptionsOf(risk, delta)) : base;
    if (all.risk === undefined) delete all.risk;
    if (all.delta === undefined) delete all.delta;
  } else {
    all = risk === undefined ? null : risk;
  }
  const artifact = LOOP_CALIBRATE(runs, all, Date.now());
  return new LoopCalibration(artifact);
}

/**
 * How many tasks a loop calibration needs to certify `risk` (default 0.025) at `delta`
 * (default 0.1), with 0 to 3 premature stops: `{risk, delta, minimumToCertify, tasksNeeded:
 * [{prematureStops, tasks}]}` (91 tasks with none at the defaults). `calibrationPlan(risk,
 * delta)` or `calibrationPlan({risk, delta})`.
 */
export function calibrationPlan(risk = undefined, delta = undefined) {
  let options = risk;
  if (risk === undefined || typeof risk !== 'object' || delta !== undefined) {
    options = calibrateOptionsOf(risk, delta);
    if (options.risk === undefined) delete options.risk;
    if (options.delta === undefined) delete options.delta;
  }
  return LOOP_CALIBRATION_PLAN(options);
}

// An uncertified artifact's notice is printed once per process (console.warn, as the
// package's other notices), and so is the reason an artifact not promoted, or expired, is
// enforced by its calibration's most conservative policy.
let uncertifiedNoticeShown = false;
let shadowReasonShown = false;

/**
 * The artifact a `URL` names: a `file:` URL is read (Node; `new URL('./a.json',
 * import.meta.url)` or `url.pathToFileURL(path)`), as UTF-8 text. A string stays JSON text.
 */
function artifactOf(artifact) {
  if (artifact instanceof LoopCalibration) return artifact.artifact;
  if (typeof URL === 'function' && artifact instanceof URL) {
    // No file system (a browser) or another protocol: the URL's text reaches the core, which
    // refuses it as an artifact (invalid_artifact naming artifact).
    if (artifact.protocol !== 'file:' || host === null) return String(artifact);
    return new TextDecoder('utf-8', { fatal: true }).decode(host.fs.readFileSync(artifact));
  }
  return artifact;
}

/**
 * Promotes a loop calibration artifact (a `LoopCalibration`, its artifact, its JSON text or a
 * `file:` `URL`) on audit runs that share no task with its calibration: `{promoted, reason,
 * audit, artifact}` (the artifact records the promotion; `now`: ms, a Date or an RFC 3339
 * string; the clock when absent).
 */
export function promoteLoopPolicy(artifact, auditRuns, now) {
  return LOOP_PROMOTE(artifactOf(artifact), auditRuns, nowOf(now));
}

/**
 * Whether a loop calibration artifact still holds for recent runs: `{status: 'fresh' |
 * 'expired' | 'drifted', fresh, reasons, artifact, ...}`; `artifact` is demoted unless fresh.
 */
export function checkLoopDrift(artifact, runs, now) {
  return LOOP_DRIFT(artifactOf(artifact), runs, nowOf(now));
}

candidates.of = (candidate) => (candidate instanceof LoopCalibration ? candidate.artifact : candidate);

Object.defineProperty(EarlyStopping, 'fromCalibration', {
  value: function fromCalibration(artifact, iterationAnalytics = null) {
    const doc = artifactOf(artifact);
    const engine = LOOP_FROM_CALIBRATION(doc, Date.now());
    if (engine.notice !== null && engine.notice !== undefined && !uncertifiedNoticeShown) {
      uncertifiedNoticeShown = true;
      console.warn(engine.notice);
    }
    // Not promoted or expired: the core answers the most conservative policy, and why.
    if (engine.shadowReason !== null && engine.shadowReason !== undefined && !shadowReasonShown) {
      shadowReasonShown = true;
      console.warn(`earlyexit: ${engine.shadowReason}`);
    }
    const stopper = new EarlyStopping(engine.config, iterationAnalytics, engine.policy);
    // The calibrated policy runs in shadow beside the conservative one (`shadowReason`).
    if (engine.shadow === null || engine.shadow === undefined) return stopper;
    try {
      return shadowed(stopper, engine.shadow);
    } catch (error) {
      stopper.free();
      throw error;
    }
  },
  writable: true,
  configurable: true,
});

Object.defineProperty(EarlyStopping, 'fromPreset', {
  value: function fromPreset(name, overrides = undefined, iterationAnalytics = null) {
    return new EarlyStopping(loopPreset(name, overrides), iterationAnalytics);
  },
  writable: true,
  configurable: true,
});

