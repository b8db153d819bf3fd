"""The tournament seat a game was set up for: which tournament, which round, which table.

A game set up for a tournament carries its seat in the setup line of its table
script (``"seat": {"tournament": "Spring Open", "round": 3, "table": "3"}``; the
tournament's name may be left out), so the journal records it with the game and
its score slip names it as a signed field. A director who expects round 3 at
table 3 refuses a slip for any other (:func:`seat_refusal`): a genuine slip of
an earlier round cannot be handed in again.

>>> seat = Seat(round=3, table="3", tournament="Spring Open")
>>> seat.to_json()
{'tournament': 'Spring Open', 'round': 3, 'table': '3'}
>>> Seat.from_json(seat.to_json()) == seat
True
>>> seat_refusal({"seat": {"round": 2, "table": "3"}}, Seat(round=3, table="3"))
'refused: this slip is for round 2, table 3; expected round 3, table 3'
>>> seat_refusal({"seat": seat.to_json()}, Seat(round=3, table="3")) is None
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from tabletop.errors import SlipError

MAX_NAME = 80


@dataclass(frozen=True)
class Seat:
    """A tournament round and table (and the tournament, when it is named)."""

    round: int
    table: str
    tournament: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.round, int) or isinstance(self.round, bool) or self.round < 1:
            raise SlipError(f"a tournament round is a whole number from 1 ({self.round!r} is not)")
        for what, name in (("table", self.table), ("tournament", self.tournament)):
            if name is None and what == "tournament":
                continue
            if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME \
                    or not name.isprintable():
                raise SlipError(f"a tournament {what} is named by text of 1 to {MAX_NAME} "
                                f"printable characters ({name!r} is not)")

    def to_json(self) -> dict[str, Any]:
        """The seat as the setup line and the slip carry it."""
        named = {} if self.tournament is None else {"tournament": self.tournament}
        return {**named, "round": self.round, "table": self.table}

    @classmethod
    def from_json(cls, value: Any) -> Seat:
        """The seat of a setup line's or a slip's ``seat``; SlipError if it is not one."""
        if not isinstance(value, dict) or not {"round", "table"} <= set(value) \
                or set(value) - {"tournament", "round", "table"}:
            raise SlipError('a seat is {"round": N, "table": "NAME"}, with "tournament": '
                            '"NAME" if the tournament is named')
        return cls(value["round"], value["table"], value.get("tournament"))

    def __str__(self) -> str:
        """
        >>> str(Seat(2, "3")), str(Seat(2, "3", "Open"))
        ('round 2, table 3', 'Open, round 2, table 3')
        """
        where = f"round {self.round}, table {self.table}"
        return where if self.tournament is None else f"{self.tournament}, {where}"


def seat_of_setup(setup_line: Mapping[str, Any]) -> Seat | None:
    """The seat a decoded setup line names (None: the game was set up for no tournament)."""
    setup = setup_line.get("setup") if isinstance(setup_line, Mapping) else None
    if not isinstance(setup, Mapping) or "seat" not in setup:
        return None
    return Seat.from_json(setup["seat"])


def seat_refusal(slip: Mapping[str, Any], expected: Seat) -> str | None:
    """Why a director expecting ``expected`` refuses this (signature-checked) slip; None if
    its seat is the one expected. The tournament is compared only when ``expected`` names it.
    """
    if "seat" not in slip:
        return (f"refused: this slip names no tournament round or table (its game was not set "
                f"up for one); expected {expected}")
    try:
        seat = Seat.from_json(slip["seat"])
    except SlipError:
        return f"refused: this slip's seat is not one a table writes; expected {expected}"
    tournament = expected.tournament if expected.tournament is not None else seat.tournament
    if (seat.round, seat.table, seat.tournament) != (expected.round, expected.table, tournament):
        shown = seat if expected.tournament is not None else Seat(seat.round, seat.table)
        return f"refused: this slip is for {shown}; expected {expected}"
    return None
