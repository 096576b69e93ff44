// `<package>/ai-sdk` type-checked with typed-usage.ts (`tsc --strict`, no `types`): its
// declarations need nothing of `ai` installed, the step type narrows to the caller's, and the
// options refuse what the runtime refuses. docs/agents.md's example checks them against the
// SDK's own types (tests/node/ai-sdk.test.mjs).
import { earlyexitStop, type AiSdkStep, type EarlyexitStopCondition } from 'earlyexit/ai-sdk';
import { earlyexitStop as wasmEarlyexitStop } from 'earlyexit-wasm/ai-sdk';
import type { Loop, StoppingDecision } from 'earlyexit';

interface MyStep extends AiSdkStep {
  readonly toolResults: ReadonlyArray<{ readonly output: unknown }>;
}
const stop: EarlyexitStopCondition<MyStep> = earlyexitStop<MyStep>({
  quality: (step, steps) => (step.toolResults.length > 0 ? 0.5 : 0.1) + steps.length / 100,
  preset: 'recommended',
  maxSteps: 10,
  task: 't-1',
});
const loop: Loop<string> = stop.loop;
const decision: StoppingDecision | null = loop.decision;
const output: string | null = stop.loop.output;
const answer: boolean | PromiseLike<boolean> = stop({ steps: [{ text: 'a', toolResults: [], usage: { totalTokens: 3 } }] });
const asyncQuality = wasmEarlyexitStop({ quality: async (step) => step.text.length / 100, scale: 1 });
void [decision, output, answer, asyncQuality];
// @ts-expect-error quality is required
earlyexitStop({ maxSteps: 3 });
// @ts-expect-error the cap is maxSteps
earlyexitStop({ quality: () => 1, maxIterations: 3 });
// @ts-expect-error scale is 1 or 100
earlyexitStop({ quality: () => 1, scale: 10 });
// @ts-expect-error a step has its text
stop({ steps: [{ toolResults: [] }] });
