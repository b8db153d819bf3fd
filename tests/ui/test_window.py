"""The window fills the screen it opens on: `tabletop run` itself, on an X server of each
supported size, full screen and borderless at the display's resolution (or a window of the
configured size), laid out for that size with the top bar, setup's Start and the
calibration's buttons on screen; the `[screen]` keys reach Kivy.

Each case starts its own Xvfb of the screen's size and runs the real command in a
subprocess: Kivy makes one window a process, with the settings of the moment it is made.
The 800x480 panel's run, with the Kivy configuration a Pi has, is read by two tests (its
sizes and its touch input): one start-up, not two of the same screen.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from ui.window import SIZES, scale_for

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
#: One worker runs this file (./scripts/test's --dist loadgroup): its Xvfb servers take the
#: first free display number, which two workers could pick at the same moment.
pytestmark = pytest.mark.xdist_group("xvfb-numbers")

#: Runs `tabletop run` as the command line does, with one hook: once the app has started
#: (its first second undrawn), it measures the window and the screens, drawing each,
#: prints them as a JSON line and stops the app.
PROBE = r"""
import json, os, sys
sys.path.insert(0, os.environ["PROBE_TESTS"])
from kivy.app import App

def measure(app):
    from kivy.base import EventLoop
    from kivy.config import Config
    from kivy.core.window import Window
    from kivy.metrics import Metrics
    from kivy.uix.button import Button
    from kivy.uix.textinput import TextInput

    def rect(widget):
        x, y = widget.to_window(widget.x, widget.y)
        return [round(x), round(y), round(widget.width), round(widget.height)]

    def targets(screen):
        return [[type(w).__name__, getattr(w, "text", ""), rect(w)] for w in screen.walk()
                if isinstance(w, (Button, TextInput)) and w.opacity > 0 and w.width > 1]

    report = {"first": app.root.current, "size": list(Window.size),
              "system_size": list(Window.system_size), "fullscreen": Window.fullscreen,
              "borderless": Window.borderless, "rotation": Window.rotation,
              "density": Metrics.density, "screensaver": Window.allow_screensaver,
              "providers": sorted(type(p).__name__ for p in EventLoop.input_providers),
              "inputs": dict(Config.items("input")),
              "driver": __import__("ui.window", fromlist=["video_driver"]).video_driver(),
              "config": {key: Config.get("graphics", key) for key in
                         ("fullscreen", "borderless", "rotation", "width", "height")},
              "screens": {}}
    from uihelpers import frames, outside_the_window     # (it sets Config: read before)
    shots = os.environ.get("PROBE_SHOTS")
    for name in ("calibration", "setup", "table"):
        if name == "table" and app.desk is None:
            app.setup.start()          # the players the setup shows, as Start seats them
        app.show(name)
        frames(3)
        screen = app.root.current_screen
        report["screens"][name] = {
            "outside": outside_the_window(screen),
            "targets": targets(screen),
            "ids": {key: rect(widget) for key, widget in screen.ids.items()
                    if hasattr(widget, "to_window")}}
        if shots:
            os.replace(Window.screenshot(os.path.join(shots, f"{name}.png")),
                       os.path.join(shots, f"{name}.png"))
    print("PROBE " + json.dumps(report), flush=True)

def on_start(app):
    from kivy.base import EventLoop
    from kivy.clock import Clock
    from ui.window import undrawn_frame

    # The app's first second is run frame by frame as ever (its clock, input, layout), but
    # not drawn: no one sees those frames, and under Xvfb each drawing was most of the
    # cost. The measure draws each screen it reads, and its screenshots are of those.
    def undrawn():
        undrawn_frame()
        return EventLoop.quit
    EventLoop.idle = undrawn

    def run(_):
        del EventLoop.idle            # drawn again from here: the measure's frames are
        try:
            measure(app)
        finally:
            app.stop()
    Clock.schedule_once(run, 1.0)

App.on_start = on_start
import frame_clock
frame_clock.install()          # the second before measuring is 60 frames, on any machine
from tabletop.cli import main
sys.exit(main(["run", *os.environ.get("PROBE_ARGS", "").split()]))
"""


class Screen:
    """An Xvfb of one size, for one command."""

    def __init__(self, width: int, height: int) -> None:
        if shutil.which("Xvfb") is None:
            pytest.skip("needs Xvfb")
        self.size = (width, height)
        self._start()

    def _start(self) -> None:
        # The server picks its own number and writes it once it accepts clients
        # (``-displayfd``): a number taken between a check and the start, or a client
        # connecting before the screen is set up, were races (a window on another server).
        width, height = self.size
        read, write = os.pipe()
        self.process = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write), "-screen", "0", f"{width}x{height}x24",
             "-nolisten", "tcp"], pass_fds=(write,), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as told:
            number = told.readline().strip()
        if not number:
            self.close()
            raise RuntimeError("Xvfb did not start")
        self.number = int(number)

    @property
    def display(self) -> str:
        return f":{self.number}"

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(10)

    def restart(self) -> bool:
        """A fresh X server of the same size; whether the last one was still running."""
        alive = self.process.poll() is None
        self.close()
        self._start()
        return alive

    def windows(self) -> list[tuple[int, int, int, int]]:
        """The tabletop windows on the screen: (width, height, x, y)."""
        listing = subprocess.run(["xwininfo", "-root", "-tree"], capture_output=True, text=True,
                                 env={**os.environ, "DISPLAY": self.display}, timeout=10)
        found = []
        for line in listing.stdout.splitlines():
            if '"tabletop"' in line:
                size, _, place = line.split(")")[-1].split()[0].partition("+")
                width, height = (int(n) for n in size.split("x"))
                x, y = (int(n) for n in place.replace("+-", "+ -").replace("+", " ").split())
                found.append((width, height, x, y))
        return found

    def capture(self) -> np.ndarray:
        """The whole screen as the panel shows it (BGR)."""
        import struct

        data = subprocess.run(["xwd", "-root", "-silent"], capture_output=True, timeout=20,
                              env={**os.environ, "DISPLAY": self.display}).stdout
        fields = struct.unpack(">25I", data[:100])
        header, width, height, line, colours = fields[0], fields[4], fields[5], fields[12], \
            fields[19]
        start = header + colours * 12
        pixels = np.frombuffer(data[start:start + line * height], np.uint8).reshape(height, line)
        return pixels[:, :width * 4].reshape(height, width, 4)[:, :, :3]     # BGRX, LSB first


def config_env(folder: Path, screen: str = "",
               camera: str = 'source = "sim:acquire,seed=1"') -> dict:
    """A new table's configuration in ``folder`` (the simulated camera, calibrated by itself)
    with ``screen`` lines under [screen]; the environment that runs it."""
    path = folder / "config.toml"
    path.write_text(f'[camera]\n{camera}\n[controls]\nkind = "mock"\n'
                    f'[screen]\nkeyboard = "system"\n{screen}\n'
                    f'[paths]\ndata = "{folder / "data"}"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KIVY_", "TABLETOP_"))}
    return {**env, "TABLETOP_CONFIG": str(path), "KIVY_NO_ARGS": "1",
            "KIVY_CLIPBOARD": "dummy", "KIVY_HOME": str(folder / "kivy"),
            "PYTHONPATH": str(ROOT), "PROBE_TESTS": str(HERE)}


@pytest.fixture
def table_config(tmp_path):
    """:func:`config_env` in the test's own folder."""
    def write(screen: str = "", camera: str = 'source = "sim:acquire,seed=1"') -> dict:
        return config_env(tmp_path, screen, camera)
    return write


def probe(screen: Screen, env: dict, shots: Path | None = None) -> dict:
    """Run `tabletop run` (hooked: see PROBE) on ``screen``; what it measured, and the
    windows the X server had while it ran."""
    env = {**env, "DISPLAY": screen.display}
    if shots is not None:
        shots.mkdir(parents=True, exist_ok=True)
        env["PROBE_SHOTS"] = str(shots)
    for attempt in range(2):
        done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                              env=env, timeout=120, cwd=ROOT)
        lines = [line for line in done.stdout.splitlines() if line.startswith("PROBE ")]
        if lines or attempt or "fatal IO error" not in done.stderr:
            break
        # The X server dropped the connection (Xlib's "fatal IO error 11", seen once in a
        # whole parallel suite, never alone): the app is tried once more on a fresh server.
        print(f"X server {screen.display} lost the app's connection "
              f"(server alive: {screen.restart()}); once more on {screen.display}")
        env["DISPLAY"] = screen.display
    assert lines, (done.returncode, done.stdout[-2000:], done.stderr[-3000:])
    return json.loads(lines[0][len("PROBE "):])


def assert_fits(report: dict, size: tuple[int, int]) -> None:
    """Every screen drawn within ``size``, its touch targets 48x48 px or more."""
    width, height = size
    for name, screen in report["screens"].items():
        assert screen["outside"] == [], (name, size, screen["outside"])
        for kind, label, (x, y, w, h) in screen["targets"]:
            assert w >= 48 and h >= 48, (name, size, kind, label, w, h)
            assert x >= -1 and y >= -1 and x + w <= width + 1 and y + h <= height + 1, \
                (name, label)
    table = report["screens"]["table"]["ids"]
    for key in ("banner", "history", "menu", "language"):
        x, y, w, h = table[key]
        shown = w > 0 and (h > 0 or key == "banner")    # an empty banner takes no height
        assert shown and x >= 0 and y >= 0 and x + w <= width + 1 and y + h <= height + 1, \
            (key, table[key], size)
    x, y, w, h = report["screens"]["setup"]["ids"]["start"]
    assert w >= 48 and h >= 48 and x + w <= width + 1 and y >= 0


@pytest.fixture(scope="module")
def pi_panel(tmp_path_factory) -> tuple[dict, Path]:
    """`tabletop run` on an 800x480 panel with the configuration Kivy writes on a Pi (see
    PI_KIVY_INPUT), as a new table's default configuration: what it measured and its
    screenshots. Read by the 800x480 case of the sizes and by the one-touch test: one Kivy
    start-up for both, which is what a Pi's first run is."""
    folder = tmp_path_factory.mktemp("pi-panel")
    env = config_env(folder)
    kivy_home = Path(env["KIVY_HOME"])
    kivy_home.mkdir(parents=True, exist_ok=True)
    (kivy_home / "config.ini").write_text(PI_KIVY_INPUT)
    screen = Screen(800, 480)
    try:
        return probe(screen, env, folder / "shots"), folder / "shots"
    finally:
        screen.close()


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_run_fills_each_supported_screen_full_screen_and_laid_out_for_it(size, table_config,
                                                                         tmp_path, request):
    if size == (800, 480):         # the Pi's panel, with the Pi's Kivy configuration
        report, shots = request.getfixturevalue("pi_panel")
    else:
        shots = tmp_path / "shots"
        screen = Screen(*size)
        try:
            report = probe(screen, table_config(), shots)
        finally:
            screen.close()
    assert report["size"] == list(size) and report["system_size"] == list(size)
    assert report["fullscreen"] == "auto" and report["borderless"] is True
    assert report["config"]["fullscreen"] == "auto" and report["config"]["borderless"] == "1"
    assert report["density"] == scale_for(*size)
    assert report["first"] == "setup"          # a calibrated table with no seats: set it up
    assert_fits(report, size)
    for name in ("calibration", "setup", "table"):
        import cv2

        shot = cv2.imread(str(shots / f"{name}.png"))
        assert shot.shape[:2] == (size[1], size[0]), name


def test_the_real_command_fills_an_800x480_panel(table_config):
    """The issue's finding: an 800x600 window on an 800x480 panel hid the top bar and Start.
    The plain command (no hook) makes one window, at the screen's corner, of its size, and
    Start (green) is drawn on the panel's bottom right."""
    if shutil.which("xwininfo") is None or shutil.which("xwd") is None:
        pytest.skip("needs xwininfo and xwd (x11-utils)")
    screen = Screen(800, 480)
    env = {**table_config(), "DISPLAY": screen.display}
    process = subprocess.Popen([sys.executable, "-m", "tabletop", "run"], cwd=ROOT, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        # The real command, unhooked: what is on the screen is read until Start is drawn
        # (or the app's first minute is over), never after a guessed pause.
        deadline = time.monotonic() + 60
        while not screen.windows() and time.monotonic() < deadline:
            assert process.poll() is None, process.stderr.read()[-3000:]
            time.sleep(0.25)
        image = screen.capture().astype(int)
        while len(np.nonzero(_start_green(image))[0]) <= 2000 and time.monotonic() < deadline:
            assert process.poll() is None, process.stderr.read()[-3000:]
            time.sleep(0.25)
            image = screen.capture().astype(int)
        assert screen.windows() == [(800, 480, 0, 0)]
    finally:
        process.terminate()
        process.wait(20)
        screen.close()
    assert image.shape[:2] == (480, 800)
    rows, columns = np.nonzero(_start_green(image))
    assert len(rows) > 2000, "Start is not on the screen"
    assert rows.max() < 480 and rows.min() > 380 and columns.min() > 400    # bottom right
    assert image[:60].std() > 10                   # the top bar is drawn, not black


def _start_green(image: np.ndarray) -> np.ndarray:
    """The pixels of Start's green (BGR) in a capture of the screen."""
    return (abs(image[:, :, 1] - 128) < 12) & (image[:, :, 2] < 60) & (image[:, :, 0] < 100)


def test_a_laptop_runs_it_windowed_at_the_configured_size(table_config):
    screen = Screen(1920, 1080)
    try:
        report = probe(screen, table_config('windowed = true\nsize = "1280x720"'))
    finally:
        screen.close()
    assert report["config"]["fullscreen"] == "0" and report["config"]["borderless"] == "0"
    assert (report["config"]["width"], report["config"]["height"]) == ("1280", "720")
    assert report["size"] == [1280, 720] and report["fullscreen"] is False
    assert report["borderless"] is False and report["density"] == 1.5
    assert_fits(report, (1280, 720))


def test_run_window_gives_a_laptop_a_window_whatever_the_file_says(table_config):
    """`tabletop run --window --camera sim`: the README's laptop path, on a full-screen table's
    configuration."""
    screen = Screen(1920, 1080)
    try:
        env = {**table_config('size = "1280x720"', camera='source = "usb:0"'),
               "PROBE_ARGS": "--window --camera sim:acquire,seed=1"}
        report = probe(screen, env)
    finally:
        screen.close()
    assert report["config"]["fullscreen"] == "0" and report["config"]["borderless"] == "0"
    assert report["size"] == [1280, 720] and report["fullscreen"] is False
    assert_fits(report, (1280, 720))


def test_a_portrait_panel_turned_by_rotation_is_laid_out_landscape(table_config):
    """The Touch Display 2 is 720x1280 portrait: `rotation = 90` lays the table out 1280x720."""
    screen = Screen(720, 1280)
    try:
        report = probe(screen, table_config("rotation = 90"))
    finally:
        screen.close()
    assert report["config"]["rotation"] == "90" and report["rotation"] == 90
    assert report["system_size"] == [720, 1280] and report["size"] == [1280, 720]
    assert report["density"] == 1.5
    assert_fits(report, (1280, 720))


def test_a_table_with_no_calibration_opens_on_the_calibration_steps(table_config, tmp_path):
    """A camera that opens but was never calibrated: the app opens (no terminal message, no
    black screen) on the calibration screen, whose steps say what to print and do."""
    import cv2

    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "0001.png"), np.full((480, 640, 3), 90, np.uint8))
    screen = Screen(800, 480)
    try:
        report = probe(screen, table_config(camera=f'source = "dir:{frames}"'))
    finally:
        screen.close()
    assert report["first"] == "calibration"
    assert_fits(report, (800, 480))
    guide = report["screens"]["calibration"]["ids"]["guide"]
    assert guide[2] > 200 and guide[3] > 100          # the steps are shown, readable


#: What Kivy writes in its configuration file on its first run on a Pi (kivy/config.py):
#: beside the pointer, the touch device read directly.
PI_KIVY_INPUT = """[input]
mouse = mouse
%(name)s = probesysfs,provider=hidinput
"""


def test_one_touch_is_one_tap_and_the_panel_does_not_blank(pi_panel):
    """On a Pi, Kivy's own configuration adds the touch device (hidinput or mtdev) beside
    SDL's pointer, and a user who may read it gets every touch twice. The real command, with
    that configuration file, listens to the pointer alone, and keeps the screen awake."""
    report, _ = pi_panel
    # What Kivy made its input from, and made: the pointer, and the SDL window's own finger
    # queue (filled on iOS and Android only); no device read directly (mtdev, hidinput).
    assert report["inputs"] == {"mouse": "mouse,disable_multitouch"}
    assert report["providers"] == ["MouseMotionEventProvider", "SDL2MotionEventProvider"]
    assert report["screensaver"] is False
    assert report["driver"] == "x11"          # what the log names, as XWayland would show
