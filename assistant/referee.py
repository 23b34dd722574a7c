"""The referee: a sitting bound to its storage, so nothing is acknowledged before it is on disk."""

from __future__ import annotations

import csv
import io
from typing import Iterable

from .errors import StorageError
from .events import Event
from .game import State
from .sitting import Sitting, rebuild, replay, write_transcript
from .storage import SittingInfo, StaleSitting, Store


class Referee:
    """Records events for one sitting: check, store, then acknowledge; a failure at any step changes nothing."""

    def __init__(self, store: Store, sitting_id: int) -> None:
        self.store = store
        self.sitting_id = sitting_id
        self.sitting = self._stored_sitting()

    @classmethod
    def new(cls, store: Store, name: str) -> "Referee":
        return cls(store, store.create_sitting(name).id)

    @classmethod
    def import_transcript(cls, store: Store, name: str, lines: Iterable[str | bytes]) -> "Referee":
        """A new sitting from a transcript; an illegal line raises TranscriptError and stores nothing."""
        sitting = replay(lines)
        info: SittingInfo = store.create_sitting(name, sitting.log, sitting.state.table.rows)
        return cls(store, info.id)

    @property
    def state(self) -> State:
        return self.sitting.state

    def record(self, event: Event) -> State:
        """Apply ``event``: raises IllegalAction (nothing changes) or StorageError (nothing changes)."""
        old = self.sitting.state
        new = self.sitting.preview(event)
        rows = new.table.rows if new.table is not old.table else None
        try:
            self.store.append(self.sitting_id, len(self.sitting.log), event, rows)
        except StaleSitting:
            self.reload()
            raise
        self.sitting.commit(event, new)
        return new

    def reload(self) -> None:
        """Read the sitting again from storage (after another window changed it)."""
        self.sitting = self._stored_sitting()

    def _stored_sitting(self) -> Sitting:
        """The sitting as stored; an event the rules refuse (a database edited by hand, or written by another
        program) is named by its number, as a damaged one is."""
        return rebuild(enumerate(self.store.events(self.sitting_id)), lambda seq, why: StorageError(
            f"event {seq} of sitting {self.sitting_id} cannot be replayed: {why}"))

    def transcript(self) -> str:
        out = io.StringIO()
        write_transcript(self.sitting.log, out)
        return out.getvalue()

    def table_csv(self) -> str:
        """The match table as CSV: one row per game, then nothing else (the standing is a sum of rows)."""
        table = self.state.table
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["game", "kind", "tracked", "first", "second", "third", "players"])
        for row in table.rows:
            places = list(row.places) + [""] * (3 - len(row.places))
            writer.writerow([row.number, row.kind.value, "yes" if row.tracked else "no", *places[:3], "; ".join(row.players)])
        return out.getvalue()
