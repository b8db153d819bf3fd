"""Tiles printed like the board (its colours, the cell's own label): read as tiles, not doubted.

Real OpenCV on rendered *training*-world tables (``calibration/synthetic/worlds.py``:
never a held-out one), each read by a fresh :class:`Recognizer` calibrated from a
render of its empty board. In a clean frame every bare cell matches its empty
board almost exactly; a tile printed in the board's colours differs only by its
own label, and used to be left "doubtful" however far off the bare cells it lay.
Far enough off them, in the cell's middle too (:data:`calibration.cellcues.LABEL_LOSS`,
``LABEL_OUTLIER``, ``LABEL_INNER_OUTLIER``), it is a tile; and no nuisance makes a bare
cell one. So is a tile lighter than the board printed like it (a tuning-world table:
light tiles on a black print, their labels bolder), never one darker (a shadow's edge) nor
one lighter whose edges are veiled (a faint glare spot).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from calibration.calibrate import calibrate
from calibration.cellcues import Cues, decide
from calibration.recognize import Recognizer
from calibration.synthetic.render import make_table, render, render_empty
from calibration.synthetic.scenes import Nuisances
from calibration.synthetic.worlds import require_training, training_table

#: Two matched-print tables bench/uncertain.py's training world left doubtful: on the
#: first (a dark print) every tile of a clean frame was, on the second one or two.
TABLES = {"dark print": ("acquisitions", 7_000_021), "mid print": ("acquire", 7_001_003)}
#: The share of a clean frame's tiles a table must read as tiles (before: none, and 0.9).
READ = {"dark print": 0.35, "mid print": 1.0}


@pytest.fixture(scope="module", params=sorted(TABLES))
def printed(request):
    rules, seed = TABLES[request.param]
    table = training_table(rules, seed, material="matched_print")
    require_training(table)
    empty = render_empty(table, np.random.default_rng(0))
    return request.param, table, calibrate(empty.image, empty.truth.corners, rules, {})


def _frame(table, calibration, seed: int, nuisances: Nuisances):
    rng = np.random.default_rng(seed)
    size = calibration.layout.size
    tiles = sorted(int(c) for c in rng.choice(size, size // 5, replace=False))
    return render(table, tiles, rng, nuisances)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_tile_printed_like_the_board_reads_as_a_tile_in_a_clean_frame(printed, seed):
    name, table, calibration = printed
    frame = _frame(table, calibration, seed, Nuisances.none())
    seen = Recognizer(calibration).read(frame.image)
    tiles = frame.truth.occupied
    assert not seen.occupied - tiles, "a bare cell read as a tile"
    assert not seen.uncertain - tiles, "a bare cell left undecided"
    read = len(seen.occupied & tiles) / len(tiles)
    assert read >= READ[name], f"{len(seen.occupied & tiles)} of {len(tiles)} tiles read as tiles"


NUISANCES = [field.name for field in dataclasses.fields(Nuisances)] + ["all"]


@pytest.mark.parametrize("nuisance", NUISANCES)
def test_no_nuisance_makes_a_bare_cell_of_such_a_table_a_tile(printed, nuisance):
    name, table, calibration = printed
    nuisances = Nuisances.all() if nuisance == "all" else Nuisances(**{nuisance: 1.0})
    for seed in (100, 101):
        frame = _frame(table, calibration, seed, nuisances)
        if not frame.truth.clear:
            continue
        seen = Recognizer(calibration).read(frame.image)
        wrong = sorted(seen.occupied - frame.truth.occupied)
        assert not wrong, f"{nuisance}, frame {seed}: bare cells {wrong} read as tiles"


@pytest.fixture(scope="module")
def lighter():
    """A tuning-world table (bench/vision.py's, seed 0): light tiles printed like its black
    board, their labels bolder, which its clean frames left doubted (1-4 of 36 a frame)."""
    options = {"hex_offset": "even-r"}
    table = make_table("megacquire-gold", seed=11, options=options, tile_style="low_contrast")
    empty = render_empty(table, np.random.default_rng(1))
    return table, calibrate(empty.image, empty.truth.corners, "megacquire-gold", options)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_tile_lighter_than_the_board_printed_like_it_reads_as_a_tile(lighter, seed):
    table, calibration = lighter
    frame = _frame(table, calibration, seed, Nuisances.none())
    seen = Recognizer(calibration).read(frame.image)
    tiles = frame.truth.occupied
    assert seen.occupied == tiles and not seen.uncertain


@pytest.mark.parametrize("nuisance", NUISANCES)
def test_no_nuisance_makes_a_bare_cell_of_the_lighter_tiles_table_a_tile(lighter, nuisance):
    table, calibration = lighter
    nuisances = Nuisances.all() if nuisance == "all" else Nuisances(**{nuisance: 1.0})
    for seed in (100, 101):
        frame = _frame(table, calibration, seed, nuisances)
        if frame.truth.clear:
            seen = Recognizer(calibration).read(frame.image)
            wrong = sorted(seen.occupied - frame.truth.occupied)
            assert not wrong, f"{nuisance}, frame {seed}: bare cells {wrong} read as tiles"


def _clean_frame_cues(**cell) -> Cues:
    """Cues of a clean frame of 60 bare cells (their correlation 0.99, hardly scattered) and,
    last, one cell with the measures given (its middle as off as the whole unless told)."""
    rng = np.random.default_rng(0)
    structure = 0.99 + rng.normal(0, 0.001, 61)
    inner = 0.99 + rng.normal(0, 0.001, 61)
    energy, chroma, brightness = np.ones(61), np.full(61, 1.0), np.zeros(61)
    structure[-1] = 0.99 - cell["loss"]
    inner[-1] = 0.99 - cell.get("inner_loss", cell["loss"])
    energy[-1] = cell.get("energy", 0.85)
    brightness[-1] = cell.get("brightness", 0.0)
    glare_near = np.zeros(61, bool)
    glare_near[-1] = cell.get("glare_near", False)
    return Cues(0.99 - structure, structure, energy, chroma, brightness, np.zeros(61),
                np.zeros(61, bool), inner, glare_near)


@pytest.mark.parametrize("cell, verdict", [
    ({"loss": 0.15}, "tile"),                                  # its own label
    ({"loss": 0.15, "energy": 1.3}, "tile"),                   # ... a bolder one
    ({"loss": 0.07}, "uncertain"),                             # a paler label: only doubted
    ({"loss": 0.2, "inner_loss": 0.003}, "uncertain"),         # a neighbour's shadow on its rim
    ({"loss": 0.27, "energy": 1.36, "glare_near": True}, "uncertain"),  # a glare spot's rim
    ({"loss": 0.15, "brightness": 0.12, "energy": 1.3}, "tile"),   # lighter, its label bolder
    ({"loss": 0.2, "brightness": 0.1, "energy": 0.77}, "uncertain"),  # a faint glare spot's veil
    ({"loss": 0.15, "brightness": -0.12, "energy": 1.3}, "uncertain"),  # darker: a shadow's edge
])
def test_a_cell_far_off_a_clean_frames_bare_cells_is_a_tile_only_with_a_printed_tiles_cues(
        cell, verdict):
    verdicts = decide(_clean_frame_cues(**cell))
    read = "tile" if verdicts.tile[-1] else "empty" if verdicts.empty[-1] else "uncertain"
    assert read == verdict
    assert not verdicts.tile[:-1].any() and verdicts.empty[:-1].all()


def _frame_like_a_pale_print(**cell) -> Cues:
    """Cues of a clean frame of 60 bare cells scattered as a training-world matched print's
    (correlation 0.95 +- 0.007, edge strength 1.07 +- 0.06, brightness -0.06 +- 0.03) and,
    last, one cell 7 of that scatter below them with the edge strength and brightness given."""
    rng = np.random.default_rng(1)
    structure = 0.95 + rng.normal(0, 0.007, 61)
    energy = 1.07 + rng.normal(0, 0.06, 61)
    brightness = -0.06 + rng.normal(0, 0.03, 61)
    structure[-1], energy[-1], brightness[-1] = 0.90, cell["energy"], cell["brightness"]
    return Cues(0.95 - structure, structure, energy, np.full(61, 1.0), brightness, np.zeros(61),
                np.zeros(61, bool), structure.copy(), np.zeros(61, bool))


@pytest.mark.parametrize("cell, verdict", [
    ({"energy": 0.85, "brightness": 0.06}, "uncertain"),    # a paler label, a lighter body
    ({"energy": 0.78, "brightness": -0.06}, "uncertain"),   # ... its body the board's
    ({"energy": 1.07, "brightness": -0.06}, "empty"),       # the board's edges and light
])
def test_a_cell_a_little_off_the_bare_cells_with_paler_edges_or_a_lighter_body_is_doubted(
        cell, verdict):
    verdicts = decide(_frame_like_a_pale_print(**cell))
    read = "tile" if verdicts.tile[-1] else "empty" if verdicts.empty[-1] else "uncertain"
    assert read == verdict
    assert verdicts.empty[:-1].sum() >= 59


def test_tiles_printed_like_a_dark_board_with_a_paler_label_are_doubted_not_read_empty():
    # bench/vision.py's training world, seed 7, its second quadrant table (matched print on a
    # dark board): its first frame, clean, read 8 of its 43 tiles as bare board.
    bench = _bench_vision()
    table = bench.world_table("training", "acquisitions", 7021, {}, 9)
    calibration = bench.calibrated(table, "acquisitions", {}, 8)
    frame = _bench_frame(table, calibration.layout.size, np.random.default_rng([7, 7021]),
                         Nuisances.none())
    seen = Recognizer(calibration).read(frame.image)
    assert not seen.occupied - frame.truth.occupied
    assert len(frame.truth.occupied - seen.occupied - seen.uncertain) <= 5


def _bench_frame(table, size: int, rng: np.random.Generator, nuisances: Nuisances):
    """A frame as bench/vision.py draws one of a table's: up to 45% of the cells hold a tile,
    a few of them turned face down."""
    cells = rng.choice(size, int(size * rng.uniform(0.0, 0.45)), replace=False)
    tiles = {int(c): ("dead" if rng.random() < 0.05 else None) for c in cells}
    return render(table, tiles, rng, nuisances)


def _bench_vision():
    """bench/vision.py as a module (its tables and frame conditions), without putting bench/
    on sys.path."""
    path = Path(__file__).resolve().parents[2] / "bench" / "vision.py"
    spec = importlib.util.spec_from_file_location("bench_vision_printed", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module          # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_a_glare_spots_rim_on_a_bare_cell_is_no_printed_tile():
    # bench/vision.py's tuning world, seed 0, table 1: in its frame 16 a glare spot that burns
    # nothing out lies on the dark board's 8H (read as a tile before this rule as after); its
    # rim crosses the bare 9H, far off the clean frame's bare cells, middle and all.
    bench = _bench_vision()
    table = bench.world_table("tuning", "acquire", 1, {}, 1)
    calibration = bench.calibrated(table, "acquire", {}, 1)
    rng = np.random.default_rng([0, 1])
    size = calibration.layout.size
    warm = Recognizer(calibration)
    for number in range(17):     # the benchmark's frames of this table, read as it reads them
        condition, nuisances = bench.CONDITIONS[number % len(bench.CONDITIONS)]
        frame = _bench_frame(table, size, rng, nuisances)
        seen = (Recognizer(calibration) if any(frame.scene.bump) else warm).read(frame.image)
    assert condition == "glare" and frame.truth.clear
    labels = table.layout.geometry.labels
    assert "9H" in [labels[c] for c in seen.uncertain]   # the premise: 9H far off, doubted
    assert "9H" not in [labels[c] for c in seen.occupied]
