"""The detector's training data list (``vision.train``): extra scene sets add training scenes only."""

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
