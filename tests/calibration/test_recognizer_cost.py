"""What a hand costs the recognizer: no fresh pose for a placement, yet a lost pose is found.

A hand over the board keeps it from reading clear, which is also what a grid
knocked a few pixels off looks like; the recognizer doubts its pose only once
the board has gone unclear for longer than a placement takes
(``UNCLEAR_SECONDS``), and searches the whole frame for a hidden marker only
once it has been missing for SEARCH_EVERY frames. Costs are counted in calls
(fresh pose trackers made, whole-frame searches), never timed.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import calibration.pose as pose_module
import calibration.recognize as recognize
from calibration.recognize import UNCLEAR_SECONDS, Recognizer
from calibration.synthetic.render import render, render_scene
from calibration.synthetic.scenes import Hand, Scene
from calibration.warp import project

TILES = ["5C", "6D", "12I"]
FPS = 10


@pytest.fixture
def square(vision):
    return vision.setup("square", vision.WATCH_SIZE)


@pytest.fixture
def costs(monkeypatch):
    """Counts of fresh pose trackers the recognizer makes and of whole-frame searches."""
    counted = {"fresh": 0, "searches": 0}

    class Counted(recognize.PoseTracker):
        def __init__(self, *args, **kwargs):
            counted["fresh"] += 1
            super().__init__(*args, **kwargs)

    search = pose_module._search

    def searched(*args, **kwargs):
        counted["searches"] += 1
        return search(*args, **kwargs)

    monkeypatch.setattr(recognize, "PoseTracker", Counted)
    monkeypatch.setattr(pose_module, "_search", searched)
    return counted


def hand_frames(setup, rng, seconds: float, grip: np.ndarray, step: tuple[float, float],
                angle: float = np.pi / 2):
    """A hand pointing at ``angle`` moving ``step`` pixels a frame from ``grip`` for
    ``seconds`` (never still: a still picture would not be read again)."""
    for index in range(int(round(seconds * FPS))):
        at = grip + np.asarray(step) * index
        hand = Hand(grip=(float(at[0]), float(at[1])), angle=angle, width=60.0)
        yield render_scene(setup.table, TILES, Scene(hands=(hand,)), rng)


def warmed(setup, rng) -> Recognizer:
    recognizer = Recognizer(setup.calibration, verify=True)
    for _ in range(2):
        assert recognizer.read(render(setup.table, TILES, rng).image).clear
    return recognizer


def test_a_hand_over_a_marker_for_a_whole_placement_costs_no_fresh_pose_and_no_search(
        square, costs):
    rng = np.random.default_rng(7)
    recognizer = warmed(square, rng)
    made = costs["fresh"]
    # A hand reaching for the cells nearest a marker, its arm over the marker.
    marker = square.calibration.distort(
        project(recognizer.poses._ideal, square.calibration.markers[0])).mean(axis=0)
    inward = np.asarray(square.calibration.corners_px, float).mean(axis=0) - marker
    inward /= np.linalg.norm(inward)
    seen = [recognizer.read(frame.image)
            for frame in hand_frames(square, rng, 1.5, marker + 50 * inward, tuple(inward),
                                     angle=float(np.arctan2(inward[1], inward[0])))]
    # The hand did cover the marker and kept the board from reading clear throughout.
    assert not any(s.clear for s in seen) and min(s.markers for s in seen) < 4
    assert costs["fresh"] == made and costs["searches"] == 0
    after = render(square.table, TILES, rng)
    read = recognizer.read(after.image)
    assert read.clear and read.markers == 4 and read.occupied == after.truth.occupied


def test_a_hand_lingering_past_unclear_seconds_gets_one_fresh_look_and_keeps_the_pose(
        square, costs):
    rng = np.random.default_rng(9)
    recognizer = warmed(square, rng)
    followed, made = recognizer.poses, costs["fresh"]
    centre = np.asarray(square.calibration.corners_px, float).mean(axis=0)
    looked = []
    for index, frame in enumerate(hand_frames(square, rng, UNCLEAR_SECONDS + 0.5,
                                              centre + (-50.0, 20.0), (3.0, 0.0))):
        recognizer.taken_at(1.0 + index / FPS)
        seen = recognizer.read(frame.image)
        assert not seen.clear
        looked.append(costs["fresh"] - made)
    # Nothing before the board has been unclear for UNCLEAR_SECONDS (the first hand frame
    # was at 1.0 s); then the safety net looks, finds the pose where the markers say, and
    # keeps following it.
    first = looked.index(1)
    assert first == round(UNCLEAR_SECONDS * FPS)
    assert recognizer.poses is followed


def test_a_pose_knocked_off_under_a_hand_is_found_afresh_at_once(square, costs):
    rng = np.random.default_rng(8)
    recognizer = warmed(square, rng)
    centre = np.asarray(square.calibration.corners_px, float).mean(axis=0)
    frames = hand_frames(square, rng, 1.5, centre + (-50.0, 20.0), (3.0, 0.0))
    for frame in [next(frames) for _ in range(3)]:
        recognizer.read(frame.image)
    # From now on the followed pose lies 6 px off the board (as a knock followed halfway
    # would leave it): with a hand over the board too, its cells make no sense.
    update, off = recognizer.poses.update, np.array([[1, 0, 6.0], [0, 1, 3.0], [0, 0, 1]])
    recognizer.poses.update = lambda grey: dataclasses.replace(update(grey),
                                                               matrix=off @ update(grey).matrix)
    made = costs["fresh"]
    frame = next(frames)
    recognizer.read(frame.image)
    assert costs["fresh"] > made
    corners = project(recognizer.poses.matrix, square.calibration.layout.corner_points())
    assert float(np.abs(corners - frame.truth.corners).max()) < 1.0
