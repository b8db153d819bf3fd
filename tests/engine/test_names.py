"""Players' names, wherever players are named: a table script, the seating, the configuration.

One rule (tabletop/engine/names.py): NFC, at most 24 columns, no control characters, line
breaks, invisible or text-direction characters, and no two names alike once case-folded.
Each attack here was accepted once: "émile" typed two ways made two players, a newline
broke the ``games`` listing, U+202E and ESC went through to the screen and the receipt, and
a 100 MB name was kept.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from tabletop import Game, replay, state_json
from tabletop.assembly.config import ConfigError, load_config
from tabletop.engine.names import (BLANK, IGNORABLE, MAX_COLUMNS, clean_name, clean_names, columns,
                                   name_key)
from tabletop.errors import IllegalAction
from tabletop.table.assistant import CONFIRM
from tabletop.table.seating import Seating

ROOT = Path(__file__).resolve().parents[2]
COMPOSED, DECOMPOSED = "\u00e9mile", "e\u0301mile"   # "émile", precomposed and combining

#: A hostile character, where it goes in a name, and what the refusal says of it.
HOSTILE = {
    "ESC": ("\x1b[2JAnn", "a control character (U+001B)"),
    "NUL": ("Ann\x00", "a control character (U+0000)"),
    "tab": ("Ann\tLee", "a control character (U+0009)"),
    "newline": ("Ann\nBob", "a line break (U+000A)"),
    "carriage return": ("Ann\r", "a line break (U+000D)"),
    "U+2028": ("Ann\u2028Lee", "a line break (U+2028)"),
    "U+2029": ("Ann\u2029", "a line break (U+2029)"),
    "U+0085": ("Ann\u0085", "a line break (U+0085)"),
    "U+202E": ("\u202eAnn", "a text-direction control (U+202E)"),
    "U+2066": ("Ann\u2066", "a text-direction control (U+2066)"),
    "U+200F": ("Ann\u200f", "a text-direction control (U+200F)"),
    "zero-width space": ("A\u200bnn", "an invisible character (U+200B)"),
    "BOM": ("\ufeffAnn", "an invisible character (U+FEFF)"),
    "lone surrogate": ("Ann\ud800", "an invisible character (U+D800)"),
}
TOO_LONG = {
    "25 letters": "A" * 25,
    "13 wide characters": "李" * 13,
    "100 MB": "B" * 100_000_000,
    "many accents": "e" + "\u0301" * 500,
}


# --- the rule ------------------------------------------------------------------------------

@pytest.mark.parametrize("name,problem", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_character_is_refused_naming_it_and_the_seat(name, problem):
    with pytest.raises(IllegalAction) as refused:
        Game("acquire", ["Bob", "Cy", name])
    assert str(refused.value) == f"seat 3: a name may not hold {problem}"


@pytest.mark.parametrize("name", TOO_LONG.values(), ids=TOO_LONG.keys())
def test_a_name_too_long_for_the_screen_and_the_receipt_is_refused(name):
    with pytest.raises(IllegalAction, match=r"^seat 2: the name is too long: at most 24 columns"):
        Game("acquire", ["Bob", name])


@pytest.mark.parametrize("name", ["A" * 24, "李" * 12, "李小龍", "e\u0301" * 24, "Jean-Édouard Lévêque",
                                  "Nguyễn Thị Minh", "O'Brien", "Zoë 2", "محمد", "Ann 🎲"])
def test_real_names_fit(name):
    game = Game("acquire", [name, "Bob"])
    assert game.names[0] == clean_name(name, 1) and columns(game.names[0]) <= MAX_COLUMNS


def test_a_name_is_kept_in_nfc_and_typed_either_way_is_one_name():
    game = Game("acquire", [DECOMPOSED, "Bob"])
    assert game.names[0] == COMPOSED
    assert state_json(game)["players"][0]["name"] == COMPOSED
    with pytest.raises(IllegalAction, match="^two players have the same name$"):
        Game("acquire", [DECOMPOSED, COMPOSED])


@pytest.mark.parametrize("names", [["Ann", "ANN"], ["Ann", "ann"], ["Ann Lee", " ann  lee"],
                                   ["STRASSE", "straße"], [COMPOSED.upper(), DECOMPOSED]])
def test_names_equal_once_case_folded_are_one_name(names):
    with pytest.raises(IllegalAction, match="^two players have the same name$"):
        clean_names(["Bob", *names])


def test_a_refused_name_leaves_nothing_half_made():
    with pytest.raises(IllegalAction):
        clean_names(["Ann", "Bob\x1b"])
    assert clean_names(["Ann", "Bob"]) == ["Ann", "Bob"]


# --- a table script ---------------------------------------------------------------------------

def test_a_script_names_a_player_either_way():
    """A script written with the combining accent plays against the name kept in NFC."""
    lines = [json.dumps({"setup": {"rules": "acquire", "players": [DECOMPOSED, "Bob"],
                                   "start_tiles": {DECOMPOSED: "1A", "Bob": "9I"}}}),
             json.dumps({"do": "place", "player": DECOMPOSED, "tile": "5C"}),
             json.dumps({"do": "buy", "player": COMPOSED, "shares": {}})]
    result = replay(lines)
    assert not result.errors, result.errors
    assert result.game.names[0] == COMPOSED
    assert [p["name"] for p in state_json(result.game)["players"]] == [COMPOSED, "Bob"]
    assert result.game.names[result.game.first] == COMPOSED   # 1A, the start tile, is theirs


def test_start_tiles_naming_one_player_twice_are_refused():
    lines = [json.dumps({"setup": {"rules": "acquire", "players": [COMPOSED, "Bob"],
                                   "start_tiles": {DECOMPOSED: "1A", COMPOSED: "2A", "Bob": "9I"}}})]
    result = replay(lines)
    assert result.errors == [(1, "start_tiles must give exactly one tile for every player")]


def cli(*args: str, env: dict[str, str] | None = None,
        timeout: float = 120) -> subprocess.CompletedProcess:
    environ = dict(os.environ, **(env or {}))
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), environ.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "tabletop", *args], capture_output=True,
                          text=True, cwd=ROOT, env=environ, timeout=timeout)


@pytest.mark.parametrize("name,problem", [HOSTILE["newline"], HOSTILE["ESC"], HOSTILE["U+202E"]],
                         ids=["newline", "ESC", "U+202E"])
def test_replay_refuses_a_hostile_name(tmp_path, name, problem):
    script = tmp_path / "game.jsonl"
    script.write_text(json.dumps({"setup": {"rules": "acquire", "players": ["Ann", name]}}) + "\n",
                      encoding="utf-8")
    result = cli("replay", str(script))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"line 1: seat 2: a name may not hold {problem}\n"


# --- the seating (the setup screen's and `tabletop run --players`' seats) ---------------------

def test_the_seating_keeps_names_in_nfc_and_its_setup_line_too():
    seating = Seating("acquire", [DECOMPOSED, "Bob"])
    assert seating.players == [COMPOSED, "Bob"]
    seating.changes_seen(["5C", "9I"], [])
    seating.press(CONFIRM)
    assert seating.setup["players"] == [COMPOSED, "Bob"]
    assert set(seating.setup["start_tiles"]) == {COMPOSED, "Bob"}
    assert not replay([json.dumps({"setup": seating.setup})]).errors


@pytest.mark.parametrize("names,message", [
    ([DECOMPOSED, COMPOSED], "two players have the same name"),
    (["Ann", "aNN"], "two players have the same name"),
    (["Ann", "Bob\u202e"], "seat 2: a name may not hold a text-direction control (U+202E)"),
    (["Ann\n", "Bob"], "seat 1: a name may not hold a line break (U+000A)"),
    (["Ann", "\x1b]0;owned\x07"], "seat 2: a name may not hold a control character (U+001B)"),
    (["Ann", "x" * 25], "seat 2: the name is too long"),
])
def test_the_seating_refuses_hostile_names(names, message):
    with pytest.raises(IllegalAction, match="^" + message.replace("(", r"\(").replace(")", r"\)")
                       .replace("+", r"\+")):
        Seating("acquire", names)


# --- the configuration's [table] players --------------------------------------------------------

def config_file(tmp_path: Path, players: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(f"[table]\nplayers = {players}\n[paths]\ndata = \"{tmp_path}\"\n",
                    encoding="utf-8")
    return path


@pytest.mark.parametrize("players,message", [
    ('["Ann", "Bob\\u001b[31m"]', "[table] players: seat 2: a name may not hold a control character (U+001B)"),
    ('["Ann\\nLee", "Bob"]', "[table] players: seat 1: a name may not hold a line break (U+000A)"),
    ('["Ann", "\\u202eBob"]', "[table] players: seat 2: a name may not hold a text-direction control (U+202E)"),
    ('["Ann", ""]', "[table] players: every player needs a name"),
    ('["Ann", 3]', "[table] players: every player needs a name"),
    ('["Ann", "%s"]' % ("B" * 10_000), "[table] players: seat 2: the name is too long"),
    ('["e\\u0301mile", "\\u00e9mile"]', "the seats must be distinct names, in seating order"),
    ('["Ann", "ANN"]', "the seats must be distinct names, in seating order"),
])
def test_the_configuration_refuses_hostile_names(tmp_path, players, message):
    path = config_file(tmp_path, players)
    with pytest.raises(ConfigError) as refused:
        load_config(path=path, environ={})
    assert str(refused.value).startswith(f"{path} line 2: ") and message in str(refused.value)
    assert len(str(refused.value)) < 300 + len(str(path))


def test_the_configuration_keeps_names_in_nfc(tmp_path):
    config = load_config(path=config_file(tmp_path, '["e\\u0301mile", "Bob"]'), environ={})
    assert config.values["table"]["players"] == [COMPOSED, "Bob"]


def test_tabletop_config_refuses_a_name_with_an_escape_sequence(tmp_path):
    path = config_file(tmp_path, '["Ann", "\\u001b[2J\\u001b[HBob"]')
    result = cli("config", env={"TABLETOP_CONFIG": str(path)})
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr == (f"tabletop: {path} line 2: [table] players: seat 2: a name may not hold a "
                             f"control character (U+001B)\n")
    assert "\x1b" not in result.stdout + result.stderr


# --- names that show nothing, and seats that look alike (issue 22, item 8) --------------------

#: A name nobody can see, and what the refusal says of it: each made a seat once, through a
#: table script, ``--players`` and ``[table] players``.
INVISIBLE = {
    "Hangul filler": ("\u3164", "the name shows nothing (U+3164 looks blank): every player needs "
                                "a name that can be seen"),
    "Hangul choseong filler": ("\u115f", "the name shows nothing (U+115F looks blank)"),
    "Hangul jungseong filler": ("\u1160", "the name shows nothing (U+1160 looks blank)"),
    "halfwidth Hangul filler": ("\uffa0", "the name shows nothing (U+FFA0 looks blank)"),
    "Braille blank": ("\u2800", "the name shows nothing (U+2800 looks blank)"),
    "fillers and spaces": (" \u3164 \u2800\u3164 ", "the name shows nothing (U+3164 looks blank)"),
    "a filler and an accent": ("\u3164\u0301", "the name shows nothing (U+3164 looks blank)"),
    "a lone combining mark": ("\u0300", "a name may not start with a combining mark (U+0300)"),
    "a name after an accent": ("\u0301Ann", "a name may not start with a combining mark (U+0301)"),
    "a lone variation selector": ("\ufe0f", "a name may not start with a combining mark (U+FE0F)"),
    "private use": ("\ue000", "a name may not hold a private-use character (U+E000)"),
    "private use in a name": ("Ann\U000f0000", "a name may not hold a private-use character (U+F0000)"),
    "noncharacter U+10FFFF": ("\U0010ffff", "a name may not hold an unassigned character (U+10FFFF)"),
    "noncharacter U+FFFE": ("Ann\ufffe", "a name may not hold an unassigned character (U+FFFE)"),
    "unassigned": ("Ann\u0378", "a name may not hold an unassigned character (U+0378)"),
}
#: Names that look the same as "A" (or "Ann Lee") once drawn: the same player.
LOOK_ALIKE = {
    "VS16": ("A", "A\ufe0f"),
    "VS17": ("A", "A\U000e0100"),
    "VS1": ("A", "A\ufe00"),
    "grapheme joiner": ("A", "A\u034f"),
    "Mongolian selector": ("A", "A\u180b"),
    "joiner inside": ("Ann", "A\u034fnn"),
    "a case and a selector": ("ann", "A\ufe0fNN"),
    "Hangul filler for a space": ("Ann Lee", "Ann\u3164Lee"),
    "Braille blank for a space": ("Ann Lee", "Ann\u2800Lee"),
    "trailing filler": ("Ann", "Ann\uffa0"),
    "a selector before an accent": (COMPOSED, "e\ufe00\u0301mile"),
}


@pytest.mark.parametrize("name,problem", INVISIBLE.values(), ids=INVISIBLE.keys())
def test_a_name_that_shows_nothing_is_refused(name, problem):
    with pytest.raises(IllegalAction) as refused:
        Game("acquire", ["Bob", name])
    assert str(refused.value).startswith(f"seat 2: {problem}")


@pytest.mark.parametrize("name", ["\x85", "\x85 ", " \u2028", "\u2029"])
def test_a_name_of_a_line_break_alone_is_named_as_a_line_break(name):
    """str.strip() takes U+0085 for a space: it was refused as no name at all."""
    code = f"U+{ord(name.strip(' ')[0]):04X}"
    with pytest.raises(IllegalAction) as refused:
        Game("acquire", [name, "Bob"])
    assert str(refused.value) == f"seat 1: a name may not hold a line break ({code})"


@pytest.mark.parametrize("name", ["", " ", "\u3000", " \u00a0 "])
def test_a_blank_name_still_needs_a_name(name):
    with pytest.raises(IllegalAction, match="^every player needs a name$"):
        Game("acquire", ["Bob", name])


@pytest.mark.parametrize("pair", LOOK_ALIKE.values(), ids=LOOK_ALIKE.keys())
def test_names_that_differ_only_in_what_nobody_sees_are_one_name(pair):
    for names in (list(pair), list(reversed(pair))):
        with pytest.raises(IllegalAction, match="^two players have the same name$"):
            Game("acquire", ["Bob", *names])


@pytest.mark.parametrize("name", ["🎲\ufe0f", "❤\ufe0f Ann", "Ann ☺\ufe0f", "葛\U000e0100",
                                  "Ann\u3164Lee", "한글", "\u1100\u1161\u11a8", "⠁⠃⠉",
                                  "A\u034f"])
def test_names_with_selectors_fillers_and_jamo_that_show_are_kept(name):
    game = Game("acquire", [name, "Bob"])
    assert game.names[0] == clean_name(name, 1)


def test_an_emoji_with_and_without_its_selector_is_one_player():
    with pytest.raises(IllegalAction, match="^two players have the same name$"):
        Game("acquire", ["Ann ❤\ufe0f", "Ann ❤"])


@pytest.mark.parametrize("name,problem", [INVISIBLE["Hangul filler"], INVISIBLE["private use"],
                                          INVISIBLE["a lone combining mark"]],
                         ids=["Hangul filler", "private use", "combining mark"])
def test_the_seating_refuses_a_name_that_shows_nothing(name, problem):
    with pytest.raises(IllegalAction) as refused:
        Seating("acquire", ["Ann", name])
    assert str(refused.value).startswith(f"seat 2: {problem}")


@pytest.mark.parametrize("pair", [LOOK_ALIKE["VS16"], LOOK_ALIKE["VS17"],
                                  LOOK_ALIKE["grapheme joiner"]], ids=["VS16", "VS17", "CGJ"])
def test_the_seating_refuses_look_alike_seats(pair):
    """`tabletop run --players "A️,A"` seated two players nobody could tell apart."""
    with pytest.raises(IllegalAction, match="^two players have the same name$"):
        Seating("acquire", list(pair))


@pytest.mark.parametrize("players,message", [
    ('["Ann", "\\u3164"]', "[table] players: seat 2: the name shows nothing (U+3164 looks blank)"),
    ('["\\u2800", "Bob"]', "[table] players: seat 1: the name shows nothing (U+2800 looks blank)"),
    ('["Ann", "\\u0300"]', "[table] players: seat 2: a name may not start with a combining mark"),
    ('["Ann", "\\ue000"]', "[table] players: seat 2: a name may not hold a private-use character"),
    ('["Ann", "\\U0010FFFF"]', "[table] players: seat 2: a name may not hold an unassigned character"),
    ('["Ann", "\\u0085"]', "[table] players: seat 2: a name may not hold a line break (U+0085)"),
    ('["A", "A\\uFE0F"]', "the seats must be distinct names, in seating order"),
    ('["A\\U000E0100", "A"]', "the seats must be distinct names, in seating order"),
    ('["A", "A\\u034F"]', "the seats must be distinct names, in seating order"),
])
def test_the_configuration_refuses_names_that_show_nothing_or_look_alike(tmp_path, players, message):
    path = config_file(tmp_path, players)
    with pytest.raises(ConfigError) as refused:
        load_config(path=path, environ={})
    assert str(refused.value).startswith(f"{path} line 2: ") and message in str(refused.value)


@pytest.mark.parametrize("players,problem", [
    (["Ann", "\u3164"], "the name shows nothing (U+3164 looks blank): every player needs a name "
                        "that can be seen"),
    (["Ann", "\U0010ffff"], "a name may not hold an unassigned character (U+10FFFF)"),
    (["\x85", "Bob"], None),
], ids=["Hangul filler", "noncharacter", "NEL"])
def test_replay_refuses_a_name_that_shows_nothing(tmp_path, players, problem):
    script = tmp_path / "game.jsonl"
    script.write_text(json.dumps({"setup": {"rules": "acquire", "players": players}}) + "\n",
                      encoding="utf-8")
    result = cli("replay", str(script))
    assert result.returncode == 2 and result.stdout == "" and "Traceback" not in result.stderr
    seat = 1 if problem is None else 2
    problem = problem or "a name may not hold a line break (U+0085)"
    assert result.stderr == f"line 1: seat {seat}: {problem}\n"


def test_replay_refuses_two_seats_that_look_alike(tmp_path):
    script = tmp_path / "game.jsonl"
    script.write_text(json.dumps({"setup": {"rules": "acquire", "players": ["A\ufe0f", "A"]}})
                      + "\n", encoding="utf-8")
    result = cli("replay", str(script))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == "line 1: two players have the same name\n"


@pytest.mark.parametrize("players,message", [
    ("A\ufe0f,A", "two players have the same name"),
    ("Ann,\u3164", "seat 2: the name shows nothing (U+3164 looks blank): every player needs a "
                   "name that can be seen"),
], ids=["look-alike", "Hangul filler"])
def test_tabletop_run_refuses_the_seats_and_starts_no_game(tmp_path, players, message):
    """`tabletop run --players "A\ufe0f,A"` started a game of two players nobody could tell apart."""
    path = tmp_path / "config.toml"
    path.write_text(f'[camera]\nsource = "sim:acquire,seed=1"\n[controls]\nkind = "mock"\n'
                    f'[paths]\ndata = "{tmp_path / "data"}"\n', encoding="utf-8")
    env = {"TABLETOP_CONFIG": str(path), "TABLETOP_CAMERA": "", "TABLETOP_CONTROLS": ""}
    try:
        result = cli("run", "--headless", "--players", players, env=env, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("the game started")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr == f"tabletop: {message}\n"
    assert cli("games", env=env).stdout.lower().startswith("no games in")


# --- at random ------------------------------------------------------------------------------------

def _shows(name: str) -> bool:
    return any(not (char.isspace() or char in BLANK or unicodedata.category(char)[0] == "M")
               for char in name)


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(st.text(max_size=30), min_size=2, max_size=6))
def test_any_names_are_seated_or_refused_and_a_seated_name_shows(names):
    """Whatever the names, the only error is a refusal; what is seated can be seen and told apart."""
    try:
        seated = clean_names(names)
    except IllegalAction as error:
        assert 0 < len(str(error)) < 200 and "Error" not in str(error)
        return
    assert len({name_key(name) for name in seated}) == len(seated)
    for name in seated:
        assert _shows(name) and unicodedata.category(name[0])[0] != "M"
        assert not {unicodedata.category(char) for char in name} & {"Cc", "Cf", "Cs", "Co", "Cn"}
        assert columns(name) <= MAX_COLUMNS


@settings(max_examples=examples(200), deadline=None)
@given(st.text(min_size=1, max_size=12), st.lists(st.sampled_from(sorted(IGNORABLE)), min_size=1,
                                                  max_size=3), st.integers(min_value=1))
def test_a_name_with_something_nobody_sees_added_is_the_same_name(name, hidden, where):
    try:
        clean_name(name, 1)
    except IllegalAction:
        return
    at = 1 + where % len(name)   # after the first character: a name may not start with a mark
    other = name[:at] + "".join(hidden) + name[at:]
    assert name_key(other) == name_key(name)
