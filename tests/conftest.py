"""Fixtures shared by the vision and bench tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import vision  # noqa: F401  first: a test importing onnxruntime itself must not report either (vision/__init__.py)

VISION_DATA = Path(__file__).resolve().parent / "vision" / "data"


@pytest.fixture
def two_scenes(tmp_path: Path) -> Path:
    """A scene folder laid out as ``vision.synth`` writes one (``images/val``, ``meta/val``): two of the committed
    synthetic pictures, labelled with their ranks (boxes are not used by what reads it here)."""
    cases = {c["image"]: c for c in json.loads((VISION_DATA / "cases.json").read_text())}
    folder = tmp_path / "scenes"
    for sub in ("images/val", "meta/val"):
        (folder / sub).mkdir(parents=True)
    for k, name in enumerate(("synth_02.jpg", "synth_03.jpg")):
        (folder / "images" / "val" / f"{k:06d}.jpg").write_bytes((VISION_DATA / name).read_bytes())
        boxes = [{"card": i, "rank": r, "box": [0, 0, 1, 1]} for i, r in enumerate(cases[name]["ranks"])]
        (folder / "meta" / "val" / f"{k:06d}.json").write_text(json.dumps({"boxes": boxes}))
    return folder
