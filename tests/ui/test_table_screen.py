"""The table screen with real Kivy widgets under Xvfb: a full turn by touches and by the GPIO
buttons (gpiozero-free mock controls), what a hidden disclosure level never shows, both languages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tabletop.table.assistant import Assistant
from tabletop.journal.journal import Journal

from uihelpers import frames, outside_the_window, play, settle, tap, tap_at, texts


def choose(app, label: str, by) -> None:
    """NEXT (by a tap or a button) until ``label`` is chosen, then CONFIRM."""
    for _ in range(len(app.desk.prompt.options)):
        if app.desk.prompt.chosen.label == label:
            by("confirm")
            return
        by("next")
    raise AssertionError(f"{label!r} not offered: {[o.label for o in app.desk.prompt.options]}")


def enter_by_tap(screen, label: str) -> None:
    """Tap ``label``'s cell in: on the board where its cells are finger-sized, else near it
    on the board and then on the zoomed picker's cell."""
    board = screen.ids.board
    tap_at(*board.centre(board.geometry.parse(label)))
    if board.direct:
        return
    picker = screen.ids.picker
    assert picker.shown
    (cell,) = [w for w in picker.children if getattr(w, "text", "").split("\n")[-1] == label]
    tap(cell)
    assert not picker.shown and not board.disabled


def choice(screen, words: str):
    """The button of the choices listed whose text starts with ``words``."""
    (button,) = [w for w in screen.ids.choices.children if w.text.startswith(words)]
    return button


def test_a_full_turn_by_touches(run_app, table):
    from ui.app import TableApp

    app = run_app(TableApp(desk=Assistant(table)))
    screen = app.table
    assert screen.ids.title.text == "Cy: place a tile"
    enter_by_tap(screen, "1E")                                  # the camera missed it
    assert screen.ids.title.text == "Cy placed 1E: CONFIRM plays it, UNDO refuses it"
    assert screen.ids.chosen.text == "1E: founds a chain"
    tap(screen.ids.confirm)
    assert screen.ids.title.text == "Cy: which chain to found?"
    assert "[b]Tower[/b]" in screen.ids.chosen.text and "(1/" not in screen.ids.chosen.text
    # The chains to found, listed with their price a share: a tap chooses, CONFIRM founds.
    assert choice(screen, "Luxor").text == "Luxor · $200"
    tap(choice(screen, "Luxor"))
    assert app.desk.prompt.chosen.label == "Luxor" and choice(screen, "Luxor").chosen
    assert "[b]Luxor[/b]" in screen.ids.chosen.text
    assert [json.loads(line)["do"] for line in table.lines[1:]] == ["place"]   # not yet
    tap(screen.ids.confirm)

    def by_touch(button):
        tap(screen.ids[button])

    assert screen.ids.figures.text == "cash $6,000, these cost $0, left $6,000; 0 of 3 shares"
    choose(app, "+1 Luxor (200)", by_touch)
    assert screen.ids.figures.text == "cash $6,000, these cost $200, left $5,800; 1 of 3 shares"
    choose(app, "buy 1 Luxor", by_touch)
    game = table.game
    luxor = game.rules.chain_index("Luxor")
    assert game.holdings[2][luxor] == 2 and game.cash[2] == 6000 - 200
    assert [json.loads(line)["do"] for line in table.lines[1:]] == ["place", "found", "buy"]
    assert screen.ids.title.text == "Ann: place a tile"
    frames()
    assert "Luxor" in texts(screen.ids.chains)


def test_a_full_turn_by_the_buttons(run_app, table):
    from hardware.controls import open_controls
    from ui.app import TableApp

    controls = open_controls("mock")
    assistant = Assistant(table)
    app = run_app(TableApp(desk=assistant, controls=controls))
    assistant.tile_seen("1E")                                  # the camera saw it

    def by_button(button):
        controls.press(button)
        app.tick()

    by_button("confirm")
    choose(app, "Tower", by_button)
    choose(app, "+1 Tower (200)", by_button)
    choose(app, "+1 Tower (200)", by_button)
    choose(app, "buy 2 Tower", by_button)
    game = table.game
    assert game.holdings[2][game.rules.chain_index("Tower")] == 3
    assert app.table.ids.title.text == "Ann: place a tile"
    controls.close()


def test_the_hidden_level_never_shows_a_players_cash_or_holdings(run_app, table):
    from ui.app import TableApp

    assistant = Assistant(table)
    for tile, answer in (("1E", "Tower"),):
        assistant.tile_seen(tile)
        assistant.press("confirm")
        while assistant.prompt.chosen.label != answer:
            assistant.press("next")
        assistant.press("confirm")
    app = run_app(TableApp(desk=assistant, disclosure="hidden"))
    frames()
    # Cy buying sees Cy's own figures, only while Cy acts; the bank's shares stay hidden too.
    assert app.table.ids.figures.text.startswith("cash $6,000")
    buying = texts(app.root)
    tower = table.game.rules.chain_index("Tower")
    assert "Buy" in buying and "Bank" not in buying
    assert str(table.game.bank[tower]) not in buying and "$6,000" not in "".join(
        t for t in buying if t != app.table.ids.figures.text)
    app.table.disclosure = "bank"                                 # a level that shows them
    app.table.refresh()
    assert "Bank" in texts(app.root) and str(table.game.bank[tower]) in texts(app.root)
    app.table.disclosure = "hidden"
    assistant.press("confirm")                                    # buy nothing: Ann to place
    app.update()
    frames()
    shown = "\n".join(texts(app.root))
    assert "$6,000" not in shown                                  # nobody's cash
    assert "1 Tower" not in shown                                 # nobody's holdings
    assert "hidden" in shown and "Tower" in shown                 # the chain table is public
    app.table.disclosure = "open"
    app.table.refresh()
    assert "1 Tower" in "\n".join(texts(app.root))


@pytest.mark.parametrize("language", ["en", "zh-TW"])
def test_every_label_fits_at_800x480(run_app, table, language):
    from kivy.uix.label import Label
    from ui.app import TableApp

    assistant = Assistant(table)
    assistant.tile_seen("1E")
    app = run_app(TableApp(desk=assistant, language=language))
    frames(3)
    for widget in app.root.walk():
        if isinstance(widget, Label) and widget.text and not widget.shorten:
            widget.texture_update()
            assert widget.texture_size[0] <= widget.width + 1, (widget.text, widget.width)
    if language == "zh-TW":
        assert app.table.ids.title.text == "Cy 放了 1E：按「確認」採用，按「復原」拒絕" and app.table.ids.confirm.text == "確認"


def test_the_language_switches_live(run_app, table):
    from ui.app import TableApp

    app = run_app(TableApp(desk=Assistant(table)))
    tap(app.table.ids.language)
    assert app.language == "zh-TW" and app.table.ids.title.text == "Cy：請放一張地磚"
    for _ in range(5):                                       # round the languages, to English
        if app.language == "en":
            break
        tap(app.table.ids.language)
    assert app.table.ids.title.text == "Cy: place a tile"


def test_chinese_text_has_every_glyph(run_app, table):
    """Each character of the Chinese strings draws differently from a character no font has."""
    import numpy as np
    from kivy.core.text import Label as CoreLabel
    from ui import theme

    font = theme.font_path()
    assert font is not None, "no font with Traditional Chinese: apt-get install fonts-noto-cjk"

    def pixels(char):
        label = CoreLabel(text=char, font_name=font, font_size=24)
        label.refresh()
        return np.frombuffer(label.texture.pixels, np.uint8)

    missing = pixels("\U0010fffd")
    catalogue = Path(__file__).parents[2] / "ui/locale/zh_TW/LC_MESSAGES/tabletop.po"
    chars = {c for c in catalogue.read_text(encoding="utf-8") if ord(c) > 0x2e80}
    assert len(chars) > 50
    assert [c for c in sorted(chars) if np.array_equal(pixels(c), missing)] == []


def test_a_merger_with_two_holders_disposing_by_touches(run_app, tmp_path):
    from pathlib import Path

    from tabletop import parse_action, replay
    from tabletop.engine.state import state_json
    from ui.app import TableApp

    lines = (Path(__file__).parents[1] / "scenarios" / "tie2.jsonl").read_text().splitlines()
    merge = next(i for i, line in enumerate(lines) if '"tile": "5C"' in line)
    with Journal.open(tmp_path / "journal.db") as journal:
        table = journal.start(json.loads(lines[0]))
        for line in lines[1:merge]:
            table.push(parse_action(json.loads(line)))
        assistant = Assistant(table)
        app = run_app(TableApp(desk=assistant))
        screen = app.table
        assistant.tile_seen("5C")                      # the camera sees the merging tile
        app.update()
        assert screen.ids.chosen.text.startswith("5C: merges")
        tap(screen.ids.confirm)
        assert screen.ids.title.text.startswith("Ann: your ")
        frames()
        summary = "\n".join(texts(screen.ids.merger))       # the payout, shown to the holders
        assert "Ann" in summary and "$" in summary and not screen.ids.players.children
        assert screen.ids.decider.text == "Ann decides" or screen.ids.turn.text == "Ann to play"

        def by_touch(button):
            tap(screen.ids[button])

        figures = assistant.figures
        assert screen.ids.figures.text.endswith(f"holds 2, may trade {figures['trade_cap']}")
        choose(app, "sell all (sell 2, trade 0)", by_touch)
        assert screen.ids.title.text.startswith("Bob: your ")
        assert summary.split("\n")[0] in texts(screen.ids.merger)   # still, for the next holder
        assert screen.ids.decider.text == "Bob decides"             # Bob disposes on Ann's turn
        # Bob trades his two with the steppers: the result is shown as he steps.
        tap(disposal_steppers(screen)[1]["+"])
        sell, trade = disposal_steppers(screen)
        assert trade["count"].text == "2"                   # two for one: a step is two shares
        assert sell["count"].text == "0"
        assert screen.ids.chosen.text.startswith("sell 0, trade 2, keep 0")
        assert screen.ids.figures.text.startswith("gets 1 Tower, cash after ")
        tap(trade["+"])                                     # no more than he holds
        assert disposal_steppers(screen)[1]["count"].text == "2"
        tap(screen.ids.confirm)
        assert screen.ids.title.text.startswith("Cy: your ")
        assert disposal_steppers(screen)[1]["count"].text == "0"   # Cy starts afresh
        choose(app, "keep all (sell 0, trade 0)", by_touch)
        assert not screen.ids.tools.children               # the steppers go with the merger
        assert screen.ids.title.text.startswith("Ann: buy shares")
        expected = replay(lines[: merge + 4]).game
        assert state_json(table.game) == state_json(expected)


def disposal_steppers(screen):
    """The disposal row's steppers: ({"-", "count", "+"} for selling, the same for trading)."""
    (row,) = screen.ids.tools.children
    boxes = [w for w in reversed(row.children) if w.__class__.__name__ == "BoxLayout"]
    return [dict(zip(("+", "count", "-"), box.children)) for box in boxes]


@pytest.mark.parametrize("rules, seed, chains", [("acquire", 4, 7), ("megacquire-gold", 1, 12),
                                                 ("acquisitions", 1, 7)])
def test_a_crowded_table_fits_the_screen_with_every_chain_in_reach(run_app, rules, seed, chains):
    """Many chains on the board (MEGAcquire's fourteen): nothing is drawn off the screen,
    and the chain table scrolls to the last of them."""
    from tabletop.table.assistant import UnjournaledTable
    from tabletop.table.bot import Bot
    from tabletop.engine.game import Game
    from ui.app import TableApp

    desk = Assistant(UnjournaledTable(Game(rules, ["Ann", "Bob", "Cy", "Dee"], seed=seed)))
    bot = Bot(desk, seed=seed)
    while sum(1 for size in desk.game.board.sizes if size) < chains:
        bot.act()
    for language in ("en", "zh-TW"):
        app = run_app(TableApp(desk=desk, language=language))
        frames(3)
        assert outside_the_window(app.root) == []
        # (A safe chain is marked `*` after its name while shares are bought.)
        from ui.i18n import chain_name

        names = [t.rstrip("*") for t in texts(app.table.ids.chains) if t.rstrip("*") in
                 {chain_name(chain.name, language) for chain in desk.game.rules.chains}]
        assert len(names) == chains
        app.table.ids.chain_rows.scroll_y = 0              # scrolled to the end
        frames(2)
        last = [w for w in app.table.ids.chains.children if getattr(w, "text", "").startswith(
                f"[b]{names[-1]}[/b]")][0]
        view = app.table.ids.chain_rows
        assert view.y - 1 <= last.to_window(*last.pos)[1] <= view.top


def test_a_player_holding_their_name_sees_their_own_figures_only_while_holding(run_app, tmp_path):
    from kivy.tests.common import UnitTestTouch
    from ui.app import TableApp

    with Journal.open(tmp_path / "journal.db") as journal:
        table = journal.start({"setup": {"rules": "acquire", "players": ["Ann", "Bob", "Cy"],
                                         "options": {"disclosure": "hidden"}, "seed": 9}})
        assistant = Assistant(table)
        play(assistant, 30)
        game = table.game
        app = run_app(TableApp(desk=assistant))
        frames(2)
        money = game.rules.money
        cash = {name: money(game.cash[seat]) for seat, name in enumerate(game.names)}

        def shown():
            return "\n".join(texts(app.table.ids.players))

        assert len(set(cash.values())) == 3                 # told apart by their cash
        assert not any(value in shown() for value in cash.values()), (shown(), cash)
        name = next(w for w in app.table.ids.players.children if "Bob" in getattr(w, "text", ""))
        touch = UnitTestTouch(*name.to_window(*name.center))
        touch.touch_down()
        frames(1)
        assert cash["Bob"] in shown()                       # Bob's own, while he holds
        assert cash["Ann"] not in shown() and cash["Cy"] not in shown()
        touch.touch_up()
        frames(1)
        assert cash["Bob"] not in shown()


def test_a_purchase_put_together_with_the_steppers_and_confirmed(run_app, table):
    from ui.app import TableApp

    assistant = Assistant(table)
    assistant.tile_seen("1E")
    assistant.press("confirm")
    while assistant.prompt.chosen.label != "Tower":
        assistant.press("next")
    assistant.press("confirm")                             # Cy founded Tower: now buying
    app = run_app(TableApp(desk=assistant))
    frames(2)
    grid = app.table.ids.chains
    tower = table.game.rules.chain_index("Tower")

    def stepper():
        boxes = [w for w in reversed(grid.children) if w.__class__.__name__ == "BoxLayout"]
        return boxes[0]                                     # the only chain on the board

    plus = lambda: stepper().children[0]                    # noqa: E731 - [-, n, +] reversed
    minus = lambda: stepper().children[2]                   # noqa: E731
    for _ in range(4):                                      # the limit is 3
        tap(plus())
    assert stepper().children[1].text == "3"
    assert app.table.ids.figures.text.endswith("3 of 3 shares")
    tap(minus())
    assert app.table.ids.chosen.text.startswith("buy 2 Tower")
    tap(app.table.ids.confirm)
    assert table.game.holdings[2][tower] == 3 and table.game.cash[2] == 6000 - 400
    assert json.loads(table.lines[-1])["shares"] == {"Tower": 2}
    assert app.table.ids.chains.cols == 5                   # no steppers on Ann's placement


def test_shares_traded_in_with_steppers_pay_for_a_purchase(run_app, tmp_path):
    """MEGAcquire: Ann has 4M and holds 13 Regal (5M); she buys 3 Solon (10M) by trading in 6."""

    from tabletop import parse_action

    from engine.test_trade_in import position
    from ui.app import TableApp

    lines = position().lines
    with Journal.open(tmp_path / "journal.db") as journal:
        table = journal.start(json.loads(lines[0]))
        for line in lines[1:]:
            table.push(parse_action(json.loads(line)))
        app = run_app(TableApp(desk=Assistant(table)))
        frames(2)
        game, screen = table.game, app.table
        rows = screen.ids.chains

        def row(name):
            settle(0.3)         # the scroll view hands the last tap on (its clock), then lays out
            cells = list(reversed(rows.children))
            at = next(i for i, w in enumerate(cells) if getattr(w, "text", "").startswith(
                f"[b]{name}[/b]"))
            screen.ids.chain_rows.scroll_to(cells[at], padding=0, animate=False)
            frames(2)                                       # scrolled to, as a finger would
            return cells[at: at + rows.cols]

        def steps(cell):
            return dict(zip(("+", "count", "-"), cell.children))

        assert "Trade in" not in texts(screen.ids.chain_heads)      # 4M pays for nothing yet
        for _ in range(3):
            tap(steps(row("Solon")[-1])["+"])
        # 30M wanted, 4M in hand: her own shares to trade in, in place of the bonuses.
        assert "Trade in" in texts(screen.ids.chain_heads)
        assert row("Solon")[1].text == ""                     # not the chain she buys
        for _ in range(5):
            tap(steps(row("Regal")[1])["+"])
        tap(steps(row("Regal")[1])["-"])
        assert steps(row("Regal")[1])["count"].text == "4"
        for _ in range(2):
            tap(steps(row("Regal")[1])["+"])
        assert screen.ids.figures.text == \
            "cash 4M, these cost 30M, left 4M; 3 of 6 shares; traded in 30M"
        tap(screen.ids.confirm)
        regal, solon = game.rules.chain_index("Regal"), game.rules.chain_index("Solon")
        assert game.cash[0] == 4 and game.holdings[0][regal] == 7 and game.holdings[0][solon] == 10
        assert json.loads(table.lines[-1])["trade_in"] == {"Regal": 6}




def test_a_tap_on_an_occupied_cell_explains_it_and_changes_nothing(run_app, table):
    """A mis-tap on a tile already down (issue 16, item 5): what is there is said; no flag,
    no action."""
    from ui.app import TableApp

    assistant = Assistant(table)
    app = run_app(TableApp(desk=assistant))
    screen = app.table
    enter_by_tap(screen, "1E")
    tap(screen.ids.confirm)
    choose(app, "Tower", lambda button: tap(screen.ids[button]))
    tap(screen.ids.confirm)                                  # Cy buys nothing: Ann to place
    lines = list(table.lines)
    enter_by_tap(screen, "1E")                               # Tower's tile, tapped by mistake
    frames()
    assert assistant.prompt.flagged == () and screen.ids.board.flagged == []
    assert table.lines == lines and assistant.prompt.title == "Ann: place a tile"
    assert "1E" in screen.ids.message.text                  # what is there, explained
    assert "Take it off" not in screen.ids.message.text


def test_the_turn_order_draw_is_tapped_in_on_the_board(run_app):
    """No camera: each player's drawn tile tapped in on the board, then who drew it tapped."""
    from tabletop.table.seating import Seating
    from ui.app import TableApp

    seating = Seating("acquire", ["Ann", "Bob", "Cy"])
    app = run_app(TableApp(desk=seating))
    screen = app.table
    frames()
    assert screen.ids.turn.text == "Turn-order draw"
    for label in ("5C", "9I", "1D"):
        enter_by_tap(screen, label)
    assert sorted(seating.tiles) == ["1D", "5C", "9I"]
    assert screen.ids.title.text == "Who drew 1D?"
    tap(choice(screen, "Cy"))
    tap(screen.ids.confirm)
    tap(choice(screen, "Ann"))
    tap(screen.ids.confirm)
    assert seating.setup["start_tiles"] == {"Cy": "1D", "Ann": "5C", "Bob": "9I"}
