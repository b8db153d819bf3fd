"""What the table is asked: a :class:`Prompt` of :class:`Option` s, and the options of each decision.

The assistant (:mod:`tabletop.table.assistant`) decides *which* question is asked;
this module builds the answers a decision offers, so that three buttons
(NEXT cycles, CONFIRM applies) reach every legal choice: the disposal presets
of a merger, and purchases put together one share at a time.

>>> from tabletop.engine.game import Game
>>> game = Game("acquire", ["Ann", "Bob"], start_tiles={"Ann": "1A", "Bob": "12I"})
>>> for action in (act.Place(tile="1B"), act.Found(chain="Tower"), act.Buy(), act.Place(tile="5E")):
...     _ = game.push(action)
>>> [option.label for option in purchases(game, [])]
['buy nothing', '+1 Tower (200)']
>>> [option.label for option in purchases(game, [0, 0])]
['buy 2 Tower', '+1 Tower (200)']
"""

from __future__ import annotations

from dataclasses import dataclass

from tabletop.engine import actions as act
from tabletop.engine.choices import Disposal
from tabletop.engine.game import Game


@dataclass(frozen=True)
class Option:
    """One answer to a prompt: what the screen says, and the action CONFIRM applies.

    An option without an action only waits (CONFIRM does nothing): a stray press
    must never declare "no playable tile" while the table is placing one. An
    option with ``add`` (or ``trade``) puts a share of that chain (index) into
    the purchase being put together instead (or among the shares traded in for it).
    """

    label: str
    action: act.Action | None
    add: int = -1
    trade: int = -1
    #: An instruction to the assistant itself (settling differences), not an action.
    command: str = ""

    @property
    def builds(self) -> bool:
        """Whether CONFIRM adds to a purchase rather than applying an action."""
        return self.add >= 0 or self.trade >= 0


@dataclass(frozen=True)
class Prompt:
    """What the table is asked now: ``options`` (NEXT cycles, CONFIRM applies ``options[index]``).

    ``kind`` is the game's pending kind (or ``settle``, ``draw``, ``seat``,
    ``over``); ``message`` explains the last thing refused or seen;
    ``flagged`` lists tiles on the board the rules refused, to be taken off;
    ``banner`` is a standing fault (the camera is off: enter tiles by hand);
    ``differences`` what the camera sees that the game does not hold, or the reverse.
    """

    kind: str
    player: str | None
    title: str
    options: tuple[Option, ...]
    index: int = 0
    message: str = ""
    flagged: tuple[str, ...] = ()
    banner: str = ""
    differences: tuple[str, ...] = ()

    @property
    def chosen(self) -> Option | None:
        return self.options[self.index] if self.options else None


def disposals(game: Game, chosen: tuple[int, int] | None = None) -> list[Option]:
    """The disposal presets NEXT offers: keep all, sell all, trade the most and sell or keep the rest.

    ``chosen`` (sell, trade), the steppers' disposal, comes first when given.
    """
    seat, ratio, rules = game.pending.player, game.rules.trade_ratio, game.rules
    held = game.holdings[seat][game.merger.defunct]
    trade = (game.trade_max(seat) // ratio) * ratio if ratio else 0
    options, seen = [], set()
    if chosen is not None:
        sell, traded = chosen
        seen.add(chosen)
        options.append(Option(f"sell {sell}, trade {traded}, keep {held - sell - traded}",
                              act.Dispose(sell=sell, trade=traded)))
    candidates = [("sell all", held, 0), ("trade the most, sell the rest", held - trade, trade)]
    if Disposal.KEEP in rules.disposal:
        candidates = [("keep all", 0, 0)] + candidates + [("trade the most, keep the rest", 0, trade)]
    for label, sell, traded in candidates:
        if (sell, traded) in seen or (traded and not trade):
            continue
        seen.add((sell, traded))
        options.append(Option(f"{label} (sell {sell}, trade {traded})",
                              act.Dispose(sell=sell, trade=traded)))
    return options


def counts(game: Game, basket: list[int]) -> dict[str, int]:
    """``{chain name: shares}`` of a basket of chain indices, in chain order."""
    chains = game.rules.chains
    return {chains[c].name: basket.count(c) for c in sorted(set(basket))}


def describe(game: Game, basket: list[int], traded: list[int]) -> str:
    """"2 Tower, trading in 1 Luxor", or "nothing"."""
    bought = ", ".join(f"{n} {name}" for name, n in counts(game, basket).items())
    handed = ", ".join(f"{n} {name}" for name, n in counts(game, traded).items())
    if handed:
        return f"{bought or 'nothing'}, trading in {handed}"
    return bought or "nothing"


def purchases(game: Game, basket: list[int], traded: list[int] = (),
              agreed_end: bool = False) -> list[Option]:
    """Buy what the basket holds, or add a share to it (one per CONFIRM), or end the game.

    Built a share at a time, so three buttons reach any purchase without a list
    of every combination (MEGAcquire's six shares of fourteen companies).
    Where the rules allow trading shares in to pay (only when cash is short),
    "trade in 1 X" options appear once the basket costs more than the cash.
    """
    seat, chains, traded = game.pending.player, game.rules.chains, list(traded)
    cash = game.cash[seat]
    spent = sum(game.price(c) for c in basket)
    raised = sum(game.price(c) for c in traded)
    tradeable = _tradeable(game, seat, basket, traded) if game.rules.trade_to_buy else {}
    reach = cash + raised + sum(game.price(c) * n for c, n in tradeable.items())
    label = describe(game, basket, traded)
    options = [Option(f"buy {label}" if basket else "buy nothing",
                      act.Buy(shares=counts(game, basket), trade_in=counts(game, traded)))]
    if len(basket) < game.rules.buy_limit:
        for chain in game.board.active():
            price = game.price(chain)
            if chain not in traded and basket.count(chain) < game.bank[chain] and \
                    spent + price <= reach:
                options.append(Option(f"+1 {chains[chain].name} ({price})", None, add=chain))
    if spent > cash + raised:
        for chain, left in tradeable.items():
            if left and chain not in basket:
                options.append(Option(f"trade in 1 {chains[chain].name} ({game.price(chain)})",
                                      None, trade=chain))
    options.extend(endings(game, agreed_end))
    return options


def _tradeable(game: Game, seat: int, basket: list[int], traded: list[int]) -> dict[int, int]:
    """Shares ``seat`` could still trade in: of chains on the board, not being bought."""
    return {chain: game.holdings[seat][chain] - traded.count(chain)
            for chain in game.board.active() if chain not in basket}


def endings(game: Game, agreed: bool) -> list[Option]:
    """Ending the game now: declared (when the rules allow it), or by agreement (if offered)."""
    options = []
    if game.end_allowed():
        options.append(Option("end the game", act.End()))
    if agreed and game.pending is not None and not game.end_declared and \
            game.options.get("agreed_end") and game.pending.kind in ("place", "buy"):
        options.append(Option("end by agreement of all players", act.End(agreed=True)))
    return options


def screen_lines(prompt: Prompt) -> list[str]:
    """A prompt as a headless screen shows it: banner, title, the chosen option, notes.

    >>> screen_lines(Prompt("place", "Ann", "Ann: place a tile",
    ...                     (Option("waiting: place a tile", None),), message="5C: refused"))
    ['Ann: place a tile  [waiting: place a tile]', '  ! 5C: refused']
    """
    lines = [f"** {prompt.banner} **"] if prompt.banner else []
    chosen = f"  [{prompt.chosen.label}]" if prompt.chosen is not None else ""
    lines.append(f"{prompt.title}{chosen}")
    lines += [f"  ! {prompt.message}"] if prompt.message else []
    lines += [f"  - {difference}" for difference in prompt.differences]
    lines += [f"  take off: {', '.join(prompt.flagged)}"] if prompt.flagged else []
    return lines
