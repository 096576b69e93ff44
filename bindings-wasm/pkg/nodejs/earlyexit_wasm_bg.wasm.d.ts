/* tslint:disable */
/* eslint-disable */
export const memory: WebAssembly.Memory;
export const __wbg_nativeengine_free: (a: number, b: number) => void;
export const exec: (a: number, b: number, c: number) => [number, number];
export const fastDecide: () => number;
export const fastDiminishingReason: (a: number, b: number) => [number, number];
export const fastFold: () => number;
export const fastReason: () => [number, number];
export const nativeengine_call: (a: number, b: number, c: number, d: number) => [number, number];
export const nativeengine_new: () => number;
export const pyramidStart: () => number;
export const pyramidSubmit: () => number;
export const pyramidSummary: () => number;
export const scratchReserve: (a: number) => number;
export const start: () => void;
export const wasmMemory: () => number;
export const __wbindgen_malloc: (a: number, b: number) => number;
export const __wbindgen_realloc: (a: number, b: number, c: number, d: number) => number;
export const __wbindgen_free: (a: number, b: number, c: number) => void;
export const __wbindgen_start: () => void;
