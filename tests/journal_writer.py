"""A program that records a long game to a journal, and the crash trial that kills it.

Run as a program (``python tests/journal_writer.py DB SEED [GAME]``) it opens
the journal, starts the game of ``SEED`` (or resumes game ``GAME``), records
the rest of :func:`intended_lines` one line at a time and prints
``ack GAME SEQ`` (flushed) after each record returns: the moment the action
counts as confirmed. :func:`crash_trial` runs it, kills it with SIGKILL at a
random moment, reopens the journal and checks it. Used by tests/journal/test_crash.py
and bench/crash.py.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tabletop.journal.journal import Journal  # noqa: E402
from tabletop.engine.table_script import replay  # noqa: E402
from tabletop.engine.random_play import play_random_game  # noqa: E402
from tabletop.engine.state import state_json  # noqa: E402

PLAYERS = ["Ann", "Bob", "Cy", "Di"]


def intended_lines(seed: int) -> list[str]:
    """A random 4-player game's script (setup first), with some actions undone and played again."""
    script = [json.dumps(line) for line in play_random_game("acquire", PLAYERS, seed=seed).script()]
    rng = random.Random(seed)
    lines = script[:1]
    for line in script[1:]:
        lines.append(line)
        if rng.random() < 0.05:
            lines += ['{"do": "undo"}', line]
    return lines


def write(db: str, seed: int, game_id: int | None) -> None:
    lines = intended_lines(seed)
    with Journal.open(db, table_name="crash test") as journal:
        if game_id is None:
            table = journal.start(lines[0])
            print(f"ack {table.id} 0", flush=True)
        else:
            table = journal.resume(game_id)
        for line in lines[len(table.records):]:
            table.push(line)
            print(f"ack {table.id} {len(table.records) - 1}", flush=True)
    print("done", flush=True)


@dataclass
class Trial:
    """What one kill and reopening found."""

    game: int | None
    acked: int                  # highest sequence number acknowledged before the kill (-1: none)
    confirmed: int              # records of the game acknowledged so far, in this run or before
    held: int                   # records of the game the reopened journal holds
    finished: bool
    messages: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def crash_trial(db: Path, seed: int, game_id: int | None, rng: random.Random) -> Trial:
    """Record game ``seed`` (resuming ``game_id``) in a subprocess, SIGKILL it at a random
    moment, reopen the journal and check that every acknowledged action is there and that
    the resumed state equals a clean replay of the recorded lines."""
    lines = intended_lines(seed)
    known = _held(db)
    acks = _run_and_kill(db, seed, game_id, rng, len(lines))
    acked = max((seq for _, seq in acks), default=-1)
    if acks:
        game_id = acks[0][0]
    with Journal.open(db, timeout=10) as journal:
        messages = list(journal.report.messages)
        if game_id is None:
            new = [info.id for info in journal.games() if info.id not in known]
            game_id = new[0] if new else None
        if game_id is None:
            return Trial(None, acked, 0, 0, False, messages,
                         [] if acked < 0 else ["an acknowledged game is missing"])
        table = journal.resume(game_id)
        held = len(table.records)
        confirmed = max(acked + 1, known.get(game_id, 0))
        problems = _check(table, lines, confirmed)
        return Trial(game_id, acked, confirmed, held, table.game.over, messages, problems)


def _check(table, lines: list[str], confirmed: int) -> list[str]:
    """Problems with the reopened game, whose first ``confirmed`` records were acknowledged."""
    problems = []
    held = table.lines
    if len(held) < confirmed:
        problems.append(f"{confirmed} records were acknowledged, the journal holds {len(held)}")
    if [json.loads(line) for line in held] != [json.loads(line) for line in lines[:len(held)]]:
        problems.append("the journal's lines are not the lines that were sent")
    clean = replay(lines[:len(held)])
    if clean.errors or state_json(clean.game) != state_json(table.game):
        problems.append("the resumed state differs from a clean replay of the recorded lines")
    return problems


def _run_and_kill(db: Path, seed: int, game_id: int | None, rng: random.Random,
                  total: int) -> list[tuple[int, int]]:
    """Start the writer, kill it after a random number of acks plus a random delay; return all acks."""
    command = [sys.executable, str(Path(__file__).resolve()), str(db), str(seed)]
    if game_id is not None:
        command.append(str(game_id))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    writer = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    kill_after = rng.randrange(0, max(1, total // 2))
    acks: list[tuple[int, int]] = []
    try:
        while len(acks) < kill_after:
            text = writer.stdout.readline()
            if not text or text.startswith("done"):
                break
            acks.append(_ack(text))
        time.sleep(rng.random() * 0.008)
        writer.send_signal(signal.SIGKILL)
        for text in writer.stdout:      # acks printed before the kill are acks all the same
            if text.startswith("ack"):
                acks.append(_ack(text))
    finally:
        writer.kill()
        writer.wait()
        writer.stdout.close()
        error = writer.stderr.read()
        writer.stderr.close()
    if writer.returncode not in (-signal.SIGKILL, 0):
        raise RuntimeError(f"the writer failed: {error}")
    return acks


def _ack(text: str) -> tuple[int, int]:
    _, game, seq = text.split()
    return int(game), int(seq)


def _held(db: Path) -> dict[int, int]:
    """How many records each game of the journal holds (before the next writer runs)."""
    if not db.exists():
        return {}
    with Journal.open(db, readonly=True) as journal:
        return {info.id: info.actions + 1 for info in journal.games()}


if __name__ == "__main__":
    write(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else None)
