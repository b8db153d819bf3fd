"""Camera faults that cannot heal in this process: a CSI camera lost for good is given up
on, so the app can restart to reach it; a USB camera is retried until it is plugged in.

Real threads run the grabbers, so a test waits for a thread to reach a point (an event,
polled by ``wait_for``); every timeout the camera judges is on an injected clock, so
what is decided, and when, is deterministic.
"""

from __future__ import annotations

import importlib.util
import logging
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from hardware import camera as cam
from hardware.camera import Recovery, open_camera
from hardware.status import FAULT, READY, Status

HERE = Path(__file__).parent
REFUSED = "camera picamera2 failed (Camera __init__ sequence did not complete.)"
RESTART = "the app restarts to reach it again"
HANGS = f"camera picamera2 hangs while closing: {RESTART}"


class FakeClock:
    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def wait_for(condition, timeout: float = 60.0):
    # A bound, so that a thread that never gets there fails the test instead of hanging it;
    # generous, because a thread of a loaded machine may wait seconds for a core.
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(0.002)
    raise AssertionError("timed out")


def timed(call) -> tuple[object, float]:
    started = time.monotonic()
    result = call()
    return result, time.monotonic() - started


@pytest.fixture
def fake(monkeypatch):
    spec = importlib.util.spec_from_file_location("fake_picamera2", HERE / "fake_picamera2.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setitem(sys.modules, "picamera2", module)
    module.gates = []  # events a test blocks the fake on: all set at the end
    yield module
    for gate in module.gates:
        gate.set()


def hang_stop(fake) -> threading.Event:
    gate = threading.Event()
    fake.gates.append(gate)
    fake.Picamera2.stop_gate = gate
    return gate


def pull_cable(fake, device, *, hang: bool = False) -> threading.Event:
    """Make ``device`` fail as a pulled cable does: an error, or a capture that never returns."""
    inside, gate = threading.Event(), threading.Event()
    fake.gates.append(gate)

    def capture():
        inside.set()
        if hang:
            gate.wait()
        raise RuntimeError("Camera frontend has timed out!")

    device.capture_request = capture
    return inside


def picamera(clock: FakeClock, **options):
    return open_camera("picamera2", size=(64, 48), lores_size=(16, 12), warmup_frames=1,
                       clock=clock, retry_interval=2, **options)


def lose(camera, fake) -> None:
    """Pull the cable of the device giving frames, and wait for the camera to see it."""
    pull_cable(fake, fake.instances[-1])
    wait_for(lambda: camera.read() is None and camera.status.state == FAULT)


def test_the_policy_is_data_per_backend():
    assert cam.PiCamera.recovery == Recovery(max_reopens=5, stuck_gives_up=True)
    assert cam.UsbCamera.recovery == Recovery(max_reopens=None, stuck_gives_up=False)
    assert cam.FileCamera.recovery == Recovery() and cam.FolderCamera.recovery == Recovery()
    assert cam.PiCamera("picamera2").max_reopens == 5
    assert cam.PiCamera("picamera2", max_reopens=None).max_reopens is None
    assert cam.UsbCamera("usb:0", max_reopens=2).max_reopens == 2


# -- a release that hangs ------------------------------------------------------------
def test_a_stop_that_never_returns_hangs_nothing_and_gives_up(fake):
    clock = FakeClock()
    camera = picamera(clock)
    assert wait_for(camera.read) is not None
    device = fake.instances[-1]
    hang_stop(fake)
    pull_cable(fake, device)  # the grab thread ends and lets go: stop() never returns
    wait_for(device.in_stop.is_set)
    camera.read()  # the frame decoded before the cable was pulled, if any
    frame, took = timed(camera.read)
    assert frame is None and took < 0.5 and camera.hopeless is None  # not yet overdue
    clock.now += 2.0  # release_timeout
    frame, took = timed(camera.read)
    assert frame is None and took < 1.0
    assert camera.hopeless == HANGS and camera.hopeless.template.endswith(RESTART)
    assert camera.status == Status(FAULT, HANGS)
    clock.now += 60
    assert camera.read() is None and len(fake.instances) == 1  # never reopened
    _, took = timed(camera.close)
    assert took < 0.5 and camera.status == Status(FAULT, HANGS) and not device.closed


def test_closing_a_camera_whose_stop_hangs_is_prompt_then_hopeless(fake):
    clock = FakeClock()
    camera = picamera(clock, release_timeout=1.0)
    assert wait_for(camera.read) is not None
    device = fake.instances[-1]
    hang_stop(fake)
    _, took = timed(camera.close)
    assert took < 1.0
    wait_for(device.in_stop.is_set)
    assert camera.hopeless is None
    clock.now += 1.0
    assert camera.hopeless == HANGS and camera.status == Status(FAULT, HANGS)
    camera.open()  # the app opening it again does not reach it either
    assert camera.read() is None and len(fake.instances) == 1


def test_a_start_that_fails_is_let_go_off_the_callers_thread(fake, monkeypatch):
    clock = FakeClock()
    camera = picamera(clock)
    assert wait_for(camera.read) is not None
    lose(camera, fake)
    monkeypatch.setattr(fake.Picamera2, "start", lambda self: 1 / 0)
    hang_stop(fake)
    clock.now += 2
    frame, took = timed(camera.read)  # opens, start() fails, stop() of that one hangs
    assert frame is None and took < 0.5 and len(fake.instances) == 2
    assert camera.status.message == "camera picamera2 failed (division by zero); retrying"
    wait_for(fake.instances[-1].in_stop.is_set)
    clock.now += 2
    assert camera.read() is None and camera.hopeless == HANGS


# -- reopenings refused --------------------------------------------------------------
def test_a_camera_refused_on_every_reopening_gives_up_after_max_reopens(fake, monkeypatch,
                                                                        caplog):
    monkeypatch.setattr(fake.Picamera2, "exclusive", True)  # the old one holds the pipeline
    clock = FakeClock()
    camera = picamera(clock, stall_timeout=3)
    assert wait_for(camera.read) is not None
    inside = pull_cable(fake, fake.instances[-1], hang=True)  # capture never returns
    inside.wait(5)
    camera.read()  # the frame decoded before the cable was pulled, if any
    clock.now += 3
    assert camera.read() is None
    assert camera.status.message == "camera picamera2 gives no frames; retrying"
    for tries in range(1, 5):
        clock.now += 2
        assert camera.read() is None and len(fake.refused) == tries
        assert camera.status == Status(FAULT, f"{REFUSED}; retrying")
        assert camera.hopeless is None
    clock.now += 2
    assert camera.read() is None and len(fake.refused) == 5
    hopeless = f"{REFUSED} each time it is reopened: {RESTART}"
    assert camera.hopeless == hopeless and camera.status == Status(FAULT, hopeless)
    assert camera.hopeless.template == \
        "camera {source} {reason} each time it is reopened: the app restarts to reach it again"
    clock.now += 60
    assert camera.read() is None and len(fake.refused) == 5  # no more tries
    assert not [r for r in caplog.records if r.exc_info]  # a known fault, not a bug
    assert len(fake.instances) == 1


def test_a_frame_between_failures_resets_the_count(fake, monkeypatch):
    clock = FakeClock()
    camera = picamera(clock, max_reopens=3)
    assert wait_for(camera.read) is not None
    lose(camera, fake)
    monkeypatch.setattr(fake.Picamera2, "refuse", True)
    for _ in range(2):
        clock.now += 2
        assert camera.read() is None and camera.status.state == FAULT
    assert len(fake.refused) == 2 and camera.hopeless is None  # one reopening to spare
    monkeypatch.setattr(fake.Picamera2, "refuse", False)
    clock.now += 2
    assert wait_for(camera.read) is not None and camera.status.state == READY
    lose(camera, fake)
    monkeypatch.setattr(fake.Picamera2, "refuse", True)
    for _ in range(2):
        clock.now += 2
        assert camera.read() is None
    assert len(fake.refused) == 4 and camera.hopeless is None  # counted afresh
    clock.now += 2
    assert camera.read() is None
    assert camera.hopeless == f"{REFUSED} each time it is reopened: {RESTART}"


def test_a_camera_never_reached_is_retried_forever(fake, monkeypatch, caplog):
    """No camera fitted, or another program holds it: restarting the app would not help."""
    monkeypatch.setattr(fake.Picamera2, "refuse", True)
    clock = FakeClock()
    camera = picamera(clock, max_reopens=1)
    for _ in range(20):
        assert camera.read() is None and camera.hopeless is None
        clock.now += 2
    assert len(fake.refused) == 20
    assert camera.status == Status(FAULT, f"{REFUSED}; retrying")
    assert not [r for r in caplog.records if r.exc_info]


# -- usb: hot-pluggable --------------------------------------------------------------
class Capture:
    """A ``cv2.VideoCapture`` stand-in: ``frames`` frames, then unplugged (or never opened).

    ``release()`` blocks until ``release_gate`` is set, when one is given.
    """

    def __init__(self, frames: int = 0, opened: bool = True,
                 release_gate: threading.Event | None = None) -> None:
        self.frames, self.opened, self.release_gate = frames, opened, release_gate
        self.count = 0
        self.in_release = threading.Event()

    def isOpened(self) -> bool:
        return self.opened

    def set(self, prop: int, value: float) -> bool:
        return True

    def grab(self) -> bool:
        time.sleep(0.002)
        self.count += 1
        return self.count <= self.frames

    def retrieve(self):
        return True, np.full((8, 8, 3), 50 + self.count % 150, np.uint8)

    def release(self) -> None:
        self.in_release.set()
        if self.release_gate is not None:
            self.release_gate.wait()


def test_an_unplugged_usb_camera_keeps_retrying_and_is_found_again():
    clock = FakeClock()
    captures = [Capture(frames=3)] + [Capture(opened=False) for _ in range(50)] + \
        [Capture(frames=10**6)]
    opened = iter(captures)
    camera = open_camera("usb:0", clock=clock, retry_interval=2,
                         capture_factory=lambda target: next(opened))
    assert wait_for(camera.read) is not None
    wait_for(lambda: camera.read() is None and camera.status.state == FAULT)
    assert camera.status.message == "camera usb:0 unplugged; retrying"
    for _ in range(50):
        clock.now += 2
        assert camera.read() is None and camera.hopeless is None
        assert camera.status == Status(FAULT, "camera usb:0 cannot be opened (unplugged?); "
                                              "retrying")
    clock.now += 2
    assert wait_for(camera.read) is not None and camera.status.state == READY
    camera.close()


def test_a_usb_release_that_hangs_is_not_hopeless():
    clock, gate = FakeClock(), threading.Event()
    first, second = Capture(frames=3, release_gate=gate), Capture(frames=10**6)
    opened = iter([first, second])
    camera = open_camera("usb:0", clock=clock, retry_interval=2, stall_timeout=3,
                         capture_factory=lambda target: next(opened))
    try:
        assert wait_for(camera.read) is not None
        wait_for(first.in_release.is_set)  # unplugged: the thread lets go, and hangs there
        camera.read()  # the frame decoded before the unplug, if any
        clock.now += 3  # past release_timeout too
        assert camera.read() is None and camera.hopeless is None
        assert camera.status == Status(FAULT, "camera usb:0 gives no frames; retrying")
        clock.now += 2
        assert wait_for(camera.read) is not None and camera.hopeless is None
        assert camera.status.state == READY
        camera.close()
    finally:
        gate.set()


def test_a_hopeless_camera_is_logged_once_with_its_count(fake, monkeypatch, caplog):
    caplog.set_level(logging.WARNING, logger="hardware.camera")
    clock = FakeClock()
    camera = picamera(clock, max_reopens=1)
    assert wait_for(camera.read) is not None
    lose(camera, fake)
    monkeypatch.setattr(fake.Picamera2, "refuse", True)
    for _ in range(4):
        clock.now += 2
        camera.read()
    assert len(fake.refused) == 1
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING] == \
        [f"{camera.hopeless} (1 reopenings failed)"]
