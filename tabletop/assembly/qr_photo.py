"""A score slip's QR code read from a photo or a scan (PNG, JPEG), for ``tabletop verify``.

The printed slip carries the signed slip itself as a QR code
(:func:`tabletop.journal.slip.qr_payload`); a director photographs it and
verifies the photo. OpenCV reads the code: its ArUco-based detector first
(the sturdier on photos), then the classic one, each at a few sizes.
"""

from __future__ import annotations

from pathlib import Path

from tabletop.errors import SlipError

#: What ``verify`` takes for a photo rather than a slip's text.
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")
#: A photo larger than this is refused before it is decoded (a phone's is a few MB).
MAX_PHOTO_BYTES = 40 * 1024 * 1024
#: ... and one of more pixels than this (a small file can hold a huge blank picture).
MAX_PIXELS = 50_000_000
#: The longest side the code is looked for at: a phone's photo is shrunk to it first.
LOOK_AT = 2000


def is_photo(path: str) -> bool:
    return Path(path).suffix.lower() in IMAGE_SUFFIXES


def read_qr_photo(path: str) -> bytes:
    """The text of the QR code in the picture at ``path``; SlipError if none can be read."""
    import cv2
    import numpy as np

    from tabletop.journal.slip import read_regular

    raw = read_regular(path, MAX_PHOTO_BYTES, "the photo")
    size = picture_size(raw)
    if size is None:
        raise SlipError(f"{path} is not a picture OpenCV can read (PNG or JPEG)")
    if size[0] * size[1] > MAX_PIXELS:
        raise SlipError(f"{path} is too large a picture ({size[0]}x{size[1]} pixels; at most "
                        f"{MAX_PIXELS // 1_000_000} million): photograph the slip's code alone")
    level = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)   # our message says more
    try:
        image = cv2.imdecode(np.frombuffer(raw, np.uint8), cv2.IMREAD_GRAYSCALE)
    finally:
        cv2.utils.logging.setLogLevel(level)
    if image is None:
        raise SlipError(f"{path} is not a picture OpenCV can read (PNG or JPEG)")
    longest = max(image.shape)
    scales = (LOOK_AT / longest, LOOK_AT / 2 / longest) if longest > LOOK_AT else (1.0, 0.5, 2.0)
    for detector in (cv2.QRCodeDetectorAruco(), cv2.QRCodeDetector()):
        for scale in scales:
            sized = image if scale == 1.0 else cv2.resize(image, None, fx=scale, fy=scale,
                                                           interpolation=cv2.INTER_AREA)
            try:
                text, _, _ = detector.detectAndDecode(sized)
            except cv2.error:
                continue
            if text:
                return text.encode("utf-8")
    raise SlipError(f"no QR code could be read in {path}: photograph the slip's code straight "
                    f"on, filling most of the picture, in good light")


def picture_size(raw: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG's or a JPEG's header, before anything is decoded.

    >>> picture_size(b"\\x89PNG\\r\\n\\x1a\\n" + bytes(4) + b"IHDR" + (640).to_bytes(4, "big") + (480).to_bytes(4, "big"))
    (640, 480)
    """
    if raw.startswith(b"\x89PNG\r\n\x1a\n") and raw[12:16] == b"IHDR" and len(raw) >= 24:
        return int.from_bytes(raw[16:20], "big"), int.from_bytes(raw[20:24], "big")
    if not raw.startswith(b"\xff\xd8"):
        return None
    at = 2
    while at + 9 <= len(raw):
        if raw[at] != 0xFF:
            return None
        marker, length = raw[at + 1], int.from_bytes(raw[at + 2:at + 4], "big")
        # Start-of-frame markers hold the size (not DHT C4, JPG C8, DAC CC).
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return int.from_bytes(raw[at + 7:at + 9], "big"), int.from_bytes(raw[at + 5:at + 7], "big")
        at += 2 + length
    return None
