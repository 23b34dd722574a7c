"""A camera feed for the browser tests: face-up cards on a table, written as a y4m file.

Chromium plays the file as its camera (``--use-file-for-fake-video-capture``), looping it. The
cards come from Debian's AisleRiot deck art when it is installed (rendered with ``rsvg-convert``),
else they are drawn here (a white card with its rank printed in the corners).

y4m: a text header (``YUV4MPEG2 W H F15:1 Ip A1:1 C420jpeg``), then per frame ``FRAME`` and a
newline and the raw I420 planes (OpenCV converts BGR to I420).
"""

from __future__ import annotations

import gzip
import shutil
import subprocess
import tempfile
from pathlib import Path

import cv2
import numpy as np

WIDTH, HEIGHT, FPS = 640, 480, 15
DECK = Path("/usr/share/aisleriot/cards/anglo.svgz")
_WORDS = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}
_SUITS = ("club", "diamond", "heart", "spade")


def _render_art(rank: str, suit: str, height: int) -> np.ndarray | None:
    """One card from the AisleRiot 'anglo' deck as BGR, or None when the art or the renderer is missing."""
    if not DECK.exists() or shutil.which("rsvg-convert") is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        svg = Path(tmp) / "deck.svg"
        svg.write_bytes(gzip.decompress(DECK.read_bytes()))
        out = Path(tmp) / "card.png"
        element = f"{suit}_{_WORDS.get(rank, rank)}"
        done = subprocess.run(["rsvg-convert", "-i", element, "-h", str(height), "-o", str(out), str(svg)],
                              capture_output=True)
        if done.returncode != 0 or not out.exists():
            return None
        rgba = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
    if rgba is None or rgba.ndim != 3 or rgba.shape[2] != 4:
        return None
    alpha = rgba[:, :, 3]
    ys, xs = np.nonzero(alpha > 32)
    rgba = rgba[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1]
    a = rgba[:, :, 3:4].astype(np.float32) / 255
    return (rgba[:, :, :3] * a + 255 * (1 - a)).astype(np.uint8)


def _draw_card(rank: str, suit: str, height: int) -> np.ndarray:
    width = int(height * 0.7)
    card = np.full((height, width, 3), 250, np.uint8)
    cv2.rectangle(card, (0, 0), (width - 1, height - 1), (40, 40, 40), 2)
    colour = (30, 30, 200) if suit in ("diamond", "heart") else (20, 20, 20)
    scale = height / 160
    cv2.putText(card, rank, (int(6 * scale), int(30 * scale)), cv2.FONT_HERSHEY_SIMPLEX, 0.9 * scale, colour, max(2, int(2 * scale)))
    cv2.putText(card, rank, (width // 2 - int(18 * scale), height // 2 + int(14 * scale)), cv2.FONT_HERSHEY_SIMPLEX,
                1.6 * scale, colour, max(2, int(3 * scale)))
    return card


def card_image(rank: str, suit: str = "spade", height: int = 220) -> tuple[np.ndarray, str]:
    art = _render_art(rank, suit, height)
    return (art, "aisleriot anglo") if art is not None else (_draw_card(rank, suit, height), "drawn")


def table(width: int = WIDTH, height: int = HEIGHT) -> np.ndarray:
    """A brown wooden table top (not green: Chromium's own fake camera is green)."""
    rng = np.random.default_rng(7)
    grain = cv2.resize(rng.random((height // 8, 4)).astype(np.float32), (width, height), interpolation=cv2.INTER_CUBIC)
    base = np.empty((height, width, 3), np.float32)
    base[:] = (40, 75, 120)
    return np.clip(base * (0.8 + 0.4 * grain[:, :, None]), 0, 255).astype(np.uint8)


def scene(cards: list[tuple[str, str]]) -> tuple[np.ndarray, str]:
    """The table with ``cards`` (rank, suit) face up side by side in the middle."""
    frame = table()
    images = []
    source = "none"
    for rank, suit in cards:
        image, source = card_image(rank, suit)
        images.append(image)
    if not images:
        return frame, source
    gap = 24
    total = sum(i.shape[1] for i in images) + gap * (len(images) - 1)
    x = (WIDTH - total) // 2
    for image in images:
        h, w = image.shape[:2]
        y = (HEIGHT - h) // 2
        frame[y: y + h, x: x + w] = image
        x += w + gap
    return frame, source


def write_y4m(path: Path, segments: list[tuple[np.ndarray, float]]) -> None:
    """Frames at 15 fps: each (picture, seconds) segment in turn; Chromium loops the whole file."""
    with open(path, "wb") as out:
        out.write(f"YUV4MPEG2 W{WIDTH} H{HEIGHT} F{FPS}:1 Ip A1:1 C420jpeg\n".encode())
        for picture, seconds in segments:
            i420 = cv2.cvtColor(picture, cv2.COLOR_BGR2YUV_I420).tobytes()
            for _ in range(max(1, round(seconds * FPS))):
                out.write(b"FRAME\n")
                out.write(i420)


def flip_video(path: Path, cards: list[tuple[str, str]], empty_s: float, cards_s: float) -> str:
    """An empty table for ``empty_s`` seconds, then the flipped ``cards`` for ``cards_s``; returns the art used."""
    shown, source = scene(cards)
    write_y4m(path, [(table(), empty_s), (shown, cards_s)])
    return source
