"""``tabletop screenshots --out DIR``: every screen, at every supported screen size
(:data:`ui.window.SIZES`, laid out as the app lays them out there), in both languages.

The state is a demo game's (bots playing a seeded virtual game part way, a
placement proposed), so the pictures show what a table sees mid-game; and a
new table's first use: the calibration's steps (no calibration yet) and the
turn-order draw of a table without a camera. Needs a display: on a machine
without one, run it under ``xvfb-run``.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from pathlib import Path
from typing import Any



def demo_desk(rules: str = "acquire", seed: int = 4, actions: int = 60, until: str = "",
              options: dict | None = None) -> Any:
    """An assistant some way into a bot game, with a placement proposed (or, ``until`` a
    kind of decision, at the next such decision after those actions)."""
    from tabletop.table.assistant import Assistant, UnjournaledTable
    from tabletop.table.bot import Bot
    from tabletop.engine.game import Game
    from tabletop.engine.ruleset import load_rules

    players = ["Ann", "Bob", "Cy", "Dee"][: min(4, load_rules(rules).max_players)]
    # No journal: the screenshots change nothing on disk.
    assistant = Assistant(UnjournaledTable(Game(rules, players, options, seed=seed)))
    bot = Bot(assistant, seed=seed)
    for _ in range(actions):
        if assistant.game.pending is None:
            break
        bot.act()
    if until:
        while assistant.game.pending is not None and assistant.game.pending.kind != until:
            bot.act()
        if until == "dispose":      # a holder part way through the steppers
            assistant.set_disposal(sell=1, trade=2)
        return assistant
    tile = bot.tile()
    if tile is not None:
        assistant.tile_seen(tile)
    return assistant


#: (name, screen, rule set, actions the bots play first, then until what): mid-game tables
#: of each board, a merger's holder disposing (in Tycoon mode: three bonuses), the history
#: of one, the results of a finished game, the setup, the calibration; first use: the
#: calibration's steps, and the turn-order draw with no camera (tiles tapped in).
SHOTS = (("table", "table", "acquire", 60, ""), ("table", "table", "megacquire-gold", 90, ""),
         ("table", "table", "acquisitions", 70, ""), ("merger", "table", "acquire", 100, "dispose"),
         ("history", "history", "acquire", 60, ""), ("results", "results", "acquire", 10_000, ""),
         ("setup", "setup", "megacquire-gold", 0, ""),
         ("calibration", "calibration", "acquire", 0, ""),
         ("firstuse", "calibration", "acquire", 0, ""), ("nocamera", "table", "acquire", 0, ""))


def shot_names() -> list[str]:
    """Each shot's name as ``--only`` takes it: ``table-acquire``, ``setup-megacquire-gold``."""
    return [f"{name}-{rules}" for name, _, rules, _, _ in SHOTS]


def take(out: str | Path, only: Collection[str] = ()) -> list[Path]:
    """Write the PNGs into ``out`` (of the shots named in ``only``, else of all); their paths."""
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("KIVY_CLIPBOARD", "dummy")
    from ui.quiet import quiet_kivy

    quiet_kivy()                  # before Kivy's import: its log would take over stderr
    from kivy.core.window import Window

    from ui.app import TableApp
    from ui.window import SIZES, fit, undrawn_frame

    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, screen, rules, actions, until in SHOTS:
        if only and f"{name}-{rules}" not in only:
            continue
        app = _app(TableApp, name, rules, actions, until)
        app._run_prepare()
        app.setup.rules = rules
        if screen == "calibration":
            _calibrated(app, rules, taps=name != "firstuse")
        if name == "nocamera":
            app.update(force=True)          # the desk told there is no camera
        try:
            for width, height in SIZES:
                fit(width, height)
                for language in ("en", "zh-TW"):
                    app.set_language(language)
                    app.show(screen)
                    for _ in range(3):
                        undrawn_frame()        # the PNG is rendered apart from the window
                    path = folder / f"{name}-{rules}-{language}-{width}x{height}.png"
                    app.root.export_to_png(str(path))
                    written.append(path)
        finally:
            Window.remove_widget(app.root)
            app.dispatch("on_stop")        # its clock stopped too: the next shot's app alone ticks
    return written


def _app(app_class: Any, name: str, rules: str, actions: int, until: str) -> Any:
    """The app of one shot: a demo game's; a new table's first use (calibration not made:
    its steps shown); a new table without a camera at its turn-order draw."""
    from tabletop.messages import Message

    if name == "firstuse":
        return app_class(calibrated=False)
    if name == "nocamera":
        from tabletop.table.seating import Seating

        return app_class(desk=Seating(rules, ["Ann", "Bob", "Cy", "Dee"]),
                         camera_off=Message("none configured"))
    options = {"bonus_mode": "tycoon"} if name == "merger" else None
    return app_class(desk=demo_desk(rules, actions=actions, until=until, options=options))


#: The simulated camera's empty board of each rule set, rendered once for all the shots of it.
_VIEWS: dict[str, tuple[Any, Any]] = {}


def _calibration_view(rules: str) -> tuple[Any, Any]:
    """The empty board's picture and its corner-cell centres (the screen only reads them)."""
    from tabletop.assembly.simcamera import SimCamera

    if rules not in _VIEWS:
        _VIEWS[rules] = SimCamera(f"sim:{rules},seed=2").calibration_view()
    return _VIEWS[rules]


def _calibrated(app: Any, rules: str, taps: bool = True) -> None:
    """The calibration screen with the simulated camera's empty board, its corners tapped
    (or, on first use, none yet and the steps beside it)."""
    image, corners = _calibration_view(rules)
    app.calibration.guide = not taps
    app.show("calibration")
    app.calibration.ids.view.image = image
    for x, y in corners if taps else ():
        app.calibration.tap(float(x), float(y))
