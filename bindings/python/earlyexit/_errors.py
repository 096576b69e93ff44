"""The two exception classes every call of the package raises for bad input, and the codes
they carry."""

from __future__ import annotations

from typing import Tuple

from ._literals import ErrorCode as ErrorCode


class EarlyExitError(ValueError):
    """A rejected value: NaN, an infinity, a number out of range, a non-integer where an
    integer is needed, an unknown status or criterion, an unparseable timestamp, a
    snapshot that cannot be restored, the step API used out of order.

    The call that raised it changed nothing.

    Attributes:
        code: the stable machine-readable code, e.g. ``"invalid_result"`` (see
            ``docs/api-conventions.md``).
        field: the offending field in Python's snake_case spelling, with a path where it
            is nested (``"layers[2].pass_rate"``, ``"history[3].quality_score"``).
    """

    code: str
    field: str

    def __init__(self, message: str, code: str = "", field: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.field = field

    def __reduce__(self) -> Tuple[type, Tuple[str, str, str]]:
        return (type(self), (str(self), self.code, self.field))


class EarlyExitTypeError(EarlyExitError, TypeError):
    """A value of the wrong type, a missing required key, or an unknown keyword (code
    ``"unknown_option"``; the message names the closest valid one).

    Both a :class:`EarlyExitError` (so one ``except`` clause catches every rejected input)
    and a :class:`TypeError`.
    """


class UncertifiedCalibrationWarning(UserWarning):
    """Warned (``warnings``) when an engine or a :class:`Loop` loads a loop calibration
    artifact that certifies nothing (too few tasks, or even the most conservative policy
    stopped too many prematurely): the engine runs the path's most conservative policy, and
    its premature-stop rate is not bounded by the artifact's risk.

    Python's default filter shows it once per place that loads such an artifact; make it an
    error with ``warnings.simplefilter("error", UncertifiedCalibrationWarning)``.
    """
