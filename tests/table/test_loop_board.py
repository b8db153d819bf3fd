"""The loop tells the eyes the game's board after every action that changes it.

Every CONFIRM that plays a tile is a labelled example the eyes learn this table
from (``calibration.adapt``): the loop passes the game's board on after the
CONFIRM, after an UNDO that takes a tile back, and after a tile tapped in on
the screen (which reaches the desk without the loop) once it is confirmed.
Real engine and assistant; the eyes are a stand-in that keeps what it is told.
"""

from __future__ import annotations

from tabletop.engine.game import Game
from tabletop.geometry.sightings import TileSeen
from tabletop.table.assistant import CONFIRM, UNDO, Assistant, UnjournaledTable
from tabletop.table.loop import TableLoop


class Frame:
    def __init__(self, index: int) -> None:
        self.index, self.timestamp, self.image = index, index / 10, None


class Status:
    state, message = "ready", ""


class Camera:
    """Frames numbered from 1, for ever."""

    status = Status()

    def __init__(self) -> None:
        self.count = 0

    def read(self) -> Frame:
        self.count += 1
        return Frame(self.count)


class Eyes:
    """Sees ``tiles[frame]`` at that frame; keeps every board it is told."""

    def __init__(self, tiles: dict[int, str]) -> None:
        self.tiles, self.told = tiles, []

    def feed(self, index, seconds, image):
        return [TileSeen(index, self.tiles[index])] if index in self.tiles else []

    def restart(self) -> None:
        pass

    def expect(self, labels) -> None:
        self.told.append(list(labels))


def table(eyes: Eyes) -> TableLoop:
    game = Game("acquire", ["Ann", "Bob"], start_tiles={"Ann": "1A", "Bob": "12I"})
    return TableLoop(Assistant(UnjournaledTable(game)), Camera(), eyes)


def test_the_eyes_are_told_the_board_after_a_confirm_plays_a_tile():
    eyes = Eyes({2: "6C"})
    loop = table(eyes)
    assert eyes.told == [["12I", "1A"]]         # at the start, as before
    loop.tick(), loop.tick()
    assert loop.desk.prompt.title.startswith("Ann placed 6C")
    assert eyes.told == [["12I", "1A"]]         # a proposal is not the board yet
    loop.press(CONFIRM)
    assert eyes.told[-1] == ["12I", "1A", "6C"]
    told = len(eyes.told)
    loop.tick()
    assert len(eyes.told) == told               # told once, not every beat


def test_an_undo_that_takes_the_tile_back_is_told_too():
    eyes = Eyes({2: "6C"})
    loop = table(eyes)
    loop.tick(), loop.tick()
    loop.press(CONFIRM)
    while "6C" in loop.desk.tiles:
        loop.press(UNDO)
    assert eyes.told[-1] == ["12I", "1A"]


def test_a_tile_tapped_on_the_screen_is_told_on_the_next_beat_once_confirmed():
    eyes = Eyes({})
    loop = table(eyes)
    loop.tick()
    # The screen's taps go to the desk directly, as ui/tablescreen.py sends them.
    loop.desk.enter("6C")
    loop.desk.press(CONFIRM)
    assert "6C" in loop.desk.tiles and eyes.told[-1] == ["12I", "1A"]
    loop.tick()
    assert eyes.told[-1] == ["12I", "1A", "6C"]
