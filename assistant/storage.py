"""Storage of sittings: the event log in SQLite, behind a narrow interface.

The log is the only truth; the match table rows are stored beside it in the same transaction so
that other tools can read them, but they are always re-derived from the events. A server database
can take SQLite's place by implementing :class:`Store`.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import sqlite3
import tempfile
import time
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from types import EllipsisType
from typing import Callable, Protocol, Sequence

from . import strict_json
from .cards import Rank
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
    alone with ``ignore_settings``: where the database goes once a bad setting is removed). A setting set but empty
    is refused (:func:`_setting`)."""
    if not ignore_settings:
        if (db := _setting(DB_SETTING, "a database file")) is not None:
            return Path(db).expanduser()
        if (data := _setting(DATA_SETTING, "the folder for referee.sqlite3")) is not None:
            return Path(data).expanduser() / "referee.sqlite3"
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "cheat-referee" / "referee.sqlite3"


def _setting(name: str, what: str) -> str | None:
    """The setting's value, None where it is not set. One set but empty (``CHEAT_REFEREE_DB="$DB"`` with DB unset) is
    refused, StorageError, not taken for no setting: the table that set it would have played on in the user's own
    database, unsaid."""
    value = os.environ.get(name)
    if value == "":
        raise StorageError(f"{name} is set but empty: name {what} in it, or unset it")
    return value


@dataclass(frozen=True)
class SittingInfo:
    id: int
    name: str
    created: str
    events: int
    #: When its last event was recorded (when it was made, if it has none): the sitting a page opens on is the one
    #: played last, not the one made last.
    active: str = ""


@dataclass(frozen=True)
class OpenCall:
    """A Cheat! called and not settled yet: who called, at which point of the log (its length then), the revealed
    cards tapped in so far, and, for a verdict taken back to be corrected, that verdict's cards.

    Not an event: a transcript has a call only with its verdict. It is kept beside the log all the same, so that a
    reload, a crash or a second window finds the call as it was, cards and all, instead of the turn without it."""

    at: int
    caller: str
    revealed: tuple[Rank, ...] = ()
    original: tuple[Rank, ...] | None = None


class Store(Protocol):
    """What the referee needs from a database; every method is one transaction."""

    def sittings(self) -> list[SittingInfo]: ...

    def create_sitting(
        self, name: str, events: Sequence[Event] = (), rows: Sequence[GameResult] = ()
    ) -> SittingInfo: ...

    def rename_sitting(self, sitting_id: int, name: str) -> None: ...

    def events(self, sitting_id: int) -> list[Event]: ...

    def append(self, sitting_id: int, seq: int, event: Event, rows: Sequence[GameResult] | None,
               settles: OpenCall | None = None, opens: OpenCall | None = None,
               shown: OpenCall | None | EllipsisType = ..., after: str | None = None) -> str: ...

    def recorded(self, sitting_id: int, seq: int) -> str | None: ...

    def read_on(self, sitting_id: int, seq: int, recorded: str) -> tuple[list[Event], str] | None: ...

    def open_call(self, sitting_id: int) -> OpenCall | None: ...

    def keep_call(self, sitting_id: int, call: OpenCall, replacing: OpenCall | None = None,
                  after: str | None = None) -> OpenCall: ...

    def drop_call(self, sitting_id: int, call: OpenCall, after: str | None = None) -> None: ...

    def close(self) -> None: ...


class FileReplaced(StorageError):
    """The database file was replaced at its path while it was open (a backup put back, moved or copied over it): a
    write asked for on what the old file held is refused, and the file now there is read and written from then on."""


class StaleSitting(StorageError):
    """Another tab or process got there first: it recorded an event, or opened, changed, cancelled or settled the
    open call. Reload the sitting, show it as it is now, and let the table tap again."""


class MovedOn(StaleSitting):
    """A tap made on the game as it stood before its last event: a second tap that waited behind the first in one
    window (Undo twice would take back two events), or a window not redrawn since another's. Nothing is recorded."""


class CallChanged(StaleSitting):
    """Another window cancelled, settled or changed the open call since this one showed it."""


class CalledFirst(CallChanged):
    """Another window stored a call by another player on the same play first: one call at a time, the first."""

    def __init__(self, caller: str) -> None:
        super().__init__(f"{caller} called Cheat! on this play first")
        self.caller = caller


class CallOpenElsewhere(CallChanged):
    """A tap that records an event, from a window that has not shown the call another window opened: the event
    would close that call unseen (an Undo took back the play called, and the call with it, silently)."""

    def __init__(self, caller: str) -> None:
        super().__init__(f"{caller} has called Cheat! in another window")
        self.caller = caller


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
CREATE TABLE IF NOT EXISTS open_calls (
    sitting_id INTEGER PRIMARY KEY REFERENCES sittings(id),
    at INTEGER NOT NULL,
    caller TEXT NOT NULL,
    revealed TEXT NOT NULL,
    original TEXT
);
"""


#: The referee's mark in a SQLite file's header (``PRAGMA application_id``, "CHRF"), and the version of its tables
#: (``PRAGMA user_version``): a file that carries neither and holds tables of its own is another program's.
#: The version changes only where an older referee would read the file wrong: a table added (``open_calls``) is
#: made where it is missing, and an older referee leaves it alone, so a file stays readable by both.
APPLICATION_ID = 0x43485246
SCHEMA_VERSION = 1
#: How long a write waits for another writer (milliseconds).
BUSY_MS = 10_000
_COLUMNS = {
    "sittings": ("id", "name", "created"),
    "events": ("sitting_id", "seq", "body", "recorded"),
    "games": ("sitting_id", "number", "kind", "players", "places", "tracked"),
    "open_calls": ("sitting_id", "at", "caller", "revealed", "original"),
}
#: The tables of the referee's files from before they carried its mark.
_UNMARKED_TABLES = ("sittings", "events", "games")

#: a sitting's number of events and when its last was recorded, for the listing: the last event looked up by its key,
#: not every event counted (a page lists the sittings twice a run, and counting 20,000 events took 8 ms each time)
_LAST_EVENT = ("COALESCE((SELECT MAX(seq) + 1 FROM events WHERE sitting_id = {sitting}), 0), "
               "(SELECT CAST(recorded AS BLOB) FROM events WHERE sitting_id = {sitting} ORDER BY seq DESC LIMIT 1)")


def _a_row_number(n: int) -> bool:
    """Whether ``n`` can be a row's number in SQLite at all (a larger one overflows before the query is asked)."""
    return -2**63 <= n < 2**63


def sitting_name(name: str) -> str:
    """A sitting's name as it is kept, or StorageError saying why it cannot be one: checked before anything is
    written, and by the command line before a database is made for it."""
    name = " ".join(name.split())  # tabs and line breaks would break every listing that shows the name
    if not name:
        raise StorageError("a sitting needs a name")
    if len(name) > MAX_SITTING_NAME:
        raise StorageError(f"a sitting's name takes at most {MAX_SITTING_NAME} characters, not {len(name)}")
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # bytes of another encoding on a command line, kept by Python as lone surrogates
        raise StorageError(f"the sitting's name {name.encode('utf-8', 'replace').decode()!r} is not UTF-8 text") from None
    return name


class SqliteStore:
    """Sittings in one SQLite file, written with full sync so an acknowledged event survives a crash.

    ``created`` says whether opening it made a new, empty database (a first start, or a file that has gone).
    ``as_it_is`` opens an existing file to read it as it is: a file of an older referee is not brought up to date (no
    table added, no mark, its journal mode kept), so that listing or exporting a backup leaves it as the older referee
    (which refuses a newer file) needs it. It is still read through a connection that may write where the file may be
    written: a read-only connection to a file in write-ahead mode leaves its ``-wal`` and ``-shm`` beside it. On a full
    disk, or where this user's disk quota is used up, it is read through a read-only one all the same: one that may
    write needs room for them, and without it a table could not even export its games to another disk. A used-up
    quota is known only once SQLite's first read was refused the room for its index (asking takes a write,
    :func:`_quota_used_up`): that try leaves what SQLite leaves on a full disk, an empty ``-wal`` and a ``-shm`` of 3
    bytes, which hold nothing."""

    def __init__(self, path: str | os.PathLike[str] | None = None, as_it_is: bool = False) -> None:
        self.path = Path(path) if path is not None else default_db_path()
        self._db: sqlite3.Connection | None = None
        self._identity: tuple[int, int] | None = None  # the file's device and inode, once it is open
        self._seen: tuple | None = None  # the file as the connection last knew it: see _still_there
        self._index: Path | None = None  # where the file's -shm lies, as it was opened: see _file_mark
        self._making: SittingInfo | None = None  # the sitting create_sitting last began to write: see sitting_made
        self._over_quota = False  # found used up at opening: the file is read around it, as on a full disk
        self._closed = False  # by close(): not opened again when the file changes (_still_there)
        try:
            blocking = next((p for p in (self.path.parent, *self.path.parent.parents) if p.exists()), None)
            if blocking is not None and not blocking.is_dir():
                raise StorageError(f"cannot open the database {self.path}: {blocking} is a file, not a folder")
            if self.path.is_dir():
                raise StorageError(f"cannot open the database {self.path}: it is a folder; name a file in it instead")
            if self.path.exists() and not self.path.is_file():  # a pipe waited for a writer for ever; /dev/null
                raise StorageError(f"cannot open the database {self.path}: it is not a file (a device or a pipe); "
                                   "name a file instead")
            self.created = not self.path.exists()
            self._as_it_is = as_it_is and not self.created
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._open()
        except (OSError, sqlite3.Error, StorageError) as error:
            self._close_quietly()
            raise _cannot_open(self.path, error) from None

    def _open(self) -> None:
        """Connect to the file now at the path, and note which file it is and how it lies."""
        real = self.path.resolve()  # before the connection: a new file's tables are a write (_written)
        self._index = real.with_name(real.name + "-shm")
        try:
            self._connect(self._as_it_is)
        except sqlite3.Error as error:
            if not (self._as_it_is and _refused_by_quota(error, self.path)):
                raise
            self._close_quietly()
            self._over_quota = True
            self._connect(self._as_it_is)
        stat = self.path.stat()
        self._identity = (stat.st_dev, stat.st_ino)
        self._seen = self._file_mark(stat)

    def _reopen(self) -> None:
        """The file now at the path opened in place of the connection's, as a new store opens it (another program's
        file put there is refused); a failure is said as opening says it, and tried again at the next call."""
        identity, self._identity = self._identity, None  # not asked of the file while it is opened (_claim writes)
        self._close_quietly()
        try:
            self._open()
        except (OSError, sqlite3.Error, StorageError) as error:
            self._identity = identity
            self._close_quietly()
            raise _cannot_open(self.path, error) from None

    def _connect(self, as_it_is: bool) -> None:
        """The connection, read-only where the file may not be written, or where it is only read and the disk has no
        room (full, or a quota found used up) for what SQLite would write beside it; a new file's tables made."""
        ready = self._probe()
        self.read_only = self._cannot_write() or (as_it_is and (self._over_quota or _disk_full(self.path)))
        self._db = self._read_only_connection() if self.read_only else sqlite3.connect(
            self.path, isolation_level=None, timeout=BUSY_MS / 1000, check_same_thread=False)
        if not ready and not as_it_is:
            self._claim_unless_read_only()
        if not (self.read_only or as_it_is):  # a read-only file stays in the journal mode it has: switching writes
            self._use_wal()
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")

    @property
    def identity(self) -> tuple[int, int] | None:
        """The file's device and inode as it was opened: a file put at the same path since is another one."""
        return self._identity

    def _cannot_write(self) -> bool:
        """Whether this process may not write the file, or the folder where SQLite keeps its journal beside it (the
        folder of the file itself, where the path is a link): such a file is opened read-only, to be shown (opened to
        write, it was refused: a write-ahead journal could not be made or switched to)."""
        real = self.path.resolve()
        return real.exists() and not (os.access(real, os.W_OK) and os.access(real.parent, os.W_OK))

    def _read_only_uri(self) -> str:
        """The file opened read-only. A file in write-ahead mode is read through its shared-memory index (``-shm``),
        which SQLite cannot make in a read-only folder, on a full disk or past a used-up quota
        (:func:`_no_room_for_an_index`): a file without one is then read as it lies on disk (``immutable``), which is
        the whole file only while its write-ahead journal (``-wal``) holds nothing. The header is read last, only where
        there is no index (a connection that holds the file in write-ahead mode has made one): see
        :func:`_in_wal_mode`."""
        real = self.path.resolve()
        uri = f"{real.as_uri()}?mode=ro"
        wal, shm = (real.with_name(real.name + end) for end in ("-wal", "-shm"))
        if not _an_index(shm) and (why := _no_room_for_an_index(real, self._over_quota)) and _in_wal_mode(real):
            if wal.exists() and wal.stat().st_size > 0:
                raise StorageError(f"cannot open the database {self.path}: its latest events are in {wal.name}, "
                                   f"which cannot be read without {shm.name}, and {why}")
            uri += "&immutable=1"
        return uri

    def _read_only_connection(self) -> sqlite3.Connection:
        """A read-only connection. One that reads the file as it lies does not see another referee's writes: it is
        opened again when the file changes, as every connection is (:meth:`_still_there`)."""
        return sqlite3.connect(self._read_only_uri(), uri=True, isolation_level=None, timeout=BUSY_MS / 1000,
                               check_same_thread=False)

    def _file_mark(self, stat: os.stat_result) -> tuple:
        """How the file lies (``stat``, of the path): when it was last changed (its content, or its inode: a copy with
        its old times kept still changes the latter), its size, and whether it has an index beside it. Asked at every
        call, so the index is looked for where it lay when the file was opened, beside the file a link leads to:
        resolving the path at each call took two thirds of a read's time. A link pointed at another file since is
        found by its inode first, and that file opened, the path resolved anew (:meth:`_still_there`)."""
        return stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size, _an_index(self._index)

    def _probe(self) -> bool:
        """Refuse another program's file through a read-only connection first (closing a connection that may write
        would copy that program's journal into its file), in one snapshot, since another referee may be making the
        tables meanwhile. True where the file is the referee's, up to date: nothing to write then (a read-only file
        can still be shown). The one write before it is known whose the file is: a write left half-made by a crash
        is rolled back, as the first read of any SQLite program that may write the file would."""
        if not self.path.exists():
            return False
        try:
            kind, why, complete = self._look()
        except sqlite3.OperationalError as error:
            if getattr(error, "sqlite_errorname", "") != "SQLITE_READONLY_ROLLBACK" or self._cannot_write():
                raise
            self._undo_interrupted_write()
            kind, why, complete = self._look()
        self._refuse(kind, why)
        return kind == "ours" and complete

    def _look(self) -> tuple[str, str, bool]:
        """Whose the file is (see :func:`_kind`), and whether it holds every table, read in one snapshot."""
        probe = sqlite3.connect(self._read_only_uri(), uri=True, timeout=BUSY_MS / 1000)
        try:
            probe.execute("BEGIN")
            kind, why = _kind(probe)
            complete = _has_all_tables(probe)
            probe.execute("COMMIT")
        finally:
            probe.close()
        return kind, why, complete

    def _undo_interrupted_write(self) -> None:
        """Roll back the write that a process stopped midway left in the file's ``-journal`` (a referee killed while
        it made a new file's tables), as SQLite does on the first read of a connection that may write: a read-only
        look cannot, and the file could never be opened again. Nothing acknowledged is lost: a write is acknowledged
        only once committed, and a committed write leaves no such journal."""
        with closing(sqlite3.connect(self.path, timeout=BUSY_MS / 1000)) as db:
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()

    def _close_quietly(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _claim(self) -> None:
        """Make the tables in a new file, or the ones an older file of the referee's lacks, and mark it as the
        referee's at this version, after checking the file again inside the write: two referees starting on one
        new file at once make them once, and a file that became another program's since :meth:`_probe` is refused
        still."""
        with self._transaction() as db:
            kind, why = _kind(self._db)
            self._refuse(kind, why)
            for statement in _SCHEMA.split(";"):  # executescript would end the transaction first
                if statement.strip():
                    db.execute(statement)
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _claim_unless_read_only(self) -> None:
        """:meth:`_claim`, except that a read-only file of the referee's that lacks only a table added since it was
        made (``open_calls``) opens as it is: its games can be shown, and no call can be kept in it."""
        try:
            self._claim()
        except StorageError as error:
            if "readonly" not in str(error) or not set(_UNMARKED_TABLES) <= _table_names(self._db):
                raise

    def _refuse(self, kind: str, why: str) -> None:
        if kind == "foreign":
            raise StorageError(f"cannot open the database {self.path}: it belongs to another program ({why}), and "
                               "the referee will not change it; name another file")
        if kind == "newer":
            raise StorageError(f"cannot open the database {self.path}: a newer version of the referee wrote it; "
                               "update the referee to open it (this version would not read it right)")

    def _use_wal(self) -> None:
        """Write-ahead logging, so that a reader never waits for a writer. Switching to it answers "locked" at
        once, without SQLite's wait, while another referee opens the same new file: tried again for a while."""
        deadline = time.monotonic() + BUSY_MS / 1000
        while True:
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def _still_there(self) -> None:
        """Refuse to go on with a file that was deleted under the open connection: SQLite would go on writing into the
        deleted file, to be lost when the referee stops. A file put in its place (a backup moved there) is opened in
        place of the old, and the call refused (FileReplaced): it was asked on what the old file held. A file changed
        since this connection last wrote it is read through a new connection: a backup copied over it keeps its
        inode, and the connection's cache of the old file's pages, which SQLite trusts in write-ahead mode while the
        index beside it (``-shm``) is unchanged, was written back into the backup at the next event (another
        referee's writes change it too: a new connection reads them as well)."""
        if self._identity is None or self._closed:
            return
        if self._db is None:  # the file now there could not be opened at the last call: tried again
            self._reopen()
            return
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            raise StorageError(f"the database {self.path} was deleted while the referee was running, so nothing more "
                               "can be kept in it: put the file back, or start the referee again to begin a new "
                               "one") from None
        except OSError as error:
            raise StorageError(f"cannot reach the database {self.path}: {(error.strerror or str(error)).lower()}") from None
        if (stat.st_dev, stat.st_ino) != self._identity:
            self._reopen()
            raise FileReplaced(_REPLACED.format(path=self.path))
        if self._file_mark(stat) != self._seen and not self._db.in_transaction:
            self._reopen()

    def _written(self) -> None:
        """This connection's own write committed: the file as it lies now is the one its cache holds."""
        try:
            self._seen = self._file_mark(self.path.stat())
        except OSError:
            self._seen = None  # read again at the next call, which says what is wrong

    def close(self) -> None:
        self._closed = True
        if self._db is not None:
            self._db.close()

    def sittings(self) -> list[SittingInfo]:
        """Every sitting, with its number of events and when the last was recorded. Its texts are read as bytes: a
        name or a time damaged on disk is shown with replacement marks, and must not hide the other sittings."""
        self._still_there()
        rows = self._read_unless_damaged(
            f"SELECT s.id, CAST(s.name AS BLOB), CAST(s.created AS BLOB), {_LAST_EVENT.format(sitting='s.id')} "
            "FROM sittings s ORDER BY s.id")
        if rows is None:
            rows = self._sittings_one_by_one()
        return [SittingInfo(i, _text(name, "(a name that cannot be read)"), _text(created), n,
                            _text(last) or _text(created)) for i, name, created, n, last in rows]

    def _sittings_one_by_one(self) -> list[tuple]:
        """The listing where one damaged disk page of one sitting's events (SQLite's "malformed") stopped the count
        of them all, and so hid every sitting: counted sitting by sitting, one that cannot be counted is listed as
        empty, and opening it says what is wrong."""
        listed = self._read_unless_damaged("SELECT id, CAST(name AS BLOB), CAST(created AS BLOB) FROM sittings "
                                           "ORDER BY id")
        rows = []
        for i, name, created in listed if listed is not None else self._sittings_row_by_row():
            counted = self._read_unless_damaged(f"SELECT {_LAST_EVENT.format(sitting='?')}", (i, i))
            rows.append((i, name, created, *(counted[0] if counted else (0, None))))
        return rows

    def _sittings_row_by_row(self) -> list[tuple]:
        """The sittings where a damaged disk page of the sittings table itself stops its reading whole, which hid every
        sitting: each looked up by its number, from 1 to the highest (sittings are numbered in turn and never
        deleted) and every number the events name. A sitting whose own row lies on the damaged page is listed under
        a name that cannot be read; opening it says the file is damaged. The others open as before."""
        highest = [n for (n,) in self._read_unless_damaged("SELECT MAX(id) FROM sittings") or () if isinstance(n, int)]
        named = self._read_unless_damaged("SELECT DISTINCT sitting_id FROM events") or ()
        numbers = set(range(1, max(highest, default=0) + 1)) | {n for (n,) in named if isinstance(n, int)}
        listed = []
        for i in sorted(numbers):
            row = self._read_unless_damaged("SELECT CAST(name AS BLOB), CAST(created AS BLOB) FROM sittings WHERE id = ?",
                                            (i,))
            listed.append((i, *(row[0] if row else (None, None))))
        return listed

    def create_sitting(self, name: str, events: Sequence[Event] = (), rows: Sequence[GameResult] = ()) -> SittingInfo:
        """A new sitting, with ``events`` (an imported transcript) and the match table's ``rows`` they lead to
        written in the same transaction."""
        name = sitting_name(name)
        created = _now()
        self._making = None
        with self._transaction() as db:
            sitting_id = db.execute("INSERT INTO sittings (name, created) VALUES (?, ?)", (name, created)).lastrowid
            self._making = SittingInfo(sitting_id, name, created, len(events), created)
            db.executemany(
                "INSERT INTO events (sitting_id, seq, body, recorded) VALUES (?, ?, ?, ?)",
                [(sitting_id, seq, json.dumps(to_dict(e)), created) for seq, e in enumerate(events)],
            )
            _write_rows(db, sitting_id, rows)
        return self._making

    def sitting_made(self) -> SittingInfo | None:
        """The sitting the last :meth:`create_sitting` began, where the file holds it: a Ctrl-C that stops the call
        does not say whether its commit was made (one that comes as SQLite's COMMIT returns, or while the journal is
        emptied after it, finds the sitting stored), and an import said "interrupted" of a sitting it had stored.
        None where it is not there: rolled back, or stopped before its commit (still open, and rolled back when the
        store is closed; a read on this connection would see its rows)."""
        making = self._making
        if making is None or self._db.in_transaction:
            return None
        rows = self._read("SELECT CAST(created AS BLOB) FROM sittings WHERE id = ?", (making.id,))
        return making if rows and _text(rows[0][0]) == making.created else None

    def rename_sitting(self, sitting_id: int, name: str) -> None:
        """Give a sitting another name ("Fridya at Maya's" typed in a hurry): its log, games and open call stay as
        they are. The name is checked as a new sitting's is, before anything is written."""
        name = sitting_name(name)
        with self._transaction() as db:
            if not _a_row_number(sitting_id) or db.execute(
                    "UPDATE sittings SET name = ? WHERE id = ?", (name, sitting_id)).rowcount != 1:
                raise self._no_sitting(sitting_id)

    def events(self, sitting_id: int) -> list[Event]:
        """The sitting's events (:meth:`read_on` reads those after one a page has read)."""
        if not _a_row_number(sitting_id) or not self._read("SELECT 1 FROM sittings WHERE id = ?", (sitting_id,)):
            raise self._no_sitting(sitting_id)
        return self._parsed(sitting_id, 0, self._rows_from(sitting_id, 0))

    def read_on(self, sitting_id: int, seq: int, recorded: str) -> tuple[list[Event], str] | None:
        """The events after number ``seq``, and when the last of them (or ``seq`` itself, where none came after) was
        recorded, where event ``seq`` is still the very row recorded at ``recorded`` (:meth:`recorded`); None where it
        is not. One statement reads them all, so the mark and the rows after it are one moment of the file."""
        rows = self._rows_from(sitting_id, seq)
        if not rows or rows[0][0] != seq or _text(rows[0][2]) != recorded:
            return None
        return self._parsed(sitting_id, seq + 1, rows[1:]), _text(rows[-1][2])

    def _rows_from(self, sitting_id: int, start: int) -> list[tuple]:
        return self._read("SELECT seq, CAST(body AS BLOB), CAST(recorded AS BLOB) FROM events "
                          "WHERE sitting_id = ? AND seq >= ? ORDER BY seq", (sitting_id, start))

    def _parsed(self, sitting_id: int, start: int, rows: list[tuple]) -> list[Event]:
        """The events of ``rows`` (number ``start`` on), each checked to be the next, and readable."""
        events = []
        for expected, (seq, body, _) in enumerate(rows, start):
            if seq != expected:
                raise StorageError(f"sitting {sitting_id} in {self.path} is missing event {expected}")
            try:
                events.append(from_dict(strict_json.decode(bytes(body).decode("utf-8"))))
            except RecursionError:
                raise self._damaged(sitting_id, seq, "nested too deeply") from None
            except (ValueError, TypeError, BadEvent) as error:  # JSON, UTF-8 and over-long numbers are ValueErrors
                raise self._damaged(sitting_id, seq, str(error)) from None
        return events

    def _no_sitting(self, sitting_id: int) -> StorageError:
        return StorageError(f"there is no sitting number {sitting_id} in {self.path}")

    def _damaged(self, sitting_id: int, seq: int, why: str) -> StorageError:
        return StorageError(f"event {seq} of sitting {sitting_id} in {self.path} is damaged: {why}")

    def append(self, sitting_id: int, seq: int, event: Event, rows: Sequence[GameResult] | None,
               settles: OpenCall | None = None, opens: OpenCall | None = None,
               shown: OpenCall | None | EllipsisType = ..., after: str | None = None) -> str:
        """Write event number ``seq`` (and, when they changed, the table's rows) in one commit, and return when it was
        recorded (:meth:`recorded`). The commit also closes the
        sitting's open call: ``settles`` names the call the event gives the verdict of, refused (StaleSitting) unless
        it is the one open, so that a window not yet redrawn settles no call it did not show; ``shown`` is the call
        (or None) the window showed as it was tapped, refused the same way unless it is the one open, so that a tap
        in a window that has not shown another's call (a play, an Undo) closes no call it did not know of (``...``:
        no window, as an import); ``opens`` is a call opened by the same commit (a verdict taken back to be corrected,
        with its cards), so no crash between the two can lose the cards. ``after`` is when the event before it was
        recorded as the writer read it (:meth:`recorded`, when the sitting was made before its first; None: not
        known): an event whose sitting no longer holds that very row is refused (FileReplaced), since the file was
        replaced under the writer (a backup copied over it): written on, the sitting took an event tapped on another
        game, after a gap where the backup held fewer, or a first deal into a backup's empty sitting."""
        with self._transaction() as db:
            self._refuse_unless_as_read(db, sitting_id, seq, after)
            if settles is not None:
                stored = _open_call(db, sitting_id, self.path)
                if stored != settles:
                    raise CallChanged(_changed_elsewhere(stored, settles))
            elif shown is not ...:
                stored = _open_call(db, sitting_id, self.path)
                stored = stored if stored is not None and stored.at == seq else None  # one on this log, not an older
                if stored != shown:
                    if shown is None:
                        raise CallOpenElsewhere(stored.caller)
                    raise CallChanged(_changed_elsewhere(stored, shown))
            recorded = _now()
            try:
                db.execute(
                    "INSERT INTO events (sitting_id, seq, body, recorded) VALUES (?, ?, ?, ?)",
                    (sitting_id, seq, json.dumps(to_dict(event)), recorded),
                )
            except sqlite3.IntegrityError:
                raise StaleSitting("the sitting was changed in another window; it has been reloaded") from None
            if rows is not None:
                db.execute("DELETE FROM games WHERE sitting_id = ?", (sitting_id,))
                _write_rows(db, sitting_id, rows)
            db.execute("DELETE FROM open_calls WHERE sitting_id = ?", (sitting_id,))  # settled, or overtaken
            if opens is not None:
                _write_call(db, sitting_id, opens)
        return recorded

    def _refuse_unless_as_read(self, db: sqlite3.Connection, sitting_id: int, length: int, after: str | None) -> None:
        """Refuse (FileReplaced) a write on the sitting's first ``length`` events as the writer read them, the last
        recorded at ``after`` (None: not known), where the sitting no longer holds that very row: see :meth:`append`."""
        if after is not None and self._recorded(db, sitting_id, length - 1) != after:
            raise FileReplaced(f"sitting {sitting_id} in {self.path} no longer holds the game as it was read: the "
                               "file was replaced (a backup put back?), so nothing was written; it is read as it "
                               "is now")

    def recorded(self, sitting_id: int, seq: int) -> str | None:
        """When event number ``seq`` of the sitting was recorded, to the microsecond (None where there is none): the
        mark of that very row, which a row put back from a backup or written by another referee does not share. Of
        event -1, the one before the first, when the sitting itself was made: an empty sitting's mark, which a sitting
        of the same number in a backup (made at another time) does not share."""
        self._still_there()
        try:
            return self._recorded(self._db, sitting_id, seq)
        except sqlite3.Error as error:
            raise self._unreadable(error) from None

    @staticmethod
    def _recorded(db: sqlite3.Connection, sitting_id: int, seq: int) -> str | None:
        if seq == -1:
            rows = db.execute("SELECT CAST(created AS BLOB) FROM sittings WHERE id = ?", (sitting_id,)).fetchall()
        else:
            rows = db.execute("SELECT CAST(recorded AS BLOB) FROM events WHERE sitting_id = ? AND seq = ?",
                              (sitting_id, seq)).fetchall()
        return _text(rows[0][0]) if rows else None

    def open_call(self, sitting_id: int) -> OpenCall | None:
        """The call open in this sitting, if any. One that cannot be read back (a row edited by hand) is no call:
        the log is untouched, and the table calls again."""
        self._still_there()
        return _open_call(self._db, sitting_id, self.path)

    def keep_call(self, sitting_id: int, call: OpenCall, replacing: OpenCall | None = None,
                  after: str | None = None) -> OpenCall:
        """Store the sitting's open call: a new one (``replacing`` None), or its cards as they are tapped in
        (``replacing`` the call as the window saw it), and return the call now open. Refused, storing nothing, once
        another window has recorded an event (StaleSitting), opened another player's call on the play (CalledFirst)
        or changed the cards (StaleSitting): a tap is never applied to what its window did not show. The same call
        opened again (a second tap on the caller's name) is the call already open, cards and all. ``after``: as for
        :meth:`append`, of the game the call is made on (a call kept in a backup copied over the file went on into
        its game with its verdict)."""
        with self._transaction() as db:
            self._refuse_unless_as_read(db, sitting_id, call.at, after)
            (length,) = db.execute("SELECT COUNT(*) FROM events WHERE sitting_id = ?", (sitting_id,)).fetchone()
            if length != call.at:
                raise StaleSitting("the game was changed in another window; it has been reloaded")
            stored = _open_call(db, sitting_id, self.path)
            stored = stored if stored is not None and stored.at == call.at else None
            if replacing is None and stored is not None:
                if stored.caller != call.caller:
                    raise CalledFirst(stored.caller)
                return stored
            if stored != replacing:
                raise CallChanged(_changed_elsewhere(stored, replacing))
            _write_call(db, sitting_id, call)
        return call

    def drop_call(self, sitting_id: int, call: OpenCall, after: str | None = None) -> None:
        """Forget ``call``, cancelled; refused (StaleSitting) unless it is the call open, as its window showed it.
        ``after``: as for :meth:`keep_call` (a backup copied over the file, which held no call, was said to be another
        window's change, and one that held a call like it lost it)."""
        with self._transaction() as db:
            self._refuse_unless_as_read(db, sitting_id, call.at, after)
            stored = _open_call(db, sitting_id, self.path)
            if stored != call:
                raise CallChanged(_changed_elsewhere(stored, call))
            db.execute("DELETE FROM open_calls WHERE sitting_id = ?", (sitting_id,))

    def _unreadable(self, error: sqlite3.Error) -> StorageError:
        return StorageError(f"cannot read the database {self.path}: {_in_words(error, self.path)}")

    def _read(self, sql: str, params: tuple = ()) -> list[tuple]:
        self._still_there()
        try:
            return self._db.execute(sql, params).fetchall()
        except sqlite3.Error as error:
            raise self._unreadable(error) from None

    def _read_unless_damaged(self, sql: str, params: tuple = ()) -> list[tuple] | None:
        """:meth:`_read` where a damaged disk page must hide only what lies on it: None where SQLite finds the file
        damaged there, for the caller to read around it; any other failure is said as :meth:`_read` says it."""
        try:
            return self._db.execute(sql, params).fetchall()
        except sqlite3.Error as error:
            if not _damaged(error):
                raise self._unreadable(error) from None
            return None

    def _transaction(self) -> "_Transaction":
        self._still_there()
        return _Transaction(self._db, self.path, self._written)


#: What a store says of a file replaced at its path while it was open (:class:`FileReplaced`).
_REPLACED = ("the database {path} was replaced by another file while it was open (a backup put back?), so nothing was "
             "written: the file now there is the one read and written from now on")


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any error, with storage errors named by file; ``written`` is told of
    a commit."""

    def __init__(self, db: sqlite3.Connection, path: Path, written: Callable[[], None]) -> None:
        self._db, self._path, self._written = db, path, written

    def __enter__(self) -> sqlite3.Connection:
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise StorageError(f"cannot write to the database {self._path}: {_in_words(error, self._path)}") from None
        return self._db

    def __exit__(self, kind, error, trace) -> bool:
        if kind is None:
            try:
                self._db.execute("COMMIT")
            except sqlite3.Error as commit_error:
                error = commit_error
            else:
                self._empty_the_journal()
                self._written()
                return False
        if self._db.in_transaction:  # SQLite has already rolled back after some errors, a full disk among them
            try:
                self._db.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # the error that brought us here is the one to report
        if isinstance(error, sqlite3.Error):
            raise StorageError(f"cannot write to the database {self._path}: {_in_words(error, self._path)}") from None
        return False

    def _empty_the_journal(self) -> None:
        """Copy the committed pages into the database file and empty the journal beside it (``-wal``). SQLite reads
        a journal left beside a path into whatever file is there next: a backup copied over the database, or the
        new file made where it was deleted, would take in this one's last events. Best effort: the events are
        already safe in the journal, and a reader (another window, another program) may hold it for the moment:
        it is not waited for, or every tap would wait for the reader to let go."""
        try:
            self._db.execute("PRAGMA busy_timeout = 0")  # never wait for a reader: the next event tries again
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error:
            pass
        finally:
            self._db.execute(f"PRAGMA busy_timeout = {BUSY_MS}")


def _write_rows(db: sqlite3.Connection, sitting_id: int, rows: Sequence[GameResult]) -> None:
    """The match table's rows, for other tools to read (the log stays the truth they are derived from)."""
    db.executemany(
        "INSERT INTO games (sitting_id, number, kind, players, places, tracked) VALUES (?, ?, ?, ?, ?, ?)",
        [(sitting_id, r.number, r.kind.value, json.dumps(r.players), json.dumps(r.places), int(r.tracked))
         for r in rows],
    )


def _changed_elsewhere(stored: OpenCall | None, shown: OpenCall) -> str:
    """What another window did to the call this one showed (``shown``), now that ``stored`` is open."""
    if stored is None:
        return f"{shown.caller}'s call was cancelled or settled in another window"
    if stored.caller != shown.caller:
        return f"{shown.caller}'s call was cancelled in another window, and {stored.caller} has called Cheat! since"
    return "the revealed cards were changed in another window; they are shown as they are now"


def _open_call(db: sqlite3.Connection, sitting_id: int, path: Path) -> OpenCall | None:
    try:
        rows = db.execute("SELECT at, caller, revealed, original FROM open_calls WHERE sitting_id = ?",
                          (sitting_id,)).fetchall()
    except sqlite3.Error as error:
        if "no such table: open_calls" in str(error):  # a read-only file from before the table: no call kept there
            return None
        raise StorageError(f"cannot read the database {path}: {_in_words(error, path)}") from None
    if not rows:
        return None
    at, caller, revealed, original = rows[0]
    try:
        return OpenCall(at, caller, _ranks(revealed), None if original is None else _ranks(original))
    except (ValueError, TypeError, RecursionError):
        return None


def _write_call(db: sqlite3.Connection, sitting_id: int, call: OpenCall) -> None:
    db.execute("INSERT OR REPLACE INTO open_calls (sitting_id, at, caller, revealed, original) VALUES (?, ?, ?, ?, ?)",
               (sitting_id, call.at, call.caller, json.dumps([r.value for r in call.revealed]),
                None if call.original is None else json.dumps([r.value for r in call.original])))


def _ranks(text: str) -> tuple[Rank, ...]:
    values = json.loads(text)
    if not isinstance(values, list):
        raise ValueError("not a list of ranks")
    return tuple(Rank(v) for v in values)


def _table_names(db: sqlite3.Connection) -> set[str]:
    return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _has_all_tables(db: sqlite3.Connection) -> bool:
    return set(_COLUMNS) <= _table_names(db)


def _kind(db: sqlite3.Connection) -> tuple[str, str]:
    """What the file is, and for another program's file what says so: "new" (nothing in it), "ours" (the
    referee's mark, or the referee's tables as they were before it carried one), "newer" (the referee's, from
    a later version) or "foreign"."""
    app_id = db.execute("PRAGMA application_id").fetchone()[0]
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if app_id == APPLICATION_ID:
        return ("newer" if version > SCHEMA_VERSION else "ours"), ""
    if app_id != 0 or version != 0:
        return "foreign", "its header carries another program's mark"
    objects = [row for row in db.execute("SELECT type, name FROM sqlite_master ORDER BY name")
               if not row[1].startswith("sqlite_")]
    if not objects:
        return "new", ""
    for kind, name in objects:
        if kind != "table" or name not in _UNMARKED_TABLES:
            return "foreign", f"it holds the {kind} {name!r}"
        if tuple(row[1] for row in db.execute(f"PRAGMA table_info({name})")) != _COLUMNS[name]:
            return "foreign", f"its table {name!r} has other columns than the referee's"
    if len(objects) != len(_UNMARKED_TABLES):  # the referee made its three tables together, before it marked its files
        return "foreign", "it holds only some of the referee's tables"
    return "ours", ""


#: The size of the index of a write-ahead journal (``-shm``) once SQLite has made it: one region of 32 KiB.
_INDEX_REGION = 32 * 1024


def _an_index(shm: Path) -> bool:
    """Whether ``shm`` is an index SQLite has made: one shorter than a region (3 bytes) was left by a program that
    could not make it, on a full disk, and reading through it would have to grow it."""
    try:
        return shm.stat().st_size >= _INDEX_REGION
    except OSError:
        return False


def _no_room_for_an_index(path: Path, over_quota: bool = False) -> str:
    """Why SQLite cannot make the index of the file's write-ahead journal beside it, and what to do instead ("" where
    it can): a read-only folder, a full disk, or this user's disk quota (``over_quota``: found so already, by
    :func:`_refused_by_quota`) used up."""
    if not os.access(path.parent, os.W_OK):
        return "the folder is read-only; copy the three files to a folder you may write to"
    copy = f"copy {path.name} and {path.name}-wal together to another disk and read them there"
    if _disk_full(path):
        return f"the disk is full; free some disk space (nothing was lost), or {copy}"
    if over_quota:
        return f"the disk quota is used up; free some of your files on that disk (nothing was lost), or {copy}"
    return ""


def _in_wal_mode(path: Path) -> bool:
    """Whether a SQLite file is in write-ahead mode, by its header (bytes 18 and 19 are 2 then). Only for a file no
    connection of this process holds in write-ahead mode (none has an index, :func:`_an_index`, beside it): closing
    any handle on the file lets go of every POSIX lock this process has on it, SQLite's too, and without the referee's
    lock the next program to close the file took its journal away, and the referee wrote on through a copy no other
    program saw."""
    try:
        with open(path, "rb") as file:
            return file.read(20)[18:20] == b"\x02\x02"
    except OSError:
        return False


def _cannot_open(path: Path, error: OSError | sqlite3.Error | StorageError) -> StorageError:
    """Why the file at ``path`` cannot be opened, in words ("[Errno 2] ..." is the code's, not the table's)."""
    if isinstance(error, StorageError):
        return error
    if isinstance(error, OSError):
        return StorageError(f"cannot open the database {path}: {(error.strerror or str(error)).lower()} "
                            f"({error.filename or path})")
    return StorageError(f"cannot open the database {path}: {_in_words(error, path)}")


def _in_words(error: sqlite3.Error, path: Path) -> str:
    """SQLite's message, and what it means here where it does not say: a "readonly database" is the file or its
    folder (where the journal is kept beside it, ``-wal`` and ``-shm``) that may not be written."""
    text = str(error)
    if getattr(error, "sqlite_errorname", "") == "SQLITE_READONLY_ROLLBACK":  # see SqliteStore._undo_interrupted_write
        return (f"{text} (a write that stopped midway, a crash or a power cut, is in {path.name}-journal beside it, "
                "and only a user who may write the file and its folder can undo it: open it as that user once)")
    if "no such table: open_calls" in text and not os.access(path, os.W_OK):  # see _claim_unless_read_only
        return ("the file is read-only, and older than the referee's table of open calls: the games in it can be "
                "shown, not added to")
    if "readonly" in text and path.exists() and not os.access(path, os.W_OK):
        return f"{text} (the file is read-only: the games in it can be shown, not added to)"
    if "readonly" in text and not os.access(path.parent, os.W_OK):
        return f"{text} (the folder {path.parent} is read-only, and the database keeps its journal beside it)"
    if "unable to open" in text and path.exists() and not os.access(path, os.R_OK):
        return f"{text} (this user may not read the file)"
    if "unable to open" in text and not path.exists() and not os.access(path.parent, os.W_OK):
        return f"{text} (the folder {path.parent} is read-only: the database cannot be made there)"
    if "locked" in text:
        return f"{text} (another program is writing to it: try again when it is done)"
    if ("disk I/O error" in text or "full" in text) and _disk_full(path):
        return f"{text} (the disk is full)"
    if _refused_by_quota(error, path):
        return f"{text} (the disk quota is used up)"
    if _damaged(error):
        return (f"{text} (part of the file is damaged: restore a backup; the sittings that still open can be saved "
                "as transcripts with python -m assistant export)")
    return text


def _damaged(error: sqlite3.Error) -> bool:
    """Whether SQLite found the file damaged on disk (not locked, full or refused)."""
    return getattr(error, "sqlite_errorname", "") == "SQLITE_CORRUPT"


def _text(stored: bytes | None, missing: str = "") -> str:
    """A text column read as bytes, as text: a byte damaged on disk is a replacement mark, not an error."""
    return missing if stored is None else bytes(stored).decode("utf-8", "replace")


#: The room a write of the referee needs at least: less free on the disk is a full disk.
_ROOM = 64 * 1024


def _disk_full(path: Path) -> bool:
    """Whether the disk the file lies on has no room left: the file's own folder, where SQLite keeps its journal and
    index, not a link's (a link's disk with room had a database on a full one opened to write, "disk I/O error")."""
    try:
        return shutil.disk_usage(path.resolve().parent).free < _ROOM
    except (OSError, RuntimeError):  # RuntimeError: a loop of links, before Python 3.13
        return False


#: SQLite's codes for an I/O error met while it wrote to the disk: a page or a journal's frame (a commit, a new file's
#: tables), a sync, a file cut short, the index of the write-ahead journal made or grown (``-shm``, which a read makes
#: too, where no other program has made it yet).
_WRITING = frozenset({sqlite3.SQLITE_IOERR_WRITE, sqlite3.SQLITE_IOERR_FSYNC, sqlite3.SQLITE_IOERR_DIR_FSYNC,
                      sqlite3.SQLITE_IOERR_TRUNCATE, sqlite3.SQLITE_IOERR_SHMOPEN, sqlite3.SQLITE_IOERR_SHMSIZE})


def _refused_by_quota(error: sqlite3.Error, path: Path) -> bool:
    """Whether ``error`` is SQLite's "disk I/O error" of a write that this user's disk quota refused. Only an error
    met while SQLite wrote is asked about (its code, :data:`_WRITING`), whatever the referee was doing: a quota
    refuses more room, never a read, so a read's I/O error (a bad sector, a network disk gone) says nothing of it, and
    asking would write beside the database each time a listing or an export failed to read. The code, not the call
    that failed, is what tells: a listing that reads a file no program has open makes its index first, and that
    write is the one a quota refuses. The answer is kept on the error: a store that asks whether to open the file
    around a used-up quota, then words the error that was not one, asked the disk twice, two scratch writes."""
    known = getattr(error, "_refused_by_quota", None)
    if known is None:
        known = getattr(error, "sqlite_errorcode", None) in _WRITING and not _disk_full(path) and _quota_used_up(path)
        error._refused_by_quota = known
    return known


def _quota_used_up(path: Path) -> bool:
    """Whether this user's disk quota refuses the file's folder more room (EDQUOT), once a write of SQLite has failed
    with "disk I/O error" (:func:`_refused_by_quota`): it keeps the system's error to itself, and the disk still has
    room for others (:func:`_disk_full` cannot see a quota). So the disk is asked: :data:`_ROOM` bytes are written to
    a scratch file in the folder, one without a name where the system allows (gone when closed, even at a crash), and
    synced (a network disk refuses only then). Random bytes: a disk that compresses would store zeros in no room at
    all."""
    try:
        with tempfile.TemporaryFile(dir=path.resolve().parent) as scratch:
            scratch.write(os.urandom(_ROOM))
            scratch.flush()
            os.fsync(scratch.fileno())
    except OSError as error:
        return error.errno == errno.EDQUOT
    except RuntimeError:  # a loop of links, before Python 3.13
        return False
    return False


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")  # orders a sitting made and one played in one second
