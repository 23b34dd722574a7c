"""Card art for the synthetic data: find the installed decks, render every card once, and locate
the printed corner indices of each deck.

The art comes from the registries (never from the network at run time):

* Debian ``gnome-cards-data`` (AisleRiot themes, ``/usr/share/aisleriot/cards/*.svgz``)
* Debian ``kdegames-card-data-kf5`` (``/usr/share/carddecks/svg-*/*.svgz``)
* npm ``@heruka_urgyen/react-playing-cards``, ``svg-cards``, ``cardsJS``,
  ``@younestouati/playing-cards-standard-deck`` installed under an npm folder
  (``$CARDS_ART_NPM`` or ``/work/cards-art/npm``).

Only decks with English indices (A 2-10 J Q K) are used: :data:`ENGLISH_DECKS` lists them after a look
at their face cards. Rendering needs ``rsvg-convert`` (Debian ``librsvg2-bin``). What is missing is
installed first (:func:`install_missing`: apt-get as root, npm into the npm folder), so that one command
on a fresh machine makes the same data as anywhere else; what cannot be installed is named, with why.

Each card is rendered to a PNG (RGBA) under a cache folder; per deck, the corner-index boxes are found
from the ink in the corners of its low number cards (2 and 3, whose pips stay away from the corners),
and shared by all cards of the deck.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from assistant.cards import CLAIMABLE, SUITS
from vision import picture_file

AISLERIOT_DIR = Path("/usr/share/aisleriot/cards")
KDE_DIR = Path("/usr/share/carddecks")
NPM_DIR = Path(os.environ.get("CARDS_ART_NPM", "/work/cards-art/npm"))

RANKS = tuple(rank.value for rank in CLAIMABLE)
SUIT_NAMES = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}
RANK_WORDS = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}

#: Decks whose indices are English (A K Q J), checked by eye on rendered face cards.
#: Names are "source:deck". Others (French R/D/V, German, Cyrillic, hexadecimal) are left out.
ENGLISH_DECKS = {
    "aisleriot:anglo", "aisleriot:anglo_bitmap", "aisleriot:anglo_modern", "aisleriot:anglo_modern_4_color",
    "aisleriot:anglo_poker", "aisleriot:bellot", "aisleriot:gnomangelo", "aisleriot:gnomangelo_bitmap",
    "aisleriot:ornamental", "aisleriot:plastic", "aisleriot:simplistic", "aisleriot:tango",
    "aisleriot:tango_nuevo", "aisleriot:tigullio",
    "kde:jolly-royal", "kde:nicu-ornamental", "kde:nicu-white", "kde:oxygen", "kde:standard",
    "kde:tigullio-international",
    "npm:kennard-2color", "npm:kennard-2color-bf", "npm:kennard-4color", "npm:kennard-4color-bf",
    "npm:svg-cards", "npm:cardsjs", "npm:younestouati",
}
#: Whole designs held out for validation (never in the training split).
VAL_DECKS = {"aisleriot:tango_nuevo", "kde:nicu-white", "npm:cardsjs", "aisleriot:gnomangelo_bitmap"}

CARD_HEIGHT = 360  # rendered card height in pixels

#: The Debian packages of the art and the renderer, with what each installs.
APT_ART = {"gnome-cards-data": AISLERIOT_DIR, "kdegames-card-data-kf5": KDE_DIR}
RENDERER = ("librsvg2-bin", "rsvg-convert")
#: The npm packages of the art, with a path each installs under ``node_modules``.
NPM_ART = {
    "@heruka_urgyen/react-playing-cards": "@heruka_urgyen/react-playing-cards/src/images",
    "svg-cards": "svg-cards/svg-cards.svg",
    "cardsJS": "cardsJS/cards",
    "@younestouati/playing-cards-standard-deck": "@younestouati/playing-cards-standard-deck/cards",
}


@dataclass
class Deck:
    name: str  # "source:deck"
    # card code ("AS", "10H", "JOKER-R", ...) -> how to render: (svg path, element id or None)
    cards: dict[str, tuple[Path, str | None]]


def _card_code(rank: str, suit: str) -> str:
    return f"{rank}{suit}"


def _svg_text(path: Path) -> str:
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data.decode("utf-8", "replace")


def _ids_in(text: str) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', text))


def _deck_from_ids(name: str, path: Path, ids: set[str]) -> Deck | None:
    cards: dict[str, tuple[Path, str | None]] = {}
    for rank in RANKS:
        word = RANK_WORDS.get(rank, rank)
        for suit, sname in SUIT_NAMES.items():
            for cand in (f"{sname}_{word}", f"{word}_{sname}"):
                if cand in ids:
                    cards[_card_code(rank, suit)] = (path, cand)
                    break
    for cand, code in (("joker_red", "JOKER-R"), ("red_joker", "JOKER-R"), ("joker_black", "JOKER-B"),
                       ("black_joker", "JOKER-B"), ("joker", "JOKER-B")):
        if cand in ids and code not in cards:
            cards[code] = (path, cand)
    if len([c for c in cards if not c.startswith("JOKER")]) < 52:
        return None
    return Deck(name, cards)


def _npm_file_deck(name: str, folder: Path, pattern) -> Deck | None:
    if not folder.is_dir():
        return None
    cards: dict[str, tuple[Path, str | None]] = {}
    for f in sorted(folder.glob("*.svg")):
        code = pattern(f.stem)
        if code:
            cards[code] = (f, None)
    if len([c for c in cards if not c.startswith("JOKER")]) < 52:
        return None
    return Deck(name, cards)


def _kennard(stem: str) -> str | None:
    m = re.fullmatch(r"([A2-9TJQK])([SHDC])", stem)
    if m:
        r = "10" if m.group(1) == "T" else m.group(1)
        return r + m.group(2)
    if stem in ("1J", "2J"):
        return "JOKER-R" if stem == "1J" else "JOKER-B"
    return None


def _cardsjs(stem: str) -> str | None:
    m = re.fullmatch(r"([A2-9TJQK]|10)([SHDC])", stem)
    if m:
        r = "10" if m.group(1) in ("T",) else m.group(1)
        return r + m.group(2)
    if stem.upper() in ("JOKER", "JOKER_RED", "JOKER_BLACK"):
        return "JOKER-B"
    return None


def _younes(stem: str) -> str | None:
    m = re.fullmatch(r"(\d+)([shdc])", stem)
    if m and 1 <= int(m.group(1)) <= 13:
        return RANKS[int(m.group(1)) - 1] + m.group(2).upper()
    if stem == "joker":
        return "JOKER-B"
    return None


def find_decks(english_only: bool = True) -> tuple[list[Deck], list[str]]:
    """All decks found on this machine, and a list of what is missing (for a clear message)."""
    decks: list[Deck] = []
    missing: list[str] = []
    if AISLERIOT_DIR.is_dir():
        for f in sorted(AISLERIOT_DIR.glob("*.svg*")):
            stem = f.name.split(".")[0]
            d = _deck_from_ids(f"aisleriot:{stem}", f, _ids_in(_svg_text(f)))
            if d:
                decks.append(d)
    else:
        missing.append(f"{AISLERIOT_DIR} (apt-get install gnome-cards-data)")
    if KDE_DIR.is_dir():
        for folder in sorted(KDE_DIR.glob("svg-*")):
            for f in sorted(folder.glob("*.svg*")):
                d = _deck_from_ids(f"kde:{folder.name[4:]}", f, _ids_in(_svg_text(f)))
                if d:
                    decks.append(d)
                    break
    else:
        missing.append(f"{KDE_DIR} (apt-get install kdegames-card-data-kf5)")
    nm = NPM_DIR / "node_modules"
    ken = nm / NPM_ART["@heruka_urgyen/react-playing-cards"]
    for variant in ("2color", "2color-bf", "4color", "4color-bf"):
        d = _npm_file_deck(f"npm:kennard-{variant}", ken / variant, _kennard)
        if d:
            decks.append(d)
    if not ken.is_dir():
        missing.append(f"{ken} (npm install @heruka_urgyen/react-playing-cards in {NPM_DIR})")
    sc = nm / NPM_ART["svg-cards"]
    if sc.is_file():
        d = _deck_from_ids("npm:svg-cards", sc, _ids_in(_svg_text(sc)))
        if d:
            decks.append(d)
    else:
        missing.append(f"{sc} (npm install svg-cards in {NPM_DIR})")
    cj = nm / NPM_ART["cardsJS"]
    d = _npm_file_deck("npm:cardsjs", cj, _cardsjs)
    if d:
        decks.append(d)
    else:
        missing.append(f"{cj} (npm install cardsJS in {NPM_DIR})")
    yt = nm / NPM_ART["@younestouati/playing-cards-standard-deck"]
    d = _npm_file_deck("npm:younestouati", yt, _younes)
    if d:
        decks.append(d)
    else:
        missing.append(f"{yt} (npm install @younestouati/playing-cards-standard-deck in {NPM_DIR})")
    if english_only:
        decks = [d for d in decks if d.name in ENGLISH_DECKS]
    return decks, missing


def _render(svg: Path, element: str | None, out: Path, height: int) -> bool:
    src = svg
    tmp = None
    if svg.suffix == ".svgz":
        tmp = out.parent / f".{svg.stem}.svg"
        if not tmp.exists():
            tmp.write_text(_svg_text(svg))
        src = tmp
    cmd = ["rsvg-convert", "-h", str(height), "-o", str(out)]
    if element:
        cmd += ["-i", element]
    cmd.append(str(src))
    r = subprocess.run(cmd, capture_output=True)
    return r.returncode == 0 and out.exists()


def _crop_alpha(img: np.ndarray) -> np.ndarray:
    a = img[:, :, 3]
    ys, xs = np.nonzero(a > 32)
    if len(xs) == 0:
        return img
    return img[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1]


def _ink_mask(card: np.ndarray) -> np.ndarray:
    """Pixels that differ clearly from the card's paper colour."""
    h, w = card.shape[:2]
    rgb = card[:, :, :3].astype(np.int16)
    band = rgb[int(0.45 * h): int(0.55 * h), int(0.04 * w): int(0.08 * w)].reshape(-1, 3)
    paper = np.median(band, axis=0) if len(band) else np.array([255, 255, 255])
    diff = np.abs(rgb - paper).sum(axis=2)
    return (diff > 90) & (card[:, :, 3] > 128)


def _corner_box(mask: np.ndarray) -> tuple[float, float, float, float] | None:
    """Ink bbox in the top-left corner region, in card-normalised coordinates."""
    h, w = mask.shape
    x0, x1, y0, y1 = int(0.035 * w), int(0.26 * w), int(0.025 * h), int(0.36 * h)
    sub = mask[y0:y1, x0:x1]
    if sub.sum() < 15:
        return None
    # drop thin frame lines: keep components that are not long thin strokes along the region
    n, lab, stats, _ = cv2.connectedComponentsWithStats(sub.astype(np.uint8), 8)
    keep = np.zeros_like(sub)
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        if area < 4:
            continue
        if (bw > 0.9 * sub.shape[1] and bh < 0.15 * sub.shape[0]) or (bh > 0.9 * sub.shape[0] and bw < 0.15 * sub.shape[1]):
            continue
        keep[lab == i] = 1
    ys, xs = np.nonzero(keep)
    if len(xs) < 15:
        return None
    return ((xs.min() + x0) / w, (ys.min() + y0) / h, (xs.max() + 1 + x0) / w, (ys.max() + 1 + y0) / h)


def _rot_box(b, k):
    """Box in a card rotated by k*90 degrees counter-clockwise (np.rot90) back to card coordinates."""
    x0, y0, x1, y1 = b
    if k == 0:
        return b
    if k == 2:  # 180
        return (1 - x1, 1 - y1, 1 - x0, 1 - y0)
    raise ValueError(k)


#: Version of the rule that finds a deck's index boxes; a cache whose boxes an older rule found has them
#: found again (``build_cache``).
INDEX_RULE = 2
#: A corner box holds a rank only if the ink in it differs between cards of one suit and different ranks
#: by at least this share of its pixels (the median over pairs; real indices measure 0.064-0.26 over the
#: installed decks, a corner pip or ornament 0.00-0.03)...
RANK_VARIES = 0.05
#: ... and ink covers at most this share of it (a box that is all "ink" lies on dark or shaded card art:
#: real indices 0.23-0.57, kde:oxygen's boxes 0.83-0.85).
MOST_INK = 0.6


def holds_a_rank(cards: dict[str, np.ndarray], box) -> bool:
    """Whether ``box`` (card-normalised) holds a printed rank on this deck's cards: its ink changes with the
    rank. Why: the corner finder takes whatever ink lies in a corner of the 2s and 3s, and some decks print
    there a lone suit pip (tango, tango_nuevo), an ornament (ornamental, nicu-ornamental) or nothing the
    paper colour tells from shading (tigullio-international's top right, oxygen's dark cards); labelled as
    indices, these taught the detector and classifier pips and ornaments, and made validation cards
    "visible" by a corner with no rank on it."""
    def ink(card: np.ndarray) -> np.ndarray:
        h, w = card.shape[:2]
        x0, y0, x1, y1 = int(box[0] * w), int(box[1] * h), int(np.ceil(box[2] * w)), int(np.ceil(box[3] * h))
        return cv2.resize(_ink_mask(card)[y0:y1, x0:x1].astype(np.float32), (24, 24), interpolation=cv2.INTER_AREA)

    shares, diffs = [], []
    for suit in SUITS:
        masks = [ink(cards[r + suit]) for r in RANKS if r + suit in cards]
        shares += [float(m.mean()) for m in masks]
        diffs += [float(np.abs(a - b).mean()) for i, a in enumerate(masks) for b in masks[i + 1:]]
    return bool(diffs) and float(np.mean(shares)) <= MOST_INK and float(np.median(diffs)) >= RANK_VARIES


def deck_index_boxes(cards: dict[str, np.ndarray]) -> list[tuple[float, float, float, float]]:
    """Corner-index boxes shared by a deck, in card-normalised (x0, y0, x1, y1): the ink in the corners of
    its 2s and 3s, kept where it holds a rank (``holds_a_rank``)."""
    refs = [c for code, c in cards.items() if code[:-1] in ("2", "3")]
    boxes_by_corner: dict[str, list] = {"tl": [], "br": [], "tr": []}
    for img in refs:
        m = _ink_mask(img)
        for corner, mm in (("tl", m), ("br", m[::-1, ::-1]), ("tr", m[:, ::-1])):
            b = _corner_box(mm)
            if b:
                boxes_by_corner[corner].append(b)
    out = []
    for corner, bs in boxes_by_corner.items():
        if len(bs) < 0.75 * max(1, len(refs)):
            continue
        a = np.array(bs)
        b = (np.percentile(a[:, 0], 10), np.percentile(a[:, 1], 10), np.percentile(a[:, 2], 90), np.percentile(a[:, 3], 90))
        bw, bh = b[2] - b[0], b[3] - b[1]
        if not (0.04 < bw < 0.26 and 0.08 < bh < 0.36):
            continue
        # widen towards the card's middle so a "10" fits
        b = (b[0] - 0.01, b[1] - 0.01, b[2] + 0.25 * bw + 0.01, b[3] + 0.01)
        if corner == "br":
            b = _rot_box(b, 2)
        elif corner == "tr":
            b = (1 - b[2], b[1], 1 - b[0], b[3])
        b = tuple(float(np.clip(v, 0, 1)) for v in b)
        if holds_a_rank(cards, b):
            out.append(b)
    return out


def missing_packages() -> tuple[list[str], list[str]]:
    """The Debian and the npm packages of the art (and the renderer) that are not on this machine."""
    apt = [pkg for pkg, path in APT_ART.items() if not path.is_dir()]
    if shutil.which(RENDERER[1]) is None:
        apt.append(RENDERER[0])
    npm = [pkg for pkg, rel in NPM_ART.items() if not (NPM_DIR / "node_modules" / rel).exists()]
    return apt, npm


def _last_line(text: str) -> str:
    lines = [line for line in (text or "").strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "no message"


def missing_debian(packages, run=subprocess.run) -> list[str]:
    """The Debian ``packages`` that are not installed (all of them where dpkg is missing). A package dpkg
    knows but has not installed is listed as ``unknown ok not-installed`` or ``deinstall ok config-files``,
    so only ``install ok installed`` counts."""
    if shutil.which("dpkg-query") is None:
        return list(packages)
    done = run(["dpkg-query", "-W", "-f=${Package} ${Status}\n", *packages], capture_output=True, text=True)
    installed = {line.split()[0] for line in (done.stdout or "").splitlines() if line.endswith("install ok installed")}
    return [p for p in packages if p not in installed]


def apt_install(packages: list[str], run=subprocess.run, is_root: bool | None = None) -> list[str]:
    """Install Debian ``packages`` with apt-get (as root, refreshing the package lists once if the first
    try fails); returns what could not be installed, with why (empty when all went in)."""
    if not packages:
        return []
    root = (os.geteuid() == 0) if is_root is None else is_root
    if not root or shutil.which("apt-get") is None:
        return [f"Debian packages {' '.join(packages)}: installing them needs apt-get as root "
                f"(run: sudo apt-get install {' '.join(packages)})"]
    print(f"[art] installing {' '.join(packages)} with apt-get ...", file=sys.stderr, flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    cmd = ["apt-get", "install", "-y", "-q", *packages]
    done = run(cmd, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        run(["apt-get", "update", "-q"], capture_output=True, text=True, env=env)
        done = run(cmd, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        return [f"Debian packages {' '.join(packages)}: apt-get install failed: {_last_line(done.stderr)}"]
    return []


def install_missing(run=subprocess.run, is_root: bool | None = None) -> list[str]:
    """Install the art packages that are missing: Debian's with apt-get (as root, refreshing the package
    lists once if the first try fails), npm's into :data:`NPM_DIR`. Returns what is still missing, each
    with why, for the caller to say; an empty list when everything is there."""
    apt, npm = missing_packages()
    problems = apt_install(apt, run, is_root)
    if npm:
        if shutil.which("npm") is None:
            problems.append(f"npm packages {' '.join(npm)}: npm not found (apt-get install npm)")
        else:
            print(f"[art] installing {' '.join(npm)} with npm into {NPM_DIR} ...", file=sys.stderr, flush=True)
            NPM_DIR.mkdir(parents=True, exist_ok=True)
            if not (NPM_DIR / "package.json").exists():
                (NPM_DIR / "package.json").write_text('{"name": "cards-art", "private": true}\n')
            done = run(["npm", "install", "--prefix", str(NPM_DIR), "--no-audit", "--no-fund", *npm],
                       capture_output=True, text=True)
            if done.returncode != 0:
                problems.append(f"npm packages {' '.join(npm)}: npm install failed: {_last_line(done.stderr)}")
    return problems


def cached_index(cache: Path) -> dict:
    """The rendered cache's index as it stands, without looking for the decks it was rendered from: how a
    machine that has the cache but not the packages reads it (a lent GPU machine, after
    ``vision.artpack unpack``)."""
    index_path = cache / "index.json"
    if not index_path.is_file():
        raise SystemExit(f"no rendered card art in {cache} (index.json missing): render it where the decks "
                         "install (any vision.synth command), or unpack a pack there (python -m vision.artpack)")
    try:
        index = json.loads(index_path.read_text())
    except json.JSONDecodeError as e:
        raise SystemExit(f"{index_path} is not valid JSON ({e}): unpack or render the art again") from None
    refind_stale_boxes(cache, index)  # a pack made before today's rule: its boxes found again, in memory
    return index


def refind_stale_boxes(cache: Path, index: dict) -> bool:
    """Find again, by today's rule and from their rendered cards, the index boxes of the cached decks whose
    boxes an older rule found (in place); whether any were."""
    stale = [entry for entry in index.values() if entry.get("index_rule") != INDEX_RULE]
    for entry in stale:
        folder = cache / entry["folder"]
        imgs = {code: img for code in entry["cards"]
                if (img := picture_file.read(folder / f"{code}.png", cv2.IMREAD_UNCHANGED)) is not None}
        entry["index_boxes"], entry["index_rule"] = deck_index_boxes(imgs), INDEX_RULE
    return bool(stale)


def build_cache(cache: Path, progress=None, install: bool = True) -> dict:
    """Render every card of every English deck into ``cache`` (once) and write ``cache/index.json``;
    with ``install``, first install the art that is missing (:func:`install_missing`)."""
    if install and any(missing_packages()):
        for problem in install_missing():
            print(f"[art] could not install: {problem}", file=sys.stderr)
    if shutil.which("rsvg-convert") is None:
        raise SystemExit("rsvg-convert not found: apt-get install librsvg2-bin")
    decks, missing = find_decks()
    for m in missing:
        print(f"[art] missing: {m}", file=sys.stderr)
    if not decks:
        raise SystemExit("no card art found; install: apt-get install gnome-cards-data kdegames-card-data-kf5 "
                         f"librsvg2-bin; npm install (in {NPM_DIR}) @heruka_urgyen/react-playing-cards svg-cards "
                         "cardsJS @younestouati/playing-cards-standard-deck")
    index_path = cache / "index.json"
    index = json.loads(index_path.read_text()) if index_path.exists() else {}
    cache.mkdir(parents=True, exist_ok=True)
    if refind_stale_boxes(cache, index):
        index_path.write_text(json.dumps(index, indent=1))
    todo = [d for d in decks if d.name not in index]
    for i, deck in enumerate(todo):
        folder = cache / deck.name.replace(":", "__")
        folder.mkdir(parents=True, exist_ok=True)
        imgs = {}
        for code, (svg, element) in sorted(deck.cards.items()):
            out = folder / f"{code}.png"
            if not out.exists() and not _render(svg, element, out, CARD_HEIGHT):
                continue
            img = picture_file.read(out, cv2.IMREAD_UNCHANGED)
            if img is None or img.ndim != 3 or img.shape[2] != 4:
                continue
            img = _crop_alpha(img)
            picture_file.write(out, img)
            imgs[code] = img
        for tmp in folder.glob(".*.svg"):
            tmp.unlink()
        boxes = deck_index_boxes(imgs)
        index[deck.name] = {"folder": folder.name, "cards": sorted(imgs), "index_boxes": boxes, "index_rule": INDEX_RULE}
        if progress:
            progress(i + 1, len(todo), deck.name, len(imgs), len(boxes))
        index_path.write_text(json.dumps(index, indent=1))
    return {k: v for k, v in index.items() if k in {d.name for d in decks}}
