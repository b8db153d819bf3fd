"""The table screen's menu: the history, a new game (or another resumed), calibrating the
camera, and switching the Pi off safely.

A popup of big buttons (fingers, across a table); the GPIO buttons' long presses
reach the history and switching off too, as the table screen's hints say.
"""

from __future__ import annotations

from typing import Any

from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button

from ui.ask import Asked
from ui.i18n import text

#: (the entry's text key, what it does on the app).
ENTRIES = (("history", lambda app: app.show("history")),
           ("new_game", lambda app: app.show("setup")),
           ("calibrate", lambda app: app.show("calibration")),
           ("shutdown", lambda app: app.results.ask_shutdown()))


def open_menu(app: Any) -> Asked:
    """Open the menu over the app's screen; an entry chosen closes it first."""
    language, font = app.language, app.font_name
    box = BoxLayout(orientation="vertical", padding="8dp", spacing="8dp")
    popup = Asked(title=text("menu", language), title_font=font, title_size="18sp",
                  content=box, size_hint=(0.6, 0.8))
    for key, action in ENTRIES:
        button = Button(text=text(key, language), font_name=font, font_size="20sp")
        button.bind(on_release=lambda _, act=action: (popup.dismiss(), act(app)))
        box.add_widget(button)
    close = Button(text=text("back", language), font_name=font, font_size="20sp",
                   background_color=(0.5, 0.5, 0.5, 1))
    close.bind(on_release=lambda _: popup.dismiss())
    box.add_widget(close)
    popup.buttons = lambda button: popup.dismiss() if button == "undo" else None
    popup.open()
    return popup
