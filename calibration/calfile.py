"""The calibration file: everything needed to read one table's board, as versioned JSON.

A calibration ties the board's cell grid to the four markers, not to the
camera's pixels: ``markers`` holds each marker's corners in board units
(1 unit = the distance between horizontally adjacent cell centres; see
:mod:`calibration.layout`). Each frame's marker detections give the board's
pose, so the grid stays right when the board is bumped.

It also keeps the empty board as the camera saw it, rectified (warped flat,
``scale`` pixels a board unit, the grid's bounds plus a margin): the tile
classifier compares every cell, and the ring of board around the grid, with it.

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
from tabletop.ruleset import load_rules

FORMAT = "tabletop-calibration"
VERSION = 1


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
        reference=reference, created=str(data.get("created", "")))
    if len(markers) < 2:
        raise ValueError("fewer than two markers")
    return calibration
