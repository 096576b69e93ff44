// How tests/vitest/ loads the two packages (scripts/test-node.sh runs each mode):
//   EARLYEXIT_VITEST=linked   the workspace symlinks node_modules/earlyexit(-wasm) -> bindings/{node,wasm},
//                             as `npm link` or a pnpm/npm workspace gives them: vite resolves
//                             the real path, which is outside node_modules, and inlines it.
//   EARLYEXIT_VITEST=inline   the symlinks kept as node_modules paths (preserveSymlinks), as an
//                             installed package, and inlined by `server.deps.inline`.
//   EARLYEXIT_VITEST=external the same node_modules paths, left to Node (vitest's default for
//                             installed packages).
import { defineConfig } from 'vitest/config';

const mode = process.env.EARLYEXIT_VITEST ?? 'linked';
if (!['linked', 'inline', 'external'].includes(mode)) throw new Error(`EARLYEXIT_VITEST must be linked, inline or external, got ${mode}`);

export default defineConfig({
  resolve: { preserveSymlinks: mode !== 'linked' },
  test: {
    include: ['tests/vitest/*.test.mjs'],
    server: { deps: { inline: mode === 'inline' ? ['earlyexit', 'earlyexit-wasm'] : [] } },
  },
});
