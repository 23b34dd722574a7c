"""vision.photos: pictures from the wallpaper packages as things on the synthetic tables, split by picture so
that the validation scenes' things are never seen in training."""

from __future__ import annotations

import json
import os

import cv2
import numpy as np
import pytest

from vision import photos

from .conftest import tiny_art_cache


def _pictures(root, names, size=(90, 120)):
    """Fake wallpapers: each name a file of noise (a picture must not be nearly plain to be used)."""
    rng = np.random.default_rng(0)
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(path), rng.integers(0, 255, (*size, 3), dtype=np.uint8))
    return root


@pytest.fixture
def walls(tmp_path, monkeypatch):
    root = _pictures(tmp_path / "walls", [f"pic{k}.jpg" for k in range(24)]
                     + ["Elephants_3840x2160.jpg", "Elephants.jpg", "adwaita-l.png", "adwaita-d.png",
                        "Kite/contents/images/1920x1080.jpg", "Kite/contents/images/800x600.jpg"])
    monkeypatch.setattr(photos, "PHOTO_DIRS", (root,))
    photos.pictures.cache_clear()
    yield root
    photos.pictures.cache_clear()


def test_one_picture_in_several_files_lies_in_one_split(walls):
    """A picture shipped at several sizes, or light and dark, is one name: never in both splits."""
    names = {photos._name(p) for p in walls.rglob("*.*")}
    assert {"Elephants", "adwaita", "Kite"} <= names and "Elephants_3840x2160" not in names
    train, val = photos.picture_files("train"), photos.picture_files("val")
    assert not {photos._name(p) for p in train} & {photos._name(p) for p in val}
    assert len(train) + len(val) == len(names) and val  # one file each, a share held out
    both = [p for p in train + val if photos._name(p) == "Kite"]
    assert len(both) == 1 and both[0].name == "1920x1080.jpg"  # the largest of its sizes


def test_things_lie_on_the_table_and_a_seed_gives_the_same_ones(walls):
    pics = photos.pictures("train")
    table = np.full((120, 160, 3), 200, np.float32)
    a, b = table.copy(), table.copy()
    photos.things(np.random.default_rng(5), a, pics, 3)
    photos.things(np.random.default_rng(5), b, pics, 3)
    assert np.array_equal(a, b) and a.shape == table.shape and a.dtype == np.float32
    changed = np.abs(a - table).max(2) > 1
    assert 0.02 < changed.mean() < 0.95  # some of the table covered, not all of it


def test_photo_scenes_keep_the_cards_of_the_same_scenes_without_them(tmp_path, walls):
    """``vision.synth --photos`` adds things to the table from their own random stream: the cards and their
    labels are those of the same seed without it, so a set with photos compares scene for scene."""
    from vision import synth

    art = tiny_art_cache(tmp_path / "art")
    common = ["--count", "3", "--seed", "4", "--art-cache", str(art), "--cache-only"]
    assert synth.main(["--out", str(tmp_path / "plain"), *common]) == 0
    assert synth.main(["--out", str(tmp_path / "photo"), *common, "--photos", "1.0"]) == 0
    for meta in sorted((tmp_path / "plain" / "meta" / "train").glob("*.json")):
        other = tmp_path / "photo" / "meta" / "train" / meta.name
        assert json.loads(meta.read_text()) == json.loads(other.read_text())
    for k in range(3):  # every scene has one to three things on its table
        a = cv2.imread(str(tmp_path / "plain" / "images" / "train" / f"00000{k}.jpg")).astype(int)
        b = cv2.imread(str(tmp_path / "photo" / "images" / "train" / f"00000{k}.jpg")).astype(int)
        assert a.shape == b.shape and (np.abs(a - b).max(2) > 30).mean() > 0.005


def test_photo_scenes_without_pictures_say_what_to_install(tmp_path, monkeypatch):
    from vision import synth

    monkeypatch.setattr(photos, "PHOTO_DIRS", (tmp_path / "none",))
    photos.pictures.cache_clear()
    art = tiny_art_cache(tmp_path / "art")
    with pytest.raises(SystemExit, match="no pictures for train.*apt-get install gnome-backgrounds"):
        synth.main(["--out", str(tmp_path / "o"), "--count", "1", "--art-cache", str(art), "--cache-only",
                    "--photos", "0.5"])
    photos.pictures.cache_clear()


def test_a_wallpaper_package_dpkg_knows_but_has_not_installed_is_installed(monkeypatch):
    """dpkg-query lists a removed or never-installed package as ``... not-installed`` or ``... config-files``:
    those are missing, so the generator installs them rather than finding no pictures."""
    from types import SimpleNamespace

    from vision import art

    monkeypatch.setattr(art.shutil, "which", lambda name: "/usr/bin/" + name)
    calls = []

    def run(cmd, **kw):
        calls.append(cmd)
        if cmd[0] == "dpkg-query":
            a, b, c = photos.PHOTO_PACKAGES
            out = f"{a} install ok installed\n{b} unknown ok not-installed\n{c} deinstall ok config-files\n"
            return SimpleNamespace(returncode=0, stdout=out, stderr="")
        return SimpleNamespace(returncode=0, stdout="", stderr="")

    assert photos.install_photos(run, is_root=True) == []
    assert calls[-1][:4] == ["apt-get", "install", "-y", "-q"] and calls[-1][4:] == list(photos.PHOTO_PACKAGES[1:])


def test_a_picture_whose_name_is_not_utf8_is_put_on_the_table(walls):
    """A wallpaper named in bytes that are not UTF-8 text is read like the others (OpenCV's own reading crashed)."""
    from vision import picture_file

    odd = walls / os.fsdecode(b"caf\xe9.jpg")
    assert picture_file.write(odd, np.random.default_rng(1).integers(0, 255, (90, 120, 3), dtype=np.uint8))
    split = photos.split_of(photos._name(odd))
    assert odd in photos.picture_files(split)
    assert photos.decoded(odd).shape == (90, 120, 3)
    assert len(photos.pictures(split)) == len(photos.picture_files(split))  # every one of them read
