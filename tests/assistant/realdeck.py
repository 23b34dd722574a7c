"""A game of Cheat played with a real, shuffled deck beside the referee: every event is what real cards allow, so the
referee must accept each one, and the cards it has seen face up must fit the real hands at every step. Shared by the
seen-cards tests and ``bench/seen_cards.py``."""

from __future__ import annotations

import random
from collections import Counter
from typing import Callable

from assistant import CLAIMABLE, Call, FourOfAKind, IllegalAction, NewGame, NoCall, Pass, Play, Rank, Rules, Sitting
from assistant.game import Game, in_play, seen_conflict
from assistant.seen import count, elsewhere

R = Rank

#: Called before each call is recorded, with the game and the real cards about to be turned up.
OnCall = Callable[[Game, tuple[Rank, ...]], None]


def deck(rules: Rules) -> list[Rank]:
    return [rank for rank in CLAIMABLE for _ in range(rules.copies_per_rank)] + [R.JOKER] * rules.jokers_in_deck


def play_a_real_game(rules: Rules, players: int, seed: int, steps: int = 400,
                     on_call: OnCall | None = None) -> tuple[int, int]:
    """Deal a shuffled deck as the referee does, and play: each player lays down real cards from their hand (the claimed
    rank when they hold it, or a bluff), calls turn up the real cards and the pile goes to whoever the referee says.
    Every event a real deck allows must be accepted and fit the seen cards, and at every step the seen cards must
    stand for real cards where they say (:func:`check_bounds`). Returns how many calls were made, and the most
    (player, rank) pairs the seen cards bounded at once. ``on_call`` is shown each call's real cards before it is
    recorded."""
    rng = random.Random(seed)
    names = tuple(f"P{i}" for i in range(players))
    table = Sitting([NewGame(names, rules=rules)])
    cards = deck(rules)
    rng.shuffle(cards)
    hands: dict[str, list[Rank]] = {}
    for name, held in table.state.game.hands.items():
        hands[name], cards = cards[:held], cards[held:]
    pile: list[list[Rank]] = []  # the real cards of each play on the pile, in order
    last: list[Rank] = []
    calls = bounded = 0
    for _ in range(steps):
        game = table.state.game
        if game.over:
            break
        if game.awaiting_call and rng.random() < 0.4:
            pile = call(table, rng, last, pile, hands, on_call)
            calls += 1
            bounded = max(bounded, check_bounds(table, hands, pile))
            continue
        if rules.four_of_a_kind and rng.random() < 0.2:
            fours = [(p, r) for p, hand in hands.items() for r, n in Counter(hand).items()
                     if n >= 4 and r is not R.JOKER and p not in game.places]
            if fours:
                player, rank = rng.choice(fours)
                assert seen_conflict(game, player, (rank,) * 4) is None, "real cards always fit"
                table.apply(FourOfAKind(player, rank))
                for _ in range(4):
                    hands[player].remove(rank)
                bounded = max(bounded, check_bounds(table, hands, pile))
                continue
        player = game.turn
        if rules.passing and rng.random() < 0.1:
            settled(table, Pass(player))
            continue
        rank = rng.choice(game.ranks_allowed)
        top = len(hands[player]) if rules.max_cards is None else min(len(hands[player]), rules.max_cards)
        count = 1 if rules.max_cards == 1 else rng.randint(1, top)
        honest = [c for c in hands[player] if c in (rank, R.JOKER)]
        rng.shuffle(honest)
        others = [c for c in hands[player] if c not in (rank, R.JOKER)]
        rng.shuffle(others)
        # now and then one card more or fewer than claimed, which a call then turns up at once: the referee can follow
        # a count only once it is shown
        laid = count + (rng.choice((-1, 1)) if rng.random() < 0.1 else 0)
        laid = laid if 1 <= laid <= len(hands[player]) else count
        last = ((honest + others) if rng.random() < 0.7 else (others + honest))[:laid]
        if not settled(table, Play(player, count, rank if len(game.ranks_allowed) > 1 else None)):
            continue
        for card in last:
            hands[player].remove(card)
        pile.append(last)
        if laid != count:
            pile = call(table, rng, last, pile, hands, on_call)
            calls += 1
        bounded = max(bounded, check_bounds(table, hands, pile))
    return calls, bounded


def call(table: Sitting, rng: random.Random, last: list[Rank], pile: list[list[Rank]], hands: dict[str, list[Rank]],
         on_call: OnCall | None = None):
    """Someone calls the last play and its real cards are turned up: they must fit the seen cards; the pile goes to
    whoever the referee says. Returns the pile, now empty."""
    game = table.state.game
    callers = [p for p in game.players if p != game.last_play.player and p not in game.places]
    assert seen_conflict(game, game.last_play.player, tuple(last)) is None, "real cards always fit"
    if on_call is not None:
        on_call(game, tuple(last))
    table.apply(Call(rng.choice(callers), tuple(last)))
    hands[table.state.game.last_call.picked_up_by] += [card for play in pile for card in play]
    return []


def settled(table: Sitting, event) -> bool:
    """Apply a play or a pass; where a last play waits for its call and would end the game, record no call instead."""
    try:
        table.apply(event)
    except IllegalAction as error:
        assert "record the call or no call" in str(error), error
        table.apply(NoCall())
        return False
    return True


def check_bounds(table: Sitting, hands: dict[str, list[Rank]], pile: list[list[Rank]]) -> int:
    """Assert that the seen cards stand for real cards where they say, and so that no hand holds more of a rank than
    they leave it, nor the pile more than those that cannot be in it; the number of (player, rank) pairs that the seen
    cards bound."""
    game = table.state.game
    assert {p: len(h) for p, h in hands.items()} == game.hands, "the referee's hands are the real ones"
    assert len(pile) == game.plays_on_pile, "the referee's plays on the pile are the real ones"
    check_mapping(game, hands, pile)
    bounded = 0
    for player, hand in hands.items():
        for rank in set(hand) | {r for group in game.seen for r in group.ranks}:
            away = count(elsewhere(game.seen, rank, player))
            assert hand.count(rank) <= in_play(game, rank) - away, (player, rank, game.seen)
            bounded += away > 0
    laid = [card for play in pile for card in play]
    for rank in set(laid):
        held = sum(1 for g in game.seen if not g.pile for r in g.ranks if r is rank)
        assert laid.count(rank) <= in_play(game, rank) - held, ("pile", rank, game.seen)
    return bounded


def check_mapping(game: Game, hands: dict[str, list[Rank]], pile: list[list[Rank]]) -> None:
    """Assert that each seen card can be matched to a real card of its rank of its own, in one of the places it names
    (a hand, or a play on the pile): what :mod:`assistant.seen` promises, and more than counts by hand and rank can
    check. Matched by augmenting paths; a game has a few dozen seen cards."""
    real = [(rank, ("hand", p)) for p, hand in hands.items() for rank in hand]
    real += [(rank, ("play", k)) for k, play in enumerate(pile, 1) for rank in play]
    seen = [(rank, group) for group in game.seen for rank in group.ranks]
    fits = [[j for j, (card, (kind, at)) in enumerate(real)
             if card is rank and (at in group.hands if kind == "hand" else at in group.plays)]
            for rank, group in seen]
    owner: dict[int, int] = {}

    def matched(i: int, tried: set[int]) -> bool:
        for j in fits[i]:
            if j not in tried:
                tried.add(j)
                if j not in owner or matched(owner[j], tried):
                    owner[j] = i
                    return True
        return False

    for i, (rank, group) in enumerate(seen):
        assert matched(i, set()), f"no real card for a seen {rank.value} in {group}: {game.seen}"
