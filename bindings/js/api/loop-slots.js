// The slot engine's support for EarlyStopping (loop.js): the outside source, the scratch
// buffer's timestamp bytes and sizes, the validated configs and the reason strings cached per
// value, and the decision object built from the output slots.

import {
  CODE_BUDGET, CODE_CONTINUE, CODE_DIMINISHING, CODE_GO_ON, CODE_HIGH_CONFIDENCE, CODE_INVALID_REPORT,
  CODE_MAX_ITERATIONS, CODE_NO_IMPROVEMENT, CODE_NO_ITERATIONS, CODE_PLATEAU, CODE_REGRESSION, CODE_TRIGGER,
  CODE_WARM_UP, DELEGATE_NONE, IMPROVEMENT_SLOTS, IN_DELEGATE, IN_DETECTED, IN_REPORT_ITERATION,
  IN_REPORT_ITERATION_KIND, IN_SOURCE, IN_TIMESTAMP, IN_TIMESTAMP_LEN, MAX_FAST_TIMESTAMP, MESSAGES, OBSERVATION_SLOTS, OUT_CONFIDENCE,
  REASON_CONTINUE, REASON_NO_ITERATIONS, REPORT_ITERATION_ABSENT, REPORT_ITERATION_NULL, REPORT_ITERATION_NUMBER,
  SOURCE_REPORT, WINDOW, answerOf, decisionOf, detailsOf,
} from './contract.generated.mjs';
import { AS_CONFIG, AS_REPORT, enc } from './codec.js';
import { fast, scratchView } from './scratch.js';
import { ANALYTICS_SOURCE_ERROR, ES_CONFIG_CHECK, ES_REPORT_CHECK } from './calls.generated.mjs';

// The outside diminishing-returns source: absent, or any object with the method.
export function sourceOf(analytics) {
  if (analytics === null || analytics === undefined) return null;
  if ((typeof analytics === 'object' || typeof analytics === 'function') && typeof analytics.detectDiminishingReturns === 'function') {
    return analytics;
  }
  return ANALYTICS_SOURCE_ERROR(analytics);
}

// The timestamp's bytes in scratch buffer `s` (slots IN_TIMESTAMP on), viewed again
// whenever the scratch view is another (grown, or wasm memory grown).
function timestampBytes(s) {
  if (fast.timestampFor === s) return fast.timestampBytes;
  fast.timestampFor = s;
  return (fast.timestampBytes = new Uint8Array(s.buffer, s.byteOffset + s.BYTES_PER_ELEMENT * IN_TIMESTAMP, MAX_FAST_TIMESTAMP));
}

// Writes `timestamp` into scratch buffer `s` as bytes (the slots' own, through a byte view):
// the core checks it. One that does not fit bytes is sent as too long: the JSON path decides.
export function writeTimestamp(s, timestamp) {
  const bytes = timestampBytes(s);
  const length = timestamp.length;
  let units = 0;
  for (let i = 0; i < length; i++) {
    const unit = timestamp.charCodeAt(i);
    units |= unit;
    bytes[i] = unit;
  }
  s[IN_TIMESTAMP_LEN] = units < 256 ? length : MAX_FAST_TIMESTAMP + 1;
}

// Slots needed to fold one more observation into a window of `len` (state, then the
// plateau's improvements after it).
export const slotsFor = (len) => WINDOW + (OBSERVATION_SLOTS + IMPROVEMENT_SLOTS) * (len + 2);

// A validated config: its object (as getConfig() returns it), its slots, and reason
// strings cached per value. Shared by every engine with the same config.
export const configs = new Map();
export const CACHE_ENTRIES = 64; // per cache (configs, and each config's reason caches)
const CACHE_TEXT = 256; // longer reasons are not cached
function configEntry(key, answer) {
  const [value, slots] = answer;
  return { key, value, slots: Float64Array.from(slots), highConfidence: new Map(), maxIterations: new Map(), plateau: null };
}
export function configFor(config) {
  const key = config === undefined || config === null ? 'null' : enc(config, AS_CONFIG);
  let entry = configs.get(key);
  if (entry === undefined) {
    entry = configEntry(key, ES_CONFIG_CHECK('null', key, 'config'));
    if (configs.size >= CACHE_ENTRIES) configs.clear();
    configs.set(key, entry);
  }
  return entry;
}

// Reason strings are cached per value (per config, and module-wide for an outside source's
// reasons), so a repeated decision costs no native call. Bounded in entries and in length:
// a source's reason can be any size, and the caches outlive the engines that filled them.
export const drReasons = new Map();
function cached(map, key, make) {
  let text = map.get(key);
  if (text === undefined) {
    text = make();
    if (text.length > CACHE_TEXT) return text;
    if (map.size >= CACHE_ENTRIES) map.clear();
    map.set(key, text);
  }
  return text;
}
const fetchReason = () => native.fastReason();

// The decision for the code the core answered (its numbers in the output slots of the scratch
// buffer), over `config` (configFor's entry); `answer`: a check method's answer (no extras).
export function slotDecision(code, report, answer, config) {
  const s = scratchView();
  const confidence = s[OUT_CONFIDENCE];
  let stop = true;
  let reason;
  let details; // the stop's, from the detail slots (detailsOf, generated from the core's keys)
  switch (code) {
    case CODE_NO_ITERATIONS:
      stop = false;
      reason = REASON_NO_ITERATIONS;
      break;
    case CODE_CONTINUE:
      stop = false;
      reason = REASON_CONTINUE;
      break;
    case CODE_WARM_UP:
    case CODE_GO_ON:
      stop = false;
      reason = fetchReason();
      break;
    case CODE_HIGH_CONFIDENCE:
      details = detailsOf(code, s, report);
      reason = cached(config.highConfidence, details.confidence, fetchReason);
      break;
    case CODE_PLATEAU:
      details = detailsOf(code, s, report);
      reason = config.plateau === null ? (config.plateau = fetchReason()) : config.plateau;
      break;
    case CODE_DIMINISHING:
      // The source's own values, as the seed copies them (validated by the core).
      details = detailsOf(code, s, report);
      reason = cached(drReasons, report.reason, () => native.fastDiminishingReason(report.reason));
      break;
    case CODE_MAX_ITERATIONS:
      details = detailsOf(code, s, report);
      reason = cached(config.maxIterations, details.iterations, fetchReason);
      break;
    case CODE_BUDGET:
    case CODE_REGRESSION:
    case CODE_NO_IMPROVEMENT:
      details = detailsOf(code, s, report);
      reason = fetchReason();
      break;
    default:
      throw new Error(MESSAGES.INTERNAL_DECISION_CODE(code));
  }
  const trigger = CODE_TRIGGER[code];
  if (answer) return answerOf(stop, reason, confidence, trigger, details);
  return decisionOf(stop, reason, confidence, trigger, details, s);
}

// Decides again with an outside source's report (validated by the core; anything the fast
// path does not take goes to the JSON path for the typed error); `delegate`: IN_DELEGATE;
// `load()` puts the engine's state into the scratch buffer (the source may have used another
// engine meanwhile). `report` is what readReport() made of the source's `answer`.
export function decideWithReport(report, delegate, answer, load) {
  let fastPath = typeof report === 'object' && report !== null && !Array.isArray(report);
  const { detected, reason, iteration: given } = fastPath ? report : {};
  const kind = given === undefined ? REPORT_ITERATION_ABSENT : given === null ? REPORT_ITERATION_NULL : REPORT_ITERATION_NUMBER;
  fastPath = fastPath && typeof detected === 'boolean' && typeof reason === 'string' && (kind !== REPORT_ITERATION_NUMBER || typeof given === 'number');
  if (fastPath) {
    const s = load();
    s[IN_SOURCE] = SOURCE_REPORT;
    s[IN_DETECTED] = detected ? 1 : 0;
    s[IN_REPORT_ITERATION_KIND] = kind;
    s[IN_REPORT_ITERATION] = kind === REPORT_ITERATION_NUMBER ? given : 0;
    s[IN_DELEGATE] = delegate;
    const code = native.fastDecide();
    scratchView()[IN_DELEGATE] = DELEGATE_NONE;
    if (code !== CODE_INVALID_REPORT) return code;
  }
  ES_REPORT_CHECK(enc(report, AS_REPORT, answer));
  throw new Error(MESSAGES.INTERNAL_REPORT_ACCEPTED);
}
