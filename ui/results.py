"""The results screen: final standings, each player's bonuses and sales by chain, and a chart
of every player's net worth over the game, turn by turn."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from kivy.graphics import Color, Line
from kivy.lang import Builder
from kivy.properties import ListProperty, ObjectProperty, StringProperty
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen
from kivy.uix.widget import Widget

from tabletop.journal.stats import paid_by_chain, worth_by_turn
from tabletop.table.assistant import Assistant
from ui import theme
from ui.ask import Asked, ask
from ui.i18n import LANGUAGES, TEXTS, say, text
from ui.services import Services

Builder.load_file(str(Path(__file__).with_suffix(".kv")))

#: The hint of what the GPIO buttons do here, in each language (replaced by what a service says).
HINTS = {TEXTS["results_buttons"][language] for language in LANGUAGES}

#: The players' line colours (distinct from one another; names are beside them too).
LINES = [(0.95, 0.6, 0.1, 1), (0.35, 0.75, 0.95, 1), (0.3, 0.85, 0.5, 1), (0.95, 0.4, 0.7, 1),
         (0.9, 0.9, 0.35, 1), (0.7, 0.55, 0.95, 1)]


class WorthChart(Widget):
    """Lines of net worth by turn, one per player (``points``: ``[(turn, [worth...])]``)."""

    points = ListProperty([])

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bind(points=self.redraw, pos=self.redraw, size=self.redraw)

    def redraw(self, *_: Any) -> None:
        self.canvas.clear()
        if len(self.points) < 2:
            return
        turns = [turn for turn, _ in self.points]
        top = max(max(worths) for _, worths in self.points) or 1
        span = max(turns[-1] - turns[0], 1)
        with self.canvas:
            Color(*theme.DIM)
            Line(points=[self.x, self.y, self.right, self.y], width=1)
            for seat in range(len(self.points[0][1])):
                Color(*LINES[seat % len(LINES)])
                Line(points=[coordinate for turn, worths in self.points for coordinate in
                             (self.x + (turn - turns[0]) / span * self.width,
                              self.y + worths[seat] / top * self.height * 0.95)], width=1.6)


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
        grid = ids.standings
        grid.clear_widgets()
        if game is None or game.standings is None:
            return
        app = App.get_running_app()
        font = app.font_name if app else "Roboto"
        money = game.rules.money
        paid = paid_by_chain(game)
        grid.add_widget(self._line(text("paid_legend", language), theme.DIM, font))
        for seat, rank in game.standings:
            name = game.names[seat]
            colour = LINES[seat % len(LINES)]
            grid.add_widget(self._line(f"[b]{rank}. {name}  {money(game.cash[seat])}[/b]",
                                       colour, font, "18sp"))
            for chain, amounts in sorted(paid[name].items()):
                grid.add_widget(self._line(
                    f"    {chain}: {money(amounts['bonus'])} + {money(amounts['sales'])}",
                    theme.TEXT, font))
        ids.chart.points = worth_by_turn(game)

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
    def _line(words: str, colour: tuple, font: str, size: str = "14sp") -> Label:
        label = Label(text=words, markup=True, color=colour, font_name=font, font_size=size,
                      halign="left", valign="middle", shorten=True, shorten_from="right")
        label.bind(size=lambda widget, value: setattr(widget, "text_size", value))
        return label
