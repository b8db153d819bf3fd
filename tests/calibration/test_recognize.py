"""Recognition: which cells hold a tile, and whether anything is over the board, frame by frame.

Frames are rendered with every nuisance of the issue, one at a time at full
strength (continuous ones at 1.0, events with probability 1), for each
layout, and read by a :class:`Recognizer` made from the layout's calibration.
The contract checked on a frame whose board is truly clear: ``occupied``
never holds an empty cell, and a tile is never left out unless it is listed
as ``uncertain`` (and not much of the board may be). A frame with a hand
over the board is never ``clear``.
"""

from __future__ import annotations

import dataclasses
import json

import cv2
import numpy as np
import pytest

from calibration.warp import project
from calibration.pose import CONFIRM
from calibration.recognize import Observation, Recognizer
from calibration.synthetic.render import TILE_STYLES, render, render_scene, view_of
from calibration.synthetic.scenes import SLEEVES, Glare, Nuisances, Scene, cup_over_marker, random_hand

LAYOUTS = ["square", "hex-odd", "quadrant"]
#: Frames per layout and nuisance (a handful: each costs a render and a read).
FRAMES = 2
#: At most this share of the cells may be uncertain on a clear frame.
UNCERTAIN_SHARE = 0.10
#: Nuisances that change only the light or the camera: the board stays clear.
LIGHT_AND_CAMERA = ("lighting", "gradient", "glare", "noise", "blur", "jpeg", "bump")
NUISANCES = LIGHT_AND_CAMERA + ("shadow", "marker_cover")


def random_tiles(layout_size: int, rng: np.random.Generator) -> list[int]:
    """A board some way into a game: 10-35% of the cells hold a tile."""
    count = int(layout_size * rng.uniform(0.10, 0.35))
    return sorted(int(c) for c in rng.choice(layout_size, count, replace=False))


def problems(setup, observation: Observation, truth, name: str = "") -> list[str]:
    """The contract on a clear frame, as readable complaints (empty if it holds)."""
    labels = setup.labels
    found = []
    false = sorted(observation.occupied - truth.occupied)
    missed = sorted(truth.occupied - observation.occupied - observation.uncertain)
    if false:
        found.append(f"{name}: empty cells read as tiles: {[labels[c] for c in false]}")
    if missed:
        found.append(f"{name}: tiles neither seen nor doubted: {[labels[c] for c in missed]}")
    if len(observation.uncertain) > UNCERTAIN_SHARE * len(labels):
        found.append(f"{name}: {len(observation.uncertain)} of {len(labels)} cells uncertain")
    return found


def nuisance_params():
    for layout in LAYOUTS:
        for name in NUISANCES:
            marks = XFAIL_NUISANCE.get((layout, name), ())
            yield pytest.param(layout, name, marks=marks, id=f"{layout}-{name}")


#: Known defects (see the reasons), by (layout, nuisance).
XFAIL_NUISANCE: dict = {}


@pytest.mark.parametrize("layout, nuisance", list(nuisance_params()))
def test_clear_frames_are_read_right_under_each_nuisance(vision, layout, nuisance):
    setup = vision.setup(layout)
    rng = np.random.default_rng([LAYOUTS.index(layout), NUISANCES.index(nuisance)])
    found, read = [], 0
    recognizer = None
    for k in range(FRAMES):
        tiles = random_tiles(setup.calibration.layout.size, rng)
        frame = render(setup.table, tiles, rng, Nuisances(**{nuisance: 1.0}))
        if recognizer is None or nuisance == "bump":
            # Each bumped frame is a board knocked somewhere else: read it as `recognize`
            # does, afresh. (Made only when needed: a Recognizer's set-up costs a frame's read.)
            recognizer = Recognizer(setup.calibration)
        seen = recognizer.read(frame.image)
        if not frame.truth.clear:
            continue  # (a hand over a marker may reach the grid)
        read += 1
        found += problems(setup, seen, frame.truth, f"frame {k}")
        if nuisance in LIGHT_AND_CAMERA and not seen.clear:
            found.append(f"frame {k}: a clear board read as not clear ({nuisance})")
    assert read >= 1
    assert found == []


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_hand_over_the_board_is_never_clear(vision, layout):
    setup = vision.setup(layout)
    rng = np.random.default_rng([LAYOUTS.index(layout), 99])
    recognizer = Recognizer(setup.calibration)
    over, wrong = 0, []
    while over < 3:
        frame = render(setup.table, random_tiles(setup.calibration.layout.size, rng), rng,
                       Nuisances(hand=1.0))
        seen = recognizer.read(frame.image)
        if frame.truth.clear:
            continue  # a hand beside the grid
        over += 1
        if seen.clear:
            wrong.append(f"hand at {tuple(round(v) for v in frame.scene.hands[0].grip)} over "
                         f"{len(frame.truth.covered)} cells read as clear")
    assert wrong == []


#: Known defects (see the reasons), by layout.
XFAIL_LOW_CONTRAST: dict = {}


@pytest.mark.parametrize("layout", [pytest.param(name, marks=XFAIL_LOW_CONTRAST.get(name, ()))
                                    for name in LAYOUTS])
def test_low_contrast_tiles_are_seen(vision, layout):
    # Tiles within 5% of the board's own colour, on every third cell: a third of the labels.
    setup = vision.setup(layout)
    tiles = {cell: "low_contrast" for cell in range(1, setup.calibration.layout.size, 3)}
    frame = render(setup.table, tiles, np.random.default_rng(7), Nuisances.mild())
    seen = Recognizer(setup.calibration).read(frame.image)
    assert frame.truth.clear and seen.clear
    assert problems(setup, seen, frame.truth, "low contrast") == []


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_still_board_is_not_read_again_but_any_new_tile_is(vision, layout):
    # A stream of the same idle board is read in full once; then a low-contrast
    # tile appears with nothing else changed (the least a thumbnail can see) and
    # the very next frame reads it. Every frame has its own sensor noise.
    setup = vision.setup(layout)
    rng = np.random.default_rng(9)
    size = setup.calibration.layout.size
    before = list(range(2, size, 7))
    recognizer = Recognizer(setup.calibration)
    for _ in range(4):
        # Checked against the truth of the very frame read (not a second, noiseless render).
        frame = render(setup.table, before, rng, Nuisances(noise=1.0))
        seen = recognizer.read(frame.image)
        assert frame.truth.clear and problems(setup, seen, frame.truth) == []
    assert recognizer._reused >= 2, "an idle board's frames were each read in full"
    for new in (size // 2, size // 3 + 1):
        tiles = {**{c: None for c in before}, new: "low_contrast"}
        frame = render(setup.table, tiles, rng, Nuisances(noise=1.0))
        seen = recognizer.read(frame.image)
        assert new in seen.occupied | seen.uncertain, setup.labels[new]
        assert problems(setup, seen, frame.truth) == []
        before.append(new)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_tiles_of_every_style_and_face_down_ones_are_seen(vision, layout):
    setup = vision.setup(layout)
    styles = [style for style in TILE_STYLES if style != "low_contrast"] + ["dead"]
    tiles = {cell: styles[k % len(styles)]
             for k, cell in enumerate(range(0, setup.calibration.layout.size, 2))}
    frame = render(setup.table, tiles, np.random.default_rng(9), Nuisances.mild())
    seen = Recognizer(setup.calibration).read(frame.image)
    assert frame.truth.clear and seen.clear
    assert problems(setup, seen, frame.truth, "styles") == []


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_glare_spot_on_an_empty_cell_is_not_a_tile(vision, layout):
    setup = vision.setup(layout)
    layout_ = setup.calibration.layout
    cells = [layout_.size // 2, layout_.size // 3]
    tiles = [c for c in range(0, layout_.size, 7) if c not in cells]
    unit = vision.pixels_per_unit(setup.table)
    spots = tuple(Glare(centre=tuple(float(v) for v in setup.empty.truth.centres[c]),
                        axes=(0.6 * unit, 0.4 * unit), angle=0.5, intensity=230.0) for c in cells)
    frame = render_scene(setup.table, tiles, Scene(glare=spots), np.random.default_rng(2))
    seen = Recognizer(setup.calibration).read(frame.image)
    assert frame.truth.clear and seen.clear
    assert problems(setup, seen, frame.truth, "glare") == []


def test_a_burnt_out_empty_cell_is_doubted_not_read_as_a_tile(vision):
    # A specular highlight that burns the print of empty cells out (added to the photo
    # itself, saturating): they cannot be read, so uncertain is right, a tile is wrong.
    setup = vision.setup("hex-odd")
    layout_ = setup.calibration.layout
    cells = [layout_.size // 2, layout_.size // 3, layout_.size // 5]
    tiles = [c for c in range(0, layout_.size, 7) if c not in cells]
    frame = render(setup.table, tiles, np.random.default_rng(5))
    unit = vision.pixels_per_unit(setup.table)
    spot = np.zeros(frame.image.shape[:2], np.float32)
    for c in cells:
        x, y = (int(round(v)) for v in setup.empty.truth.centres[c])
        cv2.circle(spot, (x, y), int(0.3 * unit), 1.0, -1)
    spot = cv2.GaussianBlur(spot, (0, 0), 0.15 * unit) * 255
    image = cv2.add(frame.image, cv2.cvtColor(spot.astype(np.uint8), cv2.COLOR_GRAY2BGR))
    seen = Recognizer(setup.calibration).read(image)
    assert seen.clear
    assert not seen.occupied & set(cells), [setup.labels[c] for c in seen.occupied & set(cells)]
    assert set(cells) <= seen.uncertain
    assert problems(setup, seen, frame.truth, "burnt out") == []


@pytest.mark.parametrize("layout", ["hex-odd", "hex-even"])
def test_low_contrast_tiles_on_the_bottom_rows_of_a_hex_board_are_never_empty(vision, layout):
    # Their bold labels line up with the board's printed ones: the edges still correlate
    # well, but their light and edge strength do not match the empty cells'.
    setup = vision.setup(layout)
    size = setup.calibration.layout.size
    tiles = {cell: "low_contrast" for cell in range(size - 26, size)}
    frame = render(setup.table, tiles, np.random.default_rng(11), Nuisances.mild())
    seen = Recognizer(setup.calibration).read(frame.image)
    missed = set(tiles) - seen.occupied - seen.uncertain
    assert missed == set(), [setup.labels[c] for c in sorted(missed)]


@pytest.mark.parametrize("sleeve", [SLEEVES[0], SLEEVES[3], SLEEVES[4]])
def test_an_arm_from_the_hex_boards_bottom_edge_is_not_clear(vision, sleeve):
    # The ring below a hex board's last row is a thin strip: an arm crossing it alone
    # (dark, grey or green sleeve over the green board) must still be seen.
    setup = vision.setup("hex-odd")
    view = view_of(setup.table)
    rng = np.random.default_rng(21)
    recognizer = Recognizer(setup.calibration)
    size = setup.calibration.layout.size
    for target in (size - 20, size - 60, size // 2):
        hand = random_hand(view, view.centres[target], rng, edge=2)
        hand = dataclasses.replace(hand, sleeve=sleeve)
        frame = render_scene(setup.table, [1, 40, 90], Scene(hands=(hand,)), rng)
        assert not frame.truth.clear
        seen = recognizer.read(frame.image)
        assert not seen.clear, f"arm to {setup.labels[target]} ({sleeve} sleeve) read clear"


def arm_frame(setup, sleeve, k: int, scene: Scene):
    """Frame ``k`` of a seeded series: an arm in ``sleeve`` reaching a random cell, into ``scene``."""
    view = view_of(setup.table)
    rng = np.random.default_rng([31, k])
    target = int(rng.integers(setup.calibration.layout.size))
    hand = dataclasses.replace(random_hand(view, view.centres[target], rng), sleeve=sleeve)
    frame = render_scene(setup.table, [1, 5, 9, 40], dataclasses.replace(scene, hands=(hand,)), rng)
    return frame, setup.labels[target]


#: (layout, board print or None for the layout's own, sleeve, frames of ``arm_frame``):
#: a sleeve the board's colour, which the ring around the grid barely tells from the board.
SAME_COLOUR = [("quadrant", None, SLEEVES[7], (11, 22)),     # blue on the navy board
               ("square", "grey", SLEEVES[3], (2, 14)),      # grey on the grey board
               ("hex-odd", None, SLEEVES[4], (2, 22))]       # green on the green board


@pytest.mark.parametrize("layout, palette, sleeve, frames", SAME_COLOUR,
                         ids=[f"{layout}-{palette or 'own'}" for layout, palette, *_ in SAME_COLOUR])
def test_a_sleeve_the_colour_of_the_board_is_not_clear(vision, layout, palette, sleeve, frames):
    # The printed borders between the cells it lies over vanish (a tile leaves them showing).
    setup = vision.setup(layout, **({"palette": palette} if palette else {}))
    recognizer = Recognizer(setup.calibration)
    for k in frames:
        frame, label = arm_frame(setup, sleeve, k, Scene())
        assert not frame.truth.clear
        assert not recognizer.read(frame.image).clear, f"arm to {label} read clear (frame {k})"


@pytest.mark.parametrize("layout, frames", [("square", (2, 14)), ("hex-even", (10, 22))])
def test_a_light_sleeve_over_a_dark_board_in_a_dim_room_is_not_clear(vision, layout, frames):
    # Both boards are black. Brighter alone is no arm on the ring (glare is brighter too),
    # and a dim light pales every colour: only the hidden borders tell.
    setup = vision.setup(layout)
    dim = Scene(brightness=0.55, noise=4.0)
    recognizer = Recognizer(setup.calibration)
    empty = render_scene(setup.table, [1, 5, 9, 40], dim, np.random.default_rng(3))
    assert recognizer.read(empty.image).clear, "the dim board without an arm read not clear"
    for k in frames:
        frame, label = arm_frame(setup, SLEEVES[6], k, dim)
        assert not frame.truth.clear
        assert not recognizer.read(frame.image).clear, f"arm to {label} read clear (frame {k})"


def grid_error(recognizer, truth) -> float:
    layout = recognizer.calibration.layout
    return float(np.linalg.norm(project(recognizer.poses.matrix, layout.centres) - truth.centres,
                                axis=1).max())


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_bumped_board_is_followed_and_read_right(vision, layout):
    setup = vision.setup(layout)
    table, recognizer = setup.table, Recognizer(setup.calibration)
    cells = setup.calibration.layout.size
    tiles = list(range(1, cells, 5))
    rng = np.random.default_rng(4)
    for _ in range(2):
        recognizer.read(render(table, tiles, rng).image)
    knock = (0.25, 0.15, 1.5)
    # One frame mid-jolt, smeared by the motion (as sequences draw it), then the board at rest.
    jolt = render_scene(table, tiles, Scene(bump=tuple(v / 2 for v in knock), motion=(6.0, 0.5)),
                        rng)
    recognizer.read(jolt.image)
    states = []
    for k in range(CONFIRM + 2):
        frame = render_scene(table, tiles, Scene(bump=knock), rng)
        seen = recognizer.read(frame.image)
        states.append(seen.pose)
    assert states[-1] == "tracking", states
    error = grid_error(recognizer, frame.truth)
    assert error <= 4.0, f"the grid is {error:.1f} px off"
    assert seen.clear and problems(setup, seen, frame.truth, "bumped") == []


def test_one_wild_detection_does_not_move_the_grid(vision):
    setup = vision.setup("square")
    table, recognizer = setup.table, Recognizer(setup.calibration)
    rng = np.random.default_rng(8)
    tiles = ["5C", "6D", "12I"]
    for _ in range(2):
        still = render(table, tiles, rng)
        assert recognizer.read(still.image).clear
    before = recognizer.poses.matrix.copy()
    wild = render_scene(table, tiles, Scene(bump=(0.5, -0.3, 3.0)), rng)
    seen = recognizer.read(wild.image)
    assert seen.pose == "moving" and not seen.clear
    assert np.allclose(recognizer.poses.matrix, before)
    back = render(table, tiles, rng)
    seen = recognizer.read(back.image)
    assert seen.clear and seen.pose == "tracking"
    error = grid_error(recognizer, back.truth)
    assert error <= 3.0, f"the grid is {error:.1f} px off"
    assert problems(setup, seen, back.truth, "after") == []


@pytest.mark.parametrize("hidden", [(1,), (0, 2), (0, 1, 2, 3)])
def test_with_markers_hidden_the_last_pose_is_kept(vision, hidden):
    setup = vision.setup("quadrant")
    table, recognizer = setup.table, Recognizer(setup.calibration)
    rng = np.random.default_rng(len(hidden))
    tiles = list(range(0, setup.calibration.layout.size, 6))
    recognizer.read(render(table, tiles, rng).image)
    cups = tuple(cup_over_marker(view_of(table), marker_id, rng) for marker_id in hidden)
    frame = render_scene(table, tiles, Scene(cups=cups), rng)
    assert frame.truth.hidden_markers == set(hidden) and frame.truth.clear
    seen = recognizer.read(frame.image)
    assert seen.markers == 4 - len(hidden)
    if len(hidden) == 4:
        assert seen.pose == "held"
    error = grid_error(recognizer, frame.truth)
    assert error <= 3.0, f"the grid is {error:.1f} px off"
    assert problems(setup, seen, frame.truth, f"markers {hidden} hidden") == []


XFAIL_RETURN: dict = {}


@pytest.mark.parametrize("layout", [pytest.param(name, marks=XFAIL_RETURN.get(name, ()))
                                    for name in LAYOUTS])
def test_markers_that_come_back_are_used_again(vision, layout):
    # Cups hide three markers for a frame, then are lifted while the room's light changes:
    # the frames after must read as well as a fresh recognizer (all four markers) reads them.
    setup = vision.setup(layout)
    table, recognizer = setup.table, Recognizer(setup.calibration)
    rng = np.random.default_rng(4)
    tiles = list(range(0, setup.calibration.layout.size, 4))
    recognizer.read(render(table, tiles, rng).image)
    cups = tuple(cup_over_marker(view_of(table), marker_id, rng) for marker_id in (1, 2, 3))
    assert recognizer.read(render_scene(table, tiles, Scene(cups=cups), rng).image).markers == 1
    found = []
    for k, scene in enumerate([Scene(brightness=1.2, cast=(1.08, 1.0, 0.95)),
                               Scene(brightness=0.8), Scene(brightness=1.1)]):
        frame = render_scene(table, tiles, scene, rng)
        seen = recognizer.read(frame.image)
        fresh = Recognizer(setup.calibration).read(frame.image)
        assert fresh.markers == 4
        worse = {kind: cells - vision.cell_errors(fresh, frame.truth)[kind]
                 for kind, cells in vision.cell_errors(seen, frame.truth).items()}
        more_doubt = len(seen.uncertain) - len(fresh.uncertain)
        if any(worse.values()) or more_doubt > 0.05 * len(setup.labels):
            names = {kind: [setup.labels[c] for c in sorted(cells)] for kind, cells in worse.items()}
            found.append(f"frame {k}, {seen.markers} marker(s) used: wrong beyond a fresh "
                         f"reading: {names}, {more_doubt} more cells uncertain")
    assert found == []


def test_a_frame_too_blurred_to_read_is_doubted_not_guessed(vision):
    setup = vision.setup("square")
    tiles = ["1A", "5C", "6C", "7C", "12I"]
    frame = render(setup.table, tiles, np.random.default_rng(3))
    smeared = cv2.GaussianBlur(frame.image, (0, 0), 9)
    seen = Recognizer(setup.calibration).read(smeared)
    assert vision.cell_errors(seen, frame.truth) == {"false": set(), "missed": set()}
    assert len(seen.uncertain) >= len(tiles)  # doubted, every one of them at least


def test_the_observation_gives_the_recognize_fields_in_board_order(vision):
    setup = vision.setup("square")
    frame = render(setup.table, ["12I", "5C", "1A"], np.random.default_rng(6))
    seen = Recognizer(setup.calibration).read(frame.image)
    fields = seen.labels(setup.calibration)
    assert fields == {"occupied": ["1A", "5C", "12I"], "uncertain": [], "markers": 4,
                      "clear": True}
    assert json.loads(json.dumps(fields)) == fields
    assert seen.pose == "tracking" and seen.reading.clear
