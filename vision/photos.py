"""Photographs from Debian's wallpaper packages, as things lying on the table in the synthetic scenes.

Why: real tables hold real things beside the cards (a bowl and spoon, a toy, a ring, a box with its
logo), and on realdev's edje photos most of the reader's extra cards are such things boxed weakly by the
detector and read as some rank (models/HISTORY.md, sixteenth session). The procedural clutter of
``vision.synth`` (lines, ellipses, polygons in one colour) has none of their texture and print, so the
held-out scenes could not show that failure, nor choose what stops it. Patches of photographs (flowers,
leaves, cups, boats, water, wood, and some illustrations) cut in object-like shapes bring that texture.

The pictures are split by name, a quarter held out for validation scenes, as the deck designs are.
"""

from __future__ import annotations

import os
import re
import subprocess
import zlib
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision import picture_file
from vision.art import apt_install, missing_debian

#: The Debian packages with the pictures (photographs and illustrations), and where they put them.
PHOTO_PACKAGES = ("gnome-backgrounds", "plasma-workspace-wallpapers", "mate-backgrounds")
PHOTO_DIRS = (Path("/usr/share/backgrounds"), Path("/usr/share/wallpapers"))
#: Pictures are decoded at most this large (their long side), which keeps a few dozen in memory.
LONG_SIDE = 800


def _name(path: Path) -> str:
    """A picture's name for the split: a KDE wallpaper's folder (it holds one picture at several sizes),
    else the file's stem without a size or a light/dark mark, so that no picture is in both splits."""
    parts = path.parts
    if "contents" in parts[1:]:
        return parts[parts.index("contents") - 1]
    # one picture at several sizes (Elephants_3840x2160), or in light and dark (adwaita-l, adwaita-d)
    return re.sub(r"-[ld]$", "", re.sub(r"[_-]\d+x\d+$", "", path.stem))


def split_of(name: str) -> str:
    """``val`` for a quarter of the pictures (by a hash of the name, stable across machines), else ``train``. The name's
    bytes as the file system gives them: a name that is not UTF-8 text cannot be encoded as UTF-8, and others' bytes
    are the same either way."""
    return "val" if zlib.crc32(os.fsencode(name)) % 4 == 0 else "train"


def picture_files(split: str) -> list[Path]:
    """One file per picture of ``split`` in ``PHOTO_DIRS`` (the largest of its sizes), sorted by name."""
    best: dict[str, Path] = {}
    for root in PHOTO_DIRS:
        if not root.exists():
            continue
        for p in root.rglob("*"):
            if p.suffix.lower() not in (".jpg", ".jpeg", ".png", ".webp") or not p.is_file():
                continue
            name = _name(p)
            if split_of(name) != split:
                continue
            if name not in best or p.stat().st_size > best[name].stat().st_size:
                best[name] = p
    return [best[k] for k in sorted(best)]


def install_photos(run=subprocess.run, is_root: bool | None = None) -> list[str]:
    """Install the wallpaper packages that are missing; returns what could not be installed, with why."""
    return apt_install(missing_debian(PHOTO_PACKAGES, run), run, is_root)


@lru_cache(maxsize=2)
def pictures(split: str) -> tuple[np.ndarray, ...]:
    """The pictures of ``split`` decoded (BGR, long side at most ``LONG_SIDE``), leaving out the nearly
    plain ones (a white or black wallpaper is no object)."""
    out = []
    for p in picture_files(split):
        img = decoded(p)
        if img is not None and float(img.std()) >= 12:
            out.append(img)
    return tuple(out)


def decoded(path: Path) -> np.ndarray | None:
    """The picture at ``path`` (BGR), its long side shrunk to at most ``LONG_SIDE``; None if unreadable."""
    img = picture_file.read(path, cv2.IMREAD_COLOR)
    if img is None:
        return None
    s = LONG_SIDE / max(img.shape[:2])
    return cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA) if s < 1 else img


def _shape_mask(rng, h: int, w: int) -> np.ndarray:
    """A soft-edged object outline filling most of an ``h`` x ``w`` box: an ellipse (a bowl, a cup seen from
    above), a rounded box (a phone, a packet) or a blob."""
    m = np.zeros((h, w), np.uint8)
    kind = int(rng.integers(0, 3))
    if kind == 0:
        cv2.ellipse(m, (w // 2, h // 2), (max(1, w // 2 - 1), max(1, h // 2 - 1)), 0, 0, 360, 255, -1, cv2.LINE_AA)
    elif kind == 1:
        r = int(min(h, w) * rng.uniform(0.05, 0.3))
        cv2.rectangle(m, (r, 0), (w - 1 - r, h - 1), 255, -1)
        cv2.rectangle(m, (0, r), (w - 1, h - 1 - r), 255, -1)
        for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
            cv2.circle(m, (cx, cy), r, 255, -1, cv2.LINE_AA)
    else:
        ang = np.sort(rng.uniform(0, 2 * np.pi, int(rng.integers(5, 10))))
        rad = rng.uniform(0.6, 1.0, len(ang))
        pts = np.stack([w / 2 + np.cos(ang) * rad * (w / 2 - 1), h / 2 + np.sin(ang) * rad * (h / 2 - 1)], 1)
        cv2.fillPoly(m, [np.round(pts).astype(np.int32)], 255, cv2.LINE_AA)
    return cv2.GaussianBlur(m, (0, 0), 1.0).astype(np.float32) / 255


def _patch(rng, pics, h: int, w: int) -> np.ndarray:
    """An ``h`` x ``w`` piece of a picture, scaled by a random factor and turned a quarter at random."""
    pic = pics[int(rng.integers(0, len(pics)))]
    pic = np.rot90(pic, int(rng.integers(0, 4)))
    ph, pw = pic.shape[:2]
    s = max(h / ph, w / pw) * rng.uniform(1.0, 3.0)
    ch, cw = min(ph, int(np.ceil(h / s))), min(pw, int(np.ceil(w / s)))
    y, x = int(rng.integers(0, ph - ch + 1)), int(rng.integers(0, pw - cw + 1))
    return cv2.resize(np.ascontiguousarray(pic[y:y + ch, x:x + cw]), (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)


def table(rng, img: np.ndarray, pics) -> None:
    """Cover ``img`` with a picture, as a patterned cloth or a printed table top."""
    h, w = img.shape[:2]
    img[:] = _patch(rng, pics, h, w) * rng.uniform(0.6, 1.1)


def things(rng, img: np.ndarray, pics, count: int) -> None:
    """Lay ``count`` object-shaped pieces of pictures on ``img`` (the table, before the cards), each with a
    soft shadow: things from a sixth of the picture's short side to half of it."""
    h, w = img.shape[:2]
    short = min(h, w)
    for _ in range(count):
        oh = int(short * np.exp(rng.uniform(np.log(1 / 6), np.log(0.5))))
        ow = int(np.clip(oh * np.exp(rng.uniform(-0.6, 0.6)), 8, w - 1))
        oh = int(np.clip(oh, 8, h - 1))
        y, x = int(rng.integers(-oh // 3, h - 2 * oh // 3)), int(rng.integers(-ow // 3, w - 2 * ow // 3))
        a = _shape_mask(rng, oh, ow)
        piece = _patch(rng, pics, oh, ow)
        y0, x0, y1, x1 = max(0, y), max(0, x), min(h, y + oh), min(w, x + ow)
        sa = a[y0 - y:y1 - y, x0 - x:x1 - x][..., None]
        off = int(max(2, oh * 0.04))
        sy0, sx0, sy1, sx1 = min(h, y0 + off), min(w, x0 + off), min(h, y1 + off), min(w, x1 + off)
        if sy1 > sy0 and sx1 > sx0:  # the shadow, a little down and right
            img[sy0:sy1, sx0:sx1] *= 1 - 0.35 * sa[:sy1 - sy0, :sx1 - sx0]
        img[y0:y1, x0:x1] = img[y0:y1, x0:x1] * (1 - sa) + piece[y0 - y:y1 - y, x0 - x:x1 - x] * sa
