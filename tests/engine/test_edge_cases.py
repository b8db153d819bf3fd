"""Adversarial review of the engine against RULES.md (sections 1, 4) and DESIGN.md.

The first tests here were written as failing tests for defects found in review
(negative counts through the API, undo by a stranger), fixed since; the others
guard edge cases. Every expected figure
is worked out by hand from the rules in the comments.

Prices used below (RULES 1, classic card):
  tier 1 (Tower, Luxor):         2 -> 200, 3 -> 300, 6-10 -> 600, 11-20 -> 700, 41+ -> 1000
  tier 2 (American, Worldwide):  2 -> 300, 6-10 -> 700
  tier 3 (Imperial, Continental): 31-40 -> 1100, 41+ -> 1200
Classic bonuses: majority 10 x price, minority 5 x price; sole holder gets both.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from tabletop import (Buy, Dead, Dispose, End, Found, Game, IllegalAction, Market, NextDefunct,
                      NoTile, Place, Survivor, load_rules, state_json, view)
from tabletop.engine import actions as act
from tabletop.engine.board import PUT_DEAD, PUT_NO_CHAIN
from tabletop.engine.random_play import _random_disposal

RULES = load_rules("acquire")
FAR3 = {"Ann": "1I", "Bob": "12A", "Cy": "12I"}   # Ann starts (column 1); all far from the action


def new(players=("Ann", "Bob", "Cy"), start=None, **options) -> Game:
    return Game(RULES, list(players), options or None, start_tiles=start or FAR3)


def turn(g: Game, tile: str | None, *then, buy=None) -> None:
    """Place ``tile`` (None: no_tile), answer with ``then``, then buy ``buy``."""
    g.push(Place(tile=tile) if tile else NoTile())
    for action in then:
        g.push(action)
    g.push(Buy(shares=buy or {}))


def cash(g: Game) -> list[int]:
    return [p["cash"] for p in state_json(g)["players"]]


def shares(g: Game) -> list[dict]:
    return [p["shares"] for p in state_json(g)["players"]]


def pending(g: Game) -> dict:
    return state_json(g)["pending"]


# ---------------------------------------------------------------------------
# BUGS: illegal actions through the Python API change the state
# ---------------------------------------------------------------------------

def _tower_founded_by_bob() -> Game:
    g = new()
    turn(g, "1A")                                   # Ann: lone
    g.push(Place(tile="2A"))                        # Bob founds Tower (1 free share)
    g.push(Found(chain="Tower"))
    return g                                        # pending: Bob buys


def test_negative_buy_is_refused_and_changes_nothing():
    g = _tower_founded_by_bob()
    before = state_json(g)
    # Today: Bob 'buys' -1 Tower: his founder share goes back to the bank and he gets $200.
    with pytest.raises(IllegalAction):
        g.push(Buy(shares={"Tower": -1}))
    assert state_json(g) == before


def test_negative_count_cannot_lift_the_buy_limit():
    g = new()
    turn(g, "1A")
    turn(g, "2A", Found(chain="Tower"))             # Bob: Tower
    turn(g, "1C")                                   # Cy: lone
    g.push(Place(tile="1D"))                        # Ann founds Luxor
    g.push(Found(chain="Luxor"))
    before = state_json(g)
    # total = 5 + (-2) = 3 <= limit; today Ann gets 5 Tower for $1000 and 'returns' 2 Luxor.
    with pytest.raises(IllegalAction):
        g.push(Buy(shares={"Tower": 5, "Luxor": -2}))
    assert state_json(g) == before


def _luxor_merged_into_tower() -> Game:
    g = new()
    turn(g, "1A")                                   # Ann: lone
    turn(g, "2A", Found(chain="Tower"))             # Bob: Tower 1A-2A
    turn(g, "1C")                                   # Cy: lone
    turn(g, "1D", Found(chain="Luxor"))             # Ann: Luxor 1C-1D, 1 share
    turn(g, "3A")                                   # Bob: Tower 3
    g.push(Place(tile="1B"))                        # Cy merges Luxor(2) into Tower(3)
    return g


def test_negative_sell_is_refused():
    g = _luxor_merged_into_tower()
    assert pending(g)["kind"] == "dispose" and pending(g)["shares"] == 1
    before = state_json(g)
    # Today: keep = 1 - (-1) - 0 = 2, sum -1 + 0 + 2 == 1 passes; Ann ends with 2 Luxor, -$200.
    with pytest.raises(IllegalAction):
        g.push(Dispose(sell=-1))
    assert state_json(g) == before


def test_negative_trade_is_refused():
    g = _luxor_merged_into_tower()
    before = state_json(g)
    with pytest.raises(IllegalAction):
        g.push(Dispose(sell=3, trade=-2))
    assert state_json(g) == before


# ---------------------------------------------------------------------------
# Mergers: a safe chain and two small ones, plus lone start tiles (passing)
# ---------------------------------------------------------------------------

def _safe_and_two_small() -> Game:
    # Bob's and Cy's start tiles 5E and 5D touch but found nothing (seed 003).
    g = new(start={"Ann": "1I", "Bob": "5E", "Cy": "5D"})
    turn(g, "1A")                                   # 1 Ann
    turn(g, "2A", Found(chain="Tower"))             # 2 Bob founds Tower (1 share)
    for tile in ("3A", "4A", "5A", "6A", "7A", "8A", "9A", "10A"):
        turn(g, tile)                               # 3..10: Tower 10 tiles
    turn(g, "5B")                                   # 11 Bob: Tower 11, safe
    turn(g, "2C")                                   # 12 Cy: lone
    turn(g, "3C", Found(chain="Luxor"))             # 13 Ann founds Luxor (1 share)
    turn(g, "4C", buy={"Luxor": 1})                 # 14 Bob: Luxor 3 ($300) -> Bob 1 Luxor
    turn(g, "6C", buy={"Luxor": 2})                 # 15 Cy: lone; 2 Luxor $600
    turn(g, "7C", Found(chain="American"))          # 16 Ann founds American (1 share)
    return g


def test_merger_with_a_safe_chain_two_small_ones_and_lone_tiles():
    g = _safe_and_two_small()
    st = state_json(g)
    assert st["chains"]["Tower"]["safe"] and st["chains"]["Tower"]["size"] == 11
    assert st["board"]["5D"] is None and st["board"]["5E"] is None
    assert cash(g) == [6000, 6000 - 300, 6000 - 600]
    g.push(Place(tile="5C"))        # 17 Bob: touches Tower(11, safe), Luxor(3), American(2), lone 5D
    # Tower survives (largest); Luxor (3) goes first, without asking (no tie).
    # Luxor $300: Cy 2 -> majority $3000; Ann 1 = Bob 1 tie for minority: 1500 / 2 = 750 -> $800.
    assert cash(g) == [6000 + 800, 5700 + 800, 5400 + 3000]
    # Disposal clockwise from the mergemaker Bob: Bob, Cy, Ann.
    assert pending(g) == {"kind": "dispose", "player": "Bob", "chain": "Luxor", "survivor": "Tower",
                          "shares": 1, "price": 300, "trade_max": 0}
    g.push(Dispose(player="Bob", keep=1))
    assert pending(g)["player"] == "Cy" and pending(g)["trade_max"] == 2
    g.push(Dispose(player="Cy", trade=2))          # 2 Luxor -> 1 Tower
    g.push(Dispose(player="Ann", sell=1))          # +$300
    # American $300 (tier 2, size 2): Ann sole -> 3000 + 1500 = $4500; she sells her 1 for $300.
    assert pending(g)["chain"] == "American" and pending(g)["player"] == "Ann"
    g.push(Dispose(player="Ann", sell=1))
    st = state_json(g)
    assert st["pending"] == {"kind": "buy", "player": "Bob", "limit": 3}
    # Tower: 11 + Luxor 3 + American 2 + tile 5C + lone 5D and 5E (through 5D) = 19 -> $700.
    assert st["chains"] == {"Tower": {"size": 19, "price": 700, "safe": True,
                                      "bank_shares": 25 - 1 - 1, "bonuses": [7000, 3500]}}
    assert all(st["board"][t] == "Tower" for t in ("5C", "5D", "5E", "3C", "7C"))
    # Ann 6800 + 300 + 4500 + 300 = 11900; Bob 6500; Cy 8400.
    assert cash(g) == [11900, 6500, 8400]
    assert shares(g) == [{}, {"Tower": 1, "Luxor": 1}, {"Tower": 1}]


def test_undo_walks_back_through_a_merger_step_by_step():
    g = _safe_and_two_small()
    before = state_json(g)
    g.push(Place(tile="5C"))
    steps = [state_json(g)]
    for action in (Dispose(keep=1), Dispose(trade=2), Dispose(sell=1), Dispose(sell=1)):
        g.push(action)
        steps.append(state_json(g))
    steps.pop()
    while steps:
        g.undo()
        assert state_json(g) == steps.pop()
    g.undo()
    assert state_json(g) == before


# ---------------------------------------------------------------------------
# Survivor tie among four chains, then defunct-order ties of three and two
# ---------------------------------------------------------------------------

def test_four_equal_chains_survivor_choice_then_order_choices():
    g = new()
    turn(g, "5C")                                   # 1 Ann
    turn(g, "5D", Found(chain="Tower"))             # 2 Bob: Tower 5C-5D
    turn(g, "3E")                                   # 3 Cy
    turn(g, "4E", Found(chain="Luxor"))             # 4 Ann: Luxor 3E-4E
    turn(g, "7E")                                   # 5 Bob
    turn(g, "6E", Found(chain="American"))          # 6 Cy: American 6E-7E
    turn(g, "5G")                                   # 7 Ann
    turn(g, "5F", Found(chain="Worldwide"))         # 8 Bob: Worldwide 5F-5G
    g.push(Place(tile="5E"))                        # 9 Cy touches all four (each size 2)
    assert pending(g) == {"kind": "survivor", "player": "Cy",
                          "choices": ["Tower", "Luxor", "American", "Worldwide"]}
    with pytest.raises(IllegalAction):
        g.push(NextDefunct(chain="Tower"))          # not asked yet
    g.push(Survivor(chain="American"))
    assert pending(g) == {"kind": "next_defunct", "player": "Cy", "survivor": "American",
                          "choices": ["Tower", "Luxor", "Worldwide"]}
    with pytest.raises(IllegalAction, match="cannot go next"):
        g.push(NextDefunct(chain="American"))
    g.push(NextDefunct(chain="Worldwide"))
    # Worldwide $300: Bob sole -> $4500, then he sells 1 at $300.
    assert pending(g)["kind"] == "dispose" and pending(g)["player"] == "Bob"
    g.push(Dispose(sell=1))
    assert pending(g)["kind"] == "next_defunct" and pending(g)["choices"] == ["Tower", "Luxor"]
    g.push(NextDefunct(chain="luxor"))
    # Luxor $200: Ann sole -> $3000; she keeps her share.
    g.push(Dispose(keep=1))
    # Tower is last: no question. Bob sole -> $3000; sells 1 at $200.
    assert pending(g)["chain"] == "Tower" and pending(g)["player"] == "Bob"
    g.push(Dispose(sell=1))
    st = state_json(g)
    assert st["pending"]["kind"] == "buy" and st["current"] == "Cy"
    # American: 2 + 2 + 2 + 2 + tile = 9 -> tier 2 $700.
    assert list(st["chains"]) == ["American"] and st["chains"]["American"]["size"] == 9
    assert st["chains"]["American"]["price"] == 700
    # Ann 6000 + 3000; Bob 6000 + 4500 + 300 + 3000 + 200 = 14000; Cy 6000.
    assert cash(g) == [9000, 14000, 6000]


# ---------------------------------------------------------------------------
# Disposal order wraps around; holders with no shares are not asked
# ---------------------------------------------------------------------------

FOUR = ("Ann", "Bob", "Cy", "Di")
FAR4 = {"Ann": "1I", "Bob": "12A", "Cy": "12I", "Di": "12E"}


def _wrap_merger(**options) -> Game:
    g = new(FOUR, FAR4, **options)
    turn(g, "1A")                                   # 1 Ann
    turn(g, "2A", Found(chain="Tower"))             # 2 Bob: Tower (1 share)
    turn(g, "4A")                                   # 3 Cy
    turn(g, "5A", Found(chain="Luxor"), buy={"Tower": 3})   # 4 Di: Luxor; 3 Tower $600
    turn(g, "6A", buy={"Tower": 2})                 # 5 Ann: Luxor 3; 2 Tower $400
    turn(g, "9H")                                   # 6 Bob: lone
    g.push(Place(tile="3A"))                        # 7 Cy: Tower(2) into Luxor(3)
    return g


def test_disposal_order_wraps_clockwise_from_the_mergemaker():
    g = _wrap_merger()
    # Tower $200: Di 3 -> $2000, Ann 2 -> $1000; Bob 1 nothing; Cy holds none (not asked).
    assert cash(g) == [6000 - 400 + 1000, 6000, 6000, 6000 - 600 + 2000]
    assert pending(g)["player"] == "Di"             # seat after Cy, who holds nothing
    before = state_json(g)
    with pytest.raises(IllegalAction, match="not Ann's move"):
        g.push(Dispose(player="Ann", sell=2))
    assert state_json(g) == before
    g.push(Dispose(player="Di", sell=1, trade=2))   # +$200, 1 Luxor
    assert pending(g)["player"] == "Ann"            # wrapped to seat 0
    g.push(Dispose(player="Ann", sell=2))           # +$400
    assert pending(g)["player"] == "Bob"
    g.push(Dispose(player="Bob", sell=0, trade=0))  # keeps his 1 (keep left out: the rest)
    st = state_json(g)
    assert st["pending"] == {"kind": "buy", "player": "Cy", "limit": 3}
    assert cash(g) == [7000, 6000, 6000, 7600]
    # Luxor 3 + Tower 2 + tile = 6 -> $600; bank 25 - founder 1 - traded 1 = 23.
    assert st["chains"]["Luxor"] == {"size": 6, "price": 600, "safe": False, "bank_shares": 23,
                                     "bonuses": [6000, 3000]}
    assert shares(g) == [{}, {"Tower": 1}, {}, {"Luxor": 2}]


def test_end_by_the_mergemaker_during_another_players_disposal():
    g = _wrap_merger(end_size=2)                    # any chain of 2+ allows the end
    assert pending(g)["player"] == "Di"
    with pytest.raises(IllegalAction, match="only Cy"):
        g.push(End(player="Di"))                    # Di acts now, but it is Cy's turn
    g.push(End(player="Cy"))
    assert state_json(g)["end_declared"] and pending(g)["player"] == "Di"
    with pytest.raises(IllegalAction, match="already declared"):
        g.push(End())
    g.push(Dispose(sell=1, trade=2))
    g.push(Dispose(sell=2))
    g.push(Dispose(keep=1))
    assert pending(g)["kind"] == "buy"              # the turn continues, buying included
    g.push(Buy(shares={}))
    st = state_json(g)
    # Final: Luxor $600 (size 6): Di sole holder (2) -> 6000 + 3000, then 2 x 600 sold.
    # Di 7600 + 9000 + 1200 = 17800; Ann 7000; Bob 6000 (his Tower share is worthless); Cy 6000.
    assert st["pending"] is None and st["end_allowed"] is False
    assert st["standings"] == [{"name": "Di", "cash": 17800, "rank": 1},
                               {"name": "Ann", "cash": 7000, "rank": 2},
                               {"name": "Bob", "cash": 6000, "rank": 3},
                               {"name": "Cy", "cash": 6000, "rank": 3}]
    # undo across the game end: back to Cy's buy, nothing paid yet.
    g.undo()
    st = state_json(g)
    assert st["standings"] is None and st["pending"]["kind"] == "buy"
    assert cash(g) == [7000, 6000, 6000, 7600]


# ---------------------------------------------------------------------------
# Trade cap when the bank has no survivor share left
# ---------------------------------------------------------------------------

def test_trade_cap_is_zero_when_the_bank_has_no_survivor_shares():
    g = new()
    turn(g, "1A")                                   # 1 Ann
    turn(g, "2A", Found(chain="Tower"), buy={"Tower": 3})   # 2 Bob: 1 + 3 at $200
    turn(g, "3A", buy={"Tower": 3})                 # 3 Cy: size 3, 3 at $300
    turn(g, "4A", buy={"Tower": 3})                 # 4 Ann: size 4, 3 at $400
    turn(g, "5A", buy={"Tower": 3})                 # 5 Bob: size 5, $500
    turn(g, "6A", buy={"Tower": 3})                 # 6 Cy: $600
    turn(g, "7A", buy={"Tower": 3})                 # 7 Ann: $600
    turn(g, "8A", buy={"Tower": 3})                 # 8 Bob: $600 -> Bob 10
    turn(g, "9A", buy={"Tower": 3})                 # 9 Cy: $600 -> Cy 9 (Ann 6): 25 held
    assert state_json(g)["chains"]["Tower"]["bank_shares"] == 0
    turn(g, "1C")                                   # 10 Ann: lone
    turn(g, "1D", Found(chain="Luxor"), buy={"Luxor": 1})   # 11 Bob: Luxor; 2 Luxor in all
    g.push(Place(tile="1B"))                        # 12 Cy: Luxor(2) into Tower(9)
    # Luxor $200: Bob sole -> $3000. Bank Tower 0, so no trade at all.
    assert pending(g) == {"kind": "dispose", "player": "Bob", "chain": "Luxor", "survivor": "Tower",
                          "shares": 2, "price": 200, "trade_max": 0}
    before = state_json(g)
    with pytest.raises(IllegalAction, match="only 0 Tower"):
        g.push(Dispose(trade=2))
    assert state_json(g) == before
    g.push(Dispose(sell=2))
    # Bob: 6000 - 600 - 1500 - 1800 - 200 = 1900; + 3000 + 2 x 200 = 5300.
    assert cash(g)[1] == 5300


# ---------------------------------------------------------------------------
# Founding through the new tile; growth through lone tiles
# ---------------------------------------------------------------------------

def test_founding_through_a_tile_touching_three_lone_groups():
    g = new(start={"Ann": "1I", "Bob": "4D", "Cy": "4E"})   # 4D-4E: a lone pair (start tiles)
    turn(g, "3C")                                   # Ann: lone
    turn(g, "5C")                                   # Bob: lone
    g.push(Place(tile="4C"))                        # Cy: touches 3C, 5C and 4D (-> 4E)
    assert pending(g) == {"kind": "found", "player": "Cy", "tile": "4C",
                          "choices": [c.name for c in RULES.chains]}
    g.push(Found(chain="Continental"))
    st = state_json(g)
    # 4C + 3C + 5C + 4D + 4E = 5 tiles -> tier 3 at 5: $700.
    assert st["chains"]["Continental"]["size"] == 5 and st["chains"]["Continental"]["price"] == 700
    assert shares(g)[2] == {"Continental": 1}


# ---------------------------------------------------------------------------
# Dead tiles from a non-current player while a disposal is pending (physical)
# ---------------------------------------------------------------------------

def test_dead_tile_revealed_by_another_player_during_a_disposal():
    g = new(start={"Ann": "1I", "Bob": "12I", "Cy": "10I"})
    turn(g, "1A")
    turn(g, "2A", Found(chain="Tower"))
    for tile in ("3A", "4A", "5A", "6A", "7A", "8A", "9A", "10A", "11A"):
        turn(g, tile)                               # turns 3..11: Tower 11
    turn(g, "1C")
    turn(g, "2C", Found(chain="Luxor"))
    for tile in ("3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C", "11C"):
        turn(g, tile)                               # turns 14..22: Luxor 11
    turn(g, "1G")                                   # 23 Bob
    turn(g, "2G", Found(chain="American"))          # 24 Cy: 1 American
    turn(g, "4G")                                   # 25 Ann
    turn(g, "5G", Found(chain="Worldwide"))         # 26 Bob
    g.push(Place(tile="3G"))                        # 27 Cy: American(2) = Worldwide(2)
    g.push(Survivor(chain="Worldwide"))
    assert pending(g)["kind"] == "dispose" and pending(g)["player"] == "Cy"
    # 108 - 3 start - 18 in hands = 87; 26 finished turns drew one each: 61.
    assert state_json(g)["tiles_left"] == 61
    before = state_json(g)
    with pytest.raises(IllegalAction, match="not dead"):
        g.push(Dead(tile="12B", player="Bob"))      # touches nothing: not dead
    with pytest.raises(IllegalAction, match="no player"):
        g.push(Dead(tile="5B", player="Zed"))
    assert state_json(g) == before
    g.push(Dead(tile="b5", player="Ann"))           # 5B touches Tower(11) and Luxor(11)
    st = state_json(g)
    assert st["dead_tiles"] == ["5B"] and "5B" not in st["board"]
    assert st["tiles_left"] == 60                   # Ann drew a replacement
    assert st["pending"] == before["pending"] and st["current"] == "Cy"
    with pytest.raises(IllegalAction):
        g.push(Dead(tile="5B", player="Bob"))       # already out of the game
    g.push(Dispose(sell=1))
    g.push(Buy(shares={}))
    before = state_json(g)
    with pytest.raises(IllegalAction, match="left the game"):
        g.push(Place(tile="5B"))
    assert state_json(g) == before


# ---------------------------------------------------------------------------
# Two players: the market at the end, in the rule file's chain order; undo past the end
# ---------------------------------------------------------------------------

def test_two_player_end_market_in_rule_file_order_and_undo_past_the_end():
    g = new(("Ann", "Bob"), {"Ann": "1I", "Bob": "12I"})
    turn(g, "5A")                                   # 1 Ann
    turn(g, "6A", Found(chain="Luxor"))             # 2 Bob: Luxor first
    turn(g, "5C")                                   # 3 Ann
    turn(g, "6C", Found(chain="Tower"))             # 4 Bob: Tower second
    with pytest.raises(IllegalAction, match="may not be declared"):
        g.push(End())                               # neither 41+ nor all safe
    g.push(End(agreed=True, player="Ann"))          # 5 Ann, at her place step
    turn(g, None)                                   # no tile, buys nothing -> final payout
    # The market is asked for Tower before Luxor (card order), not founding order.
    assert pending(g) == {"kind": "market", "player": "Ann", "chain": "Tower"}
    before = state_json(g)
    with pytest.raises(IllegalAction, match="not in the bag"):
        g.push(Market(tile="5A"))                   # on the board
    with pytest.raises(IllegalAction, match="not Bob's move"):
        g.push(Market(tile="3E", player="Bob"))
    with pytest.raises(IllegalAction, match="already declared"):
        g.push(End())
    assert state_json(g) == before
    g.push(Market(tile="e3"))                       # market 3 > Bob 1: market $2000 stays; Bob $1000
    assert pending(g) == {"kind": "market", "player": "Ann", "chain": "Luxor"}
    assert cash(g) == [6000, 7000]
    g.push(Market(tile="1E"))                       # market 1 = Bob 1: 3000 / 2 = $1500 each
    st = state_json(g)
    # Bob 7000 + 1500 + Tower 200 + Luxor 200 = 8900.
    assert st["pending"] is None
    assert st["standings"] == [{"name": "Bob", "cash": 8900, "rank": 1},
                               {"name": "Ann", "cash": 6000, "rank": 2}]
    with pytest.raises(IllegalAction, match="over"):
        g.push(Buy(shares={}))
    g.undo()                                        # back across the end
    st = state_json(g)
    assert st["pending"] == {"kind": "market", "player": "Ann", "chain": "Luxor"}
    assert st["standings"] is None and cash(g) == [6000, 7000] and shares(g)[1] == {
        "Tower": 1, "Luxor": 1}


# ---------------------------------------------------------------------------
# End of game: standings ties, pass rounds, end at a found step
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("when", ["found", "next_turn"])
def test_equal_cash_shares_a_rank_and_the_next_rank_skips(when):
    g = new()
    turn(g, "5A")                                   # 1 Ann
    turn(g, "5C")                                   # 2 Bob
    turn(g, "9F")                                   # 3 Cy
    turn(g, "6A", Found(chain="Tower"))             # 4 Ann: Tower, 1 share
    if when == "found":
        g.push(Place(tile="6C"))                    # 5 Bob
        assert pending(g)["kind"] == "found"
        g.push(End(agreed=True))                    # declared at the found step
        g.push(Found(chain="Luxor"))
        g.push(Buy(shares={}))
    else:
        turn(g, "6C", Found(chain="Luxor"))         # 5 Bob: Luxor, 1 share
        g.push(End(agreed=True))                    # 6 Cy
        turn(g, None)
    # Tower and Luxor $200: each founder is sole holder -> 2000 + 1000, then sells 1 at $200.
    assert state_json(g)["standings"] == [{"name": "Ann", "cash": 9200, "rank": 1},
                                          {"name": "Bob", "cash": 9200, "rank": 1},
                                          {"name": "Cy", "cash": 6000, "rank": 3}]


def test_a_placement_breaks_the_round_of_passes():
    g = new()
    turn(g, None)                                   # Ann passes
    turn(g, None)                                   # Bob passes
    turn(g, "6F")                                   # Cy places
    turn(g, None)                                   # Ann
    turn(g, None)                                   # Bob
    assert state_json(g)["end_allowed"] is False    # only two passes in a row
    with pytest.raises(IllegalAction):
        g.push(End())
    g.push(NoTile())                                # Cy: three in a row, a full round
    assert state_json(g)["end_allowed"] is True
    assert state_json(g)["tiles_left"] == 87 - 1    # only Cy's placement drew
    g.push(End())
    g.push(Buy(shares={}))
    assert [s["rank"] for s in state_json(g)["standings"]] == [1, 1, 1]


def test_share_price_at_41_tiles_and_beyond():
    tower, continental = RULES.chain_index("Tower"), RULES.chain_index("Continental")
    assert [RULES.price(tower, n) for n in (40, 41, 108)] == [900, 1000, 1000]
    assert [RULES.price(continental, n) for n in (40, 41, 108)] == [1100, 1200, 1200]
    # Bonuses at 41+: tier 3 $1200 -> 12000 / 6000.
    assert RULES.bonus_mode("classic").bonuses(1200) == (12000, 6000)


# ---------------------------------------------------------------------------
# The player field
# ---------------------------------------------------------------------------

def test_player_field_must_name_whoever_is_asked():
    g = new()
    turn(g, "1A")
    g.push(Place(tile="2A", player="Bob"))
    before = state_json(g)
    for bad in (Found(chain="Tower", player="Ann"), Buy(shares={}, player="Bob"),
                NoTile(player="Bob"), End(agreed=True, player="Cy"),
                Found(chain="Tower", player="Nobody")):
        with pytest.raises(IllegalAction):
            g.push(bad)
    assert state_json(g) == before
    g.push(Found(chain="Tower", player="Bob"))
    g.push(Buy(shares={}, player="Bob"))
    assert pending(g) == {"kind": "place", "player": "Cy"}


# ---------------------------------------------------------------------------
# Views: no level shows more than it should, pending included
# ---------------------------------------------------------------------------

def test_views_inside_a_pending_disposal():
    g = _wrap_merger()
    full = state_json(g)
    assert full["pending"]["kind"] == "dispose"
    snapshot = json.dumps(full, sort_keys=True)
    seen = {level: view(full, level) for level in ("hidden", "bank", "players", "open")}
    assert json.dumps(full, sort_keys=True) == snapshot   # the state is not changed
    for level, shown in seen.items():
        rank = ("hidden", "bank", "players", "open").index(level)
        for player in shown["players"]:
            assert ("cash" in player) == (rank >= 3)
            assert ("shares" in player) == (rank >= 2)
            assert "tiles" not in player
        for chain in shown["chains"].values():
            assert ("bank_shares" in chain) == (rank >= 1)
        assert ("shares" in shown["pending"]) == (rank >= 2)
        assert ("trade_max" in shown["pending"]) == (rank >= 2)
        assert shown["pending"]["chain"] == "Tower" and shown["pending"]["price"] == 200
        assert shown["standings"] is None


def test_views_in_virtual_mode_never_show_hands():
    g = Game(RULES, ["Ann", "Bob", "Cy"], seed=11)
    full = state_json(g)
    assert all(len(p["tiles"]) == 6 for p in full["players"]) and "tiles" in full["pending"]
    hand_labels = {t for p in full["players"] for t in p["tiles"]}
    for level in ("hidden", "bank", "players", "open"):
        text = json.dumps(view(full, level))
        assert '"tiles"' not in text
        assert not any(f'"{label}"' in text for label in hand_labels)


# ---------------------------------------------------------------------------
# The state JSON
# ---------------------------------------------------------------------------

def test_state_json_has_the_contract_keys():
    g = _wrap_merger()
    st = state_json(g)
    assert {"rules", "turn", "current", "pending", "board", "chains", "players", "tiles_left",
            "end_allowed", "standings"} <= set(st)
    assert st["rules"] == "acquire" and st["current"] == "Cy" and st["turn"] == 7
    assert st["pending"]["kind"] == "dispose" and st["pending"]["player"] == "Di"
    assert all(set(p) == {"name", "cash", "shares"} for p in st["players"])   # physical: no tiles
    assert set(st["chains"]["Luxor"]) >= {"size", "price", "safe", "bank_shares", "bonuses"}
    # During the merger Tower is still on the board at its pre-merger size; the tile 3A is lone.
    assert st["chains"]["Tower"]["size"] == 2 and st["board"]["3A"] is None
    json.dumps(st)


# ---------------------------------------------------------------------------
# Virtual mode: refills, dead tiles, an exhausted bag
# ---------------------------------------------------------------------------

def _no_end_policy(g: Game, rng: random.Random) -> act.Action:
    p = g.pending
    if p.kind in ("place", "buy") and not g.end_declared and g.passes >= len(g.names):
        return End()
    if p.kind == "place":
        labels, playable = g.geometry.labels, []
        for cell in g.hands[p.player]:
            effect = g.board.classify(cell)[0]
            if effect == PUT_DEAD:
                return Dead(tile=labels[cell], player=g.names[p.player])
            if effect != PUT_NO_CHAIN:
                playable.append(cell)
        return Place(tile=labels[rng.choice(playable)]) if playable else NoTile()
    if p.kind == "buy":
        return Buy(shares={})
    if p.kind == "dispose":
        return _random_disposal(g, rng)
    name = g.rules.chains[rng.choice(p.choices)].name
    return {"found": Found, "survivor": Survivor, "next_defunct": NextDefunct}[p.kind](chain=name)


@pytest.mark.parametrize("seed", [0, 1, 3])
def test_virtual_game_played_until_the_bag_is_empty(seed):
    g = Game(RULES, ["Ann", "Bob", "Cy"], seed=seed)
    rng = random.Random(seed)
    while g.pending is not None:
        if g.tiles_left and g.pending.kind == "place":
            # At the start of a turn, while the bag lasts, every hand holds six: placing
            # draws one, revealing a dead tile draws one, passing draws none.
            assert [len(h) for h in g.hands] == [6, 6, 6]
        assert all(len(h) <= 6 for h in g.hands)
        g.push(_no_end_policy(g, rng))
        assert len(g.history) < 5000
    st = state_json(g)
    assert st["tiles_left"] == 0
    assert len(st["board"]) + len(st["dead_tiles"]) + sum(len(p["tiles"]) for p in st["players"]) == 108
    # Every share of an active chain was sold at the end; only defunct-chain shares remain.
    assert all(name not in st["chains"] for p in st["players"] for name in p["shares"])


def test_virtual_place_refills_and_refuses_a_tile_not_in_hand():
    g = Game(RULES, ["Ann", "Bob", "Cy"], seed=5)
    seat = g.current
    hand = list(g.hands[seat])
    other = g.hands[(seat + 1) % 3][0]
    before = state_json(g)
    with pytest.raises(IllegalAction, match="does not hold"):
        g.push(Place(tile=g.geometry.labels[other]))
    assert state_json(g) == before
    tile = g.playable(seat)[0]
    left = g.tiles_left
    g.push(Place(tile=g.geometry.labels[tile]))
    while g.pending.kind != "buy":
        g.push(Found(chain=g.rules.chains[g.pending.choices[0]].name))
    g.push(Buy(shares={}))
    assert len(g.hands[seat]) == 6 and tile not in g.hands[seat]
    assert set(hand) - {tile} <= set(g.hands[seat]) and g.tiles_left == left - 1


# ---------------------------------------------------------------------------
# The command line: lenient labels in, canonical labels out; line numbers
# ---------------------------------------------------------------------------

def test_cli_reads_labels_leniently_and_reports_line_numbers(tmp_path):
    lines = [
        {"setup": {"rules": "acquire", "players": ["Ann", "Bob", "Cy"],
                   "start_tiles": {"Ann": "i1", "Bob": "A-12", "Cy": "12 i"}}},
        {"do": "place", "tile": "c6"},
        {"do": "buy"},
        {"do": "place", "tile": " C-7 "},
        {"do": "found", "chain": " tower"},
        {"do": "buy", "shares": {"TOWER": 2}},
        {"do": "place", "tile": "13A"},
        {"do": "place", "tile": "6 d"},
    ]
    script = tmp_path / "game.jsonl"
    script.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "tabletop", "replay", str(script), "--keep-going"],
                         capture_output=True, text=True)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        "line 7: '13A' is not a cell of this board (labels run 1A..12I)"]
    st = json.loads(run.stdout)
    # 6C lone, 7C founds Tower (Bob, 1 share + 2 bought at $200), 6D grows it to 3.
    assert st["board"] == {"1I": None, "6C": "Tower", "6D": "Tower", "7C": "Tower",
                           "12A": None, "12I": None}
    assert st["players"][1] == {"name": "Bob", "cash": 5600, "shares": {"Tower": 3}}
    assert st["pending"] == {"kind": "buy", "player": "Cy", "limit": 3}
    # Without --keep-going: nothing on stdout, the first bad line on stderr.
    run = subprocess.run([sys.executable, "-m", "tabletop", "replay", str(script)],
                         capture_output=True, text=True)
    assert run.returncode == 2 and run.stdout == "" and run.stderr.startswith("line 7: ")


def test_undo_with_an_unknown_player_is_refused():
    g = _wrap_merger()
    before = state_json(g)
    with pytest.raises(IllegalAction):
        g.push(act.Undo(player="Zed"))
    assert state_json(g) == before
