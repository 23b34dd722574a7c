"""The events of a sitting, one per line of a transcript (see ``shared/rules/TRANSCRIPT.md``).

An event records what happened at the table, not what it means: the meaning (the verdict, who
picks up, who has won) is always derived by replaying events through :mod:`assistant.game`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Union

from .cards import Rank
from .errors import BadEvent, as_json
from .rules import Rules, TableKind


@dataclass(frozen=True)
class NewGame:
    """Deal a new game. ``dealer`` None means the default dealer; ``first`` None means the dealer's left."""

    players: tuple[str, ...]
    dealer: str | None = None
    rules: Rules = field(default_factory=Rules)
    first: str | None = None


@dataclass(frozen=True)
class Play:
    """A claim of ``count`` cards of ``rank`` (None: the rank due, in the forced orders)."""

    player: str
    count: int
    rank: Rank | None = None


@dataclass(frozen=True)
class Pass:
    player: str


@dataclass(frozen=True)
class Call:
    """A challenge of the last play; ``revealed`` holds one rank per card actually played."""

    caller: str
    revealed: tuple[Rank, ...]


@dataclass(frozen=True)
class NoCall:
    """Nobody called the last play: needed only to settle a last play."""


@dataclass(frozen=True)
class FourOfAKind:
    player: str
    rank: Rank


@dataclass(frozen=True)
class Winner:
    """A game's result recorded in one tap: ``player`` on a match table, or ``places`` on a ranked one."""

    player: str | None = None
    places: tuple[str, ...] | None = None
    players: tuple[str, ...] | None = None
    #: how the game scores, where no tracked game says it (an extension of the format: a table that keeps its
    #: ranked standing by taps alone, having dealt no game in the referee, had only the match table)
    table: TableKind | None = None


@dataclass(frozen=True)
class Undo:
    """Takes back the last event that changed anything."""


Event = Union[NewGame, Play, Pass, Call, NoCall, FourOfAKind, Winner, Undo]

_KINDS: dict[str, type] = {
    "new_game": NewGame,
    "play": Play,
    "pass": Pass,
    "call": Call,
    "no_call": NoCall,
    "four_of_a_kind": FourOfAKind,
    "winner": Winner,
    "undo": Undo,
}
_NAMES = {kind: name for name, kind in _KINDS.items()}


def event_name(event: Event) -> str:
    """The transcript's name of an event's kind."""
    return _NAMES[type(event)]


def to_dict(event: Event) -> dict[str, Any]:
    """The transcript line of an event, without fields left at their defaults."""
    out: dict[str, Any] = {"event": event_name(event)}
    if isinstance(event, NewGame):
        out["players"] = list(event.players)
        if event.dealer is not None:
            out["dealer"] = event.dealer
        if event.rules != Rules():
            out["rules"] = event.rules.to_dict()
        if event.first is not None:
            out["first"] = event.first
    elif isinstance(event, Play):
        out.update(player=event.player, count=event.count)
        if event.rank is not None:
            out["rank"] = event.rank.value
    elif isinstance(event, Pass):
        out["player"] = event.player
    elif isinstance(event, Call):
        out.update(caller=event.caller, revealed=[r.value for r in event.revealed])
    elif isinstance(event, FourOfAKind):
        out.update(player=event.player, rank=event.rank.value)
    elif isinstance(event, Winner):
        if event.player is not None:
            out["player"] = event.player
        if event.places is not None:
            out["places"] = list(event.places)
        if event.players is not None:
            out["players"] = list(event.players)
        if event.table is not None:
            out["table"] = event.table.value
    return out


def from_dict(raw: Any) -> Event:
    """Read one transcript line (already parsed from JSON); extra fields are ignored."""
    if not isinstance(raw, dict):
        raise BadEvent("an event must be a JSON object")
    name = raw.get("event")
    if name is None:
        raise BadEvent("missing field 'event'")
    if not isinstance(name, str) or name not in _KINDS:  # a list or an object cannot even be looked up
        raise BadEvent(f"unknown event {as_json(name)}")
    kind = _KINDS[name]
    if kind is NewGame:
        return NewGame(
            players=_names(raw, "players"),
            dealer=_optional_name(raw, "dealer"),
            rules=Rules.from_dict(raw.get("rules")),
            first=_optional_name(raw, "first"),
        )
    if kind is Play:
        rank = raw.get("rank")
        return Play(_name(raw, "player"), _count(raw), None if rank is None else _rank(rank, "rank"))
    if kind is Pass:
        return Pass(_name(raw, "player"))
    if kind is Call:
        revealed = _required(raw, "revealed")
        if not isinstance(revealed, list):
            raise BadEvent("field 'revealed' must be a list of ranks")
        return Call(_name(raw, "caller"), tuple(_rank(r, "revealed") for r in revealed))
    if kind is FourOfAKind:
        return FourOfAKind(_name(raw, "player"), _rank(_required(raw, "rank"), "rank"))
    if kind is Winner:
        places = _names(raw, "places") if raw.get("places") is not None else None
        players = _names(raw, "players") if raw.get("players") is not None else None
        player = _optional_name(raw, "player")
        if player is None and places is None:
            raise BadEvent("missing field 'player'")
        return Winner(player=player, places=places, players=players, table=_table(raw))
    return kind()


def _table(raw: Mapping[str, Any]) -> TableKind | None:
    value = raw.get("table")
    if value is None:
        return None
    if value not in ("match", "ranked"):
        raise BadEvent(f"field 'table' must be \"match\" or \"ranked\", not {as_json(value)}")
    return TableKind(value)


def _required(raw: Mapping[str, Any], key: str) -> Any:
    if key not in raw:
        raise BadEvent(f"missing field {key!r}")
    return raw[key]


def _name(raw: Mapping[str, Any], key: str) -> str:
    value = _required(raw, key)
    if type(value) is not str or not value.strip():
        raise BadEvent(f"field {key!r} must be a non-empty name")
    _check_text(value, key)
    return value


def _check_text(name: str, key: str) -> None:
    """Refuse a name holding half of a character: JSON's "\\ud800" escape decodes to a lone surrogate, which no file,
    database or screen can write (the summary, the export and the database each failed on it with a traceback)."""
    if name.isascii():
        return
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise BadEvent(f"field {key!r}: the name {as_json(name)} holds half of a character (a lone surrogate, "
                       "from a \\uD800-\\uDFFF escape)") from None


def _optional_name(raw: Mapping[str, Any], key: str) -> str | None:
    return None if raw.get(key) is None else _name(raw, key)


def _names(raw: Mapping[str, Any], key: str) -> tuple[str, ...]:
    value = _required(raw, key)
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise BadEvent(f"field {key!r} must be a list of non-empty names")
    for name in value:
        _check_text(name, key)
    return tuple(value)


def _count(raw: Mapping[str, Any]) -> int:
    value = _required(raw, "count")
    if type(value) is not int:
        raise BadEvent(f"field 'count' must be a whole number, not {as_json(value)}")
    return value


def _rank(value: Any, key: str) -> Rank:
    try:
        return Rank.parse(value)
    except ValueError:  # said in the file's spelling: true, not Python's True
        raise BadEvent(f"field {key!r}: {as_json(value)} is not a rank (expected one of "
                       f"{', '.join(r.value for r in Rank)})") from None
