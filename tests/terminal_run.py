"""``tabletop`` run as a person runs it: standard error on a pseudo-terminal (a real pty).

Shared by the command-line tests that check what a terminal shows, and only a terminal
(progress bars, Ctrl-C lines, the context a piped reader must not get).
"""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def on_terminal(*args: str, interrupt_at: bytes | None = None,
                env: dict[str, str] | None = None) -> tuple[int, str, bytes]:
    """``tabletop ARGS`` with standard error on a pseudo-terminal (standard output piped):
    (exit status, standard output, what the terminal showed). With ``interrupt_at``, Ctrl-C
    (SIGINT) is sent as soon as the terminal shows those bytes."""
    master, slave = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "tabletop", *args], cwd=ROOT, env=env,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    shown, sent = b"", False
    try:
        while select.select([master], [], [], 120)[0]:   # a guard against a hang, not a wait
            try:
                chunk = os.read(master, 4096)
            except OSError:              # EIO: the process closed the terminal (it ended)
                break
            if not chunk:
                break
            shown += chunk
            if interrupt_at is not None and not sent and interrupt_at in shown:
                process.send_signal(signal.SIGINT)
                sent = True
        stdout = process.communicate(timeout=120)[0].decode()
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()
    assert interrupt_at is None or sent, shown
    return process.returncode, stdout, shown
