"""The camera on the server (a USB webcam, or here a video file in its place), read into the app."""

from __future__ import annotations

import threading
import time

import cv2
import pytest

from assistant import Rank
from tests.e2e.video import scene, table
from ui import camera

from .conftest import click, deal, open_app, text
from .test_flows import stored_state


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
        assert verdict is None and "Camera reads" in page
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
        self.ok, self.feed = True, self

    def arm(self) -> None:
        pass

    def disarm(self) -> None:
        pass

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
