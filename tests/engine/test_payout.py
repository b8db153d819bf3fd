"""Stockholder bonuses, RULES.md section 1.4.

Algorithm (1.4): rank holders with shares > 0 into groups of equal count; walk the
groups from the top with a position p = 0; a group of k players shares
b[p] + ... + b[p+k-1] (those that exist) equally, each share rounded UP to 100;
p += k; stop when no bonus is left. Sole holder: Classic b1 + b2, Tycoon b1 + b3.

Bonus values used below (RULES.md 1 and 1.5, Classic b1 = 10 x price, b2 = 5 x price;
Tycoon b1 = 10 x price, b2 = secondary column, b3 = 5 x price):

  price  classic (b1, b2)   tycoon (b1, b2, b3)
   300   (3000, 1500)       (3000, 2200, 1500)
   600   (6000, 3000)       (6000, 4200, 3000)
   700   (7000, 3500)       (7000, 5000, 3500)
  1200  (12000, 6000)      (12000, 8200, 6000)

The bonus tuples are written by hand; a few tests also take them from the shipped
rule file to check that the payout and the rule file agree.
"""

from __future__ import annotations

import pytest

from tabletop.engine.payout import share_bonuses
from tabletop.engine.ruleset import load_rules

CLASSIC = {300: (3000, 1500), 600: (6000, 3000), 700: (7000, 3500), 1200: (12000, 6000)}
TYCOON = {300: (3000, 2200, 1500), 600: (6000, 4200, 3000), 700: (7000, 5000, 3500),
          1200: (12000, 8200, 6000)}


def classic(holdings, price):
    b1, b2 = CLASSIC[price]
    return share_bonuses(holdings, (b1, b2), sole=b1 + b2, rounding=100)


def tycoon(holdings, price):
    b1, b2, b3 = TYCOON[price]
    return share_bonuses(holdings, (b1, b2, b3), sole=b1 + b3, rounding=100)


@pytest.fixture(scope="module")
def rules():
    return load_rules("acquire")


def test_hand_written_bonuses_agree_with_the_rule_file(rules):
    for price in CLASSIC:
        assert rules.bonus_mode("classic").bonuses(price) == CLASSIC[price]
        assert rules.bonus_mode("tycoon").bonuses(price) == TYCOON[price]


# --- sole holder -----------------------------------------------------------------

def test_sole_holder_classic_gets_b1_plus_b2():
    # price 700: 7000 + 3500 = 10500
    assert classic({"Ann": 4}, 700) == {"Ann": 10500}


def test_sole_holder_tycoon_gets_b1_plus_b3_not_b2():
    # price 700: 7000 + 3500 = 10500 (b1 + b2 would be 12000; all three 15500)
    assert tycoon({"Ann": 4}, 700) == {"Ann": 10500}
    # price 300: 3000 + 1500 = 4500
    assert tycoon({"Ann": 1}, 300) == {"Ann": 4500}


def test_sole_holder_amount_from_the_rule_file(rules):
    # The engine's way of getting `sole`: Classic b1+b2, Tycoon b1+b3 (1.4).
    for mode, expected in (("classic", 7000 + 3500), ("tycoon", 7000 + 3500)):
        bonus = rules.bonus_mode(mode)
        paid = share_bonuses({"Ann": 2}, bonus.bonuses(700), bonus.sole_holder_bonus(700), 100)
        assert paid == {"Ann": expected}
    # price 1200 tycoon: 12000 + 6000 = 18000 (not 12000 + 8200 = 20200)
    bonus = rules.bonus_mode("tycoon")
    assert share_bonuses({"Ann": 2}, bonus.bonuses(1200), bonus.sole_holder_bonus(1200), 100) \
        == {"Ann": 18000}


def test_sole_holder_among_zero_holders_is_still_sole():
    # Bob and Cy hold 0 shares: ignored, so Ann is the sole holder: 6000 + 3000 = 9000
    assert classic({"Ann": 3, "Bob": 0, "Cy": 0}, 600) == {"Ann": 9000}


# --- plain first and second --------------------------------------------------------

def test_majority_and_minority_classic():
    # Ann 5 > Bob 3 > Cy 1 at 600: Ann b1 6000, Bob b2 3000, Cy nothing (left out)
    assert classic({"Ann": 5, "Bob": 3, "Cy": 1}, 600) == {"Ann": 6000, "Bob": 3000}


def test_first_second_third_tycoon():
    # Ann 5 > Bob 3 > Cy 1 (Di 0 is ignored). At 600: 6000, 4200, 3000
    assert tycoon({"Ann": 5, "Bob": 3, "Cy": 1, "Di": 0}, 600) == \
        {"Ann": 6000, "Bob": 4200, "Cy": 3000}


def test_order_of_holdings_does_not_matter():
    forward = classic({"Ann": 1, "Bob": 3, "Cy": 5}, 600)
    assert forward == {"Cy": 6000, "Bob": 3000}


# --- ties ------------------------------------------------------------------------------

def test_two_way_majority_tie_classic_rounds_up():
    # 300: (3000 + 1500) / 2 = 2250 -> rounded up to 2300 each; Cy (third) gets nothing
    assert classic({"Ann": 4, "Bob": 4, "Cy": 2}, 300) == {"Ann": 2300, "Bob": 2300}


def test_two_way_majority_tie_classic_exact():
    # 600: (6000 + 3000) / 2 = 4500 each
    assert classic({"Ann": 5, "Bob": 5}, 600) == {"Ann": 4500, "Bob": 4500}


def test_two_way_majority_tie_tycoon_next_holder_gets_tertiary():
    # 300: Ann, Bob tie: (3000 + 2200) / 2 = 2600 each; Cy at p=2 gets b3 = 1500
    assert tycoon({"Ann": 4, "Bob": 4, "Cy": 2}, 300) == {"Ann": 2600, "Bob": 2600, "Cy": 1500}


def test_three_way_majority_tie_classic():
    # 700: only two bonuses: (7000 + 3500) / 3 = 3500 each
    assert classic({"Ann": 2, "Bob": 2, "Cy": 2, "Di": 1}, 700) == \
        {"Ann": 3500, "Bob": 3500, "Cy": 3500}


def test_three_way_majority_tie_tycoon_rounds_up():
    # 300: (3000 + 2200 + 1500) / 3 = 2233.33 -> 2300 each; Di gets nothing (no bonus left)
    assert tycoon({"Ann": 3, "Bob": 3, "Cy": 3, "Di": 1}, 300) == \
        {"Ann": 2300, "Bob": 2300, "Cy": 2300}


def test_minority_tie_classic_rounds_up():
    # 300: Ann b1 3000; Bob, Cy share b2: 1500 / 2 = 750 -> 800 each
    assert classic({"Ann": 5, "Bob": 2, "Cy": 2}, 300) == {"Ann": 3000, "Bob": 800, "Cy": 800}


def test_three_way_minority_tie_classic_rounds_up():
    # 700: Ann b1 7000; Bob, Cy, Di share b2: 3500 / 3 = 1166.67 -> 1200 each
    assert classic({"Ann": 4, "Bob": 2, "Cy": 2, "Di": 2}, 700) == \
        {"Ann": 7000, "Bob": 1200, "Cy": 1200, "Di": 1200}


def test_tycoon_tie_for_secondary_splits_secondary_and_tertiary():
    # 300: Ann b1 3000; Bob, Cy share b2 + b3: (2200 + 1500) / 2 = 1850 -> 1900 each
    assert tycoon({"Ann": 6, "Bob": 3, "Cy": 3, "Di": 1}, 300) == \
        {"Ann": 3000, "Bob": 1900, "Cy": 1900}


def test_tycoon_three_way_tie_for_secondary_shares_only_what_is_left():
    # 600: Ann b1 6000; Bob, Cy, Di share b2 + b3 (no b4): (4200 + 3000) / 3 = 2400 each
    assert tycoon({"Ann": 6, "Bob": 3, "Cy": 3, "Di": 3}, 600) == \
        {"Ann": 6000, "Bob": 2400, "Cy": 2400, "Di": 2400}


def test_tycoon_tie_for_tertiary_splits_tertiary():
    # 300: Ann b1 3000, Bob b2 2200, Cy and Di share b3: 1500 / 2 = 750 -> 800 each
    assert tycoon({"Ann": 6, "Bob": 4, "Cy": 2, "Di": 2}, 300) == \
        {"Ann": 3000, "Bob": 2200, "Cy": 800, "Di": 800}


def test_four_way_tie_for_first_with_only_two_bonuses():
    # classic 700: (7000 + 3500) / 4 = 2625 -> 2700 each
    assert classic({"Ann": 3, "Bob": 3, "Cy": 3, "Di": 3}, 700) == \
        {"Ann": 2700, "Bob": 2700, "Cy": 2700, "Di": 2700}
    # classic 1200: (12000 + 6000) / 4 = 4500 each, a fifth holder with fewer gets nothing
    assert classic({"Ann": 3, "Bob": 3, "Cy": 3, "Di": 3, "Ed": 1}, 1200) == \
        {"Ann": 4500, "Bob": 4500, "Cy": 4500, "Di": 4500}


def test_four_way_tie_tycoon_shares_all_three():
    # 600: (6000 + 4200 + 3000) / 4 = 3300 each
    assert tycoon({"Ann": 1, "Bob": 1, "Cy": 1, "Di": 1}, 600) == \
        {"Ann": 3300, "Bob": 3300, "Cy": 3300, "Di": 3300}


def test_rounding_unit_is_respected():
    # A unit of 1 (no rounding): 4500 / 2 = 2250 exactly; unit 1000: 2250 -> 3000
    assert share_bonuses({"A": 2, "B": 2}, (3000, 1500), sole=4500, rounding=1) == {"A": 2250, "B": 2250}
    assert share_bonuses({"A": 2, "B": 2}, (3000, 1500), sole=4500, rounding=1000) == {"A": 3000, "B": 3000}


# --- nobody, zero holders ------------------------------------------------------------------

def test_holders_with_zero_shares_are_ignored():
    # Bob 0 and Cy 0 would otherwise tie for second; Ann b1 6000, Di b2 3000
    assert classic({"Ann": 5, "Bob": 0, "Cy": 0, "Di": 1}, 600) == {"Ann": 6000, "Di": 3000}


def test_nobody_holds():
    assert classic({}, 600) == {}
    assert tycoon({"Ann": 0, "Bob": 0}, 600) == {}


def test_non_string_holders_work():
    # The engine may key holders by seat number; the market as a separate key.
    assert classic({0: 2, 1: 5, "market": 3}, 600) == {1: 6000, "market": 3000}
