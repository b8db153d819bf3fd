"""Fuzzing slip files (issue 22): whatever a file holds, `verify` gives a verdict or a clear
refusal (SlipError), never a traceback, and never calls a changed slip valid; for today's
Ed25519 slips and for the old HMAC ones alike."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from tabletop.errors import SlipError
from tabletop.journal.slip import (parse_slip, qr_payload, read_slip, sign, signing_key_from_seed,
                                   verify)

KEY = bytes(range(32))
TABLE = signing_key_from_seed(bytes(range(1, 33)))
BODY = {"slip": 2, "table": "t", "game": 4, "seat": {"round": 3, "table": "3"},
        "options": {"bonus_mode": "classic"},
        "players": [{"rank": 1, "name": "李小龍", "seat": 1, "cash": 9000,
                     "bonuses": {"Tower": 3000}, "sales": {}},
                    {"rank": 2, "name": "Bob", "seat": 2, "cash": 7000,
                     "bonuses": {}, "sales": {"Tower": 400}}]}
#: Each kind of slip with the key that checks it: today's (Ed25519) and the old (HMAC).
SIGNED = {"ed25519": (sign(BODY, TABLE), TABLE.public), "hmac": (sign(BODY, KEY), KEY)}
FILES = {kind: (json.dumps(slip, indent=2, ensure_ascii=False).encode("utf-8"),
                qr_payload(slip).encode("ascii")) for kind, (slip, _) in SIGNED.items()}

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


PATHS = {kind: [path for path in paths(slip) if path] for kind, (slip, _) in SIGNED.items()}


def check(raw: bytes, kind: str = "hmac") -> None:
    signed, key = SIGNED[kind]
    try:
        slip = parse_slip(raw, "fuzzed.json")
    except SlipError as error:
        assert "Traceback" not in str(error) and len(str(error)) < 2000
        return
    for checking in (KEY, TABLE.public):   # the other kind's key too: a verdict, never a crash
        verdict = verify(slip, checking)
        assert isinstance(str(verdict), str) and isinstance(verdict.message, str)
        if verdict.valid:   # only the very slip that was signed (its signature block may differ)
            assert checking == key
            body = {k: v for k, v in slip.items() if k != "signature"}
            assert body == {k: v for k, v in signed.items() if k != "signature"}


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(SIGNED)), st.data(), json_values)
def test_a_slip_with_any_field_replaced_gets_a_verdict(kind, data, value):
    slip = json.loads(json.dumps(SIGNED[kind][0]))
    path = data.draw(st.sampled_from(PATHS[kind]))
    target = slip
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    check(json.dumps(slip, ensure_ascii=False, allow_nan=True).encode("utf-8", "surrogatepass"),
          kind)


@settings(max_examples=examples(200), deadline=None)
@given(st.sampled_from(sorted(SIGNED)), st.booleans(), st.data())
def test_a_slip_file_with_bytes_flipped_cut_or_inserted_gets_a_verdict(kind, as_qr, data):
    raw = bytearray(FILES[kind][as_qr])
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
    check(bytes(raw), kind)


@settings(max_examples=examples(100), deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_are_refused_or_judged(raw):
    check(raw)
    check(raw, "ed25519")


def test_a_real_file_of_each_form_reads_back(tmp_path):
    for kind, (text, qr) in FILES.items():
        for name, raw in (("slip.json", text), ("qr.txt", qr)):
            (tmp_path / name).write_bytes(raw)
            assert verify(read_slip(tmp_path / name), SIGNED[kind][1]).valid, (kind, name)
