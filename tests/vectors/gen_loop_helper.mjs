// Generates tests/vectors/loop_helper/vectors.json: `Loop`, the refine-loop helper, as every language
// drives it (docs/loop-helper.md). Run by the Python suite (tests/python/test_loop_vectors.py)
// and the Node suite, native and wasm (tests/node/loop-helper.test.mjs), so the helper behaves
// the same everywhere.
//
//   node tests/vectors/gen_loop_helper.mjs
//
// Hand vectors: each step's expected trigger, the best and the output come from the rules in
// docs/loop-helper.md and docs/loop-policies.md, written below by hand; the automatic
// fingerprints are computed here (SHA-256 of a string's UTF-8, or of a JSON value's RFC 8785
// canonical JSON, by the small canonicalizer below), not by the package. Deterministic.
//
// Format: `options` in JS spelling (`maxIterations`, `runLabel`; a suite in another language
// renames them), `steps` of `{output, args}` (`args` in JS spelling: `costUsd`, `timeMs`), and
// `expect`: `triggers` (each step's decision trigger), `best` (`{iteration, quality}` on the
// loop's scale), `output` (what `loop.output` is after the last step), `fingerprints` (each
// history record's, null for none), and with `finish` (the argument of `finish`) `run`: the
// finished run's `id`, `dataset` and each iteration's `good` (null when absent).

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

// RFC 8785 for the values below: keys sorted by UTF-16 code units, ECMAScript number and
// string forms (JSON.stringify's).
function canonical(value) {
  if (Array.isArray(value)) return '[' + value.map(canonical).join(',') + ']';
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonical(value[k])).join(',') + '}';
  }
  return JSON.stringify(value);
}
const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest('hex');
const fingerprint = (output) => sha256(typeof output === 'string' ? output : canonical(output));

const vectors = [];
function vector(name, options, steps, expect, finish = undefined) {
  const fingerprints = steps.map((s) => (s.args.fingerprint !== undefined ? s.args.fingerprint : fingerprint(s.output)));
  const v = { name, options, steps, expect: { ...expect, fingerprints } };
  if (finish !== undefined) v.finish = finish;
  vectors.push(v);
}
const step = (output, args) => ({ output, args });

vector(
  'scale 1: scores map to 0..100, the best is handed back at the cap',
  { preset: 'recommended', scale: 1, maxIterations: 3 },
  [step('draft a', { quality: 0.5, tokens: 1200 }), step('draft b', { quality: 0.82, tokens: 900 }), step('draft c', { quality: 0.7 })],
  { triggers: ['none', 'none', 'max_iterations'], best: { iteration: 2, quality: 0.82 }, output: 'draft b' },
);

vector(
  'done wins over a cap reached on the same step; the completed output is handed back',
  { scale: 1, maxIterations: 2 },
  [step('first', { quality: 0.9 }), step('second', { quality: 0.6, done: true })],
  { triggers: ['none', 'completed'], best: { iteration: 1, quality: 0.9 }, output: 'second' },
);

vector(
  'unchanged(2) fires on the same JSON value three times, whatever its key order',
  { policy: { any: [{ condition: 'unchanged', k: 2 }] } },
  [step({ x: 1, y: [true, null] }, { quality: 40 }), step({ y: [true, null], x: 1 }, { quality: 41 }), step({ x: 1, y: [true, null] }, { quality: 42 })],
  { triggers: ['none', 'none', 'unchanged'], best: { iteration: 3, quality: 42 }, output: { x: 1, y: [true, null] } },
);

vector(
  'revisit(2) fires on A, B, A',
  { policy: { any: [{ condition: 'revisit', window: 2 }] } },
  [step('A', { quality: 10 }), step('B', { quality: 20 }), step('A', { quality: 15 })],
  { triggers: ['none', 'none', 'revisit'], best: { iteration: 2, quality: 20 }, output: 'A' },
);

vector(
  'a given fingerprint is used instead of the output\'s',
  { policy: { any: [{ condition: 'unchanged', k: 1 }], returns: 'best' } },
  [step('one', { quality: 30, fingerprint: 'same' }), step('two', { quality: 35, fingerprint: 'same' })],
  { triggers: ['none', 'unchanged'], best: { iteration: 2, quality: 35 }, output: 'two' },
);

vector(
  'high confidence needs a confidence and a passed verification (scale 100)',
  { preset: 'recommended' },
  [
    step('v1', { quality: 80, verified: true }),
    step('v2', { quality: 85, confidence: 0.97, verified: false }),
    step('v3', { quality: 90, confidence: 0.97, verified: 'passed', costUsd: 0.01, timeMs: 5 }),
  ],
  { triggers: ['none', 'none', 'high_confidence'], best: { iteration: 3, quality: 90 }, output: 'v3' },
);

vector(
  'finish(true) sets good on the output\'s iteration; the run is named by the task',
  { scale: 1, task: 't-17', dataset: 'demo', maxIterations: 3 },
  [step('a', { quality: 0.4, good: false }), step('b', { quality: 0.8 }), step('c', { quality: 0.6 })],
  { triggers: ['none', 'none', 'max_iterations'], best: { iteration: 2, quality: 0.8 }, output: 'b', run: { id: 't-17', dataset: 'demo', good: [false, true, null] } },
  true,
);

// In a folder of its own: its format is not the engine vectors' (tests/vectors/*.json).
const out = path.join(here, 'loop_helper', 'vectors.json');
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, JSON.stringify({ vectors }, null, 1) + '\n');
console.log(`loop_helper/vectors.json: ${vectors.length} vectors`);
