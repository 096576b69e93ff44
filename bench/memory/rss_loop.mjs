// Peak RSS of one engine over N recordIterationResult + shouldStop iterations, in its own
// process: `node bench/memory/rss_loop.mjs native|wasm N` prints
// `rss node-native n=N peak_kb=K seconds=S` (K = VmHWM from /proc/self/status, Linux).
// scripts/bench.sh also runs it with N = 0 (Node and the package alone).
import { readFileSync } from 'node:fs';

const impl = process.argv[2] || 'native';
const n = Number(process.argv[3] ?? 1_000_000);
const { EarlyStopping } = await import(impl === 'wasm' ? 'earlyexit-wasm' : 'earlyexit');

const peakKb = () => {
  const line = readFileSync('/proc/self/status', 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'));
  return line ? Number(line.split(/\s+/)[1]) : -1;
};

const engine = new EarlyStopping();
const start = performance.now();
let score = 50;
for (let i = 1; i <= n; i++) {
  const step = i % 10 ? 5 : -45; // a saw-tooth between 50 and 95 that never stops the loop, as in Python and Rust
  score += step;
  engine.recordIterationResult(i, { quality_score: score, confidence: 0.5, verification_status: 'passed', quality_delta: step });
  engine.shouldStop(i);
}
const seconds = (performance.now() - start) / 1000;
console.log(`rss node-${impl} n=${n} peak_kb=${peakKb()} seconds=${seconds.toFixed(2)}`);
