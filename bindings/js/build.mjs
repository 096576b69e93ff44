// Copies the shared JS layer into a package (run by scripts/build-node.sh and
// scripts/build-wasm.sh):
//   bindings/js/api/*.js   -> <pkg>/api.cjs (CommonJS), and <pkg>/api.mjs with --esm: the JS
//                             layer's fragments and the generated contract
//                             (api/contract.generated.mjs) flattened into one function scope,
//                             no runtime import (see api/index.js)
//   the generated contract -> with --esm (the wasm package), <pkg>/contract.mjs and contract.cjs,
//                             which the package's glue imports (REPLAY_OPS routes the replay ops)
//   bindings/js/index.d.ts -> <pkg>/index.d.ts and <pkg>/index.d.mts (the same text; the
//                             .d.mts types the `import` condition, so `export default`
//                             means the ESM default)
//   THIRD_PARTY_NOTICES    -> <pkg>/THIRD_PARTY_NOTICES (aiwg's MIT notice; the packages
//                             reproduce its modules' behaviour and strings)
//   LICENSE                -> <pkg>/LICENSE
//   PUBLIC_NAMES           -> <pkg>/index.mjs, the Node ES module entry over index.cjs, and
//                             with --esm <pkg>/web.mjs, the browser entry over
//                             web-loader.mjs: ES modules need their names spelled out, so
//                             they are written from this one list.
// Usage: node bindings/js/build.mjs <package dir> [--esm] [--api-dir DIR]
//   --api-dir DIR   the fragments from DIR instead of bindings/js/api (the tests plant a free
//                   name in a copy); nothing is written when a check fails
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const here = path.dirname(fileURLToPath(import.meta.url));
const [target, ...flags] = process.argv.slice(2);
const apiDirAt = flags.indexOf('--api-dir');
const apiDir = apiDirAt < 0 ? path.join(here, 'api') : path.resolve(flags[apiDirAt + 1] ?? '');
if (!target) {
  console.error('usage: node bindings/js/build.mjs <package dir> [--esm]');
  process.exit(2);
}

function fail(message) {
  console.error('bindings/js/build.mjs: ' + message);
  process.exit(1);
}

// The JS layer: the fragments of bindings/js/api/ (see index.js there), flattened into one
// function scope, dependencies first. Each fragment's `import { a, b } from './x.js';` lines
// are dropped and its `export` keywords removed; what is checked: every imported name is
// exported by its fragment, no fragment assigns to a name it imports, no name is exported
// twice, every fragment is reached from the entry, no fragment uses a name it neither declares
// nor imports (freeNames below), and the result parses (node --check).
const API_DIR = 'api';
const ENTRY = 'index.js';
const CONTRACT_FILE = 'contract.generated.mjs';
const IMPORT = /^import \{([^}]*)\} from '\.\/([\w.-]+)';\n/gm;
const DECLARATION = /^export (?=(?:const|let|function|async function|class) ([A-Za-z_$][\w$]*))/gm;
const fragments = new Map(); // file -> { imports: [{ names, from }], exports: Set, body }

function readFragment(file) {
  if (fragments.has(file)) return fragments.get(file);
  const text = readFileSync(path.join(apiDir, file), 'utf8');
  const imports = [...text.matchAll(IMPORT)].map((m) => ({ from: m[2], names: m[1].split(',').map((n) => n.trim()).filter(Boolean) }));
  const exports = new Set([...text.matchAll(DECLARATION)].map((m) => m[1]));
  const body = text.replace(IMPORT, '').replace(DECLARATION, '');
  if (/^\s*(import|export)\b(?!\()/m.test(body)) fail(`${API_DIR}/${file}: only \`import { ... } from './x.js'\` lines and \`export\` declarations (\`export(\` is a method)`);
  const fragment = { file, imports, exports, body };
  fragments.set(file, fragment);
  return fragment;
}

// Comments and string literals blanked, for the assignment check.
const code = (text) => text.replace(/\/\*[^]*?\*\//g, ' ').replace(/\/\/[^\n]*/g, ' ')
  .replace(/'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`/g, "''");

const ordered = []; // dependencies first
const visiting = new Set();
function visit(file) {
  if (ordered.some((f) => f.file === file)) return;
  if (visiting.has(file)) fail(`${API_DIR}/${file} imports itself through a cycle`);
  visiting.add(file);
  const fragment = readFragment(file);
  for (const { from, names } of fragment.imports) {
    const target = readFragment(from);
    visit(from);
    for (const name of names) {
      if (!target.exports.has(name)) fail(`${API_DIR}/${file} imports ${name}, which ${from} does not export`);
      const assigned = new RegExp(`(?<![\\w$.#])${name.replace(/\$/g, '\\$')}\\s*(?:[-+*/%&|^]|\\*\\*|<<|>>>?|&&|\\|\\||\\?\\?)?=(?![=>])|(?:\\+\\+|--)\\s*${name}\\b|\\b${name}\\s*(?:\\+\\+|--)`);
      if (assigned.test(code(fragment.body))) fail(`${API_DIR}/${file} assigns to ${name}, which it imports from ${from} (export a function that does it)`);
    }
  }
  visiting.delete(file);
  ordered.push(fragment);
}
visit(ENTRY);
const exportedBy = new Map();
for (const fragment of ordered) {
  for (const name of fragment.exports) {
    if (exportedBy.has(name)) fail(`${name} is exported by both ${API_DIR}/${exportedBy.get(name)} and ${API_DIR}/${fragment.file}`);
    exportedBy.set(name, fragment.file);
  }
}
for (const file of readdirSync(apiDir)) {
  if (/\.m?js$/.test(file) && !fragments.has(file)) fail(`${API_DIR}/${file} is not imported by any fragment`);
}
for (const name of ['api', 'ready', 'testing']) {
  if (!readFragment(ENTRY).exports.has(name)) fail(`${API_DIR}/${ENTRY} must export ${name}`);
}

// Free names: each fragment is parsed and its names bound by TypeScript (a devDependency; its
// checker over the fragments as JS modules, ECMAScript's globals only), which reports every
// name that nothing in the fragment declares or imports. Flattened, such a name would resolve
// to another fragment's top-level name (or fail at run time): each fragment says what it uses.
// Free in every fragment: createApi's parameters (`native`, and `host` as it makes it), and
// the host globals outside ECMAScript that Node and browsers both have.
const BUILD_SCOPE = new Set(['native', 'host']);
const HOST_GLOBALS = new Set(['WebAssembly', 'URL', 'TextDecoder', 'console']);
// "Cannot find name 'x'" and its variants (with a suggestion, or naming a types package), and
// "No value exists in scope for the shorthand property 'x'".
const NOT_FOUND = new Set([2304, 2552, 2580, 2581, 2582, 2583, 2584, 2591, 2592, 2593, 18004]);
function freeNames(files) {
  const roots = files.map((file) => path.join(apiDir, file));
  const program = ts.createProgram(roots, {
    allowJs: true, checkJs: true, noEmit: true, noResolve: true, types: [], lib: ['lib.es2023.d.ts'],
    module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022,
  });
  const found = [];
  for (const [i, root] of roots.entries()) {
    const source = program.getSourceFile(root);
    for (const d of program.getSemanticDiagnostics(source)) {
      if (!NOT_FOUND.has(d.code) || d.start === undefined) continue;
      const name = source.text.slice(d.start, d.start + d.length);
      if (BUILD_SCOPE.has(name) || HOST_GLOBALS.has(name)) continue;
      found.push(`${API_DIR}/${files[i]}:${source.getLineAndCharacterOfPosition(d.start).line + 1}: ${name}`);
    }
  }
  return found;
}
const free = freeNames(ordered.map((f) => f.file));
if (free.length > 0) fail(`names used but neither declared nor imported (import them from the fragment that exports them):\n  ${free.join('\n  ')}`);

const indent = (text) => text.replace(/^(?=.)/gm, '  ');
const SIGNATURE = 'function createApi(native, hostFiles) {';
const flat =
  SIGNATURE + "\n  'use strict';\n  const host = hostFiles ?? null;\n" +
  ordered.map((f) => `\n  // --- ${API_DIR}/${f.file}\n` + indent(f.body.replace(/^\n+/, '').replace(/\n+$/, '\n'))).join('') +
  '\n  return { api, ready, testing };\n}\n';
const scratchDir = mkdtempSync(path.join(tmpdir(), 'earlyexit-api-'));
writeFileSync(path.join(scratchDir, 'api.cjs'), flat);
const parsed = spawnSync(process.execPath, ['--check', path.join(scratchDir, 'api.cjs')], { encoding: 'utf8' });
rmSync(scratchDir, { recursive: true, force: true });
if (parsed.status !== 0) fail(`the flattened layer does not parse:\n${parsed.stderr}`);
const contract = readFragment(CONTRACT_FILE);
const contractText = readFileSync(path.join(apiDir, CONTRACT_FILE), 'utf8');

// The names both packages export (besides `init` and the default export, EarlyStopping).
// tests/node/api.test.mjs checks the packages' export lists against its own copy.
const PUBLIC_NAMES = [
  'Loop', 'EarlyStopping', 'IterationAnalytics', 'calculateQualitySignal', 'CoherenceEarlyExit', 'SpeculativeExecutor',
  'EarlyExitController', 'PyramidRun', 'DEFAULT_EXIT_CONFIG', 'AGGRESSIVE_EXIT_CONFIG', 'CONSERVATIVE_EXIT_CONFIG',
  'countQualityPartitions', 'isEarlyExitError',
  // pyramid replay and the risk-bounded policy
  'replayPyramids', 'shadowPyramids', 'calibratePyramidPolicy', 'pyramidPolicyDecide', 'pyramidPolicyUpdate', 'OutcomeModel',
  // shadow-mode receipts
  'verifyReceipts', 'appendReceipts', 'checkPyramidDrift', 'promotePyramidPolicy', 'checkLoopDrift', 'promoteLoopPolicy',
  // JUnit / Cobertura reports (the command's reader)
  'readJunit',
  // loop replay and presets
  'replayLoops', 'loopPreset', 'LOOP_PRESETS', 'calibrateLoopPolicy', 'LoopCalibration', 'calibrationPlan',
  // composable stop policies (docs/loop-policies.md)
  'policy',
  // the size limits (docs/limits.md)
  'LIMITS',
  // behaviour detectors and interventions (docs/behavior.md)
  'BehaviorDetector', 'THRESHOLDS', 'InterventionSystem', 'INTERVENTION_LEVELS',
];

const banner = '// Generated by bindings/js/build.mjs from bindings/js/api/*.js: edit those, not this one.\n';
writeFileSync(path.join(target, 'api.cjs'), banner + "'use strict';\n" + flat + 'module.exports = createApi;\n');
if (flags.includes('--esm')) writeFileSync(path.join(target, 'api.mjs'), banner + 'export default ' + flat);

// The wasm package's glue (index.cjs, web-loader.mjs) reads REPLAY_OPS from the contract: its
// copy keeps the code, not the docs (those are in the generated file).
if (flags.includes('--esm')) {
  const lean = contractText.replace(/^ *\/\*\*[^]*?\*\/\n/gm, '');
  const glueBanner = `// Generated by bindings/js/build.mjs from bindings/js/${API_DIR}/${CONTRACT_FILE} (documented there): edit the Rust tables, not this file.\n`;
  writeFileSync(path.join(target, 'contract.mjs'), glueBanner + lean);
  writeFileSync(
    path.join(target, 'contract.cjs'),
    glueBanner + "'use strict';\n" + lean.replace(DECLARATION, '') + 'module.exports = { ' + [...contract.exports].join(', ') + ' };\n',
  );
}

writeFileSync(path.join(target, 'THIRD_PARTY_NOTICES'), readFileSync(path.join(here, '..', '..', 'THIRD_PARTY_NOTICES')));
// The license travels in every tarball (npm packs a LICENSE file whatever `files` says).
writeFileSync(path.join(target, 'LICENSE'), readFileSync(path.join(here, '..', '..', 'LICENSE')));

// The run store needs SQLite: the wasm package (--esm) has none, so not its types either.
const allTypes = readFileSync(path.join(here, 'index.d.ts'), 'utf8');
const types = flags.includes('--esm') ? allTypes.replace(/^ *\/\/ @napi-only begin[^]*?\/\/ @napi-only end\n/gm, '') : allTypes;
const typesBanner = '// Generated by bindings/js/build.mjs from bindings/js/index.d.ts: edit that file, not this one.\n';
writeFileSync(path.join(target, 'index.d.ts'), typesBanner + types);
writeFileSync(path.join(target, 'index.d.mts'), typesBanner + types);

// The ES module entries: named exports of the one API object the package builds.
const entryBanner = '// Generated by bindings/js/build.mjs (PUBLIC_NAMES): edit that file, not this one.\n';
const names = (extra) => PUBLIC_NAMES.concat(extra).map((name) => '  ' + name + ',\n').join('');
writeFileSync(
  path.join(target, 'index.mjs'),
  entryBanner +
    '// The ES module entry in Node: the same objects as the CommonJS entry (one copy of each\n' +
    '// class, one native module, whichever way the package is loaded). Loaded by require(), not\n' +
    "// by `import earlyexit from './index.cjs'`: a loader that inlines this file (vitest with a\n" +
    '// linked package or server.deps.inline) hands a default import of CommonJS its\n' +
    '// `module.exports.default`, the class, so every name would be undefined.\n' +
    "import { createRequire } from 'node:module';\n\n" +
    "const earlyexit = createRequire(import.meta.url)('./index.cjs');\n\n" +
    // The napi package (no --esm) has the run store; the wasm package has no SQLite, no Store.
    'export const {\n' + names(flags.includes('--esm') ? ['init'] : ['init', 'Store']) + '} = earlyexit;\n' +
    'export default earlyexit.EarlyStopping;\n',
);
if (flags.includes('--esm')) {
  writeFileSync(
    path.join(target, 'web.mjs'),
    entryBanner +
      '// The entry for browsers and bundlers: `await init()` once, then use the API\n' +
      '// (web-loader.mjs loads the engines module; `await init({ replay: true })` the replay module).\n' +
      "import { api, init } from './web-loader.mjs';\n\n" +
      'export { init };\n' +
      'export const {\n' + names([]) + '} = api;\n' +
      'export default api.EarlyStopping;\n',
  );
}

// Subpath entries for code written against aiwg's modules, which default-import each one
// (`import EarlyStopping from './early-stopping.mjs'`) or import its other exports by name
// (`import { THRESHOLDS } from './behavior-detector.mjs'`): `<package>/early-stopping`,
// `<package>/iteration-analytics`, `<package>/behavior-detector` and
// `<package>/intervention-system`, each exporting its class as the default and, by name, the
// class and the module's other exports (as those modules do), for import and require, with
// types. They re-export the package's own objects (the same class as the main entry). This
// table is the one list: the files are written from it, and so are the package.json
// `exports` and `files` entries. The first name of each row is the default export.
const SUBPATHS = {
  'early-stopping': ['EarlyStopping'],
  'iteration-analytics': ['IterationAnalytics'],
  'behavior-detector': ['BehaviorDetector', 'THRESHOLDS'],
  'intervention-system': ['InterventionSystem', 'INTERVENTION_LEVELS'],
};
const web = flags.includes('--esm'); // earlyexit-wasm: browsers and bundlers get web.mjs's objects
const subBanner = '// Generated by bindings/js/build.mjs (SUBPATHS): edit that file, not this one.\n';
const manifestPath = path.join(target, 'package.json');
const manifestText = readFileSync(manifestPath, 'utf8');
const manifest = JSON.parse(manifestText);
const subpathExports = {};
const subpathFiles = [];
for (const [sub, exported] of Object.entries(SUBPATHS)) {
  const [name] = exported;
  const list = exported.join(', ');
  const others = exported.length > 1 ? ` (and ${exported.slice(1).join(', ')} by name)` : '';
  const about = `// \`${manifest.name}/${sub}\`: ${name} as the default export and by name${others}.\n`;
  writeFileSync(
    path.join(target, `${sub}.mjs`),
    subBanner + about +
      "import { createRequire } from 'node:module';\n\n" +
      `export const { ${list} } = createRequire(import.meta.url)('./index.cjs');\n` +
      `export default ${name};\n`,
  );
  writeFileSync(
    path.join(target, `${sub}.cjs`),
    subBanner + about + "'use strict';\n" +
      `const { ${list} } = require('./index.cjs');\n\n` +
      '// The shape a compiled ES module has, so `import X from` over require() gets the class.\n' +
      "Object.defineProperty(exports, '__esModule', { value: true });\n" +
      exported.map((n) => `exports.${n} = ${n};\n`).join('') +
      `exports.default = ${name};\n`,
  );
  const typing = (from) => subBanner + `import { ${list} } from '${from}';\n\nexport { ${list} };\nexport default ${name};\n`;
  writeFileSync(path.join(target, `${sub}.d.ts`), typing('./index.js'));
  writeFileSync(path.join(target, `${sub}.d.mts`), typing('./index.mjs'));
  const node = {
    import: { types: `./${sub}.d.mts`, default: `./${sub}.mjs` },
    require: { types: `./${sub}.d.ts`, default: `./${sub}.cjs` },
  };
  subpathFiles.push(`${sub}.mjs`, `${sub}.cjs`, `${sub}.d.ts`, `${sub}.d.mts`);
  if (web) {
    writeFileSync(
      path.join(target, `${sub}.web.mjs`),
      subBanner + about + `// The browser and bundler build: call init() from 'earlyexit-wasm' once first.\n` +
        `export { ${list}, ${name} as default } from './web.mjs';\n`,
    );
    subpathFiles.push(`${sub}.web.mjs`);
    const browser = { types: `./${sub}.d.mts`, default: `./${sub}.web.mjs` };
    subpathExports[`./${sub}`] = { node, import: browser, default: browser };
  } else {
    subpathExports[`./${sub}`] = node;
  }
}

// Adapter subpaths: a module of bindings/js/adapters/ over the package's own objects (one copy
// of the module per package, whichever way it is loaded). `<package>/ai-sdk` is a `stopWhen`
// condition for the Vercel AI SDK (docs/agents.md); its file defines `createAiSdk(Loop)`,
// which the CommonJS entry calls with index.cjs's Loop (the ES entry re-exports that one)
// and the browser entry with web.mjs's. Its types are adapters/ai-sdk.d.ts.
const ADAPTERS = {
  'ai-sdk': { factory: 'createAiSdk', uses: ['Loop'], exports: ['earlyexitStop'] },
};
for (const [sub, { factory, uses, exports: exported }] of Object.entries(ADAPTERS)) {
  const source = readFileSync(path.join(here, 'adapters', `${sub}.js`), 'utf8');
  const about = `// \`${manifest.name}/${sub}\`: ${exported.join(', ')} (bindings/js/adapters/${sub}.js).\n`;
  const adapterBanner = `// Generated by bindings/js/build.mjs (ADAPTERS) from bindings/js/adapters/${sub}.js: edit that file, not this one.\n`;
  writeFileSync(
    path.join(target, `${sub}.cjs`),
    adapterBanner + about + "'use strict';\n" + `const { ${uses.join(', ')} } = require('./index.cjs');\n\n` + source +
      `\nconst { ${exported.join(', ')} } = ${factory}(${uses.join(', ')});\n` +
      "Object.defineProperty(exports, '__esModule', { value: true });\n" + exported.map((n) => `exports.${n} = ${n};\n`).join(''),
  );
  writeFileSync(
    path.join(target, `${sub}.mjs`),
    adapterBanner + about + "import { createRequire } from 'node:module';\n\n" +
      `export const { ${exported.join(', ')} } = createRequire(import.meta.url)('./${sub}.cjs');\n`,
  );
  const typesSource = readFileSync(path.join(here, 'adapters', `${sub}.d.ts`), 'utf8');
  if (!typesSource.includes("from './index.js';")) fail(`adapters/${sub}.d.ts must import the package's types from './index.js'`);
  writeFileSync(path.join(target, `${sub}.d.ts`), adapterBanner + typesSource);
  writeFileSync(path.join(target, `${sub}.d.mts`), adapterBanner + typesSource.replaceAll("from './index.js';", "from './index.mjs';"));
  const node = {
    import: { types: `./${sub}.d.mts`, default: `./${sub}.mjs` },
    require: { types: `./${sub}.d.ts`, default: `./${sub}.cjs` },
  };
  subpathFiles.push(`${sub}.mjs`, `${sub}.cjs`, `${sub}.d.ts`, `${sub}.d.mts`);
  if (web) {
    writeFileSync(
      path.join(target, `${sub}.web.mjs`),
      adapterBanner + about + `// The browser and bundler build: call init({ replay: true }) from 'earlyexit-wasm' once first.\n` +
        `import { ${uses.join(', ')} } from './web.mjs';\n\n` + source +
        `\nexport const { ${exported.join(', ')} } = ${factory}(${uses.join(', ')});\n`,
    );
    subpathFiles.push(`${sub}.web.mjs`);
    const browser = { types: `./${sub}.d.mts`, default: `./${sub}.web.mjs` };
    subpathExports[`./${sub}`] = { node, import: browser, default: browser };
  } else {
    subpathExports[`./${sub}`] = node;
  }
}

// package.json: the subpaths in `exports` (before "./package.json") and their files in
// `files`; rewritten only when they differ, so a build leaves a current package.json alone.
const exportsEntries = Object.entries(manifest.exports).filter(([key]) => !(key.slice(2) in SUBPATHS) && !(key.slice(2) in ADAPTERS));
const at = exportsEntries.findIndex(([key]) => key === './package.json');
exportsEntries.splice(at < 0 ? exportsEntries.length : at, 0, ...Object.entries(subpathExports));
manifest.exports = Object.fromEntries(exportsEntries);
manifest.files = manifest.files.filter((file) => !subpathFiles.includes(file)).concat(subpathFiles);
const updated = JSON.stringify(manifest, null, 2) + '\n';
if (updated !== manifestText) {
  writeFileSync(manifestPath, updated);
  console.log(`bindings/js/build.mjs: updated the subpath entries in ${manifestPath}`);
}
