"""What the eyes tell the table about a board: the vocabulary between vision and the desk.

The recogniser (``calibration``) decides; the table loop routes; the desk
acts. Each decision names the frame it was decided at and the cells by their
canonical labels, so the table never parses pixels' verdicts back into cells.

>>> TileSeen(frame=41, tile="5C").as_json()
{'frame': 41, 'tile': '5C'}
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
Sighting: TypeAlias = BoardSeen | TileSeen | ChangesSeen
