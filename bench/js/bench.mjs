// JS benchmark of earlyexit against the code it replaces, in the same process.
//
//   node bench/js/bench.mjs [--impl native|wasm|both] [--rounds N] [--quick]
//
// Workloads (issue 7):
//   loop     a fresh EarlyStopping, 10 x (recordIterationResult + shouldStop) with varied
//            scores so every trigger fires (high confidence, plateau, diminishing returns
//            from an outside source, none), then generateSummary; 100,000 trajectories.
//   loop-ts  the same with a timestamp in every result, so neither side reads the clock
//            (the seed formats `new Date().toISOString()` per record, which is slow on some
//            machines; ours reads Date.now() and formats on first read of the history).
//   pyramid  EarlyExitController.runWithEarlyExit over 4 layers with synchronous runners
//            (exits, speculation, verification and full runs all occur); 100,000 runs.
// Each is timed for the seed (../shared/reference/early-stopping.mjs and
// early-exit-adr.mjs, loaded at run time, never shipped) and for our package, alternating
// the two sides over several rounds (the machine is shared and noisy). Printed per side:
// the median time per trajectory (run) and the spread (min..max over rounds); then the
// ratio seed/ours (median of the per-round ratios, with its min..max): > 1 means ours is
// faster. An empty JS function call is timed for scale. Output is plain text lines.
//
// The packages must be built first (scripts/build-node.sh, scripts/build-wasm.sh);
// EARLYEXIT_REFERENCE_DIR overrides where the seed files are.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const REFERENCE_DIR = process.env.EARLYEXIT_REFERENCE_DIR ?? path.resolve(ROOT, '..', 'shared', 'reference');
const require = createRequire(import.meta.url);

function parseArgs(argv) {
  const options = { impl: 'both', rounds: 7, quick: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') options.quick = true;
    else if (arg === '--impl') options.impl = argv[++i];
    else if (arg === '--rounds') options.rounds = Number(argv[++i]);
    else if (arg.startsWith('--impl=')) options.impl = arg.slice(7);
    else if (arg.startsWith('--rounds=')) options.rounds = Number(arg.slice(9));
    else {
      console.error(`bench: unknown argument ${arg}\nusage: node bench/js/bench.mjs [--impl native|wasm|both] [--rounds N] [--quick]`);
      process.exit(2);
    }
  }
  if (!['native', 'wasm', 'both'].includes(options.impl)) {
    console.error(`bench: --impl must be native, wasm or both, got ${options.impl}`);
    process.exit(2);
  }
  if (!(Number.isInteger(options.rounds) && options.rounds >= 1)) {
    console.error('bench: --rounds must be an integer >= 1');
    process.exit(2);
  }
  return options;
}

// ---------------------------------------------------------------------------------------
// Workload data, built once and shared by both sides (so object creation by the caller is
// not timed on either side).

// Ten iteration results per trajectory; eight kinds, cycled, so that each trigger fires.
function trajectories() {
  const kinds = [];
  const result = (quality_score, confidence, verification_status, quality_delta) => ({ quality_score, confidence, verification_status, quality_delta });
  // 0: climbs, then high confidence with verification passed at iteration 7.
  kinds.push(Array.from({ length: 10 }, (_, i) => (i === 6 ? result(92, 0.97, 'passed', 4) : result(50 + i * 4, 0.6 + i * 0.03, 'failed', 4))));
  // 1: plateau from iteration 5 on.
  kinds.push(Array.from({ length: 10 }, (_, i) => result(i < 4 ? 40 + i * 10 : 80 + (i - 4) * 0.2, 0.7, 'failed', i < 4 ? 10 : 0.2)));
  // 2: keeps improving (nothing fires until the source reports diminishing returns).
  kinds.push(Array.from({ length: 10 }, (_, i) => result(30 + i * 7, 0.5 + i * 0.02, i % 2 ? 'failed' : 'skipped', 7)));
  // 3: high confidence but verification failed, then passed late.
  kinds.push(Array.from({ length: 10 }, (_, i) => result(75 + i, i < 9 ? 0.96 : 0.99, i < 9 ? 'failed' : 'passed', 1 + (i % 3))));
  // 4: noisy, some regressions.
  kinds.push(Array.from({ length: 10 }, (_, i) => result(60 + ((i * 37) % 23), 0.8, 'skipped', ((i * 37) % 23) - 11)));
  // 5: low quality plateau.
  kinds.push(Array.from({ length: 10 }, (_, i) => result(20 + (i % 2) * 0.1, 0.3, 'failed', (i % 2) * 0.1)));
  // 6: steady climb.
  kinds.push(Array.from({ length: 10 }, (_, i) => result(10 + i * 9, 0.4 + i * 0.05, 'passed', 9)));
  // 7: early high confidence.
  kinds.push(Array.from({ length: 10 }, (_, i) => result(85 + i * 0.5, 0.99, 'passed', 5)));
  return kinds;
}

// An outside diminishing-returns source (the same class on both sides): it reports
// diminishing returns on every third question.
class Source {
  constructor() {
    this.asked = 0;
  }
  detectDiminishingReturns() {
    this.asked++;
    return this.asked % 3 === 0
      ? { detected: true, iteration: this.asked, reason: 'quality gains below 2% for 3 iterations' }
      : { detected: false, iteration: null, reason: 'still improving' };
  }
}

function loopWorkload(EarlyStopping, count, timestamps = false) {
  const kinds = timestamps
    ? trajectories().map((kind) => kind.map((r, i) => ({ ...r, timestamp: `2026-01-01T00:00:0${i}.000Z` })))
    : trajectories();
  return () => {
    let stops = 0;
    for (let t = 0; t < count; t++) {
      const kind = kinds[t & 7];
      const es = (t & 1) === 0 ? new EarlyStopping() : new EarlyStopping(undefined, new Source());
      for (let i = 0; i < 10; i++) {
        es.recordIterationResult(i + 1, kind[i]);
        if (es.shouldStop(i + 1).stop) stops++;
      }
      if (es.generateSummary().stopped_early) stops++;
    }
    return stops;
  };
}

// Four layers with synchronous runners; four layer sets, cycled, so that runs exit early
// with speculation and verification, exit without it, or run every layer.
function layerSets() {
  const layer = (name, passRate, coverage, flakyRatio, costMs) => ({ name, costMs, run: () => ({ passRate, coverage, flakyRatio }) });
  return [
    [layer('unit', 1, 0.95, 0, 100), layer('integration', 0.99, 0.9, 0.01, 1000), layer('e2e', 0.97, 0.8, 0.02, 5000), layer('system', 0.95, 0.7, 0.12, 20000)],
    [layer('unit', 0.7, 0.6, 0.1, 100), layer('integration', 0.75, 0.65, 0.08, 1000), layer('e2e', 0.8, 0.7, 0.05, 5000), layer('system', 0.85, 0.75, 0.04, 20000)],
    [layer('unit', 0.99, 0.9, 0, 100), layer('integration', 0.98, 0.92, 0.01, 1000), layer('e2e', 0.6, 0.5, 0.3, 5000), layer('system', 1, 1, 0, 20000)],
    [layer('unit', 0.9, 0.85, 0.02, 100), layer('integration', 0.99, 0.95, 0, 1000), layer('e2e', 0.99, 0.97, 0, 5000), layer('system', 0.99, 0.99, 0, 20000)],
  ];
}

function pyramidWorkload(EarlyExitController, config, count) {
  const sets = layerSets();
  return async () => {
    const controller = new EarlyExitController(config, 4);
    let exits = 0;
    for (let t = 0; t < count; t++) {
      const result = await controller.runWithEarlyExit(sets[t & 3]);
      if (result.exitedEarly) exits++;
    }
    return exits;
  };
}

// ---------------------------------------------------------------------------------------
// Timing

const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

async function timeOnce(fn, count) {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / count; // ns per trajectory
}

// Alternates the two sides (A B, B A, ...) over `rounds` rounds after one warm-up each.
async function compare(seed, ours, count, rounds) {
  await seed();
  await ours();
  const seedTimes = [];
  const ourTimes = [];
  const ratios = [];
  for (let r = 0; r < rounds; r++) {
    let s, o;
    if (r % 2 === 0) {
      s = await timeOnce(seed, count);
      o = await timeOnce(ours, count);
    } else {
      o = await timeOnce(ours, count);
      s = await timeOnce(seed, count);
    }
    seedTimes.push(s);
    ourTimes.push(o);
    ratios.push(s / o);
  }
  return { seedTimes, ourTimes, ratios };
}

const us = (ns) => (ns / 1000).toFixed(3);
const spread = (xs) => `${us(Math.min(...xs))}..${us(Math.max(...xs))}`;

function report(workload, impl, count, { seedTimes, ourTimes, ratios }) {
  const unit = workload.startsWith('loop') ? 'trajectory' : 'run';
  console.log(`${workload} seed: median ${us(median(seedTimes))} us per ${unit} (spread ${spread(seedTimes)} us, ${seedTimes.length} rounds of ${count})`);
  console.log(`${workload} ${impl}: median ${us(median(ourTimes))} us per ${unit} (spread ${spread(ourTimes)} us, ${ourTimes.length} rounds of ${count})`);
  const fmt = (x) => (x >= 0.1 ? x.toFixed(2) : x.toPrecision(2));
  const r = ratios.map(fmt);
  console.log(`${workload} ratio seed/${impl}: ${fmt(median(ratios))} (spread ${fmt(Math.min(...ratios))}..${fmt(Math.max(...ratios))}; per round ${r.join(' ')}; >= 1.00 means ${impl} is at least as fast)`);
}

function emptyCallBaseline(rounds) {
  const count = 10_000_000;
  const empty = new Function('x', 'return x;');
  const times = [];
  let sink = 0;
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < count; i++) sink += empty(i) & 1;
    times.push(Number(process.hrtime.bigint() - start) / count);
  }
  console.log(`baseline empty JS function call: median ${median(times).toFixed(2)} ns (spread ${Math.min(...times).toFixed(2)}..${Math.max(...times).toFixed(2)} ns${sink < 0 ? '' : ''})`);
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const count = options.quick ? 10_000 : 100_000;
  const rounds = options.quick ? Math.min(options.rounds, 3) : options.rounds;
  const seedLoop = await import(pathToFileURL(path.join(REFERENCE_DIR, 'early-stopping.mjs')).href);
  const seedPyramid = await import(pathToFileURL(path.join(REFERENCE_DIR, 'early-exit-adr.mjs')).href);
  const impls = options.impl === 'both' ? ['native', 'wasm'] : [options.impl];
  console.log(`bench: node ${process.version}, ${count} trajectories per round, ${rounds} rounds, sides alternated`);
  emptyCallBaseline(rounds);
  for (const impl of impls) {
    const ours = require(path.join(ROOT, impl === 'native' ? 'bindings-node/index.cjs' : 'bindings-wasm/index.cjs'));
    const loop = await compare(loopWorkload(seedLoop.EarlyStopping, count), loopWorkload(ours.EarlyStopping, count), count, rounds);
    report('loop', impl, count, loop);
    const stamped = await compare(loopWorkload(seedLoop.EarlyStopping, count, true), loopWorkload(ours.EarlyStopping, count, true), count, rounds);
    report('loop-ts', impl, count, stamped);
    const pyramid = await compare(
      pyramidWorkload(seedPyramid.EarlyExitController, seedPyramid.DEFAULT_EXIT_CONFIG, count),
      pyramidWorkload(ours.EarlyExitController, ours.DEFAULT_EXIT_CONFIG, count),
      count,
      rounds,
    );
    report('pyramid', impl, count, pyramid);
  }
}

await main();
