// Random loop histories and thresholds for the behaviour detectors, shared by the vector
// generator (gen_behavior.mjs) and the live differential test (tests/node/behavior.test.mjs):
// upstream's iteration objects biased towards one detection each (`profile`), with unknown
// fields, keys the detectors ignore, array-index error strings (Object.entries order), Unicode
// and JavaScript's white space in the texts. `r` is a PRNG of ../common.mjs.
const ERRORS = ['timeout', '404', '12', '0', '007', '4294967295', 'TypeError: cannot read x', 'build failed', 'E_FAIL'];
const FILES = ['src/a.js', 'src/b.js', 'src/c.js', 'test/a.test.js', 'README.md'];
const WORDS = ['fix', 'the', 'failing', 'login', 'tests', 'refactor', 'parser', 'Straße', 'ΟΔΟΣ', 'Élan', 'naïve', 'cache', 'docs'];
const SPACES = [' ', ' ', ' ', '  ', '\t', '\n', '\u00a0', '\u3000', '\ufeff', '\u0085'];
const BLOCKERS = ['flaky CI', 'missing credentials', 'unclear spec', 'merge conflict'];

function sentence(r, words, n) {
  let out = r.chance(0.1) ? r.pick(SPACES) : '';
  for (let i = 0; i < n; i++) out += (i > 0 ? r.pick(SPACES) : '') + (r.chance(0.2) ? r.pick(words).toUpperCase() : r.pick(words));
  return out + (r.chance(0.1) ? r.pick(SPACES) : '');
}

// One history of upstream's iteration objects, biased towards `profile`.
export function history(r, profile) {
  const length = profile === 'burn' ? r.int(4, 16) : r.int(1, 12);
  const objectiveWords = [r.pick(WORDS), r.pick(WORDS), r.pick(WORDS), r.pick(WORDS)];
  const objective = r.chance(0.1) ? '' : sentence(r, objectiveWords, r.int(1, 5));
  const maxIterations = profile === 'burn' ? r.int(1, 6) : r.int(1, 14);
  const stuckError = r.pick(ERRORS);
  const altA = [FILES[0], FILES[1]];
  const altB = r.chance(0.5) ? [FILES[2]] : [FILES[2], FILES[3]];
  let completion = r.chance(0.5) ? 0 : r.round(r.next() * 0.6, 2);
  let coverage = r.int(60, 95);
  let passing = r.chance(0.7);
  const out = [];
  for (let i = 0; i < length; i++) {
    const it = {};
    if (r.chance(0.7)) it.number = r.chance(0.1) ? 0 : i + 1;
    if (r.chance(0.15)) it.output = `iteration ${i} output`; // not read by the detectors
    if (i === 0 || r.chance(0.2)) {
      it.context = {};
      if (r.chance(0.85)) it.context.objective = objective;
      if (r.chance(profile === 'burn' ? 0.95 : 0.6)) it.context.maxIterations = maxIterations;
      if (r.chance(0.2)) it.context.task = 'ignored';
    }
    if (r.chance(0.95)) {
      const a = {};
      // errors
      const repeat = profile === 'stuck' ? r.chance(0.85) : r.chance(0.35);
      const message = repeat ? stuckError : r.chance(0.5) ? r.pick(ERRORS) : '';
      if (message !== '' || r.chance(0.3)) {
        if (r.chance(0.5)) a.failureClass = message;
        else {
          if (r.chance(0.3)) a.failureClass = '';
          a.error = message;
        }
      }
      if (r.chance(0.5)) a.blockers = Array.from({ length: r.int(0, 3) }, () => r.pick(BLOCKERS));
      // progress
      if (r.chance(profile === 'stuck' ? 0.9 : 0.75)) {
        const step = profile === 'stuck' ? r.pick([0, 0, 0.001, 0.01, -0.005]) : r.pick([0, 0.01, 0.05, 0.1, -0.02]);
        completion = Math.min(1, Math.max(0, r.round(completion + step, 3)));
        a.completionPercentage = r.chance(0.05) ? r.round(completion * 100, 1) : completion;
      }
      // files
      if (r.chance(profile === 'oscillation' ? 0.95 : 0.6)) {
        if (profile === 'oscillation') a.artifactsModified = (i % 2 === 0 ? altA : altB).slice();
        else a.artifactsModified = Array.from({ length: r.int(0, 3) }, () => r.pick(FILES));
        if (r.chance(0.1)) a.artifactsModified.push(a.artifactsModified[0] ?? FILES[4]);
      }
      // learnings
      if (r.chance(0.8)) {
        const words = profile === 'deviation' && r.chance(0.8) ? WORDS.filter((w) => !objectiveWords.includes(w)) : WORDS;
        a.learnings = r.chance(0.05) ? '' : sentence(r, words.length > 0 ? words : WORDS, r.int(1, 8));
      }
      // tests and coverage
      if (r.chance(profile === 'regression' ? 0.9 : 0.5)) {
        passing = profile === 'regression' ? !passing : r.chance(0.7);
        a.testsPassing = passing;
      }
      if (r.chance(profile === 'regression' ? 0.9 : 0.5)) {
        coverage = Math.max(0, Math.min(100, coverage + r.pick([0, 2, -3, -10, -12.5, -25])));
        a.coveragePercent = r.chance(0.05) ? 0 : coverage;
      }
      if (r.chance(0.1)) a.qualityScore = r.int(0, 100); // not read by the detectors
      it.analysis = a;
    }
    out.push(it);
  }
  return out;
}

// Random thresholds: upstream's (undefined), or groups given whole or in part.
export function thresholds(r) {
  if (r.chance(0.55)) return undefined;
  const groups = {
    stuck: () => ({ sameErrorCount: r.int(1, 5), noProgressIterations: r.int(1, 8) }),
    oscillation: () => ({ undoRedoCycles: r.int(1, 3), fileChurnThreshold: r.pick([0, 0.5, 0.8, 1]) }),
    deviation: () => ({ objectiveSimilarity: r.pick([0, 0.25, 0.5, 0.75, 1]), scopeCreepRatio: 2 }),
    resource: () => ({ costMultiplier: 3, iterationMultiplier: r.pick([0.5, 1, 1.5, 2, 3]) }),
    regression: () => ({ testPassToFail: r.chance(0.5), coverageDropPercent: r.pick([0, 5, 10, 20]) }),
  };
  const out = {};
  for (const [name, make] of Object.entries(groups)) {
    if (!r.chance(0.4)) continue;
    const full = make();
    const keys = Object.keys(full).filter(() => r.chance(0.7));
    out[name] = Object.fromEntries(keys.map((k) => [k, full[k]]));
  }
  return { thresholds: out };
}


/** The profiles `history` biases towards. */
export const PROFILES = ['stuck', 'oscillation', 'deviation', 'burn', 'regression', 'mixed'];
