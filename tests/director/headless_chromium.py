"""Debian's chromium, headless, for the tests of the director's screen.

Two ways in: :func:`run` (the command line's ``--dump-dom`` / ``--screenshot``, one page
load each), and :class:`Browser`, which keeps one page open and speaks the DevTools
protocol over ``--remote-debugging-pipe`` (file descriptors 3 and 4, messages ended by a
NUL byte): a page left open shows what it fetched by itself, without a reload.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--mute-audio"]


def need_chromium() -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing (Debian: apt-get install chromium; "
                    f"./scripts/test installs it)")


def run(url: str, profile: Path, *extra: str, timeout: float = 90) -> str:
    """One page load with ``extra`` flags; what chromium printed (the DOM, for --dump-dom)."""
    need_chromium()
    done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *extra, url],
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _high(pair: tuple[int, int]) -> tuple[int, int]:
    """A pipe's ends moved above 9, where dup2 onto 3 and 4 cannot overwrite one of them."""
    moved = tuple(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in pair)
    for fd in pair:
        os.close(fd)
    return moved[0], moved[1]


class Browser:
    """One headless chromium with one page, driven over the DevTools pipe."""

    def __init__(self, profile: Path, width: int = 1280, height: int = 720) -> None:
        need_chromium()
        to_child, self._out = _high(os.pipe())    # chromium reads commands on its fd 3
        self._in, from_child = _high(os.pipe())   # and answers on its fd 4

        def descriptors() -> None:                # in the child: dup2 leaves them inherited
            os.dup2(to_child, 3)
            os.dup2(from_child, 4)

        # close_fds=False: the pipes' own ends are close-on-exec, fds 3 and 4 are not.
        self.process = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
             "--remote-debugging-pipe", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=False,
            preexec_fn=descriptors)
        os.close(to_child)
        os.close(from_child)
        self._next, self._buffer = 0, b""
        page = next(t for t in self.call("Target.getTargets")["targetInfos"]
                    if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"],
                                 flatten=True)["sessionId"]
        self.size(width, height)

    def call(self, method: str, session: str | None = None, timeout: float = 30,
             **params: Any) -> dict[str, Any]:
        """Send one command; its result (events meanwhile are passed over)."""
        self._next += 1
        message = {"id": self._next, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        os.write(self._out, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                answer = json.loads(raw)
                if answer.get("id") == self._next:
                    if "error" in answer:
                        raise AssertionError(f"{method}: {answer['error']}")
                    return answer["result"]
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._in], [], [], left)[0]:
                raise AssertionError(f"chromium did not answer {method}")
            chunk = os.read(self._in, 1 << 20)
            if not chunk:
                raise AssertionError(f"chromium ended while answering {method}")
            self._buffer += chunk

    def page(self, method: str, **params: Any) -> dict[str, Any]:
        return self.call(method, session=self.session, **params)

    def size(self, width: int, height: int) -> None:
        self.page("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    def open(self, url: str) -> None:
        self.page("Page.enable")
        self.page("Page.navigate", url=url)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (a promise is awaited)."""
        result = self.page("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 20) -> Any:
        """Wait until ``expression`` is true in the page (real time: the page's own timers)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                value = self.evaluate(expression)
            except AssertionError:       # the page not there yet (loading)
                value = None
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"the page never showed {expression}")
            time.sleep(0.2)

    def screenshot(self, path: Path) -> Path:
        data = self.page("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=5)
        except (AssertionError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._out)
        os.close(self._in)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
