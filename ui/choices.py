"""Choices as a list to tap: each option of the prompt a large button; the chosen one marked.

A tap chooses (the desk's ``choose``), CONFIRM applies: the same two steps as
NEXT and CONFIRM on the table's buttons, so a mis-tap costs nothing.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from kivy.graphics import Color, Line, Rectangle
from kivy.metrics import dp
from kivy.properties import BooleanProperty, ListProperty
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout

from ui import theme

#: A choice's height and the gap between choices (48 px targets, 8 px apart, at density 1).
HEIGHT, GAP = 50, 8


class ChoiceButton(Button):
    """One option: in its own colour (a chain's) or the panel's, ringed when chosen."""

    chosen = BooleanProperty(False)
    fill = ListProperty(list(theme.PANEL))

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.background_normal = self.background_down = ""
        self.background_color = (0, 0, 0, 0)
        self.bind(pos=self._draw, size=self._draw, chosen=self._draw, fill=self._draw,
                  state=self._draw)
        self._draw()

    def _draw(self, *_: Any) -> None:
        self.canvas.before.clear()
        with self.canvas.before:
            Color(*(theme.HIGHLIGHT if self.state == "down" else self.fill))
            Rectangle(pos=self.pos, size=self.size)
            if self.chosen:
                Color(1, 0.85, 0.3, 1)
                Line(rectangle=(self.x + dp(2), self.y + dp(2), self.width - dp(4),
                                self.height - dp(4)), width=dp(3))


class ChoiceList(GridLayout):
    """The prompt's options as buttons (see the module's docstring)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("cols", 2)
        super().__init__(**kwargs)
        self.size_hint_y = None
        self.row_force_default = True
        self.bind(minimum_height=self.setter("height"))

    def show(self, items: Sequence[tuple[str, Sequence[float] | None]], chosen: int,
             choose: Callable[[int], None], font_name: str) -> None:
        """``items``: (words, fill or None) per option; ``choose(index)`` on a tap."""
        self.clear_widgets()
        # Sized when shown: the screen's density may have changed since (ui.window.fit).
        self.spacing, self.row_default_height = dp(GAP), dp(HEIGHT)
        self.cols = 1 if len(items) <= 2 or any(len(words) > 22 for words, _ in items) else 2
        for index, (words, fill) in enumerate(items):
            colour = fill if fill is not None else (0.25, 0.27, 0.31, 1)
            button = ChoiceButton(text=words, markup=True, font_name=font_name,
                                  font_size="18sp", bold=True, fill=colour,
                                  color=theme.ink_on(colour), chosen=index == chosen,
                                  halign="center", valign="middle", shorten=True,
                                  shorten_from="right")
            button.bind(size=lambda widget, size: setattr(widget, "text_size", size))
            button.bind(on_release=lambda _, i=index: choose(i))
            self.add_widget(button)
