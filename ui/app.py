"""The Kivy app: the table screen over a desk, fed by the table loop, the buttons and the keyboard.

The app holds no game logic. A clock steps the :class:`~tabletop.table.loop.TableLoop`
(one camera frame a tick) and polls the GPIO buttons; keys ``c``/Enter,
``n``/Space and ``u``/Backspace press CONFIRM, NEXT and UNDO on a laptop.

The layout is scaled to the window (:mod:`ui.window`), whose size the caller
chose before Kivy made it. A brand-new table is led through first use: with no
calibration it opens on the calibration screen and its steps, then the setup;
with no camera every desk is told so, and the table plays by taps.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.logger import Logger
from kivy.properties import StringProperty
from kivy.uix.modalview import ModalView
from kivy.uix.screenmanager import NoTransition, ScreenManager

from hardware.status import READY
from tabletop.errors import TabletopError
from tabletop.messages import Message, message_of
from tabletop.table.assistant import Assistant
from tabletop.table.loop import ButtonEvent, Desk, Signals, TableLoop
from tabletop.engine.profile import Profile
from tabletop.table.seating import Seating, TournamentPlace
from tabletop.table.narrate import entries
from tabletop.table.prompts import Prompt
from ui import theme, window
from ui.ask import Asked, notice
from ui.i18n import LANGUAGES, say
from ui.calibscreen import CalibrationScreen
from ui.history import HistoryScreen
from ui.infocard import InfoCardScreen
from ui.results import ResultsScreen
from ui.scoresheet import ScoreSheetScreen
from ui.services import Dimmer, Services
from ui.setup import SetupScreen
from ui.tablescreen import TableScreen

KEYS = {"c": "confirm", "enter": "confirm", "n": "next", "spacebar": "next",
        "u": "undo", "backspace": "undo"}


#: The exit code that asks systemd for a new process (EX_TEMPFAIL): a device lost for good in
#: this one, the CSI camera, is reached again by a fresh process.
RESTART = 75
#: Seconds the restart's notice stays on the screen before the app ends.
RESTART_NOTICE = 5.0


class TableApp(App):
    """The touchscreen of one table.

    ``loop``: the table loop whose desk the screens show and whose tick the
    clock beats (camera frame, buttons, light and buzzer), or only a ``desk``
    (a seating or an assistant) for a table with no camera; ``controls``: the
    buttons, light and buzzer (:mod:`hardware.controls`) of a loop made here.
    """

    font_name = StringProperty("Roboto")
    language = StringProperty("en")

    def __init__(self, desk: Desk | None = None, loop: TableLoop | None = None,
                 controls: Signals | None = None, language: str = "en",
                 disclosure: str = "open", fps: float = 10.0,
                 new_game: Callable[[str, list, dict], None] | None = None,
                 services: Services | None = None, driver: Iterator[None] | None = None,
                 camera: Any = None, camera_off: str = "", calibrated: bool = True,
                 announce: Callable[[str], None] | None = None, idle: Dimmer | None = None,
                 profile: Profile | None = None, fingerprint: str = "",
                 tournament: TournamentPlace | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: The table key's fingerprint ("" unknown) and its place in a tournament (None:
        #: none), on the setup screen; a director compares the one, the round is chosen there.
        self.fingerprint, self.tournament = fingerprint, tournament
        #: The table's profile (``[table] profile``, a tabletop.engine.profile.Profile):
        #: the setup screen shows its options fixed (None: the table chooses them).
        self.profile = profile
        #: Dims the panel between games and wakes it at a touch (None: a light left alone).
        self.idle = idle
        #: What the process ends with: :data:`RESTART` once a device cannot heal in it.
        self.exit_code = 0
        #: Speaks each confirmed action in the screen's language (``[sound] speak``), or None.
        self.announce = announce
        self._announced = -1          # the history length last announced
        #: An iterator advanced one step a tick instead of stepping the loop (the demo's
        #: bots, which step the loop themselves). It may yield a Message saying why it
        #: stops; once it stops, the table stands still (no camera frame is read) and the
        #: table screen says so (:meth:`driver_stopped`).
        self.driver = driver
        self._driven = driver is not None
        self.loop = loop if loop is not None else TableLoop(desk, None, None, signals=controls)
        if controls is not None and self.loop.signals is None:
            self.loop.signals = controls
        #: The camera the calibration screen shows (the table's; the loop's when it has one).
        self.camera = camera if camera is not None else self.loop.camera
        #: Why the table plays by taps ("" while the camera reads the board): no camera
        #: configured or found. Every desk is told (its banner says so).
        self.camera_off = camera_off
        #: False on a new table whose camera is not calibrated: the app opens on the
        #: calibration screen with its steps, and goes on to the setup once it is saved.
        self.calibrated = calibrated
        self._told: tuple[int, str] | None = None     # the desk told of the camera, and what
        self._rescale: Callable[..., None] | None = None
        #: The table's devices and journal for the screens (None: a table without them).
        self.services = services
        #: Called with (rules, players, options) when the setup screen starts a game; by
        #: default the app seats them itself (a table of its own, without a loop).
        self.new_game = new_game
        self.fps = fps
        self._shown: tuple | None = None      # what the screen last showed
        self.language = language
        self.disclosure = disclosure
        self.font_name = theme.font_path() or "Roboto"
        self.title = "tabletop"

    @property
    def desk(self) -> Desk | None:
        return self.loop.desk

    @property
    def controls(self) -> Signals | None:
        return self.loop.signals

    def build(self) -> ScreenManager:
        # The layout's dp follow the window: set before the screens are made.
        self._rescale = window.follow(Window)
        manager = ScreenManager(transition=NoTransition())
        self.table = TableScreen(name="table", desk=self.desk, language=self.language,
                                 disclosure=self.disclosure)
        self.history = HistoryScreen(name="history", desk=self.desk, language=self.language)
        self.results = ResultsScreen(name="results", desk=self.desk, language=self.language)
        self.setup = SetupScreen(name="setup", language=self.language, starter=self.start_game,
                                 profile=self.profile, fingerprint=self.fingerprint,
                                 tournament=self.tournament)
        self.calibration = CalibrationScreen(
            name="calibration", language=self.language, camera=self.camera,
            saver=self._save_calibration if self.services is not None else None,
            guide=self.first_use)
        self.scores = ScoreSheetScreen(name="scores", desk=self.desk, language=self.language)
        self.card = InfoCardScreen(name="card", desk=self.desk, language=self.language)
        self.screens = (self.table, self.history, self.results, self.setup, self.calibration,
                        self.scores, self.card)
        for screen in self.screens:
            manager.add_widget(screen)
        if self.first_use:
            manager.current = "calibration"
            self.calibration.rules = self.setup.rules
            self.calibration.refresh()
        elif self.desk is None:
            manager.current = "setup"
            self.setup.refresh()
        Window.clearcolor = theme.BACKGROUND
        Logger.info("tabletop: window %dx%d, %s, through SDL's %s video driver", *Window.system_size,
                    "full screen" if Window.fullscreen else "windowed", window.video_driver())
        Window.bind(on_key_down=self._key, on_touch_down=self._touch_down)
        Clock.schedule_interval(self.tick, 1.0 / self.fps)
        if self.desk is not None:
            self.table.refresh()
        return manager

    def on_stop(self) -> None:
        # A stopped app beats no more (another may be started in the same process: the
        # screenshots take one a shot).
        Clock.unschedule(self.tick)
        Window.unbind(on_key_down=self._key, on_touch_down=self._touch_down)
        if self._rescale is not None:
            window.unfollow(Window, self._rescale)
            self._rescale = None

    # --- first use: the camera -------------------------------------------------------------

    @property
    def first_use(self) -> bool:
        """A camera that is there but not calibrated yet: the calibration comes first."""
        return not self.calibrated and not self.camera_off and self.camera is not None

    def camera_reason(self) -> str:
        """Why tiles are tapped in ("" when the camera reads the board)."""
        if self.camera_off and self.camera is not None and self.camera.status.state == READY:
            self.camera_off = ""       # the camera found after all: its frames come
        if self.camera_off:
            return self.camera_off
        return "" if self.calibrated or self.camera is None else \
            Message("not calibrated yet")

    def _tell_desk(self, desk: Desk) -> None:
        """Tell the desk (each new one: the seating, then the game) whether the camera reads
        the board, once for each change."""
        told, reason = self._told, self.camera_reason()
        if told == (id(desk), reason):
            return
        if reason:
            desk.camera_lost(reason)
        elif told is not None and told[0] == id(desk):
            desk.camera_back()
        self._told = (id(desk), reason)

    def _save_calibration(self, calibration: Any) -> str:
        """The calibration screen's Save: kept by the services; on first use the table goes
        on to the setup (or its game) once the eyes have it."""
        eyes = self.loop.eyes
        said = self.services.save_calibration(calibration)
        if self.loop.eyes is not eyes:
            first = not self.calibrated
            self.calibrated = True
            if first:
                Clock.schedule_once(self._after_first_calibration, 1.0)   # "saved" read first
        return said

    def _after_first_calibration(self, *_: Any) -> None:
        if self.root.current == "calibration":
            self.show("table" if self.desk is not None else "setup")

    def tick(self, *_: Any) -> None:
        """One beat of the table (a camera frame, the buttons pressed since, the light and
        the buzzer), and the screen brought up to date."""
        self._light()
        if self.exit_code or self._camera_gone():
            return
        if self.root.current == "calibration":
            self.calibration.tick()     # the camera is the calibration's while it is shown
            return
        if self.driver is not None:       # the demo's bots step the loop themselves
            said = next(self.driver, StopIteration)
            if said is not None:
                self.driver = None
                self.driver_stopped(None if said is StopIteration else said)
        beat = self.loop.tick(step=not self._driven, on_button=self._button)
        self.update(beat.prompt)

    def driver_stopped(self, said: Message | str | None = None) -> None:
        """The bots stopped before the game's end (the demo's ``--turns``): the table screen
        says so and how to leave, in ``said``'s words or, without them, its own. A game
        played to its end needs none: the results screen shows it."""
        desk = self.desk
        if said is None and (not isinstance(desk, Assistant) or desk.game.pending is None):
            return
        if said is None:
            said = Message("The demo stopped after turn {turn}: press Esc or close the window "
                           "to end", turn=max(1, desk.game.turn - 1))
        self.table.stopped = said
        self._shown = None

    def _camera_gone(self) -> bool:
        """A camera this process can no longer reach (a CSI camera's cable pulled): say so,
        then end the app for systemd to start it again. Every confirmed action is already in
        the journal, and the new process resumes the game."""
        reason = self.camera.hopeless if self.camera is not None else None
        if reason is None:
            return False
        self.exit_code = RESTART
        said = Message("{camera}. The game is saved, and goes on where it was once the app "
                       "is back.", camera=reason)
        notice("tabletop", say(said, self.language))
        Clock.schedule_once(lambda *_: self.stop(), RESTART_NOTICE)
        return True

    def _light(self) -> None:
        """The panel may dim between games (the setup, the results, a game over), never in
        one, nor while the camera is set up (its hands may be off the screen a while)."""
        if self.idle is None:
            return
        current, desk = self.root.current, self.desk
        between = current != "calibration" and (
            desk is None or current in ("setup", "results") or desk.prompt.kind == "over")
        self.idle.set_allowed(between)
        self.idle.tick()

    def _touch_down(self, window: Any, touch: Any) -> bool:
        """A touch on a dimmed panel wakes it and presses nothing under the finger."""
        return self.idle is not None and self.idle.touched()

    def _button(self, event: ButtonEvent) -> None:
        if self.idle is not None:
            self.idle.touched()
        if event.kind == "press":
            self.press(event.button.lower())
        elif event.kind == "long_press":
            self.long_press(event.button.lower())

    def update(self, prompt: Prompt | None = None, force: bool = False) -> None:
        """Bring the screen shown up to date (only when something changed: a tick is
        10 times a second); at the end of the game, show the results. ``prompt``: the
        desk's, when the caller has just read it."""
        desk = self.desk
        if desk is None:
            return
        self._tell_desk(desk)
        prompt = prompt if prompt is not None and not force else desk.prompt
        game = desk.game if isinstance(desk, Assistant) else None
        self.table.device = self.services.printer_banner() if self.services is not None else ""
        if self.table.device:
            # Where the slip is printed, too.
            self.results.ids.status.text = say(self.table.device, self.language)
        state = (id(desk), prompt, len(game.history) if game is not None else -1,
                 self.root.current, self.language, self.table.device)
        if state == self._shown and not force:
            return
        self._shown = state
        if game is not None:
            self._announce(game)
        for screen in self.screens:
            screen.desk = desk
        if self.root.current == "table" and prompt.kind == "over":
            self.show("results")
        else:
            self.root.current_screen.refresh()

    def _announce(self, game: Any) -> None:
        """The newest confirmed action, spoken, for players who are not looking."""
        done = len(game.history)
        if self.announce is not None and self._announced >= 0 and done > self._announced:
            self.announce(say(entries(game)[-1], self.language))
        self._announced = done

    def start_game(self, rules: str, players: list, options: dict) -> None:
        """The setup screen's Start: seat the players; the turn-order draw is on the table."""
        if self.new_game is not None:
            self.new_game(rules, players, options)
        else:
            seat = self.tournament.seat() if self.tournament is not None else None
            self.loop.desk = Seating(rules, players, options, profile=self.profile, seat=seat)
        self._shown = None
        self.show("table")
        self.update(force=True)

    def resume_game(self, game_id: int) -> None:
        """An unfinished game of the journal back on the table (the setup screen's Resume)."""
        try:
            self.services.resume(game_id)
        except TabletopError as error:      # the journal cannot replay it: said, nothing changes
            self.setup.ids.problem.text = say(message_of(error), self.language)
            return
        self._shown = None
        self.show("table")
        self.update(force=True)

    def show(self, name: str) -> None:
        if name == "calibration":
            # Calibrate for the board set up on the setup screen.
            self.calibration.rules = self.setup.rules
            self.calibration.options = {key: value for key, value in self.setup.options.items()
                                        if key == "hex_offset"}
        self.root.current = name
        self.root.current_screen.refresh()
        self._shown = None

    def press(self, button: str) -> None:
        """CONFIRM, NEXT or UNDO, from a GPIO button, a key or a tap."""
        asked = next((w for w in Window.children if isinstance(w, ModalView)
                      and not (isinstance(w, Asked) and w.closing)), None)
        if asked is not None:
            # A question or a menu is open: the buttons answer it, never the game behind it.
            if isinstance(asked, Asked):
                asked.press(button)
            return
        if self.root.current == "results":
            self._results_press(button)
            return
        if self.root.current != "table" or self.desk is None:
            return        # the other screens have their own buttons; a stray press does nothing
        self.loop.press(button)
        self.update()

    def _results_press(self, button: str) -> None:
        """At the end, as the results screen's hint says: CONFIRM prints the slip, NEXT writes
        the game to a USB stick, UNDO goes back to the table taking back the last action."""
        if button == "confirm":
            self.results.print_slip()
        elif button == "next":
            self.results.export()
        elif button == "undo" and self.desk is not None:
            self.show("table")
            self.press("undo")

    def long_press(self, button: str) -> None:
        """Held buttons (their meanings are shown on the table screen): NEXT the history,
        UNDO back to the table, CONFIRM switching off (asked first)."""
        if button == "next":
            self.show("history")
        elif button == "undo":
            self.show("table")
        elif button == "confirm":
            self.results.ask_shutdown()     # switch off safely, after asking

    def toggle_language(self) -> None:
        self.set_language(LANGUAGES[(LANGUAGES.index(self.language) + 1) % len(LANGUAGES)])

    def set_language(self, language: str) -> None:
        self.language = language
        for screen in self.screens:
            screen.language = language
        self.root.current_screen.refresh()

    def _key(self, window: Any, key: int, scancode: int, codepoint: str, modifiers: list) -> bool:
        name = Window._system_keyboard.keycode_to_string(key) if hasattr(
            Window, "_system_keyboard") else codepoint
        button = KEYS.get(name) or KEYS.get(codepoint or "")
        if self.idle is not None:
            self.idle.touched()
        if button is None:
            return False
        self.press(button)
        return True
