"""The rendered card art (``vision.art``'s cache) packed small enough to travel to a lent GPU machine.

A GPU machine reaches no package registry, so it cannot install the decks and render them, and what
travels with a command is capped (64 MiB with the repository itself). The cache is 45 MB of PNG; the
same pixels as lossless WebP in one uncompressed tar are about a third of that. ``unpack`` writes the
cache back as ``vision.art`` and ``vision.synth`` read it (PNG files and ``index.json``), pixel for pixel:
WebP does not keep the colour under fully transparent pixels, so both ends store it black, as ``rsvg``
renders it (the cache's cards are black there already).

    python -m vision.artpack pack   --art /work/cards-data/art --out .gpu/art.tar
    python -m vision.artpack unpack --pack .gpu/art.tar --art /tmp/cards-data/art
"""

from __future__ import annotations

import argparse
import io
import sys
import tarfile
from pathlib import Path

import cv2
import numpy as np

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
            img = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
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
            cv2.imwrite(str(art / name.with_suffix(".png")), _black_under_clear(img))
            n += 1
    if not (art / INDEX).is_file():
        raise PackError(f"{pack_file} holds no {INDEX}")
    return n


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.artpack", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack", help="pack an art cache")
    p.add_argument("--art", type=Path, default=Path("/work/cards-data/art"))
    p.add_argument("--out", type=Path, required=True)
    u = sub.add_parser("unpack", help="write a pack back as an art cache")
    u.add_argument("--pack", type=Path, required=True)
    u.add_argument("--art", type=Path, required=True)
    a = ap.parse_args(argv)
    try:
        if a.cmd == "pack":
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
