"""Table scripts: a game as JSON Lines, a setup line then one action a line.

>>> lines = ['{"setup": {"rules": "acquire", "players": ["Ann", "Bob"]}}',
...          '{"do": "place", "tile": "6c"}', '{"do": "buy", "shares": {"Tower": 1}}']
>>> result = replay(lines, keep_going=True)
>>> result.errors
[(3, 'Tower is not on the board')]
>>> result.game.pending.kind
'buy'
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Iterable

from tabletop.engine.actions import excerpt, parse_action
from tabletop.engine.game import Game
from tabletop.engine.profile import profile_of_setup
from tabletop.engine.ruleset import names_file, read_rule_file, rules_from_text
from tabletop.errors import IllegalAction, ScriptError, TabletopError
from tabletop.messages import message_of

SETUP_KEYS = ("rules", "players", "options", "start_tiles", "seed", "mode", "seat", "profile")
#: What the journal adds to the setup of a game played by a rule file of its own (named
#: by path): the file's text and its SHA-256, so that the game never depends on the file
#: again (see record_rules).
RECORDED_KEYS = ("rules_sha256", "rules_text")

#: The longest line read, in characters: an action takes a few dozen and a setup a few
#: hundred, or up to about twice a recorded rule file (32 KiB of TOML, escaped as JSON),
#: so a longer line is not a table-script line, and is refused before it is parsed.
MAX_LINE = 256 * 1024
#: The largest script read, in bytes: a long game with its rule file recorded is a few
#: hundred KiB; this leaves room for a file with a monstrous line to be read and that line
#: refused by number, while /dev/zero on standard input is not read for ever.
MAX_SCRIPT = 256 * 1024 * 1024
#: The deepest nesting of objects and lists a line may have (a setup's options nest three).
MAX_DEPTH = 16


def game_from_setup(line: Any) -> Game:
    """The game a setup line (decoded JSON) starts."""
    if not isinstance(line, dict) or not isinstance(line.get("setup"), dict):
        raise ScriptError('the first line must be the setup: {"setup": {"rules": ..., "players": [...]}}')
    setup = line["setup"]
    unknown = sorted(set(setup) - set(SETUP_KEYS) - set(RECORDED_KEYS))
    if unknown:
        raise ScriptError(f"setup has no {excerpt(unknown[0])} (it takes: {', '.join(SETUP_KEYS)})")
    rules = setup.get("rules")
    if not isinstance(rules, str):
        raise ScriptError("setup needs \"rules\", the rule set's name (see `tabletop rules`)")
    players = setup.get("players")
    if not isinstance(players, list):
        raise ScriptError("setup needs \"players\", a list of names in seating order")
    options = setup.get("options", {})
    start_tiles = setup.get("start_tiles", {})
    if not isinstance(options, dict) or not isinstance(start_tiles, dict):
        raise ScriptError("setup: options and start_tiles must be JSON objects")
    # The tournament round and table a game is played for: the game ignores it, its score
    # slip names it (tabletop.journal.seat checks it fully).
    if not isinstance(setup.get("seat", {}), dict):
        raise ScriptError('setup: seat must be a JSON object: {"round": N, "table": "NAME"}')
    seed = setup.get("seed")
    mode = setup.get("mode", "virtual" if seed is not None else "physical")
    if mode not in ("physical", "virtual"):
        raise ScriptError(f"setup: mode must be physical or virtual, not {excerpt(mode)}")
    if mode == "virtual" and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise ScriptError("setup: virtual mode needs an integer seed")
    if mode == "physical" and seed is not None:
        raise ScriptError("setup: a seed makes sense only in virtual mode")
    game = _recorded(setup, players, options, start_tiles, seed) \
        if any(key in setup for key in RECORDED_KEYS) else \
        _started(rules, players, options, start_tiles, seed)
    if "seat" in setup:
        game.keep_in_setup(seat=setup["seat"])
    if "profile" in setup:
        _held(setup, game)
    return game


def _held(setup: dict, game: Game) -> None:
    """A game set up under a profile: its options must be the profile's, and it keeps it."""
    try:
        profile = profile_of_setup(setup)
        profile.check(game.rules, game.options)
    except TabletopError as error:
        raise ScriptError(f"setup: {str(error).removeprefix('setup: ')}") from None
    game.keep_in_setup(profile=profile.entry())


def _started(rules: str, *setup: Any) -> Game:
    """The game a checked setup starts; ``rules`` may name any file (a ``.toml`` path)."""
    quoted = excerpt(rules)
    try:
        return Game(rules, *setup)
    except TabletopError as error:
        raise ScriptError(str(error)) from None
    # What reading a rule file named by path may still raise: a script may name any file.
    except OSError as error:   # a folder, a name too long for the file system
        raise ScriptError(f"setup: rules {quoted} cannot be read ({error.strerror or error})") from None
    except UnicodeDecodeError:
        raise ScriptError(f"setup: the rule file {quoted} is not UTF-8 text") from None
    except RecursionError:
        raise ScriptError(f"setup: the rule file {quoted} nests too deeply to be a rule file") from None


@dataclass
class Replay:
    """A replayed script: the game, and each refused line as ``(number, reason)``."""

    game: Game | None
    errors: list[tuple[int, str]] = field(default_factory=list)


def script_lines(text: str) -> list[str]:
    r"""The lines of a table script: JSON Lines end at ``\n`` (a ``\r`` before it is
    dropped), never at the other line separators a JSON string may hold (U+2028, U+0085).

    >>> script_lines('{"a": "x\u2028y"}\r\n{"b": 1}\n')
    ['{"a": "x\u2028y"}', '{"b": 1}']
    >>> len(script_lines('{"a": "x\u2028y"}\n'))
    1
    """
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    return lines[:-1] if lines and lines[-1] == "" else lines


def replay(lines: Iterable[str], keep_going: bool = False) -> Replay:
    """Apply a table script. Stops at the first illegal line unless ``keep_going``."""
    result = Replay(None)
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            line = decode_line(text)
            if result.game is None:
                result.game = game_from_setup(line)
            else:
                result.game.push(parse_action(line))
        except IllegalAction as error:
            result.errors.append((number, message_of(error)))
            if result.game is None or not keep_going:
                break
    if result.game is None and not result.errors:
        result.errors.append((1, "the script is empty: it needs a setup line"))
    return result


def decode_line(text: str) -> Any:
    """One table-script line's JSON, or :class:`ScriptError` saying why it is not one.

    >>> decode_line('{"do": "undo"}')
    {'do': 'undo'}
    >>> decode_line("[" * 50_000)
    Traceback (most recent call last):
    ...
    tabletop.errors.ScriptError: not valid JSON: lists and objects nested too deeply (a table-script line nests at most 16 deep)
    """
    if len(text) > MAX_LINE:
        raise ScriptError(f"the line is too long ({len(text):,} characters): a table-script "
                          f"line is one action or the setup, at most {MAX_LINE:,} characters")
    try:
        line = json.loads(text)
    except json.JSONDecodeError as error:
        raise ScriptError(f"not valid JSON ({error.msg} at column {error.colno})") from None
    except RecursionError:
        raise ScriptError(_TOO_DEEP) from None
    except ValueError:   # an integer past Python's digit limit for reading numbers (4,300)
        raise ScriptError("a number has too many digits: no count in a game is that long") from None
    if _deeper_than(line, MAX_DEPTH):
        raise ScriptError(_TOO_DEEP)
    return line


_TOO_DEEP = (f"not valid JSON: lists and objects nested too deeply "
             f"(a table-script line nests at most {MAX_DEPTH} deep)")


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests lists and objects more than ``limit`` deep (without recursing:
    a deep value is what would exhaust the stack)."""
    todo = [(value, 0)]
    while todo:
        item, depth = todo.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if depth + 1 > limit:
            return True
        todo.extend((child, depth + 1) for child in children)
    return False


# -- a rule file recorded by its content -------------------------------------------------

def record_rules(line: Any) -> Any:
    """A setup line whose rules name a file by path, with that file's text and SHA-256 added.

    The journal records a game so: its replay, export and slip then use the rules it was
    played by, whatever the file says later. A shipped rule set (named by name) and a
    line already carrying its rules are given back as they are.

    >>> record_rules({"setup": {"rules": "acquire", "players": ["Ann", "Bob"]}})
    {'setup': {'rules': 'acquire', 'players': ['Ann', 'Bob']}}
    """
    setup = line.get("setup") if isinstance(line, dict) else None
    if not isinstance(setup, dict) or not isinstance(setup.get("rules"), str) \
            or any(key in setup for key in RECORDED_KEYS) or not names_file(setup["rules"]):
        return line
    try:
        text = read_rule_file(setup["rules"])
    except TabletopError as error:
        raise ScriptError(str(error)) from None
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return {**line, "setup": {**setup, "rules_sha256": digest, "rules_text": text}}


class RecordedGame(Game):
    """A game played by rules recorded with it: its setup line carries their text."""

    def setup_json(self) -> dict[str, Any]:
        line = super().setup_json()
        line["setup"].update(rules_sha256=self.rules.sha256, rules_text=self.rules.text)
        return line


def _recorded(setup: dict[str, Any], *rest: Any) -> Game:
    """The game of a setup that carries its rules' text: that text, checked against its hash."""
    text, digest = setup.get("rules_text"), setup.get("rules_sha256")
    if not isinstance(text, str) or not isinstance(digest, str):
        raise ScriptError("setup: rules_text (a rule file's text) and rules_sha256 (its SHA-256) "
                          "go together")
    try:
        actual = hashlib.sha256(text.encode("utf-8")).hexdigest()
    except UnicodeEncodeError:
        raise ScriptError("setup: rules_text is not a rule file's text (not UTF-8)") from None
    if actual != digest:
        raise ScriptError(
            f"setup: the rule set recorded with this game was changed after it was recorded "
            f"(its text has SHA-256 {actual[:16]}..., the record says {excerpt(digest[:64])}): "
            f"the game is not replayed with rules it was not played by")
    try:
        return RecordedGame(rules_from_text(text, setup["rules"]), *rest)
    except TabletopError as error:
        raise ScriptError(str(error)) from None
