"""JSON as the referee reads an event, from a transcript line or a stored row: stricter than Python's ``json``,
which takes NaN and Infinity, numbers of any length, and a field given twice (as its last), none of which an event
can mean. Every error it raises is a ValueError, but for a value nested too deeply (RecursionError)."""

from __future__ import annotations

import json
import math
from typing import Any


class NotJson(ValueError):
    """A word JSON does not have (NaN, Infinity)."""


class TooLong(ValueError):
    """A number no field of an event can need."""


class Twice(ValueError):
    """A field given twice in one object."""


def _fields(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's fields, each given once: ``{"event": "play", ..., "event": "undo"}`` was read as its last, an
    undo, where the line may mean either; the referee does not guess."""
    fields = dict(pairs)
    if len(fields) != len(pairs):
        twice = next(name for k, (name, _) in enumerate(pairs) if any(name == other for other, _ in pairs[k + 1:]))
        raise Twice(f"the field {json.dumps(twice)} is given twice")
    return fields


def _not_json(word: str) -> None:
    """NaN, Infinity and -Infinity, which Python's json module reads and JSON does not have."""
    raise NotJson(f"{word} is not a JSON number")


#: More digits than any count or field of an event can need; Python refuses to convert past 4,300.
MAX_DIGITS = 100


def _whole_number(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_DIGITS:
        raise TooLong(f"a number of {len(digits.lstrip('-')):,} digits, too long for any field of an event")
    return int(digits)


def _finite(digits: str) -> float:
    value = float(digits)
    if not math.isfinite(value):  # 1e999: Python reads it as inf, and would name it Infinity, which the file never says
        raise TooLong(f"the number {digits[:20]} is too large for any field of an event")
    return value


#: One decoder for every line (``json.loads`` with options builds a new one each call: a fifth of a replay's time).
_DECODER = json.JSONDecoder(parse_constant=_not_json, parse_int=_whole_number, parse_float=_finite,
                            object_pairs_hook=_fields)


def decode(text: str) -> Any:
    """``text`` read as one JSON value, strictly (the module's docstring)."""
    return _DECODER.decode(text)
