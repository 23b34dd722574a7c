"""Train the card reader's two models with ultralytics (training venv only; the app never imports this).

The reader is two small models:

* ``index-det``: a one-class YOLOv8 detector (a thinner "pico" width of yolov8n) that finds every
  printed corner index (rank + suit pip) in a frame;
* ``index-cls``: a classifier that reads a square crop around one index as one of 54 classes
  (52 rank+suit codes, ``JOKER`` and ``NONE`` for a box that is no index), trained by
  ``vision.train_cls`` on ``vision.crops`` and ``vision.mine``.

The whole recipe is one command, ``python -m vision.train all`` (``scripts/train.sh`` also makes the
training venv): card art, scenes, three detector schedules, the detector's export, classifier crops
rendered and cut by that detector, two classifier schedules, font-deck crops (``vision.fontdeck``) and a
third schedule on them, more font-deck crops and scenes and a fourth schedule, and the classifier: the
int8 exports of the last three schedules joined into one averaging model (``vision.ensemble``); then the pair
model (``vision.train_pairs``), the fourth classifier schedule and the detector each trained further on data
labelled by the corrected index boxes, and the gate fitted to those models (``vision.train_gate``), each step
in turn (:func:`recipe`). A finished step leaves a mark and is skipped when the command runs again;
an interrupted training step resumes from its ``last.pt``, any other step starts again. The models are
exported beside the runs (``--models``, default ``RUNS/candidate``), not into ``models/``: a candidate
ships only after the benches measure it (``models/README.md``).

One step at a time (each resumable)::

    python -m vision.train det   --data /work/cards-data/det1 --runs /work/cards-runs --hours 1.25
    python -m vision.train det   --data /work/cards-data/det1 --name det2 --init /work/cards-runs/det/weights/best.pt --hours 0.9
    python -m vision.train export --runs /work/cards-runs --models models --name det3   # int8, vision.quantize
    python -m vision.train det   --data /work/cards-data/det1 --also /work/cards-data/det-jokers ...  # more scenes
    (classifier: see vision/train_cls.py)
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from assistant.cards import CLAIMABLE, SUITS

os.environ.setdefault("YOLO_OFFLINE", "1")

PICO_WIDTH = 0.1875
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
CLS_NAMES = tuple(sorted([r.value + s for r in CLAIMABLE for s in SUITS] + ["JOKER"]))


def detector_yaml(width: float = PICO_WIDTH) -> str:
    """The detector's architecture: the pico network, or the same at another width (channels scale
    with it; the CPU cost of a frame grows about with its square)."""
    if width == PICO_WIDTH:
        return PICO_YAML
    return PICO_YAML.replace(f"p: [0.33, {PICO_WIDTH}, 1024]", f"p: [0.33, {width}, 1024]").replace(
        f"{PICO_WIDTH} width", f"{width} width")


def _results_without_polars() -> None:
    """ultralytics reads its ``results.csv`` with polars whenever it saves a checkpoint. A lent GPU machine
    has no polars and its wheel cannot travel there (170 MB unpacked, over what a command may carry), so
    where polars is missing the same file is read with the ``csv`` module, into the same columns."""
    try:
        import polars  # noqa: F401
        return
    except ImportError:
        pass
    import csv
    from ultralytics.engine.trainer import BaseTrainer

    def read_results_csv(self) -> dict:
        try:
            with open(self.csv, newline="") as f:
                rows = list(csv.DictReader(f))
        except OSError:
            return {}
        return {k.strip(): [float(r[k]) for r in rows] for k in rows[0]} if rows else {}

    BaseTrainer.read_results_csv = read_results_csv


def cmd_det(a) -> None:
    """Train (or resume) the detector run ``a.name``; ``--init`` starts it from another run's weights
    (a second, shorter schedule at a lower learning rate: how training continues in a later session).
    The defaults are the shipped CPU schedules'; ``--device``, ``--batch``, ``--workers`` and ``--cache``
    are for a GPU (``scripts/gpu_burst.sh``)."""
    from ultralytics import YOLO
    _results_without_polars()
    run = a.runs / a.name
    last = run / "weights" / "last.pt"
    if last.exists():
        YOLO(str(last)).train(resume=True)
        return
    a.runs.mkdir(parents=True, exist_ok=True)
    if a.init:
        model, more = YOLO(str(a.init)), {"optimizer": "AdamW", "lr0": a.lr, "warmup_epochs": 0}
    else:
        yaml = a.runs / "yolov8p-index.yaml"
        yaml.write_text(detector_yaml(a.width))
        model, more = YOLO(str(yaml)), {}
    model.train(data=str(_data_yaml(a, run)), single_cls=True, imgsz=a.imgsz, epochs=a.epochs,
                time=a.hours, batch=a.batch, workers=a.workers, device=a.device, project=str(a.runs), name=a.name,
                exist_ok=True, pretrained=bool(a.init), fliplr=0.0, flipud=0.0, degrees=0.0, mosaic=a.mosaic,
                close_mosaic=1, scale=0.4, translate=0.1, hsv_h=0.02, patience=100, plots=False,
                amp=False, seed=0, deterministic=False, cache=a.cache or False, save_period=1, **more)


def _data_yaml(a, run: Path) -> Path:
    """The scenes to train on: ``--data``'s, plus the training scenes of each ``--also`` set. Validation
    stays ``--data``'s, so the figures of one schedule compare with the last one's, or is ``--val``'s (a
    schedule on other training scenes, validated on the scenes the earlier schedules were)."""
    val = getattr(a, "val", None)
    if not a.also and val is None:
        return a.data / "data.yaml"
    run.mkdir(parents=True, exist_ok=True)
    train = [str((d / "images" / "train").resolve()) for d in (a.data, *a.also)]
    yaml = run / "data.yaml"
    yaml.write_text(f"path: {a.data.resolve()}\ntrain: [{', '.join(train)}]\n"
                    f"val: {((val or a.data) / 'images' / 'val').resolve()}\n"
                    + (a.data / "data.yaml").read_text().split("val: images/val\n", 1)[1])
    return yaml


def cmd_export(a) -> None:
    from ultralytics import YOLO
    a.models.mkdir(parents=True, exist_ok=True)
    # the classifier is exported by vision.train_cls
    w = a.weights or a.runs / a.name / "weights" / "best.pt"
    if not (a.weights or w.exists()):
        w = a.runs / a.name / "weights" / "last.pt"
    if not w.exists():
        print(f"no detector weights at {w}", file=sys.stderr)
        raise SystemExit(1)
    if a.weights:  # ultralytics writes the ONNX file beside the weights, and fetched files are read-only
        copy = Path(tempfile.mkdtemp(prefix="det-export-")) / w.name
        shutil.copy(w, copy)
        w = copy
    model = YOLO(str(w))
    imgsz = int(model.ckpt.get("train_args", {}).get("imgsz", DET_IMGSZ))  # the size it was trained at
    out = model.export(format="onnx", imgsz=imgsz, opset=17, simplify=True, dynamic=False)
    if a.float:
        shutil.copy(out, a.models / "index-det.onnx")
    else:
        from vision.quantize import quantize_detector
        quantize_detector(Path(out), a.data, a.models / "index-det.onnx", a.calibration)
    print(f"index-det: {w} -> {a.models / 'index-det.onnx'} ({'float' if a.float else 'int8'})")


@dataclass(frozen=True)
class Step:
    """One step of the recipe: a name for its mark, and the module and arguments that run it."""

    name: str
    module: str
    args: tuple[str, ...]

    def command(self, python: str = sys.executable) -> list[str]:
        return [python, "-m", self.module, *self.args]


#: The classifier runs whose int8 exports the shipped classifier averages (``vision.ensemble``): the
#: second schedule (before font decks), the third (font decks) and the fourth (more crops).
MEMBERS = ("cls-effnet2", "cls-font", "cls-more")


#: The pair model's training scenes (name, count, seed, more vision.synth options) and the strip files cut
#: from them (seed, scene names): models/HISTORY.md, eighteenth session.
PAIR_SCENES = (
    ("spread", 1200, 201, ("--spread", "--stretch", "1.8")),
    ("general", 1200, 202, ("--photos", "0.3")),
    ("reveal", 1500, 203, ("--reveal", "--stretch", "1.5")),
    ("tight", 600, 204, ("--tight",)),
    ("mixed", 2000, 205, ("--font-decks", "0.4", "--photos", "0.3", "--stretch", "1.8")),
    ("spread2", 1200, 206, ("--spread", "--font-decks", "0.4", "--photos", "0.2", "--stretch", "1.8")),
)
PAIR_STRIPS = ((1, ("general", "spread")), (2, ("reveal", "tight")), (3, ("mixed", "spread2")))
#: The classifier's member retrained on crops cut by the corrected index boxes (twentieth session) takes the
#: fourth schedule's place in the mean.
CLEAN_MEMBERS = ("cls-effnet2", "cls-font", "cls-clean")
#: The gate's scenes (name, count, seed, more vision.synth options): the val split (held-out designs), seeds
#: no other step uses (models/HISTORY.md, twenty-first session); since the twenty-sixth also two seen through a
#: cheap webcam, whose look the reader's members had learned, and two with print on the table, where the reader
#: now drops lone weak indices.
GATE_SCENES = (
    ("font-reveal", 200, 406, ("--reveal", "--font-decks", "1.0")),
    ("font", 300, 404, ("--font-decks", "1.0")),
    ("general", 800, 401, ()),
    ("photo", 300, 405, ("--photos", "1.0")),
    ("reveal", 500, 402, ("--reveal",)),
    ("spread", 400, 403, ("--spread",)),
    ("webcam", 400, 407, ("--webcam", "1.0", "--stretch", "1.8")),
    ("webcam-spread", 300, 408, ("--spread", "--webcam", "1.0", "--stretch", "1.8")),
    ("print", 500, 409, ("--print", "1.0")),
    ("print-spread", 300, 410, ("--spread", "--print", "1.0")),
)


def recipe(data: Path, runs: Path, models: Path) -> list[Step]:
    """The shipped models' recipe (``models/README.md``), as steps: scenes under ``data``, runs under
    ``runs``, the exported models in ``models``. Changes from the shipped run: the classifier's
    crops are cut by the detector this recipe trained (the shipped ones were cut by its first schedule,
    the one shipped at the time), and the third and fourth schedules train on this recipe's one crop
    folder (the shipped ones started from the shipped file, ``--init models/index-cls.onnx``, on crop
    folders made for each, ``cls8`` and ``cls9`` in the model card)."""
    det, cls, font_scenes, clean = data / "det1", data / "cls3", data / "det-font", data / "cls-clean"
    det_model = models / "index-det.onnx"
    members = models / "cls-members"
    # the detector schedules on the pair model's scenes (corrected labels), validated on det1's
    corrected_scenes = ("--data", data / "pairs" / "general",
                        "--also", *[data / "pairs" / name for name, *_ in PAIR_SCENES if name != "general"],
                        "--val", det, "--runs", runs)

    def step(name: str, module: str, *args) -> Step:
        return Step(name, module, tuple(str(a) for a in args))

    return [
        step("scenes-train", "vision.synth", "--out", det, "--count", 2100, "--seed", 7),
        step("scenes-val", "vision.synth", "--out", det, "--count", 200, "--seed", 7, "--split", "val"),
        step("det", "vision.train", "det", "--data", det, "--runs", runs, "--name", "det", "--hours", 1.25,
             "--epochs", 40),
        step("det2", "vision.train", "det", "--data", det, "--runs", runs, "--name", "det2",
             "--init", runs / "det" / "weights" / "best.pt", "--hours", 0.9, "--epochs", 8),
        step("det3", "vision.train", "det", "--data", det, "--runs", runs, "--name", "det3",
             "--init", runs / "det2" / "weights" / "best.pt", "--hours", 1.2, "--epochs", 11),
        step("det-export", "vision.train", "export", "--runs", runs, "--models", models, "--name", "det3",
             "--data", det),
        step("crops-train", "vision.crops", "--out", cls, "--count", 32000, "--seed", 11),
        step("crops-val", "vision.crops", "--out", cls, "--count", 2000, "--seed", 12, "--split", "val"),
        step("mine-val", "vision.mine", "--scenes", det, "--out", cls, "--split", "val", "--det-model", det_model),
        step("mine-train", "vision.mine", "--scenes", det, "--out", cls, "--split", "train", "--det-model", det_model),
        step("cls", "vision.train_cls", "--data", cls, "--out", runs / "cls-effnet", "--minutes", 80,
             "--epochs", 10, "--samples", 30000),
        step("cls2", "vision.train_cls", "--data", cls, "--out", runs / "cls-effnet2",
             "--init", runs / "cls-effnet" / "best.pt", "--lr", 1e-3, "--epochs", 7, "--samples", 30000,
             "--minutes", 45),
        # a third schedule with half of its fresh crops' cards drawn from procedural designs typeset in
        # the system's fonts (vision.fontdeck): the same rank in many more letterforms
        step("font-crops", "vision.crops", "--out", cls, "--count", 7000, "--seed", 51, "--font-decks", 1.0,
             "--prefix", "f_"),
        step("cls-font", "vision.train_cls", "--data", cls, "--out", runs / "cls-font",
             "--init", runs / "cls-effnet2" / "best.pt", "--lr", 5e-4, "--epochs", 3, "--samples", 25000,
             "--minutes", 40),
        # a fourth schedule from the third on more crops: 7,000 more font-deck crops and the crops the
        # detector cuts from 700 scenes of font-deck cards
        step("font-crops2", "vision.crops", "--out", cls, "--count", 7000, "--seed", 53, "--font-decks", 1.0,
             "--prefix", "g_"),
        step("font-scenes", "vision.synth", "--out", font_scenes, "--count", 700, "--seed", 61, "--font-decks", 1.0),
        step("mine-font", "vision.mine", "--scenes", font_scenes, "--out", cls, "--split", "train",
             "--det-model", det_model, "--prefix", "mf"),
        step("cls-more", "vision.train_cls", "--data", cls, "--out", runs / "cls-more",
             "--init", runs / "cls-font" / "best.pt", "--lr", 3e-4, "--epochs", 3, "--samples", 30000,
             "--minutes", 40),
        # the shipped classifier is the mean of the second, third and fourth schedules (vision.ensemble)
        *[step(f"{run}-export", "vision.train_cls", "--data", cls, "--out", runs / run,
               "--export", members / f"{run}.onnx", "--int8") for run in MEMBERS],
        step("cls-ensemble", "vision.ensemble", "--out", models / "index-cls.onnx",
             *[members / f"{run}.onnx" for run in MEMBERS]),
        # the pair model (vision.pairs): strips between labelled indices of training-design scenes
        *[step(f"pair-scenes-{name}", "vision.synth", "--out", data / "pairs" / name, "--count", count, "--seed", seed,
               *more) for name, count, seed, more in PAIR_SCENES],
        *[step(f"pair-strips-{k}", "vision.pairs", *[data / "pairs" / name for name in names], "--out",
               runs / f"pair-strips-{k}.npz", "--seed", k) for k, names in PAIR_STRIPS],
        step("pair", "vision.train_pairs", "--data", *[runs / f"pair-strips-{k}.npz" for k, _ in PAIR_STRIPS],
             "--out", models / "index-pair.onnx", "--epochs", 12, "--checkpoint", runs / "pair.pt"),
        # the fourth classifier schedule trained further on crops cut by the corrected index boxes (twentieth
        # session), in its place in the mean
        step("clean-crops", "vision.crops", "--out", clean, "--count", 12000, "--seed", 111),
        step("clean-font-crops", "vision.crops", "--out", clean, "--count", 6000, "--seed", 151, "--font-decks", 1.0,
             "--prefix", "f_"),
        step("clean-crops-val", "vision.crops", "--out", clean, "--count", 2000, "--seed", 12, "--split", "val"),
        step("clean-scenes", "vision.synth", "--out", data / "scenes7", "--count", 1000, "--seed", 7),
        step("clean-scenes-val", "vision.synth", "--out", data / "scenes77", "--count", 200, "--seed", 77, "--split", "val"),
        step("clean-mine", "vision.mine", "--scenes", data / "scenes7", "--out", clean, "--split", "train",
             "--det-model", det_model),
        step("clean-mine-val", "vision.mine", "--scenes", data / "scenes77", "--out", clean, "--split", "val",
             "--det-model", det_model),
        step("cls-clean", "vision.train_cls", "--data", clean, "--out", runs / "cls-clean",
             "--init", runs / "cls-more" / "best.pt", "--lr", 5e-4, "--batch", 96, "--epochs", 4, "--samples", 26000),
        step("cls-clean-export", "vision.train_cls", "--data", clean, "--out", runs / "cls-clean",
             "--export", members / "cls-clean.onnx", "--int8"),
        step("cls-clean-ensemble", "vision.ensemble", "--out", models / "index-cls.onnx",
             *[members / f"{run}.onnx" for run in CLEAN_MEMBERS]),
        # the detector trained further on the pair model's scenes, whose labels are the corrected ones
        # (nineteenth session), validated on the first scenes' validation split
        step("det-clean", "vision.train", "det", *corrected_scenes, "--name", "det-clean",
             "--init", runs / "det3" / "weights" / "best.pt", "--hours", 1.45, "--epochs", 10),
        # the same schedule continued on the same scenes at a lower learning rate: its validation mAP was still
        # rising when det-clean's time ran out (twenty-second session)
        step("det-more", "vision.train", "det", *corrected_scenes, "--name", "det-more",
             "--init", runs / "det-clean" / "weights" / "best.pt", "--lr", 0.0004, "--hours", 1.6, "--epochs", 10),
        step("det-more-export", "vision.train", "export", "--runs", runs, "--models", models, "--name", "det-more",
             "--data", data / "pairs" / "general"),
        # the gate, fitted last: to the three models as they ship (twenty-first session)
        *[step(f"gate-scenes-{name}", "vision.synth", "--out", data / "gate" / name, "--count", count, "--seed", seed,
               "--split", "val", *more) for name, count, seed, more in GATE_SCENES],
        step("gate", "vision.train_gate", "--models", models, "--out", models / "index-gate.onnx",
             *[data / "gate" / name for name, *_ in GATE_SCENES]),
    ]


def run_recipe(steps: list[Step], marks: Path, run=subprocess.run, python: str = sys.executable,
               resume_hint: str = "python -m vision.train all", only_plan: bool = False) -> list[str]:
    """Run the steps that have no mark in ``marks``, in order; mark each as it finishes. A failed step
    stops the recipe with a message naming it (its mark is not written, so running the command again
    resumes there). Returns the names of the steps run (or, with ``only_plan``, that would run)."""
    done = []
    for i, step in enumerate(steps, 1):
        mark = marks / f"{step.name}.done"
        head = f"[train {i}/{len(steps)}] {step.name}"
        if mark.exists():
            print(f"{head}: done before, skipped", file=sys.stderr, flush=True)
            continue
        cmd = step.command(python)
        print(f"{head}: {shlex.join(cmd)}", file=sys.stderr, flush=True)
        if only_plan:
            done.append(step.name)
            continue
        marks.mkdir(parents=True, exist_ok=True)
        t0 = time.time()
        code = run(cmd).returncode
        if code != 0:
            raise SystemExit(f"training step {step.name!r} failed (exit {code}); the steps before it are kept: "
                             f"run `{resume_hint}` again to resume from it")
        mark.write_text(json.dumps({"command": cmd, "minutes": round((time.time() - t0) / 60, 1),
                                    "finished": time.strftime("%Y-%m-%d %H:%M:%S")}) + "\n")
        done.append(step.name)
    return done


def cmd_all(a) -> None:
    """The whole recipe, resumably (``run_recipe``)."""
    models = a.models or a.runs / "candidate"
    steps = recipe(a.data_root, a.runs, models)
    again = ["python", "-m", "vision.train", "all", "--data-root", str(a.data_root), "--runs", str(a.runs)]
    run_recipe(steps, a.runs / "recipe-marks", only_plan=a.plan,
               resume_hint=shlex.join(again + (["--models", str(a.models)] if a.models else [])))
    if not a.plan:
        print(f"[train] done: {models / 'index-det.onnx'}, {models / 'index-cls.onnx'}, {models / 'index-pair.onnx'} and "
              f"{models / 'index-gate.onnx'}; measure them with bench/reader_accuracy.py --det-model ... --cls-model ... "
              f"--pair-model ... --gate-model ... before "
              f"copying them into models/",
              file=sys.stderr)


def family_shares(processes: int, counts: dict[str, int] | None = None) -> list[str]:
    """The ``vision.synth`` options of the pair model's scene families (``PAIR_SCENES``) for each of
    ``processes`` rendering processes, the families getting processes in proportion to their counts
    (largest remainder, at least one each where there are enough): how a GPU burst renders the same mix
    of scenes the shipped detector last trained on (``scripts/gpu_burst.sh``). ``counts`` puts other
    counts in place of some families' (more of the scenes a detector reads worst)."""
    counts = counts or {}
    unknown = set(counts) - {name for name, *_ in PAIR_SCENES}
    if unknown:
        raise ValueError(f"no scene family {', '.join(sorted(unknown))}: the families are "
                         f"{', '.join(name for name, *_ in PAIR_SCENES)}")
    count_of = [counts.get(name, count) for name, count, _, _ in PAIR_SCENES]
    total = sum(count_of)
    exact = [processes * count / total for count in count_of]
    given = [max(int(e), 1 if processes >= len(PAIR_SCENES) else 0) for e in exact]
    for k in sorted(range(len(exact)), key=lambda k: given[k] - exact[k]):
        if sum(given) >= processes:
            break
        given[k] += 1
    while sum(given) > processes:
        given[given.index(max(given))] -= 1
    return [shlex.join(more) for (_, _, _, more), n in zip(PAIR_SCENES, given) for _ in range(n)]


def cmd_families(a) -> None:
    counts = {}
    for item in a.count:
        name, _, n = item.partition("=")
        if not n.isdigit() or int(n) < 1:
            raise SystemExit(f"--count takes NAME=N (a family and a whole number from 1), not '{item}'")
        counts[name] = int(n)
    try:
        print("\n".join(family_shares(a.processes, counts)))
    except ValueError as e:
        raise SystemExit(str(e)) from None


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.train")
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("det")
    d.add_argument("--data", type=Path, required=True)
    d.add_argument("--runs", type=Path, default=Path("/work/cards-runs"))
    d.add_argument("--epochs", type=int, default=30)
    d.add_argument("--hours", type=float, default=1.0)
    d.add_argument("--name", default="det", help="the run's folder under --runs")
    d.add_argument("--init", type=Path, help="start from these weights (a .pt of an earlier run)")
    d.add_argument("--lr", type=float, default=0.001,
                   help="with --init: the AdamW learning rate to start from (0.001 for the shipped schedules)")
    d.add_argument("--mosaic", type=float, default=1.0,
                   help="the share of training batches made as mosaics of four scenes (1.0 in the shipped "
                        "schedules, whose last epoch had none)")
    d.add_argument("--also", type=Path, nargs="*", default=[],
                   help="more scene folders (vision.synth --out) whose training scenes are added")
    d.add_argument("--val", type=Path, help="a scene folder whose validation scenes are used instead of --data's")
    d.add_argument("--imgsz", type=int, default=DET_IMGSZ, help="training image size (the reader runs the "
                   "detector at the size it was exported at)")
    d.add_argument("--width", type=float, default=PICO_WIDTH, help="channel width of a network trained from "
                   "scratch (the pico network's by default)")
    d.add_argument("--device", default="cpu", help="cpu, or a CUDA device such as 0")
    d.add_argument("--batch", type=int, default=16)
    d.add_argument("--workers", type=int, default=0, help="data loader processes")
    d.add_argument("--cache", choices=["ram", "disk"], help="keep the decoded scenes in memory or on disk")
    e = sub.add_parser("export")
    e.add_argument("--runs", type=Path, default=Path("/work/cards-runs"))
    e.add_argument("--models", type=Path, default=Path("models"))
    e.add_argument("--name", default="det", help="the run to export")
    e.add_argument("--weights", type=Path, help="export these weights instead of the run's (a best.pt that "
                   "scripts/gpu_burst.sh brought back)")
    e.add_argument("--data", type=Path, default=Path("/work/cards-data/det1"),
                   help="synthetic scenes whose training images calibrate the int8 quantisation")
    e.add_argument("--calibration", type=int, default=200, help="calibration scenes")
    e.add_argument("--float", action="store_true", help="ship the float model (no quantisation)")
    w = sub.add_parser("all", help="the whole recipe, one step after another; run it again to resume")
    w.add_argument("--data-root", type=Path, default=Path("/work/cards-data"), help="where the scenes and crops go")
    w.add_argument("--runs", type=Path, default=Path("/work/cards-runs"))
    w.add_argument("--models", type=Path, help="where the trained models are exported (default: RUNS/candidate)")
    w.add_argument("--plan", action="store_true", help="only print the steps still to run")
    f = sub.add_parser("families", help="the scene families' vision.synth options, one line per rendering process")
    f.add_argument("--processes", type=int, required=True)
    f.add_argument("--count", action="append", default=[], metavar="NAME=N",
                   help="another count for a family (PAIR_SCENES), to render more or less of it")
    a = p.parse_args(argv)
    {"det": cmd_det, "export": cmd_export, "all": cmd_all, "families": cmd_families}[a.cmd](a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
