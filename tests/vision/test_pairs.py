"""The strip between two corner indices (vision.pairs): which indices may pair, and the picture the pair
model reads."""

from __future__ import annotations

import json

import cv2
import numpy as np

from vision import pairs


def test_only_indices_a_card_apart_and_about_as_large_may_pair():
    boxes = np.array([
        [100, 100, 120, 130],  # size ~24.5
        [200, 210, 220, 240],  # ~6 sizes from the first: in reach
        [130, 100, 150, 130],  # 1.2 sizes from the first: too near
        [600, 600, 620, 630],  # 20 sizes away: too far
        [180, 100, 240, 190],  # 3x larger than the first
    ], np.float64)
    reach = {(i, j) for i, j, _ in pairs.within_reach(boxes)}
    assert (0, 1) in reach
    assert (0, 2) not in reach and (0, 3) not in reach and (0, 4) not in reach
    d = {(i, j): d for i, j, d in pairs.within_reach(boxes)}[(0, 1)]
    assert abs(d - np.hypot(100, 110) / np.sqrt(600)) < 1e-6


def _two_marks() -> tuple[np.ndarray, list, list]:
    """A grey picture with a red mark left of the line between two index boxes and a blue one right of it."""
    img = np.full((300, 400, 3), 128, np.uint8)
    a, b = [80, 135, 110, 165], [290, 135, 320, 165]  # the line runs left to right at y = 150
    cv2.circle(img, (200, 110), 8, (0, 0, 255), -1)  # above the line (red, BGR)
    cv2.circle(img, (200, 190), 8, (255, 0, 0), -1)  # below it (blue)
    return img, a, b


def test_the_line_between_the_indices_runs_along_the_strip():
    img, a, b = _two_marks()
    s = pairs.strip(img, a, b)
    assert s.shape == (*pairs.STRIP, 3)
    h, w = pairs.STRIP
    top, bottom = s[: h // 2, w // 3: 2 * w // 3], s[h // 2:, w // 3: 2 * w // 3]
    assert (top[..., 2] > 200).sum() > 0 and (top[..., 0] > 200).sum() == 0  # red above the middle
    assert (bottom[..., 0] > 200).sum() > 0 and (bottom[..., 2] > 200).sum() == 0  # blue below


def test_the_same_pair_read_from_its_other_end_is_the_strip_turned_half_round():
    img, a, b = _two_marks()
    forward, backward = pairs.strip(img, a, b), pairs.strip(img, b, a)
    diff = np.abs(forward.astype(int) - np.flip(backward, (0, 1)).astype(int))
    assert np.median(diff) <= 2


def test_the_indices_are_blurred_so_their_ranks_cannot_decide():
    img = np.full((300, 400, 3), 255, np.uint8)
    a, b = [80, 120, 120, 180], [280, 120, 320, 180]
    for box in (a, b):
        cv2.putText(img, "7", (box[0] + 5, box[3] - 10), cv2.FONT_HERSHEY_SIMPLEX, 1.5, (0, 0, 0), 4)
    before = img[a[1]:a[3], a[0]:a[2]].std()
    pairs.strip(img, a, b)  # does not touch the picture it is given
    assert img[a[1]:a[3], a[0]:a[2]].std() == before
    blurred = img.copy()
    pairs._blur_index(blurred, a)
    assert blurred[a[1]:a[3], a[0]:a[2]].std() < 0.5 * before


def test_training_strips_say_which_pairs_are_one_card(tmp_path):
    img = np.full((400, 400, 3), 60, np.uint8)
    meta = {"boxes": [
        {"rank": "5", "suit": "H", "card": 0, "box": [50, 50, 70, 80]},
        {"rank": "5", "suit": "H", "card": 0, "box": [150, 170, 170, 200]},
        {"rank": "5", "suit": "S", "card": 1, "box": [200, 50, 220, 80]},
    ]}
    (tmp_path / "images" / "train").mkdir(parents=True)
    (tmp_path / "meta" / "train").mkdir(parents=True)
    cv2.imwrite(str(tmp_path / "images" / "train" / "000000.jpg"), img)
    (tmp_path / "meta" / "train" / "000000.json").write_text(json.dumps(meta))
    out = tmp_path / "strips.npz"
    summary = pairs.build([tmp_path], out, seed=0)
    d = np.load(out)
    assert d["x"].shape[1:] == (*pairs.STRIP, 3)
    assert summary["strips"] == len(d["y"]) >= 2
    assert summary["one_card"] == int(d["y"].sum()) == 1
    assert d["same_rank"].all()  # every pair here shows fives
