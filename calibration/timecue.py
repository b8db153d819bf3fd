"""The time cue: which cells a hand changed, from the board before it came and after it left.

The classifier judges a cell against the calibration's empty board, where a
low-contrast tile may look much like it; this compares the same cell at two
moments minutes apart at most, under the same light and pose, which is the
strongest cue a placement gives (:class:`calibration.recognize.Watcher` uses it).
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.calfile import Calibration

#: The time cue compares cells averaged LOOK_SHRINK times each way (8 pixels a cell: sensor
#: noise averaged away, a tile's outline and label kept) over a disc of LOOK_RADIUS units.
LOOK_SHRINK, LOOK_RADIUS = 4, 0.42
#: A cell changed clearly when its change is CHANGED times the board's typical cell's
#: (noise, a pose jittering by a fraction of a pixel: every cell alike). On the renderer's
#: boards a placed tile, low-contrast ones included, scores 3.8 or more; a cell no hand
#: changed 2.0 at most; a cup or a shadow changes several cells together.
CHANGED = 3.0
#: The typical change is not taken below this (grey levels): a noiseless frame must not
#: make a speck of JPEG a change.
CHANGE_FLOOR = 0.5


class CellLooks:
    """What each cell looks like in a rectified grey board, to tell which cells a hand changed.

    The strongest cue a placement gives is the cell that changed between the
    still board before the hand came and the board after it left: the
    classifier judges a cell against the empty board of the calibration (a
    low-contrast tile may look much like it), this compares the same cell at
    two moments minutes apart at most, under the same light and pose.
    """

    def __init__(self, calibration: Calibration) -> None:
        width, height = calibration.rectified_size
        self._size = (width // LOOK_SHRINK, height // LOOK_SHRINK)
        scale = calibration.scale / LOOK_SHRINK
        radius = LOOK_RADIUS * scale
        span = np.arange(-int(radius), int(radius) + 1)
        dx, dy = np.meshgrid(span, span)
        inside = dx ** 2 + dy ** 2 <= radius ** 2
        centres = (calibration.layout.centres - np.asarray(calibration.origin)) * scale
        # (a shrunk pixel k covers k..k+1: its centre is at k + 0.5)
        points = np.rint(centres[:, None, :] - 0.5 +
                         np.stack([dx[inside], dy[inside]], axis=1)[None]).astype(np.int64)
        xs = np.clip(points[..., 0], 0, self._size[0] - 1)
        ys = np.clip(points[..., 1], 0, self._size[1] - 1)
        self._samples = ys * self._size[0] + xs

    def __call__(self, plane: np.ndarray) -> np.ndarray:
        """(cells, points) grey levels of each cell of a rectified grey board."""
        small = cv2.resize(plane, self._size, interpolation=cv2.INTER_AREA)
        return small.ravel()[self._samples].astype(np.float32)


def changed_cells(before: np.ndarray, after: np.ndarray) -> frozenset[int]:
    """The cells whose look (:class:`CellLooks`) changed clearly from ``before`` to ``after``.

    A cell's change is its pattern's (the cell's mean taken out) and its
    brightness's, the board's overall change of light taken out; it counts
    against the typical cell's, so that noise, JPEG and a pose jittering by a
    fraction of a pixel (every cell alike) are no change, and a tile is.
    """
    means_b, means_a = before.mean(axis=1), after.mean(axis=1)
    gain = float(np.median(means_a / np.maximum(means_b, 1.0)))
    pattern = (after - means_a[:, None]) - gain * (before - means_b[:, None])
    level = means_a - gain * means_b
    change = np.sqrt((pattern ** 2).mean(axis=1) + level ** 2)
    typical = max(float(np.median(change)), CHANGE_FLOOR)
    return frozenset(int(c) for c in np.flatnonzero(change > CHANGED * typical))
