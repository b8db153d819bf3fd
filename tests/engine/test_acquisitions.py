"""ACQUISITIONS (seed 002, RULES.md section 3): behaviour tests as a table would check them.

Every game here is a table script (DESIGN.md "Table scripts") built line by
line: each line is played on a live game exactly as ``tabletop.engine.table_script.replay``
plays it, refused lines must leave the state JSON identical, and the finished
script is replayed from scratch to give the same state.

Reference numbers (rules/acquisitions.toml), money in pounds:

    castles          2    3    4    5   6-10 11-20 21-30 31-40 41+
    bronze (Lions Head, White Crest)
                   200  300  400  500  600  700   800   900  1000
    silver (Blue/Green/Purple Crest)
                   300  400  500  600  700  800   900  1000  1100
    gold (Solon Clan, Red Crest)
                   400  500  600  700  800  900  1000  1100  1200
    cards: gold 23, silver 28, bronze 35; King/Queen 10x, Prince/Princess 5x,
    split compensations rounded up to 100; 6000 each; 3 cards a turn; safe at 11.

The board: four quadrants of rows A..E x columns 1..6 forming one 10 x 12
odd-r hex grid, connected across quadrant borders. ``at(row, col)`` gives the
``Q/L`` label of a hex of that grid (0-based); every label a test relies on is
also written out by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tabletop import load_rules, replay, state_json
from table_script import Table as ScriptTable

RULES = load_rules("acquisitions")
GEO = RULES.geometry
SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


class Table(ScriptTable):
    rules = "acquisitions"


def at(row, col):
    return GEO.labels[row * GEO.columns + col]


def near(label, geometry=GEO):
    return {geometry.labels[c] for c in geometry.neighbours[geometry.parse(label)]}


def kinds(events):
    return [event["event"] for event in events]


def of(events, kind):
    return [event for event in events if event["event"] == kind]


ANN, BOB, CY, DEE = "Ann", "Bob", "Cy", "Dee"


def test_reference_numbers():
    assert [(k.name, k.shares) for k in RULES.chains] == [
        ("Solon Clan", 23), ("Red Crest", 23), ("Blue Crest", 28), ("Green Crest", 28),
        ("Purple Crest", 28), ("Lions Head", 35), ("White Crest", 35)]
    t = Table([ANN, BOB], {ANN: "A-1", BOB: "A-2"})
    st = t.state()
    assert st["board"] == {} and st["tiles_left"] == 120 - 2 * 6
    assert t.cash() == {ANN: 6000, BOB: 6000}
    assert GEO.rows == 10 and GEO.columns == 12
    assert [at(0, 0), at(0, 11), at(9, 11), at(9, 0), at(5, 5), at(4, 6)] == [
        "1/A-1", "2/A-6", "4/E-6", "3/E-1", "3/A-6", "2/E-1"]


# --------------------------------------------------------------------------
# 2. The rulebook's trade: six Solon Clan cards (3 castles, 500) for three
#    Lions Head cards (41+ castles, 1000)
# --------------------------------------------------------------------------
# Lions Head fills the top rows of quadrants 1 and 2 (global rows 0-3, 43
# castles); Solon Clan is 3/A-1..3/A-3 (global row 5); row 4 stays empty.
#
#   turn   player  castle   effect                 Ann buys                 Ann's cash
#   1      Ann     3/A-1    lone
#   2      Bob     1/A-1    lone
#   3      Ann     3/A-2    founds Solon Clan      3 Solon @400 = 1200      4800
#   4      Bob     1/A-2    founds Lions Head
#   5      Ann     3/A-3    Solon 3 castles        2 Solon @500 = 1000      3800
#   6-8    (region)         Lions Head 3..5
#   9      Ann     (LH)     Lions Head 6           3 LH @600 = 1800         2000
#   10-44  (region)         Lions Head 7..41
#   45     Ann     (LH)     Lions Head 42          2 LH @1000 = 2000        0
#   46     Bob     (LH)     Lions Head 43
#   47     Ann     4/E-6    lone                   3 LH for 6 Solon          0

LIONS_HEAD = [at(row, col) for row in range(4) for col in range(12)][:43]
SOLON = ["3/A-1", "3/A-2", "3/A-3"]


def trade_game(lions_head_buys):
    """Turns 1-47 above; Ann's Lions Head purchases by the index of the castle she places."""
    t = Table([ANN, BOB], {ANN: "B-3", BOB: "E-6"})
    lh = LIONS_HEAD
    t.turn("3/A-1")
    t.turn(lh[0])
    t.turn("3/A-2", found="Solon Clan", buy={"Solon Clan": 3})
    t.turn(lh[1], found="Lions Head")
    t.turn("3/A-3", buy={"Solon Clan": 2})
    done = 2
    for index in sorted(lions_head_buys):
        t.region(lh[done:index], "Lions Head")  # the helper: grow, rotate, buy nothing
        assert t.pending() == ("place", ANN)
        t.turn(lh[index], buy={"Lions Head": lions_head_buys[index]})
        done = index + 1
    t.region(lh[done:], "Lions Head")
    t.do("place", tile="4/E-6", player=ANN)
    return t


def test_trade_example_layout():
    assert LIONS_HEAD[:2] == ["1/A-1", "1/A-2"] and LIONS_HEAD[12] == "1/B-1"
    assert LIONS_HEAD[-1] == "2/D-1" and len(set(LIONS_HEAD)) == 43
    assert not any(near(cell) & set(SOLON) for cell in LIONS_HEAD)
    assert near("3/A-2") & set(SOLON) == {"3/A-1", "3/A-3"}


def test_rulebook_trade_six_solon_clan_for_three_lions_head():
    # lh[5]: Lions Head 6 castles, 3 @600; lh[41]: 42 castles, 2 @1000.
    t = trade_game({5: 3, 41: 2})
    st = t.state()
    assert st["turn"] == 47 and t.pending() == ("buy", ANN)
    assert st["chains"]["Solon Clan"] == {"size": 3, "price": 500, "safe": False,
                                          "bank_shares": 23 - 1 - 3 - 2, "bonuses": [5000, 2500]}
    assert st["chains"]["Lions Head"] == {"size": 43, "price": 1000, "safe": True,
                                          "bank_shares": 35 - 1 - 3 - 2,
                                          "bonuses": [10000, 5000]}
    assert t.cash() == {ANN: 0, BOB: 6000}
    assert t.shares(ANN) == {"Solon Clan": 6, "Lions Head": 5}
    assert t.shares(BOB) == {"Lions Head": 1}

    # Refused first, each leaving everything as it was:
    t.refused("buy", match="at most 3", shares={"Lions Head": 4}, trade_in={"Solon Clan": 6},
              player=ANN)
    # two cards for 2000 with five Solon (2500): 500 of change is a whole Solon card
    t.refused("buy", match="keep that share", shares={"Lions Head": 2},
              trade_in={"Solon Clan": 5}, player=ANN)
    t.refused("buy", match="do not pay", shares={"Lions Head": 3}, trade_in={"Solon Clan": 5},
              player=ANN)
    t.refused("buy", match="holds 6", shares={"Lions Head": 3}, trade_in={"Solon Clan": 7},
              player=ANN)
    t.refused("buy", match="cannot be traded in", shares={"Lions Head": 3},
              trade_in={"Lions Head": 3, "Solon Clan": 6}, player=ANN)

    events = t.do("buy", shares={"Lions Head": 3}, trade_in={"Solon Clan": 6}, player=ANN)
    assert of(events, "traded_in") == [{"event": "traded_in", "player": ANN,
                                        "chain": "Solon Clan", "shares": 6, "cash": 3000}]
    assert of(events, "bought") == [{"event": "bought", "player": ANN, "cost": 3000,
                                     "shares": {"Lions Head": 3}}]
    st = t.replayed()
    assert t.cash() == {ANN: 0, BOB: 6000}
    assert t.shares(ANN) == {"Lions Head": 8}
    assert st["chains"]["Solon Clan"]["bank_shares"] == 23
    assert st["chains"]["Lions Head"]["bank_shares"] == 26
    assert t.pending() == ("place", BOB)
    # scenarios/acq_trade_example.jsonl is this very script (`tabletop replay` it to watch).
    stored = (SCENARIOS / "acq_trade_example.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in stored] == [json.loads(line) for line in t.lines]


def test_trade_with_change_of_less_than_one_card():
    # As above, but Ann's two cards at turn 25 cost 800 (Lions Head 22 castles): 400 left.
    t = trade_game({5: 3, 21: 2})
    assert t.cash()[ANN] == 3800 - 1800 - 1600 == 400
    assert t.chain("Lions Head")["price"] == 1000 and t.chain("Solon Clan")["price"] == 500
    # 400 + five Solon (2500) do not pay for 3000.
    t.refused("buy", match="do not pay", shares={"Lions Head": 3}, trade_in={"Solon Clan": 5},
              player=ANN)
    # 400 + six Solon (3000) - 3000 = 400 of change, less than a Solon card: paid.
    t.do("buy", shares={"Lions Head": 3}, trade_in={"Solon Clan": 6}, player=ANN)
    assert t.cash()[ANN] == 400 and t.shares(ANN) == {"Lions Head": 8}
    t.replayed()


# --------------------------------------------------------------------------
# 4. A three-way takeover across three quadrants
# --------------------------------------------------------------------------
# 3/A-6 touches 3/A-5 (Lions Head 3/A-4..3/A-5, 2 castles, 200), 2/E-1 (Blue
# Crest 2/E-1..2/E-3, 3 castles, 400) and 4/B-1 (Solon Clan 4/B-1..4/B-4,
# 4 castles, 600). Cy makes the takeover.
#
#   turn  player  castle  effect                     buys                          cash
#   1     Ann     3/A-5   lone
#   2     Bob     3/A-4   founds Lions Head (Bob 1)
#   3     Cy      2/E-1   lone                       3 LH @200 = 600               Cy 5400
#   4     Dee     2/E-2   founds Blue Crest (Dee 1)  1 LH @200                     Dee 5800
#   5     Ann     2/E-3   Blue 3                     3 LH @200 = 600               Ann 5400
#   6     Bob     4/B-1   lone                       3 Blue @400 = 1200            Bob 4800
#   7     Cy      4/B-2   founds Solon Clan (Cy 1)
#   8     Dee     4/B-3   Solon 3                    1 Blue @400                   Dee 5400
#   9     Ann     4/B-4   Solon 4                    2 Blue @400 = 800             Ann 4600
#   10    Bob     1/A-1   lone                       1 Blue @400                   Bob 4400
#   11    Cy      3/A-6   takeover
#
# Lions Head first (smallest): Ann 3, Cy 3, Bob 1, Dee 1: (2000 + 1000) / 2 =
#   1500 each to Ann and Cy. Disposal: the largest holders first, ties to the
#   first on the mergemaker's left (Dee, Ann, Bob, Cy): Ann, Cy, Dee, Bob.
# Blue Crest: Bob 4 -> 4000; Dee 2, Ann 2 split 2000 -> 1000 each. Bob, Dee, Ann.
# Solon Clan: 4 + 2 + 3 + 1 = 10 castles, 800.


def test_three_way_takeover_hexes():
    assert near("3/A-6") == {"1/E-6", "2/E-1", "3/A-5", "4/A-1", "3/B-6", "4/B-1"}
    lh, blue, solon = {"3/A-4", "3/A-5"}, {"2/E-1", "2/E-2", "2/E-3"}, {
        "4/B-1", "4/B-2", "4/B-3", "4/B-4"}
    for a, b in [(lh, blue), (lh, solon), (blue, solon)]:
        assert not any(near(x) & b for x in a)
    assert near("1/A-1") & (lh | blue | solon) == set()


def test_three_way_takeover_smallest_first_largest_holder_first():
    t = Table([ANN, BOB, CY, DEE], {ANN: "A-1", BOB: "B-1", CY: "C-1", DEE: "D-1"})
    t.turn("3/A-5")
    t.turn("3/A-4", found="Lions Head")
    t.turn("2/E-1", buy={"Lions Head": 3})
    t.turn("2/E-2", found="Blue Crest", buy={"Lions Head": 1})
    t.turn("2/E-3", buy={"Lions Head": 3})
    t.turn("4/B-1", buy={"Blue Crest": 3})
    t.turn("4/B-2", found="Solon Clan")
    t.turn("4/B-3", buy={"Blue Crest": 1})
    t.turn("4/B-4", buy={"Blue Crest": 2})
    t.turn("1/A-1", buy={"Blue Crest": 1})
    st = t.state()
    assert {n: (c["size"], c["price"]) for n, c in st["chains"].items()} == {
        "Solon Clan": (4, 600), "Blue Crest": (3, 400), "Lions Head": (2, 200)}
    assert t.cash() == {ANN: 4600, BOB: 4400, CY: 5400, DEE: 5400}

    events = t.do("place", tile="3/A-6", player=CY)
    assert of(events, "merger") == [{"event": "merger", "survivor": "Solon Clan",
                                     "defunct": ["Blue Crest", "Lions Head"],
                                     "sizes": {"Solon Clan": 4, "Blue Crest": 3,
                                               "Lions Head": 2}}]
    assert {(e["chain"], e["player"]): e["amount"] for e in of(events, "bonus")} == {
        ("Lions Head", ANN): 1500, ("Lions Head", CY): 1500}
    order = []
    for player, sell in [(ANN, 3), (CY, 0), (DEE, 1), (BOB, 1)]:
        pending = t.state()["pending"]
        assert (pending["kind"], pending["chain"], pending["price"]) == ("dispose", "Lions Head", 200)
        order.append(pending["player"])
        t.do("dispose", player=player, sell=sell)
    assert order == [ANN, CY, DEE, BOB]
    assert {(e["chain"], e["player"]): e["amount"] for e in of(t.events, "bonus")} == {
        ("Blue Crest", BOB): 4000, ("Blue Crest", DEE): 1000, ("Blue Crest", ANN): 1000}
    order = []
    for player, sell in [(BOB, 4), (DEE, 2), (ANN, 0)]:
        pending = t.state()["pending"]
        assert (pending["kind"], pending["chain"], pending["price"]) == ("dispose", "Blue Crest", 400)
        assert pending["trade_max"] == 0
        order.append(pending["player"])
        if player == BOB:
            t.refused("dispose", match="no trading", player=BOB, sell=2, trade=2)
        t.do("dispose", player=player, sell=sell)
    assert order == [BOB, DEE, ANN]

    st = t.state()
    assert t.pending() == ("buy", CY) and set(st["chains"]) == {"Solon Clan"}
    assert st["chains"]["Solon Clan"]["size"] == 10 and st["chains"]["Solon Clan"]["price"] == 800
    t.do("buy", shares={"Solon Clan": 2}, player=CY)
    st = t.replayed()
    assert t.cash() == {
        ANN: 4600 + 1500 + 3 * 200 + 1000,  # 7700, keeps 2 Blue Crest
        BOB: 4400 + 200 + 4000 + 4 * 400,   # 10200
        CY: 5400 + 1500 - 2 * 800,          # 5300, keeps 3 Lions Head
        DEE: 5400 + 200 + 1000 + 2 * 400,   # 7400
    }
    assert [p["shares"] for p in st["players"]] == [
        {"Blue Crest": 2}, {}, {"Solon Clan": 3, "Lions Head": 3}, {}]
    assert t.bank("Lions Head") == 35 - 8 + 5 == 32
    assert t.bank("Blue Crest") == 28 - 8 + 6 == 26
    assert st["chains"]["Solon Clan"]["bank_shares"] == 23 - 1 - 2 == 20
    assert sorted(c for c, k in st["board"].items() if k == "Solon Clan") == sorted(
        ["3/A-4", "3/A-5", "3/A-6", "2/E-1", "2/E-2", "2/E-3",
         "4/B-1", "4/B-2", "4/B-3", "4/B-4"])


# --------------------------------------------------------------------------
# 5. A dead card: a small castle turned over on the hex the player names
# --------------------------------------------------------------------------
# Lions Head: 3/C-6..3/C-1, 3/D-1..3/D-5 (11 castles, safe).
# Blue Crest: 4/B-2..4/B-6, 4/A-6..4/A-2, 2/E-6 (11 castles, safe).
# 4/C-1 touches 3/C-6 (across the quadrant border) and 4/B-2: it would join
# two safe kingdoms. Card C-1's other hexes: 3/C-1 (Lions Head), 1/C-1 and
# 2/C-1 (free and harmless until castles are put there).

LH_11 = [f"3/C-{c}" for c in range(6, 0, -1)] + [f"3/D-{c}" for c in range(1, 6)]
BLUE_11 = ([f"4/B-{c}" for c in range(2, 7)] + [f"4/A-{c}" for c in range(6, 1, -1)]
           + ["2/E-6"])


def test_dead_card_layout():
    assert LH_11 == [at(7, c) for c in range(5, -1, -1)] + [at(8, c) for c in range(5)]
    assert BLUE_11 == ([at(6, c) for c in range(7, 12)] + [at(5, c) for c in range(11, 6, -1)]
                       + [at(4, 11)])
    assert not any(near(cell) & set(BLUE_11) for cell in LH_11)
    assert near("4/C-1") == {"4/B-1", "4/B-2", "3/C-6", "4/C-2", "4/D-1", "4/D-2"}
    assert near("4/C-1") & set(LH_11) == {"3/C-6"} and near("4/C-1") & set(BLUE_11) == {"4/B-2"}
    assert near("4/D-2") & set(LH_11 + BLUE_11) == set()
    assert [GEO.labels[c] for c in GEO.cells_of[GEO.parse_tile("C-1")]] == [
        "1/C-1", "2/C-1", "3/C-1", "4/C-1"]


def test_dead_card_turned_over_on_its_hex():
    t = Table([ANN, BOB, CY], {ANN: "A-1", BOB: "A-2", CY: "A-3"})
    t.region(LH_11, "Lions Head")
    t.region(BLUE_11, "Blue Crest")
    st = t.state()
    assert {n: (c["size"], c["safe"]) for n, c in st["chains"].items()} == {
        "Blue Crest": (11, True), "Lions Head": (11, True)}
    assert t.pending() == ("place", BOB)  # turn 23
    t.refused("place", match="dead", tile="4/C-1", player=BOB)
    # Card C-1 is not dead while 1/C-1 and 2/C-1 may take a castle.
    t.refused("dead", match="not dead", tile="4/C-1", player=CY)
    t.turn("1/C-1")  # Bob: lone
    t.turn("2/C-1")  # Cy: lone
    assert t.board()["1/C-1"] is None and t.board()["2/C-1"] is None
    # A card alone does not say which hex: the dead line names it as Q/L.
    t.refused("dead", match="Q/L", tile="C-1", player=BOB)
    t.refused("dead", tile="1/C-1", player=BOB)  # that hex already holds a castle
    left = t.state()["tiles_left"]
    events = t.do("dead", tile="4/C-1", player=BOB)  # out of turn: Ann is to place
    assert events == [{"event": "dead", "player": BOB, "tile": "4/C-1"}]
    st = t.state()
    assert st["board"]["4/C-1"] == "dead" and st["dead_tiles"] == ["4/C-1"]
    assert st["tiles_left"] == left - 1 and t.pending() == ("place", ANN)
    t.refused("place", match="already on the board", tile="4/C-1", player=ANN)
    # 4/D-2 touches only the upturned castle: Kingdomless.
    events = t.do("place", tile="4/D-2", player=ANN)
    assert kinds(events) == ["placed"] and t.pending() == ("buy", ANN)
    t.do("buy", shares={}, player=ANN)
    # 4/E-2 touches 4/D-2: a kingdom of two; the upturned castle joins nothing.
    assert "4/D-2" in near("4/E-2")
    t.turn("4/E-2", found="White Crest")
    st = t.replayed()
    assert st["chains"]["White Crest"]["size"] == 2
    assert st["chains"]["Lions Head"]["size"] == 11 and st["chains"]["Blue Crest"]["size"] == 11
    assert st["board"]["4/C-1"] == "dead"


def test_place_names_the_hex_not_the_card():
    t = Table([ANN, BOB], {ANN: "A-1", BOB: "A-2"})
    message = t.refused("place", match="Q/L", tile="C-4", player=ANN)
    assert "3/C-4" in message
    t.do("place", tile="3/c4", player=ANN)  # read leniently, shown canonically
    assert t.board() == {"3/C-4": None}


# --------------------------------------------------------------------------
# 7. The end and territory: tests/engine/test_acquisitions_territory.py
# --------------------------------------------------------------------------

# --------------------------------------------------------------------------
# 8. Ending by agreement completes the round
# --------------------------------------------------------------------------
# Bob starts (A-6 is closer to A-1 than B-1 and B-2); the round is Bob, Cy,
# Ann. Cy agrees to end on turn 2; Ann, the last of the round, plays turn 3
# and the game ends. No kingdom is on the board when Cy tries to declare the
# end; White Crest's two castles enclose nothing.

def test_agreed_end_completes_the_round():
    t = Table([ANN, BOB, CY], {ANN: "B-2", BOB: "A-6", CY: "B-1"})
    assert t.pending() == ("place", BOB)
    t.turn("4/E-6")
    t.do("place", tile="1/A-1", player=CY)
    message = t.refused("end", match="may not be declared", player=CY)
    assert message == "the end may not be declared yet: no chain is on the board"
    events = t.do("end", agreed=True, player=CY)
    assert events == [{"event": "end_declared", "player": CY, "agreed": True}]
    t.do("buy", shares={}, player=CY)
    assert t.pending() == ("place", ANN) and t.state()["standings"] is None
    t.do("place", tile="1/A-2", player=ANN)
    t.do("found", chain="White Crest", player=ANN)
    t.do("buy", shares={"White Crest": 2}, player=ANN)
    st = t.replayed()
    assert st["pending"] is None
    assert st["chains"]["White Crest"]["territory"] == 0
    # White Crest 2 castles (200): Ann the sole holder, 2000 + 1000; 3 cards sold at 200.
    assert st["standings"] == [
        {"name": ANN, "cash": 6000 - 400 + 3000 + 600, "rank": 1},
        {"name": BOB, "cash": 6000, "rank": 2},
        {"name": CY, "cash": 6000, "rank": 2}]
    t.refused("place", match="over", tile="1/A-3", player=BOB)


# --------------------------------------------------------------------------
# 9. Parity and the quadrant borders
# --------------------------------------------------------------------------

@pytest.mark.parametrize("options, founds", [
    ({}, True), ({"hex_offset": "even-r"}, False)])
def test_parity_decides_founding(options, founds):
    t = Table([ANN, BOB], {ANN: "A-1", BOB: "A-2"}, options)
    geometry = RULES.geometry_for(options)
    assert ("1/A-5" in near("1/B-4", geometry)) is founds
    t.turn("1/B-4")
    t.do("place", tile="1/A-5", player=BOB)
    assert t.pending() == (("found" if founds else "buy"), BOB)


@pytest.mark.parametrize("options, founds", [
    ({}, True), ({"quadrants_connect": False}, False)])
def test_quadrants_connect_across_borders(options, founds):
    # 1/E-6 and 3/A-6 are one above the other across the border of quadrants 1 and 3.
    t = Table([ANN, BOB], {ANN: "A-1", BOB: "A-2"}, options)
    t.turn("1/E-6")
    t.do("place", tile="3/A-6", player=BOB)
    assert t.pending() == (("found" if founds else "buy"), BOB)


# --------------------------------------------------------------------------
# 10. Who starts: closest to A-1, letter first; ties for first draw again
# --------------------------------------------------------------------------

def setup_result(start_tiles, players=(ANN, BOB, CY)):
    return replay([json.dumps({"setup": {"rules": "acquisitions", "players": list(players),
                                         "start_tiles": start_tiles}})])


def test_a6_beats_b1():
    t = Table([ANN, BOB], {ANN: "B-1", BOB: "A-6"})
    assert t.pending() == ("place", BOB)
    assert t.board() == {} and t.state()["tiles_left"] == 120 - 12


def test_equal_start_cards_tying_for_first_are_refused():
    result = setup_result({ANN: "C-4", BOB: "C-4", CY: "D-1"})
    assert result.game is None
    assert result.errors[0][0] == 1 and "tie for first" in result.errors[0][1]


def test_equal_start_cards_behind_the_first_are_fine():
    result = setup_result({ANN: "C-4", BOB: "A-2", CY: "C-4"})
    assert result.errors == []
    st = state_json(result.game)
    assert st["current"] == BOB and st["board"] == {}
    assert st["tiles_left"] == 120 - 3 * 6


def test_a_fifth_copy_of_a_start_card_is_refused():
    players = [ANN, BOB, CY, DEE, "Eve"]
    result = setup_result({ANN: "A-1", BOB: "C-4", CY: "C-4", DEE: "C-4", "Eve": "C-4"}, players)
    assert result.errors == [] and state_json(result.game)["current"] == ANN
    result = setup_result({ANN: "A-1", BOB: "C-4", CY: "C-4", DEE: "C-4", "Eve": "C-4",
                           "Fay": "C-4"}, players + ["Fay"])
    assert result.game is None and "same start tile" in result.errors[0][1]
