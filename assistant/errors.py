"""Errors the core raises. Each message names the player and the rule, so the app can show it as is."""


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
