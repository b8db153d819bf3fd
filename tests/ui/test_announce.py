"""Spoken announcements: each confirmed action, once, in the screen's language."""

from __future__ import annotations

from uihelpers import frames


def test_each_confirmed_action_is_announced_once_in_the_screens_language(run_app, table):
    from tabletop.table.assistant import Assistant
    from ui.app import TableApp

    said: list[str] = []
    desk = Assistant(table)
    app = run_app(TableApp(desk=desk, announce=said.append))
    app.update(force=True)
    assert said == []                      # what was confirmed before the app opened is not read
    desk.tile_seen("1E")                   # Cy, next to 1D: a new chain to found
    desk.press("confirm")
    app.update()
    frames()
    assert said == ["Cy placed 1E"], said
    app.update(force=True)
    assert said == ["Cy placed 1E"]        # a redraw says nothing again
    app.set_language("de")
    desk.press("confirm")                  # founds the chain proposed first
    app.update()
    assert len(said) == 2 and said[1].startswith("Cy ")
    assert said[1] != "Cy founded Tower (gets 1 free share)", "not said in German"
