"""Doctest collection for the ``tabletop`` package when optional parts are missing.

The engine, journal and table install and test without numpy, OpenCV or Kivy
(``.ci/engine-alone`` proves it). A few composition-root modules cannot even be
imported without them, so ``pytest --doctest-modules tabletop`` leaves those
out instead of failing at collection. With everything installed nothing is
left out.
"""

from __future__ import annotations

from importlib.util import find_spec

#: Modules that need optional distributions as soon as they are imported, and
#: which. ``simcamera`` subclasses ``hardware.camera``'s classes, and
#: ``hardware.camera`` imports numpy and OpenCV, so no lazy import can help it.
NEEDS = {
    "assembly/simcamera.py": ("numpy", "cv2"),
}


def _missing(modules: tuple[str, ...]) -> bool:
    """Whether any of these top-level modules cannot be found.

    >>> _missing(("json",)), _missing(("no_such_module_here",))
    (False, True)
    """
    return any(find_spec(name) is None for name in modules)


collect_ignore = [path for path, modules in NEEDS.items() if _missing(modules)]
