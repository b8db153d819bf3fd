"""Reading a recording back (:mod:`calibration.recording` writes them): its manifest,
calibration, moments and labels, every line checked, every frame file named and present, so
that ``tabletop vision-report`` can replay it; anything else is a :class:`RecordingError`
naming the file to copy again.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.calfile import Calibration
from calibration.recording import (
    CALIBRATION,
    FORMAT,
    FRAME_KINDS,
    FRAMES,
    HOWS,
    KINDS,
    LABELS,
    MANIFEST,
    MOMENTS,
    VERSION,
    RecordingError,
)
from tabletop.messages import Message

_FILE = re.compile(rf"{FRAMES}/[0-9]{{6,12}}\.(jpg|png)")


@dataclass
class Recording:
    """A recording read back: its manifest, calibration, moments (in order) and labels."""

    folder: Path
    manifest: dict[str, Any]
    calibration: Calibration
    moments: list[dict[str, Any]]
    labels: list[dict[str, Any]]     # undone placements left out

    @property
    def fps(self) -> float:
        fps = self.manifest.get("fps")
        return float(fps) if _number(fps) and fps > 0 else 10.0

    @property
    def dropped(self) -> int:
        """Frames the recorder could not keep (its queue full, or the disk)."""
        return len({m["frame"] for m in self.moments if m.get("dropped") or m.get("failed")})

    def image(self, moment: dict[str, Any]) -> np.ndarray:
        """The frame of a moment; RecordingError if its file is gone or damaged."""
        path = self.folder / moment["file"]
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise RecordingError(Message("{path} cannot be read as an image: the recording is "
                                         "damaged (copy the whole folder again)", path=str(path)))
        return image


def read_recording(folder: str | Path) -> Recording:
    """Read a recording's folder; RecordingError saying what is wrong with a bad one."""
    from calibration.calfile import CalibrationError, load_calibration

    folder = Path(folder)
    if not (folder / MANIFEST).is_file():
        raise RecordingError(Message("{folder} is not a recording (no {manifest}): make one "
                                     "with `tabletop run --record FOLDER`", folder=str(folder),
                                     manifest=MANIFEST))
    manifest = _json(folder / MANIFEST)
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise RecordingError(Message("{path} is damaged or not a recording's manifest",
                                     path=str(folder / MANIFEST)))
    version = manifest.get("version")
    if type(version) is not int or not 1 <= version <= VERSION:
        raise RecordingError(Message("{folder} is recording format {version}; this tabletop reads "
                                     "up to {latest}: update tabletop", folder=str(folder),
                                     version=repr(version)[:20], latest=VERSION))
    try:
        calibration = load_calibration(folder / CALIBRATION)
    except CalibrationError as error:
        raise RecordingError(Message("{folder}: {error}", folder=str(folder), error=str(error))) \
            from None
    moments = _lines(folder / MOMENTS, _moment)
    labels: list[dict[str, Any]] = []
    for label in _lines(folder / LABELS, _label):
        if "undo" in label:
            taken = [k for k, old in enumerate(labels) if old["tile"] == label["undo"]]
            if taken:
                del labels[taken[-1]]
        else:
            labels.append(label)
    for moment in moments:
        if moment.get("file") and not (folder / moment["file"]).is_file():
            raise RecordingError(Message("{folder}: frame {file} is missing: copy the whole "
                                         "recording folder", folder=str(folder),
                                         file=moment["file"]))
    return Recording(folder, manifest, calibration, moments, labels)


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        raise RecordingError(Message("{path} is damaged (not JSON): the recording cannot be read",
                                     path=str(path))) from None


def _lines(path: Path, check: Any) -> list[dict[str, Any]]:
    """The JSON lines of ``path``, each checked; a missing file has none (nothing confirmed)."""
    if not path.exists():
        return []
    lines = []
    try:
        with path.open(encoding="utf-8") as handle:
            for number, text in enumerate(handle, 1):
                try:
                    line = json.loads(text)
                except (ValueError, RecursionError):
                    line = None
                why = "not a JSON object" if not isinstance(line, dict) else check(line)
                if why:
                    raise RecordingError(Message("{path} line {number} is damaged ({why}): the "
                                                 "recording cannot be read", path=str(path),
                                                 number=number, why=why))
                lines.append(line)
    except (OSError, UnicodeDecodeError):
        raise RecordingError(Message("{path} cannot be read: the recording is damaged",
                                     path=str(path))) from None
    return lines


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and \
        float(value) == float(value) and abs(float(value)) < 1e12


def _index(value: Any) -> bool:
    return type(value) is int and 0 <= value < 10 ** 12


def _labels_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _moment(line: dict[str, Any]) -> str:
    """Why a moments line is damaged ("" if it is not)."""
    kind = line.get("kind")
    if kind not in KINDS:
        return f"kind {str(kind)[:20]!r}"
    if kind in FRAME_KINDS and not (_index(line.get("frame")) and _number(line.get("seconds"))):
        return "a frame and its seconds are expected"
    name = line.get("file")
    if name is not None and not (isinstance(name, str) and _FILE.fullmatch(name)):
        return "file is not a frame of the recording"
    if not all(_labels_list(line[key]) for key in ("board", "new", "gone", "covered")
               if key in line):
        return "cells are not a list of labels"
    return ""


def _label(line: dict[str, Any]) -> str:
    """Why a labels line is damaged ("" if it is not)."""
    if "undo" in line:
        return "" if isinstance(line["undo"], str) else "undo is not a tile"
    if not isinstance(line.get("tile"), str) or line.get("how") not in HOWS:
        return "a tile and how it was entered are expected"
    if not all(line.get(key) is None or _index(line[key]) for key in ("frame", "hand", "before")):
        return "frames are not frame numbers"
    if not (line.get("seconds") is None or _number(line["seconds"])):
        return "seconds is not a number"
    return "" if _labels_list(line.get("board")) else "board is not a list of labels"
