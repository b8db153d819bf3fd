"""The history screen: every confirmed action, newest first, with undo back to any of them.

For settling disputes: the table reads what was confirmed and, with a
confirmation, takes the game back to just before an action (each undo is
journaled, so nothing is lost).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kivy.lang import Builder
from kivy.properties import NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen

from tabletop.table.assistant import Assistant
from ui.ask import ask
from ui.i18n import text

Builder.load_file(str(Path(__file__).with_suffix(".kv")))


class HistoryRow(BoxLayout):
    words = StringProperty("")
    button = StringProperty("")
    index = NumericProperty(0)


def describe(line: dict[str, Any], language: str) -> str:
    """One table-script line as the history lists it: "Ann: place 6C"."""
    kind = line["do"]
    verb = text(f"do_{kind}", language) if f"do_{kind}" in _KINDS else kind
    details = {"place": line.get("tile", ""), "market": line.get("tile", ""),
               "dead": line.get("tile", ""), "found": line.get("chain", ""),
               "survivor": line.get("chain", ""), "next_defunct": line.get("chain", ""),
               "dispose": f"{line.get('sell', 0)} / {line.get('trade', 0)}",
               "buy": ", ".join(f"{n} {c}" for c, n in line.get("shares", {}).items()) +
                      ("; " + ", ".join(f"-{n} {c}" for c, n in line["trade_in"].items())
                       if line.get("trade_in") else "")}.get(kind, "")
    if kind == "buy" and not details:
        verb = text("do_buy_nothing", language)
    who = line.get("player", "")
    return f"{who}: {verb} {details}".strip()


_KINDS = {"do_place", "do_found", "do_survivor", "do_next_defunct", "do_market", "do_dispose",
          "do_buy", "do_dead", "do_no_tile", "do_end"}


class HistoryScreen(Screen):
    """The action log of the desk's game (see the module's docstring)."""

    desk = ObjectProperty(None, allownone=True)
    language = StringProperty("en")

    def refresh(self, *_: Any) -> None:
        language = self.language
        self.ids.heading.text = text("history", language)
        self.ids.back.text = text("back", language)
        game = self.desk.game if isinstance(self.desk, Assistant) else None
        if game is None:
            self.ids.log.data = []
            return
        lines = game.script()[1:]
        self.ids.log.data = [{"words": f"{n}. {describe(line, language)}", "index": n - 1,
                              "button": text("undo_to", language)}
                             for n, line in reversed(list(enumerate(lines, start=1)))]

    def ask_undo(self, index: int) -> None:
        """Confirm, then take the game back to before action ``index`` (0-based)."""
        game, language = self.desk.game, self.language
        count = len(game.history) - index
        line = describe(game.script()[index + 1], language)
        self.popup = ask(text("history", language),
                         text("undo_ask", language, count=str(count), action=line),
                         text("undo_yes", language), text("undo_no", language),
                         lambda: self.undo_to(index))

    def undo_to(self, index: int) -> None:
        self.desk.undo_to(index)
        self.refresh()
