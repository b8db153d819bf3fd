"""The window: the whole screen it opens on, and the layout scaled to that screen.

Every size in the screens' layouts is in ``dp``/``sp``, drawn for the smallest
supported panel (800x480, the first official 7" display). On a larger screen
the metrics grow with it, so a 1920x1080 panel shows the same layout, larger,
not a small one in a corner.

>>> scale_for(800, 480), scale_for(1280, 720), scale_for(1024, 600), scale_for(1920, 1080)
(1.0, 1.5, 1.25, 2.25)
>>> scale_for(640, 400)
1.0
"""

from __future__ import annotations

#: The screen sizes the layouts are made and tested for (landscape, after any rotation).
SIZES = ((800, 480), (1024, 600), (1280, 720), (1920, 1080))
#: The panel the layouts are drawn for.
BASE = (800, 480)


def scale_for(width: int, height: int) -> float:
    """How much larger than the base panel the layout is drawn (never smaller)."""
    return max(1.0, round(min(width / BASE[0], height / BASE[1]), 2))


def fit(width: int, height: int) -> None:
    """Make the window ``width`` x ``height`` and scale the layout to it."""
    from kivy.core.window import Window
    from kivy.metrics import Metrics

    Metrics.density = scale_for(width, height)
    Window.size = (width, height)
