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


def parse_source(source: str) -> dict[str, Any]:
    """``sim:RULES,seed=N,placements=N,fps=N`` as settings (defaults filled in)."""
    settings: dict[str, Any] = {"rules": "acquire", "seed": 0, "placements": 10, "fps": 10.0}
    _, _, rest = source.partition(":")
    for part in filter(None, (p.strip() for p in rest.split(","))):
        name, equals, value = part.partition("=")
        if not equals:
            settings["rules"] = name
        elif name in ("seed", "placements"):
            settings[name] = int(value)
        elif name == "fps":
            settings[name] = float(value)
        else:
            raise ValueError(f"sim source: unknown setting {name!r} (rules, seed, placements, fps)")
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
        return self.sequence.frame(self._position).image


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
