"""Who sits at which table in a round.

The method, as ``docs/tournament.md`` gives it to directors:

1. **Table sizes.** As many tables as make every table's size nearest the
   tournament's ``table_size`` (4 by default: the usual tournament game), all
   within 3 to 6 players and what the rule set seats; sizes differ by one at most,
   the larger tables first. When two counts of tables are as near, the one with
   more (smaller) tables is chosen: shorter games.
2. **Round 1** is drawn at random from the tournament's seed (the same seed
   always seats the same tables), then cut into tables in that order.
3. **Later rounds** are seated by standing after the rounds before: the leaders
   play each other at table 1, the next ones at table 2, and so on (as the
   Swiss-style "king of the hill" rounds of board-game tournaments do). Players
   who would meet the same opponents again are not moved apart.

Tables are named ``1``, ``2``, ... The order at a table is the order of the cut;
who plays first is the table's own draw.

>>> table_sizes(10, preferred=4, smallest=3, largest=6)
[4, 3, 3]
>>> table_sizes(12, preferred=4, smallest=3, largest=6)
[4, 4, 4]
>>> seat_in_order(["A", "B", "C", "D", "E", "F", "G"], [4, 3])
{'1': ('A', 'B', 'C', 'D'), '2': ('E', 'F', 'G')}
"""

from __future__ import annotations

import random
from typing import Sequence

from tabletop.engine.ruleset import load_rules
from tabletop.tournament.model import LARGEST, SMALLEST, Round, Tournament, TournamentError


def table_sizes(players: int, preferred: int, smallest: int, largest: int) -> list[int]:
    """The sizes of the tables ``players`` sit at, largest first (see the module)."""
    fewest, most = -(-players // largest), players // smallest
    if players < smallest or fewest > most:
        raise TournamentError(f"{players} players cannot be seated at tables of {smallest} to "
                              f"{largest}")
    best = min(range(fewest, most + 1),
               key=lambda count: (_distance(players, count, preferred), -count))
    base, extra = divmod(players, best)
    return [base + 1] * extra + [base] * (best - extra)


def _distance(players: int, tables: int, preferred: int) -> int:
    base, extra = divmod(players, tables)
    return extra * abs(base + 1 - preferred) + (tables - extra) * abs(base - preferred)


def seat_in_order(order: Sequence[str], sizes: Sequence[int]) -> dict[str, tuple[str, ...]]:
    """``order`` cut into tables of ``sizes``, named 1, 2, ..."""
    tables, start = {}, 0
    for number, size in enumerate(sizes, 1):
        tables[str(number)] = tuple(order[start:start + size])
        start += size
    return tables


def sizes_for(tournament: Tournament) -> list[int]:
    """The table sizes of the tournament's players under its rule set."""
    rules = load_rules(tournament.rules)
    smallest = max(SMALLEST, rules.min_players)
    largest = min(LARGEST, rules.max_players)
    preferred = min(max(tournament.table_size, smallest), largest)
    return table_sizes(len(tournament.players), preferred, smallest, largest)


def first_round(tournament: Tournament) -> Round:
    """Round 1: the players drawn at random from the tournament's seed.

    >>> t = Tournament("Open", players=tuple("ABCDEFG"), seed=1)
    >>> first_round(t).tables
    {'1': ('D', 'G', 'F', 'C'), '2': ('A', 'E', 'B')}
    """
    order = list(tournament.players)
    random.Random(tournament.seed).shuffle(order)
    return Round(1, seat_in_order(order, sizes_for(tournament)))


def by_standing(tournament: Tournament, number: int, order: Sequence[str]) -> Round:
    """Round ``number`` seated by ``order``, the standings after the rounds before."""
    if sorted(order) != sorted(tournament.players):
        raise TournamentError("the standings do not list every player of the tournament once")
    return Round(number, seat_in_order(order, sizes_for(tournament)))
