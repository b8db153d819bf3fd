"""Engine benchmark: random games per second, and the time to rebuild a game.

    python bench/engine.py [--games 2000] [--rules acquire] [--players 4] [--profile]

Random play is the policy of ``tabletop simulate`` (every choice random among
the legal ones, the end declared as soon as it is allowed). A rebuild replays
a finished game's whole table script from its setup, as ``undo`` does.
Run it by hand on a quiet machine; the README keeps the figures.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import platform
import pstats
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tabletop import Game, load_rules, replay  # noqa: E402
from tabletop.engine.actions import parse_action  # noqa: E402
from tabletop.engine.random_play import play_random_game, random_action, simulate  # noqa: E402


def games_per_second(rules, players: int, games: int, repeats: int = 3) -> tuple[float, float]:
    """The best of ``repeats`` runs: a shared machine only ever slows a run down."""
    reports = [simulate(rules, games, players, seed=0) for _ in range(repeats)]
    best = max(reports, key=lambda report: report.games_per_second)
    return best.games_per_second, best.actions / games


def time_split(rules, players: int, games: int) -> dict[str, float]:
    """Milliseconds a game spends setting up, choosing (random policy) and in the engine."""
    names = [f"P{i + 1}" for i in range(players)]
    clock, spent = time.perf_counter, {"setup": 0.0, "policy": 0.0, "engine": 0.0}
    for seed in range(games):
        started = clock()
        game, rng = Game(rules, names, seed=seed), random.Random(seed)
        spent["setup"] += clock() - started
        while game.pending is not None:
            started = clock()
            action = random_action(game, rng)
            chosen = clock()
            game.push(action)
            spent["policy"] += chosen - started
            spent["engine"] += clock() - chosen
    return {part: seconds * 1000 / games for part, seconds in spent.items()}


def rebuild_times(rules, players: int, games: int) -> list[float]:
    """Milliseconds to rebuild each finished game from its parsed actions."""
    names = [f"P{i + 1}" for i in range(players)]
    times = []
    for seed in range(games):
        game = play_random_game(rules, names, seed)
        history = [parse_action(line) for line in game.script()[1:]]
        best = float("inf")
        for _ in range(5):
            started = time.perf_counter()
            game.rebuild(history)
            best = min(best, time.perf_counter() - started)
        times.append(best * 1000)
    return times


def script_replay_ms(rules, players: int) -> float:
    """Milliseconds for ``replay`` of one finished game's JSON Lines text."""
    game = play_random_game(rules, [f"P{i + 1}" for i in range(players)], seed=1)
    lines = [json.dumps(line) for line in game.script()]
    best = float("inf")
    for _ in range(10):
        started = time.perf_counter()
        replay(lines)
        best = min(best, time.perf_counter() - started)
    return best * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="acquire")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--profile", action="store_true", help="print where the time goes")
    args = parser.parse_args()
    rules = load_rules(args.rules)
    print(f"machine: {platform.machine()}, {platform.processor() or 'cpu'}, "
          f"Python {platform.python_version()}")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        games_per_second(rules, args.players, min(args.games, 300))
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
        return
    rate, actions = games_per_second(rules, args.players, args.games)
    print(f"{args.rules}, {args.players} players: {rate:.0f} random games/s on one core "
          f"({actions:.0f} actions a game, best of 3 runs of {args.games} games)")
    split = time_split(rules, args.players, min(args.games, 500))
    print("where a game's time goes: " + ", ".join(f"{part} {ms:.2f} ms" for part, ms in split.items()))
    times = rebuild_times(rules, args.players, 50)
    print(f"rebuild of a finished game (undo): median {statistics.median(times):.2f} ms, "
          f"max {max(times):.2f} ms over 50 games")
    print(f"replay of a finished game's JSON Lines script: {script_replay_ms(rules, args.players):.2f} ms")


if __name__ == "__main__":
    main()
