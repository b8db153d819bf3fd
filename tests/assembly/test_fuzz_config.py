"""Fuzzing configuration files (issue 22): whatever the file says, `load_config` gives a
configuration or a ConfigError naming the file, never a traceback, and leaves it unchanged."""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop.assembly.config import DEFAULTS, RANGES, ConfigError, load_config

REAL = ('[table]\nname = "Final table"\nrules = "acquire"\noptions = {bonus_mode = "tycoon"}\n'
        '[camera]\nsource = "usb:0"\nfps = 10\n[controls]\nhold_time = 1.5\n'
        'pins = {CONFIRM = 5}\n[printer]\nurl = "loop://"\ncolumns = 32\n')

toml_scalars = (st.integers(-10 ** 6, 10 ** 6).map(str)
                | st.floats(allow_nan=True).map(lambda f: "nan" if math.isnan(f) else
                                                ("inf" if f == math.inf else
                                                 "-inf" if f == -math.inf else repr(f)))
                | st.text(max_size=12).map(lambda t: '"' + t.encode("unicode_escape")
                                           .decode("ascii").replace('"', '\\"') + '"')
                | st.sampled_from(["true", "false", "[]", "{}", "[" * 3000 + "]" * 3000,
                                   "9" * 5000, "{a = {b = [1, {c = 2}]}}"]))
keys = st.sampled_from([(section, key) for section, table in DEFAULTS.items() for key in table]
                       + [("table", "nope"), ("nosection", "x")])


def check(tmp_path, text: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    before = path.read_bytes()
    try:
        config = load_config(path, environ={})
    except ConfigError as error:
        assert str(path) in str(error) and len(str(error)) < 5000
    else:
        for (section, key), (low, high, _) in RANGES.items():
            assert low <= config.values[section][key] <= high
    assert path.read_bytes() == before


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(st.tuples(keys, toml_scalars), min_size=1, max_size=4))
def test_any_value_for_any_key_is_taken_or_refused_by_name(tmp_path, settings_given):
    sections: dict[str, list[str]] = {}
    for (section, key), value in settings_given:
        sections.setdefault(section, []).append(f"{key} = {value}")
    text = "".join(f"[{section}]\n" + "\n".join(dict.fromkeys(lines)) + "\n"
                   for section, lines in sections.items())
    check(tmp_path, text)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_a_real_file_mutated_is_taken_or_refused(tmp_path, data):
    text = REAL
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(text)))
        cut = data.draw(st.integers(0, 10))
        text = text[:at] + data.draw(st.text(max_size=10) | toml_scalars) + text[at + cut:]
    check(tmp_path, text)
