"""The window: the whole screen it opens on, and the layout scaled to that screen.

Every size in the screens' layouts is in ``dp``/``sp``, drawn for the smallest
supported panel (800x480, the first official 7" display). On a larger screen
the metrics grow with it, so a 1920x1080 panel shows the same layout, larger,
not a small one in a corner.

>>> scale_for(800, 480), scale_for(1280, 720), scale_for(1024, 600), scale_for(1920, 1080)
(1.0, 1.5, 1.25, 2.25)
>>> scale_for(640, 400)
1.0

On a table the app is full screen and borderless at the display's own
resolution; on a laptop ``[screen] windowed`` gives a window of a chosen size.
Either way the settings are Kivy's, made before its window is (:func:`configure`),
and the layout follows the window's size (:func:`follow`).

>>> graphics(windowed=False, size=(1280, 720), rotation=90)["fullscreen"]
'auto'
>>> graphics(windowed=True, size=(1280, 720), rotation=0)["fullscreen"]
'0'

One touch is one tap: the only input is SDL's pointer (a touchscreen's touches
reach it as the pointer, through X or XWayland). Kivy on Linux also reads the
touch device itself (``probesysfs``, with ``hidinput`` on a Pi) when the user may
open it, and every touch then arrives twice, once from each; and the blanking
that Kivy allows by default would turn the panel off in the middle of a game.

>>> INPUTS
{'mouse': 'mouse,disable_multitouch'}
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

#: The screen sizes the layouts are made and tested for (landscape, after any rotation).
SIZES = ((800, 480), (1024, 600), (1280, 720), (1920, 1080))
#: The panel the layouts are drawn for.
BASE = (800, 480)
#: Kivy's ``[input]``: the pointer alone, with no simulated second finger (a long press
#: or a right click would leave a red multitouch dot on the screen).
INPUTS = {"mouse": "mouse,disable_multitouch"}


def scale_for(width: int, height: int) -> float:
    """How much larger than the base panel the layout is drawn (never smaller)."""
    return max(1.0, round(min(width / BASE[0], height / BASE[1]), 2))


def fit(width: int, height: int) -> None:
    """Make the window ``width`` x ``height`` and scale the layout to it."""
    from kivy.core.window import Window
    from kivy.metrics import Metrics

    Metrics.density = scale_for(width, height)
    Window.size = (width, height)


def shown(screen: Any) -> bool:
    """Whether ``screen`` is the one its screen manager shows now (a screen laid out again
    while hidden need not be drawn again until it is shown)."""
    return screen.manager is not None and screen.manager.current_screen is screen


def undrawn_frame() -> None:
    """One frame of Kivy's event loop (its clock, the input, the layout, the canvases brought
    up to date) with the window left undrawn: for what is read from the widgets or rendered
    off the screen (``export_to_png``), where a drawing nobody sees is only CPU (all of it
    under Xvfb). Kivy 2.3's ``EventLoopBase.idle``, less its drawing."""
    from kivy.base import EventLoop
    from kivy.clock import Clock
    from kivy.lang import Builder

    Clock.tick()
    EventLoop.dispatch_input()
    Builder.sync()
    Clock.tick_draw()
    Builder.sync()


def graphics(windowed: bool, size: tuple[int, int], rotation: int) -> dict[str, str]:
    """Kivy's ``[graphics]`` settings: full screen and borderless over the whole display
    (``size``: the display's resolution; "auto" is SDL's desktop mode, which takes the
    screen as it is rather than changing its mode), or a window of ``size`` (its pixels on
    the display, before ``rotation`` turns the picture)."""
    if windowed:
        return {"fullscreen": "0", "borderless": "0", "rotation": str(rotation),
                "width": str(size[0]), "height": str(size[1]), "resizable": "1",
                "allow_screensaver": "1"}
    # The window is made the display's size at its corner as well: a display with no window
    # manager (a bare X server) never resizes a window to "full screen" itself.
    return {"fullscreen": "auto", "borderless": "1", "rotation": str(rotation),
            "width": str(size[0]), "height": str(size[1]), "resizable": "0",
            "position": "custom", "left": "0", "top": "0", "allow_screensaver": "0"}


def _sdl() -> Any:
    """SDL as Kivy loads it (the wheel's own copy, else the system's), or None."""
    import ctypes
    import ctypes.util
    import glob
    import importlib.util
    import os

    spec = importlib.util.find_spec("kivy")
    bundled = sorted(glob.glob(os.path.join(os.path.dirname(spec.origin), os.pardir, "Kivy.libs",
                                            "libSDL2-2*.so*"))) if spec and spec.origin else []
    name = bundled[0] if bundled else ctypes.util.find_library("SDL2-2.0") or \
        ctypes.util.find_library("SDL2")
    try:
        return ctypes.CDLL(name) if name else None
    except OSError:
        return None


def display_size() -> tuple[int, int] | None:
    """The display's own resolution, asked of SDL (Kivy's) before Kivy makes its window;
    None where SDL cannot be asked."""
    import ctypes

    class Mode(ctypes.Structure):
        _fields_ = [("format", ctypes.c_uint32), ("w", ctypes.c_int), ("h", ctypes.c_int),
                    ("refresh_rate", ctypes.c_int), ("driverdata", ctypes.c_void_p)]

    video = 0x20        # SDL_INIT_VIDEO
    sdl = _sdl()
    if sdl is None:
        return None
    try:
        if sdl.SDL_InitSubSystem(video) != 0:
            return None
        mode = Mode()
        try:
            found = sdl.SDL_GetDesktopDisplayMode(0, ctypes.byref(mode)) == 0
        finally:
            sdl.SDL_QuitSubSystem(video)        # Kivy starts it again for its window
    except (OSError, AttributeError):
        return None
    return (mode.w, mode.h) if found and mode.w > 0 and mode.h > 0 else None


def video_driver() -> str | None:
    """The video driver SDL draws the open window through ("x11" under XWayland), for the
    log a Pi's first installer reads; None where SDL cannot say."""
    import ctypes

    sdl = _sdl()
    try:
        sdl.SDL_GetCurrentVideoDriver.restype = ctypes.c_char_p
        name = sdl.SDL_GetCurrentVideoDriver()
    except AttributeError:
        return None
    return name.decode("ascii", "replace") if name else None


def configure(windowed: bool = False, size: tuple[int, int] = (1280, 720),
              rotation: int = 0) -> None:
    """Set the window up before Kivy makes it (the first import of ``kivy.core.window``
    opens it with the settings of that moment); a window already open is changed.
    ``size``: the window's on a laptop; full screen, the display's own."""
    from ui.quiet import quiet_kivy

    quiet_kivy()        # Kivy's start-up log off the terminal (a no-op once it is set up)
    from kivy.config import Config

    opened = "kivy.core.window" in sys.modules
    screen = display_size() if not windowed and not opened else None
    settings = graphics(windowed, screen or size, rotation)
    for key, value in settings.items():
        Config.set("graphics", key, value)
    only_the_pointer(Config)
    if opened:
        from kivy.core.window import Window

        Window.borderless = settings["borderless"] == "1"
        Window.fullscreen = "auto" if not windowed else False
        Window.rotation = rotation
        Window.allow_screensaver = windowed
        if windowed:
            Window.size = size if rotation in (0, 180) else (size[1], size[0])


def only_the_pointer(config: Any) -> None:
    """Kivy's ``[input]`` as :data:`INPUTS` whatever its configuration file says (Kivy
    writes ``probesysfs`` there on its first run on Linux): read when the app starts."""
    for key in config.options("input"):
        config.remove_option("input", key)
    for key, value in INPUTS.items():
        config.set("input", key, value)


def follow(window: Any) -> Callable[..., None]:
    """Scale the layout to ``window``'s size now and whenever it changes; the callback,
    for ``window.unbind(on_resize=...)``. The window keeps the screen's pixel size:
    the density only changes what a ``dp`` is."""
    from kivy.metrics import Metrics

    def rescale(*_: Any) -> None:
        density = scale_for(*window.size)      # the size as drawn (after any rotation)
        if Metrics.density != density:
            Metrics.density = density

    rescale()
    window.bind(on_resize=rescale, rotation=rescale)
    return rescale


def unfollow(window: Any, rescale: Callable[..., None]) -> None:
    """Stop scaling the layout with ``window`` (``rescale``: what :func:`follow` gave)."""
    window.unbind(on_resize=rescale, rotation=rescale)
