"""The cards the table has seen face up in reveals, and where each of them can be now.

Why: the rules README has the referee keep "the cards that were shown face up in reveals and whose hand they went
into". A card seen going into Bob's hand stays there until Bob lays cards face down (then it may be in the pile), and
the pile goes whole to whoever picks it up. Followed that way, the seen cards say what a hand cannot hold: once the
four aces have gone into Bob's hand, an ace turned up from Cy's play does not fit, and the table is told so (an
earlier reveal entered wrong, or the camera misreading); the cards shown win, and the record that they contradict is
forgotten.

Each card of a :class:`SeenCards` group stands for one card of the deck, always in one of the places the group names. Two
rules keep that true. A card seen again (Bob plays an ace he was seen to take, and it is turned up) must not count
twice, so a reveal adds only the cards of a rank that no seen card that may be in the pile accounts for. And a card
that may be gone (laid out in a four) is forgotten: forgetting a card only means checking less, never refusing a
move a real deck allows.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

from .cards import Rank


@dataclass(frozen=True)
class SeenCards:
    """Cards seen face up that can each be in any of the same places: these hands, or the pile. Kept as groups, not
    card by card: a game has a few such groups and dozens of cards, and every play looks through them."""

    ranks: tuple[Rank, ...]
    hands: frozenset[str]
    pile: bool = False


Seen = tuple[SeenCards, ...]


def _grouped(groups) -> Seen:
    """Cards in the same places joined into one group, in the order first met; empty groups dropped."""
    joined: dict[tuple[frozenset[str], bool], list[Rank]] = {}
    for hands, pile, ranks in groups:
        if ranks:
            joined.setdefault((hands, pile), []).extend(ranks)
    return tuple(SeenCards(tuple(ranks), hands, pile) for (hands, pile), ranks in joined.items())


def laid_down(seen: Seen, player: str) -> Seen:
    """``player`` laid cards face down on the pile: any card seen going into their hand may be among them."""
    if not any(player in group.hands and not group.pile for group in seen):
        return seen
    return _grouped((g.hands, g.pile or player in g.hands, g.ranks) for g in seen)


def picked_up(seen: Seen, revealed: tuple[Rank, ...], player: str, taker: str) -> Seen:
    """The pile, with the cards just turned up in it (``player``'s last play), goes into ``taker``'s hand. Of the seen
    cards in the pile, only those that may have come from ``player``'s hand can be among the cards turned up."""
    in_pile = Counter(rank for group in seen if group.pile and player in group.hands for rank in group.ranks)
    new = [rank for rank, count in Counter(revealed).items() for _ in range(max(0, count - in_pile[rank]))]
    moved = [(g.hands | {taker}, False, g.ranks) if g.pile else (g.hands, False, g.ranks) for g in seen]
    return _grouped(moved + [(frozenset((taker,)), False, tuple(new))])


def laid_out(seen: Seen, player: str, rank: Rank) -> Seen:
    """``player`` laid out four of ``rank``: the seen cards of that rank in their hand may be among them, forgotten."""
    return _forgotten(seen, rank, lambda group: player in group.hands)


def forget(seen: Seen, rank: Rank, player: str) -> Seen:
    """The seen cards of ``rank`` that could not be in ``player``'s hand, forgotten: the cards ``player`` showed say the
    table's record of them was wrong."""
    return _forgotten(seen, rank, lambda group: player not in group.hands)


def _forgotten(seen: Seen, rank: Rank, among: Callable[[SeenCards], bool]) -> Seen:
    """The seen cards of ``rank`` in the groups ``among`` picks, let go."""
    return _grouped((g.hands, g.pile, tuple(r for r in g.ranks if r is not rank) if among(g) else g.ranks)
                    for g in seen)


def emptied(seen: Seen, hands: Mapping[str, int], pending: str | None) -> Seen:
    """A hand with no cards left holds none of the seen cards, unless its last cards wait for a call (``pending``): they
    may be among them, to be turned up. (A card with no place left at all, which only an earlier reveal entered wrong
    can lead to, is forgotten.)"""
    empty = {name for name, held in hands.items() if held == 0 and name != pending}
    if not any(group.hands & empty for group in seen):
        return seen
    kept = ((g.hands - empty, g.pile, g.ranks) for g in seen)
    return _grouped((h, pile, ranks) for h, pile, ranks in kept if h or pile)


def elsewhere(seen: Seen, rank: Rank, player: str) -> list[SeenCards]:
    """The seen cards of ``rank`` that cannot be in ``player``'s hand, nor among the cards they just laid down: the
    groups they are in, with only that rank's cards."""
    away = (SeenCards(tuple(r for r in g.ranks if r is rank), g.hands, g.pile) for g in seen if player not in g.hands)
    return [group for group in away if group.ranks]


def count(groups: Iterable[SeenCards]) -> int:
    return sum(len(group.ranks) for group in groups)


def where(groups: Iterable[SeenCards], players: tuple[str, ...]) -> str:
    """Where some seen cards can be, in words: "Bob's hand", "Bob's or Dev's hand, or the pile", "the pile"."""
    groups = list(groups)
    names = [p for p in players if any(p in g.hands for g in groups)]
    hands = " or ".join(f"{name}'s" for name in names) + " hand" if names else ""
    pile = any(g.pile for g in groups)
    if hands and pile:
        return f"{hands}, or the pile"
    return hands or "the pile"
