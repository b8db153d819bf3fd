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

Every board also lies on the table as a grid of ``rows`` x ``columns``:
``grid_position`` and ``corners`` tell the vision code where each cell is.

>>> board.grid_position(board.parse("6C"))
(2, 5)
>>> [board.label(c) for c in board.corners()]
['1A', '12A', '12I', '1I']

A new board shape is a new subclass registered in ``GEOMETRIES``; the engine
only uses this interface. The hex boards (MEGAcquire GOLD's ``HexGrid``,
ACQUISITIONS' ``QuadrantBoard``) live in ``tabletop.hexgrid`` and are
importable from here.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping

from tabletop.errors import IllegalAction, RulesFileError


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
        raise IllegalAction(
            f"{text!r} is not a cell of this board (labels run {self.example_labels})")

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
        """The four corner cells in calibration order (DESIGN.md, vision contract).

        First label, last label of the first row, last label, first label of
        the last row: clockwise from the top left of the grid as it lies.
        """
        # Derived from grid_position so that every shape agrees with what the
        # vision code lays out, whatever its cell numbering.
        at = {self.grid_position(cell): cell for cell in range(self.size)}
        last_row, last_column = self.rows - 1, self.columns - 1
        return (at[0, 0], at[0, last_column], at[last_row, last_column], at[last_row, 0])


class SquareGrid(Geometry):
    """Acquire's board: ``columns`` numbered from 1, ``rows`` lettered from A.

    A label is number then letter (``6C``); ``C6``, ``6c`` and ``c-6`` are
    read too. Cells touch up, down, left and right, never diagonally. Cells
    are numbered column by column, so ``1A < 1B < ... < 2A``: lower number
    first, then lower letter, as the rulebook orders turn-order tiles.
    """

    _PATTERN = re.compile(rf"^\s*{LETTER_NUMBER}\s*$")

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
        row, col = letter_number(match.groups())
        if 0 <= col < self.columns and 0 <= row < self.rows:
            return self._cell(col, row)
        return None

    def tile_number(self, tile: int) -> int:
        return tile // self.rows + 1

    def grid_position(self, cell: int) -> tuple[int, int]:
        col, row = divmod(cell, self.rows)
        return row, col


# The hex boards subclass Geometry, so they are imported once it exists; the
# package imports this module first (via ruleset), so the cycle is harmless.
from tabletop.hexgrid import HexGrid, QuadrantBoard  # noqa: E402


def _square(board: Mapping[str, Any], options: Mapping[str, Any]) -> Geometry:
    return SquareGrid(columns=_int(board, "columns"), rows=_int(board, "rows"))


def _hex(board: Mapping[str, Any], options: Mapping[str, Any]) -> Geometry:
    return HexGrid(rows=_int(board, "rows"), columns=_int(board, "columns"),
                   offset=_offset(options))


def _quadrants(board: Mapping[str, Any], options: Mapping[str, Any]) -> Geometry:
    connect = options.get("quadrants_connect", True)
    if not isinstance(connect, bool):
        raise RulesFileError(f"option quadrants_connect: expected true or false, got {connect!r}")
    return QuadrantBoard(quadrant_rows=_int(board, "quadrant_rows"),
                         quadrant_columns=_int(board, "quadrant_columns"),
                         offset=_offset(options), connect=connect)


def _offset(options: Mapping[str, Any]) -> str:
    # The rulebooks do not say which rows are shoved right (RULES.md section 2),
    # so it is a game option with the shipped default.
    return options.get("hex_offset", "odd-r")


def _int(board: Mapping[str, Any], key: str) -> int:
    value = board.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise RulesFileError(f"board.{key}: expected an integer, got {value!r}")
    return value


#: Board kinds a rule file may name in ``[board] kind``: each a builder taking that
#: table and the game's options (a board may depend on one, e.g. a hex row offset).
GEOMETRIES: dict[str, Callable[[Mapping[str, Any], Mapping[str, Any]], Geometry]] = {
    "square": _square,
    "hex": _hex,
    "quadrants": _quadrants,
}


def make_geometry(board: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> Geometry:
    """Build the geometry a rule file's ``[board]`` table describes.

    >>> make_geometry({"kind": "hex", "rows": 14, "columns": 13}, {"hex_offset": "even-r"}).offset
    'even-r'
    """
    kind = board.get("kind")
    if kind not in GEOMETRIES:
        raise RulesFileError(
            f"board.kind: {kind!r} is not a known board kind ({', '.join(GEOMETRIES)})")
    return GEOMETRIES[kind](board, options or {})
