"""What the screens ask of the table beyond the game: the printer, the USB stick, the power,
the calibration file, the journal's other games.

The assembly builds one object of this shape for a real table
(:class:`tabletop.assembly.services.TableServices`); a table without devices
(the demo, screenshots) has none, and the screens say so. Every answer is a
sentence for the screen; none raises, but ``resume``, which raises
:class:`~tabletop.errors.TabletopError` when the journal cannot replay the game
(the screen says why, nothing changes).
"""

from __future__ import annotations

from typing import Any, Protocol

from tabletop.journal.journal import GameInfo


class Services(Protocol):
    """The table's devices and journal, as the screens use them."""

    def print_slip(self) -> str: ...

    def export(self) -> str: ...

    def shutdown(self) -> str: ...

    def printer_banner(self) -> str: ...

    def save_calibration(self, calibration: Any) -> str: ...

    def unfinished(self) -> list[GameInfo]: ...

    def resume(self, game_id: int) -> None: ...



class Dimmer(Protocol):
    """The screen's light between games (:class:`hardware.idle.IdleDimmer`'s shape)."""

    def touched(self) -> bool:
        """A touch: wake the panel; True when it was dimmed (the touch only woke it)."""

    def set_allowed(self, allowed: bool) -> None:
        """Between games (True) the panel may dim; in a game (False) it is lit at once."""

    def tick(self) -> bool:
        """Dim once the table has been left alone long enough."""
