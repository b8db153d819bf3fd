"""Hex boards: MEGAcquire GOLD's 182 hexes and ACQUISITIONS' four quadrants.

Both are pointy-top hexes in offset rows (docs/rules.md, MEGAcquire GOLD and ACQUISITIONS). The
rulebooks do not say which rows are shoved right by half a hex, so that is the
game option ``hex_offset``: ``"odd-r"`` shoves rows B, D, ... (row index 1,
3, ...), ``"even-r"`` shoves rows A, C, .... A hex touches the two beside it
and two in each neighbouring row: the ones under its left and right halves.

>>> board = HexGrid(rows=14, columns=13, offset="odd-r")
>>> [board.label(c) for c in board.neighbours[board.parse("b5")]]
['A-5', 'A-6', 'B-4', 'B-6', 'C-5', 'C-6']
>>> quadrants = QuadrantBoard(5, 6, offset="odd-r", connect=True)
>>> [quadrants.label(c) for c in quadrants.cells_of[quadrants.parse_tile("c4")]]
['1/C-4', '2/C-4', '3/C-4', '4/C-4']
"""

from __future__ import annotations

import re
from typing import Any

from tabletop.errors import IllegalAction, RulesFileError
from tabletop.messages import Message
from tabletop.geometry.base import LETTER_NUMBER, Geometry, letter_number

#: The values of the ``hex_offset`` option.
OFFSETS = ("odd-r", "even-r")

_CARD = re.compile(rf"^\s*{LETTER_NUMBER}\s*$")
# Q/L: a quadrant number, a separator (required: "34C" would be ambiguous), a card.
_QUADRANT_CARD = re.compile(rf"^\s*([0-9]+)\s*(?:[/:-]\s*|\s+){LETTER_NUMBER}\s*$")


def hex_neighbours(rows: int, columns: int, offset: str) -> tuple[tuple[int, ...], ...]:
    """Neighbours of every cell of a ``rows`` x ``columns`` offset-row hex grid.

    Cells are numbered row-major (``row * columns + column``); each tuple is in
    increasing order and clipped at the edges, never wrapping round a row end.

    >>> hex_neighbours(2, 2, "odd-r")
    ((1, 2), (0, 2, 3), (0, 1, 3), (1, 2))
    >>> hex_neighbours(2, 2, "even-r")
    ((1, 2, 3), (0, 3), (0, 3), (0, 1, 2))
    """
    _check_offset(offset)
    shoved = 1 if offset == "odd-r" else 0
    result = []
    for row in range(rows):
        # A shoved row's hex sits over columns c and c+1 of the rows above and
        # below; an unshoved one over c-1 and c.
        step = 1 if row % 2 == shoved else -1
        for col in range(columns):
            near = [(row, col - 1), (row, col + 1)]
            for other in (row - 1, row + 1):
                near += [(other, col), (other, col + step)]
            result.append(tuple(sorted(r * columns + c for r, c in near
                                       if 0 <= r < rows and 0 <= c < columns)))
    return tuple(result)


def _check_offset(offset: Any) -> None:
    if offset not in OFFSETS:
        raise RulesFileError(
            f"option hex_offset: expected one of {', '.join(OFFSETS)}, got {offset!r}")


def _check_size(rows: Any, columns: Any, what: str) -> None:
    # Rows are lettered, so at most 26; bools are ints in Python but not sizes.
    for value in (rows, columns):
        if not isinstance(value, int) or isinstance(value, bool):
            raise RulesFileError(f"board: {what} sizes must be integers, got {value!r}")
    if not 1 <= rows <= 26 or columns < 1:
        raise RulesFileError(f"board: {what} needs 1-26 rows and at least 1 column")


class HexGrid(Geometry):
    """MEGAcquire GOLD's board: rows lettered from A, columns numbered from 1.

    A label is letter, hyphen, number (``C-5``); ``c5``, ``C5``, ``c 5``,
    ``5C`` and ``5-c`` are read too. Cells are numbered row by row, so sorting
    them gives the rulebook's "closest to A-1" order: A-1..A-13, B-1, ....

    >>> board = HexGrid(rows=14, columns=13, offset="odd-r")
    >>> board.label(board.parse(" c-07 ")), board.grid_position(board.parse("C-7"))
    ('C-7', (2, 6))
    >>> [board.label(c) for c in board.corners()]
    ['A-1', 'A-13', 'N-13', 'N-1']
    >>> [board.label(c) for c in board.neighbours[board.parse("A-1")]]
    ['A-2', 'B-1']
    """

    def __init__(self, rows: int, columns: int, offset: str) -> None:
        _check_size(rows, columns, "a hex board")
        _check_offset(offset)
        self.rows, self.columns, self.offset = rows, columns, offset
        self.labels = tuple(f"{chr(65 + row)}-{col + 1}"
                            for row in range(rows) for col in range(columns))
        self.neighbours = hex_neighbours(rows, columns, offset)
        self.first_label = self.labels[0]
        self.example_labels = f"A-1..{self.labels[-1]}"
        super().__init__()

    def _parse_lenient(self, text: str) -> int | None:
        match = _CARD.match(text)
        if not match:
            return None
        row, col = letter_number(match.groups())
        if 0 <= row < self.rows and 0 <= col < self.columns:
            return row * self.columns + col
        return None

    def tile_number(self, tile: int) -> int:
        return tile % self.columns + 1

    def grid_position(self, cell: int) -> tuple[int, int]:
        return divmod(cell, self.columns)


class QuadrantBoard(Geometry):
    """ACQUISITIONS' board: four quadrants of ``quadrant_rows`` x ``quadrant_columns``.

    Quadrants are numbered 1 top-left, 2 top-right, 3 bottom-left, 4
    bottom-right and together form one hex grid of twice the rows and
    columns. A hex is labelled ``Q/L`` (``3/C-4``: quadrant 3, row C, column
    4 of that quadrant); ``3/c4``, ``3 C-4``, ``3-C-4``, ``3:c-4`` and
    ``3/4C`` are read too. Cells are numbered row by row over the whole grid.

    Tiles are the destination cards ``A-1``..``E-6``, numbered row by row
    within a quadrant (so sorting them orders letter first, then number); a
    card may be played on its label in any quadrant, so ``cells_of[tile]``
    holds four cells, in quadrant order.

    Adjacency is that of the whole grid, rows counted from quadrant 1's row
    A, with the same ``offset`` rule as ``HexGrid``; ``connect=False`` drops
    the neighbours across a quadrant border.

    >>> board = QuadrantBoard(5, 6, offset="odd-r", connect=True)
    >>> board.rows, board.columns, board.size, len(board.tile_labels)
    (10, 12, 120, 30)
    >>> [board.label(c) for c in board.corners()]
    ['1/A-1', '2/A-6', '4/E-6', '3/E-1']
    >>> [board.label(c) for c in board.neighbours[board.parse("1/E-3")]]
    ['1/D-2', '1/D-3', '1/E-2', '1/E-4', '3/A-2', '3/A-3']
    >>> board.tile_labels[board.tile_of[board.parse("3:c-4")]]
    'C-4'
    """

    def __init__(self, quadrant_rows: int, quadrant_columns: int, offset: str,
                 connect: bool) -> None:
        _check_size(quadrant_rows, quadrant_columns, "a quadrant")
        _check_offset(offset)
        self.quadrant_rows, self.quadrant_columns = quadrant_rows, quadrant_columns
        self.rows, self.columns = 2 * quadrant_rows, 2 * quadrant_columns
        self.offset, self.connect = offset, connect
        size = self.rows * self.columns
        self.tile_labels = tuple(f"{chr(65 + row)}-{col + 1}"
                                 for row in range(quadrant_rows)
                                 for col in range(quadrant_columns))
        self.tile_of = tuple(self._local(cell)[1] * quadrant_columns + self._local(cell)[2]
                             for cell in range(size))
        # Cell numbers grow from quadrant 1 to 4 for one card, so sorting gives quadrant order.
        self.cells_of = tuple(tuple(cell for cell in range(size) if self.tile_of[cell] == tile)
                              for tile in range(len(self.tile_labels)))
        self.labels = tuple(f"{self.quadrant(cell)}/{self.tile_labels[self.tile_of[cell]]}"
                            for cell in range(size))
        whole = hex_neighbours(self.rows, self.columns, offset)
        self.neighbours = tuple(
            near if connect else tuple(n for n in near if self.quadrant(n) == self.quadrant(cell))
            for cell, near in enumerate(whole))
        self.first_label = self.labels[0]
        self.example_labels = f"1/A-1..4/{self.tile_labels[-1]}"
        super().__init__()

    def _local(self, cell: int) -> tuple[int, int, int]:
        """``(quadrant, row, column)`` of ``cell``, row and column 0-based within it."""
        row, col = divmod(cell, self.columns)
        low_row, local_row = divmod(row, self.quadrant_rows)
        right, local_col = divmod(col, self.quadrant_columns)
        return 1 + 2 * low_row + right, local_row, local_col

    def quadrant(self, cell: int) -> int:
        """The quadrant (1-4) ``cell`` lies in.

        >>> QuadrantBoard(5, 6, "odd-r", True).quadrant(119)
        4
        """
        return self._local(cell)[0]

    def parse(self, text: Any) -> int:
        """The cell a ``Q/L`` label names; a bare card label is refused (which hex?)."""
        try:
            return super().parse(text)
        except IllegalAction:
            tile = self._card(text)
            if tile is None:
                raise
        card = self.tile_labels[tile]
        raise IllegalAction(Message("{card} may be played in any quadrant: name the hex as Q/L, "
                                    "e.g. 3/{example}", card=card, example=card))

    def parse_tile(self, text: Any) -> int:
        """The card a label names: a card label (``c4``) or a hex's ``Q/L``.

        >>> board = QuadrantBoard(5, 6, "odd-r", True)
        >>> board.parse_tile("c4") == board.parse_tile("2/C-4") == board.tile_labels.index("C-4")
        True
        """
        tile = self._card(text)
        if tile is not None:
            return tile
        try:
            return self.tile_of[self.parse(text)]
        except IllegalAction:
            # Say both forms: the caller wanted a card and may not know hexes have one.
            raise IllegalAction(Message(
                "{label} is not a card of this board (cards run A-1..{last}; a hex {example} "
                "names its card too)", label=repr(text), last=self.tile_labels[-1],
                example=self.example_labels)) from None

    def _card(self, text: Any) -> int | None:
        match = _CARD.match(text) if isinstance(text, str) else None
        if not match:
            return None
        row, col = letter_number(match.groups())
        if 0 <= row < self.quadrant_rows and 0 <= col < self.quadrant_columns:
            return row * self.quadrant_columns + col
        return None

    def _parse_lenient(self, text: str) -> int | None:
        match = _QUADRANT_CARD.match(text)
        if not match:
            return None
        quadrant = int(match.group(1))
        row, col = letter_number(match.groups()[1:])
        if not (1 <= quadrant <= 4 and 0 <= row < self.quadrant_rows
                and 0 <= col < self.quadrant_columns):
            return None
        low, right = divmod(quadrant - 1, 2)
        return ((low * self.quadrant_rows + row) * self.columns
                + right * self.quadrant_columns + col)

    def tile_number(self, tile: int) -> int:
        return tile % self.quadrant_columns + 1

    def grid_position(self, cell: int) -> tuple[int, int]:
        return divmod(cell, self.columns)
