"""The board plane: where every cell of a board lies, in board units.

One board unit is the distance between the centres of two horizontally
adjacent cells, so every board shape shares one scale: square cells are one
unit wide, pointy-top hexes one unit across the flats. ``x`` grows to the
right along a row, ``y`` downwards from row A (as image rows do), so that a
board seen from above by an unrotated camera maps to the image without a flip.

>>> import tabletop
>>> layout = layout_for(tabletop.load_rules("acquire").geometry)
>>> layout.kind, layout.centres.shape, layout.cell_radius
('square', (108, 2), 0.5)
>>> layout.centre("6C").tolist()
[5.0, 2.0]
>>> layout.corner_points().tolist()
[[0.0, 0.0], [11.0, 0.0], [11.0, 8.0], [0.0, 8.0]]

Hex boards shove every other row right by half a unit and pack rows
``sqrt(3)/2`` apart, which puts every pair of touching hexes exactly one unit
apart (the tests check this against the geometry's own adjacency):

>>> hexes = layout_for(tabletop.load_rules("megacquire-gold").geometry)
>>> hexes.kind, [round(float(v), 3) for v in hexes.centre("B-1")]
('hex', [0.5, 0.866])
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tabletop.geometry import Geometry

#: Vertical distance between hex rows, in board units.
HEX_ROW_STEP = math.sqrt(3) / 2
#: Circumradius of a pointy-top hex one unit across the flats.
HEX_RADIUS = 1 / math.sqrt(3)


@dataclass(frozen=True, eq=False)
class Layout:
    """Every cell of ``geometry`` placed on the board plane (see the module docstring).

    ``centres[c]`` is cell ``c``'s centre in board units; ``cell_radius`` the
    half side of a square cell or the circumradius of a hex.
    """

    geometry: Geometry
    kind: str
    centres: np.ndarray
    cell_radius: float
    #: The outline of a cell centred on the origin; ``polygon`` shifts it.
    _shape: np.ndarray = field(repr=False)

    @property
    def size(self) -> int:
        """The number of cells."""
        return len(self.centres)

    def cell(self, cell: int | str) -> int:
        """A cell number from a number or a label (read leniently, as the engine does)."""
        if isinstance(cell, str):
            return self.geometry.parse(cell)
        return int(cell)

    def centre(self, cell: int | str) -> np.ndarray:
        """The centre of one cell (a number or a label), shape ``(2,)``."""
        return self.centres[self.cell(cell)]

    def corner_points(self) -> np.ndarray:
        """Centres of ``geometry.corners()``: ``(4, 2)`` in the calibration order.

        First label, last label of the first row, last label, first label of
        the last row (docs/design.md): clockwise from the top left.
        """
        return self.centres[list(self.geometry.corners())].copy()

    def bounds(self, margin: float = 0.5) -> tuple[float, float, float, float]:
        """``(xmin, ymin, xmax, ymax)`` of the cell centres, widened by ``margin`` units.

        The default margin of half a unit reaches the outer edges of square
        cells and the flat sides of hexes (their points reach a little further).

        >>> import tabletop
        >>> layout_for(tabletop.load_rules("acquire").geometry).bounds()
        (-0.5, -0.5, 11.5, 8.5)
        """
        low = self.centres.min(axis=0) - margin
        high = self.centres.max(axis=0) + margin
        return (float(low[0]), float(low[1]), float(high[0]), float(high[1]))

    def polygon(self, cell: int | str) -> np.ndarray:
        """The outline of one cell in board units: ``(4, 2)`` square or ``(6, 2)`` hex.

        Vertices go clockwise on the image (y down), the first one at the top
        left of a square and the top point of a hex.

        >>> import tabletop
        >>> layout_for(tabletop.load_rules("acquire").geometry).polygon("1A").tolist()
        [[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]
        """
        return self.centre(cell) + self._shape

    def polygons(self) -> np.ndarray:
        """Every cell's outline at once: ``(N, 4 or 6, 2)``."""
        return self.centres[:, None, :] + self._shape[None, :, :]

    def outline(self) -> np.ndarray:
        """The outer corners of the grid's bounding box through the cells' extremes, ``(4, 2)``.

        Clockwise from the top left; a hex grid's points reach above the flats,
        so this is taken over the cell outlines, not the centres.
        """
        points = self.polygons().reshape(-1, 2)
        (x0, y0), (x1, y1) = points.min(axis=0), points.max(axis=0)
        return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64)


def _square_shape() -> np.ndarray:
    return np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]], dtype=np.float64)


def _hex_shape() -> np.ndarray:
    # Pointy-top: a vertex straight up (y negative), then clockwise on screen.
    angles = np.radians([-90, -30, 30, 90, 150, 210])
    return HEX_RADIUS * np.stack([np.cos(angles), np.sin(angles)], axis=1)


# Cached per geometry object: rule sets build each geometry once, and every
# frame the renderer or the tracker handles asks for its layout.
@functools.lru_cache(maxsize=32)
def layout_for(geometry: Geometry) -> Layout:
    """The :class:`Layout` of any board geometry (square or offset-row hex).

    Square: centre ``(col, row)``. Hex: ``x = col + 0.5`` on shoved rows
    (odd rows for ``"odd-r"``, even rows for ``"even-r"``), ``x = col``
    otherwise, ``y = row * sqrt(3)/2``. A quadrant board is one hex grid of
    its global rows and columns (``grid_position``).

    >>> import tabletop
    >>> even = tabletop.load_rules("megacquire-gold").geometry_for({"hex_offset": "even-r"})
    >>> layout_for(even).centre("A-1").tolist()
    [0.5, 0.0]
    """
    positions = np.array([geometry.grid_position(cell) for cell in range(geometry.size)],
                         dtype=np.float64).reshape(-1, 2)
    rows, cols = positions[:, 0], positions[:, 1]
    offset: Any = getattr(geometry, "offset", None)
    if offset is None:
        centres = np.stack([cols, rows], axis=1)
        return _frozen(Layout(geometry, "square", centres, 0.5, _square_shape()))
    if offset not in ("odd-r", "even-r"):
        raise ValueError(f"unknown hex offset {offset!r}")
    shoved_parity = 1 if offset == "odd-r" else 0
    shift = np.where(rows % 2 == shoved_parity, 0.5, 0.0)
    centres = np.stack([cols + shift, rows * HEX_ROW_STEP], axis=1)
    return _frozen(Layout(geometry, "hex", centres, HEX_RADIUS, _hex_shape()))


def _frozen(layout: Layout) -> Layout:
    # A Layout is shared (renderer caches, calibration): nobody may move a cell by accident.
    layout.centres.flags.writeable = False
    layout._shape.flags.writeable = False
    return layout
