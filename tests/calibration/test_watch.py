"""``watch`` on rendered game sequences: every placement committed once, the rest warned about.

Each layout plays a short scripted game (``calibration.synthetic.sequences``) at 10
frames a second, and ``watch``'s lines are checked against the sequences'
truth (``vision.watch_problems``): each placement's tile committed exactly
once, in order, at its cell, from the frame the hand left the board to a
second after; one warning for two tiles at once and for a removed tile (a
moved tile: ``test_vision_cli``'s game); nothing for a lamp, a leaning player's shadow, hidden markers or a
bumped board; and never a decision at a frame with a hand over the board.

Frames are 640x480 and the still stretches between steps are cut to 1.2 s
(``vision.trimmed``): a game is hundreds of frames and the whole vision test
set must stay near a minute. Each game is played once and shared by the two
tests that check its parts (before the board is bumped, and from then on).
"""

from __future__ import annotations

import numpy as np
import pytest

from calibration.warp import project
from calibration.recognize import UNCLEAR_FRAMES, Recognizer, watch
from calibration.synthetic.render import render, render_scene
from calibration.synthetic.scenes import Scene
from calibration.synthetic.sequences import (Bump, HideMarkers, Lamp, Lean, Place, PlaceTwo, Remove,
                                   render_sequence)
from calibration.tracker import HOLD, Reading, StabilityTracker

#: One game per layout: a tile on the board from the start, then placements and anomalies
#: with the room's nuisances between them, a hand that lingers after putting its tile down
#: (step 3), and at the end a knock on the board and one more placement.
GAMES = {
    "square": dict(initial="12I", lingers=3, steps=[
        Place("5C"), Lamp(0.6), PlaceTwo(("2B", "9G")), Place("6D"), Lean(0.6), Remove("5C"),
        Bump((0.25, 0.15, 1.5)), Place("8F")]),
    "hex-odd": dict(initial="N-13", lingers=3, steps=[
        Place("C-5"), Lamp(1.4), PlaceTwo(("B-2", "J-9")), Place("F-6"), Lean(0.6),
        Remove("C-5"), Bump((-0.2, 0.1, -2.0)), Place("H-3")]),
    "quadrant": dict(initial="4/E-6", lingers=3, steps=[
        Place("1/B-2"), Lamp(0.6), PlaceTwo(("2/C-3", "3/D-4")), Place("4/A-5"), Lean(0.6),
        Remove("1/B-2"), HideMarkers((0, 2), 1.0), Bump((0.25, -0.15, 2.0)), Place("2/A-6")]),
}
LAYOUTS = sorted(GAMES)
#: Seconds the lingering hand stays still over the board: twice the tracker's hold time.
LINGER = 2 * HOLD
_played: dict = {}


@pytest.fixture
def play(vision):
    """``play(layout)``: the layout's game as (sequence, watch's lines), played once per session."""
    def played(layout):
        if layout not in _played:
            game = GAMES[layout]
            setup = vision.setup(layout, vision.WATCH_SIZE)
            sequence = render_sequence(setup.table, game["steps"], np.random.default_rng(1),
                                       initial={game["initial"]: None})
            sequence = vision.trimmed(vision.lingering(sequence, game["lingers"], LINGER))
            lines = list(watch(vision.frames(sequence), setup.calibration, HOLD))
            _played[layout] = sequence, lines
        return _played[layout]
    return played


def bump_at(sequence):
    return [event.kind for event in sequence.events].index("bump")


@pytest.mark.parametrize("layout", LAYOUTS)
def test_placements_are_committed_once_and_the_rest_is_warned_about_or_ignored(
        play, vision, layout):
    sequence, lines = play(layout)
    kinds = [event.kind for event in sequence.events]
    assert {"place", "place_two", "remove", "lamp", "lean", "bump"} <= set(kinds)
    # The board held a tile from the start: that is the reference, not a placement.
    assert sequence.states[0].occupied and sequence.events[0].start > 0
    # The lingering hand stays over the board well past the hold time after its tile went down.
    lingered = sequence.events[GAMES[layout]["lingers"]]
    assert lingered.kind == "place"
    assert (lingered.clear_from - lingered.change) / sequence.fps > LINGER
    assert vision.watch_problems(sequence, lines, events=slice(0, bump_at(sequence))) == []


# (The quadrant game's knock leaves a cell undecided that no hand was over: it used to hold
# every decision back, and the placement after the knock was missed.)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_bumped_board_is_followed(play, vision, layout):
    sequence, lines = play(layout)
    assert vision.watch_problems(sequence, lines, events=slice(bump_at(sequence), None)) == []


# --- the tracker alone: readings in, decisions out -------------------------------------------

def feed(tracker, readings, fps=10, start=0):
    """Every decision of ``tracker`` over ``readings`` (one a frame from frame ``start``)."""
    decided = []
    for index, reading in enumerate(readings, start):
        decided += tracker.feed(index, index / fps, reading)
    return decided


def reading(occupied=(), uncertain=(), clear=True):
    return Reading(frozenset(occupied), frozenset(uncertain), clear)


def test_the_tracker_commits_one_new_tile_only_on_a_clear_still_board():
    tracker = StabilityTracker(HOLD)
    assert [d.kind for d in feed(tracker, [reading({1})] * 10)] == ["reference"]
    hand = [reading({1, 5, 6, 7}, clear=False)] * 30  # a hand, however long, decides nothing
    assert feed(tracker, hand, start=10) == []
    decided = feed(tracker, [reading({1, 5})] * 10, start=40)
    assert [(d.kind, d.cell, d.frame) for d in decided] == [("commit", 5, 45)]
    # Tiles come and go under a hand: the hand is over them first.
    feed(tracker, [reading({1, 5, 8, 9}, clear=False)] * 3, start=47)
    decided = feed(tracker, [reading({1, 5, 8, 9})] * 10, start=50)
    assert [d.kind for d in decided] == ["warning"] and "2 new tiles" in decided[0].message
    feed(tracker, [reading({1, 5, 8, 9}, clear=False)] * 3, start=60)
    decided = feed(tracker, [reading({5, 8, 9})] * 10, start=63)
    assert [d.kind for d in decided] == ["warning"] and "gone from 1" in decided[0].message


def test_a_cell_flickering_between_empty_and_uncertain_does_not_silence_the_tracker():
    tracker = StabilityTracker(HOLD)
    feed(tracker, [reading()] * 10)  # the empty board: the reference
    feed(tracker, [reading({4, 5}, clear=False)] * 3, start=10)  # the hand puts a tile on 5
    flicker = [reading({5}, uncertain={9} if k % 2 else ()) for k in range(50)]
    decided = feed(tracker, flicker, start=13)
    # Five seconds after the placement: committed, or at least the table told to look.
    kinds = [d.kind for d in decided]
    assert kinds in (["commit"], ["warning"], ["commit", "warning"])
    assert decided[0].cell == 5 or "cannot tell" in decided[0].message


# --- failure modes of the benchmark's games (bench/vision.py, seed 0), as readings ------------
# Each pattern below is what the classifier read, frame by frame, in one of the games.

def hand(cells=(4, 5, 6), frames=5):
    return [reading(cells, clear=False)] * frames


def test_a_new_tile_read_undecided_now_and_then_is_committed_within_a_second():
    # Square game 2, frames 32-51: a low-contrast tile read as a tile, then undecided, by turns.
    # Stillness judged on the cells read as tiles started again at each change: 1.9 s late.
    tracker = StabilityTracker(HOLD)
    feed(tracker, [reading()] * 10)
    feed(tracker, hand(), start=10)
    flicker = [reading({5}) if c == "O" else reading(uncertain={5}) for c in "OOUUUUOOUUUOUUOOOOOO"]
    decided = feed(tracker, flicker, start=15)
    assert [(d.kind, d.cell) for d in decided] == [("commit", 5)]
    assert decided[0].frame - 15 < 10


def test_a_tile_moved_off_a_flickering_tile_is_a_move_not_a_placement():
    # Square game 2, frames 95-152: 11D (flickering) was never committed, so moving it to
    # 10I looked like placing 10I, and 10I was committed.
    tracker = StabilityTracker(HOLD)
    feed(tracker, [reading()] * 10)
    feed(tracker, hand(), start=10)
    flicker = [reading({5}) if c == "O" else reading(uncertain={5}) for c in "OOUUUUOOUUUO"]
    decided = feed(tracker, flicker, start=15)
    decided += feed(tracker, hand((4, 5, 8, 9)), start=27)
    decided += feed(tracker, [reading({9})] * 15, start=32)
    assert [(d.kind, d.cell) for d in decided] == [("commit", 5), ("warning", None)]
    assert "moved from 5 to 9" in decided[1].message


def test_empty_cells_flickering_undecided_do_not_hold_a_placement_back():
    # Square game 1, frames 235-261: empty 7I, 9E, 12A read undecided in most frames (never as
    # tiles); no decision was made while any was, and 4H came 2.7 s late.
    tracker = StabilityTracker(HOLD)
    feed(tracker, [reading()] * 10)
    feed(tracker, hand(), start=10)
    doubts = [{9}, {7}, {9}, set(), {7}, {7, 9, 11}, {7, 9}, {7}, {7}, {7, 9, 11}, {7, 9}, {7}]
    decided = feed(tracker, [reading({5}, uncertain=u) for u in doubts], start=15)
    assert [(d.kind, d.cell) for d in decided] == [("commit", 5)]


def test_a_hand_read_as_a_clear_board_still_counts_as_a_hand():
    # Odd-row hex game, frames 180-187: a hand over the board read clear, its cells as tiles.
    tracker = StabilityTracker(HOLD)
    feed(tracker, [reading({1})] * 10)
    feed(tracker, [reading({1, 5, 6, 7, 8} | set(range(20, 20 + k))) for k in range(6, 0, -1)],
         start=10)
    decided = feed(tracker, [reading({1, 5})] * 10, start=16)
    assert [(d.kind, d.cell) for d in decided] == [("commit", 5)]


def test_cells_that_change_where_no_hand_was_are_misreadings_not_moves():
    # A tile read empty for a while with no hand near it, then read again, was warned about
    # as taken away and then committed as a new placement: a wrong commit.
    tracker = StabilityTracker(HOLD)
    feed(tracker, [reading({1, 2})] * 10)
    decided = feed(tracker, [reading({2})] * 20, start=10)        # 1 misread as empty
    decided += feed(tracker, [reading({1, 2, 30})] * 20, start=30)  # back, and a lamp's misreading
    assert decided == []
    assert tracker.reference == {1, 2}
    feed(tracker, hand((1, 2, 3)), start=50)
    decided = feed(tracker, [reading({1, 2, 3, 30})] * 10, start=55)
    assert [(d.kind, d.cell) for d in decided] == [("commit", 3)]


def test_a_cell_undecided_for_good_is_warned_about_once_and_then_let_be():
    # The quadrant game of this module after its knock: a cell the hand was over stays
    # undecided; no decision was made from then on, so the next placement was never committed.
    tracker = StabilityTracker(HOLD)
    feed(tracker, [reading()] * 10)
    feed(tracker, hand((4, 5, 6)), start=10)
    decided = feed(tracker, [reading(uncertain={5})] * 40, start=15)
    assert [d.kind for d in decided] == ["warning"] and "cannot tell whether 5" in decided[0].message
    feed(tracker, hand((8, 9)), start=55)
    decided = feed(tracker, [reading({9}, uncertain={5})] * 10, start=60)
    assert [(d.kind, d.cell) for d in decided] == [("commit", 9)]


# --- a small knock that the pose follows only halfway -----------------------------------------

@pytest.mark.parametrize("knock", [(-0.27, 0.28, -0.6), (0.2, -0.2, 0.5)])
def test_a_grid_left_a_few_pixels_off_by_a_knock_is_found_again(vision, knock):
    # Square game 1 (frames 477-590): after a knock of a few pixels with one smeared frame, the
    # pose kept the mid-jolt grid (6 px off): 44 empty cells read as tiles, then the board read
    # unreadable or never clear, and the last placement was missed. (1280x960: at 640x480 a
    # pixel more or less does not show.)
    setup = vision.setup("square")
    table = setup.table
    recognizer = Recognizer(setup.calibration, verify=True)
    rng = np.random.default_rng(4)
    tiles = ["5C", "6D", "12I"]
    for _ in range(2):
        recognizer.read(render(table, tiles, rng).image)
    recognizer.read(render_scene(table, tiles, Scene(bump=tuple(v / 2 for v in knock),
                                                     motion=(6.0, 0.5)), rng).image)
    # A grid off but read clear is found at once; one that makes the board look covered,
    # once it has looked so for UNCLEAR_FRAMES frames at most.
    for _ in range(UNCLEAR_FRAMES + 1):
        frame = render_scene(table, tiles, Scene(bump=knock), rng)
        seen = recognizer.read(frame.image)
        corners = project(recognizer.poses.matrix, setup.calibration.layout.corner_points())
        if seen.clear and float(np.abs(corners - frame.truth.corners).max()) < 1.5:
            break
    assert float(np.abs(corners - frame.truth.corners).max()) < 1.5
    assert seen.clear and seen.occupied == frame.truth.occupied


def test_a_tile_taken_from_a_cell_that_could_not_be_read_is_not_committed_elsewhere():
    # Even-row hex game, frames 194-409: two glossy tiles put down at once were not seen
    # (N-13, D-11); moving N-13 to L-4 then looked like placing L-4, and L-4 was committed.
    # A classifier that doubts such tiles (rather than reading them empty) lets the tracker
    # see the move: it warns about the doubt, and counts the cell read empty again as emptied.
    tracker = StabilityTracker(HOLD)
    feed(tracker, [reading({1})] * 10)
    feed(tracker, hand((4, 5, 6, 7)), start=10)
    decided = feed(tracker, [reading({1}, uncertain={5, 7})] * 35, start=15)
    assert [d.kind for d in decided] == ["warning"] and "cannot tell" in decided[0].message
    feed(tracker, hand((5, 8, 9)), start=50)
    decided = feed(tracker, [reading({1, 9}, uncertain={7})] * 10, start=55)
    assert [d.kind for d in decided] == ["warning"] and "moved from 5 to 9" in decided[0].message


def test_a_cell_hard_to_read_before_the_hand_came_does_not_hold_a_placement_back():
    # Square game 1, frames 478-590: after the knock empty 12A read undecided in most frames;
    # the hand putting 8F down passed over it, and its doubt held 8F back past the game's end.
    tracker = StabilityTracker(HOLD)
    feed(tracker, [reading({1})] * 10)
    feed(tracker, hand((1, 3)), start=10)
    feed(tracker, [reading({1, 3}, uncertain={7} if k % 4 else ()) for k in range(20)], start=15)
    feed(tracker, hand((5, 6, 7)), start=35)
    decided = feed(tracker, [reading({1, 3, 5}, uncertain={7})] * 10, start=40)
    assert [(d.kind, d.cell) for d in decided] == [("commit", 5)]


def test_a_doubt_still_open_when_the_next_hand_comes_does_not_hold_its_tile_back():
    # Even-row hex game with a classifier that doubts glossy tiles: N-13 and D-11, put down
    # at once, stayed undecided; the next player came 2 s later, and L-12 waited on that
    # doubt until it was warned about (3 s) and taken in uncommitted: missed.
    tracker = StabilityTracker(HOLD)
    feed(tracker, [reading({1})] * 10)
    feed(tracker, hand((4, 5, 6, 7)), start=10)
    assert feed(tracker, [reading({1}, uncertain={5, 7})] * 20, start=15) == []
    feed(tracker, hand((8, 9)), start=35)
    decided = feed(tracker, [reading({1, 9}, uncertain={5, 7})] * 10, start=40)
    assert [(d.kind, d.cell) for d in decided] == [("warning", None), ("commit", 9)]
    assert "cannot tell whether 5, 7" in decided[0].message
    assert all(d.frame >= 45 for d in decided)  # once the board is still: no hand over it
