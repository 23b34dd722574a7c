"""Fit the reader's gate (``vision.gate``) to the shipped detector, classifier and pair model.

    python -m vision.train_gate --out models/index-gate.onnx SCENES...

Each SCENES folder is a synthetic scene set (``vision.synth``, its ``val`` split: held-out deck designs, as the
reader meets a new deck). Every scene is read as a video frame by the models in ``--models`` without a gate;
the label is whether the multiset of ranks read equals the scene's. Scenes with no index are left out (the
reader abstains on them without asking the gate). The fit is deterministic: the same scenes and models give
the same gate. The scenes must be used by no other step: the models' scores on scenes they were trained or
chosen on would teach the gate to trust them too much. The shipped gate's scenes and their seeds are in
``models/HISTORY.md`` (twenty-first session).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

from vision import gate


def truth_of(meta: dict) -> Counter:
    """The ranks of a scene's labelled cards (those with at least one visible index), as a multiset."""
    ranks = {b["card"]: ("JOKER" if b["rank"].startswith("JOKER") else b["rank"]) for b in meta["boxes"]}
    return Counter(ranks.values())


def evidence(scene_dirs: list[Path], models: Path, split: str = "val", limit: int = 0,
             settings: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The gate's features and labels (read right or not) of every scene with an index, over ``scene_dirs``;
    ``settings`` the reader's settings to read with where they are not its own, by attribute name (``veto``,
    ``pair_min_suit``, ``soft_suit_most``, ``pair_sure``, ``det_threshold``): a gate is fitted to the reader as it
    will run."""
    from vision.reader import CardReader, load_image

    reader = CardReader(models / "index-det.onnx", models / "index-cls.onnx", pair_model=models / "index-pair.onnx",
                        gate_model=None)
    for name, value in (settings or {}).items():
        setattr(reader, name, value)
    rows, right = [], []
    t0 = time.time()
    for folder in scene_dirs:
        metas = sorted((folder / "meta" / split).glob("*.json"))
        if limit:
            metas = metas[:limit]
        if not metas:
            raise SystemExit(f"no scenes under {folder}/meta/{split} (a vision.synth folder is expected)")
        for k, m in enumerate(metas, 1):
            cards = reader.read(load_image(folder / "images" / split / f"{m.stem}.jpg"), video=True)
            if cards.evidence is not None:
                rows.append(cards.evidence)
                right.append(Counter(r.value for r in cards.rank) == truth_of(json.loads(m.read_text())))
            if k % 100 == 0 or k == len(metas):
                print(f"  {folder.name}: {k}/{len(metas)} scenes, {time.time() - t0:.0f}s", file=sys.stderr)
    return np.array(rows, np.float64).reshape(-1, len(gate.FEATURES)), np.array(right, bool)


def main(argv=None) -> int:
    from vision.reader import bar_or_none

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenes", type=Path, nargs="+", help="vision.synth scene folders, used by no other step")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--models", type=Path, default=Path(__file__).resolve().parent.parent / "models",
                    help="the folder with the detector, classifier and pair model the gate is fitted to")
    ap.add_argument("--split", default="val")
    ap.add_argument("--penalty", type=float, default=1.0, help="L2 penalty on the standardised weights")
    ap.add_argument("--limit", type=int, default=0, help="only the first N scenes of each folder (a quick check)")
    ap.add_argument("--pair-min-suit", type=bar_or_none, default=argparse.SUPPRESS,
                    help="fit to a reader pairing by this same-suit probability, or \"none\" for the hard suit rule")
    ap.add_argument("--pair-sure", type=bar_or_none, default=argparse.SUPPRESS,
                    help="fit to a reader making the pairs the pair model is this sure of first, or \"none\"")
    ap.add_argument("--soft-suit-most", type=int, default=argparse.SUPPRESS,
                    help="fit to a reader keeping the soft suit rule to ranks shown on at most this many indices")
    ap.add_argument("--veto", type=float, default=argparse.SUPPRESS,
                    help="fit to a reader whose classifier vetoes a box at this NONE probability")
    ap.add_argument("--det-threshold", type=float, default=argparse.SUPPRESS,
                    help="fit to a reader keeping index boxes from this detector score")
    a = ap.parse_args(argv)
    given = ("pair_min_suit", "soft_suit_most", "pair_sure", "veto", "det_threshold")
    settings = {name: getattr(a, name) for name in given if hasattr(a, name)}  # the rest stay the reader's
    x, right = evidence(a.scenes, a.models, a.split, a.limit, settings)
    fitted = gate.fit(x, right, a.penalty)
    notes = {"scenes": ",".join(p.name for p in a.scenes), "readings": str(len(right)),
             **{name: str(value) for name, value in settings.items()},
             "read_right": f"{right.mean():.4f}", "penalty": str(a.penalty)}
    a.out.write_bytes(gate.to_onnx(fitted, notes))
    print(f"gate fitted on {len(right)} readings ({right.mean():.3f} right) -> {a.out}")
    print("weights on the standardised features: bias %+.3f, " % fitted.bias
          + ", ".join(f"{n} {w:+.3f}" for n, w in zip(gate.FEATURES, fitted.weights)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
