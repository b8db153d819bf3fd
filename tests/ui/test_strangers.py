"""A table of strangers: four new players, a fresh data folder, no camera, a whole game.

The real app in a real window at the panel's size, built as ``tabletop run`` builds it
(the runner's loop, journal and services, the buttons a mock GPIO panel), driven only by
taps on the screen and the three buttons: setup, the turn-order draw, founding, a merger
with two holders disposing, purchases, an end agreed by everyone, the results. At each
step the window fills the screen and every widget the step needs is on it, large enough
and unclipped.

Each step checked is drawn on the window, as the panel shows it; the frames between (a tap's,
a button's beat) pass as ever, one by one, but undrawn: what is checked is read from the
widgets, and under Xvfb a drawing was most of a game's cost.
"""

from __future__ import annotations

import pytest

from uihelpers import laid_out, outside_the_window, tap, tap_at, texts

#: Draw tiles at the four corners: 1A goes first, then 1I, 12A, 12I (by number, then letter).
DRAW = ("1A", "12I", "1I", "12A")


def _runner(tmp_path):
    from tabletop.assembly.config import load_config
    from tabletop.assembly.runner import Runner

    path = tmp_path / "config.toml"
    path.write_text(f'[camera]\nsource = "off"\n[controls]\nkind = "mock"\n'
                    f'[sound]\nkind = "mock"\n[paths]\ndata = "{tmp_path / "data"}"\n')
    return Runner(load_config(path, environ={}), out=lambda line: None, on_screen=True)


class Table:
    """The app as the players see it, and their fingers on it."""

    def __init__(self, app, runner, size):
        self.app, self.runner, self.size = app, runner, size
        self.scale = size[1] / 480

    # --- what the players do ----------------------------------------------------------------

    def button(self, name: str) -> None:
        """A GPIO button pressed and released, read by the app's next beat."""
        self.runner.controls.press(name.upper())
        self.app.tick()
        laid_out(2)

    def tap(self, widget) -> None:
        self.visible(widget)
        tap(widget)
        self.app.tick()
        laid_out(2)

    def enter(self, label: str) -> None:
        """A tile tapped in: on the board, then (too small to hit) on the zoomed picker."""
        screen = self.app.table
        board = screen.ids.board
        self.visible(board)
        tap_at(*board.centre(board.geometry.parse(label)))
        if not board.direct:
            picker = screen.ids.picker
            assert picker.shown, f"no picker opened for {label}"
            (cell,) = [w for w in picker.children
                       if getattr(w, "text", "").split("\n")[-1] == label]
            self.tap(cell)
        self.app.tick()
        laid_out(2)

    def choose(self, words: str, but: str = "\0") -> None:
        """The one choice listed with ``words`` in it (and not ``but``), tapped; CONFIRM applies."""
        buttons = [w for w in self.app.table.ids.choices.children
                   if words in w.text and but not in w.text]
        assert len(buttons) == 1, (words, [w.text for w in self.app.table.ids.choices.children])
        self.tap(buttons[0])

    def buy(self, chain: str, count: int) -> None:
        """``count`` shares of ``chain`` put in the basket with its row's + stepper."""
        for bought in range(1, count + 1):
            self.tap(self._stepper(chain).children[0])        # [+, count, -] reversed
            assert self._stepper(chain).children[1].text == str(bought)

    def _stepper(self, chain: str):
        """``chain``'s buy stepper, as the chain table shows it now (a tap rebuilds it)."""
        row = list(reversed(self.app.table.ids.chains.children))
        names = [i for i, w in enumerate(row) if chain in getattr(w, "text", "")]
        assert names, f"{chain} is not in the chain table"
        return next(w for w in row[names[0]:] if w.__class__.__name__ == "BoxLayout")

    # --- what they see ------------------------------------------------------------------------

    def draw(self) -> None:
        """The window drawn as the app stands (no frame of its clock passes): what the panel
        shows at the step checked, as the end of Kivy's own frame draws it."""
        from kivy.core.window import Window
        from kivy.lang import Builder

        Builder.sync()
        if Window.canvas.needs_redraw:
            Window.dispatch("on_draw")
            Window.dispatch("on_flip")

    def shot(self, name: str) -> None:
        """The screen as a PNG in ``$TABLETOP_LOOK``, to look at as a player would."""
        import os

        from kivy.core.window import Window

        folder = os.environ.get("TABLETOP_LOOK")
        if folder:
            self.draw()
            made = Window.screenshot(os.path.join(folder, f"{name}-{self.size[0]}x{self.size[1]}.png"))
            os.replace(made, os.path.join(folder, f"{name}-{self.size[0]}x{self.size[1]}.png"))

    @property
    def title(self) -> str:
        return self.app.table.ids.title.text

    def check(self, *needed) -> None:
        """The window is the screen; ``needed`` and the whole screen shown are on it, readable."""
        from kivy.core.window import Window
        from kivy.uix.button import Button
        from kivy.uix.label import Label

        self.draw()
        assert tuple(Window.size) == self.size
        screen = self.app.root.current_screen
        assert outside_the_window(screen) == []
        for widget in needed:
            self.visible(widget)
        for widget in screen.walk():
            if widget.opacity == 0 or widget.width <= 1 or widget.height <= 1 or \
                    not getattr(widget, "text", ""):
                continue
            if isinstance(widget, Label) and not isinstance(widget, Button):
                assert widget.font_size >= 12 * self.scale - 0.5, (widget.text, widget.font_size)
            if isinstance(widget, Button) and not widget.disabled:
                assert min(widget.size) >= 48 * self.scale - 0.5, (widget.text, widget.size)

    def visible(self, widget) -> None:
        """On screen, not hidden, at least a finger's size if it is a button."""
        from kivy.core.window import Window
        from kivy.uix.button import Button
        from kivy.uix.label import Label

        assert widget.opacity > 0 and widget.width > 1 and widget.height > 1, widget
        x, y = widget.to_window(widget.x, widget.y)
        assert x >= -1 and y >= -1 and x + widget.width <= Window.width + 1 and \
            y + widget.height <= Window.height + 1, (getattr(widget, "text", widget), x, y)
        if isinstance(widget, Button):
            assert min(widget.size) >= 48 * self.scale - 0.5, (widget.text, widget.size)
        if isinstance(widget, Label) and widget.text:
            unclipped(widget)


def unclipped(label) -> None:
    """All of ``label``'s text is drawn: laid out at its width with no line limit and no
    shortening, it is no larger than the label."""
    from kivy.core.text import Label as CoreLabel

    full = CoreLabel(text=label.text, font_size=label.font_size, font_name=label.font_name,
                     bold=label.bold, markup=label.markup, padding=label.padding,
                     text_size=(None if label.shorten else label.width, None))
    full.refresh()
    width, height = full.texture.size
    assert width <= label.width + 1 and height <= label.height + 1, \
        (label.text, (width, height), tuple(label.size))


def _turn(table: Table, tile: str, buy: dict[str, int] | None = None) -> str:
    """The player to play places ``tile`` by taps, CONFIRM; buys ``buy`` with the steppers."""
    player = table.app.desk.prompt.player
    assert table.title == f"{player}: place a tile", table.title
    table.enter(tile)
    assert table.app.table.ids.chosen.text.startswith(tile), table.app.table.ids.chosen.text
    ids = table.app.table.ids
    table.check(ids.confirm, ids.turn, ids.title, ids.chosen,
                *([ids.effects] if ids.effects.text else []))
    table.shot(f"place-{tile}")
    table.button("confirm")
    return player


def _buy(table: Table, shares: dict[str, int]) -> None:
    """The player buys ``shares`` with the steppers, CONFIRM: the bank's books show it."""
    game = table.app.desk.game
    seat = game.pending.player
    assert "buy" in table.title, table.title
    before = {chain: game.holdings[seat][game.rules.chain_index(chain)] for chain in shares}
    cash = game.cash[seat]
    for chain, count in shares.items():
        table.buy(chain, count)
    table.check(table.app.table.ids.confirm)
    table.tap(table.app.table.ids.confirm)
    cost = 0
    for chain, count in shares.items():
        index = game.rules.chain_index(chain)
        assert game.holdings[seat][index] == before[chain] + count
        cost += count * game.price(index)
    assert game.cash[seat] == cash - cost


@pytest.mark.parametrize("size", [(800, 480), (1280, 720)], ids=["800x480", "1280x720"])
def test_four_strangers_play_a_whole_game_by_taps_and_buttons(tmp_path, run_app, size):
    from tabletop.table.assistant import Assistant
    from ui.app import TableApp
    from ui.window import fit

    runner = _runner(tmp_path)
    try:
        app = run_app(TableApp(loop=runner.loop, new_game=runner.new_game,
                               services=runner.services, camera=runner.camera,
                               camera_off=runner.camera_off(),
                               calibrated=runner.loop.eyes is not None))
        fit(*size)
        laid_out(3)
        table = Table(app, runner, size)
        # Setup: the three players the screen offers, a fourth added by a tap, Start.
        assert app.root.current == "setup"
        table.check(app.setup.ids.start, app.setup.ids.add)
        table.shot("setup")
        table.tap(app.setup.ids.add)
        table.tap(app.setup.ids.start)
        assert app.root.current == "table"
        players = list(app.desk.players)
        assert len(players) == 4
        # The draw, by taps: the banner says the camera is off.
        screen = app.table
        assert "camera off" in screen.ids.banner.text
        table.check(screen.ids.board, screen.ids.banner, screen.ids.title)
        table.shot("draw")
        for tile in DRAW:
            table.enter(tile)
        for tile, player in (("1A", players[0]), ("1I", players[1]), ("12A", players[2])):
            assert table.title == f"Who drew {tile}?", table.title
            table.choose(player)
            table.button("confirm")
        assert isinstance(app.desk, Assistant)
        order = [app.desk.game.names[(app.desk.game.current + k) % 4] for k in range(4)]
        assert order[0] == players[0]                  # 1A is nearest 1A
        # Turns 1-4: two lone tiles; two chains founded, from the list of chains with prices.
        _turn(table, "5E")
        _buy(table, {})
        _turn(table, "5F")
        assert "Tower" in " ".join(texts(screen.ids.choices)) and "$" in " ".join(
            texts(screen.ids.choices))
        table.shot("found")
        table.choose("Tower")
        table.check(screen.ids.confirm)
        table.tap(screen.ids.confirm)
        _buy(table, {"Tower": 2})
        _turn(table, "8E")
        _buy(table, {})
        luxor_founder = _turn(table, "8F")
        table.choose("Luxor")
        table.tap(screen.ids.confirm)
        _buy(table, {"Luxor": 3})
        # Turn 5: the first player buys a Luxor share; turn 6 grows Tower to three.
        _turn(table, "3C")
        _buy(table, {"Luxor": 1})
        _turn(table, "6E")
        _buy(table, {})
        game = app.desk.game
        luxor = game.rules.chain_index("Luxor")
        holders = [name for seat, name in enumerate(game.names) if game.holdings[seat][luxor]]
        assert sorted(holders) == sorted({luxor_founder, order[0]})
        cash_before = {name: game.cash[seat] for seat, name in enumerate(game.names)}
        # Turn 7: 7E merges Luxor (2) into Tower (3); Luxor's two holders dispose.
        merger_maker = _turn(table, "7E")
        table.check(screen.ids.merger)
        table.shot("merger")
        summary = " ".join(texts(screen.ids.merger))
        assert luxor_founder in summary and order[0] in summary
        first = game.names[game.pending.player]
        assert screen.ids.decider.text == f"{first} decides" or first == merger_maker
        table.choose("trade 0 · keep 0", but="sell 0 ")     # the first holder sells all
        table.button("confirm")
        second = game.names[game.pending.player]
        assert second != first and game.pending.kind == "dispose"
        table.choose("sell 0 · trade 0 · keep")              # the second keeps all
        table.button("confirm")
        assert game.pending.kind == "buy"
        paid = {name: game.cash[seat] - cash_before[name] for seat, name in enumerate(game.names)}
        assert paid[luxor_founder] > 0 and paid[order[0]] > 0   # both got a bonus
        _buy(table, {"Tower": 1})
        # Turn 8: an end by agreement, proposed from the menu and asked of each player.
        _turn(table, "10C")
        table.tap(screen.ids.menu)
        from kivy.core.window import Window
        from kivy.uix.modalview import ModalView

        (menu,) = [w for w in Window.children if isinstance(w, ModalView)]
        (end,) = [w for w in menu.walk() if "agreement" in getattr(w, "text", "")]
        table.tap(end)
        laid_out(3)
        table.shot("agree")
        asked = []
        while app.desk.prompt.kind == "agree":
            asked.append(app.desk.prompt.player)
            table.check(screen.ids.confirm, screen.ids.title, screen.ids.chosen)
            table.button("confirm")
        assert sorted(asked) == sorted(players), asked
        while app.desk.prompt.kind != "over":        # the turn is finished first
            assert app.desk.prompt.kind == "buy", app.desk.prompt
            table.button("confirm")
        app.tick()
        laid_out(3)
        assert app.root.current == "results"
        results = app.results
        table.check(*(results.ids[name] for name in ("print", "export", "shutdown", "new_game",
                                                       "standings", "chart", "legend")))
        table.shot("results")
        shown = " ".join(texts(results))
        final = game.cash
        for seat, name in enumerate(game.names):
            assert name in shown and game.rules.money(final[seat]) in shown
        # Every confirmed action is in the journal: a replay of it is this game.
        from tabletop import replay
        from tabletop.engine.state import state_json

        lines = runner.journal.lines(runner.journal.games()[-1].id)
        assert state_json(replay(lines).game) == state_json(game)
    finally:
        runner.close()
