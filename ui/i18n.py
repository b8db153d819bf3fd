"""English and Traditional Chinese, switchable live.

Fixed strings are looked up by key (:func:`text`). What the assistant says
(``"Ann: place a tile"``) is English built from a few patterns; :func:`say`
turns it into the screen's language by those patterns, keeping names, tiles
and figures as they are, and leaves anything it does not know in English
rather than guessing.

>>> say("Ann: place a tile", "zh-TW")
'Ann：請放一張地磚'
>>> say("+1 Tower (300)", "zh-TW")
'+1 Tower（300）'
>>> text("confirm", "zh-TW"), text("confirm", "en")
('確認', 'CONFIRM')
"""

from __future__ import annotations

import re

from tabletop.messages import Message
from ui.refusals import REFUSALS
from ui.strings import chains, desk, screens, table, window

LANGUAGES = ("en", "zh-TW")
NAMES = {"en": "English", "zh-TW": "繁體中文"}

TEXTS: dict[str, dict[str, str]] = {
    "confirm": {"en": "CONFIRM", "zh-TW": "確認"},
    "next": {"en": "NEXT", "zh-TW": "下一個"},
    "undo": {"en": "UNDO", "zh-TW": "復原"},
    "chain": {"en": "Chain", "zh-TW": "公司"},
    "size": {"en": "Size", "zh-TW": "大小"},
    "price": {"en": "Price", "zh-TW": "股價"},
    "bonuses": {"en": "Bonuses", "zh-TW": "紅利"},
    "bank": {"en": "Bank", "zh-TW": "銀行"},
    "safe": {"en": "safe", "zh-TW": "安全"},
    "player": {"en": "Player", "zh-TW": "玩家"},
    "cash": {"en": "Cash", "zh-TW": "現金"},
    "shares": {"en": "Shares", "zh-TW": "股票"},
    "hidden": {"en": "hidden", "zh-TW": "不公開"},
    "no_chains": {"en": "No chain on the board yet", "zh-TW": "盤面上還沒有公司"},
    "language": {"en": "中文", "zh-TW": "English"},
    "take_off": {"en": "Take off the board: {tiles}", "zh-TW": "請從盤面拿走：{tiles}"},
    "differences": {"en": "Board and game differ:", "zh-TW": "盤面與紀錄不同："},
    "turn": {"en": "{player} to play", "zh-TW": "輪到 {player}"},
    "history": {"en": "History", "zh-TW": "紀錄"},
    "buy_head": {"en": "Buy", "zh-TW": "買"},
    "tier": {"en": "tier {tier}", "zh-TW": "等級 {tier}"},
    "calibrate": {"en": "Calibrate camera", "zh-TW": "校正攝影機"},
    "calib_tap": {"en": "Tap the centre of cell {cell}", "zh-TW": "請點選格子 {cell} 的中心"},
    "calib_grid": {"en": "The grid as the camera will read it", "zh-TW": "攝影機將讀取的格線"},
    "calib_flip": {"en": "Flip rows", "zh-TW": "切換排列"},
    "calib_test": {"en": "Test", "zh-TW": "測試"},
    "calib_save": {"en": "Save", "zh-TW": "儲存"},
    "calib_first": {"en": "Tap the four corner cells first", "zh-TW": "請先點選四個角落格子"},
    "calib_done": {"en": "Calibrated: check the dots lie on the cells, then save",
                   "zh-TW": "已校正：確認點都落在格子上，再儲存"},
    "calib_markers": {"en": "markers seen: {seen}", "zh-TW": "看到的標記：{seen}"},
    "print_slip": {"en": "Print slip", "zh-TW": "列印成績單"},
    "export": {"en": "To USB", "zh-TW": "存到 USB"},
    "shutdown": {"en": "Switch off", "zh-TW": "關機"},
    "shutdown_ask": {"en": "Save the game and switch the table off?",
                     "zh-TW": "儲存遊戲並關機嗎？"},
    "no_devices": {"en": "not at this table: it has no printer, USB stick or power switch",
                   "zh-TW": "這張桌子沒有印表機、USB 隨身碟或電源開關"},
    "buy_figures": {"en": "cash {cash}, these cost {cost}, left {after}; {shares} of {limit} shares",
                    "zh-TW": "現金 {cash}，共 {cost}，剩 {after}；{shares}/{limit} 股"},
    "traded_in": {"en": "traded in {raised}", "zh-TW": "交換得 {raised}"},
    "dispose_figures": {"en": "gets {gets} {survivor}, cash after {after}; "
                              "holds {held}, may trade {trade_cap}",
                        "zh-TW": "得 {gets} 股 {survivor}，之後現金 {after}；"
                                 "持有 {held}，可換 {trade_cap}"},
    "sell_figures": {"en": "cash after {after}; holds {held}, keeps {keep}",
                     "zh-TW": "之後現金 {after}；持有 {held}，保留 {keep}"},
    "sell": {"en": "Sell", "zh-TW": "賣"},
    "trade": {"en": "Trade", "zh-TW": "換"},
    "keep": {"en": "Keep {count}", "zh-TW": "保留 {count}"},
    "trade_head": {"en": "Trade in", "zh-TW": "交換"},
    "menu": {"en": "Menu", "zh-TW": "選單"},
    "resume": {"en": "Resume a game", "zh-TW": "繼續未完的遊戲"},
    "resume_entry": {"en": "#{game} {rules}: {players} (turn {turn})",
                     "zh-TW": "#{game} {rules}：{players}（第 {turn} 回合）"},
    "to_table": {"en": "To the table", "zh-TW": "回到牌桌"},
    "new_game": {"en": "New game", "zh-TW": "新遊戲"},
    "add_player": {"en": "+ player", "zh-TW": "+ 玩家"},
    "start": {"en": "Start", "zh-TW": "開始"},
    "provisional": {"en": "Provisional tables: the rulebook does not print them all "
                          "(tabletop rules NAME says which)",
                    "zh-TW": "部分表格為推定：規則書未全部列出"},
    "opt_bonus_mode": {"en": "Mode", "zh-TW": "模式"},
    "opt_disclosure": {"en": "Screen shows", "zh-TW": "螢幕顯示"},
    "opt_founder_when_sold_out": {"en": "Founder, no share left", "zh-TW": "創辦人股票售罄時"},
    "opt_hex_offset": {"en": "Hex rows", "zh-TW": "六角格排列"},
    "opt_two_player_market": {"en": "Two players: stock market", "zh-TW": "兩人：股市"},
    "opt_agreed_end": {"en": "End by agreement", "zh-TW": "同意結束"},
    "opt_incorrect_placement": {"en": "Undo reaches", "zh-TW": "復原範圍"},
    "bonuses_paid": {"en": "{chain} bonuses: {paid}", "zh-TW": "{chain} 紅利：{paid}"},
    "back": {"en": "Back", "zh-TW": "返回"},
    "undo_to": {"en": "undo to here", "zh-TW": "復原到這裡"},
    "undo_ask": {"en": "Take back {count} action(s), back to before\n{action}?",
                 "zh-TW": "要復原 {count} 個動作，回到這個動作之前嗎？\n{action}"},
    "undo_yes": {"en": "Yes, undo", "zh-TW": "確定復原"},
    "undo_no": {"en": "No", "zh-TW": "取消"},
    "results": {"en": "Final standings", "zh-TW": "最終排名"},
    "results_buttons": {"en": "CONFIRM: print the slip · NEXT: to USB · UNDO: take back the end",
                        "zh-TW": "確認：列印成績單 · 下一個：存到 USB · 復原：取消結束"},
    "net_worth": {"en": "Net worth by turn", "zh-TW": "各回合淨值"},
    "paid_legend": {"en": "by chain: bonuses + sales", "zh-TW": "各公司：紅利 + 賣股"},
    "long_presses": {"en": "hold NEXT: history · UNDO: table · CONFIRM: off",
                     "zh-TW": "長按 下一個：紀錄 · 復原：牌桌 · 確認：關機"},
    "do_place": {"en": "place", "zh-TW": "放"},
    "do_found": {"en": "found", "zh-TW": "成立"},
    "do_survivor": {"en": "survivor", "zh-TW": "存續"},
    "do_next_defunct": {"en": "next defunct", "zh-TW": "下一個被併"},
    "do_market": {"en": "market draws", "zh-TW": "股市抽"},
    "do_dispose": {"en": "sell / trade", "zh-TW": "賣 / 換"},
    "do_buy": {"en": "buy", "zh-TW": "買"},
    "do_buy_nothing": {"en": "buys nothing", "zh-TW": "不買"},
    "do_dead": {"en": "reveals dead", "zh-TW": "亮出死磚"},
    "do_no_tile": {"en": "no playable tile", "zh-TW": "沒有可放的地磚"},
    "do_end": {"en": "ends the game", "zh-TW": "結束遊戲"},
}

#: (English pattern of the assistant, the same in Traditional Chinese). ``{x}`` stands
#: for names, tiles, figures, kept as they are.
PATTERNS: list[tuple[str, str]] = [
    ("{p}: place a tile", "{p}：請放一張地磚"),
    ("{p}: place a closing tile", "{p}：請放收尾地磚"),
    ("{p}: buy shares (so far {b})", "{p}：買股票（目前：{b}）"),
    ("{p}: which chain to found?", "{p}：要成立哪家公司？"),
    ("{p}: which chain to keep as the survivor?", "{p}：哪家公司存續？"),
    ("{p}: which chain to dispose of next?", "{p}：下一個處理哪家公司？"),
    ("{p}: your {c} shares", "{p}：您的 {c} 股票"),
    ("{p}: draw a tile for the stock market and place it", "{p}：為股市抽一張地磚並放上"),
    ("{p}: the market draws {t}", "{p}：股市抽到 {t}"),
    ("{p} placed {t}", "{p} 放了 {t}"),
    ("{p} reveals {t}", "{p} 亮出 {t}"),
    ("The board and the game differ", "盤面與紀錄不同"),
    ("The game is over", "遊戲結束"),
    ("waiting: place a tile (tap its cell)", "等待放地磚（點選格子）"),
    ("waiting: place a tile", "等待放地磚"),
    ("waiting: place a closing tile", "等待放收尾地磚"),
    ("no playable tile", "沒有可放的地磚"),
    ("end the game", "宣告遊戲結束"),
    ("end by agreement of all players", "全體同意結束"),
    ("no more closing tiles: score the game", "收尾完成：結算"),
    ("buy nothing", "不買"),
    ("{b}, trading in {x}", "{b}，交換 {x}"),
    ("the market gets the shares of {t}", "股市取得 {t} 的股票"),
    ("{t} is dead (it would merge two safe chains): reveal it, draw another",
     "{t} 是死磚（會合併兩家安全公司）：亮出並另抽一張"),
    ("nothing", "無"),
    ("buy {b}", "買 {b}"),
    ("+1 {c} ({n})", "+1 {c}（{n}）"),
    ("trade in 1 {c} ({n})", "交換 1 股 {c}（{n}）"),
    ("{t}: founds a chain", "{t}：成立公司"),
    ("{t}: a lone tile", "{t}：單獨地磚"),
    ("{t}: grows {c} ({n})", "{t}：擴大 {c}（{n}）"),
    ("{t}: merges {a} into {b}", "{t}：{a} 併入 {b}"),
    ("{t}: merges {a}: a tie, the survivor to be chosen", "{t}：合併 {a}：同樣大，須選存續公司"),
    ("keep all (sell {s}, trade {x})", "全部保留（賣 {s}，換 {x}）"),
    ("sell all (sell {s}, trade {x})", "全部賣出（賣 {s}，換 {x}）"),
    ("trade the most, sell the rest (sell {s}, trade {x})", "盡量交換，其餘賣出（賣 {s}，換 {x}）"),
    ("trade the most, keep the rest (sell {s}, trade {x})", "盡量交換，其餘保留（賣 {s}，換 {x}）"),
    ("sell {s}, trade {x}, keep {k}", "賣 {s}，換 {x}，保留 {k}"),
    ("carry on: the game's record stands", "繼續：以紀錄為準"),
    ("{t} was placed this turn: propose it", "{t} 是這回合放的：提出"),
    ("{t} is on the board, not in the game", "{t} 在盤面上，但不在紀錄中"),
    ("{t} is in the game, not on the board", "{t} 在紀錄中，但不在盤面上"),
]


def _compile(pattern: str) -> re.Pattern[str]:
    parts = re.split(r"(\{\w+\})", pattern)
    regex = "".join(f"(?P<{p[1:-1]}>.+?)" if p.startswith("{") else re.escape(p) for p in parts)
    return re.compile(f"^{regex}$")


# Refusals first: they wrap whole messages and say more than the short prompts do.
_COMPILED = [(_compile(english), chinese) for english, chinese in REFUSALS + PATTERNS]


#: Option values as the setup screen names them.
VALUES: dict[str, dict[str, str]] = {
    "classic": {"en": "Classic", "zh-TW": "經典"}, "tycoon": {"en": "Tycoon", "zh-TW": "大亨"},
    "open": {"en": "cash and holdings", "zh-TW": "現金與持股"},
    "players": {"en": "holdings", "zh-TW": "持股"},
    "bank": {"en": "bank shares", "zh-TW": "銀行股數"},
    "hidden": {"en": "nothing private", "zh-TW": "不顯示私人資訊"},
    "cash": {"en": "paid in cash", "zh-TW": "付現金"},
    "nothing": {"en": "nothing", "zh-TW": "無"},
    "odd-r": {"en": "B, D... shifted", "zh-TW": "B、D… 偏移"},
    "even-r": {"en": "A, C... shifted", "zh-TW": "A、C… 偏移"},
    "any_time": {"en": "any time", "zh-TW": "任何時候"},
    "same_turn": {"en": "this turn only", "zh-TW": "僅本回合"},
    "True": {"en": "yes", "zh-TW": "是"}, "False": {"en": "no", "zh-TW": "否"},
}


#: The areas' own strings (ui/strings/): keys no area may take twice.
for _area in (window, table, screens, desk):
    assert not set(_area.TEXTS) & set(TEXTS), f"{_area.__name__} repeats a key"
    TEXTS.update(_area.TEXTS)
#: Message templates -> {language: template}.
MESSAGES: dict[str, dict[str, str]] = {
    template: entry for _area in (window, table, screens, desk)
    for template, entry in _area.MESSAGES.items()}


def chain_name(name: str, language: str) -> str:
    """A chain's (a company's) name in ``language``: the rule file's English if it has none."""
    return chains.NAMES.get(name, {}).get(language, name)


def value_name(value: object, language: str) -> str:
    """An option's value as the setup screen shows it."""
    entry = VALUES.get(str(value))
    return entry.get(language, entry["en"]) if entry else str(value)


def text(key: str, language: str, **values: str) -> str:
    """A fixed string of the screen in ``language`` (English if it has none)."""
    entry = TEXTS[key]
    return entry.get(language, entry["en"]).format(**values)


def say(message: str, language: str) -> str:
    """What the assistant said, in ``language``: by its patterns, else as it was."""
    if language == "en" or not message:
        return message
    if isinstance(message, Message) and message.template in MESSAGES:
        template = MESSAGES[message.template].get(language, message.template)
        return template.format(**{k: say(v, language) if isinstance(v, Message) else v
                                  for k, v in message.params.items()})
    for regex, chinese in _COMPILED:
        found = regex.match(message)
        if found:
            # {b} (a basket) and {m} (a message) are words themselves; the rest stays as it is.
            return chinese.format(**{k: say(v, language) if k in ("b", "m") else v
                                     for k, v in found.groupdict().items()})
    return message
