// `<package>/ai-sdk` (docs/agents.md, "Vercel AI SDK"): `earlyexitStop` as the `stopWhen` of a
// real `generateText` of the pinned `ai` 6.x (a devDependency of the workspace), with the SDK's
// own scripted model (`MockLanguageModelV3` from `ai/test`) and a real tool: offline, no
// server, and any connection beyond loopback throws (tests/node/offline.mjs, in the docs
// example's process too). The docs' JavaScript example runs here, and passes `tsc --strict`.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test';
import ee, { IMPL, PACKAGE, ROOT } from './impl.mjs';
import { refused } from './offline.mjs';

const OFFLINE = path.join(ROOT, 'tests', 'node', 'offline.mjs');

const require = createRequire(import.meta.url);
const { earlyexitStop } = await import(`${PACKAGE}/ai-sdk`);

const SCORES = { v1: 0.40, v2: 0.72, v3: 0.85, v4: 0.90, v5: 0.86, v6: 0.88, v7: 0.87, v8: 0.89, v9: 0.88, v10: 0.88 };
const usage = {
  inputTokens: { total: 900, noCache: 900, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 300, text: 300, reasoning: undefined },
};
// One model call per draft: the draft as text and a call of `submit` with it.
const turn = (draft, i) => ({
  content: [
    { type: 'text', text: draft },
    { type: 'tool-call', toolCallId: `c-${i}`, toolName: 'submit', input: JSON.stringify({ draft }) },
  ],
  finishReason: { unified: 'tool-calls', raw: undefined },
  usage,
  warnings: [],
});
const modelOf = (drafts) => new MockLanguageModelV3({ doGenerate: drafts.map(turn) });
const submitTool = (execute = async ({ draft }) => draft) => tool({
  description: 'Submits a draft.',
  inputSchema: jsonSchema({ type: 'object', properties: { draft: { type: 'string' } }, required: ['draft'] }),
  execute,
});

const typed = (fn, Kind, code, field) => assert.throws(fn, (error) => {
  assert.ok(error instanceof Kind, `${error}`);
  assert.equal(error.code, code);
  assert.equal(error.field, field);
  return true;
});

describe(`earlyexit/ai-sdk (${IMPL})`, () => {
  test('import and require give the one function; it is a stopWhen condition with .loop', () => {
    assert.equal(require(`${PACKAGE}/ai-sdk`).earlyexitStop, earlyexitStop);
    const condition = earlyexitStop({ quality: () => 0.5 });
    assert.equal(typeof condition, 'function');
    assert.ok(condition.loop instanceof ee.Loop, 'the package\'s own Loop');
    assert.equal(condition.loop.decision, null);
  });

  test('the browser variant is built over the web entry', { skip: IMPL === 'wasm' ? false : 'earlyexit-wasm only' }, async () => {
    const web = await import(pathToFileURL(path.join(ROOT, 'bindings', 'wasm', 'web.mjs')).href);
    // (in Node the loader cannot fetch its own files: the modules' bytes are passed; a Loop
    // needs the replay module too, as the entry's first line says)
    const pkg = path.join(ROOT, 'bindings', 'wasm', 'pkg', 'web');
    await web.init({ module: readFileSync(path.join(pkg, 'earlyexit_wasm_bg.wasm')), replay: readFileSync(path.join(pkg, 'earlyexit_replay_bg.wasm')) });
    const module = await import(pathToFileURL(path.join(ROOT, 'bindings', 'wasm', 'ai-sdk.web.mjs')).href);
    const stop = module.earlyexitStop({ quality: (step) => SCORES[step.text], maxSteps: 2 });
    assert.ok(stop.loop instanceof web.Loop);
    assert.equal(stop({ steps: [{ text: 'v4' }, { text: 'v1' }] }), true);
    assert.equal(stop.loop.output, 'v4');
  });

  test('generateText stops by the decision before maxSteps; .loop holds the best step', async () => {
    const drafts = Object.keys(SCORES);
    const stop = earlyexitStop({ quality: (step) => SCORES[step.text] });
    const result = await generateText({ model: modelOf(drafts), tools: { submit: submitTool() }, prompt: 'Write the note.', stopWhen: stop });
    assert.equal(stop.loop.decision?.trigger, 'no_improvement'); // 5 steps without a new best
    assert.equal(result.steps.length, 9, 'stopped before the 10 scripted steps and maxSteps 20');
    assert.equal(result.text, 'v9'); // the SDK returns the last step
    assert.equal(stop.loop.output, 'v4'); // the best
    assert.deepEqual(stop.loop.best, { iteration: 4, output: 'v4', quality: 0.9 });
    const history = stop.loop.history;
    assert.equal(history.length, 9, 'each step recorded once');
    assert.ok(history.every((r) => r.tokens_used === 1200), 'the step usage\'s total tokens');
    assert.ok(history.every((r) => typeof r.fingerprint === 'string' && r.fingerprint.length === 64), 'the text\'s fingerprint');
    assert.notEqual(history[0].fingerprint, history[1].fingerprint);
  });

  test('streamText stops by the decision as generateText does', async () => {
    const drafts = Object.keys(SCORES);
    const streamed = (draft, i) => ({
      stream: convertArrayToReadableStream([
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: `t-${i}` },
        { type: 'text-delta', id: `t-${i}`, delta: draft },
        { type: 'text-end', id: `t-${i}` },
        { type: 'tool-call', toolCallId: `c-${i}`, toolName: 'submit', input: JSON.stringify({ draft }) },
        { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage },
      ]),
    });
    const stop = earlyexitStop({ quality: (step) => SCORES[step.text] });
    const result = streamText({ model: new MockLanguageModelV3({ doStream: drafts.map(streamed) }), tools: { submit: submitTool() }, prompt: 'Write.', stopWhen: stop });
    assert.equal((await result.steps).length, 9);
    assert.equal(await result.text, 'v9');
    assert.equal(stop.loop.decision?.trigger, 'no_improvement');
    assert.equal(stop.loop.output, 'v4');
    assert.ok(stop.loop.history.every((r) => r.tokens_used === 1200));
  });

  test('generateText stops at maxSteps when the decision goes on', async () => {
    const drafts = ['v1', 'v2', 'v3', 'v4', 'v5'];
    const stop = earlyexitStop({ quality: (step) => SCORES[step.text], maxSteps: 3 });
    const result = await generateText({ model: modelOf(drafts), tools: { submit: submitTool() }, prompt: 'Write.', stopWhen: stop });
    assert.equal(result.steps.length, 3);
    assert.equal(stop.loop.decision?.trigger, 'max_iterations');
    assert.equal(stop.loop.history.length, 3);
    assert.equal(stop.loop.output, 'v3');
  });

  test('a tool that throws is the step\'s error; quality may answer a promise', async () => {
    const drafts = ['v1', 'v2', 'v3'];
    const failing = submitTool(async ({ draft }) => {
      if (draft === 'v2') throw new Error('the grader is down');
      return draft;
    });
    const steps = [];
    const stop = earlyexitStop({ quality: async (step, all) => { steps.push(all.length); return SCORES[step.text]; }, maxSteps: 3 });
    const result = await generateText({ model: modelOf(drafts), tools: { submit: failing }, prompt: 'Write.', stopWhen: stop });
    assert.equal(result.steps.length, 3);
    assert.ok(result.steps[1].content.some((part) => part.type === 'tool-error'), 'the SDK reports the tool error');
    const history = stop.loop.history;
    assert.equal(history[0].error, undefined);
    assert.equal(history[1].error, 'submit: the grader is down');
    assert.equal(history[2].error, undefined);
    assert.deepEqual(steps, [1, 2, 3], 'each step scored once, with the steps so far');
  });

  test('a last step without tool calls ends the call unasked; the condition records it after', async () => {
    // The model's third answer is text alone: the SDK returns without calling stopWhen.
    const model = new MockLanguageModelV3({
      doGenerate: [turn('v1', 0), turn('v4', 1), { ...turn('final', 2), content: [{ type: 'text', text: 'final' }], finishReason: { unified: 'stop', raw: undefined } }],
    });
    const stop = earlyexitStop({ quality: (step) => SCORES[step.text] ?? 0.95 });
    const result = await generateText({ model, tools: { submit: submitTool() }, prompt: 'Write.', stopWhen: stop });
    assert.equal(result.steps.length, 3);
    assert.equal(stop.loop.history.length, 2, 'asked after the two tool steps only');
    assert.equal(stop({ steps: result.steps }), false);
    assert.equal(stop.loop.history.length, 3);
    assert.equal(stop.loop.output, 'final');
  });

  test('concurrent calls with an async quality score each step once, in order', async () => {
    const scored = [];
    const stop = earlyexitStop({ quality: async (step) => { await new Promise((r) => setTimeout(r, 1)); scored.push(step.text); return 0.5; }, policy: ee.policy.stopPolicy(ee.policy.unchanged(50)) });
    const steps = [{ text: 'a' }, { text: 'b' }];
    const answers = await Promise.all([stop({ steps }), stop({ steps }), stop({ steps: [...steps, { text: 'c' }] })]);
    assert.deepEqual(answers, [false, false, false]);
    assert.deepEqual(scored, ['a', 'b', 'c']);
    assert.deepEqual(stop.loop.history.map((r) => r.iteration_number), [1, 2, 3]);
  });

  test('a quality that throws records nothing; the next call scores the step again', async () => {
    let fail = true;
    const stop = earlyexitStop({ quality: async () => { if (fail) throw new Error('grader down'); return 0.5; } });
    const steps = [{ text: 'a' }];
    await assert.rejects(stop({ steps }), /grader down/);
    assert.equal(stop.loop.history.length, 0);
    fail = false;
    assert.equal(await stop({ steps }), false);
    assert.equal(stop.loop.history.length, 1);
  });

  test('many steps at once, huge texts and odd parts', () => {
    const stop = earlyexitStop({ quality: () => 0.5, policy: ee.policy.stopPolicy(ee.policy.unchanged(5000)), maxSteps: 1000 });
    const big = 'x'.repeat(1 << 20);
    const cyclic = { n: 1n };
    cyclic.self = cyclic;
    const odd = [null, 7, { type: 'tool-error' }, { type: 'tool-error', toolName: 't', error: { deep: [[[1]]] } }, { type: 'tool-error', toolName: 'c', error: cyclic }];
    const steps = Array.from({ length: 999 }, (_, i) => ({
      text: i === 0 ? big : `s${i}`,
      usage: {},
      content: i === 0 ? [{ type: 'tool-error', toolName: 'huge', error: new Error(big) }] : odd,
    }));
    assert.equal(stop({ steps }), false);
    assert.equal(stop.loop.history.length, 999);
    assert.equal(stop.loop.history[0].error, `huge: ${big}`);
    assert.equal(stop.loop.history[1].error, 'tool: error; t: {"deep":[[[1]]]}; c: [object Object]');
    assert.equal(stop.loop.history[1].tokens_used, undefined);
    assert.equal(stop.loop.best?.iteration, 1);
    assert.equal(stop({ steps: [...steps, { text: 'last' }] }), true, 'the 1000th step is maxSteps');
  });

  test('one condition per call: fewer steps than it recorded is an error naming steps', () => {
    const stop = earlyexitStop({ quality: () => 0.5 });
    stop({ steps: [{ text: 'a' }, { text: 'b' }] });
    typed(() => stop({ steps: [{ text: 'a' }] }), RangeError, 'invalid_result', 'steps');
    assert.equal(stop.loop.history.length, 2);
  });

  test('records only the steps it has not seen', () => {
    const step = (text) => ({ text, usage: { inputTokens: 10, outputTokens: 5, totalTokens: undefined }, content: [] });
    const stop = earlyexitStop({ quality: () => 0.5, preset: 'seed' });
    const steps = [step('a')];
    assert.equal(stop({ steps }), false);
    assert.equal(stop({ steps }), false);
    assert.equal(stop.loop.history.length, 1);
    steps.push(step('b'), step('c'));
    stop({ steps });
    assert.equal(stop.loop.history.length, 3);
    assert.equal(stop.loop.history[2].tokens_used, 15, 'input plus output without a total');
    assert.equal(stop.loop.last?.output, 'c');
  });

  test('maxSteps is always a stop, whatever the policy', () => {
    const stop = earlyexitStop({ quality: () => 0.5, policy: ee.policy.stopPolicy(ee.policy.unchanged(50)), maxSteps: 2 });
    const steps = [{ text: 'a', content: [] }];
    assert.equal(stop({ steps }), false);
    steps.push({ text: 'b', content: [] });
    assert.equal(stop({ steps }), true);
    assert.equal(stop.loop.decision?.trigger, 'max_iterations');
  });

  test('bad options and bad steps are typed errors naming the field', () => {
    typed(() => earlyexitStop(), TypeError, 'invalid_config', 'options');
    typed(() => earlyexitStop({}), TypeError, 'invalid_config', 'quality');
    typed(() => earlyexitStop({ quality: 0.5 }), TypeError, 'invalid_config', 'quality');
    typed(() => earlyexitStop({ quality: () => 1, maxSteps: null }), TypeError, 'invalid_config', 'maxSteps');
    for (const maxSteps of [0, -1, 2.5, NaN, Infinity]) typed(() => earlyexitStop({ quality: () => 1, maxSteps }), RangeError, 'invalid_config', 'maxSteps');
    typed(() => earlyexitStop({ quality: () => 1, maxSteps: '5' }), TypeError, 'invalid_config', 'maxSteps');
    typed(() => earlyexitStop({ quality: () => 1, maxIterations: 5 }), TypeError, 'unknown_option', 'maxIterations');
    typed(() => earlyexitStop({ quality: () => 1, scale: 7 }), RangeError, 'invalid_config', 'scale');
    typed(() => earlyexitStop({ quality: () => 1, presett: 'seed' }), TypeError, 'unknown_option', 'presett');
    const stop = earlyexitStop({ quality: (step) => step.score, scale: 1 });
    typed(() => stop({}), TypeError, 'invalid_result', 'steps');
    typed(() => stop({ steps: [null] }), TypeError, 'invalid_result', 'steps[0]');
    // A score off the scale records nothing: the same step is scored again next time.
    typed(() => stop({ steps: [{ text: 'a', score: 5 }] }), RangeError, 'invalid_result', 'quality');
    assert.equal(stop.loop.history.length, 0);
    assert.equal(stop({ steps: [{ text: 'a', score: 0.5 }] }), false);
    assert.equal(stop.loop.history.length, 1);
  });
});

test('offline: no test here connected beyond loopback (tests/node/offline.mjs)', async () => {
  const net = await import('node:net');
  assert.throws(() => net.connect(443, '192.0.2.1'), /offline test: a connection to 192.0.2.1/, 'the guard is on');
  assert.deepEqual(refused.splice(0), ['192.0.2.1']);
});

// The JavaScript examples of docs/agents.md's frameworks section, as written (for wasm, the
// package name swapped), each run as a module of its own with the workspace's packages.
const page = readFileSync(path.join(ROOT, 'docs', 'agents.md'), 'utf8');
const section = /<!-- frameworks:start -->([\s\S]*?)<!-- frameworks:end -->/.exec(page);
assert.ok(section, 'docs/agents.md has no frameworks section');
const examples = [...section[1].matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1].replaceAll("from 'earlyexit/", `from '${PACKAGE}/`).replaceAll("from 'earlyexit'", `from '${PACKAGE}'`));

test(`docs/agents.md: the Vercel AI SDK example runs (${IMPL})`, () => {
  assert.ok(examples.some((code) => code.includes(`from '${PACKAGE}/ai-sdk'`)), 'an example of earlyexit/ai-sdk');
  for (const [i, code] of examples.entries()) {
    const out = spawnSync(process.execPath, ['--import', pathToFileURL(OFFLINE).href, '--input-type=module', '-e', code], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(out.status, 0, `docs/agents.md js example ${i + 1} failed:\n${out.stderr}`);
  }
});

test(`docs/agents.md: the JavaScript examples pass tsc --strict (${PACKAGE})`, () => {
  const dir = path.join(ROOT, 'test-output', 'agents-doc-types', IMPL);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const files = examples.map((code, i) => {
    const name = `example-${i + 1}.mts`;
    writeFileSync(path.join(dir, name), code);
    return name;
  });
  // With the SDK's own types: the condition is a StopCondition, alone, in a list, and typed
  // by the tools' StepResult (the same file checks against ai 7.x).
  writeFileSync(path.join(dir, 'with-sdk-types.mts'), `import { generateText, jsonSchema, stepCountIs, tool, type LanguageModel, type StepResult, type StopCondition } from 'ai';
import { earlyexitStop } from '${PACKAGE}/ai-sdk';

declare const model: LanguageModel;
const submit = tool({
  inputSchema: jsonSchema<{ draft: string }>({ type: 'object', properties: { draft: { type: 'string' } }, required: ['draft'] }),
  execute: async ({ draft }) => draft,
});
const tools = { submit };
const stop = earlyexitStop({ quality: (step) => step.text.length / 100, maxSteps: 5 });
const typed = earlyexitStop<StepResult<typeof tools>>({ quality: (step) => step.toolResults.length, scale: 100 });
const asCondition: StopCondition<typeof tools> = stop;
await generateText({ model, tools, prompt: 'x', stopWhen: stop });
await generateText({ model, tools, prompt: 'x', stopWhen: [stop, stepCountIs(3)] });
await generateText({ model, tools, prompt: 'x', stopWhen: typed });
const out: string | null = stop.loop.output;
void asCondition; void out;
`);
  files.push('with-sdk-types.mts');
  // skipLibCheck: the SDK's own declarations import `json-schema`, whose types it leaves to
  // the user (@types/json-schema); the adapter's are checked in full, without `ai`, by
  // tests/node/typed-ai-sdk.ts (scripts/test-node.sh).
  const out = strictTsc(dir, files, { skipLibCheck: true });
  assert.equal(out.status, 0, `tsc --strict on docs/agents.md's examples (${dir}):\n${out.stdout}${out.stderr}`);
});

function strictTsc(dir, files, extra) {
  const compilerOptions = {
    target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true,
    lib: ['es2022', 'dom'], types: ['node'], typeRoots: [path.join(ROOT, 'node_modules', '@types')], ...extra,
  };
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files }, null, 2));
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  return spawnSync(process.execPath, [tsc, '-p', dir], { cwd: ROOT, encoding: 'utf8' });
}
