"""The vision commands of DESIGN.md's contract: ``markers``, ``calibrate``, ``recognize``, ``watch``.

``vision-report`` scores the recognizer on recordings of real tables.

Part of the composition root: the ``calibration`` package (OpenCV) and the
camera sources of ``hardware`` are imported only when one of these commands
runs, so the engine never needs them.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any, Iterator

EXIT_BAD = 2


def register(commands: Any) -> None:
    """Add the vision commands to the ``tabletop`` command line's sub-parsers."""
    markers = commands.add_parser("markers", help="write a printable sheet of the four board markers")
    markers.add_argument("--out", required=True, metavar="FILE",
                         help="markers.png, markers.svg or markers: markers.png and markers.svg "
                              "are both written (a folder, or a name ending in / for a new "
                              "one: FOLDER/markers.png and .svg)")
    markers.add_argument("--size-mm", type=float, default=40.0, help="printed side of a marker")
    markers.set_defaults(run=_markers)

    calibrate = commands.add_parser(
        "calibrate", help="calibrate the camera to the empty board", formatter_class=_CalibrateHelp,
        description="Calibrates the camera to the empty board from a picture of it taken by that "
                    "camera at the size of its frames, the four markers in view. On the table, "
                    "`tabletop run` shows the camera's picture on its calibration screen instead, "
                    "where the four corner cells are tapped.")
    calibrate.add_argument("--rules", default="acquire",
                           help="the rule set whose board is on the table (default: acquire; "
                                "`tabletop rules` lists them)")
    calibrate.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                           help="a rule option that shapes the board, e.g. hex_offset=even-r")
    calibrate.add_argument("--image", required=True, help="a picture of the empty board")
    calibrate.add_argument("--corners", required=True, metavar='"x,y x,y x,y x,y"',
                           help="pixel centres of the board's four corner cells in this "
                                "order: the first label, the last of the first row, the last "
                                "label, the first of the last row (clockwise from the top left "
                                "as the labels read): " + CORNER_ORDERS)
    calibrate.add_argument("--out", required=True, help="the calibration file to write")
    calibrate.set_defaults(run=_calibrate)

    recognize = commands.add_parser("recognize", help="print the occupied cells of each image")
    recognize.add_argument("--calibration", required=True)
    recognize.add_argument("images", nargs="+")
    recognize.set_defaults(run=_recognize)

    watch = commands.add_parser("watch", help="commit placements seen in a stream of frames")
    watch.add_argument("--calibration",
                       help="the table's calibration (a sim source calibrates itself when left out)")
    watch.add_argument("--source", required=True,
                       help="dir:FOLDER, file:VIDEO, usb:N, picamera2 or sim[:RULES,seed=N]")
    watch.add_argument("--fps", type=float, default=10.0,
                       help="frames a second (for dir: and file:, the timebase)")
    watch.add_argument("--hold", type=float, default=None,
                       help="seconds the board must be clear and still before a commit")
    watch.set_defaults(run=_watch)

    report = commands.add_parser("vision-report",
                                 help="score the recognizer on recordings of real tables")
    report.add_argument("folders", nargs="+", metavar="FOLDER",
                        help="recordings made by `tabletop run --record FOLDER`")
    report.add_argument("--json", action="store_true", help="print the figures as JSON")
    report.set_defaults(run=_vision_report)


def _option(text: str) -> tuple[str, Any]:
    name, _, value = text.partition("=")
    try:
        return name, json.loads(value)
    except json.JSONDecodeError:
        return name, value


#: In the calibrate command's help, replaced by each rule set's corners when the help is shown
#: (read from the geometry: the help then never disagrees with what calibrate checks).
CORNER_ORDERS = "{corner orders}"


class _CalibrateHelp(argparse.HelpFormatter):
    def _get_help_string(self, action: argparse.Action) -> str:
        text = super()._get_help_string(action) or ""
        return text.replace(CORNER_ORDERS, _corner_orders()) if CORNER_ORDERS in text else text


def _corner_orders() -> str:
    """``acquire 1A 12A 12I 1I; ...``: every rule set's corner cells in calibration order."""
    from tabletop.engine.ruleset import available_rules, load_rules

    orders = []
    for name in available_rules():
        rules = load_rules(name)
        geometry = rules.geometry_for(rules.resolve_options({}))
        orders.append(f"{name} " + " ".join(geometry.labels[c] for c in geometry.corners()))
    return "; ".join(orders)


class _NotAnImage(Exception):
    """An image file that cannot be used; the message says why."""


def _image(path: str):
    """The picture at ``path`` (BGR), checked and decoded without OpenCV's own warnings
    (they would come before, and say less than, the message given here)."""
    import os
    import stat

    import cv2
    import numpy as np

    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):   # a FIFO would block, a folder cannot be read
            what = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
            raise _NotAnImage(f"{path} is {what}: give the path of a picture (.png, .jpg)")
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise _NotAnImage(f"no such image: {path}") from None
    except OSError as error:
        raise _NotAnImage(f"cannot read {path}: {error.strerror}") from None
    level = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    try:
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    finally:
        cv2.utils.logging.setLogLevel(level)
    if image is None:
        raise _NotAnImage(f"cannot read {path} as an image: it is not a picture (PNG, JPEG) "
                          "or it is damaged")
    return image


def _markers(args: argparse.Namespace) -> int:
    from calibration.markers import instructions, write_sheet

    out = Path(args.out)
    if str(args.out).endswith(("/", os.sep)) and not out.is_dir():
        # (a trailing slash names a folder: Path drops it, which wrote FOLDER.png beside it)
        try:
            out.mkdir(parents=True)
        except OSError as error:
            print(f"tabletop: cannot make the folder {out}: {error.strerror}; nothing was "
                  f"written", file=sys.stderr)
            return EXIT_BAD
    if out.is_dir():
        out = out / "markers.png"
    elif out.suffix.lower() not in ("", ".png", ".svg"):
        print(f"tabletop: markers writes the sheet as PNG and SVG, not {out.suffix}: give "
              f"--out {out.with_suffix('.png')} ({out.with_suffix('.png').name} and "
              f"{out.with_suffix('.svg').name} are written); nothing was written", file=sys.stderr)
        return EXIT_BAD
    try:
        png, svg = write_sheet(out, args.size_mm)
    except (ValueError, OSError) as error:
        print(f"tabletop: {error}", file=sys.stderr)
        return EXIT_BAD
    print(f"wrote {png} (the sheet to print, 300 dpi)")
    print(f"wrote {svg} (the same sheet, exact at any printer's resolution)")
    for line in instructions(args.size_mm):
        print(line)
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    from calibration.calibrate import calibrate, parse_corners
    from tabletop.arguments import rule_set

    rule_set(args.rules)          # a typo is named before the picture is read
    try:
        image = _image(args.image)
    except _NotAnImage as error:
        print(f"tabletop: {error}", file=sys.stderr)
        return EXIT_BAD
    options = dict(_option(text) for text in args.option)
    calibration = calibrate(image, parse_corners(args.corners), args.rules, options)
    try:
        calibration.save(args.out)
    except OSError as error:
        print(f"tabletop: cannot write {args.out}: {error.strerror}", file=sys.stderr)
        return EXIT_BAD
    geometry = calibration.layout.geometry
    print(f"calibrated {args.rules} ({geometry.size} cells, {len(calibration.markers)} markers) "
          f"to {args.out}")
    return 0


def _recognize(args: argparse.Namespace) -> int:
    from calibration.calfile import load_calibration
    from calibration.recognize import Recognizer

    calibration = load_calibration(args.calibration)
    failed = 0
    for path in args.images:
        try:
            seen = Recognizer(calibration).read(_image(path))
        except _NotAnImage as error:
            print(f"tabletop: {error}", file=sys.stderr)
            failed += 1
            continue
        print(json.dumps({"image": path, **seen.labels(calibration)}), flush=True)
    return EXIT_BAD if failed else 0


def _watch(args: argparse.Namespace) -> int:
    from calibration.calfile import load_calibration
    from calibration.recognize import watch
    from calibration.tracker import HOLD

    if args.fps <= 0:
        print("tabletop: --fps must be above 0", file=sys.stderr)
        return EXIT_BAD
    from tabletop.assembly.simcamera import SimCamera

    try:
        camera = _camera(args.source)
    except ValueError as error:  # an unknown source or a bad sim setting
        print(f"tabletop: {error}", file=sys.stderr)
        return EXIT_BAD
    if args.calibration:
        calibration = load_calibration(args.calibration)
    elif isinstance(camera, SimCamera):      # the simulated table calibrates itself
        from calibration.calibrate import calibrate

        image, corners = camera.calibration_view()
        calibration = calibrate(image, corners, camera.settings["rules"])
    else:
        print("tabletop: watch needs --calibration (made by `tabletop calibrate`)", file=sys.stderr)
        return EXIT_BAD
    tally = _Tally()
    try:
        frames = tally.counted(_frames(camera, args.source, args.fps))
        for line in watch(frames, calibration, HOLD if args.hold is None else args.hold):
            tally.add(line)
            print(json.dumps(line), flush=True)
    except ValueError as error:  # a recording that cannot be read
        print(f"tabletop: {error}", file=sys.stderr)
        return EXIT_BAD
    finally:
        # (on standard error: standard output is the JSON lines, one a decision)
        if tally.frames:
            print(f"tabletop: {tally}", file=sys.stderr)
    return 0


class _Tally:
    """What ``watch`` read and decided, for the closing line (a game watched, or stopped)."""

    def __init__(self) -> None:
        self.frames = self.tiles = self.unsure = self.late = self.warnings = 0

    def counted(self, frames: Iterator[tuple[int, float, Any]]) -> Iterator[tuple[int, float, Any]]:
        for frame in frames:
            self.frames += 1
            yield frame

    def add(self, line: dict[str, Any]) -> None:
        if "tile" in line:
            self.tiles += 1
        elif "doubt" in line:
            self.unsure += line.get("reason") != "late"
            self.late += line.get("reason") == "late"
        elif "warning" in line:
            self.warnings += 1

    def __str__(self) -> str:
        return (f"watched {self.frames} frame(s): {self.tiles} tile(s) committed, {self.unsure} "
                f"asked as unsure, {self.late} read late and asked, {self.warnings} warning(s)")


RECORDED = ("dir:", "file:", "sim")


def _camera(source: str) -> Any:
    """The camera for ``source``; recordings and the simulator are read as fast as they come."""
    from hardware.camera import open_camera
    from tabletop.assembly.simcamera import register

    register()
    return open_camera(source, fps=None) if source.startswith(RECORDED) else open_camera(source)


def _frames(camera: Any, source: str, fps: float) -> Iterator[tuple[int, float, Any]]:
    """(index, seconds, image) from an unopened camera; recordings are timed by ``fps``."""
    recorded = source.startswith(RECORDED)
    reported = None
    given = False
    with camera:
        while True:
            frame = camera.read()
            if frame is None:
                if camera.ended and not given:   # an empty folder, a file with no video
                    why = _no_images(source) if source.startswith("dir:") \
                        else "it is not a video OpenCV can read, or it is empty"
                    raise ValueError(f"{source} gave no frames: {why}")
                if camera.ended:
                    return
                if recorded and camera.status.state == "fault":
                    # A recording that cannot be opened will not appear by waiting: no retry.
                    raise ValueError(str(camera.status.message).removesuffix("; retrying"))
                if camera.status.message != reported:
                    reported = camera.status.message
                    print(f"tabletop: {reported}", file=sys.stderr)
                time.sleep(0.01)
                continue
            given = True
            yield frame.index, frame.index / fps if recorded else frame.timestamp, frame.image


def _no_images(source: str) -> str:
    """Why a folder gave no frames: it holds no images, or none of those it holds can be read."""
    from hardware.camera import IMAGE_SUFFIXES

    folder = Path(source.removeprefix("dir:"))
    named = sorted(path.name for path in folder.iterdir()
                   if path.suffix.lower() in IMAGE_SUFFIXES and path.is_file())
    if not named:
        return "the folder holds no images (.png, .jpg)"
    if len(named) == 1:
        what = f"its one image, {named[0]}, cannot be read: it is damaged or not a picture"
    else:
        shown = ", ".join(named[:3]) + (f" and {len(named) - 3} more" if len(named) > 3 else "")
        what = f"none of its {len(named)} images ({shown}) can be read: damaged, or not pictures"
    return f"{what}; put frames OpenCV can read (.png, .jpg) there"


# --- vision-report -----------------------------------------------------------------------------
#
# A recording (calibration.recording) keeps a real table's frames at the moments that matter and
# the placements its journal confirmed. A fresh Watcher is fed those frames and scored in
# bench/vision.py's terms: cells read wrong on the after-frames (the truth: the journal's board
# after that placement), placements committed against the labels, wrong commits, delays. What
# the table's own camera did then (the labels' how, the commits it made) is scored beside it.

#: Seconds a kept frame is shown again to the replay while the camera kept no other (the board
#: stood still, or a hand stayed): the tracker decides within them (a doubt takes 3 s).
HOLD_CAP = 4.0


def _vision_report(args: argparse.Namespace) -> int:
    from calibration.playback import read_recording
    from calibration.recording import RecordingError

    try:   # every recording read before anything is printed: a damaged one is one clear line
        scored = [_scored(read_recording(folder)) for folder in args.folders]
    except RecordingError as error:
        print(f"tabletop: {error}", file=sys.stderr)
        return EXIT_BAD
    total = _total(scored)
    if args.json:
        print(json.dumps({"recordings": scored, "all": total}, indent=1))
    else:
        _print_report(scored, total)
    return 0


def _scored(recording: Any) -> dict[str, Any]:
    """One recording's figures: the table's camera then (``live``), and the replay now."""
    done = _replay(recording)
    labels = recording.labels
    commits = [(m["frame"], m["seconds"], m["tile"]) for m in recording.moments
               if m["kind"] == "commit"]
    doubts = [(m["frame"], m["seconds"], m["tile"]) for m in recording.moments
              if m["kind"] == "doubt" and isinstance(m.get("tile"), str)]
    how = {kind: sum(1 for label in labels if label["how"] == kind)
           for kind in ("camera", "tapped", "unsure-confirmed")}
    manifest = recording.manifest
    return {"recording": str(recording.folder), "table": manifest.get("table", ""),
            "rules": recording.calibration.rules, "created": manifest.get("created", ""),
            "frames_kept": len({m["frame"] for m in recording.moments if m.get("file")}),
            "frames_dropped": recording.dropped, "frames_replayed": done["fed"],
            "placements": len(labels), "entered": how,
            "live": _matched(labels, commits, doubts),
            "replay": {**_matched(labels, done["commits"], done["doubts"]),
                       "warnings": done["warnings"]},
            "cells": _cells(done["boards"])}


def _matched(labels: list[dict], commits: list[tuple], doubts: list[tuple]) -> dict[str, Any]:
    """Commits against the labels, as bench/vision.py scores ``watch``.

    A placement is committed correctly when its tile is committed once from
    its after-frame (the hand gone) until the next placement's hand came; any
    other commit is wrong. The delay runs from the after-frame. A placement
    not committed but proposed as a doubt (``camera unsure: placed 10D?``) in
    that time is ``asked``, counted apart: one CONFIRM accepts it.
    """
    used: set[int] = set()
    asked: set[int] = set()
    delays: list[float] = []
    missed: list[str] = []
    for number, label in enumerate(labels):
        frame = label["frame"]
        until = next((later["hand"] for later in labels[number + 1:] if later["frame"] not in
                      (None, frame) and later["hand"] is not None), math.inf)

        def first(found: list[tuple], taken: set[int]) -> int | None:
            return next((k for k, (at, _, tile) in enumerate(found) if k not in taken
                         and tile == label["tile"] and frame is not None and frame <= at < until),
                        None)

        hit = first(commits, used)
        if hit is None:
            doubt = first(doubts, asked)
            if doubt is not None:
                asked.add(doubt)
            missed.append(label["tile"])
            continue
        used.add(hit)
        seconds = commits[hit][1]
        if seconds is not None and label["seconds"] is not None:
            delays.append(round(seconds - label["seconds"], 3))
    wrong = [commits[k][2] for k in range(len(commits)) if k not in used]
    return {"correct": len(labels) - len(missed), "missed": missed, "wrong": len(wrong),
            "wrong_tiles": wrong, "asked": len(asked), "asked_in_vain": len(doubts) - len(asked),
            "delays": delays, **_delay_figures(delays)}


def _delay_figures(delays: list[float]) -> dict[str, Any]:
    ordered = sorted(delays)
    if not ordered:
        return {"p50_delay": None, "max_delay": None, "late": 0}
    middle = len(ordered) // 2
    p50 = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    return {"p50_delay": round(p50, 3), "max_delay": ordered[-1],
            "late": sum(1 for d in ordered if d > 1.0)}


def _cells(boards: list[dict]) -> dict[str, Any]:
    cells = sum(board["cells"] for board in boards)
    wrong = sum(board["false"] + board["missed"] for board in boards)
    worst = sorted((b for b in boards if b["false"] or b["missed"]),
                   key=lambda b: -(b["false"] + b["missed"]))[:5]
    return {"boards": len(boards), "cells": cells,
            "cell_error": wrong / cells if cells else None,
            "false": sum(b["false"] for b in boards), "missed": sum(b["missed"] for b in boards),
            "uncertain": sum(b["uncertain"] for b in boards) / cells if cells else None,
            "read_not_clear": sum(1 for b in boards if not b["clear"]),
            "worst": [{key: b[key] for key in ("frame", "false_cells", "missed_cells")}
                      for b in worst]}


def _total(scored: list[dict]) -> dict[str, Any]:
    """The figures of every recording together."""
    total: dict[str, Any] = {"recordings": len(scored),
                             "placements": sum(s["placements"] for s in scored)}
    for part in ("live", "replay"):
        delays = [d for s in scored for d in s[part]["delays"]]
        total[part] = {"correct": sum(s[part]["correct"] for s in scored),
                       "missed": sum(len(s[part]["missed"]) for s in scored),
                       "wrong": sum(s[part]["wrong"] for s in scored),
                       "asked": sum(s[part]["asked"] for s in scored), **_delay_figures(delays)}
    cells = sum(s["cells"]["cells"] for s in scored)
    wrong = sum(s["cells"]["false"] + s["cells"]["missed"] for s in scored)
    uncertain = sum((s["cells"]["uncertain"] or 0) * s["cells"]["cells"] for s in scored)
    total["cells"] = {"boards": sum(s["cells"]["boards"] for s in scored), "cells": cells,
                      "cell_error": wrong / cells if cells else None,
                      "uncertain": uncertain / cells if cells else None}
    return total


def _print_report(scored: list[dict], total: dict) -> None:
    def percent(value: float | None, digits: int) -> str:
        return "n/a" if value is None else f"{100 * value:.{digits}f}%"

    def delay(part: dict) -> str:
        return "-" if part["p50_delay"] is None else \
            f"{part['p50_delay']:.2f}/{part['max_delay']:.2f}"

    print(f"{'recording':24s} {'placed':>6s} {'camera':>7s} {'wrong':>5s} {'replay':>7s} "
          f"{'wrong':>5s} {'delay s':>9s} {'cell error':>10s} {'uncertain':>9s}")
    rows = [(s["recording"], s) for s in scored]
    if len(scored) > 1:
        rows.append((f"all ({len(scored)} recordings)", total))
    for name, s in rows:
        live, again, cells = s["live"], s["replay"], s["cells"]
        placed = s["placements"]
        print(f"{name[-24:]:24s} {placed:6d} {live['correct']:>3d}/{placed:<3d} {live['wrong']:5d} "
              f"{again['correct']:>3d}/{placed:<3d} {again['wrong']:5d} {delay(again):>9s} "
              f"{percent(cells['cell_error'], 3):>10s} {percent(cells['uncertain'], 2):>9s}")
    print("camera: placements the table's camera committed then; replay: those a fresh "
          "recognizer commits now\n(delay: median/max seconds from the hand leaving; cells: "
          "the after-frames against the journal's board)")
    for s in scored:
        entered = s["entered"]
        notes = [(f"{entered['camera']} by the camera, {entered['unsure-confirmed']} "
                  f"unsure-confirmed, {entered['tapped']} tapped")]
        if s["frames_dropped"]:
            notes.append(f"{s['frames_dropped']} frames not kept (the disk was slow or full)")
        if s["replay"]["missed"]:
            notes.append(f"replay missed {', '.join(s['replay']['missed'][:8])} (asked about "
                         f"{s['replay']['asked']} of them)")
        if s["replay"]["wrong_tiles"]:
            notes.append(f"replay committed wrongly {', '.join(s['replay']['wrong_tiles'][:8])}")
        for board in s["cells"]["worst"][:3]:
            notes.append(f"frame {board['frame']}: tile on empty {board['false_cells'][:6]}, "
                         f"tile missed {board['missed_cells'][:6]}")
        print(f"{s['recording']}: " + "; ".join(notes))


def _replay(recording: Any) -> dict[str, Any]:
    """Feed a recording's kept frames, in order, to a fresh Watcher of its calibration.

    The camera's frames between two kept ones are not in the recording: the
    earlier is shown again in their place, at their times, for up to HOLD_CAP
    seconds (the board stood still, or the hand stayed). One frame is in
    memory at a time.
    """
    from calibration.recognize import Watcher

    watcher = Watcher(recording.calibration)
    truth = {label["frame"]: label["board"] for label in recording.labels
             if label["frame"] is not None}
    done: dict[str, Any] = {"commits": [], "doubts": [], "warnings": 0, "boards": [], "fed": 0}
    last: tuple | None = None
    shown: set[int] = set()
    for moment in recording.moments:
        kind = moment["kind"]
        if kind == "restart":
            _show_again(watcher, done, last, None, recording.fps)
            watcher.restart()
            last = None
        elif kind == "expect":
            watcher.expect(moment["board"])
        elif moment.get("file") and moment["frame"] not in shown:
            shown.add(moment["frame"])
            _show_again(watcher, done, last, moment, recording.fps)
            image = recording.image(moment)
            _feed(watcher, done, moment["frame"], moment["seconds"], image, moment["file"])
            if moment["frame"] in truth:
                done["boards"].append(_board(watcher, moment["frame"], truth[moment["frame"]]))
            last = (moment["frame"], moment["seconds"], image, moment["file"])
    _show_again(watcher, done, last, None, recording.fps)
    return done


def _show_again(watcher: Any, done: dict, last: tuple | None, upcoming: dict | None,
                fps: float) -> None:
    """The last kept frame in place of the camera's frames until the upcoming kept one."""
    if last is None:
        return
    index, seconds, image, name = last
    step = 1.0 / fps
    if upcoming is None:
        count = math.ceil(HOLD_CAP * fps)
    else:
        gap = upcoming["frame"] - index
        if gap <= 1:
            return
        span = upcoming["seconds"] - seconds
        step = span / gap if span > 0 else step
        count = min(gap - 1, math.ceil(HOLD_CAP / step))
    for k in range(1, count + 1):
        _feed(watcher, done, index + k, seconds + k * step, image, name)


def _feed(watcher: Any, done: dict, index: int, seconds: float, image: Any, name: str) -> None:
    from calibration.recording import RecordingError
    from tabletop.errors import TabletopError
    from tabletop.geometry.sightings import ChangesSeen, TileSeen
    from tabletop.messages import Message

    try:
        decisions = watcher.feed(index, seconds, image)
    except TabletopError as error:     # a frame of another size than the calibration's
        raise RecordingError(Message("{file}: {error}", file=name, error=str(error))) from None
    done["fed"] += 1
    for decision in decisions:
        if isinstance(decision, TileSeen):
            done["commits"].append((index, seconds, decision.tile))
        elif isinstance(decision, ChangesSeen):
            done["warnings"] += 1
        elif isinstance(getattr(decision, "tile", None), str):   # a tile proposed unsure of
            done["doubts"].append((index, seconds, decision.tile))


def _board(watcher: Any, frame: int, board: list[str]) -> dict[str, Any]:
    """An after-frame's reading against the journal's board after its placement."""
    seen, names = watcher.last, watcher.labels
    cells = {label: number for number, label in enumerate(names)}
    truth = {cells[label] for label in board if label in cells}
    false, missed = seen.occupied - truth, truth - seen.occupied - seen.uncertain
    return {"frame": frame, "cells": len(names), "false": len(false), "missed": len(missed),
            "uncertain": len(seen.uncertain), "clear": bool(seen.clear),
            "false_cells": [names[c] for c in sorted(false)],
            "missed_cells": [names[c] for c in sorted(missed)]}
