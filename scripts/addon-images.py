#!/usr/bin/env python3
"""Draws the add-on store's images at the repository root, as Home Assistant's Supervisor
expects them: icon.png (128x128) and logo.png (250x100, the mark centred). Plain Python (zlib), so the
images can be redrawn anywhere: `python3 scripts/addon-images.py`.

The picture: a house outline with three claw marks across it, in Home Assistant's blue.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BLUE = (3, 169, 244, 255)
WHITE = (255, 255, 255, 255)
CLEAR = (0, 0, 0, 0)


def png(width: int, height: int, pixel) -> bytes:
    """An RGBA PNG whose pixel (x, y) is `pixel(x, y)`."""
    rows = bytearray()
    for y in range(height):
        rows.append(0)  # no filter
        for x in range(width):
            rows.extend(pixel(x, y))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(bytes(rows), 9))
        + chunk(b"IEND", b"")
    )


def house(x: float, y: float) -> tuple[int, int, int, int]:
    """The mark on a unit square: a filled house with three white claw strokes."""
    roof = y < 0.45 and abs(x - 0.5) < (y - 0.08) * 1.2
    body = 0.45 <= y <= 0.92 and 0.18 <= x <= 0.82
    if not (roof or body):
        return CLEAR
    for k in range(3):
        # Three slanted strokes, like a claw drawn down across the house.
        offset = 0.30 + 0.17 * k
        if 0.30 <= y <= 0.86 and abs((x - offset) - (y - 0.58) * 0.35) < 0.035:
            return WHITE
    return BLUE


def icon(x: int, y: int) -> tuple[int, int, int, int]:
    return house(x / 128, y / 128)


def logo(x: int, y: int) -> tuple[int, int, int, int]:
    """The mark, centred on the store's wide logo."""
    left = (250 - 100) // 2
    if left <= x < left + 100:
        return house((x - left) / 100, y / 100)
    return CLEAR


if __name__ == "__main__":
    (ROOT / "icon.png").write_bytes(png(128, 128, icon))
    (ROOT / "logo.png").write_bytes(png(250, 100, logo))
    print("wrote icon.png and logo.png")
