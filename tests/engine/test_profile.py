"""The tournament options and profiles: each option held refuses what the table's default
allows, a profile file's typos are named, and a game set up under a profile carries it
from its setup line to its signed slip and the printed receipt."""

from __future__ import annotations

import json
import random

import pytest

from tabletop.engine.actions import Buy, Dead, End, Found, Place
from tabletop.engine.board import EMPTY
from tabletop.engine.game import Game
from tabletop.engine.profile import (ProfileError, builtin_profile, load_profile,
                                     parse_profile)
from tabletop.engine.random_play import random_action
from tabletop.engine.ruleset import load_rules, rules_from_text
from tabletop.engine.table_script import game_from_setup
from tabletop.errors import IllegalAction, ScriptError

TOURNAMENT = builtin_profile("tournament")


def small_safe_rules():
    """Acquire with chains safe at 2 tiles: two safe chains and a dead tile in four turns."""
    text = load_rules("acquire").text.replace("safe_size = 11", "safe_size = 2")
    return rules_from_text(text, "small-safe.toml")


def with_a_dead_tile(options=None) -> Game:
    """Tower on 1A-2A and Luxor on 1C-2C, both safe: 1B would join them, so it is dead.
    Ann to place."""
    game = Game(small_safe_rules(), ["Ann", "Bob"], options,
                start_tiles={"Ann": "12G", "Bob": "12I"})
    for line in (Place(tile="1A"), Buy(), Place(tile="2A"), Found(chain="Tower"), Buy(),
                 Place(tile="1C"), Buy(), Place(tile="2C"), Found(chain="Luxor"), Buy()):
        game.push(line)
    assert game.names[game.pending.player] == "Ann" and game.pending.kind == "place"
    return game


# -- dead_reveal ---------------------------------------------------------------------------

def test_by_default_a_dead_tile_is_revealed_by_anyone_at_any_time():
    game = with_a_dead_tile()
    assert game.options["dead_reveal"] == "any_time"
    events = game.push(Dead(tile="1B", player="Bob"))        # not Bob's turn: still fine
    assert events == [{"event": "dead", "player": "Bob", "tile": "1B"}]


def test_held_to_the_end_of_the_turn_a_dead_tile_waits_until_its_holder_has_placed():
    game = with_a_dead_tile({"dead_reveal": "end_of_turn"})
    before = game.setup_json(), len(game.history)
    with pytest.raises(IllegalAction, match="only at the end of its holder's own turn, after "
                                            "placing: Ann must place a tile"):
        game.push(Dead(tile="1B"))                          # Ann, before she places
    game.push(Place(tile="5E"))
    with pytest.raises(IllegalAction, match="end of its holder's own turn"):
        game.push(Dead(tile="1B", player="Bob"))            # Ann's turn, not Bob's
    assert (game.setup_json(), len(game.history)) == (before[0], before[1] + 1)
    assert game.push(Dead(tile="1B")) == [{"event": "dead", "player": "Ann", "tile": "1B"}]
    assert game.dead == [game.geometry.parse("1B")] and game.pending.kind == "buy"


def test_a_random_game_held_to_the_end_of_the_turn_still_ends():
    # The random player (benchmarks, the demo's bots) keeps its dead tiles to the buy step.
    for seed in range(6):
        game = Game("acquire", ["Ann", "Bob", "Cy"], TOURNAMENT.options_for(load_rules("acquire")),
                    seed=seed)
        rng = random.Random(seed)
        while game.pending is not None:
            game.push(random_action(game, rng))
        assert game.over


# -- turn_order ----------------------------------------------------------------------------

@pytest.mark.parametrize("rules, tiles, options, first", [
    ("acquire", {"Ann": "2A", "Bob": "1B"}, None, "Bob"),                      # 1B < 2A
    ("acquire", {"Ann": "2A", "Bob": "1B"}, {"turn_order": "row_first"}, "Ann"),  # A2 < B1
    ("megacquire-gold", {"Ann": "A-2", "Bob": "B-1"}, None, "Ann"),            # A-2 < B-1
    ("megacquire-gold", {"Ann": "A-2", "Bob": "B-1"}, {"turn_order": "number_first"}, "Bob"),
    ("acquisitions", {"Ann": "A-6", "Bob": "B-1"}, None, "Ann"),               # seed 002
])
def test_the_turn_order_compares_tiles_by_number_or_by_row_first(rules, tiles, options, first):
    game = Game(rules, ["Ann", "Bob"], options, start_tiles=tiles)
    assert game.names[game.current] == first


def test_a_turn_order_the_rule_file_does_not_offer_is_refused():
    with pytest.raises(IllegalAction, match="option turn_order: 'column_first' is not one of "
                                            "number_first, row_first"):
        Game("acquire", ["Ann", "Bob"], {"turn_order": "column_first"})


# -- end by agreement and the misplaced tile, held ---------------------------------------------

def test_held_without_end_by_agreement_the_end_is_refused_and_by_default_allowed():
    held = Game("acquire", ["Ann", "Bob"], {"agreed_end": False},
                start_tiles={"Ann": "5C", "Bob": "9I"})
    with pytest.raises(IllegalAction, match="this table plays without ending by agreement"):
        held.push(End(agreed=True))
    assert not held.end_declared
    free = Game("acquire", ["Ann", "Bob"], start_tiles={"Ann": "5C", "Bob": "9I"})
    assert free.push(End(agreed=True))[0]["event"] == "end_declared"


def test_held_to_the_same_turn_a_tile_of_an_earlier_turn_is_not_moved():
    def played(options):
        game = Game("acquire", ["Ann", "Bob"], options, start_tiles={"Ann": "5C", "Bob": "9I"})
        game.push(Place(tile="1A"))
        game.push(Buy())
        return game
    held = played({"incorrect_placement": "same_turn"})
    with pytest.raises(IllegalAction, match="a misplaced tile found later stays where it is"):
        held.undo()
    assert len(held.history) == 2
    free = played(None)
    free.undo()
    free.undo()                                  # the tile of the turn before, taken back
    assert free.history == [] and free.board.cells[free.geometry.parse("1A")] == EMPTY


# -- profile files ---------------------------------------------------------------------------

def test_the_built_in_tournament_profile_holds_seed_001s_rules_and_the_defaults():
    held = TOURNAMENT.options_for(load_rules("acquire"))
    assert held == {**load_rules("acquire").resolve_options({}), "agreed_end": False,
                    "incorrect_placement": "same_turn", "dead_reveal": "end_of_turn"}
    assert held["turn_order"] == "number_first"
    assert TOURNAMENT.options_for(load_rules("acquisitions"))["turn_order"] == "row_first"


def test_a_profile_file_is_read_with_its_values(tmp_path):
    path = tmp_path / "club.toml"
    path.write_text('profile = "club night"\n[options]\nagreed_end = true\n'
                    'turn_order = "row_first"\n', encoding="utf-8")
    profile = load_profile(str(path))
    assert profile.name == "club night"
    assert profile.options == {"agreed_end": True, "turn_order": "row_first"}
    assert profile.options_for(load_rules("acquire"))["turn_order"] == "row_first"
    # The digest is of the name and the values: another name, another digest.
    assert profile.sha256 != parse_profile(path.read_text().replace("club night", "x"),
                                           "x.toml").sha256


@pytest.mark.parametrize("text, error", [
    ('profile = "t"\n[options]\nagred_end = false\n',
     "t.toml: [options] agred_end: no such option (did you mean agreed_end?)"),
    ('profile = "t"\n[option]\nagreed_end = false\n',
     "t.toml: option: no such key (did you mean options?); a profile has: profile, options"),
    ('profile = "t"\n[options]\ndead_reveal = "end_of_trun"\n',
     't.toml: [options] dead_reveal = "end_of_trun": must be "any_time", "end_of_turn" '
     '(did you mean end_of_turn?)'),
    ('profile = "t"\n[options]\nagreed_end = "no"\n',
     't.toml: [options] agreed_end = "no": must be true or false'),
    ('[options]\nagreed_end = false\n',
     't.toml: profile: missing or not a name, e.g. profile = "tournament"'),
    ('profile = "t"\n[options\n', "t.toml: not valid TOML"),
])
def test_a_profile_files_mistake_is_named_in_one_line(text, error):
    with pytest.raises(ProfileError) as raised:
        parse_profile(text, "t.toml")
    assert str(raised.value).startswith(error) and "\n" not in str(raised.value)


def test_an_unknown_built_in_profile_is_refused_with_the_nearest_name(tmp_path):
    with pytest.raises(ProfileError, match=r"no profile called 'tournamnet' \(did you mean "
                                           r"tournament\?\)"):
        load_profile("tournamnet")
    with pytest.raises(ProfileError, match="cannot read the profile file"):
        load_profile(str(tmp_path / "missing.toml"))


# -- the setup line, the journal and the slip ----------------------------------------------------

def seated_under_the_profile(seed=None):
    from tabletop.table.seating import Seating

    seating = Seating("acquire", ["Ann", "Bob", "Cy"], seed=seed, profile=TOURNAMENT)
    seating.board_seen(["5C", "9I", "1D"])
    for _ in range(2):
        seating.press("confirm")
    return seating


def test_a_game_set_up_under_the_profile_carries_it_in_its_setup_line():
    setup = seated_under_the_profile().setup
    assert setup["profile"] == {"name": "tournament", "sha256": TOURNAMENT.sha256,
                                "options": dict(TOURNAMENT.options)}
    assert setup["options"] == {"agreed_end": False, "incorrect_placement": "same_turn",
                                "dead_reveal": "end_of_turn"}
    game = game_from_setup(json.loads(json.dumps({"setup": setup})))
    assert game.setup_json()["setup"]["profile"] == setup["profile"]
    game.push(Place(tile="2B"))
    game.undo()                                 # a replay for undo keeps the profile too
    assert game.setup_json()["setup"]["profile"] == setup["profile"]
    with pytest.raises(IllegalAction, match="without ending by agreement"):
        game.push(End(agreed=True))


def test_a_setup_line_quietly_changed_from_its_profile_is_refused():
    setup = seated_under_the_profile().setup
    loosened = {**setup, "options": {**setup["options"], "agreed_end": True}}
    with pytest.raises(ScriptError, match="setup: the profile tournament holds option "
                                          "agreed_end at false, not true"):
        game_from_setup({"setup": loosened})
    unheld = {**setup, "options": {**setup["options"], "bonus_mode": "tycoon"}}
    with pytest.raises(ScriptError, match='holds option bonus_mode at "classic"'):
        game_from_setup({"setup": unheld})
    both = {**loosened, "profile": {**setup["profile"], "options": {}}}
    with pytest.raises(ScriptError, match="sha256 does not match"):
        game_from_setup({"setup": both})


def test_the_seating_refuses_options_against_its_profile():
    from tabletop.table.seating import Seating

    with pytest.raises(IllegalAction, match="holds option agreed_end at false"):
        Seating("acquire", ["Ann", "Bob"], {"agreed_end": True}, profile=TOURNAMENT)


def test_the_slip_of_a_game_under_the_profile_names_it_signed_and_printed(tmp_path, monkeypatch):
    from tabletop.journal.journal import Journal
    from tabletop.journal.keys import signing_key_from_seed
    from tabletop.journal.slip import make_slip, slip_text, verify

    monkeypatch.setenv("TABLETOP_DATA", str(tmp_path / "data"))
    setup = seated_under_the_profile(seed=4).setup
    key = signing_key_from_seed(bytes(32))
    with Journal.open(tmp_path / "journal.db", table_name="table 3") as journal:
        table = journal.start({"setup": setup})
        game, rng = game_from_setup({"setup": setup}), random.Random(4)
        while game.pending is not None:
            action = random_action(game, rng)
            game.push(action)
            table.push(json.dumps(action.to_json()))
        slip = make_slip(journal, table.id, key)
    assert slip["profile"] == {"name": "tournament", "sha256": TOURNAMENT.sha256}
    assert slip["options"]["agreed_end"] is False
    assert str(verify(slip, key.public)) == "valid"
    slip["profile"]["name"] = "casual"
    assert str(verify(slip, key.public)) == "invalid: field profile.name was changed"
    slip["profile"]["name"] = "tournament"
    printed = slip_text(slip)
    assert "Profile: tournament (held)\n" in printed
    assert f"Profile sha256      {TOURNAMENT.sha256[:12]}" in printed


def test_a_game_without_a_profile_has_none_on_its_slip_or_receipt(tmp_path, monkeypatch):
    from tabletop.engine.random_play import play_random_game
    from tabletop.journal.journal import Journal
    from tabletop.journal.keys import signing_key_from_seed
    from tabletop.journal.slip import make_slip, slip_text

    monkeypatch.setenv("TABLETOP_DATA", str(tmp_path / "data"))
    lines = [json.dumps(x) for x in play_random_game("acquire", ["Ann", "Bob"], seed=2).script()]
    with Journal.open(tmp_path / "journal.db", table_name="table 3") as journal:
        table = journal.start(lines[0])
        for line in lines[1:]:
            table.push(line)
        slip = make_slip(journal, table.id, signing_key_from_seed(bytes(32)))
    assert "profile" not in slip and "Profile" not in slip_text(slip)


# -- the table's configuration names the profile -------------------------------------------------

def test_the_configuration_names_the_profile_and_a_typo_is_said_with_its_line(tmp_path):
    from tabletop.assembly.config import ConfigError, load_config, table_profile

    config = tmp_path / "config.toml"
    environ = {"TABLETOP_DATA": str(tmp_path / "data")}
    config.write_text('[table]\nprofile = "tournament"\n', encoding="utf-8")
    assert table_profile(load_config(config, environ)) == TOURNAMENT
    config.write_text('[table]\nprofile = "tournamnet"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load_config(config, environ)
    assert str(raised.value).startswith(
        f"{config} line 2: [table] profile = \"tournamnet\": no profile called 'tournamnet' "
        f"(did you mean tournament?)")
    config.write_text('[table]\nprofile = "tournament"\noptions = { agreed_end = true }\n',
                      encoding="utf-8")
    with pytest.raises(ConfigError, match="line 3: .table. options: the profile tournament holds "
                                          "option agreed_end at false, not true"):
        load_config(config, environ)
    director = tmp_path / "tournament.toml"
    director.write_text('profile = "open 2027"\n[options]\nagreed_end = false\n', encoding="utf-8")
    config.write_text(f'[table]\nprofile = "{director}"\n', encoding="utf-8")
    assert table_profile(load_config(config, environ)).name == "open 2027"
    assert table_profile(load_config(tmp_path / "none.toml", environ)) is None
