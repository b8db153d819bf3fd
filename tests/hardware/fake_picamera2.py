"""A fake ``picamera2`` module for tests, implementing EXACTLY the calls
``hardware.camera.PiCamera`` makes, and nothing else:

``Picamera2()``, ``create_video_configuration(main=..., lores=...)``,
``configure(config)``, ``start()``, ``capture_metadata()``,
``set_controls(controls)``, ``capture_array("main" | "lores")``, ``stop()``,
``close()``.

Frames are synthetic: ``main`` is a BGR image (picamera2's ``RGB888`` is B, G, R
in memory) with a pure red square whose column moves with the frame number;
``lores`` is a YUV420 array whose Y plane is uniform at ``100 + 3 * n``, so the
motion between consecutive frames is exactly 3.0. Every call is recorded in
``Picamera2.calls`` and every instance in the module-level ``instances`` list.

Inject it with ``monkeypatch.setitem(sys.modules, "picamera2", fake)``:

>>> camera = Picamera2()
>>> camera.configure(camera.create_video_configuration(
...     main={"size": (64, 48), "format": "RGB888"},
...     lores={"size": (16, 12), "format": "YUV420"}))
>>> camera.start()
>>> camera.capture_array("main").shape, camera.capture_array("lores").shape
((48, 64, 3), (18, 16))
"""

from __future__ import annotations

from typing import Any

import numpy as np

instances: list[Picamera2] = []

SQUARE = 8  # side of the red square in the main stream
RED_BGR = (0, 0, 255)


class Picamera2:
    """Synthetic stand-in for ``picamera2.Picamera2``."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.config: dict | None = None
        self.controls: dict = {}
        self.started = self.closed = False
        self.frames = 0  # main-stream frames captured so far
        instances.append(self)

    def create_video_configuration(self, main: dict, lores: dict) -> dict:
        self.calls.append(("create_video_configuration", {"main": main, "lores": lores}))
        return {"main": dict(main), "lores": dict(lores)}

    def configure(self, config: dict) -> None:
        self.calls.append(("configure", config))
        self.config = config

    def start(self) -> None:
        self.calls.append(("start", None))
        self.started = True

    def capture_metadata(self) -> dict:
        self.calls.append(("capture_metadata", None))
        return {"ExposureTime": 12000, "AnalogueGain": 2.0, "ColourGains": (1.9, 1.5)}

    def set_controls(self, controls: dict) -> None:
        self.calls.append(("set_controls", dict(controls)))
        self.controls.update(controls)

    def capture_array(self, name: str = "main") -> np.ndarray:
        self.calls.append(("capture_array", name))
        assert self.started and self.config is not None, "capture before start"
        width, height = self.config[name]["size"]
        if name == "lores":
            yuv = np.full((height * 3 // 2, width), 128, np.uint8)
            yuv[:height] = (100 + 3 * (self.frames - 1)) % 256
            return yuv
        image = np.full((height, width, 3), 60, np.uint8)
        x = (self.frames * 2) % max(1, width - SQUARE)
        image[:SQUARE, x:x + SQUARE] = RED_BGR
        self.frames += 1
        return image

    def stop(self) -> None:
        self.calls.append(("stop", None))
        self.started = False

    def close(self) -> None:
        self.calls.append(("close", None))
        self.closed = True
