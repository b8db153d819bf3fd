"""A one-line progress bar for long command-line runs, drawn only on a terminal.

The bar goes to standard error and only when that is a terminal: piped or
redirected output (a log, a test, ``2>file``) gets none of its carriage
returns. It is redrawn at most ten times a second, and erased when the run
ends so that the command's own report stands alone.

>>> import io
>>> bar = Progress(200, "games", stream=io.StringIO())    # not a terminal: draws nothing
>>> bar.advance(200); bar.close(); bar.stream.getvalue()
''
>>> print(line("simulate", 50, 200, 12.5, width=72))
simulate [#####...............]  50/200 games  4 games/s  38 s left
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import TextIO

#: Seconds between two redraws: often enough to look alive, rarely enough to cost nothing.
INTERVAL = 0.1
BAR = 20
ERASE = "\r\x1b[K"


class Progress:
    """``advance(done)`` as the work goes; ``close()`` (or the ``with`` block's end) erases it."""

    def __init__(self, total: int, unit: str, label: str = "", stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.total, self.unit, self.label = total, unit, label
        self.stream = sys.stderr if stream is None else stream
        self.clock = clock
        self.enabled = _is_terminal(self.stream)
        self.started = clock()
        self.drawn: float | None = None

    def advance(self, done: int) -> None:
        """``done`` of the total are finished: redraw if it is time to."""
        if not self.enabled:
            return
        now = self.clock()
        if self.drawn is not None and done < self.total and now - self.drawn < INTERVAL:
            return
        self.drawn = now
        text = line(self.label, done, self.total, now - self.started, self.unit,
                    _width(self.stream))
        self.stream.write(ERASE + text)
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.drawn is not None:
            self.stream.write(ERASE)
            self.stream.flush()
            self.drawn = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def line(label: str, done: int, total: int, seconds: float, unit: str = "games",
         width: int = 80) -> str:
    """The bar's text: how far, how fast, how long still. The bar narrows to leave the
    figures room on a narrow terminal (the last column is left free: no wrap)."""
    rate = done / seconds if seconds > 0 else 0.0
    left = _duration((total - done) / rate) if rate > 0 else "?"
    figures = f"{done:,}/{total:,} {unit}  {rate:,.0f} {unit}/s  {left} left"
    size = min(BAR, width - 1 - len(label) - len(figures) - 6)
    filled = size * done // total if total else size
    bar = f"[{'#' * filled}{'.' * (size - filled)}]  " if size >= 5 else ""
    return f"{label} {bar}{figures}".lstrip()[:max(width - 1, 0)]


def _duration(seconds: float) -> str:
    """``'38 s'``, ``'3 min 05 s'``, ``'2 h 10 min'``.

    >>> _duration(0.2), _duration(38.4), _duration(185), _duration(7800)
    ('0 s', '38 s', '3 min 05 s', '2 h 10 min')
    """
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60} min"


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):     # a closed or file-less stream
        return False


def _width(stream: TextIO) -> int:
    """The terminal's columns; 80 when it does not say (a new pseudo-terminal says 0)."""
    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (AttributeError, OSError, ValueError):
        return 80
