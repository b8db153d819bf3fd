"""The table's speaker: a short cue for players who are not looking, and optionally words.

Two cues: ``proposal`` (a rising two-note chime: "look, something to confirm") and
``refusal`` (a falling, lower, longer pair: "that was not taken"). Each is a tone made
here, as an in-memory WAV (:func:`cue_wav`), and played through ``aplay`` (alsa-utils).
Spoken announcements ("Ann founds Tower") come from ``espeak-ng``, rendered to a WAV and
played the same way; they are off unless asked for (``speak=True``).

Nothing here blocks or raises into the game: sounds go to one worker thread through a
short queue (a full queue drops the sound: a cue late is a cue wrong), and a player
or voice that is missing, or a sound device that refuses, is logged once and then left
quiet. The GPIO buzzer (:mod:`hardware.controls`) stays as it is, beside this.

Backends, picked by :func:`open_speaker` from the :data:`BACKENDS` registry:

``aplay``
    the cues and words through ``aplay`` (``device=`` an ALSA device, e.g. ``"plughw:1"``;
    ``None`` the default one).
``mock``
    no sound: the last :data:`MOCK_MEMORY` cues and words are kept in :attr:`MockSpeaker.cues`
    and :attr:`MockSpeaker.words`.
``off``
    nothing at all.

Without a kind, ``$TABLETOP_SOUND`` decides, else ``aplay`` when it is installed, else
``off``.

>>> speaker = open_speaker("mock", speak=True)
>>> speaker.cue("proposal"); speaker.say("Ann founds Tower")
>>> list(speaker.cues), list(speaker.words)
(['proposal'], ['Ann founds Tower'])
"""

from __future__ import annotations

import functools
import io
import logging
import math
import os
import queue
import shutil
import struct
import subprocess
import threading
import wave
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

log = logging.getLogger(__name__)

ENV_VAR = "TABLETOP_SOUND"
SAMPLE_RATE = 22050
#: Cue -> its notes, (frequency in Hz, seconds) each: short, and told apart by direction
#: and pitch as well as length, so neither is mistaken for the other across a table.
CUES: dict[str, tuple[tuple[float, float], ...]] = {
    "proposal": ((880.0, 0.09), (1320.0, 0.12)),
    "refusal": ((392.0, 0.16), (262.0, 0.24)),
}
#: A screen's language -> the espeak-ng voice that reads it.
VOICES: dict[str, str] = {"en": "en", "zh-TW": "cmn", "de": "de"}
#: How many sounds may wait for the worker before new ones are dropped.
QUEUE_LENGTH = 4
#: How many cues and words a :class:`MockSpeaker` remembers (it may run for hours).
MOCK_MEMORY = 100
#: Longest a player or voice may take for one sound before it is given up on.
TIMEOUT = 15.0


class Speaker(Protocol):
    """What the table needs of a speaker."""

    def cue(self, kind: str) -> None:
        """Play cue ``kind`` (a key of :data:`CUES`); returns at once."""

    def say(self, words: str) -> None:
        """Speak ``words`` when speaking is on; returns at once."""

    def close(self) -> None:
        """Stop; sounds still waiting are dropped."""


def _check_cue(kind: str) -> None:
    # An unknown cue is the caller's mistake (as an unknown beep is), not a device's state.
    if kind not in CUES:
        raise ValueError(f"unknown cue {kind!r}; cues are {', '.join(CUES)}")


def tone_wav(notes: tuple[tuple[float, float], ...], rate: int = SAMPLE_RATE,
             volume: float = 0.5) -> bytes:
    """A mono 16-bit WAV of ``notes`` ((Hz, seconds) each) played one after another.

    Each note fades in and out over 5 ms: a tone cut off mid-wave clicks.

    >>> data = tone_wav(((440.0, 0.1),))
    >>> with wave.open(io.BytesIO(data)) as w: w.getnframes(), w.getframerate(), w.getsampwidth()
    (2205, 22050, 2)
    """
    samples = bytearray()
    ramp = max(1, int(rate * 0.005))
    for frequency, seconds in notes:
        count = int(rate * seconds)
        for i in range(count):
            envelope = min(1.0, i / ramp, (count - 1 - i) / ramp)
            value = volume * envelope * math.sin(2 * math.pi * frequency * i / rate)
            samples += struct.pack("<h", int(value * 32767))
    out = io.BytesIO()
    with wave.open(out, "wb") as file:
        file.setnchannels(1)
        file.setsampwidth(2)
        file.setframerate(rate)
        file.writeframes(bytes(samples))
    return out.getvalue()


@functools.lru_cache(maxsize=None)
def cue_wav(kind: str) -> bytes:
    """The WAV of cue ``kind``."""
    _check_cue(kind)
    return tone_wav(CUES[kind])


class SilentSpeaker:
    """``off``: cues and words go nowhere."""

    kind = "off"

    def __init__(self, *, speak: bool = False) -> None:
        self.speak = speak

    def cue(self, kind: str) -> None:
        _check_cue(kind)

    def say(self, words: str) -> None:
        pass

    def close(self) -> None:
        pass


class MockSpeaker(SilentSpeaker):
    """``mock``: remembers the last :data:`MOCK_MEMORY` cues and (when speaking) words."""

    kind = "mock"

    def __init__(self, *, speak: bool = False) -> None:
        super().__init__(speak=speak)
        self.cues: deque[str] = deque(maxlen=MOCK_MEMORY)
        self.words: deque[str] = deque(maxlen=MOCK_MEMORY)

    def cue(self, kind: str) -> None:
        _check_cue(kind)
        self.cues.append(kind)

    def say(self, words: str) -> None:
        if self.speak and words:
            self.words.append(words)


Runner = Callable[..., subprocess.CompletedProcess]


class AplaySpeaker:
    """``aplay``: cues (and words, through ``espeak-ng``) played by a worker thread."""

    kind = "aplay"

    def __init__(self, *, speak: bool = False, device: str | None = None,
                 language: str = "en", player: str = "aplay", voice: str = "espeak-ng",
                 runner: Runner = subprocess.run) -> None:
        self.speak = speak
        self.device = device
        self.language = language
        self.player, self.voice = player, voice
        self._run = runner
        self._queue: queue.Queue[tuple[str, str] | None] = queue.Queue(QUEUE_LENGTH)
        self._quiet: set[str] = set()      # "player", "voice": failed once, not tried again
        self._worker: threading.Thread | None = None
        self._lock = threading.Lock()

    # --- the game's calls: quick, never raising --------------------------------------------

    def cue(self, kind: str) -> None:
        _check_cue(kind)
        self._put(("cue", kind))

    def say(self, words: str) -> None:
        if self.speak and words and "voice" not in self._quiet:
            self._put(("say", words))

    def close(self) -> None:
        with self._lock:
            worker, self._worker = self._worker, None
        if worker is not None:
            _drain(self._queue)
            self._queue.put(None)
            worker.join(timeout=TIMEOUT)

    @property
    def quiet(self) -> bool:
        """Whether the player failed and the speaker has gone quiet."""
        return "player" in self._quiet

    def _put(self, sound: tuple[str, str]) -> None:
        if self.quiet:
            return
        self._start()
        try:
            self._queue.put_nowait(sound)
        except queue.Full:
            log.debug("sound: %s dropped (%d waiting)", sound[0], QUEUE_LENGTH)

    def _start(self) -> None:
        with self._lock:
            if self._worker is None:
                self._worker = threading.Thread(target=self._work, name="speaker", daemon=True)
                self._worker.start()

    # --- the worker ------------------------------------------------------------------------

    def _work(self) -> None:
        while (sound := self._queue.get()) is not None:
            what, value = sound
            wav = cue_wav(value) if what == "cue" else self._speech(value)
            if wav:
                self._play(wav)

    def _speech(self, words: str) -> bytes:
        command = [self.voice, "--stdout", "--stdin", "-v", VOICES.get(self.language, "en")]
        done = self._command("voice", command, words.encode("utf-8"))
        return done.stdout if done is not None else b""

    def _play(self, wav: bytes) -> None:
        device = ["-D", self.device] if self.device else []
        self._command("player", [self.player, "-q", *device, "-"], wav)

    def _command(self, role: str, command: list[str], data: bytes):
        """Run ``command`` with ``data`` on stdin; on failure log once and quieten ``role``."""
        if role in self._quiet:
            return None
        try:
            done = self._run(command, input=data, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, timeout=TIMEOUT, check=False)
        except (OSError, subprocess.SubprocessError) as error:
            return self._give_up(role, command[0], getattr(error, "strerror", None) or error)
        if done.returncode != 0:
            reason = (done.stderr or b"").decode("utf-8", "replace").strip().splitlines()
            return self._give_up(role, command[0], reason[-1] if reason else
                                 f"exit status {done.returncode}")
        return done

    def _give_up(self, role: str, program: str, reason: object) -> None:
        self._quiet.add(role)
        what = "cues and words" if role == "player" else "spoken announcements"
        log.warning("sound: %s failed (%s); %s are off until the table restarts",
                    program, reason, what)
        return None


def _drain(waiting: queue.Queue) -> None:
    while True:
        try:
            waiting.get_nowait()
        except queue.Empty:
            return


@dataclass(frozen=True)
class Backend:
    """One entry of :data:`BACKENDS`: a kind of speaker and the options it reads."""

    name: str
    factory: Callable[..., Speaker]
    options: frozenset[str]

    def open(self, options: Mapping[str, Any]) -> Speaker:
        """``factory`` called with those of ``options`` it reads."""
        return self.factory(**{k: v for k, v in options.items() if k in self.options})


#: Backend name -> :class:`Backend`. Extend with :func:`register_backend`.
BACKENDS: dict[str, Backend] = {
    backend.name: backend for backend in (
        Backend("aplay", AplaySpeaker, frozenset(
            {"speak", "device", "language", "player", "voice", "runner"})),
        Backend("mock", MockSpeaker, frozenset({"speak"})),
        Backend("off", SilentSpeaker, frozenset({"speak"})),
    )
}


def register_backend(name: str, factory: Callable[..., Speaker], options: set[str]) -> Backend:
    """Make ``open_speaker(name)`` build a speaker with ``factory`` (reading ``options``)."""
    backend = Backend(name.lower(), factory, frozenset(options))
    BACKENDS[backend.name] = backend
    return backend


def _automatic() -> str:
    # A machine without alsa-utils (a laptop, CI) is quiet rather than failing once per cue.
    return "aplay" if shutil.which("aplay") else "off"


def open_speaker(kind: str | None = None, **options: Any) -> Speaker:
    """The speaker of backend ``kind`` (None: ``$TABLETOP_SOUND``, else automatic).

    ``options`` (``speak``, ``device``, ``language``, ...) go to the backends that read them.

    >>> open_speaker("off").kind
    'off'
    >>> open_speaker("trumpet")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: unknown sound backend 'trumpet'; backends are aplay, mock, off...
    """
    chosen = (kind or os.environ.get(ENV_VAR, "")).strip().lower()
    if chosen in ("", "auto"):
        chosen = _automatic()
    if chosen not in BACKENDS:
        raise ValueError(f"unknown sound backend {chosen!r}; backends are {', '.join(BACKENDS)}")
    return BACKENDS[chosen].open(options)


#: The buzzer's beeps (:data:`hardware.controls.BEEPS`) -> the speaker's cue for the same event.
BEEP_CUES: dict[str, str] = {"tile_seen": "proposal", "error": "refusal"}


class Chiming:
    """The table's signals (buttons, light, buzzer) with the speaker cueing beside each beep.

    Wraps the controls (:class:`hardware.controls.Controls`: ``events``, ``show``, ``beep``),
    so the loop that beeps needs no change. ``cues=False`` keeps the speaker for words only.

    >>> from hardware.controls import MockControls
    >>> controls = MockControls()
    >>> signals = Chiming(controls, open_speaker("mock"))
    >>> signals.beep("error"); controls.beeps, list(signals.speaker.cues)
    (['error'], ['refusal'])
    """

    def __init__(self, signals: Any, speaker: Speaker, *, cues: bool = True) -> None:
        self.signals = signals
        self.speaker = speaker
        self.cues = cues

    def events(self, timeout: float | None = None) -> Any:
        return self.signals.events(timeout)

    def show(self, state: str) -> None:
        self.signals.show(state)

    def beep(self, kind: str) -> None:
        self.signals.beep(kind)
        if self.cues and kind in BEEP_CUES:
            self.speaker.cue(BEEP_CUES[kind])

    def say(self, words: str) -> None:
        """Speak ``words`` (when the speaker was opened with ``speak=True``)."""
        self.speaker.say(words)

    def close(self) -> None:
        self.speaker.close()
        self.signals.close()
