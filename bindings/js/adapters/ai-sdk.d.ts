// `<package>/ai-sdk`: a stop condition for the Vercel AI SDK (`ai` 6.x and 7.x). These types
// import nothing of `ai`: they describe the few fields of the SDK's step the condition reads,
// so the SDK's `StepResult` (of any tool set) is assignable to `AiSdkStep`, the condition is
// assignable to the SDK's `StopCondition`, and a project without `ai` still type-checks.
import type { Loop, LoopOptions } from './index.js';

/** The fields of an AI SDK step (`StepResult` in `ai` 6.x and 7.x) the condition reads. */
export interface AiSdkStep {
  /** The step's text: the loop's output for the step and the fingerprint's source. */
  readonly text: string;
  /** Recorded as the step's tokens: `totalTokens`, else input plus output. */
  readonly usage?: {
    readonly inputTokens?: number | undefined;
    readonly outputTokens?: number | undefined;
    readonly totalTokens?: number | undefined;
  } | undefined;
  /** The step's content parts; each `tool-error` part is recorded in the step's `error`. */
  readonly content?: ReadonlyArray<{ readonly type: string; readonly toolName?: string; readonly error?: unknown }>;
}

/** `earlyexitStop`'s options: the `Loop`'s policy and settings, `quality`, and the cap. */
export interface EarlyexitStopOptions<STEP extends AiSdkStep = AiSdkStep>
  extends Omit<LoopOptions<string>, 'maxIterations' | 'scale'> {
  /** The step's score on `scale` (a promise of one is awaited). */
  quality: (step: STEP, steps: ReadonlyArray<STEP>) => number | PromiseLike<number>;
  /** The cap on steps (>= 1; default 20): it replaces the SDK's default `stepCountIs(1)`. */
  maxSteps?: number;
  /** The scale of `quality`: 1 (default) or 100. */
  scale?: 1 | 100;
}

/**
 * A `stopWhen` condition (the SDK's `StopCondition`): true once the loop's decision says
 * stop or `maxSteps` steps have run. `.loop` is its `Loop` (the best step's text in
 * `loop.best` and `loop.output`, the decision in `loop.decision`).
 */
export interface EarlyexitStopCondition<STEP extends AiSdkStep = AiSdkStep> {
  (options: { steps: Array<STEP> }): boolean | PromiseLike<boolean>;
  readonly loop: Loop<string>;
}

/** A `stopWhen` condition that records each new step in a `Loop` and stops by its decision. */
export declare function earlyexitStop<STEP extends AiSdkStep = AiSdkStep>(options: EarlyexitStopOptions<STEP>): EarlyexitStopCondition<STEP>;
