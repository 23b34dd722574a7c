"""The camera side of the app: find the card reader, run it on frames, keep a steady reading.

The reader lives in ``vision/reader.py`` (built separately). This module only adapts it to the app:
it never decides a verdict (the rules do). It turns frames into a :class:`Reading` (ranks, how sure,
how steady), says whether a reading may settle a call alone (:func:`call_answer`), and draws the
reader's boxes on the picture. When the reader is missing the app falls back to entering the
revealed ranks by hand.
"""

from __future__ import annotations

import atexit
import importlib
import json
import logging
import os
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Sequence
from weakref import WeakSet

import numpy as np

from assistant import CheatError, Game, Rank, verdict_for
from assistant.game import seen_conflict

#: A reading is steady when the same ranks won this many of the last WINDOW frames (vision.reader.Stabiliser).
STEADY_FRAMES = 3
WINDOW = 6
#: Between calls only every IDLE_EVERY-th frame is read (3 a second at 15 fps), to spare the CPU.
IDLE_EVERY = 5
#: The hands read face up since the view was last empty that a feed remembers (the newest).
FACE_UP_KEPT = 8
#: Seconds the view must stay empty before the cards that lay face up in it are forgotten: a hand passing over
#: them is shorter; picking up the pile is longer. In time, not frames: between calls few frames are read.
FORGET_AFTER = 1.0
#: A server camera that gave no frame for this many seconds is said to be silent, and opened again.
SILENT_AFTER = 3.0
#: How long the browser's camera may take to send its first picture once a start began (START pressed, or pressed by a
#: reloaded page by itself) before the line over the rank buttons says it sends none. In Chromium on 2 cores the first
#: picture came 2.7 to 4.9 s after a reload began, and up to 11.5 s with other browsers busy beside it. A camera that
#: cannot start is said to send nothing after this.
STARTING_FOR = 15.0
#: The picture files the photo upload takes: every format the reader decodes (OpenCV, its header checked by Pillow).
#: A file the browser refuses never reaches the app, whose reading beside it is then only said to be the earlier
#: photo's (app.EARLIER_PHOTO), so the list is no narrower than the reader. JPEG comes first and HEIC is left out:
#: Safari on a Mac then hands an iPhone's HEIC photo over as JPEG, converted to the first type it can make.
PHOTO_TYPES = ("jpg", "jpeg", "png", "webp", "avif", "bmp", "tif", "tiff", "gif")
#: Made once as this server starts, for :func:`photo_key`.
SERVER_RUN = os.urandom(4).hex()


def photo_key(source: str) -> str:
    """The key of the widget that takes a photo from ``source`` ("snapshot" or "upload"), new with each run of the
    server. A page left open through a crash and a restart went on showing the photo it had sent (the uploader listed
    "flip.jpg"), which the new server never got: no reading beside it, and no way to send it again but to remove it
    first. Under a key the page has not seen, the widget starts empty."""
    return f"{source}_{SERVER_RUN}"

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Reading:
    """What the camera says the revealed cards are, and whether the app may act on it alone."""

    #: as the cards lie, left to right (``vision.reader.as_laid``): shown, and put in as the cards revealed, in this
    #: order; compared with other cards whatever their order (:func:`same_cards`)
    ranks: tuple[Rank, ...] = ()
    sure: bool = False  # read from frames where the reader did not abstain
    steady: bool = False  # the same reading won the vote over the last frames
    frames: int = 0  # frames read since the call
    note: str = ""  # why it is not sure, in words
    at: float = 0.0  # time.monotonic() when this reading was made
    seen_before: bool = False  # these very ranks lay in view when the call was made
    #: where there are no ranks because the reader was unsure: its likeliest guess over the last unsure frames, None
    #: for a card it could not read at all; left to right, as ``ranks``
    guess: tuple[Rank | None, ...] = ()


def may_apply(reading: Reading, claimed: int) -> tuple[bool, str]:
    """Whether the app may give the verdict from this reading on its own, and if not, why in words.

    Only a steady reading from frames the reader was sure of, with as many cards as were claimed,
    counts. Anything else (an abstention, a jumpy reading, a count that differs from the claim,
    which may be a lie by count or a card out of view) waits for the table to confirm or correct.
    """
    if not reading.ranks:
        return False, reading.note or "waiting for the cards"
    if not reading.sure:
        return False, reading.note or "the reader is unsure of a card"
    if not reading.steady:
        return False, reading.note or "the reading is not steady yet"
    if len(reading.ranks) != claimed:
        return False, f"{claimed} claimed but {len(reading.ranks)} seen: check the cards and confirm"
    if reading.seen_before:
        return False, "these cards were already in view when Cheat! was called: check them and confirm"
    return True, ""


class CallAction(Enum):
    """What the live camera does with an open call (:func:`call_answer`)."""

    SETTLE = "settle"  # gives the verdict alone
    IMPOSSIBLE = "impossible"  # reads cards the rules refuse: the table enters them by hand
    MISFIT = "misfit"  # reads cards that do not fit what the table saw: offered, for the table to check
    READ = "read"  # reads cards it may not settle the call with alone: offered
    GUESS = "guess"  # unsure: its best guess offered, where it read every card of it
    NOTHING = "nothing"  # has read no card yet


@dataclass(frozen=True)
class CallAnswer:
    """What the live camera does with an open call, and what its line and its button say of it."""

    action: CallAction
    ranks: tuple[Rank, ...] = ()  # the cards it settles the call with, or offers the table; () where none
    why: str = ""  # why it may not settle the call alone, or why its reading cannot be right (IMPOSSIBLE), in words
    why_not: str = ""  # why its button puts no card in, where it offers none
    #: worth saying to a player who cannot see the line: not "nothing yet" while the cards still lie face down
    news: bool = True


def call_answer(reading: Reading, game: Game, caller: str, revealed: tuple[Rank, ...], silent: bool, frames_seen: int,
                live: bool, starting: bool = False) -> CallAnswer:
    """What the live camera does with the call ``caller`` made on ``game``'s last play, from its ``reading``: a referee
    that guesses is worse than none. It settles the call alone only with a reading :func:`may_apply` accepts, that the
    rules accept and that fits what the table saw, and never once the table has started entering the cards
    (``revealed``); anything else is offered to the table, or said why not. ``silent`` and ``frames_seen``: the feed's
    (:meth:`LiveFeed.silent`); ``live``: the browser's camera, which its START button starts; ``starting``: that
    camera is being started and has sent no picture since (:func:`still_starting`)."""
    ok, why = may_apply(reading, game.last_play.count)
    # a camera stopped since its last picture (switched off and on in the sidebar, the browser's camera comes back
    # stopped): "no card found in the picture yet" had the table wait for a camera that was off
    # (a reading left from before it stopped too: "the reading is not steady yet" waited for frames that never came)
    if (not ok and silent) or (not reading.ranks and not frames_seen):
        why = no_picture_why(silent, live, starting)
    if ok and revealed:
        # the table has started entering the cards by hand: it has taken over, the camera only advises
        ok, why = False, "the table is entering the cards"
    if ok:
        return _sure_answer(reading.ranks, game, caller)
    # a camera starting is every reloaded call's first moment, as the cards face down are every call's: no news
    return _offered(reading, why, nothing_is_news=(frames_seen == 0 or silent) and not (live and starting))


def still_starting(began: float | None, last_frame_at: float, now: float) -> bool:
    """Whether the browser's camera is still starting at ``now`` (seconds of ``time.monotonic()``): a start began at
    ``began`` (START pressed, or a reloaded page pressing it by itself; None where none did, or the table has stopped
    the camera since), no picture has come since (``last_frame_at``: :attr:`LiveFeed.last_frame_at`), and the start is
    under :data:`STARTING_FOR` seconds old. A reloaded page's camera sent its first picture 4 s or so after the page
    began: "press START" said meanwhile had players press it, and stop the camera the page had just started."""
    return began is not None and last_frame_at < began and now - began < STARTING_FOR


def stopped(was_on: bool, playing: bool, signalling: bool) -> bool:
    """Whether the browser's camera went off since the page's last run: it was playing, or signalling its start, then
    (``was_on``), and is neither now (``playing``, ``signalling``: streamlit-webrtc's ``WebRtcStreamerContext.state``).
    That is all the server learns of a STOP: the component sends whether it plays and its offer while it signals, and
    nothing of a press. A STOP pressed before the browser made its offer (while it still asks for the camera) reaches
    the server as nothing; a start that failed comes as a STOP does, its START shown again alike."""
    return was_on and not (playing or signalling)


def no_picture_why(silent: bool, live: bool, starting: bool) -> str:
    """Why the camera reads nothing, where it sends no picture: it is still starting (``starting``, the browser's
    camera alone: see :func:`still_starting`), it sent pictures and stopped (``silent``), or it has sent none yet. Only the
    browser's camera (``live``) has a START button to press."""
    if live and starting:
        return "the camera is starting: its picture comes in a moment"
    why = "the camera is sending no picture" if silent else "the camera has sent no picture yet"
    return why + (": press START under it" if live else "")


def _sure_answer(ranks: tuple[Rank, ...], game: Game, caller: str) -> CallAnswer:
    """A reading the camera may act on alone, weighed by the rules and the cards the table saw."""
    try:
        verdict_for(game, caller, ranks)
    except CheatError as error:
        return CallAnswer(CallAction.IMPOSSIBLE, why=str(error),
                          why_not="The camera's reading cannot be right: enter the cards by hand.")
    if seen_conflict(game, game.last_play.player, ranks) is not None:
        # a misreading, or an earlier reveal entered wrong: the table decides
        return CallAnswer(CallAction.MISFIT, ranks)
    return CallAnswer(CallAction.SETTLE, ranks)


def _offered(reading: Reading, why: str, nothing_is_news: bool) -> CallAnswer:
    """A reading the camera may not act on alone (``why``): offered to the table, its best guess where it is unsure."""
    if reading.ranks:
        return CallAnswer(CallAction.READ, reading.ranks, why)
    if reading.guess:  # the reader abstained: its guess is offered to the table, never applied alone
        if None in reading.guess:  # a card it could not read at all: the guess leaves it out, and would be wrong
            return CallAnswer(CallAction.GUESS, (), why, "The camera could not read every card: tap the cards in.")
        return CallAnswer(CallAction.GUESS, reading.guess, why)
    return CallAnswer(CallAction.NOTHING, (), why,
                      "The camera has read no card yet: tap the cards in, or wait for its reading.", nothing_is_news)


def trace(kind: str, **fields: Any) -> None:
    """Timing events for the latency benchmark, appended as JSON lines to $CHEAT_REFEREE_TRACE (off when unset).
    A trace that cannot be written is skipped: a benchmark's aid must never stop the camera."""
    path = os.environ.get("CHEAT_REFEREE_TRACE")
    if not path:
        return
    try:
        with open(path, "a") as out:
            out.write(json.dumps({"kind": kind, "t": time.time(), **fields}) + "\n")
    except OSError:
        pass


class ReaderAdapter:
    """``vision.reader.CardReader`` behind a lock (it is not thread-safe), with its drawing and stabiliser."""

    def __init__(self, module: Any) -> None:
        self.module = module
        folder = os.environ.get("CHEAT_REFEREE_MODELS")  # models kept outside the repository's models/
        if folder:
            models = Path(folder)
            self.reader = module.CardReader(det_model=models / "index-det.onnx", cls_model=models / "index-cls.onnx",
                                            pair_model=models / "index-pair.onnx", gate_model=models / "index-gate.onnx")
        else:
            self.reader = module.CardReader()
        self.lock = threading.Lock()

    def read(self, image_bgr: np.ndarray, video: bool = False) -> Any:
        """The reading of one picture; ``video``: a camera frame, which the reader reads without its wider
        look (one more pass where a photo shows no card index; on video, most frames between reveals)."""
        with self.lock:
            return self.reader.read(image_bgr, video=video)

    def draw(self, image_bgr: np.ndarray, detections: Any) -> np.ndarray:
        """The picture with the reader's boxes and ranks, without suits (``vision.reader.draw``: they do not
        matter in Cheat, and a webcam misreads them more often than ranks)."""
        return self.module.draw(image_bgr, detections, suits=False)

    def stabiliser(self) -> Any:
        return self.module.Stabiliser(window=WINDOW, min_votes=STEADY_FRAMES)


_READER: ReaderAdapter | None = None
_READER_ERROR: str | None = None
_LOAD_LOCK = threading.Lock()


def load_reader() -> ReaderAdapter | None:
    """The card reader, loaded once; None (with :func:`reader_problem` saying why) when unavailable."""
    global _READER, _READER_ERROR
    with _LOAD_LOCK:
        if _READER is None and _READER_ERROR is None:
            if os.environ.get("CHEAT_REFEREE_READER", "on") == "off":
                _READER_ERROR = "switched off by CHEAT_REFEREE_READER=off"
            else:
                try:
                    _READER = ReaderAdapter(importlib.import_module("vision.reader"))
                except Exception as error:  # a missing module or model: the app works by hand without it
                    _READER_ERROR = f"{type(error).__name__}: {error}"
    return _READER


def reader_problem() -> str | None:
    load_reader()
    return _READER_ERROR


def _ranks(values: Sequence[Any]) -> tuple[Rank, ...]:
    return tuple(Rank.parse(getattr(v, "value", v)) for v in values)


def _hand(ranks: Sequence[Rank]) -> tuple[Rank, ...]:
    """Ranks in one order, so that two readings of the same cards compare equal whatever order they came in."""
    return tuple(sorted(ranks, key=lambda r: r.value))


def same_cards(ranks: Sequence[Rank], others: Sequence[Rank]) -> bool:
    """Whether two lists of cards (a reading, the cards revealed) are the same cards, in whatever order: a reading
    lists them as they lie, and the same cards read again, or tapped in, may come in another."""
    return _hand(ranks) == _hand(others)


def _why(detections: Any) -> str:
    """Why the reader abstained, in a few words for the table (the reader's own reasons are longer); its best guess
    is shown apart, where the table can take it."""
    reasons = " ".join(getattr(detections, "reasons", []) or [])
    if not len(detections):
        return "no card found in the picture yet"
    parts = []
    if "count" in reasons or "more than one way" in reasons:
        parts.append("unsure how many cards")
    if "confiden" in reasons:
        parts.append("unsure of a card")
    if not parts:  # the gate's judgement alone (vision.gate): no single card or pairing to point at
        parts.append("unsure of the reading" if "more likely wrong" in reasons else "unsure of a card")
    return ", ".join(parts)


@dataclass
class LiveFeed:
    """Shared between a camera's frame thread and the script: the steady reading of one call since arm().

    The script keeps one per browser session (in session state) so that reruns, which hand
    streamlit-webrtc a new callback, keep the same feed; a server camera keeps one for all sessions.
    """

    lock: threading.Lock = field(default_factory=threading.Lock)
    armed: bool = False
    call: str | None = None  # the call this feed reads (arm's token); None between calls
    generation: int = 0  # moved on by arm() and disarm(): a frame whose reading spans one is not counted
    stabiliser: Any = None
    reading: Reading = field(default_factory=Reading)
    frames_seen: int = 0
    frames_read: int = 0
    last_frame_at: float = 0.0
    read_ms: float = 0.0
    last_detections: Any = None
    problem: str | None = None  # why the last frame could not be read, in words; None once one is read
    face_up: list[tuple[Rank, ...]] = field(default_factory=list)  # hands read sure since the view was last empty
    empty_since: float | None = None  # time.monotonic() of the first of the reads in a row with no card in view
    before: tuple[tuple[Rank, ...], ...] = ()  # the hands face up in view when the call was made
    #: the reader's guesses over the last unsure frames of this call (at most WINDOW), for :func:`_likeliest`
    guesses: list[tuple[Rank | None, ...]] = field(default_factory=list)

    def arm(self, call: Any = None) -> None:
        """Start a fresh reading for ``call`` (a token naming the call: the script arms again for another); a
        feed already reading that call goes on (a second window on the same call must not restart it).

        Every hand read sure since the view was last empty is kept as ``before``: cards already face up in
        view (a four of a kind laid out, an earlier reveal not yet picked up) are not the called cards, and a
        reading of exactly them must not decide the call alone. All of them, not the last reading alone: one
        unsure frame just before the call must not make the old cards new."""
        reader = load_reader()
        with self.lock:
            if self.armed and call is not None and call == self.call:
                return
            self.before = tuple(self.face_up)
            self.armed = True
            self.call = call
            self.generation += 1
            self.stabiliser = reader.stabiliser() if reader is not None else None
            self.reading = Reading()
            self.frames_read = 0
            self.guesses = []
        trace("arm", before=[[r.value for r in hand] for hand in self.before])

    def disarm(self, call: Any = None) -> None:
        """The call is settled or given up: its reading goes with it, so that it can never decide another. With
        ``call``, only if the feed reads that call (another window may have armed it for its own since)."""
        with self.lock:
            if call is not None and call != self.call:
                return
            self.armed = False
            self.call = None
            self.generation += 1
            self.stabiliser = None
            self.reading = Reading()

    def _seen(self, detections: Any) -> None:
        """Remember what lies face up (under the lock). Only a view empty for FORGET_AFTER seconds forgets it:
        a hand passing over the table does not make the old cards new."""
        if len(detections):
            self.empty_since = None
            if not detections.abstain:
                hand = _hand(_ranks(detections.ranks))
                if hand not in self.face_up:
                    self.face_up = (self.face_up + [hand])[-FACE_UP_KEPT:]
            return
        now = time.monotonic()
        if self.empty_since is None:
            self.empty_since = now
        if now - self.empty_since >= FORGET_AFTER:
            self.face_up = []
            self.before = ()  # the view emptied after the call: what turns up now was turned up now

    def _read(self, reader: ReaderAdapter, image_bgr: np.ndarray) -> Any:
        """The reader's detections, or None where the frame cannot be read (``problem`` says why): the frame
        thread must outlive a bad frame, or the camera would stop reading without a word."""
        try:
            detections = reader.read(image_bgr, video=True)
        except Exception as error:  # an ImageError (a frame too small or too narrow), or a bug in the reader
            refused = isinstance(error, reader.module.ImageError)
            problem = str(error) if refused else f"{type(error).__name__}: {error}"
            with self.lock:
                changed, self.problem = problem != self.problem, problem
                if self.armed:
                    self.reading = Reading(frames=self.frames_read, note=f"the camera's picture cannot be read ({problem})",
                                           at=time.monotonic())
            if changed:  # once, not fifteen times a second; the traceback only where the reader failed
                log.warning("a camera frame could not be read: %s", problem, exc_info=not refused)
            return None
        with self.lock:
            self.problem = None
        return detections

    def process(self, image_bgr: np.ndarray) -> np.ndarray:
        """Called for every camera frame: read it while armed, and draw what was read."""
        reader = load_reader()
        with self.lock:
            self.last_frame_at = time.monotonic()  # first: the page reads the two without the lock, and a first
            self.frames_seen += 1  # frame counted with no time yet was said to be no picture at all
            armed = self.armed and self.stabiliser is not None
            count = self.frames_seen
            generation = self.generation
        if reader is None:
            if count % 15 == 1:
                trace("frame", cards=None, frames_seen=count)
            return image_bgr
        if not armed:
            # between calls: read a few frames a second, enough to keep the boxes on the picture
            if count % IDLE_EVERY == 1 or self.last_detections is None:
                detections = self._read(reader, image_bgr)
                if detections is None:
                    return image_bgr
                with self.lock:  # a frame from before an arm() still shows what lay in view before the call
                    self.last_detections = detections
                    self._seen(detections)
                trace("frame", cards=len(detections), idle=True, frames_seen=count)
            return reader.draw(image_bgr, self.last_detections)
        start = time.perf_counter()
        detections = self._read(reader, image_bgr)
        if detections is None:
            return image_bgr
        read_ms = (time.perf_counter() - start) * 1000
        with self.lock:
            self.read_ms = read_ms
            self.last_detections = detections
            if generation == self.generation and self.armed and self.stabiliser is not None:
                self._seen(detections)
                self.frames_read += 1
                steady = self.stabiliser.update(detections)
                ranks = _ranks(steady.laid)
                note, guess = "", ()
                if ranks:
                    self.guesses = []  # read: what was guessed at is read now
                    note = "" if steady.stable else "the reading is not steady yet"
                elif detections.abstain and len(detections):  # the guess apart from the note: the page offers it
                    note = _why(detections)
                    self.guesses = (self.guesses + [_guess(detections)])[-WINDOW:]
                    guess = _likeliest(self.guesses, self.reading.guess)
                else:  # the reader reports no card in view as unsure ("no card index found"), with no guess
                    self.guesses = []  # no card in view: what was guessed at is gone
                    note = "no card found in the picture yet"
                seen_before = bool(ranks) and _hand(ranks) in self.before
                self.reading = Reading(ranks, bool(ranks), bool(steady.stable), self.frames_read, note, time.monotonic(),
                                       seen_before, guess)
            reading = self.reading
        trace("frame", cards=len(detections), read_ms=round(read_ms, 1), abstain=bool(detections.abstain),
              steady=reading.steady, frames_seen=count)
        return reader.draw(image_bgr, detections)

    def current(self) -> Reading:
        with self.lock:
            return self.reading

    def silent(self) -> bool:
        """Whether pictures came and then stopped for SILENT_AFTER seconds: a camera stopped since (the browser's,
        switched off and on in the sidebar, comes back stopped). Read without the lock: see :meth:`process`."""
        return bool(self.frames_seen) and time.monotonic() - self.last_frame_at > SILENT_AFTER


def _guess(detections: Any) -> tuple[Rank | None, ...]:
    """The reader's best guess at the cards of a frame it abstained on: None for a card it could not read at all."""
    return tuple(None if r is None else Rank.parse(getattr(r, "value", r)) for r in detections.rank)


def _likeliest(guesses: list[tuple[Rank | None, ...]], shown: tuple[Rank | None, ...]) -> tuple[Rank | None, ...]:
    """The guess made most often over the last unsure frames; among equals the one ``shown`` already, else the latest.
    The last frame's guess alone jumped between "7" and "K 7" twice a second under one pair of cards, and a tap on the
    camera's button took whichever showed. The same cards count as one guess whatever order the reader lists them in
    (left to right as they lie: two cards nearly one above the other come as "K 7" and "7 K" by turns)."""
    counts = Counter(_cards(guess) for guess in guesses)
    most = max(counts.values())
    if shown and counts[_cards(shown)] == most:
        return shown
    return next(guess for guess in reversed(guesses) if counts[_cards(guess)] == most)


def _cards(guess: tuple[Rank | None, ...]) -> tuple[str, ...]:
    """A guess as the cards it names, in one order ("?" for a card not read at all)."""
    return tuple(sorted("?" if rank is None else rank.value for rank in guess))


def read_still(image_bgr: np.ndarray, told: str = "") -> tuple[Reading, np.ndarray]:
    """One picture (a snapshot or an uploaded photo): its reading, never steady on its own. A picture the
    reader refuses (too small, too narrow) gets its reason as the note, not an error page; ``told``, what its
    decoding said of the file (:func:`decode`), is added to the note."""
    reader = load_reader()
    if reader is None:
        return Reading(note="the card reader is not available: enter the cards by hand"), image_bgr
    try:
        detections = reader.read(image_bgr)
    except reader.module.ImageError as error:
        return Reading(note=f"the picture cannot be read ({error}): enter the cards by hand"), image_bgr
    ranks = _ranks(detections.ranks)
    note = ""
    if not len(detections):
        note = "no cards found in the picture"
    elif detections.abstain:
        note = _why(detections)
    note = "; ".join(said for said in (note, told) if said)
    return Reading(ranks, not detections.abstain and bool(ranks), False, 1, note, time.monotonic()), reader.draw(image_bgr, detections)


def decode(data: bytes) -> tuple[np.ndarray | None, str]:
    """An uploaded or snapped picture, decoded as the reader decodes a file (``vision.reader.decode_picture``:
    upright by its EXIF, and one too large refused by its header before it fills the memory), and what to tell of it
    ("" mostly; an animated GIF is read at its first picture); else None and why not, in words."""
    reader = load_reader()
    if reader is None:
        return None, f"the card reader is not available ({reader_problem()})"
    notes: list[str] = []
    try:
        return reader.module.decode_picture(data, notes), "; ".join(notes)
    except reader.module.ImageError as error:
        return None, str(error)


class ServerCamera:
    """A camera on the machine that runs the server: a USB webcam by number (``0``) or device path
    (``/dev/video2``), a network stream (``http://...``, a phone as a webcam), or a video file (played in a
    loop at its own pace). A thread reads it into a :class:`LiveFeed`, so calls are read exactly as with
    the browser's camera. A camera or stream that stops giving frames is opened again every few seconds."""

    def __init__(self, source: str) -> None:
        self.source = source.strip()
        number = self.source.isascii() and self.source.isdigit()  # "²" is a digit to Python, not to OpenCV
        self.target: int | str = int(self.source) if number else self.source
        self.is_file = not number and not self.source.startswith("/dev/") and "://" not in self.source
        self.capture = self._open()
        self.fps = float(self.capture.get(_cv2().CAP_PROP_FPS) or 0) or 15.0
        self.feed = LiveFeed()
        self.lock = threading.Lock()
        self.latest: np.ndarray | None = None
        self.frames = 0
        self.opened_at = self._tried_at = self._clock = time.monotonic()
        self._position = 0  # the file's frame that the clock has reached
        self._rewound = False  # the file was just rewound, and has given no frame since
        self._last_failure = ""  # the failure last logged, since the last frame
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"server-camera-{self.source}", daemon=True)
        if self.ok:
            _OPEN_CAMERAS.add(self)
            self.thread.start()

    def _open(self) -> Any:
        """The capture; OSError where OpenCV refuses the source itself (a number too large for it)."""
        cv2 = _cv2()
        try:
            return cv2.VideoCapture(self.target)
        except (cv2.error, OverflowError) as error:
            raise OSError(f"cannot open the camera {self.source!r}: {error}") from error

    @property
    def ok(self) -> bool:
        return bool(self.capture.isOpened())

    def silent_for(self) -> float:
        """Seconds since the camera last gave a frame (since it was opened, where it has given none)."""
        last = self.feed.last_frame_at or self.opened_at
        return time.monotonic() - last

    def _run(self) -> None:
        """Read frames until closed. The thread owns the capture and releases it: a read can block for long
        (a stalled stream), and OpenCV's capture must not be released under a read. Nothing a frame or the
        camera does ends the thread (the picture would freeze without a word): failures are logged once."""
        try:
            while not self._stop.is_set():
                try:
                    self._step()
                except Exception as error:  # the feed reports a frame it cannot read; this is anything else
                    self._failed(error)
                    self._stop.wait(0.5)
        finally:
            self.capture.release()

    def _failed(self, error: Exception) -> None:
        """Log a failure once, not at every try (again once a frame has come between)."""
        text = f"{type(error).__name__}: {error}"
        if text != self._last_failure:
            log.warning("the server camera %r failed: %s", self.source, text, exc_info=error)
        self._last_failure = text

    def _read(self) -> tuple[bool, np.ndarray | None]:
        """One frame from the capture; a capture that raises counts as one that gives none."""
        try:
            return self.capture.read()
        except Exception as error:  # a driver's or a stream's failure
            self._failed(error)
            return False, None

    def _reopen(self) -> None:
        """The capture released and opened afresh (unplugged and plugged in again, a stream that dropped, a
        file that cannot rewind); a close() that came meanwhile releases the new one too."""
        self.capture.release()
        self.capture = self._open()
        self._tried_at = time.monotonic()
        if self._stop.is_set():
            self.capture.release()

    def _step(self) -> None:
        """One frame: read it into the feed, keep the picture, and pace a file like a camera."""
        period = 1.0 / min(self.fps, 30.0)
        started = time.monotonic()
        if self.is_file:
            # a file plays in real time like a camera: frames the reader had no time for are skipped
            due = int((started - self._clock) / period)
            while self._position < due and self.capture.grab():
                self._position += 1
        ok, image = self._read()
        self._position += 1
        if not ok:
            if self.is_file and self.frames and not self._rewound:
                # loop the file (opened again where it cannot rewind); once before a frame comes, or it would spin
                if not self.capture.set(_cv2().CAP_PROP_POS_FRAMES, 0):
                    self._reopen()
                self._rewound = True
                self._clock, self._position = time.monotonic(), 0
                return
            if not self.is_file and started - max(self.feed.last_frame_at, self._tried_at) > SILENT_AFTER:
                self._reopen()
            self._stop.wait(0.1)
            return
        self._rewound, self._last_failure = False, ""
        shown = self.feed.process(image)
        with self.lock:
            self.latest = shown
            self.frames += 1
        if self.is_file:  # a file plays at its own frame rate, like a camera
            self._stop.wait(max(0.0, period - (time.monotonic() - started)))

    def frame(self) -> np.ndarray | None:
        """The latest picture, with the reader's boxes drawn on it."""
        with self.lock:
            return None if self.latest is None else self.latest.copy()

    def close(self) -> None:
        """Stop the thread, which releases the camera; one that never started is released here."""
        self._stop.set()
        if self.thread.is_alive():
            self.thread.join(timeout=2)
        elif not self.thread.ident:
            self.capture.release()


def video_link_has_an_address() -> bool:
    """Whether the live camera's video link (WebRTC, through aioice) has an address of this machine to offer the
    browser. aioice leaves 127.0.0.1 out, and browsers link over it only when started to: a machine with no network
    at all (Wi-Fi off, no cable) has none, and there the camera's START came to nothing, silently (seen in Chromium,
    in a network namespace holding only loopback). A network without the internet will do."""
    from aioice import ice

    try:
        return bool(ice.get_host_addresses(use_ipv4=True, use_ipv6=True))
    except Exception:  # a hint only: where the addresses cannot be listed, nothing is said
        return True


#: The server cameras whose threads may still be reading: stopped as Python stops (:func:`_close_open_cameras`).
_OPEN_CAMERAS: WeakSet[ServerCamera] = WeakSet()


@atexit.register
def _close_open_cameras() -> None:
    """Stop every server camera's thread as the server stops. A thread is a daemon (a camera must not hold the
    server up), and one still reading a frame while Python tore itself down aborted the server's exit with
    "terminate called without an active exception" (the reader's onnxruntime sessions in use as they went)."""
    cameras = list(_OPEN_CAMERAS)
    for cam in cameras:  # all told first, then waited for: one stalled stream does not keep the rest reading
        cam._stop.set()
    for cam in cameras:
        cam.close()


def _cv2() -> Any:
    import cv2

    return cv2
