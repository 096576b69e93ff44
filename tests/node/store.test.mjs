// The run store from Node (docs/store.md, "From Node"): `Store` of the napi package, every
// method a Promise whose SQLite work runs off the event loop, the runs streamed a page at a
// time, concurrent calls and processes, a store the command made, hostile input, and
// `new Loop({ store, runLabel })`. The wasm package has no SQLite: no `Store` there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import ee, { IMPL, PACKAGE, ROOT } from './impl.mjs';

const { Store, Loop } = ee;
const NATIVE = IMPL === 'native';
const NO_STORE = 'skipped: the wasm package has no SQLite (no Store)';
const dir = () => mkdtempSync(path.join(tmpdir(), 'ee-store-'));
const good = (q = 95) => ({ quality_score: q, confidence: 0.95, verification_status: 'passed', good: true });
const run = (id, dataset = 'd', n = 2) => ({ id, dataset, iterations: Array.from({ length: n }, () => good()) });
const jsonl = (runs) => runs.map((r) => JSON.stringify(r)).join('\n') + '\n';
const collect = async (iterable) => {
  const out = [];
  for await (const item of iterable) out.push(item);
  return out;
};
const storeError = (field) => (e) => ee.isEarlyExitError(e) && e.field === field;

// The command: EARLYEXIT_COMMAND, else the workspace's build, else none (those tests skip).
const COMMAND = [process.env.EARLYEXIT_COMMAND, path.join(ROOT, 'target/release/earlyexit'), path.join(ROOT, 'target/debug/earlyexit')]
  .find((p) => p && existsSync(p));
const NO_COMMAND = 'skipped: no earlyexit command (build it with `cargo build -p earlyexit-cli`, or set EARLYEXIT_COMMAND)';

test('the wasm package exports no Store, and a Loop refuses a store there', { skip: NATIVE && 'the native package has a Store' }, () => {
  assert.equal(ee.Store, undefined);
  assert.equal('Store' in ee, false);
  assert.throws(() => new Loop({ store: {}, maxIterations: 2 }), storeError('store'));
  assert.throws(() => new Loop({ store: {}, receiptLog: 'x', maxIterations: 2 }), storeError('store'));
  assert.throws(() => new Loop({ receiptLog: 'x', maxIterations: 2 }), (e) => storeError('receiptLog')(e) && /wasm package has no store/.test(e.message));
});

test('every method: runs, receipts, artifacts, models, export, import, check, close', { skip: !NATIVE && NO_STORE }, async () => {
  const at = dir();
  const store = await Store.open(`sqlite:${at}/runs.db`);
  assert.equal(store.url, `sqlite:${at}/runs.db`);
  // Runs: new, again (nothing written), under labels, filtered and streamed oldest first.
  assert.equal(await store.addRun(run('a'), { runLabel: 'main' }), true);
  assert.equal(await store.addRun(run('a'), { runLabel: 'main' }), false);
  assert.equal(await store.addRun(JSON.stringify(run('b', 'other')), { runLabel: 'pr' }), true);
  assert.equal(await store.addRun(run('c')), true);
  assert.deepEqual((await collect(store.runs())).map((r) => r.run.id), ['a', 'b', 'c']);
  const [first] = await collect(store.runs({ runLabel: 'main' }));
  assert.equal(first.runLabel, 'main');
  assert.deepEqual(first.run, run('a'));
  assert.equal(typeof first.runId, 'string');
  assert.equal(typeof first.recordedMs, 'number');
  assert.deepEqual((await collect(store.runs({ dataset: 'other' }))).map((r) => r.run.id), ['b']);
  assert.deepEqual((await collect(store.runs({ limit: 2 }))).map((r) => r.run.id), ['a', 'b']);
  assert.equal((await collect(store.runs({ since: new Date(Date.now() + 3600e3) }))).length, 0);
  assert.equal((await collect(store.runs({ since: '2000-01-01T00:00:00Z' }))).length, 3);
  // Receipts: a loop's shadow receipt, appended once however often.
  const loop = new Loop({ preset: 'recommended', maxIterations: 5, task: 'r-1', shadow: { any: [{ condition: 'max_iterations', limit: 2 }] } });
  [40, 50, 60].forEach((q) => loop.step(`draft ${q}`, { quality: q }));
  const { receipt } = loop.finish(true);
  assert.equal(await store.appendReceipts('ci', [receipt]), 1);
  assert.equal(await store.appendReceipts('ci', [receipt]), 0);
  const verified = await store.verifyReceipts('ci');
  assert.equal(verified.valid, true);
  assert.equal(verified.receipts, 1);
  assert.deepEqual(await ee.verifyReceipts(store, 'ci'), verified);
  assert.deepEqual(ee.verifyReceipts(await store.receiptLog('ci')), verified, 'the same answer as the text');
  // Artifacts with their lifecycle.
  const cal = ee.calibrateLoopPolicy(Array.from({ length: 150 }, (_, i) => run(`t${i}`)), { risk: 0.1, delta: 0.1 });
  const put = await store.putArtifact('loops', cal);
  assert.equal(put.kind, 'loop');
  assert.equal(put.state, 'shadow');
  assert.equal(put.promoted, false);
  const got = await store.artifact('loops');
  assert.deepEqual(got.artifact, cal.artifact);
  assert.equal(got.sha256, put.sha256);
  assert.equal(await store.artifact('none'), null);
  // Models: merged as a set union.
  const a = new ee.OutcomeModel(null, { window: 10 }).learn([{ name: 'lint', failed: true }], { id: 'x', seq: 1 });
  const b = new ee.OutcomeModel(null, { window: 10 }).learn([{ name: 'lint', failed: false }], { id: 'y', seq: 2 });
  await store.mergeModel('ci', a);
  const merged = await store.mergeModel('ci', b.toJSON());
  assert.deepEqual(merged, a.merge(b).toJSON());
  assert.deepEqual(await store.model('ci'), merged);
  assert.equal(await store.model('none'), null);
  // Export, then import into another store: the same runs; importing again adds none.
  assert.equal(await store.exportRuns(`${at}/out.jsonl`), 3);
  assert.deepEqual(readFileSync(`${at}/out.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l).id), ['a', 'b', 'c']);
  const other = await Store.open(`sqlite:${at}/other.db`);
  assert.deepEqual(await other.importRuns(`${at}/out.jsonl`, { runLabel: 'copy' }), { read: 3, added: 3 });
  assert.deepEqual(await other.importRuns(`${at}/out.jsonl`, { runLabel: 'copy' }), { read: 3, added: 0 });
  assert.equal(await other.exportRuns(`${at}/main.jsonl`, { runLabel: 'copy', limit: 1 }), 1);
  // Check, close, and a closed store refused.
  assert.deepEqual(await store.check(), { valid: true, schemaVersion: 2, runs: 3, receiptLogs: 1, receipts: 1, artifacts: 1, models: 1 });
  await store.close();
  await other.close();
  await assert.rejects(store.addRun(run('d')), storeError('store'));
  await assert.rejects(collect(store.runs()), storeError('store'));
});

test('a Loop given a store: finish() resolves once the run and its receipt are stored, idempotent', { skip: !NATIVE && NO_STORE }, async () => {
  const store = await Store.open(`sqlite:${dir()}/loop.db`);
  const plain = new Loop({ preset: 'recommended', maxIterations: 3 });
  plain.step('a', { quality: 50 });
  assert.equal(typeof plain.finish(true).then, 'undefined', 'without a store finish() stays synchronous');
  const loop = new Loop({ store, runLabel: 'nightly', preset: 'recommended', maxIterations: 5, task: 'L', shadow: { any: [{ condition: 'max_iterations', limit: 2 }] } });
  [40, 50, 60].forEach((q) => loop.step(`d${q}`, { quality: q }));
  const finished = loop.finish(true);
  assert.equal(typeof finished.then, 'function');
  const { run: done, receipt } = await finished;
  assert.equal(done.id, 'L');
  assert.equal(receipt.kind, 'loop');
  await loop.finish(true); // again: nothing more stored
  const stored = await collect(store.runs({ runLabel: 'nightly' }));
  assert.deepEqual(stored.map((r) => r.run), [JSON.parse(JSON.stringify(done))]);
  const log = Store.defaultLoopReceiptLog;
  assert.equal(log, 'loops');
  const verified = await store.verifyReceipts(log);
  assert.equal(verified.receipts, 1);
  // A store option that is not a Store: refused, nothing opened.
  assert.throws(() => new Loop({ store: { addRun() {} }, maxIterations: 2 }), storeError('store'));
  await store.close();
});

test("a Loop's stored run is keyed by its run id, the receipt's runId; receiptLog names the log", { skip: !NATIVE && NO_STORE }, async () => {
  const store = await Store.open(`sqlite:${dir()}/keyed.db`);
  const shadow = { any: [{ condition: 'max_iterations', limit: 2 }] };
  const loop = new Loop({ store, receiptLog: 'nightly', preset: 'recommended', maxIterations: 5, task: 'K', shadow });
  [40, 50, 60].forEach((q) => loop.step(`d${q}`, { quality: q }));
  const { receipt } = await loop.finish(true);
  const [stored] = await collect(store.runs());
  assert.equal(stored.runId, receipt.runId);
  assert.notEqual(stored.runId, 'K', 'the run id, not the task');
  // Finishing again with another `good`: the store refuses the changed run under the same id, and adds nothing.
  await assert.rejects(loop.finish(false), storeError('runId'));
  assert.equal((await collect(store.runs())).length, 1);
  assert.equal((await store.check()).receipts, 1);
  assert.equal((await store.verifyReceipts('nightly')).receipts, 1);
  assert.equal((await store.verifyReceipts(Store.defaultLoopReceiptLog)).receipts, 0);
  // receiptLog: the store's name rule, checked at construction; refused without a store.
  for (const bad of ['', 'x'.repeat(257), 7]) {
    assert.throws(() => new Loop({ store, receiptLog: bad, maxIterations: 2 }), storeError('receiptLog'), String(bad));
  }
  assert.throws(() => new Loop({ receiptLog: 'nightly', maxIterations: 2 }), (e) => storeError('receiptLog')(e) && e.code === 'invalid_config');
  // addRun's dataset: set on a run without one, the same again, another refused.
  assert.equal(await store.addRun(run('ds', null), { dataset: 'd1' }), true);
  assert.equal(await store.addRun(run('ds', null), { dataset: 'd1' }), false);
  assert.equal(await store.addRun(run('ds3', 'd1'), { dataset: 'd1' }), true);
  await assert.rejects(store.addRun(run('ds2', 'd2'), { dataset: 'd1' }), (e) => e.field === 'dataset');
  await assert.rejects(store.addRun(run('ds4', null), { dataset: '' }), (e) => e.field === 'dataset');
  assert.deepEqual((await collect(store.runs({ dataset: 'd1' }))).map((r) => r.run.id), ['ds', 'ds3']);
  await store.close();
});

test('bad input: typed errors naming the field, nothing changed', { skip: !NATIVE && NO_STORE }, async () => {
  const at = dir();
  const pg = await Store.open('postgresql://u@db/runs').catch((e) => e);
  assert.ok(storeError('store')(pg), String(pg));
  assert.equal(pg.code, 'invalid_config');
  assert.match(pg.message, /earlyexit command/);
  await assert.rejects(Store.open('mysql://x'), storeError('store'));
  await assert.rejects(Store.open(42), storeError('store'));
  await assert.rejects(Store.open(`sqlite:${at}/no/such/folder/s.db`), storeError('store'));
  writeFileSync(`${at}/text.db`, 'not a database at all, just text');
  await assert.rejects(Store.open(`sqlite:${at}/text.db`), storeError('store'));
  assert.throws(() => new Store(), storeError('store'));
  const store = await Store.open(`sqlite:${at}/s.db`);
  await store.addRun(run('kept'));
  await assert.rejects(store.addRun({ id: 'x' }), (e) => e.code === 'invalid_replay' && e.field.startsWith('run'));
  await assert.rejects(store.addRun('{not json'), (e) => e.code === 'invalid_replay');
  await assert.rejects(store.addRun(run('y'), { runLabel: 'x'.repeat(257) }), storeError('runLabel'));
  await assert.rejects(store.addRun(run('y'), { runLabel: 7 }), storeError('runLabel'));
  await assert.rejects(store.addRun(run('y'), 'label'), storeError('options'));
  await assert.rejects(store.addRun(run('z'), { runId: 'kept-id' }).then(() => store.addRun(run('other'), { runId: 'kept-id' })), storeError('runId'));
  await assert.rejects(collect(store.runs({ limit: -1 })), storeError('limit'));
  await assert.rejects(collect(store.runs({ since: 'yesterday' })), storeError('since'));
  await assert.rejects(store.appendReceipts('', []), storeError('log'));
  await assert.rejects(store.appendReceipts(5, []), storeError('log'));
  await assert.rejects(store.appendReceipts('ci', [{ kind: 'loop' }]), (e) => ee.isEarlyExitError(e));
  await assert.rejects(store.putArtifact('a', { kind: 'nope' }), (e) => e.code === 'invalid_artifact');
  await assert.rejects(store.mergeModel('m', { version: 99 }), (e) => ee.isEarlyExitError(e));
  await assert.rejects(store.importRuns(`${at}/missing.jsonl`), storeError('path'));
  // Deep: refused by the encoder before anything reaches the store.
  let deep = {};
  for (let i = 0; i < 100_000; i++) deep = { d: deep };
  await assert.rejects(store.addRun(deep), (e) => ee.isEarlyExitError(e));
  // A malformed line in the middle of an import: none of the file's runs are added.
  writeFileSync(`${at}/bad.jsonl`, jsonl([run('i1'), run('i2')]) + '{"id": broken\n' + jsonl([run('i3')]));
  await assert.rejects(store.importRuns(`${at}/bad.jsonl`), (e) => e.code === 'invalid_replay' && e.field === 'runs[2]');
  // Huge: a line over the document limit is refused without being held whole.
  const assertions = await store.check();
  assert.equal(assertions.runs, 2, 'kept and z only');
  await store.close();
});

test('20 concurrent calls on one store all complete, each whole', { skip: !NATIVE && NO_STORE }, async () => {
  const store = await Store.open(`sqlite:${dir()}/c.db`);
  const calls = Array.from({ length: 20 }, (_, i) =>
    i % 4 === 3 ? store.check() : i % 4 === 2 ? collect(store.runs()) : store.addRun(run(`c${i}`), { runLabel: 'c' }));
  const answers = await Promise.all(calls);
  assert.equal(answers.filter((a) => a === true).length, 10);
  assert.equal((await collect(store.runs({ runLabel: 'c' }))).length, 10);
  // close() right after calls still in flight: they complete first, later calls are refused.
  const late = Array.from({ length: 8 }, (_, i) => store.addRun(run(`late${i}`)));
  const closing = store.close();
  const after = store.addRun(run('after-close')).catch((e) => e);
  await closing;
  assert.deepEqual(await Promise.all(late), Array(8).fill(true));
  assert.ok(storeError('store')(await after), 'a call made after close() is refused');
});

test('10 worker threads x 50 runs: exactly 500 runs', { skip: !NATIVE && NO_STORE }, async () => {
  const url = `sqlite:${dir()}/w.db`;
  await (await Store.open(url)).close();
  const code = `
    const { workerData, parentPort } = require('node:worker_threads');
    const { Store } = require(${JSON.stringify(PACKAGE)});
    (async () => {
      const store = await Store.open(workerData.url);
      for (let i = 0; i < 50; i++) {
        await store.addRun({ id: 'w' + workerData.w + '-' + i, iterations: [{ quality_score: 90, confidence: 0.9, verification_status: 'passed' }] });
      }
      await store.close();
      parentPort.postMessage('done');
    })().catch((e) => parentPort.postMessage(String(e && e.stack)));`;
  const results = await Promise.all(Array.from({ length: 10 }, (_, w) => new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData: { url, w } });
    worker.once('message', resolve);
    worker.once('error', reject);
  })));
  assert.deepEqual(results, Array(10).fill('done'));
  const store = await Store.open(url);
  assert.equal((await store.check()).runs, 500);
  // Streamed across pages (256 runs each): every run once, a limit that ends inside a page.
  const all = await collect(store.runs());
  assert.equal(new Set(all.map((r) => r.run.id)).size, 500);
  assert.deepEqual((await collect(store.runs({ limit: 300 }))).map((r) => r.runId), all.slice(0, 300).map((r) => r.runId));
  await store.close();
});

test('the event loop keeps turning while a large import runs', { skip: !NATIVE && NO_STORE }, async () => {
  const at = dir();
  writeFileSync(`${at}/big.jsonl`, jsonl(Array.from({ length: 20_000 }, (_, i) => run(`big${i}`, 'd', 5))));
  const store = await Store.open(`sqlite:${at}/big.db`);
  let ticks = 0;
  let importing = true;
  const tick = () => {
    ticks++;
    if (importing) setImmediate(tick);
  };
  setImmediate(tick);
  const imported = store.importRuns(`${at}/big.jsonl`).finally(() => { importing = false; });
  const ticksWhenStarted = ticks;
  assert.deepEqual(await imported, { read: 20_000, added: 20_000 });
  assert.ok(ticks - ticksWhenStarted > 10, `the event loop turned ${ticks - ticksWhenStarted} time(s) during the import`);
  await store.close();
});

test('a store the command made, read from Node; a store Node made, checked by the command', { skip: (!NATIVE && NO_STORE) || (!COMMAND && NO_COMMAND) }, async () => {
  const at = dir();
  writeFileSync(`${at}/runs.jsonl`, jsonl(Array.from({ length: 30 }, (_, i) => run(`cmd${i}`))));
  const made = spawnSync(COMMAND, ['runs', 'import', '--store', `sqlite:${at}/cmd.db`, '--run-label', 'cmd', `${at}/runs.jsonl`], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  const store = await Store.open(`sqlite:${at}/cmd.db`);
  const runs = await collect(store.runs({ runLabel: 'cmd' }));
  assert.deepEqual(runs.map((r) => r.run.id), Array.from({ length: 30 }, (_, i) => `cmd${i}`));
  await store.addRun(run('from-node'), { runLabel: 'node' });
  await store.close();
  const checked = spawnSync(COMMAND, ['runs', 'check', '--store', `sqlite:${at}/cmd.db`, '--json'], { encoding: 'utf8' });
  assert.equal(checked.status, 0, checked.stderr);
  assert.equal(JSON.parse(checked.stdout).runs, 31);
});

// A child that imports a large file; killed with SIGKILL in the middle of its transaction.
test('killed with kill -9 mid-import: the store stays whole, without the import', { skip: !NATIVE && NO_STORE }, async () => {
  const at = dir();
  const url = `sqlite:${at}/k.db`;
  writeFileSync(`${at}/k.jsonl`, jsonl(Array.from({ length: 60_000 }, (_, i) => run(`k${i}`, 'd', 4))));
  const first = await Store.open(url);
  await first.addRun(run('before'));
  await first.close();
  const child = spawn(process.execPath, ['--input-type=module', '-e', `
    const { Store } = await import(${JSON.stringify(PACKAGE)});
    const store = await Store.open(${JSON.stringify(url)});
    const pending = store.importRuns(${JSON.stringify(`${at}/k.jsonl`)});
    process.stdout.write('importing\\n');
    await pending;
    process.stdout.write('done\\n');`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const started = await Promise.race([new Promise((resolve) => child.stdout.once('data', () => resolve(true))), exited.then(() => false)]);
  assert.ok(started, 'the child started its import');
  await new Promise((resolve) => setTimeout(resolve, 50));
  child.kill('SIGKILL');
  await exited;
  assert.equal(child.signalCode, 'SIGKILL', 'the child was killed, not finished');
  const store = await Store.open(url);
  const report = await store.check();
  assert.ok(report.runs === 1 || report.runs === 60_001, `all or nothing: ${report.runs} run(s)`);
  await store.close();
});

test('streaming 100,000 runs under a memory limit (prlimit)', { skip: (!NATIVE && NO_STORE) || (spawnSync('prlimit', ['--version']).status !== 0 && 'skipped: no prlimit') }, async () => {
  const at = dir();
  const url = `sqlite:${at}/m.db`;
  // Each run about 2 KB: 200 MB of runs, more than the child may hold.
  const iterations = Array.from({ length: 24 }, () => good(80));
  const lines = [];
  for (let i = 0; i < 100_000; i++) lines.push(JSON.stringify({ id: `m${i}`, dataset: 'd', iterations }));
  writeFileSync(`${at}/m.jsonl`, lines.join('\n') + '\n');
  lines.length = 0;
  const store = await Store.open(url);
  assert.equal((await store.importRuns(`${at}/m.jsonl`)).added, 100_000);
  await store.close();
  const limit = 160 * 1024 * 1024;
  const child = spawnSync('prlimit', [`--data=${limit}`, process.execPath, '--max-old-space-size=48', '--input-type=module', '-e', `
    const { Store } = await import(${JSON.stringify(PACKAGE)});
    const store = await Store.open(${JSON.stringify(url)});
    let n = 0;
    let bytes = 0;
    for await (const r of store.runs()) { n++; bytes += r.run.iterations.length; }
    await store.close();
    process.stdout.write(JSON.stringify({ n, bytes, rss: process.memoryUsage().rss }));`], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  const { n, bytes } = JSON.parse(child.stdout);
  assert.equal(n, 100_000);
  assert.equal(bytes, 100_000 * 24);
  assert.ok(statSync(`${at}/m.jsonl`).size > limit, 'the runs are larger than the memory the child may use');
});

test('the Node example of docs/store.md runs as written', { skip: !NATIVE && NO_STORE }, async () => {
  const doc = readFileSync(path.join(ROOT, 'docs/store.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## From Node'));
  const code = /```js\n([\s\S]*?)```/.exec(section)[1].replaceAll("from 'earlyexit'", `from '${PACKAGE}'`);
  const at = dir();
  writeFileSync(path.join(at, 'example.mjs'), code);
  // Resolved from the suite's own node_modules (NODE_PATH does not reach ES modules): a link.
  const { symlinkSync } = await import('node:fs');
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(at, 'node_modules'));
  const ran = spawnSync(process.execPath, ['example.mjs'], { cwd: at, encoding: 'utf8' });
  assert.equal(ran.status, 0, ran.stderr);
  assert.match(ran.stdout, /^true$/m);
  assert.match(ran.stdout, /^true 2$/m);
  assert.equal(readFileSync(path.join(at, 'nightly.jsonl'), 'utf8').trim().split('\n').length, 2);
});
