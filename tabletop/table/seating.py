"""Setting up at the table: the turn-order draw, seen all at once, then who drew which tile.

Players have taken their seats in the app (``players``, in seating order).
Each draws a tile and places it on its cell; the camera records them all at
once (the one moment several new tiles are expected: the tracker reports them
together) or one by one, or they are tapped in (:meth:`Seating.enter`; with no
camera, the only way: UNDO takes back the last tile tapped). The table then says
who drew each tile (NEXT cycles the names or a name is tapped, CONFIRM assigns;
the last is implied), the engine names the first player, and
:attr:`Seating.setup` is the table-script setup line that starts the game (with the
tournament ``seat`` a game is set up for, if any: :class:`TournamentPlace` gives it).

>>> seating = Seating("acquire", ["Ann", "Bob", "Cy"])
>>> seating.changes_seen(["5C", "9I", "1D"], [])
>>> seating.prompt.title
'Who drew 1D?'
>>> seating.press(NEXT); seating.press(NEXT); seating.press(CONFIRM)   # Cy
>>> seating.prompt.title
'Who drew 5C?'
>>> seating.press(CONFIRM)                                             # Ann; Bob drew 9I
>>> seating.setup["start_tiles"], seating.first
({'Cy': '1D', 'Ann': '5C', 'Bob': '9I'}, 'Cy')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from tabletop.journal.seat import Seat
from tabletop.table.assistant import BUTTONS, CONFIRM, NEXT, UNDO
from tabletop.engine.game import Game
from tabletop.engine.names import clean_names
from tabletop.engine.profile import Profile
from tabletop.errors import TabletopError
from tabletop.messages import Message, message_of
from tabletop.table.prompts import Option, Prompt
from tabletop.engine.ruleset import RuleSet, load_rules


@dataclass
class TournamentPlace:
    """This table's place in a tournament: the tournament's and the table's names, fixed, and
    the round being played, which the setup screen may step (None: not chosen yet).

    >>> place = TournamentPlace("Spring Open", "3")
    >>> place.step(1); place.step(1); place.step(-5); place.round
    1
    >>> place.seat()
    Seat(round=1, table='3', tournament='Spring Open')
    """

    tournament: str
    table: str
    round: int | None = None

    def step(self, by: int) -> None:
        """The round ``by`` rounds on (the first tap of + chooses round 1); never below 1."""
        self.round = max(1, (self.round or 0) + by)

    def seat(self) -> Seat:
        """The seat of a game set up now; TabletopError while no round is chosen (a game of
        the tournament without its seat would hand in a slip the director cannot place)."""
        if self.round is None:
            raise TabletopError(Message("{tournament}: choose the round this game is for "
                                        "(+ beside the round) before Start",
                                        tournament=self.tournament))
        return Seat(self.round, self.table, self.tournament)


class Seating:
    """The turn-order draw of one table (see the module's docstring)."""

    def __init__(self, rules: RuleSet | str, players: Iterable[str],
                 options: Mapping[str, Any] | None = None, seed: int | None = None,
                 profile: Profile | None = None, seat: Seat | None = None) -> None:
        self.rules = rules if isinstance(rules, RuleSet) else load_rules(rules)
        #: The tournament round and table the game is set up for (None: no tournament).
        self.seat = seat
        self.players = clean_names(list(players))   # as the game keeps them (NFC), or refused
        #: The profile the game is held to (None: the table chose its options).
        self.profile = profile
        if profile is not None:
            # Held strictly: options that differ from the profile's are refused, not mixed in.
            profile.check(self.rules, {**profile.setup_options(self.rules), **(options or {})})
            options = profile.setup_options(self.rules)
        self.options = dict(options or {})
        self.seed = seed
        self.geometry = self.rules.geometry_for(self.rules.resolve_options(self.options))
        self.tiles: list[str] = []               # cell labels seen, in board order
        self.drawn: dict[str, str] = {}          # cell label -> player, as the table said
        self.flagged: dict[str, str] = {}        # tiles to take off, and why
        self.setup: dict[str, Any] | None = None
        self.first: str | None = None
        self._index = 0
        self._message = ""
        self._banner = ""
        self._tapped: list[str] = []             # tiles entered by hand, in order (UNDO's)
        Game(self.rules, self.players, self.options)   # names and options checked now, not later

    # --- inputs, as the assistant's ------------------------------------------------------------

    def tile_seen(self, label: str) -> None:
        """One turn-order tile seen (or tapped in)."""
        self.changes_seen([label], [])

    def enter(self, label: str) -> None:
        """A turn-order tile tapped in by hand. A tap on a cell already in is told what is
        there and changes nothing; once every player's tile is in, more are refused."""
        if self.setup is not None:
            return
        try:
            label = self.geometry.labels[self.geometry.parse(label)]
        except TabletopError as error:
            self._message = message_of(error)
            return
        if label in self.tiles:
            self._message = Message("{tile} was drawn by {player}", tile=label,
                                    player=self.drawn[label]) if label in self.drawn else \
                Message("{tile} is already in: UNDO takes back the last tile tapped", tile=label)
        elif len(self.tiles) >= len(self.players):
            self._message = Message("every player's tile is in: UNDO takes back the last tile "
                                    "tapped")
        else:
            self.flagged.pop(label, None)       # drawn again after a tie: it is back, not extra
            self.changes_seen([label], [])
            self._tapped.append(label)

    def choose(self, index: int) -> None:
        """Make option ``index`` the chosen one (a name tapped in a list); CONFIRM applies it."""
        options = self.prompt.options
        if isinstance(index, int) and 0 <= index < len(options) and self.prompt.kind == "seat":
            self._index = index

    @property
    def manual(self) -> bool:
        """Whether the camera is off: the tiles drawn are entered by tapping their cells."""
        return bool(self._banner)

    def tile_removed(self, label: str) -> None:
        self.changes_seen([], [label])

    def board_seen(self, labels: Iterable[str]) -> None:
        """The board as the camera first sees it: tiles on it now are turn-order tiles."""
        self.changes_seen(list(labels), [])

    def changes_seen(self, new: Iterable[str], gone: Iterable[str], message: str = "") -> None:
        """Tiles come and gone on the board (several new ones at once are expected here)."""
        if self.setup is not None:
            return
        for label in gone:
            self.flagged.pop(label, None)
            if label in self.tiles:
                self.tiles.remove(label)
                self.drawn.clear()
            if label in self._tapped:
                self._tapped.remove(label)
        for label in new:
            try:
                cell = self.geometry.parse(label)
            except TabletopError as error:
                self._message = message_of(error)
                continue
            label = self.geometry.labels[cell]
            if label not in self.tiles and label not in self.flagged:
                self.tiles.append(label)
                self.drawn.clear()
        self.tiles.sort(key=self.geometry.parse)
        self._index, self._message = 0, "" if len(self.tiles) <= len(self.players) else \
            Message("{tiles} tiles for {players} players: take the extra ones off",
                    tiles=len(self.tiles), players=len(self.players))

    def camera_lost(self, message: str) -> None:
        """The camera stopped (or there is none): the tiles drawn are tapped in, a banner says so."""
        self._banner = Message("camera off ({message}): tap each drawn tile's cell",
                               message=message)

    def camera_back(self) -> None:
        self._banner = ""

    def press(self, button: str) -> None:
        """NEXT cycles the names, CONFIRM says who drew the tile asked about, UNDO takes it back."""
        if button not in BUTTONS:
            raise ValueError(f"unknown button {button!r}: expected one of {', '.join(BUTTONS)}")
        prompt = self.prompt
        options = prompt.options
        if button == NEXT and options:
            self._index = (prompt.index + 1) % len(options)
        elif button == UNDO and self.drawn:
            self.drawn.popitem()
            self._index = 0
        elif button == UNDO and self._tapped:      # a tile tapped in by mistake
            self.changes_seen([], [self._tapped[-1]])
        elif button == CONFIRM and options and self.prompt.kind == "seat":
            self._assign(self.prompt.chosen.label)

    # --- the prompt ---------------------------------------------------------------------------

    @property
    def prompt(self) -> Prompt:
        flagged, banner = tuple(self.flagged), self._banner
        if self.setup is not None:
            return Prompt("seated", self.first, Message("{player} starts", player=self.first), (),
                          0, self._message, flagged, banner)
        if len(self.tiles) != len(self.players):
            if self.manual:
                return Prompt("draw", None, Message(
                    "Each player draws a tile and places it; tap the cell of each tile drawn: "
                    "{count} of {players} in", count=len(self.tiles), players=len(self.players)),
                    (Option(Message("waiting: tap the cell of each tile drawn"), None),), 0,
                    self._message, flagged, banner)
            return Prompt("draw", None,
                          Message("Each player draws a tile and places it: {seen} of {players} "
                                  "seen", seen=len(self.tiles), players=len(self.players)),
                          (Option(Message("waiting for the turn-order tiles"), None),), 0,
                          self._message, flagged, banner)
        tile = next(label for label in self.tiles if label not in self.drawn)
        left = [name for name in self.players if name not in self.drawn.values()]
        options = tuple(Option(name, None) for name in left)
        return Prompt("seat", None, Message("Who drew {tile}?", tile=tile), options,
                      min(self._index, len(options) - 1), self._message, flagged, banner)

    def _assign(self, name: str) -> None:
        tile = next(label for label in self.tiles if label not in self.drawn)
        self.drawn[tile] = name
        self._index = 0
        left = [label for label in self.tiles if label not in self.drawn]
        if len(left) == 1:
            (last,) = [p for p in self.players if p not in self.drawn.values()]
            self.drawn[left[0]] = last
        if len(self.drawn) == len(self.players):
            self._start()

    def _start(self) -> None:
        tiles = {name: self.geometry.tile_labels[self.geometry.parse_tile(label)]
                 for label, name in self.drawn.items()}
        try:
            game = Game(self.rules, self.players, self.options, tiles, self.seed)
        except TabletopError as error:
            # A tie for first (a card in several copies): those players draw again.
            self._message = Message("{message}; take the tiles off and draw again",
                                    message=message_of(error))
            # With no camera to see them go, the tiles are not flagged: drawn again, they are tapped.
            self.flagged = {} if self.manual else {label: "draw again" for label in self.tiles}
            self.tiles, self.drawn, self._tapped = [], {}, []
            return
        setup: dict[str, Any] = {"rules": self.rules.source, "players": self.players,
                                 "options": self.options, "start_tiles": tiles}
        if self.seed is not None:
            setup["seed"] = self.seed
        if self.profile is not None:
            setup["profile"] = self.profile.entry()
        if self.seat is not None:
            setup["seat"] = self.seat.to_json()
        self.setup, self.first = setup, game.names[game.current]
        self._message = Message("{player} drew the tile closest to {tile}: {first} starts",
                                player=self.first, tile=self.geometry.tile_labels[0],
                                first=self.first)

    @property
    def returned(self) -> dict[str, str]:
        """Once set up: the turn-order tiles that go back in the bag (taken off the board)."""
        if self.setup is None or self.rules.start_tiles_stay:
            return {}
        return {label: "turn-order tile: it goes back in the bag" for label in self.drawn}
