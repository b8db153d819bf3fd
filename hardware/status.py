"""What a device says about itself, for the screen: ready, waiting or faulty."""

from __future__ import annotations

from dataclasses import dataclass

READY, WAITING, FAULT = "ready", "waiting", "fault"


@dataclass(frozen=True)
class Status:
    """A device's state (``ready``, ``waiting`` or ``fault``) and a sentence for people.

    >>> Status(FAULT, "printer: out of paper").ok
    False
    """

    state: str
    message: str = ""

    def __post_init__(self) -> None:
        if self.state not in (READY, WAITING, FAULT):
            raise ValueError(f"unknown device state {self.state!r}")

    @property
    def ok(self) -> bool:
        return self.state == READY
