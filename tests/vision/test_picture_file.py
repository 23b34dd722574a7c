"""vision.picture_file: the tools read and write picture files by their bytes, so a file name that is not UTF-8 text
(on Linux, bytes such as ``b"card\\xff.png"``) is a picture like any other, where OpenCV's own file functions crashed."""

from __future__ import annotations

import os

import cv2
import numpy as np
import pytest

from vision import picture_file

from .conftest import tiny_art_cache

NOT_UTF8 = os.fsdecode(b"card\xff.png")


def test_a_picture_whose_name_is_not_utf8_is_written_and_read_back_with_the_callers_flags(tmp_path):
    card = np.random.default_rng(0).integers(0, 256, (30, 20, 4), np.uint8)
    path = tmp_path / NOT_UTF8
    assert picture_file.write(path, card)
    assert os.listdir(os.fsencode(tmp_path)) == [b"card\xff.png"]
    assert np.array_equal(picture_file.read(path, cv2.IMREAD_UNCHANGED), card)  # the clear margin kept
    assert picture_file.read(path).shape == (30, 20, 3)  # as cv2.imread: colour unless told otherwise


def test_a_jpeg_is_written_with_the_callers_quality(tmp_path):
    scene = np.random.default_rng(1).integers(0, 256, (64, 64, 3), np.uint8)
    for quality in (20, 95):
        assert picture_file.write(tmp_path / f"{quality}.jpg", scene, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert (tmp_path / "20.jpg").stat().st_size < (tmp_path / "95.jpg").stat().st_size / 2


@pytest.mark.parametrize("what", ["missing", "folder", "empty", "text"])
def test_a_file_that_holds_no_picture_reads_as_none_as_imread_gave(tmp_path, what):
    """The tools act on None (skip the card, refuse the pack, stop with the scene's name): no exception instead."""
    path = tmp_path / NOT_UTF8
    if what == "folder":
        path.mkdir()
    elif what == "empty":
        path.write_bytes(b"")
    elif what == "text":
        path.write_bytes(b"not a picture")
    assert picture_file.read(path, cv2.IMREAD_UNCHANGED) is None


def test_a_picture_that_cannot_be_written_says_why_rather_than_being_left_out(tmp_path):
    """cv2.imwrite answered False into a missing folder, and the training tools went on without the picture."""
    with pytest.raises(FileNotFoundError):
        picture_file.write(tmp_path / "gone" / NOT_UTF8, np.zeros((4, 4, 3), np.uint8))


def test_classifier_crops_are_cut_from_art_and_written_under_names_that_are_not_utf8(tmp_path):
    """vision.crops reads the deck's cards from an art cache and writes its crops, both in folders whose names are not
    UTF-8 text; its crops are those of the same cache under a plain name."""
    from vision import crops

    crops_of = {}
    for name in ("plain", os.fsdecode(b"caf\xe9")):
        art = tiny_art_cache(tmp_path / f"art-{name}")
        for png in art.rglob("*.png"):  # vision.crops skips decks drawn under 200 px
            card = picture_file.read(png, cv2.IMREAD_UNCHANGED)
            picture_file.write(png, cv2.resize(card, None, fx=3, fy=3, interpolation=cv2.INTER_NEAREST))
        out = tmp_path / f"crops-{name}"
        assert crops.main(["--out", str(out), "--count", "6", "--seed", "4", "--art-cache", str(art),
                           "--cache-only"]) == 0
        crops_of[name] = {p.relative_to(out): picture_file.read(p) for p in sorted(out.rglob("*.png"))}
    plain, other = crops_of.values()
    assert len(plain) == 6 and plain.keys() == other.keys()
    assert all(np.array_equal(plain[k], other[k]) for k in plain)
