"""Trade-to-buy (MEGAcquire GOLD, ACQUISITIONS): shares handed back to pay for shares.

A player short of cash for the shares they want may hand shares back to the
bank at their current price, only as many as needed. Their cash goes first;
what the traded shares raise beyond the shortfall is paid back as change, and
the change must be worth less than any one traded share (else that share was
not needed and is kept). docs/rules.md (MEGAcquire GOLD).

>>> change_after_trade(cash=0, cost=30, traded={"Regal": (6, 5)})   # the rulebook's example
0
>>> change_after_trade(cash=4, cost=30, traded={"Regal": (6, 5)})   # 4 + 30 - 30: small change
4
>>> suggest_trade_in(shortfall=26, held={"Regal": (6, 5), "Luster": (3, 2)})
{'Regal': 6}
"""

from __future__ import annotations

from typing import Callable, Mapping

from tabletop.errors import IllegalAction
from tabletop.messages import Message


def change_after_trade(cash: int, cost: int, traded: Mapping[str, tuple[int, int]],
                       money: Callable[[int], str] = str) -> int:
    """The cash a player keeps after paying ``cost`` with ``cash`` and ``traded``.

    ``traded`` maps a chain's name to ``(shares handed back, price of one)``.
    IllegalAction, with the reason, when the trade breaks the rule.
    """
    traded = {name: pair for name, pair in traded.items() if pair[0]}
    if not traded:
        if cost > cash:
            raise IllegalAction(Message("the shares cost {cost}, more than the {cash} in hand",
                                        cost=money(cost), cash=money(cash)))
        return cash - cost
    if cash >= cost:
        raise IllegalAction(Message("{cash} in hand pays for these shares ({cost}): shares may be "
                                    "traded in only when cash is short", cash=money(cash),
                                    cost=money(cost)))
    raised = sum(count * price for count, price in traded.values())
    if cash + raised < cost:
        raise IllegalAction(Message("{cash} in hand and {raised} from the traded shares do not pay "
                                    "for {cost}", cash=money(cash), raised=money(raised),
                                    cost=money(cost)))
    change = cash + raised - cost
    name, (_, price) = min(traded.items(), key=lambda item: item[1][1])
    if change >= price:
        raise IllegalAction(Message("the change ({change}) would be worth a traded {chain} share "
                                    "({price}) or more: keep that share and trade only as many as "
                                    "needed", change=money(change), chain=name,
                                    price=money(price)))
    return change


def suggest_trade_in(shortfall: int, held: Mapping[str, tuple[int, int]]) -> dict[str, int] | None:
    """The fewest shares (dearest first) that raise ``shortfall``, or None if ``held`` cannot.

    ``held`` maps a chain's name to ``(shares the player may trade, price of one)``.
    Handing back the dearest shares first leaves change below the last share's
    price, which is the cheapest traded: the trade always obeys the change rule.
    """
    if shortfall <= 0:
        return {}
    picked: dict[str, int] = {}
    for name, (count, price) in sorted(held.items(), key=lambda item: -item[1][1]):
        if price <= 0:
            continue
        needed = min(count, -(-shortfall // price))
        if needed:
            picked[name] = needed
            shortfall -= needed * price
        if shortfall <= 0:
            return picked
    return None
