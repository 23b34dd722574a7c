"""``python -m vision read [--json] [--show OUT.png] IMAGE...``

For each image, in the order given: with ``--json`` one JSON object per line,
``{"image", "cards": [{"rank", "suit", "confidence", "box"}], "count", "abstain"}``, with ``"reasons"`` (why, in
words, as the summary gives them) where it abstains; a file that cannot be
read gets ``{"image": path, "error": "why"}`` and the others are still read; the exit status is 1 at the
end if any failed. Without ``--json`` a readable summary per image. ``--show OUT.png`` draws the boxes and
ranks onto the picture (with several images: OUT-1.png, OUT-2.png, ... in order, each said as it is written);
a folder that does not exist or cannot be written to, a suffix OpenCV cannot write, or a drawing that would
replace one of the images read is refused (exit 2) before any image is read.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from assistant import command_line


def _show_path(base: Path, i: int, n: int) -> Path:
    """Where the drawing of image ``i`` of ``n`` goes: OUT.png itself for one image, OUT-1.png... for several
    (numbered by position, so a failed image leaves a gap); a name without a suffix gets .png."""
    suffix = base.suffix or ".png"
    if n == 1:
        return base.with_suffix(suffix)
    return base.with_name(f"{base.stem}-{i + 1}{suffix}")


def _show_problem(base: Path, images: list[str]) -> str | None:
    """Why drawings cannot be written to ``base``, found before any image is read (None when they can): a
    batch should not be read to the end to learn that its drawings are lost, nor a photo drawn over."""
    import cv2

    if base == Path():  # "" and "." alike
        return "--show needs the name of a .png or .jpg file to draw into"
    if base.is_dir():
        return f"--show {base}: a folder; name a .png or .jpg file to draw into"
    if base.exists() and not base.is_file():  # /dev/null, a pipe: checked as given, before .png is added
        return f"--show {base}: not a file (a device or a pipe); name a .png or .jpg file"
    if not base.parent.is_dir():
        return f"--show {base}: the folder {base.parent} does not exist"
    if not os.access(base.parent, os.W_OK):
        return f"--show {base}: the folder {base.parent} cannot be written to"
    if not cv2.haveImageWriter(str(_show_path(base, 0, 1))):
        return f"--show {base}: OpenCV cannot write {base.suffix} pictures; name a .png or .jpg file"
    for i in range(len(images)):
        out = _show_path(base, i, len(images))
        if out.exists() and not out.is_file():  # /dev/full, a pipe: no picture file
            return f"--show {out}: not a file (a device or a pipe); name a .png or .jpg file"
        if out.exists() and not os.access(out, os.W_OK):
            return f"--show {out}: the file cannot be written to"
        # the same file under another name too: a link, or a hard link, which resolving the path does not see
        drawn_over = next((image for image in images if _same_file(out, Path(image))), None)
        if drawn_over is not None:
            return f"--show {base}: would draw over the image {drawn_over}; name another file"
    return None


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and os.path.samefile(a, b))
    except OSError:
        return False


def cmd_read(a) -> int:
    import cv2

    from vision.reader import CardReader, ImageError, draw, load_image

    if a.show is not None and (problem := _show_problem(Path(a.show), a.images)):
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        reader = CardReader()
    except Exception as e:  # the model files are part of the repository
        print(f"error: cannot load the card reader: {e}", file=sys.stderr)
        return 2
    failed = 0
    for i, path in enumerate(a.images):
        try:
            img = load_image(path)
            det = reader.read(img)
        except (ImageError, OSError, cv2.error) as e:
            failed += 1
            why = str(e) if not isinstance(e, cv2.error) else f"OpenCV could not process it ({e.err})"
            if a.json:
                print(json.dumps({"image": path, "error": why}), flush=True)
            else:
                print(f"{path}: ERROR {why}", flush=True)
            continue
        if a.json:
            print(json.dumps(det.to_json(path, reasons=bool(det.abstain))), flush=True)
        else:
            print(f"{path}: {det.summary()}", flush=True)
        if a.show:
            out = _show_path(Path(a.show), i, len(a.images))
            if not cv2.imwrite(str(out), draw(img, det)):
                print(f"error: cannot write the drawing of {path} to {out}", file=sys.stderr)
                failed += 1
            elif len(a.images) > 1 or not a.json:  # several: each drawing has a name of its own, said here
                print(f"  drawn to {out}", file=sys.stderr if a.json else sys.stdout, flush=True)
    return 1 if failed else 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision", description="Cheat Referee card reader")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("read", help="read the face-up cards in images")
    r.add_argument("--json", action="store_true", help="one JSON object per image per line")
    r.add_argument("--show", metavar="OUT.png", help="draw the boxes and ranks onto the picture, into OUT.png "
                   "(with several images: OUT-1.png, OUT-2.png, ... in the order given)")
    r.add_argument("images", nargs="+", metavar="IMAGE")
    a = p.parse_args(argv)
    return cmd_read(a)


def run() -> int:
    return command_line.run(main, prefix="error: ")


if __name__ == "__main__":
    sys.exit(run())
