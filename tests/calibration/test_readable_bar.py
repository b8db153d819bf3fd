"""A table whose calibration photo is softer than its stream: a noisy frame is still read.

Real OpenCV on rendered frames of the tuning world's square table. Calibrated from
a photo of the empty board a little out of focus (a real table's calibration photo
may be blurred or shaken), the sharp frames of its stream never match the empty
board as well as a sharply calibrated table's do (0.96 here against 0.99): every
frame falls short by the same factor. A noisy frame then fell below the readable
bar (``READABLE``) and every cell was left undecided, though it was no worse than
on any other table; the bar is now held to what the table's frames attain
(:meth:`TileClassifier.readable_bar`, ``bench/uncertain.py --world training``: a
hex table's JPEG frames, 182 cells each, were unreadable so).
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.calibrate import calibrate
from calibration.classify import ATTAINABLE, READABLE, TileClassifier
from calibration.synthetic.render import render
from calibration.synthetic.scenes import Nuisances
from calibration.warp import Rectifier, homography

#: The calibration photo's blur (pixels, Gaussian) and the noisy frame's sensor noise
#: (grey levels per pixel of the rectified board).
PHOTO_BLUR, NOISE = 1.8, 13.0


@pytest.fixture(scope="module")
def soft(vision):
    """The square table calibrated from a soft photo, a clean frame of it (rectified), its tiles."""
    setup = vision.setup("square")
    photo = cv2.GaussianBlur(setup.empty.image, (0, 0), PHOTO_BLUR)
    calibration = calibrate(photo, setup.empty.truth.corners, setup.table.rules, {})
    size = calibration.layout.size
    tiles = sorted(int(c) for c in np.random.default_rng(3).choice(size, size // 6, replace=False))
    frame = render(setup.table, tiles, np.random.default_rng(3), Nuisances.none())
    to_pixels = homography(calibration.layout.corner_points(), calibration.corners_px)
    return calibration, Rectifier(calibration)(frame.image, to_pixels), frame.truth.occupied


def _noisy(flat: np.ndarray) -> np.ndarray:
    noise = np.random.default_rng(4).normal(0, NOISE, flat.shape)
    return np.clip(flat + noise, 0, 255).astype(np.uint8)


def test_a_noisy_frame_of_a_softly_calibrated_table_is_read_once_a_clean_one_was(soft):
    calibration, flat, tiles = soft
    classifier = TileClassifier(calibration)
    clean = classifier.read(flat)
    assert clean.occupied == tiles, "the clean frame itself is misread"
    # The premise: this table attains less than a sharply calibrated one.
    assert classifier.attained < ATTAINABLE - 0.01
    assert classifier.readable_bar() < READABLE
    noisy = classifier.read(_noisy(flat))
    assert noisy.occupied == tiles, (
        f"tiles read: {len(noisy.occupied & tiles)} of {len(tiles)}, "
        f"empty cells read as tiles: {len(noisy.occupied - tiles)}")
    # What stays undecided is bare board the noise hides, never a tile.
    assert not noisy.uncertain & tiles
    assert len(noisy.uncertain) < calibration.layout.size // 2


def test_a_fresh_classifier_holds_the_same_noisy_frame_to_the_full_bar(soft):
    # Nothing read yet, nothing attained: the frame is judged by READABLE and read only in
    # part (what is sure below the bar), so the test above needs the new bar; and a frame
    # below the bar never lowers it.
    calibration, flat, tiles = soft
    classifier = TileClassifier(calibration)
    assert classifier.readable_bar() == READABLE
    reading = classifier.read(_noisy(flat))
    assert reading.degraded
    assert reading.occupied <= tiles, f"bare cells read as tiles: {sorted(reading.occupied - tiles)}"
    assert not (set(range(calibration.layout.size)) - reading.occupied - reading.uncertain) & tiles
    print(f"degraded: {len(reading.occupied)} of {len(tiles)} tiles, "
          f"{len(reading.uncertain)} of {calibration.layout.size} uncertain")
    assert classifier.attained == 0.0 and classifier.readable_bar() == READABLE


def test_a_sharply_calibrated_table_keeps_the_full_bar(vision):
    setup = vision.setup("square")
    calibration = setup.calibration
    frame = render(setup.table, [3, 40, 77], np.random.default_rng(5), Nuisances.none())
    to_pixels = homography(calibration.layout.corner_points(), calibration.corners_px)
    classifier = TileClassifier(calibration)
    classifier.read(Rectifier(calibration)(frame.image, to_pixels))
    assert classifier.attained >= ATTAINABLE
    assert classifier.readable_bar() == READABLE
