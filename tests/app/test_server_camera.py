"""The camera on the server (a USB webcam, or here a video file in its place), read into the app."""

from __future__ import annotations

import enum
import subprocess
import sys
import threading
import time
import types
from pathlib import Path

import cv2
import pytest
from streamlit.testing.v1 import AppTest

from assistant import Rank
from assistant.events import Call
from tests.e2e.video import scene, table
from ui import camera

from .conftest import click, deal, open_app, refusals, reloaded, restarted, text
from .test_camera import scripted_reader
from .test_flows import stored_state

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def close_server_cameras():
    """The app keeps server cameras in st.cache_resource; clearing it releases them (their threads stop)."""
    yield
    import streamlit as st

    st.cache_resource.clear()
    deadline = time.time() + 5
    while time.time() < deadline and any(t.name.startswith("server-camera-") for t in threading.enumerate()):
        time.sleep(0.1)
    assert not [t.name for t in threading.enumerate() if t.name.startswith("server-camera-")]


@pytest.fixture
def cards_video(tmp_path):
    """A short video: an empty table, then an ace of hearts and a nine of clubs face up."""
    path = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 15, (640, 480))
    empty = table()
    flipped, _ = scene([("A", "heart"), ("9", "club")])
    for _ in range(5):
        writer.write(empty)
    for _ in range(25):
        writer.write(flipped)
    writer.release()
    assert path.stat().st_size > 10_000
    return path


def test_server_camera_reads_a_video_in_a_loop(cards_video):
    cam = camera.ServerCamera(str(cards_video))
    try:
        assert cam.ok and cam.is_file
        deadline = time.time() + 10
        while cam.frames < 40 and time.time() < deadline:  # more frames than the file holds: it loops
            time.sleep(0.1)
        assert cam.frames >= 40
        assert cam.frame().shape == (480, 640, 3)
    finally:
        cam.close()
    assert not cam.thread.is_alive()


def test_a_missing_server_camera_is_reported(db, monkeypatch, tmp_path):
    monkeypatch.setenv("CHEAT_REFEREE_CAMERA", "server")
    monkeypatch.setenv("CHEAT_REFEREE_SERVER_CAMERA", str(tmp_path / "no-such-camera.avi"))
    at = deal(open_app(), "Sam", "Maya")
    assert any("cannot open the camera" in e.value for e in at.error)
    assert "Sam's turn" in text(at)  # the game goes on by hand


def test_a_server_camera_named_as_the_page_comes_back_from_a_server_restart_is_kept(db, monkeypatch, tmp_path):
    """As the other sidebar settings: the box's starting value was written into st.session_state, which outranks the
    value the browser sends with a restarted server's first run, and the camera named as the page came back was lost."""
    monkeypatch.setenv("CHEAT_REFEREE_CAMERA", "server")
    monkeypatch.setenv("CHEAT_REFEREE_SERVER_CAMERA", str(tmp_path / "no-such-camera.avi"))
    at = open_app()
    named = str(tmp_path / "the-camera-named.avi")
    at.text_input(key="server_camera").set_value(named)
    again = restarted(at)
    assert again.text_input(key="server_camera").value == named and again.query_params["server"] == named


def test_a_server_camera_that_appears_later_is_opened_on_the_next_run(db, monkeypatch, tmp_path, cards_video):
    later = tmp_path / "plugged-in-later.avi"
    monkeypatch.setenv("CHEAT_REFEREE_CAMERA", "server")
    monkeypatch.setenv("CHEAT_REFEREE_SERVER_CAMERA", str(later))
    at = deal(open_app(), "Sam", "Maya")
    assert any("cannot open the camera" in e.value for e in at.error)
    later.write_bytes(cards_video.read_bytes())
    at.run()
    assert not any("cannot open the camera" in e.value for e in at.error), "a failure to open is not kept"


def test_a_call_read_from_the_server_camera(db, monkeypatch, cards_video):
    monkeypatch.setenv("CHEAT_REFEREE_CAMERA", "server")
    monkeypatch.setenv("CHEAT_REFEREE_SERVER_CAMERA", str(cards_video))
    at = deal(open_app(), "Sam", "Maya")
    assert "Camera on the server" in text(at)
    deadline = time.time() + 10
    while not at.get("image") and time.time() < deadline:  # the picture shows once the first frame is in
        time.sleep(0.3)
        at.run()
    assert at.get("image"), "the server camera's picture is shown"
    click(at, "play_2")  # Sam: two aces
    click(at, "cheat_Maya")
    if camera.load_reader() is None:
        assert "not installed" in " ".join(i.value for i in at.info)
        pytest.skip(f"the card reader is not available: {camera.reader_problem()}")
    # the reader's own view of the flipped cards decides what the app may do alone
    flipped, _ = scene([("A", "heart"), ("9", "club")])
    detections = camera.load_reader().read(flipped)
    deadline = time.time() + (20 if not detections.abstain else 4)
    while "picks up" not in text(at) and "already in view" not in text(at) and time.time() < deadline:
        time.sleep(0.3)
        at.run()
    page = text(at)
    verdict = stored_state(db).state.game.last_call
    if "already in view" in page:
        # the looping video showed the cards before Cheat! was tapped: the camera only advises, the table confirms
        assert verdict is None
        click(at, "use_reading")
        click(at, "apply_verdict")
        verdict = stored_state(db).state.game.last_call
        assert sorted(r.value for r in verdict.revealed) == sorted(r.value for r in detections.ranks)
    elif detections.abstain or len(detections) != 2:
        # unsure, or a count other than the claim: nothing is applied until the table confirms
        assert verdict is None and ("Camera reads" in page or "Camera is unsure" in page)
        click(at, "reveal_add_A")
        click(at, "reveal_add_9")
        click(at, "apply_verdict")
        verdict = stored_state(db).state.game.last_call
        assert verdict.revealed == (Rank.ACE, Rank.NINE)
    else:
        assert verdict is not None, f"no verdict from a sure reading in 20 s; the page said: {page[-300:]}"
        assert sorted(r.value for r in verdict.revealed) == sorted(r.value for r in detections.ranks)
    assert "picks up 2 cards" in text(at)


class ScriptedCamera:
    """Stands in for a server camera whose reader says whatever the test sets in ``reading``: the app's
    rule for acting on a reading is tested apart from how good the reader is."""

    reading = camera.Reading()

    def __init__(self, source: str) -> None:
        self.ok, self.feed, self.call, self.problem, self.armed, self.frames_seen = True, self, None, None, False, 1

    def arm(self, call=None) -> None:
        self.call, self.armed = call, True

    def disarm(self, call=None) -> None:
        if call is None or call == self.call:
            self.call, self.armed = None, False

    def silent_for(self) -> float:
        return 0.0

    def silent(self) -> bool:
        return False  # a camera that sends its pictures

    def current(self) -> camera.Reading:
        return ScriptedCamera.reading

    def frame(self) -> None:
        return None

    def close(self) -> None:
        pass


@pytest.fixture
def scripted_camera(db, monkeypatch):
    monkeypatch.setenv("CHEAT_REFEREE_CAMERA", "server")
    monkeypatch.setattr(camera, "ServerCamera", ScriptedCamera)
    monkeypatch.setattr(camera, "load_reader", lambda: object())
    monkeypatch.setattr(ScriptedCamera, "reading", camera.Reading())
    return ScriptedCamera


SURE_ACE_NINE = camera.Reading((Rank.ACE, Rank.NINE), sure=True, steady=True, frames=10)


def test_a_sure_steady_reading_gives_the_verdict_alone(db, scripted_camera):
    at = deal(open_app(), "Sam", "Maya")
    click(at, "play_2")  # Sam: two aces
    click(at, "cheat_Maya")
    scripted_camera.reading = SURE_ACE_NINE
    at.run()
    verdict = stored_state(db).state.game.last_call
    assert verdict is not None and verdict.revealed == (Rank.ACE, Rank.NINE)


def test_a_card_tapped_as_the_camera_settles_the_call_is_said_not_recorded(db, scripted_camera):
    """The camera gave the verdict as a player tapped a 2 on the page that still showed the call: the tap was dropped
    without a word, and the table did not know its card had not counted."""
    at = deal(open_app(), "Sam", "Maya")
    click(at, "play_2")
    click(at, "cheat_Maya")
    at.session_state["call"] = None  # what the camera's verdict leaves in this window, before the page is drawn again
    click(at, "reveal_add_2")
    assert any("The call had already ended" in said and "not recorded" in said for said in refusals(at)), refusals(at)
    assert stored_state(db).open_call() is None or stored_state(db).open_call().revealed == ()


def test_once_the_table_enters_cards_by_hand_the_camera_only_advises(db, scripted_camera):
    at = deal(open_app(), "Sam", "Maya")
    click(at, "play_2")
    click(at, "cheat_Maya")
    click(at, "reveal_add_A")  # the table starts tapping the cards in before the camera is sure
    scripted_camera.reading = SURE_ACE_NINE
    at.run()
    at.run()
    assert stored_state(db).state.game.last_call is None, "the camera overrode the table's own entry"
    assert "the table is entering the cards" in text(at)
    click(at, "reveal_add_K")
    click(at, "apply_verdict")
    assert stored_state(db).state.game.last_call.revealed == (Rank.ACE, Rank.KING)


def test_a_sure_reading_that_does_not_fit_the_cards_seen_waits_for_the_table(db, scripted_camera):
    """Maya was seen taking all four aces: a sure reading of an ace and a 9 from Leo's play is a misreading, or
    the table's earlier reveal was wrong. The camera does not decide it alone; the table is told why."""
    at = deal(open_app(), "Sam", "Maya", "Leo")
    click(at, "play_4")
    click(at, "cheat_Maya")
    for _ in range(4):
        click(at, "reveal_add_A")
    click(at, "apply_verdict")  # honest: Maya takes the four aces
    click(at, "play_1")  # Maya
    click(at, "play_2")  # Leo: two 3s
    click(at, "cheat_Sam")
    scripted_camera.reading = SURE_ACE_NINE
    at.run()
    at.run()
    referee = stored_state(db)
    assert referee.state.game.last_call.claim.count == 4 and referee.open_call() is not None, "no verdict from it"
    page = ",".join(text(at).split(" ,"))  # the text of the page's HTML has a space where </b> was
    assert "⚠ Camera reads A 9, which does not fit what the table saw: check the cards, and tap them in." in page
    click(at, "use_reading")  # the table may take it, and is told again why it does not fit
    assert "Revealed: A 9" in text(at) and "Check these cards: they do not fit what the table saw" in text(at), text(at)
    assert stored_state(db).state.game.last_call.claim.count == 4


class FeedCamera:
    """A server camera with the app's real feed and no device: the test hands the feed its frames."""

    made: list["FeedCamera"] = []

    def __init__(self, source: str) -> None:
        self.ok, self.feed = True, camera.LiveFeed()
        FeedCamera.made.append(self)

    def frame(self) -> None:
        return None

    def silent_for(self) -> float:
        return 0.0

    def close(self) -> None:
        pass


def called_beside_a_feed_camera(monkeypatch, frames: list):
    """Sam's two aces called by Maya, the camera on the server a :class:`FeedCamera` whose reader reads ``frames``
    (``scripted_reader``): the page, and the camera's feed, which the test hands its frames."""
    monkeypatch.setenv("CHEAT_REFEREE_CAMERA", "server")
    monkeypatch.setattr(camera, "ServerCamera", FeedCamera)
    monkeypatch.setattr(FeedCamera, "made", [])
    scripted_reader(monkeypatch, frames)
    at = deal(open_app(), "Sam", "Maya")
    click(at, "play_2")  # Sam: two aces
    click(at, "cheat_Maya")
    return at, FeedCamera.made[-1].feed


def _calls(db) -> list[Call]:
    return [e for e in stored_state(db).sitting.log if isinstance(e, Call)]


def test_a_reading_of_one_call_never_decides_a_later_one(db, monkeypatch):
    """The camera read the first call's ace and nine; the second call is made with the camera switched off, and
    the camera switched back on during it: the first call's reading must not decide the second."""
    at, feed = called_beside_a_feed_camera(monkeypatch, [(Rank.ACE, Rank.NINE)] * camera.WINDOW)
    for _ in range(camera.WINDOW):
        feed.process(table())
    at.run()
    assert [sorted(r.value for r in c.revealed) for c in _calls(db)] == [["9", "A"]]
    at.radio(key="camera_source").set_value("none").run()
    game = stored_state(db).state.game
    other = next(p for p in game.players if p != game.turn)
    click(at, "play_2")
    click(at, f"cheat_{other}")
    at.radio(key="camera_source").set_value("server").run()
    at.run()
    assert len(_calls(db)) == 1, "the first call's cards decided the second"
    now = FeedCamera.made[-1].feed  # the camera switched off was closed (name_server_camera), and is opened again
    assert now is not feed and now.armed and now.current().ranks == ()


def test_two_windows_calling_at_once_read_the_first_call_once(db, monkeypatch):
    """Two windows on one sitting and one camera on the server, Maya's call tapped in one and Lee's in the other
    an instant later: Maya called first, so hers is the call in both windows, the second is told, and neither window
    restarts the reading (a reading restarted five times a second would never be steady)."""
    monkeypatch.setenv("CHEAT_REFEREE_CAMERA", "server")
    monkeypatch.setattr(camera, "ServerCamera", FeedCamera)
    monkeypatch.setattr(FeedCamera, "made", [])
    scripted_reader(monkeypatch, [(Rank.ACE, Rank.NINE)] * camera.WINDOW)
    first = deal(open_app(), "Sam", "Maya", "Lee")
    click(first, "play_2")  # Sam: two aces
    second = open_app()
    click(first, "cheat_Maya")
    click(second, "cheat_Lee")  # drawn before Maya's call reached it
    assert any("Maya called Cheat! on this play first" in w for w in refusals(second))
    assert "Maya calls Cheat! on Sam" in text(second)
    feed = FeedCamera.made[-1].feed
    maya = feed.call
    assert maya[2] == "Maya"
    for frames in range(1, camera.WINDOW + 1):
        feed.process(table())
        first.run()
        if _calls(db):
            break
        assert feed.call == maya and feed.current().frames == frames, "the other window restarted the reading"
        second.run()
        if _calls(db):
            break
    assert [(c.caller, sorted(r.value for r in c.revealed)) for c in _calls(db)] == [("Maya", ["9", "A"])]


def fake_webrtc(monkeypatch, state: dict | None = None) -> None:
    """The browser's camera chosen, and a WebRTC component that draws nothing (AppTest cannot run the real one) and
    reports ``state`` (playing, signalling) as the browser's would."""
    state = state if state is not None else {"playing": False, "signalling": False}
    webrtc = types.ModuleType("streamlit_webrtc")
    webrtc.WebRtcMode = enum.Enum("WebRtcMode", "SENDRECV")
    webrtc.webrtc_streamer = lambda **settings: types.SimpleNamespace(state=types.SimpleNamespace(**state))
    monkeypatch.setitem(sys.modules, "streamlit_webrtc", webrtc)
    monkeypatch.setenv("CHEAT_REFEREE_CAMERA", "live")


def test_a_reload_presses_start_again_only_where_the_camera_was_on(db, monkeypatch):
    """A reload ends the browser's camera. Where it was playing, the page's address says so and the reloaded page
    presses START by itself; where the table stopped it, the address forgets it and nothing is pressed."""
    state = {"playing": True, "signalling": False}
    fake_webrtc(monkeypatch, state)
    at = deal(open_app(), "Sam", "Maya")
    assert at.query_params["live"] == "on" and not _presses_start(at)
    state["playing"] = False  # the reload ended it
    again = reloaded(at)
    assert _presses_start(again)
    assert again.query_params["live"] == "on"  # still starting: a second reload would start it too
    again.session_state["_resume_since"] -= 60  # the resume's time is over, the camera never played
    again.run()
    assert "live" not in again.query_params and not _presses_start(again)
    # stopped by the table: the address forgets it, and a reload leaves the camera off
    state["playing"] = True
    playing = reloaded(at)
    state["playing"] = False
    playing.run()
    assert "live" not in playing.query_params and not _presses_start(reloaded(playing))


def called_with_the_browsers_camera(monkeypatch, state: dict) -> AppTest:
    """A page whose browser's camera is as ``state`` says (its ``playing`` and ``signalling``, changed by the test),
    with Maya's call on Sam's play of two open, the reader seeing no card."""
    fake_webrtc(monkeypatch, state)
    scripted_reader(monkeypatch, [()] * 3)
    at = deal(open_app(), "Sam", "Maya")
    click(at, "play_2")
    click(at, "cheat_Maya")
    return at


def test_a_call_reloaded_says_the_camera_is_starting_until_its_picture_comes_not_to_press_start(db, monkeypatch):
    """A reload ends the browser's camera, the page presses START by itself, and its first picture came 4 s or so
    later in Chromium: the call's line said meanwhile "the camera has sent no picture yet: press START under it", and
    players pressed it, stopping the camera just started. It says the camera is starting, from the page's first run,
    until a picture comes; after camera.STARTING_FOR seconds with none, or with the camera stopped by the table, START
    is to be pressed."""
    state = {"playing": True, "signalling": False}
    at = called_with_the_browsers_camera(monkeypatch, state)
    starting = "Camera reads: nothing yet (the camera is starting: its picture comes in a moment)"
    state["playing"] = False  # the reload ended it
    again = reloaded(at)
    assert starting in text(again) and "press START" not in text(again), text(again)
    assert camline_said(again) == "", "every reloaded call begins so: no news to say"
    state["signalling"] = True  # the page pressed START
    again.run()
    assert starting in text(again)
    again.session_state["_feed"].process(table())  # the first picture
    again.run()
    assert "no card found in the picture yet" in text(again) and "starting" not in text(again)
    # no picture in time: START is to be pressed
    state["signalling"] = False
    late = reloaded(at)
    assert starting in text(late)
    late.session_state["_camera_began"] -= camera.STARTING_FOR
    late.run()
    assert "(the camera has sent no picture yet: press START under it)" in text(late)
    # stopped by the table (the first page's camera, which played): at the line's next drawing (the camera's state
    # is read after the line, which the page draws again five times a second)
    at.run()
    at.run()
    assert "(the camera has sent no picture yet: press START under it)" in text(at)
    state["signalling"] = True  # START pressed again by the table
    at.run()
    at.run()
    assert starting in text(at)


def test_a_camera_stopped_by_the_table_as_a_reloaded_page_starts_it_is_said_stopped_at_once(db, monkeypatch):
    """A reloaded page starts the browser's camera by itself, and a player presses STOP before its first picture: the
    call's line went on saying "the camera is starting" until camera.STARTING_FOR was up, and the address that the
    camera was on, so that a reload started again the camera the table had stopped."""
    state = {"playing": True, "signalling": False}
    at = called_with_the_browsers_camera(monkeypatch, state)
    state["playing"] = False  # the reload ended it
    again = reloaded(at)
    state["signalling"] = True  # the page pressed START: the browser's offer came
    again.run()
    assert "the camera is starting: its picture comes in a moment" in text(again)
    state["signalling"] = False  # STOP
    again.run()  # the line is drawn before the camera's state is read (see above)
    again.run()
    assert "(the camera has sent no picture yet: press START under it)" in text(again), text(again)
    assert "live" not in again.query_params and not _presses_start(reloaded(again))


def _presses_start(at) -> bool:
    return any("cr-resume" in h.proto.body for h in at.get("html"))


def test_a_call_reopened_by_a_reload_is_read_by_the_live_camera(db, monkeypatch):
    """A reload during a call opens the call again from the address; the browser's camera must read it, not sit
    idle beside it."""
    fake_webrtc(monkeypatch)
    scripted_reader(monkeypatch, [(Rank.ACE, Rank.NINE)] * camera.WINDOW)
    at = deal(open_app(), "Sam", "Maya")
    click(at, "play_2")
    click(at, "cheat_Maya")
    again = reloaded(at)
    feed = again.session_state["_feed"]
    assert feed.armed and feed.call is not None
    for _ in range(camera.WINDOW):
        feed.process(table())
    again.run()
    assert [sorted(r.value for r in c.revealed) for c in _calls(db)] == [["9", "A"]]


@pytest.mark.parametrize("source", ["99999999999", "²"])
def test_a_camera_number_opencv_cannot_take_is_said_in_words(db, monkeypatch, source):
    """A number too large for OpenCV, or a character Python counts as a digit, is a typo: it gets the message
    of a camera that cannot be opened, not an error page."""
    monkeypatch.setenv("CHEAT_REFEREE_CAMERA", "server")
    monkeypatch.setenv("CHEAT_REFEREE_SERVER_CAMERA", source)
    at = deal(open_app(), "Sam", "Maya")
    assert any("cannot open the camera" in e.value for e in at.error)


class FakeCapture:
    """cv2.VideoCapture's stand-in: ``script`` says what each read gives ("frame", "fail", "block" until ``go``
    is set, or an exception to raise), its last entry repeated; counts opens and reads, and notes a release made
    while a read was under way."""

    script: list = ["fail"]
    opened = 0
    reads = 0
    reading = False
    released_under_a_read = False
    go = threading.Event()

    def __init__(self, target) -> None:
        FakeCapture.opened += 1

    def isOpened(self) -> bool:
        return True

    def get(self, prop) -> float:
        return 0.0

    def read(self):
        step = FakeCapture.script[min(FakeCapture.reads, len(FakeCapture.script) - 1)]
        FakeCapture.reads += 1
        if isinstance(step, Exception):
            raise step
        if step == "block":
            FakeCapture.reading = True
            FakeCapture.go.wait(10)
            FakeCapture.reading = False
        return (True, table()) if step in ("frame", "block") else (False, None)

    def grab(self) -> bool:
        return False

    def set(self, prop, value) -> bool:
        return False  # a source that cannot rewind

    def release(self) -> None:
        FakeCapture.released_under_a_read |= FakeCapture.reading


@pytest.fixture
def fake_capture(monkeypatch):
    monkeypatch.setattr(cv2, "VideoCapture", FakeCapture)
    monkeypatch.setattr(FakeCapture, "opened", 0)
    monkeypatch.setattr(FakeCapture, "reads", 0)
    monkeypatch.setattr(FakeCapture, "reading", False)
    monkeypatch.setattr(FakeCapture, "released_under_a_read", False)
    monkeypatch.setattr(FakeCapture, "go", threading.Event())
    monkeypatch.setattr(camera, "_READER", None)
    monkeypatch.setattr(camera, "_READER_ERROR", "no reader in this test")
    return FakeCapture


def test_a_camera_that_gives_no_frame_is_said_silent_and_opened_again(db, monkeypatch, fake_capture):
    monkeypatch.setattr(fake_capture, "script", ["fail"])
    monkeypatch.setattr(camera, "SILENT_AFTER", 0.3)
    monkeypatch.setenv("CHEAT_REFEREE_CAMERA", "server")
    monkeypatch.setenv("CHEAT_REFEREE_SERVER_CAMERA", "0")
    at = deal(open_app(), "Sam", "Maya")
    time.sleep(1.2)
    at.run()
    assert any("No picture from the camera for" in e.value for e in at.warning), [e.value for e in at.warning]
    assert fake_capture.opened >= 3, "a silent camera is opened again"


def test_a_file_that_cannot_rewind_does_not_spin(fake_capture, monkeypatch):
    """A one-frame source played as a file (a photo's path) fails every read after its frame and cannot be
    rewound: the thread must wait between tries, not take a whole core."""
    monkeypatch.setattr(fake_capture, "script", ["frame", "fail"])
    cam = camera.ServerCamera("table.jpg")
    try:
        time.sleep(1.0)
        reads = fake_capture.reads
    finally:
        cam.close()
    assert cam.frames == 1 and reads < 30, reads
    assert fake_capture.opened == 2, "a file that cannot rewind is opened again to loop it"


def test_a_camera_whose_reads_fail_is_opened_again_and_the_failure_logged_once(fake_capture, monkeypatch, caplog):
    monkeypatch.setattr(fake_capture, "script", [RuntimeError("the driver hiccuped")])
    monkeypatch.setattr(camera, "SILENT_AFTER", 0.3)
    cam = camera.ServerCamera("0")
    try:
        time.sleep(1.2)
    finally:
        cam.close()
    assert fake_capture.opened >= 3
    assert len([r for r in caplog.records if "hiccuped" in r.getMessage()]) == 1


def test_closing_never_releases_the_camera_under_a_read(fake_capture, monkeypatch):
    """A stalled stream can hold a read for long; OpenCV's capture must not be released under it: the frame
    thread releases it when its read returns."""
    monkeypatch.setattr(fake_capture, "script", ["frame", "block"])
    cam = camera.ServerCamera("http://camera.invalid/stream")
    deadline = time.time() + 5
    while not fake_capture.reading and time.time() < deadline:
        time.sleep(0.02)
    cam.close()  # gives up waiting after 2 s
    fake_capture.go.set()
    cam.thread.join(5)
    assert not cam.thread.is_alive() and not fake_capture.released_under_a_read


def test_the_server_camera_outlives_a_failing_read(fake_capture, monkeypatch):
    monkeypatch.setattr(fake_capture, "script", [RuntimeError("the driver hiccuped"), "frame"])
    cam = camera.ServerCamera("0")
    try:
        deadline = time.time() + 5
        while cam.frames < 3 and time.time() < deadline:
            time.sleep(0.05)
        assert cam.frames >= 3 and cam.thread.is_alive()
    finally:
        cam.close()


def test_a_camera_stream_by_its_address_is_read_as_a_camera(cards_video, monkeypatch):
    """A phone or network camera gives an address (http://...): it is read as a camera (not looped as a file),
    here a video served over HTTP on this machine."""
    import functools
    import http.server

    monkeypatch.setattr(camera, "_READER", None)
    monkeypatch.setattr(camera, "_READER_ERROR", "no reader in this test")
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(cards_video.parent)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    cam = camera.ServerCamera(f"http://127.0.0.1:{server.server_address[1]}/{cards_video.name}")
    try:
        assert cam.ok and not cam.is_file
        deadline = time.time() + 10
        while cam.frames < 10 and time.time() < deadline:
            time.sleep(0.1)
        assert cam.frames >= 10 and cam.frame().shape == (480, 640, 3)
    finally:
        cam.close()
        server.shutdown()


def test_a_call_says_when_the_camera_has_sent_no_picture(db, monkeypatch):
    """A camera never started (the browser's START not pressed) or giving nothing: "waiting for the cards" would
    send the table looking at the cards, not at the camera."""
    at, feed = called_beside_a_feed_camera(monkeypatch, [(Rank.ACE, Rank.NINE)])
    assert "Camera reads: nothing yet (the camera has sent no picture yet)" in text(at)
    feed.process(table())
    at.run()
    assert "no picture" not in text(at)


def test_a_call_says_when_the_camera_has_stopped_sending_pictures(db, monkeypatch):
    """The browser's camera switched off and on in the sidebar comes back stopped: the line said "no card found in the
    picture yet", and the table waited for a camera that was off."""
    at, feed = called_beside_a_feed_camera(monkeypatch, [()] * 3)
    feed.process(table())
    at.run()
    assert "no card found in the picture yet" in text(at)
    feed.last_frame_at -= camera.SILENT_AFTER + 1  # no picture since
    at.run()
    assert "Camera reads: nothing yet (the camera is sending no picture)" in text(at)
    assert camline_said(at) == "Camera reads: nothing yet (the camera is sending no picture)", "news to say once"
    feed.process(table())
    at.run()
    assert "no card found in the picture yet" in text(at) and "sending no picture" not in text(at)


def test_a_call_says_when_the_camera_stopped_while_reading_the_cards(db, monkeypatch):
    """The camera stopped with a reading not yet steady (switched off in the sidebar as the cards were turned up):
    the line went on saying "the reading is not steady yet", and the table waited for a camera that was off."""
    at, feed = called_beside_a_feed_camera(monkeypatch, [(Rank.ACE, Rank.NINE)] * 2)
    feed.process(table())
    at.run()
    assert "(the reading is not steady yet)" in text(at)
    feed.last_frame_at -= camera.SILENT_AFTER + 1  # no picture since
    at.run()
    assert "(the camera is sending no picture)" in text(at) and "not steady" not in text(at), text(at)
    assert stored_state(db).state.game.last_call is None, "a reading left by a stopped camera decides nothing"
    feed.process(table())
    at.run()
    assert "sending no picture" not in text(at)


def test_an_unsure_camera_offers_its_best_guess_for_the_table_to_apply_and_applies_nothing(db, monkeypatch):
    """The reader abstained on two queens: "Camera reads: nothing yet" told the table to wait. The page says the camera
    is unsure and what it guesses, offers the guess as the cards tapped in, and only the table's Apply decides."""
    from .test_camera import Unsure

    at, _ = called_beside_a_feed_camera(monkeypatch, [Unsure((Rank.QUEEN, Rank.QUEEN))] * 8)
    click(at, "use_reading")  # there from the call's first moment, so that nothing moves when a reading comes
    assert "The camera has read no card yet" in " ".join(t.value for t in at.toast) and "Revealed: none yet" in text(at)
    for _ in range(camera.WINDOW):
        FeedCamera.made[-1].feed.process(table())
    at.run()
    assert "Camera is unsure (unsure of a card). Best guess: Q Q" in text(at)
    assert _calls(db) == []
    click(at, "use_reading")
    assert stored_state(db).state.game.last_call is None and "Revealed: Q Q" in text(at)
    click(at, "apply_verdict")
    assert stored_state(db).state.game.last_call.revealed == (Rank.QUEEN, Rank.QUEEN)


def test_the_camera_button_puts_in_what_its_line_showed_and_never_a_guess_missing_a_card(db, monkeypatch):
    """The line is drawn five times a second and the button only with the page: the button takes what the line said
    (a newer frame's guess differed). A guess with a card the reader could not read at all left that card out (the
    line said "Q Q" of three cards, and Apply offered a verdict on two): it is shown with a "?" and not put in."""
    from .test_camera import Unsure

    frames = ([Unsure((Rank.QUEEN, Rank.QUEEN))] * 3 + [Unsure((Rank.QUEEN, Rank.EIGHT))]
              + [Unsure((Rank.QUEEN, None, Rank.QUEEN))] * 3)
    at, feed = called_beside_a_feed_camera(monkeypatch, frames)
    for _ in range(3):
        feed.process(table())
    at.run()
    assert "Best guess: Q Q" in text(at)
    feed.process(table())  # a newer frame guesses Q 8, not yet on the line
    click(at, "use_reading")
    assert "Revealed: Q Q" in text(at)
    click(at, "reveal_clear")
    for _ in range(3):
        feed.process(table())
    at.run()
    assert "Best guess: Q ? Q" in text(at)
    click(at, "use_reading")
    assert "The camera could not read every card" in " ".join(t.value for t in at.toast)
    assert "Revealed: none yet" in text(at) and _calls(db) == []


def camline_said(at) -> str | None:
    """What the camera's line gives a screen reader to say (``data-said``); None where there is no line."""
    import html
    import re

    for block in at.markdown:
        found = re.search(r"class='cr-sub cr-camline' data-said='([^']*)'", block.value)
        if found:
            return html.unescape(found.group(1))
    return None


def test_the_camera_line_gives_a_screen_reader_its_news_and_not_the_wait_for_the_cards(db, monkeypatch):
    """A player who cannot see the screen was never told the camera is unsure, or what it guesses (the line is drawn
    five times a second and not said). It is now given to the page's live region (said once it has held a moment), but
    not "no card found in the picture yet", which every call begins with while the cards are still face down."""
    from .test_camera import Unsure

    at, feed = called_beside_a_feed_camera(monkeypatch, [()] * 3 + [Unsure((Rank.QUEEN, Rank.QUEEN))] * camera.WINDOW)
    assert camline_said(at) == "Camera reads: nothing yet (the camera has sent no picture yet)"
    for _ in range(3):
        feed.process(table())
    at.run()
    assert "no card found in the picture yet" in text(at) and camline_said(at) == ""
    for _ in range(camera.WINDOW):
        feed.process(table())
    at.run()
    assert camline_said(at) == "Camera is unsure (unsure of a card). Best guess: Q Q"


def test_a_camera_setting_the_app_does_not_know_is_said_and_the_live_camera_chosen(db, monkeypatch):
    """CHEAT_REFEREE_CAMERA=usb (for "server") fell back to the live camera without a word."""
    monkeypatch.setenv("CHEAT_REFEREE_CAMERA", "usb")
    at = open_app()
    assert not at.exception
    assert any("CHEAT_REFEREE_CAMERA='usb' is none of live, snapshot, upload, server, none" in w.value
               for w in at.sidebar.warning), [w.value for w in at.sidebar.warning]
    assert at.radio(key="camera_source").value == "live"


def test_python_stops_cleanly_while_a_server_camera_reads_a_call(cards_video):
    """The server stopped (Ctrl+C) while its camera's thread was reading a call: the reader's sessions were still in
    use as Python tore itself down, and the server's exit was aborted with "terminate called without an active
    exception" (2 of 3 stops in a browser run). The cameras are stopped first; Python exits with nothing said."""
    if camera.load_reader() is None:
        pytest.skip(f"the card reader is not available: {camera.reader_problem()}")
    script = f"""
import sys, time
sys.path.insert(0, {str(ROOT)!r})
from ui import camera
assert camera.load_reader() is not None, camera.reader_problem()
cam = camera.ServerCamera({str(cards_video)!r})
cam.feed.arm()
deadline = time.time() + 30
while cam.feed.frames_read < 5 and time.time() < deadline:
    time.sleep(0.05)
assert cam.feed.frames_read >= 5, "the camera read no frame"
"""
    for _ in range(3):  # the abort came at some stops, not all
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and not done.stderr.strip(), (done.returncode, done.stderr[-2000:])


def _reading(path: Path) -> bool:
    """Whether a server camera's thread reads the file at ``path``."""
    return any(t.name == f"server-camera-{path}" for t in threading.enumerate())


def test_a_server_camera_named_in_place_of_another_closes_the_first(db, monkeypatch, tmp_path, cards_video):
    """A file's path typed in place of another's: the first file was read on for good beside the new one (the server
    kept both cameras open), through the reader at every frame where a call had been read from it. It is closed once
    the window names another camera, or none, where no other window reads it (the next test)."""
    first, second = tmp_path / "first.avi", tmp_path / "second.avi"
    first.write_bytes(cards_video.read_bytes())
    second.write_bytes(cards_video.read_bytes())
    monkeypatch.setenv("CHEAT_REFEREE_CAMERA", "server")
    monkeypatch.setenv("CHEAT_REFEREE_SERVER_CAMERA", str(first))
    at = deal(open_app(), "Sam", "Maya")
    click(at, "play_2")
    click(at, "cheat_Maya")
    assert _reading(first)
    at.text_input(key="server_camera").set_value(str(second)).run()
    assert not _reading(first) and _reading(second)
    at.radio(key="camera_source").set_value("none").run()
    assert not _reading(first) and not _reading(second)



def test_a_camera_another_window_reads_is_left_open_when_one_window_names_another(db, monkeypatch, tmp_path,
                                                                                   cards_video):
    """Two windows read the same camera on the server, and one names another (or turns to another source): the camera
    was closed under the other window, which lost what it had read of its call and opened the camera again (a device
    let go and taken again, a file played from its start). It stays open while another window names it, and closes
    once none does."""
    first, second = tmp_path / "first.avi", tmp_path / "second.avi"
    first.write_bytes(cards_video.read_bytes())
    second.write_bytes(cards_video.read_bytes())
    monkeypatch.setenv("CHEAT_REFEREE_CAMERA", "server")
    monkeypatch.setenv("CHEAT_REFEREE_SERVER_CAMERA", str(first))
    at = deal(open_app(), "Sam", "Maya")
    beside = open_app()  # another window on the first camera
    reading = [t for t in threading.enumerate() if t.name == f"server-camera-{first}"]
    at.text_input(key="server_camera").set_value(str(second)).run()
    assert _reading(first) and _reading(second), "the first camera, which the other window reads, is left open"
    beside.run()
    assert [t for t in threading.enumerate() if t.name == f"server-camera-{first}"] == reading, "not opened again"
    beside.radio(key="camera_source").set_value("none").run()
    assert not _reading(first) and _reading(second), "closed once no window names it"
