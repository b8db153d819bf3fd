"""Comparing the journal's two copies record by record, one game at a time.

The database and the append-only copy (:mod:`tabletop.journal.store`) should hold the
same records. :func:`compare` merges them as the journal keeps them (for each step, the
copy's record if its checksum holds, else the database's; a game's records from its
setup on, as long as no step is missing) and judges each copy: what is wrong with it,
and so what must be repaired. It reads the copies through :class:`Copies`, a game at a
time, so that the comparison itself holds one game at a time: :func:`reconcile` gives it
both copies read whole into memory; :mod:`tabletop.journal.scratch` gives it a scratch
database on the disk, which is how a damaged journal of any length is compared.

>>> mine = Record(1, 0, "2026-03-01T14:03:22Z", '{"setup": {}}', "table 1").sealed()
>>> theirs = Record(1, 0, "2026-03-02T09:00:00Z", '{"setup": {}}', "table 2").sealed()
>>> copy = LogScan(exists=True, version=1, records=[theirs], whole_size=200)
>>> reconcile(DbScan(), copy).db_problem          # the copy rebuilds a lost database
'was missing'
>>> plan = reconcile(DbScan(exists=True, has_schema=True, read=True, records=[mine]), copy)
>>> plan.db_problem, plan.games[1] == [mine], plan.log_problem
(None, True, "belongs to another journal (1 record differs from journal.db's although the checksums of both hold)")
"""

from __future__ import annotations

import weakref
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from tabletop.journal.store import DbScan, Record
from tabletop.journal.copyfile import LogScan


@dataclass
class Plan:
    """What the journal holds once both copies are read, and what must be repaired."""

    games: Mapping[int, Sequence[Record]]   # a dict of lists, or read one game at a time
    db_problem: str | None = None     # why the database must be rebuilt
    catch_up: list[Record] = field(default_factory=list)
    log_problem: str | None = None    # why the copy must be rewritten
    lost: dict[int, list[int]] = field(default_factory=dict)   # game -> seqs not restorable
    db_whole: bool = False            # the database holds every record it should, all intact


class GameRecords(Sequence):
    """One game's records, read again each time they are gone through (so that going
    through every game holds one game at a time); its length is known."""

    def __init__(self, games: "LazyGames", game: int, count: int) -> None:
        self._games, self._game, self._count = games, game, count

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index):   # type: ignore[override]
        return self._games.load(self._game)[index]

    def __iter__(self) -> Iterator[Record]:
        return iter(self._games.load(self._game))


class LazyGames(Mapping):
    """game -> :class:`GameRecords`, in game order, each read by ``load`` when gone
    through; ``close`` (what ``load`` reads from) runs when this mapping is dropped, or
    at :meth:`close`."""

    def __init__(self, counts: Mapping[int, int], load: Callable[[int], list[Record]],
                 close: Callable[[], None]) -> None:
        self._counts, self.load = dict(sorted(counts.items())), load
        self._closer = weakref.finalize(self, close)

    def __getitem__(self, game: int) -> GameRecords:
        return GameRecords(self, game, self._counts[game])

    def __iter__(self) -> Iterator[int]:
        return iter(self._counts)

    def __len__(self) -> int:
        return len(self._counts)

    def close(self) -> None:
        self._closer()


class Copies(Protocol):
    """Both copies' records, handed out a game at a time."""

    #: The key (game, step) of the copy's last record whose checksum holds.
    last: tuple[int, int] | None

    def games(self) -> Iterable[int]:
        """Every game either copy holds a record of, in order."""

    def of_log(self, game: int) -> dict[int, Record]:
        """step -> the copy's record of it (checksum holding; a later line for a step
        replaces an earlier one)."""

    def of_db(self, game: int) -> list[Record]:
        """The database's records of the game, checksums holding or not, in step order."""

    def foreign(self) -> int:
        """How many steps both copies hold, checksums holding, with different records."""


def chosen(from_log: Mapping[int, Record], held: Sequence[Record]) -> list[Record]:
    """One game's records as the journal keeps them: from its setup on, each step's
    record from the copy if it has one, else the database's if its checksum holds, up
    to the first step neither has."""
    from_db = {record.seq: record for record in held if record.valid}
    kept: list[Record] = []
    while True:
        record = from_log.get(len(kept)) or from_db.get(len(kept))
        if record is None:
            return kept
        kept.append(record)


@dataclass
class _Tally:
    """What comparing each game adds up to."""

    kept: int = 0                     # records kept, every game
    first_bad: Record | None = None   # the database's first record whose checksum fails
    disagrees: bool = False           # the database holds a record other than the one kept
    missing: int = 0                  # records kept that the database does not hold
    first_missing: Record | None = None
    unmatched: int = 0                # records kept that the database does not hold as they are
    log_missing: int = 0              # records kept that the copy does not hold as they are

    def add(self, kept: list[Record], from_log: Mapping[int, Record],
            held: Sequence[Record]) -> None:
        self.kept += len(kept)
        by_seq = {record.seq: record for record in held}
        if self.first_bad is None:
            self.first_bad = next((record for record in held if not record.valid), None)
        wanted = {record.seq: record for record in kept}
        self.disagrees = self.disagrees or any(wanted.get(seq) != record
                                               for seq, record in by_seq.items())
        for record in kept:
            if record.seq not in by_seq:
                self.missing += 1
                self.first_missing = self.first_missing or record
            if by_seq.get(record.seq) != record:
                self.unmatched += 1
            if from_log.get(record.seq) != record:
                self.log_missing += 1


def compare(copies: Copies, db: DbScan, log: LogScan, db_name: str = "journal.db",
            log_name: str = "journal.log", keep: bool = True) -> Plan:
    """Merge both copies record by record (a valid copy line wins) and judge each copy.

    Damage makes a record fail its checksum; it cannot make two records that
    both hold differ. A copy whose records differ from the database's so is
    another journal's (or an older one's): it is left out, never mixed in.
    ``keep``: the plan's games are the records kept, a dict of lists; otherwise only
    their number is kept (the caller gives the plan games that read them again).
    """
    foreign = copies.foreign()
    plan, tally = Plan(games={}), _Tally()
    counts: dict[int, int] = {}
    for game in copies.games():
        from_log = {} if foreign else copies.of_log(game)
        held = copies.of_db(game)
        if not (from_log or held):
            continue              # only in a copy that was left out
        kept = chosen(from_log, held)
        highest = max([*from_log, *(record.seq for record in held)])
        if len(kept) <= highest:
            plan.lost[game] = list(range(len(kept), highest + 1))
        if kept:
            counts[game] = len(kept)
            if keep:
                plan.games[game] = kept   # type: ignore[index]
        tally.add(kept, from_log, held)
    plan.db_problem = _db_problem(db, tally, None if foreign else copies.last, plan, log_name)
    plan.db_whole = (db.read and db.has_schema and tally.first_bad is None and not db.unkeyed
                     and tally.unmatched == len(plan.catch_up))
    plan.log_problem = _log_problem(log, tally, db_name, foreign)
    if not keep:
        plan.games = counts
    return plan


def reconcile(db: DbScan, log: LogScan, db_name: str = "journal.db",
              log_name: str = "journal.log") -> Plan:
    """:func:`compare` of both copies read whole (:func:`~tabletop.journal.store.scan_db`
    and :func:`~tabletop.journal.copyfile.scan_log`)."""
    return compare(_InMemory(db, log), db, log, db_name, log_name)


class _InMemory:
    """:class:`Copies` of two scans held whole."""

    def __init__(self, db: DbScan, log: LogScan) -> None:
        self._log: dict[int, dict[int, Record]] = defaultdict(dict)
        for record in log.records:
            self._log[record.game][record.seq] = record
        self._db: dict[int, list[Record]] = defaultdict(list)
        for record in db.records:
            self._db[record.game].append(record)
        self.last = log.records[-1].key if log.records else None

    def games(self) -> list[int]:
        return sorted(set(self._log) | set(self._db))

    def of_log(self, game: int) -> dict[int, Record]:
        return self._log.get(game, {})

    def of_db(self, game: int) -> list[Record]:
        return self._db.get(game, [])

    def foreign(self) -> int:
        count = 0
        for game, steps in self._log.items():
            valid = {record.seq: record for record in self._db.get(game, []) if record.valid}
            count += sum(1 for seq, record in steps.items() if valid.get(seq, record) != record)
        return count


def _db_problem(db: DbScan, tally: _Tally, last: tuple[int, int] | None, plan: Plan,
                log_name: str) -> str | None:
    if not db.exists:
        return "was missing" if tally.kept or db.leftovers else None
    if db.error is not None:
        return f"could not be read ({db.error})"
    if not db.has_schema:
        return "was empty (cut short)" if tally.kept else None
    if tally.first_bad is not None:
        first = tally.first_bad
        return f"failed its checksum at game {first.game}, record {first.seq}"
    if db.unkeyed:
        return f"held {_count(db.unkeyed, 'record')} whose game or step number was damaged"
    if db.listing:
        return f"had a damaged entry in its games list (game {db.listing[0]})"
    if tally.disagrees:
        return f"disagreed with {log_name}"
    if tally.missing == 1 and tally.first_missing is not None and tally.first_missing.key == last:
        plan.catch_up = [tally.first_missing]   # the one step a crash can leave unsaved
        return None
    if tally.missing:
        return f"was missing {tally.missing} records that {log_name} holds"
    return None


def _log_problem(log: LogScan, tally: _Tally, db_name: str, foreign: int) -> str | None:
    if not log.regular:
        return None   # a device or pipe given as the copy: written to, never replaced
    if foreign:
        return (f"belongs to another journal ({_count(foreign, 'record')} "
                f"{'differs' if foreign == 1 else 'differ'} from {db_name}'s although the "
                f"checksums of both hold)")
    if not log.exists or log.whole_size == 0:
        return "was missing" if tally.kept else "new"
    if log.version is None:
        return "had no readable header line"
    if log.bad:
        return f"had damaged lines ({', '.join(map(str, log.bad[:5]))})"
    if tally.log_missing:
        return f"was missing {tally.log_missing} records that {db_name} holds"
    return None


def _count(n: int, noun: str) -> str:
    """
    >>> _count(1, "action"), _count(57, "action")
    ('1 action', '57 actions')
    """
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
