"""The app's other screens and its wiring, with real Kivy widgets under Xvfb: the history's
undo, the long presses, the results and their services, setup and resuming, calibration by
taps, the menu's switching off, `tabletop run` and the demo on the screen, and every screen
fitting 800x480 in both languages."""

from __future__ import annotations

import json

import pytest

from tabletop.table.assistant import Assistant
from tabletop.errors import JournalError
from tabletop.journal.journal import Journal

from uihelpers import frames, outside_the_window, play, settle, tap, tap_at, texts


def test_undo_from_the_history_takes_the_game_back_to_before_that_action(run_app, tmp_path):
    from tabletop.journal.journal import Journal
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
            table.game, 4, "en")
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
    assert app.table.ids.hints.text.startswith("Hold NEXT: history")
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
    from tabletop.journal.journal import Journal
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
        money = game.rules.money
        row = texts(app.results.ids.accounts)         # rank, name, cash, bonuses, sales, total
        assert row[row.index(winner) - 1:row.index(winner) + 5:5] == [
            "1.", money(game.cash[game.standings[0][0]])]
        assert "by chain: bonuses + sales" in shown
        paid = __import__("tabletop.journal.stats", fromlist=["paid_by_chain"]).paid_by_chain(game)
        chain, amounts = sorted(paid[winner].items())[0]
        assert f"{winner}: {chain} {money(amounts['bonus'])} + {money(amounts['sales'])}" in shown
        chart = app.results.ids.chart
        assert len(chart.points) > 20 and chart.points[-1][1] == game.cash
        app.set_language("zh-TW")
        assert "最終排名" in "\n".join(texts(app.results))


#: The app's ticks within which the simulated table's players draw and the eyes decide (a
#: hand put down, taken off, held still: a few dozen frames); far more than that is a fault.
TICKS = 300


def test_run_opens_the_app_on_the_table_and_the_camera_feeds_it(run_app, tmp_path):
    """`tabletop run` where there is a display: the app's clock steps the table loop."""
    from tabletop.assembly.config import load_config
    from tabletop.assembly.runner import Runner
    from ui.app import TableApp

    path = tmp_path / "config.toml"
    path.write_text(f'[table]\nplayers = ["Ann", "Bob"]\n[camera]\nsource = '
                    f'"sim:acquire,seed=3,placements=3"\n[controls]\nkind = "mock"\n'
                    f'[paths]\ndata = "{tmp_path / "data"}"\n')
    from tabletop.table.loop import Record

    # On a screen the simulated table gives a frame each time the app's clock asks (not
    # paced by the wall): the same frames reach the eyes however busy the machine is.
    runner = Runner(load_config(path, environ={}), out=lambda line: None, on_screen=True)
    record = Record()
    runner.loop.observers.append(record)
    try:
        with runner.camera:
            app = run_app(TableApp(loop=runner.loop, controls=runner.controls))
            assert app.table.ids.title.text.startswith("Each player draws a tile")
            for _ in range(TICKS):
                if record.decisions:
                    break
                app.tick()
            assert record.decisions                    # frames went through the eyes
            assert "seen" in app.table.ids.title.text
    finally:
        runner.close()


def test_on_the_touchscreen_the_light_blinks_for_a_proposal_and_the_buzzer_sounds_a_refusal(
        run_app, tmp_path):
    """The Pi's service runs the app: its tick drives the status light and the buzzer too."""
    from assembly.test_run import resumed_runner
    from ui.app import TableApp

    runner = resumed_runner(tmp_path, {"rules": "acquire", "players": ["Ann", "Bob"],
                                       "start_tiles": {"Ann": "1A", "Bob": "12I"}})
    controls = runner.controls
    try:
        app = run_app(TableApp(loop=runner.loop, services=runner.services))
        app.tick()
        assert controls.shown == ["ready"] and controls.beeps == []
        runner.loop.desk.tile_seen("6C")            # the camera's commit, as the eyes give it
        app.tick()
        assert app.table.ids.title.text == "Ann placed 6C: CONFIRM plays it, UNDO refuses it"
        assert controls.shown == ["ready", "waiting"] and controls.beeps == ["tile_seen"]
        app.tick()                                   # a proposal is greeted once
        assert controls.beeps == ["tile_seen"]
        controls.press("confirm")                    # the GPIO button, through the app's tick
        app.tick()
        assert [a.tile for a in runner.loop.desk.game.history] == ["6C"]
        runner.loop.desk.tile_seen("7D")             # put down while the table is asked to buy
        app.tick()
        assert controls.beeps == ["tile_seen", "error"] and controls.shown[-1] == "waiting"
        assert "7D" in app.table.ids.message.text
    finally:
        runner.close()


def test_setup_seats_the_players_typed_in_with_the_options_chosen(run_app):
    from tabletop.table.seating import Seating
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


def test_the_results_screen_prints_the_slip_and_shows_a_printer_fault(run_app, tmp_path):

    from assembly.test_run import _fake_printer, finished_runner
    from ui.app import TableApp

    device = _fake_printer()
    runner = finished_runner(tmp_path, device.url)
    try:
        app = run_app(TableApp(loop=runner.loop, controls=runner.controls, services=runner.services))
        app.update()
        assert app.root.current == "results"
        assert app.results.ids.status.text.startswith("CONFIRM: print the slip")
        frames(2)                       # the results just shown are laid out, then tapped
        tap(app.results.ids.print)
        assert app.results.ids.status.text == "printing the score slip"
        assert runner.services.last_job.wait(5)
        app.press("next")                            # the GPIO buttons too: NEXT to a stick
        assert app.results.ids.status.text == "no USB stick found: plug one in and try again"
        app.press("confirm")                         # CONFIRM prints the slip again
        assert app.results.ids.status.text == "printing the score slip"
        assert runner.services.last_job.wait(5)
        device.close()                               # the printer is unplugged
        runner.services.print_slip()
        runner.services._printer().wait_idle()
        app.update(force=True)
        assert app.results.ids.status.text == "printer unplugged; 1 slip waiting"
        app.show("table")
        assert app.table.ids.banner.text.strip() == "printer unplugged; 1 slip waiting"
        assert app.table.fault
        app.show("results")
        played = len(runner.loop.desk.game.history)
        app.press("undo")                            # UNDO: back to the table, the end taken back
        assert app.root.current == "table"
        assert runner.loop.desk.game.pending is not None
        assert len(runner.loop.desk.game.history) == played - 1
    finally:
        runner.close()


def test_the_demo_plays_on_the_touchscreen_a_frame_a_tick(run_app, tmp_path):
    from tabletop.assembly.demo import Demo
    from ui.app import TableApp

    demo = Demo("acquire", 3, journal=tmp_path / "journal.db", out=None, size=(640, 480),
                turns=3)
    try:
        app = run_app(TableApp(loop=demo.loop, driver=demo.steps()))
        titles = set()
        for _ in range(900):
            app.tick()
            titles.add(app.table.ids.title.text)
            if app.driver is None:
                break
        assert demo.assistant is not None and len(demo.assistant.game.history) >= 6
        assert any(title.startswith("Each player draws") for title in titles)   # the draw
        assert any(" placed " in title for title in titles)        # a proposal on the screen
        assert demo.report.committed                                # seen by the camera
        # Stopped by --turns, the game unfinished: the window says so, and how to leave it.
        assert demo.stopped and demo.assistant.game.pending is not None
        frames(2)
        title = app.table.ids.title
        assert title.text == "The demo stopped after turn 3: press Esc or close the window to end"
        assert app.table.ids.chosen.text == "" and outside_the_window(title) == []
        read = demo.camera.read
        demo.camera.read = lambda: pytest.fail("a stopped demo's table stands still")
        app.tick()
        demo.camera.read = read
    finally:
        demo.close()


def test_calibration_by_tapping_the_four_corners_draws_the_grid_saves_and_tests(run_app, tmp_path):
    import cv2
    import numpy as np
    from calibration.calfile import load_calibration
    from calibration.synthetic.render import make_table, render, render_empty
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


def test_the_menu_switches_the_pi_off_after_asking_with_the_game_saved(run_app, tmp_path):
    import sys

    from tabletop.assembly.config import load_config
    from tabletop.assembly.runner import Runner
    from ui.app import TableApp

    path = tmp_path / "config.toml"
    path.write_text(f'[table]\nplayers = ["Ann", "Bob"]\n[camera]\nsource = "sim:acquire,seed=3"\n'
                    f'[controls]\nkind = "mock"\n[paths]\ndata = "{tmp_path / "data"}"\n')
    runner = Runner(load_config(path, environ={}), out=lambda line: None)
    off = tmp_path / "powered-off"
    # The stand-in for power-off notes whether the journal could still be written to.
    runner.services.power_off = [sys.executable, "-c", f"import pathlib; pathlib.Path({str(off)!r}).touch()"]
    journal = runner.journal
    try:
        app = run_app(TableApp(loop=runner.loop, controls=runner.controls, services=runner.services))
        # The app's clock would step the simulated camera in wall time while the popups
        # animate (the draw moving on under load): the table stands still, so that what the
        # buttons did, and only that, is what changed.
        from kivy.clock import Clock

        Clock.unschedule(app.tick)
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
        app.press("next")                                   # any button closes the notice
        settle()
        assert app.results.notice.parent is None
        with pytest.raises(JournalError, match="closed"):
            journal.games()                                 # closed before the power went
    finally:
        if not off.exists():
            runner.close()


def test_another_unfinished_game_is_resumed_from_the_setup_screen(run_app, tmp_path):
    """Two games left unfinished at this table: `run` puts the newer on the table; the menu's
    New game leads to the setup screen, whose Resume puts the older back where it stopped."""
    from tabletop.table.bot import Bot
    from tabletop.assembly.config import load_config
    from tabletop.assembly.runner import Runner
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
        app = run_app(TableApp(loop=runner.loop, controls=runner.controls, services=runner.services))
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
        assert "Ann" in app.table.ids.turn.text or "Bob" in app.table.ids.turn.text
        # The game left is still in the journal, unfinished, to be resumed in turn.
        assert [info.players for info in runner.services.unfinished()] == [["Cy", "Dee"]]
        Bot(desk, seed=4).act()                             # play goes on in the older game
        assert len(runner.journal.resume(older.id).game.history) == played + 1
    finally:
        runner.close()



def test_a_table_of_many_unfinished_games_pages_its_resume_list(run_app, tmp_path):
    """Twelve games left unfinished (a table of years keeps many): the newest is on the table,
    the eleven others are listed five at a time, newest first, and the oldest, on the last
    page, is put back on the table by a tap. Every button is a finger's size at 800x480."""
    from tabletop.assembly.config import load_config
    from tabletop.assembly.runner import Runner
    from ui.app import TableApp

    data = tmp_path / "data"
    data.mkdir()
    with Journal.open(data / "journal.db", table_name="table 1") as journal:
        ids = [journal.start({"setup": {"rules": "acquire", "players": [f"P{n}", "Bob"],
                                        "seed": n}}).id for n in range(12)]
    path = tmp_path / "config.toml"
    path.write_text(f'[camera]\nsource = "sim:acquire,seed=1"\n[controls]\nkind = "mock"\n'
                    f'[paths]\ndata = "{data}"\n')
    runner = Runner(load_config(path, environ={}), out=lambda line: None)
    try:
        app = run_app(TableApp(loop=runner.loop, controls=runner.controls, services=runner.services))
        assert runner.loop.desk.table.id == ids[-1]
        app.root.current = "setup"
        settle()

        def page() -> tuple[list[str], dict]:
            buttons = [w for w in app.setup.popup.walk() if w.__class__.__name__ == "Button"]
            for button in buttons:
                assert min(button.size) >= 44, (button.text, button.size)
            named = {w.text: w for w in buttons}
            return [w.text.split(" ")[0] for w in buttons if w.text.startswith("#")], named

        tap(app.setup.ids.resume)
        settle()
        listed, buttons = page()
        assert listed == [f"#{i}" for i in ids[-2:-7:-1]]           # the five newest
        assert "1 of 3" in texts(app.setup.popup) and buttons["Newer"].disabled
        tap(buttons["Older"])
        settle()
        tap({w.text: w for w in app.setup.popup.walk() if hasattr(w, "text")}["Older"])
        settle()
        listed, buttons = page()
        assert listed == [f"#{ids[0]}"] and "3 of 3" in texts(app.setup.popup)
        assert buttons["Older"].disabled and not buttons["Newer"].disabled
        tap(buttons[next(t for t in buttons if t.startswith(f"#{ids[0]} "))])
        settle()
        assert app.root.current == "table" and runner.loop.desk.table.id == ids[0]
    finally:
        runner.close()

# --- first use (issue 16): no calibration, no camera ---------------------------------------------

def _table(tmp_path, camera: str, players: str = ""):
    """`tabletop run`'s table with the touchscreen, for a fresh data folder."""
    from tabletop.assembly.config import load_config
    from tabletop.assembly.runner import Runner

    path = tmp_path / "config.toml"
    path.write_text(f'[camera]\nsource = "{camera}"\n[controls]\nkind = "mock"\n'
                    f'[table]\nplayers = [{players}]\n[paths]\ndata = "{tmp_path / "data"}"\n')
    return Runner(load_config(path, environ={}), out=lambda line: None, on_screen=True)


def test_a_new_table_is_led_through_calibrating_then_goes_on_to_the_setup(run_app, tmp_path):
    """No calibration: the app opens on the calibration screen, whose steps say what to print,
    where the markers and the camera go and which corners to tap in which order; once saved,
    the camera reads the board and the table goes on to the setup."""
    import cv2
    import numpy as np
    from calibration.synthetic.render import make_table, render_empty
    from ui.app import TableApp

    table = make_table("acquire", seed=2, size=(640, 480))
    empty = render_empty(table, np.random.default_rng(1))
    (tmp_path / "frames").mkdir()
    cv2.imwrite(str(tmp_path / "frames" / "frame_00000.png"), empty.image)
    runner = _table(tmp_path, f"dir:{tmp_path / 'frames'}")
    try:
        with runner.camera:
            app = run_app(TableApp(loop=runner.loop, services=runner.services,
                                   camera=runner.camera, camera_off=runner.camera_off(),
                                   new_game=runner.new_game,
                                   calibrated=runner.loop.eyes is not None))
            screen = app.calibration
            assert app.root.current == "calibration" and screen.guide
            app.tick()
            frames(3)
            steps = "\n".join(texts(screen.ids.guide))
            assert "tabletop markers --out markers.png" in steps and "100%" in steps
            assert "near each corner of the board, outside the grid" in steps
            assert "1A, 12A, 12I, 1I" in steps and "seen: 0, 1, 2, 3" in steps
            assert min(w.font_size for w in screen.ids.guide.walk(restrict=True)
                       if hasattr(w, "font_size")) >= 16
            assert outside_the_window(screen) == []
            for x, y in empty.truth.corners:
                tap_at(*screen.ids.view.to_widget(x, y))
            tap(screen.ids.save)
            assert screen.ids.status.text.startswith("saved to ")
            settle(1.3)                 # the "saved" read (a second), the setup comes
            assert app.root.current == "setup" and runner.loop.eyes is not None
            assert (tmp_path / "data" / "calibration.json").is_file()
            assert app.camera_reason() == ""
    finally:
        runner.close()


def test_without_a_camera_the_app_opens_and_every_desk_says_to_tap_tiles_in(run_app, tmp_path):
    from ui.app import TableApp

    runner = _table(tmp_path, "off")
    try:
        app = run_app(TableApp(loop=runner.loop, services=runner.services, camera=None,
                               camera_off=runner.camera_off(), new_game=runner.new_game))
        assert app.root.current == "setup"
        tap(app.setup.ids.start)
        app.tick()
        frames(2)
        assert app.root.current == "table"
        banner = app.table.ids.banner.text
        assert "none configured" in banner and "tap" in banner, banner
        assert outside_the_window(app.table.ids.banner) == []
        app.set_language("zh-TW")
        app.update(force=True)
        assert "（未設定）" in app.table.ids.banner.text, app.table.ids.banner.text
    finally:
        runner.close()


def test_a_resumed_game_without_a_camera_is_played_by_taps(run_app, tmp_path):
    from tabletop.journal.journal import Journal
    from ui.app import TableApp

    (tmp_path / "data").mkdir()
    with Journal.open(tmp_path / "data" / "journal.db", table_name="table 1") as journal:
        journal.start({"setup": {"rules": "acquire", "players": ["Ann", "Bob"],
                                 "start_tiles": {"Ann": "1A", "Bob": "12I"}}})
    runner = _table(tmp_path, "off")
    try:
        app = run_app(TableApp(loop=runner.loop, services=runner.services, camera=None,
                               camera_off=runner.camera_off()))
        app.tick()
        assert "none configured" in app.table.ids.banner.text
        app.table.cell_tapped("6C")                  # the tile entered by hand
        app.tick()
        assert "6C" in app.table.ids.title.text
    finally:
        runner.close()


def test_the_menu_offers_ending_by_agreement_only_where_the_table_may_propose_it(run_app, table):
    """The entry asks each player in turn (the desk's propose_end); while they are asked, or
    at a table without the option, it is not offered. Every entry is a finger's target."""
    from ui.app import TableApp

    desk = Assistant(table)
    app = run_app(TableApp(desk=desk))
    tap(app.table.ids.menu)
    settle()
    buttons = {w.text: w for w in app.table.menu.walk() if w.__class__.__name__ == "Button"}
    assert list(buttons) == ["History", "End the game by agreement", "New game",
                             "Calibrate camera", "Switch off", "Back"]
    for button in buttons.values():
        assert button.width >= 48 and button.height >= 48, button.text
    assert outside_the_window(app.table.menu) == []
    tap(buttons["End the game by agreement"])
    settle()
    assert desk.prompt.kind == "agree" and not desk.end_proposable   # the first one asked
    assert "end the game now" in app.table.ids.title.text
    tap(app.table.ids.menu)
    settle()
    shown = [w.text for w in app.table.menu.walk() if w.__class__.__name__ == "Button"]
    assert "End the game by agreement" not in shown
