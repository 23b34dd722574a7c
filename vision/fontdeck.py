"""Procedural deck designs: card faces whose corner indices are typeset in the system's fonts.

Why: the classifier learns what a rank looks like from the 23 training designs of the installed card
art (``vision.art``), and reads held-out designs far worse than its own (top-1 about 0.74 on the crops
of the four held-out designs): every real deck at a real table is a design it has never seen. The
registries hold no more English decks, but they hold hundreds of typefaces (Debian's ``fonts-*``
packages), and a corner index is a typeset rank over a suit pip. Each call draws a new "design": a font,
weight, size, ink, pip shape, layout and paper, so the same rank is seen in many more letterforms.

The layout follows real indices: the rank on top, the suit pip under it (sometimes beside it), near
the top-left corner and again, turned half round, at the bottom-right (sometimes at all four corners),
so a six is never a nine the right way up. The middle holds pips for number cards, one big pip for an
ace and a framed letter with shapes for a court card, because the detector's false alarms on pips and
court art sit next to the indices.

Whole font families are held out for validation (:data:`VAL_FAMILIES`), as whole designs are in
``vision.art``. Fonts that cannot draw the ranks (symbol, icon and other-script faces) are left out.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vision.art import CARD_HEIGHT, apt_install, missing_debian

FONT_ROOT = Path("/usr/share/fonts")
#: The Debian font packages this module draws from (:func:`install_fonts` installs the missing ones;
#: :func:`index_fonts` uses whatever of them is there, so the designs drawn depend on them all being in).
FONT_PACKAGES = (
    "fonts-dejavu-core", "fonts-liberation", "fonts-urw-base35", "fonts-texgyre", "fonts-freefont-ttf",
    "fonts-roboto-unhinted", "fonts-open-sans", "fonts-linuxlibertine", "fonts-ebgaramond",
    "fonts-crosextra-caladea", "fonts-crosextra-carlito", "fonts-cantarell", "fonts-lato", "fonts-noto-core",
    "fonts-comfortaa", "fonts-league-spartan", "fonts-adf-accanthis", "fonts-adf-gillius",
    "fonts-adf-universalis", "fonts-go", "fonts-paratype", "fonts-sil-gentium", "fonts-sil-charis",
    "fonts-sil-andika", "fonts-junicode", "fonts-hack", "fonts-inter",
)
#: Font families (file-name prefixes) kept for validation only.
VAL_FAMILIES = ("Gentium", "Charis", "Lato", "P052", "texgyreschola", "NotoSerifDisplay", "Carlito")
#: File names with these in them are no text faces for an index (symbols, icons, maths, other scripts).
_NOT_TEXT = ("Math", "Symbol", "Awesome", "Emoji", "Dingbat", "D050000L", "Z003", "Mono", "Icon")
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = "SHDC"
RED, BLACK = (30, 30, 190), (25, 25, 25)  # BGR
#: Four-colour decks' diamonds and clubs.
FOUR_COLOUR = {"D": (180, 90, 20), "C": (40, 130, 30)}


def missing_fonts(run=subprocess.run) -> list[str]:
    """The packages of :data:`FONT_PACKAGES` that are not installed (all of them where dpkg is missing)."""
    return missing_debian(FONT_PACKAGES, run)


def install_fonts(run=subprocess.run, is_root: bool | None = None) -> list[str]:
    """Install the missing font packages (``vision.art.apt_install``); returns what is still missing, with why."""
    problems = apt_install(missing_fonts(run), run, is_root)
    index_fonts.cache_clear()
    return problems


@lru_cache(maxsize=None)
def index_fonts(split: str) -> tuple[Path, ...]:
    """The font files of this split that draw every rank as distinct glyphs (not the missing-glyph box)."""
    files = sorted(p for p in FONT_ROOT.rglob("*") if p.suffix.lower() in (".ttf", ".otf")
                   and not any(k in p.name for k in _NOT_TEXT))
    usable = tuple(p for p in files if _draws_ranks(p))
    held = tuple(p for p in usable if p.name.startswith(VAL_FAMILIES))
    return held if split == "val" else tuple(p for p in usable if p not in held)


def _draws_ranks(path: Path) -> bool:
    """Whether the font has real glyphs for A, Q, K and 10 (other-script Noto faces draw boxes)."""
    try:
        font = ImageFont.truetype(str(path), 40)
        masks = [bytes(font.getmask(ch)) for ch in ("A", "Q", "K", "1", "\uffff")]
    except OSError:
        return False
    return len(set(masks)) == len(masks) and all(any(m) for m in masks[:4])


@dataclass(frozen=True)
class Style:
    """One procedural design: what every card of it shares."""

    font: Path
    rank_h: float  # rank glyph height, as a share of the card's height
    pip_scale: float  # index pip height, as a share of the rank's height
    pip_beside: bool  # the pip right of the rank instead of under it
    four_corners: bool
    margin: tuple[float, float]  # index's top-left from the card's corner (shares of width, height)
    paper: tuple[float, float, float]
    four_colour: bool
    condensed: float  # horizontal squeeze of the rank glyphs (1: none)
    ten_narrow: bool  # "10" squeezed to the width of one digit, as many decks print it
    border: bool


def random_style(rng, split: str = "train") -> Style:
    """A new design drawn at random from the split's fonts."""
    fonts = index_fonts(split)
    if not fonts:
        raise RuntimeError(f"no usable fonts for split {split!r} under {FONT_ROOT} "
                           f"(apt-get install {' '.join(FONT_PACKAGES[:6])} ...)")
    return Style(font=fonts[int(rng.integers(0, len(fonts)))], rank_h=float(rng.uniform(0.065, 0.12)),
                 pip_scale=float(rng.uniform(0.55, 1.0)), pip_beside=bool(rng.random() < 0.1),
                 four_corners=bool(rng.random() < 0.2),
                 margin=(float(rng.uniform(0.025, 0.08)), float(rng.uniform(0.02, 0.06))),
                 paper=tuple(float(v) for v in rng.uniform([222, 226, 230], [255, 255, 255])),
                 four_colour=bool(rng.random() < 0.1), condensed=float(rng.uniform(0.7, 1.1)),
                 ten_narrow=bool(rng.random() < 0.5), border=bool(rng.random() < 0.3))


def _ink(style: Style, suit: str) -> tuple[int, int, int]:
    if style.four_colour and suit in FOUR_COLOUR:
        return FOUR_COLOUR[suit]
    return RED if suit in "HD" else BLACK


def pip_mask(suit: str, h: int) -> np.ndarray:
    """A suit pip's ink mask (uint8 0/255), ``h`` px tall, drawn from circles and polygons."""
    h = max(6, int(h))
    w = int(round(h * (0.8 if suit == "D" else 0.95)))
    m = np.zeros((h, w), np.uint8)
    aa = cv2.LINE_AA
    if suit == "D":
        cv2.fillPoly(m, [np.int32([[w / 2, 0], [w - 1, h / 2], [w / 2, h - 1], [0, h / 2]])], 255, aa)
    elif suit == "H":
        r = w / 4
        cv2.circle(m, (int(r), int(r * 1.1)), int(r), 255, -1, aa)
        cv2.circle(m, (int(w - r), int(r * 1.1)), int(r), 255, -1, aa)
        cv2.fillPoly(m, [np.int32([[0, r * 1.3], [w - 1, r * 1.3], [w / 2, h - 1]])], 255, aa)
    else:
        body = h * 0.78
        if suit == "S":
            r = w / 4
            cv2.circle(m, (int(r), int(body - r * 1.1)), int(r), 255, -1, aa)
            cv2.circle(m, (int(w - r), int(body - r * 1.1)), int(r), 255, -1, aa)
            cv2.fillPoly(m, [np.int32([[0, body - r * 1.3], [w - 1, body - r * 1.3], [w / 2, 0]])], 255, aa)
        else:  # clubs: three leaves
            r = w * 0.22
            for cx, cy in ((w / 2, r), (r, body - r), (w - r, body - r)):
                cv2.circle(m, (int(cx), int(cy)), int(r), 255, -1, aa)
            cv2.fillPoly(m, [np.int32([[w / 2 - r / 2, r], [w / 2 + r / 2, r], [w / 2 + r / 2, body - r], [w / 2 - r / 2, body - r]])], 255, aa)
        cv2.fillPoly(m, [np.int32([[w / 2, body * 0.6], [w * 0.72, h - 1], [w * 0.28, h - 1]])], 255, aa)
    return m


def _rank_mask(style: Style, rank: str, h: int) -> np.ndarray:
    """The rank typeset in the style's font, cut to its ink, ``h`` px tall (squeezed as the style says)."""
    font = ImageFont.truetype(str(style.font), max(8, int(h * 1.4)))
    x0, y0, x1, y1 = font.getbbox(rank)
    img = Image.new("L", (x1 - x0 + 4, y1 - y0 + 4), 0)
    ImageDraw.Draw(img).text((2 - x0, 2 - y0), rank, fill=255, font=font)
    m = np.array(img)
    ys, xs = np.nonzero(m > 64)
    m = m[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    squeeze = style.condensed * (0.6 if rank == "10" and style.ten_narrow else 1.0)
    w = max(2, int(round(m.shape[1] * h / m.shape[0] * squeeze)))
    return cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA)


def _stamp(img: np.ndarray, mask: np.ndarray, x: int, y: int, ink) -> tuple[int, int, int, int]:
    """Ink ``mask`` onto ``img`` (float BGR, in place) with its top-left at (x, y), clipped; its box."""
    H, W = img.shape[:2]
    mh, mw = mask.shape
    x0, y0, x1, y1 = max(0, x), max(0, y), min(W, x + mw), min(H, y + mh)
    if x1 <= x0 or y1 <= y0:
        return (x, y, x, y)
    a = mask[y0 - y:y1 - y, x0 - x:x1 - x, None].astype(np.float32) / 255
    img[y0:y1, x0:x1] = img[y0:y1, x0:x1] * (1 - a) + np.float32(ink) * a
    return (x0, y0, x1, y1)


def _index(style: Style, rank: str, suit: str, h: int) -> np.ndarray:
    """The corner index alone, as an ink mask: the rank over its pip (or beside it)."""
    rh = max(8, int(style.rank_h * h))
    rm = _rank_mask(style, rank, rh)
    pm = pip_mask(suit, int(rh * style.pip_scale))
    gap = max(1, int(rh * 0.12))
    if style.pip_beside:
        ih, iw = max(rm.shape[0], pm.shape[0]), rm.shape[1] + gap + pm.shape[1]
        m = np.zeros((ih, iw), np.uint8)
        m[:rm.shape[0], :rm.shape[1]] = rm
        m[:pm.shape[0], rm.shape[1] + gap:] = pm
    else:
        ih, iw = rm.shape[0] + gap + pm.shape[0], max(rm.shape[1], pm.shape[1])
        m = np.zeros((ih, iw), np.uint8)
        x = (iw - rm.shape[1]) // 2
        m[:rm.shape[0], x:x + rm.shape[1]] = rm
        x = (iw - pm.shape[1]) // 2
        m[rm.shape[0] + gap:, x:x + pm.shape[1]] = pm
    return m


def _middle(rng, img: np.ndarray, style: Style, rank: str, suit: str, ink) -> None:
    """The card's middle: pips in columns for a number card, a big pip for an ace, a framed letter and
    shapes for a court card."""
    h, w = img.shape[:2]
    x0, y0, x1, y1 = int(w * 0.22), int(h * 0.16), int(w * 0.78), int(h * 0.84)
    if rank == "A":
        pm = pip_mask(suit, int(h * rng.uniform(0.15, 0.35)))
        _stamp(img, pm, (w - pm.shape[1]) // 2, (h - pm.shape[0]) // 2, ink)
        return
    if rank in ("J", "Q", "K"):
        frame = tuple(float(v) for v in rng.uniform(0, 200, 3))
        cv2.rectangle(img, (x0, y0), (x1, y1), frame, max(1, int(rng.uniform(1, 4))), cv2.LINE_AA)
        for _ in range(int(rng.integers(3, 9))):  # the court figure: a few coloured shapes
            c = tuple(float(v) for v in rng.uniform(0, 230, 3))
            p = (int(rng.uniform(x0, x1)), int(rng.uniform(y0, y1)))
            if rng.random() < 0.5:
                cv2.circle(img, p, int(rng.uniform(4, w * 0.15)), c, -1 if rng.random() < 0.6 else 2, cv2.LINE_AA)
            else:
                q = (int(rng.uniform(x0, x1)), int(rng.uniform(y0, y1)))
                cv2.line(img, p, q, c, int(rng.uniform(2, 8)), cv2.LINE_AA)
        if rng.random() < 0.6:  # a big letter in the figure, as some decks print
            big = _rank_mask(style, rank, int(h * rng.uniform(0.15, 0.3)))
            _stamp(img, big, (w - big.shape[1]) // 2, (h - big.shape[0]) // 2, ink)
        return
    n = int(rank)
    ph = int(h * rng.uniform(0.09, 0.13))
    pm = pip_mask(suit, ph)
    cols = 1 if n <= 3 else 2 if n <= 8 and n != 7 else 3
    side = (n - (n % 2 if cols == 3 else 0)) // (2 if cols >= 2 else 1) if cols > 1 else n
    centre = n - side * 2 if cols == 3 else 0
    xs = [w // 2] if cols == 1 else [int(w * 0.33), int(w * 0.67)]
    for cx in xs:
        k = n if cols == 1 else side
        for j in range(k):
            cy = y0 + ph // 2 + (y1 - y0 - ph) * (j / max(1, k - 1) if k > 1 else 0.5)
            m = pm if cy < h / 2 else pm[::-1, ::-1]
            _stamp(img, m, int(cx - m.shape[1] / 2), int(cy - m.shape[0] / 2), ink)
    for j in range(centre):
        cy = h * (0.5 if centre == 1 else 0.33 + 0.34 * j)
        _stamp(img, pm, int(w / 2 - pm.shape[1] / 2), int(cy - pm.shape[0] / 2), ink)


def font_card(rng, style: Style, code: str, height: int = CARD_HEIGHT) -> tuple[np.ndarray, list[tuple[float, float, float, float]]]:
    """One card of ``style``: a BGRA image ``height`` px tall and its corner-index boxes (x0, y0, x1, y1
    as fractions of the card, top-left first), as ``vision.art`` gives each deck's."""
    rank, suit = code[:-1], code[-1]
    h, w = height, int(round(height * rng.uniform(0.64, 0.72)))
    img = np.empty((h, w, 3), np.float32)
    img[:] = style.paper
    ink = _ink(style, suit)
    if style.border:
        m = int(w * 0.04)
        cv2.rectangle(img, (m, m), (w - m, h - m), tuple(float(v) for v in ink), 1, cv2.LINE_AA)
    _middle(rng, img, style, rank, suit, ink)
    mask = _index(style, rank, suit, h)
    x, y = int(style.margin[0] * w), int(style.margin[1] * h)
    mh, mw = mask.shape
    boxes = []
    corners = [(x, y, False), (w - x - mw, h - y - mh, True)]
    if style.four_corners:
        corners += [(w - x - mw, y, False), (x, h - y - mh, True)]
    for cx, cy, turned in corners:
        b = _stamp(img, mask[::-1, ::-1] if turned else mask, cx, cy, ink)
        boxes.append((b[0] / w, b[1] / h, b[2] / w, b[3] / h))
    alpha = np.zeros((h, w), np.uint8)
    r = int(w * rng.uniform(0.03, 0.08))
    cv2.rectangle(alpha, (r, 0), (w - r, h), 255, -1)
    cv2.rectangle(alpha, (0, r), (w, h - r), 255, -1)
    for cx, cy in ((r, r), (w - r, r), (r, h - r), (w - r, h - r)):
        cv2.circle(alpha, (cx, cy), r, 255, -1, cv2.LINE_AA)
    out = np.clip(img, 0, 255).astype(np.uint8)
    cv2.rectangle(out, (0, 0), (w - 1, h - 1), (190, 190, 190), 1)
    return np.dstack([out, alpha]), boxes


def random_code(rng) -> str:
    """A card (rank and suit, as the classifier's classes spell it) drawn at random: no jokers here."""
    return RANKS[int(rng.integers(0, len(RANKS)))] + SUITS[int(rng.integers(0, 4))]
