"""Each default rule and house rule of shared/rules/README.md, one behaviour per test."""

from __future__ import annotations

import pytest

from assistant import (
    CountRule, FourOfAKind, IllegalAction, NewGame, NoCall, Order, Pass, Play, Rank, Sitting, TableKind, Undo, Winner,
)
from assistant.events import to_dict
from assistant.game import (
    MatchTable, dealt_from_left, given_places, next_dealer, players_to_tap, standing_counts, tapped_result,
)
from assistant.rules import Rules as RulesType
from assistant.sitting import SetupOffer

from .helpers import call, sitting

R = Rank


# --- players, deck and deal ---------------------------------------------------------------------


@pytest.mark.parametrize("players, sizes", [(3, [18, 17, 17]), (5, [11, 11, 10, 10, 10]), (4, [13] * 4), (2, [26, 26])])
def test_whole_deck_is_dealt_from_the_dealers_left_with_extras_first(players, sizes):
    names = tuple(f"P{i}" for i in range(players))
    game = sitting(names).state.game
    # The dealer is the last player listed, so the deal starts with the first one.
    assert [game.hands[n] for n in names] == sizes


def test_deal_starts_left_of_a_chosen_dealer():
    table = Sitting()
    table.apply(NewGame(("A1", "B2", "C3"), dealer="A1"))
    game = table.state.game
    assert game.hands == {"B2": 18, "C3": 17, "A1": 17}
    assert game.turn == "B2"


def test_one_deck_takes_two_to_ten_players():
    with pytest.raises(IllegalAction, match="2 to 10 players, not 11"):
        sitting(tuple(f"P{i}" for i in range(11)))
    with pytest.raises(IllegalAction, match="2 to 10 players, not 1"):
        sitting(("Solo",))


def test_two_decks_take_up_to_twenty_players_and_104_cards():
    names = tuple(f"P{i}" for i in range(20))
    game = sitting(names, decks=2).state.game
    assert sum(game.hands.values()) == 104
    with pytest.raises(IllegalAction, match="2 to 20 players, not 21"):
        sitting(tuple(f"P{i}" for i in range(21)), decks=2)


def test_the_deal_shown_before_it_is_made_goes_round_from_the_dealers_left_with_extras_first():
    """The setup shows this deal, and the rules make it: the dealer's left first, and the extra cards to the first
    seats (the dealer last)."""
    dealt = dealt_from_left(("Ann", "Ben", "Cara", "Dev", "Eve"), "Ben", RulesType())
    assert list(dealt.items()) == [("Cara", 11), ("Dev", 11), ("Eve", 10), ("Ann", 10), ("Ben", 10)]
    assert Sitting([NewGame(("Ann", "Ben", "Cara", "Dev", "Eve"), dealer="Ben")]).state.game.hands == dealt


def test_a_deal_is_short_of_players_below_two_and_over_past_the_decks_most():
    """How many players a setup lacks (negative) or has too many (positive), which it says before the deal: the rules
    refuse the same deals."""
    assert [RulesType().players_off(n) for n in (0, 1, 2, 10, 11, 13)] == [-2, -1, 0, 0, 1, 3]
    assert [RulesType(decks=2).players_off(n) for n in (1, 11, 20, 21)] == [-1, 0, 0, 1]


def test_jokers_add_two_cards_per_deck():
    assert sum(sitting(jokers=True).state.game.hands.values()) == 54
    assert sum(sitting(jokers=True, decks=2).state.game.hands.values()) == 108


def test_names_must_be_unique():
    with pytest.raises(IllegalAction, match="Ben is listed twice"):
        sitting(("Ben", "Ben", "Cara"))


# --- turns and the rank cycle -------------------------------------------------------------------


def test_dealers_left_claims_aces_first_and_play_goes_left():
    table = sitting()
    assert table.state.game.turn == "Alice"
    assert table.state.game.ranks_allowed == (R.ACE,)
    table.apply(Play("Alice", 1))
    assert table.state.game.turn == "Ben"
    for name in ("Ben", "Cara", "Dev"):
        table.apply(Play(name, 1))
    assert table.state.game.turn == "Alice"


def test_rank_goes_up_and_wraps_from_king_to_ace():
    table = sitting(("A1", "B2"))
    due = []
    for turn in range(14):
        due.append(table.state.game.ranks_allowed[0].value)
        table.apply(Play(("A1", "B2")[turn % 2], 1))
    assert due == ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def test_rank_goes_down_in_the_down_order():
    table = sitting(("A1", "B2"), order=Order.DOWN)
    due = []
    for turn in range(4):
        due.append(table.state.game.ranks_allowed[0].value)
        table.apply(Play(("A1", "B2")[turn % 2], 1))
    assert due == ["A", "K", "Q", "J"]


def test_up_or_down_offers_one_above_or_below_the_last_claim():
    table = sitting(order=Order.UP_OR_DOWN)
    assert table.state.game.ranks_allowed == (R.ACE,)
    table.apply(Play("Alice", 1))
    assert table.state.game.ranks_allowed == (R.KING, R.TWO)  # around the cycle: one below, one above
    with pytest.raises(IllegalAction, match="Ben must say which rank is claimed: K or 2"):
        table.apply(Play("Ben", 1))
    table.apply(Play("Ben", 1, R.KING))
    assert set(table.state.game.ranks_allowed) == {R.QUEEN, R.ACE}
    with pytest.raises(IllegalAction, match="Cara may claim Q or A, not 5"):
        table.apply(Play("Cara", 1, R.FIVE))


def test_same_or_adjacent_allows_the_same_rank_too():
    table = sitting(order=Order.SAME_OR_ADJACENT)
    table.apply(Play("Alice", 1))
    assert set(table.state.game.ranks_allowed) == {R.KING, R.ACE, R.TWO}
    table.apply(Play("Ben", 2, R.ACE))
    assert set(table.state.game.ranks_allowed) == {R.KING, R.ACE, R.TWO}


def test_same_until_call_keeps_the_piles_rank_then_moves_up_after_a_call():
    table = sitting(order=Order.SAME_UNTIL_CALL)
    table.apply(Play("Alice", 1))
    table.apply(Play("Ben", 2))
    assert table.state.game.ranks_allowed == (R.ACE,)
    table.apply(call("Cara", "A", "A"))
    assert table.state.game.ranks_allowed == (R.TWO,)
    assert table.state.game.turn == "Cara"


def test_choice_orders_measure_the_new_pile_from_the_last_claim_after_a_call():
    table = sitting(order=Order.UP_OR_DOWN)
    table.apply(Play("Alice", 1))
    table.apply(Play("Ben", 1, R.TWO))
    table.apply(call("Cara", "2"))
    assert set(table.state.game.ranks_allowed) == {R.ACE, R.THREE}


def test_forced_order_accepts_the_rank_due_written_out_and_rejects_another():
    table = sitting()
    table.apply(Play("Alice", 1, R.ACE))
    with pytest.raises(IllegalAction, match=r"Ben must claim 2 \(the rank due\), not 7"):
        table.apply(Play("Ben", 1, R.SEVEN))


def test_rank_moves_on_after_a_call_and_the_challenged_players_left_plays_next():
    table = sitting()
    table.apply(Play("Alice", 2))
    table.apply(call("Cara", "A", "9"))
    game = table.state.game
    assert game.turn == "Ben" and game.ranks_allowed == (R.TWO,) and game.pile == 0


def test_without_a_call_the_cards_stay_on_the_pile():
    table = sitting(("A1", "B2", "C3"), Play("A1", 3), Play("B2", 2))
    assert table.state.game.pile == 5
    assert table.state.game.hands["A1"] == 15


# --- cards per play -----------------------------------------------------------------------------


def test_one_to_four_cards_by_default():
    table = sitting()
    with pytest.raises(IllegalAction, match="at most 4 cards per play"):
        table.apply(Play("Alice", 5))
    with pytest.raises(IllegalAction, match="at least one card"):
        table.apply(Play("Alice", 0))
    table.apply(Play("Alice", 4))


def test_any_number_of_cards_when_max_cards_is_none():
    table = sitting(max_cards=None)
    table.apply(Play("Alice", 9))
    assert table.state.game.pile == 9


def test_exactly_one_card_when_max_cards_is_one():
    table = sitting(max_cards=1)
    with pytest.raises(IllegalAction, match="exactly one card per play"):
        table.apply(Play("Alice", 2))


# --- passing --------------------------------------------------------------------------------------


def test_passing_is_off_by_default():
    with pytest.raises(IllegalAction, match="passing is off"):
        sitting().apply(Pass("Alice"))


def test_a_pass_moves_the_rank_on_as_if_played():
    table = sitting(passing=True)
    table.apply(Pass("Alice"))
    assert table.state.game.turn == "Ben" and table.state.game.ranks_allowed == (R.TWO,)
    assert table.state.game.pile == 0


def test_a_pass_in_a_choice_order_keeps_the_last_claim_as_reference():
    table = sitting(passing=True, order=Order.UP_OR_DOWN)
    table.apply(Play("Alice", 1))
    table.apply(Pass("Ben"))
    assert set(table.state.game.ranks_allowed) == {R.TWO, R.KING}


def test_a_pass_settles_the_last_play_like_a_play():
    table = sitting(passing=True)
    table.apply(Play("Alice", 1))
    table.apply(Pass("Ben"))
    assert not table.state.game.awaiting_call
    with pytest.raises(IllegalAction, match="Alice's play stands uncalled: it can no longer be called"):
        table.apply(call("Cara", "A"))


# --- jokers ---------------------------------------------------------------------------------------


def test_a_joker_matches_any_claimed_rank():
    table = sitting(jokers=True)
    table.apply(Play("Alice", 2))
    table.apply(call("Ben", "A", "JOKER"))
    assert table.state.game.last_call.lie is False
    assert table.state.game.last_call.picked_up_by == "Ben"


def test_a_joker_does_not_excuse_another_wrong_card():
    table = sitting(jokers=True)
    table.apply(Play("Alice", 2))
    table.apply(call("Ben", "5", "JOKER"))
    assert table.state.game.last_call.lie is True


# --- four of a kind -------------------------------------------------------------------------------


def test_four_of_a_kind_leaves_the_game_and_the_pile_stays():
    table = sitting(four_of_a_kind=True)
    table.apply(Play("Alice", 1))
    table.apply(FourOfAKind("Cara", R.SEVEN))
    game = table.state.game
    assert game.hands["Cara"] == 9 and game.out_of_game == 4 and game.pile == 1
    assert game.card_total() == 52
    # at any time: the call window on Alice's play is still open.
    assert game.awaiting_call


def test_four_of_a_kind_is_off_by_default():
    with pytest.raises(IllegalAction, match="four of a kind is off"):
        sitting().apply(FourOfAKind("Cara", R.SEVEN))


def test_a_rank_can_leave_the_game_only_as_often_as_the_decks_hold_it():
    table = sitting(four_of_a_kind=True)
    table.apply(FourOfAKind("Cara", R.SEVEN))
    with pytest.raises(IllegalAction, match="all 4 cards of rank 7 are already out"):
        table.apply(FourOfAKind("Dev", R.SEVEN))
    two = sitting(four_of_a_kind=True, decks=2)
    two.apply(FourOfAKind("Cara", R.SEVEN))
    two.apply(FourOfAKind("Dev", R.SEVEN))
    assert two.state.game.out_of_game == 8


def test_revealed_cards_cannot_include_a_rank_already_out_of_the_game():
    table = sitting(four_of_a_kind=True)
    table.apply(FourOfAKind("Cara", R.ACE))
    table.apply(Play("Alice", 1))
    with pytest.raises(IllegalAction, match="1 card of rank A revealed, but none is in play"):
        table.apply(call("Ben", "A"))


# --- count rule -----------------------------------------------------------------------------------


def test_rank_and_count_makes_a_wrong_count_a_lie():
    table = sitting()
    table.apply(Play("Alice", 2))
    table.apply(call("Ben", "A", "A", "A"))
    verdict = table.state.game.last_call
    assert verdict.lie and verdict.picked_up_by == "Alice" and verdict.cards == 3


def test_rank_only_tolerates_extra_cards():
    table = sitting(count_rule=CountRule.RANK_ONLY)
    table.apply(Play("Alice", 2))
    table.apply(call("Ben", "A", "A", "A"))
    verdict = table.state.game.last_call
    assert not verdict.lie and verdict.picked_up_by == "Ben" and verdict.cards == 3


def test_rank_only_still_catches_a_wrong_rank():
    table = sitting(count_rule=CountRule.RANK_ONLY)
    table.apply(Play("Alice", 2))
    table.apply(call("Ben", "A", "3"))
    assert table.state.game.last_call.lie


def test_a_reveal_corrects_the_hand_to_the_true_number_of_cards():
    table = sitting()
    table.apply(Play("Alice", 2))  # Alice 11 left by the claim
    table.apply(Play("Ben", 1))
    table.apply(call("Cara", "2", "2"))  # Ben actually laid two: hand 11, pile 4, all to Ben
    game = table.state.game
    assert game.hands["Ben"] == 11 + 4
    assert game.card_total() == 52


# --- going out and the end of the game ------------------------------------------------------------


def _nearly_out(table_kind=TableKind.MATCH, players=("Alice", "Ben", "Cara")) -> Sitting:
    """A game where Alice holds exactly 2 cards and it is her turn, reached by legal plays."""
    table = sitting(players, max_cards=None, table=table_kind)
    table.apply(Play("Alice", 16))  # Alice 18 -> 2
    for name in players[1:]:
        table.apply(Play(name, 1))
    return table


def test_a_last_play_is_held_until_it_survives_the_call():
    table = _nearly_out()
    table.apply(Play("Alice", 2))
    game = table.state.game
    assert game.hands["Alice"] == 0 and game.awaiting_call and not game.over and game.places == ()


def test_a_last_play_that_nobody_calls_wins_the_match_game():
    table = _nearly_out()
    table.apply(Play("Alice", 2))
    table.apply(NoCall())
    game = table.state.game
    assert game.over and game.places == ("Alice",) and game.turn is None
    assert table.state.table.scores()["Alice"] == 1


def test_a_last_play_called_and_honest_wins_and_the_caller_picks_up():
    table = _nearly_out()
    assert table.state.game.ranks_allowed == (R.FOUR,)
    table.apply(Play("Alice", 2))
    table.apply(call("Ben", "4", "4"))
    game = table.state.game
    assert game.last_call.picked_up_by == "Ben" and game.last_call.cards == 20
    assert game.over and game.places == ("Alice",)
    assert table.state.table.scores() == {"Alice": 1, "Ben": 0, "Cara": 0}


def test_a_caught_last_play_sends_the_pile_back_and_the_game_goes_on():
    table = _nearly_out()
    due = table.state.game.ranks_allowed[0]
    wrong = R.KING if due is not R.KING else R.QUEEN
    pile = table.state.game.pile
    table.apply(Play("Alice", 2))
    table.apply(call("Ben", due.value, wrong.value))
    game = table.state.game
    assert not game.over and game.places == ()
    assert game.hands["Alice"] == pile + 2
    assert game.turn == "Ben"


def test_a_last_play_that_empties_a_hand_is_known_to_end_a_match_game_unless_caught():
    """The screen offers only Cheat! or "nobody calls" over such a play, and says its player is out only if it
    survives."""
    table = _nearly_out()
    assert not table.state.game.last_play_emptied_a_hand and not table.state.game.last_play_ends_the_game
    table.apply(Play("Alice", 1))
    assert not table.state.game.last_play_emptied_a_hand, "a card left"
    table = _nearly_out()
    table.apply(Play("Alice", 2))
    game = table.state.game
    assert game.last_play_emptied_a_hand and game.last_play_ends_the_game
    assert not game.over and game.places == (), "asked of a copy: the game waits for the call"
    table.apply(NoCall())
    assert not table.state.game.last_play_emptied_a_hand and not table.state.game.last_play_ends_the_game


def test_a_last_play_that_empties_a_hand_on_a_ranked_table_ends_the_game_only_for_the_last_place():
    """Play goes on over a ranked game's first places: the next player may play on, and the game ends at the third
    place, or with one player left holding cards."""
    table = sitting(("Alice", "Ben", "Cara", "Dev"), max_cards=None, table=TableKind.RANKED)
    table.apply(Play("Alice", 13))
    assert table.state.game.last_play_emptied_a_hand and not table.state.game.last_play_ends_the_game
    table.apply(Play("Ben", 13))
    assert not table.state.game.last_play_ends_the_game
    table.apply(Play("Cara", 13))
    assert table.state.game.last_play_emptied_a_hand and table.state.game.last_play_ends_the_game
    two = sitting(("Alice", "Ben"), max_cards=None, table=TableKind.RANKED)
    two.apply(Play("Alice", 26))
    assert two.state.game.last_play_ends_the_game, "one player left with cards"


def test_a_match_game_ends_when_the_next_player_would_play_over_an_unsettled_last_play():
    table = _nearly_out()
    table.apply(Play("Alice", 2))
    with pytest.raises(IllegalAction, match="record the call or no call"):
        table.apply(Play("Ben", 1))


def test_ranked_table_plays_on_for_places_and_scores_three_two_one():
    players = ("Alice", "Ben", "Cara", "Dev")
    table = sitting(players, max_cards=None, table=TableKind.RANKED)
    # Alice, Ben and Cara each empty their hands in turn, uncalled.
    table.apply(Play("Alice", 13))
    table.apply(Play("Ben", 13))
    game = table.state.game
    assert game.places == ("Alice",) and not game.over and game.turn == "Cara"
    table.apply(Play("Cara", 13))
    table.apply(NoCall())
    game = table.state.game
    assert game.places == ("Alice", "Ben", "Cara") and game.over
    assert table.state.table.scores() == {"Alice": 3, "Ben": 2, "Cara": 1, "Dev": 0}


def test_ranked_game_ends_when_one_player_is_left():
    table = sitting(("Alice", "Ben"), max_cards=None, table=TableKind.RANKED)
    table.apply(Play("Alice", 26))
    table.apply(NoCall())
    assert table.state.game.over and table.state.game.places == ("Alice",)
    assert table.state.table.scores() == {"Alice": 3, "Ben": 0}


def test_the_players_still_in_are_those_not_placed_in_seating_order_a_pending_last_play_still_in():
    """The Cheat! buttons and the four of a kind's players are those still in."""
    table = sitting(("Alice", "Ben", "Cara", "Dev"), max_cards=None, table=TableKind.RANKED)
    table.apply(Play("Alice", 13))
    assert table.state.game.active == ("Alice", "Ben", "Cara", "Dev"), "out only once the play survives"
    table.apply(Play("Ben", 1))
    assert table.state.game.active == ("Ben", "Cara", "Dev")


def test_out_players_are_skipped_and_cannot_call():
    players = ("Alice", "Ben", "Cara", "Dev")
    table = sitting(players, max_cards=None, table=TableKind.RANKED)
    table.apply(Play("Alice", 13))
    table.apply(Play("Ben", 1))  # settles Alice: out
    table.apply(Play("Cara", 1))
    table.apply(Play("Dev", 1))
    assert table.state.game.turn == "Ben"
    with pytest.raises(IllegalAction, match="Alice is out of the game and cannot call"):
        table.apply(call("Alice", "4"))


# --- next game and the match table ----------------------------------------------------------------


def test_the_deal_passes_to_the_left_for_the_next_game():
    table = sitting(("Alice", "Ben", "Cara"))
    assert table.state.game.dealer == "Cara"
    table.apply(NewGame(("Alice", "Ben", "Cara")))
    assert table.state.game.dealer == "Alice" and table.state.game.turn == "Ben"


def test_the_setup_offers_the_deal_to_the_left_when_the_dealer_has_left_the_table():
    """Eve dealt and Alex opened; Dee and Eve leave. The setup offers the deal to Eve's left, Alex, so Bart opens; the
    last player listed (Cy) was offered before, and Alex opened again."""
    table = sitting(("Alex", "Bart", "Cy", "Dee", "Eve"))
    assert table.state.game.dealer == "Eve" and table.state.game.turn == "Alex"
    assert next_dealer(table.state, ("Alex", "Bart", "Cy")) == "Alex"
    # Dee dealt, and Dee and Eve leave: the first to Dee's left still at the table is Alex, wherever Alex sits now
    table.apply(NewGame(("Alex", "Bart", "Cy", "Dee", "Eve"), dealer="Dee"))
    assert next_dealer(table.state, ("Cy", "Bart", "Alex")) == "Alex"
    # a whole new table: the last player listed, as at a sitting's start; a dealer still seated: their left
    assert next_dealer(table.state, ("Gus", "Hal")) == "Hal"
    assert next_dealer(table.state, ("Alex", "Dee", "Cy")) == "Cy"


def test_a_log_whose_new_game_names_no_dealer_replays_as_it_always_has():
    """A transcript imported with a dealer-less new_game after the dealer left: its dealer is worked out again at every
    replay, so the rule for logs stays the last player listed; the plays recorded after it stay legal."""
    table = Sitting([NewGame(("A", "B", "C")), NewGame(("A", "B")), Play("A", 1)])
    assert table.state.game.dealer == "B" and table.state.game.turn == "B"
    assert next_dealer(Sitting([NewGame(("A", "B", "C"))]).state, ("A", "B")) == "A"  # what the setup offers


def test_a_game_recorded_by_one_tap_passes_the_deal_on_too():
    """Cara deals game 1 (won by a tap, so tracked), then games 2 and 3 are played without tracking: Alice dealt game
    2 and Ben game 3, so game 4 is Cara's to deal (the deal stood still at Alice before), and Alice opens."""
    players = ("Alice", "Ben", "Cara")
    table = sitting(players)
    table.apply(Winner("Alice"))  # game 1, dealt by Cara, ended by the tap
    table.apply(Winner("Alice"))
    table.apply(Winner("Ben"))
    table.apply(NewGame(players))
    assert table.state.game.dealer == "Cara" and table.state.game.turn == "Alice"
    # a sitting whose first games were recorded by a tap: the last player listed dealt the first of them
    table = Sitting([Winner("Alice", players=players), NewGame(players)])
    assert table.state.game.dealer == "Alice"


def test_a_ranked_result_tapped_in_gives_no_place_to_the_player_left_with_cards():
    """As in a game tracked to its end: of three players, two go out and take places, and the third takes none. A
    result that places all three (the app offered it before, so stored sittings hold some) is read, without the last."""
    table = sitting(("Alice", "Ben", "Cara"), table=TableKind.RANKED)
    table.apply(Winner(places=("Cara", "Alice", "Ben")))
    assert table.state.table.rows[-1].places == ("Cara", "Alice")
    assert table.state.table.scores() == {"Alice": 2, "Ben": 0, "Cara": 3}
    with pytest.raises(IllegalAction, match="Zed is not one of the players"):
        table.apply(Winner(places=("Cara", "Alice", "Zed"), players=("Alice", "Ben", "Cara")))


def test_the_standing_ranks_by_score_and_keeps_players_level_in_the_order_they_first_sat():
    table = Sitting([Winner("Cara", players=("Dev", "Ben", "Cara", "Alice")), Winner("Alice"), Winner("Cara"),
                     Winner("Abe", players=("Abe", "Ben", "Alice"))])
    assert table.state.table.ranking() == [("Cara", 2), ("Alice", 1), ("Abe", 1), ("Dev", 0), ("Ben", 0)]
    assert MatchTable().ranking() == []


def test_the_calls_table_lists_players_in_the_order_they_first_sat_and_leaves_none_out():
    table = MatchTable(players=("Alice", "Ben", "Cara"))
    assert table.in_table_order({"Cara": 1, "Zed": 2, "Alice": 3}) == ["Alice", "Cara", "Zed"]


def test_a_new_game_while_one_is_unfinished_abandons_it_without_a_row():
    table = sitting(("Alice", "Ben", "Cara"), Play("Alice", 1))
    table.apply(NewGame(("Alice", "Ben", "Cara")))
    assert table.state.table.rows == ()


def test_a_winner_tap_ends_a_tracked_game_in_progress():
    table = sitting(("Alice", "Ben", "Cara"), Play("Alice", 1))
    table.apply(Winner("Ben"))
    assert table.state.game.over and table.state.game.places == ("Ben",)
    assert table.state.table.scores() == {"Alice": 0, "Ben": 1, "Cara": 0}
    row = table.state.table.rows[-1]
    assert row.tracked and row.tapped, "dealt here, but its result is the table's tap, not the rules'"


def test_a_game_played_out_is_not_marked_as_tapped():
    table = _nearly_out()
    table.apply(Play("Alice", 2))
    table.apply(NoCall())
    row = table.state.table.rows[-1]
    assert row.tracked and not row.tapped


def test_a_tapped_result_is_the_whole_result_of_a_ranked_game_in_progress():
    """TRANSCRIPT.md: a tracked game in progress "ends with this result", so that a stored log replays as it was
    recorded. The places the game had given are kept by sending them with the tap, as the app does."""
    table = _nearly_out(TableKind.RANKED)
    table.apply(Play("Alice", 2))
    table.apply(NoCall())
    assert table.state.game.places == ("Alice",) and not table.state.game.over
    table.apply(Winner("Ben"))
    assert table.state.table.rows[-1].places == ("Ben",)
    table.apply(Undo())
    table.apply(Winner(places=("Alice", "Ben")))
    assert table.state.table.rows[-1].places == ("Alice", "Ben") and table.state.table.scores()["Alice"] == 3


def test_a_table_that_only_taps_results_in_may_score_them_ranked():
    """With no game dealt the table was always a match table, and places were refused: a table keeping its ranked
    standing by taps alone could not."""
    table = Sitting()
    table.apply(Winner(places=("Cara", "Ann"), players=("Ann", "Ben", "Cara"), table=TableKind.RANKED))
    table.apply(Winner(places=("Ann", "Ben")))  # the taps after it score the same, until a game is dealt
    assert table.state.table.kind is TableKind.RANKED
    assert table.state.table.scores() == {"Ann": 5, "Ben": 2, "Cara": 3}
    table.apply(Winner("Ben", table=TableKind.MATCH))
    assert table.state.table.scores() == {"Ann": 5, "Ben": 3, "Cara": 3}  # a match win is one point beside them
    table.apply(Undo())
    assert table.state.table.kind is TableKind.RANKED


def test_a_tap_cannot_change_the_scoring_of_the_game_in_progress():
    table = sitting(("Alice", "Ben", "Cara"), Play("Alice", 1))
    with pytest.raises(IllegalAction, match="the game in progress scores on a match table, not a ranked one"):
        table.apply(Winner("Ben", table=TableKind.RANKED))
    assert not table.state.game.over


def test_a_winner_tap_without_a_tracked_game_needs_the_players():
    table = Sitting()
    with pytest.raises(IllegalAction, match="no players known"):
        table.apply(Winner("Alice"))
    table.apply(Winner("Alice", players=("Alice", "Ben")))
    assert table.state.game is None and table.state.table.scores() == {"Alice": 1, "Ben": 0}


def test_ranked_winner_tap_takes_places():
    table = sitting(("Alice", "Ben", "Cara"), table=TableKind.RANKED)
    table.apply(Winner(places=("Cara", "Alice")))
    assert table.state.table.scores() == {"Alice": 2, "Ben": 0, "Cara": 3}
    with pytest.raises(IllegalAction, match="places are for a ranked table"):
        sitting(("Alice", "Ben")).apply(Winner(places=("Alice",)))


def test_a_winner_tapped_alone_is_stored_as_the_formats_player_and_places_listed_as_places():
    """The app's winner buttons and its "Record these places" build their events here: a single name from a winner's
    button stays ``player`` (as ``places`` of one the stored transcript would change), places listed stay ``places``
    even one long, and the table's players and scoring are sent only where no game or table says them."""
    seated = ("Ann", "Ben", "Cy")
    untracked = Sitting().state  # a match table, nothing dealt
    assert tapped_result(untracked, "Ann", seated, TableKind.MATCH) == Winner(player="Ann", players=seated)
    assert to_dict(tapped_result(untracked, "Ann", seated, TableKind.MATCH)) == {
        "event": "winner", "player": "Ann", "players": ["Ann", "Ben", "Cy"]}
    assert tapped_result(untracked, "Ann", seated, TableKind.RANKED) == Winner(
        player="Ann", players=seated, table=TableKind.RANKED)
    assert tapped_result(untracked, ("Cy",), seated, TableKind.RANKED) == Winner(
        places=("Cy",), players=seated, table=TableKind.RANKED)
    assert tapped_result(untracked, ("Cy", "Ann"), seated, TableKind.RANKED) == Winner(
        places=("Cy", "Ann"), players=seated, table=TableKind.RANKED)
    assert tapped_result(untracked, ("Cy", "Ann", "Ben"), seated, TableKind.RANKED) == Winner(
        places=("Cy", "Ann", "Ben"), players=seated, table=TableKind.RANKED)
    ranked = Sitting([Winner(places=("Cy", "Ann"), players=seated, table=TableKind.RANKED)]).state
    assert tapped_result(ranked, ("Ben", "Cy"), seated, TableKind.RANKED) == Winner(places=("Ben", "Cy"),
                                                                                    players=seated)
    assert tapped_result(ranked, "Ben", seated, TableKind.MATCH) == Winner(player="Ben", players=seated,
                                                                           table=TableKind.MATCH)
    dealt = sitting(("Alice", "Ben", "Cara"), Play("Alice", 1)).state  # the game names its players
    assert tapped_result(dealt, "Ben", seated, TableKind.MATCH) == Winner(player="Ben")


def test_a_result_tapped_after_a_game_over_names_the_players_where_they_are_not_the_last_games():
    """After a game over the rules take the last game's players for a tap that names none: a deal taken back with Dev
    seated for Cara, a tap unnamed was scored for Cara, and Dev's refused. The last game's own players stay unnamed,
    as the transcripts of such taps always were."""
    table = sitting(("Ann", "Ben", "Cara"), Winner("Ann"))
    assert tapped_result(table.state, "Dev", ("Ann", "Ben", "Dev"), TableKind.MATCH) == Winner(
        player="Dev", players=("Ann", "Ben", "Dev"))
    assert tapped_result(table.state, "Ben", ("Ann", "Ben", "Cara"), TableKind.MATCH) == Winner(player="Ben")
    table.apply(tapped_result(table.state, "Dev", ("Ann", "Ben", "Dev"), TableKind.MATCH))
    assert table.state.table.rows[-1].players == ("Ann", "Ben", "Dev") and table.state.game.players == ("Ann", "Ben", "Cara")
    assert tapped_result(table.state, "Ben", ("Ann", "Ben", "Dev"), TableKind.MATCH) == Winner(player="Ben"), \
        "the last game's players are those of the game tapped in last"
    assert tapped_result(table.state, "Ben", ("Ann", "Ben", "Cara"), TableKind.MATCH) == Winner(
        player="Ben", players=("Ann", "Ben", "Cara")), "the game over is no longer the last game"


def test_the_match_table_offers_the_game_in_progress_else_the_players_the_setup_shows():
    """The winner buttons and the setup agree on who is at the table: after "Undo the deal" (made to change a seat, or
    to tap the results in instead) the buttons named the game before's players, over, and the setup the deal's."""
    table = Sitting()
    assert players_to_tap(table.state, (), table.setup_offer().players) == (), "nothing dealt, nobody seated"
    assert players_to_tap(table.state, ["Ann", "Ben"], table.setup_offer().players) == ("Ann", "Ben")
    table.apply(NewGame(("Ann", "Ben", "Cara")))
    in_play = players_to_tap(table.state, ["Ann", "Dev"], table.setup_offer().players)
    assert in_play == ("Ann", "Ben", "Cara"), "a game in progress: the tap gives its result"
    table.apply(Winner("Ann"))
    assert players_to_tap(table.state, (), table.setup_offer().players) == ("Ann", "Ben", "Cara"), "the last game's"
    assert players_to_tap(table.state, ["Ann", "Dev"], table.setup_offer().players) == ("Ann", "Dev"), "seats edited"
    table.apply(NewGame(("Ann", "Ben", "Dev")))
    table.apply(Undo())
    assert table.state.game.players == ("Ann", "Ben", "Cara") and table.state.game.over
    assert players_to_tap(table.state, (), table.setup_offer().players) == ("Ann", "Ben", "Dev"), "the deal taken back"


def test_a_result_tapped_for_a_ranked_game_in_progress_keeps_the_places_it_has_given_first():
    table = sitting(("Alice", "Ben", "Cara", "Dev"), Play("Alice", 11), Play("Ben", 1), Play("Cara", 1),
                    Play("Dev", 1), Play("Alice", 2), NoCall(), max_cards=None, table=TableKind.RANKED)
    assert given_places(table.state) == ("Alice",)
    assert tapped_result(table.state, "Ben", (), TableKind.RANKED) == Winner(places=("Alice", "Ben"))
    assert tapped_result(table.state, ("Ben", "Dev"), (), TableKind.RANKED) == Winner(places=("Alice", "Ben", "Dev"))
    table.apply(Winner(places=("Alice", "Ben")))
    assert given_places(table.state) == (), "a game over gives no places to a tap after it"
    assert tapped_result(table.state, "Ben", (), TableKind.RANKED) == Winner(player="Ben")


def test_random_first_player_is_recorded_in_the_new_game():
    table = Sitting()
    table.apply(NewGame(("Alice", "Ben", "Cara"), first="Cara"))
    assert table.state.game.turn == "Cara" and table.state.game.dealer == "Cara"


def test_worked_example_four_players_three_games():
    """Rules README: Alice wins games 1 and 3, Ben game 2; the standing reads 2, 1, 0, 0."""
    players = ("Alice", "Ben", "Cara", "Dev")
    table = Sitting()
    table.apply(NewGame(players, rules=RulesType(max_cards=None)))
    table.apply(Play("Alice", 11))
    for name in ("Ben", "Cara", "Dev"):
        table.apply(Play(name, 1))
    due = table.state.game.ranks_allowed[0]
    table.apply(Play("Alice", 2))  # her last two cards, called: honest
    table.apply(call("Ben", due.value, due.value))
    assert table.state.game.over and table.state.game.places == ("Alice",)
    table.apply(Winner("Ben", players=players))
    table.apply(NewGame(players, rules=RulesType(max_cards=None)))
    first = table.state.game.turn
    table.apply(Winner("Alice"))
    assert table.state.table.scores() == {"Alice": 2, "Ben": 1, "Cara": 0, "Dev": 0}
    assert len(table.state.table.rows) == 3 and first is not None


def test_worked_example_sam_lies_and_picks_up_leo_plays_sixes():
    """Rules README: Sam claims two 5s with a 5 and a 9; Maya calls; Sam takes the pile; Leo plays 6s."""
    table = Sitting()
    table.apply(NewGame(("Sam", "Leo", "Maya", "Ann"), dealer="Ann", rules=RulesType(max_cards=None)))
    table.apply(Play("Sam", 1))
    for name, count in (("Leo", 1), ("Maya", 1), ("Ann", 1)):
        table.apply(Play(name, count))
    assert table.state.game.turn == "Sam" and table.state.game.ranks_allowed == (R.FIVE,)
    table.apply(Play("Sam", 2))
    pile = table.state.game.pile
    table.apply(call("Maya", "5", "9"))
    game = table.state.game
    assert game.last_call.lie and game.last_call.picked_up_by == "Sam" and game.last_call.cards == pile
    assert game.last_call.announcement() == f"Lie: Sam picks up {pile} cards"
    assert game.turn == "Leo" and game.ranks_allowed == (R.SIX,)
    # Had both been 5s, Maya would have picked up the pile.
    table.apply(__import__("assistant").Undo())
    table.apply(call("Maya", "5", "5"))
    assert not table.state.game.last_call.lie and table.state.game.last_call.picked_up_by == "Maya"


def test_a_proposed_verdict_is_shown_without_changing_the_game():
    from assistant import verdict_for

    table = sitting(("Sam", "Leo", "Maya"), Play("Sam", 2))
    before = table.state
    verdict = verdict_for(table.state.game, "Maya", (R.ACE, R.NINE))
    assert verdict.lie and verdict.picked_up_by == "Sam" and verdict.cards == 2
    assert verdict.wrong_ranks == (R.NINE,) and verdict.count_difference == 0
    assert table.state is before and table.state.game.pile == 2




def test_the_scoring_is_said_for_the_kinds_of_games_the_standing_counts():
    """A sitting may mix match and ranked games: its standing then adds one point a win to 3-2-1 for places, and is
    said so (on the screen and in the command line's summary alike)."""
    assert standing_counts({TableKind.MATCH}) == "one point per win"
    assert standing_counts({TableKind.RANKED}) == "3-2-1 points for places"
    assert standing_counts({TableKind.MATCH, TableKind.RANKED}) == ("match games: one point per win; ranked games: "
                                                                    "3-2-1 points for places")
    assert MatchTable(TableKind.RANKED).kinds() == {TableKind.RANKED}, "no game finished: the table's own kind"


def test_the_last_deal_is_known_after_an_undo_takes_it_back():
    """A setup offers a deal taken back again (its players, dealer and rules): the log keeps it, the state does not."""
    table = Sitting()
    assert table.last_deal is None and table.deal_taken_back is None
    first = NewGame(("Alice", "Ben"), dealer="Ben")
    table.apply(first)
    table.apply(Play("Alice", 1))
    assert (table.last_deal, table.deal_taken_back) == (first, None)
    second = NewGame(("Alice", "Ben", "Cara"), dealer="Alice", rules=RulesType(jokers=True))
    table.apply(second)
    table.apply(Undo())
    assert (table.last_deal, table.deal_taken_back) == (second, second) and table.state.game.players == ("Alice", "Ben")
    table.apply(Undo())  # Alice's play: the first deal still counts
    assert (table.last_deal, table.deal_taken_back) == (second, second)
    table.apply(first)
    assert (table.last_deal, table.deal_taken_back) == (first, None)


def test_a_setup_offers_the_deal_taken_back_else_the_last_game_else_the_table():
    """The setup's seats, dealer, rules and table: a deal undone to change a seat or the dealer offers its own choices
    again, not the game before's; with no deal taken back, the last game's; with no game, the table's players."""
    table = Sitting()
    assert table.setup_offer() == SetupOffer(players=(), dealer=None, rules=RulesType(), table=TableKind.MATCH,
                                             first_drawn=False)
    first = NewGame(("Alice", "Ben"), dealer="Ben", rules=RulesType(decks=2))
    table.apply(first)
    assert table.setup_offer() == SetupOffer(players=("Alice", "Ben"), dealer=None, rules=RulesType(decks=2),
                                             table=TableKind.MATCH, first_drawn=False)
    second = NewGame(("Alice", "Ben", "Cara"), dealer="Alice", rules=RulesType(jokers=True, table=TableKind.RANKED))
    table.apply(second)
    table.apply(Undo())
    assert table.setup_offer() == SetupOffer(players=("Alice", "Ben", "Cara"), dealer="Alice",
                                             rules=RulesType(jokers=True, table=TableKind.RANKED),
                                             table=TableKind.RANKED, first_drawn=False)
    table.apply(Undo())  # the first deal too: no game, the table's players
    table.apply(Winner("Cara", players=("Cara", "Dev")))
    assert table.setup_offer() == SetupOffer(players=("Cara", "Dev"), dealer=None, rules=RulesType(),
                                             table=TableKind.MATCH, first_drawn=False)


def test_a_setup_offers_the_tables_own_scoring_and_the_last_deals_way_of_choosing_the_first_player():
    """Two choices with sources of their own: the table's kind is the table's, which a game tapped in may have scored
    otherwise than the last game's rules; a first player drawn at random is drawn again after the last deal, even one
    taken back and then passed by."""
    tapped = Sitting([Winner(places=("Cara", "Ann"), players=("Ann", "Ben", "Cara"), table=TableKind.RANKED)])
    offer = tapped.setup_offer()
    assert offer.table is TableKind.RANKED and offer.rules == RulesType() and offer.rules.table is TableKind.MATCH
    played = sitting(("Ann", "Ben"), Winner("Ann"), Winner(places=("Ben", "Ann"), table=TableKind.RANKED))
    offer = played.setup_offer()  # the last game's players and rules, and the scoring of the games tapped in since
    assert offer.players == ("Ann", "Ben") and offer.rules.table is TableKind.MATCH and offer.table is TableKind.RANKED
    table = sitting(("Alice", "Ben", "Cara"))
    table.apply(NewGame(("Alice", "Ben"), first="Ben"))
    assert table.setup_offer().first_drawn and table.setup_offer().dealer is None
    table.apply(Undo())
    table.apply(Play("Alice", 1))  # the game before played on: the deal taken back is history
    offer = table.setup_offer()
    assert offer.players == ("Alice", "Ben", "Cara") and offer.dealer is None and offer.first_drawn


def test_a_deal_taken_back_is_history_once_anything_counts_after_it():
    """A deal undone, then the game before played on or a winner tapped in: the setup offered that deal's dealer
    still, though the deal had passed on with each game tapped in since (a review). Undos after it keep it offered."""
    table = Sitting()
    first = NewGame(("Alice", "Ben"), dealer="Ben")
    table.apply(first)
    second = NewGame(("Alice", "Ben", "Cara"), dealer="Alice")
    table.apply(second)
    table.apply(Undo())
    table.apply(Play("Alice", 1))  # the first game played on
    assert (table.last_deal, table.deal_taken_back) == (second, None)
    table.apply(Undo())  # that play taken back: the deal taken back is the table's last word again
    assert (table.last_deal, table.deal_taken_back) == (second, second)
    table.apply(Undo())  # the first deal too
    table.apply(Winner("Cara", players=("Alice", "Ben", "Cara")))
    assert (table.last_deal, table.deal_taken_back) == (second, None)
