// `<package>/ai-sdk`: a stop condition for the Vercel AI SDK (`ai` 6.x and 7.x) over the
// package's Loop (docs/agents.md, "Vercel AI SDK"). bindings/js/build.mjs wraps this file:
// the CommonJS entry passes the package's Loop (index.cjs), the browser entry the web build's.
// Nothing of `ai` is imported: the condition reads the SDK's step objects by their documented
// fields (`text`, `usage`, `content`), which both major versions share.
//
// The SDK calls every `stopWhen` condition with the whole list of steps after each step that
// called tools, and returns the last step's text: the condition records the steps it has not
// seen (their count is its state; one condition per generateText or streamText call), answers
// the decision, and keeps the loop on `.loop` for the best step's text.
function createAiSdk(Loop) {
  // A step's tokens: the SDK's total, else input plus output; none when it reported none.
  function tokensOf(usage) {
    if (usage === null || typeof usage !== 'object') return undefined;
    const total = usage.totalTokens;
    if (typeof total === 'number') return total;
    const input = usage.inputTokens;
    const output = usage.outputTokens;
    if (typeof input !== 'number' && typeof output !== 'number') return undefined;
    return (typeof input === 'number' ? input : 0) + (typeof output === 'number' ? output : 0);
  }

  // A tool error's message: an Error's message, a string as it is, else its JSON.
  function messageOf(cause) {
    if (cause instanceof Error) return cause.message;
    if (typeof cause === 'string') return cause;
    if (cause === undefined || cause === null) return 'error';
    try {
      const json = JSON.stringify(cause);
      if (typeof json === 'string') return json;
    } catch {
      // a cycle or a BigInt: its string form below
    }
    return String(cause);
  }

  // The step's tool errors (its `tool-error` content parts), each as `tool: message`.
  function errorOf(content) {
    if (!Array.isArray(content)) return undefined;
    let error;
    for (let i = 0; i < content.length; i++) {
      const part = content[i];
      if (part === null || typeof part !== 'object' || part.type !== 'tool-error') continue;
      const line = `${typeof part.toolName === 'string' ? part.toolName : 'tool'}: ${messageOf(part.error)}`;
      error = error === undefined ? line : error + '; ' + line;
    }
    return error;
  }

  function optionError(Kind, code, field, message) {
    const error = new Kind(message);
    error.code = code;
    error.field = field;
    return error;
  }

  // Loop names its cap `maxIterations`; here it is `maxSteps`.
  function asMaxSteps(error) {
    if (error !== null && typeof error === 'object' && error.field === 'maxIterations') {
      error.field = 'maxSteps';
      if (typeof error.message === 'string') error.message = error.message.replaceAll('maxIterations', 'maxSteps');
    }
    return error;
  }

  const isThenable = (value) => value !== null && (typeof value === 'object' || typeof value === 'function') && typeof value.then === 'function';

  /**
   * `earlyexitStop({ quality, policy, preset, scale = 1, maxSteps = 20, task, dataset,
   * runLabel, fingerprintOf })`: a `stopWhen` condition that stops by the loop's decision and
   * always at `maxSteps` steps.
   */
  function earlyexitStop(options) {
    if (options === null || typeof options !== 'object' || Array.isArray(options)) {
      throw optionError(TypeError, 'invalid_config', 'options', 'earlyexitStop takes an options object with a quality function: earlyexitStop({ quality: (step, steps) => number })');
    }
    const { quality, maxSteps = 20, scale = 1, ...rest } = options;
    if (typeof quality !== 'function') {
      throw optionError(TypeError, 'invalid_config', 'quality', 'earlyexitStop: quality must be a function (step, steps) => number, the step\'s score on the loop\'s scale');
    }
    if ('maxIterations' in rest) {
      throw optionError(TypeError, 'unknown_option', 'maxIterations', 'earlyexitStop: the cap is maxSteps, not maxIterations');
    }
    if (typeof maxSteps !== 'number') {
      throw optionError(TypeError, 'invalid_config', 'maxSteps', 'earlyexitStop: maxSteps must be a number of steps (>= 1), the cap that replaces stepCountIs');
    }
    let loop;
    try {
      loop = new Loop({ ...rest, scale, maxIterations: maxSteps });
    } catch (error) {
      throw asMaxSteps(error);
    }

    let seen = 0; // the steps recorded: steps[0 .. seen)
    let stopped = false; // the last decision's stop
    let pending = null; // the answer being awaited while an async quality scores a step

    function record(step, score) {
      const args = { quality: score };
      const tokens = tokensOf(step.usage);
      if (tokens !== undefined) args.tokens = tokens;
      const error = errorOf(step.content);
      if (error !== undefined) args.error = error;
      const text = typeof step.text === 'string' ? step.text : '';
      stopped = loop.step(text, args).stop === true;
      seen++;
    }

    // (the step's own answer: `loop.decision` is a copy, made for the caller)
    const answer = (steps) => stopped || steps.length >= maxSteps;

    // Records steps[seen ..]; synchronous unless `quality` answers a promise.
    function advance(steps) {
      while (seen < steps.length) {
        const step = steps[seen];
        if (step === null || typeof step !== 'object') {
          throw optionError(TypeError, 'invalid_result', `steps[${seen}]`, `earlyexitStop: steps[${seen}] is not a step of the AI SDK`);
        }
        const score = quality(step, steps);
        if (isThenable(score)) return Promise.resolve(score).then((value) => { record(step, value); return advance(steps); });
        record(step, score);
      }
      return answer(steps);
    }

    function check(steps) {
      if (steps.length < seen) {
        throw optionError(RangeError, 'invalid_result', 'steps', `earlyexitStop: the condition has recorded ${seen} steps and is called with ${steps.length}: use one condition per generateText or streamText call`);
      }
      return advance(steps);
    }

    const condition = function earlyexitStopCondition(state) {
      const steps = state === null || typeof state !== 'object' ? undefined : state.steps;
      if (!Array.isArray(steps)) {
        throw optionError(TypeError, 'invalid_result', 'steps', 'earlyexitStop: the condition is called with { steps }, the steps of a generateText or streamText call');
      }
      // A call while an async quality is still scoring waits for it: each step is scored once.
      if (pending !== null) return pending.then(() => condition(state), () => condition(state));
      const result = check(steps);
      if (!isThenable(result)) return result;
      const settled = () => { if (pending === tracked) pending = null; };
      const tracked = result.then((value) => { settled(); return value; }, (error) => { settled(); throw error; });
      pending = tracked;
      return tracked;
    };
    Object.defineProperty(condition, 'loop', { value: loop, enumerable: true });
    return condition;
  }

  return { earlyexitStop };
}
