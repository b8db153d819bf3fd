"""Vision benchmark: tile recognition accuracy, ``watch`` accuracy and per-frame latency.

    python3 bench/vision.py [--frames 2100] [--seed 0] [--sequences 2] [--placements 8]
                            [--quick] [--json FILE]

Everything is rendered (``calibration.synthetic.render``), so the truth is known:

* Recognition: ``--frames`` frames of 1280x960 spread over the three layouts
  (square 12x9, the 182-hex board in both row parities, the quadrant board),
  four tables each (every tile style, different prints, lenses and cameras),
  and thirteen conditions per table: no nuisance, each nuisance alone at full
  strength (continuous ones at 1.0, events with probability 1), and all of
  them at once (``Nuisances.all()``). Each table is calibrated from a render
  of its empty board and the exact corner-cell centres. On frames whose board
  is truly clear a cell is an *error* when it is read occupied but is empty,
  or holds a tile and is neither occupied nor uncertain; uncertain cells are
  counted apart. A frame is an *exact match* when its occupied cells are
  exactly the tiles and nothing is uncertain. Frames with a hand over the
  grid count when they are read clear (a missed hand).
* Latency: the time of ``Recognizer.read`` (pose, warp, classification: the
  whole per-frame pipeline of ``watch``) on one core (``cv2.setNumThreads(1)``
  around the call), for a recognizer that follows one table frame after frame.
  A knocked board (the ``bump`` nuisance) is read by a fresh recognizer, as
  ``tabletop recognize`` reads each image; those cold reads are timed apart.
* ``watch``: ``--sequences`` random games per layout (``random_steps``:
  ``--placements`` placements and each anomaly once: two tiles at once, a
  removal, a move, a lamp, a leaning player, a bump, cups on markers) at 10
  frames a second. A placement is committed correctly when its tile is
  committed once after the hand left the board and before the next placement
  begins; any other commit is wrong. The delay is measured from the frame
  the hand left the board (``clear_from``).

Run it by hand on a quiet machine; the README keeps the figures. ``--quick``
is a smoke run (a few hundred frames, one short game per layout).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import platform
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from calibration.calibrate import calibrate  # noqa: E402
from calibration.recognize import Recognizer, sightings  # noqa: E402
from calibration.synthetic.render import TILE_STYLES, make_table, render, render_empty  # noqa: E402
from calibration.synthetic.scenes import Nuisances  # noqa: E402
from calibration.synthetic.sequences import random_steps, render_sequence, warning_kind  # noqa: E402
from tabletop.geometry.sightings import BoardSeen, ChangesSeen, Sighting, TileSeen  # noqa: E402

#: (name, rule set, options) of every table's board; hex tables alternate their parity.
LAYOUTS = [("square", "acquire", ({},)),
           ("hex", "megacquire-gold", ({"hex_offset": "odd-r"}, {"hex_offset": "even-r"})),
           ("quadrant", "acquisitions", ({},))]
TABLES_PER_LAYOUT = 4
NUISANCE_NAMES = [field.name for field in dataclasses.fields(Nuisances)]
CONDITIONS = ([("none", Nuisances.none())]
              + [(name, Nuisances(**{name: 1.0})) for name in NUISANCE_NAMES]
              + [("all", Nuisances.all())])
GOALS = {"cell_error": 0.0005, "wrong_commits": 0, "delay": 1.0, "p50_ms": 8.0}


@dataclasses.dataclass
class Board:
    """One benchmark table: its layout name, the table, its calibration and ``make_table`` seed."""

    layout: str
    table: Any
    calibration: Any
    seed: int = 0

    @property
    def name(self) -> str:
        """``rules seed options style``: enough to make the table again."""
        options = dict(self.table.options)
        return (f"{self.table.rules} seed={self.seed}{' ' + str(options) if options else ''} "
                f"{self.table.tile_style}/{self.table.palette}")


def boards(seed: int, per_layout: int) -> list[Board]:
    """The tables, each calibrated from a render of its empty board (1 s each: the first draw)."""
    made = []
    for number, (name, rules, parities) in enumerate(LAYOUTS):
        for k in range(per_layout):
            options = parities[k % len(parities)]
            style = TILE_STYLES[(number + k) % len(TILE_STYLES)]
            table = make_table(rules, seed=seed * 1000 + 10 * number + k, options=options,
                               tile_style=style)
            empty = render_empty(table, np.random.default_rng(seed + k))
            made.append(Board(name, table,
                              calibrate(empty.image, empty.truth.corners, rules, options),
                              seed * 1000 + 10 * number + k))
    return made


def timed_read(recognizer: Recognizer, image: np.ndarray,
               threads: int) -> tuple[Any, float, float]:
    """The observation and the milliseconds ``read`` took on one core: CPU, then wall clock."""
    cv2.setNumThreads(1)
    try:
        cpu, wall = time.thread_time(), time.perf_counter()
        seen = recognizer.read(image)
        return seen, (time.thread_time() - cpu) * 1000, (time.perf_counter() - wall) * 1000
    finally:
        cv2.setNumThreads(threads)


class StreamTimer:
    """Wraps a frame stream and times what its consumer does with each frame.

    The time from handing a frame over to being asked for the next is the whole
    per-frame work of ``watch`` (pose, warp, classification, tracker); the
    rendering of the next frame is not counted.
    """

    def __init__(self, frames: Iterable) -> None:
        self.frames, self.cpu_ms, self.wall_ms = frames, [], []

    def __iter__(self):
        threads = cv2.getNumThreads()
        cv2.setNumThreads(1)
        try:
            for frame in self.frames:
                cpu, wall = time.thread_time(), time.perf_counter()
                yield frame
                self.cpu_ms.append((time.thread_time() - cpu) * 1000)
                self.wall_ms.append((time.perf_counter() - wall) * 1000)
        finally:
            cv2.setNumThreads(threads)


def recognition(boards_: list[Board], frames: int, seed: int) -> list[dict]:
    """Render and read ``frames`` frames over the tables and conditions; one record each."""
    threads = cv2.getNumThreads()
    per_board = max(len(CONDITIONS), frames // len(boards_))
    records = []
    for board in boards_:
        # Each table its own random stream: a frame is made again from (seed, table, number).
        rng = np.random.default_rng([seed, board.seed])
        size = board.calibration.layout.size
        warm = Recognizer(board.calibration)
        for k in range(per_board):
            condition, nuisances = CONDITIONS[k % len(CONDITIONS)]
            count = int(size * rng.uniform(0.0, 0.45))
            cells = rng.choice(size, count, replace=False)
            tiles = {int(c): ("dead" if rng.random() < 0.05 else None) for c in cells}
            frame = render(board.table, tiles, rng, nuisances)
            cold = any(frame.scene.bump)
            recognizer = Recognizer(board.calibration) if cold else warm
            seen, ms, wall_ms = timed_read(recognizer, frame.image, threads)
            truth = frame.truth
            record = {"layout": board.layout, "condition": condition,
                      "style": board.table.tile_style, "cells": size, "truth_clear": truth.clear,
                      "read_clear": seen.clear, "ms": ms, "wall_ms": wall_ms, "cold": cold}
            if truth.clear:
                false = sorted(seen.occupied - truth.occupied)
                missed = sorted(truth.occupied - seen.occupied - seen.uncertain)
                record.update(false=len(false), missed=len(missed), uncertain=len(seen.uncertain),
                              exact=seen.occupied == truth.occupied and not seen.uncertain)
                if false or missed:
                    labels = board.table.layout.geometry.labels
                    record.update(table=board.name, frame=k, false_cells=[labels[c] for c in false],
                                  missed_cells=[labels[c] for c in missed])
            records.append(record)
    return records


# --- watch ----------------------------------------------------------------------------------

def score(sequence, seen: list[Sighting]) -> dict:
    """``watch``'s commits and warnings against a sequence's truth (see the module docstring).

    ``seen``: every sighting of the game; reference boards are not ``watch``'s and are left out.
    """
    fps = sequence.fps
    placements = [event for event in sequence.events if event.kind == "place"]
    lines = [line for line in seen if not isinstance(line, BoardSeen)]
    commits = [line for line in lines if isinstance(line, TileSeen)]
    warnings = [line for line in lines if isinstance(line, ChangesSeen)]
    used: set[int] = set()
    delays, missed = [], []
    for number, event in enumerate(placements):
        until = placements[number + 1].start if number + 1 < len(placements) else len(sequence)
        hits = [k for k, line in enumerate(commits) if k not in used
                and line.tile == event.labels[0] and event.clear_from <= line.frame < until]
        if hits:
            used.add(hits[0])
            delays.append((commits[hits[0]].frame - event.clear_from) / fps)
        else:
            missed.append(event.labels[0])
    matched: set[int] = set()
    warned = expected = 0
    for event in sequence.events:
        if event.warning is None:
            continue
        expected += 1
        here = [k for k, line in enumerate(warnings) if k not in matched
                and event.clear_from <= line.frame < event.end
                and warning_kind(line.message) == event.warning]
        if here:
            warned += 1
            matched.add(here[0])
    return {"frames": len(sequence), "placed": len(placements), "correct": len(delays),
            "missed": len(missed), "wrong": len(commits) - len(used), "delays": delays,
            "warnings_expected": expected, "warnings_given": warned,
            "warnings_other": len(warnings) - len(matched),
            "decided_with_hand": sum(1 for line in lines
                                     if not sequence.states[line.frame].clear),
            "wrong_lines": [commits[k].as_json() for k in range(len(commits)) if k not in used],
            "missed_tiles": missed}


def games(seed: int, count: int, placements: int) -> list[dict]:
    """``count`` random games per layout through ``watch``'s Watcher; one score each."""
    results = []
    for number, (name, rules, parities) in enumerate(LAYOUTS):
        for k in range(count):
            options = parities[k % len(parities)]
            table = make_table(rules, seed=seed * 1000 + 500 + 10 * number + k, options=options,
                               tile_style=TILE_STYLES[(number + 2 * k) % len(TILE_STYLES)])
            empty = render_empty(table, np.random.default_rng(k))
            calibration = calibrate(empty.image, empty.truth.corners, rules, options)
            rng = np.random.default_rng(seed * 1000 + 10 * number + k)
            steps = random_steps(table, rng, placements=placements)
            sequence = render_sequence(table, steps, rng)
            started = time.perf_counter()
            frames = StreamTimer((i, i / sequence.fps, image) for i, image in enumerate(sequence))
            result = score(sequence, list(sightings(frames, calibration)))
            result.update(layout=name, options=options, seconds=time.perf_counter() - started,
                          cpu_ms=frames.cpu_ms, wall_ms=frames.wall_ms)
            results.append(result)
            kinds = [type(step).__name__ for step in steps]
            print(f"  game {name} {options or ''} ({len(sequence)} frames; {' '.join(kinds)}): "
                  f"{result['correct']}/{result['placed']} "
                  f"committed, {result['wrong']} wrong, {result['missed']} missed, "
                  f"{result['warnings_given']}/{result['warnings_expected']} warnings",
                  file=sys.stderr, flush=True)
    return results


# --- report ---------------------------------------------------------------------------------

def cell_figures(records: list[dict]) -> dict:
    clear = [r for r in records if r["truth_clear"]]
    cells = sum(r["cells"] for r in clear)
    errors = sum(r["false"] + r["missed"] for r in clear)
    hands = [r for r in records if not r["truth_clear"]]
    return {"frames": len(records), "clear_frames": len(clear), "cells": cells,
            "cell_error": errors / cells if cells else float("nan"),
            "false": sum(r["false"] for r in clear), "missed": sum(r["missed"] for r in clear),
            "uncertain": sum(r["uncertain"] for r in clear) / cells if cells else float("nan"),
            "exact": sum(r["exact"] for r in clear) / len(clear) if clear else float("nan"),
            "clear_read_not_clear": sum(not r["read_clear"] for r in clear),
            "hand_frames": len(hands), "hand_read_clear": sum(r["read_clear"] for r in hands)}


def cpu_name() -> str:
    """``platform.processor()``, or the model name Linux gives when that is empty."""
    if platform.processor():
        return platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    return "?"


def percent(value: float, digits: int = 2) -> str:
    return "n/a" if math.isnan(value) else f"{100 * value:.{digits}f}%"


def _percentiles(values: list[float]) -> tuple[float, float]:
    if not values:
        return float("nan"), float("nan")
    return float(np.percentile(values, 50)), float(np.percentile(values, 95))


def latency_figures(records: list[dict], results: list[dict]) -> dict:
    """Per-frame milliseconds, CPU time of the one thread and wall clock.

    The goal is judged on the stream (``watch``'s games: a camera's frames, each
    like the one before) in CPU time, which other work on the machine does not
    inflate; without games, on the independent frames.
    """
    figures: dict[str, Any] = {}
    kinds = {"frames": [r for r in records if not r["cold"]],
             "cold": [r for r in records if r["cold"]]}
    for kind, group in kinds.items():
        figures[f"{kind}_cpu"] = _percentiles([r["ms"] for r in group])
        figures[f"{kind}_wall"] = _percentiles([r["wall_ms"] for r in group])
        figures[f"{kind}_count"] = len(group)
    figures["stream_cpu"] = _percentiles([m for r in results for m in r.get("cpu_ms", ())])
    figures["stream_wall"] = _percentiles([m for r in results for m in r.get("wall_ms", ())])
    figures["stream_count"] = sum(len(r.get("cpu_ms", ())) for r in results)
    judged = "stream" if figures["stream_count"] else "frames"
    figures["p50_ms"], figures["p95_ms"] = figures[f"{judged}_cpu"]
    figures["judged_on"] = ("CPU time per frame of watch's stream" if judged == "stream"
                            else "CPU time per independent frame")
    return figures


def print_latency(latency: dict) -> None:
    print("\nper-frame work on one core, ms (p50 / p95), CPU time and wall clock:")
    rows = [("stream", "watch's games: read and tracker, frame after frame"),
            ("frames", "Recognizer.read, independent frames of one table"),
            ("cold", "a fresh recognizer's first read (knocked boards)")]
    for kind, what in rows:
        if latency[f"{kind}_count"]:
            cpu, wall = latency[f"{kind}_cpu"], latency[f"{kind}_wall"]
            print(f"  {what} ({latency[f'{kind}_count']} frames): CPU {cpu[0]:.1f} / "
                  f"{cpu[1]:.1f}, wall {wall[0]:.1f} / {wall[1]:.1f}")


def report(records: list[dict], results: list[dict], elapsed: float, args) -> dict:
    overall = cell_figures(records)
    latency = latency_figures(records, results)
    print(f"\nmachine: {cpu_name()} {platform.machine()}, "
          f"Python {platform.python_version()}, OpenCV {cv2.__version__}, NumPy {np.__version__}")
    print(f"frames {overall['frames']} (1280x960), seed {args.seed}, {elapsed:.0f} s in all\n")
    print(f"{'condition':18s} {'frames':>6s} {'clear':>6s} {'cell error':>10s} {'false':>6s} "
          f"{'missed':>6s} {'uncertain':>9s} {'exact':>7s} {'hand read clear':>15s}")
    by_condition = defaultdict(list)
    for record in records:
        by_condition[record["condition"]].append(record)
    rows = [(name, by_condition[name]) for name, _ in CONDITIONS]
    rows += [(f"layout {name}", [r for r in records if r["layout"] == name])
             for name, _, _ in LAYOUTS]
    rows += [(f"style {style}", [r for r in records if r["style"] == style])
             for style in TILE_STYLES]
    rows += [("all frames", records)]
    figures = {}
    for name, group in rows:
        f = cell_figures(group)
        figures[name] = f
        hands = f"{f['hand_read_clear']}/{f['hand_frames']}" if f["hand_frames"] else "-"
        print(f"{name:18s} {f['frames']:6d} {f['clear_frames']:6d} {percent(f['cell_error'], 3):>10s} "
              f"{f['false']:6d} {f['missed']:6d} {percent(f['uncertain']):>9s} "
              f"{percent(f['exact'], 1):>7s} {hands:>15s}")
    worst = sorted((r for r in records if r.get("false_cells") or r.get("missed_cells")),
                   key=lambda r: -(r["false"] + r["missed"]))[:8]
    if worst:
        print("\nworst frames (table, frame number on it, condition: cells read wrong):")
        for r in worst:
            print(f"  {r['table']}, frame {r['frame']}, {r['condition']}: tile on empty "
                  f"{r['false_cells'][:8]}, tile missed {r['missed_cells'][:8]}")
    print_latency(latency)
    summary: dict[str, Any] = {"recognition": figures, "latency": latency}
    if results:
        placed = sum(r["placed"] for r in results)
        correct = sum(r["correct"] for r in results)
        delays = [d for r in results for d in r["delays"]]
        late = sum(1 for d in delays if d > GOALS["delay"])
        watch_figures = {
            "games": len(results), "frames": sum(r["frames"] for r in results),
            "placed": placed, "correct": correct, "missed": sum(r["missed"] for r in results),
            "wrong": sum(r["wrong"] for r in results), "late": late,
            "max_delay": max(delays) if delays else float("nan"),
            "p50_delay": float(np.percentile(delays, 50)) if delays else float("nan"),
            "warnings_expected": sum(r["warnings_expected"] for r in results),
            "warnings_given": sum(r["warnings_given"] for r in results),
            "warnings_other": sum(r["warnings_other"] for r in results),
            "decided_with_hand": sum(r["decided_with_hand"] for r in results)}
        w = watch_figures
        print(f"\nwatch: {w['games']} games, {w['frames']} frames at 10 fps")
        print(f"  placements committed correctly {w['correct']}/{w['placed']} "
              f"({percent(correct / placed if placed else float('nan'), 1)}), wrong commits "
              f"{w['wrong']}, missed {w['missed']}")
        print(f"  delay after the hand left: median {w['p50_delay']:.2f} s, max "
              f"{w['max_delay']:.2f} s, later than 1 s: {late}")
        print(f"  anomaly warnings {w['warnings_given']}/{w['warnings_expected']}, other "
              f"warnings {w['warnings_other']}, decisions with a hand over the board "
              f"{w['decided_with_hand']}")
        for r in results:
            if r["wrong_lines"] or r["missed_tiles"]:
                print(f"  {r['layout']} {r['options'] or ''}: wrong {r['wrong_lines']}, "
                      f"missed {r['missed_tiles']}")
        summary["watch"] = watch_figures
    print("\ngoals: per-cell error <= 0.05% "
          f"({'met' if overall['cell_error'] <= GOALS['cell_error'] else 'NOT met'}), "
          f"p50 <= 8 ms ({'met' if latency['p50_ms'] <= GOALS['p50_ms'] else 'NOT met'}, "
          f"{latency['judged_on']})"
          + ("" if not results else
             f", zero wrong commits ({'met' if summary['watch']['wrong'] == 0 else 'NOT met'}), "
             f"every placement within 1 s "
             f"({'met' if summary['watch']['late'] == 0 and summary['watch']['missed'] == 0 else 'NOT met'})"))
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=2100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sequences", type=int, default=2, help="random games per layout")
    parser.add_argument("--placements", type=int, default=8, help="placements per game")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: 240 frames, one game of 3 placements per layout")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.frames, args.sequences, args.placements = 240, min(args.sequences, 1), 3
    started = time.perf_counter()
    print(f"calibrating {len(LAYOUTS) * TABLES_PER_LAYOUT} tables ...", file=sys.stderr, flush=True)
    tables = boards(args.seed, TABLES_PER_LAYOUT)
    print(f"reading {args.frames} frames ...", file=sys.stderr, flush=True)
    records = recognition(tables, args.frames, args.seed)
    del tables
    results = []
    if args.sequences > 0:
        print(f"playing {args.sequences} game(s) per layout ...", file=sys.stderr, flush=True)
        results = games(args.seed, args.sequences, args.placements)
    summary = report(records, results, time.perf_counter() - started, args)
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
