"""The configuration's ``[tournament]`` section: checked with the rest, and read as the
table's place in the tournament.

A table that plays in a tournament names the tournament (as the director's file has
it) and itself (its name there, e.g. ``"3"``); every game it sets up then carries its
seat (tournament, round, table) in its setup line, and its slip names and signs them.
``broker`` (``HOST[:PORT]``) is optional: with it the table sends its live state and
its slips to the director over MQTT; without it the slips go by USB stick. ``round``
(0: none) is the round a new game is for until the setup screen or ``--round`` says
another.

>>> from tabletop.assembly.config import load_config
>>> config = load_config(path="/nonexistent/config.toml", environ={})
>>> tournament_place(config) is None
True
>>> config.values["tournament"].update(name="Spring Open", table="3", round=2)
>>> tournament_place(config)
TournamentPlace(tournament='Spring Open', table='3', round=2)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tabletop.errors import TabletopError
from tabletop.table.seating import TournamentPlace

if TYPE_CHECKING:
    from tabletop.assembly.config import Config, _Checker

SECTION = "tournament"
#: The highest round a table takes: a tournament of more rounds is a typing slip.
MAX_ROUND = 999
#: ``[tournament] broker`` as a message shows how to write it.
BROKER_FORM = 'must be HOST or HOST:PORT (port 1 to 65535), e.g. "192.168.1.10:1883"'


def check_tournament(values: dict[str, dict[str, Any]], checker: _Checker) -> None:
    """Refuse a ``[tournament]`` that cannot seat a game or reach a broker, naming the key."""
    from tabletop.journal.seat import Seat

    section = values[SECTION]
    refused = {key for (named, key) in checker.refused if named == SECTION}
    name, table = section["name"].strip(), section["table"].strip()
    if not name and (table or section["broker"] or section["round"]):
        checker.refuse(SECTION, "name", "not set: a table plays in a tournament named here, "
                                        "as the director's file names it (or take the "
                                        "[tournament] section out)", shown_value=False)
    elif name and not table:
        checker.refuse(SECTION, "table", "not set: this table's name in the tournament, as "
                                         "the director's file has it, e.g. \"3\"",
                       shown_value=False)
    elif name and not refused & {"name", "table"}:
        try:
            Seat(1, section["table"], section["name"])
        except TabletopError as error:
            checker.refuse(SECTION, "table", str(error), section["table"])
    round_number = section["round"]
    if "round" not in refused and not 0 <= round_number <= MAX_ROUND:
        checker.refuse(SECTION, "round", f"must be a round from 1 to {MAX_ROUND} (0, or left "
                                         f"out: the setup screen or --round chooses it)",
                       round_number)
    broker = section["broker"]
    if broker and "broker" not in refused and not _broker_address(broker):
        checker.refuse(SECTION, "broker", BROKER_FORM, broker)


def _broker_address(text: str) -> bool:
    """Whether ``text`` is a broker's address a link can be made to."""
    from tabletop.director.mqtt import BrokerAddress

    try:
        address = BrokerAddress.parse(text)
    except TabletopError:
        return False
    return bool(address.host) and not any(sign.isspace() or sign in "/@" for sign in address.host)


def tournament_place(config: Config, round_number: int | None = None) -> TournamentPlace | None:
    """The table's place in the tournament ``[tournament]`` names (None: it plays in none),
    at ``round_number`` if given, else at ``[tournament] round`` (None if that is 0)."""
    section = config.values[SECTION]
    if not section["name"].strip():
        return None
    chosen = round_number if round_number is not None else section["round"] or None
    return TournamentPlace(section["name"], section["table"], chosen)


def broker_of(config: Config) -> str:
    """``[tournament] broker`` ("" none: the slips go by USB stick)."""
    return config.values[SECTION]["broker"] if tournament_place(config) is not None else ""
