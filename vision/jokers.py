"""Procedural jokers: joker cards drawn from fonts and shapes, for the synthetic data.

Why: a joker's corner is whatever its maker printed (the word "Joker" across the corner, the letters
J-O-K-E-R stacked down the edge, a star), and the installed decks carry few jokers, all unlike the
ones real groups play with; a reader that has seen no such corner vetoes it as "no index". These cards
vary the corner (word or stacked letters, case, font, size, colour, italic, decorations beside it) and
the art in the middle (a jester of shapes, a big word, confetti).

The fonts are the system's TrueType fonts (Debian ``fonts-dejavu-core``, ``fonts-liberation``) and
OpenCV's Hershey fonts. Whole font families are held out for validation (:data:`VAL_FONTS`), as whole
deck designs are in ``vision.art``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vision.art import CARD_HEIGHT

FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/truetype/liberation"))
#: Font files (by name prefix) and Hershey faces kept for validation only.
VAL_FONTS = ("LiberationSerif", "DejaVuSerifCondensed")
VAL_HERSHEY = (cv2.FONT_HERSHEY_SCRIPT_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX)
TRAIN_HERSHEY = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
                 cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, cv2.FONT_HERSHEY_PLAIN)
INKS = [(20, 20, 200), (25, 25, 25), (150, 40, 30), (130, 30, 120), (30, 110, 30), (30, 60, 160)]  # BGR


@lru_cache(maxsize=None)
def fonts(split: str) -> tuple[Path, ...]:
    """The TrueType font files this split draws from (none: the Hershey faces only). Looked up once:
    every word and letter drawn asks for them."""
    files = sorted(p for d in FONT_DIRS if d.is_dir() for p in d.glob("*.ttf")
                   if "Math" not in p.name and "Mono" not in p.name)
    held = tuple(p for p in files if p.name.startswith(VAL_FONTS))
    return held if split == "val" else tuple(p for p in files if p not in held)


def _font(rng, ttf: tuple[Path, ...], px: int):
    """One of the split's TrueType fonts at ``px``, drawn at random (PIL's own font if there is none)."""
    return ImageFont.truetype(str(ttf[int(rng.integers(0, len(ttf)))]), px) if ttf else ImageFont.load_default()


def _text_mask(rng, text: str, height_px: int, split: str) -> np.ndarray:
    """A tight ink mask (uint8 0/255) of ``text`` about ``height_px`` tall, in a font of the split."""
    ttf = fonts(split)
    if ttf and rng.random() < 0.7:
        font = _font(rng, ttf, max(8, int(height_px * 1.3)))
        x0, y0, x1, y1 = font.getbbox(text)
        img = Image.new("L", (x1 - x0 + 4, y1 - y0 + 4), 0)
        ImageDraw.Draw(img).text((2 - x0, 2 - y0), text, fill=255, font=font)
        mask = np.array(img)
    else:
        faces = VAL_HERSHEY if split == "val" else TRAIN_HERSHEY
        face = int(faces[int(rng.integers(0, len(faces)))]) | (cv2.FONT_ITALIC if rng.random() < 0.3 else 0)
        scale = height_px / 22.0
        thick = max(1, int(round(scale * rng.uniform(1.2, 2.6))))
        (w, h), base = cv2.getTextSize(text, face, scale, thick)
        mask = np.zeros((h + base + 2 * thick + 4, w + 2 * thick + 4), np.uint8)
        cv2.putText(mask, text, (thick + 2, h + thick + 2), face, scale, 255, thick, cv2.LINE_AA)
    ys, xs = np.nonzero(mask > 64)
    if not len(xs):
        return np.full((max(4, height_px), max(4, height_px)), 255, np.uint8)
    return mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def printed_word(rng) -> str:
    """A printed word that is no joker: what lies on real tables (magazines, boxes, the card maker's
    name on an ace), made of random letters, so the classifier learns that text alone is no index.
    The letters leave out j and k, so no word spells "joker"."""
    letters = "abcdefghilmnoprstuvwy"
    word = "".join(rng.choice(list(letters), size=int(rng.integers(2, 10))))
    case = rng.random()
    return word.upper() if case < 0.35 else word.capitalize() if case < 0.75 else word


def text_clutter(rng, img: np.ndarray, split: str, words: int | None = None,
                 height: tuple[float, float] = (0.03, 0.15), first_at=None) -> list[tuple[float, float, float, float]]:
    """Draw printed words onto ``img`` (BGR, in place) at any angle, each ``height`` (a range, as a share
    of the image's short side) tall, the first centred at ``first_at`` (x, y) if given; returns their
    boxes (x0, y0, x1, y1)."""
    h, w = img.shape[:2]
    boxes = []
    for k in range(int(rng.integers(1, 6)) if words is None else words):
        mask = _text_mask(rng, printed_word(rng), int(rng.uniform(*height) * min(h, w)), split)
        mask = cv2.copyMakeBorder(mask, 4, 4, 4, 4, cv2.BORDER_CONSTANT, 0)
        mh, mw = mask.shape
        M = cv2.getRotationMatrix2D((mw / 2, mh / 2), float(rng.uniform(0, 360)), 1.0)
        cos, sin = abs(M[0, 0]), abs(M[0, 1])
        bw, bh = int(mh * sin + mw * cos), int(mh * cos + mw * sin)
        M[:, 2] += (bw / 2 - mw / 2, bh / 2 - mh / 2)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        if k == 0 and first_at is not None:
            cx, cy = first_at
        M[:, 2] += (cx - bw / 2, cy - bh / 2)
        a = cv2.warpAffine(mask, M, (w, h)).astype(np.float32)[..., None] / 255
        ink = np.float32(INKS[int(rng.integers(0, len(INKS)))]) if rng.random() < 0.7 else np.float32(rng.integers(0, 256, 3))
        img[:] = (img * (1 - a) + ink * a).astype(img.dtype)
        boxes.append((cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2))
    return boxes


def print_patch(rng, size: int, line_px: float, split: str) -> np.ndarray:
    """A ``size`` x ``size`` BGR patch of print: lines of words of about ``line_px`` tall on paper (a page,
    a box, a card's edge), sometimes under a bigger headline, turned to any angle. Real tables carry
    newspapers, magazines and boxes; their type, not a lone word, is what an index reader meets."""
    ttf = fonts(split)
    big = 2 * size
    paper = tuple(int(v) for v in rng.uniform([150, 150, 150], [255, 255, 255]))
    page = Image.new("RGB", (big, big), paper[::-1])
    draw = ImageDraw.Draw(page)
    dark = int(rng.uniform(0, 90))
    ink = (dark, dark, dark) if rng.random() < 0.7 else tuple(int(v) for v in rng.integers(0, 200, 3))
    y = int(rng.uniform(0, line_px))
    if rng.random() < 0.4:  # a headline
        head = int(line_px * rng.uniform(1.8, 4))
        font = _font(rng, ttf, head)
        text = " ".join(printed_word(rng) for _ in range(3))
        draw.text((int(rng.uniform(0, size / 2)), y), text.upper() if rng.random() < 0.5 else text, fill=ink, font=font)
        y += int(head * 1.3)
    font = _font(rng, ttf, max(6, int(line_px)))
    while y < big:
        line = " ".join(printed_word(rng).lower() for _ in range(int(big / max(line_px, 4) / 3) + 2))
        draw.text((int(rng.uniform(-line_px, line_px)), y), line, fill=(dark, dark, dark), font=font)
        y += int(line_px * rng.uniform(1.15, 1.6))
    arr = np.array(page.rotate(float(rng.uniform(0, 360)), resample=Image.BILINEAR, fillcolor=paper[::-1]))[:, :, ::-1]
    o = (big - size) // 2
    return np.ascontiguousarray(arr[o:o + size, o:o + size])


def _corner(rng, card_w: int, card_h: int, split: str) -> np.ndarray:
    """The corner mark: the word across the corner, or its letters stacked down the edge."""
    word = ["Joker", "JOKER", "joker"][int(rng.choice(3, p=[0.45, 0.45, 0.1]))]
    if rng.random() < 0.55:
        mask = _text_mask(rng, word, int(card_h * rng.uniform(0.045, 0.085)), split)
        limit = card_w * rng.uniform(0.3, 0.5)
        if mask.shape[1] > limit:
            mask = cv2.resize(mask, (int(limit), max(4, int(mask.shape[0] * limit / mask.shape[1]))), interpolation=cv2.INTER_AREA)
        return mask
    size = int(card_h * rng.uniform(0.035, 0.06))
    letters = [_text_mask(rng, ch, size, split) for ch in word.upper()]
    gap = max(1, int(size * rng.uniform(0.1, 0.35)))
    width = max(m.shape[1] for m in letters)
    out = np.zeros((sum(m.shape[0] for m in letters) + gap * (len(letters) - 1), width), np.uint8)
    y = 0
    for m in letters:
        x = (width - m.shape[1]) // 2
        out[y:y + m.shape[0], x:x + m.shape[1]] = m
        y += m.shape[0] + gap
    return out


def _star(img, center, r, color) -> None:
    a = np.deg2rad(np.arange(10) * 36 - 90)
    rad = np.where(np.arange(10) % 2 == 0, r, r * 0.45)
    pts = np.stack([center[0] + rad * np.cos(a), center[1] + rad * np.sin(a)], 1)
    cv2.fillPoly(img, [np.round(pts).astype(np.int32)], color, cv2.LINE_AA)


def _art(rng, img, box, split: str) -> None:
    """The middle of the card: a jester of shapes, a big word, or confetti and stars."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    kind = rng.choice(["jester", "word", "confetti"])
    colours = [tuple(int(v) for v in rng.integers(0, 256, 3)) for _ in range(4)]
    if kind == "jester":
        cx, cy = x0 + w / 2, y0 + h * rng.uniform(0.45, 0.6)
        for k in range(int(rng.integers(2, 4))):  # the hat's points
            tip = (cx + rng.uniform(-0.45, 0.45) * w, y0 + rng.uniform(0.0, 0.25) * h)
            base = [(cx - w * 0.25, cy - h * 0.1), (cx + w * 0.25, cy - h * 0.1)]
            cv2.fillPoly(img, [np.int32([tip, *base])], colours[k % 4], cv2.LINE_AA)
            cv2.circle(img, (int(tip[0]), int(tip[1])), int(w * 0.05), colours[(k + 1) % 4], -1, cv2.LINE_AA)
        cv2.ellipse(img, (int(cx), int(cy)), (int(w * 0.18), int(h * 0.12)), 0, 0, 360, (170, 200, 240), -1, cv2.LINE_AA)
        cv2.ellipse(img, (int(cx), int(cy + h * 0.32)), (int(w * 0.32), int(h * 0.2)), 0, 0, 360, colours[3], -1, cv2.LINE_AA)
    elif kind == "word":
        mask = _text_mask(rng, "JOKER", int(h * 0.18), split)
        mask = cv2.resize(mask, (int(w * 0.9), int(h * 0.2)))
        if rng.random() < 0.5:
            mask = cv2.rotate(mask, cv2.ROTATE_90_CLOCKWISE)
            mask = cv2.resize(mask, (int(w * 0.3), int(h * 0.9)))
        mh, mw = mask.shape
        ox, oy = int(x0 + (w - mw) / 2), int(y0 + (h - mh) / 2)
        region = img[oy:oy + mh, ox:ox + mw]
        a = mask[:region.shape[0], :region.shape[1], None].astype(np.float32) / 255
        region[:] = region * (1 - a) + np.float32(colours[0]) * a
    for _ in range(int(rng.integers(3, 30 if kind == "confetti" else 10))):
        c = (x0 + rng.uniform(0, w), y0 + rng.uniform(0, h))
        _star(img, c, rng.uniform(0.02, 0.07) * w, colours[int(rng.integers(0, 4))])


def joker_card(rng, split: str = "train", height: int = CARD_HEIGHT) -> tuple[np.ndarray, list[tuple[float, float, float, float]]]:
    """One joker: a BGRA card ``height`` px tall, and its corner-mark boxes (x0, y0, x1, y1 as fractions of
    the card), top-left and bottom-right, as ``vision.art`` gives each deck's index boxes."""
    h, w = height, int(round(height * 0.714))
    paper = np.float32([rng.uniform(225, 255), rng.uniform(228, 255), rng.uniform(232, 255)])
    img = np.empty((h, w, 3), np.uint8)
    img[:] = paper
    ink = INKS[int(rng.integers(0, len(INKS)))]
    if rng.random() < 0.4:  # a printed frame
        m = int(w * rng.uniform(0.04, 0.08))
        cv2.rectangle(img, (m, m), (w - m, h - m), ink, max(1, int(rng.uniform(1, 3))), cv2.LINE_AA)
    mark = _corner(rng, w, h, split)
    mh, mw = mark.shape
    x, y = int(w * rng.uniform(0.04, 0.09)), int(h * rng.uniform(0.03, 0.06))
    mw, mh = min(mw, w // 2 - x), min(mh, h // 2 - y)
    mark = mark[:mh, :mw]
    _art(rng, img, (int(w * 0.2), int(h * 0.18), int(w * 0.8), int(h * 0.82)), split)
    if rng.random() < 0.5:  # a star or two beside the mark, outside its box
        for _ in range(int(rng.integers(1, 3))):
            _star(img, (x + mw + rng.uniform(0.03, 0.08) * w, y + rng.uniform(0, mh)), 0.03 * w, ink)
    a = mark[..., None].astype(np.float32) / 255
    for rot in (False, True):
        if rot:
            img = cv2.rotate(img, cv2.ROTATE_180)
        region = img[y:y + mh, x:x + mw]
        region[:] = region * (1 - a) + np.float32(ink) * a
    img = cv2.rotate(img, cv2.ROTATE_180)  # back upright (both corners now hold the mark)
    alpha = np.zeros((h, w), np.uint8)
    r = int(w * 0.06)
    cv2.rectangle(alpha, (r, 0), (w - r, h), 255, -1)
    cv2.rectangle(alpha, (0, r), (w, h - r), 255, -1)
    for cx, cy in ((r, r), (w - r, r), (r, h - r), (w - r, h - r)):
        cv2.circle(alpha, (cx, cy), r, 255, -1, cv2.LINE_AA)
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), (190, 190, 190), 1)
    top = (x / w, y / h, (x + mw) / w, (y + mh) / h)
    bottom = (1 - top[2], 1 - top[3], 1 - top[0], 1 - top[1])
    return np.dstack([img, alpha]), [top, bottom]
