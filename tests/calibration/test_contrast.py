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

from calibration.synthetic.scenes import Nuisances
from calibration.synthetic.worlds import require_training, training_table


@pytest.fixture(scope="module")
def near_white(vision):
    table = training_table("acquire", 8_200_036)
    require_training(table)
    return table, vision.calibrated_from_empty(table, 36)


def test_the_calibration_photo_of_that_table_is_near_white_not_clipped(near_white):
    _, calibration = near_white
    grey = calibration.reference.mean(axis=2)
    assert np.median(grey) > 200 and (grey >= 250).mean() < 0.01


@pytest.mark.parametrize("seed", range(10))
def test_a_dimmer_blurred_frame_of_that_board_reads_no_bare_cell_as_a_tile(vision, near_white,
                                                                          seed):
    table, calibration = near_white
    truth, seen = vision.read_scattered(table, calibration, seed,
                                        Nuisances(lighting=1.0, noise=1.0, blur=1.0))
    assert truth.clear
    labels = calibration.layout.geometry.labels
    false = sorted(seen.occupied - truth.occupied)
    assert not false, f"bare cells read as tiles: {[labels[c] for c in false]}"
