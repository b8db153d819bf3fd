"""The table screen: the board mirror, what the table is asked, the chains and the players.

It reads the desk (the seating, then the assistant) and the game's books as
the disclosure level lets a shared screen show them (:func:`tabletop.engine.state.view`):
nothing more, ever. Taps on the buttons and the board go to the desk.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.lang import Builder
from kivy.metrics import dp
from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen

from tabletop.engine.state import LEVELS, state_json, view
from tabletop.engine.choices import Disposal
from tabletop.table.assistant import Assistant
from ui import theme
from ui.boardview import BoardMirror  # noqa: F401 - the .kv file uses it
from ui.i18n import say, text

Builder.load_file(str(Path(__file__).with_suffix(".kv")))


class TableScreen(Screen):
    """One table's screen (see the module's docstring)."""

    desk = ObjectProperty(None, allownone=True)
    language = StringProperty("en")
    disclosure = StringProperty("open")
    fault = BooleanProperty(False)
    device = StringProperty("")        # a device fault to show (the printer), or ""
    #: The board's share of the width: hex boards (rows of half-offset cells) need more.
    board_share = NumericProperty(0.5)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._payout: list[dict] = []        # the last merger's bonuses, while holders dispose
        self._peek = ""                      # the player holding their own name, if any

    def press(self, button: str) -> None:
        if self.desk is not None:
            self.desk.press(button)
        self.refresh()

    def open_menu(self) -> None:
        from ui.menu import open_menu

        self.menu = open_menu(App.get_running_app())

    def cell_tapped(self, label: str) -> None:
        """A tile the camera missed or misread, entered by hand."""
        if self.desk is not None:
            self.desk.enter(label)
        self.refresh()

    def refresh(self, *_: Any) -> None:
        """Show the desk and the game as they are now."""
        desk, language = self.desk, self.language
        if desk is None:
            return
        ids = self.ids
        prompt = desk.prompt
        ids.undo.text, ids.next.text, ids.confirm.text = (
            text(key, language) for key in ("undo", "next", "confirm"))
        ids.language.text = text("language", language)
        ids.history.text = text("history", language)
        ids.menu.text = text("menu", language)
        ids.hints.text = text("long_presses", language)
        self.fault = bool(prompt.banner or self.device)
        ids.banner.text = "  " + (say(prompt.banner, language) if prompt.banner else
                                  say(self.device, language) if self.device else
                                  text("turn", language, player=prompt.player)
                                  if prompt.player else say(prompt.title, language))
        ids.title.text = say(prompt.title, language)
        count = len(prompt.options)
        chosen = say(prompt.chosen.label, language) if prompt.chosen else ""
        assistant = desk if isinstance(desk, Assistant) else None
        game = assistant.game if assistant is not None else None
        if game is not None and prompt.kind in ("found", "survivor", "next_defunct") and chosen:
            # A chain to choose: in its colour, with its tier (what its shares will cost).
            index = game.rules.chain_index(prompt.chosen.label)
            colour = "".join(f"{round(c * 255):02x}" for c in theme.chain_colour(index)[:3])
            tier = game.rules.chains[index].tier
            chosen = f"[color={colour}][b]{chosen}[/b][/color]  {text('tier', language, tier=tier)}"
        ids.chosen.text = f"{chosen}   ({prompt.index + 1}/{count})" if count > 1 else chosen
        notes = [say(prompt.message, language)] if prompt.message else []
        # Read once: each reading of the desk's figures builds its prompt again.
        figures = assistant.figures if assistant is not None else None
        ids.figures.text = self._figures(desk, figures, language)
        if prompt.flagged:
            notes.append(text("take_off", language, tiles=", ".join(prompt.flagged)))
        notes += [say(d, language) for d in prompt.differences]
        paid = [e for e in (assistant.events if assistant is not None else [])
                if e.get("event") == "bonus"]
        if paid:
            self._payout = paid
        elif prompt.kind not in ("dispose", "next_defunct", "market"):
            self._payout = []
        if self._payout and game is not None:
            # A merger's payout, shown to every holder while they dispose.
            notes.append(text("bonuses_paid", language, chain=self._payout[0]["chain"],
                              paid=", ".join(f"{e['player']} {game.rules.money(e['amount'])}"
                                             for e in self._payout)))
        ids.message.text = "\n".join(notes)
        self._tools(game, prompt, figures)
        if game is not None:
            self._board(game, prompt)
            # The game's own disclosure option rules; the screen's may only show less.
            level = min(game.options.get("disclosure", "open"), self.disclosure, key=LEVELS.index)
            full = state_json(game)
            shown = view(full, level)
            if self._peek:
                # A player holding their own name sees their own figures, while they hold it.
                shown["players"] = [next(p for p in full["players"] if p["name"] == self._peek)
                                    if entry["name"] == self._peek else entry
                                    for entry in shown["players"]]
            self._chains(game, shown, prompt, figures)
            self._players(shown, game.rules.money)

    def _figures(self, desk: Any, figures: dict | None, language: str) -> str:
        """The acting player's own figures for the decision in hand (shown only then)."""
        if not figures:
            return ""
        money = desk.game.rules.money
        shown = {key: money(value) if key in ("cash", "cost", "raised", "after") else str(value)
                 for key, value in figures.items()}
        if "cost" in figures:
            line = text("buy_figures", language, **shown)
            return line + (f"; {text('traded_in', language, **shown)}" if figures["raised"] else "")
        game = desk.game
        if Disposal.TRADE not in game.rules.disposal:      # sell or keep: no trade to speak of
            return text("sell_figures", language, **shown)
        return text("dispose_figures", language, survivor=game.rules.chains[game.merger.survivor].name,
                    **shown)

    def _tools(self, game: Any, prompt: Any, figures: dict | None) -> None:
        """While a holder disposes: steppers to sell and trade, and what is kept, shown live."""
        tools, language = self.ids.tools, self.language
        tools.clear_widgets()
        if not figures or prompt.kind != "dispose" or not isinstance(self.desk, Assistant):
            tools.height = 0
            return
        tools.height = dp(40)
        sell, trade = figures["sell"], figures["trade"]
        tools.add_widget(self._cell(text("sell", language), width=0.14))
        tools.add_widget(self._steps(sell, lambda n: self.desk.set_disposal(n, trade), 1, 0.3))
        if Disposal.TRADE in game.rules.disposal:
            tools.add_widget(self._cell(text("trade", language), width=0.14))
            tools.add_widget(self._steps(trade, lambda n: self.desk.set_disposal(sell, n),
                                         game.rules.trade_ratio or 1, 0.3))
        tools.add_widget(self._cell(text("keep", language, count=str(figures["keep"])),
                                    width=0.2))

    def _board(self, game: Any, prompt: Any) -> None:
        board = self.ids.board
        board.chain_names = [chain.name for chain in game.rules.chains]
        board.geometry = game.geometry
        self.board_share = 0.55 if getattr(game.geometry, "offset", None) is not None else 0.5
        board.cells = list(game.board.cells)
        board.flagged = list(prompt.flagged)
        action = prompt.chosen.action if prompt.chosen is not None else None
        board.proposed = getattr(action, "tile", "") if prompt.kind in ("place", "closing") else ""
        placed = [a for a in game.history if getattr(a, "kind", "") == "place"]
        board.last = game.geometry.parse(placed[-1].tile) if placed else -1

    #: The chain table's columns and their shares of its width.
    WIDTHS = {"chain": 0.23, "size": 0.09, "price": 0.14, "bonuses": 0.37, "trade_head": 0.37,
              "bank": 0.1, "safe": 0.1, "buy_head": 0.28}

    def _chains(self, game: Any, shown: dict, prompt: Any, figures: dict | None) -> None:
        heads, grid, language = self.ids.chain_heads, self.ids.chains, self.language
        heads.clear_widgets()
        grid.clear_widgets()
        with_bank = any("bank_shares" in c for c in shown["chains"].values())
        buying = prompt.kind == "buy" and isinstance(self.desk, Assistant)
        # While buying, the buy steppers take the size's place (a safe chain keeps its `*`),
        # and when the purchase needs shares traded in, their steppers take the bonuses'.
        columns = ["chain"] + ([] if buying else ["size"]) + [
            "price", "trade_head" if buying and self._trading(game, figures) else "bonuses",
            "bank" if with_bank else "safe"] + (["buy_head"] if buying else [])
        heads.cols = grid.cols = len(columns)
        for key in columns:
            heads.add_widget(self._cell(text(key, language), theme.DIM, self.WIDTHS[key], "12sp"))
        if not shown["chains"]:
            grid.add_widget(self._cell(text("no_chains", language), theme.DIM, self.WIDTHS["chain"]))
            for key in columns[1:]:
                grid.add_widget(self._cell("", width=self.WIDTHS[key]))
            return
        money, desk = game.rules.money, self.desk
        for name, chain in shown["chains"].items():
            index, safe = game.rules.chain_index(name), "*" if chain["safe"] else ""
            bonuses = chain["bonuses"]
            cells = {
                "chain": (f"[b]{name}[/b]{safe if buying else ''}", theme.chain_colour(index)),
                "size": (f"{chain['size']}{safe}", theme.TEXT),
                "price": (money(chain["price"]), theme.TEXT),
                # Tycoon's three bonuses close up to fit where Classic's two are spaced.
                "bonuses": (("/" if len(bonuses) > 2 else " / ").join(map(money, bonuses)),
                            theme.TEXT),
                "bank": (str(chain.get("bank_shares", "")), theme.TEXT),
                "safe": (text("safe", language) if safe else "", theme.TEXT)}
            for key in columns:
                width = self.WIDTHS[key]
                if key == "trade_head":
                    grid.add_widget(self._trade_stepper(game, index, width))
                elif key == "buy_head":
                    bought = list(desk.basket).count(index) - list(desk.traded).count(index)
                    grid.add_widget(self._steps(bought, lambda n, c=index: desk.set_purchase(c, n),
                                                1, width))
                else:
                    small = key == "bonuses" and len(bonuses) > 2
                    grid.add_widget(self._cell(*cells[key], width, "12sp" if small else "14sp"))

    def _trading(self, game: Any, figures: dict | None) -> bool:
        """Whether shares may be traded in now: the rules allow it and the cash falls short."""
        return bool(game.rules.trade_to_buy and isinstance(self.desk, Assistant) and figures
                    and (figures["cost"] > figures["cash"] or figures["raised"]))

    def _trade_stepper(self, game: Any, chain: int, width: float) -> Any:
        """The acting player's own shares of ``chain`` to trade in (shown only while they buy)."""
        desk = self.desk
        if not game.holdings[game.pending.player][chain] or chain in \
                desk.basket[: len(desk.basket) - len(desk.traded)]:
            return self._cell("", width=width)
        return self._steps(list(desk.traded).count(chain),
                           lambda n: desk.set_trade_in(chain, n), 1, width)

    def _players(self, shown: dict, money: Any) -> None:
        grid, language = self.ids.players, self.language
        grid.clear_widgets()
        hidden = text("hidden", language)
        for entry in shown["players"]:
            cash, shares = entry.get("cash"), entry.get("shares")
            if cash is None or shares is None or entry["name"] == self._peek:
                grid.add_widget(self._peek_button(entry["name"]))
            else:
                grid.add_widget(self._cell(f"[b]{entry['name']}[/b]", width=0.2))
            grid.add_widget(self._cell(money(cash) if cash is not None else hidden,
                                       theme.TEXT if cash is not None else theme.DIM, 0.22))
            grid.add_widget(self._cell(
                ", ".join(f"{n} {c}" for c, n in shares.items()) if shares is not None
                else hidden, theme.TEXT if shares is not None else theme.DIM, 0.58))

    def _steps(self, count: int, setter: Any, step: int = 1, width: float = 0.3) -> BoxLayout:
        """− count + : ``setter`` is called with the new count (the desk keeps it within bounds)."""
        app = App.get_running_app()
        font = app.font_name if app else "Roboto"
        box = BoxLayout(size_hint_x=width, spacing=2)
        for label, change in (("-", -step), (str(count), 0), ("+", step)):
            if change == 0:
                box.add_widget(Label(text=label, font_size="15sp", bold=True, font_name=font))
                continue
            button = Button(text=label, font_size="18sp", font_name=font)
            button.bind(on_release=lambda _, n=count + change: self.step(setter, n))
            box.add_widget(button)
        return box

    def step(self, setter: Any, count: int) -> None:
        setter(count)
        self.refresh()

    def _peek_button(self, name: str) -> Button:
        """The player's name: held, it shows that player's own cash and holdings."""
        app = App.get_running_app()
        button = Button(text=f"[b]{name}[/b]", markup=True, size_hint_x=0.2, font_size="14sp",
                        font_name=app.font_name if app else "Roboto")
        button.bind(on_press=lambda _: self.peek(name), on_release=lambda _: self.peek(""))
        return button

    def peek(self, name: str) -> None:
        self._peek = name
        self.refresh()

    def _cell(self, words: str, colour: tuple = theme.TEXT, width: float = 1.0,
              size: str = "14sp") -> Label:
        app = App.get_running_app()
        label = Label(text=words, markup=True, color=colour, font_size=size,
                      font_name=app.font_name if app else "Roboto", halign="left",
                      valign="middle", shorten=True, shorten_from="right", size_hint_x=width)
        label.bind(size=lambda widget, size: setattr(widget, "text_size", size))
        return label
