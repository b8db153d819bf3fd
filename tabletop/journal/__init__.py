"""Recorded games: the SQLite journal and its append-only copy, recovery, exports, slips.

The journal is told where it lives by its caller (``Journal.open(path)``); it never
reads the configuration. Modules: ``journal`` (the Journal: record, undo,
resume, read), ``store`` (records and the two copies' file formats),
``recovery`` (repairing one copy from the other), ``export`` (a game as table
script, JSON or CSV), ``slip`` (signed score slips; with ``keys``, ``signing``,
``seat``, ``slipfile`` and ``receipt``), ``stats`` (what the results screen charts).
"""
