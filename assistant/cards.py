"""Card ranks as the referee and the card reader both name them.

Suits never matter in Cheat, so a card is identified by its rank alone; the reader may still
report a suit for display, but the rules never look at it.
"""

from __future__ import annotations

from enum import Enum


class Rank(str, Enum):
    """A rank as written in transcripts: ``A 2 ... 10 J Q K`` and ``JOKER``."""

    ACE = "A"
    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "10"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"
    JOKER = "JOKER"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, text: object) -> "Rank":
        """Read a rank from its written form ("Q", "10", "JOKER"); lower case and spaces are forgiven."""
        rank = _BY_TEXT.get(text) if type(text) is str else None
        if rank is not None:
            return rank
        if isinstance(text, str) and text.strip().upper() in _BY_TEXT:
            return _BY_TEXT[text.strip().upper()]
        raise ValueError(f"{text!r} is not a rank (expected one of {', '.join(r.value for r in cls)})")


_BY_TEXT: dict[str, Rank] = {rank.value: rank for rank in Rank}

#: The thirteen ranks that can be claimed, in the "up" order of the rank cycle.
CLAIMABLE: tuple[Rank, ...] = tuple(r for r in Rank if r is not Rank.JOKER)

#: Suits as the card reader reports them; the rules ignore them.
SUITS: tuple[str, ...] = ("S", "H", "D", "C")


_PLACE: dict[Rank, int] = {rank: place for place, rank in enumerate(CLAIMABLE)}


def card_count(n: int) -> str:
    """"1 card", "7 cards": a number of cards as the messages, the summaries and the screen say it."""
    return f"{n} card{'' if n == 1 else 's'}"


def last_cards(n: int) -> str:
    """"their last card", "their last cards": what a play of ``n`` cards that empties a hand laid. "Dev played their
    last cards" of one card read as a miscount."""
    return f"their last card{'' if n == 1 else 's'}"


def step(rank: Rank, delta: int) -> Rank:
    """The rank ``delta`` places along the cycle A, 2, ..., K, A (negative goes down)."""
    return CLAIMABLE[(_PLACE[rank] + delta) % len(CLAIMABLE)]
