"""The games of one table: a finished seating becomes a journaled game with its assistant.

Both the real table (:mod:`tabletop.assembly.runner`) and the demo start and
resume games here, so the journal, the seating's draw and the assistant are
joined in one place.

>>> import tempfile, pathlib
>>> from tabletop.journal.journal import Journal
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> journal = Journal.open(folder / "journal.db", table_name="table 7")
>>> seating = Seating("acquire", ["Ann", "Bob"])
>>> seating.board_seen(["5C", "9I"])
>>> seating.press("confirm"); seating.press("confirm")
>>> games = TableGames(journal)
>>> assistant = games.start(seating)
>>> assistant.table.id, assistant.game.names
(1, ['Ann', 'Bob'])
>>> games.resume(1).game.history == assistant.game.history
True
>>> journal.close()
"""

from __future__ import annotations

from dataclasses import dataclass

from tabletop.errors import TabletopError
from tabletop.journal.journal import GameInfo, Journal
from tabletop.messages import Message
from tabletop.table.assistant import Assistant, Listener
from tabletop.table.seating import Seating


@dataclass
class TableGames:
    """Start and resume the games of the table named ``name`` in ``journal``."""

    journal: Journal
    listener: Listener | None = None
    name: str | None = None
    #: Why no game may be played on this table (its data would be lost at power-off), or None.
    refusal: Message | None = None

    def check_playable(self) -> None:
        """TabletopError saying why when no game may start or resume here."""
        if self.refusal is not None:
            raise TabletopError(self.refusal)

    def start(self, seating: Seating) -> Assistant:
        """The seating's draw done: record the game and hand it to an assistant that knows
        which tiles are on the board and which were refused during the draw."""
        self.check_playable()
        table = self.journal.start({"setup": seating.setup})
        return Assistant(table, seen=seating.tiles, flagged=seating.returned,
                         listener=self.listener)

    def resume(self, game_id: int) -> Assistant:
        """Game ``game_id`` back at its last confirmed action."""
        self.check_playable()
        return Assistant(self.journal.resume(game_id), listener=self.listener)

    def unfinished(self, but: int | None = None) -> list[GameInfo]:
        """This table's unfinished games (all tables' without a name), oldest first."""
        return [info for info in self.journal.games()
                if info.finished is None and info.id != but
                and (self.name is None or info.table == self.name)]
