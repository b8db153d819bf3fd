"""A frame below the readable bar is read in part: its sure tiles, and bare cells only where
the table's tiles are known to stand out.

Real OpenCV on rendered *training*-world tables (``calibration/synthetic/worlds.py``), frames
blurred, noisy and JPEG-compressed at full strength. Such a frame's best cells match the empty
board less than the readable bar, and every cell used to be left undecided, the tiles that
stand out of it plainly too. Now (``calibration.cellcues.narrowed``) a cell read a tile lying
far below the bare cells is a tile, and a cell like the board is empty only on a table whose
tiles all stood out in the frames read before it, by far more than this frame's noise moves a
bare cell. On a matched-print table (tiles printed like the board) the noise hides a tile as
well as a bare cell: such a frame read as a clear one reads tiles empty, and it must not.
"""

from __future__ import annotations

import numpy as np
import pytest

from calibration import cellcues
from calibration.recognize import Recognizer
from calibration.synthetic.render import render
from calibration.synthetic.scenes import Nuisances
from calibration.synthetic.worlds import require_training, training_table

NOISY = Nuisances(blur=1.0, noise=1.0, jpeg=1.0)


def _table(vision, rules: str, seed: int, material: str, options: dict):
    table = training_table(rules, 8_500_000 + seed, options=options, material=material)
    require_training(table)
    return table, vision.calibrated_from_empty(table, seed, options)


def _frame(table, size: int, seed: int, nuisances: Nuisances):
    rng = np.random.default_rng(seed)
    tiles = sorted(int(c) for c in rng.choice(size, size // 5, replace=False))
    return render(table, tiles, rng, nuisances)


def _followed(table, calibration, frames: range) -> list[tuple]:
    """A recognizer following the table: two clean frames, then the noisy ``frames``; for each
    noisy one (truth, observation)."""
    recognizer, size = Recognizer(calibration), calibration.layout.size
    for seed in (100, 101):
        recognizer.read(_frame(table, size, seed, Nuisances.none()).image)
    seen = []
    for seed in frames:
        frame = _frame(table, size, seed, NOISY)
        seen.append((frame.truth, recognizer.read(frame.image)))
    return seen


@pytest.fixture(scope="module")
def dark_tiles(vision):
    return _table(vision, "acquisitions", 11, "dark_plastic", {})


@pytest.fixture(scope="module")
def matched(vision):
    return _table(vision, "acquisitions", 50, "matched_print", {})


def test_a_noisy_frame_of_a_table_with_plain_tiles_is_read_though_below_the_bar(vision,
                                                                              dark_tiles):
    table, calibration = dark_tiles
    truth, seen = _followed(table, calibration, range(2))[1]
    assert seen.reading.degraded, "the premise: the frame is below the readable bar"
    errors = vision.cell_errors(seen, truth)
    assert not errors["false"] and not errors["missed"], errors
    assert seen.occupied == truth.occupied
    bare = calibration.layout.size - len(truth.occupied)
    decided_bare = bare - len(seen.uncertain)
    assert decided_bare > bare // 2, f"only {decided_bare} of {bare} bare cells read empty"
    # The stream waits for a frame above the bar: this one is no evidence to commit on.
    assert not seen.readable


def test_a_fresh_recognizer_reads_only_the_tiles_of_that_frame(vision, dark_tiles):
    # Nothing read before: nothing known of how the table's tiles stand out.
    table, calibration = dark_tiles
    frame = _frame(table, calibration.layout.size, 1, NOISY)
    seen = Recognizer(calibration).read(frame.image)
    assert seen.reading.degraded
    tiles = frame.truth.occupied
    assert seen.occupied <= tiles and len(seen.occupied) >= len(tiles) - 2
    assert seen.occupied | seen.uncertain == frozenset(range(calibration.layout.size))


def _degraded(seen: list[tuple]) -> list[tuple]:
    return [(truth, observation) for truth, observation in seen if observation.reading.degraded]


def test_a_noisy_frame_of_a_matched_print_table_reads_no_tile_empty(vision, matched):
    table, calibration = matched
    seen = _degraded(_followed(table, calibration, range(3)))
    assert seen, "the premise: a frame below the readable bar"
    for truth, observation in seen:
        errors = vision.cell_errors(observation, truth)
        assert not errors["false"] and not errors["missed"], errors


def test_read_cell_by_cell_that_frame_would_read_tiles_empty(vision, matched, monkeypatch):
    # The premise of the test above: a bare-looking cell alone says nothing in that noise.
    monkeypatch.setattr(cellcues, "DEGRADED_APART", 0.0)
    table, calibration = matched
    missed = sum(len(vision.cell_errors(observation, truth)["missed"])
                 for truth, observation in _degraded(_followed(table, calibration, range(3))))
    assert missed >= 3
