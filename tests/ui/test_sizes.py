"""Figures and touch targets at every supported screen size (issue 16, item 6), read from the
widget tree of the real table screen: each board, each kind of decision the table is asked."""

from __future__ import annotations

from typing import Any

import pytest

from uihelpers import frames, laid_out, outside_the_window, started, stopped, tap_at

from ui.window import SIZES

PLAYERS = ["Ann", "Bob", "Cy", "Dee"]
PHASES = ("draw", "place", "found", "dispose", "buy", "agree")
RULES = ("acquire", "megacquire-gold", "acquisitions")


def desk_at(rules: str, phase: str, seed: int = 4) -> Any:
    """A desk of ``rules`` (four players, no journal) at the first decision of kind ``phase``."""
    from tabletop.engine.game import Game
    from tabletop.table.assistant import Assistant, UnjournaledTable
    from tabletop.table.bot import Bot
    from tabletop.table.seating import Seating

    if phase == "draw":
        seating = Seating(rules, PLAYERS)
        seating.enter(seating.geometry.labels[5])        # one tile of four tapped in
        return seating
    options = {"agreed_end": True} if phase == "agree" else None
    desk = Assistant(UnjournaledTable(Game(rules, PLAYERS, options, seed=seed)))
    bot = Bot(desk, seed=seed)
    wanted = "place" if phase == "agree" else phase
    for _ in range(4000):
        pending = desk.game.pending
        if pending is not None and pending.kind == wanted and len(desk.game.board.active()) > 1 \
                and (phase not in ("place", "agree") or len(desk.game.history) > 30):
            break
        bot.act()
    else:
        raise AssertionError(f"no {phase} in {rules}")
    if phase == "agree":
        if not getattr(desk, "end_proposable", False):
            pytest.skip("the desk cannot propose an end by agreement yet")
        desk.propose_end()           # as the menu does: each player is asked in turn
        desk.choose(0)
        desk.press("confirm")        # the second player is asked now
        assert desk.prompt.kind == "agree"
    if phase == "buy" and desk.game.board.active():
        desk.set_purchase(desk.game.board.active()[0], 1)
    return desk


def _visible(widget) -> bool:
    """Drawn now: it and every parent opaque, and not squeezed to nothing."""
    while widget is not None and widget is not widget.parent:
        if widget.opacity == 0 or widget.width <= 1 or widget.height <= 1:
            return False
        widget = widget.parent
    return True


def _rect(widget) -> tuple[float, float, float, float]:
    x, y = widget.to_window(widget.x, widget.y)
    return x, y, x + widget.width, y + widget.height


def _clip(widget, rect):
    """``rect`` as far as the scroll views holding ``widget`` show it, or None."""
    from kivy.uix.scrollview import ScrollView

    parent = widget.parent
    while parent is not None and parent is not parent.parent:
        if isinstance(parent, ScrollView):
            x0, y0, x1, y1 = _rect(parent)
            rect = (max(rect[0], x0), max(rect[1], y0), min(rect[2], x1), min(rect[3], y1))
            if rect[0] >= rect[2] or rect[1] >= rect[3]:
                return None
        parent = parent.parent
    return rect


def targets(root) -> list[tuple[Any, tuple]]:
    """Every touch target drawn: buttons (and the board mirror), clipped by their scroll views."""
    from kivy.uix.behaviors import ButtonBehavior
    from ui.boardview import BoardMirror

    found = []
    for widget in root.walk():
        if isinstance(widget, (ButtonBehavior, BoardMirror)) and not widget.disabled \
                and _visible(widget):
            rect = _clip(widget, _rect(widget))
            if rect is not None:
                found.append((widget, rect))
    return found



def gap(a, b) -> float:
    """How far apart two rectangles are (negative: they overlap)."""
    return max(b[0] - a[2], a[0] - b[2], b[1] - a[3], a[1] - b[3])


MONEY = r"^(\$[\d,]+|\d+M)$"


def check(app, scale: float) -> list[str]:
    """What a player at arm's length could not read or tap on the screen shown, as findings."""
    import re

    from kivy.uix.label import Label
    from ui.boardview import BoardMirror

    root, screen, problems = app.root, app.table, []
    problems += [f"off the window: {w}" for w in outside_the_window(root)]
    acting = {id(screen.ids[key]) for key in ("turn", "decider", "title", "chosen")}
    for widget in root.walk():
        if not isinstance(widget, Label) or not widget.text.strip() or not _visible(widget):
            continue
        words = re.sub(r"\[/?[a-z]+[^\]]*\]", "", widget.text).strip()
        if widget.font_size < 12 * scale - 0.01:
            problems.append(f"{words!r} at {widget.font_size:.1f} px")
        acts = id(widget) in acting or re.match(MONEY, words)
        if acts and widget.font_size < 18 * scale - 0.01:
            problems.append(f"acting {words!r} at {widget.font_size:.1f} px")
        if not widget.shorten:
            widget.texture_update()
            width, height = widget.texture_size
            if width > widget.width + 1 or height > widget.height + 1:
                problems.append(f"{words!r} clipped: {widget.texture_size} in {widget.size}")
    board = screen.ids.board
    if board.font_sizes and min(board.font_sizes) < 12 * scale - 0.01:
        problems.append(f"board text at {min(board.font_sizes):.1f} px")
    drawn = targets(root)
    for widget, rect in drawn:
        if isinstance(widget, BoardMirror):
            if widget.direct and widget._grid()[0] < 56 * scale:
                problems.append("board cells tapped directly under 48 px")
            continue
        # Its own size: one a scroll view cuts at its edge is whole once scrolled to.
        width, height = widget.size
        if min(width, height) < 48 * scale - 0.5:
            name = getattr(widget, "text", widget)
            problems.append(f"target {name!r} is {width:.0f}x{height:.0f}")
    for i, (one, a) in enumerate(drawn):
        for other, b in drawn[i + 1:]:
            if gap(a, b) < 8 * scale - 0.5:
                problems.append(f"targets {getattr(one, 'text', one)!r} and "
                                f"{getattr(other, 'text', other)!r} {gap(a, b):.0f} px apart")
    return problems


def findings_at(app, desk, phase: str, scale: float) -> list[str]:
    """:func:`check`'s findings with ``desk`` on the app's table (the window already fitted to
    a size drawn at ``scale``); on the draw and place screens, also with the board tapped (its
    region zoomed at finger size), after which the picker goes back to the whole board, as
    its back button does."""
    app.loop.desk = desk               # as a table's desk changes: the seating, then a game
    app.update(force=True)
    laid_out(2)
    frames(3)
    problems = check(app, scale)
    board = app.table.ids.board
    if phase in ("place", "draw") and not board.direct:
        tap_at(*board.to_window(*board.center))
        laid_out(1)
        frames(1)
        picker = app.table.ids.picker
        if not (picker.shown and len(picker.children) > 12):
            problems.append(f"the board tapped shows no zoomed region ({len(picker.children)} "
                            f"widgets)")
        problems += [f"zoomed: {problem}" for problem in check(app, scale)]
        picker.close()
        laid_out(2)
    return problems


def desks() -> dict[tuple[str, str], Any]:
    """Each board's desk at each decision, or why there is none (a skip's reason)."""
    made = {}
    for rules in RULES:
        for phase in PHASES:
            try:
                made[rules, phase] = desk_at(rules, phase)
            except pytest.skip.Exception as skipped:
                made[rules, phase] = str(skipped)
    return made


@pytest.fixture(scope="module")
def findings(x_display) -> dict[tuple[str, str], Any]:
    """{(rules, phase): {size: findings}} (or a skip's reason), from one app: the window
    fitted to each size once and, at each, every board and decision put on the table in turn.
    A fit lays out all the app's screens again (the costly part) and a new desk only the
    table; each desk is still seen at every size, as a window resized would show it."""
    from ui import window
    from ui.app import TableApp

    made = desks()
    shown = {key: desk for key, desk in made.items() if not isinstance(desk, str)}
    found = {key: desk for key, desk in made.items() if isinstance(desk, str)}
    app = started(TableApp(desk=next(iter(shown.values()))))
    try:
        for width, height in window.SIZES:
            window.fit(width, height)
            laid_out(2)
            scale = window.scale_for(width, height)
            for key, desk in shown.items():
                found.setdefault(key, {})[f"{width}x{height}"] = findings_at(app, desk, key[1],
                                                                             scale)
    finally:
        stopped(app)
        window.fit(800, 480)
    return found


# Every test reads the one module fixture: in one worker, which makes it once.
@pytest.mark.xdist_group("sizes-findings")
@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("phase", PHASES)
def test_every_figure_readable_and_every_target_large_enough(findings, rules, phase):
    found = findings[rules, phase]
    if isinstance(found, str):
        pytest.skip(found)
    assert set(found) == {f"{width}x{height}" for width, height in SIZES}
    assert {size: problems for size, problems in found.items() if problems} == {}
