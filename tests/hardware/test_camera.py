"""Camera sources against real OpenCV files, a fake picamera2 and fake captures."""

from __future__ import annotations

import importlib.util
import logging
import sys
import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware import camera as cam
from hardware.camera import Frame, open_camera
from hardware.status import FAULT, READY, WAITING

HERE = Path(__file__).parent


def load_fake_picamera2():
    spec = importlib.util.spec_from_file_location("fake_picamera2", HERE / "fake_picamera2.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class FakeClock:
    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def level(i: int) -> int:
    return 30 + 20 * i


def decode(frame: Frame) -> int:
    return round((float(frame.image.mean()) - 30) / 20)


@pytest.fixture
def video(tmp_path: Path) -> Path:
    path = tmp_path / "game.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10, (64, 48))
    assert writer.isOpened()
    for i in range(10):
        writer.write(np.full((48, 64, 3), level(i), np.uint8))
    writer.release()
    return path


def drain(camera, limit: int = 100) -> list[Frame]:
    frames = []
    for _ in range(limit):
        frame = camera.read()
        if frame is None:
            break
        frames.append(frame)
    return frames


# -- file: -------------------------------------------------------------------
def test_file_reads_every_frame_in_order_then_end_of_file(video):
    with open_camera(f"file:{video}") as camera:
        frames = drain(camera)
        assert [decode(f) for f in frames] == list(range(10))
        assert [f.index for f in frames] == list(range(10))
        assert [f.timestamp for f in frames] == pytest.approx([i / 10 for i in range(10)])
        assert frames[0].image.dtype == np.uint8 and frames[0].image.shape == (48, 64, 3)
        assert camera.read() is None
        assert camera.status.state == WAITING and "end of file" in camera.status.message
        assert camera.ended


def test_file_fps_option_sets_the_timebase(video):
    with open_camera(f"file:{video}", fps=None) as camera:
        assert camera.read().timestamp == 0.0
    clock = FakeClock()
    with cam.FileCamera(f"file:{video}", fps=4, clock=clock) as camera:
        clock.now += 0.5  # pacing starts at the first read
        assert camera.read().timestamp == 0.0
        clock.now += 0.25
        frame = camera.read()
        assert (decode(frame), frame.timestamp) == (1, 0.25)


def test_file_pacing_returns_only_the_latest_due_frame(video):
    clock = FakeClock()
    with open_camera(f"file:{video}", fps=10, clock=clock) as camera:
        first = camera.read()
        assert decode(first) == 0 and first.index == 0
        assert camera.read() is None  # frame 1 is not due yet
        clock.now += 0.35  # frames 1, 2, 3 are due: only 3 is returned
        late = camera.read()
        assert (decode(late), late.index) == (3, 1)
        assert late.timestamp == pytest.approx(0.3)
        assert camera.read() is None
        clock.now += 0.1
        assert decode(camera.read()) == 4
        clock.now += 10
        assert camera.read() is None
        assert "end of file" in camera.status.message


def test_missing_file_is_a_fault_not_an_exception(tmp_path):
    clock = FakeClock()
    camera = open_camera(f"file:{tmp_path / 'missing.avi'}", clock=clock, retry_interval=5)
    camera.open()
    assert camera.read() is None
    assert camera.status.state == FAULT
    assert "missing.avi" in camera.status.message and "retrying" in camera.status.message
    camera.close()


def test_missing_file_is_retried_and_found(tmp_path, video):
    clock = FakeClock()
    target = tmp_path / "later.avi"
    camera = open_camera(f"file:{target}", clock=clock, retry_interval=5)
    assert camera.read() is None and camera.status.state == FAULT
    video.rename(target)
    clock.now += 1
    assert camera.read() is None  # too soon to retry
    clock.now += 5
    assert decode(camera.read()) == 0 and camera.status.state == READY
    camera.close()


# -- dir: --------------------------------------------------------------------
@pytest.fixture
def folder(tmp_path: Path) -> Path:
    frames = tmp_path / "frames"
    frames.mkdir()
    for i in range(5):
        assert cv2.imwrite(str(frames / f"{i:04d}.png"), np.full((12, 16, 3), level(i), np.uint8))
    (frames / "0002.png").write_bytes(b"not a png")  # corrupt
    (frames / "notes.txt").write_text("ignored")
    return frames


def test_dir_reads_sorted_images_and_skips_a_corrupt_one(folder):
    with open_camera(f"dir:{folder}") as camera:
        statuses, frames = [], []
        for frame in iter(camera.read, None):
            frames.append(frame)
            statuses.append(camera.status)
        assert [decode(f) for f in frames] == [0, 1, 3, 4]
        assert [f.index for f in frames] == [0, 1, 2, 3]
        assert [f.timestamp for f in frames] == pytest.approx([0.0, 0.1, 0.3, 0.4])
        assert statuses[2].state == WAITING and "0002.png" in statuses[2].message
        assert statuses[3].state == READY
        assert "end of folder" in camera.status.message and camera.ended


def test_dir_pacing_skips_late_images(folder):
    clock = FakeClock()
    with open_camera(f"dir:{folder}", fps=2, clock=clock) as camera:
        assert decode(camera.read()) == 0
        clock.now += 1.6  # images 1-3 are due; 3 is the latest
        frame = camera.read()
        assert (decode(frame), frame.index, frame.timestamp) == (3, 1, 1.5)
        assert camera.read() is None


def test_missing_folder_is_a_fault(tmp_path):
    with open_camera(f"dir:{tmp_path / 'nowhere'}") as camera:
        assert camera.read() is None
        assert camera.status.state == FAULT and "no such folder" in camera.status.message


# -- registry ------------------------------------------------------------------
def test_unknown_source_lists_the_known_ones():
    with pytest.raises(ValueError, match="unknown camera source 'webcam:1'.*dir:.*file:.*usb:"):
        open_camera("webcam:1")


def test_default_source_comes_from_the_environment(monkeypatch, folder):
    monkeypatch.setenv("TABLETOP_CAMERA", f"dir:{folder}")
    camera = open_camera()
    assert isinstance(camera, cam.FolderCamera) and camera.source == f"dir:{folder}"


def test_a_new_source_can_be_registered(monkeypatch):
    class Still(cam.Camera):
        def _fetch(self):
            return np.full((4, 4, 3), 200, np.uint8), self.clock()

    monkeypatch.setitem(cam.SOURCES, "sim", Still)
    with open_camera("sim:table", clock=FakeClock()) as camera:
        assert camera.read().image.mean() == 200 and camera.status.state == READY


# -- picamera2 ---------------------------------------------------------------
@pytest.fixture
def fake_picamera2(monkeypatch):
    fake = load_fake_picamera2()
    monkeypatch.setitem(sys.modules, "picamera2", fake)
    return fake


def frame_number(frame: Frame) -> int:
    return int(frame.image[-1, 0, 0])  # the fake's bottom row


def test_picamera2_configures_fixes_exposure_and_returns_bgr(fake_picamera2):
    with open_camera("picamera2", size=(64, 48), lores_size=(16, 12), warmup_frames=3,
                     clock=FakeClock()) as camera:
        frame = wait_for(camera.read)
        device = fake_picamera2.instances[-1]
        names = names_of(device)
        assert names[:3] == ["create_video_configuration", "configure", "start"]
        assert device.calls[0][1] == {"main": {"size": (64, 48), "format": "RGB888"},
                                      "lores": {"size": (16, 12), "format": "YUV420"}}
        assert names[3:8] == ["capture_metadata"] * 3 + ["set_controls", "capture_request"]
        assert device.calls[6][1] == {"AeEnable": False, "AwbEnable": False,
                                      "ExposureTime": 12000, "AnalogueGain": 2.0,
                                      "ColourGains": (1.9, 1.5)}
        assert set(names[7:]) == {"capture_request"}  # no other capture call
        assert frame.image.shape == (48, 64, 3) and frame.image.dtype == np.uint8
        square_at = 2 * frame_number(frame) % (64 - fake_picamera2.SQUARE)
        assert tuple(frame.image[0, square_at]) == fake_picamera2.RED_BGR  # no channel swap
        assert camera.status.state == READY and camera.motion() is None
    assert names_of(device)[-2:] == ["stop", "close"]


def _exposures(device) -> list[int]:
    return [controls["ExposureTime"] for name, controls in device.calls
            if name == "set_controls" and "ExposureTime" in controls]


def test_picamera2_shortens_a_fixed_exposure_that_burns_a_light_board_out(fake_picamera2,
                                                                           monkeypatch):
    # Metered, the board would be 400 of 255: clipped white, its print and a light tile
    # on it gone. 0.7 of the time is still clipped (280); 0.49 of it is not (196).
    monkeypatch.setattr(fake_picamera2.Picamera2, "paper", 400)
    with open_camera("picamera2", size=(64, 48), lores_size=(16, 12), warmup_frames=3,
                     clock=FakeClock()) as camera:
        frame = wait_for(camera.read)
        device = fake_picamera2.instances[-1]
        assert _exposures(device) == [12000, 8400, 5880]
        assert int(frame.image[24, 32, 0]) == 196          # the board, no longer clipped
        assert float((frame.image.max(axis=2) >= 250).mean()) < 0.05
        assert camera.status.state == READY


def test_picamera2_keeps_the_metered_exposure_of_a_picture_not_burnt_out(fake_picamera2,
                                                                         monkeypatch):
    monkeypatch.setattr(fake_picamera2.Picamera2, "paper", 240)
    with open_camera("picamera2", size=(64, 48), lores_size=(16, 12), warmup_frames=3,
                     clock=FakeClock()) as camera:
        frame = wait_for(camera.read)
        assert _exposures(fake_picamera2.instances[-1]) == [12000]
        assert int(frame.image[24, 32, 0]) == 240


def test_picamera2_shortens_the_exposure_by_two_and_a_half_stops_at_most(fake_picamera2,
                                                                         monkeypatch):
    # A picture burnt out whatever the exposure (a lamp into the lens) is taken as it is.
    monkeypatch.setattr(fake_picamera2.Picamera2, "paper", 5000)
    with open_camera("picamera2", size=(64, 48), lores_size=(16, 12), warmup_frames=1,
                     clock=FakeClock()) as camera:
        wait_for(camera.read)
        assert _exposures(fake_picamera2.instances[-1]) == [12000, 8400, 5880, 4116, 2881, 2016]
        assert camera.status.state == READY


def test_picamera2_main_and_lores_come_from_one_request(fake_picamera2):
    with open_camera("picamera2", size=(64, 48), lores_size=(16, 12), warmup_frames=1,
                     clock=FakeClock()) as camera:
        numbers = []
        for _ in range(4):
            frame = wait_for(camera.read)
            numbers.append(frame_number(frame))
            lores_y = float(camera._small_gray(camera._recent[1]).mean())  # its motion image
            assert lores_y == (100 + 3 * numbers[-1]) % 256
        assert numbers == sorted(set(numbers))
        assert camera.motion() == pytest.approx(3.0 * (numbers[-1] - numbers[-2]))
        device = fake_picamera2.instances[-1]
    # (the frames the table was given; the one frame looked at before, for its exposure, is
    # the main image alone)
    decoded = [r for r in device.requests if "lores" in r.made]
    assert [r.number for r in decoded][:4] == numbers
    assert all(r.made == ["main", "lores"] for r in decoded)
    assert all(r.released for r in device.requests)


def names_of(device) -> list[str]:
    return [name for name, _ in device.calls]


def test_picamera2_missing_is_a_fault(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import raises ImportError
    with open_camera("picamera2") as camera:
        assert camera.read() is None
        assert camera.status.state == FAULT
        assert "picamera2 is not installed (it needs a Raspberry Pi with libcamera)" \
            in camera.status.message


def test_picamera2_capture_failure_reopens(fake_picamera2, monkeypatch):
    clock = FakeClock()
    camera = open_camera("picamera2", size=(64, 48), lores_size=(16, 12),
                         warmup_frames=1, clock=clock, retry_interval=1)
    assert wait_for(camera.read) is not None
    broken = fake_picamera2.instances[-1]
    monkeypatch.setattr(broken, "capture_request", lambda: 1 / 0)
    wait_for(lambda: camera.read() is None and camera.status.state == FAULT)
    assert camera.status.message == "camera picamera2 failed (division by zero); retrying"
    assert names_of(broken)[-2:] == ["stop", "close"]
    clock.now += 1
    assert wait_for(camera.read) is not None and camera.status.state == READY
    assert len(fake_picamera2.instances) == 2
    camera.close()


def test_picamera2_hung_capture_request_is_a_stall(fake_picamera2, monkeypatch):
    clock = FakeClock()
    gate, inside = threading.Event(), threading.Event()
    with open_camera("picamera2", size=(64, 48), lores_size=(16, 12), warmup_frames=1,
                     clock=clock, stall_timeout=2, retry_interval=1) as camera:
        assert wait_for(camera.read) is not None
        hung = fake_picamera2.instances[-1]
        working = hung.capture_request

        def hang():
            inside.set()
            gate.wait(10)
            return working()

        monkeypatch.setattr(hung, "capture_request", hang)
        inside.wait(5)
        camera.read()  # the frame decoded before the hang, if any
        clock.now += 2
        assert camera.read() is None
        assert camera.status.message == "camera picamera2 gives no frames; retrying"
        clock.now += 1
        assert wait_for(camera.read) is not None and len(fake_picamera2.instances) == 2
        assert not hung.closed  # still inside capture_request: left to its thread
        gate.set()
        wait_for(lambda: hung.closed)
        assert all(r.released for r in hung.requests)


# -- usb: ----------------------------------------------------------------------
def test_usb_nonexistent_device_is_a_fault_retried_on_a_timer():
    clock = FakeClock()
    opened = []

    def factory(target):
        opened.append(target)
        return cv2.VideoCapture(target)

    camera = open_camera("usb:/nonexistent", clock=clock, retry_interval=3,
                         capture_factory=factory)
    with camera:
        assert camera.read() is None
        assert camera.status.state == FAULT and "usb:/nonexistent" in camera.status.message
        assert "retrying" in camera.status.message
        clock.now += 1
        assert camera.read() is None and len(opened) == 1
        clock.now += 2
        assert camera.read() is None and len(opened) == 2
    assert opened == ["/nonexistent", "/nonexistent"]


def test_usb_default_factory_reads_a_real_video(tmp_path):
    path = tmp_path / "camera.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 30, (64, 48))
    assert writer.isOpened()
    for i in range(2000):
        writer.write(np.full((48, 64, 3), level(i % 10), np.uint8))
    writer.release()
    # retry_interval=0: at the end of the file the capture is reopened from the start
    with open_camera(f"usb:{path}", retry_interval=0, frozen_frames=None) as camera:
        assert camera.capture_factory is cv2.VideoCapture and camera.target == str(path)
        frames = [wait_for(camera.read, poll=0) for _ in range(3)]
    assert [f.index for f in frames] == [0, 1, 2]
    for frame in frames:
        assert frame.image.shape == (48, 64, 3) and frame.image.dtype == np.uint8
        assert 0 <= decode(frame) <= 9 and abs(decode(frame) * 20 + 30
                                               - frame.image.mean()) < 3


class FakeCapture:
    """Delivers ``frames`` distinct images, then fails as if unplugged.

    ``stall_after`` frames, ``grab()`` blocks until :attr:`gate` is set, like
    V4L2 after an unplug; ``held=True`` holds the first grab until :attr:`go`
    is set, so a test can ask for a frame before any is grabbed. Calls that would crash real OpenCV (anything after
    ``release()``, or ``release()`` while ``grab``/``retrieve`` runs) are
    recorded in :attr:`misuse`. There is no ``read()``.
    """

    def __init__(self, frames: int | None, opened: bool = True,
                 stall_after: int | None = None, held: bool = False) -> None:
        self.frames, self.opened, self.stall_after = frames, opened, stall_after
        self.count = self.retrieved = 0
        self.props: dict[int, float] = {}
        self.released, self.stalled, self.gate, self.go = (threading.Event() for _ in range(4))
        if not held:
            self.go.set()
        self.busy = False
        self.misuse: list[str] = []

    def isOpened(self) -> bool:
        return self.opened

    def set(self, prop: int, value: float) -> bool:
        self.props[prop] = value
        return True

    def grab(self) -> bool:
        self._enter("grab")
        try:
            self.go.wait(10)
            time.sleep(0.002)
            if self.stall_after is not None and self.count >= self.stall_after:
                self.stalled.set()
                self.gate.wait(10)
                return False
            if self.frames is not None and self.count >= self.frames:
                return False
            self.count += 1
            return True
        finally:
            self.busy = False

    def retrieve(self):
        self._enter("retrieve")
        self.retrieved += 1
        self.busy = False
        return True, np.full((8, 8, 3), 50 + self.count % 150, np.uint8)

    def release(self) -> None:
        if self.busy:
            self.misuse.append("release during a call")
        self.released.set()

    def _enter(self, name: str) -> None:
        if self.released.is_set():
            self.misuse.append(f"{name} after release")
        self.busy = True


def wait_for(condition, timeout: float = 60.0, poll: float = 0.005):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(poll)
    raise AssertionError("timed out")


def test_usb_sets_size_and_buffer_and_returns_only_the_latest():
    capture = FakeCapture(frames=None)
    with open_camera("usb:0", size=(640, 480), capture_factory=lambda t: capture) as camera:
        assert capture.props == {cv2.CAP_PROP_FRAME_WIDTH: 640, cv2.CAP_PROP_FRAME_HEIGHT: 480,
                                 cv2.CAP_PROP_BUFFERSIZE: 1}
        assert camera.target == 0
        wait_for(lambda: capture.count >= 5)
        frame = wait_for(camera.read)
        assert frame.index == 0 and frame.image.mean() > 50 + 3  # not the first grabbed
        thread = camera._grabber.thread
        assert thread.daemon and thread.is_alive()
    assert not thread.is_alive() and capture.released.is_set() and not capture.misuse


def test_usb_grabs_every_frame_but_decodes_only_those_asked_for():
    capture = FakeCapture(frames=None)
    with open_camera("usb:0", capture_factory=lambda t: capture) as camera:
        frames = [wait_for(camera.read) for _ in range(3)]
        wait_for(lambda: capture.count >= 30)  # nobody reads: grabbing goes on
        # the three frames read, and the next one the last read() asked for
        assert capture.retrieved == 4
        assert wait_for(camera.read).index == 3
    assert [f.index for f in frames] == [0, 1, 2]
    assert not capture.misuse


def test_usb_unplug_then_replug_goes_fault_then_ready():
    clock = FakeClock()
    plan = [FakeCapture(frames=3, held=True), FakeCapture(frames=None, opened=False),
            FakeCapture(frames=None)]
    captures = iter(plan)
    camera = open_camera("usb:/dev/v4l/by-id/cam", clock=clock, retry_interval=2,
                         capture_factory=lambda target: next(captures))
    with camera:
        assert camera.target == "/dev/v4l/by-id/cam"
        camera.read()  # ask for a frame before the three are grabbed
        plan[0].go.set()
        assert wait_for(camera.read).index == 0
        wait_for(lambda: camera.read() is None and camera.status.state == FAULT)
        assert camera.status.message == "camera usb:/dev/v4l/by-id/cam unplugged; retrying"
        assert plan[0].released.is_set()
        clock.now += 2
        assert camera.read() is None and camera.status.state == FAULT  # still unplugged
        clock.now += 2
        frame = wait_for(camera.read)
        assert camera.status.state == READY and frame.index >= 1


def test_usb_stalled_camera_goes_waiting_then_fault_and_reconnects():
    clock = FakeClock()
    plan = [FakeCapture(frames=None, stall_after=2, held=True), FakeCapture(frames=None)]
    captures = iter(plan)
    camera = open_camera("usb:0", clock=clock, retry_interval=1, stall_timeout=3,
                         capture_factory=lambda target: next(captures))
    with camera:
        camera.read()  # ask for a frame before the two are grabbed
        plan[0].go.set()
        assert wait_for(camera.read) is not None and camera.status.state == READY
        plan[0].stalled.wait(5)  # the thread is now stuck inside grab()
        camera.read()  # the frame decoded before the stall, if any
        clock.now += 1
        assert camera.read() is None and camera.status.state == READY
        clock.now += 0.6
        assert camera.read() is None
        assert camera.status == cam.Status(WAITING, "camera usb:0 has given no frame for 1.6 s")
        clock.now += 1.4
        assert camera.read() is None
        assert camera.status == cam.Status(FAULT, "camera usb:0 gives no frames; retrying")
        assert not plan[0].released.is_set()  # not while grab() is still running
        clock.now += 1
        assert wait_for(camera.read) is not None and camera.status.state == READY
        plan[0].gate.set()  # the driver gives up at last: the old thread releases
        wait_for(plan[0].released.is_set)
    assert not plan[0].misuse and not plan[1].misuse


def test_usb_close_of_a_stalled_camera_is_prompt_and_leaves_release_to_the_thread():
    capture = FakeCapture(frames=None, stall_after=0)
    camera = open_camera("usb:0", capture_factory=lambda target: capture)
    camera.open()
    capture.stalled.wait(5)
    thread = camera._grabber.thread
    started = time.monotonic()
    camera.close()
    assert time.monotonic() - started < 0.5
    assert not capture.released.is_set()  # grab() is still running
    capture.gate.set()
    thread.join(5)
    assert not thread.is_alive() and capture.released.is_set() and not capture.misuse


# -- black and frozen frames ---------------------------------------------------
def test_black_frames_are_returned_and_reported(tmp_path):
    frames = tmp_path / "dark"
    frames.mkdir()
    cv2.imwrite(str(frames / "a.png"), np.full((8, 8, 3), 3, np.uint8))
    cv2.imwrite(str(frames / "b.png"), np.full((8, 8, 3), 90, np.uint8))
    with open_camera(f"dir:{frames}") as camera:
        assert camera.read() is not None
        assert camera.status.state == WAITING and "black" in camera.status.message
        assert camera.read() is not None and camera.status.state == READY


def test_frozen_frames_are_returned_and_reported(tmp_path):
    frames = tmp_path / "still"
    frames.mkdir()
    for i in range(5):
        cv2.imwrite(str(frames / f"{i}.png"), np.full((8, 8, 3), 90, np.uint8))
    cv2.imwrite(str(frames / "5.png"), np.full((8, 8, 3), 91, np.uint8))
    with open_camera(f"dir:{frames}", frozen_frames=3) as camera:
        states = [camera.read() is not None and camera.status.state for _ in range(6)]
        assert states == [READY, READY, READY, WAITING, WAITING, READY]
    with open_camera(f"dir:{frames}") as camera:  # recordings do not check by default
        assert [camera.read() is not None and camera.status.state for _ in range(6)] \
            == [READY] * 6


def test_frozen_message(tmp_path, fake_picamera2, monkeypatch):
    monkeypatch.setattr(fake_picamera2.Picamera2, "still", True)
    with open_camera("picamera2", size=(16, 12), lores_size=(16, 12), warmup_frames=1,
                     clock=FakeClock()) as camera:
        for _ in range(11):
            assert wait_for(camera.read) is not None
        assert camera.status.state == WAITING and "frozen" in camera.status.message
        assert camera.motion() == 0.0


def test_read_never_raises_from_a_broken_backend():
    class Broken(cam.Camera):
        def _fetch(self):
            raise OSError("bus error")

    camera = Broken("sim:broken", clock=FakeClock())
    assert camera.read() is None
    assert camera.status == cam.Status(FAULT, "camera sim:broken failed (bus error); retrying")


@pytest.mark.parametrize("image", [np.full((6, 8), 90, np.uint8),
                                   np.full((6, 8, 1), 90, np.uint8),
                                   np.full((6, 8, 4), 90, np.uint8)],
                         ids=["grey", "grey-1-channel", "bgra"])
def test_grey_and_bgra_frames_become_bgr(image):
    class Odd(cam.Camera):
        def _fetch(self):
            return image, self.clock()

    with Odd("sim:odd", clock=FakeClock()) as camera:
        frame = camera.read()
        assert frame.image.shape == (6, 8, 3) and frame.image.dtype == np.uint8
        assert (frame.image == 90).all() and camera.status.state == READY
        camera.read()
        assert camera.motion() == 0.0


def test_usb_grey_frames_become_bgr():
    class GreyCapture(FakeCapture):
        def retrieve(self):
            ok, image = super().retrieve()
            return ok, image[:, :, 0]

    with open_camera("usb:0", capture_factory=lambda t: GreyCapture(None)) as camera:
        assert wait_for(camera.read).image.shape == (8, 8, 3)


@pytest.mark.parametrize("image", [np.zeros((6, 8, 5), np.uint8), np.zeros(8, np.uint8),
                                   np.zeros((0, 8, 3), np.uint8),
                                   np.zeros((6, 8, 3), np.float32)])
def test_unusable_frames_are_a_fault_not_an_exception(image):
    class Odd(cam.Camera):
        def _fetch(self):
            return image, self.clock()

    camera = Odd("sim:odd", clock=FakeClock())
    assert camera.read() is None and camera.status.state == FAULT
    assert camera.status.message.startswith("camera sim:odd gives ")


class Buggy(cam.Camera):
    """A backend with a bug in ``_fetch``: a TypeError on every read, after a good open."""

    connects = 0

    def _connect(self):
        self.connects += 1

    def _fetch(self):
        return None + self.connects  # the bug


def bug_records(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records
            if r.name == "hardware.camera.base" and r.exc_info is not None]


def test_a_bug_in_a_backend_is_logged_once_and_still_a_fault(caplog):
    caplog.set_level(logging.DEBUG, logger="hardware.camera")
    clock = FakeClock()
    camera = Buggy("sim:buggy", clock=clock, retry_interval=2.0)
    for _ in range(4):  # each read retries: reopens, fails again the same way
        assert camera.read() is None
        assert camera.status == cam.Status(FAULT, "camera sim:buggy failed (unsupported "
                                                  "operand type(s) for +: 'NoneType' and 'int')"
                                                  "; retrying")
        clock.now += 2.0
    assert camera.connects == 4  # kept retrying
    [record] = bug_records(caplog)
    assert record.levelno == logging.ERROR and "sim:buggy" in record.getMessage()
    assert record.exc_info[0] is TypeError
    assert "return None + self.connects" in caplog.text  # the traceback, down to the bug


def test_a_different_bug_is_logged_again(caplog):
    class Buggier(Buggy):
        def _connect(self):
            super()._connect()
            if self.connects == 3:
                raise KeyError("exposure")  # another bug, in another hook

    clock = FakeClock()
    camera = Buggier("sim:buggier", clock=clock)
    for _ in range(5):
        camera.read()
        clock.now += 2.0
    assert camera.status.state == FAULT
    assert [r.exc_info[0] for r in bug_records(caplog)] == [TypeError, KeyError]


@pytest.mark.parametrize("fault", [cam.CameraError("unplugged"), OSError("bus error")],
                         ids=["CameraError", "OSError"])
def test_an_expected_fault_is_a_banner_not_a_traceback(caplog, fault):
    class Flaky(cam.Camera):
        def _fetch(self):
            raise fault

    caplog.set_level(logging.DEBUG, logger="hardware.camera")
    camera = Flaky("sim:flaky", clock=FakeClock())
    assert camera.read() is None and camera.status.state == FAULT
    assert camera.status.message in ("camera sim:flaky unplugged; retrying",
                                     "camera sim:flaky failed (bus error); retrying")
    assert bug_records(caplog) == []
