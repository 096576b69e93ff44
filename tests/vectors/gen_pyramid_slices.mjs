// policy/pyramid_slices.json: slices by user label (docs/test-exit.md "Slices: stage sets and
// labels"), with expectations derived here from the rules of that page, not from the project:
//   node tests/vectors/gen_pyramid_slices.mjs
//
// * `slices`: recorded runs with labels -> the calibration artifact's label slices
//   (`body.slices` entries with a `label`: runs, failing runs, the Wilson 95% interval of the
//   failing-run rate), in first-seen order; unlabelled runs are in none.
// * `drift`: one calibration corpus and `now`; per case recent runs -> the drift check's label reasons
//   (`label`: a label the corpus did not have; `label_failure_rate`: the recent failing-run
//   rate's Wilson interval does not overlap the label's calibration interval).
// * `receipts`: a receipt log (chained here with node:crypto's SHA-256 over the canonical
//   JSON) -> `verifyReceipts(log).labelSlices`: per `runLabel`, the labels and the rates
//   (false passes / green exits, needless runs / receipts) with their Wilson intervals.
import fs from 'node:fs';
import path from 'node:path';
import { chainLog, receipt } from './receipt_doc.mjs';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const Z95 = 1.959963984540054;

function wilson(k, n) {
  if (n === 0) return null;
  const p = k / n;
  const z2 = Z95 * Z95;
  const denom = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denom;
  const half = (Z95 * Math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))) / denom;
  return [Math.max(0, center - half), Math.min(1, center + half)];
}

// A deterministic run: two stages; `fails(i)` says which stage fails in run i (none, 'unit', 'e2e').
const run = (i, label, failing) => {
  const out = { layers: [
    { name: 'unit', durationMs: 10, failed: failing === 'unit' },
    { name: 'e2e', durationMs: 90, failed: failing === 'e2e' },
  ] };
  if (label !== undefined) out.label = label;
  return out;
};
const runs = (n, labelOf, failOf, offset = 0) => Array.from({ length: n }, (_, j) => run(j + offset, labelOf(j + offset), failOf(j + offset)));

function labelSlices(corpus) {
  const out = [];
  for (const r of corpus) {
    if (r.label === undefined) continue;
    let s = out.find((x) => x.label === r.label);
    if (!s) out.push(s = { label: r.label, runs: 0, failingRuns: 0 });
    s.runs += 1;
    s.failingRuns += r.layers.some((l) => l.failed) ? 1 : 0;
  }
  return out.map((s) => ({ ...s, failureInterval: wilson(s.failingRuns, s.runs) }));
}

function labelReasons(corpus, recent) {
  const known = labelSlices(corpus);
  const reasons = [];
  for (const s of labelSlices(recent)) {
    const k = known.find((x) => x.label === s.label);
    if (!k) {
      reasons.push({ kind: 'label', label: s.label, message: `label '${s.label}' (${s.runs} recent runs) was not in the calibration corpus` });
      continue;
    }
    const [lo, hi] = k.failureInterval;
    const [rlo, rhi] = wilson(s.failingRuns, s.runs);
    if (rhi < lo || rlo > hi) {
      reasons.push({ kind: 'label_failure_rate', label: s.label,
        message: `label '${s.label}': failing runs ${s.failingRuns} of ${s.runs} recent runs (${s.failingRuns / s.runs}), outside its calibration interval [${lo}, ${hi}]` });
    }
  }
  return reasons;
}

const every = (m, stage) => (i) => (i % m === 0 ? stage : undefined);
const branch = (i) => (i % 3 === 0 ? 'release/2.1' : 'main');
const CALIBRATE = { risk: 0.2, delta: 0.1, createdAt: '2026-01-01T00:00:00Z' };

const slices = [
  ['two branches, unit failing every 5th run', runs(300, branch, every(5, 'unit'))],
  ['some runs unlabelled', runs(200, (i) => (i % 4 === 0 ? undefined : i % 4 === 1 ? 'nightly' : 'main'), every(7, 'e2e'))],
  ['no labels: no label slice', runs(100, () => undefined, every(5, 'unit'))],
  ['a label that never fails, one that always does', runs(120, (i) => (i % 2 ? 'green' : 'red'), (i) => (i % 2 ? undefined : 'unit'))],
].map(([name, corpus]) => ({ name, runs: corpus, options: CALIBRATE, labelSlices: labelSlices(corpus) }));

const base = runs(300, branch, every(5, 'unit'));
const drift = [
  ['same rates: no label reason', runs(90, branch, every(5, 'unit'), 300)],
  ['a new label', runs(40, () => 'feature/x', every(5, 'unit'), 300)],
  ['release now fails every run', runs(60, () => 'release/2.1', () => 'unit', 300).concat(runs(60, () => 'main', every(5, 'unit'), 360))],
  ['main never fails any more, over many runs', runs(400, () => 'main', () => undefined, 300)],
  ['unlabelled recent runs: no label reason', runs(50, () => undefined, () => 'unit', 300)],
].map(([name, recent]) => ({ name, recent, labelReasons: labelReasons(base, recent) }));

// Receipt logs: receipts as the core writes them, chained (receipt_doc.mjs).
function log(entries) {
  return chainLog(entries.map(([label, runLabel]) => receipt(label, { runLabel })));
}
const rateOf = (count, of) => ({ count, of, rate: of > 0 ? count / of : null, wilson: wilson(count, of) });
function receiptSlices(entries) {
  const out = [];
  for (const [label, runLabel] of entries) {
    if (runLabel === undefined) continue;
    let s = out.find((x) => x.runLabel === runLabel);
    if (!s) out.push(s = { runLabel, labels: {} });
    s.labels[label] = (s.labels[label] ?? 0) + 1;
  }
  return out.map(({ runLabel, labels }) => {
    const n = (l) => labels[l] ?? 0;
    const receipts = Object.values(labels).reduce((a, b) => a + b, 0);
    return { runLabel, receipts, labels, rates: {
      falsePass: rateOf(n('false_pass'), n('correct_skip') + n('false_pass')),
      needlessRun: rateOf(n('needless_run'), receipts),
    } };
  });
}
const C = 'correct_skip';
const F = 'false_pass';
const N = 'needless_run';
const receipts = [
  ['two labels and an unlabelled receipt', [[C, 'main'], [F, 'main'], [C, 'release'], [N, 'main'], [C, undefined], [N, 'release']]],
  ['one label, only needless runs', [[N, 'ci-arm64'], [N, 'ci-arm64'], [N, 'ci-arm64']]],
  ['no run label: no label slice', [[C, undefined], [F, undefined]]],
  ['many green exits on one branch', Array.from({ length: 40 }, (_, i) => [i % 8 === 0 ? F : C, i % 5 === 0 ? 'hotfix' : 'main'])],
].map(([name, entries]) => ({ name, log: log(entries), labelSlices: receiptSlices(entries) }));

const about = 'Slices by user label: calibration label slices, drift label reasons, verifyReceipts labelSlices (tests/vectors/gen_pyramid_slices.mjs; docs/test-exit.md "Slices: stage sets and labels").';
const out = path.join(here, 'policy', 'pyramid_slices.json');
const driftDoc = { calibration: base, options: CALIBRATE, now: '2026-01-02T00:00:00Z', cases: drift };
fs.writeFileSync(out, JSON.stringify({ about, slices, drift: driftDoc, receipts }) + '\n');
console.log(`policy/pyramid_slices.json: ${slices.length} slices, ${drift.length} drift, ${receipts.length} receipts vectors`);
