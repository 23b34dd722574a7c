"""Train the index classifier (``index-cls.onnx``): a small plain CNN in PyTorch (training venv only).

    python -m vision.crops --out /work/cards-data/cls2 --count 32000 --seed 11
    python -m vision.crops --out /work/cards-data/cls2 --count 2000 --seed 12 --split val
    python -m vision.train_cls --data /work/cards-data/cls2 --out /work/cards-runs/cls-cnn --minutes 32 --epochs 7
    python -m vision.train_cls --data /work/cards-data/cls2 --out /work/cards-runs/cls-cnn --export models/index-cls.onnx

Why not ultralytics' yolov8n-cls: from scratch on index crops cut from the synthetic scenes it reached
only 8% top-1 (on training crops too) after 5 epochs (~15 min on 2 cores); this CNN, which keeps full
resolution in its first block, did no better on those crops in 2 epochs. The scene crops were the
problem (fans put several indices in one crop, heavy blur, tiny low-resolution art), so the classifier
is trained on crops rendered for it (``vision.crops``), where this CNN learns.

Input 1x3x48x48 RGB in 0..1 (the crop cut by ``vision.reader.square_crop``), output 53 softmax probabilities
in the order of ``CLS_NAMES`` (52 rank+suit codes and JOKER); the names are stored in the ONNX metadata
(``names``) like ultralytics does, so the reader reads both the same way. Resumes from ``last.pt``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from vision.train import CLS_NAMES

SIZE = 48


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class IndexNet(nn.Module):
    def __init__(self, n=len(CLS_NAMES), w=24):
        super().__init__()
        self.f = nn.Sequential(block(3, w), nn.MaxPool2d(2), block(w, 2 * w), nn.MaxPool2d(2),
                               block(2 * w, 4 * w), nn.MaxPool2d(2), block(4 * w, 8 * w))
        self.drop = nn.Dropout(0.2)
        self.fc = nn.Linear(8 * w, n)

    def forward(self, x):
        x = self.f(x)
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(self.drop(x))


class Exported(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return torch.softmax(self.net(x), 1)


def load(folder: Path):
    xs, ys = [], []
    for ci, name in enumerate(CLS_NAMES):
        for f in sorted((folder / name).glob("*.png")):
            img = cv2.imread(str(f))
            if img.shape[:2] != (SIZE, SIZE):
                img = cv2.resize(img, (SIZE, SIZE))
            xs.append(img[:, :, ::-1])
            ys.append(ci)
    return np.stack(xs), np.array(ys)


def augment(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """x: (B,3,H,W) float 0..1. Brightness, contrast, colour and a quarter turn (indices come at any angle)."""
    b = x.shape[0]
    k = int(torch.randint(0, 4, (1,), generator=g))
    x = torch.rot90(x, k, (2, 3))
    bright = 1 + 0.4 * (torch.rand(b, 1, 1, 1, generator=g) - 0.5)
    contrast = 1 + 0.6 * (torch.rand(b, 1, 1, 1, generator=g) - 0.5)
    tint = 1 + 0.15 * (torch.rand(b, 3, 1, 1, generator=g) - 0.5)
    m = x.mean((1, 2, 3), keepdim=True)
    x = ((x - m) * contrast + m) * bright * tint
    grey = torch.rand(b, 1, 1, 1, generator=g) < 0.1
    x = torch.where(grey, x.mean(1, keepdim=True).expand_as(x), x)
    return x.clamp(0, 1)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.train_cls")
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=Path("/work/cards-runs/cls-cnn"))
    ap.add_argument("--minutes", type=float, default=35)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--export", type=Path, help="only export best.pt to this ONNX file")
    a = ap.parse_args(argv)
    torch.manual_seed(0)
    a.out.mkdir(parents=True, exist_ok=True)
    net = IndexNet()
    if a.export:
        net.load_state_dict(torch.load(a.out / "best.pt")["model"])
        net.eval()
        torch.onnx.export(Exported(net), torch.zeros(1, 3, SIZE, SIZE), str(a.export), opset_version=17,
                          input_names=["images"], output_names=["output0"],
                          dynamic_axes={"images": {0: "batch"}, "output0": {0: "batch"}}, dynamo=False)
        import onnx

        m = onnx.load(str(a.export))
        for k, v in (("names", str(dict(enumerate(CLS_NAMES)))), ("imgsz", str([SIZE, SIZE])),
                     ("description", "Cheat Referee corner-index classifier (IndexNet, vision/train_cls.py)")):
            p = m.metadata_props.add()
            p.key, p.value = k, v
        onnx.save(m, str(a.export))
        print(f"exported {a.export}")
        return 0
    t0 = time.time()
    xtr, ytr = load(a.data / "train")
    xva, yva = load(a.data / "val")
    print(f"loaded {len(ytr)} train / {len(yva)} val crops in {time.time() - t0:.0f}s", flush=True)
    xtr_t = torch.from_numpy(xtr).permute(0, 3, 1, 2).contiguous()
    xva_t = torch.from_numpy(xva).permute(0, 3, 1, 2).contiguous().float() / 255
    ytr_t, yva_t = torch.from_numpy(ytr), torch.from_numpy(yva)
    bs = 128
    steps_per_epoch = (len(ytr) + bs - 1) // bs
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=a.epochs * steps_per_epoch, pct_start=0.15)
    start, best = 0, 0.0
    log = a.out / "results.jsonl"
    if (a.out / "last.pt").exists():
        ck = torch.load(a.out / "last.pt")
        net.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        sched.load_state_dict(ck["sched"])
        start, best = ck["epoch"] + 1, ck["best"]
        print(f"resumed at epoch {start}", flush=True)
    g = torch.Generator().manual_seed(1)
    t_start = time.time()
    for ep in range(start, a.epochs):
        net.train()
        perm = torch.randperm(len(ytr), generator=g)
        tl, tc = 0.0, 0
        for s in range(steps_per_epoch):
            idx = perm[s * bs:(s + 1) * bs]
            x = augment(xtr_t[idx].float() / 255, g)
            out = net(x)
            loss = F.cross_entropy(out, ytr_t[idx], label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tl += float(loss) * len(idx)
            tc += int((out.argmax(1) == ytr_t[idx]).sum())
        net.eval()
        with torch.no_grad():
            pred = torch.cat([net(xva_t[i:i + 512]).argmax(1) for i in range(0, len(yva), 512)])
        acc = float((pred == yva_t).float().mean())
        rank_of = np.array([n[:-1] if n != "JOKER" else n for n in CLS_NAMES])
        racc = float(np.mean(rank_of[pred.numpy()] == rank_of[yva]))
        rec = {"epoch": ep, "train_loss": tl / len(ytr), "train_acc": tc / len(ytr), "val_acc": acc,
               "val_rank_acc": racc, "minutes": (time.time() - t_start) / 60}
        print(json.dumps(rec), flush=True)
        with open(log, "a") as f:
            f.write(json.dumps(rec) + "\n")
        if racc >= best:
            best = racc
            torch.save({"model": net.state_dict(), "epoch": ep, "val_rank_acc": racc}, a.out / "best.pt")
        torch.save({"model": net.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "epoch": ep,
                    "best": best}, a.out / "last.pt")
        if (time.time() - t_start) / 60 > a.minutes:
            print("time budget reached", flush=True)
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
