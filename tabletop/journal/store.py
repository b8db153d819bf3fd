"""The journal's records and its two files: the SQLite database and the append-only copy.

Every confirmed step of a game is a :class:`Record`: the game's id, its
sequence number (0 is the setup line, then one per action, ``undo`` included),
the time, the table-script line and a SHA-256 checksum of all of these. The
records live twice: in the SQLite database (``journal.db``) and, one JSON line
each, in an append-only copy beside it (``journal.log``, whose first line says
its format version). :func:`scan_db` and :func:`scan_log` read each file as
it is, trusting nothing: a field of the wrong type, bytes that are not UTF-8, a
damaged table definition or games-list entry are reported, never raised, and
every record whose checksum holds is kept. :mod:`tabletop.journal.recovery` compares
the two scans and repairs.

>>> record = Record(3, 1, "2026-03-01T14:03:22Z", '{"do": "place", "tile": "6C"}').sealed()
>>> record.valid, Record.from_log(record.to_log().encode()) == record
(True, True)
>>> dataclasses.replace(record, line='{"do": "place", "tile": "7C"}').valid
False
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import shutil
import sqlite3
import tempfile
import time
import weakref
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Protocol

from tabletop.errors import JournalError, JournalLocked
from tabletop.journal.files import (copy_private, create_private, fsync_dir, hold_unless_written,
                                    not_regular, read_head)

#: The database's ``user_version`` and the copy's header version this code writes and reads.
SCHEMA_VERSION = 1
HEADER_KEY = "tabletop_journal"
SQLITE_MAGIC = b"SQLite format 3\x00"
SIDE_FILES = ("-wal", "-shm")
#: SQLite's rollback journal: never the journal's own (it is always in WAL mode), but
#: SQLite would delete it, play it back into the database or block on it; guarded too.
ROLLBACK_FILE = "-journal"
#: Every file SQLite may open beside the database.
GUARDED_SIDES = SIDE_FILES + (ROLLBACK_FILE,)
#: What reading a damaged database raises: SQLite's errors, and (its message not
#: being UTF-8 when it quotes damaged bytes) a decoding error.
DB_ERRORS = (sqlite3.Error, UnicodeDecodeError)

#: The tables. :func:`scan_db` compares a database's definitions with these, character
#: for character: changing this text means a new SCHEMA_VERSION (and a migration).
SCHEMA = f"""
BEGIN;
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY, started TEXT NOT NULL, table_name TEXT NOT NULL,
    setup TEXT NOT NULL, sum TEXT NOT NULL,
    rules TEXT NOT NULL, players TEXT NOT NULL, turn INTEGER NOT NULL,
    actions INTEGER NOT NULL, finished TEXT);
CREATE TABLE IF NOT EXISTS actions (
    game INTEGER NOT NULL REFERENCES games(id), seq INTEGER NOT NULL,
    at TEXT NOT NULL, line TEXT NOT NULL, sum TEXT NOT NULL,
    PRIMARY KEY (game, seq)) WITHOUT ROWID;
PRAGMA user_version = {SCHEMA_VERSION};
COMMIT;
"""


def canonical(value: Any) -> bytes:
    """The one byte form a value is checksummed and signed in: sorted keys, no spaces.

    >>> canonical({"b": 1, "a": "é"})
    b'{"a":"\\xc3\\xa9","b":1}'
    """
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8", "surrogatepass")


@dataclass(frozen=True)
class Record:
    """One confirmed step of a game; ``table`` is set on the setup record (``seq`` 0) only."""

    game: int
    seq: int
    at: str
    line: str
    table: str | None = None
    sum: str = ""

    @property
    def key(self) -> tuple[int, int]:
        return self.game, self.seq

    def body(self) -> dict[str, Any]:
        """Every field but the checksum."""
        body = {"game": self.game, "seq": self.seq, "at": self.at, "line": self.line}
        if self.table is not None:
            body["table"] = self.table
        return body

    def digest(self) -> str:
        return hashlib.sha256(canonical(self.body())).hexdigest()

    def sealed(self) -> "Record":
        """This record with its checksum."""
        return dataclasses.replace(self, sum=self.digest())

    @functools.cached_property
    def valid(self) -> bool:
        """Whether the checksum matches the fields (worked out once: the fields never change)."""
        return self.sum == self.digest()

    def to_log(self) -> str:
        """The record as one line of the append-only copy."""
        return json.dumps({**self.body(), "sum": self.sum}, ensure_ascii=False,
                          separators=(",", ":")) + "\n"

    @classmethod
    def from_log(cls, raw: bytes) -> "Record":
        """Read one line of the copy; ValueError if it is not a well-formed record."""
        data = json.loads(raw.decode("utf-8"))
        if not isinstance(data, dict) or not {"game", "seq", "at", "line", "sum"} <= set(data) \
                or set(data) - {"game", "seq", "at", "line", "table", "sum"}:
            raise ValueError("not a journal record")
        record = cls(**data)
        texts = (record.at, record.line, record.sum, record.table or "")
        if not (_whole(record.game) and _whole(record.seq) and all(isinstance(t, str) for t in texts)):
            raise ValueError("not a journal record")
        return record


def _whole(value: Any) -> bool:
    """A whole number a SQLite integer can hold (a copy's line could give a larger one)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 63


class _Damaged(str):
    """SQLite text that was not UTF-8, read with replacement characters (its checksum fails)."""


def _damaged_text(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return _Damaged(raw.decode("utf-8", "replace"))


def _text(value: Any) -> bool:
    return isinstance(value, str) and not isinstance(value, _Damaged)


# -- the database ---------------------------------------------------------------

def connect(path: Path, timeout: float = 5.0, readonly: bool = False) -> sqlite3.Connection:
    """A connection in autocommit mode with the journal's settings (WAL, synchronous=FULL).

    ``readonly``: see :func:`connect_reader` (nothing is created or written). Otherwise a
    missing database is first made, empty, readable by its owner only (SQLite gives its
    ``-wal`` and ``-shm`` files the database's mode).
    """
    if readonly:
        return connect_reader(path, timeout)
    create_private(path)
    conn = sqlite3.connect(str(path), timeout=timeout, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
    except sqlite3.Error:
        conn.close()
        raise
    return conn


def connect_reader(path: Path, timeout: float = 5.0) -> sqlite3.Connection:
    """A read-only connection that creates, moves and writes no file of the journal.

    SQLite reading a WAL database writes its shared memory (``-shm``), making it when it
    is missing and rewriting it when it looks wrong. So:

    * no ``-wal``: nothing is waiting to be moved into the database, which is read as an
      unchanging file (``immutable=1``: no lock, no side file is opened);
    * a ``-wal`` while a writer holds ``journal.db.lock``: read as SQLite shares it
      between programs (``mode=ro``; the ``-shm`` is the writer's, kept up by it);
    * a ``-wal`` and no writer: the database and its ``-wal`` are copied, under a shared
      hold of the lock so that no writer starts meanwhile, into a private temporary
      folder, and the copy is read (the folder goes when the connection is closed).
      The simplest way that never writes: ``immutable=1`` would ignore the ``-wal``
      (steps confirmed since the last checkpoint), ``mode=ro`` writes the ``-shm``.
    """
    path = Path(path)
    if not os.path.lexists(f"{path}-wal"):
        return _reader(f"{path.absolute().as_uri()}?immutable=1", timeout)
    hold = hold_unless_written(path)
    if hold is None:
        return _reader(f"{path.absolute().as_uri()}?mode=ro", timeout)
    try:
        folder = Path(tempfile.mkdtemp(prefix="tabletop-read-"))
        try:
            for suffix in ("", "-wal"):
                copy_private(Path(f"{path}{suffix}"), folder / f"{path.name}{suffix}")
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
    finally:
        if hold >= 0:
            os.close(hold)   # releases the shared hold
    conn = _reader(f"{(folder / path.name).as_uri()}?mode=ro", timeout, _CopyConnection)
    conn.folder = folder
    weakref.finalize(conn, shutil.rmtree, folder, True)   # a connection never closed
    return conn


class _CopyConnection(sqlite3.Connection):
    """A connection to a private copy of the database, removed when it is closed."""

    folder: Path | None = None

    def close(self) -> None:
        super().close()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None


def _reader(uri: str, timeout: float,
            factory: type[sqlite3.Connection] = sqlite3.Connection) -> sqlite3.Connection:
    conn = sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None, factory=factory)
    try:
        conn.execute("PRAGMA query_only = ON")
    except sqlite3.Error:
        conn.close()
        raise
    return conn


def create_schema(conn: sqlite3.Connection) -> None:
    conn.executescript(SCHEMA)


def _schema_rows(conn: sqlite3.Connection) -> list[tuple]:
    return sorted(conn.execute("SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master"))


_EXPECTED: list[tuple] = []


def expected_schema() -> list[tuple]:
    """``sqlite_master`` as :data:`SCHEMA` makes it."""
    if not _EXPECTED:
        conn = sqlite3.connect(":memory:", isolation_level=None)
        create_schema(conn)
        _EXPECTED.extend(_schema_rows(conn))
        conn.close()
    return _EXPECTED


def newer_version_error(path: Path, version: int) -> JournalError:
    return JournalError(
        f"{path} was written by a newer tabletop (journal format {version}; this one reads "
        f"up to {SCHEMA_VERSION}): install the newer tabletop to open it; the file was left "
        f"untouched (if no newer tabletop ever wrote it, its format number is damaged: move "
        f"{path.name} aside and it is rebuilt from its append-only copy)")


def insert_record(conn: sqlite3.Connection, record: Record) -> None:
    if record.seq == 0:
        conn.execute("INSERT INTO games (id, started, table_name, setup, sum, rules, players, "
                     "turn, actions) VALUES (?, ?, ?, ?, ?, '', '[]', 0, 0)",
                     (record.game, record.at, record.table or "", record.line, record.sum))
    else:
        conn.execute("INSERT INTO actions VALUES (?, ?, ?, ?, ?)",
                     (record.game, record.seq, record.at, record.line, record.sum))


def read_records(conn: sqlite3.Connection, game: int | None = None) -> list[Record]:
    """The records the database holds (of one game, or all), checksums not yet checked.

    A row whose game or sequence number is not a whole number is left out; a
    row with any other field of the wrong type comes back with that field
    emptied, so that its checksum fails.
    """
    return sorted(iter_records(conn, game), key=lambda record: record.key)


def iter_records(conn: sqlite3.Connection, game: int | None = None) -> Iterator[Record]:
    """:func:`read_records`' records as SQLite gives them (setups first), one at a time."""
    where, args = ("WHERE id = ?", (game,)) if game is not None else ("", ())
    for g, at, table, line, digest in conn.execute(
            f"SELECT id, started, table_name, setup, sum FROM games {where}", args):
        record = record_of_row((g, 0, at, line, table, digest))
        if record is not None:
            yield record
    where = where.replace("id", "game")
    for row in conn.execute(f"SELECT game, seq, at, line, NULL, sum FROM actions {where}", args):
        record = record_of_row(row)
        if record is not None:
            yield record


def record_of_row(row: tuple) -> Record | None:
    """The Record of a row ``(game, seq, at, line, table, sum)``; None if its game or
    sequence number is not a whole number, its other fields emptied if one is not text."""
    g, seq, at, line, table, digest = row
    if not (_whole(g) and _whole(seq)):
        return None
    texts = (at, line, digest) + ((table,) if seq == 0 else ())
    if not all(isinstance(text, str) for text in texts):
        return Record(g, seq, "", "", None, "")
    return Record(g, seq, at, line, table if seq == 0 else None, digest)


@dataclass
class DbScan:
    """What a database file holds, and whether it can be trusted."""

    exists: bool = False
    error: str | None = None        # unreadable, quick_check's complaint, a damaged definition
    has_schema: bool = False
    records: list[Record] = field(default_factory=list)   # every record that could be read
    unkeyed: int = 0                # rows whose game or sequence number is damaged
    listing: list[int] = field(default_factory=list)      # games whose list entry is damaged
    leftovers: list[str] = field(default_factory=list)    # -wal/-shm files without a database
    read: bool = False              # every record and list entry could be read
    empty: bool = False             # an empty file (made, never written)

    @property
    def bad(self) -> list[Record]:
        return [record for record in self.records if not record.valid]


def locked(error: BaseException) -> bool:
    """Whether a SQLite error says another connection holds the database (busy or locked)."""
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    return "locked" in str(error) or "busy" in str(error)


def locked_error(path: Path, timeout: float) -> JournalLocked:
    return JournalLocked(f"{path} is locked by another program (waited {timeout:g} s): close the "
                         f"other program and open the journal again; nothing was changed")


def scan_db(path: Path, timeout: float = 5.0, readonly: bool = False,
            sink: "RecordSink | None" = None) -> DbScan:
    """Read every record of the database at ``path``; refuse a newer format.

    ``readonly``: as :func:`connect_reader` reads (no file is made or written). ``sink``:
    the records go there, one at a time, instead of into the scan's list (which holds
    them all at once).

    Whatever SQLite can still read is read, even from a file that fails its
    ``quick_check``: records whose checksums hold are good wherever they come from.
    A database that another program keeps locked longer than ``timeout`` is not
    damaged: JournalLocked, and nothing is touched.
    """
    if not os.path.lexists(path):
        return DbScan(leftovers=[side for side in SIDE_FILES if os.path.lexists(f"{path}{side}")])
    scan = DbScan(exists=True)
    try:
        header = read_head(path, 100)
    except OSError as error:
        scan.error = error.strerror
        return scan
    scan.empty = not header
    if header[:16] == SQLITE_MAGIC and not {1, 2} >= set(header[18:20]):
        # Damaged file format bytes: SQLite would open it for reading only, or not at all.
        scan.error = f"its header was damaged (format bytes {header[18]}, {header[19]})"
    try:
        conn = (connect_reader(path, timeout) if readonly else
                sqlite3.connect(str(path), timeout=timeout, isolation_level=None))
        conn.text_factory = _damaged_text
    except DB_ERRORS as error:
        scan.error = str(error)
        return scan
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise newer_version_error(path, version)
        problems = [str(row[0]) for row in conn.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            scan.error = scan.error or "; ".join(problems[:3])
        tables = {row[0] for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables and version in (0, SCHEMA_VERSION) and scan.error is None:
            scan.read = True
            return scan                                        # empty: created, never written
        if {"games", "actions"} <= tables:
            if version != SCHEMA_VERSION:
                scan.error = scan.error or f"its format number was damaged ({version})"
            elif _schema_rows(conn) != expected_schema():
                scan.error = scan.error or "its table definitions were damaged"
            scan.has_schema = scan.error is None
            _read_all(conn, scan, sink)
        else:
            scan.error = scan.error or "it is not a tabletop journal of a known format"
    except DB_ERRORS as error:
        if locked(error):
            raise locked_error(path, timeout) from None
        scan.error = scan.error or str(error)
    finally:
        conn.close()
    return scan


class RecordSink(Protocol):
    """Where a scan puts the records it reads, one at a time."""

    def add(self, record: Record) -> None: ...

    def discard(self) -> None:
        """The reading failed part-way: forget every record added."""


class _Held:
    """A sink that holds the records in a list, in key order once read."""

    def __init__(self) -> None:
        self.records: list[Record] = []

    def add(self, record: Record) -> None:
        self.records.append(record)

    def discard(self) -> None:
        self.records = []


def _read_all(conn: sqlite3.Connection, scan: DbScan, sink: RecordSink | None) -> None:
    """The records and the games list of a journal database, as far as they can be read
    (the records all, or none: a read that fails part-way keeps none of them)."""
    held = _Held() if sink is None else None
    actions: Counter[int] = Counter()
    last: dict[int, tuple[int, str]] = {}           # game -> its highest step and its time
    keyed = 0
    try:
        try:
            for record in iter_records(conn):
                (sink or held).add(record)
                keyed += 1
                actions[record.game] += record.seq > 0
                if record.seq >= last.get(record.game, (-1, ""))[0]:
                    last[record.game] = record.seq, record.at
        except BaseException:
            (sink or held).discard()
            raise
        if held is not None:
            scan.records = sorted(held.records, key=lambda record: record.key)
        total = conn.execute("SELECT (SELECT count(*) FROM games) + (SELECT count(*) FROM actions)")
        scan.unkeyed = total.fetchone()[0] - keyed
        entries = conn.execute(
            "SELECT id, rules, players, turn, actions, finished FROM games").fetchall()
    except DB_ERRORS as error:
        if locked(error):
            raise
        scan.error = scan.error or str(error)
        return
    scan.read = True
    for game, rules, players, turn, count, finished in entries:
        if _whole(game) and not (_text(rules) and _names(players) and _whole(turn)
                                 and count == actions[game]
                                 and finished in (None, last.get(game, (0, None))[1])):
            scan.listing.append(game)


def _names(players: Any) -> bool:
    if not _text(players):
        return False
    try:
        names = json.loads(players)
    except (TypeError, ValueError):
        return False
    return isinstance(names, list) and all(isinstance(name, str) for name in names)


def games_list(conn: sqlite3.Connection) -> list[tuple]:
    """The games list's rows (id, table, rules, players, turn, actions, started, finished);
    ValueError if an entry is damaged."""
    rows = []
    for i, table, rules, players, turn, actions, started, finished in conn.execute(
            "SELECT id, table_name, rules, players, turn, actions, started, finished "
            "FROM games ORDER BY id"):
        if not (_names(players) and all(isinstance(t, str) for t in (table, rules, started))
                and _whole(turn) and _whole(actions) and isinstance(finished, (str, type(None)))):
            raise ValueError(f"the entry of game {i} is damaged")
        rows.append((i, table, rules, json.loads(players), turn, actions, started, finished))
    return rows


def foreign_file(path: Path, log_path: Path, timeout: float = 5.0) -> str | None:
    """Why the file at ``path`` is not a journal to open, check and repair; None if it is one.

    A folder, a pipe or a device, another program's SQLite database (tables of
    other definitions, even if named ``games`` and ``actions``), or a file that is not a
    database at all while no journal copy lies beside it (somebody else's file,
    or one damaged beyond recognition with nothing to rebuild it from) is not
    set aside and replaced: it is left as it is. A missing or empty file is a
    new journal.
    """
    if path.absolute() == log_path.absolute():
        return f"it would be its own append-only copy: give the database, e.g. {path.stem}.db"
    kind = not_regular(path)
    if kind is not None:
        return f"it is {kind}"
    if log_path.is_dir():
        return f"{log_path.name}, where its copy would be, is a folder"
    try:
        magic = read_head(path, len(SQLITE_MAGIC))
    except FileNotFoundError:
        return None
    except OSError as error:
        return f"it cannot be read: {error.strerror}"
    if not magic:
        return None
    reason = "it is not a SQLite database"
    if magic == SQLITE_MAGIC:
        try:
            conn = connect_reader(path, timeout)
            conn.text_factory = _damaged_text
            try:
                tables = {row[0] for row in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table'")}
                ours = not tables or _schema_rows(conn) == expected_schema()
            finally:
                conn.close()
            if ours:
                return None
            reason = "it is another program's SQLite database"
        except DB_ERRORS as error:
            if log_path.exists() or locked(error):
                return None  # damaged beside a copy (itself perhaps damaged), or in use: scan it
            reason = f"it cannot be read as a database: {error}"
    from tabletop.journal.copyfile import count_records, header_version   # it imports this module

    if header_version(log_path) is not None or count_records(log_path):
        return None          # a journal's database, damaged: its copy rebuilds it
    return f"{reason}, and no journal copy ({log_path.name}) lies beside it"


def make_folder(folder: Path) -> None:
    """Create ``folder`` and its missing parents, each made durable in its own parent."""
    missing = []
    while not folder.exists() and folder.parent != folder:
        missing.append(folder)
        folder = folder.parent
    for made in reversed(missing):
        made.mkdir(mode=0o700, exist_ok=True)   # the journal refuses a folder others can write
        fsync_dir(made.parent)


def now() -> str:
    """The time now, UTC, to the second, as the journal writes it."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
