"""Deciding what was placed: commit a tile only when the board is clear and still.

The tracker is fed one :class:`Reading` a frame (which cells hold a tile, which
it could not decide, whether anything is over the board). It acts only on a
*stable* board: clear, and read the same way for ``hold`` seconds. The first
stable board is its reference (it may already hold tiles). After that, a stable
board that differs from the reference by exactly one new tile commits that
tile; any other difference (two new tiles, a tile gone or moved, many cells
at once as when a lamp is switched on) is a warning, never a commit, and the
board as it now stands becomes the reference.

>>> tracker = StabilityTracker(hold=0.3)
>>> empty, one = Reading(frozenset(), frozenset(), True), Reading(frozenset({5}), frozenset(), True)
>>> [d.kind for i in range(4) for d in tracker.feed(i, i / 10, empty)]
['reference']
>>> [d.kind for i in range(4, 9) for d in tracker.feed(i, i / 10, one)]
['commit']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

#: Seconds the board must be clear and unchanged before the tracker believes it.
HOLD = 0.5
#: Seconds a cell may stay undecided on a still board before the table is told.
UNDECIDED = 3.0
#: More changed cells than this at once is not something players did by hand.
MANY = 3


@dataclass(frozen=True)
class Reading:
    """What one frame shows: occupied and undecided cells, and whether the board is clear."""

    occupied: frozenset[int]
    uncertain: frozenset[int]
    clear: bool


@dataclass(frozen=True)
class Decision:
    """A commit (``cell`` placed) or a warning, decided at frame ``frame``."""

    frame: int
    kind: str            # "commit" | "warning" | "reference"
    cell: int | None = None
    message: str = ""


class StabilityTracker:
    """Turns a stream of readings into commits and warnings (see the module's docstring)."""

    def __init__(self, hold: float = HOLD, label: Callable[[int], str] = str) -> None:
        self.hold = hold
        self.label = label
        self.reference: frozenset[int] | None = None
        self._run: Reading | None = None     # the reading the board has held since _since
        self._since = 0.0
        self._decided = False
        self._warned_undecided = False

    def feed(self, frame: int, time: float, reading: Reading) -> list[Decision]:
        """Take one frame's reading; return what was decided at this frame."""
        if not reading.clear:
            self._run = None
            return []
        # Stillness is judged on the cells read as tiles: a cell flickering between
        # empty and undecided must not keep the board from ever being still.
        if self._run is None or reading.occupied != self._run.occupied:
            self._run, self._since, self._decided = reading, time, False
            self._warned_undecided = False
            return []
        if time - self._since < self.hold:
            return []
        # A cell that may newly hold a tile blocks any decision until a frame reads
        # it clearly: committing the others could commit a neighbour misread for it.
        doubtful = reading.uncertain - (self.reference or frozenset())
        if doubtful:
            return self._undecided(frame, time, doubtful)
        if self._decided:
            return []
        self._decided = True
        return self._compare(frame, reading.occupied, reading.uncertain)

    def _undecided(self, frame: int, time: float, doubtful: frozenset[int]) -> list[Decision]:
        if self._warned_undecided or time - self._since < UNDECIDED:
            return []
        self._warned_undecided = True
        cells = ", ".join(self.label(c) for c in sorted(doubtful))
        return [Decision(frame, "warning", message=f"cannot tell whether {cells} hold a tile: "
                                                   f"check the light, or enter it by hand")]

    def _compare(self, frame: int, occupied: frozenset[int],
                 uncertain: frozenset[int] = frozenset()) -> list[Decision]:
        reference = self.reference
        if reference is None:  # (no cell is undecided here: see feed)
            self.reference = occupied
            return [Decision(frame, "reference", message=f"{len(occupied)} tiles on the board")]
        # An undecided cell is neither new nor gone: it keeps what the reference says.
        occupied = occupied | (uncertain & reference)
        self.reference = occupied
        new, gone = sorted(occupied - reference), sorted(reference - occupied)
        if not new and not gone:
            return []
        if len(new) == 1 and not gone:
            return [Decision(frame, "commit", new[0])]
        # Anything else is not one placement: say what changed, commit nothing.
        self.reference = occupied
        return [Decision(frame, "warning", message=self._describe(new, gone))]

    def _describe(self, new: list[int], gone: list[int]) -> str:
        names = lambda cells: ", ".join(self.label(c) for c in cells)  # noqa: E731
        if len(new) + len(gone) > MANY:
            return (f"{len(new) + len(gone)} cells changed at once ({len(new)} new, {len(gone)} "
                    f"gone): not a placement (did the light change or the board move?)")
        if len(new) == 1 and len(gone) == 1:
            return f"a tile moved from {names(gone)} to {names(new)}: not committed"
        parts = []
        if new:
            parts.append(f"{len(new)} new tiles at once ({names(new)})")
        if gone:
            parts.append(f"tile{'s' if len(gone) > 1 else ''} gone from {names(gone)}")
        advice = "place one tile at a time" if new else "put it back, or undo its placement"
        return " and ".join(parts) + f": not committed; {advice}"
