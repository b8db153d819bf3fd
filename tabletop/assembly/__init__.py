"""The composition root: the one room that joins engine, journal, camera, devices and screen.

Only modules here import ``calibration``, ``hardware`` or ``ui`` (a test reads
every import to hold that), and they do it lazily, so the engine, journal and
table install and run with the standard library alone.
"""
