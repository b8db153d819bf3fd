"""Board geometry: labels, lenient parsing, adjacency, turn order, where each cell lies.

With :mod:`tabletop.engine.ruleset` (which names a board's shape) and
:mod:`tabletop.errors`, what the vision code may import from ``tabletop``: a board
shape is what calibration needs to lay out its grid. ``sightings`` holds what
the eyes tell the table.

>>> board = make_geometry({"kind": "square", "columns": 12, "rows": 9})
>>> board.label(board.parse("C6")), board.size
('6C', 108)
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from tabletop.errors import RulesFileError
from tabletop.geometry.base import LETTER_NUMBER, Geometry, letter_number
from tabletop.geometry.hexgrid import OFFSETS, HexGrid, QuadrantBoard, hex_neighbours
from tabletop.geometry.square import SquareGrid

__all__ = ["GEOMETRIES", "LETTER_NUMBER", "OFFSETS", "Geometry", "HexGrid", "QuadrantBoard",
           "SquareGrid", "hex_neighbours", "letter_number", "make_geometry"]


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
    # The rulebooks do not say which rows are shoved right (docs/rules.md, MEGAcquire GOLD),
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
