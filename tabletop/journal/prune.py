"""``tabletop prune``: remove from the journal exactly the games an archive holds.

Before anything is removed, every archived game still in the journal must be the
journal's game to the byte (its ``export --format jsonl`` text, table and start), not
in progress, and no writer may have the journal open (its own lock; the journal is
then checked in full, as ``tabletop check --repair`` does). The table's highest game id
stays: new games take the number after the highest one the journal holds, so that game
is kept and no id is ever used twice. The removal itself is :mod:`tabletop.journal.pruning`.

>>> Pruned(path=Path("journal.db"), archive=Path("a.jsonl"), pruned=[1, 2], kept_latest=3,
...        already=[]).summary()
'pruned games 1, 2 from journal.db and its copy (archived in a.jsonl); game 3 is the latest and stays: the next new game is 4'
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from tabletop.errors import JournalError
from tabletop.journal import known_good, pruning, store
from tabletop.journal.archive import Archive, ArchivedGame, in_progress, read_archive
from tabletop.journal.export import to_jsonl
from tabletop.journal.journal import Journal

#: How long prune waits for the journal's writer to let go (then it refuses).
LOCK_WAIT = 1.0


@dataclass(frozen=True)
class Pruned:
    """What a prune did."""

    path: Path
    archive: Path
    pruned: list[int]
    kept_latest: int | None     # the highest id, archived but kept (ids are never reused)
    already: list[int]          # archived games the journal no longer holds
    report: list[str] = field(default_factory=list)   # what opening the journal repaired

    def summary(self) -> str:
        said = (f"pruned {_games(self.pruned)} from {self.path.name} and its copy (archived in "
                f"{self.archive})" if self.pruned else
                f"nothing to prune: {self.path.name} holds none of the archived games")
        if self.already and self.pruned:
            said += f"; {_games(self.already)} had been pruned before"
        if self.kept_latest is not None:
            said += (f"; game {self.kept_latest} is the latest and stays: the next new game "
                     f"is {self.kept_latest + 1}")
        return said


def prune_archived(path: str | Path, archive_path: str | Path,
                   timeout: float = LOCK_WAIT) -> Pruned:
    """Remove from the journal at ``path`` the games of the archive at ``archive_path``.

    JournalError, nothing pruned, if the archive is no whole archive, a game differs from
    the journal's, a game is in progress, or a writer holds the journal.
    """
    path = Path(path)
    archive = read_archive(archive_path)          # first: bad input changes nothing
    if not os.path.lexists(path) and not os.path.lexists(path.with_suffix(".log")):
        raise JournalError(f"no journal at {path}: nothing was pruned")
    with Journal.open(path, timeout=timeout, check_all=True) as journal:
        report = list(journal.report.messages)   # what opening it repaired, as the table would
        infos = {info.id: info for info in journal.games()}
        latest = max(infos, default=None)
        wanted = [game for game in archive.games if game.id in infos and game.id != latest]
        for game in wanted:
            _refuse_unless_same(journal, game, infos, archive)
        games = {game.id: _seal(journal, game.id) for game in wanted}
        intent = pruning.Intent(games, str(archive.path))
        gone = pruning.prune(path, journal.log_path, intent, timeout) if games else []
        conn = store.connect(path, timeout)
        try:
            known_good.update(path, journal.log_path, conn)   # the next opening starts here
        finally:
            conn.close()
    kept = latest if archive.game(latest) is not None else None
    already = [game.id for game in archive.games if game.id not in infos]
    return Pruned(path, archive.path, sorted(gone), kept, already, report)


def _refuse_unless_same(journal: Journal, game: ArchivedGame, infos: dict,
                        archive: Archive) -> None:
    info = infos[game.id]
    if info.finished is None and (not game.abandoned or game.id in in_progress(infos.values())):
        raise JournalError(f"game {game.id} is in progress in {journal.path}: a game in "
                           f"progress is never pruned; nothing was pruned")
    same = (to_jsonl(journal.lines(game.id)) == game.jsonl and info.table == game.table
            and info.started == game.started and info.finished == game.finished)
    if not same:
        raise JournalError(f"game {game.id} in {archive.path} is not the journal's game "
                           f"{game.id} (its record differs: another table's archive, or the game "
                           f"changed since it was archived); nothing was pruned")


def _seal(journal: Journal, game_id: int) -> tuple[int, str]:
    records = journal.records(game_id)
    return len(records), records[-1].sum


def _games(ids: list[int]) -> str:
    return ("game " if len(ids) == 1 else "games ") + ", ".join(map(str, ids))
