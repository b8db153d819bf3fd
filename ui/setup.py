"""The setup screen: rule set (with its provisional note), mode and options, players in seat
order (add, rename, reorder, remove), language; then start (the turn-order draw follows on
the table screen).

Under the heading, the table's key fingerprint (``Table key 139e-3940-e64b-5491``), which
a tournament director compares with the one registered; at a table in a tournament, its
seat (``Spring Open · table 3 · round``) and the round, stepped by - and + (a new game is
set up for that round: none chosen, Start says so).

Every option of the rule file with a set of values is a button that steps
through them (a finger reaches every one); the players' names are typed in.
Nothing is kept here that the game does not get: starting hands the seating
its rules, players and options, checked by the engine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.lang import Builder
from kivy.metrics import dp
from kivy.properties import ListProperty, ObjectProperty, StringProperty
from kivy.uix.button import Button
from kivy.uix.screenmanager import Screen
from kivy.uix.textinput import TextInput

from tabletop.messages import message_of
from tabletop.errors import TabletopError
from tabletop.engine.ruleset import available_rules, load_rules
from ui import theme
from ui.i18n import say, text, value_name

Builder.load_file(str(Path(__file__).with_suffix(".kv")))

#: Options shown on this screen (others keep the rule file's default).
SHOWN = ("bonus_mode", "disclosure", "founder_when_sold_out", "hex_offset", "two_player_market",
         "agreed_end", "incorrect_placement")
#: Under a profile, these are shown too (held, as every option is): what a tournament holds.
HELD_SHOWN = SHOWN + ("dead_reveal", "turn_order")
#: Unfinished games listed at a time by Resume (a row each, readable at 800x480).
RESUME_PAGE = 5


class SetupScreen(Screen):
    """A new game's seats and rules (see the module's docstring)."""

    language = StringProperty("en")
    players = ListProperty(["Ann", "Bob", "Cy"])
    rules = StringProperty("acquire")
    starter = ObjectProperty(None, allownone=True)    # called with (rules, players, options)
    #: The table's profile (``[table] profile``): its options are shown fixed, never changed.
    profile = ObjectProperty(None, allownone=True)
    #: The table key's fingerprint ("": not shown).
    fingerprint = StringProperty("")
    #: The table's place in a tournament (a tabletop.table.seating.TournamentPlace; None: none).
    tournament = ObjectProperty(None, allownone=True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.options: dict[str, Any] = {}
        #: The tournament's line (kept here: it is out of the layout at a table in none).
        self.place_row = self.ids.place.__self__

    # --- what the table does ------------------------------------------------------------------

    def next_rules(self) -> None:
        names = available_rules()
        self.rules = names[(names.index(self.rules) + 1) % len(names)] \
            if self.rules in names else names[0]
        self.options = {}
        self.refresh()

    def step_option(self, name: str) -> None:
        if self.profile is not None:     # held: the profile's value, whatever is tapped
            return
        option = load_rules(self.rules).options[name]
        values = list(option.choices or (True, False))
        current = self.options.get(name, option.default)
        self.options[name] = values[(values.index(current) + 1) % len(values)]
        self.refresh()

    def step_round(self, by: int) -> None:
        """The tournament round ``by`` rounds on (a game set up next is for it)."""
        if self.tournament is not None:
            self.tournament.step(by)
            self.ids.round.text = str(self.tournament.round)
            self.ids.problem.text = ""

    def add_player(self) -> None:
        self._read_names()
        self.players.append(f"{text('player', self.language)} {len(self.players) + 1}")
        self.refresh()

    def move(self, index: int, step: int) -> None:
        self._read_names()
        other = index + step
        if 0 <= other < len(self.players):
            self.players[index], self.players[other] = self.players[other], self.players[index]
        self.refresh()

    def remove(self, index: int) -> None:
        self._read_names()
        del self.players[index]
        self.refresh()

    def start(self) -> None:
        """Hand the seats to the game; a problem (two equal names, too few) is shown, not started."""
        self._read_names()
        ruleset = load_rules(self.rules)
        options = {name: value for name, value in self.options.items()
                   if value != ruleset.options[name].default}
        try:
            from tabletop.engine.game import Game

            if self.profile is not None:
                options = self.profile.setup_options(ruleset)
            Game(ruleset, self.players, options)
            if self.starter is not None:    # the table may refuse too (data kept in memory)
                self.starter(self.rules, list(self.players), options)
        except TabletopError as error:
            self.ids.problem.text = say(message_of(error), self.language)
            return
        self.ids.problem.text = ""

    # --- showing ------------------------------------------------------------------------------

    def refresh(self, *_: Any) -> None:
        language, ids = self.language, self.ids
        ruleset = load_rules(self.rules)
        ids.heading.text = text("new_game", language)
        ids.language.text = text("language", language)
        # The name alone: the title's parenthesis lists modes and variants the options below set.
        ids.rules.text = ruleset.title.split(" (")[0]
        ids.note.text = text("provisional", language) if ruleset.provisional else ""
        ids.add.text = text("add_player", language)
        ids.add.disabled = len(self.players) >= ruleset.max_players
        ids.start.text = text("start", language)
        ids.calibrate.text = text("calibrate", language)
        ids.resume.text = text("resume", language)
        ids.resume.disabled = not self._unfinished()
        ids.back.text = text("to_table", language)
        app = App.get_running_app()
        ids.back.disabled = app is None or app.desk is None
        self.show_place()
        ids.options.clear_widgets()
        if self.profile is not None:
            self._show_held(ruleset)
        else:
            ids.options.row_default_height = "48dp"   # a unit, kept when the density changes
            for name in SHOWN:
                option = ruleset.options.get(name)
                if option is None or (option.choices is not None and len(option.choices) < 2):
                    continue
                current = self.options.get(name, option.default)
                button = Button(text=f"{text('opt_' + name, language)}: "
                                     f"{value_name(current, language)}",
                                font_name=ids.start.font_name, font_size="16sp",
                                background_normal="", background_color=(0.25, 0.27, 0.31, 1),
                                shorten=True)
                button.bind(size=_fit_text)
                button.bind(on_release=lambda _, n=name: self.step_option(n))
                ids.options.add_widget(button)
        ids.players.clear_widgets()
        for index, name in enumerate(self.players):
            field = TextInput(text=name, multiline=False, font_size="18sp",
                              font_name=ids.start.font_name, write_tab=False,
                              padding=["8dp", "12dp", "8dp", "10dp"])
            field.bind(focus=self._focused)
            ids.players.add_widget(field)
            for label, action in (("↑", lambda _, i=index: self.move(i, -1)),
                                  ("↓", lambda _, i=index: self.move(i, 1)),
                                  ("X", lambda _, i=index: self.remove(i))):
                button = Button(text=label, size_hint_x=None, width="48dp",
                                font_name=ids.start.font_name, font_size="20sp")
                button.bind(on_release=action)
                ids.players.add_widget(button)

    def show_place(self) -> None:
        """The key's fingerprint under the heading; in a tournament, its seat and round above
        the players (the line is taken out at a table in none: no room kept for it)."""
        language, ids, place = self.language, self.ids, self.tournament
        ids.key.text = text("table_key", language, fingerprint=self.fingerprint) \
            if self.fingerprint else ""
        row, column = self.place_row, ids.right
        if place is None:
            if row.parent is not None:
                row.parent.remove_widget(row)
            return
        if row.parent is None:
            column.add_widget(row, index=len(column.children))     # on top
        ids.seat.text = text("tournament_seat", language, tournament=place.tournament,
                             table=place.table)
        ids.round.text = str(place.round) if place.round is not None else "?"

    def _show_held(self, ruleset: Any) -> None:
        """The profile's name, then its options as fixed lines: nothing here can be tapped
        to change them (they are not buttons), so they take less height than buttons do."""
        from kivy.uix.label import Label

        language, ids = self.language, self.ids
        held = self.profile.options_for(ruleset)
        ids.options.row_default_height = "28dp"
        lines = [(text("profile_held", language, profile=self.profile.name), True)]
        lines += [(f"{text('opt_' + name, language)}: {value_name(held[name], language)}", False)
                  for name in HELD_SHOWN if name in held]
        for line, bold in lines:
            label = Label(text=line, font_name=ids.start.font_name, bold=bold,
                          font_size="15sp" if bold else "14sp", halign="left", valign="middle",
                          color=theme.TEXT if bold else theme.DIM, shorten=True)
            label.bind(size=lambda w, size: setattr(w, "text_size", size))
            ids.options.add_widget(label)

    def _unfinished(self) -> list:
        app = App.get_running_app()
        services = app.services if app is not None else None
        return services.unfinished() if services is not None else []

    def ask_resume(self, page: int = 0) -> None:
        """The table's unfinished games in the journal, newest first, RESUME_PAGE at a time
        (a table of years may have many): one tapped goes back on the table."""
        from kivy.uix.boxlayout import BoxLayout
        from kivy.uix.popup import Popup

        app, language = App.get_running_app(), self.language
        games = self._unfinished()
        pages = max(1, -(-len(games) // RESUME_PAGE))
        page = min(max(page, 0), pages - 1)
        box = BoxLayout(orientation="vertical", spacing="6dp", padding="6dp")
        self.popup = Popup(title=text("resume", language), title_font=app.font_name,
                           content=box, size_hint=(0.9, 0.9))
        for info in games[page * RESUME_PAGE:(page + 1) * RESUME_PAGE]:
            entry = Button(text=text("resume_entry", language, game=str(info.id),
                                     rules=load_rules(info.rules).title.split(" (")[0],
                                     players=", ".join(info.players), turn=str(info.turn)),
                           font_name=app.font_name, font_size="17sp", shorten=True)
            entry.bind(size=lambda w, size: setattr(w, "text_size", (size[0] - 12, None)))
            entry.bind(on_release=lambda _, g=info.id: (self.popup.dismiss(), app.resume_game(g)))
            box.add_widget(entry)
        if pages > 1:
            box.add_widget(self._resume_pages(page, pages))
        back = Button(text=text("back", language), font_name=app.font_name, font_size="17sp")
        back.bind(on_release=lambda _: self.popup.dismiss())
        box.add_widget(back)
        self.popup.open()

    def _resume_pages(self, page: int, pages: int) -> Any:
        """Newer, "2 of 7", Older: the row that turns the resume list's pages."""
        from kivy.uix.boxlayout import BoxLayout
        from kivy.uix.label import Label

        app, language = App.get_running_app(), self.language
        row = BoxLayout(orientation="horizontal", spacing="6dp")
        for key, step in (("resume_newer", -1), ("resume_older", 1)):
            button = Button(text=text(key, language), font_name=app.font_name, font_size="17sp",
                            disabled=not 0 <= page + step < pages)
            button.bind(on_release=lambda _, to=page + step: (self.popup.dismiss(),
                                                               self.ask_resume(to)))
            row.add_widget(button)
            if step < 0:
                row.add_widget(Label(text=text("resume_page", language, page=str(page + 1),
                                               pages=str(pages)),
                                     font_name=app.font_name, font_size="17sp"))
        return row

    def _focused(self, field: TextInput, focused: bool) -> None:
        self._keep_in_sight(field if focused else None)

    def _keep_in_sight(self, field: TextInput | None, tries: int = 60) -> None:
        """The name being typed stays above the docked keyboard: the screen's layout ends
        where the keyboard begins, and the players scroll to the field."""
        keyboard = _docked_keyboard() if field is not None else None
        if field is not None and keyboard is None and tries:
            # The keyboard docks a moment after the focus is taken (none docks: nothing to do).
            Clock.schedule_once(lambda _: self._keep_in_sight(field, tries - 1), 0.05)
            return
        lift = keyboard.top if keyboard is not None and field.focus else 0
        self.ids.frame.padding = [dp(6), dp(6), dp(6), dp(6) + lift]
        if lift:
            Clock.schedule_once(lambda _: self.ids.seats.scroll_to(field, padding=dp(4),
                                                                   animate=False), 0)

    def _read_names(self) -> None:
        """The names as typed in (a field is read when a button is pressed)."""
        fields = [w for w in reversed(self.ids.players.children) if isinstance(w, TextInput)]
        if len(fields) == len(self.players):
            self.players = [field.text.strip() for field in fields]


def _docked_keyboard() -> Any:
    """The on-screen keyboard docked at the bottom of the window, or None."""
    from kivy.core.window import Window
    from kivy.uix.vkeyboard import VKeyboard

    return next((w for w in Window.children if isinstance(w, VKeyboard) and w.docked), None)


def _fit_text(button: Button, size: Any) -> None:
    """A button's text kept inside it (shortened, not drawn past its edges)."""
    button.text_size = (max(0.0, size[0] - 12), None)
