// The shadow-mode report: loads a receipt log (JSONL, one receipt per line, as
// `appendReceipts` / `earlyexit pyramid result --receipts` write it; docs/test-exit.md),
// verifies its hash chain with `verifyReceipts`, and shows where it breaks, the receipts by
// label and, per slice (the receipts' policy, then their run label), the false-pass and needless-run rates with
// their Wilson 95% intervals. Every figure comes from earlyexit; this file reads the file and
// fills the table. Like the replay view it fetches the replay module on the first file.

const $ = (sel) => document.querySelector(sel);
const state = { ee: null };

const pct = (x) => (x === null || x === undefined ? '–' : `${(x * 100).toFixed(1)}%`);
const interval = (w) => (w ? `[${pct(w[0])}, ${pct(w[1])}]` : '–');
const rateText = (r) => `${r.count}/${r.of} = ${pct(r.rate)} ${interval(r.wilson)}`;

function cell(text) {
  const td = document.createElement('td');
  td.textContent = text;
  return td;
}

async function show(file) {
  const view = $('#shadow-view');
  const box = $('#shadow-error');
  try {
    const text = await file.text();
    view.dataset.replayModule = 'loading';
    await state.ee.init({ replay: true });
    view.dataset.replayModule = 'loaded';
    const check = state.ee.verifyReceipts(text);
    box.hidden = true;
    $('#shadow-results').hidden = false;
    const chain = check.valid
      ? `chain valid: ${check.receipts} receipts, head ${check.head ?? '(empty log)'}`
      : `chain BROKEN at line ${check.brokenAt.line} (${check.brokenAt.field}): ${check.brokenAt.reason}; `
        + `${check.receipts} receipts before it verify, nothing after it is counted`;
    $('#shadow-chain').textContent = chain;
    $('#shadow-chain').className = check.valid ? 'replay-summary' : 'error';
    const rows = [['all receipts', check.receipts, check.labels, check.rates]]
      .concat(check.slices.map((s) => [s.slice, s.receipts, s.labels, s.rates]))
      .concat((check.labelSlices ?? []).map((s) => [`label ${s.runLabel}`, s.receipts, s.labels, s.rates]))
      .map(([slice, n, labels, rates]) => {
        const tr = document.createElement('tr');
        tr.append(
          cell(slice),
          cell(String(n)),
          cell(String(labels.correct_skip ?? 0)),
          cell(String(labels.false_pass ?? 0)),
          cell(String(labels.needless_run ?? 0)),
          cell(rateText(rates.falsePass)),
          cell(rateText(rates.needlessRun)),
        );
        return tr;
      });
    $('#shadow-table tbody').replaceChildren(...rows);
  } catch (err) {
    box.hidden = false;
    const where = err?.field ? ` [${err.code}: ${err.field}]` : '';
    box.textContent = `Could not read ${file.name}${where}: ${err?.message ?? err}`;
    $('#shadow-results').hidden = true;
  }
  view.dataset.shown = String(Number(view.dataset.shown ?? 0) + 1);
}

async function boot() {
  const view = $('#shadow-view');
  try {
    const mod = await import('earlyexit-wasm');
    await mod.init();
    state.ee = mod;
  } catch {
    view.dataset.ready = 'false';
    return;
  }
  $('#shadow-file').addEventListener('change', (e) => {
    const file = e.target.files?.[0];
    if (file) show(file);
  });
  view.dataset.ready = 'true';
}

boot();
