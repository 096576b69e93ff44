// IterationAnalytics, aiwg's iteration-analytics.mjs as a drop-in.

import {
  ANALYTICS_RECORD_FIELDS, ANSWER_ERROR, ANSWER_TAGGED, FILE_KIND, HOST_CODES, MESSAGES, selectionOf,
} from './contract.generated.mjs';
import {
  AS_SNAPSHOT, FREED, RESTORE, arrayIndex, copyData, enc, encEntry, entriesOf, freedError, makeError, newNative,
  release, sameEntries, unwrap,
} from './codec.js';
import {
  IA_CONFIG, IA_DETECT, IA_FROM_JSON, IA_NEW, IA_OPTIMAL, IA_RECORD, IA_RECORDS, IA_RESET, IA_SAVE, IA_SELECT,
  IA_SETTLE, IA_TEXT_ASSIGN, IA_TEXT_CHART, IA_TEXT_DURATION, IA_TEXT_FILE, IA_TEXT_FROM_SUMMARY, IA_TEXT_PATH_CHECK,
  IA_TEXT_RECORD_CHECK, IA_TEXT_REPORT, IA_TO_JSON, IA_TRAJECTORY,
} from './calls.generated.mjs';

// ------------------------------------------------------------------------
// The built-in diminishing-returns source: a drop-in for aiwg's iteration-analytics.mjs
//
// Two constructor forms: upstream's `new IterationAnalytics(loopId, taskDescription, config)`,
// which saves its summary after every record as upstream does (unless `persist: false`), and
// `new IterationAnalytics(config)`, which never writes by itself. Rules, strings, the chart and
// the report come from the core; this layer reads the clock (where upstream does) and writes
// the files. The summary file is upstream's `JSON.stringify(summary, null, 2)`, byte for byte;
// an autosave appends the new record instead of rewriting the whole history (see #saveSummary).
//
// upstream's `iterations` and `config` are plain data its users write to
// (`analytics.iterations.push(r)`, `analytics.iterations[2].quality_score = 80`,
// `analytics.config.qualityThreshold = 60`), and upstream honours the writes. Here, as with
// EarlyStopping's fields, they are live views (Proxies) over this layer's copy of the history
// (the records as the caller sees them: the objects the core answered, and objects put in from
// outside): a config write and a write to a field of one of this object's records are checked
// by the core at the write (a typed error, nothing written); anything else (an object put into
// the history, an array assigned to `iterations`, an element of a `reflections` array) is
// checked when the object next uses its records, when the core takes the history whole
// (O(records)). Until then a bad entry throws the core's typed error at every use and nothing
// changes. The normal loop (recordIteration, detectDiminishingReturns) pays one flag test.

const clockNow = () => JSON.stringify(new Date().toISOString());

// Where there is no file system (browsers): a plain Error, as a loading error is (a host
// condition the core never sees: its text is the contract's, host_messages.rs).
function noFileSystem(what) {
  const error = new Error(MESSAGES.NO_FILE_SYSTEM(what));
  error.code = HOST_CODES.NO_FILE_SYSTEM;
  error.field = what;
  return error;
}

// The saved summary from its pieces (IA_SAVE), as JSON.stringify(summary, null, 2) writes it:
// the head ends with `"iterations": [`, each record follows its separator, the tail follows
// the records' closing bracket.
const summaryHead = (head) => JSON.stringify(head, null, 2).slice(0, -2) + ',\n  "iterations": [';
const summaryRecord = (record) => '\n    ' + JSON.stringify(record, null, 2).replace(/\n/g, '\n    ');
const summaryClose = (total) => (total === 0 ? ']' : '\n  ]');
const summaryTail = (tail) => ',' + JSON.stringify(tail, null, 2).slice(1);
// IA_SAVE's `from` that asks for no records (this layer writes its own copies).
const NO_RECORDS = '9007199254740991';

// A snapshot with one of upstream's fields assigned (IA_TEXT_ASSIGN: the core checks the
// value; a bad one throws its typed error), as JSON text for IA_FROM_JSON.
function assigned(snapshot, field, valueText) {
  const answer = IA_TEXT_ASSIGN(snapshot, field, valueText);
  if (answer.charCodeAt(0) === ANSWER_ERROR) throw makeError(answer);
  return answer.charCodeAt(0) === ANSWER_TAGGED ? JSON.stringify(unwrap(answer)) : answer;
}

// An object's wire text with `key` set to `value`, `undefined` kept (a config write the core
// must see: upstream would read `undefined` there).
function encWith(object, key, value, present) {
  const rest = { ...object };
  delete rest[key];
  const text = enc(rest);
  if (!present) value = undefined;
  return text.slice(0, -1) + (text.length > 2 ? ',' : '') + encEntry(key, value).slice(1);
}

// A record view answers these (and only these) with its record and its IterationAnalytics:
// no lookup table on the record path (a WeakMap entry per record costs microseconds in GC).
const VIEW_TARGET = Symbol('earlyexit.analyticsRecord');
const VIEW_OWNER = Symbol('earlyexit.analyticsOwner');
// What a history entry holds as data: a record view's record, anything else itself.
const dataOf = (entry) => (entry !== null && typeof entry === 'object' ? entry[VIEW_TARGET] ?? entry : entry);
// `iterations` views -> their array; `reflections` views -> their array.
const ITERATIONS_OF = new WeakMap();
const REFLECTIONS_OF = new WeakMap();

export class IterationAnalytics {
  #native;
  #persist = false;
  // upstream's scalar public fields, as the core last answered them: {loopId,
  // taskDescription, startTime, endTime, storagePath}. They change only by assignment
  // (which replaces the native state from a snapshot) and endTime by the first summary.
  #fields = null;
  // What the last save to `path` wrote: enough to append the next record in place.
  #file = null;
  // upstream's `iterations`: the records as the caller sees them (the core holds the same
  // values): this object's records, each behind its view (a Proxy over a plain object), and
  // objects put in from outside, kept as they are, as upstream keeps them.
  #records = [];
  #adopted = null; // an array assigned to `iterations` (#records is it): its entries as last checked
  #borrowed = null; // WeakSet: this object's records whose `reflections` was assigned an array
  #normalized = null; // WeakSet: recorded records given upstream's full key set (at their first write)
  #watched = null; // Map: what the caller can change unseen (its objects, borrowed arrays' records) -> wire text as checked
  #outside = false; // something may have changed from outside: catch up before the next use
  #stale = false; // the core does not hold #records: it takes them whole at the next use
  #reflectionViews = null; // WeakMap: a reflections array of this object's records -> its view
  #recordedHandler = null; // the record views' handlers: recordIteration's records, and loaded ones
  #loadedHandler = null;
  #iterationsView = null;
  #configView = null;
  #configTarget = null; // what the config view shows
  #configGiven = null; // an object assigned to config: { object, keys, values }

  /**
   * `new IterationAnalytics(loopId, taskDescription, config)` (upstream's form; saves after
   * every record unless `config.persist` is false) or `new IterationAnalytics(config)`.
   */
  constructor(loopIdOrConfig = undefined, taskDescription = undefined, config = undefined) {
    if (loopIdOrConfig === RESTORE) {
      this.#native = FREED;
      return;
    }
    const upstream = typeof loopIdOrConfig === 'string' || arguments.length >= 2;
    const engine = newNative();
    let answer;
    try { // the arguments are encoded after the object is made: one the encoder refuses frees it
      answer = upstream
        ? IA_NEW(engine, true, loopIdOrConfig, taskDescription, config, clockNow(), host !== null)
        : IA_NEW(engine, false, null, null, loopIdOrConfig, clockNow(), host !== null);
    } catch (error) {
      release(engine);
      throw error;
    }
    if (answer.charCodeAt(0) === ANSWER_ERROR) {
      release(engine);
      throw makeError(answer);
    }
    this.#native = engine;
    this.#adopt(unwrap(answer));
  }

  // After the native object is filled: read its fields once; upstream's form (persist)
  // creates its folder at once, as upstream's constructor does.
  #adopt(persist) {
    this.#readFields();
    this.#persist = persist;
    if (persist) this.ensureStorageDir();
  }

  #readFields() {
    const snapshot = unwrap(this.#snapshot());
    this.#fields = {
      loopId: snapshot.loopId, taskDescription: snapshot.taskDescription, startTime: snapshot.startTime,
      endTime: snapshot.endTime, storagePath: snapshot.config.storagePath,
    };
  }

  // Replaces the native state with a snapshot the core checked (an assignment, a catch-up).
  #replaceNative(snapshot) {
    const engine = IA_FROM_JSON(snapshot);
    release(this.#native);
    this.#native = engine;
    this.#readFields();
  }

  /** Creates the storage folder (what upstream's constructor does). */
  ensureStorageDir() {
    if (host === null) throw noFileSystem('ensureStorageDir');
    host.fs.mkdirSync(this.#fields.storagePath, { recursive: true });
  }

  /** Records one iteration's metrics; saves the summary when this object persists. */
  recordIteration(metrics) {
    if (this.#outside) this.#catchUp();
    const record = IA_RECORD(this.#native, metrics, clockNow());
    const view = new Proxy(record, (this.#recordedHandler ??= this.#recordHandler(true)));
    this.#records.push(view);
    if (this.#adopted !== null) this.#adopted.push(view);
    if (this.#persist) this.saveAnalytics();
    return view; // the stored record itself, as upstream returns it
  }

  detectDiminishingReturns() {
    if (this.#outside) this.#catchUp();
    return IA_DETECT(this.#native);
  }

  getTrajectory() {
    if (this.#outside) this.#catchUp();
    return IA_TRAJECTORY(this.#native);
  }

  /** The best record (upstream's stored object, as `iterations` shows it), or null. */
  getOptimalIteration(verifiedOnly = true) {
    if (this.#outside) this.#catchUp();
    const index = IA_OPTIMAL(this.#native, verifiedOnly);
    return index === null ? null : this.#records[index];
  }

  selectBestIteration() {
    if (this.#outside) this.#catchUp();
    const [index, reason] = IA_SELECT(this.#native);
    return selectionOf(index === null ? null : this.#records[index], reason);
  }

  /**
   * upstream's summary; the first call sets `endTime` (to now, unless it was given). Its
   * `iterations` is `this.iterations` itself, as upstream's is.
   */
  generateSummary() {
    if (this.#outside) this.#catchUp();
    const [head, , tail] = IA_SAVE(this.#native, clockNow(), NO_RECORDS);
    this.#fields.endTime = head.end_time;
    head.iterations = this.#iterationsProxy();
    return Object.assign(head, tail); // upstream's keys in upstream's order
  }

  // The snapshot, for the stateless ops (it holds everything the chart and report read).
  #snapshot() {
    return IA_TO_JSON(this.#native);
  }

  generateQualityChart() {
    if (this.#outside) this.#catchUp();
    return IA_TEXT_CHART(this.#snapshot());
  }

  /** The markdown report; `options.generatedAt` fixes its last line's time (default: now). */
  generateReport(options = undefined) {
    if (this.#outside) this.#catchUp();
    const now = clockNow();
    // The summary's end time first, as upstream's report sets it.
    this.#fields.endTime = IA_SETTLE(this.#native, now);
    return IA_TEXT_REPORT(this.#snapshot(), options, now);
  }

  #target(filename, kind) {
    const fields = this.#fields;
    const target = IA_TEXT_FILE(fields.loopId, fields.storagePath, filename, kind);
    if (target.path !== undefined) return target.path;
    // upstream's default file: its folder exists once the constructor ran (upstream creates
    // it there; an object that does not save by itself creates it on its first save).
    host.fs.mkdirSync(target.dir, { recursive: true });
    return host.path.join(target.dir, target.name);
  }

  /** Saves the summary (JSON) and returns its path; in a browser, returns the JSON text. */
  saveAnalytics(filename = null) {
    if (this.#outside) this.#catchUp();
    if (host === null) {
      if (filename !== null && filename !== undefined) throw noFileSystem('saveAnalytics(filename)');
      const [head, , tail, total] = IA_SAVE(this.#native, clockNow(), NO_RECORDS);
      this.#fields.endTime = head.end_time;
      return summaryHead(head) + this.#records.map((entry) => summaryRecord(dataOf(entry))).join(',') + summaryClose(total) + summaryTail(tail);
    }
    const path = this.#target(filename, JSON.stringify(FILE_KIND.SUMMARY));
    this.#saveSummary(path);
    return path;
  }

  // Writes the summary to `path`. When this object wrote `path` last and the file is as it
  // left it (same size and modification time) with the same head, only what changed is
  // written: the file is cut after its last record and the new records, the closing bracket
  // and the new tail follow. The bytes are those of a full rewrite; the work per record is
  // the record's, not the history's. The records are written from this layer's copy (the
  // objects upstream's `iterations` holds, keys in their own order, as upstream writes them).
  #saveSummary(path) {
    const { fs } = host;
    const last = this.#file !== null && this.#file.path === path ? this.#file : null;
    const [head, , tail, total] = IA_SAVE(this.#native, clockNow(), NO_RECORDS);
    this.#fields.endTime = head.end_time;
    const records = this.#records;
    const headText = summaryHead(head);
    if (last !== null && last.head === headText && total >= last.count) {
      let fd = -1;
      try {
        fd = fs.openSync(path, 'r+');
        const stat = fs.fstatSync(fd);
        if (stat.size === last.size && stat.mtimeMs === last.mtimeMs) {
          let text = '';
          let end = last.end;
          for (let i = last.count; i < total; i++) {
            const piece = (i > 0 ? ',' : '') + summaryRecord(dataOf(records[i]));
            text += piece;
            end += host.byteLength(piece);
          }
          text += summaryClose(total) + summaryTail(tail);
          fs.ftruncateSync(fd, last.end);
          fs.writeSync(fd, text, last.end);
          const after = fs.fstatSync(fd);
          this.#file = { path, head: headText, count: total, end, size: after.size, mtimeMs: after.mtimeMs };
          return;
        }
      } catch (error) {
        if (error.code !== 'ENOENT') throw error; // gone: write it whole
      } finally {
        if (fd !== -1) fs.closeSync(fd);
      }
    }
    let text = headText;
    for (let i = 0; i < total; i++) text += (i > 0 ? ',' : '') + summaryRecord(dataOf(records[i]));
    const end = host.byteLength(text);
    text += summaryClose(total) + summaryTail(tail);
    fs.writeFileSync(path, text);
    const after = fs.statSync(path);
    this.#file = { path, head: headText, count: total, end, size: after.size, mtimeMs: after.mtimeMs };
  }

  /** Saves the markdown report and returns its path; in a browser, returns the text. */
  saveReport(filename = null) {
    if (host === null) {
      if (filename !== null && filename !== undefined) throw noFileSystem('saveReport(filename)');
      return this.generateReport();
    }
    if (this.#outside) this.#catchUp();
    const path = this.#target(filename, JSON.stringify(FILE_KIND.REPORT));
    host.fs.writeFileSync(path, this.generateReport());
    return path;
  }

  /** Both files: `{json, markdown}` paths (in a browser, the texts). */
  // (upstream's own object: where this layer wrote the files, which the core never sees)
  export() {
    return { json: this.saveAnalytics(), markdown: this.saveReport() };
  }

  /** upstream's load: an analytics object from a saved summary file (Node). */
  static load(filepath, config = undefined) {
    if (host === null) throw noFileSystem('load');
    IA_TEXT_PATH_CHECK(filepath);
    if (!host.fs.existsSync(filepath)) {
      const error = new Error(MESSAGES.ANALYTICS_FILE_NOT_FOUND(filepath)); // upstream's text, before reading
      error.code = HOST_CODES.ANALYTICS_FILE_NOT_FOUND;
      error.path = filepath;
      throw error;
    }
    return IterationAnalytics.#restore(host.fs.readFileSync(filepath, 'utf8'), config, host.path.join(filepath, '..'));
  }

  /** An analytics object from a saved summary (the object or its JSON text), as `load` reads it. */
  static fromSummary(summary, config = undefined) {
    return IterationAnalytics.#restore(summary, config, null);
  }

  static #restore(summary, config, folder) {
    const [snapshot, persist] = IA_TEXT_FROM_SUMMARY(summary, config, folder, host !== null);
    const restored = new IterationAnalytics(RESTORE);
    restored.#native = IA_FROM_JSON(JSON.stringify(snapshot));
    // The summary's records as it lists them (upstream's load assigns them: their keys keep
    // their order in later saves); the core checked the same values.
    const records = typeof summary === 'string' ? JSON.parse(summary).iterations : copyData(summary.iterations);
    restored.#records = restored.#viewsOf(records);
    // A snapshot does not say whether to save: upstream's load does, unless told otherwise.
    restored.#adopt(persist);
    return restored;
  }

  /** upstream's `formatDuration(ms)`: `1h 2m 3s`, `2m 3s` or `3s`. */
  static formatDuration(ms) {
    return IA_TEXT_DURATION(ms);
  }

  getConfig() {
    if (this.#configGiven !== null) this.#catchUp(false);
    return IA_CONFIG(this.#native);
  }

  /** Every record, as plain copies (upstream's key order). */
  getRecords() {
    if (this.#outside) this.#catchUp();
    return IA_RECORDS(this.#native);
  }

  /** Clears the records (a new `iterations` array: the old one is the caller's alone). */
  reset() {
    IA_RESET(this.#native);
    this.#file = null; // the file's records are no longer this object's: the next save writes it whole
    this.#records = [];
    this.#adopted = null;
    this.#watched = null;
    this.#stale = false;
    this.#outside = this.#configGiven !== null;
  }

  toJSON() {
    if (this.#outside) this.#catchUp();
    return unwrap(IA_TO_JSON(this.#native));
  }

  /** Restores a snapshot (object or JSON text); a restored object never saves by itself. */
  static fromJSON(snapshot) {
    const engine = IA_FROM_JSON(enc(snapshot, AS_SNAPSHOT));
    const restored = new IterationAnalytics(RESTORE);
    restored.#native = engine;
    restored.#records = restored.#viewsOf(IA_RECORDS(engine));
    restored.#adopt(false);
    return restored;
  }

  free() {
    release(this.#native);
    this.#native = FREED;
    this.#records = [];
    this.#adopted = null;
    this.#watched = null;
    this.#configGiven = null;
    this.#outside = false;
    this.#stale = false;
  }

  // ----------------------------------------------------------------------
  // upstream's public data, live (see the top of this section).

  // Notes a change to the history from outside: the core takes it whole at the next use.
  #changed() {
    this.#stale = true;
    this.#outside = true;
    this.#file = null; // the next save writes the file whole
  }

  // Brings the core up to date with what changed from outside: the object assigned to
  // config, then (`records`) the history. Both are checked by the core on a copy of its
  // state, which replaces it only when both are good: a bad value throws its typed error,
  // changes nothing, and is checked again at the next use.
  #catchUp(records = true) {
    const given = this.#configGiven;
    const configChanged = given !== null && !sameEntries(given.object, given);
    const history = this.#records;
    if (records && !this.#stale) {
      const adopted = this.#adopted;
      if (adopted !== null) {
        if (history.length !== adopted.length) this.#stale = true;
        else for (let i = 0; i < history.length; i++) if (history[i] !== adopted[i]) { this.#stale = true; break; }
      }
      if (!this.#stale && this.#watched !== null) {
        for (const [object, text] of this.#watched) {
          if (enc(dataOf(object)) !== text) {
            this.#stale = true;
            break;
          }
        }
      }
    }
    const stale = records && this.#stale;
    if (configChanged || stale) {
      let snapshot = this.#snapshot();
      if (configChanged) snapshot = assigned(snapshot, 'config', enc(given.object));
      let texts = null;
      if (stale) {
        texts = new Array(history.length);
        for (let i = 0; i < history.length; i++) texts[i] = enc(dataOf(history[i]));
        snapshot = assigned(snapshot, 'iterations', '[' + texts.join(',') + ']');
      }
      this.#replaceNative(snapshot);
      if (configChanged) {
        Object.assign(given, entriesOf(given.object));
        this.#refreshConfigView();
      }
      if (stale) this.#checked(texts);
    }
    if (records) this.#outside = given !== null || this.#adopted !== null || this.#watched !== null;
  }

  // The core holds the history as it now is (each entry's wire text in `texts`): what the
  // caller can change unseen is compared with these texts at every use from now on.
  #checked(texts) {
    const history = this.#records;
    let watched = null;
    for (let i = 0; i < history.length; i++) {
      const own = this.#ownRecord(history[i]);
      if (own === null) (watched ??= new Map()).set(history[i], texts[i]);
      else if (this.#borrowed !== null && this.#borrowed.has(own)) (watched ??= new Map()).set(own, texts[i]);
    }
    this.#watched = watched;
    if (this.#adopted !== null) this.#adopted = history.slice();
    this.#stale = false;
    this.#file = null;
  }

  // The record behind a history entry: this object's own (the entry is its view), or null
  // for an entry given from outside.
  #ownRecord(entry) {
    return entry !== null && typeof entry === 'object' && entry[VIEW_OWNER] === this ? entry[VIEW_TARGET] : null;
  }

  // Views of records a restore read (upstream's load keeps its file's records as they are).
  #viewsOf(records) {
    const handler = (this.#loadedHandler ??= this.#recordHandler(false));
    for (let i = 0; i < records.length; i++) records[i] = new Proxy(records[i], handler);
    return records;
  }

  // The handler of this object's record views (`recorded`: records recordIteration made,
  // whose keys upstream's object literal fixes). A field write is checked by the core at the
  // write (when the record is in the history; one that left it is the caller's alone, as in
  // upstream), and `reflections` is a view whose writes count.
  #recordHandler(recorded) {
    const owner = this;
    const shown = (record, key, value) =>
      key === 'reflections' && Array.isArray(value) && (owner.#borrowed === null || !owner.#borrowed.has(record))
        ? owner.#reflectionsView(value)
        : value;
    return {
      get: (record, key, receiver) => {
        if (typeof key === 'symbol') return key === VIEW_TARGET ? record : key === VIEW_OWNER ? owner : Reflect.get(record, key, receiver);
        return shown(record, key, record[key]);
      },
      getOwnPropertyDescriptor: (record, key) => {
        const descriptor = Reflect.getOwnPropertyDescriptor(record, key);
        if (descriptor !== undefined && 'value' in descriptor) descriptor.value = shown(record, key, descriptor.value);
        return descriptor;
      },
      set: (record, key, value, receiver) => owner.#writeRecord(record, receiver, recorded, key, value, true),
      deleteProperty: (record, key) => owner.#writeRecord(record, null, recorded, key, undefined, false),
      defineProperty: (record, key, descriptor) =>
        owner.#writeRecord(record, null, recorded, key, 'value' in descriptor ? descriptor.value : descriptor.get ?? descriptor.set, true),
    };
  }

  // Where one of this object's records is in the history (-1: not there any more).
  #indexOfRecord(record, view) {
    const history = this.#records;
    if (view !== null) {
      const at = history.indexOf(view);
      if (at >= 0 || view[VIEW_TARGET] === record) return at;
    }
    for (let i = 0; i < history.length; i++) if (this.#ownRecord(history[i]) === record) return i;
    return -1;
  }

  // A field of one of this object's records written: checked by the core as a record at
  // its place in the history (`iterations[i].field`), then written.
  #writeRecord(record, view, recorded, key, value, present) {
    if (typeof key !== 'symbol') {
      const reflections = REFLECTIONS_OF.get(value);
      if (reflections !== undefined) value = reflections; // another record's array: shared, as in upstream
      const at = this.#indexOfRecord(record, view);
      if (at >= 0) {
        const candidate = { ...record };
        if (present) candidate[key] = value;
        else delete candidate[key];
        IA_TEXT_RECORD_CHECK(candidate, 'iterations[' + at + ']');
        this.#changed();
      }
      if (recorded) this.#normalize(record);
      // An array the caller gave is the caller's too: compared at every use from now on.
      if (key === 'reflections' && present) (this.#borrowed ??= new WeakSet()).add(record);
    }
    if (present) record[key] = value;
    else delete record[key];
    return true;
  }

  // upstream's recordIteration builds its record as an object literal: every field is a key,
  // in that order, an absent one holding `undefined`. Before its first write, a record
  // recordIteration made takes that shape (ANALYTICS_RECORD_FIELDS), so a field written
  // later keeps upstream's place in the saved summary.
  #normalize(record) {
    const done = (this.#normalized ??= new WeakSet());
    if (done.has(record)) return;
    done.add(record);
    const values = { ...record };
    for (const key of Object.keys(record)) delete record[key];
    for (const key of ANALYTICS_RECORD_FIELDS) record[key] = values[key];
  }

  // A view of a `reflections` array of one of this object's records: its writes count
  // (checked at the next use, as array methods pass through states no record may have).
  #reflectionsView(array) {
    const views = (this.#reflectionViews ??= new WeakMap());
    let view = views.get(array);
    if (view === undefined) {
      const owner = this;
      const written = (key) => {
        if (typeof key !== 'symbol') owner.#changed();
      };
      view = new Proxy(array, {
        set: (t, key, value) => (written(key), Reflect.set(t, key, value)),
        deleteProperty: (t, key) => (written(key), Reflect.deleteProperty(t, key)),
        defineProperty: (t, key, descriptor) => (written(key), Reflect.defineProperty(t, key, descriptor)),
      });
      views.set(array, view);
      REFLECTIONS_OF.set(view, array);
    }
    return view;
  }

  // upstream's `iterations`, live: the history array behind a Proxy that sees writes (its
  // entries are what the caller sees: this object's record views, and the caller's objects).
  #iterationsProxy() {
    const target = this.#records;
    if (this.#adopted !== null) return target; // the caller's own array, as in upstream
    let view = this.#iterationsView;
    if (view !== null && ITERATIONS_OF.get(view) === target) return view;
    const owner = this;
    // After reset() the old array is the caller's alone.
    const written = (key) => {
      if (owner.#records === target && (key === 'length' || arrayIndex(key) >= 0)) owner.#changed();
    };
    view = new Proxy(target, {
      set: (t, key, value) => (written(key), Reflect.set(t, key, value)),
      defineProperty: (t, key, descriptor) => (written(key), Reflect.defineProperty(t, key, descriptor)),
      deleteProperty: (t, key) => (written(key), Reflect.deleteProperty(t, key)),
    });
    ITERATIONS_OF.set(view, target);
    this.#iterationsView = view;
    return view;
  }

  // upstream's `config`, live: its writes are checked by the core at the write.
  #configProxy() {
    if (this.#configView !== null) return this.#configView;
    const target = IA_CONFIG(this.#native);
    const owner = this;
    const write = (key, value, present, apply) => {
      if (owner.#configTarget !== target || typeof key === 'symbol') return apply();
      owner.#writeConfig(key, value, present);
      return true;
    };
    this.#configTarget = target;
    this.#configView = new Proxy(target, {
      set: (t, key, value) => write(key, value, true, () => Reflect.set(t, key, value)),
      deleteProperty: (t, key) => write(key, undefined, false, () => Reflect.deleteProperty(t, key)),
      defineProperty: (t, key, descriptor) =>
        write(key, 'value' in descriptor ? descriptor.value : descriptor.get ?? descriptor.set, true, () => Reflect.defineProperty(t, key, descriptor)),
    });
    return this.#configView;
  }

  // One config key written: checked by the core over the config as it is (an object
  // assigned to config is the config: it is checked whole, and takes the write too);
  // `undefined` or a deleted key is refused (upstream would read undefined).
  #writeConfig(key, value, present) {
    const given = this.#configGiven;
    const base = given !== null ? given.object : IA_CONFIG(this.#native);
    this.#replaceNative(assigned(this.#snapshot(), 'config', encWith(base, key, value, present)));
    if (given !== null) {
      if (present) given.object[key] = value;
      else delete given.object[key];
      Object.assign(given, entriesOf(given.object));
    }
    this.#refreshConfigView();
  }

  // The config view shows the config as it now is.
  #refreshConfigView() {
    const target = this.#configTarget;
    if (target === null) return;
    for (const key of Object.keys(target)) delete target[key];
    Object.assign(target, IA_CONFIG(this.#native));
  }

  // A scalar field assignment: the core checks the value and answers the changed snapshot,
  // which replaces this object's state (O(records), as upstream's own writes are rare).
  #assign(field, value) {
    this.#replaceNative(assigned(this.#snapshot(), field, enc(value)));
  }

  // upstream's public fields, read and written through the core (a write is validated; a
  // bad one throws and changes nothing). `iterations` and `config` are live views.
  get loopId() {
    return this.#fields.loopId;
  }

  set loopId(value) {
    this.#assign('loopId', value);
  }

  get taskDescription() {
    return this.#fields.taskDescription;
  }

  set taskDescription(value) {
    this.#assign('taskDescription', value);
  }

  get startTime() {
    return this.#fields.startTime;
  }

  set startTime(value) {
    this.#assign('startTime', value);
  }

  get endTime() {
    return this.#fields.endTime;
  }

  set endTime(value) {
    this.#assign('endTime', value);
  }

  /** The records, live: writes to the array and its records count, checked by the core. */
  get iterations() {
    if (this.#native === FREED) throw freedError();
    return this.#iterationsProxy();
  }

  /** Another history, checked now: the array itself becomes the object's, as in upstream. */
  set iterations(value) {
    if (this.#native === FREED) throw freedError();
    const array = ITERATIONS_OF.get(value) ?? value;
    if (array === this.#records) return;
    // Another object's view: its entries, as that view shows them.
    const history = Array.isArray(array) && array !== value ? [...value] : value;
    let texts = null;
    let text;
    if (Array.isArray(history)) {
      texts = new Array(history.length);
      for (let i = 0; i < history.length; i++) texts[i] = enc(dataOf(history[i]));
      text = '[' + texts.join(',') + ']';
    } else {
      text = enc(history); // the core's error
    }
    this.#replaceNative(assigned(this.#snapshot(), 'iterations', text));
    this.#records = history;
    this.#adopted = [];
    this.#iterationsView = null;
    this.#checked(texts);
    this.#outside = true;
  }

  /** The config, live: `analytics.config.qualityThreshold = 60` is checked by the core and takes effect. */
  get config() {
    if (this.#native === FREED) throw freedError();
    if (this.#configGiven !== null) this.#catchUp(false);
    return this.#configProxy();
  }

  /** A new config, merged over the defaults (later writes to the object count too). */
  set config(value) {
    this.#assign('config', value);
    this.#configGiven = value !== null && typeof value === 'object' ? { object: value, ...entriesOf(value) } : null;
    this.#configView = null;
    this.#configTarget = null;
    if (this.#configGiven !== null) this.#outside = true;
  }
}

