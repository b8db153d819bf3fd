"""The table's loop: frames to the eyes, what they decide to the desk, button presses to it.

Pure Python over three small interfaces, so it runs the same with a Pi camera,
a recording or the demo's rendered table, and is tested without Kivy:

* a *camera*: ``read() -> frame or None`` (a frame has ``index``,
  ``timestamp`` and ``image``) and ``status`` (``state``, ``message``), as
  :mod:`hardware.camera`'s cameras;
* *eyes*: ``feed(index, seconds, image) -> [decision]`` and ``restart()``, as
  :class:`calibration.recognize.Watcher` (decisions are plain dicts:
  ``{"board": [...]}``, ``{"tile": "5C"}``, ``{"warning": ..., "new": [...], "gone": [...]}``);
* a *desk*: first the :class:`~tabletop.seating.Seating` (the turn-order
  draw), then the :class:`~tabletop.assistant.Assistant`, which ``start``
  makes from the finished seating.

A camera fault switches the desk to entering tiles by hand (its banner says
so); when frames come again the eyes start afresh, and the board they then
see is compared with the game's.

>>> class Camera:  # two frames, then unplugged
...     def __init__(self): self.frames, self.status = [1, 2], Status("ready", "")
...     def read(self):
...         if self.frames:
...             return Frame(self.frames.pop(0))
...         self.status = Status("fault", "unplugged")
>>> class Frame:
...     def __init__(self, index): self.index, self.timestamp, self.image = index, index / 10, None
>>> class Status:
...     def __init__(self, state, message): self.state, self.message = state, message
>>> class Eyes:
...     def feed(self, index, seconds, image): return [{"frame": index, "tile": "6C"}] if index == 2 else []
...     def restart(self): pass
>>> from tabletop.assistant import Assistant, UnjournaledTable
>>> from tabletop.engine import Game
>>> game = Game("acquire", ["Ann", "Bob"], start_tiles={"Ann": "1A", "Bob": "12I"})
>>> loop = TableLoop(Assistant(UnjournaledTable(game)), Camera(), Eyes())
>>> loop.step(), loop.step(), loop.desk.prompt.title
(True, True, 'Ann placed 6C')
>>> loop.step(), loop.desk.manual
(False, True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Protocol

FAULT = "fault"


class Desk(Protocol):
    """What the loop hands decisions and presses to: the seating, then the assistant."""

    def board_seen(self, labels: list[str]) -> None: ...

    def tile_seen(self, label: str) -> None: ...

    def changes_seen(self, new: list[str], gone: list[str], message: str = "") -> None: ...

    def camera_lost(self, message: str) -> None: ...

    def camera_back(self) -> None: ...

    def press(self, button: str) -> None: ...


@dataclass(frozen=True)
class Seen:
    """One decision of the eyes, with the frame it was decided at and what handling it cost."""

    frame: int
    decision: dict[str, Any]
    seconds: float      # wall time from the frame read to the desk having taken it in


class TableLoop:
    """Runs one table (see the module's docstring)."""

    def __init__(self, desk: Desk, camera: Any, eyes: Any,
                 start: Callable[[Any], Desk] | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.desk = desk
        self.camera = camera
        self.eyes = eyes
        self.start = start
        self.clock = clock
        self.seen: list[Seen] = []          # every decision of the eyes, in order
        self.frame_seconds: list[float] = []  # wall time spent on each frame, once read
        self._fault = False
        self._expect()

    def look_again(self) -> None:
        """The eyes take a new reference from the next still board (told the game's board)."""
        self.eyes.restart()
        self._expect()

    def _expect(self) -> None:
        # A game's board helps the eyes read a crowded table before their own reference.
        tiles, expect = getattr(self.desk, "tiles", None), getattr(self.eyes, "expect", None)
        if tiles is not None and expect is not None:
            expect(sorted(tiles))

    def step(self) -> bool:
        """Read one frame and act on what it decides; False when no frame came."""
        frame = self.camera.read()
        # From the frame in hand (a camera's grabber thread has it waiting) to the desk told.
        began = self.clock()
        desk = self.desk      # None while the table is still being set up on the screen
        if frame is None:
            status = self.camera.status
            if status.state == FAULT and not self._fault:
                self._fault = True
                if desk is not None:
                    desk.camera_lost(status.message)
            return False
        if self._fault:
            self._fault = False
            if desk is not None:
                desk.camera_back()
            self.look_again()
        decisions = self.eyes.feed(frame.index, frame.timestamp, frame.image)
        for decision in decisions:
            self._route(decision)
            self.seen.append(Seen(frame.index, decision, self.clock() - began))
        self.frame_seconds.append(self.clock() - began)
        return True

    def press(self, button: str) -> None:
        """A button (CONFIRM, NEXT, UNDO) pressed at the table."""
        if self.desk is not None:
            self.desk.press(button)
            self._advance()

    def _route(self, decision: dict[str, Any]) -> None:
        desk = self.desk
        if desk is None:
            return
        if "board" in decision:
            desk.board_seen(decision["board"])
        elif "tile" in decision:
            desk.tile_seen(decision["tile"])
        elif "warning" in decision:
            desk.changes_seen(decision.get("new", []), decision.get("gone", []),
                              decision["warning"])
        self._advance()

    def _advance(self) -> None:
        """The seating done: the game starts, and the assistant takes the desk."""
        if self.start is not None and getattr(self.desk, "setup", None) is not None:
            self.desk, self.start = self.start(self.desk), None
