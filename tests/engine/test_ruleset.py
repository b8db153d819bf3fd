"""The shipped Acquire rule file against RULES.md sections 1 and 4, and the
loader's refusal of malformed or incomplete rule files (at load, naming the key)."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from tabletop.errors import IllegalAction, RulesFileError
from tabletop.engine.ruleset import available_rules, load_rules

# --- RULES.md section 1, written out by hand ------------------------------------

# | size | 2 | 3 | 4 | 5 | 6-10 | 11-20 | 21-30 | 31-40 | 41+ |  (41+ ends at the board's 108 cells)
SIZE_BRACKETS = [(2, 2), (3, 3), (4, 4), (5, 5), (6, 10), (11, 20), (21, 30), (31, 40), (41, 108)]
TIER_ROWS = {
    "1": [200, 300, 400, 500, 600, 700, 800, 900, 1000],
    "2": [300, 400, 500, 600, 700, 800, 900, 1000, 1100],
    "3": [400, 500, 600, 700, 800, 900, 1000, 1100, 1200],
}
TIER_CHAINS = {
    "1": ["Tower", "Luxor"],
    "2": ["American", "Worldwide", "Festival"],
    "3": ["Imperial", "Continental"],
}
# RULES.md 1.5: Tycoon secondary by price.
TYCOON_SECONDARY = {200: 1500, 300: 2200, 400: 3000, 500: 3700, 600: 4200, 700: 5000,
                    800: 5700, 900: 6200, 1000: 7000, 1100: 7700, 1200: 8200}


def expected_prices(tier: str) -> dict[int, int]:
    """Size -> price for sizes 2..108, expanded from the bracket table above."""
    table = {}
    for (low, high), price in zip(SIZE_BRACKETS, TIER_ROWS[tier], strict=True):
        for size in range(low, high + 1):
            assert size not in table
            table[size] = price
    assert sorted(table) == list(range(2, 109))
    return table


@pytest.fixture(scope="module")
def rules():
    return load_rules("acquire")


@pytest.fixture(scope="module")
def shipped_text() -> str:
    return (resources.files("tabletop") / "rules" / "acquire.toml").read_text(encoding="utf-8")


def test_acquire_is_available(rules):
    assert "acquire" in available_rules()
    assert rules.name == "acquire"


def test_chains_and_tiers(rules):
    by_tier = {}
    for chain in rules.chains:
        by_tier.setdefault(chain.tier, []).append(chain.name)
    assert by_tier == TIER_CHAINS
    assert [chain.index for chain in rules.chains] == list(range(7))


@pytest.mark.parametrize("tier", sorted(TIER_CHAINS))
def test_price_of_every_size_for_every_chain_matches_rules_md(rules, tier):
    expected = expected_prices(tier)
    for name in TIER_CHAINS[tier]:
        chain = rules.chain_index(name)
        actual = {size: rules.price(chain, size) for size in range(2, 109)}
        mismatches = {s: (actual[s], expected[s]) for s in expected if actual[s] != expected[s]}
        assert not mismatches, f"{name}: size -> (got, RULES.md)"


def test_a_chain_below_two_tiles_has_no_price(rules):
    for chain in range(len(rules.chains)):
        assert rules.price(chain, 0) == 0
        assert rules.price(chain, 1) == 0


def test_spot_prices(rules):
    # Hand-picked bracket edges, independent of the expansion above.
    assert rules.price(rules.chain_index("Tower"), 10) == 600
    assert rules.price(rules.chain_index("Tower"), 11) == 700
    assert rules.price(rules.chain_index("festival"), 40) == 1000
    assert rules.price(rules.chain_index("Festival"), 41) == 1100
    assert rules.price(rules.chain_index("Continental"), 108) == 1200
    assert rules.price(rules.chain_index("Imperial"), 2) == 400


def test_chain_index_refuses_unknown_chain(rules):
    with pytest.raises(IllegalAction, match="Sackson"):
        rules.chain_index("Sackson")


def test_section_1_numbers(rules):
    assert (rules.min_players, rules.max_players) == (2, 6)
    assert rules.starting_cash == 6000
    assert rules.hand_size == 6
    assert rules.shares_per_chain == 25
    assert rules.buy_limit == 3
    assert rules.safe_size == 11
    assert rules.bonus_rounding == 100
    assert rules.geometry.size == 108
    assert rules.start_tiles_stay is True
    assert rules.trade_ratio == 2
    assert rules.disposal == {"sell", "trade", "keep"}
    assert rules.end_when_all_safe is True


ALL_PRICES = sorted(TYCOON_SECONDARY)


@pytest.mark.parametrize("price", ALL_PRICES)
def test_classic_bonuses_are_10x_and_5x(rules, price):
    classic = rules.bonus_mode("classic")
    assert classic.bonuses(price) == (10 * price, 5 * price)
    assert classic.sole_holder_bonus(price) == 10 * price + 5 * price   # b1 + b2


@pytest.mark.parametrize("price", ALL_PRICES)
def test_tycoon_bonuses_use_the_rules_md_secondary_column(rules, price):
    tycoon = rules.bonus_mode("tycoon")
    assert tycoon.bonuses(price) == (10 * price, TYCOON_SECONDARY[price], 5 * price)
    assert tycoon.sole_holder_bonus(price) == 10 * price + 5 * price    # b1 + b3, not b1 + b2


def test_bonus_modes_cover_exactly_the_prices_of_the_table(rules):
    for mode in ("classic", "tycoon"):
        assert sorted(rules.bonus_mode(mode).by_price) == ALL_PRICES


def test_tycoon_is_marked_provisional_and_classic_is_not(rules):
    assert rules.bonus_mode("tycoon").provisional
    assert "unverified" in rules.bonus_mode("tycoon").provisional
    assert not rules.bonus_mode("classic").provisional


# --- options (RULES.md sections 1 and 4) -----------------------------------------

DEFAULTS = {
    "bonus_mode": "classic",
    "founder_when_sold_out": "cash",
    "defunct_order": "largest_first",
    "two_player_market": True,
    "end_size": 41,
    "disclosure": "open",
    "agreed_end": True,
    "incorrect_placement": "any_time",
    "dead_reveal": "any_time",
    "turn_order": "number_first",
}


def test_option_defaults(rules):
    resolved = rules.resolve_options(None)
    assert resolved == DEFAULTS
    assert type(resolved["two_player_market"]) is bool
    assert type(resolved["end_size"]) is int
    assert rules.resolve_options({}) == DEFAULTS


def test_given_options_override_only_themselves(rules):
    given = {"bonus_mode": "tycoon", "disclosure": "bank", "end_size": 30,
             "two_player_market": False, "founder_when_sold_out": "nothing",
             "defunct_order": "smallest_first", "agreed_end": False,
             "incorrect_placement": "same_turn", "dead_reveal": "end_of_turn",
             "turn_order": "row_first"}
    assert rules.resolve_options(given) == given
    assert rules.resolve_options({"disclosure": "hidden"}) == {**DEFAULTS, "disclosure": "hidden"}


def test_disclosure_offers_the_four_levels(rules):
    for level in ("hidden", "bank", "players", "open"):
        assert rules.resolve_options({"disclosure": level})["disclosure"] == level


def test_resolve_options_does_not_alter_its_argument(rules):
    given = {"bonus_mode": "tycoon"}
    rules.resolve_options(given)
    assert given == {"bonus_mode": "tycoon"}


@pytest.mark.parametrize("given, named", [
    ({"bonus_modes": "tycoon"}, "bonus_modes"),
    ({"nope": 1}, "nope"),
    ({"bonus_mode": "classic", "mystery": True}, "mystery"),
])
def test_unknown_options_are_refused(rules, given, named):
    with pytest.raises(IllegalAction, match=named):
        rules.resolve_options(given)


@pytest.mark.parametrize("given, named", [
    ({"bonus_mode": "mega"}, "bonus_mode"),
    ({"bonus_mode": 1}, "bonus_mode"),
    ({"founder_when_sold_out": "shares"}, "founder_when_sold_out"),
    ({"defunct_order": "random"}, "defunct_order"),
    ({"two_player_market": "yes"}, "two_player_market"),
    ({"two_player_market": 1}, "two_player_market"),
    ({"end_size": "41"}, "end_size"),
    ({"end_size": True}, "end_size"),
    ({"end_size": 41.0}, "end_size"),
    ({"end_size": 1}, "end_size"),
    ({"disclosure": "everything"}, "disclosure"),
    ({"agreed_end": None}, "agreed_end"),
])
def test_bad_option_values_are_refused(rules, given, named):
    with pytest.raises(IllegalAction, match=named):
        rules.resolve_options(given)


def test_unknown_rule_set_name_is_refused():
    with pytest.raises(RulesFileError, match="nosuch"):
        load_rules("nosuch")


# --- malformed rule files, refused at load ----------------------------------------

def mutate(text: str, old: str, new: str, count: int = 1) -> str:
    """Replace ``old`` by ``new``, insisting the shipped file still contains it."""
    assert text.count(old) == count, f"the shipped acquire.toml no longer contains {old!r}"
    return text.replace(old, new)


def drop_line(text: str, pattern: str) -> str:
    lines = text.splitlines(keepends=True)
    kept = [line for line in lines if not re.match(pattern, line)]
    assert len(kept) == len(lines) - 1, f"expected exactly one line matching {pattern!r}"
    return "".join(kept)


def load_text(tmp_path, text):
    path = tmp_path / "x.toml"
    path.write_text(text, encoding="utf-8")
    return load_rules(path)


def test_the_shipped_text_loads_from_a_path(tmp_path, shipped_text):
    rules = load_text(tmp_path, shipped_text)
    assert rules.name == "acquire"
    assert rules.buy_limit == 3


MUTATIONS = {
    "no buy_limit": (lambda t: drop_line(t, r"buy_limit\s*="), "game.buy_limit"),
    "safe_size a string": (lambda t: mutate(t, "safe_size = 11", 'safe_size = "eleven"'),
                           "game.safe_size"),
    "tier row dropped": (lambda t: drop_line(t, r'"3"\s*=\s*\['), "prices.tiers.3"),
    "tier with 8 prices": (
        lambda t: mutate(t, '"2" = [300, 400, 500, 600, 700, 800, 900, 1000, 1100]',
                         '"2" = [300, 400, 500, 600, 700, 800, 900, 1000]'),
        "prices.tiers.2"),
    "tier with no prices": (
        lambda t: mutate(t, '"1" = [200, 300, 400, 500, 600, 700, 800, 900, 1000]', '"1" = []'),
        "prices.tiers.1"),
    "tycoon by_price lacks 700": (lambda t: mutate(t, "[700, 5000],", ""),
                                  "bonus_modes.tycoon.schedule[1].by_price"),
    "unknown board kind": (lambda t: mutate(t, 'kind = "square"', 'kind = "hexagonal"'),
                           "board.kind"),
    "chain whose tier has no prices": (
        lambda t: mutate(t, 'name = "Continental"\ntier = "3"', 'name = "Continental"\ntier = "4"'),
        "prices.tiers.4"),
    "duplicate chain name": (lambda t: mutate(t, 'name = "Luxor"', 'name = "Tower"'), "chains[1].name"),
    "duplicate chain name, other case": (lambda t: mutate(t, 'name = "Luxor"', 'name = "tower"'),
                                         "chains[1].name"),
    "chain without tier": (lambda t: mutate(t, 'name = "Continental"\ntier = "3"',
                                            'name = "Continental"'), "chains[6].tier"),
    "required option missing": (lambda t: mutate(t, "[options.agreed_end]", "[options.agreed_ending]"),
                                "options.agreed_end"),
    "option default not a choice": (lambda t: mutate(t, 'default = "open"', 'default = "all"'),
                                    "options.disclosure.default"),
    "no [board] table": (lambda t: mutate(t, "[board]\n", "[boards]\n"), "board: missing"),
    "negative safe_size": (lambda t: mutate(t, "safe_size = 11", "safe_size = -1"), "game.safe_size"),
    "buy_limit a boolean": (lambda t: mutate(t, "buy_limit = 3", "buy_limit = true"), "game.buy_limit"),
    "brackets out of order": (lambda t: mutate(t, "brackets = [2, 3, 4, 5, 6, 11, 21, 31, 41]",
                                               "brackets = [2, 3, 4, 5, 6, 11, 31, 21, 41]"),
                              "prices.brackets"),
    "board rows a string": (lambda t: mutate(t, "rows = 9", 'rows = "9"'), "board.rows"),
    "min players above max": (lambda t: mutate(t, "min = 2, max = 6", "min = 7, max = 6"),
                              "game.players"),
    "colour a name": (lambda t: mutate(t, 'colour = "#e0282e"', 'colour = "red"'), "chains[1].colour"),
    "colour of five digits": (lambda t: mutate(t, 'colour = "#1fb5c4"', 'colour = "#1fb5c"'),
                              "chains[6].colour"),
    "colour not hex": (lambda t: mutate(t, 'colour = "#f2c500"', 'colour = "#f2c50g"'),
                       "chains[0].colour"),
    "colour a number": (lambda t: mutate(t, 'colour = "#f2c500"', "colour = 0xf2c500"),
                        "chains[0].colour"),
    "colour with a newline": (lambda t: mutate(t, 'colour = "#f2c500"', 'colour = "#f2c500\\n"'),
                              "chains[0].colour"),
    "sole holder position out of range": (lambda t: mutate(t, "sole_holder = [1, 3]",
                                                           "sole_holder = [1, 4]"),
                                          "bonus_modes.tycoon.sole_holder"),
}


@pytest.mark.parametrize("case", sorted(MUTATIONS))
def test_malformed_rule_file_is_refused_at_load_naming_the_key(tmp_path, shipped_text, case):
    change, key = MUTATIONS[case]
    text = change(shipped_text)
    assert text != shipped_text
    with pytest.raises(RulesFileError) as caught:
        load_text(tmp_path, text)
    message = str(caught.value)
    assert key in message, message
    assert message.startswith("x.toml:"), message    # names the file too


def test_invalid_toml_is_refused_at_load(tmp_path, shipped_text):
    text = mutate(shipped_text, "[game]\n", "[game\n")
    with pytest.raises(RulesFileError) as caught:
        load_text(tmp_path, text)
    assert "x.toml" in str(caught.value)
    assert "TOML" in str(caught.value)


def test_option_minimum_of_the_wrong_type_is_refused_naming_the_key(tmp_path, shipped_text):
    text = mutate(shipped_text, "min = 2\n", 'min = "two"\n')
    # (At HEAD this raised TypeError from Option.check comparing int < str.)
    with pytest.raises(RulesFileError, match=r"options\.end_size\.min"):
        load_text(tmp_path, text)


def test_option_choices_of_the_wrong_type_are_refused_naming_the_key(tmp_path, shipped_text):
    text = mutate(shipped_text, 'choices = ["cash", "nothing"]', 'choices = "cash"')
    with pytest.raises(RulesFileError, match=r"options\.founder_when_sold_out"):
        load_text(tmp_path, text)


def test_every_shipped_chain_has_its_markers_colour():
    for name in available_rules():
        for chain in load_rules(name).chains:
            assert re.fullmatch(r"#[0-9a-f]{6}", chain.colour), (name, chain)
    assert load_rules("acquisitions").chains[1].colour == "#d62828"     # Red Crest: red


def test_a_chain_without_a_colour_loads_with_none(tmp_path, shipped_text):
    # Rule files written before colours (and games recorded with them) still load.
    text = "".join(line for line in shipped_text.splitlines(keepends=True)
                   if not line.startswith("colour ="))
    rules = load_text(tmp_path, text)
    assert [chain.colour for chain in rules.chains] == [""] * 7
    upper = load_text(tmp_path, mutate(shipped_text, 'colour = "#f2c500"', 'colour = "#F2C500"'))
    assert upper.chains[0].colour == "#f2c500"
