"""Storage of sittings: the event log in SQLite, behind a narrow interface.

The log is the only truth; the match table rows are stored beside it in the same transaction so
that other tools can read them, but they are always re-derived from the events. A server database
can take SQLite's place by implementing :class:`Store`.
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Protocol, Sequence

from .errors import BadEvent, StorageError
from .events import Event, from_dict, to_dict
from .game import GameResult

#: Environment settings: the database file itself, or the folder that holds ``referee.sqlite3``.
DB_SETTING = "CHEAT_REFEREE_DB"
DATA_SETTING = "CHEAT_REFEREE_DATA"
#: Longest name of a sitting: it is shown in a picker and a listing.
MAX_SITTING_NAME = 80


def default_db_path(ignore_settings: bool = False) -> Path:
    """``$CHEAT_REFEREE_DB``, else ``$CHEAT_REFEREE_DATA/referee.sqlite3``, else the user's data folder (that
    alone with ``ignore_settings``: where the database goes once a bad setting is removed)."""
    if os.environ.get(DB_SETTING) and not ignore_settings:
        return Path(os.environ[DB_SETTING]).expanduser()
    if os.environ.get(DATA_SETTING) and not ignore_settings:
        return Path(os.environ[DATA_SETTING]).expanduser() / "referee.sqlite3"
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "cheat-referee" / "referee.sqlite3"


@dataclass(frozen=True)
class SittingInfo:
    id: int
    name: str
    created: str
    events: int


class Store(Protocol):
    """What the referee needs from a database; every method is one transaction."""

    def sittings(self) -> list[SittingInfo]: ...

    def create_sitting(
        self, name: str, events: Sequence[Event] = (), rows: Sequence[GameResult] = ()
    ) -> SittingInfo: ...

    def events(self, sitting_id: int) -> list[Event]: ...

    def append(self, sitting_id: int, seq: int, event: Event, rows: Sequence[GameResult] | None) -> None: ...

    def close(self) -> None: ...


class StaleSitting(StorageError):
    """Another tab or process recorded an event first; reload the sitting and try again."""


_SCHEMA = """
CREATE TABLE IF NOT EXISTS sittings (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    sitting_id INTEGER NOT NULL REFERENCES sittings(id),
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    recorded TEXT NOT NULL,
    PRIMARY KEY (sitting_id, seq)
);
CREATE TABLE IF NOT EXISTS games (
    sitting_id INTEGER NOT NULL REFERENCES sittings(id),
    number INTEGER NOT NULL,
    kind TEXT NOT NULL,
    players TEXT NOT NULL,
    places TEXT NOT NULL,
    tracked INTEGER NOT NULL,
    PRIMARY KEY (sitting_id, number)
);
"""


class SqliteStore:
    """Sittings in one SQLite file, written with full sync so an acknowledged event survives a crash."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_db_path()
        blocking = next((p for p in (self.path.parent, *self.path.parent.parents) if p.exists()), None)
        if blocking is not None and not blocking.is_dir():
            raise StorageError(f"cannot open the database {self.path}: {blocking} is a file, not a folder")
        if self.path.is_dir():
            raise StorageError(f"cannot open the database {self.path}: it is a folder; name a file in it instead")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None, timeout=10, check_same_thread=False)
            self._refuse_another_programs_database()
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(_SCHEMA)
        except OSError as error:  # "[Errno 2] ..." read as the code's, not the table's: said in words
            raise StorageError(f"cannot open the database {self.path}: {error.strerror.lower()} "
                               f"({error.filename or self.path})") from None
        except sqlite3.Error as error:
            raise StorageError(f"cannot open the database {self.path}: {error}") from None

    def _refuse_another_programs_database(self) -> None:
        """A setting pointed at some other program's SQLite file must not add tables to it or switch its journal:
        the referee's own database has no tables but its three."""
        tables = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        foreign = sorted(tables - {"sittings", "events", "games"})
        if foreign:
            self._db.close()
            raise StorageError(f"cannot open the database {self.path}: it belongs to another program (it holds the "
                               f"table {foreign[0]!r}), and the referee will not change it; name another file")

    def close(self) -> None:
        self._db.close()

    def sittings(self) -> list[SittingInfo]:
        rows = self._read(
            "SELECT s.id, CAST(s.name AS BLOB), s.created, COUNT(e.seq) FROM sittings s "
            "LEFT JOIN events e ON e.sitting_id = s.id GROUP BY s.id ORDER BY s.id"
        )
        # a name damaged on disk is shown with replacement marks: it must not hide the other sittings
        return [SittingInfo(i, bytes(name).decode("utf-8", "replace"), created, n) for i, name, created, n in rows]

    def create_sitting(self, name: str, events: Sequence[Event] = (), rows: Sequence[GameResult] = ()) -> SittingInfo:
        """A new sitting, with ``events`` (an imported transcript) and the match table's ``rows`` they lead to
        written in the same transaction."""
        name = " ".join(name.split())  # tabs and line breaks would break every listing that shows the name
        if not name:
            raise StorageError("a sitting needs a name")
        if len(name) > MAX_SITTING_NAME:
            raise StorageError(f"a sitting's name takes at most {MAX_SITTING_NAME} characters, not {len(name)}")
        created = _now()
        with self._transaction() as db:
            sitting_id = db.execute("INSERT INTO sittings (name, created) VALUES (?, ?)", (name, created)).lastrowid
            db.executemany(
                "INSERT INTO events (sitting_id, seq, body, recorded) VALUES (?, ?, ?, ?)",
                [(sitting_id, seq, json.dumps(to_dict(e)), created) for seq, e in enumerate(events)],
            )
            _write_rows(db, sitting_id, rows)
        return SittingInfo(sitting_id, name, created, len(events))

    def events(self, sitting_id: int) -> list[Event]:
        if not -2**63 <= sitting_id < 2**63 or not self._read("SELECT 1 FROM sittings WHERE id = ?", (sitting_id,)):
            raise StorageError(f"there is no sitting number {sitting_id} in {self.path}")
        rows = self._read("SELECT seq, CAST(body AS BLOB) FROM events WHERE sitting_id = ? ORDER BY seq", (sitting_id,))
        events = []
        for expected, (seq, body) in enumerate(rows):
            if seq != expected:
                raise StorageError(f"sitting {sitting_id} in {self.path} is missing event {expected}")
            try:
                events.append(from_dict(json.loads(bytes(body).decode("utf-8"))))
            except RecursionError:
                raise self._damaged(sitting_id, seq, "nested too deeply") from None
            except (ValueError, TypeError, BadEvent) as error:  # JSON, UTF-8 and over-long numbers are ValueErrors
                raise self._damaged(sitting_id, seq, str(error)) from None
        return events

    def _damaged(self, sitting_id: int, seq: int, why: str) -> StorageError:
        return StorageError(f"event {seq} of sitting {sitting_id} in {self.path} is damaged: {why}")

    def append(self, sitting_id: int, seq: int, event: Event, rows: Sequence[GameResult] | None) -> None:
        """Write event number ``seq`` (and, when they changed, the table's rows) in one commit."""
        with self._transaction() as db:
            try:
                db.execute(
                    "INSERT INTO events (sitting_id, seq, body, recorded) VALUES (?, ?, ?, ?)",
                    (sitting_id, seq, json.dumps(to_dict(event)), _now()),
                )
            except sqlite3.IntegrityError:
                raise StaleSitting("the sitting was changed in another window; it has been reloaded") from None
            if rows is not None:
                db.execute("DELETE FROM games WHERE sitting_id = ?", (sitting_id,))
                _write_rows(db, sitting_id, rows)

    def _read(self, sql: str, params: tuple = ()) -> list[tuple]:
        try:
            return self._db.execute(sql, params).fetchall()
        except sqlite3.Error as error:
            raise StorageError(f"cannot read the database {self.path}: {error}") from None

    def _transaction(self) -> "_Transaction":
        return _Transaction(self._db, self.path)


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any error, with storage errors named by file."""

    def __init__(self, db: sqlite3.Connection, path: Path) -> None:
        self._db, self._path = db, path

    def __enter__(self) -> sqlite3.Connection:
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise StorageError(f"cannot write to the database {self._path}: {error}") from None
        return self._db

    def __exit__(self, kind, error, trace) -> bool:
        if kind is None:
            try:
                self._db.execute("COMMIT")
                return False
            except sqlite3.Error as commit_error:
                error = commit_error
        if self._db.in_transaction:  # SQLite has already rolled back after some errors, a full disk among them
            try:
                self._db.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # the error that brought us here is the one to report
        if isinstance(error, sqlite3.Error):
            raise StorageError(f"cannot write to the database {self._path}: {error}") from None
        return False


def _write_rows(db: sqlite3.Connection, sitting_id: int, rows: Sequence[GameResult]) -> None:
    """The match table's rows, for other tools to read (the log stays the truth they are derived from)."""
    db.executemany(
        "INSERT INTO games (sitting_id, number, kind, players, places, tracked) VALUES (?, ?, ?, ?, ?, ?)",
        [(sitting_id, r.number, r.kind.value, json.dumps(r.players), json.dumps(r.places), int(r.tracked))
         for r in rows],
    )


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
