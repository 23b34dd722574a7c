"""Procedural jokers (``vision.jokers``): the synthetic data's answer to jokers unlike any installed deck."""

import numpy as np
import pytest

from vision.jokers import TRAIN_HERSHEY, VAL_FONTS, VAL_HERSHEY, fonts, joker_card, printed_word, text_clutter


@pytest.mark.parametrize("seed", range(6))
def test_the_corner_boxes_hold_the_mark_at_both_ends(seed):
    card, boxes = joker_card(np.random.default_rng(seed), "train", height=240)
    h, w = card.shape[:2]
    assert card.shape[2] == 4 and h == 240
    assert len(boxes) == 2
    top, bottom = boxes
    # the bottom-right mark is the top-left one turned half a turn
    assert np.allclose(bottom, (1 - top[2], 1 - top[3], 1 - top[0], 1 - top[1]))
    for x0, y0, x1, y1 in boxes:
        assert 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1
        region = card[int(y0 * h):int(np.ceil(y1 * h)), int(x0 * w):int(np.ceil(x1 * w)), :3].astype(int)
        paper = card[h // 2, 2, :3].astype(int)
        # ink: a good share of the box differs clearly from the paper
        assert (np.abs(region - paper).sum(2) > 90).mean() > 0.08


def test_the_same_seed_draws_the_same_joker():
    a, ba = joker_card(np.random.default_rng(3), "val", height=200)
    b, bb = joker_card(np.random.default_rng(3), "val", height=200)
    assert np.array_equal(a, b) and ba == bb


def test_validation_fonts_are_never_trained_on():
    assert not set(TRAIN_HERSHEY) & set(VAL_HERSHEY)
    train, val = set(fonts("train")), set(fonts("val"))
    if not (train and val):
        pytest.skip("no TrueType fonts installed here")
    assert not train & val
    assert all(p.name.startswith(VAL_FONTS) for p in val)


def test_printed_words_are_never_the_word_joker():
    rng = np.random.default_rng(0)
    words = [printed_word(rng) for _ in range(3000)]
    assert not any("joker" in w.lower() for w in words)
    assert len(set(words)) > 2500  # random words, not a short list the classifier could learn by heart


def test_text_clutter_draws_each_word_inside_its_box():
    img = np.full((200, 300, 3), 230, np.uint8)
    boxes = text_clutter(np.random.default_rng(4), img, "val", words=1, height=(0.2, 0.25), first_at=(150, 100))
    assert len(boxes) == 1
    x0, y0, x1, y1 = boxes[0]
    assert x0 < 150 < x1 and y0 < 100 < y1
    inked = np.argwhere(np.abs(img.astype(int) - 230).sum(2) > 60)
    assert len(inked) > 50
    assert inked[:, 1].min() >= x0 - 1 and inked[:, 1].max() <= x1 + 1
    assert inked[:, 0].min() >= y0 - 1 and inked[:, 0].max() <= y1 + 1


def test_print_and_blank_corner_crops_are_labelled_no_index():
    from vision.crops import text_sample
    from vision.reader import NOT_AN_INDEX

    for seed in range(12):
        crop, label = text_sample(np.random.default_rng(seed), "val", size=64)
        again, _ = text_sample(np.random.default_rng(seed), "val", size=64)
        assert label == NOT_AN_INDEX
        assert crop.shape == (64, 64, 3) and crop.dtype == np.uint8
        assert np.array_equal(crop, again)  # the same seed cuts the same crop
