"""The board mirror: every cell as the game's books hold it, chains in colour with initials.

Square boards are drawn as squares, hex boards as hexagons (rows shifted as
the board's ``hex_offset`` says). Where the cells are large enough to tap
(a square board's, 48 px and 8 px apart) a tap on a cell dispatches
``on_cell`` with its label: the table enters a tile the camera missed that
way. Elsewhere (hex boards, small panels) a tap dispatches ``on_region``
with the cell nearest to it, and the zoomed picker (:mod:`ui.picker`) shows
that region at finger size.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from kivy.clock import Clock
from kivy.core.text import Label as CoreLabel
from kivy.graphics import Color, Ellipse, Line, Rectangle
from kivy.metrics import dp, sp
from kivy.properties import ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.widget import Widget

from ui import theme

EMPTY, LONE, TURNOVER = -1, -2, -3


class BoardMirror(Widget):
    """Cells of ``geometry`` coloured by ``cells`` (owner per cell: chain index, or EMPTY/LONE/TURNOVER)."""

    geometry = ObjectProperty(None, allownone=True)
    cells = ListProperty([])
    chain_names = ListProperty([])
    last = NumericProperty(-1)          # the cell of the last tile placed: ringed
    flagged = ListProperty([])          # labels of tiles to take off: marked
    proposed = StringProperty("")       # the tile proposed, not yet confirmed: dashed
    font_name = StringProperty("Roboto")
    #: The rule set, whose file names each chain's colour.
    rules = ObjectProperty(None, allownone=True)

    __events__ = ("on_cell", "on_region")

    #: A cell tapped directly needs this pitch: a 48 px target and 8 px to the next (issue 16).
    DIRECT_PITCH = 56
    #: The smallest text drawn on a cell, in px (nothing a player reads is smaller).
    SMALLEST = 12

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._textures: dict[tuple[str, tuple], Any] = {}
        #: The font sizes drawn at the last redraw (the tests read the smallest).
        self.font_sizes: set[float] = set()
        # Drawn once the screen has set everything (another game's board comes property by
        # property), before the next frame.
        trigger = Clock.create_trigger(self.redraw, -1)
        self.bind(pos=trigger, size=trigger, geometry=trigger, cells=trigger, last=trigger,
                  flagged=trigger, chain_names=trigger, proposed=trigger, rules=trigger)

    # --- layout ---------------------------------------------------------------------------------

    def _grid(self) -> tuple[float, float, float, float, bool]:
        """Cell width, height, left and top of the grid, and whether it is hexagonal."""
        geometry = self.geometry
        hexagonal = getattr(geometry, "offset", None) is not None
        columns, rows = geometry.columns, geometry.rows
        if hexagonal:
            # Hexes: width w, rows 0.75 * height apart; shifted rows add half a width.
            width = min(self.width / (columns + 0.5), self.height / (rows * 0.75 + 0.25) / 1.1547)
            height = width * 1.1547
            total_w, total_h = width * (columns + 0.5), height * (rows * 0.75 + 0.25)
        else:
            width = height = min(self.width / columns, self.height / rows)
            total_w, total_h = width * columns, height * rows
        left = self.x + (self.width - total_w) / 2
        top = self.top - (self.height - total_h) / 2
        return width, height, left, top, hexagonal

    def centre(self, cell: int) -> tuple[float, float]:
        """Where ``cell``'s centre is drawn, in window coordinates."""
        row, column = self.geometry.grid_position(cell)
        width, height, left, top, hexagonal = self._grid()
        if not hexagonal:
            return left + (column + 0.5) * width, top - (row + 0.5) * height
        shifted = (row % 2 == 1) == (self.geometry.offset == "odd-r")
        x = left + (column + 0.5 + (0.5 if shifted else 0.0)) * width
        return x, top - (row * 0.75 + 0.5) * height

    @property
    def direct(self) -> bool:
        """Whether a cell may be tapped as drawn (else through the zoomed picker)."""
        if self.geometry is None or getattr(self.geometry, "offset", None) is not None:
            return False
        return self._grid()[0] >= dp(self.DIRECT_PITCH)

    def nearest(self, x: float, y: float) -> int | None:
        """The cell whose centre is nearest a point on the board, or None off it."""
        if self.geometry is None or not self.collide_point(x, y):
            return None
        return min(range(self.geometry.size), key=lambda c: math.dist(self.centre(c), (x, y)))

    def cell_at(self, x: float, y: float) -> int | None:
        """The cell under a point, or None."""
        if self.geometry is None or not self.collide_point(x, y):
            return None
        width = self._grid()[0]
        best = min(range(self.geometry.size), key=lambda c: math.dist(self.centre(c), (x, y)))
        return best if math.dist(self.centre(best), (x, y)) <= width * 0.6 else None

    # --- drawing --------------------------------------------------------------------------------

    def redraw(self, *_: Any) -> None:
        self.canvas.clear()
        self.font_sizes = set()
        if self.geometry is None or len(self.cells) != self.geometry.size:
            return
        width, height, _, _, hexagonal = self._grid()
        labels = self.geometry.labels
        flagged = set(self.flagged)
        # Every empty cell's label, or none: a board too fine for them leaves them to the picker.
        labelled = self._fits(max(labels, key=len), width)
        with self.canvas:
            for cell, owner in enumerate(self.cells):
                x, y = self.centre(cell)
                fill = self._fill(owner)
                Color(*fill)
                size = (width * 0.92, height * 0.92) if not hexagonal else (width * 1.0, height * 1.0)
                corner = (x - size[0] / 2, y - size[1] / 2)
                if hexagonal:       # a six-segment ellipse is a hexagon, point up
                    Ellipse(pos=corner, size=size, segments=6, angle_start=0, angle_end=360)
                else:
                    Rectangle(pos=corner, size=size)
                if owner >= 0:
                    self._text(theme.initials(self.chain_names[owner]), x, y, width, fill)
                elif owner == EMPTY and labelled:
                    self._text(labels[cell], x, y, width, fill, dim=True)
                if cell == self.last or labels[cell] in flagged:
                    Color(*(theme.WARNING if labels[cell] in flagged else theme.HIGHLIGHT))
                    Line(circle=(x, y, min(width, height) * 0.45), width=2)
                elif labels[cell] == self.proposed:
                    Color(1, 0.85, 0.3, 1)
                    Line(circle=(x, y, min(width, height) * 0.45), width=2.5)

    def _fill(self, owner: int) -> tuple[float, ...]:
        if owner >= 0:
            return theme.chain_colour(owner, self.rules)
        return {EMPTY: theme.EMPTY_CELL, LONE: theme.LONE_CELL}.get(owner, theme.DEAD_CELL)

    def _fits(self, words: str, width: float) -> bool:
        """Whether ``words`` fit a cell ``width`` wide at the smallest readable size."""
        label = CoreLabel(text=words, font_size=max(sp(self.SMALLEST), width * 0.28),
                          font_name=self.font_name)
        label.refresh()
        return label.texture.width <= width * 0.85

    def _text(self, words: str, x: float, y: float, width: float, fill: Sequence[float],
              dim: bool = False) -> None:
        ink = theme.DIM if dim else theme.ink_on(fill)
        key = (words, (round(width), tuple(ink), self.font_name))
        texture = self._textures.get(key)
        size = max(sp(self.SMALLEST), width * (0.28 if dim else 0.4))
        if texture is None:
            label = CoreLabel(text=words, font_size=size, font_name=self.font_name, color=ink,
                              bold=not dim)
            label.refresh()
            texture = self._textures[key] = label.texture
        self.font_sizes.add(size)
        Color(1, 1, 1, 1)
        Rectangle(texture=texture, size=texture.size,
                  pos=(x - texture.width / 2, y - texture.height / 2))

    # --- touch ----------------------------------------------------------------------------------

    def on_touch_down(self, touch: Any) -> bool:
        if self.disabled or not self.collide_point(*touch.pos):
            return super().on_touch_down(touch)
        if self.direct:
            cell = self.cell_at(*touch.pos)
            if cell is not None:
                self.dispatch("on_cell", self.geometry.labels[cell])
            return True
        cell = self.nearest(*touch.pos)
        if cell is not None:
            self.dispatch("on_region", cell)
        return True

    def on_cell(self, label: str) -> None:
        """A cell was tapped (bind to enter the tile)."""

    def on_region(self, cell: int) -> None:
        """The board was tapped near ``cell``, too fine to tap directly (bind to zoom)."""
