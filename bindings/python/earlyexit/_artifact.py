"""Calibration artifacts in Python: ``calibrate_pyramid_policy`` answers a dict (its figures
and the artifact's keys) that also writes itself as JSON, to keep between CI runs."""

from __future__ import annotations

import json
from typing import Any

from . import _native


class CalibrationArtifact(dict):  # type: ignore[type-arg]
    """``calibrate_pyramid_policy``'s answer: a plain dict (``risk_budget``, ``config``,
    ``steps``, ``model`` as before, then the artifact's keys ``kind``, ``schemaVersion``,
    ``policy``, ``risk``, ``delta``, ``certificate``, ``corpusSha256``, ``createdAt``,
    ``expiresAt``, ``promotion``, ``body``) with :meth:`to_json`. Pass it (or its JSON) as
    ``policy=`` of a run, to :func:`check_pyramid_drift` or :func:`promote_pyramid_policy`."""

    def to_json(self) -> str:
        """The artifact as JSON text (what ``policy=`` and the other binding read back)."""
        return json.dumps(self, separators=(",", ":"), allow_nan=False)


def calibrate_pyramid_policy(runs: Any, risk: float, delta: float, **options: Any) -> CalibrationArtifact:
    """Learn-then-Test calibration of the risk budget, with its artifact (``created_at``
    defaults to now, ``expires_at`` to 30 days later)."""
    return CalibrationArtifact(_native.calibrate_pyramid_policy(runs, risk, delta, **options))
