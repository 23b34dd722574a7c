"""Players' names as the referee seats them (assistant/players.py): one form, a longest length, one player to a name
whatever its case. The setup screen seats by these rules, and an import keeps to them."""

from __future__ import annotations

import pytest

from assistant import NewGame, Play, Winner
from assistant.players import MAX_NAME, clean_name, same_player, unseatable


def test_a_name_is_kept_in_one_form():
    """"Zoë" typed with a combining diaeresis, or "王伟" with a zero-width space, looked exactly like a player already
    seated and was accepted as a second one."""
    assert clean_name("Zoe\u0308") == "Zoë"
    assert clean_name("王伟\u200b") == "王伟"
    assert clean_name("  Ann   Lee ") == "Ann Lee" == clean_name("Ann\tLee") == clean_name("Ann\nLee")
    # ... while the joiners that shape Persian letters and join emoji stay
    assert clean_name("نیک\u200cنام") == "نیک\u200cنام"
    assert clean_name("👨\u200d👩\u200d👧") == "👨\u200d👩\u200d👧"


@pytest.mark.parametrize("typed, kept", [("Ann \u200b Lee", "Ann Lee"), ("Zoe\u200b\u0308", "Zoë"),
                                         ("\u200bAnn", "Ann"), ("Ann\x00 \x00Lee", "Ann Lee")])
def test_a_name_seated_is_in_its_own_clean_form(typed, kept):
    """What shows nothing was taken out after the spaces were made single and the letters composed: "Ann \\u200b Lee"
    was seated with two spaces, and "Zoe\\u200b" and a diaeresis with its letters apart, so that the setup seated a
    name an import of the app's own transcript refused as not in its clean form."""
    assert clean_name(typed) == kept == clean_name(kept)
    assert unseatable(NewGame((clean_name(typed), "Ben"))) is None


def test_names_that_differ_only_in_case_or_form_are_one_player():
    assert same_player("Ann", "ANN") and same_player("Strauß", "STRAUSS") and same_player("Zoë", "zoe\u0308")
    assert same_player("王伟", "王伟\u200b")
    assert not same_player("Ann", "Anna") and not same_player("Ann Lee", "AnnLee")
    assert unseatable(NewGame(("Ann", "Ben", "ANN"))) == ("Ann and ANN differ only in case: the referee seats no two "
                                                         "players of a game so alike")
    # the same name twice is the rules' to refuse ("Ann is listed twice"), not said as differing in case
    assert unseatable(NewGame(("Ann", "Ben", "Ann"))) is None


def test_only_the_names_an_event_gives_are_checked():
    """A deal's players, dealer and first player, and a result's winner, places and players; a play's player is one of
    the game's, already checked with its deal."""
    long = "O" * (MAX_NAME + 1)
    assert unseatable(NewGame(("Ann", "Ben"), dealer=long)).startswith(f"the name {long} has 17 characters")
    assert unseatable(NewGame(("Ann", "Ben"), first="Ben ")).startswith('the name "Ben " is not written')
    assert unseatable(Winner(player="Ann ")) is not None
    assert unseatable(Winner(places=("Ann", long))) is not None
    assert unseatable(Play(long, 1)) is None
    assert unseatable(NewGame(("O" * MAX_NAME, "Ben"))) is None
