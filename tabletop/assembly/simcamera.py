"""The ``sim`` camera source: a rendered table where players place tiles, as a camera.

Part of the composition root: it joins the renderer (``calibration``) to the
camera interface (``hardware``), which must not know each other. A source
string picks the table: ``sim`` (Acquire, seed 0) or
``sim:RULES[,seed=N][,placements=N][,fps=N]``, e.g. ``sim:megacquire-gold,seed=3``.
Like a recording it is paced by ``fps`` (or read as fast as asked with
``fps=None``) and ends when the scripted game does.

>>> camera = SimCamera("sim:acquire,seed=2,placements=2", fps=None)
>>> with camera:
...     frame = camera.read()
...     print(frame.image.shape, camera.status.state)
(960, 1280, 3) ready
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hardware.camera import SOURCES, Camera, CameraError, EndOfStream, Recording
from tabletop.messages import Message

PREFIX = "sim"


#: The settings a sim source takes after its rule set, and the least whole number each allows.
WHOLE = {"seed": 0, "placements": 1}


def _rule_set(name: str, source: str) -> str:
    from tabletop.engine.ruleset import available_rules
    from tabletop.suggest import did_you_mean

    known = available_rules()
    if name in known:
        return name
    hint = did_you_mean(name, known)
    raise ValueError(f"{source}: unknown rule set {name!r}" + (f": {hint}" if hint else "")
                     + f" (rule sets: {', '.join(known)})")


def _whole(name: str, value: str, source: str) -> int:
    least = WHOLE[name]
    try:
        number = int(value)
    except ValueError:
        raise ValueError(f"{source}: {name} must be a whole number, got {value!r}") from None
    if number < least:
        raise ValueError(f"{source}: {name} must be {least} or more, got {value!r}")
    return number


def _fps(value: str, source: str) -> float:
    import math

    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not (math.isfinite(number) and number > 0):   # 0 would divide the frames' times
        raise ValueError(f"{source}: fps must be a number above 0, got {value!r}")
    return number


def _unknown_setting(name: str, source: str) -> ValueError:
    from tabletop.suggest import did_you_mean

    hint = did_you_mean(name, [*WHOLE, "fps"])
    return ValueError(f"{source}: unknown setting {name!r}" + (f": {hint}" if hint else "")
                      + " (sim:RULES,seed=N,placements=N,fps=N, e.g. sim:acquire,seed=3)")


def parse_source(source: str) -> dict[str, Any]:
    """``sim:RULES,seed=N,placements=N,fps=N`` as settings (defaults filled in);
    ValueError, saying what to write instead, for a setting that cannot be used."""
    settings: dict[str, Any] = {"rules": "acquire", "seed": 0, "placements": 10, "fps": 10.0}
    _, _, rest = source.partition(":")
    for part in filter(None, (p.strip() for p in rest.split(","))):
        name, equals, value = part.partition("=")
        if not equals:
            settings["rules"] = _rule_set(name, source)
        elif name in WHOLE:
            settings[name] = _whole(name, value.strip(), source)
        elif name == "fps":
            settings[name] = _fps(value.strip(), source)
        else:
            raise _unknown_setting(name, source)
    return settings


class SimCamera(Recording):
    """A rendered game as a camera (see the module's docstring)."""

    end_message = "end of the simulated game"

    def __init__(self, source: str, *, fps: float | None = -1.0, **common: Any) -> None:
        self.settings = parse_source(source)
        super().__init__(source, fps=self.settings["fps"] if fps == -1.0 else fps, **common)
        self.table = self.sequence = None

    def calibration_view(self) -> tuple[np.ndarray, np.ndarray]:
        """A picture of the empty board and its four corner-cell centres, to calibrate with."""
        from calibration.synthetic.render import render_empty

        self._build()
        empty = render_empty(self.table, np.random.default_rng(self.settings["seed"] + 1))
        return empty.image, empty.truth.corners

    def _build(self) -> None:
        if self.sequence is not None:
            return
        from calibration.synthetic.render import make_table
        from calibration.synthetic.sequences import random_steps, render_sequence

        rng = np.random.default_rng(self.settings["seed"])
        try:
            self.table = make_table(self.settings["rules"], seed=self.settings["seed"])
        except Exception as error:  # noqa: BLE001 - a bad rule set name is a source fault
            raise CameraError(Message("cannot be built: {error}", error=str(error))) from None
        steps = random_steps(self.table, rng, placements=self.settings["placements"])
        self.sequence = render_sequence(self.table, steps, rng, fps=self.settings["fps"])

    def _connect(self) -> None:
        super()._connect()
        self._build()

    def _timebase(self) -> float:
        return float(self.settings["fps"])

    def _load(self) -> np.ndarray:
        if self._position >= len(self.sequence):
            raise EndOfStream(self.end_message)
        return self.sequence.image(self._position)


def register() -> None:
    """Make ``open_camera("sim...")`` build a :class:`SimCamera`."""
    SOURCES.setdefault(PREFIX, SimCamera)


class LiveCamera(Camera):
    """The demo's camera over a :class:`calibration.synthetic.livetable.LiveTable`: frames as players act.

    Frames come as fast as they are asked for (the demo paces them); each
    frame's index and time are the table's own, so a decision's frame number
    is the rendered frame's. :meth:`unplug` and :meth:`plug` pull the cable:
    while unplugged the table goes on unseen and the camera reports a fault,
    retried on the table's clock as a real one would be.
    """

    def __init__(self, live: Any, **common: Any) -> None:
        common.setdefault("frozen_frames", None)
        super().__init__("sim:live", clock=lambda: live.position / live.fps, **common)
        self.live = live
        self.unplugged = False

    def unplug(self) -> None:
        self.unplugged = True

    def plug(self) -> None:
        self.unplugged = False

    def read(self):  # noqa: ANN201 - Frame | None, as the base class
        if self.unplugged or (self._opened and not self._connected):
            self.live.skip()           # the table goes on, unseen (and the retry comes due)
        return super().read()

    def _connect(self) -> None:
        if self.unplugged:
            raise CameraError(Message("unplugged (no device)"))

    def _fetch(self) -> tuple[np.ndarray, float] | None:
        if self.unplugged:
            raise CameraError(Message("unplugged (no device)"))
        index, seconds, image = self.live.next_frame()
        self._count = index            # the frame's number is the table's
        return image, seconds


class SimTable(LiveCamera):
    """``tabletop run``'s simulated table: a sim source's rendered board (its four markers
    included), where :class:`SimPlayers` put down the tiles of the game the table plays.

    A recording plans its tiles before the game; here each is planned when the table waits
    for it, so every proposal names a tile the game can take. ``fps`` paces the frames in
    real time (headless, nothing else does); ``None`` gives one each time it is asked (the
    app's clock paces it). A source the renderer cannot build is refused at once
    (ValueError), before any window opens.
    """

    def __init__(self, source: str, *, fps: float | None = -1.0, **common: Any) -> None:
        from calibration.synthetic.livetable import DEMO_SIZE, LiveTable

        self.settings = parse_source(source)
        try:
            live = LiveTable.make(self.settings["rules"], seed=self.settings["seed"],
                                  size=DEMO_SIZE, fps=self.settings["fps"])
        except Exception as error:  # noqa: BLE001 - a bad rule set name is the source's fault
            raise ValueError(f"the simulated table cannot be built: {error}") from None
        super().__init__(live, **common)
        self.source = source
        self.pace = self.settings["fps"] if fps == -1.0 else fps
        self._started: float | None = None

    def lay(self, labels: list[str]) -> None:
        """Tiles already on the board when the camera starts (a game resumed: the table kept
        them while the app was off)."""
        from calibration.synthetic.livetable import LiveTable

        live = LiveTable(self.live.table, np.random.default_rng(self.settings["seed"]),
                         fps=self.live.fps, initial={label: None for label in labels})
        self.live, self.clock = live, lambda: live.position / live.fps

    def calibration_view(self) -> tuple[np.ndarray, np.ndarray]:
        """A picture of the empty board and its four corner-cell centres, to calibrate with."""
        from calibration.synthetic.render import render_empty

        empty = render_empty(self.live.table, np.random.default_rng(self.settings["seed"] + 1))
        return empty.image, empty.truth.corners

    def _fetch(self) -> tuple[np.ndarray, float] | None:
        if self.pace and not self.unplugged:
            import time

            now = time.monotonic()
            self._started = now if self._started is None else self._started
            if self.live.position > (now - self._started) * self.pace:
                return None          # the next frame's time has not come
        return super()._fetch()


class SimPlayers:
    """The players at a :class:`SimTable`, a table loop's observer: after each frame, with
    no hand over the board, they do what the table waits for. The turn-order draw: one tile
    each, put down together. In play: the turn-order tiles taken off, then the tile of the
    player to place, one the game can take. Everything else (who drew which tile, CONFIRM,
    the choices, a tile the camera missed) is for the person at the screen.
    """

    def __init__(self, loop: Any, camera: SimTable, seed: int = 0) -> None:
        import random

        self.loop, self.live = loop, camera.live
        self.rng = random.Random(seed)
        self._done: set[tuple] = set()          # what was already put down or taken off

    def seen(self, seen: Any) -> None:
        """(The loop's observer: the camera's decisions need no hands.)"""

    def frame_done(self, seconds: float) -> None:
        self.act()

    def act(self) -> None:
        """One thing the table waits for, if no hand is over the board."""
        from tabletop.table.assistant import Assistant
        from tabletop.table.seating import Seating

        desk = self.loop.desk
        if self.live.planned or not isinstance(desk, (Seating, Assistant)):
            return
        if isinstance(desk, Seating):
            if self._same_board(desk.geometry):
                self._draw(desk)
        elif self._same_board(desk.game.geometry):
            self._play(desk)

    def _same_board(self, geometry: Any) -> bool:
        """Whether the game is played on the board rendered (a game of another rule set,
        resumed, is not: its tiles are tapped in)."""
        return list(geometry.labels) == list(self.live.table.layout.geometry.labels)

    def _once(self, key: tuple) -> bool:
        if key in self._done:
            return False
        self._done.add(key)
        return True

    def _draw(self, seating: Any) -> None:
        if seating.prompt.kind != "draw" or seating.tiles or not self._once(("draw", id(seating))):
            return
        geometry, taken = seating.geometry, self.live.tiles
        tiles = [tile for tile in range(len(geometry.cells_of))
                 if not any(geometry.labels[cell] in taken for cell in geometry.cells_of[tile])]
        drawn = self.rng.sample(tiles, len(seating.players))
        self.live.place_many([geometry.labels[self.rng.choice(geometry.cells_of[tile])]
                              for tile in drawn])

    def _play(self, assistant: Any) -> None:
        actions = (id(assistant), len(assistant.game.history))
        for label in assistant.flagged:
            if label in self.live.tiles and self._once((*actions, "off", label)):
                self.live.remove(label)
                return
        prompt = assistant.prompt
        if assistant.flagged or assistant.manual or prompt.kind not in ("place", "closing") or \
                prompt.chosen is None or prompt.chosen.action is not None:
            return
        tile = self._tile(assistant.game)
        if tile is not None and self._once((*actions, "place")):
            self.live.place(tile)

    def _tile(self, game: Any) -> str | None:
        """A tile the player to place could hold: a free cell the rules let them play."""
        from tabletop.engine.board import EMPTY, PUT_DEAD, PUT_NO_CHAIN

        pending = game.pending
        if pending.kind == "closing":
            cells = list(game.remaining_cells())
        elif game.virtual:
            cells = game.playable(pending.player)
        else:
            board = game.board
            cells = [cell for cell, held in enumerate(board.cells) if held == EMPTY and
                     board.classify(cell)[0] not in (PUT_DEAD, PUT_NO_CHAIN)]
        cells = [cell for cell in cells if game.geometry.labels[cell] not in self.live.tiles]
        return game.geometry.labels[self.rng.choice(cells)] if cells else None
