"""What the UI tests share besides their fixtures: frames, taps, texts, a game and its checks.

A module of its own name (not ``conftest``): pytest loads a conftest a folder, all named
``conftest``, and ``from conftest import ...`` found whichever was loaded last (the
calibration tests', in a run of both folders). This folder is on ``sys.path``
(pyproject.toml's ``pythonpath``), as for :mod:`frame_clock`.
"""

from __future__ import annotations

import frame_clock


def frames(count: int = 2) -> None:
    """Let Kivy lay out and draw: ``count`` frames of its clock (events, layout, textures),
    the window drawn at the last. Under Xvfb the drawing is done by the CPU, each frame as
    dear as all the rest of it, and what a test checks is the state the frames lead to:
    drawn once, that state, as a panel would show it (and as a screenshot reads it)."""
    from kivy.base import EventLoop

    from ui.window import undrawn_frame

    for _ in range(count - 1):
        undrawn_frame()
    EventLoop.idle()


def laid_out(count: int = 2) -> None:
    """``count`` frames of Kivy's clock with the window not drawn: a state passed through on
    the way to the one a test checks (which :func:`frames` draws)."""
    from ui.window import undrawn_frame

    for _ in range(count):
        undrawn_frame()


def settle(seconds: float = 0.6) -> None:
    """Let animations (a popup opening or closing) run their course: ``seconds`` of Kivy's
    clock, counted in frames (the same frames on any machine, however loaded)."""
    frames(frame_clock.frames_for(seconds))


#: The panel the apps start on (800x480, the 7-inch touchscreen).
PANEL = (800, 480)


def started(app):
    """``app`` (a :class:`ui.app.TableApp`) built and shown on the window at the panel's size."""
    from kivy.core.window import Window
    from kivy.metrics import Metrics

    Metrics.density = 1          # the panel's; a test before may have fitted another screen
    app._run_prepare()
    Window.size = PANEL
    frames(3)                    # laid out at the panel's size, then drawn
    return app


def stopped(app) -> None:
    """``app`` taken off the window: no more beats, keys or widgets of it."""
    from kivy.app import App
    from kivy.clock import Clock
    from kivy.core.window import Window
    from kivy.metrics import Metrics
    from kivy.uix.modalview import ModalView

    for view in [w for w in Window.children if isinstance(w, ModalView)]:
        view.dismiss(animation=False)       # a question left open must not take the next test's presses
    Clock.unschedule(app.tick)
    Window.unbind(on_key_down=app._key)
    Window.remove_widget(app.root)
    app.dispatch("on_stop")       # kv's `app` forgets it (it is cached until then)
    App._running_app = None
    Metrics.density = 1


def showing(app, desk, screen: str, language: str = "en"):
    """``app`` with ``desk`` on its table, in ``language``, showing ``screen``: a new game on
    the table, as the setup screen's Start puts one (a screen left as a test left it is
    refreshed, as :meth:`ui.app.TableApp.show` refreshes the screen it shows). The app and
    the screen."""
    if app.language != language:
        app.set_language(language)           # as the table's language button does
    app.loop.desk = desk
    app.update(force=True)                   # every screen told of the new desk
    app.show(screen)
    frames(3)
    return app, app.root.get_screen(screen)


def tap(widget) -> None:
    """A finger on ``widget``'s centre, down and up, through the window's input, and the
    frame that takes it in (undrawn: a test draws the state it checks, with :func:`frames`)."""
    from kivy.tests.common import UnitTestTouch

    x, y = widget.to_window(*widget.center)
    touch = UnitTestTouch(x, y)
    touch.touch_down()
    touch.touch_up()
    laid_out(1)
    if _scrolled(widget):
        # A ScrollView hands a short tap on to what it holds a moment later (0.2 s of its
        # clock): that moment passes, in frames.
        laid_out(frame_clock.frames_for(0.3))


def _scrolled(widget) -> bool:
    from kivy.uix.scrollview import ScrollView

    parent = widget.parent
    while parent is not None and parent is not parent.parent:
        if isinstance(parent, ScrollView):
            return True
        parent = parent.parent
    return False


def tap_at(x: float, y: float) -> None:
    """A finger at window point ``x, y``, as :func:`tap`."""
    from kivy.tests.common import UnitTestTouch

    touch = UnitTestTouch(x, y)
    touch.touch_down()
    touch.touch_up()
    laid_out(1)


def texts(widget) -> list[str]:
    """Every text the widget tree shows (markup taken out)."""
    import re

    return [re.sub(r"\[/?[a-z]+[^\]]*\]", "", child.text) for child in widget.walk(restrict=True)
            if isinstance(getattr(child, "text", None), str) and child.text]



# --- games and checks the screens' tests share ----------------------------------------------------

#: Acquire, three players; Cy draws first and is to place.
SETUP = {"setup": {"rules": "acquire", "players": ["Ann", "Bob", "Cy"],
                   "start_tiles": {"Ann": "5C", "Bob": "9I", "Cy": "1D"}}}


def play(assistant, actions: int, seed: int = 2) -> None:
    """Bots play ``actions`` actions (or to the end) through the assistant."""
    from tabletop.table.bot import Bot

    bot = Bot(assistant, seed=seed)
    for _ in range(actions):
        if assistant.game.pending is None:
            return
        bot.act()


def outside_the_window(root):
    """Widgets drawn (partly) off the screen; what a ScrollView holds may scroll, and is not."""
    from kivy.core.window import Window
    from kivy.uix.scrollview import ScrollView

    scrolled = {id(w) for view in root.walk() if isinstance(view, ScrollView)
                for w in view.walk() if w is not view}
    off = []
    for widget in root.walk():
        if id(widget) in scrolled or widget.width <= 1 or widget.height <= 1:
            continue
        x, y = widget.to_window(widget.x, widget.y)
        if x < -1 or y < -1 or x + widget.width > Window.width + 1 or \
                y + widget.height > Window.height + 1:
            off.append((type(widget).__name__, getattr(widget, "text", ""), (x, y)))
    return off

