// Recovery from a trapped WebAssembly instance (the wasm package only).

import { HOST_CODES, MESSAGES, OP } from './contract.generated.mjs';
import { fast, growScratch } from './scratch.js';
import { forgetDecision } from './loop.js';

// ------------------------------------------------------------------------
// WebAssembly only (the package entry gives `native.resetInstance(op)`, which replaces the
// instance that answers `op` by a fresh one of the same module and says whether that was
// the engines module). A trap (out of memory, say) leaves an instance unusable, so: the
// call that trapped throws `instance_trapped`, later calls go to the fresh instance, and
// the native objects made on the old one (IterationAnalytics, CoherenceEarlyExit,
// SpeculativeExecutor, PyramidRun and a controller's earlyExit) throw `instance_reset`.
// EarlyStopping and runs keep their state in JS and carry on (an EarlyStopping's stop
// policy object, on the replay module's instance, is made again from its history). Not about a value the caller
// passed, and no core is left to word them (the instance that would is gone, and a message
// must not need a new one): plain Errors with `.code` and `.field`, their texts and codes
// the contract's (`MESSAGES`, `HOST_CODES`: bindings/js/interface/src/host_messages.rs).
let generation = 0; // of the engines instance
let replayGeneration = 0; // of the replay instance (its PolicyEngine objects)

function instanceError(code, message, cause) {
  const error = cause === undefined ? new Error(message) : new Error(message, { cause });
  error.code = code;
  error.field = code === HOST_CODES.INSTANCE_RESET ? 'this' : 'instance';
  return error;
}

export function guardInstance() {
  const reset = native.resetInstance;
  // Only a trap: a RangeError for an exhausted JS stack may come from the glue before the
  // instance was entered, and the instance is then intact.
  const isTrap = (error) => typeof WebAssembly === 'object' && error instanceof WebAssembly.RuntimeError;
  function recover(error, op) {
    if (!isTrap(error)) return error;
    if (reset(op)) {
      generation += 1;
      // The engine whose state was in the scratch slots saves it from the old memory (its
      // contents outlive the instance); the slots are then reserved on the new one.
      if (fast.evict !== null && fast.memory !== null) {
        fast.scratch = new Float64Array(fast.memory.buffer, fast.address, fast.size);
        fast.evict();
      }
      fast.owner = null;
      fast.evict = null;
      forgetDecision();
      fast.scratch = new Float64Array(0);
      growScratch(fast.size / 2);
    } else {
      replayGeneration += 1; // the replay module's objects went with its instance
    }
    return instanceError(HOST_CODES.INSTANCE_TRAPPED, MESSAGES.INSTANCE_TRAPPED(error.message), error);
  }
  const raw = {};
  for (const name of ['exec', 'fastFold', 'fastDecide', 'fastReason', 'fastDiminishingReason', 'scratchReserve', 'wasmMemory',
    'pyramidStart', 'pyramidSubmit', 'pyramidSummary', 'NativeEngine', 'PolicyEngine']) raw[name] = native[name];
  // One wrapper per arity, so the hot zero-argument calls stay plain calls.
  const guard0 = (f) => function guarded() {
    try {
      return f();
    } catch (error) {
      throw recover(error);
    }
  };
  const guard1 = (f) => function guarded(a) {
    try {
      return f(a);
    } catch (error) {
      throw recover(error);
    }
  };
  native.exec = function exec(op, args) {
    try {
      return raw.exec(op, args);
    } catch (error) {
      throw recover(error, op);
    }
  };
  for (const name of ['fastFold', 'fastDecide', 'fastReason', 'wasmMemory', 'pyramidStart', 'pyramidSubmit', 'pyramidSummary']) {
    native[name] = guard0(raw[name]);
  }
  native.fastDiminishingReason = guard1(raw.fastDiminishingReason);
  native.scratchReserve = guard1(raw.scratchReserve);
  // A native object on an instance that a trap may replace (`generationOf()` moves on): its
  // calls are refused once that instance is gone, and freeing it then frees nothing.
  const guardedClass = (Raw, generationOf, openOp) => class {
    constructor() {
      this.generation = generationOf();
      try {
        this.inner = new Raw();
      } catch (error) {
        throw recover(error, openOp);
      }
    }

    call(op, args) {
      if (this.generation !== generationOf()) {
        throw instanceError(HOST_CODES.INSTANCE_RESET, MESSAGES.INSTANCE_RESET);
      }
      try {
        return this.inner.call(op, args);
      } catch (error) {
        throw recover(error, op);
      }
    }

    free() {
      if (this.generation === generationOf()) this.inner.free(); // the old instance's memory went with it
    }
  };
  native.NativeEngine = guardedClass(raw.NativeEngine, () => generation, undefined);
  // The replay module's object (an EarlyStopping's stop policy), on that module's instance.
  if (typeof raw.PolicyEngine === 'function') {
    native.PolicyEngine = guardedClass(raw.PolicyEngine, () => replayGeneration, OP.LOOP_POLICY_OPEN);
  }
}

