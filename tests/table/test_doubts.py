"""A tile the camera is unsure of, at the desk: proposed saying so, one CONFIRM plays it.

The sightings come from the Watcher over a real rendered game (a low-contrast
tile the classifier cannot tell from the board, asked as unsure by the time
cue), through the table loop, to an assistant over a real journal: the unsure
proposal applies nothing until CONFIRM, which journals the same action as a
tile the camera saw; UNDO refuses it; tiles are counted by where they came from.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from calibration import cellcues
from calibration.calibrate import calibrate
from calibration.recognize import Watcher
from calibration.synthetic.render import make_table, render_empty
from calibration.synthetic.sequences import Place, render_sequence
from tabletop.geometry.sightings import LATE, TileDoubted, TileSeen
from tabletop.journal.journal import Journal
from tabletop.table.assistant import CONFIRM, NEXT, UNDO, Assistant
from tabletop.table.loop import TableLoop
from tabletop.table.seating import Seating

SETUP = {"setup": {"rules": "acquire", "players": ["Ann", "Bob"],
                   "start_tiles": {"Ann": "1A", "Bob": "12I"}}}
UNSURE_1F = "camera unsure: Ann placed 1F? CONFIRM plays it, UNDO refuses it"


@pytest.fixture
def journal(tmp_path):
    with Journal.open(tmp_path / "journal.db", table_name="test") as opened:
        yield opened


class Frames:
    """A camera over a rendered sequence."""

    class Status:
        state, message = "ready", ""

    class Frame:
        def __init__(self, index, timestamp, image):
            self.index, self.timestamp, self.image = index, timestamp, image

    def __init__(self, sequence):
        self.sequence, self.next, self.status = sequence, 0, self.Status()

    def read(self):
        if self.next >= len(self.sequence):
            return None
        index, self.next = self.next, self.next + 1
        return self.Frame(index, index / self.sequence.fps, self.sequence.frame(index).image)


@pytest.fixture(scope="module")
def rendered():
    """The low-contrast table and a game where Ann's 1F is one the classifier cannot tell
    (its bolder-label rule off: ``doubting``)."""
    table = make_table("acquire", seed=21, tile_style="low_contrast", size=(640, 480))
    empty = render_empty(table, np.random.default_rng(21))
    calibration = calibrate(empty.image, empty.truth.corners, "acquire", {})
    sequence = render_sequence(table, [Place("1F")], np.random.default_rng(0),
                               initial={"1A": None, "12I": None})
    return calibration, sequence


@pytest.fixture
def doubting(monkeypatch):
    """The classifier without its bolder-label rule (``calibration.cellcues._bolder``), which
    now reads 1F itself: it leaves 1F doubtful, as it leaves any tile printed closer to the
    board's own print than its rules can tell, and the table's way with such a tile is tested."""
    monkeypatch.setattr(cellcues, "BOLD_APART", math.inf)


def test_the_camera_unsure_is_proposed_and_one_confirm_journals_exactly_that_tile(
        journal, rendered, doubting):
    calibration, sequence = rendered
    table = journal.start(SETUP)
    assistant = Assistant(table)
    loop = TableLoop(assistant, Frames(sequence), Watcher(calibration))
    seen = []
    loop.observers.append(type("Keep", (), {"seen": lambda self, s: seen.append(s.decision),
                                            "frame_done": lambda self, s: None})())
    while loop.step():
        if assistant.prompt.chosen is not None and assistant.prompt.chosen.action is not None:
            break
    assert [type(s) for s in seen if isinstance(s, (TileSeen, TileDoubted))] == [TileDoubted]
    prompt = assistant.prompt
    assert prompt.title == UNSURE_1F and prompt.chosen.label == "1F: a lone tile"
    assert [json.loads(line).get("do") for line in table.lines[1:]] == []   # nothing yet
    assistant.press(CONFIRM)
    assert [json.loads(line) for line in table.lines[1:]][0]["do"] == "place"
    assert [json.loads(line).get("tile") for line in table.lines[1:]] == ["1F"]
    assert table.game.board.cells[table.game.geometry.parse("1F")] != -1
    assert assistant.sources.as_json() == {"camera": 0, "unsure": 1, "hand": 0}


def test_an_unsure_tile_is_the_same_journal_action_as_a_tile_seen(tmp_path):
    lines = {}
    for way in ("seen", "doubted"):
        with Journal.open(tmp_path / f"{way}.db", table_name="test") as journal:
            table = journal.start(SETUP)
            assistant = Assistant(table)
            (assistant.tile_seen if way == "seen" else assistant.tile_doubted)("6C")
            assistant.press(CONFIRM)
            lines[way] = [json.loads(line) for line in table.lines[1:]]
    assert lines["seen"] == lines["doubted"] and lines["seen"][0]["do"] == "place"


def test_undo_refuses_an_unsure_tile_and_a_tap_puts_the_right_one(journal):
    table = journal.start(SETUP)
    assistant = Assistant(table, seen=["1A", "12I"])
    assistant.tile_doubted("6C")
    assert assistant.prompt.title.startswith("camera unsure: Ann placed 6C?")
    assistant.press(NEXT)                       # one option: NEXT keeps it
    assert assistant.prompt.title.startswith("camera unsure:")
    assistant.press(UNDO)
    assert assistant.prompt.title == "Ann: place a tile" and table.lines[1:] == []
    assistant.enter("6D")                       # tapped in by hand: an ordinary proposal
    assert assistant.prompt.title == "Ann placed 6D: CONFIRM plays it, UNDO refuses it"
    assistant.press(CONFIRM)
    assert [json.loads(line)["tile"] for line in table.lines[1:]] == ["6D"]
    assert assistant.sources.as_json() == {"camera": 0, "unsure": 1, "hand": 1}


def test_a_late_tile_already_entered_asks_nothing(journal):
    table = journal.start(SETUP)
    assistant = Assistant(table, seen=["1A", "12I"])
    assistant.enter("6C")
    assistant.press(CONFIRM)
    before = assistant.prompt
    assistant.tile_doubted("6C", LATE)          # the camera reads it only now
    assert assistant.prompt == before and "6C" not in assistant.flagged
    assert "6C is in the game, not on the board" not in assistant.differences


def test_the_turn_order_draw_is_told_a_doubt_never_given_a_tile():
    seating = Seating("acquire", ["Ann", "Bob"])
    loop = TableLoop(seating, None, None)
    loop._route(TileDoubted(5, "6C"))
    assert seating.tiles == []
