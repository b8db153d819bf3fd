"""Rule sets: a TOML file read into frozen data the engine plays by.

>>> rules = load_rules("acquire")
>>> rules.price(rules.chain_index("Luxor"), 7)
600
>>> rules.bonus_mode("tycoon").bonuses(600)
(6000, 4200, 3000)

Every number of a game lives in its file (``tabletop/rules/NAME.toml``);
a file that lacks a key or holds the wrong kind of value is refused at load
with a message naming the key. The values a rule choice may take are declared
once, in :mod:`tabletop.engine.choices`; the RuleSet holds those enums' members.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import stat
import tomllib
from dataclasses import dataclass, field
from enum import StrEnum
from importlib import resources
from pathlib import Path
from typing import Any, Mapping, TypeVar

from tabletop.engine.choices import (
    ENGINE_OPTION_KINDS, ENGINE_OPTIONS, OPTIONAL_ENGINE_OPTIONS, AgreedEnd, CurrencyPosition, DeadTiles, Disposal,
    DisposalOrder, FinalCount, StartTiles, values)
from tabletop.errors import IllegalAction, RulesFileError
from tabletop.messages import Message
from tabletop.geometry import Geometry, make_geometry


@dataclass(frozen=True)
class Chain:
    """A hotel chain (company, kingdom): its name, tier and place in the card's list."""

    index: int
    name: str
    tier: str
    shares: int
    #: Its marker's colour, ``"#rrggbb"`` (lower case), or "" when the file names none
    #: (a screen then picks one from its own palette).
    colour: str = ""


@dataclass(frozen=True)
class Option:
    """A choice a table makes at setup, with its default and allowed values."""

    name: str
    default: Any
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    help: str = ""

    def check(self, value: Any) -> Any:
        """The value if this option allows it, else IllegalAction saying why."""
        if type(value) is not type(self.default):
            kind = type(self.default).__name__
            raise IllegalAction(Message("option {option}: expected {kind}, got {value}",
                                        option=self.name, kind=kind, value=repr(value)))
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(map(str, self.choices))
            raise IllegalAction(Message("option {option}: {value} is not one of {allowed}",
                                        option=self.name, value=repr(value), allowed=allowed))
        if self.minimum is not None and value < self.minimum:
            raise IllegalAction(Message("option {option}: {value} is below {least}",
                                        option=self.name, value=repr(value), least=self.minimum))
        return value


@dataclass(frozen=True)
class BonusMode:
    """A bonus schedule: one bonus per paid position, as a function of share price."""

    name: str
    names: tuple[str, ...]
    by_price: Mapping[int, tuple[int, ...]]
    sole_holder: tuple[int, ...]
    provisional: str | None = None

    def bonuses(self, price: int) -> tuple[int, ...]:
        """The bonuses ``(b1, b2, ...)`` a chain priced ``price`` pays."""
        return self.by_price[price]

    def sole_holder_bonus(self, price: int) -> int:
        """What a chain's only holder receives (Classic b1+b2, Tycoon b1+b3)."""
        paid = self.by_price[price]
        return sum(paid[position - 1] for position in self.sole_holder)


@dataclass(frozen=True)
class RuleSet:
    """One rule file, read and checked. Built by :func:`load_rules`."""

    name: str
    title: str
    currency: str
    min_players: int
    max_players: int
    starting_cash: int
    hand_size: int
    shares_per_chain: int
    buy_limit: int
    safe_size: int
    bonus_rounding: int
    board: Mapping[str, Any]
    start_tiles_stay: bool
    dead_tiles: DeadTiles
    disposal: frozenset[Disposal]
    trade_ratio: int
    disposal_order: DisposalOrder
    end_when_all_safe: bool
    trade_to_buy: bool
    closing_phase: bool
    final_count: FinalCount
    agreed_end: AgreedEnd
    currency_after: bool
    chains: tuple[Chain, ...]
    brackets: tuple[int, ...]
    tier_prices: Mapping[str, tuple[int, ...]]
    bonus_modes: Mapping[str, BonusMode]
    options: Mapping[str, Option]
    market_players: int
    notes: tuple[str, ...] = ()
    #: What a setup line names to load these rules again: a shipped name or a file's path.
    source: str = ""
    #: The rule file's text these rules were read from (recorded with a game; see sha256).
    text: str = field(default="", repr=False, compare=False)
    geometry: Geometry = field(init=False, repr=False, compare=False)
    price_table: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)
    _by_name: dict[str, int] = field(init=False, repr=False, compare=False)
    _geometries: dict[tuple, Geometry] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Derived once from the fields above (the dataclass is frozen, hence __setattr__).
        by_name = {chain.name.lower(): chain.index for chain in self.chains}
        by_name.update({chain.name: chain.index for chain in self.chains})
        object.__setattr__(self, "_by_name", by_name)
        object.__setattr__(self, "_geometries", {})
        defaults = {name: option.default for name, option in self.options.items()}
        object.__setattr__(self, "geometry", self.geometry_for(defaults))
        object.__setattr__(self, "price_table", _price_table(
            self.chains, self.brackets, self.tier_prices, self.geometry.size))

    @property
    def sha256(self) -> str:
        """The SHA-256 of the rule file's text (as ``sha256sum`` gives it for the file).

        >>> len(load_rules("acquire").sha256)
        64
        """
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def geometry_for(self, options: Mapping[str, Any]) -> Geometry:
        """The board for a game with these (resolved) options; built once per choice."""
        key = tuple(sorted(options.items()))
        if key not in self._geometries:
            self._geometries[key] = make_geometry(self.board, options)
        return self._geometries[key]

    def money(self, amount: int) -> str:
        """``amount`` in the rule set's unit, as players write it.

        >>> load_rules("acquire").money(6000), load_rules("megacquire-gold").money(120)
        ('$6,000', '120M')
        """
        return f"{amount:,}{self.currency}" if self.currency_after else f"{self.currency}{amount:,}"

    @property
    def provisional(self) -> bool:
        """Whether any table of this rule set is a reconstruction (see ``notes``)."""
        return bool(self.notes) or any(mode.provisional for mode in self.bonus_modes.values())

    def chain_index(self, name: Any) -> int:
        """The index of the chain called ``name`` (any case); IllegalAction if none is."""
        if isinstance(name, str):
            by_name = self._by_name
            index = by_name.get(name)
            if index is None:
                index = by_name.get(name.strip().lower())
            if index is not None:
                return index
        known = ", ".join(chain.name for chain in self.chains)
        raise IllegalAction(Message("there is no chain called {name} (chains: {chains})",
                                    name=repr(name), chains=known))

    def price(self, chain: int, size: int) -> int:
        """Share price of chain ``chain`` at ``size`` tiles (0 below the first bracket)."""
        return self.price_table[chain][size]

    def bonus_mode(self, name: str) -> BonusMode:
        """The bonus schedule called ``name`` (an option ``bonus_mode`` value)."""
        return self.bonus_modes[name]

    def resolve_options(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        """Defaults overlaid with ``given``; unknown names and bad values are refused."""
        given = dict(given or {})
        unknown = sorted(set(given) - set(self.options))
        if unknown:
            raise IllegalAction(Message("unknown option {option} for {rules} (options: {options})",
                                        option=repr(unknown[0]), rules=self.name,
                                        options=", ".join(self.options)))
        return {name: option.check(given[name]) if name in given else option.default
                for name, option in self.options.items()}


RULES_DIR = "rules"


def available_rules() -> list[str]:
    """Names of the rule sets shipped in the package."""
    folder = resources.files("tabletop") / RULES_DIR
    return sorted(entry.name[:-5] for entry in folder.iterdir() if entry.name.endswith(".toml"))


#: The largest rule file read: the shipped ones take 5 kB, and a game recorded with a
#: rule file of its own keeps its text in its setup line (which a table script caps at 64 kB).
MAX_RULES_BYTES = 32 * 1024


def names_file(name_or_path: str | Path) -> bool:
    """Whether a setup's ``rules`` names a rule file by its path (not a shipped rule set)."""
    path = Path(name_or_path)
    return path.suffix == ".toml" and os.path.lexists(path)


def load_rules(name_or_path: str | Path) -> RuleSet:
    """Read a shipped rule set by name (``"acquire"``) or any rule file by path."""
    if names_file(name_or_path):
        return rules_from_text(read_rule_file(name_or_path), str(name_or_path))
    return _shipped(str(name_or_path))


def read_rule_file(path: str | Path) -> str:
    """The text of the rule file at ``path``, exactly as its bytes say (no newline changes).

    Checked to be a regular file before it is read (a pipe would wait forever).
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise RulesFileError(f"{path} is not a rule file (not a regular file)")
            if info.st_size > MAX_RULES_BYTES:
                raise RulesFileError(f"{path} is too large to be a rule file ({info.st_size:,} "
                                     f"bytes; at most {MAX_RULES_BYTES:,})")
            data = os.read(fd, MAX_RULES_BYTES + 1)
        finally:
            os.close(fd)
    except OSError as error:
        raise RulesFileError(f"cannot read the rule file {path}: {error.strerror}") from None
    try:
        return data[:MAX_RULES_BYTES + 1].decode("utf-8")
    except UnicodeDecodeError as error:
        raise RulesFileError(f"{path} is not a rule file (not UTF-8 text: byte "
                             f"{error.start})") from None


def rules_from_text(text: str, source: str) -> RuleSet:
    """The rule set a rule file's ``text`` describes; ``source`` is its path as a setup names it.

    >>> rules = rules_from_text(load_rules("acquire").text, "my/acquire.toml")
    >>> rules.source, rules.starting_cash, rules.sha256 == load_rules("acquire").sha256
    ('my/acquire.toml', 6000, True)
    """
    if len(text) > MAX_RULES_BYTES:
        raise RulesFileError(f"{Path(source).name}: too large to be a rule file")
    return _parse(text, Path(source).name, source)


@functools.lru_cache(maxsize=None)
def _shipped(name: str) -> RuleSet:
    # Shipped files do not change while we run, and a RuleSet is frozen: read each once.
    resource = resources.files("tabletop") / RULES_DIR / f"{name}.toml"
    if "/" in name or not resource.is_file():
        raise RulesFileError(
            f"no rule set called {name!r} (available: {', '.join(available_rules())})")
    return _parse(resource.read_text(encoding="utf-8"), f"{name}.toml", name)


def _parse(text: str, origin: str, source: str) -> RuleSet:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RulesFileError(f"{origin}: not valid TOML: {error}") from None
    except RecursionError:
        raise RulesFileError(f"{origin}: not a rule file (tables nested too deeply)") from None
    try:
        rules = _build(data, source)
    except RulesFileError as error:
        raise RulesFileError(f"{origin}: {error}") from None
    object.__setattr__(rules, "text", text)   # frozen: set once, as __post_init__ does
    return rules


def _build(data: Mapping[str, Any], source: str) -> RuleSet:
    game = _table(data, "game")
    board = _table(data, "board")
    merger = _table(data, "merger")
    end = _table(data, "end")
    players = _table(game, "players", "game")
    chains = _chains(data, _value(game, "shares_per_chain", int, "game"))
    brackets, tier_prices = _prices(data, chains)
    bonus_modes = _bonus_modes(data, tier_prices)
    options = _options(data)
    if options["bonus_mode"].choices is None or not set(options["bonus_mode"].choices) <= set(bonus_modes):
        raise RulesFileError("options.bonus_mode.choices: every choice needs a [bonus_modes] table")
    disposal = _disposal(merger)
    # A hold/sell-only game has no trade ratio to state.
    trade_ratio = _value(merger, "trade_ratio", int, "merger") if Disposal.TRADE in disposal else 0
    if Disposal.TRADE in disposal and trade_ratio < 1:
        raise RulesFileError("merger.trade_ratio: must be 1 or more")
    market_players = (_value(game, "stock_market_players", int, "game")
                      if "stock_market_players" in game else 0)
    if market_players and "two_player_market" not in options:
        raise RulesFileError("options.two_player_market: missing (game.stock_market_players is set)")
    notes = tuple(_value(data, "provisional", list, "")) if "provisional" in data else ()
    if any(not isinstance(note, str) for note in notes):
        raise RulesFileError("provisional: expected a list of notes (strings)")
    rules = RuleSet(
        name=_value(game, "name", str, "game"),
        title=_value(game, "title", str, "game"),
        currency=_value(game, "currency", str, "game"),
        currency_after=(_choice(game, "currency_position", CurrencyPosition, "game")
                        == CurrencyPosition.AFTER),
        min_players=_value(players, "min", int, "game.players"),
        max_players=_value(players, "max", int, "game.players"),
        starting_cash=_value(game, "starting_cash", int, "game"),
        hand_size=_value(game, "hand_size", int, "game"),
        shares_per_chain=_value(game, "shares_per_chain", int, "game"),
        buy_limit=_value(game, "buy_limit", int, "game"),
        safe_size=_value(game, "safe_size", int, "game"),
        bonus_rounding=_value(game, "bonus_rounding", int, "game"),
        board=dict(board),
        start_tiles_stay=_choice(board, "start_tiles", StartTiles, "board") == StartTiles.STAY,
        dead_tiles=_choice(board, "dead_tiles", DeadTiles, "board"),
        disposal=disposal,
        trade_ratio=trade_ratio,
        disposal_order=_choice(merger, "disposal_order", DisposalOrder, "merger"),
        end_when_all_safe=_value(end, "when_all_safe", bool, "end"),
        trade_to_buy=_value(game, "trade_to_buy", bool, "game"),
        closing_phase=_value(end, "closing_phase", bool, "end"),
        final_count=_choice(end, "final_count", FinalCount, "end"),
        agreed_end=_choice(end, "agreed_end", AgreedEnd, "end"),
        chains=chains,
        brackets=brackets,
        tier_prices=tier_prices,
        bonus_modes=bonus_modes,
        options=options,
        notes=notes,
        market_players=market_players,
        source=source,
    )
    if not 1 <= rules.min_players <= rules.max_players:
        raise RulesFileError("game.players: need 1 <= min <= max")
    return rules


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _table(data: Mapping[str, Any], key: str, where: str = "") -> Mapping[str, Any]:
    return _value(data, key, dict, where)


def _value(data: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    path = f"{where}.{key}" if where else key
    if key not in data:
        raise RulesFileError(f"{path}: missing")
    value = data[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise RulesFileError(f"{path}: expected {kind.__name__}, got {value!r}")
    if kind is int and value < 0:
        raise RulesFileError(f"{path}: must not be negative")
    return value


_Choice = TypeVar("_Choice", bound=StrEnum)


def _choice(data: Mapping[str, Any], key: str, choice: type[_Choice], where: str) -> _Choice:
    value = _value(data, key, str, where)
    allowed = values(choice)
    if value not in allowed:
        raise RulesFileError(f"{where}.{key}: {value!r} is not one of {', '.join(allowed)}")
    return choice(value)


def _disposal(merger: Mapping[str, Any]) -> frozenset[Disposal]:
    entries = _value(merger, "disposal", list, "merger")
    allowed = values(Disposal)
    # Checked entry by entry: a non-string entry (a table, a list) is refused, not hashed.
    if any(not isinstance(entry, str) or entry not in allowed for entry in entries) \
            or Disposal.SELL not in entries:
        raise RulesFileError(
            f"merger.disposal: choose from {', '.join(allowed)} ({Disposal.SELL} required)")
    return frozenset(map(Disposal, entries))


def _chains(data: Mapping[str, Any], shares: int) -> tuple[Chain, ...]:
    entries = _value(data, "chains", list, "")
    chains = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise RulesFileError(f"chains[{index}]: expected a table")
        name = _value(entry, "name", str, f"chains[{index}]")
        tier = _value(entry, "tier", str, f"chains[{index}]")
        # A chain's own share count (ACQUISITIONS' staggered kingdoms) over the game's.
        count = _value(entry, "shares", int, f"chains[{index}]") if "shares" in entry else shares
        if any(chain.name.lower() == name.lower() for chain in chains):
            raise RulesFileError(f"chains[{index}].name: {name!r} appears twice")
        colour = _colour(entry, f"chains[{index}]") if "colour" in entry else ""
        chains.append(Chain(index, name, tier, count, colour))
    if not chains:
        raise RulesFileError("chains: at least one chain is needed")
    return tuple(chains)


def _colour(entry: Mapping[str, Any], where: str) -> str:
    # Optional: a rule file written before chains had colours still loads (and so does a
    # game recorded with one); a colour given must be one a screen can draw.
    colour = _value(entry, "colour", str, where)
    if not re.fullmatch(r"#[0-9a-fA-F]{6}", colour):
        raise RulesFileError(f"{where}.colour: expected \"#rrggbb\" (six hex digits), got {colour!r}")
    return colour.lower()


def _prices(data: Mapping[str, Any], chains: tuple[Chain, ...]):
    prices = _table(data, "prices")
    brackets = tuple(_value(prices, "brackets", list, "prices"))
    if not brackets or any(not _is_int(b) for b in brackets) or list(brackets) != sorted(set(brackets)):
        raise RulesFileError("prices.brackets: expected increasing integers")
    tiers = _table(prices, "tiers", "prices")
    tier_prices = {}
    for tier, row in tiers.items():
        if not isinstance(row, list) or len(row) != len(brackets) or \
                any(not _is_int(p) or p <= 0 for p in row):
            raise RulesFileError(
                f"prices.tiers.{tier}: expected {len(brackets)} positive integers, one per bracket")
        tier_prices[tier] = tuple(row)
    for chain in chains:
        if chain.tier not in tier_prices:
            raise RulesFileError(f"prices.tiers.{chain.tier}: missing (chain {chain.name})")
    return brackets, tier_prices


def _price_table(chains, brackets, tier_prices, cells: int) -> tuple[tuple[int, ...], ...]:
    # Price by size for every possible size, so a lookup is one index.
    table = []
    for chain in chains:
        row, prices = [], tier_prices[chain.tier]
        for size in range(cells + 1):
            fitting = [i for i, start in enumerate(brackets) if start <= size]
            row.append(prices[fitting[-1]] if fitting else 0)
        table.append(tuple(row))
    return tuple(table)


def _bonus_modes(data: Mapping[str, Any], tier_prices) -> dict[str, BonusMode]:
    modes = {}
    all_prices = sorted({p for row in tier_prices.values() for p in row})
    for name, table in _table(data, "bonus_modes").items():
        where = f"bonus_modes.{name}"
        if not isinstance(table, dict):
            raise RulesFileError(f"{where}: expected a table")
        schedule = _value(table, "schedule", list, where)
        names = tuple(_value(table, "names", list, where))
        if len(names) != len(schedule) or not schedule:
            raise RulesFileError(f"{where}.names: one name per schedule entry")
        columns = [_bonus_column(entry, all_prices, f"{where}.schedule[{i}]")
                   for i, entry in enumerate(schedule)]
        sole = tuple(_value(table, "sole_holder", list, where))
        if not sole or any(not _is_int(p) or not 1 <= p <= len(schedule) for p in sole):
            raise RulesFileError(f"{where}.sole_holder: positions between 1 and {len(schedule)}")
        by_price = {price: tuple(column[price] for column in columns) for price in all_prices}
        provisional = _value(table, "provisional", str, where) if "provisional" in table else None
        modes[name] = BonusMode(name, names, by_price, sole, provisional)
    return modes


def _bonus_column(entry: Any, prices: list[int], where: str) -> dict[int, int]:
    if isinstance(entry, dict) and "times_price" in entry:
        factor = _value(entry, "times_price", int, where)
        return {price: factor * price for price in prices}
    if isinstance(entry, dict) and "by_price" in entry:
        pairs = _value(entry, "by_price", list, where)
        column = {}
        for pair in pairs:
            if not (isinstance(pair, list) and len(pair) == 2 and all(_is_int(v) for v in pair)):
                raise RulesFileError(f"{where}.by_price: expected [price, bonus] pairs")
            column[pair[0]] = pair[1]
        missing = [p for p in prices if p not in column]
        if missing:
            raise RulesFileError(f"{where}.by_price: no bonus for price {missing[0]}")
        return column
    raise RulesFileError(f"{where}: expected times_price or by_price")


def _options(data: Mapping[str, Any]) -> dict[str, Option]:
    options = {}
    for name, table in _table(data, "options").items():
        where = f"options.{name}"
        if not isinstance(table, dict) or "default" not in table:
            raise RulesFileError(f"{where}.default: missing")
        choices = tuple(_value(table, "choices", list, where)) if "choices" in table else None
        minimum = _value(table, "min", int, where) if "min" in table else None
        help_text = _value(table, "help", str, where) if "help" in table else ""
        option = Option(name, table["default"], choices, minimum, help_text)
        try:
            option.check(option.default)
        except IllegalAction as error:
            raise RulesFileError(f"{where}.default: {error}") from None
        options[name] = option
    # Every rule set carries these (docs/rules.md, Options, and the merger's choices);
    # two_player_market and end_size only where the game has them.
    for required in ("bonus_mode", "founder_when_sold_out", "defunct_order",
                     "disclosure", "agreed_end", "incorrect_placement"):
        if required not in options:
            raise RulesFileError(f"options.{required}: missing")
    _check_engine_options(options)
    return options


def _check_engine_options(options: Mapping[str, Option]) -> None:
    # The engine reads these options itself: their values must be ones it knows.
    for name, choice in ENGINE_OPTIONS.items():
        _check_engine_choices(options[name], choice)
    for name, choice in OPTIONAL_ENGINE_OPTIONS.items():
        if name in options:
            _check_engine_choices(options[name], choice)
    for name, kind in ENGINE_OPTION_KINDS.items():
        option = options.get(name)
        if option is not None and type(option.default) is not kind:
            raise RulesFileError(
                f"options.{name}.default: expected {kind.__name__}, got {option.default!r}")


def _check_engine_choices(option: Option, choice: type[StrEnum]) -> None:
    # The file may offer fewer choices than the engine knows, never another one:
    # an unknown value would otherwise play as whichever branch its test falls to.
    allowed = ", ".join(values(choice))
    if option.choices is None:
        raise RulesFileError(f"options.{option.name}.choices: missing (choose from {allowed})")
    for value in option.choices:
        if not isinstance(value, str) or value not in values(choice):
            raise RulesFileError(f"options.{option.name}.choices: {value!r} is not one of {allowed}")
