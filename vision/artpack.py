"""The rendered card art (``vision.art``'s cache) packed small enough to travel to a lent GPU machine.

A GPU machine reaches no package registry, so it cannot install the decks and render them, and what
travels with a command is capped (64 MiB with the repository itself). The cache is 45 MB of PNG; the
same pixels as lossless WebP in one uncompressed tar are about a third of that. ``unpack`` writes the
cache back as ``vision.art`` and ``vision.synth`` read it (PNG files and ``index.json``), pixel for pixel:
WebP does not keep the colour under fully transparent pixels, so both ends store it black, as ``rsvg``
renders it (the cache's cards are black there already).

    python -m vision.artpack pack   --art /work/cards-data/art --out .gpu/art.tar
    python -m vision.artpack unpack --pack .gpu/art.tar --art /tmp/cards-data/art
    python -m vision.artpack extras --out .gpu/extras.tar     # there: tar -xf .gpu/extras.tar -C /

``extras`` packs what the scene families with font decks and photographs need and a GPU machine lacks:
some of the training split's fonts (``vision.fontdeck``: the 287 files are 89 MB, so round after round the smallest file
of each family not yet taken, up to ``--font-mb``) and the training split's pictures
(``vision.photos``: 105 MB, so re-encoded as JPEG at the size ``vision.photos`` decodes them to anyway),
each under its own path, so that unpacked at ``/`` they are found where they were here.
"""

from __future__ import annotations

import argparse
import io
import sys
import tarfile
from pathlib import Path

import cv2
import numpy as np

from vision import picture_file

INDEX = "index.json"
#: OpenCV's WebP quality above 100 means lossless.
LOSSLESS = [cv2.IMWRITE_WEBP_QUALITY, 101]


def _black_under_clear(img: np.ndarray) -> np.ndarray:
    """The colour under fully transparent pixels set to black (what WebP would otherwise change)."""
    if img.ndim == 3 and img.shape[2] == 4:
        img[img[..., 3] == 0, :3] = 0
    return img


class PackError(RuntimeError):
    """The art cache or the pack is not what it should be; the message says what."""


def _add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def pack(art: Path, out: Path) -> int:
    """Pack every deck folder's PNG files (as lossless WebP) and the cache's index into ``out``; returns
    the number of images."""
    index = art / INDEX
    if not index.is_file():
        raise PackError(f"no art cache in {art}: {INDEX} is missing (render it first: python -m vision.synth ...)")
    out.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with tarfile.open(out, "w") as tar:
        _add(tar, INDEX, index.read_bytes())
        for png in sorted(art.glob("*/*.png")):
            img = picture_file.read(png, cv2.IMREAD_UNCHANGED)
            if img is None:
                raise PackError(f"{png} is not a readable image")
            ok, buf = cv2.imencode(".webp", _black_under_clear(img), LOSSLESS)
            if not ok:
                raise PackError(f"could not encode {png} as WebP")
            _add(tar, f"{png.parent.name}/{png.stem}.webp", buf.tobytes())
            n += 1
    return n


def unpack(pack_file: Path, art: Path) -> int:
    """Write the pack back as an art cache in ``art`` (PNG files and the index); returns the number of
    images. Names that would leave ``art`` are refused."""
    if not pack_file.is_file():
        raise PackError(f"no art pack at {pack_file}")
    n = 0
    with tarfile.open(pack_file) as tar:
        for member in tar.getmembers():
            name = Path(member.name)
            if name.is_absolute() or ".." in name.parts or not member.isfile():
                raise PackError(f"{pack_file}: unexpected entry {member.name!r}")
            data = tar.extractfile(member).read()
            if member.name == INDEX:
                art.mkdir(parents=True, exist_ok=True)
                (art / INDEX).write_bytes(data)
                continue
            if name.suffix != ".webp" or len(name.parts) != 2:
                raise PackError(f"{pack_file}: unexpected entry {member.name!r}")
            img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)
            if img is None:
                raise PackError(f"{pack_file}: {member.name} is not a readable image")
            (art / name.parent).mkdir(parents=True, exist_ok=True)
            picture_file.write(art / name.with_suffix(".png"), _black_under_clear(img))
            n += 1
    if not (art / INDEX).is_file():
        raise PackError(f"{pack_file} holds no {INDEX}")
    return n


def _font_choice(fonts, budget: int) -> list[Path]:
    """Fonts of as many families as fit in ``budget`` bytes: round after round, each family's smallest file
    not yet taken, the smaller first, leaving out any that would no longer fit."""
    size = {f: f.stat().st_size for f in fonts}
    families: dict[str, list[Path]] = {}
    for f in sorted(fonts, key=lambda f: (size[f], f.name)):
        families.setdefault(f.name.split("-")[0].split("_")[0].removesuffix(".ttf"), []).append(f)
    chosen, used = [], 0
    while any(families.values()):
        for f in sorted((files.pop(0) for files in families.values() if files), key=size.__getitem__):
            if used + size[f] <= budget:
                chosen.append(f)
                used += size[f]
    return chosen


def extras(out: Path, font_mb: float) -> tuple[int, int]:
    """Pack training-split fonts and pictures under their absolute paths (without the leading ``/``);
    returns how many of each."""
    from vision import fontdeck, photos

    fonts = _font_choice(fontdeck.index_fonts("train"), int(font_mb * 1e6))
    pictures = photos.picture_files("train")
    if not fonts or not pictures:
        raise PackError("no fonts or no pictures for the training split here (python -m vision.synth "
                        "--font-decks 1 --photos 1 ... installs them)")
    out.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(out, "w") as tar:
        for f in fonts:
            _add(tar, str(f).lstrip("/"), f.read_bytes())
        for p in pictures:
            img = photos.decoded(p)
            if img is None:
                raise PackError(f"{p} is not a readable image")
            ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 92])
            if not ok:
                raise PackError(f"could not encode {p} as JPEG")
            _add(tar, str(p.with_suffix(".jpg")).lstrip("/"), buf.tobytes())
    return len(fonts), len(pictures)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.artpack", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack", help="pack an art cache")
    p.add_argument("--art", type=Path, default=Path("/work/cards-data/art"))
    p.add_argument("--out", type=Path, required=True)
    u = sub.add_parser("unpack", help="write a pack back as an art cache")
    u.add_argument("--pack", type=Path, required=True)
    u.add_argument("--art", type=Path, required=True)
    x = sub.add_parser("extras", help="pack training-split fonts and pictures for a machine without them")
    x.add_argument("--out", type=Path, required=True)
    x.add_argument("--font-mb", type=float, default=14.0, help="megabytes of fonts at most")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "extras":
            nf, npics = extras(a.out, a.font_mb)
            print(f"packed {nf} fonts and {npics} pictures into {a.out} ({a.out.stat().st_size / 1e6:.1f} MB)")
        elif a.cmd == "pack":
            n = pack(a.art, a.out)
            print(f"packed {n} card images from {a.art} into {a.out} ({a.out.stat().st_size / 1e6:.1f} MB)")
        else:
            n = unpack(a.pack, a.art)
            print(f"unpacked {n} card images into {a.art}")
    except PackError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
