"""An empty board photographed near the camera's white point: a dimmer frame's print is no tile.

Real OpenCV on a rendered *training*-world table (``calibration/synthetic/worlds.py``): a
light print calibrated from a photo whose paper sits just short of clipping (grey 244), the
tone curve's shoulder flattening its print. In a dimmer frame every cell shows its print two
or three times stronger than the empty board did, and read against that picture every
bare cell looked like a tile (over 80 of the 87 bare cells of one frame). The
classifier now measures edges against the frame's own bare board first when that board
shows its print beyond the bare band (``calibration.tone.board_contrast``): only a cell
standing out from it is a tile.
"""

from __future__ import annotations

import numpy as np
import pytest

from calibration.calibrate import calibrate
from calibration.recognize import Recognizer
from calibration.synthetic.render import render, render_empty
from calibration.synthetic.scenes import Nuisances
from calibration.synthetic.worlds import require_training, training_table


@pytest.fixture(scope="module")
def near_white():
    table = training_table("acquire", 8_200_036)
    require_training(table)
    empty = render_empty(table, np.random.default_rng(36))
    calibration = calibrate(empty.image, empty.truth.corners, "acquire", {})
    return table, calibration


def test_the_calibration_photo_of_that_table_is_near_white_not_clipped(near_white):
    _, calibration = near_white
    grey = calibration.reference.mean(axis=2)
    assert np.median(grey) > 200 and (grey >= 250).mean() < 0.01


@pytest.mark.parametrize("seed", range(10))
def test_a_dimmer_blurred_frame_of_that_board_reads_no_bare_cell_as_a_tile(near_white, seed):
    table, calibration = near_white
    rng = np.random.default_rng(seed)
    size = calibration.layout.size
    tiles = sorted(int(c) for c in rng.choice(size, size // 5, replace=False))
    frame = render(table, tiles, rng, Nuisances(lighting=1.0, noise=1.0, blur=1.0))
    assert frame.truth.clear
    seen = Recognizer(calibration).read(frame.image)
    labels = calibration.layout.geometry.labels
    false = sorted(seen.occupied - frame.truth.occupied)
    assert not false, f"bare cells read as tiles: {[labels[c] for c in false]}"
