"""Light and low-contrast boards read by the hand-tuned cell rules (calibration/cellcues.py).

Real OpenCV on rendered *training*-world tables (``calibration/synthetic/worlds.py``,
the ones ``bench/uncertain.py --world training`` reads; never a held-out one), each
calibrated from a render of its empty board as ``tabletop calibrate`` would be:

* a tile printed in a dark board's own colours and label ink, its label paler and
  thinner than the board's, is never read empty (it was, 5% of such a board's cells:
  a placement the tracker would never see): in a clean frame every bare cell matches
  the empty board almost exactly, and such a tile stands out from them;
* on a light board its camera overexposes (the paper clipped white in every frame),
  dark-printed tiles read as tiles, not as glare: glare only erases print;
* such a board's burnt-out cells are reported as washed out, not as glare, and stay
  undecided: a light tile whose label copies the board's vanishes in the clipped
  white (it does on the last table here), so no cell of it may be read empty.
"""

from __future__ import annotations

import numpy as np
import pytest

from calibration.calibrate import calibrate
from calibration.cellcues import CAUSES
from calibration.recognize import Recognizer
from calibration.synthetic.render import render, render_empty
from calibration.synthetic.scenes import Nuisances
from calibration.synthetic.worlds import require_training, training_table

#: bench/uncertain.py's training tables: a quadrant board printed dark with tiles in its own
#: colours; a square light board its camera burns out, glossy tiles with dark labels on it;
#: and a light board burnt out as well, ivory tiles printed with the board's own label.
MATCHED_DARK = ("acquisitions", 7_000_021, "matched_print")
WASHED_GLOSSY = ("acquire", 7_000_002, "glossy_plastic")
WASHED_IVORY = ("acquire", 7_100_074, "ivory_plastic")


def _calibrated(rules: str, seed: int, material: str):
    table = training_table(rules, seed, material=material)
    require_training(table)
    empty = render_empty(table, np.random.default_rng(1))
    return table, calibrate(empty.image, empty.truth.corners, rules, {})


def _read(table, calibration, seed: int):
    """A clean frame with a quarter of the cells covered, and its reading and truth."""
    rng = np.random.default_rng(seed)
    tiles = sorted(int(c) for c in rng.choice(calibration.layout.size, calibration.layout.size // 4,
                                             replace=False))
    frame = render(table, tiles, np.random.default_rng(seed), Nuisances.none())
    recognizer = Recognizer(calibration)
    seen = recognizer.read(frame.image)
    assert frame.truth.clear and seen.clear
    return seen, frame.truth.occupied, recognizer.classifier.last_verdicts


def _names(calibration, cells) -> list[str]:
    return [calibration.layout.geometry.labels[c] for c in sorted(cells)]


@pytest.fixture(scope="module")
def matched_dark():
    return _calibrated(*MATCHED_DARK)


@pytest.fixture(scope="module")
def washed_glossy():
    return _calibrated(*WASHED_GLOSSY)


@pytest.mark.parametrize("seed", [1, 3])
def test_a_tile_printed_like_a_dark_board_is_never_read_empty(matched_dark, seed):
    table, calibration = matched_dark
    seen, tiles, _ = _read(table, calibration, seed)
    missed = tiles - seen.occupied - seen.uncertain
    assert not missed, f"tiles read empty: {_names(calibration, missed)}"
    wrong = seen.occupied - tiles
    assert not wrong, f"empty cells read as tiles: {_names(calibration, wrong)}"
    # (and not by doubting everything: the board's own cells still read empty)
    empty_cells = calibration.layout.size - len(tiles)
    assert len(seen.uncertain - tiles) <= 0.05 * empty_cells, \
        f"{len(seen.uncertain - tiles)} of {empty_cells} empty cells left undecided"


@pytest.mark.parametrize("seed", [2, 3])
def test_dark_printed_tiles_on_a_washed_out_light_board_read_as_tiles(washed_glossy, seed):
    table, calibration = washed_glossy
    seen, tiles, _ = _read(table, calibration, seed)
    wrong = seen.occupied - tiles
    assert not wrong, f"empty cells read as tiles: {_names(calibration, wrong)}"
    assert seen.occupied == tiles, f"tiles not read: {_names(calibration, tiles - seen.occupied)}"


def test_a_washed_out_board_is_reported_washed_out_not_glare(washed_glossy):
    table, calibration = washed_glossy
    seen, tiles, verdicts = _read(table, calibration, 1)
    undecided_empty = sorted(seen.uncertain - tiles)
    assert undecided_empty, "the premise: this board's camera burns its paper out, its cells undecided"
    causes = {CAUSES[int(verdicts.cause[c])] for c in undecided_empty}
    assert causes == {"washed out"}, f"empty cells of a burnt-out board left undecided as {causes}"


def test_a_light_tile_vanishing_on_a_washed_out_board_is_never_read_empty():
    # The reason the washed-out cells stay undecided: here the tiles clip white as the paper
    # does and carry the board's own label; nothing in the cell tells them from the board.
    table, calibration = _calibrated(*WASHED_IVORY)
    seen, tiles, verdicts = _read(table, calibration, 1)
    missed = tiles - seen.occupied - seen.uncertain
    assert not missed, f"tiles read empty: {_names(calibration, missed)}"
    assert not seen.occupied - tiles
    assert "washed out" in {CAUSES[int(verdicts.cause[c])] for c in seen.uncertain & tiles}
