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
    """Read a calibration file; CalibrationError saying what is wrong with a bad one."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise CalibrationError(f"cannot read {path}: {error.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise CalibrationError(f"{path} is not a calibration file (not JSON)") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CalibrationError(f"{path} is not a calibration file (made by `tabletop calibrate`)")
    version = data.get("version")
    if not isinstance(version, int) or version > VERSION:
        raise CalibrationError(f"{path} is calibration format {version!r}; this tabletop reads "
                               f"up to {VERSION}: update tabletop or calibrate again")
    try:
        return _from_json(data)
    except TabletopError as error:
        raise CalibrationError(f"{path}: {error}") from None
    except (KeyError, TypeError, ValueError, IndexError) as error:
        raise CalibrationError(f"{path} is damaged ({type(error).__name__}: {error}): "
                               f"calibrate again") from None


def _from_json(data: dict[str, Any]) -> Calibration:
    png = np.frombuffer(base64.b64decode(data["reference_png"], validate=True), dtype=np.uint8)
    reference = cv2.imdecode(png, cv2.IMREAD_COLOR)
    if reference is None:
        raise ValueError("the reference image does not decode")
    markers = {int(k): np.asarray(v, dtype=np.float64).reshape(4, 2) for k, v in data["markers"].items()}
    width, height = (int(v) for v in data["image_size"])
    calibration = Calibration(
        rules=str(data["rules"]), options=dict(data["options"]), image_size=(width, height),
        corners_px=np.asarray(data["corners_px"], dtype=np.float64).reshape(4, 2),
        markers=markers, scale=float(data["scale"]),
        origin=(float(data["origin"][0]), float(data["origin"][1])),
        reference=reference, created=str(data.get("created", "")),
        # Format 1 knew no lens: a straight one.
        k1=float(data["lens"]["k1"]) if data["version"] >= 2 else 0.0)
    if len(markers) < 2:
        raise ValueError("fewer than two markers")
    return calibration


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
    """The inverse of :func:`distort` (Newton's method on the radius: exact to 1e-9 px)."""
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
    return xy * ratio * unit + centre


def _apply(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(np.asarray(points, np.float64).reshape(-1, 1, 2),
                                    np.asarray(matrix, np.float64)).reshape(-1, 2)


def _four_point(board: np.ndarray, pixels: np.ndarray) -> np.ndarray:
    return cv2.getPerspectiveTransform(np.asarray(board, np.float32),
                                       np.asarray(pixels, np.float32)).astype(np.float64)
