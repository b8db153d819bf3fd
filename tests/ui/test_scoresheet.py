"""The score sheet in a real window under Xvfb: the figures of real games part way through,
as the rule files price them, withheld as each disclosure level says, whose turn and who
decides marked, and the sheet whole, readable and on screen at every supported size."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from uihelpers import frames, outside_the_window, showing, tap, texts

from tabletop.assembly.screenshots import demo_desk
from tabletop.engine.state import LEVELS

RULES = Path(__file__).resolve().parents[2] / "tabletop" / "rules"


# One app for the module (all its tests in one worker, which makes it once): building an app
# is most of what a sheet shown costs, and a table's app shows a game after another, as here.
pytestmark = pytest.mark.xdist_group("scoresheet-app")


def open_sheet(app, desk, language="en"):
    """The module's app showing ``desk``'s score sheet in ``language``."""
    return showing(app, desk, "scores", language)


def rows(box):
    """{row key: the texts of its cells, left to right} of one block of the sheet."""
    return {row.key: [re.sub(r"\[/?[a-z]+[^\]]*\]", "", c.text) for c in reversed(row.children)]
            for row in box.children}


def file_price(name: str, tier: str, size: int) -> int:
    """A share's price read straight from the rule file: the tier's price for the bracket."""
    data = tomllib.loads((RULES / f"{name}.toml").read_text())
    brackets = data["prices"]["brackets"]
    bracket = max(i for i, start in enumerate(brackets) if start <= size)
    return data["prices"]["tiers"][tier][bracket]


def check_screen(screen, language="en"):
    """On screen, readable, tappable, never cut: what every size must give."""
    from kivy.uix.button import Button
    from kivy.uix.label import Label

    from ui.scoresheet import SheetCell

    assert outside_the_window(screen) == []
    for widget in screen.walk():
        if isinstance(widget, Label) and widget.text:
            assert widget.font_size >= 12, (widget.text, widget.font_size)
        if isinstance(widget, Button):
            assert widget.width >= 48 and widget.height >= 48, widget.text
        if isinstance(widget, SheetCell) and widget.text:
            widget.texture_update()
            # Nothing shortened with "...", nothing wider than its column.
            assert "..." not in widget.text and "…" not in widget.text
            assert widget.texture_size[0] <= widget.width + 1, (widget.text, widget.width)


@pytest.mark.parametrize("rules, actions", [("acquire", 60), ("megacquire-gold", 90),
                                            ("acquisitions", 60)])
def test_the_sheet_shows_every_figure_of_the_game_at_every_size(module_app, rules, actions):
    from ui.window import SIZES, fit

    desk = demo_desk(rules, actions=actions)
    game = desk.game
    _app, screen = open_sheet(module_app, desk)
    money = game.rules.money
    try:
        for size in SIZES:
            fit(*size)
            frames(4)
            fixed, chains = rows(screen.ids.fixed), rows(screen.ids.chains)
            for c, chain in enumerate(game.rules.chains):
                held = sum(h[c] for h in game.holdings)
                # The bank holds what no player does.
                assert chains["bank"][c] == str(chain.shares - held)
                tiles = game.board.sizes[c]
                if tiles:
                    assert chains["size"][c] == str(tiles)
                    assert chains["price"][c] == money(file_price(rules, chain.tier, tiles))
                    assert (chains["safe"][c] == "safe") == (tiles >= game.rules.safe_size)
                else:
                    assert chains["size"][c] == chains["price"][c] == "-"
            for seat, name in enumerate(game.names):
                assert fixed[name][1] == name
                assert fixed[name][2] == money(game.cash[seat])
                worth = game.cash[seat] + sum(
                    n * file_price(rules, game.rules.chains[c].tier, game.board.sizes[c])
                    for c, n in enumerate(game.holdings[seat]) if n and game.board.sizes[c])
                assert fixed[name][3] == money(worth)
                assert chains[name] == [str(n) if n else "" for n in game.holdings[seat]]
            check_screen(screen)
            # The figures a player acts on, large: cash and prices.
            cash = [list(reversed(row.children))[2] for row in screen.ids.fixed.children
                    if row.key in game.names]
            prices = next(r for r in screen.ids.chains.children if r.key == "price").children
            assert len(cash) == len(game.names) and all(c.font_size >= 18 for c in cash)
            assert all(c.font_size >= 18 for c in prices if c.text != "-")
            # Every chain is named: in its column head, or by initials the legend explains.
            heads = chains["head"]
            legend = " ".join(texts(screen.ids.legend_box))
            for chain, head in zip(game.rules.chains, heads):
                assert head == chain.name or f"{head}\u00a0{chain.name}" in legend
    finally:
        fit(800, 480)


def test_fourteen_companies_fit_800_by_480_without_scrolling(module_app):
    """MEGAcquire's fourteen columns are on screen at once, as initials with a legend."""
    desk = demo_desk("megacquire-gold", actions=90)
    _app, screen = open_sheet(module_app, desk)
    assert screen.ids.chains.width <= screen.ids.scroller.width + 1
    assert rows(screen.ids.chains)["head"] == ["Lu", "Te", "Gl", "Fa", "Ar", "Re", "Kr", "Un",
                                               "So", "He", "Wa", "Di", "Ph", "Qu"]


def test_the_player_to_play_and_the_player_deciding_are_marked_large(module_app):
    # A merger's disposal where a holder other than the mergemaker decides.
    for seed in range(4, 40):
        desk = demo_desk("acquire", seed=seed, actions=40, until="dispose")
        game = desk.game
        if game.pending is not None and game.pending.player != game.current:
            break
    else:
        pytest.fail("no disposal by another player in these games")
    _app, screen = open_sheet(module_app, desk)
    turn, deciding = game.names[game.current], game.names[game.pending.player]
    status = re.sub(r"\[/?[a-z]+[^\]]*\]", "", screen.ids.status.text)
    assert f"{turn} to play" in status and f"{deciding} decides now" in status
    assert screen.ids.status.font_size >= 18
    fixed = {row.key: row for row in screen.ids.fixed.children}
    for name, marker in ((deciding, "▶"), (turn, "●")):
        mark = next(reversed(fixed[name].children))
        assert mark.text == marker and mark.font_size >= 18
        assert fixed[name].shade[3] > 0             # the row is shaded, too
    others = [n for n in game.names if n not in (turn, deciding)]
    assert all(next(reversed(fixed[n].children)).text == "" for n in others)


@pytest.mark.parametrize("level", LEVELS)
def test_the_disclosure_level_withholds_what_it_must(module_app, level):
    desk = demo_desk("acquire", actions=50, options={"disclosure": level})
    game = desk.game
    _app, screen = open_sheet(module_app, desk)
    fixed, chains = rows(screen.ids.fixed), rows(screen.ids.chains)
    rank = LEVELS.index(level)
    money = game.rules.money
    for seat, name in enumerate(game.names):
        cash_shown = rank >= LEVELS.index("open")
        assert fixed[name][2] == (money(game.cash[seat]) if cash_shown else "hidden")
        if not cash_shown:
            assert fixed[name][3] == "hidden"          # net worth would tell the cash
        if rank >= LEVELS.index("players"):
            assert chains[name] == [str(n) if n else "" for n in game.holdings[seat]]
        else:
            assert chains[name] == ["hidden"]
    if rank >= LEVELS.index("bank"):
        assert chains["bank"] == [str(b) for b in game.bank]
    else:
        assert chains["bank"] == ["hidden"]
    # Sizes and prices are public at every level.
    assert chains["size"] == [str(s) if s else "-" for s in game.board.sizes]


def test_the_screen_may_show_less_than_the_game_allows(module_app):
    desk = demo_desk("acquire", actions=50)                # the game's option: open
    app, screen = open_sheet(module_app, desk)
    app.disclosure = "bank"                                  # the table's screen: less
    try:
        screen.refresh()
        fixed, chains = rows(screen.ids.fixed), rows(screen.ids.chains)
    finally:
        app.disclosure = "open"           # the module's app, as the next test opens it
    assert all(fixed[name][2] == "hidden" and chains[name] == ["hidden"]
               for name in desk.game.names)
    assert chains["bank"] == [str(b) for b in desk.game.bank]


def test_before_the_game_the_sheet_shows_the_players_only_and_back_goes_to_the_table(module_app):
    from tabletop.table.seating import Seating

    seating = Seating("acquire", ["Ann", "Bob", "Cy"])
    app, screen = open_sheet(module_app, seating, language="zh-TW")
    shown = texts(screen)
    assert all(name in shown for name in ("Ann", "Bob", "Cy"))
    assert not any("$" in words for words in shown)
    assert rows(screen.ids.chains) == {}
    check_screen(screen)
    tap(screen.ids.back)
    assert app.root.current == "table"


def test_with_no_desk_the_sheet_says_so(module_app):
    _app, screen = open_sheet(module_app, None)
    screen.desk = None
    screen.refresh()
    assert screen.ids.status.text == "No game on the table yet"
    check_screen(screen)


@pytest.mark.parametrize("rules", ["acquire", "megacquire-gold"])
def test_look_at_the_sheet(module_app, rules):
    """PNGs to look at: Acquire and MEGAcquire GOLD at 800x480 and 1280x720."""
    import os

    from ui.window import fit

    folder = Path(os.environ.get("TABLETOP_LOOK", "")) if os.environ.get("TABLETOP_LOOK") else None
    if folder is None:
        pytest.skip("set TABLETOP_LOOK to a folder to render the PNGs")
    folder.mkdir(parents=True, exist_ok=True)
    desk = demo_desk(rules, actions=90)
    app, _screen = open_sheet(module_app, desk)
    for size in ((800, 480), (1280, 720)):
        fit(*size)
        frames(4)
        app.root.export_to_png(str(folder / f"scores-{rules}-{size[0]}.png"))
    fit(800, 480)
