"""Board geometry: cell labels, lenient parsing, adjacency and turn order.

A geometry numbers its cells ``0 .. size-1`` so that the engine works on small
integers; sorting cell numbers gives the rulebook's "closest to the first
label" order. Labels are only for people and scripts.

>>> board = SquareGrid(columns=12, rows=9)
>>> board.label(board.parse("c-6"))
'6C'
>>> [board.label(c) for c in board.neighbours[board.parse("1A")]]
['1B', '2A']
>>> board.label(min(board.parse(t) for t in ["2A", "1B", "5C"]))
'1B'

A new board shape (hexes, quadrants) is a new subclass registered in
``GEOMETRIES``; the engine only uses this interface.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping

from tabletop.errors import IllegalAction, RulesFileError


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
        raise IllegalAction(
            f"{text!r} is not a cell of this board (labels run {self.example_labels})")

    def _parse_lenient(self, text: str) -> int | None:
        raise NotImplementedError

    def tile_number(self, tile: int) -> int:
        """The number printed on ``tile`` (the two-player market reads it)."""
        raise NotImplementedError


class SquareGrid(Geometry):
    """Acquire's board: ``columns`` numbered from 1, ``rows`` lettered from A.

    A label is number then letter (``6C``); ``C6``, ``6c`` and ``c-6`` are
    read too. Cells touch up, down, left and right, never diagonally. Cells
    are numbered column by column, so ``1A < 1B < ... < 2A``: lower number
    first, then lower letter, as the rulebook orders turn-order tiles.
    """

    _PATTERN = re.compile(r"^\s*(?:([0-9]+)\s*[-/ ]?\s*([A-Za-z])|([A-Za-z])\s*[-/ ]?\s*([0-9]+))\s*$")

    def __init__(self, columns: int, rows: int) -> None:
        if not 1 <= rows <= 26 or columns < 1:
            raise RulesFileError("board: a square board needs 1-26 rows and at least 1 column")
        self.columns = columns
        self.rows = rows
        self.labels = tuple(f"{col + 1}{chr(65 + row)}"
                            for col in range(columns) for row in range(rows))
        self.neighbours = tuple(self._touching(cell) for cell in range(columns * rows))
        self.first_label = self.labels[0]
        self.example_labels = f"1A..{columns}{chr(64 + rows)}"
        super().__init__()

    def _cell(self, col: int, row: int) -> int:
        return col * self.rows + row

    def _touching(self, cell: int) -> tuple[int, ...]:
        col, row = divmod(cell, self.rows)
        near = [(col - 1, row), (col, row - 1), (col, row + 1), (col + 1, row)]
        return tuple(self._cell(c, r) for c, r in near
                     if 0 <= c < self.columns and 0 <= r < self.rows)

    def _parse_lenient(self, text: str) -> int | None:
        match = self._PATTERN.match(text)
        if not match:
            return None
        number = match.group(1) or match.group(4)
        letter = (match.group(2) or match.group(3)).upper()
        col, row = int(number) - 1, ord(letter) - 65
        if 0 <= col < self.columns and 0 <= row < self.rows:
            return self._cell(col, row)
        return None

    def tile_number(self, tile: int) -> int:
        return tile // self.rows + 1


def _square(board: Mapping[str, Any], options: Mapping[str, Any]) -> Geometry:
    return SquareGrid(columns=_int(board, "columns"), rows=_int(board, "rows"))


def _int(board: Mapping[str, Any], key: str) -> int:
    value = board.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise RulesFileError(f"board.{key}: expected an integer, got {value!r}")
    return value


#: Board kinds a rule file may name in ``[board] kind``: each a builder taking that
#: table and the game's options (a board may depend on one, e.g. a hex row offset).
GEOMETRIES: dict[str, Callable[[Mapping[str, Any], Mapping[str, Any]], Geometry]] = {
    "square": _square,
}


def make_geometry(board: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> Geometry:
    """Build the geometry a rule file's ``[board]`` table describes."""
    kind = board.get("kind")
    if kind not in GEOMETRIES:
        raise RulesFileError(
            f"board.kind: {kind!r} is not a known board kind ({', '.join(GEOMETRIES)})")
    return GEOMETRIES[kind](board, options or {})
