"""``Watcher``: the commit loop as an object, its decisions as sightings with cell labels.

One short game on the square table (640x480, quiet stretches trimmed): a tile
on the board from the start, a placement, two tiles at once and a removal.
It is read once by a :class:`Watcher` and, frame for frame, by ``watch``,
which must yield the same commits and warnings as DESIGN.md's JSON lines,
without the reference board and the warnings' cells. The tracker's own part
(``new``/``gone`` on its decisions, ``restart``) is checked on readings
alone, as in ``test_watch``.
"""

from __future__ import annotations

import numpy as np
import pytest

from calibration.recognize import Watcher, watch, watch_line
from calibration.synthetic.sequences import Place, PlaceTwo, Remove, render_sequence
from calibration.tracker import HOLD, Decision, Reading, StabilityTracker
from tabletop.geometry.sightings import BoardSeen, ChangesSeen, Sighting, TileSeen

INITIAL = "12I"
STEPS = [Place("5C"), PlaceTwo(("2B", "9G")), Remove(INITIAL)]


@pytest.fixture(scope="module")
def game(vision):
    """(setup, sequence, the Watcher after the game, its lines, watch's lines), played once."""
    setup = vision.setup("square", vision.WATCH_SIZE)
    sequence = render_sequence(setup.table, STEPS, np.random.default_rng(3),
                               initial={INITIAL: None})
    sequence = vision.trimmed(sequence)
    watcher = Watcher(setup.calibration, HOLD)
    lines: list[Sighting] = []

    def frames():
        # Each frame is rendered once and read by both: the Watcher, then watch.
        for index, seconds, image in vision.frames(sequence):
            lines.extend(watcher.feed(index, seconds, image))
            yield index, seconds, image

    watched = list(watch(frames(), setup.calibration, HOLD))
    return setup, sequence, watcher, lines, watched


def in_board_order(setup, labels):
    return sorted(labels, key=setup.calibration.layout.cell)


def test_the_watchers_decisions_are_sightings_of_labels(game):
    _, _, _, lines, _ = game
    assert [type(line) for line in lines] == [BoardSeen, TileSeen, ChangesSeen, ChangesSeen]
    board, commit, *warnings = lines
    assert all(isinstance(line.frame, int) for line in lines) and isinstance(commit.tile, str)
    # Labels as tuples of strings, never cell numbers or lists (the sightings are frozen).
    for cells in [board.cells] + [w.new for w in warnings] + [w.gone for w in warnings]:
        assert isinstance(cells, tuple) and all(isinstance(c, str) for c in cells)


def test_the_first_still_board_is_the_reference(game):
    setup, sequence, watcher, lines, _ = game
    assert isinstance(lines[0], BoardSeen) and lines[0].cells == (INITIAL,)
    assert lines[0].frame < sequence.events[0].start
    assert [line for line in lines if isinstance(line, BoardSeen)] == lines[:1]


def test_a_placement_is_a_commit_with_its_label(game):
    _, sequence, _, lines, _ = game
    place = sequence.events[0]
    [commit] = [line for line in lines if isinstance(line, TileSeen)]
    assert commit.tile == "5C"
    assert place.clear_from <= commit.frame < place.end


def test_warnings_name_the_cells_new_and_gone(game):
    _, sequence, _, lines, _ = game
    warnings = [line for line in lines if isinstance(line, ChangesSeen)]
    assert len(warnings) == 2
    two, removed = warnings
    assert (two.new, two.gone) == (("2B", "9G"), ())
    assert "2 new tiles at once (2B, 9G)" in two.message
    assert (removed.new, removed.gone) == ((), (INITIAL,))
    assert f"gone from {INITIAL}" in removed.message
    for line, event in zip(warnings, sequence.events[1:]):
        assert event.clear_from <= line.frame < event.end


def test_watch_yields_the_watchers_commits_and_warnings_only(game):
    _, _, _, lines, watched = game
    assert watched == [{"frame": line.frame, "tile": line.tile} if isinstance(line, TileSeen)
                       else {"frame": line.frame, "warning": line.message}
                       for line in lines if not isinstance(line, BoardSeen)]
    assert [list(line) for line in watched] == \
        [["frame", "tile"], ["frame", "warning"], ["frame", "warning"]]


def test_watch_lines_are_designs_json_lines():
    assert watch_line(TileSeen(41, "5C")) == {"frame": 41, "tile": "5C"}
    line = watch_line(ChangesSeen(60, "2 new tiles at once", new=("2B", "9G"), gone=("1A",)))
    # The cells stay out of the command's line; the keys come in DESIGN.md's order.
    assert list(line.items()) == [("frame", 60), ("warning", "2 new tiles at once")]
    assert watch_line(BoardSeen(12, ("5C", "12I"))) is None


def test_after_a_restart_the_next_still_board_is_a_new_reference(game):
    setup, sequence, watcher, _, _ = game
    board = in_board_order(setup, ["5C", "2B", "9G"])
    assert watcher.board == board
    last = len(sequence) - 1
    assert watcher.last is not None and watcher.last.clear
    watcher.restart()
    assert watcher.board is None
    # The same still board again, a second more of it: the camera is back.
    image = sequence.frame(last).image
    later = []
    for index in range(last + 1, last + 1 + round(2 * HOLD * sequence.fps)):
        later += watcher.feed(index, index / sequence.fps, image)
    assert [type(line) for line in later] == [BoardSeen]
    assert later[0].cells == tuple(board) and watcher.board == board


# --- the tracker alone ------------------------------------------------------------------------

def feed(tracker, readings, start=0, fps=10):
    decided = []
    for index, reading in enumerate(readings, start):
        decided += tracker.feed(index, index / fps, reading)
    return decided


def reading(occupied=(), uncertain=(), clear=True):
    return Reading(frozenset(occupied), frozenset(uncertain), clear)


def hand(cells):
    return [reading(cells, clear=False)] * 3


def test_decisions_name_the_cells_new_and_gone():
    tracker = StabilityTracker(HOLD)
    [ref] = feed(tracker, [reading({1})] * 10)
    assert (ref.kind, ref.new, ref.gone) == ("reference", (), ())
    feed(tracker, hand({1, 5}), start=10)
    [commit] = feed(tracker, [reading({1, 5})] * 10, start=13)
    assert (commit.kind, commit.cell, commit.new, commit.gone) == ("commit", 5, (5,), ())
    feed(tracker, hand({1, 5, 9, 8}), start=23)
    [two] = feed(tracker, [reading({1, 5, 8, 9})] * 10, start=26)
    assert (two.kind, two.new, two.gone) == ("warning", (8, 9), ())
    assert two.message.startswith("2 new tiles at once (8, 9)")
    feed(tracker, hand({1, 5, 8, 9}), start=36)
    [removed] = feed(tracker, [reading({5, 8, 9})] * 10, start=39)
    assert (removed.kind, removed.new, removed.gone) == ("warning", (), (1,))
    # A move: the tile taken from 9 and put on 3.
    feed(tracker, hand({3, 5, 8, 9}), start=49)
    [moved] = feed(tracker, [reading({3, 5, 8})] * 10, start=52)
    assert (moved.new, moved.gone) == ((3,), (9,))
    assert moved.message == "a tile moved from 9 to 3: not committed"
    # Many cells at once (a hand over all of them): every one of them, the message counts them.
    feed(tracker, hand({3, 5, 8, 20, 21, 22}), start=62)
    [many] = feed(tracker, [reading({20, 21, 22})] * 10, start=65)
    assert (many.new, many.gone) == ((20, 21, 22), (3, 5, 8))
    assert many.message.startswith("6 cells changed at once (3 new, 3 gone)")


def test_a_warning_that_a_cell_cannot_be_read_names_no_cells():
    tracker = StabilityTracker(HOLD)
    feed(tracker, [reading()] * 10)
    feed(tracker, hand({4, 5}), start=10)
    decided = feed(tracker, [reading(uncertain={5})] * 40, start=13)
    assert [(d.kind, d.new, d.gone) for d in decided] == [("warning", (), ())]
    assert decided[0].message.startswith("cannot tell whether 5 holds a tile")
    assert Decision(0, "commit", 5).new == ()   # the fields default to empty


def test_restart_forgets_the_reference_and_what_a_hand_touched():
    tracker = StabilityTracker(0.3, label=lambda c: f"c{c}")
    feed(tracker, [reading({1})] * 10)
    feed(tracker, hand({1, 5}), start=10)     # a hand was over 5 ...
    tracker.restart()                         # ... before the camera fell out
    assert (tracker.reference, tracker.hold, tracker.label(7)) == (None, 0.3, "c7")
    decided = feed(tracker, [reading({1, 5})] * 10, start=13)
    # Not a commit of 5: the board as it now stands is the new reference.
    assert [d.kind for d in decided] == ["reference"]
    assert tracker.reference == frozenset({1, 5})
    # And the tracker goes on as a fresh one would.
    feed(tracker, hand({1, 5, 6}), start=23)
    assert [(d.kind, d.cell) for d in feed(tracker, [reading({1, 5, 6})] * 10, start=26)] == \
        [("commit", 6)]


def test_a_board_crowded_with_tiles_is_still_read_where_the_tracker_knows_cells_bare(vision):
    # 100 of the 108 cells hold tiles, then all 108: the cells a frame is judged readable
    # by would all be tiles (which never match the empty board) unless the known bare
    # cells are; the very last placement leaves none at all.
    setup = vision.setup("square", vision.WATCH_SIZE)
    labels = setup.calibration.layout.geometry.labels
    free = ["3C", "7E", "11H", "1A", "6I", "9B", "4G", "12D"]
    initial = {label: None for label in labels if label not in free}
    sequence = vision.trimmed(render_sequence(setup.table, [Place(c) for c in free],
                                              np.random.default_rng(5), initial=initial))
    watcher = Watcher(setup.calibration, HOLD)
    lines = [line for index, seconds, image in vision.frames(sequence)
             for line in watcher.feed(index, seconds, image)]
    assert isinstance(lines[0], BoardSeen) and len(lines[0].cells) == len(initial)
    assert [line.tile for line in lines if isinstance(line, TileSeen)] == free
    assert watcher.last.clear and len(watcher.last.occupied) == len(labels)


def test_a_crowded_board_at_start_is_read_by_the_board_the_game_expects(vision):
    # A game resumed late: 105 of 108 cells hold tiles when the camera first looks. Too few
    # are bare to judge a frame by, until the Watcher is told which cells the game has empty.
    setup = vision.setup("square", vision.WATCH_SIZE)
    labels = setup.calibration.layout.geometry.labels
    free = ["3C", "7E", "11H"]
    initial = {label: None for label in labels if label not in free}
    sequence = vision.trimmed(render_sequence(setup.table, [Place("7E")],
                                              np.random.default_rng(6), initial=initial))

    def decisions(watcher):
        return [line for index, seconds, image in vision.frames(sequence)
                for line in watcher.feed(index, seconds, image)]

    assert not any(isinstance(line, BoardSeen)
                   for line in decisions(Watcher(setup.calibration, HOLD)))
    watcher = Watcher(setup.calibration, HOLD)
    watcher.expect(initial)
    lines = decisions(watcher)
    assert isinstance(lines[0], BoardSeen) and sorted(lines[0].cells) == sorted(initial)
    assert [line.tile for line in lines if isinstance(line, TileSeen)] == ["7E"]


def test_the_table_loop_tells_the_eyes_the_games_board_from_the_start(
        vision, tmp_path):
    """A resumed game on a crowded board, through a real `dir:` camera and the table loop."""
    import cv2

    from hardware.camera import open_camera
    from tabletop.table.loop import TableLoop

    setup = vision.setup("square", vision.WATCH_SIZE)
    labels = setup.calibration.layout.geometry.labels
    initial = {label: None for label in labels if label not in ("3C", "7E", "11H")}
    sequence = vision.trimmed(render_sequence(setup.table, [Place("7E")],
                                              np.random.default_rng(6), initial=initial))
    for index, _, image in vision.frames(sequence):
        cv2.imwrite(str(tmp_path / f"{index:05d}.png"), image)

    class Desk:
        """What the loop tells a desk, kept (the game's board is ``tiles``)."""
        tiles = set(initial)
        told: list = []

        def __getattr__(self, name):
            return lambda *args: self.told.append((name, *args))

    desk = Desk()
    with open_camera(f"dir:{tmp_path}") as camera:
        loop = TableLoop(desk, camera, Watcher(setup.calibration, HOLD))
        while loop.step():
            pass
    # The cells in board order (a list or a tuple: the loop may pass on the sighting's own).
    told, cells = desk.told[0]
    assert (told, list(cells)) == ("board_seen", sorted(initial, key=setup.calibration.layout.cell))
    assert ("tile_seen", "7E") in desk.told
