"""Every illegal action gets a message naming the player and the rule, and changes nothing."""

from __future__ import annotations

import pytest

from assistant import BadEvent, Order, Rules, TableKind, Call, IllegalAction, ImpossibleReveal, NewGame, NoCall, Pass, Play, Rank, Sitting, Undo, Winner

from .helpers import call, sitting


def assert_rejected(table: Sitting, event, message: str, error=IllegalAction) -> None:
    """The event raises ``error`` with ``message`` and the sitting is exactly as before."""
    state, log = table.state, list(table.log)
    with pytest.raises(error) as raised:
        table.apply(event)
    assert message in str(raised.value)
    assert table.state is state and table.log == log


def test_playing_out_of_turn_names_whose_turn_it_is():
    table = sitting(("Alice", "Ben", "Cara"), Play("Alice", 1))
    assert_rejected(table, Play("Cara", 1), "it is Ben's turn, not Cara's")


def test_names_that_look_alike_are_quoted_apart():
    """A transcript may seat "Ann" and "Ann " (unique strings, as TRANSCRIPT.md asks); a message that printed both
    plainly read "it is Ann's turn, not Ann 's". Such names are quoted, and an unseen character escaped."""
    table = sitting(("Ann", "Ann ", "Ben\u200b"))
    assert_rejected(table, Play("Ann ", 1), 'it is Ann\'s turn, not "Ann "\'s')
    table.apply(Play("Ann", 1))
    assert_rejected(table, Play("Ben\u200b", 1), 'it is "Ann "\'s turn, not "Ben\\u200b"\'s')
    assert_rejected(table, Play("Zoë", 1), "Zoë is not playing in this game")
    # only what does not show is escaped: the letters stay as they read
    table = sitting(("Zoë", "Zoë\u200b"))
    assert_rejected(table, Play("Zoë\u200b", 1), 'it is Zoë\'s turn, not "Zoë\\u200b"\'s')
    # "Zoë" typed two ways: an ë, or an e and a combining diaeresis
    table = sitting(("Zoë", "Zoe\u0308"))
    assert_rejected(table, Play("Zoe\u0308", 1), 'it is Zoë\'s turn, not "Zoe\\u0308"\'s')
    # and what else composed form writes otherwise: the Kelvin sign's K, a Korean syllable in its parts
    table = sitting(("Kim", "\u212aim"))
    assert_rejected(table, Play("\u212aim", 1), 'it is Kim\'s turn, not "\\u212aim"\'s')
    table = sitting(("\ud55c", "\u1112\u1161\u11ab"))
    assert_rejected(table, Play("\u1112\u1161\u11ab", 1), 'it is \ud55c\'s turn, not "\\u1112\\u1161\\u11ab"\'s')


def test_playing_more_cards_than_held_names_the_hand():
    table = sitting(("Alice", "Ben", "Cara", "Dev"), max_cards=None)
    for name in ("Alice", "Ben", "Cara"):
        table.apply(Play(name, 1))
    table.apply(Play("Dev", 11))
    for name in ("Alice", "Ben", "Cara"):
        table.apply(Play(name, 1))
    assert table.state.game.hands["Dev"] == 2
    assert_rejected(table, Play("Dev", 3), "Dev holds 2 cards and cannot play 3")


def test_calling_your_own_play():
    table = sitting(("Alice", "Ben", "Cara"), Play("Alice", 1), Play("Ben", 1), Play("Cara", 1))
    assert_rejected(table, call("Cara", "3"), "Cara cannot call their own play")


def test_a_call_with_no_play_to_call_says_which_moment_it_is():
    """One "no play to call" was said for four different moments, and left the table to guess which."""
    assert_rejected(Sitting(), call("Ben", "A"), "no game is being played: nothing to call")
    assert_rejected(sitting(), call("Ben", "A"), "nothing has been played yet in this game")
    table = sitting(("Alice", "Ben", "Cara"), Play("Alice", 1), call("Ben", "A"))
    assert_rejected(table, call("Cara", "A"), "Alice's play has been called already")
    table = sitting(("Alice", "Ben", "Cara"), Play("Alice", 1), NoCall())
    assert_rejected(table, call("Cara", "A"), "Alice's play stands uncalled: it can no longer be called")
    table.apply(Winner("Ben"))
    assert_rejected(table, call("Cara", "A"), "the game is over: Ben won")


def test_no_call_with_nothing_to_settle_says_which_moment_it_is():
    """Right after a deal it said "the last play was already called or followed", of a play that never was."""
    assert_rejected(sitting(), NoCall(), "nothing has been played yet in this game: no play to settle")
    table = sitting(("Alice", "Ben", "Cara"), Play("Alice", 1), call("Ben", "A"))
    assert_rejected(table, NoCall(), "no play to settle: the last play was already called or followed")


def test_a_stranger_cannot_play_or_call():
    table = sitting(("Alice", "Ben", "Cara"), Play("Alice", 1))
    assert_rejected(table, Play("Zed", 1), "Zed is not playing in this game")
    assert_rejected(table, call("Zed", "A"), "Zed is not playing in this game")


def test_five_aces_from_one_deck_is_an_impossible_reveal():
    table = sitting(("Alice", "Ben"), Play("Alice", 4))
    assert_rejected(table, call("Ben", "A", "A", "A", "A", "A"), "5 cards of rank A revealed, but only 4", ImpossibleReveal)


def test_a_joker_with_jokers_off_is_an_impossible_reveal():
    table = sitting(("Alice", "Ben"), Play("Alice", 1))
    assert_rejected(table, call("Ben", "JOKER"), "jokers are off", ImpossibleReveal)


def test_three_jokers_from_one_deck_is_an_impossible_reveal():
    table = sitting(("Alice", "Ben"), Play("Alice", 3), jokers=True)
    assert_rejected(table, call("Ben", "JOKER", "JOKER", "JOKER"), "only 2", ImpossibleReveal)


def test_more_cards_revealed_than_the_player_held():
    table = sitting(("Alice", "Ben"), max_cards=None)
    table.apply(Play("Alice", 25))
    table.apply(Play("Ben", 1))
    table.apply(Play("Alice", 1))  # Alice held 1, claimed 1
    assert_rejected(table, call("Ben", "3", "3"), "Alice held 1 card and cannot have played 2", ImpossibleReveal)


def test_an_empty_reveal_is_impossible():
    table = sitting(("Alice", "Ben"), Play("Alice", 1))
    assert_rejected(table, Call("Ben", ()), "at least one card", ImpossibleReveal)


def test_nothing_to_undo_at_the_start():
    assert_rejected(Sitting(), Undo(), "nothing to undo")


def test_no_play_before_a_deal_and_after_the_end():
    assert_rejected(Sitting(), Play("Alice", 1), "no game has been dealt yet")
    table = sitting(("Alice", "Ben"), Winner("Ben"))
    assert_rejected(table, Play("Alice", 1), "the game is over: Ben won")


def test_dealer_must_be_seated():
    assert_rejected(Sitting(), NewGame(("Alice", "Ben"), dealer="Zed"), "the dealer Zed is not one of the players")


def test_winner_must_be_seated():
    assert_rejected(sitting(("Alice", "Ben")), Winner("Zed"), "Zed is not one of the players")


@pytest.mark.parametrize("players", [("Solo",), tuple(f"P{k}" for k in range(21))])
def test_a_winner_tap_needs_a_table_of_two_to_twenty(players):
    assert_rejected(Sitting(), Winner(players[0], players=players), f"a game takes 2 to 20 players (two decks), not {len(players)}")


@pytest.mark.parametrize("max_cards", [0, 2, 3, True, 2.5])
def test_a_cap_on_cards_per_play_that_is_no_house_rule_is_refused(max_cards):
    with pytest.raises(BadEvent, match="rule max_cards must be 4 or more, 1 \\(exactly one card\\) or null"):
        Rules(max_cards=max_cards)


def test_pass_out_of_turn_when_passing_is_on():
    assert_rejected(sitting(("Alice", "Ben", "Cara"), passing=True), Pass("Ben"), "it is Alice's turn, not Ben's")


def test_jokers_cannot_be_claimed():
    assert_rejected(sitting(order=Order.UP_OR_DOWN), Play("Alice", 1, Rank.JOKER), "a joker is never claimed: Alice claims A")


def test_a_second_place_waiting_for_its_call_is_named_not_the_winner():
    """On a ranked table the winner's name is places[0]; a play while Ben's last cards wait for a call is Ben's to
    settle, and the message must say so."""
    table = sitting(["Alice", "Ben", "Cara"], table=TableKind.RANKED, max_cards=None)
    table.apply(Play("Alice", 18))
    table.apply(NoCall())
    table.apply(Play("Ben", 17))
    assert_rejected(table, Play("Cara", 1), "Ben played their last cards: record the call or no call to end the game")
    # a name that ends in a space is quoted there, as in the rules' other messages ("Ben  played" said nothing)
    table = sitting(["Alice", "Ben ", "Cara"], table=TableKind.RANKED, max_cards=None)
    for event in (Play("Alice", 18), NoCall(), Play("Ben ", 17)):
        table.apply(event)
    assert_rejected(table, Play("Cara", 1), '"Ben " played their last cards')


def test_a_last_play_of_one_card_is_said_as_one_card():
    """"Ben played their last cards" of one card read as a miscount."""
    table = sitting(["Alice", "Ben", "Cara"], table=TableKind.RANKED, max_cards=None)
    for event in (Play("Alice", 18), NoCall(), Play("Ben", 16), Play("Cara", 1), Play("Ben", 1)):
        table.apply(event)
    assert_rejected(table, Play("Cara", 1), "Ben played their last card: record the call or no call to end the game")


def test_a_sitting_holds_at_most_ten_thousand_games(monkeypatch):
    """Every state kept for undo holds the table's rows: a sitting without an end would replay in gigabytes."""
    from assistant import game as game_module

    monkeypatch.setattr(game_module, "MAX_GAMES", 3)
    table = Sitting()
    for _ in range(3):
        table.apply(Winner("Ann", players=("Ann", "Ben")))
    assert_rejected(table, Winner("Ben", players=("Ann", "Ben")), "this sitting already holds 3 games")
    assert_rejected(table, NewGame(("Ann", "Ben")), "start a new sitting for more")


def test_a_winner_tap_names_the_player_listed_twice():
    assert_rejected(Sitting(), Winner("Alice", players=("Alice", "Bob", "Bob")), "Bob is listed twice")
