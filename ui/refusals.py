"""The engine's and the assistant's refusals, and the devices' and services' messages, in Traditional Chinese.

The devices and services: the receipt printer's status, the results screen's slip, USB stick
and switching off, and a calibration refused or saved on the calibration screen.

The same shape as :data:`ui.i18n.PATTERNS`: ``(English pattern, Chinese)``,
with ``{x}`` standing for names, tiles and figures kept as they are; a
placeholder named ``{m}`` holds a whole message, itself translated.

Patterns match whole messages and the first that matches wins, so the
messages around another message (``camera: {m}``) come first: "{t} is already
on the board" would otherwise take "camera: 5C is already on the board" whole.
Then a longer message comes before a shorter one it begins or ends like. None
takes a message of :data:`ui.i18n.PATTERNS`, so the two lists may be tried in
either order. A pattern may not name a placeholder twice: the second gets a
name of its own.

>>> from ui.i18n import say
>>> say("5C: that cell already holds a tile. Take it off the board.", "zh-TW")
'5C：這一格已經有地磚了。請把它從盤面拿走。'
>>> say("camera: a tile moved from 5C to 6C: not committed", "zh-TW")
'攝影機：有地磚從 5C 移到 6C：未採計'
>>> say("the bank has only 2 Tower shares", "zh-TW")
'銀行只剩 2 股 Tower'
>>> say("printer unplugged; 1 slip waiting", "zh-TW")
'印表機未連接；1 張成績單等待列印'
"""

from __future__ import annotations

REFUSALS: list[tuple[str, str]] = [
    # --- Around another message ({m}, itself translated): before all the rest -----------------
    # tabletop/table/assistant.py, tabletop/table/seating.py
    ("camera off ({m}): tap each tile's cell to enter it",
     "攝影機已關閉（{m}）：請點選每張地磚所在的格子來輸入"),
    ("camera off ({m}): tap each drawn tile's cell", "攝影機已關閉（{m}）：請點選每張抽出的地磚所在的格子"),
    ("camera: {m}", "攝影機：{m}"),
    ("{t} was placed while {u} waits for CONFIRM or UNDO: take it off",
     "{t} 放得不是時候，{u} 還在等確認或復原：請先把它拿走"),
    ("{t} was placed while the table is asked to {m}: take it off, finish this first",
     "{t} 放得不是時候，牌桌正在等：{m}。請先把它拿走，完成這一步"),
    ("{m}; take the tiles off and draw again", "{m}；請把地磚拿走，重新抽"),
    # tabletop/assembly/services.py: the power stayed on, and the journal would not open again
    ("{m}; the journal did not open again: {e}", "{m}；紀錄無法再次開啟：{e}"),
    # hardware/printer.py: the slips waiting, after the printer's state ({m}, in the printer's
    # section below; "printer: {n} slips waiting" would take "printer: out of paper; 2 slips ...")
    ("{m}; {n} slips waiting", "{m}；{n} 張成績單等待列印"),
    ("{m}; {n} slip waiting", "{m}；{n} 張成績單等待列印"),
    # hardware/camera/base.py: a camera fault ({m}: one of the camera's reasons below)
    ("camera {s} {m}; retrying", "攝影機 {s} {m}；正在重試"),
    # tabletop/engine/game.py: an action out of its time ({m}: what the game waits for, below)
    ("place is not possible now: {m}", "現在不能放地磚：{m}"),
    ("no_tile is not possible now: {m}", "現在不能宣告沒有可放的地磚：{m}"),
    ("found is not possible now: {m}", "現在不能成立公司：{m}"),
    ("survivor is not possible now: {m}", "現在不能選擇存續公司：{m}"),
    ("next_defunct is not possible now: {m}", "現在不能選擇下一個被併公司：{m}"),
    ("market is not possible now: {m}", "現在不能為股市抽地磚：{m}"),
    ("dispose is not possible now: {m}", "現在不能處理被併公司的股票：{m}"),
    ("buy is not possible now: {m}", "現在不能買股票：{m}"),
    ("{k} is not possible now: {m}", "現在不能 {k}：{m}"),     # an action not named above
    ("it is not {p}'s move: {m}", "現在不是 {p} 的回合：{m}"),
    # tabletop/journal/journal.py: a record that no longer replays ({m}: the engine's refusal)
    ("game {g}: record {n} does not replay with this version of tabletop: {m}",
     "第 {g} 局：第 {n} 筆紀錄無法用這個版本的程式重播：{m}"),


    # --- tabletop/table/assistant.py: a tile the assistant refuses or flags, and its other notes ------
    ("{t}: that cell already holds a tile. Take it off the board.",
     "{t}：這一格已經有地磚了。請把它從盤面拿走。"),
    ("{t}: it would found a chain, and every chain is on the board. Take it off the board.",
     "{t}：它會成立新公司，但所有公司都已在盤面上。請把它從盤面拿走。"),
    ("{t} is back on the board", "{t} 又回到盤面上了"),
    ("{t} is out of the game: take it off and draw another", "{t} 已出局：請把它拿走，再抽一張"),
    ("{t} goes back in the bag: take it off", "{t} 要放回袋子裡：請把它拿走"),
    ("{t} cannot be placed (it would merge two safe chains): take it off",
     "{t} 不能放（它會合併兩家安全公司）：請把它拿走"),
    ("the game is over: no more tiles", "遊戲已結束：不再放地磚"),
    ("nothing to confirm yet: place a tile, or NEXT for other choices",
     "還沒有可以確認的事：請放一張地磚，或按「下一個」看其他選擇"),
    ("undo ({n} action)", "復原（{n} 個動作）"),
    ("undo ({n} actions)", "復原（{n} 個動作）"),
    ("undo", "復原"),
    # What the table is asked, as "... while the table is asked to {m}" quotes it (a title
    # without its player; the titles with nothing to cut are in PATTERNS).
    ("place a tile", "放一張地磚"),
    ("place a closing tile", "放收尾地磚"),
    ("buy shares (so far {b})", "買股票（目前：{b}）"),
    ("which chain to found?", "選擇要成立的公司"),
    ("which chain to keep as the survivor?", "選擇存續公司"),
    ("which chain to dispose of next?", "選擇下一個要處理的公司"),
    ("your {c} shares", "處理 {c} 股票"),
    ("draw a tile for the stock market and place it", "為股市抽一張地磚並放上"),
    ("the market draws {t}", "股市抽到 {t}"),

    # --- tabletop/table/seating.py: the turn-order draw ------------------------------------------------
    ("{p} drew the tile closest to {t}: {q} starts", "{p} 抽到最接近 {t} 的地磚：由 {q} 先開始"),
    ("{p} starts", "由 {p} 先開始"),
    ("Each player draws a tile and places it: {n} of {k} seen",
     "每位玩家抽一張地磚放上盤面：已看到 {n}/{k} 張"),
    ("waiting for the turn-order tiles", "等待決定順序的地磚"),
    ("Who drew {t}?", "誰抽到 {t}？"),
    ("{n} tiles for {k} players: take the extra ones off", "{n} 張地磚、{k} 位玩家：請拿走多出來的地磚"),

    # --- hardware/camera, tabletop/assembly/simcamera.py: a camera's reason (in "camera {s} {m}; retrying")
    ("unplugged", "已拔除"),
    ("unplugged (no device)", "已拔除（沒有裝置）"),
    ("gives no frames", "沒有傳來畫面"),
    ("cannot be opened (unplugged?)", "無法開啟（是否已拔除？）"),
    ("cannot be opened (no such file {f})", "無法開啟（找不到檔案 {f}）"),
    ("cannot be opened (unreadable video {f})", "無法開啟（無法讀取影片 {f}）"),
    ("cannot be opened (no such folder {f})", "無法開啟（找不到資料夾 {f}）"),
    ("is unavailable: picamera2 is not installed (it needs a Raspberry Pi with libcamera)",
     "無法使用：未安裝 picamera2（需要裝有 libcamera 的樹莓派）"),
    ("cannot be built: {e}", "無法建立：{e}"),
    ("gives {d} frames, not uint8", "傳來 {d} 格式的畫面，不是 uint8"),
    ("gives frames of shape {d}, not a picture", "傳來的畫面形狀為 {d}，不是一張圖片"),
    ("failed ({e})", "發生故障（{e}）"),

    # --- calibration/tracker.py: what the camera will not commit (in "camera: {m}") -------------
    ("cannot tell whether {c} holds a tile: check the light, or enter it by hand",
     "無法判斷 {c} 上有沒有地磚：請檢查光線，或手動輸入"),
    ("cannot tell whether {c} hold a tile: check the light, or enter it by hand",
     "無法判斷 {c} 上有沒有地磚：請檢查光線，或手動輸入"),
    ("{n} cells changed at once ({a} new, {g} gone): not a placement "
     "(did the light change or the board move?)",
     "{n} 個格子同時改變（新增 {a} 個、消失 {g} 個）：這不是放地磚（是光線變了，還是盤面移動了？）"),
    ("a tile moved from {x} to {y}: not committed", "有地磚從 {x} 移到 {y}：未採計"),
    ("{n} new tiles at once ({c}) and tile gone from {d}: not committed; place one tile at a time",
     "同時出現 {n} 張新地磚（{c}），{d} 的地磚也不見了：未採計；請一次只放一張"),
    ("{n} new tiles at once ({c}) and tiles gone from {d}: not committed; place one tile at a time",
     "同時出現 {n} 張新地磚（{c}），{d} 的地磚也不見了：未採計；請一次只放一張"),
    ("{n} new tiles at once ({c}): not committed; place one tile at a time",
     "同時出現 {n} 張新地磚（{c}）：未採計；請一次只放一張"),
    ("tile gone from {c}: not committed; put it back, or undo its placement",
     "{c} 的地磚不見了：未採計；請放回去，或復原那次放置"),
    ("tiles gone from {c}: not committed; put it back, or undo its placement",
     "{c} 的地磚不見了：未採計；請放回去，或復原那些放置"),

    # --- tabletop/engine/game.py: setting up (also the turn-order draw's tie) -------------------------
    ("players must be a list of names in seating order", "玩家必須是依座位順序排列的名字"),
    ("every player needs a name", "每位玩家都需要名字"),
    ("two players have the same name", "有兩位玩家同名"),
    ("{g} takes {lo}-{hi} players, not {n}", "{g} 需要 {lo}-{hi} 位玩家，不是 {n} 位"),
    ("start_tiles must give exactly one tile for every player", "每位玩家必須剛好有一張起始地磚"),
    ("two players drew the same start tile {t}", "有兩位玩家抽到同一張起始地磚 {t}"),
    ("two players tie for first with {t}: they draw again", "兩位玩家都抽到 {t}，並列第一：他們要重抽"),

    # --- tabletop/engine/names.py: a player's name (the setup screen's seats) -----------------------
    ("seat {n}: a name may not hold a line break ({c})", "第 {n} 個座位：名字不能包含換行（{c}）"),
    ("seat {n}: a name may not hold a text-direction control ({c})",
     "第 {n} 個座位：名字不能包含控制文字方向的字元（{c}）"),
    ("seat {n}: a name may not hold a control character ({c})", "第 {n} 個座位：名字不能包含控制字元（{c}）"),
    ("seat {n}: a name may not hold an invisible character ({c})",
     "第 {n} 個座位：名字不能包含看不見的字元（{c}）"),
    ("seat {n}: a name may not hold a private-use character ({c})",
     "第 {n} 個座位：名字不能包含私人使用區的字元（{c}）"),
    ("seat {n}: a name may not hold an unassigned character ({c})",
     "第 {n} 個座位：名字不能包含尚未定義的字元（{c}）"),
    ("seat {n}: a name may not start with a combining mark ({c})",
     "第 {n} 個座位：名字不能以組合符號開頭（{c}）"),
    ("seat {n}: the name shows nothing ({c} looks blank): every player needs a name that can be seen",
     "第 {n} 個座位：名字什麼都看不到（{c} 看起來是空白）：每位玩家都需要看得見的名字"),
    ("seat {n}: the name is too long: at most {k} columns fit the screen and the receipt "
     "(a wide character such as 李 takes two)",
     "第 {n} 個座位：名字太長：螢幕和收據最多只放得下 {k} 格（「李」這樣的全形字佔兩格）"),

    # --- tabletop/engine/game.py: playing --------------------------------------------------------------
    ("{a} is not an action", "{a} 不是有效的動作"),
    ("the game is over", "遊戲已結束"),
    ("there is nothing to undo", "沒有可以復原的動作"),
    ("the turn has moved on: this table undoes only the current turn "
     "(a misplaced tile found later stays where it is)",
     "已經換下一回合了：這張牌桌只能復原本回合（事後才發現放錯的地磚就留在原處）"),
    # ... what the game waits for (the {m} of "... is not possible now: {m}")
    ("{p} must place a tile (or say no_tile)", "{p} 必須放一張地磚（或宣告沒有可放的地磚）"),
    ("{p} must name the new chain", "{p} 必須選擇要成立的公司"),
    ("{p} must choose the surviving chain", "{p} 必須選擇存續公司"),
    ("{p} must choose which chain is resolved next", "{p} 必須選擇下一個要處理的被併公司"),
    ("a tile must be drawn for the stock market's {c} shares", "必須為股市的 {c} 股票抽一張地磚"),
    ("{p} must sell, trade or keep {c} shares", "{p} 必須賣出、交換或保留 {c} 股票"),
    ("{p} must buy shares (or buy nothing)", "{p} 必須買股票（或選擇不買）"),
    ("the remaining tiles are being placed (any player); then end",
     "正在放剩下的地磚（任何玩家都可以放），放完後結束遊戲"),
    # ... a chain that may not be chosen
    ("{c} is already on the board: choose one of {k}", "{c} 已經在盤面上了：請從 {k} 中選一家"),
    ("{c} cannot survive: choose one of {k}", "{c} 不能存續：請從 {k} 中選一家"),
    ("{c} cannot go next: choose one of {k}", "{c} 不能排在下一個處理：請從 {k} 中選一家"),
    ("there is no player called {p}", "沒有名叫 {p} 的玩家"),
    # ... a tile
    ("{t} is already on the board", "{t} 已經在盤面上了"),
    ("{t} was revealed as a dead tile and left the game", "{t} 已被亮出為死磚，不在遊戲中了"),
    ("{p} does not hold {t}", "{p} 手上沒有 {t}"),
    ("{t} would merge two safe chains: it is dead (reveal it with a dead line and draw another)",
     "{t} 會合併兩家安全公司：它是死磚（請亮出它，再抽一張）"),
    ("{t} would found a new chain but every chain is on the board; keep it for later",
     "{t} 會成立新公司，但所有公司都已在盤面上；請先留著，之後再放"),
    ("{p} has a tile to place", "{p} 還有可以放的地磚"),
    ("{t} is not in anyone's hand", "{t} 不在任何人手上"),
    ("{t} is not dead: it does not join two safe chains", "{t} 不是死磚：它不會連接兩家安全公司"),
    ("{t} is not in the bag: draw a tile from the bag", "{t} 不在袋子裡：請從袋子裡抽一張地磚"),
    # ... buying
    ('buy: shares and trade_in map chain names to counts, e.g. {"{c}": 2}; not {x}',
     '買股票：股票與交換的股票須寫成公司名稱對應股數，例如 {{"{c}": 2}}；不能是 {x}'),
    ("{g} has no trade-to-buy", "{g} 不能用股票交換來買股票"),
    ("at most {n} shares a turn, not {k}", "每回合最多買 {n} 股，不能買 {k} 股"),
    ("{c} is not on the board: its shares have no price to trade at",
     "{c} 不在盤面上：它的股票沒有價格，不能交換"),
    ("{c} is not on the board", "{c} 不在盤面上"),
    ("the bank has only {n} {c} shares: trade at most {k}", "銀行只剩 {n} 股 {c}：最多只能交換 {k} 股"),
    ("the bank has only {n} {c} shares", "銀行只剩 {n} 股 {c}"),
    ("{p} has {x}, the shares cost {y} (shares may be traded in: trade_in)",
     "{p} 只有 {x}，這些股票要 {y}（可以用股票交換來付）"),
    ("{p} has {x}, the shares cost {y}", "{p} 只有 {x}，這些股票要 {y}"),
    ("{c} shares cannot be traded in to buy {d} shares", "不能用 {c} 股票交換來買 {d} 股票"),
    ("{p} holds {n} {c} shares, not {k}", "{p} 只持有 {n} 股 {c}，沒有 {k} 股"),

    # --- tabletop/engine/merger.py: disposing of a defunct chain's shares -------------------------------
    ("sell: share counts are whole numbers, 0 or more, not {x}", "賣出的股數必須是 0 或以上的整數，不能是 {x}"),
    ("trade: share counts are whole numbers, 0 or more, not {x}", "交換的股數必須是 0 或以上的整數，不能是 {x}"),
    ("keep: share counts are whole numbers, 0 or more, not {x}", "保留的股數必須是 0 或以上的整數，不能是 {x}"),
    ("{c}: share counts are whole numbers, 0 or more, not {x}", "{c}：股數必須是 0 或以上的整數，不能是 {x}"),
    ("{p} holds {n} {c} shares: sell + trade + keep must make {k}",
     "{p} 持有 {n} 股 {c}：賣出＋交換＋保留必須等於 {k}"),
    ("{g} has no trading in a merger: hold or sell", "{g} 合併時不能交換股票：請保留或賣出"),
    ("every {c} share must be sold or traded", "每一股 {c} 都必須賣出或交換"),
    ("shares are traded {r} for 1: trade a multiple of {q}", "股票以 {r} 換 1：交換的股數必須是 {q} 的倍數"),

    # --- tabletop/engine/trade_in.py: trading shares in to pay for a purchase ------------------------------
    ("the shares cost {x}, more than the {y} in hand", "這些股票要 {x}，超過手上的 {y}"),
    ("{x} in hand pays for these shares ({y}): shares may be traded in only when cash is short",
     "手上的 {x} 就付得起這些股票（{y}）：只有現金不夠時才能用股票交換"),
    ("{x} in hand and {y} from the traded shares do not pay for {z}",
     "手上的 {x} 加上交換股票得到的 {y}，仍付不起 {z}"),
    ("the change ({x}) would be worth a traded {c} share ({y}) or more: "
     "keep that share and trade only as many as needed",
     "找回的錢（{x}）會達到一股交換的 {c} 股票（{y}）以上：請留下那一股，只交換需要的股數"),

    # --- tabletop/engine/ending.py: ending the game -----------------------------------------------------
    ("{t} is not among the remaining tiles", "{t} 不在剩下的地磚中"),
    ("end: agreed must be true or false, not {x}", "宣告結束：「全體同意」必須是「是」或「否」，不能是 {x}"),
    ("the end is already declared: send end to finish the closing placements",
     "已經宣告結束了：要結束收尾地磚的放置，請直接選擇結束"),
    ("{n} tiles remain to be placed before the final count", "最後結算前還有 {n} 張地磚要放"),
    ("{n} tile remains to be placed before the final count", "最後結算前還有 {n} 張地磚要放"),
    ("only {p}, whose turn it is, may end the game", "只有輪到的玩家 {p} 可以宣告遊戲結束"),
    ("the end is already declared", "已經宣告結束了"),
    ("this table plays without ending by agreement", "這張牌桌不採用全體同意結束"),
    ("the end may not be declared yet: it needs a chain of {n}+ tiles or "
     "every chain on the board safe ({k}+)",
     "還不能宣告結束：需要有一家公司達到 {n} 塊以上，或盤面上每家公司都已安全（{k} 塊以上）"),
    ("the end may not be declared yet: it needs every chain on the board safe ({k}+)",
     "還不能宣告結束：需要盤面上每家公司都已安全（{k} 塊以上）"),

    # --- tabletop/geometry/base.py, hexgrid.py: a cell or card label (a tap, a misread) --------------
    ("{x} is not a cell of this board (labels run {r})", "{x} 不是這個盤面上的格子（格子編號為 {r}）"),
    ("{c} may be played in any quadrant: name the hex as Q/L, e.g. 3/{d}",
     "{c} 可以放在任一象限：請以「象限/格子」指明六角格，例如 3/{d}"),
    ("{x} is not a card of this board (cards run A-1..{l}; a hex {e} names its card too)",
     "{x} 不是這個盤面的牌（牌的編號為 A-1..{l}；六角格的編號 {e} 也能指明它的牌）"),

    # --- tabletop/engine/ruleset.py: a chain or an option named wrong -----------------------------------
    ("there is no chain called {x} (chains: {k})", "沒有名叫 {x} 的公司（公司有：{k}）"),
    ("option {o}: expected {k}, got {x}", "選項 {o}：應該是 {k}，卻是 {x}"),
    ("option {o}: {x} is not one of {a}", "選項 {o}：{x} 不是可選的值（{a}）"),
    ("option {o}: {x} is below {n}", "選項 {o}：{x} 小於 {n}"),
    ("unknown option {o} for {r} (options: {a})", "{r} 沒有選項 {o}（選項有：{a}）"),

    # --- tabletop/journal/journal.py: saving an action during play ---------------------------------------
    ("no space left on the disk for the append-only copy {f}: the action was NOT recorded; "
     "free some space and confirm it again",
     "磁碟已滿，無法寫入備份紀錄 {f}：這個動作「沒有」記錄下來；請清出一些空間，再確認一次"),
    ("cannot write the append-only copy {f} ({e}): the action was NOT recorded",
     "無法寫入備份紀錄 {f}（{e}）：這個動作「沒有」記錄下來"),
    ("{f} is locked by another program (waited {s} s): the action was NOT recorded; "
     "close the other program and confirm it again",
     "{f} 被其他程式鎖住（已等候 {s} 秒）：這個動作「沒有」記錄下來；請關閉該程式，再確認一次"),
    ("the disk holding {f} is full: the action was NOT recorded; free some space and confirm it again",
     "存放 {f} 的磁碟已滿：這個動作「沒有」記錄下來；請清出一些空間，再確認一次"),
    ("{f} could not save the action ({e}): it was NOT recorded",
     "{f} 無法儲存這個動作（{e}）：「沒有」記錄下來"),
    ("game {g} was changed by another program (it holds {n} actions, this table {k}); resume it again",
     "第 {g} 局已被其他程式改動（紀錄有 {n} 個動作，本桌有 {k} 個）；請重新接續這一局"),
    ("the journal is closed", "紀錄檔已關閉"),

    # === The table's devices and services ==========================================================
    # What the screens show of the hardware and of the runner's services, beside the game's own.

    # --- hardware/printer.py: the receipt printer's status (the table screen's banner on a fault,
    #     the results screen's status line); "; N slips waiting" after it is at the top ----------
    ("printer unplugged", "印表機未連接"),
    ("printer offline", "印表機離線"),
    ("printer: out of paper", "印表機：缺紙"),
    ("printer: {n} slips waiting", "印表機：{n} 張成績單等待列印"),
    ("printer: {n} slip waiting", "印表機：{n} 張成績單等待列印"),
    ("printer: not checked yet", "印表機：尚未檢查"),
    ("printer ready; paper low", "印表機就緒；紙快用完了"),
    ("printer ready (no status line: paper not checked)", "印表機就緒（沒有狀態回報線路：未檢查紙張）"),
    ("printer ready", "印表機就緒"),

    # --- tabletop/assembly/services.py: what the results screen's buttons say (print_slip, export) ---
    ("no receipt printer is configured ([printer] url)", "沒有設定收據印表機（[printer] url）"),
    ("the slip is made when the game is over", "遊戲結束後才能列印成績單"),
    ("printing the score slip", "正在列印成績單"),
    ("the slip cannot be made: {m}", "無法製作成績單：{m}"),
    ("no USB stick found: plug one in and try again", "找不到 USB 隨身碟：請插上一支再試一次"),
    ("no game to export", "沒有可以匯出的遊戲"),
    ("game {g} written to {s} ({f})", "第 {g} 局已存到 {s}（{f}）"),
    ("the game could not be exported: {m}", "無法匯出這局遊戲：{m}"),
    ("the game could not be written to {f}: {m}", "無法把這局遊戲寫到 {f}：{m}"),
    # ... and why ({m} above; else the system's own words, kept as they are)
    ("the stick is full; make room on it or use another stick", "隨身碟已滿；請清出空間，或換一支隨身碟"),
    ("the stick is read-only or locked; unlock it or use another stick",
     "隨身碟是唯讀的或已上鎖；請解除鎖定，或換一支隨身碟"),
    ("the stick was pulled out or failed; plug it in and try again", "隨身碟被拔出或故障了；請插好後再試一次"),
    ("{d} on the stick is a link or a file, not a folder; remove it or use another stick",
     "隨身碟上的 {d} 是連結或檔案，不是資料夾；請把它移除，或換一支隨身碟"),
    ("the stick holds too many exports of this game; remove some or use another stick",
     "隨身碟上這局遊戲的匯出檔太多了；請刪掉一些，或換一支隨身碟"),

    # --- hardware/power.py: switching off (TableServices.shutdown, from the results screen or the menu) --
    ("the game is saved; switching off", "遊戲已儲存；正在關機"),
    ("the game is saved, but power-off failed: exit code {n}", "遊戲已儲存，但關機失敗：結束代碼 {n}"),
    ("the game is saved, but power-off failed: {e}", "遊戲已儲存，但關機失敗：{e}"),
    ("not switching off: closing the game failed ({e})", "沒有關機：關閉遊戲時失敗（{e}）"),

    # --- calibration/calibrate.py: a calibration refused on the calibration screen (what
    #     calibrate raises; a rule set's option errors are the engine's, above) ------------------
    ("the calibration image must be a colour picture", "校正用的影像必須是彩色的"),
    ("the points do not fix the board's position", "這些點無法確定盤面的位置"),
    ("--corners: every value must be a number", "角落的座標都必須是數字"),
    ("corner {c} lies outside the {w}x{h} image", "角落格子 {c} 在 {w}x{h} 的影像範圍之外"),
    ("the corners must be given in the order {o} (round the board, as it lies); "
     "these cross, fold or go the other way round",
     "角落必須依 {o} 的順序點選（照盤面擺放的方向繞一圈）；這幾點交叉、摺疊或繞反了"),
    ("the corners enclose almost nothing: tap the centres of the four corner cells",
     "這些角落幾乎沒有圍出範圍：請點選四個角落格子的中心"),
    ("the corners must be in the order {o}, starting at {c} along the first row: "
     "these seem a quarter-turn out",
     "角落必須依 {o} 的順序，從 {c} 開始沿著第一列點選：這幾點似乎轉了九十度"),
    ("markers {n} not found in the calibration image: all four must be visible "
     "(print them with `tabletop markers`)",
     "校正影像中找不到標記 {n}：四個標記都必須看得到（可用 `tabletop markers` 列印）"),
    ("marker {n} not found in the calibration image: all four must be visible "
     "(print them with `tabletop markers`)",
     "校正影像中找不到標記 {n}：四個標記都必須看得到（可用 `tabletop markers` 列印）"),
    ("marker {n} lies on the grid: stick the markers outside the cells, where no tile goes",
     "標記 {n} 落在格子範圍內：請把標記貼在格子外、不會放地磚的地方"),
    # ... and a calibration kept (TableServices.save_calibration, the calibration screen's Save)
    ("saved to {f}", "已儲存到 {f}"),
    ("not saved: {m}", "未儲存：{m}"),
]
