"""The card art installs itself: what is missing is installed with apt-get (as root) and npm, and what
cannot be installed is named with why (issue 3: "the script installs or locates the art itself and says
clearly what is missing")."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from vision import art


@pytest.fixture
def bare_machine(tmp_path, monkeypatch):
    """No art and no renderer: every package is missing; tools are found on a PATH the test controls."""
    monkeypatch.setattr(art, "APT_ART", {"gnome-cards-data": tmp_path / "aisleriot",
                                         "kdegames-card-data-kf5": tmp_path / "carddecks"})
    monkeypatch.setattr(art, "NPM_DIR", tmp_path / "npm")
    tools = {"apt-get": "/usr/bin/apt-get", "npm": "/usr/bin/npm"}
    monkeypatch.setattr(art.shutil, "which", lambda name: tools.get(name))
    return tmp_path, tools


class Installer:
    """Stands in for subprocess.run: records each command and answers with the given exit codes in turn
    (0 when none is left); ``effect`` runs on a success, as a real install would leave files behind."""

    def __init__(self, codes=(), effect=None):
        self.codes, self.effect, self.commands = list(codes), effect, []

    def __call__(self, cmd, **kwargs):
        self.commands.append(cmd)
        code = self.codes.pop(0) if self.codes else 0
        if code == 0 and self.effect:
            self.effect(cmd)
        return subprocess.CompletedProcess(cmd, code, "", "" if code == 0 else "E: Unable to locate package\n")


def test_missing_art_is_installed_with_apt_get_and_npm(bare_machine):
    root, _ = bare_machine

    def effect(cmd):
        if cmd[0] == "apt-get":
            for pkg in cmd[4:]:
                if pkg in art.APT_ART:
                    art.APT_ART[pkg].mkdir()

    run = Installer(effect=effect)
    assert art.install_missing(run=run, is_root=True) == []
    apt, npm = run.commands
    assert apt == ["apt-get", "install", "-y", "-q", "gnome-cards-data", "kdegames-card-data-kf5", "librsvg2-bin"]
    assert npm[:3] == ["npm", "install", "--prefix"] and npm[3] == str(root / "npm")
    assert npm[-4:] == list(art.NPM_ART)
    assert (root / "npm" / "package.json").exists()  # npm installs into that folder, not a parent's project


def test_nothing_is_run_when_nothing_is_missing(bare_machine, monkeypatch):
    monkeypatch.setattr(art, "missing_packages", lambda: ([], []))
    run = Installer()
    assert art.install_missing(run=run, is_root=True) == [] and run.commands == []


def test_apt_get_refreshes_its_lists_once_when_the_first_try_fails(bare_machine, monkeypatch):
    monkeypatch.setattr(art, "missing_packages", lambda: (["gnome-cards-data"], []))
    run = Installer(codes=[100, 0, 0])
    assert art.install_missing(run=run, is_root=True) == []
    assert [c[:2] for c in run.commands] == [["apt-get", "install"], ["apt-get", "update"], ["apt-get", "install"]]


def test_what_cannot_be_installed_is_named_with_why(bare_machine, monkeypatch):
    _, tools = bare_machine
    monkeypatch.setattr(art, "missing_packages", lambda: (["gnome-cards-data"], ["svg-cards"]))
    run = Installer(codes=[100, 0, 100, 1])
    problems = art.install_missing(run=run, is_root=True)
    assert len(problems) == 2
    assert "gnome-cards-data" in problems[0] and "apt-get install failed: E: Unable to locate package" in problems[0]
    assert "svg-cards" in problems[1] and "npm install failed" in problems[1]
    # not root: nothing is run, and the message says the command to run
    run = Installer()
    problems = art.install_missing(run=run, is_root=False)
    assert run.commands == [["npm", "install", "--prefix", str(art.NPM_DIR), "--no-audit", "--no-fund", "svg-cards"]]
    assert "needs apt-get as root (run: sudo apt-get install gnome-cards-data)" in problems[0]
    # no npm at all
    del tools["npm"]
    assert any("npm not found" in p for p in art.install_missing(run=Installer(), is_root=True))


def test_no_install_only_looks(bare_machine, monkeypatch, tmp_path):
    """``--no-install`` (``install=False``): nothing is installed, and with no renderer the message says
    which package to install."""
    monkeypatch.setattr(art, "install_missing", lambda **_: pytest.fail("installed although told not to"))
    with pytest.raises(SystemExit, match="rsvg-convert not found: apt-get install librsvg2-bin"):
        art.build_cache(Path(tmp_path / "cache"), install=False)


# ---------------------------------------------------------------- which corners hold an index

def _deck(corner_pip: bool = True, dark: bool = False) -> dict:
    """52 small cards: the rank and a pip in the top-left corner and, turned half round, the bottom right;
    with ``corner_pip`` a lone pip in the top right, the same on every card (as aisleriot's tango prints);
    ``dark``: dark card art with a light edge where the paper colour is sampled, so that every corner reads
    as ink (as on kde's oxygen deck)."""
    import cv2
    import numpy as np

    cards = {}
    for rank in art.RANKS:
        for suit in "SHDC":
            img = np.zeros((180, 120, 4), np.uint8)
            img[:, :] = (40, 40, 40, 255) if dark else (250, 250, 250, 255)
            if dark:
                img[:, :11] = (250, 250, 250, 255)
            ink = (200, 200, 200) if dark else (20, 20, 160)
            cv2.putText(img, rank, (7, 26), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (*ink, 255), 2)
            cv2.circle(img, (15, 40), 6, (*ink, 255), -1)
            if corner_pip:
                cv2.circle(img, (104, 16), 7, (*ink, 255), -1)
            img[90:] = img[:90][::-1, ::-1]  # the bottom half: the top half turned half round
            cards[rank + suit] = img
    return cards


def test_a_corner_whose_ink_changes_with_the_rank_is_an_index_and_a_lone_pip_is_not():
    """tango's and tango_nuevo's top-right pip, and the ornaments of the ornamental decks, were labelled as
    indices until the nineteenth session: the ink there is the same on every rank."""
    boxes = art.deck_index_boxes(_deck(corner_pip=True))
    assert len(boxes) == 2, boxes
    top, bottom = sorted(boxes, key=lambda b: b[1])
    assert top[0] < 0.2 and top[1] < 0.2 and bottom[2] > 0.8 and bottom[3] > 0.8  # top left and bottom right
    assert not art.holds_a_rank(_deck(), (0.78, 0.02, 0.97, 0.17))  # the lone pip's box
    assert art.holds_a_rank(_deck(), top)


def test_a_corner_on_dark_card_art_is_not_taken_for_an_index():
    """On dark card art the paper-colour rule calls every corner ink: no box is kept, so the deck is left out
    (the generators skip a deck without index boxes) rather than labelled wrong."""
    assert art.deck_index_boxes(_deck(dark=True)) == []


def test_a_cache_whose_boxes_an_older_rule_found_has_them_found_again(tmp_path):
    """A cache rendered before the rule (or a pack unpacked from one) must not label its old boxes."""
    import json

    import cv2

    folder = tmp_path / "test__deck"
    folder.mkdir()
    for code, img in _deck().items():
        cv2.imwrite(str(folder / f"{code}.png"), img)
    stale = {"test:deck": {"folder": folder.name, "cards": sorted(_deck()),
                           "index_boxes": [[0.05, 0.03, 0.3, 0.27], [0.78, 0.02, 0.97, 0.17]]}}
    (tmp_path / "index.json").write_text(json.dumps(stale))
    entry = art.cached_index(tmp_path)["test:deck"]
    assert entry["index_rule"] == art.INDEX_RULE
    assert len(entry["index_boxes"]) == 2 and all(b[1] < 0.5 or b[3] > 0.8 for b in entry["index_boxes"])
    assert not any(b[0] > 0.7 and b[3] < 0.3 for b in entry["index_boxes"])  # not the top-right pip
