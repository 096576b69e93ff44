// Checks the corpus: node tests/vectors/check_corpus.mjs <reference-dir>
// - shape: required fields, unique names, legal engine/source/only values;
// - re-runs every vector through driver.mjs (reference vectors against the
//   reference modules; hand vectors against the independent model; jsnum
//   vectors against Node) and compares the recorded expectations;
// - prints counts per file / engine / source / trigger / exit reason / error code.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadReference, evaluate, checkVector } from './driver.mjs';
import { decode } from './common.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const dir = process.argv[2];
if (!dir) { console.error('usage: node tests/vectors/check_corpus.mjs <reference-dir>'); process.exit(2); }
const ref = await loadReference(dir);

const ENGINES = ['EarlyStopping', 'IterationAnalytics', 'calculateQualitySignal', 'CoherenceEarlyExit', 'SpeculativeExecutor', 'EarlyExitController', 'PyramidRun', 'jsnum', 'receipts'];
const SOURCES = ['reference', 'hand'];
const SUITES = ['js', 'python', 'rust'];
const KINDS = ['type', 'range'];
const count = (m, k) => m.set(k, (m.get(k) ?? 0) + 1);
const tables = { file: new Map(), engine: new Map(), source: new Map(), trigger: new Map(), 'exit reason': new Map(), 'error code': new Map() };
const problems = [];
const names = new Set();
let total = 0;

function walk(v, seen) {
  if (Array.isArray(v)) return v.forEach((x) => walk(x, seen));
  if (v === null || typeof v !== 'object') return;
  if (typeof v.trigger === 'string') seen.trigger.add(v.trigger);
  if (typeof v.exitReason === 'string') seen['exit reason'].add(v.exitReason);
  if (typeof v.reason === 'string' && 'canExit' in v) seen['exit reason'].add(v.reason);
  Object.values(v).forEach((x) => walk(x, seen));
}

const files = fs.readdirSync(here).filter((f) => f.endsWith('.json')).sort();
for (const file of files) {
  // The bad-input matrix is a table of rows, checked against the model when gen_bad_input.mjs writes it.
  if (file === 'bad_input.json') continue;
  const doc = JSON.parse(fs.readFileSync(path.join(here, file), 'utf8'));
  const keys = Object.keys(doc);
  if (keys.length !== 1 || !Array.isArray(doc.vectors)) { problems.push(`${file}: must be exactly {"vectors": [...]}`); continue; }
  for (const v of doc.vectors) {
    total++;
    const at = `${file}: ${v.name}`;
    count(tables.file, file);
    if (typeof v.name !== 'string' || v.name === '') problems.push(`${file}: a vector without a name`);
    if (names.has(v.name)) problems.push(`${at}: duplicate name`);
    names.add(v.name);
    if (!ENGINES.includes(v.engine)) problems.push(`${at}: unknown engine ${v.engine}`);
    if (!SOURCES.includes(v.source)) problems.push(`${at}: source must be reference or hand`);
    if ('only' in v && (!Array.isArray(v.only) || v.only.length === 0 || v.only.some((s) => !SUITES.includes(s)))) problems.push(`${at}: bad only ${JSON.stringify(v.only)}`);
    if (v.engine === 'jsnum' && JSON.stringify(v.only) !== '["rust"]') problems.push(`${at}: jsnum vectors are only ["rust"]`);
    if (!Array.isArray(v.calls)) problems.push(`${at}: calls must be an array`);
    if (v.construct === undefined || v.construct === null || typeof v.construct !== 'object') problems.push(`${at}: construct must be an object`);
    count(tables.engine, v.engine);
    count(tables.source, `${v.source}${v.only ? ` (only ${v.only.join('+')})` : ''}`);
    const throwsList = [v.throws, ...(v.calls ?? []).map((c) => c.throws)].filter(Boolean);
    for (const t of throwsList) {
      if ('message' in t) { count(tables['error code'], 'runner error (propagated)'); continue; }
      if (typeof t.code !== 'string' || typeof t.field !== 'string' || !KINDS.includes(t.kind)) problems.push(`${at}: bad throws ${JSON.stringify(t)}`);
      count(tables['error code'], `${t.code} (${t.kind})`);
    }
    if (v.source === 'reference' && throwsList.length > 0) problems.push(`${at}: a vector with an expected error must be hand`);
    if (v.source === 'reference' && v.engine === 'EarlyStopping' && v.construct?.analytics) problems.push(`${at}: a vector with analytics must be hand`);
    for (const c of v.calls ?? []) {
      if (typeof c.call !== 'string') problems.push(`${at}: a call without a name`);
      if ('returns' in c && 'throws' in c) problems.push(`${at}: ${c.call} has both returns and throws`);
      if ((c.call === 'runWithEarlyExit' || c.call === 'verify') && !Array.isArray(c.layers)) problems.push(`${at}: ${c.call} needs layers`);
    }
    // re-run
    try {
      const errs = checkVector(v, await evaluate(v, ref));
      for (const e of errs) problems.push(`${at}: ${e}`);
    } catch (e) {
      problems.push(`${at}: evaluation failed: ${e.message}`);
    }
    const seen = { trigger: new Set(), 'exit reason': new Set() };
    for (const c of v.calls ?? []) if ('returns' in c) walk(decode(c.returns), seen);
    for (const [k, s] of Object.entries(seen)) for (const x of s) count(tables[k], x);
  }
}

for (const [title, m] of Object.entries(tables)) {
  console.log(`${title}:`);
  for (const [k, n] of [...m.entries()].sort()) console.log(`  ${String(n).padStart(5)}  ${k}`);
}
console.log(`\n${total} vectors in ${files.length} files`);
const needTriggers = ['none', 'high_confidence', 'quality_plateau', 'diminishing_returns', 'max_iterations', 'budget_exhausted', 'quality_regression'];
const needReasons = ['forced_continue', 'lambda_too_low', 'lambda_unstable', 'boundaries_concentrated', 'insufficient_confidence', 'confident_exit'];
for (const t of needTriggers) if (!tables.trigger.has(t)) problems.push(`no vector covers trigger ${t}`);
for (const r of needReasons) if (!tables['exit reason'].has(r)) problems.push(`no vector covers exit reason ${r}`);
if (total < 300) problems.push(`only ${total} vectors (need >= 300)`);
if (problems.length) {
  for (const p of problems.slice(0, 50)) console.log(`PROBLEM ${p}`);
  console.log(`${problems.length} problem(s)`);
  process.exit(1);
}
console.log('corpus OK');
