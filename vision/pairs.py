"""Which two corner indices belong to one card: the picture between them, cut as a strip.

A card prints its index at two opposite corners, so the reader counts a card once when it pairs two
indices of one rank at a card's distance. With several cards of one rank, or an index it reads unsure,
more than one pairing fits and it abstains. The picture settles most of these: between a card's two
indices lies that card's face, edge to edge; between two cards' indices lie table, edges and other
cards. ``strip`` cuts the picture along the line from one index to the other into a fixed-size strip
(the two indices blurred, so that what decides is the card between them, not whether their ranks look
alike), and the pair model reads it.

    python -m vision.pairs --out FILE.npz --seed S SCENES...

builds the training strips from synthetic scene folders (``vision.synth``, whose meta files say which
card each index belongs to): every two labelled indices the reader would consider pairing.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from vision import picture_file

#: Two indices pair only when they are this many index sizes apart (centre to centre; a size is the square
#: root of the box's area)... The near end is short because a detected box is often larger than the
#: printed index, and a card seen at an angle or in a photo resized to another aspect is foreshortened;
#: chosen on the synthetic held-out scenes and the synthetic Cheat reveals (same-rank cards side by side),
#: where 1.5 beat 3.0 on both.
PAIR_RANGE = (1.5, 8.5)
#: ... and the larger is at most this many times the size of the smaller.
PAIR_SIZE_RATIO = 1.8
#: The strip's size in pixels (height, width): the line between the indices runs along its width.
STRIP = (48, 64)
#: How far the strip reaches past each index centre, in index sizes.
MARGIN = 1.0


def size_and_centre(xyxy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each box's size (the square root of its area: the same for an index at any quarter turn) and centre."""
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    return np.sqrt(np.prod(xyxy[:, 2:] - xyxy[:, :2], axis=1).clip(1)), (xyxy[:, :2] + xyxy[:, 2:]) / 2


def within_reach(xyxy: np.ndarray) -> list[tuple[int, int, float]]:
    """Every two boxes whose sizes and distance allow them to be one card's two indices, with the distance
    in index sizes: ``(i, j, d)`` for i < j."""
    size, ctr = size_and_centre(xyxy)
    out = []
    for i in range(len(size)):
        for j in range(i + 1, len(size)):
            if max(size[i], size[j]) / min(size[i], size[j]) > PAIR_SIZE_RATIO:
                continue
            d = float(np.linalg.norm(ctr[i] - ctr[j])) / ((size[i] + size[j]) / 2)
            if PAIR_RANGE[0] <= d <= PAIR_RANGE[1]:
                out.append((i, j, d))
    return out


def _blur_index(img: np.ndarray, box, grow: float = 0.15) -> None:
    """Blur one index box in place (grown a little): its colour stays, its glyph goes."""
    h, w = img.shape[:2]
    x0, y0, x1, y1 = box
    gx, gy = (x1 - x0) * grow, (y1 - y0) * grow
    x0, y0 = max(0, int(x0 - gx)), max(0, int(y0 - gy))
    x1, y1 = min(w, int(np.ceil(x1 + gx))), min(h, int(np.ceil(y1 + gy)))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return
    patch = img[y0:y1, x0:x1]
    mean = patch.reshape(-1, patch.shape[2]).mean(0)
    img[y0:y1, x0:x1] = (0.5 * patch + 0.5 * mean).astype(img.dtype)
    img[y0:y1, x0:x1] = cv2.blur(img[y0:y1, x0:x1], (max(3, (x1 - x0) // 2) | 1, max(3, (y1 - y0) // 2) | 1))


def strip(img: np.ndarray, box_a, box_b) -> np.ndarray:
    """The picture between two index boxes as a ``STRIP``-sized image: the line from ``box_a``'s centre to
    ``box_b``'s runs along the middle from left to right, ``MARGIN`` index sizes of picture beyond each
    centre, and across it as wide as the pixels stay square. The two indices are blurred first."""
    size, ctr = size_and_centre(np.array([box_a, box_b]))
    s = float(size.mean())
    img = img.copy()
    for box in (box_a, box_b):
        _blur_index(img, box)
    u = ctr[1] - ctr[0]
    length = float(np.linalg.norm(u)) + 2 * MARGIN * s
    u = u / max(np.linalg.norm(u), 1e-6)
    v = np.array([-u[1], u[0]])
    h, w = STRIP
    scale = length / w  # picture pixels per strip pixel
    mid = (ctr[0] + ctr[1]) / 2
    origin = mid - u * (w / 2) * scale - v * (h / 2) * scale
    M = np.array([[u[0] * scale, v[0] * scale, origin[0]], [u[1] * scale, v[1] * scale, origin[1]]], np.float64)
    return cv2.warpAffine(img, M, (w, h), flags=cv2.WARP_INVERSE_MAP | cv2.INTER_AREA,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=(114, 114, 114))


def strips_tensor(strips) -> np.ndarray:
    """BGR uint8 strips (N, H, W, 3) as the pair model's input: (N, 3, H, W) RGB float 0..1."""
    x = np.asarray(strips, np.float32)[..., ::-1] / 255.0
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


def _jitter(box, rng: np.random.Generator, amount: float = 0.1) -> list[float]:
    """A labelled box moved and resized a little, as the detector's boxes are."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    dx, dy = rng.normal(0, amount, 2) * (w, h)
    sw, sh = np.exp(rng.normal(0, amount, 2))
    cx, cy = (x0 + x1) / 2 + dx, (y0 + y1) / 2 + dy
    return [cx - w * sw / 2, cy - h * sh / 2, cx + w * sw / 2, cy + h * sh / 2]


def scene_strips(img: np.ndarray, meta: dict, rng: np.random.Generator) -> tuple[list[np.ndarray], list[int], list[int]]:
    """The strips of one labelled scene: for every two labelled indices within reach, the strip (in a random
    direction), whether they are one card's, and whether their ranks are the same."""
    boxes = meta["boxes"]
    xyxy = np.array([_jitter(b["box"], rng) for b in boxes], np.float64).reshape(-1, 4)
    out, same_card, same_rank = [], [], []
    for i, j, _ in within_reach(xyxy):
        a, b = (i, j) if rng.random() < 0.5 else (j, i)
        out.append(strip(img, xyxy[a], xyxy[b]))
        same_card.append(int(boxes[i]["card"] == boxes[j]["card"]))
        same_rank.append(int(boxes[i]["rank"] == boxes[j]["rank"]))
    return out, same_card, same_rank


def build(scene_dirs: list[Path], out: Path, seed: int, split: str = "train") -> dict:
    """Write every scene's strips with their labels to ``out`` (npz: ``x`` uint8 (N,H,W,3) BGR, ``y`` one
    card or not, ``same_rank``, ``scene`` the scene's number in the order read)."""
    rng = np.random.default_rng(seed)
    xs, ys, rs, sc = [], [], [], []
    metas = [m for d in scene_dirs for m in sorted((d / "meta" / split).glob("*.json"))]
    if not metas:
        raise SystemExit(f"no scenes under {[str(d) for d in scene_dirs]} (expected meta/{split}/*.json)")
    t0 = time.time()
    for k, m in enumerate(metas):
        img_path = m.parent.parent.parent / "images" / split / (m.stem + ".jpg")
        img = picture_file.read(img_path)
        if img is None:
            raise SystemExit(f"cannot read the scene picture {img_path}")
        strips_, y, r = scene_strips(img, json.loads(m.read_text()), rng)
        xs += strips_
        ys += y
        rs += r
        sc += [k] * len(y)
        if (k + 1) % 200 == 0 or k + 1 == len(metas):
            print(f"  {k + 1}/{len(metas)} scenes, {len(ys)} strips ({sum(ys)} one card), {time.time() - t0:.0f}s",
                  file=sys.stderr)
    np.savez_compressed(out, x=np.array(xs, np.uint8), y=np.array(ys, np.uint8), same_rank=np.array(rs, np.uint8),
                        scene=np.array(sc, np.int32))
    return {"strips": len(ys), "one_card": int(sum(ys)), "same_rank_other_cards": int(sum(r and not y for r, y in zip(rs, ys)))}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenes", type=Path, nargs="+", help="scene folders made by python -m vision.synth")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--split", default="train")
    a = ap.parse_args(argv)
    print(build(a.scenes, a.out, a.seed, a.split))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
