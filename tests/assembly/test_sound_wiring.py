"""``[sound]``: the speaker cues beside the buzzer, and speaks what was confirmed when asked."""

from __future__ import annotations

import pytest

from tabletop.assembly.config import ConfigError, load_config


def _runner(tmp_path, sound: str):
    from tabletop.assembly.runner import Runner
    from tabletop.journal.journal import Journal

    data = tmp_path / "data"
    data.mkdir()
    with Journal.open(data / "journal.db", table_name="table 1") as journal:
        journal.start({"setup": {"rules": "acquire", "players": ["Ann", "Bob"],
                                 "start_tiles": {"Ann": "1A", "Bob": "12I"}}})
    path = tmp_path / "config.toml"
    path.write_text(f'[camera]\nsource = "sim:acquire,seed=1"\n[controls]\nkind = "mock"\n'
                    f'[paths]\ndata = "{data}"\n[sound]\n{sound}\n')
    return Runner(load_config(path, environ={}), out=lambda line: None)


def test_a_proposal_and_a_refusal_are_cued_through_the_speaker_beside_the_buzzer(tmp_path):
    runner = _runner(tmp_path, 'kind = "mock"')
    try:
        runner.loop.desk.tile_seen("6C")
        runner.loop.tick(step=False)
        runner.loop.desk.press("confirm")
        runner.loop.desk.tile_seen("7D")              # while the table is asked to buy
        runner.loop.tick(step=False)
        assert runner.controls.beeps[-2:] == ["tile_seen", "error"]
        assert list(runner.speaker.cues) == ["proposal", "refusal"]
        assert runner.announce is None                 # spoken announcements are off by default
    finally:
        runner.close()


def test_without_cues_the_speaker_stays_quiet_and_the_buzzer_still_beeps(tmp_path):
    runner = _runner(tmp_path, 'kind = "mock"\ncues = false')
    try:
        runner.loop.desk.tile_seen("6C")
        runner.loop.tick(step=False)
        assert runner.controls.beeps[-1:] == ["tile_seen"]
        assert runner.speaker.kind == "off"
    finally:
        runner.close()


def test_speak_hands_the_app_a_voice(tmp_path):
    runner = _runner(tmp_path, 'kind = "mock"\nspeak = true')
    try:
        runner.announce("Ann founded Tower")
        assert list(runner.speaker.words) == ["Ann founded Tower"]
    finally:
        runner.close()


def test_an_unknown_sound_backend_is_named(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[sound]\nkind = "trumpet"\n')
    with pytest.raises(ConfigError, match=r"line 2: \[sound\] kind = \"trumpet\": must be one of auto"):
        load_config(path, environ={})
