"""Recordings (``calibration.recording``): a table's frames at the moments that matter.

One rendered game on the easy square table (640x480, eight placements and a
lamp, quiet stretches trimmed) goes through a real Watcher, with a
:class:`Recorder` observing it through :class:`RecordingEyes` and each
placement confirmed as a table would (by the camera when it committed the
tile, else tapped). The folder is read back and held against the render's
truth. The recorder's own rules (which hand frames, a doubt's frame, a label
confirmed while the camera sees a hand, a full queue, bad folders) are
checked on plain frames.
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from calibration import recording as rec
from calibration.recognize import Watcher
from calibration.playback import read_recording
from calibration.recording import HOWS, Recorder, RecordingEyes, RecordingError, frame_name
from calibration.synthetic.sequences import Lamp, random_steps, render_sequence
from tabletop.geometry.sightings import ChangesSeen, TileSeen

#: One worker plays the recorded game for all of this file's tests (made once, about 3 s).
pytestmark = pytest.mark.xdist_group("recording-game")

PLACEMENTS = 8


def record_game(folder: Path, calibration, sequence, **options) -> dict:
    """Play ``sequence`` through a recorded Watcher, confirming each placement at its step's end.

    Returns what a test looks at: the live commits, the most frames the
    recorder held and waiting at once, and its counts.
    """
    recorder = Recorder(folder, calibration, table="test table", source="sim:acquire", fps=10,
                        **options)
    eyes = RecordingEyes(Watcher(calibration), recorder)
    eyes.expect([])
    ends = {event.end - 1: event for event in sequence.placements}
    committed, held, pending = [], 0, 0
    for index in range(len(sequence)):
        image = sequence.frame(index).image
        # A camera gives a frame every 0.1 s, far slower than the writer; the test's frames
        # come as fast as they render. Wait for the writer to be done, as it is at a table, so
        # that a busy machine drops nothing here (dropping has its own test).
        while recorder.pending:
            time.sleep(0.001)
        for sighting in eyes.feed(index, index / sequence.fps, image):
            if isinstance(sighting, TileSeen):
                committed.append(sighting.tile)
        held, pending = max(held, recorder.held), max(pending, recorder.pending)
        if index in ends:
            tile = ends[index].labels[0]
            recorder.confirmed(tile, "camera" if tile in committed else "tapped")
    counts = recorder.close()
    assert not eyes.failed
    return {"committed": committed, "held": held, "pending": pending, "counts": counts}


@pytest.fixture(scope="module")
def game(vision, tmp_path_factory):
    """(setup, sequence, what recording it gave, the recording read back), played once."""
    setup = vision.setup("square", vision.WATCH_SIZE)
    rng = np.random.default_rng(5)
    steps = random_steps(setup.table, rng, placements=PLACEMENTS, anomalies=())
    steps.insert(4, Lamp(0.7))
    sequence = vision.trimmed(render_sequence(setup.table, steps, rng))
    folder = tmp_path_factory.mktemp("recorded") / "game"
    played = record_game(folder, setup.calibration, sequence)
    return setup, sequence, played, read_recording(folder)


def frames_of(recording, kind):
    return [m for m in recording.moments if m["kind"] == kind]


def test_the_folder_holds_the_manifest_the_calibration_the_frames_and_the_labels(game):
    setup, _, played, recording = game
    names = sorted(path.name for path in recording.folder.iterdir())
    assert names == ["calibration.json", "frames", "labels.jsonl", "manifest.json", "moments.jsonl"]
    manifest = recording.manifest
    assert (manifest["format"], manifest["version"]) == ("tabletop-recording", 1)
    assert manifest["table"] == "test table" and manifest["source"] == "sim:acquire"
    assert manifest["rules"] == "acquire" and manifest["consent"] and manifest["created"]
    assert manifest["closed"] and manifest["counts"] == played["counts"]
    assert played["counts"]["dropped"] == played["counts"]["failed"] == 0
    assert recording.calibration.image_size == setup.calibration.image_size
    assert np.array_equal(recording.calibration.reference, setup.calibration.reference)
    files = sorted(p.name for p in (recording.folder / "frames").iterdir())
    assert files == sorted({Path(m["file"]).name for m in recording.moments if m.get("file")})
    assert len(files) == played["counts"]["frames"]


def test_each_placement_has_its_before_and_after_frame_as_the_camera_gave_them(game):
    setup, sequence, _, recording = game
    befores, afters = frames_of(recording, "before"), frames_of(recording, "after")
    cell = setup.calibration.layout.cell
    for event in sequence.placements:
        tile = cell(event.labels[0])
        before = max(m["frame"] for m in befores if m["frame"] < event.change)
        after = min(m["frame"] for m in afters if m["frame"] > event.change)
        states = sequence.states
        # Before: still, the tile not yet down; after: still, with it; both lossless.
        assert states[before].clear and tile not in dict(states[before].occupied)
        assert states[after].clear and tile in dict(states[after].occupied)
        assert event.clear_from <= after < event.end
        for frame in (before, after):
            [moment] = [m for m in befores + afters if m["frame"] == frame][:1]
            assert np.array_equal(recording.image(moment), sequence.frame(frame).image)
            assert moment["seconds"] == pytest.approx(frame / sequence.fps)


def test_hand_frames_show_where_the_hand_put_each_tile(game):
    _, sequence, _, recording = game
    hands = frames_of(recording, "hand")
    for label in recording.labels:
        visit = [m for m in hands if label["hand"] <= m["frame"] < label["frame"]]
        assert visit[0]["frame"] == label["hand"]
        assert any(label["tile"] in m["covered"] for m in visit), label
    # Far fewer than the frames a hand was over: only those covering new cells.
    busy = sum(1 for state in sequence.states if not state.clear)
    assert len(hands) < busy / 2


def test_labels_are_the_confirmed_tiles_with_their_visit_and_the_board_after(game):
    setup, sequence, played, recording = game
    labels = recording.labels
    placed = [event.labels[0] for event in sequence.placements]
    assert [label["tile"] for label in labels] == placed
    assert played["committed"] == placed                  # the easy table: all by the camera
    assert {label["how"] for label in labels} == {"camera"}
    afters = {m["frame"]: m for m in frames_of(recording, "after")}
    for number, (label, event) in enumerate(zip(labels, sequence.placements)):
        assert label["frame"] in afters and afters[label["frame"]]["hand"] == label["hand"]
        assert event.start <= label["before"] < label["hand"] < label["frame"] < event.end
        assert sorted(label["board"], key=setup.calibration.layout.cell) == \
            sorted(placed[:number + 1], key=setup.calibration.layout.cell)


def test_the_eyes_decisions_are_moments(game):
    _, sequence, _, recording = game
    commits = frames_of(recording, "commit")
    assert [m["tile"] for m in commits] == [e.labels[0] for e in sequence.placements]
    assert all(m["seconds"] == pytest.approx(m["frame"] / sequence.fps) for m in commits)
    [reference] = frames_of(recording, "reference")
    assert reference["board"] == [] and reference["file"]
    assert frames_of(recording, "expect") == [{"frame": None, "seconds": None, "kind": "expect",
                                               "board": []}]


def test_the_recorder_never_holds_more_than_one_frame(game):
    _, _, played, _ = game
    assert played["held"] == 1
    assert played["pending"] <= rec.QUEUE and played["counts"]["dropped"] == 0


# --- the recorder's rules, on plain frames --------------------------------------------------

@pytest.fixture
def square(vision):
    return vision.setup("square", vision.WATCH_SIZE).calibration


def blank(value: int = 0) -> np.ndarray:
    return np.full((480, 640, 3), value, np.uint8)


def lines(folder: Path, name: str) -> list[dict]:
    return [json.loads(line) for line in (folder / name).read_text().splitlines()]


def test_a_hand_frame_is_kept_when_it_covers_new_cells_and_a_doubt_keeps_its_frame(square,
                                                                                  tmp_path):
    with Recorder(tmp_path / "r", square, background=False) as recorder:
        recorder.frame(0, 0.0, blank(1), hand_over=False)
        recorder.frame(1, 0.1, blank(2), hand_over=True, covered={0, 1})
        recorder.frame(2, 0.2, blank(3), hand_over=True, covered={1})
        recorder.frame(3, 0.3, blank(4), hand_over=True, covered={"1B", "3A"})
        assert recorder.held == 0              # the before-frame went to the writer
        recorder.frame(4, 0.4, blank(5), hand_over=False)
        recorder.frame(5, 0.5, blank(5), hand_over=False)
        recorder.sighting(ChangesSeen(5, "cannot tell whether 2A holds a tile"))
        recorder.sighting(ChangesSeen(5, "2 new tiles at once", new=("2A", "3A")))
        assert recorder.held == 1
    moments = lines(tmp_path / "r", "moments.jsonl")
    assert [(m["frame"], m["kind"]) for m in moments] == \
        [(0, "before"), (1, "hand"), (3, "hand"), (4, "after"), (5, "doubt"), (5, "refusal")]
    names = square.layout.geometry.labels
    assert moments[1]["covered"] == [names[0], names[1]]
    assert moments[2]["covered"] == sorted(["1B", "3A"], key=names.index)
    assert moments[5]["new"] == ["2A", "3A"] and moments[4]["file"] == moments[5]["file"]
    assert sorted(p.name for p in (tmp_path / "r" / "frames").iterdir()) == \
        ["000000.png", "000001.png", "000003.png", "000004.png", "000005.png"]


def test_a_tile_the_camera_proposes_unsure_of_is_a_doubt_with_its_frame(square, tmp_path):
    @dataclasses.dataclass(frozen=True)
    class Doubted:          # as tabletop.geometry.sightings' doubt of one tile
        frame: int
        tile: str
        reason: str = "unsure"

    with Recorder(tmp_path / "r", square, background=False) as recorder:
        recorder.frame(7, 0.7, blank(), hand_over=False)
        recorder.sighting(Doubted(7, "10D"))
        recorder.confirmed("10D")                   # how: from what the eyes proposed
        recorder.sighting(TileSeen(7, "11D"))
        recorder.confirmed("11D")
        recorder.confirmed("12D")
    assert [label["how"] for label in lines(tmp_path / "r", "labels.jsonl")] == \
        ["unsure-confirmed", "camera", "tapped"]
    [moment, _] = lines(tmp_path / "r", "moments.jsonl")
    assert moment == {"frame": 7, "seconds": 0.7, "kind": "doubt", "file": "frames/000007.png",
                      "tile": "10D", "reason": "unsure"}


def test_a_placement_confirmed_while_the_camera_sees_a_hand_waits_for_its_after_frame(square,
                                                                                     tmp_path):
    with Recorder(tmp_path / "r", square, background=False) as recorder:
        recorder.expect(["12I"])
        recorder.frame(10, 1.0, blank(), hand_over=False)
        recorder.frame(11, 1.1, blank(), hand_over=True)
        recorder.confirmed("5C", "tapped")          # the camera still reads the board covered
        recorder.confirmed("6C", "unsure-confirmed")
        recorder.undone("6C")
        recorder.frame(30, 3.0, blank(), hand_over=False)
        recorder.confirmed("7C", "camera")
        recorder.undone("7C")
        with pytest.raises(ValueError):
            recorder.confirmed("8C", "guessed")
    labels = lines(tmp_path / "r", "labels.jsonl")
    assert labels == [{"tile": "5C", "how": "tapped", "frame": 30, "seconds": 3.0, "hand": 11,
                       "before": 10, "board": ["5C", "12I"]},
                      {"tile": "7C", "how": "camera", "frame": 30, "seconds": 3.0, "hand": 11,
                       "before": 10, "board": ["5C", "7C", "12I"]},
                      {"undo": "7C"}]
    assert [label["tile"] for label in read_recording(tmp_path / "r").labels] == ["5C"]
    assert set(HOWS) == {"camera", "tapped", "unsure-confirmed"}


def test_a_full_queue_drops_frames_and_counts_them_instead_of_waiting(square, tmp_path,
                                                                      monkeypatch):
    gate = threading.Event()
    written = rec._Writer._image

    def slow(self, name, image):    # a disk that takes its time
        gate.wait(10)
        written(self, name, image)

    monkeypatch.setattr(rec._Writer, "_image", slow)
    recorder = Recorder(tmp_path / "r", square, limit=2)
    for index in range(12):      # hand, still, hand, still ...: a before, a hand and an after each
        recorder.frame(index, index / 10, blank(index), hand_over=index % 2 == 1)
        assert recorder.pending <= 2 and recorder.held <= 1
    dropped = recorder.counts["dropped"]
    assert dropped >= 8
    gate.set()
    counts = recorder.close()
    assert counts["dropped"] == dropped and counts["frames"] + dropped == 12
    recording = read_recording(tmp_path / "r")          # the dropped frames are not "missing"
    assert recording.dropped == dropped
    assert json.loads((tmp_path / "r" / "manifest.json").read_text())["counts"] == counts


def test_a_failing_recorder_never_stops_the_eyes(square, tmp_path):
    class Eyes:
        last = None

        def feed(self, index, seconds, image):
            return [TileSeen(index, "5C")]

    recorder = Recorder(tmp_path / "r", square, background=False)
    recorder.frame = None                                   # broken: not callable
    eyes = RecordingEyes(Eyes(), recorder)
    assert eyes.feed(3, 0.3, blank()) == [TileSeen(3, "5C")]
    assert eyes.failed
    recorder.close()


def test_a_recording_is_never_written_over(square, tmp_path):
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "labels.jsonl").write_text("")
    with pytest.raises(RecordingError, match="not an empty folder"):
        Recorder(tmp_path / "old", square)


def test_bad_recordings_are_refused_with_the_reason(square, tmp_path):
    folder = tmp_path / "r"
    with Recorder(folder, square, background=False) as recorder:
        recorder.frame(0, 0.0, blank(), hand_over=False)
        recorder.frame(1, 0.1, blank(), hand_over=True)
    read_recording(folder)
    with pytest.raises(RecordingError, match="is not a recording"):
        read_recording(tmp_path)
    moments = (folder / "moments.jsonl").read_text()
    (folder / "moments.jsonl").write_text(moments + '{"frame": 2, "kind": "after", "seconds": 1, '
                                          '"file": "../../etc/passwd"}\n')
    with pytest.raises(RecordingError, match="line 3 is damaged"):
        read_recording(folder)
    (folder / "moments.jsonl").write_text(moments)
    (folder / frame_name(1, "png")).unlink()
    with pytest.raises(RecordingError, match="frame frames/000001.png is missing"):
        read_recording(folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    (folder / "manifest.json").write_text(json.dumps({**manifest, "version": 99}))
    with pytest.raises(RecordingError, match="format 99"):
        read_recording(folder)
    (folder / "manifest.json").write_text('{"format": "tabletop-rec')
    with pytest.raises(RecordingError, match="damaged"):
        read_recording(folder)
