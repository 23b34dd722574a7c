"""Small builders shared by the rules tests."""

from __future__ import annotations

from assistant import Call, NewGame, Rank, Rules, Sitting


def ranks(*written: str) -> tuple[Rank, ...]:
    return tuple(Rank.parse(r) for r in written)


def sitting(players=("Alice", "Ben", "Cara", "Dev"), *events, **rules) -> Sitting:
    """A sitting with one game dealt by the last player listed, then ``events`` applied."""
    table = Sitting()
    table.apply(NewGame(tuple(players), rules=Rules(**rules)))
    for event in events:
        table.apply(event)
    return table


def call(caller: str, *written: str) -> Call:
    return Call(caller, ranks(*written))
