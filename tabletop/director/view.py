"""What the director's screen shows, as one value: :class:`View`, built from a :class:`Snapshot`.

The screen (:mod:`tabletop.director.web`) serves it as JSON and its page draws it:
the standings, the round's progress (which tables have handed in their slip, which are
awaited), each table's live game as the table last said it, and the slips taken and
refused, newest first.

>>> from tabletop.tournament.model import Round, Tournament
>>> t = Tournament("Open", players=("Ann", "Bob", "Cy"), seed=1).with_round(
...     Round(1, {"1": ("Ann", "Bob", "Cy")}))
>>> view = build(Snapshot(t, {}, (), {}))
>>> view.round, view.tables_awaited, [s.name for s in view.standings]
(1, ('1',), ['Ann', 'Bob', 'Cy'])
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from tabletop.director.listen import Snapshot
from tabletop.tournament.intake import REFUSED, TAKEN, Entry
from tabletop.tournament.model import Tournament, TournamentError
from tabletop.tournament.standings import GameResult, Standing, standings
from tabletop.tournament.topics import LiveState

#: What a slip line's ``outcome`` says: taken, refused (and answered so), or refused but
#: not answered (the table sends it again: a key to register, a round to seat).
UNANSWERED = "unanswered"


@dataclass(frozen=True)
class TableView:
    """One table of the round shown: who sits there, whether its slip is in, and its live
    game as it last said it (None: not heard from since the director started)."""

    table: str
    seated: tuple[str, ...]
    slip_taken: bool
    live: LiveState | None


@dataclass(frozen=True)
class SlipLine:
    """A slip the director took or refused: its table, what became of it, and in words the
    placings (taken) or the reason (refused)."""

    table: str
    outcome: str
    text: str
    round: int | None = None
    game: int | None = None


@dataclass(frozen=True)
class View:
    """Everything the screen shows at one moment.

    ``round`` is the last round seated (0 before the first); ``tables`` its tables in
    seating order, then any other table heard from; ``slips`` newest first.
    """

    tournament: str
    round: int
    rounds_planned: int
    tables_in: tuple[str, ...]
    tables_awaited: tuple[str, ...]
    tables: tuple[TableView, ...]
    standings: tuple[Standing, ...]
    games_counted: int
    slips: tuple[SlipLine, ...]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def build(snapshot: Snapshot) -> View:
    """The view of what ``snapshot`` holds."""
    tournament = snapshot.tournament
    results = [GameResult.from_slip(e.slip) for e in snapshot.entries if e.outcome == TAKEN]
    number = tournament.current
    done = {result.table for result in results if result.round == number}
    seated = _seated(tournament, number)
    tables = [TableView(table, players, table in done, snapshot.states.get(table))
              for table, players in seated.items()]
    tables += [TableView(table, (), False, state) for table, state in
               sorted(snapshot.states.items()) if table not in seated]
    return View(tournament.name, number, tournament.rounds_planned,
                tuple(t for t in seated if t in done), tuple(t for t in seated if t not in done),
                tuple(tables), tuple(standings(tournament.players, results)), len(results),
                _slips(snapshot))


def _seated(tournament: Tournament, number: int) -> dict[str, tuple[str, ...]]:
    try:
        return dict(tournament.round(number).tables)
    except TournamentError:            # no round seated yet
        return {}


def _slips(snapshot: Snapshot) -> tuple[SlipLine, ...]:
    """The intake's slips, newest first, after the refusals it does not record."""
    held = [SlipLine(outcome.table, REFUSED if outcome.final else UNANSWERED,
                     _reason(outcome.message, outcome.table))
            for outcome in snapshot.unrecorded.values()]
    lines = [_line(entry) for entry in reversed(snapshot.entries)
             if entry.outcome in (TAKEN, REFUSED)]
    return tuple(held + lines)


def _line(entry: Entry) -> SlipLine:
    if entry.outcome == REFUSED:
        return SlipLine(entry.table, REFUSED, _reason(entry.reason or "", entry.table))
    result = GameResult.from_slip(entry.slip)
    placings = sorted(result.placings, key=lambda p: p.rank)
    text = ", ".join(f"{p.rank}. {p.name} {p.cash:,}" for p in placings)
    return SlipLine(entry.table, TAKEN, text, result.round, result.game)


def _reason(message: str, table: str) -> str:
    """The reason alone, without the intake's ``refused the slip of table T:`` (the screen
    names the table in a column of its own).

    >>> _reason("refused the slip of table 2: its signature does not hold", "2")
    'its signature does not hold'
    """
    return message.removeprefix(f"refused the slip of table {table}: ")
