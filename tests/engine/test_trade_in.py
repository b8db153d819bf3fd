"""Trade-to-buy (MEGAcquire GOLD and ACQUISITIONS, RULES.md section 2): the change rule.

A player short of cash for the shares they want may hand shares back at their
current price. Cash goes first; change = cash + value(traded) - cost must be
>= 0 and strictly less than the price of the cheapest traded share (else that
share is kept); the buy limit counts only the shares obtained. A refused trade
changes nothing.

The engine cases play from one MEGAcquire position, built by a table script
(money in M; odd-r hexes; every tile below touches only what is said):

    turn  player  tile  effect                        buys                         cash
    1     Ann     A-1   lone
    2     Bob     E-1   lone
    3     Ann     A-2   founds Regal (hotel 4M)       6 Regal @4 = 24              Ann 96
    4     Bob     E-2   founds Solon (corp. 3M: 6M)
    5     Ann     A-3   Regal 3 tiles (5M)            6 Regal @5 = 30              Ann 66
    6     Bob     E-3   Solon 3 tiles (8M)
    7     Ann     J-1   lone                          6 Solon @8 = 48              Ann 18
    8     Bob     E-4   Solon 4 tiles (10M)
    9     Ann     J-2   founds Luster (2M)            1 Solon @10 + 2 Luster @2    Ann 4
    10    Bob     L-10  lone
    11    Ann     N-1   lone
    12    Bob     L-11  founds Teton (2M)
    13    Ann     N-3   lone; Ann is to buy

Position: Ann 4M; Regal 13 (5M), Solon 7 (10M), Luster 3 (2M); Bob holds
Solon 1 and Teton 1. Bank: Regal 12, Solon 17, Luster 22, Teton 24.
"""

from __future__ import annotations

import itertools

import pytest

from tabletop import IllegalAction, load_rules
from tabletop.engine.trade_in import change_after_trade, suggest_trade_in
from table_script import Table as ScriptTable

RULES = load_rules("megacquire-gold")
GEO = RULES.geometry
ANN, BOB = "Ann", "Bob"


class Table(ScriptTable):
    rules = "megacquire-gold"

    def turn(self, tile, found=None, buy=None):
        who = self.state()["pending"]["player"]
        self.do("place", tile=tile, player=who)
        if found is not None:
            self.do("found", chain=found, player=who)
        self.do("buy", shares=buy or {}, player=who)

    def bank(self):
        return {name: chain["bank_shares"] for name, chain in self.state()["chains"].items()}


def near(label):
    return {GEO.labels[c] for c in GEO.neighbours[GEO.parse(label)]}


def of(events, kind):
    return [event for event in events if event["event"] == kind]


def position():
    t = Table([ANN, BOB], {ANN: "A-5", BOB: "N-5"})
    t.turn("A-1")
    t.turn("E-1")
    t.turn("A-2", found="Regal", buy={"Regal": 6})
    t.turn("E-2", found="Solon")
    t.turn("A-3", buy={"Regal": 6})
    t.turn("E-3")
    t.turn("J-1", buy={"Solon": 6})
    t.turn("E-4")
    t.turn("J-2", found="Luster", buy={"Solon": 1, "Luster": 2})
    t.turn("L-10")
    t.turn("N-1")
    t.turn("L-11", found="Teton")
    t.do("place", tile="N-3", player=ANN)
    return t


def test_position():
    placed = ["A-1", "A-2", "A-3", "E-1", "E-2", "E-3", "E-4", "J-1", "J-2", "L-10", "L-11",
              "N-1", "N-3"]
    groups = [{"A-1", "A-2", "A-3"}, {"E-1", "E-2", "E-3", "E-4"}, {"J-1", "J-2"},
              {"L-10", "L-11"}, {"N-1"}, {"N-3"}]
    for group in groups:  # tiles of different groups never touch
        for cell in group:
            assert near(cell) & set(placed) <= group
    t = position()
    st = t.state()
    assert st["pending"] == {"kind": "buy", "player": ANN, "limit": 6, "trade_in": True}
    assert {n: (c["size"], c["price"]) for n, c in st["chains"].items()} == {
        "Luster": (2, 2), "Teton": (2, 2), "Regal": (3, 5), "Solon": (4, 10)}
    assert t.player(ANN) == {"name": ANN, "cash": 4,
                             "shares": {"Luster": 3, "Regal": 13, "Solon": 7}}
    assert t.player(BOB) == {"name": BOB, "cash": 120, "shares": {"Solon": 1, "Teton": 1}}
    assert t.bank() == {"Luster": 22, "Teton": 24, "Regal": 12, "Solon": 17}


# --------------------------------------------------------------------------
# accepted trades
# --------------------------------------------------------------------------

def test_rulebook_example_six_regal_for_three_solon():
    # "Regal ... 3 tiles, 5M each ... 3 shares of Solon that has 4 tiles or 10M
    # ... trade 6 shares of Regal for 3 shares of Solon."
    t = position()
    events = t.do("buy", shares={"Solon": 3}, trade_in={"Regal": 6}, player=ANN)
    assert of(events, "traded_in") == [{"event": "traded_in", "player": ANN, "chain": "Regal",
                                        "shares": 6, "cash": 30}]
    assert of(events, "bought") == [{"event": "bought", "player": ANN, "cost": 30,
                                     "shares": {"Solon": 3}}]
    # Cash 4 < 30: 4 + 30 - 30 = 4 of change, less than a Regal share: Ann keeps 4M.
    assert t.player(ANN) == {"name": ANN, "cash": 4,
                             "shares": {"Luster": 3, "Regal": 7, "Solon": 10}}
    assert t.bank() == {"Luster": 22, "Teton": 24, "Regal": 18, "Solon": 14}
    assert t.state()["pending"] == {"kind": "place", "player": BOB}
    t.replayed()


def test_exact_trade_then_change_paid_by_the_bank():
    t = position()
    # 3 Solon + 2 Luster = 34M; 4M cash + 6 Regal (30M) = 34M: change 0.
    t.do("buy", shares={"Solon": 3, "Luster": 2}, trade_in={"Regal": 6}, player=ANN)
    assert t.player(ANN)["cash"] == 0
    assert t.player(ANN)["shares"] == {"Luster": 5, "Regal": 7, "Solon": 10}
    t.turn("L-1")  # Bob
    t.do("place", tile="N-5", player=ANN)
    # 4 Luster = 8M with no cash: 3 Regal raise 15, change 7 >= a Regal share (5): refused.
    t.refused("buy", match="keep that share", shares={"Luster": 4}, trade_in={"Regal": 3},
              player=ANN)
    # The same trade without that share: 2 Regal raise 10, change 2 < 5 is paid.
    events = t.do("buy", shares={"Luster": 4}, trade_in={"Regal": 2}, player=ANN)
    assert of(events, "traded_in")[0]["cash"] == 10 and of(events, "bought")[0]["cost"] == 8
    assert t.player(ANN) == {"name": ANN, "cash": 2,
                             "shares": {"Luster": 9, "Regal": 5, "Solon": 10}}
    t.replayed()


def test_change_larger_than_a_traded_share_is_refused_and_the_share_kept():
    t = position()
    # 3 Solon = 30M; 7 Regal raise 35: change 4 + 35 - 30 = 9 >= 5.
    message = t.refused("buy", match="keep that share", shares={"Solon": 3},
                        trade_in={"Regal": 7}, player=ANN)
    assert "Regal" in message
    t.do("buy", shares={"Solon": 3}, trade_in={"Regal": 6}, player=ANN)
    assert t.player(ANN)["shares"]["Regal"] == 7 and t.player(ANN)["cash"] == 4


def test_change_equal_to_a_traded_share_is_refused():
    t = position()
    # 3 Solon + 2 Luster = 34M; 7 Regal raise 35: change 4 + 35 - 34 = 5, one Regal share.
    t.refused("buy", match="keep that share", shares={"Solon": 3, "Luster": 2},
              trade_in={"Regal": 7}, player=ANN)


def test_the_cheapest_traded_share_sets_the_change_limit():
    t = position()
    # 3 Solon = 30M; 5 Regal + 2 Luster raise 29: change 3, under a Regal (5) but not
    # under a Luster (2): the second Luster was not needed.
    t.refused("buy", match="Luster", shares={"Solon": 3}, trade_in={"Regal": 5, "Luster": 2},
              player=ANN)
    events = t.do("buy", shares={"Solon": 3}, trade_in={"Regal": 5, "Luster": 1}, player=ANN)
    assert sorted((e["chain"], e["shares"], e["cash"]) for e in of(events, "traded_in")) == [
        ("Luster", 1, 2), ("Regal", 5, 25)]
    # 4 + 27 - 30 = 1
    assert t.player(ANN) == {"name": ANN, "cash": 1,
                             "shares": {"Luster": 2, "Regal": 8, "Solon": 10}}
    assert t.bank() == {"Luster": 23, "Teton": 24, "Regal": 17, "Solon": 14}


def test_trading_eight_to_obtain_six_is_within_the_limit():
    t = position()
    # 4 Solon + 2 Luster = 44M; 4M + 8 Regal (40M) = 44M.
    events = t.do("buy", shares={"Solon": 4, "Luster": 2}, trade_in={"Regal": 8}, player=ANN)
    assert of(events, "bought")[0]["shares"] == {"Solon": 4, "Luster": 2}
    assert t.player(ANN) == {"name": ANN, "cash": 0,
                             "shares": {"Luster": 5, "Regal": 5, "Solon": 11}}


def test_obtaining_seven_is_refused_however_the_trade_adds_up():
    t = position()
    # 4 Solon + 3 Luster = 46M; 4M + 9 Regal (45M) leaves 3 of change: fine but for the limit.
    t.refused("buy", match="at most 6", shares={"Solon": 4, "Luster": 3}, trade_in={"Regal": 9},
              player=ANN)


# --------------------------------------------------------------------------
# refused trades
# --------------------------------------------------------------------------

def test_no_trade_when_cash_suffices():
    t = position()
    # 2 Luster = 4M, exactly Ann's cash.
    t.refused("buy", match="only when cash is short", shares={"Luster": 2},
              trade_in={"Regal": 1}, player=ANN)
    t.refused("buy", match="only when cash is short", shares={"Teton": 1},
              trade_in={"Regal": 1}, player=ANN)
    # Without the trade, the purchase itself is fine.
    t.do("buy", shares={"Luster": 2}, player=ANN)
    assert t.player(ANN)["cash"] == 0


def test_trade_that_does_not_raise_enough_is_refused():
    t = position()
    # 6 Solon = 60M; 4M + 10 Regal (50M) = 54M.
    t.refused("buy", match="do not pay", shares={"Solon": 6}, trade_in={"Regal": 10}, player=ANN)
    # Short of cash and no trade at all.
    t.refused("buy", match="trade_in", shares={"Solon": 1}, player=ANN)


def test_trade_of_the_chain_being_bought_is_refused():
    t = position()
    t.refused("buy", match="cannot be traded in to buy", shares={"Regal": 3},
              trade_in={"Regal": 3}, player=ANN)


def test_trade_of_shares_not_held_is_refused():
    t = position()
    # 1 Solon = 10M = 4M + 3 Teton (6M) would be exact, but Ann holds no Teton.
    t.refused("buy", match="holds 0 Teton", shares={"Solon": 1}, trade_in={"Teton": 3},
              player=ANN)
    # 1 Solon + 1 Teton = 12M = 4M + 4 Luster (8M), but Ann holds 3 Luster.
    t.refused("buy", match="holds 3 Luster", shares={"Solon": 1, "Teton": 1},
              trade_in={"Luster": 4}, player=ANN)


def test_trade_of_a_chain_not_on_the_board_is_refused():
    t = position()
    t.refused("buy", match="not on the board", shares={"Solon": 1}, trade_in={"Krause": 2},
              player=ANN)
    t.refused("buy", shares={"Solon": 1}, trade_in={"Nowhere": 2}, player=ANN)


def test_trade_only_on_the_buyer_s_own_buy():
    t = position()
    t.refused("buy", shares={"Solon": 1}, trade_in={"Solon": 1}, player=BOB)


def test_acquire_has_no_trade_to_buy():
    t = Table([ANN, BOB, "Cy"], {ANN: "1I", BOB: "12A", "Cy": "12I"}, rules="acquire")
    t.do("place", tile="5E")
    t.refused("buy", match="no trade-to-buy", shares={}, trade_in={"Tower": 1})


# --------------------------------------------------------------------------
# tabletop.engine.trade_in, unit by unit
# --------------------------------------------------------------------------

def test_change_after_trade_cases():
    regal = (6, 5)
    assert change_after_trade(0, 30, {"Regal": regal}) == 0          # exact
    assert change_after_trade(4, 30, {"Regal": regal}) == 4          # small change
    assert change_after_trade(0, 8, {"Regal": (2, 5)}) == 2          # change paid by the bank
    assert change_after_trade(0, 3000, {"Solon Clan": (6, 500)}) == 0  # ACQUISITIONS' example
    assert change_after_trade(400, 3000, {"Solon Clan": (6, 500)}) == 400
    assert change_after_trade(0, 11, {"Regal": (2, 5), "Luster": (1, 2)}) == 1
    # No shares traded: a plain purchase.
    assert change_after_trade(10, 4, {}) == 6
    assert change_after_trade(10, 4, {"Regal": (0, 5)}) == 6


@pytest.mark.parametrize("cash, cost, traded, reason", [
    (0, 30, {"Regal": (7, 5)}, "keep that share"),                   # change 5 == one share
    (0, 30, {"Regal": (8, 5)}, "keep that share"),                   # change 10 > one share
    (0, 30, {"Regal": (6, 5), "Luster": (1, 2)}, "keep that share"),  # 2 == a Luster
    (30, 30, {"Regal": (1, 5)}, "only when cash is short"),
    (31, 30, {"Regal": (1, 5)}, "only when cash is short"),
    (0, 30, {"Regal": (5, 5)}, "do not pay"),
    (4, 30, {"Regal": (5, 5)}, "do not pay"),
    (3, 4, {}, "more than"),
])
def test_change_after_trade_refusals(cash, cost, traded, reason):
    with pytest.raises(IllegalAction, match=reason):
        change_after_trade(cash, cost, traded)


def test_suggest_trade_in():
    assert suggest_trade_in(26, {"Regal": (6, 5), "Luster": (3, 2)}) == {"Regal": 6}
    assert suggest_trade_in(0, {"Regal": (6, 5)}) == {}
    assert suggest_trade_in(-3, {"Regal": (6, 5)}) == {}
    assert suggest_trade_in(31, {"Regal": (6, 5)}) is None
    assert suggest_trade_in(31, {}) is None
    # Dearest first: one Solon, then Regal for the rest.
    assert suggest_trade_in(13, {"Solon": (1, 10), "Regal": (5, 5)}) == {"Solon": 1, "Regal": 1}
    assert suggest_trade_in(2600, {"Solon Clan": (6, 500)}) == {"Solon Clan": 6}


def test_suggestions_always_obey_the_change_rule():
    held_options = [
        {"Regal": (6, 5), "Luster": (3, 2)},
        {"Solon": (2, 10), "Regal": (4, 5), "Luster": (5, 2)},
        {"Quasar": (3, 24), "Teton": (9, 3)},
    ]
    for held, cash, cost in itertools.product(held_options, range(6), range(1, 80)):
        if cash >= cost:
            continue
        suggestion = suggest_trade_in(cost - cash, held)
        raised = sum(count * price for count, price in held.values())
        if suggestion is None:
            assert cash + raised < cost
            continue
        assert all(suggestion[name] <= held[name][0] for name in suggestion)
        traded = {name: (count, held[name][1]) for name, count in suggestion.items()}
        change = change_after_trade(cash, cost, traded)
        assert 0 <= change < min(price for _, price in traded.values())


def test_trade_with_nothing_to_buy_is_refused():
    t = position()
    t.refused("buy", match="only when cash is short", shares={}, trade_in={"Regal": 1},
              player=ANN)


def test_undo_takes_a_trade_back_whole():
    t = position()
    before = t.state()
    t.do("buy", shares={"Solon": 3}, trade_in={"Regal": 6}, player=ANN)
    assert t.state() != before
    events = t.do("undo")
    assert events[0]["event"] == "undone"
    assert events[0]["action"] == {"do": "buy", "player": ANN, "shares": {"Solon": 3},
                                   "trade_in": {"Regal": 6}}
    assert t.state() == before
