"""Actions: what a player does, one table-script line each.

>>> action = parse_action({"do": "buy", "shares": {"Tower": 2}})
>>> action
Buy(player=None, shares={'Tower': 2}, trade_in={})
>>> action.to_json()
{'do': 'buy', 'shares': {'Tower': 2}}
>>> parse_action({"do": "dispose", "player": "Bob", "sell": 2, "trade": 2})
Dispose(player='Bob', sell=2, trade=2, keep=None)

Actions name tiles and chains as the player wrote them; the game reads them
against its board and rule set when the action is played.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Mapping

from tabletop.engine.names import nfc
from tabletop.errors import ScriptError

#: The longest tile label, chain name or player name a line may give: longer than any
#: there is (a player's name is at most 24 columns), short enough to quote in a refusal.
MAX_WORD = 96
#: How much of a refused value a message quotes.
EXCERPT = 60


@dataclass(frozen=True)
class Action:
    """Base of all actions. ``player``, when given, must be whoever is asked to act."""

    kind: ClassVar[str] = ""
    player: str | None = None

    #: Fields a table-script line always carries, even at their default.
    always: ClassVar[tuple[str, ...]] = ()

    def to_json(self) -> dict[str, Any]:
        """The table-script line: ``do`` and every field not at its default."""
        line: dict[str, Any] = {"do": self.kind}
        for item in fields(self):
            value = getattr(self, item.name)
            default = item.default_factory() if callable(item.default_factory) else item.default
            if value != default or item.name in self.always:
                line[item.name] = value
        return line


@dataclass(frozen=True)
class Place(Action):
    """Place a tile on its cell: ``{"do": "place", "tile": "6C"}``."""

    kind: ClassVar[str] = "place"
    tile: str = ""


@dataclass(frozen=True)
class Found(Action):
    """Name the chain a placement founds."""

    kind: ClassVar[str] = "found"
    chain: str = ""


@dataclass(frozen=True)
class Survivor(Action):
    """The mergemaker picks the survivor among chains tied for largest."""

    kind: ClassVar[str] = "survivor"
    chain: str = ""


@dataclass(frozen=True)
class NextDefunct(Action):
    """The mergemaker picks which of equal-size defunct chains goes next."""

    kind: ClassVar[str] = "next_defunct"
    chain: str = ""


@dataclass(frozen=True)
class Market(Action):
    """Two players: the tile drawn for the stock market; its number is the market's shares."""

    kind: ClassVar[str] = "market"
    tile: str = ""


@dataclass(frozen=True)
class Dispose(Action):
    """A holder sells, trades (defunct shares given, ``trade_ratio`` per survivor share) and keeps; ``keep=None`` keeps the rest."""

    kind: ClassVar[str] = "dispose"
    sell: int = 0
    trade: int = 0
    keep: int | None = None


@dataclass(frozen=True)
class Buy(Action):
    """Buy shares (``{}`` buys nothing); ``trade_in`` where the rules allow trade-to-buy."""

    kind: ClassVar[str] = "buy"
    always: ClassVar[tuple[str, ...]] = ("shares",)
    shares: Mapping[str, int] = field(default_factory=dict)
    trade_in: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Dead(Action):
    """Reveal a tile that can never be placed (any player, any time the game waits)."""

    kind: ClassVar[str] = "dead"
    tile: str = ""


@dataclass(frozen=True)
class NoTile(Action):
    """The current player cannot place a tile this turn."""

    kind: ClassVar[str] = "no_tile"


@dataclass(frozen=True)
class End(Action):
    """Declare the end (``agreed=True``: end by agreement); the turn is finished first."""

    kind: ClassVar[str] = "end"
    agreed: bool = False


@dataclass(frozen=True)
class Undo(Action):
    """Take back the last action."""

    kind: ClassVar[str] = "undo"


ACTIONS: dict[str, type[Action]] = {cls.kind: cls for cls in (
    Place, Found, Survivor, NextDefunct, Market, Dispose, Buy, Dead, NoTile, End, Undo)}


_FIELDS = {kind: tuple(item.name for item in fields(cls)) for kind, cls in ACTIONS.items()}


def parse_action(line: Any) -> Action:
    """The action a table-script line (a decoded JSON object) describes."""
    if not isinstance(line, dict):
        raise ScriptError("expected a JSON object such as {\"do\": \"place\", \"tile\": \"6C\"}")
    kind = line.get("do")
    if "setup" in line:
        raise ScriptError("a setup line may only be the first line of a script")
    if not isinstance(kind, str) or kind not in ACTIONS:
        raise ScriptError(f"unknown action {excerpt(kind)} (known: {', '.join(ACTIONS)})")
    cls = ACTIONS[kind]
    allowed = _FIELDS[kind]
    values = {}
    for key, value in line.items():
        if key == "do":
            continue
        if key not in allowed:
            raise ScriptError(f"a {kind} line has no {excerpt(key)} (it takes: {', '.join(allowed)})")
        values[key] = _checked(kind, key, value)
    for required in ("tile", "chain"):
        if required in allowed and required not in values:
            raise ScriptError(f"a {kind} line needs {required!r}")
    return cls(**values)


def _checked(kind: str, key: str, value: Any) -> Any:
    if key in ("player", "tile", "chain"):
        if not isinstance(value, str) or not value.strip():
            raise ScriptError(f"{kind}: {key} must be a non-empty string, got {excerpt(value)}")
        _short(kind, key, value)
        return nfc(value) if key == "player" else value   # names are kept in NFC
    if key in ("sell", "trade", "keep"):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ScriptError(f"{kind}: {key} must be a whole number 0 or more, got {excerpt(value)}")
        return value
    if key in ("shares", "trade_in"):
        if not isinstance(value, dict) or any(
                not isinstance(n, int) or isinstance(n, bool) or n < 0 for n in value.values()):
            raise ScriptError(f"{kind}: {key} must map chain names to whole numbers, "
                              f"got {excerpt(value)}")
        for chain in value:
            _short(kind, key, chain)
        return dict(value)
    if key == "agreed":
        if not isinstance(value, bool):
            raise ScriptError(f"end: agreed must be true or false, got {excerpt(value)}")
        return value
    raise ScriptError(f"{kind}: unexpected {excerpt(key)}")


def _short(kind: str, key: str, word: Any) -> None:
    if isinstance(word, str) and len(word) > MAX_WORD:
        raise ScriptError(f"{kind}: {key} {excerpt(word)} is too long: no tile, chain or player "
                          f"has a name of more than {MAX_WORD} characters")


def excerpt(value: Any, limit: int = EXCERPT) -> str:
    """``repr(value)`` for a message, cut to about ``limit`` characters.

    >>> excerpt("Zed"), excerpt(7)
    ("'Zed'", '7')
    >>> excerpt("x" * 100, 5), excerpt(list(range(100)), 10)
    ("'xxxxx...'", '[0, 1, 2, ...')
    """
    if isinstance(value, str) and len(value) > limit:
        quoted = repr(value[:limit])
        return quoted[:-1] + "..." + quoted[-1]
    try:
        quoted = repr(value)
    except (RecursionError, ValueError):   # nested past the interpreter's depth; a huge int
        return "(a value too large to show)"
    return quoted if len(quoted) <= limit else quoted[:limit] + "..."
