// Replay and presets: pyramid replay and the risk-bounded policy, loop replay, loop presets.
// Stateless: one native call per batch (in the wasm package, the replay module's ops).

import { OP, calibrateOptionsOf } from './contract.generated.mjs';
import { AS_LAYERS, AS_OPTIONS, AS_RUNS, args2, enc, encConfig, encode, unwrap } from './codec.js';
import { EarlyStopping } from './loop.js';

// ------------------------------------------------------------------------
// Pyramid replay and the risk-bounded policy (batch, stateless: ops PYRAMID_*,
// bindings/js/interface/src/pyramid_replay_ops.rs). Begin.
const encOpt = (value) => (value === undefined || value === null ? 'null' : encode(value, AS_OPTIONS));

export function replayPyramids(runs, options) {
  return unwrap(native.exec(OP.PYRAMID_REPLAY, args2(enc(runs, AS_RUNS), encOpt(options))));
}

export function shadowPyramids(runs, options) {
  return unwrap(native.exec(OP.PYRAMID_SHADOW, args2(enc(runs, AS_RUNS), encOpt(options))));
}

export function calibratePyramidPolicy(runs, risk, delta, options) {
  const base = options === undefined || options === null ? {} : options;
  const all = typeof base === 'object' && !Array.isArray(base) ? Object.assign({}, base, calibrateOptionsOf(risk, delta)) : base;
  return unwrap(native.exec(OP.PYRAMID_CALIBRATE, args2(enc(runs, AS_RUNS), enc(all, AS_OPTIONS))));
}

export function pyramidPolicyDecide(model, layers, outcomes, options) {
  return unwrap(native.exec(OP.PYRAMID_DECIDE,
    '[' + encOpt(model) + ',' + enc(layers, AS_LAYERS) + ',' + enc(outcomes) + ',' + encOpt(options) + ']'));
}

export function pyramidPolicyUpdate(model, ran, options) {
  return unwrap(native.exec(OP.PYRAMID_UPDATE, '[' + encOpt(model) + ',' + enc(ran) + ',' + encOpt(options) + ']'));
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
  return unwrap(native.exec(OP.LOOP_REPLAY, args2(enc(runs, AS_RUNS), encConfig(policy))));
}

/** A named preset's config (`'seed'`, the default, or `'recommended'`), with overrides merged. */
export function loopPreset(name, overrides = undefined) {
  return unwrap(native.exec(OP.LOOP_PRESET, args2(enc(name), encConfig(overrides))));
}

Object.defineProperty(EarlyStopping, 'fromPreset', {
  value: function fromPreset(name, overrides = undefined, iterationAnalytics = null) {
    return new EarlyStopping(loopPreset(name, overrides), iterationAnalytics);
  },
  writable: true,
  configurable: true,
});

