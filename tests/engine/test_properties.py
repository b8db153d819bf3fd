"""Properties every legal game keeps, checked over random games (hypothesis).

Each example plays a whole random game in virtual mode through the public
API, checking the bank's books after every action.
"""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from tabletop import Game, load_rules, replay, state_json
from tabletop.engine.board import EMPTY, LONE
from tabletop.engine.random_play import random_action

RULES = load_rules("acquire")

games = st.fixed_dictionaries({
    "seed": st.integers(0, 2**32),
    "players": st.integers(RULES.min_players, RULES.max_players),
    "options": st.fixed_dictionaries({
        "bonus_mode": st.sampled_from(["classic", "tycoon"]),
        "founder_when_sold_out": st.sampled_from(["cash", "nothing"]),
        "defunct_order": st.sampled_from(["largest_first", "smallest_first"]),
        "end_size": st.sampled_from([41, 25]),
    }),
})


def new_game(spec: dict) -> Game:
    names = [f"P{i}" for i in range(spec["players"])]
    return Game(RULES, names, spec["options"], seed=spec["seed"])


def check_books(game: Game) -> None:
    """The bank's books balance and the board agrees with the chain sizes."""
    for chain in range(len(RULES.chains)):
        held = sum(player[chain] for player in game.holdings)
        assert game.bank[chain] + held == RULES.shares_per_chain
        assert game.bank[chain] >= 0
        assert game.board.sizes[chain] == game.board.cells.count(chain)
        if game.board.sizes[chain]:
            assert game.board.sizes[chain] >= 2
    assert all(cash >= 0 for cash in game.cash)
    on_board = sum(1 for owner in game.board.cells if owner != EMPTY)
    in_hands = sum(len(hand) for hand in game.hands)
    assert on_board + in_hands + len(game.bag) + len(game.dead) == RULES.geometry.size
    assert len(game.hands[game.current]) <= RULES.hand_size
    # No two chains ever touch: a tile joining them would have merged them.
    for cell, owner in enumerate(game.board.cells):
        if owner >= 0:
            for near in RULES.geometry.neighbours[cell]:
                assert game.board.cells[near] in (owner, EMPTY, LONE) or game.merger is not None


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


@settings(max_examples=examples(40), deadline=None)
@given(games)
def test_books_balance_and_games_end(spec):
    game = new_game(spec)
    play(game, random.Random(spec["seed"]))
    assert game.over and game.pending is None
    # After the final payout every share of an active chain is back in the bank.
    for chain, size in enumerate(game.board.sizes):
        if size:
            assert game.bank[chain] == RULES.shares_per_chain
    ranks = [rank for _, rank in game.standings]
    assert ranks[0] == 1 and ranks == sorted(ranks)
    cash = [game.cash[seat] for seat, _ in game.standings]
    assert cash == sorted(cash, reverse=True)


@settings(max_examples=15, deadline=None)
@given(games, st.randoms(use_true_random=False))
def test_undo_returns_exactly_the_previous_state(spec, chooser):
    game = new_game(spec)
    checked = []

    def maybe_undo(game: Game, action) -> None:
        if chooser.random() < 0.03:
            before = state_json(game)
            game.push(action)
            game.undo()
            assert state_json(game) == before
            checked.append(action.kind)

    play(game, random.Random(spec["seed"]), maybe_undo)
    # Undo also takes back the very last action: the game is open again.
    before_last = game.rebuild(game.history[:-1])
    game.undo()
    assert state_json(game) == state_json(before_last)
    assert not game.over


def script_of(game: Game) -> list[str]:
    """The game's canonical table script, as JSON Lines."""
    return [json.dumps(line) for line in game.script()]


@settings(max_examples=15, deadline=None)
@given(games)
def test_replaying_a_script_is_deterministic(spec):
    game = new_game(spec)
    play(game, random.Random(spec["seed"]))
    lines = script_of(game)
    first, second = replay(lines), replay(lines)
    assert first.errors == [] and second.errors == []
    assert json.dumps(state_json(first.game)) == json.dumps(state_json(game))
    assert json.dumps(state_json(second.game)) == json.dumps(state_json(game))


@settings(max_examples=15, deadline=None)
@given(games.filter(lambda spec: spec["players"] > 2))
def test_physical_mode_agrees_with_virtual_mode(spec):
    """The same placements told to a physical-mode game give the same money and board."""
    game = new_game(spec)
    play(game, random.Random(spec["seed"]))
    start = {game.names[seat]: RULES.geometry.labels[cell]
             for seat, cell in game.start_tiles.items()}
    setup = {"setup": {"rules": "acquire", "players": game.names, "options": spec["options"],
                       "start_tiles": start}}
    lines = [json.dumps(setup)] + script_of(game)[1:]
    physical = replay(lines)
    assert physical.errors == []
    real, told = state_json(game), state_json(physical.game)
    for key in ("board", "chains", "standings", "turn", "dead_tiles"):
        assert told[key] == real[key]
    assert [p["cash"] for p in told["players"]] == [p["cash"] for p in real["players"]]


def fuzz_action(game: Game, rng: random.Random):
    """Any action at all: of any kind, for anyone, with arguments good or bad."""
    from tabletop.engine import actions as act
    labels = list(RULES.geometry.labels) + ["13A", "Z9", ""]
    chains = [c.name for c in RULES.chains] + ["Nowhere"]
    who = rng.choice(game.names + [None, "Zed"])
    count = lambda: rng.choice([0, 1, 2, 3, 4, -1, 7])  # noqa: E731
    kind = rng.choice(list(act.ACTIONS))
    if kind in ("place", "market", "dead"):
        return act.ACTIONS[kind](tile=rng.choice(labels), player=who)
    if kind in ("found", "survivor", "next_defunct"):
        return act.ACTIONS[kind](chain=rng.choice(chains), player=who)
    if kind == "dispose":
        return act.Dispose(player=who, sell=count(), trade=count(),
                           keep=rng.choice([None, count()]))
    if kind == "buy":
        return act.Buy(player=who, shares={rng.choice(chains): count() for _ in range(2)})
    if kind == "end":
        return act.End(player=who, agreed=rng.random() < 0.2)
    return act.ACTIONS[kind](player=who)


@settings(max_examples=20, deadline=None)
@given(games, st.randoms(use_true_random=False))
def test_any_action_is_either_legal_or_changes_nothing(spec, chooser):
    from tabletop import IllegalAction
    game = new_game(spec)
    rng = random.Random(spec["seed"])

    def safety_net_used(*args):
        raise AssertionError("an action failed part-way and needed the rebuild safety net")

    # Refusals must come before any change, not be repaired by push's last guard.
    game.rebuild = safety_net_used
    for _ in range(600):
        if game.over:
            break
        for _ in range(3):
            action = fuzz_action(game, chooser)
            if action.kind == "undo":
                continue
            before = json.dumps(state_json(game))
            try:
                game.push(action)
            except IllegalAction:
                assert json.dumps(state_json(game)) == before, action
            else:
                check_books(game)
        if not game.over:
            game.push(random_action(game, rng))
            check_books(game)


@settings(max_examples=15, deadline=None)
@given(games.map(lambda spec: {**spec, "players": 2}))
def test_two_player_market_draws_told_to_a_physical_game_give_the_same_result(spec):
    """Virtual mode draws the market's tiles itself; a physical table tells them with
    market lines at the points the game asks. Both must pay the same bonuses."""
    game = new_game(spec)
    rng = random.Random(spec["seed"])
    lines = []
    while not game.over:
        action = random_action(game, rng)
        events = game.push(action)
        lines.append(json.dumps(game.canonical(len(game.history) - 1).to_json()))
        for event in events:
            if event["event"] == "market":
                if event["tile"] is None:
                    return  # the bag was empty: a real table could draw nothing either
                lines.append(json.dumps({"do": "market", "tile": event["tile"]}))
    start = {game.names[seat]: RULES.geometry.labels[cell]
             for seat, cell in game.start_tiles.items()}
    setup = {"setup": {"rules": "acquire", "players": game.names, "options": spec["options"],
                       "start_tiles": start}}
    physical = replay([json.dumps(setup)] + lines)
    assert physical.errors == []
    real, told = state_json(game), state_json(physical.game)
    assert told["standings"] == real["standings"]
    assert told["chains"] == real["chains"] and told["board"] == real["board"]
