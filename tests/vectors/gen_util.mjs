// Helpers shared by the generator modules: a seeded PRNG (from common.mjs), record builders and
// `finalize`, which runs a vector spec through driver.mjs and writes the
// observed results into it (checking any expectation written by hand first).

import { evaluate, checkVector } from './driver.mjs';
import { encode, decode, compare } from './common.mjs';

export { prng } from './common.mjs';

export const ts = (i) => {
  const s = 1000 + i;
  const hh = String(Math.floor(s / 3600) % 24).padStart(2, '0');
  const mm = String(Math.floor(s / 60) % 60).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return `2026-01-01T${hh}:${mm}:${ss}.000Z`;
};

// An iteration result with a fixed timestamp.
export const res = (q, c, v = 'passed', d = 0, extra = {}) =>
  ({ quality_score: q, confidence: c, verification_status: v, quality_delta: d, timestamp: extra.timestamp ?? ts(0), ...extra });

export const rec = (i, q, c, v = 'passed', d = 0, extra = {}) =>
  ({ call: 'recordIterationResult', args: [i, { ...res(q, c, v, d, extra), timestamp: extra.timestamp ?? ts(i) }] });
export const stop = (i = 1) => ({ call: 'shouldStop', args: [i] });
export const call = (name, ...args) => ({ call: name, args });

// Records a list of [q, c, v, d] and asks shouldStop after each.
export function recordAndAsk(rows, start = 1) {
  const calls = [];
  rows.forEach((r, k) => { calls.push(rec(start + k, ...r)); calls.push(stop(start + k)); });
  return calls;
}

const STRIP = new Set(['expect', 'saveAs', 'noReturn', 'noThrow']);

// Runs the spec, fills returns/throws/runnerCalls/analyticsCalls. A call may
// carry `expect: {returns}|{throws}` written by hand: it must agree with the
// model, or generation fails. Returns the finished vector (JSON-ready).
export async function finalize(spec, ref) {
  const ev = await evaluate(spec, ref);
  const v = { name: spec.name, engine: spec.engine, source: spec.source };
  if (spec.only) v.only = spec.only;
  v.construct = encode(decode(spec.construct ?? {}));
  if (ev.constructThrows) {
    if (spec.expectThrows) {
      const errs = compare(spec.expectThrows, ev.constructThrows);
      if (errs.length) throw new Error(`${spec.name}: hand expectation differs: ${errs.join('; ')}`);
    }
    v.throws = ev.constructThrows;
    v.calls = [];
    return v;
  }
  if (spec.expectThrows) throw new Error(`${spec.name}: constructor did not throw`);
  const hasScript = spec.engine === 'EarlyStopping' && spec.construct?.analytics?.script;
  v.calls = spec.calls.map((c, i) => {
    const r = ev.calls[i];
    const out = {};
    for (const [k, x] of Object.entries(c)) if (!STRIP.has(k) && k !== 'args') out[k] = x;
    out.call = c.call;
    out.args = encode(r.args ?? []);
    if (c.layers) out.layers = c.layers;
    if (r.throws) {
      out.throws = r.throws;
      if (spec.source === 'reference' || spec.noThrow) throw new Error(`${spec.name} call ${i}: unexpected throw ${JSON.stringify(r.throws)}`);
      if (c.expect && !('throws' in c.expect)) throw new Error(`${spec.name} call ${i}: threw ${JSON.stringify(r.throws)}`);
    } else {
      if (c.expect && 'throws' in c.expect) throw new Error(`${spec.name} call ${i}: expected a throw, got ${JSON.stringify(encode(r.full))}`);
      const value = spec.source === 'reference' ? r.ref : r.full;
      if (value !== undefined && !c.noReturn) out.returns = encode(value);
    }
    if (c.expect) {
      const want = c.expect.throws ?? c.expect.returns;
      const got = r.throws ?? (spec.source === 'reference' ? r.ref : r.full);
      const errs = compare(decode(want), got, r.extras ?? new Set());
      if (errs.length) throw new Error(`${spec.name} call ${i}: hand expectation differs: ${errs.join('; ')}`);
      out[c.expect.throws ? 'throws' : 'returns'] = want;
    }
    if (r.runnerCalls) out.runnerCalls = r.runnerCalls;
    if (hasScript && (c.call === 'shouldStop' || c.call === 'generateSummary')) out.analyticsCalls = r.analyticsCalls;
    return out;
  });
  if (hasScript) v.analyticsCalls = ev.analyticsCalls;
  // An analytics vector generated from the reference whose answers the listed deliberate
  // differences changed (driver.mjs, projectClass) is `hand`: the reference alone does not give it.
  if (spec.source === 'reference' && ev.calls.some((r) => r.differs)) v.source = 'hand';
  // self-check: the finished vector must pass the driver's own comparison
  const again = await evaluate(v, ref);
  const errs = checkVector(v, again);
  if (errs.length) throw new Error(`${spec.name}: self-check failed: ${errs.join('; ')}`);
  return v;
}

export async function finalizeAll(specs, ref) {
  const out = [];
  const names = new Set();
  for (const s of specs) {
    if (names.has(s.name)) throw new Error(`duplicate vector name ${s.name}`);
    names.add(s.name);
    out.push(await finalize(s, ref));
  }
  return out;
}
