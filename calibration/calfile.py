"""The calibration file: everything needed to read one table's board, as versioned JSON.

A calibration ties the board's cell grid to the four markers, not to the
camera's pixels: ``markers`` holds each marker's corners in board units
(1 unit = the distance between horizontally adjacent cell centres; see
:mod:`calibration.layout`). Each frame's marker detections give the board's
pose, so the grid stays right when the board is bumped.

It also keeps the empty board as the camera saw it, rectified (warped flat,
``scale`` pixels a board unit, the grid's bounds plus a margin): the tile
classifier compares every cell, and the ring of board around the grid, with it.

The lens: cheap camera lenses bend straight lines (barrel distortion), so
the grid is not quite a homography of the board. ``k1`` is a radial
distortion about the image centre (see :func:`distort`), estimated from the
calibration image. Pose matrices stay what they always were, the homography
through the four corner cells' pixels: with ``k1`` they fix the lens-aware
map exactly (:meth:`Calibration.to_image`), and without it they are the
best plain homography. Format 1 files had no lens: they read as ``k1 = 0``.

A file that does not fit is refused with the reason: another rule set or
board parity, another camera resolution, a newer format, or a damaged file.
"""

from __future__ import annotations

import base64
import json
import math
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import cv2
import numpy as np

from calibration.layout import Layout, layout_for
from tabletop.errors import TabletopError
from tabletop.engine.ruleset import load_rules

FORMAT = "tabletop-calibration"
VERSION = 2
#: What a file may hold. A calibration is about 1 MB (its reference image).
MAX_FILE_BYTES = 64 << 20
MIN_IMAGE, MAX_IMAGE = 16, 16384             # camera frame sides, pixels
MIN_REFERENCE, MAX_REFERENCE = 16, 8192      # rectified board sides, pixels
SCALE_LIMITS = (8.0, 128.0)                  # rectified pixels a board unit (calibrate: 32)
K1_LIMITS = (-0.8, 0.4)                      # calibrate's K1_RANGE: no calibration has another
#: A point is undistorted only within this share of the lens's fold radius (fold_radius):
#: nearer the fold a pixel's error grows without bound in the ideal picture.
FOLD_ROOM = 0.95
BOARD_LIMIT = 1000.0                         # board units: no board reaches further
MAX_MARKERS = 64
#: The distortion's radius is measured in image widths (a focal length of about one
#: width, as these cameras have): ``k1`` = OpenCV's k1 times (width / focal)^2.


class CalibrationError(TabletopError):
    """A calibration that cannot be made or used; the message says why and what to do."""


@dataclass
class Calibration:
    """One table's calibration. Build it with :func:`calibration.calibrate.calibrate`."""

    rules: str
    options: dict[str, Any]
    image_size: tuple[int, int]          # (width, height) of the camera's frames
    corners_px: np.ndarray               # (4, 2) corner-cell centres tapped in the calibration image
    markers: dict[int, np.ndarray]       # marker id -> (4, 2) corners in board units
    scale: float                         # rectified pixels per board unit
    origin: tuple[float, float]          # board units at the rectified image's top-left
    reference: np.ndarray                # rectified empty board, BGR uint8
    created: str = ""
    k1: float = 0.0                      # radial lens distortion (see distort())
    layout: Layout = field(init=False, repr=False)

    def __post_init__(self) -> None:
        rules = load_rules(self.rules)
        resolved = rules.resolve_options(self.options)
        self.layout = layout_for(rules.geometry_for(resolved))

    @property
    def rectified_size(self) -> tuple[int, int]:
        """(width, height) of the rectified board image."""
        height, width = self.reference.shape[:2]
        return width, height

    def board_to_rectified(self) -> np.ndarray:
        """The 3x3 transform from board units to rectified pixels."""
        s, (ox, oy) = self.scale, self.origin
        return np.array([[s, 0, -ox * s], [0, s, -oy * s], [0, 0, 1]], dtype=np.float64)

    def distort(self, pixels: np.ndarray) -> np.ndarray:
        """Ideal (pinhole) pixels ``(..., 2)`` to where this camera's lens shows them."""
        return distort(pixels, self.k1, self.image_size)

    def undistort(self, pixels: np.ndarray) -> np.ndarray:
        """Seen pixels ``(..., 2)`` to ideal ones: the inverse of :meth:`distort`."""
        return undistort(pixels, self.k1, self.image_size)

    def within_lens(self, pixels: np.ndarray) -> bool:
        """Whether every seen pixel ``(..., 2)`` lies within FOLD_ROOM of the lens's fold."""
        return bool((seen_radius(pixels, self.image_size) <= FOLD_ROOM * fold_radius(self.k1)).all())

    def ideal_matrix(self, to_pixels: np.ndarray) -> np.ndarray:
        """The board-to-ideal-pixels homography a pose matrix stands for.

        A pose matrix is the homography through the corner cells' seen pixels;
        undistorting those four fixes the lens-free homography exactly.
        """
        if self.k1 == 0.0:
            return np.asarray(to_pixels, np.float64)
        corners = self.layout.corner_points()
        seen = _apply(to_pixels, corners)
        return _four_point(corners, self.undistort(seen))

    def image_matrix(self, ideal: np.ndarray) -> np.ndarray:
        """The pose matrix (homography through the corner cells' seen pixels) of an ideal one."""
        if self.k1 == 0.0:
            return np.asarray(ideal, np.float64)
        corners = self.layout.corner_points()
        return _four_point(corners, self.distort(_apply(ideal, corners)))

    def to_image(self, to_pixels: np.ndarray, points: Any) -> np.ndarray:
        """Board-unit ``points`` (N, 2) to seen pixels under the pose matrix ``to_pixels``."""
        points = np.asarray(points, np.float64).reshape(-1, 2)
        return self.distort(_apply(self.ideal_matrix(to_pixels), points))

    def check_fits(self, rules: str | None = None, image_size: tuple[int, int] | None = None,
                   options: Mapping[str, Any] | None = None) -> None:
        """CalibrationError unless this calibration fits that rule set, options and camera."""
        if rules is not None and load_rules(rules).name != load_rules(self.rules).name:
            raise CalibrationError(
                f"this calibration is for {self.rules}, not {rules}: calibrate the table again "
                f"with --rules {rules}")
        if options:
            mine = load_rules(self.rules).resolve_options(self.options)
            for name, value in load_rules(self.rules).resolve_options(options).items():
                if name in ("hex_offset", "quadrants_connect") and mine[name] != value:
                    raise CalibrationError(
                        f"this calibration has {name}={mine[name]}, the game {name}={value}: "
                        f"calibrate again with --option {name}={value}")
        if image_size is not None and tuple(image_size) != tuple(self.image_size):
            raise CalibrationError(
                f"this calibration was made with {self.image_size[0]}x{self.image_size[1]} frames, "
                f"the camera gives {image_size[0]}x{image_size[1]}: set the camera to that "
                f"resolution or calibrate again")

    def to_json(self) -> dict[str, Any]:
        ok, png = cv2.imencode(".png", self.reference)
        if not ok:
            raise CalibrationError("the reference image could not be encoded")
        return {
            "format": FORMAT, "version": VERSION, "created": self.created,
            "rules": self.rules, "options": self.options,
            "image_size": list(self.image_size),
            "corners_px": self.corners_px.round(3).tolist(),
            "corner_labels": [self.layout.geometry.labels[c] for c in self.layout.geometry.corners()],
            "markers": {str(k): v.round(5).tolist() for k, v in sorted(self.markers.items())},
            "scale": self.scale, "origin": list(self.origin),
            "lens": {"k1": float(self.k1), "centre": "image centre",
                     "radius_unit": "image width"},
            "reference_png": base64.b64encode(png.tobytes()).decode("ascii"),
        }

    def save(self, path: str | Path) -> Path:
        """Write the file (via a temporary file, so a crash never leaves half of one)."""
        path = Path(path)
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_text(json.dumps(self.to_json(), indent=1), encoding="utf-8")
        temporary.replace(path)
        return path


def load_calibration(path: str | Path) -> Calibration:
    """Read a calibration file; CalibrationError saying what is wrong with a bad one.

    Every field is checked here, so that a file that loads also works on the first
    frame: types, finite numbers in range, a reference image that decodes and covers
    the board at the file's scale.
    """
    path = Path(path)
    data = _read_json(path)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CalibrationError(f"{path} is not a calibration file (made by `tabletop calibrate`)")
    version = data.get("version")
    if type(version) is not int or version > VERSION:
        raise CalibrationError(f"{path} is calibration format {_shown(version)}; this tabletop "
                               f"reads up to {VERSION}: update tabletop or calibrate again")
    try:
        return _from_json(data)
    except _Damaged as error:
        raise CalibrationError(f"{path} is damaged ({error}): calibrate again") from None
    except TabletopError as error:
        raise CalibrationError(f"{path}: {error}") from None
    except OSError as error:   # its rules name a file that cannot be read
        raise CalibrationError(f"{path}: its rule set {_shown(data.get('rules'))} cannot be "
                               f"read ({error.strerror}): calibrate again") from None


def _read_json(path: Path) -> Any:
    """The JSON of the regular file at ``path`` (a FIFO or a device is refused, not waited on)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise CalibrationError(f"cannot read {path}: not a regular file")
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise CalibrationError(f"cannot read {path}: {error.strerror}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise CalibrationError(f"{path} is too large to be a calibration file")
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):   # ValueError: JSON's, huge numbers
        raise CalibrationError(f"{path} is not a calibration file (not JSON)") from None


class _Damaged(ValueError):
    """A field of a calibration file that no calibration holds; the message names it."""


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


def _number(value: Any, name: str, low: float, high: float) -> float:
    """``value`` as a finite float from ``low`` to ``high``; _Damaged naming ``name`` if not."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or not low <= value <= high:
        raise _Damaged(f"{name} = {_shown(value)}: a number from {low:g} to {high:g} is expected")
    return float(value)


def _points(value: Any, name: str, count: int, limit: float) -> np.ndarray:
    """``count`` points ``[x, y]``, finite and within ``limit``, as a ``(count, 2)`` array."""
    if not isinstance(value, list) or len(value) != count or \
            not all(isinstance(point, list) and len(point) == 2 for point in value):
        raise _Damaged(f"{name}: {count} points [x, y] are expected")
    points = np.array([[_number(v, name, -limit, limit) for v in point] for point in value])
    if count == 4 and abs(_area(points)) < 1e-6 * limit:
        raise _Damaged(f"{name}: the four corners enclose no area")
    return points


def _area(quad: np.ndarray) -> float:
    x, y = quad[:, 0], quad[:, 1]
    return float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2


def _field(data: Mapping[str, Any], name: str, kind: type) -> Any:
    value = data.get(name)
    if not isinstance(value, kind):
        raise _Damaged(f"{name} is missing or not {_KINDS[kind]}")
    return value


_KINDS = {str: "text", dict: "an object", list: "a list"}


def _markers(value: Any) -> dict[int, np.ndarray]:
    if not isinstance(value, dict) or not 2 <= len(value) <= MAX_MARKERS:
        raise _Damaged(f"markers: an object of 2 to {MAX_MARKERS} markers is expected")
    markers = {}
    for name, corners in value.items():
        if not (name.isdigit() and len(name) <= 4):
            raise _Damaged(f"markers: {_shown(name)} is not a marker id")
        markers[int(name)] = _points(corners, f"markers.{name}", 4, BOARD_LIMIT)
    return markers


def _reference(text: Any) -> np.ndarray:
    """The reference image: a colour PNG of sane size (its header read before decoding)."""
    if not isinstance(text, str) or not text:
        raise _Damaged("reference_png is missing or empty")
    try:
        png = base64.b64decode(text, validate=True)
    except ValueError:
        raise _Damaged("reference_png is not base64") from None
    if len(png) < 24 or png[:8] != b"\x89PNG\r\n\x1a\n":
        raise _Damaged("reference_png is not a PNG image")
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    if not (MIN_REFERENCE <= width <= MAX_REFERENCE and MIN_REFERENCE <= height <= MAX_REFERENCE):
        raise _Damaged(f"reference_png is {width}x{height} pixels: {MIN_REFERENCE} to "
                       f"{MAX_REFERENCE} a side is expected")
    reference = cv2.imdecode(np.frombuffer(png, dtype=np.uint8), cv2.IMREAD_COLOR)
    if reference is None or reference.shape[:2] != (height, width):
        raise _Damaged("reference_png does not decode")
    return reference


def _from_json(data: dict[str, Any]) -> Calibration:
    size = _field(data, "image_size", list)
    if len(size) != 2:
        raise _Damaged("image_size: [width, height] is expected")
    width, height = (int(_number(v, "image_size", MIN_IMAGE, MAX_IMAGE)) for v in size)
    if list(size) != [width, height]:
        raise _Damaged("image_size: whole numbers of pixels are expected")
    origin = _field(data, "origin", list)
    if len(origin) != 2:
        raise _Damaged("origin: [x, y] is expected")
    lens = _field(data, "lens", dict) if data["version"] >= 2 else {"k1": 0.0}  # format 1: no lens
    calibration = Calibration(
        rules=_field(data, "rules", str), options=_field(data, "options", dict),
        image_size=(width, height),
        corners_px=_points(data.get("corners_px"), "corners_px", 4, 10 * MAX_IMAGE),
        markers=_markers(data.get("markers")),
        scale=_number(data.get("scale"), "scale", *SCALE_LIMITS),
        origin=(_number(origin[0], "origin", -BOARD_LIMIT, BOARD_LIMIT),
                _number(origin[1], "origin", -BOARD_LIMIT, BOARD_LIMIT)),
        reference=_reference(data.get("reference_png")),
        created=str(data.get("created", ""))[:64],
        k1=_number(lens.get("k1"), "lens.k1", *K1_LIMITS))
    if not np.isfinite(calibration.undistort(calibration.corners_px)).all():
        raise _Damaged(f"lens.k1 = {calibration.k1:g} folds the picture over itself before "
                       f"the corner cells: no calibration measures such a lens")
    _check_covers(calibration)
    return calibration


def _check_covers(calibration: Calibration) -> None:
    """The reference must show every cell at the file's scale, and not much more."""
    xmin, ymin, xmax, ymax = calibration.layout.bounds(0.5)
    width, height = calibration.rectified_size
    ox, oy = calibration.origin
    seen = (ox, oy, ox + width / calibration.scale, oy + height / calibration.scale)
    slack = 1.0 / calibration.scale   # a pixel's rounding
    if seen[0] > xmin + slack or seen[1] > ymin + slack or seen[2] < xmax - slack \
            or seen[3] < ymax - slack:
        raise _Damaged(f"reference_png ({width}x{height}) and origin do not cover the board's "
                       f"cells at scale {calibration.scale:g}")
    if seen[2] - seen[0] > xmax - xmin + 4 or seen[3] - seen[1] > ymax - ymin + 4:
        raise _Damaged(f"reference_png ({width}x{height}) reaches far beyond the board")


def distort(pixels: Any, k1: float, image_size: tuple[int, int]) -> np.ndarray:
    """Ideal pixels ``(..., 2)`` to seen ones: ``p' = c + (p - c)(1 + k1 r^2)``.

    ``c`` is the image centre and ``r = |p - c| / width``: OpenCV's radial
    model with the principal point at the centre and a focal length of one
    image width (a real camera's offset centre is absorbed by the homography
    well enough: under half a pixel on the renderer's strongest lens).
    """
    centre = np.array(image_size, np.float64) / 2
    unit = float(image_size[0])
    xy = (np.asarray(pixels, np.float64) - centre) / unit
    r2 = (xy ** 2).sum(axis=-1, keepdims=True)
    return xy * (1 + k1 * r2) * unit + centre


def undistort(pixels: Any, k1: float, image_size: tuple[int, int]) -> np.ndarray:
    """The inverse of :func:`distort` (Newton's method on the radius: exact to 1e-9 px).

    A point seen at or beyond :func:`fold_radius` has no ideal pixel: it comes back NaN.
    """
    pixels = np.asarray(pixels, np.float64)
    if k1 == 0.0:
        return pixels.copy()
    centre = np.array(image_size, np.float64) / 2
    unit = float(image_size[0])
    xy = (pixels - centre) / unit
    seen = np.sqrt((xy ** 2).sum(axis=-1, keepdims=True))
    ideal = seen.copy()
    for _ in range(8):
        ideal -= (ideal * (1 + k1 * ideal ** 2) - seen) / (1 + 3 * k1 * ideal ** 2)
    ratio = np.divide(ideal, seen, out=np.ones_like(seen), where=seen > 0)
    ratio[seen >= fold_radius(k1)] = np.nan
    return xy * ratio * unit + centre


def seen_radius(pixels: Any, image_size: tuple[int, int]) -> np.ndarray:
    """Each pixel's ``(..., 2)`` distance from the image centre, in image widths (the radius
    :func:`distort` and :func:`fold_radius` measure)."""
    centre = np.array(image_size, np.float64) / 2
    return np.linalg.norm(np.asarray(pixels, np.float64).reshape(-1, 2) - centre, axis=1) / image_size[0]


def fold_radius(k1: float) -> float:
    """The seen radius (image widths) out to which :func:`distort` is one-to-one.

    Under a barrel lens (k1 < 0) the seen radius ``r (1 + k1 r^2)`` stops growing where
    ``1 + 3 k1 r^2 = 0`` and turns back: the picture folds over itself there, and no point
    is seen farther out than ``(2/3) / sqrt(-3 k1)``. Other lenses never fold.

    >>> round(fold_radius(-0.6), 3), fold_radius(0.1)
    (0.497, inf)
    """
    return math.inf if k1 >= 0 else (2 / 3) / math.sqrt(-3 * k1)


def _apply(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(np.asarray(points, np.float64).reshape(-1, 1, 2),
                                    np.asarray(matrix, np.float64)).reshape(-1, 2)


def _four_point(board: np.ndarray, pixels: np.ndarray) -> np.ndarray:
    return cv2.getPerspectiveTransform(np.asarray(board, np.float32),
                                       np.asarray(pixels, np.float32)).astype(np.float64)
