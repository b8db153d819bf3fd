"""Boards the tuning world never drew: a light board burnt out by its camera, a noisy camera.

Real OpenCV on rendered *training*-world tables (``calibration/synthetic/worlds.py``:
a stream of their own, never a held-out one), read by a fresh :class:`Recognizer`
calibrated from a render of the empty board as ``tabletop calibrate`` would be:

* a light board overexposed, so that everything but its print is burnt out,
  reads no cell wrong: a light tile printed like the board, burnt out as the
  board is, is undecided, never empty;
* a glare spot that burns whole cells of such a board out is never a tile;
* a noisy frame through a grid the pose misplaces reads no tile.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.calibrate import calibrate
from calibration.classify import TileClassifier
from calibration.recognize import Recognizer
from calibration.synthetic.render import render, render_empty, render_scene, view_of
from calibration.synthetic.scenes import Glare, Nuisances, Scene
from calibration.synthetic.worlds import require_training, training_table

#: A training-world square table whose light print its camera burns out (seen in
#: bench/uncertain.py's training world: almost every empty cell was left uncertain).
WASHED = {"rules": "acquire", "seed": 7_000_002, "material": "glossy_plastic"}


@pytest.fixture(scope="module")
def washed():
    table = training_table(WASHED["rules"], WASHED["seed"], material=WASHED["material"])
    require_training(table)
    empty = render_empty(table, np.random.default_rng(0))
    calibration = calibrate(empty.image, empty.truth.corners, WASHED["rules"], {})
    return table, calibration


def _tiles(size: int, seed: int) -> list[int]:
    rng = np.random.default_rng(seed)
    return sorted(int(c) for c in rng.choice(size, size // 5, replace=False))


def test_the_washed_board_is_burnt_out_but_its_print_shows(washed):
    # The premise: most of each empty cell is burnt out (so the old glare rule left it unread).
    table, calibration = washed
    frame = render(table, [], np.random.default_rng(1))
    rectified = Recognizer(calibration)
    seen = rectified.read(frame.image)
    burnt = (seen.plane >= 250).mean()
    assert burnt > 0.4, f"only {burnt:.0%} of the board is burnt out: not the washed-out case"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_washed_out_light_board_reads_no_cell_wrong(washed, seed):
    table, calibration = washed
    tiles = _tiles(calibration.layout.size, seed)
    frame = render(table, tiles, np.random.default_rng(seed), Nuisances.none())
    seen = Recognizer(calibration).read(frame.image)
    labels = calibration.layout.geometry.labels
    assert frame.truth.clear and seen.clear
    assert not seen.occupied - frame.truth.occupied, \
        f"empty cells read as tiles: {[labels[c] for c in seen.occupied - frame.truth.occupied]}"
    missed = frame.truth.occupied - seen.occupied - seen.uncertain
    assert not missed, f"tiles read empty: {[labels[c] for c in missed]}"


def test_a_light_card_tile_burnt_out_like_its_board_is_never_read_empty():
    # Ivory card printed with the cell's own label on a light print its camera burns out:
    # the tile's body clips white as the board does and keeps the same label, so the cell
    # matches the empty board's print; it must stay undecided, never be read empty.
    table = training_table("acquire", 7_001_001, material="ivory_card")
    require_training(table)
    empty = render_empty(table, np.random.default_rng(1))
    calibration = calibrate(empty.image, empty.truth.corners, "acquire", {})
    recognizer = Recognizer(calibration)
    labels = calibration.layout.geometry.labels
    for seed in (1, 2):
        frame = render(table, _tiles(calibration.layout.size, seed), np.random.default_rng(seed))
        seen = recognizer.read(frame.image)
        missed = frame.truth.occupied - seen.occupied - seen.uncertain
        assert not missed, f"tiles read empty: {[labels[c] for c in missed]}"
        assert not seen.occupied - frame.truth.occupied


def test_a_glare_spot_burning_cells_of_a_washed_board_out_is_never_a_tile(washed):
    table, calibration = washed
    size = calibration.layout.size
    tiles = _tiles(size, 4)
    view = view_of(table)
    spots = [c for c in range(size) if c not in tiles][::9][:6]
    unit = float(np.linalg.norm(view.centres[1] - view.centres[0]))
    glare = tuple(Glare(centre=tuple(float(v) for v in view.centres[c]),
                        axes=(0.7 * unit, 0.5 * unit), angle=0.4, intensity=255.0) for c in spots)
    frame = render_scene(table, tiles, Scene(glare=glare), np.random.default_rng(4))
    seen = Recognizer(calibration).read(frame.image)
    assert not seen.occupied - frame.truth.occupied, "a glare spot was read as a tile"
    assert not frame.truth.occupied - seen.occupied - seen.uncertain


def test_a_noisy_misplaced_grid_reads_no_tile(washed):
    # A grid half a cell off matches the empty board nowhere: nothing on it is a tile.
    table, calibration = washed
    classifier = TileClassifier(calibration, "hand")
    frame = render(table, _tiles(calibration.layout.size, 5), np.random.default_rng(5))
    rectified = Recognizer(calibration)
    rectified.read(frame.image)
    grey = rectified._plane
    shift = np.float32([[1, 0, calibration.scale / 2], [0, 1, calibration.scale / 3]])
    moved = cv2.warpAffine(grey, shift, grey.shape[::-1], borderMode=cv2.BORDER_REFLECT)
    noisy = np.clip(moved + np.random.default_rng(6).normal(0, 18, moved.shape), 0, 255).astype(np.uint8)
    small = cv2.resize(cv2.cvtColor(noisy, cv2.COLOR_GRAY2BGR),
                       (grey.shape[1] // 4, grey.shape[0] // 4), interpolation=cv2.INTER_AREA)
    reading = classifier.read_planes(noisy, small)
    assert not reading.occupied, f"{len(reading.occupied)} cells read as tiles on a misplaced grid"
