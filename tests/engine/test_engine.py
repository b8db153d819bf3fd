"""The engine through its Python API: turns, tiles, pending choices, views."""

from __future__ import annotations

import pytest

from tabletop import (Buy, Dead, Dispose, End, Found, Game, IllegalAction, NoTile, Place,
                      Survivor, load_rules, state_json, view)
from tabletop.engine.board import Board
from tabletop.engine.random_play import play_random_game

RULES = load_rules("acquire")


def game(players=("Ann", "Bob", "Cy"), **kwargs) -> Game:
    return Game(RULES, list(players), **kwargs)


def turn(g: Game, tile: str, *then) -> None:
    """Place ``tile``, answer what it asks with ``then``, buy nothing."""
    g.push(Place(tile=tile))
    for action in then:
        g.push(action)
    g.push(Buy(shares={}))


def test_start_tiles_stay_as_lone_tiles_and_decide_who_starts():
    g = game(start_tiles={"Ann": "5C", "Bob": "2I", "Cy": "2H"})
    state = state_json(g)
    # 2H and 2I touch, yet found nothing; 2H is closest to 1A (number, then letter).
    assert state["board"] == {"2H": None, "2I": None, "5C": None}
    assert state["chains"] == {}
    assert state["current"] == "Cy" and state["pending"] == {"kind": "place", "player": "Cy"}
    # Three start tiles and three hands of six leave 108 - 3 - 18 in the bag.
    assert state["tiles_left"] == 87


def test_play_goes_down_the_seating_list_from_the_starter():
    g = game(start_tiles={"Ann": "5C", "Bob": "2I", "Cy": "9A"})
    assert g.names[g.current] == "Bob"
    turn(g, "12A")
    assert state_json(g)["current"] == "Cy"
    turn(g, "12C")
    assert state_json(g)["current"] == "Ann"
    assert state_json(g)["turn"] == 3


def test_founding_takes_every_connected_lone_tile():
    g = game(start_tiles={"Ann": "5C", "Bob": "5E", "Cy": "12I"})
    # Bob (5E) is behind Ann (5C) in order; Ann starts.
    g.push(Place(tile="5D"))
    pending = state_json(g)["pending"]
    assert pending["kind"] == "found" and pending["tile"] == "5D"
    assert len(pending["choices"]) == 7
    g.push(Found(chain="imperial"))  # chain names are read in any case
    state = state_json(g)
    assert state["chains"]["Imperial"]["size"] == 3
    assert state["chains"]["Imperial"]["price"] == 500
    assert state["players"][0]["shares"] == {"Imperial": 1}
    assert state["chains"]["Imperial"]["bank_shares"] == 24


def test_growth_absorbs_lone_tiles_connected_through_the_new_tile():
    g = game(start_tiles={"Ann": "1A", "Bob": "3B", "Cy": "12I"})
    turn(g, "1B", Found(chain="Tower"))          # Ann: Tower on 1A-1B
    turn(g, "12A")                               # Bob: a lone tile far away
    turn(g, "2B")                                # Cy: touches Tower and the lone 3B
    state = state_json(g)
    assert state["chains"]["Tower"]["size"] == 4
    assert state["board"]["3B"] == "Tower" and state["board"]["12A"] is None


def test_eighth_chain_is_refused_and_the_tile_waits():
    g = Game(RULES, ["Ann", "Bob", "Cy"])
    columns = ["1", "3", "5", "7", "9", "11", "1"]
    rows = ["A", "A", "A", "A", "A", "A", "E"]
    for i, chain in enumerate(c.name for c in RULES.chains):
        col, row = columns[i], rows[i]
        low = chr(ord(row) + 1)
        turn(g, f"{col}{row}")
        turn(g, f"{col}{low}", Found(chain=chain))
    assert len(state_json(g)["chains"]) == 7
    turn(g, "12I")
    before = state_json(g)
    with pytest.raises(IllegalAction, match="every chain is on the board"):
        g.push(Place(tile="12H"))
    assert state_json(g) == before


def test_no_tile_turns_make_the_end_allowed_after_a_full_round():
    g = game()
    for _ in range(2):
        g.push(NoTile())
        g.push(Buy(shares={}))
    assert not state_json(g)["end_allowed"]
    with pytest.raises(IllegalAction, match="may not be declared"):
        g.push(End())
    g.push(NoTile())
    assert state_json(g)["end_allowed"]
    g.push(End())
    g.push(Buy(shares={}))
    state = state_json(g)
    assert state["pending"] is None
    assert [s["rank"] for s in state["standings"]] == [1, 1, 1]
    assert [s["name"] for s in state["standings"]] == ["Ann", "Bob", "Cy"]


def test_agreed_end_finishes_the_turn_then_pays_out():
    g = game(start_tiles={"Ann": "1A", "Bob": "5E", "Cy": "12I"})
    turn(g, "1B", Found(chain="Luxor"))
    g.push(Place(tile="6E"))
    g.push(Found(chain="Tower"))
    g.push(End(agreed=True))
    assert state_json(g)["pending"]["kind"] == "buy"
    g.push(Buy(shares={"Tower": 3}))
    state = state_json(g)
    # Bob: sole Tower holder (4 shares, size 2, $200): 6000 - 600 + 3000 bonus + 800 sale.
    # Ann: sole Luxor holder (1 share, $200): 6000 + 3000 + 200.
    cash = {s["name"]: s["cash"] for s in state["standings"]}
    assert cash == {"Bob": 9200, "Ann": 9200, "Cy": 6000}
    assert [s["rank"] for s in state["standings"]] == [1, 1, 3]
    assert [s["name"] for s in state["standings"]] == ["Ann", "Bob", "Cy"]


def test_agreed_end_can_be_switched_off():
    g = game(options={"agreed_end": False})
    with pytest.raises(IllegalAction, match="agreement"):
        g.push(End(agreed=True))


def test_virtual_mode_deals_and_knows_the_hands():
    g = game(seed=11)
    state = state_json(g)
    assert state["mode"] == "virtual"
    hands = [p["tiles"] for p in state["players"]]
    assert all(len(hand) == 6 for hand in hands)
    assert state["tiles_left"] == 108 - 3 - 18
    someone_else = hands[(g.current + 1) % 3][0]
    with pytest.raises(IllegalAction, match="does not hold"):
        g.push(Place(tile=someone_else))
    mine = state["pending"]["tiles"][0]
    g.push(Place(tile=mine))
    while g.pending.kind != "buy":
        g.push(Found(chain=RULES.chains[g.pending.choices[0]].name))
    g.push(Buy(shares={}))
    # The placer drew a replacement: still six tiles.
    assert len(state_json(g)["players"][(g.current - 1) % 3]["tiles"]) == 6
    assert state_json(g)["tiles_left"] == 108 - 3 - 18 - 1


def test_virtual_no_tile_is_refused_while_a_tile_is_playable():
    g = game(seed=5)
    with pytest.raises(IllegalAction, match="has a tile to place"):
        g.push(NoTile())


def test_same_seed_same_game():
    a = play_random_game(RULES, ["A", "B", "C", "D"], seed=42)
    b = play_random_game(RULES, ["A", "B", "C", "D"], seed=42)
    assert state_json(a) == state_json(b)
    assert a.history == b.history


def test_an_action_for_the_wrong_player_changes_nothing():
    g = game(start_tiles={"Ann": "1A", "Bob": "5E", "Cy": "12I"})
    before = state_json(g)
    with pytest.raises(IllegalAction, match="not Bob's move"):
        g.push(Place(tile="3C", player="Bob"))
    with pytest.raises(IllegalAction, match="no player called"):
        g.push(Place(tile="3C", player="Zed"))
    assert state_json(g) == before


def test_disposal_must_account_for_every_share():
    g = game(start_tiles={"Ann": "1A", "Bob": "1C", "Cy": "12I"})
    turn(g, "2A", Found(chain="Tower"))                  # Ann: Tower 1A-2A, 1 share
    turn(g, "1D", Found(chain="Luxor"))                  # Bob: Luxor 1C-1D
    g.push(Place(tile="3D"))                             # Cy: lone
    g.push(Buy(shares={"Tower": 1}))
    turn(g, "3A")                                        # Ann: Tower 3 tiles
    g.push(Place(tile="1B"))                             # Bob merges Luxor(2) into Tower(3)
    pending = state_json(g)["pending"]
    assert pending == {"kind": "dispose", "player": "Bob", "chain": "Luxor",
                       "survivor": "Tower", "shares": 1, "price": 200, "trade_max": 0}
    before = state_json(g)
    with pytest.raises(IllegalAction, match="must make 1"):
        g.push(Dispose(sell=1, keep=1))
    with pytest.raises(IllegalAction, match="multiple of 2"):
        g.push(Dispose(trade=1))
    assert state_json(g) == before
    g.push(Dispose(sell=1))
    state = state_json(g)
    # Bob was Luxor's sole holder: $2000 + $1000 bonus, then one share sold at $200.
    assert state["players"][1]["cash"] == 6000 + 3000 + 200
    assert state["chains"]["Tower"]["size"] == 6
    assert "Luxor" not in state["chains"]
    assert state["pending"] == {"kind": "buy", "player": "Bob", "limit": 3}


def test_survivor_choice_is_limited_to_the_tied_chains():
    g = game(start_tiles={"Ann": "1A", "Bob": "1C", "Cy": "12I"})
    turn(g, "2A", Found(chain="Tower"))
    turn(g, "2C", Found(chain="Luxor"))
    g.push(Place(tile="1B"))
    assert state_json(g)["pending"]["choices"] == ["Tower", "Luxor"]
    with pytest.raises(IllegalAction, match="cannot survive"):
        g.push(Survivor(chain="American"))
    g.push(Survivor(chain="Luxor"))
    assert state_json(g)["pending"]["kind"] == "dispose"
    assert state_json(g)["pending"]["chain"] == "Tower"


def test_dead_tile_in_virtual_mode_is_replaced_from_the_bag():
    g = play_random_game(RULES, ["A", "B", "C", "D"], seed=3)
    dead = [a for a in g.history if isinstance(a, Dead)]
    revealed = state_json(g)["dead_tiles"]
    assert len(revealed) == len(dead)


def test_views_show_no_more_than_their_level():
    g = game(seed=2)
    full = state_json(g)
    hidden, bank, players, open_ = (view(full, level) for level in
                                    ("hidden", "bank", "players", "open"))
    assert all("tiles" not in p for v in (hidden, bank, players, open_) for p in v["players"])
    assert all("cash" not in p and "shares" not in p for p in hidden["players"])
    assert all("cash" not in p and "shares" in p for p in players["players"])
    assert all("cash" in p and "shares" in p for p in open_["players"])
    assert "tiles" not in open_["pending"]
    with pytest.raises(ValueError):
        view(full, "everything")


def test_views_hide_bank_shares_only_when_hidden():
    g = game(start_tiles={"Ann": "1A", "Bob": "5E", "Cy": "12I"})
    g.push(Place(tile="1B"))
    g.push(Found(chain="Tower"))
    full = state_json(g)
    assert "bank_shares" not in view(full, "hidden")["chains"]["Tower"]
    assert view(full, "bank")["chains"]["Tower"]["bank_shares"] == 24


def test_the_screen_view_defaults_to_the_tables_disclosure():
    g = game(options={"disclosure": "bank"}, start_tiles={"Ann": "1A", "Bob": "5E", "Cy": "12I"})
    g.push(Place(tile="1B"))
    g.push(Found(chain="Tower"))
    shown = view(state_json(g))
    assert shown["view"] == "bank"
    assert all("cash" not in p and "shares" not in p for p in shown["players"])
    assert shown["chains"]["Tower"]["bank_shares"] == 24


def test_end_is_no_longer_offered_once_declared():
    g = game()
    for _ in range(3):
        g.push(NoTile())
        if g.pending.kind == "buy" and g.passes < 3:
            g.push(Buy(shares={}))
    assert state_json(g)["end_allowed"]
    g.push(End())
    state = state_json(g)
    assert state["end_declared"] and not state["end_allowed"]


def test_tournament_undo_reaches_back_only_within_the_turn():
    g = game(options={"incorrect_placement": "same_turn"},
             start_tiles={"Ann": "1A", "Bob": "5E", "Cy": "12I"})
    turn(g, "1B", Found(chain="Tower"))                # Ann's turn is over
    with pytest.raises(IllegalAction, match="turn has moved on"):
        g.undo()
    g.push(Place(tile="7G"))                           # Bob misplaces, notices at once
    g.undo()
    assert "7G" not in state_json(g)["board"]
    with pytest.raises(IllegalAction, match="turn has moved on"):
        g.undo()
    g.push(Place(tile="7H"))
    assert state_json(g)["board"]["7H"] is None


def test_undo_reaches_back_across_turns_by_default():
    g = game(start_tiles={"Ann": "1A", "Bob": "5E", "Cy": "12I"})
    turn(g, "1B", Found(chain="Tower"))
    for _ in range(3):
        g.undo()
    assert state_json(g)["board"] == {"1A": None, "5E": None, "12I": None}
    with pytest.raises(IllegalAction, match="nothing to undo"):
        g.undo()


def test_a_fault_part_way_through_an_action_leaves_the_game_as_it_was(monkeypatch):
    g = game(start_tiles={"Ann": "1A", "Bob": "5E", "Cy": "12I"})
    turn(g, "1B", Found(chain="Tower"))
    before = state_json(g)

    real_absorb, faults = Board.absorb, []

    def absorb_failing_once(board, cell, chain):
        if not faults:  # fails after _place has already put the tile down
            faults.append(cell)
            raise RuntimeError("simulated fault")
        return real_absorb(board, cell, chain)

    monkeypatch.setattr(Board, "absorb", absorb_failing_once)
    with pytest.raises(RuntimeError):
        g.push(Place(tile="1C"))                  # Bob's tile would grow Tower
    assert faults and state_json(g) == before
    g.push(Place(tile="1C"))                      # the rebuilt board works normally
    assert state_json(g)["chains"]["Tower"]["size"] == 3


def test_the_script_comes_back_canonical_with_every_player_named():
    g = game(start_tiles={"Ann": "a-1", "Bob": "5e", "Cy": "I12"})
    g.push(Place(tile="b1"))
    g.push(Found(chain="tower"))
    g.push(Buy(shares={"TOWER": 1, "tower": 1, "Luxor": 0}))
    script = g.script()
    assert script[0] == {"setup": {"rules": "acquire", "players": ["Ann", "Bob", "Cy"],
                                   "start_tiles": {"Ann": "1A", "Bob": "5E", "Cy": "12I"}}}
    assert script[1:] == [{"do": "place", "player": "Ann", "tile": "1B"},
                          {"do": "found", "player": "Ann", "chain": "Tower"},
                          {"do": "buy", "player": "Ann", "shares": {"Tower": 2}}]
    import json

    from tabletop import replay
    again = replay([json.dumps(line) for line in script])
    assert again.errors == [] and state_json(again.game) == state_json(g)
