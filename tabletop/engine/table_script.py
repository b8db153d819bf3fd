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

import json
from dataclasses import dataclass, field
from typing import Any, Iterable

from tabletop.engine.actions import parse_action
from tabletop.engine.game import Game
from tabletop.errors import IllegalAction, ScriptError, TabletopError

SETUP_KEYS = ("rules", "players", "options", "start_tiles", "seed", "mode")


def game_from_setup(line: Any) -> Game:
    """The game a setup line (decoded JSON) starts."""
    if not isinstance(line, dict) or not isinstance(line.get("setup"), dict):
        raise ScriptError('the first line must be the setup: {"setup": {"rules": ..., "players": [...]}}')
    setup = line["setup"]
    unknown = sorted(set(setup) - set(SETUP_KEYS))
    if unknown:
        raise ScriptError(f"setup has no {unknown[0]!r} (it takes: {', '.join(SETUP_KEYS)})")
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
    seed = setup.get("seed")
    mode = setup.get("mode", "virtual" if seed is not None else "physical")
    if mode not in ("physical", "virtual"):
        raise ScriptError(f"setup: mode must be physical or virtual, not {mode!r}")
    if mode == "virtual" and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise ScriptError("setup: virtual mode needs an integer seed")
    if mode == "physical" and seed is not None:
        raise ScriptError("setup: a seed makes sense only in virtual mode")
    try:
        return Game(rules, players, options, start_tiles, seed)
    except TabletopError as error:
        raise ScriptError(str(error)) from None


@dataclass
class Replay:
    """A replayed script: the game, and each refused line as ``(number, reason)``."""

    game: Game | None
    errors: list[tuple[int, str]] = field(default_factory=list)


def replay(lines: Iterable[str], keep_going: bool = False) -> Replay:
    """Apply a table script. Stops at the first illegal line unless ``keep_going``."""
    result = Replay(None)
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            try:
                line = json.loads(text)
            except json.JSONDecodeError as error:
                raise ScriptError(f"not valid JSON ({error.msg} at column {error.colno})") from None
            if result.game is None:
                result.game = game_from_setup(line)
            else:
                result.game.push(parse_action(line))
        except IllegalAction as error:
            result.errors.append((number, str(error)))
            if result.game is None or not keep_going:
                break
    if result.game is None and not result.errors:
        result.errors.append((1, "the script is empty: it needs a setup line"))
    return result
