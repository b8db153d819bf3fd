"""The merger summary, the history's sentences and the results' accounts, in a real window at
every supported screen size: what is on screen, how large, and that nothing is off it."""

from __future__ import annotations

import pytest

from tabletop.engine.actions import Buy, Dispose, Found, Place
from tabletop.journal.journal import Journal
from tabletop.table.assistant import Assistant
from tabletop.table.narrate import entries, final_accounts
from ui.window import SIZES, fit, scale_for

from uihelpers import frames, outside_the_window, play, texts

MERGER = [Place(tile="2A"), Found(chain="Tower"), Buy(), Place(tile="1D"), Found(chain="Luxor"),
          Buy(shares={"Luxor": 2}), Place(tile="3D"), Buy(shares={"Luxor": 2, "Tower": 1}),
          Place(tile="3A"), Buy(shares={"Luxor": 1}), Place(tile="1B"),
          Dispose(sell=1, trade=2), Dispose(keep=2), Dispose(sell=1)]


@pytest.fixture
def sized():
    yield
    fit(800, 480)


def labels(widget):
    from kivy.uix.label import Label

    return [w for w in widget.walk(restrict=True) if isinstance(w, Label) and w.text]


def buttons(widget):
    from kivy.uix.button import Button

    return [w for w in widget.walk(restrict=True) if isinstance(w, Button)]


def assert_large(widget, least_px: float, scale: float) -> None:
    for label in labels(widget):
        assert label.font_size >= least_px * scale - 0.01, (label.text, label.font_size)
    for button in buttons(widget):
        assert button.width >= 48 * scale - 0.5 and button.height >= 48 * scale - 0.5, \
            (button.text, button.size)


@pytest.mark.parametrize("size", SIZES)
def test_the_merger_summary_stays_on_the_table_until_the_next_turn(run_app, tmp_path, sized, size):
    from ui.app import TableApp

    with Journal.open(tmp_path / "journal.db") as journal:
        table = journal.start({"setup": {"rules": "acquire", "players": ["Ann", "Bob", "Cy"],
                                         "start_tiles": {"Ann": "1A", "Bob": "1C", "Cy": "12I"}}})
        for action in MERGER:
            table.push(action)
        app = run_app(TableApp(desk=Assistant(table)))
        fit(*size)
        app.update(force=True)
        frames(4)
        panel = app.table.ids.merger
        shown = texts(panel)
        assert "Bob merged Luxor (2 tiles) into Tower" in shown
        assert "Bob  1st bonus $2,000  ·  sold 1 for $200  ·  traded 2 for 1 Tower" in shown
        assert "Cy  2nd bonus $1,000  ·  kept 2" in shown and "Ann  sold 1 for $200" in shown
        assert panel.height > 0 and outside_the_window(panel) == []
        assert_large(panel, 14, scale_for(*size))
        table.push(Buy())                                       # Bob's turn ends: it stays
        app.update(force=True)
        frames(2)
        assert panel.height > 0
        table.push(Place(tile="12A"))                           # Cy places: it goes
        app.update(force=True)
        frames(2)
        assert panel.height == 0 and texts(panel) == []


@pytest.mark.parametrize("size", SIZES)
def test_the_history_says_what_each_action_did_newest_first(run_app, tmp_path, sized, size):
    from ui.app import TableApp

    with Journal.open(tmp_path / "journal.db") as journal:
        table = journal.start({"setup": {"rules": "acquire", "players": ["Ann", "Bob", "Cy"],
                                         "start_tiles": {"Ann": "1A", "Bob": "1C", "Cy": "12I"}}})
        for action in MERGER:
            table.push(action)
        app = run_app(TableApp(desk=Assistant(table)))
        fit(*size)
        app.show("history")
        frames(4)
        data = app.history.ids.log.data
        assert [row["words"] for row in data[:4]] == [
            "14. Ann sold 1 Luxor for $200; Tower is now 6 tiles", "13. Cy kept 2 Luxor",
            "12. Bob sold 1 Luxor for $200, traded 2 for 1 Tower",
            "11. Bob placed 1B and merged Luxor into Tower: Bob $2,000, Cy $1,000"]
        shown = texts(app.history)
        assert "11. Bob placed 1B and merged Luxor into Tower: Bob $2,000, Cy $1,000" in shown
        assert outside_the_window(app.history) == []
        assert_large(app.history, 14, scale_for(*size))
        rows = app.history.ids.log.children[0].children
        for row in rows:                                        # every sentence whole, unclipped
            words = row.children[-1]
            words.texture_update()
            assert words.texture_size[1] <= row.height + 1, row.words
        app.set_language("zh-TW")
        frames(2)
        assert "11. Bob 放了 1B，將 路克索 併入 塔樓：Bob $2,000, Cy $1,000" in \
            [row["words"] for row in app.history.ids.log.data] or \
            "11. Bob 放了 1B，將 Luxor 併入 Tower：Bob $2,000, Cy $1,000" in \
            [row["words"] for row in app.history.ids.log.data]


@pytest.mark.parametrize("size", SIZES)
def test_the_results_add_up_for_every_player_on_one_screen(run_app, tmp_path, sized, size):
    from ui.app import TableApp

    journal = Journal.open(tmp_path / "journal.db")
    table = journal.start({"setup": {"rules": "acquire", "seed": 7,
                                     "players": ["Ann", "Bob", "Cy", "Dominique"]}})
    assistant = Assistant(table)
    play(assistant, 10_000)                                      # bots play it to the end
    game = table.game
    assert game.pending is None
    app = run_app(TableApp(desk=assistant))
    fit(*size)
    app.update(force=True)
    frames(4)
    assert app.root.current == "results"
    screen, money = app.results, game.rules.money
    accounts = final_accounts(game)
    row = texts(screen.ids.accounts)
    for account in accounts:
        seat = game.names.index(account.player)
        # The numbers add up, to the game's own final cash.
        assert account.cash_before + account.bonuses + account.sales == game.cash[seat]
        at = row.index(account.player)
        assert row[at - 1:at + 5] == [f"{account.rank}.", account.player, money(account.cash_before),
                                      money(account.bonuses), money(account.sales),
                                      money(game.cash[seat])]
    assert sum(a.bonuses + a.sales for a in accounts) > 0
    chart = texts(screen.ids.chart)
    assert "turn →" in chart and "↑ net worth" in chart and money(0) in chart
    assert [w.replace("━ ", "") for w in texts(screen.ids.legend)] == game.names
    assert outside_the_window(screen) == []
    for button in ("print", "export", "shutdown", "history", "new_game"):
        widget = screen.ids[button]
        assert widget.width >= 48 * scale_for(*size) and widget.height >= 48 * scale_for(*size)
    assert_large(screen.ids.accounts, 13, scale_for(*size))
    for label in labels(screen.ids.accounts):
        label.texture_update()
        assert label.texture_size[0] <= label.width + 1, label.text   # no figure cut short
    journal.close()
