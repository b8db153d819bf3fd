"""The speaker: cues as real WAVs through a real subprocess, words through espeak-ng, never a raise.

The subprocess tests put a fake ``aplay`` (and ``espeak-ng``) on PATH: a script that keeps
what it was given (its arguments, its stdin) in a file, as the real one would play it.
"""

from __future__ import annotations

import io
import logging
import math
import struct
import sys
import time
import wave
from pathlib import Path

import pytest

from hardware import sound
from hardware.controls import MockControls
from hardware.sound import CUES, Chiming, cue_wav, open_speaker

FAKE = """#!{python}
import os, sys, time
record = {record!r}
n = len([f for f in os.listdir(record) if f.endswith(".args")])
data = sys.stdin.buffer.read()
time.sleep({delay})
open(os.path.join(record, f"{{n}}.in"), "wb").write(data)
open(os.path.join(record, f"{{n}}.args"), "w").write("\\n".join(sys.argv[1:]))
{tail}
"""


def fake(folder: Path, name: str, *, delay: float = 0.0, tail: str = "") -> Path:
    """A program called ``name`` in ``folder`` recording each run in ``folder/name/``."""
    record = folder / name / "runs"
    record.mkdir(parents=True)
    script = folder / name / name
    script.write_text(FAKE.format(python=sys.executable, record=str(record), delay=delay,
                                  tail=tail))
    script.chmod(0o755)
    return script


def runs(script: Path, count: int, timeout: float = 10.0) -> list[tuple[list[str], bytes]]:
    """The first ``count`` runs of a fake program, waiting for them up to ``timeout``."""
    record = script.parent / "runs"
    deadline = time.monotonic() + timeout
    while len(list(record.glob("*.args"))) < count and time.monotonic() < deadline:
        time.sleep(0.02)
    found = []
    for n in range(len(list(record.glob("*.args")))):
        found.append(((record / f"{n}.args").read_text().split("\n"),
                      (record / f"{n}.in").read_bytes()))
    return found


@pytest.fixture
def on_path(tmp_path, monkeypatch):
    """Fake programs made here are found on PATH by their plain names."""
    def make(name: str, **kwargs) -> Path:
        script = fake(tmp_path, name, **kwargs)
        monkeypatch.setenv("PATH", f"{script.parent}:{__import__('os').environ['PATH']}")
        return script
    return make


def samples_of(data: bytes) -> tuple[int, tuple[int, ...]]:
    """A mono 16-bit WAV's sample rate and samples (checked to be one)."""
    with wave.open(io.BytesIO(data)) as file:
        assert (file.getnchannels(), file.getsampwidth()) == (1, 2)
        rate, frames = file.getframerate(), file.readframes(file.getnframes())
    samples = struct.unpack(f"<{len(frames) // 2}h", frames)
    return rate, samples


@pytest.mark.parametrize("kind", sorted(CUES))
def test_a_cue_is_a_wav_of_its_notes_length_and_pitch(kind):
    rate, samples = samples_of(cue_wav(kind))
    notes = CUES[kind]
    assert len(samples) / rate == pytest.approx(sum(seconds for _, seconds in notes), abs=0.002)
    start = 0
    for hz, seconds in notes:
        part = samples[start:start + int(rate * seconds)]
        start += len(part)
        crossings = sum(1 for a, b in zip(part, part[1:]) if (a < 0) != (b < 0))
        assert crossings / 2 / seconds == pytest.approx(hz, rel=0.03)
        assert max(abs(s) for s in part) < 32767 * 0.6     # not clipped: half volume
        assert abs(part[0]) < 2000 and abs(part[-1]) < 2000    # faded: no click


def test_the_two_cues_differ_in_pitch_direction_and_length():
    proposal, refusal = CUES["proposal"], CUES["refusal"]
    assert proposal[-1][0] > proposal[0][0] and refusal[-1][0] < refusal[0][0]
    assert sum(s for _, s in refusal) > sum(s for _, s in proposal)
    assert cue_wav("proposal") != cue_wav("refusal")


def test_mock_speaker_records_the_last_cues_and_words_only():
    speaker = open_speaker("mock", speak=True)
    for n in range(sound.MOCK_MEMORY + 5):
        speaker.cue("proposal" if n % 2 else "refusal")
        speaker.say(f"word {n}")
    assert len(speaker.cues) == len(speaker.words) == sound.MOCK_MEMORY
    assert speaker.words[-1] == f"word {sound.MOCK_MEMORY + 4}"
    quiet = open_speaker("mock")
    quiet.say("Ann founds Tower")
    assert list(quiet.words) == []          # speaking is off by default
    with pytest.raises(ValueError, match="unknown cue 'fanfare'"):
        quiet.cue("fanfare")


def test_the_backend_comes_from_the_argument_or_the_environment(monkeypatch):
    monkeypatch.setenv("TABLETOP_SOUND", "mock")
    assert open_speaker().kind == "mock"
    assert open_speaker("off").kind == "off"
    monkeypatch.setenv("TABLETOP_SOUND", "auto")
    monkeypatch.setenv("PATH", "/nonexistent")
    assert open_speaker().kind == "off"          # no aplay here: quiet, not failing
    with pytest.raises(ValueError, match="backends are aplay, mock, off"):
        open_speaker("trumpet")
    # Options a backend does not read are dropped, so the caller needs no if on the kind.
    assert open_speaker("off", device="plughw:1", language="zh-TW").kind == "off"


def test_cues_reach_aplay_as_valid_wavs(on_path):
    aplay = on_path("aplay")
    speaker = open_speaker("aplay", device="plughw:1")
    speaker.cue("proposal")
    speaker.cue("refusal")
    played = runs(aplay, 2)
    speaker.close()
    assert [args for args, _ in played] == [["-q", "-D", "plughw:1", "-"]] * 2
    assert [data for _, data in played] == [cue_wav("proposal"), cue_wav("refusal")]
    rate, samples = samples_of(played[0][1])
    assert len(samples) / rate == pytest.approx(0.21, abs=0.002)


def test_a_cue_never_waits_for_the_player(on_path):
    aplay = on_path("aplay", delay=1.0)
    speaker = open_speaker("aplay")
    began = time.monotonic()
    for _ in range(10):            # more than the queue holds: the extra ones are dropped
        speaker.cue("proposal")
    assert time.monotonic() - began < 0.2
    assert 1 <= len(runs(aplay, 1, timeout=5)) <= 1 + sound.QUEUE_LENGTH
    speaker.close()


def test_words_go_through_espeak_ng_to_aplay(on_path):
    wav = cue_wav("refusal")     # what the fake voice answers with: any WAV will do
    voice = on_path("espeak-ng", tail=f"sys.stdout.buffer.write({wav!r})")
    aplay = on_path("aplay")
    speaker = open_speaker("aplay", speak=True, language="zh-TW")
    speaker.say("Ann 建立 Tower")
    (args, text), = runs(voice, 1)
    (_, played), = runs(aplay, 1)
    speaker.close()
    assert text.decode("utf-8") == "Ann 建立 Tower"
    assert args == ["--stdout", "--stdin", "-v", "cmn"]
    assert played == wav


def test_speaking_is_off_unless_asked(on_path):
    voice = on_path("espeak-ng")
    on_path("aplay")
    speaker = open_speaker("aplay")
    speaker.say("Ann founds Tower")
    speaker.cue("proposal")
    time.sleep(0.3)
    speaker.close()
    assert runs(voice, 0) == []


def test_an_absent_player_is_logged_once_and_then_quiet(tmp_path, caplog):
    speaker = open_speaker("aplay", player=str(tmp_path / "no-aplay"))
    with caplog.at_level(logging.WARNING, logger="hardware.sound"):
        for _ in range(5):
            speaker.cue("proposal")        # never raises
            time.sleep(0.05)
        speaker.close()
    assert speaker.quiet
    assert len(caplog.records) == 1 and "no-aplay" in caplog.text


def test_a_device_that_refuses_is_logged_once_with_its_reason(on_path, caplog):
    aplay = on_path("aplay", tail="sys.stderr.write('aplay: main:831: audio open error: "
                                  "No such file or directory\\n'); sys.exit(1)")
    speaker = open_speaker("aplay")
    with caplog.at_level(logging.WARNING, logger="hardware.sound"):
        speaker.cue("refusal")
        runs(aplay, 1)
        time.sleep(0.2)
        for _ in range(3):
            speaker.cue("refusal")
        time.sleep(0.2)
        speaker.close()
    assert len(runs(aplay, 1)) == 1          # not tried again once it refused
    assert len(caplog.records) == 1 and "audio open error" in caplog.text


def test_an_absent_voice_silences_words_not_cues(tmp_path, on_path, caplog):
    aplay = on_path("aplay")
    speaker = open_speaker("aplay", speak=True, voice=str(tmp_path / "no-espeak"))
    with caplog.at_level(logging.WARNING, logger="hardware.sound"):
        speaker.say("Ann founds Tower")
        speaker.say("Bob founds Luxor")
        speaker.cue("proposal")
        played = runs(aplay, 1)
        speaker.close()
    assert [data for _, data in played] == [cue_wav("proposal")]
    assert [r.getMessage().count("spoken announcements are off") for r in caplog.records] == [1]


def test_chiming_cues_beside_the_buzzer():
    controls = MockControls()
    signals = Chiming(controls, open_speaker("mock"))
    signals.beep("tile_seen")
    signals.beep("error")
    signals.show("ready")
    assert controls.beeps == ["tile_seen", "error"] and controls.shown == ["ready"]
    assert list(signals.speaker.cues) == ["proposal", "refusal"]
    assert signals.events(timeout=0) is None       # the rest is the controls'
    assert math.isclose(len(cue_wav("proposal")), 44 + 2 * int(0.09 * 22050) + 2 * int(0.12 * 22050))


def test_chiming_speaks_closes_both_and_can_keep_cues_off():
    controls = MockControls()
    signals = Chiming(controls, open_speaker("mock", speak=True), cues=False)
    signals.beep("tile_seen")
    signals.say("Ann founds Tower")
    assert controls.beeps == ["tile_seen"] and list(signals.speaker.cues) == []
    assert list(signals.speaker.words) == ["Ann founds Tower"]
    signals.close()
