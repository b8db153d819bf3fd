"""Hostile table-script lines, at random (hypothesis): a line is applied or refused, never more.

Every line goes through the public :func:`tabletop.replay` and through the
steps it takes (decode, parse, push), in the middle of a real game: whatever a
line holds (any JSON value, any text, nesting deep enough to exhaust the
stack, numbers too long to read, action-shaped lines with wrong values), the
only error is one of the :class:`~tabletop.errors.TabletopError` family, with
a short message, and a refused line leaves the game's state JSON as it was.
"""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from tabletop import Game, replay, state_json
from tabletop.engine.actions import _FIELDS, ACTIONS, parse_action
from tabletop.engine.random_play import random_action
from tabletop.engine.table_script import decode_line, game_from_setup
from tabletop.errors import IllegalAction, TabletopError

#: Games played at random, so that every kind of decision (a merger, a buy, the two-player
#: market, a hex board's quadrants) is waited for at some line; a prefix of one is a game
#: some way in.
SETUPS = [{"rules": "acquire", "players": ["Ann", "Bob", "Cy"], "seed": 7},
          {"rules": "acquire", "players": ["Ann", "Bob"], "seed": 3},
          {"rules": "acquisitions", "players": ["Ann", "Bob", "Cy", "Di"], "seed": 5},
          {"rules": "megacquire-gold", "players": ["Ann", "Bob", "Cy"], "seed": 2}]


def _script(setup: dict, actions: int) -> list[str]:
    """The setup line and the first ``actions`` lines of a random legal game."""
    game, rng = Game(setup["rules"], setup["players"], seed=setup["seed"]), random.Random(7)
    lines = [json.dumps({"setup": setup})]
    for _ in range(actions):
        if game.pending is None:
            break
        action = random_action(game, rng)
        game.push(action)
        lines.append(json.dumps(action.to_json()))
    return lines


SCRIPTS = [_script(setup, 150) for setup in SETUPS]
prefixes = st.builds(lambda script, cut: script[:max(1, int(cut * len(script)))],
                     st.sampled_from(SCRIPTS), st.floats(0, 1))
#: The longest message a refusal may be: a sentence, and a short quote of the line.
SHORT = 400

leaves = (st.none() | st.booleans() | st.integers() | st.integers(-10**80, 10**80)
          | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=30)
          | st.sampled_from(["Ann", "Bob", "Tower", "Luxor", "6C", "1A", "12I", "undo", ""]))
values = st.recursive(leaves, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=8) | st.sampled_from(["Tower", "Luxor"]),
                                        inner, max_size=4), max_leaves=12)
keys = st.sampled_from(["player", "tile", "chain", "sell", "trade", "keep", "shares",
                        "trade_in", "agreed", "setup", "do"]) | st.text(max_size=6)
actions = st.builds(lambda kind, extra: {"do": kind, **extra},
                    st.sampled_from(sorted(ACTIONS)) | values,
                    st.dictionaries(keys, values, max_size=3))
setups = st.builds(
    lambda fields: {"setup": fields},
    st.fixed_dictionaries({}, optional={
        "rules": st.sampled_from(["acquire", "acquisitions", "megacquire-gold"]) | values,
        "players": st.lists(st.text(max_size=30) | values, max_size=8) | values,
        "options": st.dictionaries(st.sampled_from(["bonus_mode", "end_size", "trade_ratio"])
                                   | st.text(max_size=6), values, max_size=3) | values,
        "start_tiles": st.dictionaries(st.text(max_size=6), values, max_size=4) | values,
        "seed": values, "mode": st.sampled_from(["physical", "virtual"]) | values}))


def nested(depth: int, opener: str) -> str:
    closer = {"[": "]", "{\"a\":": "}"}[opener]
    return opener * depth + "1" + closer * depth


#: Lines a player might nearly have written: a known action, fields it takes, values of the
#: right kind or nearly (a real tile, chain or name; a count, huge or negative), so that the
#: line reaches the game's own checks.
counts = st.integers(-3, 30) | st.integers(10**18, 10**70) | st.booleans() | st.floats()
words = st.sampled_from(["Ann", "Bob", "Cy", "Di", "ann", "e\u0301mile", "Tower", "tower", "Luxor",
                         "Imperial", "Sackson", "1A", "6C", "12I", "3/5C", "5C", " 6c", "A-1",
                         "\u202eAnn", "\x1b[2J", "6C\n7C"]) | st.text(max_size=8)
fields = {"player": words, "tile": words, "chain": words, "sell": counts, "trade": counts,
          "keep": counts | st.none(), "agreed": st.booleans() | counts,
          "shares": st.dictionaries(words, counts, max_size=3),
          "trade_in": st.dictionaries(words, counts, max_size=2)}
plausible = st.sampled_from(sorted(ACTIONS)).flatmap(lambda kind: st.fixed_dictionaries(
    {"do": st.just(kind)}, optional={key: fields[key] for key in _FIELDS[kind] if key in fields}))

hostile = st.one_of(
    plausible.map(json.dumps),
    plausible.map(json.dumps),
    plausible.map(json.dumps),
    actions.map(json.dumps),
    values.map(json.dumps),
    st.text(max_size=80),
    st.builds(nested, st.integers(1, 30_000), st.sampled_from(["[", "{\"a\":"])),
    st.builds(lambda digits: '{"do": "dispose", "sell": %s}' % ("9" * digits),
              st.integers(4_000, 6_000)),
    st.builds(lambda n: '{"do": "place", "tile": "%s"}' % ("x" * n), st.integers(50, 70_000)),
)


def mutated(game: Game, data: st.DataObject) -> str:
    """A legal line for ``game`` now, one of its fields changed to a hostile value."""
    line = random_action(game, random.Random(data.draw(st.integers(0, 99)))).to_json()
    key = data.draw(st.sampled_from(sorted(set(_FIELDS[line["do"]]) | {"do"})))
    line[key] = data.draw(fields.get(key, values) | values)
    return json.dumps(line)


@settings(max_examples=examples(250), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prefixes, st.data())
def test_a_hostile_action_line_is_refused_whole_or_played(prefix, data):
    game = replay(prefix).game
    if game.pending is None:
        return
    text = data.draw(hostile) if data.draw(st.booleans()) else mutated(game, data)
    before = state_json(game)
    try:
        game.push(parse_action(decode_line(text)))
    except IllegalAction as error:
        assert len(str(error)) < SHORT, str(error)[:SHORT]
        assert state_json(game) == before


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prefixes, st.lists(hostile, min_size=1, max_size=4), st.booleans())
def test_replay_reports_hostile_lines_and_raises_nothing(prefix, lines, keep_going):
    result = replay(prefix + lines, keep_going=keep_going)
    assert result.game is not None
    refused = {number for number, _ in result.errors}
    for number, reason in result.errors:
        assert len(prefix) < number <= len(prefix) + len(lines) and len(reason) < SHORT
    if not keep_going:
        assert len(result.errors) <= 1
        return
    # Skipping a refused line is as if it had never been there.
    played = [line for number, line in enumerate(lines, start=len(prefix) + 1)
              if number not in refused]
    again = replay(prefix + played)
    assert not again.errors and state_json(again.game) == state_json(result.game)


@settings(max_examples=examples(250), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setups.map(json.dumps) | hostile)
def test_a_hostile_setup_line_starts_a_game_or_is_refused(text):
    try:
        game = game_from_setup(decode_line(text))
    except TabletopError as error:
        assert len(str(error)) < SHORT, str(error)[:SHORT]
        return
    json.dumps(state_json(game))   # a game it starts can be shown
    result = replay([text])
    assert not result.errors and result.game is not None
