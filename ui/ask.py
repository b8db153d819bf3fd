"""A question the table answers yes or no: by a tap, or by the GPIO buttons (CONFIRM is yes,
UNDO is no), since a player who held CONFIRM to switch off has no finger on the screen."""

from __future__ import annotations

from typing import Any, Callable

from kivy.app import App
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.popup import Popup

#: The colour of a yes that cannot be taken back (switching off, undoing actions).
DANGER = (0.7, 0.2, 0.2, 1)


class Asked(Popup):
    """A popup the GPIO buttons answer too: while one is open, the app hands it every press
    (and none reaches the game behind it). ``buttons`` takes "confirm", "next" or "undo"."""

    def __init__(self, buttons: Callable[[str], Any] = lambda button: None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.buttons = buttons
        #: Dismissed and fading out: it stays on the window a moment, but a press made then
        #: is for what comes after it (a menu entry just tapped), not for it.
        self.closing = False

    def on_pre_dismiss(self) -> None:
        self.closing = True

    def on_pre_open(self) -> None:
        self.closing = False

    def press(self, button: str) -> None:
        self.buttons(button)


def ask(title: str, question: str, yes: str, no: str, on_yes: Callable[[], Any]) -> Asked:
    """Open the question; ``on_yes`` runs once the table says yes (after it closes)."""
    app = App.get_running_app()
    font = app.font_name if app else "Roboto"
    box = BoxLayout(orientation="vertical", padding="8dp", spacing="8dp")
    box.add_widget(Label(text=question, font_name=font, font_size="18sp", text_size=(500, None),
                         halign="center"))
    popup = Asked(title=title, title_font=font, content=box, size_hint=(0.8, 0.6),
                  auto_dismiss=False)

    def answer(said_yes: bool) -> None:
        popup.dismiss()
        if said_yes:
            on_yes()

    buttons = BoxLayout(size_hint_y=None, height="56dp", spacing="8dp")
    for words, said_yes in ((no, False), (yes, True)):
        button = Button(text=words, font_name=font, font_size="18sp",
                        background_color=DANGER if said_yes else (1, 1, 1, 1))
        button.bind(on_release=lambda _, y=said_yes: answer(y))
        buttons.add_widget(button)
    box.add_widget(buttons)
    # The app hands the buttons to the question shown: CONFIRM yes, UNDO no, NEXT nothing.
    popup.buttons = lambda button: answer(button == "confirm") \
        if button in ("confirm", "undo") else None
    popup.open()
    return popup


def notice(title: str, words: str) -> Popup:
    """Say something the table need not answer (the app is about to restart): no buttons,
    and no tap takes it away."""
    app = App.get_running_app()
    font = app.font_name if app else "Roboto"
    label = Label(text=words, font_name=font, font_size="20sp", halign="center",
                  valign="middle")
    label.bind(size=lambda widget, size: setattr(widget, "text_size", (size[0] - 16, None)))
    popup = Popup(title=title, title_font=font, content=label, size_hint=(0.9, 0.7),
                  auto_dismiss=False)
    popup.open()
    return popup
