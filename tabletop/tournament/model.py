"""A tournament as its director keeps it: players, tables and their keys, rounds and seats.

The tournament is one JSON file (``tournament.json`` by default) that the
``tabletop director`` commands make and change; it is written whole or not at all
(a new file, fsynced, renamed over the old one). The slips taken are kept apart,
in the intake's own file (:mod:`tabletop.tournament.intake`).

>>> t = Tournament("Spring Open", players=("Ann", "Bob", "Cy"), rules="acquire", seed=7)
>>> t = t.with_table("1", "ed25519:O2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2ik=")
>>> t = t.with_round(Round(1, {"1": ("Bob", "Cy", "Ann")}))
>>> Tournament.from_json(t.to_json()) == t
True
>>> t.round(1).table_of("Ann")
'1'
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from tabletop.errors import TabletopError

FORMAT = 1
TOURNAMENT_FILE = "tournament.json"
MAX_NAME = 80
#: Table sizes a tournament seats whatever the rule set allows: three to six players.
SMALLEST, LARGEST = 3, 6


class TournamentError(TabletopError):
    """A tournament command that cannot be done, said in one line; nothing was changed."""


def check_name(what: str, name: Any) -> str:
    """``name`` if it names a player, table or tournament (1 to 80 printable characters).

    >>> check_name("player", "Ann")
    'Ann'
    >>> check_name("player", " ")
    Traceback (most recent call last):
    tabletop.tournament.model.TournamentError: a player is named by 1 to 80 printable characters (' ' is not)
    """
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME \
            or not name.isprintable() or name != name.strip():
        raise TournamentError(f"a {what} is named by 1 to {MAX_NAME} printable characters "
                              f"({name!r} is not)")
    return name


def tables_text(names: list[str]) -> str:
    """Tables named in a sentence.

    >>> tables_text(["3"]), tables_text(["1", "2", "3"])
    ('table 3', 'tables 1, 2 and 3')
    """
    if len(names) == 1:
        return f"table {names[0]}"
    return f"tables {', '.join(names[:-1])} and {names[-1]}"


@dataclass(frozen=True)
class Round:
    """One round's seating: each table's name and its players, in seat order."""

    number: int
    tables: Mapping[str, tuple[str, ...]]

    def table_of(self, player: str) -> str | None:
        """The table ``player`` sits at in this round (None: not seated)."""
        return next((table for table, names in self.tables.items() if player in names), None)

    def to_json(self) -> dict[str, Any]:
        return {"round": self.number, "tables": {t: list(p) for t, p in self.tables.items()}}

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> Round:
        return cls(int(value["round"]),
                   {str(t): tuple(p) for t, p in dict(value["tables"]).items()})


@dataclass(frozen=True)
class Tournament:
    """A tournament: its name, rule set, players, tables' public keys and rounds seated.

    ``seed`` makes round 1's random seating (the same seed seats the same tables);
    ``table_size`` is the size the seating aims for; ``rounds_planned`` how many
    rounds are to be played.
    """

    name: str
    players: tuple[str, ...] = ()
    rules: str = "acquire"
    seed: int = 0
    table_size: int = 4
    rounds_planned: int = 3
    #: table name -> its public key's text (``ed25519:...``), as ``register`` was given it
    tables: Mapping[str, str] = field(default_factory=dict)
    rounds: tuple[Round, ...] = ()

    def __post_init__(self) -> None:
        check_name("tournament", self.name)
        for player in self.players:
            check_name("player", player)
        if len(set(self.players)) != len(self.players):
            twice = next(p for p in self.players if self.players.count(p) > 1)
            raise TournamentError(f"{twice} is a player of {self.name} twice")
        if not SMALLEST <= self.table_size <= LARGEST:
            raise TournamentError(f"a table seats {SMALLEST} to {LARGEST} players "
                                  f"({self.table_size} is not a table size)")

    def round(self, number: int) -> Round:
        """The seating of round ``number``; TournamentError if it is not seated."""
        for seated in self.rounds:
            if seated.number == number:
                return seated
        raise TournamentError(f"round {number} of {self.name} is not seated yet "
                              f"(`tabletop director seat {number}` seats it)")

    @property
    def current(self) -> int:
        """The last round seated (0 before the first)."""
        return max((seated.number for seated in self.rounds), default=0)

    def with_players(self, *names: str) -> Tournament:
        return replace(self, players=self.players + tuple(names))

    def with_table(self, table: str, key_text: str) -> Tournament:
        """The tournament with ``table``'s public key registered (a new key replaces the old)."""
        check_name("table", table)
        return replace(self, tables={**self.tables, table: key_text})

    def with_round(self, seated: Round) -> Tournament:
        """The tournament with ``seated`` as its round of that number (seated again if it was)."""
        others = tuple(r for r in self.rounds if r.number != seated.number)
        return replace(self, rounds=tuple(sorted(others + (seated,), key=lambda r: r.number)))

    def to_json(self) -> dict[str, Any]:
        return {"tournament": FORMAT, "name": self.name, "rules": self.rules, "seed": self.seed,
                "table_size": self.table_size, "rounds_planned": self.rounds_planned,
                "players": list(self.players), "tables": dict(self.tables),
                "rounds": [seated.to_json() for seated in self.rounds]}

    @classmethod
    def from_json(cls, value: Any) -> Tournament:
        if not isinstance(value, dict) or value.get("tournament") != FORMAT:
            raise TournamentError("not a tournament file (format 1)")
        try:
            return cls(value["name"], tuple(value["players"]), value["rules"], int(value["seed"]),
                       int(value["table_size"]), int(value["rounds_planned"]),
                       {str(t): str(k) for t, k in dict(value["tables"]).items()},
                       tuple(Round.from_json(r) for r in value["rounds"]))
        except (KeyError, TypeError, ValueError) as error:
            raise TournamentError(f"the tournament file is damaged ({error!r})") from None


def new_seed() -> int:
    """A seed for round 1's draw, when the director names none."""
    return secrets.randbelow(1_000_000)


def load(path: str | Path) -> Tournament:
    """The tournament in ``path``; TournamentError naming the file if it cannot be read."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TournamentError(f"no tournament at {path}: `tabletop director new NAME --players "
                              f"A,B,C...` makes one") from None
    except (OSError, UnicodeDecodeError) as error:
        raise TournamentError(f"cannot read the tournament {path}: {error}") from None
    try:
        return Tournament.from_json(json.loads(text))
    except json.JSONDecodeError as error:
        raise TournamentError(f"{path} is not a tournament file (not JSON: {error})") from None
    except TournamentError as error:
        raise TournamentError(f"{path}: {error}") from None


def save(tournament: Tournament, path: str | Path) -> None:
    """Write the tournament to ``path`` whole or not at all."""
    path = Path(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    text = json.dumps(tournament.to_json(), ensure_ascii=False, indent=2) + "\n"
    try:
        with open(temporary, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise TournamentError(f"cannot write the tournament {path}: {error.strerror}") from None
