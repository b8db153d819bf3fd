"""The markers: images that decode to their ids, the printable sheet, detection."""

import struct
import xml.etree.ElementTree as ElementTree

import cv2
import numpy as np
import pytest

from calibration.markers import (DICTIONARY, MARKER_IDS, detect_markers, make_detector,
                                 marker_image, marker_size_mm, modules, write_sheet)

SVG = "{http://www.w3.org/2000/svg}"


def on_white(image, pad=20):
    return cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=255)


def test_the_contract_constants():
    assert DICTIONARY == cv2.aruco.DICT_4X4_50
    assert MARKER_IDS == (0, 1, 2, 3)


@pytest.mark.parametrize("marker_id", MARKER_IDS)
@pytest.mark.parametrize("pixels", [36, 50, 121])
def test_marker_images_decode_to_their_id(marker_id, pixels):
    image = marker_image(marker_id, pixels)
    assert image.shape == (pixels, pixels) and image.dtype == np.uint8
    # The standard one-module black border.
    assert image[0].max() == 0 and image[:, -1].max() == 0
    found = detect_markers(on_white(image))
    assert list(found) == [marker_id]
    # Corners at the black square's outer edges (pixel centres at integers).
    assert found[marker_id] == pytest.approx(
        np.array([[-0.5, -0.5], [pixels - 0.5, -0.5], [pixels - 0.5, pixels - 0.5],
                  [-0.5, pixels - 0.5]]) + 20, abs=0.5)


def test_the_quiet_zone_is_white_and_the_pattern_is_the_dictionarys():
    image = marker_image(1, 60, quiet_zone=12)
    assert image.shape == (84, 84)
    assert image[:12].min() == 255 and image[:, -12:].min() == 255
    reference = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(DICTIONARY), 1, 60)
    assert np.array_equal(image[12:-12, 12:-12], reference)
    assert modules(1).shape == (6, 6)


def test_bad_markers_are_refused():
    with pytest.raises(ValueError):
        marker_image(50, 60)
    with pytest.raises(ValueError):
        marker_image(0, 5)
    with pytest.raises(ValueError):
        marker_image(0, 60, quiet_zone=-1)


def test_only_our_ids_are_returned_and_the_larger_duplicate_wins():
    dictionary = cv2.aruco.getPredefinedDictionary(DICTIONARY)
    page = np.full((400, 700), 255, np.uint8)
    page[40:140, 40:140] = cv2.aruco.generateImageMarker(dictionary, 7, 100)
    page[40:140, 240:340] = marker_image(2, 100)
    page[250:310, 500:560] = marker_image(2, 60)
    found = detect_markers(cv2.cvtColor(page, cv2.COLOR_GRAY2BGR))  # BGR is accepted
    assert list(found) == [2]
    assert found[2].shape == (4, 2) and found[2].dtype == np.float32
    assert found[2][:, 0].min() == pytest.approx(239.5, abs=0.5)
    assert detect_markers(np.full((100, 100), 255, np.uint8)) == {}


def test_the_detector_is_built_once_with_subpixel_corners():
    detector = make_detector()
    assert detector is make_detector()
    assert isinstance(detector, cv2.aruco.ArucoDetector)
    assert detector.getDetectorParameters().cornerRefinementMethod == cv2.aruco.CORNER_REFINE_SUBPIX


@pytest.mark.parametrize("name", ["markers", "markers.png", "markers.svg"])
def test_write_sheet_writes_both_files_whatever_out_names(tmp_path, name):
    paths = write_sheet(tmp_path / "sub" / name)
    assert paths == [tmp_path / "sub" / "markers.png", tmp_path / "sub" / "markers.svg"]
    assert all(path.stat().st_size > 0 for path in paths)


@pytest.mark.parametrize("size_mm", [25.0, 40.0, 50.0])
def test_the_png_sheet_is_a4_at_300_dpi_and_opencv_reads_the_markers_back(tmp_path, size_mm):
    png, _ = write_sheet(tmp_path / "sheet", size_mm)
    data = png.read_bytes()
    at = data.index(b"pHYs")
    x, y, unit = struct.unpack(">IIB", data[at + 4:at + 13])
    assert (x, y, unit) == (11811, 11811, 1)  # 300 dpi in pixels per metre
    page = cv2.imread(str(png), cv2.IMREAD_GRAYSCALE)
    assert page.shape == (3508, 2480)
    found = detect_markers(page)
    assert sorted(found) == [0, 1, 2, 3]
    for quad in found.values():
        sides = np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)
        assert sides == pytest.approx([size_mm / 25.4 * 300] * 4, abs=1.5)


def test_the_svg_sheet_draws_each_marker_at_its_printed_size(tmp_path):
    _, svg = write_sheet(tmp_path / "sheet.svg", 35.0)
    root = ElementTree.parse(svg).getroot()
    assert root.get("width") == "210mm" and root.get("height") == "297mm"
    assert root.get("viewBox") == "0 0 210 297"   # one user unit is one millimetre
    markers = [g for g in root.iter(SVG + "g") if g.get("class") == "marker"]
    assert sorted(int(g.get("data-id")) for g in markers) == [0, 1, 2, 3]
    for group in markers:
        square = group.find(SVG + "rect")
        assert float(square.get("width")) == float(square.get("height")) == 35.0
        # The white modules are inside the black square, on its 6x6 module grid.
        for rect in group.findall(SVG + "rect")[1:]:
            x, y = float(rect.get("x")), float(rect.get("y"))
            assert 35.0 / 6 - 1e-3 <= x and x + float(rect.get("width")) <= 35.0 * 5 / 6 + 1e-3
            assert 35.0 / 6 - 1e-3 <= y <= 35.0 * 4 / 6 + 1e-3
    scale = next(r for r in root.iter(SVG + "rect") if r.get("id") == "scale-10mm")
    assert float(scale.get("width")) == 10.0
    text = " ".join(t.text or "" for t in root.iter(SVG + "text"))
    for words in ("OUTSIDE", "flat", "fixed relative to the board", "calibrate", "35 mm", "10 mm"):
        assert words in text
    assert marker_size_mm(svg.read_text()) == {0: 35.0, 1: 35.0, 2: 35.0, 3: 35.0}


def test_the_svg_modules_rasterise_to_the_same_marker(tmp_path):
    # Rasterise the SVG's rects by hand and decode them: the vector sheet holds the right bits.
    _, svg = write_sheet(tmp_path / "sheet", 30.0)
    root = ElementTree.parse(svg).getroot()
    for group in (g for g in root.iter(SVG + "g") if g.get("class") == "marker"):
        image = np.full((60, 60), 255, np.uint8)
        for index, rect in enumerate(group.findall(SVG + "rect")):
            x0, y0 = float(rect.get("x")) * 2, float(rect.get("y")) * 2
            x1, y1 = x0 + float(rect.get("width")) * 2, y0 + float(rect.get("height")) * 2
            image[round(y0):round(y1), round(x0):round(x1)] = 0 if index == 0 else 255
        assert list(detect_markers(on_white(image))) == [int(group.get("data-id"))]


def test_sizes_that_do_not_fit_are_refused(tmp_path):
    with pytest.raises(ValueError, match="A4"):
        write_sheet(tmp_path / "m", 120)
    with pytest.raises(ValueError):
        write_sheet(tmp_path / "m", 5)
