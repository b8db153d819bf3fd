"""The full check of a whole journal, in memory that does not grow with its history.

The full check (``tabletop check``, ``check --repair``, ``Journal.open(check_all=True)``
and the first opening of a journal without a known-good mark) compares every record of
both copies. Done by reading both into memory it needed some 300 MB a thousand games.
:func:`whole` makes the same comparison streaming: the append-only copy is read in
chunks, line after line, and each run of one game's lines is compared with the rows the
database holds for them, fetched by key; the database is never read whole, the copy is
never held whole, and what is kept is a few numbers a game. It answers only "both copies
are whole and agree, record for record" (a :class:`~tabletop.journal.comparison.Plan`
whose games are read again from the database one at a time, when asked); anything else
(a damaged line or row, a last line that lost only its line end, a step missing or
written twice, a damaged games-list entry) gives None, and the caller compares the copies
record by record (:mod:`tabletop.journal.scratch`), which finds, reports and repairs.
Checking a whole journal this way costs a few megabytes however long it is.

>>> import tempfile, pathlib
>>> from tabletop.journal.journal import Journal
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> with Journal.open(folder / "journal.db") as journal:
...     table = journal.start({"setup": {"rules": "acquire", "players": ["Ann", "Bob"]}})
...     _ = table.push({"do": "place", "tile": "6C"})
>>> found = whole(folder / "journal.db", folder / "journal.log", readonly=True)
>>> log, db, plan = found
>>> dict((game, len(records)) for game, records in plan.games.items()), plan.db_whole
({1: 2}, True)
>>> [record.line for record in plan.games[1]][1]
'{"do": "place", "player": "Ann", "tile": "6C"}'
>>> with open(folder / "journal.log", "ab") as copy:
...     _ = copy.write(b'{"game": 1')                  # a torn last line, set apart
>>> whole(folder / "journal.db", folder / "journal.log", readonly=True)[0].torn
b'{"game": 1'
>>> with open(folder / "journal.log", "ab") as copy:
...     _ = copy.write(b'\\n')                         # now a damaged line: not whole
>>> whole(folder / "journal.db", folder / "journal.log", readonly=True) is None
True
"""

from __future__ import annotations

import functools
import os
import sqlite3
import stat
from pathlib import Path

from tabletop.journal import files
from tabletop.journal.comparison import LazyGames, Plan
from tabletop.journal.known_good import _database_looks_whole
from tabletop.journal.store import (DB_ERRORS, HEADER_KEY, SCHEMA_VERSION, DbScan, Record,
                                    _damaged_text, _names, _schema_rows, _text, _whole,
                                    connect_reader, expected_schema, locked, locked_error,
                                    read_records, record_of_row)
from tabletop.journal.copyfile import LogScan, _header_version

#: How much of the copy is read at a time.
CHUNK = 1 << 20
#: The most lines of one game compared with the database at once.
RUN = 512


def whole(db_path: Path, log_path: Path, timeout: float = 5.0,
          readonly: bool = False) -> "tuple[LogScan, DbScan, Plan] | None":
    """(log, db, plan) as the in-memory comparison would give them for a journal whose
    copies are whole and agree; None if anything else is found (or might be).

    ``readonly``: the database is read as :func:`~tabletop.journal.store.connect_reader`
    reads it (nothing is made or written). The plan's games keep a connection open until
    they are dropped (:meth:`~tabletop.journal.comparison.LazyGames.close` closes it at once).
    """
    opened = _open_log(log_path)
    if opened is None:
        return None
    fd, size = opened
    try:
        # No line end in the last CHUNK bytes: an unfinished line that long is damage,
        # for the in-memory path to report.
        end = files.last_line_end(fd, size, limit=CHUNK, chunk=CHUNK)
        torn = os.pread(fd, size - end, end) if end else b""
        if not end or (torn and _whole_record(torn) is not None):
            return None    # a last record that lost its line end: the in-memory path keeps it
        conn = _open_db(db_path, timeout, readonly)
        if conn is None:
            return None
        try:
            counts = _compare(conn, fd, end)
        except BaseException as error:
            conn.close()
            if isinstance(error, DB_ERRORS):   # in use by another program: not damaged
                raise locked_error(db_path, timeout) from None
            raise
    finally:
        os.close(fd)
    if counts is None:
        conn.close()
        return None
    # A torn last line (a step whose saving was cut short) is the caller's to cut off.
    log = LogScan(exists=True, version=SCHEMA_VERSION, whole_size=end, torn=torn)
    db = DbScan(exists=True, has_schema=True, read=True)
    games = LazyGames(counts, functools.partial(read_records, conn), conn.close)
    return log, db, Plan(games=games, db_whole=True)


def _open_log(log_path: Path) -> tuple[int, int] | None:
    """The copy's descriptor and size, if it is a regular file."""
    try:
        fd = os.open(log_path, os.O_RDONLY | files.NOFOLLOW | files.NONBLOCK | files.CLOEXEC)
    except OSError:
        return None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        return None
    return fd, info.st_size


def _open_db(db_path: Path, timeout: float, readonly: bool) -> sqlite3.Connection | None:
    """A connection to a database of this format that passes ``quick_check``, inside one
    read transaction (one consistent view); None if it is anything else."""
    if not _database_looks_whole(db_path):
        return None
    try:
        conn = (connect_reader(db_path, timeout) if readonly else
                sqlite3.connect(str(db_path), timeout=timeout, isolation_level=None))
    except DB_ERRORS:
        return None
    try:
        conn.text_factory = _damaged_text
        conn.execute("BEGIN")
        sound = (conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
                 and [row[0] for row in conn.execute("PRAGMA quick_check")] == ["ok"]
                 and _schema_rows(conn) == expected_schema())
    except DB_ERRORS as error:
        conn.close()
        if locked(error):
            raise locked_error(db_path, timeout) from None
        return None
    if not sound:
        conn.close()
        return None
    return conn


def _compare(conn: sqlite3.Connection, fd: int, size: int) -> dict[int, int] | None:
    """Each game's number of records if every line of the copy is a whole record equal to
    the database's of its key, each step once and in order, and the database holds no
    other row and a sound games-list entry for each game; None otherwise."""
    counts: dict[int, int] = {}     # game -> its records so far (the next step expected)
    last_at: dict[int, str] = {}    # game -> the time of its last record
    run: list[Record] = []
    try:
        lines = files.lines_of(fd, size, CHUNK)
        header = next(lines, b"")
        if not header.startswith(b'{"' + HEADER_KEY.encode()) or \
                _header_version(header) not in range(SCHEMA_VERSION + 1):
            return None
        for raw in lines:
            record = _whole_record(raw)
            if record is None or record.seq != counts.get(record.game, 0):
                return None
            counts[record.game] = record.seq + 1
            last_at[record.game] = record.at
            if run and (run[0].game != record.game or len(run) >= RUN):
                if not _run_agrees(conn, run):
                    return None
                run = []
            run.append(record)
        if run and not _run_agrees(conn, run):
            return None
        return counts if _rest_agrees(conn, counts, last_at) else None
    except DB_ERRORS as error:
        if locked(error):
            raise
        return None


def _whole_record(raw: bytes) -> Record | None:
    try:
        record = Record.from_log(raw)
    except ValueError:
        return None
    return record if record.valid else None


def _run_agrees(conn: sqlite3.Connection, run: list[Record]) -> bool:
    """Whether the database holds exactly these records (consecutive steps of one game)."""
    game, first, last = run[0].game, run[0].seq, run[-1].seq
    rows = []
    if first == 0:
        rows += [(g, 0, at, line, table, digest) for g, at, table, line, digest in conn.execute(
            "SELECT id, started, table_name, setup, sum FROM games WHERE id = ?", (game,))]
    rows += conn.execute("SELECT game, seq, at, line, NULL, sum FROM actions WHERE game = ? "
                         "AND seq BETWEEN ? AND ? ORDER BY seq", (game, max(first, 1), last))
    return [record_of_row(row) for row in rows] == run


def _rest_agrees(conn: sqlite3.Connection, counts: dict[int, int],
                 last_at: dict[int, str]) -> bool:
    """Whether the database holds no row beyond the copy's (their numbers are equal and
    every line of the copy was found) and a sound games-list entry for every game."""
    total = conn.execute("SELECT (SELECT count(*) FROM games) + (SELECT count(*) FROM actions)")
    if total.fetchone()[0] != sum(counts.values()):
        return False
    for game, rules, players, turn, count, finished in conn.execute(
            "SELECT id, rules, players, turn, actions, finished FROM games"):
        if not (game in counts and _text(rules) and _names(players) and _whole(turn)
                and count == counts[game] - 1 and finished in (None, last_at[game])):
            return False
    return True
