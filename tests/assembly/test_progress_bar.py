"""The command line's progress bar (``tabletop.progress``): redrawn at most ten times a second,
with the rate and the time left, on a terminal only. Its clock is given, not waited on."""

from __future__ import annotations

import io

from tabletop.progress import ERASE, Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def drawn(terminal: Terminal) -> list[str]:
    return [text for text in terminal.getvalue().split(ERASE) if text]


def test_the_bar_shows_the_rate_and_the_time_left_and_is_redrawn_ten_times_a_second():
    terminal, clock = Terminal(), Clock()
    bar = Progress(1000, "games", "simulate", stream=terminal, clock=clock)
    clock.now += 2.0
    bar.advance(100)                       # the first is drawn at once
    clock.now += 0.06
    bar.advance(105)                       # too soon after it: not drawn
    clock.now += 0.06
    bar.advance(110)
    assert drawn(terminal) == [
        "simulate [##..................]  100/1,000 games  50 games/s  18 s left",
        "simulate [##..................]  110/1,000 games  52 games/s  17 s left"]
    clock.now += 0.01
    bar.advance(1000)                      # the end is always drawn
    assert drawn(terminal)[-1] == \
        "simulate [####################]  1,000/1,000 games  469 games/s  0 s left"
    bar.close()
    assert terminal.getvalue().endswith(ERASE)


def test_a_long_run_says_minutes_left_and_the_bar_fits_the_terminal():
    terminal, clock = Terminal(), Clock()
    with Progress(100000, "games", "simulate", stream=terminal, clock=clock) as bar:
        clock.now += 10
        bar.advance(1000)
    assert drawn(terminal) == [
        "simulate [...............]  1,000/100,000 games  100 games/s  16 min 30 s left"]
    assert terminal.getvalue().endswith(ERASE)


def test_nothing_is_drawn_where_standard_error_is_not_a_terminal():
    piped = io.StringIO()
    with Progress(10, "games", stream=piped) as bar:
        for done in range(1, 11):
            bar.advance(done)
    assert piped.getvalue() == ""
