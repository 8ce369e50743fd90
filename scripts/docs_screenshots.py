#!/usr/bin/env python3
"""Render `blueprint docs` HTML pages in headless Chromium: screenshots and a rendered DOM.

    python scripts/docs_screenshots.py OUT_DIR [PATH ...]     (default PATH: blueprints/)

writes OUT_DIR/<page>.html (and .md) for each blueprint, then OUT_DIR/<page>.png, a
screenshot of the page as Chromium draws it, and prints for each page its size and how much
of the screenshot is not background, so a blank or broken page shows at once. Look at the
PNGs. `tests/test_blueprint_docs_browser.py` uses the same functions, and is skipped on
machines without Chromium (Debian: `apt-get install chromium`).

Standard library only; the PNG reader below handles the 8-bit, non-interlaced images that
Chromium writes.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import sys
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Flags for a headless Chromium on a machine without a display or a network.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)
TIMEOUT = 90


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _run(page: Path, *extra: str) -> subprocess.CompletedProcess:
    browser = find_chromium()
    if browser is None:
        raise RuntimeError("no Chromium on this machine")
    with tempfile.TemporaryDirectory(prefix="chromium-") as profile:
        return subprocess.run(
            [browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *extra, page.resolve().as_uri()],
            capture_output=True,
            timeout=TIMEOUT,
            check=False,
        )


def dump_dom(page: Path) -> str:
    """The DOM after Chromium parsed and laid out the page, serialised."""
    done = _run(page, "--dump-dom")
    if done.returncode != 0:
        raise RuntimeError(f"chromium --dump-dom failed: {done.stderr.decode(errors='replace')[-500:]}")
    return done.stdout.decode("utf-8", errors="replace")


def screenshot(page: Path, png: Path, width: int = 1100, height: int = 1400) -> None:
    done = _run(page, f"--screenshot={png.resolve()}", f"--window-size={width},{height}")
    if not png.exists():
        raise RuntimeError(f"chromium wrote no screenshot: {done.stderr.decode(errors='replace')[-500:]}")


@dataclass(frozen=True)
class Picture:
    width: int
    height: int
    #: Share of pixels that differ from the most common colour (the background).
    ink: float
    colours: int


def read_png(data: bytes) -> Picture:
    """Decode an 8-bit, non-interlaced PNG (grey, RGB or RGBA) and measure it."""
    width, height, bpp, rows = decode_png(data)
    counts: dict[bytes, int] = {}
    for line in rows:
        for x in range(0, width * bpp, bpp * 4):  # every 4th pixel is plenty to measure
            pixel = bytes(line[x : x + bpp])
            counts[pixel] = counts.get(pixel, 0) + 1
    total = sum(counts.values())
    background = max(counts.values())
    return Picture(width, height, (total - background) / total, len(counts))


def decode_png(data: bytes) -> tuple[int, int, int, list[bytes]]:
    """(width, height, bytes per pixel, one row of pixel bytes per line) of an 8-bit,
    non-interlaced PNG (grey, RGB or RGBA)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, chunks, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
    if header is None:
        raise ValueError("PNG without IHDR")
    width, height, depth, colour_type, _, _, interlace = header
    if depth != 8 or interlace or colour_type not in (0, 2, 4, 6):
        raise ValueError(f"unsupported PNG (depth {depth}, colour type {colour_type}, interlace {interlace})")
    bpp = {0: 1, 2: 3, 4: 2, 6: 4}[colour_type]
    raw = zlib.decompress(b"".join(chunks))
    stride = width * bpp
    previous = bytearray(stride)
    rows: list[bytes] = []
    offset = 0
    for _ in range(height):
        kind, line = raw[offset], bytearray(raw[offset + 1 : offset + 1 + stride])
        offset += 1 + stride
        _unfilter(kind, line, previous, bpp)
        rows.append(bytes(line))
        previous = line
    return width, height, bpp, rows


def _unfilter(kind: int, line: bytearray, previous: bytearray, bpp: int) -> None:
    if kind == 1:
        for x in range(bpp, len(line)):
            line[x] = (line[x] + line[x - bpp]) & 0xFF
    elif kind == 2:
        for x in range(len(line)):
            line[x] = (line[x] + previous[x]) & 0xFF
    elif kind == 3:
        for x in range(len(line)):
            left = line[x - bpp] if x >= bpp else 0
            line[x] = (line[x] + ((left + previous[x]) >> 1)) & 0xFF
    elif kind == 4:
        for x in range(len(line)):
            a = line[x - bpp] if x >= bpp else 0
            b = previous[x]
            c = previous[x - bpp] if x >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
    elif kind != 0:
        raise ValueError(f"bad PNG filter type {kind}")


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    out = Path(argv[0])
    paths = argv[1:] or [str(ROOT / "blueprints")]
    if find_chromium() is None:
        print("no Chromium found (Debian: apt-get install chromium)", file=sys.stderr)
        return 2
    done = subprocess.run(
        [sys.executable, "-m", "compiler", "docs", *paths, "-o", str(out)], cwd=ROOT, capture_output=True, text=True
    )
    if done.returncode not in (0, 1):
        print(done.stderr, file=sys.stderr)
        return done.returncode
    for page in sorted(out.glob("*.html")):
        png = page.with_suffix(".png")
        screenshot(page, png)
        picture = read_png(png.read_bytes())
        print(f"{png}: {picture.width}x{picture.height}, {picture.ink:.1%} ink, {picture.colours} colours")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
