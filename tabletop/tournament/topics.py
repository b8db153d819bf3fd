"""The MQTT topics tables and the director meet on, and what each message holds.

Every topic starts ``tabletop/<tournament>/table/<table>/`` with the names made
safe for a topic (:func:`topic_name`: lower case, spaces as ``-``, no ``/ + #``):

- ``.../state``: the table's live state (:class:`LiveState`), retained, QoS 0: the
  latest is what counts, and a director who subscribes late gets it at once.
- ``.../slip``: the table's signed slip when a game ends, QoS 1, sent again until
  answered.
- ``.../ack``: the director's answer for a slip (:class:`Answer`): taken, already
  taken, or refused and why, QoS 1. Only an answer ends the table's resending.

>>> slip_topic("Spring Open", "3")
'tabletop/spring-open/table/3/slip'
>>> table_of_topic("tabletop/spring-open/table/3/slip")
('3', 'slip')
>>> Answer.from_bytes(Answer("a1", "taken").to_bytes())
Answer(slip='a1', outcome='taken', reason=None)
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from typing import Any

ROOT = "tabletop"
KINDS = ("state", "slip", "ack")


def topic_name(name: str) -> str:
    """A tournament's or table's name as a topic level.

    >>> topic_name("Spring Open 2026"), topic_name("Table #3/A")
    ('spring-open-2026', 'table-3-a')
    """
    cleaned = re.sub(r"[^\w.-]+", "-", name.strip().lower(), flags=re.UNICODE).strip("-")
    return cleaned or "-"


def table_topic(tournament: str, table: str, kind: str) -> str:
    return f"{ROOT}/{topic_name(tournament)}/table/{topic_name(table)}/{kind}"


def state_topic(tournament: str, table: str) -> str:
    return table_topic(tournament, table, "state")


def slip_topic(tournament: str, table: str) -> str:
    return table_topic(tournament, table, "slip")


def ack_topic(tournament: str, table: str) -> str:
    return table_topic(tournament, table, "ack")


def subscriptions(tournament: str) -> list[str]:
    """What the director subscribes to: every table's state and slips."""
    return [f"{ROOT}/{topic_name(tournament)}/table/+/{kind}" for kind in ("state", "slip")]


def table_of_topic(topic: str) -> tuple[str, str] | None:
    """``(table, kind)`` of a table's topic (the table as the topic names it), else None."""
    parts = topic.split("/")
    if len(parts) != 5 or parts[0] != ROOT or parts[2] != "table" or parts[4] not in KINDS:
        return None
    return parts[3], parts[4]


@dataclass(frozen=True)
class PlayerState:
    name: str
    cash: int


@dataclass(frozen=True)
class LiveState:
    """What a table says of its game while it plays: round, table, game, turn (the game's
    turn number, and whose turn it is), each player's cash so far, whether it is over, and
    how many slips it holds undelivered."""

    tournament: str
    round: int
    table: str
    game: int
    turn: int
    to_play: str | None
    players: tuple[PlayerState, ...] = field(default_factory=tuple)
    over: bool = False
    undelivered: int = 0

    def to_bytes(self) -> bytes:
        return json.dumps(asdict(self), ensure_ascii=False, sort_keys=True).encode("utf-8")

    @classmethod
    def from_bytes(cls, raw: bytes) -> LiveState:
        """The state in a message; ValueError if it is not one."""
        value = _object(raw)
        try:
            players = tuple(PlayerState(p["name"], p["cash"]) for p in value.pop("players"))
            return cls(players=players, **value)
        except (KeyError, TypeError) as error:
            raise ValueError(f"not a table's state ({error})") from None


@dataclass(frozen=True)
class Answer:
    """The director's answer for one slip, by its id."""

    slip: str
    outcome: str
    reason: str | None = None

    def to_bytes(self) -> bytes:
        return json.dumps(asdict(self), ensure_ascii=False, sort_keys=True).encode("utf-8")

    @classmethod
    def from_bytes(cls, raw: bytes) -> Answer:
        value = _object(raw)
        try:
            return cls(**value)
        except TypeError as error:
            raise ValueError(f"not a director's answer ({error})") from None


def _object(raw: bytes) -> dict[str, Any]:
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"not JSON ({error})") from None
    if not isinstance(value, dict):
        raise ValueError("not a JSON object")
    return value
