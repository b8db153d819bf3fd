"""Strings added by area (window, table, screens, desk), merged into :mod:`ui.i18n`."""
