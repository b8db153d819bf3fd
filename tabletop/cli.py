"""The ``tabletop`` command line: the composition root.

``replay``, ``rules`` and ``simulate`` use the engine alone. Commands that
join the engine to a camera, the screen or devices are wired here, lazily,
so that the engine installs and runs without OpenCV or Kivy.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from tabletop.errors import TabletopError

EXIT_ILLEGAL = 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except TabletopError as error:
        print(f"tabletop: {error}", file=sys.stderr)
        return EXIT_ILLEGAL
    except BrokenPipeError:
        return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tabletop", description="Banker and stock broker for Acquire-family board games.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    replay = commands.add_parser("replay", help="apply a table script and print the state JSON")
    replay.add_argument("script", help="the game as JSON Lines (- for standard input)")
    replay.add_argument("--keep-going", action="store_true",
                        help="report and skip illegal lines instead of stopping at the first")
    from tabletop.views import LEVELS
    replay.add_argument("--view", choices=LEVELS,
                        help="print what a shared screen shows at this disclosure level")
    replay.set_defaults(run=_replay)

    rules = commands.add_parser("rules", help="list rule sets, or print one's information card")
    rules.add_argument("name", nargs="?", help="a rule set name, e.g. acquire")
    rules.add_argument("--mode", help="bonus mode, e.g. classic or tycoon")
    rules.set_defaults(run=_rules)

    config = commands.add_parser("config", help="print the configuration file's path and the effective values")
    config.set_defaults(run=_config)

    simulate = commands.add_parser("simulate", help="play random legal games in virtual mode")
    simulate.add_argument("--rules", default="acquire")
    simulate.add_argument("--games", type=int, default=100)
    simulate.add_argument("--players", type=int, default=4)
    simulate.add_argument("--seed", type=int, default=0)
    simulate.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                          help="a rule option, e.g. bonus_mode=tycoon (repeatable)")
    simulate.set_defaults(run=_simulate)
    return parser


def _replay(args: argparse.Namespace) -> int:
    from tabletop.script import replay
    from tabletop.views import state_json, view

    try:
        if args.script == "-":
            raw = sys.stdin.buffer.read()
        else:
            with open(args.script, "rb") as handle:
                raw = handle.read()
        text = raw.decode("utf-8-sig")
    except OSError as error:
        print(f"tabletop: cannot read {args.script}: {error.strerror}", file=sys.stderr)
        return EXIT_ILLEGAL
    except UnicodeDecodeError as error:
        print(f"tabletop: {args.script} is not UTF-8 text (byte {error.start})", file=sys.stderr)
        return EXIT_ILLEGAL
    result = replay(text.splitlines(), keep_going=args.keep_going)
    for number, reason in result.errors:
        print(f"line {number}: {reason}", file=sys.stderr)
    if result.game is not None and (args.keep_going or not result.errors):
        state = state_json(result.game)
        print(json.dumps(view(state, args.view) if args.view else state, indent=2))
    return EXIT_ILLEGAL if result.errors else 0


def _rules(args: argparse.Namespace) -> int:
    from tabletop.card import information_card
    from tabletop.ruleset import available_rules, load_rules

    if args.name is None:
        for name in available_rules():
            rules = load_rules(name)
            provisional = rules.notes or any(m.provisional for m in rules.bonus_modes.values())
            flag = "  (provisional tables)" if provisional else ""
            print(f"{name:20} {rules.title}{flag}")
        return 0
    rules = load_rules(args.name)
    try:
        print(information_card(rules, args.mode))
    except ValueError as error:
        print(f"tabletop: {error}", file=sys.stderr)
        return EXIT_ILLEGAL
    return 0


def _simulate(args: argparse.Namespace) -> int:
    from tabletop.simulate import simulate

    if args.games < 1:
        print("tabletop: --games must be at least 1", file=sys.stderr)
        return EXIT_ILLEGAL
    options = dict(_option(text) for text in args.option)
    report = simulate(args.rules, args.games, args.players, args.seed, options)
    game = report.last
    print(f"{report.games} games of {args.rules} with {args.players} players in "
          f"{report.seconds:.2f} s: {report.games_per_second:.0f} games/s, "
          f"{report.actions / report.games:.0f} actions a game")
    print(f"last game (seed {args.seed + args.games - 1}), {game.turn} turns:")
    for seat, rank in game.standings:
        print(f"  {rank}. {game.names[seat]:8} {game.rules.currency}{game.cash[seat]:,}")
    return 0


def _config(args: argparse.Namespace) -> int:
    from tabletop.config import load_config

    config = load_config()
    state = "" if config.found else " (not there: defaults in use)"
    print(f"# configuration file: {config.path}{state}")
    print(f"# data folder: {config.data_dir}")
    for section, values in config.values.items():
        print(f"\n[{section}]")
        for key, value in values.items():
            print(f"{key} = {json.dumps(value)}")
    return 0


def _option(text: str) -> tuple[str, object]:
    name, _, value = text.partition("=")
    try:
        return name, json.loads(value)
    except json.JSONDecodeError:
        return name, value


if __name__ == "__main__":
    sys.exit(main())
