/* tslint:disable */
/* eslint-disable */

/**
 * The native object behind each stateful JS class. Freed by the JS wrapper's `free()`
 * (or its `Symbol.dispose`), else by wasm-bindgen's FinalizationRegistry.
 */
export class NativeEngine {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * Runs op `op` with the arguments in the wire format; answers in the wire format.
     */
    call(op: number, args: string): string;
    /**
     * An empty engine; the first op fills it.
     */
    constructor();
}

export function __wbg_reset_state(): void;

/**
 * Runs a stateless op.
 */
export function exec(op: number, args: string): string;

/**
 * Decides over the state slots; answers the decision's code.
 */
export function fastDecide(): number;

/**
 * `'Diminishing returns detected: ' + reason`.
 */
export function fastDiminishingReason(reason: string): string;

/**
 * Validates and folds the record in the input slots: 0 = done, 1 = ask the JSON path.
 */
export function fastFold(): number;

/**
 * The reason text of the decision just made.
 */
export function fastReason(): string;

/**
 * Starts a test-pyramid run over the slots (`js/interface/src/fast_pyramid.rs`).
 */
export function pyramidStart(): number;

/**
 * Submits the pending layer's result; answers the next action.
 */
export function pyramidSubmit(): number;

/**
 * Writes the finished run's result numbers.
 */
export function pyramidSummary(): number;

/**
 * Makes the scratch buffer at least `len` slots long (contents kept); answers its address.
 * Growing may grow the memory, so the JS layer views it again afterwards.
 */
export function scratchReserve(len: number): number;

/**
 * Runs when an instance starts: nothing to do, but the glue's `__wbg_reset_state` (which the
 * package calls after a trap, to start a fresh instance) expects a start function.
 */
export function start(): void;

/**
 * The module's memory, for the JS layer's view of the scratch slots.
 */
export function wasmMemory(): any;

export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

export interface InitOutput {
    readonly memory: WebAssembly.Memory;
    readonly __wbg_nativeengine_free: (a: number, b: number) => void;
    readonly exec: (a: number, b: number, c: number) => [number, number];
    readonly fastDecide: () => number;
    readonly fastDiminishingReason: (a: number, b: number) => [number, number];
    readonly fastFold: () => number;
    readonly fastReason: () => [number, number];
    readonly nativeengine_call: (a: number, b: number, c: number, d: number) => [number, number];
    readonly nativeengine_new: () => number;
    readonly pyramidStart: () => number;
    readonly pyramidSubmit: () => number;
    readonly pyramidSummary: () => number;
    readonly scratchReserve: (a: number) => number;
    readonly start: () => void;
    readonly wasmMemory: () => number;
    readonly __wbindgen_malloc: (a: number, b: number) => number;
    readonly __wbindgen_realloc: (a: number, b: number, c: number, d: number) => number;
    readonly __wbindgen_free: (a: number, b: number, c: number) => void;
    readonly __wbindgen_start: () => void;
}

export type SyncInitInput = BufferSource | WebAssembly.Module;

/**
 * Instantiates the given `module`, which can either be bytes or
 * a precompiled `WebAssembly.Module`.
 *
 * @param {{ module: SyncInitInput }} module - Passing `SyncInitInput` directly is deprecated.
 *
 * @returns {InitOutput}
 */
export function initSync(module: { module: SyncInitInput } | SyncInitInput): InitOutput;

/**
 * If `module_or_path` is {RequestInfo} or {URL}, makes a request and
 * for everything else, calls `WebAssembly.instantiate` directly.
 *
 * @param {{ module_or_path: InitInput | Promise<InitInput> }} module_or_path - Passing `InitInput` directly is deprecated.
 *
 * @returns {Promise<InitOutput>}
 */
export default function __wbg_init (module_or_path?: { module_or_path: InitInput | Promise<InitInput> } | InitInput | Promise<InitInput>): Promise<InitOutput>;
