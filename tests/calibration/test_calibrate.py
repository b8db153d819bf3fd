"""Calibration: the cell grid from four corner-cell centres, the lens, the markers, and the file.

Every layout is calibrated from a rendered photo of its empty board (the
``vision`` fixture, made once per session) and the grid it implies is held
against the renderer's ground truth. The lens's distortion is measured from
the same photo, as a real camera gives nothing else. The file round-trips, and a file that
does not fit (another rule set, board parity or camera, a damaged or newer
file) is refused with a message that says why.
"""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from calibration.calfile import (FORMAT, VERSION, CalibrationError, distort, fold_radius,
                                 load_calibration, undistort)
from calibration.calibrate import calibrate, estimate_k1, parse_corners
from calibration.warp import homography, project
from calibration.markers import MARKER_IDS
from calibration.recognize import Recognizer
from calibration.synthetic.render import make_table, render, render_empty, render_scene, view_of
from calibration.synthetic.scenes import Scene, cup_over_marker

ALL_LAYOUTS = ["square", "hex-odd", "hex-even", "quadrant"]
#: "Within a few pixels" at 1280x960, where a cell is 50-70 pixels across.
GRID_PX = 3.0
#: The renderer's strongest lens (k1 = -0.15): a plain homography through the corner cells
#: misses interior cells by 4.3-4.7 px; with the lens measured, a fraction of a pixel.
STRONG_LENS_PX = 1.0
#: The calibration's k1 against the renderer's (converted to calfile's units): close enough
#: that no cell of the largest board is a quarter of a pixel off for it.
K1_TOLERANCE = 0.01


def grid_error(calibration, centres):
    """Pixels between the calibration's grid (through its four corner centres) and the truth."""
    layout = calibration.layout
    to_pixels = homography(layout.corner_points(), calibration.corners_px)
    return np.linalg.norm(calibration.to_image(to_pixels, layout.centres) - centres, axis=1)


def expected_k1(table) -> float:
    """The renderer's lens in calfile's terms (radius in image widths, not focal lengths)."""
    return table.k1 * (table.size[0] / table.focal) ** 2


@pytest.mark.parametrize("layout", ALL_LAYOUTS)
def test_the_grid_from_the_corner_cells_lies_on_the_cells(vision, layout):
    setup = vision.setup(layout)
    calibration, truth = setup.calibration, setup.empty.truth
    assert calibration.layout.size == len(truth.centres)
    assert calibration.image_size == setup.table.size == (1280, 960)
    error = grid_error(calibration, truth.centres)
    corners = list(calibration.layout.geometry.corners())
    assert error[corners].max() < 0.01  # the tapped corners themselves
    assert error.max() <= GRID_PX, f"worst {setup.labels[int(error.argmax())]}: {error.max():.2f} px"
    # A later frame places the grid from the markers alone, as well.
    frame = render(setup.table, {}, np.random.default_rng(5))
    recognizer = Recognizer(calibration)
    recognizer.read(frame.image)
    seen = calibration.to_image(recognizer.poses.matrix, calibration.layout.centres)
    assert np.linalg.norm(seen - frame.truth.centres, axis=1).max() <= GRID_PX


@pytest.mark.parametrize("layout", ALL_LAYOUTS)
def test_the_grid_holds_through_the_strongest_lens_the_renderer_draws(vision, layout):
    options = vision.LAYOUTS[layout].get("options")
    table = make_table(vision.LAYOUTS[layout]["rules"], seed=5, options=options, k1=-0.15)
    empty = render_empty(table, np.random.default_rng(0))
    calibration = calibrate(empty.image, empty.truth.corners, table.rules, options)
    assert calibration.k1 == pytest.approx(expected_k1(table), abs=K1_TOLERANCE)
    error = grid_error(calibration, empty.truth.centres)
    worst = table.layout.geometry.labels[int(error.argmax())]
    assert error.max() <= STRONG_LENS_PX, f"worst {worst}: {error.max():.2f} px"
    # The markers are measured through the lens too: a later frame's pose from them agrees.
    recognizer = Recognizer(calibration)
    frame = render(table, {}, np.random.default_rng(5))
    recognizer.read(frame.image)
    seen = calibration.to_image(recognizer.poses.matrix, calibration.layout.centres)
    assert np.linalg.norm(seen - frame.truth.centres, axis=1).max() <= STRONG_LENS_PX


@pytest.mark.parametrize("rules, options, k1", [("acquire", {}, -0.35), ("acquisitions", {}, -0.35),
                                                ("megacquire-gold", {"hex_offset": "odd-r"}, -0.45)])
def test_a_wide_lens_is_measured_too(rules, options, k1, tmp_path):
    # Two to three times the tuning renderer's strongest lens (calfile's k1 about -0.47 and
    # -0.6): the middle of the board lies 10-20 px off the corners' straight grid, too far for
    # the measurement to start from a straight lens (it took the lens for straight, and left
    # every inner cell that far off).
    table = make_table(rules, seed=5, options=options, k1=k1)
    empty = render_empty(table, np.random.default_rng(0))
    calibration = calibrate(empty.image, empty.truth.corners, table.rules, options)
    assert calibration.k1 == pytest.approx(expected_k1(table), abs=K1_TOLERANCE)
    error = grid_error(calibration, empty.truth.centres)
    worst = table.layout.geometry.labels[int(error.argmax())]
    assert error.max() <= 1.5, f"worst {worst}: {error.max():.2f} px"
    # ... and its file loads again with that lens (the loader refused k1 below -0.5).
    assert load_calibration(calibration.save(tmp_path / "wide.json")).k1 == calibration.k1


def test_a_lens_undistorts_only_what_it_can_show():
    # k1 alone folds a strong barrel lens's picture over itself: nothing is seen beyond the
    # fold's radius, and a point there has no ideal pixel (it came back far off, silently).
    size, k1 = (1280, 960), -0.6
    edge = fold_radius(k1) * size[0]
    inside = np.array([[640 + 0.95 * edge, 480.0], [640.0, 480 - 0.5 * edge], [640.0, 480.0]])
    assert distort(undistort(inside, k1, size), k1, size) == pytest.approx(inside, abs=1e-6)
    assert np.isnan(undistort(np.array([[640 + 1.01 * edge, 480.0]]), k1, size)).all()
    assert np.isfinite(undistort(np.array([[1280.0, 960.0]]), 0.2, size)).all()


def test_a_marker_seen_near_where_the_lens_folds_is_outside_it():
    # A board knocked far into a wide lens's corner: that marker's corners cannot be
    # undistorted, or only with their error magnified many times; the pose tracker leaves
    # out a marker outside the lens (it used to fit the pose to far-off points).
    table = make_table("megacquire-gold", seed=5, options={"hex_offset": "odd-r"}, k1=-0.45)
    empty = render_empty(table, np.random.default_rng(0))
    calibration = calibrate(empty.image, empty.truth.corners, table.rules, {"hex_offset": "odd-r"})
    assert calibration.k1 < -0.5
    near = np.array([[600.0, 440], [640, 440], [640, 480], [600, 480]])
    assert calibration.within_lens(near)
    edge = fold_radius(calibration.k1) * 1280
    assert not calibration.within_lens(near + [0.99 * edge, 0])     # nearly folded: ill-posed
    assert not calibration.within_lens(near + [1.1 * edge, 0])      # folded: no ideal pixel


@pytest.mark.parametrize("k1", [-0.08, 0.0, 0.1])
def test_the_lens_is_measured_from_the_empty_board_alone(vision, k1):
    # Tapped corners are a few pixels out: the lens comes from the whole printed grid.
    table = make_table("acquire", seed=7, k1=k1)
    empty = render_empty(table, np.random.default_rng(1))
    tapped = empty.truth.corners + np.random.default_rng(2).uniform(-2, 2, (4, 2))
    grey = empty.image.mean(axis=2).astype(np.uint8)
    measured = estimate_k1(grey, tapped, table.layout)
    assert measured == pytest.approx(expected_k1(table), abs=K1_TOLERANCE)
    if k1 == 0.0:
        assert abs(measured) < 0.005


@pytest.mark.parametrize("layout", ALL_LAYOUTS)
def test_the_markers_are_measured_in_board_units_wherever_they_are_stuck(vision, layout):
    setup = vision.setup(layout)
    markers = setup.calibration.markers
    assert sorted(markers) == list(MARKER_IDS)
    for placement in setup.table.markers:  # (the square table's markers are shuffled round)
        measured = markers[placement.marker_id]
        assert measured.shape == (4, 2)
        assert np.abs(measured - placement.corners()).max() < 0.12, placement.marker_id


def test_both_hex_parities_have_their_own_grid(vision):
    odd, even = vision.setup("hex-odd").calibration, vision.setup("hex-even").calibration
    assert odd.layout.geometry.offset == "odd-r" and even.layout.geometry.offset == "even-r"
    assert even.options == {"hex_offset": "even-r"}
    # Row A is shoved right on even-r boards, row B on odd-r ones.
    assert even.layout.centre("A-1")[0] == pytest.approx(0.5)
    assert odd.layout.centre("B-1")[0] == pytest.approx(0.5)


@pytest.mark.parametrize("layout", ["square", "hex-even"])
def test_the_calibration_file_holds_everything_and_round_trips(vision, layout, tmp_path):
    setup = vision.setup(layout)
    calibration = setup.calibration
    path = calibration.save(tmp_path / "table.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.json"]  # no temporary left
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == FORMAT and data["version"] == VERSION == 2
    assert data["lens"]["k1"] == calibration.k1
    assert data["rules"] == setup.table.rules and data["image_size"] == [1280, 960]
    assert data["options"] == vision.LAYOUTS[layout].get("options", {})
    geometry = calibration.layout.geometry
    assert data["corner_labels"] == [geometry.labels[c] for c in geometry.corners()]
    assert sorted(data["markers"]) == ["0", "1", "2", "3"]
    loaded = load_calibration(path)
    assert (loaded.rules, loaded.options, loaded.image_size) == \
        (calibration.rules, calibration.options, calibration.image_size)
    assert loaded.corners_px == pytest.approx(calibration.corners_px, abs=1e-3)
    for marker_id, corners in calibration.markers.items():
        assert loaded.markers[marker_id] == pytest.approx(corners, abs=1e-5)
    assert np.array_equal(loaded.reference, calibration.reference)  # PNG: lossless
    assert (loaded.scale, loaded.origin, loaded.k1) == \
        (calibration.scale, calibration.origin, calibration.k1)
    loaded.check_fits(rules=setup.table.rules, image_size=(1280, 960),
                      options=vision.LAYOUTS[layout].get("options"))
    # And it reads a frame exactly as the calibration it was saved from.
    frame = render(setup.table, {geometry.labels[5]: None}, np.random.default_rng(1))
    assert Recognizer(loaded).read(frame.image).occupied == \
        Recognizer(calibration).read(frame.image).occupied == {5}


def test_a_format_1_file_reads_as_a_straight_lens(vision, tmp_path):
    data = vision.setup("square").calibration.to_json()
    del data["lens"]
    data["version"] = 1
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    loaded = load_calibration(path)
    assert loaded.k1 == 0.0
    matrix = homography(loaded.layout.corner_points(), loaded.corners_px)
    assert np.array_equal(loaded.ideal_matrix(matrix), matrix)
    assert loaded.to_image(matrix, [[1, 1]]) == pytest.approx(project(matrix, [[1, 1]]))


def test_a_calibration_for_another_rule_set_or_parity_is_refused(vision):
    square = vision.setup("square").calibration
    with pytest.raises(CalibrationError, match=r"for acquire, not megacquire-gold.*--rules"):
        square.check_fits(rules="megacquire-gold")
    square.check_fits(rules="acquire")
    odd = vision.setup("hex-odd").calibration
    with pytest.raises(CalibrationError, match=r"hex_offset=odd-r.*--option hex_offset=even-r"):
        odd.check_fits(rules="megacquire-gold", options={"hex_offset": "even-r"})
    odd.check_fits(rules="megacquire-gold", options={"hex_offset": "odd-r"})
    with pytest.raises(CalibrationError, match="acquisitions"):
        vision.setup("quadrant").calibration.check_fits(rules="acquire")


def test_a_calibration_for_another_camera_resolution_is_refused(vision):
    calibration = vision.setup("square").calibration
    with pytest.raises(CalibrationError, match=r"1280x960 frames, the camera gives 640x480"):
        calibration.check_fits(image_size=(640, 480))
    with pytest.raises(CalibrationError, match="1280x960"):
        Recognizer(calibration).read(np.zeros((480, 640, 3), np.uint8))


def damaged_files(good: dict):
    """(name, file text, words the refusal must contain) for ways a calibration file goes bad."""
    def changed(**fields):
        return json.dumps({**good, **fields})

    without_reference = dict(good)
    del without_reference["reference_png"]
    return [
        ("not json", "{ this is not", "not JSON"),
        ("another json", json.dumps({"hello": 1}), "not a calibration file"),
        ("newer", changed(version=VERSION + 1), "update tabletop"),
        ("no version", changed(version="one"), "format"),
        ("no reference", json.dumps(without_reference), "damaged"),
        ("bad base64", changed(reference_png="@@@"), "damaged"),
        ("not a png", changed(reference_png=base64.b64encode(b"GIF89a....").decode()), "damaged"),
        ("one marker", changed(markers={"0": good["markers"]["0"]}), "damaged"),
        ("bad corners", changed(corners_px=[[1, 2], [3, 4]]), "damaged"),
        ("unknown rules", changed(rules="monopoly"), "monopoly"),
    ]


def test_damaged_or_newer_calibration_files_are_refused_with_the_reason(vision, tmp_path):
    good = vision.setup("square").calibration.to_json()
    for name, text, words in damaged_files(good):
        path = tmp_path / f"{name.replace(' ', '_')}.json"
        path.write_text(text, encoding="utf-8")
        with pytest.raises(CalibrationError) as refused:
            load_calibration(path)
        assert words in str(refused.value), (name, str(refused.value))
    with pytest.raises(CalibrationError, match="cannot read"):
        load_calibration(tmp_path / "missing.json")


def test_calibrate_refuses_crossed_corners_corners_off_the_image_or_too_close(vision):
    setup = vision.setup("square")
    image, corners = setup.empty.image, setup.empty.truth.corners
    calibrate(image, corners + 0.25, "acquire")  # decimals: fine
    for bad, words in [
        (corners[[0, 2, 1, 3]], "order 1A 12A 12I 1I"),      # 1A 12I 12A 1I: the sides cross
        (corners[[1, 0, 2, 3]], "order 1A 12A 12I 1I"),
        (corners + [2000, 0], "outside the 1280x960 image"),
        (corners[0] + (corners - corners[0]) * 0.05, "almost nothing"),
        (np.full((4, 2), np.nan), "number"),
    ]:
        with pytest.raises(CalibrationError, match=words):
            calibrate(image, bad, "acquire")


@pytest.mark.parametrize("layout", ["square", "hex-odd", "quadrant"])
def test_calibrate_refuses_corners_given_round_the_board_the_other_way(vision, layout):
    setup = vision.setup(layout)
    mirrored = setup.empty.truth.corners[[1, 0, 3, 2]]
    with pytest.raises(CalibrationError, match="order"):
        calibrate(setup.empty.image, mirrored, setup.table.rules)


def test_calibrate_refuses_corners_a_quarter_turn_out(vision):
    setup = vision.setup("square")
    turned = setup.empty.truth.corners[[1, 2, 3, 0]]
    with pytest.raises(CalibrationError, match="order"):
        calibrate(setup.empty.image, turned, "acquire")


def test_calibrate_needs_all_four_markers_a_colour_photo_and_a_known_rule_set(vision):
    setup = vision.setup("square")
    table, corners = setup.table, setup.empty.truth.corners
    rng = np.random.default_rng(3)
    cup = cup_over_marker(view_of(table), 2, rng)
    covered = render_scene(table, {}, Scene(cups=(cup,)), rng)
    assert 2 in covered.truth.hidden_markers
    with pytest.raises(CalibrationError, match="marker 2 not found"):
        calibrate(covered.image, corners, "acquire")
    with pytest.raises(CalibrationError, match="colour"):
        calibrate(setup.empty.image[:, :, 0], corners, "acquire")
    with pytest.raises(CalibrationError, match="monopoly"):
        calibrate(setup.empty.image, corners, "monopoly")
    with pytest.raises(CalibrationError):
        calibrate(setup.empty.image, corners, "megacquire-gold", {"hex_offset": "sideways"})


def test_corners_are_parsed_from_decimal_pairs():
    assert parse_corners("10,20 30.5,40.25 50,60 70,80.75").tolist() == \
        [[10, 20], [30.5, 40.25], [50, 60], [70, 80.75]]
    assert parse_corners("1,2;3,4; 5,6 ;7,8").shape == (4, 2)
    for bad in ["1,2 3,4 5,6", "1,2 3,4 5,6 7", "a,b c,d e,f g,h", "1,2,3 4,5 6,7 8,9", ""]:
        with pytest.raises(CalibrationError, match="four x,y"):
            parse_corners(bad)


@pytest.mark.parametrize("layout", ["square", "hex-odd", "quadrant"])
def test_the_stream_warp_gives_the_classifier_what_the_whole_warp_would(vision, layout):
    # Recognizer.read warps grey and shrunk colour straight from the frame; the
    # classifier must see nearly what warping the whole frame and splitting it gives,
    # and read the same cells.
    import cv2

    from calibration.classify import COLOUR_SHRINK, TileClassifier, _split

    setup = vision.setup(layout)
    size = setup.calibration.layout.size
    frame = render(setup.table, list(range(0, size, 4)), np.random.default_rng(5)).image
    rectifier = Recognizer(setup.calibration).rectify
    matrix = homography(setup.calibration.layout.corner_points(), setup.calibration.corners_px)
    grey, colour = rectifier.planes(frame, cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), matrix,
                                    COLOUR_SHRINK)
    whole_grey, whole_colour = _split(rectifier(frame, matrix))
    assert grey.shape == whole_grey.shape and colour.shape == whole_colour.shape
    assert np.abs(grey.astype(int) - whole_grey).mean() < 0.5
    classifier = TileClassifier(setup.calibration)
    stream, whole = classifier.read_planes(grey, colour), classifier.read(rectifier(frame, matrix))
    assert stream.occupied == whole.occupied == frozenset(range(0, size, 4))
    # Colour is judged per cell: the cells' colour shifts agree to a small part of BOARD_CHROMA.
    assert np.abs(stream.chroma - whole.chroma).max() < 1.5, np.abs(stream.chroma - whole.chroma).max()
