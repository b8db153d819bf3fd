"""The bytes of a receipt: ESC/POS text in code page 437, Chinese mode, QR codes, the cut.

Pure functions, no port: :class:`hardware.printer.ReceiptPrinter` sends what
:func:`slip_bytes` makes.

Text is encoded as code page 437 (PC437, the table ``ESC @`` selects on
virtually every ESC/POS printer): ASCII plus the common accented letters, so
"Zoë" prints as it should. Any character that code page lacks, and any control
character, becomes ``?``. Wide East Asian characters (李小龍) take two columns:
a printer with a Chinese font prints them in its Chinese mode (``FS &`` ...
``FS .``) in the double-byte encoding its font is set to (``cjk="gb18030"`` or
``"big5"``); without one each becomes ``??``, so that columns stay aligned.
Wrapping to 32 columns is exact either way. QR data is sent as UTF-8.

A QR code goes out in one of two ways (:data:`QR_MODES`): ``"native"``, the
printer's own ``GS ( k`` command, a few bytes, which many cheap printers lack
(they print nothing, or the command's bytes as junk); or ``"image"``, the code
drawn here (with segno, the ``hardware`` extra) and sent as a raster bit image
(``GS v 0``), which virtually every ESC/POS printer prints, at the cost of about
20 kB for a score slip (20 s at 9600 baud; nothing on USB).
"""

from __future__ import annotations

import codecs
import importlib.util
import re
import textwrap
import unicodedata

ENCODING = "cp437"
ESC_INIT = b"\x1b@"  # ESC @: initialize printer
QR_MAX_BYTES = 2331  # model 2, version 40, error correction M, byte mode
QR_MAX_DOTS = 384  # print width of a 58 mm head (48 mm at 8 dots/mm)
QR_MIN_MODULE = 3  # smallest module size qr_bytes falls back to (dots per module)
#: Byte-mode data capacity of QR versions 1..40 at error correction level M.
QR_CAPACITY_M = (
    14, 26, 42, 62, 84, 106, 122, 152, 180, 213, 251, 287, 331, 362, 412, 450,
    504, 560, 624, 666, 711, 779, 857, 911, 997, 1059, 1125, 1190, 1264, 1370,
    1452, 1538, 1628, 1722, 1809, 1911, 1989, 2099, 2213, 2331)
#: Byte-mode data capacity at error correction level L, which a code too big for
#: level M on the paper falls back to (7% of it may be lost instead of 15%).
QR_CAPACITY_L = (
    17, 32, 53, 78, 106, 134, 154, 192, 230, 271, 321, 367, 425, 458, 520, 586,
    644, 718, 792, 858, 929, 1003, 1091, 1171, 1273, 1367, 1465, 1528, 1628, 1732,
    1840, 1952, 2068, 2188, 2303, 2431, 2563, 2699, 2809, 2953)
_QR_LEVELS = {"M": (QR_CAPACITY_M, 0x31), "L": (QR_CAPACITY_L, 0x30)}
_GS_K = b"\x1d(k"  # GS ( k: 2D code functions
_GS_V0 = b"\x1dv0\x00"  # GS v 0, m = 0: raster bit image, normal size
_ESC_J = b"\x1bJ"  # ESC J n: print and feed n dots
QR_QUIET = 4  # modules of white above and below a code (the paper's margins do the sides)
#: Rows per GS v 0 command: each stays within the receive buffer of a small printer (6 kB).
RASTER_BAND = 128
QR_MODES = ("native", "image")
CJK_ON, CJK_OFF = b"\x1c&", b"\x1c."  # FS &, FS .: Chinese (Kanji) character mode
#: The double-byte encodings of the printers' Chinese fonts (the font itself is a printer
#: setting; ESC/POS cannot choose it).
CJK_ENCODINGS = ("gb18030", "gbk", "gb2312", "big5")



def _printable(ch: str, cjk: str | None = None) -> str:
    """One character as the printer will show it: itself, or ``?`` (``??`` if wide)."""
    wide = unicodedata.east_asian_width(ch) in "WF"
    if unicodedata.category(ch) in ("Cc", "Cf", "Cs"):
        return "?"
    if wide:
        return ch if cjk is not None and _cjk_bytes(ch, cjk) is not None else "??"
    try:
        ch.encode(ENCODING)
    except UnicodeEncodeError:
        return "?"
    return ch


def _cjk_bytes(ch: str, cjk: str) -> bytes | None:
    """A wide character in the printer's double-byte encoding; None if it has no two bytes."""
    try:
        code = ch.encode(cjk)
    except UnicodeEncodeError:
        return None
    return code if len(code) == 2 else None   # GB18030's four-byte forms: no printer font


def _width(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def wrap_text(text: str, columns: int = 32, cjk: str | None = None) -> list[str]:
    """Split ``text`` into printable lines of at most ``columns`` columns.

    Long lines wrap at spaces (words longer than a line are cut); short lines,
    blank lines and inner spacing are kept as written. A wide character takes
    two columns (see the module docstring for ``cjk``).

    >>> wrap_text("Tower  7 tiles  $700\\nthe quick brown fox jumps", 12)
    ['Tower  7', 'tiles  $700', 'the quick', 'brown fox', 'jumps']
    >>> wrap_text("1. 李小龍  $9", 13), wrap_text("1. 李小龍  $9", 13, cjk="big5")
    (['1. ??????  $9'], ['1. 李小龍  $9'])
    """
    if columns < 2:
        raise ValueError("columns must be at least 2")
    text = unicodedata.normalize("NFC", text).expandtabs(4)
    lines: list[str] = []
    for raw in text.splitlines():
        line = "".join(_printable(ch, cjk) for ch in raw.rstrip())
        if _width(line) <= columns:
            lines.append(line)
        elif len(line) == _width(line):
            lines.extend(textwrap.wrap(line, columns, break_on_hyphens=False))
        else:
            lines.extend(_wrap_wide(line, columns))
    return lines


def _wrap_wide(line: str, columns: int) -> list[str]:
    """:func:`textwrap.wrap` by display width: at spaces (inner spacing kept), cutting
    words wider than a line.

    >>> _wrap_wide("李小龍  $9,000 x", 9)
    ['李小龍', '$9,000 x']
    """
    lines, current = [], ""
    for word, spaces in zip(*[iter(re.split(r"( +)", line) + [""])] * 2):
        if not word:
            current += spaces if current else ""
            continue
        if _width(current + word) <= columns:
            current += word + spaces
            continue
        if current.strip():
            lines.append(current.rstrip())
        while _width(word) > columns:
            cut, used = 0, 0
            while used + _width(word[cut]) <= columns:
                used += _width(word[cut])
                cut += 1
            lines.append(word[:cut])
            word = word[cut:]
        current = word + spaces
    return lines + ([current.rstrip()] if current.strip() else [])


def encode_line(line: str, cjk: str | None = None) -> bytes:
    """One printable line's bytes: code page 437, wide characters in the Chinese mode.

    >>> encode_line("Zoë 李", "big5")
    b'Zo\\x89 \\x1c&\\xa7\\xf5\\x1c.'
    """
    out, run = bytearray(), bytearray()
    for ch in line:
        code = _cjk_bytes(ch, cjk) if cjk is not None and _width(ch) == 2 else None
        if code is not None:
            run += code
            continue
        if run:
            out += CJK_ON + run + CJK_OFF
            run.clear()
        out += ch.encode(ENCODING, "replace")
    if run:
        out += CJK_ON + run + CJK_OFF
    return bytes(out)


def qr_version(nbytes: int, level: str = "M") -> int:
    """The smallest QR version (1..40) holding ``nbytes`` bytes in byte mode at ``level``.

    The printer may pick a denser mode for digits or capitals; byte mode is the
    upper bound. A version-``v`` code is ``17 + 4 * v`` modules wide.

    >>> qr_version(14), qr_version(15), qr_version(251), qr_version(252), qr_version(252, "L")
    (1, 2, 11, 12, 10)
    """
    capacities = _QR_LEVELS[level][0]
    for version, capacity in enumerate(capacities, start=1):
        if nbytes <= capacity:
            return version
    raise ValueError(f"QR data too long: {nbytes} bytes (max {capacities[-1]})")


def qr_bytes(data: str, module_size: int = 6, *, max_dots: int = QR_MAX_DOTS) -> bytes:
    """The GS ( k sequence that prints ``data`` as a QR code (model 2, level M or L).

    Functions 165 (model 2), 167 (module size), 169 (error correction),
    180 (store the data) and 181 (print it).

    A printer silently skips a code wider than its head, so the width
    ``(17 + 4 * version) * module_size`` must be at most ``max_dots`` (384 on
    a 58 mm printer): the module size is reduced, down to
    :data:`QR_MIN_MODULE`, until the code fits. Data that fits at no such size
    at error correction M is coded at L (more data, less redundancy: a signed
    score slip needs it); data that fits at neither (more than 1465 bytes on
    58 mm) raises ValueError naming the limit.

    >>> qr_bytes("A")[-8:]  # fn 181: GS ( k 3 0 49 81 48
    b'\\x1d(k\\x03\\x001Q0'
    """
    payload = data.encode("utf-8")
    smallest = _smallest_module(module_size)
    for level in _QR_LEVELS:
        if len(payload) > _QR_LEVELS[level][0][-1]:
            continue
        modules = 17 + 4 * qr_version(len(payload), level)
        if modules * smallest <= max_dots:
            break
    else:
        raise ValueError(_too_long(len(payload), smallest, max_dots))
    module_size = _shrunk(module_size, smallest, modules, max_dots)
    n = len(payload) + 3
    return b"".join([
        _GS_K, b"\x04\x00\x31\x41\x32\x00",  # fn 165: model 2
        _GS_K, b"\x03\x00\x31\x43", bytes([module_size]),  # fn 167: module size
        _GS_K, b"\x03\x00\x31\x45", bytes([_QR_LEVELS[level][1]]),  # fn 169: M (49) or L (48)
        _GS_K, bytes([n & 0xFF, n >> 8]), b"\x31\x50\x30", payload,  # fn 180: store
        _GS_K, b"\x03\x00\x31\x51\x30",  # fn 181: print
    ])


def _smallest_module(module_size: int) -> int:
    if not 1 <= module_size <= 16:
        raise ValueError("QR module size must be 1..16")
    return min(module_size, QR_MIN_MODULE)


def _shrunk(module_size: int, smallest: int, modules: int, max_dots: int) -> int:
    """The largest module size up to ``module_size`` at which ``modules`` fit ``max_dots``."""
    while module_size > smallest and modules * module_size > max_dots:
        module_size -= 1
    return module_size


def _too_long(nbytes: int, smallest: int, max_dots: int) -> str:
    fits = [c for v, c in enumerate(QR_CAPACITY_L, 1) if (17 + 4 * v) * smallest <= max_dots]
    limit = fits[-1] if fits else 0
    return (f"QR data too long to print: {nbytes} bytes make a code wider than "
            f"{max_dots} dots at module size {smallest} (at most {limit} bytes fit)")


def qr_matrix(data: str, module_size: int = 6, *,
              max_dots: int = QR_MAX_DOTS) -> tuple[tuple[tuple[int, ...], ...], int]:
    """The modules of ``data``'s QR code (rows of 1 = dark, no quiet zone) and the dots
    per module, chosen as :func:`qr_bytes` chooses them: level M (or higher, where that
    costs no size), else L; the module size reduced until the code fits ``max_dots``.

    Made by segno (pure Python, the ``hardware`` extra), from the UTF-8 bytes of ``data``.

    >>> matrix, size = qr_matrix("A")
    >>> len(matrix), len(matrix[0]), size, matrix[0][:8]
    (21, 21, 6, (1, 1, 1, 1, 1, 1, 1, 0))
    """
    try:
        import segno  # only the image mode needs it: the native mode works without
    except ImportError:
        raise ValueError("printing the QR code as an image needs segno "
                         "(pip install segno, or the hardware extra)") from None
    payload = data.encode("utf-8")
    smallest = _smallest_module(module_size)
    for level in _QR_LEVELS:
        try:
            code = segno.make_qr(payload, error=level)
        except segno.DataOverflowError:
            continue
        modules = code.symbol_size(border=0)[0]
        if modules * smallest <= max_dots:
            break
    else:
        raise ValueError(_too_long(len(payload), smallest, max_dots))
    matrix = tuple(tuple(row) for row in code.matrix_iter(scale=1, border=0))
    return matrix, _shrunk(module_size, smallest, modules, max_dots)


def qr_image_available() -> bool:
    """Whether :func:`qr_matrix` can draw codes (segno is installed)."""
    return importlib.util.find_spec("segno") is not None


def raster_bytes(rows: list[bytes], band: int = RASTER_BAND) -> bytes:
    """``GS v 0`` commands printing ``rows`` (each packed, leftmost dot in the high bit,
    1 = black, all one width), at most ``band`` rows per command.

    >>> raster_bytes([b"\\x80", b"\\x01"])  # x = 1 byte, y = 2 rows
    b'\\x1dv0\\x00\\x01\\x00\\x02\\x00\\x80\\x01'
    """
    width = len(rows[0]) if rows else 0
    if any(len(row) != width for row in rows):
        raise ValueError("raster rows must all be one width")
    out = bytearray()
    for top in range(0, len(rows), band):
        part = rows[top:top + band]
        out += _GS_V0 + bytes([width & 0xFF, width >> 8, len(part) & 0xFF, len(part) >> 8])
        out += b"".join(part)
    return bytes(out)


def qr_image_bytes(data: str, module_size: int = 6, *, max_dots: int = QR_MAX_DOTS) -> bytes:
    """``data``'s QR code as a raster bit image, centred on a ``max_dots`` wide head:
    ``ESC J`` (a quiet zone of :data:`QR_QUIET` modules), :func:`raster_bytes`, ``ESC J``.

    Each row is packed only as far as the code's right edge; the white on its left
    centres it whatever ``ESC a`` says. ValueError as :func:`qr_bytes`.

    >>> image = qr_image_bytes("A")  # 21 modules of 6 dots, 129 dots in from the left
    >>> image[:3], image[3:7], list(image[7:11]), len(image)  # rows of 32 bytes, 126 of them
    (b'\\x1bJ\\x18', b'\\x1dv0\\x00', [32, 0, 126, 0], 4046)
    """
    matrix, size = qr_matrix(data, module_size, max_dots=max_dots)
    width = len(matrix) * size
    left = (max_dots - width) // 2
    nbytes = (left + width + 7) // 8
    dark = (1 << size) - 1
    rows = []
    for line in matrix:
        bits = 0
        for module in line:
            bits = bits << size | (dark if module else 0)
        rows += [(bits << (8 * nbytes - left - width)).to_bytes(nbytes, "big")] * size
    quiet = _ESC_J + bytes([QR_QUIET * size])
    return quiet + raster_bytes(rows) + quiet


def slip_bytes(text: str, qr: str | None = None, columns: int = 32, *,
               qr_module_size: int = 6, cut_feed: int = 3, cjk: str | None = None,
               qr_mode: str = "native") -> bytes:
    """Every byte of one slip: init, text, centred QR code, feed and partial cut.

    ``ESC @``; each line of :func:`wrap_text` followed by LF (:func:`encode_line`:
    code page 437, wide characters in the Chinese mode when ``cjk`` names the
    printer's double-byte encoding); if ``qr`` is given, in ``qr_mode``
    ``"native"`` ``ESC a 1`` (centre), :func:`qr_bytes`, ``ESC a 0``, in
    ``"image"`` :func:`qr_image_bytes`; then ``GS V 66 n``: feed to the cutter
    plus ``n`` dots and cut partially.

    >>> slip_bytes("Hi")
    b'\\x1b@Hi\\n\\x1dVB\\x03'
    """
    if qr_mode not in QR_MODES:
        raise ValueError(f"unknown QR mode {qr_mode!r:.20} (one of {', '.join(QR_MODES)})")
    lines = wrap_text(text, columns, cjk)
    body = b"".join(encode_line(line, cjk) + b"\n" for line in lines)
    if not qr:
        code = b""
    elif qr_mode == "image":
        code = qr_image_bytes(qr, qr_module_size)
    else:
        code = b"\x1ba\x01" + qr_bytes(qr, qr_module_size) + b"\x1ba\x00"
    return ESC_INIT + body + code + b"\x1dVB" + bytes([cut_feed])


def cjk_codec(name: str | None) -> str | None:
    """The codec of a printer's Chinese font; ValueError naming the choices if unknown.

    >>> cjk_codec("Big5"), cjk_codec(None)
    ('big5', None)
    """
    if not name:
        return None
    try:
        codec = codecs.lookup(name).name
    except LookupError:
        codec = ""
    if codec not in CJK_ENCODINGS:
        raise ValueError(f"unknown Chinese printer encoding {name!r:.40} "
                         f"(one of {', '.join(CJK_ENCODINGS)})")
    return codec
