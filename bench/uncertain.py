"""Where the uncertain cells (and the cell errors) come from: a breakdown by world and condition.

    python3 bench/uncertain.py [--world training|tuning|held-out|dev|all] [--frames 240]
                               [--seed 0] [--dump DIR] [--json FILE]

The frames are made and scored exactly as ``bench/vision.py``'s recognition
frames are (the same tables, the same random stream per table, the same
thirteen conditions; a cell is an error when read occupied on an empty cell,
or empty on a tile), so that its figures and these agree for the tuning and
held-out worlds. The *training* world (``calibration/synthetic/worlds.py``,
the learned classifier's, a stream of its own) is read the same way, its
tables cycling through every tile material.

Each world is broken down by layout, tile style (or material), print (family),
nuisance condition and the worst style and print pairs; the uncertain cells
are split into those that held a tile and those that were empty, and counted
by why they were left so (``calibration/cellcues.py``'s causes: glare, washed
out, doubtful, between, an unreadable frame ...). ``--dump``
writes, per world, a contact sheet of uncertain cells (each the frame's cell
beside the empty board's, rectified; its truth and measures under it) to look at.

``--world dev`` (the default) is the two worlds that may guide tuning, training
and tuning; the held-out world is the exam: read it only to report.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from calibration.cellcues import CAUSES  # noqa: E402
from calibration.recognize import Recognizer  # noqa: E402
from calibration.synthetic.render import render  # noqa: E402
from calibration.synthetic.worlds import MATERIALS, require_training, training_table  # noqa: E402


def _vision() -> Any:
    """bench/vision.py as a module (its tables, conditions and scoring are this script's)."""
    spec = importlib.util.spec_from_file_location("bench_vision", Path(__file__).with_name("vision.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module     # (its dataclasses look their module up there)
    spec.loader.exec_module(module)
    return module


vision = _vision()
#: Training-world tables are drawn from seeds this far up: apart from bench/train_cells.py's.
TRAINING_SEEDS = 7_000_000
#: At most this many uncertain cells on a contact sheet, this many a table and a frame,
#: this many a row.
SHEET_CELLS, SHEET_PER_TABLE, SHEET_PER_FRAME, SHEET_ROW = 96, 8, 2, 8


def training_boards(seed: int, per_layout: int) -> tuple[list, list[str]]:
    """Training-world tables calibrated as bench/vision.py calibrates its own; and those refused."""
    made, refused = [], []
    for number, (name, rules, parities) in enumerate(vision.LAYOUTS):
        for k in range(per_layout):
            options = parities[k % len(parities)]
            table_seed = TRAINING_SEEDS + seed * 1000 + 10 * number + k
            table = training_table(rules, table_seed, options=options,
                                   material=MATERIALS[(per_layout * number + k) % len(MATERIALS)])
            require_training(table)
            calibration = vision.calibrated(table, rules, options, seed + k)
            board = vision.Board(name, table, calibration, table_seed)
            (refused.append(board.name) if calibration is None else made.append(board))
    return made, refused


def world_boards(world: str, seed: int, per_layout: int = vision.TABLES_PER_LAYOUT):
    if world == "training":
        return training_boards(seed, per_layout)
    return vision.boards(seed, per_layout, world)


def read_frames(boards: list, frames: int, seed: int,
                look: Callable[..., None] | None = None) -> list[dict]:
    """bench/vision.py's recognition frames, one record each, with the uncertain cells' truth.

    ``look(board, number, frame, observation)`` is called on every frame read.
    """
    if not boards:
        return []
    per_board = max(len(vision.CONDITIONS), frames // len(boards))
    records = []
    for board in boards:
        rng = np.random.default_rng([seed, board.seed])
        size = board.calibration.layout.size
        warm = Recognizer(board.calibration)
        for k in range(per_board):
            condition, nuisances = vision.CONDITIONS[k % len(vision.CONDITIONS)]
            count = int(size * rng.uniform(0.0, 0.45))
            cells = rng.choice(size, count, replace=False)
            tiles = {int(c): ("dead" if rng.random() < 0.05 else None) for c in cells}
            frame = render(board.table, tiles, rng, nuisances)
            recognizer = Recognizer(board.calibration) if any(frame.scene.bump) else warm
            seen = recognizer.read(frame.image)
            record = _record(board, condition, size, frame.truth, seen)
            if frame.truth.clear:
                record["causes"] = _causes(recognizer.classifier.last_verdicts, seen, frame.truth)
            records.append(record)
            if look is not None:
                look(board, k, frame, seen)
    return records


def _record(board, condition: str, size: int, truth, seen) -> dict:
    record = {"layout": board.layout, "condition": condition, "style": board.table.tile_style,
              "print": board.table.palette, "cells": size, "truth_clear": truth.clear,
              "read_clear": seen.clear}
    if truth.clear:
        record.update(false=len(seen.occupied - truth.occupied),
                      missed=len(truth.occupied - seen.occupied - seen.uncertain),
                      uncertain=len(seen.uncertain),
                      uncertain_tiles=len(seen.uncertain & truth.occupied),
                      exact=seen.occupied == truth.occupied and not seen.uncertain)
    return record


def _causes(verdicts, seen, truth) -> dict[str, int]:
    """The uncertain cells by why (calibration/cellcues.py's CAUSES) and truth ("glare tile")."""
    counts: dict[str, int] = defaultdict(int)
    for cell in seen.uncertain:
        why = "unreadable" if verdicts is None else CAUSES[int(verdicts.cause[cell])]
        counts[f"{why} {'tile' if cell in truth.occupied else 'empty'}"] += 1
    return dict(counts)


def causes(records: list[dict]) -> dict[str, int]:
    """Every clear frame's uncertain cells by cause, most first."""
    total: dict[str, int] = defaultdict(int)
    for r in records:
        for name, count in r.get("causes", {}).items():
            total[name] += count
    return dict(sorted(total.items(), key=lambda item: -item[1]))


def figures(records: list[dict]) -> dict:
    """bench/vision.py's cell figures, and the uncertain cells that held a tile."""
    out = vision.cell_figures(records)
    clear = [r for r in records if r["truth_clear"]]
    out["uncertain_tiles"] = sum(r["uncertain_tiles"] for r in clear)
    out["uncertain_cells"] = sum(r["uncertain"] for r in clear)
    return out


def breakdown(records: list[dict]) -> dict[str, dict]:
    """Figures per layout, style, print, condition, and for the worst style and print pairs."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        for key in ("layout", "style", "print", "condition"):
            groups[f"{key} {r[key]}"].append(r)
        groups[f"pair {r['style']}/{r['print']}"].append(r)
    rows = {name: figures(group) for name, group in sorted(groups.items())}
    pairs = sorted((n for n in rows if n.startswith("pair ")),
                   key=lambda n: -rows[n]["uncertain_cells"])
    for name in pairs[6:]:
        del rows[name]
    rows["all frames"] = figures(records)
    rows["all frames"]["causes"] = causes(records)
    return rows


def print_breakdown(world: str, rows: dict[str, dict]) -> None:
    print(f"\n=== world: {world} ===")
    print(f"{'group':34s} {'frames':>6s} {'error':>8s} {'false':>5s} {'missed':>6s} "
          f"{'uncertain':>9s} {'of them tiles':>13s} {'hand read clear':>15s}")
    for name, f in rows.items():
        hands = f"{f['hand_read_clear']}/{f['hand_frames']}" if f["hand_frames"] else "-"
        tiles = f"{f['uncertain_tiles']}/{f['uncertain_cells']}"
        print(f"{name:34s} {f['frames']:6d} {vision.percent(f['cell_error'], 3):>8s} "
              f"{f['false']:5d} {f['missed']:6d} {vision.percent(f['uncertain']):>9s} "
              f"{tiles:>13s} {hands:>15s}")
    print("uncertain cells by cause: " + ", ".join(f"{name} {count}" for name, count
                                                   in rows["all frames"]["causes"].items()))


class Sheet:
    """A contact sheet of uncertain cells: the frame's rectified cell beside the empty board's."""

    def __init__(self) -> None:
        self.pieces: list[np.ndarray] = []
        self.per_table: dict[int, int] = defaultdict(int)

    def look(self, board, number: int, frame, seen) -> None:
        if not frame.truth.clear or seen.plane is None or len(self.pieces) >= SHEET_CELLS or \
                self.per_table[board.seed] >= SHEET_PER_TABLE:
            return
        calibration = board.calibration
        reference = cv2.cvtColor(calibration.reference, cv2.COLOR_BGR2GRAY)
        reading = seen.reading
        for cell in sorted(seen.uncertain)[:SHEET_PER_FRAME]:
            truth = "tile" if cell in frame.truth.occupied else "empty"
            note = (f"{truth} {board.table.tile_style[:8]} s{reading.structure[cell]:.2f} "
                    f"e{(reading.energy[cell] if reading.energy is not None else 0):.1f} "
                    f"c{reading.chroma[cell]:.0f} b{reading.brightness[cell]:+.2f}")
            self.pieces.append(_piece(calibration, cell, seen.plane, reference, note))
            self.per_table[board.seed] += 1

    def write(self, path: Path) -> None:
        if not self.pieces:
            return
        rows = [np.hstack(self.pieces[k:k + SHEET_ROW] + [np.zeros_like(self.pieces[0])]
                          * (SHEET_ROW - len(self.pieces[k:k + SHEET_ROW])))
                for k in range(0, len(self.pieces), SHEET_ROW)]
        cv2.imwrite(str(path), np.vstack(rows))


def _piece(calibration, cell: int, plane: np.ndarray, reference: np.ndarray, note: str) -> np.ndarray:
    """One cell (0.65 units round its centre) of the frame and of the reference, doubled, with a note."""
    scale = calibration.scale
    x, y = (calibration.layout.centres[cell] - np.asarray(calibration.origin)) * scale
    half = round(0.65 * scale)
    crops = []
    for image in (plane, reference):
        padded = cv2.copyMakeBorder(image, half, half, half, half, cv2.BORDER_CONSTANT, value=0)
        cx, cy = round(x) + half, round(y) + half
        crops.append(cv2.resize(padded[cy - half:cy + half, cx - half:cx + half], None, fx=2, fy=2,
                                interpolation=cv2.INTER_NEAREST))
    piece = cv2.cvtColor(np.hstack(crops), cv2.COLOR_GRAY2BGR)
    strip = np.zeros((16, piece.shape[1], 3), np.uint8)
    cv2.putText(strip, note, (2, 12), cv2.FONT_HERSHEY_PLAIN, 0.8, (255, 255, 255), 1, cv2.LINE_AA)
    return cv2.copyMakeBorder(np.vstack([piece, strip]), 2, 2, 2, 2, cv2.BORDER_CONSTANT,
                              value=(0, 0, 160))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--world", choices=("training", "tuning", "held-out", "dev", "all"),
                        default="dev", help="dev: training and tuning (the worlds tuning may use)")
    parser.add_argument("--frames", type=int, default=240, help="frames per world")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dump", metavar="DIR", help="write contact sheets of uncertain cells here")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    worlds = {"dev": ("training", "tuning"), "all": ("training", "tuning", "held-out")}.get(
        args.world, (args.world,))
    print(f"machine: {vision.cpu_name()}, OpenCV {cv2.__version__}; seed {args.seed}, "
          f"{args.frames} frames a world", flush=True)
    out = {}
    for world in worlds:
        print(f"[{world}] calibrating and reading ...", file=sys.stderr, flush=True)
        boards, refused = world_boards(world, args.seed)
        for name in refused:
            print(f"calibration refused: {name} (its frames are not read)")
        sheet = Sheet() if args.dump else None
        records = read_frames(boards, args.frames, args.seed, sheet.look if sheet else None)
        out[world] = breakdown(records)
        print_breakdown(world, out[world])
        if sheet:
            Path(args.dump).mkdir(parents=True, exist_ok=True)
            sheet.write(Path(args.dump) / f"uncertain-{world}-seed{args.seed}.png")
    if args.json:
        Path(args.json).write_text(json.dumps(vision._plain(out), indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
