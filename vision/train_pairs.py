"""Train the pair model (``vision.pairs``): is the strip between two corner indices one card's face?

    python -m vision.train_pairs --data STRIPS.npz [STRIPS.npz ...] --out models/index-pair.onnx
        [--epochs 12] [--seed 0] [--checkpoint RUN.pt]

A small convolutional network (four strided convolutions, about 60 thousand weights) trained from
scratch with PyTorch on the CPU; a tenth of the scenes is held out to report its accuracy. Exported to
ONNX with a sigmoid on its output (one probability per strip), float: it reads a handful of strips a
frame, so quantising it saves nothing. Resumes from ``--checkpoint`` (written after every epoch).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from vision.pairs import STRIP, strips_tensor


def pair_net() -> nn.Module:
    def block(cin: int, cout: int) -> nn.Module:
        return nn.Sequential(nn.Conv2d(cin, cout, 3, 2, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                             nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    return nn.Sequential(block(3, 16), block(16, 32), block(32, 48), block(48, 64),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(64, 1))


class Exported(nn.Module):
    """The network with its sigmoid, as the reader runs it: (N,3,H,W) RGB 0..1 in, (N,) probability out."""

    def __init__(self, net: nn.Module):
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.net(x)[:, 0])


def load(paths: list[Path]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The strips of several files (``vision.pairs``) as one set: strips, labels, same-rank flags, and scene
    numbers kept apart between files (the held-out tenth is drawn by scene, so no scene is split)."""
    xs, ys, rs, sc, offset = [], [], [], [], 0
    for p in paths:
        d = np.load(p)
        xs.append(d["x"])
        ys.append(d["y"])
        rs.append(d["same_rank"])
        sc.append(d["scene"] + offset)
        offset = int(sc[-1].max()) + 1 if len(sc[-1]) else offset
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(rs), np.concatenate(sc)


def augment(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """Half the strips turned half round (the same pair read from its other end: no mirror image), and
    brightness, contrast and colour changed a little."""
    b = x.shape[0]
    turn = torch.rand(b, generator=g) < 0.5
    x = torch.where(turn[:, None, None, None], torch.flip(x, (2, 3)), x)
    bright = 1 + 0.4 * (torch.rand(b, 1, 1, 1, generator=g) - 0.5)
    contrast = 1 + 0.6 * (torch.rand(b, 1, 1, 1, generator=g) - 0.5)
    tint = 1 + 0.2 * (torch.rand(b, 3, 1, 1, generator=g) - 0.5)
    m = x.mean((1, 2, 3), keepdim=True)
    return ((x - m) * contrast + m * bright).mul(tint).clamp(0, 1)


def evaluate(net: nn.Module, x: np.ndarray, y: np.ndarray, r: np.ndarray) -> dict:
    net.eval()
    with torch.no_grad():
        p = torch.cat([torch.sigmoid(net(torch.from_numpy(strips_tensor(x[k:k + 512])))[:, 0])
                       for k in range(0, len(x), 512)]).numpy()
    right = (p >= 0.5) == (y == 1)
    other_same_rank = (y == 0) & (r == 1)
    return {"accuracy": round(float(right.mean()), 4),
            "one_card_found": round(float((p[y == 1] >= 0.5).mean()), 4),
            "other_cards_found": round(float((p[y == 0] >= 0.5).mean()), 4),
            "same_rank_other_cards_found": round(float((p[other_same_rank] >= 0.5).mean()), 4) if other_same_rank.any() else None,
            "sure_wrong": round(float((((p >= 0.9) & (y == 0)) | ((p <= 0.1) & (y == 1))).mean()), 4)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, nargs="+", required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=0.003)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--checkpoint", type=Path)
    a = ap.parse_args(argv)
    torch.manual_seed(a.seed)
    g = torch.Generator().manual_seed(a.seed)
    x, y, r, scene = load(a.data)
    held = np.random.default_rng(a.seed).random(int(scene.max()) + 1) < 0.1
    val = held[scene]
    xt, yt, rt = x[~val], y[~val], r[~val]
    print(f"{len(xt)} training strips ({int(yt.sum())} one card, {int(((yt == 0) & (rt == 1)).sum())} other cards of one rank), "
          f"{int(val.sum())} held out", file=sys.stderr)
    # Another card of the same rank is the case the reader needs told apart; it is rare among the strips.
    weight = np.where((yt == 0) & (rt == 1), 3.0, 1.0).astype(np.float32)
    net = pair_net()
    opt = torch.optim.AdamW(net.parameters(), lr=a.lr, weight_decay=1e-4)
    steps = a.epochs * (len(xt) // a.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=a.lr, total_steps=steps)
    start = 0
    if a.checkpoint and a.checkpoint.exists():
        ck = torch.load(a.checkpoint, weights_only=False)
        net.load_state_dict(ck["net"])
        opt.load_state_dict(ck["opt"])
        sched.load_state_dict(ck["sched"])
        g.set_state(ck["g"])
        start = ck["epoch"]
        print(f"resumed after epoch {start}", file=sys.stderr)
    t0 = time.time()
    for epoch in range(start, a.epochs):
        net.train()
        order = torch.randperm(len(xt), generator=g).numpy()
        total = 0.0
        for k in range(len(xt) // a.batch):
            idx = order[k * a.batch:(k + 1) * a.batch]
            xb = augment(torch.from_numpy(strips_tensor(xt[idx])), g)
            logits = net(xb)[:, 0]
            loss = (F.binary_cross_entropy_with_logits(logits, torch.from_numpy(yt[idx].astype(np.float32)),
                                                       reduction="none") * torch.from_numpy(weight[idx])).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item()
        report = evaluate(net, x[val], y[val], r[val])
        print(f"epoch {epoch + 1}/{a.epochs} loss {total / max(1, len(xt) // a.batch):.4f} held out {report} "
              f"{time.time() - t0:.0f}s", file=sys.stderr)
        if a.checkpoint:
            torch.save({"net": net.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                        "g": g.get_state(), "epoch": epoch + 1}, a.checkpoint)
    net.eval()
    h, w = STRIP
    torch.onnx.export(Exported(net), torch.zeros(1, 3, h, w), str(a.out), input_names=["strips"],
                      output_names=["one_card"], dynamic_axes={"strips": {0: "n"}, "one_card": {0: "n"}},
                      opset_version=17, dynamo=False)
    print(f"wrote {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
