"""Each player's calls over a sitting: whose plays were called and turned out to be lies, who called Cheat! and was
right, who picked up the most. The table argues about who bluffs best as much as about who won; the log settles
that too, by the verdicts that still count (an undone or corrected verdict is not in them)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable

from .events import Event, Play
from .game import Verdict


@dataclass(frozen=True)
class CallRecord:
    """One player's part in the plays and calls of the games the referee followed."""

    #: plays laid down
    plays: int = 0
    #: of those plays, how many were called
    called: int = 0
    #: of the plays called, how many were lies
    caught: int = 0
    #: Cheat! called by this player
    calls: int = 0
    #: of those calls, how many found a lie
    right: int = 0
    #: cards picked up from the pile at calls, theirs or another's
    picked_up: int = 0


def call_records(counted: Iterable[Event], verdicts: Iterable[Verdict]) -> dict[str, CallRecord]:
    """The record of every player who played or called, in the order they first did. ``counted``: the events that
    still count (not undone), for the plays; ``verdicts``: the verdicts among them, in order."""
    records: dict[str, CallRecord] = {}

    def add(name: str, **more: int) -> None:
        record = records.get(name, CallRecord())
        records[name] = replace(record, **{field: getattr(record, field) + n for field, n in more.items()})

    for event in counted:
        if isinstance(event, Play):
            add(event.player, plays=1)
    for verdict in verdicts:
        add(verdict.challenged, called=1, caught=int(verdict.lie))
        add(verdict.caller, calls=1, right=int(verdict.lie))
        add(verdict.picked_up_by, picked_up=verdict.cards)
    return records
