"""A paper slip checked from a photo of its QR code: `tabletop verify PHOTO` in a subprocess.

The code is drawn as the receipt printer prints it (black modules on white paper,
a quiet zone); the "photo" is that picture turned a little, blurred and on grey,
saved as a JPEG, as a phone would give it.
"""

from __future__ import annotations

import json

import cv2
import numpy as np

from journal.test_slip import KEY, OLD_VALID, SLIP, key_file, verify_cli  # noqa: F401 - key_file: a fixture
from tabletop.journal.slip import qr_payload, sign

SIGNED = sign({**SLIP, "players": [{**SLIP["players"][0], "name": "李小龍", "seat": 2}]}, KEY)


def printed_code(text: str, module: int = 6) -> np.ndarray:
    """The QR code as the printer lays it on the paper, with its quiet zone."""
    code = cv2.QRCodeEncoder.create().encode(text)
    code = cv2.resize(code, None, fx=module, fy=module, interpolation=cv2.INTER_NEAREST)
    return cv2.copyMakeBorder(code, 60, 60, 60, 60, cv2.BORDER_CONSTANT, value=255)


def photographed(paper: np.ndarray) -> np.ndarray:
    """The paper turned 4 degrees on a grey table, slightly out of focus, in warm light."""
    height, width = paper.shape
    turn = cv2.getRotationMatrix2D((width / 2, height / 2), 4, 0.9)
    photo = cv2.warpAffine(paper, turn, (width, height), borderValue=120)
    photo = cv2.GaussianBlur(photo, (3, 3), 0)
    colour = cv2.cvtColor(photo, cv2.COLOR_GRAY2BGR).astype(np.float32)
    return np.clip(colour * (0.95, 0.9, 1.0) + 8, 0, 255).astype(np.uint8)


def test_a_photo_of_the_slip_s_code_verifies(tmp_path, key_file):
    photo = tmp_path / "slip.jpg"
    cv2.imwrite(str(photo), photographed(printed_code(qr_payload(SIGNED))),
                [cv2.IMWRITE_JPEG_QUALITY, 85])
    done = verify_cli(tmp_path, photo, key_file)
    assert (done.returncode, done.stdout) == (0, OLD_VALID), done.stderr   # an old HMAC slip


def test_a_photo_of_a_forged_slip_s_code_is_invalid(tmp_path, key_file):
    forged = json.loads(json.dumps(SIGNED))
    forged["players"][0]["cash"] += 1000
    scan = tmp_path / "scan.png"
    cv2.imwrite(str(scan), printed_code(qr_payload(forged)))
    done = verify_cli(tmp_path, scan, key_file)
    assert done.returncode == 1 and done.stdout.startswith("invalid"), (done.stdout, done.stderr)


def test_a_photo_without_a_code_gets_advice_not_a_traceback(tmp_path, key_file):
    blank, broken = tmp_path / "table.png", tmp_path / "half.jpg"
    cv2.imwrite(str(blank), np.full((400, 600, 3), 200, np.uint8))
    broken.write_bytes(b"\xff\xd8\xff\xe0 not really a JPEG")
    for photo, said in ((blank, "no QR code could be read"), (broken, "not a picture")):
        done = verify_cli(tmp_path, photo, key_file)
        assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr


def test_a_small_file_holding_a_huge_picture_is_refused_before_it_is_decoded(tmp_path, key_file):
    bomb = tmp_path / "bomb.png"          # 20,000 x 20,000 blank: a few hundred KB, 400 MB decoded
    cv2.imwrite(str(bomb), np.zeros((20_000, 20_000), np.uint8))
    assert bomb.stat().st_size < 2_000_000
    done = verify_cli(tmp_path, bomb, key_file, timeout=20)
    assert done.returncode == 2 and "too large a picture (20000x20000" in done.stderr


def test_the_picture_s_size_is_read_from_a_jpeg_header_too():
    from tabletop.assembly.qr_photo import picture_size

    ok, jpeg = cv2.imencode(".jpg", np.zeros((123, 456, 3), np.uint8))
    assert ok and picture_size(jpeg.tobytes()) == (456, 123)
    assert picture_size(b"\xff\xd8\xff") is None and picture_size(b"GIF89a") is None
