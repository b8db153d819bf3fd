"""The properties Acquire keeps (tests/engine/test_properties.py), for MEGAcquire GOLD and ACQUISITIONS.

Random legal games in virtual mode, with every option a table may set:
the books balance after every action (shares per chain, including
ACQUISITIONS' staggered counts; cash never negative; every tile or card
somewhere), undo restores exactly, replay is deterministic, a physical-mode
replay agrees, and every game ends.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop import Game, load_rules, replay, state_json
from tabletop.engine.board import EMPTY, LONE, TURNOVER
from tabletop.engine.random_play import random_action

VARIANTS = ("megacquire-gold", "acquisitions")


def specs(name: str):
    rules = load_rules(name)
    options = {
        "founder_when_sold_out": st.sampled_from(["cash", "nothing"]),
        "defunct_order": st.sampled_from(["smallest_first", "largest_first"]),
        "hex_offset": st.sampled_from(["odd-r", "even-r"]),
    }
    if "quadrants_connect" in rules.options:
        options["quadrants_connect"] = st.booleans()
    return st.fixed_dictionaries({
        "rules": st.just(name),
        "seed": st.integers(0, 2**32),
        "players": st.integers(rules.min_players, rules.max_players),
        "options": st.fixed_dictionaries(options),
    })


any_variant = st.one_of(*(specs(name) for name in VARIANTS))


def new_game(spec: dict) -> Game:
    names = [f"P{i}" for i in range(spec["players"])]
    return Game(spec["rules"], names, spec["options"], seed=spec["seed"])


def check_books(game: Game) -> None:
    rules, board = game.rules, game.board
    for chain in rules.chains:
        c = chain.index
        assert game.bank[c] + sum(held[c] for held in game.holdings) == chain.shares
        assert game.bank[c] >= 0
        assert board.sizes[c] == board.cells.count(c)
        assert board.sizes[c] == 0 or board.sizes[c] >= 2
    assert all(cash >= 0 for cash in game.cash)
    # Every tile (card) is on the board, in a hand or in the bag: turnover tiles stay on the board.
    on_board = sum(1 for owner in board.cells if owner != EMPTY)
    in_hands = sum(len(hand) for hand in game.hands)
    copies = sum(len(cells) for cells in game.geometry.cells_of)
    assert on_board + in_hands + len(game.bag) == copies
    assert all(board.cells[cell] == TURNOVER for cell in game.dead)
    assert all(len(hand) <= rules.hand_size for hand in game.hands)
    for cell, owner in enumerate(board.cells):
        if owner >= 0:
            for near in game.geometry.neighbours[cell]:
                assert board.cells[near] in (owner, EMPTY, LONE, TURNOVER) or game.merger is not None


def play(game: Game, rng: random.Random, every_step=None) -> None:
    steps = 0
    while not game.over:
        action = random_action(game, rng)
        if every_step:
            every_step(game, action)
        game.push(action)
        check_books(game)
        steps += 1
        assert steps < 5000, "a random game did not end"


@settings(max_examples=20, deadline=None)
@given(any_variant)
def test_books_balance_and_games_end(spec):
    game = new_game(spec)
    play(game, random.Random(spec["seed"]))
    assert game.over
    for chain in game.board.active():
        assert game.bank[chain] == game.rules.chains[chain].shares
    cash = [game.cash[seat] for seat, _ in game.standings]
    assert cash == sorted(cash, reverse=True)
    assert [rank for _, rank in game.standings][0] == 1


@settings(max_examples=8, deadline=None)
@given(any_variant, st.randoms(use_true_random=False))
def test_undo_returns_exactly_the_previous_state(spec, chooser):
    game = new_game(spec)

    def maybe_undo(game: Game, action) -> None:
        if chooser.random() < 0.02:
            before = state_json(game)
            game.push(action)
            game.undo()
            assert state_json(game) == before

    play(game, random.Random(spec["seed"]), maybe_undo)
    before_last = game.rebuild(game.history[:-1])
    game.undo()
    assert state_json(game) == state_json(before_last)


@settings(max_examples=8, deadline=None)
@given(any_variant)
def test_replaying_a_script_is_deterministic(spec):
    game = new_game(spec)
    play(game, random.Random(spec["seed"]))
    lines = [json.dumps(line) for line in game.script()]
    first, second = replay(lines), replay(lines)
    assert first.errors == [] and second.errors == []
    assert json.dumps(state_json(first.game)) == json.dumps(state_json(game))
    assert json.dumps(state_json(second.game)) == json.dumps(state_json(game))


@settings(max_examples=8, deadline=None)
@given(any_variant)
def test_physical_mode_agrees_with_virtual_mode(spec):
    """The same placements told to a physical-mode game give the same money and board."""
    game = new_game(spec)
    play(game, random.Random(spec["seed"]))
    start = {game.names[seat]: game.geometry.tile_labels[tile]
             for seat, tile in game.start_tiles.items()}
    setup = {"setup": {"rules": spec["rules"], "players": game.names,
                       "options": spec["options"], "start_tiles": start}}
    physical = replay([json.dumps(setup)] + [json.dumps(line) for line in game.script()[1:]])
    assert physical.errors == []
    real, told = state_json(game), state_json(physical.game)
    for key in ("board", "chains", "players", "standings", "turn", "dead_tiles", "current"):
        if key == "players":
            for player in real[key]:
                player.pop("tiles")
        assert told[key] == real[key], key


@pytest.mark.parametrize("name", VARIANTS)
def test_the_random_policy_trades_shares_in_when_cash_is_short(name):
    """`tabletop simulate` plays trade-to-buy: some random games use it, always legally."""
    traded = 0
    for seed in range(6):
        game = new_game({"rules": name, "seed": seed, "players": 4, "options": {}})
        play(game, random.Random(seed))
        traded += sum(1 for action in game.history if getattr(action, "trade_in", None))
    assert traded > 0
