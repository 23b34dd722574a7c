"""Properties of every legal game (hypothesis): cards are conserved, replay gives the live state,
undo is an exact inverse, and an illegal event changes nothing."""

from __future__ import annotations

import io
from unittest.mock import patch

from hypothesis import HealthCheck, given, settings, strategies as st

from assistant import Call, CheatError, CountRule, NewGame, Order, Play, Rules, Sitting, TableKind, Undo, advance
from assistant import sitting as sitting_module
from assistant.calls import CallRecord
from assistant.sitting import replay, state_to_json, write_transcript

from .randomgame import play_random, rules_strategy

names_strategy = st.integers(2, 8).map(lambda n: tuple(f"P{i}" for i in range(n)))
choices_strategy = st.lists(st.integers(0, 2**16), min_size=20, max_size=600)

GAMES = settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check_invariants(sitting: Sitting) -> None:
    game = sitting.state.game
    if game is None:
        return
    assert game.card_total() == game.rules.deck_size, "cards are conserved"
    assert all(count >= 0 for count in game.hands.values()), "no hand goes negative"
    assert game.pile >= 0
    if game.over:
        assert game.turn is None and not game.awaiting_call
    else:
        assert game.turn is not None and game.turn not in game.places


@GAMES
@given(rules=rules_strategy, names=names_strategy, choices=choices_strategy)
def test_cards_are_conserved_and_replay_gives_the_live_state(rules, names, choices):
    sitting = Sitting()
    play_random(sitting, names, rules, choices, check_invariants)
    out = io.StringIO()
    write_transcript(sitting.log, out)
    replayed = replay(out.getvalue().splitlines())
    assert replayed.state == sitting.state
    assert state_to_json(replayed.state) == state_to_json(sitting.state)
    assert replayed.calls == sitting.calls, "the match table's record of calls is the log's"


@settings(max_examples=300, deadline=None)
@given(rules=rules_strategy, names=names_strategy, choices=choices_strategy)
def test_undo_is_an_exact_inverse_of_every_event(rules, names, choices):
    seen = [Sitting().state]  # the states the game has been through, as this test saw them, for every counted event

    def undo_each(sitting: Sitting) -> None:
        if isinstance(sitting.log[-1], Undo):  # the random game's own undo: back to the state before the event
            seen.pop()
            assert sitting.state == seen[-1]
            return
        before, after, event = seen[-1], sitting.state, sitting.log[-1]
        assert sitting.last_counted == event and sitting.last_counted_at == len(sitting.log) - 1
        undone_to = sitting._counted[-2] if len(sitting._counted) > 1 else None
        undone_to_at = sitting._counted_at[-2] if len(sitting._counted) > 1 else None
        calls_after = sitting.calls
        sitting.apply(Undo())
        assert sitting.state == before
        assert sitting.last_counted == undone_to, "the Undo button then names the event before"
        assert sitting.last_counted_at == undone_to_at, "and the verdict shown again keeps its mark (said once)"
        assert sitting.calls == Sitting(sitting._counted).calls, "an undone verdict leaves the record of calls"
        sitting.apply(event)
        assert sitting.state == after and sitting.calls == calls_after
        seen.append(after)

    play_random(Sitting(), names, rules, choices, undo_each)


@settings(max_examples=300, deadline=None)
@given(rules=rules_strategy, names=names_strategy, choices=choices_strategy)
def test_the_record_of_calls_adds_up_to_the_verdicts(rules, names, choices):
    """Every verdict that still counts, worked out again from the events that still count, counts once on each side:
    a play called for its player, a call for its caller, the pile for whoever picked it up; a lie found is both a
    play caught and a call right."""
    sitting = Sitting()
    play_random(sitting, names, rules, choices, lambda s: None)
    verdicts, state = [], Sitting().state
    for event in sitting._counted:
        state = advance(state, event)
        if isinstance(event, Call):
            verdicts.append(state.game.last_call)
    records = sitting.calls.values()
    if not verdicts:
        assert not sitting.calls, "before a verdict, no record"
        return
    assert all(r != CallRecord() for r in records), "a player with nothing counted is not listed"
    assert sum(r.called for r in records) == sum(r.calls for r in records) == len(verdicts)
    assert sum(r.caught for r in records) == sum(r.right for r in records) == sum(v.lie for v in verdicts)
    assert sum(r.picked_up for r in records) == sum(v.cards for v in verdicts)
    assert all(r.caught <= r.called <= r.plays and r.right <= r.calls for r in records)
    assert sum(r.plays for r in records) == sum(isinstance(e, Play) for e in sitting._counted)


@settings(max_examples=200, deadline=None)
@given(rules=rules_strategy, names=names_strategy, choices=choices_strategy, split=st.floats(0, 1))
def test_catching_up_with_another_writer_gives_the_live_state_and_names_what_its_undos_took_back(
        rules, names, choices, split):
    """A window that only watches applies what another window recorded since it last drew the game: it must reach
    the state the writer has, and name, in order, exactly the events the writer's undos took back."""
    writer = Sitting()
    took_back: list = []  # for each undo: where it stands in the log, what it took back, and the event after it

    def note_undos(sitting: Sitting) -> None:
        if took_back and took_back[-1][0] == len(sitting.log) - 2 and not isinstance(sitting.log[-1], Undo):
            took_back[-1][2] = sitting.log[-1]
        if isinstance(sitting.log[-1], Undo):
            took_back.append([len(sitting.log) - 1, Sitting(sitting.log[:-1]).last_counted, None])

    play_random(writer, names, rules, choices, note_undos)
    seen_up_to = int(split * len(writer.log))
    watcher = Sitting(writer.log[:seen_up_to])
    taken = watcher.catch_up(writer.log)
    assert watcher.state == writer.state and watcher.log == writer.log and watcher.calls == writer.calls
    assert taken == [(event, then) for at, event, then in took_back if at >= seen_up_to]
    assert watcher.catch_up(writer.log) == [], "nothing new, nothing said"


def test_a_log_that_does_not_go_on_from_the_one_shown_is_not_caught_up_with():
    """Another database under the same sitting number: its events are not this game's, and applying them on top
    of it would show a game nobody played."""
    shown = Sitting([NewGame(("Ann", "Ben"), dealer="Ann"), Play("Ben", 2)])
    other = [NewGame(("Ann", "Ben"), dealer="Ben"), Play("Ann", 1), Undo()]
    before = list(shown.log)
    assert shown.catch_up(other) == [] and shown.log == before


@settings(max_examples=100, deadline=None)
@given(rules=rules_strategy, names=names_strategy, choices=choices_strategy, keep_every=st.integers(1, 7))
def test_undo_all_the_way_back_finds_every_state_including_those_let_go(rules, names, choices, keep_every):
    """Only every KEEP_EVERY-th state is kept whole; an undo that reaches one let go works it out again, and must
    find exactly the state the game was in (here with every 1st to 7th kept, so that short games reach them)."""
    seen = [Sitting().state]

    def remember(sitting: Sitting) -> None:
        if isinstance(sitting.log[-1], Undo):
            seen.pop()
        else:
            seen.append(sitting.state)

    with patch.object(sitting_module, "KEEP_EVERY", keep_every):
        sitting = Sitting()
        play_random(sitting, names, rules, choices, remember)
        while sitting.can_undo:
            sitting.apply(Undo())
            seen.pop()
            assert sitting.state == seen[-1]
    assert len(seen) == 1


@settings(max_examples=200, deadline=None)
@given(rules=rules_strategy, names=names_strategy, choices=choices_strategy, count=st.integers(-1, 30))
def test_a_rejected_play_changes_nothing(rules, names, choices, count):
    sitting = Sitting()
    play_random(sitting, names, rules, choices, check_invariants)
    game = sitting.state.game
    if game is None or game.turn is None:
        return
    state, log = sitting.state, list(sitting.log)
    snapshot = state_to_json(state)
    for player in game.players:
        try:
            sitting.apply(Play(player, count))
        except CheatError:
            assert sitting.state is state and sitting.log == log
            assert state_to_json(sitting.state) == snapshot
        else:
            sitting.apply(Undo())
            assert sitting.state is state
            log = list(sitting.log)


def test_five_hundred_seeded_games_under_random_house_rules_keep_every_invariant():
    """A wide sweep with plain random numbers, where hypothesis' shrinking-friendly draws stay narrow."""
    import random

    games_finished = 0
    for seed in range(500):
        rng = random.Random(seed)
        rules = Rules(
            decks=rng.choice([1, 2]), jokers=rng.random() < 0.5, max_cards=rng.choice([4, None, 1, 6]),
            order=rng.choice(list(Order)), passing=rng.random() < 0.5, count_rule=rng.choice(list(CountRule)),
            four_of_a_kind=rng.random() < 0.5, table=rng.choice(list(TableKind)),
        )
        names = tuple(f"P{i}" for i in range(rng.randint(2, 8)))
        sitting = Sitting()
        play_random(sitting, names, rules, [rng.randrange(2**16) for _ in range(rng.randint(20, 600))], check_invariants)
        out = io.StringIO()
        write_transcript(sitting.log, out)
        assert replay(out.getvalue().splitlines()).state == sitting.state
        games_finished += sum(row.tracked for row in sitting.state.table.rows)
    assert games_finished > 100, "the sweep must reach the ends of games, not only their openings"
