"""The known-good mark: how far both copies of the journal were last found whole.

Opening a journal used to read and check every record it ever held, which grew with
its whole history. Now each time the writer opens it and finds it whole (checked in
full, or repaired), it writes a small file beside the database,
``journal.db.known-good``: how many bytes of the append-only copy were then whole, a
SHA-256 of the last of those bytes (which copy it was), the last record they hold
and how many actions each game then had. The next opening checks only what lies after
that mark (:func:`check_tail`): the copy's lines written since, every record of each
game they belong to in the database, that the database still holds the record at the
mark, and that every other game still has the actions it had (a database put back
from an older copy is found). Anything else it finds, or a mark that no longer fits the
files, sends the opening back to the full check of every record, which also repairs.
Damage to records behind the mark (a bit gone bad on the card) is for the full check
that ``tabletop check`` runs on demand, or on a schedule, never on the way to the table.

>>> mark = Mark(log_size=120, log_tail="ab" * 32, games=3, last=(3, 17), last_sum="cd" * 32,
...             actions={1: 160, 3: 17})
>>> Mark.from_json(mark.to_json().encode()) == mark
True
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import stat
from dataclasses import dataclass, field
from typing import Iterator
from pathlib import Path

from tabletop.journal import files
from tabletop.journal.store import (DB_ERRORS, HEADER_KEY, SCHEMA_VERSION, SQLITE_MAGIC, Record,
                                    _damaged_text, _names, _schema_rows, _text, _whole,
                                    expected_schema, locked, locked_error, read_records)
from tabletop.journal.copyfile import LogScan, scan_lines

MARK_KEY = "tabletop_known_good"
MARK_VERSION = 1
#: How many bytes before the mark its digest covers: enough to tell this copy from any other.
WINDOW = 4096
#: A mark longer than this is damaged (one holds some 16 bytes a game).
MARK_LIMIT = 64 << 20


@dataclass(frozen=True)
class Mark:
    """What both copies held when they were last found whole."""

    log_size: int                   # bytes of the copy then whole (it ends at a line's end)
    log_tail: str                   # SHA-256 of the (up to) WINDOW bytes before log_size
    games: int                      # the highest game id then (0: none)
    last: tuple[int, int] | None    # the key of the copy's last record before log_size
    last_sum: str                   # that record's checksum
    actions: dict[int, int] = field(default_factory=dict)   # game -> its actions then

    def to_json(self) -> str:
        return json.dumps({MARK_KEY: MARK_VERSION, "log_size": self.log_size,
                           "log_tail": self.log_tail, "games": self.games,
                           "last": list(self.last) if self.last else None,
                           "last_sum": self.last_sum,
                           "actions": {str(game): n for game, n in self.actions.items()}},
                          separators=(",", ":")) + "\n"

    @classmethod
    def from_json(cls, raw: bytes) -> "Mark":
        """ValueError unless ``raw`` is a mark of this version with every field well formed."""
        data = json.loads(raw.decode("utf-8"))
        if not isinstance(data, dict) or data.get(MARK_KEY) != MARK_VERSION:
            raise ValueError("not a known-good mark")
        last, actions = data.get("last"), data.get("actions")
        fields = (data.get("log_size"), data.get("games"))
        if not isinstance(actions, dict) or not all(
                key.isdigit() and key.isascii() and _whole(n) for key, n in actions.items()):
            raise ValueError("not a known-good mark")
        if not (all(_whole(value) for value in fields) and isinstance(data.get("log_tail"), str)
                and isinstance(data.get("last_sum"), str)
                and (last is None or (isinstance(last, list) and len(last) == 2
                                      and all(_whole(value) for value in last)))):
            raise ValueError("not a known-good mark")
        return cls(data["log_size"], data["log_tail"], data["games"],
                   tuple(last) if last else None, data["last_sum"],
                   {int(key): n for key, n in actions.items()})


def mark_path(db_path: Path) -> Path:
    """``journal.db.known-good`` beside the database."""
    return db_path.with_name(db_path.name + ".known-good")


def read_mark(db_path: Path) -> Mark | None:
    """The mark beside the database; None if there is none, or it is damaged or odd (the
    opening then checks every record, as it always did)."""
    path = mark_path(db_path)
    if not os.path.lexists(path) or files.odd_file(path) is not None:
        return None
    try:
        size = os.lstat(path).st_size
        return Mark.from_json(files.read_head(path, size)) if size <= MARK_LIMIT else None
    except (OSError, ValueError):
        return None


def write_mark(db_path: Path, mark: Mark) -> None:
    """Put ``mark`` in place whole or not at all (a fresh private file renamed over the old
    one, never written through a link). A mark that cannot be written is only a slower
    next opening, so a full disk here is not an error."""
    try:
        files.put_whole(mark_path(db_path), lambda handle: handle.write(mark.to_json().encode()))
    except OSError:
        pass


def mark_now(log_path: Path, conn: sqlite3.Connection) -> Mark | None:
    """The mark of the journal as it is now (just found whole); None if the copy is no
    regular file, or does not end at a line's end."""
    with _regular(log_path) as opened:
        if opened is None or opened[1].st_size == 0:
            return None
        fd, size = opened[0], opened[1].st_size
        window = _pread(fd, min(WINDOW, size), size - min(WINDOW, size))
        line = _last_line(fd, size)
    if line is None:
        return None
    last, last_sum = None, ""
    if not line.startswith(b'{"' + HEADER_KEY.encode()):
        try:
            record = Record.from_log(line)
        except ValueError:
            return None
        last, last_sum = record.key, record.sum
    actions = _actions(conn)
    return Mark(size, hashlib.sha256(window).hexdigest(), max(actions, default=0), last,
                last_sum, actions)


def update(db_path: Path, log_path: Path, conn: sqlite3.Connection) -> None:
    """Write the mark of the journal as it is now, if it moved: call it only once both
    copies were found whole (checked, or repaired)."""
    try:
        mark = mark_now(log_path, conn)
    except DB_ERRORS:
        return
    if mark is not None and mark != read_mark(db_path):
        write_mark(db_path, mark)


def _pread(fd: int, size: int, offset: int) -> bytes:
    chunks = []
    while size > 0:
        chunk = os.pread(fd, size, offset)
        if not chunk:
            break
        chunks.append(chunk)
        size, offset = size - len(chunk), offset + len(chunk)
    return b"".join(chunks)


def _last_line(fd: int, size: int) -> bytes | None:
    """The copy's last line (without its line end), read from the end; None if the file
    does not end with one."""
    if _pread(fd, 1, size - 1) != b"\n":
        return None
    end, start, step = size - 1, size - 1, 8192
    while start > 0:
        start = max(0, start - step)
        found = _pread(fd, end - start, start).rfind(b"\n")
        if found >= 0:
            return _pread(fd, end - start - found - 1, start + found + 1)
    return _pread(fd, end, 0)


# -- checking what came after the mark ------------------------------------------------

@dataclass
class Tail:
    """What the copy holds after the mark, found to agree with the database."""

    log: LogScan                       # the lines after the mark; whole_size from the start
    games: dict[int, list[Record]]     # every record of each game the tail touches
    catch_up: Record | None = None     # the copy's last record, not yet in the database


def check_tail(db_path: Path, log_path: Path, mark: Mark, timeout: float = 5.0) -> Tail | None:
    """Check only what was written after ``mark``: the Tail, if both copies agree there and
    still fit the mark; None when anything else is found (the full check then runs).

    What a crash leaves is handled here: a torn last line of the copy, a last line that lost
    its line end, the copy's last record missing from the database.
    """
    data = _log_after(log_path, mark)
    if data is None:
        return None
    log = scan_lines(data, mark.log_size)
    if log.bad or not _database_looks_whole(db_path):
        return None
    try:
        conn = sqlite3.connect(f"{db_path.absolute().as_uri()}?mode=rw", uri=True,
                               timeout=timeout, isolation_level=None)
    except DB_ERRORS:
        return None
    try:
        conn.text_factory = _damaged_text
        conn.execute("BEGIN")            # one consistent view of the database
        if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION or \
                _schema_rows(conn) != expected_schema():
            return None
        return _compare(conn, log, mark)
    except DB_ERRORS as error:
        if locked(error):     # in use by another program, not damaged: nothing is touched
            raise locked_error(db_path, timeout) from None
        return None
    finally:
        conn.close()


def _log_after(log_path: Path, mark: Mark) -> bytes | None:
    """The copy's bytes after the mark; None unless it is still the copy the mark was made
    of (a regular file at least as long, this version's header, the same bytes before it)."""
    with _regular(log_path) as opened:
        if opened is None or opened[1].st_size < mark.log_size or mark.log_size == 0:
            return None
        fd, info = opened
        head = _pread(fd, min(256, mark.log_size), 0).split(b"\n")[0]
        try:
            version = json.loads(head).get(HEADER_KEY)
        except (ValueError, AttributeError):
            return None
        start = max(0, mark.log_size - WINDOW)
        window = _pread(fd, mark.log_size - start, start)
        if version != SCHEMA_VERSION or not window.endswith(b"\n") or \
                hashlib.sha256(window).hexdigest() != mark.log_tail:
            return None
        return _pread(fd, info.st_size - mark.log_size, mark.log_size)


@contextlib.contextmanager
def _regular(path: Path) -> Iterator[tuple[int, os.stat_result] | None]:
    """The file's descriptor and status, opened without following a link; None unless it
    is a regular file (a copy behind a link or a FIFO is no copy the mark knows)."""
    try:
        fd = os.open(path, os.O_RDONLY | files.NOFOLLOW | files.NONBLOCK | files.CLOEXEC)
    except OSError:
        yield None
        return
    try:
        info = os.fstat(fd)
        yield (fd, info) if stat.S_ISREG(info.st_mode) else None
    finally:
        os.close(fd)


def _database_looks_whole(db_path: Path) -> bool:
    """A regular file of one name with SQLite's header and sound format bytes."""
    if files.odd_file(db_path) is not None or not os.path.lexists(db_path):
        return False
    try:
        header = files.read_head(db_path, 100)
    except OSError:
        return False
    return header[:16] == SQLITE_MAGIC and {1, 2} >= set(header[18:20])


def _compare(conn: sqlite3.Connection, log: LogScan, mark: Mark) -> Tail | None:
    """The Tail if the database agrees with the copy's records after the mark."""
    by_game: dict[int, list[Record]] = {}
    for record in log.records:
        by_game.setdefault(record.game, []).append(record)
    for game, records in by_game.items():
        first = records[0].seq
        if [record.seq for record in records] != list(range(first, first + len(records))):
            return None                       # a step missing, or written twice
        if (first == 0) != (game > mark.games):
            return None                       # only a game begun after the mark begins here
    if mark.last is not None and not _holds(conn, mark.last, mark.last_sum, by_game):
        return None
    last = log.records[-1].key if log.records else None
    tail = Tail(log, {})
    for game, records in by_game.items():
        held = read_records(conn, game)
        if any(not record.valid for record in held) or \
                [record.seq for record in held] != list(range(len(held))):
            return None
        first, wanted = records[0].seq, records[-1].seq + 1
        catch_up = None
        if len(held) == wanted - 1 and records[-1].key == last:
            catch_up, records = records[-1], records[:-1]   # the one step a crash can leave
        elif len(held) != wanted:
            return None
        if held[first:] != records or (held and not _listed(conn, game, held)):
            return None
        tail.games[game] = held + ([catch_up] if catch_up else [])
        tail.catch_up = tail.catch_up or catch_up
    # Every other game has the actions it had: none lost (a database put back from an
    # older copy), none added, and no game beyond those the copy holds.
    held = _actions(conn)
    for game in by_game:
        held.pop(game, None)
    return tail if held == {game: n for game, n in mark.actions.items()
                            if game not in by_game} else None


def _actions(conn: sqlite3.Connection) -> dict[int, int]:
    """Each game's number of actions, as the games list says."""
    return dict(conn.execute("SELECT id, actions FROM games"))


def _holds(conn: sqlite3.Connection, key: tuple[int, int], digest: str,
           by_game: dict[int, list[Record]]) -> bool:
    """Whether the database still holds the record at the mark, and (its game not written
    to since) nothing after it."""
    game, seq = key
    if seq == 0:
        row = conn.execute("SELECT sum FROM games WHERE id = ?", (game,)).fetchone()
    else:
        row = conn.execute("SELECT sum FROM actions WHERE game = ? AND seq = ?",
                           (game, seq)).fetchone()
    if row is None or row[0] != digest:
        return False
    if game in by_game:
        return True
    after = conn.execute("SELECT coalesce(max(seq), 0) FROM actions WHERE game = ?",
                         (game,)).fetchone()[0]
    return after == seq


def _listed(conn: sqlite3.Connection, game: int, held: list[Record]) -> bool:
    """Whether the game's entry in the games list is sound (as the full check judges it)."""
    row = conn.execute("SELECT rules, players, turn, actions, finished FROM games WHERE id = ?",
                       (game,)).fetchone()
    if row is None:
        return False
    rules, players, turn, count, finished = row
    return (_text(rules) and _names(players) and _whole(turn) and count == len(held) - 1
            and finished in (None, held[-1].at))
