"""A damaged journal compared in a scratch database, in memory that does not grow with it.

A journal found whole is checked streaming (:mod:`tabletop.journal.whole_check`). One
with anything else in it (a damaged line or row, a step missing, a copy from another
journal) must be compared record by record, which used to mean both copies held in
memory: some 300 MB a thousand games, more than a Pi has at ten thousand. Here both
copies are read a chunk or a row at a time into a scratch SQLite file beside the journal
(or in the temporary folder, when nothing may be written beside it), and
:func:`~tabletop.journal.comparison.compare` reads them back a game at a time. What it
finds and repairs is what the in-memory comparison finds and repairs, record for record;
what it holds at once is one game. The scratch file is removed when the comparison's
games are dropped (or closed), and it never holds anything the journal's own files do not.

>>> import tempfile, pathlib
>>> from tabletop.journal.journal import Journal
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> with Journal.open(folder / "journal.db") as journal:
...     table = journal.start({"setup": {"rules": "acquire", "players": ["Ann", "Bob"]}})
...     _ = table.push({"do": "place", "tile": "6C"})
>>> with open(folder / "journal.log", "ab") as copy:
...     _ = copy.write(b'{"game": 1, "damaged": true}\\n')
>>> log, db, plan = on_disk(folder / "journal.db", folder / "journal.log")
>>> plan.log_problem, [len(records) for records in plan.games.values()]
('had damaged lines (4)', [2])
>>> len(list(folder.glob(".journal.db.*.compare")))          # the scratch file, while kept
1
>>> plan.games.close()
>>> list(folder.glob("*.compare"))
[]
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from pathlib import Path

from tabletop.errors import JournalError
from tabletop.journal.comparison import LazyGames, Plan, chosen, compare
from tabletop.journal.files import remove_quietly
from tabletop.journal.store import DbScan, Record, scan_db
from tabletop.journal.copyfile import LogScan, stream_log

#: Rows written to the scratch file at a time.
BATCH = 2000

_TABLES = """
CREATE TABLE log (game INTEGER, seq INTEGER, at BLOB, line BLOB, tbl BLOB, sum BLOB,
                  PRIMARY KEY (game, seq)) WITHOUT ROWID;
CREATE TABLE db (n INTEGER PRIMARY KEY, game INTEGER, seq INTEGER, at BLOB, line BLOB,
                 tbl BLOB, sum BLOB, valid INTEGER);
"""


def on_disk(db_path: Path, log_path: Path, timeout: float = 5.0,
            readonly: bool = False) -> tuple[LogScan, DbScan, Plan]:
    """(log, db, plan) as :func:`~tabletop.journal.comparison.reconcile` gives them for
    both copies read whole, in memory that holds one game at a time.

    The scans' record lists stay empty; the plan's games are read from the scratch file
    when gone through, which is removed when they are dropped (or at their ``close()``).
    ``readonly``: the scratch file goes in the temporary folder, not beside the journal,
    and the database is read as :func:`~tabletop.journal.store.connect_reader` reads it.
    """
    folder = Path(tempfile.gettempdir()) if readonly else db_path.parent
    try:
        scratch = Scratch(folder, f".{db_path.name}.")
    except (OSError, sqlite3.Error) as error:
        raise _no_room(folder, db_path, log_path, error) from None
    try:
        log = stream_log(log_path, scratch.add_log)
        db = scan_db(db_path, timeout, readonly, sink=scratch)
        scratch.done()
        plan = compare(scratch, db, log, db_path.name, log_path.name, keep=False)
    except BaseException as error:
        scratch.close()
        if isinstance(error, sqlite3.Error):   # the scratch file's own (scan_db keeps its)
            raise _no_room(scratch.path.parent, db_path, log_path, error) from None
        raise
    plan.games = LazyGames(plan.games, scratch.kept, scratch.close)
    return log, db, plan


def _no_room(folder: Path, db_path: Path, log_path: Path,
             error: OSError | sqlite3.Error) -> JournalError:
    need = sum(path.stat().st_size for path in (db_path, log_path) if path.is_file())
    why = error.strerror if isinstance(error, OSError) and error.strerror else error
    return JournalError(f"could not compare the journal's two copies in a scratch file in "
                        f"{folder} ({why}); it needs about {max(1, round(need / 1e6))} MB "
                        f"free there: make room and try again (nothing was changed)")


class Scratch:
    """Both copies' records in a scratch SQLite file: a sink for each as they are read,
    then :class:`~tabletop.journal.comparison.Copies`, a game at a time."""

    def __init__(self, folder: Path, prefix: str = ".journal.db.") -> None:
        fd, name = tempfile.mkstemp(dir=folder, prefix=prefix, suffix=".compare")
        os.close(fd)
        self.path = Path(name)
        self.last: tuple[int, int] | None = None
        self._foreign: int | None = None
        self._logs: list[tuple] = []
        self._dbs: list[tuple] = []
        try:
            self._conn = sqlite3.connect(name, isolation_level=None)
            # Nothing here needs to survive a crash: the file is thrown away either way.
            self._conn.executescript("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; "
                                     "PRAGMA cache_size = -8192;" + _TABLES)
            self._conn.execute("BEGIN")
        except BaseException:
            remove_quietly(self.path)
            raise

    # -- the sinks ------------------------------------------------------------------

    def add_log(self, record: Record) -> None:
        """A record of the copy whose checksum holds (a later one for its step replaces it)."""
        self._logs.append((record.game, record.seq) + _texts(record))
        self.last = record.key
        if len(self._logs) >= BATCH:
            self._flush()

    def add(self, record: Record) -> None:
        """A record of the database, its checksum holding or not."""
        self._dbs.append((record.game, record.seq) + _texts(record) + (record.valid,))
        if len(self._dbs) >= BATCH:
            self._flush()

    def discard(self) -> None:
        """The database could not be read to its end: none of its records count."""
        self._dbs = []
        self._conn.execute("DELETE FROM db")

    def done(self) -> None:
        """Every record is in: index them and end the writing."""
        self._flush()
        self._conn.execute("CREATE INDEX db_game ON db (game, seq, n)")
        self._conn.execute("COMMIT")

    def _flush(self) -> None:
        # In the order read: a later line of the copy for a step replaces an earlier one.
        self._conn.executemany("INSERT OR REPLACE INTO log VALUES (?, ?, ?, ?, ?, ?)", self._logs)
        self._conn.executemany("INSERT INTO db (game, seq, at, line, tbl, sum, valid) "
                               "VALUES (?, ?, ?, ?, ?, ?, ?)", self._dbs)
        self._logs, self._dbs = [], []

    # -- Copies ---------------------------------------------------------------------

    def games(self) -> list[int]:
        return [game for (game,) in self._conn.execute(
            "SELECT game FROM log UNION SELECT game FROM db ORDER BY 1")]

    def of_log(self, game: int) -> dict[int, Record]:
        return {row[1]: _record(row, True) for row in self._conn.execute(
            "SELECT game, seq, at, line, tbl, sum FROM log WHERE game = ?", (game,))}

    def of_db(self, game: int) -> list[Record]:
        return [_record(row[:6], bool(row[6])) for row in self._conn.execute(
            "SELECT game, seq, at, line, tbl, sum, valid FROM db WHERE game = ? "
            "ORDER BY seq, n", (game,))]

    def foreign(self) -> int:
        if self._foreign is None:
            # A database record whose checksum holds, for a step the copy holds differently
            # (with several rows for one step, the last one read counts, as in memory).
            self._foreign = self._conn.execute(
                "SELECT count(*) FROM log JOIN db ON db.n = (SELECT max(n) FROM db AS d "
                "WHERE d.game = log.game AND d.seq = log.seq AND d.valid) WHERE NOT "
                "(log.at IS db.at AND log.line IS db.line AND log.tbl IS db.tbl AND "
                "log.sum IS db.sum)").fetchone()[0]
        return self._foreign

    def kept(self, game: int) -> list[Record]:
        """One game's records as the comparison kept them (the copy's left out if it
        belongs to another journal)."""
        return chosen({} if self.foreign() else self.of_log(game), self.of_db(game))

    def close(self) -> None:
        try:
            self._conn.close()
        finally:
            remove_quietly(self.path)


def _texts(record: Record) -> tuple:
    # As bytes: a text the copy gave may hold what SQLite's text cannot (a lone surrogate).
    return tuple(None if text is None else text.encode("utf-8", "surrogatepass")
                 for text in (record.at, record.line, record.table, record.sum))


def _record(row: tuple, valid: bool) -> Record:
    game, seq, *texts = row
    at, line, table, digest = (None if raw is None else bytes(raw).decode("utf-8", "surrogatepass")
                               for raw in texts)
    record = Record(game, seq, at, line, table, digest)
    # Its checksum was worked out as it was read: the fields have not changed since.
    vars(record)["valid"] = valid
    return record
