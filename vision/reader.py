"""The card reader: one photo or frame in, the face-up cards out.

Four small ONNX models trained by the project (see ``models/README.md``) run in onnxruntime on the CPU:

1. ``index-det.onnx`` finds every printed corner index (rank + suit pip) in the frame;
2. ``index-cls.onnx`` (four classifiers in one file, their probabilities averaged, weighted: ``vision.ensemble``)
   reads a square crop around each index as one of 54 classes (52 rank+suit codes,
   ``JOKER``, and ``NONE`` for a box that is no index, which vetoes it); an unsure crop is read again
   at its other quarter turns;
3. the indices are merged into cards: the two indices of one card carry the same rank and suit and lie
   about a card's diagonal apart; an index with no partner is a card whose other corner is hidden
   (fans, overlaps, fingers). ``index-pair.onnx`` (``vision.pairs``) reads the picture between two indices
   paired this way;
4. ``index-gate.onnx`` (``vision.gate``) says from what the three steps computed how likely the reading is right,
   and the reader answers only when it is more likely right than not.

One type, :class:`Detections`, flows through every step (index level, then card level). The reader
abstains when no card is found or when the gate finds the reading more likely wrong than right; its reasons
then name its doubts: a card not read confidently, a merge of indices into cards that is ambiguous (the count
could be read two ways) or doubted by the picture. Without a gate (``gate_model=None``) those doubts alone
make it abstain, as before the twenty-first session.
:class:`Stabiliser` votes over the last frames of a video and says when the reading is stable.

No torch and no ultralytics here: numpy, OpenCV and onnxruntime only.
"""

from __future__ import annotations

import argparse
import ast
import io
import math
import os
import re
import sys
import tempfile
import threading
import warnings
import zlib
from collections import Counter, deque
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import BinaryIO, Iterator

import cv2
import numpy as np

from assistant.cards import SUITS, Rank
from vision import box_decoding, gate, int8, pairs
from vision.canvas import on_canvas, placement

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
DET_MODEL = MODELS_DIR / "index-det.onnx"
CLS_MODEL = MODELS_DIR / "index-cls.onnx"
PAIR_MODEL = MODELS_DIR / "index-pair.onnx"
GATE_MODEL = MODELS_DIR / "index-gate.onnx"

#: Below this probability for its rank (its indices' readings combined) a card is "not read
#: confidently": a doubt, and without a gate a reason to abstain. Chosen on the synthetic held-out scenes (general, reveals,
#: spreads; bench_reader_synth.py --rank-confidences): raised while most of the readings it turns into
#: abstentions would have been wrong. With one classifier that stopped at 0.6: of the readings 0.5 -> 0.6
#: turned into abstentions 10 of 11, 15 of 21 and 12 of 16 were wrong, of those 0.6 -> 0.7 added only 4 of
#: 8, 7 of 17 and 6 of 8. With the mean of three (eleventh session), of those 0.6 -> 0.65 turns into
#: abstentions 5 of 6, 5 of 7 and 9 of 11 are wrong; of those 0.65 -> 0.7 adds, 3 of 7 on the general scenes.
RANK_CONFIDENCE = 0.65
#: Corner-index detections below this score are dropped (best index F1 on the synthetic held-out-deck
#: scenes, bench/bench_reader_synth.py; never chosen on realdev).
DET_THRESHOLD = 0.10
#: Suit reported only above this probability.
SUIT_CONFIDENCE = 0.6
#: Two indices pair only when the probability that they show the same suit is at least this (their suit
#: probabilities, each index's card classes summed over ranks; an index read as a joker vetoes nothing).
#: None: the hard rule, two indices whose reported suits (``SUIT_CONFIDENCE``) differ never pair. Why a soft
#: rule: a webcam blurs a club into a spade, and the hard rule splits that card's two corners into two cards.
#: Shipped in the thirtieth session, with a gate fitted to it, after a third look at a stricter bar: 152 less
#: cost on 43,000 fresh synthetic scenes (98% paired interval -248 to -54). The reveals alone cost 40 more (+7 to
#: +73): of the 71 reveals it newly reads wrong, 42 are two cards of one rank read as one, which the app does not
#: act on alone (the count differs from the play); of the readings it would act on (answered, as many cards as
#: played), 134 of 8,000 reveals are wrong against 123 with the hard rule. ``SOFT_SUIT_MOST`` keeps the hard rule
#: where the reveals need it.
#: Earlier looks: 0.3 and 0.1 within chance on 4,300 scenes (twenty-eighth session), 0.1 -45 (-90 to +1) on 17,200
#: (twenty-ninth; models/HISTORY.md).
PAIR_MIN_SUIT: float | None = 0.1
#: The soft suit rule (``PAIR_MIN_SUIT``) only for two indices whose rank shows on at most this many of the
#: picture's indices; where more read it (two or more cards of one rank, as in a reveal) the hard rule keeps
#: corners of two reported suits apart, because there the suits are what tell whose corner is whose. None: the soft
#: rule everywhere. Shipped in the thirtieth session with a gate fitted to it, by a rule that asked the reveals to
#: gain beyond chance and the whole not to lose: on 17,200 fresh scenes the reveals -29 (90% interval -48 to -10),
#: all six families -44 (-77 to -10) (models/HISTORY.md).
SOFT_SUIT_MOST: int | None = 2
#: Two indices within a card's reach of each other (``pairs.within_reach``, ``pairs.PAIR_RANGE``) pair when
#: the probability that they show the same rank is at least this (None: only when their best ranks agree).
#: Chosen on the synthetic held-out-deck scenes.
PAIR_MIN_SAME: float | None = 0.05
#: A card made of one index whose confidence (detector score x rank probability) is under this, beside other
#: cards, is dropped before the gate reads the reading: print, toys and patterns on a real table give such
#: lone weak boxes, and one of them made the reader doubt a reading that was otherwise right. Chosen on
#: synthetic held-out scenes with print on the table, 0.1 against 0.2 (models/HISTORY.md, twenty-sixth session).
LONE_FLOOR = 0.1
#: The pair model (``vision.pairs``: is the picture between two indices one card?) doubts a pair that rank
#: and distance make when it says "one card" with less than this probability: a doubt, and without a gate a
#: reason to abstain (the gate reads the probability itself). Chosen on the synthetic held-out scenes (models/HISTORY.md,
#: eighteenth session): of the readings this doubt turns into abstentions, 96 of 116 on ten sets were wrong.
PAIR_DOUBT = 0.02
#: A pair the pair model calls one card with at least this probability made first, taking its two indices
#: out of the search for other pairings (None: never). Measured and not used: it answers scenes the reader
#: abstains on, and more of them wrongly on fresh reveals (models/HISTORY.md, eighteenth session).
PAIR_SURE: float | None = None


def bar_or_none(text: str) -> float | None:
    """A probability bar as the command lines take it (``--pair-min-suit``, ``--pair-sure``): a number from 0 to 1,
    or "none" for the rule without a bar (``PAIR_MIN_SUIT``, ``PAIR_SURE``). argparse shows its error as it is."""
    if text.strip().lower() == "none":
        return None
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a probability from 0 to 1 or \"none\", got {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"a probability bar lies between 0 and 1, not {value}")
    return value


#: Two detected boxes are the same index when this share of the smaller lies inside the other; the
#: lower-scoring one is dropped (1.0: never). It was 0.4, set in the first sessions with the first detector
#: and one classifier; with today's detector, classifier mean and gate, 0.55 read fresh synthetic draws cheaper
#: in every family and realdev no worse, and 0.3 read them worse (thirty-fourth session, models/HISTORY.md).
#: Why is not measured: where cards overlap, a box partly inside another may be the next card's index.
INSIDE = 0.55
#: A weak box (detector score under ``ECHO_WEAK``) whose centre lies within ``ECHO_REACH`` index sizes of a
#: sure box (``ECHO_SURE`` or more) read as the same rank is that index found a second time, and is dropped
#: (``_echoes``). Chosen on the synthetic held-out scenes (reaches 0.8 / 1.0 / 1.2, weak bars 0.15 / 0.2 /
#: 0.25, sure bars 0.3 / 0.4 / 0.5; models/HISTORY.md, thirteenth session): the middle of the settings that
#: read no scene worse.
ECHO_REACH = 1.0
ECHO_WEAK = 0.2
ECHO_SURE = 0.4
#: A crop the classifier reads at under this probability is read again at its other quarter turns.
#: First chosen at 0.9 with one classifier (synthetic held-out scenes: card F1 0.630 -> 0.649, the same as
#: turning every crop). With the mean of three, 0.7 reads the general, reveal and spread scenes as 0.9
#: does at equal abstain rates (0.6 and lower read worse, no second look worse still) and turns half as
#: many crops: a frame's classifier 31 -> 23 ms (models/HISTORY.md, eleventh session).
SECOND_LOOK = 0.7
#: Each index box is cut at these paddings (``square_crop``'s ``pad``, share of the box's side added on each side), the
#: first alone where it is read surely (``MORE_CUTS_BELOW``), and the classifier's readings of the cuts averaged. Why it
#: helps is not measured; a detector's box sits a little off its index, more so on blurred webcam pictures, so one cut
#: may hold the rank without its pip, which others show whole. The classifier was trained on cuts at 0.25 with jitter
#: (``vision.crops``). Shipped in the thirty-fifth session with a gate fitted to it: on two fresh synthetic draws (8,600
#: scenes) cost -72 (95% interval -118 to -26), cheaper in every family; realdev 0.940 / 0.837 / 0.207 / 4 -> 0.943 /
#: 0.845 / 0.199 / 4; a frame 17 -> 22 ms (models/HISTORY.md). In the sixth session, without a gate, a second look at
#: 0.12 and 0.38 only traded confident errors for abstentions.
CROP_PADS: tuple[float, ...] = (0.25, 0.15, 0.35)
#: Only an index whose first cut (``CROP_PADS[0]``, the padding the classifier was trained on) the classifier reads at
#: under this probability (its best class, ``NONE`` included) is cut again at the other paddings (None: every index).
#: Three cuts of every index took a frame from 25 to 33 ms here and from 43 to 56 ms on the uint8 path of CPUs without
#: VNNI, over the 50 ms target; another cut of a surely read index rarely changes what it says. Shipped in the
#: thirty-sixth session, with a gate fitted to it, as a speed change: 0.8, the lowest of 0.8, 0.9 and 0.97 within 10 of
#: the shipped reader's cost on a spent draw; on two fresh draws (8,600 scenes) cost +4 (90% interval -13 to +22),
#: reveals +0; realdev 0.943 / 0.845 / 0.199 / 4 -> 0.944 / 0.847 / 0.202 / 3; a frame 35 -> 30 ms, forced uint8 56 ->
#: 45 ms (models/HISTORY.md).
MORE_CUTS_BELOW: float | None = 0.8
#: The classifier's class for a box that is no corner index, and the probability at which it vetoes one.
NOT_AN_INDEX = "NONE"
NOT_AN_INDEX_VETO = 0.5
#: When the first look keeps no index, a photo is read once more shrunk by this factor on grey (None:
#: never). A card that fills the picture has indices larger than most the detector was trained on, and it
#: boxes their pips alone, which the classifier vetoes; shrunk, the same indices are found whole. Video
#: frames skip it (``read(..., video=True)``): between reveals most frames show no index, and doubling
#: their cost delays the frame that shows the flip, while a camera over the table rarely sees one card
#: fill its picture.
WIDER_LOOK: float | None = 1.6


class ImageError(ValueError):
    """The input is not an image the reader can use; the message says why."""


def square_crop(img: np.ndarray, box, pad: float = 0.25, size: int = 48, jitter=None) -> np.ndarray:
    """A ``size`` x ``size`` crop of the square around ``box`` (x0, y0, x1, y1), grown by ``pad`` of its side
    on each side; ``jitter`` = (dx, dy, dscale) as fractions of the side moves and rescales it.
    The classifier's training crops (``vision.crops``) are cut by this same function."""
    x0, y0, x1, y1 = (float(v) for v in box)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    side = max(x1 - x0, y1 - y0) * (1 + 2 * pad)
    if jitter is not None:
        cx += float(jitter[0]) * side
        cy += float(jitter[1]) * side
        side *= float(np.exp(jitter[2]))
    s = size / max(side, 1e-6)
    M = np.float32([[s, 0, size / 2 - s * cx], [0, s, size / 2 - s * cy]])
    return cv2.warpAffine(img, M, (size, size), flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def crops_tensor(crops) -> np.ndarray:
    """BGR crops (N, S, S, 3, uint8) as the classifier takes them: N x 3 x S x S RGB in 0..1. The quantisation's
    calibration (``vision.quantize``) and the tests feed it the same way."""
    return np.ascontiguousarray(np.asarray(crops)[:, :, :, ::-1].transpose(0, 3, 1, 2), np.float32) / 255.0


# ---------------------------------------------------------------- input

def letterbox(img: np.ndarray, size: int, fit: bool = False) -> tuple[np.ndarray, float, int, int]:
    """The detector's input: the BGR image scaled so that its longer side is ``size``, on grey (114) as in
    training: centred on the ``size`` square, or with ``fit`` on the smallest canvas that holds it
    (``vision.canvas.placement``); as a 1x3xHxW RGB float tensor in 0..1, with the scale and the left and
    top padding that map its boxes back. The quantisation's calibration (``vision.quantize``) feeds squares."""
    at = placement(*img.shape[:2], size, fit)
    board = np.full((at.rows, at.columns, 3), 114, np.uint8)
    board[at.top:at.top + at.height, at.left:at.left + at.width] = cv2.resize(
        img, (at.width, at.height), interpolation=cv2.INTER_AREA if at.scale < 1 else cv2.INTER_LINEAR)
    return board[:, :, ::-1].transpose(2, 0, 1)[None].astype(np.float32) / 255.0, at.scale, at.left, at.top


#: The longest a picture may be for its width (or its height): beyond it the detector's square would hold a
#: strip a few pixels across, and no camera frame or photograph of a table is shaped so.
MAX_ASPECT = 16


def load_image(image, notes: list[str] | None = None) -> np.ndarray:
    """A BGR uint8 image from a path, encoded bytes or an array; :class:`ImageError` says what is wrong otherwise.
    ``notes``: see :func:`decode_picture`."""
    if isinstance(image, (str, os.PathLike)):
        if not os.fspath(image):  # Path("") is ".", and was said to be a folder
            raise ImageError("no image named: the path given is empty")
        image = _read_file(Path(image), notes)
    if isinstance(image, (bytes, bytearray)):
        if not image:
            raise ImageError("empty image data (0 bytes)")
        image = decode_picture(bytes(image), notes)
    if not isinstance(image, np.ndarray):
        raise ImageError(f"expected an image path or a numpy BGR array, got {type(image).__name__}")
    if image.size == 0:
        raise ImageError(f"empty image array (shape {image.shape})")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.ndim == 3 and image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    elif not (image.ndim == 3 and image.shape[2] == 3):
        raise ImageError(f"expected an HxWx3 BGR image, got an array of shape {image.shape}")
    if image.dtype == np.uint16:  # 16-bit pictures span 0..65535, as OpenCV decodes them
        image = image / 257.0
    if image.dtype != np.uint8:
        if np.issubdtype(image.dtype, np.floating) and np.nanmax(image) <= 1.0:
            image = image * 255.0
        image = np.clip(np.nan_to_num(image), 0, 255).astype(np.uint8)
    height, width = image.shape[:2]
    if min(height, width) < 16:
        raise ImageError(f"image too small to read cards ({width}x{height} pixels)")
    if max(height, width) > MAX_ASPECT * min(height, width):
        raise ImageError(f"image too narrow to read cards ({width}x{height} pixels: one side is more than "
                         f"{MAX_ASPECT} times the other)")
    return np.ascontiguousarray(image)


def _read_file(p: Path, notes: list[str] | None = None) -> np.ndarray:
    """The picture in a file, or :class:`ImageError` saying why there is none (a pipe or a device is refused
    before it is read: reading one could wait for ever). The header is read before the rest: a film or a disk
    image given by mistake is refused without being read whole, and the picture is decoded with what its header said:
    Pillow reads the whole of every chunk before a PNG's pixels, and read them twice. The message does not repeat the
    path, which the caller gave and prints beside it."""
    try:
        if not p.exists():
            if p.is_symlink():
                raise ImageError("a link that leads to no file (its target is gone, or it leads back to itself)")
            raise ImageError("no such file" + (" (a picture is not read from standard input: name its file)"
                                               if str(p) == "-" else ""))
        if p.is_dir():
            raise ImageError("a folder, not an image")
        if not p.is_file():
            raise ImageError("not a regular file (a pipe, socket or device), not an image")
        with p.open("rb") as file:
            size = os.fstat(file.fileno()).st_size
            if not size:
                raise ImageError("empty file (0 bytes)")
            header = _header(file, size)
            if header.problem:
                raise ImageError(header.problem)
            file.seek(0)
            data = file.read(size)  # no more than the header's size bar let by
    except PermissionError:  # the file's, or a folder's on its way (pathlib's exists() raises it too)
        raise ImageError("not allowed to read it (the permissions of the file or of its folder)") from None
    return _picture(data, header, notes)


#: The most pixels a picture may have: a 200-megapixel phone camera's full photo (16320 x 12240) and no more.
#: A small file can say it holds far more, and OpenCV decodes up to 2^30 (a 388 KB PNG of 20000 x 20000 took
#: 2.4 GB and 4.7 s to decode, and more to read); a photo of 99 million pixels took 0.8 GB and 5.3 s to read.
MAX_PIXELS = 200_000_000
#: The most bytes a picture file may hold for each of its pixels, beyond 64 MB of anything else: far more than any
#: picture takes (16-bit RGBA uncompressed takes 8, a GIF of a few dozen frames about as many), so that a picture's
#: header in front of a gigabyte of something else is not read whole.
MAX_BYTES_A_PIXEL = 64
#: The brands of an ISO file that mark an HEIC picture (an iPhone's own format), which neither OpenCV nor Pillow opens.
_HEIC = (b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"hevm", b"hevs")


def decode_picture(data: bytes, notes: list[str] | None = None) -> np.ndarray:
    """Encoded bytes (a JPEG, a PNG, ...) as a BGR picture, turned upright as its EXIF says, its transparent pixels
    shown over a pale table (:func:`_over_a_pale_table`); :class:`ImageError` says why not. The header is read first,
    by Pillow: a picture of more than MAX_PIXELS is refused before it is decoded, and so is a file whose header Pillow
    cannot read (OpenCV would decode some of those, a PNG with a damaged text chunk among them, at any size).

    OpenCV decodes the first picture of an animated GIF (or of a TIFF of several pages...) alone: ``notes``, where
    given, gets a line saying so, for the caller to tell the user, who may have meant a later one."""
    return _picture(data, _header(io.BytesIO(data), len(data)), notes)


def _picture(data: bytes, header: _Header, notes: list[str] | None) -> np.ndarray:
    """``data`` decoded as :func:`decode_picture` says, its ``header`` read already: :func:`_read_file` reads a file's
    before the rest of it."""
    refused = header.problem or _png_damage(io.BytesIO(data), len(data))
    if refused:
        raise ImageError(refused)
    try:
        arr, said = _decoded_quietly(data)
    except cv2.error:  # OpenCV raises, rather than returning None, over its own limit of 2^30 pixels
        raise ImageError("too many pixels to decode (OpenCV's limit is 2^30)") from None
    refused = _damage_said(data, said, arr is not None)
    if refused:
        raise ImageError(refused)
    if arr is None:
        raise ImageError(_unreadable(data[:32], data[-16:], len(data), header_read=True))
    if header.several and notes is not None:
        notes.append(f"{header.several}: only its first picture is read")
    return _over_a_pale_table(data, arr) if header.transparent else arr


#: The grey a picture's transparent pixels are read as: a plain pale table, as the detector saw under half its training
#: scenes (``vision.synth.light_table``: grey 150 to 235), on which a white card's edge still shows.
SEEN_THROUGH = 200


def _over_a_pale_table(data: bytes, colour: np.ndarray) -> np.ndarray:
    """``colour`` (OpenCV's decoding of ``data`` in colour, which drops the alpha channel) with the pixels ``data``
    makes transparent shown over a plain pale table (``SEEN_THROUGH``). A card saved with a transparent surround (an
    exported scan, a cut-out) keeps under it whatever colour its program left, black or noise, and that was read as
    the picture. A picture opaque everywhere is ``colour`` itself.

    OpenCV turns the colour upright as the EXIF says, but not the alpha it decodes beside it: the alpha is turned and
    flipped as the colour was, by whichever of the eight ways makes the one the other (the unturned one, nearly
    always, at the first try); a picture whose colour matches in none is ``colour``."""
    whole, _ = _decoded_quietly(data, cv2.IMREAD_UNCHANGED)  # its libraries' lines were said at the first decoding
    if whole is None or whole.ndim != 3 or whole.shape[2] != 4:
        return colour
    if whole.dtype == np.uint16:  # as OpenCV makes 16-bit colour 8-bit: its high byte
        whole = (whole >> 8).astype(np.uint8)
    for flipped in (whole, whole[:, ::-1]):
        for quarter in range(4):
            turned = np.rot90(flipped, quarter)
            if turned.shape[:2] == colour.shape[:2] and np.array_equal(turned[:, :, :3], colour):
                alpha = turned[:, :, 3:].astype(np.uint16)
                if alpha.min() == 255:
                    return colour
                return ((colour * alpha + SEEN_THROUGH * (255 - alpha) + 127) // 255).astype(np.uint8)
    return colour


#: One picture decoded at a time while the terminal is kept from its libraries (``_decoded_quietly``): two threads
#: swapping the same descriptor at once could leave it pointing at a file that is gone.
_TERMINAL_KEPT = threading.Lock()


def _decoded_quietly(data: bytes, flags: int = cv2.IMREAD_COLOR) -> tuple[np.ndarray | None, str]:
    """OpenCV's decoding of ``data`` (with ``flags``), and what was written to the process's standard error meanwhile
    (kept from the terminal, and said again there where the image libraries did not write it: another thread's lines).
    libjpeg and libpng write their complaints there themselves ("Corrupt JPEG data: premature end of data segment",
    "libpng error: IDAT: incorrect data check") beside the reader's message, and no library here lets them be told not to: OpenCV
    gives libjpeg and libpng their default handlers, and Pillow, which silences libjpeg, does not say that it
    complained. A JPEG has no checksum: what libjpeg says is the only word that part of one is missing. Keeping it
    costs 0.03 ms a picture (a 640 x 480 JPEG decodes in 6 ms, a 12-megapixel one in 100 ms). Where no scratch file
    can be made (a temporary folder read-only or gone), the picture is decoded as before, the libraries' lines
    printed: a photo is still read, where a refusal would have named no fault of the photo's. A process started
    without standard error (``2>&-``: ``sys.stderr`` is None) has no Python stream to flush or to say lines on."""
    try:
        kept = tempfile.TemporaryFile()
    except OSError:
        return cv2.imdecode(np.frombuffer(data, np.uint8), flags), ""
    with _TERMINAL_KEPT, kept:
        if sys.stderr is not None:
            sys.stderr.flush()
        terminal = os.dup(2)
        os.dup2(kept.fileno(), 2)
        try:
            arr = cv2.imdecode(np.frombuffer(data, np.uint8), flags)
        finally:
            os.dup2(terminal, 2)
            os.close(terminal)
        kept.seek(0)
        said = kept.read().decode("utf-8", "replace")
    others = "".join(line for line in said.splitlines(keepends=True) if not line.startswith(_IMAGE_LIBRARIES))
    if others and sys.stderr is not None:
        sys.stderr.write(others)
    return arr, said


#: How the lines that libpng and libjpeg write to the terminal while a picture is decoded begin: libpng's all, libjpeg's
#: where the data is damaged (its rarer notes, an unknown JFIF version, are let through as before).
_IMAGE_LIBRARIES = ("libpng ", "Corrupt JPEG data")
#: What libjpeg says where part of a JPEG's picture data is missing or cannot be decoded; it fills the blocks it could
#: not read with grey, or reads the next ones out of step, and a picture half grey or smeared is no reveal. Not its
#: "N extraneous bytes before marker": libjpeg decoded every block, and devices leave such bytes in whole photos (some
#: webcams before each restart marker, scanners and drones before the end).
_JPEG_DATA_LOST = tuple(f"Corrupt JPEG data: {what}" for what in
                        ("premature end of data segment", "bad Huffman code", "found marker"))


def _damage_said(data: bytes, said: str, decoded: bool) -> str | None:
    """Why a picture is damaged inside, from what libjpeg or libpng said while OpenCV decoded it (``said``; ``decoded``:
    OpenCV returned a picture); None where they found nothing wrong with its pixels. A PNG whose chunks all pass their
    checksums (``_png_damage``) and that libpng still cannot decode holds pixel data that does not decompress whole: a
    program wrote it wrong, or changed it and its checksum together. A PNG that stops short is left to
    :func:`_cut_short`."""
    size = len(data)
    if data.startswith(_JPEG) and any(line.startswith(_JPEG_DATA_LOST) for line in said.splitlines()):
        return (f"a JPEG damaged inside ({size:,} bytes: part of its picture data is missing or garbled, and would be "
                "read grey or smeared), as a faulty copy or disk leaves one")
    if (data.startswith(_PNG) and not decoded and "libpng error" in said
            and _cut_short(data[:32], data[-16:], size, header_read=True) is None):
        return (f"a PNG damaged inside ({size:,} bytes: its pixel data does not decompress into the picture its header "
                "describes, though every chunk passes its checksum), as a faulty program leaves one")
    return None


#: The first bytes of every PNG. Its chunks follow: a 4-byte length, a 4-byte type, the data, and a CRC-32 of the type
#: and the data.
_PNG = b"\x89PNG\r\n\x1a\n"
#: The first bytes of every JPEG (its start-of-image mark; it ends with b"\xff\xd9").
_JPEG = b"\xff\xd8"


def _png_damage(source: BinaryIO, size: int) -> str | None:
    """Why a PNG (``source``, ``size`` bytes long) is damaged inside: the first chunk whose checksum fails, named; None
    where every whole chunk checks, or where it is no PNG. libpng refuses such a file too, but it printed its own line
    to the terminal ("libpng error: IDAT: CRC error") beside the reader's, which said only "not a readable image"
    (and so did Pillow's refusal of a damaged chunk before the pixels). A chunk cut off by the file's end is left to
    :func:`_cut_short`. Read a megabyte at a time: a damaged length can claim up to 4 GB.

    The walk ends where the pixels do: libpng passes over a damaged ancillary chunk after them (a text, an EXIF) or a
    damaged IEND with a warning and decodes the picture whole, as it did such a file before; and a small picture
    followed by 64 MB of empty chunks, which the size check lets by, took 5 s to walk. A chunk type that is not four
    letters is damaged itself, and not named: its bytes were said as they came (a NUL, a newline)."""
    source.seek(0)
    if source.read(len(_PNG)) != _PNG:
        return None
    at, pixels = len(_PNG), False
    while at + 12 <= size:
        source.seek(at)
        length = int.from_bytes(source.read(4), "big")
        if at + 12 + length > size:
            return None
        kind = source.read(4)
        if pixels and kind != b"IDAT" and kind.isalpha():
            return None  # the IDAT chunks, all next to each other, are over: IEND or an ancillary chunk follows
        pixels = pixels or kind == b"IDAT"
        crc = zlib.crc32(kind)
        while length:
            block = source.read(min(1 << 20, length))
            if not block:  # the file grew shorter while it was read
                return None
            crc, length = zlib.crc32(block, crc), length - len(block)
        if crc != int.from_bytes(source.read(4), "big"):
            what = f"its {kind.decode('ascii')} data" if kind.isalpha() else "a chunk whose type is damaged"
            return (f"a PNG damaged inside ({size:,} bytes: {what} fails its checksum), as a faulty copy or disk "
                    "leaves one")
        if kind == b"IEND":
            return None
        at = source.tell()
    return None


#: The longest chunk OpenCV reads before a PNG's pixels, its 12-byte frame (length, type, checksum) counted: libpng's
#: PNG_USER_CHUNK_MALLOC_MAX, to which OpenCV's own walk of those chunks (``read_chunk`` in its grfmt_png.cpp) holds
#: every chunk but the ``_PNG_CHUNKS_OF_ANY_LENGTH``, and refuses the picture past it ("user chunk data is too large").
#: Tried with this project's OpenCV 5.1.0 and libpng 1.6.59, a chunk put after the IHDR of a 32 x 32 PNG: one of
#: 7,999,988 bytes of data decodes and one of 7,999,989 does not, alike for a private zzTx, zTXt, iTXt, iCCP, eXIf,
#: sPLT, tIME, gAMA, pHYs, cHRM, sRGB, cICP, hIST, sBIT, oFFs, prVW and caNv; one of 9,000,000 with a wrong checksum
#: is refused as one with a right one (OpenCV reads no further than its length).
_PNG_CHUNK_MOST = 8_000_000
#: The chunks OpenCV reads before the pixels at any length: a tEXt, tRNS or PLTE of 12,000,000 bytes and an fdAT (an
#: animation's frame data) of 9,000,000 decode, libpng passing over the text with "out of memory" and the tRNS and PLTE
#: with "too long". After the first IDAT OpenCV leaves every chunk to libpng, which decodes the picture beside a zzTx of
#: 9,000,000 bytes.
_PNG_CHUNKS_OF_ANY_LENGTH = (b"tEXt", b"tRNS", b"PLTE", b"fdAT")


def _png_chunk_too_long(source: BinaryIO, size: int) -> str | None:
    """Why OpenCV will not decode a PNG (``source``, ``size`` bytes long): a chunk before its pixels longer than it
    reads there (``_PNG_CHUNK_MOST``); None where there is none, or it is no PNG. Walked by the chunks' lengths and types
    alone, their data passed over, before Pillow reads the header: Pillow reads such a chunk whole and checks it, and a
    700 MB private chunk in front of a 4000 x 3000 photo took it 2.1 to 2.8 s and 2 GB (the photo 8.3 s in all, read
    twice) to end as "not a readable image". A chunk cut off by the file's end, or whose type is not four letters, ends
    the walk: :func:`_cut_short` and :func:`_png_damage` tell of those."""
    source.seek(0)
    if source.read(len(_PNG)) != _PNG:
        return None
    at = len(_PNG)
    while at + 12 <= size:
        source.seek(at)
        frame = source.read(8)
        length, kind = int.from_bytes(frame[:4], "big"), frame[4:]
        if kind in (b"IDAT", b"IEND") or not kind.isalpha() or at + 12 + length > size:
            return None
        if 12 + length > _PNG_CHUNK_MOST and kind not in _PNG_CHUNKS_OF_ANY_LENGTH:
            return (f"a PNG with a {length:,}-byte {kind.decode('ascii')} chunk before its picture, which the reader "
                    f"cannot decode (OpenCV's limit there is {_PNG_CHUNK_MOST - 12:,} bytes): save it again as a "
                    "JPEG, or as a PNG without that chunk")
        at += 12 + length
    return None


def _unreadable(head: bytes, tail: bytes, size: int, header_read: bool = False) -> str:
    """Why a file that is no picture OpenCV or Pillow opens cannot be read, from its first and last bytes and its size;
    ``header_read``: Pillow read its header (a picture of a kind it knows, which OpenCV could not decode)."""
    kind = _cut_short(head, tail, size, header_read)
    if kind is not None:
        # OpenCV decodes no JPEG that stops short, its last two bytes included (nor such a PNG, WebP, GIF or BMP), and
        # half a picture is no reveal
        return f"a {kind} cut short or damaged ({size:,} bytes), as an incomplete copy or download leaves one"
    brands = head[8:12], head[16:32]
    if head[4:8] == b"ftyp" and (brands[0] in _HEIC or (brands[0] in (b"mif1", b"msf1") and b"heic" in brands[1])):
        return ("an HEIC photo (an iPhone's own format), which the reader cannot open: save it as JPEG (on the iPhone: "
                "Settings, Camera, Formats, Most Compatible)")
    return f"not a readable image (corrupt or unsupported format, {size:,} bytes)"


def _cut_short(head: bytes, tail: bytes, size: int, header_read: bool) -> str | None:
    """The kind of a picture whose end is missing, by the mark each of these kinds ends with or the length its header
    gives (None where it is not one of them, or ends as it should): only a JPEG was said to be cut short, and a PNG,
    GIF, WebP or BMP copied in part was "not a readable image". A GIF or a BMP only where Pillow read its header: text
    that starts "BM" or "GIF89a" is no picture cut short."""
    ends = tail.rstrip(b"\0")
    if head.startswith(_JPEG) and not ends.endswith(b"\xff\xd9"):
        return "JPEG"
    if head.startswith(_PNG) and not tail.endswith(b"IEND\xaeB`\x82"):
        return "PNG"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP" and int.from_bytes(head[4:8], "little") + 8 > size:
        return "WebP"
    if not header_read:
        return None
    if head[:6] in (b"GIF87a", b"GIF89a") and not ends.endswith(b";"):
        return "GIF"
    if head[:2] == b"BM" and int.from_bytes(head[2:6], "little") > size:
        return "BMP"
    return None


@dataclass(frozen=True)
class _Header:
    """What a picture's header says before it is decoded: why it is not to be decoded (None where it may be), whether
    it can hold transparent pixels, and what to tell of a picture of several (``_SEVERAL``) that is read at its first."""

    problem: str | None
    transparent: bool = False
    several: str = ""


#: How a picture of several frames or pages is named in the note that only its first is read, by Pillow's name of
#: its format. Not an MPO: a phone's JPEG with a second picture (a depth map, a preview) inside, whose first is the
#: photo.
_SEVERAL = {"GIF": "an animated GIF", "PNG": "an animated PNG", "WEBP": "an animated WebP", "AVIF": "an animated AVIF",
            "TIFF": "a TIFF of several pages"}


def _header(source: BinaryIO, size: int) -> _Header:
    """What ``source`` (``size`` bytes long) says of itself, read from its header alone: too large, far longer than its
    pixels need, a PNG chunk before the pixels too long for OpenCV (:func:`_png_chunk_too_long`, told before Pillow
    reads it), or no header Pillow can read is a problem; Pillow knows also whether it can hold transparent pixels
    and whether it holds several pictures (counted without decoding them). A picture over Pillow's own bar (twice
    its MAX_IMAGE_PIXELS) and under MAX_PIXELS is told of by its pixel count alone, and may be transparent."""
    from PIL import Image

    too_long = _png_chunk_too_long(source, size)
    if too_long:
        return _Header(too_long)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            with Image.open(source) as picture:
                width, height = picture.size
                # not a TIFF's: OpenCV gives its colour multiplied by its alpha where the file says how, and a
                # second multiplication would darken its half-transparent edges
                transparent = picture.has_transparency_data and picture.format != "TIFF"
                several = _SEVERAL.get(picture.format or "", "")
                several = several if several and getattr(picture, "n_frames", 1) > 1 else ""
            pixels, said = width * height, f"{width}x{height} pixels"
        except Image.DecompressionBombError as error:  # over twice Pillow's own bar; it gives the count alone
            found = re.search(r"\((\d+) pixels\)", str(error))
            pixels = int(found.group(1)) if found else MAX_PIXELS + 1
            said, transparent, several = f"{pixels:,} pixels", True, ""  # unknown: its decoding looks for transparency
        except Exception:
            damaged = _png_damage(source, size)
            if damaged:
                return _Header(damaged)
            source.seek(0)
            head = source.read(32)
            source.seek(max(0, size - 16))
            return _Header(_unreadable(head, source.read(16), size))
    if pixels > MAX_PIXELS:
        return _Header(f"too large to read ({said}; at most {MAX_PIXELS // 1_000_000} million pixels)")
    if size > MAX_BYTES_A_PIXEL * pixels + (64 << 20):
        return _Header(f"far longer than a picture of {said} can be ({size:,} bytes): not a picture file, or a "
                       "damaged one")
    return _Header(None, transparent, several)


# ---------------------------------------------------------------- the one type

@dataclass
class Detections:
    """Rows of boxes with what was read in them: corner indices, or (after merging) cards.

    ``xyxy`` (N, 4) pixel boxes; ``confidence`` (N,) in 0..1; ``rank`` and ``suit`` per row (None when
    unknown); ``rank_probs`` (N, 14) the rank probabilities; ``card`` (N,) the card each index belongs to
    (-1 before merging). A card-level result also has ``indices`` (the index-level rows it came from),
    ``abstain`` and ``reasons``, and lists its cards as they lie, left to right (:func:`as_laid`): what is shown of
    it reads as the table does. Two readings of the same cards are compared as multisets, never in this order.
    """

    level: str  # "index" or "card"
    xyxy: np.ndarray
    confidence: np.ndarray
    rank: list
    suit: list
    rank_probs: np.ndarray
    card: np.ndarray
    abstain: bool = False
    reasons: list = field(default_factory=list)
    indices: "Detections | None" = None
    image_size: tuple = (0, 0)  # (width, height)
    #: What the gate reads of a card-level reading (``vision.gate.FEATURES``; None when no index was found),
    #: and its probability that the reading is right (None without a gate). ``vision.train_gate`` fits the
    #: gate to the evidence of readings made without one.
    evidence: np.ndarray | None = None
    p_right: float | None = None
    #: (N, 4) each index's suit probabilities, in ``SUITS`` order (None before the classifier reads it).
    suit_probs: np.ndarray | None = None
    #: (N,) each index's NONE probability, the classifier's doubt that the box is an index at all (None before
    #: the classifier reads it, or when it has no NONE class).
    none_prob: np.ndarray | None = None

    @classmethod
    def empty(cls, level: str = "index", image_size=(0, 0)) -> "Detections":
        return cls(level, np.zeros((0, 4), np.float32), np.zeros(0, np.float32), [], [],
                   np.zeros((0, len(Rank)), np.float32), np.zeros(0, np.int64), image_size=image_size)

    def __len__(self) -> int:
        return len(self.xyxy)

    def select(self, keep: np.ndarray) -> "Detections":
        """The index-level rows where ``keep`` (a boolean mask) is true."""
        kept = np.flatnonzero(keep)
        return replace(self, xyxy=self.xyxy[kept], confidence=self.confidence[kept], rank=[self.rank[i] for i in kept],
                       suit=[self.suit[i] for i in kept], rank_probs=self.rank_probs[kept], card=self.card[kept],
                       suit_probs=None if self.suit_probs is None else self.suit_probs[kept],
                       none_prob=None if self.none_prob is None else self.none_prob[kept])

    @property
    def count(self) -> int:
        """Number of cards read (card level) or of indices found (index level)."""
        return len(self)

    @property
    def ranks(self) -> list:
        return [r for r in self.rank if r is not None]

    def cards(self) -> list[dict]:
        out = []
        for i in range(len(self)):
            r = self.rank[i]
            out.append({"rank": None if r is None else r.value, "suit": self.suit[i],
                        "confidence": round(float(self.confidence[i]), 4),
                        "box": [round(float(v), 1) for v in self.xyxy[i]]})
        return out

    def to_json(self, image: str | None = None, reasons: bool = False) -> dict:
        """The issue's contract: ``{"image", "cards": [{"rank", "suit", "confidence", "box"}], "count",
        "abstain"}`` (``reasons`` adds why it abstained)."""
        d = {"cards": self.cards(), "count": self.count, "abstain": bool(self.abstain)}
        if reasons:
            d["reasons"] = list(self.reasons)
        if image is not None:
            d = {"image": image, **d}
        return d

    def summary(self) -> str:
        if not len(self):
            text = "no card"
        else:
            text = f"{self.count} card{'s' if self.count != 1 else ''}: " + " ".join(
                (r.value if r else "?") + (s or "") for r, s in zip(self.rank, self.suit))
        if self.abstain:  # "unsure", as the drawing and the app say it; "abstain" is the JSON's field
            text += "  [UNSURE, the table decides: " + "; ".join(self.reasons) + "]"
        return text


def _not_inside(xyxy: np.ndarray, scores: np.ndarray, share: float) -> np.ndarray:
    """Which boxes to keep: when ``share`` or more of the smaller of two boxes lies inside the other, they
    are the same index found twice (its rank alone or its pip inside it, or a box grown around it), which
    NMS keeps when the sizes differ, and which would otherwise be counted as a card of its own; the
    higher-scoring one stays."""
    order = np.argsort(-scores)
    area = np.prod(xyxy[:, 2:] - xyxy[:, :2], axis=1).clip(1e-6)
    keep = np.ones(len(xyxy), bool)
    for rank_i, i in enumerate(order):
        for j in order[:rank_i]:
            if not keep[j]:
                continue
            w = min(xyxy[i, 2], xyxy[j, 2]) - max(xyxy[i, 0], xyxy[j, 0])
            h = min(xyxy[i, 3], xyxy[j, 3]) - max(xyxy[i, 1], xyxy[j, 1])
            if w > 0 and h > 0 and w * h >= share * min(area[i], area[j]):
                keep[i] = False
                break
    return keep


def _echoes(det: "Detections", reach: float, weak: float, sure: float) -> np.ndarray:
    """Which read indices are an index found a second time: a weak box right beside a sure one of the same
    rank. On real photos the detector sometimes boxes the pip printed under or beside an index (or a court
    figure's corner pip) as a second, weak index; the classifier reads the crop, which holds the index too,
    as the same rank, and the card is counted twice. Two real indices of one rank this close (a tight fan of
    same-rank cards) are both found surely. ``_not_inside`` drops a box that lies mostly inside another; an
    echo lies beside it."""
    size, ctr = pairs.size_and_centre(det.xyxy)
    best = det.rank_probs.argmax(1)
    apart = np.linalg.norm(ctr[:, None] - ctr[None, :], axis=2) / np.maximum(size[:, None], size[None, :])
    beside_sure = (apart < reach) & (best[:, None] == best[None, :]) & (det.confidence[None, :] >= sure)
    np.fill_diagonal(beside_sure, False)
    return (det.confidence < weak) & beside_sure.any(1)


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of every box in ``a`` (N, 4) with every box in ``b`` (M, 4), both x0, y0, x1, y1."""
    x0 = np.maximum(a[:, None, 0], b[None, :, 0])
    y0 = np.maximum(a[:, None, 1], b[None, :, 1])
    x1 = np.minimum(a[:, None, 2], b[None, :, 2])
    y1 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = (x1 - x0).clip(0) * (y1 - y0).clip(0)
    area = lambda z: (z[:, 2] - z[:, 0]) * (z[:, 3] - z[:, 1])  # noqa: E731
    return inter / (area(a)[:, None] + area(b)[None, :] - inter + 1e-9)


def decode_boxes(out: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """The boxes (x0, y0, x1, y1, in the detector's input pixels) and scores of one raw detector output
    (4 + nc, A) at or above ``threshold``, after NMS (IoU 0.5)."""
    scores = out[4:].max(0)
    keep = scores >= threshold
    boxes, scores = out[:4, keep].T, scores[keep]
    if len(scores) == 0:
        return np.zeros((0, 4), out.dtype), scores
    xyxy = np.stack([boxes[:, 0] - boxes[:, 2] / 2, boxes[:, 1] - boxes[:, 3] / 2,
                     boxes[:, 0] + boxes[:, 2] / 2, boxes[:, 1] + boxes[:, 3] / 2], 1)
    idx = cv2.dnn.NMSBoxes([[float(a), float(b), float(c - a), float(d - b)] for a, b, c, d in xyxy],
                           scores.astype(float).tolist(), threshold, 0.5)
    idx = np.array(idx, dtype=np.int64).reshape(-1)
    return xyxy[idx], scores[idx]


def _joint(rank_probs: np.ndarray) -> np.ndarray:
    """The rank probabilities of one card from those of its indices (rows), read independently."""
    joint = np.exp(np.log(rank_probs.clip(1e-6)).sum(0))
    return joint / joint.sum()


# ---------------------------------------------------------------- models

def model_bytes(path: Path) -> bytes:
    """A model file as the reader runs it: computing what the model defines on any CPU (``vision.int8``),
    with a detector's box decoding in the order onnxruntime runs fastest (``vision.box_decoding``)."""
    if not path.exists():
        raise FileNotFoundError(f"model file missing: {path} (the models ship in the repository's models/ folder)")
    model = box_decoding.softmax_on_last_axis(path.read_bytes())
    if int8.saturates():
        # x86 without VNNI: the int8 products would saturate in 16 bits and read worse (vision.int8)
        model = int8.without_saturation(model)
    return model


def session(model: Path | bytes, threads: int = 2):
    """An onnxruntime session of a model file (prepared by :func:`model_bytes`) or of prepared bytes: the
    reader's, and the training tools' checks against a shipped file."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    # No spinning: a session's idle threads otherwise spin after each run, on the same two cores where
    # the frame's next model runs. Off, the shipped models read a realdev frame in a median 30.8-31.6 ms
    # against 36.1-58.2 ms with it (bench/reader_speed.py, four runs each taken in turn, 2 cores).
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    data = model if isinstance(model, bytes) else model_bytes(Path(model))
    return ort.InferenceSession(data, so, providers=["CPUExecutionProvider"])


class ModelError(RuntimeError):
    """A model file that is there but cannot be loaded (damaged, or not a model this onnxruntime runs): the message
    names it and says how to put it back, where onnx and onnxruntime name neither ("Wire format was corrupt", "No graph
    was found")."""

    def __init__(self, path: Path, error: Exception) -> None:
        super().__init__(f"model file {path} cannot be loaded ({error}): it is damaged, or not the one shipped; put the "
                         f"shipped one back (`git checkout -- {path.name}` in its folder), or install the referee again")


@contextmanager
def _loading(path: Path) -> Iterator[None]:
    """A failure of the model file ``path`` itself as a :class:`ModelError` that names it. What is not the file's fault
    keeps its own words: onnxruntime not installed, a file that cannot be opened (missing, a folder, its permissions),
    memory run out."""
    try:
        yield
    except (ImportError, OSError, MemoryError, ModelError):
        raise
    except Exception as error:
        raise ModelError(path, error) from error


class SplitSessions:
    """One model in ``n`` single-threaded onnxruntime sessions that share out a batch along its first axis and
    run their parts at once, each on its own core; it answers ``run``, ``get_inputs`` and ``get_modelmeta`` as
    a session does, with the same outputs.

    Why: the classifier reads a frame's few 64 px crops with small convolutions that a second thread inside
    one session does not speed up (a frame's 6 crops: 16-17 ms on one thread or two), while two halves of
    the batch, one per core, take about 10 ms (2-core AMD EPYC; models/HISTORY.md, twelfth session).
    onnxruntime lets go of Python's lock while it runs, so plain threads suffice."""

    def __init__(self, model: bytes, n: int):
        self.sessions = [session(model, threads=1) for _ in range(max(1, n))]
        self._pool = ThreadPoolExecutor(len(self.sessions) - 1) if len(self.sessions) > 1 else None

    def get_inputs(self):
        return self.sessions[0].get_inputs()

    def get_modelmeta(self):
        return self.sessions[0].get_modelmeta()

    def run(self, outputs, feed: dict) -> list[np.ndarray]:
        (name, x), = feed.items()
        parts = [part for part in np.array_split(x, len(self.sessions)) if len(part)]
        if len(parts) < 2:
            return self.sessions[0].run(outputs, feed)
        try:
            later = [self._pool.submit(s.run, outputs, {name: part}) for s, part in zip(self.sessions[1:], parts[1:])]
        except RuntimeError:  # the pool takes no more work as Python stops; a camera's frame is still read, here
            return self.sessions[0].run(outputs, feed)
        first = self.sessions[0].run(outputs, {name: parts[0]})
        results = [first] + [f.result() for f in later]
        return [np.concatenate(r) for r in zip(*results)]


def _names(sess) -> dict[int, str]:
    meta = sess.get_modelmeta().custom_metadata_map
    return {int(k): str(v) for k, v in ast.literal_eval(meta["names"]).items()}


class CardReader:
    """Reads the face-up cards in one image. Thread-compatible, not thread-safe (one per thread)."""

    def __init__(self, det_model: Path | str = DET_MODEL, cls_model: Path | str = CLS_MODEL, threads: int = 2,
                 det_threshold: float = DET_THRESHOLD, rank_confidence: float = RANK_CONFIDENCE,
                 veto: float = NOT_AN_INDEX_VETO, pair_model: Path | str | None = PAIR_MODEL,
                 gate_model: Path | str | None = GATE_MODEL):
        self.threads = threads
        with _loading(Path(det_model)):
            self._det_model = model_bytes(Path(det_model))
            square = session(self._det_model, threads)
        self.det_in = square.get_inputs()[0]
        self.det_size = int(self.det_in.shape[2])
        #: The detector moved to the canvas of each frame shape seen (``vision.canvas``), by (rows, columns).
        self._det_on: dict[tuple[int, int], object] = {(self.det_size, self.det_size): square}
        with _loading(Path(cls_model)):
            self.cls = SplitSessions(model_bytes(Path(cls_model)), threads)
        self.cls_in = self.cls.get_inputs()[0]
        self.cls_size = int(self.cls_in.shape[2]) if isinstance(self.cls_in.shape[2], int) else 48
        self.cls_names = _names(self.cls)
        #: The pair model (``vision.pairs``), or None: pairs are then made by rank and distance alone.
        self.pair = None
        if pair_model is not None:
            with _loading(Path(pair_model)):
                self.pair = session(Path(pair_model), threads)
        self.pair_doubt, self.pair_sure = PAIR_DOUBT, PAIR_SURE
        #: The gate (``vision.gate``), or None: the doubts alone then make the reader abstain.
        self.gate = self._gate_session(Path(gate_model)) if gate_model is not None else None
        self.det_threshold = det_threshold
        self.rank_confidence = rank_confidence
        self.veto = veto
        self.inside = INSIDE
        self.pair_min_same = PAIR_MIN_SAME
        self.pair_min_suit = PAIR_MIN_SUIT
        self.soft_suit_most = SOFT_SUIT_MOST
        self.lone_floor = LONE_FLOOR
        self.second_look = SECOND_LOOK
        self.crop_pads = CROP_PADS
        self.more_cuts_below = MORE_CUTS_BELOW
        self.wider_look = WIDER_LOOK
        self.echo_reach, self.echo_weak, self.echo_sure = ECHO_REACH, ECHO_WEAK, ECHO_SURE
        ranks = list(Rank)
        names = [n for _, n in sorted(self.cls_names.items())]
        #: The classifier's column for "not a corner index" (the detector's false alarms), if it has one.
        self._none_class = names.index(NOT_AN_INDEX) if NOT_AN_INDEX in names else None
        cards = [n for n in names if n != NOT_AN_INDEX]
        self._card_classes = np.array([i for i, n in enumerate(names) if n != NOT_AN_INDEX])
        self._rank_of_class = np.array([ranks.index(Rank.JOKER if n.startswith("JOKER") else Rank(n[:-1])) for n in cards])
        self._suit_of_class = [None if n.startswith("JOKER") else n[-1] for n in cards]
        self._suit_columns = [np.array([c for c, s in enumerate(self._suit_of_class) if s == x], np.int64) for x in SUITS]

    @staticmethod
    def _gate_session(path: Path):
        """The gate's session (``model_bytes`` says when the file is missing), refused if fitted to other features."""
        with _loading(path):
            sess = session(path, threads=1)
        gate.check_features(sess)
        return sess

    # -- step 1: corner indices
    def detect(self, img: np.ndarray, shrink: float = 1.0) -> Detections:
        """The corner indices the detector finds in ``img``; with ``shrink`` > 1, in ``img`` made that much
        smaller on a grey margin (the boxes are still in ``img``'s pixels)."""
        h, w = img.shape[:2]
        dx = dy = 0
        if shrink > 1:
            dy, dx = int(h * (shrink - 1)) // 2, int(w * (shrink - 1)) // 2
            img = cv2.copyMakeBorder(img, dy, dy, dx, dx, cv2.BORDER_CONSTANT, value=(114, 114, 114))
        x, r, left, top = letterbox(img, self.det_size, fit=True)
        xyxy, scores = decode_boxes(self._detector(x.shape[2:]).run(None, {self.det_in.name: x})[0][0], self.det_threshold)
        if len(scores) == 0:
            return Detections.empty("index", (w, h))
        keep = _not_inside(xyxy, scores, self.inside)
        xyxy, scores = xyxy[keep], scores[keep]
        xyxy = (xyxy - [left, top, left, top]) / r - [dx, dy, dx, dy]
        xyxy = np.clip(xyxy, 0, [w, h, w, h]).astype(np.float32)
        n = len(xyxy)
        return Detections("index", xyxy, scores.astype(np.float32), [None] * n, [None] * n,
                          np.zeros((n, len(Rank)), np.float32), np.full(n, -1, np.int64), image_size=(w, h))

    def _detector(self, shape: tuple[int, int]):
        """The detector's session for a canvas of ``shape``, made the first time a frame of that shape comes
        (about 90 ms, once). A camera gives one shape; photos give at most 25 (one side 416, the other a
        multiple of 32), so the sessions are kept."""
        if shape not in self._det_on:
            self._det_on[shape] = session(on_canvas(self._det_model, *shape), self.threads)
        return self._det_on[shape]

    # -- step 2: read each index
    def classify(self, img: np.ndarray, det: Detections) -> Detections:
        if not len(det):
            return det
        probs = self._cut_probs(img, det.xyxy, self.crop_pads[:1])[0]
        bar = np.inf if self.more_cuts_below is None else self.more_cuts_below
        again = np.flatnonzero(probs.max(1) < bar)
        if len(self.crop_pads) > 1 and len(again):
            more = self._cut_probs(img, det.xyxy[again], self.crop_pads[1:])
            probs[again] = (probs[again] + more.sum(0)) / len(self.crop_pads)
        none_prob = None
        if self._none_class is not None:
            # the classifier vetoes boxes that are no corner index (pips, court-card art, the table)
            real = probs[:, self._none_class] < self.veto
            det = det.select(real)
            if not len(det):
                return det
            probs = probs[real]
            none_prob = probs[:, self._none_class].astype(np.float32)
        probs = probs[:, self._card_classes]
        probs = probs / probs.sum(1, keepdims=True).clip(1e-9)
        rank_probs = np.zeros((len(det), len(Rank)), np.float32)
        np.add.at(rank_probs.T, self._rank_of_class, probs.T)
        ranks = list(Rank)
        rank = [ranks[int(i)] for i in rank_probs.argmax(1)]
        suit = []
        for i in range(len(det)):
            by_suit: dict = {}
            for c, s in enumerate(self._suit_of_class):
                if s is not None and self._rank_of_class[c] == ranks.index(rank[i]):
                    by_suit[s] = by_suit.get(s, 0.0) + float(probs[i, c])
            total = sum(by_suit.values())
            best = max(by_suit, key=by_suit.get) if by_suit else None
            suit.append(best if best and total > 0 and by_suit[best] / max(total, 1e-9) >= SUIT_CONFIDENCE else None)
        # confidence stays the detector's score at index level; merge() combines it with the rank probability
        suit_probs = np.stack([probs[:, cols].sum(1) for cols in self._suit_columns], 1)
        suit_probs = (suit_probs / suit_probs.sum(1, keepdims=True).clip(1e-9)).astype(np.float32)
        det = replace(det, rank=rank, suit=suit, rank_probs=rank_probs, suit_probs=suit_probs, none_prob=none_prob)
        return det.select(~_echoes(det, self.echo_reach, self.echo_weak, self.echo_sure))

    def _cut_probs(self, img: np.ndarray, xyxy: np.ndarray, pads: tuple[float, ...]) -> np.ndarray:
        """The classifier's probabilities for each box of ``xyxy`` cut at each padding: (len(pads), boxes, classes)."""
        crops = np.stack([square_crop(img, box, pad=pad, size=self.cls_size) for pad in pads for box in xyxy])
        return self._class_probs(crops_tensor(crops)).reshape(len(pads), len(xyxy), -1)

    def _class_probs(self, x: np.ndarray) -> np.ndarray:
        """The classifier's probabilities for crops ``x`` (N, 3, S, S). A crop whose best class is under
        ``second_look`` is read again at its three other quarter turns and the four readings averaged:
        an index lies at any angle on the table and the classifier reads some angles better, so an
        unsure reading steadies; sure ones (most) skip it, which keeps a frame within its time."""
        probs = self.cls.run(None, {self.cls_in.name: x})[0]
        unsure = probs.max(1) < self.second_look
        if unsure.any():
            turned = np.concatenate([np.rot90(x[unsure], k, axes=(2, 3)) for k in (1, 2, 3)])
            more = self.cls.run(None, {self.cls_in.name: np.ascontiguousarray(turned)})[0]
            probs[unsure] = (probs[unsure] + more.reshape(3, int(unsure.sum()), -1).sum(0)) / 4
        return probs

    # -- step 3: indices -> cards
    def _one_card(self, img: np.ndarray | None, det: Detections, asked: list[tuple[int, int]]) -> dict:
        """The pair model's probability that each asked pair of indices is one card ({} without a model or
        a picture)."""
        if not asked or img is None or self.pair is None:
            return {}
        strips = [pairs.strip(img, det.xyxy[i], det.xyxy[j]) for i, j in asked]
        probs = self.pair.run(None, {self.pair.get_inputs()[0].name: pairs.strips_tensor(strips)})[0]
        return {e: float(p) for e, p in zip(asked, probs)}

    def _pair(self, det: Detections, img: np.ndarray | None) -> tuple[gate.Pairing, bool]:
        """Which indices are one card's (each index's card number, the number of cards, whether another
        pairing would give another count or other ranks, what the gate reads of it), and whether the picture
        doubts a pair made. Two
        indices can pair when they lie a card's diagonal apart, are about as large, may show the same rank
        and do not show different suits; the likeliest pairs are made first. With ``img`` and the pair
        model, a pair made that the picture calls two cards is doubted (and, with ``pair_sure``, a pair it
        is sure of is made first and leaves the search for other pairings)."""
        n = len(det)
        same = det.rank_probs @ det.rank_probs.T  # probability that two indices show the same rank
        cands = []
        split_by_suit = []
        for i, j, d in pairs.within_reach(det.xyxy):
            if (det.rank[i] != det.rank[j]) if self.pair_min_same is None else same[i, j] < self.pair_min_same:
                continue
            if self._other_suits(det, i, j):
                split_by_suit.append((i, j))
                continue
            cands.append((-float(same[i, j]), abs(np.log(d / 6.0)), i, j))
        one_card = self._one_card(img, det, [(i, j) for _, _, i, j in cands]) if self.pair_sure is not None else {}
        sure = [e for e, p in one_card.items() if p >= self.pair_sure]
        used = Counter(k for e in sure for k in e)
        sure = [(i, j) for i, j in sure if used[i] == used[j] == 1]  # two sure pairs sharing an index: neither is
        taken = {k for e in sure for k in e}
        rest = sorted(c for c in cands if (c[2], c[3]) not in sure)
        card = np.full(n, -1, np.int64)
        made = []
        for i, j in sure + [(i, j) for _, _, i, j in rest]:
            if card[i] < 0 and card[j] < 0:
                card[i] = card[j] = len(made)
                made.append((i, j))
        k = len(made)
        for i in range(n):
            if card[i] < 0:
                card[i] = k
                k += 1
        one_card |= self._one_card(img, det, [e for e in made if e not in one_card])
        doubted = any(one_card[e] < self.pair_doubt for e in made if e in one_card)
        open_pairs = [(i, j) for _, _, i, j in rest if i not in taken and j not in taken]
        unmade = [-s for s, _, i, j in rest if (i, j) not in made]
        pairing = gate.Pairing(card, k, _pairings_disagree(det.rank_probs, open_pairs),
                               {e: one_card[e] for e in made if e in one_card}, max(unmade, default=0.0),
                               tuple(split_by_suit))
        return pairing, doubted

    def _other_suits(self, det: Detections, i: int, j: int) -> bool:
        """Whether indices ``i`` and ``j`` show different suits, and so cannot be one card's two corners."""
        if (self.pair_min_suit is None or det.suit_probs is None
                or (self.soft_suit_most is not None and det.rank.count(det.rank[i]) > self.soft_suit_most)):
            return bool(det.suit[i] and det.suit[j] and det.suit[i] != det.suit[j])
        if Rank.JOKER in (det.rank[i], det.rank[j]):
            return False
        return float(det.suit_probs[i] @ det.suit_probs[j]) < self.pair_min_suit

    def _lone_weak(self, det: Detections, alone: np.ndarray) -> np.ndarray:
        """The indices that make a card alone and are read with a confidence under ``lone_floor``."""
        return alone & (det.confidence * det.rank_probs.max(1) < self.lone_floor)

    def merge(self, det: Detections, img: np.ndarray | None = None) -> Detections:
        """Step 3: the read indices merged into cards, the gate's judgement of the reading, and the reasons to
        abstain. ``img``, the picture the indices were read in, is needed only by a pair model (``_pair``). A card
        of one weak index beside other cards is dropped first (``LONE_FLOOR``), and the rest merged again."""
        n = len(det)
        reasons: list[str] = []
        if n == 0:
            out = Detections.empty("card", det.image_size)
            out.indices = det
            out.abstain, out.reasons = True, ["no card index found"]
            return out
        pairing, doubted = self._pair(det, img)
        card, k = pairing.card, pairing.cards
        lone_weak = self._lone_weak(det, pairing.alone)
        if lone_weak.any() and not lone_weak.all():
            return self.merge(det.select(~lone_weak), img)
        if pairing.disagree:
            reasons.append("indices could pair into cards in more than one way (count or ranks uncertain)")
        if doubted:
            reasons.append("two corners paired as one card look like two cards in the picture (count uncertain)")
        rows_xyxy, rows_conf, rows_rank, rows_suit, rows_probs = [], [], [], [], []
        ranks = list(Rank)
        for c in range(k):
            m = card == c
            p = det.rank_probs[m]
            joint = _joint(p)
            r = ranks[int(joint.argmax())]
            suits = {s for s in np.array(det.suit, dtype=object)[m] if s}
            rows_xyxy.append(np.concatenate([det.xyxy[m, :2].min(0), det.xyxy[m, 2:].max(0)]))
            rows_conf.append(float(joint.max()) * float(det.confidence[m].max()))
            rows_rank.append(r)
            rows_suit.append(suits.pop() if len(suits) == 1 and r is not Rank.JOKER else None)
            rows_probs.append(joint)
            if joint.max() < self.rank_confidence:
                reasons.append(f"the card {_where(rows_xyxy[-1], det.image_size)} is not read confidently "
                               f"({r.value}, its rank {_percent(joint.max())} sure)")
        evidence = gate.scene_features(det.xyxy, det.confidence, np.array(rows_probs), pairing, det.image_size,
                                       det.none_prob)
        p_right = None
        if self.gate is not None:
            p_right = float(self.gate.run(None, {"features": evidence[None]})[0][0, 0])
            reasons = ([f"the reading is more likely wrong than right ({_percent(p_right, down=True)} likely right)"] + reasons
                       + _gate_doubts(evidence) if p_right < gate.ANSWER_AT else [])
        order = as_laid(np.array(rows_xyxy, np.float32).reshape(k, 4))
        row_of = np.empty(k, np.int64)
        row_of[order] = np.arange(k)  # the cards are listed as they lie: each index names its card's row
        out = Detections("card", np.array(rows_xyxy, np.float32)[order], np.array(rows_conf, np.float32)[order],
                         [rows_rank[i] for i in order], [rows_suit[i] for i in order],
                         np.array(rows_probs, np.float32)[order], np.arange(k, dtype=np.int64),
                         abstain=bool(reasons), reasons=reasons, indices=replace(det, card=row_of[card]),
                         image_size=det.image_size, evidence=evidence, p_right=p_right)
        return out

    def indices(self, img: np.ndarray, wider: bool = True) -> Detections:
        """The corner indices in ``img``, each read: steps 1 and 2, and with ``wider`` the wider look
        (``WIDER_LOOK``) when the first keeps none."""
        det = self.classify(img, self.detect(img))
        if len(det) or not (wider and self.wider_look):
            return det
        return self.classify(img, self.detect(img, shrink=self.wider_look))

    def read(self, image, video: bool = False) -> Detections:
        """Read the cards in one image (a path or a BGR array); ``video``: it is a frame of a stream, read
        without the wider look (see ``WIDER_LOOK``)."""
        img = load_image(image)
        return self.merge(self.indices(img, wider=not video), img)


def as_laid(xyxy: np.ndarray) -> np.ndarray:
    """The order to list cards boxed at ``xyxy`` (N, 4) in: as they lie, left to right by each box's centre, and where
    two centres line up one above the other, top to bottom. A player checks the cards on the screen against those on
    the table by reading them left to right: "K 7 7" on the screen for cards lying 7, K, 7 had the table count twice.
    One rule for every layout, with no threshold to tune: a reveal laid in a row or fanned reads as the table reads
    it. By the centre: a card read by both corners is boxed across its face, and its centre is where the eye puts it
    (its left edge would put a card turned on the table by its corner)."""
    centre_x, centre_y = (xyxy[:, 0] + xyxy[:, 2]) / 2, (xyxy[:, 1] + xyxy[:, 3]) / 2
    return np.lexsort((centre_y, centre_x))


def _percent(p: float, down: bool = False) -> str:
    """A probability in whole percent; ``down``, rounded down (beyond float32's noise), where rounding up would
    contradict the sentence: a reading under even odds said "50% likely right"."""
    return f"{math.floor(float(p) * 100 + 1e-4) if down else round(float(p) * 100)}%"


def _where(xyxy, image_size: tuple[int, int]) -> str:
    """Where a card lies in the picture, in words ("at the bottom left"), so that a reason points at the card on
    the table; pixel boxes are for the JSON. The picture is cut in thirds each way."""
    width, height = image_size
    if not (width and height):  # indices made by hand, without their picture
        return f"at {[int(v) for v in xyxy]}"
    x = (float(xyxy[0]) + float(xyxy[2])) / 2 / width
    y = (float(xyxy[1]) + float(xyxy[3])) / 2 / height
    row = ("top", "middle", "bottom")[min(int(y * 3), 2)]
    column = ("left", "middle", "right")[min(int(x * 3), 2)]
    if row == column == "middle":
        return "in the middle"
    if column == "middle":
        return f"at the {row}"
    if row == "middle":
        return f"on the {column}"
    return f"at the {row} {column}"


def _gate_doubts(evidence: np.ndarray) -> list[str]:
    """What the gate saw that no hand rule names, said as doubts when it abstains: the table is told why."""
    x = dict(zip(gate.FEATURES, evidence))
    doubts = []
    if x["suit_splits"]:
        doubts.append("two corners of one rank, kept apart only by their suits, may be one card (count uncertain)")
    if x["edge_lone"]:
        doubts.append("a corner at the picture's edge may belong to a card cut off by the frame (count uncertain)")
    return doubts


#: A group of indices with more possible pairs than this is not searched: the reader abstains.
MAX_PAIRS_SEARCHED = 16


def _pairings_disagree(rank_probs: np.ndarray, pairs: list[tuple[int, int]]) -> bool:
    """Whether the possible pairs could merge the indices into cards in ways that give another count or
    other ranks. Every maximal pairing (no possible pair left with both indices unpaired) is one way to
    read the picture; an index left alone is a card whose other corner is hidden. Three same-rank indices
    within reach of each other are two cards whichever two pair, so they are no reason to abstain; a
    chain of four that could be two cards or three is."""
    ranks = rank_probs.argmax(1)
    group = list(range(len(rank_probs)))

    def root(i: int) -> int:
        while group[i] != i:
            i = group[i]
        return i

    for i, j in pairs:
        group[root(i)] = root(j)
    by_group: dict[int, list[tuple[int, int]]] = {}
    for i, j in pairs:
        by_group.setdefault(root(i), []).append((i, j))
    for edges in by_group.values():
        if len(edges) < 2:
            continue
        if len(edges) > MAX_PAIRS_SEARCHED:
            return True
        members = sorted({k for e in edges for k in e})
        outcomes: set[tuple[int, tuple[int, ...]]] = set()

        def extend(k: int, used: frozenset, cards: tuple[int, ...]) -> None:
            if k == len(edges):
                if all(i in used or j in used for i, j in edges):  # maximal: no pair left to make
                    alone = tuple(int(ranks[m]) for m in members if m not in used)
                    outcomes.add((len(cards) + len(alone), tuple(sorted(cards + alone))))
                return
            i, j = edges[k]
            if i not in used and j not in used:
                extend(k + 1, used | {i, j}, cards + (int(_joint(rank_probs[[i, j]]).argmax()),))
            extend(k + 1, used, cards)

        extend(0, frozenset(), ())
        if len(outcomes) > 1:
            return True
    return False


# ---------------------------------------------------------------- video

@dataclass
class SteadyReading:
    ranks: tuple  # sorted rank values, e.g. ("10", "K", "K"): the reading the vote counts, whatever its order
    count: int
    stable: bool
    votes: int
    frames: int
    #: the same rank values as the latest frame that read them lists them, left to right as the cards lie
    #: (:func:`as_laid`), e.g. ("K", "10", "K"): what to show the table
    laid: tuple = ()


class Stabiliser:
    """Votes over the last ``window`` frame readings; stable when one multiset of ranks won at least
    ``min_votes`` of them (abstaining frames vote for nothing), at least twice the votes of any other reading,
    and the latest frame agrees with it.

    Why twice: a camera that flips between two readings (A, B, A, B, A) gives the first a majority but is not
    sure of either; a single misread frame among steady ones (A, A, X, A) still lets A stand.

    A multiset, not the order the frames list the cards in: two cards nearly one above the other swap places from one
    frame to the next, and the vote must not split between them. The winner is shown in the order of the latest frame
    that read it (``SteadyReading.laid``), as the cards lie now."""

    def __init__(self, window: int = 10, min_votes: int = 3):
        if window < 1 or not (1 <= min_votes <= window):
            raise ValueError("need window >= 1 and 1 <= min_votes <= window")
        self.window, self.min_votes = window, min_votes
        self.history: deque = deque(maxlen=window)
        self.laid: deque = deque(maxlen=window)  # each of those frames' rank values as it lists them

    @staticmethod
    def key(det: Detections) -> tuple | None:
        if det.abstain:
            return None
        return tuple(sorted(r.value for r in det.ranks))

    def update(self, det: Detections) -> SteadyReading:
        self.history.append(self.key(det))
        self.laid.append(tuple(r.value for r in det.ranks))
        votes = Counter(k for k in self.history if k is not None)
        if not votes:
            return SteadyReading((), 0, False, 0, len(self.history))
        (best, n), *others = votes.most_common()
        runner_up = others[0][1] if others else 0
        stable = n >= self.min_votes and self.history[-1] == best and n >= 2 * runner_up and n > sum(votes.values()) - n
        laid = next(laid for key, laid in zip(reversed(self.history), reversed(self.laid)) if key == best)
        return SteadyReading(best, len(best), stable, n, len(self.history), laid)


# ---------------------------------------------------------------- drawing

def card_label(rank: Rank | None, suit: str | None, confidence: float, suits: bool = True) -> str:
    """A card's label on the picture: its rank, its suit where read and ``suits`` is on, and its confidence."""
    return f"{rank.value if rank else '?'}{(suit or '') if suits else ''} {confidence:.2f}"


def draw(img: np.ndarray, det: Detections, suits: bool = True) -> np.ndarray:
    """The image with each card's box and rank drawn (index boxes thin, cards thick). ``suits`` off leaves the
    suits out of the labels: the app's players need ranks only (suits do not matter in Cheat), and through a real
    webcam a suit is read wrong far more often than a rank (models/README.md), which on the table looks like a
    misread card."""
    out = load_image(img).copy()
    scale = max(1.0, max(out.shape[:2]) / 640)
    if det.indices is not None:
        for b in det.indices.xyxy:
            cv2.rectangle(out, (int(b[0]), int(b[1])), (int(b[2]), int(b[3])), (255, 200, 0), max(1, int(scale)))
    for b, r, s, c in zip(det.xyxy, det.rank, det.suit, det.confidence):
        col = (0, 0, 255) if det.abstain else (0, 200, 0)
        cv2.rectangle(out, (int(b[0]), int(b[1])), (int(b[2]), int(b[3])), col, max(2, int(2 * scale)))
        text = card_label(r, s, float(c), suits)
        cv2.putText(out, text, (int(b[0]), max(12, int(b[1]) - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale,
                    (0, 0, 0), int(3 * scale))
        cv2.putText(out, text, (int(b[0]), max(12, int(b[1]) - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale,
                    (255, 255, 255), max(1, int(scale)))
    # in the table's words: the drawing is shown to players, who call an abstention "unsure"
    head = "no card found" if det.count == 0 else f"{det.count} card{'s' if det.count != 1 else ''}"
    if det.abstain and det.count:
        head += "  UNSURE: the table decides"
    cv2.putText(out, head, (8, int(24 * scale)), cv2.FONT_HERSHEY_SIMPLEX, 0.7 * scale, (0, 0, 0), int(4 * scale))
    cv2.putText(out, head, (8, int(24 * scale)), cv2.FONT_HERSHEY_SIMPLEX, 0.7 * scale, (0, 255, 255), max(1, int(2 * scale)))
    return out
