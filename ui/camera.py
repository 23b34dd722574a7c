"""The camera side of the app: find the card reader, run it on frames, keep a steady reading.

The reader lives in ``vision/reader.py`` (built separately). This module only adapts it to the app:
it never decides a verdict. It turns frames into a :class:`Reading` (ranks, how sure, how steady)
and draws the reader's boxes on the picture. When the reader is missing the app falls back to
entering the revealed ranks by hand.
"""

from __future__ import annotations

import importlib
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from assistant import Rank

#: A reading is steady when the same ranks were read in this many of the last WINDOW frames.
STEADY_FRAMES = 3
WINDOW = 5


@dataclass(frozen=True)
class Seen:
    """One card as the reader saw it in one frame."""

    rank: Rank | None
    confidence: float
    box: tuple[float, float, float, float] | None = None  # x1, y1, x2, y2 in pixels
    suit: str | None = None


@dataclass(frozen=True)
class Reading:
    """What the camera says the revealed cards are, and whether the app may act on it alone."""

    ranks: tuple[Rank, ...] = ()
    sure: bool = False  # the reader did not abstain and every card passed its threshold
    steady: bool = False  # the same reading held over several frames
    frames: int = 0  # frames read since the call
    note: str = ""  # why it is not sure, in words
    at: float = 0.0  # time.monotonic() when this reading became steady (or was made)

    @property
    def actionable(self) -> bool:
        return self.sure and self.steady and bool(self.ranks)


def _rank(value: Any) -> Rank | None:
    if value is None:
        return None
    if isinstance(value, Rank):
        return value
    try:
        return Rank.parse(str(getattr(value, "value", value)))
    except ValueError:
        return None


class ReaderAdapter:
    """Wraps ``vision.reader`` whatever its exact shape: a function or an object with ``read``."""

    def __init__(self, module: Any) -> None:
        self.module = module
        self._read: Callable[[np.ndarray], Any]
        reader_cls = getattr(module, "CardReader", None) or getattr(module, "Reader", None)
        if reader_cls is not None:
            self._impl = reader_cls()
            self._read = self._impl.read
        elif callable(getattr(module, "read", None)):
            self._read = module.read
        else:
            raise ImportError("vision.reader has neither a Reader class nor a read() function")
        self.lock = threading.Lock()

    def read(self, image_bgr: np.ndarray) -> tuple[list[Seen], bool, str]:
        """The cards in one picture, whether the reader abstained, and its reason."""
        with self.lock:
            result = self._read(image_bgr)
        raw_cards = getattr(result, "cards", result if isinstance(result, (list, tuple)) else [])
        seen = []
        for card in raw_cards:
            box = getattr(card, "box", None)
            seen.append(
                Seen(
                    rank=_rank(getattr(card, "rank", None)),
                    confidence=float(getattr(card, "confidence", 0.0) or 0.0),
                    box=tuple(float(v) for v in box) if box is not None else None,
                    suit=getattr(card, "suit", None),
                )
            )
        abstain = bool(getattr(result, "abstain", False)) or any(s.rank is None for s in seen)
        reason = str(getattr(result, "reason", "") or getattr(result, "note", "") or "")
        return seen, abstain, reason


_READER: ReaderAdapter | None = None
_READER_ERROR: str | None = None


def load_reader() -> ReaderAdapter | None:
    """The card reader, loaded once; None (with :func:`reader_problem` saying why) when unavailable."""
    global _READER, _READER_ERROR
    if _READER is None and _READER_ERROR is None:
        try:
            _READER = ReaderAdapter(importlib.import_module("vision.reader"))
        except Exception as error:  # a missing module or model: the app works by hand without it
            _READER_ERROR = f"{type(error).__name__}: {error}"
    return _READER


def reader_problem() -> str | None:
    load_reader()
    return _READER_ERROR


class Steadier:
    """Votes over the last frames: a reading is steady when one multiset of ranks wins STEADY_FRAMES."""

    def __init__(self) -> None:
        self.window: deque[tuple[tuple[Rank, ...], bool, str]] = deque(maxlen=WINDOW)
        self.frames = 0
        self.steady_since: float = 0.0
        self.last_key: tuple[Rank, ...] | None = None

    def add(self, seen: Sequence[Seen], abstain: bool, reason: str) -> Reading:
        ranks = tuple(sorted((s.rank for s in seen if s.rank is not None), key=lambda r: list(Rank).index(r)))
        self.window.append((ranks, abstain, reason))
        self.frames += 1
        votes = Counter(key for key, _, _ in self.window)
        best, count = votes.most_common(1)[0]
        steady = count >= STEADY_FRAMES and bool(best)
        sure = steady and not any(a for key, a, _ in self.window if key == best)
        if steady and best != self.last_key:
            self.steady_since = time.monotonic()
        self.last_key = best if steady else None
        note = ""
        if not best:
            note = "no cards in view"
        elif not steady:
            note = "reading is not steady yet"
        elif not sure:
            note = reason or "the reader is unsure of a card"
        return Reading(best, sure, steady, self.frames, note, self.steady_since)


def draw(image_bgr: np.ndarray, seen: Sequence[Seen]) -> np.ndarray:
    """The picture with a box and a rank label on each card the reader saw."""
    import cv2

    out = image_bgr.copy()
    for card in seen:
        if card.box is None:
            continue
        x1, y1, x2, y2 = (int(round(v)) for v in card.box)
        colour = (60, 200, 60) if card.rank is not None else (40, 40, 230)
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, 2)
        label = f"{card.rank.value if card.rank else '?'} {card.confidence:.0%}"
        cv2.putText(out, label, (x1, max(14, y1 - 6)), cv2.FONT_HERSHEY_SIMPLEX, 0.6, colour, 2)
    return out


@dataclass
class LiveFeed:
    """Shared between the WebRTC frame thread and the script: the steady reading since the last arm().

    The script keeps one per browser session (in session state) so that reruns, which hand
    streamlit-webrtc a new callback, keep the same feed.
    """

    lock: threading.Lock = field(default_factory=threading.Lock)
    armed: bool = False
    steadier: Steadier = field(default_factory=Steadier)
    reading: Reading = field(default_factory=Reading)
    frames_seen: int = 0
    last_frame_at: float = 0.0
    read_ms: float = 0.0

    def arm(self) -> None:
        """Start a fresh reading (a call was made: wait for the flipped cards)."""
        with self.lock:
            self.armed = True
            self.steadier = Steadier()
            self.reading = Reading()

    def disarm(self) -> None:
        with self.lock:
            self.armed = False

    def process(self, image_bgr: np.ndarray) -> np.ndarray:
        """Called for every camera frame: read it while armed, and draw what was read."""
        reader = load_reader()
        with self.lock:
            self.frames_seen += 1
            self.last_frame_at = time.monotonic()
            armed = self.armed
        if reader is None or not armed:
            return image_bgr
        start = time.perf_counter()
        seen, abstain, reason = reader.read(image_bgr)
        with self.lock:
            self.read_ms = (time.perf_counter() - start) * 1000
            if self.armed:
                self.reading = self.steadier.add(seen, abstain, reason)
        return draw(image_bgr, seen)

    def current(self) -> Reading:
        with self.lock:
            return self.reading


def read_still(image_bgr: np.ndarray) -> tuple[Reading, np.ndarray]:
    """One picture (a snapshot or an uploaded photo): its reading, never steady on its own."""
    reader = load_reader()
    if reader is None:
        return Reading(note="the card reader is not installed: enter the cards by hand"), image_bgr
    seen, abstain, reason = reader.read(image_bgr)
    steadier = Steadier()
    reading = steadier.add(seen, abstain, reason)
    ranks = tuple(s.rank for s in seen if s.rank is not None)
    note = "" if ranks else "no cards found in the picture"
    if abstain:
        note = reason or "the reader is unsure of a card"
    return Reading(ranks, not abstain and bool(ranks), False, 1, note or reading.note, time.monotonic()), draw(image_bgr, seen)


def decode(data: bytes) -> np.ndarray | None:
    import cv2

    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    return image


class ServerCamera:
    """A camera plugged into the machine that runs the server (a USB webcam), read with OpenCV."""

    def __init__(self, index: int) -> None:
        import cv2

        self.index = index
        self.capture = cv2.VideoCapture(index)
        self.lock = threading.Lock()

    @property
    def ok(self) -> bool:
        return bool(self.capture.isOpened())

    def frame(self) -> np.ndarray | None:
        with self.lock:
            ok, image = self.capture.read()
        return image if ok else None

    def close(self) -> None:
        self.capture.release()
