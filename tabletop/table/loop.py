"""The table's loop: frames to the eyes, what they decide to the desk, the buttons, the light.

One :meth:`TableLoop.tick` is one beat of the table, the same with or without
the touchscreen: a camera frame through the eyes, the button presses since,
the status light and the buzzer brought up to date, and whether what the
screen shows has changed. Pure Python over small interfaces, so it runs the
same with a Pi camera, a recording or the demo's rendered table, and is
tested without Kivy:

* a :class:`Camera` (as :mod:`hardware.camera`'s): ``read()`` a frame or None,
  and its ``status``;
* :class:`Eyes` (as :class:`calibration.recognize.Watcher`): ``feed`` a frame,
  get back :data:`~tabletop.geometry.sightings.Sighting` s;
* :class:`Signals` (as :mod:`hardware.controls`): button events in, light and
  beeps out;
* a :class:`Desk`: first the :class:`~tabletop.table.seating.Seating` (the turn-order
  draw), then the :class:`~tabletop.table.assistant.Assistant`, which ``start``
  makes from the finished seating.

A camera fault switches the desk to entering tiles by hand (its banner says
so); when frames come again the eyes start afresh, and the board they then
see is compared with the game's. Nothing is kept per frame: whoever wants a
record of the eyes' decisions (the demo, the benchmarks) attaches an
:class:`Observer`.

>>> from tabletop.geometry.sightings import TileSeen
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
...     def feed(self, index, seconds, image): return [TileSeen(index, "6C")] if index == 2 else []
...     def restart(self): pass
...     def expect(self, labels): pass
>>> from tabletop.table.assistant import Assistant, UnjournaledTable
>>> from tabletop.engine.game import Game
>>> game = Game("acquire", ["Ann", "Bob"], start_tiles={"Ann": "1A", "Bob": "12I"})
>>> loop = TableLoop(Assistant(UnjournaledTable(game)), Camera(), Eyes())
>>> loop.step(), loop.step(), loop.desk.prompt.title
(True, True, 'Ann placed 6C: CONFIRM plays it, UNDO refuses it')
>>> loop.step(), loop.desk.manual
(False, True)
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol, TypeAlias

from tabletop.geometry.sightings import BoardSeen, ChangesSeen, Sighting, TileDoubted, TileSeen
from tabletop.messages import Message
from tabletop.table.assistant import Assistant
from tabletop.table.prompts import Prompt
from tabletop.table.seating import Seating

FAULT = "fault"
#: Prompts whose proposal the buzzer greets: a tile the camera saw, waiting for CONFIRM.
PROPOSALS = ("place", "closing", "market")

#: What the loop hands sightings and presses to: the seating, then the assistant.
Desk: TypeAlias = Seating | Assistant


class CameraStatus(Protocol):
    state: str
    message: str


class CameraFrame(Protocol):
    index: int
    timestamp: float
    image: Any


class Camera(Protocol):
    """Frames from the table: None when none is ready (or the camera is at fault)."""

    @property
    def status(self) -> CameraStatus: ...

    def read(self) -> CameraFrame | None: ...


class Eyes(Protocol):
    """Frames in, decisions out; told the game's board (``expect``) at the start, when they look
    again, and after every action that changes it (a CONFIRM that plays a tile, an UNDO, a
    tapped tile confirmed): before their own reference it helps them read a crowded board,
    after it each board is a labelled example of this very table to learn from."""

    def feed(self, index: int, seconds: float, image: Any) -> list[Sighting]: ...

    def restart(self) -> None: ...

    def expect(self, labels: Iterable[str]) -> None: ...


class ButtonEvent(Protocol):
    button: str     # CONFIRM, NEXT, UNDO
    kind: str       # press, long_press


class Signals(Protocol):
    """The table's buttons, status light and buzzer (:class:`hardware.controls.Controls`)."""

    def events(self, timeout: float | None = None) -> ButtonEvent | None: ...

    def show(self, state: str) -> None: ...

    def beep(self, kind: str) -> None: ...


@dataclass(frozen=True)
class Seen:
    """One decision of the eyes, with the frame it was decided at and what handling it cost."""

    frame: int
    decision: Sighting
    seconds: float      # wall time from the frame read to the desk having taken it in


class Observer(Protocol):
    """Told of every decision and every frame's cost (the demo's report, the benchmarks)."""

    def seen(self, seen: Seen) -> None: ...

    def frame_done(self, seconds: float) -> None: ...


@dataclass(frozen=True)
class Tick:
    """What one beat of the table did."""

    frame: bool                 # a camera frame came and went through the eyes
    prompt: Prompt | None       # what the desk asks now (None: no desk yet, set up on screen)
    changed: bool               # what the screen shows may differ from the last tick's


class TableLoop:
    """Runs one table (see the module's docstring)."""

    def __init__(self, desk: Desk | None, camera: Camera | None, eyes: Eyes | None,
                 start: Callable[[Seating], Assistant] | None = None,
                 signals: Signals | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.desk = desk
        self.camera = camera
        self.eyes = eyes
        #: Makes the game's assistant from the finished seating (None: a game in play).
        self.start = start
        self.signals = signals
        self.clock = clock
        self.observers: list[Observer] = []
        self._fault = False
        self._light, self._proposal, self._flagged = "", None, frozenset()
        self._shown: tuple | None = None
        self._told: frozenset[str] | None = None     # the board the eyes were last told
        self._expect()

    # --- one beat ------------------------------------------------------------------------

    def tick(self, *, step: bool = True, wait: float = 0.0,
             on_button: Callable[[ButtonEvent], None] | None = None) -> Tick:
        """A frame (unless ``step`` is False: someone else steps the loop), every button
        event since (to ``on_button``, by default presses to the desk; waiting up to
        ``wait`` seconds for one when no frame came), then the light and the buzzer."""
        got = self.step() if step else False
        for event in self._events(0.0 if got else wait):
            if on_button is not None:
                on_button(event)
            elif event.kind == "press":
                self.press(event.button.lower())
        # The screen's taps and its history's UNDO reach the desk without the loop: a board
        # changed by them is told here, on the next beat.
        self._tell_board()
        prompt = self.desk.prompt if self.desk is not None else None
        if prompt is not None:
            self._signal(prompt)
        return Tick(got, prompt, self._changed(prompt))

    def _events(self, wait: float) -> Iterable[ButtonEvent]:
        if self.signals is None:
            return
        event = self.signals.events(timeout=wait)
        while event is not None:
            yield event
            event = self.signals.events(timeout=0)

    def _signal(self, prompt: Prompt) -> None:
        """A fault is off, something to confirm or take off blinks; a short beep for a new
        proposal, a long one for a tile refused."""
        if self.signals is None:
            return
        asked = prompt.chosen is not None and prompt.chosen.action is not None
        light = FAULT if prompt.banner else "waiting" if asked or prompt.flagged else "ready"
        if light != self._light:
            self._light = light
            self.signals.show(light)
        proposal = prompt.title if asked and prompt.kind in PROPOSALS else None
        if proposal is not None and proposal != self._proposal:
            self.signals.beep("tile_seen")
        if set(prompt.flagged) - self._flagged:
            self.signals.beep("error")
        self._proposal, self._flagged = proposal, frozenset(prompt.flagged)

    def _changed(self, prompt: Prompt | None) -> bool:
        # The prompt is a value: equal prompts draw the same screen, but an action taken
        # back and made again gives an equal prompt over a different history.
        desk = self.desk
        actions = len(desk.game.history) if isinstance(desk, Assistant) else -1
        shown = (id(desk), prompt, actions)
        changed, self._shown = shown != self._shown, shown
        return changed

    # --- the parts of a beat -------------------------------------------------------------

    def look_again(self) -> None:
        """The eyes take a new reference from the next still board (told the game's board)."""
        if self.eyes is not None:
            self.eyes.restart()
        self._expect()

    def _expect(self) -> None:
        # A game's board helps the eyes read a crowded table before their own reference.
        if self.desk is not None and self.eyes is not None:
            self._told = frozenset(self.desk.tiles)
            self.eyes.expect(sorted(self._told))

    def _tell_board(self) -> None:
        """The eyes told the game's board when an action changed it since they were last told."""
        if self.desk is not None and self.eyes is not None and \
                frozenset(self.desk.tiles) != self._told:
            self._expect()

    def step(self) -> bool:
        """Read one frame and act on what it decides; False when no frame came."""
        if self.camera is None or self.eyes is None:
            return False
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
        for decision in self.eyes.feed(frame.index, frame.timestamp, frame.image):
            self._route(decision)
            seen = Seen(frame.index, decision, self.clock() - began)
            for observer in self.observers:
                observer.seen(seen)
        spent = self.clock() - began
        for observer in self.observers:
            observer.frame_done(spent)
        return True

    def press(self, button: str) -> None:
        """A button (CONFIRM, NEXT, UNDO) pressed at the table."""
        if self.desk is not None:
            self.desk.press(button)
            self._advance()
            self._tell_board()

    def _route(self, decision: Sighting) -> None:
        desk = self.desk
        if desk is None:
            return
        match decision:
            case BoardSeen(cells=cells):
                desk.board_seen(list(cells))
            case TileSeen(tile=tile):
                desk.tile_seen(tile)
            case TileDoubted(tile=tile, reason=reason):
                if isinstance(desk, Assistant):
                    desk.tile_doubted(tile, reason)
                else:
                    # The turn-order draw asks who drew each tile seen: a doubt is no tile
                    # to ask that about. The table taps it in if it is one.
                    desk.changes_seen([], [], Message(
                        "cannot tell whether {cells} holds a tile: check the light, or enter it "
                        "by hand", cells=tile))
            case ChangesSeen(message=message, new=new, gone=gone):
                desk.changes_seen(list(new), list(gone), message)
        self._advance()

    def _advance(self) -> None:
        """The seating done: the game starts, and the assistant takes the desk."""
        if self.start is not None and isinstance(self.desk, Seating) and \
                self.desk.setup is not None:
            self.desk, self.start = self.start(self.desk), None


class Record:
    """An :class:`Observer` that keeps the last ``limit`` decisions and frame costs.

    >>> record = Record(limit=2)
    >>> for seconds in (0.1, 0.2, 0.3):
    ...     record.frame_done(seconds)
    >>> list(record.frame_seconds)
    [0.2, 0.3]
    """

    def __init__(self, limit: int = 1000) -> None:
        self.decisions: deque[Seen] = deque(maxlen=limit)
        self.frame_seconds: deque[float] = deque(maxlen=limit)

    def seen(self, seen: Seen) -> None:
        self.decisions.append(seen)

    def frame_done(self, seconds: float) -> None:
        self.frame_seconds.append(seconds)

