"""Buttons, light and buzzer: gpiozero MockFactory pins, a real pty, the mock backend."""

from __future__ import annotations

import inspect
import io
import os
import sys
import termios
import threading
import time
from collections.abc import Callable

import pytest

gpiozero = pytest.importorskip("gpiozero")
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from hardware import controls as ctl
from hardware.controls import (
    CONFIRM,
    DEFAULT_PINS,
    LONG_PRESS,
    NEXT,
    PRESS,
    UNDO,
    ButtonEvent,
    ControlsUnavailable,
    GpioControls,
    KeyboardControls,
    MockControls,
    open_controls,
)
from hardware.status import FAULT, READY, WAITING, Status

TIMEOUT = 3.0


def wait_for(predicate: Callable[[], bool], timeout: float = TIMEOUT) -> bool:
    """Poll ``predicate`` until true or ``timeout``; returns its last value."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.005)
    return bool(predicate())


def drain(controls, quiet: float = 0.15) -> list[ButtonEvent]:
    """Every event until none comes for ``quiet`` seconds."""
    events = []
    while (event := controls.events(timeout=quiet)) is not None:
        events.append(event)
    return events


@pytest.fixture
def factory():
    previous = Device.pin_factory
    Device.pin_factory = MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()
    Device.pin_factory = previous


@pytest.fixture
def gpio(factory):
    opened = []

    def make(**options):
        options.setdefault("hold_time", 5.0)
        options.setdefault("bounce_time", 0)
        controls = open_controls("gpio", **options)
        opened.append(controls)
        return controls

    yield make
    for controls in opened:
        controls.close()


def pin(factory, role: str, pins: dict | None = None):
    return factory.pin((pins or DEFAULT_PINS)[role])


def tap(factory, controls, role: str, pins: dict | None = None) -> None:
    """Press and release, waiting until the press has been taken (debounced)."""
    line = pin(factory, role, pins)
    line.drive_low()
    assert wait_for(lambda: controls.is_pressed(role))
    line.drive_high()


# -- gpio: buttons ----------------------------------------------------------


def test_gpio_press_gives_press_event(factory, gpio):
    controls = gpio()
    assert isinstance(controls, GpioControls)
    tap(factory, controls, CONFIRM)
    event = controls.events(timeout=TIMEOUT)
    assert (event.button, event.kind) == (CONFIRM, PRESS)
    assert isinstance(event.time, float)
    assert controls.events(timeout=0.05) is None


def test_gpio_each_button_and_get_event(factory, gpio):
    controls = gpio()
    for role in (UNDO, NEXT, CONFIRM):
        tap(factory, controls, role)
        assert controls.get_event(timeout=TIMEOUT).button == role


def test_gpio_buttons_are_pulled_up(factory, gpio):
    controls = gpio()
    assert pin(factory, CONFIRM).state is True  # idle high
    assert controls.buttons[CONFIRM].is_pressed is False
    pin(factory, CONFIRM).drive_low()
    assert controls.buttons[CONFIRM].is_pressed is True
    pin(factory, CONFIRM).drive_high()
    assert controls.buttons[CONFIRM].is_pressed is False


def test_gpio_bounce_gives_one_press(factory, gpio):
    controls = gpio(bounce_time=0.05, hold_time=5.0)
    line = pin(factory, NEXT)
    for _ in range(5):  # contact chatter, well within bounce_time
        line.drive_low()
        line.drive_high()
    line.drive_low()
    assert wait_for(lambda: controls.is_pressed(NEXT))
    for _ in range(3):  # chatter on release
        line.drive_high()
        line.drive_low()
    line.drive_high()
    assert wait_for(lambda: not controls.is_pressed(NEXT))
    events = drain(controls)
    assert [(e.button, e.kind) for e in events] == [(NEXT, PRESS)]


def test_gpio_glitch_shorter_than_bounce_is_ignored(factory, gpio):
    controls = gpio(bounce_time=0.05)
    line = pin(factory, UNDO)
    line.drive_low()
    line.drive_high()
    assert drain(controls, quiet=0.2) == []


def test_gpio_long_press_once_and_no_press_on_release(factory, gpio):
    controls = gpio(hold_time=0.05, bounce_time=0.005)
    line = pin(factory, UNDO)
    line.drive_low()
    event = controls.events(timeout=TIMEOUT)
    assert (event.button, event.kind) == (UNDO, LONG_PRESS)
    assert controls.events(timeout=0.15) is None  # held on: still only one
    line.drive_high()
    assert wait_for(lambda: not controls.is_pressed(UNDO))
    assert drain(controls) == []


def test_gpio_long_press_agrees_with_gpiozero_is_held(factory, gpio):
    controls = gpio(hold_time=0.05, bounce_time=0)
    pin(factory, CONFIRM).drive_low()
    assert controls.events(timeout=TIMEOUT).kind == LONG_PRESS
    assert wait_for(lambda: controls.buttons[CONFIRM].is_held)
    pin(factory, CONFIRM).drive_high()


def test_gpio_short_press_with_hold_time_set_is_press(factory, gpio):
    controls = gpio(hold_time=1.0, bounce_time=0.005)
    tap(factory, controls, CONFIRM)
    assert [(e.button, e.kind) for e in drain(controls)] == [(CONFIRM, PRESS)]


def test_gpio_on_event_callback(factory, gpio):
    seen: list[ButtonEvent] = []
    controls = gpio(on_event=seen.append)
    tap(factory, controls, NEXT)
    assert wait_for(lambda: len(seen) == 1)
    assert seen[0].button == NEXT
    assert controls.events(timeout=TIMEOUT) == seen[0]  # queue gets it too


def test_gpio_failing_callback_does_not_stop_events(factory, gpio):
    def broken(event):
        raise RuntimeError("boom")

    controls = gpio(on_event=broken)
    tap(factory, controls, NEXT)
    assert controls.events(timeout=TIMEOUT).button == NEXT
    tap(factory, controls, UNDO)
    assert controls.events(timeout=TIMEOUT).button == UNDO


def test_gpio_configurable_pins(factory, gpio):
    pins = {"confirm": 5, "UNDO": 6, "NEXT": 13, "LED": 19, "BUZZER": None}
    controls = gpio(pins=pins)
    wanted = {CONFIRM: 5, UNDO: 6, NEXT: 13, "LED": 19, "BUZZER": None}
    assert controls.pins == wanted
    assert controls.buzzer is None
    tap(factory, controls, CONFIRM, wanted)
    assert controls.events(timeout=TIMEOUT).button == CONFIRM
    controls.show("ready")
    assert factory.pin(19).state is True
    assert factory.pin(DEFAULT_PINS["LED"]).function == "input"  # default pin untouched


def test_gpio_bad_pin_roles_refused(factory):
    with pytest.raises(ValueError, match="unknown pin role"):
        open_controls("gpio", pins={"SELECT": 4})
    with pytest.raises(ValueError, match="needs a pin"):
        open_controls("gpio", pins={"NEXT": None})


# -- gpio: light and buzzer -------------------------------------------------


def test_gpio_light_ready_is_steady_on(factory, gpio):
    controls = gpio()
    led_pin = pin(factory, "LED")
    controls.show("ready")
    assert led_pin.state is True and controls.led.is_lit
    time.sleep(0.05)
    assert led_pin.state is True
    assert controls.light == "ready"


def test_gpio_light_off(factory, gpio):
    controls = gpio()
    controls.show("ready")
    controls.show("off")
    assert pin(factory, "LED").state is False
    assert not controls.led.is_lit


def test_gpio_light_waiting_blinks(factory, gpio):
    controls = gpio()
    led_pin = pin(factory, "LED")
    led_pin.clear_states()
    controls.show("waiting")
    assert wait_for(lambda: len(led_pin.states) > 3, timeout=60)
    values = [s.state for s in led_pin.states[1:]]
    assert True in values and False in values
    controls.show("ready")  # stops blinking, steady on
    assert led_pin.state is True
    count = len(led_pin.states)
    time.sleep(0.25)
    assert len(led_pin.states) == count


@pytest.mark.parametrize("before", ["ready", "waiting"])
def test_gpio_fault_turns_the_light_off(factory, gpio, before):
    """steady, blinking, off for ready, waiting, fault (the error beep is heard)."""
    controls = gpio()
    led_pin = pin(factory, "LED")
    controls.show(before)
    controls.show("fault")
    assert led_pin.state is False and not controls.led.is_lit
    assert controls.light == "fault"
    count = len(led_pin.states)
    time.sleep(0.6)  # longer than a waiting blink period: no blinking left
    assert len(led_pin.states) == count and led_pin.state is False


def test_light_states_fault_and_off_are_the_same_dark_light():
    assert ctl.LIGHTS == {"ready": True, "waiting": (0.5, 0.5), "fault": False, "off": False}


def test_gpio_unknown_light_state_refused(gpio):
    with pytest.raises(ValueError, match="unknown light state"):
        gpio().show("party")


def test_gpio_beep_tile_seen_is_one_short_beep(factory, gpio):
    controls = gpio()
    buzz = pin(factory, "BUZZER")
    buzz.clear_states()
    controls.beep("tile_seen")
    assert wait_for(lambda: [s.state for s in buzz.states] == [False, True, False])
    assert buzz.states[2].timestamp < 0.5
    assert controls.last_beep == "tile_seen"


def test_gpio_beep_error_is_double_and_longer(factory, gpio):
    controls = gpio()
    buzz = pin(factory, "BUZZER")
    buzz.clear_states()
    controls.beep("error")
    expected = [False, True, False, True, False]
    assert wait_for(lambda: [s.state for s in buzz.states] == expected)
    assert buzz.states[2].timestamp >= 0.2  # on longer than tile_seen's


def test_gpio_no_buzzer_is_silent(factory, gpio):
    controls = gpio(pins={"BUZZER": None})
    controls.beep("error")  # nothing, no error
    assert controls.buzzer is None
    with pytest.raises(ValueError, match="unknown beep"):
        controls.beep("fanfare")


# -- gpio: status and life cycle ----------------------------------------------


def test_gpio_status_ready_then_closed(factory, gpio):
    controls = gpio()
    assert controls.status == Status(READY, controls.status.message)
    assert "CONFIRM=17" in controls.status.message
    controls.close()
    assert controls.status.state == WAITING
    assert controls.closed


def test_gpio_close_releases_pins(factory):
    first = open_controls("gpio", bounce_time=0)
    with pytest.raises(ControlsUnavailable):
        open_controls("gpio", bounce_time=0)  # pins still held
    first.close()
    first.close()  # idempotent
    with open_controls("gpio", bounce_time=0) as second:
        tap(factory, second, NEXT)
        assert second.events(timeout=TIMEOUT).button == NEXT
    assert second.closed


def test_gpio_closed_controls_ignore_presses(factory):
    controls = open_controls("gpio", bounce_time=0)
    controls.close()
    pin(factory, NEXT).drive_low()
    pin(factory, NEXT).drive_high()
    assert controls.events(timeout=0.05) is None


def test_gpio_close_wakes_blocked_reader(factory):
    controls = open_controls("gpio", bounce_time=0)
    got = []
    reader = threading.Thread(target=lambda: got.append(controls.events()))
    reader.start()
    time.sleep(0.02)
    controls.close()
    reader.join(TIMEOUT)
    assert not reader.is_alive() and got == [None]


def test_gpio_without_pins_raises_clear_error(monkeypatch):
    from gpiozero.exc import BadPinFactory

    def no_pins():
        raise BadPinFactory("Unable to load any default pin factory!")

    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setattr(Device, "ensure_pin_factory", staticmethod(no_pins))
    with pytest.raises(ControlsUnavailable, match="no GPIO pins.*TABLETOP_CONTROLS"):
        open_controls("gpio")
    assert ctl.gpio_available() is False


# -- keyboard (real pseudo-terminal) -----------------------------------------


@pytest.fixture
def pty():
    master, slave = os.openpty()
    yield master, slave
    os.close(master)
    os.close(slave)


def test_keyboard_keys_on_a_pty(pty):
    master, slave = pty
    with open_controls("keyboard", fd=slave) as controls:
        assert isinstance(controls, KeyboardControls)
        for key in (b"c", b"U", b" "):
            os.write(master, key)
        events = [controls.events(timeout=TIMEOUT) for _ in range(3)]
    assert [(e.button, e.kind) for e in events] == [
        (CONFIRM, PRESS),
        (UNDO, LONG_PRESS),
        (NEXT, PRESS),
    ]


def test_keyboard_full_keymap(pty):
    master, slave = pty
    with open_controls("keyboard", fd=slave) as controls:
        os.write(master, b"\ru\x7fnCN\x1b[Ax")  # arrow key and x ignored
        events = drain(controls, quiet=0.3)
    assert [(e.button, e.kind) for e in events] == [
        (CONFIRM, PRESS),
        (UNDO, PRESS),
        (UNDO, PRESS),
        (NEXT, PRESS),
        (CONFIRM, LONG_PRESS),
        (NEXT, LONG_PRESS),
    ]


def test_keyboard_cbreak_mode_and_restore(pty):
    _master, slave = pty
    before = termios.tcgetattr(slave)
    assert before[3] & termios.ICANON
    controls = open_controls("keyboard", fd=slave)
    during = termios.tcgetattr(slave)
    assert not during[3] & termios.ICANON and not during[3] & termios.ECHO
    controls.close()
    assert termios.tcgetattr(slave) == before
    assert not controls._thread.is_alive()


def test_keyboard_status_line_for_light_and_beep(pty):
    _master, slave = pty
    out = io.StringIO()
    with open_controls("keyboard", fd=slave, output=out) as controls:
        controls.show("waiting")
        controls.beep("error")
        assert controls.status.state == READY
        assert "light waiting" in controls.status.message
        assert "beep error" in controls.status.message
    text = out.getvalue()
    assert "light waiting" in text and "\a\a" in text


def test_keyboard_input_closed_is_a_fault():
    reader, writer = os.pipe()
    controls = KeyboardControls(fd=reader)
    os.close(writer)
    assert wait_for(lambda: controls.status.state == FAULT)
    assert "keyboard input closed" in controls.status.message
    controls.close()
    os.close(reader)


def test_keyboard_closed_pty_fd_is_a_fault_not_a_dead_thread():
    """The slave fd is closed under the reader: its next select() raises EBADF."""
    master, slave = os.openpty()
    closed = []

    def close_slave(event):  # runs on the reader thread, between two select() calls
        if not closed:
            os.close(slave)
            closed.append(event)

    try:
        controls = KeyboardControls(fd=slave, on_event=close_slave)
        os.write(master, b"n")
        assert controls.events(timeout=TIMEOUT).button == NEXT
        assert wait_for(lambda: not controls._thread.is_alive())  # ended, not hung
        assert controls.status.state == FAULT
        assert "keyboard input closed" in controls.status.message
        controls.show("ready")  # a FAULT is not painted over by the status line
        assert controls.status.state == FAULT
        controls.close()  # restoring the closed terminal does not raise
        assert controls.closed
    finally:
        os.close(master)
        if not closed:
            os.close(slave)


def test_keyboard_bad_fd_in_select_is_a_fault(monkeypatch):
    """select() raising (OSError or ValueError) ends the reader with a FAULT."""
    from hardware.controls import keyboard

    reader, writer = os.pipe()
    errors = iter([ValueError("file descriptor cannot be a negative integer (-1)")])

    class BadSelect:
        @staticmethod
        def select(*args):
            raise next(errors)

    monkeypatch.setattr(keyboard, "select", BadSelect)
    try:
        controls = KeyboardControls(fd=reader)
        assert wait_for(lambda: not controls._thread.is_alive())
        assert controls.status == Status(
            FAULT, "keyboard input closed (file descriptor cannot be a negative integer (-1))"
        )
        controls.close()
    finally:
        os.close(reader)
        os.close(writer)


# -- mock ---------------------------------------------------------------------


def test_mock_press_and_record():
    seen = []
    with open_controls("mock", on_event=seen.append) as controls:
        assert isinstance(controls, MockControls)
        controls.press("confirm")
        controls.press(NEXT, long=True)
        controls.show("fault")
        controls.beep("tile_seen")
        first, second = controls.events(timeout=1), controls.get_event(timeout=1)
        assert (first.button, first.kind) == (CONFIRM, PRESS)
        assert (second.button, second.kind) == (NEXT, LONG_PRESS)
        assert seen == [first, second]
        assert controls.shown == ["fault"] and controls.light == "fault"
        assert controls.beeps == ["tile_seen"]
        assert controls.events(timeout=0) is None
        with pytest.raises(ValueError, match="unknown button"):
            controls.press("SELECT")


def test_mock_remembers_only_the_last_lights_and_beeps():
    """A laptop table runs on the mock for hours: its record stays small."""
    from hardware.controls.base import MOCK_MEMORY

    with open_controls("mock") as controls:
        for turn in range(3 * MOCK_MEMORY):
            controls.show("waiting" if turn % 2 else "ready")
            controls.beep("error" if turn == 3 * MOCK_MEMORY - 1 else "tile_seen")
        assert len(controls.shown) == len(controls.beeps) == MOCK_MEMORY
        assert controls.beeps[-1] == "error" and controls.light == "waiting"


def test_mock_status_can_report_fault():
    controls = MockControls()
    assert controls.status.ok
    controls.set_status(Status(FAULT, "buttons: cable loose"))
    assert not controls.status.ok


def test_mock_events_are_thread_safe():
    controls = MockControls()
    threads = [
        threading.Thread(target=lambda: [controls.press(UNDO) for _ in range(200)])
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(drain(controls, quiet=0.05)) == 800


# -- choosing a backend -------------------------------------------------------


def test_unknown_backend_refused_with_the_list_of_backends():
    with pytest.raises(ValueError) as refused:
        open_controls("joystick", hold_time=1.5, pins=None, url=None)
    assert str(refused.value) == (
        "unknown controls backend 'joystick'; backends are gpio, keyboard, panel, mock"
    )
    assert ctl.backend_names() == ("gpio", "keyboard", "panel", "mock")


def test_env_var_picks_backend(monkeypatch):
    monkeypatch.setenv("TABLETOP_CONTROLS", "mock")
    with open_controls() as controls:
        assert isinstance(controls, MockControls)


def test_auto_uses_gpio_when_a_pin_factory_is_set(factory, monkeypatch):
    monkeypatch.delenv("TABLETOP_CONTROLS", raising=False)
    with open_controls(None, bounce_time=0, fd=99) as controls:  # fd dropped
        assert isinstance(controls, GpioControls)


def _no_gpio(monkeypatch):
    monkeypatch.delenv("TABLETOP_CONTROLS", raising=False)
    monkeypatch.setattr(ctl, "gpio_available", lambda: False)


def test_auto_falls_back_to_mock_without_gpio_or_tty(monkeypatch):
    _no_gpio(monkeypatch)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    with open_controls(None, pins={"LED": 4}, hold_time=0.1, url="loop://") as controls:
        assert isinstance(controls, MockControls)


def test_auto_falls_back_to_keyboard_on_a_tty(monkeypatch, pty):
    _no_gpio(monkeypatch)
    master, slave = pty
    terminal = os.fdopen(os.dup(slave), "r")
    monkeypatch.setattr(sys, "stdin", terminal)
    try:
        with open_controls() as controls:
            assert isinstance(controls, KeyboardControls)
            os.write(master, b"n")
            assert controls.events(timeout=TIMEOUT).button == NEXT
    finally:
        terminal.close()


def test_auto_without_pins_on_this_machine_never_raises(monkeypatch):
    from gpiozero.exc import BadPinFactory

    def no_pins():
        raise BadPinFactory("Unable to load any default pin factory!")

    monkeypatch.delenv("TABLETOP_CONTROLS", raising=False)
    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setattr(Device, "ensure_pin_factory", staticmethod(no_pins))
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    with open_controls() as controls:
        assert isinstance(controls, MockControls)


def test_auto_never_picks_the_panel(monkeypatch, pty):
    _no_gpio(monkeypatch)
    _master, slave = pty
    monkeypatch.setenv("TABLETOP_PANEL", os.ttyname(slave))  # configured, not asked for
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    with open_controls() as controls:
        assert isinstance(controls, MockControls)
    monkeypatch.setenv("TABLETOP_CONTROLS", "auto")
    with open_controls() as controls:
        assert isinstance(controls, MockControls)


def test_panel_backend_through_the_environment(monkeypatch, pty):
    master, slave = pty
    import tty

    tty.setraw(slave)
    monkeypatch.setenv("TABLETOP_CONTROLS", "panel")
    monkeypatch.setenv("TABLETOP_PANEL", os.ttyname(slave))
    with open_controls(None) as controls:
        assert isinstance(controls, ctl.PanelControls)
        assert wait_for(lambda: controls.panel.connected)
        os.write(master, b"HELLO 1.0\nP CONFIRM\n")
        event = controls.events(timeout=TIMEOUT)
        assert event == ButtonEvent(CONFIRM, PRESS, event.time)
        assert wait_for(lambda: controls.status == Status(READY, "panel ready"))


def test_panel_backend_without_pyserial_is_unavailable(monkeypatch):
    monkeypatch.setitem(sys.modules, "hardware.controls.serial_panel", None)  # import fails
    with pytest.raises(ControlsUnavailable, match="pyserial"):
        open_controls("panel", url="loop://")


# -- the registry: one call for every backend -----------------------------------

#: The table-wide settings the runner gives whatever the kind: each backend reads
#: only its own (gpio: hold_time and pins; panel: url; keyboard, mock: none).
SWAPPED = {"CONFIRM": 5, "UNDO": 6, "NEXT": 13, "LED": 19, "BUZZER": None}
EVERYTHING = {"hold_time": 0.05, "pins": SWAPPED, "url": "loop://"}


@pytest.fixture
def registry(monkeypatch):
    """A copy of the registry, so backends registered by a test go away after it."""
    monkeypatch.setattr(ctl, "BACKENDS", dict(ctl.BACKENDS))
    return ctl.BACKENDS


def test_gpio_through_the_one_call_reads_hold_time_and_pins(factory):
    with open_controls("gpio", **EVERYTHING) as controls:
        assert isinstance(controls, GpioControls) and controls.pins == SWAPPED
        factory.pin(13).drive_low()  # NEXT on its configured pin, held past 0.05 s
        event = controls.events(timeout=TIMEOUT)
        assert (event.button, event.kind) == (NEXT, LONG_PRESS)
        factory.pin(13).drive_high()


def test_keyboard_through_the_one_call_reads_the_terminal(monkeypatch, pty):
    master, slave = pty
    terminal = os.fdopen(os.dup(slave), "r")
    monkeypatch.setattr(sys, "stdin", terminal)
    try:
        with open_controls("keyboard", **EVERYTHING) as controls:
            assert isinstance(controls, KeyboardControls)
            os.write(master, b"U")
            event = controls.events(timeout=TIMEOUT)
            assert (event.button, event.kind) == (UNDO, LONG_PRESS)
    finally:
        terminal.close()


def test_panel_through_the_one_call_reads_the_url():
    with open_controls("panel", **EVERYTHING) as controls:
        assert isinstance(controls, ctl.PanelControls) and controls.url == "loop://"
        assert wait_for(lambda: controls.panel.connected)
        controls.panel.feed(b"HELLO 1.0\nP CONFIRM\n")
        event = controls.events(timeout=TIMEOUT)
        assert (event.button, event.kind) == (CONFIRM, PRESS)
        assert controls.status == Status(READY, "panel ready")


def test_mock_through_the_one_call_reads_nothing():
    with open_controls("mock", **EVERYTHING) as controls:
        assert isinstance(controls, MockControls)
        controls.press(NEXT)
        assert controls.events(timeout=TIMEOUT).button == NEXT


def test_panel_without_a_url_falls_back_to_the_environment(monkeypatch):
    monkeypatch.setenv("TABLETOP_PANEL", "loop://")
    with open_controls("panel", hold_time=1.5, pins=None, url=None) as controls:
        assert controls.url == "loop://"
    monkeypatch.delenv("TABLETOP_PANEL")
    with pytest.raises(ControlsUnavailable, match="need a serial port"):
        open_controls("panel", url=None)


def test_each_builtin_backend_declares_what_its_factory_takes():
    factories = {"gpio": GpioControls, "keyboard": KeyboardControls,
                 "panel": ctl.PanelControls, "mock": MockControls}
    for name, backend in ctl.BACKENDS.items():
        assert isinstance(backend, ctl.Backend) and backend.name == name
        takes = inspect.signature(factories[name]).parameters
        assert backend.options == frozenset(takes), name


def test_an_explicit_kind_refuses_an_option_it_does_not_read():
    with pytest.raises(TypeError, match=r"mock controls take no option fd \(they take: on_event\)"):
        open_controls("mock", fd=0)


def test_a_backend_registered_at_run_time_is_reachable(registry):
    class Pedal(MockControls):
        kind = "pedal"

        def __init__(self, *, hold_time: float = 1.5, on_event=None) -> None:
            super().__init__(on_event=on_event)
            self.hold_time = hold_time

    entry = ctl.register_backend("Pedal", Pedal)
    assert entry == ctl.Backend("pedal", Pedal, frozenset({"hold_time", "on_event"}))
    assert ctl.backend_names()[-1] == "pedal"
    with open_controls("PEDAL", **EVERYTHING) as controls:  # pins and url dropped
        assert isinstance(controls, Pedal) and controls.hold_time == 0.05
    with pytest.raises(ValueError, match="backends are gpio, keyboard, panel, mock, pedal$"):
        open_controls("pedals")


def test_a_registered_backend_may_declare_its_options(registry):
    seen = []

    def foot_switch(**options):  # takes anything: the declaration decides
        seen.append(options)
        return MockControls()

    ctl.register_backend("foot", foot_switch, options=["url"])
    open_controls("foot", **EVERYTHING).close()
    assert seen == [{"url": "loop://"}]
    ctl.register_backend("any", foot_switch)  # undeclared **options: every one
    open_controls("any", **EVERYTHING).close()
    assert seen[-1] == EVERYTHING


def test_register_backend_replaces_a_builtin(registry):
    ctl.register_backend("Panel", MockControls)
    with open_controls("PANEL") as controls:
        assert isinstance(controls, MockControls)
