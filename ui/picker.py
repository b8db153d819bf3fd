"""The zoomed cell picker: a region of the board at finger size, for boards too fine to tap.

A hex board (MEGAcquire's 182 hexes, ACQUISITIONS' 120) or a square board on
a small panel draws its cells smaller than a fingertip. The table taps the
board mirror near the cell it means; the picker then shows that region (some
20 to 36 cells) as buttons of at least 48x48 px, 8 px apart, each with its
label, and a tap on one enters it. "Whole board" goes back without entering.
"""

from __future__ import annotations

from typing import Any, Sequence

from kivy.graphics import Color, Ellipse, Rectangle
from kivy.metrics import dp
from kivy.properties import BooleanProperty, ListProperty
from kivy.uix.button import Button
from kivy.uix.floatlayout import FloatLayout

from ui import theme

#: A target's side, and the gap between targets (issue 16: 48 px and 8 px, at density 1).
TARGET, GAP = 50, 8
#: Rows of point-up hexes lie 0.866 of a hex's width apart: the width that keeps rows 8 px apart.
HEX_PITCH = (TARGET + GAP) / 0.866


class CellButton(Button):
    """One cell at finger size: its fill, and a hexagon drawn for a hex board."""

    fill = ListProperty([0.3, 0.3, 0.3, 1])
    hexagonal = BooleanProperty(False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.background_normal = self.background_down = ""
        self.bind(pos=self._draw, size=self._draw, fill=self._draw, state=self._draw)
        self._draw()

    def _draw(self, *_: Any) -> None:
        self.canvas.before.clear()
        pressed = self.state == "down"
        with self.canvas.before:
            Color(*(theme.HIGHLIGHT if pressed else self.fill))
            if self.hexagonal:
                # Point up, as wide as the pitch less the gap, centred on the target.
                width = dp(HEX_PITCH) - dp(GAP)
                height = width * 1.1547
                Ellipse(pos=(self.center_x - width / 2, self.center_y - height / 2),
                        size=(width, height), segments=6, angle_start=0, angle_end=360)
            else:
                Rectangle(pos=self.pos, size=self.size)
        # The button's own background stays transparent: the fill above is the cell.
        self.background_color = (0, 0, 0, 0)


class CellPicker(FloatLayout):
    """The region around a tapped cell, cell by cell at finger size (see the module's docstring).

    Empty until :meth:`open`; ``on_cell`` is dispatched with the label tapped,
    ``on_close`` when it goes back to the whole board.
    """

    __events__ = ("on_cell", "on_close")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.shown = False
        self._args: tuple | None = None
        self.bind(size=self._relayout, pos=self._relayout)

    def open(self, geometry: Any, cells: Sequence[int], fills: Sequence[Sequence[float]],
             names: Sequence[str], centre: int, back: str, font_name: str) -> None:
        """Show the region of ``geometry`` around cell ``centre``: ``fills`` per cell, ``names``
        the words on each (label, with a chain's initials), ``back`` the back button's text."""
        self._args = (geometry, list(cells), list(fills), list(names), centre, back, font_name)
        self.shown = True
        self._relayout()

    def close(self) -> None:
        self.shown, self._args = False, None
        self.clear_widgets()
        self.dispatch("on_close")

    def _relayout(self, *_: Any) -> None:
        if not self.shown or self._args is None:
            return
        geometry, cells, fills, names, centre, back, font_name = self._args
        self.clear_widgets()
        button = Button(text=back, font_name=font_name, font_size="18sp", bold=True,
                        size_hint=(None, None), size=(max(dp(160), self.width * 0.5), dp(TARGET)),
                        pos=(self.x, self.top - dp(TARGET)))
        button.bind(on_release=lambda _: self.close())
        self.add_widget(button)
        for cell, (x, y) in self.region(geometry, centre).items():
            owner = cells[cell]
            fill = fills[cell]
            ink = theme.ink_on(fill) if owner != -1 else theme.TEXT
            target = CellButton(text=names[cell], font_name=font_name, font_size="16sp",
                                bold=True, color=ink, halign="center", fill=fill,
                                hexagonal=geometry.offset is not None, size_hint=(None, None),
                                size=(dp(TARGET), dp(TARGET)),
                                pos=(x - dp(TARGET) / 2, y - dp(TARGET) / 2))
            target.bind(on_release=lambda _, label=geometry.labels[cell]: self._chosen(label))
            self.add_widget(target)

    def region(self, geometry: Any, centre: int) -> dict[int, tuple[float, float]]:
        """The cells shown around ``centre`` and the window position of each one's centre."""
        hexagonal = geometry.offset is not None
        pitch = dp(HEX_PITCH) if hexagonal else dp(TARGET + GAP)
        row_pitch = pitch * 0.866 if hexagonal else pitch
        top = self.top - dp(TARGET + GAP)              # under the back button
        columns = max(1, int((self.width - (pitch / 2 if hexagonal else 0)) // pitch))
        rows = max(1, int((top - self.y - dp(TARGET)) // row_pitch) + 1)
        row, column = geometry.grid_position(centre)
        first_row = min(max(0, row - rows // 2), max(0, geometry.rows - rows))
        first_column = min(max(0, column - columns // 2), max(0, geometry.columns - columns))
        used = min(columns, geometry.columns) * pitch + (pitch / 2 if hexagonal else 0)
        left = self.x + (self.width - used) / 2
        shown = {}
        for cell in range(geometry.size):
            r, c = geometry.grid_position(cell)
            if not (0 <= r - first_row < rows and 0 <= c - first_column < columns):
                continue
            shifted = hexagonal and (r % 2 == 1) == (geometry.offset == "odd-r")
            x = left + (c - first_column + 0.5 + (0.5 if shifted else 0)) * pitch
            y = top - dp(TARGET) / 2 - (r - first_row) * row_pitch
            shown[cell] = (x, y)
        return shown

    def _chosen(self, label: str) -> None:
        self.close()
        self.dispatch("on_cell", label)

    def on_cell(self, label: str) -> None:
        """A cell was chosen (bind to enter the tile)."""

    def on_close(self) -> None:
        """The picker went back to the whole board."""

    def on_touch_down(self, touch: Any) -> bool:
        if not self.shown:
            return False
        super().on_touch_down(touch)
        return self.collide_point(*touch.pos)     # the board under it never sees the tap
