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
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".webp")
#: A photo larger than this is refused before it is decoded (a phone's is a few MB).
MAX_PHOTO_BYTES = 40 * 1024 * 1024


def is_photo(path: str) -> bool:
    return Path(path).suffix.lower() in IMAGE_SUFFIXES


def read_qr_photo(path: str) -> bytes:
    """The text of the QR code in the picture at ``path``; SlipError if none can be read."""
    import cv2
    import numpy as np

    from tabletop.journal.slip import read_regular

    raw = read_regular(path, MAX_PHOTO_BYTES, "the photo")
    image = cv2.imdecode(np.frombuffer(raw, np.uint8), cv2.IMREAD_GRAYSCALE)
    if image is None:
        raise SlipError(f"{path} is not a picture OpenCV can read (PNG or JPEG)")
    for detector in (cv2.QRCodeDetectorAruco(), cv2.QRCodeDetector()):
        for scale in (1.0, 0.5, 2.0):
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
