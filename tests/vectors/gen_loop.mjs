// loop_reference.json: EarlyStopping decisions through the reference.
import { prng, rec, stop, call, recordAndAsk, ts } from './gen_util.mjs';

const R = 'reference';
const ES = (name, config, calls, extra = {}) => ({ name, engine: 'EarlyStopping', source: R, construct: { config, analytics: null }, calls, ...extra });
const tail = () => [call('getStoppingReason'), call('getStoppingDetails'), call('generateSummary'), call('getIterationHistory')];
const noDR = { enableDiminishingReturns: true };

function targeted() {
  const v = [];
  v.push(ES('empty history: no iterations completed yet', null, [stop(1), call('getStoppingReason'), call('getStoppingDetails'), call('generateSummary'), call('getConfig'), call('getIterationHistory')]));
  v.push(ES('seed defaults: getConfig returns the documented defaults (0.02 = 2%)', {}, [call('getConfig')]));
  v.push(ES('seed example: high confidence 0.96 with verification passed stops', null, [rec(1, 85, 0.96), stop(1), ...tail()]));
  v.push(ES('seed example: quality plateau of 3 iterations under 2%', null, recordAndAsk([[80, 0.8, 'passed', 0], [80.5, 0.8, 'passed', 0.5], [81, 0.8, 'passed', 0.5]]).concat(tail())));
  // high confidence boundaries
  v.push(ES('high confidence exactly at the threshold 0.95 stops', null, [rec(1, 80, 0.95), stop(1), ...tail()]));
  v.push(ES('high confidence just below the threshold does not stop', null, [rec(1, 80, 0.9499999999999999), stop(1), ...tail()]));
  v.push(ES('quality exactly at minQualityThreshold 70 with high confidence stops', null, [rec(1, 70, 0.99), stop(1), ...tail()]));
  v.push(ES('quality just below minQualityThreshold does not stop', null, [rec(1, 69.99, 0.99), stop(1), ...tail()]));
  v.push(ES('high confidence at a custom threshold 0.8 and minQuality 50', { highConfidenceThreshold: 0.8, minQualityThreshold: 50 }, [rec(1, 50, 0.8), stop(1), ...tail()]));
  v.push(ES('threshold 0 and minQuality 0: any record stops', { highConfidenceThreshold: 0, minQualityThreshold: 0 }, [rec(1, 0, 0), stop(1), ...tail()]));
  v.push(ES('threshold 1 needs confidence exactly 1', { highConfidenceThreshold: 1 }, [rec(1, 90, 0.999), stop(1), rec(2, 90, 1, 'passed', 0), stop(2), ...tail()]));
  v.push(ES('requireVerification false: failed verification still stops ("reached")', { requireVerification: false }, [rec(1, 90, 0.97, 'failed'), stop(1), ...tail()]));
  v.push(ES('requireVerification false: skipped verification stops without verification_status in details', { requireVerification: false }, [rec(1, 75, 0.95, 'skipped'), stop(1), ...tail()]));
  for (const st of ['failed', 'skipped']) {
    v.push(ES(`verification ${st} with high confidence falls through to continuing`, null, [rec(1, 90, 0.99, st), stop(1), ...tail()]));
    v.push(ES(`verification ${st} with high confidence falls through to a plateau`, null, recordAndAsk([[90, 0.99, st, 0], [90, 0.99, st, 0], [90, 0.99, st, 0]]).concat(tail())));
  }
  v.push(ES('high confidence checks only the last record', null, [rec(1, 90, 0.99), rec(2, 90, 0.5, 'passed', 0), stop(2), ...tail()]));
  // plateau boundaries
  v.push(ES('plateau: improvement exactly at the threshold is not a plateau', null, recordAndAsk([[50, 0.5, 'passed', 0], [51, 0.5, 'passed', 1], [52.02, 0.5, 'passed', 1.02]]).concat(tail())));
  v.push(ES('plateau: 1/50 = 0.02 exactly at threshold is not a plateau', null, recordAndAsk([[50, 0.5, 'passed', 0], [50, 0.5, 'passed', 1], [50, 0.5, 'passed', 1]]).concat(tail())));
  v.push(ES('plateau: just below the threshold is a plateau', null, recordAndAsk([[50, 0.5, 'passed', 0], [50, 0.5, 'passed', 0.9999], [50, 0.5, 'passed', 0.9999]]).concat(tail())));
  v.push(ES('plateau: negative deltas count by absolute value', null, recordAndAsk([[60, 0.5, 'failed', 0], [60, 0.5, 'failed', -0.5], [60, 0.5, 'failed', -0.5]]).concat(tail())));
  v.push(ES('plateau: large negative delta breaks the plateau', null, recordAndAsk([[60, 0.5, 'failed', 0], [60, 0.5, 'failed', -10], [60, 0.5, 'failed', 0]]).concat(tail())));
  v.push(ES('plateau: zero previous score counts as 0 improvement', null, recordAndAsk([[0, 0.1, 'failed', 0], [0, 0.1, 'failed', 50], [0, 0.1, 'failed', 50]]).concat(tail())));
  v.push(ES('plateau: zero previous score with large delta still a plateau', null, recordAndAsk([[10, 0.1, 'failed', 0], [0, 0.1, 'failed', -10], [0, 0.1, 'failed', 99]]).concat(tail())));
  v.push(ES('plateau: uses reported quality_delta, not the score difference', null, recordAndAsk([[10, 0.2, 'failed', 0], [40, 0.2, 'failed', 0], [90, 0.2, 'failed', 0]]).concat(tail())));
  v.push(ES('plateau: reported delta large while scores flat is no plateau', null, recordAndAsk([[70, 0.2, 'failed', 0], [70, 0.2, 'failed', 5], [70, 0.2, 'failed', 5]]).concat(tail())));
  v.push(ES('plateau disabled: flat scores continue', { enablePlateauDetection: false }, recordAndAsk([[70, 0.5, 'passed', 0], [70, 0.5, 'passed', 0], [70, 0.5, 'passed', 0], [70, 0.5, 'passed', 0]]).concat(tail())));
  v.push(ES('plateau with count 2 fires on the second record', { plateauConsecutiveCount: 2 }, recordAndAsk([[70, 0.5, 'passed', 0], [70.5, 0.5, 'passed', 0.5]]).concat(tail())));
  v.push(ES('plateau with count 5 needs 5 records', { plateauConsecutiveCount: 5 }, recordAndAsk([[70, 0.5], [70, 0.5], [70, 0.5], [70, 0.5], [70, 0.5]]).concat(tail())));
  v.push(ES('plateau window slides over the last N records', null, recordAndAsk([[10, 0.5, 'failed', 0], [50, 0.5, 'failed', 40], [50.1, 0.5, 'failed', 0.1], [50.2, 0.5, 'failed', 0.1]]).concat(tail())));
  v.push(ES('plateau average quality is not rounded', null, recordAndAsk([[33.3, 0.5, 'failed', 0], [33.4, 0.5, 'failed', 0.1], [33.4, 0.5, 'failed', 0]]).concat(tail())));
  v.push(ES('plateau threshold 0: nothing is a plateau', { plateauImprovementThreshold: 0 }, recordAndAsk([[70, 0.5], [70, 0.5], [70, 0.5]]).concat(tail())));
  v.push(ES('plateau threshold 1: everything under 100% is a plateau', { plateauImprovementThreshold: 1 }, recordAndAsk([[10, 0.5, 'failed', 0], [19, 0.5, 'failed', 9], [34, 0.5, 'failed', 15]]).concat(tail())));
  // toFixed / template cases
  for (const [c, thr] of [[0.9549999, 0.9], [0.0625, 0.05], [0.0125, 0.01], [0.95049, 0.9], [0.99949, 0.9], [0.99951, 0.9], [0.12345, 0.1], [0.5005, 0.5], [0.333333, 0.3], [0.0005, 0]]) {
    v.push(ES(`toFixed: high confidence ${c} prints rounded to one decimal`, { highConfidenceThreshold: thr, minQualityThreshold: 0 }, [rec(1, 50, c), stop(1)]));
  }
  for (const t of [0.07, 0.025, 0.015, 0.005, 0.145, 0.035, 0.001, 0.0049, 0.055, 0.3, 0.285, 0.994, 0.995]) {
    v.push(ES(`toFixed: plateau threshold ${t} prints as a whole percent`, { plateauImprovementThreshold: t }, recordAndAsk([[70, 0.5, 'failed', 0], [70, 0.5, 'failed', 0], [70, 0.5, 'failed', 0]])));
  }
  // persistence of reason/details
  v.push(ES('stopping reason persists after a later non-stop decision', null, [rec(1, 90, 0.99), stop(1), rec(2, 50, 0.3, 'failed', -40), stop(2), ...tail()]));
  v.push(ES('stopping details change when a different trigger fires later', null, [rec(1, 90, 0.99), stop(1), rec(2, 90, 0.5, 'failed', 0), rec(3, 90, 0.5, 'failed', 0), stop(3), ...tail()]));
  v.push(ES('generateSummary also sets the stopping reason', null, [rec(1, 90, 0.99), call('getStoppingReason'), call('generateSummary'), call('getStoppingReason'), call('getStoppingDetails')]));
  // configure / reset
  v.push(ES('configure mid-run lowers the confidence threshold', null, [rec(1, 80, 0.9), stop(1), call('configure', { highConfidenceThreshold: 0.85 }), stop(1), call('getConfig'), ...tail()]));
  v.push(ES('configure mid-run disables plateau detection', null, [...recordAndAsk([[70, 0.5], [70, 0.5], [70, 0.5]]), call('configure', { enablePlateauDetection: false }), stop(3), call('getConfig'), ...tail()]));
  v.push(ES('configure with an empty object changes nothing', { plateauConsecutiveCount: 4 }, [call('configure', {}), call('getConfig')]));
  v.push(ES('configure twice merges over the current config', null, [call('configure', { minQualityThreshold: 90 }), call('configure', { requireVerification: false }), call('getConfig'), rec(1, 85, 0.99, 'failed'), stop(1)]));
  v.push(ES('configure requireVerification false mid-run', null, [rec(1, 80, 0.99, 'skipped'), stop(1), call('configure', { requireVerification: false }), stop(1), ...tail()]));
  v.push(ES('reset clears history, reason and details but keeps config', { plateauConsecutiveCount: 2 }, [rec(1, 90, 0.99), stop(1), call('reset'), call('getStoppingReason'), call('getStoppingDetails'), call('getIterationHistory'), call('getConfig'), stop(1), call('generateSummary')]));
  v.push(ES('reset then record again from iteration 1', null, [rec(1, 90, 0.99), stop(1), call('reset'), rec(1, 60, 0.5, 'failed', 0), stop(1), ...tail()]));
  v.push(ES('shouldStop ignores its argument', null, [rec(1, 90, 0.99), call('shouldStop', 42), call('shouldStop'), call('shouldStop', 'x')]));
  v.push(ES('non-contiguous iteration numbers are kept verbatim', null, [rec(5, 60, 0.5, 'failed', 0), rec(9, 60, 0.5, 'failed', 0), rec(2, 60, 0.5, 'failed', 0), stop(2), ...tail()]));
  v.push(ES('repeated iteration numbers are kept verbatim', null, [rec(1, 60, 0.5, 'failed', 0), rec(1, 61, 0.5, 'failed', 1), call('getIterationHistory')]));
  v.push(ES('timestamps in every RFC 3339 form are stored verbatim', null, [
    rec(1, 60, 0.5, 'failed', 0, { timestamp: '2026-01-01T00:00:00Z' }), rec(2, 60, 0.5, 'failed', 0, { timestamp: '2026-01-01t00:00:01z' }),
    rec(3, 60, 0.5, 'failed', 0, { timestamp: '2026-06-30T23:59:60+02:00' }), rec(4, 60, 0.5, 'failed', 0, { timestamp: '2026-01-01T00:00:02.123456789-05:30' }),
    call('getIterationHistory')]));
  v.push(ES('summary after a stop lists details; after a non-stop omits them', null, [rec(1, 40, 0.3, 'failed', 0), call('generateSummary'), rec(2, 90, 0.99, 'passed', 50), call('generateSummary')]));
  v.push(ES('enableDiminishingReturns without a source changes nothing', { enableDiminishingReturns: false }, [rec(1, 60, 0.5, 'failed', 0), stop(1), ...tail()]));
  v.push(ES('fractional and extreme scores: 100 and 0', null, [rec(1, 100, 1), stop(1), rec(2, 0, 0, 'failed', -100), stop(2), ...tail()]));
  v.push(ES('negative zero delta is kept', null, [rec(1, 60, 0.5, 'failed', { $num: '-0' }), call('getIterationHistory')]));
  return v;
}

// Diminishing returns through scripted outside sources (source: hand).
function drVectors() {
  const v = [];
  const H = (name, config, script, calls) => ({ name, engine: 'EarlyStopping', source: 'hand', noThrow: true, construct: { config, analytics: { script } }, calls });
  const no = (reason = 'No diminishing returns detected') => ({ detected: false, iteration: null, reason });
  const yes = (it, reason = '2 consecutive iterations with <5% improvement') => ({ detected: true, iteration: it, reason });
  v.push(H('diminishing returns: detected on the first ask', null, [yes(1)], [rec(1, 60, 0.5, 'failed', 0), stop(1), call('getStoppingReason'), call('getStoppingDetails')]));
  v.push(H('diminishing returns: source asked once per shouldStop', null, [no(), no(), yes(3)], recordAndAsk([[50, 0.5, 'failed', 0], [60, 0.5, 'failed', 10], [70, 0.5, 'failed', 10]]).concat([call('getStoppingDetails')])));
  v.push(H('diminishing returns: not asked on an empty history', null, [yes(1)], [stop(1), rec(1, 60, 0.5, 'failed', 0), stop(1)]));
  v.push(H('diminishing returns: not asked when high confidence stops', null, [yes(1)], [rec(1, 90, 0.99), stop(1), rec(2, 50, 0.3, 'failed', -40), stop(2)]));
  v.push(H('diminishing returns: not asked once a plateau stops', null, [no(), no(), yes(1)], recordAndAsk([[20, 0.5, 'failed', 0], [20, 0.5, 'failed', 0], [20, 0.5, 'failed', 0]])));
  v.push(H('diminishing returns: disabled means the source is never asked', { enableDiminishingReturns: false }, [yes(1)], recordAndAsk([[20, 0.5, 'failed', 0], [40, 0.5, 'failed', 20]])));
  v.push(H('diminishing returns: iteration may be absent', null, [{ detected: true, reason: 'outside says so' }], [rec(1, 60, 0.5, 'failed', 0), stop(1), call('getStoppingDetails')]));
  v.push(H('diminishing returns: iteration null while detected', null, [{ detected: true, iteration: null, reason: 'r' }], [rec(1, 60, 0.5, 'failed', 0), stop(1), call('getStoppingDetails')]));
  v.push(H('diminishing returns: reason text passes through verbatim', null, [no('custom 1'), yes(7, '3 consecutive iterations with <7.000000000000001% improvement')], recordAndAsk([[50, 0.5, 'failed', 0], [60, 0.5, 'failed', 10]]).concat([call('getStoppingReason')])));
  v.push(H('diminishing returns: generateSummary asks the source too', null, [no(), yes(2)], [rec(1, 50, 0.5, 'failed', 0), stop(1), rec(2, 60, 0.5, 'failed', 10), call('generateSummary'), call('getStoppingReason')]));
  v.push(H('diminishing returns: reason persists after the source stops detecting', null, [yes(1), no()], [rec(1, 50, 0.5, 'failed', 0), stop(1), rec(2, 70, 0.5, 'failed', 20), stop(2), call('getStoppingReason'), call('getStoppingDetails')]));
  v.push(H('diminishing returns: configure disables and re-enables the source', null, [yes(1), yes(1)], [rec(1, 50, 0.5, 'failed', 0), call('configure', { enableDiminishingReturns: false }), stop(1), call('configure', { enableDiminishingReturns: true }), stop(1)]));
  v.push(H('diminishing returns: plateau disabled lets the source decide on flat scores', { enablePlateauDetection: false }, [no(), no(), yes(3)], recordAndAsk([[70, 0.5, 'failed', 0], [70, 0.5, 'failed', 0], [70, 0.5, 'failed', 0]])));
  v.push(H('diminishing returns: verification failed with high confidence falls through to the source', null, [yes(1)], [rec(1, 95, 0.99, 'failed', 0), stop(1)]));
  v.push(H('diminishing returns: reset keeps the source', null, [yes(1), yes(1)], [rec(1, 50, 0.5, 'failed', 0), stop(1), call('reset'), stop(1), rec(1, 50, 0.5, 'failed', 0), stop(1)]));
  return v;
}

function randomConfig(r) {
  const c = {};
  if (r.chance(0.4)) c.highConfidenceThreshold = r.pick([0.5, 0.7, 0.8, 0.9, 0.95, 0.99, r.round(r.next(), 3)]);
  if (r.chance(0.4)) c.plateauConsecutiveCount = r.int(2, 5);
  if (r.chance(0.4)) c.plateauImprovementThreshold = r.pick([0.01, 0.02, 0.05, 0.07, 0.1, 0.015, r.round(r.next() * 0.2, 3)]);
  if (r.chance(0.4)) c.minQualityThreshold = r.pick([0, 50, 60, 70, 80, 90, r.int(0, 100)]);
  if (r.chance(0.25)) c.requireVerification = r.chance(0.5);
  if (r.chance(0.25)) c.enablePlateauDetection = r.chance(0.5);
  if (r.chance(0.15)) c.enableDiminishingReturns = r.chance(0.5);
  return r.chance(0.1) ? null : c;
}

function randomSequences(count, seed) {
  const r = prng(seed);
  const v = [];
  for (let n = 0; n < count; n++) {
    const cfg = randomConfig(r);
    const len = r.int(1, 10);
    const style = r.pick(['plateau', 'climb', 'noisy', 'confident']);
    let q = r.pick([0, 20, 40, 55, 70, 85, r.int(0, 100)]);
    const calls = [];
    for (let i = 1; i <= len; i++) {
      const prev = q;
      if (style === 'plateau') q = Math.min(100, Math.max(0, r.round(q + (r.next() - 0.5) * 2, 2)));
      else if (style === 'climb') q = Math.min(100, r.round(q + r.next() * 15, 1));
      else q = Math.min(100, Math.max(0, r.round(q + (r.next() - 0.5) * 30, r.int(0, 3))));
      const c = style === 'confident' ? r.round(0.85 + r.next() * 0.15, r.int(2, 4)) : r.round(r.next(), r.int(1, 4));
      const st = r.pick(['passed', 'passed', 'failed', 'skipped']);
      const d = i === 1 ? 0 : (r.chance(0.8) ? r.round(q - prev, 6) : r.round((r.next() - 0.5) * 4, 2));
      calls.push(rec(i, q, c, st, d));
      if (r.chance(0.8) || i === len) calls.push(stop(i));
      if (r.chance(0.1)) calls.push(call('getStoppingReason'));
    }
    calls.push(call('getStoppingReason'), call('getStoppingDetails'));
    if (r.chance(0.5)) calls.push(call('generateSummary'));
    if (r.chance(0.3)) calls.push(call('getIterationHistory'));
    v.push(ES(`random sequence ${String(n).padStart(3, '0')} (${style}, ${len} iterations)`, cfg, calls));
  }
  return v;
}

export function loopReference() {
  return [...targeted(), ...drVectors(), ...randomSequences(160, 0x5eed0001)];
}
export { ts };
