"""Kivy's clock counted in frames, not read from the wall, for the UI tests.

Kivy times everything by its clock: an animation's progress is the time between
frames, a ``Clock.schedule_once(f, 0.2)`` fires once 0.2 s have passed, a
ScrollView hands a tap on after its timeout. Read from the wall, the same test
sees a popup open in eight frames on a quiet machine and in one on a loaded one,
and a tap lands on a button that is not laid out yet. With :func:`install`, each
frame is :data:`FRAME` seconds of the clock's time and the clock never sleeps:
a test is the same sequence of frames however busy the machine is, only slower.

The UI tests' conftest installs it in the test process; scripts that the tests
run in a subprocess (a fresh window) install it themselves before the app starts.
"""

from __future__ import annotations

import itertools

#: One frame's worth of the clock's time (60 frames a second, Kivy's default maxfps).
FRAME = 1 / 60


def install() -> None:
    """From now on every frame of Kivy's clock is exactly :data:`FRAME` seconds."""
    from kivy.clock import Clock

    if getattr(Clock, "counted_in_frames", False):
        return
    start = Clock._last_tick
    count = itertools.count(1)

    def idle() -> float:
        # What the clock's own idle() does, but the time is the frame's number: no wall
        # read, and no sleep to keep to maxfps (nothing is shown to anyone).
        current = start + next(count) * FRAME
        Clock._dt = current - Clock._last_tick
        Clock._last_tick = current
        return current

    Clock.time = lambda: Clock._last_tick
    Clock.idle = idle
    Clock.counted_in_frames = True


def frames_for(seconds: float) -> int:
    """How many frames make ``seconds`` of the clock's time (at least one)."""
    return max(1, round(seconds / FRAME))
