"""Acquire's square board: numbered columns, lettered rows, four neighbours.

>>> board = SquareGrid(columns=12, rows=9)
>>> board.label(board.parse("c-6"))
'6C'
>>> [board.label(c) for c in board.neighbours[board.parse("1A")]]
['1B', '2A']
"""

from __future__ import annotations

import re

from tabletop.errors import RulesFileError
from tabletop.geometry.base import LETTER_NUMBER, Geometry, letter_number


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
