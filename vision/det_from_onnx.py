"""The shipped detector (``models/index-det.onnx``) rebuilt as an ultralytics checkpoint to train further.

    python -m vision.det_from_onnx --onnx models/index-det.onnx --scenes /work/cards-data/det1 --out /work/cards-runs/det-shipped.pt
    python -m vision.train det --data /work/cards-data/det1 --name det5 --init /work/cards-runs/det-shipped.pt ...

Why: the training runs do not outlive a machine, and the detector takes about 3.3 hours of a 2-core
machine from nothing, so a session on a new machine could not train it at all. Training venv only.

The export folded each batch norm into its convolution, and the int8 file stores the weights quantised.
The network is the pico one (``vision.train.PICO_YAML``) at the width the file was trained at (read from its
first convolution: 0.1875 for pico, 0.25 for the wide detectors shipped since the twenty-fourth session), at the
file's input size. Each convolution gets its de-quantised weights back by
name (the exported graph keeps ultralytics' parameter names), and each batch norm the per-channel mean
and variance of its convolution's output on some scenes, with the scale and shift that undo them: in eval
mode the network computes what the file computes, and in train mode, where a batch norm uses the batch's
own statistics, nearly so (as ``vision.train_cls.net_from_onnx`` does for the classifier). Before it is
saved, its boxes are checked against the file's on validation scenes.
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

import numpy as np
import torch
import yaml

from vision.onnx_weights import input_size, stored_weights, stored_width, unfold_batch_norms
from vision.reader import box_iou, decode_boxes, letterbox, load_image, session
from vision.train import DET_IMGSZ, PICO_WIDTH, detector_yaml

#: The least share of the file's boxes (and of the network's) that the other must find for the rebuilt
#: network to be saved.
MIN_AGREEMENT = 0.9


def detector_network(width: float = PICO_WIDTH):
    from ultralytics.nn.tasks import DetectionModel

    return DetectionModel(yaml.safe_load(detector_yaml(width)), ch=3, nc=1, verbose=False)


def det_from_onnx(path: Path, calibration: torch.Tensor):
    """The detector in ``path`` as a ``DetectionModel`` of its width; ``calibration`` (N, 3, S, S) letterboxed
    scenes in 0..1 give each batch norm its statistics."""
    graph, value = stored_weights(path)
    net = detector_network(stored_width(path)).eval()
    modules = dict(net.named_modules())
    folded, plain = [], []
    for node in (n for n in graph.node if n.op_type == "Conv"):
        name = node.input[1].removesuffix("_DequantizeLinear_Output").removesuffix("_fp16")
        if not name.endswith(".weight") or name.startswith("model.22.dfl"):
            continue  # the DFL's fixed projection is built by the network itself
        owner = name.removesuffix(".weight")
        if owner.endswith(".conv") and owner.removesuffix(".conv") + ".bn" in modules:
            folded.append((modules[owner.removesuffix(".conv")], value(node.input[1]), value(node.input[2])))
        elif owner in modules:
            plain.append((modules[owner], value(node.input[1]), value(node.input[2])))
        else:
            raise ValueError(f"{path}: convolution {owner} has no layer of that name in the network of that width")
    wanted = sum(1 for m in modules.values() if type(m).__name__ == "Conv" and hasattr(m, "bn"))
    if len(folded) != wanted:
        raise ValueError(f"{path}: {len(folded)} folded convolutions, the network has {wanted}")
    with torch.no_grad():
        for conv, w, b in plain:
            conv.weight.copy_(torch.from_numpy(w))
            conv.bias.copy_(torch.from_numpy(b))
    unfold_batch_norms(net, [(block.conv, block.bn, w, b) for block, w, b in folded], calibration, path)
    return net


def _found(a: np.ndarray, b: np.ndarray) -> int:
    """How many boxes of ``a`` have a box of ``b`` at IoU 0.5 or more."""
    return int((box_iou(a, b).max(1) >= 0.5).sum()) if len(a) and len(b) else 0


def agreement(net, path: Path, scenes: torch.Tensor) -> float:
    """The smaller of: the share of the file's boxes the network finds, and the share of its boxes the file finds."""
    sess = session(path)
    net.eval()
    theirs_n = ours_n = theirs_found = ours_found = 0
    with torch.no_grad():
        for x in scenes:
            theirs = decode_boxes(sess.run(None, {sess.get_inputs()[0].name: x[None].numpy()})[0][0], 0.1)[0]
            ours = decode_boxes(net(x[None])[0][0].numpy(), 0.1)[0]
            theirs_n, ours_n = theirs_n + len(theirs), ours_n + len(ours)
            theirs_found, ours_found = theirs_found + _found(theirs, ours), ours_found + _found(ours, theirs)
    return min(theirs_found / max(theirs_n, 1), ours_found / max(ours_n, 1))


def _scenes(folder: Path, split: str, n: int, size: int) -> torch.Tensor:
    files = sorted((folder / "images" / split).glob("*.jpg"))[:n]
    if not files:
        raise SystemExit(f"no scenes in {folder / 'images' / split} (make them with python -m vision.synth)")
    return torch.from_numpy(np.concatenate([letterbox(load_image(f), size)[0] for f in files]))


def save_checkpoint(net, out: Path, size: int) -> None:
    """An ultralytics checkpoint that ``YOLO(out)`` loads and ``vision.train det --init`` trains from."""
    import ultralytics

    net.names = {0: "index"}
    net.args = {"imgsz": size, "single_cls": True}
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": net, "epoch": -1, "train_args": {"imgsz": size, "single_cls": True},
                "date": datetime.datetime.now().isoformat(), "version": ultralytics.__version__}, out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.det_from_onnx", description=__doc__.split("\n\n")[1])
    ap.add_argument("--onnx", type=Path, default=Path("models/index-det.onnx"))
    ap.add_argument("--scenes", type=Path, required=True, help="a vision.synth folder: training scenes calibrate, validation scenes check")
    ap.add_argument("--out", type=Path, required=True, help="the checkpoint to write (.pt)")
    ap.add_argument("--calibration", type=int, default=64, help="training scenes for the batch norms' statistics")
    ap.add_argument("--check", type=int, default=100, help="validation scenes to compare boxes on")
    a = ap.parse_args(argv)
    size = input_size(a.onnx) or DET_IMGSZ
    net = det_from_onnx(a.onnx, _scenes(a.scenes, "train", a.calibration, size))
    agree = agreement(net, a.onnx, _scenes(a.scenes, "val", a.check, size))
    print(f"{a.onnx} rebuilt (width {stored_width(a.onnx)}, input {size}): it and the network find each other's "
          f"boxes on at least {agree:.1%} "
          f"of {a.check} validation scenes' boxes (threshold 0.1)")
    if agree < MIN_AGREEMENT:
        print(f"refused: under {MIN_AGREEMENT:.0%}: not a detector this project exports?", file=sys.stderr)
        return 1
    save_checkpoint(net, a.out, size)
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
