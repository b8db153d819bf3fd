"""Attacks on the calibration file (issue 22): every field is checked on load, so that a
file that loads works on the first frame, and `tabletop recognize` says what is wrong."""

from __future__ import annotations

import base64
import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.calfile import CalibrationError, load_calibration
from calibration.recognize import Recognizer, Watcher

ROOT = Path(__file__).resolve().parents[2]


def png_text(image: np.ndarray) -> str:
    return base64.b64encode(cv2.imencode(".png", image)[1].tobytes()).decode("ascii")


@pytest.fixture(scope="module")
def real(vision, tmp_path_factory):
    """A real calibration file of the square table, its JSON, and the empty board's photo."""
    setup = vision.setup("square")
    path = setup.calibration.save(tmp_path_factory.mktemp("cal") / "calibration.json")
    return path, json.loads(path.read_text()), setup.empty.image


def first_frame(path: Path, image: np.ndarray) -> None:
    calibration = load_calibration(path)
    Recognizer(calibration).read(image)
    Watcher(calibration).feed(0, 0.0, image)


MUTATIONS = {
    "markers is a list": ("markers", [1, 2], "markers"),
    "markers is text": ("markers", "x", "markers"),
    "a marker of one point": ("markers", {"0": [[0, 0]], "1": [[1, 1]] * 4}, "markers.0"),
    "markers all one point": ("markers", {str(i): [[i, i]] * 4 for i in range(4)}, "markers.0"),
    "empty reference": ("reference_png", "", "reference_png"),
    "2x2 reference": ("reference_png", png_text(np.zeros((2, 2, 3), np.uint8)), "reference_png"),
    "reference of another size": ("reference_png", png_text(np.zeros((100, 100, 3), np.uint8)),
                                  "reference_png"),
    "reference not a png": ("reference_png", base64.b64encode(b"GIF89a" * 10).decode(), "PNG"),
    "scale 0": ("scale", 0, "scale"),
    "scale nan": ("scale", float("nan"), "scale"),
    "scale inf": ("scale", float("inf"), "scale"),
    "scale 1e308": ("scale", 1e308, "scale"),
    "scale negative": ("scale", -32, "scale"),
    "scale as text": ("scale", "32", "scale"),
    "origin nan": ("origin", [float("nan"), 0], "origin"),
    "image size 0": ("image_size", [0, 0], "image_size"),
    "image size huge": ("image_size", [10 ** 9, 10 ** 9], "image_size"),
    "lens k1 nan": ("lens", {"k1": float("nan")}, "lens.k1"),
    "lens k1 50": ("lens", {"k1": 50}, "lens.k1"),
    "corners all one point": ("corners_px", [[1, 1]] * 4, "corners_px"),
    "options a list": ("options", [1], "options"),
    "rules a number": ("rules", 5, "rules"),
    "rules a path too long": ("rules", "x" * 300 + ".toml", "rule set"),
}


@pytest.mark.parametrize("name", MUTATIONS)
def test_a_damaged_field_is_refused_on_load_naming_it(real, tmp_path, name):
    path, data, image = real
    key, value, named = MUTATIONS[name]
    damaged = copy.deepcopy(data)
    damaged[key] = value
    target = tmp_path / "calibration.json"
    target.write_text(json.dumps(damaged))
    with pytest.raises(CalibrationError) as refused:
        first_frame(target, image)   # tracebacks before, on load or on this first frame
    assert named in str(refused.value) and str(target) in str(refused.value)


def test_a_lens_that_folds_before_the_corner_cells_is_refused(real, tmp_path):
    # Within the loader's k1 range, but this strong a barrel lens would show the picture's
    # far corners folded back over itself: the corner cells there could not be undistorted.
    path, data, image = real
    damaged = copy.deepcopy(data)
    damaged["lens"] = {**data["lens"], "k1": -0.8}
    damaged["corners_px"] = [[20, 20], [1260, 20], [1260, 940], [20, 940]]
    target = tmp_path / "calibration.json"
    target.write_text(json.dumps(damaged))
    with pytest.raises(CalibrationError) as refused:
        first_frame(target, image)
    assert "lens.k1" in str(refused.value) and "folds" in str(refused.value)


def test_the_real_file_still_loads_and_reads_a_frame(real):
    path, _, image = real
    first_frame(path, image)


def test_a_fifo_as_calibration_file_is_refused_at_once(tmp_path):
    fifo = tmp_path / "calibration.json"
    os.mkfifo(fifo)
    with pytest.raises(CalibrationError, match="not a regular file"):
        load_calibration(fifo)


def test_recognize_says_what_is_wrong_and_exits_2(real, tmp_path):
    path, data, image = real
    damaged = {**data, "scale": 0}
    target = tmp_path / "calibration.json"
    target.write_text(json.dumps(damaged))
    photo = tmp_path / "board.png"
    cv2.imwrite(str(photo), image)
    done = subprocess.run([sys.executable, "-m", "tabletop", "recognize", str(photo),
                           "--calibration", str(target)], capture_output=True, text=True,
                          cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("tabletop: ") and "scale" in done.stderr
    assert "Traceback" not in done.stderr
