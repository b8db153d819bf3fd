"""Train the learned cell classifier (``calibration/learned.py``) on renders of the training world.

    python3 bench/train_cells.py [--tables 80] [--frames 8] [--seed 0]
                                 [--out calibration/models/cells.npz] [--cache FILE] [--quick]

Deterministic from ``--seed``: the same tables, frames, split and weights
(numpy alone, one thread's arithmetic). It renders ``--tables`` tables of
the *training* world (``calibration/synthetic/worlds.py``: its own random
stream, never a held-out table; :func:`require_training` refuses any
other), calibrates each from a render of its empty board as ``bench/vision.py``
does, and reads ``--frames`` frames of each (random tiles, some face down,
random nuisances) through the recognizer exactly as ``watch`` would, taking
each cell's features (:class:`calibration.learned.LearnedCells`) with the
rendered truth as its label. Some frames are read a second time through a
grid shifted and skewed by up to a pixel or two (a misregistered region:
a slightly wrong pose or lens). Only frames whose board is clear count.

Every fifth table is kept out of the fitting: on those the probabilities'
temperature is fitted and the thresholds chosen. The model decides the
cells the hand-tuned thresholds leave uncertain: ``tile_at`` lies above
every such empty cell's probability there, ``empty_at`` below every such
tile's but a few in ten thousand. A hand-tuned verdict is doubted where the
model is sure of the opposite (``veto_tile``, ``veto_empty``: at most 1 % of
the right verdicts there, and never less sure than even odds).
Held-out tables are measured
on with ``bench/vision.py --classifier learned``; they are never seen here.
A few minutes on a laptop at the defaults; ``--quick`` is a smaller smoke run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from calibration.calfile import CalibrationError  # noqa: E402
from calibration.calibrate import calibrate  # noqa: E402
from calibration.classify import COLOUR_SHRINK, READABLE  # noqa: E402
from calibration.learned import (  # noqa: E402
    MODEL_PATH,
    SCALARS,
    CellModel,
    learned_cells,
    save_model,
    summarize,
)
from calibration.recognize import Recognizer  # noqa: E402
from calibration.synthetic.render import render, render_empty  # noqa: E402
from calibration.synthetic.scenes import Nuisances  # noqa: E402
from calibration.synthetic.worlds import require_training, training_table  # noqa: E402

#: (rule set, options) of the boards the tables cycle through.
BOARDS = [("acquire", {}), ("megacquire-gold", {"hex_offset": "odd-r"}),
          ("acquisitions", {}), ("megacquire-gold", {"hex_offset": "even-r"})]
NUISANCES = [f for f in Nuisances.__dataclass_fields__ if f != "hand"]
#: Hidden units, and the fitting's epochs, batch and step.
HIDDEN, EPOCHS, BATCH, STEP, DECAY = 32, 20, 512, 3e-3, 1e-4
#: The share of empty validation cells allowed at or above ``tile_at``, and of tiles at
#: or below ``empty_at``; the least ``tile_at`` and the most ``empty_at`` whatever they say.
FALSE_TILE_RATE, MISSED_TILE_RATE = 2e-5, 3e-4
LEAST_TILE_AT, MOST_EMPTY_AT = 0.9, 0.3
#: A hand-tuned verdict is vetoed (made unsure) where the model is this sure of the opposite:
#: set so that at most this share of the hand-tuned verdicts that were right is vetoed.
VETO_COST, VETO_LIMITS = 0.01, (0.5, 0.5)
#: Every VALIDATION-th table is kept out of the fitting.
VALIDATION = 5


def table_for(seed: int, index: int):
    rules, options = BOARDS[index % len(BOARDS)]
    table = training_table(rules, seed * 100_000 + index, options=options)
    require_training(table)
    return table, rules, options


def random_nuisances(rng: np.random.Generator) -> Nuisances:
    """Each nuisance on in a third of the frames, at a random strength; now and then none."""
    if rng.random() < 0.15:
        return Nuisances.none()
    return Nuisances(**{name: float(rng.uniform(0.2, 1.0)) if rng.random() < 0.33 else 0.0
                        for name in NUISANCES})


def skewed(matrix: np.ndarray, rng: np.random.Generator, units: float) -> np.ndarray:
    """``matrix`` (board units to pixels) through a random shift and skew of up to ``units``."""
    square = np.array([[0, 0], [10, 0], [10, 8], [0, 8]], np.float32)
    moved = (square + rng.uniform(-units, units, square.shape)).astype(np.float32)
    return matrix @ cv2.getPerspectiveTransform(square, moved)


def table_samples(seed: int, index: int, frames: int) -> tuple[list[np.ndarray], list[np.ndarray],
                                                               list[np.ndarray]]:
    """One table's raw rows, labels (a tile 1, empty 0) and the hand-tuned verdicts (2 a tile,
    0 empty, 1 uncertain); nothing if its calibration is refused."""
    table, rules, options = table_for(seed, index)
    rng = np.random.default_rng([seed, index])
    empty = render_empty(table, rng)
    try:
        calibration = calibrate(empty.image, empty.truth.corners, rules, options)
    except CalibrationError:
        return [], [], []
    recognizer = Recognizer(calibration)
    classifier = recognizer.classifier
    collector = classifier.cells = learned_cells(classifier, None)
    features, labels, hands = [], [], []
    size = calibration.layout.size
    for _ in range(frames):
        cells = rng.choice(size, int(size * rng.uniform(0.0, 0.5)), replace=False)
        tiles = {int(c): ("dead" if rng.random() < 0.05 else None) for c in cells}
        frame = render(table, tiles, rng, random_nuisances(rng))
        collector.last_features = None
        recognizer.read(frame.image)
        truth = np.zeros(size, np.float32)
        truth[list(frame.truth.occupied)] = 1.0
        if not frame.truth.clear or collector.last_features is None or recognizer.repeated:
            continue
        features.append(collector.last_features)
        labels.append(truth)
        hands.append(_verdicts(collector.last_hand))
        if rng.random() < 0.5 and recognizer._last_matrix is not None:
            grey = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
            matrix = skewed(recognizer._last_matrix, rng, float(rng.uniform(0.02, 0.07)))
            collector.last_features = None
            classifier.read_planes(*recognizer.rectify.planes(frame.image, grey, matrix,
                                                              COLOUR_SHRINK))
            if collector.last_features is not None:
                features.append(collector.last_features)
                labels.append(truth)
                hands.append(_verdicts(collector.last_hand))
    return features, labels, hands


def _verdicts(hand: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    tile, empty = hand
    return np.where(tile, 2, np.where(empty, 0, 1)).astype(np.int8)


def collect(seed: int, tables: int,
            frames: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Raw rows, labels, each row's table number and the hand-tuned verdicts over ``tables``."""
    rows, labels, groups, verdicts = [], [], [], []
    for index in range(tables):
        started = time.perf_counter()
        features, truth, hands = table_samples(seed, index, frames)
        for f, t, h in zip(features, truth, hands):
            rows.append(f)
            labels.append(t)
            verdicts.append(h)
            groups.append(np.full(len(t), index))
        print(f"  table {index + 1}/{tables}: {len(features)} frames read "
              f"({time.perf_counter() - started:.1f} s)", file=sys.stderr, flush=True)
    return (np.concatenate(rows), np.concatenate(labels), np.concatenate(groups),
            np.concatenate(verdicts))


def inputs(raw: np.ndarray) -> np.ndarray:
    """The network's inputs from collected raw rows (see :func:`calibration.learned.summarize`)."""
    return summarize(raw, (raw.shape[1] - SCALARS) // 2)


def fit(x: np.ndarray, y: np.ndarray, seed: int) -> dict[str, np.ndarray]:
    """A one-hidden-layer perceptron fitted by Adam on the logistic loss; its arrays."""
    rng = np.random.default_rng(seed)
    mean = x.mean(axis=0)
    scale = np.maximum(x.std(axis=0), 1e-3)
    z = ((x - mean) / scale).astype(np.float32)
    params = [p.astype(np.float32) for p in (
        rng.normal(0, np.sqrt(2 / z.shape[1]), (z.shape[1], HIDDEN)), np.zeros(HIDDEN),
        rng.normal(0, np.sqrt(1 / HIDDEN), (HIDDEN, 1)), np.zeros(1))]
    moments = [(np.zeros_like(p), np.zeros_like(p)) for p in params]
    step = 0
    for epoch in range(EPOCHS):
        order = rng.permutation(len(z))
        rate = STEP * (0.5 * (1 + np.cos(np.pi * epoch / EPOCHS)))   # cosine decay
        for start in range(0, len(z), BATCH):
            batch = order[start:start + BATCH]
            grads = _gradients(params, z[batch], y[batch])
            step += 1
            for k, (p, g) in enumerate(zip(params, grads)):
                m, v = moments[k]
                m[:] = 0.9 * m + 0.1 * g
                v[:] = 0.999 * v + 0.001 * g * g
                p -= rate * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
                if p.ndim == 2:
                    p -= rate * DECAY * p
    return {"mean": mean.astype(np.float32), "scale": scale.astype(np.float32),
            "w0": params[0].astype(np.float32), "b0": params[1].astype(np.float32),
            "w1": params[2].astype(np.float32), "b1": params[3].astype(np.float32),
            "depth": np.int64(2)}


def _gradients(params: list[np.ndarray], z: np.ndarray, y: np.ndarray) -> list[np.ndarray]:
    w0, b0, w1, b1 = params
    hidden = np.maximum(z @ w0 + b0, 0.0)
    logit = (hidden @ w1 + b1)[:, 0]
    error = (1 / (1 + np.exp(-np.clip(logit, -40, 40))) - y)[:, None] / len(y)
    back = (error @ w1.T) * (hidden > 0)
    return [z.T @ back, back.sum(axis=0), hidden.T @ error, error.sum(axis=0)]


def temperature(logits: np.ndarray, y: np.ndarray) -> float:
    """The temperature that makes the probabilities fit the validation tables best (least log loss)."""
    def loss(t: float) -> float:
        p = np.clip(1 / (1 + np.exp(-np.clip(logits / t, -40, 40))), 1e-12, 1 - 1e-12)
        return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())
    return float(min(np.exp(np.linspace(np.log(0.3), np.log(5), 120)), key=loss))


def thresholds(p: np.ndarray, y: np.ndarray, hand: np.ndarray) -> tuple[float, float]:
    """``tile_at`` and ``empty_at`` from the validation tables (see the module docstring).

    Chosen on the cells the model decides: those the hand-tuned verdicts left
    uncertain (``hand`` 1). The rates count against every validation cell.
    """
    doubted = hand == 1
    empties, tiles = np.sort(p[doubted & (y == 0)]), np.sort(p[doubted & (y == 1)])
    allowed, missed = int(FALSE_TILE_RATE * len(p)), int(MISSED_TILE_RATE * len(p))
    tile_at = max(LEAST_TILE_AT, float(np.nextafter(empties[-1 - allowed], 1.0))) \
        if len(empties) > allowed else LEAST_TILE_AT
    empty_at = min(MOST_EMPTY_AT, float(np.nextafter(tiles[missed], 0.0))) \
        if len(tiles) > missed else MOST_EMPTY_AT
    return min(tile_at, 1.0), max(empty_at, 0.0)


def vetoes(p: np.ndarray, y: np.ndarray, hand: np.ndarray, tile_at: float,
           empty_at: float) -> tuple[float, float]:
    """``veto_tile`` and ``veto_empty``: how sure of the opposite the model must be to doubt a
    hand-tuned verdict, so that it doubts at most VETO_COST of the right ones (never less
    sure than VETO_LIMITS, nor asking more than ``tile_at`` / ``empty_at``)."""
    right_empty = np.sort(p[(hand == 0) & (y == 0)])
    right_tile = np.sort(p[(hand == 2) & (y == 1)])
    veto_tile = float(right_empty[-1 - int(VETO_COST * len(right_empty))]) if len(right_empty) else 1.0
    veto_empty = float(right_tile[int(VETO_COST * len(right_tile))]) if len(right_tile) else 0.0
    return (min(max(veto_tile, VETO_LIMITS[0]), tile_at),
            max(min(veto_empty, VETO_LIMITS[1]), empty_at))


def evaluate(model: CellModel, x: np.ndarray, y: np.ndarray,
             hand: np.ndarray) -> dict[str, float]:
    """Cell error (a tile said on an empty cell, or an empty said on a tile), false tiles, unsure;
    the learned verdicts and the hand-tuned ones, on the same cells."""
    tile, empty = model.verdicts(model.probability(x), hand == 2, hand == 0)
    figures = {}
    for name, (t, e) in (("", (tile, empty)), ("hand_", (hand == 2, hand == 0))):
        false, missed = int((t & (y == 0)).sum()), int((e & (y == 1)).sum())
        figures.update({f"{name}error": (false + missed) / len(y), f"{name}false": false,
                        f"{name}missed": missed, f"{name}unsure": float((~t & ~e).mean())})
    figures["cells"] = len(y)
    return figures


def train(seed: int, tables: int, frames: int,
          cache: str | None = None) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    """Collect, fit, calibrate: the model's arrays and its figures on the validation tables.

    ``cache``: a file keeping the collected features (read if there, else written), so
    that fitting again does not render again.
    """
    if cache and Path(cache).exists():
        with np.load(cache) as data:
            x, y, groups, hand = data["x"], data["y"], data["groups"], data["hand"]
    else:
        x, y, groups, hand = collect(seed, tables, frames)
        if cache:
            np.savez(cache, x=x, y=y, groups=groups, hand=hand)
    # The hand-tuned classifier leaves a frame it finds unreadable wholly uncertain (collecting,
    # it was let go on to measure every cell): so does the learned decider.
    hand = np.where(x[:, -1] < READABLE, 1, hand)
    x = inputs(x)
    held = groups % VALIDATION == VALIDATION - 1
    print(f"fitting on {int((~held).sum())} cells, validating on {int(held.sum())} "
          f"({int(y.sum())} tiles in all)", file=sys.stderr, flush=True)
    arrays = fit(x[~held], y[~held], seed)
    draft = CellModel({**arrays, "format": 1, "temperature": 1.0, "tile_at": 1.0, "empty_at": 0.0})
    t = temperature(draft.logits(x[held]).astype(np.float64), y[held])
    draft.temperature = t
    tile_at, empty_at = thresholds(draft.probability(x[held]), y[held], hand[held])
    veto_tile, veto_empty = vetoes(draft.probability(x[held]), y[held], hand[held], tile_at, empty_at)
    arrays.update(temperature=np.float64(t), tile_at=np.float64(tile_at), empty_at=np.float64(empty_at),
                  veto_tile=np.float64(veto_tile), veto_empty=np.float64(veto_empty),
                  info_seed=np.int64(seed), info_tables=np.int64(tables), info_frames=np.int64(frames))
    model = CellModel({**arrays, "format": 1})
    figures = evaluate(model, x[held], y[held], hand[held])
    arrays.update({f"info_validation_{k}": np.float64(v) for k, v in figures.items()})
    return arrays, figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=80)
    parser.add_argument("--frames", type=int, default=8, help="frames read per table")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(MODEL_PATH), help="where the weights are written")
    parser.add_argument("--cache", metavar="FILE", help="keep the collected features here")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 10 tables, 6 frames each")
    args = parser.parse_args(argv)
    if args.quick:
        args.tables, args.frames = 10, 6
    cv2.setNumThreads(1)
    started = time.perf_counter()
    arrays, figures = train(args.seed, args.tables, args.frames, args.cache)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    save_model(args.out, **arrays)
    print(f"wrote {args.out} ({Path(args.out).stat().st_size} bytes) in "
          f"{time.perf_counter() - started:.0f} s: validation tables' cells {figures['cells']}, "
          f"error {100 * figures['error']:.3f}% (hand-tuned {100 * figures['hand_error']:.3f}%), "
          f"tile on empty {figures['false']} ({figures['hand_false']}), "
          f"tile read empty {figures['missed']} ({figures['hand_missed']}), "
          f"unsure {100 * figures['unsure']:.2f}% ({100 * figures['hand_unsure']:.2f}%) "
          f"(tile at p >= {float(arrays['tile_at']):.4f}, empty at p <= {float(arrays['empty_at']):.4f}, "
          f"vetoes at {float(arrays['veto_tile']):.4f} / {float(arrays['veto_empty']):.4f}, "
          f"temperature {float(arrays['temperature']):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
