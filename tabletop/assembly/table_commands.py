"""The table commands: ``demo`` (the simulated table, played by bots) and ``run`` (the real one).

Part of the composition root: what they join (the renderer, the recognizer,
cameras, buttons) is imported only when they run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tabletop.errors import TabletopError


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``demo`` and ``run`` to the ``tabletop`` command line."""
    from tabletop.engine.ruleset import available_rules

    demo = commands.add_parser(
        "demo", help="a bot game at a simulated table: camera, tracker, prompts, buttons, journal")
    demo.add_argument("--rules", default="acquire", choices=available_rules())
    demo.add_argument("--seed", type=int, default=0, help="the same seed plays the same game")
    demo.add_argument("--players", type=int, help="how many bots sit at the table (default 4)")
    demo.add_argument("--speed", type=float, default=0.0,
                      help="pace: 1 is a real table's 10 frames a second, 0 (default) as fast "
                           "as the machine goes")
    demo.add_argument("--journal", metavar="DB",
                      help="record the game here (default: a new file in a temporary folder)")
    demo.add_argument("--headless", action="store_true",
                      help="print the game instead of showing the touchscreen app")
    demo.set_defaults(run=_demo)

    run = commands.add_parser(
        "run", help="run the table: camera, buttons and journal from the configuration")
    run.add_argument("--players", metavar="NAMES",
                     help="seats for a new game, in order: Ann,Bob,Cy (default: [table] players)")
    run.add_argument("--new", action="store_true",
                     help="start a new game even if one is unfinished (it stays in the journal)")
    run.add_argument("--headless", action="store_true",
                     help="print what the screen would show instead of opening the app")
    run.add_argument("--screen", action="store_true",
                     help="the Pi's service: show the app on the desktop logged in on the "
                          "touchscreen, waiting for it to come up (exit 1 if none does)")
    run.add_argument("--record", metavar="FOLDER", type=Path,
                     help="with the players' consent: keep the camera's frames at each "
                          "placement in FOLDER (a new folder), for `tabletop vision-report`")
    run.set_defaults(run=_run)

    shots = commands.add_parser(
        "screenshots", help="render every screen of the touchscreen app to PNG (needs a display)")
    shots.add_argument("--out", required=True, metavar="DIR", help="the folder for the PNGs")
    shots.set_defaults(run=_screenshots)


def _demo(args: argparse.Namespace) -> int:
    from tabletop.assembly.demo import run

    if args.speed < 0:
        print("tabletop: --speed must be 0 or more", file=sys.stderr)
        return 2
    if args.players is not None and args.players < 2:
        print("tabletop: --players must be 2 or more", file=sys.stderr)
        return 2
    try:
        if not args.headless and _display():
            return _demo_app(args)
        run(args.rules, args.seed, args.players, args.speed, args.journal,
            out=lambda line: print(line, flush=True))
    except KeyboardInterrupt:
        print("stopped: every confirmed action is in the journal", flush=True)
    return 0


def _run(args: argparse.Namespace) -> int:
    from tabletop.assembly.config import load_config
    from tabletop.assembly.runner import main

    players = [name.strip(" ") for name in args.players.split(",")] if args.players else None
    try:
        return main(load_config(), players, args.new, args.headless, args.screen,
                    record=args.record)
    except TabletopError:
        raise
    except ValueError as error:          # a device setting the hardware layer refused
        print(f"tabletop: {error}", file=sys.stderr)
        return 2


def _screenshots(args: argparse.Namespace) -> int:
    import os

    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        print("tabletop: screenshots need a display; on a machine without one: "
              "xvfb-run -s '-screen 0 1920x1080x24' tabletop screenshots --out DIR", file=sys.stderr)
        return 2
    try:
        from tabletop.assembly.screenshots import take
    except ImportError as error:
        print(f"tabletop: the touchscreen app needs Kivy ({error}): "
              f"pip install -e '.[ui]'", file=sys.stderr)
        return 2
    for path in take(args.out):
        print(path)
    return 0


def _display() -> bool:
    from tabletop.assembly.runner import _display as display

    return display()


def _demo_app(args: argparse.Namespace) -> int:
    """The demo on the touchscreen app: the bots advance a camera frame each tick."""
    from tabletop.assembly.config import load_config
    from tabletop.assembly.demo import Demo
    from tabletop.assembly.runner import prepare_window

    prepare_window(load_config())      # before the window exists: it fills the screen
    from ui.app import TableApp

    demo = Demo(args.rules, args.seed, args.players, 0.0, args.journal,
                out=lambda line: print(line, flush=True))
    fps = 10.0 * (args.speed or 1.0)
    try:
        TableApp(loop=demo.loop, driver=demo.steps(), fps=fps).run()
    finally:
        demo.close()
    return 0
