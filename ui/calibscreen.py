"""The calibration screen: the live camera with the markers it sees; the player taps the four
corner cells, the predicted grid is drawn over the picture at once (a hex board's row parity
can be flipped and seen), then saved; a test mode rings the cells the camera reads as occupied.

On a table set up for the first time the steps come first, beside the picture:
what to print (``tabletop markers``), where the markers go, where the camera
goes, the corner cells to tap in order, and Save.
"""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any

import numpy as np
from kivy.clock import Clock
from kivy.factory import Factory
from kivy.graphics import Color, Ellipse, Line, Rectangle
from kivy.graphics.texture import Texture
from kivy.lang import Builder
from kivy.metrics import dp, sp
from kivy.properties import BooleanProperty, ListProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen
from kivy.uix.widget import Widget

from tabletop.messages import message_of
from tabletop.errors import TabletopError
from ui import theme
from ui.i18n import say, text

Builder.load_file(str(Path(__file__).with_suffix(".kv")))

#: The colour of the first-use step the table is at (markup), light blue as the status line.
NOW = "9fe6ff"
#: Save's green once there is a calibration to save; before, the grey of the other buttons.
SAVE = (0.12, 0.50, 0.28, 1)
NOT_YET = (0.345, 0.345, 0.345, 1)


class TextKey(str):
    """A status line that is one of the screen's fixed strings (its key): shown in the
    language of the moment, also after the language is changed."""


class GuideStep(BoxLayout):
    """One first-use step: its number, and its words beside it (lines wrap under the words)."""

    number = StringProperty("")
    words = StringProperty("")


class CameraView(Widget):
    """A camera frame fitted into the widget, with tapped corners, the grid and read cells drawn."""

    image = ObjectProperty(None, allownone=True, force_dispatch=True)   # BGR numpy array
    taps = ListProperty([])                          # image pixels tapped
    grid = ListProperty([])                          # predicted cell centres, image pixels
    occupied = ListProperty([])                      # cell centres read as tiles (test mode)

    __events__ = ("on_image_tap",)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._texture: Texture | None = None
        self.bind(image=self._upload, pos=self.redraw, size=self.redraw, taps=self.redraw,
                  grid=self.redraw, occupied=self.redraw)

    def _upload(self, *_: Any) -> None:
        image = self.image
        if image is None:
            return
        height, width = image.shape[:2]
        if self._texture is None or self._texture.size != (width, height):
            self._texture = Texture.create(size=(width, height), colorfmt="bgr")
            self._texture.flip_vertical()
        self._texture.blit_buffer(np.ascontiguousarray(image).tobytes(), colorfmt="bgr",
                                  bufferfmt="ubyte")
        self.redraw()

    def _fit(self) -> tuple[float, float, float]:
        """Scale and bottom-left of the picture in the widget."""
        height, width = self.image.shape[:2]
        scale = min(self.width / width, self.height / height)
        return scale, self.x + (self.width - width * scale) / 2, \
            self.y + (self.height - height * scale) / 2

    def to_widget(self, x: float, y: float) -> tuple[float, float]:
        """Image pixels (origin top-left) to window coordinates."""
        scale, left, bottom = self._fit()
        return left + x * scale, bottom + (self.image.shape[0] - y) * scale

    def to_image(self, x: float, y: float) -> tuple[float, float]:
        scale, left, bottom = self._fit()
        return (x - left) / scale, self.image.shape[0] - (y - bottom) / scale

    def redraw(self, *_: Any) -> None:
        self.canvas.clear()
        if self.image is None or self._texture is None:
            return
        scale, left, bottom = self._fit()
        height, width = self.image.shape[:2]
        with self.canvas:
            Color(1, 1, 1, 1)
            Rectangle(texture=self._texture, pos=(left, bottom), size=(width * scale, height * scale))
            # Marks in dp: as large to the eye on a 1920x1080 panel as on an 800x480 one.
            dot, ring, tapped = dp(2.5), dp(7), dp(9)
            Color(0.3, 0.9, 1, 0.9)
            for x, y in self.grid:
                px, py = self.to_widget(x, y)
                Ellipse(pos=(px - dot, py - dot), size=(2 * dot, 2 * dot))
            Color(*theme.WARNING)
            for x, y in self.occupied:
                px, py = self.to_widget(x, y)
                Line(circle=(px, py, ring), width=dp(1.5))
            Color(1, 0.85, 0.3, 1)
            for x, y in self.taps:
                px, py = self.to_widget(x, y)
                Line(circle=(px, py, tapped), width=dp(2))

    def on_touch_down(self, touch: Any) -> bool:
        if self.image is None or not self.collide_point(*touch.pos):
            return super().on_touch_down(touch)
        self.dispatch("on_image_tap", *self.to_image(*touch.pos))
        return True

    def on_image_tap(self, x: float, y: float) -> None:
        """A tap on the picture, in image pixels."""


class CalibrationScreen(Screen):
    """Calibrating the camera to the empty board (see the module's docstring)."""

    language = StringProperty("en")
    rules = StringProperty("acquire")
    options = ObjectProperty({})
    camera = ObjectProperty(None, allownone=True)     # read() -> a frame with .image, or None
    saver = ObjectProperty(None, allownone=True)      # called with the Calibration to keep
    #: The first-use steps shown beside the picture.
    guide = BooleanProperty(False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.calibration: Any = None
        self.testing = False
        self._message = ""
        self._steps_shown: tuple | None = None
        #: The steps are read from the first one: scrolled to the top when they are shown
        #: anew; after that only the player's own progress (a calibration made) scrolls them.
        self._from_the_top = True
        self._markers_seen: tuple = (None, "-")       # (the picture's checksum, its markers)
        self.ids.view.bind(on_image_tap=lambda _, x, y: self.tap(x, y))

    # --- the camera ---------------------------------------------------------------------------

    def tick(self) -> None:
        """The latest frame (kept when none is new); in test mode, the cells it reads occupied."""
        frame = self.camera.read() if self.camera is not None else None
        if frame is not None:
            self.ids.view.image = frame.image
            if self.testing and self.calibration is not None:
                self._read(frame.image)
        self.refresh()

    # --- what the player does -----------------------------------------------------------------

    def tap(self, x: float, y: float) -> None:
        """One corner cell's centre; after the fourth, the calibration and its grid."""
        view = self.ids.view
        taps = list(view.taps)[:3] if len(view.taps) >= 4 else list(view.taps)
        taps.append((x, y))
        view.taps = taps
        self.calibration, view.grid, view.occupied = None, [], []
        if len(taps) == 4:
            self._calibrate()
        self.refresh()

    def flip_parity(self) -> None:
        """A hex board's other row offset, recalibrated from the same taps at once."""
        parity = self.options.get("hex_offset", "odd-r")
        self.options = {**self.options, "hex_offset": "even-r" if parity == "odd-r" else "odd-r"}
        if len(self.ids.view.taps) == 4:
            self._calibrate()
        self.refresh()

    def on_pre_enter(self, *_: Any) -> None:
        """Shown again: its steps from the first one."""
        self._from_the_top = True

    def toggle_guide(self) -> None:
        self.guide = not self.guide
        self._from_the_top = True
        self.refresh()

    def toggle_test(self) -> None:
        if self.calibration is None:
            self._message = TextKey("calib_first")    # nothing to test yet: said, not ignored
        self.testing = not self.testing and self.calibration is not None
        self.ids.view.occupied = []
        if self.testing and self.ids.view.image is not None:
            self._read(self.ids.view.image)
        self.refresh()

    def save(self) -> None:
        if self.calibration is None:
            self._message = TextKey("calib_first")
        elif self.saver is not None:
            self._message = self.saver(self.calibration)
        self.refresh()

    # --- working ------------------------------------------------------------------------------

    def _calibrate(self) -> None:
        from calibration.calibrate import calibrate
        from calibration.warp import homography

        view = self.ids.view
        try:
            calibration = calibrate(view.image, view.taps, self.rules, dict(self.options))
        except TabletopError as error:
            self._message = message_of(error)
            self.calibration, view.grid = None, []
            return
        layout = calibration.layout
        matrix = homography(layout.corner_points(), calibration.corners_px)
        view.grid = [tuple(p) for p in calibration.to_image(matrix, layout.centres)]
        self.calibration, self._message = calibration, TextKey("calib_done")
        self._recognizer = None

    def _read(self, image: np.ndarray) -> None:
        from calibration.recognize import Recognizer

        if getattr(self, "_recognizer", None) is None:
            self._recognizer = Recognizer(self.calibration)
        try:
            seen = self._recognizer.read(image)
        except TabletopError as error:      # a frame the calibration does not fit (its size)
            self._message = message_of(error)
            return
        grid = self.ids.view.grid
        self.ids.view.occupied = [grid[c] for c in sorted(seen.occupied)]

    def refresh(self, *_: Any) -> None:
        language, ids = self.language, self.ids
        ids.flip.text = text("calib_flip", language)
        ids.flip.disabled = "hex_offset" not in self._option_names()
        ids.test.text = text("calib_test", language) + (" ✓" if self.testing else "")
        ids.save.text = text("calib_save", language)
        # Green, the way on, only once there is a calibration to save; before, Save looks as
        # the other buttons do (pressed then, it says what to do first).
        ids.save.background_color = SAVE if self.calibration is not None else NOT_YET
        ids.back.text = text("back", language)
        ids.steps.text = text("calib_steps", language) + (" ✓" if self.guide else "")
        corners = self._corner_labels()
        taps = len(ids.view.taps)
        ids.heading.text = text("calib_tap", language, cell=corners[taps]) if taps < 4 else \
            text("calib_grid", language)
        markers = self._markers()
        if self.guide:
            self._show_steps(corners, markers)
        image = ids.view.image
        said = self._message
        ids.status.text = text(said, language) if isinstance(said, TextKey) else \
            str.__str__(say(said, language)) if said else \
            text("calib_no_camera", language) if self.camera is None and image is None else \
            text("calib_waiting", language) if image is None else \
            text("calib_markers", language, seen=markers)

    def _show_steps(self, corners: list[str], markers: str) -> None:
        """The first-use steps, numbered, the one the table is at in colour and scrolled to
        (made again only when they change: the screen refreshes ten times a second)."""
        language = self.language
        steps = [text("calib_step_print", language), text("calib_step_stick", language),
                 text("calib_step_camera", language, seen=markers),
                 text("calib_step_tap", language, corners=", ".join(corners)),
                 text("calib_step_save", language)]
        now = 4 if self.calibration is not None else 3 if self.ids.view.image is not None else 2
        shown = (language, tuple(steps), now)
        if shown == self._steps_shown and not self._from_the_top:
            return
        # Read from the first step when shown anew, or in another language (the words move).
        top = self._from_the_top or self._steps_shown is None or \
            self._steps_shown[0] != language
        calibrated = now == 4 and (self._steps_shown or (None, None, now))[2] != 4
        self._steps_shown, self._from_the_top = shown, False
        box = self.ids.guide
        box.clear_widgets()
        box.add_widget(Factory.GuideText(text=text("calib_steps_title", language),
                                         font_size=sp(18), color=theme.TEXT))
        rows = []
        for number, step in enumerate(steps):
            # The step the table is at stands out in colour (the font has no bold face).
            words = f"[color={NOW}]{step}[/color]" if number == now else step
            rows.append(GuideStep(number=f"{number + 1}.", words=words))
            box.add_widget(rows[-1])
        if top:
            self.ids.guide_view.scroll_y = 1
        elif calibrated:        # the last step (check, Save) brought into sight, once laid out
            Clock.schedule_once(lambda _: self._bring_into_sight(rows[now]), 0)

    def _bring_into_sight(self, row: Any) -> None:
        """The steps scrolled as little as shows ``row`` whole (what is above it stays)."""
        view = self.ids.guide_view
        if row.parent is not None:
            view.scroll_to(row, padding=dp(4), animate=False)

    def _corner_labels(self) -> list[str]:
        from tabletop.engine.ruleset import load_rules

        rules = load_rules(self.rules)
        geometry = rules.geometry_for(rules.resolve_options(dict(self.options)))
        return [geometry.labels[c] for c in geometry.corners()]

    def _option_names(self) -> set[str]:
        from tabletop.engine.ruleset import load_rules

        return set(load_rules(self.rules).options)

    def _markers(self) -> str:
        """The markers the picture shows, "-" if none: looked for once a picture. The screen
        refreshes ten times a second, mostly on the same picture (no new frame, a tap), and
        a search takes a Pi a tenth of a second; a checksum takes it a millisecond."""
        from calibration.markers import detect_markers

        image = self.ids.view.image
        if image is None:
            return "-"
        picture = (image.shape, image.dtype.str, zlib.crc32(np.ascontiguousarray(image).data))
        if picture != self._markers_seen[0]:
            found = sorted(detect_markers(image))
            self._markers_seen = (picture, ", ".join(map(str, found)) if found else "-")
        return self._markers_seen[1]

