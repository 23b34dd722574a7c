"""Train the card reader's two models with ultralytics (training venv only; the app never imports this).

The reader is two small models:

* ``index-det``: a one-class YOLOv8 detector (a thinner "pico" width of yolov8n) that finds every
  printed corner index (rank + suit pip) in a frame;
* ``index-cls``: a classifier that reads a square crop around one index as one of 53 classes
  (52 rank+suit codes and ``JOKER``). The shipped one is the plain CNN of ``vision.train_cls``
  (trained on ``vision.crops``); the ``cls`` step here (yolov8n-cls on scene crops) reached only 8%
  top-1 in 5 epochs and is kept for the record.

Steps (each resumable; see ``models/README.md`` for the whole recipe)::

    python -m vision.synth --out /work/cards-data/det1 --count 2100 --seed 7            # train decks
    python -m vision.synth --out /work/cards-data/det1 --count 200 --seed 7 --split val # held-out decks
    python -m vision.train det   --data /work/cards-data/det1 --runs /work/cards-runs --hours 1.25
    python -m vision.train export --runs /work/cards-runs --models models
    (classifier: see vision/train_cls.py and models/README.md)

Run a step again after an interruption and it resumes from ``last.pt``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

import cv2
import numpy as np

os.environ.setdefault("YOLO_OFFLINE", "1")

PICO_YAML = """# YOLOv8 'pico': yolov8n depth, 0.1875 width, one class (corner index)
nc: 1
scales:
  p: [0.33, 0.1875, 1024]
backbone:
  - [-1, 1, Conv, [64, 3, 2]]
  - [-1, 1, Conv, [128, 3, 2]]
  - [-1, 3, C2f, [128, True]]
  - [-1, 1, Conv, [256, 3, 2]]
  - [-1, 6, C2f, [256, True]]
  - [-1, 1, Conv, [512, 3, 2]]
  - [-1, 6, C2f, [512, True]]
  - [-1, 1, Conv, [1024, 3, 2]]
  - [-1, 3, C2f, [1024, True]]
  - [-1, 1, SPPF, [1024, 5]]
head:
  - [-1, 1, nn.Upsample, [None, 2, "nearest"]]
  - [[-1, 6], 1, Concat, [1]]
  - [-1, 3, C2f, [512]]
  - [-1, 1, nn.Upsample, [None, 2, "nearest"]]
  - [[-1, 4], 1, Concat, [1]]
  - [-1, 3, C2f, [256]]
  - [-1, 1, Conv, [256, 3, 2]]
  - [[-1, 12], 1, Concat, [1]]
  - [-1, 3, C2f, [512]]
  - [-1, 1, Conv, [512, 3, 2]]
  - [[-1, 9], 1, Concat, [1]]
  - [-1, 3, C2f, [1024]]
  - [[15, 18, 21], 1, Detect, [nc]]
"""

DET_IMGSZ = 416
CLS_IMGSZ = 48
SUITS = ("S", "H", "D", "C")
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
CLS_NAMES = tuple(sorted([r + s for r in RANKS for s in SUITS] + ["JOKER"]))


def crop_index(img: np.ndarray, box, pad: float = 0.25, size: int = CLS_IMGSZ, jitter=None) -> np.ndarray:
    """Square crop around one index box (same code path as the reader: see vision.reader)."""
    from vision.reader import square_crop  # single definition
    return square_crop(img, box, pad=pad, size=size, jitter=jitter)


def cmd_det(a) -> None:
    from ultralytics import YOLO
    run = a.runs / "det"
    last = run / "weights" / "last.pt"
    if last.exists():
        YOLO(str(last)).train(resume=True)
        return
    a.runs.mkdir(parents=True, exist_ok=True)
    yaml = a.runs / "yolov8p-index.yaml"
    yaml.write_text(PICO_YAML)
    model = YOLO(str(yaml))
    model.train(data=str(a.data / "data.yaml"), single_cls=True, imgsz=DET_IMGSZ, epochs=a.epochs,
                time=a.hours, batch=16, workers=0, device="cpu", project=str(a.runs), name="det",
                exist_ok=True, pretrained=False, fliplr=0.0, flipud=0.0, degrees=0.0, mosaic=1.0,
                close_mosaic=1, scale=0.4, translate=0.1, hsv_h=0.02, patience=100, plots=False,
                amp=False, seed=0, deterministic=False, cache=False, save_period=1)


def cmd_crops(a) -> None:
    """Cut classifier crops from the labelled synthetic images (two jittered crops per index)."""
    rng = np.random.default_rng(0)
    n = 0
    for split in ("train", "val"):
        metas = sorted((a.data / "meta" / split).glob("*.json"))
        for name in CLS_NAMES:
            (a.out / split / name).mkdir(parents=True, exist_ok=True)
        for m in metas:
            meta = json.loads(m.read_text())
            img = cv2.imread(str(a.data / "images" / split / f"{m.stem}.jpg"))
            for j, b in enumerate(meta["boxes"]):
                name = "JOKER" if b["rank"].startswith("JOKER") else b["rank"] + b["suit"]
                reps = 2 if split == "train" else 1
                for r in range(reps):
                    jit = rng.normal(0, 0.08, 3) if split == "train" else None
                    crop = crop_index(img, b["box"], pad=float(rng.uniform(0.15, 0.35)) if split == "train" else 0.25,
                                      jitter=jit)
                    cv2.imwrite(str(a.out / split / name / f"{m.stem}_{j}_{r}.png"), crop)
                    n += 1
    print(f"{n} crops in {a.out}")


def cmd_cls(a) -> None:
    from ultralytics import YOLO
    run = a.runs / "cls"
    last = run / "weights" / "last.pt"
    if last.exists():
        YOLO(str(last)).train(resume=True)
        return
    model = YOLO("yolov8n-cls.yaml")
    model.train(data=str(a.data), imgsz=CLS_IMGSZ, epochs=a.epochs, time=a.hours, batch=64, workers=0, device="cpu",
                project=str(a.runs), name="cls", exist_ok=True, pretrained=False, fliplr=0.0, flipud=0.0,
                scale=0.15, hsv_h=0.02, erasing=0.1, auto_augment=None, plots=False, amp=False, seed=0,
                optimizer="AdamW", lr0=0.002, warmup_epochs=1, dropout=0.1,
                patience=100, save_period=1)


def cmd_export(a) -> None:
    from ultralytics import YOLO
    a.models.mkdir(parents=True, exist_ok=True)
    # the shipped classifier is vision.train_cls's CNN (exported by that module); `cls` here is the
    # yolov8n-cls attempt, kept for the record, exported only with --with-cls
    todo = [("index-det", "det", DET_IMGSZ)] + ([("index-cls", "cls", CLS_IMGSZ)] if a.with_cls else [])
    for name, sub, imgsz in todo:
        w = a.runs / sub / "weights" / "best.pt"
        if not w.exists():
            w = a.runs / sub / "weights" / "last.pt"
        if not w.exists():
            print(f"skip {name}: no weights in {w.parent}")
            continue
        out = YOLO(str(w)).export(format="onnx", imgsz=imgsz, opset=17, simplify=True, dynamic=(sub == "cls"))
        shutil.copy(out, a.models / f"{name}.onnx")
        print(f"{name}: {w} -> {a.models / (name + '.onnx')}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.train")
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("det")
    d.add_argument("--data", type=Path, required=True)
    d.add_argument("--runs", type=Path, default=Path("/work/cards-runs"))
    d.add_argument("--epochs", type=int, default=30)
    d.add_argument("--hours", type=float, default=1.0)
    c = sub.add_parser("crops")
    c.add_argument("--data", type=Path, required=True)
    c.add_argument("--out", type=Path, required=True)
    k = sub.add_parser("cls")
    k.add_argument("--data", type=Path, required=True)
    k.add_argument("--runs", type=Path, default=Path("/work/cards-runs"))
    k.add_argument("--epochs", type=int, default=12)
    k.add_argument("--hours", type=float, default=1.0)
    e = sub.add_parser("export")
    e.add_argument("--runs", type=Path, default=Path("/work/cards-runs"))
    e.add_argument("--models", type=Path, default=Path("models"))
    e.add_argument("--with-cls", action="store_true")
    a = p.parse_args(argv)
    {"det": cmd_det, "crops": cmd_crops, "cls": cmd_cls, "export": cmd_export}[a.cmd](a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
