// Receipts as the core writes them (docs/test-exit.md "Receipts"), for the vector generators:
// a two-layer shadow run of `risk_bounded` whose policy would have exited after its first
// layer, with the outcome that makes each label, and the hash chain over them (SHA-256 over
// RFC 8785 canonical JSON: keys sorted at every level; every number here prints alike in
// RFC 8785 and JSON.stringify).
import { createHash } from 'node:crypto';

export const sha = (text) => createHash('sha256').update(text).digest('hex');

export function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const CONFIG = { riskBudget: 0.01, confidence: 0.95, priorFailures: 0.5, priorPasses: 0.5, reorder: true, skipOnSuccess: true, forgetting: 0.998 };

// A receipt labelled `label` ('correct_skip', 'false_pass' or 'needless_run'), with a run
// label and a run id when given.
export function receipt(label, { runLabel, runId = null } = {}) {
  const green = label !== 'needless_run';
  const failed = label === 'false_pass';
  const body = { kind: 'pyramid', receiptVersion: 1, runId };
  if (runLabel !== undefined) body.runLabel = runLabel;
  return {
    ...body,
    layer: 0,
    layerName: 'unit',
    layersRun: 1,
    policy: 'risk_bounded',
    config: { ...CONFIG },
    exitReason: green ? 'risk_bounded' : 'layer_failed',
    signal: { risk: green ? 0.008 : null },
    thresholds: { riskBudget: CONFIG.riskBudget, confidence: CONFIG.confidence },
    skipped: [{ layer: 1, name: 'e2e', predicted: green ? 'pass' : 'fail', confidence: green ? 0.992 : null, actual: failed ? 'fail' : 'pass', costMs: 1200 }],
    firstMissedFailure: failed ? { layer: 1, name: 'e2e' } : null,
    label,
    computeSavedMs: 1200,
  };
}

// `body` chained after `prev` (a sha256 or null): the line's object.
export function chained(body, prev) {
  const withPrev = { ...body, prevHash: prev };
  return { ...withPrev, sha256: sha(canonical(withPrev)) };
}

// A JSONL log of `bodies`, each chained to the one before.
export function chainLog(bodies) {
  let prev = null;
  return bodies.map((body) => {
    const line = chained(body, prev);
    prev = line.sha256;
    return JSON.stringify(line);
  }).join('\n') + '\n';
}

// The ADR's exit decision in shadow mode (docs/test-exit.md "The ADR's exit decision in shadow
// mode"), as the core writes it: the DEFAULT preset over four green layers (costs 10..40) would
// have exited after `unit`, verified `integration` and `e2e`, and never run `smoke`.
export function adrReceipt({ runId = 'build-9' } = {}) {
  const layer = (i, name) => ({ layer: i, name });
  return {
    kind: 'pyramid', receiptVersion: 1, runId, layer: 0, layerName: 'unit', layersRun: 1, policy: 'adr',
    config: { exitLayer: 1, minLambdaForExit: 80, minLambdaStability: 0.85, maxBoundaryConcentration: 0.5, speculativeTests: 4, verificationLayers: 2, adaptiveExitLayer: true, minConfidence: 0.8 },
    totalLayers: 4,
    exitReason: 'confident_exit',
    signal: { lambda: 100, lambdaPrev: 100, boundaryEdges: 0, boundaryConcentration: 0, partitionCount: 0, flags: 0 },
    decision: { canExit: true, confidence: 1, exitLayer: 0, reason: 'confident_exit', enableSpeculation: true, explanation: 'All conditions met with 100.0% confidence' },
    failingLayers: [],
    speculations: [[1, 'integration'], [2, 'e2e'], [3, 'smoke']].map(([i, n]) => ({ ...layer(i, n), predicted: 'pass', confidence: 1 })),
    verification: [[1, 'integration'], [2, 'e2e']].map(([i, n]) => ({ ...layer(i, n), outcome: 'pass', correct: true })),
    skipped: [[1, 'integration', true, 20], [2, 'e2e', true, 30], [3, 'smoke', false, 40]]
      .map(([i, n, verified, costMs]) => ({ ...layer(i, n), verified, actual: 'pass', costMs })),
    firstMissedFailure: null,
    label: 'correct_skip',
    computeSavedMs: 40,
  };
}
