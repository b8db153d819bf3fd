"""Getting a game back when one of the journal's two copies is damaged.

The records (:mod:`tabletop.journal.store`) live twice: in the SQLite database
(``journal.db``) and in an append-only copy beside it (``journal.log``). A
record reaches the copy, fsynced, before the database commits it, so at most
the very last line of the copy can be missing from the database after a crash.

:func:`recover` compares the copies when a journal is opened for writing.
A database that cannot be read, fails SQLite's ``quick_check``, holds a record
whose checksum fails (or a damaged field, table definition or games-list
entry), or disagrees with the copy is kept aside (``journal.db.damaged-<time>``)
and rebuilt from the records whose checksums hold (the copy's win over the
database's). A copy whose records differ from the database's although both
checksums hold belongs to another journal: it is kept aside and rewritten,
never mixed in. A ``-wal`` or ``-shm`` file left without its database is kept
aside too (SQLite would replay it into the rebuilt one). A torn last line of
the copy (its saving was cut short, so it was never confirmed) is cut off and
kept aside. A database that another program keeps locked is not damaged: the
journal is not opened, and nothing is touched. The :class:`RecoveryReport`
says plainly what was found and whether anything confirmed was lost (only a
record damaged in both copies can be; when neither copy is whole, it says
where confirmed steps may be missing). A journal found whole is found so in memory
that does not grow with its history (:mod:`tabletop.journal.whole_check`); one with
something else in it is compared record by record (:mod:`tabletop.journal.comparison`)
in a scratch database on the disk (:mod:`tabletop.journal.scratch`), a game at a time,
and repaired here a game at a time.
"""

from __future__ import annotations

import glob
import os
import sqlite3
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from tabletop.errors import JournalError
from tabletop.journal.comparison import Plan, _count
from tabletop.journal.store import (DB_ERRORS, ROLLBACK_FILE, SCHEMA_VERSION, SIDE_FILES, DbScan,
                                    Record, connect, create_schema, fsync_dir, insert_record,
                                    locked, locked_error, newer_version_error)
from tabletop.journal.copyfile import LogScan, header_version, write_log

from tabletop.journal.files import odd_file, open_private
from tabletop.journal.known_good import check_tail, read_mark
from tabletop.journal.scratch import on_disk
from tabletop.journal.whole_check import whole

Describe = Callable[[sqlite3.Connection, int, list[Record]], None]


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


def recover(db_path: Path, log_path: Path, describe: Describe,
            timeout: float = 5.0, check_all: bool = False) -> RecoveryReport:
    """Check both copies and repair whichever is damaged; the caller holds the writer lock.

    ``describe(conn, game, records)`` writes a game's listing columns (rules, players,
    turn, actions, finished) after its records are restored. With a known-good mark
    (:mod:`tabletop.journal.known_good`) only what came after it is checked, unless
    ``check_all``; whatever that finds beyond a crash's traces sends it to the full check.
    """
    if not check_all and not os.path.lexists(f"{db_path}{ROLLBACK_FILE}"):
        report = _recover_tail(db_path, log_path, describe, timeout)
        if report is not None:
            return report
    report = RecoveryReport()
    stamp = _stamp()
    found = None if os.path.lexists(f"{db_path}{ROLLBACK_FILE}") else whole(db_path, log_path,
                                                                             timeout)
    if found is not None:
        log, db, plan = found
        plan.games.close()    # whole: nothing below reads a game's records
    else:
        log, db, plan = _compare_on_disk(db_path, log_path, timeout, report, stamp)
    try:
        _repair(db_path, log_path, describe, timeout, report, stamp, log, db, plan)
    finally:
        if found is None:
            plan.games.close()   # the scratch file goes
    return report


def _repair(db_path: Path, log_path: Path, describe: Describe, timeout: float,
            report: RecoveryReport, stamp: str, log: LogScan, db: DbScan, plan: Plan) -> None:
    # What was confirmed is known for sure if either copy is whole (the copy gets every
    # step first; the database each one it acknowledged). If neither is, a torn last line
    # may have been confirmed, damaged lines may have held steps nobody else holds.
    cut = bool(log.torn) and log.regular      # its end cut off (or only its line end lost)
    damaged = [number for number in log.bad if number > 1]
    # An empty database file beside no copy was made and never written: a new journal.
    fresh = not ((db.exists and not db.empty) or db.leftovers or log.whole_size or log.torn)
    certain = fresh or plan.db_whole or (log.whole_size > 0 and not cut and not damaged)
    if plan.db_problem:
        _rebuild_db(db_path, db, plan, report, stamp, log_path.name, describe, not certain)
    else:
        _catch_up_unless_locked(db_path, plan, report, describe, timeout)
    _repair_log(log_path, log, plan, report, stamp, certain)
    if not certain:
        report.messages.append(_doubt(db_path.name, log_path.name, log, damaged))
    for game, seqs in plan.lost.items():
        report.lost[game] = len(seqs)
        report.messages.append(
            f"game {game}: {_count(len(seqs), 'confirmed step')} (from no. {seqs[0]}) could "
            f"not be restored: damaged in both {db_path.name} and {log_path.name}")
    fsync_dir(db_path.parent)


def _compare_on_disk(db_path: Path, log_path: Path, timeout: float, report: RecoveryReport,
                     stamp: str) -> tuple[LogScan, DbScan, Plan]:
    """Both copies compared record by record: what finds and repairs damage (:func:`whole`
    answers only for a journal found whole)."""
    _newer_copy_refused(log_path)
    _rollback_aside(db_path, report, stamp)
    _leftovers_removed(db_path, log_path)
    return on_disk(db_path, log_path, timeout)


def _leftovers_removed(db_path: Path, log_path: Path) -> None:
    """Remove what a repair stopped part-way (killed, power cut) left: a scratch file, a
    database half rebuilt, a copy half rewritten. Only a writer makes them, and the caller
    holds the writer lock, so none is in use."""
    for name, suffix in ((db_path.name, ".compare"), (db_path.name, ".rebuild"),
                         (log_path.name, ".rewrite")):
        for path in db_path.parent.glob(f".{glob.escape(name)}.*{suffix}"):
            if path.is_file() and not path.is_symlink():
                _remove(path)


def _newer_copy_refused(log_path: Path) -> None:
    """A copy of a newer format is not this version's to judge: refused before anything
    is read (its header is its first line)."""
    version = header_version(log_path)
    if version is not None and version > SCHEMA_VERSION:
        raise newer_version_error(log_path, version)


def _catch_up_unless_locked(db_path: Path, plan: Plan, report: RecoveryReport,
                            describe: Describe, timeout: float) -> None:
    """:func:`_catch_up`, a database another process holds said as such."""
    try:
        _catch_up(db_path, plan, report, describe, timeout)
    except DB_ERRORS as error:
        if locked(error):
            raise locked_error(db_path, timeout) from None
        raise


def _recover_tail(db_path: Path, log_path: Path, describe: Describe,
                  timeout: float) -> RecoveryReport | None:
    """Check and repair what came after the known-good mark; None to check everything."""
    mark = read_mark(db_path)
    tail = check_tail(db_path, log_path, mark, timeout) if mark is not None else None
    if tail is None:
        return None
    report = RecoveryReport()
    plan = Plan(games=tail.games, catch_up=[tail.catch_up] if tail.catch_up else [])
    _catch_up_unless_locked(db_path, plan, report, describe, timeout)
    # The database agrees with every step after the mark, so a torn last line of the
    # copy is a step whose saving was cut short: never confirmed.
    _repair_log(log_path, tail.log, plan, report, _stamp(), certain=True)
    fsync_dir(db_path.parent)
    return report


def inspect(db_path: Path, log_path: Path, timeout: float = 5.0) -> tuple[list[str], Plan]:
    """What :func:`recover` would find, found without changing anything (``tabletop check``).

    Both copies are read as they are (nothing is made, moved or written); the findings
    are sentences, none when both copies hold every record whole and agree.
    """
    found_whole = whole(db_path, log_path, timeout, readonly=True)
    if found_whole is not None:   # its games are read one at a time, when gone through
        log, db, plan = found_whole
    else:
        _newer_copy_refused(log_path)
        log, db, plan = on_disk(db_path, log_path, timeout, readonly=True)
    found = []
    if plan.db_problem:
        found.append(f"{db_path.name} {plan.db_problem}: repairing rebuilds it from the records "
                     f"whose checksums hold")
    for record in plan.catch_up:
        found.append(f"game {record.game}: step no. {record.seq} is in {log_path.name} but not "
                     f"yet in {db_path.name} (a program stopped while saving it, or is saving "
                     f"it now)")
    if log.torn and log.regular:
        found.append(f"{log_path.name} ends in an unfinished line "
                     f"({_count(len(log.torn), 'byte')})")
    if plan.log_problem not in (None, "new"):
        found.append(f"{log_path.name} {plan.log_problem}: repairing rewrites it")
    for game, seqs in plan.lost.items():
        found.append(f"game {game}: {_count(len(seqs), 'confirmed step')} (from no. {seqs[0]}) "
                     f"damaged in both {db_path.name} and {log_path.name}: they cannot be restored")
    return found, plan


def _doubt(db_name: str, log_name: str, log: LogScan, damaged: list[int]) -> str:
    """What may have been lost when neither copy is whole."""
    what = []
    if damaged:
        lines = ", ".join(map(str, damaged[:5])) + (", ..." if len(damaged) > 5 else "")
        what.append(f"the steps on the {_count(len(damaged), 'damaged line')} of {log_name} "
                    f"(no. {lines})")
    if log.whole_size == 0 and not log.torn:
        what.append(f"the steps {log_name} (missing or empty) would have held")
    elif log.torn:
        what.append(f"the end of {log_name}, cut off")
    return (f"{db_name} could not be read whole, so it could not make up for "
            f"{' or '.join(what)}: confirmed steps may be lost there")


def _rebuild_db(path: Path, db: DbScan, plan: Plan, report: RecoveryReport, stamp: str,
                log_name: str, describe: Describe, unsure: bool) -> None:
    # A fresh name (mkstemp: made by us, 0600, never a planted link), then renamed into place.
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".rebuild")
    os.close(fd)
    temporary = Path(name)
    try:
        conn = connect(temporary)
        try:
            create_schema(conn)
            conn.execute("BEGIN")
            for game, records in plan.games.items():
                records = list(records)      # one game held at a time, read once
                for record in records:
                    insert_record(conn, record)
                describe(conn, game, records)
            conn.execute("COMMIT")
        finally:
            conn.close()
    except BaseException:
        _remove(temporary)
        raise
    what = f"{path.name} {plan.db_problem}"
    if db.exists or db.leftovers:
        # A -wal left without its database would be replayed into the rebuilt one: aside too.
        aside = _set_aside(path, stamp)
        report.kept.append(aside)
        if db.exists:
            what += f" and is kept as {aside.name}"
        else:
            what += (f"; the {' and '.join(db.leftovers)} files it left behind are kept as "
                     f"{' and '.join(aside.name + suffix for suffix in db.leftovers)}")
    os.replace(temporary, path)
    fsync_dir(path.parent)
    report.messages.append(f"{what}; it was rebuilt from {log_name}: {_restored(plan, unsure)}")


def _restored(plan: Plan, unsure: bool = False) -> str:
    if len(plan.games) > 4:
        steps = sum(len(records) - 1 for records in plan.games.values())
        return f"{len(plan.games)} games with {_count(steps, 'confirmed action')}"
    return "; ".join(f"game {game} with {'' if unsure or game in plan.lost else 'all '}"
                     f"{_count(len(records) - 1, 'confirmed action')}"
                     for game, records in plan.games.items()) or "no games"


def _catch_up(path: Path, plan: Plan, report: RecoveryReport, describe: Describe,
              timeout: float) -> None:
    conn = connect(path, timeout)
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


def _repair_log(path: Path, log: LogScan, plan: Plan, report: RecoveryReport, stamp: str,
                certain: bool = True) -> None:
    """Cut off a torn last line (``certain``: the database tells that its step was never
    confirmed) and rewrite a damaged or missing copy."""
    if log.unterminated and log.regular:
        report.messages.append(
            f"{path.name}'s last line had lost its line end; its record is whole (its checksum "
            f"holds) and is kept")
        if plan.log_problem is None:
            fd = open_private(path, os.O_WRONLY | os.O_APPEND)
            try:
                os.write(fd, b"\n")
                os.fsync(fd)
            finally:
                os.close(fd)
    elif log.torn and log.regular:
        torn = _write_new(path.with_name(f"{path.name}.torn-{stamp}"), log.torn)
        report.kept.append(torn)
        if certain:
            report.messages.append(
                f"{path.name} ended in an unfinished line ({_count(len(log.torn), 'byte')}: a "
                f"step whose saving was cut short, so it was never confirmed); it is kept as "
                f"{torn.name} and nothing confirmed was lost")
        else:
            report.messages.append(
                f"{path.name} ended in an unfinished line ({_count(len(log.torn), 'byte')}); "
                f"it is kept as {torn.name}")
        if plan.log_problem is None:
            fd = open_private(path, os.O_WRONLY)
            try:
                os.ftruncate(fd, log.whole_size)
                os.fsync(fd)
            finally:
                os.close(fd)
    if plan.log_problem is None:
        return
    if plan.log_problem != "new":
        message = f"{path.name} {plan.log_problem}"
        if log.exists:
            aside = _set_aside(path, stamp)
            report.kept.append(aside)
            message += f" and is kept as {aside.name}"
        report.messages.append(f"{message}; it was rewritten from the journal's records")
    write_log(path, (record for records in plan.games.values() for record in records))


def _set_aside(path: Path, stamp: str) -> Path:
    """Move a damaged file (and a database's -wal and -shm files) out of the way."""
    aside, number = path.with_name(f"{path.name}.damaged-{stamp}"), 1
    while any(os.path.lexists(str(aside) + suffix) for suffix in ("",) + SIDE_FILES):
        number += 1
        aside = path.with_name(f"{path.name}.damaged-{stamp}-{number}")
    for suffix in ("",) + SIDE_FILES:
        if os.path.lexists(str(path) + suffix):
            os.replace(str(path) + suffix, str(aside) + suffix)
    return aside


def _rollback_aside(db_path: Path, report: RecoveryReport, stamp: str) -> None:
    """Move SQLite's rollback journal out of the database's way before SQLite opens it.

    The journal is always in WAL mode, so a ``journal.db-journal`` is not its own: SQLite
    would delete it, or play it back into the database (changing it). It is kept aside,
    and said; one that is not a regular file of one name is refused (nothing is moved).
    """
    rollback = Path(f"{db_path}{ROLLBACK_FILE}")
    if not os.path.lexists(rollback):
        return
    kind = odd_file(rollback)
    if kind is not None:
        raise JournalError(f"{rollback} is {kind}, not a file of the journal: the journal was "
                           f"not opened and nothing was changed; move it away and try again")
    aside, number = rollback.with_name(f"{rollback.name}.odd-{stamp}"), 1
    while os.path.lexists(aside):
        number += 1
        aside = rollback.with_name(f"{rollback.name}.odd-{stamp}-{number}")
    os.replace(rollback, aside)
    report.kept.append(aside)
    report.messages.append(
        f"{rollback.name} lay beside {db_path.name} (a SQLite rollback journal, which this "
        f"journal never keeps: another program left it, or one stopped while making the "
        f"database); it was not played into {db_path.name} and is kept as {aside.name}")


def _write_new(path: Path, data: bytes) -> Path:
    """``data`` in a new file (0600) at ``path``, or ``path-2``, ...: never over a file or a link."""
    wanted, number = path, 1
    while True:
        try:
            fd = open_private(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
            break
        except FileExistsError:
            number += 1
            path = wanted.with_name(f"{wanted.name}-{number}")
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    return path


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.remove(str(path) + suffix)
        except FileNotFoundError:
            pass


def _stamp() -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
