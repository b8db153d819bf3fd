"""The score sheet: players x chains, every holding, cash and net worth, the bank and prices.

What a table would keep on paper without a banker, read from the game as the
disclosure level lets a shared screen show it (:func:`tabletop.engine.state.view`,
as the table screen reads it): a figure the level withholds says "hidden".
Nothing is ever cut short: a chain column too narrow for the chain's name
shows its initials, named in a legend, and a sheet too wide for the screen
scrolls sideways while the players' names, cash and net worth stay put.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.lang import Builder
from kivy.metrics import dp, sp
from kivy.properties import ListProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen

from tabletop.engine.state import LEVELS, state_json, view
from tabletop.journal.stats import net_worth
from tabletop.table.assistant import Assistant
from ui import theme
from ui.i18n import chain_name, text
from ui.window import shown

Builder.load_file(str(Path(__file__).with_suffix(".kv")))

#: The rows above the players' (a chain's figures) and their heights, in dp.
CHAIN_ROWS = (("head", 30), ("size", 24), ("price", 28), ("bank", 24), ("safe", 22))
PLAYER_ROW = 38
#: The narrowest a chain's column gets before the sheet scrolls sideways, in dp.
NARROWEST = 36
#: Room around a figure in its column, in dp (a chain's column: less, fourteen must fit).
PAD = 10
CHAIN_PAD = 6
#: A little over 4.5:1 for a chain's name in markup: its colour is rounded to 8 bits there.
READABLE_MARKUP = 4.6


def font() -> str:
    app = App.get_running_app()
    return app.font_name if app is not None else "Roboto"


class SheetCell(Label):
    """A figure of the sheet; ``fill`` is drawn behind it (a chain's colour in its head)."""

    fill = ListProperty([0, 0, 0, 0])


def cell(words: str, width: float, colour: tuple = theme.TEXT, size: float = 16,
         bold: bool = False, halign: str = "center", fill: tuple | None = None) -> SheetCell:
    """One figure of the sheet, ``width`` dp wide (size in sp); never shortened."""
    label = SheetCell(text=words, markup=True, color=colour, font_size=sp(size), bold=bold,
                      font_name=font(), halign=halign, valign="middle", size_hint_x=None,
                      width=dp(width), fill=list(fill or (0, 0, 0, 0)))
    label.bind(size=lambda widget, value: setattr(widget, "text_size", value))
    return label


def text_width(words: str, size: float, bold: bool = False) -> float:
    """How wide ``words`` are drawn at ``size`` sp, in dp (to size the columns)."""
    return _drawn_width(words, sp(size), bold, font()) / dp(1)


@lru_cache(maxsize=4096)
def _drawn_width(words: str, pixels: float, bold: bool, font_name: str) -> float:
    """The width in pixels of ``words`` drawn: the same words at the same pixel size in the
    same font are as wide every time, and a card or a sheet measures hundreds a refresh
    (each a label drawn, the most of a refresh's time on a Pi)."""
    label = Label(text=words, font_size=pixels, bold=bold, font_name=font_name, markup=True)
    label.texture_update()
    return label.texture_size[0]


class SheetRow(BoxLayout):
    """A row of the sheet; ``shade`` marks the player to play and the player deciding."""

    shade = ListProperty([0, 0, 0, 0])
    #: What the row shows: "head", "size", "price", "bank", "safe" or a player's name.
    key = StringProperty("")


class ScoreSheetScreen(Screen):
    """The score sheet of the desk's game (see the module's docstring)."""

    desk = ObjectProperty(None, allownone=True)
    language = StringProperty("en")
    #: What this screen may show at most; the game's own option and the app's may show less.
    disclosure = StringProperty("open")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # Once a frame however many sizes the layout passes through; only when shown (a
        # hidden sheet is refreshed when :meth:`ui.app.TableApp.show` shows it).
        self._again = Clock.create_trigger(lambda *_: shown(self) and self.refresh())

    def on_size(self, *_: Any) -> None:
        again = getattr(self, "_again", None)      # (sized by kv before __init__ ends)
        if again is not None:
            again()

    def refresh(self, *_: Any) -> None:
        """Show the desk's players and the game's figures as they are now."""
        language, ids = self.language, self.ids
        ids.heading.text = text("scores_title", language)
        ids.back.text = text("back", language)
        for box in (ids.fixed, ids.chains, ids.legend_box):
            box.clear_widgets()
        ids.status.text = ""
        desk = self.desk
        game = desk.game if isinstance(desk, Assistant) else None
        if game is not None:
            self._sheet(game)
        elif desk is not None and getattr(desk, "players", None):
            self._seating(list(desk.players))
        else:
            ids.status.text = text("scores_no_game", language)
            ids.chains.width = 0
            ids.fixed.width = 0

    def level(self, game: Any) -> str:
        """The least shown of the game's option, the app's and this screen's."""
        app = App.get_running_app()
        chosen = [game.options.get("disclosure", "open"), self.disclosure,
                  getattr(app, "disclosure", "open") or "open"]
        return min((c for c in chosen if c in LEVELS), key=LEVELS.index)

    def _seating(self, players: list[str]) -> None:
        """Before the game: the players, nothing else (no figures exist yet)."""
        self.ids.status.text = text("scores_seating", self.language)
        width = max([text_width(name, 18, True) for name in players] + [80]) + 2 * PAD
        self.ids.fixed.width = dp(width)
        self.ids.chains.width = 0
        self.ids.fixed.add_widget(self._row([cell(text("scores_player", self.language), width,
                                                  theme.DIM, 14)], 30, key="head"))
        for name in players:
            self.ids.fixed.add_widget(self._row(
                [cell(f"[b]{name}[/b]", width, size=18, halign="left")], PLAYER_ROW, key=name))

    def _sheet(self, game: Any) -> None:
        ids, money = self.ids, game.rules.money
        shown = view(state_json(game), self.level(game))
        names = [entry["name"] for entry in shown["players"]]
        turn = names[game.current]
        deciding = names[game.pending.player] if game.pending is not None else ""
        ids.status.text = self._status(turn, deciding)
        worth = net_worth(game)
        rows = self._player_figures(shown, worth, money)
        fixed_widths = self._fixed_widths(rows)
        self._fixed_block(rows, fixed_widths, turn, deciding)
        self._chain_block(game, shown, turn, deciding)

    def _status(self, turn: str, deciding: str) -> str:
        """Whose turn it is and, when another player must decide now (a merger's disposal),
        who: large, at the top."""
        language = self.language
        words = f"[b]{text('scores_turn', language, player=turn)}[/b]"
        if deciding and deciding != turn:
            words += f"    [color={theme.to_hex(theme.HIGHLIGHT)}]▶ [b]" \
                     f"{text('scores_decides', language, player=deciding)}[/b][/color]"
        return words

    def _player_figures(self, shown: dict, worth: list[int], money: Any) -> list[dict]:
        """Each player's name, cash and net worth as the level shows them ("hidden" if not)."""
        hidden = text("scores_hidden", self.language)
        rows = []
        for seat, entry in enumerate(shown["players"]):
            cash, shares = entry.get("cash"), entry.get("shares")
            # Net worth needs both the cash and the holdings: shown only when both are.
            known = cash is not None and shares is not None
            rows.append({"name": entry["name"], "shares": shares,
                         "cash": money(cash) if cash is not None else hidden,
                         "worth": money(worth[seat]) if known else hidden,
                         "cash_shown": cash is not None, "worth_shown": known})
        return rows

    def _fixed_widths(self, rows: list[dict]) -> dict[str, float]:
        """The name, cash and net worth columns, as wide as their widest entry."""
        language = self.language
        heads = {"name": text("scores_player", language), "cash": text("scores_cash", language),
                 "worth": text("scores_worth", language)}
        widths = {}
        for key, size in (("name", 18), ("cash", 18), ("worth", 16)):
            widest = max(text_width(row[key], size, key == "name") for row in rows)
            widths[key] = max(widest, text_width(heads[key], 14), 40) + PAD + (
                18 if key == "name" else 0)     # the name's marker
        return widths

    def _fixed_block(self, rows: list[dict], widths: dict[str, float], turn: str,
                     deciding: str) -> None:
        """Left, never scrolled: the chains' row titles, then each player's name, cash, worth."""
        ids, language = self.ids, self.language
        ids.fixed.width = dp(sum(widths.values()))
        titles = {"head": "", "size": text("scores_size", language),
                  "price": text("scores_price", language), "bank": text("scores_bank", language),
                  "safe": text("scores_safe_row", language)}
        total = sum(widths.values())
        for key, height in CHAIN_ROWS:
            if key == "head":
                labels = [cell(text(f"scores_{k}", language) if k != "name" else
                               text("scores_player", language), widths[k], theme.DIM, 14)
                          for k in ("name", "cash", "worth")]
            else:
                labels = [cell(titles[key], total, theme.DIM, 14, halign="right")]
            ids.fixed.add_widget(self._row(labels, height, key=key))
        for row in rows:
            marker = "▶" if row["name"] == deciding else "●" if row["name"] == turn else ""
            labels = [cell(marker, 18, theme.HIGHLIGHT, 18),
                      cell(f"[b]{row['name']}[/b]", widths["name"] - 18, size=18, halign="left"),
                      cell(row["cash"], widths["cash"], theme.TEXT if row["cash_shown"]
                           else theme.DIM, 18 if row["cash_shown"] else 14, halign="right"),
                      cell(row["worth"], widths["worth"], theme.TEXT if row["worth_shown"]
                           else theme.DIM, 16 if row["worth_shown"] else 14, halign="right")]
            ids.fixed.add_widget(self._row(labels, PLAYER_ROW,
                                           self._shade(row["name"], turn, deciding), row["name"]))

    def _shade(self, name: str, turn: str, deciding: str) -> list[float]:
        if name == deciding:
            return [0.30, 0.33, 0.40, 1]
        return list(theme.PANEL) if name == turn else [0, 0, 0, 0]

    def _row(self, labels: list[Label], height: float, shade: list | None = None,
             key: str = "") -> SheetRow:
        row = SheetRow(size_hint_y=None, height=dp(height), shade=shade or [0, 0, 0, 0], key=key)
        for label in labels:
            row.add_widget(label)
        return row

    def _chain_block(self, game: Any, shown: dict, turn: str, deciding: str) -> None:
        """Right: a column a chain, every chain of the rule set (a defunct chain's kept shares
        count too), scrolled sideways when the screen is too narrow."""
        ids, language, rules = self.ids, self.language, game.rules
        hidden = text("scores_hidden", language)
        chains = rules.chains
        on_board = shown["chains"]
        with_bank = shown["view"] in LEVELS[LEVELS.index("bank"):]
        figures = [self._chain_figures(game, chain, on_board.get(chain.name), with_bank)
                   for chain in chains]
        widest = max(max(text_width(f["price"], 18), text_width(f["size"], 16),
                         text_width(f["bank"], 16), text_width(text("scores_safe", language), 14))
                     for f in figures)
        held = max([n for entry in shown["players"] for n in (entry.get("shares") or {}).values()]
                   + [0])
        widest = max(widest, text_width(str(held), 18), NARROWEST - CHAIN_PAD) + CHAIN_PAD
        room = (self.width - dp(12)) / dp(1) - ids.fixed.width / dp(1)
        width = max(widest, room / len(chains))
        local = [chain_name(chain.name, language) for chain in chains]
        full = all(text_width(name, 14, True) + 6 <= width for name in local)
        ids.chains.width = dp(width * len(chains))
        heads = []
        for chain, name in zip(chains, local):
            colour = theme.chain_colour(chain.index, rules)
            heads.append(cell(f"[b]{name if full else theme.initials(chain.name)}[/b]", width,
                              theme.ink_on(colour), 14, fill=colour))
        ids.chains.add_widget(self._row(heads, CHAIN_ROWS[0][1], key="head"))
        for key, height in CHAIN_ROWS[1:]:
            if key == "bank" and not with_bank:
                labels = [cell(hidden, width * len(chains), theme.DIM, 14)]
            else:
                labels = [cell(f[key], width, theme.TEXT if f["active"] else theme.DIM,
                               18 if key == "price" else 14 if key == "safe" else 16)
                          for f in figures]
            ids.chains.add_widget(self._row(labels, height, key=key))
        for entry in shown["players"]:
            shares = entry.get("shares")
            if shares is None:
                labels = [cell(hidden, width * len(chains), theme.DIM, 14)]
            else:
                labels = [cell(str(shares[chain.name]) if shares.get(chain.name) else "",
                               width, size=18, bold=True) for chain in chains]
            ids.chains.add_widget(self._row(labels, PLAYER_ROW,
                                            self._shade(entry["name"], turn, deciding),
                                            entry["name"]))
        if not full:
            self._legend(rules, local)

    def _chain_figures(self, game: Any, chain: Any, shown: dict | None,
                       with_bank: bool) -> dict[str, Any]:
        """A chain's size, price, bank shares and safety as the sheet writes them."""
        language = self.language
        if shown is None:       # not on the board: no size, no price; its shares wait in the bank
            return {"active": False, "size": "-", "price": "-", "safe": "",
                    "bank": str(game.bank[chain.index]) if with_bank else ""}
        return {"active": True, "size": str(shown["size"]), "price": game.rules.money(shown["price"]),
                "safe": text("scores_safe", language) if shown["safe"] else "",
                "bank": str(shown.get("bank_shares", ""))}

    def _legend(self, rules: Any, local: list[str]) -> None:
        """The initials the chain columns show, each with its name, in the chain's colour."""
        entries = [f"[color={theme.to_hex(theme.readable(theme.chain_colour(chain.index, rules), ratio=READABLE_MARKUP))}][b]"
                   f"{theme.initials(chain.name)}[/b]\u00a0{name}[/color]"
                   for chain, name in zip(rules.chains, local)]
        legend = Label(text="   ".join(entries), markup=True, font_size=sp(14),
                       font_name=font(), halign="left", valign="top", size_hint_y=None)
        legend.bind(width=lambda widget, value: setattr(widget, "text_size", (value, None)),
                    texture_size=lambda widget, value: setattr(widget, "height", value[1]))
        self.ids.legend_box.add_widget(legend)
