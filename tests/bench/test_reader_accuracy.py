"""The realdev accuracy bench's rank confusion (bench/reader_accuracy.py): read cards matched to labelled ones."""

from __future__ import annotations

import importlib.util
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
