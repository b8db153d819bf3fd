"""Touchscreen benchmark: time from `tabletop run` to the table screen, the app's frame time
while the camera runs, and the whole app's resident memory.

    xvfb-run -s '-screen 0 800x480x24' python3 bench/ui.py [--seconds 20]

It runs `tabletop run` as a user would (a fresh process, a new game, a
calibrated camera giving 1280x960 frames at 10 a second: a rendered game
written to files first and read as a `dir:` camera, so the renderer costs
nothing here) with a data folder of its own, and reads what the app reports
about itself.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROBE = r'''
import json, os, resource, statistics, sys, time
started = float(sys.argv[1]); seconds = float(sys.argv[2])
os.environ["KIVY_NO_ARGS"] = "1"
from kivy.clock import Clock
from tabletop.assembly.config import load_config
from tabletop.assembly.runner import Runner
import ui.app as uiapp

ticks, shown = [], {}
original = uiapp.TableApp.tick
def tick(self, *args):  # the name the clock looks the method up by
    began = time.perf_counter()
    original(self, *args)
    ticks.append(time.perf_counter() - began)
uiapp.TableApp.tick = tick
def first_draw(*_):
    shown.setdefault("table", time.time() - started)
def finish(*_):
    rss = int(open("/proc/self/status").read().split("VmRSS:")[1].split()[0]) * 1024
    print(json.dumps({"to_table_s": shown.get("table"), "ticks": len(ticks),
                      "tick_ms_p50": statistics.median(ticks) * 1000,
                      "tick_ms_p95": sorted(ticks)[int(0.95 * (len(ticks) - 1))] * 1000,
                      "rss_mb": rss / 2**20,
                      "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}),
          flush=True)
    uiapp.App.get_running_app().stop()
Clock.schedule_once(first_draw, 0)
Clock.schedule_once(finish, seconds)
runner = Runner(load_config(), ["Ann", "Bob", "Cy"], out=lambda line: None)
runner.run_app()
'''


def record(folder: Path, seconds: float) -> Path:
    """A rendered game (1280x960, as the Pi camera gives) written as frames, and its
    calibration in the data folder: the app then reads files as from a camera, and
    nothing of the renderer is in its memory or its time."""
    import numpy as np

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from calibration.calibrate import calibrate
    from calibration.synthetic.render import make_table, render_empty
    import cv2

    from calibration.synthetic.sequences import random_steps, render_sequence

    table = make_table("acquire", seed=3)
    rng = np.random.default_rng(3)
    sequence = render_sequence(table, random_steps(table, rng, placements=8, anomalies=()), rng)
    sequence.states = sequence.states[: int(seconds * 10) + 50]
    frames = folder / "frames"
    frames.mkdir()
    # Uncompressed, as a camera hands frames over: decoding PNGs would cost 50 ms a frame.
    for index, image in enumerate(sequence):
        cv2.imwrite(str(frames / f"frame_{index:05d}.bmp"), image)
    empty = render_empty(table, np.random.default_rng(4))
    (folder / "data").mkdir()
    calibrate(empty.image, empty.truth.corners, "acquire").save(folder / "data" / "calibration.json")
    return frames


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="tabletop-bench-ui-"))
    frames = record(folder, args.seconds)
    config = folder / "config.toml"
    config.write_text(f'[camera]\nsource = "dir:{frames}"\nfps = 10\n'
                      f'[controls]\nkind = "mock"\n[paths]\ndata = "{folder / "data"}"\n')
    env = {**os.environ, "TABLETOP_CONFIG": str(config), "KIVY_NO_CONSOLELOG": "1",
           "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    started = time.time()
    result = subprocess.run([sys.executable, "-c", PROBE, str(started), str(args.seconds)],
                            capture_output=True, text=True, env=env, timeout=args.seconds + 120)
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    if not lines:
        print(result.stdout[-2000:], result.stderr[-3000:], file=sys.stderr)
        return 1
    figures = json.loads(lines[-1])
    print(f"tabletop run -> table screen: {figures['to_table_s']:.2f} s")
    print(f"app tick (a camera frame read and tracked, the buttons, the screen), "
          f"{figures['ticks']} ticks: "
          f"p50 {figures['tick_ms_p50']:.1f} ms, p95 {figures['tick_ms_p95']:.1f} ms")
    print(f"resident memory: {figures['rss_mb']:.0f} MB (peak {figures['max_rss_mb']:.0f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
