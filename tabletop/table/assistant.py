"""The assistant: what the camera saw and the buttons said, made into confirmed banker actions.

Pure Python over a *table* (a :class:`~tabletop.journal.journal.Table`, or anything
with ``game``, ``push(action)`` and ``undo()``): the journal records every
confirmed action before the engine's events come back, so nothing is shown as
done that is not on disk.

The table is always asked one thing, a :class:`~tabletop.table.prompts.Prompt`: a
list of options NEXT cycles through and CONFIRM applies; UNDO takes back an
unconfirmed proposal, or else the last confirmed action. A tile the camera
commits (or a player taps in by hand) becomes a proposal saying what it does;
a tile the rules refuse is explained, applies nothing, and stays flagged until
it is taken off the board. What the camera sees is kept beside the game's
board: where they differ (a tile taken off, a tile the game never heard of)
the table is shown the differences to settle, never left to guess.

>>> from tabletop.engine.game import Game
>>> game = Game("acquire", ["Ann", "Bob"], start_tiles={"Ann": "1A", "Bob": "12I"})
>>> assistant = Assistant(UnjournaledTable(game))
>>> assistant.tile_seen("6C")
>>> assistant.prompt.title
'Ann placed 6C'
>>> assistant.press(CONFIRM)
>>> assistant.prompt.title
'Ann: buy shares (so far nothing)'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Protocol

from tabletop.engine import actions as act
from tabletop.engine.choices import Disposal
from tabletop.engine.board import EMPTY, PUT_DEAD, PUT_FOUND, PUT_GROW, PUT_MERGE, PUT_NO_CHAIN
from tabletop.engine.game import Game
from tabletop.errors import TabletopError
from tabletop.table.prompts import Option, Prompt, describe, disposals, endings, purchases

__all__ = ["Assistant", "BUTTONS", "CONFIRM", "GameTable", "NEXT", "Option", "Prompt", "UNDO",
           "UnjournaledTable"]

CONFIRM, NEXT, UNDO = "confirm", "next", "undo"
BUTTONS = (CONFIRM, NEXT, UNDO)
#: Settle-prompt commands (an option's ``command``).
DISMISS, PROPOSE = "dismiss", "propose:"


class GameTable(Protocol):
    """What the assistant needs of a table: its game, and pushing and undoing through it."""

    game: Game

    def push(self, action: act.Action) -> list[dict[str, Any]]: ...

    def undo(self) -> list[dict[str, Any]]: ...


class UnjournaledTable:
    """A table straight over a game, with no journal: for examples, screenshots, simulations."""

    def __init__(self, game: Game) -> None:
        self.game = game

    def push(self, action: act.Action) -> list[dict[str, Any]]:
        return self.game.push(action)

    def undo(self) -> list[dict[str, Any]]:
        return self.game.undo()


#: Called after every confirmed action (and undo) with what was done ("Ann: 6C: founds a
#: chain", "undo") and the engine's events: the journal has it by then.
Listener = Callable[[str, list[dict[str, Any]]], None]


@dataclass
class Assistant:
    """Turns tiles seen or tapped and button presses into confirmed actions on ``table``.

    ``seen`` is the board the camera sees, if known (labels); ``flagged``
    tiles already on it that must come off, with the reason (the turn-order
    tiles of games that put them back in the bag).
    """

    table: GameTable
    seen: Iterable[str] | None = None
    flagged: dict[str, str] = field(default_factory=dict)
    listener: Listener | None = None
    #: What CONFIRM and UNDO gave back last (the engine's events), for the screen.
    events: list[dict[str, Any]] = field(default_factory=list)
    _proposal: act.Action | None = None
    _index: int = 0
    _message: str = ""
    _basket: list[int] = field(default_factory=list)   # the purchase so far: a chain per share
    _traded: list[int] = field(default_factory=list)   # shares traded in to pay for it
    _disposal: tuple[int, int] | None = None          # the steppers' (sell, trade), if set
    _banner: str = ""
    _accepted: frozenset[str] = frozenset()             # differences the table chose to leave

    def __post_init__(self) -> None:
        self._seen: set[str] | None = None if self.seen is None else set(self.seen)

    @property
    def game(self) -> Game:
        return self.table.game

    @property
    def basket(self) -> tuple[int, ...]:
        """The purchase being put together: chain indices of shares bought, then traded in."""
        return tuple(self._basket + self._traded)

    @property
    def traded(self) -> tuple[int, ...]:
        """The shares (chain indices) traded in to pay for the purchase being put together."""
        return tuple(self._traded)

    @property
    def figures(self) -> dict[str, int] | None:
        """The acting player's own figures for what they are deciding, or None.

        Buying: ``cash``, ``cost`` of the basket, ``raised`` by shares traded in,
        ``after`` (cash left), ``shares`` and their ``limit``. Disposing: ``held``
        defunct shares, the ``trade_cap`` and, for the option chosen, what is
        sold, traded and kept, the survivor shares it ``gets`` and the cash ``after``.
        """
        game, prompt = self.game, self.prompt
        if game.pending is None or prompt.kind not in ("buy", "dispose"):
            return None
        seat = game.pending.player
        cash = game.cash[seat]
        if prompt.kind == "buy":
            cost = sum(game.price(c) for c in self._basket)
            raised = sum(game.price(c) for c in self._traded)
            return {"cash": cash, "cost": cost, "raised": raised, "after": cash + raised - cost,
                    "shares": len(self._basket), "limit": game.rules.buy_limit}
        action = prompt.chosen.action if prompt.chosen is not None else None
        sell, trade = (action.sell, action.trade) if isinstance(action, act.Dispose) else (0, 0)
        held = game.holdings[seat][game.merger.defunct]
        return {"cash": cash, "held": held, "trade_cap": game.trade_max(seat),
                "sell": sell, "trade": trade, "keep": held - sell - trade,
                "gets": trade // (game.rules.trade_ratio or 1),
                "after": cash + sell * game.merger.price}

    @property
    def manual(self) -> bool:
        """Whether the camera is off: tiles are entered by tapping their cells."""
        return bool(self._banner)

    @property
    def tiles(self) -> set[str]:
        """The cells holding a tile in the game's books (lone, chain or turned-over dead)."""
        labels = self.game.geometry.labels
        return {labels[cell] for cell, owner in enumerate(self.game.board.cells) if owner != EMPTY}

    # --- inputs from the camera and the screen -------------------------------------------------

    def tile_seen(self, label: str) -> None:
        """The camera committed a tile: propose placing it (or, in a market draw, drawing it)."""
        label = self._canonical(label)
        if label is None:
            return
        if self._seen is not None:
            missing = label in self.tiles and label not in self._seen
            self._seen.add(label)
            if missing:
                self._message = f"{label} is back on the board"
                return
        game = self.game
        if game.pending is None:
            self._message = "the game is over: no more tiles"
            return
        kind = game.pending.kind
        if kind == "market":
            self._propose(act.Market(tile=label))
        elif kind in ("place", "closing") and self._proposal is None:
            self._placed(label)
        elif isinstance(self._proposal, (act.Place, act.Dead, act.Market)):
            self._flag(label, "placed out of turn",
                       f"{label} was placed while {self._proposal.tile} waits for CONFIRM or "
                       f"UNDO: take it off")
        else:
            asked = self.prompt.title.split(": ", 1)[-1]
            self._flag(label, "placed out of turn",
                       f"{label} was placed while the table is asked to {asked}: "
                       f"take it off, finish this first")

    def enter(self, label: str) -> None:
        """A tile tapped in by hand (the camera missed or misread it): as if seen."""
        self.tile_seen(label)

    def reveal_dead(self, label: str, player: str | None = None) -> None:
        """``player`` (any, at any time; default the one to act) shows a dead tile: propose it."""
        label = self._canonical(label)
        if label is not None and self.game.pending is not None:
            self._propose(act.Dead(tile=label, player=player))

    def tile_removed(self, label: str) -> None:
        """A tile was taken off the board: a flagged one stops being flagged."""
        self.changes_seen((), (label,))

    def changes_seen(self, new: Iterable[str], gone: Iterable[str], message: str = "") -> None:
        """The camera saw a change it would not commit as one placement (tiles come or gone).

        A flagged tile taken off is what was asked for; a tile of the game
        taken off, or tiles nobody placed, become differences to settle; one
        new tile beside removals (a refused tile moved to its right cell) is
        proposed like any placement.
        """
        explained, unflagged = True, False
        for label in gone:
            if self._seen is not None:
                self._seen.discard(label)
            if self.flagged.pop(label, None) is None:
                explained = False
            else:
                unflagged = True
        if unflagged and not self.flagged:
            self._message = ""
        new = list(new)
        if len(new) == 1:
            self.tile_seen(new[0])
            return
        if new:
            explained = False
            if self._seen is not None:
                self._seen.update(new)
        if message and (not explained or not new and not gone):
            # Changes no placement explains, or a cell the camera cannot read: the table decides.
            self._message = f"camera: {message}"

    def board_seen(self, labels: Iterable[str]) -> None:
        """The camera's view of the whole board (at start, after a resume, when it returns)."""
        self._seen, self._accepted = set(labels), frozenset()
        for label in list(self.flagged):
            if label not in self._seen:
                del self.flagged[label]

    def camera_lost(self, message: str) -> None:
        """The camera stopped: switch to entering tiles by hand, with a banner saying so."""
        if not self._banner:
            self._banner = f"camera off ({message}): tap each tile's cell to enter it"
        self._seen = None

    def camera_back(self) -> None:
        """The camera works again; its next view of the board is compared with the game."""
        self._banner = ""

    def press(self, button: str) -> None:
        """CONFIRM applies the chosen option, NEXT shows the next one, UNDO takes back."""
        if button == NEXT:
            prompt = self.prompt      # from the option shown (a list may have shrunk under it)
            self._index = (prompt.index + 1) % len(prompt.options) if prompt.options else 0
        elif button == CONFIRM:
            self._confirm()
        elif button == UNDO:
            self._undo()
        else:
            raise ValueError(f"unknown button {button!r}: expected one of {', '.join(BUTTONS)}")

    def set_purchase(self, chain: int, count: int) -> None:
        """A stepper's count of ``chain`` shares in the purchase (CONFIRM then buys them).

        Kept within the bank's shares and the buy limit; the engine still judges
        the purchase (cash, trade-in) when it is confirmed.
        """
        if self.game.pending is None or self.game.pending.kind != "buy":
            return
        others = [c for c in self._basket if c != chain]
        count = max(0, min(count, self.game.bank[chain], self.game.rules.buy_limit - len(others)))
        self._basket = others + [chain] * count
        if count:       # a chain's shares are not traded in to buy its own
            self._traded = [c for c in self._traded if c != chain]
        self._index, self._message = 0, ""     # the chosen option is the purchase itself

    def set_trade_in(self, chain: int, count: int) -> None:
        """A stepper's count of ``chain`` shares traded in to pay for the purchase.

        Only where the rules allow trade-to-buy; kept within the acting player's
        shares of a chain on the board not being bought. The engine judges the
        rest when the purchase is confirmed (trading in only when cash is short).
        """
        game = self.game
        if game.pending is None or game.pending.kind != "buy" or not game.rules.trade_to_buy:
            return
        held = game.holdings[game.pending.player][chain] \
            if game.board.sizes[chain] and chain not in self._basket else 0
        self._traded = [c for c in self._traded if c != chain] + [chain] * max(0, min(count, held))
        self._index, self._message = 0, ""

    def set_disposal(self, sell: int, trade: int) -> None:
        """The steppers' disposal of the defunct shares: ``sell``, ``trade``, keep the rest.

        Kept within the shares held and the trade cap, trading in whole ratios;
        where the rules let nobody keep, what is not traded is sold. It becomes
        the chosen option (CONFIRM applies it; NEXT still reaches the presets).
        """
        game = self.game
        if game.pending is None or game.pending.kind != "dispose":
            return
        seat, ratio = game.pending.player, game.rules.trade_ratio or 1
        held = game.holdings[seat][game.merger.defunct]
        trade = max(0, min(trade, game.trade_max(seat))) // ratio * ratio
        sell = held - trade if Disposal.KEEP not in game.rules.disposal else max(0, min(sell, held - trade))
        self._disposal = (sell, trade)
        self._index, self._message = 0, ""

    def undo_to(self, actions: int) -> None:
        """Take confirmed actions back until ``actions`` remain (the history screen's undo).

        Each is journaled as an undo; the first the rules refuse stops it, with the reason.
        """
        self._proposal, self._basket, self._traded, self._index = None, [], [], 0
        self._disposal = None
        undone = 0
        while len(self.game.history) > max(actions, 0):
            try:
                self.events = self.table.undo()
            except TabletopError as error:
                self._message = str(error)
                break
            undone += 1
        if undone:
            self._message = "" if len(self.game.history) <= actions else self._message
            self._tell(f"undo ({undone} action{'s' if undone > 1 else ''})")

    # --- the prompt ---------------------------------------------------------------------------

    @property
    def differences(self) -> list[str]:
        """Where the camera's board and the game's differ, as the table reads them."""
        if self._seen is None:
            return []
        game_tiles = self.tiles
        pending = {self._proposal.tile} \
            if isinstance(self._proposal, (act.Place, act.Market, act.Dead)) else set()
        extra = self._seen - game_tiles - set(self.flagged) - pending
        missing = game_tiles - self._seen
        order = self.game.geometry.parse
        return [f"{label} is on the board, not in the game" for label in sorted(extra, key=order)] + \
            [f"{label} is in the game, not on the board" for label in sorted(missing, key=order)]

    @property
    def prompt(self) -> Prompt:
        """What the table is asked now."""
        game = self.game
        differences = tuple(self.differences)
        common = dict(message=self._message, flagged=tuple(self.flagged), banner=self._banner,
                      differences=differences)
        if game.pending is None:
            return Prompt("over", None, "The game is over", (), 0, **common)
        kind, player = game.pending.kind, game.names[game.pending.player]
        if self._proposal is not None:
            options = [Option(self._describe(self._proposal), self._proposal)]
            title = self._proposal_title(player)
        elif set(differences) - self._accepted:
            kind, title, options = "settle", "The board and the game differ", \
                self._settling(kind)
        else:
            title, options = self._question(kind, player)
        index = min(self._index, max(len(options) - 1, 0))
        return Prompt(kind, player, title, tuple(options), index, **common)

    def _proposal_title(self, player: str) -> str:
        proposal = self._proposal
        if isinstance(proposal, act.Place):
            return f"{player} placed {proposal.tile}"
        if isinstance(proposal, act.Dead):
            return f"{proposal.player or player} reveals {proposal.tile}"
        return f"{player}: the market draws {proposal.tile}"

    def _settling(self, kind: str) -> list[Option]:
        options = []
        if kind in ("place", "closing") and self._seen is not None:
            extra = self._seen - self.tiles - set(self.flagged)
            for label in sorted(extra, key=self.game.geometry.parse):
                options.append(Option(f"{label} was placed this turn: propose it", None,
                                      command=PROPOSE + label))
        options.append(Option("carry on: the game's record stands", None, command=DISMISS))
        return options

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
                    disposals(game, self._disposal))
        if kind == "buy":
            return (f"{player}: buy shares (so far {describe(game, self._basket, self._traded)})",
                    purchases(game, self._basket, self._traded, agreed_end=True))
        if kind == "market":
            return f"{player}: draw a tile for the stock market and place it", []
        verb = "place a tile" if kind == "place" else "place a closing tile"
        waiting = f"waiting: {verb}" + (" (tap its cell)" if self.manual else "")
        options = [Option(waiting, None)]
        if kind == "place":
            options.append(Option("no playable tile", act.NoTile()))
            options.extend(endings(game, agreed=True))
        else:
            options.append(Option("no more closing tiles: score the game", act.End()))
        return f"{player}: {verb}", options

    def _describe(self, action: act.Action) -> str:
        if isinstance(action, act.Market):
            return f"the market gets the shares of {action.tile}"
        if isinstance(action, act.Dead):
            return f"{action.tile} is dead (it would merge two safe chains): reveal it, draw another"
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
            if sizes[order[1]] == sizes[big]:
                return (f"{action.tile}: merges "
                        f"{', '.join(f'{chains[c].name} ({sizes[c]})' for c in order)}: "
                        f"a tie, the survivor to be chosen")
            return (f"{action.tile}: merges "
                    f"{', '.join(f'{chains[c].name} ({sizes[c]})' for c in order[1:])} "
                    f"into {chains[big].name} ({sizes[big]})")
        return f"{action.tile}: a lone tile"

    # --- applying -----------------------------------------------------------------------------

    def _canonical(self, label: str) -> str | None:
        """The board's own spelling of a cell label, or None (and the reason shown)."""
        geometry = self.game.geometry
        try:
            return geometry.labels[geometry.parse(label)]
        except TabletopError as error:
            self._message = str(error)
            return None

    def _flag(self, label: str, reason: str, message: str) -> None:
        self.flagged[label] = reason
        self._message = message

    def _placed(self, label: str) -> None:
        game = self.game
        cell = game.geometry.parse(label)
        if game.board.cells[cell] != EMPTY:
            self._flag(label, "that cell already holds a tile",
                       f"{label}: that cell already holds a tile. Take it off the board.")
        elif game.pending.kind == "closing":
            self._propose(act.Place(tile=label))   # closing placements: the engine judges them
        elif game.board.classify(cell)[0] == PUT_DEAD:
            self._propose(act.Dead(tile=label))
        elif game.board.classify(cell)[0] == PUT_NO_CHAIN:
            self._flag(label, "no chain left to found",
                       f"{label}: it would found a chain, and every chain is on the board. "
                       f"Take it off the board.")
        else:
            self._propose(act.Place(tile=label))

    def _propose(self, action: act.Action) -> None:
        self._proposal, self._index, self._message = action, 0, ""

    def _confirm(self) -> None:
        chosen = self.prompt.chosen
        if chosen is not None and chosen.builds:
            # The same option stays chosen: CONFIRM again adds another.
            (self._basket if chosen.add >= 0 else self._traded).append(max(chosen.add, chosen.trade))
            return
        if chosen is not None and chosen.command:
            self._command(chosen.command)
            return
        if chosen is None or chosen.action is None:
            self._message = "nothing to confirm yet: place a tile, or NEXT for other choices"
            return
        self._apply(chosen.action, chosen.label)

    def _apply(self, action: act.Action, label: str) -> None:
        proposal, game = self._proposal, self.game
        actor = action.player or game.names[game.current if isinstance(action, act.End)
                                            else game.pending.player]
        try:
            self.events = self.table.push(action)
        except TabletopError as error:
            self._message = str(error)
            if isinstance(proposal, (act.Place, act.Dead)):
                self.flagged[proposal.tile] = str(error)
                self._proposal, self._index = None, 0
            return          # a refused purchase keeps its basket, to be changed with UNDO
        self._proposal, self._index, self._message = None, 0, ""
        self._basket, self._traded, self._disposal = [], [], None
        tile = getattr(action, "tile", "")
        on_board = self._seen is None or tile in self._seen
        if isinstance(action, act.Dead) and on_board and \
                self.game.board.cells[self.game.geometry.parse(tile)] == EMPTY:
            self._flag(tile, "a revealed dead tile",
                       f"{tile} is out of the game: take it off and draw another")
        elif isinstance(action, act.Market) and self._seen is not None and tile in self._seen:
            self._flag(tile, "the stock market's tile", f"{tile} goes back in the bag: take it off")
        self._tell(f"{actor}: {label}")

    def _command(self, command: str) -> None:
        if command == DISMISS:
            self._accepted = frozenset(self.differences)
        elif command.startswith(PROPOSE):
            self._accepted = frozenset(self.differences)
            self._placed(command[len(PROPOSE):])
        self._index = 0

    def _undo(self) -> None:
        if self._disposal is not None:      # the steppers' disposal first, back to the presets
            self._disposal, self._index, self._message = None, 0, ""
            return
        if self._traded or self._basket:
            (self._traded or self._basket).pop()
            self._message = ""
            return
        proposal = self._proposal
        if proposal is not None:
            self._proposal, self._index, self._message = None, 0, ""
            if isinstance(proposal, act.Dead) and self._seen is not None and \
                    proposal.tile in self._seen:
                # Not revealed now: a dead tile still cannot stay on the board.
                self._flag(proposal.tile, "a dead tile",
                           f"{proposal.tile} cannot be placed (it would merge two safe chains): "
                           f"take it off")
            elif isinstance(proposal, act.Place) and self._seen is not None:
                # The table says the camera was wrong (a misread, to be tapped in right).
                self._seen.discard(proposal.tile)
            return
        try:
            self.events = self.table.undo()
        except TabletopError as error:
            self._message = str(error)
            return
        self._index, self._message = 0, ""
        self._tell("undo")

    def _tell(self, what: str) -> None:
        if self.listener is not None:
            self.listener(what, self.events)
