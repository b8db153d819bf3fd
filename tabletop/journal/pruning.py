"""Removing games from both copies of the journal so that a crash at any moment loses nothing.

Pruning takes games out of the database and out of the append-only copy, two files
that cannot change at once. So it first writes what it is about to do,
``journal.db.pruning`` (the games, each with its number of records and its last
record's checksum; written whole, fsynced, renamed into place), and then:

1. removes the known-good mark (the next opening checks every record);
2. writes the copy without those games' lines (a fresh file, fsynced, renamed over it;
   every other line is kept byte for byte, a damaged one too, for recovery to judge);
3. deletes the games from the database, in one transaction;
4. removes ``journal.db.pruning``.

A writer opening the journal (the table, ``tabletop check --repair``, ``tabletop prune``
again) while ``journal.db.pruning`` is there finishes those steps first
(:func:`finish_interrupted`), each of them harmless when already done, and only then
checks the journal: both copies then agree, so nothing is reported damaged and no other
game is touched. A game whose records in the database are no longer those the file
names is left in the database (recovery then writes it back into the copy): at worst a
pruned game comes back, never is one lost that was not archived.

>>> intent = Intent({3: (41, "ab" * 32)}, "old-games.jsonl")
>>> Intent.from_json(intent.to_json().encode()) == intent
True
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Callable

from tabletop.journal import files, known_good, store
from tabletop.journal.store import Record

INTENT_KEY = "tabletop_prune"
#: Called with each step's number once the step is done; None in use. The crash tests set
#: it in a process of their own to kill it there (the journal reads no configuration).
after_step: Callable[[int], None] | None = None


@dataclass(frozen=True)
class Intent:
    """The games a prune removes: game id -> (its records, its last record's checksum)."""

    games: dict[int, tuple[int, str]]
    archive: str

    def to_json(self) -> str:
        return json.dumps({INTENT_KEY: 1, "archive": self.archive,
                           "games": {str(g): list(v) for g, v in self.games.items()}}) + "\n"

    @classmethod
    def from_json(cls, raw: bytes) -> "Intent":
        data = json.loads(raw.decode("utf-8"))
        if not isinstance(data, dict) or data.get(INTENT_KEY) != 1:
            raise ValueError("not a prune's file")
        games = {int(g): (int(n), str(s)) for g, (n, s) in data["games"].items()}
        return cls(games, str(data.get("archive", "")))


def intent_path(db_path: Path) -> Path:
    """``journal.db.pruning`` beside the database."""
    return db_path.with_name(db_path.name + ".pruning")


def read_intent(db_path: Path) -> Intent | None:
    """The interrupted prune's file, if there is one; JournalError-free: an unreadable one
    is None (it was never put in place whole: the rename is the last thing written)."""
    path = intent_path(db_path)
    if not os.path.lexists(path) or files.odd_file(path) is not None:
        return None
    try:
        return Intent.from_json(files.read_head(path, 1 << 24))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def prune(db_path: Path, log_path: Path, intent: Intent, timeout: float = 5.0) -> list[int]:
    """Remove the intent's games from both copies (the caller holds the writer lock and
    has found the journal whole); the games removed from the database."""
    _write_intent(db_path, intent)
    _crash_point(1)
    return _steps(db_path, log_path, intent, timeout)


def finish_interrupted(db_path: Path, log_path: Path, timeout: float = 5.0) -> list[str]:
    """Finish a prune a crash interrupted (the caller holds the writer lock); what was done,
    in sentences (none if no prune was pending)."""
    intent = read_intent(db_path)
    path = intent_path(db_path)
    if intent is None:
        if os.path.lexists(path) and files.odd_file(path) is None:
            files.remove_quietly(path)       # never whole: no step after it was taken
        return []
    try:
        removed = _steps(db_path, log_path, intent, timeout)
    except store.DB_ERRORS as error:
        if store.locked(error):
            raise
        # A database that cannot be read now: its recovery comes first; the prune is
        # finished at a later opening (its file stays).
        return [f"a prune of {_games(sorted(intent.games))} was interrupted and could not be "
                f"finished yet ({error}); it is finished when the journal is next opened"]
    kept = sorted(set(intent.games) - set(removed))
    said = (f"a prune of {_games(sorted(intent.games))} (archived in {intent.archive}) was "
            f"interrupted; it was finished")
    if kept:
        said += f", but {_games(kept)} changed since and stayed in the journal"
    return [said]


def _steps(db_path: Path, log_path: Path, intent: Intent, timeout: float) -> list[int]:
    files.remove_quietly(known_good.mark_path(db_path))
    store.fsync_dir(db_path.parent)
    _crash_point(2)
    conn = store.connect(db_path, timeout)
    try:
        gone = [game for game, (count, last) in intent.games.items()
                if _holds(conn, game, count, last) is not False]
        _rewrite_log(log_path, set(gone))
        _crash_point(3)
        conn.execute("BEGIN IMMEDIATE")
        for game in gone:
            conn.execute("DELETE FROM actions WHERE game = ?", (game,))
            conn.execute("DELETE FROM games WHERE id = ?", (game,))
        conn.execute("COMMIT")
    finally:
        conn.close()
    _crash_point(4)
    files.remove_quietly(intent_path(db_path))
    store.fsync_dir(db_path.parent)
    _crash_point(5)
    return gone


def _holds(conn: sqlite3.Connection, game: int, count: int, last: str) -> bool | None:
    """Whether the database holds the game as the intent names it (None: it holds none of
    it, already deleted)."""
    records = store.read_records(conn, game)
    if not records:
        return None
    return len(records) == count and records[-1].sum == last


def _rewrite_log(log_path: Path, games: set[int]) -> None:
    """The copy without the whole lines that are records of ``games``; every other byte
    kept as it was. Nothing is written when it holds none of them. Read a chunk at a
    time, written a line at a time: the copy is never held whole."""
    if files.not_regular(log_path) is not None:
        return                                 # a device or pipe given as the copy
    fd = os.open(log_path, os.O_RDONLY | files.NOFOLLOW | files.NONBLOCK | files.CLOEXEC)
    try:
        size = os.fstat(fd).st_size
        end = files.last_line_end(fd, size)

        def write(handle: BinaryIO) -> bool:
            removed = 0
            for line in files.lines_of(fd, end):
                if _of(line, games):
                    removed += 1
                else:
                    handle.write(line + b"\n")
            handle.write(os.pread(fd, size - end, end))     # an unfinished last line, as it was
            return removed > 0
        files.put_whole(log_path, write, suffix=".prune")
    finally:
        os.close(fd)


def _of(line: bytes, games: set[int]) -> bool:
    try:
        record = Record.from_log(line)
    except ValueError:
        return False
    return record.game in games and record.valid


def _write_intent(db_path: Path, intent: Intent) -> None:
    files.put_whole(intent_path(db_path), lambda handle: handle.write(intent.to_json().encode()))


def _crash_point(step: int) -> None:
    if after_step is not None:
        after_step(step)


def _games(ids: list[int]) -> str:
    return ("game " if len(ids) == 1 else "games ") + ", ".join(map(str, ids))
