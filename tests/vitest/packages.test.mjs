// Both npm packages loaded the way vitest loads them (vitest.config.mjs says how: a workspace
// symlink, which vite inlines because the real path is outside node_modules, or
// `server.deps.inline`). vite's loader hands a default import of a CommonJS file its
// `module.exports.default` when there is one, so an ES entry must not depend on that interop.
import { describe, expect, test } from 'vitest';
import * as native from 'earlyexit';
import nativeDefault from 'earlyexit';
import * as wasm from 'earlyexit-wasm';
import wasmDefault from 'earlyexit-wasm';
// The subpath entries, default-imported as aiwg's files import its two modules.
import NativeEarlyStopping from 'earlyexit/early-stopping';
import NativeIterationAnalytics from 'earlyexit/iteration-analytics';
import WasmEarlyStopping from 'earlyexit-wasm/early-stopping';
import WasmIterationAnalytics from 'earlyexit-wasm/iteration-analytics';

// The names every entry exports (bindings/js/build.mjs PUBLIC_NAMES, plus init and the default).
const NAMES = [
  'EarlyStopping', 'IterationAnalytics', 'calculateQualitySignal', 'CoherenceEarlyExit', 'SpeculativeExecutor',
  'EarlyExitController', 'PyramidRun', 'DEFAULT_EXIT_CONFIG', 'AGGRESSIVE_EXIT_CONFIG', 'CONSERVATIVE_EXIT_CONFIG',
  'replayPyramids', 'shadowPyramids', 'calibratePyramidPolicy', 'pyramidPolicyDecide', 'pyramidPolicyUpdate',
  'replayLoops', 'loopPreset', 'LOOP_PRESETS', 'init',
];

const RESULT = { quality_score: 91, confidence: 0.97, verification_status: 'passed', quality_delta: 0, timestamp: '2026-01-01T00:00:00.000Z' };

const PACKAGES = [
  ['earlyexit', native, nativeDefault, NativeEarlyStopping, NativeIterationAnalytics],
  ['earlyexit-wasm', wasm, wasmDefault, WasmEarlyStopping, WasmIterationAnalytics],
];

for (const [name, lib, fallback, SubEarlyStopping, SubIterationAnalytics] of PACKAGES) {
  describe(name, () => {
    test('every export is defined', () => {
      const missing = NAMES.filter((n) => lib[n] === undefined);
      expect(missing).toEqual([]);
      expect(typeof lib.EarlyStopping).toBe('function');
    });

    test('the default export is EarlyStopping', () => {
      expect(fallback).toBe(lib.EarlyStopping);
      expect(lib.default).toBe(lib.EarlyStopping);
    });

    test('the subpath entries default-export the classes', () => {
      expect(SubEarlyStopping).toBe(lib.EarlyStopping);
      expect(SubIterationAnalytics).toBe(lib.IterationAnalytics);
    });

    test('decides a loop', async () => {
      await lib.init();
      const stopper = new lib.EarlyStopping();
      stopper.recordIterationResult(1, RESULT);
      const decision = stopper.shouldStop(1);
      expect(decision.stop).toBe(true);
      expect(decision.reason).toBe('High confidence (97.0%) AND verification passed');
      expect(lib.DEFAULT_EXIT_CONFIG.exitLayer).toBe(1);
    });
  });
}
