"""The table screen shows a tile the camera is unsure of as the question it is (real Kivy, Xvfb)."""

from __future__ import annotations

import json

from tabletop.table.assistant import Assistant

from uihelpers import frames, tap


def test_the_unsure_proposal_is_shown_and_one_tap_on_confirm_plays_it(run_app, table, tmp_path):
    from kivy.core.window import Window
    from ui.app import TableApp

    assistant = Assistant(table)
    app = run_app(TableApp(desk=assistant))
    screen = app.table
    assistant.tile_doubted("1E")                 # the camera's doubt, asked as a proposal
    app.tick()
    frames()
    assert screen.ids.title.text == "camera unsure: Cy placed 1E? CONFIRM plays it, UNDO refuses it"
    assert screen.ids.chosen.text == "1E: founds a chain"
    Window.screenshot(name=str(tmp_path / "unsure.png"))
    assert table.lines[1:] == []
    tap(screen.ids.confirm)
    assert [json.loads(line)["do"] for line in table.lines[1:]] == ["place"]
    assert screen.ids.title.text == "Cy: which chain to found?"
