// Runs IterationAnalytics scenarios through the reference (iteration-analytics.mjs, with the
// listed deliberate differences: driver.mjs) for a test in another language, which sends
// them as JSON on stdin and reads the answers as JSON on stdout:
//
//   node tests/vectors/analytics_reference.mjs <reference-dir> vectors
//     stdin: [vector spec, ...] (the vectors.md format, without expectations)
//     stdout: [finished vector, ...] (returns and throws filled in, as generate.mjs does)
//
//   node tests/vectors/analytics_reference.mjs <reference-dir> files
//     stdin: [{loopId, taskDescription, config (with an absolute storagePath), startTime,
//              endTime?, records: [metrics with timestamp, ...]}, ...]
//     stdout: [{files: [the summary file's text after each record, ...]}, ...]
//
// tests/python/test_analytics_reference.py uses both (Python has no way to run the JS
// reference itself).
import fs from 'node:fs';
import { loadReference, projectClass, referenceCall } from './driver.mjs';
import { finalize } from './gen_util.mjs';

const [dir, mode] = process.argv.slice(2);
if (!dir || !['vectors', 'files'].includes(mode)) {
  console.error('usage: node tests/vectors/analytics_reference.mjs <reference-dir> vectors|files < input.json');
  process.exit(2);
}
const ref = await loadReference(dir);
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const out = [];
if (mode === 'vectors') {
  for (const spec of input) out.push(await finalize(spec, ref));
} else {
  const Project = projectClass(ref.ia.IterationAnalytics);
  for (const s of input) {
    const a = referenceCall(s.startTime, () => new Project(s.loopId, s.taskDescription, s.config));
    if (s.endTime) a.endTime = s.endTime;
    const texts = [];
    const file = `${s.config.storagePath}/${s.loopId}.json`;
    for (const m of s.records) {
      referenceCall(m.timestamp, () => a.recordIteration(structuredClone(m)));
      texts.push(fs.readFileSync(file, 'utf8'));
    }
    out.push({ files: texts });
  }
}
process.stdout.write(JSON.stringify(out));
