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
``picamera2``) are read by a thread, see :class:`Live`. A device that only a new
process can reach again (the CSI camera, whose :class:`Recovery` says so) ends
up :attr:`Camera.hopeless`: the sentence to show before the app restarts.

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

import difflib
import importlib.util
import os
from collections.abc import Callable
from typing import Any

from hardware.camera.base import (
    IMAGE_SUFFIXES,
    Camera,
    CameraError,
    Clock,
    EndOfStream,
    Frame,
    Recovery,
    as_bgr,
)
from hardware.camera.live import Live, PiCamera, UsbCamera
from hardware.camera.recordings import FileCamera, FolderCamera, Recording
from hardware.status import FAULT as FAULT
from hardware.status import READY as READY
from hardware.status import WAITING as WAITING
from hardware.status import Status as Status

ENV_VAR = "TABLETOP_CAMERA"

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
    ValueError: unknown camera source 'webcam:1'; known sources: dir:, file:, picamera2, ...
    """
    source = source or default_source()
    check_source(source)
    return SOURCES[source.partition(":")[0]](source, **options)


def check_source(source: str) -> None:
    """ValueError, naming the known kinds and the likeliest one, for a source no backend takes.

    >>> check_source("usbb:0")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: unknown camera source 'usbb:0' (did you mean usb:?); known sources: dir:, ...
    >>> check_source("usb:x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: camera source 'usb:x': usb: takes a device number or path (usb:0, ...), not 'x'
    """
    prefix, _, target = source.partition(":")
    if prefix not in SOURCES:
        def shown(kind: str) -> str:
            return kind if kind == "picamera2" else f"{kind}:"

        close = difflib.get_close_matches(prefix, list(SOURCES), n=1, cutoff=0.6)
        hint = f" (did you mean {shown(close[0])}?)" if close else ""
        known = ", ".join(shown(kind) for kind in sorted(SOURCES))
        raise ValueError(f"unknown camera source {source!r}{hint}; known sources: {known} "
                         "(e.g. usb:0, file:game.mp4, dir:frames/)")
    # Any other usb: target would be handed to OpenCV as a file name and retried for ever.
    if prefix == "usb" and target and not target.isdigit() and "/" not in target:
        raise ValueError(f"camera source {source!r}: usb: takes a device number or path "
                         f"(usb:0, usb:/dev/video0, usb:/dev/v4l/by-id/...), not {target!r}")


__all__ = [
    "ENV_VAR",
    "IMAGE_SUFFIXES",
    "SOURCES",
    "Camera",
    "CameraError",
    "CameraFactory",
    "Clock",
    "EndOfStream",
    "FileCamera",
    "FolderCamera",
    "Frame",
    "Live",
    "PiCamera",
    "Recording",
    "Recovery",
    "UsbCamera",
    "as_bgr",
    "check_source",
    "default_source",
    "open_camera",
]
