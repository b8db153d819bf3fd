"""The renderer: frames of each board with ground truth that matches what is drawn."""

import json
from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration.markers import detect_markers
from calibration.synthetic.render import (FRAME_SIZE, PALETTES, TILE_STYLES, Table, frame_truth,
                                make_table, render, render_empty, render_scene, tile_look)
from calibration.synthetic.scenes import Cup, Hand, Nuisances, Scene
from calibration.synthetic.sequences import (WARN_EXTRA, WARN_MOVED, WARN_REMOVED, Bump, HideMarkers,
                                   Lamp, Lean, Move, Place, PlaceTwo, Remove, Sequence, Wait,
                                   random_steps, render_sequence, write_frames)

# One table per board layout, each with a different tile style (the fixtures are shared:
# a table's first frame draws its board and camera map, which takes the most time).
TABLES = {
    "acquire": dict(rules="acquire", seed=11, tile_style="ivory"),
    "megacquire-gold": dict(rules="megacquire-gold", seed=12, tile_style="low_contrast"),
    "acquisitions": dict(rules="acquisitions", seed=13, tile_style="dark"),
}


@pytest.fixture(scope="module", params=sorted(TABLES))
def table(request):
    return make_table(**TABLES[request.param])


@pytest.fixture(scope="module")
def acquire():
    return make_table(**TABLES["acquire"])


def patch_difference(a, b, centre, radius):
    x, y = np.rint(centre).astype(int)
    window = np.s_[y - radius:y + radius + 1, x - radius:x + radius + 1]
    return float(np.abs(a[window].astype(int) - b[window].astype(int)).mean())


def cell_pixels(table):
    """Pixels per board unit about the board."""
    corners = table.project(table.layout.corner_points())
    units = np.linalg.norm(table.layout.corner_points()[1] - table.layout.corner_points()[0])
    return np.linalg.norm(corners[1] - corners[0]) / units


def test_frames_are_1280_by_960_bgr(table):
    frame = render(table, {}, np.random.default_rng(0))
    assert table.size == FRAME_SIZE == (1280, 960)
    assert frame.image.shape == (960, 1280, 3) and frame.image.dtype == np.uint8
    truth = frame.truth
    assert truth.centres.shape == (table.layout.size, 2)
    assert truth.clear and not truth.covered and not truth.occupied
    assert truth.pose.shape == (3, 3)


def test_the_grid_fills_most_of_the_frame_and_the_markers_lie_outside_it(table):
    truth = render(table, {}, np.random.default_rng(0)).truth
    outline = table.project(table.layout.outline())
    fill = max(np.ptp(outline[:, 0]) / 1280, np.ptp(outline[:, 1]) / 960)
    assert 0.55 <= fill <= 0.9
    grid = cv2.convexHull(outline.astype(np.float32))
    for quad in truth.markers.values():
        assert quad.min() > 0 and quad[:, 0].max() < 1280 and quad[:, 1].max() < 960
        for corner in quad:
            assert cv2.pointPolygonTest(grid, tuple(float(v) for v in corner), False) < 0


def test_truth_centres_are_where_the_tiles_are_drawn(table):
    rng = np.random.default_rng(1)
    empty = render(table, {}, rng).image
    corners = list(table.layout.geometry.corners())
    middle = table.layout.size // 2 + 3
    tiles = {cell: None for cell in corners + [middle]}
    frame = render(table, tiles, rng)
    assert frame.truth.occupied == frozenset(tiles)
    radius = max(3, int(0.3 * cell_pixels(table)))
    step = np.array([table.layout.cell_radius * 2, 0])
    for cell in tiles:
        centre = frame.truth.centres[cell]
        here = patch_difference(frame.image, empty, centre, radius)
        assert here > 3.0, (table.layout.geometry.labels[cell], here)
    # A cell away from every tile looks the same with or without them.
    lone = table.layout.centres[middle] + 2 * step
    assert patch_difference(frame.image, empty, table.project(lone), radius) < 1.0
    # The tile is centred on its truth centre: the change is symmetric about it.
    diff = np.abs(frame.image.astype(int) - empty.astype(int)).sum(axis=2)
    x, y = np.rint(frame.truth.centres[middle]).astype(int)
    half = int(0.6 * cell_pixels(table))
    window = diff[y - half:y + half + 1, x - half:x + half + 1] > 10
    ys, xs = np.nonzero(window)
    assert abs(xs.mean() - half) < 0.08 * half and abs(ys.mean() - half) < 0.08 * half


def test_markers_are_detected_in_clean_renders_where_the_truth_says(table):
    frame = render_empty(table, np.random.default_rng(2))
    found = detect_markers(frame.image)
    assert sorted(found) == [0, 1, 2, 3]
    for marker_id, quad in found.items():
        assert np.abs(quad - frame.truth.markers[marker_id]).max() < 1.5
    assert not frame.truth.hidden_markers
    assert frame.truth.corners == pytest.approx(frame.truth.centres[list(table.layout.geometry.corners())])


def test_a_hand_over_the_board_is_not_clear_and_covers_its_cells(table):
    target = table.layout.size // 2
    centre = render(table, {}, np.random.default_rng(0)).truth.centres[target]
    hand = Hand(grip=tuple(centre), angle=np.pi / 2, width=3.3 * cell_pixels(table))
    frame = render_scene(table, {target: None}, Scene(hands=(hand,)), np.random.default_rng(0))
    assert not frame.truth.clear
    assert target in frame.truth.covered
    assert 4 < len(frame.truth.covered) < table.layout.size / 2
    # The hand is drawn where the truth says: skin at the grip point.
    b, g, r = frame.image[int(centre[1]), int(centre[0])].astype(int)
    assert r > g > b
    # A hand reaching in at a frame corner, away from the grid, leaves the board clear.
    corner_hand = Hand(grip=(50.0, 920.0), angle=-np.pi / 4, width=150.0)
    frame = render_scene(table, {}, Scene(hands=(corner_hand,)), np.random.default_rng(0))
    assert frame.truth.clear and not frame.truth.covered


def test_a_cup_on_a_marker_hides_it_but_leaves_the_board_clear(acquire):
    truth = render(acquire, {}, np.random.default_rng(0)).truth
    quad = truth.markers[1]
    grid_centre = truth.centres.mean(axis=0)
    away = quad.mean(axis=0) - grid_centre
    away /= np.linalg.norm(away)
    side = np.linalg.norm(quad[1] - quad[0])
    cup = Cup(centre=tuple(quad.mean(axis=0) + away * side * 0.6), radius=float(side * 0.8))
    frame = render_scene(acquire, {}, Scene(cups=(cup,)), np.random.default_rng(0))
    assert frame.truth.hidden_markers == {1}
    assert frame.truth.clear
    assert 1 not in detect_markers(frame.image)


def test_rendering_is_deterministic_for_a_seed(acquire):
    tiles = {"5C": None, "6C": "Tower", "9I": "dead", "1A": "glossy"}
    a = render(acquire, tiles, np.random.default_rng(7), Nuisances.all(events=1.0))
    b = render(acquire, tiles, np.random.default_rng(7), Nuisances.all(events=1.0))
    c = render(acquire, tiles, np.random.default_rng(8), Nuisances.all(events=1.0))
    assert np.array_equal(a.image, b.image)
    assert a.scene == b.scene
    assert not np.array_equal(a.image, c.image)
    assert sorted(a.truth.occupied_labels) == ["1A", "5C", "6C", "9I"]
    assert make_table("acquire", seed=5) == make_table("acquire", seed=5)


@pytest.mark.parametrize("name", Nuisances().__dataclass_fields__)
def test_each_nuisance_can_be_switched_on_alone(acquire, name):
    clean = render(acquire, {"5C": None}, np.random.default_rng(3)).image
    frame = render(acquire, {"5C": None}, np.random.default_rng(3), Nuisances(**{name: 1.0}))
    assert frame.image.shape == clean.shape
    assert not np.array_equal(frame.image, clean)
    assert Nuisances(**{name: 0.5}).active() == (name,)


def test_a_bump_moves_the_board_and_its_markers_with_it(acquire):
    scene = Scene(bump=(0.3, -0.2, 2.5))
    frame = render_scene(acquire, {"6E": None}, scene, np.random.default_rng(0))
    still = render(acquire, {"6E": None}, np.random.default_rng(0))
    moved = np.linalg.norm(frame.truth.centres - still.truth.centres, axis=1)
    assert moved.min() > 5
    found = detect_markers(frame.image)
    assert sorted(found) == [0, 1, 2, 3]
    for marker_id, quad in found.items():
        assert np.abs(quad - frame.truth.markers[marker_id]).max() < 1.5
    cell = acquire.layout.cell("6E")
    assert patch_difference(frame.image, still.image, frame.truth.centres[cell], 6) > 3
    assert frame.truth.pose == pytest.approx(acquire.pose((0.3, -0.2, 2.5)))


def test_frame_truth_matches_render_truth_without_drawing(acquire):
    target = acquire.layout.cell("7D")
    centre = acquire.project(acquire.layout.centres[target])
    scene = Scene(hands=(Hand(grip=tuple(centre), angle=0.3, width=250.0),))
    drawn = render_scene(acquire, {target: None}, scene, np.random.default_rng(0)).truth
    planned = frame_truth(acquire, {target: None}, scene)
    assert planned.clear == drawn.clear is False
    assert planned.covered == drawn.covered


def test_tile_styles_and_labels():
    assert {"ivory", "dark", "low_contrast", "glossy"} <= set(TILE_STYLES)
    for palette in PALETTES.values():
        look = tile_look("low_contrast", palette)
        board = np.asarray(palette.board, float)
        assert np.abs(np.asarray(look.body) - board).max() <= 0.05 * 255
        assert tile_look("glossy", palette).gloss > tile_look("ivory", palette).gloss
    with pytest.raises(ValueError):
        tile_look("velvet", PALETTES["grey"])


def test_tables_are_described_by_their_fields():
    table = make_table("megacquire-gold", seed=2, options={"hex_offset": "even-r"},
                       tile_style="glossy", k1=-0.1, palette="gold")
    assert isinstance(table, Table) and hash(table) == hash(replace(table))
    assert table.geometry.offset == "even-r" and table.layout.kind == "hex"
    assert table.tile_style == "glossy" and table.k1 == -0.1 and table.palette == "gold"
    assert len(table.markers) == 4 and sorted(m.marker_id for m in table.markers) == [0, 1, 2, 3]
    # The lens model is OpenCV's: projectPoints of the camera agrees with project().
    points = table.layout.corner_points()
    ideal = cv2.perspectiveTransform(points[None], table.H)[0]
    rays = np.column_stack([(ideal - table.principal) / table.focal, np.ones(4)])
    opencv, _ = cv2.projectPoints(rays, np.zeros(3), np.zeros(3), table.camera_matrix(),
                                  table.dist_coeffs())
    assert table.project(points) == pytest.approx(opencv.reshape(4, 2), abs=1e-6)
    assert table.undistort(table.distort(ideal)) == pytest.approx(ideal, abs=1e-6)


# --- sequences ---------------------------------------------------------------------------

def test_a_sequence_places_tiles_under_the_hand_in_order(acquire):
    rng = np.random.default_rng(4)
    sequence = render_sequence(acquire, ["5C", Place("6D"), Remove("5C")], rng,
                               initial={"1A": None})
    assert isinstance(sequence, Sequence) and len(sequence) == len(sequence.states)
    assert [e.labels for e in sequence.placements] == [("5C",), ("6D",)]
    assert [e.warning for e in sequence.events] == [None, None, WARN_REMOVED]
    first = sequence.states[0]
    assert first.clear and dict(first.occupied) == {acquire.layout.cell("1A"): None}
    previous_end = 0
    for event in sequence.events:
        assert previous_end <= event.start < event.change < event.clear_from < event.end
        previous_end = event.end
        # The tile changes while the hand covers the cell ...
        at_change = sequence.frame(event.change).truth
        cell = event.cells[0]
        assert not at_change.clear and cell in at_change.covered
        assert (cell in at_change.occupied) == (event.kind == "place")
        # ... the hand has left the board at clear_from and not a frame earlier ...
        assert sequence.frame(event.clear_from).truth.clear
        assert not sequence.frame(event.clear_from - 1).truth.clear
        # ... and the board stays clear for at least a second after.
        assert event.end - event.clear_from >= sequence.fps
        assert all(state.clear for state in sequence.states[event.clear_from:event.end])
    assert sequence.frame(len(sequence) - 1).truth.occupied_labels == {"1A", "6D"}


def test_anomalies_carry_their_expected_warnings(acquire):
    rng = np.random.default_rng(5)
    steps = [PlaceTwo(("2B", "9G")), Move("2B", "3B"), Lamp(0.6), Lean(1.0), Bump((0.2, 0.1, 1.5)),
             HideMarkers((0, 2), 1.0), Wait(0.5)]
    sequence = render_sequence(acquire, steps, rng)
    kinds = [(e.kind, e.warning) for e in sequence.events]
    assert kinds == [("place_two", WARN_EXTRA), ("move", WARN_MOVED), ("lamp", None),
                     ("lean", None), ("bump", None), ("hide_markers", None), ("wait", None)]
    lamp, lean, bump, hide = sequence.events[2:6]
    before = sequence.states[lamp.change - 1].scene.brightness
    assert sequence.states[lamp.end - 1].scene.brightness == pytest.approx(before * 0.6, rel=0.02)
    assert any(state.scene.shadows for state in sequence.states[lean.start:lean.end])
    assert all(state.clear for state in sequence.states[lean.start:lean.end])
    assert sequence.states[bump.end - 1].scene.bump == pytest.approx((0.2, 0.1, 1.5))
    hidden = sequence.frame(hide.start).truth
    assert hidden.hidden_markers == {0, 2} and hidden.clear
    assert sequence.frame(len(sequence) - 1).truth.occupied_labels == {"3B", "9G"}
    with pytest.raises(ValueError):
        render_sequence(acquire, [Remove("4E")], rng)
    with pytest.raises(ValueError):
        render_sequence(acquire, ["4E", "4e"], rng)


def test_random_scripts_are_playable(table):
    rng = np.random.default_rng(6)
    steps = random_steps(table, rng, placements=2)
    sequence = render_sequence(table, steps, rng)
    assert len(sequence.placements) >= 2
    assert {e.kind for e in sequence.events} >= {"place", "place_two", "remove", "move", "lamp",
                                                 "lean", "bump", "hide_markers"}


def test_write_frames_writes_pngs_in_frame_order_with_the_truth(tmp_path):
    table = make_table("acquisitions", seed=3, size=(320, 240))
    sequence = render_sequence(table, ["3/C-4"], np.random.default_rng(0), fps=4)
    paths = write_frames(sequence, tmp_path / "frames")
    assert [p.name for p in paths] == [f"frame_{i:05d}.png" for i in range(len(sequence))]
    assert sorted(paths) == paths
    first = cv2.imread(str(paths[0]))
    assert first.shape == (240, 320, 3)
    assert np.array_equal(first, sequence.frame(0).image)  # PNG is lossless
    truth = json.loads((tmp_path / "frames" / "truth.json").read_text())
    assert truth["frames"] == len(sequence) and truth["events"][0]["labels"] == ["3/C-4"]
    assert truth["events"][0]["clear_from"] == sequence.events[0].clear_from


def test_sequence_frames_do_not_depend_on_the_order_they_are_rendered_in():
    # The renderer pastes only the tiles that changed since its last frame: that must not show.
    table = make_table("megacquire-gold", seed=4, size=(320, 240))
    steps = [Place("C-5"), Remove("C-5"), Place("D-7")]
    a = render_sequence(table, steps, np.random.default_rng(9), fps=4)
    b = render_sequence(table, steps, np.random.default_rng(9), fps=4)
    assert [e for e in a.events] == [e for e in b.events]
    picks = [0, a.events[0].clear_from, a.events[1].clear_from, len(a) - 1]
    forward = [a.frame(i).image for i in picks]
    backward = [b.frame(i).image for i in reversed(picks)][::-1]
    assert all(np.array_equal(x, y) for x, y in zip(forward, backward))
    assert next(iter(a)).shape == (240, 320, 3)


def test_a_frame_given_out_is_the_callers_own_to_draw_on(acquire):
    # A plain scene's frame is the canvas's kept camera view itself until it is copied:
    # drawing on the frame given out must not show in the next one.
    tiles = {"5C": None, "6C": None}
    first = render_scene(acquire, tiles, Scene(), np.random.default_rng(0)).image
    kept = first.copy()
    first[:] = 0
    assert np.array_equal(render_scene(acquire, tiles, Scene(), np.random.default_rng(0)).image,
                          kept)


def test_a_player_who_does_not_wait_out_the_pause_cuts_only_its_quiet_frames():
    from calibration.synthetic.livetable import LiveTable

    hurried, patient = (LiveTable.make("acquire", seed=1, size=(320, 240)) for _ in range(2))
    for live in (hurried, patient):
        live.place("5C")
    first = hurried.events[0]
    for _ in range(3):                                  # the hand is in view: nothing to cut
        hurried.next_frame()
    assert hurried.hurry() == 0 and hurried.events[0] == first
    while hurried.position < first.clear_from + 5:      # the hand gone, the board still
        hurried.next_frame()
    cut = hurried.hurry()
    # The quiet frames not shown are gone; the frames shown and the event up to them stay.
    assert cut == first.end - hurried.position > 0 and hurried.planned == 0
    assert hurried.events[0] == replace(first, end=hurried.position)
    assert hurried.hurry() == 0
    # The next player's frames are the very pictures the patient table shows, sooner.
    later = [live.place("6C") for live in (hurried, patient)]
    assert later[0].start == first.end - cut and later[1].start == first.end
    assert [e.end - e.start for e in later] == [later[1].end - later[1].start] * 2
    patient._next = later[1].start
    for _ in range(later[0].end - later[0].start):
        (index, _, image), (_, _, twin) = hurried.next_frame(), patient.next_frame()
        assert np.array_equal(image, twin), index


def test_labels_are_drawn_in_opencv_hershey_strokes():
    # Every synthetic world, and every vision figure this suite holds to, was drawn with the
    # Hershey stroke fonts of OpenCV up to 5.0; OpenCV 5.1 draws other glyphs under the same
    # names, so the same seeds make other tables (pyproject's test extra holds OpenCV below
    # 5.1). The recognizer reads a given image the same under either.
    assert cv2.getTextSize("B-10", cv2.FONT_HERSHEY_SIMPLEX, 1.0, 1) == ((67, 27), 1), (
        f"OpenCV {cv2.__version__} does not draw Hershey text: the synthetic tables differ")


def test_a_live_table_keeps_no_frame_it_has_shown():
    # A demo game of hours shows a frame every tenth of a second: each shown frame's plan
    # is let go, so what the table keeps is only what is planned and not yet shown.
    from calibration.synthetic.livetable import LiveTable

    live = LiveTable.make("acquire", seed=5, size=(320, 240))
    for label in ("1A", "5C", "12I"):
        event = live.place(label)
        while live.position < event.end:
            live.next_frame()
        assert len(live._planner.states) == live.planned == 0
    for _ in range(50):         # an idle table: a quiet frame at a time
        live.next_frame()
    assert len(live._planner.states) == 0 and live.position == event.end + 50
    assert live.tiles == {"1A", "5C", "12I"}


def test_a_hand_takes_as_long_whatever_the_camera_s_rate():
    """A camera giving 5 frames a second sees a hand in half the frames of one giving 10,
    not for twice as long: over a game's placements the reaches, drops and withdrawals last
    about as many seconds at either rate (each is drawn at random: the sums are compared)."""
    from calibration.synthetic.livetable import LiveTable

    labels = [f"{number}{letter}" for number in range(1, 13) for letter in "ACEG"][:24]
    seconds, frames = {}, {}
    for fps in (10.0, 5.0):
        table = LiveTable.make("acquire", seed=1, size=(320, 240), fps=fps)
        events = [table.place(label) for label in labels]
        frames[fps] = sum(event.clear_from - event.start for event in events)
        seconds[fps] = frames[fps] / fps
    assert abs(seconds[5.0] - seconds[10.0]) <= 0.1 * seconds[10.0], seconds
    assert frames[5.0] < 0.6 * frames[10.0], frames
