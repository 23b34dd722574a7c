"""The record of calls: each player's plays called and lies caught, calls made and right, cards picked up."""

from __future__ import annotations

import csv
import io

from assistant import NewGame, Play, Undo, Winner
from assistant.calls import CallRecord
from assistant.referee import Referee
from assistant.storage import SqliteStore

from .helpers import call, sitting


def test_a_lie_caught_counts_for_the_liar_and_the_caller_and_the_pile_for_the_liar():
    table = sitting(("Ann", "Ben", "Cy"), Play("Ann", 2), call("Ben", "A", "7"))
    assert table.calls == {
        "Ann": CallRecord(plays=1, called=1, caught=1, picked_up=2),
        "Ben": CallRecord(calls=1, right=1),
    }


def test_an_honest_play_called_counts_as_a_call_wrong_and_the_caller_picks_up():
    table = sitting(("Ann", "Ben", "Cy"), Play("Ann", 1), Play("Ben", 2), call("Ann", "2", "2"))
    assert table.calls == {
        "Ann": CallRecord(plays=1, calls=1, picked_up=3),
        "Ben": CallRecord(plays=1, called=1),
    }


def test_a_verdict_undone_or_corrected_counts_as_it_stands_now():
    table = sitting(("Ann", "Ben", "Cy"), Play("Ann", 1), call("Ben", "A"))
    assert table.calls["Ben"] == CallRecord(calls=1, picked_up=1)  # an honest ace: Ben was wrong
    table.apply(Undo())  # the camera read an ace; it was a 5: corrected, as the app does, by an undo and a new call
    assert table.calls == {}, "an undone verdict counts for nobody, and plays alone make no record"
    table.apply(call("Ben", "5"))
    assert table.calls == {"Ann": CallRecord(plays=1, called=1, caught=1, picked_up=1),
                              "Ben": CallRecord(calls=1, right=1)}


def test_the_record_goes_on_over_the_games_of_a_sitting_and_counts_no_tapped_game():
    table = sitting(("Ann", "Ben"), Play("Ann", 1), call("Ben", "K"))
    table.apply(Winner("Ben"))  # the game ended by a tap: its calls still count, and the tap adds nothing
    table.apply(NewGame(("Ann", "Ben", "Cy")))
    table.apply(Play("Ann", 3))
    table.apply(call("Cy", "A", "A", "A"))
    assert table.calls == {
        "Ann": CallRecord(plays=2, called=2, caught=1, picked_up=1),
        "Ben": CallRecord(calls=1, right=1),
        "Cy": CallRecord(calls=1, picked_up=3),
    }



def test_the_record_lists_players_in_the_order_they_first_played_or_called():
    table = sitting(("Ann", "Ben", "Cy"), Play("Ann", 1), call("Cy", "A"), Play("Ben", 1))
    assert list(table.calls) == ["Ann", "Cy", "Ben"]


def test_the_record_downloads_as_csv_one_row_per_player_with_a_formula_name_as_text(tmp_path):
    referee = Referee.new(SqliteStore(tmp_path / "r.sqlite3"), "Friday")
    referee.record(NewGame(("Zoë", "=Ben", "Cy")))
    referee.record(Play("Zoë", 2))
    referee.record(call("=Ben", "A", "7"))
    data = referee.calls_csv_file()
    assert data.startswith(b"\xef\xbb\xbf"), "Excel on Windows needs the mark to take the file as UTF-8"
    assert list(csv.reader(io.StringIO(data[3:].decode("utf-8")))) == [
        ["player", "plays", "called", "caught lying", "cheat calls", "right", "picked up"],
        ["Zoë", "1", "1", "1", "0", "0", "2"],
        ["'=Ben", "0", "0", "0", "1", "1", "0"],
    ]

