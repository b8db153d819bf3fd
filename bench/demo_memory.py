"""Memory benchmark: a running table's resident memory over a whole demo game.

    python3 bench/demo_memory.py [--rules megacquire-gold] [--seed 2] [--every 250]

Plays one ``tabletop demo`` game headless (the rendered camera, the recognizer, the
tracker, the bots' taps, the journal in a temporary folder) and prints the process's
resident memory every ``--every`` frames, then where it started (after the first
``--every`` frames: the libraries and the first frames' buffers are in by then), its
peak and where it ended. A table whose memory grows with every frame or action would
run out on a Pi in a long evening; the goal is an end within a few MB of the start.
"""

from __future__ import annotations

import argparse
import platform
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tabletop.assembly.demo import Demo  # noqa: E402


def resident_mb() -> float:
    """This process's resident memory now (Linux: /proc/self/statm), in MB."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * 4096 / 2 ** 20


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="megacquire-gold")
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--every", type=int, default=250, help="frames between samples")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        demo = Demo(args.rules, args.seed, journal=Path(folder) / "journal.db", out=lambda _: None)
        samples: list[tuple[int, float]] = []
        try:
            for frame, _ in enumerate(demo.steps(), start=1):
                if frame % args.every == 0:
                    samples.append((frame, resident_mb()))
                    print(f"frame {frame:6d}: {samples[-1][1]:7.1f} MB", flush=True)
        finally:
            demo.close()
        end = resident_mb()
    if not samples:
        print("the game was shorter than --every frames: nothing to compare", file=sys.stderr)
        return 1
    start, peak = samples[0][1], max(mb for _, mb in samples)
    print(f"{args.rules} seed {args.seed}: {frame} frames; resident {start:.1f} MB after "
          f"frame {samples[0][0]}, peak {peak:.1f} MB, end {end:.1f} MB "
          f"({end - start:+.1f} MB); {platform.machine()}, Python {platform.python_version()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
