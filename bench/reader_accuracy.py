"""Accuracy of the card reader on real photographs (``../shared/realdev``, never trained on).

    python bench/reader_accuracy.py [--realdev DIR] [--limit N] [--json-out FILE] [--cls-model F] [--gate-model F|none] [--rank-confidence P]

Scores by rank within each image: the multiset of ranks read against the labelled one.
Card-level precision / recall / F1 (summed over images), exact-image rate (multisets equal), abstain rate,
the share of photos read exactly without abstaining (exact&ans) and the number read wrong without
abstaining (wrong&ans: what a referee must avoid), per subset and overall (and apart, by the labels' quality:
~checked, ~source, ~noisy, where the labels warn that cards were missed), where the labelled cards were lost
(never read at the index level, or lost when the indices were joined into cards), and the confusion of ranks
(read cards matched to labelled cards whose box holds the read card's centre, a card of the read rank first;
only where the labels have boxes).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from assistant.cards import Rank  # noqa: E402
from vision.reader import (CLS_MODEL, DET_MODEL, DET_THRESHOLD, GATE_MODEL, NOT_AN_INDEX_VETO,  # noqa: E402
                           PAIR_MIN_SUIT, PAIR_MODEL, RANK_CONFIDENCE, SOFT_SUIT_MOST, CardReader, bar_or_none)

RANKS = [r.value for r in Rank]
# The labels' own warning (realdev's README): in the "source_noisy_counts" photos checks found missed cards, so
# there a card read beyond the labels may be a real one. Their rows are printed apart from the subsets, so that
# a reader's false cards and the labels' missed ones can be told apart; the targets stay those of every photo.
QUALITY_ROWS = {"checked_by_eye": "~checked", "source": "~source", "source_noisy_counts": "~noisy"}


def score(pred: list[str], truth: list[str]) -> tuple[int, int, int]:
    p, t = Counter(pred), Counter(truth)
    tp = sum((p & t).values())
    return tp, sum(p.values()) - tp, sum(t.values()) - tp


def prf(tp, fp, fn):
    pr = tp / (tp + fp) if tp + fp else 0.0
    rc = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * pr * rc / (pr + rc) if pr + rc else 0.0
    return pr, rc, f1


def where_lost(det, truth: list[str]) -> Counter:
    """Where the labelled ranks of one photo went: read at the index level (``found``: an index read as that rank)
    and kept as a card (``kept``), or found and then lost when the indices were joined into cards: two indices of
    that rank joined as one card's two corners (``joined_same``), its index joined to a card read as another rank
    (``joined_other``), or no card of it left (``dropped``). Why: a rank never found calls for a better detector or
    classifier, one lost in the joining for a better pairing; the totals say which step to work on."""
    t = Counter(truth)
    idx = det.indices  # a card-level reading always keeps the indices it was merged from
    at_index = Counter(r.value for r in idx.rank if r is not None)
    found, kept = t & at_index, t & Counter(r.value for r in det.rank)
    out = Counter(labelled=sum(t.values()), found=sum(found.values()), kept=sum(kept.values()))
    for rank, n in (found - kept).items():
        rows = Counter(int(idx.card[i]) for i, r in enumerate(idx.rank) if r is not None and r.value == rank)
        if any(k >= 2 for k in rows.values()):
            out["joined_same"] += n
        elif any(det.rank[c].value != rank for c in rows):
            out["joined_other"] += n
        else:
            out["dropped"] += n
    return out


def match_confusion(det, labels, conf: Counter) -> None:
    """Count (labelled rank, read rank) for each read card matched to a labelled card whose box holds its
    centre, ``missed`` for labelled cards left over and ``extra`` for read ones.

    Why two passes: overlapping cards' boxes hold each other's centres, and matching each read card to the
    smallest box alone swapped the labels of two cards both read right (an 8 and a J counted as 8->J and
    J->8). A read card is first matched to a box of its own rank; only the rest go to the smallest box left,
    so a confusion is counted only where no labelled card of the read rank lies under it."""
    cards = [c for c in labels["cards"] if c.get("box")]
    if labels.get("box_type") == "none" or not cards:
        return
    used: set[int] = set()
    matched: set[int] = set()
    order = sorted(range(len(det)), key=lambda i: -float(det.confidence[i]))
    for same_rank in (True, False):
        for i in order:
            if i in matched:
                continue
            j = _smallest_box_under(det.xyxy[i], cards, used, det.rank[i].value if same_rank else None)
            if j is not None:
                used.add(j)
                matched.add(i)
                conf[(cards[j]["rank"], det.rank[i].value)] += 1
    for j, c in enumerate(cards):
        if j not in used:
            conf[(c["rank"], "missed")] += 1
    for i in range(len(det)):
        if i not in matched:
            conf[("extra", det.rank[i].value)] += 1


def _smallest_box_under(box, cards: list[dict], used: set[int], rank: str | None) -> int | None:
    """The unused labelled card (of ``rank``, unless None) with the smallest box holding ``box``'s centre."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    best = None
    for j, c in enumerate(cards):
        if j in used or (rank is not None and c["rank"] != rank):
            continue
        x0, y0, x1, y1 = c["box"]
        if x0 <= cx <= x1 and y0 <= cy <= y1:
            area = (x1 - x0) * (y1 - y0)
            if best is None or area < best[1]:
                best = (j, area)
    return None if best is None else best[0]


def _row_order(key: str) -> tuple[int, str]:
    """Subsets first, then every photo, then the photos by the quality of their labels."""
    return (1 if key == "overall" else 2 if key.startswith("~") else 0, key)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--realdev", type=Path, default=ROOT.parent / "shared" / "realdev")
    ap.add_argument("--limit", type=int, default=0, help="only the first N images of each subset")
    ap.add_argument("--json-out", type=Path)
    ap.add_argument("--det-model", type=Path, default=DET_MODEL, help="another detector to compare (default: the shipped one)")
    ap.add_argument("--cls-model", type=Path, default=CLS_MODEL, help="another classifier to compare (default: the shipped one)")
    ap.add_argument("--pair-model", default=str(PAIR_MODEL),
                    help="another pair model (vision.pairs) to compare, or \"none\" to pair by rank and distance alone")
    ap.add_argument("--pair-bars", default="", help="DOUBT:SURE pair-model probabilities (default: the reader's)")
    ap.add_argument("--gate-model", default=str(GATE_MODEL),
                    help="another gate (vision.gate), or \"none\": the doubts alone decide when to abstain")
    ap.add_argument("--rank-confidence", type=float, default=RANK_CONFIDENCE,
                    help=f"the rank probability under which a card is unsure (default: the reader's, {RANK_CONFIDENCE})")
    ap.add_argument("--veto", type=float, default=NOT_AN_INDEX_VETO,
                    help="the NONE probability at which the classifier vetoes a box "
                         f"(default: the reader's, {NOT_AN_INDEX_VETO})")
    ap.add_argument("--pair-min-suit", type=bar_or_none, default=PAIR_MIN_SUIT,
                    help="the same-suit probability two indices need to pair, or \"none\" for the hard suit rule "
                         "(default: the reader's)")
    ap.add_argument("--soft-suit-most", type=int, default=SOFT_SUIT_MOST,
                    help="the soft suit rule only where the pair's rank shows on at most this many indices "
                         f"(default: the reader's, {SOFT_SUIT_MOST})")
    ap.add_argument("--det-threshold", type=float, default=DET_THRESHOLD,
                    help=f"the detector score an index box needs to be kept (default: the reader's, {DET_THRESHOLD})")
    a = ap.parse_args(argv)
    labels_path = a.realdev / "labels.jsonl"
    if not labels_path.exists():
        print(f"realdev not found: {labels_path} (expected ../shared/realdev beside the repository)", file=sys.stderr)
        return 2
    rows = [json.loads(line) for line in labels_path.read_text().splitlines() if line.strip()]
    if a.limit:
        per = Counter()
        keep = []
        for r in rows:
            if per[r["subset"]] < a.limit:
                keep.append(r)
                per[r["subset"]] += 1
        rows = keep
    reader = CardReader(det_model=a.det_model, cls_model=a.cls_model,
                        pair_model=None if a.pair_model == "none" else Path(a.pair_model),
                        rank_confidence=a.rank_confidence, veto=a.veto, det_threshold=a.det_threshold,
                        gate_model=None if a.gate_model == "none" else Path(a.gate_model))
    if a.pair_bars:
        reader.pair_doubt, reader.pair_sure = (float(v) for v in a.pair_bars.split(":"))
    reader.pair_min_suit = a.pair_min_suit
    reader.soft_suit_most = a.soft_suit_most
    stats = defaultdict(lambda: Counter())
    lost = defaultdict(lambda: Counter())
    conf: Counter = Counter()
    t0 = time.time()
    for k, r in enumerate(rows):
        det = reader.read(a.realdev / r["image"])
        pred = [x.value for x in det.rank]
        truth = [c["rank"] for c in r["cards"]]
        tp, fp, fn = score(pred, truth)
        for key in (r["subset"], "overall", QUALITY_ROWS[r.get("label_quality", "source")]):
            s = stats[key]
            s["images"] += 1
            s["tp"] += tp
            s["fp"] += fp
            s["fn"] += fn
            s["exact"] += int(Counter(pred) == Counter(truth))
            s["abstain"] += int(det.abstain)
            s["exact_answered"] += int(Counter(pred) == Counter(truth) and not det.abstain)
            s["wrong_answered"] += int(Counter(pred) != Counter(truth) and not det.abstain)
            s["count_ok"] += int(len(pred) == len(truth))
            lost[key] += where_lost(det, truth)
        match_confusion(det, r, conf)
        if (k + 1) % 50 == 0:
            print(f"  {k + 1}/{len(rows)} images, {time.time() - t0:.0f}s", file=sys.stderr)
    out = {}
    print(f"\nreader accuracy on {a.realdev} ({len(rows)} images)")
    print(f"{'subset':<12}{'images':>7}{'P':>7}{'R':>7}{'F1':>7}{'exact':>8}{'count':>8}{'abstain':>9}{'exact&ans':>11}"
          f"{'wrong&ans':>11}")
    for key in sorted(stats, key=_row_order):
        s = stats[key]
        p, rc, f1 = prf(s["tp"], s["fp"], s["fn"])
        n = s["images"]
        out[key] = {"images": n, "precision": round(p, 4), "recall": round(rc, 4), "f1": round(f1, 4),
                    "exact_image_rate": round(s["exact"] / n, 4), "count_right_rate": round(s["count_ok"] / n, 4),
                    "abstain_rate": round(s["abstain"] / n, 4),
                    "exact_and_answered_rate": round(s["exact_answered"] / n, 4),
                    "wrong_and_answered": s["wrong_answered"],
                    "tp": s["tp"], "fp": s["fp"], "fn": s["fn"]}
        print(f"{key:<12}{n:>7}{p:>7.3f}{rc:>7.3f}{f1:>7.3f}{s['exact'] / n:>8.3f}{s['count_ok'] / n:>8.3f}"
              f"{s['abstain'] / n:>9.3f}{s['exact_answered'] / n:>11.3f}{s['wrong_answered']:>11d}")
    print("\nwhere the labelled cards went (found: an index read as the card's rank; lost when the indices were"
          "\njoined into cards: two of that rank joined as one card, joined to a card of another rank, or dropped)")
    print(f"{'subset':<12}{'labelled':>9}{'found':>7}{'kept':>6}{'joined same':>13}{'joined other':>14}{'dropped':>9}")
    for key in sorted(lost, key=_row_order):
        w = lost[key]
        out[key]["where_lost"] = {k: w[k] for k in ("labelled", "found", "kept", "joined_same", "joined_other", "dropped")}
        print(f"{key:<12}{w['labelled']:>9}{w['found']:>7}{w['kept']:>6}{w['joined_same']:>13}{w['joined_other']:>14}"
              f"{w['dropped']:>9}")
    cols = RANKS + ["missed"]
    rows_ = RANKS + ["extra"]
    print("\nrank confusion (rows: labelled, columns: read; boxes matched by centre)")
    print("      " + "".join(f"{c[:5]:>6}" for c in cols))
    for t in rows_:
        line = [conf.get((t, c), 0) for c in cols]
        if sum(line):
            print(f"{t[:5]:>6}" + "".join(f"{v:>6}" if v else f"{'.':>6}" for v in line))
    out["confusion"] = {f"{t}->{p}": v for (t, p), v in sorted(conf.items())}
    out["seconds"] = round(time.time() - t0, 1)
    if a.json_out:
        a.json_out.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
