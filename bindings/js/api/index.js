// The public JS API of earlyexit, shared by the `earlyexit` (napi-rs) and
// `earlyexit-wasm` (wasm-bindgen) packages, which copy it in at build time
// (scripts/build-node.sh, scripts/build-wasm.sh, via bindings/js/build.mjs).
//
// It is a drop-in for the seed's `early-stopping.mjs` and for ADR-033's engine:
// same classes, methods, returned objects and strings. Every rule, every string
// and every error comes from the Rust core; this layer only
//   - converts arguments to one string in the wire format of bindings/js/interface/src/wire.rs
//     (JSON plus a tag for NaN, the infinities, functions and `undefined`),
//   - turns answers back into plain objects, and `!` answers into real
//     TypeError / RangeError objects with `.code` and `.field`,
//   - asks an outside diminishing-returns source when the core answers that it must
//     (the core decides whether to ask, exactly when the seed asks), and
//   - runs the async test-pyramid loop over the core's step API (PyramidRun).
//
// The layer is written as fragments, one per concern (this directory): this entry (ready()
// and the API object), codec.js, scratch.js, loop.js (with its collaborators loop-slots.js,
// loop-records.js, loop-live.js and loop-policy.js), analytics.js, behavior.js, pyramid.js,
// replay.js, refine.js (Loop), store.js (Store, the run store; napi only), instance.js, policy.js, and contract.generated.mjs (op codes, slots, codes, the core's names and
// constant answers, generated from the Rust tables by `make generate`, the generator
// room dev/). Each fragment is an ES module in form: `import { ... } from './x.js'`
// lines, then its code, `export` on what the others use. bindings/js/build.mjs flattens them,
// dependencies first, into the one function scope of the packages' api.cjs / api.mjs:
//
//   function createApi(native, hostFiles) { 'use strict'; const host = hostFiles ?? null; ...; return { api, ready, testing }; }
//
// so V8 sees what it saw when this was one file (constants in one scope, no module
// indirection on the hot path). Two names are free in every fragment: `native`, the module
// both bindings export (`new native.NativeEngine()` with `.call(op, args)`,
// `native.exec(op, args)`, the fast paths' functions), and `host`, `{fs, path, byteLength}`
// where there are files (Node: `node:fs`, `node:path`, `Buffer.byteLength`; absent in
// browsers, only IterationAnalytics's saves and load use it). A fragment never assigns to a
// name it imports (state that others change is behind a function: forgetDecision,
// setFastRuns); the build checks that, that every import is exported, that no fragment uses a
// name it neither declares nor imports (but `native`, `host` and the host's `WebAssembly`),
// and that the result parses.

import { CONTRACT, LIMITS, LOOP_PRESETS, MESSAGES } from './contract.generated.mjs';
import { addDispose, encode, encodeCounted, isEarlyExitError } from './codec.js';
import { growScratch } from './scratch.js';
import { EarlyStopping } from './loop.js';
import { cacheSizes, policyCounts } from './loop-policy.js';
import { IterationAnalytics } from './analytics.js';
import { BehaviorDetector, INTERVENTION_LEVELS, InterventionSystem, THRESHOLDS } from './behavior.js';
import {
  AGGRESSIVE_EXIT_CONFIG, CONSERVATIVE_EXIT_CONFIG, DEFAULT_EXIT_CONFIG, CoherenceEarlyExit, EarlyExitController,
  PyramidRun, SpeculativeExecutor, calculateQualitySignal, countQualityPartitions, setFastRuns,
} from './pyramid.js';
import { guardInstance } from './instance.js';
import { Loop } from './refine.js';
import { POLICY_BUILDERS } from './policy.js';
import {
  LoopCalibration, OutcomeModel, appendReceipts, calibrateLoopPolicy, calibratePyramidPolicy, calibrationPlan, loopPreset,
  pyramidPolicyDecide, pyramidPolicyUpdate, readJunit, replayLoops, replayPyramids, shadowPyramids,
  checkPyramidDrift, promotePyramidPolicy, checkLoopDrift, promoteLoopPolicy,
} from './replay.js';
import { HELLO, PRESETS } from './calls.generated.mjs';
import { Store, hasStore, verifyReceiptsOf } from './store.js';

for (const cls of [Loop, EarlyStopping, IterationAnalytics, CoherenceEarlyExit, SpeculativeExecutor, EarlyExitController, PyramidRun]) {
  addDispose(cls);
}

export function ready() {
  if (typeof native.resetInstance === 'function') guardInstance();
  // The native module must have been built from the tables this layer was generated from.
  const hello = HELLO();
  if (hello.contract !== CONTRACT) {
    throw new Error(MESSAGES.CONTRACT_MISMATCH(hello.contract, CONTRACT));
  }
  growScratch(0);
  const [defaults, aggressive, conservative] = PRESETS();
  Object.assign(DEFAULT_EXIT_CONFIG, defaults);
  Object.assign(AGGRESSIVE_EXIT_CONFIG, aggressive);
  Object.assign(CONSERVATIVE_EXIT_CONFIG, conservative);
}

export const api = {
  Loop,
  EarlyStopping,
  IterationAnalytics,
  calculateQualitySignal,
  countQualityPartitions,
  isEarlyExitError,
  CoherenceEarlyExit,
  SpeculativeExecutor,
  EarlyExitController,
  PyramidRun,
  DEFAULT_EXIT_CONFIG,
  AGGRESSIVE_EXIT_CONFIG,
  CONSERVATIVE_EXIT_CONFIG,
  LIMITS,
  replayPyramids,
  shadowPyramids,
  calibratePyramidPolicy,
  pyramidPolicyDecide,
  pyramidPolicyUpdate,
  OutcomeModel,
  verifyReceipts: verifyReceiptsOf,
  appendReceipts,
  readJunit,
  checkPyramidDrift,
  promotePyramidPolicy,
  checkLoopDrift,
  promoteLoopPolicy,
  replayLoops,
  calibrateLoopPolicy,
  calibrationPlan,
  LoopCalibration,
  loopPreset,
  LOOP_PRESETS,
  policy: POLICY_BUILDERS,
  BehaviorDetector,
  THRESHOLDS,
  InterventionSystem,
  INTERVENTION_LEVELS,
};
// The run store needs SQLite: the napi addon has it, the wasm package does not (no `Store`).
if (hasStore()) api.Store = Store;

// For the tests only (tests/node reaches it by loading the layer over the native module
// again, as test runners may): the encoder with its visit count, the caches' sizes, and a
// switch that sends every run to the JSON path.
export const testing = { encode: encodeCounted, caches: cacheSizes, policy: policyCounts, setFastRuns };

