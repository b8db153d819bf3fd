"""How a game went: each player's net worth turn by turn, and what each was paid by chain.

Net worth is cash plus every share held at its chain's price at that moment
(shares of a chain not on the board are worth nothing, as at the end).

>>> from tabletop.engine.game import Game
>>> from tabletop.engine.actions import Place, Buy
>>> game = Game("acquire", ["Ann", "Bob"], start_tiles={"Ann": "1A", "Bob": "12I"})
>>> for action in (Place(tile="6C"), Buy(), Place(tile="9D"), Buy()):
...     _ = game.push(action)
>>> worth_by_turn(game)
[(1, [6000, 6000]), (2, [6000, 6000]), (3, [6000, 6000])]
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from tabletop.engine.game import Game
from tabletop.journal.export import payouts_of


def net_worth(game: Game) -> list[int]:
    """Each seat's cash plus its shares at today's prices."""
    active = set(game.board.active())
    return [cash + sum(held[c] * game.price(c) for c in active if held[c])
            for cash, held in zip(game.cash, game.holdings)]


def worth_by_turn(game: Game) -> list[tuple[int, list[int]]]:
    """``(turn, net worth per seat)`` at the start of every turn, and once more at the end."""
    again = game.rebuild([])
    points = [(again.turn, net_worth(again))]
    for action in game.history:
        again.push(action)
        if again.turn != points[-1][0] or again.pending is None:
            points.append((again.turn, net_worth(again)))
    return points


def paid_by_chain(game: Game) -> dict[str, dict[str, dict[str, int]]]:
    """``{player: {chain: {"bonus": amount, "sales": amount}}}`` over the whole game."""
    again = game.rebuild([])
    events: list[dict[str, Any]] = []
    for action in game.history:
        events.extend(again.push(action))
    paid: dict[str, dict[str, dict[str, int]]] = {
        name: defaultdict(lambda: {"bonus": 0, "sales": 0}) for name in game.names}
    for payout in payouts_of(again, events):
        kind = "bonus" if payout.kind == "bonus" else "sales" if "sale" in payout.kind else None
        if kind is not None:
            paid[payout.player][payout.chain][kind] += payout.amount
    return {name: dict(chains) for name, chains in paid.items()}
