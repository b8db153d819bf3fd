"""The information card in a real window under Xvfb: the rule files' prices and bonuses (read
by hand from them), the same table as `tabletop rules NAME` prints, the game's mode, the
chains named in readable colours and marked at their sizes, and the card whole on screen."""

from __future__ import annotations

import re

import pytest
from uihelpers import frames, outside_the_window, play, showing, tap, texts

from tabletop.assembly.screenshots import demo_desk
from tabletop.engine.info_card import information_card

MARKUP = re.compile(r"\[/?[a-z]+[^\]]*\]")


# One app for the module (all its tests in one worker, which makes it once): building an app
# is most of what a card shown costs, and a table's app shows a game after another, as here.
pytestmark = pytest.mark.xdist_group("infocard-app")


def open_card(app, desk, language="en"):
    """The module's app showing ``desk``'s card in ``language``."""
    return showing(app, desk, "card", language)


def card_rows(screen):
    """{price: the row's figures, left to right} as the card shows them."""
    from ui.infocard import CardRow

    shown = {}
    for row in screen.ids.table.children:
        if isinstance(row, CardRow):
            # A marked cell holds the sizes first, then the chains' initials.
            shown[row.price] = [MARKUP.sub("", (c.children[-1] if c.children else c).text)
                                for c in reversed(row.children)]
    return shown


def marks(screen):
    """{price: the initials marked in its row}."""
    from ui.infocard import CardRow

    return {row.price: [MARKUP.sub("", m.text) for c in row.children for m in c.children[:-1]]
            for row in screen.ids.table.children if isinstance(row, CardRow)}


def check_screen(screen):
    from kivy.uix.button import Button
    from kivy.uix.label import Label

    assert outside_the_window(screen) == []
    for widget in screen.walk():
        if isinstance(widget, Label) and widget.text:
            assert widget.font_size >= 12, widget.text
            if re.search(r"\d", MARKUP.sub("", widget.text)) and widget is not screen.ids.notes:
                assert widget.font_size >= 14, widget.text       # the card's figures
            widget.texture_update()
            assert widget.texture_size[0] <= widget.width + 1, (widget.text, widget.width)
        if isinstance(widget, Button):
            assert widget.width >= 48 and widget.height >= 48
    notes = screen.ids.notes
    assert notes.texture_size[1] <= notes.height + 1, notes.text      # the rules' line, whole


# Hand-read from the rule files: (rules, options, price, [sizes per tier], bonuses).
HAND_READ = [
    # acquire.toml: tier 1 prices 200..1000, tier 3 400..1200 by brackets 2,3,4,5,6,11,21,31,41.
    ("acquire", {}, "$600", ["6-10", "5", "4"], ["$6,000", "$3,000"]),
    ("acquire", {}, "$1,200", ["-", "-", "41+"], ["$12,000", "$6,000"]),
    # Tycoon: 10x the price, the by_price table (700 -> 5000), 5x the price.
    ("acquire", {"bonus_mode": "tycoon"}, "$700", ["11-20", "6-10", "5"],
     ["$7,000", "$5,000", "$3,500"]),
    ("acquire", {"bonus_mode": "tycoon"}, "$200", ["2", "-", "-"], ["$2,000", "$1,500", "$1,000"]),
    # megacquire-gold.toml: hotels 2M/3M/4M, corporations twice a hotel's price.
    ("megacquire-gold", {}, "24M", ["-", "-", "-", "-", "-", "41+"], ["240M", "120M"]),
    ("megacquire-gold", {}, "4M", ["4", "3", "2", "2", "-", "-"], ["40M", "20M"]),
    # acquisitions.toml: gold from 400, silver 300, bronze 200.
    ("acquisitions", {}, "£400", ["2", "3", "4"], ["£4,000", "£2,000"]),
    ("acquisitions", {}, "£1,000", ["21-30", "31-40", "41+"], ["£10,000", "£5,000"]),
]


@pytest.mark.parametrize("rules, options, price, sizes, bonuses", HAND_READ)
def test_the_card_has_the_rule_files_prices_and_bonuses(module_app, rules, options, price,
                                                        sizes, bonuses):
    _app, screen = open_card(module_app, demo_desk(rules, actions=30, options=options))
    assert card_rows(screen)[price] == sizes + [price] + bonuses


@pytest.mark.parametrize("rules, mode", [("acquire", "classic"), ("acquire", "tycoon"),
                                         ("megacquire-gold", "classic"),
                                         ("acquisitions", "classic")])
def test_the_card_is_the_one_tabletop_rules_prints(module_app, rules, mode):
    desk = demo_desk(rules, actions=30, options={"bonus_mode": mode})
    _app, screen = open_card(module_app, desk)
    printed = information_card(desk.game.rules, mode).splitlines()
    start = next(i for i, line in enumerate(printed) if line.strip().startswith(("tier", "hotel"))
                 and "price" in line) + 1
    end = printed.index("", start)              # the table's rows, up to the prose
    table = [line.split() for line in printed[start:end]]
    shown = card_rows(screen)
    price = len(table[0]) - 1 - len(desk.game.rules.bonus_modes[mode].names)
    assert len(shown) == len(table)
    assert [shown[row[price]] for row in table] == table
    heading = MARKUP.sub("", screen.ids.heading.text)
    assert heading == f"Information card · {mode.capitalize()}"


@pytest.mark.parametrize("rules", ["acquire", "megacquire-gold", "acquisitions"])
def test_each_chain_is_named_in_a_readable_colour_and_marked_at_its_size(module_app, rules):
    from ui import theme

    def luminance(colour):
        values = [(v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4) for v in colour]
        return 0.2126 * values[0] + 0.7152 * values[1] + 0.0722 * values[2]

    desk = demo_desk(rules, actions=80)
    game = desk.game
    _app, screen = open_card(module_app, desk)
    head = screen.ids.table.children[-1]
    words = " ".join(label.text for label in head.children)
    background = luminance(theme.BACKGROUND[:3])
    for chain in game.rules.chains:
        found = re.search(r"\[color=([0-9a-f]{6})\]\[b\]" + re.escape(chain.name) + r"\[/b\]",
                          words)
        assert found, chain.name
        colour = [int(found.group(1)[i:i + 2], 16) / 255 for i in (0, 2, 4)]
        assert (luminance(colour) + 0.05) / (background + 0.05) >= 4.5, chain.name
    marked = marks(screen)
    for c, size in enumerate(game.board.sizes):
        initials = theme.initials(game.rules.chains[c].name)
        price = game.rules.money(game.rules.price(c, size)) if size else None
        assert [p for p, found in marked.items() if initials in found] == (
            [price] if size else [])


def expected_marks(game):
    """{price: the initials the card must mark in its row}, from the board."""
    from ui import theme

    wanted = {}
    for c, size in enumerate(game.board.sizes):
        if size:
            price = game.rules.money(game.rules.price(c, size))
            wanted.setdefault(price, []).append(theme.initials(game.rules.chains[c].name))
    return wanted


def test_the_card_shown_follows_the_game_and_keeps_the_rows_that_did_not_change(module_app):
    """The card left open while the game goes on: each chain that grew is marked in its new
    row and no longer in its old; a row whose figures and marks did not change is the one
    drawn before (a refresh makes again only what changed: a Pi's refresh is costly)."""
    from ui.infocard import CardRow

    desk = demo_desk("acquire", actions=40)
    app, screen = open_card(module_app, desk)
    game = desk.game

    def rows():
        return {row.price: row for row in screen.ids.table.children if isinstance(row, CardRow)}

    def shown():
        return {price: sorted(found) for price, found in marks(screen).items() if found}

    assert shown() == {p: sorted(m) for p, m in expected_marks(game).items()}
    figures = card_rows(screen)         # the rule set's: the same all game
    for _ in range(6):
        before, marked = rows(), shown()
        sizes = list(game.board.sizes)
        while list(game.board.sizes) == sizes and game.pending is not None:
            play(desk, 1)
        app.update()
        frames(2)
        assert shown() == {p: sorted(m) for p, m in expected_marks(game).items()}
        kept = [price for price, row in rows().items() if row is before[price]]
        changed = {price for price in before if marked.get(price) != shown().get(price)}
        assert set(kept) == set(before) - changed, (kept, changed)
        assert card_rows(screen) == figures


@pytest.mark.parametrize("rules", ["acquire", "megacquire-gold", "acquisitions"])
def test_the_card_fits_every_size_without_scrolling(module_app, rules):
    from ui.window import SIZES, fit

    _app, screen = open_card(module_app, demo_desk(rules, actions=80, options={}))
    try:
        for size in SIZES:
            fit(*size)
            frames(4)
            assert screen.ids.table.height <= screen.ids.scroller.height + 1, size
            check_screen(screen)
    finally:
        fit(800, 480)


def test_before_the_game_the_card_of_the_rules_chosen_and_back_goes_to_the_table(module_app):
    from tabletop.table.seating import Seating

    seating = Seating("acquire", ["Ann", "Bob"], {"bonus_mode": "tycoon"})
    app, screen = open_card(module_app, seating, language="zh-TW")
    assert "大亨模式" in screen.ids.heading.text
    assert card_rows(screen)["$700"] == ["11-20", "6-10", "5", "$700", "$7,000", "$5,000",
                                         "$3,500"]
    check_screen(screen)
    tap(screen.ids.back)
    assert app.root.current == "table"


def test_with_no_desk_the_card_says_so(module_app):
    _app, screen = open_card(module_app, None)
    screen.desk = None
    screen.refresh()
    assert "No game on the table yet" in texts(screen)
    check_screen(screen)


@pytest.mark.parametrize("rules", ["acquire", "megacquire-gold"])
def test_look_at_the_card(module_app, rules):
    """PNGs to look at (set TABLETOP_LOOK to a folder): 800x480 and 1280x720."""
    import os
    from pathlib import Path

    from ui.window import fit

    if not os.environ.get("TABLETOP_LOOK"):
        pytest.skip("set TABLETOP_LOOK to a folder to render the PNGs")
    folder = Path(os.environ["TABLETOP_LOOK"])
    folder.mkdir(parents=True, exist_ok=True)
    app, _screen = open_card(module_app, demo_desk(rules, actions=80))
    for size in ((800, 480), (1280, 720)):
        fit(*size)
        frames(4)
        app.root.export_to_png(str(folder / f"card-{rules}-{size[0]}.png"))
    fit(800, 480)
