"""Light tiles on a print of their own colour, their label bolder than the board's: read, not doubted.

Real OpenCV on a rendered tuning-world table (182 hexes, grey print, the ``low_contrast``
tiles: the issue's "light tiles on a light print, bold label"). Such a tile keeps the
board's colour and nearly its edges; it was left "doubtful" (13-17 tiles of each clean
frame here, now 2-4), and a table had to tap each in. The classifier reads a doubted cell as a tile when its
edges are far stronger than the frame's bare cells' and its edge correlation, over the cell
and in its middle, lies far below theirs (``calibration.cellcues._bolder``); a cell under a
glare spot's rim never.
"""

from __future__ import annotations

import pytest

from calibration.synthetic.render import make_table
from calibration.synthetic.scenes import Nuisances

RULES, OPTIONS = "megacquire-gold", {"hex_offset": "even-r"}


@pytest.fixture(scope="module")
def low_contrast(vision):
    table = make_table(RULES, seed=7011, options=OPTIONS, tile_style="low_contrast")
    return table, vision.calibrated_from_empty(table, 8, OPTIONS)


@pytest.mark.parametrize("seed", range(3))
def test_bold_labelled_light_tiles_read_as_tiles(vision, low_contrast, seed):
    table, calibration = low_contrast
    truth, seen = vision.read_scattered(table, calibration, seed, Nuisances.none(), share=4)
    labels = calibration.layout.geometry.labels
    assert not seen.occupied - truth.occupied, [labels[c] for c in seen.occupied - truth.occupied]
    doubted = sorted(seen.uncertain & truth.occupied)
    assert len(doubted) <= 5, f"tiles left doubtful: {[labels[c] for c in doubted]}"
    assert len(seen.occupied & truth.occupied) >= len(truth.occupied) - 5


@pytest.mark.parametrize("seed", range(3))
def test_under_glare_no_bare_cell_of_that_board_reads_as_a_tile(vision, low_contrast, seed):
    table, calibration = low_contrast
    truth, seen = vision.read_scattered(table, calibration, 10 + seed, Nuisances(glare=1.0),
                                        share=4)
    assert not seen.occupied - truth.occupied
