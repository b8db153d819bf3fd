"""From board units to pixels and back, per frame: homographies and the rectified board.

Every frame the recogniser warps the board flat through the pose's homography;
this is that per-frame work, apart from making a calibration.

>>> import numpy as np
>>> board_points = np.array([[0, 0], [11, 0], [11, 8], [0, 8]], dtype=float)
>>> H = homography(board_points, board_points * 50 + 100)
>>> project(H, [[1, 1]]).round(3).tolist()
[[150.0, 150.0]]
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from calibration.calfile import Calibration, CalibrationError
from tabletop.messages import Message


def homography(board: np.ndarray, pixels: np.ndarray) -> np.ndarray:
    """The 3x3 map from board units to pixels through 4 or more point pairs."""
    board, pixels = np.asarray(board, np.float64), np.asarray(pixels, np.float64)
    if len(board) == 4:
        return cv2.getPerspectiveTransform(board.astype(np.float32), pixels.astype(np.float32))
    matrix, _ = cv2.findHomography(board, pixels, 0)
    if matrix is None:
        raise CalibrationError(Message("the points do not fix the board's position"))
    return matrix


def project(matrix: np.ndarray, points: Any) -> np.ndarray:
    """``points`` (N, 2) through the 3x3 ``matrix``."""
    points = np.asarray(points, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(points, matrix).reshape(-1, 2)


def rectify(image: np.ndarray, to_pixels: np.ndarray, calibration: Calibration,
            size: tuple[int, int] | None = None) -> np.ndarray:
    """The board in ``image`` warped flat: the calibration's rectified view of it."""
    size = size or calibration.rectified_size
    if calibration.k1 == 0.0:
        rectified_to_pixels = to_pixels @ np.linalg.inv(calibration.board_to_rectified())
        return cv2.warpPerspective(image, rectified_to_pixels, size,
                                   flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_REPLICATE)
    maps = _rectify_maps(calibration, to_pixels, size)
    return cv2.remap(image, *maps, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


class Rectifier:
    """:func:`rectify` for a stream: the pixel maps are kept while the pose does not change.

    Called with a frame it gives the rectified BGR board; :meth:`planes` gives
    what the classifier reads, for less: the board in grey at full size and in
    colour at 1/``shrink`` size (colour is only ever averaged over whole cells),
    warped straight from the frame.
    """

    def __init__(self, calibration: Calibration) -> None:
        self.calibration = calibration
        self._matrix: np.ndarray | None = None
        self._maps: tuple[np.ndarray, np.ndarray] | None = None
        self._small: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def __call__(self, image: np.ndarray, to_pixels: np.ndarray) -> np.ndarray:
        return cv2.remap(image, *self._full(to_pixels), cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE)

    def planes(self, image: np.ndarray, grey: np.ndarray, to_pixels: np.ndarray,
               shrink: int) -> tuple[np.ndarray, np.ndarray]:
        """The rectified board in grey (from ``grey``, the frame's) and in colour, shrunk."""
        full = self._full(to_pixels)
        width, height = self.calibration.rectified_size
        # Colour is warped at half size and then averaged down: a quarter of the work of
        # warping it whole, and still an average over each block, as shrinking the whole
        # warp would give (one sample a block would alias the print).
        half = max(1, shrink // 2)
        if half not in self._small:
            self._small[half] = _rectify_maps(self.calibration, to_pixels,
                                              (width // half, height // half), half)
        colour = cv2.remap(image, *self._small[half], cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_REPLICATE)
        if half != shrink:
            colour = cv2.resize(colour, (width // shrink, height // shrink),
                                interpolation=cv2.INTER_AREA)
        return (cv2.remap(grey, *full, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE),
                colour)

    def _full(self, to_pixels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self._maps is None or not np.array_equal(to_pixels, self._matrix):
            self._matrix, self._small = to_pixels.copy(), {}
            self._maps = _rectify_maps(self.calibration, to_pixels, self.calibration.rectified_size)
        return self._maps


def _rectify_maps(calibration: Calibration, to_pixels: np.ndarray,
                  size: tuple[int, int], shrink: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Fixed-point remap maps: each rectified pixel's source pixel, the lens included.

    With ``shrink``, pixel (x, y) of the map stands for the centre of the block
    of ``shrink`` x ``shrink`` full-size rectified pixels it covers.
    """
    width, height = size
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    if shrink != 1:
        xs, ys = xs * shrink + (shrink - 1) / 2, ys * shrink + (shrink - 1) / 2
    ideal = calibration.ideal_matrix(to_pixels)
    rectified_to_pixels = ideal @ np.linalg.inv(calibration.board_to_rectified())
    points = cv2.perspectiveTransform(np.stack([xs, ys], axis=-1).reshape(-1, 1, 2),
                                      rectified_to_pixels).reshape(height, width, 2)
    xs, ys = points[..., 0], points[..., 1]
    if calibration.k1 != 0.0:
        # calfile.distort, in place in float32: a third of the cost of building the map.
        cx, cy = (v / 2 for v in calibration.image_size)
        unit = float(calibration.image_size[0])
        xs -= cx
        ys -= cy
        gain = cv2.magnitude(xs, ys)
        cv2.multiply(gain, gain, dst=gain, scale=calibration.k1 / unit ** 2)
        gain += 1
        xs *= gain
        ys *= gain
        xs += cx
        ys += cy
    return cv2.convertMaps(xs, ys, cv2.CV_16SC2)


#: Fine alignment (:class:`GridAligner`): both boards smoothed this much (rectified pixels)
#: before their edges are compared, so that a grid a few pixels off still overlaps its print;
#: shifts tried every ALIGN_STEP pixels up to ALIGN_REACH each way; each cell sampled every
#: ALIGN_STRIDE pixels over a disc of ALIGN_RADIUS board units.
ALIGN_SIGMA, ALIGN_STEP, ALIGN_REACH, ALIGN_STRIDE, ALIGN_RADIUS = 2.0, 2, 4, 3, 0.35
#: A cell shows bare board when its edges, at their best shift, correlate this well with
#: the empty cell's (a tile's own print and outline, or a hand, do not).
ALIGN_MATCH = 0.8
#: Bare cells a correction is fitted from, at least, and how far (pixels) one may lie from
#: the fit and still count: a grid that fits fewer cannot be told right.
ALIGN_CELLS, ALIGN_SPREAD = 8, 1.0


class GridAligner:
    """How far the grid a pose gives lies off the board's cells, from the board itself.

    Every bare cell's printed edges, compared with the empty cell's at
    shifts of a few pixels, say where that cell really lies in the
    rectified frame; the turn, stretch and shift (an affine map) that best
    carries the grid to them is the correction. Tiles, hands and glare
    match no shift well and are left out; a frame whose bare cells do not
    agree on one correction gives None. With too few bare cells to judge
    by (a board crowded with tiles), the grid is left as the pose has it.
    """

    def __init__(self, calibration: Calibration) -> None:
        self.calibration = calibration
        grey = calibration.reference
        grey = cv2.cvtColor(grey, cv2.COLOR_BGR2GRAY) if grey.ndim == 3 else grey
        height, width = grey.shape[:2]
        self._width = width
        scale = calibration.scale
        self._centres = (calibration.layout.centres - np.asarray(calibration.origin)) * scale
        radius = ALIGN_RADIUS * scale
        span = np.arange(-int(radius), int(radius) + 1, ALIGN_STRIDE)
        dx, dy = np.meshgrid(span, span)
        inside = dx ** 2 + dy ** 2 <= radius ** 2
        reach = ALIGN_REACH
        points = np.rint(self._centres[:, None, :] +
                         np.stack([dx[inside], dy[inside]], axis=1)[None]).astype(np.int64)
        xs = np.clip(points[..., 0], reach, width - 1 - reach)
        ys = np.clip(points[..., 1], reach, height - 1 - reach)
        self._samples = ys * width + xs
        steps = np.arange(-reach, reach + 1, ALIGN_STEP)
        self._shifts = np.array([(x, y) for y in steps for x in steps], np.float64)
        self._offsets = (self._shifts[:, 1] * width + self._shifts[:, 0]).astype(np.int64)
        self._side = len(steps)
        self._reference = _unit(_edges(grey, self._samples))

    def correction(self, plane: np.ndarray) -> np.ndarray | None:
        """The 3x3 map of rectified pixels x -> where the frame's ``plane`` shows the board's x.

        None when the frame's bare cells do not agree on one; no change when too few match.
        """
        gx, gy = _smoothed_gradients(plane)
        picks = self._samples[None] + self._offsets[:, None, None]      # (shifts, cells, points)
        seen = _unit(np.concatenate([gx.ravel()[picks], gy.ravel()[picks]], axis=2))
        scores = np.einsum("scp,cp->sc", seen, self._reference)
        best = scores.argmax(axis=0)
        cells = np.arange(scores.shape[1])
        bare = scores[best, cells] >= ALIGN_MATCH
        if bare.sum() < ALIGN_CELLS:
            return np.eye(3)
        shift = self._shifts[best] + self._refine(scores, best)
        return _affine_fit(self._centres[bare], self._centres[bare] + shift[bare])

    def _refine(self, scores: np.ndarray, best: np.ndarray) -> np.ndarray:
        """Each cell's shift between the tried ones: a parabola through its best and neighbours."""
        side = self._side
        grid = scores.reshape(side, side, -1)
        row, col = np.divmod(best, side)
        cells = np.arange(grid.shape[2])
        out = np.zeros((len(best), 2))
        for axis, (index, other) in enumerate(((col, row), (row, col))):
            lo, hi = np.maximum(index - 1, 0), np.minimum(index + 1, side - 1)
            pick = (lambda i: grid[other, i, cells]) if axis == 0 else (lambda i: grid[i, other, cells])
            left, mid, right = pick(lo), pick(index), pick(hi)
            bend = left - 2 * mid + right
            step = np.where((bend < 0) & (lo < index) & (hi > index), 0.5 * (left - right) / np.where(
                bend < 0, bend, -1.0), 0.0)
            out[:, axis] = np.clip(step, -0.5, 0.5) * ALIGN_STEP
        return out


def _smoothed_gradients(grey: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    soft = cv2.GaussianBlur(grey, (0, 0), ALIGN_SIGMA)
    return (cv2.Sobel(soft, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(soft, cv2.CV_32F, 0, 1, ksize=3))


def _edges(grey: np.ndarray, samples: np.ndarray) -> np.ndarray:
    gx, gy = _smoothed_gradients(grey)
    return np.concatenate([gx.ravel()[samples], gy.ravel()[samples]], axis=-1)


def _unit(values: np.ndarray) -> np.ndarray:
    """Each cell's edge samples, mean taken out, to unit length (a floor keeps a blank cell's
    noise from matching anything)."""
    values = values - values.mean(axis=-1, keepdims=True)
    norms = np.sqrt(np.maximum((values ** 2).sum(axis=-1, keepdims=True), 4.0 * values.shape[-1]))
    return values / norms


def _affine_fit(points: np.ndarray, moved: np.ndarray) -> np.ndarray | None:
    """The affine 3x3 map carrying ``points`` to ``moved``, refitted without the cells it
    explains worst; None when too few agree with it."""
    keep = np.ones(len(points), bool)
    for _ in range(3):
        if keep.sum() < ALIGN_CELLS:
            return None
        basis = np.column_stack([points[keep], np.ones(int(keep.sum()))])
        solution, *_ = np.linalg.lstsq(basis, moved[keep], rcond=None)
        residual = np.linalg.norm(np.column_stack([points, np.ones(len(points))]) @ solution - moved,
                                  axis=1)
        keep = residual <= ALIGN_SPREAD
    if keep.sum() < ALIGN_CELLS:
        return None
    matrix = np.eye(3)
    matrix[:2, :] = solution.T
    return matrix
