"""The panel's light in the real app: dimmed between games after a quiet spell, woken by a
touch that presses nothing, and never dimmed during a game."""

from __future__ import annotations

from uihelpers import frames, tap

from hardware.backlight import MockBacklight
from hardware.idle import IdleDimmer


class Clock:
    """The dimmer's clock, moved by the test (no waiting on wall time)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_between_games_the_panel_dims_and_the_waking_touch_presses_nothing(run_app):
    from ui.app import TableApp

    light, clock = MockBacklight(), Clock()
    app = run_app(TableApp(language="en", idle=IdleDimmer(light, after=300, clock=clock)))
    assert app.root.current == "setup"
    seats = len(app.setup.players)
    app.tick()
    clock.now = 299
    app.tick()
    assert not light.dimmed
    clock.now = 301
    app.tick()
    assert light.dimmed                       # five minutes alone at the setup
    tap(app.setup.ids.add)
    assert not light.dimmed and len(app.setup.players) == seats     # woke, added no one
    tap(app.setup.ids.add)
    assert len(app.setup.players) == seats + 1                      # the next touch counts


def test_during_a_game_the_panel_never_dims(run_app):
    from ui.app import TableApp

    light, clock = MockBacklight(), Clock()
    app = run_app(TableApp(language="en", idle=IdleDimmer(light, after=300, clock=clock)))
    app.setup.players = ["Ann", "Bob", "Cy"]
    app.setup.start()                          # the turn-order draw: the game has begun
    frames(2)
    assert app.root.current == "table"
    for minute in range(1, 61):
        clock.now = 60.0 * minute
        app.tick()
    assert "dim" not in light.calls and not light.dimmed
