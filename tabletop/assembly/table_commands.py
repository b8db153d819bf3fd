"""The table commands: ``demo`` (the simulated table, played by bots) and ``run`` (the real one).

Part of the composition root: what they join (the renderer, the recognizer,
cameras, buttons) is imported only when they run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tabletop.errors import TabletopError
from tabletop.suggest import did_you_mean


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``demo``, ``run``, ``archive``, ``prune`` and ``screenshots`` to the command line."""
    from tabletop.engine.ruleset import available_rules

    demo = commands.add_parser(
        "demo", help="a bot game at a simulated table: camera, tracker, prompts, buttons, journal")
    demo.add_argument("--rules", default="acquire", choices=available_rules())
    demo.add_argument("--seed", type=int, default=0, help="the same seed plays the same game")
    demo.add_argument("--players", type=int,
                      help="how many bots sit at the table (default 4; the rule set says how "
                           "many it seats)")
    demo.add_argument("--mode", help="the bonus mode, e.g. tycoon (default: the rule set's)")
    demo.add_argument("--speed", type=float, default=0.0,
                      help="pace: 1 is a real table's 10 frames a second, 0 (default) as fast "
                           "as the machine goes")
    demo.add_argument("--turns", type=int, metavar="N",
                      help="stop after turn N (default: play to the end); the game stays "
                           "unfinished in the journal")
    demo.add_argument("--journal", metavar="DB",
                      help="record the game here (default: demo-journal.db in the data folder, "
                           "apart from the table's games)")
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
    run.add_argument("--camera", metavar="SOURCE",
                     help="the camera for this run instead of [camera] source: usb:0, "
                          "picamera2, file:VIDEO, dir:FRAMES, off, or sim[:RULES,seed=N] (a "
                          "simulated table whose players put the game's tiles down: try the "
                          "table on a laptop)")
    run.add_argument("--window", action="store_true",
                     help="a window of [screen] size instead of the full screen (a laptop)")
    run.add_argument("--data", metavar="DIR", type=Path,
                     help="keep the journal and the calibration in DIR instead of the data "
                          "folder ([paths] data)")
    run.add_argument("--round", type=int, metavar="N", dest="round_number",
                     help="the tournament round a new game is for (a table with [tournament] "
                          "set; default: [tournament] round, or the setup screen's)")
    run.set_defaults(run=_run)

    _register_archive(commands)

    shots = commands.add_parser(
        "screenshots", help="render every screen of the touchscreen app to PNG (needs a display)")
    shots.add_argument("--out", required=True, metavar="DIR", help="the folder for the PNGs")
    shots.add_argument("--only", action="append", metavar="SHOT", default=[],
                       help="only this shot, e.g. setup-megacquire-gold (again for more; "
                            "the names are those of the PNGs, before the language)")
    shots.set_defaults(run=_screenshots)


def _demo(args: argparse.Namespace) -> int:
    from tabletop.assembly.demo import demo_setup, run
    from tabletop.assembly.demo_view import Style, wants_colour

    refusal = _demo_refusal(args)
    if refusal:
        print(f"tabletop: {refusal}", file=sys.stderr)
        return 2
    demo_setup(args.rules, args.players, args.mode)    # refused before anything is written
    if not args.headless and _display():
        return _demo_app(args)
    try:
        run(args.rules, args.seed, args.players, args.speed, args.journal,
            out=lambda line: print(line, flush=True), mode=args.mode, turns=args.turns,
            style=Style(colour=wants_colour(sys.stdout)))
    except KeyboardInterrupt:
        # Ctrl-C: run has said that it stopped and where the game is kept; tabletop's main
        # would say "stopped" a second time.
        from tabletop.cli import EXIT_STOPPED

        return EXIT_STOPPED
    return 0


def _demo_refusal(args: argparse.Namespace) -> str:
    """What is wrong with the demo's numbers ("" if nothing)."""
    if not args.speed >= 0:        # also NaN
        return (f"--speed must be 0 or more, not {args.speed:g}: 0 plays as fast as the "
                f"machine goes, 1 at a real table's pace")
    if args.turns is not None and args.turns < 1:
        return f"--turns {args.turns}: give 1 or more (or leave it out to play to the end)"
    return ""


def _run(args: argparse.Namespace) -> int:
    from tabletop.assembly.config import load_config
    from tabletop.assembly.config_tournament import MAX_ROUND
    from tabletop.assembly.runner import main

    players = [name.strip(" ") for name in args.players.split(",")] if args.players else None
    if args.round_number is not None and not 1 <= args.round_number <= MAX_ROUND:
        print(f"tabletop: --round {args.round_number}: give a round from 1 to {MAX_ROUND}",
              file=sys.stderr)
        return 2
    try:
        config = load_config()
        if args.data is not None:
            config.values["paths"]["data"] = str(args.data.expanduser())
        if args.window:
            config.values["screen"]["windowed"] = True
        return main(config, players, args.new, args.headless, args.screen,
                    record=args.record, camera=args.camera, round_number=args.round_number)
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
    from tabletop.assembly.screenshots import shot_names

    unknown = [name for name in args.only if name not in shot_names()]
    if unknown:
        hint = did_you_mean(unknown[0], shot_names())
        print(f"tabletop: --only {unknown[0]}: no such shot" + (f": {hint}" if hint else "")
              + f" (shots: {', '.join(shot_names())})", file=sys.stderr)
        return 2
    try:
        from tabletop.assembly.screenshots import take
    except ImportError as error:
        print(f"tabletop: the touchscreen app needs Kivy ({error}): "
              f"pip install -e '.[ui]'", file=sys.stderr)
        return 2
    for path in take(args.out, args.only):
        print(path)
    return 0


def _display() -> bool:
    from tabletop.assembly.runner import _display as display

    return display()


def _demo_app(args: argparse.Namespace) -> int:
    """The demo on the touchscreen app: the bots advance a camera frame each tick. Ctrl-C
    says what the headless demo says (when it stopped, where the game is kept), once."""
    from tabletop.assembly.config import load_config
    from tabletop.assembly.demo import BEFORE_THE_GAME, Demo
    from tabletop.assembly.demo_view import Style, wants_colour
    from tabletop.assembly.runner import prepare_window
    from tabletop.cli import EXIT_STOPPED

    try:
        prepare_window(load_config())      # before the window exists: it fills the screen
        from ui.app import TableApp

        demo = Demo(args.rules, args.seed, args.players, 0.0, args.journal,
                    out=lambda line: print(line, flush=True), mode=args.mode,
                    turns=args.turns, style=Style(colour=wants_colour(sys.stdout)))
    except KeyboardInterrupt:
        print(BEFORE_THE_GAME, flush=True)
        return EXIT_STOPPED
    fps = 10.0 * (args.speed or 1.0)

    def steps():
        yield from demo.steps()
        # The app stays open on the game's end (its results screen): say how to leave it.
        print("The window stays open on the game: press Esc or close it to end.", flush=True)

    try:
        TableApp(loop=demo.loop, driver=steps(), fps=fps).run()
    except KeyboardInterrupt:
        demo.where(stopped=True)
        return EXIT_STOPPED
    finally:
        demo.close()
    return 0


def _register_archive(commands: argparse._SubParsersAction) -> None:
    archive = commands.add_parser(
        "archive", help="write old games of the journal to an archive file (to prune them after)")
    archive.add_argument("--before", type=int, metavar="GAME_ID",
                         help="the finished games with an id below GAME_ID")
    archive.add_argument("--finished-before", metavar="YYYY-MM-DD",
                         help="the games finished before that day (UTC)")
    archive.add_argument("--abandoned", type=int, action="append", default=[], metavar="GAME_ID",
                         help="an unfinished game given up, archived too (again for more)")
    archive.add_argument("--to", required=True, metavar="FILE", help="the archive file to write")
    archive.add_argument("--force", action="store_true", help="replace FILE if it exists")
    archive.add_argument("--journal", metavar="DB", help="the journal (default: the data folder's)")
    archive.set_defaults(run=_archive)

    prune = commands.add_parser(
        "prune", help="remove from the journal the games an archive holds (checked first)")
    prune.add_argument("--archived", required=True, metavar="FILE",
                       help="the archive `tabletop archive` wrote")
    prune.add_argument("--journal", metavar="DB", help="the journal (default: the data folder's)")
    prune.set_defaults(run=_prune)


def _archive(args: argparse.Namespace) -> int:
    import datetime
    import os

    from tabletop.assembly.config import default_journal_path, load_config
    from tabletop.journal.archive import Selection, archive_journal
    from tabletop.journal.journal import _journal_files, open_for_reading
    from tabletop.journal.slip import KEY_FILE, SIGNING_KEY_FILE, sign, slip_data, \
        table_signing_key

    if args.finished_before is not None:
        try:
            datetime.date.fromisoformat(args.finished_before)
        except ValueError:
            raise TabletopError(f"--finished-before {args.finished_before}: give a day as "
                                f"YYYY-MM-DD, e.g. 2026-11-30") from None
    path = Path(args.journal) if args.journal else default_journal_path()
    selection = Selection(args.before, args.finished_before, tuple(args.abandoned))
    data = load_config().data_dir
    keep = [*_journal_files(path, path.with_suffix(".log")), data / KEY_FILE,
            data / SIGNING_KEY_FILE]
    key = []

    def signed(info, lines):
        if not key:
            key.append(table_signing_key(data))     # made on first use, as `tabletop slip` does
        return sign(slip_data(info, lines), key[0])

    with open_for_reading(path) as journal:
        games, notes = archive_journal(journal, selection, args.to, args.force, signed, keep)
    for note in notes:
        print(f"tabletop: {note}", file=sys.stderr)
    over = sum(1 for game in games if game.finished is not None)
    print(f"archived {len(games)} game{'s' if len(games) != 1 else ''} of {path} to {args.to} "
          f"({os.path.getsize(args.to):,} bytes): {', '.join(str(game.id) for game in games)}; "
          f"{over} finished with signed slips, {len(games) - over} abandoned; "
          f"`tabletop prune --archived {args.to}` removes them from the journal")
    return 0


def _prune(args: argparse.Namespace) -> int:
    from tabletop.assembly.config import default_journal_path
    from tabletop.journal.prune import prune_archived

    path = Path(args.journal) if args.journal else default_journal_path()
    result = prune_archived(path, args.archived)
    for message in result.report:
        print(f"tabletop: {message}", file=sys.stderr)
    print(result.summary())
    return 0
