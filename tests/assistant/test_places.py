"""Places on a ranked table as the app says them: which stand while a verdict is corrected, and which an event gave
or took back."""

from __future__ import annotations

from dataclasses import replace

from assistant import NewGame, Play, Rules, TableKind
from assistant.game import places_gained, places_taken_back
from assistant.referee import Referee
from assistant.storage import OpenCall, SqliteStore

from .helpers import call, ranks, sitting


def test_a_place_stands_while_the_verdict_that_gave_it_is_corrected(tmp_path):
    """"Ann's 1st place is taken back" was said at the tap on "Correct the revealed cards", and her place given again
    when the cards stayed: the game whose places stand is the one the first verdict gave, while its call is open."""
    referee = Referee.new(SqliteStore(tmp_path / "r.sqlite3"), "Friday")
    referee.record(NewGame(("Alice", "Ben", "Cara", "Dev"), rules=Rules(table=TableKind.RANKED, max_cards=None)))
    for play in (Play("Alice", 11), Play("Ben", 1), Play("Cara", 1), Play("Dev", 1), Play("Alice", 2)):
        referee.record(play)
    referee.record(call("Ben", "5", "5"))  # honest: Alice is out
    correcting = referee.reopen_last_call()
    assert referee.state.game.places == ()  # the verdict is taken back while its cards are corrected
    assert referee.game_standing(correcting).places == ("Alice",)
    # no correction open, one made on another point of the game, or first cards the deck cannot hold: the game as it is
    assert referee.game_standing(None) is referee.state.game
    assert referee.game_standing(replace(correcting, original=None)) is referee.state.game
    assert referee.game_standing(replace(correcting, at=correcting.at - 1)) is referee.state.game
    impossible = OpenCall(correcting.at, "Ben", original=ranks("5", "5", "5", "5", "5"))
    assert referee.game_standing(impossible) is referee.state.game


def _ranked(*places: str, over: bool = False, table: TableKind = TableKind.RANKED):
    game = sitting(("Ann", "Ben", "Cara", "Dev"), table=table).state.game
    return replace(game, places=places, over=over)


def test_places_an_event_takes_back_are_those_past_the_places_it_keeps():
    """An undo or a verdict corrected to a lie takes Ben's 2nd place back: said, and the message that gave it closed."""
    assert places_taken_back(_ranked("Ann", "Ben"), _ranked("Ann")) == ((2, "Ben"),)
    assert places_taken_back(_ranked("Ann", "Ben"), _ranked()) == ((1, "Ann"), (2, "Ben"))
    assert places_taken_back(_ranked("Ann"), _ranked("Ann")) == ()
    assert places_taken_back(_ranked("Ann"), _ranked("Ben")) == ()  # not the same places: not a place taken back
    assert places_taken_back(_ranked("Ann", "Ben", over=True), _ranked("Ann")) == ()  # a game's end has its banner
    match = TableKind.MATCH
    assert places_taken_back(_ranked("Ann", table=match), _ranked(table=match)) == ()  # a match table has no places


def test_places_an_event_gives_are_those_past_the_places_before_it_while_play_goes_on():
    assert places_gained(_ranked(), _ranked("Ann")) == ((1, "Ann"),)
    assert places_gained(_ranked("Ann"), _ranked("Ann", "Ben")) == ((2, "Ben"),)
    assert places_gained(_ranked("Ann"), _ranked("Ann")) == ()
    assert places_gained(_ranked("Ann"), _ranked("Ben", "Ann")) == ()  # not the places before, and more
    assert places_gained(_ranked("Ann"), _ranked("Ann", "Ben", "Cara", over=True)) == ()  # the end has its banner
