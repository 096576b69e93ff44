// Which build the suite runs against: EARLYEXIT_IMPL=native (default, the napi addon,
// package `earlyexit`) or EARLYEXIT_IMPL=wasm (package `earlyexit-wasm`, its Node build).
// Every test file imports the package through here, so one suite covers both builds.
import path from 'node:path';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const IMPL = process.env.EARLYEXIT_IMPL || 'native';
if (IMPL !== 'native' && IMPL !== 'wasm') throw new Error(`EARLYEXIT_IMPL must be native or wasm, got ${IMPL}`);
export const PACKAGE = IMPL === 'wasm' ? 'earlyexit-wasm' : 'earlyexit';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// The reference files live beside the repository (../shared/reference); suites that need
// them skip with a clear message when they are absent.
export const REFERENCE_DIR = path.resolve(ROOT, '..', 'shared', 'reference');
export const HAVE_REFERENCE = existsSync(path.join(REFERENCE_DIR, 'early-stopping.mjs'))
  && existsSync(path.join(REFERENCE_DIR, 'early-exit-adr.mjs'));
export const NO_REFERENCE = `skipped: ${REFERENCE_DIR} is absent (clone the repository beside shared/ to run it)`;

// The native suite must run on the addon: without one, `earlyexit` would fall back to
// earlyexit-wasm (bindings/node/index.cjs); EARLYEXIT_NO_FALLBACK=1 makes that an error.
if (IMPL === 'native') process.env.EARLYEXIT_NO_FALLBACK ??= '1';
const ee = await import(PACKAGE);
export default ee;
