// Runs the engines over a run read by data.js. Every decision, signal, reason
// and count comes from earlyexit (the module `ee` passed in); this file only
// feeds it and collects what it answers. No DOM, so it runs in Node too.

export class RunError extends Error {
  // Wraps an engine error with where in the data it happened; keeps the
  // engine's own code, field and kind.
  constructor(where, cause, { line = null } = {}) {
    super(`${where}: ${cause?.message ?? String(cause)}`);
    this.name = 'RunError';
    this.cause = cause;
    this.code = cause?.code ?? null;
    this.field = cause?.field ?? null;
    this.kind = cause instanceof TypeError ? 'type' : cause instanceof RangeError ? 'range' : null;
    this.line = line;
  }
}

export class ConfigError extends RunError {
  constructor(form, cause) {
    super(`${form} config`, cause);
    this.name = 'ConfigError';
    this.form = form;
  }
}

// Engines made per run are freed when the run is done (the wasm objects live
// in the module's memory until then; the dashboard makes new ones on every
// config change).
function free(...objs) {
  for (const o of objs) {
    try {
      o?.free?.();
    } catch {
      // already freed
    }
  }
}

const ANALYTICS_FIELDS = ['tokens_used', 'token_cost_usd', 'execution_time_ms'];

/**
 * A loop run fed to the engine one iteration at a time: `step()` records the
 * next iteration (into `EarlyStopping` and, when configured, the built-in
 * `IterationAnalytics` that is its diminishing-returns source) and asks
 * `shouldStop`. The first stopping decision is where the loop stops; the live
 * view stops there, the replay goes on to show what the engine would have
 * said had the loop continued.
 */
export class LoopReplay {
  constructor(ee, run, config, analyticsConfig) {
    this.run = run;
    this.analytics = null;
    this.es = null;
    try {
      if (analyticsConfig) this.analytics = new ee.IterationAnalytics(analyticsConfig);
    } catch (err) {
      throw new ConfigError('analytics', err);
    }
    try {
      // A plain object with the method is what the engine calls; the wrapper
      // keeps the analytics instance ours to free.
      const analytics = this.analytics;
      const source = analytics ? { detectDiminishingReturns: () => analytics.detectDiminishingReturns() } : null;
      // A run's composed stop policy, if it has one (its decisions then list what fired).
      this.es = new ee.EarlyStopping(config, source, run.policy ?? undefined);
    } catch (err) {
      free(this.analytics);
      throw new ConfigError('loop', err);
    }
    this.steps = [];
    this.stop = null;
  }

  get done() {
    return this.steps.length >= this.run.iterations.length;
  }

  step() {
    const k = this.steps.length;
    const { iteration, result, where, line } = this.run.iterations[k];
    const at = (what) => `${this.run.fileName}, ${where} (iteration ${iteration}${what})`;
    try {
      this.es.recordIterationResult(iteration, result);
    } catch (err) {
      throw new RunError(at(''), err, { line });
    }
    if (this.analytics) {
      const rec = { iteration_number: iteration, quality_score: result.quality_score, verification_status: result.verification_status };
      for (const f of ANALYTICS_FIELDS) if (result[f] !== undefined) rec[f] = result[f];
      try {
        this.analytics.recordIteration(rec);
      } catch (err) {
        throw new RunError(at(', analytics'), err, { line });
      }
    }
    let decision;
    try {
      decision = this.es.shouldStop(iteration);
    } catch (err) {
      throw new RunError(at(', shouldStop'), err, { line });
    }
    const entry = { iteration, result, decision, afterStop: this.stop !== null };
    this.steps.push(entry);
    if (decision.stop && this.stop === null) this.stop = { iteration, index: k, decision };
    return entry;
  }

  /** What the engines say about the whole history so far. */
  report() {
    const history = this.es.getIterationHistory();
    const summary = history.length ? this.es.generateSummary() : null;
    let analytics = null;
    if (this.analytics && history.length) {
      analytics = {
        trajectory: this.analytics.getTrajectory(),
        selection: this.analytics.selectBestIteration(),
        diminishing: this.analytics.detectDiminishingReturns(),
      };
    }
    return { steps: this.steps, stop: this.stop, history, summary, analytics, config: this.es.getConfig(), last: this.steps.at(-1)?.decision ?? null };
  }

  dispose() {
    free(this.es, this.analytics);
    this.es = null;
    this.analytics = null;
  }
}

/** Replays a whole loop run (see LoopReplay). */
export function evaluateLoop(ee, run, config, analyticsConfig) {
  const replay = new LoopReplay(ee, run, config, analyticsConfig);
  try {
    while (!replay.done) replay.step();
    return replay.report();
  } finally {
    replay.dispose();
  }
}

/** The preset objects the package exports, by the names the data files use. */
export function presets(ee) {
  return {
    default: ee.DEFAULT_EXIT_CONFIG,
    aggressive: ee.AGGRESSIVE_EXIT_CONFIG,
    conservative: ee.CONSERVATIVE_EXIT_CONFIG,
  };
}

function specsOf(run) {
  return run.layers.map((l) => {
    if (l === null || typeof l !== 'object') return l; // the engine names the bad entry
    const spec = { name: l.name };
    if (l.costMs !== undefined) spec.costMs = l.costMs;
    return spec;
  });
}

// The signal the recorded result of a layer would give; null when the engine
// rejects it (a layer that never ran is not an error of the run).
function signalOf(ee, result) {
  try {
    return ee.calculateQualitySignal(result);
  } catch {
    return null;
  }
}

// Where in the file a pyramid error points: the layer the engine names
// (`layers[2].passRate`) is line 3 of a plain log, or results[2] of a run line.
function wherePyramid(run, err) {
  const m = /^layers\[(\d+)\]/.exec(err?.field ?? '');
  const i = m ? Number(m[1]) : null;
  if (run.lines && i !== null && run.lines[i] !== undefined) return [`${run.fileName}, line ${run.lines[i]} (layer ${i})`, { line: run.lines[i] }];
  const at = run.line == null ? run.fileName : `${run.fileName}, line ${run.line}`;
  return [i === null ? at : `${at}, layer ${i}`, { line: run.line }];
}

/**
 * Runs a recorded pyramid through `EarlyExitController.runWithEarlyExit`
 * (each runner returns the recorded result), then asks `CoherenceEarlyExit`
 * what it decided at each executed layer, for the per-layer view.
 */
export async function evaluatePyramid(ee, run, config, totalLayers) {
  let ctrl;
  try {
    ctrl = new ee.EarlyExitController(config, totalLayers);
  } catch (err) {
    throw new ConfigError('pyramid', err);
  }
  const calls = run.layers.map(() => 0);
  let result;
  try {
    const layers = specsOf(run).map((spec, i) => {
      if (spec === null || typeof spec !== 'object') return spec;
      return {
        ...spec,
        run: async () => {
          calls[i]++;
          if (i >= run.results.length) throw new Error(`no recorded result for layer ${i} (${spec.name})`);
          return structuredClone(run.results[i]);
        },
      };
    });
    result = await ctrl.runWithEarlyExit(layers);
  } catch (err) {
    const [where, opts] = wherePyramid(run, err);
    throw new RunError(where, err, opts);
  } finally {
    free(ctrl);
  }
  let exit;
  try {
    exit = new ee.CoherenceEarlyExit(config, totalLayers);
  } catch (err) {
    throw new ConfigError('pyramid', err);
  }
  try {
    const decisions = result.layers.map((lr, i) => {
      const signal = ee.calculateQualitySignal(lr);
      return { signal, decision: exit.shouldExit(signal, i) };
    });
    const firstSkipped = result.exitedEarly ? result.exitLayer + 1 : run.layers.length;
    const rows = run.layers.map((spec, i) => {
      const row = { index: i, name: spec?.name ?? `layer ${i}`, costMs: spec?.costMs, recorded: run.results[i], calls: calls[i] };
      if (i < result.layers.length) {
        Object.assign(row, { status: i === result.exitLayer && result.exitedEarly ? 'exit' : 'run', result: result.layers[i], ...decisions[i] });
      } else {
        const speculation = result.speculations[i - firstSkipped] ?? null;
        const verified = speculation?.verified === true;
        row.speculation = speculation;
        row.signal = verified ? signalOf(ee, run.results[i]) : null;
        row.recordedSignal = signalOf(ee, run.results[i]);
        row.status = verified ? (speculation.correct ? 'verified' : 'mispredicted') : 'skipped';
      }
      return row;
    });
    return { result, rows, calls };
  } finally {
    free(exit);
  }
}

/** A hand-made signal line: one `shouldExit` call. */
export function evaluateSignal(ee, run, config, totalLayers) {
  let exit;
  try {
    exit = new ee.CoherenceEarlyExit(config, totalLayers);
  } catch (err) {
    throw new ConfigError('pyramid', err);
  }
  try {
    return { decision: exit.shouldExit(run.signal, run.layer) };
  } catch (err) {
    throw new RunError(run.line == null ? run.fileName : `${run.fileName}, line ${run.line}`, err, { line: run.line });
  } finally {
    free(exit);
  }
}

/**
 * A live pyramid run through the step API: `next()` says which layer to run
 * (or verify), `step()` feeds that layer's recorded result with `submit`.
 */
export class LivePyramid {
  constructor(ee, run, config, totalLayers) {
    this.ee = ee;
    this.run = run;
    const start = ee.PyramidRun.start ? (...a) => ee.PyramidRun.start(...a) : (...a) => new ee.PyramidRun(...a);
    try {
      this.pr = start(config, totalLayers, specsOf(run));
    } catch (err) {
      throw new RunError('PyramidRun.start', err);
    }
    this.log = [];
    this.final = null;
  }

  next() {
    return this.pr.next();
  }

  /** Performs one action; returns {action, result?, signal?} or {action: done, final}. */
  step() {
    const action = this.pr.next();
    if (action.action === 'done') {
      if (!this.final) this.final = this.pr.result();
      return { action, final: this.final };
    }
    const i = action.layer;
    const recorded = this.run.results[i];
    if (recorded === undefined) throw new RunError(`layer ${i}`, new Error(`no recorded result for layer ${i} in the file`));
    try {
      this.pr.submit(i, structuredClone(recorded));
    } catch (err) {
      const [where, opts] = wherePyramid(this.run, err);
      throw new RunError(where, err, opts);
    }
    const entry = { action, result: recorded, signal: signalOf(this.ee, recorded) };
    this.log.push(entry);
    return entry;
  }

  snapshot() {
    return this.pr.toJSON?.() ?? null;
  }

  dispose() {
    free(this.pr);
    this.pr = null;
  }
}
