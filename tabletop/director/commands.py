"""``tabletop director``: a tournament run from the director's laptop.

    tabletop director new "Spring Open" --players Ann,Bob,Cy,Di,Ed,Flo,Gus,Hal
    tabletop director register 1 ed25519:O2onvM62...   (each table's `tabletop key --public`)
    tabletop director seat 1
    tabletop director listen --broker 127.0.0.1:1883 --web 8080    (a projector's page too)
    tabletop director import /media/usb/slips          (the USB stick, when the Wi-Fi fails)
    tabletop director standings

Every subcommand takes ``--file`` (default ``tournament.json`` here); the slips taken
are kept beside it (``tournament.slips.jsonl``). See docs/tournament.md.
"""

from __future__ import annotations

import argparse
import difflib
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from tabletop.tournament import model
from tabletop.tournament.model import Tournament, TournamentError

if TYPE_CHECKING:
    from tabletop.tournament.intake import Intake

# The intake, the seating and the standings are imported by the commands that use them:
# every `tabletop` command registers these, and the intake (keys, journals) was a fifth of
# the start of any command, `tabletop games` as much as `tabletop director show`.

#: What ``import`` reads from a folder: slip files as ``tabletop slip --out`` writes them,
#: or the text of a slip's QR code.
SLIP_SUFFIXES = (".json", ".txt", ".slip")


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``director`` and its subcommands to the ``tabletop`` command line."""
    director = commands.add_parser(
        "director", help="run a tournament: seat rounds, take the tables' signed slips, standings")
    director.set_defaults(run=lambda args: _help(director))
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--file", metavar="FILE", type=Path, default=Path(model.TOURNAMENT_FILE),
                        help=f"the tournament file (default: {model.TOURNAMENT_FILE} here)")
    sub = director.add_subparsers(dest="director", metavar="SUBCOMMAND")

    new = sub.add_parser("new", parents=[common], help="make a tournament file")
    new.add_argument("name", help="the tournament's name, as the tables' seats give it")
    new.add_argument("--players", required=True, metavar="NAMES", help="Ann,Bob,Cy,...")
    new.add_argument("--rules", default="acquire", help="the rule set (default acquire)")
    new.add_argument("--rounds", type=int, default=3, help="rounds to play (default 3)")
    new.add_argument("--table-size", type=int, default=4,
                     help="players a table, aimed for (3 to 6; default 4)")
    new.add_argument("--seed", type=int, help="round 1's random draw (default: a new one)")
    new.set_defaults(run=_new)

    key = sub.add_parser("register", parents=[common], help="register a table's public key")
    key.add_argument("table", help="the table's name in the tournament: 1, 2, ...")
    key.add_argument("public_key", metavar="PUBLICKEY",
                     help="the text `tabletop key --public` prints on that table, or its file")
    key.set_defaults(run=_register)

    seat = sub.add_parser("seat", parents=[common], help="seat a round and print its tables")
    seat.add_argument("round", type=int, metavar="ROUND")
    seat.set_defaults(run=_seat)

    show = sub.add_parser("show", parents=[common], help="the tournament: tables, keys, rounds")
    show.set_defaults(run=_show)

    table = sub.add_parser("standings", parents=[common], help="the standings so far")
    table.set_defaults(run=_standings)

    listen = sub.add_parser("listen", parents=[common],
                            help="take the tables' slips from the venue's MQTT broker")
    listen.add_argument("--broker", default="127.0.0.1:1883", metavar="HOST:PORT",
                        help="the broker (default 127.0.0.1:1883)")
    listen.add_argument("--web", metavar="[HOST:]PORT",
                        help="also serve the director's screen (standings, tables, slips) for a "
                             "projector on PORT (on 127.0.0.1 unless HOST is given; needs Flask)")
    listen.set_defaults(run=_listen)

    usb = sub.add_parser("import", parents=[common],
                         help="take the slip files of a folder (a USB stick), verified the same")
    usb.add_argument("folder", type=Path, metavar="FOLDER")
    usb.set_defaults(run=_import)


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 0


def _names(text: str) -> tuple[str, ...]:
    return tuple(name.strip() for name in text.split(",") if name.strip())


def _new(args: argparse.Namespace) -> int:
    if args.file.exists():
        raise TournamentError(f"{args.file} exists already: give another --file, or move it away")
    _check_rules(args.rules)                  # a rule set that is not one is said now
    if args.rounds < 1:
        raise TournamentError("--rounds is 1 or more")
    seed = args.seed if args.seed is not None else model.new_seed()
    tournament = Tournament(args.name, _names(args.players), args.rules, seed, args.table_size,
                            args.rounds)
    from tabletop.tournament.seating import sizes_for

    sizes = sizes_for(tournament)              # players who cannot be seated are said now
    model.save(tournament, args.file)
    tables = "1 table" if len(sizes) == 1 else f"{len(sizes)} tables"
    print(f"{args.file}: {tournament.name}, {len(tournament.players)} players at "
          f"{tables}, {tournament.rounds_planned} rounds of {tournament.rules} "
          f"(round 1's draw: seed {seed})")
    return 0


def _register(args: argparse.Namespace) -> int:
    from tabletop.journal.keys import read_public_key

    tournament = model.load(args.file)
    key = read_public_key(args.public_key)
    old = tournament.tables.get(args.table)
    model.save(tournament.with_table(args.table, key.text()), args.file)
    again = " (its earlier key replaced)" if old is not None and old != key.text() else ""
    print(f"table {args.table}: key {key.fingerprint} registered{again}")
    return 0


def _intake(args: argparse.Namespace,
            tournament: Tournament | Callable[[], Tournament]) -> Intake:
    """The tournament's intake of slips, kept beside its file."""
    from tabletop.tournament.intake import Intake, slips_file

    return Intake(tournament, slips_file(args.file))


def _seat(args: argparse.Namespace) -> int:
    from tabletop.tournament.seating import by_standing, first_round
    from tabletop.tournament.standings import standings

    tournament = model.load(args.file)
    intake = _intake(args, tournament)
    number = args.round
    if number < 1 or number > tournament.current + 1:
        raise TournamentError(f"the next round to seat is {tournament.current + 1} "
                              f"(round {number} cannot be seated now)")
    if number <= tournament.current and any(r.round == number for r in intake.results()):
        raise TournamentError(f"round {number} has slips taken already: it cannot be seated again")
    if number > tournament.rounds_planned:
        raise TournamentError(f"{tournament.name} has {tournament.rounds_planned} rounds")
    if number == 1:
        seated = first_round(tournament)
    else:
        missing = intake.missing(number - 1)
        if missing:
            raise TournamentError(f"round {number - 1} is not complete: no slip yet from "
                                  f"{model.tables_text(missing)}")
        order = [line.name for line in standings(tournament.players, intake.results())]
        seated = by_standing(tournament, number, order)
    model.save(tournament.with_round(seated), args.file)
    print(f"{tournament.name}, round {number}:")
    for table, players in seated.tables.items():
        known = "" if table in tournament.tables else "  (no key registered yet)"
        print(f"  table {table}: {', '.join(players)}{known}")
    return 0


def _show(args: argparse.Namespace) -> int:
    from tabletop.journal.keys import parse_public_key
    from tabletop.tournament.intake import REFUSED

    tournament = model.load(args.file)
    intake = _intake(args, tournament)
    print(f"{tournament.name}: {tournament.rules}, {len(tournament.players)} players, "
          f"{tournament.current} of {tournament.rounds_planned} rounds seated, seed "
          f"{tournament.seed}")
    for table, text in sorted(tournament.tables.items()):
        print(f"  table {table}: key {parse_public_key(text).fingerprint}")
    for seated in tournament.rounds:
        missing = intake.missing(seated.number)
        state = "complete" if not missing else f"waiting for {model.tables_text(missing)}"
        print(f"  round {seated.number}: {state}")
    refused = [e for e in intake.entries() if e.outcome == REFUSED]
    for entry in refused:
        print(f"  {entry.reason}")
    return 0


def _standings(args: argparse.Namespace) -> int:
    from tabletop.tournament.standings import standings

    tournament = model.load(args.file)
    intake = _intake(args, tournament)
    results = intake.results()
    print(f"{tournament.name}: standings after {len(results)} game(s) (rank points, then "
          f"total cash)")
    width = max((len(name) for name in tournament.players), default=4)
    print(f"{'place':>5}  {'player':<{width}}  {'points':>6}  {'cash':>10}  games")
    for line in standings(tournament.players, results):
        print(f"{line.place:>5}  {line.name:<{width}}  {line.points:>6}  {line.cash:>10,}  "
              f"{line.games:>5}")
    return 0


def _listen(args: argparse.Namespace) -> int:
    from tabletop.director.listen import listen

    model.load(args.file)              # a missing or damaged file is said before connecting
    if args.web is not None:           # as are a bad --web and a missing Flask
        from tabletop.director.web import WebAddress, require_flask

        WebAddress.parse(args.web)
        require_flask()
    return listen(args.file, args.broker, out=lambda line: print(line, flush=True), web=args.web)


def _import(args: argparse.Namespace) -> int:
    """Every slip file of the folder through the intake; 1 if any was refused."""
    from tabletop.errors import SlipError
    from tabletop.journal.slipfile import read_slip
    from tabletop.tournament.intake import REFUSED, TAKEN

    tournament = model.load(args.file)
    if not args.folder.is_dir():
        raise TournamentError(f"no folder {args.folder} (give the folder of the USB stick's slips)")
    intake = _intake(args, lambda: model.load(args.file))
    files = sorted(p for p in args.folder.rglob("*")
                   if p.suffix.lower() in SLIP_SUFFIXES and p.is_file() and not p.name.startswith("."))
    refused = taken = 0
    for path in files:
        try:
            slip = read_slip(path)
        except SlipError as error:
            print(f"{path.name}: skipped: {error}")
            continue
        outcome = intake.take(slip)
        taken += outcome.kind == TAKEN
        refused += outcome.kind == REFUSED
        print(f"{path.name}: {outcome.message}")
    print(f"{tournament.name}: {taken} slip(s) taken, {refused} refused, from {len(files)} "
          f"file(s) in {args.folder}")
    return 1 if refused else 0


def _check_rules(name: str) -> None:
    """A rule set's name, or the closest one named with the refusal (a typo, ``aquire``)."""
    from tabletop.engine.ruleset import available_rules, load_rules
    from tabletop.errors import RulesFileError

    try:
        load_rules(name)
    except RulesFileError as error:
        close = difflib.get_close_matches(name, available_rules(), n=1)
        if not close:
            raise
        raise TournamentError(f"{error} (did you mean {close[0]}?)") from None
