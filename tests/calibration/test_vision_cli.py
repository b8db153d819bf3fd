"""The vision commands as DESIGN.md states them: ``markers``, ``calibrate``, ``recognize``, ``watch``.

Commands run in-process through ``tabletop.cli.main`` (their output captured),
and ``watch`` once end to end as a separate ``python3 -m tabletop`` process
reading a ``dir:`` folder of rendered frames. Bad input gives a message on
standard error, exit status 2, and nothing written.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.calfile import VERSION, load_calibration
from calibration.markers import detect_markers
from calibration.synthetic.render import render
from calibration.synthetic.sequences import Move, Place, render_sequence, write_frames
from tabletop.cli import main

ROOT = Path(__file__).resolve().parents[2]
RECOGNIZE_KEYS = ["image", "occupied", "uncertain", "markers", "clear"]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """``tabletop ARGV`` in-process: (exit status, stdout, stderr)."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def corners_text(points) -> str:
    return " ".join(f"{x:.2f},{y:.2f}" for x, y in points)


@pytest.fixture(scope="module")
def square_files(vision, tmp_path_factory):
    """The square table's calibration file and two frames of it, written once."""
    folder = tmp_path_factory.mktemp("square")
    setup = vision.setup("square")
    calibration = setup.calibration.save(folder / "table.json")
    rng = np.random.default_rng(21)
    frames = []
    for k, tiles in enumerate([["1A", "5C", "12I"], ["6D", "7D", "8D", "3H"]]):
        frame = render(setup.table, tiles, rng)
        path = folder / f"frame{k}.png"
        cv2.imwrite(str(path), frame.image)
        frames.append((path, sorted(frame.truth.occupied_labels,
                                    key=setup.calibration.layout.cell)))
    return calibration, frames


# --- markers -------------------------------------------------------------------------------

def test_markers_writes_a_png_and_an_svg_sheet_with_instructions(capsys, tmp_path):
    status, out, err = run(capsys, "markers", "--out", tmp_path / "sheet.png", "--size-mm", 35)
    assert status == 0 and err == ""
    png, svg = tmp_path / "sheet.png", tmp_path / "sheet.svg"
    assert png.is_file() and svg.is_file()
    assert f"wrote {png}" in out and f"wrote {svg}" in out
    assert "35 mm" in out and "OUTSIDE the grid" in out
    page = cv2.imread(str(png), cv2.IMREAD_GRAYSCALE)
    small = cv2.resize(page, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
    assert sorted(detect_markers(small)) == [0, 1, 2, 3]
    assert svg.read_text(encoding="utf-8").lstrip().startswith(("<?xml", "<svg"))


def test_markers_refuses_a_size_that_does_not_fit_a_sheet(capsys, tmp_path):
    status, out, err = run(capsys, "markers", "--out", tmp_path / "sheet.png", "--size-mm", 500)
    assert status == 2 and "500 mm" in err and out == ""
    assert list(tmp_path.iterdir()) == []


# --- calibrate -----------------------------------------------------------------------------

def test_calibrate_takes_decimal_corners_and_the_rule_sets_options(vision, capsys, tmp_path):
    setup = vision.setup("hex-even")
    image = tmp_path / "empty.png"
    cv2.imwrite(str(image), setup.empty.image)
    corners = setup.empty.truth.corners
    out_file = tmp_path / "table.json"
    status, out, err = run(capsys, "calibrate", "--rules", "megacquire-gold",
                           "--option", "hex_offset=even-r", "--image", image,
                           "--corners", corners_text(corners), "--out", out_file)
    assert (status, err) == (0, "")
    assert out.strip() == f"calibrated megacquire-gold (182 cells, 4 markers) to {out_file}"
    calibration = load_calibration(out_file)
    assert calibration.options == {"hex_offset": "even-r"}
    assert calibration.layout.geometry.offset == "even-r"
    assert calibration.corners_px == pytest.approx(np.round(corners, 2), abs=1e-6)
    assert calibration.image_size == (1280, 960)
    assert json.loads(out_file.read_text())["corner_labels"] == ["A-1", "A-13", "N-13", "N-1"]


def bad_calibrations(setup, folder: Path):
    """(name, arguments after ``calibrate``, words the message must contain)."""
    image = folder / "empty.png"
    cv2.imwrite(str(image), setup.empty.image)
    text = folder / "notes.png"
    text.write_text("this is not a picture", encoding="utf-8")
    good = corners_text(setup.empty.truth.corners)
    crossed = corners_text(setup.empty.truth.corners[[0, 2, 1, 3]])
    return [
        ("unreadable image", ["--image", text, "--corners", good], "cannot read"),
        ("missing image", ["--image", folder / "nowhere.png", "--corners", good],
         f"no such image: {folder / 'nowhere.png'}"),
        ("corners crossed", ["--image", image, "--corners", crossed], "order 1A 12A 12I 1I"),
        ("three corners", ["--image", image, "--corners", "1,2 3,4 5,6"], "four x,y"),
        ("unknown rules", ["--image", image, "--corners", good, "--rules", "monopoly"],
         "monopoly"),
    ]


def test_calibrate_refuses_bad_input_and_writes_nothing(vision, capsys, tmp_path):
    setup = vision.setup("square")
    for name, arguments, words in bad_calibrations(setup, tmp_path):
        out_file = tmp_path / "table.json"
        status, out, err = run(capsys, "calibrate", *arguments, "--out", out_file)
        assert status == 2, name
        assert words in err and err.startswith("tabletop: "), (name, err)
        assert out == "" and not out_file.exists(), name
        assert not list(tmp_path.glob("*.tmp")), name
    # A file that cannot be written is a message too.
    status, out, err = run(capsys, "calibrate", "--image", tmp_path / "empty.png",
                           "--corners", corners_text(setup.empty.truth.corners),
                           "--out", tmp_path / "no" / "such" / "table.json")
    assert status == 2 and "cannot write" in err and out == ""


# --- recognize -----------------------------------------------------------------------------

def test_recognize_prints_one_json_line_per_image(square_files, capsys):
    calibration, frames = square_files
    status, out, err = run(capsys, "recognize", "--calibration", calibration,
                           *[path for path, _ in frames])
    assert (status, err) == (0, "")
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == len(frames)
    for line, (path, occupied) in zip(lines, frames):
        assert list(line) == RECOGNIZE_KEYS
        assert line == {"image": str(path), "occupied": occupied, "uncertain": [], "markers": 4,
                        "clear": True}


def test_recognize_names_an_unreadable_image_and_reads_the_rest(square_files, capsys, tmp_path):
    calibration, frames = square_files
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"\x89PNG\r\n\x1a\n but no more")
    status, out, err = run(capsys, "recognize", "--calibration", calibration, frames[0][0],
                           broken)
    assert status == 2 and "broken.png" in err
    assert [json.loads(line)["image"] for line in out.splitlines()] == [str(frames[0][0])]


def damaged(calibration: Path, folder: Path) -> list[tuple[str, Path, str]]:
    """Calibration files that must be refused: (name, path, words of the message)."""
    data = json.loads(calibration.read_text(encoding="utf-8"))
    cases = {
        "truncated": (calibration.read_text(encoding="utf-8")[:500], "not JSON"),
        "newer": (json.dumps({**data, "version": VERSION + 1}), "update tabletop"),
        "no markers": (json.dumps({**data, "markers": {}}), "damaged"),
    }
    found = []
    for name, (text, words) in cases.items():
        path = folder / f"{name.replace(' ', '_')}.json"
        path.write_text(text, encoding="utf-8")
        found.append((name, path, words))
    return found


def test_recognize_refuses_a_calibration_that_does_not_fit(square_files, vision, capsys,
                                                           tmp_path):
    calibration, frames = square_files
    other_camera = vision.setup("square", vision.WATCH_SIZE).calibration.save(
        tmp_path / "small.json")
    cases = damaged(calibration, tmp_path) + [
        ("another camera", other_camera, "made with 640x480 frames, the camera gives 1280x960")]
    for name, path, words in cases:
        status, out, err = run(capsys, "recognize", "--calibration", path, frames[0][0])
        assert status == 2 and words in err, (name, err)
        assert out == "", name


# --- watch ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def game(vision, tmp_path_factory):
    """A short game at 640x480 written as a dir: folder, with its calibration file.

    A tile placed, then slid to another cell: one commit, then a warning.
    """
    folder = tmp_path_factory.mktemp("game")
    setup = vision.setup("square", vision.WATCH_SIZE)
    sequence = render_sequence(setup.table, [Place("7E"), Move("7E", "8F")],
                               np.random.default_rng(31))
    sequence = vision.trimmed(sequence)
    write_frames(sequence, folder / "frames")
    return sequence, setup.calibration.save(folder / "table.json"), folder / "frames"


def test_watch_reads_a_dir_source_end_to_end(game, vision):
    sequence, calibration, frames = game
    done = subprocess.run(
        [sys.executable, "-m", "tabletop", "watch", "--calibration", str(calibration),
         "--source", f"dir:{frames}", "--fps", "10"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [list(line) for line in lines] == [["frame", "tile"], ["frame", "warning"]]
    assert lines[0]["tile"] == "7E" and "moved from 7E to 8F" in lines[1]["warning"]
    assert vision.watch_problems(sequence, lines) == []
    # The closing line, apart from the JSON: what was read and decided.
    assert done.stderr == (f"tabletop: watched {len(sequence)} frame(s): 1 tile(s) committed, "
                           "0 asked as unsure, 0 read late and asked, 1 warning(s)\n")


class Hung(Exception):
    pass


def test_watch_refuses_bad_input(game, vision, capsys, tmp_path):
    _, calibration, frames = game
    for name, path, words in damaged(calibration, tmp_path):
        status, out, err = run(capsys, "watch", "--calibration", path, "--source", f"dir:{frames}")
        assert status == 2 and words in err and out == "", name
    status, out, err = run(capsys, "watch", "--calibration", calibration, "--source", "webcam:1")
    assert status == 2 and "unknown camera source" in err
    status, out, err = run(capsys, "watch", "--calibration", calibration, "--source",
                           f"dir:{frames}", "--fps", "0")
    assert status == 2 and "--fps" in err
    # Frames from another camera than the calibration's.
    big = tmp_path / "big"
    big.mkdir()
    cv2.imwrite(str(big / "frame_00000.png"), vision.setup("square").empty.image)
    status, out, err = run(capsys, "watch", "--calibration", calibration, "--source", f"dir:{big}")
    assert status == 2 and "640x480" in err and out == ""


def test_watch_refuses_a_folder_that_does_not_exist(game, capsys, tmp_path):
    _, calibration, _ = game

    def give_up(*_):
        raise Hung("still waiting after 1 s")

    previous = signal.signal(signal.SIGALRM, give_up)
    signal.setitimer(signal.ITIMER_REAL, 1.0)
    try:
        status, out, err = run(capsys, "watch", "--calibration", calibration, "--source",
                               f"dir:{tmp_path / 'nowhere'}")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert status == 2 and "nowhere" in err and out == ""


# --- bad input, as a user meets it (issue 19) --------------------------------------------

def tabletop(*argv: str, **env: str) -> subprocess.CompletedProcess:
    """``python -m tabletop ARGV`` as a separate process: what a terminal would show."""
    return subprocess.run([sys.executable, "-m", "tabletop", *map(str, argv)], cwd=ROOT,
                          env={**os.environ, **env}, capture_output=True, text=True,
                          timeout=120, check=False)


def test_markers_refuses_an_extension_it_cannot_write_and_writes_nothing(capsys, tmp_path):
    status, out, err = run(capsys, "markers", "--out", tmp_path / "m.jpg")
    assert status == 2 and out == ""
    assert err == (f"tabletop: markers writes the sheet as PNG and SVG, not .jpg: give --out "
                   f"{tmp_path / 'm.png'} (m.png and m.svg are written); nothing was written\n")
    assert list(tmp_path.iterdir()) == []


def test_markers_into_a_folder_or_under_a_bare_name_says_what_it_wrote(capsys, tmp_path):
    status, out, _ = run(capsys, "markers", "--out", tmp_path)
    assert status == 0
    assert out.splitlines()[:2] == [
        f"wrote {tmp_path / 'markers.png'} (the sheet to print, 300 dpi)",
        f"wrote {tmp_path / 'markers.svg'} (the same sheet, exact at any printer's resolution)"]
    status, out, _ = run(capsys, "markers", "--out", tmp_path / "sheet")
    assert status == 0 and out.startswith(f"wrote {tmp_path / 'sheet.png'} (")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "markers.png", "markers.svg", "sheet.png", "sheet.svg"]


def test_markers_into_a_new_folder_named_with_a_slash_makes_it(capsys, tmp_path):
    # (it wrote FOLDER.png and FOLDER.svg beside the folder it was asked for)
    status, out, _ = run(capsys, "markers", "--out", f"{tmp_path / 'sheets'}/")
    assert status == 0 and out.startswith(f"wrote {tmp_path / 'sheets' / 'markers.png'} (")
    assert sorted(p.name for p in (tmp_path / "sheets").iterdir()) == ["markers.png", "markers.svg"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sheets"]


def test_calibrate_checks_the_image_before_opencv_reads_it(tmp_path):
    corners = ["--corners", "10,10 90,10 90,60 10,60", "--out", tmp_path / "t.json"]
    missing = tabletop("calibrate", "--image", tmp_path / "nowhere.png", *corners)
    assert (missing.returncode, missing.stdout) == (2, "")
    assert missing.stderr == f"tabletop: no such image: {tmp_path / 'nowhere.png'}\n"
    # A PNG cut short: OpenCV would warn about its buffer before any message of ours.
    whole = cv2.imencode(".png", np.full((60, 100, 3), 90, np.uint8))[1].tobytes()
    cut = tmp_path / "cut.png"
    cut.write_bytes(whole[:len(whole) // 2])
    damaged = tabletop("calibrate", "--image", cut, *corners)
    assert (damaged.returncode, damaged.stdout) == (2, "")
    assert damaged.stderr == (f"tabletop: cannot read {cut} as an image: it is not a picture "
                              "(PNG, JPEG) or it is damaged\n")
    folder = tabletop("calibrate", "--image", tmp_path, *corners)
    assert folder.stderr == (f"tabletop: {tmp_path} is a folder: give the path of a picture "
                             "(.png, .jpg)\n")
    assert not (tmp_path / "t.json").exists()


def test_calibrate_help_names_the_corners_order_of_every_rule_set():
    done = tabletop("calibrate", "--help", COLUMNS="1000")     # no line wrapped
    assert done.returncode == 0
    assert ("in this order: the first label, the last of the first row, the last label, the "
            "first of the last row (clockwise from the top left as the labels read): acquire "
            "1A 12A 12I 1I; acquisitions 1/A-1 2/A-6 4/E-6 3/E-1; megacquire-gold A-1 A-13 "
            "N-13 N-1\n") in done.stdout
    text = done.stdout
    assert "board order" not in text


def test_watch_names_an_unknown_rule_set_of_a_sim_source_without_a_traceback():
    done = tabletop("watch", "--source", "sim:acquir")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("tabletop: sim:acquir: unknown rule set 'acquir': did you mean "
                           "acquire? (rule sets: acquire, acquisitions, megacquire-gold)\n")


@pytest.mark.parametrize("source, message", [
    ("sim:acquire,seed=x", "sim:acquire,seed=x: seed must be a whole number, got 'x'"),
    ("sim:acquire,seed=-1", "sim:acquire,seed=-1: seed must be 0 or more, got '-1'"),
    ("sim:acquire,placements=0", "sim:acquire,placements=0: placements must be 1 or more, "
                                 "got '0'"),
    ("sim:acquire,fps=0", "sim:acquire,fps=0: fps must be a number above 0, got '0'"),
    ("sim:acquire,sed=3", "sim:acquire,sed=3: unknown setting 'sed': did you mean seed? "
                          "(sim:RULES,seed=N,placements=N,fps=N, e.g. sim:acquire,seed=3)"),
    ("sim:monopoly", "sim:monopoly: unknown rule set 'monopoly' (rule sets: acquire, "
                     "acquisitions, megacquire-gold)"),
    ("webcam", "unknown camera source 'webcam'; known sources: dir:, file:, picamera2, sim:, "
               "usb: (e.g. usb:0, file:game.mp4, dir:frames/)"),
    ("usbb:0", "unknown camera source 'usbb:0' (did you mean usb:?); known sources: dir:, "
               "file:, picamera2, sim:, usb: (e.g. usb:0, file:game.mp4, dir:frames/)"),
    ("usb:x", "camera source 'usb:x': usb: takes a device number or path (usb:0, "
              "usb:/dev/video0, usb:/dev/v4l/by-id/...), not 'x'"),
])
def test_watch_refuses_a_source_it_cannot_use_and_says_what_to_write(capsys, source, message):
    status, out, err = run(capsys, "watch", "--source", source)
    assert (status, out, err) == (2, "", f"tabletop: {message}\n")


def test_watch_of_an_empty_folder_says_it_gave_no_frames(game, capsys, tmp_path):
    _, calibration, _ = game
    status, out, err = run(capsys, "watch", "--calibration", calibration,
                           "--source", f"dir:{tmp_path}")
    assert (status, out) == (2, "")
    assert err == f"tabletop: dir:{tmp_path} gave no frames: the folder holds no images " \
                  "(.png, .jpg)\n"


def test_ctrl_c_stops_watch_with_what_it_saw_and_status_130():
    process = subprocess.Popen([sys.executable, "-m", "tabletop", "watch", "--source",
                                "sim:acquire,seed=3"], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        first = process.stdout.readline()           # it is watching: a decision came
        process.send_signal(signal.SIGINT)
        rest, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert json.loads(first)["frame"] >= 0
    assert process.returncode == 130
    lines = [json.loads(line) for line in [first] + rest.splitlines()]
    closing, stopped = err.splitlines()
    tiles = sum("tile" in line for line in lines)
    assert closing.startswith("tabletop: watched ") and \
        f": {tiles} tile(s) committed, " in closing
    assert stopped == "tabletop: stopped"
