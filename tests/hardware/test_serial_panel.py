"""The serial button panel: line protocol over real ptys and loop://, noise and unplugging."""

from __future__ import annotations

import os
import re
import select
import threading
import time
import tty
from pathlib import Path

import pytest
import serial

from hardware.controls import (
    BACKENDS,
    LIGHTS,
    LONG_PRESS,
    PRESS,
    ButtonEvent,
    ControlsUnavailable,
    open_controls,
)
from hardware.controls.base import DEFAULT_HOLD_TIME
from hardware.controls.serial_panel import PanelControls
from hardware.controls.serial_panel import (
    LONG_PRESS_TIME,
    GarbledLine,
    Hello,
    LineSplitter,
    PanelEvent,
    SerialPanel,
    command_bytes,
    parse_line,
)
from hardware.status import FAULT, READY, WAITING, Status
from serial_helpers import recording_opener, wait_until

PANEL_MD = Path(__file__).resolve().parents[2] / "hardware" / "PANEL.md"
CONNECTED = Status(WAITING, "panel connected; waiting for HELLO")


class FakeBoard:
    """The microcontroller's end of a pseudo-terminal."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.url = os.ttyname(self.slave)
        self.closed = False

    def send(self, data: bytes) -> None:
        os.write(self.master, data)

    def expect(self, size: int, timeout: float = 60.0) -> bytes:
        """Read exactly ``size`` bytes the host wrote (or fewer on timeout)."""
        got = b""
        deadline = time.monotonic() + timeout
        while len(got) < size and time.monotonic() < deadline:
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if ready:
                got += os.read(self.master, size - len(got))
        return got

    def quiet(self, timeout: float = 0.2) -> bool:
        """True if the host writes nothing for ``timeout`` seconds."""
        ready, _, _ = select.select([self.master], [], [], timeout)
        return not ready

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            os.close(self.master)
            os.close(self.slave)


@pytest.fixture
def board():
    fake = FakeBoard()
    yield fake
    fake.close()


@pytest.fixture
def panel(board):
    p = SerialPanel(board.url, reconnect_interval=0.05, clock=lambda: 7.0)
    assert wait_until(lambda: p.connected)
    yield p
    p.close()


# -- pure parts -------------------------------------------------------------

def test_parse_line_grammar():
    assert parse_line(b"P CONFIRM", 1.0) == PanelEvent("CONFIRM", "press", 1.0)
    assert parse_line(b"L NEXT") == PanelEvent("NEXT", "long_press", 0.0)
    assert parse_line(b"p undo\r") == PanelEvent("UNDO", "press", 0.0)
    assert parse_line(b"HELLO 2.1") == Hello("2.1")
    assert parse_line(b"") is None and parse_line(b"  \r") is None
    for bad in (b"P FIRE", b"X CONFIRM", b"P", b"HELLO", b"P CONFIRM NOW",
                b"P\tCONFIRM", b"\xffP CONFIRM", b"P CON\x00FIRM"):
        with pytest.raises(GarbledLine):
            parse_line(bad)


def test_command_bytes_are_exact_and_checked():
    assert command_bytes("LED", "waiting") == b"LED WAITING\n"
    assert command_bytes("BEEP", "SHORT") == b"BEEP SHORT\n"
    with pytest.raises(ValueError):
        command_bytes("LED", "purple")
    with pytest.raises(ValueError):
        command_bytes("BEEP", "forever")


def test_line_splitter_partial_and_overlong():
    s = LineSplitter(max_line=256)
    assert s.feed(b"P CON") == []
    assert s.feed(b"FIRM\nL UN") == [b"P CONFIRM"]
    assert s.feed(b"DO\n") == [b"L UNDO"]
    assert s.feed(b"x" * 256 + b"\n") == [b"x" * 256]  # exactly the limit is fine
    assert s.feed(b"y" * 200) == [] and s.feed(b"y" * 57) == []  # 257: dropped
    assert s.feed(b"y" * 1000) == []
    assert s.feed(b"yy\nP NEXT\n") == [b"P NEXT"]
    assert s.overlong == 1


# -- over a real pty ---------------------------------------------------------

def test_partial_line_across_two_writes(board, panel):
    board.send(b"P CONF")
    assert panel.get_event(timeout=0.2) is None  # half a line is not an event
    board.send(b"IRM\n")
    assert panel.get_event(timeout=5) == PanelEvent("CONFIRM", "press", 7.0)
    assert panel.garbled == 0 and panel.status == Status(READY, "panel ready")


def test_several_lines_in_one_write_keep_their_order(board, panel):
    board.send(b"P NEXT\nL UNDO\r\nP CONFIRM\n")
    events = [panel.get_event(timeout=5) for _ in range(3)]
    assert [(e.button, e.kind) for e in events] == [
        ("NEXT", "press"), ("UNDO", "long_press"), ("CONFIRM", "press")]
    assert panel.get_event(timeout=0) is None


def test_garbled_bytes_are_counted_not_fatal(board, panel):
    board.send(b"\xff\xfe\x00\x1b[2J\n")
    board.send(b"P NEXT\n")
    assert panel.get_event(timeout=5) == PanelEvent("NEXT", "press", 7.0)
    assert panel.garbled == 1
    assert panel.status == Status(READY, "panel ready; 1 garbled line ignored")


def test_overlong_line_is_dropped_until_its_newline(board, panel):
    board.send(b"A" * 200)
    board.send(b"B" * 200)  # 400 bytes and still no newline
    board.send(b"P CONFIRM\nL UNDO\n")  # the tail of the long line, then a good line
    assert panel.get_event(timeout=5) == PanelEvent("UNDO", "long_press", 7.0)
    assert panel.get_event(timeout=0) is None
    assert panel.garbled == 1


def test_unknown_words_are_counted(board, panel):
    board.send(b"P FIRE\nX CONFIRM\nP\nP CONFIRM NOW\nHELLO\n\n")
    board.send(b"L NEXT\n")
    assert panel.get_event(timeout=5) == PanelEvent("NEXT", "long_press", 7.0)
    assert panel.garbled == 5  # the blank line is not counted
    assert panel.status == Status(READY, "panel ready; 5 garbled lines ignored")


def test_led_and_beep_commands_exact_bytes(board, panel):
    assert panel.show("ready")
    assert board.expect(10) == b"LED READY\n"
    assert panel.show(Status(WAITING, "printer: out of paper"))
    assert board.expect(12) == b"LED WAITING\n"
    assert panel.show(Status(FAULT, "camera unplugged"))
    assert board.expect(10) == b"LED FAULT\n"
    assert panel.show("OFF")
    assert board.expect(8) == b"LED OFF\n"
    assert panel.beep() and panel.beep("long")
    assert board.expect(21) == b"BEEP SHORT\nBEEP LONG\n"
    with pytest.raises(ValueError):
        panel.show("blink")
    assert board.quiet()


def test_hello_records_version_and_resends_the_led(board, panel):
    panel.show("waiting")
    assert board.expect(12) == b"LED WAITING\n"
    board.send(b"HELLO 1.0\n")  # the board rebooted and forgot its LED
    assert board.expect(12) == b"LED WAITING\n"
    assert panel.version == "1.0"
    assert panel.get_event(timeout=0) is None


# -- unplugging ---------------------------------------------------------------

def test_missing_port_is_a_fault_with_reconnect_attempts():
    board = FakeBoard()
    calls = []
    plugged = threading.Event()
    seen = []

    def opener(url, **kw):
        calls.append(url)
        if not plugged.is_set():
            raise serial.SerialException(f"could not open port {url}")
        return serial.serial_for_url(board.url, **kw)

    panel = SerialPanel("/dev/nonexistent-panel", reconnect_interval=0.02,
                        opener=opener, on_status=seen.append)
    try:
        assert wait_until(lambda: len(calls) >= 3)  # keeps trying
        assert panel.status == Status(FAULT, "panel unplugged")
        assert panel.show("fault") is False  # remembered, not raised
        assert panel.beep() is False
        plugged.set()
        assert wait_until(lambda: panel.connected)
        assert board.expect(10) == b"LED FAULT\n"  # the remembered LED state
        assert panel.status == CONNECTED  # open, but nothing heard yet
        board.send(b"P CONFIRM\n")
        assert panel.get_event(timeout=5).button == "CONFIRM"
        assert seen == [Status(FAULT, "panel unplugged"), CONNECTED,
                        Status(READY, "panel ready")]
    finally:
        panel.close()
        board.close()


def test_unplugged_mid_session_then_replugged():
    first, second = FakeBoard(), FakeBoard()
    attached = [first]  # the board behind /dev/ttyACM0, None while unplugged

    def opener(url, **kw):
        if attached[0] is None:
            raise serial.SerialException(f"could not open port {url}")
        return serial.serial_for_url(attached[0].url, **kw)

    panel = SerialPanel("/dev/ttyACM0", reconnect_interval=0.02, opener=opener)
    try:
        assert wait_until(lambda: panel.connected)
        first.send(b"P UNDO\n")
        assert panel.get_event(timeout=5).button == "UNDO"
        attached[0] = None
        first.close()  # cable pulled
        assert wait_until(lambda: panel.status == Status(FAULT, "panel unplugged"))
        panel.show("ready")
        attached[0] = second
        assert wait_until(lambda: panel.connected)
        assert second.expect(10) == b"LED READY\n"
        assert panel.status == CONNECTED  # a new connection waits for HELLO again
        second.send(b"HELLO 2.0\n")
        assert wait_until(lambda: panel.status == Status(READY, "panel ready"))
        assert second.expect(10) == b"LED READY\n"  # re-sent after HELLO
        second.send(b"L CONFIRM\n")
        assert panel.get_event(timeout=5) is not None
        assert panel.reconnects == 2 and panel.version == "2.0"
    finally:
        panel.close()
        second.close()


# -- loop:// and lifecycle -------------------------------------------------------

def test_loop_url_delivers_what_is_written_to_it():
    opener, ports = recording_opener()

    panel = SerialPanel("loop://", opener=opener)
    try:
        assert wait_until(lambda: panel.connected)
        ports[0].write(b"P NEXT\n")
        assert panel.get_event(timeout=5).button == "NEXT"
        panel.show("ready")  # echoed back by loop:// - not a panel line
        assert wait_until(lambda: panel.garbled == 1)
    finally:
        panel.close()


def test_close_stops_the_daemon_thread(board):
    panel = SerialPanel(board.url)
    thread = panel._thread
    assert thread is not None and thread.daemon
    assert wait_until(lambda: panel.connected)
    panel.close()
    assert not thread.is_alive() and not panel.connected
    assert panel.show("ready") is False  # closed: no write, no exception


def test_feed_without_a_thread():
    panel = SerialPanel("loop://", start=False, clock=lambda: 3.0)
    assert panel.status == Status(WAITING, "panel: not started")
    panel.feed(b"L NE")
    panel.feed(b"XT\n\xff\n")
    assert panel.get_event(timeout=0) == PanelEvent("NEXT", "long_press", 3.0)
    assert panel.garbled == 1
    panel.close()


# -- status: an open port is not yet a panel -------------------------------------

def test_open_port_is_waiting_until_hello(board, panel):
    assert panel.status == CONNECTED and not panel.alive
    board.send(b"HELLO 1.0\n")
    assert wait_until(lambda: panel.status == Status(READY, "panel ready"))
    assert panel.alive and panel.version == "1.0"


def test_wrong_device_on_the_port_stays_waiting(board, panel):
    board.send(b"AT+GMR\r\nOK\r\n$GPGGA,123519,4807.038,N\n")  # a modem, a GPS...
    assert wait_until(lambda: panel.garbled == 3)
    assert panel.status == Status(
        WAITING, "panel connected; waiting for HELLO; 3 garbled lines ignored")
    assert panel.get_event(timeout=0) is None


def test_firmware_without_hello_is_ready_after_its_first_valid_line(board):
    seen = []
    panel = SerialPanel(board.url, reconnect_interval=0.05, on_status=seen.append)
    try:
        assert wait_until(lambda: panel.connected)
        assert panel.status == CONNECTED
        board.send(b"P NEXT\n")
        assert panel.get_event(timeout=5).button == "NEXT"
        # published before the event was handed out: no wait needed
        assert seen[-1] == Status(READY, "panel ready") and panel.version is None
    finally:
        panel.close()


def test_on_event_callback_replaces_the_queue(board):
    got = []
    panel = SerialPanel(board.url, reconnect_interval=0.05, clock=lambda: 4.0,
                        on_event=got.append)
    try:
        assert wait_until(lambda: panel.connected)
        board.send(b"P UNDO\nL NEXT\n")
        assert wait_until(lambda: len(got) == 2)
        assert got == [PanelEvent("UNDO", "press", 4.0), PanelEvent("NEXT", "long_press", 4.0)]
        assert panel.get_event(timeout=0) is None
    finally:
        panel.close()


# -- PANEL.md agrees with the code ---------------------------------------------------

def test_long_press_time_is_the_gpio_hold_time():
    text = PANEL_MD.read_text()
    assert LONG_PRESS_TIME == DEFAULT_HOLD_TIME == 1.5
    sketch = re.search(r"LONG_MS = (\d+);", text)
    assert sketch and int(sketch.group(1)) == round(DEFAULT_HOLD_TIME * 1000)
    assert "held for 1.5 s" in text and "DEFAULT_HOLD_TIME" in text
    assert "800" not in text


def test_led_fault_is_off_in_the_protocol():
    text = PANEL_MD.read_text()
    assert "| `LED FAULT` | LED off |" in text
    assert "| `LED READY` | LED steady on" in text and "| `LED WAITING` | LED blinking" in text
    assert "fast blink" not in text and "led = FAULT" not in text
    assert 'if (!strcmp(cmd, "LED FAULT")) led = OFF;' in text
    assert LIGHTS["fault"] is False and LIGHTS["off"] is False  # GPIO: the same


# -- the panel as a controls backend -------------------------------------------------

@pytest.fixture
def controls(board):
    c = open_controls("panel", url=board.url, reconnect_interval=0.05)
    assert wait_until(lambda: c.panel.connected)
    yield c
    c.close()


def test_panel_backend_is_registered():
    assert "panel" in BACKENDS
    import hardware.controls as ctl

    assert ctl.PanelControls is PanelControls


def test_panel_controls_events_are_button_events(board, controls):
    assert isinstance(controls, PanelControls) and controls.kind == "panel"
    seen = []
    controls.on_event = seen.append
    before = time.monotonic()
    board.send(b"P CONFIRM\nL UNDO\n")
    first, second = controls.events(timeout=5), controls.get_event(timeout=5)
    assert type(first) is ButtonEvent and type(second) is ButtonEvent
    assert (first.button, first.kind) == ("CONFIRM", PRESS)
    assert (second.button, second.kind) == ("UNDO", LONG_PRESS)
    assert before <= first.time <= second.time <= time.monotonic()
    assert seen == [first, second]
    assert controls.events(timeout=0.05) is None
    assert controls.panel.get_event(timeout=0) is None  # not queued twice


def test_panel_controls_light_and_beeps(board, controls):
    for state, line in (("ready", b"LED READY\n"), ("waiting", b"LED WAITING\n"),
                        ("fault", b"LED FAULT\n"), ("off", b"LED OFF\n")):
        controls.show(state)
        assert board.expect(len(line)) == line
        assert controls.light == state
    controls.beep("tile_seen")
    assert board.expect(11) == b"BEEP SHORT\n"
    controls.beep("error")
    assert board.expect(10) == b"BEEP LONG\n"
    assert controls.last_beep == "error"
    with pytest.raises(ValueError, match="unknown light state"):
        controls.show("blink")
    with pytest.raises(ValueError, match="unknown beep"):
        controls.beep("short")
    assert board.quiet()


def test_panel_controls_status_is_the_panels(board, controls):
    assert controls.status == CONNECTED
    board.send(b"HELLO 1.0\n")
    assert wait_until(lambda: controls.status == Status(READY, "panel ready"))
    board.send(b"\xff\n")
    assert wait_until(lambda: controls.status.message.endswith("1 garbled line ignored"))


def test_panel_controls_unplugged_is_a_fault_and_light_is_kept():
    attached = []

    def opener(url, **kw):
        if not attached:
            raise serial.SerialException(f"could not open port {url}")
        return serial.serial_for_url(attached[0].url, **kw)

    controls = open_controls("panel", url="/dev/tabletop-panel", opener=opener,
                             reconnect_interval=0.02)
    board = FakeBoard()
    try:
        assert wait_until(lambda: controls.status == Status(FAULT, "panel unplugged"))
        controls.show("waiting")  # no exception while unplugged
        controls.beep("error")
        attached.append(board)
        assert wait_until(lambda: controls.panel.connected)
        assert board.expect(12) == b"LED WAITING\n"
    finally:
        controls.close()
        board.close()


def test_panel_controls_close_closes_the_port(board):
    opener, ports = recording_opener()

    controls = open_controls("panel", url=board.url, opener=opener, reconnect_interval=0.05)
    assert wait_until(lambda: controls.panel.connected)
    thread = controls.panel._thread
    controls.close()
    controls.close()  # idempotent
    assert not ports[0].is_open and not controls.panel.connected
    assert not thread.is_alive()
    assert controls.closed and controls.status == Status(WAITING, "panel controls closed")
    assert controls.events(timeout=1) is None
    controls.show("ready")  # closed: ignored
    assert board.quiet()


def test_panel_controls_url_from_environment(board, monkeypatch):
    monkeypatch.setenv("TABLETOP_CONTROLS", "panel")
    monkeypatch.setenv("TABLETOP_PANEL", board.url)
    with open_controls(None, reconnect_interval=0.05) as controls:
        assert isinstance(controls, PanelControls) and controls.url == board.url
        assert wait_until(lambda: controls.panel.connected)
        board.send(b"L NEXT\n")
        event = controls.events(timeout=5)
        assert (event.button, event.kind) == ("NEXT", LONG_PRESS)


def test_panel_controls_url_option_wins_over_environment(board, monkeypatch):
    monkeypatch.setenv("TABLETOP_PANEL", "/dev/nonexistent-panel")
    with open_controls("panel", url=board.url) as controls:
        assert controls.url == board.url


def test_panel_controls_without_a_url_is_unavailable(monkeypatch):
    monkeypatch.delenv("TABLETOP_PANEL", raising=False)
    with pytest.raises(ControlsUnavailable, match="TABLETOP_PANEL"):
        open_controls("panel")
