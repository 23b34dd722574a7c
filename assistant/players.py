"""Players' names as the referee seats them: how long one may be, the one form it is kept in, and when two are one
player. The setup screen seats by these rules (ui/words.py words its refusals), and an import keeps to them: a sitting
imported held names the table screen was not laid out for, or two players who looked the same."""

from __future__ import annotations

import unicodedata
from typing import Iterator

from .events import Event, NewGame, Winner
from .game import who

#: Longest player name the referee seats: it has to fit a tile readable from across the table.
MAX_NAME = 16

#: Characters that show nothing and change nothing in a name: zero-width space, word joiner, byte order mark, the
#: direction marks, embeddings and isolates. The zero-width joiner and non-joiner stay: they shape Persian letters
#: and join emoji ("👨‍👩‍👧").
_UNSEEN = frozenset("\u200b\u2060\ufeff\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def clean_name(typed: str) -> str:
    """A name as typed, in one form: composed letters (NFC: "Zoë" typed as "Zoe" and a combining diaeresis is "Zoë"),
    without characters that show nothing (a zero-width space made "王伟" a second player who looks the same), and
    single spaces. What shows nothing goes first: taken out last, "Ann \\u200b Lee" kept two spaces, and "Zoe\\u200b"
    with a combining diaeresis its letters apart, so that a name the app had seated was not in its own clean form."""
    shown = "".join(c for c in typed if c not in _UNSEEN and (c.isspace() or unicodedata.category(c) != "Cc"))
    return " ".join(unicodedata.normalize("NFC", shown).split())  # a tab or a line pasted in is a space


def same_player(name: str, other: str) -> bool:
    """Whether two names would seat one player twice: the same once cleaned, whatever their case ("Ann" and "ANN" are
    told apart by no one across the table)."""
    return clean_name(name).casefold() == clean_name(other).casefold()


def unseatable(event: Event) -> str | None:
    """Why the setup could not have seated the players ``event`` names (a deal's players, dealer and first player; a
    result's winner, places and players), said for a transcript; None where it could, and for any other event. A
    name must be in its clean form, not only clean to the same: it is stored as written, and must match itself on
    every line of the transcript. A name listed twice as it is is left to the rules, which say so."""
    listed, named = _names(event)
    for i, name in enumerate(listed):
        if fault := _name_fault(name):
            return fault
        if twin := next((other for other in listed[:i] if other != name and same_player(name, other)), None):
            return (f"{who(twin)} and {who(name)} differ only in case: the referee seats no two players of a game so "
                    "alike")
    return next(filter(None, map(_name_fault, named)), None)


def _names(event: Event) -> tuple[tuple[str, ...], Iterator[str]]:
    """The players ``event`` lists together (a deal's, a result's), and the names it gives besides."""
    if isinstance(event, NewGame):
        return event.players, (n for n in (event.dealer, event.first) if n is not None)
    if isinstance(event, Winner):
        return event.players or (), (n for n in (event.player, *(event.places or ())) if n is not None)
    return (), iter(())


def _name_fault(name: str) -> str | None:
    """What keeps the setup from seating ``name`` as written, or None."""
    clean = clean_name(name)
    if not clean:
        return f"the name {who(name)} shows nothing: the referee seats no such name"
    if len(clean) > MAX_NAME:
        return (f"the name {who(name)} has {len(clean)} characters: the referee seats names of at most {MAX_NAME}, so "
                "that each fits on the table screen")
    if clean != name:
        return (f"the name {who(name)} is not written as the referee keeps it, \"{clean}\" (single spaces and none at "
                "its ends, letters composed, no characters that show nothing): write it so on every line")
    return None
