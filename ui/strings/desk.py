"""The screen's new fixed strings (by key) and message templates, while they move to catalogues.

TEXTS: key -> {language: text}, as :data:`ui.i18n.TEXTS`. MESSAGES: a
:class:`~tabletop.messages.Message` template (its English) -> {language: template}.

The desk's (tabletop/table: the assistant, the seating, the prompts' effects).
"""

TEXTS: dict[str, dict[str, str]] = {}
MESSAGES: dict[str, dict[str, str]] = {
    # --- what the chosen option does to prices (tabletop.table.prompts.effects) ---------------
    "grows {chain} to {size}: {before} -> {after}": {
        "zh-TW": "{chain} 成長到 {size} 塊：每股 {before} -> {after}"},
    "grows {chain} to {size}: {price} a share, unchanged": {
        "zh-TW": "{chain} 成長到 {size} 塊：每股 {price}，不變"},
    "{chain} becomes safe": {"zh-TW": "{chain} 成為安全公司"},
    "founds a chain of {size} tiles at {price} a share": {
        "zh-TW": "成立一家 {size} 塊的公司，每股 {price}"},
    "founds a chain of {size} tiles: {low} to {high} a share, by the chain chosen": {
        "zh-TW": "成立一家 {size} 塊的公司：每股 {low} 至 {high}，依所選公司而定"},
    "founds {chain} at {price} a share": {"zh-TW": "成立 {chain}，每股 {price}"},
    "founds {chain} at {price} a share, with a free share for {player}": {
        "zh-TW": "成立 {chain}，每股 {price}，{player} 免費獲得一股"},
    "founds {chain} at {price} a share, with {price} for {player} (no share left)": {
        "zh-TW": "成立 {chain}，每股 {price}，{player} 獲得 {price}（已無股票可送）"},
    "a tie between {chains}: {player} chooses the survivor": {
        "zh-TW": "{chains} 一樣大：由 {player} 選擇存續公司"},
    "merges {defunct} ({size}) into {survivor}": {
        "zh-TW": "把 {defunct}（{size} 塊）併入 {survivor}"},
    "{chain} pays bonuses of {bonuses}; its shares sell at {price}": {
        "zh-TW": "{chain} 發放紅利 {bonuses}；每股賣 {price}"},
    "sells {count} {chain} for {amount}; cash {before} -> {after}": {
        "zh-TW": "賣出 {count} 股 {chain}，得 {amount}；現金 {before} -> {after}"},
    "trades {count} {chain} for {received} {survivor}": {
        "zh-TW": "用 {count} 股 {chain} 換 {received} 股 {survivor}"},
    "buys {shares} for {cost}; cash {before} -> {after}": {
        "zh-TW": "買 {shares}，共 {cost}；現金 {before} -> {after}"},
    "buys {shares} for {cost}, trading in {traded} worth {raised}; cash {before} -> {after}": {
        "zh-TW": "買 {shares}，共 {cost}，以 {traded} 折抵 {raised}；現金 {before} -> {after}"},
    # --- a tap on a cell that already holds a tile --------------------------------------------
    "{tile} holds a tile of {chain}, placed by {player}": {
        "zh-TW": "{tile} 已有 {chain} 的地磚，由 {player} 放下"},
    "{tile} holds a tile of {chain}, drawn by {player} for the turn order": {
        "zh-TW": "{tile} 已有 {chain} 的地磚，是 {player} 抽來決定順序的"},
    "{tile} holds a tile of {chain}": {"zh-TW": "{tile} 已有 {chain} 的地磚"},
    "{tile} holds a lone tile, placed by {player}": {
        "zh-TW": "{tile} 已有一塊單獨地磚，由 {player} 放下"},
    "{tile} holds a lone tile, drawn by {player} for the turn order": {
        "zh-TW": "{tile} 已有一塊單獨地磚，是 {player} 抽來決定順序的"},
    "{tile} holds a lone tile": {"zh-TW": "{tile} 已有一塊單獨地磚"},
    "{tile} holds a turned-over tile, placed by {player}": {
        "zh-TW": "{tile} 已有一塊翻面的地磚，由 {player} 放下"},
    "{tile} holds a turned-over tile": {"zh-TW": "{tile} 已有一塊翻面的地磚"},
    "{tile} is the tile proposed: CONFIRM applies it, UNDO takes it back": {
        "zh-TW": "{tile} 是待確認的地磚：按「確認」放下，按「復原」收回"},
    # --- ending by agreement ------------------------------------------------------------------
    "{player}: end the game now, if everyone agrees? CONFIRM agrees, NEXT refuses": {
        "zh-TW": "{player}：如果大家都同意，現在就結束遊戲？按「確認」同意，按「下一個」拒絕"},
    "{player}: {proposer} proposes to end the game now. CONFIRM agrees, NEXT refuses": {
        "zh-TW": "{player}：{proposer} 提議現在結束遊戲。按「確認」同意，按「下一個」拒絕"},
    "agree": {"zh-TW": "同意"},
    "refuse": {"zh-TW": "拒絕"},
    "agreed so far: {players}": {"zh-TW": "已同意：{players}"},
    "{player} refused to end the game": {"zh-TW": "{player} 不同意結束遊戲"},
    "{tile} was placed while the table decides whether to end the game: take it off": {
        "zh-TW": "牌桌正在決定是否結束遊戲時放下了 {tile}：請把它拿走"},
    "this table plays without ending by agreement": {"zh-TW": "這張牌桌不採用全體同意結束"},
    "the game is over": {"zh-TW": "遊戲已經結束"},
    "the end is already declared": {"zh-TW": "已經宣告結束了"},
    "the table is already asked whether to end the game": {"zh-TW": "牌桌已經在表決是否結束遊戲"},
    "{tile} waits for CONFIRM or UNDO: finish it, then propose the end": {
        "zh-TW": "{tile} 正等待「確認」或「復原」：先處理完，再提議結束"},
    "finish this decision first, then propose the end": {"zh-TW": "請先完成這個決定，再提議結束"},
    # --- the turn-order draw by taps ----------------------------------------------------------
    "camera off ({message}): tap each drawn tile's cell": {
        "zh-TW": "攝影機已關閉（{message}）：請點選每張抽出的地磚所在的格子"},
    "camera off ({message}): tap each tile's cell to enter it": {
        "zh-TW": "攝影機已關閉（{message}）：請點選每張地磚所在的格子來輸入"},
    "Each player draws a tile and places it; tap the cell of each tile drawn: "
    "{count} of {players} in": {
        "zh-TW": "每位玩家抽一張地磚並放上盤面；請點選每張抽出的地磚所在的格子：已輸入 {count}／{players}"},
    "waiting: tap the cell of each tile drawn": {"zh-TW": "等待中：請點選每張抽出的地磚所在的格子"},
    "{tile} was drawn by {player}": {"zh-TW": "{tile} 是 {player} 抽到的"},
    "{tile} is already in: UNDO takes back the last tile tapped": {
        "zh-TW": "{tile} 已經輸入了：按「復原」可收回最後點選的地磚"},
    "every player's tile is in: UNDO takes back the last tile tapped": {
        "zh-TW": "每位玩家的地磚都已輸入：按「復原」可收回最後點選的地磚"},
}
