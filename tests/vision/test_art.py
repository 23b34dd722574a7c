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
