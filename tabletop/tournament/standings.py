"""Standings across rounds: rank points per game, total cash as the tie-break.

The method (``docs/tournament.md`` says it to directors and players):

- **Rank points.** At a table of N players, 1st place scores N points, 2nd
  N-1, down to 1 point for last: 4-3-2-1 at a four-player table, as Acquire
  leagues score their games. Players tied in a game (equal final cash) share the
  better place, as the game's own result does (ranks 1, 1, 3), and each scores
  its points.
- **Tie-break.** Between equal points, the higher total of final cash over all
  the games played decides; equal points and cash share a place.

A player with no game yet scores 0 and stands last.

>>> results = [GameResult(1, "1", 3, (Placing("Ann", 1, 9000), Placing("Bob", 2, 7000),
...                                   Placing("Cy", 3, 5000)))]
>>> [(s.place, s.name, s.points, s.cash) for s in standings(["Ann", "Bob", "Cy", "Di"], results)]
[(1, 'Ann', 3, 9000), (2, 'Bob', 2, 7000), (3, 'Cy', 1, 5000), (4, 'Di', 0, 0)]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from tabletop.tournament.model import TournamentError


@dataclass(frozen=True)
class Placing:
    """One player's result in one game: the place (rank) and final cash the slip gives."""

    name: str
    rank: int
    cash: int


@dataclass(frozen=True)
class GameResult:
    """A game's result as its (verified) slip gives it, with the round and table it counts for."""

    round: int
    table: str
    game: int
    placings: tuple[Placing, ...]

    @classmethod
    def from_slip(cls, slip: Mapping[str, Any]) -> GameResult:
        """The result of a verified slip that names its seat; TournamentError if it is not one."""
        try:
            seat = slip["seat"]
            placings = tuple(Placing(p["name"], p["rank"], p["cash"]) for p in slip["players"])
            result = cls(seat["round"], seat["table"], slip["game"], placings)
        except (KeyError, TypeError):
            raise TournamentError("the slip gives no seat or no players' ranks and cash") from None
        for placing in placings:
            if not all(isinstance(n, int) and not isinstance(n, bool)
                       for n in (placing.rank, placing.cash)) or placing.rank < 1:
                raise TournamentError("the slip gives a rank or a cash amount that is not a "
                                      "whole number")
        return result

    @property
    def names(self) -> list[str]:
        return [placing.name for placing in self.placings]


@dataclass(frozen=True)
class Standing:
    """A player's line in the standings."""

    place: int
    name: str
    points: int
    cash: int
    games: int


def rank_points(rank: int, players: int) -> int:
    """The points of place ``rank`` at a table of ``players``.

    >>> [rank_points(rank, 4) for rank in (1, 2, 3, 4)], rank_points(1, 5)
    ([4, 3, 2, 1], 5)
    """
    return players - rank + 1


def standings(players: Sequence[str], results: Iterable[GameResult]) -> list[Standing]:
    """Every player's standing after ``results``, best first (see the module for the method)."""
    points = {name: 0 for name in players}
    cash = {name: 0 for name in players}
    games = {name: 0 for name in players}
    for result in results:
        for placing in result.placings:
            if placing.name not in points:
                continue    # the intake takes only slips of the players seated
            points[placing.name] += rank_points(placing.rank, len(result.placings))
            cash[placing.name] += placing.cash
            games[placing.name] += 1
    order = sorted(players, key=lambda name: (-points[name], -cash[name], name))
    lines: list[Standing] = []
    for index, name in enumerate(order):
        same = lines and (lines[-1].points, lines[-1].cash) == (points[name], cash[name])
        place = lines[-1].place if same else index + 1
        lines.append(Standing(place, name, points[name], cash[name], games[name]))
    return lines
