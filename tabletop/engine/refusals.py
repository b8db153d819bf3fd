"""The game's refusals that depend on the action refused: one sentence per case, so that a
translation can name the action (a catalogue translates whole templates, never pieces).

>>> str(not_now("buy", Message("{player} must place a tile (or say no_tile)", player="Ann")))
'buy is not possible now: Ann must place a tile (or say no_tile)'
>>> not_chosen("survivor", "Luxor", "Tower").template
'{chain} cannot survive: choose one of {chains}'
"""

from __future__ import annotations

from tabletop.messages import Message


def not_now(kind: str, waiting: Message) -> Message:
    """An action out of its time: one sentence per kind, so a translation can name the action."""
    made = {
        "place": lambda: Message("place is not possible now: {waiting}", waiting=waiting),
        "no_tile": lambda: Message("no_tile is not possible now: {waiting}", waiting=waiting),
        "found": lambda: Message("found is not possible now: {waiting}", waiting=waiting),
        "survivor": lambda: Message("survivor is not possible now: {waiting}", waiting=waiting),
        "next_defunct": lambda: Message("next_defunct is not possible now: {waiting}",
                                        waiting=waiting),
        "market": lambda: Message("market is not possible now: {waiting}", waiting=waiting),
        "dispose": lambda: Message("dispose is not possible now: {waiting}", waiting=waiting),
        "buy": lambda: Message("buy is not possible now: {waiting}", waiting=waiting),
    }.get(kind)
    return made() if made else Message("{action} is not possible now: {waiting}", action=kind,
                                       waiting=waiting)


def not_chosen(kind: str, chain: str, names: str) -> Message:
    """A chain a found, survivor or next_defunct action may not pick."""
    if kind == "found":
        return Message("{chain} is already on the board: choose one of {chains}", chain=chain,
                       chains=names)
    if kind == "survivor":
        return Message("{chain} cannot survive: choose one of {chains}", chain=chain, chains=names)
    return Message("{chain} cannot go next: choose one of {chains}", chain=chain, chains=names)


def short_of(trade_to_buy: bool, player: str, cash: str, cost: str) -> Message:
    if trade_to_buy:
        return Message("{player} has {cash}, the shares cost {cost} (shares may be traded in: "
                       "trade_in)", player=player, cash=cash, cost=cost)
    return Message("{player} has {cash}, the shares cost {cost}", player=player, cash=cash,
                   cost=cost)
