"""The referee: a sitting bound to its storage, so nothing is acknowledged before it is on disk."""

from __future__ import annotations

import csv
import io
from contextlib import contextmanager
from types import EllipsisType
from typing import Iterable, Iterator

from .cards import Rank
from .errors import CheatError, IllegalAction, StorageError
from .events import Call, Event, Undo
from .game import Game, State, check_caller
from .sitting import Sitting, rebuild, replay, write_transcript
from .storage import MovedOn, OpenCall, SittingInfo, StaleSitting, Store


class Referee:
    """Records events for one sitting: check, store, then acknowledge; a failure at any step changes nothing."""

    def __init__(self, store: Store, sitting_id: int, sitting: Sitting | None = None, recorded: str | None = None) -> None:
        """``sitting``: the stored events already replayed (an import, a read on), not read and replayed again, the
        last of them ``recorded`` then (:meth:`read`; None: not known)."""
        self.store = store
        self.sitting_id = sitting_id
        if sitting is None:
            sitting, recorded = self._stored()
        self.sitting = sitting
        #: when the store recorded the sitting's last event as this referee holds it (when the sitting was made, where it
        #: has none): what :meth:`read` goes on from, and what a write checks the file still holds (:meth:`record`)
        self.recorded = recorded

    @classmethod
    def read(cls, store: Store, sitting_id: int, shown: "Referee | None" = None) -> "Referee":
        """The sitting as stored, read on from ``shown`` (the referee of the same sitting as a page last drew it, left
        as it is): only the events stored after its own are read and replayed, where the stored log goes on from it,
        else the whole sitting. A page read and replayed the whole sitting at each run, and its taps grew slower as
        the evening went on: 0.3 s at 1,000 events, 1 s at 20,000, where a tap 0.7 s after the one before was refused
        as made on the screen before it.

        The stored log goes on from ``shown`` where its last event is the very row ``shown`` last read or wrote (the
        time it was recorded, to the microsecond): a file put back from a backup under a running page, whose later
        rows differ, is read whole (read on from one like event, the page went on from a game that was not in the
        file, or found an event of the file's refused and read again without end)."""
        if shown is not None and shown.sitting_id == sitting_id and shown.recorded is not None:
            known = len(shown.sitting.log)
            read_on = store.read_on(sitting_id, known - 1, shown.recorded)
            if read_on is not None:
                after, recorded = read_on
                try:
                    sitting = rebuild(enumerate(after, known), _refused(sitting_id), shown.sitting.copy())
                except CheatError:
                    return cls(store, sitting_id)  # the whole read names the event the rules refuse
                return cls(store, sitting_id, sitting, recorded)
        return cls(store, sitting_id)

    @classmethod
    def new(cls, store: Store, name: str) -> "Referee":
        return cls(store, store.create_sitting(name).id)

    @classmethod
    def import_transcript(cls, store: Store, name: str, lines: Iterable[str | bytes]) -> "Referee":
        """A new sitting from a transcript; an illegal line raises TranscriptError and stores nothing."""
        return cls.import_sitting(store, name, replay(lines))

    @classmethod
    def import_sitting(cls, store: Store, name: str, sitting: Sitting) -> "Referee":
        """A new sitting holding ``sitting``'s events (a transcript replayed): stored in one transaction, and not
        replayed again (half an import's time)."""
        info: SittingInfo = store.create_sitting(name, sitting.log, sitting.state.table.rows)
        return cls(store, info.id, sitting, store.recorded(info.id, len(sitting.log) - 1))

    @property
    def state(self) -> State:
        return self.sitting.state

    def record(self, event: Event, settles: OpenCall | None = None, opens: OpenCall | None = None, *,
               at: int | None = None, shown: OpenCall | None | EllipsisType = ...) -> State:
        """Apply ``event``: raises IllegalAction (nothing changes) or StorageError (nothing changes). Any event closes
        the open call; ``settles`` and ``opens``: see :meth:`settle` and :meth:`reopen_last_call`.

        ``at`` is the length of the log the tap was made on (the screen its button was drawn on): a tap made before
        the last event is refused with MovedOn, as the same tap from a window that another has got ahead of is.
        ``shown`` is the call that screen showed (None: none): a tap in a window that has not shown a call opened in
        another is refused (CalledFirst) rather than close that call unseen (``...``: not from a screen)."""
        self._check_not_moved_on(at)
        old = self.sitting.state
        new = self.sitting.preview(event)
        rows = new.table.rows if new.table is not old.table else None
        with self._reloaded_when_stale():
            recorded = self.store.append(self.sitting_id, len(self.sitting.log), event, rows, settles, opens, shown,
                                         after=self.recorded)
        self.sitting.commit(event, new)
        self.recorded = recorded
        return new

    def open_call(self) -> OpenCall | None:
        """The Cheat! call open on the game as this referee last read it; a call stored before a later event (another
        window's) is over, and is not returned."""
        call = self.store.open_call(self.sitting_id)
        if call is None or call.at != len(self.sitting.log) or self.state.game is None:
            return None
        try:
            check_caller(self.state.game, call.caller)
        except IllegalAction:
            return None
        return call

    def game_standing(self, call: OpenCall | None) -> Game | None:
        """The game whose places stand: while a verdict is corrected (``call``, open with the first verdict's cards),
        the one that verdict gave. A place is on hold while its cards are corrected, not taken back: "Ann's 1st place
        is taken back" was said at the tap on "Correct the revealed cards", and her place given again when the cards
        stayed."""
        game = self.state.game
        if call is None or call.original is None or game is None or call.at != len(self.sitting.log):
            return game
        try:
            return self.sitting.preview(Call(call.caller, call.original)).game
        except CheatError:
            return game

    def keep_call(self, call: OpenCall, replacing: OpenCall | None = None) -> OpenCall:
        """Store a call as it opens, and again as each revealed card is tapped in (``replacing`` the call as it was
        shown), and return the call now open: raises IllegalAction for a call the rules do not allow, StaleSitting
        (and reloads) once another window has moved the game on or changed the call, StorageError when it cannot be
        written. The cards are checked against the deck with the verdict, not while they come in."""
        self._check_not_moved_on(call.at)
        check_caller(self.state.game, call.caller)
        with self._reloaded_when_stale():
            return self.store.keep_call(self.sitting_id, call, replacing, after=self.recorded)

    def settle(self, call: OpenCall, revealed: tuple[Rank, ...]) -> State:
        """Give the verdict of ``call`` with these cards, only while it is the call open as its window showed it
        (StaleSitting, and a reload, where another window cancelled it or changed its cards meanwhile)."""
        return self.record(Call(call.caller, revealed), settles=call)

    def reopen_last_call(self, at: int | None = None) -> OpenCall:
        """Take the last verdict back and open its call again with the cards it was given, to correct them by hand
        (``original`` keeps them, to put the verdict back as it was): in one commit, so a crash between the two
        cannot leave the verdict taken back and its cards gone. ``at``: as for :meth:`record`."""
        self._check_not_moved_on(at)
        last = self.sitting.last_counted
        if not isinstance(last, Call):
            raise IllegalAction("that verdict is no longer the last action: use Undo to go back to it first")
        call = OpenCall(len(self.sitting.log) + 1, last.caller, last.revealed, original=last.revealed)
        self.record(Undo(), opens=call)
        return call

    def drop_call(self, call: OpenCall) -> None:
        """Forget ``call``, cancelled, only while it is the call open as its window showed it (StaleSitting, and a
        reload, where another window changed it); recording any event forgets it as well. Refused (FileReplaced) where
        the file no longer holds the game the call was made on, as :meth:`keep_call` is; a call of an earlier point
        of the log than this referee's, which the event after it closed, has no mark to check, and is refused as
        another window's change."""
        after = self.recorded if call.at == len(self.sitting.log) else None
        with self._reloaded_when_stale():
            self.store.drop_call(self.sitting_id, call, after=after)

    def _check_not_moved_on(self, at: int | None) -> None:
        if at is not None and at != len(self.sitting.log):
            raise MovedOn("the game has moved on since the screen this tap was made on was drawn")

    @contextmanager
    def _reloaded_when_stale(self) -> Iterator[None]:
        """A write that another window got in before: the sitting is read again, so the page shows it as it is now,
        and the refusal goes on to be said."""
        try:
            yield
        except StaleSitting:
            self.reload()
            raise

    def reload(self) -> None:
        """Read the sitting again from storage (after another window changed it)."""
        self.sitting, self.recorded = self._stored()

    def _stored(self) -> tuple[Sitting, str | None]:
        """The sitting as stored, read whole, and when its last event was recorded."""
        sitting = rebuild(enumerate(self.store.events(self.sitting_id)), _refused(self.sitting_id))
        return sitting, self.store.recorded(self.sitting_id, len(sitting.log) - 1)

    def transcript(self) -> str:
        out = io.StringIO()
        write_transcript(self.sitting.log, out)
        return out.getvalue()

    def table_csv(self) -> str:
        """The match table as CSV: one row per game, then nothing else (the standing is a sum of rows).

        Each player has a column of their own ("player 1", "player 2", ...), so that a name with a comma or a
        semicolon in it stays one name. A name that a spreadsheet would run as a formula (=, +, -, @ first)
        is written with an apostrophe before it, which the spreadsheet shows as text."""
        table = self.state.table
        seats = max((len(row.players) for row in table.rows), default=0)
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["game", "kind", "tracked", "ended", "first", "second", "third",
                         *(f"player {n}" for n in range(1, seats + 1))])
        for row in table.rows:
            places = list(row.places[:3]) + [""] * (3 - len(row.places[:3]))
            players = list(row.players) + [""] * (seats - len(row.players))
            writer.writerow([row.number, row.kind.value, "yes" if row.tracked else "no",
                             "tap" if row.tapped else "played out", *map(_as_text, places + players)])
        return out.getvalue()

    def table_csv_file(self) -> bytes:
        """The match table as a CSV file for a spreadsheet: UTF-8 with a byte order mark, without which Excel on
        Windows reads the file in the machine's own code page and shows "ZoÃ«" for "Zoë"."""
        return self.table_csv().encode("utf-8-sig")

    def calls_csv_file(self) -> bytes:
        """The record of calls (:attr:`Sitting.calls`) as a CSV file for a spreadsheet, one row per player, as the
        match table's is (a byte order mark; a name a spreadsheet would compute, written as text)."""
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["player", "plays", "called", "caught lying", "cheat calls", "right", "picked up"])
        for name, record in self.sitting.calls.items():
            writer.writerow([_as_text(name), record.plays, record.called, record.caught, record.calls, record.right,
                             record.picked_up])
        return out.getvalue().encode("utf-8-sig")


def _as_text(name: str) -> str:
    """A name as a spreadsheet cell that shows it as text: "=1+1" would otherwise be computed (or, in a
    crafted name, run a command) when the CSV is opened."""
    return "'" + name if name[:1] in ("=", "+", "-", "@", "\t", "\r") else name


def _refused(sitting_id: int):
    """The error of a stored event the rules refuse (a database edited by hand, or written by another program), named
    by its number, as a damaged one is."""
    return lambda seq, why: StorageError(f"event {seq} of sitting {sitting_id} cannot be replayed: {why}")
