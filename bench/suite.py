"""Test-suite benchmark: the whole suite's wall time, CPU-seconds and memory, quiet or loaded.

    python3 bench/suite.py [--load N] [--workers auto|N] [--profile PREFIX] [--json FILE]
                           [-- PYTEST ARGS...]

Runs what ``./scripts/test`` runs (``pytest -q -n WORKERS --dist loadgroup``;
``auto`` by default, as there: a worker a core and one more, tests/suite_workers.py)
with this interpreter (run it with ``.venv/bin/python``) and reports:

* the wall time, and the CPU-seconds of pytest, its workers and everything
  they start (Xvfb, the commands the tests run), user and system;
* the peak resident memory of that whole process tree, and of its largest
  process, sampled every half second.

``--profile PREFIX`` also records each test's CPU-seconds and memory
(``bench/suite_profile.py``, one JSON line a test in ``PREFIX.<worker>.jsonl``)
and prints the files that cost most.

``--load N`` keeps N processes spinning at the same priority for the whole
run: a machine busy with other work. On a 2-core machine ``--load 2`` gives
the suite's three workers about three fifths of the two cores (two workers
would get one core between them); that is how the suite is judged "on a
loaded 2-core machine".

>>> tree_of(1, {2: 1, 3: 2, 4: 9})
{1, 2, 3}
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import resource
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = 0.5


@dataclass
class Figures:
    wall_s: float
    cpu_s: float
    peak_tree_mb: float
    peak_process_mb: float
    load: int
    workers: str
    summary: str
    exit: int


def tree_of(root: int, parents: dict[int, int]) -> set[int]:
    """``root`` and every process descending from it, given each process's parent."""
    tree, grew = {root}, True
    while grew:
        more = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree |= more
        grew = bool(more)
    return tree


def _processes() -> dict[int, tuple[int, int]]:
    """Every process's (parent, resident KiB), from /proc."""
    found = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry.name}/statm") as statm:
                pages = int(statm.read().split()[1])
        except (OSError, IndexError, ValueError):
            continue    # gone meanwhile
        found[int(entry.name)] = (int(fields[1]), pages * os.sysconf("SC_PAGE_SIZE") // 1024)
    return found


class Sampler(threading.Thread):
    """The peak resident memory of a process tree, sampled until told to stop."""

    def __init__(self, root: int) -> None:
        super().__init__(daemon=True)
        self.root = root
        self.peak_tree = self.peak_process = 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(SAMPLE):
            found = _processes()
            tree = tree_of(self.root, {pid: parent for pid, (parent, _) in found.items()})
            sizes = [found[pid][1] for pid in tree if pid in found]
            self.peak_tree = max(self.peak_tree, sum(sizes))
            self.peak_process = max(self.peak_process, max(sizes, default=0))


def _spin() -> None:
    while True:
        pass


def run(load: int, workers: str, extra: list[str], profile: Path | None = None) -> Figures:
    spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(load)]
    for spinner in spinners:
        spinner.start()
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "-n", workers, "--dist", "loadgroup", *extra]
    environment = dict(os.environ)
    if profile is not None:
        command[3:3] = ["-p", "bench.suite_profile"]
        environment["SUITE_PROFILE"] = str(profile.resolve())
        # The workers append to PREFIX.<worker>.jsonl: its folder must be there first.
        profile.parent.mkdir(parents=True, exist_ok=True)
        for old in profile.parent.glob(f"{profile.name}.*.jsonl"):
            old.unlink()
    began = time.perf_counter()
    try:
        process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True,
                                   env=environment)
        sampler = Sampler(process.pid)
        sampler.start()
        last = ""
        assert process.stdout is not None
        for line in process.stdout:
            sys.stdout.write(line)
            last = line.strip() or last
        code = process.wait()
        # Before the spinners are stopped and reaped: only pytest's tree is counted.
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        sampler.done.set()
        sampler.join()
    finally:
        for spinner in spinners:
            spinner.terminate()
    return Figures(round(time.perf_counter() - began, 1), round(usage.ru_utime + usage.ru_stime, 1),
                   round(sampler.peak_tree / 1024), round(sampler.peak_process / 1024),
                   load, workers, last, code)


def costliest(profile: Path, count: int = 15) -> list[tuple[str, float]]:
    """The test files that cost most CPU-seconds (own and children), from a profile."""
    by_file: dict[str, float] = {}
    for path in profile.parent.glob(f"{profile.name}.*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            name = record["id"].split("::")[0]
            by_file[name] = by_file.get(name, 0.0) + record["own"] + record["children"]
    return sorted(by_file.items(), key=lambda item: -item[1])[:count]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--load", type=int, default=0, help="processes spinning meanwhile")
    parser.add_argument("--workers", default="auto",
                        help="pytest-xdist workers (a number, or auto: what ./scripts/test starts)")
    parser.add_argument("--profile", type=Path, metavar="PREFIX",
                        help="also record each test's CPU and memory to PREFIX.<worker>.jsonl")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    parser.add_argument("pytest", nargs="*", help="more arguments for pytest, after --")
    args = parser.parse_args(argv)
    try:
        figures = run(args.load, args.workers, args.pytest, args.profile)
    except KeyboardInterrupt:
        print("bench/suite.py: stopped", file=sys.stderr)
        return 130
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    print(f"\nsuite: {figures.summary}\n  {machine}; {figures.workers} workers, "
          f"{figures.load} spinning\n  wall {figures.wall_s} s, CPU {figures.cpu_s} s, "
          f"peak resident {figures.peak_tree_mb} MB in all, {figures.peak_process_mb} MB "
          f"in the largest process")
    if args.profile is not None:
        print("  the costliest test files (CPU-seconds, own and children):")
        for name, seconds in costliest(args.profile):
            print(f"    {seconds:7.1f}  {name}")
    if args.json:
        args.json.write_text(json.dumps(asdict(figures), indent=2) + "\n")
    return figures.exit


if __name__ == "__main__":
    sys.exit(main())
