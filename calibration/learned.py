"""A small learned cell classifier: tile, empty or unsure, from each cell against the empty board.

The hand-tuned classifier (:mod:`calibration.classify`) decides each cell by
thresholds set on the tuning world. This one decides it with a small
multi-layer perceptron (numpy at run time: two matrix products a frame)
trained on renders of the *training* world (``calibration/synthetic/worlds.py``,
a stream of its own, never the held-out one) by ``bench/train_cells.py``.

What it sees of a cell is what generalizes across board prints: the cell
*compared with the same cell of the empty board* photographed at calibration,
never the cell alone. The rectified grey board is shrunk to 8 pixels a cell
and a disc of each cell taken, with the reference's disc (blurred as the
hand-tuned classifier chose for the frame): how large and how spread their
difference is under the light falling on the cell, and the difference of
their contrast-normalised patterns (summaries, not pixels: where a label
lies belongs to one print); a few statistics of the full-size difference;
the frame's typical cell (noise, blur and JPEG move every cell alike); and
the hand-tuned classifier's own measures (edge correlation lost against the
frame's typical bare cell, edge strength, colour shift, brightness, glare),
which are comparisons with the empty board too.

Its output is a probability that the cell holds a tile, calibrated on
training-world tables the network was not fitted on (temperature scaling).
It decides the cells the hand-tuned thresholds leave uncertain (and frames
they find unreadable): at or above ``tile_at`` a tile, at or below
``empty_at`` empty, anything between unsure. ``tile_at`` is set so that no
empty cell of those tables reached it: a tile is said only when the model
is sure. A hand-tuned verdict stands unless the model is sure of the
opposite (``veto_tile``, ``veto_empty``): then the cell is unsure. So a cell
is unsure only where the model cannot tell, or where the two disagree.

The weights are a small ``.npz`` shipped in the package (``calibration/models``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import cv2
import numpy as np

from calibration.calfile import CalibrationError
from tabletop.messages import Message

#: The shipped weights.
MODEL_PATH = Path(__file__).resolve().parent / "models" / "cells.npz"
#: The patches are read from the rectified grey board shrunk this many times (8 px a cell).
PATCH_SHRINK = 4
#: Radius (board units) of each cell's patch disc.
PATCH_RADIUS = 0.40
#: Grey levels a difference is measured in (the network's inputs stay near unit size).
LEVELS = 32.0
#: The least contrast (grey levels, std) a pattern is normalised by: a blank cell's noise
#: must not be blown up into a pattern.
PATTERN_FLOOR = 4.0
#: The measures :meth:`LearnedCells.raw` puts after the two patches.
SCALARS = 18
#: The model file's format: a file of another is refused (a stale file must not be read).
FORMAT = 1


@dataclass(frozen=True)
class Measures:
    """What the hand-tuned classifier measured of one frame, per cell (see classify.py)."""

    grey: np.ndarray            # the rectified grey frame
    chosen: int                 # the reference blur matching the frame
    structure: np.ndarray       # edge correlation with the empty cell
    loss: np.ndarray            # correlation lost against the frame's typical bare cell
    energy: np.ndarray          # edge strength over the empty cell's, light removed
    chroma: np.ndarray          # colour shift from the empty cell (Lab units), cast removed
    brightness: np.ndarray      # brightness change, light removed
    light: np.ndarray           # the light falling on each cell (gain over the empty board)
    burnt: np.ndarray           # share of the cell's samples burnt out by glare
    blurrier: np.ndarray        # the cell's region is blurrier than the frame's choice
    readable: float             # how well the frame's best-matching cells match the empty board


class CellModel:
    """The perceptron's weights, how to normalise its inputs, and its calibrated thresholds."""

    def __init__(self, arrays: Mapping[str, np.ndarray]) -> None:
        if int(arrays.get("format", -1)) != FORMAT:
            raise ValueError(f"cell model format {arrays.get('format')} is not {FORMAT}")
        self.mean = np.asarray(arrays["mean"], np.float32)
        self.scale = np.asarray(arrays["scale"], np.float32)
        self.layers = [(np.asarray(arrays[f"w{k}"], np.float32), np.asarray(arrays[f"b{k}"], np.float32))
                       for k in range(int(arrays["depth"]))]
        self.temperature = float(arrays["temperature"])
        self.tile_at = float(arrays["tile_at"])
        self.empty_at = float(arrays["empty_at"])
        # A hand-tuned verdict the model contradicts this surely is doubted instead.
        self.veto_tile = float(arrays.get("veto_tile", self.tile_at))
        self.veto_empty = float(arrays.get("veto_empty", self.empty_at))
        self.info = {k: arrays[k] for k in arrays if k.startswith("info_")}

    @classmethod
    def load(cls, path: str | Path | None = None) -> CellModel:
        """The model in ``path`` (the shipped one by default); a file that cannot be read is
        refused with what to do."""
        where = Path(path or MODEL_PATH)
        try:
            with np.load(where, allow_pickle=False) as data:
                return cls({k: data[k] for k in data.files})
        except (OSError, KeyError, ValueError) as error:
            raise CalibrationError(Message(
                "the learned cell classifier's weights cannot be read from {path} ({error}): "
                "reinstall tabletop, or choose the hand-tuned classifier (TABLETOP_CLASSIFIER=hand)",
                path=str(where), error=str(error))) from error

    def logits(self, features: np.ndarray) -> np.ndarray:
        """The network's raw output per row of ``features`` (before the temperature)."""
        x = (features.astype(np.float32) - self.mean) / self.scale
        for k, (w, b) in enumerate(self.layers):
            x = x @ w + b
            if k + 1 < len(self.layers):
                np.maximum(x, 0.0, out=x)
        return x[:, 0]

    def verdicts(self, p: np.ndarray, tile_like: np.ndarray,
                 empty_like: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(tile, empty) from the probabilities and the hand-tuned verdicts (see the module docstring)."""
        doubted = ~tile_like & ~empty_like
        tile = tile_like & (p > self.veto_empty) | doubted & (p >= self.tile_at)
        empty = empty_like & (p < self.veto_tile) | doubted & (p <= self.empty_at)
        return tile, empty

    def probability(self, features: np.ndarray) -> np.ndarray:
        """The calibrated probability that each row's cell holds a tile."""
        z = np.clip(self.logits(features) / self.temperature, -40.0, 40.0)
        return 1.0 / (1.0 + np.exp(-z))


def save_model(path: str | Path, **arrays: Any) -> None:
    """Write a model's arrays (see :class:`CellModel`) as a compressed ``.npz``."""
    np.savez_compressed(path, format=np.int64(FORMAT), **arrays)


class LearnedCells:
    """Decides one calibrated table's cells with a :class:`CellModel` (see the module docstring)."""

    def __init__(self, samples: np.ndarray, references: list[np.ndarray], scale: float,
                 model: CellModel | None) -> None:
        """``samples``: (cells, points) flat indices of the hand-tuned classifier's disc of
        each cell in the full-size board; ``references``: the empty board in grey, blurred
        as the hand-tuned classifier's references are; ``scale``: its pixels a board unit;
        ``model``: None only to collect features."""
        height, width = references[0].shape
        self.model = model
        self._size = (width // PATCH_SHRINK, height // PATCH_SHRINK)
        self._samples = samples
        self._patch = _patch_samples(samples, width, self._size, scale)
        self._ref_patch = [_shrink(ref, self._size).ravel()[self._patch] for ref in references]
        self._ref_full = [ref.astype(np.float32).ravel()[samples] for ref in references]
        #: The last frame's raw values (:meth:`raw`: the training script collects them).
        self.last_features: np.ndarray | None = None
        #: The last frame's probabilities that each cell holds a tile (None without a model).
        self.last_probability: np.ndarray | None = None
        #: The hand-tuned verdicts (tile, empty) on the last frame, to compare with.
        self.last_hand: tuple[np.ndarray, np.ndarray] | None = None

    def raw(self, m: Measures) -> np.ndarray:
        """(cells, values) float32: each cell's patch against the empty cell's, and its measures.

        :func:`summarize` turns these into the network's inputs; the training script
        keeps them raw, so that another summary can be tried without rendering again.
        """
        light = np.maximum(m.light, 0.05)[:, None].astype(np.float32)
        patch = _shrink(m.grey, self._size).ravel()[self._patch] / light
        ref = self._ref_patch[m.chosen]
        difference = (patch - ref) / LEVELS
        pattern = _pattern(patch) - _pattern(ref)
        full = m.grey.ravel()[self._samples].astype(np.float32) / light
        ref_full = self._ref_full[m.chosen]
        gap = np.abs(full - ref_full)
        mad = gap.mean(axis=1) / LEVELS
        top = np.percentile(gap, 90, axis=1) / LEVELS
        spread = np.log((full.std(axis=1) + 2.0) / (ref_full.std(axis=1) + 2.0))
        correlation = _correlation(full, ref_full)
        # The frame's own typical cell: noise, blur and JPEG move every cell alike.
        frame_mad = np.full_like(mad, np.median(mad))
        scalars = np.stack([
            m.loss, m.structure, np.log(np.maximum(m.energy, 1e-3)), m.chroma / 10.0,
            m.brightness * 5.0, m.burnt, m.blurrier.astype(np.float32), np.log(light[:, 0]),
            np.full_like(mad, m.chosen / 3.0), mad, top, spread, correlation, mad - frame_mad,
            frame_mad, np.full_like(mad, float(np.median(m.loss))),
            np.abs(ref - ref.mean(axis=1, keepdims=True)).mean(axis=1) / LEVELS,
            np.full_like(mad, m.readable)], axis=1)
        return np.concatenate([difference, pattern, scalars], axis=1).astype(np.float32)

    def features(self, m: Measures) -> np.ndarray:
        """(cells, features) float32: the network's inputs (see the module docstring)."""
        return summarize(self.raw(m), self._patch.shape[1])

    def decide(self, m: Measures, tile_like: np.ndarray,
               empty_like: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(tile, empty) per cell, from the hand-tuned verdicts and the model's probability.

        The model decides every cell the hand-tuned thresholds left uncertain (or a
        whole frame they found unreadable); a verdict of theirs stands unless the
        model is sure of the opposite, and then the cell is uncertain. With no
        model (collecting features) the hand-tuned verdicts stand.
        """
        from calibration.classify import READABLE
        raw = self.raw(m)
        self.last_features, self.last_hand = raw, (tile_like, empty_like)
        if self.model is None:
            return tile_like, empty_like
        model = self.model
        p = model.probability(summarize(raw, self._patch.shape[1]))
        self.last_probability = p
        if m.readable < READABLE:
            # The hand-tuned classifier would have left this whole frame uncertain.
            tile_like = empty_like = np.zeros(len(p), bool)
        return model.verdicts(p, tile_like, empty_like)


def summarize(raw: np.ndarray, points: int) -> np.ndarray:
    """The network's inputs from :meth:`LearnedCells.raw`'s rows (``points`` a patch).

    Summaries of the patches' difference, not the patches themselves: a pixel's
    place in the cell belongs to one board's print (where its label lies), the
    size and spread of the difference to every board's.
    """
    difference, pattern = raw[:, :points], raw[:, points:2 * points]
    size = np.abs(difference)
    summaries = np.stack([
        difference.mean(axis=1), size.mean(axis=1), size.max(axis=1), difference.std(axis=1),
        np.percentile(size, 75, axis=1), (pattern * pattern).mean(axis=1),
        np.abs(pattern).max(axis=1), np.percentile(np.abs(pattern), 75, axis=1)], axis=1)
    return np.concatenate([summaries, raw[:, 2 * points:]], axis=1).astype(np.float32)


def learned_cells(classifier: Any, model: CellModel | None) -> LearnedCells:
    """A :class:`LearnedCells` for a :class:`~calibration.classify.TileClassifier`'s table.

    ``model`` None collects features only (the hand-tuned verdicts stand).
    """
    from calibration.classify import REFERENCE_BLURS, _soften, _split
    reference = classifier.calibration.reference
    references = [_split(_soften(reference, sigma))[0] for sigma in REFERENCE_BLURS]
    return LearnedCells(classifier._cells, references, classifier.calibration.scale, model)


def _shrink(grey: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    return cv2.resize(grey, size, interpolation=cv2.INTER_AREA).astype(np.float32)


def _patch_samples(samples: np.ndarray, width: int, size: tuple[int, int],
                   scale: float) -> np.ndarray:
    """(cells, points) indices of a disc round each cell's centre in the shrunk board."""
    ys, xs = np.divmod(samples, width)
    # A shrunk pixel i covers full-size pixels 4i..4i+3: its centre is 4i + 1.5.
    centres = (np.stack([xs.mean(axis=1), ys.mean(axis=1)], axis=1) - 1.5) / PATCH_SHRINK
    radius = PATCH_RADIUS * scale / PATCH_SHRINK
    span = np.arange(-int(np.ceil(radius)), int(np.ceil(radius)) + 1)
    dx, dy = np.meshgrid(span, span)
    inside = dx ** 2 + dy ** 2 <= radius ** 2
    points = np.rint(centres[:, None, :]) + np.stack([dx[inside], dy[inside]], axis=1)[None]
    px = np.clip(points[..., 0], 0, size[0] - 1).astype(np.int64)
    py = np.clip(points[..., 1], 0, size[1] - 1).astype(np.int64)
    return py * size[0] + px


def _pattern(values: np.ndarray) -> np.ndarray:
    """Each row less its mean, over its contrast (floored): the print's shape, not its light."""
    centred = values - values.mean(axis=1, keepdims=True)
    return centred / np.maximum(centred.std(axis=1, keepdims=True), PATTERN_FLOOR)


def _correlation(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a - a.mean(axis=1, keepdims=True)
    b = b - b.mean(axis=1, keepdims=True)
    norm = np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1))
    return (a * b).sum(axis=1) / np.maximum(norm, 25.0 * a.shape[1])
