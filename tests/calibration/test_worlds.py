"""The renderer's two worlds: tuning renders as it always did, held-out is wider and kept apart."""

import hashlib
import platform

import cv2
import numpy as np
import pytest

from calibration.synthetic.render import (PALETTES, TILE_STYLES, make_table, render, render_empty,
                                          view_of)
from calibration.synthetic.scenes import SKIN_TONES, SLEEVES, Nuisances
from calibration.synthetic.sequences import Place, random_steps, render_sequence
from calibration.synthetic.worlds import (FONTS, MATERIALS, PRINT_FAMILIES, WIDE_SKIN_TONES,
                                          WIDE_SLEEVES, held_out_rng, held_out_table,
                                          require_tuning)

SMALL = (320, 240)
SEEDS = range(50)

# --- the tuning world is what it was --------------------------------------------------------

#: Fingerprints taken with the renderer as it was before the held-out world existed
#: (commit b7ccd32): a table's drawn numbers (rounded to 9 digits, so that a last-bit
#: difference of another machine's maths library does not count) and its frames' bytes.
BEFORE = {
    ("acquire", 0, ()): ("c769d95f60d80e50", "798365a964f38962", "3d2cee5c1740d48a"),
    ("acquire", 3, ()): ("6328dd9b126c5e83", "0e10be4e6a4eb835", "85060e9c3d020552"),
    ("megacquire-gold", 12, ()): ("aa0444f596065ece", "12b6ab288938cd51", "04f3fbe93a418789"),
    ("megacquire-gold", 14, (("hex_offset", "even-r"),)):
        ("8e7d1e85020bb0af", "2aa050180dc9343d", "cd55b4a556e34159"),
    ("acquisitions", 13, ()): ("06b4578fe6b188c9", "8f3779696f270a66", "23227884770f1ec5"),
    ("acquire", 2007, ()): ("c5b7801bfe4b1995", "39eee2c5330a090c", "9df3debc7b041f39"),
}
SEQUENCE_BEFORE = ("808a2101400c8610", 349, "98c495e0e8b23d7e")
FULL_SIZE_BEFORE = ("0b253758b15b5bf2", "318564af1c4b2be6")
#: Pixels are compared byte for byte where they were taken: OpenCV's drawing and
#: filtering may round differently in another version or on another processor.
SAME_PIXELS = cv2.__version__ == "5.0.0" and platform.machine() == "x86_64"
PARAMS = ("rules", "options", "size", "palette", "tile_style", "surface", "surface_colour",
          "board_margin", "markers", "homography", "focal", "principal", "k1", "k2",
          "texture_seed")


def _format(value) -> str:
    if isinstance(value, float):
        return f"{value:.9g}"
    if isinstance(value, (tuple, list)):
        return "(" + ",".join(_format(v) for v in value) + ")"
    if hasattr(value, "__dataclass_fields__"):
        return "M" + _format(tuple(getattr(value, f) for f in value.__dataclass_fields__))
    return repr(value)


def drawn(table) -> str:
    """A fingerprint of the numbers a tuning table was drawn with."""
    return hashlib.sha256(_format(tuple(getattr(table, f) for f in PARAMS)).encode()).hexdigest()[:16]


def pixels(*images) -> str:
    return hashlib.sha256(b"".join(image.tobytes() for image in images)).hexdigest()[:16]


def tuning_frames(table, seed):
    """The frames the fingerprints were taken of: tiles (some face down) with every nuisance."""
    rng = np.random.default_rng(seed)
    cells = list(range(0, table.layout.size, 7))
    tiles = {c: ("dead" if i % 5 == 0 else None) for i, c in enumerate(cells)}
    return render(table, tiles, rng, Nuisances.all()).image, render_empty(table, rng).image


@pytest.mark.parametrize("rules, seed, options", sorted(BEFORE))
def test_a_tuning_seed_draws_and_renders_the_table_it_always_did(rules, seed, options):
    table = make_table(rules, seed=seed, options=dict(options), size=SMALL)
    params, frame, empty = BEFORE[(rules, seed, options)]
    assert table.world == "tuning" and table.look is None
    assert drawn(table) == params
    if SAME_PIXELS:
        image, bare = tuning_frames(table, seed)
        assert (pixels(image), pixels(bare)) == (frame, empty)


def test_tuning_sequences_and_full_size_overrides_render_as_before():
    table = make_table("acquire", seed=5, size=SMALL)
    rng = np.random.default_rng(5)
    sequence = render_sequence(table, random_steps(table, rng, placements=2), rng)
    step = max(1, len(sequence) // 6)
    assert (drawn(table), len(sequence)) == SEQUENCE_BEFORE[:2]
    full = make_table("acquire", seed=11, tile_style="ivory")
    assert drawn(full) == FULL_SIZE_BEFORE[0]
    if SAME_PIXELS:
        frames = [sequence.frame(i).image for i in range(0, len(sequence), step)]
        assert pixels(*frames) == SEQUENCE_BEFORE[2]
        image = render(full, {"5C": None, "6D": "glossy"}, np.random.default_rng(1),
                       Nuisances.mild()).image
        assert pixels(image) == FULL_SIZE_BEFORE[1]


# --- the held-out world: wider, and apart ---------------------------------------------------

@pytest.fixture(scope="module")
def held_out():
    return [held_out_table("acquire", seed, size=SMALL) for seed in SEEDS]


@pytest.fixture(scope="module")
def tuning():
    return [make_table("acquire", seed=seed, size=SMALL) for seed in SEEDS]


def test_held_out_tables_are_never_tuning_tables(held_out, tuning):
    for table in held_out:
        assert table.world == "held-out"
        assert table.tile_style in MATERIALS and table.tile_style not in TILE_STYLES
        assert table.palette in PRINT_FAMILIES and table.palette not in PALETTES
        assert table.look.print.palette not in PALETTES.values()
    cameras = {tuple(round(v, 6) for v in t.homography) for t in tuning}
    assert not cameras & {tuple(round(v, 6) for v in t.homography) for t in held_out}
    # Every held-out camera differs from the tuning table of the same seed.
    assert all(a.homography != b.homography and a.texture_seed != b.texture_seed
               for a, b in zip(held_out, tuning))


def test_the_held_out_stream_is_its_own():
    for seed in SEEDS:
        assert not np.array_equal(held_out_rng(seed).random(4), np.random.default_rng(seed).random(4))
    # A generator could come from anywhere (a tuning run's own): the held-out world refuses it.
    with pytest.raises(TypeError):
        held_out_table("acquire", np.random.default_rng(0))
    with pytest.raises(TypeError):
        make_table("acquire", seed=np.random.default_rng(0), world="held-out")
    with pytest.raises(ValueError):
        held_out_table("acquire", -1)
    with pytest.raises(ValueError, match="unknown world"):
        make_table("acquire", seed=0, world="validation")
    # A tuning table cannot be made of a held-out material or print.
    with pytest.raises(ValueError):
        make_table("acquire", seed=0, tile_style="ivory_card")
    with pytest.raises(ValueError):
        make_table("acquire", seed=0, palette="light")


def test_tuning_code_can_refuse_held_out_tables(held_out, tuning):
    require_tuning(tuning[0])
    with pytest.raises(ValueError, match="never be used for tuning"):
        require_tuning(held_out[0])


def test_held_out_draws_cover_the_wider_world(held_out, tuning):
    materials = {t.tile_style for t in held_out}
    families = {t.palette for t in held_out}
    assert materials == set(MATERIALS) and families == set(PRINT_FAMILIES)
    looks = [t.look for t in held_out]
    # The real Acquire table: ivory tiles on a light print, often in its own ink, bold.
    real = [t for t in held_out if t.palette == "light" and t.tile_style.startswith("ivory")]
    assert len(real) >= 5
    assert any(t.look.material.text == tuple(float(v) for v in t.look.print.palette.label)
               for t in real)
    assert max(look.material.text_weight for look in looks) > 0.25
    assert len({look.print.font & ~cv2.FONT_ITALIC for look in looks}) >= 4
    assert any(look.print.font & cv2.FONT_ITALIC for look in looks)
    assert {look.print.font & ~cv2.FONT_ITALIC for look in looks} <= set(FONTS)
    assert np.ptp([look.print.line_weight for look in looks]) > 0.04
    assert any(look.print.cell_tint != 1.0 for look in looks)
    assert any(look.material.side > 0.02 for look in looks)
    assert any(look.material.specular > 20 for look in looks)
    # Under- and over-exposed, colour casts, shaky cameras.
    exposures = [look.room.exposure for look in looks]
    assert min(exposures) < 0.7 and max(exposures) > 1.3
    assert any(abs(look.room.cast[0] - look.room.cast[2]) > 0.3 for look in looks)
    assert any(look.room.shake > 0 for look in looks) and any(look.room.shake == 0 for look in looks)
    # Stronger lenses and cameras from elsewhere than the tuning world's.
    assert min(t.k1 for t in held_out) < min(t.k1 for t in tuning) - 0.05
    assert any(t.k2 != 0 for t in held_out) and all(t.k2 == 0 for t in tuning)
    assert np.ptp([t.focal for t in held_out]) > np.ptp([t.focal for t in tuning]) * 1.5


def test_held_out_hands_come_from_more_people():
    table = held_out_table("acquire", 3, size=SMALL)
    view = view_of(table)
    assert view.skins == WIDE_SKIN_TONES and view.sleeves == WIDE_SLEEVES
    assert set(SKIN_TONES) < set(view.skins) and set(SLEEVES) < set(view.sleeves)
    sequence = render_sequence(table, [Place("5C"), Place("6C")], np.random.default_rng(0))
    hands = {hand.skin for state in sequence.states for hand in state.scene.hands}
    assert hands and hands <= set(WIDE_SKIN_TONES)
    frame = sequence.frame(sequence.events[0].change)
    assert not frame.truth.clear and frame.image.shape == (240, 320, 3)


# --- held-out renders show what their truth says ---------------------------------------------

def patch_difference(a, b, centre, radius):
    x, y = np.rint(centre).astype(int)
    window = np.s_[y - radius:y + radius + 1, x - radius:x + radius + 1]
    return float(np.abs(a[window].astype(int) - b[window].astype(int)).mean())


@pytest.mark.parametrize("rules, seed, material, family", [
    ("acquire", 1, "ivory_card", "light"), ("acquire", 2, "ivory_plastic", "light"),
    ("megacquire-gold", 3, "matched_print", "mid"), ("acquisitions", 4, "glossy_plastic", "dark"),
    ("acquire", 5, "wood_block", "mid"), ("megacquire-gold", 6, "dark_plastic", "light")])
def test_held_out_tiles_are_drawn_where_the_truth_says(rules, seed, material, family):
    table = make_table(rules, seed=seed, size=(640, 480), world="held-out", tile_style=material,
                       palette=family)
    layout = table.layout
    tiles = {c: None for c in list(layout.geometry.corners()) + [layout.size // 2 + 3]}
    # The same generator state for both: the room's shake is the same in both frames.
    empty = render(table, {}, np.random.default_rng(7)).image
    frame = render(table, tiles, np.random.default_rng(7))
    assert frame.truth.occupied == frozenset(tiles)
    assert frame.truth.occupied_labels == frozenset(layout.geometry.labels[c] for c in tiles)
    unit = np.linalg.norm(table.project(layout.centres[1]) - table.project(layout.centres[0]))
    radius = max(2, int(0.25 * unit))
    centres = frame.truth.centres
    assert (centres > 0).all() and (centres[:, 0] < 640).all() and (centres[:, 1] < 480).all()
    for cell in tiles:
        assert patch_difference(empty, frame.image, centres[cell], radius) > 0.5, cell
    # Cells two or more cells away from every tile are untouched.
    far = [c for c in range(layout.size)
           if min(np.linalg.norm(layout.centres[c] - layout.centres[t]) for t in tiles) > 2.2]
    assert far
    for cell in far[::5]:
        assert patch_difference(empty, frame.image, centres[cell], radius) < 0.05, cell
