"""A pure-Python version of the seed's loop engine, as a baseline for bench.py only.

It is what a Python user would write instead of depending on earlyexit: the seed's default
rules (high confidence with verification, then a quality plateau over the last three
records, relative to the previous score), the same dict results, no validation and no
diminishing-returns source. It is not shipped and not part of the package.
"""

from datetime import datetime, timezone

DEFAULTS = {
    "highConfidenceThreshold": 0.95,
    "plateauConsecutiveCount": 3,
    "plateauImprovementThreshold": 0.02,
    "minQualityThreshold": 70,
    "requireVerification": True,
    "enablePlateauDetection": True,
}


def _now():
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class SeedEarlyStopping:
    def __init__(self, **config):
        self.config = {**DEFAULTS, **config}
        self.history = []
        self.stopping_reason = None
        self.stopping_details = None

    def record(self, iteration, quality_score, confidence, verification_status, quality_delta, timestamp=None):
        self.history.append(
            {
                "iteration_number": iteration,
                "quality_score": quality_score,
                "confidence": confidence,
                "verification_status": verification_status,
                "quality_delta": quality_delta,
                "timestamp": timestamp or _now(),  # the seed's `result.timestamp || now`
            }
        )

    def _high_confidence(self, last):
        c = self.config
        if last["confidence"] < c["highConfidenceThreshold"] or last["quality_score"] < c["minQualityThreshold"]:
            return None
        if c["requireVerification"] and last["verification_status"] != "passed":
            return None
        return {
            "stop": True,
            "reason": f"High confidence ({last['confidence'] * 100:.1f}%) AND verification passed",
            "confidence": last["confidence"],
            "trigger": "high_confidence",
            "details": {"confidence": last["confidence"], "quality_score": last["quality_score"]},
        }

    def _plateau(self):
        c = self.config
        count = c["plateauConsecutiveCount"]
        if len(self.history) < count:
            return None
        recent = self.history[-count:]
        improvements = []
        for prev, curr in zip(recent, recent[1:]):
            previous = prev["quality_score"]
            improvement = abs(curr["quality_delta"]) / previous if previous > 0 else 0
            if improvement >= c["plateauImprovementThreshold"]:
                return None
            improvements.append(
                {"iteration": curr["iteration_number"], "improvement": improvement, "delta": curr["quality_delta"]}
            )
        average = sum(r["quality_score"] for r in recent) / len(recent)
        return {
            "stop": True,
            "reason": f"Quality plateau detected: {count} consecutive iterations with "
            f"<{c['plateauImprovementThreshold'] * 100:.0f}% improvement",
            "confidence": 0.85,
            "trigger": "quality_plateau",
            "details": {"consecutive_count": count, "improvements": improvements, "average_quality": average},
        }

    def should_stop(self):
        if not self.history:
            return {"stop": False, "reason": "No iterations completed yet", "confidence": 1.0, "trigger": "none"}
        decision = self._high_confidence(self.history[-1])
        if decision is None and self.config["enablePlateauDetection"]:
            decision = self._plateau()
        if decision is None:
            return {
                "stop": False,
                "reason": "Continuing iteration - no stopping criteria met",
                "confidence": 0.7,
                "trigger": "none",
            }
        self.stopping_reason = decision["reason"]
        self.stopping_details = decision["details"]
        return decision

    def summary(self):
        if not self.history:
            return {"total_iterations": 0, "stopped_early": False, "reason": "No iterations completed"}
        decision = self.should_stop()
        last = self.history[-1]
        return {
            "total_iterations": len(self.history),
            "stopped_early": decision["stop"],
            "stopping_trigger": decision["trigger"],
            "stopping_reason": decision["reason"],
            "stopping_confidence": decision["confidence"],
            "final_quality": last["quality_score"],
            "final_confidence": last["confidence"],
            "final_verification": last["verification_status"],
            "config": dict(self.config),
        }

    def reset(self):
        self.history = []
        self.stopping_reason = None
        self.stopping_details = None
