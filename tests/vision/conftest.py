import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from assistant.cards import CLAIMABLE, SUITS  # noqa: E402
from vision import picture_file  # noqa: E402
from vision.art import INDEX_RULE  # noqa: E402
from vision.reader import (LONE_FLOOR, PAIR_DOUBT, PAIR_MIN_SAME, PAIR_MIN_SUIT, PAIR_SURE,  # noqa: E402
                           RANK_CONFIDENCE, SOFT_SUIT_MOST, CardReader)

CODES = [r.value + s for r in CLAIMABLE for s in SUITS]


def merging_reader(**settings) -> CardReader:
    """A reader for ``merge`` alone, which uses only the settings, not the model sessions: every setting as the
    reader ships it, no gate and no pair model (the doubts alone decide when to abstain), unless ``settings``
    say otherwise by attribute name. One place, so that a new setting of the reader is set for every such test."""
    r = CardReader.__new__(CardReader)
    r.gate, r.pair = None, None
    r.rank_confidence, r.pair_min_same, r.pair_min_suit = RANK_CONFIDENCE, PAIR_MIN_SAME, PAIR_MIN_SUIT
    r.lone_floor, r.pair_doubt, r.pair_sure, r.soft_suit_most = LONE_FLOOR, PAIR_DOUBT, PAIR_SURE, SOFT_SUIT_MOST
    for name, value in settings.items():
        setattr(r, name, value)
    return r


def _plain_card(rng: np.random.Generator) -> np.ndarray:
    """A small card: white paper on a transparent margin (black under it, as rsvg renders), a dark index
    block in two corners and some random ink."""
    img = np.zeros((120, 86, 4), np.uint8)
    img[4:-4, 4:-4] = (250, 250, 250, 255)
    img[8:30, 8:22, :3] = 20
    img[-30:-8, -22:-8, :3] = 20
    img[40:80, 23:63, :3] = rng.integers(0, 255, (40, 40, 3), dtype=np.uint8)
    return img


def tiny_art_cache(root: Path, deck: str = "test:plain") -> Path:
    """A rendered-art cache of one 52-card deck of small plain cards, as ``vision.art`` writes one, for
    the generators' tests (CI has no card art); ``root`` may be a name that is not UTF-8 text."""
    rng = np.random.default_rng(0)
    folder = root / deck.replace(":", "__")
    folder.mkdir(parents=True)
    for code in CODES:
        picture_file.write(folder / f"{code}.png", _plain_card(rng))
    index = {deck: {"folder": folder.name, "cards": sorted(CODES),
                    "index_boxes": [[0.09, 0.07, 0.26, 0.25], [0.74, 0.75, 0.91, 0.93]], "index_rule": INDEX_RULE}}
    (root / "index.json").write_text(json.dumps(index))
    return root
