"""MEGAcquire GOLD (seed 000, RULES.md section 2): behaviour tests as a table would check them.

Every game here is a table script (DESIGN.md "Table scripts") built line by
line: each line is played on a live game exactly as ``tabletop.engine.table_script.replay``
plays it, refused lines must leave the state JSON identical, and the finished
script is replayed from scratch to give the same state.

Reference numbers (rules/megacquire-gold.toml, RULES.md section 2), money in M:

    hotels       size 2  3  4  5  6-10 11-20 21-30
    Luster/Teton      2  3  4  5   6    7     8
    Global/Fanfare/
      Arcadia         3  4  5  6   7    8     9
    Regal/Krause      4  5  6  7   8    9    10
    corporations are twice the hotel of the same tier (Unity/Helix 2x2M, ...)
    bonuses 10x and 5x the price, split bonuses rounded up to 1M
    120M each to start, 12 tiles in hand, 6 shares a turn, safe at 21

Hexes: pointy-top, odd-r by default (rows B, D, ... shoved right half a hex).
Every hex a scenario relies on is checked against ``load_rules(...).geometry``
in the scenario's own test, with the labels written out by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tabletop import load_rules, replay
from tabletop.geometry.hexgrid import HexGrid
from table_script import Table as ScriptTable

RULES = load_rules("megacquire-gold")
GEO = RULES.geometry  # odd-r, the default
CHAINS = [chain.name for chain in RULES.chains]
SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------

class Table(ScriptTable):
    rules = "megacquire-gold"


def near(label, geometry=GEO):
    return {geometry.labels[c] for c in geometry.neighbours[geometry.parse(label)]}


def kinds(events):
    return [event["event"] for event in events]


def of(events, kind):
    return [event for event in events if event["event"] == kind]


# --------------------------------------------------------------------------
# 1. The rulebook's Sample Game, figure by figure, on real hexes
# --------------------------------------------------------------------------
# The rulebook places B-3, C-5, E-5, B-4, F-4, D-5, A-1, B-5, C-4 "without
# bothering to match tiles to hexagons" (on a real board B-4 already touches
# C-5). The same game on hexes that connect the same way:
#
#   rulebook  here   what it does
#   B-3       B-3    P1: lone
#   C-5       D-6    P2: lone
#   E-5       F-6    P3: lone
#   B-4       B-4    P4: founds Luster with B-3 (2 tiles, 2M), buys 6 = 12M
#   F-4       F-4    P1: lone, buys 6 Luster = 12M
#   D-5       E-6    P2: founds Krause with D-6, F-6 (3 tiles, 5M), buys 6 = 30M
#   A-1       A-1    P3: lone, buys 6 Krause = 30M
#   B-5       B-5    P4: Luster grows to 3 (3M), buys 6 = 18M: 13 Luster
#   C-4       C-6    P1: touches Luster (B-5) and Krause (D-6): 3 vs 3, P1 keeps
#                    Luster; Krause pays 50M (P2, 7 shares) and 25M (P3, 6);
#                    Luster is 3 + 3 + 1 = 7 tiles (6M): P1 buys 6 = 36M

P1, P2, P3, P4 = "Player 1", "Player 2", "Player 3", "Player 4"


def test_sample_game_hexes_connect_as_the_rulebook_says():
    placed = ["B-3", "D-6", "F-6", "B-4", "F-4", "E-6", "A-1", "B-5", "C-6"]
    touching = {label: near(label) & set(placed) for label in placed}
    assert touching["B-4"] == {"B-3", "B-5"}  # B-5 comes later: B-4 founds with B-3 alone
    assert touching["E-6"] == {"D-6", "F-6"}    # Krause: a line of three
    assert touching["B-5"] == {"B-4", "C-6"}    # grows Luster (C-6 comes later)
    assert touching["C-6"] == {"B-5", "D-6"}    # the merging tile: one of each
    assert touching["F-4"] == set() and touching["A-1"] == set()  # the lone tiles stay lone
    assert near("B-4") == {"A-4", "A-5", "B-3", "B-5", "C-4", "C-5"}
    assert near("C-6") == {"B-5", "B-6", "C-5", "C-7", "D-5", "D-6"}


def test_sample_game_figure_by_figure():
    t = Table([P1, P2, P3, P4], start_tiles={P1: "A-2", P2: "C-1", P3: "H-9", P4: "N-13"})
    st = t.state()
    # Player 1's A-2 is closest to A-1; the start tiles go back in the bag.
    assert st["current"] == P1 and t.pending() == ("place", P1)
    assert st["board"] == {} and st["tiles_left"] == 182 - 4 * 12
    assert t.cash() == {P1: 120, P2: 120, P3: 120, P4: 120}

    # PLAYER 1, 2, 3: three lone tiles; nobody pays anything.
    for tile in ("B-3", "D-6", "F-6"):
        t.turn(tile)
        assert t.books() == dict.fromkeys([P1, P2, P3, P4], (120, {}))
    assert t.board() == {"B-3": None, "D-6": None, "F-6": None}
    assert t.state()["chains"] == {} and t.state()["tiles_left"] == 182 - 48 - 3

    # PLAYER 4: B-4 founds Luster (2 tiles: 2M), one free share, buys six for 12M.
    t.do("place", tile="B-4", player=P4)
    pending = t.state()["pending"]
    assert pending["kind"] == "found" and pending["player"] == P4 and pending["tile"] == "B-4"
    assert pending["choices"] == CHAINS  # 14 companies, all free
    t.refused("buy", match="not possible now", shares={}, player=P4)
    events = t.do("found", chain="Luster", player=P4)
    assert of(events, "founded") == [{"event": "founded", "player": P4, "chain": "Luster", "size": 2}]
    assert t.chain("Luster") == {"size": 2, "price": 2, "safe": False, "bank_shares": 24,
                                 "bonuses": [20, 10]}
    assert t.shares(P4) == {"Luster": 1}
    events = t.do("buy", shares={"Luster": 6}, player=P4)
    assert of(events, "bought") == [{"event": "bought", "player": P4, "cost": 12,
                                     "shares": {"Luster": 6}}]
    assert t.cash()[P4] == 120 - 12 == 108
    assert t.shares(P4) == {"Luster": 7} and t.chain("Luster")["bank_shares"] == 18
    assert t.books() == {P1: (120, {}), P2: (120, {}), P3: (120, {}),
                         P4: (108, {"Luster": 7})}

    # PLAYER 1: F-4 (lone), six Luster for 12M.
    t.turn("F-4", buy={"Luster": 6})
    assert t.board()["F-4"] is None
    assert t.cash()[P1] == 108 and t.shares(P1) == {"Luster": 6}
    assert t.chain("Luster")["bank_shares"] == 12
    assert t.books() == {P1: (108, {"Luster": 6}), P2: (120, {}), P3: (120, {}),
                         P4: (108, {"Luster": 7})}

    # PLAYER 2: E-6 forms Krause of three tiles (D-6, E-6, F-6): 5M a share.
    t.do("place", tile="E-6", player=P2)
    t.do("found", chain="Krause", player=P2)
    assert {cell: t.board()[cell] for cell in ("D-6", "E-6", "F-6")} == dict.fromkeys(
        ("D-6", "E-6", "F-6"), "Krause")
    assert t.chain("Krause")["size"] == 3 and t.chain("Krause")["price"] == 5
    # Six shares a turn, whatever the mix: seven is refused and changes nothing.
    t.refused("buy", match="at most 6", shares={"Krause": 4, "Luster": 3}, player=P2)
    t.do("buy", shares={"Krause": 6}, player=P2)
    assert t.events[-1]["cost"] == 30
    assert t.cash()[P2] == 90 and t.shares(P2) == {"Krause": 7}
    assert t.chain("Krause")["bank_shares"] == 18
    assert t.books() == {P1: (108, {"Luster": 6}), P2: (90, {"Krause": 7}), P3: (120, {}),
                         P4: (108, {"Luster": 7})}

    # PLAYER 3: A-1 (lone, grows nothing), six Krause for 30M.
    t.turn("A-1", buy={"Krause": 6})
    assert t.board()["A-1"] is None
    assert t.cash()[P3] == 90 and t.shares(P3) == {"Krause": 6}
    assert t.chain("Krause")["bank_shares"] == 12
    assert t.books() == {P1: (108, {"Luster": 6}), P2: (90, {"Krause": 7}),
                         P3: (90, {"Krause": 6}), P4: (108, {"Luster": 7})}

    # PLAYER 4: B-5 grows Luster to 3 tiles (3M); six more for 18M: 13 of 25.
    t.do("place", tile="B-5", player=P4)
    assert of(t.events, "grew") == [{"event": "grew", "chain": "Luster", "size": 3}]
    t.do("buy", shares={"Luster": 6}, player=P4)
    assert t.events[-1]["cost"] == 18
    assert t.cash()[P4] == 90 and t.shares(P4) == {"Luster": 13}
    assert t.chain("Luster") == {"size": 3, "price": 3, "safe": False, "bank_shares": 6,
                                 "bonuses": [30, 15]}
    assert t.chain("Krause") == {"size": 3, "price": 5, "safe": False, "bank_shares": 12,
                                 "bonuses": [50, 25]}
    assert t.books() == {P1: (108, {"Luster": 6}), P2: (90, {"Krause": 7}),
                         P3: (90, {"Krause": 6}), P4: (90, {"Luster": 13})}

    # PLAYER 1: C-6 merges Luster (3) and Krause (3): tied, Player 1 chooses.
    t.do("place", tile="C-6", player=P1)
    pending = t.state()["pending"]
    assert pending == {"kind": "survivor", "player": P1, "choices": ["Luster", "Krause"]}
    t.refused("survivor", match="cannot survive", chain="Teton", player=P1)
    events = t.do("survivor", chain="Luster", player=P1)
    assert of(events, "merger") == [{"event": "merger", "survivor": "Luster", "defunct": ["Krause"],
                                     "sizes": {"Luster": 3, "Krause": 3}}]
    # Krause (3 tiles, 5M): 50M to the majority (Player 2, 7), 25M to the minority (Player 3, 6).
    assert of(events, "bonus") == [
        {"event": "bonus", "chain": "Krause", "player": P2, "amount": 50},
        {"event": "bonus", "chain": "Krause", "player": P3, "amount": 25}]
    assert t.cash() == {P1: 108, P2: 90 + 50, P3: 90 + 25, P4: 90}
    # The majority holder disposes first: hold or sell at the pre-merger 5M, no trading.
    assert t.state()["pending"] == {"kind": "dispose", "player": P2, "chain": "Krause",
                                    "survivor": "Luster", "shares": 7, "price": 5, "trade_max": 0}
    t.refused("dispose", match="no trading", player=P2, sell=1, trade=2)
    t.refused("dispose", match="it is not Player 3's move", player=P3, sell=6)
    t.refused("dispose", match="must make 7", player=P2, sell=8)
    events = t.do("dispose", player=P2, sell=7)
    assert of(events, "disposed") == [{"event": "disposed", "player": P2, "chain": "Krause",
                                       "sold": 7, "cash": 35, "traded": 0, "received": 0,
                                       "kept": 0}]
    assert t.cash()[P2] == 140 + 7 * 5 == 175
    assert t.state()["pending"]["player"] == P3 and t.state()["pending"]["shares"] == 6
    t.do("dispose", player=P3, sell=0)  # holds all six, hoping Krause comes back
    assert t.shares(P3) == {"Krause": 6} and t.cash()[P3] == 115
    assert t.bank("Krause") == 12 + 7

    # Luster now has seven tiles (6M); Player 1 buys the last six Luster for 36M.
    st = t.state()
    assert t.pending() == ("buy", P1) and st["current"] == P1
    assert set(st["chains"]) == {"Luster"}
    assert st["chains"]["Luster"] == {"size": 7, "price": 6, "safe": False, "bank_shares": 6,
                                      "bonuses": [60, 30]}
    luster = ["B-3", "B-4", "B-5", "C-6", "D-6", "E-6", "F-6"]
    assert st["board"] == {**dict.fromkeys(luster, "Luster"), "F-4": None, "A-1": None}
    t.do("buy", shares={"Luster": 6}, player=P1)
    assert t.events[-1]["cost"] == 36

    st = t.replayed()
    assert t.books() == {P1: (108 - 36, {"Luster": 12}), P2: (175, {}),
                         P3: (115, {"Krause": 6}), P4: (90, {"Luster": 13})}
    assert st["chains"]["Luster"]["bank_shares"] == 0
    assert t.pending() == ("place", P2) and st["turn"] == 10
    # scenarios/mega_sample_game.jsonl is this very script (`tabletop replay` it to watch).
    stored = (SCENARIOS / "mega_sample_game.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in stored] == [json.loads(line) for line in t.lines]


# --------------------------------------------------------------------------
# 4. A three-way merger: smallest defunct first, largest holder disposes first
# --------------------------------------------------------------------------
# F-6 touches F-5 (Luster F-4..F-5, 2 tiles), E-7 (Teton E-7..E-9, 3 tiles)
# and G-7 (Global G-7..G-10, 4 tiles). Cy makes the merger: Global survives,
# Luster (smallest) is resolved first, then Teton.
#
#   turn  player  tile  effect                   buys
#   1     Ann     F-5   lone
#   2     Bob     F-4   founds Luster (Bob 1)
#   3     Cy      E-7   lone                     3 Luster @2 = 6      Cy 114
#   4     Dee     E-8   founds Teton (Dee 1)     1 Luster @2 = 2      Dee 118
#   5     Ann     E-9   Teton 3                  3 Luster @2 + 2 Teton @3 = 12   Ann 108
#   6     Bob     G-7   lone                     4 Teton @3 = 12      Bob 108
#   7     Cy      G-8   founds Global (Cy 1)
#   8     Dee     G-9   Global 3                 1 Teton @3 = 3       Dee 115
#   9     Ann     G-10  Global 4
#   10    Bob     M-1   lone
#   11    Cy      F-6   merger
#
# Luster: Ann 3, Cy 3, Bob 1, Dee 1. Tie for majority: (20 + 10) / 2 = 15 each.
#   Disposal: largest first, ties to the mergemaker's left (Dee, Ann, Bob, Cy):
#   Ann (3), Cy (3, the mergemaker last among equals), Dee (1), Bob (1).
# Teton: Bob 4, Dee 2, Ann 2. Bob 30; Dee and Ann split 15: 7.5 -> 8 each.
#   Disposal: Bob, Dee, Ann.

ANN, BOB, CY, DEE = "Ann", "Bob", "Cy", "Dee"
FOUR = [ANN, BOB, CY, DEE]
FOUR_START = {ANN: "A-1", BOB: "B-1", CY: "C-1", DEE: "D-1"}


def three_way(options=None):
    t = Table(FOUR, FOUR_START, options)
    t.turn("F-5")
    t.turn("F-4", found="Luster")
    t.turn("E-7", buy={"Luster": 3})
    t.turn("E-8", found="Teton", buy={"Luster": 1})
    t.turn("E-9", buy={"Luster": 3, "Teton": 2})
    t.turn("G-7", buy={"Teton": 4})
    t.turn("G-8", found="Global")
    t.turn("G-9", buy={"Teton": 1})
    t.turn("G-10")
    t.turn("M-1")
    return t


def test_three_way_merger_hexes():
    assert near("F-6") == {"E-6", "E-7", "F-5", "F-7", "G-6", "G-7"}
    cells = ["F-5", "F-4", "E-7", "E-8", "E-9", "G-7", "G-8", "G-9", "G-10", "M-1"]
    # The three chains touch F-6 through one hex each and never touch each other.
    assert near("F-6") & set(cells) == {"F-5", "E-7", "G-7"}
    for a, b in [("F-4 F-5", "E-7 E-8 E-9"), ("F-4 F-5", "G-7 G-8 G-9 G-10"),
                 ("E-7 E-8 E-9", "G-7 G-8 G-9 G-10")]:
        assert not any(near(x) & set(b.split()) for x in a.split())


def test_three_way_merger_smallest_first_largest_holder_first():
    t = three_way()
    st = t.state()
    assert {name: (c["size"], c["price"]) for name, c in st["chains"].items()} == {
        "Luster": (2, 2), "Teton": (3, 3), "Global": (4, 5)}
    assert t.cash() == {ANN: 108, BOB: 108, CY: 114, DEE: 115}
    assert [p["shares"] for p in st["players"]] == [
        {"Luster": 3, "Teton": 2}, {"Luster": 1, "Teton": 4}, {"Luster": 3, "Global": 1},
        {"Luster": 1, "Teton": 2}]

    events = t.do("place", tile="F-6", player=CY)
    assert of(events, "merger") == [{"event": "merger", "survivor": "Global",
                                     "defunct": ["Luster", "Teton"],
                                     "sizes": {"Luster": 2, "Teton": 3, "Global": 4}}]
    # Luster first (smallest): the tie for majority shares 30M.
    assert of(events, "bonus") == [
        {"event": "bonus", "chain": "Luster", "player": ANN, "amount": 15},
        {"event": "bonus", "chain": "Luster", "player": CY, "amount": 15}]
    order = []
    for player, sell in [(ANN, 3), (CY, 0), (DEE, 1), (BOB, 1)]:
        pending = t.state()["pending"]
        assert (pending["kind"], pending["chain"], pending["price"]) == ("dispose", "Luster", 2)
        order.append(pending["player"])
        t.do("dispose", player=player, sell=sell)
    assert order == [ANN, CY, DEE, BOB]
    # Then Teton, paid when its turn comes (bonuses, then disposals).
    assert of(t.events, "defunct") == [{"event": "defunct", "chain": "Luster", "into": "Global"}]
    assert {(e["chain"], e["player"]): e["amount"] for e in of(t.events, "bonus")} == {
        ("Teton", BOB): 30, ("Teton", DEE): 8, ("Teton", ANN): 8}
    order = []
    for player, sell in [(BOB, 4), (DEE, 2), (ANN, 0)]:
        pending = t.state()["pending"]
        assert (pending["kind"], pending["chain"], pending["price"]) == ("dispose", "Teton", 3)
        order.append(pending["player"])
        t.do("dispose", player=player, sell=sell)
    assert order == [BOB, DEE, ANN]

    # Global: 4 + 2 + 3 + the merging tile = 10 tiles, 7M. Only Cy buys.
    st = t.state()
    assert t.pending() == ("buy", CY)
    assert set(st["chains"]) == {"Global"}
    assert st["chains"]["Global"]["size"] == 10 and st["chains"]["Global"]["price"] == 7
    assert sorted(cell for cell, owner in st["board"].items() if owner == "Global") == sorted(
        ["F-4", "F-5", "F-6", "E-7", "E-8", "E-9", "G-7", "G-8", "G-9", "G-10"])
    t.do("buy", shares={"Global": 2}, player=CY)
    st = t.replayed()
    assert t.cash() == {
        ANN: 108 + 15 + 3 * 2 + 8,      # 137, keeps 2 Teton
        BOB: 108 + 1 * 2 + 30 + 4 * 3,  # 152
        CY: 114 + 15 - 2 * 7,           # 115, keeps 3 Luster
        DEE: 115 + 1 * 2 + 8 + 2 * 3,   # 131
    }
    assert [p["shares"] for p in st["players"]] == [{"Teton": 2}, {}, {"Luster": 3, "Global": 3},
                                                     {}]
    assert t.bank("Luster") == 25 - 1 - 3 - 1 - 3 + 3 + 1 + 1 == 22
    assert t.bank("Teton") == 25 - 1 - 2 - 4 - 1 + 4 + 2 == 23
    assert st["chains"]["Global"]["bank_shares"] == 25 - 1 - 2


def test_three_way_merger_largest_first_option_resolves_teton_first():
    t = three_way({"defunct_order": "largest_first"})
    t.do("place", tile="F-6", player=CY)
    assert [e["chain"] for e in of(t.events, "bonus")] == ["Teton", "Teton", "Teton"]
    pending = t.state()["pending"]
    assert (pending["kind"], pending["player"], pending["chain"]) == ("dispose", BOB, "Teton")


# --------------------------------------------------------------------------
# 5. A dead tile becomes a turnover tile: it occupies its hex and joins nothing
# --------------------------------------------------------------------------
# Luster: H-6..H-1, I-1..I-6, J-1..J-6, K-1..K-3 (21 tiles, safe).
# Teton:  G-8..G-13, F-13..F-8, E-8..E-13, D-11..D-13 (21 tiles, safe).
# H-7 touches H-6 (Luster) and G-8 (Teton): dead (so is G-7). I-8, next to
# H-7, touches no company.

LUSTER_21 = (["H-6", "H-5", "H-4", "H-3", "H-2", "H-1"] + [f"I-{c}" for c in range(1, 7)]
             + [f"J-{c}" for c in range(1, 7)] + ["K-1", "K-2", "K-3"])
TETON_21 = ([f"G-{c}" for c in range(8, 14)] + [f"F-{c}" for c in range(13, 7, -1)]
            + [f"E-{c}" for c in range(8, 14)] + ["D-11", "D-12", "D-13"])
THREE = [ANN, BOB, CY]
THREE_START = {ANN: "A-1", BOB: "A-2", CY: "A-3"}


def two_safe_companies():
    t = Table(THREE, THREE_START)
    t.region(LUSTER_21, "Luster")
    t.region(TETON_21, "Teton")
    return t


def test_two_safe_companies_layout():
    assert len(set(LUSTER_21)) == len(set(TETON_21)) == 21
    assert not any(near(cell) & set(TETON_21) for cell in LUSTER_21)
    assert near("H-7") == {"G-7", "G-8", "H-6", "H-8", "I-7", "I-8"}
    assert near("H-7") & set(LUSTER_21) == {"H-6"} and near("H-7") & set(TETON_21) == {"G-8"}
    assert near("I-8") & set(LUSTER_21 + TETON_21) == set()
    assert near("J-8") == {"I-8", "I-9", "J-7", "J-9", "K-8", "K-9"}


def test_turnover_tile_occupies_its_hex_and_connects_nothing():
    t = two_safe_companies()
    st = t.state()
    assert {n: (c["size"], c["safe"]) for n, c in st["chains"].items()} == {
        "Luster": (21, True), "Teton": (21, True)}
    assert st["end_allowed"] is True
    current = st["current"]
    assert current == ANN and t.pending() == ("place", ANN)  # turn 43
    # H-7 cannot be placed: it would merge two safe companies.
    t.refused("place", match="dead", tile="H-7", player=ANN)
    # I-8 is not dead: claiming it is refused.
    t.refused("dead", match="not dead", tile="I-8", player=BOB)
    # Bob, out of turn, turns H-7 over and draws a replacement.
    left = st["tiles_left"]
    events = t.do("dead", tile="H-7", player=BOB)
    assert events == [{"event": "dead", "player": BOB, "tile": "H-7"}]
    st = t.state()
    assert st["board"]["H-7"] == "dead" and st["dead_tiles"] == ["H-7"]
    assert st["tiles_left"] == left - 1
    assert t.pending() == ("place", ANN)  # Ann's turn goes on
    assert st["chains"]["Luster"]["size"] == 21 and st["chains"]["Teton"]["size"] == 21
    # The hex is taken.
    t.refused("place", match="already on the board", tile="H-7", player=ANN)
    t.refused("dead", tile="H-7", player=CY)
    # I-8 touches only the turnover tile: a lone tile, nothing founded.
    events = t.do("place", tile="I-8", player=ANN)
    assert kinds(events) == ["placed"]
    assert t.pending() == ("buy", ANN) and t.board()["I-8"] is None
    t.do("buy", shares={}, player=ANN)
    # J-8 touches I-8: a company of exactly the two of them; H-7 stays turned over.
    t.do("place", tile="J-8", player=BOB)
    assert t.pending() == ("found", BOB)
    t.do("found", chain="Global", player=BOB)
    st = t.state()
    assert st["chains"]["Global"]["size"] == 2
    assert st["board"]["I-8"] == st["board"]["J-8"] == "Global" and st["board"]["H-7"] == "dead"
    t.do("buy", shares={}, player=BOB)
    t.replayed()


# --------------------------------------------------------------------------
# 6. Fourteen companies on the board: a fifteenth cannot be founded
# --------------------------------------------------------------------------

PAIRS = [(f"{row}-{a}", f"{row}-{a + 1}") for row in "ACEG" for a in (1, 4, 7, 10)][:14]


def test_fourteen_companies_then_no_tile():
    for first, second in PAIRS:
        assert second in near(first)
    cells = [cell for pair in PAIRS for cell in pair]
    for i, (first, second) in enumerate(PAIRS):
        others = set(cells) - {first, second}
        assert not (near(first) | near(second)) & others, (first, second)

    t = Table(THREE, THREE_START)
    for i, (first, second) in enumerate(PAIRS):
        t.turn(first)
        t.do("place", tile=second)
        pending = t.state()["pending"]
        assert pending["kind"] == "found" and pending["choices"] == CHAINS[i:]
        t.do("found", chain=CHAINS[i])
        t.do("buy", shares={})
    st = t.state()
    assert len(st["chains"]) == 14 and all(c["size"] == 2 for c in st["chains"].values())
    assert st["turn"] == 29 and st["tiles_left"] == 182 - 36 - 28

    # K-1 alone is fine.
    who = st["current"]
    t.turn("K-1")
    assert t.board()["K-1"] is None
    # K-2 would found a fifteenth company: refused, nothing changes.
    nxt = t.state()["current"]
    assert nxt != who
    t.refused("place", match="every chain is on the board", tile="K-2", player=nxt)
    # The player says no_tile: no placement, no draw, but buying is allowed.
    left = t.state()["tiles_left"]
    events = t.do("no_tile", player=nxt)
    assert events == [{"event": "no_tile", "player": nxt}]
    assert t.pending() == ("buy", nxt)
    t.do("buy", shares={"Quasar": 1}, player=nxt)  # corporation 4M at 2 tiles: 8M
    st = t.state()
    assert st["tiles_left"] == left
    # Cy founded Global, Regal, Solon and Digital (every third founding) and holds their free shares.
    assert nxt == CY
    assert t.cash()[CY] == 120 - 8
    assert t.shares(CY) == {"Global": 1, "Regal": 1, "Solon": 1, "Digital": 1, "Quasar": 1}
    assert st["chains"]["Quasar"]["price"] == 8
    assert "K-2" not in st["board"]
    # A tile touching a company still grows it while all fourteen are out.
    assert near("H-1") == {"G-1", "G-2", "H-2", "I-1", "I-2"}
    t.turn("H-1")  # touches G-1, G-2 (Physics) and nothing else
    assert t.chain("Physics")["size"] == 3
    t.replayed()


# --------------------------------------------------------------------------
# 8. The closing phase, and the agreed end completing the round
# --------------------------------------------------------------------------

def test_end_not_allowed_while_a_company_is_not_safe():
    t = Table(THREE, THREE_START)
    t.turn("A-5")
    t.turn("A-6", found="Luster")
    assert t.state()["end_allowed"] is False
    t.refused("end", match="may not be declared", player=CY)


def test_closing_phase_then_final_payout():
    t = two_safe_companies()
    # Founders: Bob placed H-5 (turn 2) and G-9 (turn 23): one Luster, one Teton.
    assert t.shares(BOB) == {"Luster": 1, "Teton": 1}
    assert t.state()["end_allowed"] is True and t.pending() == ("place", ANN)
    # Only the player whose turn it is may declare the end.
    t.refused("end", match="only Ann", player=BOB)
    t.turn("N-13")  # Ann's lone tile; her turn is over, Bob plays
    t.do("place", tile="N-11", player=BOB)
    events = t.do("end", player=BOB)
    assert events == [{"event": "end_declared", "player": BOB, "agreed": False}]
    st = t.state()
    assert st["end_declared"] is True and st["end_allowed"] is False
    assert t.pending() == ("buy", BOB)  # the turn goes on: Bob buys
    t.refused("end", match="already declared", player=BOB)
    t.do("buy", shares={"Luster": 3}, player=BOB)  # 21 tiles: 8M each
    assert t.events[0]["cost"] == 24
    assert of(t.events, "closing") == [{"event": "closing"}]
    st = t.state()
    assert st["pending"]["kind"] == "closing" and st["standings"] is None

    # Nothing but placements and the end during the closing phase.
    t.refused("buy", match="not possible now", shares={}, player=BOB)
    t.refused("buy", shares={"Luster": 1})
    t.refused("found", chain="Global", player=CY)
    t.refused("end", match="already declared", agreed=True)
    t.refused("place", match="already on the board", tile="N-13", player=CY)

    # Any player places a remaining tile.
    events = t.do("place", tile="G-7", player=CY)  # touches Luster and Teton: turnover
    assert of(events, "turnover") == [{"event": "turnover", "tile": "G-7"}]
    events = t.do("place", tile="K-4", player=ANN)  # touches Luster only: grows it
    assert of(events, "grew") == [{"event": "grew", "chain": "Luster", "size": 22}]
    t.do("place", tile="M-6", player=BOB)  # touches nothing: lone
    t.do("place", tile="M-7", player=CY)   # touches only M-6: stays lone, nothing founded
    assert near("M-7") & {"M-6"} == {"M-6"}
    st = t.state()
    assert st["pending"]["kind"] == "closing"
    assert {cell: st["board"][cell] for cell in ("G-7", "K-4", "M-6", "M-7")} == {
        "G-7": "dead", "K-4": "Luster", "M-6": None, "M-7": None}
    # The turnover tile counts for nobody.
    assert {n: c["size"] for n, c in st["chains"].items()} == {"Luster": 22, "Teton": 21}

    # The end again: bonuses of every company at market, every share sold.
    events = t.do("end", player=CY)
    bonuses = {(e["chain"], e["player"]): e["amount"] for e in of(events, "bonus")}
    # Luster 22 tiles: 8M, bonuses 80/40; Bob holds 4, nobody else: sole holder 80 + 40.
    # Teton 21 tiles: 8M; Bob the sole holder with 1: 80 + 40.
    assert bonuses == {("Luster", BOB): 120, ("Teton", BOB): 120}
    sold = {(e["chain"], e["player"]): e["cash"] for e in of(events, "sold")}
    assert sold == {("Luster", BOB): 4 * 8, ("Teton", BOB): 1 * 8}
    st = t.replayed()
    assert st["pending"] is None
    assert st["standings"] == [
        {"name": BOB, "cash": 120 - 24 + 120 + 120 + 32 + 8, "rank": 1},  # 376
        {"name": ANN, "cash": 120, "rank": 2},
        {"name": CY, "cash": 120, "rank": 2}]
    t.refused("place", match="over", tile="N-1")


def test_closing_phase_payout_with_majority_and_minority():
    t = two_safe_companies()
    t.do("place", tile="N-13", player=ANN)
    t.do("end", player=ANN)
    t.do("buy", shares={"Luster": 2, "Teton": 2}, player=ANN)  # 4 x 8M = 32
    assert t.pending() == ("closing", ANN)
    t.do("place", tile="K-4", player=CY)  # Luster 22
    t.do("end", player=BOB)
    st = t.replayed()
    # Luster 22 (8M): Ann 2 (80), Bob 1 (40). Teton 21 (8M): Ann 2 (80), Bob 1 (40).
    # Sold: Ann 4 x 8 = 32; Bob 2 x 8 = 16.
    assert st["standings"] == [
        {"name": ANN, "cash": 120 - 32 + 80 + 80 + 32, "rank": 1},  # 280
        {"name": BOB, "cash": 120 + 40 + 40 + 16, "rank": 2},       # 216
        {"name": CY, "cash": 120, "rank": 3}]


def test_full_round_without_a_tile_allows_the_end():
    t = Table(THREE, THREE_START)
    for name in THREE:
        assert t.state()["end_allowed"] is False
        t.do("no_tile", player=name)
        t.do("buy", shares={}, player=name)
    st = t.state()
    assert st["end_allowed"] is True and st["chains"] == {}
    assert st["tiles_left"] == 182 - 36  # nobody placed, nobody drew
    t.do("end", player=ANN)
    t.do("place", tile="A-1", player=ANN)
    t.do("buy", shares={}, player=ANN)
    assert t.pending() == ("closing", ANN)
    # Closing placements never found a company, even next to a lone tile.
    t.do("place", tile="A-3", player=BOB)
    t.do("place", tile="A-2", player=CY)
    assert t.board() == {"A-1": None, "A-2": None, "A-3": None} and t.state()["chains"] == {}
    t.do("end", player=BOB)
    assert t.state()["standings"] == [{"name": n, "cash": 120, "rank": 1} for n in THREE]


# --------------------------------------------------------------------------
# Founding a company whose 25 shares are all held: its value at opening in cash
# --------------------------------------------------------------------------
#   1 Ann A-1 lone.  2 Bob A-2 founds Luster (1), buys 6.  3 Cy C-1 lone, buys 6 Luster.
#   4 Ann C-2 founds Teton, buys 6 Luster.  5 Bob C-3 (Teton 3), buys 6 Luster: all 25 held.
#   6 Cy B-1 touches Luster and Teton (C-1..C-3): Teton absorbs Luster.
#     Luster 2M: Bob (13) 20M; Ann and Cy (6 each) split 10M: 5M each. Everyone holds.
#   7 Ann E-10 lone.  8 Bob E-11 founds Luster again: the bank has none, Bob gets 2M.

@pytest.mark.parametrize("option, paid", [("cash", 2), ("nothing", 0)])
def test_founder_when_the_bank_has_no_share_left(option, paid):
    assert near("B-1") == {"A-1", "A-2", "B-2", "C-1", "C-2"}
    t = Table(THREE, {ANN: "A-5", BOB: "A-6", CY: "A-7"}, {"founder_when_sold_out": option})
    t.turn("A-1")
    t.turn("A-2", found="Luster", buy={"Luster": 6})
    t.turn("C-1", buy={"Luster": 6})
    t.turn("C-2", found="Teton", buy={"Luster": 6})
    t.turn("C-3", buy={"Luster": 6})
    assert t.chain("Luster")["bank_shares"] == 0
    t.do("place", tile="B-1", player=CY)
    assert {(e["player"]): e["amount"] for e in of(t.events, "bonus")} == {BOB: 20, ANN: 5, CY: 5}
    order = []
    while t.pending()[0] == "dispose":
        order.append(t.pending()[1])
        t.do("dispose", player=t.pending()[1], sell=0)
    assert order == [BOB, ANN, CY]  # 13, then the tie of 6 from Cy's left: Ann, then Cy
    t.do("buy", shares={})
    t.turn("E-10")
    t.do("place", tile="E-11", player=BOB)
    events = t.do("found", chain="Luster", player=BOB)
    assert t.bank("Luster") == 0 and t.shares(BOB) == {"Luster": 13}
    if paid:
        assert of(events, "founder_cash") == [{"event": "founder_cash", "player": BOB,
                                               "chain": "Luster", "amount": 2}]
    else:
        assert of(events, "founder_cash") == [] and of(events, "founder_share") == []
    assert t.cash()[BOB] == 120 - 12 - 12 + 20 + paid


# Agreed end: Bob starts (A-5 is closest to A-1), so the round is Bob, Cy,
# Ann, and Ann (the seat before Bob) plays the last turn.
#   1 Bob A-1 lone.  2 Cy A-2 founds Luster (1 free), agrees to end, buys 2 @2.
#   3 Ann A-3: Luster 3 tiles (3M), buys 1 @3; the game ends after her turn.
#   Luster 3M: Cy (3) 30M, Ann (1) 15M; sold at 3M.

def test_agreed_end_completes_the_round_without_closing_phase():
    t = Table(THREE, {ANN: "C-3", BOB: "A-5", CY: "B-1"})
    assert t.pending() == ("place", BOB)
    t.turn("A-1")
    t.do("place", tile="A-2", player=CY)
    t.do("found", chain="Luster", player=CY)
    assert t.state()["end_allowed"] is False  # no safe company: only an agreed end
    t.refused("end", match="may not be declared", player=CY)
    events = t.do("end", agreed=True, player=CY)
    assert events == [{"event": "end_declared", "player": CY, "agreed": True}]
    t.do("buy", shares={"Luster": 2}, player=CY)
    # The round goes on: Ann plays.
    assert t.pending() == ("place", ANN) and t.state()["standings"] is None
    t.do("place", tile="A-3", player=ANN)
    t.do("buy", shares={"Luster": 1}, player=ANN)
    st = t.replayed()
    assert st["pending"] is None  # no closing phase after an agreed end
    assert not of(t.events, "closing")
    assert st["standings"] == [
        {"name": CY, "cash": 120 - 4 + 30 + 3 * 3, "rank": 1},   # 155
        {"name": ANN, "cash": 120 - 3 + 15 + 1 * 3, "rank": 2},  # 135
        {"name": BOB, "cash": 120, "rank": 3}]
    t.refused("place", match="over", tile="A-4", player=BOB)


def test_agreed_end_by_the_last_seat_of_the_round_ends_after_that_turn():
    t = Table(THREE, {ANN: "C-3", BOB: "A-5", CY: "B-1"})
    t.turn("A-1")
    t.turn("A-2", found="Luster")
    t.do("place", tile="A-3", player=ANN)
    t.do("end", agreed=True, player=ANN)
    t.do("buy", shares={}, player=ANN)
    st = t.state()
    assert st["pending"] is None
    # Cy founded Luster (3 tiles, 3M): sole holder 30 + 15, share sold at 3.
    assert st["standings"][0] == {"name": CY, "cash": 120 + 45 + 3, "rank": 1}


def test_acquire_agreed_end_just_finishes_the_turn():
    # Contrast: classic Acquire ends by agreement at the end of the current turn.
    t = Table(THREE, {ANN: "1I", BOB: "12A", CY: "12I"}, rules="acquire")
    t.turn("5E")
    t.do("place", tile="5F", player=BOB)
    t.do("found", chain="Tower", player=BOB)
    t.do("end", agreed=True, player=BOB)
    t.do("buy", shares={}, player=BOB)
    assert t.state()["pending"] is None


# --------------------------------------------------------------------------
# 9. Hex parity: odd-r vs even-r
# --------------------------------------------------------------------------

def test_parity_decides_whether_b4_and_a5_touch():
    even = HexGrid(rows=14, columns=13, offset="even-r")
    assert RULES.geometry_for({"hex_offset": "even-r"}).offset == "even-r"
    assert near("B-4") == {"A-4", "A-5", "B-3", "B-5", "C-4", "C-5"}
    assert near("B-4", even) == {"A-3", "A-4", "B-3", "B-5", "C-3", "C-4"}
    assert near("C-5") == {"B-4", "B-5", "C-4", "C-6", "D-4", "D-5"}

    odd = Table([ANN, BOB], {ANN: "A-1", BOB: "A-2"})
    evn = Table([ANN, BOB], {ANN: "A-1", BOB: "A-2"}, options={"hex_offset": "even-r"})
    assert evn.state()["options"]["hex_offset"] == "even-r"
    for t in (odd, evn):
        t.turn("B-4")
        t.do("place", tile="A-5", player=BOB)
    # odd-r: A-5 touches B-4, a company is founded.
    assert odd.pending() == ("found", BOB) and odd.state()["pending"]["tile"] == "A-5"
    odd.do("found", chain="Teton")
    assert odd.chain("Teton")["size"] == 2
    # even-r: A-5 and B-4 do not touch: two lone tiles.
    assert evn.pending() == ("buy", BOB)
    assert evn.board() == {"B-4": None, "A-5": None} and evn.state()["chains"] == {}


# --------------------------------------------------------------------------
# 10. Who starts: closest to A-1, row first (A-13 beats B-1)
# --------------------------------------------------------------------------

def test_a13_beats_b1_and_start_tiles_return_to_the_bag():
    t = Table(THREE, {ANN: "B-1", BOB: "A-13", CY: "N-1"})
    st = t.state()
    assert st["current"] == BOB and t.pending() == ("place", BOB)
    assert st["board"] == {}
    assert st["tiles_left"] == 182 - 3 * 12
    assert t.cash() == {ANN: 120, BOB: 120, CY: 120}
    # The returned start tiles are ordinary tiles again.
    t.turn("A-13")
    assert t.board() == {"A-13": None}


def test_the_same_start_tile_twice_is_refused():
    result = replay([json.dumps({"setup": {"rules": "megacquire-gold", "players": THREE,
                                           "start_tiles": {ANN: "C-4", BOB: "C-4", CY: "A-1"}}})])
    assert result.game is None and result.errors[0][0] == 1
    assert "same start tile" in result.errors[0][1]
