"""The backlight on a real folder tree shaped like sysfs, and the idle policy on a clock.

Each device folder holds what the kernel's backlight class shows (``brightness``,
``max_brightness``, ``actual_brightness``, ``bl_power``, ``type``), and is reached
through a symbolic link from the class folder, as ``/sys/class/backlight/10-0045`` is.
The permission refusal is a real one: the tests run as root, whom file modes do not
stop, so the write is made by a child process that has become ``nobody``.
"""

from __future__ import annotations

import os
import pickle
import pwd
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hardware.backlight import (ENV_VAR, MockBacklight, NoBacklight, SysfsBacklight,
                                open_backlight)
from hardware.idle import IdleDimmer
from hardware.status import FAULT, READY


def add_device(root: Path, name: str, maximum: int, level: int) -> Path:
    """A backlight device under ``root/../devices``, linked from ``root`` like sysfs's."""
    device = root.parent / "devices" / "i2c" / name
    device.mkdir(parents=True)
    for file, value in (("max_brightness", maximum), ("brightness", level),
                        ("actual_brightness", level), ("bl_power", 0), ("type", "raw")):
        (device / file).write_text(f"{value}\n")
    root.mkdir(parents=True, exist_ok=True)
    (root / name).symlink_to(device, target_is_directory=True)
    return device


def level(device: Path) -> int:
    return int((device / "brightness").read_text())


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "class" / "backlight"


# --- the sysfs backend -----------------------------------------------------------------------

def test_dim_writes_a_fraction_of_the_maximum_and_wake_restores_the_level(root):
    panel = add_device(root, "10-0045", maximum=255, level=200)
    light = open_backlight(root=root, environ={})
    assert light.kind == "sysfs" and light.status.state == READY
    light.dim()
    assert level(panel) == 38 and light.dimmed      # 15 % of 255
    light.wake()
    assert level(panel) == 200 and not light.dimmed
    assert light.status.state == READY


def test_a_dimmed_panel_is_never_off(root):
    tiny = add_device(root, "gpio-backlight", maximum=1, level=1)
    small = add_device(root, "pwm-backlight", maximum=5, level=5)
    light = open_backlight("sysfs", root=root)
    light.dim()
    assert level(tiny) == 1 and level(small) == 1
    light.wake()
    assert (level(tiny), level(small)) == (1, 5) and not light.dimmed


def test_a_panel_found_dark_or_dimmed_wakes_to_its_maximum(root):
    # The app stopped while dimmed and systemd started it again: the level it finds is its
    # own dim one, and waking back to that would keep the table dark for good.
    left_dim = add_device(root, "10-0045", maximum=255, level=38)
    left_off = add_device(root, "11-0045", maximum=31, level=0)
    light = open_backlight("sysfs", root=root)
    light.dim()
    light.wake()
    assert level(left_dim) == 255 and level(left_off) == 31


def test_every_panel_dims_and_wakes_at_its_own_levels(root):
    first = add_device(root, "4-0045", maximum=255, level=255)
    second = add_device(root, "6-0045", maximum=31, level=20)
    light = open_backlight("sysfs", root=root)
    light.dim()
    assert (level(first), level(second)) == (38, 5)
    light.wake()
    assert (level(first), level(second)) == (255, 20)


def test_closing_wakes_the_panel_and_then_leaves_it_alone(root):
    panel = add_device(root, "10-0045", maximum=100, level=80)
    light = open_backlight("sysfs", root=root)
    light.dim()
    light.close()
    assert level(panel) == 80
    light.dim()
    assert level(panel) == 80 and not light.dimmed


def test_a_device_removed_between_dim_and_wake_is_a_fault_not_an_exception(root):
    panel = add_device(root, "10-0045", maximum=255, level=200)
    light = open_backlight("sysfs", root=root)
    light.dim()
    shutil.rmtree(panel)                 # the DSI panel unbound: its folder goes
    light.wake()
    assert light.status.state == FAULT
    assert light.status.message == "backlight 10-0045: the panel has gone"
    assert light.status.message.template == "backlight {device}: the panel has gone"
    assert not light.dimmed
    light.dim()
    light.wake()                          # still quiet, still no exception


def test_a_missing_brightness_file_is_never_created(root):
    panel = add_device(root, "10-0045", maximum=255, level=200)
    light = open_backlight("sysfs", root=root)
    (panel / "brightness").unlink()
    light.dim()
    assert light.status.message == "backlight 10-0045: the panel has gone"
    assert not (panel / "brightness").exists()


def test_a_device_that_cannot_be_read_is_a_fault_and_the_others_still_dim(root):
    broken = add_device(root, "10-0045", maximum=255, level=200)
    (broken / "max_brightness").write_text("garbage\n")
    good = add_device(root, "11-0045", maximum=100, level=100)
    light = open_backlight("sysfs", root=root)
    assert light.status.state == FAULT
    assert light.status.message.startswith("backlight 10-0045: cannot read the brightness")
    light.dim()
    assert level(good) == 15 and level(broken) == 200


def test_a_brightness_that_is_not_a_file_is_a_fault(root):
    panel = add_device(root, "10-0045", maximum=255, level=200)
    light = open_backlight("sysfs", root=root)
    (panel / "brightness").unlink()
    (panel / "brightness").mkdir()
    light.dim()
    assert light.status.state == FAULT
    assert light.status.message.template == \
        "backlight {device}: cannot set the brightness ({error})"
    assert not light.dimmed


def test_sysfs_asked_for_without_a_device_says_so(root):
    light = open_backlight("sysfs", root=root)
    assert light.status.state == FAULT
    assert light.status.message == f"no screen backlight under {root}"
    light.dim()
    light.wake()
    light.close()


# --- a user who may not write the brightness -------------------------------------------------

NOBODY = pwd.getpwnam("nobody")


def unprivileged(action: Callable[[], Any]) -> Any:
    """``action()``'s result, run as a user that file modes stop (root: a child as nobody)."""
    if os.geteuid() != 0:
        return action()
    read, write = os.pipe()
    child = os.fork()
    if child == 0:                                    # pragma: no cover - the child
        os.close(read)
        try:
            os.setgid(NOBODY.pw_gid)
            os.setuid(NOBODY.pw_uid)
            result: Any = ("done", action())
        except BaseException as error:                # noqa: BLE001 - reported to the parent
            result = ("raised", repr(error))
        with os.fdopen(write, "wb") as out:
            pickle.dump(result, out)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as answer:
        outcome, value = pickle.load(answer)
    os.waitpid(child, 0)
    assert outcome == "done", value
    return value


@pytest.fixture
def shared_root():
    """A tree that user may walk into and read (pytest's tmp_path is root's alone)."""
    top = Path(tempfile.mkdtemp(prefix="backlight-"))
    top.chmod(0o755)
    root = top / "class" / "backlight"
    panel = add_device(root, "10-0045", maximum=255, level=200)
    for folder in (top, *(p for p in top.rglob("*") if p.is_dir() and not p.is_symlink())):
        folder.chmod(0o755)
    (panel / "brightness").chmod(0o644)               # root's, as without the video rule
    yield root, panel
    shutil.rmtree(top)


def test_a_refused_write_is_a_fault_with_a_sentence_not_an_exception(shared_root):
    root, panel = shared_root

    def dim_as_user():
        light = SysfsBacklight(root)
        light.dim()
        return light.status, light.dimmed

    status, dimmed = unprivileged(dim_as_user)
    assert status.state == FAULT and not dimmed
    assert status.message == ("backlight 10-0045: not allowed to set the brightness "
                              "(is the user in the video group?)")
    assert level(panel) == 200


def test_auto_does_not_take_a_panel_the_user_may_not_write(shared_root):
    root, _ = shared_root
    assert unprivileged(lambda: open_backlight(root=root, environ={}).kind) == "none"


# --- choosing the backend ---------------------------------------------------------------------

def test_auto_picks_none_without_a_device(root, tmp_path):
    assert open_backlight(root=tmp_path / "missing", environ={}).kind == "none"
    root.mkdir(parents=True)
    assert open_backlight(root=root, environ={}).kind == "none"


def test_the_environment_chooses_when_the_kind_is_auto(root):
    add_device(root, "10-0045", maximum=255, level=200)
    assert open_backlight(root=root, environ={ENV_VAR: "none"}).kind == "none"
    assert open_backlight(root=root, environ={ENV_VAR: " Mock "}).kind == "mock"
    assert open_backlight("sysfs", root=root, environ={ENV_VAR: "none"}).kind == "sysfs"
    with pytest.raises(ValueError, match="unknown backlight backend 'lamp'"):
        open_backlight(root=root, environ={ENV_VAR: "lamp"})


# --- the idle policy ---------------------------------------------------------------------------

class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def test_between_games_the_screen_dims_once_after_the_quiet_spell(clock):
    light = MockBacklight()
    idle = IdleDimmer(light, after=300, clock=clock, allowed=True)
    clock.now += 299.9
    assert not idle.tick() and light.calls == []
    clock.now += 0.1
    assert idle.tick() and light.dimmed
    for _ in range(50):
        clock.now += 1
        idle.tick()
    assert light.calls == ["dim"]


def test_during_a_game_the_screen_never_dims(clock):
    light = MockBacklight()
    idle = IdleDimmer(light, after=300, clock=clock)      # not allowed until told
    for _ in range(100):
        clock.now += 3600
        idle.tick()
    idle.set_allowed(True)
    idle.set_allowed(False)
    clock.now += 3600
    idle.tick()
    assert light.calls == [] and not light.dimmed


def test_a_touch_wakes_and_restarts_the_spell(clock):
    light = MockBacklight()
    idle = IdleDimmer(light, after=60, clock=clock, allowed=True)
    clock.now += 60
    idle.tick()
    assert idle.touched() is True and not light.dimmed     # the waking touch: swallowable
    clock.now += 59
    idle.tick()
    assert not light.dimmed and idle.touched() is False    # a touch on a lit screen
    clock.now += 59
    idle.tick()
    assert not light.dimmed
    clock.now += 1
    idle.tick()
    assert light.calls == ["dim", "wake", "dim"]


def test_a_game_starting_wakes_the_screen_at_once(clock):
    light = MockBacklight()
    idle = IdleDimmer(light, after=60, clock=clock, allowed=True)
    clock.now += 120
    idle.tick()
    idle.set_allowed(False)                 # a game resumed by a GPIO button, no touch
    assert light.calls == ["dim", "wake"] and not light.dimmed


def test_a_game_ending_after_a_long_untouched_game_keeps_the_results_lit(clock):
    light = MockBacklight()
    idle = IdleDimmer(light, after=300, clock=clock)
    clock.now += 7200                       # played with the camera and the buttons
    idle.set_allowed(True)
    idle.tick()
    assert not light.dimmed
    clock.now += 300
    idle.tick()
    assert light.dimmed


def test_no_quiet_spell_dims_when_after_is_zero(clock):
    light = MockBacklight()
    idle = IdleDimmer(light, after=0, clock=clock, allowed=True)
    clock.now += 10**6
    idle.tick()
    assert light.calls == []


def test_without_a_backlight_no_touch_is_swallowed(clock):
    idle = IdleDimmer(NoBacklight(), after=60, clock=clock, allowed=True)
    clock.now += 120
    idle.tick()
    assert idle.touched() is False


def test_a_refused_dim_is_not_retried_every_tick_and_swallows_no_touch(root, clock):
    panel = add_device(root, "10-0045", maximum=255, level=200)
    light = SysfsBacklight(root)
    (panel / "brightness").unlink()
    (panel / "brightness").mkdir()
    idle = IdleDimmer(light, after=60, clock=clock, allowed=True)
    clock.now += 60
    idle.tick()
    (panel / "brightness").rmdir()
    (panel / "brightness").write_text("200\n")
    for _ in range(20):
        clock.now += 1
        idle.tick()
    assert level(panel) == 200 and light.status.state == FAULT   # asked once, not 21 times
    assert idle.touched() is False
    assert light.status.state == READY                  # the wake's write went through


def test_the_policy_on_a_sysfs_panel(root, clock):
    panel = add_device(root, "10-0045", maximum=255, level=180)
    idle = IdleDimmer(open_backlight(root=root, environ={}), after=120, clock=clock)
    idle.set_allowed(True)
    clock.now += 120
    idle.tick()
    assert level(panel) == 38
    assert idle.touched() is True and level(panel) == 180
