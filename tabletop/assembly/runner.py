"""``tabletop run``: the real table, assembled from the configuration.

The camera (``[camera] source``), its calibration (``calibration.json`` in the
data folder), the buttons (``[controls]``) and the journal (``journal.db``
in the data folder) are joined by the :class:`~tabletop.table.loop.TableLoop`.
An unfinished game of this table is resumed at its last confirmed action,
else a new one is set up with ``[table] players`` (or ``--players``), or on
the touchscreen. The touchscreen app fills the screen (``[screen]``) and leads a
new table through first use: no calibration yet, the calibration screen; no
camera (``[camera] source = "off"``, or one that cannot be opened), tiles tapped
in. Headless (``--headless``, or no display) it prints what the screen would
show (the prompt, faults, the differences between the board and the game) and
every confirmed action; a missing camera or calibration is then a
configuration error, said on the terminal.

``--camera SOURCE`` stands in for ``[camera] source`` for one run. ``sim``
(``sim:RULES,seed=N``) is a rendered table whose simulated players put down
the tiles of the game played (:class:`~tabletop.assembly.simcamera.SimTable`):
named with ``--camera`` in a window, it is calibrated on the calibration screen
as a real camera is; headless, or set in the configuration (screenshots,
tests), it calibrates itself.

A table in a tournament (``[tournament]``) sets every new game up with its seat
(the round: ``--round``, the setup screen's, or ``[tournament] round``; a new game
with none known is refused, not played unseated) and, with ``[tournament] broker``,
sends its live state and slips to the director
(:class:`~tabletop.assembly.tournament_side.TournamentSide`).

Part of the composition root: calibration and hardware are imported here,
lazily, never by the engine.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tabletop.assembly.config import Config, ConfigError, table_profile
from tabletop.assembly.services import CALIBRATION_FILE, TableServices, confirmed, game_title
from tabletop.assembly.tournament_side import PREFIX as TOURNAMENT, TournamentSide
from tabletop.engine.ruleset import load_rules
from tabletop.errors import TabletopError
from tabletop.journal.journal import Journal
from tabletop.messages import Message
from tabletop.table.assistant import Assistant
from tabletop.table.games import TableGames
from tabletop.table.loop import Desk, TableLoop
from tabletop.table.confirmed import folded
from tabletop.table.prompts import screen_lines
from tabletop.table.seating import Seating

JOURNAL_FILE = "journal.db"
RECORDED = ("dir:", "file:", "sim")
#: The exit code that asks systemd for a new process (EX_TEMPFAIL; ui.app.TableApp's too): the
#: camera lost for good in this one.
RESTART = 75
#: ``[camera] source`` for a table without a camera (tiles tapped in on the touchscreen).
OFF = "off"


class Runner:
    """One table, run from its configuration until stopped (Ctrl-C, SIGTERM)."""

    def __init__(self, config: Config, players: list[str] | None = None, new: bool = False,
                 out: Callable[[str], None] = print, on_screen: bool = False,
                 power_off: Sequence[str] | None = None, record: Path | None = None,
                 camera: str | None = None, round_number: int | None = None) -> None:
        #: The camera source ``--camera`` named for this run over ``[camera] source``, or None.
        self.chosen = camera
        #: With the touchscreen, a new game without configured seats is set up there, and a
        #: table without a camera or a calibration opens all the same (see the module).
        self.on_screen = on_screen
        self.config = config
        self.out = out
        self.data = config.data_dir
        self.data.mkdir(mode=0o700, parents=True, exist_ok=True)
        name = config.values["table"]["name"]
        journal = Journal.open(self.data / JOURNAL_FILE, table_name=name)
        for message in journal.report.messages:
            self.out(f"journal: {message}")
        #: The calibration file a real camera still needs, said when it is found (camera_off).
        self._uncalibrated: Path | None = None
        #: Keeps the camera's frames at the moments that matter (``--record``), or None.
        self.recorder: Any = None
        self.games = TableGames(journal, listener=self._confirmed, name=name,
                                refusal=_in_memory(self.data))
        if self.games.refusal is not None:
            self.out(f"tabletop: {self.games.refusal}")
        #: The tournament the table plays in (``[tournament]``; ``--round``), and its link.
        self.tournament = TournamentSide(config, self.data, self.out, round_number)
        try:
            if round_number is not None and self.tournament.place is None:
                raise ConfigError(f"--round {round_number}: this table plays in no tournament: "
                                  f"set [tournament] name and table in the configuration")
            self.camera = self._camera()
            eyes = self._eyes()
            if record is not None:
                eyes = self._recording(record, eyes)
            self.controls = self._controls()
            self.speaker = self._speaker()
            desk = self._desk(players, new)
        except BaseException:
            journal.close()
            raise
        from hardware.sound import Chiming

        sound = config.values["sound"]
        #: Speaks each confirmed action (``[sound] speak``), or None.
        self.announce: Callable[[str], None] | None = self.speaker.say if sound["speak"] else None
        self.loop = TableLoop(desk, self.camera, eyes,
                              start=self._start if not isinstance(desk, Assistant) else None,
                              signals=Chiming(self.controls, self.speaker, cues=sound["cues"]))
        self._seat_players()
        self.services = TableServices(config, self.games, self.loop, out=self.out,
                                      power_off=power_off)
        self._shown: list[str] = []
        self.tournament.start()
        if isinstance(desk, Assistant):        # a resumed game's state, for the director
            self.tournament.confirmed(self.journal, desk.table.id)

    @property
    def journal(self) -> Journal:
        return self.games.journal

    # --- assembling -------------------------------------------------------------------------

    @property
    def source(self) -> str:
        """The camera source of this run: ``--camera``'s, else ``[camera] source``."""
        return self.chosen or self.config.values["camera"]["source"]

    def _camera(self) -> Any:
        from hardware.camera import default_source, open_camera
        from tabletop.assembly.simcamera import PREFIX, SimTable, register

        register()
        source, named = self.source, "--camera" if self.chosen else "camera.source"
        if source == OFF:
            if not self.on_screen:
                raise ConfigError(f"{named} = {OFF!r}: without a camera the tiles are "
                                  f"tapped in on the touchscreen: run where there is a display, "
                                  f"or name a camera")
            return None
        source = default_source() if source == "auto" else source
        fps = self.config.values["camera"]["fps"]
        try:
            if source.partition(":")[0] == PREFIX:
                # The app's clock paces a window's frames; headless, the table keeps time.
                return SimTable(source, fps=None if self.on_screen else fps)
            if source.startswith(RECORDED):
                return open_camera(source, fps=fps)
            return open_camera(source)
        except ValueError as error:
            raise ConfigError(f"{named} = {source!r}: {error}") from None

    def _seat_players(self) -> None:
        """At the simulated table, its players put down the tiles the game waits for."""
        from tabletop.assembly.simcamera import SimPlayers, SimTable

        if isinstance(self.camera, SimTable):
            desk = self.loop.desk
            if isinstance(desk, Assistant) and list(desk.game.geometry.labels) == \
                    list(self.camera.live.table.layout.geometry.labels):
                # A resumed game's tiles lie on the table still.
                self.camera.lay(sorted(desk.tiles | set(desk.flagged)))
            self.loop.observers.append(
                SimPlayers(self.loop, self.camera, seed=self.camera.settings["seed"]))

    def _eyes(self) -> Any:
        from calibration.calfile import load_calibration
        from calibration.recognize import Watcher

        if self.camera is None:
            return None
        path = self.data / CALIBRATION_FILE
        if path.is_file():
            return Watcher(load_calibration(path))
        from tabletop.assembly.simcamera import SimCamera, SimTable

        simulated = isinstance(self.camera, (SimCamera, SimTable))
        if simulated and not (self.on_screen and self.chosen):   # it calibrates itself
            from calibration.calibrate import calibrate

            image, corners = self.camera.calibration_view()
            return Watcher(calibrate(image, corners, self.camera.settings["rules"]))
        if self.on_screen:       # the touchscreen leads the table through it
            if simulated:
                self.out(f"no calibration at {path}: calibrate the camera on the touchscreen: "
                         f"tap the centres of the four corner cells, then Save")
            else:                # said once the camera is found (camera_off): none, none to do
                self._uncalibrated = path
            return None
        raise ConfigError(f"no calibration at {path}: photograph the empty board and run "
                          f"`tabletop calibrate --image PHOTO --corners ... --out {path}`")

    def _recording(self, folder: Path, eyes: Any) -> Any:
        """The eyes, with a recorder told of their frames and decisions (``--record``)."""
        from calibration.recording import Recorder, RecordingEyes, RecordingError, notice

        if eyes is None:
            raise ConfigError(f"--record {folder}: recording needs the camera and its "
                              f"calibration")
        camera = self.config.values["camera"]
        try:
            self.recorder = Recorder(folder, eyes.calibration,
                                     table=self.config.values["table"]["name"],
                                     source=str(self.source), fps=camera["fps"])
        except RecordingError as error:
            raise ConfigError(str(error)) from None
        self.out(notice(folder))
        return RecordingEyes(eyes, self.recorder)

    def _confirmed(self, what: str, events: list[dict]) -> None:
        """A confirmed action: said (a tile founding a chain is said with the chain chosen,
        a holder keeping every share not at all), and each placement told to the recorder."""
        desk = self.loop.desk           # actions are confirmed once the table runs
        if not (isinstance(desk, Assistant) and folded(desk.game, events)):
            self.out(f"confirmed: {what}")
        if isinstance(desk, Assistant):
            self.tournament.confirmed(self.journal, desk.table.id)
        if self.recorder is None:
            return
        board = sorted(desk.tiles) if isinstance(desk, Assistant) else None
        for event in events:
            if event.get("event") == "placed":
                self.recorder.confirmed(event["tile"], board=board)

    def _controls(self) -> Any:
        from hardware.controls import ControlsUnavailable, open_controls

        settings = self.config.values["controls"]
        kind = None if settings["kind"] == "auto" else settings["kind"]
        try:   # each backend reads only the settings its registry entry declares
            controls = open_controls(kind, hold_time=settings["hold_time"],
                                     pins=settings["pins"] or None,
                                     url=self.config.values["panel"]["url"] or None)
        except ControlsUnavailable as error:
            raise ConfigError(f"controls.kind = {settings['kind']!r}: {error}") from None
        return controls

    def _speaker(self) -> Any:
        """The speaker (``[sound]``): cues beside the buzzer's beeps, and words if asked."""
        from hardware.sound import open_speaker

        sound = self.config.values["sound"]
        kind = "off" if not (sound["cues"] or sound["speak"]) else \
            None if sound["kind"] == "auto" else sound["kind"]
        return open_speaker(kind, speak=sound["speak"], device=sound["device"] or None,
                            language=self.config.values["screen"]["language"])

    def _desk(self, players: list[str] | None, new: bool) -> Desk | None:
        name = self.config.values["table"]["name"]
        unfinished = self.games.unfinished()
        if self.games.refusal is not None:
            if self.on_screen:       # the setup screen says why Start is refused
                return None
            raise ConfigError(self.games.refusal)
        if unfinished and not new:
            info = unfinished[-1]
            assistant = self.games.resume(info.id)
            game = assistant.game
            self.out(f"resuming game {info.id} of {name} ({game_title(game.rules, game.options)}; "
                     f"{', '.join(game.names)}) after {confirmed(len(game.history))}")
            return assistant
        table_settings = self.config.values["table"]
        players = players or table_settings["players"]
        rules = load_rules(table_settings["rules"])
        if not players and self.on_screen:
            return None
        if len(players) < rules.min_players:
            raise ConfigError(f"a new game of {rules.title} needs {rules.min_players} or more "
                              f"players: give --players Ann,Bob,Cy or [table] players")
        place = self.tournament.place
        if place is not None and place.round is None:   # never a tournament game without its seat
            if self.on_screen:
                self.out(f"{TOURNAMENT}{place.tournament}: no round given (--round N, or "
                         f"[tournament] round): choose it on the setup screen")
                return None
            raise ConfigError(f"a new game for {place.tournament} needs its round: give "
                              f"--round N (or set [tournament] round)")
        seating = Seating(rules, players, table_settings["options"],   # names checked first
                          profile=table_profile(self.config), seat=self.tournament.seat())
        self.out(f"new game of {game_title(rules, seating.options)} at {name}: "
                 f"{', '.join(seating.players)}{_for(seating)}")
        return seating

    def new_game(self, rules: str, players: list[str], options: dict) -> None:
        """A game set up on the screen: seat the players; the turn-order draw comes next
        (TabletopError, shown on the setup screen, where no game may be played)."""
        self.games.check_playable()
        seating = Seating(rules, players, options,       # the names are checked first
                          profile=table_profile(self.config), seat=self.tournament.seat())
        self.out(f"new game of {game_title(seating.rules, seating.options)}: "
                 f"{', '.join(seating.players)}{_for(seating)}")
        self.loop.desk, self.loop.start = seating, self._start

    def _start(self, seating: Seating) -> Assistant:
        assistant = self.games.start(seating)
        self.out(f"game {assistant.table.id} started: {seating.prompt.message}")
        return assistant

    # --- running ----------------------------------------------------------------------------

    def run(self) -> int:
        """Read frames and buttons until stopped; every confirmed action is already journaled."""
        previous = signal.signal(signal.SIGTERM, _stop)
        ended = False
        try:
            with self.camera:
                while True:
                    tick = self.loop.tick(wait=0.02)
                    if self.camera.hopeless is not None:
                        self.out(f"tabletop: {self.camera.hopeless}: ending for a new start "
                                 f"(exit {RESTART}); every confirmed action is in the journal")
                        return RESTART
                    if self.camera.ended and not ended:
                        ended = True
                        self.out(f"camera: {self.camera.status.message}; buttons only from now")
                    if tick.changed:
                        self._show()
                    if not tick.frame and self.camera.ended:
                        time.sleep(0.02)
        except KeyboardInterrupt:
            self.out(self._stopped())
        finally:
            signal.signal(signal.SIGTERM, previous)
            self.close()
        return 0

    def run_app(self) -> int:
        """The same table on the touchscreen app (the app's clock steps the loop)."""
        prepare_window(self.config)
        backlight = self._backlight()
        try:
            with self.camera if self.camera is not None else contextlib.nullcontext():
                app = self.make_app(idle=self._dimmer(backlight))
                app.run()
        finally:
            backlight.close()       # lit again for whatever comes after the app
            self.close()
        if app.exit_code:
            self.out(f"tabletop: {self.camera.hopeless}: ending for a new start "
                     f"(exit {app.exit_code}); every confirmed action is in the journal")
        else:                    # Esc, or the window closed: the terminal says what was kept
            self.out(self._stopped())
        return app.exit_code

    def _stopped(self) -> str:
        """The last line of a run: what became of the game on the table."""
        desk = self.loop.desk
        if not isinstance(desk, Assistant):
            return "stopped before a game started: nothing was recorded"
        if desk.game.over:
            return (f"stopped: game {desk.table.id} is over and in the journal "
                    f"(`tabletop games` lists it)")
        return (f"stopped: every confirmed action is in the journal; `tabletop run` resumes "
                f"game {desk.table.id} where it was")

    def make_app(self, idle: Any = None) -> Any:
        """The touchscreen app over this table (its camera opened first: :meth:`camera_off`
        says whether it was found); ``idle`` dims the panel between games."""
        from ui.app import TableApp

        values = self.config.values
        return TableApp(loop=self.loop, language=values["screen"]["language"],
                        fps=values["camera"]["fps"], new_game=self.new_game,
                        services=self.services, camera=self.camera,
                        camera_off=self.camera_off(), calibrated=self.loop.eyes is not None,
                        announce=self.announce, idle=idle,
                        profile=table_profile(self.config), fingerprint=self._fingerprint(),
                        tournament=self.tournament.place)

    def _fingerprint(self) -> str:
        """The table key's fingerprint for the setup screen ("" if the key cannot be read)."""
        from tabletop.journal.slip import table_fingerprint

        try:
            return table_fingerprint(self.data)
        except (TabletopError, OSError) as error:
            self.out(f"tabletop: {error}")
            return ""

    def _backlight(self) -> Any:
        """The panel's light (``[backlight] kind``); a fault is said and the light left alone."""
        from hardware.backlight import open_backlight

        backlight = open_backlight(self.config.values["backlight"]["kind"])
        if backlight.status.state == "fault":
            self.out(f"backlight: {backlight.status.message}")
        return backlight

    def _dimmer(self, backlight: Any) -> Any:
        from hardware.idle import IdleDimmer

        return IdleDimmer(backlight, after=self.config.values["backlight"]["dim_after"])

    def camera_off(self) -> str:
        """Why the table plays by taps ("" with a camera that opened), said on the log too."""
        from hardware.status import FAULT

        if self.camera is None:
            self.out("camera: none configured: tiles are tapped in on the screen")
            return Message("none configured")
        if self.camera.status.state == FAULT:
            fault = str(self.camera.status.message).removesuffix("; retrying")
            self.out(f"{fault}: tiles are tapped in on the screen while it is tried again; "
                     f"to try the whole table without one: tabletop run --camera sim")
            return Message("not found")
        if self._uncalibrated is not None:
            self.out(f"no calibration at {self._uncalibrated}: calibrate the camera on the "
                     f"touchscreen")
        return ""

    def close(self) -> None:
        self.tournament.close()
        if self.recorder is not None:
            self.recorder.close()
        self.speaker.close()
        self.controls.close()
        self.services.close()
        self.journal.close()

    def _show(self) -> None:
        lines = screen_lines(self.loop.desk.prompt)
        if lines != self._shown:
            self._shown = lines
            for line in lines:
                self.out(f"screen: {line}")


def _for(seating: Seating) -> str:
    """`` (Spring Open, round 1, table 3)`` for a game set up for a tournament, else ""."""
    return f" ({seating.seat})" if seating.seat is not None else ""


def _in_memory(data: Path) -> Message | None:
    """Why games kept in ``data`` would be lost at power-off (the Pi's overlay), or None."""
    from hardware.storage import in_memory

    return in_memory(data)


def _stop(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def main(config: Config, players: list[str] | None, new: bool, headless: bool = False,
         screen: bool = False, wait: float = 60.0, record: Path | None = None,
         camera: str | None = None, round_number: int | None = None) -> int:
    """``tabletop run``: the touchscreen app where there is a display and Kivy, else headless
    (printing lines as they come: a log or a terminal reads them live).

    ``camera``: ``--camera``'s source, over ``[camera] source`` for this run;
    ``round_number``: ``--round``'s, over ``[tournament] round``.
    ``screen`` (the Pi's user service, started by the desktop's autostart): the
    session's ``DISPLAY``, else its sockets, waiting up to ``wait`` seconds for
    them; without one (or without Kivy) exit 1, and systemd tries again.
    """
    if screen and not headless:
        from hardware.desktop import wait_for_screen

        found = wait_for_screen(os.environ, wait)
        if found is None:
            print(f"tabletop: no desktop came up on the screen in {wait:g} s (no Wayland or X "
                  f"socket of this user): log in on the touchscreen as the user the app was "
                  f"installed for, or run with --headless",
                  file=sys.stderr)
            return 1
        os.environ.update(found)
        if not _display():
            print("tabletop: the touchscreen app needs Kivy: pip install 'tabletop[ui]'",
                  file=sys.stderr)
            return 1
    app = not headless and _display()
    if not headless and not app:
        print(f"tabletop: {_why_headless()}: what the screen would show is printed here "
              f"instead (--headless says so and this line goes)", file=sys.stderr)
    runner = Runner(config, players, new, out=lambda line: print(line, flush=True),
                    on_screen=app, record=record, camera=camera, round_number=round_number)
    code = runner.run_app() if app else runner.run()
    if code == RESTART:
        # The journal is closed. A camera stuck in its driver may hang the interpreter's own
        # exit (its libraries' handlers wait for it), and systemd would never start a new one.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(RESTART)
    return code


def prepare_window(config: Config) -> None:
    """``[screen]`` for Kivy, before its window exists (importing ``ui.app`` makes it, with
    the settings of that moment): the keyboard mode, full screen or windowed, rotation."""
    from ui.quiet import quiet_kivy

    quiet_kivy()                  # before Kivy's import: its log would take over stderr
    from kivy.config import Config as KivyConfig

    from tabletop.assembly.config import window_size
    from ui.window import configure

    screen = config.values["screen"]
    KivyConfig.set("kivy", "keyboard_mode", keyboard_mode(screen["keyboard"]))
    configure(windowed=screen["windowed"], size=window_size(screen["size"]) or (1280, 720),
              rotation=screen["rotation"])


def keyboard_mode(choice: str, plugged: Callable[[], bool] | None = None) -> str:
    """Kivy's keyboard mode for ``[screen] keyboard``: an on-screen keyboard docked at the
    bottom (a real one still types) unless ``system``, or ``auto`` with a keyboard plugged in.

    >>> keyboard_mode("on-screen"), keyboard_mode("system"), keyboard_mode("auto", lambda: True)
    ('systemanddock', 'system', 'system')
    """
    if plugged is None:
        from hardware.keyboard_detect import keyboard_plugged as plugged
    on_screen = choice == "on-screen" or (choice == "auto" and not plugged())
    return "systemanddock" if on_screen else "system"


def _why_headless() -> str:
    """Why ``tabletop run`` cannot open the app here (a display and Kivy are needed)."""
    import importlib.util
    import os

    if importlib.util.find_spec("kivy") is None:
        return ("the touchscreen app needs Kivy, not installed in this Python "
                f"({sys.prefix}): pip install -e '.[ui]' there, or run ./scripts/test once")
    return "no display (neither DISPLAY nor WAYLAND_DISPLAY is set) to open the app on"


def _display() -> bool:
    import importlib.util
    import os

    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) and \
        importlib.util.find_spec("kivy") is not None
