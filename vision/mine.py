"""Classifier crops cut by the shipped detector from the synthetic scenes: what the reader really sees.

    python -m vision.mine --scenes /work/cards-data/det1 --out /work/cards-data/cls3 --split train

The detector (``models/index-det.onnx``, or ``--det-model``) runs over every scene of ``vision.synth`` with a low threshold.
Each box it finds is cut exactly as the reader cuts it (``vision.reader.square_crop``) and filed by what
the scene's labels say is there:

* a box on a labelled index (IoU at least 0.5): the index's class (rank + suit, or ``JOKER``), with the
  detector's own framing, blur and neighbours, which the rendered crops of ``vision.crops`` lack;
* a box on no index (IoU under 0.1 with every index, its centre outside them): ``NONE``. These are the
  detector's false alarms (pips, court-card art, the table), the reason the reader counted cards that
  were not there. With this class the classifier can veto them;
* boxes in between are ambiguous (half an index) and are skipped.

Plus a few random index-sized boxes per scene away from every index, also ``NONE``. Only synthetic
scenes are used: the held-out decks' scenes (``--split val``) give validation crops.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from vision import picture_file, synth
from vision.reader import NOT_AN_INDEX as NONE
from vision.reader import DET_MODEL, CardReader, box_iou, square_crop
from vision.train import CLS_NAMES


def inside(points: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Whether each point (N, 2) lies in any of the boxes (M, 4)."""
    if not len(boxes):
        return np.zeros(len(points), bool)
    return ((points[:, None, 0] >= boxes[None, :, 0]) & (points[:, None, 0] <= boxes[None, :, 2])
            & (points[:, None, 1] >= boxes[None, :, 1]) & (points[:, None, 1] <= boxes[None, :, 3])).any(1)


def label_of(box: dict) -> str:
    return "JOKER" if box["rank"] == "JOKER" else f"{box['rank']}{box['suit']}"


def scene_crops(reader: CardReader, img: np.ndarray, meta: dict, rng, size: int,
                max_pos: int, max_neg: int, random_neg: int) -> list[tuple[np.ndarray, str]]:
    """(crop, class) pairs for one scene."""
    labels = meta["boxes"]
    truth = np.array([b["box"] for b in labels], np.float32).reshape(-1, 4)
    found = reader.detect(img)
    out: list[tuple[np.ndarray, str]] = []
    if len(found):
        overlap = box_iou(found.xyxy, truth) if len(truth) else np.zeros((len(found), 0))
        best = overlap.max(1) if overlap.shape[1] else np.zeros(len(found))
        centres = (found.xyxy[:, :2] + found.xyxy[:, 2:]) / 2
        pos = [i for i in range(len(found)) if best[i] >= 0.5]
        neg = [i for i in range(len(found)) if best[i] < 0.1 and not inside(centres[i:i + 1], truth)[0]]
        for i in rng.permutation(pos)[:max_pos]:
            out.append((square_crop(img, found.xyxy[i], size=size), label_of(labels[int(overlap[i].argmax())])))
        for i in rng.permutation(neg)[:max_neg]:
            out.append((square_crop(img, found.xyxy[i], size=size), NONE))
    h, w = img.shape[:2]
    sides = np.sqrt(np.prod(truth[:, 2:] - truth[:, :2], 1)) if len(truth) else np.array([30.0])
    for _ in range(random_neg * 4):
        if sum(1 for _, c in out if c == NONE) >= max_neg + random_neg:
            break
        side = float(rng.choice(sides)) * rng.uniform(0.7, 1.4)
        x, y = rng.uniform(0, max(w - side, 1)), rng.uniform(0, max(h - side, 1))
        box = np.array([[x, y, x + side, y + side * rng.uniform(0.8, 1.6)]], np.float32)
        if len(truth) and (box_iou(box, truth).max() >= 0.05 or inside((box[:, :2] + box[:, 2:]) / 2, truth)[0]):
            continue
        out.append((square_crop(img, box[0], size=size), NONE))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.mine")
    p.add_argument("--scenes", type=Path, required=True, help="a vision.synth output folder")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--split", choices=["train", "val"], default="train")
    p.add_argument("--size", type=int, default=64)
    p.add_argument("--threshold", type=float, default=0.05, help="detector score threshold (low: hard negatives)")
    p.add_argument("--max-pos", type=int, default=4, help="positives kept per scene")
    p.add_argument("--max-neg", type=int, default=6, help="detector false alarms kept per scene")
    p.add_argument("--random-neg", type=int, default=1, help="random background boxes per scene")
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--det-model", type=Path, default=DET_MODEL, help="the detector that cuts the crops (default: the shipped one)")
    p.add_argument("--prefix", default="m", help="file-name prefix, so that crops mined from two scene folders "
                                                 "into one crop folder do not overwrite each other (scene names repeat)")
    a = p.parse_args(argv)
    reader = CardReader(det_model=a.det_model, det_threshold=a.threshold)
    for name in (*CLS_NAMES, NONE):
        (a.out / a.split / name).mkdir(parents=True, exist_ok=True)
    images = sorted((a.scenes / "images" / a.split).glob("*.jpg"))
    t0, counts = time.time(), {"pos": 0, "neg": 0}
    for k, path in enumerate(images):
        meta = json.loads((a.scenes / "meta" / a.split / f"{path.stem}.json").read_text())
        rng = np.random.default_rng([a.seed, k])
        img = picture_file.read(path)
        for j, (crop, cls) in enumerate(scene_crops(reader, img, meta, rng, a.size, a.max_pos, a.max_neg, a.random_neg)):
            picture_file.write(a.out / a.split / cls / f"{a.prefix}{path.stem}_{j:02d}.png", crop)
            counts["neg" if cls == NONE else "pos"] += 1
        if (k + 1) % 100 == 0 or k + 1 == len(images):
            synth._bar(k + 1, len(images), t0)
    sys.stderr.write(f"\n[mine] {len(images)} scenes: {counts['pos']} index crops, {counts['neg']} NONE crops\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
