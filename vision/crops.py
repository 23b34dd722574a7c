"""Synthetic training crops for the index classifier, rendered directly (much cheaper than whole scenes).

    python -m vision.crops --out DIR --count N --seed S [--split train|val] [--jokers P] [--prefix P]

Each sample: one card of a deck (train or held-out designs, as in ``vision.synth``) turned to any angle
and scaled so its corner index is 12 to 70 px tall, laid on a procedural table with, sometimes, a card
under it and a card over it (never over the index), lit, blurred, noised and JPEG-compressed; then cut
exactly as the reader cuts a detected index (``vision.reader.square_crop`` around the index's box, with
a little jitter). Writes ``DIR/{split}/{CLASS}/NNNNNNN.png`` with CLASS in ``vision.train.CLS_NAMES``.
Decks whose art renders smaller than 200 px are skipped (their indices would be upscaled mush).
"""

from __future__ import annotations

import sys
import time

import cv2
import numpy as np

from vision import art, fontdeck, picture_file, synth
from vision.jokers import joker_card, print_patch, text_clutter
from vision.reader import NOT_AN_INDEX as NONE
from vision.reader import square_crop
from vision.train import CLS_NAMES


def _place(card, box, index_h, angle, center):
    """Homography putting the card's index box centre at ``center`` with index height ``index_h``."""
    ch, cw = card.shape[:2]
    bx, by = (box[0] + box[2]) / 2 * cw, (box[1] + box[3]) / 2 * ch
    s = index_h / ((box[3] - box[1]) * ch)
    a = np.deg2rad(angle)
    c, si = np.cos(a) * s, np.sin(a) * s
    M = np.array([[c, -si, 0], [si, c, 0], [0, 0, 1]], np.float64)
    T0 = np.array([[1, 0, -bx], [0, 1, -by], [0, 0, 1]], np.float64)
    T1 = np.array([[1, 0, center[0]], [0, 1, center[1]], [0, 0, 1]], np.float64)
    return T1 @ M @ T0


def _paste(img, card, H, rng):
    h, w = img.shape[:2]
    P = H.copy()
    P[2, :2] += rng.normal(0, 2e-4, 2)  # a little perspective
    warped = cv2.warpPerspective(card, P, (w, h), flags=cv2.INTER_AREA)
    a = warped[:, :, 3:4].astype(np.float32) / 255
    if rng.random() < 0.6:  # shadow
        sh = cv2.GaussianBlur(np.roll(a[..., 0], (int(rng.integers(-3, 4)), int(rng.integers(-3, 4))), (0, 1)), (0, 0), 2)
        img *= 1 - sh[..., None] * rng.uniform(0.2, 0.5)
    img[:] = img * (1 - a) + warped[:, :, :3].astype(np.float32) * a
    return P


def _top_left(boxes):
    """Of a card's index boxes (shares of its width and height), the one nearest its top left corner."""
    return min(boxes, key=lambda b: b[0] + b[1])


def _fan_centres(rng, card, box, index_h: float, angle: float, center) -> tuple[list, list]:
    """Where the indices of the cards beside one in a fan lie: along the card's own width, one step apart,
    a step being a little more than the index and the margin beside it (the card over it covers its body
    up to there, never its index). Returns the centres of the cards under it (to its left) and over it
    (to its right), nearest first."""
    ch, cw = card.shape[:2]
    s = index_h / ((box[3] - box[1]) * ch)
    step = ((box[2] - box[0]) * cw + box[0] * cw) * s * rng.uniform(1.05, 1.7)
    a = np.deg2rad(angle)
    along = np.array([np.cos(a), np.sin(a)])
    across = np.array([-np.sin(a), np.cos(a)])

    def at(k: int) -> tuple[float, float]:
        c = np.asarray(center) + along * step * k + across * rng.normal(0, 0.08 * index_h)
        return float(c[0]), float(c[1])

    left, right = int(rng.integers(0, 3)), int(rng.integers(0, 3))
    if left + right == 0:
        right = 1
    return [at(-k) for k in range(1, left + 1)], [at(k) for k in range(1, right + 1)]


def sample(rng, bank: synth.ArtBank, decks, size: int = 48, jokers: float = 0.0, font_decks: float = 0.0,
           fans: float = 0.0, cam=None):
    """One crop and its class; ``jokers``: the chance that the card read is a procedural joker;
    ``font_decks``: the chance that it and its neighbours are cards of a new procedural design
    (``vision.fontdeck``) instead of an installed deck's; ``fans``: the chance that it lies in a fan, the
    indices of the cards under and over it a step to either side (a spread reveal: the crop around an
    index then holds its neighbours' too, and the reader must read the one in the middle); ``cam``: a
    generator that shows the scene through a cheap webcam (``vision.synth.webcam``), drawn apart so that
    the card and its table are those of the same seed without it."""
    di = decks[int(rng.integers(0, len(decks)))]
    name, folder, codes, _ = bank.decks[di]
    code = codes[int(rng.integers(0, len(codes)))]
    card, boxes = bank.card(di, code)
    if font_decks and rng.random() < font_decks:
        style = fontdeck.random_style(rng, bank.split)
        code = fontdeck.random_code(rng)
        card, boxes = fontdeck.font_card(rng, style, code)
        codes = [fontdeck.random_code(rng) for _ in range(2)]  # the neighbours' cards: one of two drawn

        def neighbour(_di, c):
            return fontdeck.font_card(rng, style, c)
    else:
        neighbour = bank.card
    if jokers and rng.random() < jokers:
        code = "JOKER-P"
        card, boxes = joker_card(rng, bank.split)
    if not boxes:
        return None
    box = boxes[int(rng.integers(0, len(boxes)))]
    index_h = float(np.exp(rng.uniform(np.log(12), np.log(70))))
    S = int(index_h * 4)
    img = synth.background(rng, S, S)
    angle = rng.uniform(0, 360)
    center = (S / 2, S / 2)
    if fans and rng.random() < fans:  # the top left index: the one a fan leaves showing
        box = _top_left(boxes)
        under, over = _fan_centres(rng, card, box, index_h, angle, center)

        def lay_neighbour(at) -> None:
            other, other_boxes = neighbour(di, codes[int(rng.integers(0, len(codes)))])
            _paste(img, other, _place(other, _top_left(other_boxes or [box]), index_h, angle + rng.normal(0, 4), at), rng)

        for c in under[::-1]:
            lay_neighbour(c)
        H = _paste(img, card, _place(card, box, index_h, angle, center), rng)
        for c in over:
            lay_neighbour(c)
        return _cut(rng, img, card, box, H, S, index_h, size, code, cam)
    # a card under it (a pile), shifted and turned a little
    if rng.random() < 0.5:
        code2 = codes[int(rng.integers(0, len(codes)))]
        card2, boxes2 = neighbour(di, code2)
        off = rng.normal(0, index_h * 1.2, 2)
        H2 = _place(card2, boxes2[0] if boxes2 else box, index_h, angle + rng.normal(0, 15),
                    (center[0] + off[0], center[1] + off[1]))
        _paste(img, card2, H2, rng)
    H = _paste(img, card, _place(card, box, index_h, angle, center), rng)
    # a card over it, beside the index (covers the card's body, not its index)
    if rng.random() < 0.35:
        code3 = codes[int(rng.integers(0, len(codes)))]
        card3, boxes3 = neighbour(di, code3)
        d = rng.uniform(0, 2 * np.pi)
        dist = index_h * rng.uniform(1.4, 2.2)
        H3 = _place(card3, boxes3[0] if boxes3 else box, index_h, angle + rng.normal(0, 10),
                    (center[0] + np.cos(d) * dist * 1.6, center[1] + np.sin(d) * dist * 1.6))
        _paste(img, card3, H3, rng)
    return _cut(rng, img, card, box, H, S, index_h, size, code, cam)


def _face_box(rng, card: np.ndarray, boxes, tries: int = 40):
    """A box on ``card``'s face (shares of its width and height) that shows print but no corner index: a
    pip, part of a court figure, the ace's emblem, as large as an index or up to twice as large. It keeps
    clear of every index box as the reader's crop would see it (the box grown by 0.6 a side, past the crop's
    margin and jitter), and of the mirrored corners, so no
    crop labelled ``NONE`` shows an index. None when the card has no such place."""
    ch, cw = card.shape[:2]
    ink = art._ink_mask(card)
    ih = float(np.median([b[3] - b[1] for b in boxes]))
    iw = float(np.median([b[2] - b[0] for b in boxes]))
    # some designs print an index in all four corners: keep clear of the mirrored places too
    corners = [m for b in boxes for m in (b, (1 - b[2], b[1], 1 - b[0], b[3]), (b[0], 1 - b[3], b[2], 1 - b[1]),
                                          (1 - b[2], 1 - b[3], 1 - b[0], 1 - b[1]))]
    for _ in range(tries):
        k = float(rng.uniform(0.8, 2.2))
        h, w = ih * k * rng.uniform(0.8, 1.2), iw * k * rng.uniform(0.8, 1.4)
        if w > 0.9 or h > 0.9:
            continue
        x0, y0 = rng.uniform(0.04, 0.96 - w), rng.uniform(0.03, 0.97 - h)
        g = 0.6
        if any(x0 - w * g < b[2] and b[0] < x0 + w * (1 + g) and y0 - h * g < b[3] and b[1] < y0 + h * (1 + g) for b in corners):
            continue
        if ink[int(y0 * ch):int((y0 + h) * ch), int(x0 * cw):int((x0 + w) * cw)].mean() < 0.05:
            continue
        return (x0, y0, x0 + w, y0 + h)
    return None


#: Designs whose court cards print their rank's letter large in the middle of the face: a box there is an
#: honest J, Q or K, so no ``NONE`` crop is cut from those faces.
LETTERED_COURTS = {"aisleriot:simplistic", "kde:jolly-royal"}


def face_sample(rng, bank: synth.ArtBank, decks, size: int = 64):
    """A ``NONE`` crop of a card's face away from its corner indices (``_face_box``), cut as the reader
    cuts a detected box. Why: on real photos the detector boxes pips and court figures beside an index, or
    around a figure's face, and a classifier that has seen only indices, words and blank corners reads
    such a box as a weak index of some rank: a card too many, or an abstention (models/HISTORY.md,
    sixteenth and seventeenth sessions)."""
    di = decks[int(rng.integers(0, len(decks)))]
    name, _, codes, _ = bank.decks[di]
    code = codes[int(rng.integers(0, len(codes)))]
    if code.startswith("JOKER") or (name in LETTERED_COURTS and code[:-1] in ("J", "Q", "K")):
        return None  # a joker's face says JOKER; a lettered court's says its rank
    card, boxes = bank.card(di, code)
    face = _face_box(rng, card, boxes) if boxes else None
    if face is None:
        return None
    index_h = float(np.exp(rng.uniform(np.log(12), np.log(70))))
    S = int(index_h * 6)
    img = synth.background(rng, S, S)
    fh = face[3] - face[1]
    ih = float(np.median([b[3] - b[1] for b in boxes]))
    H = _paste(img, card, _place(card, face, index_h * fh / ih, rng.uniform(0, 360), (S / 2, S / 2)), rng)
    return _cut(rng, img, card, face, H, S, index_h, size, NONE)


def _cut(rng, img, card, box, H, S: int, index_h: float, size: int, code: str, cam=None):
    """The crop the reader would cut around the index ``box`` of ``card`` (placed by ``H``), after a
    fingertip now and then and the scene's light and lens (and, with ``cam``, a webcam's); and its class."""
    if rng.random() < 0.15:  # a fingertip near the index
        synth.finger(rng, img, np.zeros(img.shape[:2], np.int32), S, S)
    ch, cw = card.shape[:2]
    q = np.float32([[box[0] * cw, box[1] * ch], [box[2] * cw, box[1] * ch], [box[2] * cw, box[3] * ch], [box[0] * cw, box[3] * ch]])
    q = cv2.perspectiveTransform(q[None], H.astype(np.float32))[0]
    bb = (*q.min(0), *q.max(0))
    img = _light_and_lens(rng, img, S, index_h)
    if cam is not None:
        img = synth.webcam(cam, img)
    crop = square_crop(img, bb, pad=float(rng.uniform(0.15, 0.35)), size=size, jitter=rng.normal(0, 0.06, 3))
    label = "JOKER" if code.startswith("JOKER") else code
    return crop, label


def _light_and_lens(rng, img: np.ndarray, S: int, index_h: float) -> np.ndarray:
    """The scene's light, glare, blur, noise, greyscale and JPEG, with milder blur (crops must stay
    readable to be learnable)."""
    light = 0.6 + 0.6 * synth._lowfreq(rng, S, S, S / rng.uniform(0.5, 2))
    img = img * light[..., None] * rng.normal(1, 0.08, 3) * rng.uniform(0.6, 1.25)
    if rng.random() < 0.3:
        yy, xx = np.mgrid[0:S, 0:S].astype(np.float32)
        r = rng.uniform(5, S / 2)
        img = img + np.exp(-((xx - rng.uniform(0, S)) ** 2 + (yy - rng.uniform(0, S)) ** 2) / (2 * r * r))[..., None] * rng.uniform(40, 160)
    img = np.clip(img, 0, 255)
    if rng.random() < 0.6:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 0.25 + index_h / 40))
    img = np.clip(img + rng.normal(0, rng.uniform(0, 8), img.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.08:
        img = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    img = cv2.imdecode(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 96))])[1], cv2.IMREAD_COLOR)
    return img


def _blank_corner(rng, S: int, index_h: float, size: int) -> np.ndarray:
    """A crop of a corner with nothing printed in it, cut where a card's index would be: the corner of a
    sheet of paper, a box, a card seen from the back's white rim. The index crops all show print in
    their corner, so without these a classifier learns that any white corner is a card."""
    img = synth.background(rng, S, S)
    paper = rng.uniform(150, 255, 3)
    r = int(index_h * rng.uniform(0, 0.6))
    mask = np.zeros((S, S), np.uint8)
    x0, y0 = int(S / 2 - index_h * rng.uniform(0.6, 1.2)), int(S / 2 - index_h * rng.uniform(0.6, 1.2))
    cv2.rectangle(mask, (x0 + r, y0), (S * 2, S * 2), 255, -1)
    cv2.rectangle(mask, (x0, y0 + r), (S * 2, S * 2), 255, -1)
    if r:
        cv2.circle(mask, (x0 + r, y0 + r), r, 255, -1, cv2.LINE_AA)
    a = mask.astype(np.float32)[..., None] / 255
    img = img * (1 - a) + paper * a
    if rng.random() < 0.3:  # a printed frame or a ruled line
        k = int(index_h * rng.uniform(0.2, 0.6))
        cv2.rectangle(img, (x0 + k, y0 + k), (S * 2, S * 2), tuple(float(v) for v in rng.uniform(0, 200, 3)), 1, cv2.LINE_AA)
    M = cv2.getRotationMatrix2D((S / 2, S / 2), float(rng.uniform(0, 360)), 1.0)
    img = cv2.warpAffine(img.astype(np.float32), M, (S, S), borderMode=cv2.BORDER_REFLECT)
    img = _light_and_lens(rng, img, S, index_h)
    bw, bh = index_h * rng.uniform(0.4, 0.9), index_h * rng.uniform(0.7, 1.2)
    return square_crop(img, (S / 2 - bw / 2, S / 2 - bh / 2, S / 2 + bw / 2, S / 2 + bh / 2),
                       pad=float(rng.uniform(0.15, 0.35)), size=size, jitter=rng.normal(0, 0.1, 3))


def text_sample(rng, split: str, size: int = 48):
    """A ``NONE`` crop of print on the table or on a card's edge (lines of type from a newspaper, a
    magazine or a box, or a lone word as the maker's name on an ace), or of a blank corner: real photos
    are full of both, which an index classifier that knows jokers' words would otherwise read as a joker."""
    index_h = float(np.exp(rng.uniform(np.log(12), np.log(70))))
    S = int(index_h * 4)
    if rng.random() < 0.3:  # a blank corner: paper, a notebook, a card box, the white of a card
        return _blank_corner(rng, S, index_h, size), NONE
    if rng.random() < 0.5:  # lines of type: cut an index-sized box out of them
        img = print_patch(rng, S, index_h * rng.uniform(0.2, 0.9), split).astype(np.float32)
        c = S / 2 + rng.normal(0, index_h * 0.3, 2)
        bw, bh = index_h * rng.uniform(0.4, 1.0), index_h * rng.uniform(0.6, 1.2)
        img = _light_and_lens(rng, img, S, index_h)
        box = (c[0] - bw / 2, c[1] - bh / 2, c[0] + bw / 2, c[1] + bh / 2)
        return square_crop(img, box, pad=float(rng.uniform(0.15, 0.35)), size=size, jitter=rng.normal(0, 0.06, 3)), NONE
    if rng.random() < 0.5:
        img = synth.background(rng, S, S)
    else:  # paper: a page, a box, a card's white edge
        img = np.empty((S, S, 3), np.float32)
        img[:] = rng.uniform(170, 255, 3)
    boxes = text_clutter(rng, img, split, int(rng.integers(1, 4)), height=(0.12, 0.4), first_at=(S / 2, S / 2))
    x0, y0, x1, y1 = boxes[0]
    if rng.random() < 0.5:  # part of the word, as a detector's box on text often is
        f = rng.uniform(0.3, 0.7)
        x1, y1 = x0 + (x1 - x0) * f + index_h * 0.5, y0 + (y1 - y0) * f + index_h * 0.5
    img = _light_and_lens(rng, img, S, index_h)
    crop = square_crop(img, (x0, y0, x1, y1), pad=float(rng.uniform(0.15, 0.35)), size=size, jitter=rng.normal(0, 0.1, 3))
    return crop, NONE


def main(argv=None) -> int:
    p = synth.generator_parser("python -m vision.crops", __doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=64, help="crop side in pixels (the classifier's input)")
    p.add_argument("--jokers", type=float, default=0.0,
                   help="share of crops whose card is a procedural joker (vision.jokers); default none")
    p.add_argument("--font-decks", type=float, default=0.0,
                   help="share of crops whose cards are of a procedural design typeset in a system font "
                        "(vision.fontdeck); default none")
    p.add_argument("--fans", type=float, default=0.0,
                   help="share of crops whose card lies in a fan, its neighbours' indices beside its own; default none")
    p.add_argument("--text", action="store_true", help="only NONE crops of printed words (text_sample)")
    p.add_argument("--faces", type=float, default=0.0,
                   help="share of crops that are NONE crops of a card's face away from its indices (face_sample)")
    p.add_argument("--webcam", type=float, default=0.0,
                   help="share of crops seen through a cheap webcam (vision.synth.webcam); default none")
    p.add_argument("--prefix", default="", help="file name prefix (to add crops to a folder that has some)")
    a = p.parse_args(argv)
    if not a.text:  # print crops need no card art
        bank = synth.ArtBank(a.art_cache, a.split, install=not a.no_install, cache_only=a.cache_only)
        decks = [i for i, d in enumerate(bank.decks)
                 if picture_file.read(d[1] / "AS.png", cv2.IMREAD_UNCHANGED).shape[0] >= 200]
        print(f"[crops] {len(decks)} decks: {', '.join(bank.decks[i][0] for i in decks)}", file=sys.stderr)
    if a.font_decks and not (a.no_install or a.cache_only):
        for problem in fontdeck.install_fonts():
            print(f"[crops] could not install: {problem}", file=sys.stderr)
    for name in (*CLS_NAMES, NONE):
        (a.out / a.split / name).mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    i = n = 0
    while n < a.count:
        rng = np.random.default_rng([a.seed, i, 7 if a.split == "train" else 8])
        i += 1
        if a.text:
            s = text_sample(rng, a.split, a.size)
        elif a.faces and rng.random() < a.faces:
            s = face_sample(rng, bank, decks, a.size)
        else:
            s = sample(rng, bank, decks, a.size, a.jokers, a.font_decks, a.fans, synth.side_stream(a.webcam, a.seed, i, 9))
        if s is None:
            continue
        crop, label = s
        picture_file.write(a.out / a.split / label / f"{a.prefix}{n:07d}.png", crop)
        n += 1
        if n % 200 == 0 or n == a.count:
            synth._bar(n, a.count, t0)
    sys.stderr.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
