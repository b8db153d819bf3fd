"""The journal: every confirmed action of every game, kept so that none is ever lost.

>>> import tempfile, pathlib
>>> temporary = tempfile.TemporaryDirectory()
>>> folder = pathlib.Path(temporary.name)
>>> with Journal.open(folder / "journal.db", table_name="table 7") as journal:
...     table = journal.start({"setup": {"rules": "acquire", "players": ["Ann", "Bob"]}})
...     events = table.push({"do": "place", "tile": "6c"})
...     _ = table.undo()
...     _ = table.push({"do": "place", "tile": "7C"})
>>> with Journal.open(folder / "journal.db") as journal:
...     [info.id for info in journal.games()], journal.resume(1).game.history
...     journal.lines(1)[1:]
([1], [Place(player='Ann', tile='7C')])
['{"do": "place", "player": "Ann", "tile": "6C"}', '{"do": "undo"}', '{"do": "place", "player": "Ann", "tile": "7C"}']
>>> temporary.cleanup()

A game's setup and each confirmed action (``undo`` too, so the record is
complete) is checked against the live game first (an illegal action raises
and writes nothing), then appended and fsynced to the append-only copy
(``journal.log``), then committed to the SQLite database (``journal.db``, WAL,
``synchronous=FULL``); only then does :meth:`Table.push` return its events, so
an action reported as done is on the disk twice. The game is rebuilt by
replaying its lines. Opening the journal for writing checks both copies and
repairs a damaged one (:mod:`tabletop.journal.recovery`): what was written since
they were last found whole (:mod:`tabletop.journal.known_good`), or every record
with ``check_all`` (as :func:`check` does); :attr:`Journal.report` says what it
found. One program writes a journal at a time (a lock file next to the database
says which); any number may read it meanwhile (``readonly=True``).
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from tabletop.journal import files, known_good, pruning, store
from tabletop.journal import copyfile
from tabletop.engine.actions import Action, Undo, parse_action
from tabletop.engine.game import Game
from tabletop.errors import JournalError, JournalFull, JournalLocked, ScriptError
from tabletop.journal.store import Record
from tabletop.messages import Message
from tabletop.journal.recovery import RecoveryReport, _count, inspect, recover
from tabletop.engine.table_script import game_from_setup, record_rules, replay

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: one writer is the user's to ensure
    fcntl = None

FULL_ERRNOS = {errno.ENOSPC, errno.EFBIG, getattr(errno, "EDQUOT", errno.ENOSPC)}


#: The name a new game records when the caller names no table (the configuration's default).
DEFAULT_TABLE_NAME = "table 1"


def open_for_reading(path: str | Path) -> "Journal":
    """The journal at ``path``, to read as it is: nothing is repaired, created, moved or
    written (``tabletop check --repair``, or the table opening it, repairs).

    JournalError if there is no journal at ``path``, or what is there is not one.
    """
    path = Path(path)
    if not os.path.lexists(path) and not os.path.lexists(path.with_suffix(".log")):
        raise JournalError(f"no journal at {path}: no game has been recorded there yet")
    return Journal.open(path, readonly=True)


def check(path: str | Path, repair: bool = False,
          timeout: float = 5.0) -> tuple[list[str], list[str], str]:
    """Check every record of the journal at ``path`` and that every game replays.

    Gives what was repaired, the findings (none: the journal is whole) and a summary line.
    Nothing is changed unless ``repair``: then the journal is first opened for writing
    with every record checked (``check_all``; the table checks only what came after the
    known-good mark) and repaired as the table repairs, and checked after.
    """
    path = Path(path)
    log_path = path.with_suffix(".log")
    done: list[str] = []
    if repair:
        with Journal.open(path, timeout=timeout, check_all=True) as journal:
            done = [f"repaired: {message}" for message in journal.report.messages]
    elif not os.path.lexists(path) and os.path.lexists(log_path):
        pass   # the copy alone: inspect says the database is missing
    else:
        _check_readable(path, log_path)
        foreign = store.foreign_file(path, log_path, timeout)
        if foreign is not None:
            raise JournalError(f"{path} is not a tabletop journal ({foreign}): it was left "
                               f"untouched")
    if files.not_regular(log_path) == "a symbolic link":
        files.refuse_links(log_path)
    pending = pruning.read_intent(path)
    if pending is not None and not repair:   # the copies differ by the games being pruned
        return done, [f"a prune of games {', '.join(map(str, sorted(pending.games)))} was "
                      f"interrupted: `tabletop check --repair` (or the table's next opening) "
                      f"finishes it; the records are checked after that"], f"{path}: prune pending"
    found, plan = inspect(path, log_path, timeout)
    for game, records in plan.games.items():
        result = replay(record.line for record in records)
        if result.errors:
            number, reason = result.errors[0]
            found.append(f"game {game}: record {number - 1} does not replay: {reason}")
    steps = sum(len(records) for records in plan.games.values())
    summary = (f"{path}: {_count(len(plan.games), 'game')}, {_count(steps, 'record')}"
               + ("; every checksum holds, both copies agree and every game replays"
                  if not found else f"; {_count(len(found), 'problem')} found"))
    return done, found, summary


@dataclass(frozen=True)
class GameInfo:
    """One game of the journal, as ``tabletop games`` lists it."""

    id: int
    table: str
    rules: str
    players: list[str]
    turn: int
    actions: int
    started: str
    finished: str | None


def _write_status(conn: sqlite3.Connection, game_id: int, game: Game | None, actions: int,
                  finished: str | None) -> None:
    """The games list's columns of a game (worked out from it, kept with its records)."""
    rules, names, turn = (game.rules.name, game.names, game.turn) if game else ("", [], 0)
    conn.execute("UPDATE games SET rules = ?, players = ?, turn = ?, actions = ?, finished = ? "
                 "WHERE id = ?", (rules, json.dumps(names, ensure_ascii=False), turn, actions,
                                  finished, game_id))


def _describe(conn: sqlite3.Connection, game_id: int, records: list[Record]) -> None:
    """The listing columns of a game restored from its records (as far as they replay)."""
    result = replay(record.line for record in records)
    over = result.game is not None and result.game.over and not result.errors
    _write_status(conn, game_id, result.game, len(records) - 1, records[-1].at if over else None)


class Table:
    """A game being played, every confirmed action journaled. Get one from
    :meth:`Journal.start` or :meth:`Journal.resume`; ``table.game`` is the live
    :class:`~tabletop.engine.game.Game` (read it, push through the table)."""

    def __init__(self, journal: "Journal", game_id: int, records: list[Record], game: Game) -> None:
        self.journal = journal
        self.id = game_id
        self.game = game
        self.records = records

    @property
    def lines(self) -> list[str]:
        """The setup line, then every confirmed action line (``undo`` included)."""
        return [record.line for record in self.records]

    @property
    def started(self) -> str:
        return self.records[0].at

    @property
    def finished(self) -> str | None:
        return self.records[-1].at if self.game.over else None

    def push(self, action: Action | Mapping[str, Any] | str) -> list[dict[str, Any]]:
        """Play ``action`` and journal it; return its events once it is safely on disk.

        An illegal action raises IllegalAction and writes nothing; a journal
        that cannot save it raises JournalError and the game is as before.
        """
        action = _as_action(action)
        events = self.game.push(action)
        line = _line_of(self.game, action)
        try:
            self.journal._append(self, line)
        except BaseException:
            self.game = _replayed(self.id, self.records)
            raise
        return events

    def undo(self, player: str | None = None) -> list[dict[str, Any]]:
        """Take back the last action; the undo is journaled like any action."""
        return self.push(Undo(player=player))

    def __repr__(self) -> str:
        return f"<Table game {self.id}: {len(self.records) - 1} actions>"


class Journal:
    """The games of one journal database and its append-only copy.

    Use a journal (and its tables) from the thread that opened it; open
    another one to read from elsewhere.
    """

    def __init__(self, path: Path, log_path: Path, conn: sqlite3.Connection, *,
                 readonly: bool, timeout: float, table_name: str | None,
                 report: RecoveryReport, lock: "_WriterLock | None" = None,
                 log_fd: int | None = None) -> None:
        self.path, self.log_path = path, log_path
        self.readonly, self.timeout, self.table_name = readonly, timeout, table_name
        self.report = report
        self._conn, self._lock, self._log_fd = conn, lock, log_fd
        # Games in play are kept; a finished one only while somebody holds it, so that a
        # table playing game after game for months does not keep every game in memory.
        self._tables: dict[int, Table] = {}
        self._finished: weakref.WeakValueDictionary[int, Table] = weakref.WeakValueDictionary()

    @classmethod
    def open(cls, path: str | Path, *, readonly: bool = False,
             timeout: float = 5.0, table_name: str | None = None,
             log_path: str | Path | None = None, check_all: bool = False) -> "Journal":
        """Open (for writing: create, check and repair) the journal at ``path``.

        The caller says where (the journal never reads the configuration); the
        copy is ``log_path``, by default the same name ending ``.log``.
        ``timeout`` is how long to wait for another program's lock.
        ``table_name`` goes into each new game (default :data:`DEFAULT_TABLE_NAME`).
        Opening checks what was written since the journal was last found whole
        (:mod:`tabletop.journal.known_good`); ``check_all`` checks every record.
        """
        path = Path(path)
        log_path = Path(log_path) if log_path is not None else path.with_suffix(".log")
        if readonly:
            return cls._open_reader(path, log_path, timeout)
        try:
            store.make_folder(path.parent)
        except OSError as error:
            raise JournalError(f"cannot create the folder {path.parent}: {error.strerror}") from None
        files.check_folder(path.parent)
        _refuse_odd_files(path, log_path)
        foreign = store.foreign_file(path, log_path, timeout)
        if foreign is not None:
            raise JournalError(f"{path} is not a tabletop journal ({foreign}): it was left "
                               f"untouched; give the path of a journal, or of a new one to make")
        try:
            lock = _WriterLock(path, timeout)
        except OSError as error:
            raise JournalError(f"cannot open the journal {path}: {error.strerror}") from None
        conn = None
        try:
            finished = pruning.finish_interrupted(path, log_path, timeout)
            report = recover(path, log_path, _describe, timeout, check_all)
            report.messages[:0] = finished
            conn = store.connect(path, timeout)
            known_good.update(path, log_path, conn)   # whole: the next opening starts here
            log_fd = files.open_private(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        except BaseException as error:
            if conn is not None:
                conn.close()
            lock.release()
            if isinstance(error, store.DB_ERRORS) and store.locked(error):
                raise store.locked_error(path, timeout) from None
            if isinstance(error, (*store.DB_ERRORS, OSError)):
                raise JournalError(f"cannot open the journal {path}: {error}") from None
            raise
        return cls(path, log_path, conn, readonly=False, timeout=timeout, table_name=table_name,
                   report=report, lock=lock, log_fd=log_fd)

    @classmethod
    def _open_reader(cls, path: Path, log_path: Path, timeout: float) -> "Journal":
        """Read the database as it is; nothing is made or written (see :func:`open_for_reading`)."""
        _check_readable(path, log_path)
        conn = None
        try:
            conn = store.connect_reader(path, timeout)
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > store.SCHEMA_VERSION:
                raise store.newer_version_error(path, version)
            if store._schema_rows(conn) != store.expected_schema():
                raise _not_a_journal(path, log_path, "it is another program's SQLite database, "
                                     "or its table definitions were damaged")
            conn.execute("SELECT count(*) FROM games").fetchone()
        except BaseException as error:
            if conn is not None:
                conn.close()
            if not isinstance(error, store.DB_ERRORS):
                raise
            if store.locked(error):
                raise store.locked_error(path, timeout) from None
            raise JournalError(f"{path} cannot be read ({error}); {_REPAIR.format(log_path.name)} "
                               f"(nothing was changed)") from None
        return cls(path, log_path, conn, readonly=True, timeout=timeout, table_name=None,
                   report=RecoveryReport())

    @property
    def closed(self) -> bool:
        """Whether the journal was closed (it reads and records nothing more)."""
        return self._conn is None

    def close(self) -> None:
        """Close the files (and let another program write the journal)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._log_fd is not None:
            os.close(self._log_fd)
            self._log_fd = None
        if self._lock is not None:
            self._lock.release()
            self._lock = None
        self._tables.clear()
        self._finished.clear()

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading ---------------------------------------------------------------

    def games(self) -> list[GameInfo]:
        """Every game of the journal, oldest first."""
        try:
            rows = store.games_list(self._connection())
        except store.DB_ERRORS as error:
            raise _unreadable(self.path, error) from None
        except ValueError as error:
            raise JournalError(f"{self.path}'s games list is damaged ({error}); "
                               f"{_REPAIR.format(self.log_path.name)}") from None
        return [GameInfo(*row) for row in rows]

    def info(self, game_id: int) -> GameInfo:
        """One game's entry; JournalError if there is no such game."""
        for info in self.games():
            if info.id == game_id:
                return info
        raise _no_game(game_id, self.path)

    def records(self, game_id: int) -> list[Record]:
        """A game's records, setup first, each checked against its checksum."""
        conn = self._connection()
        try:
            conn.execute("BEGIN")
            records = store.read_records(conn, game_id)
            conn.execute("COMMIT")
        except store.DB_ERRORS as error:
            _rollback(conn)
            raise _unreadable(self.path, error) from None
        if not records:
            raise _no_game(game_id, self.path)
        for number, record in enumerate(records):
            if not record.valid or record.seq != number:
                raise JournalError(Message(
                    "game {game}: record {record} in {file} is damaged; `tabletop check --repair` "
                    "restores it from {copy}, as the table does when it next opens the journal",
                    game=game_id, record=number, file=self.path.name, copy=self.log_path.name))
        return records

    def lines(self, game_id: int) -> list[str]:
        """A game's table script as confirmed: setup, then every action line, ``undo`` included."""
        return [record.line for record in self.records(game_id)]

    # -- writing ---------------------------------------------------------------

    def start(self, setup: Mapping[str, Any] | str) -> Table:
        """Start a game from a setup line (``{"setup": {...}}``), journaled before it returns.

        A rule set named by a file's path is recorded with the game: its text and SHA-256
        are added to the setup line (a shipped rule set's name is recorded as it is).
        """
        self._writable()
        try:
            # A rule file named by path is recorded by its text (read once, here), so the
            # game never depends on what the file says later.
            line = record_rules(json.loads(setup) if isinstance(setup, str) else setup)
            game = game_from_setup(line)
            text = json.dumps(game.setup_json(), ensure_ascii=False)
            text.encode("utf-8")
        except (json.JSONDecodeError, UnicodeEncodeError) as error:
            raise ScriptError(f"the setup line is not valid JSON text ({error})") from None
        table = Table(self, 0, [], game)
        try:
            self._append(table, text)
        except BaseException:
            self._tables.pop(table.id, None)
            raise
        return table

    def resume(self, game_id: int) -> Table:
        """The game ``game_id`` as its last confirmed action left it, ready to go on."""
        self._writable()
        table = self._tables.get(game_id) or self._finished.get(game_id)
        if table is None:
            records = self.records(game_id)
            table = Table(self, game_id, records, _replayed(game_id, records))
            self._keep(table)
        return table

    def record(self, game_id: int, action: Action | Mapping[str, Any] | str) -> list[dict[str, Any]]:
        """Play and journal one action of game ``game_id``; return its events."""
        return self.resume(game_id).push(action)

    # -- inside ------------------------------------------------------------------

    def _append(self, table: Table, line: str) -> None:
        """Write one record: copy first (fsynced), then the database; roll both back on failure."""
        conn = self._connection()
        seq = len(table.records)
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise self._failure(error) from None
        try:
            if seq == 0:
                table.id = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM games").fetchone()[0]
            else:
                self._check_last(conn, table.id, seq)
            record = Record(table.id, seq, store.now(), line,
                            self._table_name() if seq == 0 else None).sealed()
            size = self._write_log(record)
            try:
                store.insert_record(conn, record)
                _write_status(conn, table.id, table.game, seq,
                              record.at if table.game.over else None)
                conn.execute("COMMIT")
            except BaseException:
                self._cut_log(size)
                raise
        except BaseException as error:
            _rollback(conn)
            if isinstance(error, (sqlite3.Error, OSError)):
                raise self._failure(error) from None
            raise
        table.records.append(record)
        self._keep(table)

    def _keep(self, table: Table) -> None:
        """Remember a game in play; a finished one only as long as somebody holds it."""
        if table.game.over:
            self._tables.pop(table.id, None)
            self._finished[table.id] = table
        else:
            self._finished.pop(table.id, None)
            self._tables[table.id] = table

    def _check_last(self, conn: sqlite3.Connection, game_id: int, seq: int) -> None:
        last = conn.execute("SELECT coalesce(max(seq), 0) FROM actions WHERE game = ?",
                            (game_id,)).fetchone()[0]
        if last != seq - 1:
            raise JournalError(Message("game {game} was changed by another program (it holds "
                                       "{actions} actions, this table {here}); resume it again",
                                       game=game_id, actions=last, here=seq - 1))

    def _write_log(self, record: Record) -> int:
        """Append and fsync one line; a line written in part (a full disk) is taken back."""
        data = record.to_log().encode("utf-8")
        size = os.fstat(self._log_fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._log_fd, view):]
            os.fsync(self._log_fd)
        except BaseException:
            self._cut_log(size)
            raise
        return size

    def _cut_log(self, size: int) -> None:
        """Take back a line whose database write failed (it was never confirmed)."""
        try:
            os.ftruncate(self._log_fd, size)
            os.fsync(self._log_fd)
        except OSError:
            pass  # a device given as the copy cannot be cut; a regular file can

    def _failure(self, error: Exception) -> JournalError:
        text, path = str(error), str(self.path)
        if isinstance(error, OSError):
            copy = str(self.log_path)
            if error.errno in FULL_ERRNOS:
                return JournalFull(Message(
                    "no space left on the disk for the append-only copy {path}: the action was "
                    "NOT recorded; free some space and confirm it again", path=copy))
            return JournalError(Message("cannot write the append-only copy {path} ({error}): the "
                                        "action was NOT recorded", path=copy,
                                        error=error.strerror or text))
        if "locked" in text or "busy" in text:
            return JournalLocked(Message(
                "{path} is locked by another program (waited {seconds} s): the action was NOT "
                "recorded; close the other program and confirm it again", path=path,
                seconds=f"{self.timeout:g}"))
        if "full" in text:
            return JournalFull(Message("the disk holding {path} is full: the action was NOT "
                                       "recorded; free some space and confirm it again", path=path))
        return JournalError(Message("{path} could not save the action ({error}): it was NOT "
                                    "recorded", path=path, error=text))

    def _table_name(self) -> str:
        return self.table_name if self.table_name is not None else DEFAULT_TABLE_NAME

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise JournalError(Message("the journal is closed"))
        return self._conn

    def _writable(self) -> None:
        self._connection()
        if self.readonly:
            raise JournalError(Message("{path} is open for reading only", path=str(self.path)))


class _WriterLock:
    """``journal.db.lock``: held by the one program that writes the journal."""

    def __init__(self, path: Path, timeout: float) -> None:
        self.path = path.with_name(path.name + ".lock")
        self.fd: int | None = None
        if fcntl is None:
            return
        try:   # made by us (0600), or the one a writer made before: never through a link
            self.fd = files.open_private(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL)
        except FileExistsError:
            self.fd = files.open_private(self.path, os.O_RDWR)
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError:
                if time.monotonic() >= deadline:
                    holder = os.pread(self.fd, 32, 0).decode("ascii", "replace").strip()
                    self.release()
                    who = f" (process {holder})" if holder else ""
                    raise JournalLocked(f"{path} is being written by another program{who}; "
                                        f"waited {timeout:g} s: close it first") from None
                time.sleep(0.05)
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, f"{os.getpid()}\n".encode(), 0)

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing the file releases the lock
            self.fd = None


#: What a reader says of damage it finds (it repairs nothing itself).
_REPAIR = ("`tabletop check --repair` restores it from {}, as the table does when it next "
           "opens the journal")


def _journal_files(path: Path, log_path: Path) -> list[Path]:
    """Every file of the journal at ``path``: the database, SQLite's files beside it, the
    append-only copy, the writer's lock, the known-good mark and an interrupted prune's file."""
    return [path, *(Path(f"{path}{side}") for side in store.GUARDED_SIDES), log_path,
            path.with_name(path.name + ".lock"), known_good.mark_path(path),
            pruning.intent_path(path)]


def _refuse_odd_files(path: Path, log_path: Path, done: str = "opened") -> None:
    """JournalError before anything is opened if a journal file is a link, a file of several
    names (writing it would change another file too) or, beside the database, not a regular
    file (a device there would be written to, a pipe would block). A database that is no
    file at all is :func:`store.foreign_file`'s to describe; the copy may be a device or a
    pipe, written to and never replaced, but never a link or a file of several names."""
    files.refuse_links(*_journal_files(path, log_path))
    for other in _journal_files(path, log_path):
        kind = files.odd_file(other)
        if kind is None or (other == path and files.not_regular(path)):
            continue
        if other != log_path or "names" in kind:
            raise _odd_error(other, kind, done)


def _odd_error(path: Path, kind: str, done: str) -> JournalError:
    return JournalError(f"{path} is {kind}, not a file of the journal: the journal was not "
                        f"{done} and nothing was changed; move it away and try again")


def _check_readable(path: Path, log_path: Path) -> None:
    """JournalError unless ``path`` looks like a journal's database, found without opening
    anything but a regular file (a pipe would block, a device may act when opened)."""
    if path.absolute() == log_path.absolute():
        raise JournalError(f"{path} is not a tabletop journal (it is a journal's append-only "
                           f"copy): it was left untouched; give the database, e.g. {path.stem}.db")
    kind = files.not_regular(path)
    if kind is not None:
        raise JournalError(f"{path} is not a tabletop journal (it is {kind}): it was left "
                           f"untouched; give the path of a journal")
    if not os.path.lexists(path) and not os.path.lexists(log_path):
        raise JournalError(f"no journal at {path}: no game has been recorded there")
    if not os.path.lexists(path):
        raise JournalError(f"{path.name} is missing, but its append-only copy {log_path} is "
                           f"there: `tabletop check --repair` rebuilds it (nothing was changed)")
    _refuse_odd_files(path, log_path, "read")
    wal, shm = (Path(f"{path}{side}") for side in store.SIDE_FILES)
    if wal.exists() and not shm.exists():   # another program's exclusive hold, or a crash
        raise JournalLocked(f"{path} is locked by another program, or one stopped while "
                            f"writing it ({wal.name} lies there without {shm.name}): close that "
                            f"program, or run `tabletop check --repair` (nothing was changed)")
    try:
        head = files.read_head(path, len(store.SQLITE_MAGIC))
    except OSError as error:
        raise JournalError(f"cannot read {path}: {error.strerror}") from None
    if head != store.SQLITE_MAGIC:
        raise _not_a_journal(path, log_path, "it is an empty file" if not head
                             else "it is not a SQLite database")


def _not_a_journal(path: Path, log_path: Path, why: str) -> JournalError:
    """Refusing a file that is no journal, or a damaged one whose copy can rebuild it."""
    held = copyfile.count_records(log_path) if not files.not_regular(log_path) else 0
    if held:
        return JournalError(f"{path} cannot be read as a journal ({why}), but its append-only "
                            f"copy {log_path.name} holds {held} records: `tabletop check "
                            f"--repair` rebuilds it from there (nothing was changed)")
    return JournalError(f"{path} is not a tabletop journal ({why}): it was left untouched; "
                        f"give the path of a journal")


def _as_action(action: Action | Mapping[str, Any] | str) -> Action:
    if isinstance(action, Action):
        return action
    if isinstance(action, str):
        try:
            action = json.loads(action)
        except json.JSONDecodeError as error:
            raise ScriptError(f"not valid JSON ({error.msg} at column {error.colno})") from None
    return parse_action(dict(action) if isinstance(action, Mapping) else action)


def _line_of(game: Game, action: Action) -> str:
    """The line to journal: an action in canonical form (player named), or the undo as given."""
    if not isinstance(action, Undo):
        action = game.canonical(len(game.history) - 1)
    return json.dumps(action.to_json(), ensure_ascii=False)


def _replayed(game_id: int, records: list[Record]) -> Game:
    result = replay(record.line for record in records)
    if result.errors:
        number, reason = result.errors[0]
        raise JournalError(Message("game {game}: record {record} does not replay with this "
                                   "version of tabletop: {reason}", game=game_id,
                                   record=number - 1, reason=reason))
    return result.game


def _unreadable(path: Path, error: Exception) -> JournalError:
    return JournalError(Message("cannot read {path}: {error}", path=str(path), error=str(error)))


def _no_game(game_id: int, path: Path) -> JournalError:
    return JournalError(Message("there is no game {game} in {path}", game=game_id, path=str(path)))


def _rollback(conn: sqlite3.Connection) -> None:
    try:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
    except sqlite3.Error:
        pass
