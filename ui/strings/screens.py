"""The screen's new fixed strings (by key) and message templates, while they move to catalogues.

TEXTS: key -> {language: text}, as :data:`ui.i18n.TEXTS`. MESSAGES: a
:class:`~tabletop.messages.Message` template (its English) -> {language: template}.
"""

TEXTS: dict[str, dict[str, str]] = {
    # -- history_, merger_, results_ (the history, the merger summary, the results) --
    "merger_heading": {"en": "{player} merged {defunct} ({size} tiles) into {survivor}",
                       "zh-TW": "{player} 將 {defunct}（{size} 格）併入 {survivor}"},
    "merger_market": {"en": "Stock market", "zh-TW": "股市"},
    "merger_bonus": {"en": "{place} bonus {amount}", "zh-TW": "{place}紅利 {amount}"},
    "merger_place_sole": {"en": "sole holder's", "zh-TW": "唯一股東"},
    "merger_place_first": {"en": "1st", "zh-TW": "第一大股東"},
    "merger_place_second": {"en": "2nd", "zh-TW": "第二大股東"},
    "merger_place_third": {"en": "3rd", "zh-TW": "第三大股東"},
    "merger_place_fourth": {"en": "4th", "zh-TW": "第四大股東"},
    "merger_place_fifth": {"en": "5th", "zh-TW": "第五大股東"},
    "merger_place_sixth": {"en": "6th", "zh-TW": "第六大股東"},
    "merger_sold": {"en": "sold {count} for {cash}", "zh-TW": "賣 {count} 股得 {cash}"},
    "merger_traded": {"en": "traded {count} for {received} {chain}",
                      "zh-TW": "以 {count} 股換 {received} 股 {chain}"},
    "merger_kept": {"en": "kept {count}", "zh-TW": "保留 {count} 股"},
    "history_undo_to": {"en": "Undo to here", "zh-TW": "復原到這裡"},
    "history_empty": {"en": "Nothing played yet", "zh-TW": "還沒有任何動作"},
    "results_player": {"en": "Player", "zh-TW": "玩家"},
    "results_rank": {"en": "#", "zh-TW": "#"},
    "results_cash_before": {"en": "Cash", "zh-TW": "現金"},
    "results_bonuses": {"en": "+ Bonuses", "zh-TW": "+ 紅利"},
    "results_sales": {"en": "+ Sales", "zh-TW": "+ 賣股"},
    "results_total": {"en": "= Total", "zh-TW": "= 總計"},
    "results_turn": {"en": "turn", "zh-TW": "回合"},
    "results_money": {"en": "net worth", "zh-TW": "淨值"},
    # -- end of history_, merger_, results_ --
    # -- scores_, card_ (the score sheet: ui/scoresheet.py; the information card: ui/infocard.py) --
    "scores_title": {"en": "Score sheet", "zh-TW": "計分表"},
    "scores_player": {"en": "Player", "zh-TW": "玩家"},
    "scores_cash": {"en": "Cash", "zh-TW": "現金"},
    "scores_worth": {"en": "Net worth", "zh-TW": "總資產"},
    "scores_size": {"en": "Size", "zh-TW": "大小"},
    "scores_price": {"en": "Price", "zh-TW": "股價"},
    "scores_bank": {"en": "Bank shares", "zh-TW": "銀行股數"},
    "scores_safe_row": {"en": "Safe", "zh-TW": "安全"},
    "scores_safe": {"en": "safe", "zh-TW": "安全"},
    "scores_hidden": {"en": "hidden", "zh-TW": "不公開"},
    "scores_turn": {"en": "{player} to play", "zh-TW": "輪到 {player}"},
    "scores_decides": {"en": "{player} decides now", "zh-TW": "{player} 現在決定"},
    "scores_seating": {"en": "Drawing for the turn order", "zh-TW": "抽牌決定順序中"},
    "scores_no_game": {"en": "No game on the table yet", "zh-TW": "桌上還沒有遊戲"},
    "card_title": {"en": "Information card", "zh-TW": "資訊卡"},
    "card_mode_classic": {"en": "Classic", "zh-TW": "經典模式"},
    "card_mode_tycoon": {"en": "Tycoon", "zh-TW": "大亨模式"},
    "card_tier": {"en": "tier {tier}", "zh-TW": "等級 {tier}"},
    "card_price": {"en": "Price", "zh-TW": "股價"},
    "card_sole": {"en": "Sole holder: {bonuses}", "zh-TW": "唯一持股者：{bonuses}"},
    "card_safe": {"en": "Safe at {size}+ tiles", "zh-TW": "{size} 塊以上安全"},
    "card_rounding": {"en": "split bonuses rounded up to {unit}",
                      "zh-TW": "平分紅利進位至 {unit}"},
    "card_no_game": {"en": "No game on the table yet", "zh-TW": "桌上還沒有遊戲"},
    # The rule files' names of the bonuses (Classic, Tycoon, MEGAcquire, ACQUISITIONS).
    "card_bonus_majority": {"en": "majority", "zh-TW": "大股東"},
    "card_bonus_minority": {"en": "minority", "zh-TW": "二股東"},
    "card_bonus_primary": {"en": "primary", "zh-TW": "第一"},
    "card_bonus_secondary": {"en": "secondary", "zh-TW": "第二"},
    "card_bonus_tertiary": {"en": "tertiary", "zh-TW": "第三"},
    "card_bonus_1st majority": {"en": "1st majority", "zh-TW": "第一大股東"},
    "card_bonus_2nd majority": {"en": "2nd majority", "zh-TW": "第二大股東"},
    "card_bonus_King/Queen": {"en": "King/Queen", "zh-TW": "國王／女王"},
    "card_bonus_Prince/Princess": {"en": "Prince/Princess", "zh-TW": "王子／公主"},
    # -- end of scores_, card_ --
}
MESSAGES: dict[str, dict[str, str]] = {
    # -- the history's sentences (tabletop.table.narrate) --
    "{first}; {then}": {"zh-TW": "{first}；{then}"},
    "{first}, {then}": {"zh-TW": "{first}，{then}"},
    "{merger}: {paid}": {"zh-TW": "{merger}：{paid}"},
    "{player} placed {tile}": {"zh-TW": "{player} 放了 {tile}"},
    "{player} placed {tile} and merged {defunct} into {survivor}":
        {"zh-TW": "{player} 放了 {tile}，將 {defunct} 併入 {survivor}"},
    "{player} merged {defunct} into {survivor}": {"zh-TW": "{player} 將 {defunct} 併入 {survivor}"},
    "{player} founded {chain} (gets 1 free share)": {"zh-TW": "{player} 成立 {chain}（得 1 股免費股票）"},
    "{player} founded {chain} (gets {amount}: no share left)":
        {"zh-TW": "{player} 成立 {chain}（股票已售罄：得 {amount}）"},
    "{player} founded {chain}": {"zh-TW": "{player} 成立 {chain}"},
    "{player} chose {chain} to go next": {"zh-TW": "{player} 選擇下一個處理 {chain}"},
    "{tile} drawn for the stock market: {shares} {chain} shares":
        {"zh-TW": "為股市抽到 {tile}：{shares} 股 {chain}"},
    "{player} sold {sold} {chain} for {cash}": {"zh-TW": "{player} 賣 {sold} 股 {chain} 得 {cash}"},
    "{player} traded {traded} {chain} for {received} {survivor}":
        {"zh-TW": "{player} 以 {traded} 股 {chain} 換 {received} 股 {survivor}"},
    "traded {traded} for {received} {survivor}": {"zh-TW": "以 {traded} 股換 {received} 股 {survivor}"},
    "{player} kept {kept} {chain}": {"zh-TW": "{player} 保留 {kept} 股 {chain}"},
    "kept {kept}": {"zh-TW": "保留 {kept} 股"},
    "{player} bought nothing": {"zh-TW": "{player} 沒有買股票"},
    "{player} bought {shares} for {cost}": {"zh-TW": "{player} 買了 {shares}，共 {cost}"},
    "bought {shares} for {cost}": {"zh-TW": "買了 {shares}，共 {cost}"},
    "{player} traded in {shares} for {cash}": {"zh-TW": "{player} 交回 {shares} 得 {cash}"},
    "{player} revealed the dead tile {tile}": {"zh-TW": "{player} 亮出死磚 {tile}"},
    "{player} had no tile to place": {"zh-TW": "{player} 沒有可放的地磚"},
    "the closing placements are done": {"zh-TW": "收尾放置完成"},
    "{player} ended the game (agreed by all)": {"zh-TW": "{player} 結束遊戲（全體同意）"},
    "{player} declared the end of the game": {"zh-TW": "{player} 宣告遊戲結束"},
    "{player}: {action}": {"zh-TW": "{player}：{action}"},
    "{chain} bonuses: {paid}": {"zh-TW": "{chain} 紅利：{paid}"},
    "{chain} is now {size} tiles": {"zh-TW": "{chain} 現在有 {size} 格"},
    "{player} sold {shares} {chain} for {cash}": {"zh-TW": "{player} 賣 {shares} 股 {chain} 得 {cash}"},
    "{player} wins with {cash}": {"zh-TW": "{player} 以 {cash} 獲勝"},
    # -- end of the history's sentences --
}
