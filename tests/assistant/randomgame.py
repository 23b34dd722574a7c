"""Random legal events for property tests: each choice is drawn from what the rules allow now."""

from __future__ import annotations

from collections import Counter
from typing import Callable

from hypothesis import strategies as st

from assistant import (
    CLAIMABLE, Call, CountRule, FourOfAKind, NewGame, NoCall, Order, Pass, Play, Rank, Rules, Sitting, TableKind, Undo,
    Winner,
)
from assistant.game import Game, State

Pick = Callable[[int], int]

#: Every house rule, for the property tests.
rules_strategy = st.builds(
    Rules,
    decks=st.sampled_from([1, 2]),
    jokers=st.booleans(),
    max_cards=st.sampled_from([4, None, 1, 6]),
    order=st.sampled_from(list(Order)),
    passing=st.booleans(),
    count_rule=st.sampled_from(list(CountRule)),
    four_of_a_kind=st.booleans(),
    table=st.sampled_from(list(TableKind)),
)


def legal_events(state: State, pick: Pick, names: tuple[str, ...], rules: Rules, undo_ok: bool) -> list:
    """A short menu of legal events; ``pick(n)`` chooses numbers in range(n) for the details."""
    game = state.game
    if game is None or game.over:
        menu = [NewGame(names, rules=rules)]
        if state.table.players or game is not None:
            menu.append(Winner(names[pick(len(names))], players=names if game is None else None))
        return menu + ([Undo()] if undo_ok else [])
    menu = []
    if game.turn is not None and not _play_would_end_over_pending(game):
        held = game.hands[game.turn]
        top = held if rules.max_cards is None else min(held, rules.max_cards)
        if top >= 1:
            count = 1 if rules.max_cards == 1 else 1 + pick(top)
            allowed = game.ranks_allowed
            menu.append(Play(game.turn, count, allowed[pick(len(allowed))]))
        if rules.passing:
            menu.append(Pass(game.turn))
    if game.awaiting_call and game.last_play is not None:
        callers = [p for p in game.players if p != game.last_play.player and p not in game.places]
        if callers:
            menu.append(Call(callers[pick(len(callers))], _reveal(game, pick)))
        menu.append(NoCall())
    if rules.four_of_a_kind:
        holders = [p for p in game.players if p not in game.places and game.hands[p] >= 4]
        ranks = [r for r in CLAIMABLE if game.fours_out.get(r, 0) + 4 <= rules.copies_per_rank]
        if holders and ranks:
            menu.append(FourOfAKind(holders[pick(len(holders))], ranks[pick(len(ranks))]))
    if pick(50) == 0:
        menu.append(Winner(game.active[pick(len(game.active))]))
    if undo_ok:
        menu.append(Undo())
    return menu


def _play_would_end_over_pending(game: Game) -> bool:
    claim = game.last_play
    return game.awaiting_call and claim is not None and game.hands[claim.player] == 0 and (
        game.rules.table.value == "match" or len(game.places) + 1 >= 3 or len(game.active) <= 2
    )


def _reveal(game: Game, pick: Pick) -> tuple[Rank, ...]:
    """Cards the deck can hold: mostly honest, sometimes a wrong rank or a wrong count."""
    claim = game.last_play
    held = game.hands[claim.player] + claim.count
    size = claim.count
    if pick(5) == 0:
        size = max(1, min(held, claim.count + pick(3) - 1))
    rules = game.rules
    stock = Counter({r: rules.copies_per_rank - game.fours_out.get(r, 0) for r in CLAIMABLE})
    if rules.jokers:
        stock[Rank.JOKER] = rules.jokers_in_deck
    cards: list[Rank] = []
    for _ in range(size):
        choice = pick(4)
        rank = claim.rank if choice < 3 else (Rank.JOKER if rules.jokers and pick(2) else CLAIMABLE[pick(13)])
        if stock[rank] <= 0:
            rank = next(r for r, left in stock.items() if left > 0)
        stock[rank] -= 1
        cards.append(rank)
    return tuple(cards)


def play_random(sitting: Sitting, names, rules, choices: list[int], check: Callable[[Sitting], None]) -> None:
    """Drive ``sitting`` with one legal event per choice, calling ``check`` after each."""
    stream = iter(choices)

    def pick(n: int) -> int:
        return next(stream, 0) % n

    for _ in range(len(choices) // 2):
        menu = legal_events(sitting.state, pick, names, rules, sitting.can_undo)
        event = menu[pick(len(menu))]
        sitting.apply(event)
        check(sitting)
