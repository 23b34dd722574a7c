"""Errors the core raises. Each message names the player and the rule, so the app can show it as is."""

import json
from typing import Any


class CheatError(ValueError):
    """Base of every error the referee reports to the table."""


class IllegalAction(CheatError):
    """An event that the rules do not allow at this point of the game ("it is Ben's turn, not Cara's")."""


class ImpossibleReveal(IllegalAction):
    """A reveal the deck cannot hold: five aces from one deck, a joker with jokers off."""


class BadEvent(CheatError):
    """An event that is malformed: not JSON, an unknown kind, a missing or mistyped field."""


class StorageError(CheatError):
    """The database cannot be opened or written; the message says which file and why."""


def as_json(value: Any) -> str:
    """A value from a transcript as JSON writes it (``true``, ``null``, ``"x"``), for a message about that file: Python's
    spelling (``True``, ``None``, ``'x'``) is not what the file says."""
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)
