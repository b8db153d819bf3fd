"""``watch`` on rendered game sequences: every placement committed once, the rest warned about.

Each layout plays a short scripted game (``calibration.sequences``) at 10
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

from calibration.recognize import watch
from calibration.sequences import (Bump, HideMarkers, Lamp, Lean, Place, PlaceTwo, Remove,
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


_BUMP = pytest.mark.xfail(strict=True, reason=(
    "after the quadrant board is knocked a cell stays undecided, and the tracker makes no "
    "decision while a cell that may newly hold a tile is undecided (it warns after 3 s), so "
    "the placement after the knock (2/A-6) is not committed: missed, never wrong"))


@pytest.mark.parametrize("layout", [pytest.param(name, marks=_BUMP) if name == "quadrant" else name
                                    for name in LAYOUTS])
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
    decided = feed(tracker, [reading({1, 5, 8, 9})] * 10, start=50)
    assert [d.kind for d in decided] == ["warning"] and "2 new tiles" in decided[0].message
    decided = feed(tracker, [reading({5, 8, 9})] * 10, start=60)
    assert [d.kind for d in decided] == ["warning"] and "gone from 1" in decided[0].message


def test_a_cell_flickering_between_empty_and_uncertain_does_not_silence_the_tracker():
    tracker = StabilityTracker(HOLD)
    feed(tracker, [reading()] * 10)  # the empty board: the reference
    flicker = [reading({5}, uncertain={9} if k % 2 else ()) for k in range(50)]
    decided = feed(tracker, flicker, start=10)
    # Five seconds after the placement: committed, or at least the table told to look.
    kinds = [d.kind for d in decided]
    assert kinds in (["commit"], ["warning"], ["commit", "warning"])
    assert decided[0].cell == 5 or "cannot tell" in decided[0].message
