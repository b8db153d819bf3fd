"""``tabletop run``'s side of a tournament: the seat of each new game, and the broker link.

With ``[tournament]`` configured (:mod:`~tabletop.assembly.config_tournament`), every
game the table sets up carries its seat; with ``[tournament] broker`` too, a
:class:`~tabletop.assembly.broker.TableLink` is started, told of every confirmed
action of a seated game (its live state; its slip once the game is over) and stopped
with the table. Nothing here stops the table: without paho-mqtt, with a damaged key or
with the broker out of reach, one line says so and the game goes on (the slips wait
in the outbox, or go by USB stick).

>>> from tabletop.assembly.config import load_config
>>> side = TournamentSide(load_config(path="/nonexistent.toml", environ={}), "/tmp", print)
>>> side.place is None, side.link is None, side.seat() is None
(True, True, True)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from tabletop.assembly.config import Config
from tabletop.assembly.config_tournament import broker_of, tournament_place
from tabletop.errors import TabletopError
from tabletop.journal.journal import Journal
from tabletop.journal.seat import Seat
from tabletop.table.seating import TournamentPlace

#: Said before every line of the link (the terminal and the log tell its lines apart).
PREFIX = "tournament: "


class TournamentSide:
    """This table's tournament, if any: :attr:`place` (None: it plays in none) and
    :attr:`link` (None: no broker, or none could be made; :meth:`start` makes it)."""

    def __init__(self, config: Config, data_dir: str | Path, out: Callable[[str], None],
                 round_number: int | None = None) -> None:
        self.place: TournamentPlace | None = tournament_place(config, round_number)
        self.broker = broker_of(config)
        self.data = Path(data_dir)
        self.out = out
        self.link: Any = None

    def seat(self) -> Seat | None:
        """The seat of a game set up now (None: no tournament); TabletopError while the
        round is not chosen."""
        return self.place.seat() if self.place is not None else None

    def start(self) -> None:
        """The link to ``[tournament] broker`` made and started (reaching the broker in the
        background); said in one line and left out if it cannot be made."""
        if not self.broker or self.place is None:
            return
        from tabletop.journal.keys import table_signing_key

        try:
            from tabletop.assembly.broker import TableLink

            link = TableLink(self.broker, self.place.tournament, self.place.table, self.data,
                             table_signing_key(self.data), out=self._said)
        except TabletopError as error:      # no paho-mqtt, a damaged key or outbox
            self.out(f"{PREFIX}{error}; the table plays on, without the broker: its slips "
                     f"go by USB stick (tabletop slip GAME --out ...)")
            return
        self.out(f"{PREFIX}{self.place.tournament}, table {self.place.table}: sending the "
                 f"live state and the slips to the broker at {link.address}")
        link.start()
        self.link = link

    def confirmed(self, journal: Journal, game_id: int) -> None:
        """After each confirmed action of game ``game_id``: told to the link (a game without
        a seat is left alone there). A fault is said; the game goes on."""
        if self.link is None:
            return
        try:
            self.link.confirmed(journal, game_id)
        except Exception as error:   # noqa: BLE001 - the table must play on; the journal keeps all
            self.out(f"{PREFIX}game {game_id} not sent: {error}")

    def close(self) -> None:
        if self.link is not None:
            link, self.link = self.link, None
            link.stop()

    def _said(self, line: str) -> None:
        self.out(line if line.startswith(PREFIX) else PREFIX + line)
