"""The screen's new fixed strings (by key) and message templates, while they move to catalogues.

TEXTS: key -> {language: text}, as :data:`ui.i18n.TEXTS`. MESSAGES: a
:class:`~tabletop.messages.Message` template (its English) -> {language: template}.
"""

TEXTS: dict[str, dict[str, str]] = {
    # The table screen's top bar.
    "table_scores": {"en": "Scores", "zh-TW": "計分表"},
    "table_card": {"en": "Card", "zh-TW": "資訊卡"},
    "decides": {"en": "{player} decides", "zh-TW": "{player} 決定"},
    "draw_banner": {"en": "Turn-order draw", "zh-TW": "抽牌決定順序"},
    # The zoomed picker's way back.
    "whole_board": {"en": "Whole board", "zh-TW": "整個盤面"},
    # Options as buttons to tap.
    "chain_choice": {"en": "{chain} · {price}", "zh-TW": "{chain} · {price}"},
    "dispose_choice": {"en": "sell {sell} · trade {trade} · keep {keep}",
                       "zh-TW": "賣 {sell} · 換 {trade} · 留 {keep}"},
}
MESSAGES: dict[str, dict[str, str]] = {}
