"""Real Kivy widgets on a real (virtual) X display: Xvfb is started here when there is none."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile

import pytest

SCREEN = (800, 480)


def _start_xvfb() -> subprocess.Popen | None:
    """An Xvfb of our own, on a display it picks itself (``-displayfd``: no race with another
    run, no stale socket mistaken for a free number), stopped when the tests end."""
    if os.environ.get("DISPLAY"):
        return None
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        raise RuntimeError("the UI tests need an X display or Xvfb (apt-get install xvfb)")
    read, write = os.pipe()
    process = subprocess.Popen([xvfb, "-displayfd", str(write), "-screen", "0", "1920x1080x24",
                                "-nolisten", "tcp"], pass_fds=(write,),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as told:
        number = told.readline().strip()      # written once the display accepts clients
    if not number:
        process.kill()
        raise RuntimeError("Xvfb did not start")
    os.environ["DISPLAY"] = f":{number}"
    atexit.register(process.terminate)       # xdist workers too, whatever ends them
    return process


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

    from kivy.metrics import Metrics

    def start(app):
        Metrics.density = 1          # the panel's; a test before may have fitted another screen
        app._run_prepare()
        Window.size = SCREEN
        for _ in range(3):
            EventLoop.idle()
        started.append(app)
        return app

    yield start
    from kivy.uix.modalview import ModalView

    for view in [w for w in Window.children if isinstance(w, ModalView)]:
        view.dismiss(animation=False)       # a question left open must not take the next test's presses
    for app in started:
        Clock.unschedule(app.tick)
        Window.unbind(on_key_down=app._key)
        Window.remove_widget(app.root)
        app.dispatch("on_stop")       # kv's `app` forgets it (it is cached until then)
        App._running_app = None
    Metrics.density = 1


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
    if _scrolled(widget):
        # A ScrollView hands a short tap on to what it holds a moment later (its clock, not
        # our frames): wait for it, or the tap lands whenever the machine is slow enough.
        settle(0.3)


def _scrolled(widget) -> bool:
    from kivy.uix.scrollview import ScrollView

    parent = widget.parent
    while parent is not None and parent is not parent.parent:
        if isinstance(parent, ScrollView):
            return True
        parent = parent.parent
    return False


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


# --- games and checks the screens' tests share ----------------------------------------------------

#: Acquire, three players; Cy draws first and is to place.
SETUP = {"setup": {"rules": "acquire", "players": ["Ann", "Bob", "Cy"],
                   "start_tiles": {"Ann": "5C", "Bob": "9I", "Cy": "1D"}}}


@pytest.fixture
def table(tmp_path):
    """A journal's game of :data:`SETUP`, just started."""
    from tabletop.journal.journal import Journal

    with Journal.open(tmp_path / "journal.db", table_name="test") as journal:
        yield journal.start(SETUP)


def play(assistant, actions: int, seed: int = 2) -> None:
    """Bots play ``actions`` actions (or to the end) through the assistant."""
    from tabletop.table.bot import Bot

    bot = Bot(assistant, seed=seed)
    for _ in range(actions):
        if assistant.game.pending is None:
            return
        bot.act()


def outside_the_window(root):
    """Widgets drawn (partly) off the screen; what a ScrollView holds may scroll, and is not."""
    from kivy.core.window import Window
    from kivy.uix.scrollview import ScrollView

    scrolled = {id(w) for view in root.walk() if isinstance(view, ScrollView)
                for w in view.walk() if w is not view}
    off = []
    for widget in root.walk():
        if id(widget) in scrolled or widget.width <= 1 or widget.height <= 1:
            continue
        x, y = widget.to_window(widget.x, widget.y)
        if x < -1 or y < -1 or x + widget.width > Window.width + 1 or \
                y + widget.height > Window.height + 1:
            off.append((type(widget).__name__, getattr(widget, "text", ""), (x, y)))
    return off

