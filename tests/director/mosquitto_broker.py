"""A real Mosquitto broker for the tests, on 127.0.0.1 and a free port, that can be cut off
(killed, as a Wi-Fi drop looks to its clients) and brought back on the same port."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

MOSQUITTO = shutil.which("mosquitto") or next(
    (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if Path(p).exists()), None)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def accepting(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
    except OSError:
        return False
    return True


class Mosquitto:
    """``mosquitto -c CONFIG``: listening on 127.0.0.1 only, anonymous, nothing kept on disk
    (a restart forgets every message: only the tables' outboxes keep the slips)."""

    def __init__(self, folder: Path) -> None:
        if MOSQUITTO is None:
            pytest.skip("Mosquitto is not installed (Debian: apt-get install mosquitto; "
                        "./scripts/test installs it)")
        self.port = free_port()
        self.config = folder / "mosquitto.conf"
        self.config.write_text(f"listener {self.port} 127.0.0.1\nallow_anonymous true\n"
                               f"persistence false\n")
        self.log = folder / "mosquitto.log"
        self.process: subprocess.Popen | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen([MOSQUITTO, "-c", str(self.config)], stdout=log,
                                            stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while not accepting(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"mosquitto did not start: {self.log.read_text()}")
            time.sleep(0.05)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None
