"""The rules chosen when a game is launched: the defaults of the rules README and every house rule."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import Enum
from typing import Any, Mapping

from .errors import BadEvent, as_json


class Order(str, Enum):
    """How the rank to claim moves from one turn to the next."""

    UP = "up"
    DOWN = "down"
    UP_OR_DOWN = "up_or_down"
    SAME_OR_ADJACENT = "same_or_adjacent"
    SAME_UNTIL_CALL = "same_until_call"


class CountRule(str, Enum):
    """What makes a challenged play a lie."""

    RANK_AND_COUNT = "rank_and_count"
    RANK_ONLY = "rank_only"


class TableKind(str, Enum):
    """How a finished game scores on the match table."""

    MATCH = "match"
    RANKED = "ranked"


#: Points for first, second and third place on a ranked table.
RANKED_POINTS: tuple[int, ...] = (3, 2, 1)

#: The fewest players a game takes: the setup asks for more below it, and the rules refuse such a deal.
MIN_PLAYERS = 2


@dataclass(frozen=True)
class Rules:
    """One game's rules. ``max_cards`` is None for "any number"; 1 means "exactly one"."""

    decks: int = 1
    jokers: bool = False
    max_cards: int | None = 4
    order: Order = Order.UP
    passing: bool = False
    count_rule: CountRule = CountRule.RANK_AND_COUNT
    four_of_a_kind: bool = False
    table: TableKind = TableKind.MATCH

    def __post_init__(self) -> None:
        """Check every value and turn written forms ("up") into their enums, so a bad rule never lives."""
        for key, read in _RULE_READERS.items():
            object.__setattr__(self, key, read(getattr(self, key)))

    @property
    def deck_size(self) -> int:
        return self.decks * (52 + (2 if self.jokers else 0))

    @property
    def max_players(self) -> int:
        return 10 if self.decks == 1 else 20

    def players_off(self, players: int) -> int:
        """How far a game of ``players`` is from one these rules can deal: the players it lacks (negative), the players
        too many (positive), or 0. The setup says which before the deal, and the rules refuse the same deal: one
        reckoning for both."""
        if players < MIN_PLAYERS:
            return players - MIN_PLAYERS
        return max(0, players - self.max_players)

    @property
    def copies_per_rank(self) -> int:
        return 4 * self.decks

    @property
    def jokers_in_deck(self) -> int:
        return 2 * self.decks if self.jokers else 0

    def deal_sizes(self, players: int) -> list[int]:
        """Cards dealt to each seat, starting with the dealer's left: the first seats get the extras."""
        base, extra = divmod(self.deck_size, players)
        return [base + 1 if seat < extra else base for seat in range(players)]

    def to_dict(self) -> dict[str, Any]:
        """The transcript's ``rules`` object."""
        return {key: (value.value if isinstance(value, Enum) else value) for key, value in asdict(self).items()}

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any] | None) -> "Rules":
        """Read the transcript's ``rules`` object; an unknown key or a value out of range is an error."""
        if raw is None:
            return cls()
        if not isinstance(raw, Mapping):
            raise BadEvent("rules must be an object")
        unknown = sorted(set(raw) - set(cls.__dataclass_fields__))
        if unknown:
            raise BadEvent(f"unknown rule {unknown[0]!r}")
        return cls(**raw)


def _choice(name: str, allowed: tuple[Any, ...]):
    def read(value: Any) -> Any:
        if type(value) not in {type(a) for a in allowed} or value not in allowed:
            shown = ", ".join(as_json(a) for a in allowed)
            raise BadEvent(f"rule {name} must be one of {shown}, not {as_json(value)}")
        return value

    return read


def _enum(name: str, kind: type[Enum]):
    def read(value: Any) -> Enum:
        try:
            return kind(value)
        except ValueError:
            shown = ", ".join(as_json(member.value) for member in kind)
            raise BadEvent(f"rule {name} must be one of {shown}, not {as_json(value)}") from None

    return read


def _max_cards(value: Any) -> int | None:
    """The house rules are "1 to 4 (default), any number, or exactly one" (TRANSCRIPT.md: 4, a larger number,
    null or 1): a cap of 2 or 3 is no rule of the game, and a table that asked for one would be refereed
    by a rule nobody agreed to."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not (value == 1 or value >= 4):
        raise BadEvent(f"rule max_cards must be 4 or more, 1 (exactly one card) or null (any number), not {as_json(value)}")
    return value


_RULE_READERS = {
    "decks": _choice("decks", (1, 2)),
    "jokers": _choice("jokers", (False, True)),
    "max_cards": _max_cards,
    "order": _enum("order", Order),
    "passing": _choice("passing", (False, True)),
    "count_rule": _enum("count_rule", CountRule),
    "four_of_a_kind": _choice("four_of_a_kind", (False, True)),
    "table": _enum("table", TableKind),
}
