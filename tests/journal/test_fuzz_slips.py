"""Fuzzing slip files (issue 22): whatever a file holds, `verify` gives a verdict or a clear
refusal (SlipError), never a traceback, and never calls a changed slip valid."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from tabletop.errors import SlipError
from tabletop.journal.slip import parse_slip, qr_payload, read_slip, sign, verify

KEY = bytes(range(32))
SLIP = sign({"slip": 1, "table": "t", "game": 4, "options": {"bonus_mode": "classic"},
             "players": [{"rank": 1, "name": "李小龍", "seat": 1, "cash": 9000,
                          "bonuses": {"Tower": 3000}, "sales": {}},
                         {"rank": 2, "name": "Bob", "seat": 2, "cash": 7000,
                          "bonuses": {}, "sales": {"Tower": 400}}]}, KEY)
TEXT = json.dumps(SLIP, indent=2, ensure_ascii=False).encode("utf-8")
QR = qr_payload(SLIP).encode("ascii")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=20)


def paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for name, item in value.items():
            yield from paths(item, prefix + (name,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from paths(item, prefix + (index,))


PATHS = [path for path in paths(SLIP) if path]


def check(raw: bytes) -> None:
    try:
        slip = parse_slip(raw, "fuzzed.json")
    except SlipError as error:
        assert "Traceback" not in str(error) and len(str(error)) < 2000
        return
    verdict = verify(slip, KEY)
    assert isinstance(str(verdict), str)
    if verdict.valid:   # only the very slip that was signed (its signature block may differ)
        body = {k: v for k, v in slip.items() if k != "signature"}
        assert body == {k: v for k, v in SLIP.items() if k != "signature"}


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PATHS), json_values)
def test_a_slip_with_any_field_replaced_gets_a_verdict(path, value):
    slip = json.loads(json.dumps(SLIP))
    target = slip
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    check(json.dumps(slip, ensure_ascii=False, allow_nan=True).encode("utf-8", "surrogatepass"))


@settings(max_examples=examples(200), deadline=None)
@given(st.sampled_from([TEXT, QR]), st.data())
def test_a_slip_file_with_bytes_flipped_cut_or_inserted_gets_a_verdict(original, data):
    raw = bytearray(original)
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(raw)))
        action = data.draw(st.sampled_from(["flip", "cut", "insert"]))
        if action == "flip" and at < len(raw):
            raw[at] ^= data.draw(st.integers(1, 255))
        elif action == "cut":
            del raw[at:at + data.draw(st.integers(1, 50))]
        else:
            raw[at:at] = data.draw(st.binary(max_size=20) | st.sampled_from(
                [b"[" * 5000, b"9" * 5000, b"NaN", b"\n", b'"signature":{}']))
    check(bytes(raw))


@settings(max_examples=examples(100), deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_are_refused_or_judged(raw):
    check(raw)


def test_a_real_file_of_each_form_reads_back(tmp_path):
    for name, raw in (("slip.json", TEXT), ("qr.txt", QR)):
        (tmp_path / name).write_bytes(raw)
        assert verify(read_slip(tmp_path / name), KEY).valid
