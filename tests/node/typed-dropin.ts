// The seed's public fields and check methods as code written against the seed uses them,
// type-checked with typed-usage.ts: writable fields, a subclass that overrides the checks.
import {
  EarlyStopping,
  IterationAnalytics,
  type CheckAnswer,
  type IterationRecord,
  type StoppingDecision,
} from 'earlyexit';

class Strict extends EarlyStopping {
  override checkHighConfidence(iteration: IterationRecord): CheckAnswer {
    const answer = super.checkHighConfidence(iteration);
    return answer.stop && iteration.quality_score < 100
      ? { stop: false, reason: 'perfect scores only', confidence: answer.confidence, trigger: 'none' }
      : answer;
  }

  override checkQualityPlateau(): CheckAnswer {
    const history = this.iterationHistory;
    const last = history[history.length - 1];
    return last !== undefined && last.quality_score === 100
      ? { stop: true, reason: 'perfect', confidence: 1, trigger: 'perfect', details: { at: last.iteration_number } }
      : super.checkQualityPlateau();
  }

  override shouldStop(iteration?: number): StoppingDecision {
    return super.shouldStop(iteration);
  }
}

export function drive(record: IterationRecord): [boolean, string | null, number] {
  const stopper = new Strict();
  stopper.config.highConfidenceThreshold = 0.9;
  stopper.config = { plateauConsecutiveCount: 4 };
  stopper.iterationHistory.push(record);
  stopper.iterationHistory = [...stopper.iterationHistory, record];
  stopper.iterationAnalytics = new IterationAnalytics();
  stopper.iterationAnalytics = null;
  stopper.stoppingReason = null;
  stopper.stoppingDetails = null;
  const answers: CheckAnswer[] = [stopper.checkHighConfidence(record), stopper.checkQualityPlateau(), stopper.checkDiminishingReturns()];
  return [stopper.shouldStop().stop, stopper.stoppingReason, answers.length];
}
