"""A fake ``picamera2`` module for tests, implementing EXACTLY the calls
``hardware.camera.PiCamera`` makes, and nothing else:

``Picamera2()``, ``create_video_configuration(main=..., lores=...)``,
``configure(config)``, ``start()``, ``capture_metadata()``,
``set_controls(controls)``, ``capture_request()`` (no arguments), and on the
request it returns ``make_array("main" | "lores")`` and ``release()``; then
``stop()`` and ``close()``. There is deliberately no ``capture_array``.

Frames are synthetic and numbered ``n = 0, 1, ...`` per ``capture_request()``,
which waits ``frame_interval`` seconds like a camera waiting for its next frame.
``main`` is a BGR image (picamera2's ``RGB888`` is B, G, R in memory) of grey 60
with a pure red square whose column moves with ``n`` and a bottom row of value
``n % 256``; ``lores`` is a YUV420 array whose Y plane is uniform at
``(100 + 3 * n) % 256``, so both arrays of one request name the same frame and
the motion between frames ``n`` and ``m`` is ``3 * (m - n)``. Setting
``Picamera2.still = True`` makes every request frame 0 (a frozen picture).
``Picamera2.paper = LEVEL`` lays a light board over the middle three quarters of
``main``, as bright as LEVEL at the metered exposure (12000 us) and in proportion
to the ``ExposureTime`` set since, clipped at 255 as a sensor clips it.

A request refuses ``make_array`` after ``release()`` and a second ``release()``.
Every call is recorded in ``Picamera2.calls``, every request in
``Picamera2.requests`` and every instance in the module-level ``instances``.

Faults of a CSI camera whose cable was pulled, as picamera2 shows them:
``Picamera2.exclusive = True`` refuses a new instance while another one is not
closed, and ``Picamera2.refuse = True`` refuses every new one, both with
picamera2's ``RuntimeError(REFUSED)`` (libcamera logs "Pipeline handler in use
by another process"); the module-level ``refused`` counts the refusals.
``Picamera2.stop_gate = threading.Event()`` makes ``stop()`` block until that
event is set; an instance's ``in_stop`` event tells it has been entered.

Inject it with ``monkeypatch.setitem(sys.modules, "picamera2", fake)``:

>>> camera = Picamera2()
>>> camera.configure(camera.create_video_configuration(
...     main={"size": (64, 48), "format": "RGB888"},
...     lores={"size": (16, 12), "format": "YUV420"}))
>>> camera.start()
>>> request = camera.capture_request()
>>> request.make_array("main").shape, request.make_array("lores").shape
((48, 64, 3), (18, 16))
>>> request.release()
"""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np

instances: list[Picamera2] = []
refused: list[str] = []  # the error of each Picamera2() that was refused

REFUSED = "Camera __init__ sequence did not complete."

SQUARE = 8  # side of the red square in the main stream
RED_BGR = (0, 0, 255)


class CompletedRequest:
    """One frame's buffers, held until :meth:`release`."""

    def __init__(self, camera: Picamera2, number: int) -> None:
        self.camera, self.number = camera, number
        self.made: list[str] = []
        self.released = False

    def make_array(self, name: str) -> np.ndarray:
        assert not self.released, "make_array after release"
        self.made.append(name)
        width, height = self.camera.config[name]["size"]
        n = self.number
        if name == "lores":
            yuv = np.full((height * 3 // 2, width), 128, np.uint8)
            yuv[:height] = (100 + 3 * n) % 256
            return yuv
        image = np.full((height, width, 3), 60, np.uint8)
        if self.camera.paper is not None:
            level = self.camera.paper * self.camera.controls.get("ExposureTime", 12000) / 12000
            image[height // 8:-height // 8, width // 8:-width // 8] = min(255, int(level))
        x = (n * 2) % max(1, width - SQUARE)
        image[:SQUARE, x:x + SQUARE] = RED_BGR
        image[-1] = n % 256
        return image

    def release(self) -> None:
        assert not self.released, "request released twice"
        self.released = True


class Picamera2:
    """Synthetic stand-in for ``picamera2.Picamera2``."""

    still = False  # every request shows frame 0
    paper: float | None = None  # a light board's level at the metered exposure (see above)
    frame_interval = 0.002  # seconds capture_request() waits for a frame
    exclusive = False  # refuse a new instance while another is not closed
    refuse = False  # refuse every new instance
    stop_gate: threading.Event | None = None  # stop() blocks until it is set

    def __init__(self) -> None:
        held = self.exclusive and any(not other.closed for other in instances)
        if self.refuse or held:
            refused.append(REFUSED)
            raise RuntimeError(REFUSED)
        self.in_stop = threading.Event()
        self.calls: list[tuple[str, Any]] = []
        self.requests: list[CompletedRequest] = []
        self.config: dict | None = None
        self.controls: dict = {}
        self.started = self.closed = False
        self.frames = 0  # requests captured so far
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

    def capture_request(self) -> CompletedRequest:
        self.calls.append(("capture_request", None))
        assert self.started and self.config is not None, "capture before start"
        time.sleep(self.frame_interval)
        request = CompletedRequest(self, 0 if self.still else self.frames)
        self.frames += 1
        self.requests.append(request)
        return request

    def stop(self) -> None:
        self.calls.append(("stop", None))
        self.in_stop.set()
        if self.stop_gate is not None:
            self.stop_gate.wait()
        self.started = False

    def close(self) -> None:
        self.calls.append(("close", None))
        self.closed = True
