"""A hand's outline in image pixels: the shapes a scene's hands are drawn, masked and
shadowed with (:mod:`calibration.synthetic.scenes` draws them).

A hand keeps its shape while it moves over the board, and a frame asks for its
outline several times, so both are kept (:func:`kept`): the polygons given out are
shared and read-only.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any, Callable, Sequence

import cv2
import numpy as np

if TYPE_CHECKING:
    from calibration.synthetic.scenes import Hand


def capsule(a: Sequence[float], b: Sequence[float], radius: float, steps: int = 8) -> np.ndarray:
    """A stadium from ``a`` to ``b``: the outline of a finger."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    d = b - a
    base = math.atan2(d[1], d[0])
    arc = np.linspace(-math.pi / 2, math.pi / 2, steps)
    end = b + radius * np.stack([np.cos(base + arc), np.sin(base + arc)], 1)
    start = a + radius * np.stack([np.cos(base + math.pi + arc), np.sin(base + math.pi + arc)], 1)
    return np.concatenate([end, start])


#: Where a hand holds a tile, in the local coordinates of ``hand_parts`` (palm widths).
GRIP = np.array([-0.12, -0.5])


def kept(cached: Callable[..., Any], *args: Any) -> Any:
    """``cached(*args)``, an lru_cache'd function, or worked out afresh when an argument cannot
    be a key (a scene built by hand with lists or arrays in it)."""
    try:
        return cached(*args)
    except TypeError:
        return cached.__wrapped__(*args)


def hand_parts(hand: Hand) -> list[tuple[str, np.ndarray]]:
    """The hand's outline as ``(kind, polygon)`` pairs in image pixels, back to front.

    Kinds are ``"sleeve"``, ``"skin"`` (the arm first, then the palm) and
    ``"finger"`` (skin with a crease round it; the thumb last). Local
    coordinates are in palm widths, the fingers' base at ``y = -0.9`` and the
    reach along ``+y``; the arm runs back far enough to leave any frame.
    The polygons are read-only (they are shared: see :func:`_placed_parts`).
    """
    return list(kept(_placed_parts, hand))


@functools.lru_cache(maxsize=16)
def _placed_parts(hand: Hand) -> tuple[tuple[str, np.ndarray], ...]:
    # A frame asks for the same hand's outline up to four times (the plan's clear board,
    # the occluder mask, the shadow, the drawing): it is worked out once.
    mirror = -1.0 if hand.left else 1.0
    # Local (x, y) -> image: scale, mirror, rotate so +y points along the reach. The grip
    # point is halfway along the middle finger: always under the hand, whatever the curl.
    c, s = math.cos(hand.angle), math.sin(hand.angle)
    forward, right = np.array([c, s]), np.array([-s, c])
    out = []
    for kind, poly in _local_parts(hand.sleeve_gap, hand.curl, hand.spread):
        xy = (poly[:, :1] * mirror * right + poly[:, 1:] * forward) * hand.width
        placed = xy + np.asarray(hand.grip)
        placed.flags.writeable = False
        out.append((kind, placed))
    return tuple(out)


@functools.lru_cache(maxsize=16)
def _local_parts(sleeve_gap: float, curl: float,
                 spread: float) -> tuple[tuple[str, np.ndarray], ...]:
    """The hand's parts in palm widths about the grip point: one hand moving over the
    board keeps its shape, so this is worked out once per hand, not per frame."""
    parts: list[tuple[str, np.ndarray]] = []
    wrist = -1.75
    reach = 40.0  # palm widths of arm: out of any frame
    arm = np.array([[-0.36, wrist + 0.05], [0.36, wrist + 0.05], [0.5, wrist - reach],
                    [-0.5, wrist - reach]])
    parts.append(("skin", arm))
    sleeve_top = wrist - sleeve_gap
    parts.append(("sleeve", np.array([[-0.5, sleeve_top], [0.5, sleeve_top],
                                      [0.68, sleeve_top - reach], [-0.68, sleeve_top - reach]])))
    palm = cv2.ellipse2Poly((0, 0), (1000, 1000), 0, 0, 360, 15).astype(float) / 1000
    palm = palm * [0.5, 0.55] + [0.0, -1.25]
    palm = np.concatenate([palm, [[-0.36, wrist], [0.36, wrist]]])
    parts.append(("skin", cv2.convexHull(palm.astype(np.float32)).reshape(-1, 2).astype(float)))
    # Index to little finger, the thumb on the -x side: base x, length, radius, fan.
    bend = 1.0 - 0.35 * curl
    for x, length, radius, fan in ((-0.36, 0.86, 0.105, -0.07), (-0.12, 0.95, 0.11, -0.02),
                                   (0.12, 0.88, 0.1, 0.04), (0.36, 0.68, 0.09, 0.11)):
        direction = fan * spread
        base = (x, -0.9)
        tip = (x + math.sin(direction) * length * bend, -0.9 + math.cos(direction) * length * bend)
        parts.append(("finger", capsule(base, tip, radius)))
    thumb_base = (-0.4, -1.45)
    thumb_tip = (-0.62 + 0.3 * curl, -0.75 + 0.25 * curl)
    parts.append(("finger", capsule(thumb_base, thumb_tip, 0.12)))
    out = []
    for kind, poly in parts:
        local = poly - GRIP
        local.flags.writeable = False
        out.append((kind, local))
    return tuple(out)
