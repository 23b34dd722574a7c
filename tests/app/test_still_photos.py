"""The fallbacks to the live camera: a snapshot from the browser's camera and a photo upload, read by the
real shipped reader. What the page shows is checked against the reader's own reading of the same picture,
so these tests protect the wiring (picture in, reading shown, the table confirms), not the accuracy."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from assistant import Rank
from assistant.storage import SqliteStore
from ui import camera

from .conftest import click, deal, errors, open_app, text
from .test_flows import stored_state

DATA = Path(__file__).resolve().parents[1] / "vision" / "data"


@pytest.fixture
def photo() -> tuple[bytes, camera.Reading]:
    """A JPEG of a rendered scene with cards that the reader reads (a golden case), and its reading."""
    if camera.load_reader() is None:
        pytest.skip(f"the card reader is not available: {camera.reader_problem()}")
    cases = json.loads((DATA / "cases.json").read_text())
    case = next(c for c in cases if c.get("golden"))
    image = cv2.imread(str(DATA / case["image"]))
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert ok
    reading, _ = camera.read_still(camera.decode(jpeg.tobytes())[0])
    assert reading.ranks, "the golden picture has cards the reader reads"
    return jpeg.tobytes(), reading


def called(db, monkeypatch, source: str, count: int):
    """A game where Sam claimed ``count`` aces and Maya called, the camera source being ``source``."""
    monkeypatch.setenv("CHEAT_REFEREE_CAMERA", source)
    at = deal(open_app(), "Sam", "Maya")
    click(at, f"play_{count}")
    click(at, "cheat_Maya")
    return at


def uploader(at):
    """The call's photo uploader (its key is new with each run of the server)."""
    return at.file_uploader(key=camera.photo_key("upload"))


def give(at, source: str, name: str, data: bytes) -> None:
    """The photo ``data`` handed to the app as ``source`` takes it: uploaded, or snapped."""
    if source == "upload":
        uploader(at).upload(name, data, "image/jpeg").run()
    else:
        at.camera_input(key=camera.photo_key("snapshot")).upload(name, data).run()
    assert not at.exception, at.exception


@pytest.mark.parametrize("source", ["upload", "snapshot"])
def test_a_sure_photo_of_the_claimed_count_is_put_in_and_applied_only_when_the_table_confirms(db, monkeypatch, photo,
                                                                                             source):
    """A sure reading of as many cards as claimed goes in as the cards revealed: Apply, one tap, gives the verdict
    (it took two, "Use this reading" and Apply). Nothing is applied until the table taps it."""
    jpeg, reading = photo
    assert reading.sure, "the golden picture is read without doubt"
    at = called(db, monkeypatch, source, len(reading.ranks))
    give(at, source, "flip.jpg", jpeg)
    seen = " ".join(r.value for r in reading.ranks)
    assert f"Camera reads: {seen}" in text(at).replace("*", "") and f"Revealed: {seen}" in text(at)
    assert "These are the cards revealed below: check them, then apply the verdict." in text(at)
    assert at.get("image"), "the picture is shown with what the reader saw"
    assert not any(b.key == "use_still" for b in at.button), "nothing left to offer: the reading is in"
    assert stored_state(db).state.game.last_call is None, "a single picture is never applied on its own"
    stored = SqliteStore(db).open_call(1)
    assert stored is not None and stored.revealed == reading.ranks, "the cards put in are kept, as a tap's are"
    click(at, "apply_verdict")
    verdict = stored_state(db).state.game.last_call
    assert verdict is not None and verdict.revealed == reading.ranks
    liar = any(r is not Rank.ACE for r in reading.ranks)
    assert ("Lie: Sam picks up" if liar else "Honest: Maya picks up") in text(at)


def test_a_photo_of_another_count_than_claimed_is_offered_not_put_in(db, monkeypatch, photo):
    """One card more claimed than the photo shows: a lie by count, or a card out of view. The table looks; the
    reading waits on its button."""
    jpeg, reading = photo
    at = called(db, monkeypatch, "upload", len(reading.ranks) + 1)
    give(at, "upload", "flip.jpg", jpeg)
    assert "Revealed: none yet" in text(at)
    assert f"{len(reading.ranks) + 1} claimed but {len(reading.ranks)} seen: check the cards" in text(at)
    click(at, "use_still")
    assert f"Revealed: {' '.join(r.value for r in reading.ranks)}" in text(at)
    assert stored_state(db).state.game.last_call is None


def test_a_photo_lists_the_cards_as_they_lie_left_to_right(db, monkeypatch):
    """A player checks the screen against the table left to right. A 3 lying left of a 5 and higher, turned half round,
    lies right of the 5 and still higher: it was shown "3 5" both ways (top to bottom), and the table counted again."""
    if camera.load_reader() is None:
        pytest.skip(f"the card reader is not available: {camera.reader_problem()}")
    three_five = cv2.imread(str(DATA / "synth_21.jpg"))
    ok, turned = cv2.imencode(".jpg", cv2.rotate(three_five, cv2.ROTATE_180), [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert ok
    assert camera.read_still(three_five)[0].ranks == (Rank.THREE, Rank.FIVE)
    at = called(db, monkeypatch, "upload", 2)
    give(at, "upload", "turned.jpg", turned.tobytes())
    assert "Camera reads: 5 3" in text(at).replace("*", "") and "Revealed: 5 3" in text(at)
    assert SqliteStore(db).open_call(1).revealed == (Rank.FIVE, Rank.THREE), "put in as they lie"


def test_a_photo_of_the_cards_tapped_in_lying_in_another_order_offers_nothing_more(db, monkeypatch):
    """The table tapped in a king and a 7; the photo reads them as they lie, 7 then K. They are the cards revealed
    already: no button offers to put them in again, in the photo's order, over the table's."""
    read_as(monkeypatch, {64: camera.Reading(ranks=(Rank.SEVEN, Rank.KING), sure=True)})
    at = called(db, monkeypatch, "upload", 2)
    click(at, "reveal_add_K")
    click(at, "reveal_add_7")
    give(at, "upload", "flip.png", plain(64))
    assert "Camera reads: **7 K**" in text(at) and "Revealed: K 7" in text(at)
    assert "These are the cards revealed below: check them, then apply the verdict." in text(at)
    assert not any(b.key == "use_still" for b in at.button)
    assert SqliteStore(db).open_call(1).revealed == (Rank.KING, Rank.SEVEN), "the table's cards, in its order"


def test_a_photo_never_replaces_cards_the_table_tapped_in(db, monkeypatch, photo):
    jpeg, reading = photo
    at = called(db, monkeypatch, "upload", len(reading.ranks))
    click(at, "reveal_add_K")
    give(at, "upload", "flip.jpg", jpeg)
    assert "Revealed: K" in text(at) and any(b.key == "use_still" for b in at.button)
    assert SqliteStore(db).open_call(1).revealed == (Rank.KING,)


def test_a_photo_put_in_is_put_in_once_so_a_card_taken_back_stays_back(db, monkeypatch, photo):
    """After the photo's cards went in, the table's taps decide: "Back one card" is not undone by the next run, which
    reads the same photo again."""
    jpeg, reading = photo
    at = called(db, monkeypatch, "upload", len(reading.ranks))
    give(at, "upload", "flip.jpg", jpeg)
    click(at, "reveal_back")
    assert SqliteStore(db).open_call(1).revealed == reading.ranks[:-1]
    click(at, "reveal_add_K")
    assert SqliteStore(db).open_call(1).revealed == (*reading.ranks[:-1], Rank.KING)


def test_an_upload_that_is_not_a_picture_is_refused_and_changes_nothing(db, monkeypatch, photo):
    at = called(db, monkeypatch, "upload", 2)
    uploader(at).upload("flip.jpg", b"these bytes are not a JPEG", "image/jpeg").run()
    assert not at.exception, at.exception
    assert any("not a picture the app can read" in e for e in errors(at))
    assert stored_state(db).state.game.last_call is None
    assert "Maya calls Cheat! on Sam" in text(at)


def test_a_photo_damaged_inside_is_refused_in_words_and_the_image_libraries_print_nothing(photo, capfd):
    """A snapshot or an upload whose picture data is cut part way (it still ends as a JPEG ends) was read grey or
    smeared below the cut, and libjpeg printed "Corrupt JPEG data: premature end of data segment" on the server's
    terminal."""
    jpeg = photo[0]
    middle = (jpeg.index(b"\xff\xda") + len(jpeg)) // 2
    capfd.readouterr()
    picture, why = camera.decode(jpeg[:middle] + jpeg[middle + 512:])
    assert picture is None and why.startswith("a JPEG damaged inside (") and "picture data is missing or garbled" in why
    assert capfd.readouterr().err == ""


def test_the_upload_takes_every_picture_format_the_reader_decodes(db, monkeypatch, photo):
    """A file the browser refuses never reaches the app, which would go on showing the last photo's reading: the
    uploader takes each format the reader decodes (a WebP from a chat, a screenshot), JPEG first and HEIC left out (so
    Safari on a Mac converts an iPhone's photo to JPEG rather than hand over HEIC)."""
    at = called(db, monkeypatch, "upload", 2)
    allowed = [t.lstrip(".") for t in uploader(at).allowed_type]
    assert {"jpg", "png", "webp", "bmp", "tif", "gif"} <= set(allowed)
    assert allowed[0] == "jpg" and not {"heic", "heif"} & set(allowed)
    picture = cv2.imdecode(np.frombuffer(photo[0], np.uint8), cv2.IMREAD_COLOR)
    for kind in allowed:
        ok, data = cv2.imencode(f".{kind}", picture)
        assert ok and camera.decode(data.tobytes())[0] is not None, f"the reader decodes .{kind}"


def test_a_webp_upload_is_read_and_shown(db, monkeypatch, photo):
    picture = cv2.imdecode(np.frombuffer(photo[0], np.uint8), cv2.IMREAD_COLOR)
    ok, webp = cv2.imencode(".webp", picture, [cv2.IMWRITE_WEBP_QUALITY, 101])  # lossless: the same pixels
    assert ok
    reading, _ = camera.read_still(camera.decode(webp.tobytes())[0])
    at = called(db, monkeypatch, "upload", len(reading.ranks))
    uploader(at).upload("flip.webp", webp.tobytes(), "image/webp").run()
    assert not at.exception and not errors(at), errors(at)
    assert f"Camera reads: {' '.join(r.value for r in reading.ranks)}" in text(at).replace("*", "")


def read_as(monkeypatch, readings: dict[int, camera.Reading]) -> None:
    """Photos read as ``readings`` says, by their width in pixels (:func:`plain`), without the reader: a sure photo, an
    unsure one and another sure one, in whatever order a test hands them over."""
    monkeypatch.setattr(camera, "load_reader", lambda: object())
    monkeypatch.setattr(camera, "decode",
                        lambda data: (cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR), ""))
    monkeypatch.setattr(camera, "read_still", lambda image, told="": (readings[image.shape[1]], image))


def plain(width: int) -> bytes:
    """A grey PNG ``width`` pixels wide: which reading it gets is up to :func:`read_as`."""
    ok, data = cv2.imencode(".png", np.full((64, width, 3), 200, np.uint8))
    assert ok
    return data.tobytes()


def test_a_sure_photo_replaces_the_cards_an_earlier_photo_put_in_even_after_an_unsure_one(db, monkeypatch):
    """Kings photographed, then a blurred photo, then one of the queens really laid: the queens go in. The unsure
    photo between them made the kings look like cards the table had tapped in, and they stayed, under a photo of
    queens read without doubt."""
    kings, queens = (Rank.KING, Rank.KING), (Rank.QUEEN, Rank.QUEEN)
    read_as(monkeypatch, {64: camera.Reading(ranks=kings, sure=True), 65: camera.Reading(ranks=(Rank.KING,)),
                          66: camera.Reading(ranks=queens, sure=True)})
    at = called(db, monkeypatch, "upload", 2)
    give(at, "upload", "kings.png", plain(64))
    assert SqliteStore(db).open_call(1).revealed == kings
    give(at, "upload", "blurred.png", plain(65))
    give(at, "upload", "queens.png", plain(66))
    assert SqliteStore(db).open_call(1).revealed == queens
    assert "Revealed: Q Q" in text(at)


@pytest.mark.parametrize(("name", "written"), [("__init__.jpg", "&#95;&#95;init&#95;&#95;.jpg"),
                                              ("[x](y) *a* `b`.jpg", "&#91;x&#93;(y) &#42;a&#42; &#96;b&#96;.jpg")])
def test_the_earlier_photos_name_is_shown_as_it_is_named_not_read_as_markdown(db, monkeypatch, name, written):
    """The photo's name is written into the markdown of its reading, where HTML escaping left "__init__.jpg" to be
    shown as a bold "init.jpg" (and a link, italics, code for the others)."""
    read_as(monkeypatch, {64: camera.Reading(ranks=(Rank.KING, Rank.KING), sure=True)})
    at = called(db, monkeypatch, "upload", 2)
    give(at, "upload", name, plain(64))
    note = [m.value for m in at.markdown if "class='cr-earlier'" in m.value]
    assert len(note) == 1 and f"This is the reading of the earlier photo, {written}: the file" in note[0], note
    assert name not in note[0] and "Camera reads: **K K**" in note[0], note


def test_a_photo_put_in_again_in_a_new_call_after_a_cancel(db, monkeypatch):
    """A call cancelled (an Undo too many) and made again: the same photo handed over again goes in as it did the
    first time. It was taken for the first call's photo, already put in, and waited on a tap."""
    kings = (Rank.KING, Rank.KING)
    read_as(monkeypatch, {64: camera.Reading(ranks=kings, sure=True)})
    at = called(db, monkeypatch, "upload", 2)
    give(at, "upload", "kings.png", plain(64))
    assert SqliteStore(db).open_call(1).revealed == kings
    click(at, "cancel_call")
    click(at, "cheat_Maya")
    assert SqliteStore(db).open_call(1).revealed == ()
    give(at, "upload", "kings.png", plain(64))
    assert SqliteStore(db).open_call(1).revealed == kings
    assert not any(b.key == "use_still" for b in at.button)


def test_a_reading_is_said_to_be_the_earlier_photos_where_the_uploader_refuses_the_next_file(db, monkeypatch):
    """A file the uploader refuses (a type it does not take, a file over its size limit) never reaches the app: the
    browser lists it after the photo, with its reason, and sends nothing, and the reading beside it was taken for the
    new file's. The reading names its photo in words that the page's CSS shows only where the uploader's newest file
    is marked refused (checked in a browser: tests/e2e). A photo removed, or an upload that failed as it went, empties
    the uploader: the app gets None, and the reading goes."""
    read_as(monkeypatch, {64: camera.Reading(ranks=(Rank.KING, Rank.KING), sure=True)})
    at = called(db, monkeypatch, "upload", 2)
    give(at, "upload", "kings.png", plain(64))
    note = [m.value for m in at.markdown if "class='cr-earlier'" in m.value]
    assert len(note) == 1 and "This is the reading of the earlier photo, kings.png: the file chosen after it was refused" \
        in note[0] and "Camera reads: **K K**" in note[0], note
    css = " ".join(h.proto.body for h in at.get("html"))
    assert ".cr-earlier {display: none;}" in css
    assert '> :last-child [aria-invalid="true"]) .cr-earlier {\n  display: block;' in css, "shown where refused"
    uploader(at).set_value(None).run()
    assert "Camera reads" not in text(at) and "earlier photo" not in text(at)
    assert "What the camera reads in the photo shows here." in text(at)
