"""Random legal games in virtual mode: for benchmarks, property tests and the demo.

>>> game = play_random_game("acquire", ["Ann", "Bob", "Cy", "Di"], seed=7)
>>> game.over, sum(rank == 1 for _, rank in game.standings) >= 1
(True, True)

The policy makes every choice at random among the legal ones and declares the
end as soon as it is allowed, so every game ends.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Sequence

from tabletop.engine import actions as act
from tabletop.engine.board import EMPTY, PUT_DEAD, PUT_NO_CHAIN
from tabletop.engine.choices import DeadReveal, Disposal
from tabletop.engine.game import Game
from tabletop.engine.ruleset import RuleSet, load_rules
from tabletop.engine.trade_in import suggest_trade_in


def _below(rng: random.Random, n: int) -> int:
    """A random integer in ``0 .. n-1``: ``randrange`` costs several times more."""
    return int(rng.random() * n)


def _pick(rng: random.Random, items: Sequence):
    return items[int(rng.random() * len(items))]


def random_action(game: Game, rng: random.Random) -> act.Action:
    """A legal action for whatever ``game`` waits for, chosen at random."""
    pending = game.pending
    kind, seat = pending.kind, pending.player
    chains = game.rules.chains
    # Option dead_reveal: a dead tile is revealed at the place step, or held to the turn's end.
    at_end_of_turn = game.options.get("dead_reveal") == DeadReveal.END_OF_TURN
    # Nothing changes between one player's buy and the next player's turn, so
    # checking at the buy declares the end as soon as it is allowed.
    if kind == "buy" and game.end_allowed():
        return act.End()
    if kind == "place":
        labels, hand = game.geometry.labels, game.hands[seat]
        if hand:
            # One random probe usually finds a playable tile; only when it does not
            # is the whole hand examined (still uniform among the playable cells).
            # A card with several hexes (one per quadrant) probes one of them at
            # random, not the first free one; a one-cell tile draws no extra number.
            cells = game.geometry.cells_of[_pick(rng, hand)]
            cell = cells[0] if len(cells) == 1 else _pick(rng, cells)
            if game.board.cells[cell] == EMPTY and \
                    game.board.classify(cell)[0] not in (PUT_DEAD, PUT_NO_CHAIN):
                return act.Place(tile=labels[cell])
        dead = None if at_end_of_turn else _dead_tile(game, rng, seat)
        if dead is not None:
            return dead
        playable = game.playable(seat)
        if not playable:
            return act.NoTile()
        return act.Place(tile=labels[_pick(rng, playable)])
    if kind == "found":
        return act.Found(chain=chains[_pick(rng, pending.choices)].name)
    if kind == "survivor":
        return act.Survivor(chain=chains[_pick(rng, pending.choices)].name)
    if kind == "next_defunct":
        return act.NextDefunct(chain=chains[_pick(rng, pending.choices)].name)
    if kind == "dispose":
        return _random_disposal(game, rng)
    if kind == "buy":
        dead = _dead_tile(game, rng, seat) if at_end_of_turn else None
        return dead if dead is not None else _random_purchase(game, rng)
    if kind == "closing":
        remaining = game.remaining_cells()
        if not remaining:
            return act.End()
        return act.Place(tile=game.geometry.labels[_pick(rng, remaining)])
    raise RuntimeError(f"the random policy cannot answer {kind!r}")


def _dead_tile(game: Game, rng: random.Random, seat: int) -> act.Dead | None:
    """The reveal of the first dead tile of ``seat``'s hand, if it holds one."""
    for tile in game.hands[seat]:
        free = [c for c in game.geometry.cells_of[tile] if game.board.cells[c] == EMPTY]
        if free and game.is_dead(tile):
            return act.Dead(tile=game.geometry.labels[_pick(rng, free)], player=game.names[seat])
    return None


def _random_disposal(game: Game, rng: random.Random) -> act.Dispose:
    seat, ratio = game.pending.player, game.rules.trade_ratio
    held = game.holdings[seat][game.merger.defunct]
    trade = _below(rng, game.trade_max(seat) // ratio + 1) * ratio if ratio else 0
    sell = _below(rng, held - trade + 1) if Disposal.KEEP in game.rules.disposal else held - trade
    return act.Dispose(sell=sell, trade=trade)


def _random_purchase(game: Game, rng: random.Random) -> act.Buy:
    """Up to the limit, each share of a random active chain while the player can pay,
    trading shares in (where the rules allow it) when cash runs short."""
    wanted, active = _below(rng, game.rules.buy_limit + 1), game.board.active()
    if not wanted or not active:
        return act.Buy()
    seat, chains = game.pending.player, game.rules.chains
    cash, bought, trade_in = game.cash[seat], {}, {}
    for _ in range(wanted):
        chain = _pick(rng, active)
        price = game.price(chain)
        if bought.get(chain, 0) >= game.bank[chain]:
            break
        if price > cash:
            trade_in = _trade_in_for(game, seat, bought, chain) if game.rules.trade_to_buy else None
            if trade_in is not None:
                bought[chain] = bought.get(chain, 0) + 1
            break
        cash -= price
        bought[chain] = bought.get(chain, 0) + 1
    return act.Buy(shares={chains[c].name: n for c, n in bought.items()},
                   trade_in=trade_in or {})


def _trade_in_for(game: Game, seat: int, bought: dict[int, int], extra: int) -> dict[str, int] | None:
    """The trade-in that pays for ``bought`` plus one ``extra`` share, if the player can."""
    cost = sum(n * game.price(c) for c, n in bought.items()) + game.price(extra)
    names = game.rules.chains
    held = {names[c].name: (n, game.price(c)) for c, n in enumerate(game.holdings[seat])
            if n and game.board.sizes[c] and c not in bought and c != extra}
    return suggest_trade_in(cost - game.cash[seat], held)


def play_random_game(rules: RuleSet | str, players: Sequence[str], seed: int,
                     options: dict | None = None) -> Game:
    """One finished random game; the same seed always plays the same game."""
    game = Game(rules, players, options, seed=seed)
    rng = random.Random(seed)
    while game.pending is not None:
        game.push(random_action(game, rng))
    return game


@dataclass
class SimulationReport:
    games: int
    seconds: float
    actions: int
    last: Game

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else float("inf")


def simulate(rules: RuleSet | str, games: int, players: int, seed: int,
             options: dict | None = None) -> SimulationReport:
    """Play ``games`` random games with seeds ``seed``, ``seed+1``, ..."""
    ruleset = rules if isinstance(rules, RuleSet) else load_rules(rules)
    names = [f"P{i + 1}" for i in range(players)]
    started, actions, game = time.perf_counter(), 0, None
    for number in range(games):
        game = play_random_game(ruleset, names, seed + number, options)
        actions += len(game.history)
    return SimulationReport(games, time.perf_counter() - started, actions, game)
