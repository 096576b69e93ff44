// The live public fields of EarlyStopping (loop.js): the seed's `iterationHistory`, `config`
// and the history's records handed out as views (Proxies) whose writes the engine sees, and
// the collaborators that hold that state for each engine (LiveConfig, HistoryViews).

import { arrayIndex, enc, entriesOf, listOf, sameEntries } from './codec.js';
import { ES_HISTORY_CHECK } from './calls.generated.mjs';

// The seed's public fields are plain data its users write to (`stopper.config.x = v`,
// `stopper.iterationHistory.push(r)`), and the seed honours the writes. Here the history
// and the config are handed out as live views (Proxies) whose writes the engine sees:
// a config write and a write to a recorded record are checked by the core at the write
// (a typed error, nothing written); records put into the history from outside are checked
// by the core when the engine next uses its history (a typed error naming
// `iterationHistory[i]`). The state is then folded again lazily, so the normal loop
// (recordIterationResult + shouldStop) keeps its fast path: one flag test per call.

// Record views (any engine's) -> { engine, record }.
export const RECORD_OF = new WeakMap();
// History views -> the array they show.
export const HISTORY_OF = new WeakMap();

// A view of one of `engine`'s records: writes are checked at the write and fold the history
// again (`indexOf(record, view)`: where it is in the engine's history, -1 when no longer
// there: the caller's alone, as in the seed; `changed(whole)`: the engine notes the write).
export function recordView(record, engine, indexOf, changed) {
  if (typeof record.timestamp === 'number') record.timestamp = new Date(record.timestamp).toISOString();
  let view = null;
  const write = (key, value, present) => {
    if (typeof key === 'symbol') return present ? Reflect.set(record, key, value) : Reflect.deleteProperty(record, key);
    const at = indexOf(record, view);
    if (at >= 0) {
      const candidate = { ...record };
      if (present) candidate[key] = value;
      else delete candidate[key];
      ES_HISTORY_CHECK(listOf(enc(candidate)), at, 'null');
      changed(true);
    }
    if (present) record[key] = value;
    else delete record[key];
    return true;
  };
  view = new Proxy(record, {
    set: (target, key, value) => write(key, value, true),
    deleteProperty: (target, key) => write(key, undefined, false),
    defineProperty: (target, key, descriptor) => write(key, 'value' in descriptor ? descriptor.value : descriptor.get ?? descriptor.set, true),
  });
  RECORD_OF.set(view, { engine, record });
  return view;
}

// The seed's `iterationHistory`, live: `engine`'s history array `target` behind a Proxy that
// sees writes. `port`: live() (whether target is still the engine's history: after reset() it
// is the caller's alone), shown(entry) (how an entry is shown), folded() (entries the state
// holds), changed(whole) (a write: `whole` when not an append) and give(object) (an object
// put into the history from outside).
export function historyView(target, engine, port) {
  const shown = (value) => (value !== null && typeof value === 'object' && port.live() ? port.shown(value) : value);
  const written = (key, value) => {
    if (!port.live()) return value;
    const index = arrayIndex(key);
    const folded = port.folded();
    if (key === 'length') port.changed(!(value >= folded)); // shorter: not an append
    else if (index >= 0) port.changed(index < folded);
    else return value;
    // This engine's own record (through its view) goes back in as itself.
    const viewed = RECORD_OF.get(value);
    if (viewed !== undefined && viewed.engine === engine) return viewed.record;
    if (value !== null && typeof value === 'object') port.give(value);
    return value;
  };
  const view = new Proxy(target, {
    get: (t, key) => shown(t[key]),
    getOwnPropertyDescriptor: (t, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(t, key);
      if (descriptor !== undefined && 'value' in descriptor) descriptor.value = shown(descriptor.value);
      return descriptor;
    },
    set: (t, key, value) => Reflect.set(t, key, written(key, value)),
    defineProperty: (t, key, descriptor) =>
      Reflect.defineProperty(t, key, 'value' in descriptor ? { ...descriptor, value: written(key, descriptor.value) } : (written(key, undefined), descriptor)),
    deleteProperty: (t, key) => {
      if (port.live() && arrayIndex(key) >= 0) port.changed(true);
      return Reflect.deleteProperty(t, key);
    },
  });
  HISTORY_OF.set(view, target);
  return view;
}

// The seed's `config`, live: the object `target` behind a Proxy whose writes go to
// `write(key, value)` (checked by the core at the write) while `live()` (it is what the
// engine's config view shows: configure replaces it, as in the seed).
export function configView(target, live, write) {
  const written = (key, value, apply) => {
    if (!live() || typeof key === 'symbol') return apply();
    write(key, value);
    return true;
  };
  return new Proxy(target, {
    set: (t, key, value) => written(key, value, () => Reflect.set(t, key, value)),
    deleteProperty: (t, key) => written(key, undefined, () => Reflect.deleteProperty(t, key)),
    defineProperty: (t, key, descriptor) =>
      written(key, 'value' in descriptor ? descriptor.value : descriptor.get ?? descriptor.set, () => Reflect.defineProperty(t, key, descriptor)),
  });
}

// The live `config` of one engine: the object assigned to `config` (the seed's users assign
// one and keep writing to it) and the view handed out. The engine keeps the config itself
// (its hot path reads it); this keeps what the seed's users hold.
export class LiveConfig {
  given = null; // an object assigned to config: { object, keys, values } as last read
  #view = null;
  #target = null; // what the view shows (replaced by configure, as in the seed)

  // The view of config `value`; its writes go to `write(key, value)`.
  viewOf(value, write) {
    if (this.#view !== null) return this.#view;
    const target = { ...value };
    this.#target = target;
    this.#view = configView(target, () => this.#target === target, write);
    return this.#view;
  }

  // `value` assigned to config (null: a config made anew, as configure makes): the old
  // object and view are the caller's alone from now on.
  assign(value) {
    this.given = value !== null && typeof value === 'object' ? { object: value, ...entriesOf(value) } : null;
    this.#view = null;
    this.#target = null;
  }

  // The assigned object when it changed since last read (`seen()` once the engine took it), else null.
  changed() {
    const given = this.given;
    return given !== null && !sameEntries(given.object, given) ? given.object : null;
  }

  seen() {
    Object.assign(this.given, entriesOf(this.given.object));
  }

  // Key `key` written through the view (the core accepted it): the assigned object is the
  // config, as in the seed, so it takes the write too; the view shows config `value`.
  written(key, value, config) {
    if (this.given !== null) {
      this.given.object[key] = value;
      this.seen();
    }
    this.refresh(config);
  }

  // The view shows config `value` as it now is.
  refresh(value) {
    const target = this.#target;
    if (target === null) return;
    for (const key of Object.keys(target)) delete target[key];
    Object.assign(target, value);
  }
}

// The history views of one engine (made when first needed: a loop that never reads its
// public fields never makes one). `port`: history() (the engine's array), adopted() (an
// array assigned to iterationHistory, or null), folded() and changed(whole) as historyView's.
export class HistoryViews {
  given = null; // WeakSet of objects put into the history through its view
  #records = null; // WeakMap: the engine's record -> its view
  #view = null;
  #engine;
  #port;

  constructor(engine, port) {
    this.#engine = engine;
    this.#port = port;
  }

  // Whether `entry` was put into the history from outside, through the view.
  gave(entry) {
    return this.given !== null && this.given.has(entry);
  }

  // A new history array (assigned, or reset): the views of the old one are the caller's alone.
  forget() {
    this.given = null;
    this.#view = null;
  }

  // A view of one of the engine's records: writes are checked at the write and fold the
  // history again; a record no longer in the history is the caller's alone, as in the seed.
  viewOf(record) {
    const views = (this.#records ??= new WeakMap());
    let view = views.get(record);
    if (view === undefined) {
      const port = this.#port;
      view = recordView(record, this.#engine, (own, viewed) => port.history().indexOf(port.adopted() === null ? own : viewed), port.changed);
      views.set(record, view);
    }
    return view;
  }

  // The seed's `iterationHistory`, live: the history array behind a Proxy that sees writes.
  history() {
    const port = this.#port;
    const target = port.history();
    if (port.adopted() !== null) return target; // the caller's own array, as in the seed
    let view = this.#view;
    if (view !== null && HISTORY_OF.get(view) === target) return view;
    view = historyView(target, this.#engine, {
      live: () => port.history() === target,
      shown: (entry) => (RECORD_OF.has(entry) || this.gave(entry) ? entry : this.viewOf(entry)),
      folded: port.folded,
      changed: port.changed,
      give: (object) => (this.given ??= new WeakSet()).add(object),
    });
    this.#view = view;
    return view;
  }
}
