"""``tabletop run``: the real table, assembled from the configuration.

The camera (``[camera] source``), its calibration (``calibration.json`` in the
data folder), the buttons (``[controls]``) and the journal (``journal.db``
in the data folder) are joined by the :class:`~tabletop.tableloop.TableLoop`.
An unfinished game of this table is resumed at its last confirmed action,
else a new one is set up with ``[table] players`` (or ``--players``). Until
the touchscreen app lands it runs headless: it prints what the screen would
show (the prompt, faults, the differences between the board and the game)
and every confirmed action.

Part of the composition root: calibration and hardware are imported here,
lazily, never by the engine.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from tabletop.assistant import Assistant
from tabletop.config import Config, ConfigError
from tabletop.errors import TabletopError
from tabletop.journal import Journal, Table
from tabletop.prompts import screen_lines
from tabletop.ruleset import load_rules
from tabletop.seating import Seating
from tabletop.tableloop import TableLoop

CALIBRATION_FILE = "calibration.json"
#: Where a desktop mounts USB sticks (Raspberry Pi OS: /media/USER/LABEL).
USB_ROOTS = ("/media", "/run/media")
JOURNAL_FILE = "journal.db"
RECORDED = ("dir:", "file:", "sim")


class Runner:
    """One table, run from its configuration until stopped (Ctrl-C, SIGTERM)."""

    #: What powers the Pi off once the game is saved (None: the Pi's own; a test's stand-in).
    power_off: Sequence[str] | None = None

    def __init__(self, config: Config, players: list[str] | None = None, new: bool = False,
                 out: Callable[[str], None] = print, setup_on_screen: bool = False) -> None:
        #: With the touchscreen, a new game without configured seats is set up there.
        self.setup_on_screen = setup_on_screen
        self.config = config
        self.out = out
        self.data = config.data_dir
        self.data.mkdir(parents=True, exist_ok=True)
        table = config.values["table"]
        self.journal = Journal.open(self.data / JOURNAL_FILE, table_name=table["name"])
        for message in self.journal.report.messages:
            self.out(f"journal: {message}")
        try:
            self.camera = self._camera()
            self.eyes = self._eyes()
            self.controls = self._controls()
            self.desk = self._desk(players, new)
        except BaseException:
            self.journal.close()
            raise
        self.loop = TableLoop(self.desk, self.camera, self.eyes, start=self._start)
        self._shown: list[str] = []
        self._light, self._proposal, self._flagged = "", None, set()

    # --- assembling -------------------------------------------------------------------------

    def _camera(self) -> Any:
        from hardware.camera import default_source, open_camera
        from tabletop.simcamera import register

        register()
        source = self.config.values["camera"]["source"]
        source = default_source() if source == "auto" else source
        try:
            if source.startswith(RECORDED):
                return open_camera(source, fps=self.config.values["camera"]["fps"])
            return open_camera(source)
        except ValueError as error:
            raise ConfigError(f"camera.source = {source!r}: {error}") from None

    def _eyes(self) -> Any:
        from calibration.calfile import load_calibration
        from calibration.recognize import Watcher

        path = self.data / CALIBRATION_FILE
        if path.is_file():
            return Watcher(load_calibration(path))
        if hasattr(self.camera, "calibration_view"):     # the simulated table calibrates itself
            from calibration.calibrate import calibrate

            image, corners = self.camera.calibration_view()
            return Watcher(calibrate(image, corners, self.camera.settings["rules"]))
        raise ConfigError(f"no calibration at {path}: photograph the empty board and run "
                          f"`tabletop calibrate --image PHOTO --corners ... --out {path}`")

    def _controls(self) -> Any:
        from hardware.controls import BACKENDS, ControlsUnavailable, _accepted, open_controls

        settings = self.config.values["controls"]
        kind = None if settings["kind"] == "auto" else settings["kind"]
        options: dict[str, Any] = {"hold_time": settings["hold_time"]}
        if settings["pins"]:
            options["pins"] = settings["pins"]
        if kind == "panel":
            options = {"url": self.config.values["panel"]["url"] or None}
        elif kind is not None:
            options = _accepted(BACKENDS[kind], options)   # the mock has no pins to hold
        try:
            return open_controls(kind, **options)
        except ControlsUnavailable as error:
            raise ConfigError(f"controls.kind = {settings['kind']!r}: {error}") from None

    def _desk(self, players: list[str] | None, new: bool) -> Any:
        name = self.config.values["table"]["name"]
        unfinished = [g for g in self.journal.games() if g.finished is None and g.table == name]
        if unfinished and not new:
            info = unfinished[-1]
            table = self.journal.resume(info.id)
            game = table.game
            self.out(f"resuming game {info.id} of {name} ({game.rules.title}; "
                     f"{', '.join(game.names)}) after {len(game.history)} confirmed actions")
            return self._assistant(table)
        table_settings = self.config.values["table"]
        players = players or table_settings["players"]
        rules = load_rules(table_settings["rules"])
        if not players and self.setup_on_screen:
            return None
        if len(players) < rules.min_players:
            raise ConfigError(f"a new game of {rules.title} needs {rules.min_players} or more "
                              f"players: give --players Ann,Bob,Cy or [table] players")
        self.out(f"new game of {rules.title} at {name}: {', '.join(players)}")
        return Seating(rules, players, table_settings["options"])

    def new_game(self, rules: str, players: list[str], options: dict) -> None:
        """A game set up on the screen: seat the players; the turn-order draw comes next."""
        self.out(f"new game of {load_rules(rules).title}: {', '.join(players)}")
        self.loop.desk = Seating(rules, players, options)
        self.loop.start = self._start

    def unfinished(self) -> list[Any]:
        """This table's unfinished games but the one on the table, newest first (GameInfo)."""
        name = self.config.values["table"]["name"]
        current = getattr(getattr(self.loop.desk, "table", None), "id", None)
        return [info for info in reversed(self.journal.games())
                if info.finished is None and info.table == name and info.id != current]

    def resume(self, game_id: int) -> None:
        """Put game ``game_id`` back on the table at its last confirmed action (the one that
        was there stays in the journal, unfinished, to be resumed in turn)."""
        table = self.journal.resume(game_id)
        self.out(f"resuming game {game_id} after {len(table.game.history)} confirmed actions")
        self.loop.desk, self.loop.start = self._assistant(table), None
        self.loop.look_again()  # the camera's next still board is compared with the game's

    def _start(self, seating: Seating) -> Assistant:
        table = self.journal.start({"setup": seating.setup})
        self.out(f"game {table.id} started: {seating.prompt.message}")
        return self._assistant(table, seating)

    def _assistant(self, table: Table, seating: Seating | None = None) -> Assistant:
        return Assistant(table, seen=seating.tiles if seating else None,
                         flagged=seating.returned if seating else {},
                         listener=lambda what, events: self.out(f"confirmed: {what}"))

    # --- running ----------------------------------------------------------------------------

    def run(self) -> int:
        """Read frames and buttons until stopped; every confirmed action is already journaled."""
        previous = signal.signal(signal.SIGTERM, _stop)
        ended = False
        try:
            with self.camera:
                while True:
                    got = self.loop.step()
                    event = self.controls.events(timeout=0 if got else 0.02)
                    if event is not None and event.kind == "press":
                        self.loop.press(event.button.lower())
                    self._signal()
                    if self.camera.ended and not ended:
                        ended = True
                        self.out(f"camera: {self.camera.status.message}; buttons only from now")
                    self._show()
                    if not got and self.camera.ended:
                        time.sleep(0.02)
        except KeyboardInterrupt:
            self.out("stopped: every confirmed action is in the journal")
        finally:
            signal.signal(signal.SIGTERM, previous)
            self.close()
        return 0

    def _signal(self) -> None:
        """The light and the buzzer: a fault is off, something to confirm or take off blinks;
        a short beep for a new proposal, a long one for a tile refused."""
        prompt = self.loop.desk.prompt
        asked = prompt.chosen is not None and prompt.chosen.action is not None
        light = "fault" if prompt.banner else "waiting" if asked or prompt.flagged else "ready"
        if light != self._light:
            self._light = light
            self.controls.show(light)
        proposal = prompt.title if asked and prompt.kind in ("place", "closing", "market") else None
        if proposal is not None and proposal != self._proposal:
            self.controls.beep("tile_seen")
        if set(prompt.flagged) - self._flagged:
            self.controls.beep("error")
        self._proposal, self._flagged = proposal, set(prompt.flagged)

    # --- what the results screen offers -------------------------------------------------------

    @property
    def game_id(self) -> int | None:
        table = getattr(self.loop.desk, "table", None)
        return getattr(table, "id", None)

    def save_calibration(self, calibration: Any) -> str:
        """Keep a calibration made on the screen: the file in the data folder, and the eyes."""
        from calibration.recognize import Watcher

        try:
            path = calibration.save(self.data / CALIBRATION_FILE)
        except (OSError, TabletopError) as error:
            return f"not saved: {getattr(error, 'strerror', None) or error}"
        self.eyes = self.loop.eyes = Watcher(calibration)
        self.loop.look_again()
        return f"saved to {path}"

    def printer_status(self) -> Any:
        """The receipt printer's status (None without one configured), for the screen's banner."""
        printer = self._printer()
        return None if printer is None else printer.status

    def printer_banner(self) -> str:
        """What the table screen's banner says of the printer: a fault, or a slip held up
        (out of paper); nothing while it is ready or idle."""
        printer = self._printer()
        if printer is None:
            return ""
        status = printer.status
        return status.message if status.state == "fault" or printer.pending else ""

    def print_slip(self) -> str:
        """Print the finished game's signed score slip; what happened, for the screen."""
        from tabletop.slip import make_slip, slip_text, table_key

        printer = self._printer()
        if printer is None:
            return "no receipt printer is configured ([printer] url)"
        if self.game_id is None or self.loop.desk.game.pending is not None:
            return "the slip is made when the game is over"
        try:
            slip = make_slip(self.journal, self.game_id, table_key(self.data))
            text = slip_text(slip, self.config.values["printer"]["columns"])
        except (TabletopError, ValueError) as error:
            return f"the slip cannot be made: {error}"
        self.last_job = printer.print_slip(text)
        return "printing the score slip"

    def export(self, roots: tuple[str, ...] = USB_ROOTS,
               mounted: Callable[[Path], bool] = os.path.ismount) -> str:
        """Write the game (jsonl, json, csv) to a plugged-in USB stick; what happened."""
        from tabletop.export import export_game

        stick = usb_stick(roots, mounted)
        if stick is None:
            return "no USB stick found: plug one in and try again"
        if self.game_id is None:
            return "no game to export"
        try:
            files = {form: export_game(self.journal, self.game_id, form)
                     for form in ("jsonl", "json", "csv")}
            for form, content in files.items():
                (stick / f"tabletop-game-{self.game_id}.{form}").write_text(content, encoding="utf-8")
        except TabletopError as error:
            return f"the game could not be exported: {error}"
        except OSError as error:        # a full or read-only stick, or one pulled out
            return f"the game could not be written to {stick}: {error.strerror or error}"
        return f"game {self.game_id} written to {stick}"

    def shutdown(self) -> str:
        """Close the journal, sync, power the Pi off (the menu asks first).

        Should the power stay on (the power-off refused), the journal is opened
        again and the game goes on where it was: the table is never left with a
        screen that can no longer record.
        """
        from hardware.power import POWER_OFF, safe_shutdown

        status = safe_shutdown(self.journal.close, command=self.power_off or POWER_OFF)
        if status.state != "ready" and self.journal.closed:
            journal = self.journal
            try:
                self.journal = Journal.open(journal.path, table_name=journal.table_name,
                                            log_path=journal.log_path)
                if self.game_id is not None:
                    self.loop.desk.table = self.journal.resume(self.game_id)
            except TabletopError as error:
                return f"{status.message}; the journal did not open again: {error}"
        return status.message

    def _printer(self) -> Any:
        if not hasattr(self, "_receipt"):
            settings = self.config.values["printer"]
            self._receipt = None
            if settings["url"]:
                from hardware.printer import ReceiptPrinter

                self._receipt = ReceiptPrinter(settings["url"], settings["baudrate"],
                                               settings["columns"])
        return self._receipt

    def run_app(self) -> int:
        """The same table on the touchscreen app (the app's clock steps the loop)."""
        from kivy.config import Config

        # Before the window exists: the keyboard mode is read when it is made.
        Config.set("kivy", "keyboard_mode", keyboard_mode(self.config.values["screen"]["keyboard"]))
        from ui.app import TableApp

        language = self.config.values["screen"]["language"]
        fps = self.config.values["camera"]["fps"]
        try:
            with self.camera:
                TableApp(loop=self.loop, controls=self.controls, language=language,
                         fps=fps, new_game=self.new_game, services=self,
                         camera=self.camera).run()
        finally:
            self.close()
        return 0

    def close(self) -> None:
        self.controls.close()
        if getattr(self, "_receipt", None) is not None:
            self._receipt.close()
        self.journal.close()

    def _show(self) -> None:
        lines = screen_lines(self.loop.desk.prompt)
        if lines != self._shown:
            self._shown = lines
            for line in lines:
                self.out(f"screen: {line}")


def _stop(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def main(config: Config, players: list[str] | None, new: bool, headless: bool = False,
         screen: bool = False, wait: float = 60.0) -> int:
    """``tabletop run``: the touchscreen app where there is a display and Kivy, else headless
    (printing lines as they come: a log or a terminal reads them live).

    ``screen`` (the Pi's service, started before anyone's desktop): find the
    desktop logged in on the screen, waiting up to ``wait`` seconds for it;
    without one (or without Kivy) exit 1, and systemd tries again.
    """
    if screen and not headless:
        import sys

        from hardware.screen import wait_for_screen

        found = wait_for_screen(os.environ, wait)
        if found is None:
            print(f"tabletop: no desktop came up on the screen in {wait:g} s (no Wayland or X "
                  f"socket of this user): log in on the touchscreen, or run with --headless",
                  file=sys.stderr)
            return 1
        os.environ.update(found)
        if not _display():
            print("tabletop: the touchscreen app needs Kivy: pip install 'tabletop[ui]'",
                  file=sys.stderr)
            return 1
    app = not headless and _display()
    runner = Runner(config, players, new, out=lambda line: print(line, flush=True),
                    setup_on_screen=app)
    return runner.run_app() if app else runner.run()


def keyboard_mode(choice: str, plugged: Callable[[], bool] | None = None) -> str:
    """Kivy's keyboard mode for ``[screen] keyboard``: an on-screen keyboard docked at the
    bottom (a real one still types) unless ``system``, or ``auto`` with a keyboard plugged in.

    >>> keyboard_mode("on-screen"), keyboard_mode("system"), keyboard_mode("auto", lambda: True)
    ('systemanddock', 'system', 'system')
    """
    if plugged is None:
        from hardware.keyboard import keyboard_plugged as plugged
    on_screen = choice == "on-screen" or (choice == "auto" and not plugged())
    return "systemanddock" if on_screen else "system"


def _display() -> bool:
    import importlib.util
    import os

    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) and \
        importlib.util.find_spec("kivy") is not None


def usb_stick(roots: tuple[str, ...] = USB_ROOTS,
              mounted: Callable[[Path], bool] = os.path.ismount) -> Path | None:
    """A writable USB stick mounted under ``roots`` (``/media/USER/LABEL``), or None."""
    for root in map(Path, roots):
        if not root.is_dir():
            continue
        for folder in sorted(root.glob("*/*")) + sorted(root.glob("*")):
            if folder.is_dir() and mounted(folder) and os.access(folder, os.W_OK):
                return folder
    return None
