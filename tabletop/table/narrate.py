"""What happened, in sentences for the table: the history's entries and the last merger's summary.

The game keeps only the actions; what each caused (bonuses, sales, trades,
growth) comes from the events a replay of them emits. The replay is kept per
game and extended as actions are added (an undo starts it again), so a
300-action game is replayed once, not once a frame.

>>> from tabletop.engine.game import Game
>>> from tabletop.engine.actions import Place, Found, Buy
>>> game = Game("acquire", ["Ann", "Bob", "Cy"], start_tiles={"Ann": "5C", "Bob": "9I", "Cy": "1D"})
>>> for action in (Place(tile="1E"), Found(chain="Tower"), Buy(shares={"Tower": 2})):
...     _ = game.push(action)
>>> [str(entry) for entry in entries(game)]
['Cy placed 1E', 'Cy founded Tower (gets 1 free share)', 'Cy bought 2 Tower for $400']
>>> last_mergers(game)
()
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any, Sequence

from tabletop.engine import actions as act
from tabletop.engine.game import MARKET, Game
from tabletop.messages import Message

#: What a bonus-holder's place is called: ties share a place, a sole holder is "sole".
PLACES = ("first", "second", "third", "fourth", "fifth", "sixth")


@dataclass(frozen=True)
class Bonus:
    """A stockholder bonus: ``player`` (or "market") took ``amount`` as ``place`` holder."""

    player: str
    amount: int
    place: str


@dataclass(frozen=True)
class Disposal:
    """What a holder of the defunct chain did: ``cash`` is what the sales raised."""

    player: str
    sold: int
    traded: int
    kept: int
    cash: int


@dataclass(frozen=True)
class MergerSummary:
    """One defunct chain of a merger made by ``by``: its bonuses and its holders' disposals."""

    by: str
    survivor: str
    defunct: str
    size: int
    bonuses: tuple[Bonus, ...]
    disposals: tuple[Disposal, ...]


@dataclass(frozen=True)
class Account:
    """A player's last figures: cash when the end came, final bonuses and sales, the total."""

    player: str
    cash_before: int
    bonuses: int
    sales: int
    total: int
    rank: int


@dataclass
class _Step:
    """One action of the history as replayed: who, in which turn, and what it caused."""

    action: act.Action       # canonical: player named, labels canonical
    turn: int                # the turn it was played in
    events: list[dict[str, Any]]
    holdings: list[list[int]]  # the books just before it
    cash: list[int]
    survivor: str              # the chain a merger in progress keeps, else ""
    merging: bool              # a merger was in progress before it


class _Replay:
    def __init__(self, game: Game) -> None:
        self.again = game.rebuild([])
        self.history: list[act.Action] = []
        self.steps: list[_Step] = []

    def extend(self, history: Sequence[act.Action]) -> None:
        again = self.again
        for action in history[len(self.history):]:
            turn = again.turn
            holdings, cash = [list(held) for held in again.holdings], list(again.cash)
            merger = again.merger
            survivor = again.rules.chains[merger.survivor].name if merger and \
                merger.survivor >= 0 else ""
            events = again.push(action)
            self.steps.append(_Step(again.canonical(len(again.history) - 1), turn, list(events),
                                    holdings, cash, survivor, merger is not None))
            self.history.append(action)


_REPLAYS: "weakref.WeakKeyDictionary[Game, _Replay]" = weakref.WeakKeyDictionary()


def _steps(game: Game) -> list[_Step]:
    """The game's history replayed (cached; extended when the history grew, redone after an undo)."""
    replay = _REPLAYS.get(game)
    history = game.history
    if replay is None or len(replay.history) > len(history) or any(
            mine is not theirs and mine != theirs for mine, theirs in zip(replay.history, history)):
        replay = _REPLAYS[game] = _Replay(game)
    replay.extend(history)
    return replay.steps


# -- the merger summary -------------------------------------------------------------------------


def last_mergers(game: Game) -> tuple[MergerSummary, ...]:
    """The mergers of the turn in progress; before its tile is placed, those of the turn before."""
    steps = _steps(game)
    now = [step for step in steps if step.turn == game.turn]
    shown = game.turn
    if not any(isinstance(step.action, (act.Place, act.NoTile)) for step in now):
        shown = game.turn - 1   # this turn's tile is not down yet: the last turn's stay
    return tuple(_mergers(game, [s for s in steps if s.turn == shown]))


def _mergers(game: Game, steps: list[_Step]) -> list[MergerSummary]:
    """The defunct chains resolved in ``steps``, one summary each, in order."""
    found: list[MergerSummary] = []
    merger: dict[str, Any] | None = None
    for step in steps:
        market: dict[str, int] = {}
        for event in step.events:
            kind = event["event"]
            if kind == "merger":
                merger = {"by": step.action.player, "survivor": event["survivor"],
                          "sizes": event["sizes"], "left": list(event["defunct"])}
            elif merger is None:
                continue
            elif kind == "market":
                market[event["chain"]] = event["shares"]
            elif kind == "bonus":
                _summary(found, merger, event["chain"])
                place = _place(game, step.holdings, event, market.get(event["chain"], 0))
                found[-1] = _with(found[-1], bonuses=found[-1].bonuses + (
                    Bonus(event["player"], event["amount"], place),))
            elif kind == "disposed":
                _summary(found, merger, event["chain"])
                found[-1] = _with(found[-1], disposals=found[-1].disposals + (
                    Disposal(event["player"], event["sold"], event["traded"], event["kept"],
                             event["cash"]),))
            elif kind == "defunct":
                _summary(found, merger, event["chain"])
                merger["left"].remove(event["chain"])
                if not merger["left"]:
                    merger = None
    return found


def _summary(found: list[MergerSummary], merger: dict[str, Any], defunct: str) -> None:
    """Make sure the last summary is the one of ``defunct``."""
    if not found or found[-1].defunct != defunct or found[-1].survivor != merger["survivor"]:
        found.append(MergerSummary(merger["by"], merger["survivor"], defunct,
                                   merger["sizes"].get(defunct, 0), (), ()))


def _with(summary: MergerSummary, **changes: Any) -> MergerSummary:
    return MergerSummary(**{**summary.__dict__, **changes})


def _place(game: Game, holdings: list[list[int]], bonus: dict[str, Any], market: int) -> str:
    """The bonus-holder's place among the chain's holders then: ties share it."""
    chain = game.rules.chain_index(bonus["chain"])
    counts = {name: held[chain] for name, held in zip(game.names, holdings) if held[chain]}
    if market:
        counts[MARKET] = market
    if len(counts) == 1:
        return "sole"
    mine = counts.get(bonus["player"], 0)
    rank = sum(1 for count in counts.values() if count > mine)
    return PLACES[rank] if rank < len(PLACES) else str(rank + 1)


# -- the final accounts -------------------------------------------------------------------------

#: Events of the final payout (a merger's bonuses come with "merger" or while one is open).
FINAL = ("territory", "bonus", "sold", "game_over")


def final_accounts(game: Game) -> list[Account]:
    """Each player's cash when the final payout began, its bonuses and sales, best first.

    Empty while the game goes on. ``cash_before + bonuses + sales == total``, the final cash.
    """
    if game.standings is None:
        return []
    steps = _steps(game)
    start = next(i for i, step in enumerate(steps) if not step.merging and any(
        e["event"] in FINAL for e in step.events) and not any(
        e["event"] == "merger" for e in step.events))
    cash = list(steps[start].cash)
    seats = {name: seat for seat, name in enumerate(game.names)}
    for event in steps[start].events:
        if event["event"] in FINAL:
            break
        if event["event"] == "bought":      # the buy that ended the game came first
            cash[seats[event["player"]]] -= event["cost"]
        elif event["event"] == "traded_in":
            cash[seats[event["player"]]] += event["cash"]
    bonuses, sales = [0] * len(cash), [0] * len(cash)
    for step in steps[start:]:
        final = False
        for event in step.events:
            final = final or event["event"] in FINAL
            if final and event["event"] == "bonus" and event["player"] != MARKET:
                bonuses[seats[event["player"]]] += event["amount"]
            elif final and event["event"] == "sold":
                sales[seats[event["player"]]] += event["cash"]
    return [Account(game.names[seat], cash[seat], bonuses[seat], sales[seat], game.cash[seat],
                    rank) for seat, rank in game.standings]


# -- the history's sentences --------------------------------------------------------------------


def entries(game: Game) -> list[Message]:
    """One sentence per action of the history, oldest first, saying what it did."""
    money = game.rules.money
    return [_sentence(step, money) for step in _steps(game)]


def _sentence(step: _Step, money) -> Message:
    main, bonuses, others = _main(step, money), *_consequences(step, money)
    merger = next((e for e in step.events if e["event"] == "merger"), None)
    if merger and bonuses and list(bonuses)[0] in merger["defunct"]:
        # "Sam merged Luxor into Tower: Ann $3,000, Cy $1,500"
        main = Message("{merger}: {paid}", merger=main, paid=bonuses.pop(list(bonuses)[0]))
    parts = [main] + [Message("{chain} bonuses: {paid}", chain=chain, paid=paid)
                      for chain, paid in bonuses.items()] + others
    said = parts[0]
    for part in parts[1:]:
        said = Message("{first}; {then}", first=said, then=part)
    return said


def _main(step: _Step, money) -> Message:
    action, events = step.action, step.events
    who = action.player
    first = {e["event"]: e for e in reversed(events)}
    if isinstance(action, act.Place):
        merger = first.get("merger")
        if merger:
            return Message("{player} placed {tile} and merged {defunct} into {survivor}",
                           player=who, tile=action.tile, defunct=_join(merger["defunct"]),
                           survivor=merger["survivor"])
        return Message("{player} placed {tile}", player=who, tile=action.tile)
    if isinstance(action, act.Found):
        if "founder_share" in first:
            return Message("{player} founded {chain} (gets 1 free share)", player=who,
                           chain=action.chain)
        if "founder_cash" in first:
            return Message("{player} founded {chain} (gets {amount}: no share left)", player=who,
                           chain=action.chain, amount=money(first["founder_cash"]["amount"]))
        return Message("{player} founded {chain}", player=who, chain=action.chain)
    if isinstance(action, act.Survivor):
        merger = first["merger"]
        return Message("{player} merged {defunct} into {survivor}", player=who,
                       defunct=_join(merger["defunct"]), survivor=merger["survivor"])
    if isinstance(action, act.NextDefunct):
        return Message("{player} chose {chain} to go next", player=who, chain=action.chain)
    if isinstance(action, act.Market):
        market = first["market"]
        return Message("{tile} drawn for the stock market: {shares} {chain} shares",
                       tile=action.tile, shares=market["shares"], chain=market["chain"])
    if isinstance(action, act.Dispose):
        return _disposal(first["disposed"], step.survivor, money)
    if isinstance(action, act.Buy):
        return _purchase(step, money)
    if isinstance(action, act.Dead):
        return Message("{player} revealed the dead tile {tile}", player=who, tile=action.tile)
    if isinstance(action, act.NoTile):
        return Message("{player} had no tile to place", player=who)
    if isinstance(action, act.End):
        if "end_declared" not in first:
            return Message("the closing placements are done")
        if action.agreed:
            return Message("{player} ended the game (agreed by all)", player=who)
        return Message("{player} declared the end of the game", player=who)
    return Message("{player}: {action}", player=who, action=action.kind)


def _disposal(event: dict[str, Any], survivor: str, money) -> Message:
    """"Ann sold 2 Luxor for $1,200, traded 2 for 1 Tower, kept 1"."""
    who, chain = event["player"], event["chain"]
    parts: list[Message] = []
    if event["sold"]:
        parts.append(Message("{player} sold {sold} {chain} for {cash}", player=who,
                             sold=event["sold"], chain=chain, cash=money(event["cash"])))
    if event["traded"]:
        traded, received = event["traded"], event["received"]
        parts.append(Message("traded {traded} for {received} {survivor}", traded=traded,
                             received=received, survivor=survivor) if parts else
                     Message("{player} traded {traded} {chain} for {received} {survivor}",
                             player=who, traded=traded, chain=chain, received=received,
                             survivor=survivor))
    if event["kept"] or not parts:
        parts.append(Message("kept {kept}", kept=event["kept"]) if parts else
                     Message("{player} kept {kept} {chain}", player=who, kept=event["kept"],
                             chain=chain))
    said = parts[0]
    for part in parts[1:]:
        said = Message("{first}, {then}", first=said, then=part)
    return said


def _purchase(step: _Step, money) -> Message:
    who = step.action.player
    bought = next((e for e in step.events if e["event"] == "bought"), None)
    traded = [e for e in step.events if e["event"] == "traded_in"]
    if bought is None and not traded:
        return Message("{player} bought nothing", player=who)
    said = None
    if traded:
        said = Message("{player} traded in {shares} for {cash}", player=who,
                       shares=_join(f"{e['shares']} {e['chain']}" for e in traded),
                       cash=money(sum(e["cash"] for e in traded)))
    if bought is not None:
        shares = _join(f"{n} {chain}" for chain, n in bought["shares"].items())
        buy = (Message("{player} bought {shares} for {cost}", player=who, shares=shares,
                       cost=money(bought["cost"])) if said is None else
               Message("bought {shares} for {cost}", shares=shares, cost=money(bought["cost"])))
        said = buy if said is None else Message("{first}, {then}", first=said, then=buy)
    return said


def _consequences(step: _Step, money) -> tuple[dict[str, str], list[Message]]:
    """What else the action set off: bonuses, a chain gone, growth, the end's payout."""
    said: list[Message] = []
    bonuses: dict[str, list[str]] = {}
    for event in step.events:
        kind = event["event"]
        if kind == "bonus":
            holder, amount = event["player"], money(event["amount"])
            bonuses.setdefault(event["chain"], []).append(
                Message("{player} {amount}", player=Message("the stock market"), amount=amount)
                if holder == MARKET else f"{holder} {amount}")
        elif kind == "grew":
            said.append(Message("{chain} is now {size} tiles", chain=event["chain"],
                                size=event["size"]))
        elif kind == "sold":
            said.append(Message("{player} sold {shares} {chain} for {cash}",
                                player=event["player"], shares=event["shares"],
                                chain=event["chain"], cash=money(event["cash"])))
        elif kind == "game_over":
            winner = event["standings"][0]
            said.append(Message("{player} wins with {cash}", player=winner["name"],
                                cash=money(winner["cash"])))
    return {chain: _listed(paid) for chain, paid in bonuses.items()}, said


def _listed(items: list[str]) -> str:
    """"Ann $3,000, Cy $1,500": a Message when one of them is (each translated on its own)."""
    if not any(isinstance(item, Message) for item in items):
        return _join(items)
    said = items[0]
    for item in items[1:]:
        said = Message("{first}, {then}", first=said, then=item)
    return said


def _join(items) -> str:
    return ", ".join(str(item) for item in items)
