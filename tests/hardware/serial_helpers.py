"""Helpers the serial-device tests share (printer, panel)."""

from __future__ import annotations

import time

import serial


def wait_until(predicate, timeout: float = 60.0) -> bool:
    """Poll ``predicate`` until it holds or ``timeout`` passes; its last answer."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.005)
    return predicate()


def recording_opener():
    """A real pyserial opener that also keeps every port it opened: ``(opener, ports)``."""
    ports = []

    def opener(url, **kw):
        ports.append(serial.serial_for_url(url, **kw))
        return ports[-1]

    return opener, ports
