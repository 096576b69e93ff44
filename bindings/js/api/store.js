// The run store from Node (docs/store.md, "From Node"): `await Store.open('sqlite:PATH')`,
// then runs, receipt chains, artifacts and models in one SQLite file, shared with the
// command. The native half (bindings/node/src/store.rs, `NativeStore`) runs each call's
// SQLite work on the libuv thread pool and answers in the wire format; every method here
// returns a Promise, and `runs()` is an async iterator that fetches the runs a page at a time.
// The wasm package has no SQLite: it exports no `Store` (it reads and writes the JSONL form).

import { ERROR_CODE } from './contract.generated.mjs';
import { AS_OPTIONS, RESTORE, enc, encOpt, makeError, unwrap } from './codec.js';
// (appendReceipts: the name of a method here, as of the text function there.)
import { LoopCalibration, appendReceipts, modelOf, verifyReceipts } from './replay.js';

const AS_STORE = { code: ERROR_CODE.INVALID_CONFIG, root: 'store', name: 'store' };
const AS_NAME = { code: ERROR_CODE.INVALID_CONFIG, root: 'name', name: 'name' };
const AS_LOG_NAME = { code: ERROR_CODE.INVALID_CONFIG, root: 'log', name: 'log' };
const AS_PATH = { code: ERROR_CODE.INVALID_CONFIG, root: 'path', name: 'path' };
const AS_RUN = { code: ERROR_CODE.INVALID_REPLAY, root: 'run', name: 'run' };
const AS_RECEIPTS = { code: ERROR_CODE.INVALID_RECEIPT, root: 'receipts', name: 'receipts' };
const AS_ARTIFACT = { code: ERROR_CODE.INVALID_ARTIFACT, root: 'artifact', name: 'artifact' };
const AS_MODEL = { code: ERROR_CODE.INVALID_CONFIG, root: 'model', name: 'model' };

// Runs fetched per page by `runs()`: memory stays bounded by one page, whatever the store holds.
const PAGE_RUNS = 256;

// A filter's `since` as the native side takes it: a Date as its milliseconds.
function filterOf(options) {
  if (options !== null && typeof options === 'object' && options.since instanceof Date) {
    return { ...options, since: options.since.getTime() };
  }
  return options;
}

/**
 * A run store: `const store = await Store.open('sqlite:runs.db')`. Every method returns a
 * Promise (the SQLite work runs off the event loop); calls may overlap, each one runs whole.
 */
export class Store {
  #native;
  #url;
  #pending = new Set(); // the calls not settled yet: close() waits for them
  #closing = null; // close()'s promise: calls made after it wait for it (and are refused)

  constructor(token, nativeStore, url) {
    if (token !== RESTORE) {
      throw makeError('!' + JSON.stringify({
        code: ERROR_CODE.INVALID_CONFIG, kind: 'type', field: 'store', message: 'store: open a Store with `await Store.open(url)`',
      }));
    }
    this.#native = nativeStore;
    this.#url = url;
  }

  /** Opens the store at `url` (`sqlite:PATH`), creating it when missing; `postgresql://` is refused here (the `earlyexit` command reads PostgreSQL stores). */
  static async open(url) {
    const nativeStore = new native.NativeStore();
    unwrap(await nativeStore.open('[' + enc(url, AS_STORE) + ']')); // one argument: an array is not a URL
    return new Store(RESTORE, nativeStore, url);
  }

  /** The receipt log a `Loop` given a store writes its shadow receipt to (`'loops'`, as Python's `Loop(store=...)`). */
  static get defaultLoopReceiptLog() {
    return defaultLoopReceiptLog();
  }

  /** The URL the store was opened with. */
  get url() {
    return this.#url;
  }

  /**
   * Adds one run (the replay JSONL form, an object or its JSON text) in its own transaction:
   * `{runLabel, runId, recordedMs, dataset}`, the id the SHA-256 of the run unless `runId` is
   * given, `dataset` set on a run without one (refused when the run has another). Resolves
   * `true` when new, `false` when the same run was there.
   */
  async addRun(run, options = undefined) {
    return unwrap(await this.#run(() => this.#native.addRun('[' + enc(run, AS_RUN) + ',' + encOpt(options) + ']')));
  }

  /**
   * The runs `{runLabel, dataset, since, limit}` selects, oldest first, as an async iterator of
   * `{runId, runLabel, recordedMs, run}`, fetched a page at a time.
   */
  async *runs(options = undefined) {
    const filter = encOpt(filterOf(options));
    // A limit that is not a count is refused by the first page's filter check.
    const given = options !== null && typeof options === 'object' ? options.limit : undefined;
    const limit = Number.isSafeInteger(given) && given >= 0 ? given : Infinity;
    let remaining = limit;
    let after = -1;
    do {
      const size = Math.max(1, Math.min(PAGE_RUNS, remaining));
      const page = unwrap(await this.#run(() => this.#native.runsPage('[' + filter + ',' + after + ',' + size + ']')));
      for (let i = 0; i < page.length && remaining > 0; i++) {
        const { runId, runLabel, recordedMs, run } = page[i];
        remaining--;
        yield { runId, runLabel, recordedMs, run };
      }
      if (page.length < size) return;
      after = page[page.length - 1].seq;
    } while (remaining > 0);
  }

  /** Appends receipts to the chain of log `log` in one transaction; resolves how many lines were appended (0 when each run's receipt is there). */
  async appendReceipts(log, receipts) {
    return unwrap(await this.#run(() => this.#native.appendReceipts('[' + enc(log, AS_LOG_NAME) + ',' + enc(receipts, AS_RECEIPTS) + ']')));
  }

  /** Recomputes the chain of log `log`: what `verifyReceipts(text)` answers for the log's text. */
  async verifyReceipts(log) {
    return unwrap(await this.#run(() => this.#native.verifyReceipts('[' + enc(log, AS_LOG_NAME) + ']')));
  }

  /** The receipt log `log` as JSONL text ('' when there is none). */
  async receiptLog(log) {
    return unwrap(await this.#run(() => this.#native.receiptLog('[' + enc(log, AS_LOG_NAME) + ']')));
  }

  /** Stores a calibration artifact under `name` (replacing the one there); resolves its lifecycle `{name, kind, expiresAt, promoted, sha256, state}`. */
  async putArtifact(name, artifact) {
    const document = artifact instanceof LoopCalibration ? artifact.artifact : artifact;
    return unwrap(await this.#run(() => this.#native.putArtifact('[' + enc(name, AS_NAME) + ',' + enc(document, AS_ARTIFACT) + ',' + Date.now() + ']')));
  }

  /** The artifact stored under `name` with its lifecycle (`state`: 'promoted', 'shadow' or 'expired' now), or null. */
  async artifact(name) {
    return unwrap(await this.#run(() => this.#native.artifact('[' + enc(name, AS_NAME) + ',' + Date.now() + ']')));
  }

  /** Merges a pyramid outcome model (a document or an OutcomeModel) into the model `name`, in one transaction; resolves the merged document. */
  async mergeModel(name, model) {
    return unwrap(await this.#run(() => this.#native.mergeModel('[' + enc(name, AS_NAME) + ',' + enc(modelOf(model), AS_MODEL) + ']')));
  }

  /** The model stored under `name`, or null. */
  async model(name) {
    return unwrap(await this.#run(() => this.#native.model('[' + enc(name, AS_NAME) + ']')));
  }

  /** Writes the runs `{runLabel, dataset, since, limit}` selects to `path` as JSONL (what `earlyexit runs export` writes); resolves how many. */
  async exportRuns(path, options = undefined) {
    return unwrap(await this.#run(() => this.#native.exportRuns('[' + enc(path, AS_PATH) + ',' + encOpt(filterOf(options)) + ']')));
  }

  /** Adds the runs of a JSONL file in one transaction, all or none (`{runLabel}`); resolves `{read, added}`. */
  async importRuns(path, options = undefined) {
    return unwrap(await this.#run(() => this.#native.importRuns('[' + enc(path, AS_PATH) + ',' + encOpt(options, AS_OPTIONS) + ']')));
  }

  /** Checks the whole store (SQLite's integrity check, every entry read back): `{valid, schemaVersion, runs, receiptLogs, receipts, artifacts, models}`. */
  async check() {
    return unwrap(await this.#run(() => this.#native.check()));
  }

  /** Closes the store once the calls before it are done; later calls are refused (`store`). */
  async close() {
    if (this.#closing === null) {
      const before = [...this.#pending];
      this.#closing = Promise.allSettled(before).then(() => this.#native.close());
    }
    await this.#closing;
  }

  // A native call (`start()` makes it) in flight, until it settles; after close(), made once
  // the store is closed, so that it is refused.
  async #run(start) {
    if (this.#closing !== null) await this.#closing;
    const call = start();
    this.#pending.add(call);
    try {
      return await call;
    } finally {
      this.#pending.delete(call);
    }
  }
}

/** The receipt log a `Loop` given a store writes its shadow receipt to (shared with Python's `Loop(store=...)`). */
export const defaultLoopReceiptLog = () => native.NativeStore.defaultLoopReceiptLog();

/** `verifyReceipts(text)`, or `verifyReceipts(store, log)`: the chain of a store's log (a Promise). */
export function verifyReceiptsOf(source, log) {
  if (source instanceof Store) return source.verifyReceipts(log);
  return verifyReceipts(source);
}

/** Checks a store entry's name given before any store call (a Loop's `receiptLog`) by the store's rule; throws the typed error naming `field`. */
export function checkStoreName(field, name) {
  unwrap(native.NativeStore.checkStoreName(field, enc(name, { code: ERROR_CODE.INVALID_CONFIG, root: field, name: field })));
}

// Whether this build has the store (the napi addon; the wasm package has none).
export const hasStore = () => typeof native.NativeStore === 'function';
