"""ACQUISITIONS' end and territory (docs/rules.md, ACQUISITIONS), as a table would check them.

Section 7 of tests/engine/test_acquisitions.py, kept apart for its length; the
same conventions (table scripts built line by line, ``at(row, col)`` for a hex
of the 10 x 12 odd-r board, every label relied on also written out by hand).
Prices (bronze: Lions Head, White Crest): 2 castles 200, 3 300, 4 400, 6-10
600, 11-20 700, 31-40 900, 41+ 1000; King/Queen 10x, Prince/Princess 5x the
price (a sole holder both); 6000 each.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tabletop import IllegalAction, load_rules, parse_action, replay, state_json
from tabletop.engine.actions import End
from tabletop.engine.board import EMPTY, LONE, PUT_GROW, PUT_MERGE, TURNOVER, Board
from tabletop.engine.game import Game
from tabletop.engine.random_play import random_action
from tabletop.geometry.hexgrid import HexGrid
from table_script import Table as ScriptTable

RULES = load_rules("acquisitions")
GEO = RULES.geometry
SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
ANN, BOB, CY = "Ann", "Bob", "Cy"


class Table(ScriptTable):
    rules = "acquisitions"


def at(row, col):
    return GEO.labels[row * GEO.columns + col]


def near(label, geometry=GEO):
    return {geometry.labels[c] for c in geometry.neighbours[geometry.parse(label)]}


def of(events, kind):
    return [event for event in events if event["event"] == kind]


# --------------------------------------------------------------------------
# 7. The end and territory: pockets a kingdom's own castles alone enclose
# --------------------------------------------------------------------------
# A pocket is a connected set of empty hexes whose every neighbour is a castle
# of one kingdom: that kingdom's territory at the end. The board's edge
# encloses nothing (a region reaching it is open), and a region touching
# another kingdom, a lone or an upturned castle is no pocket. The end may be
# declared only when no kingdom can still grow except into its own pockets
# (or by agreement).
#
# A 5 x 5 odd-r grid, rows A..E: C-3's six neighbours are B-2, B-3, C-2, C-4,
# D-2, D-3. 0 and 1 are kingdoms; L a lone castle, T an upturned one.

SMALL = HexGrid(rows=5, columns=5, offset="odd-r")
RING = ["B-2", "B-3", "C-2", "C-4", "D-2", "D-3"]
# Around C-3 and C-4 together (row C is not shoved: C-4 touches B-3, B-4, D-3, D-4).
RING2 = ["B-2", "B-3", "B-4", "C-2", "C-5", "D-2", "D-3", "D-4"]


def small_board(cells):
    board = Board(SMALL, chains=2, safe_size=11)
    for label, owner in cells.items():
        board.cells[SMALL.parse(label)] = owner
    for owner in board.cells:
        if owner >= 0:
            board.sizes[owner] += 1
    return board


def test_small_board_rings():
    assert near("C-3", SMALL) == set(RING)
    assert (near("C-3", SMALL) | near("C-4", SMALL)) - {"C-3", "C-4"} == set(RING2)
    assert near("A-1", SMALL) == {"A-2", "B-1"}


@pytest.mark.parametrize("cells, expected", [
    ({}, [0, 0]),                                                # nobody's
    (dict.fromkeys(RING, 0), [1, 0]),                            # the ring encloses C-3
    ({**dict.fromkeys(RING, 0), "E-5": LONE}, [1, 0]),           # a lone castle elsewhere: the same
    ({**dict.fromkeys(RING, 0), "A-1": 1}, [1, 0]),              # another kingdom elsewhere: same
    (dict.fromkeys(RING2, 0), [2, 0]),                           # a pocket of two hexes
    ({**dict.fromkeys(RING, 0), "D-3": 1}, [0, 0]),              # two kingdoms around: nobody's
    ({**dict.fromkeys(RING, 0), "D-3": LONE}, [0, 0]),           # a lone castle in the ring
    ({**dict.fromkeys(RING, 0), "D-3": TURNOVER}, [0, 0]),       # an upturned castle in the ring
    (dict.fromkeys(RING[:-1], 0), [0, 0]),                       # a gap: C-3 runs out to the edge
    # the edge encloses nothing: row C cuts rows A-B off from row D, but they reach the edge
    ({**{f"C-{c}": 0 for c in range(1, 6)}, **{f"E-{c}": 1 for c in range(1, 6)}}, [0, 0]),
    ({"A-2": 1, "B-1": 1}, [0, 0]),                              # a corner: A-1 is on the edge
    ({"C-3": 0, "C-4": 0}, [0, 0]),                              # one kingdom on an open board
])
def test_enclosed(cells, expected):
    assert small_board(cells).enclosed() == expected


def test_a_pocket_of_each_kingdom_counts_for_each():
    # On a 7 x 7 grid: kingdom 0 rings C-2, kingdom 1 rings C-6; the rest touches both.
    grid = HexGrid(rows=7, columns=7, offset="odd-r")
    board = Board(grid, chains=2, safe_size=11)
    for hole, owner in (("C-2", 0), ("C-6", 1)):
        for label in near(hole, grid):
            board.cells[grid.parse(label)] = owner
    assert not near("C-2", grid) & near("C-6", grid)
    assert board.enclosed() == [1, 1]


# The two cases that decided the rule. White Crest fills global row 1
# (1/B-1..2/B-6, 12 castles, safe) on an open board; in the second case a lone
# castle stands far away at 4/E-6. Row 0 and rows 2-9 reach the edge: no
# pocket, and White Crest can still grow, so the end may not be declared. The
# table agrees to end instead, and both cases score White Crest at its 12
# castles (before the decision: 120 castles, and 24 with the lone castle).
#
#   1  Ann 4/E-6 lone (or no card)   2 Bob 1/B-1 lone
#   3  Ann 1/B-2 founds White Crest, buys 3 @200 = 600      Ann 5400, 4 cards
#   4  Bob 1/B-3: 3 castles, buys 2 @300 = 600             Bob 5400, 2 cards
#   5-12  1/B-4 .. 2/B-5: 11 castles, safe
#   13 Ann 2/B-6: 12 castles (700); the end is refused; Ann agrees to end, buys nothing
#   14 Bob, the last of the round: no card, buys nothing.
#   White Crest 12 castles @700: King Ann 7000 + 4 x 700 -> 5400 + 9800 = 15200
#                                Prince Bob 3500 + 2 x 700 -> 5400 + 4900 = 10300

WHITE_12 = [f"1/B-{c}" for c in range(1, 7)] + [f"2/B-{c}" for c in range(1, 7)]


@pytest.mark.parametrize("first", ["4/E-6", None])
def test_an_open_board_is_no_territory_and_cannot_end(first):
    assert WHITE_12 == [at(1, c) for c in range(12)]
    t = Table([ANN, BOB], {ANN: "A-1", BOB: "A-2"})
    if first:
        t.turn(first)
    else:
        t.do("no_tile", player=ANN)
        t.do("buy", shares={}, player=ANN)
    t.turn(WHITE_12[0])
    t.turn(WHITE_12[1], found="White Crest", buy={"White Crest": 3})
    t.turn(WHITE_12[2], buy={"White Crest": 2})
    t.region(WHITE_12[3:11], "White Crest")
    assert t.chain("White Crest")["safe"] and t.state()["end_allowed"] is False
    t.do("place", tile=WHITE_12[11], player=ANN)
    assert t.state()["end_allowed"] is False
    # 1/A-1 touches 1/B-1 and lies in row 0, which reaches the edge.
    message = t.refused("end", match="may not be declared", player=ANN)
    assert message == "the end may not be declared yet: White Crest can still grow at 1/A-1"
    t.do("end", agreed=True, player=ANN)
    events = t.do("buy", shares={}, player=ANN)
    assert t.pending() == ("place", BOB) and not of(events, "territory")
    t.do("no_tile", player=BOB)
    events = t.do("buy", shares={}, player=BOB)
    assert not of(events, "territory")
    st = t.replayed()
    white = st["chains"]["White Crest"]
    assert (white["size"], white["territory"], white["price"]) == (12, 0, 700)
    assert {e["player"]: e["amount"] for e in of(events, "bonus")} == {ANN: 7000, BOB: 3500}
    assert st["standings"] == [{"name": ANN, "cash": 15200, "rank": 1},
                               {"name": BOB, "cash": 10300, "rank": 2}]


# A game played to a declared end. White Crest (bronze) holds columns 1-4 of
# the whole board (global columns 0-3: quadrants 1 and 3, A-1..E-4) and 1/A-5,
# all but 1/E-3: 40 castles around one empty hex. 1/E-3's neighbours 1/D-2,
# 1/D-3, 1/E-2, 1/E-4, 3/A-2, 3/A-3 are all White Crest's: a pocket. Lions
# Head (bronze) holds global columns 5-11 but 1/A-6: 69 castles. Between them
# the band 1/A-6 and global column 4 below 1/A-5 (1/B-5..1/E-5, 3/A-5..3/E-5),
# ten empty hexes, each touching both safe kingdoms: a card there would join
# two safe kingdoms, so it can never be placed. Nothing else is empty.
#
#   1  Ann 1/A-1 lone            2 Bob 4/E-6 lone
#   3  Ann 1/A-2 founds White Crest (free card), buys 2 @200 = 400    Ann 5600, 3 cards
#   4  Bob 4/E-5 founds Lions Head (free card), buys 3 @200 = 600     Bob 5400, 4 cards
#   5  Ann: White Crest's third castle, buys nothing
#   6  Bob: its fourth castle (400), buys 1 White Crest @400          Bob 5000, 1 card
#   7-108  the rest of both kingdoms, nobody buys; before the last castle the end is refused
#          (Lions Head can still grow there)
#   109 Ann places Lions Head's last castle, 4/E-4 (on the bottom edge), declares the
#       end, buys nothing. Final count:
#   White Crest 40 castles + 1 hex of pocket = 41 @1000 (without the pocket: 40 @900)
#     King Ann (3 cards) 10000, Prince Bob (1) 5000; sold: Ann 3000, Bob 1000
#   Lions Head 69 castles @1000: Bob sole holder 10000 + 5000 = 15000; sold 4 x 1000
#   Ann 5600 + 10000 + 3000 = 18600; Bob 5000 + 5000 + 1000 + 15000 + 4000 = 30000

POCKET = "1/E-3"
BAND = ["1/A-6"] + [f"1/{row}-5" for row in "BCDE"] + [f"3/{row}-5" for row in "ABCDE"]


def spread(seeds, area):
    """``area``'s labels from ``seeds`` on, each touching one before it (so no castle is lone)."""
    order, left = list(seeds), set(area) - set(seeds)
    while left:
        nxt = min((label for label in left if near(label) & set(order)), key=GEO.parse)
        order.append(nxt)
        left.remove(nxt)
    return order


def pocket_game_areas():
    white = {at(r, c) for r in range(10) for c in range(4)} - {POCKET} | {"1/A-5"}
    lions = {at(r, c) for r in range(10) for c in range(5, 12)} - {"1/A-6"}
    return spread(["1/A-1", "1/A-2"], white), spread(["4/E-6", "4/E-5"], lions)


def test_the_pocket_game_layout():
    white, lions = pocket_game_areas()
    assert (len(white), len(lions)) == (40, 69) and 40 + 69 + 1 + len(BAND) == 120
    assert set(BAND) == {at(0, 5)} | {at(r, 4) for r in range(1, 10)}
    assert near(POCKET) == {"1/D-2", "1/D-3", "1/E-2", "1/E-4", "3/A-2", "3/A-3"} <= set(white)
    assert not near(POCKET) & (set(BAND) | set(lions))
    for hex_ in BAND:                       # each touches both kingdoms
        assert near(hex_) & set(white) and near(hex_) & set(lions), hex_
    for castle in white:                    # the kingdoms never touch
        assert not near(castle) & set(lions), castle
    assert lions[-1] == "4/E-4" and at(9, 9) == "4/E-4"


def pocket_game():
    white, lions = pocket_game_areas()
    t = Table([ANN, BOB], {ANN: "A-1", BOB: "A-2"})
    t.turn(white[0])
    t.turn(lions[0])
    t.turn(white[1], found="White Crest", buy={"White Crest": 2})
    t.turn(lions[1], found="Lions Head", buy={"Lions Head": 3})
    t.turn(white[2])
    t.turn(white[3], buy={"White Crest": 1})
    assert t.cash() == {ANN: 5600, BOB: 5000}
    t.region(white[4:] + lions[2:-1], "White Crest")
    return t, lions[-1]


def test_a_pocket_is_territory_once_nothing_else_can_grow():
    t, last = pocket_game()
    assert t.pending() == ("place", ANN) and t.state()["turn"] == 109
    assert t.state()["end_allowed"] is False
    message = t.refused("end", match="may not be declared", player=ANN)
    assert message == "the end may not be declared yet: Lions Head can still grow at 4/E-4"
    t.do("place", tile=last, player=ANN)
    st = t.state()
    assert st["end_allowed"] is True
    assert (st["chains"]["White Crest"]["size"], st["chains"]["Lions Head"]["size"]) == (40, 69)
    assert st["chains"]["White Crest"]["price"] == 900
    t.do("end", player=ANN)
    events = t.do("buy", shares={}, player=ANN)
    assert of(events, "territory") == [{"event": "territory", "chain": "White Crest",
                                        "cells": 1, "size": 41}]
    st = t.replayed()
    white, lions = st["chains"]["White Crest"], st["chains"]["Lions Head"]
    assert (white["size"], white["territory"], white["price"]) == (40, 1, 1000)
    assert (lions["size"], lions["territory"], lions["price"]) == (69, 0, 1000)
    assert [(e["player"], e["chain"], e["amount"]) for e in of(events, "bonus")] == [
        (BOB, "Lions Head", 15000), (ANN, "White Crest", 10000), (BOB, "White Crest", 5000)]
    assert sorted((e["player"], e["chain"], e["cash"]) for e in of(events, "sold")) == [
        (ANN, "White Crest", 3000), (BOB, "Lions Head", 4000), (BOB, "White Crest", 1000)]
    assert st["standings"] == [{"name": BOB, "cash": 30000, "rank": 1},
                               {"name": ANN, "cash": 18600, "rank": 2}]
    # scenarios/acq_pocket_end.jsonl is this very script (`tabletop replay` it to watch).
    stored = (SCENARIOS / "acq_pocket_end.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in stored] == [json.loads(line) for line in t.lines]
    assert state_json(replay(stored).game)["standings"] == st["standings"]


def position(owners):
    """A new two-player game whose board holds ``owners`` (label: kingdom name, or TURNOVER)."""
    game = Game("acquisitions", [ANN, BOB], start_tiles={ANN: "A-1", BOB: "A-2"})
    for label, owner in owners.items():
        cell = GEO.parse(label)
        game.board.cells[cell] = owner if owner == TURNOVER else RULES.chain_index(owner)
        if owner != TURNOVER:
            game.board.sizes[RULES.chain_index(owner)] += 1
    return game


def finished_board(**changes):
    white, lions = pocket_game_areas()
    owners = {**dict.fromkeys(white, "White Crest"), **dict.fromkeys(lions, "Lions Head")}
    owners.update(changes)
    return {label: owner for label, owner in owners.items() if owner is not None}


@pytest.mark.parametrize("owners, growth", [
    (finished_board(), None),
    # a White Crest hex on the edge left empty: it reaches the edge, so it is open
    (finished_board(**{"1/A-1": None}), ("White Crest", "1/A-1")),
    # an upturned castle in the band connects nothing: the end may still be declared
    (finished_board(**{"1/B-5": TURNOVER}), None),
    # the pocket filled: nothing left to grow into
    (finished_board(**{POCKET: "White Crest"}), None),
    # a hex of the pocket's ring empty: the pocket joins the band, which touches Lions Head
    (finished_board(**{"1/E-4": None}), ("White Crest", "1/E-3")),
])
def test_positions_where_the_end_may_or_may_not_be_declared(owners, growth):
    game = position(owners)
    assert game.end_allowed() is (growth is None)
    if growth is None:
        game.push(parse_action({"do": "end"}))
        assert game.end_declared
    else:
        with pytest.raises(IllegalAction) as refused:
            game.push(parse_action({"do": "end"}))
        assert str(refused.value) == (f"the end may not be declared yet: {growth[0]} can still "
                                      f"grow at {growth[1]}")
        assert not game.end_declared


def test_the_end_by_agreement_counts_the_pockets_there_are():
    # The finished board with 1/A-1 open: no declared end, but an agreed one counts the pocket.
    game = position(finished_board(**{"1/A-1": None}))
    events = []
    for line in ({"do": "end", "agreed": True}, {"do": "no_tile"}, {"do": "buy", "shares": {}},
                 {"do": "no_tile"}, {"do": "buy", "shares": {}}):   # Ann, then Bob ends the round
        events = game.push(parse_action(line))
    assert game.over
    assert of(events, "territory") == [{"event": "territory", "chain": "White Crest",
                                        "cells": 1, "size": 40}]
    assert state_json(game)["chains"]["White Crest"]["price"] == 900


def test_growth_left_agrees_with_the_pockets_all_through_random_games():
    # Where a kingdom may still grow, worked out the slow way from Board.pockets: every empty
    # hex outside a pocket where a castle would join a kingdom (not one joining two safe ones).
    ends = set()
    for seed in range(4):
        game, rng = Game("acquisitions", [ANN, BOB, CY], seed=seed), random.Random(seed)
        while game.pending is not None:
            board = game.board
            walled = {cell for region, owner in board.pockets() if owner is not None
                      for cell in region}
            growth = [cell for cell, owner in enumerate(board.cells) if owner == EMPTY
                      and cell not in walled and board.classify(cell)[0] in (PUT_GROW, PUT_MERGE)]
            found = board.growth_left()
            assert (found is None) == (not growth)
            if found is not None:
                assert found[0] == growth[0] and found[1] in board.classify(found[0])[1]
            action = random_action(game, rng)
            if isinstance(action, End):
                ends.add(game.passes >= 3 or found is None)
            game.push(action)
    assert ends == {True}
