"""Render the small synthetic test images in tests/vision/data (held-out deck designs).

    python tests/vision/make_data.py            # writes the images and cases.json
    python tests/vision/make_data.py --count 30 && python tests/vision/make_data.py --golden --keep 8

The images are scenes of ``vision.synth`` (validation split: deck designs never trained on), kept to
1-4 cards whose corner indices are at least 16 px tall, resized to 480 px wide and saved as JPEG so
that each is a few tens of KB. ``--golden`` runs the shipped reader and flags the images whose rank
multiset it reads exactly: the tests then keep those readings from regressing.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from vision import synth  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=6)
    ap.add_argument("--golden", action="store_true")
    ap.add_argument("--keep", type=int, default=0, help="with --golden: keep this many images (half golden at most)")
    ap.add_argument("--art-cache", type=Path, default=Path("/work/cards-data/art"))
    a = ap.parse_args(argv)
    DATA.mkdir(parents=True, exist_ok=True)
    cases_path = DATA / "cases.json"
    if a.golden:
        from vision.reader import CardReader

        cases = json.loads(cases_path.read_text())
        reader = CardReader()
        for c in cases:
            det = reader.read(DATA / c["image"])
            c["golden"] = Counter(r.value for r in det.rank) == Counter(c["ranks"])
            print(c["image"], c["ranks"], "read", [r.value for r in det.rank], "golden" if c["golden"] else "")
        if a.keep:
            # keep up to half golden cases and fill with others, in order; remove the rest
            gold = [c for c in cases if c["golden"]][: a.keep // 2]
            rest = [c for c in cases if not c["golden"]][: a.keep - len(gold)]
            kept = [c for c in cases if c in gold or c in rest]
            for c in cases:
                if c not in kept:
                    (DATA / c["image"]).unlink()
            cases = kept
        cases_path.write_text(json.dumps(cases, indent=1))
        return 0
    bank = synth.ArtBank(a.art_cache, "val")
    cases = []
    seed = 0
    while len(cases) < a.count:
        seed += 1
        rng = np.random.default_rng([20261130, seed])
        img, labels = synth.render_scene(rng, bank)
        cards = {lab["card"]: lab["rank"] for lab in labels}
        h, w = img.shape[:2]
        s = 480 / w
        if not cards or not (1 <= len(cards) <= 4) or any((b["box"][3] - b["box"][1]) * s < 16 for b in labels):
            continue
        # every card on the table must show an index (else the truth is unknowable)
        if set(cards) != set(range(max(cards) + 1)):
            continue
        small = cv2.resize(img, (480, int(round(h * s))), interpolation=cv2.INTER_AREA)
        name = f"synth_{len(cases):02d}.jpg"
        cv2.imwrite(str(DATA / name), small, [cv2.IMWRITE_JPEG_QUALITY, 80])
        cases.append({"image": name, "ranks": sorted(cards.values()), "seed": seed,
                      "decks": sorted({lab["deck"] for lab in labels})})
    cases_path.write_text(json.dumps(cases, indent=1))
    print(f"{len(cases)} images in {DATA}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
