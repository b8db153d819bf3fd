"""Camera sources: one interface, backends chosen by a source string.

Like gpiozero's pin factories, :func:`open_camera` picks a backend from the
prefix of a source string through the :data:`SOURCES` registry
(``picamera2``, ``usb:0``, ``usb:/dev/v4l/by-id/...``, ``file:game.mp4``,
``dir:frames/``); the composition root may register more (``sim``). Every
backend gives the same :class:`Camera`: ``read()`` returns the latest
:class:`Frame` (always HxWx3 ``uint8`` BGR) or ``None``, and never raises for a
device fault. Faults, stalls, black and frozen frames are reported in
:attr:`Camera.status`, and a lost or stalled device is reopened on later
reads, at most once per ``retry_interval`` seconds. Live cameras (``usb:``,
``picamera2``) are read by a thread, see :class:`Live`.

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
            return None if got is None else self._deliver(*got)
        except EndOfStream as end:
            self._ended = True
            self._status = Status(WAITING, f"camera {self.source} {end}")
        except Exception as exc:  # noqa: BLE001 - a device fault must never reach the game
            self._fault(exc)
        return None

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
        image = as_bgr(image)
        small = self._small_gray(image)
        frame = Frame(image, float(timestamp), self._count)
        self._count += 1
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


def as_bgr(image: Any) -> np.ndarray:
    """``image`` as an HxWx3 ``uint8`` BGR picture; grey and BGRA are converted.

    >>> as_bgr(np.zeros((2, 3), np.uint8)).shape, as_bgr(np.zeros((2, 3, 4), np.uint8)).shape
    ((2, 3, 3), (2, 3, 3))
    >>> as_bgr(np.zeros((2, 3, 5), np.uint8))
    Traceback (most recent call last):
    hardware.camera.CameraError: gives frames of shape (2, 3, 5), not a picture
    """
    image = np.asarray(image)
    if image.dtype != np.uint8:
        raise CameraError(f"gives {image.dtype} frames, not uint8")
    channels = image.shape[2] if image.ndim == 3 else 1
    if image.ndim not in (2, 3) or image.size == 0 or channels not in (1, 3, 4):
        raise CameraError(f"gives frames of shape {image.shape}, not a picture")
    if channels == 1:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if channels == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    return image


def _target(source: str) -> str:
    return source.partition(":")[2]


class Live(Camera):
    """A live camera (``usb:``, ``picamera2``) fed by a :class:`_Grabber` thread.

    The thread waits for frames, so ``read()`` never blocks on the device. It
    decodes only frames that are asked for: each ``read()`` asks for the next
    one, and returns the frame decoded for the previous call, if any. So a
    frame is never older than the gap between two ``read()`` calls (plus one
    frame period), no backlog builds up, and nothing is decoded in vain.

    A device that stops delivering (a stalled driver, which V4L2 can be for
    ~10 s after an unplug) is reported WAITING after ``stall_timeout / 2``
    seconds without a frame, FAULT ("gives no frames") after ``stall_timeout``
    and then reopened; ``stall_timeout=None`` turns the check off. Subclasses
    implement the device hooks, which only the grab thread calls.
    """

    #: Seconds ``close()`` waits for the thread to stop; a thread still stuck
    #: in the driver after that is left to release the device when it returns.
    join_timeout = 0.25

    def __init__(self, source: str, *, stall_timeout: float | None = 3.0,
                 **common: Any) -> None:
        super().__init__(source, **common)
        self.stall_timeout = stall_timeout
        self._grabber: _Grabber | None = None

    def _open_device(self) -> Any:
        """Open and start the device, or raise :class:`CameraError` (in ``read()``)."""
        raise NotImplementedError

    def _prepare(self, device: Any) -> None:
        """Set the device up in the thread, before the first grab."""

    def _grab(self, device: Any) -> Any:
        """Wait for the next frame without decoding it; return a handle or raise."""
        raise NotImplementedError

    def _retrieve(self, device: Any, handle: Any) -> Any:
        """Decode the frame ``handle`` grabbed (and let go of the handle)."""
        raise NotImplementedError

    def _discard(self, handle: Any) -> None:
        """Let go of a grabbed frame nobody asked for."""

    def _release(self, device: Any) -> None:
        """Stop and close the device; called by the thread as it exits."""

    def _connect(self) -> None:
        self._grabber = _Grabber(self, self._open_device())

    def _fetch(self) -> tuple[Any, float] | None:
        latest, error, arrival = self._grabber.take()
        if latest is not None:
            return latest
        if error is not None:
            raise error
        silent = self.clock() - arrival
        if self.stall_timeout is not None and silent >= self.stall_timeout:
            raise CameraError("gives no frames")
        if self.stall_timeout is not None and silent >= self.stall_timeout / 2:
            self._status = Status(WAITING, f"camera {self.source} has given no frame "
                                           f"for {silent:.1f} s")
        return None

    def _disconnect(self) -> None:
        grabber, self._grabber = self._grabber, None
        if grabber is not None:
            grabber.stop(self.join_timeout)


class _Grabber:
    """The daemon thread behind one opening of a :class:`Live` camera.

    Only this thread touches the device: it grabs in a loop, decodes a frame
    when :meth:`take` has asked for one, and releases the device itself when
    it exits, so the device is never released while a call is still inside
    the driver. Each opening has its own grabber, so an old thread left
    stuck in the driver never touches a newer opening's state.
    """

    def __init__(self, camera: Live, device: Any) -> None:
        self.camera, self.device = camera, device
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._wanted = False
        self._latest: tuple[Any, float] | None = None
        self._error: Exception | None = None
        self._arrival = camera.clock()  # when the last frame was grabbed
        self.thread = threading.Thread(target=self._run, name=f"camera {camera.source}",
                                       daemon=True)
        self.thread.start()

    def take(self) -> tuple[tuple[Any, float] | None, Exception | None, float]:
        """Ask for the next frame; return the one decoded so far, the error, the arrival time."""
        with self._lock:
            self._wanted = True
            latest, self._latest = self._latest, None
            return latest, self._error, self._arrival

    def stop(self, timeout: float) -> None:
        """Tell the thread to stop and wait at most ``timeout`` seconds for it."""
        self.stopping.set()
        self.thread.join(timeout)

    def _run(self) -> None:
        error: Exception | None = None
        try:
            self.camera._prepare(self.device)
            while not self.stopping.is_set():
                self._step()
        except Exception as exc:  # noqa: BLE001 - reported by take(), in read()
            error = exc
        with contextlib.suppress(Exception):  # the device may already be gone
            self.camera._release(self.device)
        with self._lock:  # only now, so a reported fault means the device is released
            self._error = error

    def _step(self) -> None:
        handle = self.camera._grab(self.device)
        now = self.camera.clock()
        with self._lock:
            self._arrival, wanted = now, self._wanted
        if not wanted or self.stopping.is_set():
            self.camera._discard(handle)
            return
        image = self.camera._retrieve(self.device, handle)
        with self._lock:  # a take() while decoding asked for this same frame
            self._latest, self._wanted = (image, now), False


class PiCamera(Live):
    """The Raspberry Pi camera through ``picamera2`` (imported when opened).

    Options: ``size`` (main stream, default 1280x960), ``lores_size`` (motion
    stream, default 320x240), ``warmup_frames`` before exposure and white
    balance are fixed (``fix_exposure=False`` leaves them automatic), and
    ``stall_timeout`` (see :class:`Live`). Each frame is one
    ``capture_request()``: its ``main`` image and its ``lores`` motion image
    come from the same frame, and the request is always released. The call
    blocks in the grab thread, so a hung camera shows up as "gives no frames".
    """

    def __init__(self, source: str = "picamera2", *, size: tuple[int, int] = (1280, 960),
                 lores_size: tuple[int, int] = (320, 240), warmup_frames: int = 15,
                 fix_exposure: bool = True, **common: Any) -> None:
        super().__init__(source, **common)
        self.size, self.lores_size = tuple(size), tuple(lores_size)
        self.warmup_frames, self.fix_exposure = warmup_frames, fix_exposure
        self._lores: np.ndarray | None = None

    def _open_device(self) -> Any:
        try:
            module = importlib.import_module("picamera2")
        except ImportError:
            raise CameraError("is unavailable: picamera2 is not installed "
                              "(it needs a Raspberry Pi with libcamera)") from None
        device = module.Picamera2()
        try:
            device.configure(device.create_video_configuration(
                main={"size": self.size, "format": "RGB888"},
                lores={"size": self.lores_size, "format": "YUV420"}))
            device.start()
        except Exception:
            self._release(device)
            raise
        return device

    def _prepare(self, device: Any) -> None:
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

    def _grab(self, device: Any) -> Any:
        return device.capture_request()

    def _retrieve(self, device: Any, request: Any) -> tuple[np.ndarray, np.ndarray]:
        try:
            image = request.make_array("main")  # RGB888 is B, G, R in memory
            yuv = request.make_array("lores")
        finally:
            request.release()
        return image, np.asarray(yuv)[: self.lores_size[1]]

    def _discard(self, request: Any) -> None:
        request.release()

    def _release(self, device: Any) -> None:
        try:
            device.stop()
        finally:
            device.close()

    def _fetch(self) -> tuple[np.ndarray, float] | None:
        got = super()._fetch()
        if got is None:
            return None
        (image, self._lores), timestamp = got
        return image, timestamp

    def _small_gray(self, image: np.ndarray) -> np.ndarray:
        return self._lores if self._lores is not None else super()._small_gray(image)


class UsbCamera(Live):
    """A USB (V4L2) camera: ``usb:0`` or ``usb:/dev/v4l/by-id/...``.

    The grab thread calls ``cap.grab()`` for every frame, which keeps the
    driver's buffer drained, and ``cap.retrieve()`` only for frames
    ``read()`` asked for (see :class:`Live`). Options: ``size=(w, h)``,
    ``stall_timeout``, and ``capture_factory`` (target -> an object like
    ``cv2.VideoCapture``, for tests; any other target string, such as a
    video file, is passed through as it is).
    """

    def __init__(self, source: str = "usb:0", *, size: tuple[int, int] | None = None,
                 capture_factory: Callable[[int | str], Any] = cv2.VideoCapture,
                 **common: Any) -> None:
        super().__init__(source, **common)
        target = _target(source) or "0"
        self.target: int | str = int(target) if target.isdigit() else target
        self.size, self.capture_factory = size, capture_factory

    def _open_device(self) -> Any:
        cap = self.capture_factory(self.target)
        if cap is None or not cap.isOpened():
            if cap is not None:
                cap.release()
            raise CameraError("cannot be opened (unplugged?)")
        if self.size:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        return cap

    def _grab(self, cap: Any) -> None:
        if not cap.grab():
            raise CameraError("unplugged")

    def _retrieve(self, cap: Any, handle: None) -> np.ndarray:
        ok, image = cap.retrieve()
        if not ok or image is None:
            raise CameraError("unplugged")
        return image

    def _release(self, cap: Any) -> None:
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
