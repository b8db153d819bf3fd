"""The setup screen of a table in a tournament, on the 800x480 panel: the table key's
fingerprint and the seat (tournament, table, round) shown whole, the round stepped by
- and + (48 px targets or more), and Start sets the game up for the round shown; with no
round chosen, Start says so and sets nothing up."""

from __future__ import annotations

import pytest

from uihelpers import frames, tap

LANGUAGES = ("en", "de", "zh-TW")
FINGERPRINT = "139e-3940-e64b-5491"


def _on_screen(widget) -> bool:
    """Drawn whole inside the window."""
    from kivy.core.window import Window

    x, y = widget.to_window(widget.x, widget.y)
    return x >= -1 and y >= -1 and x + widget.width <= Window.width + 1 \
        and y + widget.height <= Window.height + 1


def _whole_text(label) -> bool:
    """The label's text fits its width: it is not shortened with an ellipsis."""
    label.texture_update()
    return label._label.get_extents(label.text)[0] <= label.width + 1


def _row(app):
    """The key under the heading, then the tournament line's widgets: seat, -, round, +."""
    ids = app.setup.ids
    return ids.key, ids.seat, ids.round_down, ids.round, ids.round_up


@pytest.fixture
def tournament_app(run_app):
    from tabletop.table.seating import TournamentPlace
    from ui.app import TableApp

    place = TournamentPlace("Spring Open", "3", None)
    return run_app(TableApp(fingerprint=FINGERPRINT, tournament=place)), place


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_key_and_the_seat_are_shown_whole_at_800x480(tournament_app, language):
    from kivy.core.window import Window

    app, place = tournament_app
    assert tuple(Window.size) == (800, 480)
    app.set_language(language)
    frames(2)
    key, seat, down, shown, up = _row(app)
    expected = {"en": (f"Table key {FINGERPRINT}", "Spring Open · table 3 · round"),
                "de": (f"Tischschlüssel {FINGERPRINT}", "Spring Open · Tisch 3 · Runde"),
                "zh-TW": (f"本桌金鑰 {FINGERPRINT}", "Spring Open · 第 3 桌 · 輪次")}[language]
    assert (key.text, seat.text) == expected
    assert (down.text, shown.text, up.text) == ("-", "?", "+")
    for widget in (key, seat, down, shown, up):
        assert _on_screen(widget), widget
    assert _whole_text(key) and _whole_text(seat)
    for button in (down, up):                  # a fingertip's target on the 800x480 panel
        assert button.width >= 48 and button.height >= 48
    assert key.font_size >= 14 and seat.font_size >= 15 and shown.font_size >= 22
    # The key under the heading; the seat above the players: nothing drawn over them.
    ids = app.setup.ids
    assert key.to_window(0, key.top)[1] <= ids.heading.to_window(0, ids.heading.y)[1] + 1
    assert key.to_window(0, key.y)[1] >= ids.rules_view.to_window(0, ids.rules_view.top)[1] - 1
    assert seat.to_window(0, seat.y)[1] >= ids.seats.to_window(0, ids.seats.top)[1] - 1
    assert _whole_text(ids.heading)


def test_start_with_no_round_says_so_and_the_round_tapped_is_the_games(tournament_app):
    from tabletop.table.seating import Seating

    app, place = tournament_app
    frames(2)
    tap(app.setup.ids.start)
    assert app.desk is None and app.root.current == "setup"
    assert app.setup.ids.problem.text == ("Spring Open: choose the round this game is for "
                                          "(+ beside the round) before Start")
    key, seat, down, shown, up = _row(app)
    tap(up)
    tap(up)
    tap(up)
    tap(down)
    assert shown.text == "2" and place.round == 2 and app.setup.ids.problem.text == ""
    tap(app.setup.ids.start)
    desk = app.desk
    assert isinstance(desk, Seating) and app.root.current == "table"
    assert desk.seat.to_json() == {"tournament": "Spring Open", "round": 2, "table": "3"}


def test_without_a_tournament_only_the_key_is_shown(run_app):
    from ui.app import TableApp

    app = run_app(TableApp(fingerprint=FINGERPRINT))
    frames(2)
    key = app.setup.ids.key
    assert key.text == f"Table key {FINGERPRINT}" and _whole_text(key) and _on_screen(key)
    assert app.setup.place_row.parent is None         # no tournament line, no room kept for it


def test_the_tables_own_key_and_round_reach_the_setup_screen_and_its_game(tmp_path, run_app):
    """`tabletop run` on the touchscreen: the fingerprint shown is the table's own key's, the
    round [tournament] round's; + then Start sets the game up for the next round."""
    from tabletop.assembly.config import load_config
    from tabletop.assembly.runner import Runner
    from tabletop.journal.slip import table_fingerprint
    from tabletop.table.seating import Seating

    path = tmp_path / "config.toml"
    path.write_text(f'[camera]\nsource = "off"\n[controls]\nkind = "mock"\n[sound]\nkind = "off"\n'
                    f'[tournament]\nname = "Spring Open"\ntable = "3"\nround = 2\n'
                    f'[paths]\ndata = "{tmp_path / "data"}"\n')
    lines: list[str] = []
    runner = Runner(load_config(path, environ={}), out=lines.append, on_screen=True)
    try:
        app = run_app(runner.make_app())
        frames(2)
        key, seat, down, shown, up = _row(app)
        assert key.text == f"Table key {table_fingerprint(tmp_path / 'data')}"
        assert (seat.text, shown.text) == ("Spring Open · table 3 · round", "2")
        tap(up)
        tap(app.setup.ids.start)
        desk = runner.loop.desk
        assert isinstance(desk, Seating)
        assert desk.seat.to_json() == {"tournament": "Spring Open", "round": 3, "table": "3"}
        assert "new game of Acquire, Classic mode: Ann, Bob, Cy (Spring Open, round 3, " \
               "table 3)" in lines
    finally:
        runner.close()
