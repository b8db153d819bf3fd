"""Issue 19: `tabletop run` keeps the terminal for what a person needs. Kivy's start-up log
(some 25 lines), its CRITICAL about a missing cut buffer and OpenCV's warning at each
reopening of an absent camera stay off it; ``TABLETOP_DEBUG=1`` brings them back.

The app runs in a subprocess on the tests' X display with a USB camera that does not exist.
It is stopped through its own exit path (``App.stop()``) once the camera has been opened a
fixed number of times: the counts below are after that many retries, whatever the time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

#: Reopenings of the absent camera before the app is stopped (one every 2 s: the retry policy).
ATTEMPTS = 3

#: The subprocess: ``tabletop run`` itself, with OpenCV's VideoCapture counted (it is still
#: OpenCV's, warnings and all) and, at the last attempt, a copy and paste through Kivy's
#: clipboard (its first use, as at the first text entry), then the app's own stop.
DRIVER = """
import json, os, sys
import cv2

real, opened = cv2.VideoCapture, []

def counted(*args, **kwargs):
    opened.append(args)
    if len(opened) == int(os.environ["ATTEMPTS"]):
        from kivy.app import App
        from kivy.clock import Clock
        from kivy.core.clipboard import Clipboard

        Clipboard.copy("Ann")
        with open(os.environ["SEEN"], "w") as seen:
            json.dump({"pasted": Clipboard.paste(), "opened": len(opened)}, seen)
        Clock.schedule_once(lambda *_: App.get_running_app().stop())
    return real(*args, **kwargs)

cv2.VideoCapture = counted
from tabletop.cli import main
sys.exit(main(["run"]))
"""


@pytest.fixture
def table(tmp_path: Path) -> dict[str, str]:
    """A calibrated table (so the app reads the camera) on ``usb:57``, which is not there."""
    from calibration.calibrate import calibrate
    from hardware.camera import open_camera
    from tabletop.assembly.simcamera import register

    register()
    camera = open_camera("sim")
    image, corners = camera.calibration_view()
    data = tmp_path / "data"
    data.mkdir()
    calibrate(image, corners, camera.settings["rules"]).save(data / "calibration.json")
    config = tmp_path / "config.toml"
    config.write_text('[camera]\nsource = "usb:57"\n[controls]\nkind = "keyboard"\n'
                      '[screen]\nwindowed = true\nsize = "800x480"\n'
                      f'[table]\nplayers = ["Ann", "Bob", "Cy"]\n[paths]\ndata = "{data}"\n')
    # A newcomer's environment: none of the tests' own Kivy settings, a Kivy home never used.
    clean = {key: value for key, value in os.environ.items()
             if not key.startswith(("KIVY_", "KCFG_", "TABLETOP_", "OPENCV_"))}
    return {**clean, "TABLETOP_CONFIG": str(config), "KIVY_HOME": str(tmp_path / "kivy"),
            "SEEN": str(tmp_path / "seen.json"), "ATTEMPTS": str(ATTEMPTS),
            "DISPLAY": os.environ["DISPLAY"]}


def run(env: dict[str, str]) -> tuple[list[str], list[str], dict]:
    done = subprocess.run([sys.executable, "-c", DRIVER], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(Path(env["SEEN"]).read_text())
    assert seen["opened"] == ATTEMPTS
    return done.stdout.splitlines(), done.stderr.splitlines(), seen


def test_the_terminal_shows_our_lines_and_no_kivy_or_opencv_log(table):
    out, err, seen = run(table)
    assert seen["pasted"] == "Ann"              # copy and paste work without xclip or xsel
    assert [line for line in err if not line.startswith("tabletop: window 800x480")] == [], err
    assert len(err) == 1, err
    assert not any(line.startswith(("[", "kivy")) for line in out), out
    said = "\n".join(out + err)
    assert said.count("camera usb:57 cannot be opened") == 1, said   # not once a retry
    assert "Cutbuffer" not in said and "CRITICAL" not in said and "WARN" not in said
    assert len(out) <= 5, out


def test_tabletop_debug_brings_kivy_s_and_opencv_s_log_back(table):
    out, err, _ = run({**table, "TABLETOP_DEBUG": "1"})
    said = "\n".join(out + err)
    assert sum("INFO" in line and "[Kivy" in line for line in err) >= 1, said
    assert sum("INFO" in line for line in err) >= 10
    assert said.count("can't open camera by index") >= ATTEMPTS   # OpenCV's, at each attempt
