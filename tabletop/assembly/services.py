"""The real table's services for the screens: the receipt printer, the USB stick, the power,
the calibration file and the journal's other games (the shape :class:`ui.services.Services`).

Each answers with a sentence for the screen and never raises (but ``resume``,
whose refusal the setup screen shows): a printer unplugged, a stick full or
pulled out, a power-off refused are said, and change nothing confirmed.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tabletop.assembly.config import Config
from tabletop.errors import TabletopError
from tabletop.messages import Message, message_of
from tabletop.journal.journal import GameInfo, Journal
from tabletop.table.assistant import Assistant
from tabletop.table.games import TableGames
from tabletop.table.loop import TableLoop

CALIBRATION_FILE = "calibration.json"
#: Where a desktop mounts USB sticks (Raspberry Pi OS: /media/USER/LABEL).
USB_ROOTS = ("/media", "/run/media")
#: The folder an export makes on the stick: the files go there, never to the stick's top.
EXPORT_FOLDER = "tabletop-exports"


def game_title(rules: Any, options: Mapping[str, Any]) -> str:
    """The game played, ``Acquire, Classic mode``: the rule set's title names every mode and
    variant it has (``Acquire (Classic and Tycoon modes, ...)``), not the one at this table.

    Options set away from the rule set's defaults follow, ``(end_size=30)``.
    """
    played = rules.resolve_options(options)
    changed = [f"{name}={_shown(value)}" for name, value in played.items()
               if name != "bonus_mode" and value != rules.options[name].default]
    title = f"{rules.title.partition(' (')[0]}, {str(played['bonus_mode']).capitalize()} mode"
    return title + (f" ({', '.join(changed)})" if changed else "")


def _shown(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def confirmed(count: int) -> str:
    """
    >>> confirmed(1), confirmed(40)
    ('1 confirmed action', '40 confirmed actions')
    """
    return f"{count} confirmed action" + ("" if count == 1 else "s")


class TableServices:
    """The services of the table that ``games`` records and ``loop`` runs."""

    def __init__(self, config: Config, games: TableGames, loop: TableLoop,
                 out: Callable[[str], None] = print,
                 power_off: Sequence[str] | None = None,
                 clock: Callable[[], bool | None] | None = None) -> None:
        self.config, self.games, self.loop, self.out = config, games, loop, out
        #: Whether the clock is synchronised (None: cannot say), for the slip's times.
        self.clock = clock or _clock_synchronised
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
        self.out(f"resuming game {game_id} ({game_title(assistant.game.rules, assistant.game.options)}) "
                 f"after {confirmed(len(assistant.game.history))}")
        self.loop.desk, self.loop.start = assistant, None
        self.loop.look_again()  # the camera's next still board is compared with the game's

    # --- the calibration -------------------------------------------------------------------

    def save_calibration(self, calibration: Any) -> Message:
        """Keep a calibration made on the screen: the file in the data folder, and the eyes."""
        from calibration.recognize import Watcher

        try:
            path = calibration.save(self.data / CALIBRATION_FILE)
        except (OSError, TabletopError) as error:
            return Message("not saved: {message}",
                           message=getattr(error, "strerror", None) or message_of(error))
        self.loop.eyes = Watcher(calibration)
        self.loop.look_again()
        return Message("saved to {path}", path=str(path))

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

    def print_slip(self) -> Message:
        """Print the finished game's signed score slip; what happened, for the screen."""
        from tabletop.journal.slip import make_slip, qr_payload, slip_text, table_signing_key

        printer = self._printer()
        if printer is None:
            return Message("no receipt printer is configured ([printer] url)")
        desk = self.loop.desk
        if not isinstance(desk, Assistant) or desk.game.pending is not None:
            return Message("the slip is made when the game is over")
        try:
            slip = make_slip(self.journal, desk.table.id, table_signing_key(self.data),
                             clock_synchronised=self.clock())
            text = slip_text(slip, self.config.values["printer"]["columns"])
        except (TabletopError, ValueError) as error:
            return Message("the slip cannot be made: {message}", message=message_of(error))
        try:        # the QR code is the signed slip itself: `tabletop verify` reads it back
            self.last_job = printer.print_slip(text, qr=qr_payload(slip))
        except ValueError as error:
            return Message("the slip cannot be made: {message}", message=message_of(error))
        return Message("printing the score slip")

    def _printer(self) -> Any:
        if not self._printer_made:
            self._printer_made = True
            settings = self.config.values["printer"]
            if settings["url"]:
                from hardware.printer import ReceiptPrinter

                self._receipt = ReceiptPrinter(settings["url"], settings["baudrate"],
                                               settings["columns"], cjk=settings["cjk"] or None,
                                               qr=settings["qr"])
        return self._receipt

    # --- the USB stick ---------------------------------------------------------------------

    def export(self, roots: tuple[str, ...] = USB_ROOTS,
               mounted: Callable[[Path], bool] = os.path.ismount) -> Message:
        """Write the game (jsonl, json, csv) to a plugged-in USB stick; what happened.

        The files go into the stick's own ``tabletop-exports`` folder, made new
        where missing, and nothing on the stick is followed or overwritten (a
        stick may hold links named like the files, pointing at the journal).
        Of several sticks, the first writable one by name is written, and named.
        """
        from tabletop.journal.export import export_game

        stick = usb_stick(roots, mounted)
        if stick is None:
            return Message("no USB stick found: plug one in and try again")
        game_id = self.game_id
        if game_id is None:
            return Message("no game to export")
        try:
            files = {form: export_game(self.journal, game_id, form)
                     for form in ("jsonl", "json", "csv")}
        except TabletopError as error:
            return Message("the game could not be exported: {message}", message=message_of(error))
        try:
            folder = write_to_stick(stick, f"tabletop-game-{game_id}", files)
        except OSError as error:        # a full or read-only stick, or one pulled out
            return Message("the game could not be written to {stick}: {message}", stick=str(stick),
                           message=self._stick_trouble(error))
        return Message("game {game} written to {stick} ({folder})", game=game_id, stick=stick.name,
                       folder=str(folder))

    def _stick_trouble(self, error: OSError) -> str:
        """What an error writing the stick means for the player (else the system's words)."""
        said = {(errno.ENOSPC, errno.EDQUOT):
                lambda: Message("the stick is full; make room on it or use another stick"),
                (errno.EROFS, errno.EACCES, errno.EPERM):
                lambda: Message("the stick is read-only or locked; unlock it or use another stick"),
                (errno.EIO, errno.ENODEV, errno.ENXIO, errno.ENOENT):
                lambda: Message("the stick was pulled out or failed; plug it in and try again"),
                (errno.ELOOP, errno.ENOTDIR):
                lambda: Message("{folder} on the stick is a link or a file, not a folder; "
                                "remove it or use another stick", folder=EXPORT_FOLDER),
                (errno.EEXIST,):
                lambda: Message("the stick holds too many exports of this game; remove some or "
                                "use another stick")}
        return next((made() for codes, made in said.items() if error.errno in codes),
                    error.strerror or str(error))

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
                return Message("{message}; the journal did not open again: {error}",
                               message=status.message, error=message_of(error))
        return status.message

    def close(self) -> None:
        if self._receipt is not None:
            self._receipt.close()


def _clock_synchronised() -> bool | None:
    from hardware.clock import synchronised

    return synchronised()


def usb_stick(roots: tuple[str, ...] = USB_ROOTS,
              mounted: Callable[[Path], bool] = os.path.ismount,
              user: str | None = None) -> Path | None:
    """The USB stick to write, mounted under ``roots`` (``/media/USER/LABEL``), or None.

    The desktop mounts a stick in its user's own folder, which only that user may enter
    (an ACL): the app runs as that user, and looks there first. Of several, the first
    writable one by name; else the first one (a read-only stick is still a stick: writing
    it says that it is read-only, not that none is there).
    """
    own = user if user is not None else _user_name()
    sticks = [folder for root in map(Path, roots) if root.is_dir()
              for folder in _mount_points(root, own) if mounted(folder)]
    writable = [stick for stick in sticks if os.access(stick, os.W_OK)]
    return (writable or sticks or [None])[0]


def _mount_points(root: Path, own: str) -> list[Path]:
    """The folders a stick may be mounted on: the user's own first, then the others a user
    may enter, then the root's own entries (a system that mounts at ``/media/LABEL``)."""
    users = sorted((folder for folder in _entries(root) if folder.is_dir()),
                   key=lambda folder: (folder.name != own, folder.name))
    inside = [stick for folder in users if os.access(folder, os.R_OK | os.X_OK)
              for stick in _entries(folder) if stick.is_dir()]
    return inside + sorted(users)


def _entries(folder: Path) -> list[Path]:
    """What ``folder`` holds, by name; nothing where it cannot be read (another user's)."""
    try:
        return sorted(folder.iterdir())
    except OSError:
        return []


def _user_name() -> str:
    import pwd

    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return ""


#: Opening anything on a stick: never through a link (a stick may hold links to our files).
_NO_LINK = os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_A_FOLDER = os.O_RDONLY | os.O_DIRECTORY | _NO_LINK
#: How many exports of one game a folder may hold: tabletop-game-3, tabletop-game-3-2, ...
MAX_COPIES = 99


def write_to_stick(stick: Path, name: str, files: dict[str, str]) -> Path:
    """Write ``files`` (suffix: text) as ``name.suffix`` in the stick's :data:`EXPORT_FOLDER`
    (made where missing); the folder written. OSError when not written, none of it left.

    Every file is new (``O_EXCL``), made in the folder by its descriptor and never through
    a link: when a name is taken (a file, a folder, a link), all go under ``name-2``,
    ``name-3``... The files and the folders are fsynced before the stick is said written.
    """
    top = os.open(stick, _A_FOLDER)
    try:
        try:
            os.mkdir(EXPORT_FOLDER, 0o755, dir_fd=top)
        except FileExistsError:
            pass                    # an earlier export's, or planted: opened without following
        folder = os.open(EXPORT_FOLDER, _A_FOLDER, dir_fd=top)
        try:
            _write_new_files(folder, name, files)
            _sync_folder(folder)
        finally:
            os.close(folder)
        _sync_folder(top)
    finally:
        os.close(top)
    return stick / EXPORT_FOLDER


def _write_new_files(folder: int, name: str, files: dict[str, str]) -> None:
    """The files under the first ``name``/``name-N`` none of whose files exists yet."""
    for copy in range(1, MAX_COPIES + 1):
        stem = name if copy == 1 else f"{name}-{copy}"
        made: list[str] = []
        try:
            for suffix, text in files.items():
                made.append(_write_new_file(folder, f"{stem}.{suffix}", text))
            return
        except FileExistsError:
            _remove(folder, made)   # this copy's name is taken: all three take the next one
        except BaseException:
            _remove(folder, made)
            raise
    raise FileExistsError(errno.EEXIST, f"{MAX_COPIES} exports of this game already")


def _write_new_file(folder: int, filename: str, text: str) -> str:
    """Create ``filename`` in ``folder`` (never an existing one, nor through a link)."""
    fd = os.open(filename, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NO_LINK, 0o644, dir_fd=folder)
    try:
        data = memoryview(text.encode("utf-8"))
        while data:
            data = data[os.write(fd, data):]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        _remove(folder, [filename])
        raise
    os.close(fd)
    return filename


def _remove(folder: int, filenames: list[str]) -> None:
    """Take back what this export made (a stick pulled out lets nothing be removed)."""
    for filename in filenames:
        try:
            os.unlink(filename, dir_fd=folder)
        except OSError:
            pass


def _sync_folder(fd: int) -> None:
    try:
        os.fsync(fd)
    except OSError as error:
        if error.errno != errno.EINVAL:     # a file system that cannot sync a folder
            raise
