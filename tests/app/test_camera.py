"""The camera glue (ui/camera.py): the live feed's steady reading and still pictures, on rendered cards."""

from __future__ import annotations

import io

import time

import numpy as np
import pytest

from assistant import Rank
from tests.e2e.video import scene, table
from ui import camera


def read_alone(reading: camera.Reading) -> bool:
    """The reading itself is one the app could act on (sure, steady, with ranks); ``camera.may_apply`` then also
    weighs the claim and whether the cards lay in view before the call."""
    return reading.sure and reading.steady and bool(reading.ranks)


@pytest.fixture
def fresh_reader(monkeypatch):
    """Forget any reader loaded by an earlier test, so each test loads (or refuses) its own."""
    monkeypatch.setattr(camera, "_READER", None)
    monkeypatch.setattr(camera, "_READER_ERROR", None)


def test_without_a_reader_frames_pass_through_and_nothing_is_read(fresh_reader, monkeypatch):
    monkeypatch.setenv("CHEAT_REFEREE_READER", "off")
    assert camera.load_reader() is None
    assert "switched off" in camera.reader_problem()
    feed = camera.LiveFeed()
    feed.arm()
    frame = table()
    out = feed.process(frame)
    assert out is frame
    assert feed.frames_seen == 1
    assert feed.current() == camera.Reading()
    reading, picture = camera.read_still(frame)
    assert reading.ranks == () and not read_alone(reading) and "by hand" in reading.note


def test_trace_writes_json_lines_only_when_asked(tmp_path, monkeypatch):
    path = tmp_path / "trace.jsonl"
    monkeypatch.delenv("CHEAT_REFEREE_TRACE", raising=False)
    camera.trace("arm")
    assert not path.exists()
    monkeypatch.setenv("CHEAT_REFEREE_TRACE", str(path))
    camera.trace("arm")
    camera.trace("frame", cards=2)
    lines = path.read_text().splitlines()
    assert len(lines) == 2 and '"cards": 2' in lines[1]


def test_decode_refuses_what_is_not_a_picture_and_says_why():
    _reader_or_skip()
    assert camera.decode(b"not a picture") == (None, "not a readable image (corrupt or unsupported format, 13 bytes)")
    import cv2

    ok, data = cv2.imencode(".png", table())
    image, why = camera.decode(data.tobytes())
    assert image.shape == (480, 640, 3) and why == ""


def test_an_animated_gif_uploaded_is_read_at_its_first_picture_and_the_reading_says_so():
    """The photo flow tells the table that only the first of an animated GIF's pictures was read."""
    from PIL import Image

    _reader_or_skip()
    frames = [Image.fromarray(table()[:, :, ::-1]), Image.fromarray(np.zeros((480, 640, 3), np.uint8))]
    buffer = io.BytesIO()
    frames[0].save(buffer, "GIF", save_all=True, append_images=frames[1:])
    image, said = camera.decode(buffer.getvalue())
    assert image.shape == (480, 640, 3) and said == "an animated GIF: only its first picture is read"
    reading, _ = camera.read_still(image, said)
    assert reading.note.endswith("an animated GIF: only its first picture is read"), reading.note


def test_decode_refuses_a_picture_too_large_by_its_header_before_decoding_it():
    """A 388 KB PNG of 20000 x 20000 pixels took 2.4 GB to decode: an upload is refused by the size it says."""
    from PIL import Image

    _reader_or_skip()
    buffer = io.BytesIO()
    Image.new("1", (20000, 12000)).save(buffer, "PNG")  # 240 million pixels, in a file of about 100 KB
    image, why = camera.decode(buffer.getvalue())
    assert image is None and why.startswith("too large to read (240,000,000 pixels; at most 200 million"), why


def _reader_or_skip():
    reader = camera.load_reader()
    if reader is None:
        pytest.skip(f"the card reader is not available: {camera.reader_problem()}")
    return reader


def test_live_feed_reads_flipped_cards_until_steady(fresh_reader, monkeypatch):
    """The feed's reading is the reader's own, made steady over frames; an abstention is never actionable."""
    monkeypatch.delenv("CHEAT_REFEREE_READER", raising=False)
    reader = _reader_or_skip()
    cards, _ = scene([("A", "heart"), ("9", "club")])
    detections = reader.read(cards)
    feed = camera.LiveFeed()
    feed.process(table())  # between calls: read now and then, nothing armed
    assert feed.current() == camera.Reading()
    feed.arm()
    for _ in range(camera.STEADY_FRAMES - 1):
        out = feed.process(cards)
        assert not feed.current().steady
    for _ in range(camera.WINDOW):
        out = feed.process(cards)
    reading = feed.current()
    assert isinstance(out, np.ndarray) and out.shape == cards.shape and not np.array_equal(out, cards)  # boxes drawn
    if detections.abstain:
        assert not read_alone(reading) and reading.ranks == ()
        # the note says why in the table's words: nothing found (cards drawn without the AisleRiot art
        # can look like that to the reader), or a card or the count it is unsure of
        if len(detections):
            assert reading.note.startswith("unsure")
        else:
            assert reading.note == "no card found in the picture yet"
    else:
        assert reading.steady and reading.sure and read_alone(reading)
        assert sorted(r.value for r in reading.ranks) == sorted(r.value for r in detections.ranks)
    feed.arm()  # a new call starts from nothing
    assert feed.current() == camera.Reading()


def test_a_still_picture_is_never_steady_on_its_own(fresh_reader, monkeypatch):
    monkeypatch.delenv("CHEAT_REFEREE_READER", raising=False)
    _reader_or_skip()
    cards, _ = scene([("K", "spade"), ("K", "heart"), ("3", "diamond")])
    reading, picture = camera.read_still(cards)
    assert not reading.steady and not read_alone(reading)
    assert picture.shape == cards.shape
    detections = camera.load_reader().read(cards)
    assert reading.sure == (not detections.abstain and len(detections) > 0)
    assert sorted(r.value for r in reading.ranks) == sorted(r.value for r in detections.ranks)


def test_only_a_sure_steady_reading_of_the_claimed_count_is_applied_alone():
    ace_nine = (Rank.ACE, Rank.NINE)
    good = camera.Reading(ace_nine, sure=True, steady=True, frames=4)
    assert camera.may_apply(good, 2) == (True, "")
    # a count that differs from the claim may be a lie by count or a card out of view: the table confirms
    ok, why = camera.may_apply(good, 3)
    assert not ok and "3 claimed but 2 seen" in why
    assert camera.may_apply(camera.Reading(ace_nine, sure=False, steady=True, note="a card is unclear"), 2) == (False, "a card is unclear")
    assert not camera.may_apply(camera.Reading(ace_nine, sure=True, steady=False), 2)[0]
    assert camera.may_apply(camera.Reading(), 2) == (False, "waiting for the cards")


def test_camera_frames_are_read_as_video_and_still_pictures_as_photos(monkeypatch):
    """The reader's wider look (one more pass where a picture shows no index) is for photos: the live feed
    asks for video readings, armed or idle, and a snapshot or an upload for a photo's."""
    from types import SimpleNamespace

    from vision.reader import Detections, Stabiliser

    asked: list[bool] = []

    class Reader:
        def read(self, image, video=False):
            asked.append(video)
            out = Detections.empty("card", (image.shape[1], image.shape[0]))
            out.abstain, out.reasons = True, ["no card index found"]
            return out

    module = SimpleNamespace(CardReader=Reader, draw=lambda image, detections, suits=True: image, Stabiliser=Stabiliser)
    monkeypatch.setattr(camera, "_READER", camera.ReaderAdapter(module))
    feed = camera.LiveFeed()
    feed.process(table())  # idle: between calls
    feed.arm()
    feed.process(table())  # armed: a call is being decided
    assert asked == [True, True]
    camera.read_still(table())
    assert asked == [True, True, False]


class Unsure(tuple):
    """A frame the scripted reader reads as these ranks, and abstains on."""


def scripted_reader(monkeypatch, ranks_per_frame: list):
    """A reader that reads the given ranks, one entry per frame it is asked about: sure, unsure (:class:`Unsure`),
    or an exception that it raises."""
    from types import SimpleNamespace

    from vision.reader import Detections, ImageError, Stabiliser

    frames = iter(ranks_per_frame)

    class Reader:
        def read(self, image, video=False):
            ranks = next(frames)
            if isinstance(ranks, Exception):
                raise ranks
            n = len(ranks)
            return Detections("card", np.array([[10 * k, 0, 10 * k + 8, 8] for k in range(n)], np.float32).reshape(n, 4),
                              np.ones(n, np.float32), list(ranks), [None] * n, np.zeros((n, len(Rank)), np.float32),
                              np.arange(n), abstain=isinstance(ranks, Unsure), image_size=(640, 480))

    module = SimpleNamespace(CardReader=Reader, draw=lambda image, detections, suits=True: image, Stabiliser=Stabiliser,
                             ImageError=ImageError)
    monkeypatch.setattr(camera, "_READER", camera.ReaderAdapter(module))


def readings_of(monkeypatch, frames: list) -> tuple[camera.LiveFeed, list[camera.Reading]]:
    """A feed armed for a call and handed one frame for each of ``frames`` (what the scripted reader reads there): the
    feed, and its reading after each frame."""
    scripted_reader(monkeypatch, frames)
    feed = camera.LiveFeed()
    feed.arm("call 1")
    readings = []
    for _ in frames:
        feed.process(table())
        readings.append(feed.current())
    return feed, readings


def guessed(monkeypatch, frames: list) -> tuple[camera.LiveFeed, list]:
    """As :func:`readings_of`: the feed, and the best guess its reading offered after each frame."""
    feed, readings = readings_of(monkeypatch, frames)
    return feed, [reading.guess for reading in readings]


def test_an_unsure_camera_guesses_what_it_guessed_most_not_what_the_last_frame_showed(monkeypatch):
    """Under a king and a 7 the reader, unsure, guessed "7" and "K 7" by turns: the line's best guess jumped twice a
    second, and a tap on the camera's button took whichever showed. The guess of most of the last frames stays."""
    seven, king_seven = Unsure((Rank.SEVEN,)), Unsure((Rank.KING, Rank.SEVEN))
    frames = [king_seven, seven, king_seven, seven, king_seven, seven, (), seven, king_seven, seven]
    _, guesses = guessed(monkeypatch, frames)
    k7, s7 = (Rank.KING, Rank.SEVEN), (Rank.SEVEN,)
    assert guesses[:6] == [k7] * 6, "the guess made most stays, and so does the one shown among equals"
    assert guesses[6] == () and guesses[7:] == [s7, s7, s7], "an empty view forgets the guesses of the cards before"


def test_cards_already_face_up_when_cheat_is_called_do_not_decide_the_call_alone(monkeypatch):
    """A four of a kind laid out, or a reveal not yet picked up, lies face up in view: read again after the call,
    it is not the called cards, and the table confirms instead of the camera deciding."""
    ace_nine = (Rank.ACE, Rank.NINE)
    monkeypatch.setattr(camera, "FORGET_AFTER", 0.05)
    scripted_reader(monkeypatch, [ace_nine] + [ace_nine] * camera.WINDOW + [(), ()] + [ace_nine] * camera.WINDOW
                    + [ace_nine] + [(), ()] + [ace_nine] * camera.WINDOW)

    def view_empties() -> None:  # for longer than FORGET_AFTER: the cards were picked up, no hand passed over
        feed.process(table())
        time.sleep(0.06)
        feed.process(table())

    feed = camera.LiveFeed()
    feed.process(table())  # between calls: the ace and the nine are already face up
    feed.arm()
    for _ in range(camera.WINDOW):
        feed.process(table())
    reading = feed.current()
    assert read_alone(reading) and reading.seen_before
    ok, why = camera.may_apply(reading, 2)
    assert not ok and "already in view when Cheat! was called" in why
    view_empties()
    feed.arm()  # the next call, made on an empty view: the same cards turned up now are the called ones
    for _ in range(camera.WINDOW):
        feed.process(table())
    assert camera.may_apply(feed.current(), 2) == (True, "")
    feed.arm()  # cards in view at the call, then picked up, then the called cards turned up: those decide
    feed.process(table())
    view_empties()
    for _ in range(camera.WINDOW):
        feed.process(table())
    assert camera.may_apply(feed.current(), 2) == (True, "")


def test_cards_face_up_stay_known_through_an_unsure_frame_or_a_hand_passing_over_them(monkeypatch):
    """The old cards must not turn new because the last frame read before the call was unsure, nor because a few
    frames after it saw no card (a hand reaching over the table: after a call every frame is read)."""
    ace_nine = (Rank.ACE, Rank.NINE)
    hand_over = [()] * (camera.STEADY_FRAMES + 2)
    scripted_reader(monkeypatch, [ace_nine, Unsure((Rank.ACE,))] + hand_over + [ace_nine] * camera.WINDOW)
    feed = camera.LiveFeed()
    for _ in range(camera.IDLE_EVERY + 1):  # between calls one frame in IDLE_EVERY is read: two readings
        feed.process(table())
    feed.arm()
    for _ in hand_over:
        feed.process(table())
    for _ in range(camera.WINDOW):
        feed.process(table())
    reading = feed.current()
    assert read_alone(reading) and reading.seen_before, reading


def test_a_reading_belongs_to_its_call(monkeypatch):
    """A call settled or given up takes its reading with it, and a frame read while the call changed is not
    counted in the new one: a steady reading of one call must never decide another."""
    ace_nine = (Rank.ACE, Rank.NINE)
    scripted_reader(monkeypatch, [ace_nine] * (camera.WINDOW + 2))
    feed = camera.LiveFeed()
    feed.arm("call 1")
    for _ in range(camera.WINDOW):
        feed.process(table())
    assert read_alone(feed.current()) and feed.call == "call 1"
    feed.disarm()
    assert feed.current() == camera.Reading() and feed.call is None
    feed.arm("call 2")
    reader = camera.load_reader()
    read = reader.read

    def read_across_a_new_call(image, video=False):
        detections = read(image, video)
        feed.arm("call 3")  # the call changes while this frame is being read
        return detections

    reader.read = read_across_a_new_call
    feed.process(table())
    reader.read = read
    assert feed.current().frames == 0 and feed.call == "call 3"


def test_a_feed_armed_again_for_the_call_it_reads_goes_on_reading_it(monkeypatch):
    """A second window on the same call (or the same window's tap again) must not restart the reading, nor take
    the called cards, turned up since, for cards that lay in view before the call."""
    ace_nine = (Rank.ACE, Rank.NINE)
    scripted_reader(monkeypatch, [ace_nine] * camera.WINDOW)
    feed = camera.LiveFeed()
    feed.arm(("sitting", 4, "Maya"))
    for _ in range(camera.WINDOW - 1):
        feed.process(table())
    feed.arm(("sitting", 4, "Maya"))
    feed.process(table())
    reading = feed.current()
    assert reading.frames == camera.WINDOW and not reading.seen_before
    assert camera.may_apply(reading, 2) == (True, "")


def test_a_frame_the_reader_cannot_read_is_said_and_the_next_is_read(monkeypatch):
    """A frame the reader refuses (too narrow) or fails on must not stop the camera's thread: the reading says
    why, the picture passes through undrawn, and the next frame is read as usual."""
    from vision.reader import ImageError

    ace = (Rank.ACE,)
    scripted_reader(monkeypatch, [ImageError("image too narrow: 640x24"), RuntimeError("out of memory")]
                    + [ace] * camera.WINDOW)
    feed = camera.LiveFeed()
    feed.arm("a call")
    frame = table()
    assert feed.process(frame) is frame
    assert feed.problem == "image too narrow: 640x24"
    assert "the camera's picture cannot be read (image too narrow" in feed.current().note
    feed.process(frame)
    assert feed.problem == "RuntimeError: out of memory"
    for _ in range(camera.WINDOW):
        feed.process(frame)
    assert feed.problem is None and feed.current().ranks == ace


def test_a_trace_that_cannot_be_written_does_not_stop_the_camera(tmp_path, monkeypatch):
    monkeypatch.setenv("CHEAT_REFEREE_TRACE", str(tmp_path / "no-such-folder" / "trace.jsonl"))
    camera.trace("frame", cards=1)  # no error


def test_a_still_picture_the_reader_refuses_is_said_in_words(monkeypatch):
    monkeypatch.delenv("CHEAT_REFEREE_READER", raising=False)
    _reader_or_skip()
    reading, picture = camera.read_still(np.zeros((4, 400, 3), np.uint8))
    assert reading.ranks == () and reading.note.startswith("the picture cannot be read (image too small")


def test_the_table_hears_each_reason_to_abstain_in_a_few_words():
    """The reader's reasons are long; the table sees the gist. A pairing the picture doubts, or one that could
    go two ways, is a count in doubt; an unsure rank is a card in doubt; the gate's judgement alone, the reading."""
    from vision.reader import Detections

    def abstaining(*reasons: str) -> Detections:
        return Detections("card", np.array([[0, 0, 10, 10]], np.float32), np.ones(1, np.float32), [Rank.ACE], [None],
                          np.ones((1, len(Rank)), np.float32), np.zeros(1, np.int64), abstain=True, reasons=list(reasons))

    doubted = abstaining("two corners paired as one card look like two cards in the picture (count uncertain)")
    assert camera._why(doubted) == "unsure how many cards"
    two_ways = abstaining("indices could pair into cards in more than one way (count or ranks uncertain)")
    assert camera._why(two_ways).startswith("unsure how many cards")
    assert camera._why(abstaining("the card at the top left is not read confidently (A, its rank 55% sure)")).startswith(
        "unsure of a card")
    gate_only = abstaining("the reading is more likely wrong than right (31% likely right)")
    assert camera._why(gate_only) == "unsure of the reading"
    gate_and_rank = abstaining("the reading is more likely wrong than right (31% likely right)",
                               "the card at the top left is not read confidently (A, its rank 55% sure)")
    assert camera._why(gate_and_rank).startswith("unsure of a card")



@pytest.mark.parametrize("addresses, has", [([], False), (["192.168.1.20"], True), (["127.0.0.1"], True)])
def test_the_live_cameras_link_has_an_address_only_where_its_library_offers_one(monkeypatch, addresses, has):
    """With Wi-Fi off and no cable, aioice offers the browser no address (it leaves 127.0.0.1 out): the page then says
    why the live camera cannot link (the browser check: tests/e2e, "offline")."""
    from aioice import ice

    monkeypatch.setattr(ice, "get_host_addresses", lambda use_ipv4=True, use_ipv6=True: list(addresses))
    assert camera.video_link_has_an_address() is has


def test_a_view_emptied_after_an_unsure_guess_forgets_it_as_the_reader_reports_an_empty_view(monkeypatch):
    """The reader reports a view with no card as unsure ("no card index found"), not as a sure reading of nothing:
    the cards picked up after an unsure "7", the line still guessed 7 beside "no card found in the picture yet"."""
    seven, empty = Unsure((Rank.SEVEN,)), Unsure(())  # the reader's empty view abstains (vision.reader merge)
    frames = [seven] * 5 + [empty, seven]
    feed, guesses = guessed(monkeypatch, frames)
    assert guesses[4] == (Rank.SEVEN,)
    assert guesses[5] == (), "no card in view: no guess at the cards picked up"
    assert feed.current().note == "unsure of a card" and guesses[6] == (Rank.SEVEN,), "the guesses start again"


def test_an_unsure_guess_is_counted_whatever_order_the_reader_lists_the_cards_in(monkeypatch):
    """The reader lists cards top to bottom: a king and a 7 side by side came as "K 7" and "7 K" by turns, and the
    vote split between them, so that a "7" guessed as often as both together showed."""
    k7, seven_k, seven = Unsure((Rank.KING, Rank.SEVEN)), Unsure((Rank.SEVEN, Rank.KING)), Unsure((Rank.SEVEN,))
    frames = [k7, seven, seven_k, seven, k7, seven_k]
    _, guesses = guessed(monkeypatch, frames)
    assert guesses == [(Rank.KING, Rank.SEVEN)] * 6, "the same two cards, in the order shown first"


def test_the_live_reading_lists_the_cards_as_they_lie_and_counts_them_swapped_as_the_same_reading(monkeypatch):
    """The camera's line listed a king lying left of a 7 as "7 K" (in rank order), and a player reading the table left
    to right counted again. The reader's order is kept; two cards that swap places between frames (one nearly above
    the other) are still one reading, which steadies, shown as the latest frame lists them."""
    king_seven, seven_king = (Rank.KING, Rank.SEVEN), (Rank.SEVEN, Rank.KING)
    frames = [king_seven, seven_king, king_seven, seven_king]
    _, readings = readings_of(monkeypatch, frames)
    assert readings[2].steady and readings[2].ranks == king_seven
    assert readings[3].steady and readings[3].ranks == seven_king


@pytest.mark.parametrize("was_on, playing, signalling, stopped", [
    (True, False, False, True),  # STOP pressed while it signalled its start (or played), or the start failed
    (False, False, False, False),  # off, or not started yet: a reloaded page has not pressed START
    (False, False, True, False),  # START pressed
    (True, False, True, False),  # still starting
    (True, True, False, False),  # playing
], ids=["stopped", "still off", "started", "starting", "playing"])
def test_the_browsers_camera_is_stopped_when_it_was_on_and_is_neither_playing_nor_signalling(was_on, playing,
                                                                                            signalling, stopped):
    """All the server learns of a STOP: the camera signalled or played at the last run, and does neither now."""
    assert camera.stopped(was_on, playing, signalling) is stopped
