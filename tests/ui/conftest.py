"""Real Kivy widgets on a real (virtual) X display: Xvfb is started here when there is none."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time

import pytest

SCREEN = (800, 480)


def _start_xvfb() -> subprocess.Popen | None:
    if os.environ.get("DISPLAY"):
        return None
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        raise RuntimeError("the UI tests need an X display or Xvfb (apt-get install xvfb)")
    for number in range(90, 110):
        if os.path.exists(f"/tmp/.X11-unix/X{number}"):
            continue
        process = subprocess.Popen([xvfb, f":{number}", "-screen", "0", "1280x800x24", "-nolisten",
                                    "tcp"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(50):
            if os.path.exists(f"/tmp/.X11-unix/X{number}"):
                os.environ["DISPLAY"] = f":{number}"
                return process
            time.sleep(0.05)
        process.kill()
    raise RuntimeError("Xvfb did not start")


_XVFB = _start_xvfb()
os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
os.environ.setdefault("KIVY_CLIPBOARD", "dummy")     # no xclip/xsel on a test machine
os.environ.setdefault("KIVY_HOME", tempfile.mkdtemp(prefix="kivy-home-"))

from kivy.config import Config  # noqa: E402

Config.set("graphics", "width", str(SCREEN[0]))
Config.set("graphics", "height", str(SCREEN[1]))
Config.set("input", "mouse", "mouse,disable_multitouch")


def pytest_sessionfinish(session, exitstatus):
    if _XVFB is not None:
        _XVFB.terminate()


@pytest.fixture
def run_app():
    """Start a :class:`ui.app.TableApp` on the window; stopped (its widgets taken off) after."""
    from kivy.app import App
    from kivy.base import EventLoop
    from kivy.clock import Clock
    from kivy.core.window import Window

    started = []

    def start(app):
        app._run_prepare()
        Window.size = SCREEN
        for _ in range(3):
            EventLoop.idle()
        started.append(app)
        return app

    yield start
    for app in started:
        Clock.unschedule(app.tick)
        Window.unbind(on_key_down=app._key)
        Window.remove_widget(app.root)
        app.dispatch("on_stop")       # kv's `app` forgets it (it is cached until then)
        App._running_app = None


def frames(count: int = 2) -> None:
    """Let Kivy lay out and draw."""
    from kivy.base import EventLoop

    for _ in range(count):
        EventLoop.idle()


def settle(seconds: float = 0.6) -> None:
    """Let animations (a popup opening or closing) run their course."""
    import time

    from kivy.base import EventLoop

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        EventLoop.idle()


def tap(widget) -> None:
    """A finger on ``widget``'s centre, down and up, through the window's input."""
    from kivy.tests.common import UnitTestTouch

    x, y = widget.to_window(*widget.center)
    touch = UnitTestTouch(x, y)
    touch.touch_down()
    touch.touch_up()
    frames(1)


def tap_at(x: float, y: float) -> None:
    from kivy.tests.common import UnitTestTouch

    touch = UnitTestTouch(x, y)
    touch.touch_down()
    touch.touch_up()
    frames(1)


def texts(widget) -> list[str]:
    """Every text the widget tree shows (markup taken out)."""
    import re

    return [re.sub(r"\[/?[a-z]+[^\]]*\]", "", child.text) for child in widget.walk(restrict=True)
            if isinstance(getattr(child, "text", None), str) and child.text]
