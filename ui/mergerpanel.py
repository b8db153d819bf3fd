"""The merger summary: who got which bonus, what each holder sold, traded and kept.

A table reads it in five seconds after a merger: one heading per defunct
chain ("Sam merged Luxor (5) into Tower") in the two chains' colours, then one
line per player, the name bold and the amounts in money. It stays until the
next player places a tile (:func:`tabletop.table.narrate.last_mergers`) and
takes no room at all when there is no recent merger.
"""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.graphics import Color, Rectangle
from kivy.metrics import Metrics, dp, sp
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label

from tabletop.engine.game import MARKET, Game
from tabletop.table.narrate import MergerSummary, last_mergers
from ui import theme
from ui.i18n import chain_name, text


def _colour(game: Game, name: str, background: Any = theme.PANEL) -> tuple[float, ...]:
    return theme.readable(theme.chain_colour(game.rules.chain_index(name), game.rules), background)


def _font() -> str:
    app = App.get_running_app()
    return getattr(app, "font_name", "Roboto") if app else "Roboto"


class MergerPanel(BoxLayout):
    """The last merger's summary (see the module's docstring); zero height when there is none."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("orientation", "vertical")
        kwargs.setdefault("size_hint_y", None)
        kwargs.setdefault("padding", (dp(8), dp(4)))
        kwargs.setdefault("spacing", dp(2))
        super().__init__(**kwargs)
        self.height = 0
        self.opacity = 0
        self.bind(minimum_height=self._fit)
        with self.canvas.before:
            self._fill = Color(*theme.PANEL)
            self._box = Rectangle(pos=self.pos, size=self.size)
        self.bind(pos=self._frame, size=self._frame)
        self._shown: tuple = ()

    def _frame(self, *_: Any) -> None:
        self._box.pos, self._box.size = self.pos, self.size

    def _fit(self, *_: Any) -> None:
        self.height = self.minimum_height if self.children else 0

    def show(self, game: Game | None, language: str) -> None:
        """Show the recent mergers of ``game`` (none: nothing, no height)."""
        summaries = last_mergers(game) if game is not None else ()
        key = (summaries, language, game.rules.source if game is not None else None,
               Metrics.density)   # a new screen size draws larger
        if key == self._shown:
            return        # called every frame: rebuild only when something changed
        self._shown = key
        self.clear_widgets()
        for summary in summaries:
            self._summary(game, summary, language)
        self.opacity = 1 if summaries else 0
        self._fit()

    def _summary(self, game: Game, summary: MergerSummary, language: str) -> None:
        money = game.rules.money
        survivor = theme.to_hex(_colour(game, summary.survivor))
        defunct = theme.to_hex(_colour(game, summary.defunct))
        head = text("merger_heading", language, player=f"[b]{_escape(summary.by)}[/b]",
                    defunct=f"[b][color={defunct}]{_escape(chain_name(summary.defunct, language))}"
                            f"[/color][/b]",
                    size=str(summary.size),
                    survivor=f"[b][color={survivor}]"
                             f"{_escape(chain_name(summary.survivor, language))}[/color][/b]")
        self.add_widget(self._line(head, 18))
        for player, words in _player_lines(summary, money, game.rules.trade_ratio, language):
            self.add_widget(self._line(f"[b]{_escape(player)}[/b]  " + "  ·  ".join(words), 16))

    def _line(self, markup: str, size: int) -> Label:
        line = Label(text=markup, markup=True, font_name=_font(), font_size=sp(size),
                     color=theme.TEXT, size_hint_y=None, halign="left", valign="middle")
        line.bind(width=lambda w, width: setattr(w, "text_size", (width, None)),
                  texture_size=lambda w, size: setattr(w, "height", size[1] + dp(2)))
        return line


def _player_lines(summary: MergerSummary, money, ratio: int, language: str) -> list[tuple[str, list[str]]]:
    """Each player once, in the order they were paid or disposed: bonus, sold, traded, kept."""
    lines: dict[str, list[str]] = {}
    for bonus in summary.bonuses:
        who = text("merger_market", language) if bonus.player == MARKET else bonus.player
        place = text(f"merger_place_{bonus.place}", language) \
            if f"merger_place_{bonus.place}" in _PLACE_KEYS else bonus.place
        lines.setdefault(who, []).append(
            text("merger_bonus", language, place=place, amount=f"[b]{money(bonus.amount)}[/b]"))
    for done in summary.disposals:
        words = lines.setdefault(done.player, [])
        if done.sold:
            words.append(text("merger_sold", language, count=str(done.sold),
                              cash=f"[b]{money(done.cash)}[/b]"))
        if done.traded:
            words.append(text("merger_traded", language, count=str(done.traded),
                              received=str(done.traded // ratio),
                              chain=chain_name(summary.survivor, language)))
        if done.kept:
            words.append(text("merger_kept", language, count=str(done.kept)))
    return list(lines.items())


_PLACE_KEYS = {f"merger_place_{place}" for place in
               ("sole", "first", "second", "third", "fourth", "fifth", "sixth")}


def _escape(words: str) -> str:
    return words.replace("&", "&amp;").replace("[", "&bl;").replace("]", "&br;")
