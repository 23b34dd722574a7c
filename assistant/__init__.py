"""Cheat Referee's pure core: rules, state, verdicts, match table and storage. No UI, no vision."""

from .cards import CLAIMABLE, Rank
from .errors import BadEvent, CheatError, IllegalAction, ImpossibleReveal, StorageError
from .events import Call, Event, FourOfAKind, NewGame, NoCall, Pass, Play, Undo, Winner
from .game import Claim, Game, MatchTable, State, Verdict, advance, judge, verdict_for
from .rules import CountRule, Order, Rules, TableKind
from .sitting import Sitting, TranscriptError, replay, state_to_json

__all__ = [
    "CLAIMABLE", "Rank", "BadEvent", "CheatError", "IllegalAction", "ImpossibleReveal", "StorageError",
    "Call", "Event", "FourOfAKind", "NewGame", "NoCall", "Pass", "Play", "Undo", "Winner",
    "Claim", "Game", "MatchTable", "State", "Verdict", "advance", "judge", "verdict_for",
    "CountRule", "Order", "Rules", "TableKind", "Sitting", "TranscriptError", "replay", "state_to_json",
]
