"""Rule choices: the values each may take are declared once (tabletop.engine.choices),
checked when a rule file and a table's options are loaded, and they drive play."""

from __future__ import annotations

import json
import re
from enum import StrEnum
from importlib import resources
from pathlib import Path

import pytest

from tabletop import Buy, Dispose, Found, Game, IllegalAction, Place, load_rules, state_json
from tabletop.engine import choices as ch
from tabletop.engine.choices import ENGINE_OPTIONS, DefunctOrder, values
from tabletop.engine.pending import KINDS, Pending
from tabletop.engine.ruleset import available_rules
from tabletop.engine.state import LEVELS
from tabletop.errors import RulesFileError

# Each rule-file key: its table, the enum of its values, and the RuleSet field it fills
# (a field None: the loader turns the choice into a flag, checked by FLAGS below).
FILE_KEYS = [
    ("game", "currency_position", ch.CurrencyPosition, None),
    ("board", "start_tiles", ch.StartTiles, None),
    ("board", "dead_tiles", ch.DeadTiles, "dead_tiles"),
    ("merger", "disposal_order", ch.DisposalOrder, "disposal_order"),
    ("end", "final_count", ch.FinalCount, "final_count"),
    ("end", "agreed_end", ch.AgreedEnd, "agreed_end"),
]
FLAGS = {"currency_position": ("currency_after", "after"), "start_tiles": ("start_tiles_stay", "stay")}


def shipped(name: str = "acquire") -> str:
    return (resources.files("tabletop") / "rules" / f"{name}.toml").read_text(encoding="utf-8")


def with_key(text: str, key: str, value: str) -> str:
    """``text`` with the one line ``key = "..."`` set to ``value`` (a TOML literal)."""
    changed, count = re.subn(rf'^{key} = .*$', f"{key} = {value}", text, flags=re.M)
    assert count == 1, f"acquire.toml no longer has exactly one {key} line"
    return changed


def load_text(tmp_path: Path, text: str):
    path = tmp_path / "x.toml"
    path.write_text(text, encoding="utf-8")
    return load_rules(path)


def refusal(tmp_path: Path, text: str) -> str:
    with pytest.raises(RulesFileError) as caught:
        load_text(tmp_path, text)
    return str(caught.value)


# --- every declared choice is accepted at load ------------------------------------

@pytest.mark.parametrize("where, key, choice, field", FILE_KEYS)
def test_every_declared_value_of_a_rule_file_key_loads(tmp_path, where, key, choice, field):
    for value in values(choice):
        rules = load_text(tmp_path, with_key(shipped(), key, f'"{value}"'))
        if field is None:
            flag, true_value = FLAGS[key]
            assert getattr(rules, flag) is (value == true_value)
        else:
            loaded = getattr(rules, field)
            assert isinstance(loaded, choice) and loaded == value


@pytest.mark.parametrize("entries", [["sell"], ["sell", "trade"], ["sell", "keep"],
                                     ["keep", "sell", "trade"]])
def test_every_disposal_with_sell_loads(tmp_path, entries):
    text = with_key(shipped(), "disposal", json.dumps(entries))
    rules = load_text(tmp_path, text)
    assert rules.disposal == set(entries)
    assert all(isinstance(entry, ch.Disposal) for entry in rules.disposal)


@pytest.mark.parametrize("name", available_rules())
@pytest.mark.parametrize("option", sorted(ENGINE_OPTIONS))
def test_every_engine_option_value_is_offered_and_accepted(name, option):
    rules = load_rules(name)
    allowed = values(ENGINE_OPTIONS[option])
    assert sorted(rules.options[option].choices) == sorted(allowed)
    for value in allowed:
        resolved = rules.resolve_options({option: value})
        # Options stay plain strings: table scripts and the state JSON carry them as given.
        assert resolved[option] == value and type(resolved[option]) is str


def test_a_file_may_offer_fewer_choices_than_the_engine_knows(tmp_path):
    text = shipped().replace('choices = ["largest_first", "smallest_first"]',
                             'choices = ["largest_first"]', 1)
    rules = load_text(tmp_path, text)
    assert rules.options["defunct_order"].choices == ("largest_first",)
    with pytest.raises(IllegalAction, match=r"^option defunct_order: 'smallest_first' is not "
                                            r"one of largest_first$"):
        rules.resolve_options({"defunct_order": "smallest_first"})


# --- an unknown value is refused at load, naming the key and the allowed values ----

@pytest.mark.parametrize("where, key, choice, field", FILE_KEYS)
def test_an_unknown_value_of_a_rule_file_key_is_refused(tmp_path, where, key, choice, field):
    message = refusal(tmp_path, with_key(shipped(), key, '"bogus"'))
    assert message == f"x.toml: {where}.{key}: 'bogus' is not one of {', '.join(values(choice))}"


@pytest.mark.parametrize("entries", [["sell", "swap"], ["trade", "keep"], ["sell", {}], [["sell"]]])
def test_an_unknown_disposal_is_refused(tmp_path, entries):
    literal = json.dumps(entries).replace("{}", "{ }")  # an inline table, in TOML
    message = refusal(tmp_path, with_key(shipped(), "disposal", literal))
    assert message == "x.toml: merger.disposal: choose from sell, trade, keep (sell required)"


@pytest.mark.parametrize("name", available_rules())
@pytest.mark.parametrize("option", sorted(ENGINE_OPTIONS))
def test_an_unknown_option_value_is_refused_naming_the_allowed_ones(name, option):
    rules = load_rules(name)
    offered = ", ".join(rules.options[option].choices)      # the file's order
    with pytest.raises(IllegalAction) as caught:
        rules.resolve_options({option: "bogus"})
    assert str(caught.value) == f"option {option}: 'bogus' is not one of {offered}"


def test_a_file_offering_a_choice_the_engine_does_not_know_is_refused(tmp_path):
    text = shipped().replace('choices = ["largest_first", "smallest_first"]',
                             'choices = ["largest_first", "biggest_first"]', 1)
    assert refusal(tmp_path, text) == ("x.toml: options.defunct_order.choices: 'biggest_first' "
                                       "is not one of largest_first, smallest_first")


def test_an_engine_option_without_choices_is_refused(tmp_path):
    text = shipped().replace('choices = ["any_time", "same_turn"]\n', "", 1)
    assert refusal(tmp_path, text) == ("x.toml: options.incorrect_placement.choices: missing "
                                       "(choose from any_time, same_turn)")


def test_a_flag_option_with_a_string_default_is_refused(tmp_path):
    old = '[options.agreed_end]\ndefault = true'
    assert old in shipped()
    text = shipped().replace(old, '[options.agreed_end]\ndefault = "yes"', 1)
    assert refusal(tmp_path, text) == "x.toml: options.agreed_end.default: expected bool, got 'yes'"


# --- the choices drive play -------------------------------------------------------

def defunct_order_played(order: str) -> list[str]:
    """The defunct chains, in the order a three-chain merger pays them, with ``order``."""
    game = Game(load_rules("acquire"), ["Ann", "Bob", "Cy"], {"defunct_order": order},
                start_tiles={"Ann": "12I", "Bob": "12G", "Cy": "10I"})
    # Tower 5A-5D (4 tiles), American 2E-4E (3), Luxor 6E-7E (2); 5E touches all three.
    for tile, chain in [("5A", None), ("5B", "Tower"), ("5C", None), ("5D", None),
                        ("6E", None), ("7E", "Luxor"), ("2E", None), ("3E", "American"),
                        ("4E", None)]:
        game.push(Place(tile=tile))
        if chain:
            game.push(Found(chain=chain))
        game.push(Buy(shares={}))
    events = game.push(Place(tile="5E"))
    while game.pending.kind == "dispose":
        held = state_json(game)["pending"]["shares"]
        events += game.push(Dispose(sell=held))
    assert game.pending.kind == "buy"
    assert state_json(game)["chains"]["Tower"]["size"] == 10
    return [event["chain"] for event in events if event["event"] == "bonus"]


def test_defunct_order_decides_which_chain_a_merger_pays_first():
    assert defunct_order_played("largest_first") == ["American", "Luxor"]
    assert defunct_order_played("smallest_first") == ["Luxor", "American"]


def test_a_misspelt_choice_fails_at_once_instead_of_comparing_false():
    with pytest.raises(AttributeError):
        DefunctOrder.LARGEST_FRIST  # noqa: B018 - the typo is the point
    assert DefunctOrder.LARGEST_FIRST == "largest_first" != DefunctOrder.SMALLEST_FIRST


ENGINE_DIR = Path(ch.__file__).parent
# A rule or option compared with a bare string: the pattern this module replaced.
BARE_COMPARISON = re.compile(r'(rules\.\w+|options\[[^]]+\])\s*(==|!=|is)\s*["\']'
                             r'|["\']\w+["\']\s+(not\s+)?in\s+[\w.]*rules\.disposal')


@pytest.mark.parametrize("module", sorted(p.name for p in ENGINE_DIR.glob("*.py")))
def test_the_engine_compares_rule_choices_by_declared_name(module):
    source = (ENGINE_DIR / module).read_text(encoding="utf-8")
    code = re.sub(r'"""[\s\S]*?"""', "", source)   # docstrings may quote rule files
    assert not BARE_COMPARISON.findall(code), module


# --- plain strings at the edges ---------------------------------------------------

def test_disclosure_levels_and_pending_kinds_stay_plain_strings():
    assert LEVELS == ("hidden", "bank", "players", "open")
    assert all(type(level) is str for level in LEVELS)
    assert KINDS == ("place", "found", "survivor", "next_defunct", "market", "dispose", "buy",
                     "closing")
    assert Pending("place", 0).kind == "place"


def test_choices_print_and_serialise_as_their_values():
    rules = load_rules("megacquire-gold")
    assert json.dumps([rules.dead_tiles, rules.agreed_end]) == '["turnover", "complete_round"]'
    assert f"{rules.disposal_order}" == "largest_holder_first"
    assert all(issubclass(choice, StrEnum) for choice in ENGINE_OPTIONS.values())
