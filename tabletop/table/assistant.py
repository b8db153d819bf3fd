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
the table is shown the differences to settle, never left to guess. Ending the
game by agreement is never an option to cycle to: :meth:`Assistant.propose_end`
asks every player in turn, and one refusal calls it off.

>>> from tabletop.engine.game import Game
>>> game = Game("acquire", ["Ann", "Bob"], start_tiles={"Ann": "1A", "Bob": "12I"})
>>> assistant = Assistant(UnjournaledTable(game))
>>> assistant.tile_seen("6C")
>>> assistant.prompt.title
'Ann placed 6C: CONFIRM plays it, UNDO refuses it'
>>> assistant.press(CONFIRM)
>>> assistant.prompt.title
'Ann: buy shares (so far nothing)'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Protocol

from tabletop.engine import actions as act
from tabletop.engine.choices import Disposal
from tabletop.engine.board import EMPTY, PUT_DEAD, PUT_NO_CHAIN
from tabletop.engine.game import Game
from tabletop.errors import TabletopError
from tabletop.messages import Message, message_of
from tabletop.table.agreement import AGREE, REFUSE, AgreedEndFlow
from tabletop.table.doubts import CAMERA, HAND, UNSURE, Sources, unsure_title
from tabletop.table.confirmed import done
from tabletop.table.prompts import (Option, Prompt, asked, effects, occupant, proposal_label,
                                    proposal_title, question)

__all__ = ["Assistant", "BUTTONS", "CONFIRM", "GameTable", "NEXT", "Option", "Prompt", "UNDO",
           "UnjournaledTable"]

CONFIRM, NEXT, UNDO = "confirm", "next", "undo"
BUTTONS = (CONFIRM, NEXT, UNDO)
#: Settle-prompt commands (an option's ``command``).
DISMISS, PROPOSE = "dismiss", "propose:"
#: The answers of a player asked to end the game by agreement (an option's ``command``).
#: What the table may be doing when an end by agreement is proposed.


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


#: Called after every confirmed action (and undo) with what was done ("Ann: 7I: grows Tower
#: to 4 tiles", "undo": :func:`~tabletop.table.confirmed.done`) and the engine's events: the
#: journal has it by then.
Listener = Callable[[str, list[dict[str, Any]]], None]


@dataclass
class Assistant(AgreedEndFlow):
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
    #: Tiles proposed, by where they came from (the camera, its doubts, a tap).
    sources: Sources = field(default_factory=Sources)
    _proposal: act.Action | None = None
    _index: int = 0
    _message: str = ""
    _basket: list[int] = field(default_factory=list)   # the purchase so far: a chain per share
    _traded: list[int] = field(default_factory=list)   # shares traded in to pay for it
    _disposal: tuple[int, int] | None = None          # the steppers' (sell, trade), if set
    _banner: str = ""
    _accepted: frozenset[str] = frozenset()             # differences the table chose to leave
    _asking: tuple[int, ...] = ()                       # seats asked to agree to end, in order
    _agreed: int = 0                                    # how many of them agreed so far
    _resume: int = 0                                    # the option chosen before they were asked
    _unsure: str = ""                                   # the proposed tile the camera doubts

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
        self._take(label, CAMERA)

    def tile_doubted(self, label: str, reason: str = UNSURE) -> None:
        """The camera is unsure of a tile: propose it all the same, saying so.

        One CONFIRM accepts it, as a tile seen. A tile read late that the game
        already holds (tapped in meanwhile) asks nothing.
        """
        canonical = self._canonical(label)
        if canonical is not None and canonical in self.tiles:
            if self._seen is not None:
                self._seen.add(canonical)
            return
        self._take(label, UNSURE)

    def _take(self, label: str, source: str) -> None:
        """A tile from ``source`` (the camera, its doubt, a tap): proposed if it can be."""
        before = self._proposal
        self._see(label)
        if self._proposal is not before and self._proposal is not None:
            self.sources.add(source)
            self._unsure = self._proposal.tile if source == UNSURE else ""

    def _see(self, label: str) -> None:
        label = self._canonical(label)
        if label is None:
            return
        if self._seen is not None:
            missing = label in self.tiles and label not in self._seen
            self._seen.add(label)
            if missing:
                self._message = Message("{tile} is back on the board", tile=label)
                return
        game = self.game
        if game.pending is None:
            self._message = Message("the game is over: no more tiles")
            return
        kind = game.pending.kind
        if self._asking:
            self._flag(label, "placed out of turn",
                       Message("{tile} was placed while the table decides whether to end the "
                               "game: take it off", tile=label))
        elif kind == "market":
            self._propose(act.Market(tile=label))
        elif kind in ("place", "closing") and self._proposal is None:
            self._placed(label)
        elif isinstance(self._proposal, (act.Place, act.Dead, act.Market)):
            self._flag(label, "placed out of turn",
                       Message("{tile} was placed while {proposed} waits for CONFIRM or UNDO: "
                               "take it off", tile=label, proposed=self._proposal.tile))
        else:
            self._flag(label, "placed out of turn",
                       Message("{tile} was placed while the table is asked to {asked}: take it "
                               "off, finish this first", tile=label, asked=asked(self.prompt.title)))

    def enter(self, label: str) -> None:
        """A tile tapped in by hand (the camera missed or misread it): as if seen.

        A tap on a cell that holds a tile, or on the tile waiting for CONFIRM, is a
        mis-tap: it is told what is there, and nothing changes.
        """
        label = self._canonical(label)
        if label is None:
            return
        held = occupant(self.game, label)
        if held is not None:
            self._message = held
        elif getattr(self._proposal, "tile", None) == label:
            self._message = Message("{tile} is the tile proposed: CONFIRM applies it, UNDO takes "
                                    "it back", tile=label)
        else:
            self._take(label, HAND)

    def choose(self, index: int) -> None:
        """Make option ``index`` the chosen one, as that many NEXT presses would (a tap on a list).

        Nothing is applied: CONFIRM does. An index outside the options changes nothing.
        """
        options = self.prompt.options
        if isinstance(index, int) and 0 <= index < len(options):
            self._index = index

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
            self._message = Message("camera: {message}", message=message)

    def board_seen(self, labels: Iterable[str]) -> None:
        """The camera's view of the whole board (at start, after a resume, when it returns)."""
        self._seen, self._accepted = set(labels), frozenset()
        for label in list(self.flagged):
            if label not in self._seen:
                del self.flagged[label]

    def camera_lost(self, message: str) -> None:
        """The camera stopped: switch to entering tiles by hand, with a banner saying so."""
        if not self._banner:
            self._banner = Message("camera off ({message}): tap each tile's cell to enter it",
                                   message=message)
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
        if self.game.pending is None or self.game.pending.kind != "buy" or self._asking:
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
        if game.pending is None or game.pending.kind != "buy" or not game.rules.trade_to_buy \
                or self._asking:
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
        if game.pending is None or game.pending.kind != "dispose" or self._asking:
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
        self._disposal, self._asking, self._agreed = None, (), 0
        undone = 0
        while len(self.game.history) > max(actions, 0):
            try:
                self.events = self.table.undo()
            except TabletopError as error:
                self._message = message_of(error)
                break
            undone += 1
        if undone:
            self._message = "" if len(self.game.history) <= actions else self._message
            self._tell(Message("undo ({count} actions)", count=undone) if undone > 1 else
                       Message("undo ({count} action)", count=undone))

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
        return [Message("{tile} is on the board, not in the game", tile=label)
                for label in sorted(extra, key=order)] + \
            [Message("{tile} is in the game, not on the board", tile=label)
             for label in sorted(missing, key=order)]

    @property
    def prompt(self) -> Prompt:
        """What the table is asked now."""
        game = self.game
        differences = tuple(self.differences)
        common = dict(message=self._message, flagged=tuple(self.flagged), banner=self._banner,
                      differences=differences)
        if game.pending is None:
            return Prompt("over", None, Message("The game is over"), (), 0, **common)
        if self._asking:
            return self._agree_prompt(common)
        kind, player = game.pending.kind, game.names[game.pending.player]
        if self._proposal is not None:
            options = [Option(proposal_label(game, self._proposal), self._proposal)]
            title = unsure_title(player, self._unsure) \
                if isinstance(self._proposal, act.Place) and self._proposal.tile == self._unsure \
                else proposal_title(self._proposal, player)
        elif set(differences) - self._accepted:
            kind, title, options = "settle", Message("The board and the game differ"), \
                self._settling(kind)
        else:
            title, options = question(game, kind, player, self._basket, self._traded,
                                      self._disposal, self.manual)
        index = min(self._index, max(len(options) - 1, 0))
        said = effects(game, options[index], self._basket, self._traded) \
            if options and kind != "settle" else ()
        return Prompt(kind, player, title, tuple(options), index, effects=said, **common)

    def _settling(self, kind: str) -> list[Option]:
        options = []
        if kind in ("place", "closing") and self._seen is not None:
            extra = self._seen - self.tiles - set(self.flagged)
            for label in sorted(extra, key=self.game.geometry.parse):
                options.append(Option(Message("{tile} was placed this turn: propose it",
                                              tile=label), None,
                                      command=PROPOSE + label))
        options.append(Option(Message("carry on: the game's record stands"), None,
                              command=DISMISS))
        return options

    # --- applying -----------------------------------------------------------------------------

    def _canonical(self, label: str) -> str | None:
        """The board's own spelling of a cell label, or None (and the reason shown)."""
        geometry = self.game.geometry
        try:
            return geometry.labels[geometry.parse(label)]
        except TabletopError as error:
            self._message = message_of(error)
            return None

    def _flag(self, label: str, reason: str, message: str) -> None:
        self.flagged[label] = reason
        self._message = message

    def _placed(self, label: str) -> None:
        game = self.game
        cell = game.geometry.parse(label)
        if game.board.cells[cell] != EMPTY:
            self._flag(label, "that cell already holds a tile",
                       Message("{tile}: that cell already holds a tile. Take it off the board.",
                               tile=label))
        elif game.pending.kind == "closing":
            self._propose(act.Place(tile=label))   # closing placements: the engine judges them
        elif game.board.classify(cell)[0] == PUT_DEAD:
            self._propose(act.Dead(tile=label))
        elif game.board.classify(cell)[0] == PUT_NO_CHAIN:
            self._flag(label, "no chain left to found",
                       Message("{tile}: it would found a chain, and every chain is on the "
                               "board. Take it off the board.", tile=label))
        else:
            self._propose(act.Place(tile=label))

    def _propose(self, action: act.Action) -> None:
        self._proposal, self._index, self._message, self._unsure = action, 0, "", ""

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
            self._message = Message("nothing to confirm yet: place a tile, or NEXT for other "
                                    "choices")
            return
        self._apply(chosen.action, chosen.label)

    def _apply(self, action: act.Action, label: str) -> None:
        proposal, game = self._proposal, self.game
        actor = action.player or game.names[game.current if isinstance(action, act.End)
                                            else game.pending.player]
        try:
            self.events = self.table.push(action)
        except TabletopError as error:
            self._message = message_of(error)
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
                       Message("{tile} is out of the game: take it off and draw another",
                               tile=tile))
        elif isinstance(action, act.Market) and self._seen is not None and tile in self._seen:
            self._flag(tile, "the stock market's tile",
                       Message("{tile} goes back in the bag: take it off", tile=tile))
        self._tell(Message("{player}: {action}", player=actor,
                           action=done(self.game, action, self.events, label)))

    def _command(self, command: str) -> None:
        if command in (AGREE, REFUSE):
            self._answer(command)
            return
        if command == DISMISS:
            self._accepted = frozenset(self.differences)
        elif command.startswith(PROPOSE):
            self._accepted = frozenset(self.differences)
            self._placed(command[len(PROPOSE):])
        self._index = 0

    def _undo(self) -> None:
        if self._asking:        # one answer back; at the first, the asking is called off
            if self._agreed:
                self._agreed, self._index, self._message = self._agreed - 1, 0, ""
            else:
                self._stop_asking()
            return
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
                           Message("{tile} cannot be placed (it would merge two safe chains): "
                                   "take it off", tile=proposal.tile))
            elif isinstance(proposal, act.Place) and self._seen is not None:
                # The table says the camera was wrong (a misread, to be tapped in right).
                self._seen.discard(proposal.tile)
            return
        try:
            self.events = self.table.undo()
        except TabletopError as error:
            self._message = message_of(error)
            return
        self._index, self._message = 0, ""
        self._tell(Message("undo"))

    def _tell(self, what: str) -> None:
        if self.listener is not None:
            self.listener(what, self.events)
