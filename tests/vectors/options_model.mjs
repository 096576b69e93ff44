// An independent model of EarlyStopping with the opt-in options of loop-stopping.md
// ("Beyond the seed"), written from that page and docs/loop-options.md (order of checks,
// wording of reasons, shape of details), not from the core. Deliberately plain: every
// decision rescans the whole history (sums, peak, regression streak) where the core folds
// records in one by one, so the two are independent checks of each other.
//
// driver.mjs uses it for every EarlyStopping vector whose config sets an option (at
// construction, in configure() or in a snapshot); vectors without options keep running
// against the seed's reference file. gen_options.mjs also checks that this model with no
// option set decides exactly as the reference does.

export const SEED_KEYS = [
  'highConfidenceThreshold', 'plateauConsecutiveCount', 'plateauImprovementThreshold', 'minQualityThreshold',
  'requireVerification', 'enablePlateauDetection', 'enableDiminishingReturns',
];
// The design table's order; getConfig() lists the options that are set in this order.
export const OPTION_KEYS = [
  'plateauDeltaSource', 'plateauMode', 'minIterations', 'maxIterations',
  'maxTotalTokens', 'maxTotalCostUsd', 'maxWallClockMs', 'regressionTolerance', 'regressionPatience',
  'strictIterations',
];
export const hasOptions = (cfg) =>
  cfg !== null && typeof cfg === 'object' && !Array.isArray(cfg) && OPTION_KEYS.some((k) => cfg[k] !== undefined);

const DEFAULTS = {
  highConfidenceThreshold: 0.95, plateauConsecutiveCount: 3, plateauImprovementThreshold: 0.02,
  minQualityThreshold: 70, requireVerification: true, enablePlateauDetection: true, enableDiminishingReturns: true,
};
// [option, budget name, record field], checked in this order.
const BUDGETS = [
  ['maxTotalTokens', 'tokens', 'tokens_used'],
  ['maxTotalCostUsd', 'cost_usd', 'token_cost_usd'],
  ['maxWallClockMs', 'wall_clock_ms', 'execution_time_ms'],
];
const USAGE_FIELDS = BUDGETS.map((b) => b[2]);
export const DEFAULT_REGRESSION_PATIENCE = 2;

function ordered(config) {
  const out = {};
  for (const k of SEED_KEYS) out[k] = config[k];
  for (const k of OPTION_KEYS) if (config[k] !== undefined) out[k] = config[k];
  return out;
}

const copy = (v) => (v === null || v === undefined ? v : structuredClone(v));

export class OptionsLoop {
  constructor(config, iterationAnalytics = null) {
    this.config = ordered({ ...DEFAULTS, ...(config ?? {}) });
    this.iterationAnalytics = iterationAnalytics ?? null;
    this.iterationHistory = [];
    this.stoppingReason = null;
    this.stoppingDetails = null;
  }

  // Takes over an engine's state (the reference's or a snapshot's), records with their usage.
  static from(config, analytics, history, stoppingReason, stoppingDetails) {
    const m = new OptionsLoop(config, analytics);
    for (const r of history) m.push(r.iteration_number, r);
    m.stoppingReason = stoppingReason ?? null;
    m.stoppingDetails = copy(stoppingDetails ?? null);
    return m;
  }

  push(iteration, result) {
    const record = {
      iteration_number: iteration, quality_score: result.quality_score, confidence: result.confidence,
      verification_status: result.verification_status, quality_delta: result.quality_delta,
      timestamp: result.timestamp ?? new Date().toISOString(),
    };
    for (const k of USAGE_FIELDS) if (result[k] !== undefined) record[k] = result[k];
    this.iterationHistory.push(record);
  }

  recordIterationResult(iteration, result) { this.push(iteration, result); }

  // strictIterations (docs/loop-options.md "Resume safety"): 'add' a number after the last
  // one, 'duplicate' for the last one again with the same caller-given fields (a timestamp
  // only when this call gives one; usage fields given in both or in neither), else 'invalid'.
  iterationOrder(iteration, result) {
    const last = this.iterationHistory[this.iterationHistory.length - 1];
    if (this.config.strictIterations !== true || last === undefined || iteration > last.iteration_number) return 'add';
    if (iteration < last.iteration_number) return 'invalid';
    const same = ['quality_score', 'confidence', 'verification_status', 'quality_delta', ...USAGE_FIELDS].every((k) => last[k] === result[k])
      && (result.timestamp === undefined || result.timestamp === last.timestamp);
    return same ? 'duplicate' : 'invalid';
  }

  // --- the rules, each over the whole history -------------------------------------------

  best() {
    const h = this.iterationHistory;
    let best = null;
    for (const r of h) {
      if (r.verification_status !== 'passed' || r.quality_score < this.config.minQualityThreshold) continue;
      if (best === null || r.quality_score > best.quality_score) best = r;
    }
    if (best === null) for (const r of h) if (best === null || r.quality_score > best.quality_score) best = r;
    return best === null
      ? { best_iteration: null, best_quality_score: null }
      : { best_iteration: best.iteration_number, best_quality_score: best.quality_score };
  }

  budgets() {
    const out = [];
    for (const [option, budget, field] of BUDGETS) {
      const limit = this.config[option];
      if (limit === undefined) continue;
      let observed = 0;
      let without = 0;
      for (const r of this.iterationHistory) {
        if (r[field] === undefined) without += 1; // unknown, not zero
        else observed += r[field];
      }
      out.push({ budget, limit, observed, records_without_value: without, exhausted: observed > limit, field });
    }
    return out;
  }

  budgetStop() {
    const hit = this.budgets().find((b) => b.exhausted);
    if (!hit) return null;
    let reason = `Budget exhausted: total ${hit.field} ${hit.observed} > limit ${hit.limit}`;
    if (hit.records_without_value > 0) reason += ` (${hit.records_without_value} records without ${hit.field} not counted)`;
    return {
      stop: true, reason, confidence: 1.0, trigger: 'budget_exhausted',
      details: { budget: hit.budget, limit: hit.limit, observed: hit.observed, records_without_value: hit.records_without_value },
    };
  }

  maxIterationsStop() {
    const max = this.config.maxIterations;
    const n = this.iterationHistory.length;
    if (max === undefined || n < max) return null;
    return {
      stop: true, reason: `Maximum iterations reached (${n}/${max})`, confidence: 1.0, trigger: 'max_iterations',
      details: { iterations: n, max_iterations: max },
    };
  }

  highConfidenceStop() {
    const last = this.iterationHistory[this.iterationHistory.length - 1];
    const c = this.config;
    if (!(last.confidence >= c.highConfidenceThreshold && last.quality_score >= c.minQualityThreshold)) return null;
    const pct = (last.confidence * 100).toFixed(1);
    if (c.requireVerification) {
      if (last.verification_status !== 'passed') return null; // the seed computes a non-stop and discards it
      return {
        stop: true, reason: `High confidence (${pct}%) AND verification passed`, confidence: last.confidence, trigger: 'high_confidence',
        details: { confidence: last.confidence, quality_score: last.quality_score, verification_status: last.verification_status },
      };
    }
    return {
      stop: true, reason: `High confidence (${pct}%) reached`, confidence: last.confidence, trigger: 'high_confidence',
      details: { confidence: last.confidence, quality_score: last.quality_score },
    };
  }

  plateauStop() {
    const c = this.config;
    const count = c.plateauConsecutiveCount;
    const h = this.iterationHistory;
    if (h.length < count) return null;
    const recent = h.slice(-count);
    const absolute = c.plateauMode === 'absolute';
    const improvements = [];
    for (let i = 1; i < recent.length; i++) {
      const prev = recent[i - 1];
      const curr = recent[i];
      const delta = c.plateauDeltaSource === 'computed' ? curr.quality_score - prev.quality_score : curr.quality_delta;
      const improvement = absolute ? Math.abs(delta) : prev.quality_score > 0 ? Math.abs(delta) / prev.quality_score : 0;
      improvements.push({ iteration: curr.iteration_number, improvement, delta });
      if (improvement >= c.plateauImprovementThreshold) return null;
    }
    const average = recent.reduce((s, r) => s + r.quality_score, 0) / recent.length;
    const unit = absolute
      ? `${c.plateauImprovementThreshold} points improvement`
      : `${(c.plateauImprovementThreshold * 100).toFixed(0)}% improvement`;
    return {
      stop: true, reason: `Quality plateau detected: ${count} consecutive iterations with <${unit}`, confidence: 0.85,
      trigger: 'quality_plateau',
      details: { consecutive_count: count, improvements, average_quality: average, threshold: c.plateauImprovementThreshold },
    };
  }

  regressionStop() {
    const tolerance = this.config.regressionTolerance;
    if (tolerance === undefined) return null;
    const patience = this.config.regressionPatience ?? DEFAULT_REGRESSION_PATIENCE;
    // peak: the highest quality before each record (earliest on ties); streak: how many
    // records in a row ended more than `tolerance` points below it.
    let peak = null;
    let streak = 0;
    for (const r of this.iterationHistory) {
      streak = peak !== null && r.quality_score < peak.quality_score - tolerance ? streak + 1 : 0;
      if (peak === null || r.quality_score > peak.quality_score) peak = r;
    }
    if (streak < patience) return null;
    return {
      stop: true,
      reason: `Quality regression: ${patience} consecutive iterations more than ${tolerance} points below the best (${peak.quality_score} at iteration ${peak.iteration_number})`,
      confidence: 0.8, trigger: 'quality_regression',
      details: { best_iteration: peak.iteration_number, best_quality_score: peak.quality_score, tolerance, patience },
    };
  }

  diminishingReturnsStop() {
    if (!this.config.enableDiminishingReturns || !this.iterationAnalytics) return null;
    const r = this.iterationAnalytics.detectDiminishingReturns();
    if (!r.detected) return null;
    return {
      stop: true, reason: `Diminishing returns detected: ${r.reason}`, confidence: 0.8, trigger: 'diminishing_returns',
      details: { detected_at_iteration: r.iteration, analytics_reason: r.reason },
    };
  }

  // The order of checks (docs/loop-options.md): hard limits, warm-up, then the seed's
  // quality triggers with the regression guard before the (possibly costly) outside source.
  decide() {
    const h = this.iterationHistory;
    const go = (reason, confidence) => ({ stop: false, reason, confidence, trigger: 'none' });
    if (h.length === 0) return go('No iterations completed yet', 1.0);
    const hard = this.budgetStop() ?? this.maxIterationsStop();
    if (hard) return hard;
    const min = this.config.minIterations;
    if (min !== undefined && h.length < min) return go(`Warm-up: iteration ${h.length} of ${min}`, 1.0);
    const c = this.config;
    return this.highConfidenceStop()
      ?? (c.enablePlateauDetection ? this.plateauStop() : null)
      ?? this.regressionStop()
      ?? this.diminishingReturnsStop()
      ?? go('Continuing iteration - no stopping criteria met', 0.7);
  }

  shouldStop() {
    const d = this.decide();
    if (d.stop) {
      this.stoppingReason = d.reason;
      this.stoppingDetails = copy(d.details);
    }
    const out = { ...d, ...this.best() };
    const budgets = this.budgets();
    if (budgets.length > 0) out.budgets = budgets.map(({ field, ...b }) => b);
    return out;
  }

  generateSummary() {
    const h = this.iterationHistory;
    if (h.length === 0) return { total_iterations: 0, stopped_early: false, reason: 'No iterations completed' };
    const last = h[h.length - 1];
    const d = this.shouldStop();
    return {
      total_iterations: h.length, stopped_early: d.stop, stopping_trigger: d.trigger, stopping_reason: d.reason,
      stopping_confidence: d.confidence, final_quality: last.quality_score, final_confidence: last.confidence,
      final_verification: last.verification_status, config: this.getConfig(), details: d.details,
    };
  }

  getStoppingReason() { return this.stoppingReason; }
  getStoppingDetails() { return this.stoppingDetails; }
  getConfig() { return { ...this.config }; }
  getIterationHistory() { return [...this.iterationHistory]; }
  configure(options) {
    const defined = {};
    for (const [k, v] of Object.entries(options ?? {})) if (v !== undefined) defined[k] = v;
    this.config = ordered({ ...this.config, ...defined });
  }
  reset() {
    this.iterationHistory = [];
    this.stoppingReason = null;
    this.stoppingDetails = null;
  }
}
