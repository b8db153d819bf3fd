"""Learning the table: the placements the game confirmed teach the Watcher what a tile looks like here.

Real OpenCV on rendered low-contrast tables (light tiles on a light print, the
ordinary case at a real table), 640x480 as ``test_time_cue``'s. The game is
played as the table's loop plays it: the Watcher is told the board at the
start and after each tile the table confirms. After a few confirmed
placements, tiles the classifier alone leaves uncertain are read as tiles,
counted apart (``Observation.learned``); a bare cell is never made a tile,
under any light, nor when the record claims tiles where the camera sees bare
board; and the model stays the same size however many examples it is given.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from calibration import cellcues
from calibration.adapt import TableLooks
from calibration.calibrate import calibrate
from calibration.recognize import Recognizer, Watcher
from calibration.synthetic.render import make_table, render, render_empty
from calibration.synthetic.scenes import Nuisances
from calibration.synthetic.sequences import Place, render_sequence
from tabletop.geometry.sightings import TileDoubted, TileSeen

#: One worker renders and plays the low-contrast table for all of this file's tests (made
#: once a worker: spread over two, the same game was played twice).
pytestmark = pytest.mark.xdist_group("table-learning-game")

SIZE = (640, 480)
#: test_time_cue's table: the classifier alone (bolder-label rule off) cannot tell its 1F and
#: 4H from the board.
STEPS = [Place("2G"), Place("1F"), Place("4H"), Place("11A"), Place("5E"), Place("8B"),
         Place("10D")]
#: Lights a bare cell must never be made a tile under.
LIGHTS = [Nuisances.none(), Nuisances.mild(), Nuisances(lighting=1.0), Nuisances(gradient=1.0),
          Nuisances(shadow=1.0), Nuisances(glare=1.0), Nuisances(noise=1.0), Nuisances(blur=1.0),
          Nuisances(jpeg=1.0)]


@pytest.fixture(scope="module", autouse=True)
def doubting():
    """The classifier without its bolder-label rule (``calibration.cellcues._bolder``), which
    now reads these tiles itself: it leaves them uncertain, as it leaves any tile printed
    closer to the board's own print than its rules can tell, and learning is for those."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cellcues, "BOLD_APART", math.inf)
        yield


@pytest.fixture(scope="module")
def low():
    table = make_table("acquire", seed=21, tile_style="low_contrast", size=SIZE)
    empty = render_empty(table, np.random.default_rng(21))
    return table, calibrate(empty.image, empty.truth.corners, "acquire", {})


def play(sequence, calibration, learn=True):
    """The game as the table plays it; (sightings, per frame: (observation, true cells, confirmed))."""
    watcher = Watcher(calibration, learn=learn)
    labels = watcher.labels
    board = {labels[c] for c, _ in sequence.states[0].occupied}
    watcher.expect(sorted(board))
    sightings, frames = [], []
    for index in range(len(sequence)):
        decided = watcher.feed(index, index / sequence.fps, sequence.frame(index).image)
        sightings += decided
        truth = {c for c, _ in sequence.states[index].occupied}
        confirmed = [s.tile for s in decided if isinstance(s, (TileSeen, TileDoubted))
                     and labels.index(s.tile) in truth]
        if confirmed:
            board.update(confirmed)
            watcher.expect(sorted(board))
        frames.append((watcher.last, truth, len(board), sequence.states[index].clear))
    return watcher, sightings, frames


@pytest.fixture(scope="module")
def game(low):
    table, calibration = low
    sequence = render_sequence(table, STEPS, np.random.default_rng(0))
    return sequence, play(sequence, calibration)


def test_after_three_confirmed_placements_doubted_tiles_are_read_as_tiles(game):
    sequence, (watcher, sightings, frames) = game
    after = [(seen, truth) for seen, truth, confirmed, still in frames if confirmed >= 3 and still]
    # The classifier alone leaves tiles uncertain on these still boards ...
    doubted = [(seen, c) for seen, truth in after for c in seen.reading.uncertain & truth]
    assert len(doubted) >= 20
    # ... which the table's own examples read as tiles, counted apart.
    read = [(seen, c) for seen, c in doubted if c in seen.occupied and c in seen.learned]
    assert len(read) >= 0.8 * len(doubted)
    uncertain = sum(len(seen.uncertain) for seen, _ in after) / (108 * len(after))
    assert uncertain < 0.005
    assert watcher.table.decided_tiles > 0
    # Every placement still proposed, each once, and none that was not placed.
    assert [s.tile for s in sightings if isinstance(s, (TileSeen, TileDoubted))] == \
        [event.labels[0] for event in sequence.placements]


def test_no_cell_the_table_learned_is_read_against_the_truth(game):
    _, (_, _, frames) = game
    for seen, truth, _, _ in frames:
        assert seen.learned <= seen.reading.uncertain         # never a cell the classifier decided
        assert not (seen.occupied - seen.reading.occupied) - truth
        if not seen.clear:
            assert not seen.learned                            # never on a hand


def test_learning_off_reads_as_the_classifier_alone(low, game):
    sequence, (_, sightings, _) = game
    watcher, alone, frames = play(sequence, low[1], learn=False)
    assert watcher.table is None and not any(seen.learned for seen, *_ in frames)
    assert [s.tile for s in alone if isinstance(s, (TileSeen, TileDoubted))] == \
        [s.tile for s in sightings if isinstance(s, (TileSeen, TileDoubted))]


@pytest.fixture(scope="module")
def taught(low):
    """A model taught from three still boards of a game (4, 8, 12 tiles), and the tiles."""
    table, calibration = low
    rng = np.random.default_rng(5)
    tiles = sorted(int(c) for c in rng.choice(108, 12, replace=False))
    looks, recognizer = TableLooks(108), Recognizer(calibration)
    for count in (4, 8, 12):
        on = set(tiles[:count])
        seen = recognizer.read(render(table, dict.fromkeys(on), rng, Nuisances.mild()).image)
        looks.learn(seen.reading, on, set(range(108)) - on)
    assert looks.ready
    return looks, set(tiles)


def test_a_bare_cell_is_never_made_a_tile_under_any_light(low, taught):
    table, calibration = low
    looks, tiles = taught
    rng = np.random.default_rng(6)
    decided = 0
    for k in range(2 * len(LIGHTS)):
        on = tiles | {int(c) for c in rng.choice(108, 6, replace=False)}
        frame = render(table, dict.fromkeys(on), rng, LIGHTS[k % len(LIGHTS)])
        seen = Recognizer(calibration).read(frame.image)
        # Every cell allowed either way: nothing but the model stands between them.
        as_tile, as_bare = looks.decide(seen.reading, range(108), range(108))
        assert not as_tile - frame.truth.occupied, LIGHTS[k % len(LIGHTS)]
        assert not as_bare & frame.truth.occupied, LIGHTS[k % len(LIGHTS)]
        decided += len(as_tile)
    assert decided > 0


def test_the_model_stays_the_same_size_after_500_examples(low, taught):
    table, calibration = low
    looks, tiles = taught
    size = looks.nbytes
    rng = np.random.default_rng(7)
    seen = Recognizer(calibration).read(render(table, dict.fromkeys(tiles), rng).image)
    for _ in range(500):
        on = {int(c) for c in rng.choice(sorted(tiles), 8, replace=False)}
        looks.learn(seen.reading, on, set(range(108)) - tiles)
    assert looks.examples >= 500 * 100
    assert looks.nbytes == size and looks.tiles_known <= 108


def test_tiles_claimed_on_bare_board_do_not_make_bare_cells_tiles(low):
    """The record says tiles where the camera sees the bare board (a tap on the wrong cell,
    a tile taken off and never undone), even where the classifier doubted those cells."""
    table, calibration = low
    rng = np.random.default_rng(8)
    real = {int(c) for c in rng.choice(108, 4, replace=False)}
    claimed = {int(c) for c in rng.choice(sorted(set(range(108)) - real), 8, replace=False)}
    looks, recognizer = TableLooks(108), Recognizer(calibration)
    for _ in range(3):
        seen = recognizer.read(render(table, dict.fromkeys(real), rng, Nuisances.mild()).image)
        # As if the classifier had doubted every claimed cell: no guard but the statistics.
        doubted = dataclasses.replace(seen.reading, uncertain=seen.reading.uncertain | claimed)
        looks.learn(doubted, real | claimed, set(range(108)) - real - claimed)
    for k in range(len(LIGHTS)):
        frame = render(table, dict.fromkeys(real), rng, LIGHTS[k])
        seen = Recognizer(calibration).read(frame.image)
        everything = dataclasses.replace(seen.reading,
                                         uncertain=frozenset(range(108)) - seen.reading.occupied)
        as_tile, _ = looks.decide(everything, range(108), range(108))
        assert not as_tile - frame.truth.occupied, LIGHTS[k]
