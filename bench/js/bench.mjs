// JS benchmark of earlyexit against the code it replaces, in the same process.
//
//   node bench/js/bench.mjs [--impl native|wasm|both] [--rounds N] [--quick] [--against DIR]
//                           [--only WORKLOAD,...]
//
// Workloads (issue 7, and the construction cost of issue 16):
//   loop     a fresh EarlyStopping, 10 x (recordIterationResult + shouldStop) with varied
//            scores so every trigger fires (high confidence, plateau, diminishing returns
//            from an outside source, none), then generateSummary; 100,000 trajectories.
//   loop-ts  the same with a timestamp in every result, so neither side reads the clock
//            (the seed formats `new Date().toISOString()` per record, which is slow on some
//            machines; ours reads Date.now() and formats on first read of the history).
//            The timestamps are made by toISOString(), as a caller's are (flat strings).
//   loop-policy  loop-ts with our engines deciding under the stop policy `{preset: 'seed'}`
//            (the seed's checks as a condition tree: the same decisions, plus `fired`); the
//            seed side is the seed's engine, which has no policies.
//   pyramid  EarlyExitController.runWithEarlyExit over 4 layers with synchronous runners
//            (exits, speculation, verification and full runs all occur); 100,000 runs of
//            one controller.
//   pyramid-new  the same with a new EarlyExitController(DEFAULT_EXIT_CONFIG, 4) per run,
//            as a CI job that builds its controller each time does.
//   loop-step  Loop.step(output, {quality, fingerprint}) against the bare pair it wraps
//            (recordIterationResult + shouldStop, with quality_delta computed by the caller),
//            plain and under the `recommended` stop policy (the decisions Loop makes), per
//            step over runs of 1,000 steps; then the automatic fingerprint's cost per KB of
//            output (a string, a Uint8Array and a plain JSON object of about 1 KB and 16 KB,
//            Loop.step without `fingerprint` minus with it). Ours only: the seed has no Loop.
//   ai-sdk   the AI SDK adapter (`<package>/ai-sdk`): its stop condition called as the SDK calls
//            it, with the steps so far after each step (each an SDK-shaped step: text, usage,
//            content with a tool call and its result), against a bare
//            Loop.step(text, {quality, tokens}) per step (what the condition records for it),
//            both under `recommended` with a cap of 20 steps and stopping where the decision
//            says stop, per step over 1,000 runs (100 with --quick). Ours only.
// Each is timed (process CPU time, see cpuNow) for the seed (../shared/reference/early-stopping.mjs and
// early-exit-adr.mjs, loaded at run time, never shipped) and for our package, alternating
// the sides over several rounds (the machine is shared and noisy). Printed per side:
// the median time per trajectory (run) and the spread (min..max over rounds); then the
// ratio seed/ours (median of the per-round ratios, with its min..max): > 1 means ours is
// faster. An empty JS function call is timed for scale. Output is plain text lines.
//
// --against DIR also times the packages built in another checkout DIR (its
// bindings/node/ and bindings/wasm/, e.g. a copy of main's built packages) in the same
// rounds, as a third side, so before/after ratios come from one run. --only runs the
// named workloads alone.
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
  const options = { impl: 'both', rounds: 7, quick: false, against: null, only: null };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') options.quick = true;
    else if (arg === '--impl') options.impl = argv[++i];
    else if (arg === '--rounds') options.rounds = Number(argv[++i]);
    else if (arg.startsWith('--impl=')) options.impl = arg.slice(7);
    else if (arg.startsWith('--rounds=')) options.rounds = Number(arg.slice(9));
    else if (arg === '--against') options.against = path.resolve(argv[++i]);
    else if (arg === '--only') options.only = argv[++i].split(',');
    else if (arg.startsWith('--only=')) options.only = arg.slice(7).split(',');
    else if (arg.startsWith('--against=')) options.against = path.resolve(arg.slice(10));
    else {
      console.error(`bench: unknown argument ${arg}\nusage: node bench/js/bench.mjs [--impl native|wasm|both] [--rounds N] [--quick] [--against DIR] [--only WORKLOAD,...]`);
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

function loopWorkload(EarlyStopping, count, timestamps = false, policy = undefined) {
  const base = Date.UTC(2026, 0, 1);
  const kinds = timestamps
    ? trajectories().map((kind, k) => kind.map((r, i) => ({ ...r, timestamp: new Date(base + k * 60_000 + i * 1_000).toISOString() })))
    : trajectories();
  return () => {
    let stops = 0;
    for (let t = 0; t < count; t++) {
      const kind = kinds[t & 7];
      const es = (t & 1) === 0 ? new EarlyStopping(undefined, null, policy) : new EarlyStopping(undefined, new Source(), policy);
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

// A new controller per run (a CI job builds its own), over the module's preset object.
function pyramidNewWorkload(EarlyExitController, config, count) {
  const sets = layerSets();
  return async () => {
    let exits = 0;
    for (let t = 0; t < count; t++) {
      const result = await new EarlyExitController(config, 4).runWithEarlyExit(sets[t & 3]);
      if (result.exitedEarly) exits++;
    }
    return exits;
  };
}

// ---------------------------------------------------------------------------------------
// Timing

// Loop.step against the bare pair, per step (runs of 1,000 steps, a fresh object per run).
const STEPS = 1000;
const stepQuality = (i) => 40 + ((i * 37) % 50) + (i % 7) / 10;
function barePairWorkload(EarlyStopping, runs, policy) {
  return () => {
    for (let r = 0; r < runs; r++) {
      const es = new EarlyStopping(null, null, policy);
      let last = 0;
      for (let i = 1; i <= STEPS; i++) {
        const q = stepQuality(i);
        es.recordIterationResult(i, { quality_score: q, confidence: 0.5, verification_status: 'skipped', quality_delta: i === 1 ? 0 : q - last });
        es.shouldStop(i);
        last = q;
      }
      es.free();
    }
  };
}
function loopStepWorkload(Loop, runs, output, fingerprint) {
  return () => {
    for (let r = 0; r < runs; r++) {
      const loop = new Loop({ preset: 'recommended' });
      for (let i = 1; i <= STEPS; i++) {
        loop.step(output, fingerprint ? { quality: stepQuality(i), fingerprint: 'f' + (i % 3) } : { quality: stepQuality(i) });
      }
      loop.free();
    }
  };
}
async function loopStepReport(impl, mod, runs, rounds) {
  const steps = runs * STEPS;
  const sides = [
    ['bare pair (EarlyStopping, no policy)', barePairWorkload(mod.EarlyStopping, runs, undefined)],
    ['bare pair (EarlyStopping, recommended policy)', barePairWorkload(mod.EarlyStopping, runs, 'recommended')],
    ['Loop.step with fingerprint', loopStepWorkload(mod.Loop, runs, 'draft', true)],
  ];
  const { times } = await compare(sides.map(([, f]) => f), steps, rounds);
  const ns = (t) => `${median(t).toFixed(0)} ns`;
  sides.forEach(([name], i) => console.log(`loop-step ${impl} ${name}: median ${ns(times[i])} per step (spread ${Math.min(...times[i]).toFixed(0)}..${Math.max(...times[i]).toFixed(0)} ns)`));
  const ratio = (a, b) => median(times[a].map((t, r) => t / times[b][r])).toFixed(2);
  console.log(`loop-step ${impl} ratio Loop.step / bare pair: ${ratio(2, 0)}x (no policy), ${ratio(2, 1)}x (recommended policy)`);
  // The automatic fingerprint per KB: the same output without and with `fingerprint`.
  const kb = (n) => 'x'.repeat(n * 1024);
  const object = (n) => {
    const o = {};
    for (let i = 0; i < n * 32; i++) o['key' + i] = 'value-' + 'v'.repeat(12) + i; // about 32 B per entry
    return o;
  };
  for (const [what, make] of [['string', kb], ['Uint8Array', (n) => new Uint8Array(n * 1024).map((_, i) => i & 255)], ['JSON object', object]]) {
    for (const n of [1, 16]) {
      const output = make(n);
      const bytes = typeof output === 'string' ? output.length : output instanceof Uint8Array ? output.length : JSON.stringify(output).length;
      const fewer = Math.max(1, Math.floor(runs / (n * 4)));
      const { times: t } = await compare([loopStepWorkload(mod.Loop, fewer, output, true), loopStepWorkload(mod.Loop, fewer, output, false)], fewer * STEPS, rounds);
      const extra = median(t[1].map((x, r) => x - t[0][r]));
      console.log(`loop-step ${impl} automatic fingerprint, ${what} of ${bytes} B: +${extra.toFixed(0)} ns per step, ${(extra / (bytes / 1024)).toFixed(0)} ns per KB`);
    }
  }
}

// The AI SDK adapter's condition against a bare Loop.step, per step: runs of up to
// AI_SDK_STEPS steps (the condition's default maxSteps), each side stopping where the
// decision says stop, as generateText does.
const AI_SDK_STEPS = 20;
function aiSdkSteps() {
  const usage = { inputTokens: 900, outputTokens: 300, totalTokens: 1200 };
  return Array.from({ length: AI_SDK_STEPS }, (_, i) => {
    const text = `Draft ${i % 5} of the release note: ` + 'the loop stops on a plateau of good work. '.repeat(4);
    const call = { type: 'tool-call', toolCallId: `c-${i}`, toolName: 'submit', input: { draft: text } };
    const result = { type: 'tool-result', toolCallId: `c-${i}`, toolName: 'submit', input: call.input, output: 'ok' };
    return { text, usage, content: [{ type: 'text', text }, call, result], quality: stepQuality(i + 1) / 100 };
  });
}
function bareLoopWorkload(Loop, runs, steps) {
  return () => {
    for (let r = 0; r < runs; r++) {
      const loop = new Loop({ preset: 'recommended', scale: 1, maxIterations: AI_SDK_STEPS });
      for (let i = 0; i < AI_SDK_STEPS; i++) {
        const step = steps[i];
        if (loop.step(step.text, { quality: step.quality, tokens: step.usage.totalTokens }).stop) break;
      }
      loop.free();
    }
  };
}
function aiSdkWorkload(earlyexitStop, runs, steps) {
  return () => {
    for (let r = 0; r < runs; r++) {
      const condition = earlyexitStop({ preset: 'recommended', quality: (step) => step.quality, maxSteps: AI_SDK_STEPS });
      const sofar = [];
      for (let i = 0; i < AI_SDK_STEPS; i++) {
        sofar.push(steps[i]);
        if (condition({ steps: sofar })) break;
      }
      condition.loop.free();
    }
  };
}
async function aiSdkReport(impl, mod, adapter, runs, rounds) {
  const steps = aiSdkSteps();
  // Both sides take the same number of steps (checked once, outside the timing).
  const probe = adapter.earlyexitStop({ preset: 'recommended', quality: (step) => step.quality, maxSteps: AI_SDK_STEPS });
  for (let i = 1; i <= AI_SDK_STEPS && !probe({ steps: steps.slice(0, i) }); i++);
  const perRun = probe.loop.history.length;
  probe.loop.free();
  const sides = [
    ['bare Loop.step(text, { quality, tokens })', bareLoopWorkload(mod.Loop, runs, steps)],
    ['earlyexitStop condition', aiSdkWorkload(adapter.earlyexitStop, runs, steps)],
  ];
  const { times } = await compare(sides.map(([, f]) => f), runs * perRun, rounds);
  sides.forEach(([name], i) => console.log(`ai-sdk ${impl} ${name}: median ${median(times[i]).toFixed(0)} ns per step (spread ${Math.min(...times[i]).toFixed(0)}..${Math.max(...times[i]).toFixed(0)} ns, ${rounds} rounds of ${runs} runs of ${perRun} steps)`));
  const ratio = median(times[1].map((t, r) => t / times[0][r]));
  console.log(`ai-sdk ${impl} ratio condition / bare Loop.step: ${ratio.toFixed(2)}x (${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(0)}%; median of the per-round ratios)`);
}

const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

// CPU time of this process (user + system), in ns: the machine is shared, and wall time
// counts the time other processes held the CPU (every side runs in this one thread; V8's
// helper threads, the garbage collector's among them, are counted as the work they are).
function cpuNow() {
  const { user, system } = process.cpuUsage();
  return (user + system) * 1000;
}

async function timeOnce(fn, count) {
  const start = cpuNow();
  await fn();
  return (cpuNow() - start) / count; // ns per trajectory
}

// Times the sides (the seed first, then ours, then any other build) over `rounds` rounds
// after one warm-up each, in forward order on even rounds and backward on odd ones.
// Answers each side's times and, for each side after the seed, the per-round ratios
// seed/side.
async function compare(sides, count, rounds) {
  for (const side of sides) await side();
  const times = sides.map(() => []);
  for (let r = 0; r < rounds; r++) {
    const order = sides.map((_, i) => i);
    if (r % 2 === 1) order.reverse();
    for (const i of order) times[i].push(await timeOnce(sides[i], count));
  }
  const ratios = times.map((side) => side.map((t, r) => times[0][r] / t));
  return { times, ratios };
}

const us = (ns) => (ns / 1000).toFixed(3);
const spread = (xs) => `${us(Math.min(...xs))}..${us(Math.max(...xs))}`;

function report(workload, names, count, { times, ratios }) {
  const unit = workload.startsWith('loop') ? 'trajectory' : 'run';
  names.forEach((name, i) => {
    console.log(`${workload} ${name}: median ${us(median(times[i]))} us per ${unit} (spread ${spread(times[i])} us, ${times[i].length} rounds of ${count})`);
  });
  const fmt = (x) => (x >= 0.1 ? x.toFixed(2) : x.toPrecision(2));
  for (let i = 1; i < names.length; i++) {
    const r = ratios[i];
    console.log(`${workload} ratio seed/${names[i]}: ${fmt(median(r))} (spread ${fmt(Math.min(...r))}..${fmt(Math.max(...r))}; per round ${r.map(fmt).join(' ')}; >= 1.00 means ${names[i]} is at least as fast)`);
  }
}

function emptyCallBaseline(rounds) {
  const count = 10_000_000;
  const empty = new Function('x', 'return x;');
  const times = [];
  let sink = 0;
  for (let r = 0; r < rounds; r++) {
    const start = cpuNow();
    for (let i = 0; i < count; i++) sink += empty(i) & 1;
    times.push((cpuNow() - start) / count);
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
  console.log(`bench: node ${process.version}, ${count} trajectories per round, ${rounds} rounds, sides alternated, process CPU time`);
  emptyCallBaseline(rounds);
  for (const impl of impls) {
    const entry = impl === 'native' ? 'bindings/node/index.cjs' : 'bindings/wasm/index.cjs';
    const builds = [require(path.join(ROOT, entry))];
    const names = ['seed', impl];
    if (options.against !== null) {
      builds.push(require(path.join(options.against, entry)));
      names.push(`${impl}@${path.basename(options.against)}`);
    }
    const wanted = (workload) => options.only === null || options.only.includes(workload);
    const loops = (timestamps, policy) =>
      [seedLoop, ...builds].map((m) => loopWorkload(m.EarlyStopping, count, timestamps, m === seedLoop ? undefined : policy));
    if (wanted('loop')) report('loop', names, count, await compare(loops(false), count, rounds));
    if (wanted('loop-ts')) report('loop-ts', names, count, await compare(loops(true), count, rounds));
    if (wanted('loop-policy')) report('loop-policy', names, count, await compare(loops(true, { preset: 'seed' }), count, rounds));
    const pyramids = (workload) => [seedPyramid, ...builds].map((m) => workload(m.EarlyExitController, m.DEFAULT_EXIT_CONFIG, count));
    if (wanted('pyramid')) report('pyramid', names, count, await compare(pyramids(pyramidWorkload), count, rounds));
    if (wanted('pyramid-new')) report('pyramid-new', names, count, await compare(pyramids(pyramidNewWorkload), count, rounds));
    if (wanted('loop-step')) await loopStepReport(impl, builds[0], Math.max(1, count / 5000), rounds);
    if (wanted('ai-sdk')) await aiSdkReport(impl, builds[0], require(path.join(ROOT, path.dirname(entry), 'ai-sdk.cjs')), Math.max(1, count / 100), rounds);
  }
}

await main();
