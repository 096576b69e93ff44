// Stop-policy builders (docs/loop-policies.md): plain objects in the policy's one JSON
// form, the same in every language. Nothing is checked here: the core checks a policy
// where it is used (EarlyStopping, replayLoops) and names the path of a bad value.

const leaf = (condition, settings) => Object.assign({ condition }, settings ?? {});

export const POLICY_BUILDERS = Object.freeze({
  /** `{threshold, min_quality, require_verification}` (defaults 0.95, 70, true). */
  highConfidence: (settings = undefined) => leaf('high_confidence', settings),
  /** `{count, threshold, delta_source, mode, min_quality}` (defaults 3, 0.02, 'reported', 'relative'). */
  qualityPlateau: (settings = undefined) => leaf('quality_plateau', settings),
  diminishingReturns: () => leaf('diminishing_returns'),
  maxTotalTokens: (limit) => leaf('max_total_tokens', { limit }),
  maxTotalCostUsd: (limit) => leaf('max_total_cost_usd', { limit }),
  maxWallClockMs: (limit) => leaf('max_wall_clock_ms', { limit }),
  maxIterations: (limit) => leaf('max_iterations', { limit }),
  qualityRegression: (tolerance, patience = undefined) =>
    leaf('quality_regression', patience === undefined ? { tolerance } : { tolerance, patience }),
  noImprovement: (patience) => leaf('no_improvement', { patience }),
  /** `{floor, above_patience}` (defaults 0, none). */
  floorPatience: (patience, settings = undefined) => leaf('floor_patience', Object.assign({ patience }, settings ?? {})),
  /** Behaviour detectors (each with `stop_at`, the lowest intervention level that stops,
   * default 'pause'). `{same_error_count}` (default 3); the window is required. */
  stuck: (noProgressIterations, settings = undefined) =>
    leaf('stuck', Object.assign({ no_progress_iterations: noProgressIterations }, settings ?? {})),
  /** `{undo_redo_cycles, file_churn_threshold, stop_at}` (defaults 2, 0.8, 'pause'). */
  oscillation: (settings = undefined) => leaf('oscillation', settings),
  /** `{objective, objective_similarity, scope_creep_ratio, stop_at}` (defaults '', 0.5, 1.5, 'pause'). */
  deviation: (settings = undefined) => leaf('deviation', settings),
  /** `{max_iterations, iteration_multiplier, cost_multiplier, stop_at}` (defaults 10, 2, 2, 'pause'). */
  resourceBurn: (settings = undefined) => leaf('resource_burn', settings),
  /** `{coverage_drop_percent, test_pass_to_fail, stop_at}` (defaults 10, true, 'pause'). */
  testRegression: (settings = undefined) => leaf('test_regression', settings),
  /** Progress signals (docs/loop-policies.md "Progress signals"): the last record reports the
   * loop's completion (`completed: true`). */
  completed: () => leaf('completed'),
  /** Records t-k..t all carry the same `fingerprint` (`k` >= 1). */
  unchanged: (k) => leaf('unchanged', { k }),
  /** Record t's `fingerprint` equals that of a record among t-window..t-2, a run of equal
   * fingerprints aside (`window` >= 2). */
  revisit: (window) => leaf('revisit', { window }),
  anyOf: (...conditions) => ({ any: conditions }),
  allOf: (...conditions) => ({ all: conditions }),
  kOf: (k, ...conditions) => ({ k_of: k, of: conditions }),
  notBefore: (iterations, condition) => ({ not_before: iterations, then: condition }),
  /** The policy object: `when`'s tree (a single condition as `any` of one) plus `extra`
   * (`returns`, and for a replay `preset`, `config`, `analytics`). */
  stopPolicy: (when, extra = undefined) => {
    const tree = when !== null && typeof when === 'object' && ('any' in when || 'all' in when || 'k_of' in when || 'not_before' in when)
      ? when : { any: [when] };
    return Object.assign({}, tree, extra ?? {});
  },
});
