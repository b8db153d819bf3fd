"""The ``tabletop`` command line: parses the arguments and hands each command to its room.

``replay``, ``rules`` and ``simulate`` use the engine alone; ``games``,
``export``, ``slip``, ``verify`` and ``key`` the journal and score slips. Commands that
join the engine to a camera, the screen or devices are wired here, lazily,
so that the engine installs and runs without OpenCV or Kivy.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from tabletop.arguments import rule_set
from tabletop.errors import TabletopError

if TYPE_CHECKING:
    from tabletop.engine.random_play import SimulationReport
    from tabletop.journal.journal import Journal

EXIT_ILLEGAL = 2
EXIT_INVALID = 1   # verify: the slip's signature does not hold
EXIT_STOPPED = 130  # Ctrl-C, as a shell reports a command SIGINT ended (128 + 2)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        parser = _parser()
        args = parser.parse_args(argv)
        if args.command is None:        # `tabletop` alone: what it can do, not a usage error
            parser.print_help()
            print("\n`tabletop COMMAND --help` gives a command's options; docs/commands.md "
                  "shows each with examples.")
            return 0
        return args.run(args)
    except TabletopError as error:
        print(f"tabletop: {error}", file=sys.stderr)
        return EXIT_ILLEGAL
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:   # Ctrl-C: whatever a command keeps is already written
        print("tabletop: stopped", file=sys.stderr)
        return EXIT_STOPPED


def _parser() -> argparse.ArgumentParser:
    from tabletop.arguments import Parser

    parser = Parser(
        prog="tabletop", description="Banker and stock broker for Acquire-family board games.")
    parser.add_argument("--version", action=_Version, help="print tabletop's version and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    replay = commands.add_parser("replay", help="apply a table script and print the state JSON")
    replay.add_argument("script", nargs="?",
                        help="the game as JSON Lines (- for standard input)")
    replay.add_argument("--keep-going", action="store_true",
                        help="report and skip illegal lines instead of stopping at the first")
    from tabletop.engine.state import LEVELS
    replay.add_argument("--view", choices=LEVELS,
                        help="print what a shared screen shows at this disclosure level")
    replay.add_argument("--journal", metavar="DB",
                        help="replay a game of this journal (default: the data folder's)")
    replay.add_argument("--game", type=int, metavar="ID", help="the journal's game to replay")
    replay.set_defaults(run=_replay)

    games = commands.add_parser("games", help="list the games of the journal")
    games.add_argument("--journal", metavar="DB", help="the journal (default: the data folder's)")
    games.set_defaults(run=_games)

    check = commands.add_parser("check", help="check every record of the journal (changes nothing "
                                "unless --repair)")
    check.add_argument("--repair", action="store_true",
                       help="repair what is damaged, as the table does when it opens the journal")
    check.add_argument("--journal", metavar="DB", help="the journal (default: the data folder's)")
    check.add_argument("--if-recorded", action="store_true",
                       help="a table that has recorded no game yet has nothing to check: exit 0 "
                            "(the nightly check of a new table)")
    check.set_defaults(run=_check)

    export = commands.add_parser("export", help="print a journaled game as jsonl, json or csv")
    export.add_argument("game", type=int, metavar="GAME", help="the game's id (see `tabletop games`)")
    export.add_argument("--format", choices=("jsonl", "json", "csv"), default="jsonl")
    export.add_argument("--clean", action="store_true",
                        help="jsonl: leave out undone actions and the undo lines")
    export.add_argument("--journal", metavar="DB", help="the journal (default: the data folder's)")
    export.add_argument("--out", metavar="FILE", help="write to FILE instead of standard output")
    export.set_defaults(run=_export)

    slip = commands.add_parser("slip", help="make the signed score slip of a finished game")
    slip.add_argument("game", type=int, metavar="GAME", help="the game's id (see `tabletop games`)")
    slip.add_argument("--journal", metavar="DB", help="the journal (default: the data folder's)")
    slip.add_argument("--key", metavar="KEYFILE",
                      help="the signing key (default: the table's, slip-ed25519.key in the data "
                           "folder, made on first use); an old HMAC key makes an old slip")
    slip.add_argument("--out", metavar="FILE", help="write the slip's JSON to FILE")
    slip.add_argument("--text", action="store_true",
                      help="print the slip as text for a 58 mm receipt printer (32 columns)")
    slip.set_defaults(run=_slip)

    verify = commands.add_parser("verify", help="check a score slip's signature")
    verify.add_argument("slip", metavar="SLIP",
                        help="the slip's JSON, a file holding its QR code's text (- for "
                             "standard input: a scanner's text), or a photo of the printed "
                             "slip's QR code (.png, .jpg)")
    verify.add_argument("--public", metavar="KEY",
                        help="the public key of the table that signed it: the text "
                             "`tabletop key --public` prints there, or a file holding it")
    verify.add_argument("--key", metavar="KEYFILE",
                        help="an old HMAC slip's key (default: slip.key in the data folder)")
    verify.add_argument("--round", type=int, metavar="N",
                        help="refuse a slip of another tournament round (with --table)")
    verify.add_argument("--table", metavar="NAME",
                        help="refuse a slip of another tournament table (with --round)")
    verify.add_argument("--tournament", metavar="NAME",
                        help="refuse a slip of another tournament (with --round and --table)")
    verify.set_defaults(run=_verify)

    key = commands.add_parser("key", help="print the table's slip-signing key's fingerprint "
                              "(--public: its public key, for a tournament director)")
    key.add_argument("--public", action="store_true",
                     help="print the public key and its fingerprint, to be saved or pasted by "
                          "whoever checks the table's slips")
    key.set_defaults(run=_key)

    rules = commands.add_parser("rules", help="list rule sets, or print one's information card")
    rules.add_argument("name", nargs="?", help="a rule set name, e.g. acquire")
    rules.add_argument("--mode", help="bonus mode, e.g. classic or tycoon")
    rules.set_defaults(run=_rules)

    config = commands.add_parser("config", help="print the configuration file's path and the effective values")
    config.set_defaults(run=_config)

    simulate = commands.add_parser("simulate", help="play random legal games in virtual mode")
    simulate.add_argument("--rules", default="acquire",
                          help="the rule set played (default: acquire; `tabletop rules` lists them)")
    simulate.add_argument("--games", type=int, default=100)
    simulate.add_argument("--players", type=int, default=4)
    simulate.add_argument("--seed", type=int, default=0)
    simulate.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                          help="a rule option, e.g. bonus_mode=tycoon (repeatable)")
    simulate.set_defaults(run=_simulate)

    from tabletop.assembly.vision_commands import register as vision  # OpenCV loads only when they run
    vision(commands)
    from tabletop.assembly.table_commands import register as table
    table(commands)
    from tabletop.director.commands import register as director   # paho loads only in listen
    director(commands)
    return parser


class _Version(argparse.Action):
    """``--version``, looked up only when asked: importlib.metadata is a tenth of the start of
    every command."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(f"tabletop {_version()}")
        parser.exit()


def _version() -> str:
    """The installed distribution's version, or the checkout's when it is run uninstalled."""
    from importlib import metadata

    try:
        return metadata.version("tabletop")
    except metadata.PackageNotFoundError:
        return "(not installed: run from a checkout)"


def _replay(args: argparse.Namespace) -> int:
    from tabletop.engine.table_script import replay
    from tabletop.engine.state import state_json, view

    if args.game is not None or args.journal is not None:
        return _replay_journal(args)
    if args.script is None:
        print("tabletop: replay needs a script, or --game ID (with --journal DB)", file=sys.stderr)
        return EXIT_ILLEGAL
    from tabletop.engine.table_script import script_lines

    try:
        text = _read_script(args.script).decode("utf-8-sig")
    except OSError as error:
        print(f"tabletop: cannot read {args.script}: {error.strerror}", file=sys.stderr)
        return EXIT_ILLEGAL
    except _NotAScript as error:
        print(f"tabletop: {error}", file=sys.stderr)
        return EXIT_ILLEGAL
    except UnicodeDecodeError as error:
        print(f"tabletop: {args.script} is not UTF-8 text (byte {error.start})", file=sys.stderr)
        return EXIT_ILLEGAL
    result = replay(script_lines(text), keep_going=args.keep_going)
    for number, reason in result.errors:
        print(f"line {number}: {reason}", file=sys.stderr)
    if result.errors and sys.stderr.isatty():   # piped, the errors stay the lines programs read
        print(_refused(args.script, len(result.errors), args.keep_going), file=sys.stderr)
    if result.game is not None and (args.keep_going or not result.errors):
        state = state_json(result.game)
        print(json.dumps(view(state, args.view) if args.view else state, indent=2))
    return EXIT_ILLEGAL if result.errors else 0


def _refused(path: str, count: int, keep_going: bool) -> str:
    """The line a person at a terminal sees after a script's ``line N: ...`` errors: which
    file, what became of it, and what a table script is. Programs read those errors from a
    pipe, where nothing is added: what they read stays as it was."""
    where = "standard input" if path == "-" else path
    what = f"{_count(count, 'illegal line')} skipped; the state printed is without them" \
        if keep_going else "stopped at its first illegal line; --keep-going skips each and goes on"
    return (f"tabletop: {where}: {what}. A table script holds one JSON object a line: the "
            f"setup, then one action a line (docs/design.md, \"Table scripts\")")


def _count(n: int, noun: str) -> str:
    """
    >>> _count(1, "game"), _count(2, "game")
    ('1 game', '2 games')
    """
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


class _NotAScript(Exception):
    """A file ``replay`` will not read (the command line's own: no screen shows it)."""


def _read_script(path: str) -> bytes:
    """A table script's bytes (``-``: standard input); _NotAScript if it cannot be one:
    not a regular file (a FIFO or /dev/zero would be read for ever) or too large."""
    import os
    import stat

    from tabletop.engine.table_script import MAX_SCRIPT

    if path == "-":
        raw = sys.stdin.buffer.read(MAX_SCRIPT + 1)
    else:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise _NotAScript(f"cannot read {path}: not a regular file")
        with open(path, "rb") as handle:
            raw = handle.read(MAX_SCRIPT + 1)
    if len(raw) > MAX_SCRIPT:
        where = "standard input" if path == "-" else path
        raise _NotAScript(f"{where} is too large to be a table script "
                            f"(more than {MAX_SCRIPT:,} bytes)")
    return raw


def _replay_journal(args: argparse.Namespace) -> int:
    from tabletop.journal.export import final_game
    from tabletop.engine.state import state_json, view

    if args.script is not None or args.game is None:
        print("tabletop: replay takes either a script or --game ID (with --journal DB)",
              file=sys.stderr)
        return EXIT_ILLEGAL
    with _reading(args.journal) as journal:
        lines = journal.lines(args.game)
    state = state_json(final_game(lines))
    print(json.dumps(view(state, args.view) if args.view else state, indent=2))
    return 0


def _reading(path: str | None) -> Journal:
    """The journal at ``path`` (or the data folder's), opened to read; says what it repaired."""
    from tabletop.journal.journal import open_for_reading

    journal = open_for_reading(_journal_path(path))
    for message in journal.report.messages:
        print(f"tabletop: {message}", file=sys.stderr)
    return journal


def _journal_path(given: str | None) -> Path:
    """The journal a reading command reads: ``--journal``'s, else the data folder's; a
    TabletopError that says where games are recorded when there is none there."""
    from tabletop.assembly.config import default_journal_path

    path = Path(given) if given else default_journal_path()
    if _recorded(path):
        return path
    demo = None if given else _demo_games()
    what = f"the demo's games are in {demo}: add --journal {_quoted(demo)}" if demo else \
        "`tabletop run` records the table's games there; another journal is given with --journal DB"
    raise TabletopError(f"no journal at {path}: no game has been recorded there yet; {what}")


def _recorded(path: Path) -> bool:
    """Whether a journal is there (its database, or its append-only copy alone)."""
    import os

    return os.path.lexists(path) or os.path.lexists(path.with_suffix(".log"))


def _demo_games() -> Path | None:
    """The demo's journal, if it holds games: the demo keeps them apart from the table's
    (demo-journal.db), so a newcomer's first games are there and not where ``games`` looks."""
    from tabletop.assembly.demo import demo_journal_path

    demo = demo_journal_path()
    return demo if _recorded(demo) else None


def _quoted(path: Path) -> str:
    import shlex

    return shlex.quote(str(path))


def _games(args: argparse.Namespace) -> int:
    from tabletop.assembly.config import default_journal_path

    path = Path(args.journal) if args.journal else default_journal_path()
    if not _recorded(path):
        print(f"no games recorded yet (no journal at {path})")
        demo = None if args.journal else _demo_games()
        if demo is not None:
            print(f"the demo's games are in {demo}: tabletop games --journal {_quoted(demo)}")
        return 0
    with _reading(str(path)) as journal:
        games = journal.games()
    if not games:
        print(f"no games in {journal.path}")
        return 0
    rows = [("id", "rules", "players", "turn", "started", "finished")]
    for info in games:
        rows.append((str(info.id), info.rules, ", ".join(info.players), str(info.turn),
                     info.started, info.finished or "-"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.rjust(w) if i in (0, 3) else cell.ljust(w)
                        for i, (cell, w) in enumerate(zip(row, widths))).rstrip())
    return 0


def _check(args: argparse.Namespace) -> int:
    from tabletop.assembly.config import default_journal_path
    from tabletop.journal.journal import check

    if args.if_recorded and not _recorded(Path(args.journal or default_journal_path())):
        print(f"no journal at {args.journal or default_journal_path()} yet: nothing to check")
        return 0
    # --repair opens the journal as the table does; checking alone reads only what is there.
    path = (args.journal or default_journal_path()) if args.repair else _journal_path(args.journal)
    repaired, found, summary = check(path, repair=args.repair)
    for line in repaired + found:
        print(line)
    print(summary)
    return EXIT_INVALID if found else 0


def _export(args: argparse.Namespace) -> int:
    from tabletop.journal.export import export_game

    with _reading(args.journal) as journal:
        text = export_game(journal, args.game, args.format, args.clean)
    return _output(text, args.out, _table_files(journal.path))


def _slip(args: argparse.Namespace) -> int:
    from tabletop.assembly.config import load_config
    from tabletop.journal.slip import load_any_key, sign, slip_data, slip_text, table_signing_key

    with _reading(args.journal) as journal:
        # The game and --out are checked before the key: without a journal, a finished
        # game or a file to write nothing is made (not the data folder, not the table's key).
        body = slip_data(journal.info(args.game), journal.lines(args.game))
        keep = _table_files(journal.path) + ([Path(args.key)] if args.key else [])
        refusal = args.out and _refused_target(args.out, keep)
        if refusal:
            raise TabletopError(refusal)
        key = load_any_key(args.key) if args.key else table_signing_key(load_config().data_dir)
        slip = sign(body, key)
    if isinstance(key, bytes) and sys.stderr.isatty():   # piped, the output stays as it was
        print("tabletop: an old HMAC slip (the key is an HMAC key): anyone with the key could "
              "have signed it; leave out --key to sign with the table's Ed25519 key",
              file=sys.stderr)
    text = json.dumps(slip, indent=2, ensure_ascii=False) + "\n"
    if args.out:
        code = _output(text, args.out, keep)
        if code or not args.text:
            return code
    return _output(slip_text(slip) if args.text else text, None)


def _verify(args: argparse.Namespace) -> int:
    from tabletop.journal.slip import verify

    expected = _expected_seat(args)
    slip = _read_verified_slip(args.slip)
    verdict = verify(slip, _verifying_key(args, slip), expected)
    print(verdict.message)
    return 0 if verdict.valid else EXIT_INVALID


def _verifying_key(args: argparse.Namespace, slip: dict):
    from tabletop.assembly.config import load_config
    from tabletop.journal.slip import verifying_key

    if args.public and args.key:
        raise TabletopError("verify: give --public (a table's public key) or --key (an old "
                            "HMAC slip's key), not both")
    return verifying_key(slip, load_config().data_dir, public=args.public, key_file=args.key)


def _expected_seat(args: argparse.Namespace):
    """--round, --table and --tournament as the seat a slip must name (None: any)."""
    from tabletop.journal.slip import Seat

    if args.round is None and args.table is None and args.tournament is None:
        return None
    if args.round is None or args.table is None:
        raise TabletopError("verify: --round N and --table NAME are given together "
                            "(--tournament NAME may be added)")
    return Seat(args.round, args.table, args.tournament)


def _read_verified_slip(given: str) -> dict:
    from tabletop.journal.slip import MAX_SLIP_BYTES, parse_slip, read_slip

    if given == "-":
        return parse_slip(sys.stdin.buffer.read(MAX_SLIP_BYTES + 1), "standard input")
    if _photo(given):
        from tabletop.assembly.qr_photo import read_qr_photo

        return parse_slip(read_qr_photo(given), given)
    return read_slip(given)


def _key(args: argparse.Namespace) -> int:
    from tabletop.assembly.config import load_config
    from tabletop.journal.slip import SIGNING_KEY_FILE, public_key_text, table_signing_key

    data = load_config().data_dir
    key = table_signing_key(data)
    if args.public:
        sys.stdout.write(public_key_text(key.public))
    else:
        print(f"the table's signing key: {data / SIGNING_KEY_FILE} (private: it never leaves "
              f"the table)")
        print(f"fingerprint: {key.public.fingerprint}")
        print("`tabletop key --public` prints the public key, which checks the table's slips")
    return 0


def _photo(path: str) -> bool:
    from tabletop.assembly.qr_photo import is_photo

    return is_photo(path)


def _table_files(journal: Path) -> list[Path]:
    """The files an ``--out`` must never overwrite: the journal's and the table's keys."""
    from tabletop.assembly.config import load_config
    from tabletop.journal.slip import KEY_FILE, SIGNING_KEY_FILE

    beside = [Path(f"{journal}{suffix}") for suffix in ("-wal", "-shm", "-journal", ".lock")]
    data = load_config().data_dir
    return [journal, journal.with_suffix(".log"), *beside, data / KEY_FILE, data / SIGNING_KEY_FILE]


def _output(text: str, path: str | None, keep: Sequence[Path] = ()) -> int:
    """Write ``text`` to ``path`` (standard output without one): a new or a regular file,
    never through a link, never over one of the files in ``keep`` (the journal, the key)."""
    import os

    if path is None:
        sys.stdout.write(text)
        return 0
    refusal = _refused_target(path, keep)
    if refusal is not None:
        print(f"tabletop: {refusal}", file=sys.stderr)
        return EXIT_ILLEGAL
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_NONBLOCK", 0), 0o644)
        with open(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    except OSError as error:
        print(f"tabletop: cannot write {path}: {error.strerror}", file=sys.stderr)
        return EXIT_ILLEGAL
    return 0


def _refused_target(path: str, keep: Sequence[Path] = ()) -> str | None:
    """Why ``_output`` will not write ``path`` (None: it will)."""
    import os
    import stat

    try:
        status = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        return f"cannot write {path}: {error.strerror}"
    refusal = "it is a symbolic link" if stat.S_ISLNK(status.st_mode) else \
        "it is not a regular file" if not stat.S_ISREG(status.st_mode) else \
        "it is one of the table's own files (its journal or its key)" \
        if any(_same(path, other) for other in keep) else None
    return None if refusal is None else f"will not write {path}: {refusal}; nothing was written"


def _same(path: str, other: Path) -> bool:
    import os

    try:
        return os.path.samefile(path, other)
    except OSError:
        return False


def _rules(args: argparse.Namespace) -> int:
    from tabletop.engine.info_card import information_card
    from tabletop.engine.ruleset import available_rules, load_rules

    if args.name is None and args.mode is not None:
        print(f"tabletop: --mode needs a rule set: tabletop rules NAME --mode {args.mode}, "
              f"NAME one of {', '.join(available_rules())}", file=sys.stderr)
        return EXIT_ILLEGAL
    if args.name is None:
        for name in available_rules():
            rules = load_rules(name)
            provisional = rules.notes or any(m.provisional for m in rules.bonus_modes.values())
            flag = "  (provisional tables)" if provisional else ""
            print(f"{name:20} {rules.title}{flag}")
        return 0
    rules = load_rules(rule_set(args.name))
    try:
        print(information_card(rules, args.mode))
    except ValueError as error:
        print(f"tabletop: {error}", file=sys.stderr)
        return EXIT_ILLEGAL
    return 0


def _simulate(args: argparse.Namespace) -> int:
    if args.games < 1:
        print("tabletop: --games must be at least 1", file=sys.stderr)
        return EXIT_ILLEGAL
    options = dict(_option(text) for text in args.option)
    try:
        report = _simulated(args, options)
    except _Stopped as stopped:      # Ctrl-C: how far it got is the one line to say
        print(f"tabletop: {stopped}", file=sys.stderr)
        return EXIT_STOPPED
    game = report.last
    print(f"{report.games} games of {args.rules} with {args.players} players in "
          f"{report.seconds:.2f} s: {report.games_per_second:.0f} games/s, "
          f"{report.actions / report.games:.0f} actions a game")
    print(f"last game (seed {args.seed + args.games - 1}), {game.turn} turns:")
    for seat, rank in game.standings:
        print(f"  {rank}. {game.names[seat]:8} {game.rules.money(game.cash[seat])}")
    return 0


def _simulated(args: argparse.Namespace, options: dict) -> SimulationReport:
    """The games of ``simulate`` (as the engine's ``simulate``), with a bar on a terminal;
    on Ctrl-C, says how many were finished before it stops."""
    import time

    from tabletop.engine.random_play import SimulationReport, play_random_game
    from tabletop.engine.ruleset import load_rules
    from tabletop.progress import Progress

    rules = load_rules(rule_set(args.rules))
    names = [f"P{seat + 1}" for seat in range(args.players)]
    started, actions, finished = time.perf_counter(), 0, 0
    with Progress(args.games, "games", "simulate") as bar:
        try:
            for number in range(args.games):
                game = play_random_game(rules, names, args.seed + number, options)
                actions, finished = actions + len(game.history), number + 1
                bar.advance(finished)
        except KeyboardInterrupt:
            bar.close()
            seconds = time.perf_counter() - started
            rate = f" ({finished / seconds:,.0f} games/s)" if finished and seconds > 0 else ""
            raise _Stopped(f"simulate stopped after {finished:,} of {args.games:,} games in "
                           f"{seconds:.1f} s{rate}") from None
    return SimulationReport(args.games, time.perf_counter() - started, actions, game)


class _Stopped(Exception):
    """Ctrl-C in a command that says itself how far it got (instead of "stopped")."""


def _config(args: argparse.Namespace) -> int:
    from tabletop.assembly.config import load_config

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
