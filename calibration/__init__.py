"""calibration: from camera pixels to board cells (numpy + OpenCV).

- ``layout``: every board's cells on the board plane, in board units.
- ``markers``: the four ArUco markers: images, the printable sheet, detection.
- ``render`` (with ``canvas``, ``scenes`` and ``sequences``): camera frames of
  a board on a table with ground truth, and whole game sequences, for the
  tests, the simulated camera and the benchmarks.
- calibration proper, the board pose, the tile classifier and the stability
  tracker live in their own modules beside these.

Of our own code this package imports only ``tabletop``'s board geometry.
"""
