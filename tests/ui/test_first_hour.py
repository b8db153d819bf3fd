"""A newcomer's first look at the screens (issue 19), measured in real windows at the smallest
panel and a laptop's 1280x720: the setup's title not drawn over, the calibration's steps read
from the first, Save green only once there is something to save, the held buttons' footer
whole and true to what they do."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from uihelpers import frames, laid_out, tap, tap_at

SIZES = ((800, 480), (1280, 720))
LANGUAGES = ("en", "de", "zh-TW")


def _shown(widget) -> tuple[float, float, float, float] | None:
    """Where ``widget`` is drawn in the window, as far as the scroll views holding it show it;
    None when it is not drawn (transparent, squeezed to nothing, scrolled away)."""
    from kivy.uix.scrollview import ScrollView

    x, y = widget.to_window(widget.x, widget.y)
    rect = (x, y, x + widget.width, y + widget.height)
    parent = widget
    while parent is not None and parent is not parent.parent:
        if parent.opacity == 0 or parent.width <= 1 or parent.height <= 1:
            return None
        if isinstance(parent.parent, ScrollView):
            view = parent.parent
            vx, vy = view.to_window(view.x, view.y)
            rect = (max(rect[0], vx), max(rect[1], vy), min(rect[2], vx + view.width),
                    min(rect[3], vy + view.height))
            if rect[0] >= rect[2] or rect[1] >= rect[3]:
                return None
        parent = parent.parent
    return rect


def _whole(widget) -> bool:
    """Drawn whole: none of it cut by a scroll view or the window's edge."""
    from kivy.core.window import Window

    x, y = widget.to_window(widget.x, widget.y)
    rect = _shown(widget)
    return rect is not None and abs(rect[0] - x) < 1 and abs(rect[1] - y) < 1 and \
        abs(rect[2] - x - widget.width) < 1 and abs(rect[3] - y - widget.height) < 1 and \
        x >= -1 and y >= -1 and x + widget.width <= Window.width + 1 and \
        y + widget.height <= Window.height + 1


def _drawn_over(root) -> list[str]:
    """Pairs of words and buttons drawn over each other on ``root``."""
    from kivy.uix.label import Label
    from kivy.uix.textinput import TextInput

    drawn = [(w, _shown(w)) for w in root.walk(restrict=True)
             if isinstance(w, (Label, TextInput)) and (w.text or not isinstance(w, Label))]
    drawn = [(w, rect) for w, rect in drawn if rect is not None]
    found = []
    for i, (one, a) in enumerate(drawn):
        for other, b in drawn[i + 1:]:
            if min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5:
                found.append(f"{one.text!r} and {other.text!r}")
    return found


@pytest.fixture
def fitted():
    """The window fitted to a size (and the 800x480 panel again after)."""
    from ui import window

    def fit(width: int, height: int) -> None:
        window.fit(width, height)
        laid_out(2)

    yield fit
    window.fit(800, 480)


def test_the_setup_shows_its_title_and_every_option_without_drawing_one_over_another(
        run_app, fitted):
    from tabletop.engine.ruleset import available_rules
    from ui.app import TableApp

    app = run_app(TableApp())
    setup = app.setup
    found = {}
    for width, height in SIZES:
        fitted(width, height)
        for rules in available_rules():
            setup.rules = rules
            for language in LANGUAGES:
                app.set_language(language)
                frames(2)
                problems = [f"drawn over each other: {pair}" for pair in _drawn_over(setup)]
                if not _whole(setup.ids.heading):
                    problems.append("the title cut")
                # Every option in sight at once: none waits below the edge to be scrolled to.
                problems += [f"{button.text!r} not in sight" for button in
                             [setup.ids.rules, *setup.ids.options.children]
                             if not _whole(button)]
                if problems:
                    found[f"{rules} {language} {width}x{height}"] = problems
    assert found == {}


class StillCamera:
    """A camera that always shows the same picture (the empty board)."""

    hopeless = None

    def __init__(self, image) -> None:
        self.image = image

    def read(self) -> SimpleNamespace:
        return SimpleNamespace(image=self.image)


@pytest.fixture(scope="module")
def empty_board():
    """The acquire board with its four markers, no tile on it, and its corner cells' centres."""
    import numpy as np
    from calibration.synthetic.render import make_table, render_empty

    empty = render_empty(make_table("acquire", seed=2, size=(640, 480)), np.random.default_rng(1))
    return empty.image, empty.truth.corners


def _first_use(run_app, image):
    from ui.app import TableApp

    app = run_app(TableApp(camera=StillCamera(image), calibrated=False))
    assert app.root.current == "calibration" and app.calibration.guide
    return app, app.calibration


def _steps(screen) -> list:
    """The steps' rows (number and words), first to last."""
    from ui.calibscreen import GuideStep

    return [row for row in reversed(screen.ids.guide.children) if isinstance(row, GuideStep)]


@pytest.mark.parametrize("size", SIZES, ids=lambda size: "%dx%d" % size)
def test_the_first_use_steps_are_read_from_the_first_one(run_app, fitted, empty_board, size):
    """The steps open on their title and the first step (what to print), whatever step the
    table is at; the camera's pictures coming in do not scroll them away. Once the corners are
    tapped, the last step (check, then Save) is brought into sight."""
    image, corners = empty_board
    app, screen = _first_use(run_app, image)
    fitted(*size)
    screen.on_pre_enter()             # opened at this size
    for _ in range(3):                # pictures come, a tick at a time
        app.tick()
        frames(2)
    title = screen.ids.guide.children[-1]
    rows = _steps(screen)
    assert title.text == "First use: set up the camera" and _whole(title)
    assert rows[0].number == "1." and _whole(rows[0])
    # The step the table is at (tapping the corners) still stands out, below.
    assert not rows[0].words.startswith("[color=") and rows[3].words.startswith("[color=")
    assert rows[1].words.startswith("Stick one marker near each corner of the board")
    for x, y in corners:
        tap_at(*screen.ids.view.to_widget(x, y))
    frames(3)
    assert screen.calibration is not None, screen.ids.status.text
    assert _whole(_steps(screen)[4]), "the step to Save is not in sight"


def test_save_looks_ready_only_once_there_is_a_calibration_to_save(run_app, empty_board):
    from ui.calibscreen import NOT_YET, SAVE

    image, corners = empty_board
    app, screen = _first_use(run_app, image)
    app.tick()
    frames(2)
    save, test = screen.ids.save, screen.ids.test
    assert tuple(save.background_color) == NOT_YET              # grey, as Test and Back
    tap(save)
    assert screen.ids.status.text == "Tap the four corner cells first"
    screen._message = ""
    tap(test)                          # nothing to test yet either: said, not ignored
    assert screen.ids.status.text == "Tap the four corner cells first" and not screen.testing
    for x, y in corners:
        tap_at(*screen.ids.view.to_widget(x, y))
    assert screen.calibration is not None
    assert tuple(save.background_color) == SAVE                 # green: the way on


def test_the_footer_names_every_held_button_whole_at_every_size(run_app, fitted, table):
    """The footer's words, each hold as the app does it (tests/ui/test_screens.py holds
    them), never cut with an ellipsis."""
    from kivy.core.text import Label as CoreLabel

    from tabletop.table.assistant import Assistant
    from ui.app import TableApp

    app = run_app(TableApp(desk=Assistant(table)))
    hints = app.table.ids.hints
    assert hints.text == "Hold NEXT: history · UNDO: back to table · CONFIRM: switch off"
    cut = {}
    for width, height in SIZES:
        fitted(width, height)
        for language in LANGUAGES:
            app.set_language(language)
            frames(2)
            words = CoreLabel(text=hints.text, font_size=hints.font_size,
                              font_name=hints.font_name)
            words.refresh()
            if words.texture.size[0] > hints.width or not _whole(hints):
                cut[f"{language} {width}x{height}"] = (hints.text, words.texture.size[0],
                                                       hints.width)
    assert cut == {}
