"""Vision benchmark: tile recognition accuracy, ``watch`` accuracy and per-frame latency.

    python3 bench/vision.py [--frames 2100] [--seed 0] [--sequences 2] [--placements 8]
                            [--world tuning|held-out|training|both]
                            [--classifier hand|learned|both] [--learn on|off|both]
                            [--quick] [--json FILE]

Two worlds (``calibration/synthetic/worlds.py``), measured alike and reported
side by side: *tuning*, the renderer's world every threshold was set on, and
*held-out*, a far wider one drawn from its own random stream that nothing was
tuned on (board prints and label fonts, tile materials such as ivory plastic
and card with the cell's own label, glossy, thick or printed tiles, colour
casts, under- and over-exposure, camera heights, tilts and lenses, shake,
skin and sleeves). ``--world`` picks one or both (the default); each world
renders its own tables (the held-out ones cycle through every material) and
plays its own games. Only the tuning world's figures may guide tuning.

``--classifier`` picks who decides each cell: the hand-tuned thresholds
(``hand``, the default), the learned model shipped in ``calibration/models``
(``learned``: ``calibration/learned.py``, trained by ``bench/train_cells.py``
on the training world, never on held-out tables), or ``both``, each world
measured with each, side by side.

``--world training`` measures the learned classifier's training world (drawn
from a stream of its own, never a held-out table): as wide as held-out, it
is what anything may be developed on besides tuning.

``--learn`` says whether the Watcher learns the table (``calibration/adapt.py``)
from the placements the game tells it were confirmed: ``on`` (as the table
runs, the default), ``off``, or ``both``, each game played both ways and
reported side by side. The game is played as the table's loop plays it: the
Watcher is told the board at the start and after each tile the table would
confirm (committed or asked, and truly there); the share of cells uncertain on
the truly still frames after the 3rd confirmed placement is reported.

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
  the hand left the board (``clear_from``). A tile the camera proposes as a
  question (a doubted tile) is counted apart, as *asked*, and so are the
  warnings that a cell cannot be told (*cannot tell*).

Run it by hand on a quiet machine; the README keeps the figures. ``--quick``
is a smoke run (a few hundred frames, one short game per layout).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import platform
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from bench.vision_games import learned_share, play, score  # noqa: E402
from calibration.calfile import CalibrationError  # noqa: E402
from calibration.calibrate import calibrate  # noqa: E402
from calibration.classify import CLASSIFIERS  # noqa: E402
from calibration.recognize import Recognizer  # noqa: E402
from calibration.synthetic.render import TILE_STYLES, make_table, render, render_empty  # noqa: E402
from calibration.synthetic.scenes import Nuisances  # noqa: E402
from calibration.synthetic.sequences import random_steps, render_sequence  # noqa: E402
from calibration.synthetic.worlds import (MATERIALS, PRINT_FAMILIES, TRAINING, WORLDS,  # noqa: E402
                                         training_table)

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


def world_table(world: str, rules: str, seed: int, options: dict, index: int) -> Any:
    """The ``index``-th table of a world: tuning tables cycle the tile styles, held-out ones the materials."""
    if world == "tuning":
        return make_table(rules, seed=seed, options=options,
                          tile_style=TILE_STYLES[index % len(TILE_STYLES)])
    if world == TRAINING:
        return training_table(rules, seed, options=options,
                              material=MATERIALS[index % len(MATERIALS)])
    return make_table(rules, seed=seed, options=options, world="held-out",
                      tile_style=MATERIALS[index % len(MATERIALS)])


def calibrated(table: Any, rules: str, options: dict, seed: int) -> Any | None:
    """The table calibrated from a render of its empty board, or None (said on stderr) if refused."""
    empty = render_empty(table, np.random.default_rng(seed))
    try:
        return calibrate(empty.image, empty.truth.corners, rules, options)
    except CalibrationError as error:
        print(f"  calibration refused on {table.rules} {table.tile_style}/{table.palette}: {error}",
              file=sys.stderr, flush=True)
        return None


def boards(seed: int, per_layout: int, world: str = "tuning") -> tuple[list[Board], list[str]]:
    """The tables, each calibrated from a render of its empty board (1 s each: the first draw).

    Returns them and the names of the tables whose calibration was refused.
    """
    made, refused = [], []
    for number, (name, rules, parities) in enumerate(LAYOUTS):
        for k in range(per_layout):
            options = parities[k % len(parities)]
            table_seed = seed * 1000 + 10 * number + k
            index = number + k if world == "tuning" else per_layout * number + k
            table = world_table(world, rules, table_seed, options, index)
            calibration = calibrated(table, rules, options, seed + k)
            board = Board(name, table, calibration, table_seed)
            if calibration is None:
                refused.append(board.name)
            else:
                made.append(board)
    return made, refused


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
    if not boards_:
        return []
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
                      "style": board.table.tile_style, "print": board.table.palette,
                      "cells": size, "truth_clear": truth.clear,
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


# --- watch (the games are played and scored in bench/vision_games.py) -----------------------

def games(seed: int, count: int, placements: int, world: str = "tuning",
          learns: tuple[bool, ...] = (True,)) -> list[dict]:
    """``count`` random games per layout through ``watch``'s Watcher, each played once per
    ``learns`` (the table's own examples used or not); one score each."""
    results = []
    for number, (name, rules, parities) in enumerate(LAYOUTS):
        for k in range(count):
            options = parities[k % len(parities)]
            index = number + 2 * k if world == "tuning" else 2 * number + 5 * k
            table = world_table(world, rules, seed * 1000 + 500 + 10 * number + k, options, index)
            calibration = calibrated(table, rules, options, k)
            if calibration is None:
                results.append({"layout": name, "options": options, "refused": True,
                                "style": table.tile_style, "print": table.palette})
                continue
            # The game's own stream: the world's tables differ, the scripts may coincide.
            rng = np.random.default_rng(seed * 1000 + 10 * number + k)
            steps = random_steps(table, rng, placements=placements)
            sequence = render_sequence(table, steps, rng)
            for learn in learns:
                started = time.perf_counter()
                frames = StreamTimer((i, i / sequence.fps, image)
                                     for i, image in enumerate(sequence))
                seen, learned = play(sequence, calibration, frames, learn)
                result = score(sequence, seen)
                result.update(learned)
                result.update(layout=name, options=options, seconds=time.perf_counter() - started,
                              cpu_ms=frames.cpu_ms, wall_ms=frames.wall_ms, learn=learn,
                              style=table.tile_style, print=table.palette)
                results.append(result)
                kinds = [type(step).__name__ for step in steps]
                print(f"  game {world} {name} {options or ''} {table.tile_style}/{table.palette} "
                      f"learn {'on' if learn else 'off'} "
                      f"({len(sequence)} frames; {' '.join(kinds)}): "
                      f"{result['correct']}/{result['placed']} "
                      f"committed, {result['asked']} asked, {result['wrong']} wrong, "
                      f"{result['missed']} missed, "
                      f"{result['warnings_given']}/{result['warnings_expected']} warnings, "
                      f"uncertain after the 3rd confirmed {percent(learned_share(result))}",
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


def watch_figures(results: list[dict]) -> dict:
    """``watch``'s figures over some games (refused calibrations count as games not played)."""
    played = [r for r in results if not r.get("refused")]
    placed = sum(r["placed"] for r in played)
    delays = [d for r in played for d in r["delays"]]
    asked = [d for r in played for d in r.get("asked_delays", ())]
    late = sum(1 for d in delays + asked if d > GOALS["delay"])
    p50, p95 = _percentiles(delays)
    return {"games": len(played), "refused": len(results) - len(played),
            "frames": sum(r["frames"] for r in played),
            "placed": placed, "correct": sum(r["correct"] for r in played),
            "asked": len(asked), "asked_wrong": sum(r.get("asked_wrong", 0) for r in played),
            "missed": sum(r["missed"] for r in played), "wrong": sum(r["wrong"] for r in played),
            "late": late, "max_delay": max(delays) if delays else float("nan"),
            "p50_delay": p50, "p95_delay": p95,
            "cannot_tell": sum(r.get("cannot_tell", 0) for r in played),
            "warnings_expected": sum(r["warnings_expected"] for r in played),
            "warnings_given": sum(r["warnings_given"] for r in played),
            "warnings_other": sum(r["warnings_other"] for r in played),
            "decided_with_hand": sum(r["decided_with_hand"] for r in played),
            "cpu_p50": _percentiles([m for r in played for m in r.get("cpu_ms", ())])[0],
            "uncertain_after_3": learned_share({
                "still_cells": sum(r.get("still_cells", 0) for r in played),
                "still_uncertain": sum(r.get("still_uncertain", 0) for r in played)}),
            "learned_cells": sum(r.get("learned_cells", 0) for r in played),
            "learned_wrong": sum(r.get("learned_wrong", 0) for r in played)}


def report(records: list[dict], results: list[dict], elapsed: float, args, world: str = "tuning",
           refused: Iterable[str] = (), classifier: str = "hand") -> dict:
    overall = cell_figures(records)
    latency = latency_figures(records, results)
    print(f"\n=== world: {world} ===" if classifier == "hand"
          else f"\n=== world: {world}, classifier: {classifier} ===")
    print(f"machine: {cpu_name()} {platform.machine()}, "
          f"Python {platform.python_version()}, OpenCV {cv2.__version__}, NumPy {np.__version__}")
    print(f"frames {overall['frames']} (1280x960), seed {args.seed}, {elapsed:.0f} s in all\n")
    for name in refused:
        print(f"calibration refused: {name} (its frames are not read)")
    print(f"{'condition':22s} {'frames':>6s} {'clear':>6s} {'cell error':>10s} {'false':>6s} "
          f"{'missed':>6s} {'uncertain':>9s} {'exact':>7s} {'hand read clear':>15s}")
    by_condition = defaultdict(list)
    for record in records:
        by_condition[record["condition"]].append(record)
    rows = [(name, by_condition[name]) for name, _ in CONDITIONS]
    rows += [(f"layout {name}", [r for r in records if r["layout"] == name])
             for name, _, _ in LAYOUTS]
    styles = TILE_STYLES if world == "tuning" else MATERIALS
    rows += [(f"style {style}", [r for r in records if r["style"] == style]) for style in styles]
    if world != "tuning":
        rows += [(f"print {family}", [r for r in records if r["print"] == family])
                 for family in PRINT_FAMILIES]
    rows += [("all frames", records)]
    figures = {}
    for name, group in rows:
        if not group:
            continue
        f = cell_figures(group)
        figures[name] = f
        hands = f"{f['hand_read_clear']}/{f['hand_frames']}" if f["hand_frames"] else "-"
        print(f"{name:22s} {f['frames']:6d} {f['clear_frames']:6d} {percent(f['cell_error'], 3):>10s} "
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
    summary: dict[str, Any] = {"recognition": figures, "latency": latency,
                               "calibration_refused": list(refused)}
    if results:
        w = summary["watch"] = watch_figures(results)
        print(f"\nwatch: {w['games']} games, {w['frames']} frames at 10 fps"
              + (f" ({w['refused']} not played: calibration refused)" if w["refused"] else ""))
        print(f"  placements committed correctly {w['correct']}/{w['placed']}, asked (a doubted "
              f"tile proposed) {w['asked']}, wrong commits {w['wrong']}, wrong asks "
              f"{w['asked_wrong']}, missed {w['missed']}")
        print(f"  delay after the hand left: median {w['p50_delay']:.2f} s, p95 "
              f"{w['p95_delay']:.2f} s, max {w['max_delay']:.2f} s, later than 1 s: {w['late']}")
        print(f"  still frames after the 3rd confirmed placement: {percent(w['uncertain_after_3'])} "
              f"of cells uncertain; cells decided by the table's own examples "
              f"{w['learned_cells']} ({w['learned_wrong']} wrong)")
        print(f"  anomaly warnings {w['warnings_given']}/{w['warnings_expected']}, other "
              f"warnings {w['warnings_other']} (cannot tell a cell: {w['cannot_tell']}), "
              f"decisions with a hand over the board {w['decided_with_hand']}")
        for r in results:
            if not r.get("refused") and (r["wrong_lines"] or r["missed_tiles"] or
                                         r["asked_wrong_lines"]):
                print(f"  {r['layout']} {r['options'] or ''} {r['style']}/{r['print']}: wrong "
                      f"{r['wrong_lines']}, missed {r['missed_tiles']}, asked wrongly "
                      f"{r['asked_wrong_lines']}")
    watch = summary.get("watch")
    print("\ngoals: per-cell error <= 0.05% "
          f"({'met' if overall['cell_error'] <= GOALS['cell_error'] else 'NOT met'}), "
          f"p50 <= 8 ms ({'met' if latency['p50_ms'] <= GOALS['p50_ms'] else 'NOT met'}, "
          f"{latency['judged_on']})"
          + ("" if not watch else
             f", zero wrong commits ({'met' if watch['wrong'] == 0 else 'NOT met'}), "
             f"every placement within 1 s "
             f"({'met' if watch['late'] == 0 and watch['missed'] == 0 else 'NOT met'})"))
    return summary


def side_by_side(worlds: dict[str, tuple[list[dict], list[dict]]]) -> dict:
    """The same measures per layout and world, one row each; printed and returned."""
    rows: dict[str, dict] = {}
    for world, (records, results) in worlds.items():
        for layout in [name for name, _, _ in LAYOUTS] + ["all"]:
            mine = [r for r in records if layout in ("all", r["layout"])]
            games_ = [r for r in results if layout in ("all", r["layout"])]
            cells, watch = cell_figures(mine), watch_figures(games_)
            rows[f"{world} {layout}"] = {
                "world": world, "layout": layout, "cell_error": cells["cell_error"],
                "uncertain": cells["uncertain"], "exact": cells["exact"],
                "committed": watch["correct"], "asked": watch["asked"], "placed": watch["placed"],
                "wrong": watch["wrong"], "cannot_tell": watch["cannot_tell"],
                "p50_delay": watch["p50_delay"], "p95_delay": watch["p95_delay"],
                "cpu_p50": watch["cpu_p50"], "refused": watch["refused"],
                "missed": watch["missed"], "uncertain_after_3": watch["uncertain_after_3"],
                "learned_wrong": watch["learned_wrong"]}
    print("\nside by side (recognition on clear boards; watch's games; CPU ms per frame of the stream):")
    width = max([20] + [len(name) + 1 for name in rows])
    print(f"{'world / layout':{width}s} {'cell error':>10s} {'uncertain':>9s} {'exact':>7s} "
          f"{'committed':>11s} {'asked':>5s} {'wrong':>5s} {'cannot tell':>11s} "
          f"{'delay p50/p95 s':>15s} {'CPU p50':>7s} {'missed':>6s} {'unc. after 3rd':>14s}")
    for name, row in rows.items():
        delay = ("-" if math.isnan(row["p50_delay"])
                 else f"{row['p50_delay']:.1f}/{row['p95_delay']:.1f}")
        cpu = "-" if math.isnan(row["cpu_p50"]) else f"{row['cpu_p50']:.1f}"
        print(f"{name:{width}s} {percent(row['cell_error'], 3):>10s} {percent(row['uncertain']):>9s} "
              f"{percent(row['exact'], 1):>7s} {str(row['committed']) + '/' + str(row['placed']):>11s} "
              f"{row['asked']:5d} {row['wrong']:5d} {row['cannot_tell']:11d} {delay:>15s} {cpu:>7s} "
              f"{row['missed']:6d} {percent(row['uncertain_after_3']):>14s}")
    return rows


def run_world(world: str, args, classifier: str = "hand",
              learns: tuple[bool, ...] = (True,)) -> tuple[dict, list[dict], list[dict]]:
    """Calibrate, read and play one world with one classifier; its summary, records and results
    (each game once per ``learns``: the results of both are told apart by their ``learn``)."""
    started = time.perf_counter()
    print(f"[{world}] calibrating {len(LAYOUTS) * TABLES_PER_LAYOUT} tables ...", file=sys.stderr,
          flush=True)
    tables, refused = boards(args.seed, TABLES_PER_LAYOUT, world)
    print(f"[{world}] reading {args.frames} frames ...", file=sys.stderr, flush=True)
    records = recognition(tables, args.frames, args.seed)
    del tables
    results = []
    if args.sequences > 0:
        print(f"[{world}] playing {args.sequences} game(s) per layout ...", file=sys.stderr,
              flush=True)
        results = games(args.seed, args.sequences, args.placements, world, learns)
    summary = report(records, [r for r in results if r.get("learn", True) == learns[0]],
                     time.perf_counter() - started, args, world, refused, classifier)
    if len(learns) > 1:
        summary["watch_learn_off"] = watch_figures([r for r in results if not r["learn"]])
    return summary, records, results


def _plain(value: Any) -> Any:
    """``value`` with NaN as null, so that the file is JSON every reader takes."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=2100, help="frames per world")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sequences", type=int, default=2, help="random games per layout")
    parser.add_argument("--placements", type=int, default=8, help="placements per game")
    parser.add_argument("--world", choices=WORLDS + (TRAINING, "both"), default="both",
                        help="the tuning world, the held-out one, or both side by side (or the "
                             "learned classifier's training world, to develop on)")
    parser.add_argument("--classifier", choices=CLASSIFIERS + ("both",), default="hand",
                        help="who decides each cell: the hand-tuned thresholds, the learned "
                             "model, or both side by side")
    parser.add_argument("--learn", choices=("on", "off", "both"), default="on",
                        help="whether the Watcher learns the table from the placements it is "
                             "told were confirmed (calibration/adapt.py), or both side by side")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: 240 frames, one game of 3 placements per layout")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.frames, args.sequences, args.placements = 240, min(args.sequences, 1), 3
    worlds = WORLDS if args.world == "both" else (args.world,)
    classifiers = CLASSIFIERS if args.classifier == "both" else (args.classifier,)
    summaries, data = {}, {}
    for world in worlds:
        for classifier in classifiers:
            # Every recognizer the run makes takes its classifier from the environment.
            os.environ["TABLETOP_CLASSIFIER"] = classifier
            name = world if len(classifiers) == 1 else f"{world}/{classifier}"
            learns = {"on": (True,), "off": (False,), "both": (True, False)}[args.learn]
            summary, records, results = run_world(world, args, classifier, learns)
            summaries[name] = summary
            for learn in learns:
                label = name if len(learns) == 1 else f"{name} learn {'on' if learn else 'off'}"
                data[label] = (records, [r for r in results if r.get("learn", True) == learn])
    rows = side_by_side(data)
    if args.json:
        out = {"machine": {"cpu": cpu_name(), "arch": platform.machine(),
                           "python": platform.python_version(), "opencv": cv2.__version__,
                           "numpy": np.__version__},
               "args": {k: v for k, v in vars(args).items() if k != "json"},
               "worlds": summaries, "side_by_side": rows}
        Path(args.json).write_text(json.dumps(_plain(out), indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
