"""The table screen's menu: the history, ending the game by agreement (where the table may
now), a new game (or another resumed), calibrating the camera, and switching the Pi off
safely.

A popup of big buttons in two columns (fingers, across a table: each at least
48x48 px with 8 px between); the GPIO buttons' long presses reach the history
and switching off too, as the table screen's hints say.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout

from tabletop.table.assistant import Assistant
from ui.ask import Asked
from ui.i18n import text

#: (the entry's text key, what it does on the app).
ENTRIES: tuple[tuple[str, Callable[[Any], None]], ...] = (
    ("history", lambda app: app.show("history")),
    ("menu_end_agreed", lambda app: propose_end(app)),
    ("new_game", lambda app: app.show("setup")),
    ("calibrate", lambda app: app.show("calibration")),
    ("shutdown", lambda app: app.results.ask_shutdown()))


def propose_end(app: Any) -> None:
    """Ask each player in turn whether to end the game now (the desk asks; the screen shows)."""
    desk = app.desk
    if isinstance(desk, Assistant):
        desk.propose_end()
        app.update(force=True)


def entries(desk: Any) -> list[tuple[str, Callable[[Any], None]]]:
    """The entries offered now: ending by agreement only where the table may propose it."""
    proposable = isinstance(desk, Assistant) and desk.end_proposable
    return [(key, action) for key, action in ENTRIES
            if key != "menu_end_agreed" or proposable]


def open_menu(app: Any) -> Asked:
    """Open the menu over the app's screen; an entry chosen closes it first."""
    language, font = app.language, app.font_name
    box = GridLayout(cols=2, padding="8dp", spacing="8dp")
    popup = Asked(title=text("menu", language), title_font=font, title_size="18sp",
                  content=box, size_hint=(0.8, 0.9))
    for key, action in entries(app.desk):
        button = Button(text=text(key, language), font_name=font, font_size="20sp",
                        halign="center", valign="middle")
        button.bind(size=lambda w, size: setattr(w, "text_size", (size[0] - 12, None)))
        button.bind(on_release=lambda _, act=action: (popup.dismiss(), act(app)))
        box.add_widget(button)
    close = Button(text=text("back", language), font_name=font, font_size="20sp",
                   background_color=(0.5, 0.5, 0.5, 1))
    close.bind(on_release=lambda _: popup.dismiss())
    box.add_widget(close)
    popup.buttons = lambda button: popup.dismiss() if button == "undo" else None
    popup.open()
    return popup
