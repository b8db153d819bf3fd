"""Adversarial review of MEGAcquire GOLD and ACQUISITIONS (RULES.md sections 2-3, issue 3).

Each test here was written to fail before the fix of the defect it names:

1. A buy line whose ``shares`` or ``trade_in`` is not a mapping (Python API):
   ``shares=None`` was accepted as "buys nothing" and then broke ``script()``
   and ``undo()``; ``trade_in=None`` raised AttributeError (and used the
   rebuild safety net) instead of IllegalAction.
2. ``end`` during MEGAcquire's closing phase did not check ``agreed``: an
   ``agreed`` of None or "" was accepted and written into the canonical script,
   which then did not replay.
3. The random policy (``tabletop simulate``) always put an ACQUISITIONS card
   on the first free legal hex in quadrant order: quadrant 1 took half of all
   castles and quadrant 4 one in twenty, and the first castle of every game
   went into quadrant 1. It now picks the hex at random.
4. In virtual mode (the engine knows every remaining tile) the closing phase
   could be ended with tiles still unplaced, so the payout counted companies
   short of the rule "place the remaining tiles on the board".

The rest guard rule details the review checked by hand (figures in the comments).
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from tabletop import Buy, End, Game, IllegalAction, Place, replay, state_json
from tabletop.engine import actions as act
from tabletop.engine.random_play import play_random_game, random_action


def no_safety_net(game: Game) -> None:
    """Make push's last guard (a rebuild after an unexpected exception) fail loudly."""

    def used(*args):
        raise AssertionError("an action failed part-way and needed the rebuild safety net")

    game.rebuild = used


def random_until(game: Game, kind: str, seed: int) -> Game:
    rng = random.Random(seed)
    while game.pending is not None and game.pending.kind != kind:
        game.push(random_action(game, rng))
    assert game.pending is not None, f"the game ended before {kind}"
    return game


def mega_buy_with_a_company() -> Game:
    """A virtual MEGAcquire game waiting for a buy with a company on the board."""
    game = Game("megacquire-gold", ["Ann", "Bob", "Cy"], seed=3)
    rng = random.Random(1)
    while game.pending.kind != "buy" or not game.board.active():
        game.push(random_action(game, rng))
    return game


# ---------------------------------------------------------------------------
# 1. Malformed buy lines through the Python API
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("action", [
    Buy(shares=None),
    Buy(shares="Luster"),
    Buy(shares=[("Luster", 1)]),
    Buy(shares={}, trade_in=None),
    Buy(shares={"Luster": 1}, trade_in=None),
    Buy(shares={"Luster": 1}, trade_in=["Teton"]),
])
def test_a_buy_that_is_not_a_mapping_is_refused_and_changes_nothing(action):
    game = mega_buy_with_a_company()
    before = json.dumps(state_json(game))
    history = len(game.history)
    no_safety_net(game)
    with pytest.raises(IllegalAction, match="chain names"):
        game.push(action)
    assert json.dumps(state_json(game)) == before and len(game.history) == history
    del game.rebuild  # the game's own rebuild again
    game.script()  # still writable
    lines = [json.dumps(line) for line in game.script()]
    assert json.dumps(state_json(replay(lines).game)) == before


# ---------------------------------------------------------------------------
# 2. end during the closing phase: agreed must be true or false
# ---------------------------------------------------------------------------

def mega_closing(seed: int = 5) -> Game:
    game = Game("megacquire-gold", ["Ann", "Bob", "Cy", "Dee"], seed=seed)
    return random_until(game, "closing", seed)


@pytest.mark.parametrize("agreed", [None, "", 0, "yes", 1])
def test_end_in_the_closing_phase_checks_agreed(agreed):
    game = mega_closing()
    before = json.dumps(state_json(game))
    with pytest.raises(IllegalAction):
        game.push(End(agreed=agreed))
    assert json.dumps(state_json(game)) == before


def test_a_closing_phase_end_always_replays():
    game = mega_closing()
    for cell in game.remaining_cells():
        game.push(Place(tile=game.geometry.labels[cell], player="Bob"))
    game.push(End(player="Cy"))
    assert game.over
    lines = [json.dumps(line) for line in game.script()]
    result = replay(lines)
    assert result.errors == []
    assert json.dumps(state_json(result.game)) == json.dumps(state_json(game))
    assert game.script()[-1] == {"do": "end", "player": "Cy"}


# ---------------------------------------------------------------------------
# 3. The random policy picks an ACQUISITIONS card's hex at random
# ---------------------------------------------------------------------------

def quadrant(label: str) -> str:
    return label.split("/")[0]


def test_the_random_policy_plays_the_first_castle_in_any_quadrant():
    # A game's first castle can go on its card's hex in any of the four quadrants
    # (the board is empty): each quadrant should get about a quarter of 200 games.
    first = Counter()
    for seed in range(200):
        game = Game("acquisitions", ["Ann", "Bob", "Cy"], seed=seed)
        action = random_action(game, random.Random(seed))
        assert isinstance(action, act.Place)
        first[quadrant(action.tile)] += 1
    assert set(first) == {"1", "2", "3", "4"}
    assert min(first.values()) >= 25, first  # was {"1": 200}


def test_random_games_spread_castles_over_the_four_quadrants():
    placed = Counter()
    for seed in range(40):
        game = play_random_game("acquisitions", ["Ann", "Bob", "Cy", "Dee"], seed)
        placed.update(quadrant(a.tile) for a in game.history if isinstance(a, act.Place))
    total = sum(placed.values())
    # was about 50% / 30% / 15% / 5%
    assert all(0.15 < placed[q] / total < 0.35 for q in "1234"), placed


@pytest.mark.parametrize("name", ["acquire", "megacquire-gold"])
def test_one_cell_boards_play_the_same_random_games_as_before(name):
    # The fix draws a random number only for a card with several hexes: Acquire and
    # MEGAcquire games (benchmarks, recorded seeds) are unchanged.
    game = play_random_game(name, ["P1", "P2", "P3", "P4"], 11)
    expected = {"acquire": (177, [49800, 41200, 23000, 16300]),
                "megacquire-gold": (363, [784, 736, 629, 568])}[name]
    assert (len(game.history), [s["cash"] for s in state_json(game)["standings"]]) == expected


# ---------------------------------------------------------------------------
# 4. Virtual mode: the closing phase ends once every remaining tile is placed
# ---------------------------------------------------------------------------

def test_virtual_closing_phase_places_every_remaining_tile_before_the_payout():
    game = mega_closing()
    remaining = game.remaining_cells()
    assert remaining and state_json(game)["pending"]["tiles"] == [
        game.geometry.labels[c] for c in remaining]
    before = json.dumps(state_json(game))
    with pytest.raises(IllegalAction, match="remain"):
        game.push(End(player="Ann"))
    assert json.dumps(state_json(game)) == before
    for cell in remaining[:-1]:
        game.push(Place(tile=game.geometry.labels[cell]))
    with pytest.raises(IllegalAction, match="1 tile remains"):
        game.push(End())
    game.push(Place(tile=game.geometry.labels[remaining[-1]]))
    assert state_json(game)["pending"] == {"kind": "closing", "player": game.names[game.current],
                                           "tiles": []}
    game.push(End())
    assert game.over and game.tiles_left == 0 and not any(game.hands)


def test_physical_closing_phase_still_ends_on_the_table_s_word():
    game = mega_closing()
    start = {game.names[s]: game.geometry.tile_labels[t] for s, t in game.start_tiles.items()}
    setup = {"setup": {"rules": "megacquire-gold", "players": game.names,
                       "start_tiles": start}}
    lines = [json.dumps(setup)] + [json.dumps(line) for line in game.script()[1:]]
    physical = replay(lines + [json.dumps({"do": "end"})])
    assert physical.errors == [] and physical.game.over


# ---------------------------------------------------------------------------
# Guards: rule details checked by hand (no defect found)
# ---------------------------------------------------------------------------

def _mega_table(*args, **kwargs):
    from test_megacquire import Table
    return Table(*args, **kwargs)


def _near(label):
    from test_megacquire import near
    return near(label)


# Smallest-first defunct order with a tie, and disposal ties from the mergemaker's left.
# MEGAcquire (odd-r); F-6 touches F-5 (Luster F-4 F-5), E-7 (Teton E-7 E-8), G-7 (Global G-7..G-9).
#   1 Ann F-5 lone                 2 Bob F-4 founds Luster, buys 1 @2        Bob 118
#   3 Cy E-7 lone, 2 Luster @2     Cy 116
#   4 Ann E-8 founds Teton, 2 Luster @2                                       Ann 116
#   5 Bob G-7 lone, 1 Teton @2     Bob 116
#   6 Cy G-8 founds Global         7 Ann G-9: Global 3
#   8 Bob F-6: Global (3) survives; Luster and Teton (2 each) tie: Bob picks Teton.
#     Teton 2M (20/10): Ann 1, Bob 1 share 30: 15 each; disposal Ann, then Bob.
#     Luster 2M: Bob 2, Cy 2, Ann 2 share 30: 10 each; disposal from Bob's left: Cy, Ann, Bob.
#     Global 3 + 2 + 2 + 1 = 8 tiles (hotel 3M, 6-10: 7M); Bob buys 1.

def test_tied_smallest_defuncts_are_ordered_by_the_mergemaker():
    chains = [{"F-4", "F-5"}, {"E-7", "E-8"}, {"G-7", "G-8", "G-9"}]
    assert _near("F-6") & set().union(*chains) == {"F-5", "E-7", "G-7"}
    for i, one in enumerate(chains):  # each chain's hexes touch, and no other chain's
        assert all(_near(cell) & one for cell in one)
        others = set().union(*chains[:i], *chains[i + 1:])
        assert not any(_near(cell) & others for cell in one)
    t = _mega_table(["Ann", "Bob", "Cy"], {"Ann": "A-1", "Bob": "A-2", "Cy": "A-3"})
    t.turn("F-5")
    t.turn("F-4", found="Luster", buy={"Luster": 1})
    t.turn("E-7", buy={"Luster": 2})
    t.turn("E-8", found="Teton", buy={"Luster": 2})
    t.turn("G-7", buy={"Teton": 1})
    t.turn("G-8", found="Global")
    t.turn("G-9")
    t.do("place", tile="F-6", player="Bob")
    pending = t.state()["pending"]
    assert pending == {"kind": "next_defunct", "player": "Bob", "survivor": "Global",
                       "choices": ["Luster", "Teton"]}
    t.refused("next_defunct", match="cannot go next", chain="Global", player="Bob")
    t.refused("next_defunct", match="not Cy's move", chain="Teton", player="Cy")
    events = t.do("next_defunct", chain="Teton", player="Bob")
    assert [(e["chain"], e["player"], e["amount"]) for e in events if e["event"] == "bonus"] == [
        ("Teton", "Ann", 15), ("Teton", "Bob", 15)]
    order = []
    for sell in (1, 0, 2, 2, 2):
        order.append(t.pending())
        t.do("dispose", sell=sell, player=t.pending()[1])
        if len(order) == 2:
            assert [(e["chain"], e["player"], e["amount"]) for e in t.events
                    if e["event"] == "bonus"] == [
                ("Luster", "Ann", 10), ("Luster", "Bob", 10), ("Luster", "Cy", 10)]
    assert order == [("dispose", "Ann"), ("dispose", "Bob"),
                     ("dispose", "Cy"), ("dispose", "Ann"), ("dispose", "Bob")]
    assert t.chain("Global")["size"] == 8 and t.chain("Global")["price"] == 7
    t.do("buy", shares={"Global": 1}, player="Bob")
    t.replayed()
    assert t.cash() == {"Ann": 116 + 15 + 2 + 10 + 4, "Bob": 116 + 15 + 10 + 4 - 7,
                        "Cy": 116 + 10 + 4}
    assert t.shares("Bob") == {"Teton": 1, "Global": 1}


def test_closing_tile_touching_a_company_and_a_lone_tile_grows_it_by_both():
    from test_megacquire import two_safe_companies
    t = two_safe_companies()
    t.do("place", tile="N-13", player="Ann")
    t.do("end", player="Ann")
    t.do("buy", shares={}, player="Ann")
    assert t.pending() == ("closing", "Ann")
    # M-2 touches no company; L-2 touches Luster (K-2, K-3) and M-2.
    assert _near("M-2") == {"L-1", "L-2", "M-1", "M-3", "N-1", "N-2"}
    assert _near("L-2") == {"K-2", "K-3", "L-1", "L-3", "M-2", "M-3"}
    t.do("place", tile="M-2", player="Bob")
    assert t.board()["M-2"] is None
    events = t.do("place", tile="L-2", player="Cy")
    assert [e for e in events if e["event"] == "grew"] == [
        {"event": "grew", "chain": "Luster", "size": 23}]
    assert t.board()["M-2"] == t.board()["L-2"] == "Luster"
    t.do("end", player="Bob")
    t.replayed()


def test_state_during_the_round_an_agreed_end_completes():
    t = _mega_table(["Ann", "Bob", "Cy"], {"Ann": "C-3", "Bob": "A-5", "Cy": "B-1"})
    t.turn("A-1")                                   # Bob
    t.do("place", tile="A-3", player="Cy")
    t.do("end", agreed=True, player="Cy")
    st = t.state()
    assert (st["end_declared"], st["end_allowed"]) == (True, False)
    t.refused("end", match="already declared", agreed=True, player="Cy")
    t.do("buy", shares={}, player="Cy")
    st = t.state()
    assert (st["end_declared"], st["end_allowed"], st["pending"]["kind"]) == (True, False, "place")
    t.refused("end", match="already declared", player="Ann")
    t.turn("N-13")                                  # Ann, the seat before Bob: the last turn
    assert t.state()["pending"] is None


def test_two_player_megacquire_and_acquisitions_have_no_stock_market():
    for name in ("megacquire-gold", "acquisitions"):
        for seed in range(5):
            game = Game(name, ["Ann", "Bob"], seed=seed)
            rng, kinds = random.Random(seed), set()
            while not game.over:
                kinds.add(game.pending.kind)
                for event in game.push(random_action(game, rng)):
                    assert event["event"] != "market"
            assert "market" not in kinds and not game.two_player_market
