"""`tabletop run --camera sim` on a laptop: the whole real flow on the simulated table. With no
calibration in the data folder the window opens on the calibration screen over the simulated
camera's picture of the empty board; once its four corners are tapped and it is saved, the
setup, the turn-order draw (the simulated players put a tile each down) and the first
proposal, which names the tile the simulated player put down. A second run uses the saved
calibration and goes on with the game.

Real Kivy windows under Xvfb (conftest); the app's clock is stepped by hand, frame by frame,
until what is waited for is on the screen: no wall-clock waits.
"""

from __future__ import annotations

from uihelpers import frames, tap, tap_at, texts

#: Frames at the most for one thing the table waits for (a hand's visit is 2 to 4 s of them).
PATIENCE = 400


def _runner(tmp_path, camera="sim:acquire,seed=2"):
    """`tabletop run --camera sim --data DATA` as the command line makes it, in a window."""
    from tabletop.assembly.config import load_config
    from tabletop.assembly.runner import Runner

    path = tmp_path / "config.toml"
    path.write_text('[controls]\nkind = "mock"\n[sound]\nkind = "off"\n')
    config = load_config(path, environ={})
    config.values["paths"]["data"] = str(tmp_path / "data")
    lines: list[str] = []
    return Runner(config, out=lines.append, on_screen=True, camera=camera), lines


def _until(app, done, ticks: bool = True) -> None:
    """The app's beats (each a camera frame) and Kivy's frames until ``done()``."""
    for _ in range(PATIENCE):
        if done():
            return
        if ticks:
            app.tick()
        frames(1)
    assert done(), "the table never got there"


def _key(letter: str) -> None:
    """A key of the laptop's keyboard, through the window."""
    from kivy.core.window import Window

    Window.dispatch("on_key_down", ord(letter), 0, letter, [])
    frames(1)


def test_a_laptop_goes_from_calibrating_the_simulated_table_to_its_first_proposal(run_app,
                                                                                  tmp_path):
    runner, lines = _runner(tmp_path)
    saved = tmp_path / "data" / "calibration.json"
    try:
        assert runner.loop.eyes is None and not saved.exists()
        assert f"no calibration at {saved}: calibrate the camera on the touchscreen: tap the " \
               f"centres of the four corner cells, then Save" in lines
        with runner.camera:
            app = run_app(runner.make_app())
            screen = app.calibration
            assert app.root.current == "calibration" and screen.guide
            _until(app, lambda: screen.ids.view.image is not None)
            assert screen.ids.status.text == "markers seen: 0, 1, 2, 3"
            assert screen.ids.heading.text == "Tap the centre of cell 1A"
            _, corners = runner.camera.calibration_view()    # where 1A, 12A, 12I, 1I are
            for x, y in corners:
                tap_at(*screen.ids.view.to_widget(x, y))
            assert len(screen.ids.view.grid) == 108          # the grid drawn over the board
            tap(screen.ids.save)
            assert screen.ids.status.text == f"saved to {saved}"
            assert saved.is_file() and runner.loop.eyes is not None
            _until(app, lambda: app.root.current == "setup", ticks=False)
            frames(3)                                        # laid out, its buttons in place

            tap(app.setup.ids.start)                         # Ann, Bob and Cy, as shown
            assert app.root.current == "table", app.setup.ids.problem.text
            seating = runner.loop.desk
            _until(app, lambda: seating.prompt.kind == "seat")
            drawn = set(runner.camera.live.tiles)
            assert len(drawn) == 3 and set(seating.tiles) == drawn
            assert app.table.ids.title.text.startswith("Who drew ")
            for _ in range(3):
                _key("c")                  # whoever the screen names first drew it
            game = runner.loop.desk.game
            _until(app, lambda: runner.loop.desk.prompt.chosen.action is not None)
            placed = runner.camera.live.events[-1]
            tile = placed.labels[0]
            assert placed.kind == "place" and tile not in drawn
            player = game.names[game.pending.player]
            assert runner.loop.desk.prompt.chosen.action.tile == tile
            shown = "\n".join(texts(app.table))
            assert tile in shown and player in shown, shown
            _key("c")
            assert len(game.history) == 1 and game.board.cells[game.geometry.parse(tile)] != 0
        game_id = runner.loop.desk.table.id
    finally:
        runner.close()

    again, lines = _runner(tmp_path)                         # the next run: saved, resumed
    try:
        assert again.loop.eyes is not None and again.loop.desk.table.id == game_id
        assert any(line.startswith(f"resuming game {game_id} ") for line in lines), lines
        assert set(again.camera.live.tiles) == again.loop.desk.tiles     # still on the table
        with again.camera:
            app = run_app(again.make_app())
            assert app.root.current == "table"
            _until(app, lambda: again.loop.eyes.board is not None)
            assert again.loop.desk.prompt.kind != "settle"      # the board and the game agree
            assert "differ" not in app.table.ids.title.text
    finally:
        again.close()


def test_a_simulated_table_named_in_the_configuration_still_calibrates_itself(tmp_path):
    """Screenshots and tests set `sim` in the configuration: no calibration screen for them."""
    from tabletop.assembly.config import load_config
    from tabletop.assembly.runner import Runner

    path = tmp_path / "config.toml"
    path.write_text(f'[camera]\nsource = "sim:acquire,seed=2"\n[controls]\nkind = "mock"\n'
                    f'[paths]\ndata = "{tmp_path / "data"}"\n')
    runner = Runner(load_config(path, environ={}), out=lambda line: None, on_screen=True)
    try:
        assert runner.loop.eyes is not None
        assert not (tmp_path / "data" / "calibration.json").exists()
    finally:
        runner.close()
