"""The card reader on synthetic validation scenes (held-out deck designs): where the reader's detection
threshold and the classifier's veto are chosen, never on realdev.

    python bench/bench_reader_synth.py --data /work/cards-data/det1 [--thresholds 0.1,0.2,0.3] [--vetoes 0.5,0.8]
        [--det-model ONNX] [--cls-model ONNX] [--gate-model ONNX|none] [--wider-look] [--outcomes FILE.jsonl]

The scenes are read as video frames (no wider look), so that one detection pass serves every threshold;
``--wider-look`` reads them as photos (``CardReader.indices``), at one threshold.

For each threshold: corner-index precision / recall (IoU >= 0.3 with a labelled index box), the
classifier's rank accuracy on matched indices, and card-level F1 by rank multiset per image (the
labelled cards are those with at least one visible index), exact-scene rate, abstain rate, and the rate
of confident wrong readings (wrong and not abstaining: what a referee must avoid). ``--outcomes`` keeps each
scene's outcome, so that ``bench/compare_readers.py`` can tell whether two readers' difference is more than chance,
with the gate's features of the scene (``evidence``; absent where no index was kept), so that another gate can be
studied on the same readings without reading the scenes again.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vision.reader import (CLS_MODEL, DET_MODEL, GATE_MODEL, INSIDE, NOT_AN_INDEX_VETO,  # noqa: E402
                          PAIR_MIN_SUIT, PAIR_MODEL, SOFT_SUIT_MOST, CardReader, bar_or_none, box_iou, load_image)
from vision.train_gate import truth_of  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=Path("/work/cards-data/det1"))
    ap.add_argument("--split", default="val")
    ap.add_argument("--thresholds", default="0.1,0.15,0.2,0.25,0.3,0.35,0.45")
    ap.add_argument("--limit", type=int, default=200)
    ap.add_argument("--inside", default=str(INSIDE), help="comma list: drop a box this much inside a better one (1.0: never)")
    ap.add_argument("--vetoes", default=str(NOT_AN_INDEX_VETO), help="comma list of NONE probabilities at which a box is vetoed")
    ap.add_argument("--det-model", type=Path, default=DET_MODEL, help="another detector to compare (default: the shipped one)")
    ap.add_argument("--cls-model", type=Path, default=CLS_MODEL, help="another classifier to compare (default: the shipped one)")
    ap.add_argument("--rank-confidences", default="", help="comma list of rank probabilities under which a card is unsure")
    ap.add_argument("--pair-min-same", default="", help="comma list to compare (\"none\" = best ranks agree)")
    ap.add_argument("--pair-model", default=str(PAIR_MODEL),
                    help="another pair model (vision.pairs) to compare, or \"none\" to pair by rank and distance alone")
    ap.add_argument("--pair-bars", default="",
                    help="comma list of DOUBT:SURE pair-model probabilities to compare (default: the reader's)")
    ap.add_argument("--gate-model", default=str(GATE_MODEL),
                    help="another gate (vision.gate), or \"none\" for the doubts alone, where --rank-confidences and "
                         "--pair-bars decide (with a gate they only change the reasons given)")
    ap.add_argument("--pair-min-suit", type=bar_or_none, default=PAIR_MIN_SUIT,
                    help="the same-suit probability two indices need to pair, or \"none\" for the hard suit rule "
                         "(default: the reader's)")
    ap.add_argument("--soft-suit-most", type=int, default=SOFT_SUIT_MOST,
                    help="the soft suit rule only where the pair's rank shows on at most this many indices "
                         f"(default: the reader's, {SOFT_SUIT_MOST})")
    ap.add_argument("--outcomes", type=Path, help="append each scene's outcome (right, abstained, confidently wrong), "
                    "the ranks read and the true ones (how it went wrong), and the gate's features, as JSON lines, "
                    "for bench/compare_readers.py; one setting of each option only")
    ap.add_argument("--wider-look", action="store_true",
                    help="read the scenes as photos: the wider look where the first keeps no index (one threshold)")
    a = ap.parse_args(argv)
    if a.wider_look and "," in a.thresholds:
        ap.error("--wider-look reads at one detection threshold: give one to --thresholds")
    swept = [name for name in ("thresholds", "inside", "vetoes", "rank_confidences", "pair_min_same", "pair_bars")
             if "," in getattr(a, name)]
    if a.outcomes and swept:
        ap.error(f"--outcomes records one reading of each scene: give one value to --{swept[0].replace('_', '-')}")
    metas = sorted((a.data / "meta" / a.split).glob("*.json"))[: a.limit]
    reader = CardReader(a.det_model, a.cls_model, det_threshold=float(a.thresholds) if a.wider_look else 0.05,
                        pair_model=None if a.pair_model == "none" else Path(a.pair_model),
                        gate_model=None if a.gate_model == "none" else Path(a.gate_model))
    reader.pair_min_suit = a.pair_min_suit
    reader.soft_suit_most = a.soft_suit_most
    images = [(dict(json.loads(m.read_text()), stem=m.stem), load_image(a.data / "images" / a.split / f"{m.stem}.jpg"))
              for m in metas]
    for inside in [float(v) for v in a.inside.split(",")]:
        reader.inside = inside
        found = [] if a.wider_look else [(meta, img, reader.detect(img)) for meta, img in images]
        for veto in [float(v) for v in a.vetoes.split(",")]:
            reader.veto = veto
            if a.wider_look:
                cache = [(meta, img, reader.indices(img)) for meta, img in images]
            else:
                cache = [(meta, img, reader.classify(img, det)) for meta, img, det in found]
            print(f"{len(cache)} synthetic {a.split} scenes from {a.data}; NONE veto at {veto}; "
                  f"boxes {inside} inside another dropped")
            table(a, reader, cache)
    return 0


def table(a, reader: CardReader, cache: list) -> None:
    """One line per detection threshold (and pairing setting) over the classified scenes."""
    print(f"{'thr':>5}{'idxP':>7}{'idxR':>7}{'rankAcc':>9}{'cardP':>7}{'cardR':>7}{'cardF1':>8}{'exact':>7}{'abstain':>9}{'wrong&ans':>11}")
    pms = [None if x == "none" else float(x) for x in a.pair_min_same.split(",")] if a.pair_min_same else [reader.pair_min_same]
    rcs = [float(x) for x in a.rank_confidences.split(",")] if a.rank_confidences else [reader.rank_confidence]
    bars = ([tuple(float(v) for v in b.split(":")) for b in a.pair_bars.split(",")] if a.pair_bars
            else [(reader.pair_doubt, reader.pair_sure)])
    for thr, pm, rc, bar in [(float(t), pm, rc, b) for t in a.thresholds.split(",") for pm in pms for rc in rcs for b in bars]:
        reader.pair_min_same, reader.rank_confidence = pm, rc
        reader.pair_doubt, reader.pair_sure = bar
        if a.pair_min_same or a.rank_confidences or a.pair_bars:
            print(f"pair_min_same={pm} rank_confidence={rc} pair doubt/sure={bar}")
        tp = fp = fn = 0
        ok = nm = 0
        ctp = cfp = cfn = exact = abst = wrong_answered = 0
        outcomes = []
        for meta, img, det in cache:
            keep = det.confidence >= thr
            sub = det.select(keep)
            gt = np.array([b["box"] for b in meta["boxes"]], np.float32).reshape(-1, 4)
            if len(sub) and len(gt):
                m = box_iou(sub.xyxy, gt)
                matched_gt = set()
                for i in np.argsort(-sub.confidence):
                    j = int(m[i].argmax())
                    if m[i, j] >= 0.3 and j not in matched_gt:
                        matched_gt.add(j)
                        tp += 1
                        nm += 1
                        g = meta["boxes"][j]["rank"]
                        ok += int(sub.rank[i].value == ("JOKER" if g.startswith("JOKER") else g))
                    else:
                        fp += 1
                fn += len(gt) - len(matched_gt)
            else:
                fp += len(sub)
                fn += len(gt)
            cards = reader.merge(sub, img)
            truth = truth_of(meta)
            pred = Counter(r.value for r in cards.rank)
            t = sum((pred & truth).values())
            ctp += t
            cfp += sum(pred.values()) - t
            cfn += sum(truth.values()) - t
            outcome = {"set": a.data.name, "scene": meta["stem"], "exact": pred == truth, "abstain": cards.abstain,
                       "wrong": pred != truth and not cards.abstain,
                       "read": dict(pred), "truth": dict(truth)}
            if cards.evidence is not None:
                outcome["evidence"] = [round(float(v), 6) for v in cards.evidence]
            exact += int(outcome["exact"])
            abst += int(outcome["abstain"])
            wrong_answered += int(outcome["wrong"])
            outcomes.append(outcome)
        P = tp / max(tp + fp, 1)
        R = tp / max(tp + fn, 1)
        cP = ctp / max(ctp + cfp, 1)
        cR = ctp / max(ctp + cfn, 1)
        cF = 2 * cP * cR / max(cP + cR, 1e-9)
        n = len(cache)
        if a.outcomes:
            with a.outcomes.open("a") as f:
                f.writelines(json.dumps(o) + "\n" for o in outcomes)
        print(f"{thr:>5.2f}{P:>7.3f}{R:>7.3f}{ok / max(nm, 1):>9.3f}{cP:>7.3f}{cR:>7.3f}{cF:>8.3f}{exact / n:>7.3f}{abst / n:>9.3f}{wrong_answered / n:>11.3f}")


if __name__ == "__main__":
    sys.exit(main())
