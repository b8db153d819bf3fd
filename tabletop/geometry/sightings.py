"""What the eyes tell the table about a board: the vocabulary between vision and the desk.

The recogniser (``calibration``) decides; the table loop routes; the desk
acts. Each decision names the frame it was decided at and the cells by their
canonical labels, so the table never parses pixels' verdicts back into cells.

>>> TileSeen(frame=41, tile="5C").as_json()
{'frame': 41, 'tile': '5C'}
>>> TileDoubted(frame=52, tile="10D", reason="unsure").as_json()
{'frame': 52, 'doubt': '10D', 'reason': 'unsure'}
>>> ChangesSeen(frame=60, message="2 new tiles at once", new=("2B", "9G")).as_json()
{'frame': 60, 'warning': '2 new tiles at once', 'new': ['2B', '9G'], 'gone': []}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeAlias


@dataclass(frozen=True)
class BoardSeen:
    """The first still, clear view after a (re)start: every cell holding a tile."""

    frame: int
    cells: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        return {"frame": self.frame, "board": list(self.cells)}


@dataclass(frozen=True)
class TileSeen:
    """One new tile, settled: a placement to propose."""

    frame: int
    tile: str

    def as_json(self) -> dict[str, Any]:
        return {"frame": self.frame, "tile": self.tile}


#: Why the camera doubts a tile it proposes (:class:`TileDoubted`).
UNSURE = "unsure"   # its cell alone changed under the hand, but the classifier cannot tell
LATE = "late"       # read only now, on a cell a hand changed at an earlier placement


@dataclass(frozen=True)
class TileDoubted:
    """One new tile the camera is unsure of: to propose as a question, never to commit unasked.

    ``reason``: :data:`UNSURE` (the hand's only change, the tile itself hard to
    read) or :data:`LATE` (a tile of an earlier placement read only now; it
    comes before the sightings of the placement that followed).
    """

    frame: int
    tile: str
    reason: str = UNSURE

    def as_json(self) -> dict[str, Any]:
        return {"frame": self.frame, "doubt": self.tile, "reason": self.reason}


@dataclass(frozen=True)
class ChangesSeen:
    """A change one placement cannot explain (tiles come, gone or moved): never committed."""

    frame: int
    message: str
    new: tuple[str, ...] = ()
    gone: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {"frame": self.frame, "warning": self.message, "new": list(self.new),
                "gone": list(self.gone)}


#: One decision of the eyes.
Sighting: TypeAlias = BoardSeen | TileSeen | TileDoubted | ChangesSeen
