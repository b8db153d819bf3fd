"""The interface every board shape provides: cells numbered ``0 .. size-1``.

A geometry numbers its cells so that the engine works on small integers;
sorting cell numbers gives the rulebook's "closest to the first label" order.
Labels are only for people and scripts.

>>> from tabletop.geometry import SquareGrid
>>> board = SquareGrid(columns=12, rows=9)
>>> board.label(min(board.parse(t) for t in ["2A", "1B", "5C"]))
'1B'

Every board also lies on the table as a grid of ``rows`` x ``columns``:
``grid_position`` and ``corners`` tell the vision code where each cell is.

>>> board.grid_position(board.parse("6C"))
(2, 5)
>>> [board.label(c) for c in board.corners()]
['1A', '12A', '12I', '1I']

A new board shape is a new subclass registered in ``tabletop.geometry.GEOMETRIES``;
the engine only uses this interface.
"""

from __future__ import annotations

import re  # noqa: F401 - the doctests use it
from typing import Any

from tabletop.errors import IllegalAction
from tabletop.messages import Message


#: A letter and a number in either order, optionally separated: ``C-6``, ``6c``,
#: ``c 6``, ``6/C``. Four groups; ``letter_number`` reads them.
LETTER_NUMBER = r"(?:([0-9]+)\s*[-/ ]?\s*([A-Za-z])|([A-Za-z])\s*[-/ ]?\s*([0-9]+))"


def letter_number(groups: tuple[str | None, ...]) -> tuple[int, int]:
    """``(row, column)``, 0-based, from the four groups of ``LETTER_NUMBER``.

    >>> letter_number(re.match(LETTER_NUMBER, "c-6").groups())
    (2, 5)
    >>> letter_number(re.match(LETTER_NUMBER, "6C").groups())
    (2, 5)
    """
    number = groups[0] or groups[3]
    letter = (groups[1] or groups[2] or "").upper()
    return ord(letter) - 65, int(number or 0) - 1


class Geometry:
    """The interface every board shape provides.

    ``labels[c]`` is the canonical label of cell ``c``; ``neighbours[c]`` the
    cells that touch it, in increasing order.

    Tiles are what the bag holds and hands hold. On most boards a tile names
    exactly one cell and tile ``t`` is cell ``t``; a board whose card may go
    in several places (a quadrant board) sets ``tile_labels``, ``tile_of``
    (cell to tile) and ``cells_of`` (tile to cells) itself.
    """

    labels: tuple[str, ...]
    neighbours: tuple[tuple[int, ...], ...]
    first_label: str
    example_labels: str
    tile_labels: tuple[str, ...]
    tile_of: tuple[int, ...]
    cells_of: tuple[tuple[int, ...], ...]
    #: The whole grid as it lies on the table (a quadrant board: all four quadrants).
    rows: int
    columns: int
    #: Which hex rows are shoved right by half a cell ("odd-r", "even-r"); None on a square grid.
    offset: str | None = None

    def __init__(self) -> None:
        self._index = {label: cell for cell, label in enumerate(self.labels)}
        if not hasattr(self, "tile_of"):
            self.tile_labels = self.labels
            self.tile_of = tuple(range(self.size))
            self.cells_of = tuple((cell,) for cell in range(self.size))

    @property
    def size(self) -> int:
        return len(self.labels)

    def label(self, cell: int) -> str:
        return self.labels[cell]

    def parse(self, text: Any) -> int:
        """The cell a label names, read leniently; IllegalAction if none does."""
        if isinstance(text, str):
            cell = self._index.get(text)
            if cell is not None:
                return cell
            cell = self._parse_lenient(text)
            if cell is not None:
                return cell
        raise IllegalAction(Message("{label} is not a cell of this board (labels run {labels})",
                                    label=repr(text), labels=self.example_labels))

    def _parse_lenient(self, text: str) -> int | None:
        raise NotImplementedError

    def parse_tile(self, text: Any) -> int:
        """The tile (what hands and the bag hold) a label names, read leniently.

        IllegalAction if none does. On a board where a tile is a cell this is
        the cell's tile; a quadrant board also reads a card label on its own.
        """
        return self.tile_of[self.parse(text)]

    def tile_number(self, tile: int) -> int:
        """The number printed on ``tile`` (the two-player market reads it)."""
        raise NotImplementedError

    def grid_position(self, cell: int) -> tuple[int, int]:
        """``(row, column)`` of ``cell`` on the table grid, 0-based; row 0 is row A."""
        raise NotImplementedError

    def corners(self) -> tuple[int, int, int, int]:
        """The four corner cells in calibration order (docs/design.md, the vision commands).

        First label, last label of the first row, last label, first label of
        the last row: clockwise from the top left of the grid as it lies.
        """
        # Derived from grid_position so that every shape agrees with what the
        # vision code lays out, whatever its cell numbering.
        at = {self.grid_position(cell): cell for cell in range(self.size)}
        last_row, last_column = self.rows - 1, self.columns - 1
        return (at[0, 0], at[0, last_column], at[last_row, last_column], at[last_row, 0])
