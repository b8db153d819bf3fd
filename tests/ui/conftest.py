"""Real Kivy widgets on a real (virtual) X display: Xvfb is started here when there is none.

Kivy's clock is counted in frames here (:mod:`frame_clock`): what a test sees after
``settle()`` is the same on a quiet machine and a loaded one.

With no display and no Xvfb, the tests that need a window are skipped with one line
saying what to install; every other test of the suite still runs.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile

import pytest

import frame_clock
from uihelpers import PANEL, SETUP, started, stopped

#: Why the UI tests cannot have a window, said once for all of them, with what to install.
NO_DISPLAY = "no X display, and no Xvfb to start one: apt-get install xvfb"


def _start_xvfb() -> subprocess.Popen | None:
    """An Xvfb of our own, on a display it picks itself (``-displayfd``: no race with another
    run, no stale socket mistaken for a free number), stopped when the tests end."""
    read, write = os.pipe()
    process = subprocess.Popen([shutil.which("Xvfb"), "-displayfd", str(write), "-screen", "0",
                                "1920x1080x24", "-nolisten", "tcp"], pass_fds=(write,),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as told:
        number = told.readline().strip()      # written once the display accepts clients
    if not number:
        process.kill()
        return None
    os.environ["DISPLAY"] = f":{number}"
    atexit.register(process.terminate)       # xdist workers too, whatever ends them
    return process


_XVFB: list[subprocess.Popen] = []
_KIVY_HOME = tempfile.mkdtemp(prefix="kivy-home-")
atexit.register(shutil.rmtree, _KIVY_HOME, True)
os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
os.environ.setdefault("KIVY_CLIPBOARD", "dummy")     # no xclip/xsel on a test machine
os.environ.setdefault("KIVY_HOME", _KIVY_HOME)

from kivy.config import Config  # noqa: E402

Config.set("graphics", "width", str(PANEL[0]))
Config.set("graphics", "height", str(PANEL[1]))
Config.set("input", "mouse", "mouse,disable_multitouch")
frame_clock.install()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With no display and no Xvfb, the UI tests are not run, and one line says so and what
    to install (not one line a test): the rest of the suite runs as ever."""
    if os.environ.get("DISPLAY") or shutil.which("Xvfb"):
        return
    here = os.path.dirname(os.path.abspath(__file__))
    windowed = [item for item in items if str(item.path).startswith(here + os.sep)
                and not getattr(getattr(item, "module", None), "WINDOWLESS", False)]
    if not windowed:
        return
    windowed[0].add_marker(pytest.mark.skip(reason=f"{len(windowed)} UI tests not run: "
                                                   f"{NO_DISPLAY}"))
    left_out = set(windowed[1:])
    config.hook.pytest_deselected(items=list(left_out))
    items[:] = [item for item in items if item not in left_out]


@pytest.fixture(scope="session")
def x_display() -> str:
    """The X display the window opens on: the session's own, else an Xvfb started for the
    first test that needs it (a worker that runs no UI test starts none)."""
    if not os.environ.get("DISPLAY"):
        if shutil.which("Xvfb") is None:
            pytest.skip("the UI tests need a window: " + NO_DISPLAY)
        process = _start_xvfb()
        if process is None:
            pytest.skip("the UI tests need a window, and Xvfb did not start")
        _XVFB.append(process)
    return os.environ["DISPLAY"]


@pytest.fixture(autouse=True)
def _window_display(request: pytest.FixtureRequest) -> None:
    """Every UI test has its display before Kivy makes the window, but those of a module
    that says it needs none (``WINDOWLESS = True``: text and catalogue checks)."""
    if not getattr(request.module, "WINDOWLESS", False):
        request.getfixturevalue("x_display")


def pytest_sessionfinish(session, exitstatus):
    for process in _XVFB:
        process.terminate()


@pytest.fixture
def run_app():
    """Start a :class:`ui.app.TableApp` on the window; stopped (its widgets taken off) after."""
    apps = []

    def start(app):
        apps.append(started(app))
        return app

    yield start
    for app in apps:
        stopped(app)


@pytest.fixture(scope="module")
def module_app(x_display):
    """One :class:`ui.app.TableApp` for a module's tests, with no game yet: each test puts its
    desk on the table (``app.loop.desk = desk``), as a table's app shows a game after another.
    Building an app is most of what a screen shown costs. A module using it keeps its tests
    in one worker (``xdist_group``), which makes the app once."""
    from ui.app import TableApp

    app = started(TableApp(desk=None))
    yield app
    stopped(app)


@pytest.fixture
def table(tmp_path):
    """A journal's game of :data:`SETUP`, just started."""
    from tabletop.journal.journal import Journal

    with Journal.open(tmp_path / "journal.db", table_name="test") as journal:
        yield journal.start(SETUP)
