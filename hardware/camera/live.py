"""Live backends of :mod:`hardware.camera`: ``picamera2`` and ``usb:``, read by a thread."""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import threading
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np

from hardware.camera.base import Camera, CameraError, Clock, Recovery, _target
from hardware.status import WAITING, Status
from tabletop.messages import Message

log = logging.getLogger(__name__)
#: OpenCV's own log variable: set, it is obeyed; unset, only OpenCV's errors are printed (as
#: with ``TABLETOP_DEBUG``, the app's flag for every log, see ui.quiet, set to 1). OpenCV's
#: warnings ("can't open camera by index") came at every reopening of an absent camera,
#: every 2 s; the camera's status, and :class:`UsbCamera`'s one line a loss, say it in words.
OPENCV_LOG_VARIABLE = "OPENCV_LOG_LEVEL"
if OPENCV_LOG_VARIABLE not in os.environ and os.environ.get("TABLETOP_DEBUG", "") in ("", "0"):
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    # FFmpeg's own lines ("[png @ 0x...] Invalid PNG signature") for a file that is no video:
    # read when the first capture opens, so setting it here, after cv2's import, holds.
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")


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

    A device is released off the caller's thread (by the grab thread as it
    exits, or by a thread of its own), so no driver that hangs in ``stop()``
    can hang ``read()`` or ``close()``; one still releasing ``release_timeout``
    seconds (of ``clock``) after it began is stuck, which the backend's
    :attr:`~Camera.recovery` may take as hopeless.
    """

    #: Seconds ``close()`` waits for the thread to stop; a thread still stuck
    #: in the driver after that is left to release the device when it returns.
    join_timeout = 0.25

    def __init__(self, source: str, *, stall_timeout: float | None = 3.0,
                 release_timeout: float = 2.0, **common: Any) -> None:
        super().__init__(source, **common)
        self.stall_timeout = stall_timeout
        self.release_timeout = release_timeout
        self._grabber: _Grabber | None = None
        self._releases: list[_Release] = []  # releases begun and not yet seen finished

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
        self._releases.append(self._grabber.release)

    def _let_go(self, device: Any) -> None:
        """Release ``device`` in a thread of its own (one that failed to start)."""
        release = _Release(self.clock, self.release_timeout)
        self._releases.append(release)
        threading.Thread(target=release.run, args=(lambda: self._release(device),),
                         name=f"camera {self.source} release", daemon=True).start()

    def _stuck(self) -> bool:
        self._releases = [r for r in self._releases if not r.done.is_set()]
        return any(release.stuck() for release in self._releases)

    def _fetch(self) -> tuple[Any, float] | None:
        latest, error, arrival = self._grabber.take()
        if latest is not None:
            return latest
        if error is not None:
            raise error
        silent = self.clock() - arrival
        if self.stall_timeout is not None and silent >= self.stall_timeout:
            raise CameraError(Message("gives no frames"))
        if self.stall_timeout is not None and silent >= self.stall_timeout / 2:
            self._status = Status(WAITING, f"camera {self.source} has given no frame "
                                           f"for {silent:.1f} s")
        return None

    def _disconnect(self) -> None:
        grabber, self._grabber = self._grabber, None
        if grabber is not None:
            grabber.stop(self.join_timeout)


class _Release:
    """One letting go of a device, run by whichever thread holds it.

    Nobody waits for it: :meth:`stuck` tells, from ``clock``, whether it has
    taken longer than ``timeout`` seconds (a driver hung in ``stop()``).
    """

    def __init__(self, clock: Clock, timeout: float) -> None:
        self.clock, self.timeout = clock, timeout
        self.began: float | None = None
        self.done = threading.Event()

    def run(self, release: Callable[[], None]) -> None:
        self.began = self.clock()
        try:
            with contextlib.suppress(Exception):  # the device may already be gone
                release()
        finally:
            self.done.set()

    def stuck(self) -> bool:
        began = self.began
        return began is not None and not self.done.is_set() and \
            self.clock() - began >= self.timeout


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
        self.release = _Release(camera.clock, camera.release_timeout)
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
        self.release.run(lambda: self.camera._release(self.device))
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


#: The share of the picture clipped white (any channel at CLIPPED or more) beyond which the
#: Pi camera's fixed exposure is shortened, by HIGHLIGHT_STEP at most HIGHLIGHT_STEPS times,
#: each judged SETTLE_FRAMES frames after the change.
CLIPPED, CLIPPED_SHARE = 250, 0.05
HIGHLIGHT_STEP, HIGHLIGHT_STEPS, SETTLE_FRAMES = 0.7, 5, 3


def _clipped_share(image: np.ndarray) -> float:
    """The share of ``image``'s pixels burnt out in at least one channel.

    >>> _clipped_share(np.array([[[255, 10, 10], [20, 20, 20]]], np.uint8))
    0.5
    """
    return float((image.max(axis=-1) >= CLIPPED).mean())


class PiCamera(Live):
    """The Raspberry Pi camera through ``picamera2`` (imported when opened).

    Options: ``size`` (main stream, default 1280x960), ``lores_size`` (motion
    stream, default 320x240), ``warmup_frames`` before exposure and white
    balance are fixed (``fix_exposure=False`` leaves them automatic; a picture
    then still largely burnt out has its exposure shortened), and
    ``stall_timeout`` (see :class:`Live`). Each frame is one
    ``capture_request()``: its ``main`` image and its ``lores`` motion image
    come from the same frame, and the request is always released. The call
    blocks in the grab thread, so a hung camera shows up as "gives no frames".

    The CSI camera is not hot-pluggable: once its cable was pulled, picamera2
    can hang in ``stop()`` and libcamera refuses a new ``Picamera2()`` while the
    old one is not closed ("Pipeline handler in use by another process", then
    "Camera __init__ sequence did not complete"); only a new process reaches it
    again. So after a loss it is reopened ``max_reopens`` times (5: about 10 s
    at the default ``retry_interval`` of 2 s, plus ``stall_timeout`` for each
    opening that gives no frame; enough for a hiccup that does heal), and given
    up on at once when a release hangs: see :attr:`Camera.hopeless`.
    """

    recovery = Recovery(max_reopens=5, stuck_gives_up=True)

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
            raise CameraError(Message("is unavailable: picamera2 is not installed "
                                      "(it needs a Raspberry Pi with libcamera)")) from None
        try:
            device = module.Picamera2()
        except RuntimeError as exc:  # the camera is taken or gone: a fault, not a bug
            raise CameraError(Message("failed ({error})", error=str(exc))) from exc
        try:
            device.configure(device.create_video_configuration(
                main={"size": self.size, "format": "RGB888"},
                lores={"size": self.lores_size, "format": "YUV420"}))
            device.start()
        except Exception:
            self._let_go(device)
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
        if "ExposureTime" in controls:
            self._spare_highlights(device, int(controls["ExposureTime"]))

    def _spare_highlights(self, device: Any, exposure: int) -> None:
        """Shorten the fixed exposure while much of the picture is clipped white.

        The sensor's automatic exposure aims at a mean brightness; a light board
        under a lamp then burns out, and a light tile on burnt-out paper cannot
        be told from the paper at all (no frame holds it). A glare spot or a
        marker's white border is a few percent of the picture; burnt-out paper
        is far more, so only that shortens the exposure, by at most
        ``HIGHLIGHT_STEP ** HIGHLIGHT_STEPS`` (about 2.5 stops).
        """
        for _ in range(HIGHLIGHT_STEPS):
            if _clipped_share(self._settled_main(device)) <= CLIPPED_SHARE:
                return
            exposure = max(1, int(exposure * HIGHLIGHT_STEP))
            device.set_controls({"ExposureTime": exposure})
            log.info("camera: the picture is burnt out; exposure shortened to %d us", exposure)

    def _settled_main(self, device: Any) -> np.ndarray:
        """The main image of a frame taken after the last control change took effect
        (libcamera applies controls a few frames later)."""
        for _ in range(SETTLE_FRAMES):
            device.capture_request().release()
        request = device.capture_request()
        try:
            return request.make_array("main")
        finally:
            request.release()

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

    def _motion_image(self, image: np.ndarray) -> np.ndarray:
        return self._lores if self._lores is not None else image


class UsbCamera(Live):
    """A USB (V4L2) camera: ``usb:0`` or ``usb:/dev/v4l/by-id/...``.

    The grab thread calls ``cap.grab()`` for every frame, which keeps the
    driver's buffer drained, and ``cap.retrieve()`` only for frames
    ``read()`` asked for (see :class:`Live`). Options: ``size=(w, h)``,
    ``stall_timeout``, and ``capture_factory`` (target -> an object like
    ``cv2.VideoCapture``, for tests; any other target string, such as a
    video file, is passed through as it is).
    """

    recovery = Recovery()  # hot-pluggable: retried until it is plugged in again

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
            raise CameraError(Message("cannot be opened (unplugged?)"))
        if self.size:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        return cap

    def _grab(self, cap: Any) -> None:
        if not cap.grab():
            raise CameraError(Message("unplugged"))

    def _retrieve(self, cap: Any, handle: None) -> np.ndarray:
        ok, image = cap.retrieve()
        if not ok or image is None:
            raise CameraError(Message("unplugged"))
        return image

    def _release(self, cap: Any) -> None:
        cap.release()

    # One line on the log when a camera that gave frames is lost, one when it is back: not one
    # at each reopening (every ``retry_interval`` seconds while it is unplugged).

    def _fault(self, exc: Exception) -> None:
        lost = self._reached and self._faults == 0
        super()._fault(exc)
        if lost:
            log.warning("%s every %g s until it is back",
                        self.status.message, self.retry_interval)

    def _deliver(self, image: np.ndarray, timestamp: float) -> Any:
        back = self._reached and self._faults > 0
        frame = super()._deliver(image, timestamp)
        if back:
            log.warning("camera %s is back: the board is read again", self.source)
        return frame
