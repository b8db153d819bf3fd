"""Score slips: contents, the old HMAC key, signatures, tampering, the 32-column receipt.

The slips here are signed with the old HMAC key (format 1, as tables signed them before
Ed25519), which must go on verifying; test_slip_ed25519.py tests today's slips."""

from __future__ import annotations

import copy
import json
import os
import stat
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from journal_writer import ROOT
from tabletop.engine.actions import parse_action
from tabletop.errors import SlipError
from tabletop.journal.journal import Journal
from tabletop.engine.table_script import game_from_setup
from tabletop.engine.random_play import play_random_game
from tabletop.journal.slip import (KEY_FILE, load_key, make_slip, qr_payload, read_slip, sign,
                                   slip_text, table_key, verify, width)

MERGER = (ROOT / "examples" / "merger.jsonl").read_text().splitlines()
KEY = bytes(range(32))
#: What `tabletop verify` prints for a valid old slip.
OLD_VALID = "valid (old HMAC slip: anyone with the table's key could have signed it)\n"


def random_script(seed: int, players=("Ann", "Bob", "Cy", "Di")) -> list[str]:
    return [json.dumps(x) for x in play_random_game("acquire", list(players), seed=seed).script()]


@pytest.fixture
def journal(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLETOP_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("TABLETOP_CONFIG", str(tmp_path / "none.toml"))
    with Journal.open(tmp_path / "journal.db", table_name="table 9") as journal:
        yield journal


def record(journal: Journal, lines: list[str]) -> int:
    table = journal.start(lines[0])
    for line in lines[1:]:
        table.push(line)
    return table.id


def test_a_slip_holds_the_result_with_bonuses_and_sales_by_chain(journal):
    lines = random_script(6)
    game_id = record(journal, lines)
    slip = make_slip(journal, game_id, KEY)
    info = journal.info(game_id)
    assert (slip["table"], slip["game"], slip["rules"]) == ("table 9", game_id, "acquire")
    assert (slip["started"], slip["finished"]) == (info.started, info.finished)
    assert slip["options"]["bonus_mode"] == "classic" and slip["actions"] == len(lines) - 1
    # Worked out here from the game's events, independently of the slip's code.
    game = game_from_setup(json.loads(lines[0]))
    bonuses, sales = defaultdict(lambda: defaultdict(int)), defaultdict(lambda: defaultdict(int))
    for line in lines[1:]:
        for event in game.push(parse_action(json.loads(line))):
            if event["event"] == "bonus":
                bonuses[event["player"]][event["chain"]] += event["amount"]
            elif event["event"] in ("disposed", "sold") and event["cash"]:
                sales[event["player"]][event["chain"]] += event["cash"]
    ranked = [(game.names[seat], rank, game.cash[seat]) for seat, rank in game.standings]
    assert [(p["name"], p["rank"], p["cash"]) for p in slip["players"]] == ranked
    for player in slip["players"]:
        assert player["bonuses"] == dict(bonuses[player["name"]])
        assert player["sales"] == dict(sales[player["name"]])
    assert str(verify(slip, KEY)) == "valid"


def test_an_unfinished_game_has_no_slip(journal):
    game_id = record(journal, MERGER)
    with pytest.raises(SlipError, match="not finished"):
        make_slip(journal, game_id, KEY)


def test_the_table_key_is_made_once_and_private(tmp_path):
    key = table_key(tmp_path / "data")
    path = tmp_path / "data" / KEY_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(key) == 32 and path.read_text().strip() == key.hex()
    assert table_key(tmp_path / "data") == key == load_key(path)
    os.chmod(path, 0o644)
    with pytest.raises(SlipError, match="chmod 600"):
        table_key(tmp_path / "data")
    (tmp_path / "bad.key").write_text("not hex\n")
    os.chmod(tmp_path / "bad.key", 0o600)
    with pytest.raises(SlipError, match="not a slip key"):
        load_key(tmp_path / "bad.key")


SLIP = {"table": "t", "game": 4, "options": {"bonus_mode": "classic"}, "players": [
    {"rank": 1, "name": "Ann", "cash": 9000, "bonuses": {"Tower": 3000}, "sales": {}},
    {"rank": 2, "name": "Bob", "cash": 7000, "bonuses": {}, "sales": {"Tower": 400}}]}


@pytest.mark.parametrize("change, problem", [
    (lambda s: s["players"][1].update(cash=70000), "field players[1].cash was changed"),
    (lambda s: s["players"][0]["bonuses"].update(Tower=30000), "field players[0].bonuses.Tower was changed"),
    (lambda s: s["options"].update(bonus_mode="tycoon"), "field options.bonus_mode was changed"),
    (lambda s: s.update(game=5), "field game was changed"),
    (lambda s: s["players"][1]["bonuses"].update(Luxor=1), "field players[1].bonuses.Luxor was added"),
    (lambda s: s["players"][0].pop("sales"), "field players[0].sales was removed"),
    (lambda s: s["players"].reverse(), "field players[0].rank was changed"),
    (lambda s: s["signature"].update(slip="0" * 64), "the signature itself was changed"),
    (lambda s: s["signature"].update(slip="é" * 64), "the signature itself was changed"),
    (lambda s: s.update(table="\ud800"), "field table was changed"),
])
def test_a_tampered_slip_is_rejected_with_the_field_named(change, problem):
    slip = sign(SLIP, KEY)
    assert verify(slip, KEY).valid
    tampered = copy.deepcopy(slip)
    change(tampered)
    verdict = verify(tampered, KEY)
    assert not verdict.valid
    assert verdict.problems[0] == problem


def test_a_slip_under_another_key_or_without_signature_is_rejected():
    slip = sign(SLIP, KEY)
    assert "signed with another key" in str(verify(slip, bytes(32)))
    del slip["signature"]
    assert str(verify(slip, KEY)) == "invalid: the slip has no signature (or its signature block is malformed)"


def test_the_receipt_fits_32_columns(journal):
    names = ["Annemarie-Louise Feather", "李小龍", "Bob", "Cy"]
    game_id = record(journal, random_script(2, names))
    slip = make_slip(journal, game_id, KEY)
    text = slip_text(slip)
    lines = text.splitlines()
    assert all(width(line) <= 32 for line in lines), [line for line in lines if width(line) > 32]
    assert max(len(line) for line in lines) == 32
    assert "李小龍" in text and slip["signature"]["slip"][:32] in lines
    for player in slip["players"]:
        amount = f"${player['cash']:,}"
        assert any(line.endswith(amount) for line in lines)
    assert "Annemarie-Louise" in text and "Feather" in text
    assert all(width(line) <= 24 for line in slip_text(slip, columns=24).splitlines())


def test_old_slips_made_and_verified_with_an_hmac_key_from_the_command_line(tmp_path, journal):
    game_id = record(journal, random_script(4))
    journal.close()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = tmp_path / "slip.json"

    def run(*args):
        return subprocess.run([sys.executable, "-m", "tabletop", *map(str, args)], capture_output=True,
                              text=True, env=env, cwd=ROOT, timeout=120)

    key = table_key(tmp_path / "old-table")          # the old code path: slip.key, made once
    key_path = tmp_path / "old-table" / KEY_FILE
    made = run("slip", game_id, "--journal", tmp_path / "journal.db", "--out", out, "--text",
               "--key", key_path)
    assert made.returncode == 0, made.stderr
    assert "SCORE SLIP" in made.stdout and all(len(x) <= 32 for x in made.stdout.splitlines())
    assert f"HMAC-SHA256 key {json.loads(out.read_text())['signature']['key_id']}" in made.stdout
    assert json.loads(out.read_text())["slip"] == 1 and len(key) == 32
    checked = run("verify", out, "--key", key_path)
    assert (checked.returncode, checked.stdout) == (0, OLD_VALID)
    slip = json.loads(out.read_text())
    slip["players"][1]["cash"] += 1000
    out.write_text(json.dumps(slip))
    checked = run("verify", out, "--key", key_path)
    assert (checked.returncode, checked.stdout) == (1, "invalid: field players[1].cash was changed\n")
    (tmp_path / "other.key").write_text("ab" * 32)
    os.chmod(tmp_path / "other.key", 0o600)
    checked = run("verify", out, "--key", tmp_path / "other.key")
    assert checked.returncode == 1 and "another key" in checked.stdout
    out.write_text("{not json")
    checked = run("verify", out, "--key", key_path)
    assert checked.returncode == 2 and "is not a slip" in checked.stderr
    checked = run("verify", tmp_path / "missing.json", "--key", key_path)
    assert checked.returncode == 2 and "cannot read" in checked.stderr


# -- attacks (issue 22): what a player can hand to `tabletop verify` -------------------------

def verify_cli(tmp_path, slip_path, key_path, stdin=None, timeout=60):
    env = dict(os.environ, PYTHONPATH=str(ROOT), TABLETOP_CONFIG=str(tmp_path / "none.toml"),
               TABLETOP_DATA=str(tmp_path / "data"))
    return subprocess.run([sys.executable, "-m", "tabletop", "verify", str(slip_path), "--key",
                           str(key_path)], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=timeout, input=stdin)


@pytest.fixture
def key_file(tmp_path):
    path = tmp_path / "table.key"
    path.write_text(KEY.hex() + "\n")
    os.chmod(path, 0o600)
    return path


@pytest.mark.parametrize("content, said", [
    ('{"game": ' + "7" * 5000 + "}", "thousands of digits"),
    ("[" * 100_000 + "]" * 100_000, "nested deeper"),
    ('{"a":' * 500 + "1" + "}" * 500, "nested deeper"),
    ('{"game": NaN}', "NaN"),
    ("\xff\xfe not text", "not UTF-8"),
], ids=["5000 digits", "100000 brackets", "500 objects", "NaN", "not UTF-8"])   # short: the id
# goes into $PYTEST_CURRENT_TEST, which a 200,000-character id makes too large to start a command
def test_verify_refuses_a_monstrous_slip_with_a_message(tmp_path, key_file, content, said):
    slip = tmp_path / "slip.json"
    slip.write_bytes(content.encode("latin-1") if content.startswith("\xff") else content.encode())
    done = verify_cli(tmp_path, slip, key_file)
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_verify_refuses_a_fifo_at_once_instead_of_hanging(tmp_path, key_file):
    fifo = tmp_path / "slip.json"
    os.mkfifo(fifo)
    done = verify_cli(tmp_path, fifo, key_file, timeout=30)   # hung for ever before
    assert done.returncode == 2 and "not a regular file" in done.stderr, done.stderr
    os.mkfifo(tmp_path / "key.fifo")
    done = verify_cli(tmp_path, fifo, tmp_path / "key.fifo", timeout=30)
    assert done.returncode == 2 and "not a regular file" in done.stderr, done.stderr


def test_a_huge_slip_is_refused_without_being_read_whole(tmp_path, key_file):
    slip = tmp_path / "slip.json"
    with open(slip, "wb") as handle:
        handle.truncate(100 << 20)   # 100 MB (sparse)
    done = verify_cli(tmp_path, slip, key_file)
    assert done.returncode == 2 and "too large" in done.stderr
    assert len(done.stderr) < 300


def test_a_key_given_with_key_must_be_private_too(tmp_path, key_file):
    slip = tmp_path / "slip.json"
    slip.write_text(json.dumps(sign(SLIP, KEY)))
    os.chmod(key_file, 0o644)
    done = verify_cli(tmp_path, slip, key_file)
    assert done.returncode == 2 and f"chmod 600 {key_file}" in done.stderr
    os.chmod(key_file, 0o600)
    assert verify_cli(tmp_path, slip, key_file).stdout == OLD_VALID


def test_a_slip_whose_signed_fields_were_emptied_says_so(tmp_path, key_file):
    slip = sign(SLIP, KEY)
    slip["signature"]["fields"] = {}
    slip["players"][1]["cash"] = 70000
    path = tmp_path / "slip.json"
    path.write_text(json.dumps(slip))
    done = verify_cli(tmp_path, path, key_file)
    assert done.returncode == 1
    # It said "signed with another key (key id 373b7a1b; this key's id is 373b7a1b)".
    assert "another key" not in done.stdout
    assert done.stdout == ("invalid: the slip's signed fields were removed from its signature, "
                           "and a field's value was changed (the slip was signed with this key)\n")
    del slip["signature"]["field_list"]
    verdict = str(verify(slip, KEY))
    assert "signed fields were removed" in verdict and "names this key" in verdict


def test_a_replaced_signature_naming_this_key_is_not_called_another_key():
    slip = sign(SLIP, bytes(32))
    slip["signature"]["key_id"] = sign(SLIP, KEY)["signature"]["key_id"]
    verdict = str(verify(slip, KEY))
    assert "another key" not in verdict and "replaced or forged" in verdict


def test_the_qr_code_text_verifies_from_a_file_and_from_standard_input(tmp_path, key_file):
    signed = sign({**SLIP, "players": [{**SLIP["players"][0], "name": "李小龍", "seat": 2}]}, KEY)
    text = qr_payload(signed)
    scanned = tmp_path / "scanned.txt"
    scanned.write_text(text + "\r\n")   # what a scanner types, line end included
    assert read_slip(scanned)["players"][0]["name"] == "李小龍"
    done = verify_cli(tmp_path, scanned, key_file)
    assert (done.returncode, done.stdout) == (0, OLD_VALID), done.stderr
    done = verify_cli(tmp_path, "-", key_file, stdin=text)
    assert (done.returncode, done.stdout) == (0, OLD_VALID), done.stderr
    forged = dict(json.loads(json.dumps(read_slip(scanned))))
    forged["players"][0]["cash"] += 1
    scanned.write_text(qr_payload({**forged, "signature": signed["signature"]}))
    done = verify_cli(tmp_path, scanned, key_file)
    assert done.returncode == 1 and "does not match its signature" in done.stdout
    scanned.write_text(text[:-5])
    done = verify_cli(tmp_path, scanned, key_file)
    assert done.returncode == 2 and "damaged" in done.stderr and "Traceback" not in done.stderr


def test_the_printed_qr_code_text_reads_back_typed_line_by_line(tmp_path, journal):
    game_id = record(journal, random_script(3, ["李小龍", "王大明", "Ann", "Bob"]))
    slip = make_slip(journal, game_id, KEY)
    lines = slip_text(slip, qr_text=True).splitlines()
    assert all(width(line) <= 32 for line in lines)
    start = lines.index("QR code text:") + 1
    typed = tmp_path / "typed.txt"
    typed.write_text("\n".join(lines[start:-1]) + "\n")
    assert read_slip(typed) == json.loads(json.dumps({**slip, "signature": {
        k: slip["signature"][k] for k in ("algorithm", "key_id", "slip")}}))
    assert verify(read_slip(typed), KEY).valid
    # A 6-player slip's QR code still fits a 58 mm printer's head (level L at worst).
    from hardware.escpos import qr_bytes
    assert qr_bytes(qr_payload(slip))


def test_the_receipt_tells_cjk_players_apart_by_seat_and_aligns_by_width(journal):
    game_id = record(journal, random_script(5, ["李小龍", "王大明", "Ann", "Bob"]))
    slip = make_slip(journal, game_id, KEY)
    lines = slip_text(slip).splitlines()
    rows = {p["name"]: next(line for line in lines if line.startswith(f"{p['rank']}. {p['name']}"))
            for p in slip["players"]}
    seats = {p["name"]: p["seat"] for p in slip["players"]}
    for name, row in rows.items():
        assert f"(seat {seats[name]})" in row and width(row) == 32, row
    from hardware.escpos import wrap_text
    printed = wrap_text("\n".join(rows.values()), 32)   # a printer without a Chinese font
    assert len(set(printed)) == 4 and all(len(line) == 32 for line in printed)


@pytest.mark.parametrize("columns", [1, 2, 3, 24])
def test_slip_text_never_loops_whatever_the_columns(columns):
    import threading

    slip = sign({**SLIP, "players": [{**SLIP["players"][0], "name": "李小龍王大明"}]}, KEY)
    outcome = []

    def make():
        try:
            outcome.append(slip_text(slip, columns))
        except SlipError as error:
            outcome.append(error)

    worker = threading.Thread(target=make, daemon=True)
    worker.start()
    worker.join(10)   # columns=1 looped for ever on a wide character
    assert outcome, "slip_text did not return"
    if columns < 16:
        assert isinstance(outcome[0], SlipError) and "columns" in str(outcome[0])
    else:
        assert all(width(line) <= columns for line in outcome[0].splitlines())
