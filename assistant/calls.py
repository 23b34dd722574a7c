"""Each player's calls over a sitting: whose plays were called and turned out to be lies, who called Cheat! and was
right, who picked up the most. The table argues about who bluffs best as much as about who won; the log settles
that too, by the verdicts that still count (an undone or corrected verdict is not in them)."""

from __future__ import annotations

from dataclasses import dataclass, fields

from .events import Call, Event, Play
from .game import State


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


#: where each of a CallRecord's fields is counted in a tally's list
_FIELD = {field.name: i for i, field in enumerate(fields(CallRecord))}


class CallTally:
    """The records as events are recorded and taken back (:class:`~assistant.sitting.Sitting` keeps one). Counted as
    they go, not kept verdict by verdict: a 500,000-line transcript's verdicts took a third more memory than its
    replay, and working the records out again at each redraw of the match table took 90 ms on a long sitting."""

    def __init__(self) -> None:
        self._counts: dict[str, list[int]] = {}  # a CallRecord's fields, in order, by player

    def count(self, event: Event, after: State, sign: int = 1) -> None:
        """Count ``event``, which led to ``after`` (its verdict is there, for a call); ``sign`` -1 takes it back."""
        if isinstance(event, Play):
            self._add(event.player, "plays", sign)
        elif isinstance(event, Call):
            verdict = after.game.last_call
            self._add(verdict.challenged, "called", sign)
            self._add(verdict.caller, "calls", sign)
            if verdict.lie:
                self._add(verdict.challenged, "caught", sign)
                self._add(verdict.caller, "right", sign)
            self._add(verdict.picked_up_by, "picked_up", sign * verdict.cards)

    def copy(self) -> "CallTally":
        clone = CallTally()
        clone._counts = {name: list(counts) for name, counts in self._counts.items()}
        return clone

    def _add(self, name: str, field: str, n: int) -> None:
        counts = self._counts.get(name)
        if counts is None:
            counts = self._counts[name] = [0] * len(_FIELD)
        counts[_FIELD[field]] += n

    def records(self) -> dict[str, CallRecord]:
        """Every player who played or called, in the order they first did (a play taken back keeps its player's
        place); none before a verdict (a table of plays alone says nothing of calls)."""
        if not any(counts[_FIELD["calls"]] for counts in self._counts.values()):
            return {}
        return {name: CallRecord(*counts) for name, counts in self._counts.items() if any(counts)}
