#!/usr/bin/env node
// A tiny static file server for the dashboard and the browser tests.
//
// Serves the repository root on 127.0.0.1 (never on other interfaces), with
// the MIME types browsers insist on (application/wasm for
// WebAssembly.instantiateStreaming, text/javascript for ES modules). A
// directory without an index.html answers with a plain HTML listing, the way
// `python3 -m http.server` does, which is how the pages find the bundled
// examples and the conformance vectors without a generated manifest.
//
//   node tests/browser/serve.mjs [--port N]    # 0 (default, or $PORT) = a free port
//
// As a module: `const server = await startServer({ port: 0 }); server.url; await server.close();`

import http from 'node:http';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.cjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.jsonl': 'application/x-ndjson; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.ts': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.csv': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

const escapeHtml = (s) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

function send(res, status, type, body, head = false) {
  res.writeHead(status, {
    'Content-Type': type,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(head ? undefined : body);
}

async function listing(dir, urlPath) {
  const entries = (await fs.readdir(dir, { withFileTypes: true }))
    .filter((e) => !e.name.startsWith('.'))
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
    .sort();
  const items = entries.map((n) => `<li><a href="${encodeURI(n)}">${escapeHtml(n)}</a></li>`).join('\n');
  return `<!doctype html>\n<meta charset="utf-8">\n<title>Index of ${escapeHtml(urlPath)}</title>\n<h1>Index of ${escapeHtml(urlPath)}</h1>\n<ul>\n${items}\n</ul>\n`;
}

async function handle(root, mounts, req, res, log) {
  const head = req.method === 'HEAD';
  if (req.method !== 'GET' && !head) return send(res, 405, 'text/plain', 'method not allowed\n');
  let urlPath;
  try {
    urlPath = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
  } catch {
    return send(res, 400, 'text/plain', 'bad request\n');
  }
  // A mounted URL prefix is served from its own directory (the root otherwise).
  for (const [prefix, dir] of Object.entries(mounts)) {
    if (urlPath.startsWith(prefix)) {
      root = dir;
      urlPath = `/${urlPath.slice(prefix.length)}`;
      break;
    }
  }
  // Resolve inside the root only; dot-files and dot-directories stay private.
  const file = path.resolve(root, `.${path.posix.normalize(urlPath)}`);
  if ((file !== root && !file.startsWith(root + path.sep)) || urlPath.split('/').some((p) => p.startsWith('.') && p !== '')) {
    return send(res, 404, 'text/plain', 'not found\n', head);
  }
  let stat;
  try {
    stat = await fs.stat(file);
  } catch {
    log?.(`404 ${urlPath}`);
    return send(res, 404, 'text/plain', `not found: ${urlPath}\n`, head);
  }
  if (stat.isDirectory()) {
    if (!urlPath.endsWith('/')) {
      res.writeHead(301, { Location: `${encodeURI(urlPath)}/` });
      return res.end();
    }
    const index = path.join(file, 'index.html');
    try {
      const body = await fs.readFile(index);
      return send(res, 200, MIME['.html'], body, head);
    } catch {
      return send(res, 200, MIME['.html'], await listing(file, urlPath), head);
    }
  }
  const body = await fs.readFile(file);
  send(res, 200, MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream', body, head);
}

/**
 * Starts the server; resolves to `{ url, port, close() }`. `mounts` maps URL
 * prefixes (ending in '/') to other directories.
 */
export function startServer({ root = REPO_ROOT, port = 0, host = '127.0.0.1', mounts = {}, log = null } = {}) {
  const absRoot = path.resolve(root);
  const absMounts = Object.fromEntries(Object.entries(mounts).map(([p, d]) => [p, path.resolve(d)]));
  const server = http.createServer((req, res) => {
    handle(absRoot, absMounts, req, res, log).catch((err) => {
      if (!res.headersSent) send(res, 500, 'text/plain', `server error: ${err.message}\n`);
      else res.destroy(err);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const actual = server.address().port;
      resolve({
        url: `http://${host}:${actual}`,
        port: actual,
        close: () => new Promise((done) => { server.closeAllConnections?.(); server.close(() => done()); }),
      });
    });
  });
}

const isMain = process.argv[1] && pathToFileURL(path.resolve(process.argv[1])).href === import.meta.url;
if (isMain) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--port');
  const port = at >= 0 ? Number(args[at + 1]) : Number(process.env.PORT ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`serve.mjs: bad port ${args[at + 1] ?? process.env.PORT}`);
    process.exit(2);
  }
  let server;
  try {
    server = await startServer({ port });
  } catch (err) {
    console.error(err.code === 'EADDRINUSE' ? `serve.mjs: port ${port} is in use; pass --port N (0 = any free port)` : `serve.mjs: ${err.message}`);
    process.exit(1);
  }
  console.log(`Serving ${REPO_ROOT} at ${server.url}/`);
  console.log(`Dashboard:      ${server.url}/examples/dashboard/`);
  console.log(`Vector runner:  ${server.url}/tests/browser/vectors.html`);
  console.log('Press Ctrl+C to stop.');
  const stop = () => server.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
