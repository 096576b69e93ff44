// Generates tests/vectors/progress.json: the progress signals (`fingerprint`, `completed`)
// and the stop conditions that read them (`unchanged`, `revisit`, `completed`).
//
//   node tests/vectors/gen_progress.mjs
//
// Hand vectors: every expected value comes from the small model below, written from
// docs/loop-policies.md ("Progress signals"), not from the core's output. Deterministic.
// `only` names the suites that run them (every binding's: Rust, Python, and JS in Node and browsers).

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const CONTINUE = 'Continuing iteration - no stopping criteria met';
const ONLY = ['rust', 'python', 'js'];

const ts = (i) => `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}.000Z`;

// A record: quality q, skipped verification (so the best is the highest quality, earliest on
// ties), and the progress fields given.
function result(i, q, extra) {
  return { quality_score: q, confidence: 0.1, verification_status: 'skipped', quality_delta: 0, timestamp: ts(i), ...extra };
}

// The model: the state the conditions read, folded record by record.
function model(when, records) {
  const seen = []; // [{iteration, fingerprint|null, completed}]
  let best = null;
  const decisions = [];
  for (const [k, r] of records.entries()) {
    const iteration = k + 1;
    if (best === null || r.q > best[1]) best = [iteration, r.q];
    seen.push({ iteration, fingerprint: r.fingerprint ?? null, completed: r.completed === true });
    let fired = null;
    for (const [i, c] of when.any.entries()) {
      const details = leaf(c, seen);
      if (details) {
        fired = { condition: c.condition ?? c, path: `any[${i}]`, reason: reasonOf(details), details: details.value };
        break;
      }
    }
    const d = fired
      ? { stop: true, reason: fired.reason, confidence: 1, trigger: fired.condition, details: fired.details }
      : { stop: false, reason: CONTINUE, confidence: 0.7, trigger: 'none' };
    d.best_iteration = best[0];
    d.best_quality_score = best[1];
    d.fired = fired ? [fired] : [];
    decisions.push(d);
  }
  return decisions;
}

// The run of equal fingerprints ending at the last record (0 when it has none).
function run(seen) {
  const last = seen.at(-1).fingerprint;
  if (last === null) return 0;
  let n = 0;
  for (let j = seen.length - 1; j >= 0 && seen[j].fingerprint === last; j--) n++;
  return n;
}

function leaf(c, seen) {
  const last = seen.at(-1);
  const name = c.condition ?? c;
  if (name === 'completed') {
    return last.completed ? { kind: 'completed', value: { completed_iteration: last.iteration } } : null;
  }
  if (name === 'max_iterations') {
    return seen.length >= c.limit ? { kind: 'max_iterations', value: { iterations: seen.length, max_iterations: c.limit } } : null;
  }
  if (name === 'unchanged') {
    const n = run(seen);
    if (n <= c.k) return null;
    const since = seen[seen.length - n].iteration;
    return { kind: 'unchanged', k: c.k, value: { fingerprint: last.fingerprint, since_iteration: since, k: c.k } };
  }
  if (name === 'revisit') {
    if (last.fingerprint === null) return null;
    const t = seen.length - 1;
    // Records t-window..t-2, the run of equal fingerprints ending at t aside; latest first.
    const newest = Math.min(t - 2, t - run(seen));
    for (let j = newest; j >= Math.max(0, t - c.window); j--) {
      if (seen[j].fingerprint === last.fingerprint) {
        return { kind: 'revisit', value: { fingerprint: last.fingerprint, first_seen_iteration: seen[j].iteration, window: c.window } };
      }
    }
    return null;
  }
  throw new Error(`no model for ${JSON.stringify(c)}`);
}

function reasonOf(d) {
  const v = d.value;
  switch (d.kind) {
    case 'completed': return `Completed: iteration ${v.completed_iteration} reported the task done`;
    case 'max_iterations': return `Maximum iterations reached (${v.iterations}/${v.max_iterations})`;
    case 'unchanged': return `Unchanged: the same fingerprint since iteration ${v.since_iteration} (more than ${v.k} iterations in a row)`;
    case 'revisit': return `Revisit: the fingerprint of iteration ${v.first_seen_iteration} came back within a window of ${v.window}`;
    default: throw new Error(d.kind);
  }
}

// A scenario: `records` as {q, fingerprint?, completed?}; a decision after each record, until
// the first stop.
function scenario(name, when, records) {
  const decisions = model(when, records);
  const calls = [];
  for (const [k, r] of records.entries()) {
    const extra = {};
    if (r.fingerprint !== undefined) extra.fingerprint = r.fingerprint;
    if (r.completed !== undefined) extra.completed = r.completed;
    calls.push({ call: 'recordIterationResult', args: [k + 1, result(k + 1, r.q, extra)] });
    calls.push({ call: 'shouldStop', args: [k + 1], returns: decisions[k] });
    if (decisions[k].stop) break;
  }
  return { name, engine: 'EarlyStopping', source: 'hand', only: ONLY, construct: { config: null, policy: when }, calls };
}

const fp = (list, q = (i) => 50 + (i % 3)) =>
  list.map((f, i) => (f === null ? { q: q(i) } : { q: q(i), fingerprint: f }));

const unchanged = (k) => ({ any: [{ condition: 'unchanged', k }] });
const revisit = (window) => ({ any: [{ condition: 'revisit', window }] });

const vectors = [
  scenario('unchanged(3): A, A, A, A stops at the fourth', unchanged(3), fp(['A', 'A', 'A', 'A'])),
  scenario('unchanged(3): a record without a fingerprint breaks the run', unchanged(3), fp(['A', 'A', null, 'A', 'A', 'A', 'A'])),
  scenario('unchanged(1): two equal in a row', unchanged(1), fp(['A', 'B', 'B'])),
  scenario('unchanged(2): a different one breaks the run', unchanged(2), fp(['A', 'A', 'B', 'A', 'A', 'A'])),
  scenario('revisit(2): A, B, A stops at the third', revisit(2), fp(['A', 'B', 'A'])),
  scenario('revisit(2): A, A, A, A is never a revisit', revisit(2), fp(['A', 'A', 'A', 'A'])),
  scenario('revisit(2): out of the window', revisit(2), fp(['A', 'B', 'C', 'A', 'D'])),
  scenario('revisit(4): the latest earlier record is named', revisit(4), fp(['B', 'A', 'C', 'B', 'D', 'C'])),
  scenario('revisit(3): absent fingerprints equal nothing', revisit(3), fp([null, 'B', null, null])),
  scenario('completed wins over a cap on the same record',
    { any: ['completed', { condition: 'max_iterations', limit: 2 }] },
    [{ q: 40, completed: false }, { q: 60, completed: true }]),
  scenario('completed: false does not stop',
    { any: ['completed', { condition: 'unchanged', k: 2 }] },
    [{ q: 40, completed: false, fingerprint: 'x' }, { q: 41, completed: false }, { q: 42, completed: true, fingerprint: 'x' }]),
  scenario('unchanged and revisit in one policy',
    { any: [{ condition: 'revisit', window: 3 }, { condition: 'unchanged', k: 2 }] },
    fp(['A', 'B', 'B', 'B'])),
];

// The fields are kept in the history only when given, after the others.
vectors.push({
  name: 'fingerprint and completed are kept in the history when given',
  engine: 'EarlyStopping', source: 'hand', only: ONLY, construct: { config: null },
  calls: [
    { call: 'recordIterationResult', args: [1, result(1, 50, { fingerprint: 'f1', completed: true })] },
    { call: 'recordIterationResult', args: [2, result(2, 60, {})] },
    {
      call: 'getIterationHistory', args: [], returns: [
        { iteration_number: 1, ...result(1, 50, { fingerprint: 'f1', completed: true }) },
        { iteration_number: 2, ...result(2, 60, {}) },
      ],
    },
  ],
});

fs.writeFileSync(path.join(here, 'progress.json'), `${JSON.stringify({ vectors }, null, 1)}\n`);
console.log(`progress.json: ${vectors.length} vectors`);
