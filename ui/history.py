"""The history screen: every confirmed action as a sentence, newest first, with undo to any.

For settling disputes: the table reads what each action did ("Sam merged
Luxor into Tower: Ann $3,000, Cy $1,500", from :mod:`tabletop.table.narrate`)
and, with a confirmation, takes the game back to just before an action (each
undo is journaled, so nothing is lost).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from kivy.core.text import Label as CoreLabel
from kivy.lang import Builder
from kivy.metrics import dp, sp
from kivy.properties import ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen

from tabletop.table.assistant import Assistant
from tabletop.table.narrate import entries
from ui.ask import ask
from ui.i18n import say, text
from ui.window import shown

#: The entries' type size, the undo button's width and a row's least height, for history.kv.
WORDS_SP, BUTTON_DP, ROW_DP = 16, 150, 56

Builder.load_file(str(Path(__file__).with_suffix(".kv")))


class HistoryRow(BoxLayout):
    words = StringProperty("")
    button = StringProperty("")
    index = NumericProperty(0)
    row_size = ListProperty([None, dp(ROW_DP)])
    #: The undo button's size, given with the data: rows are reused across screen sizes.
    button_size = ListProperty([dp(BUTTON_DP), dp(48)])
    words_size = NumericProperty(sp(WORDS_SP))


def describe(game: Any, index: int, language: str) -> str:
    """Action ``index`` (0-based) of ``game``'s history as the history says it."""
    return say(entries(game)[index], language)


class HistoryScreen(Screen):
    """The action log of the desk's game (see the module's docstring)."""

    desk = ObjectProperty(None, allownone=True)
    language = StringProperty("en")

    def on_size(self, *_: Any) -> None:
        if self.desk is not None and self.ids.log.data and shown(self):
            self.refresh()      # rows wrap to the new width (a hidden history: once shown)

    def refresh(self, *_: Any) -> None:
        language = self.language
        self.ids.heading.text = text("history", language)
        self.ids.back.text = text("back", language)
        game = self.desk.game if isinstance(self.desk, Assistant) else None
        said = [say(entry, language) for entry in entries(game)] if game is not None else []
        self.ids.empty.text = "" if said else text("history_empty", language)
        button = text("history_undo_to", language)
        room = self.width - dp(BUTTON_DP) - dp(8) - dp(12) - dp(8)
        self.ids.log.data = [{"words": f"{n}. {words}", "index": n - 1, "button": button,
                              "row_size": [None, _height(f"{n}. {words}", room)],
                              "button_size": [dp(BUTTON_DP), dp(48)], "words_size": sp(WORDS_SP)}
                             for n, words in reversed(list(enumerate(said, start=1)))]

    def ask_undo(self, index: int) -> None:
        """Confirm, then take the game back to before action ``index`` (0-based)."""
        game, language = self.desk.game, self.language
        count = len(game.history) - index
        line = describe(game, index, language)
        self.popup = ask(text("history", language),
                         text("undo_ask", language, count=str(count), action=line),
                         text("undo_yes", language), text("undo_no", language),
                         lambda: self.undo_to(index))

    def undo_to(self, index: int) -> None:
        self.desk.undo_to(index)
        self.refresh()


def _height(words: str, room: float) -> float:
    """The row's height for ``words`` wrapped in ``room`` pixels: the undo button's at least."""
    from kivy.app import App

    app = App.get_running_app()
    label = CoreLabel(font_name=app.font_name if app else "Roboto", font_size=sp(WORDS_SP))
    width, line = label.get_extents(words)
    # A little slack: wrapping at word ends loses part of each line's width.
    lines = max(1, math.ceil(width * 1.12 / max(room, 1)))
    return max(dp(ROW_DP), lines * line * 1.05 + dp(10))
