"""Tiles the camera is unsure of: proposed as questions, and counted apart.

When the camera cannot tell a tile from the board but the time cue says the
hand changed that one cell (:class:`~tabletop.geometry.sightings.TileDoubted`),
the desk proposes it as it proposes a tile it saw, and says so: one CONFIRM
accepts it (the same journal action), NEXT, UNDO or a tap on another cell
still do what they always do. Nothing is applied without that CONFIRM.

Where each proposed tile came from is counted (:class:`Sources`), so that the
demo and the benchmarks can tell the table's work apart from the camera's.

>>> sources = Sources()
>>> sources.add(CAMERA); sources.add(UNSURE); sources.add(CAMERA)
>>> sources.as_json()
{'camera': 2, 'unsure': 1, 'hand': 0}
>>> str(unsure_title("Ann", "10D"))
'camera unsure: Ann placed 10D? CONFIRM plays it, UNDO refuses it'
"""

from __future__ import annotations

from dataclasses import dataclass

from tabletop.geometry.sightings import UNSURE
from tabletop.messages import Message

#: Where a proposed tile came from: seen by the camera, asked as unsure, tapped in by hand.
CAMERA, HAND = "camera", "hand"

__all__ = ["CAMERA", "HAND", "UNSURE", "Sources", "unsure_title"]


@dataclass
class Sources:
    """How many tiles were proposed, by where they came from."""

    camera: int = 0     # seen by the camera and proposed
    unsure: int = 0     # asked as unsure (the camera's doubt, one CONFIRM accepts it)
    hand: int = 0       # tapped in by hand

    def add(self, source: str) -> None:
        setattr(self, source, getattr(self, source) + 1)

    def as_json(self) -> dict[str, int]:
        return {"camera": self.camera, "unsure": self.unsure, "hand": self.hand}


def unsure_title(player: str, tile: str) -> Message:
    """The prompt's title for a placement the camera is unsure of."""
    return Message("camera unsure: {player} placed {tile}? CONFIRM plays it, UNDO refuses it",
                   player=player, tile=tile)
