"""Issue 19: a USB camera that is not there is retried in silence (OpenCV's warning came at
every reopening, every 2 s), and a camera lost and found again is said once each way."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time


from hardware.camera import FAULT, READY, open_camera
from test_camera_faults import Capture   # a cv2.VideoCapture stand-in, unplugged after N frames

ABSENT = """
from hardware.camera import open_camera
camera = open_camera("usb:57", retry_interval=0)
camera.open()
for _ in range(3):            # an opening and three reopenings
    camera.read()
print(camera.status.message)
"""


def absent_camera(**env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("OPENCV_", "TABLETOP_"))}
    return subprocess.run([sys.executable, "-c", ABSENT], capture_output=True, text=True,
                          timeout=120, env={**clean, **env})


def test_an_absent_camera_is_retried_without_opencv_s_warnings():
    done = absent_camera()
    assert done.returncode == 0, done.stderr
    assert done.stdout == "camera usb:57 cannot be opened (unplugged?); retrying\n"
    assert done.stderr == ""


def test_opencv_s_own_log_level_is_obeyed_when_set():
    done = absent_camera(OPENCV_LOG_LEVEL="WARNING")
    assert done.stderr.count("can't open camera by index") == 4, done.stderr


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def until(condition, timeout: float = 60.0):
    # Polls the grab thread. A bound, so that a camera that never gets there fails the test
    # instead of hanging it; generous, because a loaded machine's thread may wait seconds.
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = condition()
        if got:
            return got
        time.sleep(0.001)
    raise AssertionError("the camera never got there")


def test_a_camera_lost_then_back_is_said_once_each_way_not_at_every_retry(caplog):
    clock = Clock()
    plan = iter([Capture(frames=2), *(Capture(0, opened=False) for _ in range(4)),
                 Capture(frames=10 ** 6)])
    camera = open_camera("usb:0", clock=clock, retry_interval=2,
                         capture_factory=lambda target: next(plan))
    caplog.set_level(logging.INFO, logger="hardware.camera")
    with camera:
        until(camera.read)
        until(lambda: camera.read() is None and camera.status.state == FAULT)
        for _ in range(4):                  # four reopenings of the unplugged camera fail
            clock.now += 2
            camera.read()
            assert camera.status.state == FAULT
        clock.now += 2
        until(camera.read)                  # plugged in again
        assert camera.status.state == READY
    said = [record.getMessage() for record in caplog.records]
    assert said == ["camera usb:0 unplugged; retrying every 2 s until it is back",
                    "camera usb:0 is back: the board is read again"]
