"""The end of a game: when it may be declared, the closing phase, the final payout.

The current player declares the end once :meth:`EndingFlow.end_allowed` (or
the table agrees to end); the turn is finished, then, by the rule set:
MEGAcquire's closing phase (``pending.kind == "closing"``: the remaining tiles
are placed, growing companies, no purchases), ACQUISITIONS' territory count
(each kingdom adds the empty hexes of the pockets its own castles alone
enclose: :meth:`tabletop.engine.board.Board.enclosed`),
and for every game the bonuses of each active chain and the sale of every
share at its price. An agreed end in a ``complete_round`` rule set first lets
the round finish, so the player before the first plays last.

:class:`EndingFlow` holds these steps as methods of :class:`tabletop.engine.game.Game`,
which inherits them, as it does the merger's.
"""

from __future__ import annotations

from tabletop.engine import actions as act
from tabletop.engine.board import EMPTY, LONE, TURNOVER
from tabletop.engine.choices import AgreedEnd, FinalCount
from tabletop.errors import IllegalAction
from tabletop.messages import Message


class EndingFlow:
    """End-of-game steps of :class:`~tabletop.engine.game.Game` (a mixin: see the module's docstring)."""

    def end_allowed(self) -> bool:
        """Whether the current player may declare the end now.

        By the rule file: a chain of option ``end_size`` tiles, every chain
        safe (``end.when_all_safe``), or in a territory count (ACQUISITIONS)
        no chain able to grow but into its own pockets; and always after a
        full round in which nobody placed.
        """
        if self.pending is None or self.end_declared:
            return False
        if self.passes >= len(self.names):
            return True
        sizes, safe_size = self.board.sizes, self.board.safe_size
        largest = max(sizes)
        if self._end_size is not None and largest >= self._end_size:
            return True
        if not largest:
            return False
        if self.rules.end_when_all_safe and all(size >= safe_size for size in sizes if size):
            return True
        return self.rules.final_count == FinalCount.TERRITORY and self.board.growth_left() is None

    def remaining_cells(self) -> list[int]:
        """Virtual mode: the free cells that a tile in a hand or the bag names."""
        tiles = set(self.bag).union(*self.hands)
        cells, cells_of = self.board.cells, self.geometry.cells_of
        return sorted(cell for tile in tiles for cell in cells_of[tile] if cells[cell] == EMPTY)

    def _closing_place(self, action: act.Place) -> None:
        """After the end (MEGAcquire): a remaining tile grows what it touches, no purchases.

        Touching one company it grows it; touching two or more it is a turnover
        tile that joins nothing; otherwise it stays lone (no company is founded).
        """
        seat = self.current if action.player is None else self._seat(action.player)
        cell = self.geometry.parse(action.tile)
        label, tile = self.geometry.labels[cell], self.geometry.tile_of[cell]
        if self.board.cells[cell] != EMPTY or cell in self.dead:
            raise IllegalAction(Message("{tile} is already on the board", tile=label))
        holder = self._holder(tile, seat)
        if self.virtual and holder is None:
            raise IllegalAction(Message("{tile} is not among the remaining tiles", tile=label))
        _, chains = self.board.classify(cell)
        self._emit("placed", player=self.names[seat], tile=label)
        if len(chains) == 1:
            chain = next(iter(chains))
            self._emit("grew", chain=self._name(chain), size=self.board.absorb(cell, chain))
        elif chains:
            self.board.cells[cell] = TURNOVER
            self._emit("turnover", tile=label)
        else:
            self.board.cells[cell] = LONE
        if holder is not None:
            holder.remove(tile)

    def _holder(self, tile: int, seat: int) -> list[int] | None:
        """Virtual mode: the hand (``seat``'s first) or the bag that holds ``tile``."""
        if not self.virtual:
            return None
        for place in [self.hands[seat]] + self.hands + [self.bag]:
            if tile in place:
                return place
        return None

    def _round_goes_on(self) -> bool:
        """An agreed end that completes the round: the player before the first has yet to play."""
        return (self.end_agreed and self.rules.agreed_end == AgreedEnd.COMPLETE_ROUND
                and self.current != (self.first - 1) % len(self.names))

    def _end(self, action: act.End) -> None:
        if not isinstance(action.agreed, bool):
            raise IllegalAction(Message("end: agreed must be true or false, not {given}",
                                        given=repr(action.agreed)))
        if self.pending.kind == "closing":
            if action.player is not None:
                self._seat(action.player)
            if action.agreed:
                raise IllegalAction(Message("the end is already declared: send end to finish the "
                                            "closing placements"))
            if self.virtual:
                # The game knows every remaining tile: all are placed before the count.
                left = len(self.remaining_cells())
                if left:
                    raise IllegalAction(
                        Message("{count} tiles remain to be placed before the final count", count=left)
                        if left > 1 else
                        Message("{count} tile remains to be placed before the final count", count=left))
            self._final_payout()
            return
        if action.player is not None and action.player != self.names[self.current]:
            self._seat(action.player)
            raise IllegalAction(Message("only {player}, whose turn it is, may end the game",
                                        player=self.names[self.current]))
        if self.end_declared:
            raise IllegalAction(Message("the end is already declared"))
        if action.agreed:
            if not self.options["agreed_end"]:
                raise IllegalAction(Message("this table plays without ending by agreement"))
        elif not self.end_allowed():
            raise IllegalAction(self._not_yet())
        self.end_declared, self.end_agreed = True, action.agreed
        self._emit("end_declared", player=self.names[self.current], agreed=action.agreed)

    def _not_yet(self) -> Message:
        """Why the end may not be declared now, in the rule set's terms."""
        if self.rules.final_count == FinalCount.TERRITORY and not self.rules.end_when_all_safe:
            growth = self.board.growth_left()
            if growth is None:
                return Message("the end may not be declared yet: no chain is on the board")
            cell, chain = growth
            return Message("the end may not be declared yet: {chain} can still grow at {tile}",
                           chain=self._name(chain), tile=self.geometry.labels[cell])
        safe = self.rules.safe_size
        if self._end_size is None:
            return Message("the end may not be declared yet: it needs every chain on the board safe "
                           "({safe}+)", safe=safe)
        return Message("the end may not be declared yet: it needs a chain of {size}+ tiles or "
                       "every chain on the board safe ({safe}+)", size=self._end_size, safe=safe)

    def _final_payout(self) -> None:
        if self.rules.final_count == FinalCount.TERRITORY:
            self.territory = self.board.enclosed()
            for chain, extra in enumerate(self.territory):
                if extra:
                    self._emit("territory", chain=self._name(chain), cells=extra,
                               size=self.board.sizes[chain] + extra)
        self.final_chains = self.board.active()
        self._next_final()

    def _next_final(self) -> None:
        """Final bonuses chain by chain (a market draw may pause it), then the sale."""
        while self.final_chains:
            chain = self.final_chains.pop(0)
            market = self._market_draw(chain)
            if market is None:
                return
            self._pay_bonuses(chain, self.price(chain), market)
        self._sell_all_and_rank()

    def _sell_all_and_rank(self) -> None:
        for chain in self.board.active():
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
