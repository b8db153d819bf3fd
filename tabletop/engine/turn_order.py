"""Which turn-order tile is "closest" to the board's first label (option ``turn_order``).

>>> from tabletop.engine.ruleset import load_rules
>>> board = load_rules("acquire").geometry
>>> tiles = [board.parse_tile(label) for label in ("2A", "1B")]
>>> [board.tile_labels[t] for t in sorted(tiles, key=turn_order_key(board, "number_first"))]
['1B', '2A']
>>> [board.tile_labels[t] for t in sorted(tiles, key=turn_order_key(board, "row_first"))]
['2A', '1B']

A rule file without the option (one written before it) plays by the board's own
cell order, as every game did before: number first on the square board, row
first on the hex boards.
"""

from __future__ import annotations

from typing import Callable

from tabletop.engine.choices import TurnOrder
from tabletop.geometry import Geometry


def turn_order_key(geometry: Geometry, order: str | None) -> Callable[[int], tuple[int, ...]]:
    """A sort key over tiles: the smallest is the tile closest to the first label."""
    if order is None:
        return lambda tile: (tile,)

    def key(tile: int) -> tuple[int, ...]:
        # A card of a quadrant board is placed by its first cell (quadrant 1, top left),
        # whose grid position is the card's own row and column.
        row, column = geometry.grid_position(geometry.cells_of[tile][0])
        return (row, column) if order == TurnOrder.ROW_FIRST else (column, row)
    return key
