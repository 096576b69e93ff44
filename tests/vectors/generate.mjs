// Generates the conformance vectors: node tests/vectors/generate.mjs <reference-dir>
// Deterministic: every random choice comes from a seeded PRNG.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadReference } from './driver.mjs';
import { finalizeAll } from './gen_util.mjs';
import { loopReference } from './gen_loop.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const dir = process.argv[2];
if (!dir) {
  console.error('usage: node tests/vectors/generate.mjs <reference-dir>   (e.g. ../shared/reference)');
  process.exit(2);
}
const ref = await loadReference(dir);

const groups = [['loop_reference', loopReference]];
const optional = [
  ['gen_errors.mjs', ['loop_errors', 'loopErrors'], ['loop_best', 'loopBest']],
  ['gen_analytics.mjs', ['analytics', 'analytics']],
  ['gen_exit.mjs', ['signal', 'signal'], ['exit_decision', 'exitDecision'], ['speculation', 'speculation']],
  ['gen_pyramid.mjs', ['pyramid_reference', 'pyramidReference'], ['pyramid_steps', 'pyramidSteps'], ['pyramid_errors', 'pyramidErrors']],
  ['gen_snapshots.mjs', ['snapshots', 'snapshots'], ['jsnum', 'jsnum']],
  ['gen_options.mjs', ['loop_options', 'loopOptions']],
];
for (const [file, ...items] of optional) {
  if (!fs.existsSync(path.join(here, file))) { console.error(`(skipping ${file}: not present)`); continue; }
  const mod = await import(`./${file}`);
  for (const [group, fn] of items) groups.push([group, mod[fn]]);
}

let total = 0;
for (const [group, fn] of groups) {
  const vectors = await finalizeAll(await fn(ref), ref);
  const text = JSON.stringify({ vectors }, null, 1) + '\n';
  fs.writeFileSync(path.join(here, `${group}.json`), text);
  total += vectors.length;
  console.log(`${group}.json: ${vectors.length} vectors`);
}
console.log(`total: ${total} vectors`);
