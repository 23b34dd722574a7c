"""How the referee words things (ui/words.py): the core's messages turned into sentences for the table."""

from __future__ import annotations

import time

from assistant import Call, IllegalAction, NewGame, Pass, Play, Rank, Sitting, StorageError, Undo, Winner, verdict_for
from assistant.game import Claim, GameResult
from assistant.players import clean_name
from assistant.rules import Rules, TableKind
from assistant.seen import SeenCards
from assistant.storage import (CalledFirst, CallChanged, CallOpenElsewhere, MovedOn, OpenCall, SittingInfo,
                               StaleSitting)
from ui import words


def test_a_core_message_is_shown_as_a_sentence():
    assert words.sentence("a sitting needs a name") == "A sitting needs a name."
    assert words.sentence("Nothing to undo.") == "Nothing to undo."


def test_a_locked_or_full_database_says_what_to_do():
    locked = words.storage_problem("cannot write to the database /x.sqlite3: database is locked")
    assert locked.startswith("Cannot write to the database /x.sqlite3: database is locked.")
    assert "close that program, then tap again" in locked
    said = words.storage_problem("cannot write to the database /x.sqlite3: database is locked (another program is "
                                 "writing to it: try again when it is done)")  # as the storage says it
    assert said.lower().count("another program is writing to it") == 1, said
    assert "Free some disk space" in words.storage_problem("cannot write to the database /x: database or disk is full")
    quota = words.storage_problem("cannot write to the database /x: disk I/O error (the disk quota is used up)")
    assert quota.endswith("(the disk quota is used up). Free some disk space, then tap again: nothing was lost."), quota
    assert words.storage_problem("cannot open the database /x: it is a folder") == "Cannot open the database /x: it is a folder."


def test_a_call_made_first_elsewhere_is_said_with_its_caller_even_where_other_windows_changes_go_unsaid():
    first = words.refusal(CalledFirst("Leo"), on_table=False)
    assert first == words.Refusal(words.REFUSED, "Leo called Cheat! on this play first, in another window: that call "
                                                 "is the one open now.", stale=False)
    open_elsewhere = words.refusal(CallOpenElsewhere("Leo"), on_table=False)
    assert open_elsewhere == words.Refusal(words.REFUSED, "Leo has called Cheat! in another window, so your tap was "
                                           "not recorded: the screen now shows that call. Settle or cancel it first.",
                                           stale=False)


def test_a_call_changed_elsewhere_says_to_check_the_call_before_tapping_again():
    said = words.refusal(CallChanged("Leo's call was cancelled or settled in another window"), on_table=False)
    assert said == words.Refusal(words.REFUSED, "Leo's call was cancelled or settled in another window. Your tap was "
                                                "not recorded: check the call before tapping again.", stale=True)


def test_a_tap_on_an_old_screen_is_said_even_where_other_windows_changes_go_unsaid():
    said = words.refusal(MovedOn("the game has moved on since the screen this tap was made on was drawn"), on_table=True)
    assert said == words.Refusal(words.REFUSED, words.MOVED_ON, stale=False)
    assert said.text.startswith("That tap was made on the screen as it stood before the last action")


def test_another_windows_change_first_says_what_to_check_on_the_screen_tapped():
    stale = StaleSitting("the game was changed in another window; it has been reloaded")
    assert words.refusal(stale, on_table=False) == words.Refusal(
        words.REFUSED, "Another window changed this game first, so your tap was not recorded. The screen now shows the "
                       "game as it stands: check whose turn it is before tapping again.", stale=True)
    assert words.refusal(stale, on_table=True).text == (
        "Another window changed this game first, so your tap was not recorded. The screen now shows the match table "
        "as it stands: check it before tapping again.")


def test_a_database_or_rule_refusal_is_an_error_at_the_top_in_the_referees_words():
    locked = words.refusal(StorageError("cannot write to the database /x.sqlite3: database is locked"), on_table=False)
    assert locked == words.Refusal("error", "Cannot write to the database /x.sqlite3: database is locked. Another "
                                            "program is writing to it: close that program, then tap again.", stale=False)
    assert words.refusal(IllegalAction("it is Ben's turn, not Cara's"), on_table=False) == words.Refusal(
        "error", "It is Ben's turn, not Cara's.", stale=False)


def test_the_setup_says_how_many_players_a_deal_lacks_or_has_too_many():
    assert words.players_problem(0, Rules()) == "Add at least 2 more players: a game takes 2 or more."
    assert words.players_problem(1, Rules()) == "Add at least 1 more player: a game takes 2 or more."
    assert words.players_problem(2, Rules()) is None and words.players_problem(10, Rules()) is None
    assert words.players_problem(11, Rules()) == ("11 players is too many for one deck: at most 10 (choose two decks "
                                                  "for up to 20).")
    assert words.players_problem(11, Rules(decks=2)) is None
    assert words.players_problem(21, Rules(decks=2)) == "21 players is too many for two decks: at most 20."


def test_the_history_says_how_much_of_each_game_the_referee_followed_and_places_only_where_ranked():
    rows = (GameResult(1, ("Ann", "Ben", "Cy"), ("Ben",), TableKind.MATCH, tracked=True, tapped=False),
            GameResult(2, ("Ann", "Ben", "Cy"), ("Cy", "Ann"), TableKind.RANKED, tracked=True, tapped=True),
            GameResult(3, ("Ann", "Ben"), ("Ann",), TableKind.MATCH, tracked=False, tapped=True))
    assert words.history_rows(rows, ranked=True) == {
        "Game": [1, 2, 3], "Winner": ["Ben", "Cy", "Ann"], "Places": ["Ben", "Cy, Ann", "Ann"],
        "Table": ["match", "ranked", "match"], "Tracked": ["yes", "until a tap", "one tap"],
        "Players": ["Ann, Ben, Cy", "Ann, Ben, Cy", "Ann, Ben"]}
    assert "Places" not in words.history_rows(rows, ranked=False), "the winner again, on a match table"


def test_undo_names_what_it_takes_back():
    assert words.undo_label(NewGame(("Sam", "Maya"))) == "Undo the deal"
    assert words.undo_label(Play("Sam", 2)) == "Undo Sam's play"
    assert words.undo_label(Pass("Maya")) == "Undo Maya's pass"
    assert words.undo_label(Call("Maya", (Rank.ACE,))) == "Undo Maya's call and its verdict"
    assert words.undo_label(Winner("Sam")) == "Undo the result recorded for Sam"
    assert words.undo_label(Winner(places=("Sam", "Maya"))) == "Undo the result recorded for Sam, Maya"
    assert words.undo_label(Undo()) == "Undo the last action"


def test_a_call_another_window_cancelled_is_said_and_one_it_settled_is_not():
    """A window that showed Ben's call saw it vanish without a word where another window cancelled it; the verdict
    another window gave needs none (the page shows it), nor does a call still open there."""
    held = OpenCall(at=5, caller="Ben")
    assert words.call_ended_elsewhere(held, 5, None, []) == [
        "Another window cancelled Ben's call: the play stands, and may be called."]
    assert words.call_ended_elsewhere(held, 5, None, [Call("Ben", (Rank.ACE,))]) == []
    assert words.call_ended_elsewhere(held, 5, held, []) == []  # still open there
    assert words.call_ended_elsewhere(held, 4, None, []) == []  # shown on another point of the game
    assert words.call_ended_elsewhere(None, 5, None, []) == []


def test_a_correction_another_window_ended_says_whether_its_cards_were_kept_or_corrected():
    held = OpenCall(at=5, caller="Ben", revealed=(Rank.ACE,), original=(Rank.ACE,))
    assert words.call_ended_elsewhere(held, 5, None, [Call("Ben", (Rank.ACE, Rank.TWO))]) == [
        "Another window corrected the cards of Ben's call: A, 2."]
    assert words.call_ended_elsewhere(held, 5, None, [Call("Ben", (Rank.ACE,))]) == [
        "Another window kept the first verdict on Ben's call."]
    assert words.call_ended_elsewhere(held, 5, None, []) == []  # a correction given up there is its verdict kept
    assert words.correction_ended("Ben", (Rank.ACE,), (Rank.ACE,), seen_open=False) == (
        "Another window reopened Ben's call and kept its first verdict.")


def test_a_correction_that_gives_the_same_cards_in_another_order_kept_the_first_verdict():
    """A camera lists the cards as they lie, a table taps them in as it picks them up: the same cards in another order
    give the same verdict, and were said to be corrected."""
    held = OpenCall(at=5, caller="Ben", revealed=(Rank.KING, Rank.SEVEN), original=(Rank.KING, Rank.SEVEN))
    assert words.call_ended_elsewhere(held, 5, None, [Call("Ben", (Rank.SEVEN, Rank.KING))]) == [
        "Another window kept the first verdict on Ben's call."]


def test_another_windows_undos_are_said_in_order_and_a_verdict_given_again_as_a_correction():
    """A verdict taken back and given again there is a correction, not "took back Ben's call and its verdict"; the
    plain undos around it are said in one sentence each side of it."""
    first, again = Call("Ben", (Rank.ACE,)), Call("Ben", (Rank.FIVE,))
    taken = [(Play("Ann", 1), None), (first, again), (Pass("Cara"), None), (NewGame(("Ann", "Ben")), None)]
    assert words.undone_elsewhere(taken, None) == [
        "Another window took back Ann's play.",
        "Another window corrected the cards of Ben's call: 5.",
        "Another window took back Cara's pass, then the deal."]
    correcting = OpenCall(at=7, caller="Ben", revealed=(Rank.ACE,), original=(Rank.ACE,))
    assert words.undone_elsewhere([(first, None)], correcting) == [
        "Another window is correcting the cards of Ben's call."]
    assert words.undone_elsewhere([(first, None)], None) == ["Another window took back Ben's call and its verdict."]


def test_the_honest_shortcut_reads_as_said_for_one_two_or_more_cards():
    assert words.honest_label(Claim("Sam", 1, Rank.ACE)) == "One ace: honest"
    assert words.honest_label(Claim("Sam", 2, Rank.QUEEN)) == "Both queens: honest"
    assert words.honest_label(Claim("Sam", 3, Rank.FIVE)) == "All three 5s: honest"


def test_a_name_in_a_heading_is_kept_whole_but_may_break_between_its_words():
    """"Anne- / Sophie is out" on a phone: a name broke at its hyphen. Each word is kept whole (and escaped)."""
    assert words.name_html("Anne-Sophie") == "<span class='cr-nb'>Anne-Sophie</span>"
    assert words.name_html("Bartholomew <Kemp>", "'s") == (
        "<span class='cr-nb'>Bartholomew</span> <span class='cr-nb'>&lt;Kemp&gt;'s</span>")


def test_names_in_right_to_left_scripts_keep_their_places_and_points_beside_them():
    """"1. 3 · 2+ שרה לוי .2" was shown for ranked places: each name must be isolated from the numbers around it, and
    the list read left to right even when the first name is Arabic."""
    text = words.places_text(("محمد", "שרה לוי", "Zoë"))
    assert text == "\u200e1. \u2068محمد\u2069 +3 · 2. \u2068שרה לוי\u2069 +2 · 3. Zoë +1"
    assert words.names_list(("محمد", "Zoë")) == "\u200e\u2068محمد\u2069, Zoë"
    # names written left to right get no marks: they would travel into a copy of the table
    assert words.places_text(("Ann", "Zoë")) == "1. Ann +3 · 2. Zoë +2"


def test_a_name_that_looks_like_one_at_the_table_is_the_same_name():
    """"Zoë" typed with a combining diaeresis, or "王伟" with a zero-width space, looked exactly like a player already
    seated and was accepted as a second one (the names' one form: tests/assistant/test_players.py). A name seated
    before (a game's players, a setup kept in the page's address) is compared in the same form."""
    assert words.check_name("Zoë", ["Zoe\u0308"]) is not None
    assert words.check_name(clean_name("Zoe\u0308"), ["Zoë"]).startswith("Zoë is already at the table")
    assert words.check_name(clean_name("王伟\u200b"), ["王伟"]) is not None
    assert words.check_name("ann", ["Ann"]).startswith("ann is already at the table")


def test_a_name_too_long_for_the_table_screen_is_refused_with_the_limit():
    assert words.check_name("Oluwaseun Adeyem", []) is None
    assert words.check_name("Oluwaseun Adeyemi", []) == ("\"Oluwaseun Adeyem…\" is too long: at most 16 characters, "
                                                         "so it fits on the table screen.")
    assert words.check_name("", []) == "A player needs a name: the box is empty."


def test_seen_cards_that_can_be_anywhere_are_not_listed():
    """A card that can be in every hand that holds cards, or the pile, tells the table nothing: listed, such groups
    ran to three lines above the Cheat! buttons in a five-player game."""
    players = ("Ann", "Ben", "Cara")
    seen = (SeenCards((Rank.ACE, Rank.ACE), frozenset({"Ann"})),
            SeenCards((Rank.EIGHT,), frozenset(players), frozenset({1})),
            SeenCards((Rank.KING,), frozenset({"Ann", "Ben"}), frozenset({2})))
    assert words.seen_text(seen, players, players) == "in Ann's hand: A A · in Ann's or Ben's hand, or the pile: K"
    # Cara out of cards: the kings can be in every hand that holds any, or the pile
    assert words.seen_text(seen, players, ("Ann", "Ben")) == "in Ann's hand: A A"
    assert words.seen_text(seen[1:2], players, players) == ""
    # the same hands, another play on the pile: one place to the table
    later = (*seen, SeenCards((Rank.SEVEN,), frozenset({"Ann", "Ben"}), frozenset({2, 3})))
    assert words.seen_text(later, players, players) == "in Ann's hand: A A · in Ann's or Ben's hand, or the pile: 7 K"
    # three hands read as a list, not "Ann's or Ben's or Cara's"
    four = ("Ann", "Ben", "Cara", "Dev")
    three = (SeenCards((Rank.NINE,), frozenset({"Ann", "Ben", "Dev"})),)
    assert words.seen_text(three, four, four) == "in Ann's, Ben's or Dev's hand: 9"


def test_a_reveal_of_fewer_or_more_cards_than_claimed_says_where_the_difference_went():
    """"Cara picks up 6 cards" beside a hand that grew by 8 read like the referee's mistake: two of her three
    claimed cards were never laid, and went back to her hand."""
    three = Claim("Cara", 3, Rank.THREE)
    assert words.count_corrected(three, 3) == ""
    assert words.count_corrected(three, 1) == "1 card laid, not the 3 claimed: the other 2 go back to Cara's hand"
    assert words.count_corrected(three, 2) == "2 cards laid, not the 3 claimed: the other one goes back to Cara's hand"
    assert words.count_corrected(three, 4) == "4 cards laid, not the 3 claimed: one more comes out of Cara's hand"
    assert words.count_corrected(three, 6) == "6 cards laid, not the 3 claimed: 3 more come out of Cara's hand"
    assert words.count_corrected(three, 3, brief=True) == ""
    assert words.count_corrected(three, 1, brief=True) == "1 laid, not 3: 2 back to Cara's hand"
    assert words.count_corrected(three, 5, brief=True) == "5 laid, not 3: 2 more out of Cara's hand"


def _called(player: str, count: int) -> Sitting:
    """A sitting where ``player`` has just played ``count`` cards, first of three, and Ben may call."""
    table = Sitting()
    table.apply(NewGame((player, "Ben", "Cara")))
    table.apply(Play(player, count))
    return table


def test_the_line_under_the_cards_tapped_in_says_what_to_tap_then_the_verdict_they_would_make_escaped():
    """While fewer than claimed are in, Apply waits for the rest; a name is escaped, as it is text in HTML."""
    game = _called("A<n>", 3).state.game
    assert words.if_these_are_the_cards(game, game.last_play, (), None) == (
        "Tap the ranks of the cards as they lie face up.")
    three = (Rank.ACE,) * 3
    assert words.if_these_are_the_cards(game, game.last_play, three, verdict_for(game, "Ben", three)) == (
        "If these are the cards: <b>Honest: Ben picks up 3 cards</b>")
    one = (Rank.ACE,)
    assert words.if_these_are_the_cards(game, game.last_play, one, verdict_for(game, "Ben", one)) == (
        "Apply once every card laid is in. If these are the cards: <b>Lie: A&lt;n&gt; picks up 1 card</b> "
        "(1 laid, not 3: 2 back to A&lt;n&gt;&#x27;s hand; pile 1, not 3)")


def test_a_verdict_on_fewer_cards_than_claimed_says_why_its_pile_is_not_the_pile_shown():
    """"Dev picks up 28 cards" beside a pile of 40 read like the referee's mistake."""
    game = _called("Dev", 3).state.game
    assert words.pile_corrected(game, verdict_for(game, "Ben", (Rank.ACE,))) == (
        " (1 laid, not 3: 2 back to Dev's hand; pile 1, not 3)")
    assert words.pile_corrected(game, verdict_for(game, "Ben", (Rank.ACE,) * 3)) == ""


def test_what_the_page_says_in_words_of_its_own_is_hidden_from_a_screen_reader():
    assert words.unspoken("⚠") == "<span aria-hidden='true'>⚠</span>"


def test_a_place_given_on_a_ranked_table_says_its_points_and_that_play_goes_on():
    """The very words a place taken back closes again: they must not change between the two."""
    assert words.place_text("Ann", 1) == "Ann is out: 1st place, +3 points. Play goes on for the next places."
    assert words.place_text("Ben", 2) == "Ben is out: 2nd place, +2 points. Play goes on for the next places."


def test_a_place_worth_one_point_says_point_not_points():
    """Third place on a ranked table earns one point: it said "+1 points" (a ranked game ends as its third place is
    given, so the corner does not say it now, but the words must be right for every place)."""
    assert words.place_text("Cat", 3) == "Cat is out: 3rd place, +1 point. Play goes on for the next places."


def test_a_download_is_named_after_its_sitting_and_day_in_characters_every_system_takes():
    assert words.file_name("Friday at Maya's", "2026-12-07", "calls.csv") == "Friday at Maya's 2026-12-07 calls.csv"
    assert words.file_name('Zoë: "finals" 1/2', "2026-12-07", "game log.jsonl") == \
        "Zoë- -finals- 1-2 2026-12-07 game log.jsonl"
    assert words.file_name(".. Tonight  *", "2026-12-07", "match table.csv") == "Tonight - 2026-12-07 match table.csv"


def test_two_sittings_of_one_name_begun_the_same_day_are_told_apart_by_number_and_time(monkeypatch):
    """Two "Tonight (2026-12-04)" in the sidebar could not be told apart; one of another name, or of another day,
    keeps its name and day alone. The day is this machine's: 02:30 UTC is the evening before in New York."""
    monkeypatch.setenv("TZ", "EST5")
    time.tzset()
    try:
        sittings = [SittingInfo(1, "Tonight", "2026-12-05T02:30:00+00:00", 0),
                    SittingInfo(2, "Tonight", "2026-12-05T03:45:00+00:00", 0),
                    SittingInfo(3, "Tonight", "2026-12-05T12:00:00+00:00", 0),
                    SittingInfo(4, "Finals", "2026-12-05T03:00:00+00:00", 0)]
        assert words.sitting_names(sittings) == {
            1: "Tonight (no. 1, 2026-12-04 21:30)",
            2: "Tonight (no. 2, 2026-12-04 22:45)",
            3: "Tonight (2026-12-05)",
            4: "Finals (2026-12-04)"}
        # a time that cannot be read is shown as written, with no time after it
        assert words.sitting_names([SittingInfo(5, "Bad", "yesterday", 0), SittingInfo(6, "Bad", "yesterday", 0)]) == {
            5: "Bad (no. 5, yesterday)", 6: "Bad (no. 6, yesterday)"}
    finally:
        monkeypatch.undo()
        time.tzset()


def test_a_sitting_began_on_this_machines_day_and_time_not_utcs(monkeypatch):
    """The database keeps UTC: a sitting begun at 21:30 on a Friday in New York (02:30 UTC on Saturday) was listed in
    the sidebar and saved in the downloads' names as Saturday's."""
    monkeypatch.setenv("TZ", "EST5")  # a POSIX zone: UTC-5, with no zone files needed
    time.tzset()
    try:
        assert words.local_moment("2026-12-05T02:30:00.000000+00:00") == ("2026-12-04", "21:30")
        assert words.local_moment("2026-12-05 02:30:00") == ("2026-12-04", "21:30")  # no zone: UTC, as it is written
        assert words.local_moment("not a time at all") == ("not a time at all", "")  # shown as written
        # a day this zone's clock cannot reach (a row edited by hand): shown as written, not a page's traceback
        assert words.local_moment("0001-01-01T00:00:00+00:00") == ("0001-01-01T00:00:00+00:00", "")
    finally:
        monkeypatch.undo()
        time.tzset()


def test_a_name_is_shown_as_typed_in_markdown_not_as_markup():
    """What Streamlit's markdown reads as markup (GitHub's markdown, LaTeX, its directives and emoji names, links made
    of addresses) is written as character references, which markdown and HTML both show as the character typed; the
    rest of a name, and a colon or a dot before a space, stay as typed."""
    said = {"__init__.jpg": "&#95;&#95;init&#95;&#95;.jpg", "_Bo_ a_ _b": "&#95;Bo&#95; a&#95; &#95;b", "a*b*.jpg": "a&#42;b&#42;.jpg",
            "[x](y).jpg": "&#91;x&#93;(y).jpg", "`x`": "&#96;x&#96;", "~~x~~": "&#126;&#126;x&#126;&#126;",
            "back\\slash": "back&#92;slash", "$x$": "&#36;x&#36;", "a|b": "a&#124;b", ":red[x]": "&#58;red&#91;x&#93;",
            ":smile:": "&#58;smile:", "x:material/home": "x&#58;material/home", "https://x.org": "https&#58;//x.org",
            "ann@x.org": "ann&#64;x.org", "www.x.org": "www&#46;x.org", "<b>Tom & Jo</b>": "&lt;b&gt;Tom &amp; Jo&lt;/b&gt;",
            "# Ann": "&#35; Ann", "- Ann": "&#45; Ann", "+ Ann": "&#43; Ann", "1. Ann": "1&#46; Ann", "12) Ann": "12&#41; Ann",
            "{x}": "&#123;x&#125;"}
    assert {name: words.md(name) for name in said} == said
    for plain in ("Anne-Sophie", "Dr. Who", "O'Neill", "Zoë", "Sam: 3 kings (2 laid)", "Game 3. Ann #1 + Bo - Cy!",
                  "rows_4", "/tmp/test_a_db/referee.sqlite3"):  # "_" between letters opens no emphasis
        assert words.md(plain) == plain
    assert clean_name("*Ann* _Bo_ [x](y)") == "*Ann* _Bo_ [x](y)", "a name may hold markup: it must be escaped"
