"""Mergers: the part of the game's state machine that resolves one.

A tile touching two or more chains starts a merger. The largest chain
survives (the mergemaker breaks a tie); the others go defunct one at a time in
the rule set's order (the mergemaker orders equal sizes). For each defunct
chain its holders are paid their bonuses, then dispose of their shares one
by one; at the end every tile joins the survivor and the mergemaker buys.

:class:`MergerFlow` holds these steps as methods of :class:`tabletop.engine.game.Game`,
which inherits them; they use the game's books and its ``pending``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tabletop.engine import actions as act
from tabletop.engine.choices import DefunctOrder, Disposal, DisposalOrder
from tabletop.errors import IllegalAction
from tabletop.messages import Message
from tabletop.engine.pending import Pending

@dataclass(slots=True)
class Merger:
    """A merger being resolved, one defunct chain at a time."""

    cell: int
    touching: tuple[int, ...]
    survivor: int = -1
    defuncts_left: list[int] = field(default_factory=list)
    defunct: int = -1
    price: int = 0  # the defunct chain's price before the merger
    disposers: list[int] = field(default_factory=list)


def check_count(count: Any, name: str) -> None:
    """``count`` (of a dispose line's ``name``: sell, trade, keep; or a chain's) is a share count."""
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise IllegalAction(_not_a_count(name, repr(count)))


def _not_a_count(name: str, count: str) -> Message:
    made = {
        "sell": lambda: Message("sell: share counts are whole numbers, 0 or more, not {count}",
                                count=count),
        "trade": lambda: Message("trade: share counts are whole numbers, 0 or more, not {count}",
                                 count=count),
        "keep": lambda: Message("keep: share counts are whole numbers, 0 or more, not {count}",
                                count=count),
    }.get(name)
    return made() if made else Message("{chain}: share counts are whole numbers, 0 or more, "
                                       "not {count}", chain=name, count=count)


class MergerFlow:
    """Merger steps of :class:`~tabletop.engine.game.Game` (a mixin: see the module's docstring)."""

    def _start_merger(self, cell: int, chains: tuple[int, ...]) -> None:
        largest = max(self.board.sizes[c] for c in chains)
        tied = tuple(c for c in chains if self.board.sizes[c] == largest)
        self.merger = Merger(cell, chains)
        self._ask_if_tied("survivor", tied, self._set_survivor)

    def _ask_if_tied(self, kind: str, tied: tuple[int, ...], then) -> None:
        """Go on with the only chain, or wait for the mergemaker to pick among tied ones."""
        if len(tied) > 1:
            self.pending = Pending(kind, self.current, tied)
        else:
            then(tied[0])

    def _choose_survivor(self, action: act.Survivor) -> None:
        self._set_survivor(self._chosen(action, "survivor"))

    def _set_survivor(self, survivor: int) -> None:
        merger = self.merger
        merger.survivor = survivor
        merger.defuncts_left = [c for c in merger.touching if c != survivor]
        self._emit("merger", survivor=self._name(survivor),
                   defunct=[self._name(c) for c in merger.defuncts_left],
                   sizes={self._name(c): self.board.sizes[c] for c in merger.touching})
        self._next_defunct()

    def _next_defunct(self) -> None:
        merger = self.merger
        if not merger.defuncts_left:
            self._finish_merger()
            return
        sizes = [self.board.sizes[c] for c in merger.defuncts_left]
        largest = self.options["defunct_order"] == DefunctOrder.LARGEST_FIRST
        pick = max(sizes) if largest else min(sizes)
        tied = tuple(c for c in merger.defuncts_left if self.board.sizes[c] == pick)
        self._ask_if_tied("next_defunct", tied, self._resolve)

    def _choose_next_defunct(self, action: act.NextDefunct) -> None:
        self._resolve(self._chosen(action, "next_defunct"))

    def _resolve(self, defunct: int) -> None:
        merger = self.merger
        merger.defuncts_left.remove(defunct)
        merger.defunct, merger.price = defunct, self.price(defunct)
        market = self._market_draw(defunct)
        if market is not None:
            self._pay_defunct(market)

    def _pay_defunct(self, market: int) -> None:
        merger = self.merger
        self._pay_bonuses(merger.defunct, merger.price, market)
        n = len(self.names)
        if self.rules.disposal_order == DisposalOrder.LARGEST_HOLDER_FIRST:
            # Largest holder first; ties go to the first to the mergemaker's left (seed 002).
            holders = [(self.current + 1 + i) % n for i in range(n)]
            holders.sort(key=lambda seat: -self.holdings[seat][merger.defunct])
        else:
            holders = [(self.current + i) % n for i in range(n)]  # mergemaker, then clockwise
        holders = [seat for seat in holders if self.holdings[seat][merger.defunct]]
        merger.disposers = holders
        self._next_disposal()

    def _next_disposal(self) -> None:
        merger = self.merger
        if merger.disposers:
            self.pending = Pending("dispose", merger.disposers.pop(0), chain=merger.defunct)
            return
        self.board.dissolve(merger.defunct, merger.survivor)
        self._emit("defunct", chain=self._name(merger.defunct), into=self._name(merger.survivor))
        self._next_defunct()

    def _dispose(self, action: act.Dispose) -> None:
        seat = self._actor(action, "dispose")
        check_count(action.sell, "sell")
        check_count(action.trade, "trade")
        merger = self.merger
        defunct, survivor = merger.defunct, merger.survivor
        held = self.holdings[seat][defunct]
        if action.keep is not None:
            check_count(action.keep, "keep")
        keep = held - action.sell - action.trade if action.keep is None else action.keep
        name, ratio = self._name(defunct), self.rules.trade_ratio
        if keep < 0 or action.sell + action.trade + keep != held:
            raise IllegalAction(Message("{player} holds {held} {chain} shares: sell + trade + keep "
                                        "must make {held}", player=self.names[seat], held=held,
                                        chain=name))
        if action.trade and Disposal.TRADE not in self.rules.disposal:
            raise IllegalAction(Message("{game} has no trading in a merger: hold or sell",
                                        game=self.rules.title))
        if keep and Disposal.KEEP not in self.rules.disposal:
            raise IllegalAction(Message("every {chain} share must be sold or traded", chain=name))
        if action.trade and action.trade % ratio:
            raise IllegalAction(Message("shares are traded {ratio} for 1: trade a multiple of {ratio}",
                                        ratio=ratio))
        if action.trade and action.trade // ratio > self.bank[survivor]:
            raise IllegalAction(Message("the bank has only {count} {chain} shares: trade at most "
                                        "{most}", count=self.bank[survivor],
                                        chain=self._name(survivor),
                                        most=self.bank[survivor] * ratio))
        received = action.trade // ratio if action.trade else 0
        self.holdings[seat][defunct] = keep
        self.bank[defunct] += action.sell + action.trade
        self.cash[seat] += action.sell * merger.price
        self.holdings[seat][survivor] += received
        self.bank[survivor] -= received
        self._emit("disposed", player=self.names[seat], chain=name, sold=action.sell,
                   cash=action.sell * merger.price, traded=action.trade,
                   received=received, kept=keep)
        self._next_disposal()

    def _finish_merger(self) -> None:
        merger, self.merger = self.merger, None
        self._grow(merger.cell, merger.survivor)

