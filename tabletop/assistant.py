"""The assistant: what the camera saw and the buttons said, made into confirmed banker actions.

Pure Python over a *table* (a :class:`~tabletop.journal.Table`, or anything
with ``game``, ``push(action)`` and ``undo()``): the journal records every
confirmed action before the engine's events come back, so nothing is shown as
done that is not on disk.

The table is always asked one thing, a :class:`Prompt`: a list of options
NEXT cycles through and CONFIRM applies; UNDO takes back an unconfirmed
proposal, or else the last confirmed action. A tile the camera commits (or a
player taps in by hand) becomes a proposal saying what it does; a tile the
rules refuse is explained, applies nothing, and stays flagged until it is
taken off the board.

>>> from tabletop.engine import Game
>>> class Bare:  # a table without a journal, for the example
...     def __init__(self, game): self.game = game
...     def push(self, action): return self.game.push(action)
...     def undo(self): return self.game.undo()
>>> game = Game("acquire", ["Ann", "Bob"], start_tiles={"Ann": "1A", "Bob": "12I"})
>>> assistant = Assistant(Bare(game))
>>> assistant.tile_seen("6C")
>>> assistant.prompt.title
'Ann placed 6C'
>>> assistant.press(CONFIRM)
>>> assistant.prompt.title
'Ann: buy shares (so far nothing)'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from tabletop import actions as act
from tabletop.board import EMPTY, PUT_DEAD, PUT_FOUND, PUT_GROW, PUT_MERGE, PUT_NO_CHAIN
from tabletop.engine import Game
from tabletop.errors import TabletopError

CONFIRM, NEXT, UNDO = "confirm", "next", "undo"
BUTTONS = (CONFIRM, NEXT, UNDO)


class GameTable(Protocol):
    """What the assistant needs of a table: its game, and pushing and undoing through it."""

    game: Game

    def push(self, action: act.Action) -> list[dict[str, Any]]: ...

    def undo(self) -> list[dict[str, Any]]: ...


@dataclass(frozen=True)
class Option:
    """One answer to a prompt: what the screen says, and the action CONFIRM applies.

    An option without an action only waits (CONFIRM does nothing): a stray press
    must never declare "no playable tile" while the table is placing one.
    """

    label: str
    action: act.Action | None
    #: A share of this chain (index) that CONFIRM adds to the purchase being put together.
    add: int = -1


@dataclass(frozen=True)
class Prompt:
    """What the table is asked now: ``options`` (NEXT cycles, CONFIRM applies ``options[index]``).

    ``kind`` is the game's pending kind; ``message`` explains the last thing
    refused; ``flagged`` lists tiles on the board the rules refused, to be taken off.
    """

    kind: str
    player: str | None
    title: str
    options: tuple[Option, ...]
    index: int = 0
    message: str = ""
    flagged: tuple[str, ...] = ()

    @property
    def chosen(self) -> Option | None:
        return self.options[self.index] if self.options else None


@dataclass
class Assistant:
    """Turns tiles seen or tapped and button presses into confirmed actions on ``table``."""

    table: GameTable
    #: What CONFIRM and UNDO gave back last (the engine's events), for the screen.
    events: list[dict[str, Any]] = field(default_factory=list)
    _proposal: act.Action | None = None
    _index: int = 0
    _message: str = ""
    _flagged: dict[str, str] = field(default_factory=dict)  # tile label -> why it was refused
    _basket: list[int] = field(default_factory=list)  # the purchase so far: a chain per share

    @property
    def game(self) -> Game:
        return self.table.game

    # --- inputs -----------------------------------------------------------------------------

    def tile_seen(self, label: str) -> None:
        """The camera committed a tile: propose placing it (or, in a market draw, drawing it)."""
        game = self.game
        if game.pending is None:
            self._message = "the game is over: no more tiles"
            return
        kind = game.pending.kind
        if kind == "market":
            self._propose(act.Market(tile=label))
        elif kind in ("place", "closing"):
            problem = self._refusal(label)
            if problem:
                self._flagged[label] = problem
                self._message = f"{label}: {problem}. Take it off the board."
                return
            self._propose(act.Place(tile=label))
        else:
            self._message = (f"{label} was placed while the table is asked to "
                             f"{self.prompt.title.split(': ', 1)[-1]}: take it off, finish this first")
            self._flagged[label] = "placed out of turn"

    def enter(self, label: str) -> None:
        """A tile tapped in by hand (the camera missed or misread it): as if seen."""
        self.tile_seen(label)

    def tile_removed(self, label: str) -> None:
        """A flagged tile was taken off the board: stop flagging it."""
        if self._flagged.pop(label, None) is not None and not self._flagged:
            self._message = ""

    def press(self, button: str) -> None:
        """CONFIRM applies the chosen option, NEXT shows the next one, UNDO takes back."""
        if button == NEXT:
            options = self.prompt.options
            self._index = (self._index + 1) % len(options) if options else 0
        elif button == CONFIRM:
            self._confirm()
        elif button == UNDO:
            self._undo()
        else:
            raise ValueError(f"unknown button {button!r}: expected one of {', '.join(BUTTONS)}")

    # --- the prompt ---------------------------------------------------------------------------

    @property
    def prompt(self) -> Prompt:
        """What the table is asked now."""
        game = self.game
        flagged = tuple(self._flagged)
        if game.pending is None:
            return Prompt("over", None, "The game is over", (), 0, self._message, flagged)
        kind, player = game.pending.kind, game.names[game.pending.player]
        if self._proposal is not None:
            options = (Option(self._describe(self._proposal), self._proposal),)
            title = f"{player} placed {self._proposal.tile}" \
                if isinstance(self._proposal, act.Place) else \
                f"{player}: the market draws {self._proposal.tile}"
        else:
            title, options = self._question(kind, player)
        index = min(self._index, max(len(options) - 1, 0))
        return Prompt(kind, player, title, tuple(options), index, self._message, flagged)

    def _question(self, kind: str, player: str) -> tuple[str, list[Option]]:
        game, chains = self.game, self.game.rules.chains
        if kind in ("found", "survivor", "next_defunct"):
            verb = {"found": "found", "survivor": "keep as the survivor",
                    "next_defunct": "dispose of next"}[kind]
            action = {"found": act.Found, "survivor": act.Survivor,
                      "next_defunct": act.NextDefunct}[kind]
            return (f"{player}: which chain to {verb}?",
                    [Option(chains[c].name, action(chain=chains[c].name))
                     for c in game.pending.choices])
        if kind == "dispose":
            return (f"{player}: your {chains[game.merger.defunct].name} shares",
                    _disposals(game))
        if kind == "buy":
            bought = _shares(game, self._basket)
            summary = ", ".join(f"{n} {name}" for name, n in bought.items()) or "nothing"
            return f"{player}: buy shares (so far {summary})", _purchases(game, self._basket)
        if kind == "market":
            return f"{player}: draw a tile for the stock market and place it", []
        verb = "place a tile" if kind == "place" else "place a closing tile"
        options = [Option(f"waiting: {verb}", None)]
        if kind == "place":
            options.append(Option("no playable tile", act.NoTile()))
        if kind == "closing":
            options.append(Option("no more closing tiles: score the game", act.End()))
        elif game.end_allowed():
            options.append(Option("end the game", act.End()))
        return f"{player}: {verb}", options

    def _describe(self, action: act.Action) -> str:
        if isinstance(action, act.Market):
            return f"the market gets the shares of {action.tile}"
        game = self.game
        cell = game.geometry.parse(action.tile)
        what, touched = game.board.classify(cell)
        chains, sizes = game.rules.chains, game.board.sizes
        if what == PUT_FOUND:
            return f"{action.tile}: founds a chain"
        if what == PUT_GROW:
            (chain,) = touched
            return f"{action.tile}: grows {chains[chain].name} ({sizes[chain]})"
        if what == PUT_MERGE:
            order = sorted(touched, key=lambda c: -sizes[c])
            big = order[0]
            return (f"{action.tile}: merges "
                    f"{', '.join(f'{chains[c].name} ({sizes[c]})' for c in order[1:])} "
                    f"into {chains[big].name} ({sizes[big]})")
        return f"{action.tile}: a lone tile"

    # --- applying -----------------------------------------------------------------------------

    def _propose(self, action: act.Action) -> None:
        self._proposal, self._index, self._message = action, 0, ""

    def _refusal(self, label: str) -> str:
        """Why the rules refuse a tile on ``label`` now, or "" if they do not (at a glance)."""
        game = self.game
        try:
            cell = game.geometry.parse(label)
        except (TabletopError, ValueError, KeyError) as error:
            return str(error)
        if game.board.cells[cell] != EMPTY:
            return "that cell already holds a tile"
        if game.pending.kind == "closing":
            return ""   # closing placements follow their own rule: the engine judges them
        what, _ = game.board.classify(cell)
        if what == PUT_DEAD:
            return "it would merge two safe chains (a dead tile): reveal it and draw another"
        if what == PUT_NO_CHAIN:
            return "it would found a chain, and every chain is on the board"
        return ""

    def _confirm(self) -> None:
        chosen = self.prompt.chosen
        if chosen is not None and chosen.add >= 0:
            self._basket.append(chosen.add)     # the same option stays chosen: CONFIRM adds another
            return
        if chosen is None or chosen.action is None:
            self._message = "nothing to confirm yet: place a tile, or NEXT for other choices"
            return
        try:
            self.events = self.table.push(chosen.action)
        except TabletopError as error:
            self._message = str(error)
            if self._proposal is not None and hasattr(self._proposal, "tile"):
                self._flagged[self._proposal.tile] = str(error)
            self._proposal, self._index, self._basket = None, 0, []
            return
        self._proposal, self._index, self._message, self._basket = None, 0, "", []

    def _undo(self) -> None:
        if self._basket:
            self._basket.pop()
            return
        if self._proposal is not None:
            self._proposal, self._index, self._message = None, 0, ""
            return
        try:
            self.events = self.table.undo()
        except TabletopError as error:
            self._message = str(error)
            return
        self._index, self._message = 0, ""


def _disposals(game: Game) -> list[Option]:
    """The disposal presets NEXT offers: keep all, sell all, trade all, trade all and sell the rest."""
    seat, ratio, rules = game.pending.player, game.rules.trade_ratio, game.rules
    held = game.holdings[seat][game.merger.defunct]
    trade = (game.trade_max(seat) // ratio) * ratio if ratio else 0
    options, seen = [], set()
    candidates = [("sell all", held, 0), ("trade the most, sell the rest", held - trade, trade)]
    if "keep" in rules.disposal:
        candidates = [("keep all", 0, 0)] + candidates + [("trade the most, keep the rest", 0, trade)]
    for label, sell, traded in candidates:
        if (sell, traded) in seen or (traded and not trade):
            continue
        seen.add((sell, traded))
        options.append(Option(f"{label} (sell {sell}, trade {traded})",
                              act.Dispose(sell=sell, trade=traded)))
    return options


def _shares(game: Game, basket: list[int]) -> dict[str, int]:
    chains = game.rules.chains
    return {chains[c].name: basket.count(c) for c in sorted(set(basket))}


def _purchases(game: Game, basket: list[int]) -> list[Option]:
    """Buy what the basket holds, or add a share to it (one per CONFIRM), or end the game.

    Built a share at a time, so three buttons reach any purchase without a list
    of every combination (MEGAcquire's six shares of fourteen companies).
    """
    seat, chains = game.pending.player, game.rules.chains
    spent = sum(game.price(c) for c in basket)
    bought = _shares(game, basket)
    label = ", ".join(f"{n} {name}" for name, n in bought.items())
    options = [Option(f"buy {label}" if basket else "buy nothing", act.Buy(shares=bought))]
    if len(basket) < game.rules.buy_limit:
        for chain in game.board.active():
            price = game.price(chain)
            if basket.count(chain) < game.bank[chain] and spent + price <= game.cash[seat]:
                options.append(Option(f"+1 {chains[chain].name} ({price})", None, add=chain))
    if game.end_allowed():
        options.append(Option("end the game", act.End()))
    return options
