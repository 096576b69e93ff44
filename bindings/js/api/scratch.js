// The scratch buffer of f64 slots the fast paths share with the native side. napi: a Float64Array this layer owns and binds once (the addon
// keeps a pointer); wasm: a view of wasm memory, viewed again when the memory grows.
// Shared by every copy of this layer over the same native module: a test runner may load
// the package more than once in one thread, and the native side has one buffer per
// thread, so the buffer and which engine's state is in it must be known to all copies.
// Kept on the module's `fastFold` function, which every copy sees as the same object even
// when a package entry hands this layer a wrapper of the module (the wasm package routes
// replay ops through one).
const SHARED = Symbol.for('earlyexit.scratch');
const home = typeof native.fastFold === 'function' ? native.fastFold : native;
export const fast = home[SHARED] || (home[SHARED] = {
  scratch: new Float64Array(0), owner: null, evict: null, timestampFor: null, timestampBytes: null, memory: null, address: 0, size: 0,
});

export function growScratch(min) {
  const size = Math.max(4096, 2 * min);
  if (typeof native.scratchReserve === 'function') {
    const address = native.scratchReserve(size);
    fast.memory = native.wasmMemory(); // kept: after a trap, the last engine's state is read from it
    fast.address = address;
    fast.size = size;
    fast.scratch = new Float64Array(fast.memory.buffer, address, size);
  } else {
    const grown = new Float64Array(size);
    grown.set(fast.scratch);
    native.bindScratch(grown);
    fast.scratch = grown;
  }
  return fast.scratch;
}

// The scratch view after a native call (a wasm call that allocated may have grown the
// memory, which detaches the old view).
export function scratchView() {
  const s = fast.scratch;
  return s.length !== 0 ? s : growScratch(0);
}

