"""The shared part of :mod:`hardware.camera`: frames, errors and the base class.

Backends (:mod:`hardware.camera.live`, :mod:`hardware.camera.recordings`)
import from here, not from the package, so no import goes in a circle;
:mod:`hardware.camera` re-exports its public names.
"""

from __future__ import annotations

import contextlib
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Self

import cv2
import numpy as np

from hardware.status import FAULT, READY, WAITING, Status
from tabletop.messages import Message, message_of

log = logging.getLogger(__name__)

Clock = Callable[[], float]
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp")


@dataclass(frozen=True)
class Frame:
    """One picture: BGR ``uint8`` HxWx3 ``image``, ``timestamp`` in seconds, 0-based ``index``."""

    image: np.ndarray
    timestamp: float
    index: int


class CameraError(Exception):
    """A device fault; the message completes "camera SOURCE ...; retrying"."""


#: Faults a device is expected to have (unplugged, driver gone): a banner, no log.
#: Anything else a backend raises is a bug: still a banner, plus one traceback.
_EXPECTED_FAULTS: tuple[type[Exception], ...] = (CameraError, OSError)


class EndOfStream(Exception):
    """A recording has no more frames; the message says so ("end of file")."""


@dataclass(frozen=True)
class Recovery:
    """How a backend's lost device comes back: by reopening it, or only in a new process.

    ``max_reopens``: reopenings that may fail in a row (after a loss, with no frame
    between) before the camera gives up; ``None`` retries forever, for devices that
    come back by themselves (a USB camera plugged in again, a file copied in).
    ``stuck_gives_up``: a release that never returns leaves the device taken for the
    rest of the process (a CSI camera's pipeline handler), so give up at once.
    """

    max_reopens: int | None = None
    stuck_gives_up: bool = False


class Camera:
    """The interface every source shares; backends override the ``_`` hooks.

    Options common to all backends: ``clock`` (seconds, default
    ``time.monotonic``), ``retry_interval`` (seconds between reopen attempts),
    ``black_threshold`` (mean brightness below which a frame is black) and
    ``frozen_frames`` (report a frame identical to the previous N; ``None``
    turns the check off, -1 keeps the backend's default).

    A hook reports a device fault by raising :class:`CameraError` (or letting
    an ``OSError`` through): the status says so and the device is retried.
    Any other exception is taken for a bug: the same fault status and retries,
    and its traceback is logged (``logging``, this module's logger) once.

    A device that gave frames in this process and is then lost is given up on
    as its backend's :attr:`recovery` says: after ``max_reopens`` failed
    reopenings in a row (the option overrides the backend's number; ``None``
    never gives up) or at once when releasing it hangs. Then :attr:`hopeless`
    says why, the status is that FAULT, and the camera no longer reopens. A
    device never reached is retried forever, whatever its faults: a new
    process would fare no better (no camera fitted, another program holds it),
    and a restart at every boot would never end.
    """

    frozen_default: int | None = 10
    recovery: ClassVar[Recovery] = Recovery()

    def __init__(self, source: str, *, clock: Clock = time.monotonic,
                 retry_interval: float = 2.0, black_threshold: float = 8.0,
                 frozen_frames: int | None = -1, max_reopens: int | None = -1) -> None:
        self.source = source
        self.clock = clock
        self.retry_interval = retry_interval
        self.black_threshold = black_threshold
        self.frozen_frames = self.frozen_default if frozen_frames == -1 else frozen_frames
        self.max_reopens = self.recovery.max_reopens if max_reopens == -1 else max_reopens
        self._status = Status(WAITING, f"camera {source} not opened")
        self._hopeless: Message | None = None
        self._reached = False  # a frame came in this process: a loss may need a new one
        self._faults = 0  # faults since the last frame: the loss, then failed reopenings
        self._opened = self._connected = self._ended = False
        self._next_try = -math.inf
        self._count = 0
        self._previous: np.ndarray | None = None
        self._same = 0
        # The last two frames' pictures for motion(), kept as delivered: worked out only when
        # asked (a small grey copy of every frame cost half a millisecond no one used).
        self._recent: tuple[np.ndarray | None, np.ndarray | None] = (None, None)
        self._notes: list[str] = []
        self._bugs_logged: set[tuple[type, str, int]] = set()

    @property
    def status(self) -> Status:
        """What the camera says about itself, for the screen."""
        return self._status

    @property
    def hopeless(self) -> Message | None:
        """Why this process cannot reach the camera again (a new one may), else ``None``.

        Once set it stays set; the status is a FAULT with the same sentence.
        """
        if self._hopeless is None and self._reached and self.recovery.stuck_gives_up \
                and self._stuck():
            self._give_up(Message("camera {source} hangs while closing: the app restarts "
                                  "to reach it again", source=self.source))
        return self._hopeless

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
        if self.hopeless is not None:
            return None
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
        before, now = self._recent
        if before is None or now is None:
            return None
        small, previous = self._small_gray(now), self._small_gray(before)
        if small.shape != previous.shape:
            return None
        return float(np.mean(cv2.absdiff(small, previous)))

    def close(self) -> None:
        """Stop the device and any thread; safe to call twice."""
        if self._connected:
            self._disconnect_quietly()
        self._opened = self._ended = False
        self._count, self._previous, self._recent = 0, None, (None, None)
        self._faults = 0
        if self._hopeless is None:  # a camera given up on keeps saying why
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

    def _stuck(self) -> bool:
        """True when a release of the device has hung (it stays taken)."""
        return False

    def _motion_image(self, image: np.ndarray) -> np.ndarray:
        """What :meth:`motion` compares of this frame (a backend may have a small one)."""
        return image

    def _small_gray(self, image: np.ndarray) -> np.ndarray:
        """A small grey picture for :meth:`motion` (a grey one is taken as it is)."""
        if image.ndim == 2:
            return image
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        width = min(160, gray.shape[1])
        height = max(1, round(gray.shape[0] * width / gray.shape[1]))
        return cv2.resize(gray, (width, height), interpolation=cv2.INTER_AREA)

    def _reconnect(self) -> bool:
        now = self.clock()
        if now < self._next_try or self._hopeless is not None:
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
        reason = message_of(exc) if isinstance(exc, CameraError) else \
            Message("failed ({error})", error=str(exc))
        if not isinstance(exc, _EXPECTED_FAULTS):
            self._log_bug(exc)
        self._status = Status(FAULT, Message("camera {source} {reason}; retrying",
                                             source=self.source, reason=reason))
        if self._connected:
            self._disconnect_quietly()
        self._next_try = self.clock() + self.retry_interval
        if self._reached:  # a device never reached is retried forever
            self._faults += 1
        if self.max_reopens is not None and self._faults > self.max_reopens:
            self._give_up(Message("camera {source} {reason} each time it is reopened: the app "
                                  "restarts to reach it again", source=self.source,
                                  reason=reason), f"{self._faults - 1} reopenings failed")

    def _give_up(self, why: Message, detail: str = "release overdue") -> None:
        self._hopeless = why
        self._status = Status(FAULT, why)
        self._next_try = math.inf
        log.warning("%s (%s)", why, detail)
        if self._connected:
            self._disconnect_quietly()

    def _log_bug(self, exc: Exception) -> None:
        """Log an unexpected exception with its traceback, once per distinct fault.

        A fault is its type and the line that raised it, so a retry every
        ``retry_interval`` (or a message with a changing number) logs nothing new.
        """
        key = (type(exc), *_raised_at(exc))
        if key in self._bugs_logged:
            return
        self._bugs_logged.add(key)
        log.error("camera %s: unexpected %s (a bug?); reporting a fault and retrying",
                  self.source, type(exc).__name__, exc_info=exc)

    def _disconnect_quietly(self) -> None:
        self._connected = False
        with contextlib.suppress(Exception):  # the device may already be gone
            self._disconnect()

    def _deliver(self, image: np.ndarray, timestamp: float) -> Frame:
        image = as_bgr(image)
        frame = Frame(image, float(timestamp), self._count)
        self._count += 1
        self._reached, self._faults = True, 0
        self._recent = (self._recent[1], self._motion_image(image))
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
    hardware.camera.base.CameraError: gives frames of shape (2, 3, 5), not a picture
    """
    image = np.asarray(image)
    if image.dtype != np.uint8:
        raise CameraError(Message("gives {dtype} frames, not uint8", dtype=str(image.dtype)))
    channels = image.shape[2] if image.ndim == 3 else 1
    if image.ndim not in (2, 3) or image.size == 0 or channels not in (1, 3, 4):
        raise CameraError(Message("gives frames of shape {shape}, not a picture",
                                  shape=str(image.shape)))
    if channels == 1:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if channels == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    return image


def _raised_at(exc: BaseException) -> tuple[str, int]:
    """The file and line where ``exc`` was raised (the innermost traceback entry)."""
    tb = exc.__traceback__
    if tb is None:
        return "", 0
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code.co_filename, tb.tb_lineno


def _target(source: str) -> str:
    return source.partition(":")[2]
