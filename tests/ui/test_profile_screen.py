"""The setup screen under a tournament profile, on the 800x480 panel: the profile's name and
its options shown whole, fixed (nothing to tap that changes them), and Start seats the
players with exactly the profile's options."""

from __future__ import annotations

import pytest

from uihelpers import frames, tap

LANGUAGES = ("en", "de", "zh-TW")


def _in_sight(widget, view) -> bool:
    """Drawn whole inside ``view`` (the scroll view holding it) and the window."""
    from kivy.core.window import Window

    x, y = widget.to_window(widget.x, widget.y)
    vx, vy = view.to_window(view.x, view.y)
    return (x >= vx - 1 and y >= vy - 1 and x + widget.width <= vx + view.width + 1
            and y + widget.height <= vy + view.height + 1
            and x + widget.width <= Window.width + 1 and y + widget.height <= Window.height + 1)


def _whole_text(label) -> bool:
    """The label's text fits its width: it is not shortened with an ellipsis."""
    label.texture_update()
    return label._label.get_extents(label.text)[0] <= label.width + 1


@pytest.fixture
def held_app(run_app):
    from tabletop.engine.profile import builtin_profile
    from ui.app import TableApp

    return run_app(TableApp(profile=builtin_profile("tournament")))


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_held_options_are_shown_whole_at_800x480(held_app, language):
    from kivy.core.window import Window
    from kivy.uix.button import ButtonBehavior

    app = held_app
    assert tuple(Window.size) == (800, 480)
    app.set_language(language)
    frames(2)
    setup = app.setup
    lines = list(reversed(setup.ids.options.children))
    texts = [line.text for line in lines]
    problems = [f"{line.text!r} not in sight" for line in lines
                if not _in_sight(line, setup.ids.rules_view)]
    problems += [f"{line.text!r} cut short" for line in lines if not _whole_text(line)]
    assert problems == []
    # Nothing of the options is a button: a finger finds nothing there to change.
    assert not any(isinstance(line, ButtonBehavior) for line in lines)
    if language == "en":
        assert texts == ["Profile tournament: options held", "Mode: Classic",
                         "Screen shows: cash and holdings", "Founder, no share left: paid in cash",
                         "Two players: stock market: yes", "End by agreement: no",
                         "Undo reaches: this turn only",
                         "Dead tiles revealed: at the end of own turn",
                         "Turn order: number first (1A, 1B ... 2A)"]
    elif language == "de":
        assert texts[0] == "Profil tournament: Optionen festgelegt"
        assert "Tote Plättchen aufdecken: am Ende des eigenen Zugs" in texts
    else:
        assert texts[0] == "設定檔 tournament：選項已鎖定"
        assert "死磚公開時機: 自己回合結束時" in texts


def test_tapping_the_held_options_changes_nothing_and_start_plays_by_the_profile(held_app):
    from tabletop.table.seating import Seating

    app = held_app
    setup = app.setup
    frames(2)
    before = [line.text for line in setup.ids.options.children]
    for line in list(setup.ids.options.children):
        tap(line)
    setup.step_option("agreed_end")               # as a stray call would: held all the same
    assert [line.text for line in setup.ids.options.children] == before
    assert setup.options == {}
    tap(setup.ids.start)
    desk = app.desk
    assert isinstance(desk, Seating) and desk.profile.name == "tournament"
    assert desk.options == {"agreed_end": False, "incorrect_placement": "same_turn",
                            "dead_reveal": "end_of_turn"}
    assert app.root.current == "table"
