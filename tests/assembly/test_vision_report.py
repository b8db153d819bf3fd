"""``tabletop vision-report FOLDER...``: the recognizer scored on recordings of a table.

A recording is made the way ``tabletop run --record`` makes one: a rendered
game (the easy square table, 640x480, eight placements) through a real
Watcher observed by a :class:`~calibration.recording.Recorder`, each
placement confirmed at its step's end. The command runs in-process through
``tabletop.cli.main``; it replays the frames through a fresh Watcher and
scores them in ``bench/vision.py``'s terms. Damaged recordings are one clear
line on standard error and exit status 2.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from calibration.calibrate import calibrate
from calibration.recognize import Watcher
from calibration.recording import Recorder, RecordingEyes
from calibration.synthetic.render import make_table, render_empty
from calibration.synthetic.sequences import random_steps, render_sequence
from tabletop.cli import main
from tabletop.geometry.sightings import TileSeen

#: One worker records the table for all of this file's tests (made once, about 4 s).
pytestmark = pytest.mark.xdist_group("vision-report-recorded")

PLACEMENTS = 8


def run(capsys, *argv) -> tuple[int, str, str]:
    status = main(["vision-report", *map(str, argv)])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> tuple[Path, list[str]]:
    """A recording of an easy game, and the tiles placed in it, in order."""
    table = make_table("acquire", seed=11, size=(640, 480), tile_style="ivory")
    empty = render_empty(table, np.random.default_rng(0))
    calibration = calibrate(empty.image, empty.truth.corners, "acquire", {})
    rng = np.random.default_rng(7)
    sequence = render_sequence(table, random_steps(table, rng, PLACEMENTS, anomalies=()), rng)
    folder = tmp_path_factory.mktemp("recordings") / "easy"
    # Frames come here as fast as the machine renders them, not at a camera's 10 a second:
    # a queue for all of them, so that a busy machine drops none (dropping is test_recording's).
    recorder = Recorder(folder, calibration, table="easy", source="sim:acquire", fps=sequence.fps,
                        limit=len(sequence))
    eyes = RecordingEyes(Watcher(calibration), recorder)
    ends = {event.end - 1: event.labels[0] for event in sequence.placements}
    committed = []
    for index in range(len(sequence)):
        for sighting in eyes.feed(index, index / sequence.fps, sequence.image(index)):
            if isinstance(sighting, TileSeen):
                committed.append(sighting.tile)
        if index in ends:
            recorder.confirmed(ends[index], "camera" if ends[index] in committed else "tapped")
    recorder.close()
    return folder, [event.labels[0] for event in sequence.placements]


def copy(recorded, tmp_path: Path, name: str = "copy") -> Path:
    return Path(shutil.copytree(recorded[0], tmp_path / name))


def test_an_easy_table_has_every_placement_committed_and_no_wrong_one(recorded, capsys):
    folder, _ = recorded
    status, out, err = run(capsys, folder)
    assert status == 0, err
    header, row = out.splitlines()[:2]
    assert header.split()[:6] == ["recording", "placed", "camera", "wrong", "replay", "wrong"]
    assert row.split()[1:6] == ["8", "8/8", "0", "8/8", "0"]
    status, out, _ = run(capsys, folder, "--json")
    [scored] = json.loads(out)["recordings"]
    assert scored["placements"] == PLACEMENTS and scored["entered"]["camera"] == PLACEMENTS
    for part in ("live", "replay"):
        assert (scored[part]["correct"], scored[part]["wrong"], scored[part]["missed"]) == \
            (PLACEMENTS, 0, [])
        assert len(scored[part]["delays"]) == PLACEMENTS
        assert all(0 <= delay <= 1.0 for delay in scored[part]["delays"])
    cells = scored["cells"]
    assert cells["boards"] == PLACEMENTS and cells["cells"] == PLACEMENTS * 108
    assert cells["cell_error"] <= 0.0005 and scored["frames_dropped"] == 0


def test_recordings_are_summed(recorded, tmp_path, capsys):
    other = copy(recorded, tmp_path)
    status, out, err = run(capsys, recorded[0], other, "--json")
    assert status == 0, err
    total = json.loads(out)["all"]
    assert total["recordings"] == 2 and total["placements"] == 2 * PLACEMENTS
    assert total["replay"]["correct"] == 2 * PLACEMENTS and total["replay"]["wrong"] == 0
    status, out, _ = run(capsys, recorded[0], other)
    [row] = [line for line in out.splitlines() if line.startswith("all (2 recordings)")]
    assert row.split()[3:7] == ["16", "16/16", "0", "16/16"]


def test_a_commit_the_journal_did_not_confirm_is_a_wrong_commit(recorded, tmp_path, capsys):
    """The table entered another tile than the camera saw: the camera was wrong, and scored so."""
    folder = copy(recorded, tmp_path)
    labels = [json.loads(line) for line in (folder / "labels.jsonl").read_text().splitlines()]
    free = next(label for label in ("9A", "9B", "9C", "10A") if
                all(label not in entry["board"] for entry in labels))
    labels[2] = {**labels[2], "tile": free, "how": "tapped"}
    (folder / "labels.jsonl").write_text("".join(json.dumps(line) + "\n" for line in labels))
    status, out, err = run(capsys, folder, "--json")
    assert status == 0, err
    [scored] = json.loads(out)["recordings"]
    for part in ("live", "replay"):
        assert scored[part]["wrong"] == 1 and scored[part]["wrong_tiles"] == [recorded[1][2]]
        assert scored[part]["missed"] == [free]
    assert scored["entered"]["tapped"] == 1


@pytest.mark.parametrize("damage, said", [
    ("empty", "is not a recording (no manifest.json)"),
    ("manifest", "manifest.json is damaged"),
    ("frame", "cannot be read as an image: the recording is damaged"),
    ("missing", "is missing: copy the whole recording folder"),
    ("labels", "labels.jsonl line 1 is damaged"),
])
def test_a_bad_recording_is_one_clear_line_and_exit_2(recorded, tmp_path, capsys, damage, said):
    folder = copy(recorded, tmp_path)
    frames = sorted((folder / "frames").iterdir())
    if damage == "empty":
        folder = tmp_path / "nothing"
        folder.mkdir()
    elif damage == "manifest":
        (folder / "manifest.json").write_text('{"format": "tabletop-recording", "vers')
    elif damage == "frame":
        frames[len(frames) // 2].write_bytes(b"\x89PNG\r\n\x1a\n not a picture")
    elif damage == "missing":
        frames[3].unlink()
    else:
        (folder / "labels.jsonl").write_text('{"tile": "5C", "how": "by magic"}\n')
    status, out, err = run(capsys, recorded[0], folder)
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("tabletop: ") and said in err
    assert "Traceback" not in err
