"""The banker and stock broker: a state machine over one game.

>>> from tabletop.engine.actions import Place, Found, Buy
>>> game = Game("acquire", ["Ann", "Bob", "Cy"], start_tiles={"Ann": "5C", "Bob": "9I", "Cy": "1D"})
>>> game.pending.kind, game.names[game.pending.player]
('place', 'Cy')
>>> [e["event"] for e in game.push(Place(tile="1e"))]
['placed']
>>> game.pending.kind, [game.rules.chains[c].name for c in game.pending.choices][:2]
('found', ['Tower', 'Luxor'])
>>> _ = game.push(Found(chain="Tower")); _ = game.push(Buy(shares={"Tower": 2}))
>>> game.cash, game.holdings[2][0]
([6000, 6000, 5600], 3)
>>> game.undo()
[{'event': 'undone', 'action': {'do': 'buy', 'player': 'Cy', 'shares': {'Tower': 2}}}]
>>> game.pending.kind
'buy'

Every action is checked completely before anything changes: an illegal one
raises :class:`IllegalAction` with a message for the table and leaves the
game as it was. ``push`` returns the events the action caused, for the screen.
``undo`` takes back the last action by rebuilding the game from its setup and
the actions before it, so it can never drift from a clean replay.

Inside, players are seats (indexes into ``names``), chains are indexes into
``rules.chains`` and cells and tiles are the geometry's numbers; labels and
names appear only at the edges (actions in, events and state JSON out).
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from typing import Any, Mapping, Sequence

from tabletop.engine import actions as act
from tabletop.engine.board import (EMPTY, LONE, PUT_DEAD, PUT_FOUND, PUT_GROW, PUT_MERGE,
                            PUT_NO_CHAIN, TURNOVER, Board)
from tabletop.engine.choices import (DeadReveal, DeadTiles, Disposal, FounderWhenSoldOut,
                                     IncorrectPlacement)
from tabletop.engine.ending import EndingFlow
from tabletop.errors import IllegalAction
from tabletop.messages import Message
from tabletop.engine.merger import Merger, MergerFlow, check_count
from tabletop.engine.names import clean_names, nfc
from tabletop.engine.pending import Pending
from tabletop.engine.payout import share_bonuses
from tabletop.engine.ruleset import RuleSet, load_rules
from tabletop.engine.refusals import not_chosen as _not_chosen
from tabletop.engine.refusals import not_now as _not_now
from tabletop.engine.refusals import short_of as _short_of
from tabletop.engine.trade_in import change_after_trade
from tabletop.engine.turn_order import turn_order_key

MARKET = "market"


class Game(MergerFlow, EndingFlow):
    """One game of an Acquire-family rule set, physical or virtual.

    Physical mode (no ``seed``): tiles come from a real bag; the game learns
    each tile when it is placed. Virtual mode (``seed`` given): the game deals
    from a bag shuffled by that seed, and ``hands[seat]`` holds each hand.

    ``cash[seat]``, ``holdings[seat][chain]`` and ``bank[chain]`` are the
    books; ``board`` the cells and chain sizes; ``pending`` what the game
    waits for (None once it is over, when ``standings`` lists ``(seat, rank)``
    best first); ``history`` the actions played, as they were given.
    """

    def __init__(self, rules: RuleSet | str, players: Sequence[str],
                 options: Mapping[str, Any] | None = None,
                 start_tiles: Mapping[str, str] | None = None, seed: int | None = None) -> None:
        self.rules = rules if isinstance(rules, RuleSet) else load_rules(rules)
        self.options = self.rules.resolve_options(options)
        self.names = self._checked_players(players)
        self.geometry = self.rules.geometry_for(self.options)
        self._setup: dict[str, Any] = {"rules": self.rules.source, "players": list(self.names),
                                       "options": dict(options or {}), "seed": seed}
        self._price_table = self.rules.price_table
        self._end_size = self.options.get("end_size")  # None: no size ends the game
        self._bonus_mode = self.rules.bonus_mode(self.options["bonus_mode"])
        chains, n = len(self.rules.chains), len(self.names)
        self.board = Board(self.geometry, chains, self.rules.safe_size)
        self.bank = [chain.shares for chain in self.rules.chains]
        self.cash = [self.rules.starting_cash] * n
        self.holdings = [[0] * chains for _ in range(n)]
        self.dead: list[int] = []  # cells of revealed dead tiles, in order
        self.turn, self.turn_start, self.current = 1, 0, 0
        self.passes, self.placed, self.end_declared, self.end_agreed = 0, False, False, False
        self.territory: list[int] | None = None  # enclosed empty cells per chain, once counted
        self.merger: Merger | None = None
        self.final_chains: list[int] | None = None  # chains still to pay at the end
        self.standings: list[tuple[int, int]] | None = None
        self.history: list[act.Action] = []
        self._actors: list[int] = []  # the seat that played each action of history
        self.two_player_market = (n == self.rules.market_players
                                  and self.options.get("two_player_market", False))
        self._events: list[dict[str, Any]] = []
        self.virtual = seed is not None
        self.rng = random.Random(seed) if self.virtual else None
        self.bag: list[int] = []  # virtual mode: the tiles left, drawn from the end
        self.bag_count = 0        # physical mode: how many tiles the real bag holds
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self._deal(start_tiles or {})
        self.first = self.current  # who played first: an agreed end may wait for the round
        self.pending: Pending | None = Pending("place", self.current)

    # -- setup ---------------------------------------------------------------

    def _checked_players(self, players: Sequence[str]) -> list[str]:
        if isinstance(players, str) or not isinstance(players, Sequence):
            raise IllegalAction(Message("players must be a list of names in seating order"))
        names = clean_names(players)
        low, high = self.rules.min_players, self.rules.max_players
        if not low <= len(names) <= high:
            raise IllegalAction(Message("{game} takes {low}-{high} players, not {count}",
                                        game=self.rules.title, low=low, high=high, count=len(names)))
        return names

    def _deal(self, start_tiles: Mapping[str, str]) -> None:
        given = len(start_tiles)
        start_tiles = {nfc(name): label for name, label in start_tiles.items()}  # as names are kept
        if start_tiles and (len(start_tiles) != given or set(start_tiles) != set(self.names)):
            raise IllegalAction(Message("start_tiles must give exactly one tile for every player"))
        geometry = self.geometry
        drawn = {self.names.index(name): geometry.parse_tile(label)
                 for name, label in start_tiles.items()}
        # A card may come in several copies (one per quadrant): the bag holds them all.
        copies = [len(cells) for cells in geometry.cells_of]
        counts = Counter(drawn.values())
        for tile, count in counts.items():
            if count > copies[tile]:
                raise IllegalAction(Message("two players drew the same start tile {tile}",
                                            tile=geometry.tile_labels[tile]))
        closest = turn_order_key(geometry, self.options.get("turn_order"))
        first = min(drawn.values(), key=closest, default=None)
        if drawn and counts[first] > 1:
            raise IllegalAction(Message("two players tie for first with {tile}: they draw again",
                                        tile=geometry.tile_labels[first]))
        if drawn:
            self._setup["start_tiles"] = {self.names[seat]: geometry.tile_labels[tile]
                                          for seat, tile in drawn.items()}
        if self.virtual:
            self.bag = [tile for tile, count in enumerate(copies) for _ in range(count)]
            for tile in drawn.values():
                self.bag.remove(tile)
            self.rng.shuffle(self.bag)
            while not drawn:
                drawn = {seat: self.bag.pop() for seat in range(len(self.names))}
                if list(drawn.values()).count(min(drawn.values(), key=closest)) > 1:
                    # Equal cards tie for first: as at the table, they go back and all draw again.
                    self.bag.extend(drawn.values())
                    self.rng.shuffle(self.bag)
                    drawn = {}
        else:
            self.bag_count = sum(copies) - len(drawn)
        self.start_tiles = drawn  # seat -> tile
        if drawn:
            self.current = min(drawn, key=lambda seat: closest(drawn[seat]))
            if self.rules.start_tiles_stay:
                for tile in drawn.values():
                    self.board.cells[geometry.cells_of[tile][0]] = LONE
            elif self.virtual:
                self.bag.extend(drawn.values())
                self.rng.shuffle(self.bag)
            else:
                self.bag_count += len(drawn)
        for seat in range(len(self.names)):
            for _ in range(self.rules.hand_size):
                self._draw(seat)

    def _draw(self, seat: int) -> None:
        """``seat`` draws a tile, if the bag has one."""
        if self.virtual:
            if self.bag:
                self.hands[seat].append(self.bag.pop())
        elif self.bag_count:
            self.bag_count -= 1

    def keep_in_setup(self, **fields: Any) -> None:
        """Keep setup fields the game does not play by (a tournament ``seat``) in its setup
        line, so that the game recorded, replayed or undone still carries them."""
        self._setup.update(fields)

    def setup_json(self) -> dict[str, Any]:
        """The table-script setup line that starts this game again (labels canonical)."""
        return {"setup": {key: value for key, value in self._setup.items()
                          if value is not None and value != {}}}

    def script(self) -> list[dict[str, Any]]:
        """The game as table-script lines: setup, then every action in canonical form."""
        return [self.setup_json()] + [self.canonical(i).to_json() for i in range(len(self.history))]

    def canonical(self, index: int) -> act.Action:
        """Action ``index`` of ``history`` with its player named and labels canonical."""
        action, seat = self.history[index], self._actors[index]
        changes: dict[str, Any] = {"player": self.names[seat]}
        if hasattr(action, "tile"):
            changes["tile"] = self.geometry.labels[self.geometry.parse(action.tile)]
        if hasattr(action, "chain"):
            changes["chain"] = self._name(self.rules.chain_index(action.chain))
        if isinstance(action, act.Buy):
            changes["shares"] = self._canonical_counts(action.shares)
            changes["trade_in"] = self._canonical_counts(action.trade_in)
        return dataclasses.replace(action, **changes)

    def _canonical_counts(self, given: Mapping[str, int]) -> dict[str, int]:
        counts: dict[str, int] = {}
        for name, count in given.items():
            if count:
                name = self._name(self.rules.chain_index(name))
                counts[name] = counts.get(name, 0) + count
        return counts

    # -- what the state says -------------------------------------------------

    @property
    def over(self) -> bool:
        """True once the final payout is done."""
        return self.pending is None

    @property
    def tiles_left(self) -> int:
        """Tiles still in the draw bag."""
        return len(self.bag) if self.virtual else self.bag_count

    def price(self, chain: int) -> int:
        """A share's price of ``chain`` at its size now (with its territory once counted)."""
        if self.territory is None:
            return self._price_table[chain][self.board.sizes[chain]]
        return self._price_table[chain][self.board.sizes[chain] + self.territory[chain]]

    def bonuses(self, chain: int) -> tuple[int, ...]:
        """The stockholder bonuses ``chain`` would pay now, best position first."""
        return self._bonus_mode.bonuses(self.price(chain))

    def playable(self, seat: int) -> list[int]:
        """Virtual mode: the cells ``seat``'s hand may take now."""
        cells, classify = self.board.cells, self.board.classify
        return [cell for tile in self.hands[seat] for cell in self.geometry.cells_of[tile]
                if cells[cell] == EMPTY and classify(cell)[0] not in (PUT_DEAD, PUT_NO_CHAIN)]

    def is_dead(self, tile: int) -> bool:
        """Whether ``tile`` can never be placed: every free cell it names would join safe chains."""
        cells, classify = self.board.cells, self.board.classify
        return all(classify(cell)[0] == PUT_DEAD
                   for cell in self.geometry.cells_of[tile] if cells[cell] == EMPTY)

    def trade_max(self, seat: int) -> int:
        """During a disposal: the most defunct shares ``seat`` may trade."""
        if Disposal.TRADE not in self.rules.disposal:
            return 0
        merger, ratio = self.merger, self.rules.trade_ratio
        held = self.holdings[seat][merger.defunct]
        return min(held - held % ratio, self.bank[merger.survivor] * ratio)

    # -- playing -------------------------------------------------------------

    def push(self, action: act.Action) -> list[dict[str, Any]]:
        """Play ``action``; return the events it caused. IllegalAction leaves the game untouched."""
        kind = type(action)
        handler = self._HANDLERS.get(kind)
        if handler is None:
            if kind is act.Undo:
                return self.undo(action.player)
            raise IllegalAction(Message("{action} is not an action", action=repr(action)))
        if self.pending is None:
            raise IllegalAction(Message("the game is over"))
        actor = self.current if kind is act.End else self.pending.player
        self._events = []
        try:
            handler(self, action)
        except IllegalAction:
            raise  # handlers check everything before they change anything
        except Exception:
            # A fault of ours part-way through an action: restore the game all the same.
            self.__dict__.update(self.rebuild(self.history).__dict__)
            raise
        self.history.append(action)
        self._actors.append(actor if action.player is None else self.names.index(action.player))
        return self._events

    def undo(self, player: str | None = None) -> list[dict[str, Any]]:
        """Take back the last action (repeatable) by replaying all but it.

        Any player at the table may ask for it. With option
        ``incorrect_placement = "same_turn"`` it stops at the current turn's start.
        """
        if player is not None:
            self._seat(player)
        if not self.history:
            raise IllegalAction(Message("there is nothing to undo"))
        same_turn = self.options["incorrect_placement"] == IncorrectPlacement.SAME_TURN
        if same_turn and len(self.history) <= self.turn_start:
            raise IllegalAction(Message("the turn has moved on: this table undoes only the current "
                                        "turn (a misplaced tile found later stays where it is)"))
        last = self.canonical(len(self.history) - 1)
        self.__dict__.update(self.rebuild(self.history[:-1]).__dict__)
        return [{"event": "undone", "action": last.to_json()}]

    def rebuild(self, history: Sequence[act.Action]) -> "Game":
        """A fresh game from this game's setup with ``history`` played."""
        setup = self._setup
        game = Game(self.rules, setup["players"], setup["options"], setup.get("start_tiles"),
                    setup["seed"])
        game.keep_in_setup(**{key: value for key, value in setup.items()   # a seat, say
                              if key not in game._setup})
        for action in history:
            game.push(action)
        return game

    def _emit(self, event: str, **details: Any) -> None:
        self._events.append({"event": event, **details})

    def _actor(self, action: act.Action, kind: str) -> int:
        pending = self.pending
        if pending.kind != kind:
            raise IllegalAction(_not_now(action.kind, self._waiting_for()))
        if action.player is not None and action.player != self.names[pending.player]:
            self._seat(action.player)
            raise IllegalAction(Message("it is not {player}'s move: {waiting}", player=action.player,
                                        waiting=self._waiting_for()))
        return pending.player

    def _chosen(self, action: act.Action, kind: str) -> int:
        """The chain a found/survivor/next_defunct action picks, if it is a legal choice."""
        self._actor(action, kind)
        chain = self.rules.chain_index(action.chain)
        if chain not in self.pending.choices:
            names = ", ".join(self._name(c) for c in self.pending.choices)
            raise IllegalAction(_not_chosen(kind, self._name(chain), names))
        return chain

    def _seat(self, name: str) -> int:
        if name not in self.names:
            raise IllegalAction(Message("there is no player called {player}", player=act.excerpt(name)))
        return self.names.index(name)

    def _waiting_for(self) -> Message:
        pending = self.pending
        who = self.names[pending.player]
        chain = self._name(pending.chain) if pending.chain >= 0 else ""
        return {
            "place": lambda: Message("{player} must place a tile (or say no_tile)", player=who),
            "found": lambda: Message("{player} must name the new chain", player=who),
            "survivor": lambda: Message("{player} must choose the surviving chain", player=who),
            "next_defunct": lambda: Message("{player} must choose which chain is resolved next",
                                            player=who),
            "market": lambda: Message("a tile must be drawn for the stock market's {chain} shares",
                                      chain=chain),
            "dispose": lambda: Message("{player} must sell, trade or keep {chain} shares",
                                       player=who, chain=chain),
            "buy": lambda: Message("{player} must buy shares (or buy nothing)", player=who),
            "closing": lambda: Message("the remaining tiles are being placed (any player); "
                                       "then end"),
        }[pending.kind]()

    def _name(self, chain: int) -> str:
        return self.rules.chains[chain].name

    # -- placing a tile ------------------------------------------------------

    def _place(self, action: act.Place) -> None:
        if self.pending.kind == "closing":
            self._closing_place(action)
            return
        seat = self._actor(action, "place")
        cell = self.geometry.parse(action.tile)
        label = self.geometry.labels[cell]
        if self.board.cells[cell] != EMPTY:
            raise IllegalAction(Message("{tile} is already on the board", tile=label))
        if cell in self.dead:
            raise IllegalAction(Message("{tile} was revealed as a dead tile and left the game",
                                        tile=label))
        tile = self.geometry.tile_of[cell]
        if self.virtual and tile not in self.hands[seat]:
            raise IllegalAction(Message("{player} does not hold {tile}", player=self.names[seat],
                                        tile=label))
        effect, chains = self.board.classify(cell)
        if effect == PUT_DEAD:
            raise IllegalAction(Message("{tile} would merge two safe chains: it is dead (reveal it "
                                        "with a dead line and draw another)", tile=label))
        if effect == PUT_NO_CHAIN:
            raise IllegalAction(Message("{tile} would found a new chain but every chain is on the "
                                        "board; keep it for later", tile=label))
        self.board.cells[cell] = LONE
        if self.virtual:
            self.hands[seat].remove(tile)
        self.placed, self.passes = True, 0
        self._emit("placed", player=self.names[seat], tile=label)
        if effect == PUT_FOUND:
            free = tuple(c for c, size in enumerate(self.board.sizes) if size == 0)
            self.pending = Pending("found", seat, free, cell=cell)
        elif effect == PUT_GROW:
            self._grow(cell, next(iter(chains)))
        elif effect == PUT_MERGE:
            self._start_merger(cell, tuple(sorted(chains)))
        else:
            self._to_buy()

    def _grow(self, cell: int, chain: int) -> None:
        size = self.board.absorb(cell, chain)
        self._emit("grew", chain=self._name(chain), size=size)
        self._to_buy()

    def _found(self, action: act.Found) -> None:
        chain = self._chosen(action, "found")
        seat = self.pending.player
        size = self.board.absorb(self.pending.cell, chain)
        name, player = self._name(chain), self.names[seat]
        self._emit("founded", player=player, chain=name, size=size)
        if self.bank[chain]:
            self.bank[chain] -= 1
            self.holdings[seat][chain] += 1
            self._emit("founder_share", player=player, chain=name)
        elif self.options["founder_when_sold_out"] == FounderWhenSoldOut.CASH:
            self.cash[seat] += self.price(chain)
            self._emit("founder_cash", player=player, chain=name, amount=self.price(chain))
        self._to_buy()

    def _no_tile(self, action: act.NoTile) -> None:
        seat = self._actor(action, "place")
        if self.virtual and self.playable(seat):
            raise IllegalAction(Message("{player} has a tile to place", player=self.names[seat]))
        self.passes += 1
        self._emit("no_tile", player=self.names[seat])
        self._to_buy()

    def _dead(self, action: act.Dead) -> None:
        seat = self.pending.player if action.player is None else self._seat(action.player)
        cell = self.geometry.parse(action.tile)
        label, tile = self.geometry.labels[cell], self.geometry.tile_of[cell]
        if self.board.cells[cell] != EMPTY or cell in self.dead:
            raise IllegalAction(Message("{tile} is not in anyone's hand", tile=label))
        if self.virtual and tile not in self.hands[seat]:
            raise IllegalAction(Message("{player} does not hold {tile}", player=self.names[seat],
                                        tile=label))
        if not self.is_dead(tile):
            raise IllegalAction(Message("{tile} is not dead: it does not join two safe chains",
                                        tile=label))
        if self.options.get("dead_reveal") == DeadReveal.END_OF_TURN and (
                seat != self.current or self.pending.kind != "buy"):
            raise IllegalAction(Message("this table reveals a dead tile only at the end of its "
                                        "holder's own turn, after placing: {waiting}",
                                        waiting=self._waiting_for()))
        self.dead.append(cell)
        if self.rules.dead_tiles == DeadTiles.TURNOVER:
            self.board.cells[cell] = TURNOVER
        if self.virtual:
            self.hands[seat].remove(tile)
        self._draw(seat)
        self._emit("dead", player=self.names[seat], tile=label)

    # -- bonuses and the two-player market ---------------------------------------

    def _market_draw(self, chain: int) -> int | None:
        """The stock market's shares of ``chain`` (0 if it does not play); None if
        the table must draw a tile for it (physical mode): the game then waits."""
        if not self.two_player_market:
            return 0
        if not self.virtual:
            self.pending = Pending("market", self.current, chain=chain)
            return None
        # Draw a tile and put it back: the bag is unchanged.
        tile = self.bag[self.rng.randrange(len(self.bag))] if self.bag else None
        shares = self.geometry.tile_number(tile) if tile is not None else 0
        self._emit("market", chain=self._name(chain), shares=shares,
                   tile=self.geometry.tile_labels[tile] if tile is not None else None)
        return shares

    def _market(self, action: act.Market) -> None:
        self._actor(action, "market")
        cell = self.geometry.parse(action.tile)
        label = self.geometry.labels[cell]
        if self.board.cells[cell] != EMPTY or cell in self.dead:
            raise IllegalAction(Message("{tile} is not in the bag: draw a tile from the bag", tile=label))
        shares = self.geometry.tile_number(self.geometry.tile_of[cell])
        chain = self.pending.chain
        self._emit("market", chain=self._name(chain), shares=shares, tile=label)
        if self.final_chains is None:
            self._pay_defunct(shares)
        else:
            self._pay_bonuses(chain, self.price(chain), shares)
            self._next_final()

    def _pay_bonuses(self, chain: int, price: int, market: int) -> None:
        holdings: dict[Any, int] = {seat: held[chain] for seat, held in enumerate(self.holdings)}
        if market:
            holdings[MARKET] = market
        mode = self._bonus_mode
        paid = share_bonuses(holdings, mode.bonuses(price), mode.sole_holder_bonus(price),
                             self.rules.bonus_rounding)
        for holder, amount in paid.items():
            if holder != MARKET:  # what the market wins stays in the bank
                self.cash[holder] += amount
            who = holder if holder == MARKET else self.names[holder]
            self._emit("bonus", chain=self._name(chain), player=who, amount=amount)

    # -- buying, the end of a turn and the end of the game -------------------------

    def _to_buy(self) -> None:
        self.pending = Pending("buy", self.current)

    def _buy(self, action: act.Buy) -> None:
        seat = self._actor(action, "buy")
        for given in (action.shares, action.trade_in):
            if not isinstance(given, Mapping):
                raise IllegalAction(Message('buy: shares and trade_in map chain names to counts, '
                                            'e.g. {{"{chain}": 2}}; not {given}',
                                            chain=self._name(0), given=repr(given)))
        if not action.shares and not action.trade_in:
            self._end_turn()
            return
        if action.trade_in and not self.rules.trade_to_buy:
            raise IllegalAction(Message("{game} has no trade-to-buy", game=self.rules.title))
        wanted, traded = self._counts(action.shares), self._counts(action.trade_in)
        total = sum(wanted.values())
        if total > self.rules.buy_limit:
            raise IllegalAction(Message("at most {limit} shares a turn, not {count}",
                                        limit=self.rules.buy_limit, count=total))
        cost = 0
        for chain, count in wanted.items():
            if count and not self.board.sizes[chain]:
                raise IllegalAction(Message("{chain} is not on the board", chain=self._name(chain)))
            if count > self.bank[chain]:
                raise IllegalAction(Message("the bank has only {count} {chain} shares",
                                            count=self.bank[chain], chain=self._name(chain)))
            cost += count * self.price(chain)
        money, cash = self.rules.money, self.cash[seat]
        if any(traded.values()):
            self._check_trade_in(seat, wanted, traded)
            cash = change_after_trade(cash, cost, {
                self._name(c): (n, self.price(c)) for c, n in traded.items()}, money)
        elif cost > cash:
            raise IllegalAction(_short_of(self.rules.trade_to_buy, self.names[seat], money(cash),
                                          money(cost)))
        else:
            cash -= cost
        player = self.names[seat]
        for chain, count in traded.items():
            if count:
                self.bank[chain] += count
                self.holdings[seat][chain] -= count
                self._emit("traded_in", player=player, chain=self._name(chain), shares=count,
                           cash=count * self.price(chain))
        for chain, count in wanted.items():
            self.bank[chain] -= count
            self.holdings[seat][chain] += count
        self.cash[seat] = cash
        if total:
            self._emit("bought", player=player, cost=cost,
                       shares={self._name(c): n for c, n in wanted.items() if n})
        self._end_turn()

    def _counts(self, given: Mapping[str, Any]) -> dict[int, int]:
        """Share counts by chain index from a buy line's ``{name: count}``."""
        counts: dict[int, int] = {}
        for name, count in given.items():
            chain = self.rules.chain_index(name)
            check_count(count, name)
            counts[chain] = counts.get(chain, 0) + count
        return counts

    def _check_trade_in(self, seat: int, wanted: dict[int, int], traded: dict[int, int]) -> None:
        for chain, count in traded.items():
            name = self._name(chain)
            if not count:
                continue
            if wanted.get(chain):
                raise IllegalAction(Message("{chain} shares cannot be traded in to buy {chain} shares",
                                            chain=name))
            if not self.board.sizes[chain]:
                raise IllegalAction(Message("{chain} is not on the board: its shares have no price to "
                                            "trade at", chain=name))
            held = self.holdings[seat][chain]
            if count > held:
                raise IllegalAction(Message("{player} holds {held} {chain} shares, not {count}",
                                            player=self.names[seat], held=held, chain=name, count=count))

    def _end_turn(self) -> None:
        if self.end_declared and not self._round_goes_on():
            if self.rules.closing_phase and not self.end_agreed:
                self.pending = Pending("closing", self.current)
                self._emit("closing")
            else:
                self._final_payout()
            return
        if self.placed:
            self._draw(self.current)
        self.placed = False
        self.turn_start = len(self.history) + 1  # the action ending this turn is not yet recorded
        self.current = (self.current + 1) % len(self.names)
        self.turn += 1
        self.pending = Pending("place", self.current)

    _HANDLERS = {
        act.Place: _place, act.Found: _found, act.Survivor: MergerFlow._choose_survivor,
        act.NextDefunct: MergerFlow._choose_next_defunct, act.Market: _market,
        act.Dispose: MergerFlow._dispose, act.Buy: _buy, act.Dead: _dead, act.NoTile: _no_tile,
        act.End: EndingFlow._end,
    }
