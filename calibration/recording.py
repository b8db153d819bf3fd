"""Recordings of a real table: the frames that matter, and what the journal confirmed.

``tabletop run --record FOLDER`` keeps, with the players' consent, a game's
frames at the moments that matter and the placements the table confirmed, in
a folder that can be copied off the table; ``tabletop vision-report`` replays
them through a fresh Watcher (:mod:`calibration.playback` reads them back) and
scores it as ``bench/vision.py`` does::

    manifest.json      format, version, table, rules, camera source, consent, when
    calibration.json   the table's calibration as it was (the replay reads with it)
    frames/000123.png  the frames kept, named by their index (PNG, or JPEG quality 90)
    moments.jsonl      one line per frame kept and per decision of the eyes, in order
    labels.jsonl       one line per placement the journal confirmed

A moment's ``kind``: ``before``, the last still frame before a hand came;
``hand``, a frame with a hand over the board covering cells that no earlier
frame of that visit covered (a replay must see where the hand was: only
there does a new tile count); ``after``, the first still frame after the
hand left; ``reference``, ``doubt`` (a cell the eyes could not read) and
``refusal`` (a change they would not commit), each at the frame decided;
``commit``, a tile the eyes committed (no frame); ``expect`` and
``restart``, the game's board told to the eyes and a stream broken off. A
frame kept twice (an ``after`` that is also a doubt) is one file, two lines.

A label: ``{"tile": "5C", "how": "camera", "frame": 57, "seconds": 5.7,
"hand": 45, "board": [...]}``: the tile, how it was entered (``camera``,
``tapped``, or ``unsure-confirmed``: the camera's doubt that one CONFIRM
accepted), the after-frame of the hand's visit that placed it and its time,
the visit's first hand frame, and the journal's board after it; ``{"undo":
"5C"}`` takes the last label of that tile back.

Frames are PNG by default: JPEG at quality 90 (a fifth of the size) changes
what the recognizer reads (a dimmed low-contrast board read from the PNG can
be unreadable from the JPEG): a JPEG recording measures its compression too.

Memory stays bounded: the recorder holds one frame (the last still one, the
next visit's before-frame); frames to write wait in a queue of at most
``limit`` on a thread of their own, and a frame that finds it full is
dropped and counted, never waited for.

>>> frame_name(123, "png")
'frames/000123.png'
>>> Visit(40).new({"5C", "6C"}), Visit(40).new(set())
(True, True)
"""

from __future__ import annotations

import datetime
import json
import os
import queue
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Collection, Iterable

import cv2
import numpy as np

from calibration.calfile import Calibration
from tabletop.errors import TabletopError
from tabletop.geometry.sightings import BoardSeen, ChangesSeen, Sighting, TileSeen
from tabletop.messages import Message

FORMAT = "tabletop-recording"
VERSION = 1
MANIFEST, CALIBRATION, MOMENTS, LABELS, FRAMES = ("manifest.json", "calibration.json",
                                                  "moments.jsonl", "labels.jsonl", "frames")
#: How a confirmed placement was entered.
HOWS = ("camera", "tapped", "unsure-confirmed")
#: Moments that are frames, and those that are only told.
FRAME_KINDS = ("before", "hand", "after", "reference", "doubt", "refusal")
KINDS = FRAME_KINDS + ("commit", "expect", "restart")
#: Frames waiting to be written (a 1280x960 frame is 3.7 MB in memory).
QUEUE = 8
#: Hand frames kept a visit at most (a hand hovering for a minute adds no more).
HAND_FRAMES = 12
JPEG_QUALITY = 90
CONSENT = Message("recorded with `tabletop run --record`, the players told on the screen")


class RecordingError(TabletopError):
    """A recording that cannot be made or read; the message says why and what to do."""


def notice(folder: str | Path) -> Message:
    """The line the table shows while it records (the players' consent is asked with it)."""
    return Message("recording the camera's frames to {folder}", folder=str(folder))


def frame_name(index: int, kind: str) -> str:
    """The file of frame ``index`` in a recording, relative to its folder."""
    return f"{FRAMES}/{index:06d}.{kind}"


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _write_json(path: Path, data: Any) -> None:
    """Write ``path`` via a temporary file: a crash never leaves half of one."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    temporary.replace(path)


@dataclass
class Visit:
    """One hand's visit to the board: its first frame, the before-frame, the cells it covered."""

    start: int
    before: int | None = None
    kept: int = 0
    covered: set = field(default_factory=set)

    def new(self, covered: Collection | None) -> bool:
        """Whether a hand frame covering ``covered`` is worth keeping (the first always is)."""
        fresh = self.kept == 0 or covered is None or not set(covered) <= self.covered
        self.covered |= set(covered or ())
        return fresh


class _Writer:
    """Writes frames and lines in the order given, on a thread of its own (or at once)."""

    def __init__(self, folder: Path, limit: int, background: bool) -> None:
        self.folder, self.limit = folder, limit
        self.pending = self.dropped = self.failed = self.written = 0
        self.error = ""
        self._lock = threading.Lock()
        self._files = {name: open(folder / name, "a", encoding="utf-8")
                       for name in (MOMENTS, LABELS)}
        self._items: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = None
        if background:
            self._thread = threading.Thread(target=self._run, name="tabletop-record", daemon=True)
            self._thread.start()

    def put(self, name: str, line: dict, image: np.ndarray | None = None) -> bool:
        """Queue ``line`` for ``name`` (and its frame); False when the frame was dropped."""
        kept = True
        if image is not None:
            with self._lock:
                if self.pending >= self.limit:
                    self.dropped += 1
                    line, image, kept = {**line, "file": None, "dropped": True}, None, False
                else:
                    self.pending += 1
        if self._thread is None:
            self._do(name, line, image)
        else:
            self._items.put((name, line, image))
        return kept

    def close(self, timeout: float = 30.0) -> None:
        if self._thread is not None:
            self._items.put(None)
            self._thread.join(timeout)
        for handle in self._files.values():
            handle.close()

    def _run(self) -> None:
        while True:
            item = self._items.get()
            if item is None:
                return
            self._do(*item)

    def _do(self, name: str, line: dict, image: np.ndarray | None) -> None:
        if image is not None:
            try:
                self._image(line["file"], image)
                self.written += 1
            except (OSError, cv2.error) as error:
                self._failed(error)
                line = {**line, "file": None, "failed": True}
            finally:
                with self._lock:
                    self.pending -= 1
        try:
            handle = self._files[name]
            handle.write(json.dumps(line) + "\n")
            handle.flush()
        except OSError as error:
            self._failed(error)

    def _image(self, name: str, image: np.ndarray) -> None:
        params = [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY] if name.endswith(".jpg") else \
            [cv2.IMWRITE_PNG_COMPRESSION, 1]
        ok, data = cv2.imencode(Path(name).suffix, image, params)
        if not ok:
            raise OSError(f"{name} could not be encoded")
        path = self.folder / name
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_bytes(data.tobytes())
        os.replace(temporary, path)

    def _failed(self, error: BaseException) -> None:
        self.failed += 1
        self.error = getattr(error, "strerror", None) or str(error)


class Recorder:
    """Keeps one table's frames at the moments that matter (see the module's docstring).

    Told every frame (:meth:`frame`), every decision of the eyes
    (:meth:`sighting`) and every placement the journal confirmed
    (:meth:`confirmed`); :class:`RecordingEyes` does the first two for a
    Watcher. Frames handed over must not be written to afterwards (a
    camera's frames are fresh arrays). ``background=False`` writes at once
    (tests, tools).
    """

    def __init__(self, folder: str | Path, calibration: Calibration, *, table: str = "",
                 source: str = "", consent: str = CONSENT, image: str = "png",
                 fps: float | None = None, limit: int = QUEUE, hand_frames: int = HAND_FRAMES,
                 background: bool = True) -> None:
        if image not in ("jpg", "png"):
            raise ValueError(f"frames are jpg or png, not {image!r}")
        folder = Path(folder)
        self.folder, self.image, self.hand_frames = folder, image, hand_frames
        try:
            if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
                raise RecordingError(Message("{folder} is not an empty folder: record into a new "
                                             "one (a recording is never written over)",
                                             folder=str(folder)))
            (folder / FRAMES).mkdir(parents=True, exist_ok=True)
            calibration.save(folder / CALIBRATION)
            self.manifest = {"format": FORMAT, "version": VERSION, "created": _now(),
                             "table": table, "rules": calibration.rules,
                             "options": calibration.options, "calibration": CALIBRATION,
                             "source": source, "fps": fps, "image": image,
                             "frame_size": list(calibration.image_size),
                             "consent": str(consent), "closed": None}
            _write_json(folder / MANIFEST, self.manifest)
            self._writer = _Writer(folder, limit, background)
        except OSError as error:
            raise RecordingError(Message("cannot record to {folder}: {reason}", folder=str(folder),
                                         reason=error.strerror or str(error))) from None
        self._names = tuple(calibration.layout.geometry.labels)
        self._order = {label: number for number, label in enumerate(self._names)}
        self._still: tuple[int, float, np.ndarray] | None = None
        self._visit: Visit | None = None
        #: The last visit that ended: its after-frame, that frame's seconds, hand, before-frame.
        self._after: tuple[int, float, int, int | None] | None = None
        self._board: set[str] = set()
        self._waiting: list[dict[str, Any]] = []   # labels confirmed while the camera saw a hand
        self._proposed: dict[str, str] = {}        # tiles the eyes proposed since the last label
        self._kept: dict[int, str | None] = {}   # the last frames kept: their files (None: dropped)
        self.labels = 0
        self.closed = False

    # --- what the table tells -------------------------------------------------------------

    def frame(self, index: int, seconds: float, image: np.ndarray, hand_over: bool,
              covered: Collection | None = None) -> None:
        """Frame ``index`` (at ``seconds``) went through the eyes; ``hand_over``: not read clear.

        ``covered``: the cells read covered in it (numbers or labels), by which
        hand frames that show nothing new are left out (None: keep them all,
        up to ``hand_frames`` a visit).
        """
        if self.closed:
            return
        if hand_over:
            visit = self._visit
            if visit is None:
                visit = self._visit = Visit(index)
                if self._still is not None:
                    visit.before = self._still[0]
                    self._keep("before", *self._still)
                self._still = None        # the writer has it now: only one frame is ever held
            if visit.kept < self.hand_frames and visit.new(self._labels(covered)):
                visit.kept += 1
                self._keep("hand", index, seconds, image,
                           covered=self._sorted(self._labels(covered) or ()))
            return
        self._still = (index, seconds, image)
        visit, self._visit = self._visit, None
        if visit is not None:
            self._after = (index, seconds, visit.start, visit.before)
            self._keep("after", index, seconds, image, hand=visit.start)
            self._flush()

    def sighting(self, sighting: Sighting) -> None:
        """A decision of the eyes, at the frame just told (doubts and refusals keep it)."""
        if self.closed:
            return
        match sighting:
            case BoardSeen(cells=cells):
                kind, extra = "reference", {"board": list(cells)}
            case TileSeen(tile=tile):
                kind, extra = "commit", {"tile": tile}
                self._proposed[tile] = "camera"
            case ChangesSeen(message=message, new=new, gone=gone):
                kind = "refusal" if new or gone else "doubt"
                extra = {"message": str(message), "new": list(new), "gone": list(gone)}
            case _ if isinstance(getattr(sighting, "tile", None), str):
                # A tile the camera proposes unsure of (TileDoubted): a question, not a commit.
                kind, extra = "doubt", {"tile": sighting.tile,
                                        "reason": str(getattr(sighting, "reason", ""))}
                self._proposed.setdefault(sighting.tile, "unsure-confirmed")
            case _:
                return
        still = self._still
        now = still is not None and still[0] == sighting.frame      # decided at this frame
        if kind != "commit" and now:
            self._keep(kind, *still, **extra)
        else:
            self._line(kind, sighting.frame, still[1] if now else None, **extra)

    def confirmed(self, tile: str, how: str | None = None,
                  board: Iterable[str] | None = None) -> None:
        """The journal confirmed placing ``tile``, entered ``how`` (one of HOWS).

        ``how`` left out: ``camera`` if the eyes committed that tile since the
        last placement, ``unsure-confirmed`` if they proposed it unsure, else
        ``tapped``. ``board``: the journal's board after it (labels); by
        default the board told by :meth:`expect` and the placements since.
        """
        how = how or self._proposed.get(tile, "tapped")
        self._proposed.clear()
        if how not in HOWS:
            raise ValueError(f"how is one of {', '.join(HOWS)}, not {how!r}")
        if self.closed:
            return
        self._board = set(board) if board is not None else self._board | {tile}
        self.labels += 1
        label = {"tile": tile, "how": how, "board": self._sorted(self._board)}
        if self._visit is not None:
            # The camera still sees a hand (CONFIRM is pressed off the board: it misreads the
            # board as covered): the placement's visit is this one, its after-frame to come.
            self._waiting.append(label)
        else:
            self._label(label)

    def undone(self, tile: str) -> None:
        """The journal took the placement of ``tile`` back."""
        if not self.closed:
            self._board.discard(tile)
            waiting = [label for label in self._waiting if label["tile"] == tile]
            if waiting:
                self._waiting.remove(waiting[-1])
            else:
                self._writer.put(LABELS, {"undo": tile})

    def expect(self, labels: Iterable[str]) -> None:
        """The game's board (labels), as the eyes are told it (a game resumed, a camera back)."""
        if not self.closed:
            self._board = set(labels)
            self._line("expect", None, None, board=self._sorted(self._board))

    def restart(self) -> None:
        """The stream broke off: the visit under way has no after-frame, the held frame goes."""
        if not self.closed:
            self._flush()
            # What comes after a break is not of any visit before it.
            self._still, self._visit, self._after = None, None, None
            self._line("restart", None, None)

    def close(self) -> dict[str, int]:
        """Write what waits, and the manifest's counts; what was kept (see :attr:`counts`)."""
        if not self.closed:
            self._flush()
            self.closed = True
            self._still = self._visit = None
            self._writer.close()
            self.manifest.update(closed=_now(), counts=self.counts)
            try:
                _write_json(self.folder / MANIFEST, self.manifest)
            except OSError as error:
                self._writer._failed(error)
        return self.counts

    def __enter__(self) -> "Recorder":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # --- what it holds --------------------------------------------------------------------

    @property
    def held(self) -> int:
        """Frames the recorder itself holds: at most one, the next visit's before-frame."""
        return 0 if self._still is None else 1

    @property
    def pending(self) -> int:
        """Frames waiting to be written (at most ``limit``)."""
        return self._writer.pending

    @property
    def counts(self) -> dict[str, int]:
        """Frames written, dropped (the queue full), failed (the disk), and labels."""
        writer = self._writer
        return {"frames": writer.written, "dropped": writer.dropped, "failed": writer.failed,
                "labels": self.labels}

    @property
    def error(self) -> str:
        """The last write error ("" if none)."""
        return self._writer.error

    # --- writing ---------------------------------------------------------------------------

    def _labels(self, cells: Collection | None) -> set[str] | None:
        if cells is None:
            return None
        return {self._names[c] if isinstance(c, (int, np.integer)) else str(c) for c in cells}

    def _sorted(self, labels: Iterable[str]) -> list[str]:
        return sorted(labels, key=lambda label: (self._order.get(label, len(self._order)), label))

    def _label(self, label: dict[str, Any]) -> None:
        """A label, of the last visit that ended."""
        frame, seconds, hand, before = self._after or (None, None, None, None)
        self._writer.put(LABELS, {"tile": label["tile"], "how": label["how"], "frame": frame,
                                  "seconds": seconds, "hand": hand, "before": before,
                                  "board": label["board"]})

    def _flush(self) -> None:
        for label in self._waiting:
            self._label(label)
        self._waiting.clear()

    def _keep(self, kind: str, index: int, seconds: float, image: np.ndarray, **extra: Any) -> None:
        """A moment with its frame (written once, however many moments it is)."""
        if index in self._kept:
            name = self._kept[index]
            self._line(kind, index, seconds, file=name, **({} if name else {"dropped": True}),
                       **extra)
            return
        name = frame_name(index, self.image)
        line = {"frame": index, "seconds": _seconds(seconds), "kind": kind, "file": name, **extra}
        self._kept[index] = name if self._writer.put(MOMENTS, line, image) else None
        if len(self._kept) > 16:
            del self._kept[next(iter(self._kept))]

    def _line(self, kind: str, index: int | None, seconds: float | None, **extra: Any) -> None:
        self._writer.put(MOMENTS, {"frame": index, "seconds": _seconds(seconds), "kind": kind,
                                   **extra})


def _seconds(seconds: float | None) -> float | None:
    return None if seconds is None else round(float(seconds), 4)


class RecordingEyes:
    """A Watcher whose frames and decisions a :class:`Recorder` is told of: the table's eyes.

    The loop feeds it as it would the Watcher; anything else is the
    Watcher's. A recorder that fails is given up on: the game goes on.
    """

    def __init__(self, watcher: Any, recorder: Recorder) -> None:
        self.watcher, self.recorder = watcher, recorder
        self.failed = ""

    def feed(self, index: int, seconds: float, image: Any) -> list[Sighting]:
        sightings = self.watcher.feed(index, seconds, image)
        seen = self.watcher.last
        self._tell(lambda recorder: recorder.frame(
            index, seconds, image, hand_over=seen is not None and not seen.clear,
            covered=None if seen is None else seen.occupied))
        for sighting in sightings:
            self._tell(lambda recorder, told=sighting: recorder.sighting(told))
        return sightings

    def restart(self) -> None:
        self.watcher.restart()
        self._tell(Recorder.restart)

    def expect(self, labels: Iterable[str]) -> None:
        labels = list(labels)
        self.watcher.expect(labels)
        self._tell(lambda recorder: recorder.expect(labels))

    def __getattr__(self, name: str) -> Any:
        if name == "watcher":       # not set yet: never look it up through itself
            raise AttributeError(name)
        return getattr(self.watcher, name)

    def _tell(self, call: Any) -> None:
        if self.failed:
            return
        try:
            call(self.recorder)
        except Exception as error:  # noqa: BLE001 - a recording must never stop the table
            self.failed = str(error) or type(error).__name__
