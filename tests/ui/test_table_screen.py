"""The table screen with real Kivy widgets under Xvfb: a full turn by touches and by the GPIO
buttons (gpiozero-free mock controls), what a hidden disclosure level never shows, both languages."""

from __future__ import annotations

import json

import pytest

from tabletop.assistant import Assistant
from tabletop.errors import JournalError
from tabletop.journal import Journal

from conftest import frames, settle, tap, tap_at, texts

SETUP = {"setup": {"rules": "acquire", "players": ["Ann", "Bob", "Cy"],
                   "start_tiles": {"Ann": "5C", "Bob": "9I", "Cy": "1D"}}}


@pytest.fixture
def table(tmp_path):
    with Journal.open(tmp_path / "journal.db", table_name="test") as journal:
        yield journal.start(SETUP)


def choose(app, label: str, by) -> None:
    """NEXT (by a tap or a button) until ``label`` is chosen, then CONFIRM."""
    for _ in range(len(app.desk.prompt.options)):
        if app.desk.prompt.chosen.label == label:
            by("confirm")
            return
        by("next")
    raise AssertionError(f"{label!r} not offered: {[o.label for o in app.desk.prompt.options]}")


def test_a_full_turn_by_touches(run_app, table):
    from ui.app import TableApp

    app = run_app(TableApp(desk=Assistant(table)))
    screen = app.table
    assert screen.ids.title.text == "Cy: place a tile"
    board = screen.ids.board
    tap_at(*board.centre(table.game.geometry.parse("1E")))      # the camera missed it
    assert screen.ids.title.text == "Cy placed 1E"
    assert screen.ids.chosen.text == "1E: founds a chain"
    tap(screen.ids.confirm)
    assert screen.ids.title.text == "Cy: which chain to found?"
    assert screen.ids.chosen.text.startswith("[color=e69e00][b]Tower[/b][/color]  tier 1")

    def by_touch(button):
        tap(screen.ids[button])

    choose(app, "Luxor", by_touch)
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
        assert app.table.ids.title.text == "Cy 放了 1E" and app.table.ids.confirm.text == "確認"


def test_the_language_switches_live(run_app, table):
    from ui.app import TableApp

    app = run_app(TableApp(desk=Assistant(table)))
    tap(app.table.ids.language)
    assert app.language == "zh-TW" and app.table.ids.title.text == "Cy：請放一張地磚"
    tap(app.table.ids.language)
    assert app.table.ids.title.text == "Cy: place a tile"


def test_chinese_text_has_every_glyph(run_app, table):
    """Each character of the Chinese strings draws differently from a character no font has."""
    import numpy as np
    from kivy.core.text import Label as CoreLabel
    from ui import theme
    from ui.i18n import PATTERNS, TEXTS
    from ui.refusals import REFUSALS

    font = theme.font_path()
    assert font is not None, "no font with Traditional Chinese: apt-get install fonts-noto-cjk"

    def pixels(char):
        label = CoreLabel(text=char, font_name=font, font_size=24)
        label.refresh()
        return np.frombuffer(label.texture.pixels, np.uint8)

    missing = pixels("\U0010fffd")
    chars = {c for entry in TEXTS.values() for c in entry["zh-TW"]} | \
        {c for _, chinese in PATTERNS + REFUSALS for c in chinese}
    chars = {c for c in chars if ord(c) > 0x2e80}
    assert len(chars) > 50
    assert [c for c in sorted(chars) if np.array_equal(pixels(c), missing)] == []


def play(assistant, actions: int, seed: int = 2) -> None:
    from tabletop.bot import Bot

    bot = Bot(assistant, seed=seed)
    for _ in range(actions):
        if assistant.game.pending is None:
            return
        bot.act()


def test_undo_from_the_history_takes_the_game_back_to_before_that_action(run_app, tmp_path):
    from tabletop.journal import Journal
    from ui.app import TableApp

    with Journal.open(tmp_path / "journal.db") as journal:
        table = journal.start({"setup": {"rules": "acquire", "players": ["Ann", "Bob"],
                                         "seed": 5}})
        assistant = Assistant(table)
        play(assistant, 20)
        done = len(table.game.history)
        app = run_app(TableApp(desk=assistant))
        tap(app.table.ids.history)
        assert app.root.current == "history"
        app.history.ids.log.scroll_y = 0                # the oldest actions are at the bottom
        frames(3)
        rows = [row for row in app.history.ids.log.children[0].children]
        fifth = next(row for row in rows if row.words.startswith("5. "))
        assert fifth.words == "5. " + __import__("ui.history", fromlist=["describe"]).describe(
            table.game.script()[5], "en")
        tap(fifth.children[0])                          # its "undo to here" button
        settle()
        popup = app.history.popup
        no, yes = popup.content.children[0].children[::-1]
        assert "Take back 16 action(s)" in popup.content.children[1].text
        tap(no)                                         # asked, and declined: nothing changes
        settle()
        assert len(table.game.history) == done and popup.parent is None
        fifth = next(row for row in app.history.ids.log.children[0].children
                     if row.words.startswith("5. "))
        tap(fifth.children[0])
        settle()
        yes = app.history.popup.content.children[0].children[0]
        tap(yes)
        assert len(table.game.history) == 4             # back to before the fifth action
        undos = [json.loads(line) for line in table.lines if '"undo"' in line]
        assert len(undos) == done - 4                   # each one journaled
        assert app.history.ids.log.data[0]["words"].startswith("4. ")


def test_long_presses_open_the_history_and_come_back(run_app, table):
    from hardware.controls import open_controls
    from ui.app import TableApp

    controls = open_controls("mock")
    app = run_app(TableApp(desk=Assistant(table), controls=controls))
    assert app.table.ids.hints.text.startswith("hold NEXT: history")
    controls.press("next", long=True)
    app.tick()
    assert app.root.current == "history"
    controls.press("confirm")                           # a stray press elsewhere does nothing
    app.tick()
    assert len(table.game.history) == 0
    controls.press("undo", long=True)
    app.tick()
    assert app.root.current == "table"
    controls.press("confirm", long=True)                # switch off? asked first
    app.tick()
    settle()
    popup = app.results.popup
    no = popup.content.children[0].children[-1]
    tap(no)
    settle()
    assert popup.parent is None and len(table.game.history) == 0
    controls.close()


def test_the_end_of_the_game_shows_the_standings_payouts_and_the_worth_chart(run_app, tmp_path):
    from tabletop.journal import Journal
    from ui.app import TableApp

    with Journal.open(tmp_path / "journal.db") as journal:
        table = journal.start({"setup": {"rules": "acquire", "players": ["Ann", "Bob", "Cy"],
                                         "seed": 7}})
        assistant = Assistant(table)
        app = run_app(TableApp(desk=assistant))
        play(assistant, 10_000)
        app.update()
        game = table.game
        assert game.pending is None and app.root.current == "results"
        shown = "\n".join(texts(app.results))
        winner = game.names[game.standings[0][0]]
        assert f"1. {winner}  {game.rules.money(game.cash[game.standings[0][0]])}" in shown
        assert "by chain: bonuses + sales" in shown
        paid = __import__("tabletop.progress", fromlist=["paid_by_chain"]).paid_by_chain(game)
        chain, amounts = sorted(paid[winner].items())[0]
        money = game.rules.money
        assert f"    {chain}: {money(amounts['bonus'])} + {money(amounts['sales'])}" in shown
        chart = app.results.ids.chart
        assert len(chart.points) > 20 and chart.points[-1][1] == game.cash
        app.set_language("zh-TW")
        assert "最終排名" in "\n".join(texts(app.results))


def test_run_opens_the_app_on_the_table_and_the_camera_feeds_it(run_app, tmp_path):
    """`tabletop run` where there is a display: the app's clock steps the table loop."""
    from tabletop.config import load_config
    from tabletop.runner import Runner
    from ui.app import TableApp

    path = tmp_path / "config.toml"
    path.write_text(f'[table]\nplayers = ["Ann", "Bob"]\n[camera]\nsource = '
                    f'"sim:acquire,seed=3,placements=3"\n[controls]\nkind = "mock"\n'
                    f'[paths]\ndata = "{tmp_path / "data"}"\n')
    runner = Runner(load_config(path, environ={}), out=lambda line: None)
    try:
        with runner.camera:
            app = run_app(TableApp(loop=runner.loop, controls=runner.controls))
            assert app.table.ids.title.text.startswith("Each player draws a tile")
            import time

            deadline = time.monotonic() + 20          # the camera gives 10 frames a second
            while not runner.loop.seen and time.monotonic() < deadline:
                app.tick()
                time.sleep(0.02)
            assert runner.loop.seen                    # frames went through the eyes
            assert "seen" in app.table.ids.title.text
    finally:
        runner.close()


def test_a_merger_with_two_holders_disposing_by_touches(run_app, tmp_path):
    from pathlib import Path

    from tabletop import parse_action, replay
    from tabletop.views import state_json
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
        assert "bonuses: Ann $" in screen.ids.message.text   # the payout, shown to the holders

        def by_touch(button):
            tap(screen.ids[button])

        figures = assistant.figures
        assert screen.ids.figures.text.endswith(f"holds 2, may trade {figures['trade_cap']}")
        choose(app, "sell all (sell 2, trade 0)", by_touch)
        assert screen.ids.title.text.startswith("Bob: your ")
        assert "bonuses: Ann $" in screen.ids.message.text   # still, for the next holder
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
        assert screen.ids.tools.height == 0                 # the steppers go with the merger
        assert screen.ids.title.text.startswith("Ann: buy shares")
        expected = replay(lines[: merge + 4]).game
        assert state_json(table.game) == state_json(expected)


def disposal_steppers(screen):
    """The disposal row's steppers: ({"-", "count", "+"} for selling, the same for trading)."""
    boxes = [w for w in reversed(screen.ids.tools.children) if w.__class__.__name__ == "BoxLayout"]
    return [dict(zip(("+", "count", "-"), box.children)) for box in boxes]


def test_setup_seats_the_players_typed_in_with_the_options_chosen(run_app):
    from tabletop.seating import Seating
    from ui.app import TableApp

    app = run_app(TableApp())
    setup = app.setup
    assert app.root.current == "setup"
    fields = [w for w in reversed(setup.ids.players.children) if hasattr(w, "insert_text")]
    fields[0].text = "Mei"                             # typed in
    tap(setup.ids.add)
    fields = [w for w in reversed(setup.ids.players.children) if hasattr(w, "insert_text")]
    fields[-1].text = "Dan"
    ups = [w for w in reversed(setup.ids.players.children) if getattr(w, "text", "") == "↑"]
    tap(ups[-1])                                       # Dan moves up a seat
    mode = next(b for b in setup.ids.options.children if b.text.startswith("Mode"))
    tap(mode)                                          # Classic -> Tycoon
    screen = next(b for b in setup.ids.options.children if b.text.startswith("Screen shows"))
    tap(screen)                                        # open -> hidden
    assert setup.players == ["Mei", "Bob", "Dan", "Cy"]
    tap(setup.ids.start)
    desk = app.desk
    assert isinstance(desk, Seating) and desk.players == ["Mei", "Bob", "Dan", "Cy"]
    assert desk.options == {"bonus_mode": "tycoon", "disclosure": "hidden"}
    assert app.root.current == "table"
    assert app.table.ids.title.text == "Each player draws a tile and places it: 0 of 4 seen"


def test_setup_refuses_two_players_of_the_same_name(run_app):
    from ui.app import TableApp

    app = run_app(TableApp())
    fields = [w for w in reversed(app.setup.ids.players.children) if hasattr(w, "insert_text")]
    fields[1].text = "Ann"
    tap(app.setup.ids.start)
    assert "same name" in app.setup.ids.problem.text and app.desk is None
    assert app.root.current == "setup"


@pytest.mark.parametrize("language", ["en", "zh-TW"])
def test_every_screen_fits_800x480_and_has_every_glyph(run_app, tmp_path, language):
    """Each screen, in each language: no text wider than its label (unless it is shortened
    on purpose), and no character drawn as the missing-glyph box."""
    import numpy as np
    from kivy.core.text import Label as CoreLabel
    from kivy.uix.label import Label
    from ui import theme
    from ui.app import TableApp

    font = theme.font_path()

    def pixels(char):
        label = CoreLabel(text=char, font_name=font, font_size=24)
        label.refresh()
        return np.frombuffer(label.texture.pixels, np.uint8)

    missing = pixels("\U0010fffd")
    with Journal.open(tmp_path / "journal.db") as journal:
        table = journal.start({"setup": {"rules": "acquire", "players": ["Ann", "Bob"],
                                         "seed": 3}})
        assistant = Assistant(table)
        play(assistant, 10_000)
        app = run_app(TableApp(desk=assistant, language=language))
        for name in ("table", "history", "results", "setup", "calibration"):
            app.show(name)
            frames(3)
            chars = set()
            for widget in app.root.current_screen.walk():
                if isinstance(widget, Label) and widget.text:
                    widget.texture_update()
                    if not widget.shorten:
                        assert widget.texture_size[0] <= widget.width + 1, (name, widget.text)
                    chars |= {c for c in widget.text if ord(c) > 127}
            assert [c for c in sorted(chars) if np.array_equal(pixels(c), missing)] == [], name
            assert outside_the_window(app.root.current_screen) == [], name


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


@pytest.mark.parametrize("rules, seed, chains", [("acquire", 4, 7), ("megacquire-gold", 1, 12),
                                                 ("acquisitions", 1, 7)])
def test_a_crowded_table_fits_the_screen_with_every_chain_in_reach(run_app, rules, seed, chains):
    """Many chains on the board (MEGAcquire's fourteen): nothing is drawn off the screen,
    and the chain table scrolls to the last of them."""
    from tabletop.assistant import UnjournaledTable
    from tabletop.bot import Bot
    from tabletop.engine import Game
    from ui.app import TableApp

    desk = Assistant(UnjournaledTable(Game(rules, ["Ann", "Bob", "Cy", "Dee"], seed=seed)))
    bot = Bot(desk, seed=seed)
    while sum(1 for size in desk.game.board.sizes if size) < chains:
        bot.act()
    for language in ("en", "zh-TW"):
        app = run_app(TableApp(desk=desk, language=language))
        frames(3)
        assert outside_the_window(app.root) == []
        names = [t for t in texts(app.table.ids.chains) if t in
                 {chain.name for chain in desk.game.rules.chains}]
        assert len(names) == chains
        app.table.ids.chain_rows.scroll_y = 0              # scrolled to the end
        frames(2)
        last = [w for w in app.table.ids.chains.children if getattr(w, "text", "") ==
                f"[b]{names[-1]}[/b]"][0]
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


def test_the_results_screen_prints_the_slip_and_shows_a_printer_fault(run_app, tmp_path):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parents[1]))
    from test_run import _fake_printer, finished_runner
    from ui.app import TableApp

    device = _fake_printer()
    runner = finished_runner(tmp_path, device.url)
    try:
        app = run_app(TableApp(loop=runner.loop, controls=runner.controls, services=runner))
        app.update()
        assert app.root.current == "results"
        tap(app.results.ids.print)
        assert app.results.ids.status.text == "printing the score slip"
        assert runner.last_job.wait(5)
        device.close()                               # the printer is unplugged
        runner.print_slip()
        runner._printer().wait_idle()
        app.update(force=True)
        assert app.results.ids.status.text == "printer unplugged; 1 slip waiting"
        app.show("table")
        assert app.table.ids.banner.text.strip() == "printer unplugged; 1 slip waiting"
        assert app.table.fault
    finally:
        runner.close()


def test_the_demo_plays_on_the_touchscreen_a_frame_a_tick(run_app, tmp_path):
    from tabletop.demo import Demo
    from ui.app import TableApp

    demo = Demo("acquire", 3, journal=tmp_path / "journal.db", out=None, size=(640, 480))
    try:
        app = run_app(TableApp(loop=demo.loop, driver=demo.steps()))
        titles = set()
        for _ in range(600):
            app.tick()
            titles.add(app.table.ids.title.text)
            if demo.assistant is not None and len(demo.assistant.game.history) >= 6:
                break
        assert demo.assistant is not None and len(demo.assistant.game.history) >= 6
        assert any(title.startswith("Each player draws") for title in titles)   # the draw
        assert any(" placed " in title for title in titles)        # a proposal on the screen
        assert demo.report.committed                                # seen by the camera
    finally:
        demo.close()


def test_calibration_by_tapping_the_four_corners_draws_the_grid_saves_and_tests(run_app, tmp_path):
    import cv2
    import numpy as np
    from calibration.calfile import load_calibration
    from calibration.render import make_table, render, render_empty
    from hardware.camera import open_camera
    from ui.app import TableApp

    table = make_table("megacquire-gold", seed=2, size=(640, 480))
    empty = render_empty(table, np.random.default_rng(1))
    folder = tmp_path / "frames"
    folder.mkdir()
    cv2.imwrite(str(folder / "frame_00000.png"), empty.image)
    tiles = ["A-1", "G-7", "N-13"]
    later = tmp_path / "later"                               # the camera after tiles are down
    later.mkdir()
    cv2.imwrite(str(later / "frame_00000.png"),
                render(table, tiles, np.random.default_rng(2)).image)
    saved = {}

    def saver(calibration):
        saved["path"] = calibration.save(tmp_path / "calibration.json")
        return f"saved to {saved['path']}"

    camera = open_camera(f"dir:{folder}", fps=None)
    app = run_app(TableApp(camera=camera))
    app.setup.rules = "megacquire-gold"
    app.show("calibration")
    screen = app.calibration
    screen.saver = saver
    screen.tick()                                            # the empty board
    frames(3)
    view = screen.ids.view
    assert screen.ids.heading.text == "Tap the centre of cell A-1"
    assert screen.ids.status.text == "markers seen: 0, 1, 2, 3"
    for x, y in empty.truth.corners:                         # the four corner cells, tapped
        tap_at(*view.to_widget(x, y))
    assert screen.calibration is not None, (screen.ids.status.text, list(view.taps))
    assert len(view.grid) == 182
    # The grid lies on the cells: each predicted centre within 3 px of the truth's.
    truth = np.asarray(empty.truth.centres) if hasattr(empty.truth, "centres") else None
    if truth is not None:
        assert np.abs(np.asarray(view.grid) - truth).max() < 3
    assert "Calibrated" in screen.ids.status.text
    wrong = screen.calibration
    tap(screen.ids.flip)                                     # the other row parity, at once
    assert screen.options["hex_offset"] == "even-r" and screen.calibration is not wrong
    tap(screen.ids.flip)
    tap(screen.ids.save)
    assert load_calibration(saved["path"]).options.get("hex_offset", "odd-r") == "odd-r"
    tap(screen.ids.test)
    screen.camera = open_camera(f"dir:{later}", fps=None)
    screen.tick()                                            # the board with three tiles
    grid = view.grid
    labels = screen.calibration.layout.geometry.labels
    read = sorted(labels[grid.index(point)] for point in view.occupied)
    assert read == sorted(tiles)


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
    import sys
    from pathlib import Path

    from tabletop import parse_action

    sys.path.insert(0, str(Path(__file__).parents[1]))
    from test_trade import position
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
            cells = list(reversed(rows.children))
            at = next(i for i, w in enumerate(cells) if getattr(w, "text", "") == f"[b]{name}[/b]")
            return cells[at: at + rows.cols]

        def steps(cell):
            return dict(zip(("+", "count", "-"), cell.children))

        assert "Trade in" not in texts(screen.ids.chain_heads)      # 4M pays for nothing yet
        for _ in range(3):
            tap(steps(row("Solon")[-1])["+"])
        # 30M wanted, 4M in hand: her own shares to trade in, in place of the bonuses.
        assert "Trade in" in texts(screen.ids.chain_heads)
        assert row("Solon")[3].text == ""                     # not the chain she buys
        for _ in range(7):
            tap(steps(row("Regal")[3])["+"])
        assert steps(row("Regal")[3])["count"].text == "7"
        tap(steps(row("Regal")[3])["-"])
        assert screen.ids.figures.text == \
            "cash 4M, these cost 30M, left 4M; 3 of 6 shares; traded in 30M"
        tap(screen.ids.confirm)
        regal, solon = game.rules.chain_index("Regal"), game.rules.chain_index("Solon")
        assert game.cash[0] == 4 and game.holdings[0][regal] == 7 and game.holdings[0][solon] == 10
        assert json.loads(table.lines[-1])["trade_in"] == {"Regal": 6}


def test_the_menu_switches_the_pi_off_after_asking_with_the_game_saved(run_app, tmp_path):
    import sys

    from tabletop.config import load_config
    from tabletop.runner import Runner
    from ui.app import TableApp

    path = tmp_path / "config.toml"
    path.write_text(f'[table]\nplayers = ["Ann", "Bob"]\n[camera]\nsource = "sim:acquire,seed=3"\n'
                    f'[controls]\nkind = "mock"\n[paths]\ndata = "{tmp_path / "data"}"\n')
    runner = Runner(load_config(path, environ={}), out=lambda line: None)
    off = tmp_path / "powered-off"
    # The stand-in for power-off notes whether the journal could still be written to.
    runner.power_off = [sys.executable, "-c", f"import pathlib; pathlib.Path({str(off)!r}).touch()"]
    journal = runner.journal
    try:
        app = run_app(TableApp(loop=runner.loop, controls=runner.controls, services=runner))
        tap(app.table.ids.menu)
        settle()
        entries = {w.text: w for w in app.table.menu.walk() if w.__class__.__name__ == "Button"}
        assert set(entries) == {"History", "New game", "Calibrate camera", "Switch off", "Back"}
        tap(entries["Switch off"])
        settle()
        popup = app.results.popup
        buttons = {w.text: w for w in popup.walk() if w.__class__.__name__ == "Button"}
        tap(buttons["No"])
        settle()
        assert not off.exists()
        # The held CONFIRM asks the same; the buttons answer: UNDO no, CONFIRM yes.
        prompt = runner.loop.desk.prompt
        app.long_press("confirm")
        settle()
        app.press("undo")
        settle()
        assert not off.exists() and app.results.popup.parent is None
        assert runner.loop.desk.prompt == prompt            # the game behind was not touched
        app.long_press("confirm")
        settle()
        app.press("confirm")
        settle()
        assert off.exists()
        assert app.results.notice.content.text == "the game is saved; switching off"
        with pytest.raises(JournalError, match="closed"):
            journal.games()                                 # closed before the power went
    finally:
        if not off.exists():
            runner.close()


def test_another_unfinished_game_is_resumed_from_the_setup_screen(run_app, tmp_path):
    """Two games left unfinished at this table: `run` puts the newer on the table; the menu's
    New game leads to the setup screen, whose Resume puts the older back where it stopped."""
    from tabletop.bot import Bot
    from tabletop.config import load_config
    from tabletop.runner import Runner
    from ui.app import TableApp

    data = tmp_path / "data"
    data.mkdir()
    with Journal.open(data / "journal.db", table_name="table 1") as journal:
        older = journal.start({"setup": {"rules": "acquire", "players": ["Ann", "Bob"], "seed": 4}})
        bot = Bot(Assistant(older), seed=4)
        for _ in range(12):
            bot.act()
        played = len(older.game.history)
        journal.start({"setup": {"rules": "acquisitions", "players": ["Cy", "Dee"], "seed": 5}})
    path = tmp_path / "config.toml"
    path.write_text(f'[camera]\nsource = "sim:acquire,seed=1"\n[controls]\nkind = "mock"\n'
                    f'[paths]\ndata = "{data}"\n')
    runner = Runner(load_config(path, environ={}), out=lambda line: None)
    try:
        app = run_app(TableApp(loop=runner.loop, controls=runner.controls, services=runner))
        assert runner.loop.desk.game.names == ["Cy", "Dee"]
        tap(app.table.ids.menu)
        settle()
        tap(next(w for w in app.table.menu.walk() if getattr(w, "text", "") == "New game"))
        settle()
        assert app.root.current == "setup" and not app.setup.ids.resume.disabled
        tap(app.setup.ids.resume)
        settle()
        entries = [w for w in app.setup.popup.walk() if w.__class__.__name__ == "Button"]
        assert [w.text for w in entries][:-1] == [
            f"#{older.id} Acquire: Ann, Bob (turn {older.game.turn})"]
        tap(entries[0])
        settle()
        assert app.root.current == "table"
        desk = runner.loop.desk
        assert desk.table.id == older.id and len(desk.game.history) == played
        assert "Ann" in app.table.ids.banner.text or "Bob" in app.table.ids.banner.text
        # The game left is still in the journal, unfinished, to be resumed in turn.
        assert [info.players for info in runner.unfinished()] == [["Cy", "Dee"]]
        Bot(desk, seed=4).act()                             # play goes on in the older game
        assert len(runner.journal.resume(older.id).game.history) == played + 1
    finally:
        runner.close()
