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
from pathlib import Path

import pytest

from tabletop import Game, replay, state_json
from tabletop.assembly.config import ConfigError, load_config
from tabletop.engine.names import MAX_COLUMNS, clean_name, clean_names, columns
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


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    environ = dict(os.environ, **(env or {}))
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), environ.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "tabletop", *args], capture_output=True,
                          text=True, cwd=ROOT, env=environ, timeout=120)


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
    ('["Ann", "Bob\\u001b[31m"]', "table.players: seat 2: a name may not hold a control character (U+001B)"),
    ('["Ann\\nLee", "Bob"]', "table.players: seat 1: a name may not hold a line break (U+000A)"),
    ('["Ann", "\\u202eBob"]', "table.players: seat 2: a name may not hold a text-direction control (U+202E)"),
    ('["Ann", ""]', "table.players: every player needs a name"),
    ('["Ann", 3]', "table.players: every player needs a name"),
    ('["Ann", "%s"]' % ("B" * 10_000), "table.players: seat 2: the name is too long"),
    ('["e\\u0301mile", "\\u00e9mile"]', "the seats must be distinct names, in seating order"),
    ('["Ann", "ANN"]', "the seats must be distinct names, in seating order"),
])
def test_the_configuration_refuses_hostile_names(tmp_path, players, message):
    path = config_file(tmp_path, players)
    with pytest.raises(ConfigError) as refused:
        load_config(path=path, environ={})
    assert str(refused.value).startswith(f"{path}: ") and message in str(refused.value)
    assert len(str(refused.value)) < 300 + len(str(path))


def test_the_configuration_keeps_names_in_nfc(tmp_path):
    config = load_config(path=config_file(tmp_path, '["e\\u0301mile", "Bob"]'), environ={})
    assert config.values["table"]["players"] == [COMPOSED, "Bob"]


def test_tabletop_config_refuses_a_name_with_an_escape_sequence(tmp_path):
    path = config_file(tmp_path, '["Ann", "\\u001b[2J\\u001b[HBob"]')
    result = cli("config", env={"TABLETOP_CONFIG": str(path)})
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr == (f"tabletop: {path}: table.players: seat 2: a name may not hold a "
                             f"control character (U+001B)\n")
    assert "\x1b" not in result.stdout + result.stderr
