"""The realdev accuracy bench (bench/reader_accuracy.py): read cards matched to labelled ones, photos counted by
subset and by the quality of their labels."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from assistant.cards import Rank
from vision.reader import Detections

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("reader_accuracy", ROOT / "bench" / "reader_accuracy.py")
reader_accuracy = importlib.util.module_from_spec(spec)
sys.modules["reader_accuracy"] = reader_accuracy
spec.loader.exec_module(reader_accuracy)


def read_cards(*rows) -> Detections:
    """Cards read at (x0, y0, x1, y1, rank), each with confidence 0.9."""
    n = len(rows)
    return Detections("card", np.array([r[:4] for r in rows], np.float32), np.full(n, 0.9, np.float32),
                      [Rank(r[4]) for r in rows], [None] * n, np.zeros((n, len(Rank)), np.float32), np.arange(n),
                      image_size=(640, 640))


def labelled(*rows) -> dict:
    return {"box_type": "corner_union", "cards": [{"rank": r[4], "box": list(r[:4])} for r in rows]}


def confusion(det, labels) -> Counter:
    counted: Counter = Counter()
    reader_accuracy.match_confusion(det, labels, counted)
    return counted


def test_two_overlapping_cards_read_right_count_no_confusion():
    # the labelled J's small box lies inside the 8's and holds both read centres
    labels = labelled((100, 100, 400, 400, "8"), (200, 200, 300, 300, "J"))
    det = read_cards((150, 150, 350, 350, "8"), (210, 210, 290, 290, "J"))
    assert confusion(det, labels) == Counter({("8", "8"): 1, ("J", "J"): 1})


def test_a_misread_card_still_counts_as_confused():
    labels = labelled((100, 100, 200, 200, "8"), (300, 300, 400, 400, "J"))
    det = read_cards((110, 110, 190, 190, "3"), (310, 310, 390, 390, "J"))
    assert confusion(det, labels) == Counter({("8", "3"): 1, ("J", "J"): 1})


def test_missed_and_extra_cards_are_counted_apart():
    labels = labelled((100, 100, 200, 200, "8"))
    det = read_cards((400, 400, 500, 500, "K"))
    assert confusion(det, labels) == Counter({("8", "missed"): 1, ("extra", "K"): 1})


def test_the_bench_counts_photos_by_their_labels_quality_apart_from_the_subsets(tmp_path):
    data = ROOT / "tests" / "vision" / "data"
    (tmp_path / "images").mkdir()
    rows = []
    for name, quality in (("synth_00.jpg", "checked_by_eye"), ("synth_01.jpg", "source_noisy_counts"),
                          ("synth_02.jpg", "source_noisy_counts")):
        shutil.copy(data / name, tmp_path / "images" / name)
        rows.append({"image": f"images/{name}", "cards": [{"rank": "A", "suit": None, "box": None}], "count": 1,
                     "box_type": "none", "label_quality": quality, "subset": "s"})
    (tmp_path / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.json"
    assert reader_accuracy.main(["--realdev", str(tmp_path), "--json-out", str(out)]) == 0
    figures = json.loads(out.read_text())
    assert {k: figures[k]["images"] for k in ("s", "overall", "~checked", "~noisy")} == \
        {"s": 3, "overall": 3, "~checked": 1, "~noisy": 2}
    assert "~source" not in figures
