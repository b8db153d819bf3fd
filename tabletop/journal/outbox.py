"""The table's outbox: signed slips kept on disk until the tournament director has them.

A table set up for a tournament hands its slip to the outbox before it sends it:
:meth:`Outbox.keep` returns once the slip is committed to ``outbox.db`` in the
data folder (SQLite, ``synchronous=FULL``), so a power cut or a Wi-Fi drop loses
nothing. The slip stays *pending* until the director answers for it
(:meth:`Outbox.settle`: taken, already taken, or refused and why); until then the
table sends it again each time it reaches the broker. A slip is known by its id,
:func:`slip_id`, the digest of the whole signed slip: the same slip sent twice has
one id, and a slip changed in any way (a forged one) has another.

>>> import tempfile, pathlib
>>> folder = tempfile.TemporaryDirectory()
>>> box = Outbox.open(pathlib.Path(folder.name) / "outbox.db")
>>> slip = {"game": 3, "signature": {"slip": "c2ln"}}
>>> box.keep(slip) == slip_id(slip), [parcel.slip for parcel in box.pending()]
(True, [{'game': 3, 'signature': {'slip': 'c2ln'}}])
>>> box.settle(slip_id(slip), "taken"), box.pending()
(True, [])
>>> box.close(); folder.cleanup()
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from tabletop.errors import JournalError
from tabletop.journal.files import create_private
from tabletop.journal.store import canonical, make_folder, now

OUTBOX_FILE = "outbox.db"
#: What the director may answer for a slip (the outbox keeps the answer, pending no more).
OUTCOMES = ("taken", "already", "refused")
ID_HEX = 16

_SCHEMA = """CREATE TABLE IF NOT EXISTS outbox (
    id TEXT PRIMARY KEY, kept TEXT NOT NULL, slip TEXT NOT NULL,
    settled TEXT, outcome TEXT, reason TEXT)"""


def slip_id(slip: Mapping[str, Any]) -> str:
    """A signed slip's id: the first 16 hex digits of the SHA-256 of its canonical JSON.

    >>> slip_id({"game": 3, "signature": {"slip": "c2ln"}})
    '6264588673df7986'
    """
    return hashlib.sha256(canonical(dict(slip))).hexdigest()[:ID_HEX]


@dataclass(frozen=True)
class Parcel:
    """One slip in the outbox: its id, when it was kept, and the director's answer (if any)."""

    id: str
    kept: str
    slip: dict[str, Any]
    outcome: str | None = None
    reason: str | None = None


class Outbox:
    """The slips of one table not yet answered for. Safe to use from several threads
    (the table's loop keeps slips, the broker's thread settles them)."""

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self._conn = conn
        self._lock = threading.Lock()

    @classmethod
    def open(cls, path: str | Path) -> Outbox:
        """The outbox at ``path`` (made, readable by its owner only, if missing)."""
        path = Path(path)
        try:
            make_folder(path.parent)
            create_private(path)
            conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False,
                                   timeout=5.0)
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute(_SCHEMA)
        except (OSError, sqlite3.Error) as error:
            raise JournalError(f"cannot open the outbox {path}: {error}") from None
        return cls(path, conn)

    def keep(self, slip: Mapping[str, Any]) -> str:
        """Keep ``slip`` until the director answers for it; its id. Durable on return.
        Keeping a slip already kept changes nothing (its earlier answer stands)."""
        ident = slip_id(slip)
        text = json.dumps(slip, ensure_ascii=False, sort_keys=True)
        self._write("INSERT OR IGNORE INTO outbox (id, kept, slip) VALUES (?, ?, ?)",
                    (ident, now(), text))
        return ident

    def settle(self, ident: str, outcome: str, reason: str | None = None) -> bool:
        """Record the director's answer for the slip ``ident``; whether it was pending here."""
        if outcome not in OUTCOMES:
            raise ValueError(f"an outcome is one of {', '.join(OUTCOMES)} ({outcome!r} is not)")
        changed = self._write("UPDATE outbox SET settled = ?, outcome = ?, reason = ? "
                              "WHERE id = ? AND settled IS NULL", (now(), outcome, reason, ident))
        return changed > 0

    def pending(self) -> list[Parcel]:
        """The slips the director has not answered for, oldest first."""
        return self._parcels("WHERE settled IS NULL")

    def refused(self) -> list[Parcel]:
        """The slips the director refused, with its reasons (the players should hear of them)."""
        return self._parcels("WHERE outcome = 'refused'")

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def _parcels(self, where: str) -> list[Parcel]:
        with self._lock:
            try:
                rows = self._conn.execute(
                    f"SELECT id, kept, slip, outcome, reason FROM outbox {where} "
                    f"ORDER BY rowid").fetchall()
            except sqlite3.Error as error:
                raise JournalError(f"cannot read the outbox {self.path}: {error}") from None
        return [Parcel(ident, kept, json.loads(text), outcome, reason)
                for ident, kept, text, outcome, reason in rows]

    def _write(self, statement: str, values: tuple[Any, ...]) -> int:
        with self._lock:
            try:
                return self._conn.execute(statement, values).rowcount
            except sqlite3.Error as error:
                raise JournalError(f"cannot write the outbox {self.path}: {error}") from None
