"""The banker and stock broker: a state machine over one game.

>>> from tabletop.actions import Place, Found, Buy
>>> game = Game("acquire", ["Ann", "Bob", "Cy"], start_tiles={"Ann": "5C", "Bob": "9I", "Cy": "1D"})
>>> game.pending.kind, game.player_name(game.pending.player)
('place', 'Cy')
>>> [e["event"] for e in game.push(Place(tile="1E"))]
['placed']
>>> game.pending.kind, [game.rules.chains[c].name for c in game.pending.choices][:2]
('found', ['Tower', 'Luxor'])
>>> _ = game.push(Found(chain="Tower")); _ = game.push(Buy(shares={"Tower": 2}))
>>> game.cash, game.holdings[2][0]
([6000, 6000, 5600], 3)
>>> _ = game.undo(); game.pending.kind
'buy'

Every action is checked completely before anything changes: an illegal one
raises :class:`IllegalAction` with a message for the table and leaves the
game as it was. ``push`` returns the events the action caused, for the screen.
``undo`` takes back the last action by rebuilding the game from its setup and
the actions before it, so it can never drift from a clean replay.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from tabletop import actions as act
from tabletop.board import (EMPTY, LONE, PUT_DEAD, PUT_FOUND, PUT_GROW, PUT_MERGE,
                            PUT_NO_CHAIN, TURNOVER, Board)
from tabletop.errors import IllegalAction
from tabletop.payout import share_bonuses
from tabletop.ruleset import RuleSet, load_rules

MARKET = "market"


@dataclass(slots=True)
class Pending:
    """What the game waits for: ``kind``, the seat of the player to act, legal choices."""

    kind: str
    player: int
    choices: tuple[int, ...] = ()
    chain: int = -1
    cell: int = -1


@dataclass(slots=True)
class Merger:
    """A merger being resolved, one defunct chain at a time."""

    cell: int
    survivor: int = -1
    touching: tuple[int, ...] = ()
    remaining: list[int] = field(default_factory=list)
    defunct: int = -1
    price: int = 0
    queue: list[int] = field(default_factory=list)


def _check_count(count: Any) -> None:
    if count is not None and (not isinstance(count, int) or isinstance(count, bool) or count < 0):
        raise IllegalAction(f"share counts are whole numbers, 0 or more, not {count!r}")


class Game:
    """One game of an Acquire-family rule set, physical or virtual.

    Physical mode (no ``seed``): tiles come from a real bag; the game learns
    each tile when it is placed. Virtual mode (``seed`` given): the game deals
    from a bag shuffled by that seed.
    """

    def __init__(self, rules: RuleSet | str, players: Sequence[str],
                 options: Mapping[str, Any] | None = None,
                 start_tiles: Mapping[str, str] | None = None, seed: int | None = None) -> None:
        self.rules = rules if isinstance(rules, RuleSet) else load_rules(rules)
        self.options = self.rules.resolve_options(options)
        self._setup = {"rules": self.rules.name, "players": list(players),
                       "options": dict(options or {}), "start_tiles": dict(start_tiles or {}),
                       "seed": seed}
        self.names = self._checked_players(players)
        self.geometry = self.rules.geometry
        self._price_table = self.rules.price_table
        self._end_size = self.options["end_size"]
        chains, n = len(self.rules.chains), len(self.names)
        self.board = Board(self.geometry, chains, self.rules.safe_size)
        self.bank = [self.rules.shares_per_chain] * chains
        self.cash = [self.rules.starting_cash] * n
        self.holdings = [[0] * chains for _ in range(n)]
        self.dead: list[int] = []
        self.turn = 1
        self.turn_start = 0  # index in history of the current turn's first action
        self.current = 0
        self.passes = 0
        self.placed = False
        self.end_declared = False
        self.merger: Merger | None = None
        self.final: list[int] | None = None
        self.market_shares = 0
        self.standings: list[tuple[int, int]] | None = None
        self.history: list[act.Action] = []
        self.two_player_market = n == 2 and self.options["two_player_market"]
        self._bonus_mode = self.rules.bonus_mode(self.options["bonus_mode"])
        self._events: list[dict[str, Any]] = []
        self.virtual = seed is not None
        self.rng = random.Random(seed) if self.virtual else None
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self._deal(start_tiles or {})
        self.pending: Pending | None = Pending("place", self.current)

    # -- setup -------------------------------------------------------------

    def _checked_players(self, players: Sequence[str]) -> list[str]:
        names = list(players)
        if any(not isinstance(name, str) or not name.strip() for name in names):
            raise IllegalAction("every player needs a name")
        if len(set(names)) != len(names):
            raise IllegalAction("two players have the same name")
        low, high = self.rules.min_players, self.rules.max_players
        if not low <= len(names) <= high:
            raise IllegalAction(f"{self.rules.title} takes {low}-{high} players, not {len(names)}")
        return names

    def _deal(self, start_tiles: Mapping[str, str]) -> None:
        if start_tiles and set(start_tiles) != set(self.names):
            raise IllegalAction("start_tiles must give exactly one tile for every player")
        cells = {name: self.geometry.parse(label) for name, label in start_tiles.items()}
        if len(set(cells.values())) != len(cells):
            raise IllegalAction("two players drew the same start tile")
        n, hand = len(self.names), self.rules.hand_size
        if self.virtual:
            self.bag = [c for c in range(self.geometry.size) if c not in cells.values()]
            self.rng.shuffle(self.bag)
            if not cells:
                cells = {name: self.bag.pop() for name in self.names}
            drawn = list(cells.values())
        else:
            self.bag_count = self.geometry.size - len(cells)
        self.start_tiles = {self.names.index(name): cell for name, cell in cells.items()}
        if cells:
            self.current = self.names.index(min(cells, key=cells.__getitem__))
            if self.rules.start_tiles_stay:
                for cell in cells.values():
                    self.board.cells[cell] = LONE
            elif self.virtual:
                self.bag.extend(drawn)
                self.rng.shuffle(self.bag)
            else:
                self.bag_count += len(cells)
        if self.virtual:
            for seat in range(n):
                self.hands[seat] = [self.bag.pop() for _ in range(min(hand, len(self.bag)))]
        else:
            self.bag_count = max(0, self.bag_count - n * hand)

    def setup_json(self) -> dict[str, Any]:
        """The table-script setup line that starts this game again."""
        setup = {key: value for key, value in self._setup.items() if value not in (None, {})}
        return {"setup": setup}

    # -- what the state says ------------------------------------------------

    def player_name(self, seat: int) -> str:
        return self.names[seat]

    @property
    def over(self) -> bool:
        return self.pending is None

    @property
    def tiles_left(self) -> int:
        """Tiles still in the draw bag."""
        return len(self.bag) if self.virtual else self.bag_count

    def end_allowed(self) -> bool:
        """Whether the current player may declare the end now."""
        if self.pending is None or self.end_declared:
            return False
        if self.passes >= len(self.names):
            return True
        sizes, safe_size = self.board.sizes, self.board.safe_size
        largest = max(sizes)
        if largest >= self._end_size:
            return True
        if largest < safe_size or not self.rules.end_when_all_safe:
            return False
        return all(size >= safe_size for size in sizes if size)

    def price(self, chain: int) -> int:
        return self._price_table[chain][self.board.sizes[chain]]

    def bonuses(self, chain: int) -> tuple[int, ...]:
        return self._bonus_mode.bonuses(self.price(chain))

    def playable(self, seat: int) -> list[int]:
        """Virtual mode: the tiles in ``seat``'s hand that may be placed now."""
        return [cell for cell in self.hands[seat]
                if self.board.classify(cell)[0] not in (PUT_DEAD, PUT_NO_CHAIN)]

    # -- playing -------------------------------------------------------------

    def push(self, action: act.Action) -> list[dict[str, Any]]:
        """Play ``action``; return the events it caused. IllegalAction leaves the game untouched."""
        if isinstance(action, act.Undo):
            return self.undo(action.player)
        handler = self._HANDLERS.get(type(action))
        if handler is None:
            raise IllegalAction(f"{action!r} is not an action")
        if self.pending is None:
            raise IllegalAction("the game is over")
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
        return self._events

    def undo(self, player: str | None = None) -> list[dict[str, Any]]:
        """Take back the last action (repeatable) by replaying all but it.

        Any player at the table may ask for it.
        """
        if player is not None:
            self._seat(player)
        if not self.history:
            raise IllegalAction("there is nothing to undo")
        if self.options["incorrect_placement"] == "same_turn" and len(self.history) <= self.turn_start:
            raise IllegalAction("the turn has moved on: this table undoes only the current turn "
                                "(a misplaced tile found later stays where it is)")
        last = self.history[-1]
        again = self.rebuild(self.history[:-1])
        self.__dict__.update(again.__dict__)
        return [{"event": "undone", "action": last.to_json()}]

    def rebuild(self, history: Sequence[act.Action]) -> "Game":
        """A fresh game from this game's setup with ``history`` played."""
        setup = self._setup
        game = Game(self.rules, setup["players"], setup["options"], setup["start_tiles"],
                    setup["seed"])
        for action in history:
            game.push(action)
        return game

    def _emit(self, event: str, **details: Any) -> None:
        self._events.append({"event": event, **details})

    def _actor(self, action: act.Action, kinds: tuple[str, ...]) -> int:
        pending = self.pending
        if pending.kind not in kinds:
            raise IllegalAction(f"{action.kind} is not possible now: {self._waiting_for()}")
        if action.player is not None and action.player != self.names[pending.player]:
            self._seat(action.player)
            raise IllegalAction(f"it is not {action.player}'s move: {self._waiting_for()}")
        return pending.player

    def _seat(self, name: str) -> int:
        if name not in self.names:
            raise IllegalAction(f"there is no player called {name!r}")
        return self.names.index(name)

    def _waiting_for(self) -> str:
        pending = self.pending
        who = self.names[pending.player]
        chain = self.rules.chains[pending.chain].name if pending.chain >= 0 else ""
        return {
            "place": f"{who} must place a tile (or say no_tile)",
            "found": f"{who} must name the new chain",
            "survivor": f"{who} must choose the surviving chain",
            "next_defunct": f"{who} must choose which chain is resolved next",
            "market": f"a tile must be drawn for the stock market's {chain} shares",
            "dispose": f"{who} must sell, trade or keep {chain} shares",
            "buy": f"{who} must buy shares (or buy nothing)",
        }.get(pending.kind, f"waiting for {pending.kind}")

    def _cell(self, label: str) -> int:
        return self.geometry.parse(label)

    def _chain(self, name: str) -> int:
        return self.rules.chain_index(name)

    def _name(self, chain: int) -> str:
        return self.rules.chains[chain].name

    def _label(self, cell: int) -> str:
        return self.geometry.labels[cell]

    # place -------------------------------------------------------------------

    def _place(self, action: act.Place) -> None:
        seat = self._actor(action, ("place",))
        cell = self._cell(action.tile)
        label = self._label(cell)
        if self.board.cells[cell] != EMPTY:
            raise IllegalAction(f"{label} is already on the board")
        if cell in self.dead:
            raise IllegalAction(f"{label} was revealed as a dead tile and left the game")
        if self.virtual and cell not in self.hands[seat]:
            raise IllegalAction(f"{self.names[seat]} does not hold {label}")
        effect, chains = self.board.classify(cell)
        if effect == PUT_DEAD:
            raise IllegalAction(f"{label} would merge two safe chains: it is dead "
                                f"(reveal it with a dead line and draw another)")
        if effect == PUT_NO_CHAIN:
            raise IllegalAction(f"{label} would found a new chain but every chain is on the board; "
                                f"keep it for later")
        self.board.cells[cell] = LONE
        if self.virtual:
            self.hands[seat].remove(cell)
        self.placed, self.passes = True, 0
        self._emit("placed", player=self.names[seat], tile=label)
        if effect == PUT_FOUND:
            free = tuple(c for c, size in enumerate(self.board.sizes) if size == 0)
            self.pending = Pending("found", seat, free, cell=cell)
        elif effect == PUT_GROW:
            chain = next(iter(chains))
            size = self.board.absorb(cell, chain)
            self._emit("grew", chain=self._name(chain), size=size)
            self._to_buy()
        elif effect == PUT_MERGE:
            self._start_merger(cell, tuple(sorted(chains)))
        else:
            self._to_buy()

    def _found(self, action: act.Found) -> None:
        seat = self._actor(action, ("found",))
        chain = self._chain(action.chain)
        if chain not in self.pending.choices:
            raise IllegalAction(f"{self._name(chain)} is already on the board")
        size = self.board.absorb(self.pending.cell, chain)
        name, player = self._name(chain), self.names[seat]
        self._emit("founded", player=player, chain=name, size=size)
        if self.bank[chain]:
            self.bank[chain] -= 1
            self.holdings[seat][chain] += 1
            self._emit("founder_share", player=player, chain=name)
        elif self.options["founder_when_sold_out"] == "cash":
            self.cash[seat] += self.price(chain)
            self._emit("founder_cash", player=player, chain=name, amount=self.price(chain))
        self._to_buy()

    # mergers -------------------------------------------------------------------

    def _start_merger(self, cell: int, chains: tuple[int, ...]) -> None:
        largest = max(self.board.sizes[c] for c in chains)
        tied = tuple(c for c in chains if self.board.sizes[c] == largest)
        self.merger = Merger(cell, touching=chains)
        if len(tied) > 1:
            self.pending = Pending("survivor", self.current, tied)
        else:
            self._set_survivor(tied[0])

    def _survivor(self, action: act.Survivor) -> None:
        self._actor(action, ("survivor",))
        chain = self._chain(action.chain)
        if chain not in self.pending.choices:
            names = ", ".join(self._name(c) for c in self.pending.choices)
            raise IllegalAction(f"{self._name(chain)} cannot survive: choose one of {names}")
        self._set_survivor(chain)

    def _set_survivor(self, survivor: int) -> None:
        merger = self.merger
        merger.survivor = survivor
        merger.remaining = [c for c in merger.touching if c != survivor]
        self._emit("merger", survivor=self._name(survivor),
                   defunct=[self._name(c) for c in merger.remaining],
                   sizes={self._name(c): self.board.sizes[c] for c in merger.touching})
        self._next_defunct()

    def _next_defunct(self) -> None:
        merger = self.merger
        if not merger.remaining:
            self._finish_merger()
            return
        sizes = [self.board.sizes[c] for c in merger.remaining]
        pick = max(sizes) if self.options["defunct_order"] == "largest_first" else min(sizes)
        tied = tuple(c for c in merger.remaining if self.board.sizes[c] == pick)
        if len(tied) > 1:
            self.pending = Pending("next_defunct", self.current, tied)
        else:
            self._resolve(tied[0])

    def _next_defunct_action(self, action: act.NextDefunct) -> None:
        self._actor(action, ("next_defunct",))
        chain = self._chain(action.chain)
        if chain not in self.pending.choices:
            names = ", ".join(self._name(c) for c in self.pending.choices)
            raise IllegalAction(f"{self._name(chain)} cannot go next: choose one of {names}")
        self._resolve(chain)

    def _resolve(self, defunct: int) -> None:
        merger = self.merger
        merger.remaining.remove(defunct)
        merger.defunct, merger.price = defunct, self.price(defunct)
        if self._ask_market(defunct):
            return
        self._pay_defunct()

    def _pay_defunct(self) -> None:
        merger = self.merger
        self._pay_bonuses(merger.defunct, merger.price)
        holders = [seat for seat in self._clockwise(self.current)
                   if self.holdings[seat][merger.defunct]]
        if self.rules.disposal_order == "largest_holder_first":
            holders.sort(key=lambda seat: -self.holdings[seat][merger.defunct])
        merger.queue = holders
        self._next_disposal()

    def _clockwise(self, first: int) -> list[int]:
        n = len(self.names)
        return [(first + step) % n for step in range(n)]

    def _next_disposal(self) -> None:
        merger = self.merger
        if merger.queue:
            self.pending = Pending("dispose", merger.queue.pop(0), chain=merger.defunct)
            return
        defunct, survivor = merger.defunct, merger.survivor
        self.board.dissolve(defunct, survivor)
        self._emit("defunct", chain=self._name(defunct), into=self._name(survivor))
        self._next_defunct()

    def _dispose(self, action: act.Dispose) -> None:
        seat = self._actor(action, ("dispose",))
        for count in (action.sell, action.trade, action.keep):
            _check_count(count)
        merger = self.merger
        defunct, survivor = merger.defunct, merger.survivor
        held = self.holdings[seat][defunct]
        keep = held - action.sell - action.trade if action.keep is None else action.keep
        name = self._name(defunct)
        if keep < 0 or action.sell + action.trade + keep != held:
            raise IllegalAction(f"{self.names[seat]} holds {held} {name} shares: "
                                f"sell + trade + keep must make {held}")
        ratio = self.rules.trade_ratio
        if action.trade and "trade" not in self.rules.disposal:
            raise IllegalAction(f"{self.rules.title} has no trading in a merger: hold or sell")
        if keep and "keep" not in self.rules.disposal:
            raise IllegalAction(f"every {name} share must be sold or traded")
        if action.trade % ratio:
            raise IllegalAction(f"shares are traded {ratio} for 1: trade a multiple of {ratio}")
        if action.trade // ratio > self.bank[survivor]:
            raise IllegalAction(f"the bank has only {self.bank[survivor]} {self._name(survivor)} "
                                f"shares: trade at most {self.bank[survivor] * ratio}")
        player, received = self.names[seat], action.trade // ratio
        self.holdings[seat][defunct] = keep
        self.bank[defunct] += action.sell + action.trade
        self.cash[seat] += action.sell * merger.price
        self.holdings[seat][survivor] += received
        self.bank[survivor] -= received
        self._emit("disposed", player=player, chain=name, sold=action.sell,
                   cash=action.sell * merger.price, traded=action.trade,
                   received=received, kept=keep)
        self._next_disposal()

    def _finish_merger(self) -> None:
        merger, self.merger = self.merger, None
        self.board.cells[merger.cell] = LONE
        size = self.board.absorb(merger.cell, merger.survivor)
        self._emit("grew", chain=self._name(merger.survivor), size=size)
        self._to_buy()

    # bonuses and the two-player market -----------------------------------------

    def _ask_market(self, chain: int) -> bool:
        """Two players: draw the market's holding; True if the table must draw it."""
        if not self.two_player_market:
            self.market_shares = 0
            return False
        if self.virtual:
            # Draw a tile and put it back: the bag is unchanged.
            cell = self.bag[self.rng.randrange(len(self.bag))] if self.bag else None
            self.market_shares = self.geometry.tile_number(cell) if cell is not None else 0
            self._emit("market", chain=self._name(chain), shares=self.market_shares,
                       tile=self._label(cell) if cell is not None else None)
            return False
        self.pending = Pending("market", self.current, chain=chain)
        return True

    def _market(self, action: act.Market) -> None:
        self._actor(action, ("market",))
        cell = self._cell(action.tile)
        if self.board.cells[cell] != EMPTY or cell in self.dead:
            raise IllegalAction(f"{self._label(cell)} is not in the bag: draw a tile from the bag")
        self.market_shares = self.geometry.tile_number(cell)
        chain = self.pending.chain
        self._emit("market", chain=self._name(chain), shares=self.market_shares,
                   tile=self._label(cell))
        if self.final is not None:
            self._pay_bonuses(chain, self.price(chain))
            self._next_final()
        else:
            self._pay_defunct()

    def _pay_bonuses(self, chain: int, price: int) -> None:
        holdings: dict[Any, int] = {seat: self.holdings[seat][chain]
                                    for seat in range(len(self.names))}
        if self.two_player_market and self.market_shares:
            holdings[MARKET] = self.market_shares
        mode = self._bonus_mode
        paid = share_bonuses(holdings, mode.bonuses(price), mode.sole_holder_bonus(price),
                             self.rules.bonus_rounding)
        for holder, amount in paid.items():
            if holder != MARKET:
                self.cash[holder] += amount
            who = holder if holder == MARKET else self.names[holder]
            self._emit("bonus", chain=self._name(chain), player=who, amount=amount)

    # buying and the end of a turn -------------------------------------------------

    def _to_buy(self) -> None:
        self.pending = Pending("buy", self.current)

    def _buy(self, action: act.Buy) -> None:
        seat = self._actor(action, ("buy",))
        if action.trade_in:
            raise IllegalAction(f"{self.rules.title} has no trade-to-buy")
        if not action.shares:
            self._end_turn()
            return
        wanted: dict[int, int] = {}
        for name, count in action.shares.items():
            chain = self._chain(name)
            _check_count(count)
            wanted[chain] = wanted.get(chain, 0) + count
        total = sum(wanted.values())
        if total > self.rules.buy_limit:
            raise IllegalAction(f"at most {self.rules.buy_limit} shares a turn, not {total}")
        cost = 0
        for chain, count in wanted.items():
            if count and not self.board.sizes[chain]:
                raise IllegalAction(f"{self._name(chain)} is not on the board")
            if count > self.bank[chain]:
                raise IllegalAction(f"the bank has only {self.bank[chain]} {self._name(chain)} shares")
            cost += count * self.price(chain)
        if cost > self.cash[seat]:
            raise IllegalAction(f"{self.names[seat]} has {self.rules.currency}{self.cash[seat]}, "
                                f"the shares cost {self.rules.currency}{cost}")
        for chain, count in wanted.items():
            self.bank[chain] -= count
            self.holdings[seat][chain] += count
        self.cash[seat] -= cost
        if total:
            self._emit("bought", player=self.names[seat], cost=cost,
                       shares={self._name(c): n for c, n in wanted.items() if n})
        self._end_turn()

    def _end_turn(self) -> None:
        if self.end_declared:
            self.final = self.board.active()
            self._next_final()
            return
        if self.placed:
            if self.virtual:
                if self.bag:
                    self.hands[self.current].append(self.bag.pop())
            elif self.bag_count:
                self.bag_count -= 1
        self.placed = False
        self.turn_start = len(self.history) + 1  # the action ending this turn is not yet recorded
        self.current = (self.current + 1) % len(self.names)
        self.turn += 1
        self.pending = Pending("place", self.current)

    def _no_tile(self, action: act.NoTile) -> None:
        seat = self._actor(action, ("place",))
        if self.virtual and self.playable(seat):
            raise IllegalAction(f"{self.names[seat]} has a tile to place")
        self.passes += 1
        self._emit("no_tile", player=self.names[seat])
        self._to_buy()

    def _dead(self, action: act.Dead) -> None:
        seat = self.pending.player if action.player is None else self._seat(action.player)
        cell = self._cell(action.tile)
        label = self._label(cell)
        if self.board.cells[cell] != EMPTY or cell in self.dead:
            raise IllegalAction(f"{label} is not in anyone's hand")
        if self.virtual and cell not in self.hands[seat]:
            raise IllegalAction(f"{self.names[seat]} does not hold {label}")
        if self.board.classify(cell)[0] != PUT_DEAD:
            raise IllegalAction(f"{label} is not dead: it does not join two safe chains")
        self.dead.append(cell)
        if self.rules.dead_tiles == "turnover":
            self.board.cells[cell] = TURNOVER
        if self.virtual:
            self.hands[seat].remove(cell)
            if self.bag:
                self.hands[seat].append(self.bag.pop())
        elif self.bag_count:
            self.bag_count -= 1
        self._emit("dead", player=self.names[seat], tile=label)

    def _end(self, action: act.End) -> None:
        if action.player is not None and action.player != self.names[self.current]:
            self._seat(action.player)
            raise IllegalAction(f"only {self.names[self.current]}, whose turn it is, may end the game")
        if self.end_declared:
            raise IllegalAction("the end is already declared")
        if action.agreed:
            if not self.options["agreed_end"]:
                raise IllegalAction("this table plays without ending by agreement")
        elif not self.end_allowed():
            raise IllegalAction(
                f"the end may not be declared yet: it needs a chain of {self.options['end_size']}+ "
                f"tiles or every chain on the board safe ({self.rules.safe_size}+)")
        self.end_declared = True
        self._emit("end_declared", player=self.names[self.current], agreed=action.agreed)

    # the final payout ---------------------------------------------------------------

    def _next_final(self) -> None:
        """Final bonuses chain by chain (a market draw may pause it), then the sale."""
        while self.final:
            chain = self.final.pop(0)
            if self._ask_market(chain):
                return
            self._pay_bonuses(chain, self.price(chain))
        self._close()

    def _close(self) -> None:
        for chain, size in enumerate(self.board.sizes):
            if not size:
                continue
            price = self.price(chain)
            for seat, held in enumerate(self.holdings):
                if held[chain]:
                    self.cash[seat] += held[chain] * price
                    self._emit("sold", player=self.names[seat], chain=self._name(chain),
                               shares=held[chain], cash=held[chain] * price)
                    self.bank[chain] += held[chain]
                    held[chain] = 0
        order = sorted(range(len(self.names)), key=lambda seat: (-self.cash[seat], seat))
        self.standings = [(seat, 1 + sum(1 for other in self.cash if other > self.cash[seat]))
                          for seat in order]
        self.pending = None
        self._emit("game_over", standings=[
            {"name": self.names[seat], "cash": self.cash[seat], "rank": rank}
            for seat, rank in self.standings])

    _HANDLERS = {
        act.Place: _place, act.Found: _found, act.Survivor: _survivor,
        act.NextDefunct: _next_defunct_action, act.Market: _market, act.Dispose: _dispose,
        act.Buy: _buy, act.Dead: _dead, act.NoTile: _no_tile, act.End: _end,
    }
