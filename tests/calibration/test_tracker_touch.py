"""Which cells a hand was over: a tile put down in the hand's shadow may read undecided until it leaves.

Pure tracker tests over hand-made readings (what the classifier would report
frame by frame); the rendered games are in test_watch.py and test_time_cue.py.
"""

from __future__ import annotations

from calibration.tracker import ASK, UNDECIDED, Reading, StabilityTracker

FPS = 10
HOLD = 0.5
EMPTY = Reading(frozenset(), frozenset(), True)


def feed(tracker: StabilityTracker, start: int, readings: list[Reading]) -> list:
    decided = []
    for offset, reading in enumerate(readings):
        frame = start + offset
        decided += tracker.feed(frame, frame / FPS, reading)
    return decided


def referenced(board: Reading = EMPTY) -> StabilityTracker:
    tracker = StabilityTracker(hold=HOLD)
    assert [d.kind for d in feed(tracker, 0, [board] * 8)] == ["reference"]
    return tracker


def hand(occupied: set[int], uncertain: set[int]) -> Reading:
    return Reading(frozenset(occupied), frozenset(uncertain), False)


def still(frames: float, occupied: set[int] = frozenset(), uncertain: set[int] = frozenset(),
          changed: set[int] | None = None) -> list[Reading]:
    reading = Reading(frozenset(occupied), frozenset(uncertain), True,
                      None if changed is None else frozenset(changed))
    return [reading] * int(frames * FPS)


def test_a_tile_read_undecided_under_the_hand_is_committed_once_it_reads_as_a_tile():
    # The arm reads as tiles over cells 3-4; the tile it puts on cell 9 only as undecided.
    tracker = referenced()
    feed(tracker, 8, [hand({3, 4}, {9})] * 5)
    decided = feed(tracker, 13, still(1.0, occupied={9}))
    assert [(d.kind, d.cell) for d in decided] == [("commit", 9)]


def test_a_tile_still_undecided_after_the_hand_that_alone_changed_is_asked_about():
    tracker = referenced()
    feed(tracker, 8, [hand({3, 4}, {9})] * 5)
    decided = feed(tracker, 13, still(ASK + 0.5, uncertain={9}, changed={9}))
    assert [(d.kind, d.cell, d.reason) for d in decided] == [("doubt", 9, "unsure")]


def test_a_cell_already_hard_to_read_before_the_hand_is_not_taken_for_its_placement():
    # Cell 9 flickers undecided on the still board (a glare spot): the hand passing over it
    # is no placement there, whatever it reads after.
    tracker = StabilityTracker(hold=HOLD)
    flicker = [EMPTY, Reading(frozenset(), frozenset({9}), True)] * 4
    assert [d.kind for d in feed(tracker, 0, flicker)] == ["reference"]
    feed(tracker, 8, [hand({3, 4}, {9})] * 5)
    decided = feed(tracker, 13, still(1.0, uncertain={9}, changed={9}) * 4)
    assert [d for d in decided if d.kind in ("commit", "doubt")] == []


def test_undecided_cells_under_a_hand_that_read_empty_after_it_change_nothing():
    # The hand's shadow leaves cells undecided while it is there; gone, they read bare again.
    tracker = referenced()
    feed(tracker, 8, [hand({3, 4}, {5, 6, 9})] * 5)
    decided = feed(tracker, 13, still(1.0, occupied={4}))
    assert [(d.kind, d.cell) for d in decided] == [("commit", 4)]


# --- a board no frame can read -----------------------------------------------------------

BLIND = Reading(frozenset(), frozenset(range(20)), True, readable=False)


def test_a_board_no_frame_can_read_for_seconds_is_told_to_the_table_once():
    tracker = referenced()
    quiet = feed(tracker, 8, [BLIND] * 29)           # 2.9 s: a lamp switched on, say
    told = feed(tracker, 37, [BLIND] * 40)
    assert quiet == []
    assert [(d.kind, d.frame) for d in told] == [("warning", 38)]
    assert str(told[0].message) == ("cannot read the board: too much glare, too dark or out of "
                                    "focus; move the lamp or check the camera, or enter tiles "
                                    "by hand")


def test_a_board_readable_again_then_blind_again_is_told_again_and_nothing_is_committed():
    tracker = referenced()
    first = feed(tracker, 8, [BLIND] * 35)
    back = feed(tracker, 43, [EMPTY] * 10)
    again = feed(tracker, 53, [BLIND] * 35)
    assert [d.kind for d in first] == ["warning"] and back == []
    assert [d.kind for d in again] == ["warning"]


# --- a tile the classifier barely sees, beside one it sees ---------------------------------

def test_a_touched_cell_read_undecided_half_the_time_holds_its_neighbour_back_from_a_commit():
    # Two tiles put down at once: 9 reads as a tile, 12 (low contrast) now empty, now
    # undecided. Committing 9 alone would commit half of a two-tile placement.
    tracker = referenced()
    feed(tracker, 8, [hand({9, 12}, set())] * 5)
    flicker = [Reading(frozenset({9}), frozenset({12}), True),
               Reading(frozenset({9}), frozenset(), True)] * 25
    decided = feed(tracker, 13, flicker)
    assert [d.kind for d in decided] == ["warning"]
    assert "12 holds a tile" in str(decided[0].message)


def test_a_cell_read_undecided_now_and_then_beside_the_new_tile_does_not_hold_it_back():
    tracker = referenced()
    feed(tracker, 8, [hand({9, 12}, set())] * 5)
    mostly_empty = ([Reading(frozenset({9}), frozenset({12}), True)] +
                    [Reading(frozenset({9}), frozenset(), True)] * 3) * 3
    decided = feed(tracker, 13, mostly_empty)
    assert [(d.kind, d.cell) for d in decided] == [("commit", 9)]


def flaky_spot_then_hand() -> StabilityTracker:
    # A tile is put on cell 1; on the board after it cell 9 reads undecided (a glare spot
    # the hand did not pass over); then a hand comes over cell 9 and cell 5.
    tracker = referenced()
    feed(tracker, 8, [hand({1, 2}, set())] * 3)
    assert [(d.kind, d.cell) for d in feed(tracker, 11, still(0.8, {1}, {9}))] == [("commit", 1)]
    feed(tracker, 19, [hand({3, 4, 5, 9}, set())] * 5)
    return tracker


def test_a_tile_beside_a_glare_spot_the_hand_was_over_is_not_committed_alone():
    # Held-out square game (seed 0), once the grid sat right on the cells: a two-tile
    # placement's low-contrast tile fell on a cell that read undecided before it came; the
    # other tile alone was committed. The time cue saw the spot change: held back, then told.
    tracker = flaky_spot_then_hand()
    decided = feed(tracker, 24, still(UNDECIDED + 0.5, occupied={1, 5}, uncertain={9},
                                      changed={5, 9}))
    assert [d.kind for d in decided] == ["warning"]
    assert "cannot tell whether 9 holds a tile" in str(decided[0].message)


def test_a_hand_passing_over_a_glare_spot_the_time_cue_saw_unchanged_is_committed():
    tracker = flaky_spot_then_hand()
    decided = feed(tracker, 24, still(1.0, occupied={1, 5}, uncertain={9}, changed={5}))
    assert [(d.kind, d.cell) for d in decided] == [("commit", 5)]
