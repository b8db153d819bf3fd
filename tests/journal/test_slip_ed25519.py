"""Today's score slips: signed with the table's Ed25519 key, checked with its public key.

What a director checks: a slip made by `tabletop slip` verifies with the public key
`tabletop key --public` printed, through the real command line; any changed field is
named; another table's slip fails; the private key is private, whole, and refused
clearly when damaged; old HMAC slips still verify and say they are the old kind; a
slip of another round or table is refused.
"""

from __future__ import annotations

import copy
import json
import os
import re
import stat
import subprocess
import sys

import pytest

from journal.test_slip import KEY, random_script, record
from journal_writer import ROOT
from tabletop.cli import main
from tabletop.errors import ScriptError, SlipError
from tabletop.engine.table_script import game_from_setup
from tabletop.journal.journal import Journal
from tabletop.journal.slip import (SIGNING_KEY_FILE, Seat, fields, load_signing_key, make_slip,
                                   parse_public_key, public_key_text, qr_payload, read_slip,
                                   seat_refusal, sign, signing_key_from_seed, slip_from_qr,
                                   slip_text, table_fingerprint, table_signing_key, verify, width)

TABLE = signing_key_from_seed(bytes(range(1, 33)))
OTHER_TABLE = signing_key_from_seed(bytes(range(2, 34)))
ROUND_3 = {"tournament": "Spring Open", "round": 3, "table": "3"}
OLD_VALID = "valid (old HMAC slip: anyone with the table's key could have signed it)\n"


def seated(lines: list[str], seat: dict | None = ROUND_3) -> list[str]:
    """The script with its setup naming a tournament seat."""
    setup = json.loads(lines[0])
    setup["setup"]["seat"] = seat
    return [json.dumps(setup), *lines[1:]]


@pytest.fixture
def table(tmp_path, monkeypatch):
    """A table's data folder and journal with one finished game set up for round 3, table 3."""
    data = tmp_path / "data"
    monkeypatch.setenv("TABLETOP_DATA", str(data))
    monkeypatch.setenv("TABLETOP_CONFIG", str(tmp_path / "none.toml"))
    with Journal.open(tmp_path / "journal.db", table_name="table 9") as journal:
        game = record(journal, seated(random_script(7)))
    return data, tmp_path / "journal.db", game


def tabletop(*args, data=None, stdin=None) -> subprocess.CompletedProcess:
    """The real command line in a subprocess."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if data is not None:
        env["TABLETOP_DATA"] = str(data)
    return subprocess.run([sys.executable, "-m", "tabletop", *map(str, args)], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=120, input=stdin)


def in_process(capsys, *args) -> tuple[int, str, str]:
    """The command line's main, its output captured (faster where many cases run)."""
    try:
        status = main([str(arg) for arg in args])
    except SystemExit as exit:
        status = exit.code
    out, err = capsys.readouterr()
    return status, out, err


# -- the whole flow, as a table and a director do it ------------------------------------------

def test_a_slip_made_by_the_table_verifies_with_the_printed_public_key(tmp_path, table):
    data, db, game = table
    printed = tabletop("key", "--public", data=data)
    assert printed.returncode == 0, printed.stderr
    public_text, fingerprint_line = printed.stdout.splitlines()
    assert public_text.startswith("ed25519:") and len(public_text) == len("ed25519:") + 44
    fingerprint = fingerprint_line.removeprefix("fingerprint: ")
    assert len(fingerprint) == 19 and fingerprint.count("-") == 3
    key_path = data / SIGNING_KEY_FILE
    assert stat.S_IMODE(key_path.stat().st_mode) == 0o600      # made on first use, private
    out = tmp_path / "slip.json"
    made = tabletop("slip", game, "--journal", db, "--out", out, "--text", data=data)
    assert made.returncode == 0, made.stderr
    assert f"Ed25519 key {fingerprint}" in made.stdout        # the printed slip names the key
    assert all(width(line) <= 32 for line in made.stdout.splitlines())
    slip = json.loads(out.read_text())
    assert slip["slip"] == 2 and slip["signature"]["fingerprint"] == fingerprint
    assert slip["seat"] == ROUND_3
    # The director's machine has no key of this table: only the public text.
    director = tmp_path / "director"
    saved = tmp_path / "table9.pub"
    saved.write_text(printed.stdout)
    for public in (saved, public_text):                      # a file, or the text pasted
        checked = tabletop("verify", out, "--public", public, data=director)
        assert (checked.returncode, checked.stdout, checked.stderr) == (0, "valid\n", "")
    assert not director.exists()                              # checking makes no key
    checked = tabletop("verify", out, data=data)              # the table checks its own
    assert (checked.returncode, checked.stdout) == (0, "valid\n")
    slip["players"][1]["cash"] += 1000
    out.write_text(json.dumps(slip))
    checked = tabletop("verify", out, "--public", saved, data=director)
    assert (checked.returncode, checked.stdout) == \
        (1, "invalid: field players[1].cash was changed\n")


def test_the_table_key_command_prints_the_fingerprint_and_the_key_stays_the_same(capsys, table):
    data, _, _ = table
    status, out, err = in_process(capsys, "key")
    assert (status, err) == (0, "")
    fingerprint = table_fingerprint(data)
    assert f"fingerprint: {fingerprint}\n" in out and str(data / SIGNING_KEY_FILE) in out
    status, out, _ = in_process(capsys, "key", "--public")
    assert status == 0 and parse_public_key(out).fingerprint == fingerprint
    assert table_signing_key(data) == load_signing_key(data / SIGNING_KEY_FILE)
    assert sorted(path.name for path in data.iterdir()) == [SIGNING_KEY_FILE]


# -- every field is named when changed ---------------------------------------------------------

def real_slip(tmp_path, seat=ROUND_3) -> dict:
    with Journal.open(tmp_path / "fields.db", table_name="table 9") as journal:
        return make_slip(journal, record(journal, seated(random_script(11), seat)), TABLE)


def changed(value):
    """Another value of a field's kind (an empty object or list, a field of its own: 1)."""
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, int) and not isinstance(value, bool):
        return value + 1
    return 1


def test_changing_any_field_of_a_real_slip_names_that_field(tmp_path):
    slip = real_slip(tmp_path)
    assert verify(slip, TABLE.public).valid
    body = {name: value for name, value in slip.items() if name != "signature"}
    paths = dict(fields(body))
    assert {"seat.round", "seat.table", "seat.tournament", "players[0].cash", "script_sha256",
            "rules_sha256", "finished"} <= set(paths)
    for path, value in paths.items():
        tampered = copy.deepcopy(slip)
        *through, last = _steps(path)
        target = tampered
        for step in through:
            target = target[step]
        target[last] = changed(value)
        assert verify(tampered, TABLE.public).problems == [f"field {path} was changed"], path


def _steps(path: str) -> list:
    """The keys that reach a field: ``players[1].cash`` is ['players', 1, 'cash'].

    >>> _steps("players[1].bonuses.Tower")
    ['players', 1, 'bonuses', 'Tower']
    """
    return [int(index) if index else name
            for name, index in re.findall(r"([^.\[\]]+)|\[(\d+)\]", path)]


@pytest.mark.parametrize("change, problem", [
    (lambda s: s["players"][1].update(cash=70000), "field players[1].cash was changed"),
    (lambda s: s["players"][1]["bonuses"].update(Luxor=1),
     "field players[1].bonuses.Luxor was added"),
    (lambda s: s["players"][0].pop("sales"), "field players[0].sales was removed"),
    (lambda s: s.pop("seat"), "field seat.tournament was removed"),
    (lambda s: s["seat"].update(round=2), "field seat.round was changed"),
    (lambda s: s["signature"].update(slip=s["signature"]["fields_signature"]),
     "the signature itself was changed"),
    (lambda s: s.update(table="\ud800"), "field table was changed"),
])
def test_a_tampered_slip_names_what_changed(change, problem):
    slip = sign({"slip": 2, "table": "t", "game": 4, "seat": ROUND_3, "players": [
        {"rank": 1, "name": "Ann", "cash": 9000, "bonuses": {"Tower": 3000}, "sales": {}},
        {"rank": 2, "name": "Bob", "cash": 7000, "bonuses": {}, "sales": {"Tower": 400}}]}, TABLE)
    tampered = copy.deepcopy(slip)
    change(tampered)
    verdict = verify(tampered, TABLE.public)
    assert not verdict.valid and verdict.problems[0] == problem, verdict.problems


def test_a_changed_fingerprint_hides_no_changed_field_and_a_rebuilt_signature_is_forged():
    slip = sign({"slip": 2, "game": 4, "players": [{"cash": 5}]}, TABLE)
    slip["players"][0]["cash"] = 500
    slip["signature"]["fingerprint"] = OTHER_TABLE.public.fingerprint
    assert verify(slip, TABLE.public).problems == ["field players[0].cash was changed"]
    # A forger who recomputes the field digests cannot sign them: not the table's.
    forged = sign({"slip": 2, "game": 4, "players": [{"cash": 500}]}, OTHER_TABLE)
    forged["signature"]["fingerprint"] = TABLE.public.fingerprint
    verdict = str(verify(forged, TABLE.public))
    assert "names this table's key" in verdict and "forged" in verdict


def test_a_slip_signed_by_another_table_fails(tmp_path, table, capsys):
    data, db, game = table
    other = tmp_path / "other-table"
    slip_path = tmp_path / "slip.json"
    assert tabletop("slip", game, "--journal", db, "--out", slip_path, data=data).returncode == 0
    other_key = tabletop("key", "--public", data=other).stdout
    status, out, _ = in_process(capsys, "verify", slip_path, "--public", other_key)
    assert status == 1
    assert out.startswith("invalid: the slip was signed by another table's key (fingerprint "
                          f"{table_fingerprint(data)}; this public key's is "
                          f"{table_fingerprint(other)})")


# -- the private key: private, whole, refused when damaged ------------------------------------

def damaged_ways(text: str) -> dict[str, str]:
    seed_at = text.index("private ") + len("private ")
    flipped = "0" if text[seed_at] != "0" else "1"
    return {"torn": text[:len(text) // 2], "empty": "", "seed flipped":
            text[:seed_at] + flipped + text[seed_at + 1:], "public line lost":
            "\n".join(line for line in text.splitlines() if not line.startswith("public"))}


def test_a_damaged_key_file_gets_a_clear_message_and_signs_nothing(tmp_path, table, capsys):
    data, db, game = table
    path = data / SIGNING_KEY_FILE
    whole = table_signing_key(data)
    text = path.read_text()
    out = tmp_path / "slip.json"
    for how, damaged in damaged_ways(text).items():
        path.write_text(damaged)
        status, printed, err = in_process(capsys, "slip", game, "--journal", db, "--out", out)
        assert status == 2 and printed == "", how
        assert err.startswith("tabletop: ") and err.count("\n") == 1, (how, err)
        assert "damaged" in err and str(path) in err, (how, err)
        assert "Traceback" not in err and not out.exists()
        status, _, err = in_process(capsys, "key", "--public")
        assert status == 2 and str(path) in err, how
    path.write_text(text)
    assert load_signing_key(path) == whole
    os.chmod(path, 0o644)
    status, _, err = in_process(capsys, "slip", game, "--journal", db)
    assert status == 2 and f"chmod 600 {path}" in err


def test_a_key_never_left_half_made(tmp_path, monkeypatch):
    import errno

    def failing(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", failing)
    with pytest.raises(SlipError, match="cannot create the table's key .*No space left"):
        table_signing_key(tmp_path / "data")
    monkeypatch.undo()
    assert list((tmp_path / "data").iterdir()) == []        # no torn key, no temporary file
    key = table_signing_key(tmp_path / "data")
    assert table_signing_key(tmp_path / "data") == key       # made once, then read
    assert stat.S_IMODE((tmp_path / "data" / SIGNING_KEY_FILE).stat().st_mode) == 0o600


def test_a_private_key_given_where_a_public_one_is_expected_is_refused(tmp_path, table, capsys):
    data, db, game = table
    slip_path = tmp_path / "slip.json"
    assert tabletop("slip", game, "--journal", db, "--out", slip_path, data=data).returncode == 0
    status, _, err = in_process(capsys, "verify", slip_path, "--public", data / SIGNING_KEY_FILE)
    assert status == 2 and "private signing key, which must not leave the table" in err


@pytest.mark.parametrize("given, said", [
    ("ed25519:AAAA", "32 bytes"),
    ("ed25519:not base64!", "is not one"),
    ("nothing.pub", "cannot read the public key nothing.pub"),
])
def test_a_bad_public_key_gets_a_clear_message(tmp_path, capsys, given, said, monkeypatch):
    monkeypatch.chdir(tmp_path)
    slip = tmp_path / "slip.json"
    slip.write_text(json.dumps(sign({"slip": 2, "game": 1}, TABLE)))
    status, out, err = in_process(capsys, "verify", slip, "--public", given)
    assert (status, out) == (2, "") and said in err and err.count("\n") == 1, err


def test_a_public_key_copied_wrong_is_caught_by_its_fingerprint():
    text = public_key_text(TABLE.public)
    assert parse_public_key(text) == TABLE.public
    wrong = text.replace(TABLE.public.fingerprint, OTHER_TABLE.public.fingerprint)
    with pytest.raises(SlipError, match="copied wrong"):
        parse_public_key(wrong)
    from cryptography.hazmat.primitives.asymmetric import ed25519
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    pem = ed25519.Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33))).public_key() \
        .public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo).decode()
    assert parse_public_key(pem) == TABLE.public                # what openssl gives works too


# -- old HMAC slips, and the wrong kind of key ---------------------------------------------

def test_an_old_hmac_slip_still_verifies_and_says_it_is_the_old_kind(tmp_path, table, capsys):
    data, db, game = table
    key = tmp_path / "slip.key"
    key.write_text(KEY.hex() + "\n")
    os.chmod(key, 0o600)
    old = tmp_path / "old.json"
    made = tabletop("slip", game, "--journal", db, "--out", old, "--key", key, data=data)
    assert made.returncode == 0, made.stderr
    slip = json.loads(old.read_text())
    assert (slip["slip"], slip["signature"]["algorithm"]) == (1, "HMAC-SHA256")
    assert not (data / SIGNING_KEY_FILE).exists()            # the old key signed it
    status, out, err = in_process(capsys, "verify", old, "--key", key)
    assert (status, out, err) == (0, OLD_VALID, "")
    assert verify(slip, KEY).old and str(verify(slip, KEY)) == "valid"
    public = public_key_text(TABLE.public)
    status, out, err = in_process(capsys, "verify", old, "--public", public)
    assert (status, out) == (2, "") and "old HMAC slip (format 1): a public key cannot check it" \
        in err and "Traceback" not in err


def test_an_ed25519_slip_checked_with_an_hmac_key_is_told_what_key_it_needs(tmp_path, capsys):
    key = tmp_path / "slip.key"
    key.write_text(KEY.hex() + "\n")
    os.chmod(key, 0o600)
    slip = tmp_path / "slip.json"
    slip.write_text(json.dumps(sign({"slip": 2, "game": 1}, TABLE)))
    status, out, err = in_process(capsys, "verify", slip, "--key", key)
    assert (status, out) == (2, "") and err.count("\n") == 1
    assert f"fingerprint is {TABLE.public.fingerprint}" in err and "--public KEY" in err
    status, _, err = in_process(capsys, "verify", slip, "--key", key, "--public", "x")
    assert status == 2 and "not both" in err
    assert "--public KEY" in str(verify(json.loads(slip.read_text()), KEY))   # the library too


def test_verify_on_a_machine_without_the_table_s_key_says_to_give_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TABLETOP_DATA", str(tmp_path / "empty"))
    monkeypatch.setenv("TABLETOP_CONFIG", str(tmp_path / "none.toml"))
    slip = tmp_path / "slip.json"
    slip.write_text(json.dumps(sign({"slip": 2, "game": 1}, TABLE)))
    status, _, err = in_process(capsys, "verify", slip)
    assert status == 2 and TABLE.public.fingerprint in err and "--public KEY" in err
    assert not (tmp_path / "empty").exists()


# -- the tournament round and table -------------------------------------------------------------

def test_a_slip_of_another_round_or_table_is_refused(tmp_path, table, capsys):
    data, db, game = table
    slip_path = tmp_path / "slip.json"
    assert tabletop("slip", game, "--journal", db, "--out", slip_path, data=data).returncode == 0
    public = tabletop("key", "--public", data=data).stdout
    check = ["verify", slip_path, "--public", public]
    assert in_process(capsys, *check, "--round", 3, "--table", 3)[:2] == (0, "valid\n")
    assert in_process(capsys, *check, "--round", 3, "--table", 3, "--tournament",
                      "Spring Open")[:2] == (0, "valid\n")
    status, out, _ = in_process(capsys, *check, "--round", 4, "--table", 3)
    assert (status, out) == (1, "refused: this slip is for round 3, table 3; expected round 4, "
                                "table 3\n")
    status, out, _ = in_process(capsys, *check, "--round", 3, "--table", 5)
    assert (status, out) == (1, "refused: this slip is for round 3, table 3; expected round 3, "
                                "table 5\n")
    status, out, _ = in_process(capsys, *check, "--round", 3, "--table", 3, "--tournament", "Cup")
    assert (status, out) == (1, "refused: this slip is for Spring Open, round 3, table 3; "
                                "expected Cup, round 3, table 3\n")
    status, _, err = in_process(capsys, *check, "--round", 3)
    assert status == 2 and "--round N and --table NAME are given together" in err
    status, _, err = in_process(capsys, *check, "--round", 0, "--table", 3)
    assert status == 2 and "whole number from 1" in err


def test_a_replayed_slip_with_its_round_edited_is_invalid_not_refused(tmp_path):
    slip = real_slip(tmp_path, {"round": 2, "table": "3"})
    expected = Seat(round=3, table="3")
    assert str(verify(slip, TABLE.public, expected)) == \
        "refused: this slip is for round 2, table 3; expected round 3, table 3"
    slip["seat"]["round"] = 3            # edited to pass as this round's: the signature says no
    verdict = verify(slip, TABLE.public, expected)
    assert verdict.problems == ["field seat.round was changed"] and verdict.refusal is None


def test_a_slip_of_a_game_set_up_for_no_tournament_names_no_seat(tmp_path):
    with Journal.open(tmp_path / "plain.db", table_name="table 9") as journal:
        slip = make_slip(journal, record(journal, random_script(11)), TABLE)
    assert "seat" not in slip and "Round" not in slip_text(slip)
    assert verify(slip, TABLE.public).valid
    assert seat_refusal(slip, Seat(3, "3")) == ("refused: this slip names no tournament round "
                                                "or table (its game was not set up for one); "
                                                "expected round 3, table 3")


def test_the_receipt_shows_the_tournament_round_and_table(tmp_path):
    slip = real_slip(tmp_path)
    lines = slip_text(slip).splitlines()
    assert "Tournament: Spring Open" in lines and all(width(line) <= 32 for line in lines)
    assert any(line.startswith("Round") and line.endswith(" 3") for line in lines)
    assert any(line.startswith("Tournament table") and line.endswith(" 3") for line in lines)


def test_a_setup_names_its_seat_or_is_refused(tmp_path):
    setup = {"setup": {"rules": "acquire", "players": ["Ann", "Bob"], "seat": ROUND_3}}
    assert game_from_setup(setup).names == ["Ann", "Bob"]      # the game itself ignores it
    with pytest.raises(ScriptError, match="seat must be a JSON object"):
        game_from_setup({"setup": {**setup["setup"], "seat": 3}})
    with pytest.raises(SlipError, match="set up with a seat that is not one"):
        real_slip(tmp_path, {"round": "three", "table": "3"})
    with pytest.raises(SlipError, match="whole number"):
        Seat(round=True, table="3")


# -- the QR code ---------------------------------------------------------------------------

def test_an_ed25519_slip_s_qr_text_verifies_and_still_fits_the_printer(tmp_path, table, capsys):
    from hardware.escpos import qr_bytes

    names = ["李小龍", "王大明", "Ann", "Bob", "Zoë", "Émilie"]     # six players: the largest
    with Journal.open(tmp_path / "six.db", table_name="table 9") as journal:
        slip = make_slip(journal, record(journal, seated(random_script(3, names))), TABLE)
    text = qr_payload(slip)
    assert len(text) < 1465 and qr_bytes(text)       # the most a 58 mm printer's code holds
    assert verify(slip_from_qr(text), TABLE.public).valid
    scanned = tmp_path / "scanned.txt"
    scanned.write_text(text + "\n")
    status, out, _ = in_process(capsys, "verify", scanned, "--public",
                                public_key_text(TABLE.public), "--round", 3, "--table", 3)
    assert (status, out) == (0, "valid\n")
    forged = read_slip(scanned)
    forged["players"][0]["cash"] += 1
    scanned.write_text(qr_payload(forged))
    status, out, _ = in_process(capsys, "verify", scanned, "--public",
                                public_key_text(TABLE.public))
    assert status == 1 and "compare it with the printed slip" in out


def test_without_cryptography_the_old_slips_still_verify_and_new_ones_say_what_to_install(
        monkeypatch):
    old = sign({"slip": 1, "game": 1}, KEY)
    monkeypatch.setitem(sys.modules, "cryptography.hazmat.primitives.asymmetric", None)
    assert verify(old, KEY).valid
    with pytest.raises(SlipError, match="pip install cryptography"):
        signing_key_from_seed(bytes(32))


def test_a_slip_refused_its_out_file_makes_no_key(tmp_path, table, capsys):
    data, db, game = table
    status, _, err = in_process(capsys, "slip", game, "--journal", db, "--out", db)
    assert status == 2 and "one of the table's own files" in err
    assert not data.exists()                  # not the data folder, not the table's key


def test_the_seat_stays_in_the_setup_line_through_undo_and_replay():
    from tabletop.engine.table_script import replay

    lines = seated(random_script(2))[:4] + ['{"do": "undo"}']
    game = replay(lines).game
    assert game.setup_json()["setup"]["seat"] == ROUND_3
    assert game.script()[0] == game.setup_json() and len(game.history) == 2
