"""The screen's new fixed strings (by key) and message templates, while they move to catalogues.

TEXTS: key -> {language: text}, as :data:`ui.i18n.TEXTS`. MESSAGES: a
:class:`~tabletop.messages.Message` template (its English) -> {language: template}.

This area: the window, first use (the calibration's steps, no camera) and the menu.
"""

TEXTS: dict[str, dict[str, str]] = {
    # The calibration screen's steps, for a table set up for the first time.
    "calib_steps": {"en": "Steps", "zh-TW": "步驟"},
    "calib_steps_title": {"en": "First use: set up the camera", "zh-TW": "第一次使用：設定攝影機"},
    "calib_step_print": {
        "en": "Print the four markers: run [color=ffd866]tabletop markers --out markers.png"
              "[/color] on this Pi or any computer with tabletop; print at 100% (actual size).",
        "zh-TW": "列印四個標記：在這台 Pi 或任何裝有 tabletop 的電腦上執行 [color=ffd866]"
                 "tabletop markers --out markers.png[/color] 再以 100%（實際大小）列印。"},
    "calib_step_stick": {
        "en": "Stick one near each corner of the board, outside the grid, where tiles and "
              "money never cover them.",
        "zh-TW": "在棋盤四個角落附近各貼一個，貼在格子外、不會被地磚或鈔票蓋住的地方。"},
    "calib_step_camera": {
        "en": "Put the camera above the board: the whole board and all four markers in the "
              "picture (seen: {seen}). Take every tile off.",
        "zh-TW": "把攝影機架在棋盤上方：整個棋盤和四個標記都要在畫面裡（看到：{seen}）。"
                 "拿走所有地磚。"},
    "calib_step_tap": {
        "en": "Tap the centre of the corner cells on the picture, in this order: {corners}.",
        "zh-TW": "在畫面上依序點選角落格子的中心：{corners}。"},
    "calib_step_save": {
        "en": "Check that the dots lie on the cells, then tap Save. The game's setup comes next.",
        "zh-TW": "確認圓點都落在格子上，再點「儲存」。接著設定遊戲。"},
    "calib_no_camera": {"en": "No camera: the table plays by taps",
                        "zh-TW": "沒有攝影機：請用點選輸入地磚"},
    "calib_waiting": {"en": "Waiting for the camera's picture", "zh-TW": "等待攝影機畫面"},
    # The menu.
    "menu_end_agreed": {"en": "End the game by agreement", "zh-TW": "經全體同意結束遊戲"},
}

MESSAGES: dict[str, dict[str, str]] = {
    # Why a table plays by taps (the desk's banner holds it).
    "none configured": {"zh-TW": "未設定"},
    "not found": {"zh-TW": "找不到"},
    "not calibrated yet": {"zh-TW": "尚未校正"},
}
