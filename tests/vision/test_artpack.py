"""The card art travels to a lent GPU machine as a pack (``vision.artpack``) and is read there without the
decks it was rendered from (``vision.synth --cache-only``): the unpacked cache holds the same pixels, a
damaged or hostile pack is refused with a message that names what is wrong, and scenes render from the
cache alone."""

from __future__ import annotations

import io
import json
import tarfile

import cv2
import numpy as np
import pytest

from vision import art, artpack, synth

from .conftest import tiny_art_cache as _cache

def test_unpacked_art_has_the_same_pixels_and_index(tmp_path):
    cache = _cache(tmp_path / "art")
    assert artpack.pack(cache, tmp_path / "art.tar") == 52
    assert artpack.unpack(tmp_path / "art.tar", tmp_path / "back") == 52
    assert (tmp_path / "back" / "index.json").read_text() == (cache / "index.json").read_text()
    for png in cache.glob("*/*.png"):
        back = cv2.imread(str(tmp_path / "back" / png.parent.name / png.name), cv2.IMREAD_UNCHANGED)
        assert np.array_equal(back, cv2.imread(str(png), cv2.IMREAD_UNCHANGED)), png.name


def test_colour_under_clear_pixels_comes_back_black(tmp_path):
    """WebP does not keep the colour where a pixel is fully transparent; the pack stores it black at both
    ends, so what is visible is exact and what is not is defined."""
    cache = _cache(tmp_path / "art")
    png = cache / "test__plain" / "AS.png"
    img = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
    img[:4, :, :3] = 200  # colour under the clear margin
    cv2.imwrite(str(png), img)
    artpack.pack(cache, tmp_path / "art.tar")
    artpack.unpack(tmp_path / "art.tar", tmp_path / "back")
    back = cv2.imread(str(tmp_path / "back" / "test__plain" / "AS.png"), cv2.IMREAD_UNCHANGED)
    assert (back[:4, :, :3] == 0).all()
    assert np.array_equal(back[4:], img[4:])


def test_a_cache_without_index_is_not_packed(tmp_path):
    with pytest.raises(artpack.PackError, match="index.json is missing"):
        artpack.pack(tmp_path, tmp_path / "art.tar")
    assert not (tmp_path / "art.tar").exists()


def test_a_pack_entry_outside_the_cache_is_refused(tmp_path):
    bad = tmp_path / "bad.tar"
    with tarfile.open(bad, "w") as tar:
        evil = tmp_path / "evil.webp"
        evil.write_bytes(b"x")
        tar.add(evil, arcname="../evil.webp")
    with pytest.raises(artpack.PackError, match=r"unexpected entry '\.\./evil\.webp'"):
        artpack.unpack(bad, tmp_path / "art")
    assert not (tmp_path / "art").exists()


def test_a_corrupt_image_in_the_pack_is_named(tmp_path):
    cache = _cache(tmp_path / "art")
    artpack.pack(cache, tmp_path / "art.tar")
    with tarfile.open(tmp_path / "art.tar") as tar:
        members = [(m, tar.extractfile(m).read()) for m in tar.getmembers()]
    with tarfile.open(tmp_path / "broken.tar", "w") as tar:
        for m, data in members:
            data = b"not an image" if m.name.endswith("/QH.webp") else data
            m.size = len(data)
            tar.addfile(m, io.BytesIO(data))
    with pytest.raises(artpack.PackError, match="QH.webp is not a readable image"):
        artpack.unpack(tmp_path / "broken.tar", tmp_path / "back")


def test_the_command_says_what_is_missing(tmp_path, capsys):
    assert artpack.main(["unpack", "--pack", str(tmp_path / "none.tar"), "--art", str(tmp_path / "art")]) == 1
    assert f"no art pack at {tmp_path / 'none.tar'}" in capsys.readouterr().err


def test_scenes_render_from_the_cache_alone(tmp_path, monkeypatch):
    """``vision.synth --cache-only`` on an unpacked pack: no deck is looked for or installed, and the
    scenes and their labels are written."""
    cache = _cache(tmp_path / "art")
    artpack.pack(cache, tmp_path / "art.tar")
    artpack.unpack(tmp_path / "art.tar", tmp_path / "unpacked")
    monkeypatch.setattr(art, "build_cache", lambda *a, **k: pytest.fail("looked for the decks"))
    out = tmp_path / "scenes"
    assert synth.main(["--out", str(out), "--count", "3", "--seed", "1", "--art-cache", str(tmp_path / "unpacked"),
                       "--cache-only"]) == 0
    assert len(list((out / "images" / "train").glob("*.jpg"))) == 3
    labels = [json.loads(p.read_text()) for p in sorted((out / "meta" / "train").glob("*.json"))]
    assert all(b["deck"] == "test:plain" for meta in labels for b in meta["boxes"])
    assert any(meta["boxes"] for meta in labels)


def test_cache_only_without_a_cache_says_how_to_get_one(tmp_path):
    with pytest.raises(SystemExit, match="no rendered card art in .*vision.artpack"):
        art.cached_index(tmp_path)


def test_the_fonts_that_travel_cover_families_before_a_second_file_of_any(tmp_path):
    """``vision.artpack extras`` carries as many font families as fit: a second file of a family only once
    every family that fits has one, and never more bytes than the budget."""
    sizes = {"Alpha-Regular.ttf": 100, "Alpha-Bold.ttf": 120, "Beta-Regular.ttf": 300, "Gamma.ttf": 150,
             "Huge-Regular.ttf": 5000}
    fonts = []
    for name, size in sizes.items():
        (tmp_path / name).write_bytes(b"x" * size)
        fonts.append(tmp_path / name)
    chosen = [f.name for f in artpack._font_choice(fonts, 700)]
    assert sum(sizes[n] for n in chosen) <= 700
    assert set(chosen) == {"Alpha-Regular.ttf", "Gamma.ttf", "Beta-Regular.ttf", "Alpha-Bold.ttf"}
    assert chosen.index("Alpha-Bold.ttf") > max(chosen.index(n) for n in ("Alpha-Regular.ttf", "Gamma.ttf", "Beta-Regular.ttf"))
