"""Camera sources: one interface, backends chosen by a source string.

Like gpiozero's pin factories, :func:`open_camera` picks a backend from the
prefix of a source string through the :data:`SOURCES` registry
(``picamera2``, ``usb:0``, ``usb:/dev/v4l/by-id/...``, ``file:game.mp4``,
``dir:frames/``); the composition root may register more (``sim``). Every
backend gives the same :class:`Camera`: ``read()`` returns the latest
:class:`Frame` or ``None``, and never raises for a device fault. Faults, black
and frozen frames are reported in :attr:`Camera.status`, and a lost device is
reopened on later reads, at most once per ``retry_interval`` seconds.

>>> import tempfile, numpy as np, cv2
>>> with tempfile.TemporaryDirectory() as folder:
...     _ = cv2.imwrite(f"{folder}/0001.png", np.full((4, 6, 3), 128, np.uint8))
...     with open_camera(f"dir:{folder}") as camera:
...         frame = camera.read()
...         print(frame.index, frame.image.shape, camera.status.state)
...         print(camera.read(), camera.status.message)  # doctest: +ELLIPSIS
0 (4, 6, 3) ready
None camera dir:... end of folder
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import math
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

import cv2
import numpy as np

from hardware.status import FAULT, READY, WAITING, Status

Clock = Callable[[], float]
ENV_VAR = "TABLETOP_CAMERA"
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp")


@dataclass(frozen=True)
class Frame:
    """One picture: BGR ``uint8`` HxWx3 ``image``, ``timestamp`` in seconds, 0-based ``index``."""

    image: np.ndarray
    timestamp: float
    index: int


class CameraError(Exception):
    """A device fault; the message completes "camera SOURCE ...; retrying"."""


class EndOfStream(Exception):
    """A recording has no more frames; the message says so ("end of file")."""


class Camera:
    """The interface every source shares; backends override the ``_`` hooks.

    Options common to all backends: ``clock`` (seconds, default
    ``time.monotonic``), ``retry_interval`` (seconds between reopen attempts),
    ``black_threshold`` (mean brightness below which a frame is black) and
    ``frozen_frames`` (report a frame identical to the previous N; ``None``
    turns the check off, -1 keeps the backend's default).
    """

    frozen_default: int | None = 10

    def __init__(self, source: str, *, clock: Clock = time.monotonic,
                 retry_interval: float = 2.0, black_threshold: float = 8.0,
                 frozen_frames: int | None = -1) -> None:
        self.source = source
        self.clock = clock
        self.retry_interval = retry_interval
        self.black_threshold = black_threshold
        self.frozen_frames = self.frozen_default if frozen_frames == -1 else frozen_frames
        self._status = Status(WAITING, f"camera {source} not opened")
        self._opened = self._connected = self._ended = False
        self._next_try = -math.inf
        self._count = 0
        self._previous: np.ndarray | None = None
        self._same = 0
        self._small: np.ndarray | None = None
        self._motion: float | None = None
        self._notes: list[str] = []

    @property
    def status(self) -> Status:
        """What the camera says about itself, for the screen."""
        return self._status

    @property
    def ended(self) -> bool:
        """True once a recording (``file:``, ``dir:``) has delivered its last frame."""
        return self._ended

    def open(self) -> None:
        """Start the device; a fault is reported in :attr:`status`, not raised."""
        self.close()
        self._opened = True
        self._next_try = -math.inf
        self._reconnect()

    def read(self) -> Frame | None:
        """The latest frame, or ``None`` when nothing new is available (never raises)."""
        if not self._opened:
            self.open()
        if self._ended or (not self._connected and not self._reconnect()):
            return None
        self._notes = []
        try:
            got = self._fetch()
        except EndOfStream as end:
            self._ended = True
            self._status = Status(WAITING, f"camera {self.source} {end}")
            return None
        except Exception as exc:  # noqa: BLE001 - a device fault must never reach the game
            self._fault(exc)
            return None
        if got is None:
            return None
        return self._deliver(*got)

    def motion(self) -> float | None:
        """Mean absolute difference of a small grey image vs the previous frame."""
        return self._motion

    def close(self) -> None:
        """Stop the device and any thread; safe to call twice."""
        if self._connected:
            self._disconnect_quietly()
        self._opened = self._ended = False
        self._count, self._previous, self._small, self._motion = 0, None, None, None
        self._status = Status(WAITING, f"camera {self.source} closed")

    def __enter__(self) -> Self:
        self.open()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _connect(self) -> None:
        """Open the device or raise :class:`CameraError`."""

    def _fetch(self) -> tuple[np.ndarray, float] | None:
        """The newest image and its timestamp, ``None``, or raise a fault."""
        raise NotImplementedError

    def _disconnect(self) -> None:
        """Release the device."""

    def _small_gray(self, image: np.ndarray) -> np.ndarray:
        """A small grey picture for :meth:`motion`."""
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        width = min(160, gray.shape[1])
        height = max(1, round(gray.shape[0] * width / gray.shape[1]))
        return cv2.resize(gray, (width, height), interpolation=cv2.INTER_AREA)

    def _reconnect(self) -> bool:
        now = self.clock()
        if now < self._next_try:
            return False
        try:
            self._connect()
        except Exception as exc:  # noqa: BLE001 - reported in status, retried later
            self._disconnect_quietly()  # release whatever was half opened
            self._fault(exc)
            return False
        self._connected = True
        self._status = Status(WAITING, f"camera {self.source} opened; waiting for frames")
        return True

    def _fault(self, exc: Exception) -> None:
        reason = str(exc) if isinstance(exc, CameraError) else f"failed ({exc})"
        self._status = Status(FAULT, f"camera {self.source} {reason}; retrying")
        if self._connected:
            self._disconnect_quietly()
        self._next_try = self.clock() + self.retry_interval

    def _disconnect_quietly(self) -> None:
        self._connected = False
        with contextlib.suppress(Exception):  # the device may already be gone
            self._disconnect()

    def _deliver(self, image: np.ndarray, timestamp: float) -> Frame:
        frame = Frame(image, float(timestamp), self._count)
        self._count += 1
        small = self._small_gray(image)
        if self._small is not None and self._small.shape == small.shape:
            self._motion = float(np.mean(cv2.absdiff(small, self._small)))
        self._small = small
        self._judge(image)
        return frame

    def _judge(self, image: np.ndarray) -> None:
        notes = list(self._notes)
        if float(image[::4, ::4].mean()) < self.black_threshold:
            notes.append("sees only black (lens covered or lights off?)")
        if self.frozen_frames is not None:
            same = self._previous is not None and np.array_equal(image, self._previous)
            self._same = self._same + 1 if same else 0
            self._previous = image
            if self._same >= self.frozen_frames:
                notes.append(f"picture frozen ({self._same} identical frames)")
        if notes:
            self._status = Status(WAITING, f"camera {self.source} " + "; ".join(notes))
        else:
            self._status = Status(READY, f"camera {self.source} ready")


def _target(source: str) -> str:
    return source.partition(":")[2]


class PiCamera(Camera):
    """The Raspberry Pi camera through ``picamera2`` (imported when opened).

    Options: ``size`` (main stream, default 1280x960), ``lores_size`` (motion
    stream, default 320x240), ``warmup_frames`` before exposure and white
    balance are fixed (``fix_exposure=False`` leaves them automatic).
    """

    def __init__(self, source: str = "picamera2", *, size: tuple[int, int] = (1280, 960),
                 lores_size: tuple[int, int] = (320, 240), warmup_frames: int = 15,
                 fix_exposure: bool = True, **common: Any) -> None:
        super().__init__(source, **common)
        self.size, self.lores_size = tuple(size), tuple(lores_size)
        self.warmup_frames, self.fix_exposure = warmup_frames, fix_exposure
        self._device: Any = None
        self._lores: np.ndarray | None = None

    def _connect(self) -> None:
        try:
            module = importlib.import_module("picamera2")
        except ImportError:
            raise CameraError("is unavailable: picamera2 is not installed "
                              "(it needs a Raspberry Pi with libcamera)") from None
        device = module.Picamera2()
        self._device = device
        config = device.create_video_configuration(
            main={"size": self.size, "format": "RGB888"},
            lores={"size": self.lores_size, "format": "YUV420"})
        device.configure(config)
        device.start()
        self._settle(device)

    def _settle(self, device: Any) -> None:
        metadata: dict = {}
        for _ in range(max(1, self.warmup_frames)):
            metadata = device.capture_metadata()
        if not self.fix_exposure:
            return
        controls = {"AeEnable": False, "AwbEnable": False}
        for key in ("ExposureTime", "AnalogueGain", "ColourGains"):
            if key in metadata:
                controls[key] = metadata[key]
        device.set_controls(controls)

    def _fetch(self) -> tuple[np.ndarray, float]:
        image = self._device.capture_array("main")  # RGB888 is B, G, R in memory
        yuv = self._device.capture_array("lores")
        self._lores = np.asarray(yuv)[: self.lores_size[1]]
        return np.ascontiguousarray(image[:, :, :3]), self.clock()

    def _small_gray(self, image: np.ndarray) -> np.ndarray:
        return self._lores if self._lores is not None else super()._small_gray(image)

    def _disconnect(self) -> None:
        device, self._device = self._device, None
        if device is not None:
            try:
                device.stop()
            finally:
                device.close()


class UsbCamera(Camera):
    """A USB (V4L2) camera: ``usb:0`` or ``usb:/dev/v4l/by-id/...``.

    A daemon thread grabs continuously and keeps only the newest frame, so
    ``read()`` never returns a stale backlog. Options: ``size=(w, h)``, and
    ``capture_factory`` (target -> an object like ``cv2.VideoCapture``, for tests).
    """

    def __init__(self, source: str = "usb:0", *, size: tuple[int, int] | None = None,
                 capture_factory: Callable[[int | str], Any] = cv2.VideoCapture,
                 **common: Any) -> None:
        super().__init__(source, **common)
        target = _target(source) or "0"
        self.target: int | str = int(target) if target.isdigit() else target
        self.size, self.capture_factory = size, capture_factory
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._cap: Any = None  # the latest-frame state is set by _connect

    def _connect(self) -> None:
        cap = self.capture_factory(self.target)
        if cap is None or not cap.isOpened():
            if cap is not None:
                cap.release()
            raise CameraError("cannot be opened (unplugged?)")
        if self.size:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        self._cap, self._failed = cap, False
        self._latest: tuple[np.ndarray, float] | None = None
        self._seq = self._taken = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._grab_loop, args=(cap, self._stop),
                                        name=f"camera {self.source}", daemon=True)
        self._thread.start()

    def _grab_loop(self, cap: Any, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                ok, image = cap.read()
            except Exception:  # noqa: BLE001 - treated as an unplug
                ok, image = False, None
            with self._lock:
                if stop.is_set():  # closed meanwhile: a newer thread may own the state
                    return
                if not ok or image is None:
                    self._failed = True
                    return
                self._latest, self._seq = (image, self.clock()), self._seq + 1

    def _fetch(self) -> tuple[np.ndarray, float] | None:
        with self._lock:
            latest, seq = self._latest, self._seq
        if seq == self._taken:
            if self._failed:
                raise CameraError("unplugged")
            return None
        self._taken = seq
        return latest

    def _disconnect(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        cap, self._cap, self._thread = self._cap, None, None
        if cap is not None:
            cap.release()


class Recording(Camera):
    """Shared pacing for recorded sources (``file:``, ``dir:``).

    ``fps=None`` delivers frames as fast as ``read()`` is called; a number
    paces them in real time (by ``clock``): ``read()`` returns the frame whose
    time has come, skipping late ones, or ``None`` if the next is not due yet.
    ``timestamp`` is the frame's position in the recording divided by the
    timebase (``fps``, else the recording's own rate), so it equals
    ``index / fps`` whenever nothing was skipped.
    """

    frozen_default = None  # a still scene is legitimately identical frame to frame
    end_message = "end of recording"

    def __init__(self, source: str, *, fps: float | None = None, **common: Any) -> None:
        super().__init__(source, **common)
        self.fps = fps
        self.path = Path(_target(source))
        self._position = 0
        self._start: float | None = None

    def _timebase(self) -> float:
        raise NotImplementedError

    def _skip(self, count: int) -> None:
        """Pass over ``count`` frames without decoding them."""

    def _load(self) -> np.ndarray:
        """Decode the frame at the current position or raise :class:`EndOfStream`."""
        raise NotImplementedError

    def _connect(self) -> None:
        self._position, self._start = 0, None

    def _fetch(self) -> tuple[np.ndarray, float] | None:
        due = self._position
        if self.fps:
            now = self.clock()
            self._start = now if self._start is None else self._start
            due = math.floor((now - self._start) * self.fps + 1e-9)
            if due < self._position:
                return None
        self._skip(due - self._position)
        self._position = due
        image = self._load()
        timestamp = self._position / self._timebase()
        self._position += 1
        return image, timestamp


class FileCamera(Recording):
    """A recorded video, ``file:game.mp4``, read with ``cv2.VideoCapture``."""

    end_message = "end of file"
    _cap: Any = None
    _video_fps = 0.0

    def _connect(self) -> None:
        super()._connect()
        if not self.path.is_file():
            raise CameraError(f"cannot be opened (no such file {self.path})")
        cap = cv2.VideoCapture(str(self.path))
        if not cap.isOpened():
            cap.release()
            raise CameraError(f"cannot be opened (unreadable video {self.path})")
        self._cap, self._video_fps = cap, cap.get(cv2.CAP_PROP_FPS) or 0.0

    def _timebase(self) -> float:
        return float(self.fps or self._video_fps or 30.0)

    def _skip(self, count: int) -> None:
        for _ in range(count):
            if not self._cap.grab():
                raise EndOfStream(self.end_message)

    def _load(self) -> np.ndarray:
        ok, image = self._cap.read()
        if not ok or image is None:
            raise EndOfStream(self.end_message)
        return image

    def _disconnect(self) -> None:
        cap, self._cap = self._cap, None
        if cap is not None:
            cap.release()


class FolderCamera(Recording):
    """Image files (png, jpg, jpeg, bmp) in name order, ``dir:frames/``.

    The timebase is ``fps`` (default 10). An unreadable image is skipped and
    named in :attr:`status`, with the next readable image returned instead.
    """

    end_message = "end of folder"
    _files: list[Path] = []  # noqa: RUF012 - replaced, never mutated

    def _connect(self) -> None:
        super()._connect()
        if not self.path.is_dir():
            raise CameraError(f"cannot be opened (no such folder {self.path})")
        self._files = sorted(p for p in self.path.iterdir()
                             if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())

    def _timebase(self) -> float:
        return float(self.fps or 10.0)

    def _load(self) -> np.ndarray:
        while self._position < len(self._files):
            path = self._files[self._position]
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is not None:
                return image
            self._notes.append(f"skipped unreadable image {path.name}")
            self._position += 1
        raise EndOfStream(self.end_message)


CameraFactory = Callable[..., Camera]

#: Source prefix -> factory called as ``factory(source, **options)``.
SOURCES: dict[str, CameraFactory] = {
    "picamera2": PiCamera,
    "usb": UsbCamera,
    "file": FileCamera,
    "dir": FolderCamera,
}


def default_source() -> str:
    """``$TABLETOP_CAMERA``, else ``picamera2`` where it is installed, else ``usb:0``."""
    if os.environ.get(ENV_VAR):
        return os.environ[ENV_VAR]
    try:
        found = importlib.util.find_spec("picamera2") is not None
    except (ImportError, ValueError):
        found = False
    return "picamera2" if found else "usb:0"


def open_camera(source: str | None = None, **options: Any) -> Camera:
    """The camera for ``source`` (unopened; ``with`` or ``open()`` starts it).

    >>> open_camera("webcam:1")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: unknown camera source 'webcam:1'; known sources: dir:, file:, picamera2, usb: ...
    """
    source = source or default_source()
    prefix = source.partition(":")[0]
    factory = SOURCES.get(prefix)
    if factory is None:
        known = ", ".join(k if k == "picamera2" else f"{k}:" for k in sorted(SOURCES))
        raise ValueError(f"unknown camera source {source!r}; known sources: {known} "
                         "(e.g. usb:0, file:game.mp4, dir:frames/)")
    return factory(source, **options)
