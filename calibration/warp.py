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
