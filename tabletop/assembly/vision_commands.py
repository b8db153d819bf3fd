"""The vision commands of DESIGN.md's contract: ``markers``, ``calibrate``, ``recognize``, ``watch``.

Part of the composition root: the ``calibration`` package (OpenCV) and the
camera sources of ``hardware`` are imported only when one of these commands
runs, so the engine never needs them.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Iterator

EXIT_BAD = 2


def register(commands: Any) -> None:
    """Add the vision commands to the ``tabletop`` command line's sub-parsers."""
    markers = commands.add_parser("markers", help="write a printable sheet of the four board markers")
    markers.add_argument("--out", required=True, metavar="FILE",
                         help="markers.png or markers.svg (both are written)")
    markers.add_argument("--size-mm", type=float, default=40.0, help="printed side of a marker")
    markers.set_defaults(run=_markers)

    calibrate = commands.add_parser("calibrate", help="calibrate the camera to the empty board")
    calibrate.add_argument("--rules", default="acquire")
    calibrate.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                           help="a rule option that shapes the board, e.g. hex_offset=even-r")
    calibrate.add_argument("--image", required=True, help="a picture of the empty board")
    calibrate.add_argument("--corners", required=True, metavar='"x,y x,y x,y x,y"',
                           help="pixel centres of the four corner cells, in board order")
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


def _option(text: str) -> tuple[str, Any]:
    name, _, value = text.partition("=")
    try:
        return name, json.loads(value)
    except json.JSONDecodeError:
        return name, value


def _image(path: str):
    import cv2

    image = cv2.imread(path, cv2.IMREAD_COLOR)
    if image is None:
        raise FileNotFoundError(f"cannot read {path} as an image")
    return image


def _markers(args: argparse.Namespace) -> int:
    from calibration.markers import instructions, write_sheet

    try:
        paths = write_sheet(Path(args.out), args.size_mm)
    except (ValueError, OSError) as error:
        print(f"tabletop: {error}", file=sys.stderr)
        return EXIT_BAD
    for path in paths:
        print(f"wrote {path}")
    for line in instructions(args.size_mm):
        print(line)
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    from calibration.calibrate import calibrate, parse_corners

    try:
        image = _image(args.image)
    except FileNotFoundError as error:
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
        except FileNotFoundError as error:
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
    try:
        frames = _frames(camera, args.source, args.fps)
        for line in watch(frames, calibration, HOLD if args.hold is None else args.hold):
            print(json.dumps(line), flush=True)
    except KeyboardInterrupt:
        return 0
    except ValueError as error:  # a recording that cannot be read
        print(f"tabletop: {error}", file=sys.stderr)
        return EXIT_BAD
    return 0


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
    with camera:
        while True:
            frame = camera.read()
            if frame is None:
                if camera.ended:
                    return
                if recorded and camera.status.state == "fault":
                    # A recording that cannot be opened will not appear by waiting.
                    raise ValueError(camera.status.message)
                if camera.status.message != reported:
                    reported = camera.status.message
                    print(f"tabletop: {reported}", file=sys.stderr)
                time.sleep(0.01)
                continue
            yield frame.index, frame.index / fps if recorded else frame.timestamp, frame.image
