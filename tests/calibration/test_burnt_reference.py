"""An empty board photographed overexposed: its print under a later shadow is no tile.

Real OpenCV on a rendered *training*-world table (``calibration/synthetic/worlds.py``): a
light print whose calibration photo burnt every sample of its paper out, read by a
:class:`Recognizer` in frames a soft shadow crosses. Under the shadow the camera no longer
clips the paper, and the board's print shows edges and colour its empty picture lost; read
against that picture it looked like tiles (16 bare cells of one frame). The classifier
leaves such cells undecided ("burnt-out reference") where the cells around them are less
burnt out too (a dimmer light reaches a region), unless they show what no print gives; a
tile alone, its shading below white, still reads.
"""

from __future__ import annotations

import numpy as np
import pytest

from calibration.cellcues import CAUSES
from calibration.recognize import Recognizer
from calibration.synthetic.render import render
from calibration.synthetic.scenes import Nuisances
from calibration.synthetic.worlds import require_training, training_table


@pytest.fixture(scope="module")
def overexposed(vision):
    # bench/vision.py's training world, seed 7, its third square table
    table = training_table("acquire", 7002, material="glossy_plastic")
    require_training(table)
    return table, vision.calibrated_from_empty(table, 9)


def test_the_calibration_photo_of_that_table_is_burnt_out(overexposed):
    _, calibration = overexposed
    grey = calibration.reference.mean(axis=2)
    assert (grey >= 250).mean() > 0.5          # the premise: most of the empty board clipped


@pytest.mark.parametrize("seed", range(4))
def test_a_shadow_over_an_overexposed_boards_print_reads_no_tile(overexposed, seed):
    table, calibration = overexposed
    rng = np.random.default_rng(seed)
    size = calibration.layout.size
    tiles = sorted(int(c) for c in rng.choice(size, size // 5, replace=False))
    frame = render(table, tiles, rng, Nuisances(shadow=1.0))
    assert frame.truth.clear
    recognizer = Recognizer(calibration)
    seen = recognizer.read(frame.image)
    labels = calibration.layout.geometry.labels
    false = sorted(seen.occupied - frame.truth.occupied)
    assert not false, f"bare cells read as tiles: {[labels[c] for c in false]}"
    causes = recognizer.classifier.last_verdicts.cause
    assert "burnt-out reference" in {CAUSES[causes[c]] for c in seen.uncertain}


def test_in_a_clean_frame_of_that_board_most_tiles_still_read(vision, overexposed):
    """A tile's body, its shading below white, unclips its own cell only: no dimmer light."""
    table, calibration = overexposed
    truth, seen = vision.read_scattered(table, calibration, 5, Nuisances.none())
    assert not seen.occupied - truth.occupied
    assert len(seen.occupied & truth.occupied) >= 0.7 * len(truth.occupied)
