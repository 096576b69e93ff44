// The vector-runner page: loads the wasm web build, fetches every
// tests/vectors/*.json (found through the directory listing the static
// server gives, see serve.mjs), runs each vector that applies to "js", and
// writes the outcome into the page: #status, the per-file table, and the
// whole result as JSON in #result (body[data-done] once finished).

import { runAll, matrixVectors } from './vector-runner.mjs';

const VECTORS = new URL('../vectors/', import.meta.url);
const $ = (s) => document.querySelector(s);

function finish(state, text, result) {
  const status = $('#status');
  status.dataset.state = state;
  status.textContent = text;
  $('#result').textContent = JSON.stringify(result);
  document.body.dataset.done = state;
}

async function vectorFiles() {
  const res = await fetch(VECTORS, { cache: 'no-store' });
  if (!res.ok) throw new Error(`listing ${VECTORS.pathname}: HTTP ${res.status}`);
  const html = await res.text();
  const names = new Set();
  for (const m of html.matchAll(/href\s*=\s*"([^"?#]+\.json)"/gi)) names.add(decodeURIComponent(m[1]).split('/').pop());
  if (names.size === 0) throw new Error(`no *.json in the listing of ${VECTORS.pathname}`);
  return [...names].sort();
}

async function main() {
  const api = await import('earlyexit-wasm');
  // The replay vectors need the replay module, which init() alone does not fetch.
  await api.init({ replay: true });
  const files = [];
  let matrix = null;
  for (const name of await vectorFiles()) {
    const res = await fetch(new URL(name, VECTORS), { cache: 'no-store' });
    if (!res.ok) throw new Error(`${name}: HTTP ${res.status}`);
    const body = await res.json();
    if (name === 'bad_input.json') {
      matrix = body; // the bad-input matrix: a table of rows, turned into vectors below
      continue;
    }
    if (!Array.isArray(body.vectors)) throw new Error(`${name}: no "vectors" array`);
    files.push({ name, vectors: body.vectors });
  }
  // The behaviour vectors live in a subfolder (the listing above shows only this folder's files).
  for (const name of ['behavior/behavior.json']) {
    const res = await fetch(new URL(name, VECTORS), { cache: 'no-store' });
    if (!res.ok) throw new Error(`${name}: HTTP ${res.status}`);
    files.push({ name, vectors: (await res.json()).vectors });
  }
  if (matrix) files.push({ name: 'bad_input.json', vectors: matrixVectors(matrix, files) });
  const tbody = $('#files tbody');
  const started = performance.now();
  const out = await runAll(api, files, {
    onProgress(row) {
      const tr = document.createElement('tr');
      for (const v of [row.file, row.total, row.passed, row.failed, row.skipped]) {
        const td = document.createElement('td');
        td.textContent = String(v);
        tr.append(td);
      }
      tbody.append(tr);
    },
  });
  out.ms = Math.round(performance.now() - started);
  out.userAgent = navigator.userAgent;
  $('#coverage').textContent = Object.entries(out.coverage)
    .map(([k, m]) => `${k}: ${Object.entries(m).map(([n, c]) => `${n} ${c}`).join(', ') || 'none'}`)
    .join('\n');
  $('#failures').textContent = out.failures.length
    ? out.failures.map((f) => `${f.file}: ${f.name}\n  ${f.errors.join('\n  ')}`).join('\n\n')
    : 'none';
  finish(out.failed === 0 ? 'pass' : 'fail', `${out.passed} of ${out.total} vectors passed, ${out.failed} failed (${out.skipped} not for JS) in ${out.ms} ms`, out);
}

main().catch((err) => {
  $('#failures').textContent = String(err?.stack ?? err);
  finish('error', `the runner could not start: ${err?.message ?? err}`, { error: String(err?.message ?? err), total: 0, passed: 0, failed: 0 });
});
