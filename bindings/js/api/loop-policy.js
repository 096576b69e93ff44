// The policy path of EarlyStopping (loop.js): a stop policy checked and cached, and the native
// object that holds it parsed with the config and its state (PolicyPath); what crosses to it
// is counted for the tests.

import { HOST_CODES } from './contract.generated.mjs';
import { AS_REPORT, enc, release, unwrap } from './codec.js';
import { CACHE_ENTRIES, configs, drReasons } from './loop-slots.js';
import { policyRecord, readReport } from './loop-records.js';
import {
  LOOP_POLICY_CHECK, LOOP_POLICY_OPEN, LOOP_POLICY_STEP, LOOP_SHADOW_OPEN, LOOP_SHADOW_STEP,
} from './calls.generated.mjs';

// A stop policy checked and normalized by the core (its wire text), cached per given policy's
// text as configs are: engines made in a loop under one policy check it once.
export const policies = new Map();
const CACHE_POLICY_TEXT = 16_384; // a larger policy is checked per engine
export function checkedPolicy(given) {
  let text = policies.get(given);
  if (text === undefined) {
    const answer = LOOP_POLICY_CHECK(given, null);
    text = answer.charCodeAt(0) === 123 ? answer : enc(unwrap(answer)); // '{': plain JSON as it is
    if (given.length + text.length > CACHE_POLICY_TEXT) return text;
    if (policies.size >= CACHE_ENTRIES) policies.clear();
    policies.set(given, text);
  }
  return text;
}

// What crossed to stop policies' objects (for the tests: the work per decision is counted
// here, not timed): objects opened (a policy parsed and a state made), steps, the records
// they folded, and the characters of their arguments.
const policyTraffic = { opens: 0, steps: 0, records: 0, chars: 0 };
export function policyCounts() {
  return { ...policyTraffic };
}
function stepPolicy(engine, records, report, sourceAttached, count) {
  policyTraffic.steps++;
  policyTraffic.records += count;
  policyTraffic.chars += records.length + report.length + String(sourceAttached).length + 4; // ',' twice, '[' and ']'
  return LOOP_POLICY_STEP(engine, records, report, sourceAttached);
}
function newPolicyEngine() {
  return new native.PolicyEngine();
}

// An engine's stop policy (docs/loop-policies.md): its normalized JSON (`text`), and the native
// object holding it parsed, the config it was opened with and its state, which holds the first
// `folded` history entries (opened again when the config changed or the history was
// rewritten: `config` is then null).
export class PolicyPath {
  constructor(text) {
    this.text = text;
    this.engine = null;
    this.config = null;
    this.folded = 0;
  }

  // A decision over `config` (configFor's entry) and `history`: only the records not folded
  // yet cross (O(the new records)), each as `recordAt(i)` gives it (null: the history's own);
  // the outside `source` (or null) is asked when the core says so.
  decide(config, history, recordAt, source) {
    const engine = this.config === config ? this.engine : this.#open(config);
    const from = this.folded;
    let records = '[';
    for (let i = from; i < history.length; i++) {
      records += (i > from ? ',' : '') + policyRecord(recordAt === null ? history[i] : recordAt(i));
    }
    let answer;
    try {
      answer = unwrap(stepPolicy(engine, records + ']', 'null', source !== null, history.length - from));
    } catch (error) {
      if (error.code !== HOST_CODES.INSTANCE_RESET) throw error;
      // Its wasm instance trapped since: made again from the history (kept by the engine).
      this.engine = null;
      this.config = null;
      return this.decide(config, history, recordAt, source);
    }
    this.folded = history.length;
    if (answer.need_source === true) {
      const raw = source.detectDiminishingReturns();
      const report = enc(readReport(raw), AS_REPORT, raw);
      answer = unwrap(stepPolicy(engine, '[]', report, true, 0));
    }
    return answer;
  }

  // The native object, filled (again) with the policy and the config: a fresh state, nothing
  // folded.
  #open(config) {
    let engine = this.engine;
    if (engine === null) engine = this.engine = newPolicyEngine();
    this.config = null;
    LOOP_POLICY_OPEN(engine, this.text, config.value);
    policyTraffic.opens++;
    this.config = config;
    this.folded = 0;
    return engine;
  }

  // Opened again and folded from the history at the next decision.
  forget() {
    this.config = null;
    this.folded = 0;
  }

  // Releases the native object.
  free() {
    if (this.engine !== null) release(this.engine);
    this.engine = null;
  }
}

// An engine's shadow (docs/lifecycle.md): a candidate policy deciding beside the engine's
// own without stopping it. The native object (a `PolicyEngine`, in the wasm package the
// replay module's) holds the candidate and its state; each decision sends only the records
// not observed yet and answers `would_stop` (or null). `candidate` is the candidate as
// snapshots keep it (`{name, policy, artifactSha256, reason?}`), which the object is opened
// with again after the history was rewritten (the cap was checked when it was given).
export class ShadowPath {
  constructor(engine, candidate, policy, config) {
    this.engine = engine;
    this.candidate = candidate;
    this.policy = policy; // the enforced policy's text ('null': the config's checks)
    this.config = config; // the config value the cap was checked against
    this.observed = 0;
    this.wouldStop = null;
  }

  // Checks `shadow` (as given; `restored`: as a snapshot keeps it) beside the enforced
  // `policy` text ('null' for none) and `config` (a value): typed errors, nothing made.
  static open(shadow, restored, policy, config) {
    const engine = newPolicyEngine();
    try {
      const candidate = LOOP_SHADOW_OPEN(engine, shadow, restored, policy, config, Date.now());
      return new ShadowPath(engine, candidate, policy, config);
    } catch (error) {
      release(engine);
      throw error;
    }
  }

  // Where the candidate would have stopped over `history` (each record as `recordAt(i)`
  // gives it; null: the history's own), or null.
  observe(history, recordAt) {
    let engine = this.engine;
    if (engine === null) {
      engine = this.engine = newPolicyEngine();
      LOOP_SHADOW_OPEN(engine, this.candidate, true, this.policy, this.config, Date.now());
      this.observed = 0;
      this.wouldStop = null;
    }
    const from = this.observed;
    if (from === history.length) return this.wouldStop;
    let records = '[';
    for (let i = from; i < history.length; i++) {
      records += (i > from ? ',' : '') + policyRecord(recordAt === null ? history[i] : recordAt(i));
    }
    let answer;
    try {
      answer = LOOP_SHADOW_STEP(engine, records + ']');
    } catch (error) {
      if (error.code !== HOST_CODES.INSTANCE_RESET) throw error;
      this.forget(); // its wasm instance trapped since: made again from the history
      return this.observe(history, recordAt);
    }
    this.observed = history.length;
    this.wouldStop = answer;
    return answer;
  }

  // Opened again and fed the whole history at the next decision.
  forget() {
    this.free();
  }

  free() {
    if (this.engine !== null) release(this.engine);
    this.engine = null;
    this.observed = 0;
    this.wouldStop = null;
  }
}

// For the tests: how many entries and characters the config, policy and reason caches hold.
export function cacheSizes() {
  const maps = [drReasons];
  for (const entry of configs.values()) maps.push(entry.highConfidence, entry.maxIterations);
  let entries = configs.size;
  let chars = 0;
  for (const map of maps) {
    entries += map.size;
    for (const [key, text] of map) chars += text.length + (typeof key === 'string' ? key.length : 0);
  }
  for (const entry of configs.values()) chars += entry.key.length + (entry.plateau === null ? 0 : entry.plateau.length);
  entries += policies.size;
  for (const [given, text] of policies) chars += given.length + text.length;
  return { entries, chars };
}
