"""A sitting: the log of events at one table and the state it leads to, with undo.

The log is the truth. The live state is the log replayed; undo is itself an event in the log, and
takes the state back to what it was before the event it cancels.
"""

from __future__ import annotations

import gc
import json
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence, TextIO

from . import strict_json
from .calls import CallRecord, CallTally
from .errors import BadEvent, CheatError, IllegalAction
from .events import Event, NewGame, Undo, from_dict, to_dict
from .game import State, advance
from .rules import Rules, TableKind


#: Every how many counted events a state is kept whole for undo. Those between are let go and worked out again
#: from the kept one before them when an undo reaches them (at most this many events replayed): kept whole, every
#: state of a long log held its own hands and match table, and a 500,000-line transcript needed gigabytes.
KEEP_EVERY = 32


@dataclass(frozen=True)
class SetupOffer:
    """What a new game's setup offers before anything is chosen (:meth:`Sitting.setup_offer`): a deal taken back offers
    its own choices again; otherwise the last game's."""

    #: the seats: the deal taken back's players, else the last game's, else the table's
    players: tuple[str, ...]
    #: the deal taken back's dealer (None where there is none): offered while still seated, else the setup offers
    #: :func:`~assistant.game.next_dealer` of its seats
    dealer: str | None
    #: the house rules: the deal taken back's, else the last game's, else the defaults
    rules: Rules
    #: the table's kind the setup, and the match table's choice for games tapped in, offer (one choice, one key): a deal
    #: taken back's, else the table's (which a game tapped in may have scored otherwise than the last game's rules)
    table: TableKind
    #: whether the first player is drawn at random: the last deal's way (a first player is recorded only where one was
    #: drawn at random), for the next game too
    first_drawn: bool


class Sitting:
    """The events of a sitting and the states they lead to.

    ``history[i]`` is the state after the i-th event that still counts (None where it was let go, see
    :data:`KEEP_EVERY`; the last two are always there); an undo pops one, so an undo after an undo takes back the
    event before.
    """

    def __init__(self, events: Iterable[Event] = ()) -> None:
        self.log: list[Event] = []
        self._history: list[State | None] = [State()]
        self._counted: list[Event] = []  # the events behind ``_history[1:]``, one each
        self._counted_at: list[int] = []  # where in the log each of them was recorded
        self._calls = CallTally()  # each player's plays and calls among them
        with _collector_paused():
            for event in events:
                self.apply(event)

    @property
    def state(self) -> State:
        return self._history[-1]

    def copy(self) -> "Sitting":
        """The same sitting, to go on from apart: its lists and counts copied, its states shared (they are never
        changed in place)."""
        clone = Sitting.__new__(Sitting)
        clone.log, clone._history = list(self.log), list(self._history)
        clone._counted, clone._counted_at = list(self._counted), list(self._counted_at)
        clone._calls = self._calls.copy()
        return clone

    def preview(self, event: Event) -> State:
        """The state ``event`` would lead to, without recording it; raises if it is illegal."""
        if isinstance(event, Undo):
            if len(self._history) == 1:
                raise IllegalAction("nothing to undo")
            return self._state_at(len(self._history) - 2)
        return advance(self.state, event)

    def _state_at(self, index: int) -> State:
        """The state after the ``index``-th counted event: kept, or replayed from the kept one before it (the
        events that led there were legal then, and the rules are deterministic)."""
        state = self._history[index]
        if state is None:
            base = index - index % KEEP_EVERY
            state = self._history[base]
            for event in self._counted[base:index]:
                state = advance(state, event)
        return state

    def apply(self, event: Event) -> State:
        """Record ``event`` and return the new state; an illegal event raises and changes nothing."""
        new = self.preview(event)
        self.commit(event, new)
        return new

    def commit(self, event: Event, new: State) -> None:
        """Keep a previewed event: split from :meth:`preview` so storage can write in between."""
        if isinstance(event, Undo):
            self._calls.count(self._counted.pop(), self._history.pop(), -1)  # the state it led to: always kept
            self._counted_at.pop()
            self._history[-1] = new
        else:
            self._calls.count(event, new)
            older = len(self._history) - 2  # the last two stay: one undo gives back the very state it left
            if older > 0 and older % KEEP_EVERY:
                self._history[older] = None
            self._history.append(new)
            self._counted.append(event)
            self._counted_at.append(len(self.log))
        self.log.append(event)

    def catch_up(self, log: Sequence[Event]) -> list[tuple[Event, Event | None]]:
        """Apply what another writer recorded after this sitting's log (``log``: the log as stored now, which goes on
        from this one) and return, for each of its undos in order, the event it took back and the event recorded
        right after it (None where none was, or another undo). A window that only watches the game says "another
        window took back Ann's play": its screen changed under the table's eyes without a word. The event after
        tells a correction (a verdict taken back and given again) from an undo. A ``log`` that does not go on from
        this one (another database under the same name) changes nothing and takes nothing back."""
        if len(log) <= len(self.log) or list(log[:len(self.log)]) != self.log:
            return []
        new = log[len(self.log):]
        taken: list[tuple[Event, Event | None]] = []
        for i, event in enumerate(new):
            undone = self.last_counted if isinstance(event, Undo) else None
            self.apply(event)
            if undone is not None:
                then = new[i + 1] if i + 1 < len(new) and not isinstance(new[i + 1], Undo) else None
                taken.append((undone, then))
        return taken

    @property
    def can_undo(self) -> bool:
        return len(self._history) > 1

    @property
    def calls(self) -> dict[str, CallRecord]:
        """Each player's plays called and calls made, by the verdicts that still count (:mod:`assistant.calls`)."""
        return self._calls.records()

    @property
    def last_deal(self) -> NewGame | None:
        """The last deal in the log, counted or taken back (None where nothing was dealt): the way its first player was
        chosen, which the next setup keeps."""
        return self._deal_at(self.last_deal_at)

    @property
    def deal_taken_back(self) -> NewGame | None:
        """The last deal where an undo has taken it back with nothing counted since (else None). A setup offers its
        players, dealer and rules again: after "Undo the deal", made to change a seat or the dealer, the setup came
        back with the game before's choices, or none, and one tap on Deal played under them. Once anything counts after
        it (the game before played on, a winner tapped in) it is history: its dealer, offered still, ignored the deal
        passed on by two games tapped in since."""
        return self._taken_back(self.last_deal_at)

    def setup_offer(self) -> SetupOffer:
        """What a new game's setup offers (:class:`SetupOffer`): the choices of the deal taken back
        (:attr:`deal_taken_back`), else of the last game, else the table's; the way the first player is chosen, the
        last deal's (:attr:`last_deal`). The setup's seats, dealer and rules, and the match table's players and choice
        for games tapped in where no game is in play (:func:`~assistant.game.players_to_tap`), all read them here."""
        at = self.last_deal_at  # once: each read of the log back to the last deal goes through every play since
        undone, last, game, table = self._taken_back(at), self._deal_at(at), self.state.game, self.state.table
        source = undone if undone is not None else game
        return SetupOffer(players=source.players if source is not None else table.players,
                          dealer=undone.dealer if undone is not None else None,
                          rules=source.rules if source is not None else Rules(),
                          table=undone.rules.table if undone is not None else table.kind,
                          first_drawn=last is not None and last.first is not None)

    @property
    def last_deal_at(self) -> int | None:
        """Where in the log the last deal was recorded, counted or taken back (None where nothing was dealt): a window
        tells by it whether seats it made are still for the next deal, or another deal has been made since."""
        return next((i for i in range(len(self.log) - 1, -1, -1) if isinstance(self.log[i], NewGame)), None)

    def _deal_at(self, at: int | None) -> NewGame | None:
        """The deal recorded at ``at`` in the log (:attr:`last_deal_at`), None where there is none."""
        return None if at is None else self.log[at]

    def _taken_back(self, at: int | None) -> NewGame | None:
        """The last deal, recorded at ``at`` (:attr:`last_deal_at`), where nothing has counted since it: an undo has
        taken it back (:attr:`deal_taken_back`)."""
        if at is None or (self._counted_at and self._counted_at[-1] >= at):  # counted, it would be among them
            return None
        return self.log[at]

    @property
    def last_counted(self) -> Event | None:
        """The event an undo would take back now (None when there is none). Not the log's last line: after an
        undo that line is the undo itself, and a screen that named it would offer to undo an undo."""
        return self._counted[-1] if self._counted else None

    @property
    def last_counted_at(self) -> int | None:
        """Where in the log :attr:`last_counted` was recorded: the same after a later event is taken back (the log
        grows by the undo), and new for an event recorded again after its own undo. A screen says a verdict once by
        it: keyed by the log's length, a verdict was said again when the play after it was taken back."""
        return self._counted_at[-1] if self._counted_at else None


def read_transcript(lines: Iterable[str | bytes]) -> Iterator[tuple[int, Event]]:
    """Parse a transcript, yielding (line number, event); blank lines are skipped.

    Lines may be bytes (a file opened in binary): each is decoded on its own, so a byte that is not UTF-8
    is reported with its line number, after every line before it has been checked."""
    for number, line in enumerate(lines, start=1):
        text = _decoded(number, line)
        if not text.strip():
            continue
        try:
            raw = strict_json.decode(text)
        except strict_json.NotJson as error:
            raise TranscriptError(number, f"not valid JSON ({error})") from None
        except (strict_json.TooLong, strict_json.Twice) as error:
            raise TranscriptError(number, str(error)) from None
        except json.JSONDecodeError as error:
            raise TranscriptError(number, f"not valid JSON at column {error.colno}: {_json_fault(error)}"
                                          f"{_unseen(text)}") from None
        except RecursionError:
            raise TranscriptError(number, "not valid JSON (nested too deeply)") from None
        try:
            yield number, from_dict(raw)
        except BadEvent as error:
            raise TranscriptError(number, str(error)) from None


#: Python's words for what is wrong with a line of JSON, as a player who edited a transcript by hand reads them.
_JSON_FAULTS = {
    "Expecting value": "a value was expected",
    "Expecting property name enclosed in double quotes": "a field's name in double quotes was expected",
    "Expecting ',' delimiter": "a comma was expected",
    "Expecting ':' delimiter": "a colon was expected after a field's name",
    "Unterminated string starting at": "a text in double quotes is not closed",
    "Extra data": "more follows the event, which ends before it (one event a line)",
    "Invalid \\escape": "a backslash that JSON does not know in a text",
    "Invalid \\uXXXX escape": "a backslash that JSON does not know in a text",
}


def _json_fault(error: json.JSONDecodeError) -> str:
    """What is wrong with a line of JSON, in words: Python's ended "Invalid control character at" (its position
    said apart), and a text left open at the line's end was said to hold a control character (the line break)."""
    if error.msg == "Invalid control character at":
        if error.doc[error.pos:error.pos + 1] in ("\r", "\n"):
            return "a text in double quotes is not closed before the line's end"
        return "a control character (a tab or a line break) inside a text in double quotes"
    return _JSON_FAULTS.get(error.msg, error.msg)


def _unseen(text: str) -> str:
    """The first character of a line that JSON cannot read which does not show (a byte order mark where two files were
    joined, a NUL, a zero-width space in "tr\u200bue"), named: "Expecting value" alone left the line looking right.
    Not the line's own ending, nor a tab; and named as in the line, not as the fault: JSON may stop before it."""
    for column, c in enumerate(text.rstrip("\r\n"), start=1):
        if c != "\t" and (not c.isprintable() or c == "\ufeff"):
            return f"; the line holds the unseen character U+{ord(c):04X} at column {column}"
    return ""


def _decoded(number: int, line: str | bytes) -> str:
    """A line as text; a byte order mark on the first line is allowed (editors on Windows write one)."""
    if isinstance(line, str):
        return line.removeprefix("\ufeff") if number == 1 else line
    try:
        return line.decode("utf-8-sig" if number == 1 else "utf-8")
    except UnicodeDecodeError as error:
        raise TranscriptError(number, f"not UTF-8 text (the byte 0x{line[error.start]:02x} at column "
                                      f"{error.start + 1})") from None


def replay(lines: Iterable[str | bytes]) -> Sitting:
    """A sitting rebuilt from transcript lines; the first bad or illegal line raises TranscriptError."""
    return rebuild(read_transcript(lines), TranscriptError)


def rebuild(numbered: Iterable[tuple[int, Event]], refused: Callable[[int, str], CheatError],
            sitting: Sitting | None = None) -> Sitting:
    """A sitting rebuilt from numbered events (a transcript's lines, a database's rows), or ``sitting`` gone on with
    them (it is changed); the first event the rules refuse raises ``refused(number, reason)``, so the error names
    where it lies in its source."""
    sitting = Sitting() if sitting is None else sitting
    with _collector_paused():
        for number, event in numbered:
            try:
                sitting.apply(event)
            except CheatError as error:
                raise refused(number, str(error)) from None
    return sitting


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cycle collector during a bulk replay: the states kept for undo are long-lived and
    acyclic, and rescanning them over and over would double the replay time."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def write_transcript(events: Iterable[Event], out: TextIO) -> None:
    for event in events:
        out.write(json.dumps(to_dict(event)) + "\n")


class TranscriptError(CheatError):
    """A transcript line that cannot be replayed, with its line number (counted from 1)."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


def state_to_json(state: State) -> dict[str, Any]:
    """The state in the shape of ``replay --json`` (TRANSCRIPT.md)."""
    game = state.game
    table = state.table
    return {
        "game": None if game is None else {
            "players": list(game.players),
            "dealer": game.dealer,
            "turn": game.turn,
            "ranks_allowed": [r.value for r in game.ranks_allowed],
            "pile": game.pile,
            "hands": dict(game.hands),
            "out_of_game": game.out_of_game,
            "awaiting_call": game.awaiting_call,
            "last_play": None if game.last_play is None else {
                "player": game.last_play.player,
                "count": game.last_play.count,
                "rank": game.last_play.rank.value,
            },
            "last_call": None if game.last_call is None else {
                "caller": game.last_call.caller,
                "challenged": game.last_call.challenged,
                "lie": game.last_call.lie,
                "picked_up_by": game.last_call.picked_up_by,
                "cards": game.last_call.cards,
            },
            "places": list(game.places),
            "over": game.over,
        },
        "table": {
            "kind": table.kind.value,
            "games": len(table.rows),
            "scores": table.scores(),
        },
    }
