"""The information card: price and bonuses by chain size for every tier, the rule set's own.

Laid out as :func:`tabletop.engine.info_card.information_card` prints it
(``tabletop rules NAME``): a row per share price, the chain sizes giving that
price in each tier, then the bonuses at that price in the game's bonus mode.
Each tier's column is headed by its chains in their colours, and every chain
on the board is marked, by its initials, in the row of its current size.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kivy.clock import Clock
from kivy.lang import Builder
from kivy.metrics import dp, sp
from kivy.properties import ListProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.relativelayout import RelativeLayout
from kivy.uix.screenmanager import Screen

from tabletop.engine.info_card import size_ranges
from tabletop.engine.ruleset import RuleSet
from tabletop.table.assistant import Assistant
from ui import theme
from ui.i18n import TEXTS, chain_name, text
from ui.scoresheet import READABLE_MARKUP, SheetCell, cell, font, text_width
from ui.window import shown

Builder.load_file(str(Path(__file__).with_suffix(".kv")))

#: The card's rows, in dp: the shortest that keep a 14 sp figure whole, and the tallest
#: worth giving them when the screen has room (a short card is not stretched).
ROW = 19
TALLEST_ROW = 26
#: Room around a figure in its column, in dp.
PAD = 8


class CardRow(BoxLayout):
    """A price's row of the card; ``shade`` stripes the rows so a row reads across."""

    shade = ListProperty([0, 0, 0, 0])
    #: The share price of the row ("" for the heading row).
    price = StringProperty("")


def card_of(desk: Any) -> tuple[RuleSet, dict[str, Any], dict[int, int]] | None:
    """The desk's rule set, options and chain sizes on the board (index -> size), or None."""
    if isinstance(desk, Assistant):
        game = desk.game
        return game.rules, dict(game.options), {c: s for c, s in enumerate(game.board.sizes) if s}
    rules = getattr(desk, "rules", None)
    if isinstance(rules, RuleSet):     # the turn-order draw: the card of the game to come
        return rules, rules.resolve_options(getattr(desk, "options", {})), {}
    return None


class InfoCardScreen(Screen):
    """The information card of the desk's game (see the module's docstring)."""

    desk = ObjectProperty(None, allownone=True)
    language = StringProperty("en")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # The rows share the card's height once it is laid out: drawn again when it changes,
        # once a frame however many sizes the layout passes through.
        self._again = Clock.create_trigger(self._laid_out)
        self.ids.scroller.bind(height=lambda *_: self._again())
        self._made: dict[tuple, Any] = {}      # the widgets shown, by what they show
        self._using: dict[tuple, Any] = {}     # those of the refresh under way
        self._frame: tuple = ()
        self._rules: RuleSet | None = None

    def on_size(self, *_: Any) -> None:
        again = getattr(self, "_again", None)      # (sized by kv before __init__ ends)
        if again is not None:
            again()

    def _laid_out(self, *_: Any) -> None:
        """Drawn again for its new size, if it is shown: a hidden card (every screen is laid
        out again when the window or the metrics change) is drawn when shown, as
        :meth:`ui.app.TableApp.show` refreshes the screen it shows."""
        if shown(self):
            self.refresh()

    def refresh(self, *_: Any) -> None:
        """Show the card of the desk's rule set and mode, with the chains' sizes now."""
        ids, language = self.ids, self.language
        ids.back.text = text("back", language)
        found = card_of(self.desk)
        if found is None:
            ids.table.clear_widgets()
            self._made = {}
            ids.heading.text = text("card_title", language)
            ids.notes.text = text("card_no_game", language)
            return
        rules, options, sizes = found
        mode = options.get("bonus_mode") or rules.options["bonus_mode"].default
        mode_key = f"card_mode_{mode}"
        mode_name = text(mode_key, language) if mode_key in TEXTS else mode
        ids.heading.text = f"{text('card_title', language)} · {mode_name}"
        bonus = rules.bonus_modes[mode]
        ids.notes.text = self._notes(rules, bonus)
        self._table(rules, bonus, sizes)

    def _bonus_name(self, name: str) -> str:
        key = f"card_bonus_{name}"
        return text(key, self.language) if key in TEXTS else name

    def _notes(self, rules: RuleSet, bonus: Any) -> str:
        """The card's rules in a line: when a chain is safe, what a sole holder receives."""
        language = self.language
        sole = " + ".join(self._bonus_name(bonus.names[p - 1]) for p in bonus.sole_holder)
        return "  ·  ".join((text("card_safe", language, size=str(rules.safe_size)),
                             text("card_sole", language, bonuses=sole),
                             text("card_rounding", language,
                                  unit=rules.money(rules.bonus_rounding))))

    def _table(self, rules: RuleSet, bonus: Any, sizes: dict[int, int]) -> None:
        """The card's rows; those the last refresh drew as they must be now are kept (a label
        made costs a Pi far more than one kept: a refresh changes a row or two mid-game)."""
        tiers = list(dict.fromkeys(chain.tier for chain in rules.chains))
        ranges = {tier: size_ranges(rules, tier) for tier in tiers}
        prices = sorted({p for tier in tiers for p in rules.tier_prices[tier]})
        # Where each chain on the board is now: its tier's column, its price's row.
        marks: dict[tuple[str, int], list[int]] = {}
        for index, size in sorted(sizes.items()):
            chain = rules.chains[index]
            marks.setdefault((chain.tier, rules.price(index, size)), []).append(index)
        widths = self._widths(rules, bonus, tiers, ranges, prices, marks)
        self._forget_unless(rules)
        head = self._kept(("head", self._head_words(rules, bonus, tiers, widths, sizes)),
                          self._head)
        # As tall as the screen lets every row be, so that the whole card fits when it can.
        height = min(TALLEST_ROW, max(ROW, (self.ids.scroller.height - head.height)
                                      / dp(1) / len(prices)))
        rows = [head]
        for number, price in enumerate(prices):
            cells = tuple((ranges[tier].get(price, "-"), tuple(marks.get((tier, price), [])),
                           width) for tier, width in zip(tiers, widths["tiers"]))
            figures = tuple(zip(map(rules.money, bonus.bonuses(price)), widths["bonuses"]))
            spec = ("row", rules.money(price), number % 2, cells, widths["price"], figures)
            row = self._kept(spec, lambda spec: self._row(rules, spec))
            row.height = dp(height)
            for chip in row.chips:
                chip.height = dp(height)
            rows.append(row)
        self._show(rows)

    def _forget_unless(self, rules: RuleSet) -> None:
        """The widgets kept are of one rule set at one scale and font; any other: none kept."""
        frame = (dp(1), sp(1), font())
        if frame != self._frame or rules is not self._rules:
            self._made, self._frame, self._rules = {}, frame, rules
        self._using = {}

    def _kept(self, spec: tuple, make: Any) -> Any:
        """The widget the last refresh made for ``spec``, else one made now."""
        widget = self._made.get(spec)
        if widget is None:
            widget = make(spec)
        self._using[spec] = widget
        return widget

    def _show(self, rows: list) -> None:
        """The rows, in order, in the table (none taken off and put back when all are)."""
        table = self.ids.table
        if len(table.children) != len(rows) or any(
                drawn is not row for drawn, row in zip(table.children[::-1], rows)):
            table.clear_widgets()
            for row in rows:
                table.add_widget(row)
        self._made = self._using

    def _row(self, rules: RuleSet, spec: tuple) -> CardRow:
        """A price's row: the sizes giving it in each tier (the chains there marked), the
        price, the bonuses."""
        _kind, price, odd, cells, price_width, figures = spec
        row = CardRow(size_hint_y=None, price=price,
                      shade=list(theme.PANEL) if odd else [0, 0, 0, 0])
        row.chips = []
        for sizes, marked, width in cells:
            row.add_widget(self._range_cell(rules, sizes, list(marked), width, row.chips))
        row.add_widget(cell(f"[b]{price}[/b]", price_width, size=14))
        for amount, width in figures:
            row.add_widget(cell(amount, width, size=14))
        return row

    def _widths(self, rules: RuleSet, bonus: Any, tiers: list[str], ranges: dict,
                prices: list[int], marks: dict) -> dict[str, Any]:
        """Price and bonus columns as wide as their figures; the tiers share the rest."""
        money = rules.money
        price = max(text_width(f"[b]{money(p)}[/b]", 14) for p in prices) + PAD
        price = max(price, text_width(text("card_price", self.language), 14) + PAD)
        bonuses = []
        for position, name in enumerate(bonus.names):
            widest = max(text_width(money(bonus.bonuses(p)[position]), 14) for p in prices)
            head = max(text_width(word, 14) for word in self._bonus_name(name).split())
            bonuses.append(max(widest, head) + PAD)
        room = (self.width - dp(12)) / dp(1) - price - sum(bonuses)
        # A tier's column must hold its widest range with the chains marked beside it.
        needed = max(text_width(f"[b]{r}[/b]", 14) + 2 * sum(
            text_width(f"[b]{theme.initials(rules.chains[i].name)}[/b]", 14) + 8
            for i in marks.get((t, p), [])) for t in tiers for p, r in ranges[t].items()) + PAD
        tier = max(room / len(tiers), needed)
        return {"tiers": [tier] * len(tiers), "price": price, "bonuses": bonuses}

    def _head_words(self, rules: RuleSet, bonus: Any, tiers: list[str], widths: dict,
                    sizes: dict[int, int]) -> tuple:
        """Each tier named, with its chains in their colours (and their sizes now); the price
        and the bonuses: (words, width) a column."""
        language = self.language
        words = []
        for tier, width in zip(tiers, widths["tiers"]):
            title = tier if len(tiers) > 3 else text("card_tier", language, tier=tier)
            names = [f"[color={theme.to_hex(theme.readable(theme.chain_colour(c.index, rules), ratio=READABLE_MARKUP))}][b]"
                     f"{chain_name(c.name, language)}[/b]"
                     f"{' ' + str(sizes[c.index]) if c.index in sizes else ''}[/color]"
                     for c in rules.chains if c.tier == tier]
            words.append((f"[color={theme.to_hex(theme.DIM)}]{title}[/color]\n"
                          + "\n".join(names), width))
        words.append((text("card_price", language), widths["price"]))
        words += [(self._bonus_name(name), width)
                  for name, width in zip(bonus.names, widths["bonuses"])]
        return tuple(words)

    def _head(self, spec: tuple) -> BoxLayout:
        """The heading row of :meth:`_head_words`' columns, as tall as its tallest."""
        head = BoxLayout(size_hint_y=None)
        labels = [self._wrapped(words, width) for words, width in spec[1]]
        for label in labels:
            head.add_widget(label)
        head.height = max(label.texture_size[1] for label in labels) + dp(4)
        return head

    def _wrapped(self, words: str, width: float) -> Label:
        """A heading ``width`` dp wide, wrapped to as many lines as it needs."""
        label = Label(text=words, markup=True, font_size=sp(14), font_name=font(),
                      color=theme.TEXT, halign="center", valign="bottom", size_hint_x=None,
                      width=dp(width), text_size=(dp(width) - dp(4), None))
        label.texture_update()
        return label

    def _range_cell(self, rules: RuleSet, sizes: str, marked: list[int], width: float,
                    chips: list) -> Any:
        """The sizes giving a price in a tier, and the chains at such a size now, marked by
        their initials just right of the sizes (which stay centred, in line with the column);
        the initials' chips are added to ``chips`` (as tall as the row, once it is sized)."""
        if not marked:
            return cell(sizes, width, theme.TEXT if sizes != "-" else theme.DIM, 14)
        box = RelativeLayout(size_hint_x=None, width=dp(width))
        box.add_widget(SheetCell(text=f"[b]{sizes}[/b]", markup=True, font_size=sp(14),
                                 font_name=font(), color=theme.TEXT, halign="center",
                                 valign="middle"))
        x = (width + text_width(f"[b]{sizes}[/b]", 14)) / 2 + 4
        for index in marked:
            colour = theme.chain_colour(index, rules)
            initials = theme.initials(rules.chains[index].name)
            chip = text_width(f"[b]{initials}[/b]", 14) + 6
            chips.append(SheetCell(
                text=f"[b]{initials}[/b]", markup=True, font_size=sp(14), font_name=font(),
                color=theme.ink_on(colour), fill=list(colour), halign="center",
                valign="middle", size_hint=(None, None), width=dp(chip), pos=(dp(x), 0)))
            box.add_widget(chips[-1])
            x += chip + 2
        return box
