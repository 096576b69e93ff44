#!/usr/bin/env node
// Writes the dashboard as the `earlyexit-wasm` package ships it, into
// bindings/wasm/dashboard/ (git-ignored; `npm pack` of bindings/wasm runs this
// as its `prepack` script):
//
//   dashboard/index.html, *.js, style.css   this folder's page, its import map and
//                                           stylesheet pointing inside the package
//                                           (`../web.mjs`, `./vendor/...`)
//   dashboard/data/*.jsonl                  the bundled examples (examples/data/)
//   dashboard/vendor/uPlot.esm.js, .min.css uPlot (MIT), from node_modules/uplot
//
// and appends uPlot's MIT notice to bindings/wasm/THIRD_PARTY_NOTICES (once).
// Every import of the shipped page stays inside the package, so the page loads
// from an installed package served over HTTP. Fails loudly when a piece is
// missing or a path it rewrites is no longer in index.html.
//
//   node examples/dashboard/ship.mjs [TARGET_PACKAGE_DIR]   (default bindings/wasm)

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const pkgDir = path.resolve(process.argv[2] ?? path.join(repo, 'bindings', 'wasm'));
const out = path.join(pkgDir, 'dashboard');

const fail = (msg) => {
  console.error(`ship-dashboard: ${msg}`);
  process.exit(1);
};

// uPlot: the copy npm installed for the repository (package-lock.json pins it).
let uplotDir;
try {
  uplotDir = path.dirname(createRequire(path.join(repo, 'package.json')).resolve('uplot/package.json'));
} catch {
  fail('uplot is not installed: run npm install (scripts/setup.sh does it)');
}
const uplot = JSON.parse(fs.readFileSync(path.join(uplotDir, 'package.json'), 'utf8'));
if (uplot.license !== 'MIT') fail(`uplot ${uplot.version} is no longer MIT (${uplot.license}): review its notice`);

// The page, with its paths rewritten from the repository's layout to the package's.
const REWRITES = [
  ['"../../bindings/wasm/web.mjs"', '"../web.mjs"'],
  ['"../../node_modules/uplot/dist/uPlot.esm.js"', '"./vendor/uPlot.esm.js"'],
  ['"../../node_modules/uplot/dist/uPlot.min.css"', '"./vendor/uPlot.min.css"'],
  ['<meta name="earlyexit-data" content="../data/">', '<meta name="earlyexit-data" content="./data/">'],
  [/\s*<a href="\.\.\/\.\.\/tests\/browser\/vectors\.html">[^<]*<\/a>/, ''],
];
let html = fs.readFileSync(path.join(here, 'index.html'), 'utf8');
for (const [from, to] of REWRITES) {
  const next = html.replace(from, to);
  if (next === html) fail(`index.html no longer holds ${from}: update examples/dashboard/ship.mjs`);
  html = next;
}
if (/\.\.\/\.\.\//.test(html)) fail('the shipped index.html still points outside the package (../../)');

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(path.join(out, 'vendor'), { recursive: true });
fs.mkdirSync(path.join(out, 'data'), { recursive: true });
fs.writeFileSync(path.join(out, 'index.html'), html);
const pageFiles = fs.readdirSync(here).filter((f) => (f.endsWith('.js') || f.endsWith('.css')) && f !== 'ship.mjs');
for (const f of pageFiles) {
  const text = fs.readFileSync(path.join(here, f), 'utf8');
  if (/from\s+['"]\.\.\//.test(text) || /import\(['"]\.\.\//.test(text)) fail(`${f} imports from outside its folder`);
  fs.writeFileSync(path.join(out, f), text);
}
for (const f of ['uPlot.esm.js', 'uPlot.min.css']) fs.copyFileSync(path.join(uplotDir, 'dist', f), path.join(out, 'vendor', f));
const dataDir = path.join(repo, 'examples', 'data');
const data = fs.readdirSync(dataDir).filter((f) => f.endsWith('.jsonl'));
if (data.length === 0) fail('no examples/data/*.jsonl to ship');
for (const f of data) fs.copyFileSync(path.join(dataDir, f), path.join(out, 'data', f));

// uPlot's notice, once, in the package's THIRD_PARTY_NOTICES (bindings/js/build.mjs writes
// the file; a rebuild rewrites it and the next pack appends this again).
const noticesFile = path.join(pkgDir, 'THIRD_PARTY_NOTICES');
if (!fs.existsSync(noticesFile)) fail(`${noticesFile} is missing: build the package first (npm run build:wasm)`);
const MARK = 'uPlot (dashboard/vendor/)';
const notices = fs.readFileSync(noticesFile, 'utf8');
if (!notices.includes(MARK)) {
  const license = fs.readFileSync(path.join(uplotDir, 'LICENSE'), 'utf8').trim();
  fs.writeFileSync(
    noticesFile,
    `${notices.trimEnd()}\n\n\n${MARK}\n${'-'.repeat(MARK.length)}\n\n` +
      `The dashboard (dashboard/) includes uPlot ${uplot.version} (https://github.com/leeoniya/uPlot),\n` +
      `dashboard/vendor/uPlot.esm.js and dashboard/vendor/uPlot.min.css, under its license:\n\n${license}\n`,
  );
}
console.error(`ship-dashboard: ${path.relative(repo, out)}/ (${pageFiles.length + 1} page files, ${data.length} data files, uPlot ${uplot.version})`);
