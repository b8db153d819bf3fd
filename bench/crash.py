"""Crash benchmark: a journal writer killed with SIGKILL at random moments, many times.

    python bench/crash.py [--trials 200] [--seed 1] [--folder DIR]

Each trial runs ``tests/journal_writer.py`` in a subprocess: it records a
random 4-player game (some actions undone and played again) one line at a
time into one journal, printing each action's number once ``record`` returned.
The trial kills it with SIGKILL after a random number of acknowledgements plus
a random delay of up to 8 ms (a record takes a few milliseconds: the kill
lands anywhere in the writing), reopens the journal and checks that every
acknowledged action is there and that the resumed state equals a clean replay
of the recorded lines. The next trial resumes the killed game where the
journal left it; a finished game makes way for a new one. The README keeps
the figures.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from journal_writer import crash_trial  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--folder", help="where to keep the journal (default: a temporary folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(args.folder or temporary)
        folder.mkdir(parents=True, exist_ok=True)
        return run(folder / "journal.db", args.trials, args.seed)


def run(db: Path, trials: int, seed: int) -> int:
    rng = random.Random(seed)
    game_seed, game = seed * 1000, None
    counts = dict(kills=0, mid_game=0, acked=0, beyond=0, caught_up=0, games=0, failures=0)
    started = time.perf_counter()
    for number in range(1, trials + 1):
        trial = crash_trial(db, game_seed, game, rng)
        counts["kills"] += 1
        counts["mid_game"] += trial.acked >= 0 and not trial.finished
        counts["acked"] += trial.confirmed
        counts["beyond"] += max(0, trial.held - trial.confirmed)
        counts["caught_up"] += any("append-only copy but not yet" in m for m in trial.messages)
        if trial.problems:
            counts["failures"] += 1
            print(f"trial {number}: {trial}", file=sys.stderr)
        if trial.finished or trial.game is None:
            counts["games"] += trial.finished
            game_seed, game = game_seed + 1, None
        else:
            game = trial.game
    seconds = time.perf_counter() - started
    print(f"{trials} SIGKILLs at random moments ({counts['mid_game']} in the middle of a game), "
          f"{counts['games']} games finished across kills, {seconds:.0f} s")
    print(f"acknowledged records checked after the kills (summed over trials): {counts['acked']}; all present: "
          f"{'yes' if not counts['failures'] else 'NO'}")
    print(f"records kept although the kill came before their acknowledgement: {counts['beyond']}")
    print(f"reopenings that restored a record from the append-only copy: {counts['caught_up']}")
    print(f"trials with a lost action or a state unlike a clean replay: {counts['failures']}")
    print(f"machine: {cpu()}, {platform.system()} {platform.release()}, "
          f"Python {platform.python_version()}")
    return 1 if counts["failures"] else 0


def cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return f"{line.split(':', 1)[1].strip()} ({platform.machine()})"
    except OSError:
        pass
    return platform.processor() or platform.machine()


if __name__ == "__main__":
    sys.exit(main())
