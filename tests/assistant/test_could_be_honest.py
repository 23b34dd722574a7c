"""The one-tap "honest" reveal is offered only where the cards can all be of the rank claimed."""

from __future__ import annotations

from assistant import Play
from assistant.game import could_be_honest

from .helpers import sitting


def test_a_claim_the_deck_cannot_hold_or_a_call_the_rules_refuse_cannot_be_filled_in_as_honest():
    """Five aces from one deck cannot be: a shortcut that filled them in would only lead to the referee refusing
    them."""
    four = sitting(("Alice", "Ben", "Cara", "Dev"), Play("Alice", 4), max_cards=None).state.game
    assert could_be_honest(four, "Ben", four.last_play)
    assert not could_be_honest(four, "Alice", four.last_play)  # nobody calls their own play
    five = sitting(("Alice", "Ben", "Cara", "Dev"), Play("Alice", 5), max_cards=None).state.game
    assert not could_be_honest(five, "Ben", five.last_play)
