"""The journal's two copies, and getting a game back when one of them is damaged.

Every confirmed step of a game is a :class:`Record`: the game's id, its
sequence number (0 is the setup line, then one per action, ``undo`` included),
the time, the table-script line and a SHA-256 checksum of all of these. The
records live twice: in the SQLite database (``journal.db``) and, one JSON line
each, in an append-only copy beside it (``journal.log``, whose first line says
its format version). A record reaches the copy, fsynced, before the database
commits it, so at most the very last line of the copy can be missing from the
database after a crash.

>>> record = Record(3, 1, "2026-03-01T14:03:22Z", '{"do": "place", "tile": "6C"}').sealed()
>>> record.valid, Record.from_log(record.to_log().encode()) == record
(True, True)
>>> dataclasses.replace(record, line='{"do": "place", "tile": "7C"}').valid
False

:func:`recover` compares the copies when a journal is opened for writing.
A database that cannot be read, fails SQLite's ``quick_check``, holds a record
whose checksum fails, or disagrees with the copy is kept aside
(``journal.db.damaged-<time>``) and rebuilt from the records whose checksums
hold (the copy's win over the database's). A torn last line of the copy (its
saving was cut short, so it was never confirmed) is cut off and kept aside.
The :class:`RecoveryReport` says plainly what was found and whether anything
confirmed was lost (only a record damaged in both copies can be).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sqlite3
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from tabletop.errors import JournalError

#: The database's ``user_version`` and the copy's header version this code writes and reads.
SCHEMA_VERSION = 1
HEADER_KEY = "tabletop_journal"
Describe = Callable[[sqlite3.Connection, int, list["Record"]], None]

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

    @property
    def valid(self) -> bool:
        """Whether the checksum matches the fields."""
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
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


# -- the database ---------------------------------------------------------------

def connect(path: Path, timeout: float = 5.0, readonly: bool = False) -> sqlite3.Connection:
    """A connection in autocommit mode with the journal's settings (WAL, synchronous=FULL)."""
    conn = sqlite3.connect(str(path), timeout=timeout, isolation_level=None)
    try:
        if readonly:
            conn.execute("PRAGMA query_only = ON")
        else:
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
    except sqlite3.Error:
        conn.close()
        raise
    return conn


def create_schema(conn: sqlite3.Connection) -> None:
    conn.executescript(SCHEMA)


def newer_version_error(path: Path, version: int) -> JournalError:
    return JournalError(
        f"{path} was written by a newer tabletop (journal format {version}; this one reads "
        f"up to {SCHEMA_VERSION}): install the newer tabletop to open it; the file was left untouched")


def insert_record(conn: sqlite3.Connection, record: Record) -> None:
    if record.seq == 0:
        conn.execute("INSERT INTO games (id, started, table_name, setup, sum, rules, players, "
                     "turn, actions) VALUES (?, ?, ?, ?, ?, '', '[]', 0, 0)",
                     (record.game, record.at, record.table or "", record.line, record.sum))
    else:
        conn.execute("INSERT INTO actions VALUES (?, ?, ?, ?, ?)",
                     (record.game, record.seq, record.at, record.line, record.sum))


def read_records(conn: sqlite3.Connection, game: int | None = None) -> list[Record]:
    """The records the database holds (of one game, or all), checksums not yet checked."""
    where, args = ("WHERE id = ?", (game,)) if game is not None else ("", ())
    records = [Record(g, 0, at, line, table, digest) for g, at, table, line, digest in conn.execute(
        f"SELECT id, started, table_name, setup, sum FROM games {where} ORDER BY id", args)]
    where = where.replace("id", "game")
    records += [Record(g, seq, at, line, None, digest) for g, seq, at, line, digest in conn.execute(
        f"SELECT game, seq, at, line, sum FROM actions {where} ORDER BY game, seq", args)]
    records.sort(key=lambda record: record.key)
    return records


@dataclass
class DbScan:
    """What a database file holds, and whether it can be trusted."""

    exists: bool = False
    error: str | None = None        # unreadable, or quick_check's complaint
    has_schema: bool = False
    records: list[Record] = field(default_factory=list)

    @property
    def bad(self) -> list[Record]:
        return [record for record in self.records if not record.valid]


def scan_db(path: Path) -> DbScan:
    """Read every record of the database at ``path``; refuse a newer format."""
    if not path.exists():
        return DbScan()
    scan = DbScan(exists=True)
    try:
        conn = sqlite3.connect(str(path), timeout=5.0, isolation_level=None)
    except sqlite3.Error as error:
        scan.error = str(error)
        return scan
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise newer_version_error(path, version)
        problems = [row[0] for row in conn.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            scan.error = "; ".join(problems[:3])
            return scan
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        scan.has_schema = version == SCHEMA_VERSION and {"games", "actions"} <= tables
        if scan.has_schema:
            scan.records = read_records(conn)
        elif tables:
            scan.error = "it is not a tabletop journal of a known format"
    except sqlite3.Error as error:
        scan.error = str(error)
    finally:
        conn.close()
    return scan


# -- the append-only copy -------------------------------------------------------

@dataclass
class LogScan:
    """What the append-only copy holds, up to its last whole line."""

    exists: bool = False
    regular: bool = True
    version: int | None = None
    records: list[Record] = field(default_factory=list)   # whole lines whose checksums hold
    bad: list[int] = field(default_factory=list)          # numbers of damaged whole lines
    torn: bytes = b""                                     # an unfinished last line
    whole_size: int = 0                                   # bytes up to the last whole line


def header_line() -> str:
    return json.dumps({HEADER_KEY: SCHEMA_VERSION, "created": now()}) + "\n"


def scan_log(path: Path) -> LogScan:
    """Read the copy at ``path`` (its size as it is now: a writer may be appending)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return LogScan()
    if not stat.S_ISREG(info.st_mode):
        return LogScan(exists=True, regular=False)
    with open(path, "rb") as handle:
        data = handle.read(info.st_size)
    cut = data.rfind(b"\n") + 1
    scan = LogScan(exists=True, torn=data[cut:], whole_size=cut)
    for number, raw in enumerate(data[:cut].split(b"\n")[:-1], start=1):
        if number == 1 and raw.startswith(b'{"' + HEADER_KEY.encode()):
            scan.version = _header_version(raw)
            if scan.version is None:
                scan.bad.append(number)
            continue
        try:
            record = Record.from_log(raw)
        except ValueError:
            scan.bad.append(number)
            continue
        if record.valid:
            scan.records.append(record)
        else:
            scan.bad.append(number)
    return scan


def _header_version(raw: bytes) -> int | None:
    try:
        version = json.loads(raw).get(HEADER_KEY)
    except (ValueError, AttributeError):
        return None
    return version if _whole(version) else None


def fsync_dir(folder: Path) -> None:
    """Make a file's creation or renaming durable (where the system allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass


def write_log(path: Path, records: Iterable[Record]) -> None:
    """Write a complete copy next to ``path``, fsync it, then put it in place."""
    temporary = path.with_name(path.name + ".rewrite")
    with open(temporary, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(header_line())
        for record in records:
            handle.write(record.to_log())
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
    fsync_dir(path.parent)


# -- comparing the copies ---------------------------------------------------------

def now() -> str:
    """The time now, UTC, to the second, as the journal writes it."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


@dataclass
class Plan:
    """What the journal holds once both copies are read, and what must be repaired."""

    games: dict[int, list[Record]]
    db_problem: str | None = None     # why the database must be rebuilt
    catch_up: list[Record] = field(default_factory=list)
    log_problem: str | None = None    # why the copy must be rewritten
    lost: dict[int, list[int]] = field(default_factory=dict)   # game -> seqs not restorable


def reconcile(db: DbScan, log: LogScan, db_name: str = "journal.db",
              log_name: str = "journal.log") -> Plan:
    """Merge both copies record by record (a valid copy line wins) and judge each copy."""
    from_log: dict[tuple[int, int], Record] = {}
    for record in log.records:
        from_log[record.key] = record   # a later line for the same step replaces an earlier one
    from_db = {record.key: record for record in db.records if record.valid}
    seen = set(from_log) | {record.key for record in db.records}
    chosen = {key: from_log.get(key) or from_db.get(key) for key in seen}
    plan = Plan(games={})
    for game in sorted({key[0] for key in seen}):
        seqs = sorted(seq for g, seq in seen if g == game)
        kept: list[Record] = []
        while chosen.get((game, len(kept))) is not None:
            kept.append(chosen[(game, len(kept))])
        if len(kept) <= seqs[-1]:
            plan.lost[game] = list(range(len(kept), seqs[-1] + 1))
        if kept:
            plan.games[game] = kept
    wanted = {record.key: record for records in plan.games.values() for record in records}
    plan.db_problem = _db_problem(db, wanted, log, plan, log_name)
    plan.log_problem = _log_problem(log, wanted, from_log, db_name)
    return plan


def _db_problem(db: DbScan, wanted: Mapping, log: LogScan, plan: Plan, log_name: str) -> str | None:
    if not db.exists:
        return "was missing" if wanted else None
    if db.error is not None:
        return f"could not be read ({db.error})"
    if not db.has_schema:
        return "was empty (cut short)" if wanted else None
    if db.bad:
        first = db.bad[0]
        return f"failed its checksum at game {first.game}, record {first.seq}"
    held = {record.key: record for record in db.records}
    if any(wanted.get(key) != record for key, record in held.items()):
        return f"disagreed with {log_name}"
    missing = [key for key in wanted if key not in held]
    last = log.records[-1].key if log.records else None
    if missing == [last]:
        plan.catch_up = [wanted[last]]   # the one step a crash can leave unsaved in the database
        return None
    if missing:
        return f"was missing {len(missing)} records that {log_name} holds"
    return None


def _log_problem(log: LogScan, wanted: Mapping, from_log: Mapping, db_name: str) -> str | None:
    if not log.regular:
        return None   # a device or pipe given as the copy: written to, never replaced
    if not log.exists or log.whole_size == 0:
        return "was missing" if wanted else "new"
    if log.version is None:
        return "had no readable header line"
    if log.bad:
        return f"had damaged lines ({', '.join(map(str, log.bad[:5]))})"
    missing = [key for key, record in wanted.items() if from_log.get(key) != record]
    return f"was missing {len(missing)} records that {db_name} holds" if missing else None


# -- repairing -----------------------------------------------------------------------

@dataclass
class RecoveryReport:
    """What opening the journal found and did, in sentences for the screen.

    >>> str(RecoveryReport())
    'the journal is intact'
    """

    messages: list[str] = field(default_factory=list)
    kept: list[Path] = field(default_factory=list)          # damaged files set aside
    lost: dict[int, int] = field(default_factory=dict)      # game -> confirmed steps lost

    @property
    def clean(self) -> bool:
        return not self.messages

    def __str__(self) -> str:
        return "\n".join(self.messages) or "the journal is intact"


def recover(db_path: Path, log_path: Path, describe: Describe) -> RecoveryReport:
    """Check both copies and repair whichever is damaged; the caller holds the writer lock.

    ``describe(conn, game, records)`` writes a game's listing columns (rules, players,
    turn, actions, finished) after its records are restored.
    """
    log = scan_log(log_path)
    if log.version is not None and log.version > SCHEMA_VERSION:
        raise newer_version_error(log_path, log.version)
    db = scan_db(db_path)
    plan = reconcile(db, log, db_path.name, log_path.name)
    report = RecoveryReport()
    stamp = _stamp()
    if plan.db_problem:
        _rebuild_db(db_path, db.exists, plan, report, stamp, log_path.name, describe)
    else:
        _catch_up(db_path, plan, report, describe)
    _repair_log(log_path, log, plan, report, stamp)
    for game, seqs in plan.lost.items():
        report.lost[game] = len(seqs)
        report.messages.append(
            f"game {game}: {_count(len(seqs), 'confirmed step')} (from no. {seqs[0]}) could "
            f"not be restored: damaged in both {db_path.name} and {log_path.name}")
    fsync_dir(db_path.parent)
    return report


def _rebuild_db(path: Path, existed: bool, plan: Plan, report: RecoveryReport, stamp: str,
                log_name: str, describe: Describe) -> None:
    temporary = path.with_name(path.name + ".rebuild")
    _remove(temporary)
    conn = connect(temporary)
    try:
        create_schema(conn)
        conn.execute("BEGIN")
        for game, records in plan.games.items():
            for record in records:
                insert_record(conn, record)
            describe(conn, game, records)
        conn.execute("COMMIT")
    finally:
        conn.close()
    what = f"{path.name} {plan.db_problem}"
    if existed:
        aside = _set_aside(path, stamp)
        report.kept.append(aside)
        what += f" and is kept as {aside.name}"
    os.replace(temporary, path)
    fsync_dir(path.parent)
    report.messages.append(f"{what}; it was rebuilt from {log_name}: {_restored(plan)}")


def _restored(plan: Plan) -> str:
    if len(plan.games) > 4:
        steps = sum(len(records) - 1 for records in plan.games.values())
        return f"{len(plan.games)} games with {_count(steps, 'confirmed action')}"
    return "; ".join(f"game {game} with {'' if game in plan.lost else 'all '}"
                     f"{_count(len(records) - 1, 'confirmed action')}"
                     for game, records in plan.games.items()) or "no games"


def _catch_up(path: Path, plan: Plan, report: RecoveryReport, describe: Describe) -> None:
    conn = connect(path)
    try:
        create_schema(conn)
        if not plan.catch_up:
            return
        record = plan.catch_up[0]
        conn.execute("BEGIN IMMEDIATE")
        insert_record(conn, record)
        describe(conn, record.game, plan.games[record.game])
        conn.execute("COMMIT")
    finally:
        conn.close()
    step = "its setup" if record.seq == 0 else f"action no. {record.seq}"
    report.messages.append(
        f"game {record.game}: {step} was saved in the append-only copy but not yet in "
        f"{path.name} when the program stopped; it is restored")


def _repair_log(path: Path, log: LogScan, plan: Plan, report: RecoveryReport, stamp: str) -> None:
    if log.torn and log.regular:
        torn = path.with_name(f"{path.name}.torn-{stamp}")
        torn.write_bytes(log.torn)
        report.kept.append(torn)
        report.messages.append(
            f"{path.name} ended in an unfinished line ({_count(len(log.torn), 'byte')}: a step "
            f"whose saving was cut short, so it was never confirmed); it is kept as {torn.name} "
            f"and nothing confirmed was lost")
        if plan.log_problem is None:
            with open(path, "r+b") as handle:
                handle.truncate(log.whole_size)
                os.fsync(handle.fileno())
    if plan.log_problem is None:
        return
    if plan.log_problem != "new":
        message = f"{path.name} {plan.log_problem}"
        if log.exists:
            aside = _set_aside(path, stamp)
            report.kept.append(aside)
            message += f" and is kept as {aside.name}"
        report.messages.append(f"{message}; it was rewritten from the journal's records")
    write_log(path, [record for records in plan.games.values() for record in records])


def _set_aside(path: Path, stamp: str) -> Path:
    """Move a damaged file (and a database's -wal and -shm files) out of the way."""
    aside, number = path.with_name(f"{path.name}.damaged-{stamp}"), 1
    while aside.exists():
        number += 1
        aside = path.with_name(f"{path.name}.damaged-{stamp}-{number}")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(str(path) + suffix):
            os.replace(str(path) + suffix, str(aside) + suffix)
    return aside


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.remove(str(path) + suffix)
        except FileNotFoundError:
            pass


def _stamp() -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())


def _count(n: int, noun: str) -> str:
    """
    >>> _count(1, "action"), _count(57, "action")
    ('1 action', '57 actions')
    """
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
