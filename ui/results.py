"""The results screen: every player's final account on one screen (cash when the end came,
+ final bonuses + final sales = the total, which is the final cash, and the rank), what each
was paid by chain, and a chart of every player's net worth turn by turn, its axes and players
labelled."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kivy.graphics import Color, Line
from kivy.lang import Builder
from kivy.metrics import dp, sp
from kivy.properties import ListProperty, ObjectProperty, StringProperty
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen
from kivy.uix.widget import Widget

from tabletop.journal.stats import paid_by_chain, worth_by_turn
from tabletop.table.narrate import final_accounts
from tabletop.table.assistant import Assistant
from ui import theme
from ui.ask import Asked, ask
from ui.i18n import LANGUAGES, TEXTS, chain_name, say, text
from ui.services import Services

Builder.load_file(str(Path(__file__).with_suffix(".kv")))

#: The hint of what the GPIO buttons do here, in each language (replaced by what a service says).
HINTS = {TEXTS["results_buttons"][language] for language in LANGUAGES}

#: The players' line colours (distinct from one another; names are beside them too).
LINES = [(0.95, 0.6, 0.1, 1), (0.35, 0.75, 0.95, 1), (0.3, 0.85, 0.5, 1), (0.95, 0.4, 0.7, 1),
         (0.9, 0.9, 0.35, 1), (0.7, 0.55, 0.95, 1)]


#: The accounts' column widths (dp): rank, name (the rest), cash, bonuses, sales, total.
COLUMNS = (28, 0, 78, 78, 78, 84)


class WorthChart(Widget):
    """Lines of net worth by turn, one per player (``points``: ``[(turn, [worth...])]``), with
    the axes labelled: money up the left (0, half, the top), turns along the bottom."""

    points = ListProperty([])
    money = ObjectProperty(str)
    font_name = StringProperty("Roboto")
    axis_words = ListProperty(["turn", "net worth"])   # the x and y axes' titles

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bind(points=self.redraw, pos=self.redraw, size=self.redraw, money=self.redraw,
                  axis_words=self.redraw)

    def _label(self, words: str, x: float, y: float, align: str = "center") -> None:
        label = Label(text=words, font_name=self.font_name, font_size=sp(13), color=theme.TEXT,
                      size_hint=(None, None))
        label.texture_update()
        label.size = label.texture_size
        left = {"center": x - label.width / 2, "right": x - label.width, "left": x}[align]
        label.pos = (left, y)
        self.add_widget(label)

    def redraw(self, *_: Any) -> None:
        self.canvas.clear()
        self.clear_widgets()
        if len(self.points) < 2 or self.width < 50 or self.height < 50:
            return
        turns = [turn for turn, _ in self.points]
        step = nice_step(max(max(worths) for _, worths in self.points) / 4)
        top = step * -(-max(max(worths) for _, worths in self.points) // step)
        span = max(turns[-1] - turns[0], 1)
        left, bottom = self.x + dp(66), self.y + dp(40)
        width, height = self.right - left - dp(10), self.top - bottom - dp(32)

        def at(turn: int, worth: int) -> tuple[float, float]:
            return left + (turn - turns[0]) / span * width, bottom + worth / top * height
        ticks = range(0, top + 1, step)
        with self.canvas:
            Color(*theme.DIM)
            Line(points=[left, bottom + height, left, bottom, left + width, bottom], width=1.2)
            for worth in ticks[1:]:
                Line(points=[left - dp(4), at(0, worth)[1], left + width, at(0, worth)[1]],
                     width=1, dash_length=4, dash_offset=4)
            for seat in range(len(self.points[0][1])):
                Color(*LINES[seat % len(LINES)])
                Line(points=[c for turn, worths in self.points for c in at(turn, worths[seat])],
                     width=dp(1.8))
        for worth in ticks:
            self._label(self.money(worth), left - dp(6), at(0, worth)[1] - dp(9), "right")
        for turn in sorted({turns[0], turns[0] + span // 2, turns[-1]}):
            self._label(str(turn), at(turn, 0)[0], bottom - dp(20))
        x_title, y_title = self.axis_words
        self._label(x_title + " →", left + width, self.y, "right")
        self._label("↑ " + y_title, left + dp(4), self.top - dp(18), "left")


def nice_step(rough: float) -> int:
    """A round step near ``rough`` (1, 2, 2.5 or 5 times a power of ten): the axis' ticks.

    >>> nice_step(9025), nice_step(140), nice_step(0.3)
    (10000, 200, 1)
    """
    if rough <= 1:
        return 1
    power = 10 ** math.floor(math.log10(rough))
    return int(next(power * f for f in (1, 2, 2.5, 5, 10) if power * f >= rough))


class ResultsScreen(Screen):
    """The end of the desk's game (see the module's docstring)."""

    desk = ObjectProperty(None, allownone=True)
    language = StringProperty("en")

    def refresh(self, *_: Any) -> None:
        from kivy.app import App

        language, ids = self.language, self.ids
        game = self.desk.game if isinstance(self.desk, Assistant) else None
        ids.heading.text = text("results", language)
        ids.history.text = text("history", language)
        ids.new_game.text = text("new_game", language)
        ids.print.text = text("print_slip", language)
        ids.export.text = text("export", language)
        ids.shutdown.text = text("shutdown", language)
        ids.chart_title.text = text("net_worth", language)
        if not ids.status.text or ids.status.text in HINTS:
            ids.status.text = text("results_buttons", language)   # till a service says more
        for grid in (ids.accounts, ids.standings, ids.legend):
            grid.clear_widgets()
        if game is None or game.standings is None:
            return
        app = App.get_running_app()
        font = app.font_name if app else "Roboto"
        self._accounts(game, language, font)
        self._by_chain(game, language, font)
        ids.chart.font_name = font
        ids.chart.money = game.rules.money
        ids.chart.axis_words = [text("results_turn", language), text("results_money", language)]
        ids.chart.points = worth_by_turn(game)
        ids.legend.cols = 2 if len(game.names) > 2 else len(game.names)
        for seat, name in enumerate(game.names):
            ids.legend.add_widget(self._line(f"[b]━ {escape(name)}[/b]",
                                             LINES[seat % len(LINES)], font, "15sp"))

    def _accounts(self, game: Any, language: str, font: str) -> None:
        """One row a player, best first: rank, name, cash, + bonuses, + sales, = total."""
        grid, money = self.ids.accounts, game.rules.money
        heads = ("results_rank", "results_player", "results_cash_before", "results_bonuses",
                 "results_sales", "results_total")
        for column, key in enumerate(heads):
            grid.add_widget(self._cell(text(key, language), theme.DIM, font, "13sp",
                                       "left" if column == 1 else "right", column))
        seats = {name: seat for seat, name in enumerate(game.names)}
        for account in final_accounts(game):
            colour = LINES[seats[account.player] % len(LINES)]
            grid.add_widget(self._cell(f"[b]{account.rank}.[/b]", theme.TEXT, font, "18sp",
                                       column=0))
            grid.add_widget(self._cell(f"[b]{escape(account.player)}[/b]", colour, font, "17sp",
                                       "left", 1))
            for column, amount in enumerate((account.cash_before, account.bonuses,
                                             account.sales), start=2):
                grid.add_widget(self._cell(money(amount), theme.TEXT, font, "16sp", column=column))
            grid.add_widget(self._cell(f"[b]{money(account.total)}[/b]", theme.TEXT, font,
                                       "18sp", column=5))

    def _by_chain(self, game: Any, language: str, font: str) -> None:
        """Below the accounts: what each player was paid by chain over the game."""
        grid, money = self.ids.standings, game.rules.money
        paid = paid_by_chain(game)
        grid.add_widget(self._line(text("paid_legend", language), theme.DIM, font))
        for seat, _rank in game.standings:
            name = game.names[seat]
            chains = ", ".join(f"{chain_name(chain, language)} {money(amounts['bonus'])} + "
                               f"{money(amounts['sales'])}"
                               for chain, amounts in sorted(paid[name].items()))
            grid.add_widget(self._line(f"[b]{escape(name)}[/b]: {chains or '-'}",
                                       theme.TEXT, font, wrap=True))

    def print_slip(self) -> None:
        """Print the game's signed score slip (the results' button, or CONFIRM)."""
        self._act("print_slip", lambda services: services.print_slip())

    def export(self) -> None:
        """Write the game to a USB stick (the results' button, or NEXT)."""
        self._act("export", lambda services: services.export())

    def _act(self, what: str, service: Callable[[Services], str]) -> None:
        """Ask the table's services; say how it went (``what``: the title of the notice)."""
        from kivy.app import App

        app = App.get_running_app()
        services = app.services if app is not None else None
        said = text("no_devices", self.language) if services is None else service(services)
        said = say(said, self.language)
        self.ids.status.text = said
        if app is not None and app.root.current != self.name:
            self._notice(what, said)   # asked from another screen (the menu, a long press)

    def _notice(self, what: str, said: str) -> None:
        from kivy.app import App

        font = App.get_running_app().font_name
        self.notice = Asked(title=text(what, self.language), title_font=font,
                            content=Label(text=said, font_name=font, font_size="18sp",
                                          text_size=(400, None), halign="center"),
                            size_hint=(0.7, 0.45),
                            buttons=lambda button: self.notice.dismiss())   # any button closes it
        self.notice.open()

    def ask_shutdown(self) -> None:
        """Switch the Pi off safely, after asking (the journal is closed first)."""
        language = self.language
        self.popup = ask(text("shutdown", language), text("shutdown_ask", language),
                         text("shutdown", language), text("undo_no", language),
                         lambda: self._act("shutdown", lambda services: services.shutdown()))

    @staticmethod
    def _line(words: str, colour: tuple, font: str, size: str = "14sp",
              wrap: bool = False) -> Label:
        label = Label(text=words, markup=True, color=colour, font_name=font, font_size=size,
                      halign="left", valign="middle", shorten=not wrap, shorten_from="right",
                      size_hint_y=None if wrap else 1)
        if wrap:
            label.bind(width=lambda widget, value: setattr(widget, "text_size", (value, None)),
                       texture_size=lambda widget, value: setattr(widget, "height", value[1]))
        else:
            label.bind(size=lambda widget, value: setattr(widget, "text_size", value))
        return label

    @staticmethod
    def _cell(words: str, colour: tuple, font: str, size: str, align: str = "right",
              column: int = 2) -> Label:
        """A cell of the accounts: the name's column takes what the fixed ones leave."""
        width = COLUMNS[column]
        label = Label(text=words, markup=True, color=colour, font_name=font, font_size=size,
                      halign=align, valign="middle", shorten=True, shorten_from="right",
                      size_hint_x=None if width else 1, width=dp(width or 10))
        label.bind(size=lambda widget, value: setattr(widget, "text_size", value))
        return label


def escape(words: str) -> str:
    """A player's name as markup shows it (a "[" in a name is not a tag)."""
    return words.replace("&", "&amp;").replace("[", "&bl;").replace("]", "&br;")
