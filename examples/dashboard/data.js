// Reading data files for the dashboard: JSONL parsing with line numbers, and
// turning lines into runs. No DOM and no engine here, so it runs in Node too.
//
// Two shapes of file are understood:
//
// 1. A file of runs, one JSON object per line: the bundled examples in
//    examples/data/ (see its README). A loop run has `iterations` (iteration
//    results); a pyramid run has `results` (one LayerResult per layer) and
//    optionally `layers` ({name, costMs}), `totalLayers`, `preset`, `config`;
//    a `kind: "signal"` line holds one QualitySignal for `shouldExit`.
// 2. A plain log: one iteration result per line (`quality_score`,
//    `confidence`, `verification_status`, `quality_delta`, ...), or one layer
//    result per line (`passRate`, `coverage`, `flakyRatio`, optional `name`
//    and `costMs`). The whole file is then one run.
//
// Whether a value is valid is the engine's business, not this file's: records
// go to the engine as written, and its error (code, field, message) is shown
// with the line it came from.

export class DataError extends Error {
  constructor(message, { line = null, code = 'invalid_data', field = null } = {}) {
    super(message);
    this.name = 'DataError';
    this.code = code;
    this.field = field;
    this.line = line;
  }
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const describe = (v) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'string' ? 'a string' : typeof v);
const own = (o, k) => (Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined);

/**
 * Splits JSONL text into `[{line, value}]` (1-based line numbers; blank lines
 * skipped). A `.json` file holding one array or object is accepted too.
 * Throws DataError naming the line for anything that is not a JSON object.
 */
export function parseJsonl(text, fileName = 'file') {
  if (typeof text !== 'string') throw new DataError(`${fileName}: could not read the file as text`);
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') throw new DataError(`${fileName} is empty: expected one JSON object per line`, { code: 'empty_file' });
  if (/\.json$/i.test(fileName)) {
    try {
      const whole = JSON.parse(body);
      const items = Array.isArray(whole) ? whole : [whole];
      return items.map((value, i) => {
        if (!isObject(value)) throw new DataError(`${fileName}, item ${i + 1}: expected a JSON object, got ${describe(value)}`, { line: i + 1, code: 'not_an_object' });
        return { line: i + 1, value };
      });
    } catch (err) {
      if (err instanceof DataError) throw err;
      // Not a single JSON document: fall through and read it as JSONL.
    }
  }
  const out = [];
  const lines = body.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].trim();
    if (raw === '') continue;
    let value;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      throw new DataError(`${fileName}, line ${i + 1}: not valid JSON (${err.message})`, { line: i + 1, code: 'json_parse' });
    }
    if (!isObject(value)) {
      throw new DataError(`${fileName}, line ${i + 1}: expected a JSON object, got ${describe(value)}`, { line: i + 1, code: 'not_an_object' });
    }
    out.push({ line: i + 1, value });
  }
  return out;
}

const isRunLine = (v) => 'iterations' in v || 'results' in v || 'signal' in v || 'kind' in v;

/** Turns parsed lines into runs (see the top of this file). */
export function toRuns(entries, fileName = 'file') {
  if (entries.length === 0) throw new DataError(`${fileName} has no records`, { code: 'empty_file' });
  const first = entries[0].value;
  if (isRunLine(first)) return entries.map((e, i) => runFromLine(e, i, fileName));
  if ('quality_score' in first || 'confidence' in first || 'verification_status' in first) return [loopFromLog(entries, fileName)];
  if ('passRate' in first || 'coverage' in first || 'flakyRatio' in first) return [pyramidFromLog(entries, fileName)];
  throw new DataError(
    `${fileName}, line ${entries[0].line}: cannot tell what this file holds. Expected iteration results ` +
      '(quality_score, confidence, verification_status, quality_delta), layer results (passRate, coverage, flakyRatio), ' +
      'or runs with "iterations" or "results"',
    { line: entries[0].line, code: 'unknown_format' },
  );
}

/** parseJsonl + toRuns. */
export function readRuns(text, fileName = 'file') {
  return toRuns(parseJsonl(text, fileName), fileName);
}

// An iteration number: the record's own `iteration_number`, else its position.
// (A plain log may say `iteration` instead; that key is taken off the record,
// the engine knows no such field.)
function iterationOf(record, index) {
  const n = own(record, 'iteration_number');
  return typeof n === 'number' ? n : index + 1;
}

function loopFromLog(entries, fileName) {
  return {
    kind: 'loop',
    id: fileName,
    title: `${fileName}: ${entries.length} iteration${entries.length === 1 ? '' : 's'}`,
    source: null,
    fileName,
    line: null,
    config: {},
    analytics: {},
    iterations: entries.map(({ line, value }, i) => {
      let result = value;
      let iteration = iterationOf(value, i);
      if ('iteration' in value && !('iteration_number' in value)) {
        const { iteration: it, ...rest } = value;
        result = rest;
        if (typeof it === 'number') iteration = it;
      }
      return { line, where: `line ${line}`, iteration, result };
    }),
    expect: null,
  };
}

function pyramidFromLog(entries, fileName) {
  const layers = [];
  const results = [];
  entries.forEach(({ value }, i) => {
    const { costMs, ...result } = value;
    const spec = { name: typeof value.name === 'string' ? value.name : `layer ${i}` };
    if (costMs !== undefined) spec.costMs = costMs;
    layers.push(spec);
    results.push(result);
  });
  return {
    kind: 'pyramid',
    id: fileName,
    title: `${fileName}: ${entries.length} layer${entries.length === 1 ? '' : 's'}`,
    source: null,
    fileName,
    line: null,
    lines: entries.map((e) => e.line),
    preset: 'default',
    config: {},
    totalLayers: layers.length,
    layers,
    results,
    expect: null,
  };
}

function need(cond, message, line, field) {
  if (!cond) throw new DataError(message, { line, field, code: 'invalid_run' });
}

function runFromLine({ line, value: v }, index, fileName) {
  const at = `${fileName}, line ${line}`;
  const base = {
    id: typeof v.id === 'string' ? v.id : `${fileName}#${index + 1}`,
    title: typeof v.title === 'string' ? v.title : (typeof v.id === 'string' ? v.id : `run on line ${line}`),
    source: v.source ?? null,
    fileName,
    line,
    expect: isObject(v.expect) ? v.expect : null,
  };
  const config = v.config ?? {};
  if (v.kind === 'signal' || ('signal' in v && !('results' in v))) {
    return { ...base, kind: 'signal', preset: v.preset ?? 'default', config, totalLayers: v.totalLayers, layer: v.layer, signal: v.signal };
  }
  if ('iterations' in v) {
    need(Array.isArray(v.iterations), `${at}: "iterations" must be an array of iteration results, got ${describe(v.iterations)}`, line, 'iterations');
    return {
      ...base,
      kind: 'loop',
      config,
      // `analytics`: {} or a config attaches the built-in IterationAnalytics
      // (diminishing returns); absent or null runs EarlyStopping alone.
      analytics: v.analytics === undefined ? null : v.analytics,
      // `policy`: a composed stop policy (docs/loop-policies.md) the engine decides by.
      policy: v.policy === undefined ? null : v.policy,
      iterations: v.iterations.map((result, i) => ({
        line,
        where: `line ${line}, iterations[${i}]`,
        iteration: isObject(result) ? iterationOf(result, i) : i + 1,
        result,
      })),
    };
  }
  if ('results' in v) {
    need(Array.isArray(v.results), `${at}: "results" must be an array of layer results, got ${describe(v.results)}`, line, 'results');
    let layers = v.layers;
    if (layers === undefined) layers = v.results.map((r, i) => ({ name: isObject(r) && typeof r.name === 'string' ? r.name : `layer ${i}` }));
    need(Array.isArray(layers), `${at}: "layers" must be an array of {name, costMs}, got ${describe(layers)}`, line, 'layers');
    return {
      ...base,
      kind: 'pyramid',
      preset: v.preset ?? 'default',
      config,
      totalLayers: v.totalLayers ?? layers.length,
      layers,
      results: v.results,
    };
  }
  throw new DataError(`${at}: a run needs "iterations" (an agent loop) or "results" (a test pyramid)`, { line, code: 'invalid_run' });
}

/** The file names a directory listing links to (any static server's HTML listing). */
export function filesInListing(html, ext) {
  const names = new Set();
  for (const m of html.matchAll(/href\s*=\s*"([^"?#]+)"/gi)) {
    const name = decodeURIComponent(m[1]).split('/').pop();
    if (name && name.endsWith(ext)) names.add(name);
  }
  return [...names].sort();
}
