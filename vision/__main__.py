"""``python -m vision read [--json] [--show OUT.png] IMAGE...``

For each image, in the order given: with ``--json`` one JSON object per line,
``{"image", "cards": [{"rank", "suit", "confidence", "box"}], "count", "abstain"}``, with ``"reasons"`` (why, in
words, as the summary gives them) where it abstains; a file that cannot be
read gets ``{"image": path, "error": "why"}`` and the others are still read; ``"notes"`` says what else to know of a
file read (an animated GIF: only its first picture is read), in the summary after it in brackets; the exit status is 1
at the end if any failed. Without ``--json`` a readable summary per image. ``--show OUT.png`` draws the boxes and
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
    suffix = _show_path(base, 0, 1).suffix
    # the suffix alone: OpenCV crashed (a segmentation fault) on a name that is not UTF-8 text
    if not suffix.isascii() or not cv2.haveImageWriter(f"drawing{suffix}"):
        return f"--show {base}: OpenCV cannot write {suffix} pictures; name a .png or .jpg file"
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


def _as_text(path: str | Path) -> str:
    """A file's name as JSON can carry it: a byte that is not UTF-8 written as an escape (``\\xff``). As it was, the
    line held half a character, which a strict JSON reader refuses."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def _said(path: str | Path) -> str:
    """A file's name for the terminal: :func:`_as_text`, and what a terminal would act on (a control code, a
    right-to-left mark) written as an escape. A strict UTF-8 output refused half a character with a traceback."""
    return command_line.shown(_as_text(path))


def _write_drawing(out: Path, drawing) -> str | None:
    """The drawing written to ``out``, encoded as its suffix says (None), or why it is not; a file left part-written
    (a full disk) is taken away. Python writes the file, not OpenCV, which crashed on a name that is not UTF-8 text
    (``vision.picture_file``)."""
    from vision import picture_file

    try:
        if not picture_file.write(out, drawing):
            return f"OpenCV cannot encode {out.suffix} pictures"
    except OSError as error:
        try:
            out.unlink(missing_ok=True)
        except OSError:
            pass
        return (error.strerror or str(error)).lower()
    return None


def cmd_read(a) -> int:
    import cv2

    from vision.reader import CardReader, ImageError, draw, load_image

    # a damaged file is said in its own line: OpenCV's log of it ("[ERROR:0@1.971] ... imdecode_") came between them
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    if a.show is not None and (problem := _show_problem(Path(a.show), a.images)):
        print(f"error: {_said(problem)}", file=sys.stderr)
        return 2
    try:
        reader = CardReader()
    except Exception as e:  # the model files are part of the repository
        print(f"error: cannot load the card reader: {e}", file=sys.stderr)
        return 2
    failed = 0
    for i, path in enumerate(a.images):
        notes: list[str] = []
        try:
            img = load_image(path, notes)
            det = reader.read(img)
        except (ImageError, OSError, cv2.error) as e:
            failed += 1
            why = str(e) if not isinstance(e, cv2.error) else f"OpenCV could not process it ({e.err})"
            if a.json:
                print(json.dumps({"image": _as_text(path), "error": why}), flush=True)
            else:
                print(f"{_said(path)}: ERROR {why}", flush=True)
            continue
        if a.json:
            print(json.dumps(det.to_json(_as_text(path), reasons=bool(det.abstain)) | ({"notes": notes} if notes else {})),
                  flush=True)
        else:
            print(f"{_said(path)}: {det.summary()}" + "".join(f"  ({note})" for note in notes), flush=True)
        if a.show:
            out = _show_path(Path(a.show), i, len(a.images))
            problem = _write_drawing(out, draw(img, det))
            if problem:
                print(f"error: cannot write the drawing of {_said(path)} to {_said(out)}: {problem}", file=sys.stderr)
                failed += 1
            elif len(a.images) > 1 or not a.json:  # several: each drawing has a name of its own, said here
                print(f"  drawn to {_said(out)}", file=sys.stderr if a.json else sys.stdout, flush=True)
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
