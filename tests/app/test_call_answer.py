"""What the live camera does with an open Cheat! call (ui/camera.py, call_answer): a referee that guesses is worse than
none, so it settles a call alone only with a sure, steady reading of exactly the claimed cards, that the rules accept,
that fits what the table saw, while nobody has started tapping the cards in; anything else is offered to the table."""

from __future__ import annotations

import pytest

from assistant import Call, Game, NewGame, Play, Rank, Rules, Sitting
from tests.assistant.helpers import ranks, sitting
from ui import camera
from ui.camera import CallAction

R = Rank


def sure(*written: str, **kept) -> camera.Reading:
    """A reading the camera may act on alone (as :func:`camera.may_apply` sees it), unless ``kept`` says otherwise."""
    return camera.Reading(ranks(*written), **{"sure": True, "steady": True, "frames": 6, **kept})


def two_claimed() -> Game:
    """Alice claims two cards, and Ben calls."""
    return sitting(("Alice", "Ben", "Cara"), Play("Alice", 2)).state.game


def answer(reading: camera.Reading, game: Game | None = None, revealed: tuple[Rank, ...] = (), silent: bool = False,
           frames_seen: int = 30, live: bool = False, starting: bool = False) -> camera.CallAnswer:
    """The camera's answer to Ben's call, with a camera sending pictures unless told otherwise."""
    return camera.call_answer(reading, game or two_claimed(), "Ben", revealed, silent, frames_seen, live, starting)


def test_a_sure_steady_reading_of_the_claimed_cards_settles_the_call_alone():
    assert answer(sure("A", "9")) == camera.CallAnswer(CallAction.SETTLE, ranks("A", "9"))


@pytest.mark.parametrize("kept, why", [
    ({"sure": False}, "the reader is unsure of a card"),
    ({"steady": False}, "the reading is not steady yet"),
    ({"seen_before": True}, "these cards were already in view when Cheat! was called: check them and confirm"),
], ids=["unsure", "unsteady", "in view before the call"])
def test_an_unsure_unsteady_or_old_reading_is_never_settled_alone_but_offered(kept, why):
    assert answer(sure("A", "9", **kept)) == camera.CallAnswer(CallAction.READ, ranks("A", "9"), why)


def test_a_sure_reading_of_another_count_than_claimed_is_offered_not_settled():
    """A card out of view, or a lie by count: the table looks."""
    assert answer(sure("A", "A", "9")) == camera.CallAnswer(
        CallAction.READ, ranks("A", "A", "9"), "2 claimed but 3 seen: check the cards and confirm")


def test_cards_already_tapped_in_by_the_table_stop_the_camera_deciding():
    assert answer(sure("A", "9"), revealed=ranks("A")) == camera.CallAnswer(
        CallAction.READ, ranks("A", "9"), "the table is entering the cards")


def test_a_reading_the_rules_refuse_cannot_be_right_and_offers_nothing():
    """Five aces from one deck: a misreading, which the table's button must not put in either."""
    game = sitting(("Alice", "Ben"), Play("Alice", 5), max_cards=None).state.game
    assert answer(sure("A", "A", "A", "A", "A"), game) == camera.CallAnswer(
        CallAction.IMPOSSIBLE, (), "5 cards of rank A revealed, but only 4 are in play",
        "The camera's reading cannot be right: enter the cards by hand.")


def seen_aces_then(play: Play, **rules) -> Game:
    """Ann's four aces turned up and taken by Bob, then Bob's one card, and Cara's ``play`` (Ben calls)."""
    table = Sitting([NewGame(("Ann", "Bob", "Cara", "Ben"), rules=Rules(**rules)), Play("Ann", 4)])
    table.apply(Call("Bob", (R.ACE,) * 4))
    table.apply(Play("Bob", 1))
    table.apply(Play("Cara", play.count))
    return table.state.game


def test_a_reading_that_does_not_fit_the_cards_the_table_saw_is_offered_not_settled():
    """Cara cannot hold an ace the table saw go into Bob's hand: a misreading, or an earlier reveal entered wrong."""
    assert answer(sure("A"), seen_aces_then(Play("Cara", 1))) == camera.CallAnswer(CallAction.MISFIT, ranks("A"))


def test_the_rules_are_asked_before_the_seen_cards():
    """Five aces from Cara fit neither: that they cannot be right is what the table is told."""
    game = seen_aces_then(Play("Cara", 5), max_cards=None)
    assert answer(sure("A", "A", "A", "A", "A"), game).action is CallAction.IMPOSSIBLE


def test_an_unsure_readers_best_guess_is_offered_never_settled():
    guessed = camera.Reading(note="unsure of a card", guess=ranks("Q", "Q"))
    assert answer(guessed) == camera.CallAnswer(CallAction.GUESS, ranks("Q", "Q"), "unsure of a card")


def test_a_guess_with_a_card_it_could_not_read_at_all_is_not_offered():
    """The guess leaves that card out, and would be wrong."""
    guessed = camera.Reading(note="unsure of a card", guess=(R.QUEEN, None, R.QUEEN))
    assert answer(guessed) == camera.CallAnswer(CallAction.GUESS, (), "unsure of a card",
                                                "The camera could not read every card: tap the cards in.")


def test_nothing_read_offers_nothing_and_is_news_only_before_any_picture_came():
    """Every call begins with its cards face down: "nothing yet" then is no news to a player who cannot see it."""
    empty = camera.Reading(note="no card found in the picture yet")
    why_not = "The camera has read no card yet: tap the cards in, or wait for its reading."
    assert answer(empty) == camera.CallAnswer(CallAction.NOTHING, (), "no card found in the picture yet", why_not,
                                              news=False)
    assert answer(empty, frames_seen=0) == camera.CallAnswer(
        CallAction.NOTHING, (), "the camera has sent no picture yet", why_not, news=True)


def test_a_silent_camera_is_said_to_send_no_picture_and_the_browsers_to_be_started():
    """A camera stopped since its last picture: the table must not wait for a reading that cannot come. Only the
    browser's camera ("live") has a START button."""
    unsure = sure("A", "9", sure=False)
    assert answer(unsure, silent=True).why == "the camera is sending no picture"
    assert answer(unsure, silent=True, live=True).why == "the camera is sending no picture: press START under it"
    nothing = answer(camera.Reading(note="no card found in the picture yet"), silent=True)
    assert (nothing.why, nothing.news) == ("the camera is sending no picture", True)
    assert answer(camera.Reading(), frames_seen=0, live=True).why == (
        "the camera has sent no picture yet: press START under it")


def test_silence_is_said_only_of_a_reading_that_may_not_decide_and_the_table_entering_the_cards_over_it():
    """A sure, steady reading made before the camera stopped still decides; once the table taps, it has taken over."""
    assert answer(sure("A", "9"), silent=True).action is CallAction.SETTLE
    assert answer(sure("A", "9"), silent=True, revealed=ranks("A")).why == "the table is entering the cards"


STARTING = "the camera is starting: its picture comes in a moment"


def test_the_browsers_camera_starting_is_said_to_be_starting_not_to_need_start_and_is_no_news():
    """A reloaded page starts its camera by itself, and the first picture comes seconds later: "press START under it"
    meanwhile had players press it, and stop the camera just started. Every reloaded call begins so: not news."""
    why_not = "The camera has read no card yet: tap the cards in, or wait for its reading."
    assert answer(camera.Reading(), frames_seen=0, live=True, starting=True) == camera.CallAnswer(
        CallAction.NOTHING, (), STARTING, why_not, news=False)
    # STOP and START again: the last pictures are long gone, and the next are coming
    assert answer(camera.Reading(note="no card found in the picture yet"), silent=True, live=True,
                  starting=True).why == STARTING
    # the camera on the server has no START, and is not started by the page
    assert answer(camera.Reading(), frames_seen=0, starting=True).why == "the camera has sent no picture yet"


def test_a_camera_starting_changes_nothing_of_a_reading_it_sent():
    """Starting is said only where no picture came: a reading stands, and still decides where it may."""
    assert answer(sure("A", "9"), live=True, starting=True).action is CallAction.SETTLE
    assert answer(camera.Reading(note="no card found in the picture yet"), live=True, starting=True).why == (
        "no card found in the picture yet")


@pytest.mark.parametrize("silent, live, starting, why", [
    (False, True, True, STARTING),
    (True, True, True, STARTING),
    (False, True, False, "the camera has sent no picture yet: press START under it"),
    (True, True, False, "the camera is sending no picture: press START under it"),
    (False, False, True, "the camera has sent no picture yet"),
    (True, False, False, "the camera is sending no picture"),
])
def test_why_no_picture_came(silent, live, starting, why):
    assert camera.no_picture_why(silent, live, starting) == why


@pytest.mark.parametrize("began, last_frame_at, now, starting", [
    (100.0, 0.0, 100.5, True),  # a reloaded page, no picture yet
    (100.0, 0.0, 100.0 + camera.STARTING_FOR - 0.1, True),
    (100.0, 0.0, 100.0 + camera.STARTING_FOR, False),  # none came in time: START is to be pressed
    (100.0, 101.0, 101.5, False),  # its first picture came
    (100.0, 90.0, 100.5, True),  # STOP, then START: the last picture came before it
    (None, 0.0, 100.5, False),  # the table stopped it, or never started it
], ids=["reloaded", "just in time", "too long", "a picture came", "started again", "off"])
def test_the_browsers_camera_is_starting_from_the_start_until_a_picture_or_the_wait_is_over(began, last_frame_at, now,
                                                                                             starting):
    assert camera.still_starting(began, last_frame_at, now) is starting
