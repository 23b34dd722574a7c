"""Procedural deck designs (``vision.fontdeck``): indices typeset in system fonts, for the classifier's crops."""

from dataclasses import replace

import numpy as np
import pytest

from vision.fontdeck import RANKS, VAL_FAMILIES, font_card, index_fonts, pip_mask, random_code, random_style


def _style(seed: int):
    if not index_fonts("train"):
        pytest.skip("no TrueType or OpenType text fonts installed here")
    return random_style(np.random.default_rng(seed), "train")


def _region(card, box):
    h, w = card.shape[:2]
    x0, y0, x1, y1 = box
    return card[int(round(y0 * h)):int(round(y1 * h)), int(round(x0 * w)):int(round(x1 * w)), :3].astype(int)


@pytest.mark.parametrize("seed", range(8))
def test_the_index_boxes_hold_ink_and_the_bottom_one_is_the_top_one_turned_half_round(seed):
    style = _style(seed)
    # an ace: its one big pip in the middle stays clear of the corners, so the two indices are all there is to compare
    card, boxes = font_card(np.random.default_rng(seed), style, "AH", height=300)
    h, w = card.shape[:2]
    assert card.shape[2] == 4 and h == 300
    assert len(boxes) == (4 if style.four_corners else 2)
    top, bottom = boxes[0], boxes[1]
    assert np.allclose(bottom, (1 - top[2], 1 - top[3], 1 - top[0], 1 - top[1]), atol=1.5 / min(h, w))
    a, b = _region(card, top), _region(card, bottom)
    paper = np.array(style.paper)
    assert (np.abs(a - paper).sum(2) > 90).mean() > 0.1  # ink, not paper
    assert a.shape == b.shape and np.abs(a - b[::-1, ::-1]).mean() < 4  # the same index, half a turn round


def test_a_six_prints_its_pip_under_the_rank_so_it_is_no_nine_upside_down():
    from vision.fontdeck import _index

    style = replace(_style(1), pip_beside=False)
    ink = _index(style, "6", "S", 400) > 128
    rows = np.flatnonzero(ink.any(1))
    gap = np.flatnonzero(~ink[rows[0]:rows[-1] + 1].any(1))
    assert len(gap), "rank and pip should be two blocks of ink, one above the other"
    rank, pip = ink[:rows[0] + gap[0]], ink[rows[0] + gap[-1]:]
    assert rank.sum() > 0 and pip.sum() > 0
    assert pip.any(1).sum() < rank.any(1).sum() * 1.2  # the pip is no taller than the rank (scale 0.55-1.0)


def test_the_same_seed_draws_the_same_design_and_card():
    s1, s2 = _style(5), _style(5)
    assert s1 == s2
    a, ba = font_card(np.random.default_rng(9), s1, "QC", height=200)
    b, bb = font_card(np.random.default_rng(9), s2, "QC", height=200)
    assert np.array_equal(a, b) and ba == bb


def test_validation_font_families_are_never_trained_on():
    train, val = set(index_fonts("train")), set(index_fonts("val"))
    if not (train and val):
        pytest.skip("the validation font families are not installed here")
    assert not train & val
    assert all(p.name.startswith(VAL_FAMILIES) for p in val)


@pytest.mark.parametrize("suit", "SHDC")
def test_each_suit_pip_is_a_solid_shape_of_the_height_asked(suit):
    m = pip_mask(suit, 40)
    assert m.shape[0] == 40 and 0.2 < (m > 128).mean() < 0.9


def test_random_codes_are_classifier_classes():
    from vision.train import CLS_NAMES

    rng = np.random.default_rng(0)
    codes = {random_code(rng) for _ in range(400)}
    assert codes <= set(CLS_NAMES) and {c[:-1] for c in codes} == set(RANKS)


def test_missing_font_packages_are_named_and_installed_with_apt_get(monkeypatch):
    from types import SimpleNamespace

    from vision import art, fontdeck

    monkeypatch.setattr(art.shutil, "which", lambda name: "/usr/bin/" + name)
    calls = []

    def run(cmd, **kw):
        calls.append(cmd)
        if cmd[0] == "dpkg-query":  # all installed but two
            lines = [f"{p} install ok installed" for p in fontdeck.FONT_PACKAGES[2:]]
            return SimpleNamespace(returncode=1, stdout="\n".join(lines) + "\n", stderr="")
        return SimpleNamespace(returncode=0, stdout="", stderr="")

    assert fontdeck.missing_fonts(run) == list(fontdeck.FONT_PACKAGES[:2])
    assert fontdeck.install_fonts(run, is_root=True) == []
    assert calls[-1][:4] == ["apt-get", "install", "-y", "-q"] and calls[-1][4:] == list(fontdeck.FONT_PACKAGES[:2])
    problems = fontdeck.install_fonts(run, is_root=False)
    assert len(problems) == 1 and "sudo apt-get install " + " ".join(fontdeck.FONT_PACKAGES[:2]) in problems[0]


def test_a_font_deck_scene_labels_the_indices_of_its_procedural_cards():
    """``vision.synth --font-decks``: a scene's cards are of one procedural design, and every labelled index
    lies on ink of that design, with the card's rank."""
    from types import SimpleNamespace

    from vision.synth import render_scene

    if not index_fonts("train"):
        pytest.skip("no TrueType or OpenType text fonts installed here")
    blank = np.full((360, 250, 4), 255, np.uint8)  # the installed art's stand-in: never drawn here
    codes = [r + s for r in RANKS for s in "SHDC"]
    bank = SimpleNamespace(decks=[("stand-in", None, codes, [])], split="train",
                           card=lambda di, code: (blank, [(0.05, 0.05, 0.2, 0.2)]))
    labelled = 0
    for seed in range(6):
        img, labels = render_scene(np.random.default_rng(seed), bank, font_decks=1.0)
        assert all(lab["deck"].startswith("font:") for lab in labels)
        assert len({lab["deck"] for lab in labels}) <= 1  # one design a scene
        for lab in labels:
            assert lab["rank"] in RANKS and lab["suit"] in "SHDC"
            x0, y0, x1, y1 = (int(v) for v in lab["box"])
            patch = img[y0:y1 + 1, x0:x1 + 1].astype(float)
            assert patch.std() > 8  # print, not plain paper
        labelled += len(labels)
    assert labelled > 0
