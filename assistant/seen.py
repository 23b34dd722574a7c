"""The cards the table has seen face up in reveals, and where each of them can be now.

Why: the rules README has the referee keep "the cards that were shown face up in reveals and whose hand they went
into". A card seen going into Bob's hand stays there until Bob lays cards face down (then it may be in that play, on
the pile), and the pile goes whole to whoever picks it up. Followed that way, the seen cards say what a hand cannot
hold: once the four aces have gone into Bob's hand, an ace turned up from Cy's play does not fit, and the table is told
so (an earlier reveal entered wrong, or the camera misreading); the cards shown win, and the record that they
contradict is forgotten.

Each card of a :class:`SeenCards` group stands for one card of the deck, always in one of the places the group names:
hands, and plays face down on the pile, numbered from the first on it. Plays are told apart because a call turns one of
them up: a seen card that may only be in that play, of a rank not turned up, is still in its hand, and of four seen
aces that may be in a play of one card turned up an ace, one went with the pile. Two rules keep that true. A card seen
again (Bob plays an ace he was seen to take, and it is turned up) must not count twice, so the cards turned up replace
the seen cards of their rank that may be in that play. And a card that may be gone (laid out in a four) is forgotten:
forgetting a card only means checking less, never refusing a move a real deck allows.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

from .cards import Rank


@dataclass(frozen=True)
class SeenCards:
    """Cards seen face up that can each be in any of the same places: these hands, or these plays on the pile. Kept as
    groups, not card by card: a game has a few such groups and dozens of cards, and every play looks through them."""

    ranks: tuple[Rank, ...]
    hands: frozenset[str]
    #: the plays face down on the pile these cards may be in, numbered from the pile's first (``Game.plays_on_pile``)
    plays: frozenset[int] = frozenset()

    @property
    def pile(self) -> bool:
        """Whether these cards may be in the pile."""
        return bool(self.plays)


Seen = tuple[SeenCards, ...]
_NO_PLAYS: frozenset[int] = frozenset()


def _grouped(groups: Iterable[tuple[frozenset[str], frozenset[int], Iterable[Rank]]]) -> Seen:
    """Cards in the same places joined into one group, in the order first met; empty groups dropped."""
    joined: dict[tuple[frozenset[str], frozenset[int]], list[Rank]] = {}
    for hands, plays, ranks in groups:
        ranks = tuple(ranks)
        if ranks:
            joined.setdefault((hands, plays), []).extend(ranks)
    return tuple(SeenCards(tuple(ranks), hands, plays) for (hands, plays), ranks in joined.items())


def laid_down(seen: Seen, player: str, play: int) -> Seen:
    """``player`` laid cards face down on the pile, its ``play``-th play: any card seen going into their hand may be
    among them."""
    # no two groups come to share their places (the play is new, and only groups naming the player take it), so the
    # groups stay as they are: this runs at every play
    return tuple(SeenCards(g.ranks, g.hands, g.plays | {play}) if player in g.hands else g for g in seen)


def picked_up(seen: Seen, revealed: tuple[Rank, ...], play: int, taker: str) -> Seen:
    """The pile goes into ``taker``'s hand, its ``play``-th play turned up as ``revealed``: the cards turned up go with
    it, and every seen card that may be in another play of the pile.

    The seen cards that may be in the play turned up are settled by it. Those of a rank not turned up were not in it.
    Of a rank turned up, the cards turned up stand for them: each may be one of them (a card seen again counts once),
    and where more such seen cards than cards turned up of their rank were followed, those beyond are still wherever
    else they could be (four seen aces that may be in a play of one: one ace went with the pile, three did not)."""
    shown = Counter(revealed)
    settled: list[tuple[frozenset[str], frozenset[int], Iterable[Rank]]] = []
    beyond: dict[Rank, list[SeenCards]] = {}
    for g in seen:
        if play not in g.plays:
            settled.append((g.hands, g.plays, g.ranks))
            continue
        settled.append((g.hands, g.plays - {play}, [r for r in g.ranks if r not in shown]))
        for rank in g.ranks:
            if rank in shown:
                beyond.setdefault(rank, []).append(g)
    for rank, groups in beyond.items():
        settled += [(hands, plays, [rank]) for hands, plays in _beyond(groups, shown[rank], play)]
    moved = ((hands | {taker} if plays else hands, _NO_PLAYS, ranks) for hands, plays, ranks in settled)
    return _grouped([*moved, (frozenset((taker,)), _NO_PLAYS, revealed)])


def _beyond(groups: list[SeenCards], shown: int, play: int) -> list[tuple[frozenset[str], frozenset[int]]]:
    """The places of the seen cards of one rank (``groups``: each card's group) that may be in the ``play`` turned up
    with ``shown`` cards of that rank, beyond those shown: which of them were turned up is not known. Where their
    places, less that play, each hold the one before (Bob's hand; Bob's or Cy's), those turned up are taken to be the
    ones of fewest places, and the rest keep their own: whichever were turned up, the real cards left can be matched
    to them. Otherwise each of the rest may be wherever any of them could be."""
    places = sorted(((g.hands, g.plays - {play}) for g in groups), key=lambda p: len(p[0]) + len(p[1]))
    left = len(places) - shown
    if left <= 0:
        return []
    if all(h <= h2 and p <= p2 for (h, p), (h2, p2) in zip(places, places[1:])):
        return places[-left:]
    hands = frozenset().union(*(h for h, _ in places))
    return [(hands, frozenset().union(*(p for _, p in places)))] * left


def laid_out(seen: Seen, player: str, rank: Rank) -> Seen:
    """``player`` laid out four of ``rank``: the seen cards of that rank in their hand may be among them, forgotten."""
    return _forgotten(seen, rank, lambda group: player in group.hands)


def forget(seen: Seen, rank: Rank, player: str) -> Seen:
    """The seen cards of ``rank`` that could not be in ``player``'s hand, forgotten: the cards ``player`` showed say the
    table's record of them was wrong."""
    return _forgotten(seen, rank, lambda group: player not in group.hands)


def _forgotten(seen: Seen, rank: Rank, among: Callable[[SeenCards], bool]) -> Seen:
    """The seen cards of ``rank`` in the groups ``among`` picks, let go."""
    return _grouped((g.hands, g.plays, tuple(r for r in g.ranks if r is not rank) if among(g) else g.ranks)
                    for g in seen)


def emptied(seen: Seen, hands: Mapping[str, int], pending: str | None) -> Seen:
    """A hand with no cards left holds none of the seen cards, unless its last cards wait for a call (``pending``): they
    may be among them, to be turned up. (A card with no place left at all, which only an earlier reveal entered wrong
    can lead to, is forgotten.)"""
    empty = {name for name, held in hands.items() if held == 0 and name != pending}
    if not any(group.hands & empty for group in seen):
        return seen
    kept = ((g.hands - empty, g.plays, g.ranks) for g in seen)
    return _grouped((hands, plays, ranks) for hands, plays, ranks in kept if hands or plays)


def elsewhere(seen: Seen, rank: Rank, player: str) -> list[SeenCards]:
    """The seen cards of ``rank`` that cannot be in ``player``'s hand, nor among the cards they just laid down: the
    groups they are in, with only that rank's cards."""
    away = (SeenCards(tuple(r for r in g.ranks if r is rank), g.hands, g.plays) for g in seen if player not in g.hands)
    return [group for group in away if group.ranks]


def count(groups: Iterable[SeenCards]) -> int:
    return sum(len(group.ranks) for group in groups)


def where(groups: Iterable[SeenCards], players: tuple[str, ...]) -> str:
    """Where some seen cards can be, in words: "Bob's hand", "Bob's or Dev's hand, or the pile", "Ann's, Bob's or
    Dev's hand", "the pile"."""
    groups = list(groups)
    names = [f"{p}'s" for p in players if any(p in g.hands for g in groups)]
    hands = (", ".join(names[:-1]) + " or " if len(names) > 1 else "") + names[-1] + " hand" if names else ""
    pile = any(g.pile for g in groups)
    if hands and pile:
        return f"{hands}, or the pile"
    return hands or "the pile"
