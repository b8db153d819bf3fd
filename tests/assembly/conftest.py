"""The assembly tests' shared whole demo game (tests/whole_game.py)."""

from whole_game import whole_acquire_game  # noqa: F401  (a fixture, found here by pytest)
