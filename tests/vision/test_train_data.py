"""Training and validation data: the detector's scene list (``vision.train --also``) adds training scenes only,
and ``vision.synth --stretch`` keeps each label on its index."""

from pathlib import Path
from types import SimpleNamespace

from vision.train import _data_yaml


def _scene_set(root: Path) -> Path:
    (root / "images" / "train").mkdir(parents=True)
    (root / "data.yaml").write_text(f"path: {root}\ntrain: images/train\nval: images/val\nnames:\n  0: 'A'\n  1: '2'\n")
    return root


def test_also_adds_training_scenes_and_keeps_validation(tmp_path):
    base, more = _scene_set(tmp_path / "det1"), _scene_set(tmp_path / "jokers")
    yaml = _data_yaml(SimpleNamespace(data=base, also=[more]), tmp_path / "runs" / "det5").read_text()
    assert f"train: [{base.resolve()}/images/train, {more.resolve()}/images/train]" in yaml
    assert "val: images/val" in yaml and f"path: {base.resolve()}" in yaml
    assert yaml.endswith("names:\n  0: 'A'\n  1: '2'\n")


def test_without_also_the_set_trains_on_its_own_list(tmp_path):
    base = _scene_set(tmp_path / "det1")
    assert _data_yaml(SimpleNamespace(data=base, also=[]), tmp_path / "run") == base / "data.yaml"


def test_a_stretched_scene_keeps_its_labels_on_the_indices():
    """``vision.synth --stretch``: the picture is resized to another aspect ratio and every labelled box
    moves with it (a mark drawn inside a box is still inside it), the longer side keeps its length, and
    the stretch stays within the factor asked for."""
    import cv2
    import numpy as np

    from vision.synth import stretch

    img = np.zeros((480, 640, 3), np.uint8)
    labels = [{"rank": "K", "box": [100.0, 50.0, 130.0, 90.0]}, {"rank": "7", "box": [500.0, 400.0, 520.0, 430.0]}]
    for lab in labels:
        x0, y0, x1, y1 = (int(v) for v in lab["box"])
        cv2.rectangle(img, (x0 + 8, y0 + 8), (x1 - 8, y1 - 8), (255, 255, 255), -1)
    ratios = []
    for seed in range(20):
        out, moved = stretch(np.random.default_rng(seed), img, labels, 1.8)
        h, w = out.shape[:2]
        assert max(h, w) == 640
        ratios.append((w / h) / (640 / 480))
        assert [m["rank"] for m in moved] == ["K", "7"]
        for m in moved:
            x0, y0, x1, y1 = m["box"]
            cx, cy = int((x0 + x1) / 2), int((y0 + y1) / 2)
            assert out[cy, cx].min() > 200, (seed, m["box"])
    assert all(1 / 1.81 <= r <= 1.81 for r in ratios)
    assert min(ratios) < 0.8 and max(ratios) > 1.25  # both ways
