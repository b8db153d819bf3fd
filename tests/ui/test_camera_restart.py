"""A camera lost for good (a CSI camera's cable pulled: it cannot be reopened in this process)
ends the app with exit code 75, for systemd to start a new one; the screen says so first,
and every confirmed action is already in the journal."""

from __future__ import annotations

import numpy as np
import pytest

from uihelpers import frames

from hardware.camera import CameraError, Recovery
from hardware.camera.base import Camera


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Pulled(Camera):
    """A camera that gives frames until its cable is pulled, then never opens again (the
    backend's policy: given up on after two failed reopenings)."""

    recovery = Recovery(max_reopens=2, stuck_gives_up=True)

    def __init__(self, clock: Clock) -> None:
        super().__init__("csi:test", clock=clock, frozen_frames=None)
        self.plugged = True

    def _connect(self) -> None:
        if not self.plugged:
            raise CameraError("is not there")

    def _fetch(self):
        if not self.plugged:
            raise CameraError("unplugged")
        return np.full((48, 64, 3), 120, np.uint8), self.clock()


def pull(camera: Pulled, clock: Clock, tick) -> None:
    """Pull the cable and let the camera try to reopen, a retry interval at a time."""
    camera.plugged = False
    for _ in range(6):
        clock.now += camera.retry_interval + 0.1
        tick()


def test_the_app_says_it_restarts_then_ends_with_75(run_app, monkeypatch):
    from kivy.core.window import Window
    from kivy.uix.popup import Popup

    from ui import app as app_module

    clock = Clock()
    camera = Pulled(clock)
    app = run_app(app_module.TableApp(language="en", camera=camera))
    stopped: list[bool] = []
    monkeypatch.setattr(app, "stop", lambda *_: stopped.append(True))
    monkeypatch.setattr(app_module, "RESTART_NOTICE", 0.05)
    camera.open()
    camera.read()
    app.tick()
    assert app.exit_code == 0 and camera.hopeless is None
    pull(camera, clock, lambda: (camera.read(), app.tick()))
    assert camera.hopeless is not None and app.exit_code == 75
    shown = [w for w in Window.children if isinstance(w, Popup)]
    assert len(shown) == 1
    words = shown[0].content.text
    assert "the app restarts to reach it again" in words and "The game is saved" in words
    from uihelpers import settle

    settle(0.3)                        # the notice's moment (0.05 s here), in frames
    assert stopped == [True]
    shown[0].dismiss(animation=False)
    frames(1)


def test_headless_the_table_ends_with_75_and_keeps_the_game(tmp_path):
    from assembly.test_run import resumed_runner

    runner = resumed_runner(tmp_path, {"rules": "acquire", "players": ["Ann", "Bob"], "seed": 4})
    before = len(runner.loop.desk.game.history)
    clock = Clock()
    camera = Pulled(clock)
    camera.open()
    camera.read()
    camera.plugged = False
    for _ in range(4):
        clock.now += camera.retry_interval + 0.1
        camera.read()
    assert camera.hopeless is not None
    runner.camera = runner.loop.camera = camera
    lines: list[str] = []
    runner.out = lines.append
    assert runner.run() == 75
    assert any("ending for a new start (exit 75)" in line for line in lines)
    from tabletop.journal.journal import Journal

    with Journal.open(runner.data / "journal.db") as journal:
        assert len(journal.lines(runner.loop.desk.table.id)) - 1 == before


@pytest.mark.parametrize("language", ["zh-TW", "de"])
def test_the_notice_is_in_the_tables_language(language):
    from tabletop.messages import Message
    from ui.i18n import say

    reason = Message("camera {source} hangs while closing: the app restarts to reach it again",
                     source="picamera2")
    said = say(Message("{camera}. The game is saved, and goes on where it was once the app is "
                       "back.", camera=reason), language)
    assert "picamera2" in said and "restarts" not in said and "saved" not in said
