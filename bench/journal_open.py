"""Opening benchmark: what opening a journal of N games costs, in time and memory.

    python bench/journal_open.py [--games 1000 5000 10000] [--folder DIR] [--steps ...]

For each N, a journal of N random four-player Acquire games is built through
the Journal API (``Journal.start`` and ``Table.push``, one action at a time)
in ``DIR/games-N/journal.db``, kept there and reused on the next run (fsync is
off while building, patched out in the building process only: a build is not
what is measured). The first N - 1 games are written in one session, the
journal is then opened once (so it is found whole and marked known good, as a
table's start does) and the last game is written in a session of its own: the
opening measured then has one game written since the journal was last known
good, as a table that played one game since it was switched on. (The mark made
then is kept aside and put back before each measured opening, so that a run
measures the same thing each time.)

Each measurement is a fresh subprocess, so nothing is cached in Python: its
wall time and its peak resident memory (the child's ``ru_maxrss``, from
``os.wait4``) are reported for

* ``open``: ``Journal.open`` to write, as the table does (what was written since
  the journal was last known good is checked, and repaired if need be);
* ``read``: ``open_for_reading`` and ``games()``, as ``tabletop games`` reads;
* ``games``: the whole ``tabletop games --journal DB`` command (every game listed);
* ``full``: ``Journal.open(check_all=True)``: every record of both copies checked,
  as every opening did before the known-good mark (``tabletop check --repair``;
  a whole journal is checked streaming, in memory that does not grow with it);
* ``check``: ``tabletop check --journal DB``, the full check and every game
  replayed, changing nothing (``--steps ... check`` to measure it);
* ``damaged``: ``Journal.open(check_all=True)`` of a copy of the journal with one bit
  gone bad in a line of the append-only copy halfway through (it is found, kept aside
  and rewritten; the copy of the journal is made before the clock starts and removed
  after);
* ``run``: ``tabletop run --headless --camera sim --data DIR`` until it prints its
  first line (the time from the command to the table's first words), then stopped
  (Ctrl-C); its peak memory up to then.

``--profile`` prints the costliest functions of one ``open`` (cProfile).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import signal
import subprocess
import tempfile
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PLAYERS = ["Ann", "Bob", "Cy", "Di"]
STEPS = ("open", "read", "games", "full", "check", "damaged", "run")
MARK_KEPT = "known-good.bench"


def build(db: Path, games: int, seed: int = 1) -> None:
    """A journal of ``games`` random games (added to what it holds), fsync off meanwhile;
    the last game is written after an opening that marks the journal known good."""
    from tabletop.journal import journal as journal_module, known_good, store

    real_connect = store.connect

    def fast_connect(path, timeout=5.0, readonly=False):
        conn = real_connect(path, timeout, readonly)
        if not readonly:
            conn.execute("PRAGMA synchronous = OFF")
        return conn

    store.connect, os.fsync = fast_connect, lambda fd: None
    started = time.perf_counter()
    with journal_module.Journal.open(db, table_name="bench") as journal:
        have = len(journal.games())
        if have >= games:
            return
        for number in range(have, games - 1):
            _play(journal, seed + number)
            if (number + 1) % 250 == 0:
                print(f"  built {number + 1} games ({time.perf_counter() - started:.0f} s)",
                      file=sys.stderr, flush=True)
    with journal_module.Journal.open(db, table_name="bench") as journal:   # known good here
        shutil.copy(known_good.mark_path(db), db.with_name(MARK_KEPT))
        _play(journal, seed + games - 1)


def _play(journal, seed: int) -> None:
    from tabletop.engine.random_play import random_action

    rng = random.Random(seed)
    table = journal.start({"setup": {"rules": "acquire", "players": PLAYERS, "seed": seed}})
    while table.game.pending is not None:
        table.push(random_action(table.game, rng))


def child(step: str, db: Path) -> None:
    """One measured step, in this (fresh) process; prints its seconds as JSON."""
    from tabletop.journal.journal import Journal, open_for_reading   # not timed: constant

    started = time.perf_counter()
    if step in ("open", "full", "damaged"):
        with Journal.open(db, check_all=step != "open") as journal:
            report = str(journal.report)
    elif step == "read":
        with open_for_reading(db) as journal:
            report = f"{len(journal.games())} games"
    else:
        raise SystemExit(f"unknown step {step}")
    print(json.dumps({"seconds": time.perf_counter() - started, "report": report[:200]}))


def measure(step: str, db: Path) -> tuple[float, float, str]:
    """(seconds, peak resident MB, what it said) of one step in a fresh subprocess: the
    step's own seconds for a library call, the whole command's for a command."""
    kept = db.with_name(MARK_KEPT)
    if step == "open" and kept.exists():   # one game written since the journal was known good
        shutil.copy(kept, db.with_name(db.name + ".known-good"))
    if step == "damaged":
        return _damaged(db)
    if step == "run":
        return _first_line(db)
    if step in ("games", "check"):
        command = [sys.executable, "-m", "tabletop", step, "--journal", str(db)]
    else:
        command = [sys.executable, __file__, "--child", step, str(db)]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err, text=True, cwd=ROOT)
        _, status, usage = os.wait4(process.pid, 0)   # this child's own peak (kB on Linux)
        wall = time.perf_counter() - started
        out.seek(0), err.seek(0)
        done = subprocess.CompletedProcess(command, os.waitstatus_to_exitcode(status),
                                           out.read(), err.read())
    peak = usage.ru_maxrss
    said = (done.stdout.strip().splitlines() or [""])[-1] if done.returncode == 0 else \
        f"exit {done.returncode}: {done.stderr.strip()[-200:]}"
    if step not in ("games", "check") and done.returncode == 0:
        answer = json.loads(said)
        said, wall = answer["report"], answer["seconds"]
    return wall, peak / 1024, said


def _damaged(db: Path) -> tuple[float, float, str]:
    """``damaged``: the repair of a copy of the journal with one bit flipped in the middle
    of its append-only copy."""
    def flip_and_open(copy: Path) -> tuple[float, float, str]:
        log = copy.with_suffix(".log")
        with open(log, "r+b") as handle:
            handle.seek(log.stat().st_size // 2)
            handle.readline()
            at = handle.tell() + 40       # inside the next line
            handle.seek(at)
            byte = handle.read(1)
            handle.seek(at)
            handle.write(bytes([byte[0] ^ 0x01]))
        return _measured([sys.executable, __file__, "--child", "damaged", str(copy)])
    return _on_a_copy(db, flip_and_open)


def _first_line(db: Path) -> tuple[float, float, str]:
    """``run``: seconds from ``tabletop run --headless`` to its first line, and its peak
    memory until then (on a copy of the journal: the table starts a game in it)."""
    def run(copy: Path) -> tuple[float, float, str]:
        command = [sys.executable, "-m", "tabletop", "run", "--headless", "--camera", "sim",
                   "--players", ",".join(PLAYERS), "--data", str(copy.parent)]
        with tempfile.TemporaryFile("w+") as err:
            started = time.perf_counter()
            process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=err, text=True, cwd=ROOT)
            first = process.stdout.readline()
            wall = time.perf_counter() - started
            os.kill(process.pid, signal.SIGINT)    # not send_signal: it would reap the child
            _, _, usage = os.wait4(process.pid, 0)
        return wall, usage.ru_maxrss / 1024, first.strip()[:200]
    return _on_a_copy(db, run)


def _on_a_copy(db: Path, work) -> tuple[float, float, str]:
    """``work(copy)`` on a copy of the journal's folder (made before, removed after)."""
    folder = db.parent.with_name(db.parent.name + "-copy")
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(db.parent, folder)
    try:
        return work(folder / db.name)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _measured(command: list[str]) -> tuple[float, float, str]:
    """A child's own seconds and what it said (its JSON line), and its peak memory."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, text=True, cwd=ROOT)
        _, status, usage = os.wait4(process.pid, 0)
        out.seek(0), err.seek(0)
        said = (out.read().strip().splitlines() or [""])[-1]
        if os.waitstatus_to_exitcode(status) != 0:
            return 0.0, usage.ru_maxrss / 1024, f"failed: {err.read().strip()[-200:]}"
    answer = json.loads(said)
    return answer["seconds"], usage.ru_maxrss / 1024, answer["report"]


def profile(db: Path) -> None:
    import cProfile
    import pstats

    from tabletop.journal.journal import Journal

    profiler = cProfile.Profile()
    profiler.enable()
    with Journal.open(db):
        pass
    profiler.disable()
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[1000, 5000, 10000])
    parser.add_argument("--folder", default="/tmp/tabletop-journal-bench",
                        help="where the journals are built and kept")
    parser.add_argument("--steps", nargs="+", default=["open", "read", "games", "full"],
                        choices=STEPS)
    parser.add_argument("--profile", action="store_true", help="profile one open of each")
    parser.add_argument("--build-only", action="store_true")
    parser.add_argument("--child", nargs=2, metavar=("STEP", "DB"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]))
        return 0
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, "
          f"{platform.python_implementation()} {platform.python_version()}, "
          f"{platform.system()} {platform.release()}")
    print("| games | records | database / copy (MB) | " + " | ".join(
        f"{step} s / MB" for step in args.steps) + " |")
    print("|---|---|---|" + "---|" * len(args.steps))
    for games in args.games:
        folder = Path(args.folder) / f"games-{games}"
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        db = folder / "journal.db"
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]);"
                        "from bench.journal_open import build; from pathlib import Path;"
                        "build(Path(sys.argv[2]), int(sys.argv[3]))", str(ROOT), str(db),
                        str(games)], check=True, cwd=ROOT)
        built = time.perf_counter() - started
        if args.build_only:
            print(f"{games} games built in {built:.0f} s")
            continue
        if not db.with_name(MARK_KEPT).exists():
            print(f"  {db} was built before the known-good mark: `open` measures what was "
                  f"written since the last opening", file=sys.stderr)
        records = sum(1 for _ in open(db.with_suffix(".log"), "rb")) - 1
        sizes = f"{db.stat().st_size / 1e6:.0f} / {db.with_suffix('.log').stat().st_size / 1e6:.0f}"
        cells = []
        for step in args.steps:
            wall, peak, said = measure(step, db)
            cells.append(f"{wall:.2f} / {peak:.0f}")
            if step in ("open", "full") and said != "the journal is intact" or step in (
                    "damaged", "run"):
                print(f"  {step} said: {said}", file=sys.stderr)
        print(f"| {games:,} | {records:,} | {sizes} | " + " | ".join(cells) + " |", flush=True)
        if args.profile:
            profile(db)
    return 0


if __name__ == "__main__":
    sys.exit(main())
