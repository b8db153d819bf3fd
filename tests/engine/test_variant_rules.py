"""The MEGAcquire GOLD and ACQUISITIONS rule files against RULES.md sections 2-4.

Every figure the rulebooks print is checked here against the loaded data;
the provisional tables say so in the file and on the printed card.
"""

from __future__ import annotations

import re
from importlib import resources

import pytest

from tabletop.cli import main
from tabletop.errors import RulesFileError
from tabletop.engine.ruleset import available_rules, load_rules


@pytest.fixture(scope="module")
def mega():
    return load_rules("megacquire-gold")


@pytest.fixture(scope="module")
def acq():
    return load_rules("acquisitions")


def price(rules, name: str, size: int) -> int:
    return rules.price(rules.chain_index(name), size)


def test_both_are_shipped():
    assert {"acquire", "megacquire-gold", "acquisitions"} <= set(available_rules())


def test_megacquire_numbers(mega):
    assert (mega.starting_cash, mega.hand_size, mega.buy_limit, mega.safe_size) == (120, 12, 6, 21)
    assert mega.bonus_rounding == 1 and mega.money(120) == "120M"
    assert mega.geometry.size == 182 and mega.geometry.labels[-1] == "N-13"
    assert not mega.start_tiles_stay and mega.dead_tiles == "turnover"
    assert mega.disposal == {"sell", "keep"} and mega.disposal_order == "largest_holder_first"
    assert mega.trade_to_buy and mega.closing_phase and mega.final_count == "tiles"
    assert mega.agreed_end == "complete_round" and mega.market_players == 0
    assert mega.options["defunct_order"].default == "smallest_first"
    assert mega.options["founder_when_sold_out"].default == "cash"
    assert "end_size" not in mega.options


def test_fourteen_companies_in_the_rulebooks_order_with_fixed_opening_values(mega):
    names = [chain.name for chain in mega.chains]
    assert names == ["Luster", "Teton", "Global", "Fanfare", "Arcadia", "Regal", "Krause",
                     "Unity", "Solon", "Helix", "Watts", "Digital", "Physics", "Quasar"]
    assert all(chain.shares == 25 for chain in mega.chains)
    opening = {chain.name: price(mega, chain.name, 2) for chain in mega.chains}
    assert opening == {"Luster": 2, "Teton": 2, "Global": 3, "Fanfare": 3, "Arcadia": 3,
                       "Regal": 4, "Krause": 4, "Unity": 4, "Helix": 4, "Solon": 6, "Watts": 6,
                       "Digital": 6, "Physics": 8, "Quasar": 8}


@pytest.mark.parametrize("name, size, expected", [
    ("Luster", 2, 2), ("Luster", 3, 3), ("Luster", 7, 6),      # the sample game
    ("Krause", 3, 5), ("Regal", 3, 5), ("Solon", 4, 10),       # sample game, trade example
])
def test_the_figures_the_megacquire_rulebook_prints(mega, name, size, expected):
    assert price(mega, name, size) == expected


def test_krause_at_three_tiles_pays_50m_and_25m(mega):
    assert mega.bonus_mode("classic").bonuses(price(mega, "Krause", 3)) == (50, 25)


def test_a_corporation_costs_twice_a_hotel_of_its_tier_at_every_size(mega):
    pairs = {"Unity": "Luster", "Helix": "Teton", "Solon": "Global", "Watts": "Fanfare",
             "Digital": "Arcadia", "Physics": "Regal", "Quasar": "Krause"}
    for corporation, hotel in pairs.items():
        for size in range(0, 183):
            assert price(mega, corporation, size) == 2 * price(mega, hotel, size)


def test_acquisitions_numbers(acq):
    assert (acq.starting_cash, acq.hand_size, acq.buy_limit, acq.safe_size) == (6000, 6, 3, 11)
    assert acq.bonus_rounding == 100 and acq.money(6000) == "£6,000"
    assert acq.geometry.size == 120 and len(acq.geometry.tile_labels) == 30
    assert acq.final_count == "territory" and not acq.closing_phase and acq.trade_to_buy
    assert acq.disposal == {"sell", "keep"} and acq.disposal_order == "largest_holder_first"
    assert acq.options["quadrants_connect"].default is True


def test_seven_kingdoms_with_staggered_card_counts_totalling_200(acq):
    counts = {chain.name: (chain.tier, chain.shares) for chain in acq.chains}
    assert counts["Solon Clan"] == ("gold", 23) and counts["Lions Head"] == ("bronze", 35)
    assert sum(shares for _, shares in counts.values()) == 200
    tiers = [tier for tier, _ in counts.values()]
    assert (tiers.count("gold"), tiers.count("silver"), tiers.count("bronze")) == (2, 3, 2)


def test_the_figures_the_acquisitions_rulebook_prints(acq):
    assert price(acq, "Solon Clan", 3) == 500
    assert price(acq, "Lions Head", 41) == 1000
    # Bronze starts at 200, silver at 300, gold at 400.
    assert [price(acq, name, 2) for name in ("Lions Head", "Blue Crest", "Solon Clan")] == [200, 300, 400]


@pytest.mark.parametrize("name", ["megacquire-gold", "acquisitions"])
def test_the_card_prints_the_provisional_notes_with_the_whole_table(name, capsys):
    assert main(["rules", name]) == 0
    card = capsys.readouterr().out
    rules = load_rules(name)
    assert rules.provisional
    assert card.count("PROVISIONAL:") == len(rules.notes) >= 2
    for chain in rules.chains:
        assert chain.name in card
    # One row per share price, each giving the bonuses at that price.
    prices = sorted({p for row in rules.tier_prices.values() for p in row})
    for p in prices:
        bonuses = rules.bonus_mode("classic").bonuses(p)
        row = re.search(rf"\s{re.escape(rules.money(p))}\s+{re.escape(rules.money(bonuses[0]))}\s", card)
        assert row, rules.money(p)
    assert max(len(line) for line in card.splitlines()) <= 100


def test_the_list_flags_provisional_rule_sets(capsys):
    assert main(["rules"]) == 0
    listing = capsys.readouterr().out
    assert re.search(r"megacquire-gold\s+MEGAcquire GOLD\s+\(provisional tables\)", listing)
    assert re.search(r"acquisitions\s+ACQUISITIONS\s+\(provisional tables\)", listing)


def shipped(name: str) -> str:
    return (resources.files("tabletop") / "rules" / f"{name}.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize("name, change, key", [
    ("megacquire-gold", ("trade_to_buy = true", ""), "game.trade_to_buy"),
    ("megacquire-gold", ('final_count = "tiles"', 'final_count = "area"'), "end.final_count"),
    ("megacquire-gold", ('agreed_end = "complete_round"', ""), "end.agreed_end"),
    ("megacquire-gold", ('currency_position = "after"', 'currency_position = "left"'),
     "game.currency_position"),
    ("acquisitions", ("shares = 23", 'shares = "23"'), "chains[0].shares"),
    ("acquisitions", ('kind = "quadrants"', 'kind = "quadrant"'), "board.kind"),
    ("acquisitions", ("quadrant_rows = 5", "quadrant_rows = 5.0"), "board.quadrant_rows"),
    ("megacquire-gold", ('default = "odd-r"', 'default = "odd"'), "options.hex_offset.default"),
])
def test_a_malformed_variant_file_is_refused_naming_the_key(tmp_path, name, change, key):
    text = shipped(name).replace(*change, 1)
    assert text != shipped(name)
    path = tmp_path / "x.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RulesFileError, match=re.escape(key)):
        load_rules(path)


def test_a_variant_file_loads_from_a_path_and_plays(tmp_path):
    from tabletop import Game
    path = tmp_path / "mega.toml"
    path.write_text(shipped("megacquire-gold"), encoding="utf-8")
    game = Game(load_rules(path), ["Ann", "Bob"], {"hex_offset": "even-r"})
    assert game.geometry.offset == "even-r"
    assert game.setup_json()["setup"]["rules"] == str(path)


@pytest.mark.parametrize("name, unit", [("megacquire-gold", r"[\d,]+M"), ("acquisitions", r"£[\d,]+")])
def test_simulate_plays_each_variant_to_its_standings(name, unit, capsys):
    assert main(["simulate", "--rules", name, "--games", "3", "--players", "3", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"3 games of {name} with 3 players")
    standings = re.findall(rf"^\s+(\d)\. (P\d)\s+({unit})$", out, re.M)
    assert sorted(player for _, player, _ in standings) == ["P1", "P2", "P3"]
    assert standings[0][0] == "1"


def test_simulate_refuses_an_option_the_variant_does_not_have(capsys):
    assert main(["simulate", "--rules", "megacquire-gold", "--games", "1",
                 "--option", "two_player_market=true"]) == 2
    assert "unknown option 'two_player_market'" in capsys.readouterr().err
