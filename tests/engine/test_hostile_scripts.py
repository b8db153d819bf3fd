"""Hostile table scripts, as a user would run them: ``python -m tabletop replay FILE``.

Each script once ended in a Python traceback (a TypeError, a ValueError, a
RecursionError) or echoed a 100 MB line back; the contract (DESIGN.md) is
``line N: <reason>`` on stderr and exit code 2, with a short quote of what was
wrong, and with ``--keep-going`` each illegal line reported and skipped.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SETUP = json.dumps({"setup": {"rules": "acquire", "players": ["Ann", "Bob", "Cy"],
                              "start_tiles": {"Ann": "5C", "Bob": "9I", "Cy": "1D"}}})
#: The most a refusal may print: a sentence, with a short quote of the line.
SHORT = 400
MB = 1_000_000


def replay(script: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "tabletop", "replay", str(script), *args],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)


def refused(result: subprocess.CompletedProcess, line: int, reason: str) -> None:
    """``result`` is one clean refusal of ``line``: exit 2, ``line N: ...reason...``, short."""
    assert result.returncode == 2, result.stderr[-2000:]
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.stderr.startswith(f"line {line}: "), result.stderr[:SHORT]
    assert reason in result.stderr, result.stderr[:SHORT]
    assert len(result.stderr) < SHORT, result.stderr[:SHORT]
    assert result.stdout == ""


HOSTILE = {
    "do is a list": ('{"do": []}', "unknown action []"),
    "do is an object": ('{"do": {}}', "unknown action {}"),
    "5,000 digits": ('{"do": "dispose", "sell": %s}' % ("9" * 5000), "too many digits"),
    "5,000 digits in a buy": ('{"do": "buy", "shares": {"Tower": %s}}' % ("1" * 5000),
                              "too many digits"),
    "100,000 nested brackets": ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    "200,000 nested brackets": ("[" * 200_000 + "]" * 200_000, "at most 262,144 characters"),
    "30,000 nested brackets": ("[" * 30_000 + "]" * 30_000, "nested too deeply"),
    "10,000 nested objects": ('{"a":' * 10_000 + "1" + "}" * 10_000, "nested too deeply"),
    "a 60,000-character tile": ('{"do": "place", "tile": "%s"}' % ("x" * 60_000), "too long"),
    "a 60,000-character player": ('{"do": "place", "tile": "1E", "player": "%s"}' % ("y" * 60_000),
                                  "too long"),
    "a 60,000-character kind": ('{"do": "%s"}' % ("z" * 60_000), "unknown action 'zzz"),
    "a 5,000-character chain": ('{"do": "buy", "shares": {"%s": 1}}' % ("T" * 5_000), "too long"),
    "a 20,000-element list": ('{"do": "buy", "shares": [%s]}' % ", ".join(["1"] * 20_000),
                              "must map chain names"),
}


@pytest.mark.parametrize("line,reason", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_action_line_is_refused_in_words(tmp_path, line, reason):
    script = tmp_path / "game.jsonl"
    script.write_text(f"{SETUP}\n{line}\n", encoding="utf-8")
    refused(replay(script), 2, reason)


@pytest.mark.parametrize("line,reason", [
    (json.dumps({"setup": {"rules": "acquire", "players": ["Ann", "Bob"], "seed": int("7" * 4300)}})
     .replace("7" * 4300, "7" * 5000), "too many digits"),
    ('{"setup": {"rules": "acquire", "players": ["Ann", "Bob"], "mode": "%s"}}' % ("m" * 50_000),
     "mode must be physical or virtual"),
    ('{"setup": {"rules": "acquire", "players": ["Ann", "Bob"], "%s": 1}}' % ("k" * 50_000),
     "setup has no 'kkk"),
    ('{"setup": {"rules": "%s", "players": ["Ann", "Bob"]}}' % ("r" * 5_000), "cannot be read"),
], ids=["a 5,000-digit seed", "a 50,000-character mode", "a 50,000-character key",
        "a 5,000-character rule set"])
def test_a_hostile_setup_line_is_refused_in_words(tmp_path, line, reason):
    script = tmp_path / "game.jsonl"
    script.write_text(f"{line}\n", encoding="utf-8")
    refused(replay(script), 1, reason)


def test_a_100_mb_bad_line_is_refused_unread_and_not_echoed(tmp_path):
    script = tmp_path / "game.jsonl"
    with script.open("w", encoding="utf-8") as handle:
        handle.write(SETUP + '\n{"do": "place", "tile": "')
        handle.write("x" * (100 * MB))
        handle.write('"}\n')
    refused(replay(script), 2, "the line is too long (100,000,027 characters): a table-script "
                               "line is one action or the setup, at most 262,144 characters")


def test_a_100_mb_player_name_is_refused(tmp_path):
    script = tmp_path / "game.jsonl"
    with script.open("w", encoding="utf-8") as handle:
        handle.write('{"setup": {"rules": "acquire", "players": ["Ann", "')
        handle.write("B" * (100 * MB))
        handle.write('"]}}\n')
    refused(replay(script), 1, "the line is too long")


def test_a_name_too_long_under_the_line_limit_is_refused_naming_its_seat(tmp_path):
    script = tmp_path / "game.jsonl"
    script.write_text(json.dumps({"setup": {"rules": "acquire", "players": ["Ann", "B" * 1000]}})
                      + "\n", encoding="utf-8")
    refused(replay(script), 1, "seat 2: the name is too long: at most 24 columns")


@pytest.mark.parametrize("kind", ["a FIFO", "a folder", "not UTF-8", "nested 100,000 deep"])
def test_a_rule_file_that_cannot_be_read_is_refused_in_words(tmp_path, kind):
    """A setup may name a rule file by path: whatever is there, the line is refused cleanly
    (a FIFO once made replay wait forever). The reason is the rule reader's."""
    rules = tmp_path / "custom.toml"
    if kind == "a FIFO":
        os.mkfifo(rules)
    elif kind == "a folder":
        rules.mkdir()
    elif kind == "not UTF-8":
        rules.write_bytes(b"\xff\xfe[game]\n")
    else:
        rules.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    script = tmp_path / "game.jsonl"
    script.write_text(json.dumps({"setup": {"rules": str(rules), "players": ["Ann", "Bob"]}}) + "\n",
                      encoding="utf-8")
    refused(replay(script), 1, "custom.toml")


def test_keep_going_reports_each_hostile_line_skips_it_and_plays_the_rest(tmp_path):
    lines = [SETUP, '{"do": []}', '{"do": "place", "tile": "1E"}', '{"do": {}}',
             "[" * 30_000 + "]" * 30_000, '{"do": "found", "chain": "Tower"}',
             '{"do": "dispose", "sell": %s}' % ("9" * 5000),
             '{"do": "place", "tile": "%s"}' % ("x" * (2 * MB)),
             '{"do": "buy", "shares": {"Tower": 2}}']
    script = tmp_path / "game.jsonl"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = replay(script, "--keep-going")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    reported = result.stderr.splitlines()
    assert [line.split(":")[0] for line in reported] == ["line 2", "line 4", "line 5", "line 7",
                                                         "line 8"]
    assert len(result.stderr) < 5 * SHORT
    state = json.loads(result.stdout)
    # The state is the clean script's: the refused lines changed nothing.
    good = tmp_path / "good.jsonl"
    good.write_text("\n".join(lines[i] for i in (0, 2, 5, 8)) + "\n", encoding="utf-8")
    expected = replay(good)
    assert expected.returncode == 0, expected.stderr
    assert state == json.loads(expected.stdout)
