"""Synthetic photos of face-up cards on tables, labelled on the printed corner indices.

    python -m vision.synth --out DIR --count N --seed S [--split train|val] [--art-cache DIR] [--reveal | --spread] [--stretch F]

Writes ``DIR/images/{split}/NNNNNN.jpg`` and YOLO labels ``DIR/labels/{split}/NNNNNN.txt`` (one line per
visible corner index: ``class cx cy w h`` normalised, class = rank index in :data:`CLASSES`), plus
``DIR/meta/{split}/NNNNNN.json`` (per box: rank, suit, deck, card id) and ``DIR/data.yaml``.
The same seed gives the same images. ``--split val`` draws only from the held-out deck designs
(:data:`vision.art.VAL_DECKS`), ``train`` only from the others.

Scenes: 1 to 8 cards (sometimes a pile of up to 24) scattered, in rows and fans that leave only the
corners showing, or stacked; any rotation, mild perspective, card heights from 60 px to the frame;
procedural wood, felt, cloth, carpet, stripes and noise tables with clutter; fingers over edges;
shadows, glare, uneven and coloured light, blur, noise, greyscale and JPEG artefacts; with ``--webcam``,
the washed-out, soft look of a laptop webcam, often on a pale table. Never mirrored.
``--reveal`` renders only Cheat reveals (one to four cards, mostly of one rank, from one design): the
picture the referee must read right, where same-rank indices lie side by side. ``--spread`` renders
only spreads of 5 to 12 cards of one design, where a reader must pair each index with its own card's.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from vision import art, fontdeck, photos, picture_file
from vision.jokers import joker_card, print_patch, text_clutter

CLASSES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "JOKER")


# ---------------------------------------------------------------- backgrounds

def _lowfreq(rng, h, w, scale):
    sh, sw = max(2, int(h / scale)), max(2, int(w / scale))
    n = rng.random((sh, sw)).astype(np.float32)
    return cv2.resize(n, (w, h), interpolation=cv2.INTER_CUBIC)


def _fractal(rng, h, w):
    out = np.zeros((h, w), np.float32)
    amp = 1.0
    for scale in (160, 80, 40, 20, 8):
        out += amp * _lowfreq(rng, h, w, scale)
        amp *= 0.55
    out -= out.min()
    return out / max(out.max(), 1e-6)


def _rand_color(rng, lo=0, hi=255):
    return rng.integers(lo, hi, 3).astype(np.float32)


def background(rng, h, w) -> np.ndarray:
    kind = rng.choice(["felt", "wood", "cloth", "carpet", "stripes", "noise", "gradient", "tiles"],
                      p=[0.15, 0.2, 0.12, 0.13, 0.1, 0.12, 0.08, 0.1])
    c1, c2 = _rand_color(rng), _rand_color(rng)
    if kind == "felt":
        t = _fractal(rng, h, w) * 0.3 + rng.random((h, w)).astype(np.float32) * 0.15
    elif kind == "wood":
        warp = _fractal(rng, h, w) * rng.uniform(5, 25)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ang = rng.uniform(0, np.pi)
        coord = xx * np.cos(ang) + yy * np.sin(ang)
        t = 0.5 + 0.5 * np.sin(coord / rng.uniform(3, 15) + warp)
        t = t ** rng.uniform(1, 4)
        c1 = np.array([rng.uniform(20, 90), rng.uniform(50, 130), rng.uniform(90, 200)], np.float32)
        c2 = c1 * rng.uniform(0.4, 0.8)
    elif kind == "cloth":
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        p = rng.uniform(2, 8)
        t = 0.5 + 0.25 * np.sin(xx * 2 * np.pi / p) + 0.25 * np.sin(yy * 2 * np.pi / p)
        t = t * 0.6 + _fractal(rng, h, w) * 0.4
    elif kind == "carpet":
        t = rng.random((h, w)).astype(np.float32)
        t = cv2.GaussianBlur(t, (0, 0), rng.uniform(0.6, 1.8))
        t = (t - t.min()) / max(1e-6, t.max() - t.min())
    elif kind == "stripes":
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ang = rng.uniform(0, np.pi)
        coord = xx * np.cos(ang) + yy * np.sin(ang) + _fractal(rng, h, w) * 20
        t = (np.sin(coord / rng.uniform(4, 30)) > rng.uniform(-0.5, 0.5)).astype(np.float32)
        t = cv2.GaussianBlur(t, (0, 0), 1.0) * 0.8 + rng.random((h, w)).astype(np.float32) * 0.2
    elif kind == "tiles":
        yy, xx = np.mgrid[0:h, 0:w]
        s = int(rng.integers(20, 120))
        t = (((xx // s) + (yy // s)) % 2).astype(np.float32) * 0.5 + _fractal(rng, h, w) * 0.5
    elif kind == "gradient":
        t = _lowfreq(rng, h, w, max(h, w) / 2)
    else:
        t = _fractal(rng, h, w)
    img = c1[None, None, :] * t[..., None] + c2[None, None, :] * (1 - t[..., None])
    return np.clip(img, 0, 255).astype(np.float32)


def light_table(rng, h, w) -> np.ndarray:
    """A plain pale table top (white or grey laminate, a pale cloth): where a white card's edge is
    barely darker than the table and only its print stands out, as on a kitchen or office table."""
    base = np.array([rng.uniform(150, 235)] * 3, np.float32) + rng.normal(0, 8, 3).astype(np.float32)
    t = _fractal(rng, h, w) * rng.uniform(0.03, 0.12) + rng.random((h, w)).astype(np.float32) * rng.uniform(0, 0.05)
    return np.clip(base[None, None, :] * (1 - t[..., None]), 0, 255).astype(np.float32)


def webcam(rng, img: np.ndarray) -> np.ndarray:
    """The scene as a cheap laptop webcam delivers it: fewer real pixels than it sends (seen small and
    scaled up), washed out (blacks lifted, highlights pulled down, colours faded toward grey), a colour
    cast, sometimes its sharpening halo, and sensor noise. Real webcam frames (realdev's am_win) look so,
    and the rest of the scenes are crisp and saturated."""
    h, w = img.shape[:2]
    f = rng.uniform(1.3, 2.4)
    small = cv2.resize(img, (max(8, int(w / f)), max(8, int(h / f))), interpolation=cv2.INTER_AREA)
    out = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR).astype(np.float32)
    if rng.random() < 0.4:
        soft = cv2.GaussianBlur(out, (0, 0), rng.uniform(1.0, 2.5))
        out = out + rng.uniform(0.3, 1.0) * (out - soft)
    grey = out.mean(axis=2, keepdims=True)
    out = grey + (out - grey) * rng.uniform(0.35, 0.85)
    lo, hi = rng.uniform(15, 70), rng.uniform(195, 250)
    out = lo + out * (hi - lo) / 255
    out = out * rng.normal(1, 0.05, 3).astype(np.float32)
    out = out + rng.normal(0, rng.uniform(1, 5), (h, w, 1)) + rng.normal(0, rng.uniform(0, 3), out.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def side_stream(share: float, seed: int, i: int, stream: int):
    """The generator that gives item ``i`` of a set something extra (the webcam look, ``webcam``; print on the
    table, ``table_print``), or None for the ``1 - share`` of items without it: a stream apart from the item's
    own, so that the item is otherwise what the same seed gives without it."""
    extra = np.random.default_rng([seed, i, stream])
    return extra if share and extra.random() < share else None


def table_print(rng, img, split: str) -> None:
    """One to three printed things on the table, under the cards: a piece of a page or a box (lines of type,
    sometimes under a headline, at any angle) or a few loose words. Real tables carry letters, magazines and
    game boxes, and their type is what the detector takes for a corner index (realdev's edje photos: an
    envelope, a puzzle, a book); the scenes had shapes and photographed things, no print."""
    h, w = img.shape[:2]
    short = min(h, w)
    for _ in range(int(rng.integers(1, 4))):
        if rng.random() < 0.6:
            size = int(short * rng.uniform(0.2, 0.5))
            patch = print_patch(rng, size, float(rng.uniform(0.015, 0.05)) * short, split)
            x, y = int(rng.integers(0, w - size + 1)), int(rng.integers(0, h - size + 1))
            img[y:y + size, x:x + size] = patch
        else:
            text_clutter(rng, img, split, height=(0.02, 0.08))


def clutter(rng, img):
    h, w = img.shape[:2]
    for _ in range(int(rng.integers(0, 5))):
        col = tuple(float(c) for c in _rand_color(rng))
        kind = rng.integers(0, 3)
        if kind == 0:
            p1 = (int(rng.integers(0, w)), int(rng.integers(0, h)))
            cv2.line(img, p1, (int(rng.integers(0, w)), int(rng.integers(0, h))), col, int(rng.integers(1, 8)))
        elif kind == 1:
            c = (int(rng.integers(0, w)), int(rng.integers(0, h)))
            cv2.ellipse(img, c, (int(rng.integers(10, w // 3)), int(rng.integers(10, h // 3))),
                        float(rng.uniform(0, 180)), 0, 360, col, -1)
        else:
            pts = rng.integers(0, max(h, w), (4, 2)).astype(np.int32)
            cv2.fillConvexPoly(img, pts, col)


# ---------------------------------------------------------------- cards

class ArtBank:
    def __init__(self, cache: Path, split: str, install: bool = True, cache_only: bool = False):
        index = art.cached_index(cache) if cache_only else art.build_cache(cache, progress=_art_progress, install=install)
        self.decks = []
        for name, e in sorted(index.items()):
            if (name in art.VAL_DECKS) != (split == "val"):
                continue
            if not e["index_boxes"] or len(e["cards"]) < 52:
                continue
            self.decks.append((name, cache / e["folder"], e["cards"], e["index_boxes"]))
        if not self.decks:
            raise SystemExit(f"no usable deck for split {split!r} in {cache}")
        self._cache: dict = {}
        self.split = split

    def card(self, deck_i: int, code: str):
        key = (deck_i, code)
        if key not in self._cache:
            name, folder, cards, boxes = self.decks[deck_i]
            img = picture_file.read(folder / f"{code}.png", cv2.IMREAD_UNCHANGED)
            h, w = img.shape[:2]
            # keep only index boxes that really hold ink on this card (jokers often have none)
            ink = art._ink_mask(img)
            keep = []
            for b in boxes:
                x0, y0, x1, y1 = int(b[0] * w), int(b[1] * h), int(b[2] * w), int(b[3] * h)
                if ink[y0:y1, x0:x1].mean() > 0.04 if y1 > y0 and x1 > x0 else False:
                    keep.append(b)
            self._cache[key] = (img, keep)
        return self._cache[key]


def _art_progress(i, n, name, ncards, nboxes):
    print(f"[art] rendered {i}/{n} {name}: {ncards} cards, {nboxes} index corners", file=sys.stderr, flush=True)


def _card_homography(rng, cw, ch, center, height_px, angle, persp):
    s = height_px / ch
    src = np.float32([[0, 0], [cw, 0], [cw, ch], [0, ch]])
    pts = (src - [cw / 2, ch / 2]) * s
    a = np.deg2rad(angle)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]], np.float32)
    pts = pts @ R.T
    pts += rng.normal(0, persp * height_px, pts.shape).astype(np.float32)
    pts += np.float32(center)
    return cv2.getPerspectiveTransform(src, pts.astype(np.float32))


#: The step between neighbours in a tight fan or row, as fractions of the card's height: a strip about an index wide.
TIGHT_STEPS = (0.07, 0.15)


def tight_layout(rng, n, w, h, steps: tuple[float, float] = TIGHT_STEPS):
    """Centers, angles and a common card height for n cards laid as one or two tight fans or rows, each
    card over the last but for a strip as wide as its index (a whole suit, or a pile laid out after a
    call): indices side by side, each partly covered by the next card's edge. ``steps``: the range of the
    step between neighbours, as fractions of the card's height (a wider one shows whole indices, as whole-suit
    rows on a real table often do)."""
    short = min(w, h)
    height = float(np.exp(rng.uniform(np.log(120), np.log(short * 0.6))))
    rows = 2 if n > 10 and rng.random() < 0.5 else 1
    base = rng.uniform(0, 360)
    d = np.deg2rad(base + rng.choice([0, 90, 180, 270]) + rng.normal(0, 6))
    along, across = np.array([np.cos(d), np.sin(d)]), np.array([-np.sin(d), np.cos(d)])
    step = height * rng.uniform(*steps)
    splay = rng.uniform(1, 5) if rng.random() < 0.5 else 0.0
    centre = np.array([rng.uniform(0.35, 0.65) * w, rng.uniform(0.35, 0.65) * h])
    per_row = -(-n // rows)
    cards = []
    for r in range(rows):
        k = min(per_row, n - r * per_row)
        start = centre + across * height * 1.05 * (r - (rows - 1) / 2) - along * step * (k - 1) / 2
        for i in range(k):
            c = start + along * step * i
            cards.append(((c[0], c[1]), base + splay * (i - (k - 1) / 2) + rng.normal(0, 1.5)))
    return cards, height


def layout(rng, n, w, h, spread: bool = False):
    """Centers, angles and a common card height for n cards; ``spread``: scattered, each card 90 px tall
    to under half the frame."""
    mode = "scatter" if spread else rng.choice(["scatter", "fan", "row", "pile"], p=[0.35, 0.25, 0.25, 0.15])
    short = min(w, h)
    if spread:
        height = float(np.exp(rng.uniform(np.log(90), np.log(short * 0.45))))
    elif n == 1:
        height = float(np.exp(rng.uniform(np.log(60), np.log(short * 0.95))))
    else:
        height = float(np.exp(rng.uniform(np.log(60), np.log(max(61, short * (0.9 if n <= 3 else 0.6))))))
    cards = []
    if mode == "scatter" or n == 1:
        for _ in range(n):
            cards.append(((rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h), rng.uniform(0, 360)))
    elif mode in ("fan", "row"):
        base = rng.uniform(0, 360)
        step = height * 0.7 * rng.uniform(0.15, 0.6)
        d = np.deg2rad(base + rng.choice([0, 90, 180, 270]) + rng.normal(0, 10))
        start = np.array([rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h]) - np.array([np.cos(d), np.sin(d)]) * step * (n - 1) / 2
        splay = rng.uniform(3, 12) if mode == "fan" else 0
        for i in range(n):
            c = start + np.array([np.cos(d), np.sin(d)]) * step * i
            cards.append(((c[0], c[1]), base + splay * (i - (n - 1) / 2) + rng.normal(0, 2)))
    else:
        c0 = np.array([rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h])
        for _ in range(n):
            c = c0 + rng.normal(0, height * 0.35, 2)
            cards.append(((c[0], c[1]), rng.uniform(0, 360)))
    return cards, height


def finger(rng, img, occ, w, h):
    """A skin-coloured finger or thumb over the picture (occludes labels)."""
    skin = np.array([rng.uniform(60, 170), rng.uniform(90, 190), rng.uniform(140, 235)], np.float32)
    c = (int(rng.integers(0, w)), int(rng.integers(0, h)))
    ax = (int(rng.integers(15, max(16, w // 6))), int(rng.integers(40, max(41, h // 2))))
    ang = float(rng.uniform(0, 180))
    m = np.zeros((h, w), np.uint8)
    cv2.ellipse(m, c, ax, ang, 0, 360, 255, -1)
    mf = cv2.GaussianBlur(m.astype(np.float32) / 255, (0, 0), 2)[..., None]
    shade = skin * (0.8 + 0.4 * _lowfreq(rng, h, w, 60)[..., None])
    img[:] = img * (1 - mf) + shade * mf
    occ[m > 127] = -1


def reveal_picks(rng, codes: list[str]) -> np.ndarray:
    """The cards of a Cheat reveal: one to four cards of one rank (an honest play), a third of the time
    with one card of another rank among them (a lie). Same-rank indices side by side in a fan or a pile
    are what the reader must not merge into one card."""
    ranks = sorted({c[:-1] for c in codes if not c.startswith("JOKER")})
    rank = ranks[int(rng.integers(0, len(ranks)))]
    same = [i for i, c in enumerate(codes) if not c.startswith("JOKER") and c[:-1] == rank]
    picks = list(rng.choice(same, size=min(int(rng.integers(1, 5)), len(same)), replace=False))
    if rng.random() < 0.33:
        others = [i for i in range(len(codes)) if i not in same]
        picks[int(rng.integers(0, len(picks)))] = int(rng.choice(others))
    return np.array(picks)


def render_scene(rng, bank: ArtBank, reveal: bool = False, spread: bool = False, jokers: float = 0.0,
                 font_decks: float = 0.0, tight: bool = False, pictures=None, cam=None,
                 tight_steps: tuple[float, float] = TIGHT_STEPS, printed=None):
    """One table scene and its index labels; ``reveal``: the cards of a Cheat reveal, from one design;
    ``spread``: 5 to 12 distinct cards of one design spread over the table (a pile shown after a call, or
    a hand laid out), where many indices lie within a card's reach of indices of other cards; ``jokers``:
    the share of cards replaced by a procedural joker (``vision.jokers``) of the bank's split;
    ``font_decks``: the chance that the scene's cards are of one new procedural design (``vision.fontdeck``);
    ``tight``: 8 to 16 distinct cards of one design in tight fans or rows (``tight_layout``), neighbours
    ``tight_steps`` apart; ``pictures``: a generator and pictures (``vision.photos``) that lay one to three
    things on the table and, a quarter of the time, a picture under everything as the table top, drawn from
    their own generator so that the cards are those of the same scene without them; ``cam``: a generator that
    shows the scene through a cheap webcam (``webcam``), half the time on a pale table (``light_table``), drawn
    apart for the same reason; ``printed``: a generator that lays print on the table (``table_print``), apart
    too."""
    w, h = [(640, 480), (640, 640), (480, 640), (640, 360), (640, 480)][int(rng.integers(0, 5))]
    img = background(rng, h, w)  # drawn even when replaced below: the scene's own stream goes on unchanged
    if cam is not None and cam.random() < 0.5:
        img = light_table(cam, h, w)
    if pictures is not None:
        prng, pics = pictures
        if prng.random() < 0.25:
            photos.table(prng, img, pics)
    clutter(rng, img)
    if pictures is not None:
        photos.things(prng, img, pics, int(prng.integers(1, 4)))
    if printed is not None:
        table_print(printed, img, bank.split)
    r = rng.random()
    n = int(rng.integers(1, 4)) if r < 0.35 else int(rng.integers(4, 9)) if r < 0.85 else int(rng.integers(9, 25))
    deck_i = int(rng.integers(0, len(bank.decks)))
    name, folder, codes, _ = bank.decks[deck_i]
    # Cheat is mostly one deck: draw distinct cards, sometimes from a second design too
    if spread:
        n = int(rng.integers(5, 13))
    if tight:
        n = int(rng.integers(8, 17))
    picks = reveal_picks(rng, codes) if reveal else rng.choice(len(codes), size=min(n, len(codes)), replace=False)
    place, height = tight_layout(rng, len(picks), w, h, tight_steps) if tight else layout(rng, len(picks), w, h, spread)
    occ = np.full((h, w), -2, np.int32)  # id of the top card at each pixel (-2 table, -1 finger)
    polys = []  # per card: list of (index polygon, code)
    persp = rng.uniform(0, 0.06)
    style = fontdeck.random_style(rng, bank.split) if font_decks and rng.random() < font_decks else None
    for k, (pi, (center, angle)) in enumerate(zip(picks, place)):
        di = deck_i if reveal or spread or tight or rng.random() > 0.1 else int(rng.integers(0, len(bank.decks)))
        code = bank.decks[di][2][int(pi) % len(bank.decks[di][2])]
        if style is None:
            card, boxes = bank.card(di, code)
            dname = bank.decks[di][0]
        else:  # the installed deck's art is not needed: the card is drawn in the scene's procedural design
            code = code if not code.startswith("JOKER") else fontdeck.random_code(rng)
            card, boxes = fontdeck.font_card(rng, style, code)
            dname = f"font:{style.font.stem}"
        if jokers and rng.random() < jokers:
            code = "JOKER-P"
            card, boxes = joker_card(rng, bank.split)
        ch, cw = card.shape[:2]
        hh = height * rng.uniform(0.93, 1.07)
        H = _card_homography(rng, cw, ch, center, hh, angle, persp)
        warped = cv2.warpPerspective(card, H, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        a = warped[:, :, 3:4].astype(np.float32) / 255
        # shadow
        if rng.random() < 0.7:
            off = rng.normal(0, max(1.5, hh * 0.02), 2)
            M = np.float32([[1, 0, off[0]], [0, 1, off[1]]])
            sh = cv2.warpAffine(a[..., 0], M, (w, h))
            sh = cv2.GaussianBlur(sh, (0, 0), max(1.0, hh * 0.02))[..., None]
            img *= 1 - sh * rng.uniform(0.2, 0.6)
        img[:] = img * (1 - a) + warped[:, :, :3].astype(np.float32) * a
        occ[a[..., 0] > 0.5] = k
        cps = []
        for b in boxes:
            q = np.float32([[b[0] * cw, b[1] * ch], [b[2] * cw, b[1] * ch], [b[2] * cw, b[3] * ch], [b[0] * cw, b[3] * ch]])
            cps.append(cv2.perspectiveTransform(q[None], H)[0])
        polys.append((cps, code, dname))
    for _ in range(int(rng.choice([0, 0, 1, 2]))):
        finger(rng, img, occ, w, h)
    labels = []
    for k, (cps, code, dname) in enumerate(polys):
        for q in cps:
            m = np.zeros((h, w), np.uint8)
            cv2.fillConvexPoly(m, np.round(q).astype(np.int32), 1)
            area = int(m.sum())
            if area < 30:
                continue
            vis = float((occ[m > 0] == k).mean())
            if vis < 0.6:
                continue
            x0, y0 = q.min(0)
            x1, y1 = q.max(0)
            x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
            if x1 - x0 < 4 or y1 - y0 < 4:
                continue
            rank = code.split("-")[0] if code.startswith("JOKER") else code[:-1]
            suit = None if code.startswith("JOKER") else code[-1]
            labels.append({"rank": rank, "suit": suit, "card": k, "deck": dname,
                           "box": [float(x0), float(y0), float(x1), float(y1)]})
    img = photometric(rng, img)
    if cam is not None:
        img = webcam(cam, img)
    return img, labels


def photometric(rng, img):
    h, w = img.shape[:2]
    # uneven, coloured light
    light = 0.55 + 0.7 * _lowfreq(rng, h, w, max(h, w) / rng.uniform(1, 3))
    tint = rng.normal(1, 0.08, 3).astype(np.float32)
    img = img * light[..., None] * tint * rng.uniform(0.6, 1.25)
    # glare
    for _ in range(int(rng.choice([0, 0, 1, 2]))):
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(20, max(h, w) / 3)
        g = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
        img = img + g[..., None] * rng.uniform(60, 200)
    img = np.clip(img, 0, 255)
    if rng.random() < 0.5:
        k = rng.uniform(0.3, 1.8)
        img = cv2.GaussianBlur(img, (0, 0), k)
    elif rng.random() < 0.3:
        L = int(rng.integers(3, 9))
        kern = np.zeros((L, L), np.float32)
        kern[L // 2, :] = 1 / L
        M = cv2.getRotationMatrix2D((L / 2 - 0.5, L / 2 - 0.5), float(rng.uniform(0, 180)), 1)
        kern = cv2.warpAffine(kern, M, (L, L))
        img = cv2.filter2D(img, -1, kern / max(kern.sum(), 1e-6))
    img = img + rng.normal(0, rng.uniform(0, 10), img.shape)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.08:
        g = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        img = cv2.cvtColor(g, cv2.COLOR_GRAY2BGR)
    return img


def stretch(rng, img: np.ndarray, labels: list[dict], most: float) -> tuple[np.ndarray, list[dict]]:
    """The scene as a photo resized to another aspect ratio: one axis stretched against the other by a
    factor up to ``most`` (a 16:9 webcam frame squeezed into a square is 1.78), then scaled back so its
    longer side is what it was. Exports (Roboflow's among them) and some camera pipelines do this; every
    index comes out narrower or wider, and slanted when it is turned."""
    h, w = img.shape[:2]
    f = float(np.exp(rng.uniform(-np.log(most), np.log(most))))
    sx, sy = (1.0, f) if f >= 1 else (1.0 / f, 1.0)
    k = max(h, w) / max(h * sy, w * sx)
    sx, sy = sx * k, sy * k
    nw, nh = int(round(w * sx)), int(round(h * sy))
    out = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_AREA)
    sx, sy = nw / w, nh / h
    moved = [{**lab, "box": [lab["box"][0] * sx, lab["box"][1] * sy, lab["box"][2] * sx, lab["box"][3] * sy]}
             for lab in labels]
    return out, moved


# ---------------------------------------------------------------- main

def _bar(i, n, t0, width=30):
    done = int(width * i / n)
    rate = i / max(time.time() - t0, 1e-6)
    eta = (n - i) / max(rate, 1e-6)
    sys.stderr.write(f"\r[{'#' * done}{'.' * (width - done)}] {i}/{n} {rate:.1f} img/s eta {eta:.0f}s")
    sys.stderr.flush()


def _step_range(text: str) -> tuple[float, float]:
    """``LO:HI`` as a tight row's step range (fractions of a card's height), or an error that says what is wrong."""
    try:
        lo, hi = (float(v) for v in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"'{text}' is not LO:HI (two fractions of a card's height, e.g. 0.07:0.25)") from None
    if not 0 < lo <= hi < 0.5:
        raise argparse.ArgumentTypeError(f"'{text}': a step must lie between 0 and half a card's height, LO <= HI")
    return lo, hi


def generator_parser(prog: str, description: str) -> argparse.ArgumentParser:
    """The options every synthetic-data generator takes (this one and ``vision.crops``)."""
    p = argparse.ArgumentParser(prog=prog, description=description)
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--count", required=True, type=int)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--split", choices=["train", "val"], default="train")
    p.add_argument("--art-cache", type=Path, default=Path("/work/cards-data/art"))
    p.add_argument("--no-install", action="store_true",
                   help="only look for the card art; do not install what is missing (apt-get, npm)")
    p.add_argument("--cache-only", action="store_true",
                   help="use the rendered art in --art-cache as it stands, neither installing nor rendering "
                        "(a machine without the decks, after python -m vision.artpack unpack)")
    return p


def _photos_for(a) -> tuple:
    """The pictures of ``a.split`` (``vision.photos``), installing their packages unless told not to; stops
    with what is missing when there are none."""
    if not (a.no_install or a.cache_only):
        for problem in photos.install_photos():
            print(f"[synth] could not install: {problem}", file=sys.stderr)
    pics = photos.pictures(a.split)
    if not pics:
        raise SystemExit(f"--photos: no pictures for {a.split} in {', '.join(map(str, photos.PHOTO_DIRS))} "
                         f"(apt-get install {' '.join(photos.PHOTO_PACKAGES)})")
    print(f"[synth] {len(pics)} pictures for {a.split}", file=sys.stderr)
    return pics


def main(argv=None) -> int:
    p = generator_parser("python -m vision.synth", __doc__.split("\n\n")[0])
    p.add_argument("--start", type=int, default=0, help="first image number (to extend a set)")
    p.add_argument("--reveal", action="store_true",
                   help="scenes of Cheat reveals only (1-4 cards mostly of one rank), for validating the reader")
    p.add_argument("--jokers", type=float, default=0.0,
                   help="share of cards replaced by a procedural joker (vision.jokers); default none")
    p.add_argument("--font-decks", type=float, default=0.0,
                   help="share of scenes whose cards are of a new procedural design typeset in a system font "
                        "(vision.fontdeck); default none")
    p.add_argument("--spread", action="store_true",
                   help="scenes of 5-12 cards of one design spread over the table, for validating the reader")
    p.add_argument("--tight", action="store_true",
                   help="scenes of 8-16 cards of one design in tight fans or rows, each card over the last but "
                        "for a strip with its index (a suit or a pile laid out after a call)")
    p.add_argument("--tight-steps", type=_step_range, default=TIGHT_STEPS, metavar="LO:HI",
                   help="with --tight: the step between neighbours as fractions of the card's height "
                        f"(default {TIGHT_STEPS[0]}:{TIGHT_STEPS[1]}; e.g. 0.07:0.25 also shows whole indices)")
    p.add_argument("--photos", type=float, default=0.0,
                   help="share of scenes with things cut from photographs on the table (vision.photos; the "
                        "cards are those the same seed gives without it); default none")
    p.add_argument("--stretch", type=float, default=1.0,
                   help="resize each scene to another aspect ratio, by up to this factor (1: never); the "
                        "scenes are otherwise those the same seed gives without it")
    p.add_argument("--print", type=float, default=0.0,
                   help="share of scenes with print on the table under the cards: pieces of pages and boxes, loose "
                        "words (the cards are those the same seed gives without it); default none")
    p.add_argument("--webcam", type=float, default=0.0,
                   help="share of scenes seen through a cheap webcam, half of them on a pale table (the cards "
                        "are those the same seed gives without it); default none")
    a = p.parse_args(argv)
    bank = ArtBank(a.art_cache, a.split, install=not a.no_install, cache_only=a.cache_only)
    if a.font_decks and not (a.no_install or a.cache_only):
        for problem in fontdeck.install_fonts():
            print(f"[synth] could not install: {problem}", file=sys.stderr)
    print(f"[synth] {len(bank.decks)} deck designs for {a.split}: {', '.join(d[0] for d in bank.decks)}", file=sys.stderr)
    pics = _photos_for(a) if a.photos else ()
    for sub in ("images", "labels", "meta"):
        (a.out / sub / a.split).mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    for i in range(a.start, a.start + a.count):
        rng = np.random.default_rng([a.seed, i, 0 if a.split == "train" else 1])
        prng = np.random.default_rng([a.seed, i, 3])
        with_photos = (prng, pics) if a.photos and prng.random() < a.photos else None
        cam = side_stream(a.webcam, a.seed, i, 4)
        img, labels = render_scene(rng, bank, a.reveal, a.spread, a.jokers, a.font_decks, a.tight, with_photos, cam,
                                   a.tight_steps, side_stream(a.print, a.seed, i, 5))
        stem = f"{i:06d}"
        q = int(rng.integers(35, 96))
        if a.stretch > 1:
            img, labels = stretch(np.random.default_rng([a.seed, i, 2]), img, labels, a.stretch)
        picture_file.write(a.out / "images" / a.split / f"{stem}.jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
        h, w = img.shape[:2]
        with open(a.out / "labels" / a.split / f"{stem}.txt", "w") as f:
            for lab in labels:
                x0, y0, x1, y1 = lab["box"]
                f.write(f"{CLASSES.index(lab['rank'])} {(x0 + x1) / 2 / w:.6f} {(y0 + y1) / 2 / h:.6f} "
                        f"{(x1 - x0) / w:.6f} {(y1 - y0) / h:.6f}\n")
        (a.out / "meta" / a.split / f"{stem}.json").write_text(json.dumps({"width": w, "height": h, "boxes": labels}))
        _bar(i - a.start + 1, a.count, t0)
    sys.stderr.write("\n")
    (a.out / "data.yaml").write_text(
        f"path: {a.out.resolve()}\ntrain: images/train\nval: images/val\nnames:\n"
        + "".join(f"  {i}: '{c}'\n" for i, c in enumerate(CLASSES)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
