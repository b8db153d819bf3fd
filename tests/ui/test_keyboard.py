"""Names typed on the touchscreen: with no keyboard plugged in, `tabletop run` docks Kivy's
on-screen keyboard, and a finger on its keys types into a player's name on the setup screen.

Kivy reads the keyboard mode when the window is made, so this runs in a fresh process.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = r"""
import os, sys
os.environ["KIVY_NO_ARGS"] = "1"
os.environ["KIVY_CLIPBOARD"] = "dummy"
sys.path.insert(0, sys.argv[2])
import frame_clock
from kivy.config import Config
from tabletop.assembly.runner import keyboard_mode
Config.set("kivy", "keyboard_mode", keyboard_mode(sys.argv[1], plugged=lambda: False))
Config.set("graphics", "width", "800")
Config.set("graphics", "height", "480")
from kivy.base import EventLoop
from kivy.core.window import Window
from kivy.tests.common import UnitTestTouch
from kivy.uix.textinput import TextInput
from kivy.uix.vkeyboard import VKeyboard
from ui.app import TableApp

def tap(x, y):
    touch = UnitTestTouch(x, y)
    touch.touch_down()
    touch.touch_up()
    for _ in range(3):
        EventLoop.idle()

frame_clock.install()                 # the same frames on a loaded machine as on a quiet one
app = TableApp()                      # no game yet: the setup screen
app._run_prepare()
for _ in range(3):
    EventLoop.idle()
field = [w for w in reversed(app.setup.ids.players.children) if isinstance(w, TextInput)][0]
tap(*field.to_window(*field.center))
keyboards = [w for w in Window.children if isinstance(w, VKeyboard)]
print("keyboards", len(keyboards))
if keyboards:
    keyboard = keyboards[0]
    print("docked at", int(keyboard.y), "field above", field.to_window(*field.pos)[1] > keyboard.top)
    field.text = ""
    for letter in "zoe":
        where = next((x, y) for x in range(int(keyboard.x) + 2, int(keyboard.right), 4)
                     for y in range(int(keyboard.y) + 2, int(keyboard.top), 4)
                     if (key := keyboard.get_key_at_pos(*keyboard.to_local(x, y)))
                     and key[0][1] == letter)
        tap(*where)
    # A fourth name, lower down: the keyboard must not cover it while it is typed.
    app.setup.add_player()
    for _ in range(3):
        EventLoop.idle()
    last = [w for w in reversed(app.setup.ids.players.children) if isinstance(w, TextInput)][-1]
    tap(*last.to_window(*last.center))
    for _ in range(frame_clock.frames_for(2)):   # the keyboard docks, the layout makes room
        EventLoop.idle()
    keyboard = [w for w in Window.children if isinstance(w, VKeyboard)][0]
    start = app.setup.ids.start
    print("fourth above", last.focus and last.to_window(*last.pos)[1] >= keyboard.top - 1,
          "start above", start.to_window(*start.pos)[1] >= keyboard.top - 1)
    app.setup.start()                 # Start reads the names as typed
    print("players", app.setup.players[0])
"""


def run(choice):
    result = subprocess.run([sys.executable, "-c", SCRIPT, choice, str(Path(__file__).parent)],
                            capture_output=True,
                            text=True, timeout=120, env=dict(os.environ))
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout.splitlines()


def test_without_a_keyboard_names_are_typed_on_a_docked_on_screen_keyboard():
    lines = run("auto")
    assert "keyboards 1" in lines
    assert "docked at 0 field above True" in lines          # the name stays in sight
    assert "players zoe" in lines
    assert "fourth above True start above True" in lines     # the layout ends at the keyboard


def test_with_the_system_keyboard_none_is_docked():
    assert "keyboards 0" in run("system")
