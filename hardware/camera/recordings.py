"""Recorded backends of :mod:`hardware.camera`: ``file:`` videos and ``dir:`` image folders."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from hardware.camera.base import (
    IMAGE_SUFFIXES,
    Camera,
    CameraError,
    EndOfStream,
    _target,
)
from tabletop.messages import Message


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
            raise CameraError(Message("cannot be opened (no such file {path})", path=str(self.path)))
        cap = cv2.VideoCapture(str(self.path))
        if not cap.isOpened():
            cap.release()
            raise CameraError(Message("cannot be opened (unreadable video {path})",
                                      path=str(self.path)))
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
            raise CameraError(Message("cannot be opened (no such folder {path})",
                                      path=str(self.path)))
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
