"""The real table's services for the screens: the receipt printer, the USB stick, the power,
the calibration file and the journal's other games (the shape :class:`ui.services.Services`).

Each answers with a sentence for the screen and never raises (but ``resume``,
whose refusal the setup screen shows): a printer unplugged, a stick full or
pulled out, a power-off refused are said, and change nothing confirmed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tabletop.assembly.config import Config
from tabletop.errors import TabletopError
from tabletop.journal.journal import GameInfo, Journal
from tabletop.table.assistant import Assistant
from tabletop.table.games import TableGames
from tabletop.table.loop import TableLoop

CALIBRATION_FILE = "calibration.json"
#: Where a desktop mounts USB sticks (Raspberry Pi OS: /media/USER/LABEL).
USB_ROOTS = ("/media", "/run/media")


class TableServices:
    """The services of the table that ``games`` records and ``loop`` runs."""

    def __init__(self, config: Config, games: TableGames, loop: TableLoop,
                 out: Callable[[str], None] = print,
                 power_off: Sequence[str] | None = None) -> None:
        self.config, self.games, self.loop, self.out = config, games, loop, out
        #: What powers the Pi off once the game is saved (None: the Pi's own; a test's stand-in).
        self.power_off = power_off
        self.data = config.data_dir
        self._receipt: Any = None
        self._printer_made = False
        self.last_job: Any = None

    @property
    def journal(self) -> Journal:
        return self.games.journal

    @property
    def game_id(self) -> int | None:
        """The game on the table (None before the turn-order draw is done)."""
        desk = self.loop.desk
        return desk.table.id if isinstance(desk, Assistant) else None

    # --- the journal's games ---------------------------------------------------------------

    def unfinished(self) -> list[GameInfo]:
        """This table's unfinished games but the one on the table, newest first."""
        return list(reversed(self.games.unfinished(but=self.game_id)))

    def resume(self, game_id: int) -> None:
        """Put game ``game_id`` back on the table at its last confirmed action (the one that
        was there stays in the journal, unfinished, to be resumed in turn)."""
        assistant = self.games.resume(game_id)
        self.out(f"resuming game {game_id} after {len(assistant.game.history)} confirmed actions")
        self.loop.desk, self.loop.start = assistant, None
        self.loop.look_again()  # the camera's next still board is compared with the game's

    # --- the calibration -------------------------------------------------------------------

    def save_calibration(self, calibration: Any) -> str:
        """Keep a calibration made on the screen: the file in the data folder, and the eyes."""
        from calibration.recognize import Watcher

        try:
            path = calibration.save(self.data / CALIBRATION_FILE)
        except (OSError, TabletopError) as error:
            return f"not saved: {getattr(error, 'strerror', None) or error}"
        self.loop.eyes = Watcher(calibration)
        self.loop.look_again()
        return f"saved to {path}"

    # --- the printer -----------------------------------------------------------------------

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
        from tabletop.journal.slip import make_slip, slip_text, table_key

        printer = self._printer()
        if printer is None:
            return "no receipt printer is configured ([printer] url)"
        desk = self.loop.desk
        if not isinstance(desk, Assistant) or desk.game.pending is not None:
            return "the slip is made when the game is over"
        try:
            slip = make_slip(self.journal, desk.table.id, table_key(self.data))
            text = slip_text(slip, self.config.values["printer"]["columns"])
        except (TabletopError, ValueError) as error:
            return f"the slip cannot be made: {error}"
        self.last_job = printer.print_slip(text)
        return "printing the score slip"

    def _printer(self) -> Any:
        if not self._printer_made:
            self._printer_made = True
            settings = self.config.values["printer"]
            if settings["url"]:
                from hardware.printer import ReceiptPrinter

                self._receipt = ReceiptPrinter(settings["url"], settings["baudrate"],
                                               settings["columns"])
        return self._receipt

    # --- the USB stick ---------------------------------------------------------------------

    def export(self, roots: tuple[str, ...] = USB_ROOTS,
               mounted: Callable[[Path], bool] = os.path.ismount) -> str:
        """Write the game (jsonl, json, csv) to a plugged-in USB stick; what happened."""
        from tabletop.journal.export import export_game

        stick = usb_stick(roots, mounted)
        if stick is None:
            return "no USB stick found: plug one in and try again"
        game_id = self.game_id
        if game_id is None:
            return "no game to export"
        try:
            files = {form: export_game(self.journal, game_id, form)
                     for form in ("jsonl", "json", "csv")}
            for form, content in files.items():
                (stick / f"tabletop-game-{game_id}.{form}").write_text(content, encoding="utf-8")
        except TabletopError as error:
            return f"the game could not be exported: {error}"
        except OSError as error:        # a full or read-only stick, or one pulled out
            return f"the game could not be written to {stick}: {error.strerror or error}"
        return f"game {game_id} written to {stick}"

    # --- the power -------------------------------------------------------------------------

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
                self.games.journal = Journal.open(journal.path, table_name=journal.table_name,
                                                  log_path=journal.log_path)
                desk = self.loop.desk
                if isinstance(desk, Assistant):
                    desk.table = self.games.journal.resume(desk.table.id)
            except TabletopError as error:
                return f"{status.message}; the journal did not open again: {error}"
        return status.message

    def close(self) -> None:
        if self._receipt is not None:
            self._receipt.close()


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
